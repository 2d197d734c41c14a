/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: OUCH 5.0 Enter Order / SoupBinTCP / UDP order frames.
 *
 * The expected bytes are written out by hand from the OUCH 5.0 and
 * SoupBinTCP specifications (docs/protocols.md "Order bytes") and
 * docs/protocols.md "Order bytes"; checksums are recomputed here with a naive
 * byte-at-a-time RFC 1071 routine, independent of lib/order. It looks
 * inside the library: hgw_order_internal.h (the server messages' lengths),
 * on the include path of this test only (tests/unit/meson.build).
 */
#include <stdlib.h>
#include <string.h>

#include "hgw_order.h"
#include "hgw_order_internal.h"
#include "hgw_prng.h"
#include "hgw_test.h"

/* ---- independent helpers ---------------------------------------------- */

/* RFC 1071 one's-complement sum of big-endian 16-bit words, odd byte
 * padded with zero, carries folded: the plain textbook loop. */
static uint16_t
naive_sum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i < len; i += 2) {
		uint32_t w = (uint32_t)p[i] << 8;

		if (i + 1 < len)
			w |= p[i + 1];
		s += w;
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
	}
	return (uint16_t)s;
}

/* Sum over the UDP pseudo-header (from the IPv4 header at frame + 14)
 * followed by the UDP header and payload (udp_len bytes at frame + 34). */
static uint16_t
naive_udp_sum(const uint8_t *frame, size_t udp_len)
{
	uint8_t buf[12 + 65536];

	memcpy(buf, frame + 26, 8);             /* src, dst */
	buf[8] = 0;
	buf[9] = 17;
	buf[10] = (uint8_t)(udp_len >> 8);
	buf[11] = (uint8_t)udp_len;
	memcpy(buf + 12, frame + 34, udp_len);
	return naive_sum(buf, 12 + udp_len);
}

/* Recompute both checksums of a frame (after the test changed it). */
static void
naive_fix_checksums(uint8_t *frame)
{
	size_t udp_len = (size_t)frame[38] << 8 | frame[39];
	uint16_t c;

	frame[24] = frame[25] = 0;
	c = (uint16_t)~naive_sum(frame + 14, 20);
	frame[24] = (uint8_t)(c >> 8);
	frame[25] = (uint8_t)c;
	frame[40] = frame[41] = 0;
	c = (uint16_t)~naive_udp_sum(frame, udp_len);
	if (c == 0)
		c = 0xffff;
	frame[40] = (uint8_t)(c >> 8);
	frame[41] = (uint8_t)c;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t
rnd(void)
{
	return hgw_xorshift64s(&rng_state);
}

static int
order_eq(const struct hgw_ouch_order *a, const struct hgw_ouch_order *b)
{
	return a->user_ref_num == b->user_ref_num && a->side == b->side &&
	       a->quantity == b->quantity &&
	       memcmp(a->symbol, b->symbol, 8) == 0 && a->price == b->price &&
	       a->tif == b->tif && a->display == b->display &&
	       a->capacity == b->capacity &&
	       a->intermarket_sweep == b->intermarket_sweep &&
	       a->cross_type == b->cross_type &&
	       memcmp(a->clordid, b->clordid, HGW_CLORDID_LEN) == 0;
}

/* ---- the reference order ---------------------------------------------- */

static const char ref_session[10] = { 'T', 'E', 'S', 'T', 'S', 'E', 'S', 'S',
				      '4', '2' };
#define REF_SEQ 123456789012u   /* mod 2^32 = 0xbe991a14, mod 10^10 = 3456789012 */

static void
ref_tx(struct hgw_udp_tx *t)
{
	memset(t, 0, sizeof(*t));
	HGW_CHECK_EQ(hgw_parse_mac("00:11:22:33:44:55", t->dst_mac), 0);
	HGW_CHECK_EQ(hgw_parse_mac("02:48:47:57:00:02", t->src_mac), 0);
	t->src_ip = 0x0a010102;         /* 10.1.1.2 */
	t->dst_ip = 0x0a020009;         /* 10.2.0.9 */
	t->src_port = 40001;            /* 0x9c41 */
	t->dst_port = 15000;            /* 0x3a98 */
	hgw_udp_tx_init(t);
}

static void
ref_order(struct hgw_ouch_order *o)
{
	memset(o, 0, sizeof(*o));
	o->user_ref_num = hgw_order_user_ref(REF_SEQ);
	o->side = 'B';
	o->quantity = 1234;
	memcpy(o->symbol, "AAPL    ", 8);
	o->price = 1875000;             /* $187.5000 = 0x1c9c38 */
	o->tif = '0';
	o->display = 'Y';
	o->capacity = 'A';
	o->intermarket_sweep = 'N';
	o->cross_type = 'N';
	hgw_order_clordid(ref_session, REF_SEQ, o->clordid);
}

/* The whole frame, by hand. Checksums computed offline (Python, RFC 1071)
 * and re-derived below with naive_sum. */
static const uint8_t ref_frame[HGW_ORDER_FRAME_LEN] = {
	/* Ethernet: dst, src, type IPv4 */
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
	0x02, 0x48, 0x47, 0x57, 0x00, 0x02,
	0x08, 0x00,
	/* 14 IPv4: ver/IHL, TOS, total length 78, id 0, DF, TTL 64, UDP */
	0x45, 0x00, 0x00, 0x4e, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	/* 24 header checksum */
	0x25, 0x92,
	/* 26 src 10.1.1.2, 30 dst 10.2.0.9 */
	0x0a, 0x01, 0x01, 0x02, 0x0a, 0x02, 0x00, 0x09,
	/* 34 UDP: src 40001, dst 15000, length 58, checksum */
	0x9c, 0x41, 0x3a, 0x98, 0x00, 0x3a, 0x75, 0xa8,
	/* 42 SoupBinTCP: length 48, 'U' */
	0x00, 0x30, 'U',
	/* 45 OUCH @0 type 'O' */
	'O',
	/* @1 UserRefNum 0xbe991a14 */
	0xbe, 0x99, 0x1a, 0x14,
	/* @5 side */
	'B',
	/* @6 quantity 1234 */
	0x00, 0x00, 0x04, 0xd2,
	/* @10 symbol */
	'A', 'A', 'P', 'L', ' ', ' ', ' ', ' ',
	/* @18 price 1875000 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x1c, 0x9c, 0x38,
	/* @26 TIF, @27 display, @28 capacity, @29 ISO, @30 cross type */
	'0', 'Y', 'A', 'N', 'N',
	/* @31 ClOrdID: "SS42" + "3456789012" */
	'S', 'S', '4', '2', '3', '4', '5', '6', '7', '8', '9', '0', '1', '2',
	/* @45 appendage length 0 */
	0x00, 0x00,
};
_Static_assert(sizeof(ref_frame) == 92, "reference frame is 92 bytes");

/* ---- tests -------------------------------------------------------------- */

static void
test_reference_checksums(void)
{
	uint8_t f[HGW_ORDER_FRAME_LEN];

	/* The hand-written checksums agree with the naive routine... */
	memcpy(f, ref_frame, sizeof(f));
	naive_fix_checksums(f);
	HGW_CHECK(memcmp(f, ref_frame, sizeof(f)) == 0);
	HGW_CHECK_EQ(f[24] << 8 | f[25], 0x2592);
	HGW_CHECK_EQ(f[40] << 8 | f[41], 0x75a8);
	/* ...and verify (sum over the checksummed data = 0xffff). */
	HGW_CHECK_EQ(naive_sum(ref_frame + 14, 20), 0xffff);
	HGW_CHECK_EQ(naive_udp_sum(ref_frame, 58), 0xffff);
}

static void
test_reference_frame(void)
{
	struct hgw_udp_tx t;
	struct hgw_ouch_order o;
	uint8_t f[HGW_ORDER_FRAME_LEN + 8];

	ref_tx(&t);
	ref_order(&o);
	memset(f, 0xa5, sizeof(f));
	HGW_CHECK_EQ(hgw_order_frame(&t, &o, f), 92);
	for (size_t i = 0; i < HGW_ORDER_FRAME_LEN; i++)
		if (f[i] != ref_frame[i]) {
			printf("# byte %zu: got 0x%02x want 0x%02x\n", i, f[i],
			       ref_frame[i]);
			HGW_CHECK(f[i] == ref_frame[i]);
		}
	for (size_t i = HGW_ORDER_FRAME_LEN; i < sizeof(f); i++)
		HGW_CHECK_EQ(f[i], 0xa5);   /* nothing written past the end */

	/* The template header is the constant part of the frame. */
	HGW_CHECK(memcmp(t.hdr, ref_frame, 16) == 0);
	HGW_CHECK(memcmp(t.hdr + 18, ref_frame + 18, 6) == 0);
	HGW_CHECK(memcmp(t.hdr + 26, ref_frame + 26, 12) == 0);

	/* Built layer by layer through the public pieces: same bytes. */
	uint8_t g[HGW_ORDER_FRAME_LEN];

	memset(g, 0, sizeof(g));
	HGW_CHECK_EQ(hgw_ouch_enter_order(g + 45, &o), 47);
	HGW_CHECK_EQ(hgw_soupbin_unsequenced(g + 42, 47), 3);
	HGW_CHECK_EQ(hgw_udp_tx_frame(&t, g, 50), 92);
	HGW_CHECK(memcmp(g, ref_frame, sizeof(g)) == 0);
}

/* Every OUCH field at its specified offset, with distinct values. */
static void
test_ouch_fields(void)
{
	struct hgw_ouch_order o;
	uint8_t b[HGW_OUCH_ENTER_ORDER_LEN + 4];

	memset(&o, 0, sizeof(o));
	o.user_ref_num = 0x11223344;
	o.side = 'S';
	o.quantity = 0x55667788;
	memcpy(o.symbol, "ZVZZT   ", 8);
	o.price = 0x0102030405060708u;
	o.tif = '3';
	o.display = 'N';
	o.capacity = 'P';
	o.intermarket_sweep = 'N';
	o.cross_type = 'N';
	memcpy(o.clordid, "abcdefghijklmn", 14);
	memset(b, 0xee, sizeof(b));
	HGW_CHECK_EQ(hgw_ouch_enter_order(b, &o), 47);

	static const uint8_t want[47] = {
		'O',                                            /* 0 */
		0x11, 0x22, 0x33, 0x44,                         /* 1 */
		'S',                                            /* 5 */
		0x55, 0x66, 0x77, 0x88,                         /* 6 */
		'Z', 'V', 'Z', 'Z', 'T', ' ', ' ', ' ',         /* 10 */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* 18 */
		'3', 'N', 'P', 'N', 'N',                        /* 26..30 */
		'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l',
		'm', 'n',                                       /* 31 */
		0x00, 0x00,                                     /* 45 */
	};
	HGW_CHECK(memcmp(b, want, 47) == 0);
	HGW_CHECK_EQ(b[0], 'O');
	HGW_CHECK_EQ(b[1] << 24 | b[2] << 16 | b[3] << 8 | b[4], 0x11223344);
	HGW_CHECK_EQ(b[5], 'S');
	HGW_CHECK_EQ((uint32_t)b[6] << 24 | b[7] << 16 | b[8] << 8 | b[9],
		     0x55667788);
	HGW_CHECK(memcmp(b + 10, "ZVZZT   ", 8) == 0);
	HGW_CHECK_EQ(b[18], 0x01);
	HGW_CHECK_EQ(b[25], 0x08);
	HGW_CHECK_EQ(b[26], '3');
	HGW_CHECK_EQ(b[27], 'N');
	HGW_CHECK_EQ(b[28], 'P');
	HGW_CHECK_EQ(b[29], 'N');
	HGW_CHECK_EQ(b[30], 'N');
	HGW_CHECK(memcmp(b + 31, "abcdefghijklmn", 14) == 0);
	HGW_CHECK_EQ(b[45], 0);
	HGW_CHECK_EQ(b[46], 0);
	for (size_t i = 47; i < sizeof(b); i++)
		HGW_CHECK_EQ(b[i], 0xee);
}

static void
test_soupbin(void)
{
	uint8_t b[4] = { 0xee, 0xee, 0xee, 0xee };

	HGW_CHECK_EQ(hgw_soupbin_unsequenced(b, 47), 3);
	HGW_CHECK_EQ(b[0], 0x00);
	HGW_CHECK_EQ(b[1], 48);
	HGW_CHECK_EQ(b[2], 'U');
	HGW_CHECK_EQ(b[3], 0xee);
	hgw_soupbin_unsequenced(b, 0x1233);
	HGW_CHECK_EQ(b[0], 0x12);
	HGW_CHECK_EQ(b[1], 0x34);
}

static void
check_clordid(const char *session, uint64_t seq, const char *want)
{
	char out[HGW_CLORDID_LEN + 1];

	out[HGW_CLORDID_LEN] = '#';
	hgw_order_clordid(session, seq, out);
	if (memcmp(out, want, HGW_CLORDID_LEN) != 0)
		printf("# clordid(%.10s, %" PRIu64 ") = '%.14s', want '%s'\n",
		       session, seq, out, want);
	HGW_CHECK(memcmp(out, want, HGW_CLORDID_LEN) == 0);
	HGW_CHECK_EQ(out[HGW_CLORDID_LEN], '#');    /* no NUL written */
}

static void
test_clordid(void)
{
	check_clordid("TESTSESS42", 0, "SS420000000000");
	check_clordid("TESTSESS42", 1, "SS420000000001");
	check_clordid("TESTSESS42", 42, "SS420000000042");
	check_clordid("TESTSESS42", 1234567890, "SS421234567890");
	check_clordid("TESTSESS42", 9999999999u, "SS429999999999");
	check_clordid("TESTSESS42", 10000000000u, "SS420000000000");
	check_clordid("TESTSESS42", 10000000007u, "SS420000000007");
	check_clordid("TESTSESS42", REF_SEQ, "SS423456789012");
	check_clordid("TESTSESS42", UINT64_MAX, "SS423709551615");
	check_clordid("0000012345", 987654321, "23450987654321");
	/* the session as in the packet: space padded */
	check_clordid("ABC       ", 7, "    0000000007");
	check_clordid("SESSION1  ", 100, "N1  0000000100");
	check_clordid("ABCDEFG   ", 5, "G   0000000005");
	/* every value of the low and the high five digits... */
	for (uint64_t i = 0; i < 100000; i++) {
		char want[32];

		snprintf(want, sizeof(want), "WXYZ%010" PRIu64, i);
		check_clordid("abcdefWXYZ", i, want);
		snprintf(want, sizeof(want), "WXYZ%05" PRIu64 "%05" PRIu64,
			 i, 99999 - i);
		check_clordid("abcdefWXYZ", i * 100000 + 99999 - i +
			      (i % 7) * 10000000000u, want);
	}
	/* ...and random ones, against snprintf */
	for (int i = 0; i < 10000; i++) {
		uint64_t seq = rnd() >> (rnd() % 64);
		char want[32];

		snprintf(want, sizeof(want), "WXYZ%010" PRIu64,
			 seq % 10000000000u);
		check_clordid("abcdefWXYZ", seq, want);
	}
}

/* The parse is the inverse of the writer (mod 10^10), and refuses what
 * the writer never makes. */
static void
test_clordid_seq(void)
{
	static const uint64_t seqs[] = { 0, 1, 42, 1234567890, 9999999999u,
					 10000000007u, UINT64_MAX };
	char c[HGW_CLORDID_LEN];
	uint64_t got;

	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		hgw_order_clordid("TESTSESS42", seqs[i], c);
		HGW_CHECK_EQ(hgw_order_clordid_seq(c, &got), 0);
		HGW_CHECK_EQ(got, seqs[i] % 10000000000u);
	}
	memcpy(c, "SS42000000000x", HGW_CLORDID_LEN);
	HGW_CHECK_EQ(hgw_order_clordid_seq(c, &got), -1);
	memcpy(c, "SS42 000000001", HGW_CLORDID_LEN);
	HGW_CHECK_EQ(hgw_order_clordid_seq(c, &got), -1);
	memcpy(c, "    0000000007", HGW_CLORDID_LEN);	/* session part is free */
	HGW_CHECK_EQ(hgw_order_clordid_seq(c, &got), 0);
	HGW_CHECK_EQ(got, 7);
}

static void
test_user_ref(void)
{
	HGW_CHECK_EQ(hgw_order_user_ref(0), 0);
	HGW_CHECK_EQ(hgw_order_user_ref(1), 1);
	HGW_CHECK_EQ(hgw_order_user_ref(0xffffffffu), 0xffffffffu);
	HGW_CHECK_EQ(hgw_order_user_ref(0x100000000u), 0);
	HGW_CHECK_EQ(hgw_order_user_ref(0x100000005u), 5);
	HGW_CHECK_EQ(hgw_order_user_ref(REF_SEQ), 0xbe991a14u);
	HGW_CHECK_EQ(hgw_order_user_ref(UINT64_MAX), 0xffffffffu);
}

static void
random_tx(struct hgw_udp_tx *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 6; i++) {
		t->src_mac[i] = (uint8_t)rnd();
		t->dst_mac[i] = (uint8_t)rnd();
	}
	t->src_ip = (uint32_t)rnd();
	t->dst_ip = (uint32_t)rnd();
	t->src_port = (uint16_t)rnd();
	t->dst_port = (uint16_t)rnd();
	/* extremes now and then */
	switch (rnd() % 8) {
	case 0:
		t->src_ip = t->dst_ip = 0xffffffffu;
		t->src_port = t->dst_port = 0xffff;
		break;
	case 1:
		t->src_ip = t->dst_ip = 0;
		t->src_port = t->dst_port = 0;
		break;
	}
	hgw_udp_tx_init(t);
}

static void
random_order(struct hgw_ouch_order *o)
{
	static const char sym[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ .";
	char session[10];
	uint64_t seq = rnd() >> (rnd() % 64);

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < 10; i++)
		session[i] = (char)(rnd() % 2 ? ' ' + rnd() % 95 : ' ');
	o->user_ref_num = hgw_order_user_ref(seq);
	o->side = (uint8_t)"BSTE"[rnd() % 4];
	o->quantity = (uint32_t)(rnd() % 3 ? rnd() % 100000 : rnd());
	for (int i = 0; i < 8; i++)
		o->symbol[i] = sym[rnd() % (sizeof(sym) - 1)];
	o->price = rnd() % 3 ? rnd() % 2000000001u : rnd();
	o->tif = (uint8_t)rnd();
	o->display = (uint8_t)rnd();
	o->capacity = (uint8_t)rnd();
	o->intermarket_sweep = 'N';
	o->cross_type = 'N';
	hgw_order_clordid(session, seq, o->clordid);
}

/* decode(frame(x)) == x, and both checksums verify with the naive sum. */
static void
test_roundtrip_random(void)
{
	struct hgw_udp_tx t;
	int bad = 0, ffff = 0;

	for (int i = 0; i < 200000 && bad < 10; i++) {
		struct hgw_ouch_order o, d;
		uint8_t f[HGW_ORDER_FRAME_LEN];
		const char *why = "unset";

		if (i % 100 == 0)
			random_tx(&t);
		random_order(&o);
		HGW_CHECK_EQ(hgw_order_frame(&t, &o, f), HGW_ORDER_FRAME_LEN);
		memset(&d, 0x5a, sizeof(d));
		if (hgw_order_decode(f, sizeof(f), &d, &why) != 0) {
			printf("# decode refused a good frame: %s\n", why);
			bad++;
		} else if (why != NULL || !order_eq(&o, &d)) {
			bad++;
		}
		if (naive_sum(f + 14, 20) != 0xffff ||
		    naive_udp_sum(f, 58) != 0xffff)
			bad++;
		ffff += f[40] == 0xff && f[41] == 0xff;
	}
	HGW_CHECK_EQ(bad, 0);
	printf("# %d random frames had UDP checksum 0xffff\n", ffff);
}

/* hgw_udp_tx_frame for any payload length (odd ones too): checksums
 * equal the naive ones and verify. */
static void
test_udp_tx_lengths(void)
{
	static uint8_t f[HGW_UDP_TX_HDR_LEN + 1500];
	struct hgw_udp_tx t;
	int bad = 0;

	for (size_t len = 0; len <= 1458; len++) {
		uint8_t g[sizeof(f)];

		if (len % 16 == 0)
			random_tx(&t);
		for (size_t i = 0; i < len; i++)
			f[HGW_UDP_TX_HDR_LEN + i] = (uint8_t)rnd();
		if (hgw_udp_tx_frame(&t, f, len) != HGW_UDP_TX_HDR_LEN + len)
			bad++;
		if ((size_t)(f[16] << 8 | f[17]) != 28 + len ||
		    (size_t)(f[38] << 8 | f[39]) != 8 + len)
			bad++;
		memcpy(g, f, HGW_UDP_TX_HDR_LEN + len);
		naive_fix_checksums(g);
		if (memcmp(f, g, HGW_UDP_TX_HDR_LEN + len) != 0)
			bad++;
		if (naive_sum(f + 14, 20) != 0xffff ||
		    naive_udp_sum(f, 8 + len) != 0xffff)
			bad++;
	}
	HGW_CHECK_EQ(bad, 0);
}

/* A payload whose UDP checksum computes to 0 must be sent as 0xffff. */
static void
test_udp_checksum_zero(void)
{
	struct hgw_udp_tx t;
	uint8_t f[HGW_UDP_TX_HDR_LEN + 4];
	uint16_t s, w;

	ref_tx(&t);
	/* payload = {0, 0, w}: pick w so the whole sum is 0xffff */
	memset(f, 0, sizeof(f));
	hgw_udp_tx_frame(&t, f, 4);
	f[40] = f[41] = 0;
	s = naive_udp_sum(f, 12);
	w = (uint16_t)~s;   /* s + ~s = 0xffff in one's complement */
	f[44] = (uint8_t)(w >> 8);
	f[45] = (uint8_t)w;
	HGW_CHECK_EQ(naive_udp_sum(f, 12), 0xffff);
	hgw_udp_tx_frame(&t, f, 4);
	HGW_CHECK_EQ(f[40], 0xff);
	HGW_CHECK_EQ(f[41], 0xff);
	HGW_CHECK_EQ(naive_udp_sum(f, 12), 0xffff);
}

static void
expect_refusal(const uint8_t *f, size_t len, const char *want,
	       const char *what)
{
	struct hgw_ouch_order o;
	const char *why = NULL;
	int rc = hgw_order_decode(f, len, &o, &why);

	if (rc != -1 || why == NULL || strcmp(why, want) != 0)
		printf("# %s: rc %d why '%s', want '%s'\n", what, rc,
		       why ? why : "(null)", want);
	HGW_CHECK_EQ(rc, -1);
	HGW_CHECK(why != NULL && strcmp(why, want) == 0);
}

/* Flip each byte of every header region (and of the payload): every flip
 * outside the MAC addresses is refused, for the reason of its region. */
static void
test_decode_flips(void)
{
	uint8_t f[HGW_ORDER_FRAME_LEN];
	char what[64];

	for (size_t i = 0; i < HGW_ORDER_FRAME_LEN; i++) {
		const char *want;

		if (i < 12)
			want = NULL;                    /* MACs not checked */
		else if (i < 14)
			want = "ethertype";
		else if (i == 14)
			want = "ipv4 version/ihl";
		else if (i == 16 || i == 17)
			want = "ipv4 total length";
		else if (i == 20 || i == 21)
			want = "ipv4 fragment";
		else if (i == 23)
			want = "ipv4 protocol";
		else if (i < 34)
			want = "ipv4 checksum";        /* TOS, id, TTL, csum, IPs */
		else if (i == 38 || i == 39)
			want = "udp length";
		else
			want = "udp checksum";         /* ports, csum, payload */
		for (int bit = 0; bit < 8; bit++) {
			struct hgw_ouch_order o;
			const char *why = "unset";

			memcpy(f, ref_frame, sizeof(f));
			f[i] ^= (uint8_t)(1u << bit);
			snprintf(what, sizeof(what), "byte %zu bit %d", i, bit);
			if (want == NULL) {
				HGW_CHECK_EQ(hgw_order_decode(f, sizeof(f), &o,
							      &why), 0);
				continue;
			}
			const char *w = want;

			/* byte 20: reserved bit 0x80 and DF 0x40 are caught
			 * by the checksum, MF 0x20 and the offset bits by the
			 * fragment check. (A one-bit flip of the UDP checksum
			 * 0x75a8 cannot make it 0 = "none".) */
			if (i == 20 && bit >= 6)
				w = "ipv4 checksum";
			expect_refusal(f, sizeof(f), w, what);
		}
	}
}

/* Wrong lengths and types, with checksums made consistent so each check is
 * reached on its own. */
static void
test_decode_refusals(void)
{
	uint8_t f[HGW_ORDER_FRAME_LEN + 16];
	struct hgw_udp_tx t;
	struct hgw_ouch_order o;
	const char *why;

	ref_tx(&t);
	ref_order(&o);

	/* short frames */
	expect_refusal(ref_frame, 0, "frame too short", "len 0");
	expect_refusal(ref_frame, 41, "frame too short", "len 41");
	/* truncated / padded frame: IPv4 total length no longer matches */
	expect_refusal(ref_frame, 91, "ipv4 total length", "len 91");
	memset(f, 0, sizeof(f));
	memcpy(f, ref_frame, 92);
	expect_refusal(f, 93, "ipv4 total length", "len 93");

	/* 802.1Q tagged: refused (orders go untagged) */
	memcpy(f, ref_frame, 12);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = 0x00;
	f[15] = 0x8d;
	memcpy(f + 16, ref_frame + 12, 80);
	expect_refusal(f, 96, "ethertype", "vlan tag");
	/* IPv6 ethertype */
	memcpy(f, ref_frame, 92);
	f[12] = 0x86;
	f[13] = 0xdd;
	expect_refusal(f, 92, "ethertype", "ipv6");

	/* IHL 6 (options) and version 6, checksum fixed */
	memcpy(f, ref_frame, 92);
	f[14] = 0x46;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "ipv4 version/ihl", "ihl 6");
	memcpy(f, ref_frame, 92);
	f[14] = 0x65;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "ipv4 version/ihl", "version 6");

	/* protocol TCP, fragment offset, checksum fixed */
	memcpy(f, ref_frame, 92);
	f[23] = 6;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "ipv4 protocol", "tcp");
	memcpy(f, ref_frame, 92);
	f[21] = 0x01;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "ipv4 fragment", "offset 8");
	memcpy(f, ref_frame, 92);
	f[20] = 0x20;   /* MF */
	naive_fix_checksums(f);
	expect_refusal(f, 92, "ipv4 fragment", "MF");

	/* IPv4 total length and UDP length disagree with the frame */
	memcpy(f, ref_frame, 92);
	f[17] = 77;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "ipv4 total length", "total 77");
	memcpy(f, ref_frame, 92);
	f[39] = 57;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "udp length", "udp 57");
	memcpy(f, ref_frame, 92);
	f[39] = 59;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "udp length", "udp 59");

	/* wrong checksums */
	memcpy(f, ref_frame, 92);
	f[25] ^= 1;
	expect_refusal(f, 92, "ipv4 checksum", "ip csum");
	memcpy(f, ref_frame, 92);
	f[41] ^= 1;
	expect_refusal(f, 92, "udp checksum", "udp csum");
	/* UDP checksum 0 = none: accepted */
	memcpy(f, ref_frame, 92);
	f[40] = f[41] = 0;
	why = "unset";
	HGW_CHECK_EQ(hgw_order_decode(f, 92, NULL, &why), 0);
	HGW_CHECK(why == NULL);
	f[60] ^= 0xff;   /* nothing to catch it then */
	HGW_CHECK_EQ(hgw_order_decode(f, 92, NULL, NULL), 0);

	/* SoupBinTCP length and type */
	memcpy(f, ref_frame, 92);
	f[43] = 47;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "soupbin length", "soup 47");
	memcpy(f, ref_frame, 92);
	f[43] = 49;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "soupbin length", "soup 49");
	memcpy(f, ref_frame, 92);
	f[42] = 1;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "soupbin length", "soup 304");
	memcpy(f, ref_frame, 92);
	f[44] = 'S';
	naive_fix_checksums(f);
	expect_refusal(f, 92, "soupbin type", "soup S");

	/* OUCH type, length, appendage */
	memcpy(f, ref_frame, 92);
	f[45] = 'X';
	naive_fix_checksums(f);
	expect_refusal(f, 92, "ouch type", "ouch X");
	memcpy(f, ref_frame, 92);
	f[90] = 0;
	f[91] = 1;
	naive_fix_checksums(f);
	expect_refusal(f, 92, "ouch appendage", "appendage 1");

	/* consistent frames of other payload lengths */
	static const struct {
		size_t payload;
		const char *want;
	} lens[] = {
		{ 0, "soupbin length" }, { 1, "soupbin length" },
		{ 2, "soupbin length" }, { 3, "ouch type" },
		{ 4, "ouch length" }, { 49, "ouch length" },
		{ 51, "ouch length" }, { 58, "ouch length" },
	};
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t n = lens[k].payload;
		char what[32];

		memset(f, 0, sizeof(f));
		memcpy(f + 42, ref_frame + 42, n < 50 ? n : 50);
		if (n >= 2) {
			f[42] = (uint8_t)((n - 2) >> 8);
			f[43] = (uint8_t)(n - 2);
		}
		hgw_udp_tx_frame(&t, f, n);
		snprintf(what, sizeof(what), "payload %zu", n);
		expect_refusal(f, 42 + n, lens[k].want, what);
	}

	/* and the good one once more with why == NULL and o == NULL */
	HGW_CHECK_EQ(hgw_order_decode(ref_frame, 92, NULL, NULL), 0);
	struct hgw_ouch_order d;

	HGW_CHECK_EQ(hgw_order_decode(ref_frame, 92, &d, NULL), 0);
	HGW_CHECK(order_eq(&d, &o));
}

/* Random corruption never passes unnoticed where a check covers it. */
static void
test_decode_random_corruption(void)
{
	struct hgw_udp_tx t;
	int missed = 0;

	for (int i = 0; i < 100000; i++) {
		struct hgw_ouch_order o;
		uint8_t f[HGW_ORDER_FRAME_LEN], g[HGW_ORDER_FRAME_LEN];
		size_t pos;
		uint8_t x;

		if (i % 100 == 0)
			random_tx(&t);
		random_order(&o);
		hgw_order_frame(&t, &o, f);
		memcpy(g, f, sizeof(g));
		pos = 12 + rnd() % (HGW_ORDER_FRAME_LEN - 12);
		x = (uint8_t)(1 + rnd() % 255);
		g[pos] ^= x;
		/* A single-byte change is always caught (by a field check or
		 * by the checksums), except where the UDP checksum field is
		 * hit and becomes 0 ("none") or flips between the two
		 * encodings of zero. */
		if (pos == 40 || pos == 41) {
			uint16_t c = (uint16_t)(g[40] << 8 | g[41]);

			if (c == 0)
				continue;
		}
		if (hgw_order_decode(g, sizeof(g), NULL, NULL) == 0)
			missed++;
	}
	HGW_CHECK_EQ(missed, 0);
}

static void
test_parse_mac(void)
{
	static const char *const bad[] = {
		"", "0", "00:11:22:33:44", "00:11:22:33:44:", "00:11:22:33:44:5",
		"00:11:22:33:44:55:", "00:11:22:33:44:55:66",
		"0:11:22:33:44:55", "00:11:22:33:44:555", "000:11:22:33:44:55",
		"00-11-22-33-44-55", "00.11.22.33.44.55", "001122334455",
		"00:11:22:33:44:5g", "g0:11:22:33:44:55", "00:11:22:33:44:55 ",
		" 00:11:22:33:44:55", "00:11:22:33:44:55\n", "+0:11:22:33:44:55",
		"0x:11:22:33:44:55", "00:11::22:33:44:55", "00 11 22 33 44 55",
		"00:11:22:33:44:-5", "00:11:22:33:44:5:",
	};
	uint8_t mac[6];

	HGW_CHECK_EQ(hgw_parse_mac("00:11:22:33:44:55", mac), 0);
	HGW_CHECK(memcmp(mac, "\x00\x11\x22\x33\x44\x55", 6) == 0);
	HGW_CHECK_EQ(hgw_parse_mac("AA:bb:Cc:dD:ef:F0", mac), 0);
	HGW_CHECK(memcmp(mac, "\xaa\xbb\xcc\xdd\xef\xf0", 6) == 0);
	HGW_CHECK_EQ(hgw_parse_mac("ff:ff:ff:ff:ff:ff", mac), 0);
	HGW_CHECK(memcmp(mac, "\xff\xff\xff\xff\xff\xff", 6) == 0);
	HGW_CHECK_EQ(hgw_parse_mac("01:00:5e:36:0c:6f", mac), 0);
	HGW_CHECK(memcmp(mac, "\x01\x00\x5e\x36\x0c\x6f", 6) == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(mac, 0x77, sizeof(mac));
		if (hgw_parse_mac(bad[i], mac) != -1)
			printf("# accepted '%s'\n", bad[i]);
		HGW_CHECK_EQ(hgw_parse_mac(bad[i], mac), -1);
		HGW_CHECK(memcmp(mac, "\x77\x77\x77\x77\x77\x77", 6) == 0);
	}
	HGW_CHECK_EQ(hgw_parse_mac(NULL, mac), -1);
	/* every hex digit in every position */
	for (int v = 0; v < 256; v++) {
		char s[18];

		snprintf(s, sizeof(s), v & 1 ? "%02X:%02x:%02X:%02x:%02X:%02x"
			 : "%02x:%02X:%02x:%02X:%02x:%02X", v, v ^ 0xff, v,
			 v ^ 0x5a, v, v ^ 0xa5);
		HGW_CHECK_EQ(hgw_parse_mac(s, mac), 0);
		HGW_CHECK(mac[0] == v && mac[1] == (v ^ 0xff) &&
			  mac[3] == (v ^ 0x5a) && mac[5] == (v ^ 0xa5));
	}
}

/* ---- venue answers: bytes laid out by hand ----------------------------- */

/* Append helpers: big-endian integers and space-padded text, written a
 * byte at a time, independent of lib/order's own helpers. */
static size_t
put_n(uint8_t *b, size_t off, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--)
		b[off++] = (uint8_t)(v >> (8 * i));
	return off;
}

static size_t
put_s(uint8_t *b, size_t off, const char *s, size_t n)
{
	size_t l = strlen(s);

	for (size_t i = 0; i < n; i++)
		b[off++] = (uint8_t)(i < l ? s[i] : ' ');
	return off;
}

static void
test_answer_accepted(void)
{
	uint8_t b[80];
	size_t n = 0;
	struct hgw_ouch_answer a;
	const char *why = NULL;

	b[n++] = 'A';
	n = put_n(b, n, 34200000000000ull, 8);  /* 09:30 */
	n = put_n(b, n, 1234, 4);               /* UserRefNum */
	b[n++] = 'B';
	n = put_n(b, n, 300, 4);
	n = put_s(b, n, "ABCD", 8);
	n = put_n(b, n, 1234500, 8);            /* 123.45 */
	b[n++] = '0';                           /* TIF */
	b[n++] = 'Y';
	n = put_n(b, n, 987654321, 8);          /* order reference */
	b[n++] = 'P';
	b[n++] = 'N';
	b[n++] = 'N';
	b[n++] = 'L';                           /* order state: live */
	n = put_s(b, n, "00010000001234", 14);
	n = put_n(b, n, 0, 2);
	HGW_CHECK_EQ(n, HGW_OUCH_ACCEPTED_LEN);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 7, &a, &why), 0);
	HGW_CHECK_EQ(a.type, 'A');
	HGW_CHECK_EQ(a.seq, 7);
	HGW_CHECK_EQ(a.user_ref, 1234);
	HGW_CHECK_EQ(a.side, 'B');
	HGW_CHECK_EQ(a.qty, 300);
	HGW_CHECK_EQ(a.price, 1234500);
	HGW_CHECK_EQ(a.match, 987654321);
	HGW_CHECK_EQ(a.reason, 'L');            /* order state */
	b[47] = 'D';                            /* accepted dead */
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 7, &a, &why), 0);
	HGW_CHECK_EQ(a.reason, 'D');
	b[47] = 'L';
	/* one byte short, one too many, and an appendage it does not carry */
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n - 1, 7, &a, &why), -1);
	HGW_CHECK(strcmp(why, "bad length") == 0);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n + 1, 7, &a, &why), -1);
	put_n(b, n - 2, 4, 2);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 7, &a, &why), -1);
	/* ... and with it: an optional field of 4 bytes */
	put_n(b, n, 0x04160000, 4);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n + 4, 7, &a, &why), 0);
	HGW_CHECK_EQ(a.qty, 300);
}

static void
test_answer_replaced(void)
{
	uint8_t b[80];
	size_t n = 0;
	struct hgw_ouch_answer a;
	const char *why;

	b[n++] = 'U';
	n = put_n(b, n, 1, 8);
	n = put_n(b, n, 1234, 4);               /* orig */
	n = put_n(b, n, 1240, 4);               /* new */
	b[n++] = 'S';
	n = put_n(b, n, 200, 4);
	n = put_s(b, n, "WXYZ", 8);
	n = put_n(b, n, 99990000, 8);
	b[n++] = '0';
	b[n++] = 'Y';
	n = put_n(b, n, 55, 8);
	b[n++] = 'P';
	b[n++] = 'N';
	b[n++] = 'N';
	b[n++] = 'L';
	n = put_s(b, n, "00010000001240", 14);
	n = put_n(b, n, 0, 2);
	HGW_CHECK_EQ(n, HGW_OUCH_REPLACED_LEN);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 9, &a, &why), 0);
	HGW_CHECK_EQ(a.orig_user_ref, 1234);
	HGW_CHECK_EQ(a.user_ref, 1240);
	HGW_CHECK_EQ(a.side, 'S');
	HGW_CHECK_EQ(a.qty, 200);
	HGW_CHECK_EQ(a.price, 99990000);
	HGW_CHECK_EQ(a.match, 55);
	HGW_CHECK_EQ(a.reason, 'L');            /* order state */
}

static void
test_answer_small_types(void)
{
	uint8_t b[64];
	size_t n;
	struct hgw_ouch_answer a;
	const char *why;

	/* System Event */
	n = 0;
	b[n++] = 'S';
	n = put_n(b, n, 5, 8);
	b[n++] = 'O';
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 1, &a, &why), 0);
	HGW_CHECK_EQ(a.event_code, 'O');
	HGW_CHECK_EQ(a.user_ref, 0);
	/* Canceled: UserRefNum, decrement, reason */
	n = 0;
	b[n++] = 'C';
	n = put_n(b, n, 5, 8);
	n = put_n(b, n, 77, 4);
	n = put_n(b, n, 100, 4);
	b[n++] = 'U';
	HGW_CHECK_EQ(n, HGW_OUCH_CANCELED_LEN);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 2, &a, &why), 0);
	HGW_CHECK_EQ(a.user_ref, 77);
	HGW_CHECK_EQ(a.qty, 100);
	HGW_CHECK_EQ(a.reason, 'U');
	/* AIQ Canceled */
	n = 0;
	b[n++] = 'D';
	n = put_n(b, n, 5, 8);
	n = put_n(b, n, 78, 4);
	n = put_n(b, n, 40, 4);
	b[n++] = 'Q';
	n = put_n(b, n, 60, 4);
	n = put_n(b, n, 1000000, 8);
	b[n++] = 'A';
	HGW_CHECK_EQ(n, HGW_OUCH_AIQ_CANCELED_LEN);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 3, &a, &why), 0);
	HGW_CHECK_EQ(a.user_ref, 78);
	HGW_CHECK_EQ(a.qty, 40);
	HGW_CHECK_EQ(a.reason, 'Q');
	HGW_CHECK_EQ(a.price, 1000000);
	/* Executed */
	n = 0;
	b[n++] = 'E';
	n = put_n(b, n, 5, 8);
	n = put_n(b, n, 79, 4);
	n = put_n(b, n, 25, 4);
	n = put_n(b, n, 1234500, 8);
	b[n++] = 'A';
	n = put_n(b, n, 0x0102030405060708ull, 8);
	n = put_n(b, n, 0, 2);
	HGW_CHECK_EQ(n, HGW_OUCH_EXECUTED_LEN);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 4, &a, &why), 0);
	HGW_CHECK_EQ(a.user_ref, 79);
	HGW_CHECK_EQ(a.qty, 25);
	HGW_CHECK_EQ(a.price, 1234500);
	HGW_CHECK_EQ(a.match, 0x0102030405060708ull);
	/* Broken Trade */
	n = 0;
	b[n++] = 'B';
	n = put_n(b, n, 5, 8);
	n = put_n(b, n, 79, 4);
	n = put_n(b, n, 0x0102030405060708ull, 8);
	b[n++] = 'E';
	n = put_s(b, n, "00010000001234", 14);
	HGW_CHECK_EQ(n, HGW_OUCH_BROKEN_LEN);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 5, &a, &why), 0);
	HGW_CHECK_EQ(a.match, 0x0102030405060708ull);
	HGW_CHECK_EQ(a.reason, 'E');
	/* Rejected: a 2-byte reason */
	n = 0;
	b[n++] = 'J';
	n = put_n(b, n, 5, 8);
	n = put_n(b, n, 80, 4);
	n = put_n(b, n, 0x0123, 2);
	n = put_s(b, n, "00010000001235", 14);
	HGW_CHECK_EQ(n, HGW_OUCH_REJECTED_LEN);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 6, &a, &why), 0);
	HGW_CHECK_EQ(a.user_ref, 80);
	HGW_CHECK_EQ(a.reason, 0x0123);
	/* Cancel Pending, Cancel Reject */
	for (const char *t = "PI"; *t; t++) {
		n = 0;
		b[n++] = (uint8_t)*t;
		n = put_n(b, n, 5, 8);
		n = put_n(b, n, 81, 4);
		HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 7, &a, &why), 0);
		HGW_CHECK_EQ(a.type, (uint8_t)*t);
		HGW_CHECK_EQ(a.user_ref, 81);
		HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n + 1, 7, &a, &why), -1);
	}
	/* Modified */
	n = 0;
	b[n++] = 'M';
	n = put_n(b, n, 5, 8);
	n = put_n(b, n, 82, 4);
	b[n++] = 'S';
	n = put_n(b, n, 150, 4);
	HGW_CHECK_EQ(n, HGW_OUCH_MODIFIED_LEN);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 8, &a, &why), 0);
	HGW_CHECK_EQ(a.side, 'S');
	HGW_CHECK_EQ(a.qty, 150);
	/* Restated, with an appendage: a Display Quantity (option 22:
	 * length 5, the tag, 4 bytes) of 300 */
	n = 0;
	b[n++] = 'R';
	n = put_n(b, n, 5, 8);
	n = put_n(b, n, 83, 4);
	b[n++] = 'P';
	n = put_n(b, n, 6, 2);
	n = put_n(b, n, 0x051600000000ull | 300, 6);
	HGW_CHECK_EQ(n, HGW_OUCH_RESTATED_LEN + 6);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n, 9, &a, &why), 0);
	HGW_CHECK_EQ(a.reason, 'P');
	HGW_CHECK_EQ(a.user_ref, 83);
	HGW_CHECK_EQ(a.has_qty, 1);
	HGW_CHECK_EQ(a.qty, 300);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, n - 1, 9, &a, &why), -1);
	/* another option (Display Price, 23: 8 bytes): no quantity */
	b[HGW_OUCH_RESTATED_LEN - 1] = 10;
	b[HGW_OUCH_RESTATED_LEN] = 9;
	b[HGW_OUCH_RESTATED_LEN + 1] = 23;
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, HGW_OUCH_RESTATED_LEN + 10, 9,
					    &a, &why), 0);
	HGW_CHECK_EQ(a.has_qty, 0);
	/* an option running past the appendage: refused */
	b[HGW_OUCH_RESTATED_LEN] = 10;
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, HGW_OUCH_RESTATED_LEN + 10, 9,
					    &a, &why), -1);
	HGW_CHECK(strcmp(why, "bad appendage") == 0);
	b[HGW_OUCH_RESTATED_LEN] = 0;
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, HGW_OUCH_RESTATED_LEN + 10, 9,
					    &a, &why), -1);
	/* a type OUCH 5.0 has but we do not decode, and nothing at all */
	b[0] = 'T';
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, 20, 10, &a, &why), -1);
	HGW_CHECK(strcmp(why, "unknown type") == 0);
	HGW_CHECK_EQ(hgw_ouch_answer_decode(b, 0, 10, &a, &why), -1);
	/* every prefix of every known type is refused, never read past */
	for (const char *t = "SAUCDEBJPIMR"; *t; t++)
		for (size_t l = 1; l < 10; l++) {
			b[0] = (uint8_t)*t;
			HGW_CHECK_EQ(hgw_ouch_answer_decode(b, l, 1, &a, &why),
				     -1);
		}
}

static void
test_cancel_order(void)
{
	uint8_t b[16];
	static const uint8_t want[9] = { 'X', 0, 0, 0x04, 0xd2, 0, 0, 0, 0 };

	HGW_CHECK_EQ(hgw_ouch_cancel_order(b, 1234, 0), 9);
	HGW_CHECK(memcmp(b, want, 9) == 0);
}

int
main(void)
{
	HGW_TEST(test_reference_checksums);
	HGW_TEST(test_reference_frame);
	HGW_TEST(test_ouch_fields);
	HGW_TEST(test_soupbin);
	HGW_TEST(test_clordid);
	HGW_TEST(test_user_ref);
	HGW_TEST(test_clordid_seq);
	HGW_TEST(test_roundtrip_random);
	HGW_TEST(test_udp_tx_lengths);
	HGW_TEST(test_udp_checksum_zero);
	HGW_TEST(test_decode_flips);
	HGW_TEST(test_decode_refusals);
	HGW_TEST(test_decode_random_corruption);
	HGW_TEST(test_parse_mac);
	HGW_TEST(test_answer_accepted);
	HGW_TEST(test_answer_replaced);
	HGW_TEST(test_answer_small_types);
	HGW_TEST(test_cancel_order);
	return hgw_test_done();
}
