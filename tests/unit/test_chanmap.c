/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: unit tests for lib/chanmap (channel maps, replica layout,
 * placement verification). No EAL, no real memory: verification only does
 * arithmetic on addresses, so the "region" is a range of fake VAs and a fake
 * VA->PA callback maps pages through a random permutation. It looks inside
 * the library: hgw_chanmap_internal.h (the channel arithmetic), on the
 * include path of this test only (tests/unit/meson.build).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hgw_chanmap.h"
#include "hgw_chanmap_internal.h"
#include "hgw_prng.h"
#include "hgw_test.h"

/* xorshift64*, deterministic */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t
rng(void)
{
	return hgw_xorshift64s(&rng_state);
}

/* Fake translation: VA pages [va_base, va_base + npages*page) map to PA
 * frames pa_base + perm[i]*page, in-page offsets kept. */
struct fake_mmu {
	uint64_t va_base, page, pa_base;
	uint32_t npages;
	uint32_t *perm;
	int unknown;          /* 1: every PA unknown (no huge pages) */
};

static uint64_t
fake_va2pa(const void *va, void *arg)
{
	const struct fake_mmu *m = arg;
	uint64_t v = (uint64_t)(uintptr_t)va;
	uint64_t idx;

	if (m->unknown || v < m->va_base)
		return HGW_CHANMAP_PA_UNKNOWN;
	idx = (v - m->va_base) / m->page;
	if (idx >= m->npages)
		return HGW_CHANMAP_PA_UNKNOWN;
	return m->pa_base + m->perm[idx] * m->page + (v - m->va_base) % m->page;
}

static void
fake_init(struct fake_mmu *m, uint64_t va_base, uint64_t page,
	  uint32_t npages, uint64_t pa_base)
{
	memset(m, 0, sizeof(*m));
	m->va_base = va_base;
	m->page = page;
	m->npages = npages;
	m->pa_base = pa_base;
	m->perm = malloc(npages * sizeof(*m->perm));
	for (uint32_t i = 0; i < npages; i++)
		m->perm[i] = i;
	for (uint32_t i = npages - 1; i > 0; i--) {   /* Fisher-Yates */
		uint32_t j = (uint32_t)(rng() % (i + 1));
		uint32_t t = m->perm[i];

		m->perm[i] = m->perm[j];
		m->perm[j] = t;
	}
}

static struct hgw_chanmap
xor_map(const char *name, uint32_t nbits, const uint64_t *masks)
{
	struct hgw_chanmap m;

	memset(&m, 0, sizeof(m));
	m.nbits = nbits;
	for (uint32_t i = 0; i < nbits; i++)
		m.mask[i] = masks[i];
	snprintf(m.name, sizeof(m.name), "%s", name);
	return m;
}

#define B(n) (1ull << (n))

/* Zen 4 observation: copies 256 B apart (bit 8) differ. */
static void
test_channel_1bit_hand(void)
{
	const uint64_t mk[] = { B(8) };
	struct hgw_chanmap m = xor_map("bit8", 1, mk);

	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x0), 0);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0xff), 0);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x100), 1);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x1ff), 1);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x200), 0);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x300), 1);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x40000100ull), 1);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0xfffffffffffffeffull), 0);
}

/* mask0 = bits 8,12,13 (0x3100); mask1 = bits 9,12,14 (0x5200).
 * Hand-computed (bit list of address -> parity per mask):
 *   0x1000: {12}          m0 {12} odd=1, m1 {12} odd=1  -> 3
 *   0x3000: {12,13}       m0 {12,13}=0,  m1 {12}=1      -> 2
 *   0x2000: {13}          m0 1,          m1 0           -> 1
 *   0x4200: {9,14}        m0 0,          m1 {9,14}=0    -> 0
 *   0x7300: {8,9,12,13,14} m0 {8,12,13}=1, m1 {9,12,14}=1 -> 3
 *   0x0300: {8,9}         m0 1,          m1 1           -> 3
 *   0x6100: {8,13,14}     m0 {8,13}=0,   m1 {14}=1      -> 2
 *   0x10000 (bit 16, in no mask)                        -> 0 */
static void
test_channel_2bit_hand(void)
{
	const uint64_t mk[] = { 0x3100, 0x5200 };
	struct hgw_chanmap m = xor_map("hand2", 2, mk);

	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x1000), 3);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x3000), 2);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x2000), 1);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x4200), 0);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x7300), 3);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x0300), 3);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x6100), 2);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x10000), 0);
	HGW_CHECK_EQ(hgw_chanmap_channel(&m, 0x10000 | 0x7300), 3);
	/* toggles of single bits */
	HGW_CHECK_EQ(hgw_chanmap_delta(&m, B(8)), 1);
	HGW_CHECK_EQ(hgw_chanmap_delta(&m, B(9)), 2);
	HGW_CHECK_EQ(hgw_chanmap_delta(&m, B(12)), 3);
	HGW_CHECK_EQ(hgw_chanmap_delta(&m, B(7)), 0);
}

/* channel(a ^ d) == channel(a) ^ delta(d) for random a, d. */
static void
test_channel_linearity(void)
{
	const uint64_t mk[] = { 0x8000000123453100ull, 0x0000004400025200ull,
				0x1000000000000040ull };
	struct hgw_chanmap m = xor_map("lin3", 3, mk);

	for (int i = 0; i < 100000; i++) {
		uint64_t a = rng(), d = rng();

		if (hgw_chanmap_channel(&m, a ^ d) !=
		    (hgw_chanmap_channel(&m, a) ^ hgw_chanmap_delta(&m, d))) {
			HGW_CHECK(0);
			break;
		}
		HGW_CHECK(hgw_chanmap_channel(&m, a) < 8);
	}
}

static char tmpdir[64];

static const char *
tmpfile_with(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static void
test_load_write_roundtrip(void)
{
	const uint64_t mk[] = { 0x3100, 0x5200, 0x800000000ull };
	struct hgw_chanmap m = xor_map("round-trip", 3, mk), r, o;
	char err[256], path[128];
	FILE *f;
	char line[256];
	int comments = 0;

	snprintf(path, sizeof(path), "%s/rt.map", tmpdir);
	HGW_CHECK_EQ(hgw_chanmap_write(path, &m, "line one\nline two"), 0);
	HGW_CHECK_EQ(hgw_chanmap_load(path, &r, err, sizeof(err)), 0);
	HGW_CHECK_EQ(r.nbits, 3);
	HGW_CHECK_EQ(r.mask[0], 0x3100);
	HGW_CHECK_EQ(r.mask[1], 0x5200);
	HGW_CHECK_EQ(r.mask[2], 0x800000000ull);
	HGW_CHECK_EQ(r.offset, 0);
	HGW_CHECK(strcmp(r.name, "round-trip") == 0);
	f = fopen(path, "r");
	HGW_CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f))
		comments += line[0] == '#';
	if (f)
		fclose(f);
	HGW_CHECK_EQ(comments, 2);

	memset(&o, 0, sizeof(o));
	o.offset = 1ull << 30;
	strcpy(o.name, "fallback");
	HGW_CHECK_EQ(hgw_chanmap_write(path, &o, NULL), 0);
	HGW_CHECK_EQ(hgw_chanmap_load(path, &r, err, sizeof(err)), 0);
	HGW_CHECK_EQ(r.nbits, 0);
	HGW_CHECK_EQ(r.offset, 1ull << 30);
	HGW_CHECK(strcmp(r.name, "fallback") == 0);

	/* comments, blanks, decimal numbers, default name from the file */
	HGW_CHECK_EQ(hgw_chanmap_load(tmpfile_with("dflt.map",
		"# c\n\n   mask 256   # trailing\n\tmask 0x200\n"), &r, err,
		sizeof(err)), 0);
	HGW_CHECK_EQ(r.nbits, 2);
	HGW_CHECK_EQ(r.mask[0], 256);
	HGW_CHECK(strcmp(r.name, "dflt") == 0);

	/* writing an invalid map is refused */
	o.offset = 0;
	HGW_CHECK_EQ(hgw_chanmap_write(path, &o, NULL), -EINVAL);
}

struct bad_case {
	const char *text;
	const char *want;    /* substring of the error */
};

static void
test_load_errors(void)
{
	static const struct bad_case cases[] = {
		{ "name a\nfoo 1\n", ":2: unknown key 'foo'" },
		{ "mask\n", ":1: 'mask' needs a value" },
		{ "mask 0x100 0x200\n", ":1: unexpected '0x200'" },
		{ "mask 0xzz\n", ":1: bad mask '0xzz'" },
		{ "mask -1\n", ":1: bad mask '-1'" },
		{ "mask 0x1000000000000000000\n", ":1: bad mask" },
		/* octal to C's base-0 parse (511), decimal to a plain
		 * one (777): neither, refused */
		{ "mask 0777\n", ":1: bad mask '0777'" },
		{ "mask 0\n", ":1: mask 0 is 0" },
		{ "mask 0x100\nmask 0x300\nmask 0x200\n",
		  ":3: mask 2 is an XOR of earlier masks" },
		{ "mask 0x100\nmask 0x100\n", ":2: mask 1 is an XOR" },
		{ "mask 0x1\nmask 0x2\nmask 0x4\nmask 0x8\nmask 0x10\n"
		  "mask 0x20\nmask 0x40\nmask 0x80\nmask 0x100\n",
		  ":9: more than 8 masks" },
		{ "mask 0x100\noffset 0x1000\n", ":2: 'mask' and 'offset'" },
		{ "offset 0x1000\nmask 0x100\n", ":2: 'mask' and 'offset'" },
		{ "offset 0x1000\noffset 0x2000\n", ":2: second 'offset'" },
		{ "offset 0\n", ":1: bad offset '0'" },
		{ "offset lots\n", ":1: bad offset 'lots'" },
		{ "name a\nname b\nmask 1\n", ":2: second 'name'" },
		{ "name aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaa\n", ":1: name longer than 63" },
		{ "# only comments\n\n", "no 'mask' or 'offset' line" },
		{ "", "no 'mask' or 'offset' line" },
	};
	struct hgw_chanmap m;
	char err[256], longline[700];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = tmpfile_with("bad.map", cases[i].text);
		int rc = hgw_chanmap_load(p, &m, err, sizeof(err));

		HGW_CHECK(rc == -EINVAL);
		if (strstr(err, cases[i].want) == NULL ||
		    strstr(err, "bad.map") == NULL) {
			printf("# case %zu: got '%s', want '%s'\n", i, err,
			       cases[i].want);
			HGW_CHECK(0);
		}
		HGW_CHECK(strchr(err, '\n') == NULL);
	}
	memset(longline, 'x', sizeof(longline) - 2);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	HGW_CHECK_EQ(hgw_chanmap_load(tmpfile_with("long.map", longline), &m,
				      err, sizeof(err)), -EINVAL);
	HGW_CHECK(strstr(err, ":1: line too long") != NULL);
	HGW_CHECK_EQ(hgw_chanmap_load("/nonexistent/x.map", &m, err,
				      sizeof(err)), -ENOENT);
	HGW_CHECK(strstr(err, "/nonexistent/x.map: cannot open") != NULL);
}

/* The source tree's root, from argv[1]: tests/unit/meson.build passes
 * meson.project_source_root(). */
static const char *srcroot;

/* Every shipped conf/chanmap file (.map) loads: the three named below must be
 * there, and any other .map file in the directory must load too. A file
 * missing or refused is a failure, as is running without the root. */
static void
test_conf_files(void)
{
	static const char *const files[] = {
		"offset-1g.map", "zen4-2ch.map", "single-bit-template.map",
	};
	char dir[512], path[800], err[256];
	struct hgw_chanmap m;
	unsigned int found = 0, maps = 0;
	struct dirent *de;
	DIR *d;

	if (srcroot == NULL) {
		printf("# no source root given (argv[1]; meson passes it)\n");
		HGW_CHECK(0);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/conf/chanmap", srcroot);
	d = opendir(dir);
	if (d == NULL) {
		printf("# %s: %s\n", dir, strerror(errno));
		HGW_CHECK(0);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(&de->d_name[n - 4], ".map") != 0)
			continue;
		maps++;
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			found += strcmp(de->d_name, files[i]) == 0;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (hgw_chanmap_load(path, &m, err, sizeof(err)) != 0) {
			printf("# %s\n", err);
			HGW_CHECK(0);
		}
	}
	closedir(d);
	printf("# %u map files in %s\n", maps, dir);
	HGW_CHECK_EQ(found, sizeof(files) / sizeof(files[0]));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (access(path, R_OK) != 0) {
			printf("# %s: %s\n", path, strerror(errno));
			HGW_CHECK(0);
		}
	}
	snprintf(path, sizeof(path), "%s/zen4-2ch.map", dir);
	HGW_CHECK_EQ(hgw_chanmap_load(path, &m, err, sizeof(err)), 0);
	HGW_CHECK_EQ(m.nbits, 1);
	HGW_CHECK_EQ(m.mask[0], B(8));
	HGW_CHECK(strcmp(m.name, "zen4-2ch") == 0);
	snprintf(path, sizeof(path), "%s/single-bit-template.map", dir);
	HGW_CHECK_EQ(hgw_chanmap_load(path, &m, err, sizeof(err)), 0);
	HGW_CHECK_EQ(m.nbits, 1);
	HGW_CHECK_EQ(m.mask[0], B(8));
	HGW_CHECK(strcmp(m.name, "single-bit-template") == 0);
	snprintf(path, sizeof(path), "%s/offset-1g.map", dir);
	HGW_CHECK_EQ(hgw_chanmap_load(path, &m, err, sizeof(err)), 0);
	HGW_CHECK_EQ(m.nbits, 0);
	HGW_CHECK_EQ(m.offset, 1ull << 30);
	HGW_CHECK(strcmp(m.name, "offset-1g") == 0);
}

/* Test maps with bits above a 64 MiB table (bit 26) so the contiguous
 * layout has something to use, and high PA bits (35, 36) that vary with
 * the page frame to show they do not matter inside a page. */
static const uint64_t map1_masks[] = { B(8) | B(12) | B(27) | B(35) };
static const uint64_t map2_masks[] = {
	B(8) | B(12) | B(27) | B(35),            /* bit 27 -> ch bit 0 */
	B(9) | B(13) | B(27) | B(28) | B(36),    /* 27, 28 -> ch bit 1 */
};

#define NENT   (1u << 20)       /* 1 Mi entries of 64 B = 64 MiB = 2^26 */
#define ESZ    64u
#define SPAN   ((uint64_t)NENT * ESZ)
#define VA0    0x7f0000000000ull   /* 1 GiB aligned fake VA */

/* Lay out nrep replicas, check every entry's copies by brute force and by
 * hgw_chanmap_verify on 1 GiB fake pages with a random frame order. */
static void
check_layout(const struct hgw_chanmap *m, uint32_t nrep, uint64_t want_align)
{
	uint64_t off[HGW_CHANMAP_MAX_REPLICAS], align = 0, size = 0;
	const void *base[HGW_CHANMAP_MAX_REPLICAS];
	struct hgw_chanmap_report rep;
	struct fake_mmu mmu;
	char err[256], line[400];
	uint64_t bad = 0;

	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(m, nrep, ESZ, SPAN, off,
		     &align, &size, err, sizeof(err)), 0);
	HGW_CHECK_EQ(off[0], 0);
	HGW_CHECK_EQ(align, want_align);
	HGW_CHECK(size <= align);
	HGW_CHECK(size >= off[nrep - 1] + SPAN);
	/* 8 frames of 1 GiB, permuted, PA base with bits 35/36 set */
	fake_init(&mmu, VA0, 1ull << 30, 8, 0x1800000000ull);
	for (uint32_t k = 0; k < nrep; k++)
		base[k] = (const void *)(uintptr_t)(VA0 + (3ull << 30) +
						     off[k]);
	for (uint64_t e = 0; e < NENT; e++) {
		uint32_t seen = 0;

		for (uint32_t k = 0; k < nrep; k++) {
			uint64_t pa = fake_va2pa((const char *)base[k] +
						 e * ESZ, &mmu);
			uint32_t ch = hgw_chanmap_channel(m, pa);

			if (seen & (1u << ch))
				bad++;
			seen |= 1u << ch;
		}
	}
	HGW_CHECK_EQ(bad, 0);
	HGW_CHECK_EQ(hgw_chanmap_verify(m, nrep, base, NENT, ESZ, 1ull << 30,
		     fake_va2pa, &mmu, 0, &rep), 0);
	HGW_CHECK_EQ(rep.result, HGW_CHANMAP_VERIFIED);
	HGW_CHECK_EQ(rep.checked, NENT);
	HGW_CHECK_EQ(rep.violations, 0);
	HGW_CHECK_EQ(rep.translations, nrep);  /* one page per replica */
	printf("# %s\n", hgw_chanmap_report_line(&rep, line, sizeof(line)));
	free(mmu.perm);
}

static void
test_layout_1bit_2rep(void)
{
	struct hgw_chanmap m = xor_map("test1", 1, map1_masks);
	uint64_t off[4];
	char err[256];

	check_layout(&m, 2, B(28));
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&m, 4, ESZ, SPAN, off, NULL,
		     NULL, err, sizeof(err)), -ENOSPC);
	HGW_CHECK(strstr(err, "2 channels") != NULL);
}

static void
test_layout_2bit_2rep(void)
{
	struct hgw_chanmap m = xor_map("test2", 2, map2_masks);

	check_layout(&m, 2, B(28));
}

static void
test_layout_2bit_4rep(void)
{
	struct hgw_chanmap m = xor_map("test2", 2, map2_masks);
	uint64_t off[4];
	char err[256];

	check_layout(&m, 4, B(29));
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&m, 4, ESZ, SPAN, off, NULL,
		     NULL, err, sizeof(err)), 0);
	HGW_CHECK_EQ(off[1], B(27));
	HGW_CHECK_EQ(off[2], B(28));
	HGW_CHECK_EQ(off[3], B(27) | B(28));
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&m, 5, ESZ, SPAN, off, NULL,
		     NULL, err, sizeof(err)), -ENOSPC);
}

/* A map that knows only bit 8 (the Zen 4 observation) cannot place a
 * contiguous 64 MiB table: the error says so and names bit 8. A 256-byte
 * table works (bit 8 is above it). */
static void
test_layout_low_bit_only(void)
{
	const uint64_t mk[] = { B(8) };
	struct hgw_chanmap m = xor_map("zen4-2ch", 1, mk);
	uint64_t off[2], align;
	char err[256];

	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&m, 2, ESZ, SPAN, off, NULL,
		     NULL, err, sizeof(err)), -ENOSPC);
	HGW_CHECK(strstr(err, "bits that move a line here: 8") != NULL);
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&m, 2, ESZ, 256, off, &align,
		     NULL, err, sizeof(err)), 0);
	HGW_CHECK_EQ(off[1], 256);
	HGW_CHECK_EQ(align, 512);
}

static void
test_layout_fallback_and_errors(void)
{
	struct hgw_chanmap o;
	const uint64_t mk[] = { B(27) };
	struct hgw_chanmap m = xor_map("x", 1, mk);
	uint64_t off[4], align, size;
	char err[256];

	memset(&o, 0, sizeof(o));
	o.offset = 1ull << 30;
	strcpy(o.name, "offset-1g");
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&o, 3, ESZ, SPAN, off, &align,
		     &size, err, sizeof(err)), 0);
	HGW_CHECK_EQ(off[0], 0);
	HGW_CHECK_EQ(off[1], 1ull << 30);
	HGW_CHECK_EQ(off[2], 2ull << 30);
	HGW_CHECK_EQ(size, (2ull << 30) + SPAN);
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&o, 2, ESZ, 2ull << 30, off,
		     NULL, NULL, err, sizeof(err)), -EINVAL);
	HGW_CHECK(strstr(err, "smaller than the table span") != NULL);
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&m, 0, ESZ, SPAN, off, NULL,
		     NULL, err, sizeof(err)), -EINVAL);
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&m, 2, ESZ, SPAN + 1, off,
		     NULL, NULL, err, sizeof(err)), -EINVAL);
	HGW_CHECK_EQ(hgw_chanmap_replica_offsets(&m, 2, 0, SPAN, off, NULL,
		     NULL, err, sizeof(err)), -EINVAL);
}

/* Deliberately bad layouts are caught, entry by entry. */
static void
test_verify_catches_bad_layout(void)
{
	struct hgw_chanmap m = xor_map("test2", 2, map2_masks);
	const void *base[4];
	struct hgw_chanmap_report rep;
	struct fake_mmu mmu;
	char line[400];

	fake_init(&mmu, VA0, 1ull << 30, 8, 0x1800000000ull);

	/* (a) two replicas at the same offset */
	base[0] = (const void *)(uintptr_t)VA0;
	base[1] = (const void *)(uintptr_t)(VA0 + B(27));
	base[2] = (const void *)(uintptr_t)VA0;
	HGW_CHECK_EQ(hgw_chanmap_verify(&m, 3, base, NENT, ESZ, 1ull << 30,
		     fake_va2pa, &mmu, 0, &rep), 0);
	HGW_CHECK_EQ(rep.result, HGW_CHANMAP_VIOLATED);
	HGW_CHECK_EQ(rep.violations, NENT);
	HGW_CHECK_EQ(rep.nshown, HGW_CHANMAP_REPORT_MAX);
	HGW_CHECK_EQ(rep.first[0].entry, 0);
	HGW_CHECK_EQ(rep.first[0].r1, 0);
	HGW_CHECK_EQ(rep.first[0].r2, 2);
	HGW_CHECK_EQ(rep.first[0].pa1, rep.first[0].pa2);
	HGW_CHECK(strstr(hgw_chanmap_report_line(&rep, line, sizeof(line)),
			 "VIOLATED") != NULL);
	printf("# %s\n", line);

	/* (b) an offset that flips no channel bit: bit 29 is in no mask */
	base[1] = (const void *)(uintptr_t)(VA0 + B(29));
	HGW_CHECK_EQ(hgw_chanmap_verify(&m, 2, base, NENT / 2, ESZ, 1ull << 30,
		     fake_va2pa, &mmu, 0, &rep), 0);
	HGW_CHECK_EQ(rep.result, HGW_CHANMAP_VIOLATED);
	HGW_CHECK_EQ(rep.violations, NENT / 2);

	/* (c) one replica off by a single line: only entries whose copies
	 * collide are counted, with 128-byte entries (two lines each) */
	base[1] = (const void *)(uintptr_t)(VA0 + B(27) + 256);
	HGW_CHECK_EQ(hgw_chanmap_verify(&m, 2, base, 4096, 128, 1ull << 30,
		     fake_va2pa, &mmu, 0, &rep), 0);
	/* Both replicas lie in fake page 0 (4096 * 128 B + 2^27 + 256 <
	 * 1 GiB): their PAs are P + x and P + (x + 256) ^ 2^27 with one P,
	 * x = e * 128 + l * 64 < 2^19, and P's bits (30 and up) apart from
	 * x's, so the copies' channels differ by
	 * delta(2^27) ^ delta(x ^ (x + 256)) = 3 ^ delta(x ^ (x + 256)).
	 * x ^ (x + 256) is bits 8..j, j the lowest 0 bit of x from bit 8 up;
	 * over mask 0's {8, 12} its parity is 1 for j in 8..11, over mask 1's
	 * {9, 13} 1 for j in 9..12: the copies collide (delta 3) for j in
	 * 9..11, i.e. bit 8 of x set and bits 9..11 not all set: 7 of the 16
	 * values of (x >> 8) & 15 = (e >> 1) & 15 (the same for both lines
	 * of an entry). Each of the 16 values is taken by 4096 / 16 entries:
	 * 7 * 256 = 1792 collide, the first of them entry 2 ((2 >> 1) = 1). */
	HGW_CHECK_EQ(rep.checked, 4096);
	HGW_CHECK_EQ(rep.violations, 7 * 256);
	HGW_CHECK_EQ(rep.first[0].entry, 2);
	HGW_CHECK_EQ(rep.first[0].r1, 0);
	HGW_CHECK_EQ(rep.first[0].r2, 1);

	/* (d) a correct layout whose bits lie above a 2 MiB page: with pages
	 * in random frame order the premise fails and verify says so */
	free(mmu.perm);
	fake_init(&mmu, VA0, 2ull << 20, 512, 0x1800000000ull);
	base[0] = (const void *)(uintptr_t)VA0;
	base[1] = (const void *)(uintptr_t)(VA0 + B(27));
	HGW_CHECK_EQ(hgw_chanmap_verify(&m, 2, base, NENT, ESZ, 2ull << 20,
		     fake_va2pa, &mmu, 0, &rep), 0);
	/* Replica 0 is VA pages 0..31, replica 1 pages 64..95 (2^27 / 2 MiB
	 * = 64 pages on). Entry e of page i has PAs base + perm[i] * 2 MiB + o
	 * and base + perm[64 + i] * 2 MiB + o, the same o: they differ by
	 * (perm[i] ^ perm[64 + i]) << 21, whose channel bits are those of
	 * PA bits 27 (masks 0 and 1) and 28 (mask 1), i.e. of bits 6 and 7
	 * of the frame numbers (bits 21..26 and 29 are in no mask). Every
	 * entry of page i collides when those two bits agree, none when
	 * not: 2 MiB / 64 B entries per such page. */
	{
		uint64_t same = 0;

		for (uint32_t i = 0; i < SPAN >> 21; i++)
			same += (((mmu.perm[i] ^ mmu.perm[64 + i]) >> 6) & 3) == 0;
		printf("# 2 MiB pages shuffled: %" PRIu64 " of %" PRIu64
		       " page pairs collide\n", same, SPAN >> 21);
		/* the permutation (seeded) gives both kinds of pages */
		HGW_CHECK(same > 0 && same < SPAN >> 21);
		HGW_CHECK_EQ(rep.result, HGW_CHANMAP_VIOLATED);
		HGW_CHECK_EQ(rep.violations, same * ((2ull << 20) / ESZ));
	}
	HGW_CHECK_EQ(rep.translations, 2 * (SPAN >> 21));
	printf("# 2 MiB pages shuffled: %s\n",
	       hgw_chanmap_report_line(&rep, line, sizeof(line)));
	free(mmu.perm);
}

static void
test_verify_unverified(void)
{
	struct hgw_chanmap m = xor_map("test2", 2, map2_masks), o;
	const void *base[2];
	struct hgw_chanmap_report rep;
	struct fake_mmu mmu;
	char line[400];

	fake_init(&mmu, VA0, 1ull << 30, 8, 0);
	base[0] = (const void *)(uintptr_t)VA0;
	base[1] = (const void *)(uintptr_t)(VA0 + B(27));

	mmu.unknown = 1;     /* --no-huge: rte_mem_virt2phy says BAD_IOVA */
	HGW_CHECK_EQ(hgw_chanmap_verify(&m, 2, base, NENT, ESZ, 1ull << 30,
		     fake_va2pa, &mmu, 0, &rep), 0);
	HGW_CHECK_EQ(rep.result, HGW_CHANMAP_UNVERIFIED);
	hgw_chanmap_report_line(&rep, line, sizeof(line));
	HGW_CHECK(strstr(line, "UNVERIFIED: no physical address") != NULL);
	HGW_CHECK(strchr(line, '\n') == NULL);
	printf("# %s\n", line);

	mmu.unknown = 0;     /* inside a VM: PAs known but guest-physical */
	HGW_CHECK_EQ(hgw_chanmap_verify(&m, 2, base, NENT, ESZ, 1ull << 30,
		     fake_va2pa, &mmu, HGW_CHANMAP_F_GUEST_PA, &rep), 0);
	HGW_CHECK_EQ(rep.result, HGW_CHANMAP_UNVERIFIED);
	HGW_CHECK_EQ(rep.checked, NENT);
	hgw_chanmap_report_line(&rep, line, sizeof(line));
	HGW_CHECK(strstr(line, "guest-physical") != NULL);
	printf("# %s\n", line);

	memset(&o, 0, sizeof(o));   /* offset-only map */
	o.offset = 1ull << 30;
	strcpy(o.name, "offset-1g");
	HGW_CHECK_EQ(hgw_chanmap_verify(&o, 2, base, NENT, ESZ, 1ull << 30,
		     fake_va2pa, &mmu, 0, &rep), 0);
	HGW_CHECK_EQ(rep.result, HGW_CHANMAP_UNVERIFIED);
	HGW_CHECK(strstr(hgw_chanmap_report_line(&rep, line, sizeof(line)),
			 "offset-only") != NULL);
	printf("# %s\n", line);

	HGW_CHECK_EQ(hgw_chanmap_verify(&m, 2, base, NENT, ESZ, 1000,
		     fake_va2pa, &mmu, 0, &rep), -EINVAL);
	free(mmu.perm);
}

int
main(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "usage: %s SOURCE-ROOT\n", argv[0]);
		return 2;
	}
	srcroot = argc == 2 ? argv[1] : NULL;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/hgw_chanmap_XXXXXX");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	HGW_TEST(test_channel_1bit_hand);
	HGW_TEST(test_channel_2bit_hand);
	HGW_TEST(test_channel_linearity);
	HGW_TEST(test_load_write_roundtrip);
	HGW_TEST(test_load_errors);
	HGW_TEST(test_conf_files);
	HGW_TEST(test_layout_1bit_2rep);
	HGW_TEST(test_layout_2bit_2rep);
	HGW_TEST(test_layout_2bit_4rep);
	HGW_TEST(test_layout_low_bit_only);
	HGW_TEST(test_layout_fallback_and_errors);
	HGW_TEST(test_verify_catches_bad_layout);
	HGW_TEST(test_verify_unverified);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return hgw_test_done();
}
