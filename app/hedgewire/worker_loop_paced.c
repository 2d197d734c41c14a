/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the worker's main loop for paced replay ([replay] pace),
 * from an RX queue or the fanout ring, with or without held frames.
 */
#include "worker_loop.h"

/* Paced replay: each frame waits for its release deadline (the same on
 * every worker) and is processed alone, its arrival being the deadline.
 * A worker already past it goes on at once and the lateness shows in the
 * latency. The wait ends early on stop, so a stop is never held up. */
void
wk_paced_burst(struct hgw_worker *w, struct rte_mbuf **pkts, uint16_t n,
	       uint32_t *rd)
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
		wl_decode(w, pkts, rd, i, w->hold_on);
		wk_flush(w);
	}
}

int
wk_loop_paced(struct hgw_worker *w)
{
	if (w->rx_ring != NULL)
		return w->hold_on ? wl_run(w, WL_PACED | WL_RING | WL_HOLD) :
				    wl_run(w, WL_PACED | WL_RING);
	return w->hold_on ? wl_run(w, WL_PACED | WL_HOLD) :
			    wl_run(w, WL_PACED);
}
