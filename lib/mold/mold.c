/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: MoldUDP64 re-request and retransmission frames.
 */
#include <string.h>

#include "hgw_cksum.h"
#include "hgw_itch.h"
#include "hgw_mold.h"

#define ETH_HDR 14u
#define VLAN_HDR 4u
#define IP_HDR 20u
#define UDP_HDR 8u
#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_VLAN 0x8100
#define ETH_TYPE_QINQ 0x88A8
#define PROTO_UDP 17
/* one IPv4 datagram: total length is 16 bits */
#define IP_MAX 65535u

/* An IPv4/UDP datagram within a frame. */
struct udp_view {
	const uint8_t *ip, *udp;
	uint32_t ihl, ulen;
};

/* 1 when frame is an unfragmented IPv4/UDP datagram whose lengths hold
 * together (the same rules as lib/feed), its headers in v. */
static int
udp_parse(const uint8_t *frame, uint32_t len, struct udp_view *v)
{
	uint32_t off = ETH_HDR, room, tot;
	uint16_t etype;

	if (frame == NULL || len < ETH_HDR)
		return 0;
	etype = hgw_be16(frame + 12);
	if (etype == ETH_TYPE_VLAN || etype == ETH_TYPE_QINQ) {
		if (len < ETH_HDR + VLAN_HDR)
			return 0;
		etype = hgw_be16(frame + 16);
		off += VLAN_HDR;
	}
	if (etype != ETH_TYPE_IPV4 || len - off < IP_HDR)
		return 0;
	v->ip = frame + off;
	room = len - off;
	v->ihl = (uint32_t)(v->ip[0] & 0x0F) * 4;
	tot = hgw_be16(v->ip + 2);
	if ((v->ip[0] >> 4) != 4 || v->ihl < IP_HDR || tot < v->ihl ||
	    tot > room)
		return 0;
	if ((hgw_be16(v->ip + 6) & 0x3FFF) != 0 || v->ip[9] != PROTO_UDP)
		return 0;
	if (tot - v->ihl < UDP_HDR)
		return 0;
	v->udp = v->ip + v->ihl;
	v->ulen = hgw_be16(v->udp + 4);
	if (v->ulen < UDP_HDR || v->ulen > tot - v->ihl)
		return 0;
	return 1;
}

int
hgw_mold_udp_to(const uint8_t *frame, uint32_t len, uint32_t dst_ip,
		uint16_t dst_port)
{
	struct udp_view v;

	return udp_parse(frame, len, &v) && hgw_be32(v.ip + 16) == dst_ip &&
	       hgw_be16(v.udp + 2) == dst_port;
}

int
hgw_mold_request_match(const uint8_t *frame, uint32_t len, uint32_t dst_ip,
		       uint16_t dst_port, struct hgw_mold_addr *from,
		       char session[10], uint64_t *seq, uint16_t *count)
{
	struct udp_view v;
	const uint8_t *req;
	uint64_t s;
	uint16_t c;

	if (!udp_parse(frame, len, &v) || hgw_be32(v.ip + 16) != dst_ip ||
	    hgw_be16(v.udp + 2) != dst_port ||
	    v.ulen != UDP_HDR + HGW_MOLD_REQUEST_LEN)
		return 0;
	if (hgw_cksum_fold(hgw_cksum_add(0, v.ip, v.ihl)) != 0xFFFF)
		return 0;
	if (hgw_be16(v.udp + 6) != 0 &&
	    hgw_cksum_l4(v.ip, v.udp, v.ulen, 17) != 0xFFFF)
		return 0;
	req = v.udp + UDP_HDR;
	s = hgw_be64(req + 10);
	c = hgw_be16(req + 18);
	/* MoldUDP64 numbers messages from 1; a request for none is none */
	if (s == 0 || c == 0)
		return 0;
	if (from != NULL) {
		memcpy(from->src_mac, frame + 6, 6);
		memcpy(from->dst_mac, frame, 6);
		from->src_ip = hgw_be32(v.ip + 12);
		from->dst_ip = dst_ip;
		from->src_port = hgw_be16(v.udp);
		from->dst_port = dst_port;
	}
	if (session != NULL)
		memcpy(session, req, HGW_MOLD_SESSION_LEN);
	if (seq != NULL)
		*seq = s;
	if (count != NULL)
		*count = c;
	return 1;
}

/* Ethernet, IPv4 and UDP headers for plen bytes of UDP payload, which
 * the caller has written at buf + HGW_MOLD_FRAME_HDR_LEN; then both
 * checksums. Returns the frame length. */
static uint32_t
frame_close(uint8_t *buf, const struct hgw_mold_addr *a, uint32_t plen)
{
	uint8_t *ip = buf + ETH_HDR, *udp = ip + IP_HDR;
	uint32_t ulen = UDP_HDR + plen;

	memcpy(buf, a->dst_mac, 6);
	memcpy(buf + 6, a->src_mac, 6);
	hgw_put_be16(buf + 12, ETH_TYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = 0;
	hgw_put_be16(ip + 2, (uint16_t)(IP_HDR + ulen));
	hgw_put_be16(ip + 4, 0);        /* never fragmented: no id needed */
	hgw_put_be16(ip + 6, 0);
	ip[8] = 64;
	ip[9] = PROTO_UDP;
	hgw_put_be32(ip + 12, a->src_ip);
	hgw_put_be32(ip + 16, a->dst_ip);
	hgw_put_be16(udp, a->src_port);
	hgw_put_be16(udp + 2, a->dst_port);
	hgw_put_be16(udp + 4, (uint16_t)ulen);
	hgw_cksum_fill_ipv4_udp(ip, IP_HDR);
	return HGW_MOLD_FRAME_HDR_LEN + plen;
}

/* The 20-byte MoldUDP64 header. */
static void
mold_header(uint8_t *p, const char session[10], uint64_t seq, uint16_t count)
{
	memcpy(p, session, HGW_MOLD_SESSION_LEN);
	hgw_put_be64(p + 10, seq);
	hgw_put_be16(p + 18, count);
}

uint32_t
hgw_mold_request_frame(uint8_t *buf, uint32_t room,
		       const struct hgw_mold_addr *a, const char session[10],
		       uint64_t seq, uint16_t count)
{
	if (buf == NULL || a == NULL || session == NULL ||
	    room < HGW_MOLD_FRAME_HDR_LEN + HGW_MOLD_REQUEST_LEN)
		return 0;
	mold_header(buf + HGW_MOLD_FRAME_HDR_LEN, session, seq, count);
	return frame_close(buf, a, HGW_MOLD_REQUEST_LEN);
}

uint32_t
hgw_mold_packet_frame(uint8_t *buf, uint32_t room,
		      const struct hgw_mold_addr *a, const char session[10],
		      uint64_t seq, const uint8_t *const *msgs,
		      const uint16_t *lens, uint16_t n)
{
	uint64_t plen = HGW_MOLD_HDR_LEN;   /* 65,535 x (2 + 65,535) + 20
					     * passes 2^32 */
	uint8_t *p;

	if (buf == NULL || a == NULL || session == NULL ||
	    (n != 0 && (msgs == NULL || lens == NULL)))
		return 0;
	/* sizes first, in 64 bits: nothing is written unless it all fits
	 * (0xFFFF blocks, which would read as end of session, never do) */
	for (uint32_t i = 0; i < n; i++)
		plen += 2u + lens[i];
	if (plen > IP_MAX - IP_HDR - UDP_HDR ||
	    HGW_MOLD_FRAME_HDR_LEN + plen > room)
		return 0;
	p = buf + HGW_MOLD_FRAME_HDR_LEN;
	mold_header(p, session, seq, n);
	p += HGW_MOLD_HDR_LEN;
	for (uint32_t i = 0; i < n; i++) {
		hgw_put_be16(p, lens[i]);
		if (lens[i] != 0)
			memcpy(p + 2, msgs[i], lens[i]);
		p += 2u + lens[i];
	}
	return frame_close(buf, a, (uint32_t)plen);
}
