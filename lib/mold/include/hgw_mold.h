/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: MoldUDP64 re-requests and retransmitted packets as frames.
 *
 * A client that sees a gap sends a re-request (session 10, sequence 8,
 * message count 2) by unicast UDP to the re-request server, which answers
 * with ordinary MoldUDP64 downstream packets carrying those messages,
 * unicast back to the requester. These build and recognise the
 * Ethernet/IPv4/UDP frames of both; the downstream packets decode with
 * hgw_feed_packet like any other. Plain C over byte buffers: nothing here
 * allocates, logs or needs DPDK.
 */
#ifndef HGW_MOLD_H
#define HGW_MOLD_H

#include <stdint.h>

#include "hgw_feed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Both ends of a unicast datagram. */
struct hgw_mold_addr {
	uint8_t src_mac[6], dst_mac[6];
	uint32_t src_ip, dst_ip;        /* host order */
	uint16_t src_port, dst_port;
};

/* The UDP payload of a re-request: session, sequence, count. */
#define HGW_MOLD_REQUEST_LEN 20
/* Ethernet (no tag), IPv4 (no options) and UDP headers before a payload. */
#define HGW_MOLD_FRAME_HDR_LEN (14 + 20 + 8)

/* Ethernet/IPv4/UDP frame carrying a MoldUDP64 request for count messages
 * of session from seq; IPv4 and UDP checksums right, TTL 64, no VLAN.
 * Returns the frame length, or 0 when room is too small. */
uint32_t hgw_mold_request_frame(uint8_t *buf, uint32_t room,
				const struct hgw_mold_addr *a,
				const char session[10], uint64_t seq,
				uint16_t count);

/* Is frame an IPv4/UDP datagram (optional 802.1Q tag) to (dst_ip,
 * dst_port) whose payload is exactly a 20-byte MoldUDP64 request with
 * seq >= 1 and count >= 1? 1 and fills from (the sender's MACs, IP, port
 * as src_*; ours as dst_*), session, seq, count; 0 otherwise (not for us,
 * or malformed; bad checksums are 0 too). A UDP checksum of 0 (none sent)
 * is accepted, as IPv4 allows. */
int hgw_mold_request_match(const uint8_t *frame, uint32_t len,
			   uint32_t dst_ip, uint16_t dst_port,
			   struct hgw_mold_addr *from, char session[10],
			   uint64_t *seq, uint16_t *count);

/* Is frame an unfragmented IPv4/UDP datagram (optional 802.1Q tag) to
 * (dst_ip, dst_port), whatever its payload or checksums? A server uses it
 * to tell a bad request (1 here, 0 from hgw_mold_request_match) from
 * traffic that is not its own. */
int hgw_mold_udp_to(const uint8_t *frame, uint32_t len, uint32_t dst_ip,
		    uint16_t dst_port);

/* Ethernet/IPv4/UDP/MoldUDP64 downstream packet with n messages (msgs[i]
 * of lens[i] bytes) numbered from seq; checksums right. Returns the frame
 * length, or 0 if it does not fit in room (or in one IPv4 datagram). */
uint32_t hgw_mold_packet_frame(uint8_t *buf, uint32_t room,
			       const struct hgw_mold_addr *a,
			       const char session[10], uint64_t seq,
			       const uint8_t *const *msgs, const uint16_t *lens,
			       uint16_t n);

#ifdef __cplusplus
}
#endif

#endif /* HGW_MOLD_H */
