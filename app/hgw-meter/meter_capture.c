/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: the capture, loaded into mbufs once and indexed: each
 * packet's release time, the sessions, and the sequence numbers each
 * packet carries for the first time; --expect's orders marked.
 */
#include "meter_int.h"
#include "meter_match.h"

static pcap_t *
capture_open(const char *path, const char *what)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path,
					PCAP_TSTAMP_PRECISION_NANO, err);

	if (p == NULL)
		die("%s %s: %s", what, path, err);
	if (pcap_datalink(p) != DLT_EN10MB)
		die("%s %s: link type %s, expected Ethernet", what, path,
		    pcap_datalink_val_to_name(pcap_datalink(p)));
	return p;
}

static void *
zalloc(const char *what, size_t n, size_t size)
{
	void *p;

	if (n == 0)
		n = 1;
	p = rte_zmalloc(what, n * size, RTE_CACHE_LINE_SIZE);
	if (p == NULL)
		die("cannot allocate %zu bytes for %s (more EAL memory: -m)",
		    n * size, what);
	return p;
}

/* Load the capture into one mbuf per frame, compute each frame's release
 * time and the sequence numbers it carries for the first time (with the
 * same decoder hedgewire uses, so a duplicate or a gap means to the meter
 * what it means to hedgewire). */
void
meter_capture_load(struct meter *m, const struct opts *o)
{
	struct pcap_pkthdr *h;
	const uint8_t *d;
	struct hgw_feed f;
	struct rte_mempool *mp;
	uint64_t *ts, hz = rte_get_tsc_hz();
	uint32_t n = 0, maxlen = 0, i;
	struct range *tmp;
	uint32_t per[HGW_FEED_MAX_SESSIONS] = { 0 };
	pcap_t *p;
	int rc;

	/* pass 1: how many frames, how large */
	p = capture_open(o->pcap, "--pcap");
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		if (h->caplen > MAX_FRAME)
			die("--pcap %s: frame %u is %u bytes; at most %u", o->pcap,
			    n + 1, h->caplen, MAX_FRAME);
		if (n == UINT32_MAX - 1)
			die("--pcap %s: too many frames", o->pcap);
		n++;
		maxlen = RTE_MAX(maxlen, h->caplen);
	}
	if (rc == PCAP_ERROR)
		die("--pcap %s: %s", o->pcap, pcap_geterr(p));
	pcap_close(p);
	if (n == 0)
		die("--pcap %s: no frames", o->pcap);

	m->npkts = n;
	m->pkts = zalloc("packets", n, sizeof(*m->pkts));
	m->off = zalloc("release times", n, sizeof(*m->off));
	m->sent_tsc = zalloc("send times", n, sizeof(*m->sent_tsc));
	ts = zalloc("timestamps", n, sizeof(*ts));
	tmp = zalloc("ranges", n, sizeof(*tmp));
	m->ranges = zalloc("ranges", n, sizeof(*m->ranges));
	mp = rte_pktmbuf_pool_create("hgw_meter_pcap", n, 0, 0,
				     (uint16_t)(RTE_PKTMBUF_HEADROOM + maxlen),
				     rte_eth_dev_socket_id(o->port));
	if (mp == NULL)
		die("cannot create a pool of %u mbufs for the capture: %s (more "
		    "EAL memory: -m)", n, rte_strerror(rte_errno));
	if (rte_pktmbuf_alloc_bulk(mp, m->pkts, n) != 0)
		die("cannot take %u mbufs for the capture", n);

	/* pass 2: the bytes, the times and the triggers */
	hgw_feed_init(&f, &o->feed);
	p = capture_open(o->pcap, "--pcap");
	for (i = 0; i < n && pcap_next_ex(p, &h, &d) == 1; i++) {
		struct hgw_feed_pkt fp;
		char *dst = rte_pktmbuf_append(m->pkts[i], (uint16_t)h->caplen);

		if (dst == NULL)
			die("--pcap %s: frame %u does not fit an mbuf", o->pcap,
			    i + 1);
		memcpy(dst, d, h->caplen);
		if (h->caplen < h->len)
			m->capture_truncated++;
		ts[i] = (uint64_t)h->ts.tv_sec * 1000000000u +
			(uint64_t)h->ts.tv_usec;
		rc = hgw_feed_packet(&f, d, h->caplen, &fp);
		if (rc <= 0) {
			m->no_trigger++;
			if (rc < 0 && hgw_feed_reason(rc) == HGW_FEED_DROP_MOLD_DUPLICATE)
				m->dup_frames++;
			else if (rc < 0)
				m->non_feed++;
		} else {
			tmp[m->nranges++] = (struct range){ .seq = fp.seq,
				.count = (uint32_t)rc, .pkt = i,
				.session = fp.session,
				.off = (uint16_t)(fp.next - d) };
			per[fp.session]++;
			if (fp.seq + (uint64_t)rc > CLORDID_MOD)
				die("--pcap %s: frame %u: sequence numbers beyond "
				    "10^10 wrap in ClOrdID; not supported",
				    o->pcap, i + 1);
		}
	}
	pcap_close(p);
	if (i != n)
		die("--pcap %s changed while it was read", o->pcap);

	/* Ranges by session; within one, in packet order, which the decoder
	 * makes strictly increasing in sequence (it hands out only new ones). */
	m->nsessions = f.nsessions;
	for (uint32_t s = 0, at = 0; s < m->nsessions; s++) {
		memcpy(m->sessions[s].name, f.sessions[s].name,
		       HGW_MOLD_SESSION_LEN);
		m->sessions[s].first = at;
		at += per[s];
		for (uint32_t t = 0; t < s; t++)
			if (memcmp(m->sessions[t].name + 6,
				   m->sessions[s].name + 6, 4) == 0)
				die("--pcap %s: sessions '%.10s' and '%.10s' end "
				    "in the same 4 characters: ClOrdID cannot tell "
				    "them apart", o->pcap, m->sessions[t].name,
				    m->sessions[s].name);
	}
	for (uint32_t r = 0; r < m->nranges; r++) {
		struct session *s = &m->sessions[tmp[r].session];

		tmp[r].msg = m->nmsgs;
		m->nmsgs += tmp[r].count;
		m->ranges[s->first + s->n++] = tmp[r];
	}
	m->flags = zalloc("message flags", m->nmsgs, 1);
	rte_free(tmp);
	for (uint32_t k = 0; k < o->ndrops; k++)
		if (o->drops[k].b > n)
			die("--drop %u:%u-%u: the capture has %u frames",
			    o->drops[k].q, o->drops[k].a, o->drops[k].b, n);

	/* --retrans: every message the capture carries, by its block in
	 * the loaded frame (the decoder checked that every block fits) */
	if (o->retrans) {
		m->blk = zalloc("message index", m->nmsgs, sizeof(*m->blk));
		for (uint32_t r = 0; r < m->nranges; r++) {
			const struct range *g = &m->ranges[r];
			const uint8_t *b = rte_pktmbuf_mtod(m->pkts[g->pkt],
							    const uint8_t *) + g->off;

			for (uint32_t k = 0; k < g->count; k++) {
				m->blk[g->msg + k] = b;
				b += 2u + hgw_be16(b);
			}
		}
	}

	/* release times */
	for (i = 0; i < n; i++) {
		if (o->pace == PACE_TOP) {
			m->off[i] = 0;
		} else if (o->pace == PACE_RATE) {
			m->off[i] = (uint64_t)((double)i * (double)hz /
					       (double)o->pps);
		} else {
			if (i > 0 && ts[i] < ts[i - 1]) {
				m->ts_backwards++;
				ts[i] = ts[i - 1];  /* never earlier than before */
			}
			m->off[i] = (uint64_t)((double)(ts[i] - ts[0]) *
					       (double)hz / 1e9 / o->speed);
		}
	}
	rte_free(ts);
}

/* --expect: mark every expected order's trigger and keep its frame. */
void
meter_expect_load(struct meter *m, const char *path)
{
	struct pcap_pkthdr *h;
	const uint8_t *d;
	uint32_t cap = 0, frame = 0;
	pcap_t *p = capture_open(path, "--expect");
	int rc;

	m->exp = zalloc("expected orders", m->nmsgs, sizeof(*m->exp));
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		struct hgw_ouch_order o;
		enum meter_unexpected why;
		const struct range *r;
		const char *err;
		uint64_t seq, msg;

		frame++;
		if (hgw_order_decode(d, h->caplen, &o, &err) < 0)
			die("--expect %s: frame %u is not an order frame (%s)",
			    path, frame, err);
		if (hgw_order_clordid_seq(o.clordid, &seq) < 0)
			die("--expect %s: frame %u: ClOrdID '%.14s' has no "
			    "sequence number", path, frame, o.clordid);
		r = meter_trigger_find(m, &o, seq, &why);
		if (r == NULL) {
			/* can never be answered: a miss, reported as such */
			m->expected_unknown++;
			continue;
		}
		msg = r->msg + (seq - r->seq);
		if (m->flags[msg] & F_EXPECTED)
			die("--expect %s: frame %u: a second expected order for "
			    "trigger %.4s/%" PRIu64, path, frame, o.clordid, seq);
		if (m->nexp == cap) {
			uint8_t *x;

			cap = cap ? cap * 2 : 1024;
			x = rte_realloc(m->exp_frames,
					(size_t)cap * HGW_ORDER_FRAME_LEN, 0);
			if (x == NULL)
				die("cannot allocate the expected orders");
			m->exp_frames = x;
		}
		memcpy(m->exp_frames + (size_t)m->nexp * HGW_ORDER_FRAME_LEN, d,
		       HGW_ORDER_FRAME_LEN);
		m->flags[msg] |= F_EXPECTED;
		m->exp[msg] = ++m->nexp;
	}
	if (rc == PCAP_ERROR)
		die("--expect %s: %s", path, pcap_geterr(p));
	pcap_close(p);
}
