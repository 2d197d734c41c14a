/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-chanprobe: find which physical address bit flips move a cache line to
 * another DRAM channel, by timing alone (no performance counters).
 *
 * Method (channel discovery by statistics, as in the published Tailslayer
 * work):
 * for each address bit b, take a line A and its partner B whose physical
 * address differs only in bit b. For many iterations: clflush both, mfence,
 * then time a load of each (rdtsc fenced with lfence so each load is timed
 * alone), alternating which goes first. A read is "slow" when its time is
 * above  T = median + max(8 * 1.4826 * MAD, 0.5 * median)  (per line; the
 * median of a flushed read is ~100 ns, a read caught by a refresh stall or
 * a hypervisor exit takes several times that).
 *
 * Per iteration we get (slowA, slowB): a 2x2 table n11 n10 n01 n00. If A and
 * B share a rank (same channel), refresh of that rank governs both: their
 * slow events are dependent. Two things can happen: the stall covers both
 * reads (they coincide, odds ratio >> 1), or the first read absorbs the
 * stall and the second, issued after it, is fast (they exclude, odds ratio
 * << 1; with serialised loads and all-bank refresh this is the expected
 * case). If A and B are on different channels, their refresh schedules are
 * independent: odds ratio ~ 1.
 *
 * Slow events from other causes (hypervisor exits, interrupts) cluster in
 * time and make any two lines look dependent. The control is the same
 * table built from A of iteration i and B of iteration i + L (L = 101, 257,
 * 1009, 4099, pooled): same time-clustering, no shared refresh window.
 * Per replicate: d = ln OR(lag 0) - ln OR(lagged), with +0.5 (Haldane).
 * Samples are not independent (bursts of noise), so Woolf standard errors
 * understate the spread (seen here: |z| > 10 with opposite signs between
 * runs). Instead each bit is measured in REPS replicates with fresh random
 * line pairs, and the spread of d between replicates is the error:
 * t = mean(d) / (sd(d) / sqrt(REPS)).
 * Verdict:
 *   cannot tell  a replicate has fewer than 30 slow reads on a side or
 *                fewer than 5 expected coincidences, or no rule applies;
 *   same         |t| >= t(0.995, REPS-1) and every replicate's d has the
 *                same sign (dependence beyond the time clustering);
 *   different    the 95% t interval of mean d lies inside +-ln 2 (any
 *                shared-rank effect would move the odds ratio > 2x).
 * Everything is done twice: two passes over all bits, each with REPS fresh
 * replicates; a verdict counts only if both passes give it (on this VM
 * single-pass "different" verdicts did not reproduce across seeds).
 *
 * A map file (-o) gets one mask made of all bits judged "different"
 * (each such flip moves the line to another channel, so each belongs to
 * some mask of the true XOR function; pairs of bits are not tested, so no
 * more than one channel bit is claimed). With no such bit it gets the
 * offset-only fallback and a comment saying nothing could be established.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "hgw_cli.h"
#include "hgw_prng.h"
#include "hgw_chanmap.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#endif

#define MAX_CHUNKS 4096
#define REPS 5          /* replicates per bit (2..10) */

/* The probe region: chunks that are physically contiguous and aligned to
 * their size (huge pages), with their physical address when known. */
struct region {
	uint8_t *va;
	size_t len;
	unsigned chunk_bits;      /* log2 of chunk size */
	unsigned nchunks;
	uint64_t pa[MAX_CHUNKS];  /* chunk PA or HGW_CHANMAP_PA_UNKNOWN */
	int pa_known;
	const char *kind;
};

static int quiet;

static uint64_t rng_state;
static uint64_t
rng(void)
{
	return hgw_xorshift64s(&rng_state);
}

/* PA of a mapped, touched virtual address via /proc/self/pagemap (needs
 * CAP_SYS_ADMIN for the PFN; else the PFN reads as 0 -> unknown). */
static uint64_t
pagemap_pa(int fd, const void *va)
{
	uint64_t ent;
	long psz = sysconf(_SC_PAGESIZE);
	off_t off = (off_t)((uintptr_t)va / (uintptr_t)psz * 8);

	if (fd < 0 || pread(fd, &ent, 8, off) != 8)
		return HGW_CHANMAP_PA_UNKNOWN;
	if (!(ent & (1ull << 63)) || (ent & ((1ull << 55) - 1)) == 0)
		return HGW_CHANMAP_PA_UNKNOWN;
	return (ent & ((1ull << 55) - 1)) * (uint64_t)psz +
	       (uintptr_t)va % (uintptr_t)psz;
}

static int
region_map(struct region *r, unsigned n2m)
{
	int fd;

	memset(r, 0, sizeof(*r));
	/* 1 GiB page: bits 6..29 inside one physically contiguous page. */
	r->len = 1ull << 30;
	r->va = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB |
		     MAP_POPULATE, -1, 0);
	if (r->va != MAP_FAILED) {
		r->chunk_bits = 30;
		r->kind = "one 1 GiB hugetlb page";
	} else {
		/* 2 MiB pages: bits 6..20 inside a page; above, pairs of
		 * pages whose PAs differ in exactly that bit (root only). */
		r->len = (size_t)n2m << 21;
		r->va = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			     MAP_HUGE_2MB | MAP_POPULATE, -1, 0);
		if (r->va != MAP_FAILED) {
			r->chunk_bits = 21;
			r->kind = "2 MiB hugetlb pages";
		} else {
			/* No hugetlb: 4 KiB pages (THP may or may not merge
			 * them; without PAs only bits 6..11 are certain). */
			r->len = (size_t)n2m << 21;
			r->va = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				     -1, 0);
			if (r->va == MAP_FAILED) {
				fprintf(stderr, "hgw-chanprobe: cannot map "
					"%zu bytes: %s\n", r->len,
					strerror(errno));
				return -1;
			}
			madvise(r->va, r->len, MADV_HUGEPAGE);
			r->chunk_bits = 12;
			r->kind = "4 KiB pages (no hugetlb pages available)";
		}
	}
	memset(r->va, 0x5a, r->len);
	r->nchunks = (unsigned)(r->len >> r->chunk_bits);
	if (r->nchunks > MAX_CHUNKS)
		r->nchunks = MAX_CHUNKS;
	fd = open("/proc/self/pagemap", O_RDONLY);
	r->pa_known = 1;
	for (unsigned i = 0; i < r->nchunks; i++) {
		r->pa[i] = pagemap_pa(fd, r->va + ((size_t)i << r->chunk_bits));
		if (r->pa[i] == HGW_CHANMAP_PA_UNKNOWN)
			r->pa_known = 0;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

#if defined(__x86_64__)
static inline uint64_t
tsc_fenced(void)
{
	uint64_t t;

	_mm_lfence();       /* earlier loads done before reading the TSC */
	t = __rdtsc();
	_mm_lfence();       /* the TSC read completes before later loads */
	return t;
}

/* One sample: flush both lines, then time each load alone. */
static void
sample(volatile const uint8_t *a, volatile const uint8_t *b, int a_first,
       uint32_t *ta, uint32_t *tb)
{
	volatile const uint8_t *x = a_first ? a : b;
	volatile const uint8_t *y = a_first ? b : a;
	uint64_t t0, t1, t2;

	_mm_clflush((const void *)(uintptr_t)a);
	_mm_clflush((const void *)(uintptr_t)b);
	_mm_mfence();       /* flushes complete before the timed loads */
	t0 = tsc_fenced();
	(void)*x;
	t1 = tsc_fenced();
	(void)*y;
	t2 = tsc_fenced();
	*(a_first ? ta : tb) = (uint32_t)(t1 - t0);
	*(a_first ? tb : ta) = (uint32_t)(t2 - t1);
}
#define PROBE_SUPPORTED 1
#else
#define PROBE_SUPPORTED 0
#endif

static int
cmp_u32(const void *p, const void *q)
{
	uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;

	return a < b ? -1 : a > b;
}

/* Threshold T = median + max(8 * 1.4826 * MAD, median / 2). */
static uint32_t
slow_threshold(const uint32_t *t, size_t n, uint32_t *scratch,
	       uint32_t *median_out)
{
	uint32_t med, mad;

	memcpy(scratch, t, n * sizeof(*t));
	qsort(scratch, n, sizeof(*t), cmp_u32);
	med = scratch[n / 2];
	for (size_t i = 0; i < n; i++)
		scratch[i] = t[i] > med ? t[i] - med : med - t[i];
	qsort(scratch, n, sizeof(*t), cmp_u32);
	mad = scratch[n / 2];
	*median_out = med;
	{
		double k = 8 * 1.4826 * mad, h = med / 2.0;

		return med + (uint32_t)(k > h ? k : h);
	}
}

struct table2 { double n11, n10, n01, n00; };

static void
lnor(const struct table2 *t, double *lor, double *se)
{
	double a = t->n11 + 0.5, b = t->n10 + 0.5, c = t->n01 + 0.5,
	       d = t->n00 + 0.5;

	*lor = log(a * d / (b * c));
	*se = sqrt(1 / a + 1 / b + 1 / c + 1 / d);
}

enum verdict { V_SAME, V_DIFFERENT, V_CANNOT, V_NOPAIR };
static const char *const vname[] = {
	"same", "different", "cannot tell", "untested",
};

struct bitres {
	unsigned bit;
	enum verdict v;
	char why[96];
	uint64_t pa_a, pa_b;
	uint32_t med_a, med_b, thr_a, thr_b;
	struct table2 t0;       /* pooled over replicates */
	unsigned nrep;
	double d[10];           /* per replicate */
	double lift, dmean, dsd, t;
};

/* Find lines A and B = A with physical bit b flipped. Returns 0 or -1. */
static int
pick_pair(const struct region *r, unsigned b, uint8_t **a, uint8_t **bb,
	  uint64_t *pa_a, uint64_t *pa_b)
{
	uint64_t chunk = 1ull << r->chunk_bits;

	if (b < r->chunk_bits) {
		unsigned c = (unsigned)(rng() % r->nchunks);
		uint64_t off = (rng() % chunk) & ~63ull & ~(1ull << b);

		*a = r->va + ((size_t)c << r->chunk_bits) + off;
		*bb = *a + (1ull << b);
		*pa_a = r->pa[c] == HGW_CHANMAP_PA_UNKNOWN ?
			HGW_CHANMAP_PA_UNKNOWN : r->pa[c] + off;
		*pa_b = *pa_a == HGW_CHANMAP_PA_UNKNOWN ?
			HGW_CHANMAP_PA_UNKNOWN : *pa_a ^ (1ull << b);
		return 0;
	}
	if (!r->pa_known)
		return -1;
	/* Across chunks: two chunks whose PAs differ in bit b only. */
	for (unsigned i = 0; i < r->nchunks; i++)
		for (unsigned j = 0; j < r->nchunks; j++)
			if ((r->pa[i] ^ r->pa[j]) == (1ull << b)) {
				uint64_t off = (rng() % chunk) & ~63ull;

				*a = r->va + ((size_t)i << r->chunk_bits) + off;
				*bb = r->va + ((size_t)j << r->chunk_bits) +
				      off;
				*pa_a = r->pa[i] + off;
				*pa_b = r->pa[j] + off;
				return 0;
			}
	return -1;
}

#if PROBE_SUPPORTED
/* One replicate: a fresh line pair, n samples, its 2x2 table and d. */
static int
replicate(const struct region *r, unsigned b, size_t n, uint32_t *ta,
	  uint32_t *tb, uint32_t *scratch, struct bitres *res, double *d,
	  double *sa_out, double *sb_out)
{
	static const size_t lags[] = { 101, 257, 1009, 4099 };
	uint8_t *a, *bb;
	struct table2 t0 = {0, 0, 0, 0}, tl = {0, 0, 0, 0};
	uint32_t thr_a, thr_b;
	double sa = 0, sb = 0, l0, s0, ll, sl;

	if (pick_pair(r, b, &a, &bb, &res->pa_a, &res->pa_b) != 0)
		return -1;
	/* warm the TLB and page walk caches */
	for (int w = 0; w < 1000; w++)
		sample(a, bb, w & 1, &ta[0], &tb[0]);
	for (size_t i = 0; i < n; i++)
		sample(a, bb, (int)(i & 1), &ta[i], &tb[i]);
	thr_a = slow_threshold(ta, n, scratch, &res->med_a);
	thr_b = slow_threshold(tb, n, scratch, &res->med_b);
	res->thr_a = thr_a;
	res->thr_b = thr_b;
	for (size_t i = 0; i < n; i++) {
		int x = ta[i] > thr_a, y = tb[i] > thr_b;

		sa += x;
		sb += y;
		if (x && y)
			t0.n11++;
		else if (x)
			t0.n10++;
		else if (y)
			t0.n01++;
		else
			t0.n00++;
		for (size_t l = 0; l < sizeof(lags) / sizeof(lags[0]); l++) {
			int yl = tb[(i + lags[l]) % n] > thr_b;

			if (x && yl)
				tl.n11++;
			else if (x)
				tl.n10++;
			else if (yl)
				tl.n01++;
			else
				tl.n00++;
		}
	}
	lnor(&t0, &l0, &s0);
	lnor(&tl, &ll, &sl);
	*d = l0 - ll;
	*sa_out = sa;
	*sb_out = sb;
	res->t0.n11 += t0.n11;
	res->t0.n10 += t0.n10;
	res->t0.n01 += t0.n01;
	res->t0.n00 += t0.n00;
	return 0;
}

/* Student t quantiles, two-sided, for df = R - 1 = 1..9. */
static const double t99[] = { 63.66, 9.925, 5.841, 4.604, 4.032, 3.707,
			      3.499, 3.355, 3.250 };
static const double t95[] = { 12.71, 4.303, 3.182, 2.776, 2.571, 2.447,
			      2.365, 2.306, 2.262 };

static void
probe_bit(const struct region *r, unsigned b, size_t iters, unsigned reps,
	  uint32_t *ta, uint32_t *tb, uint32_t *scratch, struct bitres *res)
{
	size_t n = iters / reps;
	double sum = 0, sum2 = 0, mean, sd, se, minslow = 1e300,
	       minexp = 1e300;
	int pos = 0, neg = 0;

	memset(res, 0, sizeof(*res));
	res->bit = b;
	res->nrep = reps;
	for (unsigned k = 0; k < reps; k++) {
		double d, sa, sb;

		if (replicate(r, b, n, ta, tb, scratch, res, &d, &sa,
			      &sb) != 0) {
			res->v = V_NOPAIR;
			snprintf(res->why, sizeof(res->why), b < r->chunk_bits ?
				 "no pair" : r->pa_known ? "no two pages 2^b "
				 "apart physically" : "above page size and PAs "
				 "unknown");
			return;
		}
		res->d[k] = d;
		sum += d;
		sum2 += d * d;
		pos += d > 0;
		neg += d < 0;
		if (sa < minslow)
			minslow = sa;
		if (sb < minslow)
			minslow = sb;
		if (sa * sb / (double)n < minexp)
			minexp = sa * sb / (double)n;
	}
	{
		double sa = res->t0.n11 + res->t0.n10;
		double sb = res->t0.n11 + res->t0.n01;
		double tot = sa + res->t0.n01 + res->t0.n00;

		res->lift = sa > 0 && sb > 0 ? res->t0.n11 * tot / (sa * sb) : 0;
	}
	mean = sum / reps;
	sd = sqrt(fmax(0, (sum2 - reps * mean * mean) / (reps - 1)));
	se = sd / sqrt(reps);
	res->dmean = mean;
	res->dsd = sd;
	res->t = se > 0 ? mean / se : 0;
	if (minslow < 30 || minexp < 5) {
		res->v = V_CANNOT;
		snprintf(res->why, sizeof(res->why), "too few slow reads (min "
			 "%.0f a side, %.1f expected together)", minslow,
			 minexp);
	} else if (fabs(res->t) >= t99[reps - 2] &&
		   (pos == (int)reps || neg == (int)reps)) {
		res->v = V_SAME;
		snprintf(res->why, sizeof(res->why), "slow reads %s, all %u "
			 "replicates agree", mean > 0 ? "coincide" :
			 "exclude each other", reps);
	} else if (fabs(mean) + t95[reps - 2] * se < log(2.0)) {
		res->v = V_DIFFERENT;
		snprintf(res->why, sizeof(res->why), "independent: 95%% CI of "
			 "d inside +-ln2");
	} else {
		res->v = V_CANNOT;
		snprintf(res->why, sizeof(res->why), "ambiguous: 95%% CI of d "
			 "[%.2f, %.2f], replicates disagree", mean -
			 t95[reps - 2] * se, mean + t95[reps - 2] * se);
	}
}
#endif

static void
usage(void)
{
	fprintf(stderr,
		"usage: hgw-chanprobe [-o FILE] [--bits LO-HI] "
		"[--iterations N] [--seed S] [-q]\n"
		"  -o FILE         write a channel map (conf/chanmap format)\n"
		"  --bits LO-HI    address bits to test (default 6-29)\n"
		"  --iterations N  samples per bit, split over 2 passes x %d "
		"replicates "
		"(decimal, 1000..100000000; default 1000000)\n"
		"  --seed S        seed for choosing the lines (decimal; default: "
		"time)\n"
		"  -q              print only the per-bit table and summary\n"
		"  --trust-guest   under a hypervisor, still write the bits judged\n"
		"                  'different' to -o (by default the offset-only\n"
		"                  fallback is written there: measured here, about\n"
		"                  one bit in 20 is falsely 'different' in a VM)\n",
		REPS);
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "bits", required_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "trust-guest", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	unsigned lo = 6, hi = 29;
	unsigned long long iters = 1000000, seed = (unsigned long long)time(NULL);
	int c, trust_guest = 0;

	hgw_cli_version("hgw-chanprobe", argc, argv);

	while ((c = getopt_long(argc, argv, "o:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'b': {
			const char *p = optarg;
			uint64_t l, h;

			if (hgw_parse_dec(&p, 6, 62, &l) != 0 || *p++ != '-' ||
			    hgw_parse_dec(&p, l, 62, &h) != 0 || *p != '\0') {
				fprintf(stderr, "hgw-chanprobe: bad --bits "
					"'%s' (want LO-HI, 6 <= LO <= HI <= "
					"62)\n", optarg);
				return 2;
			}
			lo = (unsigned)l;
			hi = (unsigned)h;
			break;
		}
		case 'n':
			/* decimal only: once base 0, so 010 and 0x10 are
			 * refused rather than read as another number */
			iters = hgw_cli_num_no_prefix("hgw-chanprobe",
						      "iterations", optarg,
						      1000, 100000000);
			break;
		case 's':
			seed = hgw_cli_num_no_prefix("hgw-chanprobe", "seed",
						     optarg, 0, UINT64_MAX);
			break;
		case 't':
			trust_guest = 1;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hgw-chanprobe: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
#if !PROBE_SUPPORTED
	(void)out; (void)lo; (void)hi; (void)iters; (void)seed;
	(void)pick_pair; (void)slow_threshold; (void)lnor; (void)vname;
	(void)region_map;
	fprintf(stderr, "hgw-chanprobe: not supported on this architecture "
		"(needs clflush and rdtsc; x86_64 only)\n");
	return 1;
#else
	{
		struct region *r = calloc(1, sizeof(*r));
		struct bitres *res = calloc(2 * (hi - lo + 1), sizeof(*res));
		uint32_t *ta = malloc(iters * sizeof(uint32_t));
		uint32_t *tb = malloc(iters * sizeof(uint32_t));
		uint32_t *scr = malloc(iters * sizeof(uint32_t));
		int hv = hgw_chanmap_hypervisor();
		uint64_t diff_mask = 0;
		unsigned nsame = 0, ndiff = 0, ncannot = 0, nun = 0;
		struct timespec ts0, ts1;

		if (!r || !res || !ta || !tb || !scr) {
			fprintf(stderr, "hgw-chanprobe: out of memory\n");
			return 1;
		}
		rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
		if (region_map(r, 64) != 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &ts0);
		printf("hgw-chanprobe: region %zu MiB of %s; physical "
		       "addresses %s; hypervisor %s; bits %u-%u, %llu "
		       "iterations, seed %llu\n", r->len >> 20, r->kind,
		       r->pa_known ? "known (pagemap)" :
		       "unknown (need root for /proc/self/pagemap)",
		       hv ? "PRESENT: these are guest-physical bits, the "
		       "host's backing decides the real channel" : "not "
		       "detected", lo, hi, iters, seed);
		if (!quiet)
			printf("slow read: t > median + max(8*1.4826*MAD, "
			       "median/2) cycles, per line and replicate\n"
			       "statistic: d = lnOR(slowA, slowB in the same "
			       "iteration) - lnOR(slowA_i, slowB_i+lag), lags "
			       "101,257,1009,4099 pooled; %d replicates with "
			       "fresh line pairs; t = mean d / (sd d / "
			       "sqrt(%d))\n"
			       "verdict: same if |t| >= %.2f (p<0.01, %d df) "
			       "and all replicates agree in sign; different "
			       "if the 95%% CI of mean d lies inside +-ln2; "
			       "cannot tell otherwise, or if a replicate has "
			       "<30 slow reads a side or <5 expected "
			       "together; a verdict counts only if two "
			       "passes over all bits (rows a, b) agree\n",
			       REPS, REPS, t99[REPS - 2],
			       REPS - 1);
		printf("%5s %4s %5s %6s %6s %5s %6s %5s %6s %5s %6s  %s\n",
		       "bit", "medA", "thrA", "slowA", "slowB", "both",
		       "expct", "lift", "mean d", "sd d", "t", "verdict "
		       "(evidence; d per replicate)");
		/* Two passes over all bits, minutes apart in the worst case:
		 * a verdict must be reproduced by the second pass (fresh
		 * line pairs, different time) to count. */
		for (unsigned pass = 0; pass < 2; pass++)
			for (unsigned b = lo; b <= hi; b++)
				probe_bit(r, b, iters / 2, REPS, ta, tb, scr,
					  &res[(b - lo) * 2 + pass]);
		for (unsigned b = lo; b <= hi; b++) {
			struct bitres *p1 = &res[(b - lo) * 2];
			struct bitres *p2 = p1 + 1;
			enum verdict v = p1->v == p2->v ? p1->v : V_CANNOT;

			if (p1->v == V_NOPAIR) {
				printf("%4u %s: %s\n", b, vname[V_NOPAIR],
				       p1->why);
				nun++;
				continue;
			}
			for (unsigned pass = 0; pass < 2; pass++) {
				const struct bitres *x = pass ? p2 : p1;
				double sa = x->t0.n11 + x->t0.n10;
				double sb = x->t0.n11 + x->t0.n01;
				double tot = sa + x->t0.n01 + x->t0.n00;

				printf("%4u%c %4u %5u %6.0f %6.0f %5.0f %6.1f "
				       "%5.2f %6.2f %5.2f %6.2f  %s (%s;",
				       b, pass ? 'b' : 'a', x->med_a, x->thr_a,
				       sa, sb, x->t0.n11, sa * sb / tot,
				       x->lift, x->dmean, x->dsd, x->t,
				       vname[x->v], x->why);
				for (unsigned k = 0; k < x->nrep; k++)
					printf(" %.2f", x->d[k]);
				printf(")\n");
			}
			printf("%4u  => %s%s\n", b, vname[v],
			       p1->v != p2->v ? " (the two passes disagree)" :
			       "");
			if (v == V_SAME)
				nsame++;
			else if (v == V_DIFFERENT) {
				ndiff++;
				diff_mask |= 1ull << b;
			} else
				ncannot++;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts1);
		printf("summary: %u same, %u different, %u cannot tell, %u "
		       "untested; %.1f s\n", nsame, ndiff, ncannot, nun,
		       (double)(ts1.tv_sec - ts0.tv_sec) +
		       (ts1.tv_nsec - ts0.tv_nsec) / 1e9);
		if (hv)
			printf("note: under a hypervisor a guest-physical bit "
			       "flip is a host-physical flip only inside the "
			       "host's page backing the guest (4 KiB unless "
			       "the host uses huge pages): verdicts describe "
			       "this guest, not a channel map of the host\n");
		if (ndiff == 0)
			printf("result: no address bit was shown to move a "
			       "line to another channel; nothing established%s\n",
			       out ? ", writing the offset-only fallback" : "");
		else
			printf("result: bits shown to move a line to another "
			       "channel: mask 0x%" PRIx64 "\n", diff_mask);
		if (out != NULL) {
			struct hgw_chanmap m;
			char comment[768];
			int rc;

			memset(&m, 0, sizeof(m));
			if (ndiff && hv && !trust_guest)
				printf("not writing the %u 'different' bit(s) to "
				       "%s: under a hypervisor they are not "
				       "reliable (use --trust-guest to write "
				       "them anyway)\n", ndiff, out);
			if (ndiff && (!hv || trust_guest)) {
				m.nbits = 1;
				m.mask[0] = diff_mask;
				snprintf(m.name, sizeof(m.name), "probed");
				snprintf(comment, sizeof(comment),
					 "Source: hgw-chanprobe, seed %llu, "
					 "%llu iterations, bits %u-%u, %s%s.\n"
					 "Each bit in the mask was judged "
					 "'different': flipping it alone moved "
					 "the line to another channel.\n"
					 "Approximation: one channel bit "
					 "(pairs of bits were not tested); "
					 "the true XOR function is unknown.",
					 seed, iters, lo, hi, r->kind,
					 hv ? ", UNDER A HYPERVISOR "
					 "(guest-physical bits)" : "");
			} else {
				m.offset = 1ull << 30;
				snprintf(m.name, sizeof(m.name),
					 "probed-fallback");
				snprintf(comment, sizeof(comment),
					 "Source: hgw-chanprobe, seed %llu, "
					 "%llu iterations, bits %u-%u, %s%s.\n"
					 "Nothing could be established: no bit "
					 "had a clear 'different' verdict that "
					 "could be trusted (%u same, %u "
					 "different, %u cannot tell, %u "
					 "untested).\n"
					 "Offset-only fallback (1 GiB, as the "
					 "reference code): placement "
					 "unverifiable.",
					 seed, iters, lo, hi, r->kind,
					 hv ? ", under a hypervisor" : "",
					 nsame, ndiff, ncannot, nun);
			}
			rc = hgw_chanmap_write(out, &m, comment);
			if (rc != 0) {
				fprintf(stderr, "hgw-chanprobe: cannot write "
					"%s: %s\n", out, strerror(-rc));
				return 1;
			}
			printf("wrote %s\n", out);
		}
		munmap(r->va, r->len);
		free(r);
		free(res);
		free(ta);
		free(tb);
		free(scr);
	}
	return 0;
#endif
}
