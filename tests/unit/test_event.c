/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: control events (when one is due), decision digests,
 * checkpoints (torn reads under a concurrent writer), the majority vote
 * that takes a differing replica out of the race, and where an event is
 * placed (the furthest of the workers' published positions).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hgw_event.h"
#include "hgw_test.h"

/* The position rule: (key, seq), sessions in first-met order. */
static void
test_due(void)
{
	/* before the first message: always due */
	HGW_CHECK(hgw_event_due(0, 0, -1, 0, 1));
	/* its session not met yet: never due */
	HGW_CHECK(!hgw_event_due(7, 100, -1, 0, 5000));
	/* same session: due from its sequence number on */
	HGW_CHECK(!hgw_event_due(7, 100, 1, 1, 99));
	HGW_CHECK(hgw_event_due(7, 100, 1, 1, 100));
	HGW_CHECK(hgw_event_due(7, 100, 1, 1, 101));
	/* an earlier session: not due; a later one: due */
	HGW_CHECK(!hgw_event_due(7, 100, 1, 0, 1000000));
	HGW_CHECK(hgw_event_due(7, 100, 1, 2, 1));
}

static const char *
lname(int k)
{
	return k == 3 ? "max_position" : NULL;
}

static void
test_describe(void)
{
	struct hgw_event e = { .type = HGW_EVENT_KILL, .arg = 1 };
	char b[64];

	hgw_event_describe(&e, lname, 0, b, sizeof(b));
	HGW_CHECK(strcmp(b, "kill 1") == 0);
	e = (struct hgw_event){ .type = HGW_EVENT_DISABLE, .arg = 0 };
	strcpy(e.symbol, "ABCD");
	hgw_event_describe(&e, lname, 0, b, sizeof(b));
	HGW_CHECK(strcmp(b, "disable ABCD 0") == 0);
	e = (struct hgw_event){ .type = HGW_EVENT_LIMIT, .arg = 3, .value = 300 };
	hgw_event_describe(&e, lname, 0, b, sizeof(b));
	HGW_CHECK(strcmp(b, "limit max_position 300") == 0);
	e = (struct hgw_event){ .type = HGW_EVENT_PATCH };
	hgw_event_describe(&e, lname, 5, b, sizeof(b));
	HGW_CHECK(strcmp(b, "patch 5") == 0);
	e = (struct hgw_event){ .type = HGW_EVENT_UNSENT, .value = 2655 };
	memcpy(e.symbol, "0000000001", 10);
	hgw_event_describe(&e, lname, 0, b, sizeof(b));
	HGW_CHECK(strcmp(b, "unsent 30303030303030303031 2655") == 0);
	HGW_CHECK(strcmp(hgw_leave_reason_name(HGW_LEAVE_DIGEST), "digest") == 0);
}

/* Order matters, every word matters. */
static void
test_digest(void)
{
	uint64_t a = HGW_DIGEST_INIT, b = HGW_DIGEST_INIT, c = HGW_DIGEST_INIT;

	a = hgw_digest_fold(hgw_digest_fold(a, 1), 2);
	b = hgw_digest_fold(hgw_digest_fold(b, 2), 1);
	c = hgw_digest_fold(hgw_digest_fold(c, 1), 2);
	HGW_CHECK(a != b);
	HGW_CHECK(a == c);
	/* one bit anywhere changes the digest */
	for (int bit = 0; bit < 64; bit++) {
		uint64_t x = hgw_digest_fold(HGW_DIGEST_INIT, 12345);
		uint64_t y = hgw_digest_fold(HGW_DIGEST_INIT,
					     12345 ^ (1ull << bit));

		HGW_CHECK(hgw_digest_fold(x, 9) != hgw_digest_fold(y, 9));
	}
}

static struct hgw_ckpt_ring ring;

static void
test_ckpt_basic(void)
{
	struct hgw_ckpt c, o;

	memset(&ring, 0, sizeof(ring));
	HGW_CHECK(hgw_ckpt_latest(&ring, &o) != 0);
	HGW_CHECK(hgw_ckpt_find(&ring, 1, 0, &o) != 0);	/* empty slots */
	for (uint64_t i = 1; i <= HGW_CKPT_SLOTS + 36; i++) {
		c = (struct hgw_ckpt){ 9, i * 1024, i * 7, i };
		hgw_ckpt_publish(&ring, &c);
	}
	HGW_CHECK(hgw_ckpt_latest(&ring, &o) == 0);
	HGW_CHECK_EQ(o.seq, (HGW_CKPT_SLOTS + 36) * 1024);
	HGW_CHECK_EQ(o.digest, (HGW_CKPT_SLOTS + 36) * 7);
	/* the last HGW_CKPT_SLOTS are held, older ones are gone */
	HGW_CHECK(hgw_ckpt_find(&ring, 9, 37 * 1024, &o) == 0);
	HGW_CHECK_EQ(o.decisions, 37);
	HGW_CHECK(hgw_ckpt_find(&ring, 9, 36 * 1024, &o) != 0);
	/* the key is part of the identity */
	HGW_CHECK(hgw_ckpt_find(&ring, 8, 37 * 1024, &o) != 0);
}

/* A writer publishes as fast as it can, lapping the ring; readers scan
 * the slots while they are rewritten and must never accept one whose
 * fields come from two different checkpoints. */
static _Atomic int stop;

static uint64_t
mix(uint64_t i)
{
	return hgw_digest_fold(HGW_DIGEST_INIT, i);
}

static void *
writer(void *arg)
{
	(void)arg;
	for (uint64_t i = 1; !atomic_load(&stop); i++) {
		struct hgw_ckpt c = { 42, i % 128, mix(i), i };

		hgw_ckpt_publish(&ring, &c);
	}
	return NULL;
}

static void
test_ckpt_torn(void)
{
	pthread_t t;
	uint64_t ok = 0, bad = 0;

	memset(&ring, 0, sizeof(ring));
	atomic_store(&stop, 0);
	HGW_CHECK(pthread_create(&t, NULL, writer, NULL) == 0);
	/* until the writer has lapped the ring many times while we read
	 * (it may not be scheduled at once on a busy machine), 3 s at most */
	time_t end = time(NULL) + 3;

	for (uint64_t n = 0; (n < 400000 ||
			      atomic_load(&ring.n) < 2000000) &&
			     time(NULL) < end; n++) {
		struct hgw_ckpt o;

		if (hgw_ckpt_find(&ring, 42, n % 128, &o) != 0)
			continue;
		ok++;
		if (o.digest != mix(o.decisions) || o.seq != o.decisions % 128)
			bad++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("# %" PRIu64 " reads, %" PRIu64 " torn accepted\n", ok, bad);
	HGW_CHECK(ok > 0);
	HGW_CHECK_EQ(bad, 0);
}

static void
test_vote(void)
{
	uint8_t keep[8];
	uint64_t all[3] = { 5, 5, 5 }, one[3] = { 5, 6, 5 };
	uint64_t two[2] = { 5, 6 }, half[4] = { 1, 1, 2, 2 };
	uint64_t three[4] = { 1, 2, 1, 1 };

	HGW_CHECK_EQ(hgw_digest_vote(all, 3, keep), 3);
	HGW_CHECK(keep[0] && keep[1] && keep[2]);
	HGW_CHECK_EQ(hgw_digest_vote(one, 3, keep), 2);
	HGW_CHECK(keep[0] && !keep[1] && keep[2]);
	/* two replicas that differ: no majority, nobody is trusted */
	HGW_CHECK_EQ(hgw_digest_vote(two, 2, keep), 0);
	HGW_CHECK(!keep[0] && !keep[1]);
	HGW_CHECK_EQ(hgw_digest_vote(half, 4, keep), 0);
	HGW_CHECK(!keep[0] && !keep[1] && !keep[2] && !keep[3]);
	HGW_CHECK_EQ(hgw_digest_vote(three, 4, keep), 3);
	HGW_CHECK(keep[0] && !keep[1] && keep[2] && keep[3]);
}

/* Event placement: the furthest of the workers' published positions, the
 * rule being the one of hgw_event_due (sessions in first-met order). */
static void
test_pos(void)
{
	/* sessions A then B, as two workers met them; C met by none */
	const uint64_t A = 0xa, B = 0xb, C = 0xc;
	struct hgw_pos_session ab[2] = { { A, "SESSIONAAA" }, { B, "SESSIONBBB" } };
	struct hgw_pos_session b_only[1] = { { B, "SESSIONBBB" } };
	const struct hgw_pos_session *met[3] = { ab, ab, b_only };
	uint64_t word[3];
	uint32_t s = 99;
	uint64_t q = 99;

	/* a word and its decoding; 0, and indexes past nmax, hold none */
	HGW_CHECK(hgw_pos_decode(hgw_pos_word(1, 77), 4, &s, &q));
	HGW_CHECK_EQ(s, 1);
	HGW_CHECK_EQ(q, 77);
	HGW_CHECK(!hgw_pos_decode(0, 4, &s, &q));
	HGW_CHECK(!hgw_pos_decode(hgw_pos_word(4, 1), 4, &s, &q));
	HGW_CHECK(hgw_pos_decode(hgw_pos_word(3, 1), 4, &s, &q));
	HGW_CHECK_EQ(hgw_pos_decode(hgw_pos_word(0, HGW_POS_SEQ_MASK + 5), 4,
				    &s, &q), 1);
	HGW_CHECK_EQ(q, 4);                     /* the sequence bits only */

	/* at or past: same session by sequence; an earlier session of
	 * the worker is behind it; a session it has not met is ahead */
	HGW_CHECK(hgw_pos_at_or_past(ab, 0, 10, A, 10));
	HGW_CHECK(!hgw_pos_at_or_past(ab, 0, 9, A, 10));
	HGW_CHECK(hgw_pos_at_or_past(ab, 1, 1, A, 1000000));
	HGW_CHECK(!hgw_pos_at_or_past(ab, 0, 1000000, B, 1));
	HGW_CHECK(!hgw_pos_at_or_past(ab, 1, 1000000, C, 1));

	/* nobody has a position */
	word[0] = word[1] = word[2] = 0;
	HGW_CHECK_EQ(hgw_pos_furthest(word, met, 3, 4, &s, &q), -1);
	/* one session: the highest sequence; equals keep the first */
	word[0] = hgw_pos_word(0, 10);
	word[1] = hgw_pos_word(0, 30);
	HGW_CHECK_EQ(hgw_pos_furthest(word, met, 2, 4, &s, &q), 1);
	HGW_CHECK_EQ(s, 0);
	HGW_CHECK_EQ(q, 30);
	word[0] = hgw_pos_word(0, 30);
	HGW_CHECK_EQ(hgw_pos_furthest(word, met, 2, 4, &s, &q), 0);
	/* a worker in the later session is further, whatever the numbers */
	met[2] = ab;
	word[0] = hgw_pos_word(0, 1000000);
	word[1] = 0;
	word[2] = hgw_pos_word(1, 3);
	HGW_CHECK_EQ(hgw_pos_furthest(word, met, 3, 4, &s, &q), 2);
	HGW_CHECK_EQ(met[2][s].key, B);
	HGW_CHECK_EQ(q, 3);
	/* and a worker further in that same session takes over */
	word[1] = hgw_pos_word(1, 4);
	HGW_CHECK_EQ(hgw_pos_furthest(word, met, 3, 4, &s, &q), 1);
	HGW_CHECK_EQ(met[1][s].key, B);
	HGW_CHECK_EQ(q, 4);
	/* a word naming no session it could have published is ignored */
	word[1] = hgw_pos_word(7, 4);
	HGW_CHECK_EQ(hgw_pos_furthest(word, met, 3, 4, &s, &q), 2);
	/* a worker that never met the furthest one's session is not past
	 * it (only a session met before one's own is known to be behind) */
	met[2] = b_only;
	word[2] = hgw_pos_word(0, 3);
	HGW_CHECK_EQ(hgw_pos_furthest(word, met, 3, 4, &s, &q), 0);
	HGW_CHECK_EQ(q, 1000000);
}

int
main(void)
{
	HGW_TEST(test_due);
	HGW_TEST(test_describe);
	HGW_TEST(test_digest);
	HGW_TEST(test_ckpt_basic);
	HGW_TEST(test_ckpt_torn);
	HGW_TEST(test_vote);
	HGW_TEST(test_pos);
	return hgw_test_done();
}
