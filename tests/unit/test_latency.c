/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: log-linear histograms.
 */
#include <stdlib.h>
#include <string.h>

#include "hgw_latency.h"
#include "hgw_test.h"

static struct hgw_hist h, h2, u;

/* Every bucket's range is contiguous with the next and maps back. */
static void
test_buckets(void)
{
	for (uint32_t i = 0; i + 1 < HGW_HIST_BUCKETS; i++) {
		HGW_CHECK_EQ(hgw_hist_bucket_high(i) + 1, hgw_hist_bucket_low(i + 1));
		HGW_CHECK_EQ(hgw_hist_bucket(hgw_hist_bucket_low(i)), i);
		HGW_CHECK_EQ(hgw_hist_bucket(hgw_hist_bucket_high(i)), i);
		/* relative width below 2^-SUB_BITS */
		uint64_t lo = hgw_hist_bucket_low(i), hi = hgw_hist_bucket_high(i);

		HGW_CHECK((hi - lo) * HGW_HIST_SUB <= lo || hi == lo);
	}
	HGW_CHECK_EQ(hgw_hist_bucket(0), 0);
	HGW_CHECK_EQ(hgw_hist_bucket(UINT64_MAX), HGW_HIST_BUCKETS - 1);
	HGW_CHECK_EQ(hgw_hist_bucket((1ull << HGW_HIST_MAX_BITS) - 1),
		     HGW_HIST_BUCKETS - 1);
}

/* 1..1,000,000 once each: percentile p is p * 10^4 within 1.6%. */
static void
test_uniform(void)
{
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 99.999 };

	hgw_hist_init(&h);
	for (uint64_t v = 1; v <= 1000000; v++)
		hgw_hist_record(&h, v);
	HGW_CHECK_EQ(h.count, 1000000);
	HGW_CHECK_EQ(h.min, 1);
	HGW_CHECK_EQ(h.max, 1000000);
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 100), 1000000);
	for (unsigned int i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double want = ps[i] * 10000, got = (double)hgw_hist_percentile(&h, ps[i]);

		HGW_CHECK(got >= want && got <= want * (1 + 1.0 / HGW_HIST_SUB));
	}
}

/* A tail: 99.9% at 100, 0.1% at 1,000,000: p99.9 is 100, p99.91 the tail. */
static void
test_tail_and_merge(void)
{
	hgw_hist_init(&h);
	hgw_hist_init(&h2);
	hgw_hist_init(&u);
	for (int i = 0; i < 999; i++) {
		hgw_hist_record(&h, 100);
		hgw_hist_record(&u, 100);
	}
	hgw_hist_record(&h2, 1000000);
	hgw_hist_record(&u, 1000000);
	hgw_hist_merge(&h, &h2);
	HGW_CHECK(memcmp(&h, &u, sizeof(h)) == 0);	/* merge == union */
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 99.9), 100);
	HGW_CHECK(hgw_hist_percentile(&h, 99.95) >= 1000000 * (1 - 1.0 / HGW_HIST_SUB));
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 100), 1000000);
	HGW_CHECK_EQ(h.sum, 999 * 100 + 1000000);
}

static void
test_edges(void)
{
	hgw_hist_init(&h);
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 50), 0);	/* empty */
	hgw_hist_record(&h, 0);
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 50), 0);
	HGW_CHECK_EQ(h.min, 0);
	hgw_hist_record(&h, UINT64_MAX >> 1);		/* beyond the top bucket */
	HGW_CHECK_EQ(h.max, UINT64_MAX >> 1);
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 100), UINT64_MAX >> 1);
	HGW_CHECK_EQ(h.b[HGW_HIST_BUCKETS - 1], 1);
	HGW_CHECK_EQ(h.count, 2);
}

int
main(void)
{
	HGW_TEST(test_buckets);
	HGW_TEST(test_uniform);
	HGW_TEST(test_tail_and_merge);
	HGW_TEST(test_edges);
	return hgw_test_done();
}
