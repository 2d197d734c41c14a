/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: unit tests of the cache-aware RX buffer helpers (lib/idio)
 * and of the decoder's use-after-free detection (lib/feed). It looks inside
 * lib/idio: hgw_idio_internal.h (the poison check), on the include path of
 * this test only (tests/unit/meson.build).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame_build.h"
#include "hgw_feed.h"
#include "hgw_idio.h"
#include "hgw_idio_internal.h"
#include "hgw_test.h"

/* lib/feed recognises the pattern without depending on lib/idio: the two
 * definitions must agree, or a use after free reads as not_ipv4. */
_Static_assert(HGW_IDIO_POISON == HGW_FEED_POISON, "poison pattern");
_Static_assert(HGW_IDIO_POISON_CHECK == HGW_FEED_POISON_CHECK,
	       "poison bytes checked");

/* The lines of a range: a message inside one line, one crossing a line
 * boundary, one ending exactly on a boundary, empty ranges. */
static void
test_lines(void)
{
	const uint32_t L = HGW_IDIO_LINE;
	uintptr_t first;

	/* RTE_CACHE_LINE_SIZE, else the architecture's (hgw_cacheline.h) */
#if defined(HGW_RTE_CACHE_LINE_SIZE)
	HGW_CHECK_EQ(L, HGW_RTE_CACHE_LINE_SIZE);
#elif defined(__aarch64__)
	HGW_CHECK_EQ(L, 128);
#else
	HGW_CHECK_EQ(L, 64);
#endif
	HGW_CHECK_EQ(hgw_idio_lines(0x1000, L, &first), 1);
	HGW_CHECK_EQ(first, 0x1000);
	HGW_CHECK_EQ(hgw_idio_lines(0x1010, 20, &first), 1);
	HGW_CHECK_EQ(first, 0x1000);
	/* 36-byte message 14 bytes before a line's end: crosses */
	HGW_CHECK_EQ(hgw_idio_lines(0x1000 + L - 14, 36, &first), 2);
	HGW_CHECK_EQ(first, 0x1000);
	/* ends on the last byte of the second line: still two */
	HGW_CHECK_EQ(hgw_idio_lines(0x1000 + L - 1, L + 1, &first), 2);
	/* one byte more: three */
	HGW_CHECK_EQ(hgw_idio_lines(0x1000 + L - 1, L + 2, &first), 3);
	HGW_CHECK_EQ(hgw_idio_lines(0x1000 + 7, 0, &first), 0);
	/* a 92-byte frame read from a 128-byte headroom (mbuf data start):
	 * two 64-byte lines, one 128-byte line */
	HGW_CHECK_EQ(hgw_idio_lines(0x2080, 92, &first), (92 + L - 1) / L);
	HGW_CHECK_EQ(first, 0x2080);
	/* brute force against a line-by-line count */
	for (uintptr_t a = 0x3000; a < 0x3000 + 2 * L + 2; a++)
		for (uint32_t len = 1; len < 300; len += 7) {
			uint32_t want = 0;

			for (uintptr_t l = a & ~(uintptr_t)(L - 1); l < a + len; l += L)
				want++;
			HGW_CHECK_EQ(hgw_idio_lines(a, len, &first), want);
		}
}

/* Invalidation keeps the data (clean lines are dropped, dirty ones are
 * written back first) and names what it uses on this CPU. */
static void
test_inval(void)
{
	struct hgw_idio_cpu cpu;
	static uint8_t buf[4096] __attribute__((aligned(HGW_IDIO_LINE)));
	int active;

	hgw_idio_detect(&cpu);
#if defined(__aarch64__)
	/* DC CIVAC steps by the CPU's line: a power of two, 16..2048 */
	HGW_CHECK(cpu.dc_civac && cpu.dc_line >= 16 && cpu.dc_line <= 2048 &&
		  (cpu.dc_line & (cpu.dc_line - 1)) == 0);
#else
	HGW_CHECK_EQ(cpu.dc_line, 0);
#endif
	printf("# cpu: clflushopt %d cldemote %d dc_civac %d (line %u); "
	       "invalidate uses %s, demote uses %s\n", cpu.clflushopt,
	       cpu.cldemote, cpu.dc_civac, cpu.dc_line,
	       hgw_idio_inval_insn(&cpu, HGW_IDIO_INVAL_INVALIDATE, &active),
	       hgw_idio_inval_insn(&cpu, HGW_IDIO_INVAL_DEMOTE, &active));
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7);
	hgw_idio_inval(&cpu, HGW_IDIO_INVAL_INVALIDATE, buf + 5, 1000);
	hgw_idio_inval(&cpu, HGW_IDIO_INVAL_DEMOTE, buf + 1500, 1000);
	hgw_idio_inval(&cpu, HGW_IDIO_INVAL_OFF, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i] != (uint8_t)(i * 7)) {
			HGW_CHECK(!"data changed by invalidation");
			break;
		}
	HGW_CHECK(strcmp(hgw_idio_inval_insn(&cpu, HGW_IDIO_INVAL_OFF, &active),
			 "none") == 0 && !active);
}

#define WIN 2500	/* cycles: 1 us at 2.5 GHz */

/* A sparse feed (one packet every 10 us) never prefetches. */
static void
test_pf_sparse(void)
{
	struct hgw_idio_pf c;
	uint64_t t = 1000000;

	hgw_idio_pf_init(&c, WIN, 8, 16);
	for (int i = 0; i < 10000; i++, t += 10 * WIN)
		HGW_CHECK_EQ(hgw_idio_pf_depth(&c, t, 1), 0);
	/* two at a time, 5 us apart: still below 8 a window */
	for (int i = 0; i < 10000; i++, t += 5 * WIN)
		HGW_CHECK_EQ(hgw_idio_pf_depth(&c, t, 2), 0);
	HGW_CHECK_EQ(c.prefetched, 0);
}

/* A burst (32 at once, every 100 ns) prefetches at most max_depth, and
 * never more than the burst holds; after it, quiet again. */
static void
test_pf_burst(void)
{
	struct hgw_idio_pf c;
	uint64_t t = 5000000;
	uint32_t d, maxd = 0;

	hgw_idio_pf_init(&c, WIN, 8, 12);
	for (int i = 0; i < 1000; i++, t += WIN / 25) {
		d = hgw_idio_pf_depth(&c, t, 32);
		HGW_CHECK(d <= 12);
		maxd = d > maxd ? d : maxd;
	}
	HGW_CHECK_EQ(maxd, 12);
	HGW_CHECK(c.bursts == 1000);
	/* short bursts: depth <= n - 1 */
	HGW_CHECK_EQ(hgw_idio_pf_depth(&c, t, 4), 3);
	/* the feed goes quiet: after a gap, single packets get nothing */
	t += 100 * WIN;
	for (int i = 0; i < 100; i++, t += 10 * WIN)
		HGW_CHECK_EQ(hgw_idio_pf_depth(&c, t, 1), 0);
	/* depth 0 configured: never */
	hgw_idio_pf_init(&c, WIN, 1, 0);
	HGW_CHECK_EQ(hgw_idio_pf_depth(&c, t, 32), 0);
}

/* Poisoning covers whole lines, stays in the room, and sampling poisons
 * exactly one free in `every`. */
static void
test_poison(void)
{
	const uint32_t L = HGW_IDIO_LINE;
	const uint32_t up = (L + 1 + L - 1) / L * L;	/* L + 1, whole lines */
	uint8_t buf[512];
	uint32_t ctr = 0, n = 0;

	memset(buf, 0x11, sizeof(buf));
	hgw_idio_poison(buf, 1, sizeof(buf));	/* one byte: one line */
	HGW_CHECK(hgw_idio_is_poison(buf, 64));
	HGW_CHECK(buf[L - 1] != 0x11);
	HGW_CHECK_EQ(buf[L], 0x11);
	memset(buf, 0x11, sizeof(buf));
	hgw_idio_poison(buf, L + 1, sizeof(buf));	/* a line and a byte: two */
	HGW_CHECK_EQ(up, 2 * L);
	HGW_CHECK_EQ(buf[up - 1] == 0x11, 0);
	HGW_CHECK_EQ(buf[up], 0x11);
	memset(buf, 0x11, sizeof(buf));
	hgw_idio_poison(buf, 256, 100);		/* room 100: 96 bytes */
	HGW_CHECK_EQ(buf[95] == 0x11, 0);
	HGW_CHECK_EQ(buf[96], 0x11);
	HGW_CHECK(!hgw_idio_is_poison(buf, 15));
	for (int i = 0; i < 1000; i++)
		n += (uint32_t)hgw_idio_poison_due(&ctr, 20);
	HGW_CHECK_EQ(n, 50);
	ctr = 0;
	n = 0;
	for (int i = 0; i < 1000; i++)
		n += (uint32_t)hgw_idio_poison_due(&ctr, 1);
	HGW_CHECK_EQ(n, 1000);
}

/* A use after free: a frame is decoded, its buffer "freed" (poisoned, as
 * the worker does before returning it to the pool), and the stale pointer
 * read again. With poisoning the decoder counts use_after_free and hands
 * out nothing; without it the stale read is accepted (the bug goes
 * unseen), which is what poisoning is for. */
static void
test_use_after_free(void)
{
	struct hgw_feed_conf conf = { .group = FB_GROUP, .port = FB_PORT };
	struct hgw_feed feed;
	struct hgw_feed_pkt p;
	uint8_t m[64];
	struct fb f;
	uint32_t len;

	hgw_feed_init(&feed, &conf);
	fb_itch(m, 'S', 0, 12);
	fb_start(&f, 0, "SESSION001", 1);
	fb_msg(&f, m, 12);
	len = fb_finish(&f);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, len, &p), 1);

	/* recycled without poisoning: a stale read of the next packet's
	 * worth looks like a valid (duplicate) frame: not detectable */
	HGW_CHECK_EQ(hgw_feed_reason(hgw_feed_packet(&feed, f.buf, len, &p)),
		     HGW_FEED_DROP_MOLD_DUPLICATE);

	/* recycled with poisoning: detected and counted */
	hgw_idio_poison(f.buf, 64, sizeof(f.buf));
	int rc = hgw_feed_packet(&feed, f.buf, len, &p);

	HGW_CHECK(rc < 0);
	HGW_CHECK_EQ(hgw_feed_reason(rc), HGW_FEED_DROP_USE_AFTER_FREE);
	HGW_CHECK_EQ(feed.stats.drops[HGW_FEED_DROP_USE_AFTER_FREE], 1);
	HGW_CHECK_EQ(feed.stats.mold_packets, 1);
	HGW_CHECK(strcmp(hgw_feed_drop_name(HGW_FEED_DROP_USE_AFTER_FREE),
			 "use_after_free") == 0);
	/* a frame that is merely not IPv4 is still that */
	memset(f.buf, 0, 16);
	HGW_CHECK_EQ(hgw_feed_reason(hgw_feed_packet(&feed, f.buf, len, &p)),
		     HGW_FEED_DROP_NOT_IPV4);
}

int
main(void)
{
	HGW_TEST(test_lines);
	HGW_TEST(test_inval);
	HGW_TEST(test_pf_sparse);
	HGW_TEST(test_pf_burst);
	HGW_TEST(test_poison);
	HGW_TEST(test_use_after_free);
	return hgw_test_done();
}
