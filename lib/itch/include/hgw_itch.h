/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: Nasdaq TotalView-ITCH 5.0 message layouts as zero-copy views.
 *
 * Every message is a packed struct laid over the received bytes; integer
 * fields are big-endian on the wire and read with the hgw_be*() helpers,
 * which compile to a load and a bswap. Nothing here allocates or copies.
 * Layouts follow the Nasdaq TotalView-ITCH 5.0 specification (2015).
 */
#ifndef HGW_ITCH_H
#define HGW_ITCH_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HGW_ITCH_PACKED __attribute__((packed))

/* Unaligned big-endian loads. memcpy keeps them legal on strict-alignment
 * CPUs (Arm) and compiles to one load + bswap on x86. */
static inline uint16_t hgw_be16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return __builtin_bswap16(v);
}

static inline uint32_t hgw_be32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return __builtin_bswap32(v);
}

static inline uint64_t hgw_be64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return __builtin_bswap64(v);
}

/* ITCH timestamps are 6-byte big-endian nanoseconds since midnight. */
static inline uint64_t hgw_be48(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return ((uint64_t)hgw_be16(b) << 32) | hgw_be32(b + 2);
}

static inline void hgw_put_be16(void *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void hgw_put_be32(void *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void hgw_put_be64(void *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

static inline void hgw_put_be48(void *p, uint64_t v)
{
	uint8_t *b = (uint8_t *)p;
	hgw_put_be16(b, (uint16_t)(v >> 32));
	hgw_put_be32(b + 2, (uint32_t)v);
}

/* Message types (the first byte). */
#define HGW_ITCH_SYSTEM_EVENT        'S'
#define HGW_ITCH_STOCK_DIRECTORY     'R'
#define HGW_ITCH_TRADING_ACTION      'H'
#define HGW_ITCH_REG_SHO             'Y'
#define HGW_ITCH_MARKET_PARTICIPANT  'L'
#define HGW_ITCH_MWCB_DECLINE        'V'
#define HGW_ITCH_MWCB_STATUS         'W'
#define HGW_ITCH_IPO_QUOTING         'K'
#define HGW_ITCH_LULD_COLLAR         'J'
#define HGW_ITCH_OPERATIONAL_HALT    'h'
#define HGW_ITCH_ADD_ORDER           'A'
#define HGW_ITCH_ADD_ORDER_MPID      'F'
#define HGW_ITCH_ORDER_EXECUTED      'E'
#define HGW_ITCH_ORDER_EXECUTED_PX   'C'
#define HGW_ITCH_ORDER_CANCEL        'X'
#define HGW_ITCH_ORDER_DELETE        'D'
#define HGW_ITCH_ORDER_REPLACE       'U'
#define HGW_ITCH_TRADE               'P'
#define HGW_ITCH_CROSS_TRADE         'Q'
#define HGW_ITCH_BROKEN_TRADE        'B'
#define HGW_ITCH_NOII                'I'
#define HGW_ITCH_RPII                'N'

/* System event codes. */
#define HGW_ITCH_EVENT_START_MESSAGES 'O'
#define HGW_ITCH_EVENT_START_SYSTEM   'S'
#define HGW_ITCH_EVENT_START_MARKET   'Q'
#define HGW_ITCH_EVENT_END_MARKET     'M'
#define HGW_ITCH_EVENT_END_SYSTEM     'E'
#define HGW_ITCH_EVENT_END_MESSAGES   'C'

/* Max Price(4) in the spec: 200,000.0000. */
#define HGW_ITCH_PRICE_MAX 2000000000u
#define HGW_ITCH_PRICE_SCALE 10000u
#define HGW_ITCH_STOCK_LEN 8

/* Common header: type @0, stock locate @1, tracking @3, timestamp @5. */
struct hgw_itch_hdr {
	uint8_t type;
	uint8_t locate[2];
	uint8_t tracking[2];
	uint8_t timestamp[6];
} HGW_ITCH_PACKED;

struct hgw_itch_system_event {            /* 'S', 12 */
	struct hgw_itch_hdr h;
	uint8_t event_code;
} HGW_ITCH_PACKED;

struct hgw_itch_stock_directory {         /* 'R', 39 */
	struct hgw_itch_hdr h;
	char stock[8];
	uint8_t market_category;
	uint8_t financial_status;
	uint8_t round_lot_size[4];
	uint8_t round_lots_only;
	uint8_t issue_classification;
	char issue_subtype[2];
	uint8_t authenticity;
	uint8_t short_sale_threshold;
	uint8_t ipo_flag;
	uint8_t luld_tier;
	uint8_t etp_flag;
	uint8_t etp_leverage[4];
	uint8_t inverse;
} HGW_ITCH_PACKED;

struct hgw_itch_trading_action {          /* 'H', 25 */
	struct hgw_itch_hdr h;
	char stock[8];
	uint8_t trading_state;
	uint8_t reserved;
	char reason[4];
} HGW_ITCH_PACKED;

struct hgw_itch_reg_sho {                 /* 'Y', 20 */
	struct hgw_itch_hdr h;
	char stock[8];
	uint8_t action;
} HGW_ITCH_PACKED;

struct hgw_itch_market_participant {      /* 'L', 26 */
	struct hgw_itch_hdr h;
	char mpid[4];
	char stock[8];
	uint8_t primary_mm;
	uint8_t mode;
	uint8_t state;
} HGW_ITCH_PACKED;

struct hgw_itch_mwcb_decline {            /* 'V', 35 */
	struct hgw_itch_hdr h;
	uint8_t level1[8];   /* Price(8): 8 implied decimals */
	uint8_t level2[8];
	uint8_t level3[8];
} HGW_ITCH_PACKED;

struct hgw_itch_mwcb_status {             /* 'W', 12 */
	struct hgw_itch_hdr h;
	uint8_t breached_level;
} HGW_ITCH_PACKED;

struct hgw_itch_ipo_quoting {             /* 'K', 28 */
	struct hgw_itch_hdr h;
	char stock[8];
	uint8_t release_time[4];
	uint8_t release_qualifier;
	uint8_t ipo_price[4];
} HGW_ITCH_PACKED;

struct hgw_itch_luld_collar {             /* 'J', 35 */
	struct hgw_itch_hdr h;
	char stock[8];
	uint8_t reference_price[4];
	uint8_t upper_price[4];
	uint8_t lower_price[4];
	uint8_t extension[4];
} HGW_ITCH_PACKED;

struct hgw_itch_operational_halt {        /* 'h', 21 */
	struct hgw_itch_hdr h;
	char stock[8];
	uint8_t market_code;
	uint8_t action;
} HGW_ITCH_PACKED;

struct hgw_itch_add_order {               /* 'A', 36 */
	struct hgw_itch_hdr h;
	uint8_t order_ref[8];
	uint8_t side;        /* 'B' or 'S' */
	uint8_t shares[4];
	char stock[8];
	uint8_t price[4];
} HGW_ITCH_PACKED;

struct hgw_itch_add_order_mpid {          /* 'F', 40 */
	struct hgw_itch_add_order a;
	char attribution[4];
} HGW_ITCH_PACKED;

struct hgw_itch_order_executed {          /* 'E', 31 */
	struct hgw_itch_hdr h;
	uint8_t order_ref[8];
	uint8_t executed_shares[4];
	uint8_t match_number[8];
} HGW_ITCH_PACKED;

struct hgw_itch_order_executed_px {       /* 'C', 36 */
	struct hgw_itch_order_executed e;
	uint8_t printable;
	uint8_t execution_price[4];
} HGW_ITCH_PACKED;

struct hgw_itch_order_cancel {            /* 'X', 23 */
	struct hgw_itch_hdr h;
	uint8_t order_ref[8];
	uint8_t cancelled_shares[4];
} HGW_ITCH_PACKED;

struct hgw_itch_order_delete {            /* 'D', 19 */
	struct hgw_itch_hdr h;
	uint8_t order_ref[8];
} HGW_ITCH_PACKED;

struct hgw_itch_order_replace {           /* 'U', 35 */
	struct hgw_itch_hdr h;
	uint8_t original_ref[8];
	uint8_t new_ref[8];
	uint8_t shares[4];
	uint8_t price[4];
} HGW_ITCH_PACKED;

struct hgw_itch_trade {                   /* 'P', 44 */
	struct hgw_itch_hdr h;
	uint8_t order_ref[8];
	uint8_t side;
	uint8_t shares[4];
	char stock[8];
	uint8_t price[4];
	uint8_t match_number[8];
} HGW_ITCH_PACKED;

struct hgw_itch_cross_trade {             /* 'Q', 40 */
	struct hgw_itch_hdr h;
	uint8_t shares[8];
	char stock[8];
	uint8_t cross_price[4];
	uint8_t match_number[8];
	uint8_t cross_type;
} HGW_ITCH_PACKED;

struct hgw_itch_broken_trade {            /* 'B', 19 */
	struct hgw_itch_hdr h;
	uint8_t match_number[8];
} HGW_ITCH_PACKED;

struct hgw_itch_noii {                    /* 'I', 50 */
	struct hgw_itch_hdr h;
	uint8_t paired_shares[8];
	uint8_t imbalance_shares[8];
	uint8_t imbalance_direction;
	char stock[8];
	uint8_t far_price[4];
	uint8_t near_price[4];
	uint8_t reference_price[4];
	uint8_t cross_type;
	uint8_t price_variation;
} HGW_ITCH_PACKED;

struct hgw_itch_rpii {                    /* 'N', 20 */
	struct hgw_itch_hdr h;
	char stock[8];
	uint8_t interest_flag;
} HGW_ITCH_PACKED;

_Static_assert(sizeof(struct hgw_itch_hdr) == 11, "ITCH header");
_Static_assert(sizeof(struct hgw_itch_system_event) == 12, "S");
_Static_assert(sizeof(struct hgw_itch_stock_directory) == 39, "R");
_Static_assert(sizeof(struct hgw_itch_trading_action) == 25, "H");
_Static_assert(sizeof(struct hgw_itch_reg_sho) == 20, "Y");
_Static_assert(sizeof(struct hgw_itch_market_participant) == 26, "L");
_Static_assert(sizeof(struct hgw_itch_mwcb_decline) == 35, "V");
_Static_assert(sizeof(struct hgw_itch_mwcb_status) == 12, "W");
_Static_assert(sizeof(struct hgw_itch_ipo_quoting) == 28, "K");
_Static_assert(sizeof(struct hgw_itch_luld_collar) == 35, "J");
_Static_assert(sizeof(struct hgw_itch_operational_halt) == 21, "h");
_Static_assert(sizeof(struct hgw_itch_add_order) == 36, "A");
_Static_assert(sizeof(struct hgw_itch_add_order_mpid) == 40, "F");
_Static_assert(sizeof(struct hgw_itch_order_executed) == 31, "E");
_Static_assert(sizeof(struct hgw_itch_order_executed_px) == 36, "C");
_Static_assert(sizeof(struct hgw_itch_order_cancel) == 23, "X");
_Static_assert(sizeof(struct hgw_itch_order_delete) == 19, "D");
_Static_assert(sizeof(struct hgw_itch_order_replace) == 35, "U");
_Static_assert(sizeof(struct hgw_itch_trade) == 44, "P");
_Static_assert(sizeof(struct hgw_itch_cross_trade) == 40, "Q");
_Static_assert(sizeof(struct hgw_itch_broken_trade) == 19, "B");
_Static_assert(sizeof(struct hgw_itch_noii) == 50, "I");
_Static_assert(sizeof(struct hgw_itch_rpii) == 20, "N");

/* Expected length of each message type; 0 for a type ITCH 5.0 does not
 * define. Indexed by the type byte. */
extern const uint8_t hgw_itch_msg_len[256];

/* Name of a message type ("Add Order"), or NULL for an unknown type. */
const char *hgw_itch_type_name(uint8_t type);

/* Field accessors shared by several types. */
static inline uint16_t hgw_itch_locate(const void *msg)
{
	return hgw_be16(((const struct hgw_itch_hdr *)msg)->locate);
}

static inline uint64_t hgw_itch_timestamp(const void *msg)
{
	return hgw_be48(((const struct hgw_itch_hdr *)msg)->timestamp);
}

/* 1 when a message of this type and length is well formed. */
static inline int hgw_itch_len_ok(uint8_t type, uint16_t len)
{
	return hgw_itch_msg_len[type] != 0 && hgw_itch_msg_len[type] == len;
}

#ifdef __cplusplus
}
#endif

#endif /* HGW_ITCH_H */
