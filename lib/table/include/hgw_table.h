/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the pricing table.
 *
 * One array of 64-byte entries (a cache line each on x86-64; two to a
 * line where lines are 128 bytes, as in DPDK's generic armv8 build),
 * indexed by a key
 * computed from the instrument and a quantised book state; layout, key
 * function and file format are specified in docs/protocols.md "Trading rules".
 *
 * Readers (workers) copy an entry under its sequence count and retry on a
 * torn read; one writer updates entries in place. The sequence count is
 * a seqlock of its own (C11 atomics, the protocol of DPDK's rte_seqcount,
 * which is experimental in DPDK 22.11: this header needs no experimental
 * API, so its users need none either). The
 * file functions and the in-memory functions work without an EAL; only
 * hgw_table_load_replicas / hgw_table_set_free use DPDK memory (huge pages).
 */
#ifndef HGW_TABLE_H
#define HGW_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct rte_memzone;

#ifdef __cplusplus
extern "C" {
#endif

#define HGW_TABLE_ENTRY_SIZE  64
#define HGW_TABLE_HEADER_SIZE 64

#define HGW_TABLE_ACTION_NONE 0
#define HGW_TABLE_ACTION_BUY  'B'
#define HGW_TABLE_ACTION_SELL 'S'
#define HGW_TABLE_PRICE_TOUCH    0
#define HGW_TABLE_PRICE_ABSOLUTE 1

/* Layouts public because the hot path reads entries inline
 * (hgw_table_read, from hgw_strategy_eval) and callers hold entries,
 * dimensions and table sets by value; the file header and patch layouts
 * are in hgw_table_internal.h. */

/* One entry: 64 bytes, the file's entry size on every architecture, and
 * 64-byte aligned, so it never straddles a cache line of 64 bytes or more
 * (RTE_CACHE_LINE_SIZE): a reader's copy touches one line. With 128-byte
 * lines two neighbouring entries share one; a patch of one then bounces
 * the line under readers of the other, which costs a retry-free miss, not
 * a torn read (each entry has its own sequence count). Fields after seq
 * are little-endian host integers (the file is little-endian; hedgewire
 * runs on LE hosts). */
struct hgw_table_entry {
	/* Even when stable, odd while written; 0 in files. Writer: odd
	 * (relaxed), release fence, fields (relaxed), even (release).
	 * Reader: acquire load, fields (relaxed), acquire fence, relaxed
	 * load; the same even value twice: the fields belong together. */
	_Atomic uint32_t seq;
	uint8_t action;         /* 0, 'B' or 'S' */
	uint8_t price_mode;     /* HGW_TABLE_PRICE_* */
	uint8_t tif;            /* OUCH time in force, sent as is */
	uint8_t display;        /* OUCH display, sent as is */
	int32_t price;          /* offset from the touch, or absolute */
	uint32_t quantity;
	uint32_t tag;           /* the model's id for the entry; not sent */
	uint8_t reserved[44];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct hgw_table_entry) == HGW_TABLE_ENTRY_SIZE,
	       "table entry is the file's 64 bytes");
_Static_assert(RTE_CACHE_LINE_SIZE % HGW_TABLE_ENTRY_SIZE == 0 &&
	       _Alignof(struct hgw_table_entry) == HGW_TABLE_ENTRY_SIZE,
	       "an entry never straddles a cache line");

struct hgw_table_dims {
	uint32_t instruments;   /* stock locates 0 .. instruments-1 */
	uint32_t spreads;       /* S: spread buckets */
	uint32_t imbalances;    /* I: bid/ask size-imbalance buckets */
	uint32_t tick;          /* price units per tick (100 = $0.01) */
};

/* A table in memory. entries is 64-byte aligned. */
struct hgw_table {
	struct hgw_table_dims dims;
	uint64_t nentries;
	struct hgw_table_entry *entries;
};

#define HGW_TABLE_MAX_REPLICAS 16

/* Replicas of one table in one DPDK region (one per worker). */
struct hgw_table_set {
	uint32_t n;
	struct hgw_table t[HGW_TABLE_MAX_REPLICAS];
	int contiguous;         /* 1: the region is IOVA-contiguous */
	void *mem;
	const struct rte_memzone *mz;   /* NULL: mem came from rte_malloc */
};

/* Why a trigger has no key (and so no decision). */
enum hgw_table_nokey {
	HGW_TABLE_KEY_OK = 0,
	HGW_TABLE_KEY_OUT_OF_TABLE,   /* locate >= instruments */
	HGW_TABLE_KEY_NO_QUOTE,       /* a side of the book is empty */
	HGW_TABLE_KEY_CROSSED,        /* ask <= bid */
};

/* Entries of a table with these dimensions, or 0 when a dimension is 0
 * or the product overflows 2^40 entries. */
uint64_t hgw_table_nentries(const struct hgw_table_dims *d);

/* The key of a book state (docs/protocols.md "Pricing table key"). Returns
 * HGW_TABLE_KEY_OK and sets *key, or why there is none. */
static inline enum hgw_table_nokey
hgw_table_key(const struct hgw_table_dims *d, uint16_t locate,
	      uint32_t bid, uint64_t bid_shares, uint32_t ask,
	      uint64_t ask_shares, uint64_t *key)
{
	if (locate >= d->instruments)
		return HGW_TABLE_KEY_OUT_OF_TABLE;
	if (bid_shares == 0 || ask_shares == 0)
		return HGW_TABLE_KEY_NO_QUOTE;
	if (ask <= bid)
		return HGW_TABLE_KEY_CROSSED;

	uint64_t spread = (ask - bid) / d->tick;
	uint64_t s = (spread == 0 ? 1 : spread);
	uint64_t i = (d->imbalances * bid_shares) / (bid_shares + ask_shares);

	s = (s > d->spreads ? d->spreads : s) - 1;
	if (i > d->imbalances - 1)
		i = d->imbalances - 1;
	*key = ((uint64_t)locate * d->spreads + s) * d->imbalances + i;
	return HGW_TABLE_KEY_OK;
}

/* Word views of an entry for the seqlock copies (they alias the fields,
 * hence may_alias). */
typedef uint32_t __attribute__((may_alias)) hgw_table_word32;
typedef uint64_t __attribute__((may_alias)) hgw_table_word64;

/* Copy the fields after seq (bytes 4..63) of a shared entry src into a
 * private dst, as relaxed atomic word loads: plain moves on x86 and Arm, but
 * a torn read racing hgw_table_write is then defined behaviour in C11 (the
 * seqlock discards it) rather than a data race, and ThreadSanitizer agrees.
 * Their order relative to the sequence count loads is set by the acquire
 * load and the acquire fence in hgw_table_read. */
static inline void
hgw_table_fields_load(struct hgw_table_entry *dst,
		      const struct hgw_table_entry *src)
{
	const char *s = (const char *)src;
	char *d = (char *)dst;

#define HGW_TABLE_LOAD_(type, o) (*(type *)(d + (o)) = \
	__atomic_load_n((const type *)(s + (o)), __ATOMIC_RELAXED))
	/* Unrolled by hand: compilers keep loops of atomics as loops. */
	HGW_TABLE_LOAD_(hgw_table_word32, 4);
	HGW_TABLE_LOAD_(hgw_table_word64, 8);
	HGW_TABLE_LOAD_(hgw_table_word64, 16);
	HGW_TABLE_LOAD_(hgw_table_word64, 24);
	HGW_TABLE_LOAD_(hgw_table_word64, 32);
	HGW_TABLE_LOAD_(hgw_table_word64, 40);
	HGW_TABLE_LOAD_(hgw_table_word64, 48);
	HGW_TABLE_LOAD_(hgw_table_word64, 56);
#undef HGW_TABLE_LOAD_
}

/* Copy entry key's fields into *out, consistent with respect to a
 * concurrent hgw_table_write (retries while the writer is in the middle).
 * out->seq is not written. */
static inline void
hgw_table_read(const struct hgw_table *t, uint64_t key,
	       struct hgw_table_entry *out)
{
	const struct hgw_table_entry *e = &t->entries[key];
	uint32_t sn;

	for (;;) {
		/* acquire: the field loads below come after this load */
		sn = atomic_load_explicit(&e->seq, memory_order_acquire);
		if (sn & 1)
			continue;	/* being written */
		hgw_table_fields_load(out, e);
		/* acquire fence: the field loads come before the second
		 * load of the count */
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&e->seq, memory_order_relaxed) == sn)
			return;
	}
}

/* Single writer: replace entry key's fields (seq is managed here). */
void hgw_table_write(struct hgw_table *t, uint64_t key,
		     const struct hgw_table_entry *val);

/* CRC-32C of a buffer (as in the file header), continuing from crc, the
 * value for the bytes before (0 to start; zlib crc32() convention):
 * hgw_table_crc32c(b, n, hgw_table_crc32c(a, m, 0)) is the CRC of a then b.
 * The CRC of "123456789" is 0xE3069283. */
uint32_t hgw_table_crc32c(const void *buf, size_t len, uint32_t crc);

/* Encode a file header (docs/protocols.md "Table file") for these dimensions
 * and the CRC-32C of the entries. For writers that stream their entries
 * (hgw-tablegen); hgw_table_file_write uses it too. */
void hgw_table_header_encode(uint8_t h[HGW_TABLE_HEADER_SIZE],
			     const struct hgw_table_dims *d, uint32_t crc);

/* Read and validate a file's header: 0, or -1 with one line in err
 * naming the problem (truncated, bad magic/version/entry size, entry
 * count not matching dimensions, file size wrong). */
int hgw_table_file_header(const char *path, struct hgw_table_dims *d,
			  uint64_t *nentries, char *err, size_t errlen);

/* Read a whole validated file into entries (nentries * 64 bytes,
 * 64-byte aligned, provided by the caller), checking the CRC. 0 or -1 with
 * err set. */
int hgw_table_file_read(const char *path, struct hgw_table_entry *entries,
			uint64_t nentries, char *err, size_t errlen);

/* Write a table file (header with CRC, then entries with seq zeroed). */
int hgw_table_file_write(const char *path, const struct hgw_table_dims *d,
			 const struct hgw_table_entry *entries,
			 char *err, size_t errlen);

/* Load n copies of a validated file into one DPDK region (needs the
 * EAL) of region bytes aligned to align, copy k at offsets[k] (a channel
 * map's layout: hgw_chanmap_replica_offsets), on socket. 0, or -1 with
 * one line in err naming the bad file or saying how much memory was
 * needed and how to get it. */
int hgw_table_load_replicas(const char *path, int socket, uint32_t n,
			    const uint64_t offsets[], uint64_t align,
			    uint64_t region, struct hgw_table_set *set,
			    char *err, size_t errlen);
void hgw_table_set_free(struct hgw_table_set *set);

/*
 * Patch files: text lines
 *   L S I action price_mode tif display price quantity tag
 * (L, S, I: locate, spread bucket, imbalance bucket; action 0|B|S;
 * tif/display single characters; '#' comments). A patch is read, parsed
 * and validated once (hgw_table_patch_load), then applied to each replica
 * by that replica's writer (hgw_table_patch_apply): every replica gets the
 * same entries whatever happens to the file in between.
 */
struct hgw_table_patch;         /* opaque: the validated entries, in file order */

#define HGW_TABLE_PATCH_MAX_BYTES (1u << 20)   /* default size limit */

/* Read, parse and validate the patch file path against dims. Refuses,
 * with one line in err naming the file (and file:line and the field for a
 * bad line): anything that is not a regular file (directory, FIFO, device,
 * socket; opened without blocking), a file larger than max_bytes (checked
 * before and while reading, since a file can grow), a NUL byte, a bad
 * line. The buffer never holds more than max_bytes of the file. Returns
 * the patch (malloc'd; hgw_table_patch_free), or NULL with err set and
 * nothing left allocated. Control plane only: it allocates and reads. */
struct hgw_table_patch *hgw_table_patch_load(const char *path,
					     const struct hgw_table_dims *dims,
					     size_t max_bytes, char *err,
					     size_t errlen);

/* Entries in the patch (lines that are not blank or comments). */
uint32_t hgw_table_patch_count(const struct hgw_table_patch *p);

/* The i-th entry, in file order, for logging: its key and its value
 * (seq 0). 0, or -EINVAL when i is out of range. */
int hgw_table_patch_entry(const struct hgw_table_patch *p, uint32_t i,
			  uint64_t *key, struct hgw_table_entry *e);

/* Write every entry of p to t in file order, each under its sequence count
 * as hgw_table_write does; the caller is t's single writer. t must have
 * the dimensions p was validated against: -EINVAL otherwise, nothing
 * written. Returns the number of entries written. No allocation, no
 * system call, does not modify p: it runs on a worker lcore, and several
 * workers may apply the same patch at once. */
long hgw_table_patch_apply(struct hgw_table *t,
			   const struct hgw_table_patch *p);

/* Free a patch (NULL is fine). */
void hgw_table_patch_free(struct hgw_table_patch *p);

#ifdef __cplusplus
}
#endif

#endif /* HGW_TABLE_H */
