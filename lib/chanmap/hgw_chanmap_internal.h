/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: DRAM channel maps, inside the library.
 *
 * Internal: included by the library's own .c files and by
 * tests/unit/test_chanmap.c, which checks the channel arithmetic directly;
 * never by users of hgw_chanmap_dep (its include path holds hgw_chanmap.h
 * alone).
 */
#ifndef HGW_CHANMAP_INTERNAL_H
#define HGW_CHANMAP_INTERNAL_H

#include <stdint.h>

#include "hgw_chanmap.h"

/* Channel of a physical address: bit i = parity(paddr & mask[i]).
 * Returns 0 for an offset-only map (channels unknown). */
static inline uint32_t
hgw_chanmap_channel(const struct hgw_chanmap *map, uint64_t paddr)
{
	uint32_t ch = 0;

	for (uint32_t i = 0; i < map->nbits; i++)
		ch |= (uint32_t)__builtin_parityll(paddr & map->mask[i]) << i;
	return ch;
}

/* Channel bits toggled by XOR-ing delta into any address (linearity):
 * channel(a ^ delta) == channel(a) ^ hgw_chanmap_delta(map, delta). */
static inline uint32_t
hgw_chanmap_delta(const struct hgw_chanmap *map, uint64_t delta)
{
	return hgw_chanmap_channel(map, delta);
}

#endif /* HGW_CHANMAP_INTERNAL_H */
