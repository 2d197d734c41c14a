/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the worker's main loop, written once and compiled once per
 * RX mode (worker_loop_*.c), as l3fwd compiles one loop per lookup
 * method. The mode flags are constants in each instantiation, so each
 * loop carries only its own mode's code; hgw_worker_main picks the loop
 * once, at start-up. The stages it calls (decode, the batch through
 * book, strategy, risk and the order) are worker.c's.
 */
#ifndef HGW_APP_WORKER_LOOP_H
#define HGW_APP_WORKER_LOOP_H

#include <rte_prefetch.h>
#include <rte_ring.h>

#include "worker_int.h"

/* Mode flags: compile-time constants of each loop. */
#define WL_RING  1u     /* frames from the fanout RX lcore's ring */
#define WL_HOLD  2u     /* frames past a gap are held (A/B, recovery) */
#define WL_PACED 4u     /* each frame waits for its release deadline */

/* Frames prefetched ahead of the one being decoded. */
#define PREFETCH_AHEAD 2

/* Burst prefetch: a packet's first two data lines (headers and the
 * first messages) into L2, ahead of the L1 prefetch window. */
static inline void
wl_prefetch_l2(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	rte_prefetch1(d);
	rte_prefetch1(d + RTE_CACHE_LINE_SIZE);
}

/* Decode frame i of the burst (rd[i]: the bytes the decoder read). With
 * hold (a constant in each loop), a frame held past a gap leaves the
 * burst: pkts[i] = NULL, so it is not freed with the others. */
static __rte_always_inline void
wl_decode(struct hgw_worker *w, struct rte_mbuf **pkts, uint32_t *rd,
	  uint16_t i, int hold)
{
	int held = 0;

	if (!hold) {
		rd[i] = wk_frame(w, pkts[i]);
		return;
	}
	rd[i] = wk_frame_hold(w, pkts[i], &held);
	if (unlikely(held))
		pkts[i] = NULL;
}

/* [rx] timestamp = nic: the burst arrived when the NIC stamped its first
 * frame (mapped to the TSC); a frame without a stamp keeps the rx_burst
 * TSC, counted. */
static inline void
wl_nic_arrival(struct hgw_worker *w, const struct rte_mbuf *m)
{
	struct hgw_nic_clock map;
	uint32_t sn;

	if (unlikely(!(m->ol_flags & w->ts_flag))) {
		w->nic_no_ts++;
		return;
	}
	do {
		sn = rte_seqcount_read_begin(&w->nic->seq);
		map = w->nic->map;
	} while (rte_seqcount_read_retry(&w->nic->seq, sn));
	uint64_t t = hgw_nic_clock_tsc(&map,
		*RTE_MBUF_DYNFIELD(m, w->ts_offset,
				   const rte_mbuf_timestamp_t *));

	/* a stamp can only be earlier than the rx_burst return */
	w->rx_tsc = RTE_MIN(t, w->rx_tsc);
}

/* Paced replay: each frame waits for its release deadline (the same on
 * every worker) and is processed alone, its arrival being the deadline.
 * A worker already past it goes on at once and the lateness shows in the
 * latency. The wait ends early on stop, so a stop is never held up.
 * (Only the paced loops, worker_loop_paced.c, have WL_PACED.) */
static __rte_always_inline void
wl_paced_burst(struct hgw_worker *w, struct rte_mbuf **pkts, uint16_t n,
	       uint32_t *rd, const unsigned int flags)
{
	uint16_t pf_hi = 0;	/* frames below this were prefetched */

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint64_t due, now;

		if (w->pace == HGW_PACE_RATE) {
			due = hgw_pacer_rate(&w->pacer);
		} else if (w->ts_offset >= 0 && (m->ol_flags & w->ts_flag)) {
			due = hgw_pacer_pcap(&w->pacer,
				*RTE_MBUF_DYNFIELD(m, w->ts_offset,
						   const rte_mbuf_timestamp_t *));
		} else {
			w->pace_no_ts++;
			due = rte_rdtsc();
		}
		now = rte_rdtsc();
		if (now > due) {
			w->pace_late++;
			if (now - due > w->pace_late_max)
				w->pace_late_max = now - due;
		}
		while (now < due &&
		       !atomic_load_explicit(&hgw_stop, memory_order_relaxed)) {
			rte_pause();
			now = rte_rdtsc();
		}
		/* due, unless a stop cut the wait short */
		w->rx_tsc = RTE_MIN(due, now);
		if (w->prefetch) {
			uint32_t d = hgw_idio_pf_arrive(&w->pf, w->rx_tsc, 1,
							(uint32_t)(n - 1 - i));

			for (uint16_t j = RTE_MAX(pf_hi, (uint16_t)(i + 1));
			     j <= i + d; j++)
				wl_prefetch_l2(pkts[j]);
			pf_hi = RTE_MAX(pf_hi, (uint16_t)(i + d + 1));
		}
		wl_decode(w, pkts, rd, i, flags & WL_HOLD);
		wk_flush(w);
	}
}

/* Receive and process one burst of one line; returns the number of
 * frames. */
static __rte_always_inline uint16_t
wl_burst(struct hgw_worker *w, uint8_t line, const unsigned int flags)
{
	struct rte_mbuf *pkts[MAX_BURST];
	uint32_t rd[MAX_BURST];	/* bytes of each frame the decoder read */
	uint16_t n = (flags & WL_RING) ?
		(uint16_t)rte_ring_sc_dequeue_burst(w->rx_ring, (void **)pkts,
						    w->burst, NULL) :
		rte_eth_rx_burst(w->port, line ? w->queue_b : w->queue, pkts,
				 w->burst);
	uint16_t nfree = n;

	if (n == 0) {
		if ((flags & WL_HOLD) && w->hold.n != 0)
			w->hold.line_empty[line] = rte_rdtsc();
		return 0;
	}
	if (flags & WL_HOLD)
		w->cur_line = line;
	w->rx_tsc = rte_rdtsc();
	if (w->nic != NULL)
		wl_nic_arrival(w, pkts[0]);
	if (unlikely(w->rx.first_tsc == 0))
		w->rx.first_tsc = w->rx_tsc;
	w->rx.last_tsc = w->rx_tsc;
	w->rx.bursts++;
	w->rx.mbufs += n;
	if (flags & WL_PACED) {
		wl_paced_burst(w, pkts, n, rd, flags);
	} else {
		uint32_t pf = w->prefetch ?
			hgw_idio_pf_depth(&w->pf, w->rx_tsc, n) : 0;

		for (uint16_t i = 0; i < n && i < PREFETCH_AHEAD; i++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
		for (uint16_t i = PREFETCH_AHEAD;
		     i < n && i < PREFETCH_AHEAD + pf; i++)
			wl_prefetch_l2(pkts[i]);
		for (uint16_t i = 0; i < n; i++) {
			if (i + PREFETCH_AHEAD < n)
				rte_prefetch0(rte_pktmbuf_mtod(
					pkts[i + PREFETCH_AHEAD], void *));
			if (pf != 0 && i + PREFETCH_AHEAD + pf < n)
				wl_prefetch_l2(pkts[i + PREFETCH_AHEAD + pf]);
			/* Room for any frame's messages, else apply what
			 * we have. */
			if (HGW_WORKER_BATCH - w->nbatch < HGW_FRAME_MAX_MSGS)
				wk_flush(w);
			wl_decode(w, pkts, rd, i, flags & WL_HOLD);
		}
		wk_flush(w);
	}
	if (flags & WL_HOLD)
		nfree = wk_burst_unhold(pkts, rd, n);
	if (w->idio_on)
		wk_release_idio(w, pkts, nfree, rd);
	else
		rte_pktmbuf_free_bulk(pkts, nfree);
	if ((flags & WL_HOLD) && w->hold.nfree != 0)
		wk_hold_release(w);	/* held frames taken in this burst */
	/* Single writer: a plain load + store, no locked RMW. */
	atomic_store_explicit(&w->shared.frames,
			      atomic_load_explicit(&w->shared.frames,
						   memory_order_relaxed) + n,
			      memory_order_relaxed);
	return n;
}

/* One burst of each line, then a look at a gap being waited on. */
static __rte_always_inline uint16_t
wl_poll(struct hgw_worker *w, const unsigned int flags)
{
	uint16_t n = wl_burst(w, 0, flags);

	if (!(flags & WL_HOLD))
		return n;
	if (w->lines == 2)
		n += wl_burst(w, 1, flags);
	if (w->hold.n != 0) {
		enum hgw_halt why = wk_hold_check(w);

		if (why != HGW_HALT_NONE)
			wk_hold_give_up(w, why);
		if (w->hold.nfree != 0)
			wk_hold_release(w);
	}
	return n;
}

/* Poll until hgw_stop, then drain (every frame already received is
 * processed before the worker reports, so a stop never loses one). */
static __rte_always_inline int
wl_run(struct hgw_worker *w, const unsigned int flags)
{
	while (!atomic_load_explicit(&hgw_stop, memory_order_relaxed)) {
		if (wl_poll(w, flags) == 0)
			wk_idle(w);
		snapshot_poll(&w->snap, w->snapshot, &w->feed.stats, &w->out,
			      w->races.won, w->races.lost, w);
#if HGW_TEST_HOOKS
		if (unlikely(w->hooks.inject.stop_after != 0) &&
		    w->rx.mbufs >= w->hooks.inject.stop_after) {
			/* Test-only: stop for good (at a frame boundary,
			 * so every order of the frames it took has left):
			 * the worker is gone, the others carry on. */
			/* release: its last event reads happen-before
			 * the control plane's acquire (it frees patches) */
			atomic_store_explicit(&w->shared.dead, 1,
					      memory_order_release);
			return wk_done(w);
		}
#endif
	}
	if (flags & WL_RING) {
		/* fanout: until the RX lcore has drained the port (acquire:
		 * its enqueues are then visible) and our ring is empty */
		for (;;) {
			uint32_t done = atomic_load_explicit(&w->fanout->done,
							     memory_order_acquire);

			if (wl_poll(w, flags) == 0 && done)
				break;
		}
		wk_stop_events(w);
		return wk_done(w);
	}
	for (uint32_t drained = 0; drained < w->drain_max;) {
		uint16_t n = wl_poll(w, flags);

		if (n == 0)
			break;
		drained += n;
	}
	wk_stop_events(w);
	return wk_done(w);
}

#endif /* HGW_APP_WORKER_LOOP_H */
