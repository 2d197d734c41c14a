/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: control events at a feed position, and the replicas' digests.
 *
 * Every control-plane change a decision depends on (kill switch, disabled
 * instruments, risk limits, table patches) becomes an event (hgw_event.h)
 * that each worker takes on its own state just before the message at the
 * event's feed position. The position is chosen so that no worker has
 * evaluated a message at or past it, without the workers ever waiting for
 * the control plane in the common case:
 *
 *   worker, per batch:  horizon = last message of the batch   (release)
 *                       a = announce                          (relaxed)
 *                       a changed: wait until stamped == a, take events
 *                       evaluate the batch
 *   control, per event: announce++ for every worker
 *                       membarrier(PRIVATE_EXPEDITED)
 *                       pos = (furthest horizon) + 1
 *                       queue the event at pos; stamped = announce (release)
 *
 * membarrier makes every running worker thread execute a full barrier
 * between the announcement and the reads of the horizons. So a worker
 * whose load of announce missed the announcement made that load, and its
 * horizon store before it, before that barrier: the control plane then
 * sees that horizon, and the position lies past the batch the worker is
 * evaluating. A worker whose load saw the announcement has not evaluated
 * its batch yet and waits for the stamp (a few microseconds, counted as
 * ev_waits). Without membarrier each worker fences per batch instead.
 * Positions never go backwards, so each worker's queue is in position
 * order.
 *
 * The kill switch therefore stops every replica at the message after the
 * fastest replica's current batch: within one burst of it, and at the
 * same message everywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "control.h"
#include "control_int.h"
#include "hgw_parse.h"
#include "hgw_cli.h"
#include "hgw_risk.h"
#include "hgw_table.h"

RTE_LOG_REGISTER(hgw_ctl_logtype, hgw.ctl, INFO);

/* The run's control plane (hgw_ctl_init hands it out; every call takes
 * it). Static storage, not an allocation: a telemetry thread may still be
 * inside a command after hgw_ctl_fini, until the process exits. */
static struct hgw_ctl ctl = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define die(...) hgw_cli_die("hedgewire", __VA_ARGS__)

const char *
ctl_limit_name(int k)
{
	return hgw_risk_limit_name((enum hgw_risk_limit)k);
}

int
ctl_worker_dead(struct hgw_ctl *ct, uint32_t i)
{
	/* relaxed: a flag; a dead worker takes no more events */
	return atomic_load_explicit(&ct->w[i]->shared.dead,
				    memory_order_relaxed) != 0;
}

/* Has worker i taken event id, or stopped for good (it takes no more)?
 * Then it never reads that event's patch again. */
static int
worker_took(struct hgw_ctl *ct, uint32_t i, uint64_t id)
{
	/* acquire: pairs with the worker's release of ev_taken after it
	 * applied the event (and of dead after its last one): its reads
	 * of the patch happen-before our free */
	return atomic_load_explicit(&ct->w[i]->shared.ev_taken,
				    memory_order_acquire) >= id ||
	       atomic_load_explicit(&ct->w[i]->shared.dead,
				    memory_order_acquire) != 0;
}

/* Free the patches every worker they were sent to has taken (under
 * ct->lock). A worker out of the race or halted still takes the events
 * on its queue, and reads their patches then: it is waited for. */
void
ctl_patches_reap(struct hgw_ctl *ct)
{
	uint32_t k = 0;

	for (uint32_t j = 0; j < ct->npatches; j++) {
		struct patch_rec *pr = &ct->patches[j];
		int done = 1;

		for (uint32_t i = 0; i < ct->n && done; i++)
			if (pr->targets & (1u << i))
				done = worker_took(ct, i, pr->id);
		if (done)
			hgw_table_patch_free(pr->p);
		else
			ct->patches[k++] = *pr;
	}
	ct->npatches = k;
}

/* The position just past the furthest horizon of any worker (after the
 * membarrier), from what the workers published (hgw_pos_furthest). Dead
 * and departed workers count too: that only moves the position later,
 * and keeps positions monotonic. */
static void
stamp_position(struct hgw_ctl *ct, struct ev_rec *r)
{
	uint64_t word[HGW_MAX_WORKERS];
	const struct hgw_pos_session *met[HGW_MAX_WORKERS];
	uint32_t s;
	uint64_t q;
	int b;

	for (uint32_t j = 0; j < ct->n; j++) {
		/* acquire: pairs with the worker's release; the sessions
		 * it published up to the word's index are visible */
		word[j] = atomic_load_explicit(&ct->w[j]->shared.horizon,
					       memory_order_acquire);
		met[j] = ct->w[j]->met;
	}
	b = hgw_pos_furthest(word, met, ct->n, HGW_FEED_MAX_SESSIONS, &s, &q);
	if (b < 0) {
		r->ev.key = 0;
		r->ev.seq = 0;
		memset(r->name, 0, sizeof(r->name));
		return;
	}
	r->ev.key = met[b][s].key;
	r->ev.seq = q + 1;
	memcpy(r->name, met[b][s].name, sizeof(r->name));
	if (r->ev.key == ct->last_key && r->ev.seq < ct->last_seq)
		r->ev.seq = ct->last_seq;	/* never backwards */
	ct->last_key = r->ev.key;
	ct->last_seq = r->ev.seq;
}

/* The first line of every events log. */
static void
log_header(FILE *f)
{
	fprintf(f, "# hedgewire events: id session(hex) seq type args "
		"(docs/design.md \"Control events\")\n");
	fflush(f);
}

static void
log_event(struct hgw_ctl *ct, const struct ev_rec *r)
{
	char desc[128];

	if (ct->log == NULL)
		return;
	hgw_event_describe(&r->ev, ctl_limit_name, r->patch_count, desc,
			   sizeof(desc));
	fprintf(ct->log, "%" PRIu64 " ", r->ev.id);
	if (r->ev.key == 0) {
		fprintf(ct->log, "-");
	} else {
		for (int i = 0; i < HGW_MOLD_SESSION_LEN; i++)
			fprintf(ct->log, "%02x", (uint8_t)r->name[i]);
	}
	fprintf(ct->log, " %" PRIu64 " %s\n", r->ev.seq, desc);
	if (r->ev.type == HGW_EVENT_PATCH) {
		const struct hgw_table_dims *d = &ct->tables->t[0].dims;

		for (uint32_t i = 0; i < r->patch_count; i++) {
			struct hgw_table_entry e;
			uint64_t key;

			if (hgw_table_patch_entry(r->ev.patch, i, &key, &e) != 0)
				break;
			fprintf(ct->log, "+ %" PRIu64 " %" PRIu64 " %" PRIu64
				" %c %u %c %c %d %u %u\n",
				key / ((uint64_t)d->spreads * d->imbalances),
				key / d->imbalances % d->spreads,
				key % d->imbalances,
				e.action ? e.action : '0', e.price_mode,
				e.tif, e.display, e.price, e.quantity, e.tag);
		}
	}
	fflush(ct->log);
}

static void leave(struct hgw_ctl *ct, uint32_t i,
		  enum hgw_leave_reason why, const struct hgw_ckpt *at);

/* Send an event to every live worker, stamped with its position, under
 * ct->lock. 0, or -1 with err set (nothing was sent). A worker whose
 * queue is full takes no events any more: it leaves the race, and the
 * event goes to the others (a kill switch is never refused for one
 * stuck worker). */
int
ctl_post(struct hgw_ctl *ct, struct hgw_event *e, uint32_t patch_count,
	 char *err, size_t errlen)
{
	uint32_t targets = 0;
	struct ev_rec *r;

	if (ct->closed || ct->tables == NULL) {
		snprintf(err, errlen, "not running");
		return -1;
	}
	for (uint32_t i = 0; i < ct->n; i++) {
		if (ctl_worker_dead(ct, i) || (ct->left_mask & (1u << i)))
			continue;
		if (rte_ring_free_count(ct->w[i]->ev_ring) == 0) {
			struct hgw_ckpt none = { 0, 0, 0, 0 };

			leave(ct, i, HGW_LEAVE_STUCK, &none);
			continue;
		}
		targets |= 1u << i;
	}
	/* The record about to be reused is the event HGW_EV_MAX before
	 * this one: a racing worker that has not taken it has as many
	 * waiting (its feed has not moved since). The kill switch goes on
	 * without it, as for a full queue; anything else is refused, the
	 * record kept for the end-of-run report. */
	r = &ct->rec[(ct->next_id + 1) % HGW_EV_MAX];
	for (uint32_t i = 0; i < ct->n && r->ev.id != 0; i++) {
		if (!(targets & (1u << i)) || !(r->targets & (1u << i)) ||
		    worker_took(ct, i, r->ev.id))
			continue;
		if (e->type != HGW_EVENT_KILL) {
			snprintf(err, errlen, "event record full: worker %u "
				 "has not taken event %" PRIu64 " (its feed has "
				 "not reached it)", i, r->ev.id);
			return -1;
		}
		struct hgw_ckpt none = { 0, 0, 0, 0 };

		leave(ct, i, HGW_LEAVE_STUCK, &none);
		targets &= ~(1u << i);
	}
	if (targets == 0) {
		snprintf(err, errlen, "no worker is racing");
		return -1;
	}
	memset(r, 0, sizeof(*r));
	r->ev = *e;
	r->targets = targets;
	r->patch_count = patch_count;
	for (uint32_t i = 0; i < ct->n; i++)
		if (targets & (1u << i))
			/* seq_cst: ordered before the barrier below */
			atomic_fetch_add_explicit(&ct->w[i]->in.announce, 1,
						  memory_order_seq_cst);
	/* every running worker thread passes a full barrier: a horizon it
	 * stored before missing the announcement is visible to the loads
	 * in stamp_position */
	if (ct->membarrier) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED,
			    0, 0) != 0) {
			/* announced but never stamped: the workers would
			 * wait; nothing safe is left but to stop trading */
			snprintf(err, errlen, "membarrier failed: %s; every "
				 "replica leaves the race", strerror(errno));
			for (uint32_t i = 0; i < ct->n; i++) {
				struct hgw_ckpt none = { 0, 0, 0, 0 };

				leave(ct, i, HGW_LEAVE_STUCK, &none);
			}
			return -1;
		}
	} else {
		atomic_thread_fence(memory_order_seq_cst);
	}
	r->ev.id = ++ct->next_id;
	stamp_position(ct, r);
	for (uint32_t i = 0; i < ct->n; i++) {
		if (!(targets & (1u << i)))
			continue;
		/* room was checked above; we are the only producer */
		rte_ring_sp_enqueue_elem(ct->w[i]->ev_ring, &r->ev,
					 sizeof(r->ev));
		/* release: the queued event happens-before the worker's
		 * acquire of stamped */
		atomic_store_explicit(&ct->w[i]->in.stamped,
			atomic_load_explicit(&ct->w[i]->in.announce,
					     memory_order_relaxed) &
			~HGW_ANNOUNCE_LEAVE, memory_order_release);
	}
	*e = r->ev;
	log_event(ct, r);
	return 0;
}

/* Set or clear the kill switch in every replica (under ct->lock). */
int
ctl_kill_post(struct hgw_ctl *ct, struct hgw_event *e, char *err, size_t errlen)
{
	int rc;

	if (e->arg == 0 && ct->lies != 0) {
		/* what the venue holds is not what the replicas count */
		snprintf(err, errlen, "kept on: venue answer %" PRIu64
			 " contradicted what was sent; the position is "
			 "uncertain until it is reconciled with the venue",
			 ct->lie.seq);
		return -1;
	}
	rc = e->arg == 0 ? ctl_recall_wait(ct, err, errlen) : 0;
	if (rc == 0 && e->arg == 0 && ctl_unsent_lost(ct) != 0) {
		/* the replicas count orders that never left (lost before,
		 * or during the recall just waited for) */
		snprintf(err, errlen, "kept on: %" PRIu64 " orders handed "
			 "back as unsent were not taken out of the replicas' "
			 "positions; the position is uncertain",
			 ctl_unsent_lost(ct));
		rc = -1;
	}

	if (e->arg == 1)
		ct->kill_gen++;

	if (rc == 0)
		rc = ctl_post(ct, e, 0, err, errlen);
	if (rc == 0)
		ct->kill = e->arg;
	if (rc == 0 && e->arg == 1)
		/* release: the kill event is queued before the downstream
		 * relay (hgw_ctl_kills, acquire) tells hgw-dedup */
		atomic_fetch_add_explicit(&ct->kills_on, 1,
					  memory_order_release);
	if (rc == 0 && e->arg == 1 && ct->txl != NULL) {
		ct->recall_key = e->key;
		ct->recall_seq = e->seq;
		ct->recall_want++;
		/* release: the kill event is queued before the TX lcore,
		 * which fences with acquire when it sees this, recalls */
		atomic_fetch_add_explicit(&ct->txl->recall, 1,
					  memory_order_release);
	}
	if (rc == 0)
		RTE_LOG(WARNING, HGW_CTL, "kill switch %s (event %" PRIu64
			", seq %" PRIu64 ")\n", e->arg ? "ON" : "off", e->id,
			e->seq);
	return rc;
}

void
ctl_describe_rec(const struct ev_rec *r, char *buf, size_t len)
{
	char desc[96];
	int n;

	hgw_event_describe(&r->ev, ctl_limit_name, r->patch_count, desc,
			   sizeof(desc));
	n = snprintf(buf, len, "%s at ", desc);
	if (r->ev.key == 0 || n < 0 || (size_t)n >= len) {
		if (n >= 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, "the start");
		return;
	}
	snprintf(buf + n, len - (size_t)n, "session %.10s seq %" PRIu64,
		 r->name, r->ev.seq);
	for (char *p = buf; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '.';
}

struct hgw_ctl *
hgw_ctl_init(struct hgw_worker *const *w, uint32_t n,
	     const struct hgw_config *c, struct hgw_table_set *tables,
	     struct hgw_txlcore *txl)
{
	struct hgw_ctl *ct = &ctl;
	if (txl != NULL && tables != NULL) {
		txl->recalled = rte_ring_create_elem("hgw_recalled",
			sizeof(struct hgw_recalled), EV_RING, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (txl->recalled == NULL)
			die("cannot create the recall queue: %s",
			    rte_strerror(rte_errno));
		ct->txl = txl;
	}
	ct->w = w;
	ct->n = n;
	ct->c = c;
	ct->tables = tables;
	ct->kill = c->kill;
	memset(&ct->rconf, 0, sizeof(ct->rconf));
	ct->rconf.max_orders_instrument = c->max_orders_instrument;
	ct->rconf.max_orders_total = c->max_orders_total;
	ct->rconf.venue = hgw_config_venue(c);
	ct->rconf.max_open_orders = c->max_open_orders;
	ct->rconf.cap_open_orders = RTE_MAX(c->max_open_orders, 4096u);
	/* checked already by the workers' own risk configuration */
	hgw_risk_parse_disable(&ct->rconf, c->risk_disable);
	ct->limits[HGW_RISK_LIMIT_MAX_QUANTITY] = c->max_quantity;
	ct->limits[HGW_RISK_LIMIT_MAX_NOTIONAL] = c->max_notional;
	ct->limits[HGW_RISK_LIMIT_COLLAR_BPS] = c->collar_bps;
	ct->limits[HGW_RISK_LIMIT_MAX_POSITION] = c->max_position;
	ct->limits[HGW_RISK_LIMIT_WINDOW_MS] = c->window_ms;
	ct->limits[HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT] =
		c->max_orders_instrument;
	ct->limits[HGW_RISK_LIMIT_MAX_ORDERS_TOTAL] = c->max_orders_total;
	ct->limits[HGW_RISK_LIMIT_MAX_OPEN_ORDERS] =
		ct->rconf.venue ? c->max_open_orders : 0;
	ct->membarrier = syscall(__NR_membarrier,
				 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
				 0, 0) == 0;
	for (uint32_t i = 0; i < n; i++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "hgw_events_%u", i);
		w[i]->ev_ring = rte_ring_create_elem(name,
			sizeof(struct hgw_event), EV_RING, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w[i]->ev_ring == NULL)
			die("cannot create the event queue of worker %u: %s", i,
			    rte_strerror(rte_errno));
		w[i]->ev_fence = !ct->membarrier;
		w[i]->digest = HGW_DIGEST_INIT;
		w[i]->ckpt_mask = c->digest_every != 0 ?
				 (uint64_t)c->digest_every - 1 : UINT64_MAX;
	}
	if (tables == NULL)
		return ct;
	if (c->events_log[0] != '\0') {
		/* 0640: what traded is not for every user */
		ct->log = hgw_fcreate(c->events_log, 1, 0640);
		if (ct->log == NULL && errno == EEXIST)
			die("[run] events_log = %s: the file exists (never "
			    "overwritten; remove it or choose another)",
			    c->events_log);
		if (ct->log == NULL)
			die("[run] events_log = %s: %s", c->events_log,
			    hgw_fcreate_strerror(errno));
		log_header(ct->log);
	}
	printf("events: %s\n", ct->membarrier ?
	       "positions chosen after a membarrier (no fence on the workers)" :
	       "membarrier unavailable: workers fence once per batch");
	ctl_tel_register(ct);
	return ct;
}

/* Events the bulk posters may queue now (under ct->lock): the fewest
 * free slots of a racing worker's queue, less EV_RESERVE. */
unsigned int
ctl_event_room(struct hgw_ctl *ct)
{
	unsigned int room = UINT_MAX;

	for (uint32_t i = 0; i < ct->n; i++) {
		unsigned int f;

		if (ctl_worker_dead(ct, i) || (ct->left_mask & (1u << i)))
			continue;
		f = rte_ring_free_count(ct->w[i]->ev_ring);
		room = RTE_MIN(room, f > EV_RESERVE ? f - EV_RESERVE : 0);
	}
	return room == UINT_MAX ? 0 : room;
}

unsigned int
hgw_ctl_event_room(struct hgw_ctl *ct)
{
	unsigned int room;

	pthread_mutex_lock(&ct->lock);
	room = ct->closed || ct->tables == NULL ? 0 : ctl_event_room(ct);
	pthread_mutex_unlock(&ct->lock);
	return room;
}

int
hgw_ctl_unsent(struct hgw_ctl *ct, uint64_t key, uint64_t seq)
{
	int rc;

	pthread_mutex_lock(&ct->lock);
	rc = ctl_unsent_one(ct, key, seq);
	pthread_mutex_unlock(&ct->lock);
	return rc;
}

uint32_t
ctl_met_count(struct hgw_ctl *ct, uint32_t j)
{
	/* acquire: pairs with the worker's release of its horizon; the
	 * sessions it published up to the index the horizon names were
	 * written before that store */
	uint64_t h = atomic_load_explicit(&ct->w[j]->shared.horizon,
					  memory_order_acquire);
	uint32_t s;
	uint64_t q;

	return hgw_pos_decode(h, HGW_FEED_MAX_SESSIONS, &s, &q) ? s + 1 : 0;
}

int
hgw_ctl_session_key(struct hgw_ctl *ct, const char tail[4], uint64_t *key)
{
	int found = -1;

	/* the latest session met whose name ends in tail, from the
	 * sessions the workers published (ctl_met_count) */
	for (uint32_t j = 0; j < ct->n && found < 0; j++)
		for (uint32_t s = ctl_met_count(ct, j); s-- > 0;)
			if (memcmp(ct->w[j]->met[s].name +
				   HGW_MOLD_SESSION_LEN - 4, tail, 4) == 0) {
				*key = ct->w[j]->met[s].key;
				found = 0;
				break;
			}
	return found;
}

uint32_t
hgw_ctl_kills(struct hgw_ctl *ct)
{
	/* acquire: pairs with kill_post's release; the kill event is
	 * queued before the count says so */
	return atomic_load_explicit(&ct->kills_on, memory_order_acquire);
}

/* Take worker i out of the race (under ct->lock): the announce word's
 * leave bit, which needs no queue, so it reaches a worker whose queue is
 * full and is never held up behind an event not yet due. The worker
 * takes it at its next batch and sends nothing from then on. */
static void
leave(struct hgw_ctl *ct, uint32_t i, enum hgw_leave_reason why,
      const struct hgw_ckpt *at)
{
	if (ct->left_mask & (1u << i))
		return;
	atomic_store_explicit(&ct->w[i]->in.leave_reason, why,
			      memory_order_relaxed);
	/* release: leave_reason happens-before the worker's acquire fence
	 * after it sees the bit */
	atomic_fetch_or_explicit(&ct->w[i]->in.announce, HGW_ANNOUNCE_LEAVE,
				 memory_order_release);
	ct->left_mask |= 1u << i;
	ct->left_reason[i] = why;
	ct->left_at[i] = *at;
	ct->left_prev[i] = ct->cmp_prev_seq;
	if (ct->log != NULL) {
		fprintf(ct->log, "# worker %u leaves the race: %s at "
			"checkpoint seq %" PRIu64 "\n", i,
			hgw_leave_reason_name(why), at->seq);
		fflush(ct->log);
	}
	RTE_LOG(ERR, HGW_CTL, "worker %u leaves the race: %s (checkpoint seq "
		"%" PRIu64 ")\n", i, why == HGW_LEAVE_DIGEST ?
		"its decisions differ from the other replicas'" :
		why == HGW_LEAVE_NO_MAJORITY ?
		"replicas differ and none has a majority" :
		"it takes no events", at->seq);
}

/* Orders the replicas counted in their positions that never left: set
 * the kill switch (under ct->lock), as for a lost venue session, and
 * say so (once per new count: a kill switch that cannot be set is not
 * tried again at every poll). 1 when this set it. */
static int
position_doubt(struct hgw_ctl *ct, const char *what, uint64_t n,
	       const char *until)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char err[128];

	ct->kill_gen++;	/* a kill,0 waiting for a recall gives up */
	if (ct->kill) {
		RTE_LOG(ERR, HGW_CTL, "%s (%" PRIu64 " so far; the kill "
			"switch is on already): trading stops %s\n", what, n,
			until);
		return 0;
	}
	if (ctl_kill_post(ct, &e, err, sizeof(err)) != 0) {
		RTE_LOG(ERR, HGW_CTL, "%s, and the kill switch could not be "
			"set: %s\n", what, err);
		return 0;
	}
	RTE_LOG(ERR, HGW_CTL, "%s (%" PRIu64 " so far): trading stops %s\n",
		what, n, until);
	return 1;
}

/* Orders a port refused for good (after the sender's retries), until an
 * operator clears the kill switch; orders handed back as unsent and
 * lost before the replicas took them back, for good. */
static void
refused_check(struct hgw_ctl *ct)
{
	uint64_t n = 0;

	for (uint32_t j = 0; j < ct->n; j++)
		/* relaxed: a count (worker.h) */
		n += atomic_load_explicit(&ct->w[j]->shared.refused,
					  memory_order_relaxed);
	if (ct->txl != NULL)
		n += atomic_load_explicit(&ct->txl->refused,
					  memory_order_relaxed);
	if (n != ct->refused_seen) {
		ct->refused_seen = n;
		ct->refused_kills += position_doubt(ct,
			"orders refused by the port", n,
			"until /hgw/risk/kill,0");
	}
	n = ctl_unsent_lost(ct);
	if (n != ct->unsent_lost_seen) {
		ct->unsent_lost_seen = n;
		position_doubt(ct, "orders handed back as unsent were not "
			       "taken out of the replicas' positions", n,
			       "for the rest of the run (the position is "
			       "uncertain)");
	}
}

void
hgw_ctl_poll(struct hgw_ctl *ct)
{
	uint32_t idx[HGW_MAX_WORKERS], m = 0, slow = UINT32_MAX, kept;
	struct hgw_ckpt latest[HGW_MAX_WORKERS], c;
	uint64_t dig[HGW_MAX_WORKERS];
	uint8_t keep[HGW_MAX_WORKERS];

	/* a telemetry thread writing a long patch to the events log holds
	 * the lock: compare next time rather than hold up the journal */
	if (pthread_mutex_trylock(&ct->lock) != 0)
		return;
	if (ct->txl != NULL) {
		ctl_unsent_post(ct);
		ctl_recall_step(ct);
	}
	if (!ct->closed && ct->tables != NULL)
		refused_check(ct);
	if (ct->n < 2 || ct->w[0]->ckpt_mask == UINT64_MAX) {
		for (uint32_t i = 0; i < ct->n; i++)
			/* relaxed: a flag, set once */
			if (atomic_load_explicit(&ct->w[i]->shared.halted,
						 memory_order_relaxed) != 0 &&
			    !(ct->halt_logged & (1u << i))) {
				ct->halt_logged |= 1u << i;
				RTE_LOG(ERR, HGW_CTL, "worker %u halted on %s: "
					"it sends nothing more\n", i,
					hgw_halt_name(atomic_load_explicit(
						&ct->w[i]->shared.halted,
						memory_order_relaxed)));
			}
		goto out;
	}
	for (uint32_t i = 0; i < ct->n; i++) {
		/* relaxed: a halted replica missed input and says so; it
		 * is out of the vote (it sends nothing anyway) */
		uint32_t h = atomic_load_explicit(&ct->w[i]->shared.halted,
						  memory_order_relaxed);

		if (h != 0 && !(ct->halt_logged & (1u << i))) {
			ct->halt_logged |= 1u << i;
			RTE_LOG(ERR, HGW_CTL, "worker %u halted on %s: it sends "
				"nothing more, the others carry on\n", i,
				hgw_halt_name(h));
		}
		if ((ct->left_mask & (1u << i)) || ctl_worker_dead(ct, i) || h != 0)
			continue;
		/* none yet (or being written): compare the others */
		if (hgw_ckpt_latest(&ct->w[i]->ckpt, &latest[m]) != 0)
			continue;
		idx[m++] = i;
	}
	if (m < 2)
		goto out;
	/* the slowest replica's latest checkpoint; replicas in different
	 * sessions are compared once they are in the same one */
	for (uint32_t k = 0; k < m; k++) {
		if (latest[k].key != latest[0].key)
			goto out;
		if (slow == UINT32_MAX || latest[k].seq < latest[slow].seq)
			slow = k;
	}
	c = latest[slow];
	if (c.key == ct->cmp_key && c.seq == ct->cmp_seq)
		goto out;	/* compared already */
	for (uint32_t k = 0; k < m; k++) {
		struct hgw_ckpt o;

		/* a replica HGW_CKPT_SLOTS checkpoints ahead has overwritten
		 * it: a later round compares a later one (the digest runs
		 * on, so nothing is missed, only seen later) */
		if (hgw_ckpt_find(&ct->w[idx[k]]->ckpt, c.key, c.seq, &o) != 0)
			goto out;
		dig[k] = o.digest;
	}
	ct->cmp_prev_seq = ct->compares != 0 ? ct->cmp_seq : 0;
	ct->compares++;
	ct->cmp_key = c.key;
	ct->cmp_seq = c.seq;
	kept = hgw_digest_vote(dig, m, keep);
	if (kept == m)
		goto out;
	for (uint32_t k = 0; k < m; k++)
		if (!keep[k])
			leave(ct, idx[k], kept != 0 ? HGW_LEAVE_DIGEST :
			      HGW_LEAVE_NO_MAJORITY, &c);
out:
	pthread_mutex_unlock(&ct->lock);
}

void
hgw_ctl_session_lost(struct hgw_ctl *ct)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char err[128];

	pthread_mutex_lock(&ct->lock);
	ct->kill_gen++;	/* a kill,0 waiting for a recall gives up */
	if (ct->kill) {
		/* on already: another kill event would only fill the
		 * replicas' queues (a burst of bad input posts none) */
		pthread_mutex_unlock(&ct->lock);
		RTE_LOG(ERR, HGW_CTL, "venue session lost (the kill switch is "
			"on already)\n");
		return;
	}
	if (ctl_kill_post(ct, &e, err, sizeof(err)) != 0)
		RTE_LOG(ERR, HGW_CTL, "venue session lost, and the kill "
			"switch could not be set: %s\n", err);
	else
		RTE_LOG(ERR, HGW_CTL, "venue session lost: trading stops "
			"until /hgw/risk/kill,0\n");
	pthread_mutex_unlock(&ct->lock);
}

void
hgw_ctl_lie_describe(const struct hgw_vgate_lie_rec *l, char *buf,
		     size_t len)
{
	snprintf(buf, len, "%s '%c' (venue seq %" PRIu64 ", UserRefNum %"
		 PRIu32 ") %s: hedgewire holds %" PRIu64 " shares open, the "
		 "venue's answer says %" PRIu64, hgw_ouch_answer_name(l->type),
		 /* from hgw-dedup's 'C' too: any byte */
		 l->type > 0x20 && l->type < 0x7f ? l->type : '?', l->seq,
		 l->user_ref, hgw_vgate_lie_name(l->lie),
		 l->ours, l->theirs);
}

void
hgw_ctl_contradicted(struct hgw_ctl *ct, const struct hgw_vgate_lie_rec *l)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char err[128], what[256];
	int rc = 0;

	hgw_ctl_lie_describe(l, what, sizeof(what));
	pthread_mutex_lock(&ct->lock);
	if (ct->lies++ == 0)
		ct->lie = *l;
	ct->kill_gen++;	/* a kill,0 waiting for a recall gives up */
	if (!ct->kill)
		rc = ctl_kill_post(ct, &e, err, sizeof(err));
	pthread_mutex_unlock(&ct->lock);
	RTE_LOG(ERR, HGW_CTL, "venue contradicted: %s: kill switch %s, open "
		"orders cancelled, stopping\n", what,
		rc == 0 ? "on" : "NOT set");
	if (rc != 0)
		RTE_LOG(ERR, HGW_CTL, "the kill switch could not be set: %s\n",
			err);
}

int
hgw_ctl_recall_settled(struct hgw_ctl *ct)
{
	int done;

	pthread_mutex_lock(&ct->lock);
	done = ctl_recall_step(ct);
	pthread_mutex_unlock(&ct->lock);
	return done;
}

uint64_t
hgw_ctl_contradictions(struct hgw_ctl *ct, struct hgw_vgate_lie_rec *first)
{
	uint64_t n;

	pthread_mutex_lock(&ct->lock);
	n = ct->lies;
	if (n != 0 && first != NULL)
		*first = ct->lie;
	pthread_mutex_unlock(&ct->lock);
	return n;
}

void
hgw_ctl_kill(struct hgw_ctl *ct, const char *why)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char err[128];

	pthread_mutex_lock(&ct->lock);
	if (ctl_kill_post(ct, &e, err, sizeof(err)) != 0)
		RTE_LOG(ERR, HGW_CTL, "%s, and the kill switch could not be "
			"set: %s\n", why, err);
	else
		RTE_LOG(ERR, HGW_CTL, "%s: trading stops until "
			"/hgw/risk/kill,0\n", why);
	pthread_mutex_unlock(&ct->lock);
}

void
hgw_ctl_reopen_log(struct hgw_ctl *ct)
{
	char name[sizeof(ct->c->events_log) + 16];
	FILE *f = NULL;

	pthread_mutex_lock(&ct->lock);
	if (ct->log == NULL || ct->closed)
		goto out;
	/* the configured path (free again once rotated), else the next
	 * free name: never an earlier log overwritten */
	for (unsigned int k = 0; k < 100000 && f == NULL; k++) {
		if (hgw_journal_name(ct->c->events_log, k, name,
				     sizeof(name)) < 0)
			break;
		f = hgw_fcreate(name, 1, 0640);
		if (f == NULL && errno != EEXIST)
			break;
	}
	if (f == NULL) {
		RTE_LOG(ERR, HGW_CTL, "[run] events_log = %s: cannot reopen "
			"(%s); still writing the file open before\n",
			ct->c->events_log, hgw_fcreate_strerror(errno));
		goto out;
	}
	log_header(f);
	fclose(ct->log);
	ct->log = f;
	printf("events log %s: opened\n", name);
	fflush(stdout);
out:
	pthread_mutex_unlock(&ct->lock);
}

int
hgw_ctl_venue_answer(struct hgw_ctl *ct, const struct hgw_ouch_answer *a)
{
	struct hgw_event e = { .type = HGW_EVENT_VENUE, .value = a->seq };
	char err[128];
	int rc;

	e.venue = (struct hgw_event_venue){
		.user_ref = a->user_ref, .orig_user_ref = a->orig_user_ref,
		.qty = a->qty, .type = a->type, .side = a->side,
		.reason = a->reason, .price = a->price };
	pthread_mutex_lock(&ct->lock);
	rc = ctl_post(ct, &e, 0, err, sizeof(err));
	if (rc == 0)
		ct->venue_posted++;
	else
		ct->venue_failed++;
	pthread_mutex_unlock(&ct->lock);
	if (rc != 0)
		RTE_LOG(ERR, HGW_CTL, "venue answer %" PRIu64 " (%c, "
			"UserRefNum %" PRIu32 ") not taken by the replicas: "
			"%s\n", a->seq, a->type, a->user_ref, err);
	return rc;
}

void
hgw_ctl_close(struct hgw_ctl *ct)
{
	pthread_mutex_lock(&ct->lock);
	ct->closed = 1;
	pthread_mutex_unlock(&ct->lock);
}

uint64_t
hgw_ctl_compared_seq(struct hgw_ctl *ct)
{
	uint64_t q;

	pthread_mutex_lock(&ct->lock);
	q = ct->cmp_seq;
	pthread_mutex_unlock(&ct->lock);
	return q;
}

uint32_t
hgw_ctl_left(struct hgw_ctl *ct)
{
	uint32_t m;

	pthread_mutex_lock(&ct->lock);
	m = ct->left_mask;
	pthread_mutex_unlock(&ct->lock);
	return m;
}

void
hgw_ctl_fini(struct hgw_ctl *ct)
{
	pthread_mutex_lock(&ct->lock);
	ct->closed = 1;
	ct->tables = NULL;
	for (uint32_t i = 0; i < ct->npatches; i++)
		hgw_table_patch_free(ct->patches[i].p);
	ct->npatches = 0;
	if (ct->log != NULL)
		fclose(ct->log);
	ct->log = NULL;
	pthread_mutex_unlock(&ct->lock);
	for (uint32_t i = 0; i < ct->n; i++) {
		rte_ring_free(ct->w[i]->ev_ring);
		ct->w[i]->ev_ring = NULL;
	}
	if (ct->txl != NULL) {
		rte_ring_free(ct->txl->recalled);
		ct->txl->recalled = NULL;
	}
	/* the workers are freed next: /hgw/replicas reads none of them */
	pthread_mutex_lock(&ct->lock);
	ct->n = 0;
	ct->txl = NULL;
	pthread_mutex_unlock(&ct->lock);
}

int
hgw_ctl_kill_op(struct hgw_ctl *ct, int set, struct hgw_kill_answer *a)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = set == 1 };
	int rc = 0;

	memset(a, 0, sizeof(*a));
	pthread_mutex_lock(&ct->lock);
	/* the control lcore's own loop: never held up here. On already
	 * is read back (no event, no sweep); off waits for no recall */
	if (set == 1 && ct->kill)
		set = -1;
	if (set == 0 && !ctl_recall_step(ct)) {
		snprintf(a->err, sizeof(a->err), "kept on: its recall has not "
			 "ended yet (ask again)");
		rc = -1;
		set = -2;
	}
	if (set >= 0)
		rc = ctl_kill_post(ct, &e, a->err, sizeof(a->err));
	a->kill = ct->kill;
	a->contradictions = ct->lies;
	if (rc == 0 && set >= 0) {
		a->event = e.id;
		a->seq = e.seq;
		memcpy(a->session, ct->rec[e.id % HGW_EV_MAX].name,
		       HGW_MOLD_SESSION_LEN);
		for (int i = 0; i < HGW_MOLD_SESSION_LEN; i++)
			if (a->session[i] < 0x20 || a->session[i] > 0x7e)
				a->session[i] = '.';
		if (e.key == 0)
			snprintf(a->session, sizeof(a->session), "-");
	}
	pthread_mutex_unlock(&ct->lock);
	return rc;
}
