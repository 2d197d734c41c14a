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
#include <rte_telemetry.h>

#include "control.h"
#include "hgw_parse.h"
#include "hgw_cli.h"
#include "hgw_risk.h"
#include "hgw_table.h"

RTE_LOG_REGISTER(hgw_ctl_logtype, hgw.ctl, INFO);
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

static struct {
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
} ctl = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define die(...) hgw_cli_die("hedgewire", __VA_ARGS__)

static const char *
limit_name(int k)
{
	return hgw_risk_limit_name((enum hgw_risk_limit)k);
}

static int
worker_dead(uint32_t i)
{
	/* relaxed: a flag; a dead worker takes no more events */
	return atomic_load_explicit(&ctl.w[i]->shared.dead,
				    memory_order_relaxed) != 0;
}

/* Has worker i taken event id, or stopped for good (it takes no more)?
 * Then it never reads that event's patch again. */
static int
worker_took(uint32_t i, uint64_t id)
{
	/* acquire: pairs with the worker's release of ev_taken after it
	 * applied the event (and of dead after its last one): its reads
	 * of the patch happen-before our free */
	return atomic_load_explicit(&ctl.w[i]->shared.ev_taken,
				    memory_order_acquire) >= id ||
	       atomic_load_explicit(&ctl.w[i]->shared.dead,
				    memory_order_acquire) != 0;
}

/* Free the patches every worker they were sent to has taken (under
 * ctl.lock). A worker out of the race or halted still takes the events
 * on its queue, and reads their patches then: it is waited for. */
static void
patches_reap(void)
{
	uint32_t k = 0;

	for (uint32_t j = 0; j < ctl.npatches; j++) {
		struct patch_rec *pr = &ctl.patches[j];
		int done = 1;

		for (uint32_t i = 0; i < ctl.n && done; i++)
			if (pr->targets & (1u << i))
				done = worker_took(i, pr->id);
		if (done)
			hgw_table_patch_free(pr->p);
		else
			ctl.patches[k++] = *pr;
	}
	ctl.npatches = k;
}

/* The position just past the furthest horizon of any worker (after the
 * membarrier), from what the workers published (hgw_pos_furthest). Dead
 * and departed workers count too: that only moves the position later,
 * and keeps positions monotonic. */
static void
stamp_position(struct ev_rec *r)
{
	uint64_t word[HGW_MAX_WORKERS];
	const struct hgw_pos_session *met[HGW_MAX_WORKERS];
	uint32_t s;
	uint64_t q;
	int b;

	for (uint32_t j = 0; j < ctl.n; j++) {
		/* acquire: pairs with the worker's release; the sessions
		 * it published up to the word's index are visible */
		word[j] = atomic_load_explicit(&ctl.w[j]->shared.horizon,
					       memory_order_acquire);
		met[j] = ctl.w[j]->met;
	}
	b = hgw_pos_furthest(word, met, ctl.n, HGW_FEED_MAX_SESSIONS, &s, &q);
	if (b < 0) {
		r->ev.key = 0;
		r->ev.seq = 0;
		memset(r->name, 0, sizeof(r->name));
		return;
	}
	r->ev.key = met[b][s].key;
	r->ev.seq = q + 1;
	memcpy(r->name, met[b][s].name, sizeof(r->name));
	if (r->ev.key == ctl.last_key && r->ev.seq < ctl.last_seq)
		r->ev.seq = ctl.last_seq;	/* never backwards */
	ctl.last_key = r->ev.key;
	ctl.last_seq = r->ev.seq;
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
log_event(const struct ev_rec *r)
{
	char desc[128];

	if (ctl.log == NULL)
		return;
	hgw_event_describe(&r->ev, limit_name, r->patch_count, desc,
			   sizeof(desc));
	fprintf(ctl.log, "%" PRIu64 " ", r->ev.id);
	if (r->ev.key == 0) {
		fprintf(ctl.log, "-");
	} else {
		for (int i = 0; i < HGW_MOLD_SESSION_LEN; i++)
			fprintf(ctl.log, "%02x", (uint8_t)r->name[i]);
	}
	fprintf(ctl.log, " %" PRIu64 " %s\n", r->ev.seq, desc);
	if (r->ev.type == HGW_EVENT_PATCH) {
		const struct hgw_table_dims *d = &ctl.tables->t[0].dims;

		for (uint32_t i = 0; i < r->patch_count; i++) {
			struct hgw_table_entry e;
			uint64_t key;

			if (hgw_table_patch_entry(r->ev.patch, i, &key, &e) != 0)
				break;
			fprintf(ctl.log, "+ %" PRIu64 " %" PRIu64 " %" PRIu64
				" %c %u %c %c %d %u %u\n",
				key / ((uint64_t)d->spreads * d->imbalances),
				key / d->imbalances % d->spreads,
				key % d->imbalances,
				e.action ? e.action : '0', e.price_mode,
				e.tif, e.display, e.price, e.quantity, e.tag);
		}
	}
	fflush(ctl.log);
}

static void leave(uint32_t i, enum hgw_leave_reason why,
		  const struct hgw_ckpt *at);

/* Send an event to every live worker, stamped with its position, under
 * ctl.lock. 0, or -1 with err set (nothing was sent). A worker whose
 * queue is full takes no events any more: it leaves the race, and the
 * event goes to the others (a kill switch is never refused for one
 * stuck worker). */
static int
post(struct hgw_event *e, uint32_t patch_count, char *err, size_t errlen)
{
	uint32_t targets = 0;
	struct ev_rec *r;

	if (ctl.closed || ctl.tables == NULL) {
		snprintf(err, errlen, "not running");
		return -1;
	}
	for (uint32_t i = 0; i < ctl.n; i++) {
		if (worker_dead(i) || (ctl.left_mask & (1u << i)))
			continue;
		if (rte_ring_free_count(ctl.w[i]->ev_ring) == 0) {
			struct hgw_ckpt none = { 0, 0, 0, 0 };

			leave(i, HGW_LEAVE_STUCK, &none);
			continue;
		}
		targets |= 1u << i;
	}
	/* The record about to be reused is the event HGW_EV_MAX before
	 * this one: a racing worker that has not taken it has as many
	 * waiting (its feed has not moved since). The kill switch goes on
	 * without it, as for a full queue; anything else is refused, the
	 * record kept for the end-of-run report. */
	r = &ctl.rec[(ctl.next_id + 1) % HGW_EV_MAX];
	for (uint32_t i = 0; i < ctl.n && r->ev.id != 0; i++) {
		if (!(targets & (1u << i)) || !(r->targets & (1u << i)) ||
		    worker_took(i, r->ev.id))
			continue;
		if (e->type != HGW_EVENT_KILL) {
			snprintf(err, errlen, "event record full: worker %u "
				 "has not taken event %" PRIu64 " (its feed has "
				 "not reached it)", i, r->ev.id);
			return -1;
		}
		struct hgw_ckpt none = { 0, 0, 0, 0 };

		leave(i, HGW_LEAVE_STUCK, &none);
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
	for (uint32_t i = 0; i < ctl.n; i++)
		if (targets & (1u << i))
			/* seq_cst: ordered before the barrier below */
			atomic_fetch_add_explicit(&ctl.w[i]->in.announce, 1,
						  memory_order_seq_cst);
	/* every running worker thread passes a full barrier: a horizon it
	 * stored before missing the announcement is visible to the loads
	 * in stamp_position */
	if (ctl.membarrier) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED,
			    0, 0) != 0) {
			/* announced but never stamped: the workers would
			 * wait; nothing safe is left but to stop trading */
			snprintf(err, errlen, "membarrier failed: %s; every "
				 "replica leaves the race", strerror(errno));
			for (uint32_t i = 0; i < ctl.n; i++) {
				struct hgw_ckpt none = { 0, 0, 0, 0 };

				leave(i, HGW_LEAVE_STUCK, &none);
			}
			return -1;
		}
	} else {
		atomic_thread_fence(memory_order_seq_cst);
	}
	r->ev.id = ++ctl.next_id;
	stamp_position(r);
	for (uint32_t i = 0; i < ctl.n; i++) {
		if (!(targets & (1u << i)))
			continue;
		/* room was checked above; we are the only producer */
		rte_ring_sp_enqueue_elem(ctl.w[i]->ev_ring, &r->ev,
					 sizeof(r->ev));
		/* release: the queued event happens-before the worker's
		 * acquire of stamped */
		atomic_store_explicit(&ctl.w[i]->in.stamped,
			atomic_load_explicit(&ctl.w[i]->in.announce,
					     memory_order_relaxed) &
			~HGW_ANNOUNCE_LEAVE, memory_order_release);
	}
	*e = r->ev;
	log_event(r);
	return 0;
}

/* Reply with the event's id and position (or the error). */
static void
reply_event(struct rte_tel_data *d, int rc, const struct hgw_event *e,
	    const char *err)
{
	char name[HGW_MOLD_SESSION_LEN + 1];

	rte_tel_data_start_dict(d);
	if (rc != 0) {
		rte_tel_data_add_dict_string(d, "error", err);
		return;
	}
	rte_tel_data_add_dict_u64(d, "event", e->id);
	memcpy(name, ctl.rec[e->id % HGW_EV_MAX].name, HGW_MOLD_SESSION_LEN);
	name[HGW_MOLD_SESSION_LEN] = '\0';
	for (int i = 0; i < HGW_MOLD_SESSION_LEN; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			name[i] = '.';
	rte_tel_data_add_dict_string(d, "session", e->key ? name : "-");
	rte_tel_data_add_dict_u64(d, "seq", e->seq);
}

/* Parse a whole unsigned decimal number (no sign, no base prefix). */
static void unsent_post(void);

/* Has worker j handed every order decided before position (key, seq)
 * to the TX lcore? */
static int
handed_before(uint32_t j, uint64_t key, uint64_t seq)
{
	/* acquire: pairs with the worker's release after its enqueues
	 * (the TX lcore's drain after our release of recall_end sees
	 * them); the sessions it published (met) up to the index are
	 * visible too */
	uint64_t h = atomic_load_explicit(&ctl.w[j]->shared.handed,
					  memory_order_acquire);
	uint32_t s;
	uint64_t q;

	if (key == 0)
		return 1;	/* before the first message: nothing decided */
	/* handed the message just before seq, or later */
	return hgw_pos_decode(h, HGW_FEED_MAX_SESSIONS, &s, &q) &&
	       hgw_pos_at_or_past(ctl.w[j]->met, s, q + 1, key, seq);
}

/* The kill switch's recall, one step (under ctl.lock): once some worker
 * has handed over every order decided before the latest kill's position,
 * the TX lcore is told to end the recall; once it has, every order it
 * took off is posted as UNSENT. 1 when no recall is left to finish. */
static int
recall_step(void)
{
	if (ctl.txl == NULL || ctl.closed || ctl.recall_done == ctl.recall_want)
		return 1;
	if (ctl.recall_told != ctl.recall_want) {
		/* a replica out of the race may have decided otherwise:
		 * only the racing ones vouch for the others' orders */
		for (uint32_t j = 0; j < ctl.n; j++)
			if (!(ctl.left_mask & (1u << j)) &&
			    handed_before(j, ctl.recall_key, ctl.recall_seq)) {
				ctl.recall_told = ctl.recall_want;
				/* release: our acquire of handed above
				 * happens-before the TX lcore's drain */
				atomic_store_explicit(&ctl.txl->recall_end,
						      ctl.recall_want,
						      memory_order_release);
				break;
			}
		if (ctl.recall_told != ctl.recall_want)
			return 0;
	}
	/* acquire: pairs with the TX lcore's release after it put the
	 * last recalled order on the recalled ring */
	if (atomic_load_explicit(&ctl.txl->recall_ended,
				 memory_order_acquire) != ctl.recall_want)
		return 0;
	unsent_post();
	if (rte_ring_count(ctl.txl->recalled) != 0)
		return 0;	/* no room in the event queues yet */
	ctl.recall_done = ctl.recall_want;
	return 1;
}

/* The kill switch goes off only after its recall has ended and every
 * order it took off is posted: a replica that decided with the switch
 * off while an UNSENT was still to come would count on an order that
 * never left. Waits (lock released) at most a second: normally the time
 * for the fastest worker to finish its batch. */
static int
recall_wait(char *err, size_t errlen)
{
	uint64_t t0 = rte_get_timer_cycles(), hz = rte_get_timer_hz(), us;
	uint32_t gen = ctl.kill_gen;

	if (recall_step())
		return 0;
	do {
		if (rte_get_timer_cycles() - t0 > hz) {
			snprintf(err, errlen, "kept on: its recall has not "
				 "ended in 1 s (%s)",
				 ctl.recall_told != ctl.recall_want ?
				 "no racing replica reached its position" :
				 "the orders it took are not all posted");
			return -1;
		}
		pthread_mutex_unlock(&ctl.lock);
		rte_delay_us_sleep(100);
		pthread_mutex_lock(&ctl.lock);
		if (ctl.kill_gen != gen) {
			/* a later stop (an operator, the journal, the venue
			 * session) is not undone by an earlier request */
			snprintf(err, errlen, "kept on: the kill switch was "
				 "set again while this waited for its recall");
			return -1;
		}
	} while (!recall_step());
	us = (rte_get_timer_cycles() - t0) * 1000000 / hz;
	ctl.recall_waits++;
	if (us > ctl.recall_wait_max_us)
		ctl.recall_wait_max_us = us;
	return 0;
}

/* Set or clear the kill switch in every replica (under ctl.lock). */
static int
kill_post(struct hgw_event *e, char *err, size_t errlen)
{
	int rc;

	if (e->arg == 0 && ctl.lies != 0) {
		/* what the venue holds is not what the replicas count */
		snprintf(err, errlen, "kept on: venue answer %" PRIu64
			 " contradicted what was sent; the position is "
			 "uncertain until it is reconciled with the venue",
			 ctl.lie.seq);
		return -1;
	}
	rc = e->arg == 0 ? recall_wait(err, errlen) : 0;

	if (e->arg == 1)
		ctl.kill_gen++;

	if (rc == 0)
		rc = post(e, 0, err, errlen);
	if (rc == 0)
		ctl.kill = e->arg;
	if (rc == 0 && e->arg == 1)
		/* release: the kill event is queued before the downstream
		 * relay (hgw_ctl_kills, acquire) tells hgw-dedup */
		atomic_fetch_add_explicit(&ctl.kills_on, 1,
					  memory_order_release);
	if (rc == 0 && e->arg == 1 && ctl.txl != NULL) {
		ctl.recall_key = e->key;
		ctl.recall_seq = e->seq;
		ctl.recall_want++;
		/* release: the kill event is queued before the TX lcore,
		 * which fences with acquire when it sees this, recalls */
		atomic_fetch_add_explicit(&ctl.txl->recall, 1,
					  memory_order_release);
	}
	if (rc == 0)
		RTE_LOG(WARNING, HGW_CTL, "kill switch %s (event %" PRIu64
			", seq %" PRIu64 ")\n", e->arg ? "ON" : "off", e->id,
			e->seq);
	return rc;
}

/* /hgw/risk/kill[,0|1]: read, or set for every replica at one position. */
static int
tel_risk_kill(const char *cmd __rte_unused, const char *params,
	      struct rte_tel_data *d)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL };
	char err[128];
	int rc;

	if (params == NULL || *params == '\0') {
		pthread_mutex_lock(&ctl.lock);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "kill", ctl.kill);
		rte_tel_data_add_dict_u64(d, "contradictions", ctl.lies);
		if (ctl.lies != 0) {
			char what[256];

			hgw_ctl_lie_describe(&ctl.lie, what, sizeof(what));
			rte_tel_data_add_dict_string(d, "contradicted", what);
		}
		pthread_mutex_unlock(&ctl.lock);
		return 0;
	}
	if (strcmp(params, "0") != 0 && strcmp(params, "1") != 0) {
		rte_tel_data_string(d, "usage: /hgw/risk/kill[,0|1]");
		return 0;
	}
	e.arg = params[0] == '1';
	pthread_mutex_lock(&ctl.lock);
	rc = kill_post(&e, err, sizeof(err));
	reply_event(d, rc, &e, err);
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

/* /hgw/risk/disable,SYMBOL,0|1: enable or disable one instrument. */
static int
tel_risk_disable(const char *cmd __rte_unused, const char *params,
		 struct rte_tel_data *d)
{
	struct hgw_event e = { .type = HGW_EVENT_DISABLE };
	const char *comma = params != NULL ? strchr(params, ',') : NULL;
	size_t n = comma != NULL ? (size_t)(comma - params) : 0;
	char err[128];
	int rc;

	int ok = comma != NULL && n >= 1 && n <= 8 &&
		 (strcmp(comma + 1, "0") == 0 || strcmp(comma + 1, "1") == 0);

	for (size_t k = 0; ok && k < n; k++)
		ok = params[k] > ' ' && params[k] <= '~';
	if (!ok) {
		rte_tel_data_string(d, "usage: /hgw/risk/disable,SYMBOL,0|1 "
				    "(1: disabled; SYMBOL 1-8 printable "
				    "characters, no spaces)");
		return 0;
	}
	memcpy(e.symbol, params, n);
	e.arg = comma[1] == '1';
	pthread_mutex_lock(&ctl.lock);
	/* the control plane's copy of the list says what every replica's
	 * will do: a change no replica could make is refused here */
	{
		struct hgw_risk_conf next = ctl.rconf;
		uint32_t w = 0;

		for (uint32_t k = 0; k < next.ndisabled; k++)
			if (strcmp(next.disabled[k], e.symbol) != 0)
				memcpy(next.disabled[w++], next.disabled[k], 9);
		next.ndisabled = w;
		if (e.arg == 1 && w == HGW_RISK_MAX_DISABLED) {
			snprintf(err, sizeof(err), "the disabled list is full "
				 "(%u instruments)", HGW_RISK_MAX_DISABLED);
			rc = -1;
		} else {
			if (e.arg == 1)
				memcpy(next.disabled[next.ndisabled++],
				       e.symbol, 9);
			rc = post(&e, 0, err, sizeof(err));
			if (rc == 0)
				ctl.rconf = next;
		}
	}
	reply_event(d, rc, &e, err);
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

/* /hgw/risk/limit[,NAME,VALUE]: list the limits, or change one. */
static int
tel_risk_limit(const char *cmd __rte_unused, const char *params,
	       struct rte_tel_data *d)
{
	struct hgw_event e = { .type = HGW_EVENT_LIMIT };
	const char *comma = params != NULL ? strchr(params, ',') : NULL;
	char name[32], err[128];
	uint64_t v;
	int k, rc;

	if (params == NULL || *params == '\0') {
		pthread_mutex_lock(&ctl.lock);
		rte_tel_data_start_dict(d);
		for (int i = 0; i < HGW_RISK_LIMIT_MAX; i++)
			rte_tel_data_add_dict_u64(d, limit_name(i),
						  ctl.limits[i]);
		pthread_mutex_unlock(&ctl.lock);
		return 0;
	}
	if (comma == NULL || (size_t)(comma - params) >= sizeof(name)) {
		rte_tel_data_string(d, "usage: /hgw/risk/limit[,NAME,VALUE]");
		return 0;
	}
	memcpy(name, params, (size_t)(comma - params));
	name[comma - params] = '\0';
	k = hgw_risk_limit_by_name(name);
	if (k < 0 || hgw_parse_num(comma + 1, 0, UINT64_MAX, &v) != 0 ||
	    hgw_risk_limit_valid(&ctl.rconf, (enum hgw_risk_limit)k, v) != 0) {
		rte_tel_data_start_dict(d);
		snprintf(err, sizeof(err), "bad limit '%s' (see /hgw/risk/limit "
			 "for names; values within the [risk] ranges, "
			 "max_orders_* at most their start-up value)", params);
		rte_tel_data_add_dict_string(d, "error", err);
		return 0;
	}
	e.arg = (uint32_t)k;
	e.value = v;
	pthread_mutex_lock(&ctl.lock);
	rc = post(&e, 0, err, sizeof(err));
	if (rc == 0)
		ctl.limits[k] = v;
	reply_event(d, rc, &e, err);
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

/* /hgw/table/patch,FILE: read and validate once, then every replica
 * takes the whole patch at one position (no decision sees half of it). */
static int
tel_table_patch(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct hgw_event e = { .type = HGW_EVENT_PATCH };
	struct hgw_table_patch *p;
	struct hgw_table_dims dims;
	char err[512];
	int rc;

	pthread_mutex_lock(&ctl.lock);
	rc = ctl.closed ? -2 : ctl.tables == NULL ? -1 :
	     ctl.tables->n < ctl.n ? -3 : 0;
	if (rc == 0)
		dims = ctl.tables->t[0].dims;	/* fixed for the run */
	pthread_mutex_unlock(&ctl.lock);
	if (rc == -3) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error", "live patches need "
			"one table replica per worker ([table] replicas)");
		return 0;
	}
	if (rc == -2) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error", "not running");
		return 0;
	}
	if (rc != 0 || params == NULL || *params == '\0') {
		rte_tel_data_string(d, rc != 0 ? "no table loaded ([table] file)" :
				    "usage: /hgw/table/patch,FILE");
		return 0;
	}
	/* outside the lock: a slow file never holds up other commands */
	p = hgw_table_patch_load(params, &dims, HGW_TABLE_PATCH_MAX_BYTES, err,
				 sizeof(err));
	if (p == NULL) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error", err);
		return 0;
	}
	e.patch = p;
	pthread_mutex_lock(&ctl.lock);
	patches_reap();
	if (ctl.npatches == PATCHES_MAX) {
		/* the oldest waits for a worker whose feed has not moved */
		snprintf(err, sizeof(err), "patch store full: %u patches "
			 "wait for a worker to take them (event %" PRIu64
			 " first)", (unsigned int)PATCHES_MAX,
			 ctl.patches[0].id);
		rc = -1;
	} else {
		rc = post(&e, hgw_table_patch_count(p), err, sizeof(err));
	}
	if (rc == 0)
		ctl.patches[ctl.npatches++] = (struct patch_rec){
			.p = p, .id = e.id,
			.targets = ctl.rec[e.id % HGW_EV_MAX].targets };
	reply_event(d, rc, &e, err);
	if (rc == 0)
		rte_tel_data_add_dict_u64(d, "entries", hgw_table_patch_count(p));
	pthread_mutex_unlock(&ctl.lock);
	if (rc != 0)
		hgw_table_patch_free(p);
	else
		RTE_LOG(INFO, HGW_CTL, "table patch %s: %u entries (event %"
			PRIu64 ")\n", params, hgw_table_patch_count(p), e.id);
	return 0;
}

/* /hgw/table/entry,L,S,I[,R]: one entry of replica R, read as a worker
 * reads it (under the entry's sequence count). */
static int
tel_table_entry(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	uint64_t v[4] = { 0, 0, 0, 0 };
	struct hgw_table_entry e;
	char buf[128], c[2] = { 0, 0 };
	char *tok, *save = NULL;
	int n = 0, ok;

	if (params != NULL && strlen(params) < sizeof(buf)) {
		/* strsep, not strtok: an empty field is an error */
		strcpy(buf, params);
		save = buf;
		while ((tok = strsep(&save, ",")) != NULL && n < 5)
			if (n == 4 || hgw_parse_num(tok, 0, UINT32_MAX, &v[n++]) != 0)
				n = 5;	/* too many or not a number */
	}
	pthread_mutex_lock(&ctl.lock);
	const struct hgw_table *t = ctl.tables != NULL ? ctl.tables->t : NULL;

	ok = t != NULL && (n == 3 || n == 4) && v[3] < ctl.tables->n &&
	     v[0] < t->dims.instruments && v[1] < t->dims.spreads &&
	     v[2] < t->dims.imbalances;
	if (ok)
		hgw_table_read(&t[v[3]], (v[0] * t->dims.spreads + v[1]) *
			       t->dims.imbalances + v[2], &e);
	pthread_mutex_unlock(&ctl.lock);
	if (!ok) {
		rte_tel_data_string(d, "usage: /hgw/table/entry,LOCATE,SPREAD,IMBALANCE[,REPLICA] (within the table)");
		return 0;
	}
	rte_tel_data_start_dict(d);
	c[0] = e.action ? (char)e.action : '0';
	rte_tel_data_add_dict_string(d, "action", c);
	rte_tel_data_add_dict_u64(d, "price_mode", e.price_mode);
	c[0] = (char)e.tif;
	rte_tel_data_add_dict_string(d, "tif", c);
	c[0] = (char)e.display;
	rte_tel_data_add_dict_string(d, "display", c);
	rte_tel_data_add_dict_int(d, "price", e.price);
	rte_tel_data_add_dict_u64(d, "quantity", e.quantity);
	rte_tel_data_add_dict_u64(d, "tag", e.tag);
	return 0;
}

/* /hgw/table: the loaded table's dimensions. */
static int
tel_table_info(const char *cmd __rte_unused, const char *params __rte_unused,
	       struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&ctl.lock);
	if (ctl.tables != NULL) {
		const struct hgw_table *t = &ctl.tables->t[0];

		rte_tel_data_add_dict_u64(d, "instruments", t->dims.instruments);
		rte_tel_data_add_dict_u64(d, "spreads", t->dims.spreads);
		rte_tel_data_add_dict_u64(d, "imbalances", t->dims.imbalances);
		rte_tel_data_add_dict_u64(d, "tick", t->dims.tick);
		rte_tel_data_add_dict_u64(d, "entries", t->nentries);
		rte_tel_data_add_dict_u64(d, "replicas", ctl.tables->n);
	}
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

static void
describe_rec(const struct ev_rec *r, char *buf, size_t len)
{
	char desc[96];
	int n;

	hgw_event_describe(&r->ev, limit_name, r->patch_count, desc,
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

/* /hgw/events: how many, and the last ones with their positions. */
static int
tel_events(const char *cmd __rte_unused, const char *params __rte_unused,
	   struct rte_tel_data *d)
{
	char name[32], buf[RTE_TEL_MAX_STRING_LEN];

	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&ctl.lock);
	rte_tel_data_add_dict_u64(d, "events", ctl.next_id);
	for (uint64_t id = ctl.next_id > 64 ? ctl.next_id - 63 : 1;
	     id <= ctl.next_id; id++) {
		const struct ev_rec *r = &ctl.rec[id % HGW_EV_MAX];

		snprintf(name, sizeof(name), "%" PRIu64, id);
		describe_rec(r, buf, sizeof(buf));
		rte_tel_data_add_dict_string(d, name, buf);
	}
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

/* /hgw/replicas: which workers race, which left and why. */
static int
tel_replicas(const char *cmd __rte_unused, const char *params __rte_unused,
	     struct rte_tel_data *d)
{
	char name[32], buf[96];

	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&ctl.lock);
	rte_tel_data_add_dict_u64(d, "digest_compares", ctl.compares);
	rte_tel_data_add_dict_u64(d, "membarrier", (uint64_t)ctl.membarrier);
	for (uint32_t i = 0; i < ctl.n; i++) {
		snprintf(name, sizeof(name), "worker%u", i);
		if (ctl.left_mask & (1u << i))
			snprintf(buf, sizeof(buf), "left: %s at seq %" PRIu64,
				 hgw_leave_reason_name(ctl.left_reason[i]),
				 ctl.left_at[i].seq);
		else if (atomic_load_explicit(&ctl.w[i]->shared.halted,
					      memory_order_relaxed) != 0)
			/* relaxed: a flag, set once */
			snprintf(buf, sizeof(buf), "halted on %s",
				 hgw_halt_name(atomic_load_explicit(
					&ctl.w[i]->shared.halted,
					memory_order_relaxed)));
		else
			snprintf(buf, sizeof(buf), "%s",
				 worker_dead(i) ? "stopped" : "racing");
		rte_tel_data_add_dict_string(d, name, buf);
	}
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

void
hgw_ctl_init(struct hgw_worker *const *w, uint32_t n,
	     const struct hgw_config *c, struct hgw_table_set *tables,
	     struct hgw_txlcore *txl)
{
	if (txl != NULL && tables != NULL) {
		txl->recalled = rte_ring_create_elem("hgw_recalled",
			sizeof(struct hgw_recalled), EV_RING, rte_socket_id(),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (txl->recalled == NULL)
			die("cannot create the recall queue: %s",
			    rte_strerror(rte_errno));
		ctl.txl = txl;
	}
	ctl.w = w;
	ctl.n = n;
	ctl.c = c;
	ctl.tables = tables;
	ctl.kill = c->kill;
	memset(&ctl.rconf, 0, sizeof(ctl.rconf));
	ctl.rconf.max_orders_instrument = c->max_orders_instrument;
	ctl.rconf.max_orders_total = c->max_orders_total;
	ctl.rconf.venue = hgw_config_venue(c);
	ctl.rconf.max_open_orders = c->max_open_orders;
	ctl.rconf.cap_open_orders = RTE_MAX(c->max_open_orders, 4096u);
	/* checked already by the workers' own risk configuration */
	hgw_risk_parse_disable(&ctl.rconf, c->risk_disable);
	ctl.limits[HGW_RISK_LIMIT_MAX_QUANTITY] = c->max_quantity;
	ctl.limits[HGW_RISK_LIMIT_MAX_NOTIONAL] = c->max_notional;
	ctl.limits[HGW_RISK_LIMIT_COLLAR_BPS] = c->collar_bps;
	ctl.limits[HGW_RISK_LIMIT_MAX_POSITION] = c->max_position;
	ctl.limits[HGW_RISK_LIMIT_WINDOW_MS] = c->window_ms;
	ctl.limits[HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT] =
		c->max_orders_instrument;
	ctl.limits[HGW_RISK_LIMIT_MAX_ORDERS_TOTAL] = c->max_orders_total;
	ctl.limits[HGW_RISK_LIMIT_MAX_OPEN_ORDERS] =
		ctl.rconf.venue ? c->max_open_orders : 0;
	ctl.membarrier = syscall(__NR_membarrier,
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
		w[i]->ev_fence = !ctl.membarrier;
		w[i]->digest = HGW_DIGEST_INIT;
		w[i]->ckpt_mask = c->digest_every != 0 ?
				 (uint64_t)c->digest_every - 1 : UINT64_MAX;
	}
	if (tables == NULL)
		return;
	if (c->events_log[0] != '\0') {
		/* 0640: what traded is not for every user */
		ctl.log = hgw_fcreate(c->events_log, 1, 0640);
		if (ctl.log == NULL && errno == EEXIST)
			die("[run] events_log = %s: the file exists (never "
			    "overwritten; remove it or choose another)",
			    c->events_log);
		if (ctl.log == NULL)
			die("[run] events_log = %s: %s", c->events_log,
			    hgw_fcreate_strerror(errno));
		log_header(ctl.log);
	}
	printf("events: %s\n", ctl.membarrier ?
	       "positions chosen after a membarrier (no fence on the workers)" :
	       "membarrier unavailable: workers fence once per batch");
	rte_telemetry_register_cmd("/hgw/table/patch", tel_table_patch,
		"Apply a table patch file to every replica at one feed position. Parameters: FILE");
	rte_telemetry_register_cmd("/hgw/table/entry", tel_table_entry,
		"One entry of the running table. Parameters: LOCATE,SPREAD,IMBALANCE[,REPLICA]");
	rte_telemetry_register_cmd("/hgw/table", tel_table_info,
		"Dimensions of the loaded pricing table. No parameters");
	rte_telemetry_register_cmd("/hgw/risk/kill", tel_risk_kill,
		"Read or set the kill switch (at one feed position). Parameters: [0|1]");
	rte_telemetry_register_cmd("/hgw/risk/disable", tel_risk_disable,
		"Disable (1) or enable (0) an instrument. Parameters: SYMBOL,0|1");
	rte_telemetry_register_cmd("/hgw/risk/limit", tel_risk_limit,
		"List the risk limits, or change one. Parameters: [NAME,VALUE]");
	rte_telemetry_register_cmd("/hgw/events", tel_events,
		"Control events and their feed positions. No parameters");
	rte_telemetry_register_cmd("/hgw/replicas", tel_replicas,
		"Which workers race, which left the race and why. No parameters");
}

/* The 10-byte name of a session key, from the sessions a worker
 * published (worker.h, met): the entries below the index its horizon
 * names were written before that release store (acquire here). Blank if
 * no worker has it. */
static void
session_name(uint64_t key, char *name)
{
	memset(name, ' ', HGW_MOLD_SESSION_LEN);
	for (uint32_t j = 0; j < ctl.n; j++) {
		uint64_t h = atomic_load_explicit(&ctl.w[j]->shared.horizon,
						  memory_order_acquire);
		uint32_t met = (uint32_t)(h >> 56);

		for (uint32_t s = 0; s < met && s < HGW_FEED_MAX_SESSIONS; s++)
			if (ctl.w[j]->met[s].key == key) {
				memcpy(name, ctl.w[j]->met[s].name,
				       HGW_MOLD_SESSION_LEN);
				return;
			}
	}
}

/* Events the bulk posters may queue now (under ctl.lock): the fewest
 * free slots of a racing worker's queue, less EV_RESERVE. */
static unsigned int
event_room(void)
{
	unsigned int room = UINT_MAX;

	for (uint32_t i = 0; i < ctl.n; i++) {
		unsigned int f;

		if (worker_dead(i) || (ctl.left_mask & (1u << i)))
			continue;
		f = rte_ring_free_count(ctl.w[i]->ev_ring);
		room = RTE_MIN(room, f > EV_RESERVE ? f - EV_RESERVE : 0);
	}
	return room == UINT_MAX ? 0 : room;
}

unsigned int
hgw_ctl_event_room(void)
{
	unsigned int room;

	pthread_mutex_lock(&ctl.lock);
	room = ctl.closed || ctl.tables == NULL ? 0 : event_room();
	pthread_mutex_unlock(&ctl.lock);
	return room;
}

/* One UNSENT event (under ctl.lock): every replica takes the order of
 * trigger (key, seq) back out of its position at one feed position. */
static int
unsent_one(uint64_t key, uint64_t seq)
{
	struct hgw_event e = { .type = HGW_EVENT_UNSENT, .tkey = key,
			       .value = seq };
	char err[128];

	session_name(key, e.symbol);
	if (post(&e, 0, err, sizeof(err)) == 0) {
		ctl.unsent_posted++;
		return 0;
	}
	RTE_LOG(ERR, HGW_CTL, "recalled order (seq %" PRIu64 ") not taken "
		"back: %s\n", seq, err);
	return -1;
}

/* Orders the kill switch recalled from the TX lcore's queues (under
 * ctl.lock): every replica counted them as sent; an UNSENT event each
 * takes them back out of every replica's position at one feed position. */
static void
unsent_post(void)
{
	struct hgw_recalled rc;

	/* closed: what is left stays on the ring, and the summary says so */
	while (!ctl.closed && event_room() != 0 &&
	       rte_ring_sc_dequeue_elem(ctl.txl->recalled, &rc,
					sizeof(rc)) == 0)
		unsent_one(rc.key, rc.seq);
}

int
hgw_ctl_unsent(uint64_t key, uint64_t seq)
{
	int rc;

	pthread_mutex_lock(&ctl.lock);
	rc = unsent_one(key, seq);
	pthread_mutex_unlock(&ctl.lock);
	return rc;
}

int
hgw_ctl_session_key(const char tail[4], uint64_t *key)
{
	int found = -1;

	/* the latest session met whose name ends in tail, from the
	 * sessions the workers published: the entries below the index a
	 * horizon names were written before that release store (acquire
	 * here) */
	for (uint32_t j = 0; j < ctl.n && found < 0; j++) {
		uint64_t h = atomic_load_explicit(&ctl.w[j]->shared.horizon,
						  memory_order_acquire);
		uint32_t met = (uint32_t)(h >> 56);

		for (uint32_t s = met < HGW_FEED_MAX_SESSIONS ? met :
		     HGW_FEED_MAX_SESSIONS; s-- > 0;)
			if (memcmp(ctl.w[j]->met[s].name +
				   HGW_MOLD_SESSION_LEN - 4, tail, 4) == 0) {
				*key = ctl.w[j]->met[s].key;
				found = 0;
				break;
			}
	}
	return found;
}

uint32_t
hgw_ctl_kills(void)
{
	/* acquire: pairs with kill_post's release; the kill event is
	 * queued before the count says so */
	return atomic_load_explicit(&ctl.kills_on, memory_order_acquire);
}

/* Take worker i out of the race (under ctl.lock): the announce word's
 * leave bit, which needs no queue, so it reaches a worker whose queue is
 * full and is never held up behind an event not yet due. The worker
 * takes it at its next batch and sends nothing from then on. */
static void
leave(uint32_t i, enum hgw_leave_reason why, const struct hgw_ckpt *at)
{
	if (ctl.left_mask & (1u << i))
		return;
	atomic_store_explicit(&ctl.w[i]->in.leave_reason, why,
			      memory_order_relaxed);
	/* release: leave_reason happens-before the worker's acquire fence
	 * after it sees the bit */
	atomic_fetch_or_explicit(&ctl.w[i]->in.announce, HGW_ANNOUNCE_LEAVE,
				 memory_order_release);
	ctl.left_mask |= 1u << i;
	ctl.left_reason[i] = why;
	ctl.left_at[i] = *at;
	ctl.left_prev[i] = ctl.cmp_prev_seq;
	if (ctl.log != NULL) {
		fprintf(ctl.log, "# worker %u leaves the race: %s at "
			"checkpoint seq %" PRIu64 "\n", i,
			hgw_leave_reason_name(why), at->seq);
		fflush(ctl.log);
	}
	RTE_LOG(ERR, HGW_CTL, "worker %u leaves the race: %s (checkpoint seq "
		"%" PRIu64 ")\n", i, why == HGW_LEAVE_DIGEST ?
		"its decisions differ from the other replicas'" :
		why == HGW_LEAVE_NO_MAJORITY ?
		"replicas differ and none has a majority" :
		"it takes no events", at->seq);
}

/* Orders a port refused for good (after the sender's retries) never
 * left, but every replica counted them in its position: set the kill
 * switch (under ctl.lock), as for a lost venue session, until an
 * operator clears it. */
static void
refused_check(void)
{
	uint64_t n = 0;
	char err[128];

	for (uint32_t j = 0; j < ctl.n; j++)
		/* relaxed: a count (worker.h) */
		n += atomic_load_explicit(&ctl.w[j]->shared.refused,
					  memory_order_relaxed);
	if (ctl.txl != NULL)
		n += atomic_load_explicit(&ctl.txl->refused,
					  memory_order_relaxed);
	if (n == ctl.refused_seen)
		return;
	ctl.refused_seen = n;
	ctl.kill_gen++;	/* a kill,0 waiting for a recall gives up */
	if (ctl.kill)
		return;
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };

	if (kill_post(&e, err, sizeof(err)) != 0) {
		RTE_LOG(ERR, HGW_CTL, "orders refused by the port, and the "
			"kill switch could not be set: %s\n", err);
		return;
	}
	ctl.refused_kills++;
	RTE_LOG(ERR, HGW_CTL, "orders refused by the port (%" PRIu64 " so "
		"far): trading stops until /hgw/risk/kill,0\n", n);
}

void
hgw_ctl_poll(void)
{
	uint32_t idx[HGW_MAX_WORKERS], m = 0, slow = UINT32_MAX, kept;
	struct hgw_ckpt latest[HGW_MAX_WORKERS], c;
	uint64_t dig[HGW_MAX_WORKERS];
	uint8_t keep[HGW_MAX_WORKERS];

	/* a telemetry thread writing a long patch to the events log holds
	 * the lock: compare next time rather than hold up the journal */
	if (pthread_mutex_trylock(&ctl.lock) != 0)
		return;
	if (ctl.txl != NULL) {
		unsent_post();
		recall_step();
	}
	if (!ctl.closed && ctl.tables != NULL)
		refused_check();
	if (ctl.n < 2 || ctl.w[0]->ckpt_mask == UINT64_MAX) {
		for (uint32_t i = 0; i < ctl.n; i++)
			/* relaxed: a flag, set once */
			if (atomic_load_explicit(&ctl.w[i]->shared.halted,
						 memory_order_relaxed) != 0 &&
			    !(ctl.halt_logged & (1u << i))) {
				ctl.halt_logged |= 1u << i;
				RTE_LOG(ERR, HGW_CTL, "worker %u halted on %s: "
					"it sends nothing more\n", i,
					hgw_halt_name(atomic_load_explicit(
						&ctl.w[i]->shared.halted,
						memory_order_relaxed)));
			}
		goto out;
	}
	for (uint32_t i = 0; i < ctl.n; i++) {
		/* relaxed: a halted replica missed input and says so; it
		 * is out of the vote (it sends nothing anyway) */
		uint32_t h = atomic_load_explicit(&ctl.w[i]->shared.halted,
						  memory_order_relaxed);

		if (h != 0 && !(ctl.halt_logged & (1u << i))) {
			ctl.halt_logged |= 1u << i;
			RTE_LOG(ERR, HGW_CTL, "worker %u halted on %s: it sends "
				"nothing more, the others carry on\n", i,
				hgw_halt_name(h));
		}
		if ((ctl.left_mask & (1u << i)) || worker_dead(i) || h != 0)
			continue;
		/* none yet (or being written): compare the others */
		if (hgw_ckpt_latest(&ctl.w[i]->ckpt, &latest[m]) != 0)
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
	if (c.key == ctl.cmp_key && c.seq == ctl.cmp_seq)
		goto out;	/* compared already */
	for (uint32_t k = 0; k < m; k++) {
		struct hgw_ckpt o;

		/* a replica HGW_CKPT_SLOTS checkpoints ahead has overwritten
		 * it: a later round compares a later one (the digest runs
		 * on, so nothing is missed, only seen later) */
		if (hgw_ckpt_find(&ctl.w[idx[k]]->ckpt, c.key, c.seq, &o) != 0)
			goto out;
		dig[k] = o.digest;
	}
	ctl.cmp_prev_seq = ctl.compares != 0 ? ctl.cmp_seq : 0;
	ctl.compares++;
	ctl.cmp_key = c.key;
	ctl.cmp_seq = c.seq;
	kept = hgw_digest_vote(dig, m, keep);
	if (kept == m)
		goto out;
	for (uint32_t k = 0; k < m; k++)
		if (!keep[k])
			leave(idx[k], kept != 0 ? HGW_LEAVE_DIGEST :
			      HGW_LEAVE_NO_MAJORITY, &c);
out:
	pthread_mutex_unlock(&ctl.lock);
}

void
hgw_ctl_session_lost(void)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char err[128];

	pthread_mutex_lock(&ctl.lock);
	ctl.kill_gen++;	/* a kill,0 waiting for a recall gives up */
	if (ctl.kill) {
		/* on already: another kill event would only fill the
		 * replicas' queues (a burst of bad input posts none) */
		pthread_mutex_unlock(&ctl.lock);
		RTE_LOG(ERR, HGW_CTL, "venue session lost (the kill switch is "
			"on already)\n");
		return;
	}
	if (kill_post(&e, err, sizeof(err)) != 0)
		RTE_LOG(ERR, HGW_CTL, "venue session lost, and the kill "
			"switch could not be set: %s\n", err);
	else
		RTE_LOG(ERR, HGW_CTL, "venue session lost: trading stops "
			"until /hgw/risk/kill,0\n");
	pthread_mutex_unlock(&ctl.lock);
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
hgw_ctl_contradicted(const struct hgw_vgate_lie_rec *l)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char err[128], what[256];
	int rc = 0;

	hgw_ctl_lie_describe(l, what, sizeof(what));
	pthread_mutex_lock(&ctl.lock);
	if (ctl.lies++ == 0)
		ctl.lie = *l;
	ctl.kill_gen++;	/* a kill,0 waiting for a recall gives up */
	if (!ctl.kill)
		rc = kill_post(&e, err, sizeof(err));
	pthread_mutex_unlock(&ctl.lock);
	RTE_LOG(ERR, HGW_CTL, "venue contradicted: %s: kill switch %s, open "
		"orders cancelled, stopping\n", what,
		rc == 0 ? "on" : "NOT set");
	if (rc != 0)
		RTE_LOG(ERR, HGW_CTL, "the kill switch could not be set: %s\n",
			err);
}

int
hgw_ctl_recall_settled(void)
{
	int done;

	pthread_mutex_lock(&ctl.lock);
	done = recall_step();
	pthread_mutex_unlock(&ctl.lock);
	return done;
}

uint64_t
hgw_ctl_contradictions(struct hgw_vgate_lie_rec *first)
{
	uint64_t n;

	pthread_mutex_lock(&ctl.lock);
	n = ctl.lies;
	if (n != 0 && first != NULL)
		*first = ctl.lie;
	pthread_mutex_unlock(&ctl.lock);
	return n;
}

void
hgw_ctl_kill(const char *why)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char err[128];

	pthread_mutex_lock(&ctl.lock);
	if (kill_post(&e, err, sizeof(err)) != 0)
		RTE_LOG(ERR, HGW_CTL, "%s, and the kill switch could not be "
			"set: %s\n", why, err);
	else
		RTE_LOG(ERR, HGW_CTL, "%s: trading stops until "
			"/hgw/risk/kill,0\n", why);
	pthread_mutex_unlock(&ctl.lock);
}

void
hgw_ctl_reopen_log(void)
{
	char name[sizeof(ctl.c->events_log) + 16];
	FILE *f = NULL;

	pthread_mutex_lock(&ctl.lock);
	if (ctl.log == NULL || ctl.closed)
		goto out;
	/* the configured path (free again once rotated), else the next
	 * free name: never an earlier log overwritten */
	for (unsigned int k = 0; k < 100000 && f == NULL; k++) {
		if (hgw_journal_name(ctl.c->events_log, k, name,
				     sizeof(name)) < 0)
			break;
		f = hgw_fcreate(name, 1, 0640);
		if (f == NULL && errno != EEXIST)
			break;
	}
	if (f == NULL) {
		RTE_LOG(ERR, HGW_CTL, "[run] events_log = %s: cannot reopen "
			"(%s); still writing the file open before\n",
			ctl.c->events_log, hgw_fcreate_strerror(errno));
		goto out;
	}
	log_header(f);
	fclose(ctl.log);
	ctl.log = f;
	printf("events log %s: opened\n", name);
	fflush(stdout);
out:
	pthread_mutex_unlock(&ctl.lock);
}

int
hgw_ctl_venue_answer(const struct hgw_ouch_answer *a)
{
	struct hgw_event e = { .type = HGW_EVENT_VENUE, .value = a->seq };
	char err[128];
	int rc;

	e.venue = (struct hgw_event_venue){
		.user_ref = a->user_ref, .orig_user_ref = a->orig_user_ref,
		.qty = a->qty, .type = a->type, .side = a->side,
		.reason = a->reason, .price = a->price };
	pthread_mutex_lock(&ctl.lock);
	rc = post(&e, 0, err, sizeof(err));
	if (rc == 0)
		ctl.venue_posted++;
	else
		ctl.venue_failed++;
	pthread_mutex_unlock(&ctl.lock);
	if (rc != 0)
		RTE_LOG(ERR, HGW_CTL, "venue answer %" PRIu64 " (%c, "
			"UserRefNum %" PRIu32 ") not taken by the replicas: "
			"%s\n", a->seq, a->type, a->user_ref, err);
	return rc;
}

void
hgw_ctl_close(void)
{
	pthread_mutex_lock(&ctl.lock);
	ctl.closed = 1;
	pthread_mutex_unlock(&ctl.lock);
}

uint64_t
hgw_ctl_compared_seq(void)
{
	uint64_t q;

	pthread_mutex_lock(&ctl.lock);
	q = ctl.cmp_seq;
	pthread_mutex_unlock(&ctl.lock);
	return q;
}

uint32_t
hgw_ctl_left(void)
{
	uint32_t m;

	pthread_mutex_lock(&ctl.lock);
	m = ctl.left_mask;
	pthread_mutex_unlock(&ctl.lock);
	return m;
}

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
hgw_ctl_report(FILE *out)
{
	uint64_t first = ctl.next_id > HGW_EV_MAX ? ctl.next_id - HGW_EV_MAX + 1 : 1;
	char buf[160];
	int bad = 0;
	uint32_t shown = 0;

	pthread_mutex_lock(&ctl.lock);
	if (ctl.n > 1 && ctl.tables != NULL)
		fprintf(out, "events: %" PRIu64 " issued; digests compared %"
			PRIu64 " times\n", ctl.next_id, ctl.compares);
	for (uint64_t id = first; id <= ctl.next_id; id++) {
		const struct ev_rec *e = &ctl.rec[id % HGW_EV_MAX];
		uint32_t took = 0, same = 1, racing = 0, missed = 0;
		const struct hgw_ev_at *a0 = NULL;

		for (uint32_t i = 0; i < ctl.n; i++) {
			const struct hgw_worker *w = ctl.w[i];
			const struct hgw_ev_at *a = &w->ev_at[id % HGW_EV_MAX];

			if (!(e->targets & (1u << i)) ||
			    (ctl.left_mask & (1u << i)) || worker_dead(i) ||
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
			describe_rec(e, buf, sizeof(buf));
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
	for (uint32_t i = 0; i < ctl.n; i++) {
		const struct hgw_worker *w = ctl.w[i];

		if (!(ctl.left_mask & (1u << i)))
			continue;
		bad = 1;
		fprintf(out, "worker %u LEFT THE RACE: %s at checkpoint seq %"
			PRIu64 " (digest %016" PRIx64 ", compared before at "
			"seq %" PRIu64 "); it sent nothing from "
			"seq %" PRIu64 " on\n", i,
			ctl.left_reason[i] == HGW_LEAVE_DIGEST ?
			"its decisions differ from the majority's" :
			ctl.left_reason[i] == HGW_LEAVE_NO_MAJORITY ?
			"replicas differ and none has a majority" :
			"it took no events (its queue was full)",
			ctl.left_at[i].seq, ctl.left_at[i].digest,
			ctl.left_prev[i], w->left ? w->left_seq : 0);
	}
	if (ctl.txl != NULL && (ctl.txl->recalled_n != 0 ||
				ctl.txl->recalled_lost != 0)) {
		unsigned int left = rte_ring_count(ctl.txl->recalled);

		fprintf(out, "kill switch: %" PRIu64 " orders recalled from "
			"the TX lcore's queues before they left; %" PRIu64
			" taken back out of every replica's position%s\n",
			ctl.txl->recalled_n, ctl.unsent_posted,
			left != 0 || ctl.txl->recalled_lost != 0 ?
			" (SOME NOT: the run stopped first)" : "");
		if (left != 0 || ctl.txl->recalled_lost != 0)
			bad = 1;
	}
	if (ctl.refused_kills != 0)
		fprintf(out, "kill switch: set %" PRIu64 " times because the "
			"port refused orders\n", ctl.refused_kills);
	if (ctl.recall_waits != 0)
		fprintf(out, "kill switch: turned off %" PRIu64 " times after "
			"waiting for its recall to end (at most %" PRIu64
			" us)\n",
			ctl.recall_waits, ctl.recall_wait_max_us);
	if (ctl.venue_posted != 0 || ctl.venue_failed != 0) {
		fprintf(out, "venue: %" PRIu64 " answers taken by the replicas "
			"as events", ctl.venue_posted);
		if (ctl.venue_failed != 0) {
			fprintf(out, "; %" PRIu64 " NOT (no replica was "
				"racing)", ctl.venue_failed);
			bad = 1;
		}
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < ctl.n; i++)
		if (ctl.w[i]->unsent_missing != 0) {
			fprintf(out, "worker %u: %" PRIu64 " recalled orders not "
				"among its last %u decisions\n", i,
				ctl.w[i]->unsent_missing, HGW_PASSED_MAX);
			bad = 1;
		}
	for (uint32_t i = 0; i < ctl.n; i++)
		if (ctl.w[i]->ev_waits != 0)
			fprintf(out, "worker %u waited for an event's position "
				"%" PRIu64 " times (longest %.1f us)\n", i,
				ctl.w[i]->ev_waits, (double)ctl.w[i]->ev_wait_max *
				1e6 / (double)rte_get_tsc_hz());
	pthread_mutex_unlock(&ctl.lock);
	return bad ? -1 : 0;
}

void
hgw_ctl_fini(void)
{
	pthread_mutex_lock(&ctl.lock);
	ctl.closed = 1;
	ctl.tables = NULL;
	for (uint32_t i = 0; i < ctl.npatches; i++)
		hgw_table_patch_free(ctl.patches[i].p);
	ctl.npatches = 0;
	if (ctl.log != NULL)
		fclose(ctl.log);
	ctl.log = NULL;
	pthread_mutex_unlock(&ctl.lock);
	for (uint32_t i = 0; i < ctl.n; i++) {
		rte_ring_free(ctl.w[i]->ev_ring);
		ctl.w[i]->ev_ring = NULL;
	}
	if (ctl.txl != NULL) {
		rte_ring_free(ctl.txl->recalled);
		ctl.txl->recalled = NULL;
	}
	/* the workers are freed next: /hgw/replicas reads none of them */
	pthread_mutex_lock(&ctl.lock);
	ctl.n = 0;
	ctl.txl = NULL;
	pthread_mutex_unlock(&ctl.lock);
}

int
hgw_ctl_kill_op(int set, struct hgw_kill_answer *a)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = set == 1 };
	int rc = 0;

	memset(a, 0, sizeof(*a));
	pthread_mutex_lock(&ctl.lock);
	/* the control lcore's own loop: never held up here. On already
	 * is read back (no event, no sweep); off waits for no recall */
	if (set == 1 && ctl.kill)
		set = -1;
	if (set == 0 && !recall_step()) {
		snprintf(a->err, sizeof(a->err), "kept on: its recall has not "
			 "ended yet (ask again)");
		rc = -1;
		set = -2;
	}
	if (set >= 0)
		rc = kill_post(&e, a->err, sizeof(a->err));
	a->kill = ctl.kill;
	a->contradictions = ctl.lies;
	if (rc == 0 && set >= 0) {
		a->event = e.id;
		a->seq = e.seq;
		memcpy(a->session, ctl.rec[e.id % HGW_EV_MAX].name,
		       HGW_MOLD_SESSION_LEN);
		for (int i = 0; i < HGW_MOLD_SESSION_LEN; i++)
			if (a->session[i] < 0x20 || a->session[i] > 0x7e)
				a->session[i] = '.';
		if (e.key == 0)
			snprintf(a->session, sizeof(a->session), "-");
	}
	pthread_mutex_unlock(&ctl.lock);
	return rc;
}
