/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: log-linear (HDR-style) latency histograms.
 *
 * Values (TSC cycles or nanoseconds: the histogram does not care) are
 * counted in buckets that are exact below 2^HGW_HIST_SUB_BITS and, above,
 * split every power of two into 2^HGW_HIST_SUB_BITS equal parts: a value
 * is reported with a relative error below 2^-HGW_HIST_SUB_BITS (1.6%).
 * Nothing is dropped: values beyond the top bucket are counted in it and
 * max stays exact. Recording is a few instructions, no atomics: one
 * histogram per lcore, merged by the control plane after the fact.
 */
#ifndef HGW_LATENCY_H
#define HGW_LATENCY_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HGW_HIST_SUB_BITS 6
#define HGW_HIST_SUB      (1u << HGW_HIST_SUB_BITS)
/* Top exact power: values up to 2^HGW_HIST_MAX_BITS - 1 get their own
 * bucket (2^40 cycles is over 7 minutes at 2.5 GHz). */
#define HGW_HIST_MAX_BITS 40
#define HGW_HIST_BUCKETS  ((HGW_HIST_MAX_BITS - HGW_HIST_SUB_BITS + 1) * HGW_HIST_SUB)

struct hgw_hist {
	uint64_t count;
	uint64_t min;          /* UINT64_MAX while empty */
	uint64_t max;
	uint64_t sum;
	uint64_t b[HGW_HIST_BUCKETS];
};

void hgw_hist_init(struct hgw_hist *h);

/* Bucket of a value. */
static inline uint32_t
hgw_hist_bucket(uint64_t v)
{
	if (v < HGW_HIST_SUB)
		return (uint32_t)v;
	uint32_t msb = 63u - (uint32_t)__builtin_clzll(v);

	if (msb >= HGW_HIST_MAX_BITS)
		return HGW_HIST_BUCKETS - 1;
	uint32_t shift = msb - HGW_HIST_SUB_BITS;

	return (shift + 1) * HGW_HIST_SUB + (uint32_t)(v >> shift) - HGW_HIST_SUB;
}

static inline void
hgw_hist_record(struct hgw_hist *h, uint64_t v)
{
	h->b[hgw_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Smallest and largest value a bucket holds. */
uint64_t hgw_hist_bucket_low(uint32_t bucket);
uint64_t hgw_hist_bucket_high(uint32_t bucket);

/* The value at percentile p (0..100]: the highest value of the bucket
 * holding the ceil(p/100 * count)-th smallest value, clamped to [min,
 * max] (so p = 100 is max, exactly). 0 when empty. */
uint64_t hgw_hist_percentile(const struct hgw_hist *h, double p);

/* dst += src. */
void hgw_hist_merge(struct hgw_hist *dst, const struct hgw_hist *src);

/* One line: count, p50, p90, p99, p99.9, p99.99, p99.999, max, each
 * value multiplied by scale (e.g. ns per cycle) and printed in unit. */
void hgw_hist_print(const struct hgw_hist *h, FILE *out, const char *name,
		    double scale, const char *unit);

/* The histogram as CSV, for plotting (scripts/ccdf.sh) and for tools:
 * the header "value,count,cumulative,ccdf", then one row per non-empty
 * bucket in increasing order. value is the bucket's highest value (the
 * last row: max, exactly) multiplied by scale; cumulative counts the
 * samples at or below value; ccdf is the fraction above it, 1 -
 * cumulative/count, with 9 significant digits so 1e-7 tails survive, and
 * is 0 on the last row. Values are written as exact integers when scale
 * is 1, else with 15 significant digits. An empty histogram writes the
 * header only. out is flushed. Returns 0, or a negative errno (-EIO if
 * none was reported) when a write failed.
 */
int hgw_hist_write_csv(const struct hgw_hist *h, FILE *out, double scale);

/* The histogram as one JSON object, followed by a newline:
 *   {"name": .., "unit": .., "count": .., "min": .., "max": .., "mean": ..,
 *    "percentiles": {"p50": .., "p90": .., "p99": .., "p99.9": ..,
 *                    "p99.99": .., "p99.999": ..},
 *    "buckets": [[value, count], ...]}
 * Values are multiplied by scale and formatted as in hgw_hist_write_csv;
 * percentiles are hgw_hist_percentile's; buckets are the non-empty ones,
 * as the CSV rows. name and unit (UTF-8; NULL is "") are escaped. An
 * empty histogram has min, max, mean and percentiles 0 and no buckets.
 * out is flushed. Returns 0, or a negative errno as hgw_hist_write_csv.
 */
int hgw_hist_write_json(const struct hgw_hist *h, FILE *out, const char *name,
			double scale, const char *unit);

#ifdef __cplusplus
}
#endif

#endif /* HGW_LATENCY_H */
