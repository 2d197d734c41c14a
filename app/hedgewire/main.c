/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: start-up, the control plane, and the exit summary.
 *
 *   hedgewire [EAL args] -- [-c conf.ini] [--set section.key=value]...
 *             [--dump-book FILE] [--print-config]
 *
 * The main lcore is the control plane: it configures the port, launches
 * one worker per worker lcore, watches for the end of the feed, a stop
 * signal or an idle feed, then stops the workers and prints the summary.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "config.h"
#include "worker.h"

RTE_LOG_REGISTER_DEFAULT(hgw_app_logtype, INFO);

static volatile sig_atomic_t signalled;

static void
on_signal(int sig)
{
	signalled = sig;
}

/* Start-up failures: one line naming the bad input, then exit. */
static __rte_noreturn __rte_format_printf(1, 2) void
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hedgewire: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

struct app_args {
	const char *config;
	const char *dump_book;
	int print_config;
};

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: hedgewire [EAL args] -- [options]\n"
		"  -c, --config FILE     INI configuration (see conf/demo.ini)\n"
		"  --set SEC.KEY=VALUE   override one configuration key (repeatable)\n"
		"  --dump-book FILE      write every instrument's best bid/ask at exit\n"
		"  --print-config        print the effective configuration and exit\n"
		"  -h, --help            this text\n");
}

static void
parse_args(int argc, char **argv, struct app_args *a, struct hgw_config *c)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 's' },
		{ "dump-book", required_argument, NULL, 'd' },
		{ "print-config", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* --set values are applied after the file, in order. */
	const char *sets[64];
	unsigned int nsets = 0;
	char err[512];
	int opt;

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
		case 'p':
			a->print_config = 1;
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

static struct rte_mempool *
port_setup(const struct hgw_config *c)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf pconf;
	struct rte_mempool *pool;
	uint16_t port = c->rx_port;
	uint16_t nrxd = c->rx_desc, ntxd = 0;
	int rc;

	if (!rte_eth_dev_is_valid_port(port))
		die("[rx] port = %u: no such DPDK port (%u available; pass a "
		    "device or --vdev in the EAL args)", port,
		    rte_eth_dev_count_avail());
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		die("port %u: cannot get device info: %s", port, strerror(-rc));
	if (info.max_rx_queues < c->workers)
		die("[run] workers = %u needs %u RX queues on port %u (%s has %u)",
		    c->workers, c->workers, port, info.driver_name,
		    info.max_rx_queues);

	pool = rte_pktmbuf_pool_create("hgw_rx", c->mbufs,
				       RTE_MIN(256u, c->mbufs / 8), 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       rte_eth_dev_socket_id(port));
	if (pool == NULL)
		die("cannot create the RX pool of %u mbufs ([rx] mbufs): %s",
		    c->mbufs, rte_strerror(rte_errno));

	memset(&pconf, 0, sizeof(pconf));
	rc = rte_eth_dev_configure(port, (uint16_t)c->workers, 0, &pconf);
	if (rc != 0)
		die("port %u: configure with %u RX queues failed: %s", port,
		    c->workers, strerror(-rc));
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrxd, &ntxd);
	if (rc != 0)
		die("port %u: descriptor counts refused: %s", port, strerror(-rc));
	for (uint16_t q = 0; q < c->workers; q++) {
		rc = rte_eth_rx_queue_setup(port, q, nrxd,
					    rte_eth_dev_socket_id(port), NULL,
					    pool);
		if (rc != 0)
			die("port %u: RX queue %u setup failed: %s", port, q,
			    strerror(-rc));
	}
	rc = rte_eth_dev_start(port);
	if (rc != 0)
		die("port %u: start failed: %s", port, strerror(-rc));
	/* The feed is multicast: take every group; the decoder filters. */
	rc = rte_eth_allmulticast_enable(port);
	if (rc != 0 && rc != -ENOTSUP)
		RTE_LOG(WARNING, USER1, "port %u: all-multicast: %s\n", port,
			strerror(-rc));
	return pool;
}

static void
workers_init(struct hgw_worker *w, const struct hgw_config *c)
{
	size_t booksz = hgw_book_memsize(&c->book);
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);

	if (booksz == 0)
		die("[book] sizes invalid (instruments %u, orders %u, levels %u)",
		    c->book.max_instruments, c->book.max_orders,
		    c->book.max_levels);
	for (uint32_t i = 0; i < c->workers; i++) {
		void *mem;

		memset(&w[i], 0, sizeof(w[i]));
		w[i].lcore = lcore;
		w[i].port = c->rx_port;
		w[i].queue = (uint16_t)i;
		w[i].burst = c->burst;
		w[i].drain_max = c->rx_desc;
		hgw_feed_init(&w[i].feed, &c->feed);
		mem = rte_zmalloc_socket("hgw_book", booksz, RTE_CACHE_LINE_SIZE,
					 (int)rte_lcore_to_socket_id(lcore));
		if (mem == NULL)
			die("cannot allocate %zu MB for worker %u's book (reduce "
			    "[book] orders/levels/instruments or give EAL more "
			    "memory with -m)", booksz >> 20, i);
		w[i].book = hgw_book_init(mem, &c->book);
		lcore = rte_get_next_lcore(lcore, 1, 0);
	}
}

enum stop_reason { STOP_END, STOP_IDLE, STOP_SIGNAL };

static const char *const stop_names[] = {
	[STOP_END] = "end of session",
	[STOP_IDLE] = "idle feed",
	[STOP_SIGNAL] = "signal",
};

/* Control loop: returns once the workers should stop. */
static enum stop_reason
control_loop(struct hgw_worker *w, const struct hgw_config *c)
{
	uint64_t last_frames = 0;
	uint64_t idle_since = rte_get_timer_cycles();
	const uint64_t hz = rte_get_timer_hz();

	for (;;) {
		uint64_t frames = 0;
		uint32_t ended = 1;

		rte_delay_us_sleep(1000);
		if (signalled)
			return STOP_SIGNAL;
		for (uint32_t i = 0; i < c->workers; i++) {
			frames += atomic_load_explicit(&w[i].shared.frames,
						       memory_order_relaxed);
			ended &= atomic_load_explicit(&w[i].shared.at_end,
						      memory_order_relaxed);
		}
		if (c->stop_at_end && ended)
			return STOP_END;
		uint64_t now = rte_get_timer_cycles();

		if (frames != last_frames) {
			last_frames = frames;
			idle_since = now;
		} else if (c->idle_timeout_ms != 0 &&
			   now - idle_since > hz / 1000 * c->idle_timeout_ms) {
			return STOP_IDLE;
		}
	}
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
}

/* Same stats and same best prices: replicas that saw the same feed must
 * agree; a difference is reported, not hidden. */
static int
replicas_agree(const struct hgw_worker *a, const struct hgw_worker *b,
	       uint32_t instruments)
{
	if (memcmp(&a->feed.stats, &b->feed.stats, sizeof(a->feed.stats)) != 0)
		return 0;
	for (uint32_t l = 0; l < instruments; l++) {
		struct hgw_book_top ta, tb;

		hgw_book_top(a->book, (uint16_t)l, &ta);
		hgw_book_top(b->book, (uint16_t)l, &tb);
		if (memcmp(&ta, &tb, sizeof(ta)) != 0)
			return 0;
	}
	return 1;
}

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

int
main(int argc, char **argv)
{
	static struct hgw_worker workers[HGW_MAX_WORKERS];
	struct app_args args = { 0 };
	struct hgw_config conf;
	struct rte_mempool *pool;
	enum stop_reason why;
	int rc;

	rc = rte_eal_init(argc, argv);
	if (rc < 0)
		die("EAL init failed: %s", rte_strerror(rte_errno));
	hgw_config_defaults(&conf);
	parse_args(argc - rc, argv + rc, &args, &conf);
	if (args.print_config) {
		hgw_config_print(&conf, stdout);
		rte_eal_cleanup();
		return 0;
	}
	if (rte_lcore_count() - 1 < conf.workers)
		die("[run] workers = %u needs %u worker lcores besides the main "
		    "one; EAL has %u (e.g. -l 0-%u)", conf.workers, conf.workers,
		    rte_lcore_count() - 1, conf.workers);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	pool = port_setup(&conf);
	workers_init(workers, &conf);
	RTE_LOG(INFO, USER1, "port %u, %u worker(s), book %zu MB each\n",
		conf.rx_port, conf.workers, hgw_book_memsize(&conf.book) >> 20);

	for (uint32_t i = 0; i < conf.workers; i++)
		if (rte_eal_remote_launch(hgw_worker_main, &workers[i],
					  workers[i].lcore) != 0)
			die("cannot launch worker %u on lcore %u", i,
			    workers[i].lcore);

	why = control_loop(workers, &conf);
	atomic_store_explicit(&hgw_stop, 1, memory_order_relaxed);
	rte_eal_mp_wait_lcore();

	print_summary(&workers[0], why);
	for (uint32_t i = 1; i < conf.workers; i++)
		printf("worker %u agrees with worker 0: %s\n", i,
		       replicas_agree(&workers[0], &workers[i],
				      conf.book.max_instruments) ? "yes" : "NO");
	if (args.dump_book != NULL) {
		rc = dump_book(&workers[0], conf.book.max_instruments,
			       args.dump_book);
		if (rc < 0)
			die("--dump-book %s: %s", args.dump_book, strerror(-rc));
	}
	fflush(stdout);

	rte_eth_dev_stop(conf.rx_port);
	rte_eth_dev_close(conf.rx_port);
	for (uint32_t i = 0; i < conf.workers; i++)
		rte_free(workers[i].book);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return 0;
}
