/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: log-linear histograms.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hgw_latency.h"
#include "hgw_prng.h"
#include "hgw_test.h"

static struct hgw_hist h, h2, u;
static struct hgw_hist part[4], m;

/* Seeded xorshift64*: the same values on every run and every host. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	return hgw_xorshift64s(&rng);
}

/* Exponential with the given mean, rounded down. */
static uint64_t
rnd_exp(double mean)
{
	double u01 = ((double)(rnd() >> 11) + 1) / 9007199254740992.0; /* (0, 1] */

	return (uint64_t)(-log(u01) * mean);
}

/* A latency-like mixture: 99% with mean 2000, 0.9% with mean 200000,
 * 0.1% with mean 50000000, so the values (a few of them 0) span over 25
 * powers of two, all well below the top bucket. */
static uint64_t
rnd_latency(void)
{
	uint64_t r = rnd() % 1000;

	return rnd_exp(r < 990 ? 2000 : r < 999 ? 200000 : 50000000);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

#define NVALS 200000
static uint64_t vals[NVALS];

/* v lies in the range of its bucket at hh's precision. */
static int
in_bucket(const struct hgw_hist *hh, uint64_t v)
{
	uint32_t i = hgw_hist_bucket(hh, v);

	return hgw_hist_bucket_low(hh, i) <= v && v <= hgw_hist_bucket_high(hh, i);
}

/* At every precision, every bucket's range is contiguous with the next
 * and maps back; its relative width is below 2^-sub_bits and, above the
 * exact ones, at least 2^-(sub_bits + 1): the precision is the one asked
 * for, not finer. The first bucket starts at 0, the top one ends at
 * UINT64_MAX, and every value from 0 to 2^17 (and around each power of
 * two) lies in its bucket's range. */
static void
test_buckets(void)
{
	for (uint32_t s = 1; s <= HGW_HIST_MAX_SUB_BITS; s++) {
		uint32_t nb, top, bad = 0;

		HGW_CHECK_EQ(hgw_hist_init_precision(&h, s), 0);
		nb = hgw_hist_nbuckets(&h);
		top = nb - 1;
		HGW_CHECK_EQ(nb, (HGW_HIST_MAX_BITS - s + 1) << s);
		HGW_CHECK(nb <= HGW_HIST_MAX_BUCKETS);
		for (uint32_t i = 0; i < top; i++) {
			uint64_t lo = hgw_hist_bucket_low(&h, i);
			uint64_t hi = hgw_hist_bucket_high(&h, i);
			uint64_t next = hgw_hist_bucket_low(&h, i + 1);

			if (hi + 1 != next || hi < lo ||
			    hgw_hist_bucket(&h, lo) != i ||
			    hgw_hist_bucket(&h, hi) != i ||
			    ((hi - lo) << s > lo && hi != lo) ||
			    (i >= 2u << s && (hi - lo + 1) << (s + 1) <= lo)) {
				if (bad++ < 5)
					printf("# %u bits, bucket %u: %" PRIu64 "..%"
					       PRIu64 ", next from %" PRIu64 "\n",
					       s, i, lo, hi, next);
			}
		}
		HGW_CHECK_EQ(bad, 0);
		for (uint64_t v = 0; v <= 1u << 17; v++)
			bad += !in_bucket(&h, v);
		for (uint32_t k = 1; k < 64; k++)
			for (uint64_t v = (1ull << k) - 1; v <= (1ull << k) + 1; v++)
				bad += !in_bucket(&h, v);
		HGW_CHECK_EQ(bad, 0);
		HGW_CHECK_EQ(hgw_hist_bucket_low(&h, 0), 0);
		HGW_CHECK_EQ(hgw_hist_bucket(&h, 0), 0);
		HGW_CHECK_EQ(hgw_hist_bucket(&h, (1ull << HGW_HIST_MAX_BITS) - 1),
			     top);
		HGW_CHECK_EQ(hgw_hist_bucket(&h, 1ull << HGW_HIST_MAX_BITS), top);
		HGW_CHECK_EQ(hgw_hist_bucket(&h, UINT64_MAX), top);
		HGW_CHECK_EQ(hgw_hist_bucket_low(&h, top),
			     (1ull << HGW_HIST_MAX_BITS) -
			     (1ull << (HGW_HIST_MAX_BITS - 1 - s)));
		HGW_CHECK_EQ(hgw_hist_bucket_high(&h, top), UINT64_MAX);
	}
}

/* Precisions 1..HGW_HIST_MAX_SUB_BITS are taken, others refused with h
 * untouched; hgw_hist_init is the default precision; decimal digits map
 * to the smallest precision that keeps them. */
static void
test_init_precision(void)
{
	static const uint32_t bad[] = { 0, HGW_HIST_MAX_SUB_BITS + 1, 64,
					UINT32_MAX };

	hgw_hist_init(&h);
	HGW_CHECK_EQ(h.sub_bits, HGW_HIST_SUB_BITS);
	HGW_CHECK_EQ(hgw_hist_nbuckets(&h), HGW_HIST_NBUCKETS(HGW_HIST_SUB_BITS));
	HGW_CHECK_EQ(hgw_hist_nbuckets(&h), 2240);
	HGW_CHECK_EQ(h.count, 0);
	HGW_CHECK_EQ(h.min, UINT64_MAX);
	HGW_CHECK_EQ(h.max, 0);
	hgw_hist_record(&h, 12345);
	u = h;
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		HGW_CHECK_EQ(hgw_hist_init_precision(&h, bad[i]), -EINVAL);
		HGW_CHECK(memcmp(&h, &u, sizeof(h)) == 0);
	}
	for (uint32_t s = 1; s <= HGW_HIST_MAX_SUB_BITS; s++) {
		HGW_CHECK_EQ(hgw_hist_init_precision(&h, s), 0);
		HGW_CHECK_EQ(h.sub_bits, s);
		HGW_CHECK_EQ(h.count, 0);
		HGW_CHECK_EQ(h.min, UINT64_MAX);
		HGW_CHECK_EQ(h.max, 0);
		HGW_CHECK(h.sum == 0);
		HGW_CHECK_EQ(h.b[hgw_hist_bucket(&u, 12345)], 0);
		HGW_CHECK_EQ(hgw_hist_percentile(&h, 50), 0);
	}
	HGW_CHECK_EQ(HGW_HIST_MAX_BUCKETS, 31744);

	HGW_CHECK_EQ(hgw_hist_digits_to_bits(0), -EINVAL);
	HGW_CHECK_EQ(hgw_hist_digits_to_bits(1), 4);
	HGW_CHECK_EQ(hgw_hist_digits_to_bits(2), 7);
	HGW_CHECK_EQ(hgw_hist_digits_to_bits(3), 10);
	HGW_CHECK_EQ(hgw_hist_digits_to_bits(4), -EINVAL);
	HGW_CHECK_EQ(hgw_hist_digits_to_bits(UINT32_MAX), -EINVAL);
	for (uint32_t d = 1; d <= 3; d++) {
		int s = hgw_hist_digits_to_bits(d);

		HGW_CHECK(s >= 1 && s <= HGW_HIST_MAX_SUB_BITS);
		HGW_CHECK(ldexp(1, -s) <= pow(10, -(double)d));
		HGW_CHECK(ldexp(1, 1 - s) > pow(10, -(double)d));
	}
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

		HGW_CHECK(got >= want &&
			  got <= want * (1 + 1.0 / (1u << HGW_HIST_SUB_BITS)));
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
	HGW_CHECK(hgw_hist_percentile(&h, 99.95) >=
		  1000000 * (1 - 1.0 / (1u << HGW_HIST_SUB_BITS)));
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 100), 1000000);
	HGW_CHECK(h.sum == 999 * 100 + 1000000);
}

/* hh holds vals[0..n) (sorted here) and was asked for precision bits.
 * Every percentile against the exact nearest-rank one, computed in
 * integers (parts per million): the histogram answers the top of the
 * bucket holding it, so never below it and above it by less than
 * 2^-bits of it, and exactly it below 2^(bits + 1) where buckets are
 * single values. */
static void
check_percentiles(const struct hgw_hist *hh, size_t n, uint32_t bits)
{
	static const uint64_t ppm[] = { 1, 10000, 100000, 250000, 500000,
		750000, 900000, 990000, 999000, 999900, 999990, 999999, 1000000 };
	double worst = 0;

	qsort(vals, n, sizeof(vals[0]), cmp_u64);
	HGW_CHECK_EQ(hh->count, n);
	HGW_CHECK_EQ(hh->min, vals[0]);
	HGW_CHECK_EQ(hh->max, vals[n - 1]);
	for (unsigned int i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++) {
		uint64_t rank = (ppm[i] * n + 999999) / 1000000;
		uint64_t want = vals[(rank ? rank : 1) - 1];
		uint64_t got = hgw_hist_percentile(hh, (double)ppm[i] / 1e4);

		/* (got - want) * 2^sub_bits < want, without overflow */
		if (got < want || got - want > (want - 1) >> bits ||
		    (want < 2ull << bits && got != want)) {
			printf("# p%g: exact %" PRIu64 ", histogram %" PRIu64 "\n",
			       (double)ppm[i] / 1e4, want, got);
			HGW_CHECK(0);
		}
		if (want && (double)(got - want) / (double)want > worst)
			worst = (double)(got - want) / (double)want;
	}
	HGW_CHECK_EQ(hh->sub_bits, bits);
	printf("# %u bits: worst relative error %.4f%% (bound %.4f%%)\n",
	       bits, worst * 100, 100.0 / (1u << bits));
}

/* 1..N in a shuffled order, N not a round number. */
static void
test_exact_uniform(void)
{
	const size_t n = 123457;

	hgw_hist_init(&h);
	for (size_t i = 0; i < n; i++)
		vals[i] = i + 1;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1);
		uint64_t t = vals[i];

		vals[i] = vals[j];
		vals[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		hgw_hist_record(&h, vals[i]);
	check_percentiles(&h, n, HGW_HIST_SUB_BITS);
}

/* The exponential mixture, against its sorted values. */
static void
test_exact_exponential(void)
{
	hgw_hist_init(&h);
	for (size_t i = 0; i < NVALS; i++) {
		vals[i] = rnd_latency();
		hgw_hist_record(&h, vals[i]);
	}
	check_percentiles(&h, NVALS, HGW_HIST_SUB_BITS);
	HGW_CHECK(h.max > 1000000);	/* the tail is there */
}

/* min and max are the values recorded, not bucket bounds. */
static void
test_min_max_exact(void)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	hgw_hist_init(&h);
	for (int i = 0; i < 10000; i++) {
		uint64_t v = 1000 + rnd() % 1000000;

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		hgw_hist_record(&h, v);
	}
	HGW_CHECK_EQ(h.min, lo);
	HGW_CHECK_EQ(h.max, hi);
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 100), hi);
	HGW_CHECK(hgw_hist_percentile(&h, 0.0001) >= lo);
}

/* A == B: precision, every bucket (those beyond the precision's too),
 * count, min, max, sum. */
static void
check_same(const struct hgw_hist *a, const struct hgw_hist *b)
{
	uint32_t diff = 0;
	/* the buckets of their precision: all a reader can reach, and all
	 * a histogram allocated at its precision has */
	uint32_t n = hgw_hist_nbuckets(a) > hgw_hist_nbuckets(b) ?
		     hgw_hist_nbuckets(a) : hgw_hist_nbuckets(b);

	HGW_CHECK_EQ(a->sub_bits, b->sub_bits);
	for (uint32_t i = 0; i < n; i++)
		if (a->b[i] != b->b[i] && diff++ < 5)
			printf("# bucket %u: %" PRIu64 " != %" PRIu64 "\n", i,
			       a->b[i], b->b[i]);
	HGW_CHECK_EQ(diff, 0);
	HGW_CHECK_EQ(a->count, b->count);
	HGW_CHECK_EQ(a->min, b->min);
	HGW_CHECK_EQ(a->max, b->max);
	HGW_CHECK(a->sum == b->sum);	/* all 128 bits */
}

/* Values spread at random over three histograms (a fourth stays empty),
 * merged in two different orders: both equal the histogram of them all. */
static void
test_merge_union(void)
{
	hgw_hist_init(&u);
	for (int k = 0; k < 4; k++)
		hgw_hist_init(&part[k]);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = i == 500 ? 0 : i == 600 ? UINT64_MAX / 4 : rnd_latency();

		hgw_hist_record(&part[rnd() % 3], v);
		hgw_hist_record(&u, v);
	}
	hgw_hist_init(&m);
	for (int k = 0; k < 4; k++)
		hgw_hist_merge(&m, &part[k]);
	check_same(&m, &u);
	m = part[2];
	hgw_hist_merge(&m, &part[3]);
	hgw_hist_merge(&m, &part[0]);
	hgw_hist_merge(&m, &part[1]);
	check_same(&m, &u);
	HGW_CHECK_EQ(m.min, 0);
	HGW_CHECK_EQ(m.max, UINT64_MAX / 4);
	/* empty into empty stays empty */
	hgw_hist_init(&m);
	hgw_hist_merge(&m, &part[3]);
	HGW_CHECK_EQ(m.count, 0);
	HGW_CHECK_EQ(m.min, UINT64_MAX);
	HGW_CHECK_EQ(m.max, 0);
}

/* Log-uniform: a random shift of a random 40-bit number, so every power
 * of two below 2^HGW_HIST_MAX_BITS is about as likely, 0 included. */
static uint64_t
rnd_log(void)
{
	uint64_t r = rnd();

	return (r >> 24) >> (r % 41);
}

/* At precisions 1, 3, 6, 8 and 10 bits, three known distributions
 * (uniform, the latency mixture, log-uniform up to the top bucket):
 * every percentile within 2^-sub_bits of the exact one. */
static void
test_precision_percentiles(void)
{
	static const uint32_t bits[] = { 1, 3, 6, 8, 10 };
	const size_t n = 123457;

	for (unsigned int k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
		HGW_CHECK_EQ(hgw_hist_init_precision(&h, bits[k]), 0);
		for (size_t i = 0; i < n; i++)
			vals[i] = i + 1;
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = rnd() % (i + 1);
			uint64_t t = vals[i];

			vals[i] = vals[j];
			vals[j] = t;
		}
		for (size_t i = 0; i < n; i++)
			hgw_hist_record(&h, vals[i]);
		check_percentiles(&h, n, bits[k]);

		HGW_CHECK_EQ(hgw_hist_init_precision(&h, bits[k]), 0);
		for (size_t i = 0; i < NVALS; i++) {
			vals[i] = rnd_latency();
			hgw_hist_record(&h, vals[i]);
		}
		check_percentiles(&h, NVALS, bits[k]);

		HGW_CHECK_EQ(hgw_hist_init_precision(&h, bits[k]), 0);
		for (size_t i = 0; i < NVALS; i++) {
			vals[i] = rnd_log();
			hgw_hist_record(&h, vals[i]);
		}
		check_percentiles(&h, NVALS, bits[k]);
		HGW_CHECK(h.max > 1ull << (HGW_HIST_MAX_BITS - 2));
	}
}

/* Histograms of different precisions do not merge: -EINVAL, dst as it
 * was, either way round, even when src is empty. At 1 and 10 bits, as at
 * the default, a merge is the union. */
static void
test_merge_precision(void)
{
	static const uint32_t bits[] = { 1, 10 };

	HGW_CHECK_EQ(hgw_hist_init_precision(&h, 6), 0);
	HGW_CHECK_EQ(hgw_hist_init_precision(&h2, 8), 0);
	for (int i = 0; i < 1000; i++) {
		hgw_hist_record(&h, rnd_latency());
		hgw_hist_record(&h2, rnd_latency());
	}
	u = h;
	HGW_CHECK_EQ(hgw_hist_merge(&h, &h2), -EINVAL);
	HGW_CHECK(memcmp(&h, &u, sizeof(h)) == 0);
	u = h2;
	HGW_CHECK_EQ(hgw_hist_merge(&h2, &h), -EINVAL);
	HGW_CHECK(memcmp(&h2, &u, sizeof(h2)) == 0);
	HGW_CHECK_EQ(hgw_hist_init_precision(&m, 7), 0);
	u = h;
	HGW_CHECK_EQ(hgw_hist_merge(&h, &m), -EINVAL);
	HGW_CHECK(memcmp(&h, &u, sizeof(h)) == 0);
	HGW_CHECK_EQ(hgw_hist_init_precision(&m, 6), 0);
	HGW_CHECK_EQ(hgw_hist_merge(&m, &h), 0);
	check_same(&m, &h);

	for (unsigned int k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
		HGW_CHECK_EQ(hgw_hist_init_precision(&u, bits[k]), 0);
		HGW_CHECK_EQ(hgw_hist_init_precision(&m, bits[k]), 0);
		for (int p = 0; p < 3; p++)
			HGW_CHECK_EQ(hgw_hist_init_precision(&part[p], bits[k]), 0);
		for (int i = 0; i < 100000; i++) {
			uint64_t v = i == 7 ? UINT64_MAX : rnd_latency();

			hgw_hist_record(&part[rnd() % 3], v);
			hgw_hist_record(&u, v);
		}
		for (int p = 0; p < 3; p++)
			HGW_CHECK_EQ(hgw_hist_merge(&m, &part[p]), 0);
		check_same(&m, &u);
	}
}

/* 0 and UINT64_MAX are counted; max stays exact beyond the top bucket. */
static void
test_zero_and_top(void)
{
	hgw_hist_init(&h);
	hgw_hist_record(&h, 0);
	hgw_hist_record(&h, 0);
	hgw_hist_record(&h, 1ull << HGW_HIST_MAX_BITS);
	hgw_hist_record(&h, UINT64_MAX);
	HGW_CHECK_EQ(h.count, 4);
	HGW_CHECK_EQ(h.b[0], 2);
	HGW_CHECK_EQ(h.b[hgw_hist_nbuckets(&h) - 1], 2);
	HGW_CHECK_EQ(h.min, 0);
	HGW_CHECK_EQ(h.max, UINT64_MAX);
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 50), 0);
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 100), UINT64_MAX);
	HGW_CHECK_EQ(hgw_hist_percentile(&h, 75), UINT64_MAX);
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
	HGW_CHECK_EQ(h.b[hgw_hist_nbuckets(&h) - 1], 1);
	HGW_CHECK_EQ(h.count, 2);
}

/* One CSV row as read back. */
struct row {
	char text[64];		/* the value as written */
	uint64_t count, cum;
	double ccdf;
};

#define MAXROWS HGW_HIST_MAX_BUCKETS
static struct row rows[MAXROWS + 1];

/* Reads back what hgw_hist_write_csv wrote to f: checks the header and
 * that every row has its four fields; returns the number of rows. */
static size_t
read_csv(FILE *f)
{
	char line[256];
	size_t n = 0;

	rewind(f);
	HGW_CHECK(fgets(line, sizeof(line), f) != NULL);
	HGW_CHECK(strcmp(line, "value,count,cumulative,ccdf\n") == 0);
	while (n <= MAXROWS && fgets(line, sizeof(line), f) != NULL) {
		struct row *r = &rows[n++];
		int got = sscanf(line, "%63[^,],%" SCNu64 ",%" SCNu64 ",%lg",
				 r->text, &r->count, &r->cum, &r->ccdf);

		if (got != 4)
			printf("# bad row: %s", line);
		HGW_CHECK(got == 4);
	}
	return n;
}

/* The rows of hh written with scale 1: one per non-empty bucket, in
 * order, value the bucket's top (max for the last), counts summing to
 * count, cumulative rising by count, ccdf = (count - cumulative) / count
 * to 9 digits, 0 on the last. */
static void
check_csv(const struct hgw_hist *hh)
{
	FILE *f = tmpfile();
	uint64_t cum = 0;
	size_t n, r = 0;

	HGW_CHECK(f != NULL);
	if (f == NULL)
		return;
	HGW_CHECK_EQ(hgw_hist_write_csv(hh, f, 1.0), 0);
	n = read_csv(f);
	for (uint32_t i = 0; i < hgw_hist_nbuckets(hh); i++) {
		if (hh->b[i] == 0)
			continue;
		if (r >= n) {
			r++;
			continue;
		}
		const struct row *w = &rows[r++];
		uint64_t v = strtoull(w->text, NULL, 10);
		uint64_t top = hgw_hist_bucket_high(hh, i);
		double want;

		cum += hh->b[i];
		want = (double)(hh->count - cum) / (double)hh->count;
		HGW_CHECK_EQ(v, top < hh->max ? top : hh->max);
		HGW_CHECK_EQ(w->count, hh->b[i]);
		HGW_CHECK_EQ(w->cum, cum);
		HGW_CHECK(fabs(w->ccdf - want) <= want * 1e-8);
	}
	HGW_CHECK_EQ(n, r);	/* one row per non-empty bucket */
	if (n > 0) {
		HGW_CHECK_EQ(rows[n - 1].cum, hh->count);
		HGW_CHECK(rows[n - 1].ccdf == 0);
		HGW_CHECK_EQ(strtoull(rows[n - 1].text, NULL, 10), hh->max);
	}
	for (size_t k = 1; k < n; k++) {
		HGW_CHECK(rows[k].cum > rows[k - 1].cum);
		HGW_CHECK(rows[k].ccdf <= rows[k - 1].ccdf);
	}
	fclose(f);
}

static void
test_csv(void)
{
	static const uint32_t bits[] = { 1, HGW_HIST_MAX_SUB_BITS };

	hgw_hist_init(&h);
	check_csv(&h);				/* header only */
	for (int i = 0; i < 100000; i++)
		hgw_hist_record(&h, rnd_latency());
	hgw_hist_record(&h, 0);
	check_csv(&h);
	hgw_hist_record(&h, UINT64_MAX);	/* last row: max, exactly */
	check_csv(&h);
	/* the buckets of other precisions: 1 bit (few, wide), 10 (many) */
	for (unsigned int k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
		HGW_CHECK_EQ(hgw_hist_init_precision(&h, bits[k]), 0);
		check_csv(&h);
		for (int i = 0; i < 100000; i++)
			hgw_hist_record(&h, rnd_latency());
		hgw_hist_record(&h, 0);
		check_csv(&h);
		hgw_hist_record(&h, UINT64_MAX);
		check_csv(&h);
	}
}

/* hh written as JSON (json 1, named name) or CSV into s, NUL-terminated. */
static void
write_to(char *s, size_t len, const struct hgw_hist *hh, double scale,
	 int json, const char *name)
{
	FILE *f = tmpfile();
	size_t got;

	s[0] = '\0';
	HGW_CHECK(f != NULL);
	if (f == NULL)
		return;
	HGW_CHECK_EQ(json ? hgw_hist_write_json(hh, f, name, scale, "ns") :
		     hgw_hist_write_csv(hh, f, scale), 0);
	rewind(f);
	got = fread(s, 1, len - 1, f);
	s[got] = '\0';
	fclose(f);
}

static char text[1 << 20];

/* Prints s as TAP comments, one per line. */
static void
show(const char *what, const char *s)
{
	size_t len = strlen(s);

	printf("# %s:\n# ", what);
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\n' && i + 1 < len)
			fputs("\n# ", stdout);
		else
			putchar(s[i]);
	if (len == 0 || s[len - 1] != '\n')
		putchar('\n');
}

static void
check_text(const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return;
	show("got", got);
	show("wanted", want);
	HGW_CHECK(0);
}

/* A 1e-7 tail keeps its digits; scaled values print without noise. */
static void
test_csv_digits(void)
{
	hgw_hist_init(&h);
	for (int i = 0; i < 9999999; i++)
		hgw_hist_record(&h, 100);
	hgw_hist_record(&h, 1000000);
	write_to(text, sizeof(text), &h, 1.0, 0, NULL);
	check_text(text, "value,count,cumulative,ccdf\n"
		   "100,9999999,9999999,1e-07\n"
		   "1000000,1,10000000,0\n");
	check_csv(&h);

	hgw_hist_init(&h);
	hgw_hist_record(&h, 3);
	hgw_hist_record(&h, 30);
	hgw_hist_record(&h, 1000);		/* bucket 1000..1007 */
	write_to(text, sizeof(text), &h, 0.1, 0, NULL);
	check_text(text, "value,count,cumulative,ccdf\n"
		   "0.3,1,1,0.666666667\n"
		   "3,1,2,0.333333333\n"
		   "100,1,3,0\n");
}

/* Does s contain the JSON member "key": value (value as written)? */
static int
has_member(const char *s, const char *key, const char *value)
{
	char want[128];

	snprintf(want, sizeof(want), "\"%s\": %s", key, value);
	if (strstr(s, want) != NULL)
		return 1;
	printf("# JSON lacks %s\n", want);
	return 0;
}

static void
test_json(void)
{
	static const char *const pk[] = { "p50", "p90", "p99", "p99.9",
					  "p99.99", "p99.999" };
	static const double pv[] = { 50, 90, 99, 99.9, 99.99, 99.999 };
	char v[32];
	size_t nb = 0, brackets = 0;

	hgw_hist_init(&h);
	for (uint64_t x = 1; x <= 100000; x++)
		hgw_hist_record(&h, x);
	write_to(text, sizeof(text), &h, 1.0, 1, "rx \"to\" tx\\\n");
	HGW_CHECK(has_member(text, "name", "\"rx \\\"to\\\" tx\\\\\\u000a\""));
	HGW_CHECK(has_member(text, "unit", "\"ns\""));
	HGW_CHECK(has_member(text, "precision_bits", "6,"));
	HGW_CHECK(has_member(text, "relative_error", "0.015625,"));
	HGW_CHECK(has_member(text, "count", "100000,"));
	HGW_CHECK(has_member(text, "min", "1,"));
	HGW_CHECK(has_member(text, "max", "100000,"));
	HGW_CHECK(has_member(text, "mean", "50000.5,"));
	for (unsigned int i = 0; i < 6; i++) {
		snprintf(v, sizeof(v), "%" PRIu64, hgw_hist_percentile(&h, pv[i]));
		HGW_CHECK(has_member(text, pk[i], v));
	}
	HGW_CHECK(has_member(text, "p99.999", "100000}"));
	for (uint32_t i = 0; i < hgw_hist_nbuckets(&h); i++)
		nb += h.b[i] != 0;
	for (const char *p = strstr(text, "\"buckets\""); p && *p; p++)
		brackets += *p == '[';
	HGW_CHECK_EQ(brackets, nb + 1);
	HGW_CHECK(has_member(text, "buckets", "[[1, 1], [2, 1], "));
	HGW_CHECK(strstr(text, ", [100000, ") != NULL);	/* last: max */
	HGW_CHECK(text[strlen(text) - 1] == '\n');

	hgw_hist_init(&h);		/* empty */
	write_to(text, sizeof(text), &h, 0.5, 1, NULL);
	HGW_CHECK(has_member(text, "name", "\"\""));
	HGW_CHECK(has_member(text, "count", "0,"));
	HGW_CHECK(has_member(text, "min", "0,"));
	HGW_CHECK(has_member(text, "mean", "0,"));
	HGW_CHECK(has_member(text, "p50", "0,"));
	HGW_CHECK(has_member(text, "buckets", "[]}"));

	hgw_hist_record(&h, 7);		/* scaled */
	hgw_hist_record(&h, 8);
	write_to(text, sizeof(text), &h, 0.5, 1, "s");
	HGW_CHECK(has_member(text, "min", "3.5,"));
	HGW_CHECK(has_member(text, "mean", "3.75,"));
	HGW_CHECK(has_member(text, "buckets", "[[3.5, 1], [4, 1]]}"));

	/* another precision: its members, its buckets (1000..1000 at 10
	 * bits, 1000..1007 at 6), the relative error not scaled */
	HGW_CHECK_EQ(hgw_hist_init_precision(&h, 10), 0);
	hgw_hist_record(&h, 1000);
	hgw_hist_record(&h, 1001);
	write_to(text, sizeof(text), &h, 0.5, 1, "s");
	HGW_CHECK(has_member(text, "precision_bits", "10,"));
	HGW_CHECK(has_member(text, "relative_error", "0.0009765625,"));
	HGW_CHECK(has_member(text, "buckets", "[[500, 1], [500.5, 1]]}"));
	HGW_CHECK_EQ(hgw_hist_init_precision(&h, 1), 0);
	write_to(text, sizeof(text), &h, 1.0, 1, "s");
	HGW_CHECK(has_member(text, "precision_bits", "1,"));
	HGW_CHECK(has_member(text, "relative_error", "0.5,"));
}

/* A failed write is reported, not lost in the stdio buffer. */
static void
test_write_errors(void)
{
	FILE *f = fopen("/dev/full", "w");

	hgw_hist_init(&h);
	hgw_hist_record(&h, 5);
	HGW_CHECK(f != NULL);
	if (f != NULL) {
		HGW_CHECK_EQ(hgw_hist_write_csv(&h, f, 1.0), -ENOSPC);
		clearerr(f);
		HGW_CHECK_EQ(hgw_hist_write_json(&h, f, "x", 1.0, "ns"), -ENOSPC);
		fclose(f);
	}
	f = fopen("/dev/null", "r");	/* not open for writing */
	HGW_CHECK(f != NULL);
	if (f != NULL) {
		HGW_CHECK(hgw_hist_write_csv(&h, f, 1.0) < 0);
		clearerr(f);
		HGW_CHECK(hgw_hist_write_json(&h, f, "x", 1.0, "ns") < 0);
		fclose(f);
	}
}

/* The buckets of precision s as hgw_latency.h describes them, listed by
 * their lowest values in increasing order: 0 .. 2^s - 1 one value each,
 * then every power of two 2^p (p = s .. HGW_HIST_MAX_BITS - 1) cut into
 * 2^s parts of 2^(p - s) values, the last part reaching UINT64_MAX.
 * Returns the number of buckets. */
static uint64_t ref_low[HGW_HIST_MAX_BUCKETS];

static uint32_t
ref_buckets(uint32_t s)
{
	uint32_t n = 0;

	for (uint64_t v = 0; v < 1ull << s; v++)
		ref_low[n++] = v;
	for (uint32_t p = s; p < HGW_HIST_MAX_BITS; p++)
		for (uint64_t k = 0; k < 1ull << s; k++)
			ref_low[n++] = (1ull << p) + (k << (p - s));
	return n;
}

/* The bucket holding v among the n listed: the last whose lowest value
 * is at most v (a binary search, not the library's arithmetic). */
static uint32_t
ref_bucket(uint32_t n, uint64_t v)
{
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (ref_low[mid] <= v)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static uint64_t
ref_high(uint32_t n, uint32_t b)
{
	return b + 1 < n ? ref_low[b + 1] - 1 : UINT64_MAX;
}

static uint64_t ref_count[HGW_HIST_MAX_BUCKETS];
static char want_text[1 << 20];

/* Appends to want_text at *at (snprintf, bounded). */
static void __attribute__((format(printf, 2, 3)))
put_want(size_t *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (*at < sizeof(want_text))
		*at += (size_t)vsnprintf(want_text + *at,
					 sizeof(want_text) - *at, fmt, ap);
	va_end(ap);
}

/* Every precision's buckets against the list above; then, at the default
 * precision, 99991 values spread over every power of two (one in a
 * thousand any 64-bit value, most of those beyond the top bucket): each
 * value's bucket, the bucket counts, count, min, max, the exact sum,
 * percentiles (the top of the bucket holding the nearest-rank value of
 * the sorted values, clamped to [min, max]) and the CSV and JSON, all
 * derived here from the values and the documented scheme. */
static void
test_reference_buckets(void)
{
	/* percentiles in units of 10^-4 percent: rank = ceil(pu * n / 10^6).
	 * n = 99991 is prime, so pu * n / 10^6 is never a whole number but
	 * for 100%: no rank sits on a rounding edge. */
	static const uint64_t pu[] = { 10, 5000, 10000, 100000, 250000, 333333,
		500000, 666667, 750000, 900000, 990000, 995000, 999000, 999900,
		999990, 1000000 };
	static const char *const jname[] = { "p50", "p90", "p99", "p99.9",
					     "p99.99", "p99.999" };
	static const uint64_t jpu[] = { 500000, 900000, 990000, 999000,
					999900, 999990 };
	const size_t n = 99991;
	uint64_t st = 42, cum = 0, lo = UINT64_MAX, hi = 0;
	unsigned __int128 sum = 0, got_sum;
	uint32_t nb, bad = 0;
	size_t at = 0;
	char v[64];
	const char *bk;

	for (uint32_t s = 1; s <= HGW_HIST_MAX_SUB_BITS; s++) {
		HGW_CHECK_EQ(hgw_hist_init_precision(&h, s), 0);
		nb = ref_buckets(s);
		HGW_CHECK_EQ(hgw_hist_nbuckets(&h), nb);
		for (uint32_t b = 0; b < nb; b++)
			if ((hgw_hist_bucket_low(&h, b) != ref_low[b] ||
			     hgw_hist_bucket_high(&h, b) != ref_high(nb, b) ||
			     hgw_hist_bucket(&h, ref_low[b]) != b ||
			     hgw_hist_bucket(&h, ref_high(nb, b)) != b) &&
			    bad++ < 5)
				printf("# %u bits, bucket %u: %" PRIu64 "..%"
				       PRIu64 " (values' buckets %u, %u), want %"
				       PRIu64 "..%" PRIu64 "\n", s, b,
				       hgw_hist_bucket_low(&h, b),
				       hgw_hist_bucket_high(&h, b),
				       hgw_hist_bucket(&h, ref_low[b]),
				       hgw_hist_bucket(&h, ref_high(nb, b)),
				       ref_low[b], ref_high(nb, b));
	}
	HGW_CHECK_EQ(bad, 0);

	hgw_hist_init(&h);
	nb = ref_buckets(HGW_HIST_SUB_BITS);
	HGW_CHECK_EQ(nb, 2240);
	memset(ref_count, 0, sizeof(ref_count));
	bad = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = hgw_splitmix64(&st);	/* its own stream */
		uint64_t x = i % 1000 == 7 ? r : (r >> 24) >> (r % 41);
		uint32_t b = ref_bucket(nb, x);

		vals[i] = x;
		ref_count[b]++;
		sum += x;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		if (hgw_hist_bucket(&h, x) != b && bad++ < 5)
			printf("# %" PRIu64 ": bucket %u, want %u\n", x,
			       hgw_hist_bucket(&h, x), b);
		hgw_hist_record(&h, x);
	}
	HGW_CHECK_EQ(bad, 0);
	HGW_CHECK(ref_count[nb - 1] > 50);	/* beyond the top bucket */
	bad = 0;
	for (uint32_t b = 0; b < HGW_HIST_MAX_BUCKETS; b++)
		if (h.b[b] != (b < nb ? ref_count[b] : 0) && bad++ < 5)
			printf("# bucket %u: %" PRIu64 ", want %" PRIu64 "\n",
			       b, h.b[b], b < nb ? ref_count[b] : 0);
	HGW_CHECK_EQ(bad, 0);
	HGW_CHECK_EQ(h.count, n);
	HGW_CHECK_EQ(h.min, lo);
	HGW_CHECK_EQ(h.max, hi);
	/* The sum is past 2^64 (the values beyond the top bucket): it must
	 * be the exact one, not what is left of it modulo 2^64. */
	HGW_CHECK(sum >> 64 != 0);
	got_sum = h.sum;
	if (got_sum != sum) {
		printf("# sum 2^64 * %" PRIu64 " + %" PRIu64 ", want 2^64 * %"
		       PRIu64 " + %" PRIu64 "\n", (uint64_t)(got_sum >> 64),
		       (uint64_t)got_sum, (uint64_t)(sum >> 64), (uint64_t)sum);
		HGW_CHECK(0);
	}

	qsort(vals, n, sizeof(vals[0]), cmp_u64);
	HGW_CHECK_EQ(vals[0], lo);
	for (unsigned int i = 0; i < sizeof(pu) / sizeof(pu[0]); i++) {
		uint64_t rank = (pu[i] * n + 999999) / 1000000;
		uint64_t want = ref_high(nb, ref_bucket(nb, vals[rank - 1]));
		uint64_t got = hgw_hist_percentile(&h, (double)pu[i] / 1e4);

		want = want > hi ? hi : want < lo ? lo : want;
		if (got != want) {
			printf("# p%g (rank %" PRIu64 " of %zu, value %" PRIu64
			       "): %" PRIu64 ", want %" PRIu64 "\n",
			       (double)pu[i] / 1e4, rank, n, vals[rank - 1],
			       got, want);
			HGW_CHECK(0);
		}
	}

	/* The CSV, as the header documents it: one row per non-empty bucket,
	 * its top value (max on the last row), count, cumulative count and
	 * the fraction above, (count - cumulative) / count, to 9 digits. */
	put_want(&at, "value,count,cumulative,ccdf\n");
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t top = ref_high(nb, b);

		if (ref_count[b] == 0)
			continue;
		cum += ref_count[b];
		put_want(&at, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9g\n",
			 top < hi ? top : hi, ref_count[b], cum,
			 (double)(n - cum) / (double)n);
	}
	HGW_CHECK(at < sizeof(want_text));
	write_to(text, sizeof(text), &h, 1.0, 0, NULL);
	check_text(text, want_text);

	/* The JSON: its members, the mean from the exact sum, the
	 * percentiles as above, and the buckets as the CSV rows. */
	write_to(text, sizeof(text), &h, 1.0, 1, "r");
	HGW_CHECK(has_member(text, "precision_bits", "6,"));
	HGW_CHECK(has_member(text, "relative_error", "0.015625,"));
	snprintf(v, sizeof(v), "%zu,", n);
	HGW_CHECK(has_member(text, "count", v));
	snprintf(v, sizeof(v), "%" PRIu64 ",", lo);
	HGW_CHECK(has_member(text, "min", v));
	snprintf(v, sizeof(v), "%" PRIu64 ",", hi);
	HGW_CHECK(has_member(text, "max", v));
	snprintf(v, sizeof(v), "%.15g,", (double)sum / (double)n);
	HGW_CHECK(has_member(text, "mean", v));
	for (unsigned int i = 0; i < sizeof(jpu) / sizeof(jpu[0]); i++) {
		uint64_t rank = (jpu[i] * n + 999999) / 1000000;
		uint64_t want = ref_high(nb, ref_bucket(nb, vals[rank - 1]));

		want = want > hi ? hi : want < lo ? lo : want;
		snprintf(v, sizeof(v), "%" PRIu64 "%s", want,
			 i + 1 < sizeof(jpu) / sizeof(jpu[0]) ? "," : "}");
		HGW_CHECK(has_member(text, jname[i], v));
	}
	at = 0;
	cum = 0;
	put_want(&at, "\"buckets\": [");
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t top = ref_high(nb, b);

		if (ref_count[b] == 0)
			continue;
		put_want(&at, "%s[%" PRIu64 ", %" PRIu64 "]", cum ? ", " : "",
			 top < hi ? top : hi, ref_count[b]);
		cum += ref_count[b];
	}
	put_want(&at, "]}\n");
	HGW_CHECK(at < sizeof(want_text));
	bk = strstr(text, "\"buckets\": ");
	HGW_CHECK(bk != NULL);
	if (bk != NULL)
		check_text(bk, want_text);
}

static char text2[1 << 20];

/* Everything a reader can get from a and b is the same: count, min, max,
 * sum, precision, percentiles, the buckets, CSV and JSON. */
static void
check_readers(const struct hgw_hist *a, const struct hgw_hist *b)
{
	static const double ps[] = { 0.0001, 1, 25, 50, 75, 90, 99, 99.9,
				     99.99, 99.999, 100 };

	check_same(a, b);
	HGW_CHECK_EQ(hgw_hist_nbuckets(a), hgw_hist_nbuckets(b));
	for (unsigned int i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		HGW_CHECK_EQ(hgw_hist_percentile(a, ps[i]),
			     hgw_hist_percentile(b, ps[i]));
	write_to(text, sizeof(text), a, 1.0, 0, NULL);
	write_to(text2, sizeof(text2), b, 1.0, 0, NULL);
	check_text(text, text2);
	write_to(text, sizeof(text), a, 0.4, 1, "a");
	write_to(text2, sizeof(text2), b, 0.4, 1, "a");
	check_text(text, text2);
}

/* hgw_hist_copy gives a histogram no reader can tell from its source:
 * over one of another precision holding more buckets (so the copy must
 * clear them), over a zeroed struct, from an empty one, from one with
 * values beyond the top bucket, onto itself. The whole struct compares
 * equal, the buckets beyond those in use included. */
static void
test_copy(void)
{
	static const uint32_t pairs[][2] = { { 6, 6 }, { 10, 6 }, { 6, 10 },
					     { 1, 10 }, { 10, 1 }, { 3, 8 } };

	for (unsigned int k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
		HGW_CHECK_EQ(hgw_hist_init_precision(&h, pairs[k][0]), 0);
		HGW_CHECK_EQ(hgw_hist_init_precision(&h2, pairs[k][1]), 0);
		for (int i = 0; i < 20000; i++) {
			hgw_hist_record(&h, rnd_latency());
			hgw_hist_record(&h2, rnd_log());
		}
		hgw_hist_record(&h2, UINT64_MAX / 3);	/* top bucket in use */
		hgw_hist_copy(&h2, &h);
		HGW_CHECK(memcmp(&h2, &h, sizeof(h)) == 0);
		check_readers(&h2, &h);
		/* and the copy records and merges as the source does */
		hgw_hist_record(&h, 5000);
		hgw_hist_record(&h2, 5000);
		HGW_CHECK_EQ(hgw_hist_merge(&h2, &h), 0);
		HGW_CHECK_EQ(hgw_hist_merge(&h, &h), 0);
		check_readers(&h2, &h);
	}

	/* into a zeroed struct, never initialised */
	memset(&u, 0, sizeof(u));
	hgw_hist_copy(&u, &h);
	HGW_CHECK(memcmp(&u, &h, sizeof(h)) == 0);
	check_readers(&u, &h);

	/* an empty one over a full one */
	HGW_CHECK_EQ(hgw_hist_init_precision(&m, 9), 0);
	hgw_hist_copy(&u, &m);
	HGW_CHECK(memcmp(&u, &m, sizeof(m)) == 0);
	check_readers(&u, &m);
	HGW_CHECK_EQ(hgw_hist_percentile(&u, 50), 0);
	write_to(text, sizeof(text), &u, 1.0, 0, NULL);
	check_text(text, "value,count,cumulative,ccdf\n");

	/* beyond the top bucket: every bucket in use */
	hgw_hist_init(&m);
	hgw_hist_record(&m, 3);
	hgw_hist_record(&m, UINT64_MAX);
	hgw_hist_copy(&u, &m);
	HGW_CHECK(memcmp(&u, &m, sizeof(m)) == 0);
	check_readers(&u, &m);

	/* onto itself */
	h2 = m;
	hgw_hist_copy(&m, &m);
	HGW_CHECK(memcmp(&h2, &m, sizeof(m)) == 0);
}

/* A histogram allocated at its precision (hgw_hist_size bytes, a lcore's
 * own): ends just before a PROT_NONE page (8 bytes of canary between, as
 * the struct is 16-byte aligned), so a touch past its buckets faults or
 * shows; starts on bytes of garbage. It reads, records, merges and takes
 * copies of its precision exactly as a whole struct does. */
static void
test_sized(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	HGW_CHECK_EQ(hgw_hist_size(0), 0);
	HGW_CHECK_EQ(hgw_hist_size(HGW_HIST_MAX_SUB_BITS + 1), 0);
	/* the whole struct but its tail padding */
	HGW_CHECK(hgw_hist_size(HGW_HIST_MAX_SUB_BITS) <= sizeof(struct hgw_hist) &&
		  hgw_hist_size(HGW_HIST_MAX_SUB_BITS) + 16 > sizeof(struct hgw_hist));
	HGW_CHECK_EQ(hgw_hist_size(HGW_HIST_SUB_BITS), offsetof(struct hgw_hist, b) +
		     HGW_HIST_NBUCKETS(HGW_HIST_SUB_BITS) * sizeof(uint64_t));
	for (uint32_t bits = 1; bits <= HGW_HIST_MAX_SUB_BITS; bits++) {
		size_t size = hgw_hist_size(bits);
		size_t len = (size + 16 + pg - 1) / pg * pg + pg;
		uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint8_t *end = map + len - pg;
		struct hgw_hist *sz;

		HGW_CHECK(map != MAP_FAILED);
		if (map == MAP_FAILED)
			return;
		HGW_CHECK_EQ(mprotect(end, pg, PROT_NONE), 0);
		sz = (struct hgw_hist *)(((uintptr_t)end - size) & ~(uintptr_t)15);
		memset(map, 0x5a, (size_t)(end - map));
		HGW_CHECK_EQ(hgw_hist_init_sized(sz, 0), -EINVAL);
		HGW_CHECK_EQ(hgw_hist_init_sized(sz, HGW_HIST_MAX_SUB_BITS + 1), -EINVAL);
		HGW_CHECK_EQ(hgw_hist_init_sized(sz, bits), 0);
		HGW_CHECK_EQ(hgw_hist_init_precision(&h, bits), 0);
		check_readers(sz, &h);
		for (int i = 0; i < 20000; i++) {
			uint64_t v = i % 7 ? rnd_latency() : rnd_log();

			hgw_hist_record(sz, v);
			hgw_hist_record(&h, v);
		}
		hgw_hist_record(sz, UINT64_MAX);	/* the top bucket */
		hgw_hist_record(&h, UINT64_MAX);
		check_readers(sz, &h);
		/* merged both ways */
		HGW_CHECK_EQ(hgw_hist_init_precision(&m, bits), 0);
		HGW_CHECK_EQ(hgw_hist_merge(&m, sz), 0);
		HGW_CHECK_EQ(hgw_hist_merge(sz, &h), 0);
		HGW_CHECK_EQ(hgw_hist_merge(&h, &h), 0);
		check_readers(sz, &h);
		/* a copy of a smaller one clears what it had beyond, and
		 * of a bigger one (every bucket) fills it */
		HGW_CHECK_EQ(hgw_hist_init_precision(&h2, bits), 0);
		hgw_hist_record(&h2, 3);
		hgw_hist_copy(sz, &h2);
		check_readers(sz, &h2);
		hgw_hist_copy(sz, &m);
		check_readers(sz, &m);
		/* and a copy of it is the whole struct's */
		memset(&u, 0, sizeof(u));
		hgw_hist_copy(&u, sz);
		check_readers(&u, &m);
		for (const uint8_t *c = (const uint8_t *)sz + size; c < end; c++)
			HGW_CHECK_EQ(*c, 0x5a);
		munmap(map, len);
	}
}

/* Histograms in pages of their own, so that the pages beyond the buckets
 * in use can be made unreachable. */
static size_t pagesz, maplen;

static struct hgw_hist *
map_hist(void)
{
	void *p;

	pagesz = (size_t)sysconf(_SC_PAGESIZE);
	maplen = (sizeof(struct hgw_hist) + pagesz - 1) / pagesz * pagesz;
	p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Every page of hh past bucket n - 1: PROT_NONE (with all false), or
 * back to read-write (all true). */
static void
guard(struct hgw_hist *hh, uint32_t n, bool all)
{
	size_t keep = offsetof(struct hgw_hist, b) + n * sizeof(hh->b[0]);

	keep = all ? 0 : (keep + pagesz - 1) / pagesz * pagesz;
	if (mprotect((char *)hh + keep, maplen - keep,
		     all ? PROT_READ | PROT_WRITE : PROT_NONE) != 0) {
		printf("# mprotect: %s\n", strerror(errno));
		HGW_CHECK(0);
	}
}

static uint32_t
in_use(const struct hgw_hist *hh)
{
	return hh->count ? hgw_hist_bucket(hh, hh->max) + 1 : 0;
}

/* The child of test_in_use_only, at precision bits: a big and a small
 * histogram, a copy of each in turn into dst, both merged into sum, each
 * guarded beyond its buckets in use, read back. */
static void
in_use_only(struct hgw_hist *big, struct hgw_hist *small, struct hgw_hist *dst,
	    struct hgw_hist *sum, uint32_t bits)
{
	static const double ps[] = { 1, 50, 90, 99.9, 100 };
	FILE *null;
	uint32_t n;

	guard(big, 0, true);
	guard(small, 0, true);
	guard(dst, 0, true);
	guard(sum, 0, true);
	HGW_CHECK_EQ(hgw_hist_init_precision(big, bits), 0);
	HGW_CHECK_EQ(hgw_hist_init_precision(small, bits), 0);
	HGW_CHECK_EQ(hgw_hist_init_precision(sum, bits), 0);
	memset(dst, 0, sizeof(*dst));
	for (int i = 0; i < 50000; i++) {
		hgw_hist_record(big, rnd() % 60000);
		hgw_hist_record(small, rnd() % 1000);
	}
	n = in_use(big);
	/* most of the array is out of reach: at 6 bits 6 of 248 KiB */
	HGW_CHECK(n * 4 < HGW_HIST_MAX_BUCKETS);
	guard(big, n, false);
	guard(small, in_use(small), false);
	guard(dst, n, false);
	guard(sum, n, false);

	hgw_hist_copy(dst, big);
	for (unsigned int i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		HGW_CHECK_EQ(hgw_hist_percentile(dst, ps[i]),
			     hgw_hist_percentile(big, ps[i]));
	write_to(text, sizeof(text), dst, 1.0, 0, NULL);
	write_to(text2, sizeof(text2), big, 1.0, 0, NULL);
	check_text(text, text2);
	write_to(text, sizeof(text), dst, 1.0, 1, "x");
	write_to(text2, sizeof(text2), big, 1.0, 1, "x");
	check_text(text, text2);

	hgw_hist_copy(dst, small);	/* clears what big had beyond */
	HGW_CHECK_EQ(dst->count, small->count);
	HGW_CHECK_EQ(dst->max, small->max);
	for (uint32_t i = in_use(small); i < n; i++)
		HGW_CHECK_EQ(dst->b[i], 0);
	write_to(text, sizeof(text), dst, 1.0, 0, NULL);
	write_to(text2, sizeof(text2), small, 1.0, 0, NULL);
	check_text(text, text2);

	HGW_CHECK_EQ(hgw_hist_merge(sum, small), 0);
	HGW_CHECK_EQ(hgw_hist_merge(sum, big), 0);
	HGW_CHECK_EQ(sum->count, 100000);
	HGW_CHECK_EQ(hgw_hist_percentile(sum, 100), big->max);
	null = fopen("/dev/null", "w");
	HGW_CHECK(null != NULL);
	if (null != NULL) {
		hgw_hist_print(sum, null, "sum", 1.0, "cycles");
		fclose(null);
	}
}

/* Copying, merging and reading cost the buckets in use, not the whole
 * array (the copy a worker makes for a snapshot between two bursts): in
 * a child process, at the default precision and the highest, on
 * histograms whose pages beyond their buckets in use are PROT_NONE, so
 * that touching any of those is a SIGSEGV. */
static void
test_in_use_only(void)
{
	static const uint32_t bits[] = { HGW_HIST_SUB_BITS, HGW_HIST_MAX_SUB_BITS };
	struct hgw_hist *big = map_hist(), *small = map_hist();
	struct hgw_hist *dst = map_hist(), *sum = map_hist();
	pid_t pid;
	int st;

	HGW_CHECK(big != NULL && small != NULL && dst != NULL && sum != NULL);
	if (big == NULL || small == NULL || dst == NULL || sum == NULL)
		return;
	fflush(stdout);
	pid = fork();
	HGW_CHECK(pid >= 0);
	if (pid == 0) {
		for (unsigned int k = 0; k < sizeof(bits) / sizeof(bits[0]); k++)
			in_use_only(big, small, dst, sum, bits[k]);
		fflush(stdout);
		_exit(hgw_test_failures ? 1 : 0);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid) {
		if (WIFSIGNALED(st))
			printf("# child killed by signal %d: it touched a bucket"
			       " beyond those in use\n", WTERMSIG(st));
		HGW_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	munmap(big, maplen);
	munmap(small, maplen);
	munmap(dst, maplen);
	munmap(sum, maplen);
}

/*
 * --scripts CCDF.SH: the files as other programs read them. python3 parses
 * the JSON; scripts/ccdf.sh draws two runs from CSVs into a PNG. Neither
 * tool missing is a pass: scripts/setup.sh installs python3,
 * scripts/test.sh gnuplot.
 */
static char dir[64];		/* scratch, removed when everything passed */
static const char *ccdf_sh;
static const char *const scratch[] = { "single.csv", "hedged.csv", "h.json",
	"name.txt", "check.py", "ccdf.png", "bad.csv", "points.txt", "pixels.py" };
static char out[1 << 16];

/* dir/name in buf. */
static const char *
in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

/* Runs cmd (/bin/sh, stderr into stdout), its output in out. Returns
 * its exit status, -1 if it did not exit. */
static int
run(const char *cmd)
{
	char full[4096];
	FILE *p;
	size_t n;
	int st;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	if (p == NULL)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	while (fread(text, 1, sizeof(text), p) > 0)
		;
	st = pclose(p);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
write_file(const char *name, const char *data)
{
	char path[128];
	FILE *f = fopen(in_dir(path, sizeof(path), name), "w");
	int ok = f != NULL && fputs(data, f) >= 0;

	if (f != NULL && fclose(f) != 0)
		ok = 0;
	return ok;
}

/* hh as CSV (json 0) or JSON into dir/name. */
static int
write_hist(const char *name, const struct hgw_hist *hh, int json,
	   const char *label, double scale)
{
	char path[128];
	FILE *f = fopen(in_dir(path, sizeof(path), name), "w");
	int ret;

	if (f == NULL)
		return -errno;
	ret = json ? hgw_hist_write_json(hh, f, label, scale, "ns") :
		     hgw_hist_write_csv(hh, f, scale);
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	return ret;
}

static void
test_tools_installed(void)
{
	if (run("command -v gnuplot") != 0) {
		printf("# gnuplot not found: install gnuplot-nox (scripts/test.sh does)\n");
		HGW_CHECK(0);
	}
	if (run("command -v python3") != 0) {
		printf("# python3 not found (scripts/setup.sh installs it)\n");
		HGW_CHECK(0);
	}
}

/* Strict JSON (no NaN or Infinity), and the numbers C wrote. */
static const char check_py[] =
	"import json, sys\n"
	"def bad(c):\n"
	"    raise ValueError('not JSON: ' + c)\n"
	"d = json.load(open(sys.argv[1], encoding='utf-8'), parse_constant=bad)\n"
	"name = open(sys.argv[2], encoding='utf-8').read()\n"
	"bits = int(sys.argv[3])\n"
	"want = [int(x) for x in sys.argv[4:]]\n"
	"assert d['precision_bits'] == bits, (d['precision_bits'], bits)\n"
	"assert d['relative_error'] == 2.0 ** -bits, d['relative_error']\n"
	"keys = ['count', 'min', 'max', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'p99.999']\n"
	"got = [d[k] if k in d else d['percentiles'][k] for k in keys]\n"
	"assert d['name'] == name, (d['name'], name)\n"
	"assert d['unit'] == 'ns', d['unit']\n"
	"assert got == want[:-1], (got, want)\n"
	"b = d['buckets']\n"
	"assert len(b) == want[-1], (len(b), want[-1])\n"
	"assert sum(c for v, c in b) == d['count']\n"
	"assert [v for v, c in b] == sorted(set(v for v, c in b))\n"
	"assert b[-1][0] == d['max'] and b[0][0] == d['min']\n";

/* At the default precision and the highest: python3 reads the JSON as
 * strict JSON, with the numbers C wrote. */
static void
test_json_python(void)
{
	static const double pv[] = { 50, 90, 99, 99.9, 99.99, 99.999 };
	static const uint32_t bits[] = { HGW_HIST_SUB_BITS, HGW_HIST_MAX_SUB_BITS };
	static const char name[] = "single \"hedged\" \\ \t\n\u00fc";
	char cmd[2048], a[128], b[128], c[128];

	HGW_CHECK(write_file("name.txt", name));
	HGW_CHECK(write_file("check.py", check_py));
	for (unsigned int k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
		size_t nb = 0;
		int len;

		HGW_CHECK_EQ(hgw_hist_init_precision(&h, bits[k]), 0);
		for (int i = 0; i < 50000; i++)
			hgw_hist_record(&h, rnd_latency());
		hgw_hist_record(&h, 0);
		hgw_hist_record(&h, UINT64_MAX);
		for (uint32_t i = 0; i < hgw_hist_nbuckets(&h); i++)
			nb += h.b[i] != 0;
		HGW_CHECK_EQ(write_hist("h.json", &h, 1, name, 1.0), 0);

		snprintf(cmd, sizeof(cmd), "python3 -m json.tool '%s' >/dev/null",
			 in_dir(a, sizeof(a), "h.json"));
		if (run(cmd) != 0) {
			show("python3 -m json.tool", out);
			HGW_CHECK(0);
		}
		len = snprintf(cmd, sizeof(cmd),
			       "python3 '%s' '%s' '%s' %u %" PRIu64 " %" PRIu64 " %" PRIu64,
			       in_dir(a, sizeof(a), "check.py"),
			       in_dir(b, sizeof(b), "h.json"),
			       in_dir(c, sizeof(c), "name.txt"), bits[k], h.count,
			       h.min, h.max);
		for (unsigned int i = 0; i < 6; i++)
			len += snprintf(cmd + len, sizeof(cmd) - (size_t)len,
					" %" PRIu64, hgw_hist_percentile(&h, pv[i]));
		snprintf(cmd + len, sizeof(cmd) - (size_t)len, " %zu", nb);
		if (run(cmd) != 0) {
			show(cmd, out);
			HGW_CHECK(0);
		}
	}
}

/* Counts the pixels of each colour given (RRGGBB) in a PNG (8-bit RGB,
 * RGBA or palette, as gnuplot's pngcairo and png terminals write) and
 * fails if one has fewer than the minimum: a line 2 pixels wide across
 * the chart has thousands, the key's sample of it under a hundred. */
static const char pixels_py[] =
	"import struct, sys, zlib\n"
	"d = open(sys.argv[1], 'rb').read()\n"
	"assert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n'\n"
	"pos, idat, plte = 8, b'', []\n"
	"while pos < len(d):\n"
	"    n, t = struct.unpack('>I4s', d[pos:pos + 8])\n"
	"    body = d[pos + 8:pos + 8 + n]\n"
	"    if t == b'IHDR':\n"
	"        w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', body)\n"
	"    elif t == b'PLTE':\n"
	"        plte = [body[i:i + 3] for i in range(0, n, 3)]\n"
	"    elif t == b'IDAT':\n"
	"        idat += body\n"
	"    pos += 12 + n\n"
	"assert depth == 8 and lace == 0 and ctype in (2, 3, 6), (depth, ctype, lace)\n"
	"bpp = {2: 3, 3: 1, 6: 4}[ctype]\n"
	"raw, stride, prev = zlib.decompress(idat), w * bpp, bytearray(w * bpp)\n"
	"want = {bytes.fromhex(c): 0 for c in sys.argv[3:]}\n"
	"for y in range(h):\n"
	"    f = raw[y * (stride + 1)]\n"
	"    row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])\n"
	"    for i in range(stride):\n"
	"        a = row[i - bpp] if i >= bpp else 0\n"
	"        b = prev[i]\n"
	"        c = prev[i - bpp] if i >= bpp else 0\n"
	"        if f == 1:\n"
	"            row[i] = (row[i] + a) & 255\n"
	"        elif f == 2:\n"
	"            row[i] = (row[i] + b) & 255\n"
	"        elif f == 3:\n"
	"            row[i] = (row[i] + (a + b) // 2) & 255\n"
	"        elif f == 4:\n"
	"            p = a + b - c\n"
	"            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)\n"
	"            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255\n"
	"    prev = row\n"
	"    for x in range(w):\n"
	"        px = bytes(plte[row[x]]) if ctype == 3 else bytes(row[x * bpp:x * bpp + 3])\n"
	"        if px in want:\n"
	"            want[px] += 1\n"
	"print(' '.join('#%s %d px' % (k.hex(), v) for k, v in want.items()))\n"
	"sys.exit(0 if min(want.values()) >= int(sys.argv[2]) else 1)\n";

/* The points ccdf.sh --points says it drew for label, against hh written
 * with scale: per non-empty bucket of value above 0 (a log axis has no
 * 0), (value, nines) with nines = -log10(fraction above value), the last
 * (ccdf 0, the max) capped at log10(count); before them, the first value
 * at the nines below it, where its step starts. */
static double want_x[HGW_HIST_MAX_BUCKETS + 1], want_y[HGW_HIST_MAX_BUCKETS + 1];

static void
check_points(const char *file, const char *label, const struct hgw_hist *hh,
	     double scale)
{
	char line[256], l[64];
	double x, y, below = 0, n = (double)hh->count;
	uint64_t cum = 0;
	int nwant = 0, npts = 0, bad = 0;
	FILE *f;

	for (uint32_t i = 0; i < hgw_hist_nbuckets(hh); i++) {
		if (hh->b[i] == 0)
			continue;
		uint64_t top = hgw_hist_bucket_high(hh, i);
		double v = (double)(top < hh->max ? top : hh->max) * scale;
		double nines;

		cum += hh->b[i];
		nines = cum < hh->count ? -log10((n - (double)cum) / n) : log10(n);
		if (v > 0) {
			if (nwant == 0) {
				want_x[nwant] = v;
				want_y[nwant++] = below;
			}
			want_x[nwant] = v;
			want_y[nwant++] = nines;
		}
		below = nines;
	}
	f = fopen(file, "r");
	HGW_CHECK(f != NULL);
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%63[^\t]\t%lg\t%lg", l, &x, &y) != 3) {
			printf("# bad line: %s", line);
			bad++;
		} else if (strcmp(l, label) == 0) {
			if (npts >= nwant || fabs(x - want_x[npts]) > want_x[npts] * 1e-12 ||
			    fabs(y - want_y[npts]) > 1e-7) {
				if (bad++ < 5)
					printf("# %s point %d: (%.15g, %.9g), wanted (%.15g, %.9g)\n",
					       label, npts, x, y, npts < nwant ? want_x[npts] : 0,
					       npts < nwant ? want_y[npts] : 0);
			}
			npts++;
		}
	}
	fclose(f);
	HGW_CHECK_EQ(bad, 0);
	HGW_CHECK_EQ(npts, nwant);
	HGW_CHECK(nwant > 2 && fabs(want_y[nwant - 1] - log10(n)) < 1e-12);
}

/* Two runs, single and hedged (the faster of two replicas), drawn on one
 * chart: the script prints the PNG's path, the file is a 1000x600 PNG
 * with both lines in it, and the points drawn are those of the
 * histograms (values 0 left out of the log axis, the max at the top of
 * its curve). */
static void
test_ccdf_png(void)
{
	static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
						0x1a, '\n' };
	char cmd[2048], png[128], s1[128], s2[128], pts[128];
	unsigned char head[24];
	FILE *f;
	long size = 0;

	hgw_hist_init(&h);
	hgw_hist_init(&h2);
	for (int i = 0; i < 200000; i++) {
		uint64_t x = rnd_latency(), y = rnd_latency();

		hgw_hist_record(&h, x);
		hgw_hist_record(&h2, x < y ? x : y);
	}
	hgw_hist_record(&h2, 0);
	HGW_CHECK_EQ(write_hist("single.csv", &h, 0, NULL, 0.4), 0);
	HGW_CHECK_EQ(write_hist("hedged.csv", &h2, 0, NULL, 0.4), 0);
	in_dir(png, sizeof(png), "ccdf.png");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 'single=%s' 'hedged (2 replicas)=%s'"
		 " --title 'single vs hedged' --unit ns --points '%s'", ccdf_sh, png,
		 in_dir(s1, sizeof(s1), "single.csv"),
		 in_dir(s2, sizeof(s2), "hedged.csv"),
		 in_dir(pts, sizeof(pts), "points.txt"));
	if (run(cmd) != 0) {
		show(cmd, out);
		HGW_CHECK(0);
		return;
	}
	HGW_CHECK(strncmp(out, png, strlen(png)) == 0 &&
		  strcmp(out + strlen(png), "\n") == 0);
	f = fopen(png, "rb");
	HGW_CHECK(f != NULL);
	if (f == NULL)
		return;
	HGW_CHECK(fread(head, 1, sizeof(head), f) == sizeof(head));
	HGW_CHECK(memcmp(head, magic, sizeof(magic)) == 0);
	HGW_CHECK(memcmp(head + 12, "IHDR", 4) == 0);
	HGW_CHECK_EQ((uint32_t)head[16] << 24 | (uint32_t)head[17] << 16 |
		     (uint32_t)head[18] << 8 | head[19], 1000);
	HGW_CHECK_EQ((uint32_t)head[20] << 24 | (uint32_t)head[21] << 16 |
		     (uint32_t)head[22] << 8 | head[23], 600);
	if (fseek(f, 0, SEEK_END) == 0)
		size = ftell(f);
	printf("# %s: %ld bytes\n", png, size);
	HGW_CHECK(size > 1000);
	fclose(f);
	check_points(pts, "single", &h, 0.4);
	check_points(pts, "hedged (2 replicas)", &h2, 0.4);

	/* both lines drawn: the first two colours of ccdf.sh's palette */
	HGW_CHECK(write_file("pixels.py", pixels_py));
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' 300 9400d3 009e73",
		 in_dir(s1, sizeof(s1), "pixels.py"), png);
	if (run(cmd) != 0)
		HGW_CHECK(0);
	show("line pixels", out);
}

/* Exit status and one line on stderr, naming the problem. */
static void
expect_error(const char *cmd, int status, const char *msg)
{
	int got = run(cmd);
	const char *nl = strchr(out, '\n');

	if (got != status || strstr(out, msg) == NULL || nl == NULL ||
	    nl[1] != '\0') {
		printf("# wanted status %d and one line with \"%s\"\n", status, msg);
		show(cmd, out);
		HGW_CHECK(0);
	}
}

static void
test_ccdf_errors(void)
{
	char cmd[2048], png[128], s1[128], miss[128], bad[128];

	in_dir(png, sizeof(png), "ccdf.png");
	in_dir(s1, sizeof(s1), "single.csv");
	in_dir(miss, sizeof(miss), "missing.csv");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 'a=%s' 'b=%s'", ccdf_sh, png, s1, miss);
	expect_error(cmd, 1, "ccdf.sh: no such file: ");
	snprintf(cmd, sizeof(cmd), "GNUPLOT=/nonexistent/gnuplot '%s' '%s' 'a=%s'",
		 ccdf_sh, png, s1);
	expect_error(cmd, 1, "ccdf.sh: gnuplot not found");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", ccdf_sh, png, s1);
	expect_error(cmd, 1, "is not LABEL=FILE.csv");
	HGW_CHECK(write_file("bad.csv", "latency,n\n1,2\n"));
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 'a=%s'", ccdf_sh, png,
		 in_dir(bad, sizeof(bad), "bad.csv"));
	expect_error(cmd, 1, "not a hgw_hist_write_csv file");
	snprintf(cmd, sizeof(cmd), "'%s' '%s'", ccdf_sh, png);
	expect_error(cmd, 2, "usage: ");
}

static int
scripts_main(const char *script)
{
	char path[128];

	ccdf_sh = script;
	if (strchr(script, '\'') != NULL || access(script, X_OK) != 0) {
		printf("Bail out! %s: not an executable script path\n", script);
		return 1;
	}
	snprintf(dir, sizeof(dir), "/tmp/hgw-latency.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	HGW_TEST(test_tools_installed);
	HGW_TEST(test_json_python);
	HGW_TEST(test_ccdf_png);
	HGW_TEST(test_ccdf_errors);
	if (hgw_test_failed == 0) {
		for (unsigned int i = 0; i < sizeof(scratch) / sizeof(scratch[0]); i++)
			unlink(in_dir(path, sizeof(path), scratch[i]));
		rmdir(dir);
	} else {
		printf("# files kept in %s\n", dir);
	}
	return hgw_test_done();
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--scripts") == 0)
		return scripts_main(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--scripts CCDF.SH]\n", argv[0]);
		return 2;
	}
	HGW_TEST(test_buckets);
	HGW_TEST(test_init_precision);
	HGW_TEST(test_uniform);
	HGW_TEST(test_tail_and_merge);
	HGW_TEST(test_edges);
	HGW_TEST(test_exact_uniform);
	HGW_TEST(test_exact_exponential);
	HGW_TEST(test_min_max_exact);
	HGW_TEST(test_merge_union);
	HGW_TEST(test_zero_and_top);
	HGW_TEST(test_csv);
	HGW_TEST(test_csv_digits);
	HGW_TEST(test_json);
	HGW_TEST(test_write_errors);
	HGW_TEST(test_precision_percentiles);
	HGW_TEST(test_merge_precision);
	HGW_TEST(test_reference_buckets);
	HGW_TEST(test_copy);
	HGW_TEST(test_sized);
	HGW_TEST(test_in_use_only);
	return hgw_test_done();
}
