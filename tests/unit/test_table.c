/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests for lib/table: entry layout, key function, CRC-32C, table
 * files (round trip and every refusal), patch files (loaded once, applied
 * to replicas; every refusal), and the seqlock under a concurrent writer.
 * No EAL: memory comes from aligned_alloc.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hgw_table.h"
#include "hgw_test.h"

static char tmpdir[64];
static double now(void);
static char errbuf[512];

static const char *
tmp_path(const char *name)
{
	static char p[4][128];
	static unsigned int n;
	char *s = p[n++ % 4];

	snprintf(s, sizeof(p[0]), "%s/%s", tmpdir, name);
	return s;
}

static struct hgw_table_entry *
entries_alloc(uint64_t n)
{
	struct hgw_table_entry *e = aligned_alloc(64, n * sizeof(*e));

	if (e == NULL) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	memset(e, 0, n * sizeof(*e));
	return e;
}

/* Deterministic entry contents from the index (seq left nonzero to check
 * that files carry 0). */
static void
fill(struct hgw_table_entry *e, uint64_t n, uint32_t salt)
{
	for (uint64_t k = 0; k < n; k++) {
		uint32_t x = (uint32_t)(k * 2654435761u) ^ salt;

		memset(&e[k], 0, sizeof(e[k]));
		atomic_init(&e[k].seq, 6);
		e[k].action = (x & 3) == 0 ? 0 : (x & 1) ? 'B' : 'S';
		e[k].price_mode = (x >> 2) & 1;
		e[k].tif = (x & 8) ? '3' : '0';
		e[k].display = 'Y';
		e[k].price = (int32_t)(x % 2001) - 1000;
		e[k].quantity = 100 * (1 + (x >> 8) % 10);
		e[k].tag = (uint32_t)k;
		if (k % 7 == 0)
			e[k].reserved[43] = (uint8_t)k;   /* CRC covers it */
	}
}

static int
contains(const char *s, const char *word)
{
	if (strstr(s, word) == NULL) {
		printf("# message '%s' lacks '%s'\n", s, word);
		return 0;
	}
	return 1;
}

static uint32_t
ref_crc32c(const void *buf, size_t n)
{
	const uint8_t *p = buf;
	uint32_t c = 0xFFFFFFFFu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
	}
	return ~c;
}

static int
read_file(const char *path, uint8_t **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0)
		return -1;
	*len = (size_t)st.st_size;
	*buf = malloc(*len + 1);
	if (*buf == NULL || read(fd, *buf, *len) != (ssize_t)*len) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int rc = 0;

	if (fd < 0)
		return -1;
	if (len && write(fd, buf, len) != (ssize_t)len)
		rc = -1;
	close(fd);
	return rc;
}

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);          /* little-endian host */
}

static void
put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* ------------------------------------------------------------------ */

static void
test_layout(void)
{
	HGW_CHECK_EQ(sizeof(struct hgw_table_entry), 64);
	HGW_CHECK_EQ(_Alignof(struct hgw_table_entry), 64);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, seq), 0);
	HGW_CHECK_EQ(sizeof(((struct hgw_table_entry *)0)->seq), 4);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, action), 4);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, price_mode), 5);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, tif), 6);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, display), 7);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, price), 8);
	HGW_CHECK_EQ(sizeof(((struct hgw_table_entry *)0)->price), 4);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, quantity), 12);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, tag), 16);
	HGW_CHECK_EQ(offsetof(struct hgw_table_entry, reserved), 20);
	HGW_CHECK_EQ(sizeof(((struct hgw_table_entry *)0)->reserved), 44);
	HGW_CHECK_EQ(HGW_TABLE_ACTION_BUY, 'B');
	HGW_CHECK_EQ(HGW_TABLE_ACTION_SELL, 'S');
	HGW_CHECK_EQ(HGW_TABLE_PRICE_ABSOLUTE, 1);
}

static void
test_nentries(void)
{
	struct hgw_table_dims d = { 4, 4, 8, 100 };

	HGW_CHECK_EQ(hgw_table_nentries(&d), 128);
	d.tick = 0;                     /* not a dimension */
	HGW_CHECK_EQ(hgw_table_nentries(&d), 128);
	d = (struct hgw_table_dims){ 0, 4, 8, 100 };
	HGW_CHECK_EQ(hgw_table_nentries(&d), 0);
	d = (struct hgw_table_dims){ 4, 0, 8, 100 };
	HGW_CHECK_EQ(hgw_table_nentries(&d), 0);
	d = (struct hgw_table_dims){ 4, 4, 0, 100 };
	HGW_CHECK_EQ(hgw_table_nentries(&d), 0);
	d = (struct hgw_table_dims){ 1u << 16, 1u << 12, 1u << 12, 1 };
	HGW_CHECK_EQ(hgw_table_nentries(&d), 1ull << 40);
	d = (struct hgw_table_dims){ (1u << 16) + 1, 1u << 12, 1u << 12, 1 };
	HGW_CHECK_EQ(hgw_table_nentries(&d), 0);
	d = (struct hgw_table_dims){ UINT32_MAX, UINT32_MAX, UINT32_MAX, 1 };
	HGW_CHECK_EQ(hgw_table_nentries(&d), 0);
	d = (struct hgw_table_dims){ 1u << 16, 1u << 16, 1u << 16, 1 };
	HGW_CHECK_EQ(hgw_table_nentries(&d), 0);
	HGW_CHECK_EQ(hgw_table_nentries(NULL), 0);
}

static void
test_key(void)
{
	/* 4 instruments, S = 4, I = 8, one-cent tick. */
	const struct hgw_table_dims d = { 4, 4, 8, 100 };
	uint64_t key = 12345;

	/* No-key reasons, in docs/protocols.md "Pricing table key" order. */
	HGW_CHECK_EQ(hgw_table_key(&d, 4, 10000, 100, 10100, 100, &key),
		     HGW_TABLE_KEY_OUT_OF_TABLE);
	HGW_CHECK_EQ(hgw_table_key(&d, 65535, 10000, 0, 10000, 0, &key),
		     HGW_TABLE_KEY_OUT_OF_TABLE);
	HGW_CHECK_EQ(hgw_table_key(&d, 1, 10000, 0, 10100, 100, &key),
		     HGW_TABLE_KEY_NO_QUOTE);
	HGW_CHECK_EQ(hgw_table_key(&d, 1, 10000, 100, 10100, 0, &key),
		     HGW_TABLE_KEY_NO_QUOTE);
	HGW_CHECK_EQ(hgw_table_key(&d, 1, 10000, 0, 9000, 0, &key),
		     HGW_TABLE_KEY_NO_QUOTE);
	HGW_CHECK_EQ(hgw_table_key(&d, 1, 10000, 100, 10000, 100, &key),
		     HGW_TABLE_KEY_CROSSED);      /* locked */
	HGW_CHECK_EQ(hgw_table_key(&d, 1, 10100, 100, 10000, 100, &key),
		     HGW_TABLE_KEY_CROSSED);
	HGW_CHECK_EQ(key, 12345);                 /* untouched */

	/* Spread 1 tick, equal sizes: s 0, i = 8*100/200 = 4;
	 * key = (2*4 + 0)*8 + 4 = 68. */
	HGW_CHECK_EQ(hgw_table_key(&d, 2, 10000, 100, 10100, 100, &key),
		     HGW_TABLE_KEY_OK);
	HGW_CHECK_EQ(key, 68);
	/* Sub-tick spread (half a cent): 0 ticks counts as 1. */
	hgw_table_key(&d, 2, 10000, 100, 10050, 100, &key);
	HGW_CHECK_EQ(key, 68);
	hgw_table_key(&d, 2, 10000, 100, 10001, 100, &key);
	HGW_CHECK_EQ(key, 68);
	/* 1.99 ticks is 1 tick; 2 ticks s 1; 2.5 ticks s 1. */
	hgw_table_key(&d, 2, 10000, 100, 10199, 100, &key);
	HGW_CHECK_EQ(key, 68);
	hgw_table_key(&d, 2, 10000, 100, 10200, 100, &key);
	HGW_CHECK_EQ(key, (2 * 4 + 1) * 8 + 4);
	hgw_table_key(&d, 2, 10000, 100, 10250, 100, &key);
	HGW_CHECK_EQ(key, (2 * 4 + 1) * 8 + 4);
	/* S ticks is the last bucket; beyond S clamps to it. */
	hgw_table_key(&d, 2, 10000, 100, 10400, 100, &key);
	HGW_CHECK_EQ(key, (2 * 4 + 3) * 8 + 4);
	hgw_table_key(&d, 2, 10000, 100, 10500, 100, &key);
	HGW_CHECK_EQ(key, (2 * 4 + 3) * 8 + 4);
	hgw_table_key(&d, 2, 1, 100, 4000000000u, 100, &key);
	HGW_CHECK_EQ(key, (2 * 4 + 3) * 8 + 4);
	/* Large prices near 2^32: no overflow in the spread. */
	hgw_table_key(&d, 2, 4294967000u, 100, 4294967295u, 100, &key);
	HGW_CHECK_EQ(key, (2 * 4 + 1) * 8 + 4);   /* 2.95 ticks */

	/* Imbalance extremes: almost all ask -> 0; almost all bid ->
	 * floor(8 * 10^6 / (10^6 + 1)) = 7 = I - 1. */
	hgw_table_key(&d, 0, 10000, 1, 10100, 1000000, &key);
	HGW_CHECK_EQ(key, 0);
	hgw_table_key(&d, 0, 10000, 1000000, 10100, 1, &key);
	HGW_CHECK_EQ(key, 7);
	hgw_table_key(&d, 0, 10000, UINT32_MAX, 10100, 1, &key);
	HGW_CHECK_EQ(key, 7);
	/* Exact bucket boundaries: 8*1/8 = 1 exactly, 8*1/9 < 1, 8*3/8 = 3,
	 * 8*7/8 = 7, 8*5/9 = 4.4. */
	hgw_table_key(&d, 0, 10000, 1, 10100, 7, &key);
	HGW_CHECK_EQ(key, 1);
	hgw_table_key(&d, 0, 10000, 1, 10100, 8, &key);
	HGW_CHECK_EQ(key, 0);
	hgw_table_key(&d, 0, 10000, 3, 10100, 5, &key);
	HGW_CHECK_EQ(key, 3);
	hgw_table_key(&d, 0, 10000, 7, 10100, 1, &key);
	HGW_CHECK_EQ(key, 7);
	hgw_table_key(&d, 0, 10000, 5, 10100, 4, &key);
	HGW_CHECK_EQ(key, 4);
	/* Last entry of the table. */
	hgw_table_key(&d, 3, 10000, 1000, 90000, 1, &key);
	HGW_CHECK_EQ(key, hgw_table_nentries(&d) - 1);

	/* One bucket each way: every valid book maps to the instrument. */
	const struct hgw_table_dims one = { 10, 1, 1, 100 };

	hgw_table_key(&one, 9, 10000, 1, 99999, 1000, &key);
	HGW_CHECK_EQ(key, 9);
	/* A coarse tick: $1.00 (10000 units). */
	const struct hgw_table_dims coarse = { 10, 16, 2, 10000 };

	hgw_table_key(&coarse, 1, 10000, 5, 39999, 5, &key);
	HGW_CHECK_EQ(key, (1 * 16 + 1) * 2 + 1);
}

static void
test_crc(void)
{
	static const char check[] = "123456789";
	uint8_t buf[1100], zeros[32], ones[32];
	uint32_t s = 12345;

	HGW_CHECK_EQ(hgw_table_crc32c(check, 9, 0), 0xE3069283u);
	HGW_CHECK_EQ(ref_crc32c(check, 9), 0xE3069283u);
	HGW_CHECK_EQ(hgw_table_crc32c(check, 0, 0), 0);
	/* RFC 3720 (iSCSI) B.4 vectors. */
	memset(zeros, 0, sizeof(zeros));
	memset(ones, 0xff, sizeof(ones));
	HGW_CHECK_EQ(hgw_table_crc32c(zeros, 32, 0), 0x8A9136AAu);
	HGW_CHECK_EQ(hgw_table_crc32c(ones, 32, 0), 0x62A8AB43u);
	/* Continuation: any split gives the whole. */
	for (size_t k = 0; k <= 9; k++)
		HGW_CHECK_EQ(hgw_table_crc32c(check + k, 9 - k,
				hgw_table_crc32c(check, k, 0)), 0xE3069283u);
	/* Against the bitwise reference at every alignment and odd
	 * lengths. */
	for (size_t i = 0; i < sizeof(buf); i++) {
		s = s * 1103515245u + 12345u;
		buf[i] = (uint8_t)(s >> 16);
	}
	int bad = 0;

	for (size_t off = 0; off < 16; off++)
		for (size_t len = 0; len < 80; len++)
			bad += hgw_table_crc32c(buf + off, len, 0) !=
			       ref_crc32c(buf + off, len);
	for (size_t off = 0; off < 9; off++) {
		size_t len = sizeof(buf) - off;

		bad += hgw_table_crc32c(buf + off, len, 0) !=
		       ref_crc32c(buf + off, len);
		bad += hgw_table_crc32c(buf + off + 100, len - 100,
			hgw_table_crc32c(buf + off, 100, 0)) !=
		       ref_crc32c(buf + off, len);
	}
	HGW_CHECK_EQ(bad, 0);
}

/* Write a table, check the bytes of the file independently, read back. */
static void
roundtrip(const struct hgw_table_dims *d, const char *name)
{
	uint64_t n = hgw_table_nentries(d), n2 = 0;
	struct hgw_table_entry *a = entries_alloc(n), *b = entries_alloc(n);
	struct hgw_table_dims d2;
	const char *path = tmp_path(name);
	uint8_t *raw = NULL;
	size_t len = 0;
	int diff = 0;

	fill(a, n, 0x5a5a);
	HGW_CHECK_EQ(hgw_table_file_write(path, d, a, errbuf,
					  sizeof(errbuf)), 0);
	HGW_CHECK_EQ(read_file(path, &raw, &len), 0);
	HGW_CHECK_EQ(len, 64 + 64 * n);
	if (raw != NULL && len == 64 + 64 * n) {
		HGW_CHECK(memcmp(raw, "HGWTABL1", 8) == 0);
		HGW_CHECK_EQ(get32(raw + 8), 1);
		HGW_CHECK_EQ(get32(raw + 12), 64);
		HGW_CHECK_EQ(get32(raw + 16), d->instruments);
		HGW_CHECK_EQ(get32(raw + 20), d->spreads);
		HGW_CHECK_EQ(get32(raw + 24), d->imbalances);
		HGW_CHECK_EQ(get32(raw + 28), d->tick);
		HGW_CHECK_EQ(get32(raw + 32) | (uint64_t)get32(raw + 36) << 32,
			     n);
		HGW_CHECK_EQ(get32(raw + 40), ref_crc32c(raw + 64, len - 64));
		for (int i = 44; i < 64; i++)
			diff += raw[i] != 0;
		/* Entries as in memory, seq 0. */
		for (uint64_t k = 0; k < n; k++) {
			diff += get32(raw + 64 + 64 * k) != 0;
			diff += memcmp(raw + 64 + 64 * k + 4,
				       (const char *)&a[k] + 4, 60) != 0;
		}
		HGW_CHECK_EQ(diff, 0);
	}
	free(raw);

	HGW_CHECK_EQ(hgw_table_file_header(path, &d2, &n2, errbuf,
					   sizeof(errbuf)), 0);
	HGW_CHECK(memcmp(&d2, d, sizeof(d2)) == 0);
	HGW_CHECK_EQ(n2, n);
	memset(b, 0xee, n * sizeof(*b));
	HGW_CHECK_EQ(hgw_table_file_read(path, b, n, errbuf, sizeof(errbuf)),
		     0);
	diff = 0;
	for (uint64_t k = 0; k < n; k++) {
		diff += atomic_load(&b[k].seq) != 0;
		diff += memcmp((const char *)&a[k] + 4, (const char *)&b[k] + 4,
			       60) != 0;
	}
	HGW_CHECK_EQ(diff, 0);
	free(a);
	free(b);
}

static void
test_file_roundtrip(void)
{
	const struct hgw_table_dims small = { 5, 3, 4, 100 };
	/* 327680 entries, 20 MB: several read and write chunks. */
	const struct hgw_table_dims big = { 1280, 16, 16, 1 };

	roundtrip(&small, "small.tbl");
	roundtrip(&big, "big.tbl");
	/* Bad dimensions are refused before creating anything. */
	struct hgw_table_dims z = { 0, 3, 4, 100 };
	struct hgw_table_entry e[1];

	memset(e, 0, sizeof(e));
	HGW_CHECK_EQ(hgw_table_file_write(tmp_path("z.tbl"), &z, e, errbuf,
					  sizeof(errbuf)), -1);
	HGW_CHECK(contains(errbuf, "dimensions"));
	z = small;
	z.tick = 0;
	HGW_CHECK_EQ(hgw_table_file_write(tmp_path("z.tbl"), &z, e, errbuf,
					  sizeof(errbuf)), -1);
	HGW_CHECK(contains(errbuf, "tick"));
	HGW_CHECK(access(tmp_path("z.tbl"), F_OK) != 0);
	HGW_CHECK_EQ(hgw_table_file_write("/nonexistent-dir/x.tbl", &small, e,
					  errbuf, sizeof(errbuf)), -1);
	HGW_CHECK(contains(errbuf, "/nonexistent-dir/x.tbl"));
}

/* A valid file's bytes, then a mutation; both functions must refuse it
 * (file_header too unless only the CRC is wrong) with a one-line message
 * naming the file and containing word. */
static void
refuse(const char *name, const uint8_t *bytes, size_t len, uint64_t n,
       int header_ok, const char *word)
{
	const char *path = tmp_path(name);
	struct hgw_table_entry *b = entries_alloc(n);
	struct hgw_table_dims d;
	uint64_t n2;
	int rc;

	if (bytes != NULL)
		HGW_CHECK_EQ(write_file(path, bytes, len), 0);
	errbuf[0] = '\0';
	rc = hgw_table_file_header(path, &d, &n2, errbuf, sizeof(errbuf));
	HGW_CHECK_EQ(rc, header_ok ? 0 : -1);
	if (!header_ok) {
		HGW_CHECK(contains(errbuf, word));
		HGW_CHECK(contains(errbuf, path));
		HGW_CHECK(strchr(errbuf, '\n') == NULL);
	}
	errbuf[0] = '\0';
	HGW_CHECK_EQ(hgw_table_file_read(path, b, n, errbuf, sizeof(errbuf)),
		     -1);
	HGW_CHECK(contains(errbuf, word));
	HGW_CHECK(contains(errbuf, path));
	HGW_CHECK(strchr(errbuf, '\n') == NULL);
	printf("# %s: %s\n", name, errbuf);
	free(b);
}

static void
test_file_refusals(void)
{
	const struct hgw_table_dims d = { 5, 3, 4, 100 };
	const uint64_t n = 60;
	const size_t len = 64 + 64 * n;
	struct hgw_table_entry *a = entries_alloc(n);
	char good[128];
	uint8_t *raw = NULL, *m;
	size_t got = 0;

	snprintf(good, sizeof(good), "%s", tmp_path("good.tbl"));
	fill(a, n, 77);
	HGW_CHECK_EQ(hgw_table_file_write(good, &d, a, errbuf, sizeof(errbuf)),
		     0);
	HGW_CHECK_EQ(read_file(good, &raw, &got), 0);
	HGW_CHECK_EQ(got, len);
	if (raw == NULL || got != len) {
		free(a);
		free(raw);
		return;
	}
	m = malloc(len + 64);

	refuse("cut1.tbl", raw, len - 1, n, 0, "truncated");
	refuse("cutentry.tbl", raw, len - 64, n, 0, "truncated");
	refuse("headeronly.tbl", raw, 64, n, 0, "truncated");
	refuse("cuthdr.tbl", raw, 40, n, 0, "truncated");
	refuse("empty.tbl", raw, 0, n, 0, "empty");
	memcpy(m, raw, len);
	memset(m + len, 0, 64);
	refuse("long.tbl", m, len + 1, n, 0, "trailing");
	refuse("nonexistent.tbl", NULL, 0, n, 0, "No such file");

	memcpy(m, raw, len);
	m[3] = 'X';
	refuse("magic.tbl", m, len, n, 0, "magic");
	memcpy(m, raw, len);
	put32(m + 8, 2);
	refuse("version.tbl", m, len, n, 0, "version 2");
	memcpy(m, raw, len);
	put32(m + 12, 32);
	refuse("esize.tbl", m, len, n, 0, "entry size 32");
	memcpy(m, raw, len);
	put64(m + 32, n + 1);
	refuse("count.tbl", m, len, n, 0, "entry count");
	memcpy(m, raw, len);
	put32(m + 16, 6);              /* dims no longer match the count */
	refuse("count2.tbl", m, len, n, 0, "entry count");
	memcpy(m, raw, len);
	put32(m + 20, 0);
	refuse("dims.tbl", m, len, n, 0, "dimensions");
	memcpy(m, raw, len);
	put32(m + 28, 0);
	refuse("tick.tbl", m, len, n, 0, "tick");

	/* Checksum: only file_read sees it. */
	memcpy(m, raw, len);
	m[64 + 64 * 17 + 9] ^= 0x01;
	refuse("flip.tbl", m, len, n, 1, "checksum mismatch: header 0x");
	HGW_CHECK(contains(errbuf, "computed 0x"));
	memcpy(m, raw, len);
	m[64 + 64 * 59 + 63] ^= 0x80;  /* last byte of the file */
	refuse("fliplast.tbl", m, len, n, 1, "checksum mismatch");
	memcpy(m, raw, len);
	m[64 + 64 * 3 + 1] = 1;        /* a seq byte: covered too */
	refuse("flipseq.tbl", m, len, n, 1, "checksum mismatch");
	memcpy(m, raw, len);
	m[41] ^= 0x10;                 /* the CRC field itself */
	refuse("flipcrc.tbl", m, len, n, 1, "checksum mismatch");

	/* The caller's buffer must match the file. */
	struct hgw_table_entry *b = entries_alloc(n);

	HGW_CHECK_EQ(hgw_table_file_read(good, b, n - 1, errbuf,
					 sizeof(errbuf)), -1);
	HGW_CHECK(contains(errbuf, "60 entries"));
	HGW_CHECK_EQ(hgw_table_file_read(good, b, n, errbuf, sizeof(errbuf)),
		     0);
	/* A directory is not a table. */
	HGW_CHECK_EQ(hgw_table_file_header(tmpdir, NULL, NULL, errbuf,
					   sizeof(errbuf)), -1);
	HGW_CHECK(contains(errbuf, "regular file"));
	/* A tiny err buffer is truncated, not overrun; NULL err is fine. */
	char tiny[8];

	HGW_CHECK_EQ(hgw_table_file_header(tmp_path("nope"), NULL, NULL, tiny,
					   sizeof(tiny)), -1);
	HGW_CHECK_EQ(strlen(tiny), 7);
	HGW_CHECK_EQ(hgw_table_file_header(tmp_path("nope"), NULL, NULL, NULL,
					   0), -1);
	free(b);
	free(m);
	free(raw);
	free(a);
}

/* ------------------------------------------------------------------ */

static void
test_write_seq(void)
{
	struct hgw_table t = { { 2, 2, 2, 100 }, 8, NULL };
	struct hgw_table_entry v, out;

	t.entries = entries_alloc(8);
	memset(&v, 0, sizeof(v));
	atomic_init(&v.seq, 12345);    /* ignored */
	v.action = 'B';
	v.price = -300;
	v.quantity = 500;
	v.tag = 0xdeadbeef;
	v.reserved[43] = 9;
	hgw_table_write(&t, 5, &v);
	HGW_CHECK_EQ(atomic_load(&t.entries[5].seq), 2);
	hgw_table_write(&t, 5, &v);
	HGW_CHECK_EQ(atomic_load(&t.entries[5].seq), 4);
	HGW_CHECK(memcmp((const char *)&t.entries[5] + 4,
			 (const char *)&v + 4, 60) == 0);
	HGW_CHECK_EQ(atomic_load(&t.entries[4].seq), 0);
	HGW_CHECK_EQ(t.entries[4].action, 0);
	atomic_init(&out.seq, 77);
	hgw_table_read(&t, 5, &out);
	HGW_CHECK_EQ(atomic_load(&out.seq), 77);	/* not written */
	HGW_CHECK(memcmp((const char *)&out + 4, (const char *)&v + 4,
			 60) == 0);
	free(t.entries);
}

/* ------------------------------------------------------------------ */

/* Load a patch and apply it to t: what hgw_table_patch_file did in one
 * call. The number written, or -1 with errbuf set. */
static long
patch_file(struct hgw_table *t, const char *path)
{
	struct hgw_table_patch *p;
	long n;

	p = hgw_table_patch_load(path, &t->dims, HGW_TABLE_PATCH_MAX_BYTES,
				 errbuf, sizeof(errbuf));
	if (p == NULL)
		return -1;
	n = hgw_table_patch_apply(t, p);
	hgw_table_patch_free(p);
	return n;
}

/* Bytes the allocator has handed out and not had back: a refused load
 * must leave it where it was. */
static size_t
heap_in_use(void)
{
	return mallinfo2().uordblks;
}

static void
test_patch(void)
{
	struct hgw_table t = { { 4, 4, 8, 100 }, 128, NULL };
	struct hgw_table_entry *before;
	const char *path = tmp_path("patch.txt");
	static const char good[] =
		"# L S I action price_mode tif display price quantity tag\n"
		"\n"
		"0 0 0 B 0 0 Y 100 200 7\n"
		"   3 3 7 S 1 3 N 1234500 4294967295 4294967295  # last entry\n"
		"1\t2\t3\t0\t0\t0\tY\t-2147483648\t0\t0\r\n"
		"0 0 0 S 0 3 Y -100 300 8\n"
		"2 1 5 B 0 # Y 5 5 5\n"        /* not an entry: comment */
		"2 1 6 B 0 0 Y 0 100 9";       /* no final newline */
	long r;

	t.entries = entries_alloc(128);
	fill(t.entries, 128, 3);
	for (int k = 0; k < 128; k++)
		atomic_init(&t.entries[k].seq, 0);
	t.entries[0].reserved[43] = 5;
	before = entries_alloc(128);
	memcpy(before, t.entries, 128 * 64);

	/* The bad comment-line above is itself an error (missing tif):
	 * first check all-or-nothing with it. */
	HGW_CHECK_EQ(write_file(path, good, strlen(good)), 0);
	r = patch_file(&t, path);
	HGW_CHECK_EQ(r, -1);
	HGW_CHECK(contains(errbuf, "patch.txt:7:"));
	HGW_CHECK(contains(errbuf, "tif"));
	HGW_CHECK(memcmp(before, t.entries, 128 * 64) == 0);

	/* Without that line: 5 entries written (key 0 twice). */
	char ok[sizeof(good)];
	char *cut = strstr(strcpy(ok, good), "2 1 5 B 0 #");
	char *nl = strchr(cut, '\n');

	memmove(cut, nl + 1, strlen(nl + 1) + 1);
	HGW_CHECK_EQ(write_file(path, ok, strlen(ok)), 0);
	r = patch_file(&t, path);
	HGW_CHECK_EQ(r, 5);
	struct hgw_table_entry *e = &t.entries[0];

	HGW_CHECK_EQ(atomic_load(&e->seq), 4);      /* written twice */
	HGW_CHECK_EQ(e->action, 'S');
	HGW_CHECK_EQ(e->price_mode, 0);
	HGW_CHECK_EQ(e->tif, '3');
	HGW_CHECK_EQ(e->display, 'Y');
	HGW_CHECK_EQ(e->price, (uint64_t)(int64_t)-100);
	HGW_CHECK_EQ(e->quantity, 300);
	HGW_CHECK_EQ(e->tag, 8);
	HGW_CHECK_EQ(e->reserved[43], 0);  /* was 5: reserved is zeroed */
	e = &t.entries[127];
	HGW_CHECK_EQ(atomic_load(&e->seq), 2);
	HGW_CHECK_EQ(e->action, 'S');
	HGW_CHECK_EQ(e->price_mode, 1);
	HGW_CHECK_EQ(e->tif, '3');
	HGW_CHECK_EQ(e->display, 'N');
	HGW_CHECK_EQ(e->price, 1234500);
	HGW_CHECK_EQ(e->quantity, UINT32_MAX);
	HGW_CHECK_EQ(e->tag, UINT32_MAX);
	e = &t.entries[(1 * 4 + 2) * 8 + 3];
	HGW_CHECK_EQ(e->action, 0);
	HGW_CHECK_EQ(e->tif, '0');
	HGW_CHECK_EQ(e->price, (uint64_t)(int64_t)INT32_MIN);
	HGW_CHECK_EQ(e->quantity, 0);
	e = &t.entries[(2 * 4 + 1) * 8 + 6];
	HGW_CHECK_EQ(e->action, 'B');
	HGW_CHECK_EQ(e->quantity, 100);
	HGW_CHECK_EQ(e->tag, 9);
	/* Untouched entries stay. */
	HGW_CHECK(memcmp(&before[1], &t.entries[1], 64) == 0);
	HGW_CHECK(memcmp(&before[126], &t.entries[126], 64) == 0);

	/* Comments and blanks only: 0 entries. */
	HGW_CHECK_EQ(write_file(path, "# nothing\n\n  \n", 14), 0);
	HGW_CHECK_EQ(patch_file(&t, path), 0);
	/* An empty file too. */
	HGW_CHECK_EQ(write_file(path, "", 0), 0);
	HGW_CHECK_EQ(patch_file(&t, path), 0);

	/* Each bad line (third line, after two good ones) applies
	 * nothing. */
	static const struct {
		const char *line;
		const char *words;
	} bad[] = {
		{ "4 0 0 B 0 0 Y 1 1 1", "bad locate '4'" },
		{ "-1 0 0 B 0 0 Y 1 1 1", "bad locate" },
		{ "0 4 0 B 0 0 Y 1 1 1", "bad spread bucket '4'" },
		{ "0 0 8 B 0 0 Y 1 1 1", "bad imbalance bucket '8'" },
		{ "0 0 x B 0 0 Y 1 1 1", "bad imbalance bucket 'x'" },
		{ "0 0 0 X 0 0 Y 1 1 1", "bad action 'X'" },
		{ "0 0 0 b 0 0 Y 1 1 1", "bad action" },
		{ "0 0 0 BB 0 0 Y 1 1 1", "bad action" },
		{ "0 0 0 B 2 0 Y 1 1 1", "bad price_mode '2'" },
		{ "0 0 0 B 0 03 Y 1 1 1", "bad tif '03'" },
		{ "0 0 0 B 0 \x01 Y 1 1 1", "bad tif" },
		{ "0 0 0 B 0 0 \xc3\xa9 1 1 1", "bad display" },
		{ "0 0 0 B 0 0 Y 2147483648 1 1", "bad price '2147483648'" },
		{ "0 0 0 B 0 0 Y -2147483649 1 1", "bad price" },
		{ "0 0 0 B 0 0 Y 1.5 1 1", "bad price '1.5'" },
		{ "0 0 0 B 0 0 Y +1 1 1", "bad price" },
		{ "0 0 0 B 0 0 Y 1 -1 1", "bad quantity '-1'" },
		{ "0 0 0 B 0 0 Y 1 4294967296 1", "bad quantity" },
		{ "0 0 0 B 0 0 Y 1 1 4294967296", "bad tag '4294967296'" },
		{ "0 0 0 B 0 0 Y 1 1 0x10", "bad tag" },
		{ "0 0 0 B 0 0 Y 1 1", "missing field tag" },
		{ "0 0 0", "missing field action" },
		{ "0 0 0 B 0 0 Y 1 1 1 extra", "extra field 'extra'" },
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		char text[256];

		memcpy(before, t.entries, 128 * 64);
		snprintf(text, sizeof(text),
			 "1 1 1 B 0 0 Y 5 100 1\n# c\n%s\n2 2 2 S 0 0 Y 5 100 "
			 "1\n", bad[k].line);
		HGW_CHECK_EQ(write_file(path, text, strlen(text)), 0);
		errbuf[0] = '\0';
		r = patch_file(&t, path);
		if (r != -1 || strstr(errbuf, ":3:") == NULL ||
		    strstr(errbuf, bad[k].words) == NULL ||
		    memcmp(before, t.entries, 128 * 64) != 0) {
			printf("# bad line '%s': r %ld, '%s'\n", bad[k].line,
			       r, errbuf);
			HGW_CHECK(0);
		}
	}
	printf("# e.g. %s\n", errbuf);
	HGW_CHECK_EQ(patch_file(&t, tmp_path("nope.txt")), -1);
	HGW_CHECK(contains(errbuf, "No such file"));
	free(before);
	free(t.entries);
}

/* path must be refused by hgw_table_patch_load, at once, with one line
 * naming it and containing word, and leave nothing allocated. */
static void
patch_refused(const char *path, size_t max_bytes, const char *word)
{
	const struct hgw_table_dims d = { 4, 4, 8, 100 };
	struct hgw_table_patch *p;
	size_t heap = heap_in_use();
	double t0 = now();

	errbuf[0] = '\0';
	p = hgw_table_patch_load(path, &d, max_bytes, errbuf, sizeof(errbuf));
	HGW_CHECK(p == NULL);
	HGW_CHECK(now() - t0 < 1.0);
	HGW_CHECK(contains(errbuf, path));
	HGW_CHECK(contains(errbuf, word));
	HGW_CHECK(strchr(errbuf, '\n') == NULL);
	HGW_CHECK_EQ(heap_in_use(), heap);
	printf("# %s\n", errbuf);
	hgw_table_patch_free(p);
}

static void
test_patch_refusals(void)
{
	char fifo[128], big[128], nul[128], bad[128];
	const char *line = "0 0 0 B 0 0 Y 100 200 7\n";   /* 24 bytes */
	const struct hgw_table_dims d = { 4, 4, 8, 100 };
	struct hgw_table_patch *p;
	char text[256];
	FILE *f;

	snprintf(fifo, sizeof(fifo), "%s", tmp_path("fifo"));
	snprintf(big, sizeof(big), "%s", tmp_path("big.txt"));
	snprintf(nul, sizeof(nul), "%s", tmp_path("nul.txt"));
	snprintf(bad, sizeof(bad), "%s", tmp_path("bad.txt"));
	/* Warm up stdio and the error strings, so the heap counts below
	 * see only the loader. */
	patch_refused(tmp_path("nope.txt"), 100, "No such file");

	patch_refused(tmpdir, HGW_TABLE_PATCH_MAX_BYTES, "directory");
	/* No writer: a blocking open would wait forever. */
	HGW_CHECK_EQ(mkfifo(fifo, 0600), 0);
	patch_refused(fifo, HGW_TABLE_PATCH_MAX_BYTES, "FIFO");
	/* Endless: a reader without a size check never stops. */
	patch_refused("/dev/zero", HGW_TABLE_PATCH_MAX_BYTES,
		      "character device");
	patch_refused("/dev/null", HGW_TABLE_PATCH_MAX_BYTES,
		      "not a regular file");

	/* Size: exactly max_bytes is accepted, one more is not. */
	f = fopen(big, "w");
	for (int k = 0; k < 10; k++)
		fputs(line, f);
	fclose(f);
	p = hgw_table_patch_load(big, &d, 240, errbuf, sizeof(errbuf));
	HGW_CHECK(p != NULL);
	HGW_CHECK_EQ(hgw_table_patch_count(p), 10);
	hgw_table_patch_free(p);
	patch_refused(big, 239, "over the limit of 239");
	patch_refused(big, 0, "240 bytes");
	/* A file larger than its size said (procfs says 0): only the check
	 * while reading sees it, as it would a file growing meanwhile. */
	patch_refused("/proc/self/maps", 100, "over the limit of 100 bytes "
		      "while reading");

	/* A NUL byte, on the line it is in. */
	memcpy(text, "0 0 0 B 0 0 Y 1 1 1\n0 0 0 B 0 0\0 Y 1 1 1\n", 42);
	HGW_CHECK_EQ(write_file(nul, text, 42), 0);
	patch_refused(nul, HGW_TABLE_PATCH_MAX_BYTES, "nul.txt:2: NUL byte");
	/* A bad line (the same refusals as in test_patch). */
	snprintf(text, sizeof(text), "%s# c\n%s0 0 9 B 0 0 Y 1 1 1\n", line,
		 line);
	HGW_CHECK_EQ(write_file(bad, text, strlen(text)), 0);
	patch_refused(bad, HGW_TABLE_PATCH_MAX_BYTES,
		      "bad.txt:4: bad imbalance bucket '9'");
	/* Bad arguments. */
	HGW_CHECK(hgw_table_patch_load(NULL, &d, 100, errbuf,
				       sizeof(errbuf)) == NULL);
	HGW_CHECK(hgw_table_patch_load(big, NULL, 100, NULL, 0) == NULL);
}

static void
test_patch_apply(void)
{
	const struct hgw_table_dims d = { 4, 4, 8, 100 };
	struct hgw_table a = { d, 128, NULL }, b = { d, 128, NULL };
	struct hgw_table_entry e, *before;
	const char *path = tmp_path("apply.txt");
	static const char text[] =
		"0 0 0 B 0 0 Y 100 200 7\n"
		"# comment\n"
		"3 3 7 S 1 3 N 1234500 4294967295 4294967295\n"
		"0 0 0 S 0 3 Y -100 300 8\n";
	struct hgw_table_patch *p;
	uint64_t key;

	HGW_CHECK_EQ(write_file(path, text, strlen(text)), 0);
	p = hgw_table_patch_load(path, &d, HGW_TABLE_PATCH_MAX_BYTES, errbuf,
				 sizeof(errbuf));
	HGW_CHECK(p != NULL);
	if (p == NULL)
		return;
	/* Accessors: file order, duplicates kept. */
	HGW_CHECK_EQ(hgw_table_patch_count(p), 3);
	HGW_CHECK_EQ(hgw_table_patch_entry(p, 0, &key, &e), 0);
	HGW_CHECK_EQ(key, 0);
	HGW_CHECK_EQ(e.action, 'B');
	HGW_CHECK_EQ(e.price, 100);
	HGW_CHECK_EQ(e.quantity, 200);
	HGW_CHECK_EQ(e.tag, 7);
	HGW_CHECK_EQ(atomic_load(&e.seq), 0);
	HGW_CHECK_EQ(hgw_table_patch_entry(p, 1, &key, &e), 0);
	HGW_CHECK_EQ(key, 127);
	HGW_CHECK_EQ(e.price_mode, 1);
	HGW_CHECK_EQ(e.tif, '3');
	HGW_CHECK_EQ(e.display, 'N');
	HGW_CHECK_EQ(e.quantity, UINT32_MAX);
	HGW_CHECK_EQ(hgw_table_patch_entry(p, 2, &key, &e), 0);
	HGW_CHECK_EQ(key, 0);
	HGW_CHECK_EQ(e.action, 'S');
	HGW_CHECK_EQ(e.price, (uint64_t)(int64_t)-100);
	HGW_CHECK_EQ(hgw_table_patch_entry(p, 3, &key, &e), -EINVAL);
	HGW_CHECK_EQ(hgw_table_patch_entry(NULL, 0, &key, &e), -EINVAL);
	HGW_CHECK_EQ(hgw_table_patch_count(NULL), 0);

	/* Two replicas with the same contents end up identical, and the
	 * patch is unchanged by being applied. */
	a.entries = entries_alloc(128);
	b.entries = entries_alloc(128);
	fill(a.entries, 128, 11);
	memcpy(b.entries, a.entries, 128 * 64);
	HGW_CHECK_EQ(hgw_table_patch_apply(&a, p), 3);
	HGW_CHECK_EQ(hgw_table_patch_apply(&b, p), 3);
	HGW_CHECK(memcmp(a.entries, b.entries, 128 * 64) == 0);
	HGW_CHECK_EQ(a.entries[0].action, 'S');
	HGW_CHECK_EQ(atomic_load(&a.entries[0].seq), 6 + 4);    /* two writes */
	HGW_CHECK_EQ(a.entries[127].tag, UINT32_MAX);
	HGW_CHECK_EQ(hgw_table_patch_count(p), 3);

	/* Other dimensions: refused, nothing written. */
	before = entries_alloc(128);
	static const struct hgw_table_dims other[] = {
		{ 8, 4, 4, 100 }, { 4, 8, 4, 100 }, { 4, 4, 8, 1 },
		{ 2, 4, 8, 100 },
	};
	for (size_t k = 0; k < sizeof(other) / sizeof(other[0]); k++) {
		struct hgw_table c = { other[k], hgw_table_nentries(&other[k]),
				       a.entries };

		memcpy(before, a.entries, 128 * 64);
		HGW_CHECK_EQ(hgw_table_patch_apply(&c, p), -EINVAL);
		HGW_CHECK(memcmp(before, a.entries, 128 * 64) == 0);
	}
	struct hgw_table c = a;

	c.nentries = 64;                /* not what the dims say */
	HGW_CHECK_EQ(hgw_table_patch_apply(&c, p), -EINVAL);
	c = a;
	c.entries = NULL;
	HGW_CHECK_EQ(hgw_table_patch_apply(&c, p), -EINVAL);
	HGW_CHECK_EQ(hgw_table_patch_apply(NULL, p), -EINVAL);
	HGW_CHECK_EQ(hgw_table_patch_apply(&a, NULL), -EINVAL);
	HGW_CHECK(memcmp(before, a.entries, 128 * 64) == 0);
	hgw_table_patch_free(p);
	hgw_table_patch_free(NULL);
	free(before);
	free(a.entries);
	free(b.entries);
}

/* ------------------------------------------------------------------ */
/* Concurrency: one writer, two readers.                              */

#define CC_KEYS 4
#define CC_SECONDS 1.0
/* The negative control (copies without the sequence count) must see a
 * torn entry, or the race never happened and the seqlock's 0 proves
 * nothing. With the writer and a reader on two CPUs at once that takes
 * microseconds; on a loaded 2-vCPU host the three threads may share one
 * CPU for a while, and a copy is then torn only when the writer is
 * preempted inside its few stores. So the readers go on past CC_SECONDS
 * until one has seen a torn plain copy, for at most CC_BUDGET seconds,
 * and only a run that never saw one fails. */
#define CC_BUDGET 60.0

struct cc_reader {
	pthread_t th;
	unsigned int id;
	uint64_t reads, torn;               /* through hgw_table_read */
	uint64_t plain, plain_torn;         /* without the sequence count */
};

static struct hgw_table cc_table;
static atomic_int cc_stop;
static atomic_int cc_plain_seen;        /* a reader saw a torn plain copy */
static uint64_t cc_writes;

/* Every byte after seq derives from one counter c: a copy mixing two
 * writes is detected. */
static void
cc_make(struct hgw_table_entry *e, uint32_t c)
{
	memset(e, (uint8_t)c, sizeof(*e));
	atomic_init(&e->seq, 0);
	e->action = (c & 1) ? 'B' : 'S';
	e->price_mode = (uint8_t)(c >> 1) & 1;
	e->tif = (uint8_t)('0' + c % 10);
	e->display = (uint8_t)('A' + c % 26);
	e->price = (int32_t)c;
	e->quantity = c * 3u;
	e->tag = ~c;
}

static int
cc_consistent(const struct hgw_table_entry *e)
{
	struct hgw_table_entry want;

	cc_make(&want, (uint32_t)e->price);
	return memcmp((const char *)&want + 4, (const char *)e + 4, 60) == 0;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *
cc_writer(void *arg)
{
	struct hgw_table_entry v;
	uint32_t c = 0;

	(void)arg;
	while (!atomic_load_explicit(&cc_stop, memory_order_relaxed)) {
		for (uint64_t k = 0; k < CC_KEYS; k++) {
			cc_make(&v, ++c);
			hgw_table_write(&cc_table, k, &v);
		}
	}
	cc_writes = c;
	return NULL;
}

static void *
cc_read(void *arg)
{
	struct cc_reader *r = arg;
	struct hgw_table_entry e;
	uint32_t x = r->id * 7919u + 1;
	double start = now();

	for (;;) {
		double t;

		for (int i = 0; i < 4096; i++) {
			uint64_t k;

			x = x * 1664525u + 1013904223u;
			k = (x >> 16) % CC_KEYS;
			hgw_table_read(&cc_table, k, &e);
			r->reads++;
			r->torn += !cc_consistent(&e);
			/* Side check: the same copy without the sequence
			 * count (word by word, as hgw_table_read copies, but
			 * relaxed atomics rather than memcpy so that
			 * ThreadSanitizer runs stay clean). */
			hgw_table_fields_load(&e, &cc_table.entries[k]);
			r->plain++;
			r->plain_torn += !cc_consistent(&e);
		}
		/* relaxed: a flag alone, it orders nothing else */
		if (r->plain_torn > 0)
			atomic_store_explicit(&cc_plain_seen, 1,
					      memory_order_relaxed);
		t = now() - start;
		if (t >= CC_BUDGET || (t >= CC_SECONDS &&
		    atomic_load_explicit(&cc_plain_seen,
					 memory_order_relaxed)))
			break;
	}
	return NULL;
}

static void
test_concurrent(void)
{
	struct cc_reader rd[2];
	pthread_t w;
	uint64_t reads = 0, torn = 0, plain = 0, plain_torn = 0;
	struct hgw_table_entry v;
	double t0;

	memset(rd, 0, sizeof(rd));
	cc_table.dims = (struct hgw_table_dims){ 1, 1, CC_KEYS, 100 };
	cc_table.nentries = CC_KEYS;
	cc_table.entries = entries_alloc(CC_KEYS);
	for (uint64_t k = 0; k < CC_KEYS; k++) {
		cc_make(&v, 0);
		hgw_table_write(&cc_table, k, &v);
	}
	atomic_store(&cc_stop, 0);
	atomic_store(&cc_plain_seen, 0);
	t0 = now();
	HGW_CHECK_EQ(pthread_create(&w, NULL, cc_writer, NULL), 0);
	for (unsigned int i = 0; i < 2; i++) {
		rd[i].id = i;
		HGW_CHECK_EQ(pthread_create(&rd[i].th, NULL, cc_read, &rd[i]),
			     0);
	}
	for (unsigned int i = 0; i < 2; i++) {
		pthread_join(rd[i].th, NULL);
		reads += rd[i].reads;
		torn += rd[i].torn;
		plain += rd[i].plain;
		plain_torn += rd[i].plain_torn;
	}
	atomic_store(&cc_stop, 1);
	pthread_join(w, NULL);
	printf("# %.1f s: seqlock: %" PRIu64 " writes, %" PRIu64 " reads, %"
	       PRIu64 " torn\n", now() - t0, cc_writes, reads, torn);
	printf("# without the seqcount: %" PRIu64 " copies, %" PRIu64
	       " torn\n", plain, plain_torn);
	HGW_CHECK(reads > 0);
	HGW_CHECK(cc_writes > 0);
	HGW_CHECK_EQ(torn, 0);
	/* the negative control: the race did happen (CC_BUDGET) */
	if (plain_torn == 0)
		printf("# no torn copy without the seqcount in %.0f s: the "
		       "writer and readers never raced\n", CC_BUDGET);
	HGW_CHECK(plain_torn > 0);
	for (uint64_t k = 0; k < CC_KEYS; k++) {
		HGW_CHECK(cc_consistent(&cc_table.entries[k]));
		HGW_CHECK_EQ(atomic_load(&cc_table.entries[k].seq) & 1, 0);
	}
	free(cc_table.entries);
}

/* ------------------------------------------------------------------ */

static void
cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
}

int
main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/hgw-table-XXXXXX",
		 t != NULL && strlen(t) < 40 ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp %s: %s\n", tmpdir, strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	HGW_TEST(test_layout);
	HGW_TEST(test_nentries);
	HGW_TEST(test_key);
	HGW_TEST(test_crc);
	HGW_TEST(test_file_roundtrip);
	HGW_TEST(test_file_refusals);
	HGW_TEST(test_write_seq);
	HGW_TEST(test_patch);
	HGW_TEST(test_patch_refusals);
	HGW_TEST(test_patch_apply);
	HGW_TEST(test_concurrent);
	cleanup();
	return hgw_test_done();
}
