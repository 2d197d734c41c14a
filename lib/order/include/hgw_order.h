/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: outgoing orders, OUCH 5.0 in SoupBinTCP framing over UDP.
 *
 * Three layers kept apart so a TCP order session can replace the last:
 *   OUCH 5.0 Enter Order (47 bytes)  -> hgw_ouch_enter_order()
 *   SoupBinTCP Unsequenced Data      -> hgw_soupbin_unsequenced()
 *   Ethernet / IPv4 / UDP transport  -> struct hgw_udp_tx template
 * hgw_order_frame() composes them into the 92-byte frame
 * docs/protocols.md "Order bytes" specifies. Pure functions over byte
 * buffers: no EAL, no allocation; the worker writes straight into an mbuf.
 */
#ifndef HGW_ORDER_H
#define HGW_ORDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HGW_OUCH_ENTER_ORDER_LEN 47
#define HGW_SOUPBIN_HDR_LEN      3       /* length (2) + packet type (1) */
#define HGW_UDP_TX_HDR_LEN       42      /* Ethernet 14 + IPv4 20 + UDP 8 */
#define HGW_ORDER_FRAME_LEN \
	(HGW_UDP_TX_HDR_LEN + HGW_SOUPBIN_HDR_LEN + HGW_OUCH_ENTER_ORDER_LEN)
#define HGW_CLORDID_LEN 14

_Static_assert(HGW_ORDER_FRAME_LEN == 92, "order frame length");

/* Layouts public: callers fill orders, read answers and embed the
 * transport template (struct hgw_udp_tx) by value; the OUCH server
 * messages' fixed lengths are in hgw_order_internal.h. */

/* The fields of one Enter Order, as decided. */
struct hgw_ouch_order {
	uint32_t user_ref_num;
	uint8_t side;              /* 'B' or 'S' */
	uint32_t quantity;
	char symbol[8];            /* space padded */
	uint64_t price;            /* 4 implied decimals */
	uint8_t tif;
	uint8_t display;
	uint8_t capacity;
	uint8_t intermarket_sweep; /* 'N' */
	uint8_t cross_type;        /* 'N' */
	char clordid[HGW_CLORDID_LEN];
};

/* UserRefNum and ClOrdID of a trigger (docs/protocols.md "Order bytes"):
 * seq mod 2^32, and the session's last 4 characters + seq mod 10^10 as 10
 * digits. */
uint32_t hgw_order_user_ref(uint64_t seq);
void hgw_order_clordid(const char session[10], uint64_t seq,
		       char out[HGW_CLORDID_LEN]);

/* The trigger's sequence number mod 10^10 from a ClOrdID's last 10
 * characters (its first 4 are the session's last 4): 0, or -1 if they are
 * not all digits. The inverse of hgw_order_clordid for tools that match
 * orders to triggers (hgw-dedup, hgw-meter). */
int hgw_order_clordid_seq(const char clordid[HGW_CLORDID_LEN], uint64_t *seq);

/* OUCH 5.0 server messages (the payload of a SoupBinTCP Sequenced Data
 * packet), by type byte. */
enum hgw_ouch_answer_type {
	HGW_OUCH_SYSTEM_EVENT = 'S',
	HGW_OUCH_ACCEPTED = 'A',
	HGW_OUCH_REPLACED = 'U',
	HGW_OUCH_CANCELED = 'C',
	HGW_OUCH_AIQ_CANCELED = 'D',
	HGW_OUCH_EXECUTED = 'E',
	HGW_OUCH_BROKEN = 'B',
	HGW_OUCH_REJECTED = 'J',
	HGW_OUCH_CANCEL_PENDING = 'P',
	HGW_OUCH_CANCEL_REJECT = 'I',
	HGW_OUCH_MODIFIED = 'M',
	HGW_OUCH_RESTATED = 'R',
};

/* The reason of a Canceled (C) that answers the client's own Cancel Order
 * ("user requested"); others are the venue's (an IOC's remainder, ...). */
#define HGW_OUCH_CANCEL_USER 'U'

/* One venue answer, decoded: what the replicas need of it. Fields a type
 * does not carry are 0. */
struct hgw_ouch_answer {
	uint64_t seq;           /* its SoupBinTCP sequence number (from 1) */
	uint64_t match;         /* E, B: match number; A, U: order reference */
	uint64_t price;         /* E, D: execution price; A, U: limit price */
	uint32_t user_ref;      /* every type but S */
	uint32_t orig_user_ref; /* U: the order it replaced */
	uint32_t qty;           /* A, U: quantity; C, D: decrement; E: executed;
				 * M: new quantity; R: Display Quantity */
	uint16_t reason;        /* C, D, B, R: reason byte; J: 2-byte code;
				 * A, U: order state ('L' live, 'D' dead) */
	uint8_t type;           /* enum hgw_ouch_answer_type */
	uint8_t side;           /* A, U, M */
	uint8_t event_code;     /* S */
	uint8_t has_qty;        /* R: its appendage gave a Display Quantity
				 * (option tag 22), in qty */
};

/* Decode one OUCH 5.0 server message (msg, len bytes: the payload of a
 * Sequenced Data packet) into *a, with seq as its sequence number.
 * Every type of enum hgw_ouch_answer_type; the length must be the type's
 * (plus its appendage where it has one). 0, or -1 with *why "empty",
 * "unknown type" or "bad length" (*a is then zeroed but for type). */
int hgw_ouch_answer_decode(const uint8_t *msg, size_t len, uint64_t seq,
			   struct hgw_ouch_answer *a, const char **why);

/* The name of an OUCH 5.0 server message type ("Executed", ...), or
 * "unknown". */
const char *hgw_ouch_answer_name(uint8_t type);

/* OUCH 5.0 Cancel Order (client, 9 bytes): cancel down to quantity
 * (0: the whole order) the order entered as user_ref. Returns 9. */
#define HGW_OUCH_CANCEL_ORDER_LEN 9
size_t hgw_ouch_cancel_order(uint8_t *buf, uint32_t user_ref,
			     uint32_t quantity);

/* Write the 47-byte Enter Order at buf. Returns 47. */
size_t hgw_ouch_enter_order(uint8_t *buf, const struct hgw_ouch_order *o);

/* Write a SoupBinTCP Unsequenced Data header for a payload of len bytes
 * at buf (length field = len + 1, type 'U'). Returns 3. */
size_t hgw_soupbin_unsequenced(uint8_t *buf, size_t len);

/* Transport template: Ethernet/IPv4/UDP headers prepared once. */
struct hgw_udp_tx {
	uint8_t src_mac[6], dst_mac[6];
	uint32_t src_ip, dst_ip;       /* host byte order */
	uint16_t src_port, dst_port;
	uint8_t hdr[HGW_UDP_TX_HDR_LEN]; /* filled by hgw_udp_tx_init */
	uint32_t ip_csum_base;         /* partial IPv4 checksum, lengths excluded */
	uint32_t udp_csum_base;        /* partial UDP pseudo-header + ports sum */
};

void hgw_udp_tx_init(struct hgw_udp_tx *t);

/* Write headers for a UDP payload of len bytes already at
 * frame + HGW_UDP_TX_HDR_LEN, with IPv4 (id 0, DF, TTL 64) and UDP
 * checksums. Returns the frame length. */
size_t hgw_udp_tx_frame(const struct hgw_udp_tx *t, uint8_t *frame,
			size_t len);

/* The whole 92-byte order frame. Returns HGW_ORDER_FRAME_LEN. */
size_t hgw_order_frame(const struct hgw_udp_tx *t,
		       const struct hgw_ouch_order *o, uint8_t *frame);

/* Decode an order frame back (for tests, tools and the journal reader):
 * checks Ethernet type, IPv4 header and checksum, UDP length and
 * checksum, SoupBinTCP length and type, OUCH type and length. Returns 0,
 * or -1 with a short reason in *why. */
int hgw_order_decode(const uint8_t *frame, size_t len,
		     struct hgw_ouch_order *o, const char **why);

/* Parse "aa:bb:cc:dd:ee:ff": 0 or -1. */
int hgw_parse_mac(const char *s, uint8_t mac[6]);

#ifdef __cplusplus
}
#endif

#endif /* HGW_ORDER_H */
