/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-inspect: what is in a MoldUDP64 / ITCH 5.0 capture or live feed.
 *
 *   hgw-inspect [options] FILE.pcap
 *   hgw-inspect [EAL args] -- --live [options]      (DPDK port, until ^C)
 *
 * Prints frames, MoldUDP64 packets, messages by type, gaps and duplicates
 * per session, and every drop reason with its count, using the same
 * decoder as hedgewire's workers. With --messages it prints every ITCH
 * message on the wire instead, one line each with every field, read by
 * its own bounds-checked walk of the MoldUDP64 blocks: that view must
 * show what the decoder hides (duplicates, sanitised captures whose
 * MoldUDP64 header is zeroed).
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "hgw_cli.h"
#include "hgw_port.h"
#include "hgw_feed.h"
#include "show.h"

#define PROG "hgw-inspect"

/* Exit status. */
#define EXIT_OK		0
#define EXIT_READ	1	/* read error (what was read is reported) */
#define EXIT_USAGE	2	/* usage or bad input */

struct opts {
	struct hgw_feed_conf feed;
	const char *file;
	const char *filter;	/* pcap filter expression, or NULL */
	int live;
	int messages;		/* one line per ITCH message */
	int json;
	uint16_t dpdk_port;
	uint64_t max_frames;    /* 0 = all */
	int by_type;		/* --type given: only types[] */
	uint8_t types[256];
	int by_symbol;		/* --symbol given */
	uint8_t symbol[HGW_ITCH_STOCK_LEN];	/* space padded, as on the wire */
};

struct times {
	uint64_t first_us, last_us;
	uint64_t bytes;
	uint32_t max_per_packet;
};

/* Everything one run keeps. Static: the locate table is 64 KiB. */
struct inspect {
	struct opts o;
	struct hgw_feed f;
	struct times t;
	struct bpf_program prog;
	int filtering;
	uint64_t frame;		/* frames read; the current frame's number */
	uint64_t sanitised;	/* MoldUDP64 packets with a zeroed header */
	/* --messages */
	uint64_t wire_msgs;	/* message blocks walked */
	uint64_t shown;
	uint64_t bad_msgs;	/* unknown type or length not its type's */
	uint64_t bad_pkts;	/* malformed MoldUDP64 packets */
	uint64_t first_bad_frame;
	/* locates an 'R' message gave to --symbol */
	uint8_t sym_locate[UINT16_MAX + 1];
};

static struct inspect ins;
static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: hgw-inspect [options] FILE.pcap\n"
		"       hgw-inspect [EAL args] -- --live [options]\n"
		"Reports frames, MoldUDP64 packets, messages by type, gaps and duplicates\n"
		"per session and drop reasons; with --messages prints every ITCH 5.0\n"
		"message on the wire instead (summary line on stderr).\n"
		"  --group A.B.C.D   feed multicast group (default 233.54.12.111; 0.0.0.0 = any)\n"
		"  --udp-port P      feed UDP port (default 26477; 0 = any)\n"
		"  --vlan V          require 802.1Q VLAN id V (default 0 = any)\n"
		"  --any             accept every group and port\n"
		"  --filter EXPR     read only frames matching a pcap filter, e.g. 'udp port 26477'\n"
		"  --messages        one key=value line per ITCH message, every field\n"
		"  --json            one JSON object per message instead (implies --messages)\n"
		"  --type LETTERS    only these message types, e.g. AFE (implies --messages)\n"
		"  --symbol SYM      only messages naming SYM, or on a locate an 'R' message\n"
		"                    gave SYM earlier (implies --messages)\n"
		"  --live            read DPDK port --dpdk-port (default 0) until ^C, with a\n"
		"                    progress line every second on stderr\n"
		"  --dpdk-port N     DPDK port id for --live\n"
		"  --count N         stop after N frames\n"
		"exit status: 0 ok; 1 read error (what was read is still reported) or\n"
		"the DPDK port failed; 2 usage or bad input (bad option, unreadable file,\n"
		"link type not Ethernet)\n");
}

static void
parse_types(struct opts *o, const char *s)
{
	if (*s == '\0')
		hgw_cli_bad(PROG, "type", s);
	for (const char *c = s; *c != '\0'; c++) {
		if (hgw_itch_msg_len[(uint8_t)*c] == 0)
			hgw_cli_bad(PROG, "type", s);
		o->types[(uint8_t)*c] = 1;
	}
	o->by_type = 1;
}

static void
parse_symbol(struct opts *o, const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > HGW_ITCH_STOCK_LEN)
		hgw_cli_bad(PROG, "symbol", s);
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 0x7F)
			hgw_cli_bad(PROG, "symbol", s);
	memset(o->symbol, ' ', sizeof(o->symbol));
	memcpy(o->symbol, s, n);
	o->by_symbol = 1;
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "group", required_argument, NULL, 'g' },
		{ "udp-port", required_argument, NULL, 'u' },
		{ "vlan", required_argument, NULL, 'v' },
		{ "any", no_argument, NULL, 'a' },
		{ "filter", required_argument, NULL, 'f' },
		{ "messages", no_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "type", required_argument, NULL, 't' },
		{ "symbol", required_argument, NULL, 's' },
		{ "live", no_argument, NULL, 'l' },
		{ "dpdk-port", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct in_addr a;
	int c;

	o->feed.group = 0xE9360C6F;	/* 233.54.12.111 */
	o->feed.port = 26477;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (inet_pton(AF_INET, optarg, &a) != 1)
				hgw_cli_bad(PROG, "group", optarg);
			o->feed.group = ntohl(a.s_addr);
			break;
		case 'u':
			o->feed.port = (uint16_t)hgw_cli_num(PROG, "udp-port",
							     optarg, 0, 65535);
			break;
		case 'v':
			o->feed.vlan = (uint16_t)hgw_cli_num(PROG, "vlan",
							     optarg, 0, 4094);
			break;
		case 'a':
			o->feed.group = 0;
			o->feed.port = 0;
			break;
		case 'f':
			o->filter = optarg;
			break;
		case 'm':
			o->messages = 1;
			break;
		case 'j':
			o->json = 1;
			o->messages = 1;
			break;
		case 't':
			parse_types(o, optarg);
			o->messages = 1;
			break;
		case 's':
			parse_symbol(o, optarg);
			o->messages = 1;
			break;
		case 'l':
			o->live = 1;
			break;
		case 'd':
			o->dpdk_port = (uint16_t)hgw_cli_num(PROG, "dpdk-port",
				optarg, 0, RTE_MAX_ETHPORTS - 1);
			break;
		case 'n':
			o->max_frames = hgw_cli_num(PROG, "count", optarg, 0,
						    UINT64_MAX);
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		default:
			usage(stderr);
			exit(EXIT_USAGE);
		}
	}
	if (!o->live) {
		if (optind + 1 != argc) {
			usage(stderr);
			exit(EXIT_USAGE);
		}
		o->file = argv[optind];
	} else if (optind != argc) {
		fprintf(stderr, PROG ": --live takes no file\n");
		exit(EXIT_USAGE);
	}
}

/* The filter is compiled for Ethernet whatever the source: a capture of
 * any other link type is refused anyway, and a bad expression is a usage
 * error found before anything is opened. */
static void
compile_filter(struct inspect *x)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 262144);

	if (dead == NULL)
		hgw_cli_die(PROG, "pcap_open_dead failed");
	if (pcap_compile(dead, &x->prog, x->o.filter, 1,
			 PCAP_NETMASK_UNKNOWN) != 0) {
		fprintf(stderr, PROG ": bad value for --filter: '%s': %s\n",
			x->o.filter, pcap_geterr(dead));
		pcap_close(dead);
		exit(EXIT_USAGE);
	}
	pcap_close(dead);
	x->filtering = 1;
}

static void
account(struct hgw_feed *f, struct times *t, const uint8_t *d, uint32_t len,
	uint64_t ts_us)
{
	struct hgw_feed_pkt p;
	uint16_t l;
	int n = hgw_feed_packet(f, d, len, &p);

	if (t->bytes == 0)
		t->first_us = ts_us;
	t->last_us = ts_us;
	t->bytes += len;
	if (n > 0 && (uint32_t)n > t->max_per_packet)
		t->max_per_packet = (uint32_t)n;
	if (n > 0)
		while (hgw_feed_next(f, &p, &l) != NULL)
			;
}

/* The UDP payload of a feed frame (same acceptance rules as lib/feed:
 * optional 802.1Q tag, unfragmented IPv4, UDP to the configured group and
 * port), or -1. lib/feed keeps its parser to itself, and its sequencing
 * would hide what --messages must show (duplicates, zeroed headers), so
 * the inspector reads the framing itself; every length is checked
 * against the bytes captured. */
static int
feed_payload(const struct hgw_feed_conf *c, const uint8_t *d, uint32_t len,
	     const uint8_t **pl, uint32_t *plen)
{
	uint32_t off = 14;
	uint16_t etype, vid = 0;
	int tagged = 0;

	if (len < off)
		return -1;
	etype = hgw_be16(d + 12);
	if (etype == 0x8100 || etype == 0x88A8) {
		if (len < off + 4)
			return -1;
		vid = hgw_be16(d + 14) & 0x0FFF;
		etype = hgw_be16(d + 16);
		off += 4;
		tagged = 1;
	}
	if (etype != 0x0800 || (c->vlan != 0 && (!tagged || vid != c->vlan)))
		return -1;

	const uint8_t *ip = d + off;
	uint32_t room = len - off;

	if (room < 20)
		return -1;
	uint32_t ihl = (uint32_t)(ip[0] & 0x0F) * 4;
	uint32_t tot = hgw_be16(ip + 2);

	if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl || tot > room ||
	    (hgw_be16(ip + 6) & 0x3FFF) != 0 || ip[9] != 17)
		return -1;

	const uint8_t *udp = ip + ihl;
	uint32_t ulen;

	if (tot - ihl < 8)
		return -1;
	ulen = hgw_be16(udp + 4);
	if (ulen < 8 || ulen > tot - ihl)
		return -1;
	if ((c->group != 0 && hgw_be32(ip + 16) != c->group) ||
	    (c->port != 0 && hgw_be16(udp + 2) != c->port))
		return -1;
	*pl = udp + 8;
	*plen = ulen - 8;
	return 0;
}

static void
malformed(struct inspect *x)
{
	if (x->bad_pkts++ == 0)
		x->first_bad_frame = x->frame;
}

/* --symbol: the message names the stock, or is on a locate that an 'R'
 * message announced for it. */
static int
symbol_match(struct inspect *x, const uint8_t *msg)
{
	const uint8_t *stock = show_stock(msg);
	uint16_t loc = hgw_itch_locate(msg);

	if (msg[0] == HGW_ITCH_STOCK_DIRECTORY && loc != 0)
		/* a later 'R' may give the locate to another stock */
		x->sym_locate[loc] = memcmp(stock, x->o.symbol,
					    HGW_ITCH_STOCK_LEN) == 0;
	if (stock != NULL &&
	    memcmp(stock, x->o.symbol, HGW_ITCH_STOCK_LEN) == 0)
		return 1;
	return loc != 0 && x->sym_locate[loc];
}

static void
show(struct inspect *x, const uint8_t *mold, uint64_t seq, const uint8_t *msg)
{
	char line[SHOW_LINE_MAX];
	struct show_at at = { x->frame, mold, seq };
	size_t n;

	/* --symbol tracks every 'R' message, selected or not */
	if (x->o.by_symbol && !symbol_match(x, msg))
		return;
	if (x->o.by_type && !x->o.types[msg[0]])
		return;
	n = show_line(line, sizeof(line), x->o.json, &at, msg);
	fwrite(line, 1, n, stdout);
	x->shown++;
}

static int
blank(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != '\0' && s[i] != ' ')
			return 0;
	return 1;
}

/* Walk one MoldUDP64 packet's blocks for --messages, whatever its
 * sequencing. A block running past the packet ends the packet, counted;
 * a message whose type is unknown or whose length is not its type's is
 * counted and skipped by its block length, never printed. */
static void
walk(struct inspect *x, const uint8_t *d, uint32_t len)
{
	const uint8_t *m;
	uint32_t plen, pos;

	if (feed_payload(&x->o.feed, d, len, &m, &plen) != 0)
		return;
	if (plen < HGW_MOLD_HDR_LEN) {
		malformed(x);
		return;
	}

	uint64_t seq = hgw_be64(m + 10);
	uint16_t count = hgw_be16(m + 18);
	/* Public sample captures often blank the session and sequence
	 * number: there is no sequencing to show, but the messages are
	 * intact. MoldUDP64 numbers messages from 1, so sequence 0 is
	 * never a real one. */
	int zeroed = seq == 0 && blank(m, HGW_MOLD_SESSION_LEN);

	if (zeroed && x->sanitised++ == 0 && x->o.messages)
		fprintf(stderr, PROG ": frame %" PRIu64 ": MoldUDP64 header "
			"zeroed (sanitised capture): messages are shown "
			"without sequencing\n", x->frame);
	if (!x->o.messages || count == HGW_MOLD_END_SESSION)
		return;
	pos = HGW_MOLD_HDR_LEN;
	for (uint32_t i = 0; i < count; i++) {
		uint16_t l;

		if (plen - pos < 2) {
			malformed(x);
			return;
		}
		l = hgw_be16(m + pos);
		pos += 2;
		if (plen - pos < l) {
			malformed(x);
			return;
		}
		x->wire_msgs++;
		if (l == 0 || !hgw_itch_len_ok(m[pos], l))
			x->bad_msgs++;
		else
			show(x, m, zeroed ? 0 : seq + i, m + pos);
		pos += l;
	}
	if (pos != plen)
		malformed(x);	/* trailing bytes after the last block */
}

/* One frame read, numbered from 1 whether or not the filter keeps it, so
 * frame= is the frame number Wireshark shows for the same capture. */
static void
frame_in(struct inspect *x, const struct pcap_pkthdr *h, const uint8_t *d,
	 uint64_t ts_us)
{
	x->frame++;
	if (x->filtering && pcap_offline_filter(&x->prog, h, d) == 0)
		return;
	account(&x->f, &x->t, d, h->caplen, ts_us);
	walk(x, d, h->caplen);
}

#define PCAP_RECORD_HDR_LEN 16

/* 1 for a classic pcap file (16-byte record headers, either byte order,
 * micro- or nanosecond stamps), whose record sizes can be checked by the
 * file position; 0 for pcapng, stdin or anything else. */
static int
classic_pcap(const char *file)
{
	uint8_t b[4];
	uint32_t magic;
	FILE *f;
	int ok;

	if (strcmp(file, "-") == 0 || (f = fopen(file, "rb")) == NULL)
		return 0;
	ok = fread(b, 1, sizeof(b), f) == sizeof(b);
	fclose(f);
	if (!ok)
		return 0;
	magic = hgw_be32(b);
	return magic == 0xA1B2C3D4 || magic == 0xD4C3B2A1 ||
	       magic == 0xA1B23C4D || magic == 0x4D3CB2A1;
}

static int
read_pcap(struct inspect *x)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *d;
	const char *file = x->o.file;
	pcap_t *p = pcap_open_offline(file, err);
	int rc = 0, dlt;

	if (p == NULL) {
		/* libpcap names the file in some errors, not in others */
		if (strncmp(err, file, strlen(file)) == 0)
			fprintf(stderr, PROG ": %s\n", err);
		else
			fprintf(stderr, PROG ": %s: %s\n", file, err);
		return EXIT_USAGE;
	}
	dlt = pcap_datalink(p);
	if (dlt != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(dlt);

		fprintf(stderr, PROG ": %s: link type %s (%d) is not Ethernet "
			"(EN10MB): only Ethernet captures can be read\n",
			file, name != NULL ? name : "unknown", dlt);
		pcap_close(p);
		return EXIT_USAGE;
	}
	FILE *fp = classic_pcap(file) ? pcap_file(p) : NULL;
	off_t at = fp != NULL ? ftello(fp) : -1;

	while (!stop && (rc = pcap_next_ex(p, &h, &d)) == 1) {
		off_t next = at >= 0 ? ftello(fp) : -1;

		/* libpcap cuts a record longer than the file's snapshot
		 * length down to it and carries on; such a record is not
		 * what was captured, so it ends the read like any other
		 * damage to the file. */
		if (at >= 0 && next >= 0 &&
		    next - at != PCAP_RECORD_HDR_LEN + (off_t)h->caplen) {
			fprintf(stderr, PROG ": %s: read error after frame %"
				PRIu64 ": invalid packet capture length %jd, "
				"bigger than snaplen of %d\n", file, x->frame,
				(intmax_t)(next - at - PCAP_RECORD_HDR_LEN),
				pcap_snapshot(p));
			pcap_close(p);
			return EXIT_READ;
		}
		at = next;
		frame_in(x, h, d, (uint64_t)h->ts.tv_sec * 1000000u +
			 (uint64_t)h->ts.tv_usec);
		if (x->o.max_frames && x->frame >= x->o.max_frames)
			break;
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, PROG ": %s: read error after frame %" PRIu64
			": %s\n", file, x->frame, pcap_geterr(p));
		pcap_close(p);
		return EXIT_READ;
	}
	pcap_close(p);
	return EXIT_OK;
}

static void
progress(const struct inspect *x)
{
	const struct hgw_feed_stats *s = &x->f.stats;

	fprintf(stderr, PROG ": %" PRIu64 " frames, %" PRIu64 " messages, %"
		PRIu64 " drops, %" PRIu64 " gaps so far\n", x->frame,
		s->messages, hgw_feed_drops_total(s), s->gaps);
}

static int
read_live(struct inspect *x)
{
	struct rte_mempool *mp;
	struct rte_mbuf *m[32];
	uint16_t port = x->o.dpdk_port;
	char err[256];

	if (!rte_eth_dev_is_valid_port(port)) {
		fprintf(stderr, PROG ": no DPDK port %u\n", port);
		return EXIT_USAGE;
	}
	mp = rte_pktmbuf_pool_create("inspect", 8191, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_eth_dev_socket_id(port));
	if (mp == NULL) {
		fprintf(stderr, PROG ": cannot create a pool of 8191 mbufs: "
			"%s\n", rte_strerror(rte_errno));
		return EXIT_READ;
	}
	/* the feed is multicast: every group */
	if (hgw_port_start(port, &(struct hgw_port_conf){
				.nrx = 1, .rx_pool = mp,
				.rx = HGW_PORT_RX_ALLMULTI },
			   err, sizeof(err), NULL, 0) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return EXIT_READ;
	}
	uint64_t hz = rte_get_timer_hz();
	uint64_t next = rte_get_timer_cycles() + hz;

	while (!stop) {
		uint16_t n = rte_eth_rx_burst(port, 0, m, RTE_DIM(m));
		uint64_t cyc = rte_get_timer_cycles();
		uint64_t now = cyc / (hz / 1000000u);

		for (uint16_t i = 0; i < n; i++) {
			struct pcap_pkthdr h;

			memset(&h, 0, sizeof(h));
			h.caplen = rte_pktmbuf_data_len(m[i]);
			h.len = rte_pktmbuf_pkt_len(m[i]);
			frame_in(x, &h, rte_pktmbuf_mtod(m[i], const uint8_t *),
				 now);
		}
		rte_pktmbuf_free_bulk(m, n);
		if (x->o.max_frames && x->frame >= x->o.max_frames)
			break;
		if (cyc >= next) {
			progress(x);
			next = cyc + hz;
		}
	}
	rte_eth_dev_stop(port);
	return EXIT_OK;
}

static void
report(const struct hgw_feed *f, const struct times *t, uint64_t sanitised)
{
	const struct hgw_feed_stats *s = &f->stats;
	double secs = (double)(t->last_us - t->first_us) / 1e6;
	uint64_t bad_msgs = s->drops[HGW_FEED_DROP_ITCH_BAD_LENGTH] +
			    s->drops[HGW_FEED_DROP_ITCH_UNKNOWN];

	printf("frames %" PRIu64 "  bytes %" PRIu64 "  span %.6f s\n",
	       s->frames, t->bytes, secs);
	printf("moldudp64 data packets %" PRIu64 "  heartbeats %" PRIu64
	       "  end-of-session %" PRIu64 "  max messages/packet %u\n",
	       s->mold_packets, s->heartbeats, s->end_of_session,
	       t->max_per_packet);
	printf("messages %" PRIu64, s->messages);
	if (secs > 0)
		printf("  (%.0f/s over the span)", (double)s->messages / secs);
	printf("  malformed %" PRIu64 "\n", bad_msgs);
	for (uint32_t i = 0; i < f->nsessions; i++) {
		const struct hgw_feed_session *x = &f->sessions[i];

		printf("session '%.10s'  next_seq %" PRIu64 "  messages %" PRIu64
		       "  gaps %" PRIu64 " (%" PRIu64 " messages)  duplicate packets %"
		       PRIu64 " (%" PRIu64 " messages)  %s\n",
		       x->name, x->next_seq, x->messages, x->gaps,
		       x->gap_messages, x->dup_packets, x->dup_messages,
		       x->ended ? "ended" : "open");
	}
	printf("messages by type:\n");
	for (int ty = 0; ty < 256; ty++)
		if (s->by_type[ty])
			printf("  %c  %-28s %12" PRIu64 "  %5.1f%%\n", ty,
			       hgw_itch_type_name((uint8_t)ty), s->by_type[ty],
			       100.0 * (double)s->by_type[ty] / (double)s->messages);
	if (sanitised)
		printf("sanitised packets %" PRIu64 "  (MoldUDP64 header zeroed: "
		       "no session or sequence number)\n", sanitised);
	printf("drops:%s\n", hgw_feed_drops_total(s) ? "" : " none");
	for (int d = 0; d < HGW_FEED_DROP_MAX; d++)
		if (s->drops[d])
			printf("  %-24s %10" PRIu64 "  %s\n",
			       hgw_feed_drop_name((enum hgw_feed_drop)d), s->drops[d],
			       hgw_feed_drop_help((enum hgw_feed_drop)d));
}

/* --messages: stdout holds only message lines, so the totals go to
 * stderr. */
static void
report_messages(const struct inspect *x)
{
	fprintf(stderr, PROG ": %" PRIu64 " frames, %" PRIu64 " messages on "
		"the wire, %" PRIu64 " shown, %" PRIu64 " of unknown type or bad "
		"length, %" PRIu64 " malformed packets", x->frame, x->wire_msgs,
		x->shown, x->bad_msgs, x->bad_pkts);
	if (x->bad_pkts)
		fprintf(stderr, " (first in frame %" PRIu64 ")",
			x->first_bad_frame);
	fputc('\n', stderr);
}

int
main(int argc, char **argv)
{
	struct inspect *x = &ins;
	struct sigaction sa;
	int eal = 0, rc;

	hgw_cli_version("hgw-inspect", argc, argv);

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			eal = 1;
	if (eal) {
		rc = rte_eal_init(argc, argv);
		if (rc < 0) {
			fprintf(stderr, PROG ": EAL init failed: %s\n",
				rte_strerror(rte_errno));
			return EXIT_READ;
		}
		argc -= rc;
		argv += rc;
	}
	parse(argc, argv, &x->o);
	if (x->o.live && !eal) {
		fprintf(stderr, PROG ": --live needs EAL args before --\n");
		return EXIT_USAGE;
	}
	if (x->o.filter != NULL)
		compile_filter(x);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	hgw_feed_init(&x->f, &x->o.feed);
	rc = x->o.live ? read_live(x) : read_pcap(x);
	/* a read error still reports what came before it */
	if (rc == EXIT_OK || rc == EXIT_READ) {
		if (x->o.messages) {
			fflush(stdout);
			report_messages(x);
		} else {
			report(&x->f, &x->t, x->sanitised);
		}
	}
	if (x->filtering)
		pcap_freecode(&x->prog);
	if (eal)
		rte_eal_cleanup();
	if (fflush(stdout) != 0 && rc == EXIT_OK)
		rc = EXIT_READ;
	return rc;
}
