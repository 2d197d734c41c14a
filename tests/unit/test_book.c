/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: unit tests for the ITCH order book (lib/book).
 *
 * Messages are built byte by byte with the packed ITCH views and handed to
 * the book in a heap buffer of exactly the message length, so a sanitizer
 * build catches any read past the end of a message.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hgw_book.h"
#include "hgw_itch.h"
#include "hgw_prng.h"
#include "hgw_test.h"

#define ERRS(b, code) (hgw_book_stats(b)->errors[HGW_BOOK_ERR_##code])

/* While rec.on, apply_msg logs every message and what hgw_book_apply
 * returned, so test_bulk_replay can replay the same stream in bulk. */
#define REC_MAX_MSGS 400000
static struct {
	int on;
	uint32_t n;
	size_t used;
	uint8_t *bytes;        /* REC_MAX_MSGS * 64 */
	size_t *off;
	uint16_t *ret;
} rec;

static uint16_t
apply_msg(struct hgw_book *b, const void *msg, size_t len)
{
	uint8_t *copy = malloc(len);
	uint16_t rc;

	HGW_CHECK(hgw_itch_len_ok(*(const uint8_t *)msg, (uint16_t)len));
	memcpy(copy, msg, len);
	rc = hgw_book_apply(b, copy);
	free(copy);
	if (rec.on && rec.n < REC_MAX_MSGS) {
		memcpy(rec.bytes + rec.used, msg, len);
		rec.off[rec.n] = rec.used;
		rec.ret[rec.n++] = rc;
		rec.used += len;
	}
	return rc;
}

static void
hdr(struct hgw_itch_hdr *h, uint8_t type, uint16_t locate)
{
	h->type = type;
	hgw_put_be16(h->locate, locate);
	hgw_put_be16(h->tracking, 7);
	hgw_put_be48(h->timestamp, 34200000000000ull);
}

/* type is 'A' or 'F'. */
static uint16_t
msg_add(struct hgw_book *b, uint8_t type, uint16_t locate, uint64_t ref,
	uint8_t side, uint32_t shares, uint32_t price)
{
	struct hgw_itch_add_order_mpid m;

	memset(&m, 0, sizeof(m));
	hdr(&m.a.h, type, locate);
	hgw_put_be64(m.a.order_ref, ref);
	m.a.side = side;
	hgw_put_be32(m.a.shares, shares);
	memcpy(m.a.stock, "TEST    ", HGW_ITCH_STOCK_LEN);
	hgw_put_be32(m.a.price, price);
	memcpy(m.attribution, "HGWX", 4);
	return apply_msg(b, &m, type == 'F' ? sizeof(m) : sizeof(m.a));
}

static uint16_t
add(struct hgw_book *b, uint16_t locate, uint64_t ref, uint8_t side,
    uint32_t shares, uint32_t price)
{
	return msg_add(b, 'A', locate, ref, side, shares, price);
}

static uint16_t
msg_exec(struct hgw_book *b, uint16_t locate, uint64_t ref, uint32_t shares)
{
	struct hgw_itch_order_executed m;

	memset(&m, 0, sizeof(m));
	hdr(&m.h, 'E', locate);
	hgw_put_be64(m.order_ref, ref);
	hgw_put_be32(m.executed_shares, shares);
	hgw_put_be64(m.match_number, 424242);
	return apply_msg(b, &m, sizeof(m));
}

static uint16_t
msg_exec_px(struct hgw_book *b, uint16_t locate, uint64_t ref,
	    uint32_t shares, uint8_t printable, uint32_t price)
{
	struct hgw_itch_order_executed_px m;

	memset(&m, 0, sizeof(m));
	hdr(&m.e.h, 'C', locate);
	hgw_put_be64(m.e.order_ref, ref);
	hgw_put_be32(m.e.executed_shares, shares);
	hgw_put_be64(m.e.match_number, 424243);
	m.printable = printable;
	hgw_put_be32(m.execution_price, price);
	return apply_msg(b, &m, sizeof(m));
}

static uint16_t
msg_cancel(struct hgw_book *b, uint16_t locate, uint64_t ref,
	   uint32_t shares)
{
	struct hgw_itch_order_cancel m;

	memset(&m, 0, sizeof(m));
	hdr(&m.h, 'X', locate);
	hgw_put_be64(m.order_ref, ref);
	hgw_put_be32(m.cancelled_shares, shares);
	return apply_msg(b, &m, sizeof(m));
}

static uint16_t
msg_delete(struct hgw_book *b, uint16_t locate, uint64_t ref)
{
	struct hgw_itch_order_delete m;

	memset(&m, 0, sizeof(m));
	hdr(&m.h, 'D', locate);
	hgw_put_be64(m.order_ref, ref);
	return apply_msg(b, &m, sizeof(m));
}

static uint16_t
msg_replace(struct hgw_book *b, uint16_t locate, uint64_t oref,
	    uint64_t nref, uint32_t shares, uint32_t price)
{
	struct hgw_itch_order_replace m;

	memset(&m, 0, sizeof(m));
	hdr(&m.h, 'U', locate);
	hgw_put_be64(m.original_ref, oref);
	hgw_put_be64(m.new_ref, nref);
	hgw_put_be32(m.shares, shares);
	hgw_put_be32(m.price, price);
	return apply_msg(b, &m, sizeof(m));
}

static uint16_t
msg_trade(struct hgw_book *b, uint16_t locate, uint64_t ref, uint8_t side,
	  uint32_t shares, uint32_t price)
{
	struct hgw_itch_trade m;

	memset(&m, 0, sizeof(m));
	hdr(&m.h, 'P', locate);
	hgw_put_be64(m.order_ref, ref);
	m.side = side;
	hgw_put_be32(m.shares, shares);
	memcpy(m.stock, "TEST    ", HGW_ITCH_STOCK_LEN);
	hgw_put_be32(m.price, price);
	hgw_put_be64(m.match_number, 424244);
	return apply_msg(b, &m, sizeof(m));
}

static uint16_t
msg_cross(struct hgw_book *b, uint16_t locate, uint64_t shares,
	  uint32_t price)
{
	struct hgw_itch_cross_trade m;

	memset(&m, 0, sizeof(m));
	hdr(&m.h, 'Q', locate);
	hgw_put_be64(m.shares, shares);
	memcpy(m.stock, "TEST    ", HGW_ITCH_STOCK_LEN);
	hgw_put_be32(m.cross_price, price);
	hgw_put_be64(m.match_number, 424245);
	m.cross_type = 'O';
	return apply_msg(b, &m, sizeof(m));
}

static uint16_t
msg_directory(struct hgw_book *b, uint16_t locate, const char name[8])
{
	struct hgw_itch_stock_directory m;

	memset(&m, ' ', sizeof(m));
	hdr(&m.h, 'R', locate);
	memcpy(m.stock, name, HGW_ITCH_STOCK_LEN);
	m.market_category = 'Q';
	m.financial_status = 'N';
	hgw_put_be32(m.round_lot_size, 100);
	return apply_msg(b, &m, sizeof(m));
}

static uint16_t
msg_system(struct hgw_book *b, uint8_t code)
{
	struct hgw_itch_system_event m;

	memset(&m, 0, sizeof(m));
	hdr(&m.h, 'S', 0);
	m.event_code = code;
	return apply_msg(b, &m, sizeof(m));
}

/* A book in a 64-byte aligned block pre-filled with garbage, since init
 * must ignore the old contents. Free with free(). */
static struct hgw_book *
mkbook(uint32_t instruments, uint32_t orders, uint32_t levels)
{
	struct hgw_book_conf conf = {
		.max_instruments = instruments,
		.max_orders = orders,
		.max_levels = levels,
	};
	size_t sz = hgw_book_memsize(&conf);
	void *mem;
	struct hgw_book *b;

	if (sz == 0 || sz % HGW_BOOK_ALIGN != 0)
		return NULL;
	mem = aligned_alloc(HGW_BOOK_ALIGN, sz);
	if (mem == NULL)
		return NULL;
	memset(mem, 0xa5, sz);
	b = hgw_book_init(mem, &conf);
	if (b == NULL)
		free(mem);
	return b;
}

static int
book_ok(const struct hgw_book *b)
{
	char why[256];
	int rc = hgw_book_check(b, why, sizeof(why));

	if (rc != 0)
		printf("# hgw_book_check: %s\n", why);
	return rc == 0;
}

static uint64_t
stat_errors(const struct hgw_book *b)
{
	const struct hgw_book_stats *st = hgw_book_stats(b);
	uint64_t n = 0;
	int e;

	for (e = 0; e < HGW_BOOK_ERR_MAX; e++)
		n += st->errors[e];
	return n;
}

/* Level i from the touch of a side; all-zero when absent. */
struct lvl {
	uint32_t price;
	uint64_t shares;
	uint32_t orders;
};

static struct lvl
level(const struct hgw_book *b, uint16_t locate, uint8_t side, uint32_t i)
{
	struct lvl l = { 0, 0, 0 };

	if (hgw_book_level(b, locate, side, i, &l.price, &l.shares,
			   &l.orders) != 0)
		memset(&l, 0, sizeof(l));
	return l;
}

static void
test_memsize_init(void)
{
	struct hgw_book_conf bad[] = {
		{ 0, 10, 10 }, { 10, 0, 10 }, { 10, 10, 0 },
		{ 65537, 10, 10 }, { 10, (1u << 30) + 1, 10 },
	};
	struct hgw_book_conf ok1 = { 65536, 1, 1 };
	struct hgw_book_conf ok2 = { 1, 1u << 30, 1 };
	struct hgw_book_conf small = { 4, 100, 8 };
	struct hgw_book_top top;
	struct hgw_book *b;
	size_t i, sz;
	void *mem;

	sz = hgw_book_memsize(&small);
	mem = aligned_alloc(HGW_BOOK_ALIGN, sz + HGW_BOOK_ALIGN);
	HGW_CHECK(mem != NULL);
	if (mem == NULL)
		return;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		HGW_CHECK_EQ(hgw_book_memsize(&bad[i]), 0);
		HGW_CHECK(hgw_book_init(mem, &bad[i]) == NULL);
	}
	HGW_CHECK_EQ(hgw_book_memsize(NULL), 0);
	HGW_CHECK(hgw_book_init(mem, NULL) == NULL);
	HGW_CHECK(hgw_book_memsize(&ok1) != 0);
	/* 2^31 slots of >= 16 bytes at least. */
	HGW_CHECK(hgw_book_memsize(&ok2) >= (1ull << 31) * 16);

	HGW_CHECK(sz != 0 && sz % HGW_BOOK_ALIGN == 0);
	/* Levels: 4 x 2 x 8 x 16 bytes; orders: >= 200 slots of 16 bytes. */
	HGW_CHECK(sz >= 4 * 2 * 8 * 16 + 200 * 16);
	memset(mem, 0xff, sz + HGW_BOOK_ALIGN);
	HGW_CHECK(hgw_book_init((uint8_t *)mem + 8, &small) == NULL);
	/* half a line off: 64-byte aligned where lines are 128 bytes */
	HGW_CHECK(hgw_book_init((uint8_t *)mem + HGW_BOOK_ALIGN / 2,
				&small) == NULL);
	HGW_CHECK(hgw_book_init(NULL, &small) == NULL);
	b = hgw_book_init(mem, &small);
	HGW_CHECK(b != NULL);
	if (b != NULL) {
		HGW_CHECK(book_ok(b));
		HGW_CHECK_EQ(hgw_book_top(b, 3, &top), 0);
		HGW_CHECK_EQ(top.bid_price, 0);
		HGW_CHECK_EQ(top.ask_price, 0);
		HGW_CHECK_EQ(top.bid_shares + top.ask_shares, 0);
		HGW_CHECK_EQ(hgw_book_top(b, 4, &top), -EINVAL);
		HGW_CHECK_EQ(hgw_book_depth(b, 3, 'B'), 0);
		HGW_CHECK_EQ(hgw_book_depth(b, 3, 'X'), -EINVAL);
		HGW_CHECK_EQ(hgw_book_depth(b, 4, 'S'), -EINVAL);
		HGW_CHECK(hgw_book_name(b, 1) == NULL);
		HGW_CHECK_EQ(hgw_book_last_trade(b, 1), 0);
		HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 0);
		HGW_CHECK_EQ(stat_errors(b), 0);
		HGW_CHECK(hgw_book_order(b, 0xa5a5a5a5a5a5a5a5ull, NULL,
					 NULL, NULL, NULL) == -ENOENT);
		/* The guard bytes after the block are untouched. */
		HGW_CHECK_EQ(((uint8_t *)mem)[sz], 0xff);
		HGW_CHECK_EQ(((uint8_t *)mem)[sz + 63], 0xff);
	}
	free(mem);

	for (i = 0; i < HGW_BOOK_ERR_MAX; i++) {
		HGW_CHECK(hgw_book_error_name((enum hgw_book_error)i) != NULL);
		HGW_CHECK(hgw_book_error_help((enum hgw_book_error)i) != NULL);
	}
	HGW_CHECK(strcmp(hgw_book_error_name(HGW_BOOK_ERR_OVERSIZE),
			 "oversize_reduce") == 0);
	HGW_CHECK(hgw_book_error_name(HGW_BOOK_ERR_MAX) == NULL);
}

static void
test_add_bbo(void)
{
	struct hgw_book *b = mkbook(8, 64, 16);
	struct hgw_book_top top;
	struct lvl l;
	uint16_t loc;
	uint8_t side;
	uint32_t shares, price;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	HGW_CHECK_EQ(add(b, 3, 1, 'B', 100, 1000000), 3);
	HGW_CHECK_EQ(add(b, 3, 2, 'B', 200, 1010000), 3);
	HGW_CHECK_EQ(add(b, 3, 3, 'B', 300, 990000), 3);
	HGW_CHECK_EQ(msg_add(b, 'F', 3, 4, 'S', 400, 1030000), 3);
	HGW_CHECK_EQ(add(b, 3, 5, 'S', 500, 1020000), 3);
	HGW_CHECK_EQ(add(b, 3, 6, 'S', 600, 1040000), 3);
	HGW_CHECK_EQ(hgw_book_top(b, 3, &top), 0);
	HGW_CHECK_EQ(top.bid_price, 1010000);
	HGW_CHECK_EQ(top.bid_shares, 200);
	HGW_CHECK_EQ(top.bid_orders, 1);
	HGW_CHECK_EQ(top.ask_price, 1020000);
	HGW_CHECK_EQ(top.ask_shares, 500);
	HGW_CHECK_EQ(top.ask_orders, 1);
	HGW_CHECK_EQ(hgw_book_depth(b, 3, 'B'), 3);
	HGW_CHECK_EQ(hgw_book_depth(b, 3, 'S'), 3);
	/* Levels from the touch outwards. */
	HGW_CHECK_EQ(level(b, 3, 'B', 1).price, 1000000);
	HGW_CHECK_EQ(level(b, 3, 'B', 2).price, 990000);
	HGW_CHECK_EQ(level(b, 3, 'B', 2).shares, 300);
	HGW_CHECK_EQ(level(b, 3, 'S', 1).price, 1030000);
	HGW_CHECK_EQ(level(b, 3, 'S', 2).price, 1040000);
	l = level(b, 3, 'S', 2);
	HGW_CHECK_EQ(l.shares, 600);
	HGW_CHECK_EQ(l.orders, 1);
	HGW_CHECK_EQ(hgw_book_level(b, 3, 'S', 3, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(hgw_book_level(b, 3, 'Z', 0, NULL, NULL, NULL), -EINVAL);
	HGW_CHECK_EQ(hgw_book_level(b, 8, 'B', 0, NULL, NULL, NULL), -EINVAL);
	/* Other instruments stay empty. */
	HGW_CHECK_EQ(hgw_book_top(b, 2, &top), 0);
	HGW_CHECK_EQ(top.bid_price + top.ask_price, 0);
	HGW_CHECK_EQ(hgw_book_order(b, 4, &loc, &side, &shares, &price), 0);
	HGW_CHECK_EQ(loc, 3);
	HGW_CHECK_EQ(side, 'S');
	HGW_CHECK_EQ(shares, 400);
	HGW_CHECK_EQ(price, 1030000);
	HGW_CHECK_EQ(hgw_book_stats(b)->adds, 6);
	HGW_CHECK_EQ(hgw_book_stats(b)->applied, 6);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 6);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders_hwm, 6);
	HGW_CHECK_EQ(stat_errors(b), 0);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_aggregate(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 10, 'B', 100, 500000);
	add(b, 1, 11, 'B', 250, 500000);
	add(b, 1, 12, 'B', 50, 500000);
	add(b, 1, 13, 'S', 70, 510000);
	add(b, 1, 14, 'S', 30, 510000);
	HGW_CHECK_EQ(hgw_book_top(b, 1, &top), 0);
	HGW_CHECK_EQ(top.bid_price, 500000);
	HGW_CHECK_EQ(top.bid_shares, 400);
	HGW_CHECK_EQ(top.bid_orders, 3);
	HGW_CHECK_EQ(top.ask_price, 510000);
	HGW_CHECK_EQ(top.ask_shares, 100);
	HGW_CHECK_EQ(top.ask_orders, 2);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B'), 1);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'S'), 1);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_execute(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;
	uint32_t shares;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 2, 20, 'S', 300, 700000);
	add(b, 2, 21, 'S', 100, 700000);
	add(b, 2, 22, 'S', 100, 710000);
	HGW_CHECK_EQ(msg_exec(b, 2, 20, 120), 2);
	HGW_CHECK_EQ(hgw_book_order(b, 20, NULL, NULL, &shares, NULL), 0);
	HGW_CHECK_EQ(shares, 180);
	hgw_book_top(b, 2, &top);
	HGW_CHECK_EQ(top.ask_price, 700000);
	HGW_CHECK_EQ(top.ask_shares, 280);
	HGW_CHECK_EQ(top.ask_orders, 2);
	/* Executing exactly what remains removes the order. */
	HGW_CHECK_EQ(msg_exec(b, 2, 20, 180), 2);
	HGW_CHECK_EQ(hgw_book_order(b, 20, NULL, NULL, NULL, NULL), -ENOENT);
	hgw_book_top(b, 2, &top);
	HGW_CHECK_EQ(top.ask_shares, 100);
	HGW_CHECK_EQ(top.ask_orders, 1);
	/* Last order at the touch: the level goes, the next one is best. */
	HGW_CHECK_EQ(msg_exec(b, 2, 21, 100), 2);
	hgw_book_top(b, 2, &top);
	HGW_CHECK_EQ(top.ask_price, 710000);
	HGW_CHECK_EQ(top.ask_shares, 100);
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'S'), 1);
	HGW_CHECK_EQ(hgw_book_stats(b)->executes, 3);
	HGW_CHECK_EQ(hgw_book_stats(b)->applied, 6);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 1);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders_hwm, 3);
	/* Executions alone are not prints for the last trade. */
	HGW_CHECK_EQ(hgw_book_last_trade(b, 2), 0);
	HGW_CHECK_EQ(stat_errors(b), 0);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_execute_px(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 30, 'B', 500, 400000);
	HGW_CHECK_EQ(msg_exec_px(b, 1, 30, 100, 'N', 399900), 1);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 1), 0);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_shares, 400);
	HGW_CHECK_EQ(msg_exec_px(b, 1, 30, 150, 'Y', 399800), 1);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 1), 399800);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_shares, 250);
	HGW_CHECK_EQ(top.bid_price, 400000);
	/* A non-printable execution keeps the last print. */
	HGW_CHECK_EQ(msg_exec_px(b, 1, 30, 10, ' ', 399600), 1);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 1), 399800);
	HGW_CHECK_EQ(msg_exec_px(b, 1, 30, 240, 'N', 399700), 1);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 1), 399800);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B'), 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->executes, 4);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 0);
	HGW_CHECK_EQ(stat_errors(b), 0);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_cancel(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;
	uint32_t shares;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 40, 'B', 500, 400000);
	add(b, 1, 41, 'B', 100, 400000);
	HGW_CHECK_EQ(msg_cancel(b, 1, 40, 200), 1);
	HGW_CHECK_EQ(hgw_book_order(b, 40, NULL, NULL, &shares, NULL), 0);
	HGW_CHECK_EQ(shares, 300);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_shares, 400);
	HGW_CHECK_EQ(top.bid_orders, 2);
	/* Cancelling all that remains is a full cancel. */
	HGW_CHECK_EQ(msg_cancel(b, 1, 40, 300), 1);
	HGW_CHECK_EQ(hgw_book_order(b, 40, NULL, NULL, NULL, NULL), -ENOENT);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_shares, 100);
	HGW_CHECK_EQ(top.bid_orders, 1);
	HGW_CHECK_EQ(msg_cancel(b, 1, 41, 100), 1);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B'), 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->cancels, 3);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 0);
	HGW_CHECK_EQ(stat_errors(b), 0);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_delete(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 50, 'S', 500, 400000);
	add(b, 1, 51, 'S', 100, 400000);
	add(b, 1, 52, 'S', 100, 410000);
	HGW_CHECK_EQ(msg_delete(b, 1, 50), 1);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.ask_price, 400000);
	HGW_CHECK_EQ(top.ask_shares, 100);
	HGW_CHECK_EQ(top.ask_orders, 1);
	HGW_CHECK_EQ(msg_delete(b, 1, 51), 1);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.ask_price, 410000);
	HGW_CHECK_EQ(msg_delete(b, 1, 52), 1);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.ask_price, 0);
	HGW_CHECK_EQ(top.ask_shares, 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->deletes, 3);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->applied, 6);
	/* Deleted again: unknown now. */
	HGW_CHECK_EQ(msg_delete(b, 1, 52), 0);
	HGW_CHECK_EQ(ERRS(b, UNKNOWN_REF), 1);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_replace(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;
	uint16_t loc;
	uint8_t side;
	uint32_t shares, price;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 2, 60, 'B', 500, 400000);
	add(b, 2, 61, 'B', 100, 390000);
	add(b, 2, 62, 'S', 100, 420000);
	/* Best bid moves up to a new level; the old one empties. */
	HGW_CHECK_EQ(msg_replace(b, 2, 60, 70, 300, 405000), 2);
	HGW_CHECK_EQ(hgw_book_order(b, 60, NULL, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(hgw_book_order(b, 70, &loc, &side, &shares, &price), 0);
	HGW_CHECK_EQ(loc, 2);
	HGW_CHECK_EQ(side, 'B');
	HGW_CHECK_EQ(shares, 300);
	HGW_CHECK_EQ(price, 405000);
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'B'), 2);
	HGW_CHECK_EQ(level(b, 2, 'B', 0).price, 405000);
	HGW_CHECK_EQ(level(b, 2, 'B', 1).price, 390000);
	HGW_CHECK_EQ(level(b, 2, 'B', 1).shares, 100);
	/* Sell side stays a sell. */
	HGW_CHECK_EQ(msg_replace(b, 2, 62, 71, 50, 415000), 2);
	hgw_book_top(b, 2, &top);
	HGW_CHECK_EQ(top.ask_price, 415000);
	HGW_CHECK_EQ(top.ask_shares, 50);
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'S'), 1);
	HGW_CHECK_EQ(hgw_book_order(b, 71, NULL, &side, NULL, NULL), 0);
	HGW_CHECK_EQ(side, 'S');
	/* Same price, same ref: allowed, the level keeps the new size. */
	HGW_CHECK_EQ(msg_replace(b, 2, 71, 71, 80, 415000), 2);
	hgw_book_top(b, 2, &top);
	HGW_CHECK_EQ(top.ask_shares, 80);
	HGW_CHECK_EQ(top.ask_orders, 1);
	HGW_CHECK_EQ(hgw_book_stats(b)->replaces, 3);
	HGW_CHECK_EQ(hgw_book_stats(b)->adds, 3);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 3);
	HGW_CHECK_EQ(stat_errors(b), 0);
	HGW_CHECK(book_ok(b));
	/* A refused new order still removes the original. */
	HGW_CHECK_EQ(msg_replace(b, 2, 71, 72, 80, 0), 2);
	HGW_CHECK_EQ(ERRS(b, BAD_PRICE), 1);
	HGW_CHECK_EQ(hgw_book_order(b, 71, NULL, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(hgw_book_order(b, 72, NULL, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'S'), 0);
	/* New ref already live: DUP_REF, the live one untouched. */
	HGW_CHECK_EQ(msg_replace(b, 2, 70, 61, 999, 405000), 2);
	HGW_CHECK_EQ(ERRS(b, DUP_REF), 1);
	HGW_CHECK_EQ(hgw_book_order(b, 61, NULL, NULL, &shares, NULL), 0);
	HGW_CHECK_EQ(shares, 100);
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'B'), 1);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 1);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_trade_cross_directory(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;
	const char *name;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 3, 80, 'B', 100, 400000);
	HGW_CHECK_EQ(msg_trade(b, 3, 0, 'B', 100, 401000), 0);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 3), 401000);
	/* A P with the ref of a live order does not touch it either. */
	HGW_CHECK_EQ(msg_trade(b, 3, 80, 'B', 100, 400000), 0);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 3), 400000);
	hgw_book_top(b, 3, &top);
	HGW_CHECK_EQ(top.bid_shares, 100);
	HGW_CHECK_EQ(top.bid_orders, 1);
	HGW_CHECK_EQ(msg_cross(b, 3, 12345, 402500), 0);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 3), 402500);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 2), 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->trades, 3);
	HGW_CHECK_EQ(hgw_book_stats(b)->applied, 1);

	HGW_CHECK(hgw_book_name(b, 3) == NULL);
	HGW_CHECK_EQ(msg_directory(b, 3, "AAPL    "), 0);
	name = hgw_book_name(b, 3);
	HGW_CHECK(name != NULL && memcmp(name, "AAPL    ", 8) == 0);
	HGW_CHECK(name != NULL && strlen(name) == 8);
	HGW_CHECK(hgw_book_name(b, 2) == NULL);
	HGW_CHECK(hgw_book_name(b, 4) == NULL);
	HGW_CHECK_EQ(msg_directory(b, 3, "MSFT    "), 0);
	name = hgw_book_name(b, 3);
	HGW_CHECK(name != NULL && memcmp(name, "MSFT    ", 8) == 0);

	/* Out of range: counted, nothing recorded. */
	HGW_CHECK_EQ(msg_trade(b, 4, 0, 'S', 1, 1), 0);
	HGW_CHECK_EQ(msg_cross(b, 4, 1, 1), 0);
	HGW_CHECK_EQ(msg_directory(b, 4, "BAD     "), 0);
	HGW_CHECK_EQ(ERRS(b, LOCATE_RANGE), 3);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 4), 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->trades, 3);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_ignored_types(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_itch_broken_trade bt;
	struct hgw_itch_trading_action ta;
	struct hgw_book_stats before;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 90, 'B', 100, 400000);
	before = *hgw_book_stats(b);
	HGW_CHECK_EQ(msg_system(b, 'Q'), 0);
	memset(&bt, 0, sizeof(bt));
	hdr(&bt.h, 'B', 1);
	hgw_put_be64(bt.match_number, 424244);
	HGW_CHECK_EQ(apply_msg(b, &bt, sizeof(bt)), 0);
	memset(&ta, ' ', sizeof(ta));
	hdr(&ta.h, 'H', 1);
	ta.trading_state = 'H';
	HGW_CHECK_EQ(apply_msg(b, &ta, sizeof(ta)), 0);
	HGW_CHECK(memcmp(&before, hgw_book_stats(b), sizeof(before)) == 0);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B'), 1);
	free(b);
}

static void
test_unknown_refs(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 100, 'B', 100, 400000);
	HGW_CHECK_EQ(msg_exec(b, 1, 999, 10), 0);
	HGW_CHECK_EQ(msg_exec_px(b, 1, 999, 10, 'N', 400000), 0);
	HGW_CHECK_EQ(msg_cancel(b, 1, 999, 10), 0);
	HGW_CHECK_EQ(msg_delete(b, 1, 999), 0);
	HGW_CHECK_EQ(msg_replace(b, 1, 999, 1000, 10, 400000), 0);
	HGW_CHECK_EQ(ERRS(b, UNKNOWN_REF), 5);
	/* Nothing was added by the replace of an unknown order. */
	HGW_CHECK_EQ(hgw_book_order(b, 1000, NULL, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(hgw_book_stats(b)->applied, 1);
	HGW_CHECK_EQ(hgw_book_stats(b)->executes + hgw_book_stats(b)->cancels +
		     hgw_book_stats(b)->deletes + hgw_book_stats(b)->replaces,
		     0);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 1);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_shares, 100);
	/* A printable execution of an untracked order still prints. */
	HGW_CHECK_EQ(msg_exec_px(b, 2, 999, 10, 'Y', 401000), 0);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 2), 401000);
	HGW_CHECK_EQ(ERRS(b, UNKNOWN_REF), 6);
	HGW_CHECK_EQ(stat_errors(b), 6);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_add_errors(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;
	uint32_t shares;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	HGW_CHECK_EQ(add(b, 1, 110, 'B', 100, 400000), 1);
	/* Duplicate ref, even on another instrument and side. */
	HGW_CHECK_EQ(add(b, 2, 110, 'S', 50, 410000), 0);
	HGW_CHECK_EQ(ERRS(b, DUP_REF), 1);
	HGW_CHECK_EQ(hgw_book_order(b, 110, NULL, NULL, &shares, NULL), 0);
	HGW_CHECK_EQ(shares, 100);
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'S'), 0);
	/* Bad side. */
	HGW_CHECK_EQ(add(b, 1, 111, 'b', 100, 400000), 0);
	HGW_CHECK_EQ(msg_add(b, 'F', 1, 112, 0, 100, 400000), 0);
	HGW_CHECK_EQ(ERRS(b, BAD_SIDE), 2);
	/* Bad price: 0 and above the maximum; the maximum itself is fine. */
	HGW_CHECK_EQ(add(b, 1, 113, 'S', 100, 0), 0);
	HGW_CHECK_EQ(add(b, 1, 114, 'S', 100, HGW_ITCH_PRICE_MAX + 1), 0);
	HGW_CHECK_EQ(add(b, 1, 115, 'S', 100, 0xffffffffu), 0);
	HGW_CHECK_EQ(ERRS(b, BAD_PRICE), 3);
	HGW_CHECK_EQ(add(b, 1, 116, 'S', 100, HGW_ITCH_PRICE_MAX), 1);
	HGW_CHECK_EQ(add(b, 1, 117, 'B', 100, 1), 1);
	/* Locate out of range. */
	HGW_CHECK_EQ(add(b, 4, 118, 'B', 100, 400000), 0);
	HGW_CHECK_EQ(add(b, 0xffff, 119, 'B', 100, 400000), 0);
	HGW_CHECK_EQ(ERRS(b, LOCATE_RANGE), 2);
	/* None of the refused refs is live. */
	HGW_CHECK_EQ(hgw_book_order(b, 111, NULL, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(hgw_book_order(b, 113, NULL, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(hgw_book_order(b, 118, NULL, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(hgw_book_stats(b)->adds, 3);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 3);
	HGW_CHECK_EQ(stat_errors(b), 8);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_price, 400000);
	HGW_CHECK_EQ(top.ask_price, HGW_ITCH_PRICE_MAX);
	HGW_CHECK_EQ(level(b, 1, 'B', 1).price, 1);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_oversize(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 120, 'B', 100, 400000);
	add(b, 1, 121, 'B', 100, 400000);
	add(b, 1, 122, 'S', 100, 410000);
	HGW_CHECK_EQ(msg_exec(b, 1, 120, 101), 1);
	HGW_CHECK_EQ(ERRS(b, OVERSIZE), 1);
	HGW_CHECK_EQ(hgw_book_order(b, 120, NULL, NULL, NULL, NULL), -ENOENT);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_shares, 100);
	HGW_CHECK_EQ(top.bid_orders, 1);
	HGW_CHECK_EQ(msg_cancel(b, 1, 122, 0xffffffffu), 1);
	HGW_CHECK_EQ(msg_exec_px(b, 1, 121, 1000, 'Y', 400000), 1);
	HGW_CHECK_EQ(ERRS(b, OVERSIZE), 3);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B'), 0);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'S'), 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->executes, 2);
	HGW_CHECK_EQ(hgw_book_stats(b)->cancels, 1);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 0);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_locate_mismatch(void)
{
	struct hgw_book *b = mkbook(4, 64, 16);
	struct hgw_book_top top;
	uint16_t loc;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 130, 'B', 100, 400000);
	add(b, 1, 131, 'S', 100, 410000);
	add(b, 1, 132, 'S', 100, 420000);
	/* The ref wins: instrument 1 changes, and 1 is returned. */
	HGW_CHECK_EQ(msg_exec(b, 2, 130, 40), 1);
	HGW_CHECK_EQ(ERRS(b, LOCATE_MISMATCH), 1);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_shares, 60);
	HGW_CHECK_EQ(msg_cancel(b, 3, 130, 10), 1);
	HGW_CHECK_EQ(msg_exec_px(b, 0xffff, 130, 10, 'Y', 399000), 1);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 1), 399000);
	HGW_CHECK_EQ(msg_delete(b, 2, 131), 1);
	/* Replace keeps the original's instrument. */
	HGW_CHECK_EQ(msg_replace(b, 3, 132, 133, 70, 415000), 1);
	HGW_CHECK_EQ(ERRS(b, LOCATE_MISMATCH), 5);
	HGW_CHECK_EQ(hgw_book_order(b, 133, &loc, NULL, NULL, NULL), 0);
	HGW_CHECK_EQ(loc, 1);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.bid_shares, 40);
	HGW_CHECK_EQ(top.ask_price, 415000);
	HGW_CHECK_EQ(top.ask_shares, 70);
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'B') + hgw_book_depth(b, 3, 'S'), 0);
	HGW_CHECK_EQ(stat_errors(b), 5);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_order_full(void)
{
	struct hgw_book *b = mkbook(4, 4, 16);
	uint64_t ref;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	for (ref = 1; ref <= 4; ref++)
		HGW_CHECK_EQ(add(b, 1, ref, 'B', 10, 400000 + (uint32_t)ref), 1);
	HGW_CHECK_EQ(add(b, 1, 5, 'B', 10, 400000), 0);
	HGW_CHECK_EQ(ERRS(b, ORDER_FULL), 1);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 4);
	/* The refused order is not tracked: later messages miss. */
	HGW_CHECK_EQ(msg_exec(b, 1, 5, 1), 0);
	HGW_CHECK_EQ(ERRS(b, UNKNOWN_REF), 1);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B'), 4);
	/* A replace frees the original's slot first, so it fits. */
	HGW_CHECK_EQ(msg_replace(b, 1, 4, 6, 10, 400000), 1);
	HGW_CHECK_EQ(hgw_book_order(b, 6, NULL, NULL, NULL, NULL), 0);
	HGW_CHECK_EQ(ERRS(b, ORDER_FULL), 1);
	/* Deleting frees a slot for the next add. */
	HGW_CHECK_EQ(msg_delete(b, 1, 2), 1);
	HGW_CHECK_EQ(add(b, 1, 7, 'S', 10, 410000), 1);
	HGW_CHECK_EQ(add(b, 1, 8, 'S', 10, 410000), 0);
	HGW_CHECK_EQ(ERRS(b, ORDER_FULL), 2);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 4);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders_hwm, 4);
	HGW_CHECK(book_ok(b));
	free(b);
}

static void
test_level_full(void)
{
	struct hgw_book *b = mkbook(4, 64, 3);
	struct hgw_book_top top;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	HGW_CHECK_EQ(add(b, 1, 1, 'S', 10, 410000), 1);
	HGW_CHECK_EQ(add(b, 1, 2, 'S', 10, 420000), 1);
	HGW_CHECK_EQ(add(b, 1, 3, 'S', 10, 430000), 1);
	/* A fourth price, better or worse, is refused. */
	HGW_CHECK_EQ(add(b, 1, 4, 'S', 10, 405000), 0);
	HGW_CHECK_EQ(add(b, 1, 5, 'S', 10, 440000), 0);
	HGW_CHECK_EQ(ERRS(b, LEVEL_FULL), 2);
	/* An existing price still takes orders; the other side and other
	 * instruments are separate. */
	HGW_CHECK_EQ(add(b, 1, 6, 'S', 10, 420000), 1);
	HGW_CHECK_EQ(add(b, 1, 7, 'B', 10, 400000), 1);
	HGW_CHECK_EQ(add(b, 1, 8, 'B', 10, 399000), 1);
	HGW_CHECK_EQ(add(b, 1, 9, 'B', 10, 398000), 1);
	HGW_CHECK_EQ(add(b, 2, 10, 'S', 10, 405000), 2);
	/* Refused refs are unknown later. */
	HGW_CHECK_EQ(msg_delete(b, 1, 4), 0);
	HGW_CHECK_EQ(msg_cancel(b, 1, 5, 1), 0);
	HGW_CHECK_EQ(ERRS(b, UNKNOWN_REF), 2);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.ask_price, 410000);
	HGW_CHECK_EQ(top.ask_shares, 10);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'S'), 3);
	/* Emptying a level makes room. */
	HGW_CHECK_EQ(msg_delete(b, 1, 3), 1);
	HGW_CHECK_EQ(add(b, 1, 11, 'S', 10, 405000), 1);
	hgw_book_top(b, 1, &top);
	HGW_CHECK_EQ(top.ask_price, 405000);
	/* Replace to a new price on a full side: original gone, new refused. */
	HGW_CHECK_EQ(msg_replace(b, 1, 6, 12, 10, 407000), 1);
	HGW_CHECK_EQ(ERRS(b, LEVEL_FULL), 3);
	HGW_CHECK_EQ(hgw_book_order(b, 12, NULL, NULL, NULL, NULL), -ENOENT);
	HGW_CHECK_EQ(level(b, 1, 'S', 2).orders, 1);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 7);
	HGW_CHECK(book_ok(b));
	free(b);
}

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	return hgw_xorshift64s(&rng_state);
}

static uint32_t
rnd_below(uint32_t n)
{
	return (uint32_t)((rnd() >> 32) % n);
}

/* Every live ref is findable with the shares it was given; every removed
 * ref is gone. */
static int
refs_match(const struct hgw_book *b, const uint64_t *refs,
	   const uint32_t *shares, size_t n)
{
	size_t i;
	uint32_t s;
	int ok = 1;

	for (i = 0; i < n; i++) {
		int rc = hgw_book_order(b, refs[i], NULL, NULL, &s, NULL);

		if (shares[i] != 0 && (rc != 0 || s != shares[i])) {
			printf("# ref %" PRIu64 " lost\n", refs[i]);
			ok = 0;
		}
		if (shares[i] == 0 && rc != -ENOENT) {
			printf("# ref %" PRIu64 " still live\n", refs[i]);
			ok = 0;
		}
	}
	return ok;
}

/* Probe runs that collide, wrap around the table end, and shrink by
 * backward shift. Capacity is 2 x max_orders rounded up to a power of two
 * (hgw_book.h); refs that are multiples of it collide under the identity
 * hash, and with only 8 live orders in 16 slots any hash collides. */
/* Many levels on a side: searches deeper than one 8-key window and level
 * inserts/removals with more than 8 levels above them (the memmove path),
 * with prices added and removed in a scrambled order, and the same stream
 * applied in bulk giving the same book. */
#define DL_LEVELS 61

static void
test_deep_levels(void)
{
	struct hgw_book *b = mkbook(4, 512, DL_LEVELS);
	struct hgw_book *bulk = mkbook(4, 512, DL_LEVELS);
	const uint8_t *ptrs[4 * DL_LEVELS + 2];
	uint32_t k, i, n = 0;
	int s;

	HGW_CHECK(b != NULL && bulk != NULL);
	if (b == NULL || bulk == NULL)
		goto out;
	rec.on = 1;
	rec.n = 0;
	rec.used = 0;
	for (s = 0; s < 2; s++) {
		uint8_t side = s ? 'S' : 'B';

		/* 37 is coprime with 61: every price once, scrambled. */
		for (k = 0; k < DL_LEVELS; k++) {
			uint32_t p = 100000 + ((k * 37) % DL_LEVELS) * 100;

			HGW_CHECK_EQ(add(b, 2, 1000 * (uint64_t)s + k, side,
					 10 + k, p), 2);
		}
		HGW_CHECK_EQ(hgw_book_depth(b, 2, side), DL_LEVELS);
		HGW_CHECK_EQ(add(b, 2, 5000 + (uint64_t)s, side, 1, 99000), 0);
		for (i = 0; i < DL_LEVELS; i++) {
			struct lvl l = level(b, 2, side, i);
			uint32_t want = s ? 100000 + i * 100 :
				100000 + (DL_LEVELS - 1 - i) * 100;

			HGW_CHECK_EQ(l.price, want);
			HGW_CHECK_EQ(l.orders, 1);
		}
		HGW_CHECK(book_ok(b));
	}
	HGW_CHECK_EQ(ERRS(b, LEVEL_FULL), 2);
	/* Remove in another scrambled order, checking as levels go. */
	for (s = 0; s < 2; s++)
		for (k = 0; k < DL_LEVELS; k++) {
			uint32_t j = (k * 23 + 5) % DL_LEVELS;

			HGW_CHECK_EQ(msg_delete(b, 2, 1000 * (uint64_t)s + j), 2);
			if (k % 8 == 0)
				HGW_CHECK(book_ok(b));
		}
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'B'), 0);
	HGW_CHECK_EQ(hgw_book_depth(b, 2, 'S'), 0);
	HGW_CHECK(book_ok(b));
	rec.on = 0;
	for (i = 0; i < rec.n && n < sizeof(ptrs) / sizeof(ptrs[0]); i++)
		ptrs[n++] = rec.bytes + rec.off[i];
	HGW_CHECK_EQ(n, rec.n);
	HGW_CHECK_EQ(hgw_book_apply_bulk(bulk, ptrs, n / 2, NULL) +
		     hgw_book_apply_bulk(bulk, ptrs + n / 2, n - n / 2, NULL),
		     (uint32_t)(4 * DL_LEVELS));
	HGW_CHECK(book_ok(bulk));
	HGW_CHECK_EQ(hgw_book_stats(bulk)->live_orders, 0);
	HGW_CHECK_EQ(ERRS(bulk, LEVEL_FULL), 2);
out:
	rec.on = 0;
	rec.n = 0;
	rec.used = 0;
	free(b);
	free(bulk);
}

static void
test_hash_collisions(void)
{
	static const uint32_t max_orders[] = { 8, 64, 1000 };
	uint64_t refs[2048];
	uint32_t shares[2048];
	size_t k, i, n;
	int round;

	for (k = 0; k < sizeof(max_orders) / sizeof(max_orders[0]); k++) {
		uint32_t mo = max_orders[k];
		uint64_t cap = 1;
		struct hgw_book *b = mkbook(2, mo, 1024);
		int ok = 1;

		HGW_CHECK(b != NULL);
		if (b == NULL)
			return;
		while (cap < 2ull * mo)
			cap <<= 1;
		n = 0;
		/* Strided and clustered refs. */
		for (i = 0; i < 2 * mo && n < 2048; i++) {
			uint64_t stride = i % 3 == 0 ? cap :
				i % 3 == 1 ? cap << 20 : 1;

			refs[n] = (i + 1) * stride + (i % 3 == 2 ? 1u << 30 : 0);
			shares[n] = 0;
			n++;
		}
		for (round = 0; round < 20000; round++) {
			size_t j = rnd_below((uint32_t)n);

			if (shares[j] == 0) {
				uint32_t s = 1 + rnd_below(1000);
				uint16_t rc = add(b, 1, refs[j], 'B', s,
						  1000 + rnd_below(50));

				if (rc == 1)
					shares[j] = s;
				else
					HGW_CHECK_EQ(hgw_book_stats(b)->live_orders,
						     mo);
			} else {
				HGW_CHECK_EQ(msg_delete(b, 1, refs[j]), 1);
				shares[j] = 0;
			}
			if (round % (mo < 100 ? 1 : 500) == 0 && ok) {
				ok = refs_match(b, refs, shares, n) &&
					book_ok(b);
				HGW_CHECK(ok);
			}
		}
		HGW_CHECK(refs_match(b, refs, shares, n));
		HGW_CHECK(book_ok(b));
		HGW_CHECK_EQ(stat_errors(b), ERRS(b, ORDER_FULL));
		HGW_CHECK(mo > 100 || ERRS(b, ORDER_FULL) > 0);
		/* Drain everything: the table ends empty and consistent. */
		for (i = 0; i < n; i++)
			if (shares[i] != 0) {
				HGW_CHECK_EQ(msg_delete(b, 1, refs[i]), 1);
				shares[i] = 0;
			}
		HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 0);
		HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B'), 0);
		HGW_CHECK(refs_match(b, refs, shares, n));
		HGW_CHECK(book_ok(b));
		free(b);
	}
}

/* Shares and price of a live order, or -1 / -1 when it is not live. */
static int
order_is(const struct hgw_book *b, uint64_t ref, uint32_t shares,
	 uint32_t price)
{
	uint32_t sh = 0, px = 0;

	if (hgw_book_order(b, ref, NULL, NULL, &sh, &px) != 0)
		return shares == 0;
	return sh == shares && px == price;
}

/* Orders whose references share a slot of the reference window (16 slots
 * for 16 orders: refs equal mod 16): the older moves to the overflow
 * table, or an older newcomer goes there directly, and every order stays
 * found, duplicate-checked, reduced, replaced and deleted wherever it
 * sits; so does a reference too large for the window. */
static void
test_window_overflow(void)
{
	struct hgw_book *b = mkbook(4, 16, 16);
	const uint64_t big = 1ull << 40;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	HGW_CHECK_EQ(add(b, 1, 5, 'B', 100, 400000), 1);
	HGW_CHECK_EQ(add(b, 1, 21, 'B', 200, 401000), 1);  /* evicts 5 */
	HGW_CHECK_EQ(add(b, 1, 37, 'S', 300, 402000), 1);  /* evicts 21 */
	HGW_CHECK_EQ(add(b, 1, 39, 'S', 400, 403000), 1);
	HGW_CHECK_EQ(add(b, 1, 7, 'S', 500, 403000), 1);   /* older than 39 */
	HGW_CHECK_EQ(add(b, 1, big, 'B', 600, 399000), 1); /* tag too big */
	HGW_CHECK(order_is(b, 5, 100, 400000));
	HGW_CHECK(order_is(b, 21, 200, 401000));
	HGW_CHECK(order_is(b, 37, 300, 402000));
	HGW_CHECK(order_is(b, 39, 400, 403000));
	HGW_CHECK(order_is(b, 7, 500, 403000));
	HGW_CHECK(order_is(b, big, 600, 399000));
	HGW_CHECK(book_ok(b));
	/* Duplicates are refused wherever the live order sits. */
	HGW_CHECK_EQ(add(b, 1, 5, 'B', 1, 400000), 0);
	HGW_CHECK_EQ(add(b, 1, 21, 'B', 1, 400000), 0);
	HGW_CHECK_EQ(add(b, 1, 37, 'B', 1, 400000), 0);
	HGW_CHECK_EQ(add(b, 1, 7, 'B', 1, 400000), 0);
	HGW_CHECK_EQ(add(b, 1, big, 'B', 1, 400000), 0);
	HGW_CHECK_EQ(ERRS(b, DUP_REF), 5);
	/* A ref that shares a live order's slot but is not live. */
	HGW_CHECK_EQ(msg_delete(b, 1, 53), 0);
	HGW_CHECK_EQ(msg_exec(b, 1, 23, 1), 0);
	HGW_CHECK_EQ(ERRS(b, UNKNOWN_REF), 2);
	/* Reduce, replace and delete orders in the overflow table. */
	HGW_CHECK_EQ(msg_exec(b, 1, 5, 40), 1);
	HGW_CHECK(order_is(b, 5, 60, 400000));
	HGW_CHECK_EQ(msg_cancel(b, 1, 7, 100), 1);
	HGW_CHECK(order_is(b, 7, 400, 403000));
	HGW_CHECK_EQ(msg_replace(b, 1, 21, 69, 250, 401500), 1); /* evicts 37 */
	HGW_CHECK(order_is(b, 21, 0, 0));
	HGW_CHECK(order_is(b, 69, 250, 401500));
	HGW_CHECK(order_is(b, 37, 300, 402000));
	HGW_CHECK(book_ok(b));
	HGW_CHECK_EQ(msg_delete(b, 1, 5), 1);
	HGW_CHECK_EQ(msg_delete(b, 1, big), 1);
	HGW_CHECK(order_is(b, 5, 0, 0));
	HGW_CHECK(order_is(b, big, 0, 0));
	HGW_CHECK(book_ok(b));
	/* Its slot free again, a ref can be added back. */
	HGW_CHECK_EQ(add(b, 1, 5, 'B', 10, 400000), 1);
	HGW_CHECK(order_is(b, 5, 10, 400000));
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 5);
	HGW_CHECK(book_ok(b));
	/* Drain: the book ends empty and consistent. */
	HGW_CHECK_EQ(msg_delete(b, 1, 5), 1);
	HGW_CHECK_EQ(msg_delete(b, 1, 7), 1);
	HGW_CHECK_EQ(msg_delete(b, 1, 37), 1);
	HGW_CHECK_EQ(msg_delete(b, 1, 39), 1);
	HGW_CHECK_EQ(msg_delete(b, 1, 69), 1);
	HGW_CHECK_EQ(msg_exec(b, 1, 7, 1), 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 0);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B') + hgw_book_depth(b, 1, 'S'), 0);
	HGW_CHECK_EQ(stat_errors(b), 8);
	HGW_CHECK(book_ok(b));
	free(b);
}

/* Find the one aligned u64 equal to v in the book's memory. */
static uint64_t *
find_u64(void *mem, size_t sz, uint64_t v)
{
	uint64_t *p = mem, *hit = NULL;
	size_t i, n = 0;

	for (i = 0; i < sz / 8; i++)
		if (p[i] == v) {
			hit = &p[i];
			n++;
		}
	return n == 1 ? hit : NULL;
}

/* hgw_book_check must notice corruption, or the other tests prove
 * nothing with it. */
static void
test_check_detects(void)
{
	struct hgw_book_conf conf = { 4, 64, 16 };
	size_t sz = hgw_book_memsize(&conf);
	struct hgw_book *b = mkbook(4, 64, 16);
	char why[256];
	uint64_t *p;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	add(b, 1, 0x0123456789abull, 'B', 0x1234567, 400000);
	add(b, 1, 2, 'B', 10, 401000);
	add(b, 1, 3, 'S', 10, 402000);
	/* References too large for the window's tags, around the first one:
	 * the book's bounds of its overflow table hold these two, so the
	 * first one's value is stored once, in its slot. */
	add(b, 1, 0x010000000000ull, 'S', 10, 403000);
	add(b, 1, 0x020000000000ull, 'S', 10, 404000);
	HGW_CHECK(book_ok(b));
	/* A level aggregate off by one share. */
	p = find_u64(b, sz, 0x1234567);
	HGW_CHECK(p != NULL);
	if (p != NULL) {
		(*p)++;
		why[0] = '\0';
		HGW_CHECK_EQ(hgw_book_check(b, why, sizeof(why)), -EFAULT);
		HGW_CHECK(why[0] != '\0');
		HGW_CHECK_EQ(hgw_book_check(b, NULL, 0), -EFAULT);
		(*p)--;
		HGW_CHECK(book_ok(b));
	}
	/* An order whose ref no longer hashes to where it sits. */
	p = find_u64(b, sz, 0x0123456789abull);
	HGW_CHECK(p != NULL);
	if (p != NULL) {
		*p ^= 0x5555ull << 20;
		HGW_CHECK_EQ(hgw_book_check(b, why, sizeof(why)), -EFAULT);
		*p ^= 0x5555ull << 20;
		HGW_CHECK(book_ok(b));
	}
	free(b);
}

/* A book too big for one pass of hgw_book_check's stack accumulators
 * (hundreds of levels, a side split across passes, 80 non-empty sides):
 * the check still passes, and still sees an error in a late pass. */
static void
test_check_large(void)
{
	struct hgw_book_conf conf = { 41, 4096, 700 };
	size_t sz = hgw_book_memsize(&conf);
	struct hgw_book *b = mkbook(41, 4096, 700);
	uint64_t ref = 1, *p;
	uint32_t i;
	uint16_t loc;

	HGW_CHECK(b != NULL);
	if (b == NULL)
		return;
	/* 700 bid and 650 ask levels on locate 1, two orders each. */
	for (i = 0; i < 700; i++) {
		HGW_CHECK_EQ(add(b, 1, ref++, 'B', 10, 100000 + i * 100), 1);
		HGW_CHECK_EQ(add(b, 1, ref++, 'B', 20, 100000 + i * 100), 1);
	}
	for (i = 0; i < 650; i++)
		HGW_CHECK_EQ(add(b, 1, ref++, 'S', 30, 200000 + i * 100), 1);
	/* One level a side on locates 2..40: more sides than one pass
	 * takes. */
	for (loc = 2; loc <= 40; loc++) {
		HGW_CHECK_EQ(add(b, loc, ref++, 'B', 5, 300000), loc);
		HGW_CHECK_EQ(add(b, loc, ref++, 'S', 5, 400000), loc);
	}
	HGW_CHECK_EQ(add(b, 40, ref++, 'S', 0x3456789, 400000), 40);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B'), 700);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'S'), 650);
	HGW_CHECK_EQ(level(b, 1, 'B', 699).shares, 30);
	HGW_CHECK_EQ(level(b, 1, 'B', 699).orders, 2);
	HGW_CHECK_EQ(stat_errors(b), 0);
	HGW_CHECK(book_ok(b));
	/* The last level of the last side: 5 + 0x3456789 shares. */
	p = find_u64(b, sz, 0x3456789 + 5);
	HGW_CHECK(p != NULL);
	if (p != NULL) {
		(*p)--;
		HGW_CHECK_EQ(hgw_book_check(b, NULL, 0), -EFAULT);
		(*p)++;
		HGW_CHECK(book_ok(b));
	}
	free(b);
}

/*
 * Random operations against an independent model: a flat array of orders
 * scanned linearly. Prices come from a small table (so sides fill up and
 * LEVEL_FULL happens), refs are mostly increasing, and a share of the
 * messages are deliberately bad. After every message the model and the
 * book must agree on the return value and on the top of every instrument.
 */
#define RM_INST 5            /* locates 0..4; 1..4 used */
#define RM_MAX_ORDERS 192
#define RM_MAX_LEVELS 16
#define RM_NPRICE 40
#define RM_OPS 200000

struct rm_order {
	uint64_t ref;
	uint32_t price;
	uint32_t shares;
	uint16_t locate;
	uint8_t side;        /* 'B' / 'S' */
};

struct rm {
	struct rm_order o[RM_MAX_ORDERS];
	uint32_t n;
	uint32_t last_trade[RM_INST];
	struct hgw_book_stats st;
};

static uint32_t rm_prices[RM_NPRICE];

static uint32_t
rm_find(const struct rm *m, uint64_t ref)
{
	uint32_t i;

	for (i = 0; i < m->n; i++)
		if (m->o[i].ref == ref)
			return i;
	return UINT32_MAX;
}

static void
rm_remove(struct rm *m, uint32_t i)
{
	m->o[i] = m->o[--m->n];
	m->st.live_orders--;
}

static int
rm_side_has_price(const struct rm *m, uint16_t locate, uint8_t side,
		  uint32_t price, uint32_t *nlevels)
{
	uint32_t seen[RM_MAX_ORDERS];
	uint32_t i, j, n = 0;
	int has = 0;

	for (i = 0; i < m->n; i++) {
		const struct rm_order *o = &m->o[i];

		if (o->locate != locate || o->side != side)
			continue;
		if (o->price == price)
			has = 1;
		for (j = 0; j < n && seen[j] != o->price; j++)
			;
		if (j == n)
			seen[n++] = o->price;
	}
	*nlevels = n;
	return has;
}

/* Same precedence as the book: side, price, dup, orders, levels. */
static int
rm_insert(struct rm *m, uint16_t locate, uint64_t ref, uint8_t side,
	  uint32_t shares, uint32_t price)
{
	uint32_t nlev;

	if (side != 'B' && side != 'S') {
		m->st.errors[HGW_BOOK_ERR_BAD_SIDE]++;
		return -1;
	}
	if (price == 0 || price > HGW_ITCH_PRICE_MAX) {
		m->st.errors[HGW_BOOK_ERR_BAD_PRICE]++;
		return -1;
	}
	if (rm_find(m, ref) != UINT32_MAX) {
		m->st.errors[HGW_BOOK_ERR_DUP_REF]++;
		return -1;
	}
	if (m->n == RM_MAX_ORDERS) {
		m->st.errors[HGW_BOOK_ERR_ORDER_FULL]++;
		return -1;
	}
	if (!rm_side_has_price(m, locate, side, price, &nlev) &&
	    nlev == RM_MAX_LEVELS) {
		m->st.errors[HGW_BOOK_ERR_LEVEL_FULL]++;
		return -1;
	}
	m->o[m->n].ref = ref;
	m->o[m->n].price = price;
	m->o[m->n].shares = shares;
	m->o[m->n].locate = locate;
	m->o[m->n].side = side;
	m->n++;
	if (++m->st.live_orders > m->st.live_orders_hwm)
		m->st.live_orders_hwm = m->st.live_orders;
	return 0;
}

static void
rm_top(const struct rm *m, uint16_t locate, struct hgw_book_top *t)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < m->n; i++) {
		const struct rm_order *o = &m->o[i];

		if (o->locate != locate)
			continue;
		if (o->side == 'B') {
			if (o->price > t->bid_price) {
				t->bid_price = o->price;
				t->bid_shares = 0;
				t->bid_orders = 0;
			}
			if (o->price == t->bid_price) {
				t->bid_shares += o->shares;
				t->bid_orders++;
			}
		} else {
			if (t->ask_price == 0 || o->price < t->ask_price) {
				t->ask_price = o->price;
				t->ask_shares = 0;
				t->ask_orders = 0;
			}
			if (o->price == t->ask_price) {
				t->ask_shares += o->shares;
				t->ask_orders++;
			}
		}
	}
}

/* Every level of every side, from the touch out, against the model. */
static int
rm_depth_match(const struct rm *m, const struct hgw_book *b)
{
	uint16_t loc;
	int s;

	for (loc = 0; loc < RM_INST; loc++) {
		for (s = 0; s < 2; s++) {
			uint8_t side = s ? 'S' : 'B';
			int d = hgw_book_depth(b, loc, side);
			uint32_t k, nlev, prev = 0, i;

			rm_side_has_price(m, loc, side, 0, &nlev);
			if (d < 0 || (uint32_t)d != nlev)
				return 0;
			for (k = 0; k < nlev; k++) {
				struct lvl l = level(b, loc, side, k);
				uint64_t sh = 0;
				uint32_t no = 0;

				if (k > 0 && (s ? l.price <= prev :
					      l.price >= prev))
					return 0;
				prev = l.price;
				for (i = 0; i < m->n; i++) {
					const struct rm_order *o = &m->o[i];

					if (o->locate == loc &&
					    o->side == side &&
					    o->price == l.price) {
						sh += o->shares;
						no++;
					}
				}
				if (sh != l.shares || no != l.orders)
					return 0;
			}
		}
	}
	return 1;
}

static uint64_t
rm_pick_ref(const struct rm *m, uint32_t *idx)
{
	/* One message in eight names an unknown order. */
	if (m->n == 0 || rnd_below(8) == 0) {
		*idx = UINT32_MAX;
		return (1ull << 62) | rnd();
	}
	*idx = rnd_below(m->n);
	return m->o[*idx].ref;
}

/* Message locate: the order's own, except sometimes another one. */
static uint16_t
rm_msg_locate(struct rm *m, uint32_t idx)
{
	uint16_t loc;

	if (idx == UINT32_MAX)
		return (uint16_t)(1 + rnd_below(RM_INST - 1));
	loc = m->o[idx].locate;
	if (rnd_below(50) == 0) {
		loc = (uint16_t)(loc % (RM_INST - 1) + 1);
		m->st.errors[HGW_BOOK_ERR_LOCATE_MISMATCH]++;
	}
	return loc;
}

static uint32_t
rm_rand_price(void)
{
	uint32_t r = rnd_below(100);

	if (r == 0)
		return 0;
	if (r == 1)
		return HGW_ITCH_PRICE_MAX + 1 + rnd_below(1000);
	/* Mostly near the middle of the table, so near the touch. */
	if (r < 70)
		return rm_prices[RM_NPRICE / 2 - 6 + rnd_below(12)];
	return rm_prices[rnd_below(RM_NPRICE)];
}

/* The book's reduce rule, on the model. */
static uint16_t
rm_reduce(struct rm *m, uint32_t idx, uint32_t n)
{
	uint16_t loc = m->o[idx].locate;

	if (n > m->o[idx].shares)
		m->st.errors[HGW_BOOK_ERR_OVERSIZE]++;
	if (n >= m->o[idx].shares)
		rm_remove(m, idx);
	else
		m->o[idx].shares -= n;
	m->st.applied++;
	return loc;
}

static uint32_t
rm_reduce_size(const struct rm *m, uint32_t idx)
{
	uint32_t have = idx == UINT32_MAX ? 100 : m->o[idx].shares;

	if (rnd_below(20) == 0)
		return have + 1 + rnd_below(100);   /* oversize */
	if (rnd_below(4) == 0)
		return have;                         /* exactly all */
	return have > 1 ? 1 + rnd_below(have - 1) : 1;
}

static void
test_random(void)
{
	struct hgw_book *b = mkbook(RM_INST, RM_MAX_ORDERS, RM_MAX_LEVELS);
	struct rm *m = calloc(1, sizeof(*m));
	uint64_t next_ref = 1;
	uint32_t i;
	int op, bad = 0, e;

	HGW_CHECK(b != NULL && m != NULL);
	if (b == NULL || m == NULL) {
		free(b);
		free(m);
		return;
	}
	rm_prices[0] = 1;
	rm_prices[RM_NPRICE - 1] = HGW_ITCH_PRICE_MAX;
	for (i = 1; i < RM_NPRICE - 1; i++)
		rm_prices[i] = 1000000 + i * 100;

	for (op = 0; op < RM_OPS && bad < 5; op++) {
		uint32_t r = rnd_below(100), idx, shares, price;
		uint16_t loc, got, want = 0;
		uint64_t ref, nref;
		uint8_t side;

		if (r < 45) {
			/* Add (A or F), sometimes a bad one. */
			loc = (uint16_t)(1 + rnd_below(RM_INST - 1));
			if (rnd_below(100) == 0)
				loc = (uint16_t)(RM_INST + rnd_below(1000));
			side = rnd_below(2) ? 'B' : 'S';
			if (rnd_below(100) == 0)
				side = (uint8_t)rnd();
			shares = 1 + rnd_below(1000);
			price = rm_rand_price();
			if (m->n > 0 && rnd_below(50) == 0)
				ref = m->o[rnd_below(m->n)].ref;
			else
				ref = next_ref += 1 + rnd_below(3);
			got = msg_add(b, rnd_below(2) ? 'A' : 'F', loc, ref,
				      side, shares, price);
			if (loc >= RM_INST) {
				m->st.errors[HGW_BOOK_ERR_LOCATE_RANGE]++;
			} else if (rm_insert(m, loc, ref, side, shares,
					     price) == 0) {
				m->st.adds++;
				m->st.applied++;
				want = loc;
			}
		} else if (r < 80) {
			ref = rm_pick_ref(m, &idx);
			loc = rm_msg_locate(m, idx);
			got = msg_delete(b, loc, ref);
			if (idx == UINT32_MAX) {
				m->st.errors[HGW_BOOK_ERR_UNKNOWN_REF]++;
			} else {
				want = m->o[idx].locate;
				rm_remove(m, idx);
				m->st.deletes++;
				m->st.applied++;
			}
		} else if (r < 92) {
			/* E, C or X. */
			uint32_t kind = rnd_below(3);
			uint32_t px = rm_prices[rnd_below(RM_NPRICE)];
			uint8_t printable = rnd_below(2) ? 'Y' : 'N';

			ref = rm_pick_ref(m, &idx);
			loc = rm_msg_locate(m, idx);
			shares = rm_reduce_size(m, idx);
			if (kind == 0)
				got = msg_exec(b, loc, ref, shares);
			else if (kind == 1)
				got = msg_exec_px(b, loc, ref, shares,
						  printable, px);
			else
				got = msg_cancel(b, loc, ref, shares);
			if (kind == 1 && printable == 'Y')
				m->last_trade[idx == UINT32_MAX ? loc :
					      m->o[idx].locate] = px;
			if (idx == UINT32_MAX) {
				m->st.errors[HGW_BOOK_ERR_UNKNOWN_REF]++;
			} else {
				want = rm_reduce(m, idx, shares);
				if (kind == 2)
					m->st.cancels++;
				else
					m->st.executes++;
			}
		} else if (r < 98) {
			ref = rm_pick_ref(m, &idx);
			loc = rm_msg_locate(m, idx);
			shares = 1 + rnd_below(1000);
			price = rm_rand_price();
			nref = rnd_below(30) == 0 && m->n > 0 ?
				m->o[rnd_below(m->n)].ref :
				(next_ref += 1 + rnd_below(3));
			got = msg_replace(b, loc, ref, nref, shares, price);
			if (idx == UINT32_MAX) {
				m->st.errors[HGW_BOOK_ERR_UNKNOWN_REF]++;
			} else {
				want = m->o[idx].locate;
				side = m->o[idx].side;
				rm_remove(m, idx);
				(void)rm_insert(m, want, nref, side, shares,
						price);
				m->st.replaces++;
				m->st.applied++;
			}
		} else {
			/* P or Q: no book change. */
			loc = (uint16_t)(1 + rnd_below(RM_INST - 1));
			price = rm_prices[rnd_below(RM_NPRICE)];
			if (rnd_below(2))
				got = msg_trade(b, loc, 0, 'B', 100, price);
			else
				got = msg_cross(b, loc, 100, price);
			m->last_trade[loc] = price;
			m->st.trades++;
		}

		if (got != want) {
			printf("# op %d: returned %u, model %u\n", op, got,
			       want);
			bad++;
		}
		for (loc = 0; loc < RM_INST; loc++) {
			struct hgw_book_top bt, mt;

			hgw_book_top(b, loc, &bt);
			rm_top(m, loc, &mt);
			if ((bt.bid_price != mt.bid_price ||
			     bt.bid_shares != mt.bid_shares ||
			     bt.bid_orders != mt.bid_orders ||
			     bt.ask_price != mt.ask_price ||
			     bt.ask_shares != mt.ask_shares ||
			     bt.ask_orders != mt.ask_orders)) {
				printf("# op %d locate %u: book %u/%" PRIu64
				       "/%u x %u/%" PRIu64 "/%u, model %u/%"
				       PRIu64 "/%u x %u/%" PRIu64 "/%u\n",
				       op, loc, bt.bid_price, bt.bid_shares,
				       bt.bid_orders, bt.ask_price,
				       bt.ask_shares, bt.ask_orders,
				       mt.bid_price, mt.bid_shares,
				       mt.bid_orders, mt.ask_price,
				       mt.ask_shares, mt.ask_orders);
				bad++;
			}
			if (hgw_book_last_trade(b, loc) != m->last_trade[loc]) {
				printf("# op %d locate %u: last trade %u, "
				       "model %u\n", op, loc,
				       hgw_book_last_trade(b, loc),
				       m->last_trade[loc]);
				bad++;
			}
		}
		if (op % 1000 == 999) {
			if (!book_ok(b) || !rm_depth_match(m, b)) {
				printf("# op %d: check/depth failed\n", op);
				bad++;
			}
			for (i = 0; i < m->n; i++) {
				uint32_t s, p;
				uint16_t l;
				uint8_t sd;

				if (hgw_book_order(b, m->o[i].ref, &l, &sd, &s,
						   &p) != 0 ||
				    s != m->o[i].shares ||
				    p != m->o[i].price ||
				    l != m->o[i].locate ||
				    sd != m->o[i].side) {
					printf("# op %d: order %" PRIu64
					       " differs\n", op, m->o[i].ref);
					bad++;
					break;
				}
			}
		}
	}
	HGW_CHECK_EQ(bad, 0);
	HGW_CHECK(book_ok(b));
	HGW_CHECK_EQ(hgw_book_stats(b)->applied, m->st.applied);
	HGW_CHECK_EQ(hgw_book_stats(b)->adds, m->st.adds);
	HGW_CHECK_EQ(hgw_book_stats(b)->executes, m->st.executes);
	HGW_CHECK_EQ(hgw_book_stats(b)->cancels, m->st.cancels);
	HGW_CHECK_EQ(hgw_book_stats(b)->deletes, m->st.deletes);
	HGW_CHECK_EQ(hgw_book_stats(b)->replaces, m->st.replaces);
	HGW_CHECK_EQ(hgw_book_stats(b)->trades, m->st.trades);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, m->st.live_orders);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders_hwm,
		     m->st.live_orders_hwm);
	for (e = 0; e < HGW_BOOK_ERR_MAX; e++) {
		HGW_CHECK_EQ(hgw_book_stats(b)->errors[e], m->st.errors[e]);
		/* The run exercises every error path. */
		HGW_CHECK(m->st.errors[e] > 0);
	}
	printf("# random: %" PRIu64 " applied, %" PRIu64 " live, hwm %"
	       PRIu64 ", level_full %" PRIu64 ", order_full %" PRIu64 "\n",
	       m->st.applied, m->st.live_orders, m->st.live_orders_hwm,
	       m->st.errors[HGW_BOOK_ERR_LEVEL_FULL],
	       m->st.errors[HGW_BOOK_ERR_ORDER_FULL]);

	/* Reset empties everything and the book is usable again. */
	hgw_book_reset(b);
	HGW_CHECK(book_ok(b));
	HGW_CHECK_EQ(hgw_book_stats(b)->applied, 0);
	HGW_CHECK_EQ(hgw_book_stats(b)->live_orders, 0);
	HGW_CHECK_EQ(stat_errors(b), 0);
	HGW_CHECK_EQ(hgw_book_depth(b, 1, 'B') + hgw_book_depth(b, 1, 'S'), 0);
	HGW_CHECK_EQ(hgw_book_last_trade(b, 1), 0);
	if (m->n > 0)
		HGW_CHECK_EQ(hgw_book_order(b, m->o[0].ref, NULL, NULL, NULL,
					    NULL), -ENOENT);
	HGW_CHECK_EQ(add(b, 1, 1, 'B', 5, 1000100), 1);
	HGW_CHECK(book_ok(b));
	free(b);
	free(m);
}

/* The cursor, in batches of any size with stops anywhere, must come
 * back at every message that changed a book and at every stop, each time
 * with the book exactly as after that message: the same counters as a
 * book fed one message at a time up to it, the same top of the
 * instrument it changed; the messages it went past changed nothing. */
static void
test_cursor_replay(const uint8_t *const *ptrs, const uint16_t *want,
		   uint32_t want_changed)
{
	struct hgw_book *cur = mkbook(RM_INST, RM_MAX_ORDERS, RM_MAX_LEVELS);
	struct hgw_book *ref = mkbook(RM_INST, RM_MAX_ORDERS, RM_MAX_LEVELS);
	struct hgw_book_cursor c;
	uint32_t i = 0, ri = 0, changes = 0, bad = 0, looks = 0, stops = 0;
	/* every other batch read from records of a message pointer and
	 * more (the worker's batch), not from an array of pointers */
	struct crec { uint64_t seq; const uint8_t *msg; uint16_t s; } *rr =
		calloc(rec.n, sizeof(*rr));

	HGW_CHECK(cur != NULL && ref != NULL && rr != NULL);
	if (cur == NULL || ref == NULL || rr == NULL)
		goto out;
	for (uint32_t k = 0; k < rec.n; k++)
		rr[k] = (struct crec){ .seq = ~(uint64_t)k, .msg = ptrs[k] };
	while (i < rec.n) {
		uint32_t batch = 1 + rnd_below(300);
		const uint8_t *const *msgs = ptrs + i;
		size_t stride = sizeof(ptrs[0]);

		if (rnd_below(2) != 0) {
			msgs = &rr[i].msg;
			stride = sizeof(rr[0]);
		}
		if (batch > rec.n - i)
			batch = rec.n - i;
		hgw_book_cursor_start(cur, msgs, stride, batch, &c);
		while (c.next < batch) {
			uint32_t from = c.next, stop = batch, at, k;
			uint16_t loc;

			if (rnd_below(3) != 0) {
				stop = from + 1 + rnd_below(6);
				stop = stop < batch ? stop : batch;
			}
			c.stop = stop;
			loc = hgw_book_apply_until(cur, msgs, batch, &c);
			if (c.next <= from || c.next > stop) {
				bad++;
				break;
			}
			at = i + c.next - 1;
			for (k = i + from; k < at; k++)
				bad += want[k] != 0;
			if (loc != want[at] || (loc == 0 && c.next != stop)) {
				if (bad++ < 3)
					printf("# cursor message %u type %c: "
					       "returned %u (next %u stop %u), "
					       "one by one %u\n", at, ptrs[at][0],
					       loc, c.next, stop, want[at]);
			}
			stops += loc == 0;
			while (ri <= at)
				(void)hgw_book_apply(ref, ptrs[ri++]);
			bad += memcmp(hgw_book_stats(ref), hgw_book_stats(cur),
				      sizeof(struct hgw_book_stats)) != 0;
			if (loc != 0) {
				struct hgw_book_top t1, t2;

				hgw_book_top(ref, loc, &t1);
				hgw_book_top(cur, loc, &t2);
				bad += memcmp(&t1, &t2, sizeof(t1)) != 0;
			}
			looks++;
		}
		changes += c.changes;
		i += batch;
	}
	HGW_CHECK_EQ(bad, 0);
	HGW_CHECK_EQ(changes, want_changed);
	HGW_CHECK(looks > want_changed && stops > 1000);
	HGW_CHECK(book_ok(cur));
	/* at the stop already, or an empty batch: nothing applied */
	hgw_book_cursor_start(cur, ptrs, sizeof(ptrs[0]), 0, &c);
	HGW_CHECK_EQ(hgw_book_apply_until(cur, ptrs, 0, &c), 0);
	HGW_CHECK_EQ(c.next, 0);
	hgw_book_cursor_start(cur, ptrs, sizeof(ptrs[0]), 5, &c);
	c.stop = 0;
	HGW_CHECK_EQ(hgw_book_apply_until(cur, ptrs, 5, &c), 0);
	HGW_CHECK(c.next == 0 && c.changes == 0);
	HGW_CHECK(memcmp(hgw_book_stats(ref), hgw_book_stats(cur),
			 sizeof(struct hgw_book_stats)) == 0);
out:
	free(rr);
	free(cur);
	free(ref);
}

/* hgw_book_apply_bulk, in chunks of any size, must do exactly what
 * hgw_book_apply does one message at a time: same return values, same
 * counters, same levels. Replays test_random's recorded stream (which
 * includes every kind of refused message). */
static void
test_bulk_replay(void)
{
	struct hgw_book *each = mkbook(RM_INST, RM_MAX_ORDERS, RM_MAX_LEVELS);
	struct hgw_book *bulk = mkbook(RM_INST, RM_MAX_ORDERS, RM_MAX_LEVELS);
	const uint8_t **ptrs = calloc(rec.n + 1, sizeof(*ptrs));
	uint16_t *changed = calloc(rec.n + 1, sizeof(*changed));
	uint16_t *want = calloc(rec.n + 1, sizeof(*want));
	uint32_t i, nchanged = 0, want_changed = 0, mismatches = 0;

	HGW_CHECK(rec.n > 100000);
	HGW_CHECK(each != NULL && bulk != NULL && ptrs != NULL &&
		  changed != NULL && want != NULL);
	if (each == NULL || bulk == NULL || ptrs == NULL || changed == NULL ||
	    want == NULL)
		goto out;
	/* The log's own return values came from test_random's books (its
	 * last messages go to a second book); the reference here is a fresh
	 * one-by-one replay of the same bytes. */
	for (i = 0; i < rec.n; i++) {
		ptrs[i] = rec.bytes + rec.off[i];
		want[i] = hgw_book_apply(each, ptrs[i]);
		want_changed += want[i] != 0;
		mismatches += want[i] != rec.ret[i];
	}
	HGW_CHECK(mismatches < 10);
	for (i = 0; i < rec.n;) {
		uint32_t chunk = 1 + rnd_below(300);

		if (chunk > rec.n - i)
			chunk = rec.n - i;
		nchanged += hgw_book_apply_bulk(bulk, ptrs + i, chunk, changed + i);
		i += chunk;
	}
	HGW_CHECK_EQ(nchanged, want_changed);
	for (i = 0, mismatches = 0; i < rec.n; i++) {
		if (changed[i] != want[i] && mismatches++ < 3)
			printf("# bulk message %u type %c: returned %u, one by one %u\n",
			       i, ptrs[i][0], changed[i], want[i]);
	}
	HGW_CHECK_EQ(mismatches, 0);
	HGW_CHECK(memcmp(hgw_book_stats(each), hgw_book_stats(bulk),
			 sizeof(struct hgw_book_stats)) == 0);
	for (uint16_t loc = 0; loc < RM_INST; loc++) {
		for (int sd = 0; sd < 2; sd++) {
			uint8_t side = sd ? 'S' : 'B';
			int d = hgw_book_depth(each, loc, side);

			HGW_CHECK_EQ(d, hgw_book_depth(bulk, loc, side));
			for (int k = 0; k < d; k++) {
				uint32_t p1, p2, o1, o2;
				uint64_t s1, s2;

				hgw_book_level(each, loc, side, (uint32_t)k, &p1, &s1, &o1);
				hgw_book_level(bulk, loc, side, (uint32_t)k, &p2, &s2, &o2);
				HGW_CHECK(p1 == p2 && s1 == s2 && o1 == o2);
			}
		}
	}
	HGW_CHECK(book_ok(bulk));
	test_cursor_replay(ptrs, want, want_changed);
	/* an empty batch is a no-op */
	HGW_CHECK_EQ(hgw_book_apply_bulk(bulk, ptrs, 0, NULL), 0);
out:
	free(each);
	free(bulk);
	free(ptrs);
	free(changed);
	free(want);
}

int
main(void)
{
	rec.bytes = malloc((size_t)REC_MAX_MSGS * 64);
	rec.off = malloc(REC_MAX_MSGS * sizeof(*rec.off));
	rec.ret = malloc(REC_MAX_MSGS * sizeof(*rec.ret));
	if (rec.bytes == NULL || rec.off == NULL || rec.ret == NULL)
		return 1;
	HGW_TEST(test_memsize_init);
	HGW_TEST(test_add_bbo);
	HGW_TEST(test_aggregate);
	HGW_TEST(test_execute);
	HGW_TEST(test_execute_px);
	HGW_TEST(test_cancel);
	HGW_TEST(test_delete);
	HGW_TEST(test_replace);
	HGW_TEST(test_trade_cross_directory);
	HGW_TEST(test_ignored_types);
	HGW_TEST(test_unknown_refs);
	HGW_TEST(test_add_errors);
	HGW_TEST(test_oversize);
	HGW_TEST(test_locate_mismatch);
	HGW_TEST(test_order_full);
	HGW_TEST(test_level_full);
	HGW_TEST(test_deep_levels);
	HGW_TEST(test_hash_collisions);
	HGW_TEST(test_window_overflow);
	HGW_TEST(test_check_detects);
	HGW_TEST(test_check_large);
	rec.on = 1;
	HGW_TEST(test_random);
	rec.on = 0;
	HGW_TEST(test_bulk_replay);
	return hgw_test_done();
}
