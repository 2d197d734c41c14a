/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-inspect: ITCH 5.0 messages as text, one table row per field.
 *
 * Each type's fields are listed once, with offsets and sizes taken from
 * lib/itch's zero-copy views (offsetof/sizeof), so the printer and the
 * decoder cannot disagree on a layout; the key=value and JSON printers
 * both walk the same rows, so their keys cannot drift apart either.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "show.h"

enum kind {
	K_CHAR,		/* 1-byte alpha code: side, event code, flags */
	K_ALPHA,	/* space-padded text: stock, MPID, reason */
	K_NUM,		/* big-endian unsigned integer, 2, 4 or 8 bytes */
	K_PRICE4,	/* Price(4): 4 implied decimals */
	K_PRICE8,	/* Price(8): 8 implied decimals (MWCB levels) */
};

struct field {
	const char *key;
	uint8_t off;
	uint8_t len;
	uint8_t kind;
};

#define FLD(type, member, key, kind) \
	{ key, offsetof(type, member), sizeof(((type *)0)->member), kind }

#define T_S struct hgw_itch_system_event
static const struct field f_S[] = {
	FLD(T_S, event_code, "event", K_CHAR),
};
#define T_R struct hgw_itch_stock_directory
static const struct field f_R[] = {
	FLD(T_R, stock, "stock", K_ALPHA),
	FLD(T_R, market_category, "market_category", K_CHAR),
	FLD(T_R, financial_status, "financial_status", K_CHAR),
	FLD(T_R, round_lot_size, "round_lot", K_NUM),
	FLD(T_R, round_lots_only, "round_lots_only", K_CHAR),
	FLD(T_R, issue_classification, "issue_class", K_CHAR),
	FLD(T_R, issue_subtype, "issue_subtype", K_ALPHA),
	FLD(T_R, authenticity, "authenticity", K_CHAR),
	FLD(T_R, short_sale_threshold, "short_sale_threshold", K_CHAR),
	FLD(T_R, ipo_flag, "ipo_flag", K_CHAR),
	FLD(T_R, luld_tier, "luld_tier", K_CHAR),
	FLD(T_R, etp_flag, "etp_flag", K_CHAR),
	FLD(T_R, etp_leverage, "etp_leverage", K_NUM),
	FLD(T_R, inverse, "inverse", K_CHAR),
};
#define T_H struct hgw_itch_trading_action
static const struct field f_H[] = {
	FLD(T_H, stock, "stock", K_ALPHA),
	FLD(T_H, trading_state, "state", K_CHAR),
	FLD(T_H, reserved, "reserved", K_CHAR),
	FLD(T_H, reason, "reason", K_ALPHA),
};
#define T_Y struct hgw_itch_reg_sho
static const struct field f_Y[] = {
	FLD(T_Y, stock, "stock", K_ALPHA),
	FLD(T_Y, action, "action", K_CHAR),
};
#define T_L struct hgw_itch_market_participant
static const struct field f_L[] = {
	FLD(T_L, mpid, "mpid", K_ALPHA),
	FLD(T_L, stock, "stock", K_ALPHA),
	FLD(T_L, primary_mm, "primary_mm", K_CHAR),
	FLD(T_L, mode, "mode", K_CHAR),
	FLD(T_L, state, "state", K_CHAR),
};
#define T_V struct hgw_itch_mwcb_decline
static const struct field f_V[] = {
	FLD(T_V, level1, "level1", K_PRICE8),
	FLD(T_V, level2, "level2", K_PRICE8),
	FLD(T_V, level3, "level3", K_PRICE8),
};
#define T_W struct hgw_itch_mwcb_status
static const struct field f_W[] = {
	FLD(T_W, breached_level, "level", K_CHAR),
};
#define T_K struct hgw_itch_ipo_quoting
static const struct field f_K[] = {
	FLD(T_K, stock, "stock", K_ALPHA),
	FLD(T_K, release_time, "release_time", K_NUM),
	FLD(T_K, release_qualifier, "release_qualifier", K_CHAR),
	FLD(T_K, ipo_price, "price", K_PRICE4),
};
#define T_J struct hgw_itch_luld_collar
static const struct field f_J[] = {
	FLD(T_J, stock, "stock", K_ALPHA),
	FLD(T_J, reference_price, "ref_price", K_PRICE4),
	FLD(T_J, upper_price, "upper_price", K_PRICE4),
	FLD(T_J, lower_price, "lower_price", K_PRICE4),
	FLD(T_J, extension, "extension", K_NUM),
};
#define T_h struct hgw_itch_operational_halt
static const struct field f_h[] = {
	FLD(T_h, stock, "stock", K_ALPHA),
	FLD(T_h, market_code, "market_code", K_CHAR),
	FLD(T_h, action, "action", K_CHAR),
};
#define T_A struct hgw_itch_add_order
static const struct field f_A[] = {
	FLD(T_A, order_ref, "ref", K_NUM),
	FLD(T_A, side, "side", K_CHAR),
	FLD(T_A, shares, "shares", K_NUM),
	FLD(T_A, stock, "stock", K_ALPHA),
	FLD(T_A, price, "price", K_PRICE4),
};
#define T_F struct hgw_itch_add_order_mpid
static const struct field f_F[] = {
	FLD(T_F, a.order_ref, "ref", K_NUM),
	FLD(T_F, a.side, "side", K_CHAR),
	FLD(T_F, a.shares, "shares", K_NUM),
	FLD(T_F, a.stock, "stock", K_ALPHA),
	FLD(T_F, a.price, "price", K_PRICE4),
	FLD(T_F, attribution, "mpid", K_ALPHA),
};
#define T_E struct hgw_itch_order_executed
static const struct field f_E[] = {
	FLD(T_E, order_ref, "ref", K_NUM),
	FLD(T_E, executed_shares, "shares", K_NUM),
	FLD(T_E, match_number, "match", K_NUM),
};
#define T_C struct hgw_itch_order_executed_px
static const struct field f_C[] = {
	FLD(T_C, e.order_ref, "ref", K_NUM),
	FLD(T_C, e.executed_shares, "shares", K_NUM),
	FLD(T_C, e.match_number, "match", K_NUM),
	FLD(T_C, printable, "printable", K_CHAR),
	FLD(T_C, execution_price, "price", K_PRICE4),
};
#define T_X struct hgw_itch_order_cancel
static const struct field f_X[] = {
	FLD(T_X, order_ref, "ref", K_NUM),
	FLD(T_X, cancelled_shares, "shares", K_NUM),
};
#define T_D struct hgw_itch_order_delete
static const struct field f_D[] = {
	FLD(T_D, order_ref, "ref", K_NUM),
};
#define T_U struct hgw_itch_order_replace
static const struct field f_U[] = {
	FLD(T_U, original_ref, "orig_ref", K_NUM),
	FLD(T_U, new_ref, "new_ref", K_NUM),
	FLD(T_U, shares, "shares", K_NUM),
	FLD(T_U, price, "price", K_PRICE4),
};
#define T_P struct hgw_itch_trade
static const struct field f_P[] = {
	FLD(T_P, order_ref, "ref", K_NUM),
	FLD(T_P, side, "side", K_CHAR),
	FLD(T_P, shares, "shares", K_NUM),
	FLD(T_P, stock, "stock", K_ALPHA),
	FLD(T_P, price, "price", K_PRICE4),
	FLD(T_P, match_number, "match", K_NUM),
};
#define T_Q struct hgw_itch_cross_trade
static const struct field f_Q[] = {
	FLD(T_Q, shares, "shares", K_NUM),
	FLD(T_Q, stock, "stock", K_ALPHA),
	FLD(T_Q, cross_price, "price", K_PRICE4),
	FLD(T_Q, match_number, "match", K_NUM),
	FLD(T_Q, cross_type, "cross_type", K_CHAR),
};
#define T_B struct hgw_itch_broken_trade
static const struct field f_B[] = {
	FLD(T_B, match_number, "match", K_NUM),
};
#define T_I struct hgw_itch_noii
static const struct field f_I[] = {
	FLD(T_I, paired_shares, "paired_shares", K_NUM),
	FLD(T_I, imbalance_shares, "imbalance_shares", K_NUM),
	FLD(T_I, imbalance_direction, "direction", K_CHAR),
	FLD(T_I, stock, "stock", K_ALPHA),
	FLD(T_I, far_price, "far_price", K_PRICE4),
	FLD(T_I, near_price, "near_price", K_PRICE4),
	FLD(T_I, reference_price, "ref_price", K_PRICE4),
	FLD(T_I, cross_type, "cross_type", K_CHAR),
	FLD(T_I, price_variation, "price_variation", K_CHAR),
};
#define T_N struct hgw_itch_rpii
static const struct field f_N[] = {
	FLD(T_N, stock, "stock", K_ALPHA),
	FLD(T_N, interest_flag, "interest", K_CHAR),
};

struct desc {
	const char *name;
	const struct field *f;
	uint8_t n;
};

#define DESC(t, id, name) \
	[(uint8_t)(t)] = { name, f_##id, sizeof(f_##id) / sizeof(f_##id[0]) }

static const struct desc descs[256] = {
	DESC('S', S, "system_event"),
	DESC('R', R, "stock_directory"),
	DESC('H', H, "trading_action"),
	DESC('Y', Y, "reg_sho"),
	DESC('L', L, "market_participant"),
	DESC('V', V, "mwcb_decline"),
	DESC('W', W, "mwcb_status"),
	DESC('K', K, "ipo_quoting"),
	DESC('J', J, "luld_collar"),
	DESC('h', h, "operational_halt"),
	DESC('A', A, "add_order"),
	DESC('F', F, "add_order_mpid"),
	DESC('E', E, "order_executed"),
	DESC('C', C, "order_executed_price"),
	DESC('X', X, "order_cancel"),
	DESC('D', D, "order_delete"),
	DESC('U', U, "order_replace"),
	DESC('P', P, "trade"),
	DESC('Q', Q, "cross_trade"),
	DESC('B', B, "broken_trade"),
	DESC('I', I, "noii"),
	DESC('N', N, "rpii"),
};

const char *
show_type_name(uint8_t type)
{
	return descs[type].name;
}

const uint8_t *
show_stock(const uint8_t *msg)
{
	const struct desc *d = &descs[msg[0]];

	for (uint8_t i = 0; i < d->n; i++)
		if (strcmp(d->f[i].key, "stock") == 0)
			return msg + d->f[i].off;
	return NULL;
}

/* A line being built; appends past the end are cut, never overflow. */
struct out {
	char *p;
	size_t cap;
	size_t len;
};

static void __attribute__((format(printf, 2, 3)))
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->len += (size_t)n;
	if (o->len >= o->cap)
		o->len = o->cap - 1;
}

/* A byte that can stand in a key=value line unquoted. */
static int
bare(uint8_t c)
{
	return c > ' ' && c < 0x7F && c != '"' && c != '\\';
}

/* s[0..n) as a quoted string: text escapes as \xHH, JSON as \u00HH, so
 * a corrupted field is shown byte for byte and never breaks the line. */
static void
put_quoted(struct out *o, int json, const uint8_t *s, size_t n)
{
	put(o, "\"");
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c >= ' ' && c < 0x7F)
			put(o, "%c", c);
		else if (json)
			put(o, "\\u%04x", c);
		else
			put(o, "\\x%02x", c);
	}
	put(o, "\"");
}

/* A short code or name: bare in text when every byte allows it (the
 * common case, side=B), quoted otherwise (a blank or binary value). */
static void
put_word(struct out *o, int json, const uint8_t *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && bare(s[i]); i++)
		;
	if (!json && n != 0 && i == n)
		put(o, "%.*s", (int)n, (const char *)s);
	else
		put_quoted(o, json, s, n);
}

static void
put_key(struct out *o, int json, const char *key)
{
	if (json)
		put(o, "%s\"%s\":", o->len > 1 ? "," : "", key);
	else
		put(o, "%s%s=", o->len > 0 ? " " : "", key);
}

static size_t
trimmed(const uint8_t *s, size_t n, int nul_too)
{
	while (n > 0 && (s[n - 1] == ' ' || (nul_too && s[n - 1] == '\0')))
		n--;
	return n;
}

static void
put_field(struct out *o, int json, const struct field *f, const uint8_t *msg)
{
	const uint8_t *v = msg + f->off;
	uint64_t x;

	put_key(o, json, f->key);
	switch (f->kind) {
	case K_CHAR:
		put_word(o, json, v, 1);
		break;
	case K_ALPHA:
		put_quoted(o, json, v, trimmed(v, f->len, 0));
		break;
	case K_NUM:
		x = f->len == 2 ? hgw_be16(v) : f->len == 4 ? hgw_be32(v) : hgw_be64(v);
		put(o, "%" PRIu64, x);
		break;
	case K_PRICE4:
		x = hgw_be32(v);
		put(o, json ? "\"%" PRIu64 ".%04" PRIu64 "\"" : "%" PRIu64 ".%04" PRIu64,
		    x / 10000, x % 10000);
		break;
	case K_PRICE8:
		x = hgw_be64(v);
		put(o, json ? "\"%" PRIu64 ".%08" PRIu64 "\"" : "%" PRIu64 ".%08" PRIu64,
		    x / 100000000, x % 100000000);
		break;
	}
}

size_t
show_line(char *buf, size_t cap, int json, const struct show_at *at,
	  const uint8_t *msg)
{
	const struct desc *d = &descs[msg[0]];
	struct out o = { buf, cap, 0 };
	uint64_t ns = hgw_itch_timestamp(msg);
	uint64_t s = ns / 1000000000u;

	if (cap == 0)
		return 0;
	buf[0] = '\0';
	if (json)
		put(&o, "{");
	put_key(&o, json, "frame");
	put(&o, "%" PRIu64, at->frame);
	put_key(&o, json, "session");
	/* a zeroed (sanitised) session is NULs: shown blank, like spaces */
	put_word(&o, json, at->session,
		 trimmed(at->session, SHOW_SESSION_LEN, 1));
	put_key(&o, json, "seq");
	put(&o, "%" PRIu64, at->seq);
	put_key(&o, json, "type");
	if (json) {
		put(&o, "\"%c\"", msg[0]);
		put_key(&o, json, "type_name");
		put(&o, "\"%s\"", d->name);
	} else {
		put(&o, "%c(%s)", msg[0], d->name);
	}
	put_key(&o, json, "locate");
	put(&o, "%u", hgw_itch_locate(msg));
	put_key(&o, json, "tracking");
	put(&o, "%u", hgw_be16(((const struct hgw_itch_hdr *)msg)->tracking));
	/* Hours are not wrapped: a 48-bit stamp past midnight is shown as
	 * it is (24:00:00 or more), not hidden as an earlier time. */
	put_key(&o, json, "time");
	put(&o, json ? "\"%02" PRIu64 ":%02u:%02u.%09u\"" :
		       "%02" PRIu64 ":%02u:%02u.%09u",
	    s / 3600, (unsigned)(s / 60 % 60), (unsigned)(s % 60),
	    (unsigned)(ns % 1000000000u));
	for (uint8_t i = 0; i < d->n; i++)
		put_field(&o, json, &d->f[i], msg);
	put(&o, json ? "}\n" : "\n");
	/* keep the newline when the line was cut */
	if (o.len == cap - 1 && buf[o.len - 1] != '\n')
		buf[o.len - 1] = '\n';
	return o.len;
}
