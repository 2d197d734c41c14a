/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: dedup stage. The fast-path calls (hgw_dedup_slot,
 * hgw_dedup_claim_slot, hgw_dedup_claim, hgw_dedup_filter_first) are inline
 * in hgw_dedup.h; this file holds the set-up calls and the correctness
 * argument for claim mode.
 *
 * Claim mode, exactly once, with relaxed atomics only. Facts used, all
 * guaranteed for a single atomic object by C11 even with
 * memory_order_relaxed, and by the hardware on x86 (TSO) and on Arm
 * (per-location coherence, single-copy atomicity of aligned 64-bit
 * accesses, exclusive-monitor or LSE CAS atomicity):
 *   (a) all writes to one atomic object form one modification order MO;
 *   (b) an RMW (our CAS) reads the value written immediately before its
 *       own write in MO (atomicity);
 *   (c) coherence: if A is sequenced before B in one thread, B reads or
 *       writes no earlier in MO than A read or wrote.
 * Every argument below is about one object at a time: no step needs an
 * order between two different words, which is why relaxed is enough.
 *
 * Part 1, one slot per key. hgw_dedup_init() writes 0 to every key word
 * before the workers start (thread launch makes that write happen-before
 * all of theirs, so it is first in MO). After that, a key word is only
 * written by a successful CAS from 0, and by (b) such a CAS reads the value
 * just before it in MO: 0 only the first time, since it then writes a
 * non-zero key. So a key word's MO is 0 then at most one key K_i, and every
 * load or failed CAS of it returns 0 or K_i. hgw_dedup_slot(K) scans slots
 * 0, 1, ... in order and moves past slot i only after reading a non-zero
 * value other than K there (a load, or the failed CAS that follows a read
 * of 0), i.e. K_i != K; it returns i after reading K there, or after its
 * CAS wrote K there. Now suppose K ended up in two slots i < j. Slot j got
 * K from some worker's successful CAS, and that worker's scan had moved
 * past slot i, so K_i != K: contradiction. Hence every worker that gets a
 * slot for K gets the same slot, and every claim of K works on one mark.
 * Also: if a scan returns -1, it read a key other than K, for good, in
 * every slot, so K never gets a slot and no worker ever sends a trigger of
 * K: a full table refuses a session whole, never part of it.
 *
 * Part 2, one mark. Fix one key and its slot's mark M (0 from init, first
 * in MO as above). Only a successful CAS writes M, and it replaces cur < seq
 * by seq, so the values along MO strictly increase.
 *
 * At most once (needs no assumption about the workers): a claim of s
 * returns 1 only if its CAS wrote s over a value < s. Two such CASes would
 * both write s; the later one in MO reads (b) a value at or after the
 * earlier write, i.e. >= s, and fails. So s is won at most once.
 *
 * At least once (assumes every worker that claims any s' > s claims s
 * earlier in its own program order, i.e. faithful replicas with per-session
 * increasing sequences): suppose nobody wins s but some worker W offered
 * it. W lost, so it read a value >= s, not s, hence > s: some write of a
 * value > s exists. Let X's CAS writing v > s be the first such write in
 * MO. X claimed s before v; by (c) every read X made while claiming s is
 * no later in MO than X's write of v, so it saw a value < s (everything
 * before that write is < s, as nobody wrote s). So X's claim of s kept
 * trying the CAS, and a CAS that reads a value < s either writes s (X wins
 * s: contradiction) or fails because M changed, and the loop runs again
 * with a fresh value that is still < s; the loop ends only by a win,
 * since the first write > s is X's own and comes later. Contradiction.
 *
 * Progress: a CAS fails only if M changed since it was read (or spuriously,
 * on LL/SC), so some claim succeeded: lock-free. A stalled or dead worker
 * holds nothing; the others never wait for it. Under the replica
 * assumption a CAS fails on a real change only when another copy of the
 * same trigger (or a later one) won, so the retry sees cur >= seq and
 * loses: one RMW at most per order, zero for a late copy.
 *
 * Why no acquire/release: no data flows through M, nor through a key word
 * (what a worker reads there is the key itself, and the mark it then uses
 * was zeroed before any worker started). Each worker sends an order built
 * from its own replica; a loser drops its own copy. Ordering M or a key
 * against other memory would buy nothing and cost barriers on Arm (and a
 * winner's tx_burst is control-dependent on its CAS result anyway).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hgw_dedup.h"

int
hgw_dedup_init(struct hgw_dedup *d)
{
	if (d == NULL || ((uintptr_t)d & (HGW_DEDUP_LINE - 1)) != 0)
		return -EINVAL;
	memset(d, 0, sizeof(*d));	/* padding too: nothing stale on the lines */
	for (unsigned int i = 0; i < HGW_DEDUP_MAX_SESSIONS; i++) {
		/* relaxed: set-up before the workers exist; launching them
		 * (pthread_create / rte_eal_remote_launch) synchronises. */
		atomic_init(&d->slot[i].key, 0);
		atomic_init(&d->slot[i].seq, 0);
	}
	return 0;
}

uint64_t
hgw_dedup_mark(const struct hgw_dedup *d, uint64_t key)
{
	if (key == 0)
		return 0;
	for (unsigned int i = 0; i < HGW_DEDUP_MAX_SESSIONS; i++)
		/* relaxed: a telemetry snapshot; orders nothing. A key is
		 * never in two slots (see above), so the first match is it. */
		if (atomic_load_explicit(&d->slot[i].key,
					 memory_order_relaxed) == key)
			return atomic_load_explicit(&d->slot[i].seq,
						    memory_order_relaxed);
	return 0;
}

void
hgw_dedup_filter_init(struct hgw_dedup_filter *f)
{
	memset(f, 0, sizeof(*f));
}
