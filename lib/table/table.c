/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the pricing table (docs/protocols.md "Trading rules": entry
 * layout and table file format).
 *
 * The file functions and the in-memory functions need no EAL; only
 * hgw_table_load_replicas / hgw_table_set_free use DPDK memory. Tables may be many GB, so
 * files are read and written in big chunks with the CRC computed on the way.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_memory.h>

#include "hgw_table.h"
#include "hgw_table_internal.h"

RTE_LOG_REGISTER(hgw_table_logtype, hgw.table, INFO);
#define TBL_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, hgw_table_logtype, "hgw_table: " __VA_ARGS__)

/* Bytes per read(2) when loading: big enough that system calls cost
 * nothing next to the copy, small enough that the CRC pass over the chunk
 * finds it still in the last-level cache (32 MB here). */
#define TBL_READ_CHUNK  (16u << 20)
/* Bounce buffer when writing (entries are copied to zero seq). */
#define TBL_WRITE_CHUNK (4u << 20)
/* hgw_table_nentries' limit. */
#define TBL_MAX_ENTRIES (1ull << 40)

_Static_assert(offsetof(struct hgw_table_entry, action) == 4, "layout");
_Static_assert(offsetof(struct hgw_table_entry, price_mode) == 5, "layout");
_Static_assert(offsetof(struct hgw_table_entry, tif) == 6, "layout");
_Static_assert(offsetof(struct hgw_table_entry, display) == 7, "layout");
_Static_assert(offsetof(struct hgw_table_entry, price) == 8, "layout");
_Static_assert(offsetof(struct hgw_table_entry, quantity) == 12, "layout");
_Static_assert(offsetof(struct hgw_table_entry, tag) == 16, "layout");
_Static_assert(offsetof(struct hgw_table_entry, reserved) == 20, "layout");
_Static_assert(sizeof(_Atomic uint32_t) == 4, "seq is 4 bytes");
_Static_assert(sizeof(struct hgw_table) <= RTE_CACHE_LINE_SIZE,
	       "struct hgw_table fits the line before the entries");

static int __attribute__((format(printf, 3, 4)))
tbl_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static uint32_t
get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t
get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void
put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

void
hgw_table_header_encode(uint8_t h[HGW_TABLE_HEADER_SIZE],
			const struct hgw_table_dims *d, uint32_t crc)
{
	memset(h, 0, HGW_TABLE_HEADER_SIZE);
	memcpy(h + HDR_MAGIC, HGW_TABLE_MAGIC, 8);
	put_le32(h + HDR_VERSION, HGW_TABLE_VERSION);
	put_le32(h + HDR_ENTRY_SIZE, HGW_TABLE_ENTRY_SIZE);
	put_le32(h + HDR_INSTR, d->instruments);
	put_le32(h + HDR_SPREADS, d->spreads);
	put_le32(h + HDR_IMBAL, d->imbalances);
	put_le32(h + HDR_TICK, d->tick);
	put_le64(h + HDR_COUNT, hgw_table_nentries(d));
	put_le32(h + HDR_CRC, crc);
}

uint64_t
hgw_table_nentries(const struct hgw_table_dims *d)
{
	uint64_t n;

	if (d == NULL || d->instruments == 0 || d->spreads == 0 ||
	    d->imbalances == 0)
		return 0;
	/* Two 32-bit factors cannot overflow 64 bits; check before the
	 * third. */
	n = (uint64_t)d->instruments * d->spreads;
	if (n > TBL_MAX_ENTRIES)
		return 0;
	n *= d->imbalances;
	return n > TBL_MAX_ENTRIES ? 0 : n;
}

/* ------------------------------------------------------------------ */
/* Writer                                                             */

void
hgw_table_write(struct hgw_table *t, uint64_t key,
		const struct hgw_table_entry *val)
{
	struct hgw_table_entry *e = &t->entries[key];
	const char *s = (const char *)val;
	char *d = (char *)e;

	/* Stores sn odd (relaxed), then a release fence: the field stores
	 * below cannot become visible before the odd count, so a reader that
	 * loads any of them fails its retry check (its acquire fence orders
	 * its field loads before its second count load). */
	uint32_t sn = atomic_load_explicit(&e->seq, memory_order_relaxed);

	atomic_store_explicit(&e->seq, sn + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	/* Every field but seq, as relaxed atomic word stores: plain moves,
	 * but a racing reader's loads are then not a data race (see
	 * hgw_table_fields_load). */
#define STORE(type, o) __atomic_store_n((type *)(d + (o)), \
	*(const type *)(s + (o)), __ATOMIC_RELAXED)
	STORE(hgw_table_word32, 4);
	STORE(hgw_table_word64, 8);
	STORE(hgw_table_word64, 16);
	STORE(hgw_table_word64, 24);
	STORE(hgw_table_word64, 32);
	STORE(hgw_table_word64, 40);
	STORE(hgw_table_word64, 48);
	STORE(hgw_table_word64, 56);
#undef STORE
	/* Stores sn even with release: all field stores above are visible
	 * before it, so a reader whose acquire load in read_begin sees this
	 * count copies the new entry whole. */
	atomic_store_explicit(&e->seq, sn + 2, memory_order_release);
}

/* ------------------------------------------------------------------ */
/* CRC-32C                                                            */

/*
 * rte_hash_crc(data, len, init) is the bare reflected Castagnoli register
 * update (the SSE4.2 / Armv8 crc32c instructions, or the table-driven
 * software fallback): the register starts at init and the result is not
 * inverted. The standard CRC-32C (docs/protocols.md "Table file": init
 * and final xor 0xFFFFFFFF) is therefore ~rte_hash_crc(buf, len,
 * 0xFFFFFFFF), and continuing from a previous standard value crc means
 * starting the register at ~crc.
 *
 * rte_hash_crc loads 8-byte words through a uint64_t pointer and takes a
 * 32-bit length: feed it 8-byte aligned pieces of at most 1 GB (the bytes
 * before the first aligned address go one at a time).
 */
uint32_t
hgw_table_crc32c(const void *buf, size_t len, uint32_t crc)
{
	const uint8_t *p = buf;
	uint32_t r = ~crc;

	while (len > 0 && ((uintptr_t)p & 7) != 0) {
		r = rte_hash_crc_1byte(*p++, r);
		len--;
	}
	while (len > 0) {
		uint32_t n = len > (1u << 30) ? (1u << 30) : (uint32_t)len;

		r = rte_hash_crc(p, n, r);
		p += n;
		len -= n;
	}
	return ~r;
}

/* ------------------------------------------------------------------ */
/* Files                                                              */

/* pread exactly len bytes at off: bytes read (less at end of file), or -1
 * with errno. */
static ssize_t
tbl_pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done,
				  off + (off_t)done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

static int
tbl_write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = write(fd, (const char *)buf + done, len - done);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

/* Validate the header of the open file fd (docs/protocols.md "Table file"):
 * 0 with *d, *nentries and *crc set, or -1 with err. */
static int
tbl_check_header(int fd, const char *path, struct hgw_table_dims *d,
		 uint64_t *nentries, uint32_t *crc, char *err, size_t errlen)
{
	uint8_t h[HGW_TABLE_HEADER_SIZE];
	struct hgw_table_dims dims;
	uint64_t count, n, want;
	uint32_t v;
	struct stat st;
	ssize_t r;

	if (fstat(fd, &st) != 0)
		return tbl_err(err, errlen, "table %s: cannot stat: %s", path,
			       strerror(errno));
	if (!S_ISREG(st.st_mode))
		return tbl_err(err, errlen, "table %s: not a regular file",
			       path);
	if (st.st_size == 0)
		return tbl_err(err, errlen,
			       "table %s: empty file (truncated: no header)",
			       path);
	r = tbl_pread_full(fd, h, sizeof(h), 0);
	if (r < 0)
		return tbl_err(err, errlen, "table %s: cannot read: %s", path,
			       strerror(errno));
	if ((size_t)r < sizeof(h))
		return tbl_err(err, errlen,
			       "table %s: truncated: %zd bytes, shorter than "
			       "the %d-byte header", path, r,
			       HGW_TABLE_HEADER_SIZE);
	if (memcmp(h + HDR_MAGIC, HGW_TABLE_MAGIC, 8) != 0)
		return tbl_err(err, errlen,
			       "table %s: bad magic (not a hedgewire table "
			       "file; expected %s)", path, HGW_TABLE_MAGIC);
	v = get_le32(h + HDR_VERSION);
	if (v != HGW_TABLE_VERSION)
		return tbl_err(err, errlen,
			       "table %s: unsupported format version %" PRIu32
			       " (expected %d)", path, v, HGW_TABLE_VERSION);
	v = get_le32(h + HDR_ENTRY_SIZE);
	if (v != HGW_TABLE_ENTRY_SIZE)
		return tbl_err(err, errlen,
			       "table %s: entry size %" PRIu32
			       " (expected %d)", path, v,
			       HGW_TABLE_ENTRY_SIZE);
	dims.instruments = get_le32(h + HDR_INSTR);
	dims.spreads = get_le32(h + HDR_SPREADS);
	dims.imbalances = get_le32(h + HDR_IMBAL);
	dims.tick = get_le32(h + HDR_TICK);
	count = get_le64(h + HDR_COUNT);
	n = hgw_table_nentries(&dims);
	if (n == 0)
		return tbl_err(err, errlen,
			       "table %s: bad dimensions %" PRIu32 " x %" PRIu32
			       " x %" PRIu32 " (zero, or over 2^40 entries)",
			       path, dims.instruments, dims.spreads,
			       dims.imbalances);
	if (dims.tick == 0)
		return tbl_err(err, errlen, "table %s: tick is 0", path);
	if (count != n)
		return tbl_err(err, errlen,
			       "table %s: entry count %" PRIu64 " does not "
			       "match instruments*spreads*imbalances = %" PRIu32
			       "*%" PRIu32 "*%" PRIu32 " = %" PRIu64, path,
			       count, dims.instruments, dims.spreads,
			       dims.imbalances, n);
	want = HGW_TABLE_HEADER_SIZE + n * HGW_TABLE_ENTRY_SIZE;
	if ((uint64_t)st.st_size != want)
		return tbl_err(err, errlen,
			       "table %s: file size %jd bytes, expected %" PRIu64
			       " (header and %" PRIu64 " entries of %d bytes): "
			       "%s", path, (intmax_t)st.st_size, want, n,
			       HGW_TABLE_ENTRY_SIZE,
			       (uint64_t)st.st_size < want ? "truncated" :
			       "trailing bytes");
	*d = dims;
	*nentries = n;
	if (crc != NULL)
		*crc = get_le32(h + HDR_CRC);
	return 0;
}

static int
tbl_open(const char *path, char *err, size_t errlen)
{
	int fd;

	if (path == NULL)
		return tbl_err(err, errlen, "table: no file name");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tbl_err(err, errlen, "table %s: cannot open: %s", path,
			       strerror(errno));
	return fd;
}

int
hgw_table_file_header(const char *path, struct hgw_table_dims *d,
		      uint64_t *nentries, char *err, size_t errlen)
{
	struct hgw_table_dims dims;
	uint64_t n;
	int fd, rc;

	fd = tbl_open(path, err, errlen);
	if (fd < 0)
		return -1;
	rc = tbl_check_header(fd, path, &dims, &n, NULL, err, errlen);
	close(fd);
	if (rc != 0)
		return -1;
	if (d != NULL)
		*d = dims;
	if (nentries != NULL)
		*nentries = n;
	return 0;
}

/* Read the n entries of the open, validated file fd into entries, checking
 * them against the header's CRC want; seq forced to 0. */
static int
tbl_read_entries(int fd, const char *path, struct hgw_table_entry *entries,
		 uint64_t n, uint32_t want, char *err, size_t errlen)
{
	const uint64_t per_chunk = TBL_READ_CHUNK / HGW_TABLE_ENTRY_SIZE;
	uint32_t crc = 0;
	uint64_t i = 0;

	/* Read-ahead hint only; failure is harmless. */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	while (i < n) {
		uint64_t k = n - i < per_chunk ? n - i : per_chunk;
		size_t len = (size_t)k * HGW_TABLE_ENTRY_SIZE;
		off_t off = (off_t)(HGW_TABLE_HEADER_SIZE +
				    i * HGW_TABLE_ENTRY_SIZE);
		ssize_t r = tbl_pread_full(fd, &entries[i], len, off);

		if (r < 0)
			return tbl_err(err, errlen,
				       "table %s: read error at byte %jd: %s",
				       path, (intmax_t)off, strerror(errno));
		if ((size_t)r < len)
			return tbl_err(err, errlen,
				       "table %s: truncated while reading "
				       "(entry %" PRIu64 " of %" PRIu64
				       "; file changed?)", path,
				       i + (uint64_t)r / HGW_TABLE_ENTRY_SIZE,
				       n);
		crc = hgw_table_crc32c(&entries[i], len, crc);
		for (uint64_t j = i; j < i + k; j++)
			atomic_init(&entries[j].seq, 0);
		i += k;
	}
	if (crc != want)
		return tbl_err(err, errlen,
			       "table %s: checksum mismatch: header 0x%08" PRIx32
			       " computed 0x%08" PRIx32, path, want, crc);
	return 0;
}

int
hgw_table_file_read(const char *path, struct hgw_table_entry *entries,
		    uint64_t nentries, char *err, size_t errlen)
{
	struct hgw_table_dims dims;
	uint32_t want;
	uint64_t n;
	int fd, rc;

	fd = tbl_open(path, err, errlen);
	if (fd < 0)
		return -1;
	rc = tbl_check_header(fd, path, &dims, &n, &want, err, errlen);
	if (rc == 0 && n != nentries)
		rc = tbl_err(err, errlen,
			     "table %s: has %" PRIu64 " entries, the buffer "
			     "holds %" PRIu64, path, n, nentries);
	if (rc == 0 && entries == NULL)
		rc = tbl_err(err, errlen, "table %s: no buffer", path);
	if (rc == 0)
		rc = tbl_read_entries(fd, path, entries, n, want, err, errlen);
	close(fd);
	return rc;
}

/*
 * Writes the header (CRC 0 at first), then the entries through a bounce
 * buffer with seq zeroed, computing the CRC on the way; then rewrites the
 * header with it. A file left by a failure is refused when read (size or
 * checksum). Call it from the writer's thread (or with no writer): entries
 * are copied without the sequence count.
 */
int
hgw_table_file_write(const char *path, const struct hgw_table_dims *d,
		     const struct hgw_table_entry *entries, char *err,
		     size_t errlen)
{
	const uint64_t per_chunk = TBL_WRITE_CHUNK / HGW_TABLE_ENTRY_SIZE;
	uint8_t h[HGW_TABLE_HEADER_SIZE];
	struct hgw_table_entry *buf;
	uint32_t crc = 0;
	uint64_t n, i;
	int fd, rc = 0;

	if (path == NULL || d == NULL || entries == NULL)
		return tbl_err(err, errlen, "table: bad arguments");
	n = hgw_table_nentries(d);
	if (n == 0)
		return tbl_err(err, errlen,
			       "table %s: bad dimensions %" PRIu32 " x %" PRIu32
			       " x %" PRIu32 " (zero, or over 2^40 entries)",
			       path, d->instruments, d->spreads, d->imbalances);
	if (d->tick == 0)
		return tbl_err(err, errlen, "table %s: tick is 0", path);
	buf = aligned_alloc(HGW_TABLE_ENTRY_SIZE, TBL_WRITE_CHUNK);
	if (buf == NULL)
		return tbl_err(err, errlen, "table %s: out of memory", path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(buf);
		return tbl_err(err, errlen, "table %s: cannot create: %s",
			       path, strerror(errno));
	}
	/* CRC 0 until the entries are written; rewritten at the end */
	hgw_table_header_encode(h, d, 0);
	if (tbl_write_full(fd, h, sizeof(h)) != 0)
		rc = -1;
	for (i = 0; rc == 0 && i < n;) {
		uint64_t k = n - i < per_chunk ? n - i : per_chunk;
		size_t len = (size_t)k * HGW_TABLE_ENTRY_SIZE;

		memcpy(buf, &entries[i], len);
		for (uint64_t j = 0; j < k; j++)
			atomic_init(&buf[j].seq, 0);
		crc = hgw_table_crc32c(buf, len, crc);
		if (tbl_write_full(fd, buf, len) != 0)
			rc = -1;
		i += k;
	}
	if (rc == 0) {
		hgw_table_header_encode(h, d, crc);
		errno = EIO;            /* for a short pwrite */
		if (pwrite(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
			rc = -1;
	}
	if (rc != 0)
		tbl_err(err, errlen, "table %s: write error: %s", path,
			strerror(errno != 0 ? errno : EIO));
	free(buf);
	if (close(fd) != 0 && rc == 0)
		rc = tbl_err(err, errlen, "table %s: write error: %s", path,
			     strerror(errno));
	return rc;
}

/* ------------------------------------------------------------------ */
/* DPDK memory                                                        */

/*
 * N copies of a file in one DPDK region: copy k at offsets[k] (a channel
 * map's layout). The region's physical base must be aligned for that
 * layout to hold, so an IOVA-contiguous memzone is tried first and any
 * memory second; the caller's verification says what that gave. The file
 * is read (and its CRC checked) once, into copy 0, then copied.
 */
int
hgw_table_load_replicas(const char *path, int socket, uint32_t n,
			const uint64_t offsets[], uint64_t align,
			uint64_t region, struct hgw_table_set *set,
			char *err, size_t errlen)
{
	struct hgw_table_dims dims;
	uint64_t nentries, span;
	uint32_t want;
	int fd;

	memset(set, 0, sizeof(*set));
	if (n == 0 || n > HGW_TABLE_MAX_REPLICAS)
		return tbl_err(err, errlen, "table %s: %u replicas (1..%u)",
			       path, n, HGW_TABLE_MAX_REPLICAS);
	fd = tbl_open(path, err, errlen);
	if (fd < 0)
		return -1;
	if (tbl_check_header(fd, path, &dims, &nentries, &want, err,
			     errlen) != 0) {
		close(fd);
		return -1;
	}
	span = nentries * HGW_TABLE_ENTRY_SIZE;
	if (offsets[n - 1] + span > region) {
		close(fd);
		return tbl_err(err, errlen, "table %s: region of %" PRIu64
			       " bytes cannot hold copy %u at %" PRIu64, path,
			       region, n - 1, offsets[n - 1]);
	}
	if (align < RTE_CACHE_LINE_SIZE)
		align = RTE_CACHE_LINE_SIZE;
	/* 1 GB pages first (a replica layout then spans few pages, so the
	 * physical bits the channel map reads are mostly the virtual ones),
	 * then any page size, contiguous; then anything. */
	set->mz = rte_memzone_reserve_aligned("hgw_table", region, socket,
					      RTE_MEMZONE_IOVA_CONTIG |
					      RTE_MEMZONE_1GB,
					      (unsigned int)align);
	if (set->mz == NULL)
		set->mz = rte_memzone_reserve_aligned("hgw_table", region,
						      socket,
						      RTE_MEMZONE_IOVA_CONTIG,
						      (unsigned int)align);
	set->contiguous = set->mz != NULL;
	set->mem = set->mz != NULL ? set->mz->addr :
		   rte_malloc_socket("hgw_table", region, align, socket);
	if (set->mem == NULL) {
		close(fd);
		return tbl_err(err, errlen,
			"table %s: %u replica(s) need %" PRIu64 " MB aligned to %"
			PRIu64 " KB; DPDK could not allocate it (give EAL more "
			"memory with -m or --socket-mem, reserve huge pages with "
			"scripts/setup.sh, or lower [table] replicas)", path, n,
			(region + (1u << 20) - 1) >> 20, align >> 10);
	}
	for (uint32_t k = 0; k < n; k++) {
		set->t[k].dims = dims;
		set->t[k].nentries = nentries;
		set->t[k].entries = (struct hgw_table_entry *)(void *)
			((uint8_t *)set->mem + offsets[k]);
	}
	set->n = n;
	if (tbl_read_entries(fd, path, set->t[0].entries, nentries, want, err,
			     errlen) != 0) {
		close(fd);
		hgw_table_set_free(set);
		return -1;
	}
	close(fd);
	for (uint32_t k = 1; k < n; k++)
		memcpy(set->t[k].entries, set->t[0].entries, span);
	TBL_LOG(INFO, "%s: %" PRIu32 " instruments x %" PRIu32 " spreads x %"
		PRIu32 " imbalances, tick %" PRIu32 ": %" PRIu64 " entries, %"
		PRIu64 " MB x %u replicas%s, crc 0x%08" PRIx32 "\n", path,
		dims.instruments, dims.spreads, dims.imbalances, dims.tick,
		nentries, span >> 20, n,
		set->contiguous ? " (IOVA-contiguous)" : "", want);
	return 0;
}

void
hgw_table_set_free(struct hgw_table_set *set)
{
	if (set->mz != NULL)
		rte_memzone_free(set->mz);
	else
		rte_free(set->mem);
	memset(set, 0, sizeof(*set));
}

/* ------------------------------------------------------------------ */
/* Patch files                                                        */

/* Decimal integer token in [min, max] (optional '-' when min < 0). */
static int
tbl_num(const char *s, int64_t min, int64_t max, int64_t *v)
{
	const char *p = s;
	char *end;
	long long x;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || x < min || x > max)
		return -1;
	*v = x;
	return 0;
}

static const char *const tbl_patch_fields[] = {
	"locate", "spread bucket", "imbalance bucket", "action", "price_mode",
	"tif", "display", "price", "quantity", "tag",
};
#define TBL_PATCH_NFIELDS \
	(sizeof(tbl_patch_fields) / sizeof(tbl_patch_fields[0]))

/* Parse one patch line (NUL-terminated, no newline) into *p: 1 for an
 * entry, 0 for a blank or comment line, -1 with err. */
static int
tbl_patch_line(const struct hgw_table_dims *d, const char *path,
	       unsigned long lineno, char *line, struct tbl_patch_ent *p,
	       char *err, size_t errlen)
{
	char *tok[TBL_PATCH_NFIELDS];
	unsigned int nf = 0, f;
	char *save = NULL, *s;
	int64_t v[TBL_PATCH_NFIELDS];

	for (s = strtok_r(line, " \t\r\n\v\f", &save); s != NULL;
	     s = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (s[0] == '#')
			break;
		if (nf == TBL_PATCH_NFIELDS)
			return tbl_err(err, errlen,
				       "patch %s:%lu: extra field '%s' after "
				       "tag", path, lineno, s);
		tok[nf++] = s;
	}
	if (nf == 0)
		return 0;
	if (nf < TBL_PATCH_NFIELDS)
		return tbl_err(err, errlen,
			       "patch %s:%lu: missing field %s (want: L S I "
			       "action price_mode tif display price quantity "
			       "tag)", path, lineno, tbl_patch_fields[nf]);

	memset(v, 0, sizeof(v));
	for (f = 0; f < TBL_PATCH_NFIELDS; f++) {
		const char *x = tok[f];
		int bad = 0;

		switch (f) {
		case 0:
			bad = tbl_num(x, 0, (int64_t)d->instruments - 1,
				      &v[f]);
			break;
		case 1:
			bad = tbl_num(x, 0, (int64_t)d->spreads - 1, &v[f]);
			break;
		case 2:
			bad = tbl_num(x, 0, (int64_t)d->imbalances - 1,
				      &v[f]);
			break;
		case 3:
			if (strcmp(x, "0") == 0)
				v[f] = HGW_TABLE_ACTION_NONE;
			else if (strcmp(x, "B") == 0)
				v[f] = HGW_TABLE_ACTION_BUY;
			else if (strcmp(x, "S") == 0)
				v[f] = HGW_TABLE_ACTION_SELL;
			else
				bad = 1;
			break;
		case 4:
			bad = tbl_num(x, 0, 1, &v[f]);
			break;
		case 5:
		case 6:
			/* One printable, non-blank byte. */
			if (x[0] <= 0x20 || x[0] > 0x7e || x[1] != '\0')
				bad = 1;
			else
				v[f] = (uint8_t)x[0];
			break;
		case 7:
			bad = tbl_num(x, INT32_MIN, INT32_MAX, &v[f]);
			break;
		default:
			bad = tbl_num(x, 0, UINT32_MAX, &v[f]);
			break;
		}
		if (bad)
			return tbl_err(err, errlen,
				       "patch %s:%lu: bad %s '%s'%s", path,
				       lineno, tbl_patch_fields[f], x,
				       f == 0 ? " (not below instruments)" :
				       f == 1 ? " (not below spreads)" :
				       f == 2 ? " (not below imbalances)" :
				       f == 3 ? " (want 0, B or S)" :
				       f == 4 ? " (want 0 or 1)" :
				       f <= 6 ? " (want one printable "
						"character)" :
				       f == 7 ? " (want a 32-bit signed "
						"integer)" :
				       " (want a 32-bit unsigned integer)");
	}
	memset(p, 0, sizeof(*p));
	p->key = ((uint64_t)v[0] * d->spreads + (uint64_t)v[1]) *
		 d->imbalances + (uint64_t)v[2];
	p->action = (uint8_t)v[3];
	p->price_mode = (uint8_t)v[4];
	p->tif = (uint8_t)v[5];
	p->display = (uint8_t)v[6];
	p->price = (int32_t)v[7];
	p->quantity = (uint32_t)v[8];
	p->tag = (uint32_t)v[9];
	return 1;
}


/* What a file that is not a regular file is, for the message. */
static const char *
tbl_file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/*
 * The whole of a patch file in one buffer, NUL-terminated (*len bytes
 * before the terminator). Opened without blocking (a FIFO with no writer
 * would wait for one) and refused unless regular, so that what is read is
 * bounded by the size; the size is checked before reading and again while
 * reading, since the file may grow in between. The buffer never holds more
 * than max_bytes; a single byte is read past it to tell "exactly
 * max_bytes" from "more", and thrown away.
 */
static char *
tbl_patch_slurp(const char *path, size_t max_bytes, size_t *len, char *err,
		size_t errlen)
{
	struct stat st;
	size_t cap, n = 0;
	char *buf = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		tbl_err(err, errlen, "patch %s: cannot open: %s", path,
			strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		tbl_err(err, errlen, "patch %s: cannot stat: %s", path,
			strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		tbl_err(err, errlen, "patch %s: %s, not a regular file", path,
			tbl_file_kind(st.st_mode));
		goto fail;
	}
	if (st.st_size < 0 || (uintmax_t)st.st_size > max_bytes) {
		tbl_err(err, errlen, "patch %s: %jd bytes, over the limit of "
			"%zu", path, (intmax_t)st.st_size, max_bytes);
		goto fail;
	}
	/* The stated size, plus room to notice growth; files in /proc say
	 * 0 and have content, so start from a page at least. */
	cap = (size_t)st.st_size + 1;
	if (cap < 4096)
		cap = 4096;
	if (cap > max_bytes + 1)
		cap = max_bytes + 1;
	buf = malloc(cap);
	if (buf == NULL) {
		tbl_err(err, errlen, "patch %s: out of memory", path);
		goto fail;
	}
	for (;;) {
		ssize_t r;

		if (n == max_bytes) {
			char probe;

			r = read(fd, &probe, 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				goto read_error;
			if (r > 0) {
				tbl_err(err, errlen, "patch %s: over the "
					"limit of %zu bytes while reading "
					"(more than its size said)", path,
					max_bytes);
				goto fail;
			}
			break;
		}
		if (n + 1 == cap) {
			size_t ncap = cap > max_bytes / 2 ? max_bytes + 1 :
				      cap * 2;
			char *q = realloc(buf, ncap);

			if (q == NULL) {
				tbl_err(err, errlen, "patch %s: out of memory",
					path);
				goto fail;
			}
			buf = q;
			cap = ncap;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto read_error;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;

read_error:
	tbl_err(err, errlen, "patch %s: read error at byte %zu: %s", path, n,
		strerror(errno));
fail:
	free(buf);
	close(fd);
	return NULL;
}

struct hgw_table_patch *
hgw_table_patch_load(const char *path, const struct hgw_table_dims *dims,
		     size_t max_bytes, char *err, size_t errlen)
{
	struct hgw_table_patch *p = NULL;
	struct tbl_patch_ent *ent = NULL, *q;
	size_t len = 0, np = 0, cap = 0;
	unsigned long lineno = 0;
	char *buf, *line, *end;

	if (path == NULL || dims == NULL || hgw_table_nentries(dims) == 0) {
		tbl_err(err, errlen, "patch: bad arguments");
		return NULL;
	}
	/* Room for the terminator and the probe byte without overflow. */
	if (max_bytes > SIZE_MAX / 4)
		max_bytes = SIZE_MAX / 4;
	buf = tbl_patch_slurp(path, max_bytes, &len, err, errlen);
	if (buf == NULL)
		return NULL;
	/* Parse and validate every line before anything can be applied. */
	for (line = buf; line < buf + len; line = end + 1) {
		int rc;

		lineno++;
		end = memchr(line, '\n', (size_t)(buf + len - line));
		if (end == NULL)
			end = buf + len;        /* last line, no newline */
		if (memchr(line, '\0', (size_t)(end - line)) != NULL) {
			tbl_err(err, errlen, "patch %s:%lu: NUL byte", path,
				lineno);
			goto fail;
		}
		*end = '\0';
		if (np == cap) {
			size_t ncap = cap ? cap * 2 : 256;

			q = realloc(ent, ncap * sizeof(*ent));
			if (q == NULL) {
				tbl_err(err, errlen, "patch %s: out of memory",
					path);
				goto fail;
			}
			ent = q;
			cap = ncap;
		}
		rc = tbl_patch_line(dims, path, lineno, line, &ent[np], err,
				    errlen);
		if (rc < 0)
			goto fail;
		np += (size_t)rc;
		if (np == UINT32_MAX) {
			tbl_err(err, errlen, "patch %s:%lu: too many entries",
				path, lineno);
			goto fail;
		}
	}
	p = malloc(sizeof(*p));
	if (p == NULL) {
		tbl_err(err, errlen, "patch %s: out of memory", path);
		goto fail;
	}
	p->dims = *dims;
	p->n = (uint32_t)np;
	p->ent = ent;
	free(buf);
	return p;

fail:
	free(ent);
	free(buf);
	return NULL;
}

uint32_t
hgw_table_patch_count(const struct hgw_table_patch *p)
{
	return p != NULL ? p->n : 0;
}

static void
tbl_patch_entry(const struct tbl_patch_ent *s, struct hgw_table_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->action = s->action;
	e->price_mode = s->price_mode;
	e->tif = s->tif;
	e->display = s->display;
	e->price = s->price;
	e->quantity = s->quantity;
	e->tag = s->tag;
}

int
hgw_table_patch_entry(const struct hgw_table_patch *p, uint32_t i,
		      uint64_t *key, struct hgw_table_entry *e)
{
	if (p == NULL || i >= p->n)
		return -EINVAL;
	if (key != NULL)
		*key = p->ent[i].key;
	if (e != NULL)
		tbl_patch_entry(&p->ent[i], e);
	return 0;
}

long
hgw_table_patch_apply(struct hgw_table *t, const struct hgw_table_patch *p)
{
	struct hgw_table_entry e;

	/* The keys were computed, and range-checked, for p->dims: on any
	 * other shape they would land on other entries or past the end. */
	if (t == NULL || p == NULL || t->entries == NULL ||
	    t->dims.instruments != p->dims.instruments ||
	    t->dims.spreads != p->dims.spreads ||
	    t->dims.imbalances != p->dims.imbalances ||
	    t->dims.tick != p->dims.tick ||
	    t->nentries != hgw_table_nentries(&p->dims))
		return -EINVAL;
	for (uint32_t i = 0; i < p->n; i++) {
		tbl_patch_entry(&p->ent[i], &e);
		hgw_table_write(t, p->ent[i].key, &e);
	}
	return (long)p->n;
}

void
hgw_table_patch_free(struct hgw_table_patch *p)
{
	if (p == NULL)
		return;
	free(p->ent);
	free(p);
}
