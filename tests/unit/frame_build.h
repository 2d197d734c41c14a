/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: build Ethernet/[VLAN]/IPv4/UDP/MoldUDP64 frames by hand.
 */
#ifndef HGW_FRAME_BUILD_H
#define HGW_FRAME_BUILD_H

#include <stdint.h>
#include <string.h>

#include "hgw_cksum.h"
#include "hgw_feed.h"
#include "hgw_itch.h"

#define FB_GROUP 0xE9360C6Fu  /* 233.54.12.111 */
#define FB_PORT  26477

struct fb {
	uint8_t buf[2048];
	uint32_t len;     /* bytes written so far */
	uint32_t ip;      /* offset of the IPv4 header */
	uint32_t mold;    /* offset of the MoldUDP64 header */
	uint16_t count;   /* message blocks added */
};

/* Start a frame: Ethernet (+ 802.1Q tag when vlan != 0), IPv4, UDP to
 * FB_GROUP:FB_PORT, MoldUDP64 header for session/seq (count filled later). */
static inline void
fb_start(struct fb *f, uint16_t vlan, const char *session, uint64_t seq)
{
	static const uint8_t dst[6] = { 0x01, 0x00, 0x5e, 0x36, 0x0c, 0x6f };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 1 };
	uint8_t *b = f->buf;
	uint32_t o = 12;

	memset(f, 0, sizeof(*f));
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	if (vlan != 0) {
		hgw_put_be16(b + o, 0x8100);
		hgw_put_be16(b + o + 2, vlan);
		o += 4;
	}
	hgw_put_be16(b + o, 0x0800);
	o += 2;
	f->ip = o;
	b[o] = 0x45;                       /* IPv4, 20-byte header */
	b[o + 8] = 64;                     /* TTL */
	b[o + 9] = 17;                     /* UDP */
	hgw_put_be32(b + o + 12, 0x0A010101);
	hgw_put_be32(b + o + 16, FB_GROUP);
	o += 20;
	hgw_put_be16(b + o, 26400);
	hgw_put_be16(b + o + 2, FB_PORT);
	o += 8;
	f->mold = o;
	memset(b + o, ' ', 10);
	memcpy(b + o, session, strnlen(session, 10));
	hgw_put_be64(b + o + 10, seq);
	f->len = o + 20;
}

/* Append one message block. */
static inline void
fb_msg(struct fb *f, const void *msg, uint16_t len)
{
	hgw_put_be16(f->buf + f->len, len);
	memcpy(f->buf + f->len + 2, msg, len);
	f->len += 2u + len;
	f->count++;
}

/* Write the count (or force one, e.g. 0xFFFF) and the IPv4/UDP lengths;
 * returns the frame length. */
/* Correct IPv4 header and UDP checksums for the lengths the headers
 * claim (call again after changing bytes a test did not mean to break). */
static inline void
fb_checksums(uint8_t *ip)
{
	hgw_cksum_fill_ipv4_udp(ip, 20);
}

static inline uint32_t
fb_finish_count(struct fb *f, uint16_t count)
{
	hgw_put_be16(f->buf + f->mold + 18, count);
	hgw_put_be16(f->buf + f->ip + 2, (uint16_t)(f->len - f->ip));
	hgw_put_be16(f->buf + f->ip + 20 + 4, (uint16_t)(f->len - f->ip - 20));
	fb_checksums(f->buf + f->ip);
	return f->len;
}

static inline uint32_t
fb_finish(struct fb *f)
{
	return fb_finish_count(f, f->count);
}

/* A minimal message of a type: header with locate, rest zero. */
static inline uint16_t
fb_itch(uint8_t *m, uint8_t type, uint16_t locate, uint16_t len)
{
	memset(m, 0, len);
	m[0] = type;
	hgw_put_be16(m + 1, locate);
	return len;
}

#endif /* HGW_FRAME_BUILD_H */
