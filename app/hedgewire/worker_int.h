/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: what the worker's files share. They import one another in
 * one direction: worker_main.c (the entry point) picks one main loop per
 * RX mode (worker_loop_*.c, from the template worker_loop.h;
 * worker_loop_fanout.c also holds the RX lcore), which calls the stages
 * (worker.c: a frame into the batch, the batch through book, strategy,
 * risk and the order), which call the buffer of frames held for a gap
 * (worker_hold.c), which calls none of them. worker_txlcore.c, the TX
 * lcore, uses the senders below and worker.c's snapshot.
 * Internal to app/hedgewire: worker.h is what the rest of the app uses.
 */
#ifndef HGW_APP_WORKER_INT_H
#define HGW_APP_WORKER_INT_H

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "journal.h"
#include "worker.h"

/* Most frames one rx_burst returns. */
#define MAX_BURST 512

/* worker.c: one frame of a burst into the pipeline (its messages join
 * the batch); the bytes of it the decoder read. wk_frame_hold, in the
 * loops that hold frames past a gap: *held = 1 when it was held, and the
 * caller must not free it. */
uint32_t wk_frame(struct hgw_worker *w, struct rte_mbuf *m);
uint32_t wk_frame_hold(struct hgw_worker *w, struct rte_mbuf *m, int *held);
/* worker.c: pick the order path of the worker's mode (tx-lcore or a
 * port, claim dedup or not, stages timed or not), once, before its loop */
void wk_flush_pick(struct hgw_worker *w);
/* apply the batch to the book, evaluate, send: the path picked */
static inline void
wk_flush(struct hgw_worker *w)
{
	w->flush(w);
}

/* The held frames taken (and the copies not held) go back to their pool,
 * once the batch that points into them is applied. */
static inline void
wk_hold_release(struct hgw_worker *w)
{
	wk_flush(w);
	rte_pktmbuf_free_bulk(w->hold.free, w->hold.nfree);
	w->hold.nfree = 0;
}
void wk_events_idle(struct hgw_worker *w);

/* No frame came: events waiting or announced may be due now (one
 * relaxed load and a compare when none is). */
static inline void
wk_idle(struct hgw_worker *w)
{
	/* relaxed: wk_events_idle's events_take orders what follows */
	if (unlikely(w->ev_n != 0 ||
		     atomic_load_explicit(&w->in.announce,
					  memory_order_relaxed) != w->ev_seen))
		wk_events_idle(w);
}
/* Stopped and drained: the events due after the last message. The
 * control plane posts none after hgw_ctl_close, which happens-before
 * hgw_stop's release store (main.c); this acquire fence pairs with it
 * (the loop saw hgw_stop set), so every event ever posted is visible here
 * and every replica that stops at the same message takes the same ones,
 * whichever of them it happened to take in its loop. */
static inline void
wk_stop_events(struct hgw_worker *w)
{
	atomic_thread_fence(memory_order_acquire);
	wk_idle(w);
}
/* worker.c: stop trading on missed input (once) */
void wk_halt(struct hgw_worker *w, enum hgw_halt why, uint16_t session,
	     uint64_t seq);
/* worker.c: the worker has returned (gives held frames up, tells the TX
 * lcore); returns 0 */
int wk_done(struct hgw_worker *w);
void wk_snapshot_take(struct hgw_snap_ctl *c, struct hgw_snapshot *snap,
		      const struct hgw_feed_stats *feed,
		      const struct hgw_sender *s, uint64_t won, uint64_t lost,
		      uint32_t req, const struct hgw_worker *w);

/* worker.c: nothing will fill the held gap: halt (why) and take the
 * frames past it */
void wk_hold_give_up(struct hgw_worker *w, enum hgw_halt why);

/* worker_hold.c: the buffer of frames past a gap, for A/B lines and
 * recovery (cold: only with hold_on); the pipeline takes its frames */
int wk_hold_copy(struct hgw_worker *w, struct rte_mbuf *m,
		 const struct hgw_feed_pkt *p);
void wk_hold_put(struct hgw_worker *w, struct rte_mbuf *m,
		 const struct hgw_feed_pkt *p);
void wk_hold_taken(struct hgw_worker *w);
void wk_hold_recovery_next(struct hgw_worker *w);
void wk_hold_gave_up(struct hgw_worker *w, enum hgw_halt why);
enum hgw_halt wk_hold_check(struct hgw_worker *w);

/* The gap before the first held frame: where its session is now. */
static inline uint64_t
wk_hold_next_seq(const struct hgw_worker *w)
{
	return w->feed.sessions[w->hold.session[0]].next_seq;
}

/* The line being read delivered sequence numbers up to end (one past). */
static inline void
wk_hold_delivered(struct hgw_worker *w, uint64_t end)
{
	uint64_t *e = &w->hold.line_end[w->cur_line & 1];

	*e = RTE_MAX(*e, end);
}

/* worker.c: the IDIO release of a burst's buffers, and the compaction
 * of a burst that lost frames to the hold buffer. */
void wk_release_idio(struct hgw_worker *w, struct rte_mbuf **pkts, uint16_t n,
		     const uint32_t *rd);
uint16_t wk_burst_unhold(struct rte_mbuf **pkts, uint32_t *rd, uint16_t n);

/* One main loop per RX mode (worker_loop_*.c), chosen once by
 * hgw_worker_main: from one RX queue; from one or two lines with frames
 * held across a gap (A/B, recovery); from the fanout ring; paced. */
int wk_loop_queue(struct hgw_worker *w);
int wk_loop_lines(struct hgw_worker *w);
int wk_loop_fanout(struct hgw_worker *w);
int wk_loop_paced(struct hgw_worker *w);

/* After tx_burst: the journal records and the latency histogram of the
 * orders [from, to), handed over at TSC now. */
static inline void
sender_account(struct hgw_sender *s, uint16_t from, uint16_t to,
	       uint64_t now)
{
	if (s->journal != NULL)
		s->tx.journal_full += hgw_journal_put(s->journal, s->m + from,
						      to - from, now);
	for (uint16_t i = from; i < to; i++) {
		uint64_t lat = now - s->rx_tsc[i];

		hgw_hist_record(s->rx_to_tx, lat);
		s->misses += lat > s->miss_tsc;
	}
}

/* How long a burst the port refused (its TX queue full) is tried again: a
 * queue drains in microseconds while its link is up. After a burst that
 * still failed, the port counts as stuck and later bursts get one try
 * each, until one goes whole: a link that is down must not hold the
 * worker (its feed would overflow). */
#define HGW_TX_RETRY_US 200

/* sender_flush's slow path: the port refused orders [sent, n) of a burst
 * tried at TSC now. What it still refuses is dropped and counted, never
 * journalled; and since every replica counted those orders in its
 * position, the count goes to the control plane, which sets the kill
 * switch (control.c). The orders taken on a retry are stamped with the
 * time it ended. */
static __rte_noinline void
sender_refused(struct hgw_sender *s, uint16_t sent, uint16_t n, uint64_t now)
{
	uint64_t limit = rte_get_tsc_hz() / 1000000 * HGW_TX_RETRY_US;
	uint16_t first = sent;

	sender_account(s, 0, first, now);
	while (sent < n && !s->stuck && rte_rdtsc() - now < limit) {
		rte_pause();
		sent += rte_eth_tx_burst(s->port, s->queue, s->m + sent,
					 n - sent);
	}
	s->stuck = sent < n;
	if (sent > first)
		sender_account(s, first, sent, rte_rdtsc());
	if (s->journal != NULL) {
		/* the journal's reference; the refused ones: both */
		for (uint16_t i = sent; i < n; i++)
			rte_mbuf_refcnt_set(s->m[i], 1);
		rte_pktmbuf_free_bulk(s->m, n);
	} else if (sent < n) {
		rte_pktmbuf_free_bulk(s->m + sent, n - sent);
	}
	s->tx.orders += sent;
	s->tx.tx_full += n - sent;
	if (sent < n && s->refused != NULL)
		/* relaxed: a count, polled by the control plane */
		atomic_fetch_add_explicit(s->refused, n - sent,
					  memory_order_relaxed);
	s->n = 0;
}

/* Hand the queued orders to tx_burst. The TX timestamp is taken just
 * before it, and nothing else stands between the orders and the wire
 * but one reference more on each mbuf when journalling (a store to a
 * line the order's append wrote, since the driver frees what it sends
 * and the journal copies the frame after tx_burst: with that reference
 * the mbuf is not back in the pool before it is copied; so no queue of
 * an order port may use MBUF_FAST_FREE). After tx_burst: the journal
 * records and the latency histogram. Orders the driver refused go to
 * sender_refused. */
static inline void
sender_flush(struct hgw_sender *s)
{
	uint16_t n = (uint16_t)s->n, sent;
	uint64_t now;

	if (n == 0)
		return;
	if (s->journal != NULL)
		for (uint16_t i = 0; i < n; i++)
			rte_mbuf_refcnt_update(s->m[i], 1);
	now = rte_rdtsc();
	sent = rte_eth_tx_burst(s->port, s->queue, s->m, n);
	if (unlikely(sent < n || s->stuck)) {
		sender_refused(s, sent, n, now);
		return;
	}
	sender_account(s, 0, n, now);
	if (s->journal != NULL)
		rte_pktmbuf_free_bulk(s->m, n);	/* the journal's reference */
	s->tx.orders += n;
	s->n = 0;
}

/* The ring kind (tx-lcore mode): one order handed to the TX lcore on the
 * worker's SP/SC ring, in order. A full ring is waited out, never
 * skipped: dropping one order from the middle of a worker's stream could
 * lose that trigger (see hgw_dedup.h). The TX lcore outlives every
 * worker, so the wait ends. */
static __rte_always_inline void
sender_hand(struct hgw_sender *s, struct hgw_handoff *h)
{
	while (unlikely(rte_ring_sp_enqueue_elem(s->ring, h,
						 sizeof(*h)) != 0)) {
		s->ring_waits++;
		rte_pause();
	}
	s->tx.orders++;
}

/* One relaxed load per loop when nobody asks. */
static inline void
snapshot_poll(struct hgw_snap_ctl *c, struct hgw_snapshot *snap,
	      const struct hgw_feed_stats *feed, const struct hgw_sender *s,
	      uint64_t won, uint64_t lost, const struct hgw_worker *w)
{
	/* relaxed: checked once per loop; on a change, the acquire fence
	 * below pairs with the reader's release store of req, so the last
	 * reader's copy of the snapshot happens-before we rewrite it */
	uint32_t req = atomic_load_explicit(&c->req, memory_order_relaxed);

	if (unlikely(req != c->seen)) {
		atomic_thread_fence(memory_order_acquire);
		wk_snapshot_take(c, snap, feed, s, won, lost, req, w);
	}
}

#endif /* HGW_APP_WORKER_INT_H */
