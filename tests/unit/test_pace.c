/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: unit tests of paced replay's deadlines (lib/pace/include/hgw_pace.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "hgw_test.h"
#include "hgw_nicclock.h"
#include "hgw_pace.h"

#define HZ 2500000000ull	/* a 2.5 GHz TSC */

/* |a - b| <= 1 cycle: the deadline is a double rounded down. */
static int
near(uint64_t a, uint64_t b)
{
	return a > b ? a - b <= 1 : b - a <= 1;
}

/* pcap pace follows the capture times: the first frame is due at t0, the
 * others (ts_i - ts_0) later, in cycles, divided by the speed. */
static void
test_pcap_follows_timestamps(void)
{
	static const uint64_t ts[] = { 1000000, 1000000, 1000001, 1000250,
				       1001000, 2000000, 61000000 };
	static const double speeds[] = { 1, 2, 0.5, 10, 1000 };

	for (size_t s = 0; s < sizeof(speeds) / sizeof(speeds[0]); s++) {
		struct hgw_pacer p;

		hgw_pacer_init_pcap(&p, 12345, HZ, 1e6, speeds[s]);
		for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
			/* microseconds -> 2500 cycles each, / speed */
			double want = 12345 + (double)(ts[i] - ts[0]) * 2500 /
				speeds[s];

			HGW_CHECK(near(hgw_pacer_pcap(&p, ts[i]),
				       (uint64_t)want));
		}
	}
}

/* Two workers reading the same file compute the same deadlines, whatever
 * they did before (independent pacers, same t0). */
static void
test_pcap_same_on_every_worker(void)
{
	struct hgw_pacer a, b;
	uint64_t ts = 5000;

	hgw_pacer_init_pcap(&a, 777, HZ, 1e6, 3);
	hgw_pacer_init_pcap(&b, 777, HZ, 1e6, 3);
	for (int i = 0; i < 1000; i++) {
		ts += (uint64_t)(rand() % 100);
		HGW_CHECK_EQ(hgw_pacer_pcap(&a, ts), hgw_pacer_pcap(&b, ts));
	}
}

/* A timestamp before the first (out of order in the file) is due at t0,
 * never before it or wrapped around. */
static void
test_pcap_backwards(void)
{
	struct hgw_pacer p;

	hgw_pacer_init_pcap(&p, 100, HZ, 1e6, 1);
	HGW_CHECK_EQ(hgw_pacer_pcap(&p, 50000), 100);
	HGW_CHECK_EQ(hgw_pacer_pcap(&p, 49999), 100);
	HGW_CHECK_EQ(hgw_pacer_pcap(&p, 0), 100);
	HGW_CHECK(near(hgw_pacer_pcap(&p, 50001), 100 + 2500));
}

/* Rate pace: frame i at t0 + i / pps, without drift over many frames. */
static void
test_rate(void)
{
	struct hgw_pacer p;

	hgw_pacer_init_rate(&p, 1000, HZ, 100000, 1);	/* 25000 cycles apart */
	for (uint64_t i = 0; i < 1000000; i++) {
		uint64_t d = hgw_pacer_rate(&p);

		if (i % 99991 == 0 || i == 999999)
			HGW_CHECK(near(d, 1000 + i * 25000));
	}
	hgw_pacer_init_rate(&p, 0, HZ, 3, 1);	/* not a whole number */
	HGW_CHECK_EQ(hgw_pacer_rate(&p), 0);
	HGW_CHECK(near(hgw_pacer_rate(&p), HZ / 3));
	HGW_CHECK(near(hgw_pacer_rate(&p), 2 * HZ / 3));
}

/* Bursts: b frames share the deadline of the burst's first frame, and
 * the average rate stays pps. */
static void
test_rate_bursts(void)
{
	struct hgw_pacer p;

	hgw_pacer_init_rate(&p, 0, HZ, 100000, 256);	/* 25000 cycles/frame */
	for (uint64_t i = 0; i < 10 * 256; i++) {
		uint64_t d = hgw_pacer_rate(&p);

		HGW_CHECK(near(d, (i / 256) * 256 * 25000));
	}
	hgw_pacer_init_rate(&p, 7, HZ, 100000, 0);	/* 0 means 1 */
	HGW_CHECK_EQ(hgw_pacer_rate(&p), 7);
	HGW_CHECK(near(hgw_pacer_rate(&p), 7 + 25000));
}

/* The NIC clock map: a 1 GHz NIC clock (ns ticks) on a 2.5 GHz TSC with
 * an offset; points before and after the origin; a clock that did not
 * move is refused. */
static void
test_nic_clock(void)
{
	struct hgw_nic_clock c;
	const uint64_t off = 123456789;	/* TSC at NIC clock 0 */

	HGW_CHECK_EQ(hgw_nic_clock_fit(&c, 1000, off + 2500, 1000, off + 9999), -1);
	HGW_CHECK_EQ(hgw_nic_clock_fit(&c, 1000000, off + 2500000,
				       1001000000, off + 2502500000u), 0);
	HGW_CHECK(near(hgw_nic_clock_tsc(&c, 1000000), off + 2500000));
	HGW_CHECK(near(hgw_nic_clock_tsc(&c, 2000000), off + 5000000));
	HGW_CHECK(near(hgw_nic_clock_tsc(&c, 500000), off + 1250000));
	HGW_CHECK(near(hgw_nic_clock_tsc(&c, 3600000000000ull),
		       off + 9000000000000ull));
	/* a clock 10 ppm fast: the fit follows it */
	HGW_CHECK_EQ(hgw_nic_clock_fit(&c, 0, 0, 1000010000, 2500000000u), 0);
	HGW_CHECK(near(hgw_nic_clock_tsc(&c, 1000010000), 2500000000u));
}

int
main(void)
{
	HGW_TEST(test_pcap_follows_timestamps);
	HGW_TEST(test_pcap_same_on_every_worker);
	HGW_TEST(test_pcap_backwards);
	HGW_TEST(test_rate);
	HGW_TEST(test_rate_bursts);
	HGW_TEST(test_nic_clock);
	return hgw_test_done();
}
