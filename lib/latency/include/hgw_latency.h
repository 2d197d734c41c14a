/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: log-linear (HDR-style) latency histograms.
 *
 * Values (TSC cycles or nanoseconds: the histogram does not care) are
 * counted in buckets that are exact below 2^sub_bits and, above, split
 * every power of two into 2^sub_bits equal parts: a value is reported
 * with a relative error below 2^-sub_bits. sub_bits, the precision, is
 * chosen per histogram when it is initialised, from 1 (50%) to
 * HGW_HIST_MAX_SUB_BITS (10: 0.098%, three significant digits); the
 * default is HGW_HIST_SUB_BITS (6: 1.6%). Nothing is dropped: values
 * beyond the top bucket are counted in it and max stays exact. Recording
 * is a few instructions, no atomics: one histogram per lcore, merged by
 * the control plane after the fact (histograms of one precision only).
 *
 * The bucket array is preallocated in the struct for the highest
 * precision (HGW_HIST_MAX_BUCKETS, 248 KiB), or a histogram is allocated
 * at its precision (hgw_hist_size, hgw_hist_init_sized); it uses the
 * first hgw_hist_nbuckets() of them and, of those, only the buckets up to
 * the one holding max can be non-zero. Recording touches one bucket; to
 * copy a histogram use hgw_hist_copy, which copies the buckets in use
 * only, rather than a struct assignment, which copies all of them.
 */
#ifndef HGW_LATENCY_H
#define HGW_LATENCY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default precision: the one hgw_hist_init gives. */
#define HGW_HIST_SUB_BITS     6
/* Highest precision: the bucket array is sized for it. */
#define HGW_HIST_MAX_SUB_BITS 10
/* Top exact power: values up to 2^HGW_HIST_MAX_BITS - 1 get their own
 * bucket (2^40 cycles is over 7 minutes at 2.5 GHz). */
#define HGW_HIST_MAX_BITS     40
/* Buckets at precision s (1..HGW_HIST_MAX_SUB_BITS): 2^s exact ones,
 * then 2^s for each power of two 2^s .. 2^(HGW_HIST_MAX_BITS - 1), the
 * last of them also taking every value above. */
#define HGW_HIST_NBUCKETS(s)  ((HGW_HIST_MAX_BITS - (s) + 1) << (s))
#define HGW_HIST_MAX_BUCKETS  HGW_HIST_NBUCKETS(HGW_HIST_MAX_SUB_BITS)

/* Layout public because every lcore embeds its histograms by value and
 * hgw_hist_record() runs inline on the per-message path. */
struct hgw_hist {
	uint64_t count;
	uint64_t min;          /* UINT64_MAX while empty */
	uint64_t max;
	/* Of every value recorded, exact: count's 2^64 - 1 values of up to
	 * 2^64 - 1 each sum below 2^128, so it cannot wrap (64 bits could,
	 * after two values beyond the top bucket). */
	unsigned __int128 sum;
	uint32_t sub_bits;     /* precision: relative error < 2^-sub_bits */
	uint64_t b[HGW_HIST_MAX_BUCKETS];	/* hgw_hist_nbuckets(h) used */
};

/* An empty histogram of the default precision, HGW_HIST_SUB_BITS. */
void hgw_hist_init(struct hgw_hist *h);

/* An empty histogram of precision sub_bits: relative error below
 * 2^-sub_bits, hgw_hist_nbuckets(h) == HGW_HIST_NBUCKETS(sub_bits).
 * Clears the whole struct (start-up, control plane). Returns 0, or
 * -EINVAL (h untouched) unless 1 <= sub_bits <= HGW_HIST_MAX_SUB_BITS. */
int hgw_hist_init_precision(struct hgw_hist *h, uint32_t sub_bits);

/* Bytes a histogram of precision sub_bits needs: its header and its
 * HGW_HIST_NBUCKETS(sub_bits) buckets (0 unless 1 <= sub_bits <=
 * HGW_HIST_MAX_SUB_BITS). At the default precision that is 17.6 KiB of
 * the struct's 248. */
size_t hgw_hist_size(uint32_t sub_bits);

/* An empty histogram of precision sub_bits in hgw_hist_size(sub_bits)
 * bytes at h (an allocation of that size: a lcore's histograms, kept
 * apart from its hot state): clears those bytes only. Such a histogram
 * keeps its precision: copy into it (hgw_hist_copy) only from one of the
 * same precision; recording, merging into it and reading it are as for
 * any other. Returns 0, or -EINVAL (h untouched) for a precision out of
 * range. */
int hgw_hist_init_sized(struct hgw_hist *h, uint32_t sub_bits);

/* The precision that keeps digits significant decimal digits, as
 * HdrHistogram counts them: the smallest sub_bits with 2^-sub_bits <=
 * 10^-digits. 1 -> 4 (6.25%), 2 -> 7 (0.78%), 3 -> 10 (0.098%). Returns
 * sub_bits, or -EINVAL for digits 0 or above 3 (beyond
 * HGW_HIST_MAX_SUB_BITS). */
int hgw_hist_digits_to_bits(uint32_t digits);

/* Buckets at h's precision: bucket indices are 0..nbuckets - 1. */
static inline uint32_t
hgw_hist_nbuckets(const struct hgw_hist *h)
{
	return HGW_HIST_NBUCKETS(h->sub_bits);
}

/* Bucket of a value, at h's precision. */
static inline uint32_t
hgw_hist_bucket(const struct hgw_hist *h, uint64_t v)
{
	uint32_t s = h->sub_bits;

	if (v < (1ull << s))
		return (uint32_t)v;
	uint32_t msb = 63u - (uint32_t)__builtin_clzll(v);

	if (msb >= HGW_HIST_MAX_BITS)
		return hgw_hist_nbuckets(h) - 1;
	uint32_t shift = msb - s;

	return ((shift + 1) << s) + (uint32_t)(v >> shift) - (1u << s);
}

static inline void
hgw_hist_record(struct hgw_hist *h, uint64_t v)
{
	h->b[hgw_hist_bucket(h, v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Smallest and largest value bucket (0..hgw_hist_nbuckets(h) - 1) holds
 * at h's precision; the top bucket's largest is UINT64_MAX. */
uint64_t hgw_hist_bucket_low(const struct hgw_hist *h, uint32_t bucket);
uint64_t hgw_hist_bucket_high(const struct hgw_hist *h, uint32_t bucket);

/* The value at percentile p (0..100]: the highest value of the bucket
 * holding the ceil(p/100 * count)-th smallest value, clamped to [min,
 * max] (so p = 100 is max, exactly). 0 when empty. */
uint64_t hgw_hist_percentile(const struct hgw_hist *h, double p);

/* dst += src: afterwards dst is the histogram of the values recorded in
 * either. Returns 0, or -EINVAL (dst untouched) if their precisions
 * differ. */
int hgw_hist_merge(struct hgw_hist *dst, const struct hgw_hist *src);

/* dst = src, precision included, for snapshots: copies count, min, max,
 * sum, sub_bits and the buckets up to the one holding max, and zeroes
 * those dst had in use beyond them, so the cost follows the buckets in
 * use, not the array's size. dst must have been initialised, or zeroed,
 * or copied into before; dst == src is allowed. Afterwards every reader
 * (percentiles, CSV, JSON, the buckets themselves) sees dst as src. */
void hgw_hist_copy(struct hgw_hist *dst, const struct hgw_hist *src);

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
 *   {"name": .., "unit": .., "precision_bits": .., "relative_error": ..,
 *    "count": .., "min": .., "max": .., "mean": ..,
 *    "percentiles": {"p50": .., "p90": .., "p99": .., "p99.9": ..,
 *                    "p99.99": .., "p99.999": ..},
 *    "buckets": [[value, count], ...]}
 * Values are multiplied by scale and formatted as in hgw_hist_write_csv;
 * percentiles are hgw_hist_percentile's; buckets are the non-empty ones,
 * as the CSV rows. precision_bits is sub_bits and relative_error its
 * bound, 2^-sub_bits (not scaled). name and unit (UTF-8; NULL is "") are
 * escaped. An empty histogram has min, max, mean and percentiles 0 and no
 * buckets. out is flushed. Returns 0, or a negative errno as
 * hgw_hist_write_csv.
 */
int hgw_hist_write_json(const struct hgw_hist *h, FILE *out, const char *name,
			double scale, const char *unit);

#ifdef __cplusplus
}
#endif

#endif /* HGW_LATENCY_H */
