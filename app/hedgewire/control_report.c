/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the control plane's part of the summary at exit: each event
 * and where the replicas took it, the replicas that left the race, the
 * recall, the venue's answers. After the join, so a worker's own state
 * (its decoder's position, its event records) is read whole.
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
#include "hgw_event.h"

/* Has worker w evaluated a message at or past (key, seq)? Its last
 * message is (its current session, next_seq - 1). */
static int
passed(const struct hgw_worker *w, uint64_t key, uint64_t seq)
{
	int32_t cur = w->feed.current;
	int ks = -1;

	if (cur < 0)
		return 0;
	for (uint32_t s = 0; s < w->feed.nsessions; s++)
		if (w->feed.sessions[s].key == key)
			ks = (int)s;
	return hgw_event_due(key, seq, ks, cur,
			     w->feed.sessions[cur].next_seq - 1);
}

int
hgw_ctl_report(struct hgw_ctl *ct, FILE *out)
{
	uint64_t first = ct->next_id > HGW_EV_MAX ?
			 ct->next_id - HGW_EV_MAX + 1 : 1;
	char buf[160];
	int bad = 0;
	uint32_t shown = 0;

	pthread_mutex_lock(&ct->lock);
	if (ct->n > 1 && ct->tables != NULL)
		fprintf(out, "events: %" PRIu64 " issued; digests compared %"
			PRIu64 " times\n", ct->next_id, ct->compares);
	for (uint64_t id = first; id <= ct->next_id; id++) {
		const struct ev_rec *e = &ct->rec[id % HGW_EV_MAX];
		uint32_t took = 0, same = 1, racing = 0, missed = 0;
		const struct hgw_ev_at *a0 = NULL;

		for (uint32_t i = 0; i < ct->n; i++) {
			const struct hgw_worker *w = ct->w[i];
			const struct hgw_ev_at *a = &w->ev_at[id % HGW_EV_MAX];

			if (!(e->targets & (1u << i)) ||
			    (ct->left_mask & (1u << i)) || ctl_worker_dead(ct, i) ||
			    w->halt != HGW_HALT_NONE)
				continue;
			racing++;
			if (a->id != id) {
				/* not taken: wrong only if it went past it
				 * (a stop can end replicas before it) */
				missed += passed(w, e->ev.key, e->ev.seq);
				continue;
			}
			took++;
			if (a0 == NULL)
				a0 = a;
			else if (a->key != a0->key || a->seq != a0->seq)
				same = 0;
		}
		if (!same || missed != 0)
			bad = 1;
		if (shown++ < 32 || !same || missed != 0) {
			ctl_describe_rec(e, buf, sizeof(buf));
			fprintf(out, "event %" PRIu64 " %s: taken by %u of %u "
				"replicas%s\n", id, buf, took, racing,
				missed != 0 ? ", PASSED WITHOUT IT by some" :
				!same ? ", NOT at the same message" :
				took == 0 ? " (position not reached)" :
				took != racing ?
				" before the same message (the others stopped "
				"before its position)" :
				" before the same message");
		}
	}
	if (shown > 32)
		fprintf(out, "(%u more events: see the events log)\n",
			shown - 32);
	for (uint32_t i = 0; i < ct->n; i++) {
		const struct hgw_worker *w = ct->w[i];

		if (!(ct->left_mask & (1u << i)))
			continue;
		bad = 1;
		fprintf(out, "worker %u LEFT THE RACE: %s at checkpoint seq %"
			PRIu64 " (digest %016" PRIx64 ", compared before at "
			"seq %" PRIu64 "); it sent nothing from "
			"seq %" PRIu64 " on\n", i,
			ct->left_reason[i] == HGW_LEAVE_DIGEST ?
			"its decisions differ from the majority's" :
			ct->left_reason[i] == HGW_LEAVE_NO_MAJORITY ?
			"replicas differ and none has a majority" :
			"it took no events (its queue was full)",
			ct->left_at[i].seq, ct->left_at[i].digest,
			ct->left_prev[i], w->left ? w->left_seq : 0);
	}
	if (ctl_unsent_lost(ct) != 0) {
		bad = 1;
		fprintf(out, "kill switch: %" PRIu64 " orders handed back as "
			"unsent were NOT taken out of the replicas' positions "
			"(lost before they were posted): the position was "
			"uncertain, and trading stopped\n", ctl_unsent_lost(ct));
	}
	if (ct->txl != NULL && (ct->txl->recalled_n != 0 ||
				ct->txl->recalled_lost != 0)) {
		unsigned int left = rte_ring_count(ct->txl->recalled);

		fprintf(out, "kill switch: %" PRIu64 " orders recalled from "
			"the TX lcore's queues before they left; %" PRIu64
			" taken back out of every replica's position%s\n",
			ct->txl->recalled_n, ct->unsent_posted,
			left != 0 || ct->txl->recalled_lost != 0 ?
			" (SOME NOT: the run stopped first)" : "");
		if (left != 0 || ct->txl->recalled_lost != 0)
			bad = 1;
	}
	if (ct->refused_kills != 0)
		fprintf(out, "kill switch: set %" PRIu64 " times because the "
			"port refused orders\n", ct->refused_kills);
	if (ct->recall_waits != 0)
		fprintf(out, "kill switch: turned off %" PRIu64 " times after "
			"waiting for its recall to end (at most %" PRIu64
			" us)\n",
			ct->recall_waits, ct->recall_wait_max_us);
	if (ct->venue_posted != 0 || ct->venue_failed != 0) {
		fprintf(out, "venue: %" PRIu64 " answers taken by the replicas "
			"as events", ct->venue_posted);
		if (ct->venue_failed != 0) {
			fprintf(out, "; %" PRIu64 " NOT (no replica was "
				"racing)", ct->venue_failed);
			bad = 1;
		}
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < ct->n; i++)
		if (ct->w[i]->unsent_missing != 0) {
			fprintf(out, "worker %u: %" PRIu64 " recalled orders not "
				"among its last %u decisions\n", i,
				ct->w[i]->unsent_missing, HGW_PASSED_MAX);
			bad = 1;
		}
	for (uint32_t i = 0; i < ct->n; i++)
		if (ct->w[i]->ev_waits != 0)
			fprintf(out, "worker %u waited for an event's position "
				"%" PRIu64 " times (longest %.1f us)\n", i,
				ct->w[i]->ev_waits, (double)ct->w[i]->ev_wait_max *
				1e6 / (double)rte_get_tsc_hz());
	pthread_mutex_unlock(&ct->lock);
	return bad ? -1 : 0;
}
