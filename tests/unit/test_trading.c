/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: strategy (key -> entry -> decision) and pre-trade risk,
 * every outcome and every rule made to fire.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hgw_book.h"
#include "hgw_itch.h"
#include "hgw_prng.h"
#include "hgw_risk.h"
#include "hgw_strategy.h"
#include "hgw_table.h"
#include "hgw_test.h"

#define TICK 100

static struct hgw_book *book;
static struct hgw_table table;
static uint64_t next_ref = 1;

static void
book_new(void)
{
	static const struct hgw_book_conf bc = { 64, 4096, 32 };

	free(book);
	book = hgw_book_init(aligned_alloc(HGW_BOOK_ALIGN, hgw_book_memsize(&bc)), &bc);
	next_ref = 1;
}

static void
add(uint16_t locate, uint8_t side, uint32_t shares, uint32_t price)
{
	uint8_t m[36];

	memset(m, 0, sizeof(m));
	m[0] = 'A';
	hgw_put_be16(m + 1, locate);
	hgw_put_be64(m + 11, next_ref++);
	m[19] = side;
	hgw_put_be32(m + 20, shares);
	memcpy(m + 24, "SYM     ", 8);
	hgw_put_be32(m + 32, price);
	HGW_CHECK(hgw_book_apply(book, m) == locate);
}

static void
name(uint16_t locate, const char *sym)
{
	uint8_t m[39];

	memset(m, ' ', sizeof(m));
	m[0] = 'R';
	hgw_put_be16(m + 1, locate);
	memcpy(m + 11, sym, strlen(sym));
	hgw_book_apply(book, m);
}

static void
trade(uint16_t locate, uint32_t price)
{
	uint8_t m[44];

	memset(m, 0, sizeof(m));
	m[0] = 'P';
	hgw_put_be16(m + 1, locate);
	m[19] = 'B';
	hgw_put_be32(m + 32, price);
	hgw_book_apply(book, m);
}

/* instruments 8, spreads 4, imbalances 4: 128 entries, all "no action". */
static void
table_new(void)
{
	table.dims = (struct hgw_table_dims){ 8, 4, 4, TICK };
	table.nentries = hgw_table_nentries(&table.dims);
	free(table.entries);
	table.entries = aligned_alloc(64, table.nentries * 64);
	memset(table.entries, 0, table.nentries * 64);
}

static void
entry(uint64_t key, uint8_t action, uint8_t mode, int32_t price, uint32_t qty)
{
	struct hgw_table_entry e;

	memset(&e, 0, sizeof(e));
	e.action = action;
	e.price_mode = mode;
	e.tif = '0';
	e.display = 'Y';
	e.price = price;
	e.quantity = qty;
	hgw_table_write(&table, key, &e);
}

static uint64_t
key_of(uint16_t l, uint32_t s, uint32_t i)
{
	return ((uint64_t)l * 4 + s) * 4 + i;
}

static void
test_strategy_outcomes(void)
{
	struct hgw_strategy_stats st;
	struct hgw_decision d;

	memset(&st, 0, sizeof(st));
	book_new();
	table_new();
	/* bid only: no quote */
	add(3, 'B', 100, 100000);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 0);
	HGW_CHECK_EQ(st.outcomes[HGW_STRATEGY_NO_QUOTE], 1);
	/* ask 2 ticks above, 300 vs 100 shares: s = 1, i = 4*100/400 = 1 */
	add(3, 'S', 300, 100200);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 0);
	HGW_CHECK_EQ(st.outcomes[HGW_STRATEGY_NO_ACTION], 1);
	/* buy at the bid + 1 tick */
	entry(key_of(3, 1, 1), 'B', HGW_TABLE_PRICE_TOUCH, TICK, 500);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 1);
	HGW_CHECK_EQ(d.side, 'B');
	HGW_CHECK_EQ(d.price, 100100);
	HGW_CHECK_EQ(d.quantity, 500);
	HGW_CHECK_EQ(d.key, key_of(3, 1, 1));
	HGW_CHECK_EQ(d.tif, '0');
	/* sell at the ask - 1 tick */
	entry(key_of(3, 1, 1), 'S', HGW_TABLE_PRICE_TOUCH, TICK, 200);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 1);
	HGW_CHECK_EQ(d.price, 100100);
	HGW_CHECK_EQ(d.side, 'S');
	/* absolute */
	entry(key_of(3, 1, 1), 'S', HGW_TABLE_PRICE_ABSOLUTE, 123400, 200);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 1);
	HGW_CHECK_EQ(d.price, 123400);
	/* bad entries: price below 1, above the maximum, qty 0, bad mode */
	entry(key_of(3, 1, 1), 'B', HGW_TABLE_PRICE_TOUCH, -100000, 100);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 0);
	entry(key_of(3, 1, 1), 'B', HGW_TABLE_PRICE_ABSOLUTE, 0, 100);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 0);
	entry(key_of(3, 1, 1), 'B', HGW_TABLE_PRICE_TOUCH, 2000000000, 100);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 0);
	entry(key_of(3, 1, 1), 'B', HGW_TABLE_PRICE_TOUCH, 0, 0);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 0);
	entry(key_of(3, 1, 1), 'B', 2, 0, 100);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 0);
	HGW_CHECK_EQ(st.outcomes[HGW_STRATEGY_BAD_ENTRY], 5);
	/* an action byte that is neither B nor S does nothing */
	entry(key_of(3, 1, 1), 'X', HGW_TABLE_PRICE_TOUCH, 0, 100);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 3, &d), 0);
	HGW_CHECK_EQ(st.outcomes[HGW_STRATEGY_NO_ACTION], 2);
	/* crossed and locked */
	add(4, 'B', 100, 100000);
	add(4, 'S', 100, 100000);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 4, &d), 0);
	HGW_CHECK_EQ(st.outcomes[HGW_STRATEGY_CROSSED], 1);
	/* beyond the table (locate 9 >= 8 instruments) */
	add(9, 'B', 100, 100000);
	add(9, 'S', 100, 100100);
	HGW_CHECK_EQ(hgw_strategy_eval(&st, &table, book, 9, &d), 0);
	HGW_CHECK_EQ(st.outcomes[HGW_STRATEGY_OUT_OF_TABLE], 1);
	HGW_CHECK_EQ(st.triggers, 13);
	HGW_CHECK_EQ(st.outcomes[HGW_STRATEGY_DECISION], 3);
	uint64_t sum = 0;

	for (int o = 0; o < HGW_STRATEGY_MAX; o++)
		sum += st.outcomes[o];
	HGW_CHECK_EQ(sum, st.triggers);
}

static void
test_key_buckets(void)
{
	struct hgw_table_dims d = { 8, 4, 4, TICK };
	uint64_t k;

	/* sub-tick spread counts as one tick; wide spreads clamp to S-1 */
	HGW_CHECK_EQ(hgw_table_key(&d, 1, 1000, 1, 1050, 1, &k), HGW_TABLE_KEY_OK);
	HGW_CHECK_EQ(k, key_of(1, 0, 2));
	HGW_CHECK_EQ(hgw_table_key(&d, 1, 1000, 1, 1000 + 100 * TICK, 3, &k),
		     HGW_TABLE_KEY_OK);
	HGW_CHECK_EQ(k, key_of(1, 3, 1));
	/* all size on the bid clamps to I-1; tiny bid to 0 */
	HGW_CHECK_EQ(hgw_table_key(&d, 7, 1000, 1000000, 1100, 1, &k), 0);
	HGW_CHECK_EQ(k, key_of(7, 0, 3));
	HGW_CHECK_EQ(hgw_table_key(&d, 7, 1000, 1, 1300, 1000000, &k), 0);
	HGW_CHECK_EQ(k, key_of(7, 2, 0));
	HGW_CHECK_EQ(hgw_table_key(&d, 8, 1000, 1, 1300, 1, &k),
		     HGW_TABLE_KEY_OUT_OF_TABLE);
}

static struct hgw_risk *
risk_new(struct hgw_risk_conf *c)
{
	void *mem = aligned_alloc(HGW_CACHE_LINE_SIZE, hgw_risk_memsize(c));

	return hgw_risk_init(mem, c);
}

static struct hgw_risk_conf
risk_conf(void)
{
	struct hgw_risk_conf c;

	memset(&c, 0, sizeof(c));
	c.instruments = 64;
	c.max_quantity = 1000;
	c.max_notional = 100000;           /* $100k */
	c.collar_bps = 100;                /* 1% */
	c.max_position = 1500;
	c.window_ns = 1000000000;          /* 1 s */
	c.max_orders_instrument = 3;
	c.max_orders_total = 5;
	return c;
}

static struct hgw_decision
decision(uint16_t l, uint8_t side, uint32_t price, uint32_t qty)
{
	struct hgw_decision d;

	memset(&d, 0, sizeof(d));
	d.locate = l;
	d.side = side;
	d.price = price;
	d.quantity = qty;
	hgw_book_top(book, l, &d.top);
	return d;
}

#define REJ(r, code) (hgw_risk_stats(r)->rejects[HGW_RISK_##code])

static void
test_risk_rules(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *r;
	struct hgw_decision d;

	book_new();
	name(1, "ALPHA");
	name(2, "BETA");
	add(1, 'B', 100, 500000);           /* $50.00 */
	add(1, 'S', 100, 500200);           /* mid $50.01 */
	add(2, 'B', 100, 500000);
	add(2, 'S', 100, 500200);
	HGW_CHECK(hgw_risk_parse_disable(&c, " BETA,GAMMA ") == 0);
	HGW_CHECK_EQ(c.ndisabled, 2);
	r = risk_new(&c);
	HGW_CHECK(r != NULL);
	if (r == NULL)
		return;

	d = decision(1, 'B', 500100, 100);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 100);
	/* an order recalled before it left comes back out of the position */
	HGW_CHECK_EQ(hgw_risk_unsend(r, 1, 100), 0);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 0);
	HGW_CHECK_EQ(hgw_risk_unsend(r, 1, -40), 0);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 40);
	HGW_CHECK(hgw_risk_unsend(r, 60000, 1) < 0);
	HGW_CHECK_EQ(hgw_risk_unsend(r, 1, -60), 0);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 100);	/* as before */

	hgw_risk_set_kill(r, 1);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000), HGW_RISK_KILL_SWITCH);
	hgw_risk_set_kill(r, 0);

	d = decision(2, 'B', 500100, 100);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000), HGW_RISK_DISABLED);

	d = decision(1, 'B', 500100, 1001);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000), HGW_RISK_MAX_QUANTITY);

	/* $101 x 1000 = $101,000 > $100k (checked before the collar) */
	d = decision(1, 'B', 1010000, 1000);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000), HGW_RISK_MAX_NOTIONAL);

	/* collar 1% of the mid 500100 = 5001: 505102 is beyond */
	d = decision(1, 'S', 505102, 10);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000), HGW_RISK_PRICE_COLLAR);
	d = decision(1, 'S', 505101, 10);    /* exactly 1%: allowed */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000), HGW_RISK_PASS);
	/* with a last trade the reference moves to it */
	trade(1, 600000);
	d = decision(1, 'S', 505100, 10);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 2000), HGW_RISK_PRICE_COLLAR);
	d = decision(1, 'S', 600000, 10);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 2000), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 80);

	HGW_CHECK_EQ(REJ(r, KILL_SWITCH), 1);
	HGW_CHECK_EQ(REJ(r, DISABLED), 1);
	HGW_CHECK_EQ(REJ(r, MAX_QUANTITY), 1);
	HGW_CHECK_EQ(REJ(r, MAX_NOTIONAL), 1);
	HGW_CHECK_EQ(REJ(r, PRICE_COLLAR), 2);
	HGW_CHECK_EQ(hgw_risk_stats(r)->passed, 3);
	free(r);
}

static void
test_risk_position(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *r;
	struct hgw_decision d;

	c.max_orders_instrument = 100;
	c.max_orders_total = 100;
	book_new();
	add(1, 'B', 100, 500000);
	add(1, 'S', 100, 500200);
	r = risk_new(&c);
	d = decision(1, 'B', 500100, 1000);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1), HGW_RISK_PASS);
	d.quantity = 500;
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 2), HGW_RISK_PASS);  /* 1500 */
	d.quantity = 1;
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 3), HGW_RISK_POSITION_LIMIT);
	/* selling reduces it: 1500 - 1000 - 1000 = -500, then -1500 ok */
	d.side = 'S';
	d.quantity = 1000;
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 5), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), -500);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 6), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 7), HGW_RISK_POSITION_LIMIT);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), -1500);
	HGW_CHECK_EQ(REJ(r, POSITION_LIMIT), 2);
	free(r);
}

/* At most 3 per instrument and 5 in total in any (t - 1 s, t]. */
static void
test_risk_throttle(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *r;
	struct hgw_decision d1, d2;
	const uint64_t s = 1000000000;

	c.max_position = 1000000;
	book_new();
	add(1, 'B', 100, 500000);
	add(1, 'S', 100, 500200);
	add(2, 'B', 100, 500000);
	add(2, 'S', 100, 500200);
	r = risk_new(&c);
	d1 = decision(1, 'B', 500100, 1);
	d2 = decision(2, 'B', 500100, 1);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s + 1), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s + 2), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s + 3),
		     HGW_RISK_THROTTLE_INSTRUMENT);
	/* the first leaves the window at exactly 11 s: (10 s, 11 s] */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 11 * s - 1),
		     HGW_RISK_THROTTLE_INSTRUMENT);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 11 * s), HGW_RISK_PASS);
	/* total accepted so far: 10s, 10s+1, 10s+2, 11s; two more at 11 s:
	 * the 10 s one is out of (10 s, 11 s], so 5 fit, not 6 */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s),
		     HGW_RISK_THROTTLE_TOTAL);
	/* a rejection is not counted: at 11s+1 the 10s+1 order has left */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s + 1), HGW_RISK_PASS);
	/* instrument 2 now has 3 in the window */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s + 1),
		     HGW_RISK_THROTTLE_INSTRUMENT);
	HGW_CHECK_EQ(REJ(r, THROTTLE_INSTRUMENT), 3);
	HGW_CHECK_EQ(REJ(r, THROTTLE_TOTAL), 1);
	/* early in the day (t < window) works too */
	free(r);
	r = risk_new(&c);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 5), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 6), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 7), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 8),
		     HGW_RISK_THROTTLE_INSTRUMENT);
	free(r);
}

static void
test_risk_conf(void)
{
	struct hgw_risk_conf c = risk_conf();

	HGW_CHECK(hgw_risk_parse_disable(&c, "") == 0);
	HGW_CHECK_EQ(c.ndisabled, 0);
	HGW_CHECK(hgw_risk_parse_disable(&c, "TOOLONGNAME") == -1);
	c.max_orders_total = 0;
	HGW_CHECK_EQ(hgw_risk_memsize(&c), 0);
	c.max_orders_total = HGW_RISK_MAX_WINDOW_ORDERS + 1;
	HGW_CHECK_EQ(hgw_risk_memsize(&c), 0);
	for (int i = 0; i < HGW_RISK_MAX; i++)
		HGW_CHECK(hgw_risk_reject_name((enum hgw_risk_reject)i) != NULL);
}

/* Kill switch: from the configuration, then set and cleared at run time. */
static void
test_risk_kill(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *r;
	struct hgw_decision d;

	book_new();
	add(1, 'B', 100, 500000);
	add(1, 'S', 100, 500200);
	c.kill = 1;
	r = risk_new(&c);
	d = decision(1, 'B', 500100, 1);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1), HGW_RISK_KILL_SWITCH);
	hgw_risk_set_kill(r, 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 2), HGW_RISK_PASS);
	hgw_risk_set_kill(r, 7);                 /* any nonzero is on */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 3), HGW_RISK_KILL_SWITCH);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4), HGW_RISK_KILL_SWITCH);
	hgw_risk_set_kill(r, 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 5), HGW_RISK_PASS);
	HGW_CHECK_EQ(REJ(r, KILL_SWITCH), 3);
	HGW_CHECK_EQ(hgw_risk_stats(r)->passed, 2);
	free(r);
}

/* Disabled list changed at run time, for instruments whose decision is
 * already cached. */
static void
test_risk_disabled(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *r;
	struct hgw_decision d1, d2;
	char sym[16];

	c.max_orders_instrument = 100;
	c.max_orders_total = 100;
	book_new();
	name(1, "ALPHA");
	name(2, "BETA");
	add(1, 'B', 100, 500000);
	add(1, 'S', 100, 500200);
	add(2, 'B', 100, 500000);
	add(2, 'S', 100, 500200);
	HGW_CHECK(hgw_risk_parse_disable(&c, "BETA") == 0);
	r = risk_new(&c);
	d1 = decision(1, 'B', 500100, 1);
	d2 = decision(2, 'B', 500100, 1);
	/* both names now cached: ALPHA enabled, BETA disabled */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 1), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 1), HGW_RISK_DISABLED);

	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "ALPHA", 1), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 2), HGW_RISK_DISABLED);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "BETA", 0), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 2), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 2), HGW_RISK_DISABLED);
	/* nothing to change: 0, and no effect */
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "ALPHA", 1), 0);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "BETA", 0), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 3), HGW_RISK_DISABLED);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 3), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "ALPHA", 0), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 4), HGW_RISK_PASS);
	/* the whole name, not a prefix; case counts */
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "ALPH", 1), 0);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "alpha", 1), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 5), HGW_RISK_PASS);
	/* an 8-character name fills the field with no padding */
	name(3, "ABCDEFGH");
	add(3, 'B', 100, 500000);
	add(3, 'S', 100, 500200);
	d1 = decision(3, 'B', 500100, 1);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 6), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "ABCDEFGH", 1), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 7), HGW_RISK_DISABLED);

	/* bad symbols */
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "", 1), -EINVAL);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "ABCDEFGHI", 1), -EINVAL);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "A B", 1), -EINVAL);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, " A", 0), -EINVAL);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "A\t", 1), -EINVAL);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, NULL, 1), -EINVAL);
	/* full: 4 in the list (ABCDEFGH ALPH alpha) + 61 more */
	int rc = 0, k;

	for (k = 0; k < HGW_RISK_MAX_DISABLED - 3; k++) {
		snprintf(sym, sizeof(sym), "S%d", k);
		rc = hgw_risk_set_disabled(r, sym, 1);
		if (rc != 0)
			break;
	}
	HGW_CHECK_EQ(rc, 0);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "ONEMORE", 1), -ENOSPC);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "S0", 1), 0);  /* present */
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "S0", 0), 0);
	HGW_CHECK_EQ(hgw_risk_set_disabled(r, "ONEMORE", 1), 0);
	/* still decided right after all that */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 8), HGW_RISK_DISABLED);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 8), HGW_RISK_PASS);
	free(r);
}

/* Each limit changed at run time, and the next check obeys it. */
static void
test_risk_limits(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *r;
	struct hgw_decision d;
	const uint64_t s = 1000000000;

	c.max_orders_instrument = 100;
	c.max_orders_total = 100;
	c.max_position = 1000000;
	book_new();
	add(1, 'B', 100, 500000);
	add(1, 'S', 100, 500200);            /* mid 500100 */
	add(2, 'B', 100, 500000);
	add(2, 'S', 100, 500200);
	r = risk_new(&c);

	/* max_quantity */
	d = decision(1, 'B', 500100, 51);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_QUANTITY, 50), 0);
	HGW_CHECK_EQ(hgw_risk_get_limit(r, HGW_RISK_LIMIT_MAX_QUANTITY), 50);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1), HGW_RISK_MAX_QUANTITY);
	d.quantity = 50;
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_QUANTITY, 1000),
		     0);
	/* max_notional: $50.01 x 100 = $5001 */
	d.quantity = 100;
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_NOTIONAL, 5000),
		     0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 2), HGW_RISK_MAX_NOTIONAL);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_NOTIONAL, 5001),
		     0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 2), HGW_RISK_PASS);
	/* collar_bps: 0 allows the reference price only */
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_COLLAR_BPS, 0), 0);
	d = decision(1, 'B', 500101, 1);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 3), HGW_RISK_PRICE_COLLAR);
	d.price = 500100;
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 3), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_COLLAR_BPS, 1000000),
		     0);
	d.price = 1000000;                    /* +100%: inside 10000% */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 3), HGW_RISK_PASS);
	/* max_position: instrument 1 is at 50 + 100 + 1 + 1 = 152 long */
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 152);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_POSITION, 152),
		     0);
	d = decision(1, 'B', 500100, 1);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4), HGW_RISK_POSITION_LIMIT);
	d.side = 'S';
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4), HGW_RISK_PASS);  /* 151 */
	/* 0: flat only; even a sale towards it is over while long */
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_POSITION, 0), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4), HGW_RISK_POSITION_LIMIT);
	d.side = 'B';
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4), HGW_RISK_POSITION_LIMIT);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_POSITION,
					1000000), 0);
	/* instrument 1 has 5 orders in (t - 1 s, t] at t = 4 (at 1, 2, 3,
	 * 3, 4): per instrument limit 5 throttles, 6 lets one more by */
	HGW_CHECK_EQ(hgw_risk_set_limit(r,
			HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 5), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4),
		     HGW_RISK_THROTTLE_INSTRUMENT);
	HGW_CHECK_EQ(hgw_risk_set_limit(r,
			HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 6), 0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 4),
		     HGW_RISK_THROTTLE_INSTRUMENT);
	/* window_ms 1: the 6th most recent, at 1 ns, is in (t - 1 ms, t]
	 * until t = 1 ms + 1 */
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_WINDOW_MS, 1), 0);
	HGW_CHECK_EQ(hgw_risk_get_limit(r, HGW_RISK_LIMIT_WINDOW_MS), 1);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000000),
		     HGW_RISK_THROTTLE_INSTRUMENT);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d, 1000001), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_WINDOW_MS, 1000), 0);
	HGW_CHECK_EQ(hgw_risk_set_limit(r,
			HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 100), 0);
	free(r);

	/* max_orders_total: capacity 5. Five orders in the window; lowered
	 * to 2 (below the 5 there) it throttles until the 2nd most recent
	 * leaves; raised back to 5 it still counts all five. */
	c = risk_conf();
	c.max_position = 1000000;
	c.max_orders_instrument = 100;
	c.max_orders_total = 5;
	r = risk_new(&c);
	struct hgw_decision d1 = decision(1, 'B', 500100, 1);
	struct hgw_decision d2 = decision(2, 'B', 500100, 1);

	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 10 * s + 1), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s + 2), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 10 * s + 3), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s + 4), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s + 5),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 2),
		     0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 10 * s + 5),
		     HGW_RISK_THROTTLE_TOTAL);
	/* back to 5 at once: the five are still in the window and counted */
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 5),
		     0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 10 * s + 6),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s - 1),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 2),
		     0);
	/* 2nd most recent is 10 s + 3: in the window until 11 s + 3 */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s + 2),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s + 3), HGW_RISK_PASS);
	/* now 10 s + 4 and 11 s + 3 are the last two */
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s + 3),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 11 * s + 4), HGW_RISK_PASS);
	/* back to 5 (the capacity): the last five are 10 s + 2, 10 s + 3,
	 * 10 s + 4, 11 s + 3, 11 s + 4; the three at 10 s have left
	 * (10 s + 4 at exactly 11 s + 4), so three more pass; then 11 s + 3
	 * holds the window full until 12 s + 3 */
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 5),
		     0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 11 * s + 4), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 11 * s + 4), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 11 * s + 4), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 11 * s + 4),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 12 * s + 2),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 12 * s + 3), HGW_RISK_PASS);
	HGW_CHECK_EQ(REJ(r, THROTTLE_TOTAL), 8);
	free(r);

	/* the same with the ring explicitly larger than the start-up limit */
	c.max_orders_total = 2;
	c.cap_orders_total = 5;
	r = risk_new(&c);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 10 * s + 1), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 10 * s + 2),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 5),
		     0);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 10 * s + 2), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d2, 10 * s + 3), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s + 4), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(r, book, &d1, 10 * s + 5),
		     HGW_RISK_THROTTLE_TOTAL);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 6),
		     -ERANGE);
	HGW_CHECK_EQ(hgw_risk_get_limit(r, HGW_RISK_LIMIT_MAX_ORDERS_TOTAL), 5);
	free(r);
}

static void
test_risk_limit_valid(void)
{
	struct hgw_risk_conf c = risk_conf();     /* orders 3 / 5 */
	struct hgw_risk *r;

	for (int k = 0; k < HGW_RISK_LIMIT_MAX; k++) {
		const char *n = hgw_risk_limit_name((enum hgw_risk_limit)k);

		HGW_CHECK(n != NULL);
		HGW_CHECK_EQ(hgw_risk_limit_by_name(n), k);
	}
	HGW_CHECK_EQ(hgw_risk_limit_by_name("collar_bps"),
		     HGW_RISK_LIMIT_COLLAR_BPS);
	HGW_CHECK_EQ(hgw_risk_limit_by_name("window_ms"),
		     HGW_RISK_LIMIT_WINDOW_MS);
	HGW_CHECK_EQ(hgw_risk_limit_by_name("max_orders"), -1);
	HGW_CHECK_EQ(hgw_risk_limit_by_name("MAX_QUANTITY"), -1);
	HGW_CHECK_EQ(hgw_risk_limit_by_name(""), -1);
	HGW_CHECK_EQ(hgw_risk_limit_by_name(NULL), -1);
	HGW_CHECK(hgw_risk_limit_name(HGW_RISK_LIMIT_MAX) == NULL);

	static const struct {
		enum hgw_risk_limit k;
		uint64_t v;
		int rc;
	} cases[] = {
		{ HGW_RISK_LIMIT_MAX_QUANTITY, 0, -EINVAL },
		{ HGW_RISK_LIMIT_MAX_QUANTITY, 1, 0 },
		{ HGW_RISK_LIMIT_MAX_QUANTITY, UINT32_MAX, 0 },
		{ HGW_RISK_LIMIT_MAX_QUANTITY, 1ull << 32, -EINVAL },
		{ HGW_RISK_LIMIT_MAX_NOTIONAL, 0, -EINVAL },
		{ HGW_RISK_LIMIT_MAX_NOTIONAL, 1ull << 40, 0 },
		{ HGW_RISK_LIMIT_MAX_NOTIONAL, (1ull << 40) + 1, -EINVAL },
		{ HGW_RISK_LIMIT_COLLAR_BPS, 0, 0 },
		{ HGW_RISK_LIMIT_COLLAR_BPS, 1000000, 0 },
		{ HGW_RISK_LIMIT_COLLAR_BPS, 1000001, -EINVAL },
		{ HGW_RISK_LIMIT_MAX_POSITION, 0, 0 },
		{ HGW_RISK_LIMIT_MAX_POSITION, 1ull << 40, 0 },
		{ HGW_RISK_LIMIT_MAX_POSITION, (1ull << 40) + 1, -EINVAL },
		{ HGW_RISK_LIMIT_MAX_POSITION, UINT64_MAX, -EINVAL },
		{ HGW_RISK_LIMIT_WINDOW_MS, 0, -EINVAL },
		{ HGW_RISK_LIMIT_WINDOW_MS, 1, 0 },
		{ HGW_RISK_LIMIT_WINDOW_MS, 86400000, 0 },
		{ HGW_RISK_LIMIT_WINDOW_MS, 86400001, -EINVAL },
		{ HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 0, -EINVAL },
		{ HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 1, 0 },
		{ HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 3, 0 },
		{ HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 4, -ERANGE },
		{ HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 0, -EINVAL },
		{ HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 5, 0 },
		{ HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 6, -ERANGE },
		{ HGW_RISK_LIMIT_MAX_ORDERS_TOTAL, 1ull << 32, -ERANGE },
		{ HGW_RISK_LIMIT_MAX, 1, -EINVAL },
		{ (enum hgw_risk_limit)-1, 1, -EINVAL },
	};

	r = risk_new(&c);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t before = hgw_risk_get_limit(r, cases[i].k);
		int v = hgw_risk_limit_valid(&c, cases[i].k, cases[i].v);
		int s = hgw_risk_set_limit(r, cases[i].k, cases[i].v);
		uint64_t after = hgw_risk_get_limit(r, cases[i].k);

		if (v != cases[i].rc || s != cases[i].rc ||
		    (s == 0 ? after != cases[i].v : after != before)) {
			printf("# limit %d = %llu: valid %d set %d, value %llu "
			       "(was %llu), want %d\n", (int)cases[i].k,
			       (unsigned long long)cases[i].v, v, s,
			       (unsigned long long)after,
			       (unsigned long long)before, cases[i].rc);
			HGW_CHECK(0);
		}
	}
	HGW_CHECK_EQ(hgw_risk_get_limit(r, HGW_RISK_LIMIT_MAX), 0);
	HGW_CHECK_EQ(hgw_risk_limit_valid(NULL, HGW_RISK_LIMIT_COLLAR_BPS, 1),
		     -EINVAL);
	free(r);
	/* The capacity, when given, is the bound. */
	c.cap_orders_instrument = 10;
	HGW_CHECK_EQ(hgw_risk_limit_valid(&c,
			HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 10), 0);
	HGW_CHECK_EQ(hgw_risk_limit_valid(&c,
			HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT, 11), -ERANGE);
	/* and a start-up limit above it, or a capacity above the maximum, is
	 * an invalid configuration */
	c.max_orders_instrument = 11;
	HGW_CHECK_EQ(hgw_risk_memsize(&c), 0);
	c.max_orders_instrument = 3;
	c.cap_orders_instrument = HGW_RISK_MAX_WINDOW_ORDERS + 1;
	HGW_CHECK_EQ(hgw_risk_memsize(&c), 0);
	c.cap_orders_instrument = HGW_RISK_MAX_WINDOW_ORDERS;
	HGW_CHECK(hgw_risk_memsize(&c) > 64 * 4096 * 8);
}

/* With nothing changed at run time, a ring larger than the limit decides
 * exactly as one of the limit's size: the same random stream through both
 * (a mix of instruments, sides and bursts of equal feed times). */
static void
test_risk_capacity_same(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *a, *b;
	uint64_t t = 1000, x, xs = 88172645463325252ull;
	int diff = 0, throttled = 0;
	char why[128];

	c.max_position = 1000000;
	c.window_ns = 1000;
	book_new();
	for (uint16_t l = 0; l < 4; l++) {
		add(l, 'B', 100, 500000);
		add(l, 'S', 100, 500200);
	}
	a = risk_new(&c);
	c.cap_orders_instrument = 64;
	c.cap_orders_total = 4096;
	b = risk_new(&c);
	for (int i = 0; i < 20000; i++) {
		struct hgw_decision d;
		enum hgw_risk_reject ra, rb;

		x = hgw_xorshift64s(&xs);
		t += (x >> 8) % 4 == 0 ? 0 : (x >> 16) % 300;
		d = decision((uint16_t)(x % 4), (x >> 3) & 1 ? 'B' : 'S',
			     500100, 1);
		ra = hgw_risk_check(a, book, &d, t);
		rb = hgw_risk_check(b, book, &d, t);
		diff += ra != rb;
		throttled += ra == HGW_RISK_THROTTLE_INSTRUMENT ||
			     ra == HGW_RISK_THROTTLE_TOTAL;
	}
	printf("# 20000 checks, %d throttled\n", throttled);
	HGW_CHECK_EQ(diff, 0);
	HGW_CHECK(throttled > 1000);
	HGW_CHECK(memcmp(hgw_risk_stats(a), hgw_risk_stats(b),
			 sizeof(struct hgw_risk_stats)) == 0);
	/* other capacities: different states by construction */
	HGW_CHECK_EQ(hgw_risk_state_cmp(a, b, why, sizeof(why)), 1);
	HGW_CHECK(strstr(why, "capacities") != NULL);
	free(a);
	free(b);
}

static int
cmp_says(const struct hgw_risk *a, const struct hgw_risk *b,
	 const char *want)
{
	char why[128];
	int rc = hgw_risk_state_cmp(a, b, why, sizeof(why));

	printf("# state_cmp: %d '%s'\n", rc, rc == 1 ? why : "");
	if (want == NULL)
		return rc == 0;
	return rc == 1 && strstr(why, want) != NULL;
}

static void
test_risk_state_cmp(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *a, *b;
	struct hgw_decision d1, d2;

	c.max_orders_instrument = 2;
	c.max_orders_total = 3;
	book_new();
	name(1, "ALPHA");
	add(1, 'B', 100, 500000);
	add(1, 'S', 100, 500200);
	add(12, 'B', 100, 500000);
	add(12, 'S', 100, 500200);
	a = risk_new(&c);
	b = risk_new(&c);
	HGW_CHECK(cmp_says(a, b, NULL));
	HGW_CHECK_EQ(hgw_risk_state_cmp(a, NULL, NULL, 0), -EINVAL);

	/* The same sequence, with every kind of outcome, on both. */
	d1 = decision(1, 'B', 500100, 100);
	d2 = decision(12, 'S', 500100, 100);
	for (uint64_t t = 1; t <= 12; t++) {
		struct hgw_risk *r[2] = { a, b };

		for (int k = 0; k < 2; k++) {
			hgw_risk_check(r[k], book, &d1, t * 100000000);
			hgw_risk_check(r[k], book, &d2, t * 100000000);
			d1.quantity = (uint32_t)(t * 97 % 1100);
			hgw_risk_check(r[k], book, &d1, t * 100000000 + 1);
			d1.quantity = 100;
		}
	}
	HGW_CHECK(hgw_risk_stats(a)->passed > 0);
	HGW_CHECK(REJ(a, THROTTLE_INSTRUMENT) + REJ(a, THROTTLE_TOTAL) > 0);
	HGW_CHECK(cmp_says(a, b, NULL));
	HGW_CHECK(cmp_says(b, a, NULL));

	/* One extra check that passes: the position shows first. */
	HGW_CHECK_EQ(hgw_risk_check(b, book, &d2, 100 * 1000000000ull),
		     HGW_RISK_PASS);
	HGW_CHECK(cmp_says(a, b, "instrument 12: position -"));
	free(b);

	/* Same positions, orders accepted at other times. */
	b = risk_new(&c);
	free(a);
	a = risk_new(&c);
	HGW_CHECK_EQ(hgw_risk_check(a, book, &d1, 1000), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(b, book, &d1, 1001), HGW_RISK_PASS);
	HGW_CHECK(cmp_says(a, b, "instrument 1: throttle window differs: "
			   "order 1 back at 1000 vs 1001"));
	free(a);
	free(b);
	/* Same position, one more order in the window. */
	a = risk_new(&c);
	b = risk_new(&c);
	d1.quantity = 50;
	HGW_CHECK_EQ(hgw_risk_check(a, book, &d1, 1000), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_check(a, book, &d1, 1001), HGW_RISK_PASS);
	d1.quantity = 100;
	HGW_CHECK_EQ(hgw_risk_check(b, book, &d1, 1001), HGW_RISK_PASS);
	HGW_CHECK(cmp_says(a, b, "instrument 1: throttle window differs: "
			   "2 vs 1"));
	free(a);
	free(b);

	/* One differing position, the rest equal. */
	a = risk_new(&c);
	b = risk_new(&c);
	d1.quantity = 300;
	hgw_risk_check(a, book, &d1, 5);
	d1.quantity = 400;
	hgw_risk_check(b, book, &d1, 5);
	HGW_CHECK(cmp_says(a, b, "instrument 1: position 300 vs 400"));
	free(a);
	free(b);

	/* Same checks counted, other rejects. */
	a = risk_new(&c);
	b = risk_new(&c);
	d1 = decision(1, 'B', 500100, 1001);
	hgw_risk_check(a, book, &d1, 5);
	d1 = decision(1, 'B', 500100, 1001);
	d1.quantity = 10;
	d1.price = 600000;
	hgw_risk_check(b, book, &d1, 5);
	HGW_CHECK(cmp_says(a, b, "reject max_quantity: 1 vs 0"));
	/* An extra rejected check: only the counts differ. */
	hgw_risk_check(a, book, &d1, 5);
	HGW_CHECK(cmp_says(a, b, "checked 2 vs 1"));
	free(a);
	free(b);

	/* The run-time settings. */
	a = risk_new(&c);
	b = risk_new(&c);
	hgw_risk_set_kill(b, 1);
	HGW_CHECK(cmp_says(a, b, "kill switch 0 vs 1"));
	hgw_risk_set_kill(b, 0);
	HGW_CHECK(cmp_says(a, b, NULL));
	hgw_risk_set_limit(b, HGW_RISK_LIMIT_MAX_POSITION, 10);
	HGW_CHECK(cmp_says(a, b, "limit max_position: 1500 vs 10"));
	hgw_risk_set_limit(b, HGW_RISK_LIMIT_MAX_POSITION, 1500);
	HGW_CHECK(cmp_says(a, b, NULL));
	hgw_risk_set_disabled(a, "ALPHA", 1);
	HGW_CHECK(cmp_says(a, b, "disabled list differs: ALPHA"));
	hgw_risk_set_disabled(b, "BETA", 1);
	hgw_risk_set_disabled(b, "ALPHA", 1);
	hgw_risk_set_disabled(a, "BETA", 1);
	HGW_CHECK(cmp_says(a, b, NULL));        /* a set: order is free */
	/* the name cache is not part of the state */
	d1 = decision(1, 'B', 500100, 1);
	hgw_risk_check(a, book, &d1, 5);
	hgw_risk_check(b, book, &d1, 5);
	HGW_CHECK(cmp_says(a, b, NULL));
	free(a);
	free(b);
}


/* With a venue: orders are open until answered; the position limit bounds
 * filled plus open exposure on the order's side; max_open_orders bounds
 * the count; answers move shares from open to filled or away. */
static void
test_risk_venue(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *r;
	struct hgw_decision d;
	uint64_t buy, sell;

	c.max_orders_instrument = 100;
	c.max_orders_total = 100;
	c.venue = 1;
	c.max_open_orders = 3;
	c.cap_open_orders = 8;
	book_new();
	add(1, 'B', 100, 500000);
	add(1, 'S', 100, 500200);
	r = risk_new(&c);
	HGW_CHECK(r != NULL);
	if (r == NULL)
		return;
	d = decision(1, 'B', 500100, 1000);
	HGW_CHECK_EQ(hgw_risk_check_order(r, book, &d, 1, 11), HGW_RISK_PASS);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 0);       /* open, not filled */
	hgw_risk_open(r, 1, &buy, &sell);
	HGW_CHECK_EQ(buy, 1000);
	HGW_CHECK_EQ(sell, 0);
	/* 1000 open + 600 > 1500 */
	d.quantity = 600;
	HGW_CHECK_EQ(hgw_risk_check_order(r, book, &d, 2, 12),
		     HGW_RISK_POSITION_LIMIT);
	/* the same UserRefNum twice is refused */
	d.quantity = 1;
	HGW_CHECK_EQ(hgw_risk_check_order(r, book, &d, 2, 11),
		     HGW_RISK_OPEN_ORDERS);
	/* 400 filled, 600 canceled: position 400, nothing open */
	HGW_CHECK_EQ(hgw_risk_fill(r, 11, 400), 0);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 400);
	HGW_CHECK_EQ(hgw_risk_open_orders(r), 1);
	HGW_CHECK_EQ(hgw_risk_reduce(r, 11, 600), 0);
	HGW_CHECK_EQ(hgw_risk_open_orders(r), 0);
	hgw_risk_open(r, 1, &buy, &sell);
	HGW_CHECK_EQ(buy, 0);
	HGW_CHECK_EQ(hgw_risk_fill(r, 11, 1), -ENOENT);  /* closed */
	HGW_CHECK_EQ(hgw_risk_stats(r)->unknown_orders, 1);
	/* 400 filled + 1100 = 1500 passes; one more share does not */
	d.quantity = 1000;
	HGW_CHECK_EQ(hgw_risk_check_order(r, book, &d, 3, 13), HGW_RISK_PASS);
	d.quantity = 100;
	HGW_CHECK_EQ(hgw_risk_check_order(r, book, &d, 3, 14), HGW_RISK_PASS);
	d.quantity = 1;
	HGW_CHECK_EQ(hgw_risk_check_order(r, book, &d, 3, 15),
		     HGW_RISK_POSITION_LIMIT);
	/* a sell's exposure is its own side: -1000 - 500 */
	d.side = 'S';
	d.quantity = 1000;
	HGW_CHECK_EQ(hgw_risk_check_order(r, book, &d, 4, 16), HGW_RISK_PASS);
	/* three open: the fourth is refused whatever its size */
	d.quantity = 1;
	HGW_CHECK_EQ(hgw_risk_check_order(r, book, &d, 5, 17),
		     HGW_RISK_OPEN_ORDERS);
	HGW_CHECK_EQ(REJ(r, OPEN_ORDERS), 2);
	/* a rejected order: all of it goes; the never-sent one too */
	HGW_CHECK_EQ(hgw_risk_reduce(r, 13, UINT32_MAX), 0);
	HGW_CHECK_EQ(hgw_risk_unsend_order(r, 14), 0);
	hgw_risk_open(r, 1, &buy, &sell);
	HGW_CHECK_EQ(buy, 0);
	HGW_CHECK_EQ(sell, 1000);
	/* restated down, then replaced by a new number */
	HGW_CHECK_EQ(hgw_risk_restate(r, 16, 300), 0);
	HGW_CHECK_EQ(hgw_risk_replace(r, 16, 20, 200), 0);
	HGW_CHECK_EQ(hgw_risk_fill(r, 16, 1), -ENOENT);
	/* more executed than open (200): all 500 count, the conservative
	 * side (the session's owner has set the kill switch) */
	HGW_CHECK_EQ(hgw_risk_fill(r, 20, 500), 0);
	HGW_CHECK_EQ(hgw_risk_position(r, 1), 400 - 500);
	HGW_CHECK_EQ(hgw_risk_open_orders(r), 0);
	HGW_CHECK_EQ(hgw_risk_stats(r)->filled_shares, 400 + 500);
	/* limits: max_open_orders changes at run time, up to the capacity */
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_OPEN_ORDERS, 8), 0);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_OPEN_ORDERS, 9),
		     -ERANGE);
	HGW_CHECK_EQ(hgw_risk_get_limit(r, HGW_RISK_LIMIT_MAX_OPEN_ORDERS), 8);
	free(r);

	/* without a venue the answers have nothing to work on */
	c.venue = 0;
	r = risk_new(&c);
	HGW_CHECK_EQ(hgw_risk_fill(r, 1, 1), -EINVAL);
	HGW_CHECK_EQ(hgw_risk_set_limit(r, HGW_RISK_LIMIT_MAX_OPEN_ORDERS, 2),
		     -EINVAL);
	free(r);
}

/* The open-order table against a plain model: random opens, fills,
 * cancels and restates on colliding numbers (small table, many
 * deletions), checking every order's open shares after each step, and
 * two replicas taking the same steps compare equal. */
static void
test_risk_venue_table(void)
{
	struct hgw_risk_conf c = risk_conf();
	struct hgw_risk *r[2];
	enum { N = 40 };
	uint32_t open[N];       /* model: UserRefNum 1000 + i*64 -> shares */
	uint64_t x, xs = 88172645463325252ull;
	struct hgw_decision d;
	uint64_t t = 1;

	c.max_orders_instrument = 4096;
	c.max_orders_total = 4096;
	c.window_ns = 1;
	c.max_position = 1u << 30;
	c.max_quantity = 1000;
	c.max_notional = 1u << 30;
	c.venue = 1;
	c.max_open_orders = 32;
	book_new();
	add(1, 'B', 100, 500000);
	add(1, 'S', 100, 500200);
	for (int k = 0; k < 2; k++)
		r[k] = risk_new(&c);
	memset(open, 0, sizeof(open));
	for (int step = 0; step < 20000; step++) {
		uint32_t i, ref, q, n_open = 0;

		x = hgw_xorshift64s(&xs);
		i = (uint32_t)(x % N);
		ref = 1000 + i * 64;     /* multiples collide in the hash */
		q = (uint32_t)(x >> 40) % 50 + 1;
		for (uint32_t j = 0; j < N; j++)
			n_open += open[j] != 0;
		for (int k = 0; k < 2; k++) {
			int rc;

			switch ((x >> 32) % 4) {
			case 0:
				d = decision(1, (x >> 20) & 1 ? 'B' : 'S',
					     500100, q);
				rc = hgw_risk_check_order(r[k], book, &d, t, ref);
				HGW_CHECK_EQ(rc, open[i] == 0 && n_open < 32 ?
					     HGW_RISK_PASS : HGW_RISK_OPEN_ORDERS);
				break;
			case 1:
				rc = hgw_risk_fill(r[k], ref, q);
				HGW_CHECK_EQ(rc, open[i] ? 0 : -ENOENT);
				break;
			case 2:
				rc = hgw_risk_reduce(r[k], ref, q);
				HGW_CHECK_EQ(rc, open[i] ? 0 : -ENOENT);
				break;
			default:
				rc = hgw_risk_restate(r[k], ref, q);
				HGW_CHECK_EQ(rc, open[i] ? 0 : -ENOENT);
				break;
			}
		}
		switch ((x >> 32) % 4) {
		case 0:
			if (open[i] == 0 && n_open < 32)
				open[i] = q;
			break;
		case 1:
		case 2:
			open[i] -= open[i] < q ? open[i] : q;
			break;
		default:
			if (open[i] != 0)
				open[i] = q;
			break;
		}
		t++;
		n_open = 0;
		for (uint32_t j = 0; j < N; j++) {
			n_open += open[j] != 0;
			/* still open exactly when the model says so */
			if (open[j] != 0)
				HGW_CHECK_EQ(hgw_risk_restate(r[0], 1000 + j * 64,
							      open[j]), 0);
		}
		HGW_CHECK_EQ(hgw_risk_open_orders(r[0]), n_open);
		if (hgw_test_failures != 0)
			break;
	}
	/* r[0] was restated to the same values: a no-op on state */
	HGW_CHECK_EQ(hgw_risk_state_cmp(r[0], r[1], NULL, 0), 0);
	free(r[0]);
	free(r[1]);
}

int
main(void)
{
	HGW_TEST(test_key_buckets);
	HGW_TEST(test_strategy_outcomes);
	HGW_TEST(test_risk_rules);
	HGW_TEST(test_risk_position);
	HGW_TEST(test_risk_throttle);
	HGW_TEST(test_risk_conf);
	HGW_TEST(test_risk_kill);
	HGW_TEST(test_risk_disabled);
	HGW_TEST(test_risk_limits);
	HGW_TEST(test_risk_limit_valid);
	HGW_TEST(test_risk_capacity_same);
	HGW_TEST(test_risk_state_cmp);
	HGW_TEST(test_risk_venue);
	HGW_TEST(test_risk_venue_table);
	free(book);
	free(table.entries);
	return hgw_test_done();
}
