/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: cache-aware RX buffers, inside the library.
 *
 * Internal: included by tests/unit/test_idio.c, which checks the pattern
 * hgw_idio_poison writes against lib/feed's own check; never by users of
 * hgw_idio_dep (its include path holds hgw_idio.h alone). The decoder
 * (lib/feed) has its own copy of the check (HGW_FEED_POISON_CHECK).
 */
#ifndef HGW_IDIO_INTERNAL_H
#define HGW_IDIO_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "hgw_idio.h"

#define HGW_IDIO_POISON_CHECK 16	/* bytes compared by the decoder */

/* 1 if the frame starts with the pattern. */
static inline int
hgw_idio_is_poison(const void *frame, uint32_t len)
{
	uint64_t a, b;

	if (len < HGW_IDIO_POISON_CHECK)
		return 0;
	memcpy(&a, frame, 8);
	memcpy(&b, (const uint8_t *)frame + 8, 8);
	return a == HGW_IDIO_POISON && b == HGW_IDIO_POISON;
}

#endif /* HGW_IDIO_INTERNAL_H */
