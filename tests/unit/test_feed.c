/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: Ethernet..ITCH decoding, drop reasons, sequencing.
 */
#include <stdlib.h>
#include <string.h>

#include "hgw_cksum.h"
#include "hgw_feed.h"
#include "feed_ref.h"
#include "hgw_prng.h"
#include "hgw_test.h"
#include "frame_build.h"

static const char all_types[] = "SRHYLVWKJhAFECXDUPQBIN";
static const uint8_t all_lens[] = { 12, 39, 25, 20, 26, 35, 12, 28, 35, 21,
	36, 40, 31, 36, 23, 19, 35, 44, 40, 19, 50, 20 };

static struct hgw_feed feed;

static void
feed_reset(uint16_t vlan)
{
	struct hgw_feed_conf c = { .group = FB_GROUP, .port = FB_PORT,
				   .vlan = vlan };

	hgw_feed_init(&feed, &c);
}

/* Decode a frame and pull every message; returns hgw_feed_packet's rc and
 * the number of messages handed out in *got. */
static int
run(const struct fb *f, uint32_t len, int *got)
{
	struct hgw_feed_pkt p;
	uint16_t mlen;
	int rc = hgw_feed_packet(&feed, f->buf, len, &p);

	*got = 0;
	if (rc > 0)
		while (hgw_feed_next(&feed, &p, &mlen) != NULL)
			(*got)++;
	return rc;
}

static int
drops(enum hgw_feed_drop d)
{
	return (int)feed.stats.drops[d];
}

static void
test_length_table(void)
{
	HGW_CHECK_EQ(sizeof(all_types) - 1, sizeof(all_lens));
	for (size_t i = 0; i < sizeof(all_lens); i++) {
		HGW_CHECK_EQ(hgw_itch_msg_len[(uint8_t)all_types[i]], all_lens[i]);
		HGW_CHECK(hgw_itch_type_name((uint8_t)all_types[i]) != NULL);
	}
	int defined = 0;

	for (int t = 0; t < 256; t++)
		defined += hgw_itch_msg_len[t] != 0;
	HGW_CHECK_EQ(defined, sizeof(all_lens));
	HGW_CHECK(hgw_itch_type_name('Z') == NULL);
}

/* Every type at its exact length is handed out; one byte short or long
 * is counted as a bad length and skipped; an unknown type is counted. */
static void
test_every_type_exact_short_long(void)
{
	uint8_t m[64];
	uint64_t seq = 1;

	feed_reset(0);
	for (size_t i = 0; i < sizeof(all_lens); i++) {
		uint8_t t = (uint8_t)all_types[i];
		uint16_t l = all_lens[i];
		struct fb f;
		int got;

		fb_start(&f, 0, "S1", seq);
		fb_msg(&f, m, fb_itch(m, t, 1, l));
		fb_msg(&f, m, fb_itch(m, t, 1, (uint16_t)(l - 1)));
		fb_msg(&f, m, fb_itch(m, t, 1, (uint16_t)(l + 1)));
		HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 3);
		HGW_CHECK_EQ(got, 1);
		HGW_CHECK_EQ(feed.stats.by_type[t], 1);
		seq += 3;
	}
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_ITCH_BAD_LENGTH), 2 * sizeof(all_lens));
	HGW_CHECK_EQ(feed.stats.messages, sizeof(all_lens));

	struct fb f;
	int got;

	fb_start(&f, 0, "S1", seq);
	fb_msg(&f, m, fb_itch(m, 'Z', 1, 20));
	fb_msg(&f, m, 0);                       /* zero-length block */
	fb_msg(&f, m, fb_itch(m, 'A', 1, 36));
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 3);
	HGW_CHECK_EQ(got, 1);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_ITCH_UNKNOWN), 1);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_ITCH_BAD_LENGTH), 2 * sizeof(all_lens) + 1);
	/* bad messages still consume their sequence numbers */
	HGW_CHECK_EQ(feed.sessions[0].next_seq, seq + 3);
}

static void
test_typed_views(void)
{
	uint8_t m[64];
	struct hgw_itch_add_order *a = (struct hgw_itch_add_order *)m;

	fb_itch(m, 'A', 0x1234, 36);
	hgw_put_be48(a->h.timestamp, 34200000000123ull);
	hgw_put_be64(a->order_ref, 0x0102030405060708ull);
	a->side = 'S';
	hgw_put_be32(a->shares, 300);
	memcpy(a->stock, "AAPL    ", 8);
	hgw_put_be32(a->price, 1234500);
	HGW_CHECK_EQ(m[1], 0x12);
	HGW_CHECK_EQ(m[2], 0x34);
	HGW_CHECK_EQ(hgw_itch_locate(m), 0x1234);
	HGW_CHECK_EQ(hgw_itch_timestamp(m), 34200000000123ull);
	HGW_CHECK_EQ(m[11], 0x01);              /* order ref @11, big-endian */
	HGW_CHECK_EQ(m[18], 0x08);
	HGW_CHECK_EQ(m[19], 'S');               /* side @19 */
	HGW_CHECK_EQ(hgw_be32(m + 20), 300);    /* shares @20 */
	HGW_CHECK(memcmp(m + 24, "AAPL", 4) == 0);
	HGW_CHECK_EQ(hgw_be32(m + 32), 1234500); /* price @32 */

	struct hgw_itch_order_replace *u = (struct hgw_itch_order_replace *)m;

	fb_itch(m, 'U', 1, 35);
	hgw_put_be64(u->new_ref, 77);
	hgw_put_be32(u->price, 99);
	HGW_CHECK_EQ(hgw_be64(m + 19), 77);     /* new ref @19 */
	HGW_CHECK_EQ(hgw_be32(m + 31), 99);     /* price @31 */
}

static void
test_vlan(void)
{
	uint8_t m[64];
	struct fb f;
	int got;

	feed_reset(0);
	fb_start(&f, 141, "S1", 1);
	fb_msg(&f, m, fb_itch(m, 'S', 0, 12));
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);   /* any tag accepted */

	feed_reset(141);
	fb_start(&f, 141, "S1", 1);
	fb_msg(&f, m, fb_itch(m, 'S', 0, 12));
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	fb_start(&f, 142, "S1", 2);
	fb_msg(&f, m, fb_itch(m, 'S', 0, 12));
	HGW_CHECK(run(&f, fb_finish(&f), &got) < 0);
	fb_start(&f, 0, "S1", 2);
	fb_msg(&f, m, fb_itch(m, 'S', 0, 12));
	HGW_CHECK(run(&f, fb_finish(&f), &got) < 0);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_VLAN_MISMATCH), 2);
}

/* One frame per drop reason of the L2..L4 and MoldUDP64 layers. */
static void
test_frame_drops(void)
{
	uint8_t m[64];
	struct fb f;
	uint32_t len;
	int got, rc;

	feed_reset(0);
#define FRESH() do { fb_start(&f, 0, "S1", 1); \
	fb_msg(&f, m, fb_itch(m, 'S', 0, 12)); len = fb_finish(&f); } while (0)
/* checksums made right again, so each frame fails for its own reason */
#define EXPECT(reason) do { fb_checksums(f.buf + f.ip);                   \
	rc = run(&f, len, &got);                                            \
	HGW_CHECK(rc < 0);                                                  \
	HGW_CHECK_EQ(hgw_feed_reason(rc), HGW_FEED_DROP_##reason);          \
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_##reason), 1); } while (0)

	FRESH(); len = 13; EXPECT(ETH_SHORT);
	FRESH(); hgw_put_be16(f.buf + 12, 0x0806); EXPECT(NOT_IPV4);
	FRESH(); f.buf[f.ip] = 0x65; EXPECT(IP_BAD_HEADER);
	FRESH(); len = f.ip + 19; EXPECT(IP_TRUNCATED);
	feed_reset(0);
	FRESH(); f.buf[f.ip] = 0x44; EXPECT(IP_BAD_HEADER);  /* ihl 4 */
	feed_reset(0);
	FRESH(); len -= 1; EXPECT(IP_TRUNCATED);             /* cut short */
	FRESH(); hgw_put_be16(f.buf + f.ip + 6, 0x2000); EXPECT(IP_FRAGMENT);
	feed_reset(0);
	FRESH(); hgw_put_be16(f.buf + f.ip + 6, 0x0001); EXPECT(IP_FRAGMENT);
	FRESH(); f.buf[f.ip + 9] = 6; EXPECT(NOT_UDP);
	FRESH(); hgw_put_be16(f.buf + f.ip + 24, 7); EXPECT(UDP_BAD_LENGTH);
	feed_reset(0);
	FRESH(); hgw_put_be16(f.buf + f.ip + 24, 2000); EXPECT(UDP_BAD_LENGTH);
	FRESH(); hgw_put_be32(f.buf + f.ip + 16, 0xE9360C70); EXPECT(NOT_FEED);
	feed_reset(0);
	FRESH(); hgw_put_be16(f.buf + f.ip + 22, 1); EXPECT(NOT_FEED);
	/* UDP payload of 19 bytes: shorter than the MoldUDP64 header */
	FRESH(); len = f.mold + 19; hgw_put_be16(f.buf + f.ip + 2, (uint16_t)(len - f.ip));
	hgw_put_be16(f.buf + f.ip + 24, (uint16_t)(len - f.ip - 20));
	EXPECT(MOLD_SHORT);
	/* count beyond the blocks present */
	FRESH(); len = fb_finish_count(&f, 2); EXPECT(MOLD_TRUNCATED);
	/* a block length running past the packet */
	feed_reset(0);
	FRESH(); hgw_put_be16(f.buf + f.mold + 20, 13); EXPECT(MOLD_TRUNCATED);
	/* ... and the first of two running past it */
	feed_reset(0);
	fb_start(&f, 0, "S1", 1);
	fb_msg(&f, m, fb_itch(m, 'S', 0, 12));
	fb_msg(&f, m, fb_itch(m, 'S', 0, 12));
	len = fb_finish(&f);
	hgw_put_be16(f.buf + f.mold + 20, 500);
	EXPECT(MOLD_TRUNCATED);
	feed_reset(0);
	/* bytes after the last block */
	FRESH(); f.len += 3; len = fb_finish_count(&f, 1); EXPECT(MOLD_TRAILING);
	HGW_CHECK_EQ(feed.stats.messages, 0);
	/* malformed MoldUDP64 packets never take a session slot */
	HGW_CHECK_EQ(feed.nsessions, 0);
	/* end of session with bytes after the header */
	fb_start(&f, 0, "S1", 1);
	f.len += 2;
	len = fb_finish_count(&f, 0xFFFF);
	rc = run(&f, len, &got);
	HGW_CHECK_EQ(hgw_feed_reason(rc), HGW_FEED_DROP_MOLD_TRAILING);
	HGW_CHECK_EQ(feed.nsessions, 0);
	HGW_CHECK_EQ(feed.stats.end_of_session, 0);

	/* Ethernet padding after the IPv4 packet is fine. */
	FRESH(); len += 10;
	HGW_CHECK_EQ(run(&f, len, &got), 1);
	HGW_CHECK_EQ(got, 1);
	HGW_CHECK_EQ(feed.nsessions, 1);
	HGW_CHECK_EQ(feed.sessions[0].next_seq, 2);
#undef FRESH
#undef EXPECT
}

static void
test_sequencing(void)
{
	uint8_t m[64];
	struct fb f;
	struct hgw_feed_pkt p;
	uint16_t l;
	int got;

	feed_reset(0);
	fb_itch(m, 'S', 0, 12);
	/* seq 1..3 */
	fb_start(&f, 0, "S1", 1);
	for (int i = 0; i < 3; i++)
		fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 3);
	/* gap: 4..9 missing, 10..11 arrive */
	fb_start(&f, 0, "S1", 10);
	fb_msg(&f, m, 12);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, fb_finish(&f), &p), 2);
	HGW_CHECK_EQ(p.gap, 1);
	HGW_CHECK_EQ(p.seq, 10);
	HGW_CHECK(hgw_feed_next(&feed, &p, &l) != NULL);
	HGW_CHECK_EQ(p.seq, 11);        /* seq of the message just returned + 1 */
	HGW_CHECK(hgw_feed_next(&feed, &p, &l) != NULL);
	HGW_CHECK(hgw_feed_next(&feed, &p, &l) == NULL);
	HGW_CHECK_EQ(feed.stats.gaps, 1);
	HGW_CHECK_EQ(feed.stats.gap_messages, 6);
	HGW_CHECK_EQ(feed.sessions[0].next_seq, 12);
	/* whole duplicate (seq 1..3 again) */
	fb_start(&f, 0, "S1", 1);
	for (int i = 0; i < 3; i++)
		fb_msg(&f, m, 12);
	HGW_CHECK(run(&f, fb_finish(&f), &got) < 0);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_MOLD_DUPLICATE), 1);
	HGW_CHECK_EQ(feed.stats.dup_messages, 3);
	/* partial overlap: 10..14, only 12..14 are new */
	fb_start(&f, 0, "S1", 10);
	for (int i = 0; i < 5; i++) {
		hgw_put_be16(m + 3, (uint16_t)(10 + i));   /* tracking = seq */
		fb_msg(&f, m, 12);
	}
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, fb_finish(&f), &p), 3);
	HGW_CHECK_EQ(p.gap, 0);
	HGW_CHECK_EQ(p.seq, 12);
	const uint8_t *msg = hgw_feed_next(&feed, &p, &l);

	HGW_CHECK(msg != NULL && hgw_be16(msg + 3) == 12);
	HGW_CHECK_EQ(feed.stats.dup_messages, 5);
	HGW_CHECK_EQ(feed.sessions[0].next_seq, 15);
	/* heartbeat at the expected number: no gap; ahead: a gap */
	fb_start(&f, 0, "S1", 15);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 0);
	fb_start(&f, 0, "S1", 20);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, fb_finish(&f), &p), 0);
	HGW_CHECK_EQ(p.gap, 1);
	HGW_CHECK_EQ(feed.stats.heartbeats, 2);
	HGW_CHECK_EQ(feed.stats.gaps, 2);
	HGW_CHECK_EQ(feed.stats.gap_messages, 11);
	/* end of session, then its duplicate, then data after the end */
	fb_start(&f, 0, "S1", 20);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, fb_finish_count(&f, 0xFFFF), &p), 0);
	HGW_CHECK_EQ(p.end, 1);
	HGW_CHECK_EQ(feed.sessions[0].ended, 1);
	HGW_CHECK(run(&f, fb_finish_count(&f, 0xFFFF), &got) < 0);
	fb_start(&f, 0, "S1", 20);
	fb_msg(&f, m, 12);
	HGW_CHECK(run(&f, fb_finish(&f), &got) < 0);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_MOLD_AFTER_END), 1);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_MOLD_DUPLICATE), 2);
	HGW_CHECK_EQ(feed.stats.end_of_session, 1);
	/* a sequence that would wrap is not a real packet */
	fb_start(&f, 0, "S2", UINT64_MAX);
	fb_msg(&f, m, 12);
	HGW_CHECK(run(&f, fb_finish(&f), &got) < 0);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_MOLD_TRUNCATED), 1);
}

/* Ends session name at seq (an end-of-session packet). */
static void
end_session(const char *name, uint64_t seq)
{
	struct fb f;
	int got;

	fb_start(&f, 0, name, seq);
	HGW_CHECK_EQ(run(&f, fb_finish_count(&f, 0xFFFF), &got), 0);
}

static void
test_sessions(void)
{
	uint8_t m[64];
	struct fb f;
	int got;
	char name[11];

	feed_reset(0);
	fb_itch(m, 'S', 0, 12);
	/* one session after the other, each after the previous one's end */
	for (int s = 0; s < HGW_FEED_MAX_SESSIONS + 1; s++) {
		snprintf(name, sizeof(name), "SESS%06d", s);
		fb_start(&f, 0, name, 1);
		fb_msg(&f, m, 12);
		int rc = run(&f, fb_finish(&f), &got);

		if (s < HGW_FEED_MAX_SESSIONS) {
			HGW_CHECK_EQ(rc, 1);
			end_session(name, 2);
		} else {
			HGW_CHECK_EQ(hgw_feed_reason(rc), HGW_FEED_DROP_MOLD_SESSIONS);
		}
	}
	HGW_CHECK_EQ(feed.stats.end_of_session, HGW_FEED_MAX_SESSIONS);
	/* an ended session takes nothing more */
	fb_start(&f, 0, "SESS000001", 2);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
		     HGW_FEED_DROP_MOLD_AFTER_END);
	HGW_CHECK_EQ(feed.stats.gaps, 0);
}

/* A damaged session name (a phantom) while the current session runs: its
 * packets are dropped, it takes no slot, and it cannot hold up the end.
 * With session_confirm, a real new session replaces the current one
 * after that many consecutive packets in sequence. */
static void
test_phantom_sessions(void)
{
	struct hgw_feed_conf c = { .group = FB_GROUP, .port = FB_PORT };
	uint8_t m[64];
	struct fb f;
	int got;

	feed_reset(0);
	fb_itch(m, 'S', 0, 12);
	fb_start(&f, 0, "NASDAQ01", 1);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	for (int i = 0; i < 10; i++) {
		char name[11];

		snprintf(name, sizeof(name), "NASDAQ%02d", 20 + i);
		fb_start(&f, 0, name, 2);
		fb_msg(&f, m, 12);
		HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
			     HGW_FEED_DROP_MOLD_NEW_SESSION);
	}
	HGW_CHECK_EQ(feed.nsessions, 1);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_MOLD_NEW_SESSION), 10);
	/* the real session goes on, and its end ends the feed */
	fb_start(&f, 0, "NASDAQ01", 2);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	end_session("NASDAQ01", 3);
	HGW_CHECK_EQ(feed.sessions[0].ended, 1);
	/* then a new session is taken at once */
	fb_start(&f, 0, "NASDAQ02", 1);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	HGW_CHECK_EQ(feed.nsessions, 2);

	/* session_confirm = 3: a new session without the old one's end
	 * replaces it after 3 consecutive packets in sequence */
	c.session_confirm = 3;
	hgw_feed_init(&feed, &c);
	fb_start(&f, 0, "OLD", 1);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	for (uint64_t q = 1; q <= 2; q++) {
		fb_start(&f, 0, "NEW", q);
		fb_msg(&f, m, 12);
		HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
			     HGW_FEED_DROP_MOLD_NEW_SESSION);
	}
	/* out of sequence: the count starts again */
	fb_start(&f, 0, "NEW", 9);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
		     HGW_FEED_DROP_MOLD_NEW_SESSION);
	fb_start(&f, 0, "NEW", 10);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
		     HGW_FEED_DROP_MOLD_NEW_SESSION);
	/* the third in sequence (9, 10, 11) is taken */
	fb_start(&f, 0, "NEW", 11);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	HGW_CHECK_EQ(feed.nsessions, 2);
	HGW_CHECK_EQ(feed.sessions[0].superseded, 1);
	HGW_CHECK_EQ(feed.sessions[0].ended, 1);
	/* what the confirming packets carried is missed: a gap */
	HGW_CHECK_EQ(feed.sessions[1].gap_messages, 10);
	fb_start(&f, 0, "OLD", 2);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
		     HGW_FEED_DROP_MOLD_AFTER_END);
}

/* Sequence number 0, suspect jumps, a mid-session join. */
static void
test_suspect_and_join(void)
{
	struct hgw_feed_conf c = { .group = FB_GROUP, .port = FB_PORT,
				   .max_jump = 1000 };
	uint8_t m[64];
	struct fb f;
	struct hgw_feed_pkt p;
	int got;

	/* a zeroed header (sanitised capture): dropped with its meaning,
	 * taking no slot */
	feed_reset(0);
	fb_itch(m, 'S', 0, 12);
	fb_start(&f, 0, "", 0);
	memset(f.buf + f.mold, 0, 10);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
		     HGW_FEED_DROP_MOLD_SEQ_ZERO);
	HGW_CHECK_EQ(feed.nsessions, 0);

	/* one packet with a damaged sequence number (2^63) costs that
	 * packet only: held as suspect, then forgotten */
	hgw_feed_init(&feed, &c);
	for (uint64_t q = 1; q <= 10; q++) {
		fb_start(&f, 0, "S1", q);
		fb_msg(&f, m, 12);
		HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	}
	fb_start(&f, 0, "S1", UINT64_C(1) << 63);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
		     HGW_FEED_DROP_MOLD_SUSPECT);
	for (uint64_t q = 12; q <= 20; q++) {
		fb_start(&f, 0, "S1", q);
		fb_msg(&f, m, 12);
		HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	}
	HGW_CHECK_EQ(feed.sessions[0].next_seq, 21);
	HGW_CHECK_EQ(feed.stats.gap_messages, 1);	/* seq 11: that packet */
	HGW_CHECK_EQ(feed.sessions[0].suspects, 1);
	HGW_CHECK_EQ(feed.sessions[0].suspects_confirmed, 0);

	/* a real jump: confirmed by the next packet, which continues from
	 * it; the suspect packet's messages are part of the gap */
	fb_start(&f, 0, "S1", 50000);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
		     HGW_FEED_DROP_MOLD_SUSPECT);
	fb_start(&f, 0, "S1", 50001);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, fb_finish(&f), &p), 1);
	HGW_CHECK_EQ(p.gap, 1);
	HGW_CHECK_EQ(feed.sessions[0].suspects_confirmed, 1);
	HGW_CHECK_EQ(feed.sessions[0].next_seq, 50002);
	HGW_CHECK_EQ(feed.stats.gap_messages, 1 + (50001 - 21));

	/* joined mid-session: a gap, unless the join is a baseline */
	hgw_feed_init(&feed, &c);
	fb_start(&f, 0, "S1", 7000);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, fb_finish(&f), &p), 1);
	HGW_CHECK_EQ(p.gap, 1);
	HGW_CHECK_EQ(p.join, 0);
	HGW_CHECK_EQ(feed.stats.gap_messages, 6999);
	c.join_baseline = 1;
	hgw_feed_init(&feed, &c);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, fb_finish(&f), &p), 1);
	HGW_CHECK_EQ(p.gap, 0);
	HGW_CHECK_EQ(p.join, 1);
	HGW_CHECK_EQ(feed.stats.gaps, 0);
	HGW_CHECK_EQ(feed.sessions[0].first_seq, 7000);
}

/* hold_ahead: a packet past a gap comes back as HGW_FEED_AHEAD, taking
 * nothing, until the gap is filled (then it goes through, no gap) or
 * given up (HGW_FEED_TAKE_GAP: a gap). Line B's group and the
 * retransmission address are feed too. */
static void
test_hold_ahead(void)
{
	struct hgw_feed_conf c = { .group = FB_GROUP, .port = FB_PORT,
				   .hold_ahead = 1, .group_b = 0xE9310001,
				   .alt_ip = 0x0A020001, .alt_port = 26500 };
	uint8_t m[64];
	struct fb f, held;
	struct hgw_feed_pkt p;
	uint32_t hlen;
	int got;

	hgw_feed_init(&feed, &c);
	fb_itch(m, 'S', 0, 12);
	fb_start(&f, 0, "S1", 1);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	/* 2..4 missing: 5 is ahead, comes back untaken */
	fb_start(&held, 0, "S1", 5);
	fb_msg(&held, m, 12);
	fb_msg(&held, m, 12);
	hlen = fb_finish(&held);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, held.buf, hlen, &p), HGW_FEED_AHEAD);
	HGW_CHECK_EQ(p.seq, 5);
	HGW_CHECK_EQ(p.left, 2);
	HGW_CHECK_EQ(feed.sessions[0].next_seq, 2);
	HGW_CHECK_EQ(feed.stats.gaps, 0);
	/* 2..4 from line B's group, then 5 goes through without a gap */
	fb_start(&f, 0, "S1", 2);
	for (int i = 0; i < 3; i++)
		fb_msg(&f, m, 12);
	fb_finish(&f);
	hgw_put_be32(f.buf + f.ip + 16, 0xE9310001);
	fb_checksums(f.buf + f.ip);
	HGW_CHECK_EQ(run(&f, f.len, &got), 3);
	HGW_CHECK_EQ(run(&held, hlen, &got), 2);
	HGW_CHECK_EQ(feed.stats.gaps, 0);
	HGW_CHECK_EQ(feed.sessions[0].next_seq, 7);
	/* a retransmission (unicast to us) fills 7..8 under 9: only once
	 * asked for, and only inside what was asked */
	fb_start(&held, 0, "S1", 9);
	fb_msg(&held, m, 12);
	hlen = fb_finish(&held);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, held.buf, hlen, &p), HGW_FEED_AHEAD);
	fb_start(&f, 0, "S1", 7);
	fb_msg(&f, m, 12);
	fb_msg(&f, m, 12);
	fb_finish(&f);
	hgw_put_be32(f.buf + f.ip + 16, 0x0A020001);
	hgw_put_be16(f.buf + f.ip + 22, 26500);
	fb_checksums(f.buf + f.ip);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, f.len, &got)),
		     HGW_FEED_DROP_RETRANS_UNASKED);		/* none asked */
	hgw_feed_retrans_expect(&feed, 0, 7, 1);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, f.len, &got)),
		     HGW_FEED_DROP_RETRANS_UNASKED);		/* 8 not asked */
	hgw_feed_retrans_expect(&feed, 1, 7, 2);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, f.len, &got)),
		     HGW_FEED_DROP_RETRANS_UNASKED);		/* other session */
	hgw_feed_retrans_expect(&feed, 0, 8, 5);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, f.len, &got)),
		     HGW_FEED_DROP_RETRANS_UNASKED);		/* 7 not asked */
	HGW_CHECK_EQ(feed.stats.drops[HGW_FEED_DROP_RETRANS_UNASKED], 4);
	HGW_CHECK_EQ(feed.sessions[0].next_seq, 7);
	hgw_feed_retrans_expect(&feed, 0, 7, 2);
	HGW_CHECK_EQ(run(&f, f.len, &got), 2);
	HGW_CHECK_EQ(feed.stats.retrans_messages, 2);
	HGW_CHECK_EQ(run(&held, hlen, &got), 1);
	/* another port at that address is not ours */
	hgw_put_be16(f.buf + f.ip + 22, 26501);
	fb_checksums(f.buf + f.ip);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, f.len, &got)), HGW_FEED_DROP_NOT_FEED);
	/* nor an answer from another port than the server's */
	hgw_put_be16(f.buf + f.ip + 22, 26500);
	fb_checksums(f.buf + f.ip);
	feed.conf.alt_sport = (uint16_t)(hgw_be16(f.buf + f.ip + 20) + 1);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, f.len, &got)), HGW_FEED_DROP_NOT_FEED);
	feed.conf.alt_sport = hgw_be16(f.buf + f.ip + 20);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, f.len, &got)),
		     HGW_FEED_DROP_MOLD_DUPLICATE);	/* its own port: ours */
	/* given up: taken as a gap */
	fb_start(&held, 0, "S1", 20);
	fb_msg(&held, m, 12);
	hlen = fb_finish(&held);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, held.buf, hlen, &p), HGW_FEED_AHEAD);
	HGW_CHECK_EQ(hgw_feed_packet_ck(&feed, held.buf, hlen, HGW_FEED_TAKE_GAP,
					&p), 1);
	HGW_CHECK_EQ(p.gap, 1);
	HGW_CHECK_EQ(feed.stats.gap_messages, 10);	/* 10..19 */
	/* frames counted once, however often a held one was offered (the
	 * 7 frames, and the retransmission offered 6 more times above,
	 * refused) */
	HGW_CHECK_EQ(feed.stats.frames, 13);

	/* a jump beyond max_jump while holding: the first packet is a
	 * suspect, the next confirms it, and every packet that goes on from
	 * it is held (not taken for a new suspect) until the gap is filled
	 * or given up */
	c.max_jump = 10;
	hgw_feed_init(&feed, &c);
	fb_start(&f, 0, "S1", 1);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	fb_start(&f, 0, "S1", 100);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, fb_finish(&f), &got)),
		     HGW_FEED_DROP_MOLD_SUSPECT);
	for (uint64_t q = 101; q <= 111; q++) {
		fb_start(&held, 0, "S1", q);
		fb_msg(&held, m, 12);
		HGW_CHECK_EQ(hgw_feed_packet(&feed, held.buf, fb_finish(&held), &p),
			     HGW_FEED_AHEAD);
	}
	fb_start(&held, 0, "S1", 101);
	fb_msg(&held, m, 12);
	hlen = fb_finish(&held);
	HGW_CHECK_EQ(hgw_feed_packet_ck(&feed, held.buf, hlen, HGW_FEED_TAKE_GAP,
					&p), 1);
	HGW_CHECK_EQ(p.gap, 1);
	fb_start(&held, 0, "S1", 102);
	fb_msg(&held, m, 12);
	HGW_CHECK_EQ(run(&held, fb_finish(&held), &got), 1);
	HGW_CHECK_EQ(feed.sessions[0].suspects, 1);
	HGW_CHECK_EQ(feed.sessions[0].suspects_confirmed, 1);
}

/* IPv4 header and UDP checksums, in software and from the port's flags. */
static void
test_checksums(void)
{
	uint8_t m[64];
	struct fb f;
	struct hgw_feed_pkt p;
	uint32_t len;
	int got;

	feed_reset(0);
	fb_itch(m, 'S', 0, 12);
	fb_start(&f, 0, "S1", 1);
	fb_msg(&f, m, 12);
	len = fb_finish(&f);
	HGW_CHECK_EQ(run(&f, len, &got), 1);
	/* one bit flipped in a message: the UDP checksum catches it */
	fb_start(&f, 0, "S1", 2);
	fb_msg(&f, m, 12);
	len = fb_finish(&f);
	f.buf[len - 3] ^= 0x10;
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, len, &got)),
		     HGW_FEED_DROP_UDP_CHECKSUM);
	/* a zero UDP checksum means none was sent; the packet lost to its
	 * checksum is a gap, seen on this next one */
	fb_start(&f, 0, "S1", 3);
	fb_msg(&f, m, 12);
	len = fb_finish(&f);
	hgw_put_be16(f.buf + f.ip + 26, 0);
	HGW_CHECK_EQ(hgw_feed_packet(&feed, f.buf, len, &p), 1);
	HGW_CHECK_EQ(p.gap, 1);
	HGW_CHECK_EQ(feed.stats.gap_messages, 1);	/* seq 2 */
	/* the IPv4 header: TTL changed without the checksum */
	fb_start(&f, 0, "S1", 4);
	fb_msg(&f, m, 12);
	len = fb_finish(&f);
	f.buf[f.ip + 8] = 63;
	HGW_CHECK_EQ(hgw_feed_reason(run(&f, len, &got)),
		     HGW_FEED_DROP_IP_CHECKSUM);
	/* the port's verdicts are taken as they are */
	fb_start(&f, 0, "S1", 4);
	fb_msg(&f, m, 12);
	len = fb_finish(&f);
	HGW_CHECK_EQ(hgw_feed_reason(hgw_feed_packet_ck(&feed, f.buf, len,
		HGW_FEED_CK_IP_BAD, &p)), HGW_FEED_DROP_IP_CHECKSUM);
	HGW_CHECK_EQ(hgw_feed_reason(hgw_feed_packet_ck(&feed, f.buf, len,
		HGW_FEED_CK_L4_BAD, &p)), HGW_FEED_DROP_UDP_CHECKSUM);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_IP_CHECKSUM), 2);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_UDP_CHECKSUM), 2);
	/* a damaged message the port vouches for is taken as data: the
	 * port's verdict stands (software checks only what it left open) */
	f.buf[len - 3] ^= 0x10;
	HGW_CHECK_EQ(hgw_feed_packet_ck(&feed, f.buf, len, HGW_FEED_CK_IP_GOOD |
					HGW_FEED_CK_L4_GOOD, &p), 1);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_UDP_CHECKSUM), 2);
	/* IPv4 options (ihl 6): the UDP pseudo header and the datagram are
	 * not one run of bytes then; both checksums still hold, and each
	 * catches its own damage */
	for (int dmg = 0; dmg < 3; dmg++) {
		struct fb o;
		uint8_t *ip;

		fb_start(&f, 0, "S1", 5 + (uint64_t)dmg);
		fb_msg(&f, m, 12);
		fb_msg(&f, m, 12);
		len = fb_finish(&f);
		memcpy(o.buf, f.buf, f.ip + 20);
		memset(o.buf + f.ip + 20, 0x01, 4);	/* four NOPs */
		memcpy(o.buf + f.ip + 24, f.buf + f.ip + 20, len - f.ip - 20);
		len += 4;
		ip = o.buf + f.ip;
		ip[0] = 0x46;
		hgw_put_be16(ip + 2, (uint16_t)(hgw_be16(ip + 2) + 4));
		hgw_cksum_fill_ipv4_udp(ip, 24);
		if (dmg == 1)
			o.buf[len - 3] ^= 0x10;
		if (dmg == 2)
			ip[21] ^= 0x40;
		got = 0;
		int rc = hgw_feed_packet(&feed, o.buf, len, &p);

		if (dmg == 0)
			HGW_CHECK_EQ(rc, 2);
		else
			HGW_CHECK_EQ(hgw_feed_reason(rc), dmg == 1 ?
				     HGW_FEED_DROP_UDP_CHECKSUM :
				     HGW_FEED_DROP_IP_CHECKSUM);
	}
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_UDP_CHECKSUM), 3);
	HGW_CHECK_EQ(drops(HGW_FEED_DROP_IP_CHECKSUM), 3);
}

/* The 64 symbols a session key packs injectively. */
static const char key_syms[64] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz \0";

static uint64_t
key_of(const char *n)
{
	return hgw_feed_session_key(n);
}

#define xrnd hgw_xorshift64s

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void
test_session_key(void)
{
	static uint64_t keys[HGW_MOLD_SESSION_LEN * 64];
	char n[HGW_MOLD_SESSION_LEN];
	uint32_t nk = 0, dup = 0, zero = 0;

	/* every name that differs from a base in one position, each symbol */
	memcpy(n, "NASDAQ01  ", HGW_MOLD_SESSION_LEN);
	for (int pos = 0; pos < HGW_MOLD_SESSION_LEN; pos++)
		for (int v = 0; v < 64; v++) {
			char m[HGW_MOLD_SESSION_LEN];

			memcpy(m, n, sizeof(m));
			m[pos] = key_syms[v];
			if (pos != 0 && m[pos] == n[pos])
				continue;	/* the base itself, once */
			keys[nk++] = key_of(m);
		}
	HGW_CHECK_EQ(nk, 1 + HGW_MOLD_SESSION_LEN * 63);
	qsort(keys, nk, sizeof(keys[0]), cmp_u64);
	for (uint32_t i = 0; i < nk; i++) {
		zero += keys[i] == 0;
		dup += i > 0 && keys[i] == keys[i - 1];
		HGW_CHECK(keys[i] >> 63 == 1);	/* the packed space */
	}
	HGW_CHECK_EQ(dup, 0);
	HGW_CHECK_EQ(zero, 0);

	/* random pairs of alphabet names: equal keys iff equal names */
	uint64_t s = 0x5E55C0DEULL;
	uint32_t bad = 0;

	for (int i = 0; i < 200000; i++) {
		char a[HGW_MOLD_SESSION_LEN], b[HGW_MOLD_SESSION_LEN];

		for (int j = 0; j < HGW_MOLD_SESSION_LEN; j++)
			a[j] = key_syms[xrnd(&s) % 64];
		memcpy(b, a, sizeof(b));
		/* change 1..3 positions, sometimes to the same symbol */
		for (int c = 1 + (int)(xrnd(&s) % 3); c > 0; c--) {
			int pos = (int)(xrnd(&s) % HGW_MOLD_SESSION_LEN);

			b[pos] = key_syms[xrnd(&s) % 64];
		}
		int same = memcmp(a, b, sizeof(a)) == 0;

		bad += (key_of(a) == key_of(b)) != same;
		bad += key_of(a) == 0 || key_of(b) == 0;
	}
	HGW_CHECK_EQ(bad, 0);

	/* blank names: all spaces, all NULs, and mixes, are distinct */
	uint64_t spaces = key_of("          "), nuls = key_of("\0\0\0\0\0"
							 "\0\0\0\0\0");

	HGW_CHECK(spaces != nuls);
	HGW_CHECK(spaces != 0 && nuls != 0);
	HGW_CHECK(key_of("         \0") != spaces);
	HGW_CHECK(key_of("\0         ") != spaces);

	/* other bytes: a hashed key, never 0, never in the packed space, so
	 * different from every alphabet key, and still a function of all
	 * ten bytes */
	static const char *const odd[] = {
		"NASDAQ01 \x01", "NASDAQ01\xff ", "-ASDAQ01  ", "NASDAQ.1  ",
		"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "nasdaq_01 ",
	};
	uint64_t ok[sizeof(odd) / sizeof(odd[0])];

	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		ok[i] = key_of(odd[i]);
		HGW_CHECK(ok[i] != 0);
		HGW_CHECK_EQ(ok[i] >> 62, 1);	/* bit 62 set, bit 63 clear */
		HGW_CHECK(bsearch(&ok[i], keys, nk, sizeof(keys[0]),
				  cmp_u64) == NULL);
		HGW_CHECK_EQ(key_of(odd[i]), ok[i]);	/* deterministic */
		for (size_t j = 0; j < i; j++)
			HGW_CHECK(ok[i] != ok[j]);
	}
	/* a random sample of non-alphabet names: none lands on 0 or in
	 * the packed space */
	for (int i = 0; i < 100000; i++) {
		char a[HGW_MOLD_SESSION_LEN];

		for (int j = 0; j < HGW_MOLD_SESSION_LEN; j++)
			a[j] = (char)(xrnd(&s) & 0xFF);
		a[xrnd(&s) % HGW_MOLD_SESSION_LEN] = '\x7f';
		bad += key_of(a) == 0 || key_of(a) >> 63 != 0;
	}
	HGW_CHECK_EQ(bad, 0);

	/* the decoder keys every session it creates */
	uint8_t m[64];
	struct fb f;
	int got;

	feed_reset(0);
	fb_itch(m, 'S', 0, 12);
	fb_start(&f, 0, "PHANTOM\x01  ", 1);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	end_session("PHANTOM\x01  ", 2);
	fb_start(&f, 0, "NASDAQ01  ", 1);
	fb_msg(&f, m, 12);
	HGW_CHECK_EQ(run(&f, fb_finish(&f), &got), 1);
	HGW_CHECK_EQ(feed.nsessions, 2);
	for (uint32_t i = 0; i < feed.nsessions; i++)
		HGW_CHECK_EQ(feed.sessions[i].key,
			     key_of(feed.sessions[i].name));
	HGW_CHECK_EQ(feed.sessions[1].key, key_of("NASDAQ01  "));
	HGW_CHECK_EQ(feed.sessions[0].key >> 62, 1);
}

static void
test_reason_names(void)
{
	for (int d = 0; d < HGW_FEED_DROP_MAX; d++) {
		const char *n = hgw_feed_drop_name((enum hgw_feed_drop)d);

		HGW_CHECK(n != NULL && *n != '\0');
		HGW_CHECK_EQ(hgw_feed_drop_by_name(n), d);
		HGW_CHECK(*hgw_feed_drop_help((enum hgw_feed_drop)d) != '\0');
	}
	HGW_CHECK_EQ(hgw_feed_drop_by_name("nope"), -1);
}

static void
test_stats_add(void)
{
	struct hgw_feed_stats a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.messages = 2;
	b.messages = 3;
	b.by_type['A'] = 7;
	b.drops[HGW_FEED_DROP_NOT_FEED] = 1;
	hgw_feed_stats_add(&a, &b);
	HGW_CHECK_EQ(a.messages, 5);
	HGW_CHECK_EQ(a.by_type['A'], 7);
	HGW_CHECK_EQ(hgw_feed_drops_total(&a), 1);
}

#define ALT_IP   0x0A000002u
#define ALT_PORT 30000

/* A random stream's state. */
struct gen {
	uint64_t rs;
	uint64_t next;      /* where the stream is */
	uint64_t old_next;  /* where the last session ended */
	int sess;           /* its session: "S0", "S1", ... */
	int late;           /* a frame of the ended session comes next */
	int back_to_1;      /* a session met mid-way: go back to its start
			     * after the first frame (a recovery) */
	uint16_t vlan;      /* the VLAN the decoder requires (0: none) */
};

/* One random frame of a stream that mostly goes on in order, with gaps
 * (some beyond max_jump), repeats and overlaps, heartbeats, ends of
 * session followed by a new session (met at its start or mid-way, then
 * sometimes filled from its start), late frames of the ended session,
 * stray frames of another session, retransmissions, messages of a bad
 * type or length, and sequence 0. */
static uint32_t
random_frame(struct fb *f, struct gen *g)
{
	char name[3] = { 'S', (char)('0' + g->sess % 10), 0 };
	uint32_t r = (uint32_t)(xrnd(&g->rs) % 100);
	uint64_t seq = g->next;
	uint16_t count = (uint16_t)(1 + xrnd(&g->rs) % 4);
	int end = 0;

	if (g->late) {
		g->late = 0;
		name[1] = (char)('0' + (g->sess + 9) % 10);
		seq = g->old_next;
		r = 100;
	}
	if (r < 8)
		seq += 1 + xrnd(&g->rs) % 300;		/* a gap */
	else if (r < 14)
		seq -= xrnd(&g->rs) % (seq < 8 ? seq : 8); /* a repeat */
	else if (r == 14 && g->next > 200)
		name[1] = (char)('0' + (g->sess + 1) % 10);	/* a stray */
	else if (r == 15)
		seq = 1 + xrnd(&g->rs) % 5;		/* a restart */
	else if (r == 16)
		seq = 0;
	else if (r < 20)
		count = 0;				/* heartbeat */
	else if (r < 100 && g->sess < 2 && xrnd(&g->rs) % 3000 == 0)
		end = 1, count = 0;
	/* tagged: mostly with the required VLAN (else another, or none);
	 * when none is required, mostly untagged */
	uint32_t tag = (uint32_t)(xrnd(&g->rs) % 20);

	fb_start(f, g->vlan ? (uint16_t)(tag == 0 ? 0 : g->vlan + (tag == 1)) :
		 (uint16_t)(tag < 2 ? 7 : 0), name, seq);
	for (uint16_t i = 0; i < count; i++) {
		uint8_t m[64];
		uint32_t t = (uint32_t)(xrnd(&g->rs) % sizeof(all_lens));
		uint16_t l = all_lens[t];

		if (xrnd(&g->rs) % 50 == 0)
			l = (uint16_t)(l - 1);		/* bad length */
		fb_itch(m, xrnd(&g->rs) % 60 == 0 ? (uint8_t)'z' :
			(uint8_t)all_types[t], 7, l);
		fb_msg(f, m, l);
	}
	if (xrnd(&g->rs) % 20 == 0) {			/* a retransmission */
		hgw_put_be32(f->buf + f->ip + 16, ALT_IP);
		hgw_put_be16(f->buf + f->ip + 22, ALT_PORT);
	}
	if (xrnd(&g->rs) % 25 == 0) {
		/* a damaged header: a byte of Ethernet, IPv4 or UDP (the
		 * checksums made right again, or not), or a cut frame */
		uint32_t len = fb_finish(f), r2 = (uint32_t)(xrnd(&g->rs) % 4);

		if (r2 == 3)
			return (uint32_t)(xrnd(&g->rs) % len);
		f->buf[12 + xrnd(&g->rs) % 30] ^= (uint8_t)(1u << (xrnd(&g->rs) % 8));
		/* (the checksum covers the UDP length the header claims) */
		if (r2 != 0 && hgw_be16(f->buf + f->ip + 24) <= len - f->ip - 20)
			fb_checksums(f->buf + f->ip);
		return len;
	}
	if (end) {
		g->sess++;
		g->old_next = seq;
		g->late = (int)(xrnd(&g->rs) & 1);
		g->back_to_1 = (int)(xrnd(&g->rs) & 1);
		g->next = g->back_to_1 ? 2 + xrnd(&g->rs) % 1000 : 1;
		return fb_finish_count(f, HGW_MOLD_END_SESSION);
	}
	if (name[1] == (char)('0' + g->sess % 10) && seq != 0 &&
	    seq + count > g->next)
		g->next = seq + count;
	if (g->back_to_1 && name[1] == (char)('0' + g->sess % 10)) {
		g->back_to_1 = 0;
		g->next = 1;
	}
	return fb_finish(f);
}

/* The in-order fast path takes a packet exactly as the general path
 * would: random streams under every mix of options, decoded by both,
 * give the same result, messages and state after every frame. */
static void
test_fast_path_agrees(void)
{
	static struct hgw_feed a, b;
	static struct fb f;
	uint64_t rs = 0xFA57FA57ULL;
	uint32_t bad = 0, frames = 0, taken = 0, data = 0;

	for (int c = 0; c < 32; c++) {
		struct hgw_feed_conf conf = {
			.group = FB_GROUP, .port = FB_PORT,
			.max_jump = (c & 1) ? 100 : 0,
			.session_confirm = (c & 2) ? 2 : 0,
			.join_baseline = (c >> 2) & 1,
			.hold_ahead = (c >> 3) & 1,
			.alt_ip = (c & 16) ? ALT_IP : 0,
			.alt_port = (c & 16) ? ALT_PORT : 0,
		};

		struct gen g = { .rs = rs + (uint64_t)c, .next = 1 };

		/* and the address tests the fast path leaves to the long
		 * way: any group or port, a second line, a VLAN required */
		if (c % 5 == 1)
			conf.group = 0;
		if (c % 5 == 2)
			conf.port = 0;
		if (c % 5 == 3)
			conf.group_b = FB_GROUP ^ 1;
		if (c % 7 == 6)
			conf.vlan = 5;
		g.vlan = conf.vlan;

		ref_feed_init(&a, &conf);
		hgw_feed_init(&b, &conf);
		for (int i = 0; i < 20000; i++) {
			/* now and then a re-request outstanding (or none),
			 * around the current session's next number, so that
			 * some retransmissions are asked for and some not */
			if (xrnd(&rs) % 16 == 0) {
				int32_t cs = b.current < 0 ? 0 : b.current;
				uint64_t nx = b.sessions[cs].next_seq;
				uint64_t lo = nx > 2 ? nx - xrnd(&rs) % 3 : 1;
				uint64_t n = xrnd(&rs) % 40;

				if (xrnd(&rs) % 4 == 0) {
					hgw_feed_retrans_none(&a);
					hgw_feed_retrans_none(&b);
				} else {
					hgw_feed_retrans_expect(&a, (uint16_t)cs, lo, n);
					hgw_feed_retrans_expect(&b, (uint16_t)cs, lo, n);
				}
			}
			uint32_t len = random_frame(&f, &g);
			uint32_t ck = conf.hold_ahead && xrnd(&rs) % 3 == 0 ?
				      HGW_FEED_TAKE_GAP : 0;
			struct hgw_feed_pkt pa, pb;
			int ra = ref_feed_packet_ck(&a, f.buf, len, ck, &pa);
			int rb = hgw_feed_packet_ck(&b, f.buf, len, ck, &pb);
			const uint8_t *ma, *mb;
			uint16_t la = 0, lb = 0;

			frames++;
			data += rb > 0;
			bad += ra != rb;
			if (ra >= 0 && rb >= 0) {
				bad += !feed_pkt_same(&pa, &pb);
				do {
					ma = hgw_feed_next(&a, &pa, &la);
					mb = hgw_feed_next(&b, &pb, &lb);
					bad += ma != mb || la != lb ||
					       pa.seq != pb.seq;
					taken += mb != NULL;
				} while (ma != NULL && mb != NULL);
			}
			bad += !feed_same(&a, &b);
			if (bad != 0) {
				printf("# conf %d frame %d: %d vs %d\n", c, i,
				       ra, rb);
				HGW_CHECK_EQ(bad, 0);
				return;
			}
		}
	}
	HGW_CHECK_EQ(bad, 0);
	/* most frames were taken with messages: the fast path's case */
	HGW_CHECK(data > frames / 5 * 2);
	printf("# %u frames, %u taken with %u messages, both paths alike\n",
	       frames, data, taken);
}

int
main(void)
{
	HGW_TEST(test_length_table);
	HGW_TEST(test_every_type_exact_short_long);
	HGW_TEST(test_typed_views);
	HGW_TEST(test_vlan);
	HGW_TEST(test_frame_drops);
	HGW_TEST(test_sequencing);
	HGW_TEST(test_sessions);
	HGW_TEST(test_phantom_sessions);
	HGW_TEST(test_suspect_and_join);
	HGW_TEST(test_checksums);
	HGW_TEST(test_hold_ahead);
	HGW_TEST(test_session_key);
	HGW_TEST(test_reason_names);
	HGW_TEST(test_stats_add);
	HGW_TEST(test_fast_path_agrees);
	return hgw_test_done();
}
