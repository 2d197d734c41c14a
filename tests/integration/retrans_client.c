/* SPDX-License-Identifier: BSD-3-Clause
 * retrans-client: hgw-meter's MoldUDP64 re-request server, end to end,
 * without hedgewire. A memif client (hgw-meter is the server) that takes
 * the replay on --queues RX queues, finds the gap --drop made on one of
 * them with lib/feed's decoder, asks for it with a lib/mold request on
 * that queue, and checks that the answers carry exactly the capture's
 * messages (read here with libpcap): same session, sequence numbers and
 * bytes, unicast to it, from the server's address, on the queue that
 * asked and no other, at most 1400 bytes of UDP payload, checksums right.
 *
 *   retrans-client [EAL args] -- --pcap F --drop Q:A-B --server IP:PORT
 *       [--queues N] [--retrans-max M]
 *
 * First request: as soon as the gap shows, during the replay. The rest
 * once SIGUSR1 says the meter has reported and holds the wire: the gap
 * again, the last messages of the capture and some beyond it (what it
 * has), more than --retrans-max from 1 (cut there), one sent to the
 * broadcast MAC (answered from a unicast one), an unknown session and a
 * bad one (count 0), both answered with nothing, and one message. Each
 * answer is awaited until it is complete (a meter sharing CPUs can be
 * late), then for 100 ms more. Then it stops polling and closes the
 * port: on memif the meter holds the wire until then, never closing
 * under a client that polls. Prints one line per check; exit 0 when all
 * pass, 1 otherwise.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "hgw_cli.h"
#include "hgw_feed.h"
#include "hgw_mold.h"

#define PROG "retrans-client"
#define BURST 32
#define MAX_Q 4
#define MY_IP 0x0A000002u       /* 10.0.0.2 */
#define MY_PORT 40000
#define RT_PAYLOAD 1400u

#define die(...) hgw_cli_die(PROG, __VA_ARGS__)

/* A message of the capture, or of an answer. */
struct msg {
	uint16_t session;       /* index into sessions[] */
	uint16_t len;
	uint64_t seq;
	const uint8_t *data;
};

static struct {
	const char *pcap;
	uint16_t dq, queues;
	uint32_t da, db;
	uint32_t srv_ip;
	uint16_t srv_port, rt_max;
} o = { .queues = 2, .rt_max = 1000 };

/* the capture */
static uint8_t **frames;
static uint32_t nframes;
static char sessions[HGW_FEED_MAX_SESSIONS][HGW_MOLD_SESSION_LEN];
static uint32_t nsessions;
static struct msg *cap;         /* in decoder order: by session, seq */
static uint32_t ncap;
static uint32_t drop_first = UINT32_MAX, drop_n;        /* in cap[] */

/* what came back */
static struct msg *got;
static uint32_t ngot, got_cap;
static uint8_t got_store[1 << 22];
static uint32_t got_used;

static struct rte_mempool *pool;
static struct rte_ether_addr my_mac;
static _Atomic int go;
static int failures;

static void
on_usr1(int sig)
{
	(void)sig;
	atomic_store_explicit(&go, 1, memory_order_relaxed);
}

static void
check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures += !ok;
}

static int
session_index(const char name[HGW_MOLD_SESSION_LEN])
{
	for (uint32_t i = 0; i < nsessions; i++)
		if (memcmp(sessions[i], name, HGW_MOLD_SESSION_LEN) == 0)
			return (int)i;
	return -1;
}

/* Every message the capture carries for the first time, in order, as
 * the meter indexes them; the ones of frames A..B are the gap. */
static void
capture_load(void)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *d;
	struct hgw_feed_conf conf = { 0 };
	static struct hgw_feed f;
	uint32_t cap_n = 0;
	pcap_t *p = pcap_open_offline(o.pcap, err);

	if (p == NULL)
		die("--pcap %s: %s", o.pcap, err);
	hgw_feed_init(&f, &conf);
	while (pcap_next_ex(p, &h, &d) == 1) {
		struct hgw_feed_pkt fp;
		uint8_t *copy = malloc(h->caplen);
		int rc;

		if (copy == NULL)
			die("out of memory");
		memcpy(copy, d, h->caplen);
		frames = realloc(frames, (nframes + 1) * sizeof(*frames));
		if (frames == NULL)
			die("out of memory");
		frames[nframes] = copy;
		rc = hgw_feed_packet(&f, copy, h->caplen, &fp);
		if (rc > 0) {
			const uint8_t *b = fp.next;

			for (int k = 0; k < rc; k++) {
				if (ncap == cap_n) {
					cap_n = cap_n ? 2 * cap_n : 4096;
					cap = realloc(cap, cap_n * sizeof(*cap));
					if (cap == NULL)
						die("out of memory");
				}
				if (nframes + 1 >= o.da && nframes + 1 <= o.db) {
					if (drop_first == UINT32_MAX)
						drop_first = ncap;
					drop_n++;
				}
				cap[ncap++] = (struct msg){ .session = fp.session,
					.len = hgw_be16(b), .seq = fp.seq + (uint64_t)k,
					.data = b + 2 };
				b += 2u + hgw_be16(b);
			}
		}
		nframes++;
	}
	pcap_close(p);
	nsessions = f.nsessions;
	for (uint32_t i = 0; i < nsessions; i++)
		memcpy(sessions[i], f.sessions[i].name, HGW_MOLD_SESSION_LEN);
	if (o.db > nframes || drop_n == 0)
		die("--drop %u-%u: the capture has %u frames, and those must "
		    "carry messages", o.da, o.db, nframes);
}

/* The capture's messages of [seq, seq + count) of session s, cut at
 * --retrans-max: what the server must answer. */
static uint32_t
expected(int s, uint64_t seq, uint32_t count, struct msg *out, uint32_t room)
{
	uint32_t n = 0;

	if (count > o.rt_max)
		count = o.rt_max;
	for (uint32_t i = 0; i < ncap && s >= 0; i++)
		if (cap[i].session == s && cap[i].seq >= seq &&
		    cap[i].seq - seq < count && n < room)
			out[n++] = cap[i];
	return n;
}

/* ------------------------------------------------------------ the port */

static struct hgw_feed feeds[MAX_Q];
static uint64_t feed_frames[MAX_Q], answer_pkts[MAX_Q], big_answers;
static uint64_t bad_answers, gaps[MAX_Q];
static uint64_t gap_seq, gap_count;
static int gap_session = -1;
static uint8_t expect_src_mac[6];
static int expect_any_unicast;

/* An answer: every message kept, in arrival order, with its queue. */
static void
take_answer(uint16_t q, const uint8_t *d, uint32_t len)
{
	struct hgw_feed_conf conf = { .group = MY_IP, .port = MY_PORT,
				      .join_baseline = 1 };
	static struct hgw_feed dec;
	struct hgw_feed_pkt p;
	const uint8_t *m;
	uint16_t ml;
	int rc;

	answer_pkts[q]++;
	/* one packet at a time: the same messages may be asked twice */
	hgw_feed_init(&dec, &conf);
	rc = hgw_feed_packet(&dec, d, len, &p);
	if (rc <= 0 || len < HGW_MOLD_FRAME_HDR_LEN ||
	    memcmp(d, my_mac.addr_bytes, 6) != 0 ||
	    hgw_be32(d + 14 + 12) != o.srv_ip ||
	    hgw_be16(d + 34) != o.srv_port ||
	    (expect_any_unicast ? (d[6] & 1) != 0 :
	     memcmp(d + 6, expect_src_mac, 6) != 0)) {
		bad_answers++;
		return;
	}
	if (len - HGW_MOLD_FRAME_HDR_LEN > RT_PAYLOAD)
		big_answers++;
	while ((m = hgw_feed_next(&dec, &p, &ml)) != NULL) {
		int s = session_index(dec.sessions[p.session].name);

		if (ngot == got_cap) {
			got_cap = got_cap ? 2 * got_cap : 4096;
			got = realloc(got, got_cap * sizeof(*got));
			if (got == NULL)
				die("out of memory");
		}
		if (got_used + ml > sizeof(got_store))
			die("answers: more bytes than expected");
		memcpy(got_store + got_used, m, ml);
		got[ngot++] = (struct msg){ .session = (uint16_t)(s < 0 ? 0xFFFF : s),
			.len = ml, .seq = p.seq - 1, .data = got_store + got_used };
		got_used += ml;
		/* the queue it came on, kept in the high bits of session */
		got[ngot - 1].session |= (uint16_t)(q << 12);
	}
}

static void
send_request(uint16_t q, const uint8_t dst_mac[6], const char *session,
	     uint64_t seq, uint16_t count)
{
	struct hgw_mold_addr a = { .src_ip = MY_IP, .dst_ip = o.srv_ip,
				   .src_port = MY_PORT, .dst_port = o.srv_port };
	struct rte_mbuf *b = rte_pktmbuf_alloc(pool);
	uint32_t len;
	uint64_t t0 = rte_get_timer_cycles();

	if (b == NULL)
		die("no mbuf for a request");
	memcpy(a.src_mac, my_mac.addr_bytes, 6);
	memcpy(a.dst_mac, dst_mac, 6);
	len = hgw_mold_request_frame(rte_pktmbuf_mtod(b, uint8_t *),
				     rte_pktmbuf_tailroom(b), &a, session, seq,
				     count);
	if (len == 0)
		die("request does not fit an mbuf");
	b->data_len = (uint16_t)len;
	b->pkt_len = len;
	while (rte_eth_tx_burst(0, q, &b, 1) == 0)
		if (rte_get_timer_cycles() - t0 > rte_get_timer_hz())
			die("TX queue %u took no request for 1 s", q);
}

/* Poll every queue once: replay frames to the decoders (the first gap on
 * --drop's queue asks for it at once), answers kept. */
static uint32_t
poll_once(void)
{
	uint32_t total = 0;

	for (uint16_t q = 0; q < o.queues; q++) {
		struct rte_mbuf *pkts[BURST];
		uint16_t n = rte_eth_rx_burst(0, q, pkts, BURST);

		for (uint16_t i = 0; i < n; i++) {
			const uint8_t *d = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(pkts[i]);
			struct hgw_feed *f = &feeds[q];
			struct hgw_feed_pkt p;
			uint64_t before = 0;

			if (hgw_mold_udp_to(d, len, MY_IP, MY_PORT)) {
				take_answer(q, d, len);
				continue;
			}
			feed_frames[q]++;
			if (f->current >= 0)
				before = f->sessions[f->current].next_seq;
			if (hgw_feed_packet(f, d, len, &p) > 0 && p.gap) {
				gaps[q]++;
				if (q == o.dq && gap_session < 0) {
					gap_session = session_index(
						f->sessions[p.session].name);
					gap_seq = before;
					gap_count = p.seq - before;
					/* a unicast MAC for the server's side */
					memcpy(expect_src_mac,
					       "\x02\x00\x00\x00\x00\xfe", 6);
					send_request(q, expect_src_mac,
						     sessions[gap_session],
						     gap_seq, (uint16_t)gap_count);
				}
			}
		}
		rte_pktmbuf_free_bulk(pkts, n);
		total += n;
	}
	return total;
}

/* The replay frames queue q must get. */
static uint64_t
replay_frames(uint16_t q)
{
	return q == o.dq ? nframes - (o.db - o.da + 1) : nframes;
}

/* Poll until nothing has come for quiet_ms (or max_ms passed). */
static void
poll_quiet(uint32_t quiet_ms, uint32_t max_ms)
{
	const uint64_t ms = rte_get_timer_hz() / 1000;
	uint64_t start = rte_get_timer_cycles(), last = start;

	for (;;) {
		uint64_t now = rte_get_timer_cycles();

		if (poll_once() != 0)
			last = now;
		if (now - last > quiet_ms * ms || now - start > max_ms * ms)
			return;
	}
}

/* Poll until n messages have come back since mark (at most 5 s: a meter
 * sharing CPUs can be late), then until none has come for 100 ms, for
 * any the server should not have sent. */
static void
await(uint32_t mark, uint32_t n)
{
	const uint64_t hz = rte_get_timer_hz();
	uint64_t start = rte_get_timer_cycles();

	while (ngot - mark < n && rte_get_timer_cycles() - start < 5 * hz)
		poll_once();
	poll_quiet(100, 2000);
}

/* The answers taken since mark equal want, all on queue q. */
static void
compare(const char *what, uint32_t mark, uint16_t q, const struct msg *want,
	uint32_t nwant)
{
	uint32_t n = ngot - mark, i;
	int same = n == nwant, queue_ok = 1;

	for (i = 0; i < n; i++) {
		const struct msg *g = &got[mark + i];

		if ((g->session >> 12) != q)
			queue_ok = 0;
		if (i < nwant && ((g->session & 0xFFF) != want[i].session ||
				  g->seq != want[i].seq || g->len != want[i].len ||
				  memcmp(g->data, want[i].data, g->len) != 0))
			same = 0;
	}
	check(same, "%s: %u messages back, want %u%s", what, n, nwant,
	      same ? ", same sequence numbers and bytes as the capture" :
	      ": they differ from the capture");
	check(queue_ok, "%s: every answer on queue %u", what, q);
}

static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "pcap", required_argument, NULL, 'p' },
		{ "drop", required_argument, NULL, 'd' },
		{ "server", required_argument, NULL, 's' },
		{ "queues", required_argument, NULL, 'q' },
		{ "retrans-max", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	char host[INET_ADDRSTRLEN + 1];
	struct in_addr a;
	unsigned int q, x, y, port;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.pcap = optarg;
			break;
		case 'd':
			if (sscanf(optarg, "%u:%u-%u", &q, &x, &y) != 3 ||
			    q >= MAX_Q || x < 1 || y < x)
				hgw_cli_bad(PROG, "drop", optarg);
			o.dq = (uint16_t)q;
			o.da = x;
			o.db = y;
			break;
		case 's':
			if (sscanf(optarg, "%16[0-9.]:%u", host, &port) != 2 ||
			    inet_pton(AF_INET, host, &a) != 1 || port == 0 ||
			    port > 65535)
				hgw_cli_bad(PROG, "server", optarg);
			o.srv_ip = ntohl(a.s_addr);
			o.srv_port = (uint16_t)port;
			break;
		case 'q':
			o.queues = (uint16_t)hgw_cli_num(PROG, "queues", optarg,
							 1, MAX_Q);
			break;
		case 'm':
			o.rt_max = (uint16_t)hgw_cli_num(PROG, "retrans-max",
							 optarg, 1, 65535);
			break;
		default:
			return -1;
		}
	}
	if (o.pcap == NULL || o.db == 0 || o.srv_port == 0 ||
	    o.dq >= o.queues)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static struct msg want[70000];
	struct rte_eth_conf pc;
	struct rte_eth_link l;
	uint64_t t0;
	uint32_t nwant, mark, last_s_n = 0;
	uint16_t nrxd = 1024, ntxd = 1024;
	int rc = rte_eal_init(argc, argv);
	const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const char nobody[HGW_MOLD_SESSION_LEN] = "NOSUCHSESS";
	struct hgw_feed_conf any = { 0 };

	if (rc < 0)
		die("EAL init failed: %s", rte_strerror(rte_errno));
	if (parse_args(argc - rc, argv + rc) != 0)
		die("usage: " PROG " [EAL args] -- --pcap F --drop Q:A-B "
		    "--server IP:PORT [--queues N] [--retrans-max M]");
	capture_load();
	signal(SIGUSR1, on_usr1);
	for (uint16_t q = 0; q < MAX_Q; q++)
		hgw_feed_init(&feeds[q], &any);

	pool = rte_pktmbuf_pool_create("retrans_client", 8191, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL)
		die("no mbuf pool: %s", rte_strerror(rte_errno));
	memset(&pc, 0, sizeof(pc));
	rc = rte_eth_dev_configure(0, o.queues, o.queues, &pc);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(0, &nrxd, &ntxd);
	for (uint16_t q = 0; rc == 0 && q < o.queues; q++)
		rc = rte_eth_rx_queue_setup(0, q, nrxd, rte_socket_id(), NULL,
					    pool);
	for (uint16_t q = 0; rc == 0 && q < o.queues; q++)
		rc = rte_eth_tx_queue_setup(0, q, ntxd, rte_socket_id(), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(0);
	if (rc == 0)
		rc = rte_eth_macaddr_get(0, &my_mac);
	if (rc != 0)
		die("port 0: setup failed: %s", strerror(-rc));
	t0 = rte_get_timer_cycles();
	do {
		memset(&l, 0, sizeof(l));
		rte_eth_link_get_nowait(0, &l);
		if (rte_get_timer_cycles() - t0 > 10 * rte_get_timer_hz())
			die("port 0: link down after 10 s");
	} while (l.link_status != RTE_ETH_LINK_UP);
	printf(PROG ": %u frames, %u messages; frames %u-%u (%u messages) "
	       "dropped on queue %u\n", nframes, ncap, o.da, o.db, drop_n, o.dq);
	fflush(stdout);

	/* the replay, and the first request as soon as the gap shows */
	t0 = rte_get_timer_cycles();
	mark = ngot;
	for (;;) {
		uint16_t q;

		for (q = 0; q < o.queues; q++)
			if (feed_frames[q] < replay_frames(q))
				break;
		if (q == o.queues)
			break;
		poll_once();
		if (rte_get_timer_cycles() - t0 > 60 * rte_get_timer_hz())
			break;
	}
	nwant = gap_session < 0 ? 0 :
		expected(gap_session, gap_seq, (uint32_t)gap_count, want,
			 RTE_DIM(want));
	await(mark, nwant);
	for (uint16_t q = 0; q < o.queues; q++)
		check(feed_frames[q] == replay_frames(q),
		      "queue %u: %" PRIu64 " replay frames (capture %u, %u "
		      "dropped there)", q, feed_frames[q], nframes,
		      q == o.dq ? o.db - o.da + 1 : 0);
	for (uint16_t q = 0; q < o.queues; q++)
		check(gaps[q] == (q == o.dq), "queue %u: %" PRIu64 " gap(s) seen",
		      q, gaps[q]);
	check(gap_session >= 0 && gap_count == drop_n &&
	      gap_seq == cap[drop_first].seq,
	      "the gap is messages %" PRIu64 "+%" PRIu64 ", the dropped "
	      "frames' %" PRIu64 "+%u", gap_seq, gap_count,
	      cap[drop_first].seq, drop_n);
	nwant = expected(gap_session, gap_seq, (uint32_t)gap_count, want,
			 RTE_DIM(want));
	compare("request 1 (the gap, during the replay)", mark, o.dq, want,
		nwant);

	/* the rest while the meter holds the wire */
	printf(PROG ": waiting for SIGUSR1 (the meter is done)\n");
	fflush(stdout);
	t0 = rte_get_timer_cycles();
	while (!atomic_load_explicit(&go, memory_order_relaxed)) {
		poll_once();
		if (rte_get_timer_cycles() - t0 > 60 * rte_get_timer_hz())
			die("no SIGUSR1 within 60 s");
	}

	mark = ngot;
	send_request(o.dq, expect_src_mac, sessions[gap_session], gap_seq,
		     (uint16_t)gap_count);
	await(mark, nwant);
	compare("request 2 (the gap again, while the wire is held)", mark,
		o.dq, want, nwant);

	/* the capture's last 5 messages of the gap's session and 10 more */
	for (uint32_t i = 0; i < ncap; i++)
		if (cap[i].session == gap_session)
			last_s_n = i;
	mark = ngot;
	nwant = expected(gap_session, cap[last_s_n].seq - 4, 15, want,
			 RTE_DIM(want));
	send_request(0, expect_src_mac, sessions[gap_session],
		     cap[last_s_n].seq - 4, 15);
	await(mark, nwant);
	check(nwant == 5, "request 3 wants the capture's last 5 messages");
	compare("request 3 (past the capture's end)", mark, 0, want, nwant);

	/* more than --retrans-max from 1: cut there, in many packets */
	mark = ngot;
	nwant = expected(gap_session, 1, o.rt_max + 100u, want, RTE_DIM(want));
	send_request(0, expect_src_mac, sessions[gap_session], 1,
		     (uint16_t)RTE_MIN(65535u, o.rt_max + 100u));
	await(mark, nwant);
	compare("request 4 (over --retrans-max)", mark, 0, want, nwant);

	/* to the broadcast MAC: answered from a unicast one */
	mark = ngot;
	expect_any_unicast = 1;
	nwant = expected(gap_session, gap_seq, 3, want, RTE_DIM(want));
	send_request(o.dq, bcast, sessions[gap_session], gap_seq, 3);
	await(mark, nwant);
	compare("request 5 (to the broadcast MAC)", mark, o.dq, want, nwant);
	expect_any_unicast = 0;

	/* an unknown session and a bad request (count 0) get nothing; the
	 * one message asked for after them on the same queue comes back
	 * only once the server has read both (a ring is in order), so the
	 * meter has counted them before we close */
	mark = ngot;
	send_request(0, expect_src_mac, nobody, 1, 10);
	send_request(0, expect_src_mac, sessions[gap_session], 1, 0);
	nwant = expected(gap_session, 2, 1, want, RTE_DIM(want));
	send_request(0, expect_src_mac, sessions[gap_session], 2, 1);
	await(mark, nwant);
	compare("request 6 (unknown session), a bad one (count 0), request 7 "
		"(one message)", mark, 0, want, nwant);

	check(bad_answers == 0, "%" PRIu64 " answers with a wrong address, "
	      "checksum or MAC", bad_answers);
	check(big_answers == 0, "%" PRIu64 " answers over %u bytes of UDP "
	      "payload", big_answers, RT_PAYLOAD);
	for (uint16_t q = 0; q < o.queues; q++)
		printf(PROG ": queue %u: %" PRIu64 " answer packets\n", q,
		       answer_pkts[q]);
	printf("%s: %d check(s) failed\n", failures ? "FAIL" : "PASS", failures);
	fflush(stdout);

	/* stop polling, then close: the meter lets go once we are gone */
	rte_eth_dev_stop(0);
	rte_eth_dev_close(0);
	rte_eal_cleanup();
	return failures ? 1 : 0;
}
