/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: control events at a feed position, the replicas' digests
 * compared while running, and the table and risk telemetry commands.
 */
#ifndef HGW_APP_CONTROL_H
#define HGW_APP_CONTROL_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "hgw_order.h"
#include "hgw_vgate.h"
#include "worker.h"

/* The control plane of one run (hgw_ctl_init); every call takes it. */
struct hgw_ctl;

/* Set up for workers *w[0..n-1] (already initialised, not launched):
 * their event queues, membarrier (or the per-batch fence fallback), the
 * events log, and the telemetry commands /hgw/risk/kill,
 * /hgw/risk/disable, /hgw/risk/limit, /hgw/table, /hgw/table/entry,
 * /hgw/table/patch, /hgw/events and /hgw/replicas. tables: the replicas
 * (NULL: feed only, no events). Exits with one line on failure. */
struct hgw_ctl *hgw_ctl_init(struct hgw_worker *const *w, uint32_t n,
			     const struct hgw_config *c,
			     struct hgw_table_set *tables,
			     struct hgw_txlcore *txl);

/* From the control loop (main lcore), every millisecond: hand the orders
 * the kill switch recalled (tx-lcore) to the replicas as events; compare
 * the replicas' digests at their latest common checkpoint and take any
 * that differs out of the race. */
void hgw_ctl_poll(struct hgw_ctl *ct);

/* No more events from now on (before the workers are stopped). */
void hgw_ctl_close(struct hgw_ctl *ct);

/* After the join: print every event with its position and whether each
 * live replica took it before the same message, and the replicas that
 * left the race. Returns 0 when everything agreed, -1 otherwise. */
int hgw_ctl_report(struct hgw_ctl *ct, FILE *out);

/* The last checkpoint whose digests were compared (seq; 0: none). */
uint64_t hgw_ctl_compared_seq(struct hgw_ctl *ct);

/* Workers out of the race so far (after the join: final). */
uint32_t hgw_ctl_left(struct hgw_ctl *ct);

/* Before the tables and the workers are freed: telemetry stops reading
 * them; the patches are freed and the events log closed. */
void hgw_ctl_fini(struct hgw_ctl *ct);

/* Control lcore only. Hand one venue answer (OUCH 5.0 server message,
 * in the session's sequence order) to every replica as an event. 0, or
 * -1 when it could not be posted (logged and counted). */
int hgw_ctl_venue_answer(struct hgw_ctl *ct, const struct hgw_ouch_answer *a);

/* How many venue answers (or orders taken back) can be handed to the
 * replicas now without crowding their event queues (a reserve stays for
 * the kill switch and other control events): hand no more, and leave the
 * rest waiting, until the workers have taken some. */
unsigned int hgw_ctl_event_room(struct hgw_ctl *ct);

/* Control lcore only. The venue session is lost: trading stops (a kill
 * event, as the kill switch) until an operator re-enables it. */
void hgw_ctl_session_lost(struct hgw_ctl *ct);

/* Control lcore only. Trading stops (a kill event, as the kill switch)
 * for the reason why (logged), until an operator re-enables it. */
void hgw_ctl_kill(struct hgw_ctl *ct, const char *why);

/* Control lcore only. A venue answer contradicted what was sent (l, found
 * by the session's owner: the TX lcore, or hgw-dedup): the kill switch
 * goes on and stays on (kill,0 is refused: the position is uncertain),
 * the answer is named in the log, and the run stops
 * (hgw_ctl_contradictions). */
void hgw_ctl_contradicted(struct hgw_ctl *ct,
			  const struct hgw_vgate_lie_rec *l);

/* How many venue answers contradicted what was sent; the first in *first
 * (when not NULL and any did). */
uint64_t hgw_ctl_contradictions(struct hgw_ctl *ct,
				struct hgw_vgate_lie_rec *first);

/* Control lcore: 1 when the latest kill's recall has ended and every
 * order it took off the TX lcore's queues is posted as UNSENT (or there
 * is no TX lcore); else one step of it, and 0. */
int hgw_ctl_recall_settled(struct hgw_ctl *ct);

/* One line naming a contradiction (no newline). */
void hgw_ctl_lie_describe(const struct hgw_vgate_lie_rec *l, char *buf,
			  size_t len);

/* Control lcore only (SIGHUP): the events log, if any, is closed and a
 * new one opened at [run] events_log, or the next free name after it
 * (never overwriting); if that fails the old one stays open (logged). */
void hgw_ctl_reopen_log(struct hgw_ctl *ct);

/* Downstream relay (relay.c), control lcore: an UNSENT event for trigger
 * (key, seq), as for the TX lcore's recalls (0, or -1: not posted);
 * the session key of the latest feed session whose name ends in tail
 * (an order's ClOrdID carries those 4 characters: 0, or -1); and how many
 * times the kill switch went on so far. */
int hgw_ctl_unsent(struct hgw_ctl *ct, uint64_t key, uint64_t seq);
int hgw_ctl_session_key(struct hgw_ctl *ct, const char tail[4], uint64_t *key);
uint32_t hgw_ctl_kills(struct hgw_ctl *ct);

/* The operator socket (opsock.c), control lcore only: the kill switch as
 * /hgw/risk/kill does it. set < 0 reads it; 0 or 1 sets it for every
 * replica at one position (the same kill_post as the telemetry command).
 * Never waits: ,1 with the switch on already is a read (a->event 0),
 * and ,0 before the last kill's recall has ended is refused. Returns 0
 * with a->kill (the switch now) and, when set, the event and its
 * position (session: printable, "-" before the first message); or -1
 * with a->err saying why nothing was set. */
struct hgw_kill_answer {
	uint32_t kill;
	uint64_t contradictions;        /* venue answers against what was sent */
	uint64_t event, seq;
	char session[HGW_MOLD_SESSION_LEN + 1];
	char err[128];
};
int hgw_ctl_kill_op(struct hgw_ctl *ct, int set, struct hgw_kill_answer *a);

#endif /* HGW_APP_CONTROL_H */
