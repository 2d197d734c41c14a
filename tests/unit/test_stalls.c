/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: the stall analysis on synthetic stalls (known
 * overlaps, known periods, known percentiles).
 */
#include <stdlib.h>
#include <string.h>

#include "hgw_stalls.h"
#include "hgw_test.h"

#define MS 1000000ull
#define US 1000ull

static struct hgw_stall s0[250], s1[1000], s2[500], s3[2], s4[2000];
static struct hgw_stall_stats st[5];
static uint64_t scratch[2000];

static void
trace(struct hgw_stall_trace *t, unsigned int cpu, struct hgw_stall *s,
      uint32_t n)
{
	memset(t, 0, sizeof(*t));
	t->cpu = cpu;
	t->stalls = s;
	t->cap = n;
	t->n = n;
}

/* cpu 10: a 4 ms tick; cpu 11: a 1 ms one, every fourth inside one of
 * cpu 10's; cpu 12: every 2 ms between them (touching, never inside),
 * durations 1..500 us; cpu 13: one stall ending exactly where one of
 * cpu 10's starts, one starting 1 ns before one ends. */
static void
test_overlap_periods_percentiles(void)
{
	struct hgw_stall_trace t[4];

	for (unsigned int k = 0; k < 250; k++)
		s0[k] = (struct hgw_stall){ k * 4 * MS, 10 * US };
	for (unsigned int k = 0; k < 1000; k++)
		s1[k] = (struct hgw_stall){ k * MS + 5 * US, 10 * US };
	for (unsigned int k = 0; k < 500; k++)
		s2[k] = (struct hgw_stall){ 2 * k * MS + 1500 * US,
					    (k + 1) * US };
	s3[0] = (struct hgw_stall){ 4 * MS - 10 * US, 10 * US };
	s3[1] = (struct hgw_stall){ 8 * MS + 10 * US - 1, 100 };
	trace(&t[0], 10, s0, 250);
	trace(&t[1], 11, s1, 1000);
	trace(&t[2], 12, s2, 500);
	trace(&t[3], 13, s3, 2);
	hgw_stalls_analyze(t, 4, 1000 * MS, st, scratch);

	HGW_CHECK_EQ(st[0].cpu, 10);
	HGW_CHECK_EQ(st[0].n, 250);
	HGW_CHECK(st[0].per_s > 249.9 && st[0].per_s < 250.1);
	HGW_CHECK_EQ(st[0].overlapped, 250);
	HGW_CHECK_EQ(st[1].overlapped, 250);
	HGW_CHECK(st[1].overlap_share > 0.2499 && st[1].overlap_share < 0.2501);
	HGW_CHECK_EQ(st[2].overlapped, 0);
	HGW_CHECK_EQ(st[3].overlapped, 1);

	HGW_CHECK_EQ(st[0].p50_ns, 10 * US);
	HGW_CHECK_EQ(st[0].max_ns, 10 * US);
	HGW_CHECK_EQ(st[2].p50_ns, 250 * US);
	HGW_CHECK_EQ(st[2].p99_ns, 495 * US);
	HGW_CHECK_EQ(st[2].max_ns, 500 * US);
	HGW_CHECK_EQ(st[2].stalled_ns, 500 * 501 / 2 * US);

	/* consecutive intervals: all 4 ms, 1 ms, 2 ms */
	HGW_CHECK_EQ(st[0].intervals[40], 249);
	HGW_CHECK_EQ(st[1].intervals[10], 999);
	HGW_CHECK_EQ(st[2].intervals[20], 499);

	/* one period each, its multiples being echoes */
	HGW_CHECK_EQ(st[0].nperiods, 1);
	HGW_CHECK_EQ(st[0].periods[0].period_ns, 4 * MS);
	HGW_CHECK_EQ(st[0].periods[0].excess, 249);
	HGW_CHECK_EQ(st[1].nperiods, 1);
	HGW_CHECK_EQ(st[1].periods[0].period_ns, 1 * MS);
	HGW_CHECK_EQ(st[2].nperiods, 1);
	HGW_CHECK_EQ(st[2].periods[0].period_ns, 2 * MS);
	HGW_CHECK_EQ(st[3].nperiods, 0);
}

/* Seeded xorshift64*: the same values on every run and every host. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static int
cmp_start(const void *a, const void *b)
{
	const struct hgw_stall *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* A 250 Hz tick (jittered by up to 3 us) buried in four times as many
 * stalls at random times over 2 s, and a 1000 Hz source on another
 * cpu beside it, standing out of the first one's echoes: both found,
 * the noise gives no period. */
static void
test_periods_in_noise(void)
{
	struct hgw_stall_trace t[2];
	uint32_t n = 0;

	for (unsigned int k = 0; k < 500; k++)
		s4[n++] = (struct hgw_stall){ k * 4 * MS + rnd() % (3 * US),
					      5 * US };
	for (unsigned int k = 0; k < 1500; k++)
		s4[n++] = (struct hgw_stall){ rnd() % (2000 * MS), 2 * US };
	qsort(s4, n, sizeof(s4[0]), cmp_start);
	/* a trace's stalls never overlap each other: drop those that do */
	uint32_t m = 1;
	for (uint32_t i = 1; i < n; i++)
		if (s4[i].start_ns >= s4[m - 1].start_ns + s4[m - 1].dur_ns)
			s4[m++] = s4[i];
	trace(&t[0], 0, s4, m);
	for (unsigned int k = 0; k < 1000; k++)
		s1[k] = (struct hgw_stall){ k * 2 * MS + 700 * US, 3 * US };
	trace(&t[1], 1, s1, 1000);
	hgw_stalls_analyze(t, 2, 2000 * MS, st, scratch);

	HGW_CHECK(m > 1900);
	HGW_CHECK_EQ(st[0].nperiods, 1);
	HGW_CHECK(st[0].periods[0].period_ns > 3990 * US &&
		  st[0].periods[0].period_ns < 4010 * US);
	HGW_CHECK(st[0].periods[0].share > 0.2 && st[0].periods[0].share < 0.3);
	HGW_CHECK(strcmp(hgw_stalls_period_name(st[0].periods[0].period_ns),
			 "250 Hz tick") == 0);
	HGW_CHECK_EQ(st[1].nperiods, 1);
	HGW_CHECK_EQ(st[1].periods[0].period_ns, 2 * MS);
	HGW_CHECK(st[1].overlap_share < 0.01);
}

static void
test_period_names(void)
{
	HGW_CHECK(strcmp(hgw_stalls_period_name(4 * MS), "250 Hz tick") == 0);
	HGW_CHECK(strcmp(hgw_stalls_period_name(1 * MS + 20 * US),
			 "1000 Hz tick") == 0);
	HGW_CHECK(strcmp(hgw_stalls_period_name(3333 * US), "300 Hz tick") == 0);
	HGW_CHECK(strcmp(hgw_stalls_period_name(10 * MS), "100 Hz tick") == 0);
	HGW_CHECK(hgw_stalls_period_name(2 * MS) == NULL);
	HGW_CHECK(hgw_stalls_period_name(4 * MS + 200 * US) == NULL);
}

int
main(void)
{
	HGW_TEST(test_overlap_periods_percentiles);
	HGW_TEST(test_periods_in_noise);
	HGW_TEST(test_period_names);
	return hgw_test_done();
}
