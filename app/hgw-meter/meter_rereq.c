/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: the MoldUDP64 re-request server (--retrans): a request
 * on RX queue q is answered on TX queue q with the capture's messages,
 * by unicast to the requester.
 */
#include "meter_int.h"

/* Answer packets of one request on their way to TX queue q. */
struct answer {
	struct rte_mbuf *b[BURST];
	uint16_t msgs[BURST];   /* messages in each */
	uint16_t n, q;
	uint64_t packets, messages;     /* sent so far */
};

/* Hand the answer's packets to TX queue q of the feed port (the one the
 * request's worker receives on). A full queue is retried for --stall-ms
 * without polling: this runs from inside the poll, and a worker that
 * asked is draining its queue. What is not sent is counted as lost. */
static void
answer_flush(struct meter *m, struct answer *a)
{
	uint16_t done = 0;
	uint64_t since = rte_rdtsc();

	if (a->q < m->copies && !m->qdead[a->q]) {
		while (done < a->n) {
			uint16_t s = rte_eth_tx_burst(m->port, a->q, a->b + done,
						      (uint16_t)(a->n - done));

			if (s != 0) {
				for (uint16_t j = done; j < done + s; j++)
					a->messages += a->msgs[j];
				done += s;
				since = rte_rdtsc();
				continue;
			}
			if (rte_rdtsc() - since > m->stall_tsc || stopped())
				break;
		}
	}
	a->packets += done;
	if (done < a->n) {
		rte_pktmbuf_free_bulk(a->b + done, (unsigned int)(a->n - done));
		m->rt_lost += a->n - done;
	}
	a->n = 0;
}

/* One MoldUDP64 packet of n messages from seq, queued for a->q. */
static void
answer_packet(struct meter *m, struct answer *a, const struct hgw_mold_addr *to,
	      const char session[HGW_MOLD_SESSION_LEN], uint64_t seq,
	      const uint8_t *const *msgs, const uint16_t *lens, uint16_t n)
{
	struct rte_mbuf *b = rte_pktmbuf_alloc(m->rt_pool);
	uint32_t len;

	if (b == NULL) {
		m->rt_lost++;
		return;
	}
	len = hgw_mold_packet_frame(rte_pktmbuf_mtod(b, uint8_t *),
				    rte_pktmbuf_tailroom(b), to, session, seq,
				    msgs, lens, n);
	if (len == 0) {         /* one message larger than the mbuf */
		rte_pktmbuf_free(b);
		m->rt_lost++;
		return;
	}
	b->data_len = (uint16_t)len;
	b->pkt_len = len;
	a->b[a->n] = b;
	a->msgs[a->n++] = n;
	if (a->n == BURST)
		answer_flush(m, a);
}

/* Answer a request that came in on RX queue q with the capture's messages
 * of [seq, seq + count), at most --retrans-max of them: what the capture
 * has of them, in packets of at most RT_PAYLOAD bytes of UDP payload, a
 * new packet after any number the capture lacks. */
static void
answer_request(struct meter *m, uint16_t q, const struct hgw_mold_addr *from,
	       const char name[HGW_MOLD_SESSION_LEN], uint64_t seq,
	       uint16_t count)
{
	const uint8_t *msgs[RT_MAX_BLOCKS];
	uint16_t lens[RT_MAX_BLOCKS];
	const struct session *s = NULL;
	struct hgw_mold_addr to;
	struct answer a = { .q = q };
	uint64_t end, have = 0, pseq = 0;
	uint32_t lo, hi, plen = HGW_MOLD_HDR_LEN;
	uint16_t n = 0;

	if (count > m->rt_max) {
		count = m->rt_max;
		m->rt_limited++;
	}
	end = seq + count < seq ? UINT64_MAX : seq + count;
	for (uint32_t i = 0; i < m->nsessions; i++)
		if (memcmp(m->sessions[i].name, name, HGW_MOLD_SESSION_LEN) == 0)
			s = &m->sessions[i];
	if (s == NULL) {
		m->rt_not_had++;
		return;
	}
	/* unicast back, from the address the request was sent to; a group
	 * address is no source MAC: then the port's own */
	memcpy(to.dst_mac, from->src_mac, 6);
	if (from->dst_mac[0] & 1)
		memcpy(to.src_mac, m->mac.addr_bytes, 6);
	else
		memcpy(to.src_mac, from->dst_mac, 6);
	to.src_ip = m->rt_ip;
	to.dst_ip = from->src_ip;
	to.src_port = m->rt_port;
	to.dst_port = from->src_port;

	/* first range that ends after seq */
	lo = 0;
	hi = s->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct range *r = &m->ranges[s->first + mid];

		if (r->seq + r->count <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t k = lo; k < s->n && m->ranges[s->first + k].seq < end; k++) {
		const struct range *r = &m->ranges[s->first + k];
		uint64_t x = RTE_MAX(seq, r->seq);
		uint64_t last = RTE_MIN(end, r->seq + r->count);

		for (; x < last; x++) {
			const uint8_t *b = m->blk[r->msg + (x - r->seq)];
			uint16_t l = hgw_be16(b);

			/* a packet numbers its messages from one sequence:
			 * a hole, or a full packet, starts the next one */
			if (n != 0 && (x != pseq + n || n == RT_MAX_BLOCKS ||
				       plen + 2u + l > RT_PAYLOAD)) {
				answer_packet(m, &a, &to, name, pseq, msgs, lens, n);
				n = 0;
				plen = HGW_MOLD_HDR_LEN;
			}
			if (n == 0)
				pseq = x;
			msgs[n] = b + 2;
			lens[n++] = l;
			plen += 2u + l;
			have++;
		}
	}
	if (n != 0)
		answer_packet(m, &a, &to, name, pseq, msgs, lens, n);
	if (a.n != 0)
		answer_flush(m, &a);
	if (have < count)
		m->rt_not_had++;
	if (a.packets != 0)
		m->rt_answered++;
	m->rt_packets += a.packets;
	m->rt_messages += a.messages;
}

/* A frame to the --retrans address: a request answered, or a bad one
 * counted. 0: not ours, for the order matcher. */
int
meter_retrans_frame(struct meter *m, uint16_t q, const uint8_t *d, uint32_t len)
{
	struct hgw_mold_addr from;
	char name[HGW_MOLD_SESSION_LEN];
	uint64_t seq;
	uint16_t count;

	if (hgw_mold_request_match(d, len, m->rt_ip, m->rt_port, &from, name,
				   &seq, &count)) {
		m->rt_requests++;
		answer_request(m, q, &from, name, seq, count);
		return 1;
	}
	if (hgw_mold_udp_to(d, len, m->rt_ip, m->rt_port)) {
		m->rt_bad++;
		return 1;
	}
	return 0;
}
