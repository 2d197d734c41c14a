/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: Ethernet / IPv4 / UDP / MoldUDP64 framing and sequencing.
 */
#include <errno.h>
#include <string.h>

#include "hgw_feed.h"
#include "hgw_idio.h"

#define ETH_HDR_LEN     14
#define ETH_TYPE_IPV4   0x0800
#define ETH_TYPE_VLAN   0x8100
#define ETH_TYPE_QINQ   0x88A8
#define VLAN_HDR_LEN    4
#define IPV4_MIN_HDR    20
#define IPPROTO_UDP_NUM 17
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

/* Session slot for a 10-byte name, adding it on first sight. A feed has
 * one session a day (two around midnight), so a short linear scan. */
static inline struct hgw_feed_session *
session_find(struct hgw_feed *f, const uint8_t *name)
{
	for (uint32_t i = 0; i < f->nsessions; i++)
		if (memcmp(f->sessions[i].name, name, HGW_MOLD_SESSION_LEN) == 0)
			return &f->sessions[i];
	if (f->nsessions == HGW_FEED_MAX_SESSIONS)
		return NULL;
	struct hgw_feed_session *s = &f->sessions[f->nsessions++];
	memcpy(s->name, name, HGW_MOLD_SESSION_LEN);
	s->key = hgw_feed_session_key(s->name);
	s->next_seq = 1;	/* MoldUDP64 numbers a session's messages from 1 */
	return s;
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

/* Bytes from l4 on that form the UDP payload, or a negative drop code. */
static inline int
l2_l4(struct hgw_feed *f, const uint8_t *frame, uint32_t len,
      const uint8_t **payload, uint32_t *plen)
{
	uint32_t off = ETH_HDR_LEN;
	uint16_t etype;
	uint16_t vid = 0;
	int tagged = 0;

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
		return drop(f, hgw_idio_is_poison(frame, len) ?
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
	if (ip[9] != IPPROTO_UDP_NUM)
		return drop(f, HGW_FEED_DROP_NOT_UDP);

	const uint8_t *udp = ip + ihl;
	uint32_t udp_room = tot - ihl;

	if (udp_room < UDP_HDR_LEN)
		return drop(f, HGW_FEED_DROP_UDP_BAD_LENGTH);
	uint32_t ulen = hgw_be16(udp + 4);

	if (ulen < UDP_HDR_LEN || ulen > udp_room)
		return drop(f, HGW_FEED_DROP_UDP_BAD_LENGTH);
	if ((f->conf.group != 0 && hgw_be32(ip + 16) != f->conf.group) ||
	    (f->conf.port != 0 && hgw_be16(udp + 2) != f->conf.port))
		return drop(f, HGW_FEED_DROP_NOT_FEED);

	*payload = udp + UDP_HDR_LEN;
	*plen = ulen - UDP_HDR_LEN;
	return 0;
}

int
hgw_feed_packet(struct hgw_feed *f, const uint8_t *frame, uint32_t len,
		struct hgw_feed_pkt *p)
{
	const uint8_t *mold;
	uint32_t plen;
	int rc;

	f->stats.frames++;
	rc = l2_l4(f, frame, len, &mold, &plen);
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
		if (pos + 2 > plen)
			return drop(f, HGW_FEED_DROP_MOLD_TRUNCATED);
		pos += 2 + (uint32_t)hgw_be16(mold + pos);
		if (pos > plen)
			return drop(f, HGW_FEED_DROP_MOLD_TRUNCATED);
	}
	if (pos != plen)
		return drop(f, HGW_FEED_DROP_MOLD_TRAILING);
	if (seq + blocks < seq)	/* sequence wraps: not a real packet */
		return drop(f, HGW_FEED_DROP_MOLD_TRUNCATED);

	struct hgw_feed_session *s = session_find(f, mold);

	if (s == NULL)
		return drop(f, HGW_FEED_DROP_MOLD_SESSIONS);

	p->session = (uint16_t)(s - f->sessions);
	p->gap = 0;
	p->end = 0;
	p->left = 0;
	p->seq = seq;
	p->next = mold + HGW_MOLD_HDR_LEN;

	if (count == HGW_MOLD_END_SESSION) {
		if (s->ended)
			return drop(f, HGW_FEED_DROP_MOLD_DUPLICATE);
		p->gap = (uint8_t)gap_check(f, s, seq);
		s->ended = 1;
		p->end = 1;
		f->stats.end_of_session++;
		return 0;
	}
	if (s->ended)
		return drop(f, HGW_FEED_DROP_MOLD_AFTER_END);

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
