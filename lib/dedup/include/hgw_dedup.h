/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: dedup stage, "first order per trigger wins".
 *
 * A trigger is (session key, sequence number >= 1). The session key is the
 * MoldUDP64 session's own identity (hgw_feed_session_key(): non-zero, the
 * same in every worker), never the order in which a worker happened to
 * meet its sessions: replicas that meet sessions in different orders (a
 * corrupted copy creating a phantom session in one worker, say) still
 * name every trigger alike. The N workers are deterministic replicas
 * (design principle 1): they see the same feed and each produces at most
 * one order per trigger, and every worker produces its triggers of a
 * session in strictly increasing sequence order. Hence "first copy wins"
 * is decided by one high-water mark per session: a copy of trigger s
 * passes iff no copy of a trigger >= s of that session passed before it.
 * Three modes, one rule:
 *
 *   claim      each worker calls hgw_dedup_claim() (one shared struct
 *              hgw_dedup) and, if it won, sends on its own TX queue;
 *   tx-lcore   workers hand orders over SP/SC rings (FIFO, one per worker)
 *              to one TX lcore that calls hgw_dedup_filter_first();
 *   downstream every worker sends; a separate filter stage (single thread)
 *              calls hgw_dedup_filter_first() on the merged streams.
 *
 * Each mode keeps up to HGW_DEDUP_MAX_SESSIONS slots, one per session key,
 * taken on the key's first use and never given back: a mark is found by
 * its key, never by a position some worker chose.
 *
 * Exactly once (proof sketch; the claim-mode version is in dedup.c):
 *  - One mark per key: every copy of a trigger of session K is judged
 *    against the same mark (claim mode: dedup.c shows that two workers can
 *    never end up on two slots for one key).
 *  - At most once, unconditionally: the mark of a session only ever grows
 *    and a copy of s passes only by moving the mark from below s to s.
 *    The mark can move past s only once, so two copies of s cannot both
 *    pass, whatever the timing and whatever the workers feed in.
 *  - At least once, under the replica assumption "every worker that
 *    produces any trigger > s of this session also produced s, before it":
 *    if no copy of s passed, take the first copy of any s' > s that passed;
 *    its worker offered s before s' and at that time the mark was below s
 *    (nothing >= s had passed yet), so that copy of s passed: contradiction.
 *  - A stalled worker only loses races when it comes back (the mark moved
 *    on); a worker that stops for good is simply absent; nobody waits for
 *    anybody (lock-free: a claim retries only when another claim succeeded).
 *  - A worker that is NOT a faithful replica (it missed input, a ring
 *    overflow dropped one of its orders, it decided differently) can still
 *    never cause a duplicate. But if it produced s+1 without s while ahead
 *    of every worker that produces s, s is lost (the mark is past it), and
 *    an order it alone produces is sent (a phantom session's, say). That
 *    is why a replica that saw a gap must stop trading until
 *    resynchronised (principle 1), and why a worker must never drop one
 *    order from the middle of its stream (in tx-lcore mode: retry a full
 *    ring or stop handing over altogether).
 *  - Not covered: a winner that dies or stalls between its claim and its
 *    tx_burst. That one order is late (stall) or lost (death); no other
 *    worker can send it without risking a duplicate. Orders after it flow.
 *
 * Inputs outside the contract (key 0, seq 0, which MoldUDP64 never numbers
 * a message with) never pass, and neither does a session whose key finds
 * every slot taken by other keys (phantom sessions can fill the table):
 * failing safe means not sending. Slots are never freed, so such a session
 * is refused to every worker for good, never sent in part. seq UINT64_MAX
 * passes once and closes the session.
 *
 * Plain C11 (<stdatomic.h>), no DPDK: the unit test and the benchmarks link
 * it without an EAL.
 */
#ifndef HGW_DEDUP_H
#define HGW_DEDUP_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hgw_cacheline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HGW_DEDUP_MAX_SESSIONS 4
#define HGW_DEDUP_MAX_WORKERS  16
/* One mark per cache line: RTE_CACHE_LINE_SIZE (128 in DPDK's generic
 * armv8 build, 64 on x86-64), see hgw_cacheline.h. */
#define HGW_DEDUP_LINE         HGW_CACHE_LINE_SIZE

/* Layouts public because the per-message path claims inline
 * (hgw_dedup_claim*, hgw_dedup_filter_first) and the workers and the TX
 * lcore embed the stats and the filter by value. */

/* One session's slot, alone on its cache line: its key and its mark, the
 * only words the workers share. The key is read by every claim of the
 * session just before the mark, on the same line, so the lookup costs no
 * extra line; it is written once, so it adds no bouncing of its own. */
struct hgw_dedup_entry {
	/* session key, 0 = free; goes 0 -> key once, then never changes */
	alignas(HGW_DEDUP_LINE) _Atomic uint64_t key;
	_Atomic uint64_t seq;	/* the mark: highest passed, 0 = none */
	char pad[HGW_DEDUP_LINE - 2 * sizeof(_Atomic uint64_t)];
};

_Static_assert(sizeof(struct hgw_dedup_entry) == HGW_DEDUP_LINE,
	       "a slot is exactly one cache line");
_Static_assert(alignof(struct hgw_dedup_entry) == HGW_DEDUP_LINE,
	       "a slot starts a cache line, so its atomics cannot straddle one");
/* A lock-based fallback would break "no locks" (and be slow). */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

/* Shared claim state (claim mode). Place it HGW_DEDUP_LINE aligned in
 * shared memory (static storage, rte_zmalloc(..., HGW_DEDUP_LINE), a
 * memzone). */
struct hgw_dedup {
	struct hgw_dedup_entry slot[HGW_DEDUP_MAX_SESSIONS];
};

_Static_assert(sizeof(struct hgw_dedup) ==
	       HGW_DEDUP_MAX_SESSIONS * HGW_DEDUP_LINE, "no hidden members");

/* Per-worker race counters: plain, written only by their worker, one line
 * each (keep them in the worker's own state, never on the shared line).
 * A live reader (telemetry) gets untorn aligned 64-bit loads on 64-bit
 * targets, as with DPDK's per-lcore stats; strictly that is a C11 data
 * race, so exact totals are read after the worker stopped. */
struct hgw_dedup_stats {
	alignas(HGW_DEDUP_LINE) uint64_t won;	/* claims won: orders sent */
	uint64_t lost;				/* races lost: late copies dropped */
	uint64_t full;		/* no slot for the session key: not sent */
};

_Static_assert(sizeof(struct hgw_dedup_stats) == HGW_DEDUP_LINE &&
	       alignof(struct hgw_dedup_stats) == HGW_DEDUP_LINE,
	       "worker stats fill exactly one line of their own");

/* Free every slot ("no session, nothing passed yet"). Call before the
 * workers start (thread creation / rte_eal_remote_launch publishes the
 * stores). Returns 0, or -EINVAL if d is NULL or not HGW_DEDUP_LINE
 * aligned. */
int hgw_dedup_init(struct hgw_dedup *d);

/* Test-only: runs between reading a slot's key as free and the CAS that
 * tries to take it, so a unit test can widen that window and make racing
 * claimers meet there. Empty unless defined before this header is
 * included (tests/unit/test_dedup.c). */
#ifndef HGW_DEDUP_SLOT_HOOK
#define HGW_DEDUP_SLOT_HOOK(slot) do { } while (0)
#endif

/* The slot of session key, taking the first free one on the key's first
 * use. Returns the slot index (0..HGW_DEDUP_MAX_SESSIONS-1), or -1 if key
 * is 0 or every slot holds another key. Wait-free: slots are scanned in
 * index order, one load each; the first free one is taken by a CAS, which
 * fails only when another worker has just taken that slot (for this key:
 * done; for another: the scan goes on). So at most
 * HGW_DEDUP_MAX_SESSIONS loads and CASes. Once the key has its slot (the
 * fast path) only loads: of that slot's key, on the line the claim reads
 * next anyway, and of the keys of the slots before it, on lines other
 * sessions' marks may be bouncing. A key's slot never changes until
 * hgw_dedup_init(), so a caller may keep the index (hgw_dedup_claim_slot).
 *
 * Memory orders: relaxed. A slot's key word only ever holds 0 and then
 * its one key, so any value read is either "free" (and the CAS, which reads
 * the latest value, settles it) or the slot's key for good; the argument
 * that no key gets two slots uses nothing but that (dedup.c). The key
 * publishes nothing: the mark was zeroed by hgw_dedup_init() before any
 * worker started. */
static inline int
hgw_dedup_slot(struct hgw_dedup *d, uint64_t key)
{
	if (key == 0)
		return -1;
	for (int i = 0; i < HGW_DEDUP_MAX_SESSIONS; i++) {
		_Atomic uint64_t *k = &d->slot[i].key;
		/* relaxed: a stale 0 only sends us to the CAS below */
		uint64_t cur = atomic_load_explicit(k, memory_order_relaxed);

		if (cur == 0) {
			HGW_DEDUP_SLOT_HOOK(i);
			/* The first free slot: take it for key. relaxed on
			 * success and failure: the CAS is the decision and
			 * orders nothing else. strong: a spurious failure
			 * would leave cur 0 and need a loop. On failure cur
			 * gets the key another worker put there: ours (use
			 * it) or another (look further). */
			if (atomic_compare_exchange_strong_explicit(
					k, &cur, key, memory_order_relaxed,
					memory_order_relaxed))
				return i;
		}
		if (cur == key)
			return i;
	}
	return -1;
}

/* Claim trigger (slot's session, seq) for the calling worker, slot from
 * hgw_dedup_slot(). Returns 1 if this copy wins (send it), 0 if it lost
 * the race (drop it and count a race lost) or the input is outside the
 * contract (slot out of range, seq 0). Lock-free; at most one successful
 * atomic RMW per call, none when the copy is late.
 *
 * Memory orders: all relaxed, on purpose. Exactly-once needs only what every
 * single atomic object gets even when relaxed, on x86 and on Arm alike: one
 * modification order that all threads agree on, RMW atomicity (a CAS reads
 * the latest value in that order) and per-thread coherence (a thread never
 * reads an older value than one it has already read or written). The mark
 * carries no data: the winner sends its own order built from its own
 * replica, the loser reads nothing the winner wrote; so there is nothing to
 * publish (release) or to see (acquire). If a caller ever needs to read
 * data written by the winner, that pair needs release on the CAS and acquire
 * on the loads. See dedup.c for the full argument. */
static inline int
hgw_dedup_claim_slot(struct hgw_dedup *d, int slot, uint64_t seq)
{
	if ((unsigned int)slot >= HGW_DEDUP_MAX_SESSIONS || seq == 0)
		return 0;
	_Atomic uint64_t *m = &d->slot[slot].seq;
	/* relaxed: orders nothing. A stale (smaller: the mark only grows)
	 * value can only send us to the CAS, never make us lose wrongly.
	 * Testing before the CAS keeps the late copy (the common loser) from
	 * taking the line exclusive: a plain load, no RMW. */
	uint64_t cur = atomic_load_explicit(m, memory_order_relaxed);

	while (cur < seq) {
		/* relaxed on success and failure: the CAS is the decision
		 * itself and orders no other access. On failure cur gets the
		 * current mark (never older than what we read, by coherence)
		 * and the loop re-checks. Under the replica assumption a
		 * failure means another copy of this very trigger (or a later
		 * one) won, so the loop ends; weak: a spurious LL/SC failure
		 * just retries, and the loop is the retry anyway. */
		if (atomic_compare_exchange_weak_explicit(m, &cur, seq,
							  memory_order_relaxed,
							  memory_order_relaxed))
			return 1;
	}
	return 0;
}

/* Claim trigger (key, seq): hgw_dedup_slot() then hgw_dedup_claim_slot().
 * Returns 1 if this copy wins (send it), 0 otherwise: race lost, seq 0,
 * key 0, or no slot for key (not sent). A trigger with seq 0 takes no
 * slot. */
static inline int
hgw_dedup_claim(struct hgw_dedup *d, uint64_t key, uint64_t seq)
{
	if (seq == 0)
		return 0;
	return hgw_dedup_claim_slot(d, hgw_dedup_slot(d, key), seq);
}

/* hgw_dedup_claim() and count the outcome in the caller's own stats: won,
 * lost (race lost, or seq 0), full (key 0, or no slot for the key). */
static inline int
hgw_dedup_claim_count(struct hgw_dedup *d, struct hgw_dedup_stats *st,
		      uint64_t key, uint64_t seq)
{
	int won = 0;

	if (seq != 0) {
		int slot = hgw_dedup_slot(d, key);

		if (slot < 0) {
			st->full++;
			return 0;
		}
		won = hgw_dedup_claim_slot(d, slot, seq);
	}
	st->won += (uint64_t)won;
	st->lost += (uint64_t)!won;
	return won;
}

/* Highest sequence claimed so far in the session of key (0: none, or no
 * slot holds key). Takes no slot. For telemetry; relaxed: a snapshot, it
 * orders nothing. */
uint64_t hgw_dedup_mark(const struct hgw_dedup *d, uint64_t key);

/* Single-threaded first-copy filter (tx-lcore and downstream modes). Owned
 * and used by one thread only: no atomics. It must see each worker's orders
 * in that worker's order (one FIFO per worker; any interleaving of the
 * FIFOs is fine). Slot i holds session key[i] (0 = free) and its mark. */
struct hgw_dedup_filter {
	uint64_t key[HGW_DEDUP_MAX_SESSIONS];	/* taken in index order */
	uint64_t mark[HGW_DEDUP_MAX_SESSIONS];	/* highest passed, 0 = none */
	uint64_t passed[HGW_DEDUP_MAX_WORKERS];	/* per source worker */
	uint64_t dropped[HGW_DEDUP_MAX_WORKERS];	/* races lost, per worker */
	/* dropped: key 0, seq 0, worker out of range, or a key that found
	 * every slot taken by other keys */
	uint64_t invalid;
};

/* Reset slots, marks and counters. */
void hgw_dedup_filter_init(struct hgw_dedup_filter *f);

/* Offer worker's copy of trigger (key, seq). Returns 1 if it is the first
 * copy (send it), 0 if it is late (drop) or outside the contract (key 0,
 * seq 0, worker >= HGW_DEDUP_MAX_WORKERS, or a key beyond the
 * HGW_DEDUP_MAX_SESSIONS first ones; counted as invalid). */
static inline int
hgw_dedup_filter_first(struct hgw_dedup_filter *f, uint64_t key,
		       uint64_t seq, uint16_t worker)
{
	unsigned int i;

	if (key == 0 || seq == 0 || worker >= HGW_DEDUP_MAX_WORKERS) {
		f->invalid++;
		return 0;
	}
	for (i = 0; i < HGW_DEDUP_MAX_SESSIONS; i++) {
		if (f->key[i] == key)
			break;
		if (f->key[i] == 0) {	/* first use of key */
			f->key[i] = key;
			break;
		}
	}
	if (i == HGW_DEDUP_MAX_SESSIONS) {
		f->invalid++;
		return 0;
	}
	if (f->mark[i] >= seq) {
		f->dropped[worker]++;
		return 0;
	}
	f->mark[i] = seq;
	f->passed[worker]++;
	return 1;
}

/* Sessions the filter has met (slots taken). */
static inline unsigned int
hgw_dedup_filter_sessions(const struct hgw_dedup_filter *f)
{
	unsigned int n = 0;

	while (n < HGW_DEDUP_MAX_SESSIONS && f->key[n] != 0)
		n++;
	return n;
}

#ifdef __cplusplus
}
#endif

#endif /* HGW_DEDUP_H */
