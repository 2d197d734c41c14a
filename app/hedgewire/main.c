/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: start-up, the control loop and teardown (app.h: the parts
 * of the run they call on).
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
#include <getopt.h>
#include <limits.h>
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
#include <rte_malloc.h>

#include "app.h"
#include "capture.h"
#include "check.h"
#include "control.h"
#include "opsock.h"
#include "relay.h"
#include "pdump.h"
#include "stats_tel.h"

RTE_LOG_REGISTER(hgw_app_logtype, hgw.app, INFO);

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

/* A test or benchmark option in a build without the hooks: one line. */
static void
need_hooks(const char *opt)
{
	if (!HGW_TEST_HOOKS)
		die("%s: this build has no test hooks (meson setup "
		    "-Dtest_hooks=enabled, or with the tests)", opt);
}

/* "W,A[,B]": n positive numbers (W may be 0). */
static void
parse_inject(const char *s, const char *what, int n, struct inject_arg *ia)
{
	const char *arg = s;
	uint64_t v[3];
	int i;

	for (i = 0; i < n; i++) {
		if (hgw_parse_dec(&s, i > 0 ? 1 : 0, UINT32_MAX, &v[i]) != 0 ||
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
			need_hooks("--claims");
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
			need_hooks("--inject-stall");
			parse_inject(optarg, "stall", 3, &a->inject[0]);
			break;
		case 'X':
			need_hooks("--inject-stop");
			parse_inject(optarg, "stop", 2, &a->inject[1]);
			break;
		case 'C':
			need_hooks("--inject-corrupt");
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
	if (hgw_config_secrets(c, err, sizeof(err)) < 0 ||
	    hgw_config_check(c, err, sizeof(err)) < 0)
		die("%s", err);
}

/* Control loop, every millisecond: SIGHUP reopens the journal and the
 * events log; the journal's files are looked after, and a write error
 * handled as [order] journal_error says: stop (the kill switch, as for a
 * lost venue session) or alarm (said, and in the exit status). */
static void
journal_tick(const struct hgw_config *c, struct trading *t,
	     struct hgw_ctl *ctl)
{
	char err[PATH_MAX + 256];

	if (hangup) {
		hangup = 0;
		if (t->journal != NULL)
			hgw_journal_reopen(t->journal);
		hgw_ctl_reopen_log(ctl);
	}
	if (t->journal == NULL ||
	    hgw_journal_poll(t->journal, err, sizeof(err)) == 0)
		return;
	t->journal_errors++;
	if (c->journal_error == HGW_JOURNAL_ERROR_STOP) {
		fprintf(stderr, "hedgewire: %s: trading stops "
			"([order] journal_error = stop)\n", err);
		hgw_ctl_kill(ctl, "the order journal cannot be written");
	} else {
		fprintf(stderr, "hedgewire: %s ([order] journal_error = "
			"alarm)\n", err);
	}
}

/* Control loop: returns once the workers should stop. */
static enum stop_reason
control_loop(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *w = a->w;
	uint64_t last_frames = 0;
	uint64_t idle_since = rte_get_timer_cycles();
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t stats_every = hz / 1000 * c->stats_interval_ms;
	uint64_t stats_next = idle_since + stats_every;
	uint64_t contradicted = 0;

	for (;;) {
		uint64_t frames = 0, queries = 0;
		uint32_t ended = 1;

		rte_delay_us_sleep(1000);
		hgw_opsock_poll(&a->opsock); /* the operator's kill switch first */
		app_nic_clock_refit(a);
		hgw_ctl_poll(a->ctl);
		if (a->venue != NULL)
			hgw_venue_ctl_poll(a->venue);
		hgw_relay_poll(a->relay, 0);
		journal_tick(c, &a->trading, a->ctl);
		if (signalled)
			return STOP_SIGNAL;
		if (hgw_ctl_contradictions(a->ctl, NULL) != 0) {
			/* the kill switch is on and the open orders are
			 * being cancelled: the run stops, as on a signal,
			 * once the orders the kill took off the TX lcore's
			 * queues are handed back (1 s at most) */
			if (contradicted == 0)
				contradicted = rte_get_timer_cycles();
			if (hgw_ctl_recall_settled(a->ctl) ||
			    rte_get_timer_cycles() - contradicted > hz)
				return STOP_CONTRADICTED;
		}
		for (uint32_t i = 0; i < c->workers; i++) {
			frames += atomic_load_explicit(&w[i]->shared.frames,
						       memory_order_relaxed);
			queries = RTE_MAX(queries, (uint64_t)
				atomic_load_explicit(&w[i]->shared.igmp_queries,
						     memory_order_relaxed));
			ended &= atomic_load_explicit(&w[i]->shared.at_end,
						      memory_order_relaxed) |
				 atomic_load_explicit(&w[i]->shared.dead,
						      memory_order_relaxed);
		}
		if (c->stop_at_end && ended)
			return STOP_END;
		uint64_t now = rte_get_timer_cycles();

		hgw_igmp_poll(&a->igmp, queries, now);
		if (stats_every != 0 && now >= stats_next) {
			hgw_stats_tel_record(a->stats, 0);
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
	/* the run: what every step sets up and the next one reads */
	struct hgw_app app = { .opsock = { .fd = -1 } };
	struct hgw_config *conf = &app.conf;
	const struct app_args *args = &app.args;
	struct trading *trading = &app.trading;
	uint64_t miss;
	int rc, status = 0;

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
	hgw_config_defaults(conf);
	parse_args(argc - rc, argv + rc, &app.args, conf);
	if (args->print_config) {
		hgw_config_print(conf, stdout);
		rte_eal_cleanup();
		return 0;
	}
	if (args->check) {
		status = hgw_check_run(conf, args->check_stall_ms);
		rte_eal_cleanup();
		return status;
	}
	{
		char err[512];

		if (hgw_stats_tel_share(conf->telemetry_group, err,
					sizeof(err)) < 0)
			die("%s", err);
	}
	printf("hedgewire %s\n", HGW_VERSION);
	app.trade = conf->table_file[0] != '\0';
	/* the TX lcore: tx-lcore mode, or the venue's connection in claim
	 * mode on hedgewire's TCP */
	app.txl = app.trade && (conf->dedup == HGW_DEDUP_MODE_TXLCORE ||
				hgw_config_dlg(conf));
	unsigned int need = conf->workers + (conf->rx_mode == HGW_RX_FANOUT) +
			    (unsigned int)app.txl;

	if (rte_lcore_count() - 1 < need)
		die("[run] workers = %u%s%s needs %u lcores besides the main "
		    "one; EAL has %u (e.g. -l 0-%u)", conf->workers,
		    conf->rx_mode == HGW_RX_FANOUT ? " with [rx] mode = fanout" : "",
		    !app.txl ? "" : conf->dedup == HGW_DEDUP_MODE_TXLCORE ?
		    " with [run] dedup = tx-lcore" :
		    " with [run] dedup = claim on [venue] stack = dpdk",
		    need, rte_lcore_count() - 1, need);
	for (unsigned int i = 0; i < 3; i++)
		if (args->inject[i].worker != UINT32_MAX &&
		    args->inject[i].worker >= conf->workers)
			die("--inject-%s: no worker %u ([run] workers = %u)",
			    i == 0 ? "stall" : i == 1 ? "stop" : "corrupt",
			    args->inject[i].worker, conf->workers);


	/* every port named must exist before anything asks about it */
	if (!rte_eth_dev_is_valid_port(conf->rx_port))
		die("[rx] port = %u: no such DPDK port (%u available; pass a "
		    "device or --vdev in the EAL args, and check that it "
		    "started: a net_pcap rx_pcap that cannot be read has no "
		    "port)", conf->rx_port, rte_eth_dev_count_avail());
	if (app.trade && !rte_eth_dev_is_valid_port(conf->tx_port))
		die("[order] port = %u: no such DPDK port (%u available)",
		    conf->tx_port, rte_eth_dev_count_avail());
	app_lcores_pick(&app);
	if (app.trade)
		app_trading_init(&app);
	app.venue = hgw_venue_init(conf, app.trading.dlg);
	if (app.txlcore != NULL)
		app.txlcore->venue = app.venue;
	app_recovery_lines_init(&app);
	app_ports_setup(&app);
	hgw_igmp_init(&app.igmp, conf, app.igmp_queue, app.rx_pool);
	hgw_pdump_clock(app.rx_pool, conf->rx_port);
	hgw_capture_check_start(&app.captures, conf->rx_port);
	if (conf->rx_mode == HGW_RX_FANOUT)
		app_fanout_init(&app);
	app_workers_init(&app);
	/* claim mode on the venue's TCP: UserRefNums the venue saw from an
	 * earlier run today are claimed and handed back, never sent */
	for (uint32_t i = 0; app.venue != NULL && app.trading.dlg != NULL &&
	     i < conf->workers; i++) {
		app.w[i]->dlg_floor = (uint32_t)RTE_MIN(app.venue->floor0,
							(uint64_t)UINT32_MAX);
		/* the state file's floor, raised by the winner before its
		 * send (a crash skips a number, never repeats one) */
		app.w[i]->dlg_tx.floor = &app.venue->state->last_user_ref;
	}
	miss = app_pace_init(&app);
	if (app.txlcore != NULL)
		app.txlcore->out.miss_tsc = miss;
	app_nic_clock_init(&app);
	app_idio_init(&app);
	app_inject_init(&app);
	if (args->claims != NULL)
		app_claims_init(&app);
	app.ctl = hgw_ctl_init(app.w, conf->workers, conf,
			       app.trade ? &trading->tables : NULL, app.txlcore);
	if (app.venue != NULL)
		hgw_venue_ctl_bind(&app.venue->ctl, app.ctl);
	{
		char err[PATH_MAX + 128];

		if (hgw_opsock_init(&app.opsock, app.ctl,
				    conf->telemetry_group, err, sizeof(err)) < 0)
			die("%s", err);
	}
	app.stats = hgw_stats_tel_init(app.w, conf->workers, app.txlcore,
				       conf->latency_bits);
	if (app.trade)
		app.relay = hgw_relay_init(conf, app.ctl);
	RTE_LOG(INFO, HGW_APP, "port %u, %u worker(s), book %zu MB each%s\n",
		conf->rx_port, conf->workers, hgw_book_memsize(&conf->book) >> 20,
		app.trade ? ", trading" : ", feed only");

	if (app.fanout != NULL &&
	    rte_eal_remote_launch(hgw_fanout_main, app.fanout,
				  app.fanout_lcore) != 0)
		die("cannot launch the RX lcore %u", app.fanout_lcore);
	if (app.txlcore != NULL &&
	    rte_eal_remote_launch(hgw_txlcore_main, app.txlcore,
				  app.txl_lcore) != 0)
		die("cannot launch the TX lcore %u", app.txl_lcore);
	if (app.venue != NULL)
		hgw_venue_wait_up(app.venue, conf->venue_dead_ms);
	hgw_relay_wait_keyed(app.relay, conf->venue_dead_ms);
	for (uint32_t i = 0; i < conf->workers; i++)
		if (rte_eal_remote_launch(hgw_worker_main, app.w[i],
					  app.w[i]->lcore) != 0)
			die("cannot launch worker %u on lcore %u", i,
			    app.w[i]->lcore);

	app.why = control_loop(&app);
	hgw_igmp_leave(&app.igmp);
	hgw_opsock_fini(&app.opsock);
	hgw_ctl_close(app.ctl);
	/* release: no event is posted after the close; the workers' acquire
	 * fence before their last look at the events (wk_stop_events) */
	atomic_store_explicit(&hgw_stop, 1, memory_order_release);
	if (app.venue != NULL && app.txlcore != NULL) {
		/* the TX lcore's stop reads the venue's last answers (to the
		 * cancels a kill owes among them) only while the answer ring
		 * has room: they go on to the journal (no event goes after
		 * the close) until it is done */
		hgw_venue_ctl_close(&app.venue->ctl);
		while (rte_eal_get_lcore_state(app.txl_lcore) == RUNNING) {
			hgw_venue_ctl_poll(app.venue);
			rte_delay_us_sleep(1000);
		}
	}
	rte_eal_mp_wait_lcore();
	hgw_stats_tel_joined(app.stats);
	hgw_ctl_poll(app.ctl);	/* the last checkpoint every replica reached */
	if (conf->stats_interval_ms != 0)
		hgw_stats_tel_record(app.stats, 1); /* the summary's totals */

	/* Workers are done: every order they sent is in the journal's
	 * files, which are cut after their last record. */
	if (trading->journal != NULL) {
		char jerr[PATH_MAX + 256];

		if (hgw_journal_finish(trading->journal, jerr, sizeof(jerr))) {
			fprintf(stderr, "hedgewire: %s\n", jerr);
			trading->journal_errors++;
		}
	}

	status = app_report(&app);
	hgw_igmp_report(&app.igmp, stdout);
	if (trading->journal != NULL)
		hgw_journal_free(trading->journal);
	if (args->dump_book != NULL)
		app_dump_book(&app);
	fflush(stdout);

	app_ports_close(&app);
	hgw_stats_tel_fini(app.stats);
	for (uint32_t i = 0; i < conf->workers; i++) {
		rte_free(app.w[i]->book);
		rte_free(app.w[i]->risk);
	}
	for (uint32_t i = 0; i < conf->workers; i++) {
		if (app.fanout != NULL)
			rte_ring_free(app.fanout->rings[i]);
		if (app.txlcore != NULL)
			rte_ring_free(app.txlcore->rings[i]);
	}
	hgw_venue_fini(app.venue);
	hgw_relay_fini(app.relay);
	hgw_ctl_fini(app.ctl);
	for (uint32_t i = 0; i < conf->workers; i++)
		rte_free(app.w[i]);
	rte_free(app.txlcore);
	rte_free(app.fanout);
	if (trading->table != NULL)
		hgw_table_set_free(&trading->tables);
	rte_mempool_free(trading->tx_pool);
	rte_free(trading->dedup);
	rte_mempool_free(app.rx_pool);
	hgw_pdump_fini();
	rte_eal_cleanup();
	return app_exit_status(status);
}
