/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-inspect: what is in a MoldUDP64 / ITCH 5.0 capture or live feed.
 *
 *   hgw-inspect [options] FILE.pcap
 *   hgw-inspect [EAL args] -- --live [options]      (DPDK port, until ^C)
 *
 * Prints frames, MoldUDP64 packets, messages by type, gaps and duplicates
 * per session, and every drop reason with its count, using the same
 * decoder as hedgewire's workers.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "hgw_feed.h"

struct opts {
	struct hgw_feed_conf feed;
	const char *file;
	int live;
	uint16_t dpdk_port;
	uint64_t max_frames;    /* 0 = all */
};

struct times {
	uint64_t first_us, last_us;
	uint64_t bytes;
	uint32_t max_per_packet;
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static __attribute__((noreturn)) void
bad(const char *opt, const char *val)
{
	fprintf(stderr, "hgw-inspect: bad value for --%s: '%s'\n", opt, val);
	exit(2);
}

static uint64_t
num(const char *opt, const char *s, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || *s == '-' || *s == '\0' || v > max)
		bad(opt, s);
	return v;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: hgw-inspect [options] FILE.pcap\n"
		"       hgw-inspect [EAL args] -- --live [options]\n"
		"  --group A.B.C.D   feed multicast group (default 233.54.12.111; 0.0.0.0 = any)\n"
		"  --udp-port P      feed UDP port (default 26477; 0 = any)\n"
		"  --vlan V          require 802.1Q VLAN id V (default 0 = any)\n"
		"  --any             accept every group and port\n"
		"  --live            read DPDK port --dpdk-port (default 0) until ^C\n"
		"  --dpdk-port N     DPDK port id for --live\n"
		"  --count N         stop after N frames\n");
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "group", required_argument, NULL, 'g' },
		{ "udp-port", required_argument, NULL, 'u' },
		{ "vlan", required_argument, NULL, 'v' },
		{ "any", no_argument, NULL, 'a' },
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
				bad("group", optarg);
			o->feed.group = ntohl(a.s_addr);
			break;
		case 'u':
			o->feed.port = (uint16_t)num("udp-port", optarg, 65535);
			break;
		case 'v':
			o->feed.vlan = (uint16_t)num("vlan", optarg, 4094);
			break;
		case 'a':
			o->feed.group = 0;
			o->feed.port = 0;
			break;
		case 'l':
			o->live = 1;
			break;
		case 'd':
			o->dpdk_port = (uint16_t)num("dpdk-port", optarg,
						     RTE_MAX_ETHPORTS - 1);
			break;
		case 'n':
			o->max_frames = num("count", optarg, UINT64_MAX);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (!o->live) {
		if (optind + 1 != argc) {
			usage(stderr);
			exit(2);
		}
		o->file = argv[optind];
	} else if (optind != argc) {
		fprintf(stderr, "hgw-inspect: --live takes no file\n");
		exit(2);
	}
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

static int
read_pcap(const struct opts *o, struct hgw_feed *f, struct times *t)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *d;
	pcap_t *p = pcap_open_offline(o->file, err);
	int rc;

	if (p == NULL) {
		fprintf(stderr, "hgw-inspect: %s\n", err);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "hgw-inspect: %s: link type %s, expected Ethernet\n",
			o->file, pcap_datalink_val_to_name(pcap_datalink(p)));
		pcap_close(p);
		return -1;
	}
	while (!stop && (rc = pcap_next_ex(p, &h, &d)) == 1) {
		account(f, t, d, h->caplen,
			(uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec);
		if (o->max_frames && f->stats.frames >= o->max_frames)
			break;
	}
	if (rc == PCAP_ERROR)
		fprintf(stderr, "hgw-inspect: %s: %s (reported what came before)\n",
			o->file, pcap_geterr(p));
	pcap_close(p);
	return 0;
}

static int
read_live(const struct opts *o, struct hgw_feed *f, struct times *t)
{
	struct rte_eth_conf pc;
	struct rte_mempool *mp;
	struct rte_mbuf *m[32];
	uint16_t port = o->dpdk_port;

	if (!rte_eth_dev_is_valid_port(port)) {
		fprintf(stderr, "hgw-inspect: no DPDK port %u\n", port);
		return -1;
	}
	mp = rte_pktmbuf_pool_create("inspect", 8191, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_eth_dev_socket_id(port));
	memset(&pc, 0, sizeof(pc));
	if (mp == NULL || rte_eth_dev_configure(port, 1, 0, &pc) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port),
				   NULL, mp) != 0 ||
	    rte_eth_dev_start(port) != 0) {
		fprintf(stderr, "hgw-inspect: cannot start DPDK port %u\n", port);
		return -1;
	}
	rte_eth_allmulticast_enable(port);
	uint64_t hz = rte_get_timer_hz();

	while (!stop) {
		uint16_t n = rte_eth_rx_burst(port, 0, m, RTE_DIM(m));
		uint64_t now = rte_get_timer_cycles() / (hz / 1000000u);

		for (uint16_t i = 0; i < n; i++)
			account(f, t, rte_pktmbuf_mtod(m[i], const uint8_t *),
				rte_pktmbuf_data_len(m[i]), now);
		rte_pktmbuf_free_bulk(m, n);
		if (o->max_frames && f->stats.frames >= o->max_frames)
			break;
	}
	rte_eth_dev_stop(port);
	return 0;
}

static void
report(const struct hgw_feed *f, const struct times *t)
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
	printf("drops:%s\n", hgw_feed_drops_total(s) ? "" : " none");
	for (int d = 0; d < HGW_FEED_DROP_MAX; d++)
		if (s->drops[d])
			printf("  %-24s %10" PRIu64 "  %s\n",
			       hgw_feed_drop_name((enum hgw_feed_drop)d), s->drops[d],
			       hgw_feed_drop_help((enum hgw_feed_drop)d));
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct hgw_feed f;
	struct times t;
	int eal = 0, rc;

	memset(&o, 0, sizeof(o));
	memset(&t, 0, sizeof(t));
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			eal = 1;
	if (eal) {
		rc = rte_eal_init(argc, argv);
		if (rc < 0) {
			fprintf(stderr, "hgw-inspect: EAL init failed: %s\n",
				rte_strerror(rte_errno));
			return 1;
		}
		argc -= rc;
		argv += rc;
	}
	parse(argc, argv, &o);
	if (o.live && !eal) {
		fprintf(stderr, "hgw-inspect: --live needs EAL args before --\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	hgw_feed_init(&f, &o.feed);
	rc = o.live ? read_live(&o, &f, &t) : read_pcap(&o, &f, &t);
	if (rc == 0)
		report(&f, &t);
	if (eal)
		rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
