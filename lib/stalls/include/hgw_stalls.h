/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: stalls of spinning cores, and whether they coincide.
 *
 * Hedging (several replicas racing) hides a stall of one core only when
 * another replica is not stalled at the same moment. This module spins
 * one pinned thread per CPU, all at once, and records every gap between
 * two consecutive clock reads longer than a threshold (a timer tick, an
 * interrupt, a hypervisor preemption) with its start time, into arrays
 * allocated and touched before the run so that recording never faults.
 * The analysis is a pure function of the recorded stalls: per CPU the
 * count, rate, p50/p99/max duration, the share of its stalls that
 * overlap a stall on another CPU, and a histogram of the intervals
 * between consecutive stalls, and the dominant periods: peaks of the
 * histogram of the lags between every stall and the later ones within
 * HGW_STALLS_LAG_BINS bins, over its flat background of unrelated
 * stalls (a 250 Hz tick shows as 4 ms, however many other stalls fall
 * between two ticks).
 */
#ifndef HGW_STALLS_H
#define HGW_STALLS_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Interval histogram: HGW_STALLS_BIN_NS wide bins from 0, the last one
 * also taking every longer interval. */
#define HGW_STALLS_BIN_NS   100000u
#define HGW_STALLS_BINS     201
/* Lag histogram: bins HGW_STALLS_BIN_NS wide centred on multiples of
 * it (a 1 ms tick falls in the middle of bin 10, not on an edge). */
#define HGW_STALLS_LAG_BINS 201
/* Dominant periods named per CPU. */
#define HGW_STALLS_PERIODS  3

/* Layouts public because callers (hgw-stalls, hedgewire --check) keep
 * traces and statistics by value, one per CPU. */

/* One stall: [start_ns, start_ns + dur_ns), start relative to the common
 * start of the run (CLOCK_MONOTONIC is one clock for every CPU). */
struct hgw_stall {
	uint64_t start_ns;
	uint64_t dur_ns;
};

/* What one CPU recorded. stalls[] holds n of cap, in start order, never
 * overlapping each other; stalls beyond cap are counted in lost only. */
struct hgw_stall_trace {
	unsigned int cpu;
	struct hgw_stall *stalls;
	uint32_t cap;
	uint32_t n;
	uint64_t lost;
	uint64_t reads;         /* clock reads: how hard it spun */
	int err;                /* pinning failed: negative errno */
};

struct hgw_stall_period {
	uint64_t period_ns;     /* mean lag in the peak bin */
	uint32_t excess;        /* lags in it above the background */
	double share;           /* excess / stalls: the share of stalls
				 * followed by another one period later */
};

struct hgw_stall_stats {
	unsigned int cpu;
	uint64_t n;             /* recorded (lost ones are not in n) */
	uint64_t lost;
	double per_s;
	uint64_t p50_ns, p99_ns, max_ns;
	uint64_t stalled_ns;    /* sum of durations */
	uint64_t overlapped;    /* stalls overlapping one on another CPU */
	double overlap_share;   /* overlapped / n (0 when n is 0) */
	uint32_t intervals[HGW_STALLS_BINS];
	uint32_t lags[HGW_STALLS_LAG_BINS];
	uint64_t lag_sum[HGW_STALLS_LAG_BINS];
	uint32_t background;    /* median lag bin: unrelated stalls */
	unsigned int nperiods;
	struct hgw_stall_period periods[HGW_STALLS_PERIODS];
};

/* Preallocates cap stalls per trace (touched, so the run takes no page
 * fault) for cpus[0..n-1]. Returns 0 or -ENOMEM. */
int hgw_stalls_alloc(struct hgw_stall_trace *t, const unsigned int *cpus,
		     unsigned int n, uint32_t cap);
void hgw_stalls_free(struct hgw_stall_trace *t, unsigned int n);

/* Spins one thread pinned to each trace's CPU, all released together,
 * for duration_ns; records gaps longer than threshold_ns. Returns 0, or
 * a negative errno when a thread could not be started or pinned (the
 * trace's err says which). */
int hgw_stalls_record(struct hgw_stall_trace *t, unsigned int n,
		      uint64_t duration_ns, uint64_t threshold_ns);

/* The analysis: st[i] from t[i], over a run of duration_ns. scratch
 * holds at least the largest t[i].n values (for the percentiles).
 * Pure: reads t, writes st and scratch only. */
void hgw_stalls_analyze(const struct hgw_stall_trace *t, unsigned int n,
			uint64_t duration_ns, struct hgw_stall_stats *st,
			uint64_t *scratch);

/* The name of a well-known tick rate this period matches within 3%
 * ("250 Hz tick"), or NULL. */
const char *hgw_stalls_period_name(uint64_t period_ns);

/* The report, one line per item, each starting with prefix: per CPU
 * its numbers, its dominant periods and its interval histogram (bins
 * holding 1% of the intervals or more). */
void hgw_stalls_print(FILE *out, const char *prefix,
		      const struct hgw_stall_stats *st, unsigned int n);

/* The same as one JSON object (no trailing newline). */
void hgw_stalls_print_json(FILE *out, const struct hgw_stall_stats *st,
			   unsigned int n, uint64_t duration_ns,
			   uint64_t threshold_ns);

/* What the numbers advise, one line each starting with prefix ("advice: "
 * lines); cpulist names the cpus measured, for the boot options. Returns
 * the number of lines written. */
unsigned int hgw_stalls_advise(FILE *out, const char *prefix,
			       const struct hgw_stall_stats *st,
			       unsigned int n, const char *cpulist);

#ifdef __cplusplus
}
#endif

#endif /* HGW_STALLS_H */
