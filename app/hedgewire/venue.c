/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the order session to the venue (venue.h, docs/venue.md "Venue
 * session").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "control.h"
#include "venue.h"
#include "worker.h"

#include "hgw_cli.h"
#include "hgw_tcp.h"
#include "hgw_tcp_dlg.h"

#define die(...) hgw_cli_die("hedgewire", __VA_ARGS__)

/* recv at most this often (the TX lcore spins in between) */
#define VENUE_POLL_NS 5000
/* messages the answer ring holds; the TX lcore reads the socket only with
 * more room than one read can fill (HGW_SOUP_IN_BUF / 13: the shortest
 * Sequenced Data packet, 3 + a 10-byte System Event) */
#define VENUE_ANSWERS 16384
#define VENUE_ANSWERS_ROOM (HGW_SOUP_IN_BUF / 13 + 1)
_Static_assert(VENUE_ANSWERS_ROOM < VENUE_ANSWERS, "answer ring room");
#define VENUE_OPEN_MAX 65536
#define VENUE_SYMBOLS 1024
/* claim mode on the venue's TCP: the senders are held this many entries
 * before the open-order table is full (orders they send before they see
 * it still find room) */
#define VENUE_DLG_ROOM 1024
/* ... and the answers are read only once every order the workers claimed
 * is in the account (hgw_venue_poll); one that still finds an order not
 * handed over (this lcore stalled between that check and its read) waits
 * at most this long for it before it is judged */
#define VENUE_DLG_WAIT_US 100000
/* The order frame's SoupBinTCP packet (docs/protocols.md "Order bytes") */
#define ORDER_SOUP_OFF HGW_UDP_TX_HDR_LEN
#define ORDER_SOUP_LEN (HGW_SOUPBIN_HDR_LEN + HGW_OUCH_ENTER_ORDER_LEN)
#define ORDER_OUCH_OFF (ORDER_SOUP_OFF + HGW_SOUPBIN_HDR_LEN)

static const char *const unsent_names[] = {
#define HGW_VENUE_X(c, s) s,
	HGW_VENUE_UNSENT_REASONS(HGW_VENUE_X)
#undef HGW_VENUE_X
};

static inline uint64_t
venue_ns(const struct hgw_venue *v, uint64_t tsc)
{
	return (uint64_t)((double)(tsc - v->tsc0) * v->ns_per_tsc);
}

/* The state file (hgw_vgate_state_map): exits with one line. */
static struct hgw_venue_state *
state_map(const char *path, uint64_t *floor)
{
	char err[300];
	struct hgw_venue_state *st = hgw_vgate_state_map(path, floor, err,
							 sizeof(err));

	if (st == NULL)
		die("[venue] state_file: %s", err);
	return st;
}

/* The journal of the venue's messages: a new file every run. */
static void
journal_open(struct hgw_venue_ctl *vc, const char *path)
{
	for (int i = 0; i < 1000; i++) {
		int fd;

		if (i == 0)
			snprintf(vc->journal_path, sizeof(vc->journal_path),
				 "%s", path);
		else
			snprintf(vc->journal_path, sizeof(vc->journal_path),
				 "%s.%d", path, i);
		/* O_EXCL: never an earlier journal overwritten, nor a
		 * symbolic link followed; 0640: fills are not for every
		 * user */
		fd = open(vc->journal_path, O_WRONLY | O_CREAT | O_EXCL |
			  O_NOFOLLOW | O_CLOEXEC, 0640);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			die("[venue] journal: cannot create '%s': %s",
			    vc->journal_path, strerror(errno));
		vc->journal = fdopen(fd, "w");
		if (vc->journal == NULL)
			die("[venue] journal: '%s': %s", vc->journal_path,
			    strerror(errno));
		fprintf(vc->journal, "# hedgewire venue journal: seq "
			"rx_unix_ns type user_ref qty price match reason len "
			"hex\n");
		return;
	}
	die("[venue] journal: '%s' and 999 numbered files after it exist",
	    path);
}

/* stack = dpdk: the session's TCP on [order] port's RX and TX queue 0,
 * the TX lcore's. */
static void
tcp_init(struct hgw_venue *v, const struct hgw_config *c,
	 struct hgw_soup_cfg *sc, struct hgw_tcp_dlg *dlg)
{
	struct hgw_tcp_cfg tc;

	if (hgw_tcp_cfg_port(&tc, c->tx_port, c->venue_ip, c->venue_mask,
			     c->venue_gateway) != 0)
		die("[venue] stack = dpdk: [order] port %u has no MAC address",
		    c->tx_port);
	/* claim mode: the workers' TX queues have RX queues of their own
	 * (ports.c), on which a port may put the venue's frames too */
	if (dlg != NULL)
		tc.nrxq = (uint16_t)(c->workers + 1);
	v->tcp_offload = tc.cksum_offload;
	v->tcp = hgw_tcp_create(&tc);
	if (v->tcp == NULL)
		die("[venue] stack = dpdk: cannot set up the TCP on [order] "
		    "port %u: %s", c->tx_port, rte_strerror(rte_errno));
	sc->io = &hgw_tcp_soup_io;
	sc->io_ctx = v->tcp;
	if (dlg != NULL) {
		/* from the first claim on (UserRefNums start above 0; those
		 * up to the floor are refused by the workers themselves) */
		hgw_tcp_dlg_attach(v->tcp, dlg, 0);
		/* until logged in */
		hgw_tcp_dlg_hold(v->tcp, 1);
		v->dlg = dlg;
		v->dlg_held = 1;
	}
}

struct hgw_venue *
hgw_venue_init(const struct hgw_config *c, struct hgw_tcp_dlg *dlg)
{
	struct hgw_soup_cfg sc;
	struct hgw_venue *v;
	struct timespec ts;

	if (c->venue_host_ip == 0 || c->dedup == HGW_DEDUP_MODE_DOWNSTREAM)
		return NULL;     /* downstream: hgw-dedup's (relay.c) */
	v = rte_zmalloc("hgw_venue", sizeof(*v), RTE_CACHE_LINE_SIZE);
	if (v == NULL)
		die("cannot allocate the venue session");
	memset(&sc, 0, sizeof(sc));
	sc.ip = c->venue_host_ip;
	sc.port = c->venue_port;
	if (hgw_soup_field(sc.username, 6, c->venue_username) != 0)
		die("bad value for [venue] username: '%s' (printable ASCII)",
		    c->venue_username);
	if (hgw_soup_field(sc.password, 10, c->venue_password) != 0)
		die("bad value for [venue] password (printable ASCII)");
	if (hgw_soup_field(sc.session, 10, c->venue_session) != 0)
		die("bad value for [venue] session: '%s' (printable ASCII)",
		    c->venue_session);
	sc.heartbeat_ns = (uint64_t)c->venue_heartbeat_ms * 1000000;
	sc.dead_ns = (uint64_t)c->venue_dead_ms * 1000000;
	sc.reconnect_ns = (uint64_t)c->venue_reconnect_ms * 1000000;
	sc.out_bytes = 1 << 16;
	sc.busy_poll_us = 50;
	if (c->venue_stack == HGW_VENUE_STACK_DPDK)
		tcp_init(v, c, &sc, dlg);
	v->state = state_map(c->venue_state_file, &v->floor0);
	/* the next message not seen today: 1 on a new day; after a restart,
	 * the one after the last the previous run received (its replicas'
	 * state went with it: a restart starts flat, and does not flood the
	 * new replicas' event queues with the day's answers) */
	if (hgw_soup_init(&v->soup, &sc,
			  atomic_load_explicit(&v->state->done_seq,
					       memory_order_relaxed) + 1) != 0)
		die("cannot set up the venue session: %s", strerror(errno));

	v->answers = rte_ring_create_elem("hgw_venue_answers",
		sizeof(struct hgw_venue_msg), VENUE_ANSWERS, rte_socket_id(),
		RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (v->answers == NULL)
		die("cannot create the venue answer ring: %s",
		    rte_strerror(rte_errno));
	v->cancel_on_disconnect = (int)c->venue_cancel_on_disconnect;
	v->earlier_open = hgw_vgate_state_start(v->state, v->floor0,
						v->cancel_on_disconnect);
	if (hgw_vgate_gate_init(&v->g, c->venue_max_ops,
				c->venue_max_ops_symbol, VENUE_SYMBOLS,
				VENUE_OPEN_MAX, rte_get_tsc_hz(), v->floor0) != 0)
		die("cannot allocate the venue gate ([venue] "
		    "max_orders_per_sec = %u, max_orders_per_sec_per_symbol = "
		    "%u)", c->venue_max_ops, c->venue_max_ops_symbol);
	hgw_hist_init_precision(&v->send_lat, c->latency_bits);
	if (c->venue_journal[0] != '\0')
		journal_open(&v->ctl, c->venue_journal);
	v->hz = rte_get_tsc_hz();
	v->ns_per_tsc = 1e9 / (double)v->hz;
	v->poll_tsc = v->hz / (1000000000 / VENUE_POLL_NS);
	clock_gettime(CLOCK_REALTIME, &ts);
	v->tsc0 = rte_rdtsc();
	v->epoch_ns0 = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	hgw_soup_start(&v->soup, 0);
	printf("venue: %s:%u user '%s' session '%s', heartbeat %u ms, dead "
	       "after %u ms, reconnect %u ms; UserRefNum floor %" PRIu64
	       ", from message %" PRIu64 " (state_file %s, day %u); caps %u/s, %u/s per instrument; "
	       "cancel_on_disconnect %s; journal %s\n", c->venue_host,
	       c->venue_port, c->venue_username,
	       c->venue_session[0] ? c->venue_session : "(current)",
	       c->venue_heartbeat_ms, c->venue_dead_ms, c->venue_reconnect_ms,
	       v->g.floor, v->soup.next_seq, c->venue_state_file, v->state->day, v->g.cap_total,
	       v->g.cap_symbol, v->cancel_on_disconnect ? "yes" : "no",
	       v->ctl.journal != NULL ? v->ctl.journal_path : "none");
	return v;
}

void
hgw_venue_wait_up(struct hgw_venue *v, uint32_t ms)
{
	if (v->earlier_open) {
		/* this run starts flat, and the venue keeps what earlier
		 * runs left open: its fills would be a position no replica
		 * counts */
		printf("venue: orders of an earlier run today (UserRefNum up "
		       "to %" PRIu64 ") may still be open at the venue (%s); "
		       "trading starts with the kill switch on\n", v->floor0,
		       v->cancel_on_disconnect ?
		       "it stopped with orders open" :
		       "cancel_on_disconnect = no");
		hgw_ctl_kill(v->ctl.plane, "orders of an earlier run today "
			     "may still be open at the venue: check them "
			     "there, then clear the kill switch");
	}
	for (uint32_t i = 0; i < ms; i++) {
		/* relaxed: a start-up hint; the TX lcore checks the session
		 * itself for every order */
		if (atomic_load_explicit(&v->shared.up, memory_order_relaxed))
			return;
		if (atomic_load_explicit(&v->shared.ended,
					 memory_order_relaxed)) {
			printf("venue: the session ended before trading "
			       "started (login rejected, or end of session); "
			       "the kill switch is on\n");
			return;
		}
		rte_delay_us_sleep(1000);
	}
	printf("venue: not logged in after %u ms; trading starts with the "
	       "kill switch on\n", ms);
	hgw_ctl_session_lost(v->ctl.plane);
}

/* ---- TX lcore ---------------------------------------------------------- */

/* Hand a trigger back as unsent: the control plane posts an UNSENT
 * event, as for the kill switch's recalls. The recalled ring's overflow
 * waits in back[] (bounded; beyond it, counted as lost). */
static void
give_back(struct hgw_venue *v, struct hgw_txlcore *t, uint64_t key,
	  uint64_t seq, enum hgw_venue_unsent why)
{
	struct hgw_recalled rc = { key, seq };

	v->unsent[why]++;
	if (v->back_n == 0 &&
	    rte_ring_sp_enqueue_elem(t->recalled, &rc, sizeof(rc)) == 0)
		return;
	if (v->back_n == RTE_DIM(v->back)) {
		v->unsent_lost++;
		/* relaxed: a count, polled by the control plane */
		atomic_fetch_add_explicit(&t->unsent_lost, 1,
					  memory_order_relaxed);
		return;
	}
	v->back[(v->back_head + v->back_n++) % RTE_DIM(v->back)].key = key;
	v->back[(v->back_head + v->back_n - 1) % RTE_DIM(v->back)].seq = seq;
}

static void
back_drain(struct hgw_venue *v, struct hgw_txlcore *t)
{
	while (v->back_n != 0) {
		struct hgw_recalled rc = { v->back[v->back_head].key,
					   v->back[v->back_head].seq };

		if (rte_ring_sp_enqueue_elem(t->recalled, &rc, sizeof(rc)) != 0)
			return;
		v->back_head = (v->back_head + 1) % RTE_DIM(v->back);
		v->back_n--;
	}
}

/* A packet the session could not write whole before a drop: if it is
 * one of our orders, the venue never had it. */
static void
on_dropped(void *arg, const uint8_t *pkt, size_t len)
{
	struct hgw_txlcore *t = arg;
	struct hgw_venue *v = t->venue;
	struct hgw_venue_open *o;

	if (len != ORDER_SOUP_LEN || pkt[3] != 'O')
		return;         /* a cancel: sent again after the next login,
				 * as after any loss (hgw_venue_poll) */
	o = hgw_vgate_open_find(v->g.open, v->g.open_n, (uint32_t)pkt[4] << 24 | (uint32_t)pkt[5] << 16 |
		      (uint32_t)pkt[6] << 8 | pkt[7]);
	if (o == NULL)
		return;
	v->sent--;
	t->out.tx.orders--;
	give_back(v, t, o->key, o->seq, HGW_VENUE_UNSENT_DROPPED);
	o->qty = 0;
}

void
hgw_venue_order(struct hgw_venue *v, struct hgw_txlcore *t,
		const struct hgw_handoff *h, uint64_t deq_tsc)
{
	struct hgw_sender *s = &t->out;
	const uint8_t *f = rte_pktmbuf_mtod(h->m, const uint8_t *);
	const uint8_t *o = f + ORDER_OUCH_OFF;
	uint32_t ref = (uint32_t)o[1] << 24 | (uint32_t)o[2] << 16 |
		       (uint32_t)o[3] << 8 | o[4];
	uint32_t qty = (uint32_t)o[6] << 24 | (uint32_t)o[7] << 16 |
		       (uint32_t)o[8] << 8 | o[9];
	struct hgw_venue_sym *sym = NULL;
	struct hgw_venue_open *op;
	uint32_t why;
	uint64_t now = rte_rdtsc(), sk, t_send;

	if (unlikely(v->lies != 0)) {
		why = HGW_VENUE_UNSENT_CONTRADICTED;
		goto unsent;
	}
	if (!hgw_soup_up(&v->soup)) {
		why = HGW_VENUE_UNSENT_DOWN;
		goto unsent;
	}
	memcpy(&sk, o + 10, 8);
	why = hgw_vgate_admit(&v->g, ref, sk, now, &sym);
	if (why != HGW_VENUE_UNSENT_MAX)
		goto unsent;
	/* the floor first: a crash after it skips this number, and one
	 * before it has not sent the order */
	op = hgw_vgate_commit(&v->g, ref, qty);
	atomic_store_explicit(&v->state->last_user_ref, ref,
			      memory_order_relaxed);
	op->key = h->key;
	op->seq = h->seq;
	op->login = (uint32_t)v->soup.st.logins;
	v->sent++;
	s->tx.orders++;
	t_send = rte_rdtsc();
	if (hgw_soup_send_framed(&v->soup, f + ORDER_SOUP_OFF, ORDER_SOUP_LEN,
				 venue_ns(v, t_send)) != 0) {
		hgw_vgate_unopen(&v->g);
		v->sent--;
		s->tx.orders--;
		why = HGW_VENUE_UNSENT_OUT_FULL;
		goto unsent;
	}
	if (!hgw_soup_up(&v->soup)) {
		/* the socket failed on it: on_dropped handed it back */
		rte_pktmbuf_free(h->m);
		return;
	}
	now = rte_rdtsc();
	/* stack = dpdk: to the segment's tx_burst, as the UDP orders are
	 * measured (unless it waits in the send ring for the window) */
	if (v->tcp != NULL && hgw_tcp_tx_tsc(v->tcp) >= t_send)
		now = hgw_tcp_tx_tsc(v->tcp);
	hgw_hist_record(&v->send_lat, now - deq_tsc);
	hgw_hist_record(s->rx_to_tx, now - h->rx_tsc);
	s->misses += now - h->rx_tsc > s->miss_tsc;
	v->state->orders++;
	hgw_vgate_sent(&v->g, sym, now);
	if (s->journal != NULL)
		/* stamped when it was handed to send() */
		s->tx.journal_full += hgw_journal_put(s->journal, &h->m, 1,
						      t_send);
	rte_pktmbuf_free(h->m);
	return;
unsent:
	give_back(v, t, h->key, h->seq, why);
	rte_pktmbuf_free(h->m);
}

static uint32_t cod_login(const struct hgw_venue *v);

void
hgw_venue_take(struct hgw_venue *v, struct hgw_txlcore *t,
	       const struct hgw_handoff *h)
{
	struct hgw_sender *s = &t->out;
	const uint8_t *o = rte_pktmbuf_mtod_offset(h->m, const uint8_t *,
						   ORDER_OUCH_OFF);
	uint32_t ref = (uint32_t)o[1] << 24 | (uint32_t)o[2] << 16 |
		       (uint32_t)o[3] << 8 | o[4];
	uint32_t qty = (uint32_t)o[6] << 24 | (uint32_t)o[7] << 16 |
		       (uint32_t)o[8] << 8 | o[9];
	struct hgw_venue_open *op;

	if (h->sent != HGW_TCP_DLG_SENT) {
		/* claimed, not sent: why, as hgw_venue_order would say */
		give_back(v, t, h->key, h->seq,
			  h->sent == HGW_DLG_BY_NUMBER || ref <= v->floor0 ?
			  HGW_VENUE_UNSENT_USER_REF :
			  v->lies != 0 ? HGW_VENUE_UNSENT_CONTRADICTED :
			  h->sent == HGW_TCP_DLG_FULL ?
			  HGW_VENUE_UNSENT_OUT_FULL :
			  v->g.open_n + VENUE_DLG_ROOM >= v->g.open_max ?
			  HGW_VENUE_UNSENT_OPEN_FULL : HGW_VENUE_UNSENT_DOWN);
		rte_pktmbuf_free(h->m);
		return;
	}
	op = hgw_vgate_commit_sent(&v->g, ref, qty);
	if (op != NULL) {
		op->key = h->key;
		op->seq = h->seq;
		op->login = (uint32_t)v->soup.st.logins;
	} else {
		/* at the venue, and no answer to it can be matched: every
		 * replica counts it, the position is uncertain (the control
		 * plane sets the kill switch and keeps it on) */
		v->dlg_untracked++;
		/* relaxed: a count, polled by the control plane */
		atomic_fetch_add_explicit(&t->unsent_lost, 1,
					  memory_order_relaxed);
	}
	if (ref > atomic_load_explicit(&v->state->last_user_ref,
				       memory_order_relaxed))
		atomic_store_explicit(&v->state->last_user_ref, ref,
				      memory_order_relaxed);
	v->sent++;
	v->state->orders++;
	s->tx.orders++;
	hgw_hist_record(s->rx_to_tx, h->tx_tsc - h->rx_tsc);
	s->misses += h->tx_tsc - h->rx_tsc > s->miss_tsc;
	if (s->journal != NULL)
		s->tx.journal_full += hgw_journal_put(s->journal, &h->m, 1,
						      h->tx_tsc);
	/* the kill switch went on and its recall runs: an order that left
	 * meanwhile is cancelled with the rest */
	if (t->recall_on)
		v->cancel_pending = hgw_vgate_gate_sweep(&v->g, cod_login(v));
	rte_pktmbuf_free(h->m);
}

/* hgw_vgate_cod_login of the session now */
static uint32_t
cod_login(const struct hgw_venue *v)
{
	return hgw_vgate_cod_login(v->cancel_on_disconnect, v->soup.st.logins,
				   hgw_soup_up(&v->soup));
}

/* The kill's cancels not yet answered (those the venue cancelled on
 * disconnect aside). */
static uint32_t
owed(const struct hgw_venue *v)
{
	return hgw_vgate_gate_owed(&v->g, cod_login(v));
}

/* Send the cancels still due (from cancel_next on). */
static void
cancel_run(struct hgw_venue *v, uint64_t now)
{
	/* with cancel_on_disconnect, what went before this login the venue
	 * cancelled when that connection dropped */
	if (hgw_vgate_cancel_run(&v->soup, v->g.open, v->g.open_n,
				 &v->g.cancel_next, cod_login(v),
				 venue_ns(v, now), &v->cancels_sent))
		v->cancel_pending = 0;
}

void
hgw_venue_kill(struct hgw_venue *v, struct hgw_txlcore *t)
{
	(void)t;
	v->kills++;
	/* claim mode on the TCP: no worker sends from now on (their claims
	 * are handed back, as a recall does) */
	if (v->dlg != NULL) {
		hgw_tcp_dlg_hold(v->tcp, 1);
		v->dlg_held = 1;
	}
	/* (none open: none to send, nor to wait for at a stop) */
	v->cancel_pending = hgw_vgate_gate_sweep(&v->g, cod_login(v));
	if (hgw_soup_up(&v->soup))
		cancel_run(v, rte_rdtsc());
}

/* One sequenced message from the venue, in sequence order. */
static void
on_message(void *arg, uint64_t seq, const uint8_t *msg, size_t len)
{
	struct hgw_txlcore *t = arg;
	struct hgw_venue *v = t->venue;
	struct hgw_venue_msg m;
	const char *why = NULL;

	memset(&m, 0, sizeof(m));
	m.rx_ns = v->epoch_ns0 + venue_ns(v, rte_rdtsc());
	m.len = (uint16_t)(len > UINT16_MAX ? UINT16_MAX : len);
	memcpy(m.raw, msg, len < HGW_VENUE_RAW ? len : HGW_VENUE_RAW);
	v->msgs++;
	atomic_store_explicit(&v->state->last_seq, seq, memory_order_relaxed);
	/* claim mode on the TCP: every order a worker claimed up to now is
	 * in the open table before an answer is matched against it (the
	 * worker hands it over just after its send: the wait is for a
	 * worker stalled in between, bounded) */
	if (v->dlg != NULL && !hgw_txlcore_dlg_taken(t)) {
		uint64_t end = rte_rdtsc() + v->hz / 1000000 *
					     VENUE_DLG_WAIT_US;

		v->dlg_waits++;
		while (!hgw_txlcore_dlg_taken(t) && rte_rdtsc() < end)
			rte_pause();
	}
	if (hgw_ouch_answer_decode(msg, len, seq, &m.a, &why) == 0) {
		m.ok = 1;
		if (hgw_vgate_open_answer(v->g.open, v->g.open_n, v->floor0, &m.a,
					  &v->venue_cancelled,
					  &v->venue_cancelled_qty,
					  &m.lie) != HGW_VGATE_LIE_NONE)
			/* the position is uncertain: no order goes from now
			 * on (hgw_venue_order), and every open one is
			 * cancelled once the read is done (hgw_venue_poll);
			 * the control lcore sets the kill switch when it
			 * takes this message */
			v->lies++;
	} else {
		v->answers_bad++;
		m.a.seq = seq;
		m.a.type = len != 0 ? msg[0] : 0;
	}
	if (rte_ring_sp_enqueue_elem(v->answers, &m, sizeof(m)) != 0)
		v->answers_lost++;
	if (!m.ok)
		/* the replicas cannot take it (the control lcore sets the
		 * kill switch): drop the connection, as for a malformed
		 * packet; the reconnect asks for the message after it */
		hgw_soup_abort(&v->soup, venue_ns(v, rte_rdtsc()));
}

void
hgw_venue_poll(struct hgw_venue *v, struct hgw_txlcore *t)
{
	uint64_t now = rte_rdtsc();

	if (v->tcp != NULL)
		hgw_tcp_poll(v->tcp, now);
	if (v->back_n != 0)
		back_drain(v, t);
	if (now < v->next_poll)
		return;
	v->next_poll = now + v->poll_tsc;
	v->soup.drop_fn = on_dropped;
	v->soup.drop_arg = t;
	/* read only with room for all one read can deliver: a venue
	 * message is never dropped on its way to the replicas. Without
	 * room the session's timers still run: our heartbeats go, and
	 * what waits unread in the socket keeps the server alive */
	/* claim mode on the TCP: a worker between its send and its
	 * hand-over (descheduled, say) holds the read back too: an answer
	 * to its order is matched only once the order is in the account */
	if (rte_ring_free_count(v->answers) < VENUE_ANSWERS_ROOM ||
	    (v->dlg != NULL && !hgw_txlcore_dlg_taken(t))) {
		v->reads_held++;
		if (v->held_since == 0)
			v->held_since = now;
		hgw_soup_poll_timers(&v->soup, venue_ns(v, now));
	} else {
		if (v->held_since != 0) {
			v->held_max = RTE_MAX(v->held_max, now - v->held_since);
			v->held_since = 0;
		}
		hgw_soup_poll(&v->soup, venue_ns(v, now), on_message, t);
	}
	if (unlikely(v->lies != 0) && !v->lie_swept) {
		/* outside the read: the cancels go on the same socket */
		v->lie_swept = 1;
		hgw_venue_kill(v, t);
	}
	if (v->soup.st.lost_up != v->lost_up_seen) {
		/* a session lost after a login: cancels written to it may
		 * never have reached the venue, and the kill that follows
		 * (set now, or on already) wants every open order cancelled
		 * after the next login; so does a stop before then */
		v->lost_up_seen = v->soup.st.lost_up;
		v->cancel_pending = hgw_vgate_gate_sweep(&v->g, cod_login(v));
	}
	if (v->soup.st.lost_up + (v->soup.state == HGW_SOUP_ENDED) !=
	    v->lost_seen_up) {
		/* lost after a login, or ended for the run (End of Session,
		 * Login Rejected: counted once) */
		v->lost_seen_up = (uint32_t)(v->soup.st.lost_up +
					     (v->soup.state == HGW_SOUP_ENDED));
		/* what was open: with cancel_on_disconnect the venue has
		 * cancelled it (and says so after the next login); else it
		 * is cancelled after the next login (the kill that follows
		 * asks for it) */
		/* release: the counters above happen-before the control
		 * lcore's acquire load that sees the new value */
		atomic_store_explicit(&v->shared.lost, v->lost_seen_up,
				      memory_order_release);
	}
	if (v->dlg != NULL) {
		/* the workers send only while logged in, no answer has
		 * contradicted us, no kill's recall runs, and the open-order
		 * table has room */
		int hold;

		if (v->g.open_n + VENUE_DLG_ROOM >= v->g.open_max)
			hgw_vgate_gate_compact(&v->g);
		hold = !hgw_soup_up(&v->soup) || v->lies != 0 ||
		       t->recall_on ||
		       v->g.open_n + VENUE_DLG_ROOM >= v->g.open_max;
		if (hold != v->dlg_held) {
			hgw_tcp_dlg_hold(v->tcp, hold);
			v->dlg_held = hold;
		}
	}
	atomic_store_explicit(&v->shared.up, hgw_soup_up(&v->soup),
			      memory_order_relaxed);
	atomic_store_explicit(&v->shared.ended,
			      v->soup.state == HGW_SOUP_ENDED,
			      memory_order_relaxed);
	if (v->cancel_pending && hgw_soup_up(&v->soup))
		cancel_run(v, now);
}


void
hgw_venue_stop(struct hgw_venue *v, struct hgw_txlcore *t)
{
	/* the whole stop: the session's dead time, and 2 s at least (the
	 * Logout gets what is left, 2 s at least) */
	const uint64_t wait = RTE_MAX(2 * v->hz, v->soup.cfg.dead_ns /
				      1000000 * (v->hz / 1000));
	uint64_t end = rte_rdtsc() + wait;

	/* the cancels a kill still owes go before the logout, after a
	 * reconnect if the session is down (on a loaded host that can take
	 * longer than a moment), and the venue answers each (a session
	 * lost first sends them again after the next login) */
	while ((v->cancel_pending || owed(v) != 0) &&
	       v->soup.state != HGW_SOUP_ENDED && rte_rdtsc() < end)
		hgw_venue_poll(v, t);
	v->owed_stop = owed(v);
	if (v->cancel_pending || v->owed_stop != 0) {
		v->owed_stop += v->cancel_pending;
		fprintf(stderr, "hedgewire: venue: stopping with cancels "
			"%s (the session is %s): orders may be open at the "
			"venue\n", v->cancel_pending ? "not sent" :
			"not answered", hgw_soup_up(&v->soup) ? "up" : "down");
	}
	/* stack = dpdk: nobody sends our bytes once we are gone, so the
	 * orders given to the TCP are acknowledged by the venue's host
	 * before the logout; what is not is said, and the exit status
	 * tells (hgw_venue_report) */
	if (v->tcp != NULL) {
		while (hgw_soup_up(&v->soup) && hgw_tcp_unacked(v->tcp) != 0 &&
		       rte_rdtsc() < end)
			hgw_venue_poll(v, t);
		v->unacked_stop = hgw_soup_up(&v->soup) ?
				  hgw_tcp_unacked(v->tcp) : 0;
	}
	/* Logout Request, then what the venue still sends (its answers to
	 * our last orders) until it closes (a venue slow to read our last
	 * orders is as slow to read the Logout) */
	end = RTE_MAX(end, rte_rdtsc() + 2 * v->hz);
	hgw_soup_logout(&v->soup, venue_ns(v, rte_rdtsc()));
	while (v->soup.state == HGW_SOUP_CLOSING && rte_rdtsc() < end)
		hgw_venue_poll(v, t);
	hgw_soup_stop(&v->soup, venue_ns(v, rte_rdtsc()));
	atomic_store_explicit(&v->shared.up, 0, memory_order_relaxed);
	hgw_vgate_state_end(v->state, v->g.open, v->g.open_n);
}

/* ---- control lcore ------------------------------------------------------ */

static void
journal_line(struct hgw_venue_ctl *vc, const struct hgw_venue_msg *m)
{
	size_t n = m->len < HGW_VENUE_RAW ? m->len : HGW_VENUE_RAW;

	if (vc->journal == NULL)
		return;
	fprintf(vc->journal, "%" PRIu64 " %" PRIu64 " %c %" PRIu32 " %" PRIu32
		" %" PRIu64 " %" PRIu64 " %u %u ", m->a.seq, m->rx_ns,
		m->a.type >= 0x21 && m->a.type < 0x7f ? m->a.type : '?',
		m->a.user_ref, m->a.qty, m->a.price, m->a.match, m->a.reason,
		m->len);
	for (size_t i = 0; i < n; i++)
		fprintf(vc->journal, "%02x", m->raw[i]);
	if (fprintf(vc->journal, "%s\n", m->ok ? "" : " BAD") < 0)
		vc->journal_errors++;
}

void
hgw_venue_ctl_take(struct hgw_venue_ctl *vc, const struct hgw_venue_msg *m)
{
	journal_line(vc, m);
	if (m->ok && m->lie.lie != HGW_VGATE_LIE_NONE && vc->closed)
		/* after the replicas stopped: no kill to set, but the run
		 * still says so, and its exit status */
		hgw_ctl_contradicted(vc->plane, &m->lie);
	if (vc->closed)
		return;
	if (!m->ok) {
		/* an answer the replicas cannot take: they would miss what
		 * it says, so stop trading */
		vc->not_posted++;
		vc->lost_calls++;
		hgw_ctl_session_lost(vc->plane);
		return;
	}
	if (hgw_ctl_venue_answer(vc->plane, &m->a) == 0)
		vc->posted++;
	else
		vc->not_posted++;
	if (m->lie.lie != HGW_VGATE_LIE_NONE)
		/* after the answer itself: every replica takes it, then
		 * the kill */
		hgw_ctl_contradicted(vc->plane, &m->lie);
}

void
hgw_venue_ctl_close(struct hgw_venue_ctl *vc)
{
	vc->closed = 1;
}

void
hgw_venue_ctl_bind(struct hgw_venue_ctl *vc, struct hgw_ctl *plane)
{
	vc->plane = plane;
}

void
hgw_venue_ctl_open(struct hgw_venue_ctl *vc, const struct hgw_config *c)
{
	if (c->venue_journal[0] != '\0' && vc->journal == NULL)
		journal_open(vc, c->venue_journal);
}

int
hgw_venue_ctl_flush(struct hgw_venue_ctl *vc)
{
	if (vc->journal != NULL && fflush(vc->journal) != 0) {
		vc->journal_errors++;
		return -1;
	}
	return 0;
}

void
hgw_venue_ctl_report(struct hgw_venue_ctl *vc, FILE *out, int close)
{
	vc->closed |= close;
	fprintf(out, "venue: relayed messages to the replicas %" PRIu64
		", not taken %" PRIu64 ", journal %s%s\n", vc->posted,
		vc->not_posted, vc->journal != NULL ? vc->journal_path : "none",
		vc->journal_errors ? " (WRITE ERRORS)" : "");
}

void
hgw_venue_ctl_fini(struct hgw_venue_ctl *vc)
{
	if (vc->journal != NULL)
		fclose(vc->journal);
	vc->journal = NULL;
}

void
hgw_venue_ctl_poll(struct hgw_venue *v)
{
	struct hgw_venue_ctl *vc = &v->ctl;
	struct hgw_venue_msg m[32];
	unsigned int n, room = vc->closed ? UINT_MAX :
			    hgw_ctl_event_room(vc->plane);
	uint64_t done = 0;
	/* acquire: pairs with the TX lcore's release of the new count */
	uint32_t lost = atomic_load_explicit(&v->shared.lost,
					     memory_order_acquire);

	/* no more than the replicas' event queues can take now: the rest
	 * waits in the ring (and then at the venue: the TX lcore reads the
	 * socket only while the ring has room) */
	while (room != 0 &&
	       (n = rte_ring_sc_dequeue_burst_elem(v->answers, m, sizeof(m[0]),
						   RTE_MIN(RTE_DIM(m), room),
						   NULL)) != 0) {
		room -= n;
		for (unsigned int i = 0; i < n; i++) {
			hgw_venue_ctl_take(vc, &m[i]);
			done = m[i].a.seq;
		}
	}
	if (vc->journal != NULL && fflush(vc->journal) != 0)
		vc->journal_errors++;
	else if (done != 0)
		/* in the file (the kernel's: a SIGKILL keeps it) and with the
		 * replicas: a restart asks for the message after it */
		atomic_store_explicit(&v->state->done_seq, done,
				      memory_order_relaxed);
	if (lost != vc->lost_seen && !vc->closed) {
		vc->lost_seen = lost;
		vc->lost_calls++;
		hgw_ctl_session_lost(vc->plane);
	}
}

uint64_t
hgw_venue_report(struct hgw_venue *v, FILE *out)
{
	const struct hgw_soup_stats *st = &v->soup.st;
	uint64_t unsent = 0;
	/* a hold still under way counts up to now */
	uint64_t held = v->held_since == 0 ? v->held_max :
			RTE_MAX(v->held_max, rte_rdtsc() - v->held_since);

	/* what came after the replicas stopped goes to the journal only */
	v->ctl.closed = 1;
	hgw_venue_ctl_poll(v);
	fprintf(out, "venue: orders sent %" PRIu64 ", UserRefNum last %" PRIu64
		", connects %" PRIu64 " (failed %" PRIu64 "), logins %" PRIu64
		", rejected %" PRIu64 ", sessions lost %" PRIu64 " (last: %s)\n",
		v->sent, (uint64_t)atomic_load_explicit(&v->state->last_user_ref,
							memory_order_relaxed),
		st->connects, st->connect_failed, st->logins, st->rejects,
		st->lost_up, hgw_soup_loss_name(v->soup.last_loss));
	for (uint32_t i = 1; i < HGW_SOUP_LOSS_MAX; i++)
		if (st->loss[i] != 0 && i != HGW_SOUP_LOSS_STOP)
			fprintf(out, "venue: connection dropped (%s) %" PRIu64
				"\n", hgw_soup_loss_name(i), st->loss[i]);
	for (int i = 0; i < HGW_VENUE_UNSENT_MAX; i++) {
		unsent += v->unsent[i];
		if (v->unsent[i] != 0)
			fprintf(out, "venue: unsent (%s) %" PRIu64 "\n",
				unsent_names[i], v->unsent[i]);
	}
	fprintf(out, "venue: unsent %" PRIu64 " in all, handed back as "
		"UNSENT (lost: %" PRIu64 ")\n", unsent, v->unsent_lost);
	fprintf(out, "venue: messages %" PRIu64 " (bad %" PRIu64 ", lost %"
		PRIu64 "), to the replicas %" PRIu64 ", not taken %" PRIu64
		", reads held back (answer ring short of room) %" PRIu64
		" polls (longest hold %.0f ms), journal %s%s\n", v->msgs,
		v->answers_bad, v->answers_lost, v->ctl.posted, v->ctl.not_posted,
		v->reads_held, (double)held * 1e3 / (double)v->hz,
		v->ctl.journal != NULL ? v->ctl.journal_path : "none",
		v->ctl.journal_errors ? " (WRITE ERRORS)" : "");
	fprintf(out, "venue: soupbin heartbeats sent %" PRIu64 " received %"
		PRIu64 ", duplicates %" PRIu64 ", malformed %" PRIu64
		", unknown %" PRIu64 ", out-of-sequence %" PRIu64
		", refused full %" PRIu64 ", partial writes %" PRIu64
		", dropped unwritten %" PRIu64 "\n", st->hb_sent, st->hb_recv,
		st->duplicates, st->malformed, st->unknown,
		st->out_of_sequence, st->refused_full, st->partial_writes,
		st->dropped_out);
	fprintf(out, "venue: kills %" PRIu64 ", cancels sent %" PRIu64
		", cancelled by the venue after a kill %" PRIu64 " (%" PRIu64
		" shares), session-lost kills %" PRIu64 "\n", v->kills,
		v->cancels_sent, v->venue_cancelled, v->venue_cancelled_qty,
		v->ctl.lost_calls);
	if (v->tcp != NULL)
		hgw_tcp_report(v->tcp, v->tcp_offload, "venue", out);
	if (v->dlg != NULL)
		fprintf(out, "venue: claim mode: orders sent by the winning "
			"worker %" PRIu64 ", not in the open-order table %"
			PRIu64 ", answers that waited for a claim's hand-over %"
			PRIu64 ", bytes the workers put in the stream %" PRIu64
			"\n", v->sent, v->dlg_untracked, v->dlg_waits,
			hgw_tcp_stats(v->tcp)->dlg_bytes);
	if (v->dlg_untracked != 0)
		fprintf(stderr, "hedgewire: venue: %" PRIu64 " orders sent with "
			"no room in the open-order table: their answers could "
			"not be matched\n", v->dlg_untracked);
	if (v->unacked_stop != 0)
		fprintf(stderr, "hedgewire: venue: %" PRIu64 " bytes of orders "
			"not acknowledged by the venue's host when the session "
			"stopped: they may not have reached it\n",
			v->unacked_stop);
	if (v->dlg == NULL)
		hgw_hist_print(&v->send_lat, out, "venue_send",
			       1e9 / (double)rte_get_tsc_hz(),
			       v->tcp != NULL ?
			       "ns, dedup dequeue to the segment's tx_burst, "
			       "per order" :
			       "ns, dedup dequeue to send() returned, per order");
	return v->answers_lost + v->unsent_lost + v->unacked_stop +
	       v->owed_stop + v->dlg_untracked;
}

void
hgw_venue_fini(struct hgw_venue *v)
{
	if (v == NULL)
		return;
	hgw_venue_ctl_fini(&v->ctl);
	hgw_vgate_state_unmap(v->state);
	hgw_soup_fini(&v->soup);
	hgw_tcp_free(v->tcp);
	rte_ring_free(v->answers);
	hgw_vgate_gate_fini(&v->g);
	rte_free(v);
}
