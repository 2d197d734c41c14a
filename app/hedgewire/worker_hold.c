/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the buffer of frames past a sequence gap, held until the
 * other line ([feed] lines = 2) or a retransmission ([recovery]) fills
 * it, and the re-requests that ask for one. It decides when a gap is
 * given up on; the pipeline (worker.c) takes the frames and halts. Cold:
 * only with hold_on.
 */
#include <rte_cycles.h>

#include "hgw_mold.h"
#include "worker_int.h"

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

/* The other line's copy of a frame already held? Then it joins the
 * frames freed after the batch, and 1. (A heartbeat announces the number
 * the next data packet starts at: only data packets of the same
 * messages are copies.) Either way the line delivered up to it. */
int
wk_hold_copy(struct hgw_worker *w, struct rte_mbuf *m,
	     const struct hgw_feed_pkt *p)
{
	struct hgw_hold *h = &w->hold;

	wk_hold_delivered(w, p->seq + p->left);
	for (uint32_t k = 0; p->left != 0 && k < h->n; k++)
		if (h->seq[k] == p->seq && h->left[k] == p->left &&
		    h->session[k] == p->session) {
			h->free[h->nfree++] = m;
			return 1;
		}
	return 0;
}

/* Hold a frame that lies past a gap, in sequence order (there is room).
 * The first one starts the wait (and a recovery request). */
void
wk_hold_put(struct hgw_worker *w, struct rte_mbuf *m,
	    const struct hgw_feed_pkt *p)
{
	struct hgw_hold *h = &w->hold;
	uint32_t k;

	for (k = h->n; k > 0 && h->seq[k - 1] > p->seq; k--) {
		h->m[k] = h->m[k - 1];
		h->seq[k] = h->seq[k - 1];
		h->left[k] = h->left[k - 1];
		h->session[k] = h->session[k - 1];
		h->line[k] = h->line[k - 1];
	}
	h->m[k] = m;
	h->seq[k] = p->seq;
	h->left[k] = p->left;
	h->session[k] = p->session;
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
}

/* Held frame 0 was taken: off the buffer, freed after the batch that
 * points into it (the caller made room). */
void
wk_hold_taken(struct hgw_worker *w)
{
	struct hgw_hold *h = &w->hold;

	h->taken++;
	h->free[h->nfree++] = h->m[0];
	h->n--;
	for (uint32_t j = 0; j < h->n; j++) {
		h->m[j] = h->m[j + 1];
		h->seq[j] = h->seq[j + 1];
		h->left[j] = h->left[j + 1];
		h->session[j] = h->session[j + 1];
		h->line[j] = h->line[j + 1];
	}
}

/* After the held frames the sequence reached were taken: a recovery
 * that filled the gap is over; one whose answers all came while the gap
 * goes on (the server's request limit) asks for the rest. */
void
wk_hold_recovery_next(struct hgw_worker *w)
{
	struct hgw_hold *h = &w->hold;

	if (h->n == 0 && w->rq.active) {
		w->rq.active = 0;
		hgw_feed_retrans_none(&w->feed);
		w->rq.recovered++;
	} else if (h->n != 0 && w->rq.active &&
		   wk_hold_next_seq(w) >= w->rq.asked_seq + w->rq.asked_n) {
		w->rq.tries = 0;
		w->rq.cur_timeout = w->rq.timeout_tsc;
		recovery_request(w);
	}
}

/* The oldest gap is given up on (why): counted, and no retransmission is
 * taken any more. */
void
wk_hold_gave_up(struct hgw_worker *w, enum hgw_halt why)
{
	if (why == HGW_HALT_BOTH_LINES)
		w->hold.gaps_both++;
	if (why == HGW_HALT_NO_ANSWER)
		w->rq.failed++;
	w->rq.active = 0;
	hgw_feed_retrans_none(&w->feed);
}

/* Once per poll while frames are held: is the gap to be given up on, and
 * why (HGW_HALT_NONE: not yet)? A/B: both lines delivered past it (each
 * lost it), or line B did not fill it in time; recovery: retries with
 * back-off, then give up. */
__rte_noinline enum hgw_halt
wk_hold_check(struct hgw_worker *w)
{
	struct hgw_hold *h = &w->hold;
	uint64_t now = rte_rdtsc(), next = wk_hold_next_seq(w);

	if (w->rq.on && w->halt == HGW_HALT_NONE) {
		if (now < w->rq.deadline)
			return HGW_HALT_NONE;
		if (++w->rq.tries <= w->rq.retries) {
			w->rq.cur_timeout *= 2;
			recovery_request(w);
			return HGW_HALT_NONE;
		}
		return HGW_HALT_NO_ANSWER;
	}
	/* the wait counts only once neither line has anything left to
	 * give (each polled empty since): a worker that was off its CPU
	 * for a while must not give up on what is waiting in its queues */
	if ((w->lines == 2 && h->line_end[0] > next && h->line_end[1] > next) ||
	    (now - h->since > h->wait_tsc && h->line_empty[0] > h->since &&
	     (w->lines == 1 || h->line_empty[1] > h->since)))
		/* one line: a halted worker no longer asks, and just goes on */
		return w->lines == 2 ? HGW_HALT_BOTH_LINES : HGW_HALT_GAP;
	return HGW_HALT_NONE;
}
