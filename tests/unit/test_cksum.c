/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire unit tests: lib/cksum, the Internet checksum, against its
 * definition (RFC 1071: big-endian 16-bit words, carries folded back),
 * RFC 1071's example and RFC 1624's incremental update.
 */
#include <stdint.h>
#include <string.h>

#include "hgw_cksum.h"
#include "hgw_prng.h"
#include "hgw_test.h"

/* hgw_cksum_add against the definition (big-endian 16-bit words one
 * at a time, carries folded back), on RFC 1071's example and on random
 * bytes of every length 0..200 at every alignment, from random starting
 * sums, also split in two pieces as callers do; and hgw_cksum_l4
 * (pseudo header, then datagram) against the same definition. */
static uint64_t
csum_ref(uint64_t sum, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len % 2)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static void
test_csum_reference(void)
{
	static const uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03,
				       0xf4, 0xf5, 0xf6, 0xf7 };
	uint8_t buf[224];	/* 8 offsets + 200, or 20 + 200 */
	uint64_t x = 0x9e3779b97f4a7c15ull;
	uint32_t len, off, bad = 0;

	HGW_CHECK_EQ(hgw_cksum_fold(hgw_cksum_add(0, rfc, 8)), 0xddf2);
	for (len = 0; len <= 200; len++)
		for (off = 0; off < 8; off++) {
			uint64_t start;
			uint32_t i, cut;

			for (i = 0; i < sizeof(buf); i++) {
				buf[i] = (uint8_t)(hgw_xorshift64s(&x) >> 56);
			}
			/* mostly 0xFF bytes in some rounds: many carries */
			if (off % 2)
				memset(buf + off, 0xFF, len / 2);
			start = x % 3 == 0 ? 0 : x >> (x % 40);
			cut = len / 2 & ~1u;
			bad += hgw_cksum_fold(hgw_cksum_add(start,
						buf + off, len)) !=
			       hgw_cksum_fold(csum_ref(start, buf + off,
							   len));
			bad += hgw_cksum_fold(hgw_cksum_add(
					hgw_cksum_add(start, buf + off, cut),
					buf + off + cut, len - cut)) !=
			       hgw_cksum_fold(csum_ref(start, buf + off,
							   len));
		}
	HGW_CHECK_EQ(bad, 0);
	/* long runs of the extreme words (all ones, all zeros, and both
	 * mixed), past any internal run length of the vector sum */
	{
		static uint8_t big[300000 + 3];

		for (int pat = 0; pat < 3; pat++) {
			for (size_t k = 0; k < sizeof(big); k++)
				big[k] = pat == 0 ? 0xFF : pat == 1 ? 0x00 :
					 (k / 2 % 3 ? 0xFF : 0x00);
			for (len = sizeof(big) - 3; len <= sizeof(big); len++)
				bad += hgw_cksum_fold(hgw_cksum_add(
						7, big, len)) !=
				       hgw_cksum_fold(csum_ref(7, big, len));
		}
	}
	HGW_CHECK_EQ(bad, 0);
	/* hgw_cksum_l4: the pseudo header, then the datagram */
	for (len = 8; len <= 200; len++) {
		uint8_t *ip = buf, *udp = buf + 20;
		uint32_t i;

		for (i = 0; i < sizeof(buf); i++) {
			buf[i] = (uint8_t)(hgw_xorshift64s(&x) >> 56);
		}
		bad += hgw_cksum_l4(ip, udp, len, 17) !=
		       hgw_cksum_fold(csum_ref(csum_ref(0, ip + 12, 8) +
						   17 + len, udp, len));
	}
	HGW_CHECK_EQ(bad, 0);
}

/* A random byte stream for the tests below. */
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint8_t
rnd8(void)
{
	return (uint8_t)(hgw_xorshift64s(&rng) >> 56);
}

/* hgw_cksum_block, hgw_cksum_ipv4 and hgw_cksum_fill_ipv4_udp write
 * checksums the definition accepts (0xFFFF over the block with it), TCP's
 * pseudo header included; a UDP sum that comes out 0 is sent as 0xFFFF. */
static void
test_fill(void)
{
	uint8_t d[20 + 8 + 64];
	uint32_t bad = 0;

	for (int round = 0; round < 20000; round++) {
		uint32_t plen = round % 65, ulen = 8 + plen;

		for (size_t i = 0; i < sizeof(d); i++)
			d[i] = rnd8();
		d[0] = 0x45;
		d[2] = (uint8_t)((20 + ulen) >> 8);
		d[3] = (uint8_t)(20 + ulen);
		d[9] = 17;
		d[24] = (uint8_t)(ulen >> 8);
		d[25] = (uint8_t)ulen;
		hgw_cksum_fill_ipv4_udp(d, 20);
		bad += hgw_cksum_fold(csum_ref(0, d, 20)) != 0xFFFF;
		bad += hgw_cksum_block(d, 20) != 0xFFFF;
		if (d[26] == 0 && d[27] == 0)
			bad++;		/* 0 means none: never written */
		bad += hgw_cksum_fold(csum_ref(csum_ref(0, d + 12, 8) + 17 +
					       ulen, d + 20, ulen)) != 0xFFFF;
		/* TCP: the same over a segment, its field at 16 */
		if (ulen < 20)
			continue;
		d[9] = 6;
		d[20 + 16] = d[20 + 17] = 0;
		{
			uint16_t c = (uint16_t)~hgw_cksum_l4(d, d + 20, ulen, 6);

			d[20 + 16] = (uint8_t)(c >> 8);
			d[20 + 17] = (uint8_t)c;
		}
		bad += hgw_cksum_l4(d, d + 20, ulen, 6) != 0xFFFF;
		bad += hgw_cksum_fold(csum_ref(csum_ref(0, d + 12, 8) + 6 +
					       ulen, d + 20, ulen)) != 0xFFFF;
	}
	HGW_CHECK_EQ(bad, 0);
	/* a datagram whose UDP sum comes out 0: sent as 0xFFFF */
	{
		uint8_t z[28] = { 0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17 };
		uint16_t s;

		z[24] = 0;
		z[25] = 8;
		/* make the pseudo header plus header sum to 0xFFFF with
		 * the field 0: ~sum = 0 */
		s = hgw_cksum_l4(z, z + 20, 8, 17);
		z[20] = (uint8_t)((uint16_t)~s >> 8);
		z[21] = (uint8_t)~s;
		HGW_CHECK_EQ(hgw_cksum_l4(z, z + 20, 8, 17), 0xFFFF);
		hgw_cksum_fill_ipv4_udp(z, 20);
		HGW_CHECK(z[26] == 0xFF && z[27] == 0xFF);
	}
}

/* hgw_cksum_update (RFC 1624 eqn. 3): the checksum after bytes changed,
 * equal to the one computed again over the whole block; a wrong one
 * stays exactly as wrong. */
static void
test_update(void)
{
	uint8_t d[100], old[8];
	uint32_t bad = 0;

	for (int round = 0; round < 20000; round++) {
		uint32_t at = 2 + 2 * (uint32_t)(rnd8() % 40), n = 2 + 2 * (uint32_t)(rnd8() % 4);
		uint16_t c, c2;

		for (size_t i = 0; i < sizeof(d); i++)
			d[i] = rnd8();
		if (round % 5 == 0)
			memset(d + at, 0xFF, n);   /* carries */
		d[0] = d[1] = 0;
		c = (uint16_t)~hgw_cksum_block(d, sizeof(d));
		d[0] = (uint8_t)(c >> 8);
		d[1] = (uint8_t)c;
		memcpy(old, d + at, n);
		for (uint32_t i = 0; i < n; i++)
			d[at + i] = round % 7 == 0 ? 0 : rnd8();
		c2 = hgw_cksum_update(c, old, d + at, n);
		d[0] = d[1] = 0;
		/* either form of zero is the same ones' complement value */
		c = (uint16_t)~hgw_cksum_block(d, sizeof(d));
		bad += c2 != c && !((c2 == 0 || c2 == 0xFFFF) &&
				    (c == 0 || c == 0xFFFF));
		/* a checksum off by one stays off by one */
		d[0] = (uint8_t)((c2 + 1) >> 8);
		d[1] = (uint8_t)(c2 + 1);
		memcpy(old, d + at, n);
		d[at] ^= 0x5A;
		c = hgw_cksum_update((uint16_t)(c2 + 1), old, d + at, n);
		d[0] = (uint8_t)(c >> 8);
		d[1] = (uint8_t)c;
		bad += hgw_cksum_block(d, sizeof(d)) == 0xFFFF &&
		       (uint16_t)(c2 + 1) != 0 && (uint16_t)(c2 + 1) != 0xFFFF;
	}
	HGW_CHECK_EQ(bad, 0);
}

int
main(void)
{
	HGW_TEST(test_csum_reference);
	HGW_TEST(test_fill);
	HGW_TEST(test_update);
	return hgw_test_done();
}
