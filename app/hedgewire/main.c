/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: start-up, the control plane, and the exit summary.
 *
 *   hedgewire [EAL args] -- [-c conf.ini] [--set section.key=value]...
 *             [--dump-book FILE] [--print-config]
 *             [--check [--check-stall-ms MS]]
 *
 * The main lcore is the control plane: it configures the port, launches
 * one worker per worker lcore, watches for the end of the feed, a stop
 * signal or an idle feed, then stops the workers and prints the summary.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_memzone.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>
#include <rte_telemetry.h>

#include "capture.h"
#include "check.h"
#include "config.h"
#include "control.h"
#include "venue.h"
#include "relay.h"
#include "hgw_cli.h"
#include "hgw_chanmap.h"
#include "hgw_port.h"
#include "journal.h"
#include "pdump.h"
#include "stats_tel.h"
#include "worker.h"

RTE_LOG_REGISTER(hgw_app_logtype, hgw.app, INFO);
#define RTE_LOGTYPE_HGW_APP hgw_app_logtype

static volatile sig_atomic_t signalled;
static volatile sig_atomic_t hangup;	/* SIGHUP: reopen the files */

static void
on_signal(int sig)
{
	signalled = sig;
}

static void
on_hangup(int sig __rte_unused)
{
	hangup = 1;
}

/* Start-up failures: one line naming the bad input, then exit. */
#define die(...) hgw_cli_die("hedgewire", __VA_ARGS__)

/* Test-only fault injection: [0] stall, [1] stop, [2] corrupt. */
struct inject_arg {
	uint32_t worker;        /* UINT32_MAX: off */
	uint32_t a, b;          /* stall: us, every; stop: frames */
};

struct app_args {
	const char *config;
	const char *dump_book;
	const char *latency;
	const char *claims;
	int print_config;
	int check;
	uint32_t check_stall_ms;
	struct inject_arg inject[3];
};

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: hedgewire [EAL args] -- [options]\n"
		"  -c, --config FILE     INI configuration (see conf/demo.ini)\n"
		"  --set SEC.KEY=VALUE   override one configuration key (repeatable)\n"
		"  --dump-book FILE      write every instrument's best bid/ask at exit\n"
		"  --latency PREFIX      write the sent orders' latency histogram as\n"
		"                        PREFIX.csv and PREFIX.json (ns; scripts/ccdf.sh)\n"
		"  --claims FILE         benchmarks: write every worker's time to each\n"
		"                        trigger's order, and who won it, as CSV\n"
		"  --print-config        print the effective configuration and exit\n"
		"  --check               check the host for this configuration (ok,\n"
		"                        warn or fail per item, with the fix); exit\n"
		"                        1 if an item fails; trades nothing\n"
		"  --check-stall-ms MS   with --check: spin MS ms on the worker cpus\n"
		"                        to measure their stalls (default 1000, 0: no)\n"
		"  --inject-stall W,US,N test: worker W freezes US microseconds at\n"
		"                        random messages, one every N on average\n"
		"  --inject-stop W,F     test: worker W stops for good after F frames\n"
		"  --inject-corrupt W,N  test: worker W's N-th decision gets one more\n"
		"                        share (the replicas' digests must catch it)\n"
		"  -h, --help            this text\n");
}

/* "W,A[,B]": n positive numbers (W may be 0). */
static void
parse_inject(const char *s, const char *what, int n, struct inject_arg *ia)
{
	const char *arg = s;
	uint64_t v[3];
	int i;

	for (i = 0; i < n; i++) {
		if (hgw_cli_dec(&s, i > 0 ? 1 : 0, UINT32_MAX, &v[i]) != 0 ||
		    *s != (i == n - 1 ? '\0' : ','))
			die("--inject-%s: bad value '%s' (expected %s)", what, arg,
			    n == 3 ? "WORKER,USEC,EVERY" :
			    strcmp(what, "stop") == 0 ? "WORKER,FRAMES" :
			    "WORKER,DECISION");
		s++;
	}
	ia->worker = (uint32_t)v[0];
	ia->a = (uint32_t)v[1];
	ia->b = n == 3 ? (uint32_t)v[2] : 0;
}

static void
parse_args(int argc, char **argv, struct app_args *a, struct hgw_config *c)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 's' },
		{ "dump-book", required_argument, NULL, 'd' },
		{ "latency", required_argument, NULL, 'L' },
		{ "claims", required_argument, NULL, 1001 },
		{ "print-config", no_argument, NULL, 'p' },
		{ "check", no_argument, NULL, 'K' },
		{ "check-stall-ms", required_argument, NULL, 'M' },
		{ "inject-stall", required_argument, NULL, 'S' },
		{ "inject-stop", required_argument, NULL, 'X' },
		{ "inject-corrupt", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* --set values are applied after the file, in order. */
	const char *sets[64];
	unsigned int nsets = 0;
	char err[512];
	int opt;

	a->inject[0].worker = a->inject[1].worker = UINT32_MAX;
	a->inject[2].worker = UINT32_MAX;
	a->check_stall_ms = 1000;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			a->config = optarg;
			break;
		case 's':
			if (nsets == RTE_DIM(sets))
				die("too many --set options (at most %zu)",
				    RTE_DIM(sets));
			sets[nsets++] = optarg;
			break;
		case 'd':
			a->dump_book = optarg;
			break;
		case 'L':
			a->latency = optarg;
			break;
		case 1001:	/* --claims */
			a->claims = optarg;
			break;
		case 'p':
			a->print_config = 1;
			break;
		case 'K':
			a->check = 1;
			break;
		case 'M':
			a->check_stall_ms = (uint32_t)hgw_cli_num("hedgewire",
				"check-stall-ms", optarg, 0, 60000);
			break;
		case 'S':
			parse_inject(optarg, "stall", 3, &a->inject[0]);
			break;
		case 'X':
			parse_inject(optarg, "stop", 2, &a->inject[1]);
			break;
		case 'C':
			parse_inject(optarg, "corrupt", 2, &a->inject[2]);
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		default:
			usage(stderr);
			exit(EXIT_FAILURE);
		}
	}
	if (optind != argc)
		die("unexpected argument '%s' (app options go after --)",
		    argv[optind]);
	if (a->config != NULL && hgw_config_load(c, a->config, err, sizeof(err)) < 0)
		die("%s", err);
	for (unsigned int i = 0; i < nsets; i++)
		if (hgw_config_set(c, sets[i], err, sizeof(err)) < 0)
			die("%s", err);
}

/* Configure and start a port with nrx RX queues fed from rx_pool and ntx
 * TX queues. */
static void
port_start(uint16_t port, uint16_t nrx, uint16_t ntx, uint16_t nrxd,
	   struct rte_mempool *rx_pool, uint64_t rx_offloads, const char *what)
{
	char err[256], warn[128], whatv[48], rx_why[64];
	struct hgw_port_conf pc = {
		.nrx = nrx, .ntx = ntx, .nrxd = nrxd, .ntxd = 512,
		.rx_pool = rx_pool, .rx_offloads = rx_offloads,
		/* the feed is multicast: take every group; the decoder
		 * filters */
		.rx = HGW_PORT_RX_ALLMULTI, .what = whatv, .rx_why = rx_why,
		/* so that dpdk-dumpcap can capture a feed-only or an
		 * order-only port too */
		.both_ways = 1,
		.tx_why = "[run] workers / dedup" };

	snprintf(whatv, sizeof(whatv), "%s = %u", what, port);
	snprintf(rx_why, sizeof(rx_why), "[run] workers x [feed] lines = %u",
		 nrx);
	if (hgw_port_start(port, &pc, err, sizeof(err), warn,
			   sizeof(warn)) != 0)
		die("%s", err);
	if (warn[0] != '\0')
		RTE_LOG(WARNING, HGW_APP, "%s\n", warn);
}

/* flow-mirror: one rte_flow rule on the feed (group, port) whose fate is
 * queue 0 and which mirrors every packet to queues 1..N-1 with SAMPLE
 * actions of ratio 1. Validated first; a PMD that cannot do it stops
 * start-up with one line saying so (use fanout or queues there). */
static void
flow_mirror(const struct hgw_config *c)
{
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 ip_spec, ip_mask;
	struct rte_flow_item_udp udp_spec, udp_mask;
	struct rte_flow_item pattern[4];
	struct rte_flow_action_queue queue[HGW_MAX_WORKERS];
	struct rte_flow_action sub[HGW_MAX_WORKERS][2];
	struct rte_flow_action_sample sample[HGW_MAX_WORKERS];
	struct rte_flow_action actions[HGW_MAX_WORKERS + 1];
	struct rte_flow_error ferr;
	struct rte_eth_dev_info info;
	uint32_t n = c->workers, a = 0;

	memset(&ip_spec, 0, sizeof(ip_spec));
	memset(&ip_mask, 0, sizeof(ip_mask));
	memset(&udp_spec, 0, sizeof(udp_spec));
	memset(&udp_mask, 0, sizeof(udp_mask));
	memset(pattern, 0, sizeof(pattern));
	memset(actions, 0, sizeof(actions));
	ip_spec.hdr.dst_addr = rte_cpu_to_be_32(c->feed.group);
	ip_mask.hdr.dst_addr = c->feed.group ? RTE_BE32(0xffffffff) : 0;
	udp_spec.hdr.dst_port = rte_cpu_to_be_16(c->feed.port);
	udp_mask.hdr.dst_port = c->feed.port ? RTE_BE16(0xffff) : 0;
	pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	pattern[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		.spec = &ip_spec, .mask = &ip_mask };
	pattern[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_UDP,
		.spec = &udp_spec, .mask = &udp_mask };
	pattern[3].type = RTE_FLOW_ITEM_TYPE_END;
	for (uint32_t q = 1; q < n; q++) {
		queue[q].index = (uint16_t)q;
		sub[q][0] = (struct rte_flow_action){
			.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue[q] };
		sub[q][1] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_END };
		sample[q] = (struct rte_flow_action_sample){ .ratio = 1,
			.actions = sub[q] };
		actions[a++] = (struct rte_flow_action){
			.type = RTE_FLOW_ACTION_TYPE_SAMPLE, .conf = &sample[q] };
	}
	queue[0].index = 0;
	actions[a++] = (struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue[0] };
	actions[a].type = RTE_FLOW_ACTION_TYPE_END;

	rte_eth_dev_info_get(c->rx_port, &info);
	memset(&ferr, 0, sizeof(ferr));
	if (rte_flow_validate(c->rx_port, &attr, pattern, actions, &ferr) != 0)
		die("[rx] mode = flow-mirror: port %u (%s) cannot mirror the feed "
		    "to %u queues: %s (use [rx] mode = fanout or queues)",
		    c->rx_port, info.driver_name, n,
		    ferr.message ? ferr.message : rte_strerror(rte_errno));
	if (rte_flow_create(c->rx_port, &attr, pattern, actions, &ferr) == NULL)
		die("[rx] mode = flow-mirror: port %u (%s): creating the rule "
		    "failed: %s", c->rx_port, info.driver_name,
		    ferr.message ? ferr.message : rte_strerror(rte_errno));
}

/* The RX port, and the order port when trading (the same one by default:
 * net_pcap0,rx_pcap=feed,tx_pcap=orders). Returns the RX pool. */
static struct rte_mempool *
ports_setup(const struct hgw_config *c, int trading)
{
	struct rte_mempool *pool;
	uint16_t nw = (uint16_t)c->workers;
	/* TX queues: one per worker, or the TX lcore's one */
	uint16_t ntx = c->dedup == HGW_DEDUP_MODE_TXLCORE ? 1 : nw;

	/* downstream with [venue]: one more for the control lcore's relay
	 * commands to hgw-dedup (relay.h) */
	ntx = (uint16_t)(ntx + hgw_relay_wanted(c));

	if (!rte_eth_dev_is_valid_port(c->rx_port))
		die("[rx] port = %u: no such DPDK port (%u available; pass a "
		    "device or --vdev in the EAL args)", c->rx_port,
		    rte_eth_dev_count_avail());
	pool = rte_pktmbuf_pool_create("hgw_rx", c->mbufs,
				       RTE_MIN(256u, c->mbufs / 8), 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       rte_eth_dev_socket_id(c->rx_port));
	if (pool == NULL)
		die("cannot create the RX pool of %u mbufs ([rx] mbufs): %s",
		    c->mbufs, rte_strerror(rte_errno));
	/* fanout: one RX queue for the RX lcore; else one per worker and
	 * line */
	uint16_t nrx = c->rx_mode == HGW_RX_FANOUT ? 1 : (uint16_t)(nw * c->lines);

	/* pcap pace: the frames' capture times, in the mbuf; [rx] timestamp
	 * = nic: the NIC's RX stamps, which it must offer */
	uint64_t offl = c->pace == HGW_PACE_PCAP || c->rx_ts == HGW_RX_TS_NIC ?
			RTE_ETH_RX_OFFLOAD_TIMESTAMP : 0;

	/* the port's checksum verdicts where it gives them (the decoder
	 * checks in software what it does not) */
	offl |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;

	if (c->rx_ts == HGW_RX_TS_NIC) {
		struct rte_eth_dev_info info;

		if (c->pace != HGW_PACE_OFF)
			die("[rx] timestamp = nic with [replay] pace: a paced "
			    "replay sets every arrival itself (use timestamp = tsc)");
		if (rte_eth_dev_info_get(c->rx_port, &info) != 0 ||
		    !(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP))
			die("[rx] timestamp = nic: port %u (%s) offers no RX "
			    "timestamps (use timestamp = tsc)", c->rx_port,
			    info.driver_name);
	}

	if (!trading || c->tx_port == c->rx_port) {
		port_start(c->rx_port, nrx, trading ? ntx : 0, c->rx_desc, pool,
			   offl, "[rx] port");
	} else {
		port_start(c->rx_port, nrx, 0, c->rx_desc, pool, offl,
			   "[rx] port");
		port_start(c->tx_port, 0, ntx, c->rx_desc, pool, 0,
			   "[order] port");
	}
	if (c->rx_mode == HGW_RX_FLOW_MIRROR)
		flow_mirror(c);
	return pool;
}

struct trading {
	struct hgw_table_set tables;      /* one replica per worker */
	struct hgw_table *table;          /* replica 0 */
	struct rte_mempool *tx_pool;
	struct hgw_journal *journal;
	uint64_t journal_errors;          /* write errors (docs/design.md "Order journal") */
	struct hgw_dedup *dedup;
};

static struct hgw_txlcore txlcore;
static unsigned int txlcore_lcore;

static void
risk_conf(const struct hgw_config *c, struct hgw_risk_conf *r)
{
	memset(r, 0, sizeof(*r));
	r->instruments = c->book.max_instruments;
	r->max_quantity = c->max_quantity;
	r->max_notional = c->max_notional;
	r->collar_bps = c->collar_bps;
	r->max_position = c->max_position;
	r->window_ns = (uint64_t)c->window_ms * 1000000u;
	r->max_orders_instrument = c->max_orders_instrument;
	r->max_orders_total = c->max_orders_total;
	r->max_open_orders = c->max_open_orders;
	r->cap_open_orders = RTE_MAX(c->max_open_orders, 4096u);
	r->venue = hgw_config_venue(c);
	r->kill = c->kill != 0;
	if (hgw_risk_parse_disable(r, c->risk_disable) < 0)
		die("[risk] disable: bad list '%s'", c->risk_disable);
}

static uint64_t
va2pa(const void *va, void *arg __rte_unused)
{
	phys_addr_t pa = rte_mem_virt2phy(va);

	return pa == RTE_BAD_IOVA ? HGW_CHANMAP_PA_UNKNOWN : pa;
}

/* N replicas of the table in one region laid out by the channel map (or
 * packed back to back on 2 MB boundaries without one), the file read once
 * into replica 0 and copied; placement verified entry by entry where
 * physical addresses are known, and said in one line either way. */
static void
replicas_load(struct trading *t, const struct hgw_config *c)
{
	uint32_t n = c->replicas ? c->replicas : c->workers;
	uint64_t offsets[HGW_CHANMAP_MAX_REPLICAS], align, region, nentries;
	struct hgw_table_dims dims;
	struct hgw_chanmap map;
	struct hgw_chanmap_report rep;
	/* the header again here: the layout needs the size before loading */
	const void *bases[HGW_CHANMAP_MAX_REPLICAS];
	char err[512], line[512];

	if (hgw_table_file_header(c->table_file, &dims, &nentries, err,
				  sizeof(err)) < 0)
		die("%s", err);
	uint64_t span = nentries * HGW_TABLE_ENTRY_SIZE;

	memset(&map, 0, sizeof(map));
	if (c->chanmap[0] != '\0') {
		if (hgw_chanmap_load(c->chanmap, &map, err, sizeof(err)) < 0)
			die("[table] chanmap: %s", err);
	} else {
		snprintf(map.name, sizeof(map.name), "packed");
		map.offset = RTE_ALIGN_CEIL(span, (uint64_t)RTE_PGSIZE_2M);
	}
	if (hgw_chanmap_replica_offsets(&map, n, HGW_TABLE_ENTRY_SIZE, span,
					offsets, &align, &region, err,
					sizeof(err)) < 0)
		die("[table] replicas = %u with chanmap %s: %s", n, map.name, err);
	if (hgw_table_load_replicas(c->table_file, (int)rte_socket_id(), n,
				    offsets, align, region, &t->tables, err,
				    sizeof(err)) < 0)
		die("%s", err);
	for (uint32_t r = 0; r < n; r++)
		bases[r] = t->tables.t[r].entries;
	t->table = &t->tables.t[0];

	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(t->tables.mem);
	uint64_t page = msl != NULL ? msl->page_sz : 4096;

	if (hgw_chanmap_verify(&map, n, bases, nentries, HGW_TABLE_ENTRY_SIZE,
			       page, va2pa, NULL,
			       hgw_chanmap_hypervisor() ? HGW_CHANMAP_F_GUEST_PA : 0,
			       &rep) != 0)
		die("table %s: the placement check refused its arguments",
		    c->table_file);
	printf("table %s: %u replica(s) of %" PRIu64 " MB in %s on %s pages, "
	       "%s\n", c->table_file, n, span >> 20,
		       t->tables.contiguous ? "IOVA-contiguous memory" :
		       "memory that is not IOVA-contiguous",
		       page >= RTE_PGSIZE_1G ? "1 GB" :
		       page >= RTE_PGSIZE_2M ? "2 MB" : "4 KB",
		       hgw_chanmap_report_line(&rep, line, sizeof(line)));
	if (rep.result == HGW_CHANMAP_VIOLATED)
		RTE_LOG(WARNING, HGW_APP, "table replicas share channels: %s\n",
			line);
}

static void
trading_init(struct trading *t, const struct hgw_config *c)
{
	char err[512];

	replicas_load(t, c);
	t->tx_pool = rte_pktmbuf_pool_create("hgw_tx", c->tx_mbufs,
					     RTE_MIN(256u, c->tx_mbufs / 8),
					     0, RTE_MBUF_DEFAULT_BUF_SIZE,
					     rte_eth_dev_socket_id(c->tx_port));
	if (t->tx_pool == NULL)
		die("cannot create the order pool of %u mbufs ([order] mbufs): %s",
		    c->tx_mbufs, rte_strerror(rte_errno));
	if (c->journal[0] != '\0') {
		t->journal = hgw_journal_open(c->journal, c->journal_orders,
					      err, sizeof(err));
		if (t->journal == NULL)
			die("%s", err);
	}
	if (c->dedup == HGW_DEDUP_MODE_CLAIM && c->workers > 1) {
		t->dedup = rte_zmalloc("hgw_dedup", sizeof(*t->dedup),
				       RTE_CACHE_LINE_SIZE);
		if (t->dedup == NULL || hgw_dedup_init(t->dedup) != 0)
			die("cannot allocate the dedup state");
	}
	if (c->dedup == HGW_DEDUP_MODE_TXLCORE) {
		struct hgw_sender *out = &txlcore.out;

		txlcore.nrings = c->workers;
		hgw_dedup_filter_init(&txlcore.filter);
		hgw_hist_init_precision(&out->rx_to_tx, c->latency_bits);
		out->port = c->tx_port;
		out->queue = 0;
		out->journal = t->journal ? hgw_journal_tx(t->journal) : NULL;
		for (uint32_t i = 0; i < c->workers; i++) {
			char name[RTE_RING_NAMESIZE];

			snprintf(name, sizeof(name), "hgw_handoff_%u", i);
			txlcore.rings[i] = rte_ring_create_elem(name,
				sizeof(struct hgw_handoff), c->ring_size,
				rte_socket_id(),
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (txlcore.rings[i] == NULL)
				die("cannot create handoff ring %u of %u orders "
				    "([rx] ring_size, a power of two): %s", i,
				    c->ring_size, rte_strerror(rte_errno));
		}
	}
}

static struct hgw_fanout fanout;
static unsigned int fanout_lcore;

/* fanout: the RX lcore takes the first worker lcore; one ring per worker. */
static unsigned int
fanout_init(const struct hgw_config *c)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);

	fanout.port = c->rx_port;
	fanout.queue = 0;
	fanout.burst = c->burst;
	fanout.drain_max = c->rx_desc;
	fanout.nrings = c->workers;
	for (uint32_t i = 0; i < c->workers; i++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "hgw_fanout_%u", i);
		fanout.rings[i] = rte_ring_create(name, c->ring_size,
						  (int)rte_socket_id(),
						  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (fanout.rings[i] == NULL)
			die("cannot create fanout ring %u of %u ([rx] ring_size, a "
			    "power of two): %s", i, c->ring_size,
			    rte_strerror(rte_errno));
	}
	fanout_lcore = lcore;
	return rte_get_next_lcore(lcore, 1, 0);
}

/* [rx] timestamp = nic: the clock map the workers read, its first
 * (clock, TSC) pair, and the time of the last refit. */
static struct hgw_nic_clock_shared nic_clock;
static uint64_t nic_clk0, nic_tsc0, nic_refit_tsc;

/* One (NIC clock, TSC) pair: the TSC in the middle of the clock read. */
static int
nic_clock_pair(uint16_t port, uint64_t *clk, uint64_t *tsc)
{
	uint64_t a = rte_rdtsc_precise();
	int rc = rte_eth_read_clock(port, clk);
	uint64_t b = rte_rdtsc_precise();

	*tsc = a + (b - a) / 2;
	return rc;
}

static void
nic_clock_init(struct hgw_worker *const *w, const struct hgw_config *c)
{
	uint64_t clk, tsc;
	int bit, off, rc;

	if (c->rx_ts != HGW_RX_TS_NIC)
		return;
	bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, NULL);
	rc = nic_clock_pair(c->rx_port, &nic_clk0, &nic_tsc0);
	if (bit < 0 || off < 0 || rc != 0)
		die("[rx] timestamp = nic: port %u gives no RX timestamps or "
		    "cannot read its clock (%s; use timestamp = tsc)",
		    c->rx_port, rc != 0 ? strerror(-rc) : "no mbuf field");
	rte_delay_us_sleep(20000);
	if (nic_clock_pair(c->rx_port, &clk, &tsc) != 0 ||
	    hgw_nic_clock_fit(&nic_clock.map, nic_clk0, nic_tsc0, clk, tsc) != 0)
		die("[rx] timestamp = nic: port %u's clock does not advance",
		    c->rx_port);
	rte_seqcount_init(&nic_clock.seq);
	nic_refit_tsc = tsc;
	for (uint32_t i = 0; i < c->workers; i++) {
		w[i]->nic = &nic_clock;
		w[i]->ts_offset = off;
		w[i]->ts_flag = RTE_BIT64(bit);
	}
	printf("rx: arrival = NIC RX timestamp of a burst's first frame, "
	       "%.6f TSC cycles per NIC tick\n", nic_clock.map.tsc_per_tick);
}

/* Refit over the whole baseline about once a second (drift). */
static void
nic_clock_refit(const struct hgw_config *c)
{
	struct hgw_nic_clock map;
	uint64_t clk, tsc;

	if (c->rx_ts != HGW_RX_TS_NIC ||
	    rte_rdtsc() - nic_refit_tsc < rte_get_tsc_hz())
		return;
	if (nic_clock_pair(c->rx_port, &clk, &tsc) != 0 ||
	    hgw_nic_clock_fit(&map, nic_clk0, nic_tsc0, clk, tsc) != 0)
		return;
	nic_refit_tsc = tsc;
	rte_seqcount_write_begin(&nic_clock.seq);
	nic_clock.map = map;
	rte_seqcount_write_end(&nic_clock.seq);
}

/* Paced replay: every worker gets the same t0, start_delay_ms from now,
 * so all of them are launched and waiting before the first deadline. */
static void
pace_init(struct hgw_worker *const *w, const struct hgw_config *c)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t t0 = rte_rdtsc() + hz / 1000 * c->start_delay_ms;
	uint64_t miss = hz / 1000000 * c->miss_us;
	int off = -1;
	uint64_t flag = 0;

	if (c->pace == HGW_PACE_PCAP) {
		int bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME,
						  NULL);

		off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME,
					       NULL);
		if (off < 0 || bit < 0)
			die("[replay] pace = pcap: port %u gives no RX timestamps "
			    "(use pace = rate)", c->rx_port);
		flag = RTE_BIT64(bit);
	}
	txlcore.out.miss_tsc = miss;
	for (uint32_t i = 0; i < c->workers; i++) {
		w[i]->out.miss_tsc = miss;
		w[i]->pace = c->pace;
		if (c->pace == HGW_PACE_OFF)
			continue;
		w[i]->ts_offset = off;
		w[i]->ts_flag = flag;
		if (c->pace == HGW_PACE_PCAP)
			/* net_pcap stamps microseconds */
			hgw_pacer_init_pcap(&w[i]->pacer, t0, hz, 1e6, c->speed);
		else
			hgw_pacer_init_rate(&w[i]->pacer, t0, hz, c->pps,
					    c->pace_burst);
	}
}

/* [buffers]: what each switch does on this CPU, said once. */
static struct hgw_idio_cpu idio_cpu;

static void
idio_init(struct hgw_worker *const *w, const struct hgw_config *c)
{
	uint32_t poison = hgw_config_poison_bytes(c);
	int active;
	const char *insn;

	hgw_idio_detect(&idio_cpu);
	insn = hgw_idio_inval_insn(&idio_cpu, c->invalidate, &active);
	for (uint32_t i = 0; i < c->workers; i++) {
		w[i]->cpu = &idio_cpu;
		w[i]->inval = active ? (enum hgw_idio_inval)c->invalidate :
				      HGW_IDIO_INVAL_OFF;
		w[i]->prefetch = (int)c->prefetch;
		hgw_idio_pf_init(&w[i]->pf, rte_get_tsc_hz() / 1000000000.0 *
				 c->prefetch_window_ns, c->prefetch_min_burst,
				 c->prefetch_depth);
		w[i]->poison_bytes = poison;
		w[i]->poison_every = c->poison_every;
		w[i]->idio_on = w[i]->inval != HGW_IDIO_INVAL_OFF || poison != 0;
	}
	printf("buffers: invalidate %s%s, prefetch %s, poison %s\n",
	       c->invalidate == HGW_IDIO_INVAL_OFF ? "off" : insn,
	       c->invalidate != HGW_IDIO_INVAL_OFF && !active ?
	       " (not on this CPU: off)" : "",
	       c->prefetch ? "on" : "off",
	       poison == 0 ? "off" : c->poison_every == 1 ? "every free" :
	       "sampled");
	if (c->prefetch)
		printf("buffers: prefetch up to %u packets into L2 when %u or "
		       "more arrive within %u ns\n", c->prefetch_depth,
		       c->prefetch_min_burst, c->prefetch_window_ns);
	if (poison != 0)
		printf("buffers: poison the first %u bytes of 1 free in %u\n",
		       poison, c->poison_every);
}

/* [recovery] server, parsed (0: off). */
static uint32_t rq_server_ip;
static uint16_t rq_server_port;

/* [recovery] and [feed] lines: what they need, checked in one line each. */
static void
recovery_lines_init(const struct hgw_config *c, int trading)
{
	char ip[64];
	const char *colon = strrchr(c->rq_server, ':');
	struct in_addr a;
	unsigned long port;
	char *end;

	if (c->lines == 2 && c->rx_mode != HGW_RX_QUEUES)
		die("[feed] lines = 2 needs [rx] mode = queues (two RX queues a "
		    "worker: 2i line A, 2i+1 line B)");
	if (c->rq_server[0] == '\0')
		return;
	if (colon == NULL || (size_t)(colon - c->rq_server) >= sizeof(ip))
		die("bad value for [recovery] server: '%s' (expected IP:PORT)",
		    c->rq_server);
	memcpy(ip, c->rq_server, (size_t)(colon - c->rq_server));
	ip[colon - c->rq_server] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (inet_pton(AF_INET, ip, &a) != 1 || errno != 0 || *end != '\0' ||
	    colon[1] < '0' || colon[1] > '9' || port == 0 || port > 65535)
		die("bad value for [recovery] server: '%s' (expected IP:PORT)",
		    c->rq_server);
	if (!trading)
		die("[recovery] server needs trading ([table] file): requests "
		    "leave on the workers' order queues");
	if (c->dedup == HGW_DEDUP_MODE_TXLCORE)
		die("[recovery] server with [run] dedup = tx-lcore: workers have "
		    "no TX queue of their own to ask from (use claim)");
	rq_server_ip = ntohl(a.s_addr);
	rq_server_port = (uint16_t)port;
	printf("recovery: gaps re-requested from %s, answers to port %u + "
	       "worker\n", c->rq_server, c->rq_client_port);
}

static void
workers_init(struct hgw_worker **w, const struct hgw_config *c,
	     struct trading *t)
{
	size_t booksz = hgw_book_memsize(&c->book);
	unsigned int lcore = c->rx_mode == HGW_RX_FANOUT ? fanout_init(c) :
			     rte_get_next_lcore(-1, 1, 0);
	struct hgw_risk_conf rc;
	size_t risksz = 0;

	if (booksz == 0)
		die("[book] sizes invalid (instruments %u, orders %u, levels %u)",
		    c->book.max_instruments, c->book.max_orders,
		    c->book.max_levels);
	if (t->table != NULL) {
		risk_conf(c, &rc);
		risksz = hgw_risk_memsize(&rc);
		if (risksz == 0)
			die("[risk] configuration invalid");
	}
	for (uint32_t i = 0; i < c->workers; i++) {
		int socket = (int)rte_lcore_to_socket_id(lcore);
		void *mem;

		w[i] = rte_zmalloc_socket("hgw_worker", sizeof(*w[i]),
					  RTE_CACHE_LINE_SIZE, socket);
		if (w[i] == NULL)
			die("cannot allocate worker %u on socket %d", i,
			    socket);
		w[i]->lcore = lcore;
		w[i]->port = c->rx_port;
		w[i]->burst = c->burst;
		w[i]->drain_max = c->rx_desc;
		if (c->rx_mode == HGW_RX_FANOUT) {
			w[i]->rx_ring = fanout.rings[i];
			w[i]->fanout = &fanout;
		}
		struct hgw_feed_conf fc = c->feed;

		fc.join_baseline = (uint8_t)(c->join == 1);
		w[i]->lines = (uint16_t)c->lines;
		w[i]->queue = (uint16_t)(i * c->lines);
		w[i]->queue_b = (uint16_t)(i * c->lines + 1);
		w[i]->hold_on = c->lines == 2 || rq_server_ip != 0;
		w[i]->hold.max = c->hold_frames;
		w[i]->hold.wait_tsc = rte_get_tsc_hz() / 1000000 * c->hold_us;
		fc.hold_ahead = (uint8_t)w[i]->hold_on;
		if (rq_server_ip != 0) {
			struct hgw_recovery *r = &w[i]->rq;

			/* answers come unicast to where the request came from */
			fc.alt_ip = c->src_ip;
			fc.alt_port = (uint16_t)(c->rq_client_port + i);
			fc.alt_src = rq_server_ip;
			r->on = 1;
			memcpy(r->addr.src_mac, c->src_mac, 6);
			memcpy(r->addr.dst_mac, c->dst_mac, 6);
			r->addr.src_ip = c->src_ip;
			r->addr.dst_ip = rq_server_ip;
			r->addr.src_port = fc.alt_port;
			r->addr.dst_port = rq_server_port;
			r->timeout_tsc = rte_get_tsc_hz() / 1000 * c->rq_timeout_ms;
			r->retries = c->rq_retries;
			r->max_messages = c->rq_max_messages;
		}
		hgw_feed_init(&w[i]->feed, &fc);
		w[i]->warmup_messages = c->warmup_messages;
		hgw_hist_init_precision(&w[i]->stage_book, c->latency_bits);
		hgw_hist_init_precision(&w[i]->lookup, c->latency_bits);
		hgw_hist_init_precision(&w[i]->stage_risk, c->latency_bits);
		w[i]->stage_every = w[i]->stage_left = c->stage_sample;
		mem = rte_zmalloc_socket("hgw_book", booksz, RTE_CACHE_LINE_SIZE,
					 socket);
		if (mem == NULL)
			die("cannot allocate %zu MB for worker %u's book (reduce "
			    "[book] orders/levels/instruments or give EAL more "
			    "memory with -m)", booksz >> 20, i);
		w[i]->book = hgw_book_init(mem, &c->book);
		if (t->table != NULL) {
			mem = rte_zmalloc_socket("hgw_risk", risksz,
						 RTE_CACHE_LINE_SIZE, socket);
			if (mem == NULL)
				die("cannot allocate %zu KB of risk state for "
				    "worker %u", risksz >> 10, i);
			w[i]->risk = hgw_risk_init(mem, &rc);
			w[i]->venue = rc.venue;
			/* each worker reads its own replica; with one per
			 * worker it is also the replica's one writer (patch
			 * events), else live patches are refused */
			w[i]->table = &t->tables.t[i % t->tables.n];
			if (t->tables.n >= c->workers)
				w[i]->table_rw = &t->tables.t[i];
			w[i]->tx_pool = t->tx_pool;
			hgw_hist_init_precision(&w[i]->out.rx_to_tx,
						c->latency_bits);
			w[i]->dedup = t->dedup;
			if (c->dedup == HGW_DEDUP_MODE_TXLCORE) {
				w[i]->handoff = txlcore.rings[i];
				w[i]->txl = &txlcore;
			} else {
				w[i]->out.port = c->tx_port;
				w[i]->out.queue = (uint16_t)i;
				w[i]->out.journal = t->journal ?
					hgw_journal_tx(t->journal) : NULL;
			}
			w[i]->capacity = (uint8_t)c->capacity;
			memcpy(w[i]->udp.src_mac, c->src_mac, 6);
			memcpy(w[i]->udp.dst_mac, c->dst_mac, 6);
			w[i]->udp.src_ip = c->src_ip;
			w[i]->udp.dst_ip = c->dst_ip;
			w[i]->udp.src_port = c->src_port;
			w[i]->udp.dst_port = c->dst_port;
			hgw_udp_tx_init(&w[i]->udp);
		}
		lcore = rte_get_next_lcore(lcore, 1, 0);
	}
	/* tx-lcore: the lcore after the workers */
	txlcore_lcore = lcore;
	pace_init(w, c);
	nic_clock_init(w, c);
	idio_init(w, c);
}

/* PREFIX.csv and PREFIX.json of a histogram of TSC cycles, in ns. */
static void
latency_files(const struct hgw_hist *h, const char *prefix)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	char path[PATH_MAX];
	FILE *f;

	for (int json = 0; json < 2; json++) {
		int rc;

		snprintf(path, sizeof(path), "%s.%s", prefix, json ? "json" : "csv");
		f = fopen(path, "w");
		if (f == NULL)
			die("--latency: cannot write %s: %s", path, strerror(errno));
		rc = json ? hgw_hist_write_json(h, f, "orders sent", ns, "ns") :
			    hgw_hist_write_csv(h, f, ns);
		if (fclose(f) != 0 && rc == 0)
			rc = -errno;
		if (rc < 0)
			die("--latency: cannot write %s: %s", path, strerror(-rc));
	}
}

/* --claims: room for this many triggers per worker (16 bytes each) */
#define CLAIMS_MAX (1u << 22)

static void
claims_init(struct hgw_worker *const *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		w[i]->claims = rte_malloc_socket("hgw_claims", CLAIMS_MAX *
						sizeof(*w[i]->claims),
						RTE_CACHE_LINE_SIZE,
						rte_lcore_to_socket_id(w[i]->lcore));
		if (w[i]->claims == NULL)
			die("--claims: cannot allocate %u MB for worker %u",
			    (unsigned int)(CLAIMS_MAX * sizeof(*w[i]->claims) >> 20),
			    i);
		w[i]->claims_max = CLAIMS_MAX;
	}
}

/* worker,seq,ns,won: one line per trigger a worker reached. */
static void
claims_write(struct hgw_worker *const *w, uint32_t n, const char *path)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	FILE *f = fopen(path, "w");
	int bad;

	if (f == NULL)
		die("--claims: cannot write %s: %s", path, strerror(errno));
	fprintf(f, "worker,seq,ns,won\n");
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t k = 0; k < w[i]->nclaims; k++)
			fprintf(f, "%u,%" PRIu64 ",%.0f,%u\n", i,
				w[i]->claims[k].seq,
				(double)w[i]->claims[k].cycles * ns,
				w[i]->claims[k].won);
		if (w[i]->claims_dropped != 0)
			fprintf(stderr, "hedgewire: --claims: worker %u: %"
				PRIu64 " triggers past the first %u not "
				"recorded\n", i, w[i]->claims_dropped,
				CLAIMS_MAX);
	}
	bad = ferror(f);
	if (fclose(f) != 0 || bad)
		die("--claims: cannot write %s", path);
}

static void
inject_init(struct hgw_worker *const *w, const struct app_args *a)
{
	const struct inject_arg *st = &a->inject[0], *sp = &a->inject[1];

	if (st->worker != UINT32_MAX) {
		struct hgw_inject *j = &w[st->worker]->inject;

		j->stall_us = st->a;
		j->stall_every = st->b;
		j->rng = 0x9e3779b97f4a7c15ULL ^ st->worker;
		j->countdown = st->b;
		RTE_LOG(WARNING, HGW_APP, "test: worker %u stalls %u us every "
			"~%u messages\n", st->worker, st->a, st->b);
	}
	if (a->inject[2].worker != UINT32_MAX) {
		w[a->inject[2].worker]->inject.corrupt_at = a->inject[2].a;
		RTE_LOG(WARNING, HGW_APP, "test: worker %u corrupts decision "
			"%u\n", a->inject[2].worker, a->inject[2].a);
	}
	if (sp->worker != UINT32_MAX) {
		w[sp->worker]->inject.stop_after = sp->a;
		RTE_LOG(WARNING, HGW_APP, "test: worker %u stops after %u "
			"frames\n", sp->worker, sp->a);
	}
}

enum stop_reason { STOP_END, STOP_IDLE, STOP_SIGNAL };

static const char *const stop_names[] = {
	[STOP_END] = "end of session",
	[STOP_IDLE] = "idle feed",
	[STOP_SIGNAL] = "signal",
};

/* Control loop, every millisecond: SIGHUP reopens the journal and the
 * events log; the journal's files are looked after, and a write error
 * handled as [order] journal_error says: stop (the kill switch, as for a
 * lost venue session) or alarm (said, and in the exit status). */
static void
journal_tick(const struct hgw_config *c, struct trading *t)
{
	char err[PATH_MAX + 256];

	if (hangup) {
		hangup = 0;
		if (t->journal != NULL)
			hgw_journal_reopen(t->journal);
		hgw_ctl_reopen_log();
	}
	if (t->journal == NULL ||
	    hgw_journal_poll(t->journal, err, sizeof(err)) == 0)
		return;
	t->journal_errors++;
	if (c->journal_error == HGW_JOURNAL_ERROR_STOP) {
		fprintf(stderr, "hedgewire: %s: trading stops "
			"([order] journal_error = stop)\n", err);
		hgw_ctl_kill("the order journal cannot be written");
	} else {
		fprintf(stderr, "hedgewire: %s ([order] journal_error = "
			"alarm)\n", err);
	}
}

/* Control loop: returns once the workers should stop. */
static enum stop_reason
control_loop(struct hgw_worker *const *w, const struct hgw_config *c,
	     struct trading *t)
{
	uint64_t last_frames = 0;
	uint64_t idle_since = rte_get_timer_cycles();
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t stats_every = hz / 1000 * c->stats_interval_ms;
	uint64_t stats_next = idle_since + stats_every;

	for (;;) {
		uint64_t frames = 0;
		uint32_t ended = 1;

		rte_delay_us_sleep(1000);
		nic_clock_refit(c);
		hgw_ctl_poll();
		if (txlcore.venue != NULL)
			hgw_venue_ctl_poll(txlcore.venue);
		hgw_relay_poll(0);
		journal_tick(c, t);
		if (signalled)
			return STOP_SIGNAL;
		for (uint32_t i = 0; i < c->workers; i++) {
			frames += atomic_load_explicit(&w[i]->shared.frames,
						       memory_order_relaxed);
			ended &= atomic_load_explicit(&w[i]->shared.at_end,
						      memory_order_relaxed) |
				 atomic_load_explicit(&w[i]->shared.dead,
						      memory_order_relaxed);
		}
		if (c->stop_at_end && ended)
			return STOP_END;
		uint64_t now = rte_get_timer_cycles();

		if (stats_every != 0 && now >= stats_next) {
			hgw_stats_tel_record(0);
			stats_next = now + stats_every;
		}
		if (frames != last_frames) {
			last_frames = frames;
			idle_since = now;
		} else if (c->idle_timeout_ms != 0 &&
			   now - idle_since > hz / 1000 * c->idle_timeout_ms) {
			return STOP_IDLE;
		}
	}
}

/* The orders that left through one sender (a worker's, or the TX
 * lcore's in tx-lcore mode). */
static void
print_sender(const struct hgw_sender *s, uint64_t pool_empty)
{
	printf("  %-22s %" PRIu64 "\n", "orders", s->tx.orders);
	printf("  %-22s %" PRIu64 "\n", "tx_full", s->tx.tx_full);
	printf("  %-22s %" PRIu64 "\n", "tx_pool_empty", pool_empty);
	printf("  %-22s %" PRIu64 "\n", "tx_pool_waits", s->tx.pool_waits);
	printf("  %-22s %" PRIu64 "\n", "journal_full", s->tx.journal_full);
	printf("  %-22s %" PRIu64 "\n", "misses", s->misses);
	hgw_hist_print(&s->rx_to_tx, stdout, "rx_to_tx",
		       1e9 / (double)rte_get_tsc_hz(),
		       "ns, rx_burst return to tx_burst, per order");
}

static void
print_summary(const struct hgw_worker *w, enum stop_reason why)
{
	const struct hgw_feed_stats *f = &w->feed.stats;
	const struct hgw_book_stats *b = hgw_book_stats(w->book);

	printf("hedgewire: stopped on %s\n", stop_names[why]);
	printf("worker %u lcore %u queue %u\n", (unsigned int)w->queue,
	       w->lcore, (unsigned int)w->queue);
	printf("  %-22s %" PRIu64 "\n", "frames", f->frames);
	printf("  %-22s %" PRIu64 "\n", "mold_packets", f->mold_packets);
	printf("  %-22s %" PRIu64 "\n", "messages", f->messages);
	printf("  %-22s %" PRIu64 "\n", "heartbeats", f->heartbeats);
	printf("  %-22s %" PRIu64 "\n", "end_of_session", f->end_of_session);
	printf("  %-22s %" PRIu64 "\n", "gaps", f->gaps);
	printf("  %-22s %" PRIu64 "\n", "gap_messages", f->gap_messages);
	printf("  %-22s %" PRIu64 "\n", "dup_messages", f->dup_messages);
	printf("  %-22s %" PRIu64 "\n", "rx_multiseg", w->rx.multiseg);
	if (w->nic != NULL)
		printf("  %-22s %" PRIu64 "\n", "rx_no_nic_timestamp",
		       w->nic_no_ts);
	if (w->rx.last_tsc > w->rx.first_tsc)
		printf("  rx rate: %.0f frames/s from the first burst to the "
		       "last\n", (double)(w->rx.mbufs - 1) * (double)rte_get_tsc_hz() /
		       (double)(w->rx.last_tsc - w->rx.first_tsc));
	if (w->pace != HGW_PACE_OFF)
		printf("  paced: %" PRIu64 " frames picked up after their "
		       "deadline (worst %.1f us late), %" PRIu64 " without a "
		       "timestamp\n", w->pace_late,
		       (double)w->pace_late_max * 1e6 / (double)rte_get_tsc_hz(),
		       w->pace_no_ts);
	for (int d = 0; d < HGW_FEED_DROP_MAX; d++)
		if (f->drops[d] != 0)
			printf("  drop %-17s %" PRIu64 "\n",
			       hgw_feed_drop_name((enum hgw_feed_drop)d),
			       f->drops[d]);
	for (int t = 0; t < 256; t++)
		if (f->by_type[t] != 0)
			printf("  type %c %-15s %" PRIu64 "\n", t,
			       hgw_itch_type_name((uint8_t)t), f->by_type[t]);
	for (uint32_t s = 0; s < w->feed.nsessions; s++) {
		const struct hgw_feed_session *ss = &w->feed.sessions[s];

		printf("  session %.10s next_seq %" PRIu64 " gaps %" PRIu64
		       " gap_messages %" PRIu64 " dup_packets %" PRIu64
		       " ended %u\n", ss->name, ss->next_seq, ss->gaps,
		       ss->gap_messages, ss->dup_packets, ss->ended);
	}
	printf("  %-22s %" PRIu64 "\n", "book_applied", b->applied);
	printf("  %-22s %" PRIu64 "\n", "book_live_orders", b->live_orders);
	printf("  %-22s %" PRIu64 "\n", "book_live_orders_hwm",
	       b->live_orders_hwm);
	for (int e = 0; e < HGW_BOOK_ERR_MAX; e++)
		if (b->errors[e] != 0)
			printf("  book_error %-11s %" PRIu64 "\n",
			       hgw_book_error_name((enum hgw_book_error)e),
			       b->errors[e]);
	if (w->table == NULL)
		return;
	printf("  %-22s %" PRIu64 "\n", "triggers", w->strategy.triggers);
	for (int o = 0; o < HGW_STRATEGY_MAX; o++)
		printf("  %-22s %" PRIu64 "\n",
		       hgw_strategy_outcome_name((enum hgw_strategy_outcome)o),
		       w->strategy.outcomes[o]);
	for (int r = 0; r < HGW_RISK_MAX; r++)
		printf("  reject_%-15s %" PRIu64 "\n",
		       hgw_risk_reject_name((enum hgw_risk_reject)r),
		       hgw_risk_stats(w->risk)->rejects[r]);
	if (w->venue) {
		const struct hgw_risk_stats *rs = hgw_risk_stats(w->risk);

		printf("  %-22s %" PRIu64 "\n", "venue_filled_shares",
		       rs->filled_shares);
		printf("  %-22s %" PRIu64 "\n", "venue_reduced_shares",
		       rs->reduced_shares);
		printf("  %-22s %" PRIu64 "\n", "venue_closed_orders",
		       rs->closed_orders);
		printf("  %-22s %" PRIu64 "\n", "venue_unknown_orders",
		       rs->unknown_orders);
		printf("  %-22s %" PRIu32 "\n", "open_orders",
		       hgw_risk_open_orders(w->risk));
	}
	print_sender(w->txl != NULL ? &w->txl->out : &w->out,
		     w->out.tx.pool_empty);
}

/* Replicas that saw the same feed and the same events must end in the
 * same state: feed counters, every book's touch, the risk state
 * (positions, throttle windows, limits) and the decision digest. NULL
 * when they do, else what differs first (why: room for the detail). */
/* Did a and b apply the same messages? What a replica's state is made
 * of: new messages (by type), gaps, ends of session; not how they came
 * (frames, duplicates from a second line, retransmissions, frames
 * refused), which may differ between faithful replicas. */
static int
feed_applied_differs(const struct hgw_feed_stats *a,
		     const struct hgw_feed_stats *b)
{
	return a->messages != b->messages || a->gaps != b->gaps ||
	       a->gap_messages != b->gap_messages ||
	       a->end_of_session != b->end_of_session ||
	       memcmp(a->by_type, b->by_type, sizeof(a->by_type)) != 0;
}

static const char *
replicas_differ(const struct hgw_worker *a, const struct hgw_worker *b,
		uint32_t instruments, char *why, size_t len)
{
	if (feed_applied_differs(&a->feed.stats, &b->feed.stats))
		return "feed counters";
	for (uint32_t l = 0; l < instruments; l++) {
		struct hgw_book_top ta, tb;

		hgw_book_top(a->book, (uint16_t)l, &ta);
		hgw_book_top(b->book, (uint16_t)l, &tb);
		if (memcmp(&ta, &tb, sizeof(ta)) != 0) {
			snprintf(why, len, "book of instrument %u", l);
			return why;
		}
	}
	if (a->risk == NULL || b->risk == NULL)
		return NULL;
	if (hgw_risk_state_cmp(a->risk, b->risk, why, len) != 0)
		return why;
	if (a->digest != b->digest || a->decisions != b->decisions) {
		snprintf(why, len, "decision digest (%" PRIu64 " vs %" PRIu64
			 " decisions)", a->decisions, b->decisions);
		return why;
	}
	if (a->ev_applied != b->ev_applied)
		return "events taken";
	return NULL;
}

/* Exit status bits (docs/operations.md "Exit status"), above 8 so that they
 * never look like a start-up error (1). */
#define EXIT_DIVERGED   1	/* replicas left the race or disagree */
#define EXIT_ORDERS     2	/* orders refused by the port (not sent) */
#define EXIT_JOURNAL    4	/* orders sent but not journalled, or the
				 * journal could not be written */
#define EXIT_HALTED     8	/* a replica missed input and stopped trading */
#define EXIT_CAPTURE    16	/* a replayed capture could not be read to its end */


static int
dump_book(const struct hgw_worker *w, uint32_t instruments, const char *path)
{
	FILE *out = fopen(path, "w");

	if (out == NULL)
		return -errno;
	for (uint32_t l = 1; l < instruments && l <= UINT16_MAX; l++) {
		const char *name = hgw_book_name(w->book, (uint16_t)l);
		struct hgw_book_top t;
		int n;

		if (name == NULL)
			continue;
		hgw_book_top(w->book, (uint16_t)l, &t);
		for (n = 8; n > 0 && name[n - 1] == ' '; n--)
			;
		fprintf(out, "bbo %u %.*s %u %" PRIu64 " %u %u %" PRIu64 " %u\n",
			l, n, name, t.bid_price, t.bid_shares, t.bid_orders,
			t.ask_price, t.ask_shares, t.ask_orders);
	}
	return fclose(out) == 0 ? 0 : -errno;
}

/* App options given without the "--" that ends the EAL's: say so, rather
 * than let the EAL take "-c conf.ini" for a bad core mask. */
static void
check_separator(int argc, char **argv)
{
	static const char *const app_opts[] = {
		"--config", "--set", "--dump-book", "--latency", "--claims",
		"--print-config",
		"--inject-stall", "--inject-stop", "--inject-corrupt",
		"--check",
	};

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return;
	for (int i = 1; i < argc; i++) {
		int app = strcmp(argv[i], "-c") == 0 && i + 1 < argc &&
			  strchr(argv[i + 1], '.') != NULL;

		for (size_t k = 0; k < RTE_DIM(app_opts) && !app; k++)
			app = strncmp(argv[i], app_opts[k],
				      strlen(app_opts[k])) == 0;
		if (app)
			die("'%s' is an application option: it goes after '--' "
			    "(hedgewire [EAL args] -- -c FILE [options])", argv[i]);
	}
}

int
main(int argc, char **argv)
{
	struct hgw_worker *workers[HGW_MAX_WORKERS] = { NULL };
	struct app_args args = { 0 };
	struct trading trading = { 0 };
	struct hgw_config conf;
	struct rte_mempool *pool;
	enum stop_reason why;
	int rc, trade, status = 0;

	hgw_cli_version("hedgewire", argc, argv);
	/* a line at a time, also into a pipe or the journal's socket (a
	 * service): the version line at start-up, not at exit */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* first: a stop signal during start-up (EAL, table loading) must
	 * still end in a clean stop and a summary, not kill the process
	 * half way (the control loop sees it at once) */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* SIGHUP: reopen the journal and the events log (logrotate), on
	 * the control lcore; SIGXFSZ: a file past RLIMIT_FSIZE is a write
	 * error (EFBIG) handled as one, not the end of the process */
	signal(SIGHUP, on_hangup);
	signal(SIGXFSZ, SIG_IGN);
	check_separator(argc, argv);
	rc = rte_eal_init(argc, argv);
	if (rc < 0)
		die("EAL init failed: %s", rte_strerror(rte_errno));
	/* live capture of the ports by a secondary process (dpdk-dumpcap):
	 * it costs nothing until one asks */
	hgw_pdump_init();
	hgw_config_defaults(&conf);
	parse_args(argc - rc, argv + rc, &args, &conf);
	if (args.print_config) {
		hgw_config_print(&conf, stdout);
		rte_eal_cleanup();
		return 0;
	}
	if (args.check) {
		status = hgw_check_run(&conf, args.check_stall_ms);
		rte_eal_cleanup();
		return status;
	}
	printf("hedgewire %s\n", HGW_VERSION);
	trade = conf.table_file[0] != '\0';
	hgw_venue_check(&conf);
	int txl = trade && conf.dedup == HGW_DEDUP_MODE_TXLCORE;
	unsigned int need = conf.workers + (conf.rx_mode == HGW_RX_FANOUT) +
			    (unsigned int)txl;

	if (rte_lcore_count() - 1 < need)
		die("[run] workers = %u%s%s needs %u lcores besides the main "
		    "one; EAL has %u (e.g. -l 0-%u)", conf.workers,
		    conf.rx_mode == HGW_RX_FANOUT ? " with [rx] mode = fanout" : "",
		    txl ? " with [run] dedup = tx-lcore" : "",
		    need, rte_lcore_count() - 1, need);
	for (unsigned int i = 0; i < 3; i++)
		if (args.inject[i].worker != UINT32_MAX &&
		    args.inject[i].worker >= conf.workers)
			die("--inject-%s: no worker %u ([run] workers = %u)",
			    i == 0 ? "stall" : i == 1 ? "stop" : "corrupt",
			    args.inject[i].worker, conf.workers);
	if (conf.digest_every & (conf.digest_every - 1))
		die("bad value for [run] digest_every: %u (a power of two, or 0)",
		    conf.digest_every);
	if (conf.stats_interval_ms != 0 && conf.stats_interval_ms < 10)
		die("bad value for [run] stats_interval_ms: %u (0 = off, or "
		    "10..86400000)", conf.stats_interval_ms);


	/* every port named must exist before anything asks about it */
	if (!rte_eth_dev_is_valid_port(conf.rx_port))
		die("[rx] port = %u: no such DPDK port (%u available; pass a "
		    "device or --vdev in the EAL args, and check that it "
		    "started: a net_pcap rx_pcap that cannot be read has no "
		    "port)", conf.rx_port, rte_eth_dev_count_avail());
	if (trade && !rte_eth_dev_is_valid_port(conf.tx_port))
		die("[order] port = %u: no such DPDK port (%u available)",
		    conf.tx_port, rte_eth_dev_count_avail());
	if (trade)
		trading_init(&trading, &conf);
	txlcore.venue = hgw_venue_init(&conf);
	recovery_lines_init(&conf, trade);
	pool = ports_setup(&conf, trade);
	hgw_pdump_clock(pool, conf.rx_port);
	hgw_capture_check_start(conf.rx_port);
	workers_init(workers, &conf, &trading);
	inject_init(workers, &args);
	if (args.claims != NULL)
		claims_init(workers, conf.workers);
	hgw_ctl_init(workers, conf.workers, &conf,
		     trade ? &trading.tables : NULL, txl ? &txlcore : NULL);
	hgw_stats_tel_init(workers, conf.workers, txl ? &txlcore : NULL,
			   conf.latency_bits);
	if (trade)
		hgw_relay_init(&conf);
	RTE_LOG(INFO, HGW_APP, "port %u, %u worker(s), book %zu MB each%s\n",
		conf.rx_port, conf.workers, hgw_book_memsize(&conf.book) >> 20,
		trade ? ", trading" : ", feed only");

	if (conf.rx_mode == HGW_RX_FANOUT &&
	    rte_eal_remote_launch(hgw_fanout_main, &fanout, fanout_lcore) != 0)
		die("cannot launch the RX lcore %u", fanout_lcore);
	if (txl && rte_eal_remote_launch(hgw_txlcore_main, &txlcore,
					 txlcore_lcore) != 0)
		die("cannot launch the TX lcore %u", txlcore_lcore);
	if (txlcore.venue != NULL)
		hgw_venue_wait_up(txlcore.venue, conf.venue_dead_ms);
	for (uint32_t i = 0; i < conf.workers; i++)
		if (rte_eal_remote_launch(hgw_worker_main, workers[i],
					  workers[i]->lcore) != 0)
			die("cannot launch worker %u on lcore %u", i,
			    workers[i]->lcore);

	why = control_loop(workers, &conf, &trading);
	hgw_ctl_close();
	atomic_store_explicit(&hgw_stop, 1, memory_order_relaxed);
	rte_eal_mp_wait_lcore();
	hgw_stats_tel_joined();
	hgw_ctl_poll();		/* the last checkpoint every replica reached */
	if (conf.stats_interval_ms != 0)
		hgw_stats_tel_record(1);	/* the totals the summary has */

	/* Workers are done: every order they sent is in the journal's
	 * files, which are cut after their last record. */
	if (trading.journal != NULL) {
		char jerr[PATH_MAX + 256];

		if (hgw_journal_finish(trading.journal, jerr, sizeof(jerr))) {
			fprintf(stderr, "hedgewire: %s\n", jerr);
			trading.journal_errors++;
		}
	}

	print_summary(workers[0], why);
	printf("feed: join = %s%s, lines %u, max_jump %" PRIu64 ", "
	       "session_confirm %u, recovery %s\n",
	       conf.join == 1 ? "baseline" : "recover",
	       conf.join == 1 ? " (a mid-session start is the baseline)" :
	       " (a mid-session start is missed input)", conf.lines,
	       conf.feed.max_jump, conf.feed.session_confirm,
	       conf.rq_server[0] != '\0' ? conf.rq_server : "off");
	/* What the port itself lost (no mbuf, full ring): never silent. */
	struct rte_eth_stats ps;

	if (rte_eth_stats_get(conf.rx_port, &ps) == 0)
		printf("port %u: ipackets %" PRIu64 " imissed %" PRIu64
		       " rx_nombuf %" PRIu64 " ierrors %" PRIu64 "\n",
		       conf.rx_port, ps.ipackets, ps.imissed, ps.rx_nombuf,
		       ps.ierrors);
	if (trading.dedup != NULL)
		for (uint32_t i = 0; i < conf.workers; i++)
			printf("worker %u races won %" PRIu64 " lost %" PRIu64
			       " no slot %" PRIu64 " (orders sent %" PRIu64
			       ")\n", i, workers[i]->races.won,
			       workers[i]->races.lost, workers[i]->races.full,
			       workers[i]->out.tx.orders);
	if (txl) {
		for (uint32_t i = 0; i < conf.workers; i++)
			printf("worker %u races won %" PRIu64 " lost %" PRIu64
			       " (orders handed over %" PRIu64 ", ring full "
			       "waits %" PRIu64 ", order pool waits %" PRIu64
			       ")\n", i,
			       txlcore.filter.passed[i], txlcore.filter.dropped[i],
			       workers[i]->out.tx.orders,
			       workers[i]->handoff_retries,
			       workers[i]->out.tx.pool_waits);
		printf("tx lcore %u: orders sent %" PRIu64 ", late copies "
		       "dropped %" PRIu64 ", invalid %" PRIu64 ", recalled by "
		       "the kill switch %" PRIu64 "\n",
		       txlcore_lcore, txlcore.out.tx.orders, txlcore.races_lost,
		       txlcore.filter.invalid, txlcore.recalled_n);
		if (txlcore.venue != NULL &&
		    hgw_venue_report(txlcore.venue, stdout) != 0) {
			fprintf(stderr, "hedgewire: venue: messages or unsent "
				"orders the replicas were not told of\n");
			status |= EXIT_ORDERS;
		}
	}
	if (trade && hgw_relay_wanted(&conf)) {
		/* what hgw-dedup still relays (answers to the last orders)
		 * goes to the journal only: 500 ms */
		for (int i = 0; i < 50; i++) {
			hgw_relay_poll(1);
			rte_delay_us_sleep(10000);
		}
		if (hgw_relay_report(stdout) != 0) {
			fprintf(stderr, "hedgewire: venue: unsent orders the "
				"replicas could not take back\n");
			status |= EXIT_ORDERS;
		}
	}
	if (trade) {
		/* Every order that left, whichever worker sent it: with one
		 * worker, claim or tx-lcore the first copy of each trigger,
		 * otherwise every copy. */
		static struct hgw_hist all;
		uint64_t misses = 0;

		hgw_hist_init_precision(&all, conf.latency_bits);
		if (txl) {
			hgw_hist_merge(&all, &txlcore.out.rx_to_tx);
			misses = txlcore.out.misses;
		}
		for (uint32_t i = 0; i < conf.workers && !txl; i++) {
			hgw_hist_merge(&all, &workers[i]->out.rx_to_tx);
			misses += workers[i]->out.misses;
		}
		if (conf.workers > 1) {
			printf("sent misses %" PRIu64 " (later than [replay] "
			       "miss_us = %u)\n", misses, conf.miss_us);
			hgw_hist_print(&all, stdout, "sent rx_to_tx",
				       1e9 / (double)rte_get_tsc_hz(),
				       conf.dedup == HGW_DEDUP_MODE_CLAIM || txl ?
				       "ns, every worker, the orders it sent" :
				       "ns, every worker, every copy sent");
		}
		if (args.latency != NULL)
			latency_files(&all, args.latency);
		if (args.claims != NULL)
			claims_write(workers, conf.workers, args.claims);
	}
	for (uint32_t i = 0; trade && conf.stage_sample && i < conf.workers; i++) {
		const double ns = 1e9 / (double)rte_get_tsc_hz();
		char name[64];

		printf("worker %u stages, 1 trigger in %u (ns):\n", i,
		       conf.stage_sample);
		hgw_hist_print(&workers[i]->stage_book, stdout, "  book", ns,
			       "arrival to the trigger decoded and applied");
		snprintf(name, sizeof(name), "  replica %u lookup",
			 i % trading.tables.n);
		hgw_hist_print(&workers[i]->lookup, stdout, name, ns,
			       "strategy evaluation, table entry read");
		hgw_hist_print(&workers[i]->stage_risk, stdout, "  risk", ns,
			       "risk checks of a decision");
	}
	for (uint32_t i = 0; i < conf.workers; i++) {
		const struct hgw_worker *w = workers[i];

		if (w->idio_on || w->prefetch)
			printf("worker %u buffers: %" PRIu64 " released, %" PRIu64
			       " lines invalidated, %" PRIu64 " poisoned; %" PRIu64
			       " prefetch bursts, %" PRIu64 " packets prefetched\n",
			       i, w->idio.freed, w->idio.lines, w->idio.poisoned,
			       w->pf.bursts, w->pf.prefetched);
	}
	for (uint32_t i = 0; i < conf.workers; i++) {
		const struct hgw_inject *j = &workers[i]->inject;

		if (j->stall_us != 0)
			printf("worker %u injected stalls %" PRIu64 " of %u us\n",
			       i, j->stalls, j->stall_us);
		if (j->corrupt_seq != 0)
			printf("test: worker %u corrupted decision %" PRIu64
			       " at seq %" PRIu64 "\n", i, j->corrupt_at,
			       j->corrupt_seq);
		if (workers[i]->passive)
			printf("worker %u went passive: the order pool ran dry "
			       "([order] mbufs); it kept accounting, the others "
			       "sent\n", i);
		if (atomic_load_explicit(&workers[i]->shared.dead,
					 memory_order_relaxed))
			printf("worker %u stopped (injected) after %" PRIu64
			       " frames\n", i, workers[i]->rx.mbufs);
	}
	if (conf.rx_mode == HGW_RX_FANOUT) {
		printf("fanout lcore %u: %" PRIu64 " frames", fanout_lcore,
		       fanout.frames);
		for (uint32_t i = 0; i < conf.workers; i++)
			printf(", worker %u drops %" PRIu64, i, fanout.drops[i]);
		printf("\n");
	}
	/* The replicas still racing at the end must agree with each other
	 * (relaxed loads: the workers have been joined). */
	uint32_t left = hgw_ctl_left(), ref = UINT32_MAX;

	if (hgw_ctl_report(stdout) != 0)
		status |= EXIT_DIVERGED;
	for (uint32_t i = 0; i < conf.workers; i++) {
		char what[160];
		const char *d;

		if (atomic_load_explicit(&workers[i]->shared.dead,
					 memory_order_relaxed) ||
		    (left & (1u << i)) || workers[i]->halt != HGW_HALT_NONE)
			continue;
		if (ref == UINT32_MAX) {
			ref = i;
			continue;
		}
		if (why != STOP_END &&
		    feed_applied_differs(&workers[ref]->feed.stats,
					 &workers[i]->feed.stats)) {
			/* a stop (signal, idle) ends each replica at its own
			 * point of the feed: what they share was compared by
			 * digest while running, and once more after the join */
			printf("worker %u agrees with worker %u: yes, by digest "
			       "up to seq %" PRIu64 " (they stopped at different "
			       "points of the feed)\n", i, ref,
			       hgw_ctl_compared_seq());
			continue;
		}
		d = replicas_differ(workers[ref], workers[i],
				    conf.book.max_instruments, what,
				    sizeof(what));
		printf("worker %u agrees with worker %u: %s%s\n", i, ref,
		       d == NULL ? "yes" : "NO: ", d == NULL ? "" : d);
		if (d != NULL)
			status |= EXIT_DIVERGED;
	}
	for (uint32_t i = 0; trade && i < conf.workers; i++) {
		const struct hgw_worker *w = workers[i];
		char name[HGW_MOLD_SESSION_LEN + 1] = "?";

		for (uint32_t k = 0; k < w->feed.nsessions; k++)
			if (w->feed.sessions[k].key == w->halt_key)
				snprintf(name, sizeof(name), "%.10s",
					 w->feed.sessions[k].name);
		if (w->halt != HGW_HALT_NONE) {
			status |= EXIT_HALTED;
			printf("worker %u HALTED on %s (session %s seq %" PRIu64
			       "): missed input, so it kept applying the feed "
			       "and sent nothing from then on; %" PRIu64
			       " triggers, %" PRIu64 " orders held back\n", i,
			       hgw_halt_name(w->halt), name, w->halt_seq,
			       w->halted_triggers, w->halted_orders);
		}
		if (w->lines == 2 || w->rq.on)
			printf("worker %u gaps: %" PRIu64 " frames held, %" PRIu64
			       " taken when filled or given up, %" PRIu64
			       " lost on both lines, %" PRIu64 " hold buffer "
			       "full; recovery: %" PRIu64 " requests, %" PRIu64
			       " messages retransmitted, %" PRIu64 " gaps "
			       "recovered, %" PRIu64 " unanswered\n", i,
			       w->hold.held, w->hold.taken, w->hold.gaps_both,
			       w->hold.full, w->rq.requests,
			       w->feed.stats.retrans_messages, w->rq.recovered,
			       w->rq.failed);
		if (w->warmup_triggers != 0 || w->warmup_left != 0)
			printf("worker %u joined mid-session (baseline): %"
			       PRIu64 " triggers left alone during the warm-up"
			       "%s\n", i, w->warmup_triggers,
			       w->warmup_left != 0 ? ", still warming up" : "");
	}
	for (uint32_t i = 0; i < conf.workers; i++)
		if (workers[i]->out.tx.tx_full != 0)
			status |= EXIT_ORDERS;
	if (txl && txlcore.out.tx.tx_full != 0)
		status |= EXIT_ORDERS;
	for (uint32_t i = 0; i < conf.workers; i++)
		if (workers[i]->out.tx.journal_full != 0)
			status |= EXIT_JOURNAL;
	if (txl && txlcore.out.tx.journal_full != 0)
		status |= EXIT_JOURNAL;
	if (trading.journal != NULL && (hgw_journal_failed(trading.journal) != 0 ||
					trading.journal_errors != 0))
		status |= EXIT_JOURNAL;
	if (hgw_capture_check_end(stdout) != 0)
		status |= EXIT_CAPTURE;
	if (trading.journal != NULL) {
		printf("journal %s: %" PRIu64 " orders written, %" PRIu64
		       " failed, %" PRIu64 " write errors\n",
		       hgw_journal_names(trading.journal),
		       hgw_journal_written(trading.journal),
		       hgw_journal_failed(trading.journal),
		       trading.journal_errors);
		hgw_journal_free(trading.journal);
	}
	if (args.dump_book != NULL) {
		rc = dump_book(workers[0], conf.book.max_instruments,
			       args.dump_book);
		if (rc < 0)
			die("--dump-book %s: %s", args.dump_book, strerror(-rc));
	}
	fflush(stdout);

	/* Stopping and closing the ports flushes what net_pcap wrote. */
	rte_eth_dev_stop(conf.rx_port);
	rte_eth_dev_close(conf.rx_port);
	if (trade && conf.tx_port != conf.rx_port) {
		rte_eth_dev_stop(conf.tx_port);
		rte_eth_dev_close(conf.tx_port);
	}
	hgw_stats_tel_fini();
	for (uint32_t i = 0; i < conf.workers; i++) {
		rte_free(workers[i]->book);
		rte_free(workers[i]->risk);
	}
	for (uint32_t i = 0; i < conf.workers; i++) {
		rte_ring_free(fanout.rings[i]);
		rte_ring_free(txlcore.rings[i]);
	}
	hgw_venue_fini(txlcore.venue);
	hgw_relay_fini();
	hgw_ctl_fini();
	for (uint32_t i = 0; i < conf.workers; i++)
		rte_free(workers[i]);
	if (trading.table != NULL)
		hgw_table_set_free(&trading.tables);
	rte_mempool_free(trading.tx_pool);
	rte_free(trading.dedup);
	rte_mempool_free(pool);
	hgw_pdump_fini();
	rte_eal_cleanup();
	if (status != 0) {
		fprintf(stderr, "hedgewire: exit status %d:%s%s%s%s%s\n", 8 + status,
			status & EXIT_DIVERGED ? " replicas diverged or disagree;" : "",
			status & EXIT_ORDERS ? " orders refused by the port;" : "",
			status & EXIT_JOURNAL ? " orders missing from the journal, or it could not be written;" : "",
			status & EXIT_HALTED ? " a replica missed input and halted;" : "",
			status & EXIT_CAPTURE ? " a capture has a read error;" : "");
		return 8 + status;
	}
	return 0;
}
