/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the worker's main loop in fanout mode: frames come from the
 * RX lcore's ring (with [recovery], frames past a gap are held); and
 * the RX lcore that fills the rings.
 */
#include "worker_loop.h"

int
wk_loop_fanout(struct hgw_worker *w)
{
	return w->hold_on ? wl_run(w, WL_RING | WL_HOLD) : wl_run(w, WL_RING);
}

/* Note that ring r refused frames first .. first + n - 1 (received
 * frame indexes): a run of its own, or the end of the last one. */
static __rte_noinline void
drop_note(struct hgw_fanout *f, uint32_t r, uint64_t first, uint64_t n)
{
	uint32_t k = f->ndrop_runs[r];

	f->drops[r] += n;
	if (k != 0 && f->drop_run[r][k - 1].first + f->drop_run[r][k - 1].n == first) {
		f->drop_run[r][k - 1].n += n;
		return;
	}
	if (k == HGW_FANOUT_DROP_RUNS)
		return;		/* the summary says the runs are not all there */
	f->drop_run[r][k].first = first;
	f->drop_run[r][k].n = n;
	f->ndrop_runs[r] = k + 1;
}

/* Receive a burst and give every frame to every worker. References are
 * added for all workers before any worker can see a frame, since a fast
 * worker frees its reference as soon as it is done. A full ring drops
 * that worker's copy only (counted; its decoder then sees a gap). */
static uint16_t
fanout_once(struct hgw_fanout *f)
{
	struct rte_mbuf *pkts[MAX_BURST];
	uint16_t n = rte_eth_rx_burst(f->port, f->queue, pkts, f->burst);

	if (n == 0)
		return 0;
	f->frames += n;
	if (f->nrings > 1)
		for (uint16_t i = 0; i < n; i++)
			rte_mbuf_refcnt_update(pkts[i], (int16_t)(f->nrings - 1));
	for (uint32_t r = 0; r < f->nrings; r++) {
		unsigned int k = rte_ring_sp_enqueue_burst(f->rings[r],
							   (void **)pkts, n,
							   NULL);

		if (unlikely(k < n)) {
			drop_note(f, r, f->frames - n + k, n - k);
			rte_pktmbuf_free_bulk(pkts + k, n - k);
		}
	}
	return n;
}

int
hgw_fanout_main(void *arg)
{
	struct hgw_fanout *f = arg;

	while (!atomic_load_explicit(&hgw_stop, memory_order_relaxed))
		fanout_once(f);
	for (uint32_t drained = 0; drained < f->drain_max;) {
		uint16_t n = fanout_once(f);

		if (n == 0)
			break;
		drained += n;
	}
	/* release: every enqueue above happens-before a worker's acquire */
	atomic_store_explicit(&f->done, 1, memory_order_release);
	return 0;
}
