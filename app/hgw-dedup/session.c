/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-dedup: the venue session in downstream mode (session.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "hgw_cli.h"
#include "hgw_parse.h"
#include "hgw_soupbin.h"
#include "hgw_tcp.h"
#include "hgw_vgate.h"
#include "session.h"

#define PROG "hgw-dedup"
#define die(...) hgw_cli_die(PROG, __VA_ARGS__)

#define POLL_NS 5000            /* recv at most this often */
#define OPEN_MAX 65536
#define SYMBOLS 1024
/* relay datagrams waiting for room on the TX queue; the socket is read
 * only with room for all one read can bring (HGW_SOUP_IN_BUF / 13: the
 * shortest Sequenced Data packet) plus the few a loss adds */
#define BACKLOG 16384
#define READ_ROOM (HGW_SOUP_IN_BUF / 13 + 16)
_Static_assert(READ_ROOM < BACKLOG, "relay backlog room");
#define ORDER_SOUP_LEN (HGW_SOUPBIN_HDR_LEN + HGW_OUCH_ENTER_ORDER_LEN)
/* Enter Order: type, UserRefNum 4, side, quantity 4, symbol 8, price 8,
 * TIF, display, capacity, ISO, cross type, then ClOrdID */
#define ORDER_CLORDID_OFF (HGW_SOUPBIN_HDR_LEN + 31)

struct dsess {
	struct hgw_soup soup;
	struct hgw_tcp *tcp;            /* --venue-stack dpdk; NULL: kernel */
	int tcp_offload;
	uint32_t unacked_stop;          /* order bytes not acknowledged */
	struct hgw_venue_state *state;
	uint64_t floor0;        /* the floor at start: earlier runs' orders */
	uint64_t hz, tsc0, next_poll, poll_tsc;
	double ns_per_tsc;
	int cancel_on_disconnect;
	/* the UserRefNum floor, the caps and the open orders (lib/vgate) */
	struct hgw_vgate_gate g;
	int cancel_pending;
	uint64_t lost_seen, logins_seen;
	uint64_t lost_up_seen;  /* soup.st.lost_up last swept for */
	uint32_t owed_stop;     /* cancels unsent or unanswered at the stop */
	/* relay to hedgewire */
	uint16_t port;
	struct rte_mempool *pool;
	struct hgw_udp_tx udp;          /* learnt from the first order */
	int udp_known;
	uint64_t rseq_out;              /* last relay sequence number sent */
	struct hgw_relay_rx rx;         /* hedgewire's datagrams: peer (from
					 * the first order), key, window,
					 * drops by reason */
	struct hgw_relay_key key_out;   /* ours: the run's */
	/* the login's keys (each direction's) and where the run's keys
	 * stand: agreed on hedgewire's first hello (docs/venue.md
	 * "Downstream mode"); until then the backlog waits */
	struct hgw_relay_key login_in, login_out;
	int keyed;
	uint8_t hello_answer[2 * HGW_RELAY_NONCE];      /* our 'h' */
	uint64_t hello_bad, hello_again, before_key;
	/* orders of an earlier run may be open at the venue: no order goes
	 * until hedgewire's kill switch is on ('K' after our 'O') */
	int earlier_hold, earlier_told;
	uint32_t back_head, back_n;
	struct rte_mbuf *back[BACKLOG];
	/* counters */
	uint64_t sent, unsent[HGW_VGATE_UNSENT_MAX];
	uint64_t relayed_seq, relayed_unsent, relayed_lost, relay_lost;
	uint64_t kills, cancels_sent, venue_cancelled, venue_cancelled_qty;
	/* venue answers that contradicted what was sent, and the first:
	 * from it on every order is refused */
	uint64_t lies;
	struct hgw_vgate_lie_rec lie;
	int lie_swept;                  /* the cancels for the first went */
	uint64_t commands_bad, commands_gap;
	/* hedgewire's 'B' (it leaves the link) came; 'b' went back and the
	 * port is polled no more (session.h, dsess_leave) */
	int peer_leaving, left;
	int forge;                      /* --relay-forge, until done */
	uint64_t after_left;            /* venue messages hedgewire missed */
};

static inline uint64_t
now_ns(const struct dsess *s)
{
	return (uint64_t)((double)(rte_rdtsc() - s->tsc0) * s->ns_per_tsc);
}

/* ---- relay to hedgewire ------------------------------------------------- */

static void
back_flush(struct dsess *s)
{
	/* addressed only once hedgewire's addresses are known (learn_udp),
	 * tagged only once the run's keys are agreed (hello) */
	while (s->back_n != 0 && s->udp_known && s->keyed) {
		uint32_t n = RTE_MIN(s->back_n, BACKLOG - s->back_head);
		uint16_t k = rte_eth_tx_burst(s->port, 0, s->back + s->back_head,
					      (uint16_t)RTE_MIN(n, 64u));

		s->back_head = (s->back_head + k) % BACKLOG;
		s->back_n -= k;
		if (k == 0)
			return;
	}
}

/* back_flush until the backlog is empty, at most a second (hedgewire
 * reads while it waits for 'b' or for the session's last words). */
static void
back_drain(struct dsess *s)
{
	const uint64_t end = rte_rdtsc() + s->hz;

	while (s->back_n != 0 && s->udp_known && s->keyed &&
	       rte_rdtsc() < end)
		back_flush(s);
}

/* One relay message to hedgewire, in order: queued behind the backlog
 * (never dropped while the backlog has room; beyond it, counted). */
static void
relay(struct dsess *s, uint8_t type, const uint8_t *body, size_t blen)
{
	struct rte_mbuf *m;
	uint8_t *f;
	size_t len;

	if (unlikely(s->left))
		return;                 /* hedgewire has gone: nobody reads */
	if (s->back_n == BACKLOG || (m = rte_pktmbuf_alloc(s->pool)) == NULL) {
		/* hedgewire sees the gap in the relay numbers: a lost
		 * session, a kill */
		s->rseq_out++;
		s->relay_lost++;
		return;
	}
	f = rte_pktmbuf_mtod(m, uint8_t *);
	len = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, &s->key_out, ++s->rseq_out,
			    type, body, blen);
	len = hgw_udp_tx_frame(&s->udp, f, len);
	m->data_len = m->pkt_len = (uint32_t)len;
	s->back[(s->back_head + s->back_n++) % BACKLOG] = m;
	back_flush(s);
}

static void
relay_unsent(struct dsess *s, const struct hgw_ouch_order *o,
	     enum hgw_vgate_unsent why)
{
	uint8_t b[17];
	uint64_t seq = 0;

	s->unsent[why]++;
	s->relayed_unsent++;
	memcpy(b, o->clordid, 4);
	if (hgw_order_clordid_seq(o->clordid, &seq) != 0)
		seq = 0;
	hgw_vgate_be(b + 4, seq, 8);
	hgw_vgate_be(b + 12, o->user_ref_num, 4);
	b[16] = (uint8_t)why;
	relay(s, 'u', b, sizeof(b));
}

/* The addresses of the relay datagrams: those of hedgewire's orders (or
 * of its first command taken), swapped. What was queued before (a login,
 * the venue's replayed messages) is addressed now: hedgewire takes
 * relay datagrams from those addresses only. */
static void
learn_udp(struct dsess *s, const uint8_t *f)
{
	if (s->udp_known)
		return;
	memcpy(s->udp.dst_mac, f + 6, 6);
	memcpy(s->udp.src_mac, f, 6);
	s->udp.dst_ip = (uint32_t)hgw_vgate_get_be(f + 26, 4);
	s->udp.src_ip = (uint32_t)hgw_vgate_get_be(f + 30, 4);
	s->udp.dst_port = (uint16_t)hgw_vgate_get_be(f + 34, 2);
	s->udp.src_port = (uint16_t)hgw_vgate_get_be(f + 36, 2);
	hgw_udp_tx_init(&s->udp);
	s->udp_known = 1;
	for (uint32_t i = 0; i < s->back_n; i++) {
		struct rte_mbuf *m = s->back[(s->back_head + i) % BACKLOG];

		hgw_udp_tx_frame(&s->udp, rte_pktmbuf_mtod(m, uint8_t *),
				 rte_pktmbuf_data_len(m) - HGW_UDP_TX_HDR_LEN);
	}
	/* hedgewire's commands come from where its orders come from */
	hgw_relay_rx_peer(&s->rx, s->udp.dst_mac, s->udp.dst_ip,
			  s->udp.dst_port, s->udp.src_ip, s->udp.src_port);
}

/* ---- the session -------------------------------------------------------- */

/* The venue password: from --venue-password-file or HGW_VENUE_PASSWORD
 * (one of them; neither: empty), never from the command line. */
static void
password_get(const struct dsess_opts *o, char *pw, size_t len)
{
	const char *env = getenv(HGW_SOUP_PASSWORD_ENV);
	char err[PATH_MAX + 128];

	pw[0] = '\0';
	if (env != NULL && env[0] != '\0' && o->password_file != NULL)
		die("the venue password is given twice (--venue-password-file "
		    "and %s): give one", HGW_SOUP_PASSWORD_ENV);
	if (o->password_file != NULL) {
		if (hgw_soup_secret_file(o->password_file, pw, len, err,
					 sizeof(err)) < 0)
			die("bad value for --venue-password-file: %s", err);
	} else if (env != NULL) {
		if (strlen(env) >= len)
			die("bad value for %s: longer than %zu characters",
			    HGW_SOUP_PASSWORD_ENV, len - 1);
		strcpy(pw, env);
	}
}

/* --venue-stack dpdk: the session's TCP on tcp_port. */
static void
tcp_init(struct dsess *s, const struct dsess_opts *o, uint16_t tcp_port,
	 struct hgw_soup_cfg *sc)
{
	struct hgw_tcp_cfg tc;
	uint32_t ip, gw = 0;
	uint64_t pfx;

	if (o->address == NULL ||
	    hgw_parse_ipv4_num(o->address, '/', 1, 32, &ip, &pfx) != 0)
		hgw_cli_bad_input(PROG, "bad value for --venue-address: '%s' "
				  "(expected IP/PREFIX, our address on --out, "
				  "with --venue-stack dpdk)",
				  o->address ? o->address : "");
	if (o->gateway != NULL) {
		struct in_addr a;

		if (inet_pton(AF_INET, o->gateway, &a) != 1)
			hgw_cli_bad_input(PROG, "bad value for --venue-gateway: "
					  "'%s' (expected an IPv4 address)",
					  o->gateway);
		gw = ntohl(a.s_addr);
	}
	if (hgw_tcp_cfg_port(&tc, tcp_port, ip,
			     pfx == 32 ? UINT32_MAX : ~(UINT32_MAX >> pfx),
			     gw) != 0)
		die("--venue-stack dpdk: --out port %u has no MAC address",
		    tcp_port);
	if (gw != 0 && (gw & tc.mask) != (ip & tc.mask))
		hgw_cli_bad_input(PROG, "bad value for --venue-gateway: not on "
				  "--venue-address's subnet (%s)", o->address);
	s->tcp_offload = tc.cksum_offload;
	s->tcp = hgw_tcp_create(&tc);
	if (s->tcp == NULL)
		die("--venue-stack dpdk: cannot set up the TCP on --out port "
		    "%u: %s", tcp_port, rte_strerror(rte_errno));
	sc->io = &hgw_tcp_soup_io;
	sc->io_ctx = s->tcp;
}

struct dsess *
dsess_init(const struct dsess_opts *o, uint16_t port, struct rte_mempool *pool,
	   uint16_t tcp_port)
{
	struct hgw_soup_cfg sc;
	struct dsess *s;
	char err[300], pw[11];
	uint32_t ip;
	uint64_t p;

	if (o->venue == NULL)
		return NULL;
	if (hgw_parse_ipv4_num(o->venue, ':', 1, 65535, &ip, &p) != 0)
		hgw_cli_bad_input(PROG, "bad value for --venue: '%s' (expected "
				  "IPv4:PORT)", o->venue);	/* exit 2 */
	if (o->user == NULL)
		die("--venue-user is required with --venue");
	if (o->state_file == NULL)
		die("--state-file is required with --venue: it keeps the last "
		    "UserRefNum sent, so a restart never reuses one");
	if (o->dead_ms <= o->heartbeat_ms)
		die("bad value for --dead-ms: %u (must exceed --heartbeat-ms, "
		    "%u)", o->dead_ms, o->heartbeat_ms);
	if (o->max_ops != 0 && o->max_ops_symbol > o->max_ops)
		die("bad value for --max-orders-per-sec-per-symbol: %u (above "
		    "--max-orders-per-sec, %u)", o->max_ops_symbol, o->max_ops);
	s = rte_zmalloc("hgw_dedup_session", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		die("cannot allocate the venue session");
	memset(&sc, 0, sizeof(sc));
	sc.ip = ip;
	sc.port = (uint16_t)p;
	if (hgw_soup_field(sc.username, 6, o->user) != 0)
		die("bad value for --venue-user: '%s' (printable ASCII, at most "
		    "6)", o->user);
	password_get(o, pw, sizeof(pw));
	if (hgw_soup_field(sc.password, 10, pw) != 0)
		die("bad value for the venue password (printable ASCII, at "
		    "most 10)");
	/* the relay's keys, from the same login hedgewire is given */
	hgw_relay_key_derive(&s->login_in, HGW_RELAY_TO_DEDUP, o->user, pw,
			     o->session);
	hgw_relay_key_derive(&s->login_out, HGW_RELAY_TO_HEDGEWIRE, o->user,
			     pw, o->session);
	explicit_bzero(pw, sizeof(pw));
	if (hgw_soup_field(sc.session, 10, o->session ? o->session : "") != 0)
		die("bad value for --venue-session: '%s' (printable ASCII, at "
		    "most 10)", o->session);
	sc.heartbeat_ns = (uint64_t)o->heartbeat_ms * 1000000;
	sc.dead_ns = (uint64_t)o->dead_ms * 1000000;
	sc.reconnect_ns = (uint64_t)o->reconnect_ms * 1000000;
	sc.out_bytes = 1 << 16;
	sc.busy_poll_us = 50;
	if (o->dpdk)
		tcp_init(s, o, tcp_port, &sc);
	else if (o->address != NULL || o->gateway != NULL)
		hgw_cli_bad_input(PROG, "--venue-address and --venue-gateway "
				  "go with --venue-stack dpdk");
	s->state = hgw_vgate_state_map(o->state_file, &s->floor0, err,
				       sizeof(err));
	if (s->state == NULL)
		die("--state-file: %s", err);
	s->earlier_hold = hgw_vgate_state_start(s->state, s->floor0,
						o->cancel_on_disconnect);
	/* a restart asks for the message after the last one relayed */
	if (hgw_soup_init(&s->soup, &sc,
			  atomic_load_explicit(&s->state->done_seq,
					       memory_order_relaxed) + 1) != 0)
		die("cannot set up the venue session: %s", strerror(errno));
	s->cancel_on_disconnect = o->cancel_on_disconnect;
	s->forge = o->relay_forge;
	if (hgw_vgate_gate_init(&s->g, o->max_ops, o->max_ops_symbol, SYMBOLS,
				OPEN_MAX, rte_get_tsc_hz(), s->floor0) != 0)
		die("cannot allocate the venue gate (--max-orders-per-sec %u, "
		    "--max-orders-per-sec-per-symbol %u)", o->max_ops,
		    o->max_ops_symbol);
	s->port = port;
	s->pool = pool;
	s->hz = rte_get_tsc_hz();
	s->ns_per_tsc = 1e9 / (double)s->hz;
	s->poll_tsc = s->hz / (1000000000 / POLL_NS);
	s->tsc0 = rte_rdtsc();
	hgw_udp_tx_init(&s->udp);
	hgw_soup_start(&s->soup, 0);
	printf(PROG ": venue %s user '%s' session '%s', heartbeat %u ms, dead "
	       "after %u ms, reconnect %u ms; UserRefNum floor %" PRIu64
	       ", from message %" PRIu64 " (state file %s); caps %u/s, %u/s "
	       "per instrument; cancel_on_disconnect %s; answers relayed on "
	       "port %u; TCP: %s\n", o->venue, o->user,
	       o->session && o->session[0] ? o->session : "(current)",
	       o->heartbeat_ms, o->dead_ms, o->reconnect_ms, s->g.floor,
	       s->soup.next_seq, o->state_file, s->g.cap_total, s->g.cap_symbol,
	       s->cancel_on_disconnect ? "yes" : "no", port,
	       s->tcp == NULL ? "the kernel's" : "hgw-dedup's own on --out");
	return s;
}

/* A packet not wholly written at a drop: if it is an order, the venue
 * never had it, and hedgewire's replicas take it back. */
static void
on_dropped(void *arg, const uint8_t *pkt, size_t len)
{
	struct dsess *s = arg;
	struct hgw_venue_open *op;
	struct hgw_ouch_order o;

	if (len != ORDER_SOUP_LEN || pkt[2] != 'U' || pkt[3] != 'O')
		return;         /* a cancel: sent again after the next login,
				 * as after any loss (dsess_poll) */
	op = hgw_vgate_open_find(s->g.open, s->g.open_n,
				 (uint32_t)hgw_vgate_get_be(pkt + 4, 4));
	if (op == NULL)
		return;
	memset(&o, 0, sizeof(o));
	o.user_ref_num = op->user_ref;
	/* the ClOrdID as it was: its session tail and sequence number */
	memcpy(o.clordid, pkt + ORDER_CLORDID_OFF, HGW_CLORDID_LEN);
	s->sent--;
	relay_unsent(s, &o, HGW_VGATE_UNSENT_DROPPED);
	op->qty = 0;
}

/* --relay-forge (tests): what an attacker on the link could send, at
 * the first order (o), when hedgewire's addresses are known. To
 * hedgewire, queued ahead of the honest datagrams, none of them counted
 * as sent (the honest numbering goes on): an unsent 'u' of o from
 * another MAC, IP and port, one under another key, and an 'A' under the
 * key numbered 2^64-1; hedgewire drops them (PEER 3, KEY 1, AHEAD 1) and
 * o stays in its replicas. To our own receiving end (dsess_command, the
 * function the loop gives every frame): a 'K' from another MAC, a 'K'
 * and a 'B' under another key, a 'K' under the key numbered 2^64-1;
 * dropped (PEER 1, KEY 2, AHEAD 1): no kill, no leave. */
static void
forge_one(struct dsess *s, const struct hgw_udp_tx *t,
	  const struct hgw_relay_key *k, uint64_t rseq, uint8_t type,
	  const uint8_t *body, size_t blen)
{
	struct rte_mbuf *m;
	uint8_t *f;
	size_t len;

	if (s->back_n == BACKLOG || (m = rte_pktmbuf_alloc(s->pool)) == NULL)
		return;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	len = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, k, rseq, type, body, blen);
	len = hgw_udp_tx_frame(t, f, len);
	m->data_len = m->pkt_len = (uint32_t)len;
	s->back[(s->back_head + s->back_n++) % BACKLOG] = m;
}

static void
forge(struct dsess *s, const struct hgw_ouch_order *o)
{
	struct hgw_relay_key bad = s->key_out, old_out, old_in;
	struct hgw_udp_tx t;
	struct rte_mbuf *m;
	uint8_t b[17], k[4] = { 0, 0, 0, 1 }, f[128];
	uint8_t nonces[2 * HGW_RELAY_NONCE];
	uint64_t seq = 0;
	size_t len;

	s->forge = 0;
	memcpy(b, o->clordid, 4);
	if (hgw_order_clordid_seq(o->clordid, &seq) != 0)
		seq = 0;
	hgw_vgate_be(b + 4, seq, 8);
	hgw_vgate_be(b + 12, o->user_ref_num, 4);
	b[16] = HGW_VGATE_UNSENT_DOWN;
	bad.k0 ^= 1;
	t = s->udp;
	t.src_mac[5] ^= 1;
	hgw_udp_tx_init(&t);
	forge_one(s, &t, &s->key_out, s->rseq_out + 1, 'u', b, sizeof(b));
	t = s->udp;
	t.src_ip ^= 1;
	hgw_udp_tx_init(&t);
	forge_one(s, &t, &s->key_out, s->rseq_out + 1, 'u', b, sizeof(b));
	t = s->udp;
	t.src_port++;
	hgw_udp_tx_init(&t);
	forge_one(s, &t, &s->key_out, s->rseq_out + 1, 'u', b, sizeof(b));
	forge_one(s, &s->udp, &bad, s->rseq_out + 1, 'u', b, sizeof(b));
	forge_one(s, &s->udp, &s->key_out, UINT64_MAX, 'A', k, sizeof(k));
	/* an earlier run's (same login, other nonces): its 'u' and its
	 * answer to that run's hello, replayed */
	memset(nonces, 0x5a, sizeof(nonces));
	hgw_relay_key_run(&old_out, &s->login_out, nonces,
			  nonces + HGW_RELAY_NONCE);
	hgw_relay_key_run(&old_in, &s->login_in, nonces,
			  nonces + HGW_RELAY_NONCE);
	forge_one(s, &s->udp, &old_out, s->rseq_out + 1, 'u', b, sizeof(b));
	if (s->back_n != BACKLOG &&
	    (m = rte_pktmbuf_alloc(s->pool)) != NULL) {
		uint8_t *hf = rte_pktmbuf_mtod(m, uint8_t *);

		len = hgw_relay_hello_put(hf + HGW_UDP_TX_HDR_LEN,
					  &s->login_out, 'h', nonces,
					  sizeof(nonces));
		len = hgw_udp_tx_frame(&s->udp, hf, len);
		m->data_len = m->pkt_len = (uint32_t)len;
		s->back[(s->back_head + s->back_n++) % BACKLOG] = m;
	}
	back_flush(s);
	/* hedgewire's commands: from its addresses to ours */
	memset(&t, 0, sizeof(t));
	memcpy(t.src_mac, s->udp.dst_mac, 6);
	memcpy(t.dst_mac, s->udp.src_mac, 6);
	t.src_ip = s->udp.dst_ip;
	t.dst_ip = s->udp.src_ip;
	t.src_port = s->udp.dst_port;
	t.dst_port = s->udp.src_port;
	bad = s->rx.key;
	bad.k1 ^= 1;
	t.src_mac[5] ^= 1;
	hgw_udp_tx_init(&t);
	len = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, &s->rx.key, s->rx.last + 1,
			    'K', k, sizeof(k));
	dsess_command(s, f, (uint32_t)hgw_udp_tx_frame(&t, f, len));
	t.src_mac[5] ^= 1;
	hgw_udp_tx_init(&t);
	len = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, &bad, s->rx.last + 1, 'K',
			    k, sizeof(k));
	dsess_command(s, f, (uint32_t)hgw_udp_tx_frame(&t, f, len));
	len = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, &bad, s->rx.last + 1, 'B',
			    NULL, 0);
	dsess_command(s, f, (uint32_t)hgw_udp_tx_frame(&t, f, len));
	len = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, &s->rx.key, UINT64_MAX,
			    'K', k, sizeof(k));
	dsess_command(s, f, (uint32_t)hgw_udp_tx_frame(&t, f, len));
	/* an earlier run's 'K', and its hello again */
	len = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, &old_in, s->rx.last + 1,
			    'K', k, sizeof(k));
	dsess_command(s, f, (uint32_t)hgw_udp_tx_frame(&t, f, len));
	len = hgw_relay_hello_put(f + HGW_UDP_TX_HDR_LEN, &s->login_in, 'H',
				  nonces, HGW_RELAY_NONCE);
	dsess_command(s, f, (uint32_t)hgw_udp_tx_frame(&t, f, len));
}

void
dsess_order(struct dsess *s, const uint8_t *frame,
	    const struct hgw_ouch_order *o)
{
	struct hgw_venue_sym *sym = NULL;
	struct hgw_venue_open *op;
	uint32_t why;
	uint64_t now = rte_rdtsc(), sk;
	uint32_t ref = o->user_ref_num;

	learn_udp(s, frame);
	if (unlikely(s->forge) && s->keyed)
		forge(s, o);
	if (unlikely(s->lies != 0)) {
		why = HGW_VGATE_UNSENT_CONTRADICTED;
		goto unsent;
	}
	if (unlikely(!s->keyed)) {
		/* nothing of the venue's could reach hedgewire yet */
		why = HGW_VGATE_UNSENT_NOT_KEYED;
		goto unsent;
	}
	if (unlikely(s->earlier_hold)) {
		why = HGW_VGATE_UNSENT_EARLIER_OPEN;
		goto unsent;
	}
	if (!hgw_soup_up(&s->soup)) {
		why = HGW_VGATE_UNSENT_DOWN;
		goto unsent;
	}
	memcpy(&sk, o->symbol, 8);
	why = hgw_vgate_admit(&s->g, ref, sk, now, &sym);
	if (why != HGW_VGATE_UNSENT_MAX)
		goto unsent;
	/* the floor first: a crash after it skips this number */
	op = hgw_vgate_commit(&s->g, ref, o->quantity);
	atomic_store_explicit(&s->state->last_user_ref, ref,
			      memory_order_relaxed);
	op->login = (uint32_t)s->soup.st.logins;
	s->sent++;
	s->soup.drop_fn = on_dropped;
	s->soup.drop_arg = s;
	if (hgw_soup_send_framed(&s->soup, frame + HGW_UDP_TX_HDR_LEN,
				 ORDER_SOUP_LEN, now_ns(s)) != 0) {
		hgw_vgate_unopen(&s->g);
		s->sent--;
		why = HGW_VGATE_UNSENT_OUT_FULL;
		goto unsent;
	}
	if (!hgw_soup_up(&s->soup))
		return;         /* the socket failed on it: on_dropped */
	s->state->orders++;
	now = rte_rdtsc();
	hgw_vgate_sent(&s->g, sym, now);
	return;
unsent:
	relay_unsent(s, o, why);
}

/* hgw_vgate_cod_login of the session now */
static uint32_t
cod_login(const struct dsess *s)
{
	return hgw_vgate_cod_login(s->cancel_on_disconnect, s->soup.st.logins,
				   hgw_soup_up(&s->soup));
}

/* The kill's cancels not yet answered (those the venue cancelled on
 * disconnect aside). */
static uint32_t
owed(const struct dsess *s)
{
	return hgw_vgate_gate_owed(&s->g, cod_login(s));
}

static void
cancel_run(struct dsess *s)
{
	/* with cancel_on_disconnect, what went before this login the venue
	 * cancelled when that connection dropped */
	if (hgw_vgate_cancel_run(&s->soup, s->g.open, s->g.open_n, &s->g.cancel_next,
				 cod_login(s), now_ns(s),
				 &s->cancels_sent))
		s->cancel_pending = 0;
}

/* A kill: cancel every open order (now, or after the next login). */
static void
kill_sweep(struct dsess *s)
{
	s->kills++;
	/* (none open: none to send, nor to wait for at a stop) */
	s->cancel_pending = hgw_vgate_gate_sweep(&s->g, cod_login(s));
	if (hgw_soup_up(&s->soup))
		cancel_run(s);
}

/* hedgewire's hello (kind, nonces: nn bytes): the first one of the run
 * agrees the run's keys; our answer goes before anything queued, which
 * is tagged again under them. */
static void
take_hello(struct dsess *s, const uint8_t *frame, uint8_t kind,
	   const uint8_t *nonces, size_t nn)
{
	uint8_t n2[2 * HGW_RELAY_NONCE];
	const uint64_t end = rte_rdtsc() + s->hz;
	struct rte_mbuf *m = NULL;

	if (kind != 'H' || nn != HGW_RELAY_NONCE ||
	    (s->keyed && memcmp(nonces, s->hello_answer,
				HGW_RELAY_NONCE) != 0)) {
		/* one run per hgw-dedup run: another nonce (an earlier
		 * run's hello, replayed) is never adopted */
		s->hello_bad++;
		return;
	}
	if (s->keyed) {
		/* hedgewire's hello again (our answer was lost, or crossed
		 * it): the same answer, the keys as they are */
		s->hello_again++;
		memcpy(n2, s->hello_answer, sizeof(n2));
	} else {
		learn_udp(s, frame);
		memcpy(n2, nonces, HGW_RELAY_NONCE);
		if (getrandom(n2 + HGW_RELAY_NONCE, HGW_RELAY_NONCE, 0) !=
		    HGW_RELAY_NONCE)
			die("cannot draw the relay's nonce: %s",
			    strerror(errno));
		memcpy(s->hello_answer, n2, sizeof(n2));
		hgw_relay_key_run(&s->rx.key, &s->login_in, n2,
				  n2 + HGW_RELAY_NONCE);
		hgw_relay_key_run(&s->key_out, &s->login_out, n2,
				  n2 + HGW_RELAY_NONCE);
	}
	while (m == NULL && rte_rdtsc() < end) {
		uint8_t *f;
		size_t len;

		m = rte_pktmbuf_alloc(s->pool);
		if (m == NULL)
			continue;
		f = rte_pktmbuf_mtod(m, uint8_t *);
		len = hgw_relay_hello_put(f + HGW_UDP_TX_HDR_LEN,
					  &s->login_out, 'h', n2, sizeof(n2));
		len = hgw_udp_tx_frame(&s->udp, f, len);
		m->data_len = m->pkt_len = (uint32_t)len;
		if (rte_eth_tx_burst(s->port, 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			m = NULL;
		}
	}
	if (m == NULL)
		/* hedgewire asks again (its hello is resent until keyed) */
		fprintf(stderr, PROG ": venue relay: the answer to "
			"hedgewire's hello could not be sent in 1 s\n");
	if (s->keyed)
		return;
	for (uint32_t i = 0; i < s->back_n; i++) {
		struct rte_mbuf *b = s->back[(s->back_head + i) % BACKLOG];

		uint8_t *f = rte_pktmbuf_mtod(b, uint8_t *);
		size_t plen = rte_pktmbuf_data_len(b) - HGW_UDP_TX_HDR_LEN;

		hgw_relay_retag(f + HGW_UDP_TX_HDR_LEN, plen, &s->key_out);
		/* and the UDP checksum over the new tag */
		hgw_udp_tx_frame(&s->udp, f, plen);
	}
	s->keyed = 1;
	back_flush(s);
}

int
dsess_command(struct dsess *s, const uint8_t *frame, uint32_t len)
{
	const uint8_t *body, *p;
	size_t blen, nn, plen;
	uint64_t rseq, last = s->rx.last;
	uint8_t type, nonces[2 * HGW_RELAY_NONCE];
	int rc;

	rc = hgw_relay_hello_rx(&s->rx, &s->login_in, frame, len, &type,
				nonces, &nn);
	if (rc == 0)
		take_hello(s, frame, type, nonces, nn);
	if (rc <= 0)
		return 1;
	if (!s->keyed) {
		/* no key to check it under yet: none of this run's */
		if (hgw_relay_udp_payload(frame, len, &p, &plen) == 0 &&
		    plen >= 4 && memcmp(p, "HGWR", 4) == 0) {
			s->before_key++;
			return 1;
		}
		return 0;
	}

	/* from hedgewire, under the key, inside the window, or dropped and
	 * counted by reason (hgw_vgate.h): never a kill or a leave */
	rc = hgw_relay_rx(&s->rx, frame, len, &rseq, &type, &body, &blen);
	if (rc == 1)
		return 0;
	if (rc < 0)
		return 1;
	if (!((type == 'K' && blen == 4) || (type == 'B' && blen == 0))) {
		s->commands_bad++;
		return 1;
	}
	learn_udp(s, frame);    /* under the key: hedgewire's */
	if (rseq != last + 1)
		s->commands_gap++;      /* a kill is a kill: take it anyway */
	if (type == 'B') {
		s->peer_leaving = 1;    /* answered by dsess_leave */
		return 1;
	}
	/* hedgewire's kill switch went on: cancel every open order */
	kill_sweep(s);
	if (s->earlier_told)
		/* on after our 'O': the replicas decide nothing until an
		 * operator clears it */
		s->earlier_hold = 0;
	return 1;
}

/* One sequenced message from the venue, in sequence order: the open
 * table follows it, and it goes to hedgewire as it came. */
static void
on_message(void *arg, uint64_t seq, const uint8_t *msg, size_t len)
{
	struct dsess *s = arg;
	struct hgw_ouch_answer a;
	struct hgw_vgate_lie_rec l;
	const char *why;
	uint8_t b[8 + 1024];
	int lie = 0;

	atomic_store_explicit(&s->state->last_seq, seq, memory_order_relaxed);
	if (hgw_ouch_answer_decode(msg, len, seq, &a, &why) == 0 &&
	    hgw_vgate_open_answer(s->g.open, s->g.open_n, s->floor0, &a,
				  &s->venue_cancelled,
				  &s->venue_cancelled_qty, &l) !=
	    HGW_VGATE_LIE_NONE) {
		lie = 1;
		if (s->lies++ == 0) {
			/* the position is uncertain: no order goes from
			 * now on (dsess_order), every open one is
			 * cancelled, and hedgewire is told ('C') */
			s->lie = l;
			fprintf(stderr, PROG ": venue contradicted: %s "
				"'%c' (venue seq %" PRIu64 ", UserRefNum %"
				PRIu32 ") %s: %" PRIu64 " shares open, the "
				"venue's answer says %" PRIu64 ": cancelling "
				"every open order, no order goes from now on\n",
				hgw_ouch_answer_name(l.type), l.type, l.seq,
				l.user_ref, hgw_vgate_lie_name(l.lie), l.ours,
				l.theirs);
			/* the sweep once the read is done (dsess_poll) */
		}
	}
	/* hedgewire decodes it itself (a message it cannot decode is a
	 * kill there); cut to what the relay carries */
	if (len > 1024)
		len = 1024;
	if (s->left) {
		/* not done: the next run of the pair asks for it again */
		s->after_left++;
		return;
	}
	hgw_vgate_be(b, seq, 8);
	memcpy(b + 8, msg, len);
	relay(s, 'S', b, 8 + len);
	s->relayed_seq++;
	if (lie) {
		/* after the answer: seq 8, UserRefNum 4, ours 8, theirs 8,
		 * the contradiction 1, the answer's type 1 */
		uint8_t c[30];

		hgw_vgate_be(c, l.seq, 8);
		hgw_vgate_be(c + 8, l.user_ref, 4);
		hgw_vgate_be(c + 12, l.ours, 8);
		hgw_vgate_be(c + 20, l.theirs, 8);
		c[28] = (uint8_t)l.lie;
		c[29] = l.type;
		relay(s, 'C', c, sizeof(c));
	}
	/* relayed (in the backlog at least): a restart asks for the next */
	atomic_store_explicit(&s->state->done_seq, seq, memory_order_relaxed);
}

void
dsess_poll(struct dsess *s)
{
	uint64_t now = rte_rdtsc(), lost;

	if (s->tcp != NULL)
		hgw_tcp_poll(s->tcp, now);
	if (s->back_n != 0)
		back_flush(s);
	if (now < s->next_poll)
		return;
	s->next_poll = now + s->poll_tsc;
	/* read only with room in the backlog for what one read relays;
	 * without it the session's timers still run (heartbeats, the
	 * dead-server check, the cancels owed) */
	if (BACKLOG - s->back_n < READ_ROOM)
		hgw_soup_poll_timers(&s->soup, now_ns(s));
	else
		hgw_soup_poll(&s->soup, now_ns(s), on_message, s);
	if (unlikely(s->lies != 0) && !s->lie_swept) {
		/* outside the read: the cancels go on the same socket */
		s->lie_swept = 1;
		kill_sweep(s);
	}
	if (s->soup.st.lost_up != s->lost_up_seen) {
		/* a session lost after a login: cancels written to it may
		 * never have reached the venue, and the kill that follows
		 * (set now, or on already) wants every open order cancelled
		 * after the next login; so does a stop before then */
		s->lost_up_seen = s->soup.st.lost_up;
		s->cancel_pending = hgw_vgate_gate_sweep(&s->g, cod_login(s));
	}
	lost = s->soup.st.lost_up + (s->soup.state == HGW_SOUP_ENDED);
	if (lost != s->lost_seen) {
		uint8_t b[6];

		/* lost after a login, or ended for the run: hedgewire sets
		 * its kill switch (and sends 'K' back: cancels after the
		 * next login unless the venue cancels on disconnect) */
		s->lost_seen = lost;
		hgw_vgate_be(b, lost, 4);
		b[4] = (uint8_t)s->soup.last_loss;
		b[5] = s->soup.state == HGW_SOUP_ENDED;
		relay(s, 'L', b, sizeof(b));
		s->relayed_lost++;
	}
	if (s->soup.st.logins != s->logins_seen) {
		uint8_t b[4];

		s->logins_seen = s->soup.st.logins;
		hgw_vgate_be(b, s->logins_seen, 4);
		relay(s, 'A', b, sizeof(b));
		if (s->logins_seen == 1 && s->earlier_hold) {
			uint8_t f[8];

			/* orders of an earlier run today may still be open
			 * at the venue, and the replicas start flat:
			 * hedgewire sets its kill switch until an operator
			 * has checked them */
			hgw_vgate_be(f, s->floor0, 8);
			relay(s, 'O', f, sizeof(f));
			s->earlier_told = 1;
		}
	}
	if (s->cancel_pending && hgw_soup_up(&s->soup))
		cancel_run(s);
}

int
dsess_leaving(const struct dsess *s)
{
	return s->peer_leaving && !s->left;
}

void
dsess_leave(struct dsess *s)
{
	if (s->left)
		return;
	/* what is queued for hedgewire first (it reads until 'b'), then
	 * 'b', the last datagram on the link */
	back_drain(s);
	relay(s, 'b', NULL, 0);
	back_drain(s);
	s->relay_lost += s->back_n;     /* never sent (counted: exit 1) */
	for (; s->back_n != 0; s->back_n--) {
		rte_pktmbuf_free(s->back[s->back_head]);
		s->back_head = (s->back_head + 1) % BACKLOG;
	}
	s->left = 1;
}

int
dsess_busy(const struct dsess *s)
{
	return s->back_n != 0;
}


void
dsess_stop(struct dsess *s)
{
	/* the whole stop: the session's dead time, and 2 s at least (the
	 * Logout gets what is left, 2 s at least) */
	const uint64_t wait = RTE_MAX(2 * s->hz, s->soup.cfg.dead_ns /
				      1000000 * (s->hz / 1000));
	uint64_t end = rte_rdtsc() + wait;

	/* the cancels a kill still owes go before the logout, after a
	 * reconnect if the session is down (on a loaded host that can take
	 * longer than a moment), and the venue answers each (a session
	 * lost first sends them again after the next login) */
	while ((s->cancel_pending || owed(s) != 0) &&
	       s->soup.state != HGW_SOUP_ENDED && rte_rdtsc() < end)
		dsess_poll(s);
	s->owed_stop = owed(s);
	if (s->cancel_pending || s->owed_stop != 0) {
		s->owed_stop += (uint32_t)s->cancel_pending;
		fprintf(stderr, PROG ": venue: stopping with cancels %s (the "
			"session is %s): orders may be open at the venue\n",
			s->cancel_pending ? "not sent" : "not answered",
			hgw_soup_up(&s->soup) ? "up" : "down");
	}
	/* --venue-stack dpdk: nobody sends our bytes once we are gone, so
	 * the orders given to the TCP are acknowledged by the venue's host
	 * before the logout; what is not is said, and the exit status
	 * tells (dsess_report) */
	if (s->tcp != NULL) {
		while (hgw_soup_up(&s->soup) && hgw_tcp_unacked(s->tcp) != 0 &&
		       rte_rdtsc() < end)
			dsess_poll(s);
		s->unacked_stop = hgw_soup_up(&s->soup) ?
				  hgw_tcp_unacked(s->tcp) : 0;
		if (s->unacked_stop != 0)
			fprintf(stderr, PROG ": venue: %u bytes of orders not "
				"acknowledged by the venue's host when the "
				"session stopped\n", s->unacked_stop);
	}
	/* Logout Request, then what the venue still sends (its answers to
	 * our last orders) until it closes (a venue slow to read our last
	 * orders is as slow to read the Logout) */
	end = RTE_MAX(end, rte_rdtsc() + 2 * s->hz);
	hgw_soup_logout(&s->soup, now_ns(s));
	while (s->soup.state == HGW_SOUP_CLOSING && rte_rdtsc() < end)
		dsess_poll(s);
	hgw_soup_stop(&s->soup, now_ns(s));
	hgw_vgate_state_end(s->state, s->g.open, s->g.open_n);
	/* what the venue said last reaches hedgewire (while it reads) */
	back_drain(s);
}

int
dsess_report(struct dsess *s, FILE *out)
{
	const struct hgw_soup_stats *st = &s->soup.st;
	uint64_t unsent = 0;
	int bad;

	fprintf(out, "venue: orders sent %" PRIu64 ", UserRefNum last %" PRIu64
		", connects %" PRIu64 " (failed %" PRIu64 "), logins %" PRIu64
		", rejected %" PRIu64 ", sessions lost %" PRIu64 " (last: %s)\n",
		s->sent, (uint64_t)atomic_load_explicit(&s->state->last_user_ref,
							memory_order_relaxed),
		st->connects, st->connect_failed, st->logins, st->rejects,
		st->lost_up, hgw_soup_loss_name(s->soup.last_loss));
	for (uint32_t i = 1; i < HGW_SOUP_LOSS_MAX; i++)
		if (st->loss[i] != 0 && i != HGW_SOUP_LOSS_STOP)
			fprintf(out, "venue: connection dropped (%s) %" PRIu64
				"\n", hgw_soup_loss_name(i), st->loss[i]);
	for (uint32_t i = 0; i < HGW_VGATE_UNSENT_MAX; i++) {
		unsent += s->unsent[i];
		if (s->unsent[i] != 0)
			fprintf(out, "venue: unsent (%s) %" PRIu64 "\n",
				hgw_vgate_unsent_name(i), s->unsent[i]);
	}
	fprintf(out, "venue: unsent %" PRIu64 " in all, relayed back\n",
		unsent);
	fprintf(out, "venue: relayed messages %" PRIu64 ", unsent %" PRIu64
		", sessions lost %" PRIu64 "; relay datagrams %" PRIu64
		" (lost %" PRIu64 ", still queued %u)\n", s->relayed_seq,
		s->relayed_unsent, s->relayed_lost, s->rseq_out, s->relay_lost,
		s->back_n);
	fprintf(out, "venue: hedgewire left the link: %s (venue messages "
		"after it left %" PRIu64 ", not relayed: the next run asks for "
		"them again)\n", s->left ? "yes" : "no", s->after_left);
	fprintf(out, "venue: kills %" PRIu64 " (commands bad %" PRIu64
		", out of sequence %" PRIu64 "), cancels sent %" PRIu64
		", cancelled by the venue after a kill %" PRIu64 " (%" PRIu64
		" shares)\n", s->kills, s->commands_bad, s->commands_gap,
		s->cancels_sent, s->venue_cancelled, s->venue_cancelled_qty);
	{
		uint64_t dropped = 0;

		for (uint32_t i = 0; i < HGW_RELAY_DROP_MAX; i++)
			dropped += s->rx.drops[i];
		fprintf(out, "venue: relay keys agreed %s (hellos refused %"
			PRIu64 ", answered again %" PRIu64 ", datagrams "
			"before the keys %" PRIu64 ")\n",
			s->keyed ? "yes" : "no", s->hello_bad, s->hello_again,
			s->before_key);
		fprintf(out, "venue: relay datagrams dropped %" PRIu64, dropped);
		for (uint32_t i = 0; i < HGW_RELAY_DROP_MAX; i++)
			fprintf(out, "%s%s %" PRIu64, i == 0 ? " (" : ", ",
				hgw_relay_drop_name(i), s->rx.drops[i]);
		fprintf(out, ")\n");
	}
	if (s->tcp != NULL)
		hgw_tcp_report(s->tcp, s->tcp_offload, "venue", out);
	if (s->lies != 0)
		fprintf(out, "venue: contradicted by %" PRIu64 " answers; the "
			"first: %s '%c' (venue seq %" PRIu64 ", UserRefNum %"
			PRIu32 ") %s: %" PRIu64 " shares open, the venue's "
			"answer says %" PRIu64 "\n", s->lies,
			hgw_ouch_answer_name(s->lie.type), s->lie.type,
			s->lie.seq, s->lie.user_ref,
			hgw_vgate_lie_name(s->lie.lie), s->lie.ours,
			s->lie.theirs);
	bad = s->relay_lost != 0 || s->back_n != 0 || s->commands_bad != 0 ||
	      s->owed_stop != 0 || s->unacked_stop != 0;
	return bad | (s->lies != 0) << 1;
}
