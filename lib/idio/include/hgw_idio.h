/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: cache-aware RX buffers (the IDIO ideas: self-invalidation and
 * burst-driven prefetch; plus poisoning of freed buffers).
 *
 * Three independent switches, each measured (tests/bench/idio_bench.sh):
 *  - self-invalidation: when the last holder of a packet buffer is done,
 *    the cache lines of packet data that the parser read are invalidated
 *    (x86 clflushopt, or cldemote to push them to the LLC; Arm DC CIVAC)
 *    before the buffer returns to its pool, so dead packet data does not
 *    sit in L1/L2 evicting the book and the table, nor come back through
 *    write-backs. The mbuf header lines are left alone.
 *  - burst-driven L2 prefetch: when the arrival rate over the last short
 *    window (about 1 us) says a burst is on, the packets further ahead in
 *    the burst are prefetched into L2 (rte_prefetch1); a quiet feed
 *    prefetches nothing and a burst at most `depth` packets ahead.
 *  - poisoning: a freed buffer's first 64/128/256 bytes (whole lines) are
 *    overwritten with a pattern, on every free or a sampled fraction; the
 *    decoder counts a frame that starts with the pattern as a use after
 *    free (lib/feed, drop reason use_after_free) instead of acting on it.
 *
 * Plain C: the arithmetic and the controller are unit-tested without DPDK.
 */
#ifndef HGW_IDIO_H
#define HGW_IDIO_H

#include <stdint.h>
#include <string.h>

#include "hgw_cacheline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The line the counts, the poisoning rounding and the x86 flushes use:
 * RTE_CACHE_LINE_SIZE (hgw_cacheline.h). DC CIVAC on Arm steps by the
 * CPU's own smallest data line instead (struct hgw_idio_cpu, dc_line), so
 * a core with 64-byte lines under a 128-byte build misses none. */
#define HGW_IDIO_LINE HGW_CACHE_LINE_SIZE

/* What happens to the lines read once a buffer is dead. */
enum hgw_idio_inval {
	HGW_IDIO_INVAL_OFF,
	HGW_IDIO_INVAL_INVALIDATE,      /* clflushopt / DC CIVAC */
	HGW_IDIO_INVAL_DEMOTE,          /* cldemote: to the LLC */
};

/* Layouts public because the worker embeds the prefetch controller and
 * reads it with the inline functions below per burst, and keeps the CPU
 * support by value; the poison check used by the unit test is in
 * hgw_idio_internal.h. */

/* CPU support, detected once (hgw_idio_detect). */
struct hgw_idio_cpu {
	int clflushopt;         /* x86 CPUID.7.0:EBX[23] */
	int cldemote;           /* x86 CPUID.7.0:ECX[25] */
	int dc_civac;           /* AArch64: always there */
	uint32_t dc_line;       /* AArch64: smallest data-cache line, bytes
				 * (CTR_EL0.DminLine); 0 elsewhere */
};

void hgw_idio_detect(struct hgw_idio_cpu *cpu);

/* The instruction mode m will use on this CPU ("clflushopt",
 * "cldemote", "dc civac", or "none" when it is a no-op here), and whether
 * it does anything. */
const char *hgw_idio_inval_insn(const struct hgw_idio_cpu *cpu,
				enum hgw_idio_inval m, int *active);

/* The cache lines covering [addr, addr + len): the first line's address
 * in *first, the count returned (0 when len is 0). */
static inline uint32_t
hgw_idio_lines(uintptr_t addr, uint32_t len, uintptr_t *first)
{
	if (len == 0) {
		*first = addr & ~(uintptr_t)(HGW_IDIO_LINE - 1);
		return 0;
	}
	uintptr_t lo = addr & ~(uintptr_t)(HGW_IDIO_LINE - 1);
	uintptr_t hi = (addr + len - 1) & ~(uintptr_t)(HGW_IDIO_LINE - 1);

	*first = lo;
	return (uint32_t)((hi - lo) / HGW_IDIO_LINE + 1);
}

/* Invalidate (or demote) the lines of [p, p + len) with the instruction
 * hgw_idio_inval_insn names; a no-op when it is "none". */
void hgw_idio_inval(const struct hgw_idio_cpu *cpu, enum hgw_idio_inval m,
		    const void *p, uint32_t len);

/* ---- burst-driven prefetch moderation ------------------------------- */

/* Arrivals are counted per window of `window` TSC cycles (about 1 us);
 * the rate of the last complete window decides: below min_burst packets
 * it is a quiet feed (prefetch nothing), otherwise prefetch up to
 * max_depth packets ahead (never more than the burst holds). A window
 * with no arrival at all resets the rate. */
struct hgw_idio_pf {
	uint64_t window;        /* cycles */
	uint32_t min_burst;     /* packets per window that make a burst */
	uint32_t max_depth;     /* packets prefetched ahead, at most */
	uint64_t win_start;     /* start of the current window */
	uint32_t win_count;     /* arrivals in it */
	uint32_t last_rate;     /* arrivals in the previous window */
	uint64_t bursts;        /* decisions that prefetched */
	uint64_t prefetched;    /* packets prefetched */
};

void hgw_idio_pf_init(struct hgw_idio_pf *c, uint64_t window_cycles,
		      uint32_t min_burst, uint32_t max_depth);

/* n packets arrived at now; `ahead` more are in hand beyond the one
 * being processed. Returns how many of those to prefetch into L2:
 * 0 on a quiet feed, else at most max_depth and at most ahead. */
static inline uint32_t
hgw_idio_pf_arrive(struct hgw_idio_pf *c, uint64_t now, uint32_t n,
		   uint32_t ahead)
{
	if (now - c->win_start >= c->window) {
		/* a window has ended: its count is the rate, unless more
		 * than one window went by with nothing (then it is 0) */
		c->last_rate = now - c->win_start < 2 * c->window ?
			       c->win_count : 0;
		c->win_start = now;
		c->win_count = 0;
	}
	c->win_count += n;
	uint32_t rate = c->win_count > c->last_rate ? c->win_count :
			c->last_rate;

	if (c->max_depth == 0 || rate < c->min_burst || ahead == 0)
		return 0;
	uint32_t d = ahead < c->max_depth ? ahead : c->max_depth;

	c->bursts++;
	c->prefetched += d;
	return d;
}

/* One rx_burst of n packets at now: how many packets ahead to prefetch
 * while processing them (0..max_depth, and at most n - 1). */
static inline uint32_t
hgw_idio_pf_depth(struct hgw_idio_pf *c, uint64_t now, uint32_t n)
{
	return hgw_idio_pf_arrive(c, now, n, n != 0 ? n - 1 : 0);
}

/* ---- poisoning -------------------------------------------------------- */

/* The pattern: as an Ethernet frame it has EtherType 0xdead, so it can
 * never be a feed frame; the decoder checks for it only on frames it was
 * about to drop as not IPv4 (no cost on the good path). lib/feed defines
 * the same value (HGW_FEED_POISON) without depending on this library. */
#define HGW_IDIO_POISON 0xdeadbeefdeadbeefULL

/* Overwrite the first bytes of p (rounded up to whole lines, at most
 * room) with the pattern. */
static inline void
hgw_idio_poison(void *p, uint32_t bytes, uint32_t room)
{
	uint64_t v = HGW_IDIO_POISON;
	uint32_t n = (bytes + HGW_IDIO_LINE - 1) & ~(uint32_t)(HGW_IDIO_LINE - 1);

	if (n > room)
		n = room & ~7u;
	for (uint32_t i = 0; i < n; i += 8)
		memcpy((uint8_t *)p + i, &v, 8);
}

/* Sampled poisoning: poison one free in every `every` (1 = all). */
static inline int
hgw_idio_poison_due(uint32_t *counter, uint32_t every)
{
	if (++*counter < every)
		return 0;
	*counter = 0;
	return 1;
}

#ifdef __cplusplus
}
#endif

#endif /* HGW_IDIO_H */
