/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the TX lcore of tx-lcore mode: it takes each worker's
 * orders off its handoff ring and sends the first copy of each trigger
 * (to the order port, or over the venue session).
 */
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "hgw_tcp_dlg.h"
#include "venue.h"
#include "worker_int.h"

/* tx-lcore: take what each worker handed over, in each worker's order,
 * and send the first copy of every trigger. Returns orders taken. */
static uint32_t
txlcore_once(struct hgw_txlcore *t)
{
	struct hgw_sender *s = &t->out;
	struct hgw_handoff h[HGW_WORKER_TXQ];
	uint32_t total = 0;

	for (uint32_t r = 0; r < t->nrings; r++) {
		unsigned int n = rte_ring_sc_dequeue_burst_elem(t->rings[r], h,
								sizeof(h[0]),
								HGW_WORKER_TXQ,
								NULL);
		/* [venue]: the dedup-to-send latency starts here */
		uint64_t deq = t->venue != NULL && n != 0 ? rte_rdtsc() : 0;

		total += n;
		for (unsigned int i = 0; i < n; i++) {
			/* a claim a worker won (and sent, or could not):
			 * the claim was the dedup, and the rings hold only
			 * the winners', in no order between them */
			if (h[i].sent != 0) {
				t->filter.passed[r]++;
				hgw_venue_take(t->venue, t, &h[i]);
				continue;
			}
			if (!hgw_dedup_filter_first(&t->filter, h[i].key,
						    h[i].seq, (uint16_t)r)) {
				t->races_lost++;
				rte_pktmbuf_free(h[i].m);
				continue;
			}
			if (t->venue != NULL) {
				hgw_venue_order(t->venue, t, &h[i], deq);
				continue;
			}
			s->rx_tsc[s->n] = h[i].rx_tsc;
			s->m[s->n++] = h[i].m;
			if (s->n == HGW_WORKER_TXQ)
				sender_flush(s);
		}
		sender_flush(s);
	}
	return total;
}

/* The kill switch is on and its recall has not ended: what the rings
 * hold was decided before its position, but has not left. Take it off:
 * the first copy of each trigger moves the filter's mark (so no later
 * copy of it goes) and is handed to the control plane, which tells every
 * replica to take it out of its position; later copies are dropped as
 * usual. */
static __rte_noinline void
txlcore_recall(struct hgw_txlcore *t)
{
	struct hgw_handoff h[HGW_WORKER_TXQ];

	for (uint32_t r = 0; r < t->nrings; r++) {
		unsigned int n;

		while ((n = rte_ring_sc_dequeue_burst_elem(t->rings[r], h,
							   sizeof(h[0]),
							   HGW_WORKER_TXQ,
							   NULL)) != 0)
			for (unsigned int i = 0; i < n; i++) {
				struct hgw_recalled rc = { h[i].key, h[i].seq };

				/* a worker sent it before it saw the kill:
				 * at the venue, so into the account, and
				 * cancelled with the rest (claims are the
				 * dedup: no filter, as in txlcore_once) */
				if (h[i].sent == HGW_TCP_DLG_SENT) {
					t->filter.passed[r]++;
					hgw_venue_take(t->venue, t, &h[i]);
					continue;
				}
				rte_pktmbuf_free(h[i].m);
				if (h[i].sent == 0 &&
				    !hgw_dedup_filter_first(&t->filter, h[i].key,
							    h[i].seq,
							    (uint16_t)r)) {
					t->races_lost++;
					continue;
				}
				t->recalled_n++;
				if (rte_ring_sp_enqueue_elem(t->recalled, &rc,
							     sizeof(rc)) != 0) {
					t->recalled_lost++;
					/* relaxed: a count, polled */
					atomic_fetch_add_explicit(
						&t->unsent_lost, 1,
						memory_order_relaxed);
				}
			}
	}
}

/* A recall runs from the kill switch going on until every order decided
 * before its position has been taken off the rings (struct hgw_txlcore):
 * an order of those that arrives late is recalled too, never sent after
 * an earlier one was recalled, because the replicas decided it counting
 * on the earlier one to leave. all_done: every worker has returned, so
 * what the rings hold is all there is. */
static __rte_noinline void
txlcore_recall_step(struct hgw_txlcore *t, int all_done)
{
	/* acquire: pairs with the control plane's release, which follows
	 * its acquire of a worker's handed: that worker's orders up to
	 * the kill's position are on its ring for the drain below */
	uint32_t end = atomic_load_explicit(&t->recall_end,
					    memory_order_acquire);

	txlcore_recall(t);
	/* claim mode on the venue's TCP: and every order a worker claimed
	 * is off the rings (a worker between its claim and its hand-over
	 * holds one the recall must see) */
	if (all_done || (end == t->recall_seen &&
			 (t->dlg == NULL || hgw_txlcore_dlg_taken(t)))) {
		t->recall_on = 0;
		/* release: the recalled ring's entries happen-before the
		 * control plane's acquire of this */
		atomic_store_explicit(&t->recall_ended, t->recall_seen,
				      memory_order_release);
	}
}

/* Has the kill switch gone on since the last look? Then a recall
 * starts (or goes on to the new kill's position: txlcore_recall_step
 * drains the rings next) and, with a venue session, every open order is
 * cancelled. */
static inline void
txlcore_kill_check(struct hgw_txlcore *t)
{
	/* relaxed: checked once a loop; the fence orders what follows
	 * after the control plane's release */
	uint32_t rc = atomic_load_explicit(&t->recall, memory_order_relaxed);

	if (likely(rc == t->recall_seen) || t->recalled == NULL)
		return;
	atomic_thread_fence(memory_order_acquire);
	t->recall_seen = rc;
	t->recall_on = 1;
	if (t->venue != NULL)
		hgw_venue_kill(t->venue, t);
}

/* Everything the rings hold, off them: recalled during a kill's recall,
 * else taken. */
static void
txlcore_drain(struct hgw_txlcore *t)
{
	if (t->recall_on)
		txlcore_recall(t);
	else
		while (txlcore_once(t) != 0)
			;
}

int
hgw_txlcore_dlg_taken(struct hgw_txlcore *t)
{
	uint32_t mark;

	/* what is handed over comes off first: a worker waiting for room
	 * on its ring holds its claim meanwhile */
	txlcore_drain(t);
	/* (acquire: pairs with the claims' CAS, acq_rel, so a worker's note
	 * that it is claiming, stored before its claim, is seen below) */
	mark = hgw_tcp_dlg_mark(t->dlg);
	for (uint32_t i = 0; i < t->nrings; i++) {
		/* acquire: pairs with the worker's release once its claim
		 * is on its ring (or was lost) */
		uint32_t p = atomic_load_explicit(t->dlg_pending[i],
						  memory_order_acquire);

		if (p != 0 && p <= mark)
			return 0;
	}
	/* every claim up to the mark is on a ring: take them all */
	txlcore_drain(t);
	return 1;
}

int
hgw_txlcore_main(void *arg)
{
	struct hgw_txlcore *t = arg;

	/* acquire: pairs with each worker's release once it is done */
	while (atomic_load_explicit(&t->workers_done, memory_order_acquire) <
	       t->nrings) {
		txlcore_kill_check(t);
		if (unlikely(t->recall_on))
			txlcore_recall_step(t, 0);
		else
			txlcore_once(t);
		if (t->venue != NULL)
			hgw_venue_poll(t->venue, t);
		snapshot_poll(&t->snap, t->snapshot, NULL, &t->out,
			      t->out.tx.orders, t->races_lost, NULL);
	}
	/* every worker is done: what a recall still covers is recalled
	 * (nothing decided after a kill's position can be on the rings:
	 * the kill switch goes off only once its recall has ended), the
	 * rest leaves */
	txlcore_kill_check(t);
	if (t->recall_on)
		txlcore_recall_step(t, 1);
	while (txlcore_once(t) != 0)
		;
	if (t->venue != NULL) {
		hgw_venue_stop(t->venue, t);
	}
	return 0;
}
