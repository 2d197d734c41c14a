/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: OUCH 5.0 Enter Order in SoupBinTCP Unsequenced Data over
 * Ethernet/IPv4/UDP (docs/protocols.md "Order bytes"; OUCH 5.0 and SoupBinTCP).
 *
 * Frame layout (92 bytes; offsets from the start of the frame):
 *
 *    0 Ethernet  dst 6, src 6, type 0x0800
 *   14 IPv4      0x45, TOS 0, total length, id 0, DF, TTL 64, UDP,
 *                checksum, src, dst
 *   34 UDP       src port, dst port, length, checksum
 *   42 SoupBin   length 48, type 'U'
 *   45 OUCH      Enter Order, 47 bytes
 *
 * Checksums: everything constant per session is summed once in
 * hgw_udp_tx_init (RFC 1071 one's-complement sums are order independent
 * and can be split at any 16-bit boundary), so a frame adds only the
 * length words and the payload sum. The payload is summed in host byte
 * order with 32-bit loads into a 64-bit accumulator and byte-swapped once
 * at the end (RFC 1071 section 2(B): the sum is byte-order independent up
 * to a final swap).
 */
#include <stdbool.h>
#include <string.h>

#include "hgw_cksum.h"
#include "hgw_itch.h"
#include "hgw_order.h"
#include "hgw_order_internal.h"

#define ETH_TYPE_IPV4   0x0800
#define IP_VER_IHL      0x45
#define IP_FLAG_DF      0x4000
#define IP_TTL          64
#define IP_PROTO_UDP    17

/* Offsets inside the 42-byte transport header. */
#define OFF_ETH_TYPE    12
#define OFF_IP          14
#define OFF_IP_TOTLEN   (OFF_IP + 2)
#define OFF_IP_FRAG     (OFF_IP + 6)
#define OFF_IP_TTL      (OFF_IP + 8)
#define OFF_IP_PROTO    (OFF_IP + 9)
#define OFF_IP_CSUM     (OFF_IP + 10)
#define OFF_IP_SRC      (OFF_IP + 12)
#define OFF_IP_DST      (OFF_IP + 16)
#define OFF_UDP         34
#define OFF_UDP_LEN     (OFF_UDP + 4)
#define OFF_UDP_CSUM    (OFF_UDP + 6)
#define IP_HDR_LEN      20
#define UDP_HDR_LEN     8

/* Offsets inside the 47-byte Enter Order (OUCH 5.0). */
#define OUCH_TYPE       0
#define OUCH_USER_REF   1
#define OUCH_SIDE       5
#define OUCH_QUANTITY   6
#define OUCH_SYMBOL     10
#define OUCH_PRICE      18
#define OUCH_TIF        26
#define OUCH_DISPLAY    27
#define OUCH_CAPACITY   28
#define OUCH_ISO        29
#define OUCH_CROSS      30
#define OUCH_CLORDID    31
#define OUCH_APPENDAGE  45

_Static_assert(OUCH_APPENDAGE + 2 == HGW_OUCH_ENTER_ORDER_LEN,
	       "Enter Order layout");
_Static_assert(OFF_UDP + UDP_HDR_LEN == HGW_UDP_TX_HDR_LEN,
	       "transport header layout");

/* The folded sum of len bytes as big-endian words, in host order, ready
 * to add to other sums (lib/cksum). */
static inline uint16_t
csum_bytes(const uint8_t *p, size_t len)
{
	return hgw_cksum_fold(hgw_cksum_add(0, p, (uint32_t)len));
}

void
hgw_udp_tx_init(struct hgw_udp_tx *t)
{
	uint8_t *h = t->hdr;

	memset(h, 0, sizeof(t->hdr));
	memcpy(h, t->dst_mac, 6);
	memcpy(h + 6, t->src_mac, 6);
	hgw_put_be16(h + OFF_ETH_TYPE, ETH_TYPE_IPV4);
	h[OFF_IP] = IP_VER_IHL;
	/* TOS 0, total length later, id 0 */
	hgw_put_be16(h + OFF_IP_FRAG, IP_FLAG_DF);
	h[OFF_IP_TTL] = IP_TTL;
	h[OFF_IP_PROTO] = IP_PROTO_UDP;
	/* checksum later */
	hgw_put_be32(h + OFF_IP_SRC, t->src_ip);
	hgw_put_be32(h + OFF_IP_DST, t->dst_ip);
	hgw_put_be16(h + OFF_UDP, t->src_port);
	hgw_put_be16(h + OFF_UDP + 2, t->dst_port);
	/* UDP length and checksum later */

	/* IPv4 header words with total length and checksum still zero. */
	t->ip_csum_base = csum_bytes(h + OFF_IP, IP_HDR_LEN);
	/* Pseudo-header (src, dst, zero + protocol; the UDP length is added
	 * per frame, twice with the header's copy) plus the UDP ports. */
	t->udp_csum_base = (uint32_t)csum_bytes(h + OFF_IP_SRC, 8) +
		IP_PROTO_UDP + t->src_port + t->dst_port;
}

/* Fill in the headers for a UDP payload of len bytes whose RFC 1071 sum
 * (folded, host order of the big-endian value) is psum. */
static inline size_t
udp_tx_finish(const struct hgw_udp_tx *t, uint8_t *frame, size_t len,
	      uint16_t psum)
{
	uint32_t ip_len = (uint32_t)(IP_HDR_LEN + UDP_HDR_LEN + len);
	uint32_t udp_len = (uint32_t)(UDP_HDR_LEN + len);
	uint16_t ip_csum, udp_csum;

	udp_csum = (uint16_t)~hgw_cksum_fold((uint64_t)t->udp_csum_base +
					2 * udp_len + psum);
	if (udp_csum == 0)
		udp_csum = 0xffff;  /* 0 means "no checksum" (RFC 768) */
	ip_csum = (uint16_t)~hgw_cksum_fold((uint64_t)t->ip_csum_base + ip_len);

	memcpy(frame, t->hdr, HGW_UDP_TX_HDR_LEN);
	hgw_put_be16(frame + OFF_IP_TOTLEN, (uint16_t)ip_len);
	hgw_put_be16(frame + OFF_IP_CSUM, ip_csum);
	hgw_put_be16(frame + OFF_UDP_LEN, (uint16_t)udp_len);
	hgw_put_be16(frame + OFF_UDP_CSUM, udp_csum);
	return HGW_UDP_TX_HDR_LEN + len;
}

/* len must be at most 65535 - 28 (not checked: the caller's payloads are
 * fixed-size). */
size_t
hgw_udp_tx_frame(const struct hgw_udp_tx *t, uint8_t *frame, size_t len)
{
	return udp_tx_finish(t, frame, len,
			     csum_bytes(frame + HGW_UDP_TX_HDR_LEN, len));
}

static inline size_t
ouch_enter_order(uint8_t *b, const struct hgw_ouch_order *o)
{
	b[OUCH_TYPE] = 'O';
	hgw_put_be32(b + OUCH_USER_REF, o->user_ref_num);
	b[OUCH_SIDE] = o->side;
	hgw_put_be32(b + OUCH_QUANTITY, o->quantity);
	memcpy(b + OUCH_SYMBOL, o->symbol, 8);
	hgw_put_be64(b + OUCH_PRICE, o->price);
	b[OUCH_TIF] = o->tif;
	b[OUCH_DISPLAY] = o->display;
	b[OUCH_CAPACITY] = o->capacity;
	b[OUCH_ISO] = o->intermarket_sweep;
	b[OUCH_CROSS] = o->cross_type;
	memcpy(b + OUCH_CLORDID, o->clordid, HGW_CLORDID_LEN);
	hgw_put_be16(b + OUCH_APPENDAGE, 0);
	return HGW_OUCH_ENTER_ORDER_LEN;
}

size_t
hgw_ouch_enter_order(uint8_t *buf, const struct hgw_ouch_order *o)
{
	return ouch_enter_order(buf, o);
}

static inline size_t
soupbin_unsequenced(uint8_t *buf, size_t len)
{
	hgw_put_be16(buf, (uint16_t)(len + 1));
	buf[2] = 'U';
	return HGW_SOUPBIN_HDR_LEN;
}

size_t
hgw_soupbin_unsequenced(uint8_t *buf, size_t len)
{
	return soupbin_unsequenced(buf, len);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 50-byte UDP payload (SoupBinTCP header + Enter Order) assembled as
 * six 64-bit words in registers, stored, and summed from the registers.
 * Summing by reloading the freshly written bytes instead costs ~30 cycles
 * more (the 4-byte loads straddle the byte/2/4/8-byte field stores, so
 * store-to-load forwarding fails on nearly every one): 19.6 -> 10.2 ns per
 * order (best of 301 runs of 10^5) on a 2-vCPU EPYC VM. Each word is the value memcpy would load from
 * the wire bytes on a little-endian host: byte k of the wire is bits
 * 8k..8k+7. */
static inline uint16_t
order_payload(uint8_t *p, const struct hgw_ouch_order *o)
{
	uint64_t ur = __builtin_bswap32(o->user_ref_num);
	uint64_t qty = __builtin_bswap32(o->quantity);
	uint64_t px = __builtin_bswap64(o->price);
	uint64_t sym, cl0, w0, w1, w2, w3, w4, w5;
	uint32_t cl8;
	uint16_t cl12;

	/* ClOrdID read as 8 + 4 + 2 bytes, as hgw_order_clordid writes it */
	memcpy(&sym, o->symbol, 8);
	memcpy(&cl0, o->clordid, 8);
	memcpy(&cl8, o->clordid + 8, 4);
	memcpy(&cl12, o->clordid + 12, 2);
	/* 0: SoupBin length 48, 2: 'U', 3: 'O' (OUCH 0), 4: UserRefNum (1) */
	w0 = 0x00 | 0x30u << 8 | (uint64_t)'U' << 16 | (uint64_t)'O' << 24 |
		ur << 32;
	/* 8: side (OUCH 5), 9: quantity (6), 13: symbol[0..2] (10) */
	w1 = (uint64_t)o->side | qty << 8 | sym << 40;
	/* 16: symbol[3..7] (13), 21: price bytes 0..2 (18) */
	w2 = sym >> 24 | px << 40;
	/* 24: price bytes 3..7 (21), 29: TIF (26), display (27), capacity (28) */
	w3 = px >> 24 | (uint64_t)o->tif << 40 |
		(uint64_t)o->display << 48 | (uint64_t)o->capacity << 56;
	/* 32: intermarket sweep (29), 33: cross type (30),
	 * 34: ClOrdID[0..5] (31) */
	w4 = (uint64_t)o->intermarket_sweep |
		(uint64_t)o->cross_type << 8 | cl0 << 16;
	/* 40: ClOrdID[6..13] (37) */
	w5 = cl0 >> 48 | (uint64_t)cl8 << 16 | (uint64_t)cl12 << 48;
	/* Scalar on purpose: as an array, GCC vectorises the sum through a
	 * stack copy and reintroduces the forwarding stall. */
	memcpy(p, &w0, 8);
	memcpy(p + 8, &w1, 8);
	memcpy(p + 16, &w2, 8);
	memcpy(p + 24, &w3, 8);
	memcpy(p + 32, &w4, 8);
	memcpy(p + 40, &w5, 8);
	/* twelve 32-bit halves: < 2^36, no overflow */
	uint64_t s = (w0 & 0xffffffffu) + (w0 >> 32) +
		(w1 & 0xffffffffu) + (w1 >> 32) +
		(w2 & 0xffffffffu) + (w2 >> 32) +
		(w3 & 0xffffffffu) + (w3 >> 32) +
		(w4 & 0xffffffffu) + (w4 >> 32) +
		(w5 & 0xffffffffu) + (w5 >> 32);
	/* 48: appendage length 0 (45; adds nothing to the sum) */
	p[48] = 0;
	p[49] = 0;
	uint16_t h = hgw_cksum_fold(s);

	return hgw_be16(&h);
}
#else
static inline uint16_t
order_payload(uint8_t *p, const struct hgw_ouch_order *o)
{
	soupbin_unsequenced(p, HGW_OUCH_ENTER_ORDER_LEN);
	ouch_enter_order(p + HGW_SOUPBIN_HDR_LEN, o);
	return csum_bytes(p, HGW_SOUPBIN_HDR_LEN + HGW_OUCH_ENTER_ORDER_LEN);
}
#endif

size_t
hgw_order_frame(const struct hgw_udp_tx *t, const struct hgw_ouch_order *o,
		uint8_t *frame)
{
	uint16_t psum = order_payload(frame + HGW_UDP_TX_HDR_LEN, o);

	return udp_tx_finish(t, frame, HGW_SOUPBIN_HDR_LEN +
			     HGW_OUCH_ENTER_ORDER_LEN, psum);
}

uint32_t
hgw_order_user_ref(uint64_t seq)
{
	return (uint32_t)seq;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight decimal digits of v < 10^8 as ASCII, most significant first in
 * memory (little-endian word), without a division chain: split into 4+4
 * digits, then 2+2 per lane, then 1+1, all lanes at once (SWAR; every lane
 * product stays inside its lane: 9999 * 10486 < 2^32, 99 * 103 < 2^16).
 * x * 10486 >> 20 == x / 100 for x < 10^4; x * 103 >> 10 == x / 10 for
 * x < 100; verified for all 10^8 inputs offline, test_clordid checks
 * every 5-digit group against snprintf). */
static inline uint64_t
ascii8(uint32_t v)
{
	uint64_t m = v / 10000 | (uint64_t)(v % 10000) << 32;
	uint64_t hi = (m * 10486 >> 20) & 0x0000007f0000007fu;

	m = hi | (m - 100 * hi) << 16;
	hi = (m * 103 >> 10) & 0x000f000f000f000fu;
	m = hi | (m - 10 * hi) << 8;
	return m + 0x3030303030303030u;
}

/* Built in registers and written as 8 + 4 + 2-byte stores at 0, 8, 12:
 * hgw_order_frame loads the ClOrdID with loads of exactly those sizes and
 * offsets, so store-to-load forwarding works when the caller builds the
 * ClOrdID and the frame back to back (byte-pair stores and a five-deep
 * division chain here cost ~15 ns per order more). */
void
hgw_order_clordid(const char session[10], uint64_t seq,
		  char out[HGW_CLORDID_LEN])
{
	uint64_t v = seq % 10000000000u;
	uint32_t hi = (uint32_t)(v / 100000000);        /* 0..99 */
	uint64_t lo = ascii8((uint32_t)(v % 100000000));
	uint32_t sess, w8;
	uint16_t w12;
	uint64_t w0;

	memcpy(&sess, session + 6, 4);
	w0 = sess | (uint64_t)('0' + hi / 10) << 32 |
		(uint64_t)('0' + hi % 10) << 40 | lo << 48;
	memcpy(out, &w0, 8);
	w8 = (uint32_t)(lo >> 16);
	w12 = (uint16_t)(lo >> 48);
	memcpy(out + 8, &w8, 4);
	memcpy(out + 12, &w12, 2);
}
#else
void
hgw_order_clordid(const char session[10], uint64_t seq,
		  char out[HGW_CLORDID_LEN])
{
	uint64_t v = seq % 10000000000u;

	memcpy(out, session + 6, 4);
	for (int i = HGW_CLORDID_LEN - 1; i >= 4; i--) {
		out[i] = (char)('0' + v % 10);
		v /= 10;
	}
}
#endif

int
hgw_order_decode(const uint8_t *frame, size_t len, struct hgw_ouch_order *o,
		 const char **why)
{
	const char *err = NULL;
	const uint8_t *ip = frame + OFF_IP, *udp = frame + OFF_UDP;
	const uint8_t *soup, *b;
	size_t ip_len, udp_len, soup_len;

	if (len < HGW_UDP_TX_HDR_LEN) {
		err = "frame too short";
		goto out;
	}
	if (hgw_be16(frame + OFF_ETH_TYPE) != ETH_TYPE_IPV4) {
		err = "ethertype";
		goto out;
	}
	if (ip[0] != IP_VER_IHL) {
		err = "ipv4 version/ihl";
		goto out;
	}
	ip_len = hgw_be16(ip + 2);
	if (ip_len != len - OFF_IP) {
		err = "ipv4 total length";
		goto out;
	}
	if ((hgw_be16(ip + 6) & 0x3fff) != 0) {   /* MF or an offset */
		err = "ipv4 fragment";
		goto out;
	}
	if (ip[9] != IP_PROTO_UDP) {
		err = "ipv4 protocol";
		goto out;
	}
	if (csum_bytes(ip, IP_HDR_LEN) != 0xffff) {
		err = "ipv4 checksum";
		goto out;
	}
	udp_len = hgw_be16(udp + 4);
	if (udp_len != ip_len - IP_HDR_LEN) {
		err = "udp length";
		goto out;
	}
	if (hgw_be16(udp + 6) != 0) {
		uint64_t s = (uint64_t)csum_bytes(ip + 12, 8) + IP_PROTO_UDP +
			udp_len + csum_bytes(udp, udp_len);

		if (hgw_cksum_fold(s) != 0xffff) {
			err = "udp checksum";
			goto out;
		}
	}
	soup = udp + UDP_HDR_LEN;
	soup_len = udp_len - UDP_HDR_LEN;
	if (soup_len < HGW_SOUPBIN_HDR_LEN ||
	    hgw_be16(soup) != soup_len - 2) {
		err = "soupbin length";
		goto out;
	}
	if (soup[2] != 'U') {
		err = "soupbin type";
		goto out;
	}
	b = soup + HGW_SOUPBIN_HDR_LEN;
	if (soup_len == HGW_SOUPBIN_HDR_LEN || b[OUCH_TYPE] != 'O') {
		err = "ouch type";
		goto out;
	}
	if (soup_len - HGW_SOUPBIN_HDR_LEN != HGW_OUCH_ENTER_ORDER_LEN) {
		err = "ouch length";
		goto out;
	}
	if (hgw_be16(b + OUCH_APPENDAGE) != 0) {
		err = "ouch appendage";
		goto out;
	}
	if (o) {
		memset(o, 0, sizeof(*o));
		o->user_ref_num = hgw_be32(b + OUCH_USER_REF);
		o->side = b[OUCH_SIDE];
		o->quantity = hgw_be32(b + OUCH_QUANTITY);
		memcpy(o->symbol, b + OUCH_SYMBOL, 8);
		o->price = hgw_be64(b + OUCH_PRICE);
		o->tif = b[OUCH_TIF];
		o->display = b[OUCH_DISPLAY];
		o->capacity = b[OUCH_CAPACITY];
		o->intermarket_sweep = b[OUCH_ISO];
		o->cross_type = b[OUCH_CROSS];
		memcpy(o->clordid, b + OUCH_CLORDID, HGW_CLORDID_LEN);
	}
out:
	if (why)
		*why = err;
	return err ? -1 : 0;
}

static inline int
hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
hgw_parse_mac(const char *s, uint8_t mac[6])
{
	uint8_t m[6];

	if (s == NULL)
		return -1;
	for (int i = 0; i < 6; i++) {
		const char *p = s + 3 * i;
		int hi = hex_nibble(p[0]), lo;

		if (hi < 0)
			return -1;
		lo = hex_nibble(p[1]);
		if (lo < 0)
			return -1;
		if (p[2] != (i == 5 ? '\0' : ':'))
			return -1;
		m[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, m, 6);
	return 0;
}

int
hgw_order_clordid_seq(const char clordid[HGW_CLORDID_LEN], uint64_t *seq)
{
	uint64_t v = 0;

	for (uint32_t i = 4; i < HGW_CLORDID_LEN; i++) {
		if (clordid[i] < '0' || clordid[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(clordid[i] - '0');
	}
	*seq = v;
	return 0;
}

/* ---- venue answers (OUCH 5.0 server messages) ------------------------- */

/* Offsets inside the answers, from the type byte; every answer has its
 * timestamp (8) at 1. */
#define ANS_USER_REF    9

size_t
hgw_ouch_cancel_order(uint8_t *buf, uint32_t user_ref, uint32_t quantity)
{
	buf[0] = 'X';
	hgw_put_be32(buf + 1, user_ref);
	hgw_put_be32(buf + 5, quantity);
	return HGW_OUCH_CANCEL_ORDER_LEN;
}

/* The fixed length of type t, and whether it ends with an appendage
 * length (at fixed - 2). 0: not an OUCH 5.0 server message we know. */
static size_t
answer_len(uint8_t t, int *appendage)
{
	*appendage = 0;
	switch (t) {
	case HGW_OUCH_SYSTEM_EVENT: return HGW_OUCH_SYSTEM_EVENT_LEN;
	case HGW_OUCH_ACCEPTED: *appendage = 1; return HGW_OUCH_ACCEPTED_LEN;
	case HGW_OUCH_REPLACED: *appendage = 1; return HGW_OUCH_REPLACED_LEN;
	case HGW_OUCH_CANCELED: return HGW_OUCH_CANCELED_LEN;
	case HGW_OUCH_AIQ_CANCELED: return HGW_OUCH_AIQ_CANCELED_LEN;
	case HGW_OUCH_EXECUTED: *appendage = 1; return HGW_OUCH_EXECUTED_LEN;
	case HGW_OUCH_BROKEN: return HGW_OUCH_BROKEN_LEN;
	case HGW_OUCH_REJECTED: return HGW_OUCH_REJECTED_LEN;
	case HGW_OUCH_CANCEL_PENDING: return HGW_OUCH_CANCEL_PENDING_LEN;
	case HGW_OUCH_CANCEL_REJECT: return HGW_OUCH_CANCEL_REJECT_LEN;
	case HGW_OUCH_MODIFIED: return HGW_OUCH_MODIFIED_LEN;
	case HGW_OUCH_RESTATED: *appendage = 1; return HGW_OUCH_RESTATED_LEN;
	default: return 0;
	}
}

const char *
hgw_ouch_answer_name(uint8_t type)
{
	switch (type) {
	case HGW_OUCH_SYSTEM_EVENT: return "System Event";
	case HGW_OUCH_ACCEPTED: return "Accepted";
	case HGW_OUCH_REPLACED: return "Replaced";
	case HGW_OUCH_CANCELED: return "Canceled";
	case HGW_OUCH_AIQ_CANCELED: return "AIQ Canceled";
	case HGW_OUCH_EXECUTED: return "Executed";
	case HGW_OUCH_BROKEN: return "Broken Trade";
	case HGW_OUCH_REJECTED: return "Rejected";
	case HGW_OUCH_CANCEL_PENDING: return "Cancel Pending";
	case HGW_OUCH_CANCEL_REJECT: return "Cancel Reject";
	case HGW_OUCH_MODIFIED: return "Order Modified";
	case HGW_OUCH_RESTATED: return "Order Restated";
	default: return "unknown";
	}
}

int
hgw_ouch_answer_decode(const uint8_t *msg, size_t len, uint64_t seq,
		       struct hgw_ouch_answer *a, const char **why)
{
	const uint8_t *b = msg;
	size_t fixed;
	int app;

	memset(a, 0, sizeof(*a));
	if (len == 0) {
		*why = "empty";
		return -1;
	}
	a->type = b[0];
	fixed = answer_len(b[0], &app);
	if (fixed == 0) {
		*why = "unknown type";
		return -1;
	}
	if (len < fixed ||
	    len != fixed + (app ? hgw_be16(b + fixed - 2) : 0)) {
		*why = "bad length";
		memset(a, 0, sizeof(*a));
		a->type = b[0];
		return -1;
	}
	a->seq = seq;
	if (b[0] != HGW_OUCH_SYSTEM_EVENT)
		a->user_ref = hgw_be32(b + ANS_USER_REF);
	switch (b[0]) {
	case HGW_OUCH_SYSTEM_EVENT:
		a->event_code = b[9];
		break;
	case HGW_OUCH_REPLACED:
		/* orig UserRefNum @9, UserRefNum @13, then as Accepted from
		 * the side on, 4 bytes later */
		a->orig_user_ref = hgw_be32(b + 9);
		a->user_ref = hgw_be32(b + 13);
		b += 4;
		/* fall through */
	case HGW_OUCH_ACCEPTED:
		a->side = b[13];
		a->qty = hgw_be32(b + 14);
		a->price = hgw_be64(b + 26);
		a->match = hgw_be64(b + 36);   /* order reference number */
		a->reason = b[47];             /* order state: 'L' live, 'D' dead */
		break;
	case HGW_OUCH_CANCELED:
		a->qty = hgw_be32(b + 13);
		a->reason = b[17];
		break;
	case HGW_OUCH_AIQ_CANCELED:
		a->qty = hgw_be32(b + 13);
		a->reason = b[17];
		a->price = hgw_be64(b + 22);
		break;
	case HGW_OUCH_EXECUTED:
		a->qty = hgw_be32(b + 13);
		a->price = hgw_be64(b + 17);
		a->match = hgw_be64(b + 26);
		break;
	case HGW_OUCH_BROKEN:
		a->match = hgw_be64(b + 13);
		a->reason = b[21];
		break;
	case HGW_OUCH_REJECTED:
		a->reason = hgw_be16(b + 13);
		break;
	case HGW_OUCH_MODIFIED:
		a->side = b[13];
		a->qty = hgw_be32(b + 14);
		break;
	case HGW_OUCH_RESTATED:
		a->reason = b[13];
		/* the appendage's options, [length][tag][value] each (length
		 * counts tag and value): a Display Quantity (tag 22, 4
		 * bytes) is the restated shown quantity */
		for (size_t o = HGW_OUCH_RESTATED_LEN; o < len;) {
			size_t l = b[o];

			if (l == 0 || o + 1 + l > len) {
				*why = "bad appendage";
				memset(a, 0, sizeof(*a));
				a->type = b[0];
				return -1;
			}
			if (b[o + 1] == 22 && l == 5) {
				a->qty = hgw_be32(b + o + 2);
				a->has_qty = 1;
			}
			o += 1 + l;
		}
		break;
	default:        /* P, I: the UserRefNum only */
		break;
	}
	return 0;
}
