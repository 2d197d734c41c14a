/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: DRAM channel maps, replica placement and its verification.
 *
 * Layout argument (why the copies of every entry land on distinct channels)
 * -------------------------------------------------------------------------
 * Let h(x) = hgw_chanmap_channel(map, x). h is linear over GF(2):
 * h(x ^ y) = h(x) ^ h(y). So if two addresses differ only by XOR with a
 * constant d, their channels differ by the constant h(d), for every x.
 *
 * "a + d" is not "a ^ d" when the addition carries. We avoid carries by
 * construction: the table spans span bytes, so an entry's offset e inside a
 * replica uses only bits below L = ceil(log2(span)). We pick address bits
 * j >= L whose toggles h(1 << j) are linearly independent (Gaussian
 * elimination over GF(2), lowest bits first, to keep the alignment small),
 * r of them with 2^r >= N, and give replica k the offset d_k = XOR of the
 * chosen bits selected by the binary digits of k. If the region's physical
 * base B is aligned to 2^(highest chosen bit + 1), then B, e and d_k occupy
 * disjoint bits, so
 *     PA(copy k of entry e) = B + d_k + e = (B + e) ^ d_k
 *     h(copy k) = h(B + e) ^ h(d_k)
 * and the h(d_k) are pairwise distinct because the chosen toggles are
 * independent and the k are distinct. Hence for EVERY entry the N copies
 * sit on N distinct channels. The premise (physical base aligned, region
 * physically contiguous) holds inside one huge page of >= align bytes;
 * beyond a page it depends on the allocator, which is what
 * hgw_chanmap_verify checks entry by entry.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hgw_chanmap.h"
#include "hgw_chanmap_internal.h"
#include "hgw_parse.h"

static void
set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Insert v into a GF(2) basis kept as "pivot -> vector" (pivot = highest set
 * bit). Returns 1 if v was independent of the basis (and adds it). */
static int
basis_insert(uint32_t basis[32], uint32_t v)
{
	for (int b = 31; b >= 0 && v != 0; b--) {
		if (!(v & (1u << b)))
			continue;
		if (basis[b] == 0) {
			basis[b] = v;
			return 1;
		}
		v ^= basis[b];
	}
	return 0;
}

/* The same over 64-bit vectors (masks). */
static int
basis64_insert(uint64_t basis[64], uint64_t v)
{
	for (int b = 63; b >= 0 && v != 0; b--) {
		if (!(v & (1ull << b)))
			continue;
		if (basis[b] == 0) {
			basis[b] = v;
			return 1;
		}
		v ^= basis[b];
	}
	return 0;
}

int
hgw_chanmap_check(const struct hgw_chanmap *map, char *err, size_t errlen)
{
	uint64_t basis[64] = {0};

	if (map->nbits > HGW_CHANMAP_MAX_BITS) {
		set_err(err, errlen, "%u channel bits, at most %d", map->nbits,
			HGW_CHANMAP_MAX_BITS);
		return -EINVAL;
	}
	if (map->nbits == 0) {
		if (map->offset == 0) {
			set_err(err, errlen, "no masks and no offset");
			return -EINVAL;
		}
		return 0;
	}
	if (map->offset != 0) {
		set_err(err, errlen, "masks and offset cannot be mixed");
		return -EINVAL;
	}
	/* Masks must be linearly independent over GF(2): a mask that is an
	 * XOR of others makes its channel bit a function of the others, so
	 * some channel numbers could never be reached. */
	for (uint32_t i = 0; i < map->nbits; i++) {
		if (map->mask[i] == 0) {
			set_err(err, errlen, "mask %u is 0", i);
			return -EINVAL;
		}
		if (!basis64_insert(basis, map->mask[i])) {
			set_err(err, errlen, "mask %u is an XOR of earlier "
				"masks (some channels would be unreachable)",
				i);
			return -EINVAL;
		}
	}
	return 0;
}

/* An unsigned 64-bit number, the whole of s: 0xHEX, or decimal without
 * a leading zero (which C's base-0 parse took for octal: refused rather
 * than read as another number). */
static int
parse_u64(const char *s, uint64_t *out)
{
	if (hgw_parse_hex(&s, out) == 0)
		return *s == '\0' ? 0 : -1;
	if (s[0] == '0' && s[1] != '\0')
		return -1;
	return hgw_parse_num(s, 0, UINT64_MAX, out);
}

int
hgw_chanmap_load(const char *path, struct hgw_chanmap *map, char *err,
		 size_t errlen)
{
	FILE *f;
	char line[512];
	unsigned lineno = 0;
	int have_name = 0, have_offset = 0;
	int rc = 0;

	memset(map, 0, sizeof(*map));
	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		set_err(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return rc;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p, *key, *val, *extra, *save;
		size_t n = strlen(line);

		lineno++;
		if (n == sizeof(line) - 1 && line[n - 1] != '\n' && !feof(f)) {
			set_err(err, errlen, "%s:%u: line too long (max %zu)",
				path, lineno, sizeof(line) - 2);
			rc = -EINVAL;
			goto out;
		}
		p = strchr(line, '#');
		if (p != NULL)
			*p = '\0';
		key = strtok_r(line, " \t\r\n", &save);
		if (key == NULL)
			continue;
		val = strtok_r(NULL, " \t\r\n", &save);
		extra = strtok_r(NULL, " \t\r\n", &save);
		if (val == NULL) {
			set_err(err, errlen, "%s:%u: '%s' needs a value", path,
				lineno, key);
			rc = -EINVAL;
			goto out;
		}
		if (extra != NULL) {
			set_err(err, errlen, "%s:%u: unexpected '%s' after "
				"'%s %s'", path, lineno, extra, key, val);
			rc = -EINVAL;
			goto out;
		}
		if (strcmp(key, "name") == 0) {
			if (have_name) {
				set_err(err, errlen, "%s:%u: second 'name'",
					path, lineno);
				rc = -EINVAL;
				goto out;
			}
			if (strlen(val) >= sizeof(map->name)) {
				set_err(err, errlen, "%s:%u: name longer than "
					"%zu characters", path, lineno,
					sizeof(map->name) - 1);
				rc = -EINVAL;
				goto out;
			}
			strcpy(map->name, val);
			have_name = 1;
		} else if (strcmp(key, "mask") == 0) {
			uint64_t m;

			if (parse_u64(val, &m) != 0) {
				set_err(err, errlen, "%s:%u: bad mask '%s' "
					"(want 0xHEX)", path, lineno, val);
				rc = -EINVAL;
				goto out;
			}
			if (have_offset) {
				set_err(err, errlen, "%s:%u: 'mask' and "
					"'offset' cannot be mixed", path,
					lineno);
				rc = -EINVAL;
				goto out;
			}
			if (map->nbits == HGW_CHANMAP_MAX_BITS) {
				set_err(err, errlen, "%s:%u: more than %d "
					"masks", path, lineno,
					HGW_CHANMAP_MAX_BITS);
				rc = -EINVAL;
				goto out;
			}
			map->mask[map->nbits++] = m;
			if (hgw_chanmap_check(map, NULL, 0) != 0) {
				char why[128];

				hgw_chanmap_check(map, why, sizeof(why));
				set_err(err, errlen, "%s:%u: %s", path, lineno,
					why);
				rc = -EINVAL;
				goto out;
			}
		} else if (strcmp(key, "offset") == 0) {
			uint64_t o;

			if (parse_u64(val, &o) != 0 || o == 0) {
				set_err(err, errlen, "%s:%u: bad offset '%s' "
					"(want non-zero 0xHEX)", path, lineno,
					val);
				rc = -EINVAL;
				goto out;
			}
			if (map->nbits != 0) {
				set_err(err, errlen, "%s:%u: 'mask' and "
					"'offset' cannot be mixed", path,
					lineno);
				rc = -EINVAL;
				goto out;
			}
			if (have_offset) {
				set_err(err, errlen, "%s:%u: second 'offset'",
					path, lineno);
				rc = -EINVAL;
				goto out;
			}
			map->offset = o;
			have_offset = 1;
		} else {
			set_err(err, errlen, "%s:%u: unknown key '%s' (want "
				"name, mask or offset)", path, lineno, key);
			rc = -EINVAL;
			goto out;
		}
	}
	if (ferror(f)) {
		set_err(err, errlen, "%s: read error", path);
		rc = -EIO;
		goto out;
	}
	if (map->nbits == 0 && !have_offset) {
		set_err(err, errlen, "%s: no 'mask' or 'offset' line", path);
		rc = -EINVAL;
		goto out;
	}
	if (!have_name) {
		const char *base = strrchr(path, '/');
		size_t n;

		base = base ? base + 1 : path;
		n = strcspn(base, ".");
		if (n >= sizeof(map->name))
			n = sizeof(map->name) - 1;
		memcpy(map->name, base, n);
		map->name[n] = '\0';
	}
out:
	fclose(f);
	return rc;
}

int
hgw_chanmap_write(const char *path, const struct hgw_chanmap *map,
		  const char *comment)
{
	FILE *f;
	int rc = 0;

	if (hgw_chanmap_check(map, NULL, 0) != 0)
		return -EINVAL;
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	if (comment != NULL) {
		const char *p = comment;

		while (*p != '\0') {
			size_t n = strcspn(p, "\n");

			fprintf(f, "#%s%.*s\n", n ? " " : "", (int)n, p);
			p += n;
			if (*p == '\n')
				p++;
		}
	}
	if (map->name[0] != '\0')
		fprintf(f, "name %s\n", map->name);
	for (uint32_t i = 0; i < map->nbits; i++)
		fprintf(f, "mask 0x%" PRIx64 "\n", map->mask[i]);
	if (map->nbits == 0)
		fprintf(f, "offset 0x%" PRIx64 "\n", map->offset);
	if (ferror(f))
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

static uint32_t
ceil_log2(uint64_t v)
{
	return v <= 1 ? 0 : 64 - (uint32_t)__builtin_clzll(v - 1);
}

int
hgw_chanmap_replica_offsets(const struct hgw_chanmap *map, uint32_t nreplicas,
			    size_t entry_size, uint64_t span,
			    uint64_t offsets[], uint64_t *align,
			    uint64_t *region_size, char *err, size_t errlen)
{
	uint32_t basis[32] = {0};
	uint32_t chosen[HGW_CHANMAP_MAX_BITS];
	uint32_t rank = 0, lo;
	char why[128];
	uint64_t maxoff = 0;

	if (hgw_chanmap_check(map, why, sizeof(why)) != 0) {
		set_err(err, errlen, "map %s: %s", map->name, why);
		return -EINVAL;
	}
	if (nreplicas == 0 || nreplicas > HGW_CHANMAP_MAX_REPLICAS) {
		set_err(err, errlen, "%u replicas: want 1..%d", nreplicas,
			HGW_CHANMAP_MAX_REPLICAS);
		return -EINVAL;
	}
	if (entry_size == 0 || span == 0 || span % entry_size != 0) {
		set_err(err, errlen, "span %" PRIu64 " is not a non-zero "
			"multiple of entry size %zu", span, entry_size);
		return -EINVAL;
	}
	if (map->nbits == 0) {
		/* Offset-only fallback: copies k*offset apart, as the
		 * reference code does. Channels unknown. */
		if (map->offset < span) {
			set_err(err, errlen, "map %s: offset 0x%" PRIx64
				" is smaller than the table span 0x%" PRIx64
				" (copies would overlap)", map->name,
				map->offset, span);
			return -EINVAL;
		}
		if ((nreplicas - 1) > (UINT64_MAX - span) / map->offset) {
			set_err(err, errlen, "map %s: region overflows",
				map->name);
			return -EOVERFLOW;
		}
		for (uint32_t k = 0; k < nreplicas; k++)
			offsets[k] = (uint64_t)k * map->offset;
		if (align)
			*align = 64;
		if (region_size)
			*region_size = offsets[nreplicas - 1] + span;
		return 0;
	}
	if (nreplicas > (1u << map->nbits)) {
		set_err(err, errlen, "map %s has %u channels, cannot place %u "
			"replicas on distinct channels", map->name,
			1u << map->nbits, nreplicas);
		return -ENOSPC;
	}
	/* Lowest bit whose toggle cannot carry into the entry offsets. */
	lo = ceil_log2(span);
	for (uint32_t j = lo; j < 63 && (1u << rank) < nreplicas; j++) {
		uint32_t t = hgw_chanmap_delta(map, 1ull << j);

		if (t != 0 && basis_insert(basis, t))
			chosen[rank++] = j;
	}
	if ((1u << rank) < nreplicas) {
		char known[96] = "";
		size_t used = 0;

		for (uint32_t j = 0; j < 64 && used < sizeof(known) - 8; j++)
			if (hgw_chanmap_delta(map, 1ull << j) != 0)
				used += (size_t)snprintf(known + used,
					sizeof(known) - used, "%s%u",
					used ? "," : "", j);
		set_err(err, errlen, "map %s: address bits %u..62 give only %u "
			"independent channel toggle(s), %u replicas need %u; "
			"bits that move a line here: %s", map->name, lo, rank,
			nreplicas, ceil_log2(nreplicas),
			known[0] ? known : "none");
		return -ENOSPC;
	}
	for (uint32_t k = 0; k < nreplicas; k++) {
		uint64_t d = 0;

		for (uint32_t i = 0; i < rank; i++)
			if (k & (1u << i))
				d |= 1ull << chosen[i];
		offsets[k] = d;
		if (d > maxoff)
			maxoff = d;
	}
	if (align)
		*align = rank ? 1ull << (chosen[rank - 1] + 1) : 64;
	if (region_size)
		*region_size = maxoff + span;
	return 0;
}

/* Per-replica cache of the last page translated. */
struct page_cache {
	uintptr_t page;   /* va of the page start, or UINTPTR_MAX */
	uint64_t pa;      /* its PA */
};

int
hgw_chanmap_verify(const struct hgw_chanmap *map, uint32_t nreplicas,
		   const void *const base_va[], uint64_t nentries,
		   size_t entry_size, uint64_t page_size,
		   hgw_chanmap_va2pa_t va2pa, void *arg, uint32_t flags,
		   struct hgw_chanmap_report *rep)
{
	struct page_cache pc[HGW_CHANMAP_MAX_REPLICAS];
	uintptr_t pmask;
	size_t nlines;

	if (map == NULL || rep == NULL || base_va == NULL || va2pa == NULL ||
	    nreplicas == 0 || nreplicas > HGW_CHANMAP_MAX_REPLICAS ||
	    entry_size == 0 || page_size < 64 ||
	    (page_size & (page_size - 1)) != 0)
		return -EINVAL;
	memset(rep, 0, sizeof(*rep));
	rep->nreplicas = nreplicas;
	rep->nentries = nentries;
	snprintf(rep->map_name, sizeof(rep->map_name), "%s", map->name);
	if (map->nbits == 0) {
		rep->result = HGW_CHANMAP_UNVERIFIED;
		snprintf(rep->reason, sizeof(rep->reason), "map is offset-only "
			 "(copies 0x%" PRIx64 " apart): channels unknown",
			 map->offset);
		return 0;
	}
	if (nreplicas > (1u << map->nbits)) {
		rep->result = HGW_CHANMAP_VIOLATED;
		rep->violations = nentries;
		return 0;
	}
	pmask = ~(uintptr_t)(page_size - 1);
	for (uint32_t k = 0; k < nreplicas; k++)
		pc[k].page = UINTPTR_MAX;
	/* Every 64-byte line of an entry is checked: an entry larger than a
	 * line could straddle pages whose PAs are unrelated. */
	nlines = (entry_size + 63) / 64;

	for (uint64_t e = 0; e < nentries; e++) {
		int bad = 0;

		for (size_t l = 0; l < nlines; l++) {
			uint64_t seen[4] = {0, 0, 0, 0};
			uint64_t pa[HGW_CHANMAP_MAX_REPLICAS];
			uint32_t owner[256];

			for (uint32_t k = 0; k < nreplicas; k++) {
				uintptr_t va = (uintptr_t)base_va[k] +
					(uintptr_t)(e * entry_size + l * 64);
				uintptr_t page = va & pmask;
				uint32_t ch;

				if (page != pc[k].page) {
					uint64_t p = va2pa((const void *)page,
							   arg);

					rep->translations++;
					if (p == HGW_CHANMAP_PA_UNKNOWN) {
						rep->result =
							HGW_CHANMAP_UNVERIFIED;
						snprintf(rep->reason,
							 sizeof(rep->reason),
							 "no physical address "
							 "for replica %u at VA "
							 "%p (no huge pages or "
							 "IOVA as VA?)", k,
							 (const void *)page);
						return 0;
					}
					pc[k].page = page;
					pc[k].pa = p;
				}
				pa[k] = pc[k].pa + (va - page);
				ch = hgw_chanmap_channel(map, pa[k]);
				if (seen[ch >> 6] & (1ull << (ch & 63))) {
					if (!bad && rep->nshown <
					    HGW_CHANMAP_REPORT_MAX) {
						struct hgw_chanmap_violation *v
							= &rep->first[
							  rep->nshown++];
						v->entry = e;
						v->r1 = owner[ch];
						v->r2 = k;
						v->channel = ch;
						v->pa1 = pa[owner[ch]];
						v->pa2 = pa[k];
					}
					bad = 1;
				} else {
					seen[ch >> 6] |= 1ull << (ch & 63);
					owner[ch] = k;
				}
			}
		}
		rep->violations += (uint64_t)bad;
		rep->checked++;
	}
	if (flags & HGW_CHANMAP_F_GUEST_PA) {
		rep->result = HGW_CHANMAP_UNVERIFIED;
		snprintf(rep->reason, sizeof(rep->reason), "guest-physical "
			 "addresses under a hypervisor say nothing about host "
			 "channels (guest-level check: %" PRIu64 " violations)",
			 rep->violations);
		return 0;
	}
	rep->result = rep->violations ? HGW_CHANMAP_VIOLATED :
					HGW_CHANMAP_VERIFIED;
	return 0;
}

const char *
hgw_chanmap_report_line(const struct hgw_chanmap_report *rep, char *buf,
			size_t len)
{
	switch (rep->result) {
	case HGW_CHANMAP_VERIFIED:
		snprintf(buf, len, "chanmap %s: placement verified: %u "
			 "replicas x %" PRIu64 " entries, every entry's copies "
			 "on distinct channels", rep->map_name, rep->nreplicas,
			 rep->nentries);
		break;
	case HGW_CHANMAP_VIOLATED:
		if (rep->nshown > 0) {
			const struct hgw_chanmap_violation *v = &rep->first[0];

			snprintf(buf, len, "chanmap %s: placement VIOLATED: "
				 "%" PRIu64 " of %" PRIu64 " entries have two "
				 "copies on one channel; first: entry %" PRIu64
				 " replicas %u and %u on channel %u (PA 0x%"
				 PRIx64 ", 0x%" PRIx64 ")", rep->map_name,
				 rep->violations, rep->nentries, v->entry,
				 v->r1, v->r2, v->channel, v->pa1, v->pa2);
		} else {
			snprintf(buf, len, "chanmap %s: placement VIOLATED: "
				 "%u replicas exceed the map's channels",
				 rep->map_name, rep->nreplicas);
		}
		break;
	default:
		snprintf(buf, len, "chanmap %s: placement UNVERIFIED: %s",
			 rep->map_name, rep->reason);
		break;
	}
	return buf;
}

int
hgw_chanmap_hypervisor(void)
{
#if defined(__x86_64__)
	uint32_t a = 1, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	(void)b;
	(void)d;
	if (c & (1u << 31))
		return 1;
#endif
	{
		FILE *f = fopen("/sys/hypervisor/type", "r");
		char line[256];
		int found = 0;

		if (f != NULL) {
			if (fgets(line, sizeof(line), f) != NULL &&
			    line[0] != '\n' && line[0] != '\0')
				found = 1;
			fclose(f);
			if (found)
				return 1;
		}
		f = fopen("/proc/cpuinfo", "r");
		if (f == NULL)
			return 0;
		while (!found && fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "flags", 5) == 0 &&
			    strstr(line, " hypervisor") != NULL)
				found = 1;
		fclose(f);
		return found;
	}
}
