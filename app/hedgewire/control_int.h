/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the control plane's state, shared by its files (not an API):
 *
 *   control.c         events at a feed position, the digest vote, the
 *                     kill switch, the venue's answers
 *   control_recall.c  the kill switch's recall (tx-lcore) and UNSENT
 *   control_report.c  its lines of the summary at exit
 *   control_tel.c     the telemetry commands that read or post events
 *
 * One struct hgw_ctl per run (control.c's); every function takes it.
 */
#ifndef HGW_APP_CONTROL_INT_H
#define HGW_APP_CONTROL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_log.h>

#include "config.h"
#include "hgw_event.h"
#include "hgw_risk.h"
#include "hgw_table.h"
#include "hgw_vgate.h"
#include "worker.h"

extern int hgw_ctl_logtype;
#define RTE_LOGTYPE_HGW_CTL hgw_ctl_logtype

/* Events queued per worker, not yet taken off by it. */
#define EV_RING 4096
/* Slots the bulk posters (venue answers, orders taken back) leave free in
 * every queue, so that a burst of them never crowds out the kill switch,
 * a limit or a patch: they wait (in their own rings, and at the venue)
 * until the workers have taken enough. */
#define EV_RESERVE 256
/* Table patches kept until every worker the event went to has taken it
 * (a worker reads the patch's entries when it takes the event). With the
 * feed moving that is the next message; a patch past this many waiting
 * is refused, never stored over another (memory stays bounded). */
#define PATCHES_MAX 256

struct ev_rec {
	struct hgw_event ev;
	char name[HGW_MOLD_SESSION_LEN];        /* the position's session */
	uint32_t patch_count;
	uint32_t targets;                       /* workers it was sent to */
};

struct hgw_ctl {
	/* Serialises every writer of what follows: telemetry threads and
	 * the control loop (off the fast path: workers never take it). */
	pthread_mutex_t lock;
	struct hgw_worker *const *w;
	uint32_t n;
	const struct hgw_config *c;
	struct hgw_table_set *tables;   /* NULL: feed only / after fini */
	struct hgw_txlcore *txl;        /* tx-lcore mode: kill recalls */
	uint64_t unsent_posted;
	/* tx-lcore mode: the kill switch's recall (struct hgw_txlcore):
	 * recalls started (the value of txl->recall), the one the TX lcore
	 * was told to end, the one ended with every order it took off
	 * posted as UNSENT; and the position of the latest kill */
	uint32_t recall_want, recall_told, recall_done;
	uint64_t recall_key, recall_seq;
	/* kill switch requests to go on (posted or not): a kill,0 waiting
	 * for a recall gives up if one came in meanwhile */
	uint32_t kill_gen;
	uint64_t refused_seen;          /* orders the port refused for good */
	/* UNSENT events that could not be posted (ctl_unsent_one), and the
	 * orders handed back as unsent lost so far (ctl_unsent_lost) */
	uint64_t unsent_failed, unsent_lost_seen;
	uint64_t refused_kills;         /* kill switch set for them */
	uint64_t recall_waits, recall_wait_max_us;  /* kill switch off */
	/* times the kill switch went on: written under lock (release),
	 * read by the control lcore's downstream relay (acquire) */
	_Atomic uint32_t kills_on;
	uint64_t venue_posted, venue_failed;    /* venue answers */
	/* venue answers that contradicted what was sent; the first */
	uint64_t lies;
	struct hgw_vgate_lie_rec lie;
	int closed;
	int membarrier;                 /* 1: registered; 0: workers fence */
	FILE *log;
	uint64_t next_id;               /* events issued (ids 1..next_id) */
	/* the last HGW_EV_MAX events, by id % HGW_EV_MAX */
	struct ev_rec rec[HGW_EV_MAX];
	/* patches some worker may still read, oldest first */
	uint32_t npatches;
	struct patch_rec {
		struct hgw_table_patch *p;
		uint64_t id;                    /* its event */
		uint32_t targets;               /* workers it was sent to */
	} patches[PATCHES_MAX];
	uint64_t last_key, last_seq;    /* the last position stamped */
	/* the control plane's view of what the events set */
	uint32_t kill;
	uint64_t limits[HGW_RISK_LIMIT_MAX];
	struct hgw_risk_conf rconf;     /* disabled list: as the events set it */
	/* digest comparison */
	uint32_t left_mask;             /* workers out of the race */
	uint32_t left_reason[HGW_MAX_WORKERS];
	struct hgw_ckpt left_at[HGW_MAX_WORKERS];
	uint64_t compares, cmp_key, cmp_seq;
	/* the checkpoint compared before the latest (0: none), and before
	 * the one each leaver left at: a divergence is caught by the first
	 * comparison after it, which the summary lets a reader check */
	uint64_t cmp_prev_seq, left_prev[HGW_MAX_WORKERS];
	uint32_t halt_logged;           /* halted workers said in the log */
};

/* Send an event to every live worker, stamped with its position (under
 * ct->lock). 0, or -1 with err set (nothing was sent). */
int ctl_post(struct hgw_ctl *ct, struct hgw_event *e, uint32_t patch_count,
	     char *err, size_t errlen);

/* Set or clear the kill switch in every replica (under ct->lock); a
 * kill,0 waits for the recall and refuses after a contradiction. */
int ctl_kill_post(struct hgw_ctl *ct, struct hgw_event *e, char *err,
		  size_t errlen);

/* Free the patches every worker they were sent to has taken (under
 * ct->lock). */
void ctl_patches_reap(struct hgw_ctl *ct);

/* 1 once worker i stopped for good (it takes no more events). */
int ctl_worker_dead(struct hgw_ctl *ct, uint32_t i);

/* How many of worker j's published sessions (met[]) the control plane
 * may read now: those up to the index its horizon names (acquire). */
uint32_t ctl_met_count(struct hgw_ctl *ct, uint32_t j);

/* A risk limit's name (hgw_event_describe's). */
const char *ctl_limit_name(int k);

/* "TYPE ARGS at session S seq Q" (or "at the start"), printable. */
void ctl_describe_rec(const struct ev_rec *r, char *buf, size_t len);

/* Events the bulk posters may queue now (under ct->lock): the fewest free
 * slots of a racing worker's queue, less EV_RESERVE. */
unsigned int ctl_event_room(struct hgw_ctl *ct);

/* control_recall.c (under ct->lock). One step of the recall: 1 when no
 * recall is left to finish. */
int ctl_recall_step(struct hgw_ctl *ct);

/* Before a kill,0: wait (lock released meanwhile) at most a second for
 * the recall to end. 0, or -1 with err set. */
int ctl_recall_wait(struct hgw_ctl *ct, char *err, size_t errlen);

/* One UNSENT event for the order of trigger (key, seq): 0, or -1. */
int ctl_unsent_one(struct hgw_ctl *ct, uint64_t key, uint64_t seq);

/* The recalled orders as UNSENT events, as far as the queues have room. */
void ctl_unsent_post(struct hgw_ctl *ct);

/* Orders handed back as unsent and never taken back out of the
 * replicas' positions, so far. */
uint64_t ctl_unsent_lost(struct hgw_ctl *ct);

/* control_tel.c: register the telemetry commands, which act on ct (the
 * callbacks of DPDK 22.11's telemetry take no argument of ours). */
void ctl_tel_register(struct hgw_ctl *ct);

#endif /* HGW_APP_CONTROL_INT_H */
