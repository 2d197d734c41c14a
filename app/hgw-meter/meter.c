/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: external replay and wire-to-wire meter.
 *
 *   hgw-meter [EAL args] -- --pcap FEED.pcap [options]
 *
 * A separate DPDK process that plays a capture into hedgewire over a
 * port and receives hedgewire's orders on the same or another port: the
 * view from outside the box, both hops included. On one host the port is
 * a memif "wire" between the two processes: the meter is the memif server
 * (it starts first and waits for the link), hedgewire the client:
 *
 *   hgw-meter -l0 --file-prefix m \
 *       --vdev net_memif0,role=server,socket=S,socket-abstract=no \
 *       -- --pcap feed.pcap --copies 2 --pace rate --pps 20000
 *   (once it has printed its "port" line:)
 *   hedgewire -l0-2 --file-prefix h \
 *       --vdev net_memif0,role=client,socket=S,socket-abstract=no \
 *       -- -c conf.ini --set run.workers=2 \
 *       --set run.stop_at_end_of_session=no --set run.idle_timeout_ms=0
 *   (once the meter has printed "done": stop hedgewire, SIGTERM)
 *
 * The order matters on memif (DPDK 22.11): the client connects once and
 * does not retry, so the server must be listening and started; and the
 * PMD unmaps the shared memory on disconnect, under a peer that may be
 * inside rx_burst, which faults it. So neither side may close while the
 * other polls: hedgewire must not stop on its own during the run, and
 * the meter, after its report, holds the wire (polling nothing) until
 * hedgewire has disconnected (--hold-ms). The server takes the number of
 * queues the client asks for, up to its own: a copy queue the client did
 * not connect takes nothing, and is given up after --stall-ms, counted.
 * Each side masks the interrupts of the rings it polls, so tx_burst on
 * memif makes no system call.
 *
 * The meter is the duplicating switch: every packet leaves on --copies TX
 * queues, one per hedgewire worker (memif queue q reaches worker q's RX
 * queue), and each worker's orders come back on its own TX queue, that is
 * the meter's RX queue q. On a lab host the port is a NIC.
 *
 * Every order is matched to its trigger from its ClOrdID (the session's
 * last 4 characters and the sequence number mod 10^10,
 * docs/protocols.md "Order bytes"; the UserRefNum must agree): the ITCH
 * message with that sequence number, carried by one packet of the capture.
 * Its latency is the TSC when rx_burst returned the order minus the TSC
 * read just before the
 * first tx_burst of that packet (queue 0: the copies for the other queues
 * are handed over right after, in queue order). With --expect (an orders
 * pcap, e.g. from tests/ref/hgw_ref.py) every expected trigger must get
 * exactly one order: the others are counted as misses, never dropped.
 *
 * With --retrans IP:PORT the meter is also the MoldUDP64 re-request
 * server (lib/mold): a request to that address on RX queue q is answered
 * on TX queue q, so the worker that saw the gap gets the messages, by
 * unicast to the requester, with the capture's messages of that session
 * and those sequence numbers (indexed at start-up: the ones a packet of
 * the capture carries for the first time, as the decoder sees them), at
 * most --retrans-max, in packets of at most 1400 bytes of UDP payload.
 * Requests are served during the replay and, unlike anything else, while
 * the meter holds the wire after its report: a worker may still be
 * asking then. That reopens the memif race above on the meter's side;
 * hold_wire says how far it is narrowed. --drop Q:A-B keeps frames A..B
 * off queue Q: a gap that only worker Q sees, for the server to fill.
 *
 * One lcore: the sender polls the order queues while it waits for the
 * next release time and while a TX queue is full. After start-up there
 * is no allocation and no system call: packets are loaded into mbufs once
 * and sent again and again with a reference per copy.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "hgw_cli.h"
#include "hgw_feed.h"
#include "hgw_latency.h"
#include "hgw_mold.h"
#include "hgw_order.h"
#include "hgw_port.h"

#define PROG "hgw-meter"
#define BURST 32
#define MAX_COPIES 16
#define MAX_FRAME 9216          /* jumbo; the pool's data room */
#define CLORDID_MOD 10000000000ull
#define MAX_DROPS 16
/* MoldUDP64 answers: UDP payload per packet, as Nasdaq's servers keep
 * under a 1500-byte MTU; blocks that fit one (2-byte length each) */
#define RT_PAYLOAD 1400u
#define RT_MAX_BLOCKS ((RT_PAYLOAD - HGW_MOLD_HDR_LEN) / 2)

enum pace { PACE_PCAP, PACE_RATE, PACE_TOP };

static const char *const pace_names[] = {
	[PACE_PCAP] = "pcap", [PACE_RATE] = "rate", [PACE_TOP] = "top",
};

struct opts {
	const char *pcap, *expect, *csv, *json;
	struct hgw_feed_conf feed;
	uint16_t port, order_port, copies, order_queues;
	enum pace pace;
	double speed;
	uint64_t pps;
	uint32_t loops;
	uint64_t timeout_us;
	uint32_t wait_ms, link_ms, settle_ms, stall_ms, hold_ms, mbufs;
	/* --retrans: the re-request server's address (host order) */
	int retrans;
	uint32_t rt_ip;
	uint16_t rt_port, rt_max;
	/* --drop Q:A-B: frames a..b (1-based) not sent on queue q */
	struct drop { uint16_t q; uint32_t a, b; uint8_t corrupt; } drops[MAX_DROPS];
	uint32_t ndrops;
};

/* Orders that match no expected trigger, by reason (X-macro: code, name,
 * help). Every order is counted once: matched, duplicate, or here. */
#define METER_UNEXPECTED(X)                                                    \
	X(BAD_CLORDID,  "bad_clordid",  "ClOrdID is not 4 characters and 10 digits") \
	X(NO_SESSION,   "no_session",   "ClOrdID names none of the replayed MoldUDP64 sessions") \
	X(NO_TRIGGER,   "no_trigger",   "no replayed packet carries that sequence number") \
	X(BAD_USERREF,  "bad_userref",  "UserRefNum is not the sequence number mod 2^32") \
	X(NOT_SENT,     "not_sent_yet", "its trigger had not been sent yet")     \
	X(NOT_EXPECTED, "not_expected", "a replayed trigger, but not one --expect lists")

enum meter_unexpected {
#define METER_UNEXPECTED_ENUM(code, name, help) UNEXPECTED_##code,
	METER_UNEXPECTED(METER_UNEXPECTED_ENUM)
#undef METER_UNEXPECTED_ENUM
	UNEXPECTED_MAX
};

static const char *const unexpected_names[] = {
#define METER_UNEXPECTED_NAME(code, name, help) name,
	METER_UNEXPECTED(METER_UNEXPECTED_NAME)
#undef METER_UNEXPECTED_NAME
};

static const char *const unexpected_help[] = {
#define METER_UNEXPECTED_HELP(code, name, help) help,
	METER_UNEXPECTED(METER_UNEXPECTED_HELP)
#undef METER_UNEXPECTED_HELP
};

/* Sequence numbers one packet of the capture carries for the first time
 * (a duplicate packet's repeats belong to the first packet that carried
 * them: that is the copy hedgewire acts on). */
struct range {
	uint64_t seq;           /* first sequence number */
	uint32_t count;
	uint32_t pkt;           /* the packet */
	uint64_t msg;           /* index of its first message in flags[] */
	uint16_t session;
	uint16_t off;           /* its first new block: offset in the frame */
};

struct session {
	char name[HGW_MOLD_SESSION_LEN];
	uint32_t first, n;      /* ranges[first, first + n), by sequence */
};

#define F_ANSWERED 1
#define F_EXPECTED 2

struct meter {
	uint16_t port, oport, copies, nrxq;
	uint32_t npkts;
	struct rte_mbuf **pkts;
	uint64_t *off;          /* release time, TSC cycles after the loop's t0 */
	uint64_t *sent_tsc;     /* TSC before its first tx_burst; 0: not yet */
	uint64_t stall_tsc, timeout_tsc;
	uint8_t qdead[MAX_COPIES];

	uint32_t nsessions;
	struct session sessions[HGW_FEED_MAX_SESSIONS];
	struct range *ranges;
	uint32_t nranges;
	uint64_t nmsgs;
	uint8_t *flags;         /* per message: F_* */
	uint32_t *exp;          /* per message: 1 + expected order index, or 0 */
	uint8_t *exp_frames;    /* --expect: HGW_ORDER_FRAME_LEN bytes each */
	uint32_t nexp;

	/* --drop */
	const struct drop *drops;
	uint32_t ndrops;
	uint8_t qdrops[MAX_COPIES];     /* queue q has --drop ranges */
	uint64_t dropped[MAX_COPIES];   /* frames not sent on q by --drop */
	uint64_t corrupted[MAX_COPIES]; /* frames sent damaged on q (--corrupt) */
	struct rte_mempool *cp_pool;    /* --corrupt: the damaged copies */

	/* --retrans: the re-request server */
	int rt_on;
	int holding;            /* after the report: only requests count */
	uint32_t rt_ip;
	uint16_t rt_port, rt_max;
	struct rte_ether_addr mac;      /* the feed port's */
	struct rte_mempool *rt_pool;
	const uint8_t **blk;    /* per message: its block (length prefix) */
	uint64_t rt_requests, rt_answered, rt_messages, rt_packets;
	uint64_t rt_not_had, rt_limited, rt_bad, rt_lost, hold_frames;

	/* counters */
	uint64_t packets_sent, copies_sent, tx_dropped, capture_truncated;
	uint64_t ts_backwards, no_trigger, dup_frames, non_feed;
	uint64_t frames, other_frames, orders, matched, late, duplicates;
	uint64_t differs, expected_unknown, no_order;
	uint64_t unexpected[UNEXPECTED_MAX];
	struct hgw_hist w2w;    /* TSC cycles: order RX minus trigger TX */
	struct hgw_hist lag;    /* TSC cycles: tx_burst minus release time */
};

/* Written by the signal handler, read by the loops; relaxed: a flag that
 * orders nothing. */
static _Atomic int stop;

static void
on_signal(int sig)
{
	(void)sig;
	atomic_store_explicit(&stop, 1, memory_order_relaxed);
}

static inline int
stopped(void)
{
	return atomic_load_explicit(&stop, memory_order_relaxed);
}

#define die(...) hgw_cli_die(PROG, __VA_ARGS__)

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " PROG " [EAL args] -- --pcap FEED.pcap [options]\n"
		"  --pcap FILE        capture to replay (Ethernet; loaded at start)\n"
		"  --port P           DPDK port the feed leaves on (default 0)\n"
		"  --copies N         TX queues, one copy of every packet each: one\n"
		"                     per hedgewire worker (default 1)\n"
		"  --order-port Q     DPDK port the orders come back on (default: --port)\n"
		"  --order-queues N   its RX queues (default: --copies, one per worker)\n"
		"  --pace MODE        pcap (timestamps / --speed, default), rate\n"
		"                     (--pps), top (back to back)\n"
		"  --speed X          pcap pace: X times faster (default 1)\n"
		"  --pps N            rate pace: packets per second (default 100000)\n"
		"  --loops L          replay L times (default 1; later loops repeat\n"
		"                     sequence numbers hedgewire already saw)\n"
		"  --timeout-us T     an order later than T us is a miss (default 1000)\n"
		"  --expect FILE      orders pcap of the expected orders: every one\n"
		"                     must come back exactly once, byte for byte\n"
		"  --wait-ms MS       wait for late orders after the last packet\n"
		"                     (default 500)\n"
		"  --link-timeout-ms MS  wait this long for the link (default 5000)\n"
		"  --settle-ms MS     pause between link up and the first packet\n"
		"                     (default 200)\n"
		"  --stall-ms MS      a TX queue that takes nothing this long is\n"
		"                     dead: its copies are dropped, counted (default 1000)\n"
		"  --hold-ms MS       memif: after the report, keep the wire open\n"
		"                     until the peer disconnects, at most MS\n"
		"                     (default 10000; 0: close at once)\n"
		"  --group A.B.C.D    triggers: only MoldUDP64 to this group (default any)\n"
		"  --udp-port N       triggers: only to this UDP port (default any)\n"
		"  --retrans IP:PORT  also the MoldUDP64 re-request server at this\n"
		"                     address: requests on RX queue q are answered\n"
		"                     on TX queue q with the capture's messages,\n"
		"                     during the replay and while holding the wire\n"
		"  --retrans-max N    messages answered per request at most\n"
		"                     (default 1000)\n"
		"  --drop Q:A-B       frames A to B (from 1) of the capture are not\n"
		"                     sent on queue Q: a gap for that worker only\n"
		"                     (repeatable, at most 16; Q:A for one frame)\n"
		"  --corrupt Q:A-B    frames A to B go to queue Q with one bit of\n"
		"                     their last byte flipped (checksums as they\n"
		"                     were): damaged for that worker only\n"
		"  --mbufs N          RX pool size (default 8191)\n"
		"  --csv PREFIX       write PREFIX-wire_to_wire.csv and PREFIX-send_lag.csv\n"
		"  --json FILE        counters and histograms as one JSON object\n");
}

static double
num_real(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= min && v <= max))
		hgw_cli_bad(PROG, opt, s);
	return v;
}

/* A.B.C.D:PORT, port 1 to 65535. */
static int
parse_ip_port(const char *arg, uint32_t *ip, uint16_t *port)
{
	uint64_t v;

	if (hgw_parse_ipv4_num(arg, ':', 1, UINT16_MAX, ip, &v) != 0)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* Q:A-B or Q:A, 1 <= A <= B. */
static int
parse_drop(const char *arg, struct drop *d)
{
	const char *p = arg;
	uint64_t q, a, b;

	if (hgw_parse_dec(&p, 0, MAX_COPIES - 1, &q) != 0 || *p++ != ':' ||
	    hgw_parse_dec(&p, 1, UINT32_MAX, &a) != 0)
		return -1;
	b = a;
	if (*p == '-' && (++p, hgw_parse_dec(&p, a, UINT32_MAX, &b) != 0))
		return -1;
	if (*p != '\0')
		return -1;
	*d = (struct drop){ .q = (uint16_t)q, .a = (uint32_t)a,
			    .b = (uint32_t)b };
	return 0;
}

static void
parse(int argc, char **argv, struct opts *o)
{
	enum {
		O_PCAP = 256, O_PORT, O_COPIES, O_OPORT, O_OQUEUES, O_PACE,
		O_SPEED, O_PPS, O_LOOPS, O_TIMEOUT, O_EXPECT, O_WAIT, O_LINK,
		O_SETTLE, O_STALL, O_HOLD, O_GROUP, O_UDP, O_MBUFS, O_CSV, O_JSON,
		O_RETRANS, O_RT_MAX, O_DROP, O_CORRUPT,
	};
	static const struct option lo[] = {
		{ "pcap", required_argument, NULL, O_PCAP },
		{ "port", required_argument, NULL, O_PORT },
		{ "copies", required_argument, NULL, O_COPIES },
		{ "order-port", required_argument, NULL, O_OPORT },
		{ "order-queues", required_argument, NULL, O_OQUEUES },
		{ "pace", required_argument, NULL, O_PACE },
		{ "speed", required_argument, NULL, O_SPEED },
		{ "pps", required_argument, NULL, O_PPS },
		{ "loops", required_argument, NULL, O_LOOPS },
		{ "timeout-us", required_argument, NULL, O_TIMEOUT },
		{ "expect", required_argument, NULL, O_EXPECT },
		{ "wait-ms", required_argument, NULL, O_WAIT },
		{ "link-timeout-ms", required_argument, NULL, O_LINK },
		{ "settle-ms", required_argument, NULL, O_SETTLE },
		{ "stall-ms", required_argument, NULL, O_STALL },
		{ "hold-ms", required_argument, NULL, O_HOLD },
		{ "group", required_argument, NULL, O_GROUP },
		{ "udp-port", required_argument, NULL, O_UDP },
		{ "mbufs", required_argument, NULL, O_MBUFS },
		{ "csv", required_argument, NULL, O_CSV },
		{ "json", required_argument, NULL, O_JSON },
		{ "retrans", required_argument, NULL, O_RETRANS },
		{ "retrans-max", required_argument, NULL, O_RT_MAX },
		{ "drop", required_argument, NULL, O_DROP },
		{ "corrupt", required_argument, NULL, O_CORRUPT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, oport_set = 0, oq_set = 0, rt_max_set = 0;
	struct in_addr a;

	memset(o, 0, sizeof(*o));
	o->copies = 1;
	o->pace = PACE_PCAP;
	o->speed = 1;
	o->pps = 100000;
	o->loops = 1;
	o->timeout_us = 1000;
	o->wait_ms = 500;
	o->link_ms = 5000;
	o->settle_ms = 200;
	o->stall_ms = 1000;
	o->hold_ms = 10000;
	o->mbufs = 8191;
	o->rt_max = 1000;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_PCAP:
			o->pcap = optarg;
			break;
		case O_PORT:
			o->port = (uint16_t)hgw_cli_num(PROG, "port", optarg, 0,
							RTE_MAX_ETHPORTS - 1);
			break;
		case O_COPIES:
			o->copies = (uint16_t)hgw_cli_num(PROG, "copies", optarg,
							  1, MAX_COPIES);
			break;
		case O_OPORT:
			o->order_port = (uint16_t)hgw_cli_num(PROG, "order-port",
						optarg, 0, RTE_MAX_ETHPORTS - 1);
			oport_set = 1;
			break;
		case O_OQUEUES:
			o->order_queues = (uint16_t)hgw_cli_num(PROG,
					"order-queues", optarg, 1, MAX_COPIES);
			oq_set = 1;
			break;
		case O_PACE:
			if (strcmp(optarg, "pcap") == 0)
				o->pace = PACE_PCAP;
			else if (strcmp(optarg, "rate") == 0)
				o->pace = PACE_RATE;
			else if (strcmp(optarg, "top") == 0)
				o->pace = PACE_TOP;
			else
				hgw_cli_bad(PROG, "pace", optarg);
			break;
		case O_SPEED:
			o->speed = num_real("speed", optarg, 1e-6, 1e9);
			break;
		case O_PPS:
			o->pps = hgw_cli_num(PROG, "pps", optarg, 1, 1000000000);
			break;
		case O_LOOPS:
			o->loops = (uint32_t)hgw_cli_num(PROG, "loops", optarg, 1,
							 1000000);
			break;
		case O_TIMEOUT:
			o->timeout_us = hgw_cli_num(PROG, "timeout-us", optarg,
						    1, 3600000000ull);
			break;
		case O_EXPECT:
			o->expect = optarg;
			break;
		case O_WAIT:
			o->wait_ms = (uint32_t)hgw_cli_num(PROG, "wait-ms", optarg,
							   0, 3600000);
			break;
		case O_LINK:
			o->link_ms = (uint32_t)hgw_cli_num(PROG, "link-timeout-ms",
							   optarg, 1, 3600000);
			break;
		case O_SETTLE:
			o->settle_ms = (uint32_t)hgw_cli_num(PROG, "settle-ms",
							     optarg, 0, 3600000);
			break;
		case O_STALL:
			o->stall_ms = (uint32_t)hgw_cli_num(PROG, "stall-ms",
							    optarg, 1, 3600000);
			break;
		case O_HOLD:
			o->hold_ms = (uint32_t)hgw_cli_num(PROG, "hold-ms", optarg,
							   0, 3600000);
			break;
		case O_GROUP:
			if (inet_pton(AF_INET, optarg, &a) != 1)
				hgw_cli_bad(PROG, "group", optarg);
			o->feed.group = ntohl(a.s_addr);
			break;
		case O_UDP:
			o->feed.port = (uint16_t)hgw_cli_num(PROG, "udp-port",
							     optarg, 0, 65535);
			break;
		case O_MBUFS:
			o->mbufs = (uint32_t)hgw_cli_num(PROG, "mbufs", optarg,
							 63, 1u << 24);
			break;
		case O_CSV:
			o->csv = optarg;
			break;
		case O_JSON:
			o->json = optarg;
			break;
		case O_RETRANS:
			if (parse_ip_port(optarg, &o->rt_ip, &o->rt_port) != 0)
				hgw_cli_bad(PROG, "retrans", optarg);
			o->retrans = 1;
			break;
		case O_RT_MAX:
			o->rt_max = (uint16_t)hgw_cli_num(PROG, "retrans-max",
							  optarg, 1, UINT16_MAX);
			rt_max_set = 1;
			break;
		case O_DROP:
		case O_CORRUPT:
			if (o->ndrops == MAX_DROPS)
				die("at most %u --drop and --corrupt ranges",
				    MAX_DROPS);
			if (parse_drop(optarg, &o->drops[o->ndrops]) != 0)
				hgw_cli_bad(PROG, c == O_DROP ? "drop" :
					    "corrupt", optarg);
			o->drops[o->ndrops++].corrupt = c == O_CORRUPT;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);
	if (o->pcap == NULL)
		die("--pcap FILE is required (the capture to replay)");
	if (!oport_set)
		o->order_port = o->port;
	if (!oq_set)
		o->order_queues = o->copies;
	if (rt_max_set && !o->retrans)
		die("--retrans-max needs --retrans IP:PORT");
	for (uint32_t i = 0; i < o->ndrops; i++)
		if (o->drops[i].q >= o->copies)
			die("--drop %u:%u-%u: queue %u, but --copies %u sends on "
			    "queues 0 to %u", o->drops[i].q, o->drops[i].a,
			    o->drops[i].b, o->drops[i].q, o->copies,
			    o->copies - 1);
}

/* ------------------------------------------------------------ the capture */

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
static void
capture_load(struct meter *m, const struct opts *o)
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

/* The range of the session ClOrdID names that holds seq, or NULL; *why
 * says which lookup failed. */
static inline const struct range *
trigger_find(const struct meter *m, const struct hgw_ouch_order *o,
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

/* --expect: mark every expected order's trigger and keep its frame. */
static void
expect_load(struct meter *m, const char *path)
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
		r = trigger_find(m, &o, seq, &why);
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

/* ------------------------------------------------------------- fast path */

/* One order frame received at rx_tsc: matched, duplicate or unexpected. */
static inline void
account(struct meter *m, const uint8_t *d, uint32_t len, uint64_t rx_tsc)
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
	r = trigger_find(m, &o, seq, &why);
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

/* ------------------------------------------------------ re-request server */

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
static int
retrans_frame(struct meter *m, uint16_t q, const uint8_t *d, uint32_t len)
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

/* Poll every order queue once; returns the frames received. Requests to
 * --retrans are answered; while the wire is held after the report, other
 * frames are only counted. */
static inline uint32_t
poll_orders(struct meter *m)
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

			if (m->rt_on && retrans_frame(m, q, d, len))
				continue;
			if (unlikely(m->holding)) {
				m->hold_frames++;
				continue;
			}
			account(m, d, len, rx_tsc);
		}
		rte_pktmbuf_free_bulk(pkts, n);
		total += n;
	}
	return total;
}

/* Hand frames [i, i + k), all due, to every live TX queue: one burst per
 * queue, queue 0 first, each copy a reference to the loaded mbuf (the PMD
 * drops it once sent). The send time of a frame is the TSC read just
 * before the first of these bursts; later loops keep the first loop's.
 * A full queue is retried while the order queues are polled; one that
 * takes nothing for --stall-ms (a full ring nobody drains, or a memif
 * queue the peer did not connect) is dead from then on: its copies are
 * dropped and counted. */
/* Is frame f (from 0) of the capture one --drop keeps off queue q (1)
 * or --corrupt damages on it (2)? 0: sent as it is. */
static inline int
dropped(const struct meter *m, uint16_t q, uint32_t f)
{
	for (uint32_t r = 0; r < m->ndrops; r++)
		if (m->drops[r].q == q && f + 1 >= m->drops[r].a &&
		    f + 1 <= m->drops[r].b)
			return m->drops[r].corrupt ? 2 : 1;
	return 0;
}

/* --corrupt: a copy of f with one bit of its last byte flipped (the
 * checksums left as they were), for one queue; NULL: no mbuf. */
static struct rte_mbuf *
damaged_copy(struct meter *m, struct rte_mbuf *f)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(f, m->cp_pool, 0, UINT32_MAX);

	if (c != NULL)
		rte_pktmbuf_mtod(c, uint8_t *)[rte_pktmbuf_data_len(c) - 1] ^= 0x04;
	return c;
}

static void
send_frames(struct meter *m, uint32_t i, uint16_t k, uint64_t t0)
{
	struct rte_mbuf **p = m->pkts + i;
	uint16_t live = 0;
	uint64_t now;

	for (uint16_t q = 0; q < m->copies; q++)
		live += !m->qdead[q];
	if (live == 0) {
		m->tx_dropped += (uint64_t)k * m->copies;
		return;
	}
	for (uint16_t j = 0; j < k; j++)
		rte_mbuf_refcnt_update(p[j], (int16_t)live);
	now = rte_rdtsc();
	for (uint16_t j = 0; j < k; j++) {
		if (m->sent_tsc[i + j] == 0)
			m->sent_tsc[i + j] = now;
		hgw_hist_record(&m->lag, now - (t0 + m->off[i + j]));
	}
	m->packets_sent += k;
	for (uint16_t q = 0; q < m->copies; q++) {
		struct rte_mbuf *sel[BURST], **src = p;
		uint64_t since = now;
		uint16_t done = 0, nq = k;

		if (m->qdead[q]) {
			m->tx_dropped += k;
			continue;
		}
		if (unlikely(m->qdrops[q])) {
			/* --drop: this queue's copy of those frames is lost */
			nq = 0;
			for (uint16_t j = 0; j < k; j++) {
				int d = dropped(m, q, i + j);
				struct rte_mbuf *c;

				if (d == 0) {
					sel[nq++] = p[j];
					continue;
				}
				c = d == 2 ? damaged_copy(m, p[j]) : NULL;
				rte_pktmbuf_free(p[j]); /* our reference */
				if (c != NULL) {
					sel[nq++] = c;
					m->corrupted[q]++;
				} else {
					m->dropped[q]++;
				}
			}
			src = sel;
		}
		while (done < nq) {
			uint16_t s = rte_eth_tx_burst(m->port, q, src + done,
						      (uint16_t)(nq - done));

			if (s != 0) {
				done += s;
				since = rte_rdtsc();
				continue;
			}
			poll_orders(m);
			if (rte_rdtsc() - since > m->stall_tsc || stopped()) {
				if (!stopped())
					m->qdead[q] = 1;
				for (uint16_t j = done; j < nq; j++)
					rte_pktmbuf_free(src[j]); /* our reference */
				m->tx_dropped += nq - done;
				break;
			}
		}
		m->copies_sent += done;
	}
}

/* One pass over the capture, released from t0. */
static void
replay_once(struct meter *m, uint64_t t0)
{
	uint32_t i = 0;

	while (i < m->npkts && !stopped()) {
		uint64_t due = t0 + m->off[i], now;
		uint16_t k = 1;

		while ((now = rte_rdtsc()) < due && !stopped())
			poll_orders(m);
		if (now < due)
			break;          /* stopped */
		/* every frame already due leaves in this burst */
		while (k < BURST && i + k < m->npkts && t0 + m->off[i + k] <= now)
			k++;
		send_frames(m, i, k, t0);
		i += k;
		poll_orders(m);
	}
}

/* Poll the order queues for ms milliseconds (or until a signal). */
static void
poll_for(struct meter *m, uint32_t ms)
{
	const uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 1000 * ms;

	while (rte_rdtsc() < end && !stopped())
		poll_orders(m);
}

/* ------------------------------------------------------------- start-up */

static void
port_start(uint16_t port, uint16_t nrx, uint16_t ntx, struct rte_mempool *mp,
	   const char *what)
{
	char err[256], warn[128], whatv[48], tx_why[32], rx_why[40];
	/* no RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE: the copies share mbufs;
	 * orders may go to any address: take them all */
	struct hgw_port_conf pc = { .nrx = nrx, .ntx = ntx, .rx_pool = mp,
				    .rx = HGW_PORT_RX_PROMISC, .what = whatv,
				    .rx_why = rx_why, .tx_why = tx_why };

	snprintf(whatv, sizeof(whatv), "%s %u", what, port);
	snprintf(tx_why, sizeof(tx_why), "--copies %u", ntx);
	snprintf(rx_why, sizeof(rx_why), "--order-queues %u", nrx);
	if (hgw_port_start(port, &pc, err, sizeof(err), warn,
			   sizeof(warn)) != 0)
		die("%s", err);
	if (warn[0] != '\0')
		fprintf(stderr, PROG ": %s\n", warn);
}

/* Wait until every port's link is up, or die after ms milliseconds. */
static void
link_wait(const uint16_t *ports, uint32_t n, uint32_t ms)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t start = rte_get_timer_cycles();

	for (;;) {
		uint32_t down = n;

		for (uint32_t i = 0; i < n; i++) {
			if (hgw_port_link_up(ports[i])) {
				down--;
				continue;
			}
			if (rte_get_timer_cycles() - start > hz / 1000 * ms)
				die("port %u (%s): link still down after %u ms "
				    "(--link-timeout-ms): is hedgewire running "
				    "and connected? (memif: the meter is the server, "
				    "hedgewire role=client on the same socket, "
				    "started after the meter, with no more queues "
				    "than --copies)", ports[i], hgw_port_driver(ports[i]),
				    ms);
		}
		if (down == 0 || stopped())
			return;
		rte_delay_us_sleep(10000);
	}
}

/* A memif peer that still polls faults if the shared memory goes away
 * under it (the PMD unmaps it on disconnect while the peer may be inside
 * rx_burst): hold the wire until the peer has stopped and disconnected,
 * at most ms milliseconds. Without --retrans nothing is polled meanwhile,
 * so the same race cannot hit the meter. With it, the peer may still ask
 * for messages it missed, so the RX queues are polled, but only every
 * HOLD_POLL_US and only right after the link was seen up: the PMD's
 * control thread marks the link down before it unmaps, so the meter can
 * only fault if it is inside one rx_burst or tx_burst at the very moment
 * of the unmap (DPDK gives no hook to close that window), which the low
 * duty cycle makes unlikely rather than impossible. Other drivers close
 * at once. */
#define HOLD_POLL_US 200
#define HOLD_SETTLE_MS 100
static void
hold_wire(struct meter *m, const uint16_t *ports, uint32_t n, uint32_t ms)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t start = rte_get_timer_cycles();
	uint32_t memif = 0;

	for (uint32_t i = 0; i < n; i++)
		memif += hgw_port_is_memif(ports[i]);
	if (memif == 0 || ms == 0 || stopped())
		return;
	printf(PROG ": holding the memif wire until the peer disconnects (stop "
	       "hedgewire now; at most %u ms, --hold-ms)\n", ms);
	fflush(stdout);
	for (;;) {
		uint32_t up = 0;

		for (uint32_t i = 0; i < n; i++) {
			if (hgw_port_is_memif(ports[i]) &&
			    hgw_port_link_up(ports[i]))
				up++;
		}
		if (up == 0) {
			/* The PMD's control thread marks the link down first
			 * and tears the connection down after: closing the
			 * port meanwhile would run that teardown twice at
			 * once (a fault seen once polling every 200 us). Give
			 * it time to finish. */
			rte_delay_us_sleep(HOLD_SETTLE_MS * 1000);
			return;
		}
		if (stopped())
			break;
		if (rte_get_timer_cycles() - start > hz / 1000 * ms) {
			printf(PROG ": the peer is still connected after %u ms: "
			       "closing the wire under it\n", ms);
			break;
		}
		if (m->rt_on && up == memif) {
			poll_orders(m);
			rte_delay_us_sleep(HOLD_POLL_US);
		} else {
			rte_delay_us_sleep(10000);
		}
	}
}

/* ---------------------------------------------------------------- report */

static uint64_t
unexpected_total(const struct meter *m)
{
	uint64_t t = 0;

	for (int i = 0; i < UNEXPECTED_MAX; i++)
		t += m->unexpected[i];
	return t;
}

/* Triggers expected but never answered (after the wait). */
static void
count_no_order(struct meter *m)
{
	for (uint64_t i = 0; i < m->nmsgs; i++)
		if ((m->flags[i] & (F_EXPECTED | F_ANSWERED)) == F_EXPECTED)
			m->no_order++;
}

static uint64_t
missed(const struct meter *m)
{
	return m->no_order + m->expected_unknown + m->late;
}

/* The counters as "  name value" lines (the form hedgewire's summary
 * uses), or as JSON members. */
#define METER_COUNTERS(X)                                                      \
	X(packets, m->npkts)                                                   \
	X(packets_sent, m->packets_sent)                                       \
	X(copies, m->copies)                                                   \
	X(copies_sent, m->copies_sent)                                         \
	X(tx_dropped, m->tx_dropped)                                           \
	X(messages, m->nmsgs)                                                  \
	X(frames, m->frames)                                                   \
	X(other_frames, m->other_frames)                                       \
	X(orders, m->orders)                                                   \
	X(matched, m->matched)                                                 \
	X(late, m->late)                                                       \
	X(unexpected, unexpected_total(m))                                     \
	X(duplicates, m->duplicates)                                           \
	X(expected, m->exp ? (uint64_t)m->nexp + m->expected_unknown : 0)      \
	X(expected_not_in_capture, m->expected_unknown)                        \
	X(no_order, m->no_order)                                               \
	X(missed, missed(m))                                                   \
	X(differs, m->differs)

/* The re-request server's, final once the wire is let go. */
#define METER_RT_COUNTERS(X)                                                   \
	X(retrans_requests, m->rt_requests)                                    \
	X(retrans_answered, m->rt_answered)                                    \
	X(retrans_messages, m->rt_messages)                                    \
	X(retrans_packets, m->rt_packets)                                      \
	X(retrans_not_had, m->rt_not_had)                                      \
	X(retrans_limited, m->rt_limited)                                      \
	X(retrans_bad, m->rt_bad)                                              \
	X(retrans_lost, m->rt_lost)                                            \
	X(hold_frames, m->hold_frames)

static void
report(const struct meter *m, const struct opts *o, double secs)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();

	printf("sent %" PRIu64 " packets x %u copies in %.3f s",
	       m->packets_sent, m->copies, secs);
	if (m->tx_dropped != 0)
		printf(", %" PRIu64 " copies dropped (a TX queue took nothing "
		       "for %u ms)", m->tx_dropped, o->stall_ms);
	printf("\n");
	for (uint16_t q = 0; q < m->copies; q++)
		if (m->qdead[q])
			printf("WARNING: TX queue %u stalled and was given up: "
			       "fewer queues on the other side than --copies?\n",
			       q);
	hgw_hist_print(&m->lag, stdout, "send_lag", ns,
		       "ns, tx_burst minus the packet's release time");
	hgw_hist_print(&m->w2w, stdout, "wire_to_wire", ns,
		       "ns, order rx_burst minus its trigger's tx_burst, both "
		       "hops; first order per trigger");
#define METER_PRINT(name, v) printf("  %-24s %" PRIu64 "\n", #name, (uint64_t)(v));
	METER_COUNTERS(METER_PRINT)
#undef METER_PRINT
	for (uint16_t q = 0; q < m->copies; q++) {
		char key[32];

		if (!m->qdrops[q])
			continue;
		snprintf(key, sizeof(key), "dropped_q%u", q);
		printf("  %-24s %" PRIu64 "  frames not sent on queue %u "
		       "(--drop)\n", key, m->dropped[q], q);
		snprintf(key, sizeof(key), "corrupted_q%u", q);
		printf("  %-24s %" PRIu64 "  frames sent damaged on queue %u "
		       "(--corrupt)\n", key, m->corrupted[q], q);
	}
	for (int i = 0; i < UNEXPECTED_MAX; i++)
		if (m->unexpected[i] != 0)
			printf("  unexpected %-13s %" PRIu64 "  %s\n",
			       unexpected_names[i], m->unexpected[i],
			       unexpected_help[i]);
	if (m->exp != NULL)
		printf("expected %" PRIu64 ": matched %" PRIu64 " (late %" PRIu64
		       "), missed %" PRIu64 ", unexpected %" PRIu64
		       ", duplicates %" PRIu64 ", differing %" PRIu64 "\n",
		       (uint64_t)m->nexp + m->expected_unknown, m->matched,
		       m->late, missed(m), unexpected_total(m), m->duplicates,
		       m->differs);
	else
		printf("triggers answered %" PRIu64 " (of %" PRIu64
		       " messages sent; late %" PRIu64 "), unexpected %" PRIu64
		       ", duplicates %" PRIu64 "\n", m->matched, m->nmsgs,
		       m->late, unexpected_total(m), m->duplicates);
}

static void
report_retrans(const struct meter *m)
{
	printf(PROG ": re-request server: %" PRIu64 " requests, %" PRIu64
	       " answered with %" PRIu64 " messages in %" PRIu64 " packets; %"
	       PRIu64 " for messages the capture does not have, %" PRIu64
	       " bad\n", m->rt_requests, m->rt_answered, m->rt_messages,
	       m->rt_packets, m->rt_not_had, m->rt_bad);
#define METER_RT_PRINT(name, v) printf("  %-24s %" PRIu64 "\n", #name, (uint64_t)(v));
	METER_RT_COUNTERS(METER_RT_PRINT)
#undef METER_RT_PRINT
	fflush(stdout);
}

static void
write_csv(const struct hgw_hist *h, const char *prefix, const char *name)
{
	char path[4096];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s-%s.csv", prefix, name);
	f = fopen(path, "w");
	if (f == NULL)
		die("--csv %s: %s", path, strerror(errno));
	rc = hgw_hist_write_csv(h, f, 1e9 / (double)rte_get_tsc_hz());
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		die("--csv %s: %s", path, strerror(-rc));
}

static void
write_json(const struct meter *m, const struct opts *o)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	FILE *f = fopen(o->json, "w");
	int rc;

	if (f == NULL)
		die("--json %s: %s", o->json, strerror(errno));
	fprintf(f, "{\"pace\": \"%s\", ", pace_names[o->pace]);
#define METER_JSON(name, v) fprintf(f, "\"%s\": %" PRIu64 ", ", #name, (uint64_t)(v));
	METER_COUNTERS(METER_JSON)
#undef METER_JSON
	fputs("\"unexpected_by_reason\": {", f);
	for (int i = 0; i < UNEXPECTED_MAX; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "",
			unexpected_names[i], m->unexpected[i]);
	fputs("}, \"dropped_by_queue\": [", f);
	for (uint16_t q = 0; q < m->copies; q++)
		fprintf(f, "%s%" PRIu64, q ? ", " : "", m->dropped[q]);
	fputs("], ", f);
	if (m->rt_on) {
#define METER_RT_JSON(name, v) fprintf(f, "\"%s\": %" PRIu64 ", ", #name, (uint64_t)(v));
		METER_RT_COUNTERS(METER_RT_JSON)
#undef METER_RT_JSON
	}
	fputs("\n\"wire_to_wire\": ", f);
	rc = hgw_hist_write_json(&m->w2w, f, "wire_to_wire", ns, "ns");
	fputs(", \"send_lag\": ", f);
	if (rc == 0)
		rc = hgw_hist_write_json(&m->lag, f, "send_lag", ns, "ns");
	fputs("}\n", f);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		die("--json %s: %s", o->json, strerror(-rc));
}

int
main(int argc, char **argv)
{
	static struct meter m;
	struct rte_mempool *rx_pool;
	struct opts o;
	uint16_t ports[2];
	uint32_t nports;
	uint64_t t_start;
	long ncpu;
	int rc;

	hgw_cli_version("hgw-meter", argc, argv);
	rc = rte_eal_init(argc, argv);

	if (rc < 0)
		die("EAL init failed: %s", rte_strerror(rte_errno));
	parse(argc - rc, argv + rc, &o);
	if (!rte_eth_dev_is_valid_port(o.port) ||
	    !rte_eth_dev_is_valid_port(o.order_port))
		die("--port %u / --order-port %u: no such DPDK port (%u available; "
		    "pass a device or --vdev in the EAL args)", o.port,
		    o.order_port, rte_eth_dev_count_avail());
	m.port = o.port;
	m.oport = o.order_port;
	m.copies = o.copies;
	m.nrxq = o.order_queues;
	m.stall_tsc = rte_get_tsc_hz() / 1000 * o.stall_ms;
	m.timeout_tsc = (uint64_t)((double)rte_get_tsc_hz() / 1e6 *
				   (double)o.timeout_us);
	m.drops = o.drops;
	m.ndrops = o.ndrops;
	for (uint32_t i = 0; i < o.ndrops; i++)
		m.qdrops[o.drops[i].q] = 1;
	m.rt_on = o.retrans;
	m.rt_ip = o.rt_ip;
	m.rt_port = o.rt_port;
	m.rt_max = o.rt_max;
	hgw_hist_init(&m.w2w);
	hgw_hist_init(&m.lag);

	capture_load(&m, &o);
	if (o.expect != NULL)
		expect_load(&m, o.expect);

	rx_pool = rte_pktmbuf_pool_create("hgw_meter_rx", o.mbufs,
					  RTE_MIN(256u, o.mbufs / 8), 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE,
					  rte_eth_dev_socket_id(o.order_port));
	m.cp_pool = rx_pool;
	if (rx_pool == NULL)
		die("cannot create an RX pool of %u mbufs (--mbufs): %s",
		    o.mbufs, rte_strerror(rte_errno));
	if (o.port == o.order_port) {
		port_start(o.port, o.order_queues, o.copies, rx_pool, "--port");
		ports[0] = o.port;
		nports = 1;
	} else {
		port_start(o.port, 0, o.copies, rx_pool, "--port");
		port_start(o.order_port, o.order_queues, 0, rx_pool,
			   "--order-port");
		ports[0] = o.port;
		ports[1] = o.order_port;
		nports = 2;
	}
	if (o.retrans) {
		/* answers are built in these, at most a burst per TX queue
		 * in flight beyond what the TX rings hold */
		uint32_t n = 1024u * o.copies + 1023u;

		rc = rte_eth_macaddr_get(o.port, &m.mac);
		if (rc != 0)
			die("port %u: cannot get its MAC address: %s", o.port,
			    strerror(-rc));
		m.rt_pool = rte_pktmbuf_pool_create("hgw_meter_retrans", n,
					RTE_MIN(256u, n / 8), 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					rte_eth_dev_socket_id(o.port));
		if (m.rt_pool == NULL)
			die("cannot create a pool of %u mbufs for --retrans "
			    "answers: %s (more EAL memory: -m)", n,
			    rte_strerror(rte_errno));
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	printf(PROG ": %s: %u packets, %" PRIu64 " messages (possible triggers) "
	       "in %u session%s",
	       o.pcap, m.npkts, m.nmsgs, m.nsessions,
	       m.nsessions == 1 ? "" : "s");
	for (uint32_t s = 0; s < m.nsessions; s++)
		printf(" '%.10s'", m.sessions[s].name);
	if (m.no_trigger)
		printf(", %" PRIu64 " frames with no new trigger (%" PRIu64
		       " duplicates, %" PRIu64 " not the feed, the rest heartbeats "
		       "or end of session; sent all the same)", m.no_trigger,
		       m.dup_frames, m.non_feed);
	if (m.capture_truncated)
		printf(", %" PRIu64 " frames cut short by the capture (sent as "
		       "captured)", m.capture_truncated);
	if (m.ts_backwards)
		printf(", %" PRIu64 " timestamps going back (released with the "
		       "previous frame)", m.ts_backwards);
	printf("\n");
	printf(PROG ": port %u (%s) x %u TX queue%s (one copy per hedgewire "
	       "worker), orders on port %u (%s) x %u RX queue%s; pace %s",
	       o.port, hgw_port_driver(o.port), o.copies, o.copies == 1 ? "" : "s",
	       o.order_port, hgw_port_driver(o.order_port), o.order_queues,
	       o.order_queues == 1 ? "" : "s", pace_names[o.pace]);
	if (o.pace == PACE_PCAP)
		printf(" x%g", o.speed);
	else if (o.pace == PACE_RATE)
		printf(" %" PRIu64 " packets/s", o.pps);
	printf(", loops %u, timeout %" PRIu64 " us", o.loops, o.timeout_us);
	if (o.expect != NULL)
		printf(", expecting %" PRIu64 " orders (%s)",
		       (uint64_t)m.nexp + m.expected_unknown, o.expect);
	printf("\n");
	if (o.retrans) {
		char ip[INET_ADDRSTRLEN];
		struct in_addr a = { .s_addr = htonl(o.rt_ip) };

		inet_ntop(AF_INET, &a, ip, sizeof(ip));
		printf(PROG ": re-request server %s:%u (MAC " RTE_ETHER_ADDR_PRT_FMT
		       "), at most %u messages per request, %u bytes of UDP "
		       "payload per packet\n", ip, o.rt_port,
		       RTE_ETHER_ADDR_BYTES(&m.mac), o.rt_max, RT_PAYLOAD);
	}
	for (uint32_t i = 0; i < o.ndrops; i++)
		printf(PROG ": --%s: frames %u to %u %s on queue %u\n",
		       o.drops[i].corrupt ? "corrupt" : "drop",
		       o.drops[i].a, o.drops[i].b,
		       o.drops[i].corrupt ? "sent damaged" : "not sent",
		       o.drops[i].q);
	/* The meter polls one lcore; hedgewire needs one per worker and a
	 * main lcore (asleep most of the time). Fewer CPUs than that and
	 * they time-share: the latencies include it. */
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 0 && ncpu < 2 + o.copies)
		printf("note: %s share %ld CPUs (the meter's lcore %u on CPU %d, "
		       "hedgewire's %u worker%s and main lcore): the latencies "
		       "include their contention\n",
		       hgw_port_is_memif(o.port) ?
		       "meter and hedgewire" :
		       "if hedgewire runs on this host, meter and hedgewire",
		       ncpu, rte_lcore_id(), sched_getcpu(), o.copies,
		       o.copies == 1 ? "" : "s");
	fflush(stdout);

	link_wait(ports, nports, o.link_ms);
	poll_for(&m, o.settle_ms);

	t_start = rte_rdtsc();
	for (uint32_t l = 0; l < o.loops && !stopped(); l++)
		replay_once(&m, rte_rdtsc());
	double secs = (double)(rte_rdtsc() - t_start) / (double)rte_get_tsc_hz();

	poll_for(&m, o.wait_ms);
	if (stopped())
		printf(PROG ": stopped on a signal\n");
	if (m.exp != NULL)
		count_no_order(&m);
	report(&m, &o, secs);
	if (o.csv != NULL) {
		write_csv(&m.w2w, o.csv, "wire_to_wire");
		write_csv(&m.lag, o.csv, "send_lag");
	}
	printf(PROG ": done\n");
	fflush(stdout);
	m.holding = 1;
	hold_wire(&m, ports, nports, o.hold_ms);
	if (o.retrans)
		report_retrans(&m);     /* after the hold: its requests count */
	if (o.json != NULL)
		write_json(&m, &o);

	for (uint32_t i = 0; i < nports; i++) {
		rte_eth_dev_stop(ports[i]);
		rte_eth_dev_close(ports[i]);
	}
	rte_eal_cleanup();
	return 0;
}
