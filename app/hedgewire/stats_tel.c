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
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_log.h>
#include <rte_telemetry.h>

#include "stats_tel.h"

static struct hgw_worker *const *tel_w;
static uint32_t tel_n;
static struct hgw_txlcore *tel_txl;
static uint32_t tel_bits;		/* the histograms' precision */
/* 1 once the workers (and TX lcore) have been joined. Release by the
 * control plane after the join, acquire here: their final counters are
 * then visible to a telemetry thread too. */
static _Atomic uint32_t tel_joined;
/* One reader at a time asks for snapshots (req is written under it). */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;

#define SNAP_WAIT_US 200000	/* a worker that does not answer by then */

RTE_LOG_REGISTER(hgw_stats_logtype, hgw.stats, INFO);
#define RTE_LOGTYPE_HGW_STATS hgw_stats_logtype

/* Ask the owner of c for a snapshot into *src, then copy it to *out.
 * 0, or -1 if it did not answer in time (stopped, stalled, or held in a
 * long paced wait). Called under tel_lock. */
static int
snap_ask(struct hgw_snap_ctl *c, const struct hgw_snapshot *src,
	 struct hgw_snapshot *out)
{
	/* relaxed load: only readers write req, and they hold tel_lock */
	uint32_t req = atomic_load_explicit(&c->req, memory_order_relaxed) + 1;

	/* release: the previous reader's copy of the snapshot (made under
	 * tel_lock, before this) happens-before the owner rewrites it; the
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
worker_state(uint32_t i, struct hgw_snapshot *s)
{
	const struct hgw_worker *w = tel_w[i];

	if (atomic_load_explicit(&tel_joined, memory_order_acquire)) {
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
	return snap_ask(&tel_w[i]->snap, tel_w[i]->snapshot, s);
}

static int
txl_state(struct hgw_snapshot *s)
{
	if (atomic_load_explicit(&tel_joined, memory_order_acquire)) {
		s->tx = tel_txl->out.tx;
		s->misses = tel_txl->out.misses;
		s->won = tel_txl->out.tx.orders;
		s->lost = tel_txl->races_lost;
		hgw_hist_copy(&s->rx_to_tx, tel_txl->out.rx_to_tx);
		return 0;
	}
	return snap_ask(&tel_txl->snap, tel_txl->snapshot, s);
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

/* All workers' snapshots (static: commands run under tel_lock). */
static struct hgw_snapshot snaps[HGW_MAX_WORKERS], txsnap;
static int snap_ok[HGW_MAX_WORKERS], txsnap_ok;
/* answered at least once: snaps[i] (txsnap) holds its last answer */
static int snap_seen[HGW_MAX_WORKERS], txsnap_seen;

static void
collect(void)
{
	for (uint32_t i = 0; i < tel_n; i++) {
		snap_ok[i] = worker_state(i, &snaps[i]) == 0;
		snap_seen[i] |= snap_ok[i];
	}
	txsnap_ok = tel_txl != NULL && txl_state(&txsnap) == 0;
	txsnap_seen |= txsnap_ok;
}

static int
tel_stats(const char *cmd __rte_unused, const char *params __rte_unused,
	  struct rte_tel_data *d)
{
	uint64_t orders = 0, misses = 0, drops = 0, answered = 0;
	const struct hgw_snapshot *f = NULL;

	pthread_mutex_lock(&tel_lock);
	collect();
	for (uint32_t i = 0; i < tel_n; i++) {
		if (!snap_ok[i])
			continue;
		answered++;
		if (f == NULL)
			f = &snaps[i];
		if (tel_txl == NULL) {
			orders += snaps[i].tx.orders;
			misses += snaps[i].misses;
		}
	}
	if (txsnap_ok) {
		orders = txsnap.tx.orders;
		misses = txsnap.misses;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "workers", tel_n);
	rte_tel_data_add_dict_u64(d, "workers_answering", answered);
	rte_tel_data_add_dict_u64(d, "running",
		!atomic_load_explicit(&tel_joined, memory_order_acquire));
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
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

static int
tel_workers(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	char name[16];

	pthread_mutex_lock(&tel_lock);
	collect();
	rte_tel_data_start_dict(d);
	for (uint32_t i = 0; i < tel_n; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "lcore", tel_w[i]->lcore);
		rte_tel_data_add_dict_u64(c, "answered", snap_ok[i]);
		/* relaxed: a flag, read for display */
		rte_tel_data_add_dict_u64(c, "stopped",
			atomic_load_explicit(&tel_w[i]->shared.dead,
					     memory_order_relaxed));
		if (snap_ok[i]) {
			const struct hgw_snapshot *s = &snaps[i];

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
	if (tel_txl != NULL) {
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c != NULL) {
			rte_tel_data_start_dict(c);
			rte_tel_data_add_dict_u64(c, "answered", txsnap_ok);
			if (txsnap_ok) {
				rte_tel_data_add_dict_u64(c, "orders",
							  txsnap.tx.orders);
				rte_tel_data_add_dict_u64(c, "late_copies_dropped",
							  txsnap.lost);
				rte_tel_data_add_dict_u64(c, "misses",
							  txsnap.misses);
				add_percentiles(c, &txsnap.rx_to_tx);
			}
			rte_tel_data_add_dict_container(d, "tx_lcore", c, 0);
		}
	}
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

static int
tel_latency(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	static struct hgw_hist all;
	uint64_t misses = 0, total = 0;
	char name[32];

	pthread_mutex_lock(&tel_lock);
	collect();
	hgw_hist_init_precision(&all, tel_bits);
	if (tel_txl != NULL) {
		if (txsnap_ok) {
			hgw_hist_merge(&all, &txsnap.rx_to_tx);
			misses = txsnap.misses;
		}
	} else {
		for (uint32_t i = 0; i < tel_n; i++)
			if (snap_ok[i]) {
				hgw_hist_merge(&all, &snaps[i].rx_to_tx);
				misses += snaps[i].misses;
			}
	}
	rte_tel_data_start_dict(d);
	add_percentiles(d, &all);
	rte_tel_data_add_dict_u64(d, "misses", misses);
	/* win rate per worker (and so per replica), in parts per million */
	for (uint32_t i = 0; i < tel_n; i++)
		total += snap_ok[i] ? snaps[i].rx_to_tx.count : 0;
	for (uint32_t i = 0; i < tel_n && tel_txl == NULL; i++) {
		snprintf(name, sizeof(name), "worker%u_wins_ppm", i);
		rte_tel_data_add_dict_u64(d, name, total == 0 || !snap_ok[i] ? 0 :
			snaps[i].rx_to_tx.count * 1000000 / total);
	}
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

/* The stats record's state (control lcore only; filled under tel_lock):
 * every sender's latency merged as of the last record they all answered,
 * and when the last record was written. */
static struct hgw_hist rec_prev, rec_all, rec_int;
static uint64_t rec_prev_tsc;

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
hgw_stats_tel_record(int final)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	uint64_t orders = 0, tx_full = 0, misses = 0, now = rte_rdtsc();
	const struct hgw_snapshot *f = NULL;
	uint32_t answered = 0;
	int all;

	pthread_mutex_lock(&tel_lock);
	collect();
	hgw_hist_init_precision(&rec_all, tel_bits);
	/* The counts are each sender's last answer: a worker that did not
	 * answer this time (descheduled past the wait on a loaded host) is
	 * counted as it last answered, and answering says how many are
	 * current; so no count in the log ever goes down. One that never
	 * answered (still starting) counts nothing. */
	for (uint32_t i = 0; i < tel_n; i++) {
		if (!snap_seen[i])
			continue;
		answered += snap_ok[i];
		/* the feed counts of the replica furthest along (they all
		 * see one feed): a late starter answering first never
		 * takes them back down */
		if (f == NULL || snaps[i].feed.frames > f->feed.frames)
			f = &snaps[i];
		tx_full += snaps[i].tx.tx_full;
		if (tel_txl == NULL) {
			orders += snaps[i].tx.orders;
			misses += snaps[i].misses;
			hgw_hist_merge(&rec_all, &snaps[i].rx_to_tx);
		}
	}
	if (tel_txl != NULL) {
		/* the TX lcore sends; the workers hand over */
		if (txsnap_seen) {
			orders = txsnap.tx.orders;
			tx_full += txsnap.tx.tx_full;
			misses = txsnap.misses;
			hgw_hist_merge(&rec_all, &txsnap.rx_to_tx);
		}
	}
	all = answered == tel_n && (tel_txl == NULL || txsnap_ok);
	/* The interval's latency only when every sender answered now (a
	 * stale one would hide its latest orders); it then covers every
	 * order since the last record that had them all, so the records'
	 * latencies still add up to every order sent. */
	if (all) {
		hist_since(&rec_int, &rec_all, &rec_prev);
		hgw_hist_copy(&rec_prev, &rec_all);
	} else {
		hgw_hist_init_precision(&rec_int, tel_bits);
	}
	RTE_LOG(INFO, HGW_STATS, "frames=%" PRIu64 " messages=%" PRIu64
		" gaps=%" PRIu64 " triggers=%" PRIu64 " orders=%" PRIu64
		" rejects=%" PRIu64 " tx_full=%" PRIu64 " misses=%" PRIu64
		" answering=%u/%u interval_ms=%" PRIu64 " sent=%" PRIu64
		" p50_ns=%" PRIu64 " p99_ns=%" PRIu64 " max_ns=%" PRIu64
		" final=%d\n",
		f ? f->feed.frames : 0, f ? f->feed.messages : 0,
		f ? f->feed.gaps : 0, f ? f->triggers : 0, orders,
		f ? f->rejects : 0, tx_full, misses, answered, tel_n,
		(uint64_t)((double)(now - rec_prev_tsc) * ns / 1e6),
		rec_int.count,
		(uint64_t)((double)hgw_hist_percentile(&rec_int, 50) * ns),
		(uint64_t)((double)hgw_hist_percentile(&rec_int, 99) * ns),
		(uint64_t)((double)rec_int.max * ns), final);
	rec_prev_tsc = now;
	pthread_mutex_unlock(&tel_lock);
}

void
hgw_stats_tel_init(struct hgw_worker *const *w, uint32_t n,
		   struct hgw_txlcore *txl, uint32_t precision_bits)
{
	tel_bits = precision_bits;
	hgw_hist_init_precision(&rec_prev, precision_bits);
	rec_prev_tsc = rte_rdtsc();
	tel_w = w;
	tel_n = n;
	tel_txl = txl;
	rte_telemetry_register_cmd("/hgw/stats", tel_stats,
		"Feed and order totals. No parameters");
	rte_telemetry_register_cmd("/hgw/workers", tel_workers,
		"Per worker: frames, orders, races, misses, latency. No parameters");
	rte_telemetry_register_cmd("/hgw/latency", tel_latency,
		"Latency of the orders sent (ns percentiles), misses, win rates. No parameters");
}

void
hgw_stats_tel_fini(void)
{
	pthread_mutex_lock(&tel_lock);
	tel_n = 0;
	tel_txl = NULL;
	pthread_mutex_unlock(&tel_lock);
}

void
hgw_stats_tel_joined(void)
{
	/* release: the join's view of the workers' counters is published */
	atomic_store_explicit(&tel_joined, 1, memory_order_release);
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
