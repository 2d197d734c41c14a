/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: the command line (meter_parse): every option checked,
 * one line naming a bad one.
 */
#include "meter_int.h"

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

void
meter_parse(int argc, char **argv, struct opts *o)
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
