/* SPDX-License-Identifier: BSD-3-Clause
 * lib/vgate: the relay datagrams' bytes (docs/venue.md "Venue session",
 * "Downstream mode"), the sliding rate window, the open-order table
 * following the venue's answers, the state file's floor across maps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hgw_order.h"
#include "hgw_test.h"
#include "hgw_vgate.h"

/* SipHash-2-4 against the paper's test vectors (Aumasson, Bernstein,
 * "SipHash: a fast short-input PRF", appendix A): key 00 01 .. 0f,
 * message 00 01 .. (n-1). */
static void
test_siphash(void)
{
	const struct hgw_relay_key k = { 0x0706050403020100ull,
					 0x0f0e0d0c0b0a0908ull };
	uint8_t m[64];

	for (int i = 0; i < 64; i++)
		m[i] = (uint8_t)i;
	HGW_CHECK_EQ(hgw_siphash24(&k, m, 0), 0x726fdb47dd0e0e31ull);
	HGW_CHECK_EQ(hgw_siphash24(&k, m, 15), 0xa129ca6149be45e5ull);
}

static const struct hgw_relay_key tkey = { 0x1111, 0x2222 };

static void
test_relay_bytes(void)
{
	uint8_t buf[64], body[4] = { 0, 0, 0, 7 };
	const uint8_t *b;
	uint64_t rseq;
	uint8_t type;
	size_t n = hgw_relay_put(buf, &tkey, 0x0102030405060708ull, 'K', body,
				 4), blen;
	static const uint8_t want[] = { 'H', 'G', 'W', 'R', 1, 2, 3, 4, 5, 6,
					7, 8, 0, 13, 'K', 0, 0, 0, 7 };

	HGW_CHECK_EQ(n, sizeof(want) + 8);
	HGW_CHECK(memcmp(buf, want, sizeof(want)) == 0);
	HGW_CHECK_EQ(hgw_vgate_get_be(buf + sizeof(want), 8),
		     hgw_siphash24(&tkey, buf, sizeof(want)));
	HGW_CHECK_EQ(hgw_relay_get(buf, n, &rseq, &type, &b, &blen), 0);
	HGW_CHECK_EQ(rseq, 0x0102030405060708ull);
	HGW_CHECK_EQ(type, 'K');
	HGW_CHECK_EQ(blen, 4);
	HGW_CHECK(b == buf + 15);
	/* a length that disagrees with the datagram, one without room for
	 * the tag, no magic */
	HGW_CHECK_EQ(hgw_relay_get(buf, n - 1, &rseq, &type, &b, &blen), -1);
	HGW_CHECK_EQ(hgw_relay_get(buf, n + 1, &rseq, &type, &b, &blen), -1);
	buf[12] = 0;
	buf[13] = 8;
	HGW_CHECK_EQ(hgw_relay_get(buf, 22, &rseq, &type, &b, &blen), -1);
	buf[0] = 'X';
	HGW_CHECK_EQ(hgw_relay_get(buf, n, &rseq, &type, &b, &blen), 1);
	HGW_CHECK_EQ(hgw_relay_get(buf, 3, &rseq, &type, &b, &blen), 1);
}

static void
test_relay_udp(void)
{
	struct hgw_udp_tx t;
	uint8_t f[128], body[2] = { 1, 2 };
	const uint8_t *p;
	size_t n, plen;

	memset(&t, 0, sizeof(t));
	t.src_ip = 0x0a020001;
	t.dst_ip = 0x0a020002;
	t.src_port = 40000;
	t.dst_port = 40001;
	hgw_udp_tx_init(&t);
	n = hgw_relay_put(f + HGW_UDP_TX_HDR_LEN, &tkey, 1, 'A', body, 2);
	n = hgw_udp_tx_frame(&t, f, n);
	HGW_CHECK_EQ(hgw_relay_udp_payload(f, n, &p, &plen), 0);
	HGW_CHECK(p == f + HGW_UDP_TX_HDR_LEN);
	HGW_CHECK_EQ(plen, 25);
	/* cut short: the UDP length runs past the frame */
	HGW_CHECK_EQ(hgw_relay_udp_payload(f, n - 1, &p, &plen), -1);
	f[23] = 6;      /* TCP */
	HGW_CHECK_EQ(hgw_relay_udp_payload(f, n, &p, &plen), -1);
}

/* The receiving end as both apps use it (hgw_relay_rx): hgw-dedup's
 * datagrams to hedgewire, honest and forged. */
static const uint8_t peer_mac[6] = { 2, 0, 0, 0, 0, 2 };
static const uint8_t our_mac[6] = { 2, 0, 0, 0, 0, 1 };

/* A relay datagram from (src_mac, src_ip, src_port) to us, tagged under
 * k; the frame's length. */
static size_t
frame(uint8_t *f, const uint8_t *src_mac, uint32_t src_ip, uint16_t src_port,
      uint16_t dst_port, const struct hgw_relay_key *k, uint64_t rseq,
      uint8_t type, const uint8_t *body, size_t blen)
{
	struct hgw_udp_tx t;

	memset(&t, 0, sizeof(t));
	memcpy(t.src_mac, src_mac, 6);
	memcpy(t.dst_mac, our_mac, 6);
	t.src_ip = src_ip;
	t.dst_ip = 0x0a020001;
	t.src_port = src_port;
	t.dst_port = dst_port;
	hgw_udp_tx_init(&t);
	return hgw_udp_tx_frame(&t, f, hgw_relay_put(f + HGW_UDP_TX_HDR_LEN,
						     k, rseq, type, body,
						     blen));
}

#define HONEST(rs, ty, b, bl)                                               \
	frame(f, peer_mac, 0x0a020002, 40001, 40000, &rx.key, rs, ty, b, bl)
#define RX() hgw_relay_rx(&rx, f, n, &rseq, &type, &body, &blen)

static void
test_relay_rx(void)
{
	struct hgw_relay_rx rx;
	struct hgw_relay_key other, back;
	uint8_t f[256], u[17] = { 'A', 'B', 'C', 'D', 0, 0, 0, 0, 0, 0, 0, 9,
				  0, 0, 0, 5, 0 };
	const uint8_t *body;
	uint64_t rseq;
	uint8_t type;
	size_t n, blen;

	memset(&rx, 0, sizeof(rx));
	hgw_relay_key_derive(&rx.key, HGW_RELAY_TO_HEDGEWIRE, "U", "P", "S");
	hgw_relay_rx_peer(&rx, peer_mac, 0x0a020002, 40001, 0x0a020001, 40000);
	/* the same login derives the same key; another password, the other
	 * direction another */
	hgw_relay_key_derive(&other, HGW_RELAY_TO_HEDGEWIRE, "U", "P", "S");
	HGW_CHECK(other.k0 == rx.key.k0 && other.k1 == rx.key.k1);
	hgw_relay_key_derive(&other, HGW_RELAY_TO_HEDGEWIRE, "U", "Q", "S");
	HGW_CHECK(other.k0 != rx.key.k0 && other.k1 != rx.key.k1);
	hgw_relay_key_derive(&back, HGW_RELAY_TO_DEDUP, "U", "P", "S");
	HGW_CHECK(back.k0 != rx.key.k0);

	/* honest: taken */
	n = HONEST(1, 'A', u, 4);
	HGW_CHECK_EQ(RX(), 0);
	HGW_CHECK_EQ(rseq, 1);
	HGW_CHECK_EQ(type, 'A');
	HGW_CHECK_EQ(blen, 4);
	/* not a relay datagram at all: 1, not counted */
	f[HGW_UDP_TX_HDR_LEN] = 'X';
	HGW_CHECK_EQ(RX(), 1);

	/* from elsewhere, each address in turn, under the right key */
	n = frame(f, our_mac, 0x0a020002, 40001, 40000, &rx.key, 2, 'u', u, 17);
	HGW_CHECK_EQ(RX(), -1);
	n = frame(f, peer_mac, 0x0a020003, 40001, 40000, &rx.key, 2, 'u', u, 17);
	HGW_CHECK_EQ(RX(), -1);
	n = frame(f, peer_mac, 0x0a020002, 40002, 40000, &rx.key, 2, 'u', u, 17);
	HGW_CHECK_EQ(RX(), -1);
	n = frame(f, peer_mac, 0x0a020002, 40001, 40009, &rx.key, 2, 'u', u, 17);
	HGW_CHECK_EQ(RX(), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_PEER], 4);

	/* from the peer's addresses, a forged 'u': another key, the other
	 * direction's (a reflected 'K'), and an honest one altered */
	n = frame(f, peer_mac, 0x0a020002, 40001, 40000, &other, 2, 'u', u, 17);
	HGW_CHECK_EQ(RX(), -1);
	n = frame(f, peer_mac, 0x0a020002, 40001, 40000, &back, 2, 'K', u, 4);
	HGW_CHECK_EQ(RX(), -1);
	n = HONEST(2, 'u', u, 17);
	f[HGW_UDP_TX_HDR_LEN + 15 + 15] ^= 1;           /* the UserRefNum */
	HGW_CHECK_EQ(RX(), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_KEY], 3);
	/* cut short (the UDP length agrees, the relay length does not) */
	n = HONEST(2, 'u', u, 17);
	f[HGW_UDP_TX_HDR_LEN + 13]++;
	HGW_CHECK_EQ(RX(), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_MALFORMED], 1);

	/* under the key, numbered 2^64-1: not the high-water mark */
	n = HONEST(UINT64_MAX, 'S', u, 9);
	HGW_CHECK_EQ(RX(), -1);
	n = HONEST(1 + HGW_RELAY_WINDOW + 1, 'S', u, 9);
	HGW_CHECK_EQ(RX(), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_AHEAD], 2);
	HGW_CHECK_EQ(rx.last, 1);
	/* nothing above was taken: the next honest one is */
	n = HONEST(2, 'u', u, 17);
	HGW_CHECK_EQ(RX(), 0);
	HGW_CHECK_EQ(rseq, 2);
	/* a repeat of it, and of the first */
	HGW_CHECK_EQ(RX(), -1);
	n = HONEST(1, 'A', u, 4);
	HGW_CHECK_EQ(RX(), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_OLD], 2);
	/* the window's far edge is inside */
	n = HONEST(2 + HGW_RELAY_WINDOW, 'A', u, 4);
	HGW_CHECK_EQ(RX(), 0);
	HGW_CHECK_EQ(rx.last, 2 + HGW_RELAY_WINDOW);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_PEER], 4);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_KEY], 3);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_MALFORMED], 1);
}

/* A hello from (src_mac, src_ip, src_port) under k; the frame's length. */
static size_t
hello_frame(uint8_t *f, const uint8_t *src_mac, uint32_t src_ip,
	    const struct hgw_relay_key *k, uint8_t kind, const uint8_t *nonces,
	    size_t nn)
{
	struct hgw_udp_tx t;

	memset(&t, 0, sizeof(t));
	memcpy(t.src_mac, src_mac, 6);
	memcpy(t.dst_mac, our_mac, 6);
	t.src_ip = src_ip;
	t.dst_ip = 0x0a020001;
	t.src_port = 40001;
	t.dst_port = 40000;
	hgw_udp_tx_init(&t);
	return hgw_udp_tx_frame(&t, f, hgw_relay_hello_put(
		f + HGW_UDP_TX_HDR_LEN, k, kind, nonces, nn));
}

/* The run's keys: both ends derive the same from the login's and the
 * two nonces; other nonces (an earlier run) give others, so a datagram
 * of that run fails the tag; a hello is taken only from the peer under
 * the login's key, and a message queued before the keys is tagged again
 * under them. */
static void
test_relay_run_keys(void)
{
	struct hgw_relay_key login, login2, run, run2, run3;
	struct hgw_relay_rx rx;
	uint8_t nh[HGW_RELAY_NONCE], nd[HGW_RELAY_NONCE], n2[32], got[32];
	uint8_t f[256], u[4] = { 0, 0, 0, 1 }, kind;
	const uint8_t *body;
	uint64_t rseq;
	uint8_t type;
	size_t n, blen, nn;

	for (int i = 0; i < HGW_RELAY_NONCE; i++) {
		nh[i] = (uint8_t)i;
		nd[i] = (uint8_t)(100 + i);
	}
	hgw_relay_key_derive(&login, HGW_RELAY_TO_HEDGEWIRE, "U", "P", "S");
	hgw_relay_key_derive(&login2, HGW_RELAY_TO_HEDGEWIRE, "U", "P", "S");
	hgw_relay_key_run(&run, &login, nh, nd);
	hgw_relay_key_run(&run2, &login2, nh, nd);
	HGW_CHECK(run.k0 == run2.k0 && run.k1 == run2.k1);
	HGW_CHECK(run.k0 != login.k0 && run.k1 != login.k1);
	nd[3] ^= 1;                     /* an earlier run: other nonces */
	hgw_relay_key_run(&run3, &login, nh, nd);
	HGW_CHECK(run3.k0 != run.k0 && run3.k1 != run.k1);
	nd[3] ^= 1;

	memset(&rx, 0, sizeof(rx));
	rx.key = run;
	hgw_relay_rx_peer(&rx, peer_mac, 0x0a020002, 40001, 0x0a020001, 40000);
	/* a datagram of the earlier run, replayed: dropped (tag) */
	n = frame(f, peer_mac, 0x0a020002, 40001, 40000, &run3, 1, 'A', u, 4);
	HGW_CHECK_EQ(RX(), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_KEY], 1);
	/* this run's: taken; under the login's key alone: dropped */
	n = frame(f, peer_mac, 0x0a020002, 40001, 40000, &run, 1, 'A', u, 4);
	HGW_CHECK_EQ(RX(), 0);
	n = frame(f, peer_mac, 0x0a020002, 40001, 40000, &login, 2, 'A', u, 4);
	HGW_CHECK_EQ(RX(), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_KEY], 2);

	/* hellos: the answer's nonces come out as sent */
	memcpy(n2, nh, 16);
	memcpy(n2 + 16, nd, 16);
	n = hello_frame(f, peer_mac, 0x0a020002, &login, 'h', n2, 32);
	HGW_CHECK_EQ(hgw_relay_hello_rx(&rx, &login, f, n, &kind, got, &nn), 0);
	HGW_CHECK_EQ(kind, 'h');
	HGW_CHECK_EQ(nn, 32);
	HGW_CHECK(memcmp(got, n2, 32) == 0);
	/* a relay datagram is no hello, nor a hello a relay datagram */
	HGW_CHECK_EQ(RX(), 1);
	n = frame(f, peer_mac, 0x0a020002, 40001, 40000, &run, 3, 'A', u, 4);
	HGW_CHECK_EQ(hgw_relay_hello_rx(&rx, &login, f, n, &kind, got, &nn), 1);
	/* from elsewhere, under another key, altered, cut: dropped */
	n = hello_frame(f, our_mac, 0x0a020002, &login, 'h', n2, 32);
	HGW_CHECK_EQ(hgw_relay_hello_rx(&rx, &login, f, n, &kind, got, &nn), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_PEER], 1);
	n = hello_frame(f, peer_mac, 0x0a020002, &run, 'h', n2, 32);
	HGW_CHECK_EQ(hgw_relay_hello_rx(&rx, &login, f, n, &kind, got, &nn), -1);
	n = hello_frame(f, peer_mac, 0x0a020002, &login, 'h', n2, 32);
	f[HGW_UDP_TX_HDR_LEN + 20] ^= 1;
	HGW_CHECK_EQ(hgw_relay_hello_rx(&rx, &login, f, n, &kind, got, &nn), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_KEY], 4);
	n = hello_frame(f, peer_mac, 0x0a020002, &login, 'h', n2, 31);
	HGW_CHECK_EQ(hgw_relay_hello_rx(&rx, &login, f, n, &kind, got, &nn), -1);
	HGW_CHECK_EQ(rx.drops[HGW_RELAY_DROP_MALFORMED], 1);

	/* queued under no key, tagged again under the run's: taken */
	n = frame(f, peer_mac, 0x0a020002, 40001, 40000, &login, 4, 'A', u, 4);
	hgw_relay_retag(f + HGW_UDP_TX_HDR_LEN, n - HGW_UDP_TX_HDR_LEN, &run);
	HGW_CHECK_EQ(RX(), 0);
	HGW_CHECK_EQ(rseq, 4);
}

static void
test_window(void)
{
	uint64_t times[3];
	uint32_t head = 0, n = 0;

	/* 3 a second (hz 1000): the 4th within the second is refused, the
	 * one a second after the first goes */
	for (uint64_t t = 0; t < 3; t++) {
		HGW_CHECK(!hgw_vgate_window_full(times, head, n, 3, t * 10,
						 1000));
		hgw_vgate_window_add(times, &head, &n, 3, t * 10);
	}
	HGW_CHECK(hgw_vgate_window_full(times, head, n, 3, 999, 1000));
	HGW_CHECK(!hgw_vgate_window_full(times, head, n, 3, 1000, 1000));
	hgw_vgate_window_add(times, &head, &n, 3, 1000);
	HGW_CHECK(hgw_vgate_window_full(times, head, n, 3, 1009, 1000));
	HGW_CHECK(!hgw_vgate_window_full(times, head, n, 3, 1010, 1000));
}

static void
test_open_answers(void)
{
	struct hgw_venue_open open[3] = {
		{ .user_ref = 5, .qty = 100, .entered = 100 },
		{ .user_ref = 9, .qty = 100, .entered = 100 },
		{ .user_ref = 12, .qty = 100, .cancel_sent = 1, .entered = 100 },
	};
	struct hgw_vgate_lie_rec l;
	struct hgw_ouch_answer a;
	uint64_t c = 0, cq = 0;
	uint32_t n = 3;

	memset(&a, 0, sizeof(a));
	a.type = HGW_OUCH_ACCEPTED;
	a.user_ref = 9;
	a.qty = 80;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	HGW_CHECK_EQ(open[1].qty, 80);
	a.type = HGW_OUCH_EXECUTED;
	a.qty = 30;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	HGW_CHECK_EQ(open[1].qty, 50);
	/* restated, showing no more than was entered: nothing changes */
	a.type = HGW_OUCH_RESTATED;
	a.qty = 100;
	a.has_qty = 1;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	HGW_CHECK_EQ(open[1].qty, 50);
	a.has_qty = 0;
	/* an IOC's remainder cancelled by the venue while the kill's
	 * Cancel Order was on its way: not the answer to it */
	a.type = HGW_OUCH_CANCELED;
	a.user_ref = 12;
	a.qty = 40;
	a.reason = 'I';
	hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l);
	HGW_CHECK_EQ(open[2].qty, 60);
	HGW_CHECK_EQ(c, 0);
	a.qty = 60;
	a.reason = HGW_OUCH_CANCEL_USER;
	hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l);
	HGW_CHECK_EQ(open[2].qty, 0);
	HGW_CHECK_EQ(c, 1);
	HGW_CHECK_EQ(cq, 60);
	a.reason = 0;
	a.type = HGW_OUCH_REJECTED;
	a.user_ref = 5;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	HGW_CHECK_EQ(open[0].qty, 0);
	/* a Canceled for what is not open moves no shares of ours */
	a.type = HGW_OUCH_CANCELED;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	hgw_vgate_open_compact(open, &n);
	HGW_CHECK_EQ(n, 1);
	HGW_CHECK_EQ(open[0].user_ref, 9);
	HGW_CHECK(hgw_vgate_open_find(open, n, 9) == &open[0]);
	HGW_CHECK(hgw_vgate_open_find(open, n, 12) == NULL);
}

/* Each answer that contradicts what was sent, named with both sides. */
static void
test_open_lies(void)
{
	struct hgw_venue_open open[2];
	struct hgw_vgate_lie_rec l;
	struct hgw_ouch_answer a;
	uint64_t c = 0, cq = 0;
	uint32_t n = 2;
	const struct {
		uint8_t type, reason;           /* a first answer, or 0 */
		uint32_t qty;
		uint8_t lie_type;               /* then this one */
		uint32_t user_ref, orig, lie_qty;
		uint32_t want;
		uint64_t ours, theirs;
	} cases[] = {
		/* never sent */
		{ 0, 0, 0, HGW_OUCH_EXECUTED, 6, 0, 10,
		  HGW_VGATE_LIE_NOT_OPEN, 0, 10 },
		/* accepted dead, then executed */
		{ HGW_OUCH_ACCEPTED, 'D', 100, HGW_OUCH_EXECUTED, 5, 0, 10,
		  HGW_VGATE_LIE_NOT_OPEN, 0, 10 },
		/* accepted for 0 */
		{ HGW_OUCH_ACCEPTED, 'L', 0, HGW_OUCH_EXECUTED, 5, 0, 1,
		  HGW_VGATE_LIE_NOT_OPEN, 0, 1 },
		/* modified to 0 */
		{ HGW_OUCH_MODIFIED, 0, 0, HGW_OUCH_EXECUTED, 5, 0, 1,
		  HGW_VGATE_LIE_NOT_OPEN, 0, 1 },
		/* filled, then filled again */
		{ HGW_OUCH_EXECUTED, 0, 100, HGW_OUCH_EXECUTED, 5, 0, 1,
		  HGW_VGATE_LIE_NOT_OPEN, 0, 1 },
		/* more executed than open */
		{ HGW_OUCH_EXECUTED, 0, 40, HGW_OUCH_EXECUTED, 5, 0, 61,
		  HGW_VGATE_LIE_OVERFILL, 60, 61 },
		/* accepted or modified for more than entered */
		{ 0, 0, 0, HGW_OUCH_ACCEPTED, 5, 0, 101,
		  HGW_VGATE_LIE_OVER_ENTERED, 100, 101 },
		{ 0, 0, 0, HGW_OUCH_MODIFIED, 5, 0, 200,
		  HGW_VGATE_LIE_OVER_ENTERED, 100, 200 },
		/* restated with a shown quantity above the one entered */
		{ 0, 0, 0, HGW_OUCH_RESTATED, 5, 0, 101,
		  HGW_VGATE_LIE_OVER_ENTERED, 100, 101 },
		/* modified to more than entered less filled (100 - 60) */
		{ HGW_OUCH_EXECUTED, 0, 60, HGW_OUCH_MODIFIED, 5, 0, 41,
		  HGW_VGATE_LIE_OVER_ENTERED, 40, 41 },
		/* accepted for an order never sent */
		{ 0, 0, 0, HGW_OUCH_ACCEPTED, 7, 0, 100,
		  HGW_VGATE_LIE_NOT_OPEN, 0, 100 },
		/* replaced (never asked for), into a UserRefNum to come */
		{ 0, 0, 0, HGW_OUCH_REPLACED, 50, 5, 30,
		  HGW_VGATE_LIE_REPLACED, 100, 30 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		open[0] = (struct hgw_venue_open){ .user_ref = 5, .qty = 100,
						   .entered = 100 };
		open[1] = (struct hgw_venue_open){ .user_ref = 8, .qty = 100,
						   .entered = 100 };
		memset(&a, 0, sizeof(a));
		if (cases[k].type != 0) {
			a.type = cases[k].type;
			a.reason = cases[k].reason;
			a.user_ref = 5;
			a.qty = cases[k].qty;
			HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c,
							   &cq, &l),
				     HGW_VGATE_LIE_NONE);
		}
		memset(&a, 0, sizeof(a));
		a.type = cases[k].lie_type;
		a.seq = 1000 + k;
		a.user_ref = cases[k].user_ref;
		a.orig_user_ref = cases[k].orig;
		a.qty = cases[k].lie_qty;
		a.has_qty = 1;
		memset(&l, 0xa5, sizeof(l));
		HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
			     cases[k].want);
		HGW_CHECK_EQ(l.lie, cases[k].want);
		HGW_CHECK_EQ(l.seq, 1000 + k);
		HGW_CHECK_EQ(l.type, cases[k].lie_type);
		HGW_CHECK_EQ(l.user_ref, cases[k].user_ref);
		HGW_CHECK_EQ(l.ours, cases[k].ours);
		HGW_CHECK_EQ(l.theirs, cases[k].theirs);
		/* the other order is untouched */
		HGW_CHECK_EQ(open[1].qty, 100);
	}
	/* accepted, 60 filled, accepted again for 100 (which would open
	 * again what filled): a lie, named with what is open */
	open[0] = (struct hgw_venue_open){ .user_ref = 5, .qty = 100,
					   .entered = 100 };
	memset(&a, 0, sizeof(a));
	a.user_ref = 5;
	a.type = HGW_OUCH_ACCEPTED;
	a.qty = 100;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	a.type = HGW_OUCH_EXECUTED;
	a.qty = 60;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	a.type = HGW_OUCH_ACCEPTED;
	a.qty = 100;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_ACCEPTED_AGAIN);
	HGW_CHECK_EQ(l.ours, 40);
	HGW_CHECK_EQ(l.theirs, 100);
	/* an earlier run's order (at or below the floor this run started
	 * from) is not checked; a Replaced always is */
	open[0] = (struct hgw_venue_open){ .user_ref = 5, .qty = 100,
					   .entered = 100 };
	memset(&a, 0, sizeof(a));
	a.type = HGW_OUCH_EXECUTED;
	a.user_ref = 4;
	a.qty = 10;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 4, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 3, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NOT_OPEN);
	a.type = HGW_OUCH_REPLACED;
	a.orig_user_ref = 3;
	HGW_CHECK_EQ(hgw_vgate_open_answer(open, n, 4, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_REPLACED);
	HGW_CHECK(strcmp(hgw_vgate_lie_name(HGW_VGATE_LIE_OVERFILL),
			 "executes more than is open") == 0);
	HGW_CHECK(strcmp(hgw_vgate_lie_name(99), "?") == 0);
}

static void
test_state_floor(void)
{
	char path[] = "/tmp/hgw-vgate-XXXXXX", err[300];
	struct hgw_venue_state *st;
	uint64_t floor = 99;
	int fd = mkstemp(path);

	HGW_CHECK(fd >= 0);
	close(fd);
	st = hgw_vgate_state_map(path, &floor, err, sizeof(err));
	HGW_CHECK(st != NULL);
	if (st == NULL)
		return;
	HGW_CHECK_EQ(floor, 0);
	atomic_store_explicit(&st->last_user_ref, 1234, memory_order_relaxed);
	hgw_vgate_state_unmap(st);
	st = hgw_vgate_state_map(path, &floor, err, sizeof(err));
	HGW_CHECK(st != NULL);
	HGW_CHECK_EQ(floor, 1234);
	if (st != NULL) {
		struct hgw_venue_open op[2] = { { .user_ref = 7, .qty = 5 },
						{ .user_ref = 8, .qty = 0 } };

		/* nothing sent earlier today: nothing may be open */
		HGW_CHECK_EQ(hgw_vgate_state_start(st, 0, 0), 0);
		/* a run that never stopped cleanly: open unless the venue
		 * cancelled on the disconnect */
		HGW_CHECK_EQ(hgw_vgate_state_start(st, 1234, 0), 1);
		HGW_CHECK_EQ(hgw_vgate_state_start(st, 1234, 1), 0);
		/* a clean stop (Logout) with one order open: open whatever
		 * cancel_on_disconnect says; with none open: none */
		hgw_vgate_state_end(st, op, 2);
		HGW_CHECK_EQ(hgw_vgate_state_start(st, 1234, 1), 1);
		op[0].qty = 0;
		hgw_vgate_state_end(st, op, 2);
		HGW_CHECK_EQ(hgw_vgate_state_start(st, 1234, 0), 0);
	}
	hgw_vgate_state_unmap(st);
	/* not a state file: refused, naming it */
	HGW_CHECK(truncate(path, 100) == 0);
	HGW_CHECK(hgw_vgate_state_map(path, &floor, err, sizeof(err)) == NULL);
	HGW_CHECK(strstr(err, path) != NULL);
	unlink(path);
}

/* The gate both senders share (hgw_vgate_admit, commit, unopen, sent):
 * each reason in its order, the caps by the clock, the floor moving on a
 * commit and staying after an unopen, the open table compacted when
 * full. */
/* A kill's sweep and the cancels it still owes: every open order from
 * the first again; a Canceled closes one, a Cancel Reject answers one
 * and leaves it open; a venue that cancels on disconnect owes nothing
 * for an earlier login's orders. */
static void
test_sweep_owed(void)
{
	struct hgw_vgate_gate g;
	struct hgw_vgate_lie_rec l;
	struct hgw_ouch_answer a;
	uint64_t c = 0, cq = 0;

	HGW_CHECK_EQ(hgw_vgate_gate_init(&g, 0, 0, 0, 4, 1000, 0), 0);
	HGW_CHECK_EQ(hgw_vgate_gate_sweep(&g, 0), 0);      /* none open */
	for (uint32_t ref = 1; ref <= 3; ref++)
		hgw_vgate_commit(&g, ref, 5)->login = ref < 3 ? 1 : 2;
	g.cancel_next = 2;
	/* a venue that cancels on disconnect: login 2's order is owed, none
	 * once the session is down after login 2 (the next is 3) */
	HGW_CHECK_EQ(hgw_vgate_cod_login(1, 2, 1), 2);
	HGW_CHECK_EQ(hgw_vgate_cod_login(1, 2, 0), 3);
	HGW_CHECK_EQ(hgw_vgate_cod_login(0, 2, 0), 0);
	HGW_CHECK_EQ(hgw_vgate_gate_sweep(&g, 2), 1);
	HGW_CHECK_EQ(hgw_vgate_gate_sweep(&g, 3), 0);
	HGW_CHECK_EQ(hgw_vgate_gate_sweep(&g, 0), 1);
	HGW_CHECK_EQ(g.cancel_next, 0);
	HGW_CHECK_EQ(hgw_vgate_gate_owed(&g, 0), 0);    /* none sent yet */
	for (uint32_t i = 0; i < 3; i++)
		g.open[i].cancel_sent = 1;
	HGW_CHECK_EQ(hgw_vgate_gate_owed(&g, 0), 3);
	HGW_CHECK_EQ(hgw_vgate_gate_owed(&g, 2), 1);    /* login 2's only */
	memset(&a, 0, sizeof(a));
	a.type = HGW_OUCH_CANCELED;
	a.reason = HGW_OUCH_CANCEL_USER;
	a.user_ref = 1;
	a.qty = 5;
	HGW_CHECK_EQ(hgw_vgate_open_answer(g.open, g.open_n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	HGW_CHECK(g.open[0].qty == 0 && c == 1 && cq == 5);
	HGW_CHECK_EQ(hgw_vgate_gate_owed(&g, 0), 2);
	a.type = HGW_OUCH_CANCEL_REJECT;
	a.user_ref = 2;
	a.qty = 0;
	HGW_CHECK_EQ(hgw_vgate_open_answer(g.open, g.open_n, 0, &a, &c, &cq, &l),
		     HGW_VGATE_LIE_NONE);
	HGW_CHECK(g.open[1].qty == 5 && !g.open[1].cancel_sent);
	HGW_CHECK_EQ(hgw_vgate_gate_owed(&g, 0), 1);
	/* a sweep again (a session lost): the done one compacted away,
	 * the other two swept */
	HGW_CHECK_EQ(hgw_vgate_gate_sweep(&g, 0), 1);
	HGW_CHECK(g.open_n == 2 && g.open[0].user_ref == 2);
	g.open[0].qty = g.open[1].qty = 0;
	HGW_CHECK_EQ(hgw_vgate_gate_sweep(&g, 0), 0);
	HGW_CHECK_EQ(hgw_vgate_gate_owed(&g, 0), 0);
	hgw_vgate_gate_fini(&g);
}

static void
test_gate(void)
{
	const uint64_t hz = 1000;       /* ticks a second */
	const uint64_t sa = 0x4141414141414141ull, sb = 0x4242424242424242ull,
		       sc = 0x4343434343434343ull;
	struct hgw_vgate_gate g;
	struct hgw_venue_sym *y;
	struct hgw_venue_open *o;
	uint32_t ref = 100;

	HGW_CHECK_EQ(hgw_vgate_gate_init(&g, 3, 2, 3, 4, hz, 0), -EINVAL);
	HGW_CHECK_EQ(hgw_vgate_gate_init(&g, 3, 2, 2, 4, hz, 99), 0);
	/* at or below the floor (99, from the state file) */
	HGW_CHECK_EQ(hgw_vgate_admit(&g, 99, sa, 0, &y), HGW_VGATE_UNSENT_USER_REF);
	/* two a second per symbol, three in all */
	for (int i = 0; i < 2; i++) {
		HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sa, 10, &y), HGW_VGATE_UNSENT_MAX);
		HGW_CHECK(y != NULL && y->sym == sa);
		o = hgw_vgate_commit(&g, ref, 5);
		HGW_CHECK(o->user_ref == ref && o->qty == 5 && o->entered == 5);
		HGW_CHECK_EQ(g.floor, ref);
		hgw_vgate_sent(&g, y, 10);
		ref++;
	}
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sa, 10 + hz - 1, &y),
		     HGW_VGATE_UNSENT_RATE_SYMBOL);
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sb, 10, &y), HGW_VGATE_UNSENT_MAX);
	hgw_vgate_commit(&g, ref++, 5);
	hgw_vgate_sent(&g, y, 10);
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sb, 20, &y), HGW_VGATE_UNSENT_RATE_TOTAL);
	/* a second later: room again; a third symbol has no slot */
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sc, 10 + hz, &y),
		     HGW_VGATE_UNSENT_SYMBOLS_FULL);
	/* the open table (4) is full after one more: a failed send gives
	 * its entry back but keeps the floor */
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sa, 10 + hz, &y), HGW_VGATE_UNSENT_MAX);
	hgw_vgate_commit(&g, ref, 5);
	hgw_vgate_unopen(&g);
	HGW_CHECK(g.open_n == 3 && g.floor == ref);
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sa, 10 + hz, &y), HGW_VGATE_UNSENT_USER_REF);
	ref++;
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sa, 10 + hz, &y), HGW_VGATE_UNSENT_MAX);
	hgw_vgate_commit(&g, ref++, 5);
	hgw_vgate_sent(&g, y, 10 + hz);
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sb, 10 + 2 * hz, &y),
		     HGW_VGATE_UNSENT_OPEN_FULL);
	/* an order done: compacted away, and the next goes; cancel_next
	 * stays within the table */
	g.open[1].qty = 0;
	g.cancel_next = 4;
	HGW_CHECK_EQ(hgw_vgate_admit(&g, ref, sb, 10 + 2 * hz, &y), HGW_VGATE_UNSENT_MAX);
	HGW_CHECK(g.open_n == 3 && g.cancel_next == 3);
	HGW_CHECK(g.open[0].user_ref == 100 && g.open[1].user_ref == 102);
	hgw_vgate_gate_fini(&g);
	/* no caps: only the floor and the table */
	HGW_CHECK_EQ(hgw_vgate_gate_init(&g, 0, 0, 0, 2, hz, 0), 0);
	for (uint32_t i = 1; i <= 2; i++) {
		HGW_CHECK_EQ(hgw_vgate_admit(&g, i, sa, 0, &y), HGW_VGATE_UNSENT_MAX);
		HGW_CHECK(y == NULL);
		hgw_vgate_commit(&g, i, 1);
		hgw_vgate_sent(&g, y, 0);
	}
	HGW_CHECK_EQ(hgw_vgate_admit(&g, 3, sa, 0, &y), HGW_VGATE_UNSENT_OPEN_FULL);
	hgw_vgate_gate_fini(&g);
}

int
main(void)
{
	HGW_TEST(test_siphash);
	HGW_TEST(test_relay_bytes);
	HGW_TEST(test_relay_udp);
	HGW_TEST(test_relay_rx);
	HGW_TEST(test_relay_run_keys);
	HGW_TEST(test_window);
	HGW_TEST(test_open_answers);
	HGW_TEST(test_open_lies);
	HGW_TEST(test_state_floor);
	HGW_TEST(test_gate);
	HGW_TEST(test_sweep_owed);
	return hgw_test_done();
}
