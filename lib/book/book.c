/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: per-worker limit order book built from ITCH 5.0 messages.
 *
 * Memory (one caller-provided block, every part 64-byte aligned):
 *
 *   struct hgw_book | book_inst[max_instruments]
 *   | side[max_instruments][2] | book_ord[window] | book_ovf[capacity]
 *
 * where a side is int32 keys[KEYS_BELOW + max_levels + LEVEL_PAD] (cache-
 * line rounded) followed by book_level[max_levels + LEVEL_PAD].
 *
 * Orders live in a window indexed directly by the low bits of their
 * reference: ITCH assigns references from one increasing counter, so the
 * live orders are a dense run of recent references, and the window (a
 * power of two >= max_orders, at most 2^BOOK_WINDOW_SHIFT slots of 16
 * bytes: 16 MB) holds almost all of them with no hashing and no probing.
 * A slot keeps the reference's high bits (tag) to tell references that
 * share it apart. When a new reference needs a slot held by an older
 * live order (one that survived a whole window of newer references), the
 * older one moves to the overflow table; a reference beyond the tag's
 * range goes there directly.
 *
 * The overflow table is an open-addressing hash table keyed by order
 * reference (linear probing, backward-shift deletion, so no tombstones and
 * probe sequences never degrade with churn). Capacity is the power of two
 * >= 2 * max_orders, so the load factor never exceeds 1/2 and an insert
 * always finds a free slot. The lowest and highest reference it holds
 * bound the lookups that need it: with increasing references a lookup
 * that misses the window (an add, or an unknown reference) almost never
 * probes it.
 *
 * Price levels are, per instrument and side, a sorted array whose best
 * price sits at the END: almost all activity is near the touch, so the
 * linear search from the top is short and inserting or removing a level
 * moves only the few levels better than it.
 *
 * The order reference is authoritative: E/C/X/D/U act on the order the
 * reference names even when the message's stock locate differs from the
 * locate the order was added with (counted as LOCATE_MISMATCH), because
 * ITCH defines the reference as unique for the day across all stocks and
 * the locate in those messages is redundant.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hgw_itch.h"
#include "hgw_book.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define BOOK_ALIGN HGW_BOOK_ALIGN
#define BOOK_BID 0
#define BOOK_ASK 1
#define BOOK_NOT_FOUND UINT64_MAX

/* One live order: 16 bytes, 4 to a cache line (a slot never straddles
 * two). */
struct book_ord {
	uint32_t tag;      /* window: ref >> win_shift; overflow: unused */
	uint32_t price;
	uint32_t shares;   /* remaining displayed shares */
	uint16_t locate;
	uint8_t side;      /* BOOK_BID or BOOK_ASK */
	uint8_t used;      /* 0: free slot (refs may legally be any value) */
};
_Static_assert(sizeof(struct book_ord) == 16, "order slot size");

/* An overflow slot: the whole reference, then the order. */
struct book_ovf {
	uint64_t ref;
	struct book_ord o;
};
_Static_assert(sizeof(struct book_ovf) == 24, "overflow slot size");

/* Largest window: 2^20 slots of 16 bytes, 16 MB. Measured (bench_feed on
 * the 10 M message, 500-instrument feed: 77 k live orders, but live
 * references spanning several times that, as orders are deleted at random)
 * decode + book bulk from the ITCH file, CPU time, best of 3 passes in
 * two runs, M msg/s: window 2^17 (2 MB, an L2) 15.7-17.3, 2^18 21.0-21.4,
 * 2^19 24.0-24.2, 2^20 24.0-24.3 (with the two-stage prefetch of before,
 * 2^21 measured as 2^20): below 2^19 the evictions to the overflow table
 * cost more than the L2 fit saves. */
#define BOOK_WINDOW_SHIFT 20

/* Price levels of one instrument side, split into a key array and a
 * payload array so the search reads only keys (16 to a 64-byte window).
 * The key is the price for bids and ~price for asks, so both sides are
 * ascending by key with the best level last and share one code path with
 * no branch on the side. Keys are stored biased (key ^ 2^31, as int32) so
 * a signed vector compare orders them on every ISA; KEYS_BELOW entries of
 * INT32_MIN (below any real key: key 0 means price 0, which is refused)
 * sit before index 0 so a window may start below it, and LEVEL_PAD spare
 * entries after max_levels let a shift move a fixed LEVEL_PAD entries. */
#define LEVEL_PAD 8
#define KEYS_BELOW 16

struct book_level {
	uint64_t shares;
	uint32_t orders;
	uint32_t pad;
};
_Static_assert(sizeof(struct book_level) == 16, "level size");

typedef int32_t book_keyv __attribute__((vector_size(16)));

struct book_inst {
	uint32_t nlevels[2];              /* used entries of each side array */
	uint32_t last_trade;
	uint8_t has_name;
	char name[HGW_ITCH_STOCK_LEN + 1]; /* NUL-terminated for callers */
	uint8_t pad[10];
};
_Static_assert(sizeof(struct book_inst) == 32, "instrument size");

struct hgw_book {
	struct hgw_book_conf conf;
	uint32_t win_shift;        /* log2(window) */
	uint64_t win_mask;         /* window - 1 */
	struct book_ord *win;
	struct book_inst *inst;
	uint8_t *levels;
	size_t side_bytes;         /* one side: keys then payload */
	size_t keys_bytes;         /* the key part of a side */
	uint32_t hash_shift;       /* log2(overflow capacity) */
	uint64_t hash_mask;        /* overflow capacity - 1 */
	struct book_ovf *ovf;
	uint64_t ovf_live;         /* orders in the overflow table */
	uint64_t ovf_lo, ovf_hi;   /* their lowest and highest ref (lo > hi:
				    * none since the table was last empty) */
	struct hgw_book_stats stats;
} __attribute__((aligned(BOOK_ALIGN)));

struct book_layout {
	uint64_t capacity;
	uint32_t hash_shift;
	uint32_t win_shift;
	size_t side_bytes;
	size_t keys_bytes;
	size_t inst_off;
	size_t level_off;
	size_t win_off;
	size_t order_off;
	size_t total;
};

static const char *const book_err_names[HGW_BOOK_ERR_MAX] = {
#define BOOK_ERR_NAME(code, name, help) [HGW_BOOK_ERR_##code] = name,
	HGW_BOOK_ERRORS(BOOK_ERR_NAME)
#undef BOOK_ERR_NAME
};

static const char *const book_err_helps[HGW_BOOK_ERR_MAX] = {
#define BOOK_ERR_HELP(code, name, help) [HGW_BOOK_ERR_##code] = help,
	HGW_BOOK_ERRORS(BOOK_ERR_HELP)
#undef BOOK_ERR_HELP
};

/* Returns NULL for a value outside the enum. */
const char *
hgw_book_error_name(enum hgw_book_error e)
{
	return (unsigned int)e < HGW_BOOK_ERR_MAX ? book_err_names[e] : NULL;
}

const char *
hgw_book_error_help(enum hgw_book_error e)
{
	return (unsigned int)e < HGW_BOOK_ERR_MAX ? book_err_helps[e] : NULL;
}

static size_t
align_up(size_t v)
{
	return (v + BOOK_ALIGN - 1) & ~(size_t)(BOOK_ALIGN - 1);
}

/* Compute where everything goes; -1 on an invalid conf or a size that does
 * not fit in size_t (possible with a huge max_levels on 32-bit hosts). */
static int
book_layout(const struct hgw_book_conf *conf, struct book_layout *l)
{
	size_t sz, off;

	if (conf == NULL || conf->max_instruments == 0 ||
	    conf->max_orders == 0 || conf->max_levels == 0 ||
	    conf->max_instruments > 65536 || conf->max_orders > (1u << 30))
		return -1;

	l->hash_shift = 1;
	while ((1ull << l->hash_shift) < 2ull * conf->max_orders)
		l->hash_shift++;
	l->capacity = 1ull << l->hash_shift;
	l->win_shift = 0;
	while ((1ull << l->win_shift) < conf->max_orders &&
	       l->win_shift < BOOK_WINDOW_SHIFT)
		l->win_shift++;

	off = align_up(sizeof(struct hgw_book));
	l->inst_off = off;
	off += align_up((size_t)conf->max_instruments *
			sizeof(struct book_inst));
	l->level_off = off;

	/* Payload and keys: at most 20 * (max_levels + KEYS_BELOW +
	 * LEVEL_PAD) bytes plus rounding. Level indexes are int32 in the
	 * search (a window may start below index 0). */
	if (conf->max_levels > INT32_MAX - KEYS_BELOW - LEVEL_PAD ||
	    __builtin_add_overflow((size_t)conf->max_levels,
				   (size_t)(KEYS_BELOW + LEVEL_PAD), &sz) ||
	    __builtin_mul_overflow(sz, sizeof(struct book_level) +
				   sizeof(int32_t), &sz) ||
	    sz > SIZE_MAX - 4 * BOOK_ALIGN)
		return -1;
	l->keys_bytes = align_up(((size_t)conf->max_levels + KEYS_BELOW +
				  LEVEL_PAD) * sizeof(int32_t));
	sz = l->keys_bytes + align_up(((size_t)conf->max_levels + LEVEL_PAD) *
				      sizeof(struct book_level));
	/* An odd number of cache lines per side: with a power-of-two
	 * stride every side's touch would map to the same few cache sets
	 * (measured: 14% fewer L1 misses in cachegrind with 256 levels). */
	if ((sz / BOOK_ALIGN) % 2 == 0)
		sz += BOOK_ALIGN;
	l->side_bytes = sz;
	if (__builtin_mul_overflow(sz,
				   (size_t)conf->max_instruments * 2, &sz) ||
	    __builtin_add_overflow(off, sz, &off))
		return -1;

	l->win_off = off;
	if (__builtin_add_overflow(off, sizeof(struct book_ord) <<
				   l->win_shift, &off))
		return -1;
	l->order_off = off;
	if (l->capacity > SIZE_MAX / sizeof(struct book_ovf) ||
	    __builtin_add_overflow(off, (size_t)l->capacity *
				   sizeof(struct book_ovf), &off) ||
	    off > SIZE_MAX - BOOK_ALIGN)
		return -1;
	/* A whole number of cache lines, so aligned_alloc(64, size) is legal
	 * C11 as it is. */
	l->total = align_up(off);
	return 0;
}

size_t
hgw_book_memsize(const struct hgw_book_conf *conf)
{
	struct book_layout l;

	return book_layout(conf, &l) == 0 ? l.total : 0;
}

struct hgw_book *
hgw_book_init(void *mem, const struct hgw_book_conf *conf)
{
	struct book_layout l;
	struct hgw_book *b = mem;
	uint8_t *base = mem;

	if (mem == NULL || ((uintptr_t)mem & (BOOK_ALIGN - 1)) != 0 ||
	    book_layout(conf, &l) != 0) {
		errno = EINVAL;
		return NULL;
	}
	memset(b, 0, sizeof(*b));
	b->conf = *conf;
	b->hash_shift = l.hash_shift;
	b->hash_mask = l.capacity - 1;
	b->win_shift = l.win_shift;
	b->win_mask = (1ull << l.win_shift) - 1;
	b->side_bytes = l.side_bytes;
	b->keys_bytes = l.keys_bytes;
	b->inst = (struct book_inst *)(void *)(base + l.inst_off);
	b->levels = base + l.level_off;
	b->win = (struct book_ord *)(void *)(base + l.win_off);
	b->ovf = (struct book_ovf *)(void *)(base + l.order_off);
	hgw_book_reset(b);
	return b;
}

static inline int32_t *
side_keys(const struct hgw_book *b, uint16_t locate, unsigned int side)
{
	return (int32_t *)(void *)(b->levels + ((size_t)locate * 2 + side) *
				   b->side_bytes) + KEYS_BELOW;
}

static inline struct book_level *
side_data(const struct hgw_book *b, uint16_t locate, unsigned int side)
{
	return (struct book_level *)(void *)(b->levels +
		((size_t)locate * 2 + side) * b->side_bytes + b->keys_bytes);
}

/* Level arrays need no clearing (nlevels bounds what is read) except the
 * sentinels below each key array. */
void
hgw_book_reset(struct hgw_book *b)
{
	memset(b->inst, 0, (size_t)b->conf.max_instruments * sizeof(*b->inst));
	for (uint32_t l = 0; l < b->conf.max_instruments; l++)
		for (unsigned int side = 0; side < 2; side++) {
			int32_t *k = side_keys(b, (uint16_t)l, side);

			for (int j = -KEYS_BELOW; j < 0; j++)
				k[j] = INT32_MIN;
		}
	memset(b->win, 0, (size_t)(b->win_mask + 1) * sizeof(*b->win));
	memset(b->ovf, 0, (size_t)(b->hash_mask + 1) * sizeof(*b->ovf));
	b->ovf_live = 0;
	b->ovf_lo = UINT64_MAX;
	b->ovf_hi = 0;
	memset(&b->stats, 0, sizeof(b->stats));
}

/*
 * Home slot of an order reference in the overflow table: Fibonacci hashing (multiply by 2^64/phi,
 * keep the top hash_shift bits). ITCH refs are a mostly increasing counter
 * that wraps any table many times a day. Measured on a synthetic stream
 * (100 stocks x ~370 live orders, refs spanning 16 table sizes):
 *  - ref & mask: consecutive refs get adjacent slots (good locality in a
 *    table far bigger than the cache), but the dense run of young orders
 *    collides with the survivors of earlier wraps and runs grow long:
 *    ~90 ns/message against ~55 ns for Fibonacci with a 3 MB table, and a
 *    variant that offset each wrap was 840 ns;
 *  - Fibonacci spreads any ref pattern (probes per lookup 1.02 here) but
 *    costs one cache miss per order message once the table leaves the
 *    cache; that miss is what a caller-side prefetch should hide.
 * Also tried (bench_feed, 500 instruments, ~77k live orders): hashing
 * blocks of 2^k consecutive refs (k = 2..6) with the low k bits kept.
 * Cachegrind with a 1 MB last level: 1.63 -> 1.11 misses a message for
 * k = 3, but +14 instructions a message for the denser probe runs, and no
 * gain the (noisy) timing could show; the live set, deleted uniformly at
 * random, does not fit L2 either way. Not kept.
 */
static inline uint64_t
order_home(const struct hgw_book *b, uint64_t ref)
{
	return (ref * 0x9e3779b97f4a7c15ull) >> (64 - b->hash_shift);
}

static inline uint64_t
ovf_find(const struct hgw_book *b, uint64_t ref)
{
	const struct book_ovf *t = b->ovf;
	uint64_t i = order_home(b, ref);

	while (t[i].o.used) {
		if (t[i].ref == ref)
			return i;
		i = (i + 1) & b->hash_mask;
	}
	return BOOK_NOT_FOUND;
}

/* Backward-shift deletion: walk the run after the hole and pull back every
 * entry that may legally sit in the hole, i.e. whose home is not in the
 * cyclic range (hole, j]; moving such an entry keeps it reachable from its
 * home, and an entry whose home is in that range must stay after it. */
static void
ovf_unlink(struct hgw_book *b, uint64_t hole)
{
	struct book_ovf *t = b->ovf;
	uint64_t mask = b->hash_mask;
	uint64_t j = hole;

	for (;;) {
		j = (j + 1) & mask;
		if (!t[j].o.used)
			break;
		if (((j - order_home(b, t[j].ref)) & mask) >=
		    ((j - hole) & mask)) {
			t[hole] = t[j];
			hole = j;
		}
	}
	t[hole].o.used = 0;
	if (--b->ovf_live == 0) {
		b->ovf_lo = UINT64_MAX;
		b->ovf_hi = 0;
	}
}

/* A free overflow slot for ref (not in the table), marked used. */
static struct book_ord *
ovf_place(struct hgw_book *b, uint64_t ref)
{
	struct book_ovf *t = b->ovf;
	uint64_t i = order_home(b, ref);

	while (t[i].o.used)
		i = (i + 1) & b->hash_mask;
	t[i].ref = ref;
	t[i].o.used = 1;
	b->ovf_live++;
	b->ovf_lo = ref < b->ovf_lo ? ref : b->ovf_lo;
	b->ovf_hi = ref > b->ovf_hi ? ref : b->ovf_hi;
	return &t[i].o;
}

/* 1 when ref may be in the overflow table. */
static inline int
ovf_may_hold(const struct hgw_book *b, uint64_t ref)
{
	return ref >= b->ovf_lo && ref <= b->ovf_hi;
}

/* The window slot of ref (whoever holds it). */
static inline struct book_ord *
win_slot(const struct hgw_book *b, uint64_t ref)
{
	return &b->win[ref & b->win_mask];
}

/* 1 when window slot o holds ref (a tag beyond 32 bits never matches). */
static inline int
win_holds(const struct hgw_book *b, const struct book_ord *o, uint64_t ref)
{
	/* Bitwise &: one branch, not two. */
	return o->used & ((uint64_t)o->tag == ref >> b->win_shift);
}

/* The live order ref, or NULL. */
static inline struct book_ord *
order_get(const struct hgw_book *b, uint64_t ref)
{
	struct book_ord *o = win_slot(b, ref);
	uint64_t i;

	if (__builtin_expect(win_holds(b, o, ref), 1))
		return o;
	if (__builtin_expect(!ovf_may_hold(b, ref), 1))
		return NULL;
	i = ovf_find(b, ref);
	return i == BOOK_NOT_FOUND ? NULL : &b->ovf[i].o;
}

/* A free slot for ref (known not live), marked used: its window slot,
 * after moving an older order that holds it to the overflow table; or an
 * overflow slot when the window slot's order is newer or the tag does not
 * fit. */
static inline struct book_ord *
order_place(struct hgw_book *b, uint64_t ref)
{
	struct book_ord *w = win_slot(b, ref);
	uint64_t tag = ref >> b->win_shift;

	if (__builtin_expect(tag > UINT32_MAX, 0))
		return ovf_place(b, ref);
	if (__builtin_expect(w->used, 0)) {
		if (w->tag > tag)
			return ovf_place(b, ref);
		struct book_ord *e = ovf_place(b, ((uint64_t)w->tag <<
						   b->win_shift) |
					       (ref & b->win_mask));

		*e = *w;
	}
	w->tag = (uint32_t)tag;
	w->used = 1;
	return w;
}

/* Free the slot of a live order. */
static inline void
order_unlink(struct hgw_book *b, struct book_ord *o)
{
	uintptr_t p = (uintptr_t)o, w = (uintptr_t)b->win;

	if (__builtin_expect(p - w < ((b->win_mask + 1) << 4), 1)) {
		o->used = 0;
		return;
	}
	ovf_unlink(b, (uint64_t)((p - offsetof(struct book_ovf, o) -
				  (uintptr_t)b->ovf) /
				 sizeof(struct book_ovf)));
}

static inline uint32_t
level_key(uint32_t price, unsigned int side)
{
	return price ^ (0u - (uint32_t)side);
}

/* The stored (biased) key of a price, and back. */
static inline int32_t
skey(uint32_t price, unsigned int side)
{
	return (int32_t)(level_key(price, side) ^ 0x80000000u);
}

static inline uint32_t
skey_price(int32_t k, unsigned int side)
{
	return level_key((uint32_t)k ^ 0x80000000u, side);
}

/* Insertion point of key in the n ascending keys: how many are <= key.
 * Counts the keys above key KEYS_BELOW at a time from the top with one
 * vector compare per 4 keys (the sentinels below index 0 never count), so
 * the usual search is branch-free. Measured with the fixed-size level
 * moves below (cachegrind, 20 instruments): book instructions 248 -> 225
 * a message, search-exit mispredicts gone; bench_feed on that feed 71-80
 * -> 62-64 ns a message. With 500 instruments the touch was more than 8
 * keys deep often enough for the exit of an 8-key window to mispredict
 * 0.24 times a message (cachegrind); a 16-key window takes 5 more
 * instructions a message and leaves almost none: bench_feed bulk, 10 M
 * messages, 10 interleaved runs, ITCH file median 27.8 -> 31.0 M msg/s. */
#if defined(__SSE2__)
/* How many of the 16 keys at p are above key: the four compares' lanes
 * (0 or -1) narrowed to bytes, masked to 0 or 1 and added by PSADBW (two
 * halves). The generic vector code's sum of lanes took about 14
 * instructions for 8 keys (cachegrind, bench_feed book bulk on a 1 M
 * message ITCH file: 5 instructions a message fewer). */
static inline uint32_t
keys_above16(const int32_t *p, int32_t key)
{
	__m128i k = _mm_set1_epi32(key);
	__m128i a = _mm_cmpgt_epi32(
		_mm_loadu_si128((const __m128i *)(const void *)p), k);
	__m128i b = _mm_cmpgt_epi32(
		_mm_loadu_si128((const __m128i *)(const void *)(p + 4)), k);
	__m128i c = _mm_cmpgt_epi32(
		_mm_loadu_si128((const __m128i *)(const void *)(p + 8)), k);
	__m128i d = _mm_cmpgt_epi32(
		_mm_loadu_si128((const __m128i *)(const void *)(p + 12)), k);
	__m128i m = _mm_packs_epi16(_mm_packs_epi32(a, b),
				    _mm_packs_epi32(c, d));

	m = _mm_sad_epu8(_mm_and_si128(m, _mm_set1_epi8(1)),
			 _mm_setzero_si128());
	return (uint32_t)(_mm_cvtsi128_si32(m) + _mm_extract_epi16(m, 4));
}
#else
static inline uint32_t
keys_above16(const int32_t *p, int32_t key)
{
	book_keyv a, b, c, d, k = { 0 };

	memcpy(&a, p, sizeof(a));
	memcpy(&b, p + 4, sizeof(b));
	memcpy(&c, p + 8, sizeof(c));
	memcpy(&d, p + 12, sizeof(d));
	k += key;
	a = (a > k) + (b > k) + (c > k) + (d > k);  /* lanes: 0 .. -4 */
	return (uint32_t)-(a[0] + a[1] + a[2] + a[3]);
}
#endif
_Static_assert(KEYS_BELOW == 16, "keys_above16 compares 16 keys");

static inline uint32_t
level_pos(const int32_t *keys, uint32_t n, int32_t key)
{
	uint32_t hi = n;

	/* Ends: a window below index 0 holds sentinels, which never count,
	 * so c < KEYS_BELOW there. */
	for (;;) {
		uint32_t c = keys_above16(keys + (int32_t)hi - KEYS_BELOW, key);

		if (c < KEYS_BELOW)
			return hi - c;
		hi -= KEYS_BELOW;
	}
}

/* Open a gap at i in n levels (n < max_levels). At most LEVEL_PAD levels
 * sit above i almost always: then move a fixed LEVEL_PAD (the spare
 * entries take what goes past n), which compiles to a few vector moves
 * instead of a memmove call. */
static inline void
level_open(int32_t *keys, struct book_level *lv, uint32_t i, uint32_t n)
{
	if (n - i <= LEVEL_PAD) {
		memmove(&keys[i + 1], &keys[i], LEVEL_PAD * sizeof(*keys));
		memmove(&lv[i + 1], &lv[i], LEVEL_PAD * sizeof(*lv));
	} else {
		memmove(&keys[i + 1], &keys[i], (size_t)(n - i) * sizeof(*keys));
		memmove(&lv[i + 1], &lv[i], (size_t)(n - i) * sizeof(*lv));
	}
}

/* Close the gap of level i of n. */
static inline void
level_close(int32_t *keys, struct book_level *lv, uint32_t i, uint32_t n)
{
	if (n - i <= LEVEL_PAD) {
		memmove(&keys[i], &keys[i + 1], LEVEL_PAD * sizeof(*keys));
		memmove(&lv[i], &lv[i + 1], LEVEL_PAD * sizeof(*lv));
	} else {
		memmove(&keys[i], &keys[i + 1],
			(size_t)(n - 1 - i) * sizeof(*keys));
		memmove(&lv[i], &lv[i + 1], (size_t)(n - 1 - i) * sizeof(*lv));
	}
}

/* Add one order of `shares` at price; -1 when a new level is needed and
 * the side is full. */
static inline int
level_add(struct hgw_book *b, uint16_t locate, unsigned int side,
	  uint32_t price, uint32_t shares)
{
	int32_t *keys = side_keys(b, locate, side);
	struct book_level *lv = side_data(b, locate, side);
	uint32_t *np = &b->inst[locate].nlevels[side];
	uint32_t n = *np;
	int32_t key = skey(price, side);
	uint32_t i = level_pos(keys, n, key);

	if (keys[(int32_t)i - 1] == key) {
		lv[i - 1].orders++;
		lv[i - 1].shares += shares;
		return 0;
	}
	if (n == b->conf.max_levels)
		return -1;
	level_open(keys, lv, i, n);
	keys[i] = key;
	lv[i].orders = 1;
	lv[i].shares = shares;
	*np = n + 1;
	return 0;
}

/* Take `shares` and `orders` (0 or 1) off the level at price, dropping the
 * level when its last order goes. The level always exists while the book
 * is consistent; if it does not, hgw_book_check reports it. */
static inline void
level_sub(struct hgw_book *b, uint16_t locate, unsigned int side,
	  uint32_t price, uint32_t shares, uint32_t orders)
{
	int32_t *keys = side_keys(b, locate, side);
	struct book_level *lv = side_data(b, locate, side);
	uint32_t *np = &b->inst[locate].nlevels[side];
	uint32_t n = *np;
	int32_t key = skey(price, side);
	uint32_t i = level_pos(keys, n, key);

	if (keys[(int32_t)i - 1] != key)
		return;
	i--;
	lv[i].shares -= shares;
	lv[i].orders -= orders;
	if (lv[i].orders == 0) {
		level_close(keys, lv, i, n);
		*np = n - 1;
	}
}

/* The handlers inline into each apply loop: out of line, each call's
 * register saves and restores cost about 17 instructions (cachegrind,
 * bench_feed book bulk on a 1 M message ITCH file: 8 instructions a
 * message fewer inline, about 176 left). */
#define BOOK_HOT static inline __attribute__((always_inline))

static inline void
book_err(struct hgw_book *b, enum hgw_book_error e)
{
	b->stats.errors[e]++;
}

/* Insert an order; 0 when it is now in the book, -1 (error counted) when it
 * was refused. The caller checked the locate range and the side. */
BOOK_HOT int
order_insert(struct hgw_book *b, uint16_t locate, unsigned int side,
	     uint64_t ref, uint32_t shares, uint32_t price)
{
	struct book_ord *o;

	if (price == 0 || price > HGW_ITCH_PRICE_MAX) {
		book_err(b, HGW_BOOK_ERR_BAD_PRICE);
		return -1;
	}
	if (order_get(b, ref) != NULL) {
		book_err(b, HGW_BOOK_ERR_DUP_REF);
		return -1;
	}
	if (b->stats.live_orders >= b->conf.max_orders) {
		book_err(b, HGW_BOOK_ERR_ORDER_FULL);
		return -1;
	}
	if (level_add(b, locate, side, price, shares) != 0) {
		book_err(b, HGW_BOOK_ERR_LEVEL_FULL);
		return -1;
	}
	o = order_place(b, ref);
	o->price = price;
	o->shares = shares;
	o->locate = locate;
	o->side = (uint8_t)side;
	b->stats.live_orders++;
	b->stats.live_orders_hwm = b->stats.live_orders >
		b->stats.live_orders_hwm ? b->stats.live_orders :
		b->stats.live_orders_hwm;
	return 0;
}

/* Remove a live order with everything it still shows. */
static inline void
order_remove(struct hgw_book *b, struct book_ord *o)
{
	level_sub(b, o->locate, o->side, o->price, o->shares, 1);
	order_unlink(b, o);
	b->stats.live_orders--;
}

/* Look up the order an E/C/X/D/U names; counts UNKNOWN_REF and
 * LOCATE_MISMATCH. */
static inline struct book_ord *
order_lookup(struct hgw_book *b, const uint8_t *msg, uint64_t ref)
{
	struct book_ord *o = order_get(b, ref);

	if (__builtin_expect(o == NULL, 0)) {
		book_err(b, HGW_BOOK_ERR_UNKNOWN_REF);
		return NULL;
	}
	if (__builtin_expect(o->locate != hgw_itch_locate(msg), 0))
		book_err(b, HGW_BOOK_ERR_LOCATE_MISMATCH);
	return o;
}

/* Take n shares off live order o (E, C, X); the order goes when nothing
 * remains, or when more than remains is taken (OVERSIZE). Returns the
 * order's locate. */
static inline uint16_t
order_reduce(struct hgw_book *b, struct book_ord *o, uint32_t n,
	     uint64_t *counter)
{
	uint16_t locate = o->locate;

	if (n < o->shares) {
		o->shares -= n;
		level_sub(b, locate, o->side, o->price, n, 0);
	} else {
		if (n > o->shares)
			book_err(b, HGW_BOOK_ERR_OVERSIZE);
		order_remove(b, o);
	}
	(*counter)++;
	b->stats.applied++;
	return locate;
}

BOOK_HOT uint16_t
on_add(struct hgw_book *b, const uint8_t *msg)
{
	const struct hgw_itch_add_order *m = (const void *)msg;
	uint16_t locate = hgw_itch_locate(msg);
	/* Bitwise, not logical: buy/sell is a coin toss the branch
	 * predictor cannot learn (cachegrind: 0.24 mispredicts/message). */
	unsigned int bid = m->side == 'B', ask = m->side == 'S';

	if (locate >= b->conf.max_instruments) {
		book_err(b, HGW_BOOK_ERR_LOCATE_RANGE);
		return 0;
	}
	if ((bid | ask) == 0) {
		book_err(b, HGW_BOOK_ERR_BAD_SIDE);
		return 0;
	}
	if (order_insert(b, locate, ask, hgw_be64(m->order_ref),
			 hgw_be32(m->shares), hgw_be32(m->price)) != 0)
		return 0;
	b->stats.adds++;
	b->stats.applied++;
	return locate;
}

BOOK_HOT uint16_t
on_executed(struct hgw_book *b, const uint8_t *msg)
{
	const struct hgw_itch_order_executed *m = (const void *)msg;
	struct book_ord *o = order_lookup(b, msg, hgw_be64(m->order_ref));

	if (o == NULL)
		return 0;
	return order_reduce(b, o, hgw_be32(m->executed_shares),
			    &b->stats.executes);
}

BOOK_HOT uint16_t
on_executed_px(struct hgw_book *b, const uint8_t *msg)
{
	const struct hgw_itch_order_executed_px *m = (const void *)msg;
	struct book_ord *o = order_lookup(b, msg, hgw_be64(m->e.order_ref));
	uint16_t locate;

	/* The trade printed even if the order is not tracked here (refused
	 * for capacity): then the message locate is all there is. */
	if (m->printable == 'Y') {
		locate = o != NULL ? o->locate : hgw_itch_locate(msg);
		if (locate < b->conf.max_instruments)
			b->inst[locate].last_trade =
				hgw_be32(m->execution_price);
	}
	if (o == NULL)
		return 0;
	return order_reduce(b, o, hgw_be32(m->e.executed_shares),
			    &b->stats.executes);
}

BOOK_HOT uint16_t
on_cancel(struct hgw_book *b, const uint8_t *msg)
{
	const struct hgw_itch_order_cancel *m = (const void *)msg;
	struct book_ord *o = order_lookup(b, msg, hgw_be64(m->order_ref));

	if (o == NULL)
		return 0;
	return order_reduce(b, o, hgw_be32(m->cancelled_shares),
			    &b->stats.cancels);
}

BOOK_HOT uint16_t
on_delete(struct hgw_book *b, const uint8_t *msg)
{
	const struct hgw_itch_order_delete *m = (const void *)msg;
	struct book_ord *o = order_lookup(b, msg, hgw_be64(m->order_ref));
	uint16_t locate;

	if (o == NULL)
		return 0;
	locate = o->locate;
	order_remove(b, o);
	b->stats.deletes++;
	b->stats.applied++;
	return locate;
}

/* The original order always goes; a refused new order (bad price,
 * duplicate ref, side full) is counted and leaves it gone, as the exchange
 * has cancelled it either way. */
BOOK_HOT uint16_t
on_replace(struct hgw_book *b, const uint8_t *msg)
{
	const struct hgw_itch_order_replace *m = (const void *)msg;
	struct book_ord *o = order_lookup(b, msg, hgw_be64(m->original_ref));
	uint16_t locate;
	unsigned int side;

	if (o == NULL)
		return 0;
	locate = o->locate;
	side = o->side;
	order_remove(b, o);
	(void)order_insert(b, locate, side, hgw_be64(m->new_ref),
			   hgw_be32(m->shares), hgw_be32(m->price));
	b->stats.replaces++;
	b->stats.applied++;
	return locate;
}

/* Record a print for a locate taken from the message (P, Q). */
static void
record_trade(struct hgw_book *b, const uint8_t *msg, const uint8_t *price)
{
	uint16_t locate = hgw_itch_locate(msg);

	if (locate >= b->conf.max_instruments) {
		book_err(b, HGW_BOOK_ERR_LOCATE_RANGE);
		return;
	}
	b->inst[locate].last_trade = hgw_be32(price);
	b->stats.trades++;
}

static void
on_directory(struct hgw_book *b, const uint8_t *msg)
{
	const struct hgw_itch_stock_directory *m = (const void *)msg;
	uint16_t locate = hgw_itch_locate(msg);
	struct book_inst *in;

	if (locate >= b->conf.max_instruments) {
		book_err(b, HGW_BOOK_ERR_LOCATE_RANGE);
		return;
	}
	in = &b->inst[locate];
	memcpy(in->name, m->stock, HGW_ITCH_STOCK_LEN);
	in->name[HGW_ITCH_STOCK_LEN] = '\0';
	in->has_name = 1;
}

BOOK_HOT uint16_t
book_apply(struct hgw_book *b, const uint8_t *msg)
{
	switch (msg[0]) {
	case HGW_ITCH_ADD_ORDER:
	case HGW_ITCH_ADD_ORDER_MPID: /* 'F' is 'A' plus attribution */
		return on_add(b, msg);
	case HGW_ITCH_ORDER_EXECUTED:
		return on_executed(b, msg);
	case HGW_ITCH_ORDER_EXECUTED_PX:
		return on_executed_px(b, msg);
	case HGW_ITCH_ORDER_CANCEL:
		return on_cancel(b, msg);
	case HGW_ITCH_ORDER_DELETE:
		return on_delete(b, msg);
	case HGW_ITCH_ORDER_REPLACE:
		return on_replace(b, msg);
	case HGW_ITCH_TRADE:
		record_trade(b, msg,
			     ((const struct hgw_itch_trade *)(const void *)msg)
			     ->price);
		return 0;
	case HGW_ITCH_CROSS_TRADE:
		record_trade(b, msg,
			     ((const struct hgw_itch_cross_trade *)
			      (const void *)msg)->cross_price);
		return 0;
	case HGW_ITCH_STOCK_DIRECTORY:
		on_directory(b, msg);
		return 0;
	default:
		return 0;
	}
}

uint16_t
hgw_book_apply(struct hgw_book *b, const uint8_t *msg)
{
	return book_apply(b, msg);
}

/* Type groups for the prefetch stages: an add, another type whose order
 * reference sits at offset 11 (E C X D U), or neither. One table load: the
 * switch it replaces was 12 instructions a message. */
#define BOOK_GROUP_NONE 0
#define BOOK_GROUP_ADD  1
#define BOOK_GROUP_REF  2

static const uint8_t book_group[256] = {
	[HGW_ITCH_ADD_ORDER] = BOOK_GROUP_ADD,
	[HGW_ITCH_ADD_ORDER_MPID] = BOOK_GROUP_ADD,
	[HGW_ITCH_ORDER_EXECUTED] = BOOK_GROUP_REF,
	[HGW_ITCH_ORDER_EXECUTED_PX] = BOOK_GROUP_REF,
	[HGW_ITCH_ORDER_CANCEL] = BOOK_GROUP_REF,
	[HGW_ITCH_ORDER_DELETE] = BOOK_GROUP_REF,
	[HGW_ITCH_ORDER_REPLACE] = BOOK_GROUP_REF,
};

/* Prefetch helpers must be always_inline: GCC counts __builtin_prefetch as
 * no side effect, marks a helper made only of loads and prefetches pure,
 * and deletes the call as unused before inlining it (gcc 12 -O3 dropped
 * every level prefetch of the first bulk version this way). */
#define BOOK_PREFETCH_FN static inline __attribute__((always_inline)) void

/* The touch of a side and the line below it: where level_add/level_sub
 * start searching. Branch-free: with no level the addresses are still
 * inside the side (the key padding), and a prefetch never faults. */
BOOK_PREFETCH_FN
prefetch_touch(const struct hgw_book *b, uint16_t locate, unsigned int side)
{
	const int32_t *keys = side_keys(b, locate, side);
	const struct book_level *lv = side_data(b, locate, side);
	uint32_t n = b->inst[locate].nlevels[side];

	/* Below index 0 these point into the side's keys (at least 128
	 * bytes), so no select is needed (a select compiled to a branch
	 * mispredicted 0.23 times a message). */
	__builtin_prefetch(&keys[(int32_t)n - 1], 1);
	__builtin_prefetch(&lv[(int32_t)n - 1], 1);
	__builtin_prefetch(&lv[(int32_t)n - 5], 1);
}

/* For hgw_book_prefetch: the window slot of the order the message names
 * (and of a replace's new order), and for an add the touch of its side. The side
 * byte is msg[19 * add] (msg[0], never 'S', for other types, which may be
 * shorter than 20 bytes): a pointer select compiled to a branch that
 * mispredicted 0.44 times a message on the random type mix. */
BOOK_PREFETCH_FN
book_prefetch(const struct hgw_book *b, const uint8_t *msg)
{
	uint8_t t = msg[0];
	unsigned int g = book_group[t], add = g == BOOK_GROUP_ADD;
	uint16_t locate = hgw_itch_locate(msg);

	if (g == BOOK_GROUP_NONE)
		return;
	__builtin_prefetch(win_slot(b, hgw_be64(msg + 11)), 1);
	/* A replace's new ref, or the same slot again: no branch (one
	 * mispredicted 0.11 times a message). */
	__builtin_prefetch(win_slot(b, hgw_be64(msg + 11 + 8 *
				(t == HGW_ITCH_ORDER_REPLACE))), 1);
	locate = locate < b->conf.max_instruments ? locate : 0;
	prefetch_touch(b, locate, msg[19 * add] == 'S');
}

/* For a short batch: the order slots as book_prefetch, and the touch of
 * both sides of the message's instrument (where an E C X D U lands, its
 * side unknown until the slot is read, and what hgw_book_top reads). */
BOOK_PREFETCH_FN
book_prefetch_all(const struct hgw_book *b, const uint8_t *msg)
{
	uint8_t t = msg[0];
	uint16_t locate = hgw_itch_locate(msg);

	if (book_group[t] == BOOK_GROUP_NONE)
		return;
	__builtin_prefetch(win_slot(b, hgw_be64(msg + 11)), 1);
	__builtin_prefetch(win_slot(b, hgw_be64(msg + 11 + 8 *
				(t == HGW_ITCH_ORDER_REPLACE))), 1);
	locate = locate < b->conf.max_instruments ? locate : 0;
	prefetch_touch(b, locate, 0);
	prefetch_touch(b, locate, 1);
}

/* The empty asm gives the function an effect GCC cannot see through, so a
 * caller that can see its body (LTO, or a non-PIC build of the same unit)
 * does not delete the call as pure: measured, a bench built without -fPIC
 * lost every prefetch that way and ran ~40% slower. */
void
hgw_book_prefetch(const struct hgw_book *b, const uint8_t *msg)
{
	book_prefetch(b, msg);
	__asm__ __volatile__("");
}

/* The window slot of the order a message names: the one prefetch the bulk
 * apply makes. Measured (bench_feed, 500 instruments, CPU time, two
 * interleaved runs), with the window the two-stage pipeline of before
 * (this slot 16 ahead, then the touch of the order's side 8 ahead: about
 * 60 instructions a message) cost more than the misses it hid: ITCH file
 * 20.0-20.3 M msg/s with it, 21.1-21.7 with no prefetch, 24.3-24.6 with
 * this alone (capture: 13.8, 13.7-13.8, 15.4-15.7); 4, 8 or 16 messages
 * ahead measured alike. An add's slot is the next of a run (references
 * increase), so the slot is what an E, C, X, D or U would wait for. */
BOOK_PREFETCH_FN
prefetch_slot(const struct hgw_book *b, const uint8_t *msg)
{
	if (book_group[msg[0]] != BOOK_GROUP_NONE)
		__builtin_prefetch(win_slot(b, hgw_be64(msg + 11)), 1);
}

BOOK_HOT uint32_t
bulk_one(struct hgw_book *b, const uint8_t *const *msgs, uint32_t i,
	 uint16_t *changed)
{
	uint16_t c = book_apply(b, msgs[i]);

	if (changed != NULL)
		changed[i] = c;
	return c != 0;
}

uint32_t
hgw_book_apply_bulk(struct hgw_book *b, const uint8_t *const *msgs,
		    uint32_t n, uint16_t *changed)
{
	const uint32_t ahead = HGW_BOOK_AHEAD;
	uint32_t nchanged = 0, i = 0;

	for (; i < n && i < ahead; i++)
		prefetch_slot(b, msgs[i]);
	/* One loop: the tail prefetches the last slot again, a select
	 * rather than a bounds test (one loop with both tests mispredicted
	 * 0.35 times a message; two loops are two copies of the handlers). */
	for (i = 0; i < n; i++) {
		prefetch_slot(b, msgs[i + ahead < n ? i + ahead : n - 1]);
		nchanged += bulk_one(b, msgs, i, changed);
	}
	return nchanged;
}

/* Message i of a cursor's batch: its pointer, stride bytes apart. */
static inline const uint8_t *
cursor_msg(const uint8_t *const *msgs, uint32_t stride, uint32_t i)
{
	return *(const uint8_t *const *)((const char *)msgs +
					 (size_t)i * stride);
}

void
hgw_book_cursor_start(const struct hgw_book *b, const uint8_t *const *msgs,
		      size_t stride, uint32_t n, struct hgw_book_cursor *c)
{
	c->next = 0;
	c->stop = n;
	c->changes = 0;
	c->stride = (uint32_t)stride;
	if (n > HGW_BOOK_AHEAD) {
		for (uint32_t i = 0; i < HGW_BOOK_AHEAD; i++)
			prefetch_slot(b, cursor_msg(msgs, c->stride, i));
		return;
	}
	/* A batch this short is one frame or a few: latency, not
	 * throughput. Everything its messages and the strategy's read of
	 * the top will touch is asked for at once, so the misses overlap
	 * instead of following one another. */
	for (uint32_t i = 0; i < n; i++)
		book_prefetch_all(b, cursor_msg(msgs, c->stride, i));
}

/* The same pipeline as hgw_book_apply_bulk, cut where a message changed
 * a book: message i is applied after the slot of i + HGW_BOOK_AHEAD was
 * prefetched, whichever call applies it. */
uint16_t
hgw_book_apply_until(struct hgw_book *b, const uint8_t *const *msgs,
		     uint32_t n, struct hgw_book_cursor *c)
{
	const uint32_t ahead = HGW_BOOK_AHEAD;
	uint32_t i = c->next, stop = c->stop < n ? c->stop : n;
	uint16_t locate = 0;

	while (i < stop) {
		/* the tail prefetches the last slot again: a select, no
		 * second loop (one copy of the handlers, small enough for
		 * the caller to inline) */
		uint32_t j = i + ahead < n ? i + ahead : n - 1;

		prefetch_slot(b, cursor_msg(msgs, c->stride, j));
		locate = book_apply(b, cursor_msg(msgs, c->stride, i++));
		if (locate != 0)
			break;
	}
	c->next = i;
	c->changes += locate != 0;
	return locate;
}

int
hgw_book_top(const struct hgw_book *b, uint16_t locate,
	     struct hgw_book_top *top)
{
	const struct book_inst *in;
	const struct book_level *lv;
	uint32_t n;

	if (locate >= b->conf.max_instruments)
		return -EINVAL;
	in = &b->inst[locate];
	memset(top, 0, sizeof(*top));
	if (in->nlevels[BOOK_BID] != 0) {
		n = in->nlevels[BOOK_BID] - 1;
		lv = side_data(b, locate, BOOK_BID) + n;
		top->bid_price = skey_price(side_keys(b, locate, BOOK_BID)[n],
					    BOOK_BID);
		top->bid_shares = lv->shares;
		top->bid_orders = lv->orders;
	}
	if (in->nlevels[BOOK_ASK] != 0) {
		n = in->nlevels[BOOK_ASK] - 1;
		lv = side_data(b, locate, BOOK_ASK) + n;
		top->ask_price = skey_price(side_keys(b, locate, BOOK_ASK)[n],
					    BOOK_ASK);
		top->ask_shares = lv->shares;
		top->ask_orders = lv->orders;
	}
	return 0;
}

const char *
hgw_book_name(const struct hgw_book *b, uint16_t locate)
{
	if (locate >= b->conf.max_instruments || !b->inst[locate].has_name)
		return NULL;
	return b->inst[locate].name;
}

uint32_t
hgw_book_last_trade(const struct hgw_book *b, uint16_t locate)
{
	if (locate >= b->conf.max_instruments)
		return 0;
	return b->inst[locate].last_trade;
}

static int
side_index(uint8_t side)
{
	return side == 'B' ? BOOK_BID : side == 'S' ? BOOK_ASK : -1;
}

int
hgw_book_depth(const struct hgw_book *b, uint16_t locate, uint8_t side)
{
	int s = side_index(side);

	if (locate >= b->conf.max_instruments || s < 0)
		return -EINVAL;
	return (int)b->inst[locate].nlevels[s];
}

/* Output pointers may be NULL. */
int
hgw_book_level(const struct hgw_book *b, uint16_t locate, uint8_t side,
	       uint32_t i, uint32_t *price, uint64_t *shares,
	       uint32_t *orders)
{
	int s = side_index(side);
	const struct book_level *lv;
	uint32_t n;

	if (locate >= b->conf.max_instruments || s < 0)
		return -EINVAL;
	n = b->inst[locate].nlevels[s];
	if (i >= n)
		return -ENOENT;
	lv = side_data(b, locate, (unsigned int)s) + (n - 1 - i);
	if (price != NULL)
		*price = skey_price(side_keys(b, locate, (unsigned int)s)
				    [n - 1 - i], (unsigned int)s);
	if (shares != NULL)
		*shares = lv->shares;
	if (orders != NULL)
		*orders = lv->orders;
	return 0;
}

/* Output pointers may be NULL. */
int
hgw_book_order(const struct hgw_book *b, uint64_t ref, uint16_t *locate,
	       uint8_t *side, uint32_t *shares, uint32_t *price)
{
	const struct book_ord *o = order_get(b, ref);

	if (o == NULL)
		return -ENOENT;
	if (locate != NULL)
		*locate = o->locate;
	if (side != NULL)
		*side = o->side == BOOK_BID ? 'B' : 'S';
	if (shares != NULL)
		*shares = o->shares;
	if (price != NULL)
		*price = o->price;
	return 0;
}

const struct hgw_book_stats *
hgw_book_stats(const struct hgw_book *b)
{
	return &b->stats;
}

/*
 * Consistency check. The book is const and owns no scratch memory, so the
 * per-level aggregates are recomputed in chunks: a chunk covers up to
 * CHECK_LEVELS levels (in up to CHECK_SEGS runs of one side array) with
 * accumulators on the stack, and each chunk takes one pass over the order
 * table. Test books fit in one chunk; a production-sized book takes
 * (live levels / CHECK_LEVELS) passes, which is fine for a debug check.
 */
#define CHECK_LEVELS 512
#define CHECK_SEGS 64

struct check_seg {
	uint32_t pair;   /* locate * 2 + side */
	uint32_t j0;     /* first level index of the run */
	uint32_t cnt;
	uint32_t base;   /* index of the run's first accumulator */
};

struct check_acc {
	uint64_t shares;
	uint64_t orders;
};

struct check_chunk {
	struct check_seg seg[CHECK_SEGS];
	struct check_acc acc[CHECK_LEVELS];
	uint32_t nseg;
	uint32_t nacc;
};

__attribute__((format(printf, 3, 4)))
static int
check_fail(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL && why_len > 0) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -EFAULT;
}

/* Slots of both order tables: the window's, then the overflow's. */
static uint64_t
check_nslots(const struct hgw_book *b)
{
	return b->win_mask + 1 + b->hash_mask + 1;
}

/* The live order in slot k of check_nslots (and its ref), or NULL. */
static const struct book_ord *
check_slot(const struct hgw_book *b, uint64_t k, uint64_t *ref)
{
	const struct book_ord *o;

	if (k <= b->win_mask) {
		o = &b->win[k];
		*ref = ((uint64_t)o->tag << b->win_shift) | k;
	} else {
		o = &b->ovf[k - b->win_mask - 1].o;
		*ref = b->ovf[k - b->win_mask - 1].ref;
	}
	return o->used ? o : NULL;
}

/* Index of key in a strictly ascending level array, or UINT32_MAX. */
static uint32_t
check_level_index(const int32_t *keys, uint32_t n, int32_t key)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && keys[lo] == key ? lo : UINT32_MAX;
}

/* Accumulator of level j of pair, or NULL when the chunk does not hold
 * it. Segments are sorted by (pair, j0). */
static struct check_acc *
check_chunk_acc(struct check_chunk *c, uint32_t pair, uint32_t j)
{
	uint32_t lo = 0, hi = c->nseg;
	const struct check_seg *s;

	/* Last segment with (pair, j0) <= (pair, j). */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		s = &c->seg[mid];
		if (s->pair < pair || (s->pair == pair && s->j0 <= j))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &c->seg[lo - 1];
	if (s->pair != pair || j >= s->j0 + s->cnt)
		return NULL;
	return &c->acc[s->base + j - s->j0];
}

static int
check_chunk_run(const struct hgw_book *b, struct check_chunk *c, char *why,
		size_t why_len)
{
	uint64_t i, ref;
	uint32_t k, j;

	memset(c->acc, 0, (size_t)c->nacc * sizeof(c->acc[0]));
	for (i = 0; i < check_nslots(b); i++) {
		const struct book_ord *o = check_slot(b, i, &ref);
		struct check_acc *a;
		uint32_t pair;

		if (o == NULL)
			continue;
		pair = (uint32_t)o->locate * 2 + o->side;
		j = check_level_index(side_keys(b, o->locate, o->side),
				      b->inst[o->locate].nlevels[o->side],
				      skey(o->price, o->side));
		a = check_chunk_acc(c, pair, j);
		if (a == NULL)
			continue;
		a->shares += o->shares;
		a->orders++;
	}
	for (k = 0; k < c->nseg; k++) {
		const struct check_seg *s = &c->seg[k];
		const struct book_level *lv = side_data(b,
				(uint16_t)(s->pair / 2), s->pair % 2);

		for (j = s->j0; j < s->j0 + s->cnt; j++) {
			const struct check_acc *a = &c->acc[s->base + j - s->j0];

			if (a->orders != lv[j].orders ||
			    a->shares != lv[j].shares)
				return check_fail(why, why_len,
					"locate %u side %c level %u: "
					"%u orders %" PRIu64 " shares, orders sum to "
					"%" PRIu64 " / %" PRIu64,
					s->pair / 2, s->pair % 2 ? 'S' : 'B', j,
					lv[j].orders, lv[j].shares,
					a->orders, a->shares);
		}
	}
	c->nseg = 0;
	c->nacc = 0;
	return 0;
}

int
hgw_book_check(const struct hgw_book *b, char *why, size_t why_len)
{
	const struct book_ovf *t = b->ovf;
	uint64_t mask = b->hash_mask;
	uint64_t i, ref, live = 0, in_ovf = 0, level_orders = 0;
	struct check_chunk c;
	uint32_t pair, j;
	int rc;

	/* Orders: sane fields, found by order_get (an overflow order:
	 * reachable from its home slot with no duplicate ahead of it, within
	 * the table's ref bounds, and not also in the window), and a level
	 * at their price. */
	for (i = 0; i < check_nslots(b); i++) {
		const struct book_ord *o = check_slot(b, i, &ref);
		uint64_t h, k = i - b->win_mask - 1;

		if (o == NULL)
			continue;
		live++;
		if (o->locate >= b->conf.max_instruments || o->side > 1 ||
		    o->price == 0 || o->price > HGW_ITCH_PRICE_MAX)
			return check_fail(why, why_len,
				"slot %" PRIu64 ": bad order ref %" PRIu64
				" locate %u side %u price %u", i, ref,
				o->locate, o->side, o->price);
		if (i > b->win_mask) {
			in_ovf++;
			for (h = order_home(b, ref); h != k;
			     h = (h + 1) & mask) {
				if (!t[h].o.used)
					return check_fail(why, why_len,
						"ref %" PRIu64 " in overflow slot %"
						PRIu64 " unreachable: free slot %"
						PRIu64 " after its home", ref, k, h);
				if (t[h].ref == ref)
					return check_fail(why, why_len,
						"ref %" PRIu64 " in overflow slots %"
						PRIu64 " and %" PRIu64, ref, h, k);
			}
			if (!ovf_may_hold(b, ref) ||
			    win_holds(b, win_slot(b, ref), ref))
				return check_fail(why, why_len,
					"ref %" PRIu64 " in overflow slot %"
					PRIu64 " shadowed (bounds %" PRIu64
					"..%" PRIu64 ", or in the window)",
					ref, k, b->ovf_lo, b->ovf_hi);
		}
		if (check_level_index(side_keys(b, o->locate, o->side),
				      b->inst[o->locate].nlevels[o->side],
				      skey(o->price, o->side)) ==
		    UINT32_MAX)
			return check_fail(why, why_len,
				"ref %" PRIu64 ": no level at price %u",
				ref, o->price);
	}
	if (in_ovf != b->ovf_live)
		return check_fail(why, why_len,
			"%" PRIu64 " orders in the overflow table, count %"
			PRIu64, in_ovf, b->ovf_live);
	if (live != b->stats.live_orders || live > b->conf.max_orders ||
	    b->stats.live_orders_hwm < live)
		return check_fail(why, why_len,
			"%" PRIu64 " orders in table, live_orders %" PRIu64
			" hwm %" PRIu64 " max %u", live, b->stats.live_orders,
			b->stats.live_orders_hwm, b->conf.max_orders);

	/* Levels: strictly ordered, non-empty, valid prices; then their
	 * aggregates against the orders, chunk by chunk. */
	c.nseg = 0;
	c.nacc = 0;
	for (pair = 0; pair < b->conf.max_instruments * 2; pair++) {
		uint16_t locate = (uint16_t)(pair / 2);
		unsigned int side = pair % 2;
		const int32_t *keys = side_keys(b, locate, side);
		const struct book_level *lv = side_data(b, locate, side);
		uint32_t n = b->inst[locate].nlevels[side];

		if (n > b->conf.max_levels)
			return check_fail(why, why_len,
				"locate %u side %u: %u levels > max %u",
				locate, side, n, b->conf.max_levels);
		for (j = 0; j < n; j++) {
			uint32_t price = skey_price(keys[j], side);

			if (j > 0 && keys[j - 1] >= keys[j])
				return check_fail(why, why_len,
					"locate %u side %u: levels %u/%u "
					"out of order", locate, side, j - 1, j);
			if (lv[j].orders == 0 || price == 0 ||
			    price > HGW_ITCH_PRICE_MAX)
				return check_fail(why, why_len,
					"locate %u side %u level %u: "
					"%u orders at price %u", locate, side,
					j, lv[j].orders, price);
			level_orders += lv[j].orders;
		}
		for (j = 0; j < n;) {
			uint32_t cnt = n - j;

			if (cnt > CHECK_LEVELS - c.nacc)
				cnt = CHECK_LEVELS - c.nacc;
			c.seg[c.nseg].pair = pair;
			c.seg[c.nseg].j0 = j;
			c.seg[c.nseg].cnt = cnt;
			c.seg[c.nseg].base = c.nacc;
			c.nseg++;
			c.nacc += cnt;
			j += cnt;
			if (c.nseg == CHECK_SEGS || c.nacc == CHECK_LEVELS) {
				rc = check_chunk_run(b, &c, why, why_len);
				if (rc != 0)
					return rc;
			}
		}
	}
	if (c.nseg != 0) {
		rc = check_chunk_run(b, &c, why, why_len);
		if (rc != 0)
			return rc;
	}
	if (level_orders != live)
		return check_fail(why, why_len,
			"levels hold %" PRIu64 " orders, table %" PRIu64,
			level_orders, live);
	if (why != NULL && why_len > 0)
		why[0] = '\0';
	return 0;
}
