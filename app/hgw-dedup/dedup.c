/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-dedup: the downstream dedup stage, a bump in the wire.
 *
 *   hgw-dedup [EAL args] -- --in PORT --out PORT [options]
 *
 * hedgewire with [run] dedup = downstream sends every worker's copy of
 * every order, each worker on its own TX queue. This stage receives them,
 * one RX queue per worker (each queue is that worker's FIFO), and forwards
 * the first copy of every trigger to --out, dropping the late ones: the
 * software model of a dedup done in an FPGA NIC. The trigger is read from
 * the order itself: ClOrdID is the session's last 4 characters and the
 * sequence number mod 10^10 (docs/protocols.md "Order bytes"), and the
 * choice is hgw_dedup_filter_first(), the same rule as the in-process modes.
 *
 * Frames that are not order frames (they fail hgw_order_decode) are not
 * ours to judge: they are forwarded unchanged and counted. Runs until
 * SIGINT/SIGTERM, or until the input has been idle for --idle-ms after
 * the first frame (replays); then drains, flushes and prints its counters.
 * One lcore, no locks, no allocation after start-up.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "hgw_cli.h"
#include "hgw_soupbin.h"
#include "hgw_dedup.h"
#include "hgw_latency.h"
#include "hgw_order.h"
#include "hgw_port.h"
#include "hgw_tcp.h"
#include "session.h"

#define PROG "hgw-dedup"
#define MAX_BURST 64

struct opts {
	uint16_t in, out;
	uint16_t queues;        /* 0: every RX queue the input port has */
	uint32_t idle_ms;
	uint32_t mbufs;
	uint16_t burst;
	struct dsess_opts venue;
};

/* Written by the signal handler, read by the loop; relaxed: a flag that
 * orders nothing. */
static _Atomic int stop;

static void
on_signal(int sig)
{
	(void)sig;
	atomic_store_explicit(&stop, 1, memory_order_relaxed);
}

#define die(...) hgw_cli_die(PROG, __VA_ARGS__)

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " PROG " [EAL args] -- --in PORT --out PORT [options]\n"
		"  --in PORT       DPDK port the copies arrive on, one RX queue\n"
		"                  per hedgewire worker (default 0)\n"
		"  --out PORT      DPDK port the first copies leave on (default 1)\n"
		"  --queues N      RX queues to poll (default: all the port has)\n"
		"  --idle-ms MS    stop once the input was idle this long after\n"
		"                  the first frame (default 1000; 0 = only on a\n"
		"                  signal)\n"
		"  --mbufs N       RX pool size (default 8191)\n"
		"  --burst N       rx_burst size, 1..64 (default 32)\n"
		"venue session (instead of --out; docs/venue.md \"Venue session\"):\n"
		"  --venue IP:PORT           the venue's SoupBinTCP port: first\n"
		"                            copies go there, its answers back to\n"
		"                            hedgewire on --in's TX queue 0\n"
		"  --venue-user U --venue-session S\n"
		"  --venue-password-file FILE  the password (mode 0600 or 0640;\n"
		"                            or HGW_VENUE_PASSWORD; never on the\n"
		"                            command line, which all users see)\n"
		"  --state-file FILE         UserRefNum floor, last message (required)\n"
		"  --heartbeat-ms MS (1000) --dead-ms MS (15000) --reconnect-ms MS (500)\n"
		"  --max-orders-per-sec N --max-orders-per-sec-per-symbol N (0: off)\n"
		"  --cancel-on-disconnect    the venue cancels open orders at a drop\n"
		"  --venue-stack kernel|dpdk the session's TCP: the kernel's\n"
		"                            (default), or hgw-dedup's own on --out\n"
		"  --venue-address IP/PREFIX our address on --out (dpdk)\n"
		"  --venue-gateway IP        the next hop off that subnet (dpdk)\n"
		"  --relay-forge             tests: forged relay datagrams at the\n"
		"                            first order (docs/venue.md)\n");
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "queues", required_argument, NULL, 'q' },
		{ "idle-ms", required_argument, NULL, 't' },
		{ "mbufs", required_argument, NULL, 'm' },
		{ "burst", required_argument, NULL, 'b' },
		{ "venue", required_argument, NULL, 'V' },
		{ "venue-user", required_argument, NULL, 'U' },
		{ "venue-password", required_argument, NULL, 'P' },
		{ "venue-password-file", required_argument, NULL, 'W' },
		{ "venue-session", required_argument, NULL, 'S' },
		{ "state-file", required_argument, NULL, 'F' },
		{ "heartbeat-ms", required_argument, NULL, 'H' },
		{ "dead-ms", required_argument, NULL, 'D' },
		{ "reconnect-ms", required_argument, NULL, 'R' },
		{ "max-orders-per-sec", required_argument, NULL, 'M' },
		{ "max-orders-per-sec-per-symbol", required_argument, NULL, 'N' },
		{ "cancel-on-disconnect", no_argument, NULL, 'C' },
		{ "relay-forge", no_argument, NULL, 'X' },
		{ "venue-stack", required_argument, NULL, 'K' },
		{ "venue-address", required_argument, NULL, 'A' },
		{ "venue-gateway", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->in = 0;
	o->out = 1;
	o->queues = 0;
	o->idle_ms = 1000;
	o->mbufs = 8191;
	o->burst = 32;
	memset(&o->venue, 0, sizeof(o->venue));
	o->venue.heartbeat_ms = 1000;
	o->venue.dead_ms = 15000;
	o->venue.reconnect_ms = 500;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->in = (uint16_t)hgw_cli_num(PROG, "in", optarg, 0,
						      RTE_MAX_ETHPORTS - 1);
			break;
		case 'o':
			o->out = (uint16_t)hgw_cli_num(PROG, "out", optarg, 0,
						       RTE_MAX_ETHPORTS - 1);
			break;
		case 'q':
			o->queues = (uint16_t)hgw_cli_num(PROG, "queues", optarg,
						1, HGW_DEDUP_MAX_WORKERS);
			break;
		case 't':
			o->idle_ms = (uint32_t)hgw_cli_num(PROG, "idle-ms",
							   optarg, 0, 3600000);
			break;
		case 'm':
			o->mbufs = (uint32_t)hgw_cli_num(PROG, "mbufs", optarg,
							 63, 1u << 24);
			break;
		case 'b':
			o->burst = (uint16_t)hgw_cli_num(PROG, "burst", optarg,
							 1, MAX_BURST);
			break;
		case 'V':
			o->venue.venue = optarg;
			break;
		case 'U':
			o->venue.user = optarg;
			break;
		case 'P':
			die("--venue-password: a password on the command line "
			    "is readable by every user (/proc/PID/cmdline): use "
			    "--venue-password-file FILE or %s",
			    HGW_SOUP_PASSWORD_ENV);
		case 'W':
			o->venue.password_file = optarg;
			break;
		case 'S':
			o->venue.session = optarg;
			break;
		case 'F':
			o->venue.state_file = optarg;
			break;
		case 'H':
			o->venue.heartbeat_ms = (uint32_t)hgw_cli_num(PROG,
				"heartbeat-ms", optarg, 10, 60000);
			break;
		case 'D':
			o->venue.dead_ms = (uint32_t)hgw_cli_num(PROG, "dead-ms",
							optarg, 20, 600000);
			break;
		case 'R':
			o->venue.reconnect_ms = (uint32_t)hgw_cli_num(PROG,
				"reconnect-ms", optarg, 1, 60000);
			break;
		case 'M':
			o->venue.max_ops = (uint32_t)hgw_cli_num(PROG,
				"max-orders-per-sec", optarg, 0, 1000000);
			break;
		case 'N':
			o->venue.max_ops_symbol = (uint32_t)hgw_cli_num(PROG,
				"max-orders-per-sec-per-symbol", optarg, 0,
				1000000);
			break;
		case 'C':
			o->venue.cancel_on_disconnect = 1;
			break;
		case 'X':
			o->venue.relay_forge = 1;
			break;
		case 'K':
			if (strcmp(optarg, "dpdk") == 0)
				o->venue.dpdk = 1;
			else if (strcmp(optarg, "kernel") != 0)
				hgw_cli_bad(PROG, "venue-stack", optarg);
			break;
		case 'A':
			o->venue.address = optarg;
			break;
		case 'G':
			o->venue.gateway = optarg;
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
	if ((o->venue.venue == NULL || o->venue.dpdk) && o->in == o->out)
		die("--in and --out are both port %u", o->in);
}

/* The trigger of an order: session key and sequence number; -1 if the
 * ClOrdID is not ours (not 10 digits). The key packs the 4 session
 * characters ClOrdID carries under a tag bit: injective, never 0. It is
 * not hgw_feed_session_key() (the order does not carry the whole name);
 * every copy of a trigger carries the same 4 characters, which is all the
 * filter needs. */
static int
trigger_of(const struct hgw_ouch_order *o, uint64_t *key, uint64_t *seq)
{
	const uint8_t *c = (const uint8_t *)o->clordid;

	if (hgw_order_clordid_seq(o->clordid, seq) < 0)
		return -1;
	*key = UINT64_C(1) << 32 | (uint64_t)c[0] << 24 |
	       (uint64_t)c[1] << 16 | (uint64_t)c[2] << 8 | c[3];
	return 0;
}

struct stage {
	uint16_t in, out, nq, burst;
	struct hgw_dedup_filter filter;
	struct dsess *sess;             /* --venue: the session; else NULL */
	uint64_t frames, passthrough, tx_full, commands;
	struct hgw_hist rx_to_tx;       /* TSC cycles, per forwarded frame */
};

/* Poll every queue once; returns frames received. */
static uint32_t
stage_once(struct stage *st)
{
	uint32_t total = 0;

	for (uint16_t q = 0; q < st->nq; q++) {
		struct rte_mbuf *pkts[MAX_BURST], *fwd[MAX_BURST];
		uint16_t n = rte_eth_rx_burst(st->in, q, pkts, st->burst), nf = 0;
		uint64_t rx_tsc, now;

		if (n == 0)
			continue;
		rx_tsc = rte_rdtsc();
		total += n;
		st->frames += n;
		for (uint16_t i = 0; i < n; i++) {
			struct hgw_ouch_order o;
			const char *why;
			uint64_t key, seq;

			if (st->sess != NULL &&
			    dsess_command(st->sess, rte_pktmbuf_mtod(pkts[i],
							const uint8_t *),
					  rte_pktmbuf_data_len(pkts[i]))) {
				/* hedgewire's command (kill): taken */
				st->commands++;
				rte_pktmbuf_free(pkts[i]);
				continue;
			}
			if (hgw_order_decode(rte_pktmbuf_mtod(pkts[i],
							      const uint8_t *),
					     rte_pktmbuf_data_len(pkts[i]), &o,
					     &why) < 0) {
				st->passthrough++;
				fwd[nf++] = pkts[i];
				continue;
			}
			if (trigger_of(&o, &key, &seq) < 0)
				key = 0;	/* invalid: never forwarded */
			if (hgw_dedup_filter_first(&st->filter, key, seq, q)) {
				if (st->sess == NULL) {
					fwd[nf++] = pkts[i];
					continue;
				}
				/* the first copy goes on the session */
				dsess_order(st->sess,
					    rte_pktmbuf_mtod(pkts[i],
							     const uint8_t *),
					    &o);
			}
			rte_pktmbuf_free(pkts[i]);
		}
		if (st->sess != NULL) {
			/* no output port: other frames are not ours */
			rte_pktmbuf_free_bulk(fwd, nf);
			continue;
		}
		if (nf == 0)
			continue;
		now = rte_rdtsc();
		for (uint16_t i = 0; i < nf; i++)
			hgw_hist_record(&st->rx_to_tx, now - rx_tsc);
		uint16_t sent = rte_eth_tx_burst(st->out, 0, fwd, nf);

		if (sent < nf) {
			st->tx_full += nf - sent;
			rte_pktmbuf_free_bulk(fwd + sent, nf - sent);
		}
	}
	return total;
}

/* Stopped (a signal, --idle-ms) before hedgewire left the memif: keep
 * serving it until its 'B', while the link is up, at most LEAVE_WAIT_S;
 * closing the port under hedgewire's polls could fault it (session.h). */
#define LEAVE_WAIT_S 5
static void
wait_leave(struct stage *st)
{
	const uint64_t end = rte_rdtsc() + LEAVE_WAIT_S * rte_get_tsc_hz();

	while (!dsess_leaving(st->sess)) {
		if (!hgw_port_link_up(st->in))
			return;         /* no hedgewire on the link */
		if (rte_rdtsc() > end) {
			printf(PROG ": hedgewire did not leave the link within "
			       "%d s: closing it under hedgewire\n",
			       LEAVE_WAIT_S);
			return;
		}
		dsess_poll(st->sess);
		stage_once(st);
	}
}

/* After 'b': hedgewire closes its end once it has read the 'b' (and
 * waited 100 ms); closing ours first would unmap the memory under its
 * polls. Wait, polling nothing, for its side to go (the link down, at
 * most LEAVE_WAIT_S), then for the PMD's control thread to finish the
 * teardown it starts then (closing meanwhile would run it twice). */
#define LEAVE_SETTLE_MS 100
static void
wait_gone(uint16_t port)
{
	const uint64_t end = rte_rdtsc() + LEAVE_WAIT_S * rte_get_tsc_hz();

	while (hgw_port_link_up(port)) {
		if (rte_rdtsc() > end) {
			printf(PROG ": hedgewire still on the link %d s after "
			       "'b': closing it under hedgewire\n",
			       LEAVE_WAIT_S);
			return;
		}
		rte_delay_us_sleep(1000);
	}
	rte_delay_us_sleep(LEAVE_SETTLE_MS * 1000);
}

static void
port_start(uint16_t port, uint16_t nrx, uint16_t ntx, struct rte_mempool *mp,
	   uint64_t tx_offloads)
{
	struct hgw_port_conf pc = { .nrx = nrx, .ntx = ntx, .rx_pool = mp,
				    .rx = HGW_PORT_RX_PROMISC,
				    .tx_offloads = tx_offloads,
				    .rx_why = "--queues" };
	char err[256], warn[128];

	if (hgw_port_start(port, &pc, err, sizeof(err), warn,
			   sizeof(warn)) != 0)
		die("%s", err);
	if (warn[0] != '\0')
		fprintf(stderr, "hgw-dedup: %s\n", warn);
}

static void
report(const struct stage *st)
{
	uint64_t passed = 0, dropped = 0;

	for (uint16_t q = 0; q < st->nq; q++) {
		printf("queue %u: first copies %" PRIu64 ", late copies dropped %"
		       PRIu64 "\n", q, st->filter.passed[q],
		       st->filter.dropped[q]);
		passed += st->filter.passed[q];
		dropped += st->filter.dropped[q];
	}
	printf("frames %" PRIu64 ", orders forwarded %" PRIu64 ", late copies "
	       "dropped %" PRIu64 ", invalid dropped %" PRIu64 ", other frames "
	       "forwarded %" PRIu64 ", tx_full %" PRIu64 ", sessions %u\n",
	       st->frames, passed, dropped, st->filter.invalid,
	       st->passthrough, st->tx_full,
	       hgw_dedup_filter_sessions(&st->filter));
	hgw_hist_print(&st->rx_to_tx, stdout, "rx_to_tx",
		       1e9 / (double)rte_get_tsc_hz(),
		       "ns, rx_burst return to tx_burst, per forwarded frame");
}

int
main(int argc, char **argv)
{
	static struct stage st;
	struct rte_eth_dev_info info;
	struct rte_mempool *mp;
	struct opts o;
	int rc;

	hgw_cli_version("hgw-dedup", argc, argv);
	rc = rte_eal_init(argc, argv);

	if (rc < 0)
		die("EAL init failed: %s", rte_strerror(rte_errno));
	parse(argc - rc, argv + rc, &o);
	if (!rte_eth_dev_is_valid_port(o.in) ||
	    ((o.venue.venue == NULL || o.venue.dpdk) &&
	     !rte_eth_dev_is_valid_port(o.out)))
		die("--in %u / --out %u: no such DPDK port (%u available; pass "
		    "devices or --vdev in the EAL args)", o.in, o.out,
		    rte_eth_dev_count_avail());
	rc = rte_eth_dev_info_get(o.in, &info);
	if (rc != 0)
		die("port %u: cannot get device info: %s", o.in, strerror(-rc));
	st.nq = o.queues != 0 ? o.queues :
		RTE_MIN(info.max_rx_queues, (uint16_t)HGW_DEDUP_MAX_WORKERS);
	if (st.nq > info.max_rx_queues)
		die("--queues %u: port %u (%s) has %u RX queues", st.nq, o.in,
		    info.driver_name, info.max_rx_queues);
	mp = rte_pktmbuf_pool_create("hgw_dedup", o.mbufs, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (mp == NULL)
		die("cannot create a pool of %u mbufs: %s", o.mbufs,
		    rte_strerror(rte_errno));
	/* --venue: the answers go back to hedgewire on the input port */
	port_start(o.in, st.nq, o.venue.venue != NULL ? 1 : 0, mp, 0);
	/* asked once, now: at the end the memif's teardown may be under
	 * way on the EAL's interrupt thread */
	const int in_memif = hgw_port_is_memif(o.in);
	if (o.venue.venue == NULL)
		port_start(o.out, 0, 1, mp, 0);
	else if (o.venue.dpdk)
		/* the venue's segments, ARP and pings come back on RX
		 * queue 0 (hgw-dedup's own TCP) */
		port_start(o.out, 1, 1, mp, hgw_tcp_port_offloads());
	st.in = o.in;
	st.out = o.out;
	st.burst = o.burst;
	hgw_dedup_filter_init(&st.filter);
	st.sess = dsess_init(&o.venue, o.in, mp, o.out);
	hgw_hist_init(&st.rx_to_tx);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (st.sess != NULL)
		printf(PROG ": port %u (%u queues, one per worker) -> venue "
		       "%s\n", o.in, st.nq, o.venue.venue);
	else
		printf(PROG ": port %u (%u queues, one per worker) -> port %u\n",
		       o.in, st.nq, o.out);
	/* out now: whoever starts hgw-dedup (a supervisor, a script) waits
	 * for this line, and stdout into a file is block-buffered */
	fflush(stdout);

	const uint64_t idle = rte_get_tsc_hz() / 1000 * o.idle_ms;
	uint64_t last = rte_rdtsc();

	/* with a session on a memif, hedgewire's leaving ('B') ends the
	 * run, and a stop before it waits for it (session.h) */
	const int leave = st.sess != NULL && in_memif;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (st.sess != NULL)
			dsess_poll(st.sess);
		if (stage_once(&st) != 0)
			last = rte_rdtsc();
		else if (o.idle_ms != 0 && st.frames != 0 &&
			 rte_rdtsc() - last > idle)
			break;
		if (leave && dsess_leaving(st.sess))
			break;
	}
	if (leave)
		wait_leave(&st);
	while (stage_once(&st) != 0)	/* drain what is queued */
		;
	const int left = leave && dsess_leaving(st.sess);

	if (left) {
		dsess_leave(st.sess);   /* the port is not polled again */
		printf(PROG ": hedgewire left the link\n");
	}
	if (st.sess != NULL)
		dsess_stop(st.sess);
	report(&st);
	/* exit status: 1 relay datagrams or commands lost, or a kill's
	 * cancels unsent or unanswered at the stop; 4 a venue answer
	 * contradicted what was sent (2 is a usage error) */
	rc = st.sess != NULL ? dsess_report(st.sess, stdout) : 0;
	rc = (rc & 1) | (rc & 2 ? 4 : 0);
	fflush(stdout);
	if (left)
		wait_gone(o.in);
	/* stopping the ports flushes what net_pcap wrote. A memif input is
	 * left open: DPDK 22.11's memif tears its side down on the EAL
	 * interrupt thread once the peer has gone, and a close while that
	 * runs crashed the thread (a segfault in librte_eal at exit, now
	 * and then under load); the process exit frees it */
	if (!in_memif) {
		rte_eth_dev_stop(o.in);
		rte_eth_dev_close(o.in);
	}
	if (st.sess == NULL || o.venue.dpdk) {
		rte_eth_dev_stop(o.out);
		rte_eth_dev_close(o.out);
	}
	rte_eal_cleanup();
	if (rc & 1)
		fprintf(stderr, PROG ": venue: relay datagrams or hedgewire's "
			"commands were lost (see the counters)\n");
	if (rc & 4)
		fprintf(stderr, PROG ": venue: an answer contradicted what was "
			"sent (see 'venue: contradicted')\n");
	return rc;
}
