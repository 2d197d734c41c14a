/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: trigger -> table entry -> decision.
 */
#include "hgw_itch.h"
#include "hgw_strategy.h"

#define STRATEGY_NAME(code, name, help) [HGW_STRATEGY_##code] = name,
static const char *const outcome_names[HGW_STRATEGY_MAX] = {
	HGW_STRATEGY_OUTCOMES(STRATEGY_NAME)
};

const char *
hgw_strategy_outcome_name(enum hgw_strategy_outcome o)
{
	return (unsigned int)o < HGW_STRATEGY_MAX ? outcome_names[o] : NULL;
}

static inline int
outcome(struct hgw_strategy_stats *s, enum hgw_strategy_outcome o)
{
	s->outcomes[o]++;
	return o == HGW_STRATEGY_DECISION;
}

int
hgw_strategy_eval(struct hgw_strategy_stats *s, const struct hgw_table *t,
		  const struct hgw_book *b, uint16_t locate,
		  struct hgw_decision *d)
{
	struct hgw_table_entry e;
	uint64_t key;
	int64_t price;

	s->triggers++;
	if (hgw_book_top(b, locate, &d->top) != 0)
		return outcome(s, HGW_STRATEGY_OUT_OF_TABLE);
	switch (hgw_table_key(&t->dims, locate, d->top.bid_price,
			      d->top.bid_shares, d->top.ask_price,
			      d->top.ask_shares, &key)) {
	case HGW_TABLE_KEY_OK:
		break;
	case HGW_TABLE_KEY_OUT_OF_TABLE:
		return outcome(s, HGW_STRATEGY_OUT_OF_TABLE);
	case HGW_TABLE_KEY_NO_QUOTE:
		return outcome(s, HGW_STRATEGY_NO_QUOTE);
	case HGW_TABLE_KEY_CROSSED:
	default:
		return outcome(s, HGW_STRATEGY_CROSSED);
	}
	hgw_table_read(t, key, &e);
	if (e.action != HGW_TABLE_ACTION_BUY && e.action != HGW_TABLE_ACTION_SELL)
		return outcome(s, HGW_STRATEGY_NO_ACTION);

	if (e.price_mode > HGW_TABLE_PRICE_ABSOLUTE)
		return outcome(s, HGW_STRATEGY_BAD_ENTRY);
	if (e.price_mode == HGW_TABLE_PRICE_ABSOLUTE)
		price = e.price;
	else if (e.action == HGW_TABLE_ACTION_BUY)
		price = (int64_t)d->top.bid_price + e.price;
	else
		price = (int64_t)d->top.ask_price - e.price;
	if (price < 1 || price > HGW_ITCH_PRICE_MAX || e.quantity == 0)
		return outcome(s, HGW_STRATEGY_BAD_ENTRY);

	d->locate = locate;
	d->side = e.action;
	d->tif = e.tif;
	d->display = e.display;
	d->price = (uint32_t)price;
	d->quantity = e.quantity;
	d->key = key;
	return outcome(s, HGW_STRATEGY_DECISION);
}
