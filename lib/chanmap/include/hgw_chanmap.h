/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: DRAM channel maps, replica placement and its verification.
 *
 * A channel map says how a physical address selects a DRAM channel. Memory
 * controllers use an XOR hash of address bits: channel index bit i is the
 * parity of (paddr & mask[i]). Because XOR is linear over GF(2), flipping an
 * address bit j toggles exactly the channel bits i with mask[i] bit j set,
 * whatever the other address bits are (the published Tailslayer work).
 *
 * A map with nbits == 0 is the offset-only fallback of the reference
 * Tailslayer code: copies k*offset apart, channels unknown, so placement
 * can never be verified.
 *
 * Nothing here needs an EAL, allocates on a fast path or logs: the pure
 * functions can be used from tools and unit tests. The owner supplies a
 * virtual-to-physical callback (rte_mem_virt2phy, /proc/self/pagemap) to
 * hgw_chanmap_verify.
 */
#ifndef HGW_CHANMAP_H
#define HGW_CHANMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HGW_CHANMAP_MAX_BITS     8   /* up to 256 channels */
#define HGW_CHANMAP_MAX_REPLICAS 16  /* hedging wider than this is unheard of */
#define HGW_CHANMAP_NAME_MAX     64
#define HGW_CHANMAP_PA_UNKNOWN   UINT64_MAX
#define HGW_CHANMAP_REPORT_MAX   4   /* violations kept in a report */

/* Layouts public: callers load, write and keep maps and reports by value
 * (hedgewire, hgw-chanprobe); the channel arithmetic the library uses on
 * them is in hgw_chanmap_internal.h. */
struct hgw_chanmap {
	uint32_t nbits;                       /* channel bits; 0 = offset-only */
	uint64_t mask[HGW_CHANMAP_MAX_BITS];  /* XOR mask of channel bit i */
	uint64_t offset;                      /* fallback: copies k*offset apart */
	char name[HGW_CHANMAP_NAME_MAX];
};

/* Read a map file. Format (text, '#' starts a comment, blank lines ignored):
 *   name NAME          optional, once; default: the file's base name
 *   mask 0xHEX         one line per channel bit (bit 0 first), at most 8;
 *                      no mask may be 0 or an XOR of earlier masks
 *   offset 0xHEX       instead of masks: the offset-only fallback
 * Numbers may be hex (0x) or decimal. Returns 0, or a negative errno with
 * one line in err naming the file and line ("FILE:LINE: what is wrong"). */
int hgw_chanmap_load(const char *path, struct hgw_chanmap *map,
		     char *err, size_t errlen);

/* Write map to path in the format above. comment (may be NULL or contain
 * newlines) is written first, each line prefixed with "# ". Returns 0 or a
 * negative errno. */
int hgw_chanmap_write(const char *path, const struct hgw_chanmap *map,
		      const char *comment);

/* Check a map in memory (as hgw_chanmap_load does for files). Returns 0 or
 * -EINVAL with a one-line reason in err. */
int hgw_chanmap_check(const struct hgw_chanmap *map, char *err, size_t errlen);

/* Replica layout. Choose byte offsets offsets[0..nreplicas-1] of the N
 * replicas of a table of span bytes (entries of entry_size bytes, span a
 * multiple of entry_size) inside one region, such that for EVERY entry the
 * N copies lie on pairwise-distinct channels under map, provided that the
 * region's physical address is aligned to *align (huge pages of at least
 * *align bytes guarantee it; see hgw_chanmap.c for the argument). The
 * region must hold offsets[N-1] + span bytes (*region_size).
 *
 * XOR maps: offsets[0] == 0 and every offset is an XOR of address bits at
 * or above ceil(log2(span)). Needs nreplicas <= 2^rank, rank being the
 * number of independent channel toggles those bits give; fails with -ENOSPC
 * and an explanation otherwise (e.g. a map that knows only a low bit).
 * Offset-only maps: offsets[k] = k * offset (offset >= span), *align = 64,
 * placement unknown.
 * align and region_size may be NULL. Returns 0 or a negative errno. */
int hgw_chanmap_replica_offsets(const struct hgw_chanmap *map,
				uint32_t nreplicas, size_t entry_size,
				uint64_t span, uint64_t offsets[],
				uint64_t *align, uint64_t *region_size,
				char *err, size_t errlen);

/* Virtual to physical translation; returns HGW_CHANMAP_PA_UNKNOWN when the
 * physical address is not known (no huge pages, IOVA as VA, no pagemap). */
typedef uint64_t (*hgw_chanmap_va2pa_t)(const void *va, void *arg);

enum hgw_chanmap_result {
	HGW_CHANMAP_VERIFIED = 0,     /* every entry on distinct channels */
	HGW_CHANMAP_VIOLATED,         /* some entries share a channel */
	HGW_CHANMAP_UNVERIFIED,       /* could not check: see reason */
};

struct hgw_chanmap_violation {
	uint64_t entry;       /* entry index */
	uint32_t r1, r2;      /* the two replicas on one channel */
	uint32_t channel;
	uint64_t pa1, pa2;    /* physical addresses of the two copies */
};

struct hgw_chanmap_report {
	enum hgw_chanmap_result result;
	uint32_t nreplicas;
	uint64_t nentries;
	uint64_t checked;     /* entries fully checked */
	uint64_t violations;  /* entries with two copies on one channel */
	uint64_t translations;/* callback calls (one per page and replica) */
	uint32_t nshown;      /* first violations kept below */
	struct hgw_chanmap_violation first[HGW_CHANMAP_REPORT_MAX];
	char map_name[HGW_CHANMAP_NAME_MAX];
	char reason[160];     /* for UNVERIFIED */
};

/* Verify placement: replica k's entry e is at base_va[k] + e*entry_size
 * (nothing is dereferenced). For every entry and every 64-byte line of it,
 * translate each copy with va2pa and count entries where two copies share a
 * channel. Translations are cached per page of page_size bytes (a power of
 * two; PAs are contiguous within a page), so millions of entries cost one
 * callback per page per replica. An offset-only map, any unknown PA, or
 * flags & HGW_CHANMAP_F_GUEST_PA gives HGW_CHANMAP_UNVERIFIED with the
 * reason. Returns 0 when the check
 * ran (result in rep), or -EINVAL for bad arguments. */
int hgw_chanmap_verify(const struct hgw_chanmap *map, uint32_t nreplicas,
		       const void *const base_va[], uint64_t nentries,
		       size_t entry_size, uint64_t page_size,
		       hgw_chanmap_va2pa_t va2pa, void *arg, uint32_t flags,
		       struct hgw_chanmap_report *rep);

/* Flag for hgw_chanmap_verify: the PAs are guest-physical (running under a
 * hypervisor). The check still runs (violations counted, useful as a
 * consistency check) but the result is UNVERIFIED: guest-physical bits say
 * nothing about host channels (as measured on VMs). */
#define HGW_CHANMAP_F_GUEST_PA 0x1u

/* 1 if a hypervisor is detected (x86 CPUID leaf 1 ECX bit 31, else
 * /proc/cpuinfo "hypervisor" flag or /sys/hypervisor/type), 0 if not. */
int hgw_chanmap_hypervisor(void);

/* One clear line describing rep (no newline), e.g.
 * "chanmap zen4-2ch: placement UNVERIFIED: ... ". Returns buf. */
const char *hgw_chanmap_report_line(const struct hgw_chanmap_report *rep,
				    char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HGW_CHANMAP_H */
