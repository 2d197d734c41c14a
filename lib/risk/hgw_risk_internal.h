/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: pre-trade risk, inside the library.
 *
 * Internal: included by the library's own .c files only, never by users of
 * hgw_risk_dep (its include path holds hgw_risk.h alone). The layout of the
 * state, which callers hold through a pointer (struct hgw_risk is opaque
 * in hgw_risk.h; hgw_risk_memsize says how much memory to give it).
 */
#ifndef HGW_RISK_INTERNAL_H
#define HGW_RISK_INTERNAL_H

#include <stdint.h>

#include "hgw_cacheline.h"
#include "hgw_risk.h"

#define RISK_ALIGN HGW_CACHE_LINE_SIZE

/* The last C accepted feed times of a scope (C: the capacity, the highest
 * limit a run-time change may set). With a limit N <= C, a decision at t is
 * throttled when N of them lie in (t - W, t], i.e. when at least N were
 * accepted and the N-th most recent is later than t - W. Feed times are
 * non-decreasing, so the last N are the N most recent. Keeping C rather
 * than N is what lets N be raised again without forgetting orders. */
struct window {
	uint32_t next;    /* slot the next time goes to (the oldest when full) */
	uint32_t count;   /* times kept, up to C */
};

enum { NAME_UNKNOWN = 0, NAME_ENABLED, NAME_DISABLED };

struct inst_state {
	int64_t position;       /* filled: buys minus sells */
	uint64_t open_buy;      /* venue: shares open on each side */
	uint64_t open_sell;
	struct window w;
	uint8_t name_state;
	uint8_t pad[7];
};

/* One open order (venue): a slot of an open-addressing table keyed by
 * UserRefNum, linear probing, deletion by backward shift (no tombstones,
 * so the layout depends only on the sequence of changes: every replica
 * that takes the same answers in the same order has the same table). */
struct open_order {
	uint32_t user_ref;
	uint32_t remaining;     /* shares open; 0: a free slot */
	uint16_t locate;
	uint8_t side;           /* 'B' or 'S' */
	uint8_t pad[5];
};

struct hgw_risk {
	/* The live configuration: kill, limits and disabled list are
	 * changed in place by the setters; cap_orders_* are the ring sizes
	 * (never 0 here). */
	struct hgw_risk_conf conf;
	struct inst_state *inst;
	uint64_t *inst_times;      /* instruments x cap_orders_instrument */
	uint64_t *total_times;     /* cap_orders_total */
	struct open_order *open;   /* venue: open_mask + 1 slots */
	uint32_t open_mask;
	uint32_t nopen;            /* orders open */
	struct window total;
	struct hgw_risk_stats stats;
} __attribute__((aligned(RISK_ALIGN)));

#endif /* HGW_RISK_INTERNAL_H */
