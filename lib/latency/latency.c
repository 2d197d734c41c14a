/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: log-linear histograms.
 */
#include <math.h>
#include <string.h>

#include "hgw_latency.h"

void
hgw_hist_init(struct hgw_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t
hgw_hist_bucket_low(uint32_t bucket)
{
	if (bucket < 2 * HGW_HIST_SUB)
		return bucket;
	uint32_t shift = bucket / HGW_HIST_SUB - 1;

	return (uint64_t)(bucket % HGW_HIST_SUB + HGW_HIST_SUB) << shift;
}

uint64_t
hgw_hist_bucket_high(uint32_t bucket)
{
	if (bucket == HGW_HIST_BUCKETS - 1)
		return UINT64_MAX;	/* the top bucket takes everything above */
	if (bucket < 2 * HGW_HIST_SUB)
		return bucket;
	uint32_t shift = bucket / HGW_HIST_SUB - 1;

	return hgw_hist_bucket_low(bucket) + ((uint64_t)1 << shift) - 1;
}

uint64_t
hgw_hist_percentile(const struct hgw_hist *h, double p)
{
	if (h->count == 0)
		return 0;
	/* rank of the value asked for, 1-based */
	/* the epsilon keeps 99.9% of 1000 at rank 999, not 1000 */
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->count - 1e-9);
	uint64_t seen = 0;

	if (rank < 1)
		rank = 1;
	if (rank >= h->count)
		return h->max;
	for (uint32_t i = 0; i < HGW_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t v = hgw_hist_bucket_high(i);

			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}

void
hgw_hist_merge(struct hgw_hist *dst, const struct hgw_hist *src)
{
	for (uint32_t i = 0; i < HGW_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

void
hgw_hist_print(const struct hgw_hist *h, FILE *out, const char *name,
	       double scale, const char *unit)
{
	static const double pct[] = { 50, 90, 99, 99.9, 99.99, 99.999, 100 };
	static const char *const lbl[] = { "p50", "p90", "p99", "p99.9",
					   "p99.99", "p99.999", "max" };

	fprintf(out, "  %s: count %llu", name, (unsigned long long)h->count);
	for (unsigned int i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		fprintf(out, " %s %.0f", lbl[i],
			(double)hgw_hist_percentile(h, pct[i]) * scale);
	fprintf(out, " (%s)\n", unit);
}
