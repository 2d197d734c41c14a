/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the venue session in downstream mode, hedgewire's side
 * (relay.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "control.h"
#include "hgw_cli.h"
#include "hgw_vgate.h"
#include "relay.h"
#include "venue.h"

#define die(...) hgw_cli_die("hedgewire", __VA_ARGS__)

/* The relay's state, the control lcore's (after init on the main lcore,
 * before the control loop starts): no word crosses cores but the kill
 * count (hgw_ctl_kills, acquire). */
struct hgw_relay {
	uint16_t port, rxq, txq;
	struct rte_mempool *pool;
	struct hgw_udp_tx udp;
	struct hgw_relay_rx rx;         /* hgw-dedup's datagrams: peer, key,
					 * window, drops by reason */
	struct hgw_relay_key key_out;   /* ours ('K', 'B'): the run's */
	/* the login's keys (each direction's), our hello's nonce, and
	 * where the run's keys stand (docs/venue.md "Downstream mode") */
	struct hgw_relay_key login_in, login_out;
	uint8_t nh[HGW_RELAY_NONCE];
	int keyed;
	uint64_t hello_next;            /* TSC: resent until keyed */
	uint64_t hellos_sent;
	uint64_t before_key, hello_bad;
	uint64_t rseq_out;              /* last one sent ('K') */
	uint64_t venue_seq;             /* last venue message relayed */
	uint32_t kills_seen, kills_sent;
	int bye_sent, dedup_left;       /* 'B' sent; 'b' received */
	/* counters */
	uint64_t frames, other, seqd, unsent, unsent_unknown, unsent_failed;
	uint64_t unsent_late;	/* came after the replicas stopped */
	uint64_t lost, logins, gaps, bad, venue_gaps, tx_retries, dups;
	uint64_t lost_kills, kills_out;
	uint64_t contradictions;         /* 'C' from hgw-dedup */
	uint64_t earlier_open;           /* 'O' from hgw-dedup */
	struct hgw_venue_ctl vctl;       /* the venue journal, the posts */
	struct hgw_ctl *ctl;             /* the control plane */
};

int
hgw_relay_wanted(const struct hgw_config *c)
{
	return c->venue_host[0] != '\0' &&
	       c->dedup == HGW_DEDUP_MODE_DOWNSTREAM;
}

struct hgw_relay *
hgw_relay_init(const struct hgw_config *c, struct hgw_ctl *ctl)
{
	struct rte_eth_dev_info info;
	struct hgw_relay *r;

	if (!hgw_relay_wanted(c))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		die("cannot allocate the relay's state");
	r->port = c->tx_port;
	r->rxq = 0;                      /* the order port's only RX queue */
	r->txq = (uint16_t)c->workers;   /* after the workers' */
	if (rte_eth_dev_info_get(r->port, &info) != 0 ||
	    info.nb_rx_queues < 1 || info.nb_tx_queues <= r->txq)
		die("[venue] with [run] dedup = downstream: [order] port %u "
		    "needs an RX queue and %u TX queues (the workers' and the "
		    "control lcore's)", r->port, r->txq + 1);
	r->pool = rte_pktmbuf_pool_create("hgw_relay", 255, 0, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE,
					 rte_eth_dev_socket_id(r->port));
	if (r->pool == NULL)
		die("cannot create the relay pool: %s",
		    rte_strerror(rte_errno));
	/* addressed as the orders are */
	memcpy(r->udp.src_mac, c->src_mac, 6);
	memcpy(r->udp.dst_mac, c->dst_mac, 6);
	r->udp.src_ip = c->src_ip;
	r->udp.dst_ip = c->dst_ip;
	r->udp.src_port = c->src_port;
	r->udp.dst_port = c->dst_port;
	hgw_udp_tx_init(&r->udp);
	/* hgw-dedup answers from the addresses our orders go to, to ours */
	hgw_relay_rx_peer(&r->rx, c->dst_mac, c->dst_ip, c->dst_port,
			  c->src_ip, c->src_port);
	hgw_relay_key_derive(&r->login_in, HGW_RELAY_TO_HEDGEWIRE,
			     c->venue_username, c->venue_password,
			     c->venue_session);
	hgw_relay_key_derive(&r->login_out, HGW_RELAY_TO_DEDUP,
			     c->venue_username, c->venue_password,
			     c->venue_session);
	/* this run's nonce: the run's keys follow from it and hgw-dedup's
	 * (hello), so nothing of an earlier run is ever taken */
	if (getrandom(r->nh, sizeof(r->nh), 0) != (ssize_t)sizeof(r->nh))
		die("cannot draw the relay's nonce: %s", strerror(errno));
	r->ctl = ctl;
	hgw_venue_ctl_bind(&r->vctl, ctl);
	r->kills_seen = r->kills_sent = hgw_ctl_kills(ctl);
	hgw_venue_ctl_open(&r->vctl, c);
	printf("venue: downstream: hgw-dedup owns the session; its relay is "
	       "read on [order] port %u RX queue 0, kills go out on TX queue "
	       "%u\n", r->port, r->txq);
	return r;
}

/* The session is as good as lost: a kill, as in tx-lcore mode. */
static void
lost(struct hgw_relay *r, const char *why)
{
	r->lost_kills++;
	RTE_LOG(ERR, USER1, "venue relay: %s\n", why);
	hgw_ctl_session_lost(r->ctl);
}

static void
take_seq(struct hgw_relay *r, const uint8_t *b, size_t blen, int close)
{
	struct hgw_venue_msg m;
	const char *why = NULL;
	uint64_t seq;
	size_t len;
	struct timespec ts;

	if (blen < 9) {
		r->bad++;
		if (!close)
			lost(r, "a sequenced message too short");
		return;
	}
	seq = hgw_vgate_get_be(b, 8);
	len = blen - 8;
	if (r->venue_seq != 0 && seq <= r->venue_seq) {
		/* a message taken already: applying it again would count
		 * its fill twice in every replica */
		r->dups++;
		return;
	}
	if (r->venue_seq != 0 && seq != r->venue_seq + 1) {
		r->venue_gaps++;
		if (!close)
			lost(r, "venue messages out of sequence");
	}
	r->venue_seq = seq;
	memset(&m, 0, sizeof(m));
	clock_gettime(CLOCK_REALTIME, &ts);
	m.rx_ns = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	m.len = (uint16_t)len;
	memcpy(m.raw, b + 8, len < HGW_VENUE_RAW ? len : HGW_VENUE_RAW);
	if (hgw_ouch_answer_decode(b + 8, len, seq, &m.a, &why) == 0) {
		m.ok = 1;
	} else {
		m.a.seq = seq;
		m.a.type = b[8];
	}
	r->seqd++;
	/* the same path as tx-lcore mode's: journal, then every replica */
	hgw_venue_ctl_take(&r->vctl, &m);
}

static void
take_unsent(struct hgw_relay *r, const uint8_t *b, size_t blen,
	    int close)
{
	uint64_t key, seq;

	if (blen != 17) {
		r->bad++;
		if (!close)
			lost(r, "a bad unsent message");
		return;
	}
	r->unsent++;
	if (close) {
		r->unsent_late++;	/* journalled only: no replica runs */
		return;
	}
	seq = hgw_vgate_get_be(b + 4, 8);
	if (hgw_ctl_session_key(r->ctl, (const char *)b, &key) != 0) {
		/* no replica met that session: it decided nothing in it */
		r->unsent_unknown++;
		return;
	}
	if (hgw_ctl_unsent(r->ctl, key, seq) != 0)
		r->unsent_failed++;
}

/* hgw-dedup found that the answer it relayed last contradicts what was
 * sent (docs/venue.md "Answers that contradict what was sent"): it has
 * stopped sending and cancels what is open; here, the kill switch and
 * the end of the run. */
static void
take_contradiction(struct hgw_relay *r, const uint8_t *b, size_t blen,
		   int close)
{
	struct hgw_vgate_lie_rec l;

	if (blen != 30) {
		r->bad++;
		if (!close)
			lost(r, "a bad contradiction message");
		return;
	}
	memset(&l, 0, sizeof(l));
	l.seq = hgw_vgate_get_be(b, 8);
	l.user_ref = (uint32_t)hgw_vgate_get_be(b + 8, 4);
	l.ours = hgw_vgate_get_be(b + 12, 8);
	l.theirs = hgw_vgate_get_be(b + 20, 8);
	l.lie = b[28];
	l.type = b[29];
	if (l.lie == HGW_VGATE_LIE_NONE || l.lie >= HGW_VGATE_LIE_MAX)
		l.lie = HGW_VGATE_LIE_MAX;      /* named "?" */
	r->contradictions++;
	hgw_ctl_contradicted(r->ctl, &l);
}

/* hgw-dedup's hello: its nonce after ours; the run's keys from both. */
static void
take_hello(struct hgw_relay *r, uint8_t kind, const uint8_t *nonces,
	   size_t nn)
{
	if (r->keyed || kind != 'h' || nn != 2 * HGW_RELAY_NONCE ||
	    memcmp(nonces, r->nh, HGW_RELAY_NONCE) != 0) {
		/* not the answer to this run's hello (an earlier run's,
		 * replayed): never adopted */
		r->hello_bad++;
		return;
	}
	hgw_relay_key_run(&r->rx.key, &r->login_in, r->nh,
			  nonces + HGW_RELAY_NONCE);
	hgw_relay_key_run(&r->key_out, &r->login_out, r->nh,
			  nonces + HGW_RELAY_NONCE);
	r->keyed = 1;
}

static void
take(struct hgw_relay *r, const uint8_t *f, uint32_t len, int close)
{
	const uint8_t *body;
	size_t blen, nn;
	uint64_t rseq, last = r->rx.last;
	uint8_t type, nonces[2 * HGW_RELAY_NONCE];
	int rc;

	r->frames++;
	rc = hgw_relay_hello_rx(&r->rx, &r->login_in, f, len, &type, nonces,
				&nn);
	if (rc == 0)
		take_hello(r, type, nonces, nn);
	if (rc <= 0)
		return;
	if (!r->keyed) {
		const uint8_t *p;
		size_t plen;

		/* no key to check it under yet: a relay datagram now is
		 * none of this run's (hgw-dedup answers the hello first) */
		if (hgw_relay_udp_payload(f, len, &p, &plen) == 0 &&
		    plen >= 4 && memcmp(p, "HGWR", 4) == 0)
			r->before_key++;
		else
			r->other++;
		return;
	}
	rc = hgw_relay_rx(&r->rx, f, len, &rseq, &type, &body, &blen);
	if (rc == 1) {
		r->other++;
		return;
	}
	if (rc < 0)
		return;	/* not taken: from elsewhere, not under the key, a
			 * repeat or past the window (hgw_vgate.h): counted
			 * by reason, never a kill (anyone can send one) */
	if (rseq != last + 1) {
		/* a relay datagram lost on the way: what it said the
		 * replicas cannot know */
		r->gaps++;
		if (!close)
			lost(r, "relay datagrams lost (a gap in their numbers)");
	}
	switch (type) {
	case 'S':
		take_seq(r, body, blen, close);
		break;
	case 'u':
		take_unsent(r, body, blen, close);
		break;
	case 'L':
		r->lost++;
		if (!close)
			lost(r, "hgw-dedup lost the venue session");
		break;
	case 'C':
		take_contradiction(r, body, blen, close);
		break;
	case 'O':
		/* hgw-dedup's state file: orders of an earlier run today,
		 * up to that UserRefNum, may still be open at the venue */
		r->earlier_open++;
		if (blen != 8)
			r->bad++;
		if (!close)
			hgw_ctl_kill(r->ctl, "hgw-dedup: orders of an earlier run today "
				     "may still be open at the venue: check "
				     "them there, then clear the kill switch");
		break;
	case 'A':
		r->logins++;
		break;
	case 'b':
		r->dedup_left = 1;       /* its last datagram */
		break;
	default:
		r->bad++;
		if (!close)
			lost(r, "a relay message of an unknown type");
		break;
	}
}

/* One relay message to hgw-dedup: 0 when the TX queue took it (the
 * caller retries otherwise, counted). */
static int
command_send(struct hgw_relay *r, uint8_t type, const uint8_t *body,
	     size_t blen)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(r->pool);
	uint8_t *f;
	size_t len;

	if (m == NULL) {
		r->tx_retries++;
		return -1;
	}
	f = rte_pktmbuf_mtod(m, uint8_t *);
	len = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, &r->key_out, r->rseq_out + 1,
			    type, body, blen);
	len = hgw_udp_tx_frame(&r->udp, f, len);
	m->data_len = m->pkt_len = (uint32_t)len;
	if (rte_eth_tx_burst(r->port, r->txq, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		r->tx_retries++;
		return -1;
	}
	r->rseq_out++;
	return 0;
}

/* Our hello, once (retried until the TX queue takes it). */
static void
hello_send(struct hgw_relay *r)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(r->pool);
	uint8_t *f;
	size_t len;

	if (m == NULL)
		return;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	len = hgw_relay_hello_put(f + HGW_UDP_TX_HDR_LEN, &r->login_out, 'H',
				  r->nh, sizeof(r->nh));
	len = hgw_udp_tx_frame(&r->udp, f, len);
	m->data_len = m->pkt_len = (uint32_t)len;
	if (rte_eth_tx_burst(r->port, r->txq, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return;
	}
	r->hellos_sent++;
}

void
hgw_relay_wait_keyed(struct hgw_relay *r, uint32_t ms)
{
	if (r == NULL)
		return;
	for (uint32_t i = 0; i < ms && !r->keyed; i++) {
		hgw_relay_poll(r, 0);      /* our hello, and its answer */
		if (!r->keyed)
			rte_delay_us_sleep(1000);
	}
	if (r->keyed)
		return;
	/* nothing hgw-dedup relays can be taken: answers, unsent orders,
	 * a lost session would all be missed */
	printf("venue: downstream: the relay's keys were not agreed in %u ms "
	       "(hellos sent %" PRIu64 ", no answer); trading starts with the "
	       "kill switch on\n", ms, r->hellos_sent);
	lost(r, "the relay's keys were not agreed (no answer to our hello)");
}

/* The kill switch went on: tell hgw-dedup (retried until the queue
 * takes it). */
static void
kill_send(struct hgw_relay *r)
{
	uint8_t b[4];

	if (r->kills_sent == r->kills_seen)
		return;
	hgw_vgate_be(b, r->kills_seen, 4);
	if (command_send(r, 'K', b, sizeof(b)) == 0) {
		r->kills_sent = r->kills_seen;
		r->kills_out++;
	}
}

void
hgw_relay_poll(struct hgw_relay *r, int close)
{
	struct rte_mbuf *m[32];
	unsigned int room;
	uint16_t n;

	if (r == NULL)
		return;
	if (!r->keyed && rte_get_timer_cycles() >= r->hello_next) {
		/* until answered (a hello or its answer may be lost, or
		 * hgw-dedup not there yet): every 10 ms */
		hello_send(r);
		r->hello_next = rte_get_timer_cycles() +
			       rte_get_timer_hz() / 100;
	}
	if (!close) {
		r->kills_seen = hgw_ctl_kills(r->ctl);
		if (r->keyed)
			kill_send(r);
	} else {
		/* the replicas have stopped: what still comes is journalled
		 * only, never posted (a post would fail: not running) */
		hgw_venue_ctl_close(&r->vctl);
	}
	/* no more datagrams than the replicas' event queues can take now
	 * (each is at most one event): the rest wait on the port's RX ring */
	/* a datagram posts at most 3 events (two kills for gaps, the
	 * answer; a kill is posted only while the switch is off) */
	room = close ? UINT_MAX : hgw_ctl_event_room(r->ctl) / 3;
	while (room != 0 &&
	       (n = rte_eth_rx_burst(r->port, r->rxq, m,
				     (uint16_t)RTE_MIN(room, RTE_DIM(m)))) != 0) {
		room -= room == UINT_MAX ? 0 : n;
		for (uint16_t i = 0; i < n; i++) {
			take(r, rte_pktmbuf_mtod(m[i], const uint8_t *),
			     rte_pktmbuf_data_len(m[i]), close);
			rte_pktmbuf_free(m[i]);
		}
	}
	hgw_venue_ctl_flush(&r->vctl);
}

void
hgw_relay_leave(struct hgw_relay *r)
{
	const uint64_t hz = rte_get_timer_hz();
	uint64_t end;

	if (r == NULL)
		return;
	end = rte_get_timer_cycles() + hz;
	while (!r->bye_sent && r->keyed && rte_get_timer_cycles() < end) {
		r->bye_sent = command_send(r, 'B', NULL, 0) == 0;
		if (!r->bye_sent)
			rte_delay_us_sleep(1000);
	}
	/* hgw-dedup may first take up to 1 s to send what it has queued */
	end = rte_get_timer_cycles() + 3 * hz;
	while (r->bye_sent && !r->dedup_left && rte_get_timer_cycles() < end) {
		hgw_relay_poll(r, 1);
		rte_delay_us_sleep(1000);
	}
	/* 'b' is hgw-dedup's last tx_burst on the link; let that call
	 * return before the port closes under it */
	if (r->dedup_left)
		rte_delay_us_sleep(100 * 1000);
	else
		fprintf(stderr, "hedgewire: venue relay: hgw-dedup did not "
			"confirm it left the link (%s); closing the port under "
			"it\n", r->bye_sent ? "no 'b' within 3 s" :
			!r->keyed ? "no answer to our hello: the relay's keys "
			"were never agreed" : "'B' not sent");
}

uint64_t
hgw_relay_report(struct hgw_relay *r, FILE *out)
{
	uint64_t dropped = 0;

	if (r == NULL)
		return 0;
	for (uint32_t i = 0; i < HGW_RELAY_DROP_MAX; i++)
		dropped += r->rx.drops[i];
	fprintf(out, "venue: relay datagrams dropped %" PRIu64, dropped);
	for (uint32_t i = 0; i < HGW_RELAY_DROP_MAX; i++)
		fprintf(out, "%s%s %" PRIu64, i == 0 ? " (" : ", ",
			hgw_relay_drop_name(i), r->rx.drops[i]);
	fprintf(out, ")\n");
	fprintf(out, "venue: relay from hgw-dedup: datagrams %" PRIu64
		" (other frames %" PRIu64 "), sequenced %" PRIu64 " (last %"
		PRIu64 "), unsent %" PRIu64 " (session unknown %" PRIu64
		", not taken %" PRIu64 ", after the stop %" PRIu64
		"), sessions lost %" PRIu64 ", logins %"
		PRIu64 "; gaps %" PRIu64 ", bad %" PRIu64 ", venue gaps %"
		PRIu64 ", repeats dropped %" PRIu64 "; kills sent %" PRIu64
		" (retries %" PRIu64 "), session-lost kills %" PRIu64
		"; contradictions %" PRIu64 ", earlier orders open %" PRIu64
		"; keys agreed %s (hellos sent %" PRIu64 ", answers refused %"
		PRIu64 ", datagrams before the keys %" PRIu64 ")"
		"; hgw-dedup left the link: %s\n",
		r->frames - r->other, r->other, r->seqd, r->venue_seq, r->unsent,
		r->unsent_unknown, r->unsent_failed, r->unsent_late, r->lost,
		r->logins, r->gaps,
		r->bad, r->venue_gaps, r->dups,
		r->kills_out, r->tx_retries, r->lost_kills,
		r->contradictions, r->earlier_open, r->keyed ? "yes" : "no",
		r->hellos_sent, r->hello_bad, r->before_key, r->dedup_left ? "yes" : "no");
	hgw_venue_ctl_report(&r->vctl, out, 1);
	return r->unsent_failed + r->unsent_unknown;
}

void
hgw_relay_fini(struct hgw_relay *r)
{
	if (r == NULL)
		return;
	hgw_venue_ctl_fini(&r->vctl);
	rte_mempool_free(r->pool);
	free(r);
}
