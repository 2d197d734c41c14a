/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the venue session's gate and relay messages (hgw_vgate.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hgw_order.h"
#include "hgw_soupbin.h"
#include "hgw_vgate.h"
#include "hgw_vgate_internal.h"

static const char *const unsent_names[] = {
#define HGW_VGATE_X(c, s) s,
	HGW_VGATE_UNSENT_REASONS(HGW_VGATE_X)
#undef HGW_VGATE_X
};

int
hgw_vgate_gate_init(struct hgw_vgate_gate *g, uint32_t cap_total,
		    uint32_t cap_symbol, uint32_t nsyms, uint32_t open_max,
		    uint64_t hz, uint64_t floor)
{
	memset(g, 0, sizeof(*g));
	if (open_max == 0 || hz == 0 ||
	    (cap_symbol != 0 && (nsyms == 0 || (nsyms & (nsyms - 1)) != 0)))
		return -EINVAL;
	g->floor = floor;
	g->hz = hz;
	g->cap_total = cap_total;
	g->cap_symbol = cap_symbol;
	g->open_max = open_max;
	g->open = calloc(open_max, sizeof(*g->open));
	if (cap_total != 0)
		g->total_times = calloc(cap_total, sizeof(uint64_t));
	if (cap_symbol != 0) {
		g->nsyms = nsyms;
		g->syms = calloc(nsyms, sizeof(*g->syms));
		g->sym_times = calloc((size_t)nsyms * cap_symbol,
				      sizeof(uint64_t));
	}
	if (g->open == NULL || (cap_total != 0 && g->total_times == NULL) ||
	    (cap_symbol != 0 && (g->syms == NULL || g->sym_times == NULL))) {
		hgw_vgate_gate_fini(g);
		return -ENOMEM;
	}
	return 0;
}

void
hgw_vgate_gate_fini(struct hgw_vgate_gate *g)
{
	free(g->open);
	free(g->total_times);
	free(g->syms);
	free(g->sym_times);
	g->open = NULL;
	g->total_times = g->sym_times = NULL;
	g->syms = NULL;
	g->open_n = g->open_max = 0;
}

void
hgw_vgate_gate_compact(struct hgw_vgate_gate *g)
{
	hgw_vgate_open_compact(g->open, &g->open_n);
	if (g->cancel_next > g->open_n)
		g->cancel_next = g->open_n;
}

uint32_t
hgw_vgate_gate_owed(const struct hgw_vgate_gate *g, uint32_t cod_login)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < g->open_n; i++)
		n += g->open[i].qty != 0 && g->open[i].cancel_sent &&
		     g->open[i].login >= cod_login;
	return n;
}

int
hgw_vgate_gate_sweep(struct hgw_vgate_gate *g, uint32_t cod_login)
{
	int owed = 0;

	hgw_vgate_gate_compact(g);
	g->cancel_next = 0;
	for (uint32_t i = 0; i < g->open_n && !owed; i++)
		owed = g->open[i].qty != 0 && g->open[i].login >= cod_login;
	return owed;
}

/* symbol slot's ring of send times */
static uint64_t *
sym_times(struct hgw_vgate_gate *g, const struct hgw_venue_sym *slot)
{
	return g->sym_times + (size_t)(slot - g->syms) * g->cap_symbol;
}

uint32_t
hgw_vgate_admit(struct hgw_vgate_gate *g, uint32_t ref, uint64_t sym,
		uint64_t now, struct hgw_venue_sym **slot)
{
	struct hgw_venue_sym *y = NULL;

	*slot = NULL;
	if (ref <= g->floor)
		return HGW_VGATE_UNSENT_USER_REF;
	if (g->cap_total != 0 &&
	    hgw_vgate_window_full(g->total_times, g->total_head, g->total_n,
				  g->cap_total, now, g->hz))
		return HGW_VGATE_UNSENT_RATE_TOTAL;
	if (g->cap_symbol != 0) {
		y = hgw_vgate_sym_slot(g->syms, g->nsyms, sym);
		if (y == NULL)
			return HGW_VGATE_UNSENT_SYMBOLS_FULL;
		if (hgw_vgate_window_full(sym_times(g, y), y->head, y->n,
					  g->cap_symbol, now, g->hz))
			return HGW_VGATE_UNSENT_RATE_SYMBOL;
	}
	if (g->open_n == g->open_max) {
		hgw_vgate_gate_compact(g);
		if (g->open_n == g->open_max)
			return HGW_VGATE_UNSENT_OPEN_FULL;
	}
	*slot = y;
	return HGW_VGATE_UNSENT_MAX;
}

struct hgw_venue_open *
hgw_vgate_commit_sent(struct hgw_vgate_gate *g, uint32_t ref, uint32_t qty)
{
	uint32_t i = g->open_n;

	if (i == g->open_max) {
		hgw_vgate_gate_compact(g);
		i = g->open_n;
		if (i == g->open_max)
			return NULL;
	}
	/* from the end: an order learnt of late is a few places back */
	while (i > 0 && g->open[i - 1].user_ref > ref)
		i--;
	memmove(&g->open[i + 1], &g->open[i],
		(g->open_n - i) * sizeof(g->open[0]));
	g->open_n++;
	/* a kill's cancels walk the table by index: the entries after
	 * this one moved up by one */
	if (i < g->cancel_next)
		g->cancel_next++;
	if (ref > g->floor)
		g->floor = ref;
	g->open[i] = (struct hgw_venue_open){ .user_ref = ref, .qty = qty,
					      .entered = qty };
	return &g->open[i];
}

struct hgw_venue_open *
hgw_vgate_commit(struct hgw_vgate_gate *g, uint32_t ref, uint32_t qty)
{
	struct hgw_venue_open *o = &g->open[g->open_n++];

	g->floor = ref;
	*o = (struct hgw_venue_open){ .user_ref = ref, .qty = qty,
				      .entered = qty };
	return o;
}

void
hgw_vgate_sent(struct hgw_vgate_gate *g, struct hgw_venue_sym *slot,
	       uint64_t now)
{
	if (g->cap_total != 0)
		hgw_vgate_window_add(g->total_times, &g->total_head,
				     &g->total_n, g->cap_total, now);
	if (slot != NULL)
		hgw_vgate_window_add(sym_times(g, slot), &slot->head, &slot->n,
				     g->cap_symbol, now);
}

const char *
hgw_vgate_unsent_name(uint32_t why)
{
	return why < HGW_VGATE_UNSENT_MAX ? unsent_names[why] : "?";
}

static uint32_t
today(void)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	return (uint32_t)((tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 +
			  tm.tm_mday);
}

struct hgw_venue_state *
hgw_vgate_state_map(const char *path, uint64_t *floor, char *err,
		    size_t errlen)
{
	struct hgw_venue_state *st;
	struct stat sb;
	/* O_NOFOLLOW: a symbolic link there is refused, never written
	 * through */
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	uint32_t day = today();

	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 errno == ELOOP ? "a symbolic link (refused)" :
			 strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", path);
		close(fd);
		return NULL;
	}
	if (sb.st_size != 0 && sb.st_size != 4096) {
		snprintf(err, errlen, "'%s' is %lld bytes, not a state file "
			 "(4096)", path, (long long)sb.st_size);
		close(fd);
		return NULL;
	}
	if (sb.st_size == 0 && ftruncate(fd, 4096) != 0) {
		snprintf(err, errlen, "cannot size '%s': %s", path,
			 strerror(errno));
		close(fd);
		return NULL;
	}
	st = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (st == MAP_FAILED) {
		snprintf(err, errlen, "cannot map '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	if (sb.st_size != 0 && memcmp(st->magic, "HGWVST1", 8) != 0) {
		snprintf(err, errlen, "'%s' is not a hedgewire state file",
			 path);
		munmap(st, 4096);
		return NULL;
	}
	if (sb.st_size == 0 || st->day != day) {
		memset(st, 0, sizeof(*st));
		memcpy(st->magic, "HGWVST1", 8);
		st->day = day;
		atomic_store_explicit(&st->last_user_ref, 0,
				      memory_order_relaxed);
		if (msync(st, 4096, MS_SYNC) != 0) {
			snprintf(err, errlen, "cannot write '%s': %s", path,
				 strerror(errno));
			munmap(st, 4096);
			return NULL;
		}
	}
	*floor = atomic_load_explicit(&st->last_user_ref,
				      memory_order_relaxed);
	return st;
}

int
hgw_vgate_state_start(struct hgw_venue_state *st, uint64_t floor0, int cod)
{
	int open = floor0 != 0 &&
		   (st->ended_clean ? st->open_at_end != 0 : !cod);

	st->ended_clean = 0;
	st->open_at_end = 0;
	return open;
}

void
hgw_vgate_state_end(struct hgw_venue_state *st,
		    const struct hgw_venue_open *open, uint32_t n)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++)
		k += open[i].qty != 0;
	st->open_at_end = k;
	st->ended_clean = 1;
}

void
hgw_vgate_state_unmap(struct hgw_venue_state *st)
{
	if (st != NULL)
		munmap(st, 4096);
}

static const char *const lie_names[] = {
#define HGW_VGATE_X(c, s) s,
	HGW_VGATE_LIES(HGW_VGATE_X)
#undef HGW_VGATE_X
};

const char *
hgw_vgate_lie_name(uint32_t lie)
{
	return lie < HGW_VGATE_LIE_MAX ? lie_names[lie] : "?";
}

static uint32_t
lie(struct hgw_vgate_lie_rec *rec, const struct hgw_ouch_answer *a,
    uint32_t what, uint64_t ours, uint64_t theirs)
{
	*rec = (struct hgw_vgate_lie_rec){ .seq = a->seq, .ours = ours,
		.theirs = theirs, .lie = what, .user_ref = a->user_ref,
		.type = a->type };
	return what;
}

uint32_t
hgw_vgate_open_answer(struct hgw_venue_open *open, uint32_t n,
		      uint64_t before, const struct hgw_ouch_answer *a,
		      uint64_t *cancelled, uint64_t *cancelled_qty,
		      struct hgw_vgate_lie_rec *rec)
{
	struct hgw_venue_open *o;

	if (a->type == HGW_OUCH_SYSTEM_EVENT)
		return HGW_VGATE_LIE_NONE;
	if (a->type == HGW_OUCH_REPLACED) {
		/* the venue replaced an order of ours: we never ask it to,
		 * and the order it names now is one the replicas hold
		 * nowhere (and may be a UserRefNum still to come) */
		o = hgw_vgate_open_find(open, n, a->orig_user_ref);
		return lie(rec, a, HGW_VGATE_LIE_REPLACED,
			   o != NULL ? o->qty : 0, a->qty);
	}
	if (a->user_ref <= before)
		return HGW_VGATE_LIE_NONE;      /* an earlier run's order */
	o = hgw_vgate_open_find(open, n, a->user_ref);
	if (o != NULL && o->qty == 0)
		o = NULL;       /* done: closed by the venue, or never had */
	switch (a->type) {
	case HGW_OUCH_ACCEPTED:
	case HGW_OUCH_MODIFIED:
		if (o == NULL)
			return lie(rec, a, HGW_VGATE_LIE_NOT_OPEN, 0, a->qty);
		if (a->type == HGW_OUCH_ACCEPTED && o->accepted)
			/* a second one would open again what filled */
			return lie(rec, a, HGW_VGATE_LIE_ACCEPTED_AGAIN, o->qty,
				   a->qty);
		/* what is open can never be more than entered less filled
		 * (filled <= entered: an overfill is a kill) */
		if (a->qty > o->entered - o->filled) {
			uint64_t ours = o->entered - o->filled;

			o->qty = a->qty;
			return lie(rec, a, HGW_VGATE_LIE_OVER_ENTERED, ours,
				   a->qty);
		}
		if (a->type == HGW_OUCH_ACCEPTED)
			o->accepted = 1;
		/* accepted dead: canceled at once, no Canceled follows */
		o->qty = a->type == HGW_OUCH_ACCEPTED &&
			 a->reason == 'D' ? 0 : a->qty;
		break;
	case HGW_OUCH_RESTATED:
		/* its shown quantity can be no more than was entered */
		if (o == NULL)
			return lie(rec, a, HGW_VGATE_LIE_NOT_OPEN, 0, a->qty);
		if (a->has_qty && a->qty > o->entered)
			return lie(rec, a, HGW_VGATE_LIE_OVER_ENTERED,
				   o->entered, a->qty);
		break;
	case HGW_OUCH_EXECUTED:
		if (o == NULL)
			return lie(rec, a, HGW_VGATE_LIE_NOT_OPEN, 0, a->qty);
		if (a->qty > o->qty) {
			uint64_t ours = o->qty;

			o->qty = 0;
			return lie(rec, a, HGW_VGATE_LIE_OVERFILL, ours,
				   a->qty);
		}
		o->qty -= a->qty;
		o->filled += a->qty;
		break;
	case HGW_OUCH_CANCELED:
		if (o == NULL)
			break;  /* moves no shares of ours */
		/* the answer to our Cancel Order, by its reason: a Canceled
		 * of another reason (an IOC's remainder, say) may still be on
		 * its way when the kill's Cancel Order goes out, which the
		 * venue then rejects */
		if (o->cancel_sent && a->reason == HGW_OUCH_CANCEL_USER) {
			(*cancelled)++;
			*cancelled_qty += a->qty;
		}
		/* fall through */
	case HGW_OUCH_AIQ_CANCELED:
		if (o != NULL)
			o->qty = o->qty > a->qty ? o->qty - a->qty : 0;
		break;
	case HGW_OUCH_REJECTED:
		if (o != NULL)
			o->qty = 0;
		break;
	case HGW_OUCH_CANCEL_REJECT:
		/* answered: the venue cannot cancel it (what it still has
		 * open, it answers for as ever) */
		if (o != NULL)
			o->cancel_sent = 0;
		break;
	default:
		break;
	}
	return HGW_VGATE_LIE_NONE;
}

int
hgw_vgate_cancel_run(struct hgw_soup *s, struct hgw_venue_open *open,
		     uint32_t n, uint32_t *next, uint32_t cod_login,
		     uint64_t now_ns, uint64_t *sent)
{
	while (*next < n) {
		struct hgw_venue_open *o = &open[*next];
		uint8_t x[HGW_OUCH_CANCEL_ORDER_LEN];

		if (o->qty != 0 && o->login >= cod_login) {
			hgw_ouch_cancel_order(x, o->user_ref, 0);
			if (hgw_soup_send(s, x, sizeof(x), now_ns) != 0)
				return 0;       /* full or down: later */
			(*sent)++;
			o->cancel_sent = 1;
		}
		(*next)++;
	}
	return 1;
}

/* ---- SipHash-2-4 (Aumasson, Bernstein: "SipHash: a fast short-input
 * PRF", 2012): the message in 8-byte little-endian words, the last one
 * holding the length mod 256 in its top byte; 2 rounds a word, 4 at the
 * end. */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                            \
	do {                                                                \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);   \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                      \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                      \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);   \
	} while (0)

static uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t
hgw_siphash24(const struct hgw_relay_key *k, const uint8_t *p, size_t n)
{
	uint64_t v0 = k->k0 ^ 0x736f6d6570736575ull;
	uint64_t v1 = k->k1 ^ 0x646f72616e646f6dull;
	uint64_t v2 = k->k0 ^ 0x6c7967656e657261ull;
	uint64_t v3 = k->k1 ^ 0x7465646279746573ull;
	uint64_t m, b = (uint64_t)n << 56;
	size_t i, left = n & 7;

	for (i = 0; i + 8 <= n; i += 8) {
		m = le64(p + i);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (size_t j = 0; j < left; j++)
		b |= (uint64_t)p[i + j] << (8 * j);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The two keys of a pair, one a direction, from the venue login both are
 * configured with: SipHash under a fixed key (a public constant: the
 * secret is the login) of "HGWRKEY", the direction, the half, then
 * username, password and session each ended by a NUL. */
void
hgw_relay_key_derive(struct hgw_relay_key *k, int dir, const char *user,
		     const char *password, const char *session)
{
	static const struct hgw_relay_key fixed = {
		0x6865646765776972ull, 0x652072656c617920ull };
	uint8_t m[8 + 3 * 64];
	size_t n = 9;
	const char *f[3] = { user, password, session };

	memcpy(m, "HGWRKEY", 7);
	m[7] = (uint8_t)dir;
	for (int i = 0; i < 3; i++) {
		size_t l = f[i] != NULL ? strnlen(f[i], 63) : 0;

		memcpy(m + n, f[i] != NULL ? f[i] : "", l);
		n += l;
		m[n++] = 0;
	}
	m[8] = 0;
	k->k0 = hgw_siphash24(&fixed, m, n);
	m[8] = 1;
	k->k1 = hgw_siphash24(&fixed, m, n);
}

size_t
hgw_relay_put(uint8_t *buf, const struct hgw_relay_key *k, uint64_t rseq,
	      uint8_t type, const uint8_t *body, size_t blen)
{
	size_t n = HGW_RELAY_HDR + blen;

	memcpy(buf, "HGWR", 4);
	hgw_vgate_be(buf + 4, rseq, 8);
	hgw_vgate_be(buf + 12, blen + 1 + HGW_RELAY_TAG, 2);
	buf[14] = type;
	if (blen != 0)
		memcpy(buf + HGW_RELAY_HDR, body, blen);
	hgw_vgate_be(buf + n, hgw_siphash24(k, buf, n), HGW_RELAY_TAG);
	return n + HGW_RELAY_TAG;
}

int
hgw_relay_get(const uint8_t *p, size_t len, uint64_t *rseq, uint8_t *type,
	      const uint8_t **body, size_t *blen)
{
	uint64_t l;

	if (len < 4 || memcmp(p, "HGWR", 4) != 0)
		return 1;
	if (len < HGW_RELAY_HDR + HGW_RELAY_TAG)
		return -1;
	l = hgw_vgate_get_be(p + 12, 2);
	if (l < 1 + HGW_RELAY_TAG || l + 14 != len)
		return -1;
	*rseq = hgw_vgate_get_be(p + 4, 8);
	*type = p[14];
	*body = p + HGW_RELAY_HDR;
	*blen = (size_t)l - 1 - HGW_RELAY_TAG;
	return 0;
}

static const char *const drop_names[] = {
#define HGW_VGATE_X(c, s) s,
	HGW_RELAY_DROPS(HGW_VGATE_X)
#undef HGW_VGATE_X
};

const char *
hgw_relay_drop_name(uint32_t why)
{
	return why < HGW_RELAY_DROP_MAX ? drop_names[why] : "?";
}

void
hgw_relay_rx_peer(struct hgw_relay_rx *rx, const uint8_t peer_mac[6],
		  uint32_t peer_ip, uint16_t peer_port, uint32_t our_ip,
		  uint16_t our_port)
{
	memcpy(rx->peer_mac, peer_mac, 6);
	rx->peer_ip = peer_ip;
	rx->peer_port = peer_port;
	rx->our_ip = our_ip;
	rx->our_port = our_port;
	rx->peer_set = 1;
}

static int
drop(struct hgw_relay_rx *rx, enum hgw_relay_drop why)
{
	rx->drops[why]++;
	return -1;
}

/* f (an IPv4/UDP frame) comes from the peer to us, or no peer is set. */
static int
from_peer(const struct hgw_relay_rx *rx, const uint8_t *f)
{
	size_t ihl = (size_t)(f[14] & 0xf) * 4;

	return !rx->peer_set ||
	       (memcmp(f + 6, rx->peer_mac, 6) == 0 &&
		hgw_vgate_get_be(f + 26, 4) == rx->peer_ip &&
		hgw_vgate_get_be(f + 30, 4) == rx->our_ip &&
		hgw_vgate_get_be(f + 14 + ihl, 2) == rx->peer_port &&
		hgw_vgate_get_be(f + 14 + ihl + 2, 2) == rx->our_port);
}

void
hgw_relay_key_run(struct hgw_relay_key *run, const struct hgw_relay_key *login,
		  const uint8_t nh[HGW_RELAY_NONCE],
		  const uint8_t nd[HGW_RELAY_NONCE])
{
	uint8_t m[8 + 2 * HGW_RELAY_NONCE];

	memcpy(m, "HGWRRUN", 7);
	memcpy(m + 8, nh, HGW_RELAY_NONCE);
	memcpy(m + 8 + HGW_RELAY_NONCE, nd, HGW_RELAY_NONCE);
	m[7] = 0;
	run->k0 = hgw_siphash24(login, m, sizeof(m));
	m[7] = 1;
	run->k1 = hgw_siphash24(login, m, sizeof(m));
}

size_t
hgw_relay_hello_put(uint8_t *buf, const struct hgw_relay_key *login,
		    uint8_t kind, const uint8_t *nonces, size_t nn)
{
	memcpy(buf, "HGWH", 4);
	buf[4] = kind;
	memcpy(buf + 5, nonces, nn);
	hgw_vgate_be(buf + 5 + nn, hgw_siphash24(login, buf, 5 + nn),
		     HGW_RELAY_TAG);
	return 5 + nn + HGW_RELAY_TAG;
}

int
hgw_relay_hello_rx(struct hgw_relay_rx *rx, const struct hgw_relay_key *login,
		   const uint8_t *f, size_t len, uint8_t *kind,
		   uint8_t *nonces, size_t *nn)
{
	const uint8_t *p;
	size_t plen;

	if (hgw_relay_udp_payload(f, len, &p, &plen) != 0 ||
	    plen < 4 || memcmp(p, "HGWH", 4) != 0)
		return 1;
	if (!from_peer(rx, f))
		return drop(rx, HGW_RELAY_DROP_PEER);
	if (plen != 5 + HGW_RELAY_NONCE + HGW_RELAY_TAG &&
	    plen != 5 + 2 * HGW_RELAY_NONCE + HGW_RELAY_TAG)
		return drop(rx, HGW_RELAY_DROP_MALFORMED);
	if (hgw_vgate_get_be(p + plen - HGW_RELAY_TAG, HGW_RELAY_TAG) !=
	    hgw_siphash24(login, p, plen - HGW_RELAY_TAG))
		return drop(rx, HGW_RELAY_DROP_KEY);
	*kind = p[4];
	*nn = plen - 5 - HGW_RELAY_TAG;
	memcpy(nonces, p + 5, *nn);
	return 0;
}

void
hgw_relay_retag(uint8_t *msg, size_t len, const struct hgw_relay_key *k)
{
	hgw_vgate_be(msg + len - HGW_RELAY_TAG,
		     hgw_siphash24(k, msg, len - HGW_RELAY_TAG), HGW_RELAY_TAG);
}

int
hgw_relay_rx(struct hgw_relay_rx *rx, const uint8_t *f, size_t len,
	     uint64_t *rseq, uint8_t *type, const uint8_t **body, size_t *blen)
{
	const uint8_t *p;
	size_t plen;
	uint64_t seq;
	int rc;

	if (hgw_relay_udp_payload(f, len, &p, &plen) != 0 ||
	    plen < 4 || memcmp(p, "HGWR", 4) != 0)
		return 1;
	if (!from_peer(rx, f))
		return drop(rx, HGW_RELAY_DROP_PEER);
	rc = hgw_relay_get(p, plen, &seq, type, body, blen);
	if (rc != 0)
		return drop(rx, HGW_RELAY_DROP_MALFORMED);
	/* one 64-bit compare: no byte-at-a-time timing to learn from */
	if (hgw_vgate_get_be(p + plen - HGW_RELAY_TAG, HGW_RELAY_TAG) !=
	    hgw_siphash24(&rx->key, p, plen - HGW_RELAY_TAG))
		return drop(rx, HGW_RELAY_DROP_KEY);
	if (seq <= rx->last)
		return drop(rx, HGW_RELAY_DROP_OLD);
	if (seq - rx->last > HGW_RELAY_WINDOW)
		return drop(rx, HGW_RELAY_DROP_AHEAD);
	rx->last = seq;
	*rseq = seq;
	return 0;
}

int
hgw_relay_udp_payload(const uint8_t *f, size_t len, const uint8_t **p,
		      size_t *plen)
{
	size_t ihl, ulen;

	if (len < 42 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4)
		return -1;
	ihl = (size_t)(f[14] & 0xf) * 4;
	if (ihl < 20 || f[23] != 17 || len < 14 + ihl + 8)
		return -1;
	ulen = (size_t)f[14 + ihl + 4] << 8 | f[14 + ihl + 5];
	if (ulen < 8 || 14 + ihl + ulen > len)
		return -1;
	*p = f + 14 + ihl + 8;
	*plen = ulen - 8;
	return 0;
}
