/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: pre-trade risk checks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hgw_cacheline.h"
#include "hgw_risk.h"
#include "hgw_risk_internal.h"

#define RISK_NAME(code, name, help) [HGW_RISK_##code] = name,
static const char *const reject_names[HGW_RISK_MAX] = {
	HGW_RISK_REJECTS(RISK_NAME)
};
#define RISK_HELP(code, name, help) [HGW_RISK_##code] = help,
static const char *const reject_helps[HGW_RISK_MAX] = {
	HGW_RISK_REJECTS(RISK_HELP)
};

const char *
hgw_risk_reject_name(enum hgw_risk_reject r)
{
	return (unsigned int)r < HGW_RISK_MAX ? reject_names[r] : NULL;
}

const char *
hgw_risk_reject_help(enum hgw_risk_reject r)
{
	return (unsigned int)r < HGW_RISK_MAX ? reject_helps[r] : NULL;
}

static size_t
align_up(size_t v)
{
	return (v + RISK_ALIGN - 1) & ~(size_t)(RISK_ALIGN - 1);
}

/* The ring sizes: the capacity given, or the start-up limit. */
static uint32_t
cap_instrument(const struct hgw_risk_conf *c)
{
	return c->cap_orders_instrument != 0 ? c->cap_orders_instrument :
	       c->max_orders_instrument;
}

static uint32_t
cap_total(const struct hgw_risk_conf *c)
{
	return c->cap_orders_total != 0 ? c->cap_orders_total :
	       c->max_orders_total;
}

static uint32_t
cap_open(const struct hgw_risk_conf *c)
{
	return c->cap_open_orders != 0 ? c->cap_open_orders :
	       c->max_open_orders;
}

/* Slots of the open-order table: a power of two at least twice the
 * capacity, so probes stay short. 0 without a venue. */
static uint32_t
open_slots(const struct hgw_risk_conf *c)
{
	uint32_t n = 2;

	if (!c->venue)
		return 0;
	while (n < 2 * cap_open(c))
		n <<= 1;
	return n;
}

static int
conf_ok(const struct hgw_risk_conf *c)
{
	return c != NULL && c->instruments >= 1 && c->instruments <= 65536 &&
	       (!c->venue || (cap_open(c) <= HGW_RISK_MAX_OPEN_ORDERS &&
			      c->max_open_orders >= 1 &&
			      c->max_open_orders <= cap_open(c))) &&
	       cap_instrument(c) <= HGW_RISK_MAX_WINDOW_ORDERS &&
	       c->max_orders_instrument >= 1 &&
	       c->max_orders_instrument <= cap_instrument(c) &&
	       cap_total(c) <= HGW_RISK_MAX_WINDOW_ORDERS &&
	       c->max_orders_total >= 1 &&
	       c->max_orders_total <= cap_total(c) &&
	       c->ndisabled <= HGW_RISK_MAX_DISABLED;
}

size_t
hgw_risk_memsize(const struct hgw_risk_conf *c)
{
	if (!conf_ok(c))
		return 0;
	return align_up(sizeof(struct hgw_risk)) +
	       align_up((size_t)c->instruments * sizeof(struct inst_state)) +
	       align_up((size_t)c->instruments * cap_instrument(c) *
			sizeof(uint64_t)) +
	       align_up((size_t)cap_total(c) * sizeof(uint64_t)) +
	       align_up((size_t)open_slots(c) * sizeof(struct open_order));
}

struct hgw_risk *
hgw_risk_init(void *mem, const struct hgw_risk_conf *c)
{
	size_t sz = hgw_risk_memsize(c);
	uint8_t *p = mem;
	struct hgw_risk *r = mem;

	if (sz == 0 || mem == NULL ||
	    ((uintptr_t)mem & (RISK_ALIGN - 1)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	memset(mem, 0, sz);
	r->conf = *c;
	r->conf.kill = c->kill != 0;
	r->conf.cap_orders_instrument = cap_instrument(c);
	r->conf.cap_orders_total = cap_total(c);
	r->conf.venue = c->venue != 0;
	r->conf.cap_open_orders = c->venue ? cap_open(c) : 0;
	p += align_up(sizeof(*r));
	r->inst = (struct inst_state *)(void *)p;
	p += align_up((size_t)c->instruments * sizeof(struct inst_state));
	r->inst_times = (uint64_t *)(void *)p;
	p += align_up((size_t)c->instruments * cap_instrument(c) *
		      sizeof(uint64_t));
	r->total_times = (uint64_t *)(void *)p;
	p += align_up((size_t)cap_total(c) * sizeof(uint64_t));
	if (c->venue) {
		r->open = (struct open_order *)(void *)p;
		r->open_mask = open_slots(c) - 1;
	}
	return r;
}

/* Slot of the k-th most recent time (k = 1: the last), k <= cap. */
static inline uint32_t
window_recent(const struct window *w, uint32_t cap, uint32_t k)
{
	return w->next >= k ? w->next - k : w->next + cap - k;
}

/* 1 when one more order at t would exceed n orders in (t - w_ns, t]:
 * n accepted and the n-th most recent in the window. With n == cap that
 * slot is w->next, the oldest kept. */
static inline int
window_full(const struct window *w, const uint64_t *times, uint32_t cap,
	    uint32_t n, uint64_t w_ns, uint64_t t)
{
	return w->count >= n && times[window_recent(w, cap, n)] + w_ns > t;
}

static inline void
window_push(struct window *w, uint64_t *times, uint32_t cap, uint64_t t)
{
	times[w->next] = t;
	w->next = w->next + 1 == cap ? 0 : w->next + 1;
	if (w->count < cap)
		w->count++;
}

/* Is the instrument in [risk] disable? Decided once its name is known
 * (from the feed's stock directory), then cached. */
static int
disabled(struct hgw_risk *r, const struct hgw_book *b, uint16_t locate)
{
	struct inst_state *s = &r->inst[locate];

	if (s->name_state == NAME_UNKNOWN) {
		const char *name = hgw_book_name(b, locate);
		size_t n = 0;

		if (name == NULL)
			return 0;	/* no name yet: nothing to match */
		while (n < 8 && name[n] != ' ' && name[n] != '\0')
			n++;
		s->name_state = NAME_ENABLED;
		for (uint32_t i = 0; i < r->conf.ndisabled; i++)
			if (strlen(r->conf.disabled[i]) == n &&
			    memcmp(r->conf.disabled[i], name, n) == 0)
				s->name_state = NAME_DISABLED;
	}
	return s->name_state == NAME_DISABLED;
}

static inline enum hgw_risk_reject
reject(struct hgw_risk *r, enum hgw_risk_reject why)
{
	r->stats.rejects[why]++;
	return why;
}

static inline uint32_t
min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Home slot of a UserRefNum (Fibonacci hashing). */
static inline uint32_t
open_home(const struct hgw_risk *r, uint32_t user_ref)
{
	return (uint32_t)(((uint64_t)user_ref * 0x9e3779b97f4a7c15ull) >> 32) &
	       r->open_mask;
}

/* The slot of an open order, or -1. */
static int64_t
open_find(const struct hgw_risk *r, uint32_t user_ref)
{
	for (uint32_t i = open_home(r, user_ref);; i = (i + 1) & r->open_mask) {
		if (r->open[i].remaining == 0)
			return -1;
		if (r->open[i].user_ref == user_ref)
			return i;
	}
}

/* Record an order open (not present; room checked by the caller). */
static void
open_insert(struct hgw_risk *r, uint32_t user_ref, uint16_t locate,
	    uint8_t side, uint32_t qty)
{
	uint32_t i = open_home(r, user_ref);

	while (r->open[i].remaining != 0)
		i = (i + 1) & r->open_mask;
	r->open[i] = (struct open_order){ .user_ref = user_ref,
					  .remaining = qty, .locate = locate,
					  .side = side };
	r->nopen++;
	if (side == 'B')
		r->inst[locate].open_buy += qty;
	else
		r->inst[locate].open_sell += qty;
}

/* Free slot i, shifting back the entries of its probe run. */
static void
open_delete(struct hgw_risk *r, uint32_t i)
{
	uint32_t j = i;

	r->nopen--;
	for (;;) {
		r->open[i].remaining = 0;
		for (;;) {
			j = (j + 1) & r->open_mask;
			if (r->open[j].remaining == 0)
				return;
			uint32_t h = open_home(r, r->open[j].user_ref);

			/* j's entry may move to i unless its home lies
			 * cyclically in (i, j] */
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		r->open[i] = r->open[j];
		i = j;
	}
}

/* Take n of slot i's open shares away (n <= remaining); filled: they
 * went to the position. */
static void
open_take(struct hgw_risk *r, uint32_t i, uint32_t n, int filled)
{
	struct open_order *o = &r->open[i];
	struct inst_state *s = &r->inst[o->locate];

	if (o->side == 'B') {
		s->open_buy -= n;
		if (filled)
			s->position += n;
	} else {
		s->open_sell -= n;
		if (filled)
			s->position -= n;
	}
	if (n == o->remaining) {
		open_delete(r, i);
		r->stats.closed_orders++;
	} else {
		o->remaining -= n;
	}
}

enum hgw_risk_reject
hgw_risk_check(struct hgw_risk *r, const struct hgw_book *b,
	       const struct hgw_decision *d, uint64_t ts_ns)
{
	return hgw_risk_check_order(r, b, d, ts_ns, 0);
}

void
hgw_risk_prefetch(const struct hgw_risk *r, uint16_t locate)
{
	const struct hgw_risk_conf *c = &r->conf;

	if (locate >= c->instruments)
		return;
	__builtin_prefetch(&r->inst[locate], 1);
	if (r->total.count >= c->max_orders_total)
		__builtin_prefetch(&r->total_times[window_recent(
			&r->total, c->cap_orders_total, c->max_orders_total)]);
	__builtin_prefetch(&r->total_times[r->total.next], 1);
}

enum hgw_risk_reject
hgw_risk_check_order(struct hgw_risk *r, const struct hgw_book *b,
		     const struct hgw_decision *d, uint64_t ts_ns,
		     uint32_t user_ref)
{
	const struct hgw_risk_conf *c = &r->conf;
	uint16_t l = d->locate;
	uint64_t price = d->price, qty = d->quantity;

	r->stats.checked++;
	if (c->kill)
		return reject(r, HGW_RISK_KILL_SWITCH);
	if (l >= c->instruments || disabled(r, b, l))
		return reject(r, HGW_RISK_DISABLED);
	if (qty > c->max_quantity)
		return reject(r, HGW_RISK_MAX_QUANTITY);
	if (price * qty > c->max_notional * 10000u)
		return reject(r, HGW_RISK_MAX_NOTIONAL);

	uint64_t ref = hgw_book_last_trade(b, l);

	if (ref == 0)
		ref = ((uint64_t)d->top.bid_price + d->top.ask_price) / 2;
	uint64_t diff = price > ref ? price - ref : ref - price;

	if (diff * 10000u > (uint64_t)c->collar_bps * ref)
		return reject(r, HGW_RISK_PRICE_COLLAR);

	struct inst_state *s = &r->inst[l];
	/* filled plus open exposure on the order's side (nothing is open
	 * without a venue) */
	int64_t pos = d->side == 'B' ?
		s->position + (int64_t)s->open_buy + (int64_t)qty :
		s->position - (int64_t)s->open_sell - (int64_t)qty;
	uint64_t apos = pos < 0 ? (uint64_t)-pos : (uint64_t)pos;

	if (apos > c->max_position)
		return reject(r, HGW_RISK_POSITION_LIMIT);
	if (c->venue && (r->nopen >= c->max_open_orders ||
			 open_find(r, user_ref) >= 0))
		return reject(r, HGW_RISK_OPEN_ORDERS);

	uint64_t *itimes = r->inst_times + (size_t)l * c->cap_orders_instrument;

	if (window_full(&s->w, itimes, c->cap_orders_instrument,
			c->max_orders_instrument, c->window_ns, ts_ns))
		return reject(r, HGW_RISK_THROTTLE_INSTRUMENT);
	if (window_full(&r->total, r->total_times, c->cap_orders_total,
			c->max_orders_total, c->window_ns, ts_ns))
		return reject(r, HGW_RISK_THROTTLE_TOTAL);

	if (c->venue)
		open_insert(r, user_ref, l, d->side, (uint32_t)qty);
	else
		s->position = pos;
	window_push(&s->w, itimes, c->cap_orders_instrument, ts_ns);
	window_push(&r->total, r->total_times, c->cap_orders_total, ts_ns);
	r->stats.passed++;
	return HGW_RISK_PASS;
}

void
hgw_risk_set_kill(struct hgw_risk *r, int on)
{
	r->conf.kill = on != 0;
}

/* Index of name in the disabled list, or -1. */
static int
disabled_find(const struct hgw_risk_conf *c, const char *name)
{
	for (uint32_t i = 0; i < c->ndisabled; i++)
		if (strcmp(c->disabled[i], name) == 0)
			return (int)i;
	return -1;
}

int
hgw_risk_set_disabled(struct hgw_risk *r, const char *symbol, int disabled)
{
	struct hgw_risk_conf *c = &r->conf;
	size_t n = 0;
	int i;

	if (symbol == NULL)
		return -EINVAL;
	/* A space could never match (names are compared trimmed), and the
	 * list is printed back in logs and telemetry. */
	for (n = 0; symbol[n] != '\0'; n++)
		if (n == 8 || symbol[n] <= ' ' || symbol[n] > '~')
			return -EINVAL;
	if (n == 0)
		return -EINVAL;
	i = disabled_find(c, symbol);
	if (disabled) {
		if (i >= 0)
			return 0;
		if (c->ndisabled == HGW_RISK_MAX_DISABLED)
			return -ENOSPC;
		memcpy(c->disabled[c->ndisabled], symbol, n + 1);
		c->ndisabled++;
	} else {
		if (i < 0)
			return 0;
		/* Order kept: the list reads as it was configured. */
		memmove(c->disabled[i], c->disabled[i + 1],
			(c->ndisabled - (uint32_t)i - 1) *
			sizeof(c->disabled[0]));
		c->ndisabled--;
		memset(c->disabled[c->ndisabled], 0, sizeof(c->disabled[0]));
	}
	/* Each instrument decides again when next checked. A rare event:
	 * a pass over at most 65536 bytes. */
	for (uint32_t l = 0; l < c->instruments; l++)
		r->inst[l].name_state = NAME_UNKNOWN;
	return 0;
}

int
hgw_risk_unsend(struct hgw_risk *r, uint16_t locate, int64_t signed_qty)
{
	if (locate >= r->conf.instruments)
		return -EINVAL;
	r->inst[locate].position -= signed_qty;
	return 0;
}

int64_t
hgw_risk_position(const struct hgw_risk *r, uint16_t locate)
{
	return locate < r->conf.instruments ? r->inst[locate].position : 0;
}

void
hgw_risk_open(const struct hgw_risk *r, uint16_t locate, uint64_t *buy,
	      uint64_t *sell)
{
	int in = locate < r->conf.instruments;

	*buy = in ? r->inst[locate].open_buy : 0;
	*sell = in ? r->inst[locate].open_sell : 0;
}

uint32_t
hgw_risk_open_orders(const struct hgw_risk *r)
{
	return r->nopen;
}

/* The slot of an open order for a venue answer: -EINVAL without a venue,
 * -ENOENT (counted) when none is open under user_ref. */
static int64_t
answer_slot(struct hgw_risk *r, uint32_t user_ref)
{
	int64_t i;

	if (!r->conf.venue)
		return -EINVAL;
	i = open_find(r, user_ref);
	if (i < 0) {
		r->stats.unknown_orders++;
		return -ENOENT;
	}
	return i;
}

/* qty of an open order's shares (at most what is open) leave it: filled
 * (to the position) or not. */
static int
answer_take(struct hgw_risk *r, uint32_t user_ref, uint32_t qty, int filled)
{
	int64_t i = answer_slot(r, user_ref);

	if (i < 0)
		return (int)i;
	if (filled && qty > r->open[i].remaining) {
		/* more executed than was open (a kill at the session's
		 * owner): the position takes all the venue says filled, the
		 * conservative side */
		const struct open_order *o = &r->open[i];
		int64_t extra = (int64_t)(qty - o->remaining);

		r->inst[o->locate].position += o->side == 'B' ? extra : -extra;
		r->stats.filled_shares += (uint64_t)extra;
	}
	qty = min_u32(qty, r->open[i].remaining);
	if (filled)
		r->stats.filled_shares += qty;
	else
		r->stats.reduced_shares += qty;
	open_take(r, (uint32_t)i, qty, filled);
	return 0;
}

int
hgw_risk_fill(struct hgw_risk *r, uint32_t user_ref, uint32_t qty)
{
	return answer_take(r, user_ref, qty, 1);
}

int
hgw_risk_reduce(struct hgw_risk *r, uint32_t user_ref, uint32_t qty)
{
	return answer_take(r, user_ref, qty, 0);
}

int
hgw_risk_restate(struct hgw_risk *r, uint32_t user_ref, uint32_t qty)
{
	int64_t i = answer_slot(r, user_ref);
	struct open_order *o;

	if (i < 0)
		return (int)i;
	o = &r->open[i];
	if (qty < o->remaining) {
		r->stats.reduced_shares += o->remaining - qty;
		open_take(r, (uint32_t)i, o->remaining - qty, 0);
	} else if (qty > o->remaining) {
		struct inst_state *s = &r->inst[o->locate];

		if (o->side == 'B')
			s->open_buy += qty - o->remaining;
		else
			s->open_sell += qty - o->remaining;
		o->remaining = qty;
	}
	return 0;
}

int
hgw_risk_replace(struct hgw_risk *r, uint32_t user_ref, uint32_t new_ref,
		 uint32_t qty)
{
	int64_t i = answer_slot(r, user_ref);
	struct open_order o;

	if (i < 0)
		return (int)i;
	if (new_ref != user_ref && open_find(r, new_ref) >= 0)
		return -EEXIST;
	o = r->open[i];
	r->stats.reduced_shares += o.remaining;
	open_take(r, (uint32_t)i, o.remaining, 0);
	if (qty != 0)
		open_insert(r, new_ref, o.locate, o.side, qty);
	return 0;
}

int
hgw_risk_unsend_order(struct hgw_risk *r, uint32_t user_ref)
{
	int64_t i;

	if (!r->conf.venue)
		return -EINVAL;
	i = open_find(r, user_ref);
	if (i < 0)
		return -ENOENT;
	open_take(r, (uint32_t)i, r->open[i].remaining, 0);
	return 0;
}

const struct hgw_risk_stats *
hgw_risk_stats(const struct hgw_risk *r)
{
	return &r->stats;
}

int
hgw_risk_parse_disable(struct hgw_risk_conf *c, const char *list)
{
	const char *p = list;

	c->ndisabled = 0;
	while (*p != '\0') {
		size_t n;

		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		n = strcspn(p, " ,\t");
		if (n == 0)
			break;
		if (n > 8 || c->ndisabled == HGW_RISK_MAX_DISABLED)
			return -1;
		memcpy(c->disabled[c->ndisabled], p, n);
		c->disabled[c->ndisabled][n] = '\0';
		c->ndisabled++;
		p += n;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Limits changed at run time                                         */

#define RISK_LIMIT_NAME(code, name) [HGW_RISK_LIMIT_##code] = name,
static const char *const limit_names[HGW_RISK_LIMIT_MAX] = {
	HGW_RISK_LIMITS(RISK_LIMIT_NAME)
};

const char *
hgw_risk_limit_name(enum hgw_risk_limit k)
{
	return (unsigned int)k < HGW_RISK_LIMIT_MAX ? limit_names[k] : NULL;
}

int
hgw_risk_limit_by_name(const char *name)
{
	if (name == NULL)
		return -1;
	for (int k = 0; k < HGW_RISK_LIMIT_MAX; k++)
		if (strcmp(limit_names[k], name) == 0)
			return k;
	return -1;
}

/* The values the arithmetic in hgw_risk_check is safe for:
 * price (< 2^32) x quantity (< 2^32) against max_notional x 10^4 (< 2^54),
 * and a price difference x 10^4 against collar_bps (<= 10^6) x price. */
#define RISK_MAX_NOTIONAL (1ull << 40)
#define RISK_MAX_POSITION (1ull << 40)
#define RISK_MAX_COLLAR_BPS 1000000u
#define RISK_MAX_WINDOW_MS 86400000u

int
hgw_risk_limit_valid(const struct hgw_risk_conf *c, enum hgw_risk_limit k,
		     uint64_t v)
{
	uint32_t cap;

	if (c == NULL)
		return -EINVAL;
	switch (k) {
	case HGW_RISK_LIMIT_MAX_QUANTITY:
		return v >= 1 && v <= UINT32_MAX ? 0 : -EINVAL;
	case HGW_RISK_LIMIT_MAX_NOTIONAL:
		return v >= 1 && v <= RISK_MAX_NOTIONAL ? 0 : -EINVAL;
	case HGW_RISK_LIMIT_COLLAR_BPS:
		return v <= RISK_MAX_COLLAR_BPS ? 0 : -EINVAL;
	case HGW_RISK_LIMIT_MAX_POSITION:
		return v <= RISK_MAX_POSITION ? 0 : -EINVAL;
	case HGW_RISK_LIMIT_WINDOW_MS:
		return v >= 1 && v <= RISK_MAX_WINDOW_MS ? 0 : -EINVAL;
	case HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT:
	case HGW_RISK_LIMIT_MAX_ORDERS_TOTAL:
		cap = k == HGW_RISK_LIMIT_MAX_ORDERS_TOTAL ? cap_total(c) :
		      cap_instrument(c);
		if (v == 0)
			return -EINVAL;
		return v <= cap ? 0 : -ERANGE;
	case HGW_RISK_LIMIT_MAX_OPEN_ORDERS:
		if (!c->venue || v == 0)
			return -EINVAL;
		return v <= cap_open(c) ? 0 : -ERANGE;
	default:
		return -EINVAL;
	}
}

int
hgw_risk_set_limit(struct hgw_risk *r, enum hgw_risk_limit k, uint64_t v)
{
	struct hgw_risk_conf *c = &r->conf;
	int rc = hgw_risk_limit_valid(c, k, v);

	if (rc != 0)
		return rc;
	switch (k) {
	case HGW_RISK_LIMIT_MAX_QUANTITY:
		c->max_quantity = (uint32_t)v;
		break;
	case HGW_RISK_LIMIT_MAX_NOTIONAL:
		c->max_notional = v;
		break;
	case HGW_RISK_LIMIT_COLLAR_BPS:
		c->collar_bps = (uint32_t)v;
		break;
	case HGW_RISK_LIMIT_MAX_POSITION:
		c->max_position = v;
		break;
	case HGW_RISK_LIMIT_WINDOW_MS:
		c->window_ns = v * 1000000u;
		break;
	case HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT:
		c->max_orders_instrument = (uint32_t)v;
		break;
	case HGW_RISK_LIMIT_MAX_ORDERS_TOTAL:
		c->max_orders_total = (uint32_t)v;
		break;
	case HGW_RISK_LIMIT_MAX_OPEN_ORDERS:
		c->max_open_orders = (uint32_t)v;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

uint64_t
hgw_risk_get_limit(const struct hgw_risk *r, enum hgw_risk_limit k)
{
	const struct hgw_risk_conf *c = &r->conf;

	switch (k) {
	case HGW_RISK_LIMIT_MAX_QUANTITY:
		return c->max_quantity;
	case HGW_RISK_LIMIT_MAX_NOTIONAL:
		return c->max_notional;
	case HGW_RISK_LIMIT_COLLAR_BPS:
		return c->collar_bps;
	case HGW_RISK_LIMIT_MAX_POSITION:
		return c->max_position;
	case HGW_RISK_LIMIT_WINDOW_MS:
		return c->window_ns / 1000000u;
	case HGW_RISK_LIMIT_MAX_ORDERS_INSTRUMENT:
		return c->max_orders_instrument;
	case HGW_RISK_LIMIT_MAX_ORDERS_TOTAL:
		return c->max_orders_total;
	case HGW_RISK_LIMIT_MAX_OPEN_ORDERS:
		return c->venue ? c->max_open_orders : 0;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* State comparison                                                   */

static int __attribute__((format(printf, 3, 4)))
differ(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL && whylen > 0) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return 1;
}

/* Two windows of rings of capacity cap: the same count and the same times,
 * most recent first. 0, or 1 with why naming scope. */
static int
window_cmp(const struct window *wa, const uint64_t *ta,
	   const struct window *wb, const uint64_t *tb, uint32_t cap,
	   const char *scope, char *why, size_t whylen)
{
	if (wa->count != wb->count)
		return differ(why, whylen, "%s throttle window differs: %"
			      PRIu32 " vs %" PRIu32 " orders kept", scope,
			      wa->count, wb->count);
	for (uint32_t k = 1; k <= wa->count; k++) {
		uint64_t a = ta[window_recent(wa, cap, k)];
		uint64_t b = tb[window_recent(wb, cap, k)];

		if (a != b)
			return differ(why, whylen, "%s throttle window "
				      "differs: order %" PRIu32 " back at %"
				      PRIu64 " vs %" PRIu64 " ns", scope, k,
				      a, b);
	}
	return 0;
}

int
hgw_risk_state_cmp(const struct hgw_risk *a, const struct hgw_risk *b,
		   char *why, size_t whylen)
{
	const struct hgw_risk_conf *ca, *cb;
	char scope[32];

	if (a == NULL || b == NULL)
		return -EINVAL;
	ca = &a->conf;
	cb = &b->conf;
	if (why != NULL && whylen > 0)
		why[0] = '\0';
	if (ca->instruments != cb->instruments)
		return differ(why, whylen, "instruments %" PRIu32 " vs %"
			      PRIu32, ca->instruments, cb->instruments);
	if (ca->cap_orders_instrument != cb->cap_orders_instrument ||
	    ca->cap_orders_total != cb->cap_orders_total)
		return differ(why, whylen, "window capacities %" PRIu32 "/%"
			      PRIu32 " vs %" PRIu32 "/%" PRIu32,
			      ca->cap_orders_instrument, ca->cap_orders_total,
			      cb->cap_orders_instrument, cb->cap_orders_total);
	if (ca->kill != cb->kill)
		return differ(why, whylen, "kill switch %u vs %u", ca->kill,
			      cb->kill);
	for (int k = 0; k < HGW_RISK_LIMIT_MAX; k++) {
		uint64_t va = hgw_risk_get_limit(a, (enum hgw_risk_limit)k);
		uint64_t vb = hgw_risk_get_limit(b, (enum hgw_risk_limit)k);

		if (va != vb)
			return differ(why, whylen, "limit %s: %" PRIu64 " vs %"
				      PRIu64, limit_names[k], va, vb);
	}
	/* window_ms reads whole milliseconds; a start-up window need not be */
	if (ca->window_ns != cb->window_ns)
		return differ(why, whylen, "window %" PRIu64 " vs %" PRIu64
			      " ns", ca->window_ns, cb->window_ns);
	for (uint32_t i = 0; i < ca->ndisabled; i++)
		if (disabled_find(cb, ca->disabled[i]) < 0)
			return differ(why, whylen, "disabled list differs: "
				      "%s only in the first", ca->disabled[i]);
	for (uint32_t i = 0; i < cb->ndisabled; i++)
		if (disabled_find(ca, cb->disabled[i]) < 0)
			return differ(why, whylen, "disabled list differs: "
				      "%s only in the second",
				      cb->disabled[i]);
	for (uint32_t l = 0; l < ca->instruments; l++) {
		const struct inst_state *sa = &a->inst[l], *sb = &b->inst[l];
		size_t off = (size_t)l * ca->cap_orders_instrument;

		if (sa->position != sb->position)
			return differ(why, whylen, "instrument %" PRIu32
				      ": position %" PRId64 " vs %" PRId64, l,
				      sa->position, sb->position);
		if (sa->open_buy != sb->open_buy ||
		    sa->open_sell != sb->open_sell)
			return differ(why, whylen, "instrument %" PRIu32
				      ": open %" PRIu64 "/%" PRIu64 " vs %"
				      PRIu64 "/%" PRIu64 " (buy/sell)", l,
				      sa->open_buy, sa->open_sell,
				      sb->open_buy, sb->open_sell);
		snprintf(scope, sizeof(scope), "instrument %" PRIu32 ":", l);
		if (window_cmp(&sa->w, a->inst_times + off, &sb->w,
			       b->inst_times + off, ca->cap_orders_instrument,
			       scope, why, whylen) != 0)
			return 1;
	}
	if (window_cmp(&a->total, a->total_times, &b->total, b->total_times,
		       ca->cap_orders_total, "total", why, whylen) != 0)
		return 1;
	if (ca->venue != cb->venue || ca->cap_open_orders != cb->cap_open_orders)
		return differ(why, whylen, "venue %u/%" PRIu32 " vs %u/%" PRIu32
			      " (venue/open capacity)", ca->venue,
			      ca->cap_open_orders, cb->venue,
			      cb->cap_open_orders);
	if (a->nopen != b->nopen)
		return differ(why, whylen, "open orders %" PRIu32 " vs %" PRIu32,
			      a->nopen, b->nopen);
	/* the same sequence of changes gives the same layout: slot by slot */
	for (uint32_t i = 0; ca->venue && i <= a->open_mask; i++) {
		const struct open_order *oa = &a->open[i], *ob = &b->open[i];

		if (oa->remaining != ob->remaining ||
		    (oa->remaining != 0 &&
		     (oa->user_ref != ob->user_ref ||
		      oa->locate != ob->locate || oa->side != ob->side)))
			return differ(why, whylen, "open order slot %" PRIu32
				      ": UserRefNum %" PRIu32 " (%" PRIu32
				      " open) vs %" PRIu32 " (%" PRIu32
				      " open)", i, oa->user_ref, oa->remaining,
				      ob->user_ref, ob->remaining);
	}
	if (a->stats.filled_shares != b->stats.filled_shares ||
	    a->stats.reduced_shares != b->stats.reduced_shares ||
	    a->stats.closed_orders != b->stats.closed_orders ||
	    a->stats.unknown_orders != b->stats.unknown_orders)
		return differ(why, whylen, "venue answers differ: filled %"
			      PRIu64 "/%" PRIu64 ", reduced %" PRIu64 "/%"
			      PRIu64 ", closed %" PRIu64 "/%" PRIu64
			      ", unknown %" PRIu64 "/%" PRIu64,
			      a->stats.filled_shares, b->stats.filled_shares,
			      a->stats.reduced_shares, b->stats.reduced_shares,
			      a->stats.closed_orders, b->stats.closed_orders,
			      a->stats.unknown_orders, b->stats.unknown_orders);
	if (a->stats.checked != b->stats.checked)
		return differ(why, whylen, "checked %" PRIu64 " vs %" PRIu64,
			      a->stats.checked, b->stats.checked);
	if (a->stats.passed != b->stats.passed)
		return differ(why, whylen, "passed %" PRIu64 " vs %" PRIu64,
			      a->stats.passed, b->stats.passed);
	for (int k = 0; k < HGW_RISK_MAX; k++)
		if (a->stats.rejects[k] != b->stats.rejects[k])
			return differ(why, whylen, "reject %s: %" PRIu64 " vs %"
				      PRIu64, reject_names[k],
				      a->stats.rejects[k],
				      b->stats.rejects[k]);
	return 0;
}
