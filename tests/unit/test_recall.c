/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the kill switch's recall in tx-lcore mode
 * (app/hedgewire/control_recall.c, docs/design.md "Control events"),
 * through the control plane as hgw_ctl_init sets it up (control.c: the
 * workers' event queues, the recalled ring). The TX lcore is told to end
 * a recall only once a racing replica has handed over every order
 * decided before the kill's position (a replica out of the race never
 * vouches; before the first message nothing is decided); every order it
 * took off becomes one UNSENT event, at one position, on every racing
 * replica's queue, as far as the queues have room; the recall is done
 * only when none is left; and a kill,0 waits for that, gives up after a
 * second, or when the kill switch is set again meanwhile. The test plays
 * the workers (the positions and sessions they publish, the events they
 * take) and the TX lcore (recall_end seen, the recalled ring filled,
 * recall_ended), on real structs and rings; a second thread does what
 * happens while a kill,0 waits with the lock released. EAL in memory, no
 * huge pages.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "hgw_test.h"
#include "control.h"
#include "control_int.h"

#define NW 2	/* replicas */

static struct hgw_ctl *ct;
static struct hgw_worker *wk[NW];
static struct hgw_txlcore *txl;
static struct hgw_config conf;

/* The feed's sessions. Both workers meet S1 and S2 as their sessions 0
 * and 1; worker 1 then meets S3, worker 0 has written S4 as its session
 * 2 but published no position in it. */
static const char sname[4][HGW_MOLD_SESSION_LEN + 1] = {
	"RECALL0001", "RECALL0002", "RECALL0003", "RECALL0004",
};

/* What a worker took off its event queue (a whole queue fits). */
static struct hgw_event evbuf[EV_RING];

static uint64_t
skey(int k)
{
	return hgw_feed_session_key(sname[k]);
}

/* Worker j meets session k as its session s: the entry is written
 * before any position naming s is published (worker.h, met). */
static void
meet(uint32_t j, uint32_t s, int k)
{
	wk[j]->met[s].key = skey(k);
	memcpy(wk[j]->met[s].name, sname[k], HGW_POS_NAME_LEN);
}

/* Worker j is about to evaluate its batch up to message seq of its
 * session s (what the control plane places events past). */
static void
horizon(uint32_t j, uint32_t s, uint64_t seq)
{
	atomic_store_explicit(&wk[j]->shared.horizon, hgw_pos_word(s, seq),
			      memory_order_release);
}

/* Worker j's orders up to message seq of its session s are all on its
 * handoff ring. */
static void
handed(uint32_t j, uint32_t s, uint64_t seq)
{
	atomic_store_explicit(&wk[j]->shared.handed, hgw_pos_word(s, seq),
			      memory_order_release);
}

/* Worker j takes every event queued for it, in order, as its loop does
 * (ev_at records where, here the event's position; ev_taken names the
 * last it applied); the first max go to ev. */
static unsigned int
take(uint32_t j, struct hgw_event *ev, unsigned int max)
{
	struct hgw_event e;
	unsigned int n = 0;

	while (rte_ring_sc_dequeue_elem(wk[j]->ev_ring, &e, sizeof(e)) == 0) {
		if (n < max)
			ev[n] = e;
		n++;
		wk[j]->ev_at[e.id % HGW_EV_MAX] =
			(struct hgw_ev_at){ e.id, e.key, e.seq };
		atomic_store_explicit(&wk[j]->shared.ev_taken, e.id,
				      memory_order_release);
	}
	return n;
}

static void
take_all(void)
{
	for (uint32_t j = 0; j < NW; j++)
		take(j, NULL, 0);
}

/* Workers out of the race as the control plane records them (left_mask,
 * what a recall reads); 0 puts them back for the tests that follow. */
static void
set_left(uint32_t mask)
{
	pthread_mutex_lock(&ct->lock);
	ct->left_mask = mask;
	pthread_mutex_unlock(&ct->lock);
}

/* The kill switch goes on as /hgw/risk/kill,1 sets it: one kill event
 * at one position for every racing replica (who take it), and a recall
 * of the TX lcore. Returns the event, with its position. */
static struct hgw_event
kill_on(void)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char err[128];
	int rc;

	pthread_mutex_lock(&ct->lock);
	rc = ctl_kill_post(ct, &e, err, sizeof(err));
	pthread_mutex_unlock(&ct->lock);
	if (rc != 0)
		printf("# %s\n", err);
	HGW_CHECK_EQ(rc, 0);
	take_all();
	return e;
}

/* One step of the recall, as the control lcore polls it. */
static int
step(void)
{
	return hgw_ctl_recall_settled(ct);
}

/* What a kill,0's wait for the recall gave: its result and error, how
 * long it took (TSC), and whether the lock was still held when it
 * returned. */
struct waited {
	int rc;
	int held;
	uint64_t cycles;
	char err[128];
};

static atomic_int wait_over;	/* the wait has returned */
static int wait_kill0;	/* wait_recall waits in a whole kill,0 */

/* A kill,0's wait for the recall, lock held as ctl_kill_post calls it.
 * fn (when not NULL) runs on a thread of its own, started with the lock
 * held: it can take the lock only once the wait has released it. */
static struct waited
wait_recall(void *(*fn)(void *), void *arg)
{
	struct waited w = { .rc = -2, .err = "" };
	pthread_t t;
	uint64_t t0;

	atomic_store(&wait_over, 0);
	pthread_mutex_lock(&ct->lock);
	if (fn != NULL && pthread_create(&t, NULL, fn, arg) != 0) {
		pthread_mutex_unlock(&ct->lock);
		snprintf(w.err, sizeof(w.err), "no thread");
		return w;
	}
	t0 = rte_get_timer_cycles();
	if (wait_kill0) {
		struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 0 };

		w.rc = ctl_kill_post(ct, &e, w.err, sizeof(w.err));
	} else {
		w.rc = ctl_recall_wait(ct, w.err, sizeof(w.err));
	}
	w.cycles = rte_get_timer_cycles() - t0;
	w.held = pthread_mutex_trylock(&ct->lock) == EBUSY;
	atomic_store(&wait_over, 1);
	pthread_mutex_unlock(&ct->lock);
	if (fn != NULL)
		pthread_join(t, NULL);
	if (w.err[0] != '\0')
		printf("# %s\n", w.err);
	return w;
}

/* The TX lcore's side (worker_txlcore.c): the recall it was told to
 * end; an order it took off; and the end of a recall it saw (every
 * order it took off on the ring before). */
static uint32_t
told(void)
{
	return atomic_load_explicit(&txl->recall_end, memory_order_acquire);
}

static int
tx_recalled(uint64_t key, uint64_t seq)
{
	struct hgw_recalled rc = { key, seq };

	return rte_ring_sp_enqueue_elem(txl->recalled, &rc, sizeof(rc));
}

static void
tx_end(uint32_t seen)
{
	atomic_store_explicit(&txl->recall_ended, seen, memory_order_release);
}

static unsigned int
recalled_left(void)
{
	return rte_ring_count(txl->recalled);
}

/* One UNSENT event as every replica must take it. */
static int
is_unsent(const struct hgw_event *e, uint64_t tkey, uint64_t seq,
	  const char *name)
{
	return e->type == HGW_EVENT_UNSENT && e->tkey == tkey &&
	       e->value == seq &&
	       memcmp(e->symbol, name, HGW_MOLD_SESSION_LEN) == 0;
}

/* Before any worker published a position the kill is at the start:
 * nothing was decided before it, so any racing replica vouches at once,
 * having handed nothing; one out of the race does not even then. */
static void
test_key_zero(void)
{
	struct hgw_event e;

	HGW_CHECK_EQ(step(), 1);	/* none wanted yet */
	e = kill_on();
	HGW_CHECK_EQ(e.key, 0);
	HGW_CHECK_EQ(e.seq, 0);
	HGW_CHECK_EQ(ct->recall_want, 1);
	HGW_CHECK_EQ(ct->recall_key, 0);
	HGW_CHECK_EQ(atomic_load(&txl->recall), 1);
	set_left(3);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), 0);
	HGW_CHECK_EQ(ct->recall_told, 0);
	set_left(2);
	HGW_CHECK_EQ(step(), 0);	/* the TX lcore has not ended it */
	HGW_CHECK_EQ(told(), 1);
	HGW_CHECK_EQ(ct->recall_told, 1);
	set_left(0);
	tx_end(1);
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(ct->recall_done, 1);
	HGW_CHECK_EQ(take(0, evbuf, 1) + take(1, evbuf, 1), 0);
}

/* No recall to finish: the last one done, no TX lcore (a kill starts
 * none; after the TX lcore is gone), or the control plane closed (what
 * is on the recalled ring stays there). */
static void
test_none_wanted(void)
{
	uint64_t waits = ct->recall_waits;
	uint32_t want = ct->recall_want;
	struct waited w;

	HGW_CHECK_EQ(ct->recall_done, want);
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(told(), want);
	w = wait_recall(NULL, NULL);
	HGW_CHECK_EQ(w.rc, 0);
	HGW_CHECK(w.held);
	HGW_CHECK_EQ(ct->recall_waits, waits);	/* it did not wait */

	/* no TX lcore: a kill recalls nothing */
	for (uint32_t j = 0; j < NW; j++) {
		meet(j, 0, 0);
		horizon(j, 0, 10);
	}
	pthread_mutex_lock(&ct->lock);
	ct->txl = NULL;
	pthread_mutex_unlock(&ct->lock);
	(void)kill_on();
	HGW_CHECK_EQ(ct->recall_want, want);
	HGW_CHECK_EQ(atomic_load(&txl->recall), want);
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(wait_recall(NULL, NULL).rc, 0);

	/* a recall wanted, and then no TX lcore (hgw_ctl_fini) */
	pthread_mutex_lock(&ct->lock);
	ct->txl = txl;
	pthread_mutex_unlock(&ct->lock);
	(void)kill_on();
	HGW_CHECK_EQ(ct->recall_want, want + 1);
	pthread_mutex_lock(&ct->lock);
	ct->txl = NULL;
	pthread_mutex_unlock(&ct->lock);
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(wait_recall(NULL, NULL).rc, 0);
	pthread_mutex_lock(&ct->lock);
	ct->txl = txl;
	pthread_mutex_unlock(&ct->lock);
	HGW_CHECK_EQ(step(), 0);

	/* closed: a racing replica has handed everything and the TX
	 * lcore took one order off, but nothing is told or posted */
	handed(1, 0, 10);
	HGW_CHECK_EQ(tx_recalled(skey(0), 5), 0);
	hgw_ctl_close(ct);
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(told(), want);
	HGW_CHECK_EQ(wait_recall(NULL, NULL).rc, 0);
	pthread_mutex_lock(&ct->lock);
	ctl_unsent_post(ct);
	pthread_mutex_unlock(&ct->lock);
	HGW_CHECK_EQ(recalled_left(), 1);
	HGW_CHECK_EQ(take(0, evbuf, 1) + take(1, evbuf, 1), 0);
	HGW_CHECK_EQ(ct->recall_waits, waits);

	/* open again: the recall ends as it would have */
	pthread_mutex_lock(&ct->lock);
	ct->closed = 0;
	pthread_mutex_unlock(&ct->lock);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), want + 1);
	tx_end(want + 1);
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(recalled_left(), 0);
	HGW_CHECK_EQ(take(0, evbuf, 1), 1);
	HGW_CHECK(is_unsent(&evbuf[0], skey(0), 5, sname[0]));
	HGW_CHECK_EQ(take(1, evbuf, 1), 1);
}

/* The TX lcore is told to end a recall once a racing replica has handed
 * the orders of every message before the kill's position: up to the one
 * just before it (seq - 1), not one short. One out of the race may have
 * decided otherwise, however far it handed. A later kill's position is
 * the one to reach. */
static void
test_release_waits_for_handed(void)
{
	uint32_t want, prev = told();
	struct hgw_event e;

	horizon(0, 0, 99);
	horizon(1, 0, 99);
	e = kill_on();
	want = ct->recall_want;
	HGW_CHECK_EQ(e.key, skey(0));
	HGW_CHECK_EQ(e.seq, 100);
	HGW_CHECK_EQ(ct->recall_key, skey(0));
	HGW_CHECK_EQ(ct->recall_seq, 100);
	handed(0, 0, 98);
	handed(1, 0, 98);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), prev);
	HGW_CHECK(ct->recall_told != want);
	/* worker 0 leaves the race and runs on */
	set_left(1);
	horizon(0, 0, 150);
	handed(0, 0, 150);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), prev);
	/* worker 1 has handed message 99's orders */
	handed(1, 0, 99);
	HGW_CHECK_EQ(step(), 0);	/* the TX lcore has not ended it */
	HGW_CHECK_EQ(told(), want);
	HGW_CHECK_EQ(ct->recall_told, want);
	set_left(0);

	/* a second kill before the first recall ended */
	horizon(1, 0, 199);
	e = kill_on();
	HGW_CHECK_EQ(e.seq, 200);
	HGW_CHECK_EQ(ct->recall_want, want + 1);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), want);
	tx_end(want);	/* it had not seen the second kill yet */
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK(ct->recall_done != want + 1);
	handed(1, 0, 198);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), want);
	handed(1, 0, 199);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), want + 1);
	tx_end(want + 1);
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(ct->recall_done, want + 1);
}

/* Positions across sessions, in the order each worker met them: a
 * worker that handed into a later session has handed all of an earlier
 * one; one still in an earlier session, however far into it, has not
 * reached a session it has not met. */
static void
test_release_across_sessions(void)
{
	struct hgw_event e;
	uint32_t want;

	horizon(0, 0, 599);
	horizon(1, 0, 599);
	e = kill_on();
	want = ct->recall_want;
	HGW_CHECK_EQ(e.key, skey(0));
	HGW_CHECK_EQ(e.seq, 600);
	handed(0, 0, 598);
	handed(1, 0, 598);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK(told() != want);
	/* worker 1 ended S1 at 599 and is in S2 */
	meet(1, 1, 1);
	horizon(1, 1, 49);
	handed(1, 1, 1);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), want);
	tx_end(want);
	HGW_CHECK_EQ(step(), 1);

	/* the next kill is in S2; worker 0, still in S1, has not met it */
	e = kill_on();
	want = ct->recall_want;
	HGW_CHECK_EQ(e.key, skey(1));
	HGW_CHECK_EQ(e.seq, 50);
	horizon(0, 0, 10000);
	handed(0, 0, 10000);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK(told() != want);
	meet(0, 1, 1);
	horizon(0, 1, 49);
	handed(0, 1, 48);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK(told() != want);
	handed(0, 1, 49);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), want);
	tx_end(want);
	HGW_CHECK_EQ(step(), 1);
}

/* Until the TX lcore says the recall ended, nothing it took off is
 * posted. Then each order becomes one UNSENT event (the trigger's
 * session key and sequence number, the session's name from what a
 * worker published, blank if none did), the same on every replica's
 * queue at one position, in the order taken. */
static void
test_unsent_posted(void)
{
	static const struct { int k; uint64_t seq; } order[] = {
		{ 1, 40 },	/* S2: both workers met it */
		{ 2, 3 },	/* S3: worker 1 only */
		{ 3, 7 },	/* S4: written by worker 0, not published */
		{ -1, 9 },	/* a key no worker met */
	};
	struct hgw_event ev1[8];
	uint64_t posted = ct->unsent_posted;
	uint64_t key[RTE_DIM(order)];
	struct hgw_event e;
	uint32_t want;

	meet(1, 2, 2);
	horizon(1, 2, 5);
	meet(0, 2, 3);
	e = kill_on();
	want = ct->recall_want;
	HGW_CHECK_EQ(e.key, skey(2));
	HGW_CHECK_EQ(e.seq, 6);
	handed(1, 2, 5);
	for (unsigned int i = 0; i < RTE_DIM(order); i++) {
		key[i] = order[i].k >= 0 ? skey(order[i].k) :
			 hgw_feed_session_key("NOSUCHNAME");
		HGW_CHECK_EQ(tx_recalled(key[i], order[i].seq), 0);
	}
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), want);
	HGW_CHECK_EQ(recalled_left(), RTE_DIM(order));
	HGW_CHECK_EQ(take(0, evbuf, 1) + take(1, evbuf, 1), 0);
	HGW_CHECK_EQ(ct->unsent_posted, posted);

	tx_end(want);
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(ct->recall_done, want);
	HGW_CHECK_EQ(recalled_left(), 0);
	HGW_CHECK_EQ(ct->unsent_posted, posted + RTE_DIM(order));
	HGW_CHECK_EQ(take(0, evbuf, 8), RTE_DIM(order));
	HGW_CHECK_EQ(take(1, ev1, 8), RTE_DIM(order));
	for (unsigned int i = 0; i < RTE_DIM(order); i++) {
		const char *name = order[i].k == 1 ? sname[1] :
				   order[i].k == 2 ? sname[2] : "          ";

		HGW_CHECK(memcmp(&evbuf[i], &ev1[i], sizeof(ev1[i])) == 0);
		HGW_CHECK(is_unsent(&evbuf[i], key[i], order[i].seq, name));
		HGW_CHECK_EQ(evbuf[i].id, evbuf[0].id + i);
		HGW_CHECK_EQ(evbuf[i].key, skey(2));
		HGW_CHECK_EQ(evbuf[i].seq, 6);
	}
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(told(), want);
}

/* The bulk posters leave EV_RESERVE slots of every queue to the kill
 * switch: with room for two, two orders are posted and the rest stay on
 * the recalled ring, the recall not done, until the workers have taken
 * enough; then the rest go, in order. */
static void
test_full_queue(void)
{
	struct hgw_ouch_answer a = { .type = 'A', .side = 'B', .qty = 100,
				     .price = 10000 };
	uint64_t venue = ct->venue_posted;
	unsigned int room, n[NW];
	uint32_t want;

	horizon(1, 2, 20);
	(void)kill_on();
	want = ct->recall_want;
	handed(1, 2, 20);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(told(), want);
	/* venue answers, as the TX lcore's session hands them over */
	while ((room = hgw_ctl_event_room(ct)) > 2) {
		a.seq++;
		a.user_ref = (uint32_t)a.seq;
		if (hgw_ctl_venue_answer(ct, &a) != 0)
			break;
	}
	HGW_CHECK_EQ(room, 2);
	HGW_CHECK_EQ(ct->venue_posted, venue + a.seq);
	for (uint64_t k = 1; k <= 5; k++)
		HGW_CHECK_EQ(tx_recalled(skey(2), 100 + k), 0);
	tx_end(want);
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(recalled_left(), 3);
	HGW_CHECK(ct->recall_done != want);
	HGW_CHECK_EQ(hgw_ctl_event_room(ct), 0);
	for (uint32_t j = 0; j < NW; j++)
		HGW_CHECK_EQ(rte_ring_free_count(wk[j]->ev_ring), EV_RESERVE);
	HGW_CHECK_EQ(ct->left_mask, 0);	/* no queue was full */
	/* still no room: nothing moves */
	HGW_CHECK_EQ(step(), 0);
	HGW_CHECK_EQ(recalled_left(), 3);

	for (uint32_t j = 0; j < NW; j++) {
		n[j] = take(j, evbuf, RTE_DIM(evbuf));
		HGW_CHECK_EQ(n[j], a.seq + 2);
		HGW_CHECK(n[j] >= 2 &&
			  is_unsent(&evbuf[n[j] - 2], skey(2), 101, sname[2]) &&
			  is_unsent(&evbuf[n[j] - 1], skey(2), 102, sname[2]));
	}
	HGW_CHECK_EQ(step(), 1);
	HGW_CHECK_EQ(ct->recall_done, want);
	HGW_CHECK_EQ(recalled_left(), 0);
	for (uint32_t j = 0; j < NW; j++) {
		HGW_CHECK_EQ(take(j, evbuf, RTE_DIM(evbuf)), 3);
		for (uint64_t k = 0; k < 3; k++)
			HGW_CHECK(is_unsent(&evbuf[k], skey(2), 103 + k,
					    sname[2]));
	}
}

/* While a kill,0 waits (lock released): the fastest worker finishes its
 * batch, then the TX lcore, told, takes two orders off and ends. */
struct ends_arg {
	uint32_t want;
	int fail;
};

/* On a thread beside a wait for the recall: once the wait has released
 * the lock, worker 1 hands its orders up to (its session 2, seq); then
 * the TX lcore waits to be told to end the recall. 0 when told; 1 (and
 * arg->fail) when the wait returned first. */
static int
told_after_handed(struct ends_arg *arg, uint64_t seq)
{
	/* free only while ctl_recall_wait sleeps: it is waiting */
	pthread_mutex_lock(&ct->lock);
	pthread_mutex_unlock(&ct->lock);
	handed(1, 2, seq);
	while (told() != arg->want) {
		if (atomic_load(&wait_over)) {
			arg->fail = 1;	/* never told */
			return 1;
		}
		rte_pause();
	}
	return 0;
}

static void *
fastest_then_tx(void *p)
{
	struct ends_arg *arg = p;

	if (told_after_handed(arg, 30) != 0)
		return NULL;
	arg->fail = tx_recalled(skey(2), 29) != 0 ||
		    tx_recalled(skey(2), 30) != 0;
	tx_end(arg->want);
	return NULL;
}

static void
test_wait_ends(void)
{
	struct ends_arg arg = { 0, 0 };
	uint64_t waits = ct->recall_waits, us;
	struct waited w;

	horizon(1, 2, 30);
	(void)kill_on();
	arg.want = ct->recall_want;
	handed(1, 2, 29);
	w = wait_recall(fastest_then_tx, &arg);
	us = w.cycles * 1000000 / rte_get_timer_hz();
	HGW_CHECK_EQ(w.rc, 0);
	HGW_CHECK(w.held);
	HGW_CHECK_EQ(arg.fail, 0);
	HGW_CHECK_EQ(ct->recall_done, arg.want);
	HGW_CHECK_EQ(recalled_left(), 0);
	HGW_CHECK_EQ(ct->recall_waits, waits + 1);
	HGW_CHECK(ct->recall_wait_max_us > 0 && ct->recall_wait_max_us <= us);
	printf("# waited %" PRIu64 " us\n", ct->recall_wait_max_us);
	for (uint32_t j = 0; j < NW; j++) {
		HGW_CHECK_EQ(take(j, evbuf, 2), 2);
		HGW_CHECK(is_unsent(&evbuf[0], skey(2), 29, sname[2]) &&
			  is_unsent(&evbuf[1], skey(2), 30, sname[2]));
	}
}

/* No racing replica reaches the kill's position (handed one short) in a
 * second: kept on, saying so. Then one did, but the TX lcore never says
 * the recall ended: kept on, saying that. */
static void
test_wait_times_out(void)
{
	uint64_t waits = ct->recall_waits, max = ct->recall_wait_max_us;
	uint64_t hz = rte_get_timer_hz();
	struct waited w;
	uint32_t want;

	horizon(1, 2, 40);
	(void)kill_on();
	want = ct->recall_want;
	handed(1, 2, 39);
	w = wait_recall(NULL, NULL);
	HGW_CHECK_EQ(w.rc, -1);
	HGW_CHECK(strstr(w.err, "has not ended in 1 s") != NULL);
	HGW_CHECK(strstr(w.err, "no racing replica reached its position") !=
		  NULL);
	HGW_CHECK(w.cycles >= hz);
	HGW_CHECK(w.held);
	HGW_CHECK(told() != want);

	handed(1, 2, 40);
	w = wait_recall(NULL, NULL);
	HGW_CHECK_EQ(w.rc, -1);
	HGW_CHECK(strstr(w.err, "has not ended in 1 s") != NULL);
	HGW_CHECK(strstr(w.err, "the orders it took are not all posted") !=
		  NULL);
	HGW_CHECK(w.cycles >= hz);
	HGW_CHECK(w.held);
	HGW_CHECK_EQ(told(), want);
	HGW_CHECK_EQ(ct->recall_waits, waits);
	HGW_CHECK_EQ(ct->recall_wait_max_us, max);

	tx_end(want);
	HGW_CHECK_EQ(step(), 1);
}

/* The venue session is lost while a kill,0 waits (lock released): that
 * later stop is not undone by the earlier request. */
static void *
session_lost(void *p)
{
	RTE_SET_USED(p);
	hgw_ctl_session_lost(ct);
	return NULL;
}

static void
test_wait_set_again(void)
{
	uint64_t waits = ct->recall_waits;
	struct waited w;
	uint32_t gen, want;

	horizon(1, 2, 50);
	(void)kill_on();
	want = ct->recall_want;
	gen = ct->kill_gen;
	handed(1, 2, 49);
	w = wait_recall(session_lost, NULL);
	HGW_CHECK_EQ(w.rc, -1);
	HGW_CHECK(strstr(w.err, "set again") != NULL);
	HGW_CHECK(w.held);
	HGW_CHECK_EQ(ct->kill_gen, gen + 1);
	HGW_CHECK_EQ(ct->kill, 1);
	HGW_CHECK_EQ(ct->recall_waits, waits);
	HGW_CHECK(told() != want);

	handed(1, 2, 50);
	HGW_CHECK_EQ(step(), 0);
	tx_end(want);
	HGW_CHECK_EQ(step(), 1);
}

/* A kill switch request as /hgw/risk/kill,N makes it: 0, or -1 with
 * err. */
static int
kill_set(int on, char *err, size_t errlen)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = (uint8_t)on };
	int rc;

	pthread_mutex_lock(&ct->lock);
	rc = ctl_kill_post(ct, &e, err, errlen);
	pthread_mutex_unlock(&ct->lock);
	take_all();
	return rc;
}

/* The control plane's part of the summary: whether it fails the run,
 * and whether its text holds what. */
static void
summary(int bad, const char *what)
{
	char *sum = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sum, &len);
	int rc;

	HGW_CHECK(f != NULL);
	if (f == NULL)
		return;
	rc = hgw_ctl_report(ct, f);
	fclose(f);
	HGW_CHECK_EQ(rc != 0, bad);
	HGW_CHECK_EQ(strstr(sum, what) != NULL, bad);
	if ((rc != 0) != bad)
		printf("# %s", sum);
	free(sum);
}

/* The TX lcore loses an order it recalled (the recalled ring full)
 * while a kill,0 waits for the recall to end. */
static void *
tx_loses_one(void *p)
{
	struct ends_arg *arg = p;

	if (told_after_handed(arg, 61) != 0)
		return NULL;
	atomic_fetch_add_explicit(&txl->unsent_lost, 1, memory_order_relaxed);
	tx_end(arg->want);
	return NULL;
}

/* Orders handed back as unsent that never reached the replicas (the
 * recalled ring was full): every replica still counts them. A kill,0
 * waiting for the recall in which one is lost is refused, saying why;
 * so is every later one; the control plane's poll sets the kill switch
 * when it finds one lost while the switch is off; and the summary fails
 * the run. */
static void
test_unsent_lost(void)
{
	struct ends_arg arg = { 0, 0 };
	char err[256];
	struct waited w;

	HGW_CHECK_EQ(kill_set(0, err, sizeof(err)), 0);
	summary(0, "handed back as unsent were NOT");
	/* lost during the recall a kill,0 waits for */
	horizon(1, 2, 61);
	(void)kill_on();
	arg.want = ct->recall_want;
	wait_kill0 = 1;
	w = wait_recall(tx_loses_one, &arg);
	wait_kill0 = 0;
	take_all();
	HGW_CHECK_EQ(arg.fail, 0);
	HGW_CHECK_EQ(w.rc, -1);
	HGW_CHECK(strstr(w.err, "kept on: 1 orders handed back as unsent") !=
		  NULL);
	HGW_CHECK(strstr(w.err, "position is uncertain") != NULL);
	HGW_CHECK_EQ(ct->kill, 1);
	summary(1, "1 orders handed back as unsent were NOT taken out");
	/* and for the rest of the run */
	hgw_ctl_poll(ct);
	HGW_CHECK_EQ(ct->kill, 1);
	HGW_CHECK_EQ(kill_set(0, err, sizeof(err)), -1);
	HGW_CHECK(strstr(err, "kept on: 1 orders handed back") != NULL);
	/* found by the poll while the switch is off: set */
	pthread_mutex_lock(&ct->lock);
	ct->kill = 0;	/* as if lost while it was off */
	pthread_mutex_unlock(&ct->lock);
	atomic_fetch_add_explicit(&txl->unsent_lost, 1, memory_order_relaxed);
	hgw_ctl_poll(ct);
	take_all();
	HGW_CHECK_EQ(ct->kill, 1);
	tx_end(ct->recall_want);	/* its recall, with nothing on the rings */
	HGW_CHECK_EQ(kill_set(0, err, sizeof(err)), -1);
	HGW_CHECK(strstr(err, "kept on: 2 orders handed back") != NULL);
	summary(1, "2 orders handed back as unsent were NOT taken out");
}

int
main(void)
{
	char *eal[] = { "test_recall", "--no-huge", "--no-pci",
			"--no-shconf", "-m", "64", "-l", "0",
			"--log-level=error", "--no-telemetry" };
	struct hgw_table_set *tables;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("Bail out! EAL init failed\n");
		return 1;
	}
	/* the control plane's log lines (a lost session, ...) are not TAP */
	rte_openlog_stream(stderr);
	hgw_config_defaults(&conf);
	/* the control plane takes events only while trading (a table set);
	 * what the replicas hold is the workers' business */
	tables = rte_zmalloc("test_recall", sizeof(*tables), 0);
	txl = rte_zmalloc("test_recall", sizeof(*txl), RTE_CACHE_LINE_SIZE);
	for (uint32_t j = 0; j < NW; j++)
		wk[j] = rte_zmalloc("test_recall", sizeof(*wk[j]),
				    RTE_CACHE_LINE_SIZE);
	if (tables == NULL || txl == NULL || wk[0] == NULL || wk[1] == NULL) {
		printf("Bail out! no memory\n");
		return 1;
	}
	/* its line on how positions are chosen, as a TAP comment */
	printf("# ");
	ct = hgw_ctl_init(wk, NW, &conf, tables, txl);
	HGW_TEST(test_key_zero);
	HGW_TEST(test_none_wanted);
	HGW_TEST(test_release_waits_for_handed);
	HGW_TEST(test_release_across_sessions);
	HGW_TEST(test_unsent_posted);
	HGW_TEST(test_full_queue);
	HGW_TEST(test_wait_ends);
	HGW_TEST(test_wait_times_out);
	HGW_TEST(test_wait_set_again);
	HGW_TEST(test_unsent_lost);	/* last: the kill switch stays on */
	hgw_ctl_fini(ct);
	for (uint32_t j = 0; j < NW; j++)
		rte_free(wk[j]);
	rte_free(txl);
	rte_free(tables);
	rte_eal_cleanup();
	return hgw_test_done();
}
