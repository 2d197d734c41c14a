/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the Internet checksum (RFC 1071), written once.
 *
 * Every checksum hedgewire and its tools compute or verify: the feed
 * decoder's IPv4 and UDP checks, the order frames, the venue's TCP
 * segments, IGMP, ICMP, and the tools' frame builders. Inline and
 * DPDK-free (the decoder, the fuzzer and the arm64 build have no EAL).
 *
 * Sums are kept in 64 bits over host-order words and folded at the end:
 * a ones' complement sum does not depend on byte order (RFC 1071 2(B)),
 * so the folded sum, byte-swapped on a little-endian host
 * (hgw_cksum_host_to_be), is the sum of big-endian words.
 * tests/bench/cksum_bench compares these with DPDK's rte_raw_cksum and
 * rte_ipv4_udptcp_cksum (docs/performance.md).
 */
#ifndef HGW_CKSUM_H
#define HGW_CKSUM_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Fold a 64-bit sum of 16- or 32-bit words to 16 bits (four steps cover
 * any carry). */
static inline uint16_t
hgw_cksum_fold(uint64_t sum)
{
	sum = (sum & 0xFFFFFFFFu) + (sum >> 32);
	sum = (sum & 0xFFFFFFFFu) + (sum >> 32);
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

/* 1 when a sum of 16-bit words (or of 32-bit halves: 2^16 is 1 modulo
 * 0xFFFF) over data that includes its checksum folds to 0xFFFF, i.e.
 * the checksum is right: folding keeps the value modulo 0xFFFF and gives
 * 0 only for a zero sum. A multiply by the inverse instead of four
 * folding steps; no byte swap (0xFFFF either way). */
static inline int
hgw_cksum_ok(uint64_t sum)
{
	return sum != 0 && sum % 0xFFFF == 0;
}

/* A 16-bit ones' complement sum of host-order words as the sum of the
 * same bytes as big-endian words. */
static inline uint16_t
hgw_cksum_host_to_be(uint16_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16(v);
#else
	return v;
#endif
}

/* The words of a piece shorter than 16 bytes (an odd last byte padded
 * with 0), added to h. */
static inline uint64_t
hgw__cksum_tail(uint64_t h, const uint8_t *p, uint32_t len)
{
	if (len >= 8) {
		uint64_t a;

		memcpy(&a, p, 8);
		h += (a & 0xFFFFFFFFu) + (a >> 32);
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		uint32_t a;

		memcpy(&a, p, 4);
		h += a;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t a;

		memcpy(&a, p, 2);
		h += a;
		p += 2;
		len -= 2;
	}
	if (len != 0) {
		uint8_t last[2] = { p[0], 0 };
		uint16_t a;

		memcpy(&a, last, 2);
		h += a;
	}
	return h;
}

/* Internet checksum over host-order words: 32-bit halves of 8-byte loads
 * into a 64-bit sum (no carry is lost below 2^31 loads), an odd last byte
 * padded with 0. A ones' complement sum does not depend on byte order
 * (RFC 1071): folded to 16 bits and swapped (hgw_cksum_host_to_be), it is the
 * big-endian sum. 16 bytes an iteration instead of 4 with a bswap each,
 * and inline, so the fixed-size headers need no loop: measured
 * (cachegrind, bench_feed on the 500-instrument capture, decode + book)
 * 588 -> 507 instructions a message. */
static inline uint64_t
hgw_cksum_host(uint64_t h, const uint8_t *p, uint32_t len)
{
	while (len >= 16) {
		uint64_t a, b;

		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		h += (a & 0xFFFFFFFFu) + (a >> 32) + (b & 0xFFFFFFFFu) +
		     (b >> 32);
		p += 16;
		len -= 16;
	}
	return hgw__cksum_tail(h, p, len);
}

#if defined(__SSE2__)
/* The long sum (the UDP datagram) over host-order words into a 64-bit
 * sum: a ones' complement sum does not depend on byte order (RFC 1071),
 * so folded to 16 bits and swapped (hgw_cksum_host_to_be) it is the
 * big-endian sum. 16 bytes take one PMADDWD: each 16-bit word, its top
 * bit flipped (w - 0x8000 as a signed word), times 1, adjacent pairs
 * summed into 32-bit lanes; 0x8000 a word is added back at the end. Four
 * instructions per 16 bytes where the scalar sum of 32-bit halves took
 * about nine; the fixed 20- and 8-byte headers keep the scalar sum (no
 * loop, no vector set-up). Measured (cachegrind, bench_feed decode only
 * on a 1 M message, 500-instrument capture): 606 -> 601 M instructions,
 * about 11 a frame. A lane takes at most 2^16 a step, so a run of at
 * most HGW__CKSUM_RUN steps keeps the four lanes' total inside int32. */

#define HGW__CKSUM_RUN 8192u

/* The last len (< 16) bytes of a run of at least 16, with no branch on
 * len: the 16 bytes that end where the run ends, shifted down so the
 * first of the len bytes is at the bottom (word pairs as from p, an odd
 * last byte padded with 0). hgw__cksum_tail's four tests depend on the
 * datagram's length, which varies frame to frame: cachegrind counted
 * 1.2 mispredicted branches a frame fewer this way (bench_feed, decode
 * only, 1 M message capture), for 6 more instructions. */
static inline uint64_t
hgw__cksum_tail_after(uint64_t h, const uint8_t *p, uint32_t len)
{
	unsigned __int128 v;
	uint64_t lo, hi;

	memcpy(&v, p + len - 16, sizeof(v));
	/* two steps: 16 - len is 16 (all of it) for len 0 */
	v = (v >> (8 * (15 - len))) >> 8;
	lo = (uint64_t)v;
	hi = (uint64_t)(v >> 64);
	return h + (lo & 0xFFFFFFFFu) + (lo >> 32) + (hi & 0xFFFFFFFFu) +
	       (hi >> 32);
}

static inline uint64_t
hgw_cksum_long(uint64_t h, const uint8_t *p, uint32_t len)
{
	const __m128i flip = _mm_set1_epi16((short)0x8000);
	const __m128i one = _mm_set1_epi16(1);

	while (len >= 16) {
		uint32_t n = len < HGW__CKSUM_RUN * 16 ? len / 16 : HGW__CKSUM_RUN;
		const uint8_t *e = p + n * 16;
		__m128i a = _mm_setzero_si128();

		len -= n * 16;
		do {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);

			a = _mm_add_epi32(a, _mm_madd_epi16(_mm_xor_si128(x, flip), one));
			p += 16;
		} while (p != e);
		a = _mm_add_epi32(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(1, 0, 3, 2)));
		a = _mm_add_epi32(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(2, 3, 0, 1)));
		/* the lanes' signed total, plus 0x8000 for each of 8n words */
		h += (uint64_t)(int64_t)_mm_cvtsi128_si32(a) + ((uint64_t)n << 18);
		if (len < 16)
			return hgw__cksum_tail_after(h, p, len);
	}
	return hgw__cksum_tail(h, p, len);
}
#else
#define hgw_cksum_long hgw_cksum_host
#endif


/* Internet checksum API over big-endian words: the sum of len bytes at p
 * (an odd last byte padded with 0) added to sum, as big-endian 16-bit
 * words; fold with hgw_cksum_fold into the 16-bit ones' complement sum
 * (0xFFFF over data that includes a correct checksum). len must be even
 * except for the last piece. */
static inline uint64_t
hgw_cksum_add(uint64_t sum, const uint8_t *p, uint32_t len)
{
	/* a header's few words: the scalar sum, no vector set-up */
	uint64_t h = len < 32 ? hgw_cksum_host(0, p, len) :
				hgw_cksum_long(0, p, len);

	return sum + hgw_cksum_host_to_be(hgw_cksum_fold(h));
}

/* The folded ones' complement sum of one block (big-endian value):
 * 0xFFFF when the block holds its correct checksum; with the checksum
 * field 0, ~ of it is the checksum to write (ICMP, IGMP, a header). */
static inline uint16_t
hgw_cksum_block(const void *p, uint32_t len)
{
	return hgw_cksum_fold(hgw_cksum_add(0, (const uint8_t *)p, len));
}

/* The folded ones' complement sum of an IPv4 datagram's transport part:
 * the pseudo header (addresses from ip, proto, len), then len bytes from
 * l4 with its checksum field as it is: 0xFFFF when the checksum is right;
 * with the field 0, ~ of it is the checksum to write. */
static inline uint16_t
hgw_cksum_l4(const void *ip, const void *l4, uint32_t len, uint8_t proto)
{
	uint64_t h = hgw_cksum_host(0, (const uint8_t *)ip + 12, 8) +
		     hgw_cksum_host_to_be(proto) +
		     hgw_cksum_host_to_be((uint16_t)len);

	return hgw_cksum_host_to_be(hgw_cksum_fold(
		hgw_cksum_long(h, (const uint8_t *)l4, len)));
}

/* The checksum to write in an IPv4 header of ihl bytes whose checksum
 * field is 0 (big-endian value, as hgw_put_be16 takes it). */
static inline uint16_t
hgw_cksum_ipv4(const void *ip, uint32_t ihl)
{
	return (uint16_t)~hgw_cksum_block(ip, ihl);
}

/* Write the IPv4 header checksum (over ihl bytes) and the UDP checksum
 * (over the UDP length the header claims, which the caller made fit) of
 * a datagram whose other header fields are filled in. A UDP checksum
 * that comes out 0 is sent as 0xFFFF (0 means "none" in IPv4). For frame
 * builders: tools, tests, re-request frames. */
static inline void
hgw_cksum_fill_ipv4_udp(uint8_t *ip, uint32_t ihl)
{
	uint8_t *udp = ip + ihl;
	uint32_t ulen = (uint32_t)udp[4] << 8 | udp[5];
	uint16_t c;

	ip[10] = ip[11] = 0;
	c = hgw_cksum_ipv4(ip, ihl);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	udp[6] = udp[7] = 0;
	c = (uint16_t)~hgw_cksum_l4(ip, udp, ulen, 17);
	if (c == 0)
		c = 0xFFFF;
	udp[6] = (uint8_t)(c >> 8);
	udp[7] = (uint8_t)c;
}

/* RFC 1624 eqn. 3: the checksum hc (as written, big-endian value) after
 * the n bytes old[] (16-bit aligned in the checksummed data, n even)
 * became new[], without the rest of the data; a checksum that was wrong
 * stays as wrong. */
static inline uint16_t
hgw_cksum_update(uint16_t hc, const uint8_t *old, const uint8_t *new_,
		 uint32_t n)
{
	uint64_t sum = (uint16_t)~hc;

	for (uint32_t i = 0; i < n; i += 2) {
		sum += (uint16_t)~((uint32_t)old[i] << 8 | old[i + 1]);
		sum += (uint32_t)new_[i] << 8 | new_[i + 1];
	}
	return (uint16_t)~hgw_cksum_fold(sum);
}

#ifdef __cplusplus
}
#endif

#endif /* HGW_CKSUM_H */
