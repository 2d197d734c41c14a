/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the worker poll loop. RX burst -> decode -> book.
 *
 * Nothing here allocates, locks, logs or makes a system call: it counts.
 */
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <string.h>

#include "hgw_prng.h"
#include "venue.h"
#include "worker_int.h"
#include "hgw_table.h"

_Atomic uint32_t hgw_stop;

/* The port's checksum verdicts (RX offload flags), for the decoder. */
static inline uint32_t
rx_checksums(const struct rte_mbuf *m)
{
	uint64_t ip = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	uint64_t l4 = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;

	return (ip == RTE_MBUF_F_RX_IP_CKSUM_GOOD ? HGW_FEED_CK_IP_GOOD :
		ip == RTE_MBUF_F_RX_IP_CKSUM_BAD ? HGW_FEED_CK_IP_BAD : 0) |
	       (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD ? HGW_FEED_CK_L4_GOOD :
		l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD ? HGW_FEED_CK_L4_BAD : 0);
}

const char *
hgw_halt_name(uint32_t why)
{
	static const char *const names[] = {
		[HGW_HALT_NONE] = "trading",
		[HGW_HALT_GAP] = "a sequence gap",
		[HGW_HALT_CHECKSUM] = "a checksum failure",
		[HGW_HALT_BOTH_LINES] = "a sequence gap on both lines",
		[HGW_HALT_NO_ANSWER] = "a sequence gap the re-request server did not fill",
		[HGW_HALT_HOLD_FULL] = "a sequence gap that outlasted the hold buffer",
	};

	return why < RTE_DIM(names) ? names[why] : "?";
}

/* Missed input: this replica's book may be wrong, so it stops trading
 * for good (until a recovery makes its input whole again). The other
 * replicas carry on. Said once to the control plane. */
__rte_noinline void
wk_halt(struct hgw_worker *w, enum hgw_halt why, uint16_t session, uint64_t seq)
{
	if (w->halt != HGW_HALT_NONE || w->table == NULL)
		return;
	w->halt = why;
	w->halt_key = session < w->feed.nsessions ?
		      w->feed.sessions[session].key : 0;
	w->halt_seq = seq;
	/* relaxed: a flag for the digest vote; details read after join */
	atomic_store_explicit(&w->shared.halted, why, memory_order_relaxed);
}


/* The decoder: a frame's messages appended to the batch, once the feed
 * has accepted it (hgw_feed_packet_ck). It reads the frame and moves the
 * feed's sequence state, nothing else: what the feed's verdict means for
 * trading is take_frame's. Returns the bytes of the frame read (for
 * invalidation: every block's length was walked, so all of the MoldUDP64
 * payload). */
static inline uint32_t
decode_messages(struct hgw_worker *w, const uint8_t *frame,
		struct hgw_feed_pkt *p)
{
	const uint8_t *msg;
	uint16_t len;

	while ((msg = hgw_feed_next(&w->feed, p, &len)) != NULL) {
		/* p->seq is the next one */
		w->batch[w->nbatch++] = (struct hgw_batch_msg){
			.msg = msg, .seq = p->seq - 1, .session = p->session,
		};
	}
	return (uint32_t)(p->next - frame);
}

/* Every session this worker met has ended: said to the control plane. */
static __rte_noinline void
feed_end_note(struct hgw_worker *w)
{
	uint32_t ended = 1;

	for (uint32_t i = 0; i < w->feed.nsessions; i++)
		ended &= w->feed.sessions[i].ended;
	/* relaxed: a flag the control loop polls */
	atomic_store_explicit(&w->shared.at_end, ended, memory_order_relaxed);
}

/* One frame into the pipeline: the feed's verdict on it, what that
 * means for trading, then its messages into the batch. flags: the
 * feed's (HGW_FEED_TAKE_GAP gives a gap up); hold: a constant of each
 * caller, 1 when frames past a gap are held (A/B lines, recovery), which
 * then come back with *ahead = 1, not taken, p saying where they belong.
 * Returns the bytes of the frame read. */
static __rte_always_inline uint32_t
take_frame(struct hgw_worker *w, struct rte_mbuf *m, uint32_t flags,
	   const int hold, struct hgw_feed_pkt *p, int *ahead)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	int rc;

	if (unlikely(m->nb_segs != 1)) {
		w->rx.multiseg++;
		return 0;
	}
	rc = hgw_feed_packet_ck(&w->feed, frame, rte_pktmbuf_data_len(m),
				rx_checksums(m) | flags, p);
	if (unlikely(rc < 0)) {
		enum hgw_feed_drop d = hgw_feed_reason(rc);

		if (hold && rc == HGW_FEED_AHEAD) {
			*ahead = 1;
		} else if (!hold && (d == HGW_FEED_DROP_IP_CHECKSUM ||
				     d == HGW_FEED_DROP_UDP_CHECKSUM)) {
			/* the frame is lost (with a second line or a
			 * re-request server, the gap it leaves may still
			 * be filled, and halts the worker if not) */
			wk_flush(w);
			wk_halt(w, HGW_HALT_CHECKSUM, UINT16_MAX, 0);
		}
		return rte_pktmbuf_data_len(m);	/* refused: assume all read */
	}
	/* A halt or a join takes effect at this frame's first message, on
	 * every replica alike, however its frames were batched: the
	 * messages of the frames before it are applied and evaluated
	 * first. */
	if (unlikely(p->gap | p->join))
		wk_flush(w);
	if (unlikely(p->gap))
		wk_halt(w, HGW_HALT_GAP, p->session, p->seq);
	if (unlikely(p->join))
		w->warmup_left = w->warmup_messages;
	if (hold)
		wk_hold_delivered(w, p->seq + p->left);
	rc = (int)decode_messages(w, frame, p);
	if (unlikely(p->end))
		feed_end_note(w);
	return (uint32_t)rc;
}

uint32_t
wk_frame(struct hgw_worker *w, struct rte_mbuf *m)
{
	struct hgw_feed_pkt p;
	int ahead = 0;

	return take_frame(w, m, 0, 0, &p, &ahead);
}

/* Held frame 0 into the pipeline (flags: HGW_FEED_TAKE_GAP gives its gap
 * up), as a frame of the line that delivered it: 1 if taken, and off the
 * buffer (freed after the batch that points into it); 0 if still ahead. */
static int
hold_take(struct hgw_worker *w, uint32_t flags)
{
	struct hgw_hold *h = &w->hold;
	uint8_t line = w->cur_line;
	struct hgw_feed_pkt p;
	int ahead = 0;

	if (HGW_WORKER_BATCH - w->nbatch < HGW_FRAME_MAX_MSGS)
		wk_flush(w);
	w->cur_line = h->line[0];
	take_frame(w, h->m[0], flags, 1, &p, &ahead);
	w->cur_line = line;
	if (ahead)
		return 0;
	if (h->nfree == RTE_DIM(h->free))
		wk_hold_release(w);
	wk_hold_taken(w);
	return 1;
}

/* The sequence moved on: take every held frame it reached. */
static void
hold_retry(struct hgw_worker *w)
{
	while (w->hold.n != 0 && w->hold.seq[0] <= wk_hold_next_seq(w))
		if (!hold_take(w, 0))
			break;
	wk_hold_recovery_next(w);
}

/* Nothing will fill the gap: the worker halts, saying why, and takes the
 * oldest held frame as a gap, and whatever follows it. The halt takes
 * effect at the gap, on every replica alike: the messages before it that
 * the batch holds (a full buffer gives up in the middle of a burst) are
 * applied and evaluated first. */
void
wk_hold_give_up(struct hgw_worker *w, enum hgw_halt why)
{
	if (w->hold.n == 0)
		return;
	wk_flush(w);
	wk_hold_gave_up(w, why);
	wk_halt(w, why, w->hold.session[0], wk_hold_next_seq(w));
	hold_take(w, HGW_FEED_TAKE_GAP);
	hold_retry(w);
	if (w->hold.n != 0)
		w->hold.since = rte_rdtsc();	/* a later gap: its own wait */
}

/* A frame past a gap: held, unless the other line's copy already is (a
 * full buffer first gives up on the oldest gap, which may make this
 * frame next: then it is taken). */
static __rte_noinline void
hold_frame(struct hgw_worker *w, struct rte_mbuf *m,
	   const struct hgw_feed_pkt *p)
{
	int gave_up = 0;

	if (wk_hold_copy(w, m, p))
		return;
	if (w->hold.n == w->hold.max) {
		w->hold.full++;
		wk_hold_give_up(w, HGW_HALT_HOLD_FULL);
		gave_up = 1;
	}
	wk_hold_put(w, m, p);
	if (gave_up)
		hold_retry(w);
}

uint32_t
wk_frame_hold(struct hgw_worker *w, struct rte_mbuf *m, int *held)
{
	struct hgw_feed_pkt p;
	int ahead = 0;
	uint32_t r = take_frame(w, m, 0, 1, &p, &ahead);

	if (unlikely(ahead)) {
		hold_frame(w, m, &p);
		*held = 1;
	} else if (w->hold.n != 0) {
		hold_retry(w);
	}
	return r;
}

/* The order path's mode, fixed at start-up: each combination is
 * flush_batch_mode compiled with these constants (wk_flush_pick), so an
 * order tests none of them. */
#define WM_HANDOFF 1u   /* tx-lcore mode: the sender is of the ring kind */
#define WM_DEDUP   2u   /* claim mode: only the first copy is sent */
#define WM_STAGE   4u   /* one trigger in stage_every timed per stage */
/* both: claim mode on the venue's own TCP, the claim the worker's and
 * its account the TX lcore's (send_dlg) */
#define WM_DLG     (WM_HANDOFF | WM_DEDUP)
#if HGW_TEST_HOOKS
#define WM_HOOKS   8u   /* a test or benchmark hook is on (wk_hooks_on) */
#else
#define WM_HOOKS   0u   /* none compiled in: no path tests for them */
#endif

/* No order mbuf to be had. A worker must never leave one trigger out of
 * the middle of its stream: a later trigger it sends could then move the
 * dedup mark past the one it skipped and lose it for every worker
 * (hgw_dedup.h). So: in tx-lcore mode wait (the TX lcore frees mbufs as
 * it sends and drops); otherwise reclaim what its TX queue is done with
 * (each order went to tx_burst as it was built), and if that still gives
 * nothing, go passive: keep every replica's accounting, send nothing
 * more, and let the other workers carry the stream. */
static __rte_noinline struct rte_mbuf *
order_mbuf_wait(struct hgw_worker *w)
{
	struct rte_mbuf *m;

	while ((m = rte_pktmbuf_alloc(w->tx_pool)) == NULL) {
		w->out.tx.pool_waits++;
		rte_pause();
	}
	return m;
}

/* Claim mode on the venue's TCP: the worker's segments wait in its own
 * TX queue until the port is done with them; take them back there. */
static __rte_noinline struct rte_mbuf *
dlg_mbuf_wait(struct hgw_worker *w)
{
	struct rte_mbuf *m;

	while ((m = rte_pktmbuf_alloc(w->tx_pool)) == NULL) {
		rte_eth_tx_done_cleanup(w->dlg_tx.port, w->dlg_tx.txq, 0);
		w->out.tx.pool_waits++;
		rte_pause();
	}
	return m;
}

static __rte_noinline struct rte_mbuf *
order_mbuf_reclaim(struct hgw_worker *w)
{
	struct rte_mbuf *m;

	rte_eth_tx_done_cleanup(w->out.port, w->out.queue, 0);
	m = rte_pktmbuf_alloc(w->tx_pool);
	if (m == NULL) {
		w->out.tx.pool_empty++;
		w->passive = 1;
	}
	return m;
}

/* The mbuf the next order goes into, taken before the dedup claim (a
 * worker claims only what it can send); kept for the next trigger when
 * the race is lost. NULL: passive. */
static __rte_always_inline struct rte_mbuf *
order_mbuf(struct hgw_worker *w, const unsigned int mode)
{
	if (likely(w->spare != NULL))
		return w->spare;
	w->spare = rte_pktmbuf_alloc(w->tx_pool);
	if (unlikely(w->spare == NULL))
		w->spare = mode & WM_HANDOFF ? order_mbuf_wait(w) :
					       order_mbuf_reclaim(w);
	return w->spare;
}

/* The order frame of a decision, into m. */
static __rte_always_inline void
order_fill(struct hgw_worker *w, struct rte_mbuf *m,
	   const struct hgw_decision *d, uint64_t seq, uint16_t session)
{
	struct hgw_ouch_order o;
	const char *name;

	o.user_ref_num = hgw_order_user_ref(seq);
	o.side = d->side;
	o.quantity = d->quantity;
	name = hgw_book_name(w->book, d->locate);
	memcpy(o.symbol, name != NULL ? name : "        ", sizeof(o.symbol));
	o.price = d->price;
	o.tif = d->tif;
	o.display = d->display;
	o.capacity = w->capacity;
	o.intermarket_sweep = 'N';
	o.cross_type = 'N';
	hgw_order_clordid(w->feed.sessions[session].name, seq, o.clordid);
	hgw_order_frame(&w->udp, &o,
			(uint8_t *)rte_pktmbuf_append(m, HGW_ORDER_FRAME_LEN));
}

/* Build the order of a decision into m and send it at once (or hand it
 * to the TX lcore): it does not wait for the rest of its frame, whose
 * messages may each take a table read first. One tx_burst an order:
 * orders are a few percent of triggers. Measured (order_latency.sh,
 * rx burst 1, 6 runs interleaved): p50 685-723 -> 525-563 ns. */
static __rte_always_inline void
build_order(struct hgw_worker *w, struct rte_mbuf *m,
	    const struct hgw_decision *d, uint64_t seq, uint16_t session,
	    const unsigned int mode)
{
	order_fill(w, m, d, seq, session);
	if (mode & WM_HANDOFF) {
		struct hgw_handoff h = {
			.m = m, .seq = seq, .rx_tsc = w->rx_tsc,
			.key = w->feed.sessions[session].key,
		};

		sender_hand(&w->out, &h);
	} else {
		w->out.rx_tsc[w->out.n] = w->rx_tsc;
		w->out.m[w->out.n++] = m;
		sender_flush(&w->out);
	}
}

#if HGW_TEST_HOOKS
/* --claims (benchmarks): when this worker reached the order of trigger i,
 * from the frame's arrival (or deadline), and whether it won the claim.
 * A preallocated array; what does not fit is counted, not recorded. */
static __rte_noinline void
claim_note(struct hgw_worker *w, uint32_t i, int won)
{
	struct hgw_hooks *k = &w->hooks;

	if (k->nclaims == k->claims_max) {
		k->claims_dropped++;
		return;
	}
	k->claims[k->nclaims++] = (struct hgw_claim){
		.seq = w->batch[i].seq,
		.cycles = rte_rdtsc() - w->rx_tsc, .won = (uint8_t)won };
}
#endif

/* Claim mode on the venue's own TCP: the order's SoupBinTCP packet
 * (the frame's UDP payload) claimed by its UserRefNum and, if won and
 * the connection has room, sent as this worker's own segment
 * (hgw_tcp_dlg.h); every claim won is handed to the TX lcore, which
 * keeps the session's account of it (or hands it back as unsent). */
static __rte_always_inline int
send_dlg(struct hgw_worker *w, struct rte_mbuf *m, uint32_t i,
	 const struct hgw_decision *d)
{
	uint64_t seq = w->batch[i].seq;
	uint64_t key = w->feed.sessions[w->batch[i].session].key;
	uint32_t ref = hgw_order_user_ref(seq);
	struct rte_mbuf *sm = w->dlg_m;
	uint64_t r;

	if (unlikely(sm == NULL))
		sm = w->dlg_m = dlg_mbuf_wait(w);
	order_fill(w, m, d, seq, w->batch[i].session);
	if (unlikely(ref <= w->dlg_floor || ref <= w->dlg_last)) {
		/* a number the venue saw from an earlier run today, or one
		 * not above this stream's last (a later feed session starts
		 * its numbers again): never sent. Decided once by its
		 * trigger, as claim mode's UDP orders, and handed back */
		if (w->dedup != NULL &&
		    !hgw_dedup_claim_count(w->dedup, &w->races, key, seq)) {
			rte_pktmbuf_reset(m);
			return 0;
		}
		if (w->dedup == NULL)
			w->races.won++;
		r = HGW_DLG_BY_NUMBER;
	} else {
		w->dlg_last = ref;
		/* relaxed: published by the claim's CAS (acq_rel) */
		atomic_store_explicit(&w->shared.dlg_pending, ref,
				      memory_order_relaxed);
		r = hgw_tcp_dlg_send(w->dlg, &w->dlg_tx, ref,
				     rte_pktmbuf_mtod_offset(m, const uint8_t *,
							     HGW_UDP_TX_HDR_LEN),
				     HGW_SOUPBIN_HDR_LEN +
				     HGW_OUCH_ENTER_ORDER_LEN, sm);
		if (r == HGW_TCP_DLG_LOST) {
			w->races.lost++;
			rte_pktmbuf_reset(m);   /* the next order's */
			/* release: as below */
			atomic_store_explicit(&w->shared.dlg_pending, 0,
					      memory_order_release);
			return 0;
		}
		w->races.won++;
		if (r == HGW_TCP_DLG_SENT)
			w->dlg_m = NULL;
	}
	w->spare = NULL;
	struct hgw_handoff h = {
		.m = m, .seq = seq, .rx_tsc = w->rx_tsc, .key = key,
		.tx_tsc = w->dlg_tx.tx_tsc, .sent = r,
	};

	sender_hand(&w->out, &h);
	/* release: the claim is on the ring before the TX lcore can read
	 * that none is pending (its acquire) */
	atomic_store_explicit(&w->shared.dlg_pending, 0, memory_order_release);
	return 1;
}

/* A decision passed risk (which has accounted it either way, so every
 * replica keeps the same position and windows): claim, build, queue. Only
 * the first copy is sent. */
static __rte_always_inline void
send_decision(struct hgw_worker *w, uint32_t i, const struct hgw_decision *d,
	      const unsigned int mode)
{
	struct rte_mbuf *m;
	int won;

	if (unlikely(w->halt != HGW_HALT_NONE)) {
		w->halted_orders++;
		return;
	}
	m = likely(!(w->passive | w->left)) ? order_mbuf(w, mode) : NULL;
	if (unlikely(m == NULL))
		return;
	if ((mode & WM_DLG) == WM_DLG) {
		won = send_dlg(w, m, i, d);
#if HGW_TEST_HOOKS
		if ((mode & WM_HOOKS) && w->hooks.claims != NULL)
			claim_note(w, i, won);
#endif
		return;
	}
	won = !(mode & WM_DEDUP) ||
	      hgw_dedup_claim_count(w->dedup, &w->races,
				    w->feed.sessions[w->batch[i].session].key,
				    w->batch[i].seq);
#if HGW_TEST_HOOKS
	if ((mode & WM_HOOKS) && w->hooks.claims != NULL)
		claim_note(w, i, won);
#endif
	if (!won)
		return;
	w->spare = NULL;
	build_order(w, m, d, w->batch[i].seq, w->batch[i].session, mode);
}

/* Fold a decision into the running digest: its trigger, the risk
 * outcome, and every field the order is built from (the symbol comes from
 * the book, the ClOrdID and UserRefNum from the trigger). */
static inline void
digest_decision(struct hgw_worker *w, uint32_t i, const struct hgw_decision *d,
		enum hgw_risk_reject r)
{
	uint64_t x = w->digest;

	x = hgw_digest_fold(x, w->feed.sessions[w->batch[i].session].key);
	x = hgw_digest_fold(x, w->batch[i].seq);
	x = hgw_digest_fold(x, (uint64_t)r << 56 | (uint64_t)d->side << 48 |
			       (uint64_t)d->tif << 40 |
			       (uint64_t)d->display << 32 | d->locate);
	x = hgw_digest_fold(x, (uint64_t)d->price << 32 | d->quantity);
	w->digest = x;
	w->decisions++;
}

/* Risk on a decision, counted into the digest. Test-only: the
 * corrupt_at-th decision gets one more share, as a replica with a bad
 * memory or a bug would decide. */
static __rte_always_inline int
risk_pass(struct hgw_worker *w, uint32_t i, struct hgw_decision *d,
	  const unsigned int mode)
{
	enum hgw_risk_reject r;

#if HGW_TEST_HOOKS
	if ((mode & WM_HOOKS) && w->hooks.inject.corrupt_at != 0 &&
	    w->decisions + 1 == w->hooks.inject.corrupt_at) {
		d->quantity++;
		w->hooks.inject.corrupt_seq = w->batch[i].seq;
	}
#else
	RTE_SET_USED(i);
	RTE_SET_USED(mode);
#endif
	r = hgw_risk_check_order(w->risk, w->book, d,
				 hgw_itch_timestamp(w->batch[i].msg),
				 hgw_order_user_ref(w->batch[i].seq));
	digest_decision(w, i, d, r);
	if (r == HGW_RISK_PASS) {
		struct hgw_passed *pd = &w->passed[w->passed_next++ %
						  HGW_PASSED_MAX];

		pd->key = w->feed.sessions[w->batch[i].session].key;
		pd->seq = w->batch[i].seq;
		pd->qty = d->side == 'B' ? (int64_t)d->quantity :
					   -(int64_t)d->quantity;
		pd->locate = d->locate;
	}
	return r == HGW_RISK_PASS;
}

/* on_trigger with every stage stamped (one trigger in stage_every). */
static __rte_noinline void
on_trigger_stamped(struct hgw_worker *w, uint32_t i, uint16_t locate,
		   const unsigned int mode)
{
	struct hgw_decision d;
	uint64_t t1, t2, t3;
	int go, pass = 0;

	w->stage_left = w->stage_every;
	t1 = rte_rdtsc_precise();
	go = hgw_strategy_eval(&w->strategy, w->table, w->book, locate, &d);
	t2 = rte_rdtsc_precise();
	if (go)
		pass = risk_pass(w, i, &d, mode);
	t3 = rte_rdtsc_precise();
	hgw_hist_record(w->stage_book, t1 - RTE_MIN(w->rx_tsc, t1));
	hgw_hist_record(w->lookup, t2 - t1);
	if (go)
		hgw_hist_record(w->stage_risk, t3 - t2);
	if (pass)
		send_decision(w, i, &d, mode);
}

/* A message changed locate's book: strategy, risk, order. */
static __rte_always_inline void
on_trigger(struct hgw_worker *w, uint32_t i, uint16_t locate,
	   const unsigned int mode)
{
	struct hgw_decision d;

	if ((mode & WM_STAGE) && --w->stage_left == 0) {
		on_trigger_stamped(w, i, locate, mode);
		return;
	}
	hgw_risk_prefetch(w->risk, locate);
	if (!hgw_strategy_eval(&w->strategy, w->table, w->book, locate, &d))
		return;
	if (!risk_pass(w, i, &d, mode))
		return;
	send_decision(w, i, &d, mode);
}

/* Index of a session key among the sessions this worker has met, in the
 * order it met them; -1 if not met. */
static int
session_index(const struct hgw_worker *w, uint64_t key)
{
	for (uint32_t s = 0; s < w->feed.nsessions; s++)
		if (w->feed.sessions[s].key == key)
			return (int)s;
	return -1;
}

/* One venue answer, taken by every replica at the same feed position:
 * open orders and positions follow what the venue did. Folded into the
 * digest, so a replica that took it differently is found. */
static void
venue_apply(struct hgw_worker *w, const struct hgw_event *e)
{
	const struct hgw_event_venue *v = &e->venue;
	int rc = 0;

	w->venue_answers++;
	w->digest = hgw_digest_fold(w->digest, e->value);
	w->digest = hgw_digest_fold(w->digest, (uint64_t)v->type << 32 |
				    v->user_ref);
	w->digest = hgw_digest_fold(w->digest, (uint64_t)v->orig_user_ref << 32 |
				    v->qty);
	if (w->risk == NULL || !w->venue)
		return;
	switch (v->type) {
	case HGW_OUCH_EXECUTED:
		rc = hgw_risk_fill(w->risk, v->user_ref, v->qty);
		break;
	case HGW_OUCH_CANCELED:
	case HGW_OUCH_AIQ_CANCELED:
		rc = hgw_risk_reduce(w->risk, v->user_ref, v->qty);
		break;
	case HGW_OUCH_REJECTED:
		rc = hgw_risk_reduce(w->risk, v->user_ref, UINT32_MAX);
		break;
	case HGW_OUCH_ACCEPTED:
		/* the quantity the venue holds open; none when it accepted
		 * the order dead (canceled at once, no Canceled follows) */
		rc = hgw_risk_restate(w->risk, v->user_ref,
				      v->reason == 'D' ? 0 : v->qty);
		break;
	case HGW_OUCH_MODIFIED:
		rc = hgw_risk_restate(w->risk, v->user_ref, v->qty);
		break;
	case HGW_OUCH_REPLACED:
		/* replaced dead: nothing of the new order is open */
		rc = hgw_risk_replace(w->risk, v->orig_user_ref, v->user_ref,
				      v->reason == 'D' ? 0 : v->qty);
		break;
	default:
		/* System Event, Broken Trade, Cancel Pending/Reject,
		 * Restated: nothing open or filled changes (a broken trade
		 * carries no quantity; its shares stay counted, the
		 * conservative side) */
		break;
	}
	(void)rc;	/* unknown orders are counted by risk */
}

/* Take one event, on this worker's own state, before message (key,
 * seq). */
static void
event_apply(struct hgw_worker *w, const struct hgw_event *e, uint64_t key,
	    uint64_t seq)
{
	w->ev_at[e->id % HGW_EV_MAX] = (struct hgw_ev_at){ e->id, key, seq };
	w->ev_applied++;
	switch (e->type) {
	case HGW_EVENT_KILL:
		if (w->risk != NULL)
			hgw_risk_set_kill(w->risk, (int)e->arg);
		break;
	case HGW_EVENT_DISABLE:
		if (w->risk != NULL)
			hgw_risk_set_disabled(w->risk, e->symbol, (int)e->arg);
		break;
	case HGW_EVENT_LIMIT:
		if (w->risk != NULL)
			hgw_risk_set_limit(w->risk, (enum hgw_risk_limit)e->arg,
					   e->value);
		break;
	case HGW_EVENT_PATCH:
		if (w->table_rw != NULL)
			hgw_table_patch_apply(w->table_rw, e->patch);
		break;
	case HGW_EVENT_UNSENT:
		/* the kill switch recalled this decision's order before it
		 * left: every replica takes it out of its position alike */
		for (uint32_t k = 1; k <= HGW_PASSED_MAX &&
		     k <= w->passed_next; k++) {
			const struct hgw_passed *pd =
				&w->passed[(w->passed_next - k) % HGW_PASSED_MAX];

			if (pd->key == e->tkey && pd->seq == e->value) {
				/* with a venue the order is open: it closes;
				 * without, its quantity leaves the position */
				if (w->risk != NULL && w->venue)
					hgw_risk_unsend_order(w->risk,
						hgw_order_user_ref(pd->seq));
				else if (w->risk != NULL)
					hgw_risk_unsend(w->risk, pd->locate,
							pd->qty);
				w->unsent_applied++;
				break;
			}
			if (k == HGW_PASSED_MAX || k == w->passed_next)
				w->unsent_missing++;
		}
		break;
	case HGW_EVENT_VENUE:
		venue_apply(w, e);
		break;
	default:
		break;
	}
	/* release: everything taken above of the event (a patch's entries)
	 * happens-before the control plane's acquire of ev_taken, after
	 * which it may free them */
	atomic_store_explicit(&w->shared.ev_taken, e->id, memory_order_release);
}

/* Take the events off the queue that the local array has room for. */
static void
events_pull(struct hgw_worker *w)
{
	while (w->ev_n < HGW_EV_LOCAL) {
		uint32_t tail = (w->ev_head + w->ev_n) % HGW_EV_LOCAL;

		if (rte_ring_sc_dequeue_elem(w->ev_ring, &w->ev_q[tail],
					     sizeof(w->ev_q[0])) != 0)
			break;
		w->ev_n++;
	}
}

/* Before message i of the batch is evaluated: take every event due. */
static __rte_noinline void
events_due(struct hgw_worker *w, uint32_t i)
{
	while (w->ev_n != 0) {
		const struct hgw_event *e = &w->ev_q[w->ev_head];

		if (!hgw_event_due(e->key, e->seq, session_index(w, e->key),
				   w->batch[i].session, w->batch[i].seq))
			return;
		event_apply(w, e, w->feed.sessions[w->batch[i].session].key,
			    w->batch[i].seq);
		w->ev_head = (w->ev_head + 1) % HGW_EV_LOCAL;
		if (--w->ev_n == 0)
			events_pull(w);	/* more may wait on the queue */
	}
}

/* Events were announced: wait for their positions (the control plane
 * stamps them right after its membarrier, control.c), then take them
 * off the queue. A worker waits here only when it reaches a batch while
 * an event is being stamped. */
static __rte_noinline void
events_take(struct hgw_worker *w, uint32_t announced)
{
	uint32_t count = announced & ~HGW_ANNOUNCE_LEAVE;
	uint64_t t0 = 0;

	if ((announced & HGW_ANNOUNCE_LEAVE) && !w->left) {
		/* acquire: pairs with the control plane's release of the
		 * bit; leave_reason was stored before it */
		atomic_thread_fence(memory_order_acquire);
		w->left = 1;
		w->left_reason = atomic_load_explicit(&w->in.leave_reason,
						      memory_order_relaxed);
		w->left_key = w->feed.sessions[w->batch[0].session].key;
		w->left_seq = w->batch[0].seq;
	}
	/* acquire: pairs with the release of stamped after the enqueue */
	while ((int32_t)(atomic_load_explicit(&w->in.stamped,
					      memory_order_acquire) -
			 count) < 0) {
		if (t0 == 0)
			t0 = rte_rdtsc();
		rte_pause();
	}
	if (t0 != 0) {
		uint64_t d = rte_rdtsc() - t0;

		w->ev_waits++;
		if (d > w->ev_wait_max)
			w->ev_wait_max = d;
	}
	w->ev_seen = announced;
	events_pull(w);
}

/* No frame came (wk_idle): take the events whose position is the
 * message after the last one this worker evaluated (docs/design.md
 * "Control events", "On a quiet feed"). Every message up to its horizon
 * is evaluated and nothing else is, so taking them now puts them after
 * that message and before any next one, as the next batch would: the
 * same place in the feed as every other replica, whenever this worker
 * looks. Before any message only those due before all (key 0) are. */
__rte_noinline void
wk_events_idle(struct hgw_worker *w)
{
	/* relaxed: events_take's acquire orders what follows */
	uint32_t a = atomic_load_explicit(&w->in.announce,
					  memory_order_relaxed);
	/* relaxed: our own store */
	uint64_t h = atomic_load_explicit(&w->shared.horizon,
					  memory_order_relaxed);
	uint32_t s;
	uint64_t key = 0, seq = 0;
	int sidx = -1;

	if (w->nbatch != 0)
		return;
	/* leaving the race is done at a batch (events_take notes where) */
	if (a != w->ev_seen && !(a & HGW_ANNOUNCE_LEAVE))
		events_take(w, a);
	if (h != 0) {
		if (!hgw_pos_decode(h, w->feed.nsessions, &s, &seq))
			return;
		sidx = (int)s;
		key = w->feed.sessions[sidx].key;
		seq++;
	}
	while (w->ev_n != 0) {
		const struct hgw_event *e = &w->ev_q[w->ev_head];

		/* due before a message at (session sidx, seq): the next
		 * one of this session; before the first message (sidx -1)
		 * only an event before all */
		if (!hgw_event_due(e->key, e->seq, session_index(w, e->key),
				   sidx, seq))
			return;
		/* (key, seq) until the next batch notes its first message */
		event_apply(w, e, key, seq);
		if (w->ev_idle_from == 0)
			w->ev_idle_from = e->id;
		w->ev_idle_to = e->id;
		w->ev_head = (w->ev_head + 1) % HGW_EV_LOCAL;
		if (--w->ev_n == 0)
			events_pull(w);
	}
}

/* The first batch after events were taken on a quiet feed: its first
 * message is where they were taken, for every replica alike (the next
 * message may be past a gap or of a new session, which a replica that
 * took them at that message notes). Between two batches the horizon
 * does not move, so every such record holds the same (key, seq). */
static __rte_noinline void
events_idle_place(struct hgw_worker *w)
{
	uint64_t key = w->feed.sessions[w->batch[0].session].key;
	uint64_t seq = w->batch[0].seq;
	uint64_t to = w->ev_idle_to;
	uint64_t from = to - w->ev_idle_from < HGW_EV_MAX ?
			w->ev_idle_from : to - HGW_EV_MAX + 1;
	const struct hgw_ev_at *last = &w->ev_at[to % HGW_EV_MAX];

	w->ev_idle_from = 0;
	if (last->key == key && last->seq == seq)
		return;		/* the next message of the same session */
	for (uint64_t id = from; id <= to; id++) {
		struct hgw_ev_at *at = &w->ev_at[id % HGW_EV_MAX];

		if (at->id == id) {
			at->key = key;
			at->seq = seq;
		}
	}
}

/* A checkpoint: this worker's digest at (session, seq), for the control
 * plane to compare with the other replicas'. */
static __rte_noinline void
checkpoint(struct hgw_worker *w, uint32_t i)
{
	struct hgw_ckpt c = {
		.key = w->feed.sessions[w->batch[i].session].key,
		.seq = w->batch[i].seq,
		.digest = w->digest,
		.decisions = w->decisions,
	};

	hgw_ckpt_publish(&w->ckpt, &c);
}

#if HGW_TEST_HOOKS
/* Test-only: freeze here (busy, like a preempted or stalled core), then
 * draw the next stall point. */
static __rte_noinline void
inject_stall(struct hgw_worker *w)
{
	struct hgw_inject *j = &w->hooks.inject;
	uint64_t end = rte_rdtsc() + j->stall_us * (rte_get_tsc_hz() / 1000000);

	/* a stop ends it: a freeze of seconds does not hold up the run's
	 * end, and none starts after it (relaxed: a flag polled, as the
	 * loop does) */
	if (!atomic_load_explicit(&hgw_stop, memory_order_relaxed))
		j->stalls++;
	while (rte_rdtsc() < end &&
	       !atomic_load_explicit(&hgw_stop, memory_order_relaxed))
		rte_pause();
	j->countdown = 1 + (uint32_t)((hgw_xorshift64s(&j->rng) >> 32) %
				      (2ull * j->stall_every));
}

/* A stall injected after this message? (Its countdown, when on.) */
static inline int
stall_due(struct hgw_worker *w)
{
	return unlikely(w->hooks.inject.countdown != 0) &&
	       --w->hooks.inject.countdown == 0;
}
#define STALL_COUNTING(w) ((w)->hooks.inject.countdown != 0)
#else
#define stall_due(w) 0
#define inject_stall(w) do { } while (0)
#define STALL_COUNTING(w) 0
#endif

/* After a message of the batch, on the book as it then stands: a
 * trigger goes through strategy and risk at once, and its order leaves
 * then (build_order), before the rest of its frame is applied. A no-op
 * for a message that changed no book while
 * msg_quiet() holds, unless it is a checkpoint's. */
static __rte_always_inline void
after_msg(struct hgw_worker *w, uint32_t i, uint16_t locate,
	  const unsigned int mode)
{
	if (unlikely(w->ev_n != 0))
		events_due(w, i);
	if (unlikely(w->warmup_left != 0)) {
		/* a baseline join: the book fills before anything trades */
		w->warmup_left--;
		w->warmup_triggers += locate != 0 && w->table != NULL;
	} else if (locate != 0 && w->table != NULL) {
		w->halted_triggers += w->halt != HGW_HALT_NONE;
		on_trigger(w, i, locate, mode);
	}
	if (unlikely((w->batch[i].seq & w->ckpt_mask) == 0))
		checkpoint(w, i);
	if ((mode & WM_HOOKS) && stall_due(w))
		inject_stall(w);
}

/* 1 when after_msg has nothing to do for a message that changed no book
 * and is no checkpoint's: no event waiting, no warm-up or injected stall
 * counting down. */
static __rte_always_inline int
msg_quiet(const struct hgw_worker *w, const unsigned int mode)
{
	return w->ev_n == 0 && w->warmup_left == 0 &&
	       !((mode & WM_HOOKS) && STALL_COUNTING(w));
}

/* The sessions met since the last call, published for the control plane
 * before the horizon store that may name them (worker.h, met). */
static __rte_noinline void
sessions_publish(struct hgw_worker *w)
{
	_Static_assert(HGW_POS_NAME_LEN == HGW_MOLD_SESSION_LEN,
		       "a published name is a session name");
	for (; w->met_pub < w->feed.nsessions; w->met_pub++) {
		w->met[w->met_pub].key = w->feed.sessions[w->met_pub].key;
		memcpy(w->met[w->met_pub].name,
		       w->feed.sessions[w->met_pub].name, HGW_POS_NAME_LEN);
	}
}

/* Apply the batch to the book through a cursor (hgw_book_apply_until),
 * which prefetches the order slots of the messages ahead (measured 2x
 * faster than one at a time on these VMs, tests/bench) and comes back
 * here at every message after_msg must see: one that changed a book, a
 * checkpoint's, or every one while msg_quiet() does not hold. The mbufs
 * the messages point into are still held. */
static __rte_always_inline void
flush_batch_mode(struct hgw_worker *w, const unsigned int mode)
{
	uint32_t last = w->nbatch - 1, a, mark = 0;
	struct hgw_book_cursor c;

	if (w->nbatch == 0)
		return;
	if (unlikely(w->ev_idle_from != 0))
		events_idle_place(w);
	/* Announce the batch's last message, then look for events (one
	 * relaxed load when there is none). The release store and the
	 * load may be reordered by the CPU (store buffer): the control
	 * plane's membarrier between its announcement and its read of the
	 * horizons makes that harmless (control.c). Without membarrier
	 * the fence is here instead. */
	if (unlikely(w->met_pub != w->feed.nsessions))
		sessions_publish(w);
	atomic_store_explicit(&w->shared.horizon,
			      hgw_pos_word(w->batch[last].session,
					   w->batch[last].seq),
			      memory_order_release);
	if (unlikely(w->ev_fence))
		atomic_thread_fence(memory_order_seq_cst);
	else
		atomic_signal_fence(memory_order_seq_cst);	/* compiler */
	/* relaxed: events_take's acquire orders what follows */
	a = atomic_load_explicit(&w->in.announce, memory_order_relaxed);
	if (unlikely(a != w->ev_seen))
		events_take(w, a);
	hgw_book_cursor_start(w->book, &w->batch[0].msg,
			      sizeof(w->batch[0]), w->nbatch, &c);
	/* A short batch is latency-bound: the risk state of each message's
	 * instrument loads alongside the book (a hint, no decision reads
	 * it any differently). */
	if (w->nbatch <= HGW_BOOK_AHEAD && w->risk != NULL)
		for (uint32_t i = 0; i < w->nbatch; i++)
			hgw_risk_prefetch(w->risk, hgw_itch_locate(w->batch[i].msg));
	while (c.next < w->nbatch) {
		uint16_t locate;

		/* the next checkpoint's message at or after c.next */
		while (mark < w->nbatch &&
		       (mark < c.next ||
			(w->batch[mark].seq & w->ckpt_mask) != 0))
			mark++;
		c.stop = !msg_quiet(w, mode) ? c.next + 1 :
			 mark < w->nbatch ? mark + 1 : w->nbatch;
		locate = hgw_book_apply_until(w->book, &w->batch[0].msg,
					      w->nbatch, &c);
		after_msg(w, c.next - 1, locate, mode);
	}
	w->rx.book_changes += c.changes;
	if ((mode & WM_HANDOFF) && !(w->passive | w->left) &&
	    w->halt == HGW_HALT_NONE)
		/* release: every order of the batch is on the ring before
		 * the control plane can see this (control.c, recalls) */
		atomic_store_explicit(&w->shared.handed,
				      hgw_pos_word(w->batch[last].session,
						   w->batch[last].seq),
				      memory_order_release);
	w->nbatch = 0;
}

/* The batch through book, strategy, risk and the order: one order path
 * per mode, one picked at start-up. */
#define WM_PATH(m) static void flush_##m(struct hgw_worker *w) \
	{ flush_batch_mode(w, m); }
WM_PATH(0)
WM_PATH(1)
WM_PATH(2)
WM_PATH(3)
WM_PATH(4)
WM_PATH(5)
WM_PATH(6)
WM_PATH(7)
#if HGW_TEST_HOOKS
WM_PATH(8)
WM_PATH(9)
WM_PATH(10)
WM_PATH(11)
WM_PATH(12)
WM_PATH(13)
WM_PATH(14)
WM_PATH(15)
#endif
#undef WM_PATH

#if HGW_TEST_HOOKS
/* A hook that the per-message or per-order path must look at: a claim
 * record (--claims), a corrupted decision or injected stalls. */
static int
wk_hooks_on(const struct hgw_worker *w)
{
	return w->hooks.claims != NULL || w->hooks.inject.corrupt_at != 0 ||
	       w->hooks.inject.countdown != 0;
}
#else
#define wk_hooks_on(w) 0
#endif

void
wk_flush_pick(struct hgw_worker *w)
{
	static void (*const path[])(struct hgw_worker *) = {
		flush_0, flush_1, flush_2, flush_3,
		flush_4, flush_5, flush_6, flush_7,
#if HGW_TEST_HOOKS
		flush_8, flush_9, flush_10, flush_11,
		flush_12, flush_13, flush_14, flush_15,
#endif
	};

	w->flush = path[(w->out.ring != NULL ? WM_HANDOFF : 0) |
			(w->dedup != NULL || w->dlg != NULL ? WM_DEDUP : 0) |
			(w->stage_every != 0 ? WM_STAGE : 0) |
			(wk_hooks_on(w) ? WM_HOOKS : 0)];
}

/* The worker has returned: in tx-lcore mode, tell the TX lcore. */
int
wk_done(struct hgw_worker *w)
{
	/* stopped while a gap was waited on: its frames are taken with the
	 * gap (the worker halts, says why), not left unapplied and leaked */
	while (w->hold_on && w->hold.n != 0)
		wk_hold_give_up(w, w->rq.on ? HGW_HALT_NO_ANSWER :
			     HGW_HALT_BOTH_LINES);
	if (w->hold_on && w->hold.nfree != 0)
		wk_hold_release(w);
	rte_pktmbuf_free(w->spare);	/* NULL-safe */
	w->spare = NULL;
	rte_pktmbuf_free(w->dlg_m);
	w->dlg_m = NULL;
	if (w->txl != NULL)
		/* release: our last handoff enqueue happens-before the TX
		 * lcore's acquire load that sees this count */
		atomic_fetch_add_explicit(&w->txl->workers_done, 1,
					  memory_order_release);
	return 0;
}

void
hgw_worker_decisions(const struct hgw_worker *w, uint64_t *triggers,
		     uint64_t *rejects)
{
	uint64_t n = 0;

	if (w->risk != NULL)
		for (int r = 0; r < HGW_RISK_MAX; r++)
			n += hgw_risk_stats(w->risk)->rejects[r];
	*triggers = w->strategy.triggers;
	*rejects = n;
}

/* Done with a burst: each buffer this worker is the last to hold gets the
 * lines the decoder read invalidated (or demoted) and, if due, its first
 * lines poisoned, before it goes back to its pool. */
__rte_noinline void
wk_release_idio(struct hgw_worker *w, struct rte_mbuf **pkts, uint16_t n,
		const uint32_t *rd)
{
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (unlikely(m->nb_segs != 1)) {
			rte_pktmbuf_free(m);
			continue;
		}
		/* NULL: another worker still holds it (fanout) */
		m = rte_pktmbuf_prefree_seg(m);
		if (m == NULL)
			continue;
		w->idio.freed++;
		if (w->inval != HGW_IDIO_INVAL_OFF) {
			uintptr_t first;

			w->idio.lines += hgw_idio_lines(
				rte_pktmbuf_mtod(m, uintptr_t), rd[i], &first);
			hgw_idio_inval(w->cpu, w->inval,
				       rte_pktmbuf_mtod(m, const void *), rd[i]);
		}
		if (w->poison_bytes != 0 &&
		    hgw_idio_poison_due(&w->poison_ctr, w->poison_every)) {
			hgw_idio_poison(rte_pktmbuf_mtod(m, void *),
					w->poison_bytes,
					(uint32_t)(m->buf_len - m->data_off));
			w->idio.poisoned++;
		}
		rte_mempool_put(m->pool, m);
	}
}

/* Frames held in this burst (wk_frame_hold said held: NULL) are the hold
 * buffer's now: drop them from pkts/rd, keeping the order. Returns the
 * count left. */
__rte_noinline uint16_t
wk_burst_unhold(struct rte_mbuf **pkts, uint32_t *rd, uint16_t n)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++)
		if (pkts[i] != NULL) {
			pkts[k] = pkts[i];
			rd[k++] = rd[i];
		}
	return k;
}

/* Serve a pending snapshot request (telemetry): copy, then publish. */
__rte_noinline void
wk_snapshot_take(struct hgw_snap_ctl *c, struct hgw_snapshot *snap,
		 const struct hgw_feed_stats *feed, const struct hgw_sender *s,
		 uint64_t won, uint64_t lost, uint32_t req,
		 const struct hgw_worker *w)
{
	if (feed != NULL)
		snap->feed = *feed;
	if (w != NULL)
		hgw_worker_decisions(w, &snap->triggers, &snap->rejects);
	snap->tx = s->tx;
	snap->misses = s->misses;
	snap->won = won;
	snap->lost = lost;
	hgw_hist_copy(&snap->rx_to_tx, s->rx_to_tx);	/* buckets in use */
	snap->tsc = rte_rdtsc();
	c->seen = req;
	/* release: the copy above happens-before the reader's acquire */
	atomic_store_explicit(&c->done, req, memory_order_release);
}
