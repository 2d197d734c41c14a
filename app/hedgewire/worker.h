/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: a worker lcore and the words it shares with the control plane.
 */
#ifndef HGW_APP_WORKER_H
#define HGW_APP_WORKER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_seqcount.h>

#include "config.h"
#include "journal.h"
#include "hgw_nicclock.h"
#include "hgw_pace.h"
#include "hgw_book.h"
#include "hgw_dedup.h"
#include "hgw_tcp_dlg.h"
#include "hgw_event.h"
#include "hgw_feed.h"
#include "hgw_idio.h"
#include "hgw_latency.h"
#include "hgw_mold.h"
#include "hgw_order.h"
#include "hgw_risk.h"
#include "hgw_strategy.h"
#include "hgw_table.h"

/* The dedup keeps a slot per session a worker's feed decoder can track: a
 * faithful replica never needs more. */
_Static_assert(HGW_FEED_MAX_SESSIONS == HGW_DEDUP_MAX_SESSIONS,
	       "one dedup slot per feed session");

/* Why a frame was not offered to the decoder (worker-level, before it). */
struct hgw_worker_rx_stats {
	uint64_t bursts;        /* rx_burst calls that returned packets */
	uint64_t mbufs;         /* mbufs received */
	uint64_t multiseg;      /* chained mbufs dropped (feed frames fit one) */
	uint64_t book_changes;  /* messages that changed some instrument's book */
	uint64_t first_tsc;     /* first and last rx_burst that returned frames */
	uint64_t last_tsc;
};

/* Orders leaving one worker. */
struct hgw_worker_tx_stats {
	uint64_t orders;        /* handed to tx_burst and accepted by it */
	uint64_t tx_full;       /* refused by tx_burst (dropped, counted) */
	uint64_t pool_empty;    /* no mbuf: the worker went passive */
	uint64_t pool_waits;    /* tx-lcore: spins waiting for an order mbuf */
	uint64_t journal_full;  /* sent but not journalled (file full) */
};

/* Why a worker halted: its book may have missed input. */
enum hgw_halt {
	HGW_HALT_NONE = 0,
	HGW_HALT_GAP,           /* sequence numbers skipped (incl. a late join) */
	HGW_HALT_CHECKSUM,      /* a frame failed its IPv4 or UDP checksum */
	HGW_HALT_BOTH_LINES,    /* A/B: both lines lost the same messages */
	HGW_HALT_NO_ANSWER,     /* recovery: the server did not fill the gap */
	HGW_HALT_HOLD_FULL,     /* frames held for a gap filled the buffer */
};

/* What halted a worker (enum hgw_halt), for people. */
const char *hgw_halt_name(uint32_t why);

/* Frames a worker can hold while a gap waits to be filled. */
#define HGW_HOLD_MAX 1024

/* A gap waiting to be filled: the frames that came after it, in sequence
 * order, by the other line (A/B) or by a retransmission (recovery). */
struct hgw_hold {
	uint32_t n, max;
	uint64_t since;                 /* TSC when the first was held */
	uint64_t wait_tsc;              /* A/B without recovery: give up after */
	struct rte_mbuf *m[HGW_HOLD_MAX];
	uint64_t seq[HGW_HOLD_MAX];
	uint16_t left[HGW_HOLD_MAX];
	uint16_t session[HGW_HOLD_MAX];
	uint8_t line[HGW_HOLD_MAX];
	/* held frames taken (and duplicates not held): freed after the
	 * batch that points into them; room for a full buffer and a burst */
	uint32_t nfree;
	struct rte_mbuf *free[HGW_HOLD_MAX + 512];
	/* per line, one past the last sequence number it delivered, and
	 * the last time a poll of it found nothing */
	uint64_t line_end[2];
	uint64_t line_empty[2];
	uint64_t held, taken, gaps_both, full;  /* counters */
};

/* MoldUDP64 recovery by re-request ([recovery] server). */
struct hgw_recovery {
	int on;
	struct hgw_mold_addr addr;      /* us -> the re-request server */
	uint64_t timeout_tsc, cur_timeout;
	uint32_t retries, tries, max_messages;
	int active;                     /* a request is outstanding */
	uint64_t deadline, asked_seq, asked_n;
	uint64_t requests, no_mbuf, tx_full, recovered, failed;
};

/* in.announce: the bit that takes a worker out of the race (the rest
 * counts events). It needs no queue, so it reaches a worker whose event
 * queue is full, and is never held up behind an event not yet due. */
#define HGW_ANNOUNCE_LEAVE (UINT32_C(1) << 31)

/* Decisions a worker remembers for an UNSENT event (a recalled order). */
#define HGW_PASSED_MAX 4096

/* Events a worker holds off its queue, and records the position of. */
#define HGW_EV_LOCAL 64
#define HGW_EV_MAX 4096

/* Orders one tx_burst takes: a worker sends each order at once (one),
 * the TX lcore drains its rings in bursts of up to this many. */
#define HGW_WORKER_TXQ 64

/* Where orders go, of two kinds. To a port: orders waiting for one
 * tx_burst, and what is done with them there: the journal copy and the
 * latency record. A worker owns one (dedup claim, none, downstream), and
 * in tx-lcore mode the TX lcore owns the only one that reaches a port. To
 * a ring (ring set): a worker's in tx-lcore mode, which hands each order
 * to the TX lcore. Single owner: plain fields. */
struct hgw_sender {
	uint16_t port, queue;
	uint32_t n;
	/* the ring kind: the worker's handoff ring to the TX lcore (NULL:
	 * a port), and how often it was full and waited out */
	struct rte_ring *ring;
	uint64_t ring_waits;
	uint32_t stuck;                 /* a burst failed: one try each */
	struct hgw_journal_tx *journal; /* NULL: no journal */
	/* orders the port still refused after HGW_TX_RETRY_US (the
	 * owner's shared word, read by the control plane, which sets the
	 * kill switch: every replica counted them in its position) */
	_Atomic uint64_t *refused;
	struct hgw_worker_tx_stats tx;
	/* arrival (rx_burst return, or the paced release deadline) ->
	 * handed to tx_burst, TSC cycles; later than miss_tsc: a miss
	 * (still in the histogram) */
	struct hgw_hist *rx_to_tx;      /* cold, owner's storage */
	uint64_t miss_tsc;
	uint64_t misses;
	uint64_t rx_tsc[HGW_WORKER_TXQ];
	struct rte_mbuf *m[HGW_WORKER_TXQ];
};

/* A worker's counters and latency as of one moment, for live readers
 * (telemetry). Asked for through a struct hgw_snap_ctl: the reader bumps
 * req, the worker copies its state here between two bursts and publishes
 * by storing done = req (release); the reader sees done == req (acquire)
 * and then reads the copy. No reader ever touches the worker's own
 * counters while it runs. */
struct hgw_snapshot {
	struct hgw_feed_stats feed;
	struct hgw_worker_tx_stats tx;
	uint64_t misses;
	uint64_t won, lost;             /* claim races; tx-lcore: filter's */
	uint64_t triggers;              /* evaluated (workers; 0 for the TX lcore) */
	uint64_t rejects;               /* risk rejects, every reason */
	uint64_t tsc;                   /* when it was taken */
	struct hgw_hist rx_to_tx;       /* keep last (copied in two parts) */
};

struct hgw_snap_ctl {
	/* Requests so far; written by readers (under their own lock) with
	 * release, so that the last reader's copy is done before the owner
	 * rewrites the snapshot (the owner loads it relaxed and fences with
	 * acquire when it changed). */
	_Atomic uint32_t req;
	/* Last request served; release by the owner after the copy, acquire
	 * by the reader before reading it. */
	_Atomic uint32_t done;
	uint32_t seen;                  /* owner only: last req served */
};

/* tx-lcore mode: one order handed from a worker to the TX lcore. */
struct hgw_handoff {
	struct rte_mbuf *m;
	uint64_t seq;                   /* the trigger: (key, seq) */
	uint64_t rx_tsc;                /* its frame's arrival */
	uint64_t key;                   /* hgw_feed_session.key */
	/* the worker sent it itself (claim mode on the venue's TCP): when,
	 * and enum hgw_tcp_dlg_res or HGW_DLG_BY_NUMBER (0: the TX lcore
	 * sends it) */
	uint64_t tx_tsc;
	uint64_t sent;
};
/* ... a UserRefNum at or below the day's floor, or not above the last:
 * decided by its trigger, never sent, handed back */
#define HGW_DLG_BY_NUMBER 4
_Static_assert(sizeof(struct hgw_handoff) == 48, "handoff element size");

/* tx-lcore mode: the TX lcore. Each worker hands its orders over its own
 * SP/SC ring (FIFO), and the TX lcore sends the first copy of each
 * trigger (hgw_dedup_filter_first) on the one order queue. */
struct hgw_txlcore {
	/* The kill switch's recall (docs/design.md "Control events"):
	 * recall is bumped by the control plane when the kill switch goes
	 * on (release); loaded relaxed once per loop by the TX lcore,
	 * which then (acquire fence first) recalls, instead of sending,
	 * every first copy it takes off the rings, until recall_end
	 * equals recall_seen. The control plane stores recall_end
	 * (release) once some worker has handed over every order decided
	 * before the kill's position (shared.handed); the TX lcore loads
	 * it with acquire, drains the rings once more, and stores
	 * recall_ended (release) once every order it recalled is on the
	 * recalled ring. So the orders that left are always the earliest
	 * of those decided before the kill: every one of them was decided
	 * on the position of orders that left too. */
	_Atomic uint32_t recall;
	_Atomic uint32_t recall_end;
	_Atomic uint32_t recall_ended;
	uint32_t recall_seen;
	int recall_on;
	/* orders the port refused for good (out.refused points here);
	 * relaxed, as the workers' shared.refused */
	_Atomic uint64_t refused;
	/* recalled triggers (struct hgw_recalled), TX lcore -> control */
	struct rte_ring *recalled;
	uint64_t recalled_n, recalled_lost;
	/* orders handed back as unsent (recalled, or given back by the
	 * venue session) that never reached the recalled ring: every
	 * replica still counts them, so the position is uncertain and the
	 * control plane keeps the kill switch on (relaxed: a count it
	 * polls) */
	_Atomic uint64_t unsent_lost;
	uint32_t nrings;
	struct rte_ring *rings[HGW_MAX_WORKERS];
	struct hgw_dedup_filter filter;
	uint64_t races_lost;            /* late copies freed */
	/* Workers that have returned. Each adds 1 with release once its
	 * last order is on its ring; the TX lcore loads it with acquire, so
	 * when it reads nrings and then finds the rings empty, every order
	 * has been seen. */
	_Atomic uint32_t workers_done;
	/* [venue]: orders go over this session instead of the port
	 * (venue.h; NULL: to the port) */
	struct hgw_venue *venue;
	/* claim mode on the venue's TCP: the workers send, and hand each
	 * claim they won here for the session's account (NULL: tx-lcore
	 * mode); each worker's shared.dlg_pending */
	struct hgw_tcp_dlg *dlg;
	_Atomic uint32_t *dlg_pending[HGW_MAX_WORKERS];
	struct hgw_snap_ctl snap __rte_cache_aligned;
	struct hgw_sender out;
	/* cold, allocated at the precision in use (hgw_lcore_hists) */
	struct hgw_snapshot *snapshot;
};

/* One order the kill switch recalled from a handoff ring. */
struct hgw_recalled {
	uint64_t key, seq;
};

/* TX lcore entry point for tx-lcore mode (arg: struct hgw_txlcore). */
int hgw_txlcore_main(void *arg);

/* TX lcore, claim mode on the venue's TCP: 1 once every order a worker
 * claimed so far is off the handoff rings (taken, or recalled during a
 * kill's recall); 0 while a worker is between its claim and its
 * hand-over. */
int hgw_txlcore_dlg_taken(struct hgw_txlcore *t);

/* Test and benchmark hooks: compiled in only with HGW_TEST_HOOKS (meson
 * -Dtest_hooks; on with the tests), as DPDK's RTE_LIBRTE_*_DEBUG. A
 * production build has neither their state nor their checks. */
#ifndef HGW_TEST_HOOKS
#define HGW_TEST_HOOKS 0
#endif

/* Test-only fault injection (command line, off by default): a worker
 * freezes for stall_us at random messages (uniform gaps of 1 to
 * 2 x stall_every messages), or stops for good after stop_after frames
 * (at a frame boundary: its orders so far have left), or changes the
 * quantity of its corrupt_at-th decision (a replica that decides
 * differently, for the divergence check). */
struct hgw_inject {
	uint64_t corrupt_at;            /* decision number; 0 = never */
	uint64_t corrupt_seq;           /* its trigger, once done */
	uint32_t stall_us;
	uint32_t stall_every;
	uint32_t countdown;             /* messages to the next stall; 0 off */
	uint64_t rng;
	uint64_t stalls;                /* stalls done */
	uint64_t stop_after;            /* frames; 0 = never */
};

/* --claims (benchmarks): every trigger's order a worker reached, when
 * (from the frame's arrival) and whether it won, in a preallocated
 * array; what does not fit is counted. */
struct hgw_claim {
	uint64_t seq, cycles;
	uint8_t won;
};

struct hgw_hooks {
	struct hgw_inject inject;
	struct hgw_claim *claims;       /* NULL: not recording */
	uint32_t nclaims, claims_max;
	uint64_t claims_dropped;
};

/* Most ITCH messages one frame can carry: a 9000-byte jumbo frame of
 * 14-byte blocks (2-byte length + the shortest message, 12 bytes). */
#define HGW_FRAME_MAX_MSGS 640
/* Messages decoded from a burst before they are applied to the book. */
#define HGW_WORKER_BATCH 2048

/* One message of a burst: where it is in its frame's mbuf, its sequence
 * number, and its session's index into feed.sessions (the trigger is
 * that session's key and the sequence number). One record, so a message
 * costs the worker one place in memory, not one in each of three
 * arrays; the book reads the pointers through the cursor's stride. */
struct hgw_batch_msg {
	const uint8_t *msg;
	uint64_t seq;
	uint16_t session;
};

/* fanout mode: one RX lcore receives the feed and hands every frame to
 * every worker (one extra mbuf reference per worker, one SP/SC ring per
 * worker): zero-copy duplication in software. */
#define HGW_FANOUT_DROP_RUNS 256

struct hgw_fanout {
	uint16_t port, queue, burst;
	uint32_t nrings;
	uint32_t drain_max;
	struct rte_ring *rings[HGW_MAX_WORKERS];
	uint64_t frames;                      /* received */
	uint64_t drops[HGW_MAX_WORKERS];      /* a worker's ring was full */
	/* Which frames each worker lost: runs of the received frames'
	 * index (0 = the first), the first HGW_FANOUT_DROP_RUNS runs; the
	 * summary prints them, so that what a worker's decoder should
	 * have seen can be told from the capture. Written on a drop only. */
	struct { uint64_t first, n; } drop_run[HGW_MAX_WORKERS][HGW_FANOUT_DROP_RUNS];
	uint32_t ndrop_runs[HGW_MAX_WORKERS];
	/* 1 once the RX lcore has stopped and drained the port into the
	 * rings: release, so a worker that reads it with acquire and then
	 * finds its ring empty has seen every frame enqueued for it. */
	_Atomic uint32_t done;
};

/* RX lcore entry point for fanout mode (arg: struct hgw_fanout). */
int hgw_fanout_main(void *arg);

/* One worker: everything it writes on the fast path lives here, owned by
 * its lcore alone, allocated on its lcore's socket. The control plane
 * reads it only after the worker has returned (rte_eal_wait_lcore joins,
 * which orders those reads after the worker's last writes), except for
 * the atomics in the shared blocks and the snapshot and checkpoints.
 *
 * Hot first: what the poll loop touches per burst and per message is the
 * front of the struct (under HGW_WORKER_HOT_MAX), in the order it is
 * used, then the batch, one record per message of the burst. Cold after
 * it: the events queued, the checkpoints, the hold buffer, the
 * decisions kept for UNSENT events and the event positions, each touched
 * per event, per order or rarely. The histograms and the snapshot are an
 * allocation of their own at the precision in use. */
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
		/* 1 once the worker stopped for good on an injected fault.
		 * Release, stored after its last event was taken: the
		 * control plane counts it as ended (relaxed is enough for
		 * that) and, loading it with acquire, frees the table
		 * patches it will never read (control.c). */
		_Atomic uint32_t dead;
		/* Why the worker stopped trading on missed input (enum
		 * hgw_halt; 0: it trades). Written once by the worker,
		 * relaxed: the control plane only leaves it out of the
		 * digest vote, and reads the details after the join. */
		_Atomic uint32_t halted;
		/* The last message of the batch the worker is about to
		 * evaluate (or has evaluated): hgw_pos_word(session index,
		 * sequence number); 0 before any. Release, stored before the
		 * worker looks for announced events; the control plane
		 * loads it with acquire (after a membarrier) to choose an
		 * event position that no worker has passed (control.c). */
		_Atomic uint64_t horizon;
		/* tx-lcore mode: the last message whose orders are all on
		 * this worker's handoff ring, encoded as horizon; 0 before
		 * any. Release, stored after the batch's last enqueue, and
		 * only while the worker hands orders over (not left, halted
		 * or passive). The control plane loads it with acquire to
		 * know when a kill switch's recall has seen every order
		 * decided before the kill's position (control.c). */
		_Atomic uint64_t handed;
		/* The id of the last control event this worker took (0:
		 * none); events reach a worker in id order. Release, stored
		 * after the event was applied; the control plane loads it
		 * with acquire before it frees a table patch the worker
		 * read, or reuses the record of an event (control.c). */
		_Atomic uint64_t ev_taken;
		/* Orders its port refused for good (out.refused points
		 * here); relaxed: a count the control plane polls to set
		 * the kill switch, it publishes no other data. */
		_Atomic uint64_t refused;
		/* IGMP membership queries this worker's decoder saw
		 * ([feed] igmp; hgw_feed_conf.igmp_queries points here);
		 * relaxed: a count the control lcore polls to answer with
		 * a report, it publishes no other data. */
		_Atomic uint64_t igmp_queries;
		/* Claim mode on the venue's TCP: the UserRefNum this worker
		 * is claiming (0: none), stored relaxed before its claim
		 * (whose CAS releases it) and cleared with release once the
		 * claim was handed to the TX lcore or lost. The TX lcore
		 * reads the claim's mark, then this with acquire: a worker
		 * at 0, or above the mark, holds no claim below it that is
		 * not on its ring (venue.c, dlg_all_taken). */
		_Atomic uint32_t dlg_pending;
	} shared __rte_cache_aligned;
	/* Written by the control plane, read by the worker (control.c):
	 * events announced to it, and of those, stamped with their
	 * position and queued on ev_ring. The worker loads announce
	 * relaxed once per batch; on a change it loads stamped with
	 * acquire (pairs with the control plane's release after the
	 * enqueue). */
	struct {
		/* events announced; HGW_ANNOUNCE_LEAVE: leave the race
		 * now (why in leave_reason, stored before it: the worker's
		 * acquire fence after seeing the bit pairs with the control
		 * plane's release) */
		_Atomic uint32_t announce;
		_Atomic uint32_t stamped;
		_Atomic uint32_t leave_reason;
	} in __rte_cache_aligned;
	struct hgw_snap_ctl snap __rte_cache_aligned;

	/* read-mostly from here: a line apart from snap, which readers write */
	unsigned int lcore __rte_cache_aligned;
	uint16_t port;
	uint16_t queue;
	uint16_t queue_b;       /* [feed] lines = 2: line B's RX queue */
	uint16_t lines;
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
	int venue;                      /* risk: orders open until answered */
	struct hgw_strategy_stats strategy;
	struct hgw_udp_tx udp;          /* order transport template */
	uint8_t capacity;
	struct rte_mempool *tx_pool;
	struct rte_mbuf *spare;         /* the next order's mbuf, taken early */
	/* 1 after the order pool ran dry: accounts, never sends again */
	int passive;
	/* Missed input (a gap, a checksum failure): it keeps applying the
	 * feed and accounting, sends nothing, and counts what it held
	 * back; where (the message that showed it) */
	uint32_t halt;                  /* enum hgw_halt, 0: trading */
	uint64_t halted_triggers, halted_orders;
	/* A/B lines and recovery: a gap's later frames held (hold_on: the
	 * feed returns them as HGW_FEED_AHEAD, and the loops that hold
	 * frames hold them), and the line of the frame being decoded */
	int hold_on;
	uint8_t cur_line;
	/* [feed] join = baseline: messages still to apply after the join
	 * before triggers are evaluated (every replica alike) */
	uint32_t warmup_messages;
	uint64_t warmup_left, warmup_triggers;
	/* 1 once out of the race (HGW_ANNOUNCE_LEAVE): accounts, never sends
	 * again; why, and the message before which it left */
	int left;
	/* claim dedup shared by all workers (NULL: every copy is sent, or
	 * the TX lcore chooses) */
	struct hgw_dedup *dedup;
	struct hgw_dedup_stats races;
	/* claim mode on the venue's own TCP ([venue] stack = dpdk): the
	 * claim that also reserves the order's bytes in the stream, and the
	 * worker's own TX queue for its segment (hgw_tcp_dlg.h; NULL:
	 * none); out then hands each claim won to the TX lcore, which owns
	 * the connection and the session */
	struct hgw_tcp_dlg *dlg;
	struct hgw_tcp_dlg_tx dlg_tx;
	struct rte_mbuf *dlg_m;         /* the next segment's mbuf */
	uint32_t dlg_floor;             /* UserRefNums up to it not sent */
	uint32_t dlg_last;              /* the last offered to the claim */
	/* tx-lcore mode: the TX lcore (out hands orders to its ring) */
	struct hgw_txlcore *txl;
	struct hgw_sender out;
#if HGW_TEST_HOOKS
	struct hgw_hooks hooks;
#endif

	/* Control events (control.c, hgw_event.h): the SP/SC queue from
	 * the control plane, announcements seen, and the events taken off
	 * the queue and not yet due, in order (ev_q[ev_head..+ev_n)). */
	struct rte_ring *ev_ring;
	uint32_t ev_seen;
	int ev_fence;                   /* no membarrier: fence per batch */
	uint32_t ev_head, ev_n;
	/* events ev_idle_from..ev_idle_to (ids; 0: none) were taken on a
	 * quiet feed (wk_events_idle): the next batch notes its first
	 * message as where they were taken (ev_at) */
	uint64_t ev_idle_from, ev_idle_to;
	uint64_t ev_applied;            /* events taken */
	uint64_t venue_answers;         /* of them venue answers (VENUE) */
	uint64_t ev_waits;              /* batches that waited for a stamp */
	uint64_t ev_wait_max;           /* the longest such wait, TSC */
	/* own table replica, written only by patch events (NULL: shared
	 * replicas, no live patches) */
	struct hgw_table *table_rw;
	/* running digest of every decision, and the checkpoint period
	 * (mask: digest_every - 1; UINT64_MAX: off) */
	uint64_t digest, decisions;
	uint64_t ckpt_mask;

	/* Cache-aware RX buffers ([buffers], lib/idio); idio_on: any of
	 * them, else buffers are freed in bulk as they come */
	int idio_on;
	enum hgw_idio_inval inval;
	const struct hgw_idio_cpu *cpu;
	int prefetch;
	struct hgw_idio_pf pf;
	uint32_t poison_bytes, poison_every, poison_ctr;
	struct {
		uint64_t freed;         /* buffers this worker was last to hold */
		uint64_t lines;         /* lines invalidated or demoted */
		uint64_t poisoned;      /* buffers poisoned */
	} idio;
	/* Per-stage stamps of one trigger in stage_every ([run]
	 * stage_sample; 0: off, nothing timed): arrival -> the trigger's
	 * message decoded and applied to the book (stage_book), -> strategy
	 * evaluated (lookup: book top, table key and this worker's replica
	 * read under its sequence count, so the replica's loaded latency),
	 * -> risk decided (stage_risk). Sent is rx_to_tx. TSC cycles. */
	uint32_t stage_every, stage_left;
	/* Arrival of the frame being processed: the TSC when its rx_burst
	 * returned, or with paced replay its release deadline */
	uint64_t rx_tsc;
	/* [rx] timestamp = nic: arrival from the first frame's RX stamp */
	const struct hgw_nic_clock_shared *nic;
	uint64_t nic_no_ts;             /* bursts whose first frame had none */
	/* Paced replay ([replay] pace; HGW_PACE_OFF: not paced) */
	uint32_t pace;
	struct hgw_pacer pacer;
	int ts_offset;                  /* mbuf RX timestamp field, -1: none */
	uint64_t ts_flag;               /* ... and its ol_flags bit */
	uint64_t pace_no_ts;            /* pcap pace, no timestamp: due at once */
	uint64_t pace_late;             /* frames picked up after their deadline */
	uint64_t pace_late_max;         /* the worst of those, TSC cycles */

	/* The order path of the worker's mode, picked before its loop
	 * starts (wk_flush_pick) */
	void (*flush)(struct hgw_worker *w);
	/* Messages of the current burst, one record each, in order. */
	uint32_t nbatch;
	uint32_t met_pub;               /* sessions published (met, below) */
	struct hgw_batch_msg batch[HGW_WORKER_BATCH];
	/* The events taken and not yet due (see ev_head): touched per
	 * event, not per message */
	struct hgw_event ev_q[HGW_EV_LOCAL];
	/* ---- Cold from here on ---- */
	/* The sessions this worker met, in the order it met them, for the
	 * control plane (hgw_pos_furthest): entry s is written once, before
	 * the first horizon or handed store that names index s (release),
	 * and never again, so the control plane reads the entries below the
	 * index it loaded (acquire) and never feed.sessions, whose lines
	 * the worker writes per packet. met_pub (hot, beside nbatch): entries
	 * written. */
	struct hgw_pos_session met[HGW_FEED_MAX_SESSIONS] __rte_cache_aligned;
	/* Checkpoints of the digest, read by the control plane
	 * (hgw_event.h); one write every [run] digest_every messages. */
	struct hgw_ckpt_ring ckpt __rte_cache_aligned;
	/* Histograms and the snapshot, in one allocation of their own at
	 * the precision in use (hgw_lcore_hists): out.rx_to_tx, then
	 * stage_every's (see above) */
	struct hgw_snapshot *snapshot;
	struct hgw_hist *stage_book, *lookup, *stage_risk;
	/* where the worker halted, and why and where it left the race */
	uint64_t halt_key, halt_seq;
	uint32_t left_reason;
	uint64_t left_key, left_seq;
	/* MoldUDP64 recovery by re-request ([recovery] server) */
	struct hgw_recovery rq;
	/* Cold unless a gap is being waited on (hold_on first) */
	struct hgw_hold hold;
	/* The last HGW_PASSED_MAX decisions that passed risk (an UNSENT
	 * event takes one of them back out of the position) */
	uint32_t passed_next;
	struct hgw_passed {
		uint64_t key, seq;
		int64_t qty;            /* signed: buy +, sell - */
		uint16_t locate;
	} passed[HGW_PASSED_MAX];
	uint64_t unsent_applied, unsent_missing;
	/* Cold: where each of the last HGW_EV_MAX events was taken (before
	 * message (key, seq): for one taken on a quiet feed, the next
	 * message this worker evaluated; while none has come, (the last
	 * one's session, its seq + 1), or (0, 0) before any), by event id
	 * % HGW_EV_MAX */
	struct hgw_ev_at { uint64_t id, key, seq; } ev_at[HGW_EV_MAX];
} __rte_cache_aligned;

/* The hot front of struct hgw_worker, before the batch's records (of
 * which a burst touches one per message), stays within this many bytes
 * (docs/design.md gives the sizes). */
#define HGW_WORKER_HOT_MAX (8 * 1024)
_Static_assert(offsetof(struct hgw_worker, batch) <= HGW_WORKER_HOT_MAX,
	       "the hot part of a worker stays small");

/* [rx] timestamp = nic: the NIC clock map, refitted by the control plane
 * every second (one writer) and read by the workers per burst under the
 * sequence count (rte_seqcount: its own acquire/release ordering). */
struct hgw_nic_clock_shared {
	rte_seqcount_t seq;
	struct hgw_nic_clock map;
} __rte_cache_aligned;

/* Set by the control plane to stop every worker. Relaxed on both sides:
 * it orders nothing, since the worker's results are read after the join. */
extern _Atomic uint32_t hgw_stop;

/* lcore entry point: arg is a struct hgw_worker. Polls until hgw_stop,
 * then drains what the queue still holds (at most drain_max frames, so a
 * live feed cannot keep it running) and returns 0. */
int hgw_worker_main(void *arg);

/* A worker's triggers evaluated and risk rejects (every reason), read by
 * its owner, or by anyone once it has been joined. */
void hgw_worker_decisions(const struct hgw_worker *w, uint64_t *triggers,
			  uint64_t *rejects);

#endif /* HGW_APP_WORKER_H */
