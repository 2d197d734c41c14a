/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: control events (when one is due), decision digests,
 * checkpoints (torn reads under a concurrent writer) and the majority
 * vote that takes a differing replica out of the race.
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

int
main(void)
{
	HGW_TEST(test_due);
	HGW_TEST(test_describe);
	HGW_TEST(test_digest);
	HGW_TEST(test_ckpt_basic);
	HGW_TEST(test_ckpt_torn);
	HGW_TEST(test_vote);
	return hgw_test_done();
}
