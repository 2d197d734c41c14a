/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: Ethernet / IPv4 / UDP / MoldUDP64 framing and sequencing.
 */
#include <errno.h>
#include <string.h>

#include "hgw_cksum.h"
#include "hgw_feed.h"

#define ETH_HDR_LEN     14
#define ETH_TYPE_IPV4   0x0800
#define ETH_TYPE_VLAN   0x8100
#define ETH_TYPE_QINQ   0x88A8
#define VLAN_HDR_LEN    4
#define IPV4_MIN_HDR    20
#define IPPROTO_UDP_NUM 17
#define IPPROTO_IGMP_NUM 2
#define UDP_HDR_LEN     8

#define HGW_FEED_DROP_NAME(code, name, help) [HGW_FEED_DROP_##code] = name,
static const char *const drop_names[HGW_FEED_DROP_MAX] = {
	HGW_FEED_DROPS(HGW_FEED_DROP_NAME)
};
#define HGW_FEED_DROP_HELP(code, name, help) [HGW_FEED_DROP_##code] = help,
static const char *const drop_helps[HGW_FEED_DROP_MAX] = {
	HGW_FEED_DROPS(HGW_FEED_DROP_HELP)
};

const char *
hgw_feed_drop_name(enum hgw_feed_drop d)
{
	return (unsigned)d < HGW_FEED_DROP_MAX ? drop_names[d] : "unknown";
}

const char *
hgw_feed_drop_help(enum hgw_feed_drop d)
{
	return (unsigned)d < HGW_FEED_DROP_MAX ? drop_helps[d] : "";
}

int
hgw_feed_drop_by_name(const char *name)
{
	for (int i = 0; i < HGW_FEED_DROP_MAX; i++)
		if (strcmp(drop_names[i], name) == 0)
			return i;
	return -1;
}

int
hgw_feed_init(struct hgw_feed *f, const struct hgw_feed_conf *conf)
{
	if (f == NULL || conf == NULL)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->conf = *conf;
	f->current = -1;
	f->rq_session = -1;
	return 0;
}

static inline int
drop(struct hgw_feed *f, enum hgw_feed_drop reason)
{
	f->stats.drops[reason]++;
	return -(int)reason - 1;
}

/* 6-bit code of a session name byte, or -1 outside the 64 symbols. */
static inline int
session_sym(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return 2 + (c - '0');
	if (c >= 'A' && c <= 'Z')
		return 12 + (c - 'A');
	if (c >= 'a' && c <= 'z')
		return 38 + (c - 'a');
	if (c == ' ')
		return 1;
	if (c == '\0')
		return 0;
	return -1;
}

#define SESSION_KEY_PACKED (UINT64_C(1) << 63)
#define SESSION_KEY_HASHED (UINT64_C(1) << 62)

uint64_t
hgw_feed_session_key(const char name[HGW_MOLD_SESSION_LEN])
{
	const uint8_t *b = (const uint8_t *)name;
	uint64_t packed = 0;
	int i;

	/* 10 symbols of 6 bits, first byte highest: bits 0..59 */
	for (i = 0; i < HGW_MOLD_SESSION_LEN; i++) {
		int v = session_sym(b[i]);

		if (v < 0)
			break;
		packed = packed << 6 | (uint64_t)v;
	}
	if (i == HGW_MOLD_SESSION_LEN)
		return SESSION_KEY_PACKED | packed;

	/* FNV-1a, 64 bits, then moved into its own tagged space */
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (i = 0; i < HGW_MOLD_SESSION_LEN; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return (h & ~SESSION_KEY_PACKED) | SESSION_KEY_HASHED;
}

/* Index of the session with this 10-byte name, or -1 if not met. A feed
 * has one session a day (two around midnight): the current one first
 * (almost every packet), then a short linear scan. */
static inline int32_t
session_find(const struct hgw_feed *f, const uint8_t *name)
{
	int32_t c = f->current;

	if (__builtin_expect(c >= 0, 1) &&
	    memcmp(f->sessions[c].name, name, HGW_MOLD_SESSION_LEN) == 0)
		return c;
	for (uint32_t i = 0; i < f->nsessions; i++)
		if (memcmp(f->sessions[i].name, name, HGW_MOLD_SESSION_LEN) == 0)
			return (int32_t)i;
	return -1;
}

/* A session not met before: may it become the current one? Only when
 * there is none, or the current one has ended, or (session_confirm) it
 * has sent that many consecutive packets in sequence. Returns the new
 * slot, or NULL with *why set (the packet is dropped). */
static struct hgw_feed_session *
session_new(struct hgw_feed *f, const uint8_t *name, uint64_t seq,
	    uint32_t blocks, enum hgw_feed_drop *why)
{
	struct hgw_feed_session *s;

	if (f->current >= 0 && !f->sessions[f->current].ended) {
		if (f->conf.session_confirm == 0) {
			*why = HGW_FEED_DROP_MOLD_NEW_SESSION;
			return NULL;
		}
		if (f->cand_packets == 0 ||
		    memcmp(f->cand_name, name, HGW_MOLD_SESSION_LEN) != 0 ||
		    seq != f->cand_next) {
			memcpy(f->cand_name, name, HGW_MOLD_SESSION_LEN);
			f->cand_packets = 0;
		}
		f->cand_packets++;
		f->cand_next = seq + blocks;
		if (f->cand_packets < f->conf.session_confirm) {
			*why = HGW_FEED_DROP_MOLD_NEW_SESSION;
			return NULL;
		}
	}
	if (f->nsessions == HGW_FEED_MAX_SESSIONS) {
		*why = HGW_FEED_DROP_MOLD_SESSIONS;
		return NULL;
	}
	if (f->current >= 0 && !f->sessions[f->current].ended) {
		/* confirmed: the old one is done (it no longer holds up the
		 * end of the run) */
		f->sessions[f->current].superseded = 1;
		f->sessions[f->current].ended = 1;
	}
	f->cand_packets = 0;
	s = &f->sessions[f->nsessions];
	memset(s, 0, sizeof(*s));
	memcpy(s->name, name, HGW_MOLD_SESSION_LEN);
	s->key = hgw_feed_session_key(s->name);
	s->next_seq = 1;	/* MoldUDP64 numbers a session's messages from 1 */
	f->current = (int32_t)f->nsessions++;
	return s;
}

/* A suspect jump (seq more than max_jump ahead of s's next expected
 * number): 1 to drop the packet and hold it as suspect, 0 to go on (no
 * jump, or a packet that continues from the suspect: the jump was real,
 * and packets that go on from it are not suspect either until the
 * session has caught up with it, as when the frames after a gap are held
 * while the gap is filled). */
static inline int
suspect_jump(struct hgw_feed *f, struct hgw_feed_session *s, uint16_t idx,
	     uint64_t seq, uint32_t blocks)
{
	uint64_t mj = f->conf.max_jump;

	if (f->suspect == 2 && f->suspect_session == idx &&
	    s->next_seq >= f->suspect_seq)
		f->suspect = 0;	/* the confirmed jump is caught up */
	if (mj == 0 || s->first_seq == 0 || seq <= s->next_seq ||
	    seq - s->next_seq <= mj) {
		if (f->suspect == 1 && f->suspect_session == idx)
			f->suspect = 0;	/* the feed went on where it was */
		return 0;
	}
	if (f->suspect != 0 && f->suspect_session == idx &&
	    seq >= (f->suspect == 1 ? f->suspect_end : f->suspect_seq) &&
	    seq - f->suspect_end <= mj) {
		if (f->suspect == 1)
			s->suspects_confirmed++;
		f->suspect = 2;
		if (seq + blocks > f->suspect_end)
			f->suspect_end = seq + blocks;
		return 0;
	}
	f->suspect = 1;
	f->suspect_session = idx;
	f->suspect_seq = seq;
	f->suspect_end = seq + blocks;
	s->suspects++;
	return 1;
}

/* A packet announces sequence seq while we expect s->next_seq: record a
 * jump ahead as a gap. Returns 1 when there was one. */
static inline int
gap_check(struct hgw_feed *f, struct hgw_feed_session *s, uint64_t seq)
{
	if (seq <= s->next_seq)
		return 0;
	uint64_t missing = seq - s->next_seq;

	s->gaps++;
	s->gap_messages += missing;
	f->stats.gaps++;
	f->stats.gap_messages += missing;
	s->next_seq = seq;
	return 1;
}

/* The IPv4 header and (when not zero) UDP checksums, unless the port
 * established them (ck): 0, or the drop reason. */
static inline int
checksums(struct hgw_feed *f, const uint8_t *ip, uint32_t ihl,
	  const uint8_t *udp, uint32_t ulen, uint32_t ck)
{
	if (ck & HGW_FEED_CK_IP_BAD)
		return drop(f, HGW_FEED_DROP_IP_CHECKSUM);
	/* The usual 20-byte header gets a constant length, so no loop. */
	if (!(ck & HGW_FEED_CK_IP_GOOD) &&
	    !hgw_cksum_ok(ihl == IPV4_MIN_HDR ? hgw_cksum_host(0, ip, IPV4_MIN_HDR) :
		     hgw_cksum_host(0, ip, ihl)))
		return drop(f, HGW_FEED_DROP_IP_CHECKSUM);
	if (hgw_be16(udp + 6) == 0)	/* IPv4 UDP: no checksum sent */
		return 0;
	if (ck & HGW_FEED_CK_L4_BAD)
		return drop(f, HGW_FEED_DROP_UDP_CHECKSUM);
	if (ck & HGW_FEED_CK_L4_GOOD)
		return 0;
	/* Protocol and length of the pseudo header, then its addresses and
	 * the datagram: with no IPv4 options they are one run of bytes
	 * (ip + 12 .. udp + ulen), one vector loop. With hgw_cksum_ok: 16
	 * instructions a frame fewer (cachegrind, bench_feed decode + book
	 * bulk on the 1 M message capture). */
	uint64_t h = hgw_cksum_host_to_be(IPPROTO_UDP_NUM) +
		     hgw_cksum_host_to_be((uint16_t)ulen);

	h = ihl == IPV4_MIN_HDR ? hgw_cksum_long(h, ip + 12, 8 + ulen) :
	    hgw_cksum_long(hgw_cksum_host(h, ip + 12, 8), udp, ulen);
	if (!hgw_cksum_ok(h))
		return drop(f, HGW_FEED_DROP_UDP_CHECKSUM);
	return 0;
}

/* 1 if the frame starts with HGW_FEED_POISON_CHECK bytes of the poison
 * pattern. */
static int
is_poison(const uint8_t *frame, uint32_t len)
{
	uint64_t a, b;

	if (len < HGW_FEED_POISON_CHECK)
		return 0;
	memcpy(&a, frame, 8);
	memcpy(&b, frame + 8, 8);
	return a == HGW_FEED_POISON && b == HGW_FEED_POISON;
}

/* Bytes from l4 on that form the UDP payload, or a negative drop code. */
static inline int
l2_l4(struct hgw_feed *f, const uint8_t *frame, uint32_t len, uint32_t ck,
      const uint8_t **payload, uint32_t *plen, int *retrans)
{
	uint32_t off = ETH_HDR_LEN;
	uint16_t etype;
	uint16_t vid = 0;
	int tagged = 0;

#ifndef HGW_FEED_NO_FAST_PATH
	/* The frame almost every one is: untagged IPv4 with a 20-byte
	 * header, not a fragment, UDP to the feed's group and port (line
	 * A), lengths that fit. It passes every test below; here they take
	 * fewer instructions. Anything else goes the long way, which also
	 * names the reason of a drop. test_feed checks both ways alike. */
	if (__builtin_expect(len >= ETH_HDR_LEN + IPV4_MIN_HDR + UDP_HDR_LEN &&
			     f->conf.vlan == 0, 1)) {
		const uint8_t *ip = frame + ETH_HDR_LEN;
		uint32_t tot = hgw_be16(ip + 2);
		uint32_t ulen = hgw_be16(ip + IPV4_MIN_HDR + 4);

		/* EtherType, then version and header length (not TOS) */
		if (__builtin_expect((hgw_be32(frame + 12) >> 8) ==
				     (ETH_TYPE_IPV4 << 8 | 0x45) &&
				     (hgw_be16(ip + 6) & 0x3FFF) == 0 &&
				     ip[9] == IPPROTO_UDP_NUM &&
				     tot <= len - ETH_HDR_LEN &&
				     ulen >= UDP_HDR_LEN &&
				     ulen + IPV4_MIN_HDR <= tot &&
				     hgw_be32(ip + 16) == f->conf.group &&
				     hgw_be16(ip + IPV4_MIN_HDR + 2) ==
				     f->conf.port, 1)) {
			int rc = checksums(f, ip, IPV4_MIN_HDR,
					   ip + IPV4_MIN_HDR, ulen, ck);

			if (rc < 0)
				return rc;
			*retrans = 0;
			*payload = ip + IPV4_MIN_HDR + UDP_HDR_LEN;
			*plen = ulen - UDP_HDR_LEN;
			return 0;
		}
	}
#endif
	if (len < ETH_HDR_LEN)
		return drop(f, HGW_FEED_DROP_ETH_SHORT);
	etype = hgw_be16(frame + 12);
	if (etype == ETH_TYPE_VLAN || etype == ETH_TYPE_QINQ) {
		if (len < ETH_HDR_LEN + VLAN_HDR_LEN)
			return drop(f, HGW_FEED_DROP_ETH_SHORT);
		vid = hgw_be16(frame + 14) & 0x0FFF;
		etype = hgw_be16(frame + 16);
		off += VLAN_HDR_LEN;
		tagged = 1;
	}
	if (etype != ETH_TYPE_IPV4)
		/* a recycled buffer read after its free (poisoning on): only
		 * checked here, where the frame is refused anyway */
		return drop(f, is_poison(frame, len) ?
			    HGW_FEED_DROP_USE_AFTER_FREE :
			    HGW_FEED_DROP_NOT_IPV4);
	if (f->conf.vlan != 0 && (!tagged || vid != f->conf.vlan))
		return drop(f, HGW_FEED_DROP_VLAN_MISMATCH);

	const uint8_t *ip = frame + off;
	uint32_t room = len - off;

	if (room < IPV4_MIN_HDR)
		return drop(f, HGW_FEED_DROP_IP_TRUNCATED);
	uint32_t ihl = (uint32_t)(ip[0] & 0x0F) * 4;
	uint32_t tot = hgw_be16(ip + 2);

	if ((ip[0] >> 4) != 4 || ihl < IPV4_MIN_HDR || tot < ihl)
		return drop(f, HGW_FEED_DROP_IP_BAD_HEADER);
	if (tot > room)
		return drop(f, HGW_FEED_DROP_IP_TRUNCATED);
	/* flags + fragment offset: MF bit or any offset means a fragment */
	if ((hgw_be16(ip + 6) & 0x3FFF) != 0)
		return drop(f, HGW_FEED_DROP_IP_FRAGMENT);
	if (ip[9] == IPPROTO_IGMP_NUM && tot - ihl >= 8 && ip[ihl] == 0x11) {
		/* a membership query: whoever sends our reports answers it */
		uint64_t n = ++f->stats.drops[HGW_FEED_DROP_IGMP_QUERY];

		if (f->conf.igmp_queries != NULL)
			atomic_store_explicit(f->conf.igmp_queries, n,
					      memory_order_relaxed);
		return -(int)HGW_FEED_DROP_IGMP_QUERY - 1;
	}
	if (ip[9] != IPPROTO_UDP_NUM)
		return drop(f, HGW_FEED_DROP_NOT_UDP);

	const uint8_t *udp = ip + ihl;
	uint32_t udp_room = tot - ihl;

	if (udp_room < UDP_HDR_LEN)
		return drop(f, HGW_FEED_DROP_UDP_BAD_LENGTH);
	uint32_t ulen = hgw_be16(udp + 4);

	if (ulen < UDP_HDR_LEN || ulen > udp_room)
		return drop(f, HGW_FEED_DROP_UDP_BAD_LENGTH);
	uint32_t dst = hgw_be32(ip + 16);
	uint16_t dport = hgw_be16(udp + 2);
	int feed = (f->conf.group == 0 || dst == f->conf.group ||
		    (f->conf.group_b != 0 && dst == f->conf.group_b)) &&
		   (f->conf.port == 0 || dport == f->conf.port);

	*retrans = !feed && f->conf.alt_port != 0 && dport == f->conf.alt_port &&
		   dst == f->conf.alt_ip &&
		   (f->conf.alt_src == 0 || hgw_be32(ip + 12) == f->conf.alt_src) &&
		   (f->conf.alt_sport == 0 || hgw_be16(udp) == f->conf.alt_sport);
	if (!feed && !*retrans)
		return drop(f, HGW_FEED_DROP_NOT_FEED);

	int rc = checksums(f, ip, ihl, udp, ulen, ck);

	if (rc < 0)
		return rc;
	*payload = udp + UDP_HDR_LEN;
	*plen = ulen - UDP_HDR_LEN;
	return 0;
}

int
hgw_feed_packet(struct hgw_feed *f, const uint8_t *frame, uint32_t len,
		struct hgw_feed_pkt *p)
{
	return hgw_feed_packet_ck(f, frame, len, 0, p);
}

int
hgw_feed_packet_ck(struct hgw_feed *f, const uint8_t *frame, uint32_t len,
		   uint32_t ck, struct hgw_feed_pkt *p)
{
	const uint8_t *mold;
	uint32_t plen;
	int rc, retrans = 0;

	f->stats.frames++;
	rc = l2_l4(f, frame, len, ck, &mold, &plen, &retrans);
	if (rc < 0)
		return rc;
	if (plen < HGW_MOLD_HDR_LEN)
		return drop(f, HGW_FEED_DROP_MOLD_SHORT);

	uint64_t seq = hgw_be64(mold + 10);
	uint32_t count = hgw_be16(mold + 18);
	uint32_t blocks = count == HGW_MOLD_END_SESSION ? 0 : count;

	/* Every block must fit: walk the length prefixes once. This comes
	 * before the session lookup, so a malformed packet never takes one
	 * of the session slots. */
	uint32_t pos = HGW_MOLD_HDR_LEN;

	for (uint32_t i = 0; i < blocks; i++) {
		/* a block that ran past the end leaves pos beyond plen: the
		 * next length prefix, or the test after the loop, finds it
		 * (pos cannot wrap: 65535 blocks of 65537 bytes < 2^32) */
		if (pos + 2 > plen)
			return drop(f, HGW_FEED_DROP_MOLD_TRUNCATED);
		pos += 2 + (uint32_t)hgw_be16(mold + pos);
	}
	if (pos > plen)
		return drop(f, HGW_FEED_DROP_MOLD_TRUNCATED);
	if (pos != plen)
		return drop(f, HGW_FEED_DROP_MOLD_TRAILING);
	if (seq + blocks < seq)	/* sequence wraps: not a real packet */
		return drop(f, HGW_FEED_DROP_MOLD_TRUNCATED);
	/* MoldUDP64 numbers from 1, in data packets, heartbeats and the end
	 * alike: 0 is a zeroed (sanitised) or damaged header */
	if (seq == 0)
		return drop(f, HGW_FEED_DROP_MOLD_SEQ_ZERO);

	int32_t si = f->current;
	struct hgw_feed_session *s;

	/* Almost every packet is the next one of the current session, with
	 * no jump held as suspect: everything below would take it, skip
	 * nothing, find no gap and change nothing but the counts, so take
	 * it here: cachegrind, bench_feed decode only on the 1 M message
	 * capture, 16 instructions a frame fewer.
	 * test_feed decodes random streams with and without this path
	 * (HGW_FEED_NO_FAST_PATH) and requires the same results. */
#ifndef HGW_FEED_NO_FAST_PATH
	if (__builtin_expect(si >= 0 && f->suspect == 0 &&
			     count - 1u < HGW_MOLD_END_SESSION - 1u, 1)) {
		s = &f->sessions[si];
		if (__builtin_expect(seq == s->next_seq && !s->ended &&
				     s->first_seq != 0 && !retrans &&
				     memcmp(s->name, mold,
					    HGW_MOLD_SESSION_LEN) == 0, 1)) {
			s->next_seq = seq + count;
			s->packets++;
			s->messages += count;
			f->stats.mold_packets++;
			p->join = 0;
			p->gap = 0;
			p->end = 0;
			p->session = (uint16_t)si;
			p->seq = seq;
			p->next = mold + HGW_MOLD_HDR_LEN;
			p->left = (uint16_t)count;
			return (int)count;
		}
	}
#endif
	si = session_find(f, mold);
	s = si >= 0 ? &f->sessions[si] : NULL;

	/* a retransmission fills a session under way with messages, and
	 * comes from the re-request server: nothing else is taken from it */
	if (retrans && (s == NULL || blocks == 0))
		return drop(f, HGW_FEED_DROP_NOT_FEED);
	/* ... and only what was asked: one forged answer at next_seq could
	 * otherwise put 65,534 messages into the book */
	if (retrans && (si != f->rq_session || seq < f->rq_lo ||
			seq + blocks > f->rq_hi))
		return drop(f, HGW_FEED_DROP_RETRANS_UNASKED);
	p->join = 0;
	if (s == NULL) {
		enum hgw_feed_drop why;

		s = session_new(f, mold, seq, blocks, &why);
		if (s == NULL)
			return drop(f, why);
		si = f->current;
		/* met mid-session: with a baseline join, the first packet
		 * is the start; else what came before it is a gap */
		if (f->conf.join_baseline && seq > 1) {
			s->next_seq = seq;
			p->join = 1;
		}
	}

	p->session = (uint16_t)si;
	p->gap = 0;
	p->end = 0;
	p->left = 0;
	p->seq = seq;
	p->next = mold + HGW_MOLD_HDR_LEN;

	if (s->ended)
		return drop(f, count == HGW_MOLD_END_SESSION && !s->superseded ?
			    HGW_FEED_DROP_MOLD_DUPLICATE :
			    HGW_FEED_DROP_MOLD_AFTER_END);
	if (!(ck & HGW_FEED_TAKE_GAP) &&
	    suspect_jump(f, s, (uint16_t)si, seq, blocks))
		return drop(f, HGW_FEED_DROP_MOLD_SUSPECT);
	if (f->conf.hold_ahead && !(ck & HGW_FEED_TAKE_GAP) &&
	    seq > s->next_seq) {
		/* a gap, or a session met mid-way (join = recover): the
		 * caller may hold this until it is filled */
		p->left = (uint16_t)blocks;
		f->stats.frames--;	/* counted when it is taken */
		return HGW_FEED_AHEAD;
	}
	if (s->first_seq == 0)
		s->first_seq = seq;

	if (count == HGW_MOLD_END_SESSION) {
		p->gap = (uint8_t)gap_check(f, s, seq);
		s->ended = 1;
		p->end = 1;
		f->stats.end_of_session++;
		return 0;
	}

	if (count == 0) {	/* heartbeat: seq is the next expected number */
		p->gap = (uint8_t)gap_check(f, s, seq);
		s->heartbeats++;
		f->stats.heartbeats++;
		return 0;
	}

	uint64_t end = seq + count;

	if (end <= s->next_seq) {
		s->dup_packets++;
		s->dup_messages += count;
		f->stats.dup_messages += count;
		return drop(f, HGW_FEED_DROP_MOLD_DUPLICATE);
	}
	p->gap = (uint8_t)gap_check(f, s, seq);

	/* Partly seen (an A/B line overlap): skip the blocks we have. */
	uint32_t skip = (uint32_t)(s->next_seq - seq);	/* 0 after a gap */

	if (skip != 0) {
		s->dup_messages += skip;
		f->stats.dup_messages += skip;
		for (uint32_t i = 0; i < skip; i++)
			p->next += 2 + hgw_be16(p->next);
	}
	s->next_seq = end;
	s->packets++;
	s->messages += count - skip;
	if (retrans)
		f->stats.retrans_messages += count - skip;
	f->stats.mold_packets++;
	p->seq = seq + skip;
	p->left = (uint16_t)(count - skip);
	return (int)(count - skip);
}

uint64_t
hgw_feed_drops_total(const struct hgw_feed_stats *s)
{
	uint64_t n = 0;

	for (int i = 0; i < HGW_FEED_DROP_MAX; i++)
		n += s->drops[i];
	return n;
}

void
hgw_feed_stats_add(struct hgw_feed_stats *a, const struct hgw_feed_stats *b)
{
	/* Every field is a uint64_t counter: add them as an array. */
	uint64_t *pa = (uint64_t *)a;
	const uint64_t *pb = (const uint64_t *)b;

	_Static_assert(sizeof(*a) % sizeof(uint64_t) == 0, "u64 counters");
	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		pa[i] += pb[i];
}
