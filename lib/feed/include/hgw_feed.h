/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: market-data feed decoding.
 *
 * Ethernet [802.1Q] / IPv4 / UDP multicast / MoldUDP64 / ITCH 5.0, from a
 * frame's bytes to validated, sequenced ITCH messages, zero-copy.
 *
 *   struct hgw_feed_pkt p;
 *   if (hgw_feed_packet(f, data, len, &p) > 0)
 *           while ((msg = hgw_feed_next(f, &p, &mlen)) != NULL)
 *                   ... msg is an ITCH message of a known type whose
 *                   ... length matches it, sequence p.seq - 1
 *
 * A struct hgw_feed belongs to one lcore (a worker keeps its own, so
 * replicas never share state): nothing here is atomic, allocates, logs or
 * makes a system call. Every frame that is not fully used is counted under
 * exactly one reason of HGW_FEED_DROPS.
 */
#ifndef HGW_FEED_H
#define HGW_FEED_H

#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>

#include "hgw_itch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Drop reasons, one table (X-macro: code, name, help). The first group is
 * per frame, the ITCH_* ones per message. */
#define HGW_FEED_DROPS(X)                                                      \
	X(ETH_SHORT,      "eth_short",       "frame shorter than an Ethernet header") \
	X(NOT_IPV4,       "not_ipv4",        "EtherType (after any VLAN tag) is not IPv4") \
	X(VLAN_MISMATCH,  "vlan_mismatch",   "802.1Q VLAN id differs from the configured one") \
	X(IP_BAD_HEADER,  "ip_bad_header",   "IPv4 version, header length or total length invalid") \
	X(IP_TRUNCATED,   "ip_truncated",    "IPv4 total length runs past the end of the frame") \
	X(IP_FRAGMENT,    "ip_fragment",     "IPv4 fragment (MF set or offset non-zero)") \
	X(NOT_UDP,        "not_udp",         "IPv4 protocol is not UDP")                \
	X(UDP_BAD_LENGTH, "udp_bad_length",  "UDP length below 8 or beyond the IPv4 payload") \
	X(NOT_FEED,       "not_feed",        "destination group or port is not the configured feed") \
	X(MOLD_SHORT,     "mold_short",      "UDP payload shorter than the 20-byte MoldUDP64 header") \
	X(MOLD_TRUNCATED, "mold_truncated",  "a message block or the message count runs past the packet") \
	X(MOLD_TRAILING,  "mold_trailing",   "bytes left after the last message block") \
	X(IP_CHECKSUM,    "ip_checksum",     "IPv4 header checksum wrong (counted as lost: a gap, never data)") \
	X(UDP_CHECKSUM,   "udp_checksum",    "UDP checksum wrong (counted as lost: a gap, never data)") \
	X(MOLD_SEQ_ZERO,  "mold_seq_zero",   "sequence number 0 (MoldUDP64 numbers from 1): a zeroed, sanitised or damaged header") \
	X(MOLD_SUSPECT,   "mold_suspect",    "sequence number beyond [feed] max_jump ahead, held until a later packet confirms it") \
	X(MOLD_NEW_SESSION, "mold_new_session", "a session other than the current one before its end of session ([feed] session_confirm)") \
	X(MOLD_SESSIONS,  "mold_too_many_sessions", "more MoldUDP64 sessions than the tracker holds") \
	X(MOLD_DUPLICATE, "mold_duplicate",  "every message of the packet was already seen") \
	X(MOLD_AFTER_END, "mold_after_end",  "packet after the session's end-of-session") \
	X(ITCH_BAD_LENGTH,"itch_bad_length", "ITCH message length does not match its type") \
	X(ITCH_UNKNOWN,   "itch_unknown_type", "ITCH message type not in ITCH 5.0") \
	X(USE_AFTER_FREE, "use_after_free",  "frame starts with the freed-buffer poison pattern (HGW_FEED_POISON)") \
	X(RETRANS_UNASKED, "retrans_unasked", "a retransmission outside the one request outstanding (another session or range, or none asked)") \
	X(IGMP_QUERY,     "igmp_query",      "an IGMP membership query (answered with a report when [feed] igmp is on)")

enum hgw_feed_drop {
#define HGW_FEED_DROP_ENUM(code, name, help) HGW_FEED_DROP_##code,
	HGW_FEED_DROPS(HGW_FEED_DROP_ENUM)
#undef HGW_FEED_DROP_ENUM
	HGW_FEED_DROP_MAX
};

const char *hgw_feed_drop_name(enum hgw_feed_drop d);
const char *hgw_feed_drop_help(enum hgw_feed_drop d);
/* Reason code from its name, or -1. */
int hgw_feed_drop_by_name(const char *name);

/* A buffer freed with poisoning on starts with this 64-bit word repeated
 * (as an Ethernet frame: EtherType 0xdead, never a feed frame). A frame
 * about to be dropped as not IPv4 whose first HGW_FEED_POISON_CHECK bytes
 * are the pattern is counted as USE_AFTER_FREE instead, so the check costs
 * nothing on the good path. Whoever poisons buffers writes this pattern
 * (lib/idio's HGW_IDIO_POISON is the same value; its unit test asserts
 * it). */
#define HGW_FEED_POISON       0xdeadbeefdeadbeefULL
#define HGW_FEED_POISON_CHECK 16

#define HGW_MOLD_HDR_LEN      20
#define HGW_MOLD_SESSION_LEN  10
#define HGW_MOLD_END_SESSION  0xFFFFu
#define HGW_FEED_MAX_SESSIONS 4

struct hgw_feed_conf {
	uint32_t group;     /* IPv4 destination, host byte order; 0 = any */
	uint16_t port;      /* UDP destination port; 0 = any */
	uint16_t vlan;      /* required 802.1Q VLAN id; 0 = tag optional, any id */
	/* A data packet more than max_jump sequence numbers ahead of the
	 * expected one is suspect: dropped (mold_suspect) and held until
	 * the next packet of the session continues from it (the jump was
	 * real: a gap) or from where we were (it was damaged: forgotten).
	 * 0 = no limit. */
	uint64_t max_jump;
	/* A session not met before, arriving while the current one has not
	 * ended, replaces it only after this many consecutive packets of it
	 * in sequence (0: only after the current one's end of session);
	 * until then its packets are dropped (mold_new_session), so a
	 * damaged session name cannot take a slot or hold up the end. */
	uint32_t session_confirm;
	/* The first packet of a session starts later than 1 (a capture or a
	 * feed met mid-session): 0 = that is a gap (the messages before it
	 * were missed); 1 = take it as the start (baseline, for replays). */
	uint8_t join_baseline;
	/* A/B lines: the second line's group (0: none, or the same) */
	uint32_t group_b;
	/* Retransmissions (MoldUDP64 re-request answers) come unicast to
	 * this address and port, and are taken as feed; 0: none */
	uint32_t alt_ip;
	uint16_t alt_port;
	uint32_t alt_src;   /* ... sent by this address only (0: any) */
	/* IGMP membership queries seen, stored here (when not NULL) at each
	 * one, relaxed: a count another thread polls to answer them with a
	 * report; it publishes nothing else */
	_Atomic uint64_t *igmp_queries;
	uint16_t alt_sport; /* ... from this UDP port only (0: any) */
	/* A packet ahead of the expected number (a gap, or the first packet
	 * of a session met mid-way without join_baseline) is not taken but
	 * returned as HGW_FEED_AHEAD, so that the caller can hold it until
	 * the other line or a retransmission fills the gap (or give it back
	 * with HGW_FEED_TAKE_GAP). */
	uint8_t hold_ahead;
};

/* hgw_feed_packet_ck: a packet ahead of the expected number, not taken
 * (hold_ahead): p->session, p->seq (its first sequence number) and
 * p->left (its message count) say where it belongs. */
#define HGW_FEED_AHEAD (-(int)HGW_FEED_DROP_MAX - 1)

/* Checksum results a port already established (its RX offload flags),
 * for hgw_feed_packet_ck; a result not given is checked in software. */
#define HGW_FEED_CK_IP_GOOD  0x1u
#define HGW_FEED_CK_IP_BAD   0x2u
#define HGW_FEED_CK_L4_GOOD  0x4u
#define HGW_FEED_CK_L4_BAD   0x8u
/* ... and with hold_ahead: take this packet even if it is ahead (the gap
 * is given up on: counted as a gap, as without hold_ahead) */
#define HGW_FEED_TAKE_GAP    0x10u

/* Sequence state of one MoldUDP64 session. */
struct hgw_feed_session {
	/* hgw_feed_session_key(name): what identifies the session outside
	 * this decoder (the dedup trigger), since the index of a session
	 * depends on the order this decoder happened to meet them in */
	uint64_t key;
	char name[HGW_MOLD_SESSION_LEN];
	uint8_t ended;          /* end-of-session seen */
	uint64_t next_seq;      /* next expected sequence number (starts at 1) */
	uint64_t packets;       /* data packets with at least one new message */
	uint64_t messages;      /* new messages handed out */
	uint64_t heartbeats;
	uint64_t gaps;          /* times the sequence jumped ahead */
	uint64_t gap_messages;  /* messages skipped by those jumps */
	uint64_t dup_packets;   /* packets entirely already seen */
	uint64_t dup_messages;  /* already-seen messages (whole or partial packets) */
	uint64_t suspects;      /* packets held as suspect jumps */
	uint64_t suspects_confirmed;    /* ... that a later packet confirmed */
	uint64_t first_seq;     /* sequence number of its first packet */
	uint8_t superseded;     /* replaced by a confirmed new session */
};

struct hgw_feed_stats {
	uint64_t frames;             /* frames offered */
	uint64_t mold_packets;       /* data packets with at least one new message */
	uint64_t messages;           /* new, valid ITCH messages handed out */
	uint64_t heartbeats;
	uint64_t end_of_session;
	uint64_t gaps;
	uint64_t gap_messages;
	uint64_t dup_messages;
	uint64_t retrans_messages;   /* new messages from retransmissions */
	uint64_t drops[HGW_FEED_DROP_MAX];
	uint64_t by_type[256];       /* valid messages handed out, by type byte */
};

struct hgw_feed {
	struct hgw_feed_conf conf;
	uint32_t nsessions;
	struct hgw_feed_session sessions[HGW_FEED_MAX_SESSIONS];
	struct hgw_feed_stats stats;
	/* the current session (index; -1 before any) */
	int32_t current;
	/* a suspect jump held: its session, first and next sequence */
	uint8_t suspect;
	uint16_t suspect_session;
	uint64_t suspect_seq, suspect_end;
	/* a new session not confirmed yet: its name, expected next
	 * sequence, and packets seen in sequence so far */
	char cand_name[HGW_MOLD_SESSION_LEN];
	uint32_t cand_packets;
	uint64_t cand_next;
	/* the retransmission asked for (hgw_feed_retrans_expect): an answer
	 * is taken only of that session and inside [rq_lo, rq_hi) */
	int32_t rq_session;     /* -1: none outstanding */
	uint64_t rq_lo, rq_hi;
};

/* A re-request for n messages of session (an index into sessions) from
 * seq was sent: retransmissions inside that range are taken from now on,
 * any other is dropped (HGW_FEED_DROP_RETRANS_UNASKED). One request at a
 * time: a new one replaces the last. */
static inline void
hgw_feed_retrans_expect(struct hgw_feed *f, uint16_t session, uint64_t seq,
			uint64_t n)
{
	f->rq_session = session;
	f->rq_lo = seq;
	f->rq_hi = seq + n < seq ? UINT64_MAX : seq + n;
}

/* No request outstanding any more: every retransmission is dropped. */
static inline void
hgw_feed_retrans_none(struct hgw_feed *f)
{
	f->rq_session = -1;
}

/* One accepted MoldUDP64 packet, positioned at its first new message. */
struct hgw_feed_pkt {
	const uint8_t *next;    /* next message block (length prefix) */
	uint64_t seq;           /* sequence number of that block */
	uint16_t left;          /* blocks left to hand out */
	uint16_t session;       /* index into hgw_feed.sessions */
	uint8_t gap;            /* 1 when a gap was detected on this packet */
	uint8_t end;            /* 1 for end-of-session */
	uint8_t join;           /* 1: first packet of a session joined mid-way
				 * (join_baseline): messages before it unseen */
};

/* A non-zero 64-bit key for a raw 10-byte MoldUDP64 session field, the
 * same in every process that meets the session, whatever else it met
 * first.
 *
 * Names whose bytes are all in {'0'-'9', 'A'-'Z', 'a'-'z', ' ', '\0'}
 * (64 symbols, 6 bits each: 60 bits) are packed, with bit 63 set: the key
 * is injective on them. Real MoldUDP64 session names are alphanumeric,
 * space padded, so they all take this path. Any other name (a corrupted
 * copy, say) gets a 64-bit FNV-1a hash with bit 63 clear and bit 62 set,
 * so it never equals a packed key and is never 0; two such hashed keys
 * can collide, with probability about 2^-62 per pair. */
uint64_t hgw_feed_session_key(const char name[HGW_MOLD_SESSION_LEN]);

/* Initialise a feed decoder; returns 0 or -EINVAL (NULL argument). */
int hgw_feed_init(struct hgw_feed *f, const struct hgw_feed_conf *conf);

/* Decode one frame. Returns the number of new messages it carries (>= 0;
 * 0 for a heartbeat, end-of-session or a packet with no new message), or
 * -(1 + reason) when the frame is dropped (reason counted in stats.drops).
 * On success p is ready for hgw_feed_next(). The sequence state advances
 * as soon as the packet is accepted: messages not pulled with
 * hgw_feed_next() are still considered received. */
int hgw_feed_packet(struct hgw_feed *f, const uint8_t *frame, uint32_t len,
		    struct hgw_feed_pkt *p);

/* hgw_feed_packet with the checksum results the port established
 * (HGW_FEED_CK_*): the IPv4 header checksum and a non-zero UDP checksum
 * are verified in software unless the flags say good or bad. A frame
 * whose checksum is wrong is dropped as ip_checksum / udp_checksum: its
 * messages are lost, and the next packet shows the gap. */
int hgw_feed_packet_ck(struct hgw_feed *f, const uint8_t *frame, uint32_t len,
		       uint32_t ck, struct hgw_feed_pkt *p);

/* Decode the reason of a negative hgw_feed_packet() result. */
static inline enum hgw_feed_drop
hgw_feed_reason(int rc)
{
	return (enum hgw_feed_drop)(-rc - 1);
}

/* Next valid message of an accepted packet, or NULL when none is left.
 * Messages of an unknown type or with a length that does not match their
 * type are counted and skipped (they still consume a sequence number).
 * *len receives the message length; p->seq - 1 is its sequence number. */
static inline const uint8_t *
hgw_feed_next(struct hgw_feed *f, struct hgw_feed_pkt *p, uint16_t *len)
{
	while (p->left != 0) {
		const uint8_t *blk = p->next;
		uint16_t l = hgw_be16(blk);
		const uint8_t *msg = blk + 2;

		p->next = msg + l;
		p->left--;
		p->seq++;
		/* Block bounds were checked by hgw_feed_packet; a zero-length
		 * block has no type byte, so test l first. */
		if (__builtin_expect(l != 0 && hgw_itch_msg_len[msg[0]] == l, 1)) {
			f->stats.messages++;
			f->stats.by_type[msg[0]]++;
			*len = l;
			return msg;
		}
		if (l != 0 && hgw_itch_msg_len[msg[0]] == 0)
			f->stats.drops[HGW_FEED_DROP_ITCH_UNKNOWN]++;
		else
			f->stats.drops[HGW_FEED_DROP_ITCH_BAD_LENGTH]++;
	}
	return NULL;
}

/* Sum of all drop counters (frames and messages). */
uint64_t hgw_feed_drops_total(const struct hgw_feed_stats *s);

/* Add b's counters into a (for reports over several decoders). */
void hgw_feed_stats_add(struct hgw_feed_stats *a,
			const struct hgw_feed_stats *b);

#ifdef __cplusplus
}
#endif

#endif /* HGW_FEED_H */
