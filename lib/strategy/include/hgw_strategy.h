/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the strategy, from a trigger to at most one order decision.
 *
 * A trigger is a message that changed an instrument's book. The strategy
 * computes the pricing-table key from the book's touch, reads that entry
 * (consistently, under its sequence count) and turns it into a decision:
 * side, limit price, quantity. Rules: docs/protocols.md "Trading rules".
 * Pure and per worker: the same feed and table give the same decisions
 * anywhere.
 */
#ifndef HGW_STRATEGY_H
#define HGW_STRATEGY_H

#include <stdint.h>

#include "hgw_book.h"
#include "hgw_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Outcomes of evaluating a trigger (X-macro: code, name, help). */
#define HGW_STRATEGY_OUTCOMES(X)                                               \
	X(OUT_OF_TABLE, "out_of_table", "instrument's locate is beyond the table") \
	X(NO_QUOTE,     "no_quote",     "a side of the book is empty")            \
	X(CROSSED,      "crossed",      "best ask <= best bid")                   \
	X(NO_ACTION,    "no_action",    "the entry says do nothing")              \
	X(BAD_ENTRY,    "bad_entry",    "the entry's price or quantity is unusable") \
	X(DECISION,     "decisions",    "the entry produced an order decision")

enum hgw_strategy_outcome {
#define HGW_STRATEGY_ENUM(code, name, help) HGW_STRATEGY_##code,
	HGW_STRATEGY_OUTCOMES(HGW_STRATEGY_ENUM)
#undef HGW_STRATEGY_ENUM
	HGW_STRATEGY_MAX
};

const char *hgw_strategy_outcome_name(enum hgw_strategy_outcome o);

/* Layouts public because the worker embeds the stats and takes each
 * decision by value on the per-message path. */
struct hgw_strategy_stats {
	uint64_t triggers;                    /* triggers evaluated */
	uint64_t outcomes[HGW_STRATEGY_MAX];  /* each trigger lands in one */
};

/* What to send, before risk. */
struct hgw_decision {
	uint16_t locate;
	uint8_t side;          /* 'B' or 'S' */
	uint8_t tif;
	uint8_t display;
	uint32_t price;        /* 4 implied decimals */
	uint32_t quantity;
	struct hgw_book_top top;  /* the touch the decision was made on */
	uint64_t key;          /* table entry used */
};

/* Evaluate a trigger on locate (book already updated by the message).
 * Counts the outcome; returns 1 and fills *d on a decision, else 0. */
int hgw_strategy_eval(struct hgw_strategy_stats *s, const struct hgw_table *t,
		      const struct hgw_book *b, uint16_t locate,
		      struct hgw_decision *d);

#ifdef __cplusplus
}
#endif

#endif /* HGW_STRATEGY_H */
