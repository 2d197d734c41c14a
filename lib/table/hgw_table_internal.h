/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the pricing table, inside the library.
 *
 * Internal: included by the library's own .c files only, never by users of
 * hgw_table_dep (its include path holds hgw_table.h alone). The file
 * header's layout and the layout of a validated patch, which callers hold
 * through a pointer (struct hgw_table_patch is opaque in hgw_table.h).
 */
#ifndef HGW_TABLE_INTERNAL_H
#define HGW_TABLE_INTERNAL_H

#include <stdint.h>

#include "hgw_table.h"

#define HGW_TABLE_MAGIC       "HGWTABL1"
#define HGW_TABLE_VERSION     1

/* Header field offsets (docs/protocols.md "Table file"). */
#define HDR_MAGIC      0
#define HDR_VERSION    8
#define HDR_ENTRY_SIZE 12
#define HDR_INSTR      16
#define HDR_SPREADS    20
#define HDR_IMBAL      24
#define HDR_TICK       28
#define HDR_COUNT      32
#define HDR_CRC        40

/* One validated patch line: the key and the fields a write sets (the
 * rest of the entry is zero). Packed here rather than as a whole 64-byte
 * entry: a third of the memory, and no 64-byte alignment asked of
 * malloc. */
struct tbl_patch_ent {
	uint64_t key;
	int32_t price;
	uint32_t quantity;
	uint32_t tag;
	uint8_t action;
	uint8_t price_mode;
	uint8_t tif;
	uint8_t display;
};

struct hgw_table_patch {
	struct hgw_table_dims dims;     /* validated against */
	uint32_t n;
	struct tbl_patch_ent *ent;      /* n entries, file order */
};

#endif /* HGW_TABLE_INTERNAL_H */
