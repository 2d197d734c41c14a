/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: unit tests of the MoldUDP64 re-request and retransmission
 * frames (lib/mold), checked against lib/feed's decoder.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hgw_cksum.h"
#include "hgw_feed.h"
#include "hgw_itch.h"
#include "hgw_mold.h"
#include "hgw_test.h"

#define CLIENT_IP   0x0A000002u     /* 10.0.0.2 */
#define SERVER_IP   0x0A000001u     /* 10.0.0.1 */
#define CLIENT_PORT 40000
#define SERVER_PORT 30000

static const char SESSION[10] = { '0', '0', '0', '0', '0', '4', '2', 'A',
				  'B', 'C' };

/* The client's request: client -> server. */
static const struct hgw_mold_addr to_server = {
	.src_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	.src_ip = CLIENT_IP, .dst_ip = SERVER_IP,
	.src_port = CLIENT_PORT, .dst_port = SERVER_PORT,
};

/* Both checksums of an untagged frame made right again after an edit, so
 * that a test reaches the rule it means to break. */
static void
fix_checksums(uint8_t *f)
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint32_t ulen = hgw_be16(udp + 4);
	uint64_t sum;

	hgw_put_be16(ip + 10, 0);
	hgw_put_be16(ip + 10, (uint16_t)~hgw_cksum_fold(
			     hgw_cksum_add(0, ip, 20)));
	hgw_put_be16(udp + 6, 0);
	sum = hgw_cksum_add(0, ip + 12, 8) + 17 + ulen;
	sum = hgw_cksum_add(sum, udp, ulen);
	hgw_put_be16(udp + 6, (uint16_t)~hgw_cksum_fold(sum));
}

static int
match(const uint8_t *f, uint32_t len)
{
	struct hgw_mold_addr from;
	char s[10];
	uint64_t seq;
	uint16_t count;

	return hgw_mold_request_match(f, len, SERVER_IP, SERVER_PORT, &from, s,
				      &seq, &count);
}

/* A request built is a request matched, with every field back. */
static void
test_request_round_trip(void)
{
	uint8_t f[128], t[132];
	struct hgw_mold_addr from;
	char s[10];
	uint64_t seq = 0;
	uint16_t count = 0;
	uint32_t len;

	len = hgw_mold_request_frame(f, sizeof(f), &to_server, SESSION,
				     1234567890123ull, 77);
	HGW_CHECK_EQ(len, HGW_MOLD_FRAME_HDR_LEN + HGW_MOLD_REQUEST_LEN);
	HGW_CHECK_EQ(len, 62);
	HGW_CHECK_EQ(f[14 + 8], 64);    /* TTL */
	HGW_CHECK_EQ(hgw_be16(f + 12), 0x0800);
	HGW_CHECK(hgw_mold_request_match(f, len, SERVER_IP, SERVER_PORT, &from,
					 s, &seq, &count) == 1);
	HGW_CHECK(memcmp(s, SESSION, 10) == 0);
	HGW_CHECK_EQ(seq, 1234567890123ull);
	HGW_CHECK_EQ(count, 77);
	HGW_CHECK(memcmp(from.src_mac, to_server.src_mac, 6) == 0);
	HGW_CHECK(memcmp(from.dst_mac, to_server.dst_mac, 6) == 0);
	HGW_CHECK_EQ(from.src_ip, CLIENT_IP);
	HGW_CHECK_EQ(from.dst_ip, SERVER_IP);
	HGW_CHECK_EQ(from.src_port, CLIENT_PORT);
	HGW_CHECK_EQ(from.dst_port, SERVER_PORT);
	/* Ethernet padding after the datagram is not part of it */
	memset(f + len, 0xEE, 8);
	HGW_CHECK(match(f, len + 8) == 1);
	/* an 802.1Q tag is accepted */
	memcpy(t, f, 12);
	hgw_put_be16(t + 12, 0x8100);
	hgw_put_be16(t + 14, 141);
	memcpy(t + 16, f + 12, len - 12);
	HGW_CHECK(match(t, len + 4) == 1);
	/* the largest sequence and count */
	len = hgw_mold_request_frame(f, sizeof(f), &to_server, SESSION,
				     UINT64_MAX, UINT16_MAX);
	HGW_CHECK(hgw_mold_request_match(f, len, SERVER_IP, SERVER_PORT, NULL,
					 NULL, &seq, &count) == 1);
	HGW_CHECK_EQ(seq, UINT64_MAX);
	HGW_CHECK_EQ(count, UINT16_MAX);
	/* room: exactly enough, one byte short */
	HGW_CHECK_EQ(hgw_mold_request_frame(f, 62, &to_server, SESSION, 1, 1), 62);
	HGW_CHECK_EQ(hgw_mold_request_frame(f, 61, &to_server, SESSION, 1, 1), 0);
}

/* Everything that is not a well-formed request to us is refused; the
 * ones addressed to us are still seen by hgw_mold_udp_to. */
static void
test_request_refused(void)
{
	uint8_t good[128], f[128];
	uint32_t len;

	len = hgw_mold_request_frame(good, sizeof(good), &to_server, SESSION,
				     10, 5);
	HGW_CHECK(match(good, len) == 1);
	HGW_CHECK(hgw_mold_udp_to(good, len, SERVER_IP, SERVER_PORT) == 1);

	/* someone else's address or port */
	HGW_CHECK(hgw_mold_request_match(good, len, SERVER_IP + 1, SERVER_PORT,
					 NULL, NULL, NULL, NULL) == 0);
	HGW_CHECK(hgw_mold_request_match(good, len, SERVER_IP, SERVER_PORT + 1,
					 NULL, NULL, NULL, NULL) == 0);
	HGW_CHECK(hgw_mold_udp_to(good, len, SERVER_IP + 1, SERVER_PORT) == 0);
	HGW_CHECK(hgw_mold_udp_to(good, len, SERVER_IP, SERVER_PORT + 1) == 0);

	/* truncated anywhere */
	for (uint32_t l = 0; l < len; l++)
		HGW_CHECK(match(good, l) == 0);
	HGW_CHECK(match(NULL, len) == 0);

	/* sequence 0, count 0 (a heartbeat's shape), checksums right */
	len = hgw_mold_request_frame(f, sizeof(f), &to_server, SESSION, 0, 5);
	HGW_CHECK(match(f, len) == 0);
	HGW_CHECK(hgw_mold_udp_to(f, len, SERVER_IP, SERVER_PORT) == 1);
	len = hgw_mold_request_frame(f, sizeof(f), &to_server, SESSION, 10, 0);
	HGW_CHECK(match(f, len) == 0);

	/* payloads of 19 and 21 bytes, lengths and checksums consistent */
	for (int d = -1; d <= 1; d += 2) {
		uint32_t l = 62 + (uint32_t)d;

		memcpy(f, good, 62);
		f[61] = 0;
		hgw_put_be16(f + 14 + 2, (uint16_t)(20 + 8 + 20 + d));
		hgw_put_be16(f + 34 + 4, (uint16_t)(8 + 20 + d));
		fix_checksums(f);
		HGW_CHECK(match(f, l) == 0);
		HGW_CHECK(hgw_mold_udp_to(f, l, SERVER_IP, SERVER_PORT) == 1);
	}
	/* a UDP length that runs past the IPv4 datagram */
	memcpy(f, good, 62);
	hgw_put_be16(f + 34 + 4, 8 + 21);
	HGW_CHECK(match(f, 62) == 0);

	/* bad checksums: IPv4 header, UDP (a payload bit flipped) */
	len = 62;
	memcpy(f, good, len);
	f[14 + 10] ^= 0x01;
	HGW_CHECK(match(f, len) == 0);
	memcpy(f, good, len);
	f[34 + 8 + 19] ^= 0x40;         /* count 5 -> 69 */
	HGW_CHECK(match(f, len) == 0);
	HGW_CHECK(hgw_mold_udp_to(f, len, SERVER_IP, SERVER_PORT) == 1);
	/* no UDP checksum at all is allowed in IPv4 */
	hgw_put_be16(f + 34 + 6, 0);
	HGW_CHECK(match(f, len) == 1);

	/* not UDP, a fragment, not IPv4, IPv4 options are fine */
	memcpy(f, good, len);
	f[14 + 9] = 6;
	fix_checksums(f);
	HGW_CHECK(match(f, len) == 0);
	memcpy(f, good, len);
	hgw_put_be16(f + 14 + 6, 0x2000);       /* more fragments */
	fix_checksums(f);
	HGW_CHECK(match(f, len) == 0);
	memcpy(f, good, len);
	hgw_put_be16(f + 12, 0x86DD);
	HGW_CHECK(match(f, len) == 0);
	HGW_CHECK(hgw_mold_udp_to(f, len, SERVER_IP, SERVER_PORT) == 0);
	memcpy(f, good, len);
	f[14] = 0x46;                           /* a wrong header length */
	HGW_CHECK(match(f, len) == 0);
}

/* An ITCH message of type t (its exact length) with recognisable bytes. */
static uint16_t
itch_msg(uint8_t *m, uint8_t t, uint32_t tag)
{
	uint16_t l = hgw_itch_msg_len[t];

	for (uint16_t i = 0; i < l; i++)
		m[i] = (uint8_t)(tag * 31 + i);
	m[0] = t;
	return l;
}

/* Downstream packets decode with lib/feed into the same messages and
 * sequence numbers; too little room is refused. */
static void
test_packet_round_trip(void)
{
	static const uint8_t types[] = { 'A', 'D', 'S', 'P', 'U', 'E', 'X',
					 'F', 'C', 'I', 'N', 'R' };
	const struct hgw_mold_addr to_client = {
		.src_mac = { 0x02, 0, 0, 0, 0, 0x01 },
		.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
		.src_ip = SERVER_IP, .dst_ip = CLIENT_IP,
		.src_port = SERVER_PORT, .dst_port = CLIENT_PORT,
	};
	struct hgw_feed_conf conf = { .group = CLIENT_IP, .port = CLIENT_PORT,
				      .join_baseline = 1 };
	static uint8_t store[40][64], f[2048];
	const uint8_t *msgs[40];
	uint16_t lens[40];
	struct hgw_feed dec;
	uint64_t seq = 500;
	uint32_t len, want;

	HGW_CHECK(hgw_feed_init(&dec, &conf) == 0);
	/* three packets of 40, 1 and 13 messages, numbered on from 500 */
	for (int pkt = 0; pkt < 3; pkt++) {
		uint16_t n = pkt == 0 ? 40 : pkt == 1 ? 1 : 13;
		struct hgw_feed_pkt p;
		const uint8_t *m;
		uint16_t ml, got = 0;

		want = HGW_MOLD_FRAME_HDR_LEN + HGW_MOLD_HDR_LEN;
		for (uint16_t i = 0; i < n; i++) {
			lens[i] = itch_msg(store[i], types[(i + pkt) % sizeof(types)],
					   (uint32_t)(seq + i));
			msgs[i] = store[i];
			want += 2u + lens[i];
		}
		len = hgw_mold_packet_frame(f, sizeof(f), &to_client, SESSION,
					    seq, msgs, lens, n);
		HGW_CHECK_EQ(len, want);
		HGW_CHECK(memcmp(f, to_client.dst_mac, 6) == 0);
		HGW_CHECK(memcmp(f + 6, to_client.src_mac, 6) == 0);
		HGW_CHECK_EQ(hgw_feed_packet(&dec, f, len, &p), n);
		HGW_CHECK_EQ(p.seq, seq);
		HGW_CHECK_EQ(dec.stats.gaps, 0);
		HGW_CHECK(memcmp(dec.sessions[p.session].name, SESSION, 10) == 0);
		while ((m = hgw_feed_next(&dec, &p, &ml)) != NULL) {
			HGW_CHECK(got < n);
			if (got >= n)
				break;
			HGW_CHECK_EQ(p.seq - 1, seq + got);
			HGW_CHECK_EQ(ml, lens[got]);
			HGW_CHECK(memcmp(m, msgs[got], ml) == 0);
			got++;
		}
		HGW_CHECK_EQ(got, n);
		seq += n;
	}
	HGW_CHECK_EQ(hgw_feed_drops_total(&dec.stats), 0);

	/* a heartbeat: no message, next sequence */
	len = hgw_mold_packet_frame(f, sizeof(f), &to_client, SESSION, seq,
				    NULL, NULL, 0);
	HGW_CHECK_EQ(len, 62);
	{
		struct hgw_feed_pkt p;

		HGW_CHECK_EQ(hgw_feed_packet(&dec, f, len, &p), 0);
		HGW_CHECK_EQ(dec.stats.heartbeats, 1);
	}
	/* room: exactly enough, one byte short (and nothing written) */
	lens[0] = itch_msg(store[0], 'A', 1);
	msgs[0] = store[0];
	want = 62 + 2 + 36;
	HGW_CHECK_EQ(hgw_mold_packet_frame(f, want, &to_client, SESSION, 1,
					   msgs, lens, 1), want);
	memset(f, 0x5A, sizeof(f));
	HGW_CHECK_EQ(hgw_mold_packet_frame(f, want - 1, &to_client, SESSION, 1,
					   msgs, lens, 1), 0);
	HGW_CHECK_EQ(f[0], 0x5A);
	/* more than one IPv4 datagram holds, whatever the room */
	{
		static uint8_t big[70000];
		static const uint8_t *bm[2];
		uint16_t bl[2] = { 40000, 40000 };

		bm[0] = bm[1] = big;
		HGW_CHECK_EQ(hgw_mold_packet_frame(big, sizeof(big), &to_client,
						   SESSION, 1, bm, bl, 2), 0);
	}
}

/* A retransmission is not a request, and a request is not data. */
static void
test_kinds_apart(void)
{
	struct hgw_feed_conf conf = { .group = SERVER_IP, .port = SERVER_PORT };
	uint8_t f[128];
	struct hgw_feed dec;
	struct hgw_feed_pkt p;
	uint32_t len;

	len = hgw_mold_request_frame(f, sizeof(f), &to_server, SESSION, 7, 3);
	/* to a decoder it is a heartbeat-sized header claiming 3 blocks */
	hgw_feed_init(&dec, &conf);
	HGW_CHECK(hgw_feed_packet(&dec, f, len, &p) < 0);
	HGW_CHECK_EQ(hgw_feed_reason(hgw_feed_packet(&dec, f, len, &p)),
		     HGW_FEED_DROP_MOLD_TRUNCATED);
}

/* Sizes are summed in 64 bits: 65,535 blocks of 65,535 bytes add up to
 * 20 + 65,535 x 65,537 = 2^32 + 19, which a 32-bit sum wraps to 19 bytes
 * that "fit", and then writes 4 GiB. Refused, nothing written. */
static void
test_packet_size_overflow(void)
{
	static uint8_t msg[65535];
	const uint8_t **msgs = calloc(65535, sizeof(*msgs));
	uint16_t *lens = calloc(65535, sizeof(*lens));
	uint8_t f[256];

	HGW_CHECK(msgs != NULL && lens != NULL);
	for (uint32_t i = 0; i < 65535; i++) {
		msgs[i] = msg;
		lens[i] = 65535;
	}
	memset(f, 0xA5, sizeof(f));
	HGW_CHECK_EQ(hgw_mold_packet_frame(f, sizeof(f), &to_server, SESSION,
					   1, msgs, lens, 65535), 0);
	HGW_CHECK_EQ(f[0], 0xA5);
	HGW_CHECK_EQ(f[sizeof(f) - 1], 0xA5);
	free(msgs);
	free(lens);
}

int
main(void)
{
	HGW_TEST(test_request_round_trip);
	HGW_TEST(test_request_refused);
	HGW_TEST(test_packet_round_trip);
	HGW_TEST(test_kinds_apart);
	HGW_TEST(test_packet_size_overflow);
	return hgw_test_done();
}
