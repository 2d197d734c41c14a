/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: per-worker limit order book built from ITCH 5.0 messages.
 *
 * One book holds every instrument of the feed, indexed by stock locate.
 * All memory is sized from struct hgw_book_conf and handed in by the caller
 * at start-up (hgw_book_memsize + hgw_book_init), so the fast path never
 * allocates. Capacity overflow is counted, never fatal. A book is owned by
 * exactly one lcore: nothing in it is shared or atomic.
 */
#ifndef HGW_BOOK_H
#define HGW_BOOK_H

#include <stddef.h>
#include <stdint.h>

#include "hgw_cacheline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why a message could not be applied (or was applied only in part).
 * X-macro: code, name, help. */
#define HGW_BOOK_ERRORS(X)                                                      \
	X(LOCATE_RANGE,   "locate_out_of_range", "stock locate >= configured instruments") \
	X(UNKNOWN_REF,    "unknown_order_ref",   "execute/cancel/delete/replace of an order not in the book") \
	X(DUP_REF,        "duplicate_order_ref", "add of an order reference already live") \
	X(BAD_SIDE,       "bad_side",            "side byte is neither B nor S")           \
	X(BAD_PRICE,      "bad_price",           "price 0 or above the ITCH maximum")      \
	X(OVERSIZE,       "oversize_reduce",     "executed/cancelled shares exceed the order's remaining shares") \
	X(ORDER_FULL,     "order_table_full",    "no free order slot: order not tracked")  \
	X(LEVEL_FULL,     "level_table_full",    "no free price level on that side: order not tracked") \
	X(LOCATE_MISMATCH,"locate_mismatch",     "message locate differs from the order's instrument")

enum hgw_book_error {
#define HGW_BOOK_ERR_ENUM(code, name, help) HGW_BOOK_ERR_##code,
	HGW_BOOK_ERRORS(HGW_BOOK_ERR_ENUM)
#undef HGW_BOOK_ERR_ENUM
	HGW_BOOK_ERR_MAX
};

/* Name and help text of an error code (for reports and telemetry). */
const char *hgw_book_error_name(enum hgw_book_error e);
const char *hgw_book_error_help(enum hgw_book_error e);

struct hgw_book_conf {
	uint32_t max_instruments; /* valid locates are 0 .. max_instruments-1 */
	uint32_t max_orders;      /* live orders, all instruments together */
	uint32_t max_levels;      /* price levels per side per instrument */
};

struct hgw_book_stats {
	uint64_t applied;                    /* book-changing messages applied */
	uint64_t adds, executes, cancels, deletes, replaces, trades;
	uint64_t live_orders;                /* current, not cumulative */
	uint64_t live_orders_hwm;            /* high-water mark */
	uint64_t errors[HGW_BOOK_ERR_MAX];
};

/* Best price of one side. price 0 and shares 0 when the side is empty. */
struct hgw_book_top {
	uint32_t bid_price;   /* 4 implied decimals */
	uint64_t bid_shares;  /* aggregate displayed shares at the best bid */
	uint32_t bid_orders;
	uint32_t ask_price;
	uint64_t ask_shares;
	uint32_t ask_orders;
};

struct hgw_book;

/* Alignment of a book's memory and of every part inside it: a cache line
 * (RTE_CACHE_LINE_SIZE, hgw_cacheline.h). hgw_book_memsize() is a
 * multiple of it, so aligned_alloc(HGW_BOOK_ALIGN, size) is valid C11. */
#define HGW_BOOK_ALIGN HGW_CACHE_LINE_SIZE

/* Bytes of memory a book with this configuration needs (cache-line
 * aligned), or 0 when the configuration is invalid (any field 0, or
 * max_instruments > 65536, or max_orders > 2^30). */
size_t hgw_book_memsize(const struct hgw_book_conf *conf);

/* Lay a book out in mem (hgw_book_memsize(conf) bytes, HGW_BOOK_ALIGN aligned,
 * contents ignored). Returns the book, or NULL on an invalid conf. */
struct hgw_book *hgw_book_init(void *mem, const struct hgw_book_conf *conf);

/* Empty every instrument and counter, keeping the configuration. */
void hgw_book_reset(struct hgw_book *b);

/* Apply one ITCH 5.0 message of a type and length already validated by the
 * caller (hgw_itch_len_ok). Types that do not change the book are ignored,
 * except 'R' (records the instrument's name) and 'P'/'C'/'Q' (record the
 * last trade price).
 * Returns the stock locate whose book (orders or levels) changed, or 0 when
 * no book changed (locate 0 is never a stock: ITCH assigns from 1). */
uint16_t hgw_book_apply(struct hgw_book *b, const uint8_t *msg);

/* Messages hgw_book_apply_bulk looks ahead: the order slot of message
 * i + HGW_BOOK_AHEAD is prefetched while message i is applied. */
#define HGW_BOOK_AHEAD 8

/* Prefetch what applying msg will touch first: its order's slot (and
 * for an add, the instrument's touch). A hint: no effect on the book. */
void hgw_book_prefetch(const struct hgw_book *b, const uint8_t *msg);

/* Apply n validated messages in order, exactly as n calls of
 * hgw_book_apply would, overlapping their cache misses by prefetching
 * each message's order slot HGW_BOOK_AHEAD messages ahead. changed[i]
 * (when changed is not NULL) receives what hgw_book_apply returns for
 * msgs[i]. Returns how many changed a book. */
uint32_t hgw_book_apply_bulk(struct hgw_book *b, const uint8_t *const *msgs,
			     uint32_t n, uint16_t *changed);

/* A cursor over a batch of validated messages, for a caller that must
 * look at some messages on the book as it stands right after each (a
 * trader evaluates its trigger there), with the batch's prefetching:
 *
 *   struct hgw_book_cursor c;
 *
 *   hgw_book_cursor_start(b, msgs, sizeof(msgs[0]), n, &c);
 *   while (c.next < n) {
 *           c.stop = ...;   (optional: the last message to apply + 1)
 *           locate = hgw_book_apply_until(b, msgs, n, &c);
 *           ... msgs[c.next - 1] was applied last: the book stands as
 *           ... right after it; locate is what hgw_book_apply returned
 *   }
 *
 * Messages applied on the way to c.next - 1 changed no book.
 *
 * The message pointers need not be an array of their own: message i's
 * pointer is read stride bytes after message i - 1's, so a caller that
 * keeps one record per message (pointer, sequence number, ...) passes
 * &rec[0].msg and sizeof(rec[0]); "msgs[i]" below means that pointer. */
struct hgw_book_cursor {
	uint32_t next;     /* next message to apply */
	uint32_t stop;     /* apply none at or past this index (set by
			    * the caller before each call; start: n) */
	uint32_t changes;  /* messages applied so far that changed a book */
	uint32_t stride;   /* bytes from one message pointer to the next */
};

/* Start a cursor over msgs[0 .. n-1] (next 0, stop n, no change), its
 * pointers stride bytes apart, and prefetch what its first messages
 * will touch. */
void hgw_book_cursor_start(const struct hgw_book *b,
			   const uint8_t *const *msgs, size_t stride,
			   uint32_t n, struct hgw_book_cursor *c);

/* Apply msgs[c->next], msgs[c->next + 1], ... exactly as hgw_book_apply
 * would, until a message changes a book (returns its locate; it is
 * msgs[c->next - 1]) or c->stop (or n) is reached (returns 0, c->next ==
 * the stop). Prefetches HGW_BOOK_AHEAD messages ahead like
 * hgw_book_apply_bulk, across calls. Applies nothing, and returns 0,
 * when c->next is already at the stop. */
uint16_t hgw_book_apply_until(struct hgw_book *b, const uint8_t *const *msgs,
			      uint32_t n, struct hgw_book_cursor *c);

/* Best bid and ask of an instrument; returns 0, or -EINVAL for a locate out
 * of range. */
int hgw_book_top(const struct hgw_book *b, uint16_t locate,
		 struct hgw_book_top *top);

/* Name from the instrument's 'R' message, space-padded to 8 characters, or
 * NULL when none was seen or the locate is out of range. */
const char *hgw_book_name(const struct hgw_book *b, uint16_t locate);

/* Last printable trade price ('P', printable 'C', 'Q'), 0 if none. */
uint32_t hgw_book_last_trade(const struct hgw_book *b, uint16_t locate);

/* Number of price levels on a side ('B' or 'S') and the i-th level from the
 * best (i = 0 is the touch). Return -EINVAL / -ENOENT when out of range. */
int hgw_book_depth(const struct hgw_book *b, uint16_t locate, uint8_t side);
int hgw_book_level(const struct hgw_book *b, uint16_t locate, uint8_t side,
		   uint32_t i, uint32_t *price, uint64_t *shares,
		   uint32_t *orders);

/* Remaining shares, side and price of a live order; -ENOENT if not live. */
int hgw_book_order(const struct hgw_book *b, uint64_t ref, uint16_t *locate,
		   uint8_t *side, uint32_t *shares, uint32_t *price);

/* Counters (owned by the book's lcore; read them after it stopped, or
 * accept a slightly stale snapshot). */
const struct hgw_book_stats *hgw_book_stats(const struct hgw_book *b);

/* Consistency check for tests: every level's aggregate equals the sum of its
 * orders, levels are strictly ordered, counts match. Returns 0 or -EFAULT
 * and writes a one-line reason into why (may be NULL). O(orders). */
int hgw_book_check(const struct hgw_book *b, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* HGW_BOOK_H */
