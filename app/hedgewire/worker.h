/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: a worker lcore and the words it shares with the control plane.
 */
#ifndef HGW_APP_WORKER_H
#define HGW_APP_WORKER_H

#include <stdatomic.h>
#include <stdint.h>

#include <rte_common.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "config.h"
#include "journal.h"
#include "hgw_book.h"
#include "hgw_dedup.h"
#include "hgw_feed.h"
#include "hgw_latency.h"
#include "hgw_order.h"
#include "hgw_risk.h"
#include "hgw_strategy.h"
#include "hgw_table.h"

/* Why a frame was not offered to the decoder (worker-level, before it). */
struct hgw_worker_rx_stats {
	uint64_t bursts;        /* rx_burst calls that returned packets */
	uint64_t mbufs;         /* mbufs received */
	uint64_t multiseg;      /* chained mbufs dropped (feed frames fit one) */
	uint64_t book_changes;  /* messages that changed some instrument's book */
};

/* Orders leaving one worker. */
struct hgw_worker_tx_stats {
	uint64_t orders;        /* handed to tx_burst and accepted by it */
	uint64_t tx_full;       /* refused by tx_burst (dropped, counted) */
	uint64_t pool_empty;    /* no mbuf for an order that passed risk */
	uint64_t journal_full;  /* sent but not journalled (ring full) */
};

/* Orders built before a tx_burst is forced. */
#define HGW_WORKER_TXQ 64

/* Most ITCH messages one frame can carry: a 9000-byte jumbo frame of
 * 14-byte blocks (2-byte length + the shortest message, 12 bytes). */
#define HGW_FRAME_MAX_MSGS 640
/* Messages decoded from a burst before they are applied to the book. */
#define HGW_WORKER_BATCH 2048

/* fanout mode: one RX lcore receives the feed and hands every frame to
 * every worker (one extra mbuf reference per worker, one SP/SC ring per
 * worker): zero-copy duplication in software. */
struct hgw_fanout {
	uint16_t port, queue, burst;
	uint32_t nrings;
	uint32_t drain_max;
	struct rte_ring *rings[HGW_MAX_WORKERS];
	uint64_t frames;                      /* received */
	uint64_t drops[HGW_MAX_WORKERS];      /* a worker's ring was full */
	/* 1 once the RX lcore has stopped and drained the port into the
	 * rings: release, so a worker that reads it with acquire and then
	 * finds its ring empty has seen every frame enqueued for it. */
	_Atomic uint32_t done;
};

/* RX lcore entry point for fanout mode (arg: struct hgw_fanout). */
int hgw_fanout_main(void *arg);

/* One worker: everything it writes on the fast path lives here, owned by
 * its lcore alone. The control plane reads it only after the worker has
 * returned (rte_eal_wait_lcore joins, which orders those reads after the
 * worker's last writes), except for the atomics in the shared block. */
struct hgw_worker {
	/* Written by the worker, read live by the control plane. Alone on
	 * their cache line so the poll loop does not share a line with the
	 * counters below. */
	struct {
		/* Frames seen so far; relaxed: a progress hint for the idle
		 * timeout, it publishes no other data. */
		_Atomic uint64_t frames;
		/* 1 once every session this worker tracks has ended;
		 * relaxed: the control plane only uses it to decide to stop,
		 * and reads results after the join. */
		_Atomic uint32_t at_end;
	} shared __rte_cache_aligned;

	unsigned int lcore;
	uint16_t port;
	uint16_t queue;
	uint16_t burst;
	uint32_t drain_max;     /* frames drained at most after stop */
	/* fanout mode: frames come from this ring, not from the port */
	struct rte_ring *rx_ring;
	const struct hgw_fanout *fanout;
	struct hgw_feed feed __rte_cache_aligned;
	struct hgw_book *book;
	struct hgw_worker_rx_stats rx;

	/* Trading (all NULL/0 when no [table] file is configured). */
	const struct hgw_table *table;
	struct hgw_risk *risk;
	struct hgw_strategy_stats strategy;
	struct hgw_worker_tx_stats tx;
	struct hgw_udp_tx udp;          /* order transport template */
	uint8_t capacity;
	uint16_t tx_port, tx_queue;
	struct rte_mempool *tx_pool;
	struct rte_ring *journal;       /* NULL: no journal */
	/* claim dedup shared by all workers (NULL: every copy is sent) */
	struct hgw_dedup *dedup;
	struct hgw_dedup_stats races;
	uint32_t ntx;
	struct rte_mbuf *txq[HGW_WORKER_TXQ];
	struct hgw_journal_rec jrec[HGW_WORKER_TXQ];

	/* Messages of the current burst, pointing into its mbufs, with
	 * their sequence number and session (the trigger's identity). */
	uint32_t nbatch;
	const uint8_t *batch[HGW_WORKER_BATCH];
	uint64_t batch_seq[HGW_WORKER_BATCH];
	uint16_t batch_session[HGW_WORKER_BATCH];
	uint8_t batch_last[HGW_WORKER_BATCH];   /* last message of its frame */

	/* TSC when the current burst's rx_burst returned (its arrival), and
	 * arrival -> handed to tx_burst of every order, in TSC cycles. */
	uint64_t rx_tsc;
	struct hgw_hist rx_to_tx;
} __rte_cache_aligned;

/* Set by the control plane to stop every worker. Relaxed on both sides:
 * it orders nothing, since the worker's results are read after the join. */
extern _Atomic uint32_t hgw_stop;

/* lcore entry point: arg is a struct hgw_worker. Polls until hgw_stop,
 * then drains what the queue still holds (at most drain_max frames, so a
 * live feed cannot keep it running) and returns 0. */
int hgw_worker_main(void *arg);

#endif /* HGW_APP_WORKER_H */
