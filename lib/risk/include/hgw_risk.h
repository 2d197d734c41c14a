/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: pre-trade risk, per worker.
 *
 * Every decision passes these checks, in this order, before an order is
 * built (docs/protocols.md "Pre-trade risk"): kill switch, instrument disabled,
 * maximum quantity, maximum notional, price collar, position limit,
 * per-instrument throttle, total throttle. Windows use feed time (the
 * trigger's ITCH timestamp), not the local clock, so every replica takes
 * the same decisions. State is preallocated (hgw_risk_memsize +
 * hgw_risk_init) and owned by one lcore, which alone reads and writes it:
 * the kill switch, the disabled list and the limits are changed at run
 * time by that lcore (hgw_risk_set_*), applying control-plane events at
 * the same feed position on every replica, so replicas stay identical
 * (hgw_risk_state_cmp checks it). Nothing here uses atomics, allocates or
 * makes a system call.
 *
 * Positions. Without a venue session an order that passed counts as
 * filled at once, in full. With one (conf.venue), an order that passed is
 * open: its quantity is open exposure on its side until the venue's
 * answers (taken by every replica as events, at the same feed position)
 * fill it, cancel it or reject it. The position limit then bounds filled
 * plus open exposure on the order's side, and max_open_orders the count of
 * orders open.
 */
#ifndef HGW_RISK_H
#define HGW_RISK_H

#include <stddef.h>
#include <stdint.h>

#include "hgw_book.h"
#include "hgw_strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HGW_RISK_REJECTS(X)                                                    \
	X(KILL_SWITCH,    "kill_switch",         "the kill switch is on")        \
	X(DISABLED,       "instrument_disabled", "the instrument is in [risk] disable") \
	X(MAX_QUANTITY,   "max_quantity",        "quantity above [risk] max_quantity") \
	X(MAX_NOTIONAL,   "max_notional",        "price x quantity above [risk] max_notional") \
	X(PRICE_COLLAR,   "price_collar",        "price further than [risk] collar_bps from the reference") \
	X(POSITION_LIMIT, "position_limit",      "position would exceed [risk] max_position") \
	X(THROTTLE_INSTRUMENT, "throttle_instrument", "too many orders of the instrument in the window") \
	X(THROTTLE_TOTAL, "throttle_total",      "too many orders in the window") \
	X(OPEN_ORDERS,    "open_orders",         "open orders at [risk] max_open_orders")

enum hgw_risk_reject {
#define HGW_RISK_ENUM(code, name, help) HGW_RISK_##code,
	HGW_RISK_REJECTS(HGW_RISK_ENUM)
#undef HGW_RISK_ENUM
	HGW_RISK_MAX,
	HGW_RISK_PASS = HGW_RISK_MAX
};

const char *hgw_risk_reject_name(enum hgw_risk_reject r);
const char *hgw_risk_reject_help(enum hgw_risk_reject r);

#define HGW_RISK_MAX_DISABLED 64
#define HGW_RISK_MAX_WINDOW_ORDERS 4096
#define HGW_RISK_MAX_OPEN_ORDERS 65536

struct hgw_risk_conf {
	uint32_t instruments;            /* locates 0 .. instruments-1 */
	uint32_t max_quantity;
	uint64_t max_notional;           /* dollars */
	uint32_t collar_bps;
	uint64_t max_position;           /* shares, either direction */
	uint64_t window_ns;              /* throttle window, feed time */
	uint32_t max_orders_instrument;  /* per window; 1..cap_orders_instrument */
	uint32_t max_orders_total;       /* per window; 1..cap_orders_total */
	uint32_t ndisabled;
	char disabled[HGW_RISK_MAX_DISABLED][9];  /* names, space-trimmed */
	uint8_t kill;                    /* the kill switch's initial value */
	/* Highest max_orders_* a run-time change may set: the time rings are
	 * sized by them. 0 = the max_orders_* above; at most
	 * HGW_RISK_MAX_WINDOW_ORDERS. */
	uint32_t cap_orders_instrument;
	uint32_t cap_orders_total;
	/* Orders are open until the venue answers (1), or filled when sent
	 * (0). */
	uint8_t venue;
	/* venue: most orders open at once (1..cap_open_orders), and the
	 * highest a run-time change may set (0 = max_open_orders; at most
	 * HGW_RISK_MAX_OPEN_ORDERS). Ignored without a venue. */
	uint32_t max_open_orders;
	uint32_t cap_open_orders;
};

struct hgw_risk_stats {
	uint64_t checked;
	uint64_t passed;
	uint64_t rejects[HGW_RISK_MAX];
	/* venue answers taken (hgw_risk_fill, _reduce, _restate, _replace) */
	uint64_t filled_shares;
	uint64_t reduced_shares;   /* canceled, rejected, restated down */
	uint64_t closed_orders;    /* no longer open */
	uint64_t unknown_orders;   /* answers naming no open order */
};

/* Opaque: the state's layout is in hgw_risk_internal.h. The configuration
 * and statistics layouts are public: callers fill the one and read the
 * other by value. */
struct hgw_risk;

/* Bytes for the state of this configuration, or 0 if it is invalid. */
size_t hgw_risk_memsize(const struct hgw_risk_conf *c);

/* Lay out the state in mem (cache-line aligned: HGW_CACHE_LINE_SIZE of
 * hgw_cacheline.h, RTE_CACHE_LINE_SIZE; hgw_risk_memsize bytes),
 * with c's limits, disabled list and kill switch. NULL (errno EINVAL) on
 * an invalid configuration. */
struct hgw_risk *hgw_risk_init(void *mem, const struct hgw_risk_conf *c);

/* Start loading what checking an order on instrument locate reads (its
 * state, the total window's slots), so that the loads overlap the work
 * before the check (the strategy's table read). A hint: no effect on
 * any outcome. */
void hgw_risk_prefetch(const struct hgw_risk *r, uint16_t locate);

/* Check a decision taken at feed time ts_ns on book b. Returns
 * HGW_RISK_PASS (and records the order in the position and the windows)
 * or the reason of the rejection (counted). */
enum hgw_risk_reject hgw_risk_check(struct hgw_risk *r,
				    const struct hgw_book *b,
				    const struct hgw_decision *d,
				    uint64_t ts_ns);

/* The same, for an order with this UserRefNum: with a venue, an order
 * that passed is recorded open under it (an order already open under
 * the same number is refused as open_orders). */
enum hgw_risk_reject hgw_risk_check_order(struct hgw_risk *r,
					  const struct hgw_book *b,
					  const struct hgw_decision *d,
					  uint64_t ts_ns, uint32_t user_ref);

/* Filled position of an instrument: buys minus sells (without a venue,
 * every order sent counts as filled). */
int64_t hgw_risk_position(const struct hgw_risk *r, uint16_t locate);

/* Open shares of an instrument on each side, and orders open overall. */
void hgw_risk_open(const struct hgw_risk *r, uint16_t locate,
		   uint64_t *buy, uint64_t *sell);
uint32_t hgw_risk_open_orders(const struct hgw_risk *r);

/*
 * Venue answers (with a venue only), each applied by every replica at the
 * same feed position. Each returns 0, or -ENOENT when no open order has
 * that UserRefNum (counted in unknown_orders; nothing changes), -EINVAL
 * without a venue.
 */

/* qty shares of the order executed: open -> filled (at most what is
 * open; the order closes when nothing is left). */
int hgw_risk_fill(struct hgw_risk *r, uint32_t user_ref, uint32_t qty);

/* qty shares of the order are no longer open (canceled: the decrement;
 * UINT32_MAX: all of it, as for a reject). */
int hgw_risk_reduce(struct hgw_risk *r, uint32_t user_ref, uint32_t qty);

/* The order's open quantity is now qty (modified, restated). */
int hgw_risk_restate(struct hgw_risk *r, uint32_t user_ref, uint32_t qty);

/* The order was replaced by new_ref with qty open, on the same
 * instrument and side. -EEXIST when new_ref is already open. */
int hgw_risk_replace(struct hgw_risk *r, uint32_t user_ref, uint32_t new_ref,
		     uint32_t qty);

/* An order that passed never left (with a venue): it is no longer open.
 * As hgw_risk_reduce(r, user_ref, UINT32_MAX), without counting it as a
 * venue answer. */
int hgw_risk_unsend_order(struct hgw_risk *r, uint32_t user_ref);

/* An order that passed (and was counted) never left: take its signed
 * quantity (buy +, sell -) back out of the instrument's position. The
 * throttle windows keep it (conservative). 0, or -EINVAL for a locate
 * out of range. Single owner, no atomics. */
int hgw_risk_unsend(struct hgw_risk *r, uint16_t locate, int64_t signed_qty);

const struct hgw_risk_stats *hgw_risk_stats(const struct hgw_risk *r);

/*
 * Run-time changes. Each is made by the lcore that owns r, between two
 * checks (a control-plane event applied at a feed position); each takes
 * effect from the next check. Plain stores: no atomics, no allocation, no
 * system call.
 */

/* Set the kill switch (on: nonzero) or clear it. */
void hgw_risk_set_kill(struct hgw_risk *r, int on);

/* Add symbol to the disabled list (disabled nonzero) or remove it. symbol
 * is 1..8 printable characters, no spaces, matched as "[risk] disable"
 * is: against the book's name with its padding spaces trimmed. Every
 * instrument's cached decision is dropped, so the change holds for
 * instruments already seen too. 0 (also when there was nothing to change),
 * -EINVAL for a bad symbol, -ENOSPC when the list
 * (HGW_RISK_MAX_DISABLED) is full. */
int hgw_risk_set_disabled(struct hgw_risk *r, const char *symbol,
			  int disabled);

/* The limits that can be changed at run time, with their names (the
 * "[risk]" keys). */
#define HGW_RISK_LIMITS(X)                                                     \
	X(MAX_QUANTITY,          "max_quantity")                               \
	X(MAX_NOTIONAL,          "max_notional")                               \
	X(COLLAR_BPS,            "collar_bps")                                 \
	X(MAX_POSITION,          "max_position")                               \
	X(WINDOW_MS,             "window_ms")                                  \
	X(MAX_ORDERS_INSTRUMENT, "max_orders_instrument")                      \
	X(MAX_ORDERS_TOTAL,      "max_orders_total")                           \
	X(MAX_OPEN_ORDERS,       "max_open_orders")

enum hgw_risk_limit {
#define HGW_RISK_LIMIT_ENUM(code, name) HGW_RISK_LIMIT_##code,
	HGW_RISK_LIMITS(HGW_RISK_LIMIT_ENUM)
#undef HGW_RISK_LIMIT_ENUM
	HGW_RISK_LIMIT_MAX
};

/* A limit's name, or NULL for a value out of the enum. */
const char *hgw_risk_limit_name(enum hgw_risk_limit k);

/* The limit of that name (exact match), or -1. */
int hgw_risk_limit_by_name(const char *name);

/* Is v acceptable for k in a state configured as c? Ranges: max_quantity
 * 1..UINT32_MAX, max_notional 1..2^40 (dollars), collar_bps 0..1000000,
 * max_position 0..2^40, window_ms 1..86400000, max_orders_* 1..the
 * capacity (c's cap_orders_*, or its max_orders_* when 0). 0, -EINVAL
 * (out of range, unknown k, c NULL), or -ERANGE for a max_orders_* above
 * the capacity. The control plane checks a change with this before it
 * sends it to every replica, so that no replica refuses it. */
int hgw_risk_limit_valid(const struct hgw_risk_conf *c,
			 enum hgw_risk_limit k, uint64_t v);

/* Set limit k to v, after the same validation (0, -EINVAL or -ERANGE; r
 * unchanged on error). Lowering max_orders_* below the orders already in
 * the window throttles until enough of them leave it; raising it again
 * (up to the capacity) counts the same orders. */
int hgw_risk_set_limit(struct hgw_risk *r, enum hgw_risk_limit k,
		       uint64_t v);

/* The current value of limit k (window_ms rounded down to whole
 * milliseconds), or 0 for an unknown k. */
uint64_t hgw_risk_get_limit(const struct hgw_risk *r, enum hgw_risk_limit k);

/* Compare two states in everything a decision depends on: kill switch,
 * limits, disabled list (as a set), each instrument's position and
 * throttle window (count, and the accepted times kept, up to the capacity,
 * most recent first), the total window, and the statistics (checked,
 * passed, each reject). 0 when identical; 1 when not, with one line in
 * why naming the first difference (e.g. "instrument 12: position 300 vs
 * 400", "reject position_limit: 3 vs 4"); -EINVAL for NULL a or b. States
 * of other sizes (instruments, capacities) differ. Read-only; for tests and
 * for the control plane comparing snapshots of the replicas. */
int hgw_risk_state_cmp(const struct hgw_risk *a, const struct hgw_risk *b,
		       char *why, size_t whylen);

/* Parse a "[risk] disable" value (symbols separated by spaces or commas)
 * into c. 0, or -1 when a symbol is longer than 8 characters or there are
 * more than HGW_RISK_MAX_DISABLED. */
int hgw_risk_parse_disable(struct hgw_risk_conf *c, const char *list);

#ifdef __cplusplus
}
#endif

#endif /* HGW_RISK_H */
