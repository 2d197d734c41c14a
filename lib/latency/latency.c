/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: log-linear histograms.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "hgw_latency.h"

int
hgw_hist_init_precision(struct hgw_hist *h, uint32_t sub_bits)
{
	if (sub_bits < 1 || sub_bits > HGW_HIST_MAX_SUB_BITS)
		return -EINVAL;
	/* the whole array, not only this precision's buckets: hgw_hist_copy
	 * relies on every bucket beyond the one holding max being 0 */
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
	h->sub_bits = sub_bits;
	return 0;
}

size_t
hgw_hist_size(uint32_t sub_bits)
{
	if (sub_bits < 1 || sub_bits > HGW_HIST_MAX_SUB_BITS)
		return 0;
	return offsetof(struct hgw_hist, b) +
	       (size_t)HGW_HIST_NBUCKETS(sub_bits) * sizeof(uint64_t);
}

int
hgw_hist_init_sized(struct hgw_hist *h, uint32_t sub_bits)
{
	size_t size = hgw_hist_size(sub_bits);

	if (size == 0)
		return -EINVAL;
	/* every bucket of its precision 0: hgw_hist_copy zeroes only
	 * those past the source's max, up to the ones it had in use */
	memset(h, 0, size);
	h->min = UINT64_MAX;
	h->sub_bits = sub_bits;
	return 0;
}

void
hgw_hist_init(struct hgw_hist *h)
{
	hgw_hist_init_precision(h, HGW_HIST_SUB_BITS);
}

int
hgw_hist_digits_to_bits(uint32_t digits)
{
	uint64_t pow10 = 1;
	int bits = 0;

	if (digits < 1 || digits > 3)
		return -EINVAL;
	while (digits-- > 0)
		pow10 *= 10;
	while ((1ull << bits) < pow10)
		bits++;
	return bits;
}

uint64_t
hgw_hist_bucket_low(const struct hgw_hist *h, uint32_t bucket)
{
	uint32_t s = h->sub_bits;

	if (bucket < (2u << s))
		return bucket;
	uint32_t shift = (bucket >> s) - 1;

	return (uint64_t)((bucket & ((1u << s) - 1)) + (1u << s)) << shift;
}

uint64_t
hgw_hist_bucket_high(const struct hgw_hist *h, uint32_t bucket)
{
	if (bucket >= hgw_hist_nbuckets(h) - 1)
		return UINT64_MAX;	/* the top bucket takes everything above */
	if (bucket < (2u << h->sub_bits))
		return bucket;
	uint32_t shift = (bucket >> h->sub_bits) - 1;

	return hgw_hist_bucket_low(h, bucket) + ((uint64_t)1 << shift) - 1;
}

/* Buckets 0..used - 1 can be non-zero, the others are 0: max is the
 * largest value recorded. */
static uint32_t
used_buckets(const struct hgw_hist *h)
{
	return h->count ? hgw_hist_bucket(h, h->max) + 1 : 0;
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
	uint32_t n = used_buckets(h);

	if (rank < 1)
		rank = 1;
	if (rank >= h->count)
		return h->max;
	for (uint32_t i = 0; i < n; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t v = hgw_hist_bucket_high(h, i);

			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}

int
hgw_hist_merge(struct hgw_hist *dst, const struct hgw_hist *src)
{
	uint32_t n = used_buckets(src);

	if (dst->sub_bits != src->sub_bits)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

void
hgw_hist_copy(struct hgw_hist *dst, const struct hgw_hist *src)
{
	if (dst == src)
		return;
	/* dst's own, at dst's precision; 0 for a zeroed struct */
	uint32_t had = used_buckets(dst);
	uint32_t n = used_buckets(src);

	memcpy(dst, src, offsetof(struct hgw_hist, b) + n * sizeof(src->b[0]));
	if (had > n)
		memset(&dst->b[n], 0, (had - n) * sizeof(dst->b[0]));
}

/* The percentiles reported by hgw_hist_print (all) and
 * hgw_hist_write_json (all but the last, max). */
static const double hist_pct[] = { 50, 90, 99, 99.9, 99.99, 99.999, 100 };
static const char *const hist_pct_name[] = { "p50", "p90", "p99", "p99.9",
					     "p99.99", "p99.999", "max" };
#define HIST_NPCT (sizeof(hist_pct) / sizeof(hist_pct[0]))

void
hgw_hist_print(const struct hgw_hist *h, FILE *out, const char *name,
	       double scale, const char *unit)
{
	fprintf(out, "  %s: count %llu", name, (unsigned long long)h->count);
	for (unsigned int i = 0; i < HIST_NPCT; i++)
		fprintf(out, " %s %.0f", hist_pct_name[i],
			(double)hgw_hist_percentile(h, hist_pct[i]) * scale);
	fprintf(out, " (%s)\n", unit);
}

/* A real number with 15 significant digits: enough for any count of
 * nanoseconds below 10^15, few enough that a scaled integer prints
 * without binary noise (3 * 0.1 as 0.3). JSON has no inf or nan: they
 * are written as null there. */
static void
put_real(FILE *out, double d, bool json)
{
	if (json && !isfinite(d))
		fputs("null", out);
	else
		fprintf(out, "%.15g", d);
}

/* v * scale; exact when scale is 1 (a double would round values above
 * 2^53, and max must come out as recorded). */
static void
put_value(FILE *out, uint64_t v, double scale, bool json)
{
	if (scale == 1.0)
		fprintf(out, "%" PRIu64, v);
	else
		put_real(out, (double)v * scale, json);
}

/* The value a row stands for: the bucket's highest value, except that
 * nothing above max was recorded. */
static uint64_t
row_value(const struct hgw_hist *h, uint32_t bucket)
{
	uint64_t v = hgw_hist_bucket_high(h, bucket);

	return v > h->max ? h->max : v;
}

/* Flushes out; 0 or the negative errno of the first failed write. errno
 * is cleared by the callers before writing, so a failure that left none
 * is reported as -EIO. */
static int
finish(FILE *out)
{
	if (fflush(out) == 0 && !ferror(out))
		return 0;
	return errno ? -errno : -EIO;
}

int
hgw_hist_write_csv(const struct hgw_hist *h, FILE *out, double scale)
{
	uint64_t cum = 0;

	errno = 0;
	fputs("value,count,cumulative,ccdf\n", out);
	for (uint32_t i = 0; i < hgw_hist_nbuckets(h) && cum < h->count; i++) {
		if (h->b[i] == 0)
			continue;
		cum += h->b[i];
		put_value(out, row_value(h, i), scale, false);
		/* count - cum, not 1 - cum/count: no cancellation in the tail */
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.9g\n", h->b[i], cum,
			(double)(h->count - cum) / (double)h->count);
	}
	return finish(out);
}

/* s as a JSON string: quote, backslash and control characters escaped,
 * other bytes (UTF-8) as they are. */
static void
put_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s != NULL && *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

int
hgw_hist_write_json(const struct hgw_hist *h, FILE *out, const char *name,
		    double scale, const char *unit)
{
	uint64_t cum = 0;
	bool first = true;

	errno = 0;
	fputs("{\"name\": ", out);
	put_json_string(out, name);
	fputs(", \"unit\": ", out);
	put_json_string(out, unit);
	fprintf(out, ", \"precision_bits\": %" PRIu32 ", \"relative_error\": ",
		h->sub_bits);
	put_real(out, ldexp(1.0, -(int)h->sub_bits), true);
	fprintf(out, ", \"count\": %" PRIu64 ",\n \"min\": ", h->count);
	put_value(out, h->count ? h->min : 0, scale, true);
	fputs(", \"max\": ", out);
	put_value(out, h->max, scale, true);
	fputs(", \"mean\": ", out);
	put_real(out, h->count ? (double)h->sum / (double)h->count * scale : 0,
		 true);
	fputs(",\n \"percentiles\": {", out);
	for (unsigned int i = 0; i + 1 < HIST_NPCT; i++) {
		fprintf(out, "%s\"%s\": ", i ? ", " : "", hist_pct_name[i]);
		put_value(out, hgw_hist_percentile(h, hist_pct[i]), scale, true);
	}
	fputs("},\n \"buckets\": [", out);
	for (uint32_t i = 0; i < hgw_hist_nbuckets(h) && cum < h->count; i++) {
		if (h->b[i] == 0)
			continue;
		cum += h->b[i];
		fputs(first ? "[" : ", [", out);
		put_value(out, row_value(h, i), scale, true);
		fprintf(out, ", %" PRIu64 "]", h->b[i]);
		first = false;
	}
	fputs("]}\n", out);
	return finish(out);
}
