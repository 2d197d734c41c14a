/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: unit tests for the dedup stage (lib/dedup).
 *
 * Workers are pthreads (no EAL). Every worker walks the same stream of
 * triggers (sessions 0..3 interleaved, sequence numbers increasing per
 * session with gaps, as when not every feed message triggers an order) and
 * produces one order per trigger. After each run every trigger must have
 * left exactly once, in each mode (claim, tx-lcore, downstream), with 2, 3
 * and 4 workers, with a worker frozen for 1 ms or 10 ms at random points
 * (the test-only stall hook lives here, in the worker loop), and with a
 * worker that stops for good. Triggers are keyed by session key: replicas
 * that meet sessions in different orders (or one that met a phantom
 * session first) still dedup exactly once, a key beyond the slot table is
 * never sent, and claimers racing to create a key's slot never make two.
 *
 * HGW_TEST_SEED=<n> replays a run; the seed is printed.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Widen the window between a claimer reading a free slot and its CAS, in
 * the slot race test only (see test_claim_slot_race). */
static _Atomic int race_widen;
static void race_hook(void);
#define HGW_DEDUP_SLOT_HOOK(slot) do {					\
	if (atomic_load_explicit(&race_widen, memory_order_relaxed))	\
		race_hook();						\
} while (0)

#include "hgw_dedup.h"
#include "hgw_prng.h"
#include "hgw_test.h"

#define NTRIG      1000000u	/* triggers (orders) per run */
#define MAXW       4		/* worker threads at most */
#define MAXSTALL   6		/* stall points per run */
#define RING_SIZE  1024u	/* SP/SC ring entries (power of two) */
#define NO_STOP    UINT32_MAX
#define DONE       UINT64_MAX	/* progress value of a finished worker */

/* ---- helpers ---------------------------------------------------------- */

static uint64_t seed0;

#define rnd hgw_xorshift64s

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
sleep_ns(long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000L,
			       .tv_nsec = ns % 1000000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The trigger stream every replica sees, read-only while workers run.
 * session is an index into skey[], the keys of the stream's sessions. */
struct trig {
	uint64_t seq;
	uint16_t session;
};

/* Session keys as hgw_feed_session_key() makes them: packed names (bit 63)
 * and a hashed one (bit 62), none in the order of their index. */
static const uint64_t skey[HGW_DEDUP_MAX_SESSIONS] = {
	0x8000000000000000ULL | 0x0123456789ABCDEULL,
	0x4000000000000000ULL | 0x3000000000000007ULL,
	0x8000000000000000ULL | 0x0000000000000001ULL,
	0x8000000000000000ULL | 0x0FFFFFFFFFFFFFFFULL,
};

static struct trig *trigs;

static void
make_triggers(uint64_t s)
{
	uint64_t next[HGW_DEDUP_MAX_SESSIONS] = { 1, 1, 1, 1 };

	for (uint32_t i = 0; i < NTRIG; i++) {
		uint64_t r = rnd(&s);
		uint16_t sess = (uint16_t)(r % HGW_DEDUP_MAX_SESSIONS);

		/* one message in four is skipped (no order for it) */
		if ((r >> 8) % 4 == 0)
			next[sess] += 1 + (r >> 16) % 3;
		trigs[i].session = sess;
		trigs[i].seq = next[sess]++;
	}
}

/* ---- run description and checks ---------------------------------------- */

struct run {
	const char *name;
	unsigned int nw;		/* workers */
	long stall_ns;			/* 0: no stalls */
	unsigned int nstall;		/* stall points, all on one victim */
	int stop;			/* one worker stops for good */
};

struct worker {
	alignas(HGW_DEDUP_LINE) unsigned int id;
	struct hgw_dedup *d;		/* claim mode */
	struct spsc *ring;		/* tx-lcore mode */
	uint32_t *wins;			/* claim: triggers won, in order */
	uint32_t nwins;
	struct hgw_dedup_stats st;	/* claim: won / races lost */
	uint32_t stall_at[MAXSTALL];	/* sorted, NTRIG = none */
	long stall_ns;
	uint32_t stop_at;		/* NO_STOP or first index not produced */
	uint32_t stalls_seen_progress;	/* stalls during which a peer moved */
	uint32_t stalls_with_live_peer;	/* stalls while a peer had work left */
	uint32_t stalls_extended;	/* frozen longer: no peer ran in time */
	pthread_barrier_t *start;
	/* progress, read by the stalled peer: own line, relaxed atomic */
	alignas(HGW_DEDUP_LINE) _Atomic uint64_t progress;
};

static struct worker W[MAXW];
static uint8_t *cnt;		/* per trigger: copies that left */

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Plan stalls and the stop for a run. */
static void
plan(const struct run *r, uint64_t *s)
{
	unsigned int victim = (unsigned int)(rnd(s) % r->nw);
	unsigned int quitter = (unsigned int)(rnd(s) % r->nw);

	for (unsigned int w = 0; w < r->nw; w++) {
		struct worker *k = &W[w];

		k->id = w;
		k->nwins = 0;
		memset(&k->st, 0, sizeof(k->st));
		k->stall_ns = r->stall_ns;
		k->stalls_seen_progress = 0;
		k->stalls_with_live_peer = 0;
		k->stalls_extended = 0;
		for (unsigned int j = 0; j < MAXSTALL; j++)
			k->stall_at[j] = NTRIG;
		if (r->stall_ns && w == victim) {
			for (unsigned int j = 0; j < r->nstall; j++)
				k->stall_at[j] = (uint32_t)(rnd(s) % NTRIG);
			qsort(k->stall_at, MAXSTALL, sizeof(uint32_t), cmp_u32);
		}
		k->stop_at = NO_STOP;
		if (r->stop && w == quitter)
			k->stop_at = (uint32_t)(NTRIG / 10 + rnd(s) % (NTRIG * 8 / 10));
		atomic_store_explicit(&k->progress, 0, memory_order_relaxed);
	}
}

/* Test-only stall hook: freeze worker k at trigger i if planned. The freeze
 * lasts stall_ns, and longer (up to 2 s) until a peer that had work left
 * has moved on: that proves the others carry on while k is frozen, even
 * on a loaded VM where the OS may not run a peer within 1 ms. */
static void
stall_hook(struct worker *k, unsigned int nw, uint32_t i, unsigned int *next)
{
	uint64_t before[MAXW];
	int live = 0, moved = 0;
	long waited = 0;

	if (*next >= MAXSTALL || k->stall_at[*next] != i)
		return;
	while (*next < MAXSTALL && k->stall_at[*next] == i)
		(*next)++;
	for (unsigned int j = 0; j < nw; j++) {
		/* relaxed: a progress hint, orders nothing */
		before[j] = atomic_load_explicit(&W[j].progress,
						 memory_order_relaxed);
		live |= j != k->id && before[j] != DONE;
	}
	sleep_ns(k->stall_ns);
	for (;;) {
		for (unsigned int j = 0; j < nw; j++)
			if (j != k->id && before[j] != DONE &&
			    atomic_load_explicit(&W[j].progress,
						 memory_order_relaxed) != before[j])
				moved = 1;
		if (moved || !live || waited >= 2000000000L)
			break;
		sleep_ns(100000);
		waited += 100000;
	}
	k->stalls_with_live_peer += (uint32_t)live;
	k->stalls_seen_progress += (uint32_t)moved;
	k->stalls_extended += (uint32_t)(waited > 0);
}

/* Every trigger left exactly once; returns the number of bad triggers. */
static uint32_t
check_exactly_once(const char *mode, const struct run *r)
{
	uint32_t lost = 0, dup = 0, first_bad = NTRIG;

	for (uint32_t i = 0; i < NTRIG; i++) {
		if (cnt[i] == 1)
			continue;
		if (cnt[i] == 0)
			lost++;
		else
			dup++;
		if (first_bad == NTRIG)
			first_bad = i;
	}
	HGW_CHECK_EQ(lost, 0);
	HGW_CHECK_EQ(dup, 0);
	if (lost || dup)
		printf("# %s %s: %u lost, %u duplicated, first bad trigger %u "
		       "(session %u seq %" PRIu64 ")\n", mode, r->name, lost,
		       dup, first_bad, trigs[first_bad].session,
		       trigs[first_bad].seq);
	return lost + dup;
}

static void
check_stalls(const char *mode, const struct run *r)
{
	for (unsigned int w = 0; w < r->nw; w++) {
		/* a frozen worker never freezes the others */
		HGW_CHECK_EQ(W[w].stalls_seen_progress,
			     W[w].stalls_with_live_peer);
		if (W[w].stalls_with_live_peer)
			printf("# %s %s: worker %u frozen %u times, peers "
			       "moved on (%u waited for the OS to run one)\n",
			       mode, r->name, w, W[w].stalls_with_live_peer,
			       W[w].stalls_extended);
	}
}

static void
run_threads(const struct run *r, void *(*fn)(void *))
{
	pthread_t th[MAXW];
	pthread_barrier_t start;

	pthread_barrier_init(&start, NULL, r->nw);
	for (unsigned int w = 0; w < r->nw; w++) {
		W[w].start = &start;
		if (pthread_create(&th[w], NULL, fn, &W[w]) != 0) {
			perror("pthread_create");
			exit(2);
		}
	}
	for (unsigned int w = 0; w < r->nw; w++)
		pthread_join(th[w], NULL);	/* publishes the workers' data */
	pthread_barrier_destroy(&start);
}

static const struct run runs[] = {
	{ "2w", 2, 0, 0, 0 },
	{ "3w", 3, 0, 0, 0 },
	{ "4w", 4, 0, 0, 0 },
	{ "2w-stall1ms", 2, 1000000L, MAXSTALL, 0 },
	{ "3w-stall1ms", 3, 1000000L, MAXSTALL, 0 },
	{ "4w-stall1ms", 4, 1000000L, MAXSTALL, 0 },
	{ "2w-stall10ms", 2, 10000000L, 4, 0 },
	{ "3w-stall10ms", 3, 10000000L, 4, 0 },
	{ "4w-stall10ms", 4, 10000000L, 4, 0 },
	{ "2w-stop", 2, 0, 0, 1 },
	{ "3w-stop", 3, 0, 0, 1 },
	{ "4w-stop+stall10ms", 4, 10000000L, 2, 1 },
};
#define NRUNS (sizeof(runs) / sizeof(runs[0]))

/* ---- single-threaded semantics ------------------------------------------ */

static alignas(HGW_DEDUP_LINE) struct hgw_dedup dd;

static void
test_layout(void)
{
	/* the line the build was told about: DPDK's, else the
	 * architecture's default (hgw_cacheline.h) */
	printf("# cache line %d bytes (%s)\n", HGW_DEDUP_LINE,
	       HGW_CACHE_LINE_FROM);
#if defined(HGW_RTE_CACHE_LINE_SIZE)
	HGW_CHECK_EQ(HGW_DEDUP_LINE, HGW_RTE_CACHE_LINE_SIZE);
#elif defined(__aarch64__)
	HGW_CHECK_EQ(HGW_DEDUP_LINE, 128);
#else
	HGW_CHECK_EQ(HGW_DEDUP_LINE, 64);
#endif
	HGW_CHECK_EQ(sizeof(struct hgw_dedup),
		     HGW_DEDUP_MAX_SESSIONS * HGW_DEDUP_LINE);
	HGW_CHECK_EQ(offsetof(struct hgw_dedup, slot[1]), HGW_DEDUP_LINE);
	HGW_CHECK_EQ(offsetof(struct hgw_dedup_entry, seq), 8);
	HGW_CHECK_EQ(alignof(struct hgw_dedup), HGW_DEDUP_LINE);
	HGW_CHECK_EQ(sizeof(struct hgw_dedup_stats), HGW_DEDUP_LINE);
	HGW_CHECK_EQ(alignof(struct hgw_dedup_stats), HGW_DEDUP_LINE);
	HGW_CHECK_EQ(hgw_dedup_init(&dd), 0);
	HGW_CHECK_EQ(hgw_dedup_init(NULL), (uint64_t)-EINVAL);
	/* half a line off: 64-byte aligned on a 128-byte-line build, and
	 * still refused */
	HGW_CHECK_EQ(hgw_dedup_init((struct hgw_dedup *)(void *)
				    ((char *)&dd + HGW_DEDUP_LINE / 2)),
		     (uint64_t)-EINVAL);
	for (unsigned int s = 0; s < HGW_DEDUP_MAX_SESSIONS; s++) {
		HGW_CHECK_EQ((uintptr_t)&dd.slot[s].key % HGW_DEDUP_LINE, 0);
		HGW_CHECK_EQ(atomic_load(&dd.slot[s].key), 0);
		HGW_CHECK_EQ(atomic_load(&dd.slot[s].seq), 0);
	}
}

static void
test_claim_semantics(void)
{
	struct hgw_dedup_stats st = { 0 };
	const uint64_t A = skey[0], B = skey[1], C = skey[2], D = skey[3];

	HGW_CHECK_EQ(hgw_dedup_init(&dd), 0);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, A), 0);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, A, 1), 1);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, A, 1), 0);	/* duplicate */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, A, 5), 1);	/* gaps are fine */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, A, 3), 0);	/* behind the mark */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, A, 5), 0);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, A, 6), 1);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, A), 6);
	/* sessions are independent, whatever slot they got */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, B, 2), 1);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, B, 1), 0);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, D, 1), 1);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, C, 6), 1);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, A), 6);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, B), 2);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, C), 6);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, D), 1);
	/* slots were taken in order of first use, and keep their key */
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, A), 0);
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, B), 1);
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, D), 2);
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, C), 3);
	HGW_CHECK_EQ(hgw_dedup_claim_slot(&dd, 3, 7), 1);	/* C */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, C, 7), 0);
	HGW_CHECK_EQ(hgw_dedup_claim_slot(&dd, 3, 7), 0);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, C), 7);
	/* outside the contract: never sent */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, C, 0), 0);	/* seq 0 is no message */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, 0, 9), 0);	/* key 0 is no session */
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, 0), -1);
	HGW_CHECK_EQ(hgw_dedup_claim_slot(&dd, -1, 9), 0);
	HGW_CHECK_EQ(hgw_dedup_claim_slot(&dd, HGW_DEDUP_MAX_SESSIONS, 9), 0);
	HGW_CHECK_EQ(hgw_dedup_claim_slot(&dd, 0, 0), 0);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, 0), 0);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, 12345), 0);	/* no such session */
	/* top edge: UINT64_MAX passes once, then the session is closed */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, C, UINT64_MAX - 1), 1);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, C, UINT64_MAX), 1);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, C, UINT64_MAX), 0);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, C, UINT64_MAX - 1), 0);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, C), UINT64_MAX);
	/* counting wrapper */
	HGW_CHECK_EQ(hgw_dedup_claim_count(&dd, &st, D, 2), 1);
	HGW_CHECK_EQ(hgw_dedup_claim_count(&dd, &st, D, 2), 0);
	HGW_CHECK_EQ(hgw_dedup_claim_count(&dd, &st, D, 1), 0);
	HGW_CHECK_EQ(hgw_dedup_claim_count(&dd, &st, D, 0), 0);
	HGW_CHECK_EQ(hgw_dedup_claim_count(&dd, &st, 0, 3), 0);
	HGW_CHECK_EQ(st.won, 1);
	HGW_CHECK_EQ(st.lost, 3);
	HGW_CHECK_EQ(st.full, 1);
	/* init resets: every slot free again */
	HGW_CHECK_EQ(hgw_dedup_init(&dd), 0);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, A), 0);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, D, 1), 1);
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, D), 0);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, A, 1), 1);
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, A), 1);
}

static void
test_filter_semantics(void)
{
	struct hgw_dedup_filter f;
	const uint64_t A = skey[0], B = skey[1], D = skey[3];

	hgw_dedup_filter_init(&f);
	HGW_CHECK_EQ(hgw_dedup_filter_sessions(&f), 0);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 1, 0), 1);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 1, 1), 0);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 1, 2), 0);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 4, 1), 1);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 2, 0), 0);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, B, 2, 0), 1);	/* independent */
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, D, UINT64_MAX, 15), 1);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, D, UINT64_MAX, 14), 0);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 0, 0), 0);	/* invalid */
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, 0, 9, 0), 0);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 9, 16), 0);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 9, 3), 1);	/* not burnt */
	HGW_CHECK_EQ(hgw_dedup_filter_sessions(&f), 3);
	HGW_CHECK_EQ(f.key[0], A);
	HGW_CHECK_EQ(f.key[1], B);
	HGW_CHECK_EQ(f.key[2], D);
	HGW_CHECK_EQ(f.mark[0], 9);
	HGW_CHECK_EQ(f.mark[2], UINT64_MAX);
	HGW_CHECK_EQ(f.passed[0], 2);
	HGW_CHECK_EQ(f.passed[1], 1);
	HGW_CHECK_EQ(f.passed[3], 1);
	HGW_CHECK_EQ(f.passed[15], 1);
	HGW_CHECK_EQ(f.dropped[0], 1);
	HGW_CHECK_EQ(f.dropped[1], 1);
	HGW_CHECK_EQ(f.dropped[2], 1);
	HGW_CHECK_EQ(f.dropped[14], 1);
	HGW_CHECK_EQ(f.invalid, 3);
	/* a fourth key takes the last slot; a fifth is invalid, every time,
	 * and takes nothing from the four */
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, 77, 1, 0), 1);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, 78, 1, 0), 0);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, 78, 2, 1), 0);
	HGW_CHECK_EQ(f.invalid, 5);
	HGW_CHECK_EQ(hgw_dedup_filter_sessions(&f), 4);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, 77, 2, 1), 1);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 10, 1), 1);
	HGW_CHECK_EQ(hgw_dedup_filter_first(&f, A, 10, 0), 0);
}

/* Two workers interleaved by hand: every faithful schedule is exactly once;
 * a gap-impaired replica can lose a trigger (documented) but never
 * duplicates one. */
static void
test_claim_schedules(void)
{
	static const uint64_t seqs[] = { 1, 2, 4, 7 };
	unsigned int n = 4;

	/* all C(8,4) interleavings of two workers' streams */
	for (unsigned int mask = 0; mask < 256; mask++) {
		unsigned int pos[2] = { 0, 0 }, ok = 1;
		uint8_t won[4] = { 0 };

		if (__builtin_popcount(mask) != 4)
			continue;
		hgw_dedup_init(&dd);
		for (unsigned int step = 0; step < 8; step++) {
			unsigned int w = (mask >> step) & 1;
			unsigned int i = pos[w]++;

			won[i] += (uint8_t)hgw_dedup_claim(&dd, skey[1],
							   seqs[i]);
		}
		for (unsigned int i = 0; i < n; i++)
			ok &= won[i] == 1;
		HGW_CHECK(ok);
	}
	/* Documented limitation: worker B missed trigger 2 (a gap) and ran
	 * ahead to 4; A, a faithful replica behind it, loses 2: the order for
	 * 2 is lost. No duplicate either way. Principle 1 is what prevents it:
	 * B must stop trading once it saw the gap. */
	hgw_dedup_init(&dd);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, skey[1], 1), 1);	/* B */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, skey[1], 4), 1);	/* B, skipped 2 */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, skey[1], 1), 0);	/* A */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, skey[1], 2), 0);	/* A: lost order */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, skey[1], 4), 0);	/* A: no duplicate */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, skey[1], 7), 1);	/* A: carries on */
}

/* One worker's stream of triggers, for the hand-run schedules below. */
struct stream {
	unsigned int n;
	uint64_t key[8];
	uint64_t seq[8];
};

/* Run two workers' streams in the interleaving given by mask (bit i: which
 * worker takes step i), through the claim or the filter; count the copies
 * of each trigger that were sent. Triggers are matched by (key, seq). */
static void
run_pair(const struct stream st[2], unsigned int mask, int filter,
	 const uint64_t *tk, const uint64_t *ts, unsigned int nt,
	 uint32_t *sent, struct hgw_dedup_stats stats[2])
{
	struct hgw_dedup_filter f;
	unsigned int pos[2] = { 0, 0 };

	hgw_dedup_init(&dd);
	hgw_dedup_filter_init(&f);
	memset(sent, 0, nt * sizeof(*sent));
	memset(stats, 0, 2 * sizeof(*stats));
	for (unsigned int step = 0; step < st[0].n + st[1].n; step++) {
		unsigned int w = (mask >> step) & 1;
		unsigned int i;
		int won;

		if (pos[w] == st[w].n)	/* that worker is done */
			w ^= 1;
		i = pos[w]++;
		won = filter ? hgw_dedup_filter_first(&f, st[w].key[i],
						      st[w].seq[i], (uint16_t)w)
			     : hgw_dedup_claim_count(&dd, &stats[w],
						     st[w].key[i], st[w].seq[i]);
		for (unsigned int t = 0; won && t < nt; t++)
			sent[t] += tk[t] == st[w].key[i] && ts[t] == st[w].seq[i];
	}
}

/* Every interleaving of two streams sends trigger t exactly want[t]
 * times, in claim mode and through the filter. Returns the schedules
 * that did not. */
static unsigned int
all_pairs(const struct stream st[2], const uint64_t *tk, const uint64_t *ts,
	  const uint32_t *want, unsigned int nt, const char *what)
{
	unsigned int steps = st[0].n + st[1].n, bad = 0;
	uint32_t sent[16];
	struct hgw_dedup_stats stats[2];

	for (int filter = 0; filter <= 1; filter++)
		for (unsigned int mask = 0; mask < 1u << steps; mask++) {
			unsigned int ok = 1;

			/* only masks that give each worker its own count */
			if ((unsigned int)__builtin_popcount(mask) != st[1].n)
				continue;
			run_pair(st, mask, filter, tk, ts, nt, sent, stats);
			for (unsigned int t = 0; t < nt; t++)
				ok &= sent[t] == want[t];
			if (!ok && bad++ == 0)
				printf("# %s (%s): schedule 0x%x sends the "
				       "wrong copies\n", what,
				       filter ? "filter" : "claim", mask);
		}
	return bad;
}

/* Replicas that meet the same sessions in different orders still agree
 * on every trigger: with the old session index (order of first sight),
 * A's second session was B's first. */
static void
test_session_order(void)
{
	const uint64_t S = skey[0], T = skey[1], P = skey[2];
	/* opposite orders of first sight, each per-session increasing */
	const struct stream opp[2] = {
		{ 5, { S, T, S, T, S }, { 1, 1, 2, 2, 3 } },
		{ 5, { T, S, T, S, S }, { 1, 1, 2, 2, 3 } },
	};
	const uint64_t ok_k[] = { S, S, S, T, T };
	const uint64_t ok_s[] = { 1, 2, 3, 1, 2 };
	const uint32_t once[] = { 1, 1, 1, 1, 1 };

	HGW_CHECK_EQ(all_pairs(opp, ok_k, ok_s, once, 5, "opposite orders"), 0);

	/* A met a phantom session first (a corrupted copy) and even
	 * triggered on it: its order alone is sent (documented), and every
	 * trigger of the real sessions still leaves exactly once */
	const struct stream ph[2] = {
		{ 5, { P, S, T, S, T }, { 1, 1, 1, 2, 2 } },
		{ 4, { S, T, S, T }, { 1, 1, 2, 2 } },
	};
	const uint64_t ph_k[] = { P, S, S, T, T };
	const uint64_t ph_s[] = { 1, 1, 2, 1, 2 };

	HGW_CHECK_EQ(all_pairs(ph, ph_k, ph_s, once, 5, "phantom first"), 0);

	/* one concrete schedule, step by step: A takes slot 0 for P, B meets
	 * S first yet finds it in slot 1, where A put it */
	HGW_CHECK_EQ(hgw_dedup_init(&dd), 0);
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, P, 1), 1);	/* A */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, S, 1), 1);	/* A */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, S, 1), 0);	/* B: same mark */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, T, 1), 1);	/* B */
	HGW_CHECK_EQ(hgw_dedup_claim(&dd, T, 1), 0);	/* A */
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, P), 0);
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, S), 1);
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, T), 2);
}

/* More sessions than slots (phantoms can do that): a key that finds every
 * slot taken by others is refused to every worker, whole, for good, and
 * counted; the sessions that have a slot are not disturbed. */
static void
test_claim_full(void)
{
	struct hgw_dedup_stats st = { 0 };
	const uint64_t fifth = skey[0] ^ 1;

	HGW_CHECK_EQ(hgw_dedup_init(&dd), 0);
	for (unsigned int k = 0; k < HGW_DEDUP_MAX_SESSIONS; k++)
		HGW_CHECK_EQ(hgw_dedup_claim_count(&dd, &st, skey[k], 1), 1);
	HGW_CHECK_EQ(hgw_dedup_slot(&dd, fifth), -1);
	for (uint64_t seq = 1; seq <= 5; seq++)
		HGW_CHECK_EQ(hgw_dedup_claim_count(&dd, &st, fifth, seq), 0);
	HGW_CHECK_EQ(st.won, HGW_DEDUP_MAX_SESSIONS);
	HGW_CHECK_EQ(st.lost, 0);
	HGW_CHECK_EQ(st.full, 5);
	HGW_CHECK_EQ(hgw_dedup_mark(&dd, fifth), 0);
	/* the four keep their slots and marks */
	for (unsigned int k = 0; k < HGW_DEDUP_MAX_SESSIONS; k++) {
		HGW_CHECK_EQ(hgw_dedup_slot(&dd, skey[k]), k);
		HGW_CHECK_EQ(hgw_dedup_claim(&dd, skey[k], 1), 0);
		HGW_CHECK_EQ(hgw_dedup_claim(&dd, skey[k], 2), 1);
		HGW_CHECK_EQ(hgw_dedup_mark(&dd, skey[k]), 2);
	}
	for (unsigned int i = 0; i < HGW_DEDUP_MAX_SESSIONS; i++)
		HGW_CHECK_EQ(atomic_load(&dd.slot[i].key), skey[i]);

	/* A met four phantoms before the real session S: S is refused for B
	 * too (nobody sends any of it, rather than a part), never a
	 * duplicate, whatever the schedule */
	const uint64_t S = fifth;
	const struct stream four[2] = {
		{ 6, { skey[0], skey[1], skey[2], skey[3], S, S },
		     { 1, 1, 1, 1, 1, 2 } },
		{ 2, { S, S }, { 1, 2 } },
	};
	const uint64_t tk[] = { S, S, skey[0] };
	const uint64_t ts[] = { 1, 2, 1 };
	const uint32_t want_a_first[] = { 0, 0, 1 };
	unsigned int steps = 8, seen_full = 0, seen_sent = 0;
	uint32_t sent[3];
	struct hgw_dedup_stats stats[2];

	/* In claim mode S gets a slot iff B meets it before A's fourth
	 * phantom; then S is sent once per trigger and that phantom is the
	 * one refused. Either way: never twice, and whole or nothing. */
	for (unsigned int mask = 0; mask < 1u << steps; mask++) {
		if (__builtin_popcount(mask) != 2)
			continue;
		run_pair(four, mask, 0, tk, ts, 3, sent, stats);
		HGW_CHECK(sent[0] <= 1 && sent[1] <= 1);
		HGW_CHECK_EQ(sent[0], sent[1]);	/* whole or nothing */
		HGW_CHECK_EQ(sent[2], 1);
		seen_full += sent[0] == 0;
		seen_sent += sent[0] == 1;
		if (sent[0] == 0)	/* refused to both, and counted */
			HGW_CHECK_EQ(stats[0].full + stats[1].full, 4);
		else	/* the fourth phantom was refused instead */
			HGW_CHECK_EQ(stats[0].full + stats[1].full, 1);
	}
	HGW_CHECK(seen_full > 0 && seen_sent > 0);
	/* A ran first, all of it: S refused to both */
	run_pair(four, 0xC0, 0, tk, ts, 3, sent, stats);
	for (unsigned int t = 0; t < 3; t++)
		HGW_CHECK_EQ(sent[t], want_a_first[t]);
	HGW_CHECK_EQ(stats[1].full, 2);
	HGW_CHECK_EQ(stats[1].won + stats[1].lost, 0);
}

/* Claimers racing to create slots: threads start together and meet the
 * same keys in different orders (or the same order, so they race on one
 * free slot with one key), some with a phantom key of their own first.
 * After every round: no key in two slots, every key that got a slot has
 * each of its triggers sent exactly once, and a key that got none was
 * sent never. */
#define RACE_ROUNDS 3000
#define RACE_SEQS   4
#define RACE_KEYS   (2 + MAXW)	/* 2 shared, one phantom per thread */

struct racer {
	alignas(HGW_DEDUP_LINE) unsigned int id, nth;
	int order;			/* 0: same order, 1: rotated */
	int phantom;			/* claim a phantom of its own first */
	struct hgw_dedup_stats st;
	uint32_t wins[RACE_KEYS][RACE_SEQS + 1];
};

static struct racer R[MAXW];
static pthread_barrier_t race_start, race_end;
static _Atomic int race_go;	/* round number, 0: not yet */
static _Atomic int race_quit;

/* A claimer that saw a free slot waits ~20 us before its CAS: long
 * enough that a peer started by the same barrier reads the slot as free
 * too, on 2 CPUs as well (4 threads: the yield lets a waiting one run). */
static void
race_hook(void)
{
	double t0 = now_s();

	sched_yield();
	while (now_s() - t0 < 20e-6)
		;
}

static uint64_t
race_key(unsigned int k)
{
	/* distinct, non-zero, not in slot order */
	return 0x8000000000000000ULL | (0x9E3779B97F4A7C15ULL * (k + 1) >> 4);
}

static void *
racer_main(void *arg)
{
	struct racer *r = arg;

	for (int round = 1;; round++) {
		pthread_barrier_wait(&race_start);
		/* relaxed: the barrier orders everything; this only says
		 * whether to run another round */
		if (atomic_load_explicit(&race_quit, memory_order_relaxed))
			return NULL;
		/* spin until the main thread lets the round go, so the
		 * running threads enter their first claim together (the
		 * barrier alone wakes them microseconds apart); relaxed:
		 * a start signal, the barrier already published the setup */
		for (unsigned int spin = 0;
		     atomic_load_explicit(&race_go, memory_order_relaxed) !=
		     round; spin++)
			if (spin > 1000)
				sched_yield();
		if (r->phantom &&
		    hgw_dedup_claim_count(&dd, &r->st, race_key(2 + r->id), 1))
			r->wins[2 + r->id][1]++;
		for (uint64_t seq = 1; seq <= RACE_SEQS; seq++)
			for (unsigned int j = 0; j < 2; j++) {
				unsigned int k = r->order ? (j + r->id) % 2 : j;

				if (hgw_dedup_claim_count(&dd, &r->st,
							  race_key(k), seq))
					r->wins[k][seq]++;
			}
		pthread_barrier_wait(&race_end);
	}
}

static void
test_claim_slot_race(void)
{
	pthread_t th[MAXW];
	uint32_t bad_slots = 0, bad_sends = 0, dups = 0, rounds_full = 0;
	uint32_t nth_runs = 0;

	/* relaxed: set before the threads exist (pthread_create orders it) */
	atomic_store_explicit(&race_widen, 1, memory_order_relaxed);
	for (unsigned int nth = 2; nth <= MAXW; nth += MAXW - 2) {
		atomic_store(&race_go, 0);
		atomic_store(&race_quit, 0);
		pthread_barrier_init(&race_start, NULL, nth + 1);
		pthread_barrier_init(&race_end, NULL, nth + 1);
		for (unsigned int t = 0; t < nth; t++) {
			R[t].id = t;
			R[t].nth = nth;
			if (pthread_create(&th[t], NULL, racer_main, &R[t])) {
				perror("pthread_create");
				exit(2);
			}
		}
		for (int round = 1; round <= RACE_ROUNDS; round++) {
			uint32_t slots_of[RACE_KEYS] = { 0 };

			hgw_dedup_init(&dd);
			for (unsigned int t = 0; t < nth; t++) {
				R[t].order = round % 3 == 1;
				R[t].phantom = round % 3 == 2;
				memset(&R[t].st, 0, sizeof(R[t].st));
				memset(R[t].wins, 0, sizeof(R[t].wins));
			}
			pthread_barrier_wait(&race_start);
			atomic_store_explicit(&race_go, round,
					      memory_order_relaxed);
			pthread_barrier_wait(&race_end);

			/* no key in two slots; taken slots form a prefix */
			for (unsigned int i = 0; i < HGW_DEDUP_MAX_SESSIONS;
			     i++) {
				uint64_t key = atomic_load(&dd.slot[i].key);

				if (key == 0) {
					for (unsigned int j = i + 1;
					     j < HGW_DEDUP_MAX_SESSIONS; j++)
						bad_slots += atomic_load(
							&dd.slot[j].key) != 0;
					break;
				}
				for (unsigned int k = 0; k < RACE_KEYS; k++)
					slots_of[k] += key == race_key(k);
			}
			for (unsigned int k = 0; k < RACE_KEYS; k++) {
				int phantom = k >= 2;
				unsigned int owner = k - 2;

				bad_slots += slots_of[k] > 1;
				if (phantom && (!R[0].phantom || owner >= nth))
					continue;	/* not offered */
				for (uint64_t seq = 1; seq <= RACE_SEQS; seq++) {
					uint32_t n = 0;

					if (phantom && seq > 1)
						break;
					for (unsigned int t = 0; t < nth; t++)
						n += R[t].wins[k][seq];
					/* exactly once with a slot, never
					 * without one */
					dups += n > 1;
					if (n != (slots_of[k] != 0) &&
					    bad_sends++ == 0)
						printf("# race %u threads round "
						       "%d: key %u seq %" PRIu64
						       " sent %u times, %u "
						       "slots\n", nth, round,
						       k, seq, n, slots_of[k]);
				}
				rounds_full += slots_of[k] == 0;
			}
		}
		atomic_store(&race_quit, 1);
		pthread_barrier_wait(&race_start);
		for (unsigned int t = 0; t < nth; t++)
			pthread_join(th[t], NULL);
		pthread_barrier_destroy(&race_start);
		pthread_barrier_destroy(&race_end);
		nth_runs++;
	}
	atomic_store_explicit(&race_widen, 0, memory_order_relaxed);
	HGW_CHECK_EQ(nth_runs, 2);
	HGW_CHECK_EQ(bad_slots, 0);
	HGW_CHECK_EQ(bad_sends, 0);
	HGW_CHECK_EQ(dups, 0);
	/* with 4 threads and phantoms, 6 keys met 4 slots */
	HGW_CHECK(rounds_full > 0);
	printf("# slot race: %d rounds each with 2 and %d threads, %u keys "
	       "refused for a full table\n", RACE_ROUNDS, MAXW, rounds_full);
}

/* ---- claim mode ----------------------------------------------------------- */

static unsigned int cur_nw;

static void *
claim_worker(void *arg)
{
	struct worker *k = arg;
	unsigned int next_stall = 0;
	uint32_t end = k->stop_at == NO_STOP ? NTRIG : k->stop_at;

	pthread_barrier_wait(k->start);
	for (uint32_t i = 0; i < end; i++) {
		stall_hook(k, cur_nw, i, &next_stall);
		if (hgw_dedup_claim_count(k->d, &k->st,
					  skey[trigs[i].session], trigs[i].seq))
			k->wins[k->nwins++] = i;
		/* relaxed: a progress hint for the stall check only */
		atomic_store_explicit(&k->progress, i + 1u,
				      memory_order_relaxed);
	}
	atomic_store_explicit(&k->progress, DONE, memory_order_relaxed);
	return NULL;
}

static void
test_claim_mode(void)
{
	uint64_t s = seed0 ^ 0xC1A1;

	for (unsigned int ri = 0; ri < NRUNS; ri++) {
		const struct run *r = &runs[ri];
		double t0 = now_s();
		uint64_t won = 0, lost = 0;

		plan(r, &s);
		HGW_CHECK_EQ(hgw_dedup_init(&dd), 0);
		cur_nw = r->nw;
		for (unsigned int w = 0; w < r->nw; w++)
			W[w].d = &dd;
		run_threads(r, claim_worker);

		memset(cnt, 0, NTRIG);
		for (unsigned int w = 0; w < r->nw; w++) {
			struct worker *k = &W[w];
			uint32_t produced = k->stop_at == NO_STOP ? NTRIG
								  : k->stop_at;

			for (uint32_t j = 0; j < k->nwins; j++) {
				cnt[k->wins[j]]++;
				HGW_CHECK(k->wins[j] < produced);
			}
			HGW_CHECK_EQ(k->st.won, k->nwins);
			HGW_CHECK_EQ(k->st.full, 0);
			HGW_CHECK_EQ(k->st.won + k->st.lost, produced);
			won += k->st.won;
			lost += k->st.lost;
		}
		check_exactly_once("claim", r);
		check_stalls("claim", r);
		HGW_CHECK_EQ(won, NTRIG);
		/* the mark ends on the last trigger of each session */
		for (unsigned int sn = 0; sn < HGW_DEDUP_MAX_SESSIONS; sn++) {
			uint64_t last = 0;

			for (uint32_t i = NTRIG; i-- > 0;)
				if (trigs[i].session == sn) {
					last = trigs[i].seq;
					break;
				}
			HGW_CHECK_EQ(hgw_dedup_mark(&dd, skey[sn]), last);
		}
		printf("# claim %-18s won", r->name);
		for (unsigned int w = 0; w < r->nw; w++)
			printf(" %" PRIu64, W[w].st.won);
		printf(" lost %" PRIu64 " (%.2f s)\n", lost, now_s() - t0);
	}
}

/* ---- tx-lcore mode: SP/SC rings to one TX consumer ------------------------ */

struct order {
	uint64_t seq;
	uint32_t idx;		/* trigger index, for the checks only */
	uint16_t session;
	uint16_t worker;
};

/* Lock-free single-producer single-consumer ring. */
struct spsc {
	/* producer line */
	alignas(HGW_DEDUP_LINE) _Atomic uint32_t head;	/* next slot to fill */
	uint32_t tail_cache;			/* producer's view of tail */
	/* consumer line */
	alignas(HGW_DEDUP_LINE) _Atomic uint32_t tail;	/* next slot to drain */
	uint32_t head_cache;			/* consumer's view of head */
	/* producer finished (stopped or done) */
	alignas(HGW_DEDUP_LINE) _Atomic int done;
	alignas(HGW_DEDUP_LINE) struct order slot[RING_SIZE];
};

static struct spsc rings[MAXW];

static int
spsc_push(struct spsc *q, const struct order *o)
{
	/* relaxed: head is written by this thread only */
	uint32_t h = atomic_load_explicit(&q->head, memory_order_relaxed);

	if (h - q->tail_cache == RING_SIZE) {
		/* acquire: pairs with the consumer's release of tail, so its
		 * reads of the slots it freed happen before we overwrite */
		q->tail_cache = atomic_load_explicit(&q->tail,
						     memory_order_acquire);
		if (h - q->tail_cache == RING_SIZE)
			return 0;
	}
	q->slot[h & (RING_SIZE - 1)] = *o;
	/* release: the slot write above is visible before the new head */
	atomic_store_explicit(&q->head, h + 1, memory_order_release);
	return 1;
}

static int
spsc_pop(struct spsc *q, struct order *o)
{
	/* relaxed: tail is written by this thread only */
	uint32_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);

	if (t == q->head_cache) {
		/* acquire: pairs with the producer's release of head, so the
		 * slot contents are visible */
		q->head_cache = atomic_load_explicit(&q->head,
						     memory_order_acquire);
		if (t == q->head_cache)
			return 0;
	}
	*o = q->slot[t & (RING_SIZE - 1)];
	/* release: our slot read is done before the producer may reuse it */
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
	return 1;
}

static void *
txl_producer(void *arg)
{
	struct worker *k = arg;
	unsigned int next_stall = 0;
	uint32_t end = k->stop_at == NO_STOP ? NTRIG : k->stop_at;

	pthread_barrier_wait(k->start);
	for (uint32_t i = 0; i < end; i++) {
		struct order o = { trigs[i].seq, i, trigs[i].session,
				   (uint16_t)k->id };

		stall_hook(k, cur_nw, i, &next_stall);
		/* A full ring is retried, never skipped: dropping one order
		 * from the middle of a stream would make this worker an
		 * unfaithful replica for the filter (see hgw_dedup.h). */
		while (!spsc_push(k->ring, &o))
			sched_yield();
		atomic_store_explicit(&k->progress, i + 1u,
				      memory_order_relaxed);
	}
	atomic_store_explicit(&k->progress, DONE, memory_order_relaxed);
	/* release: all pushes above are visible to whoever sees done */
	atomic_store_explicit(&k->ring->done, 1, memory_order_release);
	return NULL;
}

struct consumer {
	unsigned int nw;
	struct hgw_dedup_filter f;
};

static void *
txl_consumer(void *arg)
{
	struct consumer *c = arg;
	unsigned int live = c->nw;
	int finished[MAXW] = { 0 };

	while (live) {
		int idle = 1;

		for (unsigned int w = 0; w < c->nw; w++) {
			struct order o;
			int got = 0;

			if (finished[w])
				continue;
			/* acquire: pairs with the producer's release of
			 * done: read before draining, so an empty ring
			 * after done really is the end of the stream */
			int done = atomic_load_explicit(&rings[w].done,
							memory_order_acquire);

			while (got < 32 && spsc_pop(&rings[w], &o)) {
				got++;
				if (hgw_dedup_filter_first(&c->f,
							   skey[o.session],
							   o.seq, o.worker))
					cnt[o.idx]++;	/* "sent" */
			}
			if (got)
				idle = 0;
			else if (done) {
				finished[w] = 1;
				live--;
			}
		}
		if (idle)
			sched_yield();
	}
	return NULL;
}

static void
test_txlcore_mode(void)
{
	uint64_t s = seed0 ^ 0x7C01;

	for (unsigned int ri = 0; ri < NRUNS; ri++) {
		const struct run *r = &runs[ri];
		static struct consumer c;
		pthread_t ct;
		double t0 = now_s();
		uint64_t passed = 0;

		plan(r, &s);
		cur_nw = r->nw;
		memset(cnt, 0, NTRIG);
		hgw_dedup_filter_init(&c.f);
		c.nw = r->nw;
		for (unsigned int w = 0; w < r->nw; w++) {
			atomic_init(&rings[w].head, 0);
			atomic_init(&rings[w].tail, 0);
			atomic_init(&rings[w].done, 0);
			rings[w].tail_cache = rings[w].head_cache = 0;
			W[w].ring = &rings[w];
		}
		if (pthread_create(&ct, NULL, txl_consumer, &c) != 0) {
			perror("pthread_create");
			exit(2);
		}
		run_threads(r, txl_producer);
		pthread_join(ct, NULL);

		check_exactly_once("tx-lcore", r);
		check_stalls("tx-lcore", r);
		for (unsigned int w = 0; w < r->nw; w++) {
			uint32_t produced = W[w].stop_at == NO_STOP ? NTRIG
								    : W[w].stop_at;

			HGW_CHECK_EQ(c.f.passed[w] + c.f.dropped[w], produced);
			passed += c.f.passed[w];
		}
		HGW_CHECK_EQ(passed, NTRIG);
		HGW_CHECK_EQ(c.f.invalid, 0);
		printf("# tx-lcore %-18s passed", r->name);
		for (unsigned int w = 0; w < r->nw; w++)
			printf(" %" PRIu64, c.f.passed[w]);
		printf(" (%.2f s)\n", now_s() - t0);
	}
}

/* ---- downstream mode: one filter over an interleaving of all streams ------ */

enum merge { MERGE_RANDOM, MERGE_BURSTY, MERGE_SERIAL, MERGE_REVERSE };

static void
downstream_once(unsigned int nw, enum merge how, int stop, uint64_t *s)
{
	static const char *const names[] = { "random", "bursty", "serial",
					     "reverse" };
	struct hgw_dedup_filter f;
	uint32_t pos[MAXW] = { 0 }, end[MAXW];
	unsigned int live = nw;
	uint64_t passed = 0;

	hgw_dedup_filter_init(&f);
	memset(cnt, 0, NTRIG);
	for (unsigned int w = 0; w < nw; w++)
		end[w] = NTRIG;
	if (stop)	/* one worker stops for good */
		end[rnd(s) % nw] = (uint32_t)(rnd(s) % NTRIG);
	while (live) {
		unsigned int w;
		uint32_t burst;

		switch (how) {
		case MERGE_SERIAL:	/* worker 0 all, then 1, ... */
			w = 0;
			while (pos[w] >= end[w])
				w++;
			burst = UINT32_MAX;
			break;
		case MERGE_REVERSE:	/* worker n-1 all, then n-2, ... */
			w = nw - 1;
			while (pos[w] >= end[w])
				w--;
			burst = UINT32_MAX;
			break;
		case MERGE_BURSTY:	/* runs up to ~one stall long */
			w = (unsigned int)(rnd(s) % nw);
			burst = (rnd(s) % 16 == 0) ? (uint32_t)(rnd(s) % 20000)
						   : (uint32_t)(rnd(s) % 8);
			break;
		default:		/* element by element */
			w = (unsigned int)(rnd(s) % nw);
			burst = 1;
			break;
		}
		for (uint32_t b = 0; b < burst && pos[w] < end[w]; b++) {
			uint32_t i = pos[w]++;

			if (hgw_dedup_filter_first(&f,
						   skey[trigs[i].session],
						   trigs[i].seq, (uint16_t)w))
				cnt[i]++;
		}
		live = 0;
		for (unsigned int v = 0; v < nw; v++)
			live += pos[v] < end[v];
	}
	struct run r = { names[how], nw, 0, 0, stop };

	check_exactly_once("downstream", &r);
	for (unsigned int w = 0; w < nw; w++) {
		HGW_CHECK_EQ(f.passed[w] + f.dropped[w], end[w]);
		passed += f.passed[w];
	}
	HGW_CHECK_EQ(passed, NTRIG);
	printf("# downstream %uw %-7s%s passed", nw, names[how],
	       stop ? " stop" : "     ");
	for (unsigned int w = 0; w < nw; w++)
		printf(" %" PRIu64, f.passed[w]);
	printf("\n");
}

static void
test_downstream_mode(void)
{
	uint64_t s = seed0 ^ 0xD0D0;

	for (unsigned int nw = 2; nw <= MAXW; nw++)
		for (int how = MERGE_RANDOM; how <= MERGE_REVERSE; how++)
			for (int stop = 0; stop <= 1; stop++)
				downstream_once(nw, (enum merge)how, stop, &s);
}

int
main(void)
{
	const char *e = getenv("HGW_TEST_SEED");

	setvbuf(stdout, NULL, _IOLBF, 0);
	seed0 = e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL);
	seed0 |= 1;	/* xorshift needs a non-zero state */
	printf("# HGW_TEST_SEED=%" PRIu64 "\n", seed0);

	trigs = calloc(NTRIG, sizeof(*trigs));
	cnt = calloc(NTRIG, 1);
	int oom = !trigs || !cnt;

	for (unsigned int w = 0; w < MAXW; w++) {
		W[w].wins = calloc(NTRIG, sizeof(uint32_t));
		oom |= !W[w].wins;
	}
	if (oom) {
		printf("Bail out! out of memory\n");
		return 1;
	}
	make_triggers(seed0);

	HGW_TEST(test_layout);
	HGW_TEST(test_claim_semantics);
	HGW_TEST(test_filter_semantics);
	HGW_TEST(test_claim_schedules);
	HGW_TEST(test_session_order);
	HGW_TEST(test_claim_full);
	HGW_TEST(test_claim_slot_race);
	HGW_TEST(test_claim_mode);
	HGW_TEST(test_txlcore_mode);
	HGW_TEST(test_downstream_mode);

	for (unsigned int w = 0; w < MAXW; w++)
		free(W[w].wins);
	free(cnt);
	free(trigs);
	return hgw_test_done();
}
