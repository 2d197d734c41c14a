/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: frames past a sequence gap, held until the other line
 * ([feed] lines = 2) or a retransmission ([recovery]) fills it, or given
 * up on (the worker halts, saying why). Cold: only with hold_on.
 */
#include <rte_cycles.h>

#include "hgw_mold.h"
#include "worker_int.h"

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
	/* the decoder takes answers inside this range only */
	hgw_feed_retrans_expect(&w->feed, w->hold.session[0], from, r->asked_n);
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
void
wk_hold_add(struct hgw_worker *w, struct rte_mbuf *m)
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
		wk_hold_give_up(w, HGW_HALT_HOLD_FULL);
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
		wk_hold_retry(w);
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
		wk_flush(w);
	w->cur_line = h->line[k];
	wk_decode_one(w, m, flags, &ahead);
	if (ahead)
		return 0;
	h->taken++;
	if (h->nfree == RTE_DIM(h->free)) {
		wk_flush(w);
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
void
wk_hold_retry(struct hgw_worker *w)
{
	struct hgw_hold *h = &w->hold;
	uint8_t line = w->cur_line;

	while (h->n != 0 && h->seq[0] <= hold_next_seq(w))
		if (!hold_take(w, 0, 0))
			break;
	w->cur_line = line;
	if (h->n == 0 && w->rq.active) {
		w->rq.active = 0;
		hgw_feed_retrans_none(&w->feed);
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
__rte_noinline void
wk_hold_give_up(struct hgw_worker *w, enum hgw_halt why)
{
	struct hgw_hold *h = &w->hold;

	if (h->n == 0)
		return;
	if (why == HGW_HALT_BOTH_LINES)
		h->gaps_both++;
	if (why == HGW_HALT_NO_ANSWER)
		w->rq.failed++;
	w->rq.active = 0;
	hgw_feed_retrans_none(&w->feed);
	wk_halt(w, why, h->session[0], hold_next_seq(w));
	hold_take(w, 0, HGW_FEED_TAKE_GAP);
	wk_hold_retry(w);
	if (h->n != 0)
		h->since = rte_rdtsc();	/* a later gap starts its own wait */
}

/* Once per poll while frames are held: has the gap been given up on?
 * A/B: both lines delivered past it (each lost it), or line B did not
 * fill it in time; recovery: retries with back-off, then give up. */
__rte_noinline void
wk_hold_check(struct hgw_worker *w)
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
		wk_hold_give_up(w, HGW_HALT_NO_ANSWER);
		return;
	}
	/* the wait counts only once neither line has anything left to
	 * give (each polled empty since): a worker that was off its CPU
	 * for a while must not give up on what is waiting in its queues */
	if ((w->lines == 2 && h->line_end[0] > next && h->line_end[1] > next) ||
	    (now - h->since > h->wait_tsc && h->line_empty[0] > h->since &&
	     (w->lines == 1 || h->line_empty[1] > h->since)))
		/* one line: a halted worker no longer asks, and just goes on */
		wk_hold_give_up(w, w->lines == 2 ? HGW_HALT_BOTH_LINES :
			     HGW_HALT_GAP);
}
