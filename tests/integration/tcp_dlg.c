/* SPDX-License-Identifier: BSD-3-Clause
 * tcp-dlg: lib/tcp's delegated sends (hgw_tcp_dlg.h) end to end, and
 * the claim-mode latency of an order sent by the replica that wins it,
 * without the rest of hedgewire.
 *
 *   tcp-dlg [EAL args] -- --mode tcp|udp --ip A/PREFIX --peer IP:PORT
 *       [--gateway IP] [--workers W] [--orders N] [--rate PPS]
 *       [--burst B] [--refused FILE] [--owner-sleep-us U]
 *       [--tx-times FILE]
 *
 * Port 0 (an EAL vdev) has W + 1 queue pairs: the main lcore sends on
 * TX queue 0 and polls every RX queue (net_af_packet spreads received
 * frames over its queues' sockets), worker k sends on TX queue 1 + k.
 * W worker
 * lcores are replicas: each builds the same order for every trigger i
 * (1..N, due B at a time, as the messages of one feed frame, the i-th at
 * a common start plus (i - 1) / B * B / PPS), an OUCH 5.0 Enter
 * Order with UserRefNum i in a SoupBinTCP Unsequenced Data packet, as
 * soon as the trigger is due, and offers it:
 *   tcp  to hgw_tcp_dlg_send() on its own TX queue (1 + its index): the
 *        first copy claims i and its bytes in the stream, and sends its
 *        own segment; the main lcore owns the connection to IP:PORT
 *        (TX queue 0: the handshake, ACKs, retransmissions, the FIN);
 *   udp  to hgw_dedup_claim(), and the winner sends the 92-byte order
 *        frame (as hedgewire's claim mode) on its own TX queue, to
 *        IP:PORT over UDP; no connection.
 * Each sent order's latency is from its trigger's due time to the TSC
 * just before its tx_burst. The claims won that found no room (or the
 * connection closed) are written to --refused, one UserRefNum a line.
 * At the end (tcp) every byte must be acknowledged, then the FIN goes
 * and the peer's FIN is awaited. --owner-sleep-us: the owner sleeps U us
 * between polls (it does not take a CPU from the workers: benchmarks on
 * fewer CPUs than lcores); udp: the main lcore sleeps 1 ms between looks.
 * --tx-times (tcp): each order sent, its UserRefNum and the time just
 * before its tx_burst (CLOCK_REALTIME ns, from its TSC and a clock read
 * just after the send), one a line, for the peer's receive time.
 *
 * Prints "sent N lost N full N closed N tx_full N moved N", the
 * latency line (hgw_hist_print: count p50 p90 p99 p99.9 p99.99 p99.999
 * max, ns) and the connection's counters. Exit 0, or 1 when the
 * connection failed, bytes were left unacknowledged, or a trigger was
 * neither sent nor refused by any worker.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "hgw_dedup.h"
#include "hgw_latency.h"
#include "hgw_order.h"
#include "hgw_tcp.h"
#include "hgw_tcp_dlg.h"

#define MAX_WORKERS 8
#define ORDER_LEN (HGW_SOUPBIN_HDR_LEN + HGW_OUCH_ENTER_ORDER_LEN)

struct worker {
	unsigned int idx;
	uint64_t *tx_ns;                /* --tx-times: by UserRefNum */
	struct rte_mempool *pool;
	struct hgw_tcp_dlg_tx q;
	uint64_t udp_won, udp_lost;
	uint32_t *refused;
	uint32_t nrefused;
	struct hgw_hist lat;
};

static struct {
	int tcp;
	uint32_t ip, mask, gateway, peer_ip;
	uint16_t peer_port;
	unsigned int workers;
	uint32_t orders, burst, owner_sleep_us;
	const char *tx_times;
	uint64_t period;                /* TSC ticks between triggers */
	const char *refused;
	struct hgw_tcp_dlg *dlg;
	struct hgw_dedup *dedup;
	struct hgw_udp_tx udp;
	/* the start, published by the main lcore once connected; the
	 * workers done, counted by each as it ends */
	_Atomic uint64_t t0;
	_Atomic unsigned int done;
	struct worker w[MAX_WORKERS];
} g;

static void __rte_noreturn
die(const char *why)
{
	fprintf(stderr, "tcp-dlg: %s\n", why);
	exit(1);
}

/* The order of trigger i, as every replica builds it. */
static void
order_of(uint32_t i, struct hgw_ouch_order *o)
{
	memset(o, 0, sizeof(*o));
	o->user_ref_num = i;
	o->side = i & 1 ? 'B' : 'S';
	o->quantity = 100 + i % 900;
	memcpy(o->symbol, "HGWT    ", 8);
	o->price = 1000000 + (uint64_t)(i % 5000) * 100;
	o->tif = '0';
	o->display = 'Y';
	o->capacity = 'A';
	o->intermarket_sweep = 'N';
	o->cross_type = 'N';
	hgw_order_clordid("HGWDLG0001", i, o->clordid);
}

static int
worker_main(void *arg)
{
	struct worker *w = arg;
	struct rte_mbuf *m = NULL;
	uint64_t t0;

	/* acquire: pairs with the main lcore's release of the start */
	while ((t0 = atomic_load_explicit(&g.t0, memory_order_acquire)) == 0)
		rte_pause();
	for (uint32_t i = 1; i <= g.orders; i++) {
		uint64_t due = t0 + (i - 1) / g.burst * g.burst * g.period;
		struct hgw_ouch_order o;
		uint8_t b[ORDER_LEN];

		if (m == NULL && (m = rte_pktmbuf_alloc(w->pool)) == NULL)
			die("no mbuf");
		while (rte_rdtsc() < due)
			rte_pause();
		order_of(i, &o);
		if (g.tcp) {
			hgw_soupbin_unsequenced(b, HGW_OUCH_ENTER_ORDER_LEN);
			hgw_ouch_enter_order(b + HGW_SOUPBIN_HDR_LEN, &o);
			switch (hgw_tcp_dlg_send(g.dlg, &w->q, i, b, sizeof(b),
						 m)) {
			case HGW_TCP_DLG_SENT:
				m = NULL;
				hgw_hist_record(&w->lat, w->q.tx_tsc - due);
				if (w->tx_ns != NULL) {
					struct timespec ts;
					uint64_t now;

					clock_gettime(CLOCK_REALTIME, &ts);
					now = rte_rdtsc();
					w->tx_ns[i] = (uint64_t)ts.tv_sec *
						1000000000u + (uint64_t)ts.tv_nsec -
						(uint64_t)((double)(now - w->q.tx_tsc) *
							   1e9 / (double)rte_get_tsc_hz());
				}
				break;
			case HGW_TCP_DLG_FULL:
			case HGW_TCP_DLG_CLOSED:
				w->refused[w->nrefused++] = i;
				break;
			case HGW_TCP_DLG_LOST:
				break;
			}
			continue;
		}
		if (!hgw_dedup_claim(g.dedup, 1, i)) {
			w->udp_lost++;
			continue;
		}
		w->udp_won++;
		hgw_order_frame(&g.udp, &o, (uint8_t *)rte_pktmbuf_append(
					m, HGW_ORDER_FRAME_LEN));
		uint64_t tx = rte_rdtsc();

		if (rte_eth_tx_burst(w->q.port, w->q.txq, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			w->q.tx_full++;
		}
		m = NULL;
		hgw_hist_record(&w->lat, tx - due);
	}
	rte_pktmbuf_free(m);
	/* release: this worker's counters and records before the count */
	atomic_fetch_add_explicit(&g.done, 1, memory_order_release);
	return 0;
}

static void
parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "ip", required_argument, NULL, 'i' },
		{ "peer", required_argument, NULL, 'p' },
		{ "gateway", required_argument, NULL, 'g' },
		{ "workers", required_argument, NULL, 'w' },
		{ "orders", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "refused", required_argument, NULL, 'f' },
		{ "burst", required_argument, NULL, 'b' },
		{ "owner-sleep-us", required_argument, NULL, 's' },
		{ "tx-times", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct in_addr a;
	unsigned long rate = 10000;
	char buf[64], *s;
	int c;

	g.workers = 2;
	g.orders = 10000;
	g.burst = 1;
	g.tcp = -1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			g.tcp = strcmp(optarg, "tcp") == 0 ? 1 :
				strcmp(optarg, "udp") == 0 ? 0 : -1;
			break;
		case 'i':
			snprintf(buf, sizeof(buf), "%s", optarg);
			s = strchr(buf, '/');
			if (s == NULL)
				die("--ip: IP/PREFIX");
			*s++ = '\0';
			if (inet_pton(AF_INET, buf, &a) != 1 || atoi(s) < 1 ||
			    atoi(s) > 32)
				die("--ip: IP/PREFIX");
			g.ip = ntohl(a.s_addr);
			g.mask = atoi(s) == 32 ? UINT32_MAX :
				 ~(UINT32_MAX >> atoi(s));
			break;
		case 'p':
			snprintf(buf, sizeof(buf), "%s", optarg);
			s = strchr(buf, ':');
			if (s == NULL)
				die("--peer: IP:PORT");
			*s++ = '\0';
			if (inet_pton(AF_INET, buf, &a) != 1 || atoi(s) < 1 ||
			    atoi(s) > 65535)
				die("--peer: IP:PORT");
			g.peer_ip = ntohl(a.s_addr);
			g.peer_port = (uint16_t)atoi(s);
			break;
		case 'g':
			if (inet_pton(AF_INET, optarg, &a) != 1)
				die("--gateway: IP");
			g.gateway = ntohl(a.s_addr);
			break;
		case 'w':
			g.workers = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'n':
			g.orders = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			rate = strtoul(optarg, NULL, 10);
			break;
		case 'f':
			g.refused = optarg;
			break;
		case 'b':
			g.burst = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 's':
			g.owner_sleep_us = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 't':
			g.tx_times = optarg;
			break;
		default:
			die("bad option");
		}
	}
	if (g.tcp < 0 || g.ip == 0 || g.peer_ip == 0 || g.workers < 1 ||
	    g.workers > MAX_WORKERS || g.orders == 0 || rate == 0 ||
	    g.burst == 0)
		die("usage: --mode tcp|udp --ip A/PREFIX --peer IP:PORT "
		    "[--gateway IP] [--workers 1-8] [--orders N] [--rate PPS] "
		    "[--burst B] [--refused FILE] [--owner-sleep-us U] "
		    "[--tx-times FILE]");
	g.period = rte_get_tsc_hz() / rate;
}

static void
port_init(void)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_mempool *rxp;
	uint16_t nq = (uint16_t)(g.workers + 1);

	if (rte_eth_dev_count_avail() < 1)
		die("no port (give one with --vdev)");
	rxp = rte_pktmbuf_pool_create("dlg_rx", 4095, 256, 0,
				      RTE_MBUF_DEFAULT_BUF_SIZE,
				      rte_socket_id());
	if (rxp == NULL || rte_eth_dev_info_get(0, &info) != 0)
		die("port 0: no RX pool, or no info");
	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = hgw_tcp_port_offloads() &
			       info.tx_offload_capa;
	if (rte_eth_dev_configure(0, nq, nq, &conf) != 0)
		die("port 0: cannot configure it");
	for (uint16_t q = 0; q < nq; q++)
		if (rte_eth_rx_queue_setup(0, q, 512, rte_socket_id(), NULL,
					   rxp) != 0 ||
		    rte_eth_tx_queue_setup(0, q, 512, rte_socket_id(),
					   NULL) != 0)
			die("port 0: cannot set up its queues");
	if (rte_eth_dev_start(0) != 0)
		die("port 0: cannot start it");
}

static int
refused_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct hgw_tcp *t = NULL;
	struct hgw_tcp_cfg tc;
	struct rte_ether_addr mac;
	struct hgw_hist all;
	uint64_t hz, end, lost = 0, full = 0, closed = 0, sent = 0;
	uint64_t txf = 0, moved = 0, nref = 0;
	unsigned int lc, k = 0;
	int rc = 0, n;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		die("cannot start the EAL");
	parse(argc - n, argv + n);
	if (rte_lcore_count() < g.workers + 1)
		die("need an lcore for each worker and the main lcore");
	hz = rte_get_tsc_hz();
	port_init();
	g.dlg = rte_zmalloc("dlg", sizeof(*g.dlg), HGW_CACHE_LINE_SIZE);
	g.dedup = rte_zmalloc("dedup", sizeof(*g.dedup), HGW_DEDUP_LINE);
	if (g.dlg == NULL || g.dedup == NULL || hgw_dedup_init(g.dedup) != 0)
		die("no memory");
	if (rte_eth_macaddr_get(0, &mac) != 0)
		die("port 0 has no MAC address");
	memcpy(g.udp.src_mac, mac.addr_bytes, 6);
	memset(g.udp.dst_mac, 0xff, 6);
	g.udp.src_ip = g.ip;
	g.udp.dst_ip = g.peer_ip;
	g.udp.src_port = 40000;
	g.udp.dst_port = g.peer_port;
	hgw_udp_tx_init(&g.udp);
	RTE_LCORE_FOREACH_WORKER(lc) {
		struct worker *w = &g.w[k];
		char name[32];

		if (k == g.workers)
			break;
		snprintf(name, sizeof(name), "dlg_w%u", k);
		w->idx = k;
		w->pool = rte_pktmbuf_pool_create(name, 4095, 256, 0,
						  RTE_MBUF_DEFAULT_BUF_SIZE,
						  rte_socket_id());
		w->refused = calloc(g.orders, sizeof(*w->refused));
		if (g.tx_times != NULL &&
		    (w->tx_ns = calloc((size_t)g.orders + 1,
				       sizeof(*w->tx_ns))) == NULL)
			die("no memory for --tx-times");
		if (w->pool == NULL || w->refused == NULL)
			die("no memory for a worker");
		w->q.port = 0;
		w->q.txq = (uint16_t)(k + 1);
		hgw_hist_init(&w->lat);
		if (hgw_tcp_dlg_register(g.dlg, &w->q) != 0 ||
		    rte_eal_remote_launch(worker_main, w, lc) != 0)
			die("cannot launch a worker");
		k++;
	}
	if (g.tcp) {
		if (hgw_tcp_cfg_port(&tc, 0, g.ip, g.mask, g.gateway) != 0)
			die("port 0: no MAC address");
		tc.nrxq = (uint16_t)(g.workers + 1);
		t = hgw_tcp_create(&tc);
		if (t == NULL)
			die("cannot create the connection");
		hgw_tcp_dlg_attach(t, g.dlg, 0);
		hgw_tcp_open(t, g.peer_ip, g.peer_port, rte_rdtsc());
		end = rte_rdtsc() + 5 * hz;
		while (hgw_tcp_state(t) != HGW_TCP_ESTABLISHED &&
		       hgw_tcp_state(t) != HGW_TCP_FAILED && rte_rdtsc() < end)
			hgw_tcp_poll(t, rte_rdtsc());
		if (hgw_tcp_state(t) != HGW_TCP_ESTABLISHED) {
			hgw_tcp_report(t, tc.cksum_offload, "tcp-dlg", stderr);
			die("the connection did not open");
		}
		hgw_tcp_poll(t, rte_rdtsc());   /* publishes the limit */
	}
	/* release: the connection's state (and the limit it published)
	 * before the workers start */
	atomic_store_explicit(&g.t0, rte_rdtsc() + hz / 100,
			      memory_order_release);
	/* acquire: pairs with each worker's release as it ends */
	while (atomic_load_explicit(&g.done, memory_order_acquire) <
	       g.workers) {
		if (t != NULL)
			hgw_tcp_poll(t, rte_rdtsc());
		if (t == NULL || g.owner_sleep_us != 0)
			rte_delay_us_sleep(t == NULL ? 1000 : g.owner_sleep_us);
	}
	rte_eal_mp_wait_lcore();
	if (t != NULL) {
		end = rte_rdtsc() + 20 * hz;
		while (hgw_tcp_state(t) == HGW_TCP_ESTABLISHED &&
		       hgw_tcp_unacked(t) != 0 && rte_rdtsc() < end)
			hgw_tcp_poll(t, rte_rdtsc());
		if (hgw_tcp_unacked(t) != 0 ||
		    hgw_tcp_state(t) != HGW_TCP_ESTABLISHED) {
			fprintf(stderr, "tcp-dlg: %u bytes not acknowledged, "
				"state %d\n", hgw_tcp_unacked(t),
				(int)hgw_tcp_state(t));
			rc = 1;
		}
		hgw_tcp_shutdown(t);
		end = rte_rdtsc() + 5 * hz;
		while (hgw_tcp_state(t) == HGW_TCP_ESTABLISHED &&
		       rte_rdtsc() < end)
			hgw_tcp_poll(t, rte_rdtsc());
		if (hgw_tcp_state(t) != HGW_TCP_DONE) {
			fprintf(stderr, "tcp-dlg: the connection did not end "
				"cleanly (state %d, %s)\n",
				(int)hgw_tcp_state(t),
				hgw_tcp_why_name(hgw_tcp_failure(t)));
			rc = 1;
		}
	}
	hgw_hist_init(&all);
	for (unsigned int i = 0; i < g.workers; i++) {
		struct worker *w = &g.w[i];

		sent += g.tcp ? w->q.sent : w->udp_won;
		lost += g.tcp ? w->q.lost : w->udp_lost;
		full += w->q.full;
		closed += w->q.closed;
		txf += w->q.tx_full;
		moved += w->q.moved;
		nref += w->nrefused;
		hgw_hist_merge(&all, &w->lat);
		printf("worker %u: sent %" PRIu64 " lost %" PRIu64 "\n", i,
		       g.tcp ? w->q.sent : w->udp_won,
		       g.tcp ? w->q.lost : w->udp_lost);
	}
	printf("sent %" PRIu64 " lost %" PRIu64 " full %" PRIu64 " closed %"
	       PRIu64 " tx_full %" PRIu64 " moved %" PRIu64 "\n", sent, lost,
	       full, closed, txf, moved);
	hgw_hist_print(&all, stdout, g.tcp ? "claim-tcp" : "claim-udp",
		       1e9 / (double)hz, "ns");
	if (sent + full + closed != g.orders) {
		fprintf(stderr, "tcp-dlg: %" PRIu64 " triggers claimed, of %u\n",
			sent + full + closed, g.orders);
		rc = 1;
	}
	if (g.refused != NULL) {
		FILE *f = fopen(g.refused, "w");
		uint32_t *all_ref = calloc(nref + 1, sizeof(*all_ref));
		uint64_t j = 0;

		if (f == NULL || all_ref == NULL)
			die("cannot write --refused");
		for (unsigned int i = 0; i < g.workers; i++)
			for (uint32_t x = 0; x < g.w[i].nrefused; x++)
				all_ref[j++] = g.w[i].refused[x];
		qsort(all_ref, nref, sizeof(*all_ref), refused_cmp);
		for (j = 0; j < nref; j++)
			fprintf(f, "%" PRIu32 "\n", all_ref[j]);
		if (fclose(f) != 0)
			die("cannot write --refused");
		free(all_ref);
	}
	if (g.tx_times != NULL) {
		FILE *f = fopen(g.tx_times, "w");

		if (f == NULL)
			die("cannot write --tx-times");
		for (uint32_t i = 1; i <= g.orders; i++)
			for (unsigned int k2 = 0; k2 < g.workers; k2++)
				if (g.w[k2].tx_ns[i] != 0)
					fprintf(f, "%" PRIu32 " %" PRIu64 "\n", i,
						g.w[k2].tx_ns[i]);
		if (fclose(f) != 0)
			die("cannot write --tx-times");
	}
	if (t != NULL) {
		hgw_tcp_report(t, tc.cksum_offload, "tcp-dlg", stdout);
		printf("tcp-dlg: delegated bytes %" PRIu64 ", owner waits for "
		       "a commit %" PRIu64 "\n", hgw_tcp_stats(t)->dlg_bytes,
		       hgw_tcp_stats(t)->dlg_waits);
	}
	return rc;
}
