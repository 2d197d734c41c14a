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

#include "journal.h"
#include "venue.h"
#include "worker.h"
#include "hgw_table.h"

_Atomic uint32_t hgw_stop;

#define MAX_BURST 512
/* Frames prefetched ahead of the one being decoded. */
#define PREFETCH_AHEAD 2

/* Decode one frame, appending its new messages to the burst's batch.
 * Returns how many bytes of the frame the decoder read (for invalidation:
 * every block's length was walked, so all of the MoldUDP64 payload). */
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
static __rte_noinline void
halt(struct hgw_worker *w, enum hgw_halt why, uint16_t session, uint64_t seq)
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

/* Decode one frame, appending its new messages to the burst's batch.
 * Returns how many bytes of the frame the decoder read (for invalidation:
 * every block's length was walked, so all of the MoldUDP64 payload).
 * *ahead = 1: the frame lies past a gap and was not taken (hold_on). */
static inline uint32_t
decode_one(struct hgw_worker *w, struct rte_mbuf *m, uint32_t flags,
	   int *ahead)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	struct hgw_feed_pkt p;
	const uint8_t *msg;
	uint16_t len;
	int rc;

	if (unlikely(m->nb_segs != 1)) {
		w->rx.multiseg++;
		return 0;
	}
	rc = hgw_feed_packet_ck(&w->feed, frame, rte_pktmbuf_data_len(m),
				rx_checksums(m) | flags, &p);
	if (unlikely(rc < 0)) {
		enum hgw_feed_drop d = hgw_feed_reason(rc);

		if (rc == HGW_FEED_AHEAD) {
			*ahead = 1;
			w->hold.line_end[w->cur_line & 1] = RTE_MAX(
				w->hold.line_end[w->cur_line & 1],
				p.seq + p.left);
			w->hold_session = p.session;
			w->hold_seq = p.seq;
			w->hold_left = p.left;
		} else if (d == HGW_FEED_DROP_IP_CHECKSUM ||
			   d == HGW_FEED_DROP_UDP_CHECKSUM) {
			/* the frame is lost; with a second line or a
			 * re-request server the gap it leaves may still be
			 * filled (and halts the worker if not) */
			if (!w->hold_on)
				halt(w, HGW_HALT_CHECKSUM, UINT16_MAX, 0);
		}
		return rte_pktmbuf_data_len(m);	/* refused: assume all read */
	}
	if (unlikely(p.gap))
		halt(w, HGW_HALT_GAP, p.session, p.seq);
	if (unlikely(p.join))
		w->warmup_left = w->warmup_messages;
	if (unlikely(w->hold_on))
		w->hold.line_end[w->cur_line & 1] = RTE_MAX(
			w->hold.line_end[w->cur_line & 1], p.seq + p.left);
	uint32_t first = w->nbatch;

	while ((msg = hgw_feed_next(&w->feed, &p, &len)) != NULL) {
		w->batch[w->nbatch] = msg;
		w->batch_seq[w->nbatch] = p.seq - 1;	/* p.seq is the next one */
		w->batch_session[w->nbatch] = p.session;
		w->batch_last[w->nbatch] = 0;
		w->nbatch++;
	}
	if (w->nbatch != first)
		w->batch_last[w->nbatch - 1] = 1;
	if (unlikely(p.end)) {
		uint32_t ended = 1;

		for (uint32_t i = 0; i < w->feed.nsessions; i++)
			ended &= w->feed.sessions[i].ended;
		atomic_store_explicit(&w->shared.at_end, ended,
				      memory_order_relaxed);
	}
	return (uint32_t)(p.next - frame);
}

static void flush_batch(struct hgw_worker *w);
static void hold_add(struct hgw_worker *w, struct rte_mbuf *m);
static void hold_give_up(struct hgw_worker *w, enum hgw_halt why);
static void hold_retry(struct hgw_worker *w);

/* Decode a frame of the burst; a frame past a gap is held (w->held_now:
 * the caller must not free it) when A/B lines or recovery may fill the
 * gap; a frame that moved the sequence on may let held ones through. */
static inline uint32_t
decode_frame(struct hgw_worker *w, struct rte_mbuf *m)
{
	int ahead = 0;
	uint32_t r = decode_one(w, m, 0, &ahead);

	if (unlikely(ahead)) {
		hold_add(w, m);
		w->held_now = 1;
	} else if (unlikely(w->hold_on) && w->hold.n != 0) {
		hold_retry(w);
	}
	return r;
}

/* Hand the queued orders to tx_burst. The TX timestamp is taken just
 * before it, and nothing else stands between the orders and the wire
 * but one reference more on each mbuf when journalling (a store to a
 * line the order's append wrote, since the driver frees what it sends
 * and the journal copies the frame after tx_burst: with that reference
 * the mbuf is not back in the pool before it is copied; so no queue of
 * an order port may use MBUF_FAST_FREE). After tx_burst: the journal
 * records and the latency histogram. Orders the driver refused are
 * dropped and counted (they were not sent), never journalled. */
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
	if (s->journal != NULL) {
		s->tx.journal_full += hgw_journal_put(s->journal, s->m, sent,
						      now);
		/* the journal's reference; the refused ones: both */
		for (uint16_t i = sent; i < n; i++)
			rte_mbuf_refcnt_set(s->m[i], 1);
		rte_pktmbuf_free_bulk(s->m, n);
	} else if (unlikely(sent < n)) {
		rte_pktmbuf_free_bulk(s->m + sent, n - sent);
	}
	s->tx.orders += sent;
	s->tx.tx_full += n - sent;
	for (uint16_t i = 0; i < n; i++) {
		uint64_t lat = now - s->rx_tsc[i];

		hgw_hist_record(&s->rx_to_tx, lat);
		s->misses += lat > s->miss_tsc;
	}
	s->n = 0;
}

/* tx-lcore mode: hand the queued orders to the TX lcore, all of them and
 * in order. A full ring is waited out, never skipped: dropping one order
 * from the middle of a worker's stream could lose that trigger (see
 * hgw_dedup.h). The TX lcore outlives every worker, so the wait ends. */
static inline void
handoff_flush(struct hgw_worker *w)
{
	struct hgw_sender *s = &w->out;
	struct hgw_handoff h[HGW_WORKER_TXQ];
	uint32_t n = s->n, done = 0;

	for (uint32_t i = 0; i < n; i++) {
		h[i].m = s->m[i];
		h[i].seq = w->tx_seq[i];
		h[i].rx_tsc = s->rx_tsc[i];
		h[i].key = w->feed.sessions[w->tx_session[i]].key;
	}
	for (;;) {
		done += rte_ring_sp_enqueue_burst_elem(w->handoff, h + done,
						       sizeof(h[0]), n - done,
						       NULL);
		if (likely(done == n))
			break;
		w->handoff_retries++;
		rte_pause();
	}
	s->tx.orders += n;
	s->n = 0;
}

static inline void
flush_tx(struct hgw_worker *w)
{
	if (w->handoff != NULL)
		handoff_flush(w);
	else
		sender_flush(&w->out);
}

/* No order mbuf to be had. A worker must never leave one trigger out of
 * the middle of its stream: a later trigger it sends could then move the
 * dedup mark past the one it skipped and lose it for every worker
 * (hgw_dedup.h). So: in tx-lcore mode wait (the TX lcore frees mbufs as
 * it sends and drops); otherwise push out what this worker has queued
 * and reclaim what its TX queue is done with, and if that still gives
 * nothing, go passive: keep every replica's accounting, send nothing
 * more, and let the other workers carry the stream. */
static __rte_noinline struct rte_mbuf *
order_mbuf_slow(struct hgw_worker *w)
{
	struct rte_mbuf *m;

	if (w->handoff != NULL) {
		while ((m = rte_pktmbuf_alloc(w->tx_pool)) == NULL) {
			w->out.tx.pool_waits++;
			rte_pause();
		}
		return m;
	}
	sender_flush(&w->out);
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
static inline struct rte_mbuf *
order_mbuf(struct hgw_worker *w)
{
	if (likely(w->spare != NULL))
		return w->spare;
	w->spare = rte_pktmbuf_alloc(w->tx_pool);
	if (unlikely(w->spare == NULL))
		w->spare = order_mbuf_slow(w);
	return w->spare;
}

/* Build the order of a decision into m and queue it. */
static inline void
build_order(struct hgw_worker *w, struct rte_mbuf *m,
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
	w->tx_seq[w->out.n] = seq;
	w->tx_session[w->out.n] = session;
	w->out.rx_tsc[w->out.n] = w->rx_tsc;
	w->out.m[w->out.n++] = m;
	if (unlikely(w->out.n == HGW_WORKER_TXQ))
		flush_tx(w);
}

/* --claims (benchmarks): when this worker reached the order of trigger i,
 * from the frame's arrival (or deadline), and whether it won the claim.
 * A preallocated array; what does not fit is counted, not recorded. */
static __rte_noinline void
claim_note(struct hgw_worker *w, uint32_t i, int won)
{
	if (w->nclaims == w->claims_max) {
		w->claims_dropped++;
		return;
	}
	w->claims[w->nclaims++] = (struct hgw_claim){
		.seq = w->batch_seq[i],
		.cycles = rte_rdtsc() - w->rx_tsc, .won = (uint8_t)won };
}

/* A decision passed risk (which has accounted it either way, so every
 * replica keeps the same position and windows): claim, build, queue. Only
 * the first copy is sent. */
static inline void
send_decision(struct hgw_worker *w, uint32_t i, const struct hgw_decision *d)
{
	struct rte_mbuf *m;
	int won;

	if (unlikely(w->halt != HGW_HALT_NONE)) {
		w->halted_orders++;
		return;
	}
	m = likely(!(w->passive | w->left)) ? order_mbuf(w) : NULL;
	if (unlikely(m == NULL))
		return;
	won = w->dedup == NULL ||
	      hgw_dedup_claim_count(w->dedup, &w->races,
				    w->feed.sessions[w->batch_session[i]].key,
				    w->batch_seq[i]);
	if (unlikely(w->claims != NULL))
		claim_note(w, i, won);
	if (!won)
		return;
	w->spare = NULL;
	build_order(w, m, d, w->batch_seq[i], w->batch_session[i]);
}

/* Fold a decision into the running digest: its trigger, the risk
 * outcome, and every field the order is built from (the symbol comes from
 * the book, the ClOrdID and UserRefNum from the trigger). */
static inline void
digest_decision(struct hgw_worker *w, uint32_t i, const struct hgw_decision *d,
		enum hgw_risk_reject r)
{
	uint64_t x = w->digest;

	x = hgw_digest_fold(x, w->feed.sessions[w->batch_session[i]].key);
	x = hgw_digest_fold(x, w->batch_seq[i]);
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
static inline int
risk_pass(struct hgw_worker *w, uint32_t i, struct hgw_decision *d)
{
	enum hgw_risk_reject r;

	if (unlikely(w->inject.corrupt_at != 0) &&
	    w->decisions + 1 == w->inject.corrupt_at) {
		d->quantity++;
		w->inject.corrupt_seq = w->batch_seq[i];
	}
	r = hgw_risk_check_order(w->risk, w->book, d,
				 hgw_itch_timestamp(w->batch[i]),
				 hgw_order_user_ref(w->batch_seq[i]));
	digest_decision(w, i, d, r);
	if (r == HGW_RISK_PASS) {
		struct hgw_passed *pd = &w->passed[w->passed_next++ %
						  HGW_PASSED_MAX];

		pd->key = w->feed.sessions[w->batch_session[i]].key;
		pd->seq = w->batch_seq[i];
		pd->qty = d->side == 'B' ? (int64_t)d->quantity :
					   -(int64_t)d->quantity;
		pd->locate = d->locate;
	}
	return r == HGW_RISK_PASS;
}

/* on_trigger with every stage stamped (one trigger in stage_every). */
static __rte_noinline void
on_trigger_stamped(struct hgw_worker *w, uint32_t i, uint16_t locate)
{
	struct hgw_decision d;
	uint64_t t1, t2, t3;
	int go, pass = 0;

	w->stage_left = w->stage_every;
	t1 = rte_rdtsc_precise();
	go = hgw_strategy_eval(&w->strategy, w->table, w->book, locate, &d);
	t2 = rte_rdtsc_precise();
	if (go)
		pass = risk_pass(w, i, &d);
	t3 = rte_rdtsc_precise();
	hgw_hist_record(&w->stage_book, t1 - RTE_MIN(w->rx_tsc, t1));
	hgw_hist_record(&w->lookup, t2 - t1);
	if (go)
		hgw_hist_record(&w->stage_risk, t3 - t2);
	if (pass)
		send_decision(w, i, &d);
}

/* A message changed locate's book: strategy, risk, order. */
static inline void
on_trigger(struct hgw_worker *w, uint32_t i, uint16_t locate)
{
	struct hgw_decision d;

	if (unlikely(w->stage_every != 0) && --w->stage_left == 0) {
		on_trigger_stamped(w, i, locate);
		return;
	}
	if (!hgw_strategy_eval(&w->strategy, w->table, w->book, locate, &d))
		return;
	if (!risk_pass(w, i, &d))
		return;
	send_decision(w, i, &d);
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

/* Take one event, on this worker's own state. */
static void
event_apply(struct hgw_worker *w, const struct hgw_event *e, uint32_t i)
{
	uint64_t key = w->feed.sessions[w->batch_session[i]].key;

	w->ev_at[e->id % HGW_EV_MAX] = (struct hgw_ev_at){ e->id, key,
							   w->batch_seq[i] };
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
				   w->batch_session[i], w->batch_seq[i]))
			return;
		event_apply(w, e, i);
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
		w->left_key = w->feed.sessions[w->batch_session[0]].key;
		w->left_seq = w->batch_seq[0];
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

/* A checkpoint: this worker's digest at (session, seq), for the control
 * plane to compare with the other replicas'. */
static __rte_noinline void
checkpoint(struct hgw_worker *w, uint32_t i)
{
	struct hgw_ckpt c = {
		.key = w->feed.sessions[w->batch_session[i]].key,
		.seq = w->batch_seq[i],
		.digest = w->digest,
		.decisions = w->decisions,
	};

	hgw_ckpt_publish(&w->ckpt, &c);
}

/* Test-only: freeze here (busy, like a preempted or stalled core), then
 * draw the next stall point. */
static __rte_noinline void
inject_stall(struct hgw_worker *w)
{
	struct hgw_inject *j = &w->inject;

	rte_delay_us_block(j->stall_us);
	j->stalls++;
	j->rng = j->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	j->countdown = 1 + (uint32_t)((j->rng >> 33) % (2ull * j->stall_every));
}

/* After a message of the batch, on the book as it then stands: a
 * trigger goes through strategy and risk at once, and a frame's orders
 * leave before the next frame is applied (only the cheap decode ran
 * ahead of them). A no-op for a message that changed no book while
 * msg_quiet() holds, unless it is a checkpoint's. */
static inline void
after_msg(struct hgw_worker *w, uint32_t i, uint16_t locate)
{
	if (unlikely(w->ev_n != 0))
		events_due(w, i);
	if (unlikely(w->warmup_left != 0)) {
		/* a baseline join: the book fills before anything trades */
		w->warmup_left--;
		w->warmup_triggers += locate != 0 && w->table != NULL;
	} else if (locate != 0 && w->table != NULL) {
		w->halted_triggers += w->halt != HGW_HALT_NONE;
		on_trigger(w, i, locate);
	}
	if (unlikely((w->batch_seq[i] & w->ckpt_mask) == 0))
		checkpoint(w, i);
	if (w->batch_last[i])
		flush_tx(w);
	if (unlikely(w->inject.countdown != 0) && --w->inject.countdown == 0)
		inject_stall(w);
}

/* 1 when after_msg has nothing to do for a message that changed no book
 * and is no checkpoint's: no event waiting, no warm-up or injected stall
 * counting down, and no order queued (flush_tx would send nothing). */
static inline int
msg_quiet(const struct hgw_worker *w)
{
	return w->ev_n == 0 && w->warmup_left == 0 &&
	       w->inject.countdown == 0 && w->out.n == 0;
}

/* Apply the batch to the book through a cursor (hgw_book_apply_until),
 * which prefetches the order slots of the messages ahead (measured 2x
 * faster than one at a time on these VMs, tests/bench) and comes back
 * here at every message after_msg must see: one that changed a book, a
 * checkpoint's, or every one while msg_quiet() does not hold. The mbufs
 * the messages point into are still held. */
static inline void
flush_batch(struct hgw_worker *w)
{
	uint32_t last = w->nbatch - 1, a, mark = 0;
	struct hgw_book_cursor c;

	if (w->nbatch == 0)
		return;
	/* Announce the batch's last message, then look for events (one
	 * relaxed load when there is none). The release store and the
	 * load may be reordered by the CPU (store buffer): the control
	 * plane's membarrier between its announcement and its read of the
	 * horizons makes that harmless (control.c). Without membarrier
	 * the fence is here instead. */
	atomic_store_explicit(&w->shared.horizon,
			      (uint64_t)(w->batch_session[last] + 1) << 56 |
			      (w->batch_seq[last] & HGW_HORIZON_SEQ_MASK),
			      memory_order_release);
	if (unlikely(w->ev_fence))
		atomic_thread_fence(memory_order_seq_cst);
	else
		atomic_signal_fence(memory_order_seq_cst);	/* compiler */
	/* relaxed: events_take's acquire orders what follows */
	a = atomic_load_explicit(&w->in.announce, memory_order_relaxed);
	if (unlikely(a != w->ev_seen))
		events_take(w, a);
	hgw_book_cursor_start(w->book, w->batch, w->nbatch, &c);
	while (c.next < w->nbatch) {
		uint16_t locate;

		/* the next checkpoint's message at or after c.next */
		while (mark < w->nbatch &&
		       (mark < c.next ||
			(w->batch_seq[mark] & w->ckpt_mask) != 0))
			mark++;
		c.stop = !msg_quiet(w) ? c.next + 1 :
			 mark < w->nbatch ? mark + 1 : w->nbatch;
		locate = hgw_book_apply_until(w->book, w->batch, w->nbatch, &c);
		after_msg(w, c.next - 1, locate);
	}
	w->rx.book_changes += c.changes;
	flush_tx(w);
	w->nbatch = 0;
}

/* The gap before the first held frame: where its session is now. */
static inline uint64_t
hold_next_seq(const struct hgw_worker *w)
{
	return w->feed.sessions[w->hold.session[0]].next_seq;
}

/* Ask the re-request server for the missing messages (at most
 * max_messages of them): one frame on this worker's TX queue. */
static __rte_noinline void
recovery_request(struct hgw_worker *w)
{
	struct hgw_recovery *r = &w->rq;
	const struct hgw_feed_session *s = &w->feed.sessions[w->hold.session[0]];
	uint64_t from = s->next_seq, n = w->hold.seq[0] - from;
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->tx_pool);
	uint32_t len;

	r->active = 1;
	r->asked_seq = from;
	r->asked_n = RTE_MIN(n, r->max_messages);
	r->deadline = rte_rdtsc() + r->cur_timeout;
	if (m == NULL) {
		r->no_mbuf++;
		return;
	}
	len = hgw_mold_request_frame(rte_pktmbuf_mtod(m, uint8_t *),
				     rte_pktmbuf_tailroom(m), &r->addr, s->name,
				     from, (uint16_t)RTE_MIN(n, r->max_messages));
	if (len == 0 || rte_pktmbuf_append(m, (uint16_t)len) == NULL ||
	    rte_eth_tx_burst(w->out.port, w->out.queue, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		r->tx_full++;
		return;
	}
	r->requests++;
}

/* Hold a frame that lies past a gap, in sequence order. The first one
 * starts the wait (and a recovery request). A full buffer gives up on
 * the oldest gap first. */
static void
hold_add(struct hgw_worker *w, struct rte_mbuf *m)
{
	struct hgw_hold *h = &w->hold;
	uint32_t k;
	int gave_up = 0;

	/* (a heartbeat announces the number the next data packet starts
	 * at: only data packets of the same messages are copies) */
	for (k = 0; w->hold_left != 0 && k < h->n; k++)
		if (h->seq[k] == w->hold_seq && h->left[k] == w->hold_left &&
		    h->session[k] == w->hold_session) {
			/* the other line's copy of a frame already held */
			h->free[h->nfree++] = m;
			return;
		}
	if (h->n == h->max) {
		h->full++;
		hold_give_up(w, HGW_HALT_HOLD_FULL);
		gave_up = 1;
	}
	for (k = h->n; k > 0 && h->seq[k - 1] > w->hold_seq; k--) {
		h->m[k] = h->m[k - 1];
		h->seq[k] = h->seq[k - 1];
		h->left[k] = h->left[k - 1];
		h->session[k] = h->session[k - 1];
		h->line[k] = h->line[k - 1];
	}
	h->m[k] = m;
	h->seq[k] = w->hold_seq;
	h->left[k] = w->hold_left;
	h->session[k] = w->hold_session;
	h->line[k] = w->cur_line;
	h->held++;
	if (h->n++ == 0) {
		h->since = rte_rdtsc();
		/* "delivered past the gap" counts from now on, in this
		 * session: what the other line did before says nothing */
		h->line_end[!(w->cur_line & 1)] = 0;
		/* a halted worker asks for nothing: it will not trade again */
		if (w->rq.on && w->halt == HGW_HALT_NONE) {
			w->rq.tries = 0;
			w->rq.cur_timeout = w->rq.timeout_tsc;
			recovery_request(w);
		}
	}
	/* giving up moved the sequence on: this frame may be next now */
	if (gave_up)
		hold_retry(w);
}

/* Take held frame k off the buffer and decode it (flags: TAKE_GAP to
 * give the gap up). 1 if it was taken, 0 if still ahead. */
static int
hold_take(struct hgw_worker *w, uint32_t k, uint32_t flags)
{
	struct hgw_hold *h = &w->hold;
	struct rte_mbuf *m = h->m[k];
	int ahead = 0;

	if (HGW_WORKER_BATCH - w->nbatch < HGW_FRAME_MAX_MSGS)
		flush_batch(w);
	w->cur_line = h->line[k];
	decode_one(w, m, flags, &ahead);
	if (ahead)
		return 0;
	h->taken++;
	if (h->nfree == RTE_DIM(h->free)) {
		flush_batch(w);
		rte_pktmbuf_free_bulk(h->free, h->nfree);
		h->nfree = 0;
	}
	h->free[h->nfree++] = m;	/* after the batch that points into it */
	h->n--;
	for (uint32_t j = k; j < h->n; j++) {
		h->m[j] = h->m[j + 1];
		h->seq[j] = h->seq[j + 1];
		h->left[j] = h->left[j + 1];
		h->session[j] = h->session[j + 1];
		h->line[j] = h->line[j + 1];
	}
	return 1;
}

/* The sequence moved on: take every held frame it reached. */
static void
hold_retry(struct hgw_worker *w)
{
	struct hgw_hold *h = &w->hold;
	uint8_t line = w->cur_line;

	while (h->n != 0 && h->seq[0] <= hold_next_seq(w))
		if (!hold_take(w, 0, 0))
			break;
	w->cur_line = line;
	if (h->n == 0 && w->rq.active) {
		w->rq.active = 0;
		w->rq.recovered++;
	} else if (h->n != 0 && w->rq.active &&
		   hold_next_seq(w) >= w->rq.asked_seq + w->rq.asked_n) {
		/* all we asked for came, and the gap goes on (the server's
		 * request limit): ask for the rest */
		w->rq.tries = 0;
		w->rq.cur_timeout = w->rq.timeout_tsc;
		recovery_request(w);
	}
}

/* Nothing will fill the gap: take the oldest held frame as a gap (the
 * worker halts, saying why) and whatever follows it. */
static __rte_noinline void
hold_give_up(struct hgw_worker *w, enum hgw_halt why)
{
	struct hgw_hold *h = &w->hold;

	if (h->n == 0)
		return;
	if (why == HGW_HALT_BOTH_LINES)
		h->gaps_both++;
	if (why == HGW_HALT_NO_ANSWER)
		w->rq.failed++;
	w->rq.active = 0;
	halt(w, why, h->session[0], hold_next_seq(w));
	hold_take(w, 0, HGW_FEED_TAKE_GAP);
	hold_retry(w);
	if (h->n != 0)
		h->since = rte_rdtsc();	/* a later gap starts its own wait */
}

/* Once per poll while frames are held: has the gap been given up on?
 * A/B: both lines delivered past it (each lost it), or line B did not
 * fill it in time; recovery: retries with back-off, then give up. */
static __rte_noinline void
hold_check(struct hgw_worker *w)
{
	struct hgw_hold *h = &w->hold;
	uint64_t now = rte_rdtsc(), next = hold_next_seq(w);

	if (w->rq.on && w->halt == HGW_HALT_NONE) {
		if (now < w->rq.deadline)
			return;
		if (++w->rq.tries <= w->rq.retries) {
			w->rq.cur_timeout *= 2;
			recovery_request(w);
			return;
		}
		hold_give_up(w, HGW_HALT_NO_ANSWER);
		return;
	}
	/* the wait counts only once neither line has anything left to
	 * give (each polled empty since): a worker that was off its CPU
	 * for a while must not give up on what is waiting in its queues */
	if ((w->lines == 2 && h->line_end[0] > next && h->line_end[1] > next) ||
	    (now - h->since > h->wait_tsc && h->line_empty[0] > h->since &&
	     (w->lines == 1 || h->line_empty[1] > h->since)))
		/* one line: a halted worker no longer asks, and just goes on */
		hold_give_up(w, w->lines == 2 ? HGW_HALT_BOTH_LINES :
			     HGW_HALT_GAP);
}

/* Burst prefetch: a packet's first two data lines (headers and the
 * first messages) into L2, ahead of the L1 prefetch window. */
static inline void
prefetch_l2(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	rte_prefetch1(d);
	rte_prefetch1(d + RTE_CACHE_LINE_SIZE);
}

/* Done with a burst: each buffer this worker is the last to hold gets the
 * lines the decoder read invalidated (or demoted) and, if due, its first
 * lines poisoned, before it goes back to its pool. */
static __rte_noinline void
release_idio(struct hgw_worker *w, struct rte_mbuf **pkts, uint16_t n,
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

/* Paced replay: each frame waits for its release deadline (the same on
 * every worker) and is processed alone, its arrival being the deadline.
 * A worker already past it goes on at once and the lateness shows in the
 * latency. The wait ends early on stop, so a stop is never held up. */
static inline void
poll_paced(struct hgw_worker *w, struct rte_mbuf **pkts, uint16_t n,
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
				prefetch_l2(pkts[j]);
			pf_hi = RTE_MAX(pf_hi, (uint16_t)(i + d + 1));
		}
		rd[i] = decode_frame(w, m);
		if (unlikely(w->held_now)) {
			w->held_now = 0;
			pkts[i] = NULL;
		}
		flush_batch(w);
	}
}

/* [rx] timestamp = nic: the burst arrived when the NIC stamped its first
 * frame (mapped to the TSC); a frame without a stamp keeps the rx_burst
 * TSC, counted. */
static inline void
nic_arrival(struct hgw_worker *w, const struct rte_mbuf *m)
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

/* Frames held in this burst (decode_frame set held_now) are the hold
 * buffer's now: drop them from pkts/rd, keeping the order. Returns the
 * count left. */
static __rte_noinline uint16_t
burst_unhold(struct rte_mbuf **pkts, uint32_t *rd, uint16_t n)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++)
		if (pkts[i] != NULL) {
			pkts[k] = pkts[i];
			rd[k++] = rd[i];
		}
	return k;
}

/* Receive and process one burst of one line; returns the number of
 * frames. */
static inline uint16_t
poll_line(struct hgw_worker *w, uint8_t line)
{
	struct rte_mbuf *pkts[MAX_BURST];
	uint32_t rd[MAX_BURST];	/* bytes of each frame the decoder read */
	uint16_t n = w->rx_ring != NULL ?
		(uint16_t)rte_ring_sc_dequeue_burst(w->rx_ring, (void **)pkts,
						    w->burst, NULL) :
		rte_eth_rx_burst(w->port, line ? w->queue_b : w->queue, pkts,
				 w->burst);
	uint16_t nfree;

	if (n == 0) {
		if (unlikely(w->hold_on) && w->hold.n != 0)
			w->hold.line_empty[line] = rte_rdtsc();
		return 0;
	}
	w->cur_line = line;
	w->rx_tsc = rte_rdtsc();
	if (w->nic != NULL)
		nic_arrival(w, pkts[0]);
	if (unlikely(w->rx.first_tsc == 0))
		w->rx.first_tsc = w->rx_tsc;
	w->rx.last_tsc = w->rx_tsc;
	w->rx.bursts++;
	w->rx.mbufs += n;
	if (w->pace != HGW_PACE_OFF) {
		poll_paced(w, pkts, n, rd);
		goto done;
	}
	uint32_t pf = w->prefetch ? hgw_idio_pf_depth(&w->pf, w->rx_tsc, n) : 0;

	for (uint16_t i = 0; i < n && i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (uint16_t i = PREFETCH_AHEAD; i < n && i < PREFETCH_AHEAD + pf; i++)
		prefetch_l2(pkts[i]);
	for (uint16_t i = 0; i < n; i++) {
		if (i + PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD],
						       void *));
		if (pf != 0 && i + PREFETCH_AHEAD + pf < n)
			prefetch_l2(pkts[i + PREFETCH_AHEAD + pf]);
		/* Room for any frame's messages, else apply what we have. */
		if (HGW_WORKER_BATCH - w->nbatch < HGW_FRAME_MAX_MSGS)
			flush_batch(w);
		rd[i] = decode_frame(w, pkts[i]);
		if (unlikely(w->held_now)) {
			w->held_now = 0;
			pkts[i] = NULL;
		}
	}
	flush_batch(w);
done:
	nfree = unlikely(w->hold_on) ? burst_unhold(pkts, rd, n) : n;
	if (w->idio_on)
		release_idio(w, pkts, nfree, rd);
	else
		rte_pktmbuf_free_bulk(pkts, nfree);
	if (unlikely(w->hold_on) && w->hold.nfree != 0) {
		/* held frames taken in this burst: the batch is applied */
		rte_pktmbuf_free_bulk(w->hold.free, w->hold.nfree);
		w->hold.nfree = 0;
	}
	/* Single writer: a plain load + store, no locked RMW. */
	atomic_store_explicit(&w->shared.frames,
			      atomic_load_explicit(&w->shared.frames,
						   memory_order_relaxed) + n,
			      memory_order_relaxed);
	return n;
}

/* One burst of each line, then a look at a gap being waited on. */
static inline uint16_t
poll_once(struct hgw_worker *w)
{
	uint16_t n = poll_line(w, 0);

	if (unlikely(w->lines == 2))
		n += poll_line(w, 1);
	if (unlikely(w->hold_on) && w->hold.n != 0) {
		hold_check(w);
		if (w->hold.nfree != 0) {
			flush_batch(w);
			rte_pktmbuf_free_bulk(w->hold.free, w->hold.nfree);
			w->hold.nfree = 0;
		}
	}
	return n;
}

/* Test-only: stop for good (at a frame boundary, so every order of the
 * frames it took has left): the worker is gone, the others carry on. */
static int
inject_stop(struct hgw_worker *w)
{
	atomic_store_explicit(&w->shared.dead, 1, memory_order_relaxed);
	return 0;
}

/* The worker has returned: in tx-lcore mode, tell the TX lcore. */
static int
worker_done(struct hgw_worker *w)
{
	/* stopped while a gap was waited on: its frames are taken with the
	 * gap (the worker halts, says why), not left unapplied and leaked */
	while (w->hold_on && w->hold.n != 0)
		hold_give_up(w, w->rq.on ? HGW_HALT_NO_ANSWER :
			     HGW_HALT_BOTH_LINES);
	if (w->hold_on && w->hold.nfree != 0) {
		flush_batch(w);
		rte_pktmbuf_free_bulk(w->hold.free, w->hold.nfree);
		w->hold.nfree = 0;
	}
	rte_pktmbuf_free(w->spare);	/* NULL-safe */
	w->spare = NULL;
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

/* Serve a pending snapshot request (telemetry): copy, then publish. */
static __rte_noinline void
snapshot_take(struct hgw_snap_ctl *c, struct hgw_snapshot *snap,
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
	hgw_hist_copy(&snap->rx_to_tx, &s->rx_to_tx);	/* buckets in use */
	snap->tsc = rte_rdtsc();
	c->seen = req;
	/* release: the copy above happens-before the reader's acquire */
	atomic_store_explicit(&c->done, req, memory_order_release);
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
		snapshot_take(c, snap, feed, s, won, lost, req, w);
	}
}

int
hgw_worker_main(void *arg)
{
	struct hgw_worker *w = arg;

	while (!atomic_load_explicit(&hgw_stop, memory_order_relaxed)) {
		poll_once(w);
		snapshot_poll(&w->snap, &w->snapshot, &w->feed.stats, &w->out,
			      w->races.won, w->races.lost, w);
		if (unlikely(w->inject.stop_after != 0) &&
		    w->rx.mbufs >= w->inject.stop_after) {
			inject_stop(w);
			return worker_done(w);
		}
	}
	/* Drain: whatever the queue already holds is processed before the
	 * worker reports, so a stop never loses a received frame. */
	if (w->rx_ring != NULL) {
		/* fanout: until the RX lcore has drained the port (acquire:
		 * its enqueues are then visible) and our ring is empty */
		for (;;) {
			uint32_t done = atomic_load_explicit(&w->fanout->done,
							     memory_order_acquire);

			if (poll_once(w) == 0 && done)
				break;
		}
		return worker_done(w);
	}
	for (uint32_t drained = 0; drained < w->drain_max;) {
		uint16_t n = poll_once(w);

		if (n == 0)
			break;
		drained += n;
	}
	return worker_done(w);
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
			f->drops[r] += n - k;
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

/* The kill switch went on: what the rings still hold was decided before
 * its position, but has not left. Take it off: the first copy of each
 * trigger moves the filter's mark (so no later copy of it goes) and is
 * handed to the control plane, which tells every replica to take it out
 * of its position; later copies are dropped as usual. */
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

				rte_pktmbuf_free(h[i].m);
				if (!hgw_dedup_filter_first(&t->filter, h[i].key,
							    h[i].seq,
							    (uint16_t)r)) {
					t->races_lost++;
					continue;
				}
				t->recalled_n++;
				if (rte_ring_sp_enqueue_elem(t->recalled, &rc,
							     sizeof(rc)) != 0)
					t->recalled_lost++;
			}
	}
}

int
hgw_txlcore_main(void *arg)
{
	struct hgw_txlcore *t = arg;

	/* acquire: pairs with each worker's release once it is done */
	while (atomic_load_explicit(&t->workers_done, memory_order_acquire) <
	       t->nrings) {
		/* relaxed: checked once a loop; the fence orders what
		 * follows after the control plane's release */
		uint32_t rc = atomic_load_explicit(&t->recall,
						   memory_order_relaxed);

		if (unlikely(rc != t->recall_seen) && t->recalled != NULL) {
			atomic_thread_fence(memory_order_acquire);
			t->recall_seen = rc;
			txlcore_recall(t);
			if (t->venue != NULL)
				hgw_venue_kill(t->venue, t);
		}
		txlcore_once(t);
		if (t->venue != NULL)
			hgw_venue_poll(t->venue, t);
		snapshot_poll(&t->snap, &t->snapshot, NULL, &t->out,
			      t->out.tx.orders, t->races_lost, NULL);
	}
	while (txlcore_once(t) != 0)
		;
	if (t->venue != NULL) {
		hgw_venue_stop(t->venue, t);
	}
	return 0;
}
