/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tools: one feed frame as the tools write it (hgw-feedgen,
 * hgw-convert): Ethernet to the group's IPv4 multicast MAC from a fixed
 * locally administered source MAC, an optional 802.1Q tag, IPv4 (TTL 64,
 * no options, DF clear) and UDP with both checksums, then the payload.
 */
#ifndef HGW_MCAST_FRAME_H
#define HGW_MCAST_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hgw_cksum.h"
#include "hgw_itch.h"

#define HGW_MF_ETH_HDR 14u
#define HGW_MF_VLAN_HDR 4u
#define HGW_MF_IP_HDR 20u
#define HGW_MF_UDP_HDR 8u

/* The addresses of a feed frame; vlan 0: untagged. */
struct hgw_mcast_addr {
	uint32_t src, group;            /* IPv4, host byte order */
	uint16_t sport, dport;
	uint16_t vlan;
};

/* Builds the frame carrying pay (plen bytes) into f, with IPv4
 * identification id, and returns its length. f holds at least the
 * headers and plen bytes. */
static inline size_t
hgw_mcast_frame(uint8_t *f, const struct hgw_mcast_addr *a, uint16_t id,
		const uint8_t *pay, size_t plen)
{
	uint16_t ulen = (uint16_t)(HGW_MF_UDP_HDR + plen);
	uint8_t *ip, *udp;
	size_t off = 12;

	/* IPv4 multicast MAC: 01:00:5e + low 23 bits of the group. */
	f[0] = 0x01;
	f[1] = 0x00;
	f[2] = 0x5e;
	f[3] = (uint8_t)((a->group >> 16) & 0x7f);
	f[4] = (uint8_t)(a->group >> 8);
	f[5] = (uint8_t)a->group;
	memcpy(f + 6, "\x02\x48\x47\x57\x00\x01", 6);
	if (a->vlan != 0) {
		hgw_put_be16(f + off, 0x8100);
		hgw_put_be16(f + off + 2, a->vlan);
		off += HGW_MF_VLAN_HDR;
	}
	hgw_put_be16(f + off, 0x0800);
	off += 2;

	ip = f + off;
	ip[0] = 0x45;
	ip[1] = 0;
	hgw_put_be16(ip + 2, (uint16_t)(HGW_MF_IP_HDR + ulen));
	hgw_put_be16(ip + 4, id);
	hgw_put_be16(ip + 6, 0);          /* DF clear, no fragments */
	ip[8] = 64;
	ip[9] = 17;
	hgw_put_be16(ip + 10, 0);
	hgw_put_be32(ip + 12, a->src);
	hgw_put_be32(ip + 16, a->group);

	udp = ip + HGW_MF_IP_HDR;
	hgw_put_be16(udp, a->sport);
	hgw_put_be16(udp + 2, a->dport);
	hgw_put_be16(udp + 4, ulen);
	hgw_put_be16(udp + 6, 0);
	memcpy(udp + HGW_MF_UDP_HDR, pay, plen);

	hgw_cksum_fill_ipv4_udp(ip, HGW_MF_IP_HDR);
	return (size_t)(udp - f) + ulen;
}

#endif /* HGW_MCAST_FRAME_H */
