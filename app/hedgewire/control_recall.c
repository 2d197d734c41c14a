/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the kill switch's recall in tx-lcore mode, and the orders it
 * takes back (docs/design.md "Control events"). Once a racing replica
 * has handed over every order decided before the kill's position, the TX
 * lcore is told to end the recall; every order it took off becomes an
 * UNSENT event, which each replica takes at one feed position; and the
 * kill switch goes off only after that. Under the control plane's lock.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "control.h"
#include "control_int.h"

/* Has worker j handed every order decided before position (key, seq)
 * to the TX lcore? */
static int
handed_before(struct hgw_ctl *ct, uint32_t j, uint64_t key, uint64_t seq)
{
	/* acquire: pairs with the worker's release after its enqueues
	 * (the TX lcore's drain after our release of recall_end sees
	 * them); the sessions it published (met) up to the index are
	 * visible too */
	uint64_t h = atomic_load_explicit(&ct->w[j]->shared.handed,
					  memory_order_acquire);
	uint32_t s;
	uint64_t q;

	if (key == 0)
		return 1;	/* before the first message: nothing decided */
	/* handed the message just before seq, or later */
	return hgw_pos_decode(h, HGW_FEED_MAX_SESSIONS, &s, &q) &&
	       hgw_pos_at_or_past(ct->w[j]->met, s, q + 1, key, seq);
}

/* The kill switch's recall, one step (under ct->lock): once some worker
 * has handed over every order decided before the latest kill's position,
 * the TX lcore is told to end the recall; once it has, every order it
 * took off is posted as UNSENT. 1 when no recall is left to finish. */
int
ctl_recall_step(struct hgw_ctl *ct)
{
	if (ct->txl == NULL || ct->closed || ct->recall_done == ct->recall_want)
		return 1;
	if (ct->recall_told != ct->recall_want) {
		/* a replica out of the race may have decided otherwise:
		 * only the racing ones vouch for the others' orders */
		for (uint32_t j = 0; j < ct->n; j++)
			if (!(ct->left_mask & (1u << j)) &&
			    handed_before(ct, j, ct->recall_key, ct->recall_seq)) {
				ct->recall_told = ct->recall_want;
				/* release: our acquire of handed above
				 * happens-before the TX lcore's drain */
				atomic_store_explicit(&ct->txl->recall_end,
						      ct->recall_want,
						      memory_order_release);
				break;
			}
		if (ct->recall_told != ct->recall_want)
			return 0;
	}
	/* acquire: pairs with the TX lcore's release after it put the
	 * last recalled order on the recalled ring */
	if (atomic_load_explicit(&ct->txl->recall_ended,
				 memory_order_acquire) != ct->recall_want)
		return 0;
	ctl_unsent_post(ct);
	if (rte_ring_count(ct->txl->recalled) != 0)
		return 0;	/* no room in the event queues yet */
	ct->recall_done = ct->recall_want;
	return 1;
}

/* The kill switch goes off only after its recall has ended and every
 * order it took off is posted: a replica that decided with the switch
 * off while an UNSENT was still to come would count on an order that
 * never left. Waits (lock released) at most a second: normally the time
 * for the fastest worker to finish its batch. */
int
ctl_recall_wait(struct hgw_ctl *ct, char *err, size_t errlen)
{
	uint64_t t0 = rte_get_timer_cycles(), hz = rte_get_timer_hz(), us;
	uint32_t gen = ct->kill_gen;

	if (ctl_recall_step(ct))
		return 0;
	do {
		if (rte_get_timer_cycles() - t0 > hz) {
			snprintf(err, errlen, "kept on: its recall has not "
				 "ended in 1 s (%s)",
				 ct->recall_told != ct->recall_want ?
				 "no racing replica reached its position" :
				 "the orders it took are not all posted");
			return -1;
		}
		pthread_mutex_unlock(&ct->lock);
		rte_delay_us_sleep(100);
		pthread_mutex_lock(&ct->lock);
		if (ct->kill_gen != gen) {
			/* a later stop (an operator, the journal, the venue
			 * session) is not undone by an earlier request */
			snprintf(err, errlen, "kept on: the kill switch was "
				 "set again while this waited for its recall");
			return -1;
		}
	} while (!ctl_recall_step(ct));
	us = (rte_get_timer_cycles() - t0) * 1000000 / hz;
	ct->recall_waits++;
	if (us > ct->recall_wait_max_us)
		ct->recall_wait_max_us = us;
	return 0;
}

/* The 10-byte name of a session key, from the sessions a worker
 * published (worker.h, met; ctl_met_count). Blank if no worker has it. */
static void
session_name(struct hgw_ctl *ct, uint64_t key, char *name)
{
	memset(name, ' ', HGW_MOLD_SESSION_LEN);
	for (uint32_t j = 0; j < ct->n; j++)
		for (uint32_t s = 0, n = ctl_met_count(ct, j); s < n; s++)
			if (ct->w[j]->met[s].key == key) {
				memcpy(name, ct->w[j]->met[s].name,
				       HGW_MOLD_SESSION_LEN);
				return;
			}
}

/* One UNSENT event (under ct->lock): every replica takes the order of
 * trigger (key, seq) back out of its position at one feed position. */
int
ctl_unsent_one(struct hgw_ctl *ct, uint64_t key, uint64_t seq)
{
	struct hgw_event e = { .type = HGW_EVENT_UNSENT, .tkey = key,
			       .value = seq };
	char err[128];

	session_name(ct, key, e.symbol);
	if (ctl_post(ct, &e, 0, err, sizeof(err)) == 0) {
		ct->unsent_posted++;
		return 0;
	}
	ct->unsent_failed++;
	RTE_LOG(ERR, HGW_CTL, "recalled order (seq %" PRIu64 ") not taken "
		"back: %s\n", seq, err);
	return -1;
}

/* Orders handed back as unsent that were never taken back out of the
 * replicas' positions (under ct->lock): an UNSENT event that could not
 * be posted, or one lost before it reached the recalled ring. */
uint64_t
ctl_unsent_lost(struct hgw_ctl *ct)
{
	return ct->unsent_failed + (ct->txl == NULL ? 0 :
		/* relaxed: a count (worker.h) */
		atomic_load_explicit(&ct->txl->unsent_lost,
				     memory_order_relaxed));
}

/* Orders the kill switch recalled from the TX lcore's queues (under
 * ct->lock): every replica counted them as sent; an UNSENT event each
 * takes them back out of every replica's position at one feed position. */
void
ctl_unsent_post(struct hgw_ctl *ct)
{
	struct hgw_recalled rc;

	/* closed: what is left stays on the ring, and the summary says so */
	while (!ct->closed && ctl_event_room(ct) != 0 &&
	       rte_ring_sc_dequeue_elem(ct->txl->recalled, &rc,
					sizeof(rc)) == 0)
		ctl_unsent_one(ct, rc.key, rc.seq);
}
