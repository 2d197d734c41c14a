/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: live counters and latency over rte_telemetry.
 *
 *   /hgw/stats    feed and order totals
 *   /hgw/workers  per worker: frames, orders, races, misses, percentiles
 *   /hgw/latency  the sent orders' latency: percentiles, misses, win rates
 *
 * and, every [run] stats_interval_ms, one stats record through rte_log
 * (logtype hgw.stats), written by the control lcore from the same
 * snapshots.
 *
 * Read with Debian's dpdk-telemetry.py -f FILE_PREFIX. Each command runs
 * on a telemetry thread. While the workers run, it never reads their
 * counters: it asks each worker (and the TX lcore) for a snapshot
 * (struct hgw_snap_ctl, worker.h), which the worker copies between two
 * bursts; after the workers have been joined it reads them directly.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_telemetry.h>

#include "hgw_cli.h"
#include "stats_tel.h"

/* The telemetry of one run (hgw_stats_tel_init). */
struct hgw_stats_tel {
	struct hgw_worker *const *w;
	uint32_t n;
	struct hgw_txlcore *txl;
	uint32_t bits;                  /* the histograms' precision */
	/* 1 once the workers (and TX lcore) have been joined. Release by
	 * the control plane after the join, acquire here: their final
	 * counters are then visible to a telemetry thread too. */
	_Atomic uint32_t joined;
	/* One reader at a time asks for snapshots (req is written under
	 * it), and the snapshots below are filled under it. */
	pthread_mutex_t lock;
	/* All workers' snapshots; answered at least once: snaps[i]
	 * (txsnap) holds its last answer */
	struct hgw_snapshot snaps[HGW_MAX_WORKERS], txsnap;
	int snap_ok[HGW_MAX_WORKERS], txsnap_ok;
	int snap_seen[HGW_MAX_WORKERS], txsnap_seen;
	/* The stats record's state (control lcore only; filled under the
	 * lock): every sender's latency merged as of the last record they
	 * all answered, and when the last record was written. */
	struct hgw_hist rec_prev, rec_all, rec_int;
	uint64_t rec_prev_tsc;
};

/* The run's, for the commands: DPDK 22.11's telemetry callbacks take no
 * argument of ours. Set once by hgw_stats_tel_init, before the commands
 * are registered; never freed, as a telemetry thread may be inside a
 * command until the process exits (hgw_stats_tel_fini empties it). */
static struct hgw_stats_tel *tel;

#define SNAP_WAIT_US 200000	/* a worker that does not answer by then */

RTE_LOG_REGISTER(hgw_stats_logtype, hgw.stats, INFO);
#define RTE_LOGTYPE_HGW_STATS hgw_stats_logtype

/* Ask the owner of c for a snapshot into *src, then copy it to *out.
 * 0, or -1 if it did not answer in time (stopped, stalled, or held in a
 * long paced wait). Called under the telemetry's lock. */
static int
snap_ask(struct hgw_snap_ctl *c, const struct hgw_snapshot *src,
	 struct hgw_snapshot *out)
{
	/* relaxed load: only readers write req, and they hold t->lock */
	uint32_t req = atomic_load_explicit(&c->req, memory_order_relaxed) + 1;

	/* release: the previous reader's copy of the snapshot (made under
	 * t->lock, before this) happens-before the owner rewrites it; the
	 * owner's acquire fence after it sees the new req pairs with this */
	atomic_store_explicit(&c->req, req, memory_order_release);
	/* by the clock: a usleep(50) sleeps longer than 50 us */
	const uint64_t end = rte_get_timer_cycles() +
			     rte_get_timer_hz() / 1000000 * SNAP_WAIT_US;

	for (;;) {
		/* acquire: pairs with the owner's release after its copy */
		if (atomic_load_explicit(&c->done, memory_order_acquire) == req) {
			/* rx_to_tx is the last member: copy only its
			 * buckets in use */
			memcpy(out, src, offsetof(struct hgw_snapshot, rx_to_tx));
			hgw_hist_copy(&out->rx_to_tx, &src->rx_to_tx);
			return 0;
		}
		if (rte_get_timer_cycles() >= end)
			return -1;
		usleep(50);
	}
}

/* Worker i's state now: from a snapshot while it runs, else directly. */
static int
worker_state(struct hgw_stats_tel *t, uint32_t i, struct hgw_snapshot *s)
{
	const struct hgw_worker *w = t->w[i];

	if (atomic_load_explicit(&t->joined, memory_order_acquire)) {
		s->feed = w->feed.stats;
		s->tx = w->out.tx;
		s->misses = w->out.misses;
		s->won = w->races.won;
		s->lost = w->races.lost;
		hgw_worker_decisions(w, &s->triggers, &s->rejects);
		hgw_hist_copy(&s->rx_to_tx, w->out.rx_to_tx);
		s->tsc = rte_rdtsc();
		return 0;
	}
	return snap_ask(&t->w[i]->snap, t->w[i]->snapshot, s);
}

static int
txl_state(struct hgw_stats_tel *t, struct hgw_snapshot *s)
{
	if (atomic_load_explicit(&t->joined, memory_order_acquire)) {
		s->tx = t->txl->out.tx;
		s->misses = t->txl->out.misses;
		s->won = t->txl->out.tx.orders;
		s->lost = t->txl->races_lost;
		hgw_hist_copy(&s->rx_to_tx, t->txl->out.rx_to_tx);
		return 0;
	}
	return snap_ask(&t->txl->snap, t->txl->snapshot, s);
}

static const double pcts[] = { 50, 90, 99, 99.9, 99.99, 99.999 };
static const char *const pct_names[] = {
	"p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns",
};

static void
add_percentiles(struct rte_tel_data *d, const struct hgw_hist *h)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();

	rte_tel_data_add_dict_u64(d, "count", h->count);
	for (size_t p = 0; p < RTE_DIM(pcts); p++)
		rte_tel_data_add_dict_u64(d, pct_names[p], (uint64_t)
			((double)hgw_hist_percentile(h, pcts[p]) * ns));
	rte_tel_data_add_dict_u64(d, "max_ns", (uint64_t)((double)h->max * ns));
	/* past 2^64 ns (584 years of latency) the conversion would be
	 * undefined: said as the largest value instead */
	double sum_ns = (double)h->sum * ns;

	rte_tel_data_add_dict_u64(d, "sum_ns", sum_ns < 0x1p64 ?
				  (uint64_t)sum_ns : UINT64_MAX);
}

static void
collect(struct hgw_stats_tel *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		t->snap_ok[i] = worker_state(t, i, &t->snaps[i]) == 0;
		t->snap_seen[i] |= t->snap_ok[i];
	}
	t->txsnap_ok = t->txl != NULL && txl_state(t, &t->txsnap) == 0;
	t->txsnap_seen |= t->txsnap_ok;
}

static int
tel_stats(const char *cmd __rte_unused, const char *params __rte_unused,
	  struct rte_tel_data *d)
{
	struct hgw_stats_tel *t = tel;
	uint64_t orders = 0, misses = 0, drops = 0, answered = 0;
	const struct hgw_snapshot *f = NULL;

	pthread_mutex_lock(&t->lock);
	collect(t);
	for (uint32_t i = 0; i < t->n; i++) {
		if (!t->snap_ok[i])
			continue;
		answered++;
		if (f == NULL)
			f = &t->snaps[i];
		if (t->txl == NULL) {
			orders += t->snaps[i].tx.orders;
			misses += t->snaps[i].misses;
		}
	}
	if (t->txsnap_ok) {
		orders = t->txsnap.tx.orders;
		misses = t->txsnap.misses;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "workers", t->n);
	rte_tel_data_add_dict_u64(d, "workers_answering", answered);
	rte_tel_data_add_dict_u64(d, "running",
		!atomic_load_explicit(&t->joined, memory_order_acquire));
	if (f != NULL) {
		for (int r = 0; r < HGW_FEED_DROP_MAX; r++)
			drops += f->feed.drops[r];
		rte_tel_data_add_dict_u64(d, "frames", f->feed.frames);
		rte_tel_data_add_dict_u64(d, "messages", f->feed.messages);
		rte_tel_data_add_dict_u64(d, "gaps", f->feed.gaps);
		rte_tel_data_add_dict_u64(d, "gap_messages", f->feed.gap_messages);
		rte_tel_data_add_dict_u64(d, "dup_messages", f->feed.dup_messages);
		rte_tel_data_add_dict_u64(d, "drops", drops);
	}
	rte_tel_data_add_dict_u64(d, "orders_sent", orders);
	rte_tel_data_add_dict_u64(d, "misses", misses);
	pthread_mutex_unlock(&t->lock);
	return 0;
}

static int
tel_workers(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	struct hgw_stats_tel *t = tel;
	char name[16];

	pthread_mutex_lock(&t->lock);
	collect(t);
	rte_tel_data_start_dict(d);
	for (uint32_t i = 0; i < t->n; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "lcore", t->w[i]->lcore);
		rte_tel_data_add_dict_u64(c, "answered", t->snap_ok[i]);
		/* relaxed: a flag, read for display */
		rte_tel_data_add_dict_u64(c, "stopped",
			atomic_load_explicit(&t->w[i]->shared.dead,
					     memory_order_relaxed));
		if (t->snap_ok[i]) {
			const struct hgw_snapshot *s = &t->snaps[i];

			rte_tel_data_add_dict_u64(c, "frames", s->feed.frames);
			rte_tel_data_add_dict_u64(c, "messages", s->feed.messages);
			rte_tel_data_add_dict_u64(c, "orders", s->tx.orders);
			/* claim mode; tx-lcore: see tx_lcore */
			rte_tel_data_add_dict_u64(c, "races_won", s->won);
			rte_tel_data_add_dict_u64(c, "races_lost", s->lost);
			rte_tel_data_add_dict_u64(c, "misses", s->misses);
			add_percentiles(c, &s->rx_to_tx);
		}
		snprintf(name, sizeof(name), "worker%u", i);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	if (t->txl != NULL) {
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c != NULL) {
			rte_tel_data_start_dict(c);
			rte_tel_data_add_dict_u64(c, "answered", t->txsnap_ok);
			if (t->txsnap_ok) {
				rte_tel_data_add_dict_u64(c, "orders",
							  t->txsnap.tx.orders);
				rte_tel_data_add_dict_u64(c, "late_copies_dropped",
							  t->txsnap.lost);
				rte_tel_data_add_dict_u64(c, "misses",
							  t->txsnap.misses);
				add_percentiles(c, &t->txsnap.rx_to_tx);
			}
			rte_tel_data_add_dict_container(d, "tx_lcore", c, 0);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return 0;
}

static int
tel_latency(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	struct hgw_stats_tel *t = tel;
	static struct hgw_hist all;
	uint64_t misses = 0, total = 0;
	char name[32];

	pthread_mutex_lock(&t->lock);
	collect(t);
	hgw_hist_init_precision(&all, t->bits);
	if (t->txl != NULL) {
		if (t->txsnap_ok) {
			hgw_hist_merge(&all, &t->txsnap.rx_to_tx);
			misses = t->txsnap.misses;
		}
	} else {
		for (uint32_t i = 0; i < t->n; i++)
			if (t->snap_ok[i]) {
				hgw_hist_merge(&all, &t->snaps[i].rx_to_tx);
				misses += t->snaps[i].misses;
			}
	}
	rte_tel_data_start_dict(d);
	add_percentiles(d, &all);
	rte_tel_data_add_dict_u64(d, "misses", misses);
	/* win rate per worker (and so per replica), in parts per million */
	for (uint32_t i = 0; i < t->n; i++)
		total += t->snap_ok[i] ? t->snaps[i].rx_to_tx.count : 0;
	for (uint32_t i = 0; i < t->n && t->txl == NULL; i++) {
		snprintf(name, sizeof(name), "worker%u_wins_ppm", i);
		rte_tel_data_add_dict_u64(d, name, total == 0 || !t->snap_ok[i] ? 0 :
			t->snaps[i].rx_to_tx.count * 1000000 / total);
	}
	pthread_mutex_unlock(&t->lock);
	return 0;
}

/* d = a - b, where a is b plus the values recorded since (both with the
 * same precision): the latency of one interval. min and max are the
 * bounds of the lowest and highest bucket that grew, clamped to a's; max
 * is exact when the interval set a new maximum. */
static void
hist_since(struct hgw_hist *d, const struct hgw_hist *a,
	   const struct hgw_hist *b)
{
	uint32_t n = a->count ? hgw_hist_bucket(a, a->max) + 1 : 0;
	uint32_t lo = UINT32_MAX, hi = 0;

	hgw_hist_init_precision(d, a->sub_bits);
	for (uint32_t i = 0; i < n; i++) {
		d->b[i] = a->b[i] - b->b[i];
		if (d->b[i] != 0) {
			lo = RTE_MIN(lo, i);
			hi = i;
		}
	}
	d->count = a->count - b->count;
	d->sum = a->sum - b->sum;
	if (d->count == 0 || lo == UINT32_MAX)
		return;
	d->min = RTE_MAX(hgw_hist_bucket_low(a, lo), a->min);
	d->max = a->max > b->max ? a->max :
		 RTE_MIN(hgw_hist_bucket_high(a, hi), a->max);
}

void
hgw_stats_tel_record(struct hgw_stats_tel *t, int final)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	uint64_t orders = 0, tx_full = 0, misses = 0, now = rte_rdtsc();
	const struct hgw_snapshot *f = NULL;
	uint32_t answered = 0;
	int all;

	pthread_mutex_lock(&t->lock);
	collect(t);
	hgw_hist_init_precision(&t->rec_all, t->bits);
	/* The counts are each sender's last answer: a worker that did not
	 * answer this time (descheduled past the wait on a loaded host) is
	 * counted as it last answered, and answering says how many are
	 * current; so no count in the log ever goes down. One that never
	 * answered (still starting) counts nothing. */
	for (uint32_t i = 0; i < t->n; i++) {
		if (!t->snap_seen[i])
			continue;
		answered += t->snap_ok[i];
		/* the feed counts of the replica furthest along (they all
		 * see one feed): a late starter answering first never
		 * takes them back down */
		if (f == NULL || t->snaps[i].feed.frames > f->feed.frames)
			f = &t->snaps[i];
		tx_full += t->snaps[i].tx.tx_full;
		if (t->txl == NULL) {
			orders += t->snaps[i].tx.orders;
			misses += t->snaps[i].misses;
			hgw_hist_merge(&t->rec_all, &t->snaps[i].rx_to_tx);
		}
	}
	if (t->txl != NULL) {
		/* the TX lcore sends; the workers hand over */
		if (t->txsnap_seen) {
			orders = t->txsnap.tx.orders;
			tx_full += t->txsnap.tx.tx_full;
			misses = t->txsnap.misses;
			hgw_hist_merge(&t->rec_all, &t->txsnap.rx_to_tx);
		}
	}
	all = answered == t->n && (t->txl == NULL || t->txsnap_ok);
	/* The interval's latency only when every sender answered now (a
	 * stale one would hide its latest orders); it then covers every
	 * order since the last record that had them all, so the records'
	 * latencies still add up to every order sent. */
	if (all) {
		hist_since(&t->rec_int, &t->rec_all, &t->rec_prev);
		hgw_hist_copy(&t->rec_prev, &t->rec_all);
	} else {
		hgw_hist_init_precision(&t->rec_int, t->bits);
	}
	RTE_LOG(INFO, HGW_STATS, "frames=%" PRIu64 " messages=%" PRIu64
		" gaps=%" PRIu64 " triggers=%" PRIu64 " orders=%" PRIu64
		" rejects=%" PRIu64 " tx_full=%" PRIu64 " misses=%" PRIu64
		" answering=%u/%u interval_ms=%" PRIu64 " sent=%" PRIu64
		" p50_ns=%" PRIu64 " p99_ns=%" PRIu64 " max_ns=%" PRIu64
		" final=%d\n",
		f ? f->feed.frames : 0, f ? f->feed.messages : 0,
		f ? f->feed.gaps : 0, f ? f->triggers : 0, orders,
		f ? f->rejects : 0, tx_full, misses, answered, t->n,
		(uint64_t)((double)(now - t->rec_prev_tsc) * ns / 1e6),
		t->rec_int.count,
		(uint64_t)((double)hgw_hist_percentile(&t->rec_int, 50) * ns),
		(uint64_t)((double)hgw_hist_percentile(&t->rec_int, 99) * ns),
		(uint64_t)((double)t->rec_int.max * ns), final);
	t->rec_prev_tsc = now;
	pthread_mutex_unlock(&t->lock);
}

struct hgw_stats_tel *
hgw_stats_tel_init(struct hgw_worker *const *w, uint32_t n,
		   struct hgw_txlcore *txl, uint32_t precision_bits)
{
	struct hgw_stats_tel *t = calloc(1, sizeof(*t));

	if (t == NULL)
		hgw_cli_die("hedgewire", "cannot allocate the telemetry's "
			    "snapshots");
	pthread_mutex_init(&t->lock, NULL);
	t->bits = precision_bits;
	hgw_hist_init_precision(&t->rec_prev, precision_bits);
	t->rec_prev_tsc = rte_rdtsc();
	t->w = w;
	t->n = n;
	t->txl = txl;
	tel = t;
	rte_telemetry_register_cmd("/hgw/stats", tel_stats,
		"Feed and order totals. No parameters");
	rte_telemetry_register_cmd("/hgw/workers", tel_workers,
		"Per worker: frames, orders, races, misses, latency. No parameters");
	rte_telemetry_register_cmd("/hgw/latency", tel_latency,
		"Latency of the orders sent (ns percentiles), misses, win rates. No parameters");
	return t;
}

void
hgw_stats_tel_fini(struct hgw_stats_tel *t)
{
	pthread_mutex_lock(&t->lock);
	t->n = 0;
	t->txl = NULL;
	pthread_mutex_unlock(&t->lock);
}

void
hgw_stats_tel_joined(struct hgw_stats_tel *t)
{
	/* release: the join's view of the workers' counters is published */
	atomic_store_explicit(&t->joined, 1, memory_order_release);
}

int
hgw_stats_tel_share(const char *group, char *err, size_t errlen)
{
	const char *dir = rte_eal_get_runtime_dir();
	char sock[PATH_MAX], parent[PATH_MAX], *slash;
	struct group *g;
	struct stat st;

	if (group[0] == '\0')
		return 0;
	g = getgrnam(group);
	if (g == NULL) {
		snprintf(err, errlen, "bad value for [run] telemetry_group: no "
			 "group '%s'", group);
		return -1;
	}
	if ((size_t)snprintf(sock, sizeof(sock), "%s/dpdk_telemetry.v2", dir) >=
	    sizeof(sock) || lstat(sock, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "[run] telemetry_group = %s: no telemetry "
			 "socket %s (EAL --no-telemetry?)", group, sock);
		return -1;
	}
	/* the runtime directory's parent (/var/run/dpdk, made 0700 by the
	 * EAL) only gets search permission: other prefixes' directories
	 * stay closed, and nobody can list it */
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash != NULL && slash != parent)
		*slash = '\0';
	if (slash == NULL || slash == parent || stat(parent, &st) != 0 ||
	    chmod(parent, (st.st_mode & 07777) | S_IXGRP | S_IXOTH) != 0 ||
	    chown(dir, (uid_t)-1, g->gr_gid) != 0 || chmod(dir, 0750) != 0 ||
	    chown(sock, (uid_t)-1, g->gr_gid) != 0 || chmod(sock, 0660) != 0) {
		snprintf(err, errlen, "[run] telemetry_group = %s: cannot open "
			 "%s to the group: %s", group, sock, strerror(errno));
		return -1;
	}
	return 0;
}
