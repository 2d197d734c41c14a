/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the cache-line size every layout and alignment is built on.
 *
 * HGW_CACHE_LINE_SIZE is DPDK's RTE_CACHE_LINE_SIZE whenever the build
 * has DPDK: from rte_config.h when a translation unit sees it, else the
 * value the build read from rte_config.h (HGW_RTE_CACHE_LINE_SIZE, set by
 * lib/common/meson.build), so the DPDK-free libraries and the DPDK
 * application always agree. Without DPDK (the arm64 cross build,
 * -Ddpdk=false) it is a per-architecture default:
 *   - aarch64: 128, what DPDK's generic armv8 build uses; some Arm cores
 *     have 64-byte lines, and 128 then only costs padding, while 64 on a
 *     128-byte-line core would put two "private" lines on one;
 *   - x86-64:  64.
 * Any other architecture is refused here rather than guessed.
 *
 * Formats stored in files or sent on a wire (64-byte pricing-table
 * entries and header, 64-byte event ring elements) do not follow this
 * value: only alignment and padding do.
 */
#ifndef HGW_CACHELINE_H
#define HGW_CACHELINE_H

#if defined(__has_include)
#if __has_include(<rte_config.h>)
#include <rte_config.h>
#endif
#endif

#if defined(RTE_CACHE_LINE_SIZE)
#define HGW_CACHE_LINE_SIZE RTE_CACHE_LINE_SIZE
#define HGW_CACHE_LINE_FROM "RTE_CACHE_LINE_SIZE"
#if defined(HGW_RTE_CACHE_LINE_SIZE)
_Static_assert(RTE_CACHE_LINE_SIZE == HGW_RTE_CACHE_LINE_SIZE,
	       "the DPDK this file is compiled with is the DPDK of the build");
#endif
#elif defined(HGW_RTE_CACHE_LINE_SIZE)
#define HGW_CACHE_LINE_SIZE HGW_RTE_CACHE_LINE_SIZE
#define HGW_CACHE_LINE_FROM "RTE_CACHE_LINE_SIZE (rte_config.h, read by the build)"
#elif defined(__aarch64__)
#define HGW_CACHE_LINE_SIZE 128
#define HGW_CACHE_LINE_FROM "aarch64 default"
#elif defined(__x86_64__)
#define HGW_CACHE_LINE_SIZE 64
#define HGW_CACHE_LINE_FROM "x86-64 default"
#else
#error "hgw_cacheline.h: no cache-line size known for this architecture (build with DPDK, whose rte_config.h gives it)"
#endif

_Static_assert(HGW_CACHE_LINE_SIZE >= 64 &&
	       (HGW_CACHE_LINE_SIZE & (HGW_CACHE_LINE_SIZE - 1)) == 0,
	       "a cache line is a power of two of at least 64 bytes");

#endif /* HGW_CACHELINE_H */
