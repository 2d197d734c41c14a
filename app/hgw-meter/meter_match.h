/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: the matcher. Every order received is matched to its trigger
 * from its ClOrdID, and its wire-to-wire latency recorded; the order
 * queues are polled from the replay's loop, so this is inline there.
 */
#ifndef HGW_METER_MATCH_H
#define HGW_METER_MATCH_H

#include "meter_int.h"

/* The range of the session ClOrdID names that holds seq, or NULL; *why
 * says which lookup failed. */
static inline const struct range *
meter_trigger_find(const struct meter *m, const struct hgw_ouch_order *o,
	     uint64_t seq, enum meter_unexpected *why)
{
	const struct session *s = NULL;
	uint32_t lo, hi;

	for (uint32_t i = 0; i < m->nsessions; i++)
		if (memcmp(m->sessions[i].name + 6, o->clordid, 4) == 0)
			s = &m->sessions[i];
	if (s == NULL) {
		*why = UNEXPECTED_NO_SESSION;
		return NULL;
	}
	/* last range whose first sequence is <= seq */
	lo = 0;
	hi = s->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->ranges[s->first + mid].seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		const struct range *r = &m->ranges[s->first + lo - 1];

		if (seq - r->seq < r->count)
			return r;
	}
	*why = UNEXPECTED_NO_TRIGGER;
	return NULL;
}

/* One order frame received at rx_tsc: matched, duplicate or unexpected. */
static inline void
meter_account(struct meter *m, const uint8_t *d, uint32_t len, uint64_t rx_tsc)
{
	struct hgw_ouch_order o;
	enum meter_unexpected why;
	const struct range *r;
	const char *err;
	uint64_t seq, msg, lat;

	m->frames++;
	if (hgw_order_decode(d, len, &o, &err) < 0) {
		m->other_frames++;
		return;
	}
	m->orders++;
	if (hgw_order_clordid_seq(o.clordid, &seq) < 0) {
		m->unexpected[UNEXPECTED_BAD_CLORDID]++;
		return;
	}
	r = meter_trigger_find(m, &o, seq, &why);
	if (r == NULL) {
		m->unexpected[why]++;
		return;
	}
	if (o.user_ref_num != (uint32_t)seq) {
		m->unexpected[UNEXPECTED_BAD_USERREF]++;
		return;
	}
	if (m->sent_tsc[r->pkt] == 0) {
		m->unexpected[UNEXPECTED_NOT_SENT]++;
		return;
	}
	msg = r->msg + (seq - r->seq);
	if (m->flags[msg] & F_ANSWERED) {
		m->duplicates++;
		return;
	}
	m->flags[msg] |= F_ANSWERED;
	/* every first answer is a latency: nothing leaves the histogram */
	lat = rx_tsc - m->sent_tsc[r->pkt];
	hgw_hist_record(&m->w2w, lat);
	if (m->exp != NULL && !(m->flags[msg] & F_EXPECTED)) {
		m->unexpected[UNEXPECTED_NOT_EXPECTED]++;
		return;
	}
	m->matched++;
	if (lat > m->timeout_tsc)
		m->late++;
	if (m->exp != NULL &&
	    (len != HGW_ORDER_FRAME_LEN ||
	     memcmp(d, m->exp_frames + (size_t)(m->exp[msg] - 1) *
		    HGW_ORDER_FRAME_LEN, HGW_ORDER_FRAME_LEN) != 0))
		m->differs++;
}

/* Poll every order queue once; returns the frames received. Requests to
 * --retrans are answered; while the wire is held after the report, other
 * frames are only counted. */
static inline uint32_t
meter_poll_orders(struct meter *m)
{
	uint32_t total = 0;

	for (uint16_t q = 0; q < m->nrxq; q++) {
		struct rte_mbuf *pkts[BURST];
		uint16_t n = rte_eth_rx_burst(m->oport, q, pkts, BURST);
		uint64_t rx_tsc;

		if (n == 0)
			continue;
		rx_tsc = rte_rdtsc();
		for (uint16_t i = 0; i < n; i++) {
			const uint8_t *d = rte_pktmbuf_mtod(pkts[i],
							    const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(pkts[i]);

			if (m->rt_on && meter_retrans_frame(m, q, d, len))
				continue;
			if (unlikely(m->holding)) {
				m->hold_frames++;
				continue;
			}
			meter_account(m, d, len, rx_tsc);
		}
		rte_pktmbuf_free_bulk(pkts, n);
		total += n;
	}
	return total;
}

#endif /* HGW_METER_MATCH_H */
