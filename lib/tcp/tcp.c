/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: one TCP connection on a DPDK port (hgw_tcp.h says what it
 * does and does not do).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_tcp.h>

#include "hgw_cksum.h"
#include "hgw_soupbin.h"
#include "hgw_tcp.h"
#include "hgw_tcp_dlg.h"
#include "tcp_int.h"

/* sequence-space comparisons (RFC 9293 3.4) */
#define SEQ_LT(a, b)  ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b)  SEQ_LT(b, a)
#define SEQ_GEQ(a, b) SEQ_LEQ(b, a)

#define HDRS (sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + \
	      sizeof(struct rte_tcp_hdr))
#define OUR_MSS 1460            /* 1500-byte MTU */
#define RTO_MIN_MS 200          /* as Linux; RFC 6298 allows lower than 1 s */
#define RTO_MAX_MS 60000
#define RTO_INIT_MS 1000
#define MAX_RTO_BACKOFF 8       /* RTOs in a row before the connection fails */
#define MAX_SYN 5
#define ARP_TRIES 5
#define ARP_RETRY_MS 200
#define ARP_REFRESH_MS 30000
#define KEEPALIVE_PROBES 3
#define TX_MBUFS 2047
#define OOO_MAX 8               /* ranges held after a hole */
#define REPLY_RATE 200
#define REPLY_BURST 50

struct hgw_tcp {
	struct hgw_tcp_cfg cfg;
	struct rte_mempool *pool;
	enum hgw_tcp_state state;
	enum hgw_tcp_why why;
	struct hgw_tcp_stats st;

	/* the next hop */
	uint32_t nh_ip;
	struct rte_ether_addr nh_mac;
	bool nh_known;
	uint32_t arp_tries;
	uint64_t arp_next, arp_refresh;

	/* the connection */
	uint32_t peer_ip;
	uint16_t peer_port, our_port;
	uint16_t ip_id;
	uint8_t hdr[HDRS];              /* the header template once resolved */

	/* send (RFC 9293 names); the byte at sequence s is snd[s & mask] */
	uint8_t *snd;
	uint32_t snd_mask;
	uint32_t iss, snd_una, snd_nxt, snd_max, snd_end;
	uint32_t snd_wnd, snd_wl1, snd_wl2;
	uint8_t snd_wscale, rcv_wscale;
	bool ws_ok;
	uint32_t mss;                   /* the peer's, for our segments */
	uint32_t cwnd, ssthresh, recover;
	uint32_t dupacks;
	bool in_recovery;
	bool fin_queued, fin_acked;
	/* RTT and the retransmission timer (ticks) */
	uint64_t srtt, rttvar, rto;
	uint32_t rtt_seq;
	uint64_t rtt_ts;                /* 0: no segment being timed */
	uint64_t rto_at;                /* 0: timer off */
	uint32_t backoff;
	uint64_t persist_at;            /* zero-window probe due (0: off) */
	uint32_t persist_backoff;

	/* receive; the byte at sequence s is rcv[s & mask] */
	uint8_t *rcv;
	uint32_t rcv_mask;
	uint32_t irs, rcv_nxt, rcv_read;
	struct { uint32_t start, end; } ooo[OOO_MAX];  /* after rcv_nxt */
	uint32_t ooo_n;
	bool fin_rcvd;
	bool ack_due;
	uint32_t last_wnd;              /* the window last announced */
	uint64_t last_rx;               /* tick of the last segment */
	uint32_t ka_sent;
	uint64_t now;
	uint64_t tx_tsc;                /* TSC just before the last tx_burst */
	/* replies to frames from outside (RST, challenge ACK, ARP, ping):
	 * at most REPLY_BURST at once, REPLY_RATE a second */
	uint32_t reply_tokens;
	uint64_t reply_at;

	/* delegated sends (hgw_tcp_dlg.h; NULL: none) */
	struct hgw_tcp_dlg *dlg;
	uint32_t dlg_base;              /* the connection's first data byte */
	uint32_t dlg_seal;              /* sealed: the stream's end */
	bool dlg_sealed;
	bool dlg_hold;                  /* the user's: senders refused */
	bool dlg_started;               /* this stream's bytes may be written */
	uint32_t dlg_own;               /* our own reserved, not yet synced */
	uint64_t dlg_lim_pub, dlg_aw_pub;       /* lim, ackwin as stored */
	bool dlg_open;                  /* lim published open */
	uint16_t dlg_conn;              /* the connection's tag in done, lim */
	uint16_t dlg_ver;               /* the template's publication */
	uint32_t hdr_ver, dlg_hdr_ver;  /* template built / published */
};

static uint64_t
ms(const struct hgw_tcp *t, uint64_t m)
{
	return t->cfg.hz / 1000 * m;
}

const char *
hgw_tcp_why_name(enum hgw_tcp_why why)
{
	static const char *const n[HGW_TCP_WHY_N] = {
		[HGW_TCP_WHY_NONE] = "none",
		[HGW_TCP_WHY_NO_ARP] = "next hop did not answer ARP",
		[HGW_TCP_WHY_REFUSED] = "connection refused (RST to SYN)",
		[HGW_TCP_WHY_RESET] = "reset by the peer",
		[HGW_TCP_WHY_TIMEOUT] = "peer stopped answering",
		[HGW_TCP_WHY_NO_ROUTE] = "server off the subnet and no gateway",
	};
	return why < HGW_TCP_WHY_N ? n[why] : "?";
}

struct hgw_tcp *
hgw_tcp_create(const struct hgw_tcp_cfg *cfg)
{
	int sock = rte_eth_dev_socket_id(cfg->port);
	struct hgw_tcp *t;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (sock < 0)
		sock = (int)rte_socket_id();
	if (cfg->snd_buf < 4096 || !rte_is_power_of_2(cfg->snd_buf) ||
	    cfg->rcv_buf < 4096 || !rte_is_power_of_2(cfg->rcv_buf) ||
	    cfg->rcv_buf > (1u << 30) || cfg->hz == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = rte_zmalloc_socket("hgw_tcp", sizeof(*t), RTE_CACHE_LINE_SIZE,
			       sock);
	if (t == NULL)
		return NULL;
	t->cfg = *cfg;
	t->snd = rte_malloc_socket("hgw_tcp_snd", cfg->snd_buf,
				   RTE_CACHE_LINE_SIZE, sock);
	t->rcv = rte_malloc_socket("hgw_tcp_rcv", cfg->rcv_buf,
				   RTE_CACHE_LINE_SIZE, sock);
	snprintf(name, sizeof(name), "hgw_tcp_%u", cfg->port);
	t->pool = rte_pktmbuf_pool_create(name, TX_MBUFS, 32, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, sock);
	if (t->snd == NULL || t->rcv == NULL || t->pool == NULL) {
		hgw_tcp_free(t);
		return NULL;
	}
	t->snd_mask = cfg->snd_buf - 1;
	t->rcv_mask = cfg->rcv_buf - 1;
	t->state = HGW_TCP_CLOSED;
	t->reply_tokens = REPLY_BURST;
	while (t->rcv_wscale < 14 && (cfg->rcv_buf >> t->rcv_wscale) > 65535)
		t->rcv_wscale++;
	return t;
}

void
hgw_tcp_free(struct hgw_tcp *t)
{
	if (t == NULL)
		return;
	rte_mempool_free(t->pool);
	rte_free(t->snd);
	rte_free(t->rcv);
	rte_free(t);
}

enum hgw_tcp_state
hgw_tcp_state(const struct hgw_tcp *t)
{
	return t->state;
}

enum hgw_tcp_why
hgw_tcp_failure(const struct hgw_tcp *t)
{
	return t->why;
}

const struct hgw_tcp_stats *
hgw_tcp_stats(const struct hgw_tcp *t)
{
	return &t->st;
}

uint64_t
hgw_tcp_tx_tsc(const struct hgw_tcp *t)
{
	return t->tx_tsc;
}

uint32_t
hgw_tcp_readable(const struct hgw_tcp *t)
{
	return t->rcv_nxt - t->fin_rcvd - t->rcv_read;
}

/* May we answer a frame from outside now? Replies share the orders' TX
 * queue and mbufs: a flood must not take them (RFC 5961 7). */
static bool
reply_ok(struct hgw_tcp *t)
{
	uint64_t every = t->cfg.hz / REPLY_RATE;

	if (t->now >= t->reply_at + every) {
		uint64_t n = (t->now - t->reply_at) / every;

		t->reply_tokens = (uint32_t)RTE_MIN(t->reply_tokens + n,
						    (uint64_t)REPLY_BURST);
		t->reply_at += n * every;
	}
	if (t->reply_tokens == 0) {
		t->st.replies_limited++;
		return false;
	}
	t->reply_tokens--;
	return true;
}

/* The limit word: open, the template's publication, the connection. */
static uint64_t
dlg_lim(const struct hgw_tcp *t, bool open, uint32_t limit)
{
	return (open ? HGW_TCP_DLG_OPEN : 0) |
	       (uint64_t)(t->dlg_ver & 0x7fff) << 48 |
	       (uint64_t)t->dlg_conn << 32 | limit;
}

/* Store the limit word (with the order the caller names), and keep what
 * was stored: dlg_publish stores it again only when it moved enough. */
static void
dlg_store_lim(struct hgw_tcp *t, uint64_t l, memory_order mo)
{
	atomic_store_explicit(&t->dlg->lim, l, mo);
	t->dlg_lim_pub = l;
}

/* The senders refused at once: the connection is gone (delegated sends,
 * hgw_tcp_dlg.h). */
static void
dlg_shut(struct hgw_tcp *t)
{
	if (t->dlg == NULL || !t->dlg_open)
		return;
	/* release: as every store of the limit (dlg_publish) */
	dlg_store_lim(t, dlg_lim(t, false, 0), memory_order_release);
	t->dlg_open = false;
}

static void
fail(struct hgw_tcp *t, enum hgw_tcp_why why)
{
	dlg_shut(t);
	t->state = HGW_TCP_FAILED;
	t->why = why;
	t->st.fails[why]++;
	t->rto_at = 0;
	t->persist_at = 0;
}

/* ---- sending frames ------------------------------------------------------ */

static void
checksums(struct hgw_tcp *t, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
	  struct rte_tcp_hdr *th)
{
	hgw_tcp_cksums(m, ip, th, t->cfg.cksum_offload);
}

static int
xmit(struct hgw_tcp *t, struct rte_mbuf *m)
{
	t->tx_tsc = rte_rdtsc();
	if (rte_eth_tx_burst(t->cfg.port, t->cfg.txq, &m, 1) == 1)
		return 0;
	rte_pktmbuf_free(m);
	t->st.tx_full++;
	return -1;
}

/* The header template: Ethernet to the next hop, IPv4 and TCP to the
 * peer; a segment fills in what changes. */
static void
template_build(struct hgw_tcp *t)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)t->hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip + 1);

	memset(t->hdr, 0, sizeof(t->hdr));
	rte_ether_addr_copy(&t->nh_mac, &eh->dst_addr);
	memcpy(&eh->src_addr, t->cfg.mac, RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(t->cfg.ip);
	ip->dst_addr = rte_cpu_to_be_32(t->peer_ip);
	th->src_port = rte_cpu_to_be_16(t->our_port);
	th->dst_port = rte_cpu_to_be_16(t->peer_port);
	t->hdr_ver++;
}

static uint16_t
rcv_window(struct hgw_tcp *t)
{
	uint32_t w = t->cfg.rcv_buf - (t->rcv_nxt - t->fin_rcvd - t->rcv_read);
	uint32_t sh = t->ws_ok ? t->rcv_wscale : 0;

	w >>= sh;
	if (w > 65535)
		w = 65535;
	t->last_wnd = w << sh;
	return (uint16_t)w;
}

/* One segment of the connection: seq, flags, len bytes from the send ring
 * at seq (none for SYN/FIN-only), with the SYN's options when syn. */
static int
send_seg(struct hgw_tcp *t, uint32_t seq, uint8_t flags, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t->pool);
	uint32_t opt = (flags & RTE_TCP_SYN_FLAG) ? 8 : 0;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	uint8_t *p;

	if (m == NULL) {
		t->st.no_mbuf++;
		return -1;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(p, t->hdr, HDRS);
	ip = (struct rte_ipv4_hdr *)(p + sizeof(struct rte_ether_hdr));
	th = (struct rte_tcp_hdr *)(ip + 1);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) +
					    sizeof(*th) + opt + len));
	ip->packet_id = rte_cpu_to_be_16(t->ip_id++);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = (flags & RTE_TCP_ACK_FLAG) ?
		rte_cpu_to_be_32(t->rcv_nxt) : 0;
	th->data_off = (uint8_t)(((sizeof(*th) + opt) / 4) << 4);
	th->tcp_flags = flags;
	/* a SYN's window is never scaled (RFC 7323 2.2) */
	if (flags & RTE_TCP_SYN_FLAG) {
		uint32_t w = t->cfg.rcv_buf > 65535 ? 65535 : t->cfg.rcv_buf;

		th->rx_win = rte_cpu_to_be_16((uint16_t)w);
		p[HDRS + 0] = 2;        /* MSS */
		p[HDRS + 1] = 4;
		p[HDRS + 2] = OUR_MSS >> 8;
		p[HDRS + 3] = OUR_MSS & 0xff;
		p[HDRS + 4] = 1;        /* NOP */
		p[HDRS + 5] = 3;        /* window scale */
		p[HDRS + 6] = 3;
		p[HDRS + 7] = t->rcv_wscale;
	} else {
		th->rx_win = rte_cpu_to_be_16(rcv_window(t));
	}
	if (len != 0) {
		uint32_t off = seq & t->snd_mask;
		uint32_t first = t->cfg.snd_buf - off;

		if (first > len)
			first = len;
		memcpy(p + HDRS + opt, t->snd + off, first);
		memcpy(p + HDRS + opt + first, t->snd, len - first);
	}
	m->data_len = (uint16_t)(HDRS + opt + len);
	m->pkt_len = m->data_len;
	checksums(t, m, ip, th);
	if (xmit(t, m) != 0)
		return -1;
	t->st.tx_segs++;
	t->st.tx_bytes += len;
	/* a probe (below snd_una) carries no ACK the peer takes */
	if ((flags & RTE_TCP_ACK_FLAG) && SEQ_GEQ(seq, t->snd_una))
		t->ack_due = false;
	return 0;
}

/* A segment to a 4-tuple we hold no connection for (a RST), or an ARP or
 * ICMP answer: a frame built from nothing. */
static struct rte_mbuf *
frame_new(struct hgw_tcp *t, const struct rte_ether_addr *dst,
	  uint16_t type, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t->pool);
	struct rte_ether_hdr *eh;

	if (m == NULL) {
		t->st.no_mbuf++;
		return NULL;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(dst, &eh->dst_addr);
	memcpy(&eh->src_addr, t->cfg.mac, RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(type);
	m->data_len = (uint16_t)(sizeof(*eh) + len);
	m->pkt_len = m->data_len;
	return m;
}

static void
arp_send(struct hgw_tcp *t, uint16_t op, const struct rte_ether_addr *tha,
	 uint32_t tip, const struct rte_ether_addr *dst)
{
	struct rte_mbuf *m = frame_new(t, dst, RTE_ETHER_TYPE_ARP,
				       sizeof(struct rte_arp_hdr));
	struct rte_arp_hdr *a;

	if (m == NULL)
		return;
	a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *,
				    sizeof(struct rte_ether_hdr));
	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(&a->arp_data.arp_sha, t->cfg.mac, RTE_ETHER_ADDR_LEN);
	a->arp_data.arp_sip = rte_cpu_to_be_32(t->cfg.ip);
	rte_ether_addr_copy(tha, &a->arp_data.arp_tha);
	a->arp_data.arp_tip = rte_cpu_to_be_32(tip);
	if (xmit(t, m) == 0) {
		if (op == RTE_ARP_OP_REQUEST)
			t->st.arp_requests++;
		else
			t->st.arp_replies++;
	}
}

static void
arp_request(struct hgw_tcp *t)
{
	static const struct rte_ether_addr zero, bcast = {
		.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

	arp_send(t, RTE_ARP_OP_REQUEST, &zero, t->nh_ip, &bcast);
}

/* RST for a segment of no connection of ours (RFC 9293 3.10.7.1) */
static void
rst_for(struct hgw_tcp *t, const struct rte_ether_hdr *ieh,
	const struct rte_ipv4_hdr *iip, const struct rte_tcp_hdr *ith,
	uint32_t seglen)
{
	struct rte_mbuf *m;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;

	if ((ith->tcp_flags & RTE_TCP_RST_FLAG) || !reply_ok(t))
		return;
	m = frame_new(t, &ieh->src_addr, RTE_ETHER_TYPE_IPV4,
		      sizeof(*ip) + sizeof(*th));
	if (m == NULL)
		return;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
				     sizeof(struct rte_ether_hdr));
	th = (struct rte_tcp_hdr *)(ip + 1);
	memset(ip, 0, sizeof(*ip) + sizeof(*th));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + sizeof(*th));
	ip->packet_id = rte_cpu_to_be_16(t->ip_id++);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = iip->dst_addr;
	ip->dst_addr = iip->src_addr;
	th->src_port = ith->dst_port;
	th->dst_port = ith->src_port;
	th->data_off = 5 << 4;
	if (ith->tcp_flags & RTE_TCP_ACK_FLAG) {
		th->sent_seq = ith->recv_ack;
		th->tcp_flags = RTE_TCP_RST_FLAG;
	} else {
		th->recv_ack = rte_cpu_to_be_32(
			rte_be_to_cpu_32(ith->sent_seq) + seglen);
		th->tcp_flags = RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG;
	}
	checksums(t, m, ip, th);
	if (xmit(t, m) == 0)
		t->st.rst_sent++;
}

/* ---- the send side ------------------------------------------------------ */

static void
rto_arm(struct hgw_tcp *t)
{
	uint64_t d = t->rto << t->backoff;

	t->rto_at = t->now + (d < ms(t, RTO_MAX_MS) ? d : ms(t, RTO_MAX_MS));
}

/* Send what the windows allow, from snd_nxt (new data, or again after an
 * RTO went back to snd_una), and the FIN after the last byte. */
static void
output(struct hgw_tcp *t)
{
	if (t->state != HGW_TCP_ESTABLISHED)
		return;
	/* with senders, the FIN once every byte before the seal is in */
	bool fin = t->fin_queued && (!t->dlg_sealed ||
				     t->snd_end == t->dlg_seal);

	for (;;) {
		uint32_t wnd = t->snd_wnd < t->cwnd ? t->snd_wnd : t->cwnd;
		uint32_t flight = t->snd_nxt - t->snd_una;
		uint32_t left = t->snd_end - t->snd_nxt;
		uint32_t len;
		uint8_t fl = RTE_TCP_ACK_FLAG;

		if (SEQ_GT(t->snd_nxt, t->snd_end))
			return;                 /* the FIN is out */
		if (left == 0 && !fin)
			return;
		if (flight >= wnd) {
			if (t->snd_wnd == 0 && flight == 0 &&
			    t->persist_at == 0)
				t->persist_at = t->now + t->rto;
			return;
		}
		len = wnd - flight;
		if (len > t->mss)
			len = t->mss;
		if (len > left)
			len = left;
		if (len == left && fin)
			fl |= RTE_TCP_FIN_FLAG;
		if (len != 0)
			fl |= RTE_TCP_PSH_FLAG;
		if (send_seg(t, t->snd_nxt, fl, len) != 0)
			return;                 /* again at the next poll */
		if (t->rtt_ts == 0 && t->snd_nxt == t->snd_max) {
			t->rtt_ts = t->now;
			t->rtt_seq = t->snd_nxt + len;
		}
		if (SEQ_LT(t->snd_nxt, t->snd_max))
			t->st.rexmit_bytes += len;
		t->snd_nxt += len + !!(fl & RTE_TCP_FIN_FLAG);
		if (SEQ_GT(t->snd_nxt, t->snd_max))
			t->snd_max = t->snd_nxt;
		if (t->rto_at == 0)
			rto_arm(t);
		t->persist_at = 0;
	}
}

/* ---- delegated sends (hgw_tcp_dlg.h): the owner's side ------------------- */

#define DLG_SPIN 256            /* looks at a sender's commit (a few us) */
#define DLG_SEQ 0xffffffffull
/* the limit and the ACK word are stored again once they moved this much
 * (or the room published runs low): an older one is safe (less room; an
 * ACK and window from one earlier moment, whose right edge the receive
 * ring still holds) and a store costs every sender a cache miss */
#define DLG_PUB_STEP 4096

/* How far anybody may send: the peer's window and the congestion window
 * from the first byte not acknowledged, never past the ring. */
static uint32_t
dlg_limit(const struct hgw_tcp *t)
{
	uint32_t w = t->snd_wnd < t->cwnd ? t->snd_wnd : t->cwnd;

	if (w > t->cfg.snd_buf)
		w = t->cfg.snd_buf;
	return t->snd_una + w;
}

/* n bytes taken into the stream: the senders', less the owner's own */
static void
dlg_count(struct hgw_tcp *t, uint32_t n)
{
	uint32_t own = RTE_MIN(n, t->dlg_own);

	t->dlg_own -= own;
	t->st.dlg_bytes += n - own;
}

/* Take what the senders have put in the stream as sent: snd_end (and
 * snd_nxt, snd_max) up to the claim, once every byte below it is in the
 * ring; looks spin times at a sender between its claim and its commit. */
static void
dlg_sync(struct hgw_tcp *t, unsigned int spin)
{
	struct hgw_tcp_dlg *d = t->dlg;
	uint32_t nxt;

	if (d == NULL || t->state != HGW_TCP_ESTABLISHED)
		return;
	for (;;) {
		/* acquire: pairs with each sender's release as it counts
		 * its bytes: they are in the ring (and its claim, which came
		 * before, is seen by the load below) */
		uint64_t done = atomic_load_explicit(&d->done,
						     memory_order_acquire);
		/* relaxed: read after done. A byte is counted only after
		 * its claim, so done equal to what the claim reserved means
		 * every byte up to nxt is written */
		uint64_t c = atomic_load_explicit(&d->claim,
						  memory_order_relaxed);

		nxt = t->dlg_sealed ? t->dlg_seal : (uint32_t)c;
		/* at most the ring is outstanding: 32 bits of the count
		 * tell (the stream's offset wraps at 4 GiB) */
		if ((uint16_t)(done >> 48) == t->dlg_conn &&
		    (uint32_t)done == (uint32_t)(nxt - t->dlg_base))
			break;
		if (spin-- == 0) {
			t->st.dlg_waits++;
			return;
		}
		rte_pause();
	}
	if (!SEQ_GT(nxt, t->snd_end))
		return;
	dlg_count(t, nxt - t->snd_end);
	/* what the senders sent is sent; in a go-back-N output() sends it
	 * again from the ring with the rest */
	if (t->snd_nxt == t->snd_end)
		t->snd_nxt = nxt;
	t->snd_end = nxt;
	if (SEQ_GT(nxt, t->snd_max))
		t->snd_max = nxt;
	/* no RTT sample from them: when they left is the senders' (a
	 * sample from this poll could come out near 0) */
	if (t->rto_at == 0)
		rto_arm(t);
	t->persist_at = 0;
}

/* An ACK above snd_max while a sender is between its claim and its
 * commit: every byte the peer acknowledges was sent, and every byte sent
 * was committed first, so up to ack is taken as sent now. */
static void
dlg_acked(struct hgw_tcp *t, uint32_t ack)
{
	struct hgw_tcp_dlg *d = t->dlg;
	uint32_t nxt;

	if (d == NULL || t->state != HGW_TCP_ESTABLISHED)
		return;
	dlg_sync(t, DLG_SPIN);
	/* relaxed: a bound; the ACK itself says the bytes were written */
	nxt = t->dlg_sealed ? t->dlg_seal :
	      (uint32_t)atomic_load_explicit(&d->claim, memory_order_relaxed);
	if (!SEQ_GT(ack, t->snd_max) || SEQ_GT(ack, nxt))
		return;
	dlg_count(t, ack - t->snd_end);
	if (t->snd_nxt == t->snd_end)
		t->snd_nxt = ack;
	t->snd_end = t->snd_max = ack;
	if (t->rto_at == 0)
		rto_arm(t);
}

/* No sender is between loading the claim and writing its bytes into the
 * ring (each says so in its own word, hgw_tcp_dlg_tx.busy): after the
 * claim moved to a new stream, none can still write the old one's bytes
 * over the new one's. seq_cst: a store-load pair with the sender's (it
 * stores busy, then loads the claim; the owner moves the claim, then
 * loads busy): one of the two sees the other. */
static bool
dlg_quiet(struct hgw_tcp *t)
{
	struct hgw_tcp_dlg *d = t->dlg;

	atomic_thread_fence(memory_order_seq_cst);
	for (uint32_t i = 0; i < d->ntx; i++)
		if (atomic_load_explicit(&d->tx[i]->busy,
					 memory_order_seq_cst) != 0) {
			t->st.dlg_waits++;
			return false;
		}
	return true;
}

/* Publish what the senders need: the limit, the ACK and window, and the
 * header template when it is new (a seqlock: closed, written, opened
 * with the next publication number). Closed unless established. */
static void
dlg_publish(struct hgw_tcp *t)
{
	struct hgw_tcp_dlg *d = t->dlg;
	uint64_t h[7];
	bool open;

	if (d == NULL)
		return;
	if (t->state != HGW_TCP_ESTABLISHED || t->fin_queued ||
	    t->dlg_sealed) {
		dlg_shut(t);
		return;
	}
	if (!t->dlg_started || t->dlg_hdr_ver != t->hdr_ver) {
		/* a sender of the connection before may still be writing
		 * into the ring: the new stream starts once none is */
		if (!dlg_quiet(t))
			return;
		/* relaxed, then the fence: a sender that reads any of the
		 * words below reads the limit closed (or the next
		 * publication) after its own fence */
		dlg_store_lim(t, dlg_lim(t, false, 0), memory_order_relaxed);
		atomic_thread_fence(memory_order_release);
		memset(h, 0, sizeof(h));
		memcpy(h, t->hdr, HDRS);
		for (unsigned int i = 0; i < RTE_DIM(h); i++)
			/* relaxed: published by the release of lim below */
			atomic_store_explicit(&d->hdr[i], h[i],
					      memory_order_relaxed);
		t->dlg_ver++;
		t->dlg_hdr_ver = t->hdr_ver;
		t->dlg_started = true;
	}
	uint32_t was = t->last_wnd;
	uint16_t wf = rcv_window(t);    /* what the senders announce */

	/* a window opened by a quarter of the ring or more goes to the
	 * peer now, as hgw_tcp_recv would have it */
	if (t->last_wnd >= was + RTE_MIN(t->cfg.rcv_buf / 4,
					  (65535u << (t->ws_ok ?
						      t->rcv_wscale : 0)) / 2))
		t->ack_due = true;
	/* a zero window: the senders' claims find no room, so nothing of
	 * theirs waits; the owner probes it (a lost update would stall
	 * them until a keepalive) */
	if (t->snd_wnd == 0 && t->persist_at == 0)
		t->persist_at = t->now + t->rto;
	uint64_t aw = (uint64_t)wf << 32 | t->rcv_nxt;
	uint64_t l;
	bool fresh;

	open = !t->dlg_hold;
	l = dlg_lim(t, open, dlg_limit(t));
	/* the open bit, the template or the connection changed */
	fresh = (l ^ t->dlg_lim_pub) >> 32 != 0;
	/* (a window that shrank needs no store: the right edge published
	 * is still within the ring) */
	if (fresh || (uint32_t)aw - (uint32_t)t->dlg_aw_pub >= DLG_PUB_STEP ||
	    wf > (t->dlg_aw_pub >> 32) + (t->dlg_aw_pub >> 34) + 1) {
		/* relaxed: published by the release of lim below */
		atomic_store_explicit(&d->ackwin, aw, memory_order_relaxed);
		t->dlg_aw_pub = aw;
		fresh = true;
	}
	if (!fresh) {
		/* relaxed: a snapshot of where the senders are */
		uint32_t at = (uint32_t)atomic_load_explicit(&d->claim,
							     memory_order_relaxed);

		fresh = (uint32_t)l - (uint32_t)t->dlg_lim_pub >= DLG_PUB_STEP ||
			SEQ_LT((uint32_t)t->dlg_lim_pub, at + 4 * DLG_PUB_STEP) ||
			SEQ_LT((uint32_t)l, (uint32_t)t->dlg_lim_pub);
	}
	if (fresh) {
		/* release: the template and the ACK word above happen-before
		 * what a sender builds after its acquire of this */
		dlg_store_lim(t, l, memory_order_release);
	}
	t->dlg_open = open;
}

/* A new connection: the limit closed, done counted from zero under the
 * next tag, and the claim's next byte the connection's first (its
 * reference kept). */
static void
dlg_reset(struct hgw_tcp *t)
{
	struct hgw_tcp_dlg *d = t->dlg;
	uint64_t c;

	if (d == NULL)
		return;
	/* relaxed: both published by the claim's release below */
	dlg_store_lim(t, dlg_lim(t, false, 0), memory_order_relaxed);
	t->dlg_open = false;
	t->dlg_started = false;
	t->dlg_sealed = false;
	t->dlg_own = 0;
	t->dlg_conn++;
	t->dlg_base = t->iss + 1;
	atomic_store_explicit(&d->done, (uint64_t)t->dlg_conn << 48,
			      memory_order_relaxed);
	c = atomic_load_explicit(&d->claim, memory_order_relaxed);
	/* release: a sender that reads the new claim (acquire) then reads
	 * the limit closed (or newer) and done's new tag; a sender that
	 * read the old claim fails its CAS */
	while (!atomic_compare_exchange_weak_explicit(&d->claim, &c,
			(c & ~DLG_SEQ) | t->dlg_base, memory_order_release,
			memory_order_relaxed))
		;
}

/* The end of the stream (a FIN follows): the limit closed, and the
 * claim's next byte moved half the sequence space on, so that no
 * sender's reservation can land below it any more (a sender's CAS
 * compares the whole word; one that reads the moved word finds no room
 * and the limit closed). */
static void
dlg_seal(struct hgw_tcp *t)
{
	struct hgw_tcp_dlg *d = t->dlg;
	uint64_t c;

	if (d == NULL || t->dlg_sealed)
		return;
	/* relaxed: published by the claim's release below */
	dlg_store_lim(t, dlg_lim(t, false, 0), memory_order_relaxed);
	t->dlg_open = false;
	c = atomic_load_explicit(&d->claim, memory_order_relaxed);
	/* release: as in dlg_reset */
	while (!atomic_compare_exchange_weak_explicit(&d->claim, &c,
			(c & ~DLG_SEQ) | (uint32_t)((uint32_t)c + 0x80000000u),
			memory_order_release, memory_order_relaxed))
		;
	t->dlg_seal = (uint32_t)c;
	t->dlg_sealed = true;
}

/* The owner's own bytes (the session's login, heartbeats, cancels),
 * through the claim like a sender's, its reference kept, in segments of
 * at most the MSS within the limit: the bytes taken. */
static long
dlg_own_send(struct hgw_tcp *t, const uint8_t *p, size_t n)
{
	struct hgw_tcp_dlg *d = t->dlg;
	uint32_t lim;

	uint64_t c;
	uint32_t seq, off, first;

	if (t->dlg_sealed)
		return -1;
	if (!t->dlg_started)
		return 0;               /* a new stream not yet started */
	dlg_sync(t, DLG_SPIN);
	lim = dlg_limit(t);
	/* relaxed: the CAS below settles it */
	c = atomic_load_explicit(&d->claim, memory_order_relaxed);
	/* all of it or nothing (the layer above writes whole packets: a
	 * sender's packet must not land inside one of them) */
	do {
		seq = (uint32_t)c;
		if (!SEQ_GT(lim, seq) || lim - seq < n)
			return 0;
		/* relaxed: the CAS only reserves; the bytes are published
		 * by done's release below */
	} while (!atomic_compare_exchange_weak_explicit(&d->claim, &c,
			(c & ~DLG_SEQ) | (uint32_t)(seq + n),
			memory_order_relaxed, memory_order_relaxed));
	off = seq & t->snd_mask;
	first = t->cfg.snd_buf - off;
	if (first > n)
		first = (uint32_t)n;
	memcpy(t->snd + off, p, first);
	memcpy(t->snd, p + first, n - first);
	t->dlg_own += (uint32_t)n;
	/* release: the ring's bytes before their count (dlg_sync) */
	atomic_fetch_add_explicit(&d->done, n, memory_order_release);
	/* in segments of the MSS; lost on the way: the RTO or duplicate
	 * ACKs send it again */
	for (uint32_t k = 0; k < n; k += t->mss)
		send_seg(t, seq + k, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
			 RTE_MIN((uint32_t)n - k, t->mss));
	dlg_sync(t, DLG_SPIN);
	return (long)n;
}

void
hgw_tcp_dlg_hold(struct hgw_tcp *t, int hold)
{
	if (t->dlg_hold == (hold != 0))
		return;
	t->dlg_hold = hold != 0;
	dlg_publish(t);
}

void
hgw_tcp_dlg_attach(struct hgw_tcp *t, struct hgw_tcp_dlg *d, uint32_t ref0)
{
	t->dlg = d;
	d->ring = t->snd;
	d->mask = t->snd_mask;
	d->cksum_offload = t->cfg.cksum_offload;
	dlg_store_lim(t, 0, memory_order_relaxed);
	atomic_store_explicit(&d->done, 0, memory_order_relaxed);
	atomic_store_explicit(&d->ackwin, 0, memory_order_relaxed);
	/* relaxed: the senders start after this (their launch publishes) */
	atomic_store_explicit(&d->claim, (uint64_t)ref0 << 32,
			      memory_order_relaxed);
}

long
hgw_tcp_send(struct hgw_tcp *t, const void *p, size_t n)
{
	uint32_t room, off, first;

	if (t->state != HGW_TCP_ESTABLISHED || t->fin_queued)
		return -1;
	t->now = rte_rdtsc();           /* RTT and RTO from the send itself */
	if (t->dlg != NULL)
		return dlg_own_send(t, p, n);
	room = t->cfg.snd_buf - (t->snd_end - t->snd_una);
	if (n > room)
		n = room;
	if (n == 0)
		return 0;
	off = t->snd_end & t->snd_mask;
	first = t->cfg.snd_buf - off;
	if (first > n)
		first = (uint32_t)n;
	memcpy(t->snd + off, p, first);
	memcpy(t->snd, (const uint8_t *)p + first, n - first);
	t->snd_end += (uint32_t)n;
	output(t);
	return (long)n;
}

void
hgw_tcp_shutdown(struct hgw_tcp *t)
{
	if (t->state != HGW_TCP_ESTABLISHED || t->fin_queued)
		return;
	dlg_seal(t);
	dlg_sync(t, DLG_SPIN);
	t->fin_queued = true;
	dlg_publish(t);
	output(t);
}

/* ---- opening and closing ------------------------------------------------- */

static void
syn_send(struct hgw_tcp *t)
{
	template_build(t);
	t->state = HGW_TCP_SYN_SENT;
	if (send_seg(t, t->iss, RTE_TCP_SYN_FLAG, 0) == 0)
		t->snd_nxt = t->snd_max = t->iss + 1;
	rto_arm(t);
}

void
hgw_tcp_open(struct hgw_tcp *t, uint32_t ip, uint16_t port,
	     uint64_t now_tsc)
{
	hgw_tcp_close(t);
	t->now = now_tsc;
	t->st.opens++;
	t->peer_ip = ip;
	t->peer_port = port;
	t->our_port = (uint16_t)(32768 + rte_rand_max(28232));
	t->iss = (uint32_t)rte_rand();
	t->snd_una = t->snd_nxt = t->snd_max = t->snd_end = t->iss + 1;
	dlg_reset(t);
	t->snd_wnd = 0;
	t->snd_wl1 = t->snd_wl2 = 0;
	t->ws_ok = false;
	t->snd_wscale = 0;
	t->mss = 536;
	t->dupacks = 0;
	t->in_recovery = false;
	t->fin_queued = t->fin_acked = t->fin_rcvd = false;
	t->ack_due = false;
	t->irs = t->rcv_nxt = t->rcv_read = 0;
	t->ooo_n = 0;
	t->last_wnd = 0;
	t->recover = t->iss;
	t->cwnd = t->ssthresh = 0;
	t->rto = ms(t, RTO_INIT_MS);
	t->srtt = t->rttvar = 0;
	t->rtt_ts = 0;
	t->backoff = 0;
	t->persist_backoff = 0;
	t->rto_at = t->persist_at = 0;
	t->ka_sent = 0;
	t->last_rx = now_tsc;
	t->why = HGW_TCP_WHY_NONE;
	uint32_t nh = t->nh_ip;

	if ((ip & t->cfg.mask) == (t->cfg.ip & t->cfg.mask))
		t->nh_ip = ip;
	else if (t->cfg.gateway != 0)
		t->nh_ip = t->cfg.gateway;
	else {
		fail(t, HGW_TCP_WHY_NO_ROUTE);
		return;
	}
	if (t->nh_known && nh == t->nh_ip && t->arp_refresh > now_tsc) {
		syn_send(t);
		return;
	}
	t->nh_known = false;
	t->state = HGW_TCP_ARP;
	t->arp_tries = 1;
	t->arp_next = now_tsc + ms(t, ARP_RETRY_MS);
	arp_request(t);
}

uint32_t
hgw_tcp_unacked(const struct hgw_tcp *t)
{
	if (t->state != HGW_TCP_ESTABLISHED)
		return 0;
	uint32_t end = t->snd_end;

	if (t->dlg != NULL)
		/* relaxed: a snapshot of what the senders claimed */
		end = t->dlg_sealed ? t->dlg_seal :
		      (uint32_t)atomic_load_explicit(&t->dlg->claim,
						     memory_order_relaxed);
	/* our FIN acknowledged: one past the end */
	return SEQ_GT(t->snd_una, end) ? 0 : end - t->snd_una;
}

void
hgw_tcp_close(struct hgw_tcp *t)
{
	dlg_shut(t);
	dlg_seal(t);
	if (t->state == HGW_TCP_ESTABLISHED && t->fin_rcvd &&
	    t->snd_una == t->snd_end && !t->fin_queued) {
		/* the peer closed and has everything: our FIN, once (a
		 * retransmission of its FIN then gets a RST) */
		send_seg(t, t->snd_max, RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, 0);
	} else if (t->state == HGW_TCP_SYN_SENT ||
		   t->state == HGW_TCP_ESTABLISHED ||
		   (t->state == HGW_TCP_FAILED &&
		    t->why == HGW_TCP_WHY_TIMEOUT && t->irs != 0)) {
		/* let the peer know at once: nothing more will come from
		 * this connection, nor be read from it */
		if (send_seg(t, t->snd_max, RTE_TCP_RST_FLAG, 0) == 0)
			t->st.rst_sent++;
	}
	t->state = HGW_TCP_CLOSED;
	t->rto_at = t->persist_at = 0;
}

long
hgw_tcp_recv(struct hgw_tcp *t, void *p, size_t n)
{
	uint32_t have = hgw_tcp_readable(t), off, first;

	if (have == 0) {
		if (t->state == HGW_TCP_FAILED)
			return -2;
		return t->fin_rcvd ? -1 : 0;
	}
	if (n > have)
		n = have;
	off = t->rcv_read & t->rcv_mask;
	first = t->cfg.rcv_buf - off;
	if (first > n)
		first = (uint32_t)n;
	memcpy(p, t->rcv + off, first);
	memcpy((uint8_t *)p + first, t->rcv, n - first);
	t->rcv_read += (uint32_t)n;
	/* a window that opens by a quarter of the ring or more is announced
	 * now (a peer stopped at zero would otherwise wait for its probe) */
	if (t->state == HGW_TCP_ESTABLISHED) {
		uint32_t sh = t->ws_ok ? t->rcv_wscale : 0;
		uint32_t w = (t->cfg.rcv_buf -
			      (t->rcv_nxt - t->fin_rcvd - t->rcv_read)) >> sh;
		uint32_t step = RTE_MIN(t->cfg.rcv_buf / 4,
					(65535u << sh) / 2);

		w = RTE_MIN(w, 65535u) << sh;
		if (w >= t->last_wnd + step)
			t->ack_due = true;
	}
	return (long)n;
}

/* ---- receiving ----------------------------------------------------------- */

/* The MSS and window scale of a SYN-ACK. */
static void
syn_options(struct hgw_tcp *t, const uint8_t *o, uint32_t n)
{
	uint32_t i = 0;

	while (i < n) {
		uint8_t kind = o[i];

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
			break;
		if (kind == 2 && o[i + 1] == 4) {
			uint32_t v = (uint32_t)o[i + 2] << 8 | o[i + 3];

			if (v >= 64)
				t->mss = v < OUR_MSS ? v : OUR_MSS;
		} else if (kind == 3 && o[i + 1] == 3) {
			t->ws_ok = true;
			t->snd_wscale = o[i + 2] > 14 ? 14 : o[i + 2];
		}
		i += o[i + 1];
	}
}

static void
rtt_sample(struct hgw_tcp *t, uint64_t r)
{
	if (t->srtt == 0) {
		t->srtt = r;
		t->rttvar = r / 2;
	} else {
		uint64_t d = t->srtt > r ? t->srtt - r : r - t->srtt;

		t->rttvar = (3 * t->rttvar + d) / 4;
		t->srtt = (7 * t->srtt + r) / 8;
	}
	t->rto = t->srtt + (4 * t->rttvar > t->cfg.hz / 1000 ?
			    4 * t->rttvar : t->cfg.hz / 1000);
	if (t->rto < ms(t, RTO_MIN_MS))
		t->rto = ms(t, RTO_MIN_MS);
	if (t->rto > ms(t, RTO_MAX_MS))
		t->rto = ms(t, RTO_MAX_MS);
	t->st.srtt_us = t->srtt * 1000000 / t->cfg.hz;
}

/* The segment at snd_una again, now (fast retransmit). */
static void
resend_first(struct hgw_tcp *t)
{
	uint32_t len = t->snd_end - t->snd_una;
	uint8_t fl = RTE_TCP_ACK_FLAG;

	if (len > t->mss)
		len = t->mss;
	if (len == t->snd_end - t->snd_una && t->fin_queued &&
	    SEQ_GT(t->snd_max, t->snd_end))
		fl |= RTE_TCP_FIN_FLAG;
	if (len == 0 && !(fl & RTE_TCP_FIN_FLAG))
		return;
	if (len != 0)
		fl |= RTE_TCP_PSH_FLAG;
	if (send_seg(t, t->snd_una, fl, len) == 0)
		t->st.rexmit_bytes += len;
	t->rtt_ts = 0;                  /* Karn */
}

static void
ack_in(struct hgw_tcp *t, uint32_t ack, uint32_t seq, uint32_t win,
       uint32_t datalen, uint8_t flags)
{
	uint32_t wnd = win << (t->ws_ok ? t->snd_wscale : 0);
	bool wnd_changed = false;

	if (SEQ_GT(ack, t->snd_max)) {
		t->ack_due = true;      /* acks what we never sent */
		return;
	}
	/* the window, from the newest segment (RFC 9293 3.10.7.4) */
	if (SEQ_LT(t->snd_wl1, seq) ||
	    (t->snd_wl1 == seq && SEQ_LEQ(t->snd_wl2, ack))) {
		wnd_changed = wnd != t->snd_wnd;
		t->snd_wnd = wnd;
		t->snd_wl1 = seq;
		t->snd_wl2 = ack;
	}
	if (SEQ_GT(ack, t->snd_una)) {
		uint32_t acked = ack - t->snd_una;

		if (t->rtt_ts != 0 && SEQ_GEQ(ack, t->rtt_seq)) {
			rtt_sample(t, t->now - t->rtt_ts);
			t->rtt_ts = 0;
		}
		t->backoff = 0;
		t->persist_backoff = 0;
		if (SEQ_GT(ack, t->snd_end))    /* our FIN */
			t->fin_acked = true;
		t->snd_una = ack;
		if (SEQ_LT(t->snd_nxt, t->snd_una))
			t->snd_nxt = t->snd_una;
		if (t->in_recovery) {
			if (SEQ_GEQ(ack, t->recover)) {
				t->in_recovery = false;
				t->cwnd = t->ssthresh;
			} else {
				/* partial ACK: the next hole now, the window
				 * deflated by what was acknowledged (RFC 6582
				 * 3.2 step 5) */
				resend_first(t);
				t->cwnd = t->cwnd > acked ? t->cwnd - acked : 0;
				t->cwnd += t->mss;
			}
		} else if (t->cwnd < t->ssthresh) {
			t->cwnd += acked < t->mss ? acked : t->mss;
		} else {
			t->cwnd += t->mss * t->mss / t->cwnd + 1;
		}
		if (t->cwnd > 2 * t->cfg.snd_buf)
			t->cwnd = 2 * t->cfg.snd_buf;
		t->dupacks = 0;
		t->ka_sent = 0;
		t->rto_at = 0;
		if (t->snd_una != t->snd_max)
			rto_arm(t);
	} else if (ack == t->snd_una && datalen == 0 &&
		   !(flags & (RTE_TCP_SYN_FLAG | RTE_TCP_FIN_FLAG)) &&
		   !wnd_changed && t->snd_max != t->snd_una) {
		t->st.dupacks++;
		/* not after an RTO before what it sent again is all
		 * acknowledged (RFC 6582 4.1) */
		if (++t->dupacks == 3 && !t->in_recovery &&
		    SEQ_GT(ack, t->recover)) {
			uint32_t flight = t->snd_max - t->snd_una;

			t->ssthresh = flight / 2 > 2 * t->mss ? flight / 2 :
				      2 * t->mss;
			t->cwnd = t->ssthresh + 3 * t->mss;
			t->recover = t->snd_max;
			t->in_recovery = true;
			t->st.fast_rexmit++;
			resend_first(t);
		} else if (t->dupacks > 3 && t->in_recovery &&
			   t->cwnd < 2 * t->cfg.snd_buf) {
			t->cwnd += t->mss;
		}
	}
}

/* Data (and a FIN) at seq: in order into the ring; anything else is
 * answered with an ACK of what we have. */
/* Copy len bytes into the receive ring at sequence seq. */
static void
rcv_copy(struct hgw_tcp *t, uint32_t seq, const uint8_t *d, uint32_t len)
{
	uint32_t off = seq & t->rcv_mask;
	uint32_t first = t->cfg.rcv_buf - off;

	if (first > len)
		first = len;
	memcpy(t->rcv + off, d, first);
	memcpy(t->rcv, d + first, len - first);
}

/* Bytes after a hole: into the ring where they belong (inside the
 * window), their range remembered (at most OOO_MAX ranges, merged). The
 * duplicate ACK goes now, so that three of them trigger the peer's fast
 * retransmit of the hole. A FIN after a hole is left for the peer to
 * send again. */
static void
ooo_in(struct hgw_tcp *t, uint32_t seq, const uint8_t *d, uint32_t len)
{
	uint32_t room = t->cfg.rcv_buf - (t->rcv_nxt - t->rcv_read);
	uint32_t off = seq - t->rcv_nxt, end, i, j;

	t->st.rx_ooo++;
	send_seg(t, t->snd_max, RTE_TCP_ACK_FLAG, 0);
	if (off >= room || len == 0)
		return;
	if (len > room - off)
		len = room - off;
	end = seq + len;
	/* the first range that ends at or after seq */
	for (i = 0; i < t->ooo_n && SEQ_LT(t->ooo[i].end, seq); i++)
		;
	if (i < t->ooo_n && SEQ_LEQ(t->ooo[i].start, end)) {
		/* overlaps or touches ranges i..j-1: one range */
		for (j = i; j < t->ooo_n && SEQ_LEQ(t->ooo[j].start, end); j++)
			;
		if (SEQ_LT(t->ooo[i].start, seq))
			seq = t->ooo[i].start;
		if (SEQ_GT(t->ooo[j - 1].end, end))
			end = t->ooo[j - 1].end;
		memmove(&t->ooo[i + 1], &t->ooo[j],
			(t->ooo_n - j) * sizeof(t->ooo[0]));
		t->ooo_n -= j - i - 1;
	} else {
		if (t->ooo_n == OOO_MAX) {
			t->st.rx_ooo_dropped++;
			return;
		}
		memmove(&t->ooo[i + 1], &t->ooo[i],
			(t->ooo_n - i) * sizeof(t->ooo[0]));
		t->ooo_n++;
	}
	rcv_copy(t, t->rcv_nxt + off, d, len);
	t->ooo[i].start = seq;
	t->ooo[i].end = end;
}

static void
data_in(struct hgw_tcp *t, uint32_t seq, const uint8_t *d, uint32_t len,
	bool fin)
{
	uint32_t room;

	if (t->fin_rcvd) {
		if (len != 0 || fin)
			t->ack_due = true;      /* a retransmission */
		return;
	}
	if (SEQ_LT(seq, t->rcv_nxt)) {
		uint32_t skip = t->rcv_nxt - seq;

		if (skip >= len + fin) {
			if (len != 0 || fin) {
				t->st.rx_dup++;
				t->ack_due = true;
			}
			return;
		}
		if (skip >= len) {      /* only the FIN is new */
			d += len;
			len = 0;
		} else {
			d += skip;
			len -= skip;
		}
		seq = t->rcv_nxt;
	}
	if (seq != t->rcv_nxt) {
		ooo_in(t, seq, d, len);
		return;
	}
	room = t->cfg.rcv_buf - (t->rcv_nxt - t->rcv_read);
	if (len > room) {
		t->st.rx_no_room += len - room;
		len = room;
		fin = false;
	}
	if (len != 0) {
		rcv_copy(t, seq, d, len);
		t->rcv_nxt += len;
		t->st.rx_bytes += len;
		t->ack_due = true;
		/* ranges held after a hole this closed */
		while (t->ooo_n != 0 && SEQ_LEQ(t->ooo[0].start, t->rcv_nxt)) {
			if (SEQ_GT(t->ooo[0].end, t->rcv_nxt)) {
				t->st.rx_bytes += t->ooo[0].end - t->rcv_nxt;
				t->rcv_nxt = t->ooo[0].end;
				fin = false;    /* it was not the last byte */
			}
			memmove(&t->ooo[0], &t->ooo[1],
				--t->ooo_n * sizeof(t->ooo[0]));
		}
	}
	if (fin) {
		t->fin_rcvd = true;
		t->rcv_nxt++;
		t->ack_due = true;
	}
}

static void
tcp_in(struct hgw_tcp *t, const struct rte_ether_hdr *eh,
       const struct rte_ipv4_hdr *ip, const struct rte_tcp_hdr *th,
       uint32_t l4len)
{
	uint32_t thl = (uint32_t)(th->data_off >> 4) * 4;
	uint8_t fl = th->tcp_flags;
	uint32_t seq, ack, len, win;
	const uint8_t *d;

	if (thl < sizeof(*th) || thl > l4len) {
		t->st.rx_bad++;
		return;
	}
	seq = rte_be_to_cpu_32(th->sent_seq);
	ack = rte_be_to_cpu_32(th->recv_ack);
	win = rte_be_to_cpu_16(th->rx_win);
	d = (const uint8_t *)th + thl;
	len = l4len - thl;
	if ((t->state != HGW_TCP_SYN_SENT && t->state != HGW_TCP_ESTABLISHED) ||
	    rte_be_to_cpu_32(ip->src_addr) != t->peer_ip ||
	    rte_be_to_cpu_16(th->src_port) != t->peer_port ||
	    rte_be_to_cpu_16(th->dst_port) != t->our_port) {
		rst_for(t, eh, ip, th, len + !!(fl & RTE_TCP_SYN_FLAG) +
			!!(fl & RTE_TCP_FIN_FLAG));
		return;
	}
	t->last_rx = t->now;
	t->ka_sent = 0;

	if (t->state == HGW_TCP_SYN_SENT) {
		/* RFC 9293 3.10.7.3 */
		bool ack_ok = (fl & RTE_TCP_ACK_FLAG) && ack == t->iss + 1;

		if ((fl & RTE_TCP_ACK_FLAG) && !ack_ok) {
			if (!(fl & RTE_TCP_RST_FLAG))
				rst_for(t, eh, ip, th, len);
			return;
		}
		if (fl & RTE_TCP_RST_FLAG) {
			if (ack_ok) {
				t->st.rst_rcvd++;
				fail(t, HGW_TCP_WHY_REFUSED);
			}
			return;
		}
		if (!(fl & RTE_TCP_SYN_FLAG) || !ack_ok)
			return;         /* a simultaneous open is not done */
		syn_options(t, (const uint8_t *)(th + 1), thl - sizeof(*th));
		if (!t->ws_ok)
			t->snd_wscale = 0;
		t->irs = seq;
		t->rcv_nxt = t->rcv_read = seq + 1;
		t->snd_una = ack;
		if (SEQ_LT(t->snd_nxt, t->snd_una))
			t->snd_nxt = t->snd_una;
		t->snd_wnd = win;       /* a SYN's window is not scaled */
		t->snd_wl1 = seq;
		t->snd_wl2 = ack;
		t->cwnd = 10 * t->mss;  /* RFC 6928 */
		t->ssthresh = UINT32_MAX;
		/* the SYN's round trip, unless it was sent again (Karn) */
		if (t->backoff == 0)
			rtt_sample(t, t->now - (t->rto_at - t->rto));
		t->rtt_ts = 0;
		t->backoff = 0;
		t->rto_at = 0;
		t->state = HGW_TCP_ESTABLISHED;
		t->ack_due = true;      /* sent now, or again at the next poll */
		output(t);
		if (t->ack_due)
			send_seg(t, t->snd_max, RTE_TCP_ACK_FLAG, 0);
		return;
	}

	/* ESTABLISHED (and the FIN exchange). Acceptable: overlaps the
	 * window, or an empty segment at its edge (RFC 9293 3.10.7.4) */
	uint32_t rwnd = t->last_wnd;
	uint32_t slen = len + !!(fl & RTE_TCP_FIN_FLAG);
	bool ok;

	if (slen == 0)
		ok = rwnd == 0 ? seq == t->rcv_nxt :
		     SEQ_GEQ(seq, t->rcv_nxt) && SEQ_LT(seq, t->rcv_nxt + rwnd);
	else
		ok = rwnd != 0 && SEQ_LT(seq, t->rcv_nxt + rwnd) &&
		     SEQ_GT(seq + slen, t->rcv_nxt);
	if (fl & RTE_TCP_RST_FLAG) {
		/* RFC 5961 3.2: exactly at rcv_nxt resets; elsewhere in the
		 * window a challenge ACK; outside it nothing */
		if (seq == t->rcv_nxt) {
			t->st.rst_rcvd++;
			fail(t, HGW_TCP_WHY_RESET);
		} else if (SEQ_GT(seq, t->rcv_nxt) &&
			   SEQ_LT(seq, t->rcv_nxt + (rwnd ? rwnd : 1)) &&
			   reply_ok(t)) {
			t->st.challenge_acks++;
			send_seg(t, t->snd_max, RTE_TCP_ACK_FLAG, 0);
		}
		return;
	}
	if (fl & RTE_TCP_SYN_FLAG) {
		/* RFC 5961 4.2: any SYN now gets a challenge ACK */
		if (reply_ok(t)) {
			t->st.challenge_acks++;
			send_seg(t, t->snd_max, RTE_TCP_ACK_FLAG, 0);
		}
		return;
	}
	if (!(fl & RTE_TCP_ACK_FLAG))
		return;
	/* RFC 5961 5.2: an ACK of what was never sent, or further back than
	 * anything in flight could be, is answered and the segment dropped */
	if (SEQ_GT(ack, t->snd_max))
		dlg_acked(t, ack);      /* a sender's bytes, not yet taken */
	bool ack_ok = SEQ_LEQ(ack, t->snd_max) &&
		      SEQ_GEQ(ack, t->snd_una - t->cfg.snd_buf);

	if (!ok) {
		/* outside the window (a duplicate, a keepalive, a probe):
		 * ACK what we have. At a zero window the peer's probe at
		 * rcv_nxt still brings its ACK and window (RFC 9293
		 * 3.10.7.4) */
		if (len != 0 && SEQ_LT(seq, t->rcv_nxt))
			t->st.rx_dup++;
		t->ack_due = true;
		if (rwnd == 0 && seq == t->rcv_nxt && ack_ok) {
			ack_in(t, ack, seq, win, len, fl);
			output(t);
		}
		return;
	}
	if (!ack_ok) {
		t->ack_due = true;
		return;
	}
	ack_in(t, ack, seq, win, len, fl);
	data_in(t, seq, d, len, (fl & RTE_TCP_FIN_FLAG) != 0);
	if (t->fin_rcvd && t->fin_acked)
		t->state = HGW_TCP_DONE;
	if (t->state == HGW_TCP_ESTABLISHED)
		output(t);
}

static void
arp_in(struct hgw_tcp *t, struct rte_arp_hdr *a)
{
	uint32_t sip = rte_be_to_cpu_32(a->arp_data.arp_sip);
	uint32_t tip = rte_be_to_cpu_32(a->arp_data.arp_tip);
	uint16_t op = rte_be_to_cpu_16(a->arp_opcode);

	if (a->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    a->arp_hlen != RTE_ETHER_ADDR_LEN || a->arp_plen != 4) {
		t->st.rx_bad++;
		return;
	}
	/* the next hop's address, learnt from what it sends (RFC 826) */
	if (sip == t->nh_ip && sip != 0 &&
	    rte_is_valid_assigned_ether_addr(&a->arp_data.arp_sha) &&
	    (op == RTE_ARP_OP_REPLY || op == RTE_ARP_OP_REQUEST)) {
		bool moved = !t->nh_known ||
			!rte_is_same_ether_addr(&t->nh_mac,
						&a->arp_data.arp_sha);

		rte_ether_addr_copy(&a->arp_data.arp_sha, &t->nh_mac);
		t->nh_known = true;
		t->arp_refresh = t->now + ms(t, ARP_REFRESH_MS);
		t->arp_tries = 0;
		if (t->state == HGW_TCP_ARP)
			syn_send(t);
		else if (moved && (t->state == HGW_TCP_SYN_SENT ||
				   t->state == HGW_TCP_ESTABLISHED))
			template_build(t);
	}
	if (op == RTE_ARP_OP_REQUEST && tip == t->cfg.ip && reply_ok(t))
		arp_send(t, RTE_ARP_OP_REPLY, &a->arp_data.arp_sha, sip,
			 &a->arp_data.arp_sha);
}

static void
icmp_in(struct hgw_tcp *t, const struct rte_ether_hdr *eh,
	const struct rte_ipv4_hdr *ip, uint32_t l4len)
{
	const struct rte_icmp_hdr *ic = (const struct rte_icmp_hdr *)
		((const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	struct rte_mbuf *m;
	struct rte_ipv4_hdr *oip;
	struct rte_icmp_hdr *oic;

	if (l4len < sizeof(*ic) || ic->icmp_type != RTE_IP_ICMP_ECHO_REQUEST ||
	    l4len > RTE_ETHER_MTU - sizeof(*ip))
		return;
	if (hgw_cksum_block(ic, l4len) != 0xffff) {
		t->st.rx_bad++;
		return;
	}
	if (!reply_ok(t))
		return;
	m = frame_new(t, &eh->src_addr, RTE_ETHER_TYPE_IPV4,
		      (uint32_t)sizeof(*oip) + l4len);
	if (m == NULL)
		return;
	oip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
				      sizeof(struct rte_ether_hdr));
	memset(oip, 0, sizeof(*oip));
	oip->version_ihl = RTE_IPV4_VHL_DEF;
	oip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*oip) + l4len));
	oip->packet_id = rte_cpu_to_be_16(t->ip_id++);
	oip->time_to_live = 64;
	oip->next_proto_id = IPPROTO_ICMP;
	oip->src_addr = ip->dst_addr;
	oip->dst_addr = ip->src_addr;
	oip->hdr_checksum = rte_cpu_to_be_16(hgw_cksum_ipv4(oip, sizeof(*oip)));
	oic = (struct rte_icmp_hdr *)(oip + 1);
	memcpy(oic, ic, l4len);
	oic->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	oic->icmp_cksum = 0;
	oic->icmp_cksum = rte_cpu_to_be_16((uint16_t)~hgw_cksum_block(oic, l4len));
	if (xmit(t, m) == 0)
		t->st.icmp_echo++;
}

static void
frame_in(struct hgw_tcp *t, struct rte_mbuf *m)
{
	uint32_t n = rte_pktmbuf_data_len(m);
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip;
	uint32_t ihl, tot;

	t->st.rx_frames++;
	if (n < sizeof(*eh) || m->nb_segs != 1) {
		t->st.rx_bad++;
		return;
	}
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP)) {
		if (n < sizeof(*eh) + sizeof(struct rte_arp_hdr)) {
			t->st.rx_bad++;
			return;
		}
		t->st.rx_arp++;
		arp_in(t, (struct rte_arp_hdr *)(eh + 1));
		return;
	}
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		t->st.rx_other++;
		return;
	}
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	if (n < sizeof(*eh) + sizeof(*ip)) {
		t->st.rx_bad++;
		return;
	}
	ihl = rte_ipv4_hdr_len(ip);
	tot = rte_be_to_cpu_16(ip->total_length);
	if ((ip->version_ihl >> 4) != 4 || ihl < sizeof(*ip) || tot < ihl ||
	    sizeof(*eh) + tot > n || hgw_cksum_block(ip, ihl) != 0xffff) {
		t->st.rx_bad++;
		return;
	}
	if (rte_be_to_cpu_32(ip->dst_addr) != t->cfg.ip) {
		t->st.rx_other++;       /* multicast, or for someone else */
		return;
	}
	if (ip->fragment_offset &
	    rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		t->st.rx_other++;       /* fragments are not reassembled */
		return;
	}
	if (ip->next_proto_id == IPPROTO_ICMP) {
		t->st.rx_icmp++;
		icmp_in(t, eh, ip, tot - ihl);
		return;
	}
	if (ip->next_proto_id != IPPROTO_TCP) {
		t->st.rx_other++;
		return;
	}
	if (tot - ihl < sizeof(struct rte_tcp_hdr)) {
		t->st.rx_bad++;
		return;
	}
	{
		/* the sum over the pseudo-header and the segment */
		const struct rte_tcp_hdr *th = (const struct rte_tcp_hdr *)
			((const uint8_t *)ip + ihl);
		if (hgw_cksum_l4(ip, th, tot - ihl, IPPROTO_TCP) != 0xffff) {
			t->st.rx_bad++;
			return;
		}
		t->st.rx_tcp++;
		tcp_in(t, eh, ip, th, tot - ihl);
	}
}

/* ---- the owner's loop ---------------------------------------------------- */

static void
timers(struct hgw_tcp *t)
{
	uint64_t now = t->now;

	if (t->state == HGW_TCP_ARP && now >= t->arp_next) {
		if (t->arp_tries >= ARP_TRIES) {
			fail(t, HGW_TCP_WHY_NO_ARP);
			return;
		}
		t->arp_tries++;
		t->arp_next = now + ms(t, ARP_RETRY_MS) * t->arp_tries;
		arp_request(t);
		return;
	}
	if ((t->state == HGW_TCP_SYN_SENT || t->state == HGW_TCP_ESTABLISHED) &&
	    t->nh_known && now >= t->arp_refresh) {
		/* ask again; the entry stays in use until an answer moves
		 * it, and a next hop that never answers shows as a TCP
		 * timeout, not here */
		t->arp_refresh = now + ms(t, ARP_REFRESH_MS);
		arp_request(t);
	}
	if (t->rto_at != 0 && now >= t->rto_at) {
		t->rto_at = 0;
		if (t->state == HGW_TCP_SYN_SENT) {
			if (++t->backoff >= MAX_SYN) {
				fail(t, HGW_TCP_WHY_TIMEOUT);
				return;
			}
			t->st.rto++;
			if (send_seg(t, t->iss, RTE_TCP_SYN_FLAG, 0) == 0)
				t->snd_nxt = t->snd_max = t->iss + 1;
			rto_arm(t);
			return;
		}
		if (t->state == HGW_TCP_ESTABLISHED &&
		    t->snd_una != t->snd_max) {
			uint32_t flight = t->snd_max - t->snd_una;

			/* a peer that answers our probes with a zero window
			 * is alive: its RTOs do not count towards failing */
			if (t->snd_wnd == 0 && now - t->last_rx < t->rto) {
				t->backoff = t->backoff > 0 ? t->backoff - 1 : 0;
			}
			if (++t->backoff >= MAX_RTO_BACKOFF) {
				fail(t, HGW_TCP_WHY_TIMEOUT);
				return;
			}
			t->st.rto++;
			/* RFC 5681 (4), go back to the first unacknowledged */
			t->ssthresh = flight / 2 > 2 * t->mss ? flight / 2 :
				      2 * t->mss;
			t->cwnd = t->mss;
			t->in_recovery = false;
			t->dupacks = 0;
			t->rtt_ts = 0;
			t->recover = t->snd_max;
			t->snd_nxt = t->snd_una;
			rto_arm(t);
			output(t);
		}
	}
	if (t->state != HGW_TCP_ESTABLISHED)
		return;
	if (t->persist_at != 0 && now >= t->persist_at) {
		/* a zero window with bytes waiting: probe with a byte
		 * already acknowledged, which the peer answers with its
		 * window */
		t->st.zero_window_probes++;
		send_seg(t, t->snd_una - 1, RTE_TCP_ACK_FLAG, 0);
		if (t->persist_backoff < 6)
			t->persist_backoff++;
		t->persist_at = now + (t->rto << t->persist_backoff);
	}
	if (t->cfg.keepalive_ms != 0 && t->snd_una == t->snd_max &&
	    now - t->last_rx >= ms(t, t->cfg.keepalive_ms) *
	    (1 + t->ka_sent)) {
		if (t->ka_sent >= KEEPALIVE_PROBES) {
			fail(t, HGW_TCP_WHY_TIMEOUT);
			return;
		}
		t->ka_sent++;
		t->st.keepalives++;
		send_seg(t, t->snd_una - 1, RTE_TCP_ACK_FLAG, 0);
	}
}

void
hgw_tcp_poll(struct hgw_tcp *t, uint64_t now_tsc)
{
	struct rte_mbuf *m[32];
	uint16_t n, i;

	t->now = now_tsc;
	dlg_sync(t, 64);
	for (uint16_t q = 0; q < RTE_MAX(t->cfg.nrxq, (uint16_t)1); q++) {
		n = rte_eth_rx_burst(t->cfg.port, (uint16_t)(t->cfg.rxq + q),
				     m, RTE_DIM(m));
		for (i = 0; i < n; i++) {
			frame_in(t, m[i]);
			rte_pktmbuf_free(m[i]);
		}
	}
	timers(t);
	if (t->state == HGW_TCP_ESTABLISHED || t->state == HGW_TCP_DONE) {
		if (t->state == HGW_TCP_ESTABLISHED)
			output(t);
		if (t->ack_due)
			send_seg(t, t->snd_max, RTE_TCP_ACK_FLAG, 0);
	}
	dlg_publish(t);
}

/* ---- SoupBinTCP's transport ---------------------------------------------- */

static int
s_open(void *ctx, uint32_t ip, uint16_t port, int busy_poll_us, int *h,
       uint64_t *busy_poll_failed)
{
	struct hgw_tcp *t = ctx;

	(void)busy_poll_us;
	(void)busy_poll_failed;
	*h = 0;
	hgw_tcp_open(t, ip, port, t->now);
	return t->state == HGW_TCP_FAILED ? HGW_SOUP_IO_ERR : 0;
}

static int
s_connected(void *ctx, int h)
{
	struct hgw_tcp *t = ctx;

	(void)h;
	if (t->state == HGW_TCP_ESTABLISHED)
		return 1;
	return t->state == HGW_TCP_ARP || t->state == HGW_TCP_SYN_SENT ? 0 :
		HGW_SOUP_IO_ERR;
}

static long
s_send(void *ctx, int h, const uint8_t *p, size_t n)
{
	long k = hgw_tcp_send(ctx, p, n);

	(void)h;
	return k < 0 ? HGW_SOUP_IO_ERR : k;
}

static long
s_recv(void *ctx, int h, uint8_t *p, size_t n)
{
	long k = hgw_tcp_recv(ctx, p, n);

	(void)h;
	if (k == -1)
		return HGW_SOUP_IO_EOF;
	return k < 0 ? HGW_SOUP_IO_ERR : k;
}

static int
s_waiting(void *ctx, int h)
{
	(void)h;
	return hgw_tcp_readable(ctx) != 0;
}

static void
s_shutdown(void *ctx, int h)
{
	(void)h;
	hgw_tcp_shutdown(ctx);
}

static void
s_close(void *ctx, int h)
{
	(void)h;
	hgw_tcp_close(ctx);
}

const struct hgw_soup_io hgw_tcp_soup_io = {
	.open = s_open, .connected = s_connected, .send = s_send,
	.recv = s_recv, .waiting = s_waiting, .shutdown = s_shutdown,
	.close = s_close,
};

/* The counters, as two lines and one per failure, each starting "WHO:
 * tcp (dpdk)". */
void
hgw_tcp_report(const struct hgw_tcp *tcp, int offload, const char *who,
	       FILE *out)
{
	const struct hgw_tcp_stats *ts = hgw_tcp_stats(tcp);

	fprintf(out, "%s: tcp (dpdk) opens %" PRIu64 ", segments sent %"
		PRIu64 " (%" PRIu64 " bytes), retransmitted bytes %" PRIu64
		" (timeouts %" PRIu64 ", fast %" PRIu64 "), duplicate acks %"
		PRIu64 ", received bytes %" PRIu64 ", out of order %" PRIu64
		" (not kept %" PRIu64 "), duplicate %" PRIu64 ", bad %" PRIu64 ", zero-window probes %"
		PRIu64 ", keepalives %" PRIu64 ", challenge acks %" PRIu64
		", resets sent %" PRIu64 " received %" PRIu64 ", tx refused %"
		PRIu64 ", no mbuf %" PRIu64 ", srtt %" PRIu64 " us, state %s\n",
		who, ts->opens, ts->tx_segs, ts->tx_bytes, ts->rexmit_bytes,
		ts->rto, ts->fast_rexmit, ts->dupacks, ts->rx_bytes,
		ts->rx_ooo, ts->rx_ooo_dropped, ts->rx_dup, ts->rx_bad, ts->zero_window_probes,
		ts->keepalives, ts->challenge_acks, ts->rst_sent,
		ts->rst_rcvd, ts->tx_full, ts->no_mbuf, ts->srtt_us,
		hgw_tcp_state(tcp) == HGW_TCP_FAILED ?
		hgw_tcp_why_name(hgw_tcp_failure(tcp)) : "not failed");
	fprintf(out, "%s: tcp (dpdk) arp requests %" PRIu64 ", replies %"
		PRIu64 ", ping replies %" PRIu64 ", replies held back (rate) %"
		PRIu64 ", frames received %" PRIu64 " (tcp %" PRIu64 ", arp %"
		PRIu64 ", icmp %" PRIu64 ", other %" PRIu64 "), checksums %s\n",
		who, ts->arp_requests, ts->arp_replies, ts->icmp_echo,
		ts->replies_limited, ts->rx_frames, ts->rx_tcp, ts->rx_arp,
		ts->rx_icmp, ts->rx_other, offload ? "by the port" : "in software");
	for (int i = 1; i < HGW_TCP_WHY_N; i++)
		if (ts->fails[i] != 0)
			fprintf(out, "%s: tcp (dpdk) connection failed (%s) %"
				PRIu64 "\n", who, hgw_tcp_why_name(i),
				ts->fails[i]);
}

uint64_t
hgw_tcp_port_offloads(void)
{
	return RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
}

int
hgw_tcp_cfg_port(struct hgw_tcp_cfg *cfg, uint16_t port, uint32_t ip,
		 uint32_t mask, uint32_t gateway)
{
	struct rte_ether_addr mac;
	struct rte_eth_dev_info info;

	memset(cfg, 0, sizeof(*cfg));
	if (rte_eth_macaddr_get(port, &mac) != 0)
		return -1;
	cfg->port = port;
	cfg->ip = ip;
	cfg->mask = mask;
	cfg->gateway = gateway;
	memcpy(cfg->mac, mac.addr_bytes, sizeof(cfg->mac));
	cfg->snd_buf = 1 << 16;
	cfg->rcv_buf = 1 << 18;
	cfg->keepalive_ms = 10000;
	cfg->hz = rte_get_tsc_hz();
	/* what the port was asked for, where it offers it */
	cfg->cksum_offload = rte_eth_dev_info_get(port, &info) == 0 &&
		(info.tx_offload_capa & hgw_tcp_port_offloads()) ==
		hgw_tcp_port_offloads();
	return 0;
}
