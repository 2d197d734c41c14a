/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the state of one run, and what the parts of start-up and
 * exit do to it.
 *
 *   main.c     arguments, EAL, launch, the control loop, teardown
 *   ports.c    the RX and order ports, flow-mirror, [recovery] and lines
 *   trading.c  the table replicas, order pool, journal, dedup, the TX and
 *              RX lcores, the workers and what they are given
 *   report.c   the summary at exit, its files and the exit status
 *
 * Every step takes the run (struct hgw_app) and says what it sets in it;
 * none reaches another's state but through it.
 */
#ifndef HGW_APP_APP_H
#define HGW_APP_APP_H

#include <stdint.h>

#include <rte_log.h>
#include <rte_mempool.h>

#include "capture.h"
#include "config.h"
#include "igmp.h"
#include "hgw_cli.h"
#include "hgw_idio.h"
#include "journal.h"
#include "relay.h"
#include "stats_tel.h"
#include "opsock.h"
#include "venue.h"
#include "worker.h"

extern int hgw_app_logtype;
#define RTE_LOGTYPE_HGW_APP hgw_app_logtype

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

struct trading {
	struct hgw_table_set tables;      /* one replica per worker */
	struct hgw_table *table;          /* replica 0 */
	struct rte_mempool *tx_pool;
	struct hgw_journal *journal;
	uint64_t journal_errors;          /* write errors (docs/design.md "Order journal") */
	struct hgw_dedup *dedup;
	/* claim mode on the venue's TCP: the claim and the stream's
	 * reservation, one word (hgw_tcp_dlg.h; NULL otherwise) */
	struct hgw_tcp_dlg *dlg;
};

enum stop_reason { STOP_END, STOP_IDLE, STOP_SIGNAL, STOP_CONTRADICTED };

/* [rx] timestamp = nic: the clock map the workers read, its first
 * (clock, TSC) pair, and the time of the last refit. */
struct app_nic_clock {
	struct hgw_nic_clock_shared shared;
	uint64_t clk0, tsc0, refit_tsc;
};

/* --claims: room for this many triggers per worker (16 bytes each) */
#define CLAIMS_MAX (1u << 22)

struct hgw_app {
	struct app_args args;
	struct hgw_config conf;
	int trade;                      /* [table] file: orders */
	int txl;                        /* trading with [run] dedup = tx-lcore */
	struct rte_mempool *rx_pool;    /* app_ports_setup */
	struct trading trading;         /* app_trading_init (trade) */
	/* the lcores after the main one, in this order (app_lcores_pick):
	 * the RX lcore (fanout), the workers, the TX lcore (tx-lcore) */
	unsigned int fanout_lcore;
	unsigned int worker_lcore[HGW_MAX_WORKERS];
	unsigned int txl_lcore;
	/* each on its lcore's socket; NULL where the mode has none */
	struct hgw_worker *w[HGW_MAX_WORKERS];  /* app_workers_init */
	struct hgw_txlcore *txlcore;    /* app_trading_init (tx-lcore) */
	struct hgw_fanout *fanout;      /* app_fanout_init (fanout) */
	struct hgw_venue *venue;        /* [venue] session (tx-lcore) */
	struct hgw_relay *relay;        /* [venue] downstream (relay.c) */
	struct hgw_ctl *ctl;            /* the control plane (control.c) */
	struct app_nic_clock nic;       /* app_nic_clock_init */
	struct hgw_idio_cpu idio_cpu;   /* app_idio_init */
	enum stop_reason why;           /* the control loop's */
	/* [feed] igmp: the control lcore's reports, on TX queue igmp_queue
	 * of [rx] port (app_ports_setup) */
	struct hgw_igmp igmp;
	uint16_t igmp_queue;
	/* the [rx] port's captures, checked at start and exit (capture.c) */
	struct hgw_captures captures;
	struct hgw_opsock opsock;       /* the operator socket (opsock.c) */
	struct hgw_stats_tel *stats;    /* the stats telemetry (stats_tel.c) */
};

/* ports.c */

/* [recovery] server: says where gaps are re-requested (its keys were
 * checked with the configuration, hgw_config_check). */
void app_recovery_lines_init(struct hgw_app *a);

/* The RX port, and the order port when trading (the same one by default:
 * net_pcap0,rx_pcap=feed,tx_pcap=orders); sets rx_pool. */
void app_ports_setup(struct hgw_app *a);

/* After the summary: stop and close them (net_pcap flushes its files). */
void app_ports_close(const struct hgw_app *a);

/* trading.c */

/* The lcores each role takes (fanout_lcore, worker_lcore, txl_lcore). */
void app_lcores_pick(struct hgw_app *a);

/* The table replicas, the order pool, the journal, the dedup state, and
 * in tx-lcore mode the TX lcore's state (txlcore) and handoff rings. */
void app_trading_init(struct hgw_app *a);

/* fanout: the RX lcore's state (fanout) and one ring per worker. */
void app_fanout_init(struct hgw_app *a);

/* The workers (w), each on its lcore's socket, with its book and, when
 * trading, its risk state and order queue. */
void app_workers_init(struct hgw_app *a);

/* Paced replay: the workers' pacers; returns the miss threshold in TSC
 * cycles, which the workers' senders are given (the TX lcore's is the
 * caller's to set). */
uint64_t app_pace_init(struct hgw_app *a);

/* [rx] timestamp = nic: the first fit of the NIC clock (nic), given to
 * the workers; app_nic_clock_refit refits it, from the control loop. */
void app_nic_clock_init(struct hgw_app *a);
void app_nic_clock_refit(struct hgw_app *a);

/* [buffers]: what this CPU does of each switch (idio_cpu), given to the
 * workers and said once. */
void app_idio_init(struct hgw_app *a);

/* --inject-*: the workers' faults. */
void app_inject_init(struct hgw_app *a);

/* --claims: each worker's record, on its socket. */
void app_claims_init(struct hgw_app *a);

/* report.c */

/* The summary at exit (workers joined), and the files asked for
 * (--latency, --claims). Returns the exit status bits. */
int app_report(struct hgw_app *a);

/* --dump-book: every instrument's best bid/ask of worker 0. */
void app_dump_book(const struct hgw_app *a);

/* The exit status for these bits, said on stderr when not 0. */
int app_exit_status(int status);

#endif /* HGW_APP_APP_H */
