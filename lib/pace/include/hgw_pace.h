/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: paced replay, the release deadline of each frame (header only).
 *
 * In pcap replay every worker reads its own copy of the file, so a race
 * needs a common arrival instant: frame i is released to every worker at
 * the same TSC deadline (docs/operations.md "Running it", paced replay):
 *   pcap pace: t0 + (ts_i - ts_0) / speed   (ts: the pcap timestamp)
 *   rate pace: t0 + i / pps (or, in bursts of b: t0 + (i - i mod b) / pps)
 * and an order's latency is its TX TSC minus that deadline. A worker that
 * is late (stalled, preempted, slow) releases the frame when it gets to it
 * but still measures from the deadline: lateness is latency, not an error.
 * Pure arithmetic, shared by the worker and its unit test.
 */
#ifndef HGW_PACE_H
#define HGW_PACE_H

#include <stdint.h>

/* Layout public because the worker embeds its pacer and computes each
 * deadline inline. */
struct hgw_pacer {
	uint64_t t0;            /* TSC deadline of the first frame */
	double cycles_per_unit; /* pcap: TSC cycles per timestamp unit / speed;
				 * rate: TSC cycles per frame */
	uint64_t ts0;           /* pcap: timestamp of the first frame */
	uint64_t next;          /* rate: index of the next frame */
	uint32_t burst;         /* rate: frames released together (>= 1) */
	int started;            /* pcap: ts0 is known */
};

/* pcap pace: timestamps in units of unit_hz per second (net_pcap stores
 * microseconds: 1e6), replayed speed times faster. */
static inline void
hgw_pacer_init_pcap(struct hgw_pacer *p, uint64_t t0, uint64_t tsc_hz,
		    double unit_hz, double speed)
{
	p->t0 = t0;
	p->cycles_per_unit = (double)tsc_hz / unit_hz / speed;
	p->ts0 = 0;
	p->next = 0;
	p->burst = 1;
	p->started = 0;
}

/* rate pace: pps frames per second on average, released `burst` at a
 * time (1: evenly spaced; 256: bursts of 256 frames, 256 / pps apart). */
static inline void
hgw_pacer_init_rate(struct hgw_pacer *p, uint64_t t0, uint64_t tsc_hz,
		    double pps, uint32_t burst)
{
	p->t0 = t0;
	p->cycles_per_unit = (double)tsc_hz / pps;
	p->ts0 = 0;
	p->next = 0;
	p->burst = burst != 0 ? burst : 1;
	p->started = 1;
}

/* Deadline of a frame stamped ts (pcap pace). A timestamp before the
 * first one (out of order in the file) is due at once: t0. */
static inline uint64_t
hgw_pacer_pcap(struct hgw_pacer *p, uint64_t ts)
{
	if (!p->started) {
		p->ts0 = ts;
		p->started = 1;
	}
	if (ts <= p->ts0)
		return p->t0;
	return p->t0 + (uint64_t)((double)(ts - p->ts0) * p->cycles_per_unit);
}

/* Deadline of the next frame (rate pace): that of the first frame of
 * its burst. */
static inline uint64_t
hgw_pacer_rate(struct hgw_pacer *p)
{
	uint64_t first = p->next++ / p->burst * p->burst;

	return p->t0 + (uint64_t)((double)first * p->cycles_per_unit);
}

#endif /* HGW_PACE_H */
