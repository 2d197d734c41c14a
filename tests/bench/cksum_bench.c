/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire benchmark: lib/cksum against DPDK 22.11's checksum helpers,
 * on the sizes hedgewire sums: an IPv4 header (20 bytes), an order's TCP
 * segment (20-byte header and 53 bytes of SoupBinTCP + OUCH Enter Order,
 * with the pseudo header), a feed datagram (UDP header and 4 ITCH
 * messages, 8 + 150 bytes) and a full one (8 + 1,464 bytes). Each call is
 * timed in a loop of n, on data already in L1, and the results are
 * checked equal (the benchmark stops otherwise). Prints ns a call, best
 * and median of 7 rounds.
 *   cksum_bench [n]      (pin it: taskset -c 1)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include "hgw_cksum.h"

#define ROUNDS 7

static uint8_t frame[2048] __attribute__((aligned(64)));
static volatile uint32_t sink;

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One way of summing what case c covers: a raw sum of len bytes at p
 * (case 0, 2, 3 without the pseudo header), or a transport checksum with
 * it (the pseudo header from the IPv4 header at frame). */
static uint16_t
sum_hgw(int l4, const uint8_t *ip, const uint8_t *p, uint32_t len)
{
	if (l4)
		return (uint16_t)~hgw_cksum_l4(ip, p, len, ip[9]);
	return hgw_cksum_fold(hgw_cksum_add(0, p, len));
}

/* DPDK's, as it is used: the sum or the checksum in memory's byte order
 * (converted here to the value, as lib/cksum gives it) */
static uint16_t
sum_rte(int l4, const uint8_t *ip, const uint8_t *p, uint32_t len)
{
	if (l4)
		return rte_be_to_cpu_16(rte_ipv4_udptcp_cksum(
			(const struct rte_ipv4_hdr *)ip, p));
	return rte_be_to_cpu_16(rte_raw_cksum(p, len));
}

typedef uint16_t (*sum_fn)(int, const uint8_t *, const uint8_t *, uint32_t);

/* ns a call: best and median of ROUNDS rounds of n calls (inlined, so
 * each sum is inlined into its loop as in the code that uses it) */
static inline __attribute__((always_inline)) void
time_ns(sum_fn f, int l4, const uint8_t *ip, const uint8_t *p, uint32_t len,
	uint64_t n, double ns_per_cycle, double out[2])
{
	uint64_t r[ROUNDS];

	for (int k = 0; k < ROUNDS; k++) {
		uint32_t acc = 0;
		uint64_t t0 = rte_rdtsc_precise();

		for (uint64_t i = 0; i < n; i++) {
			/* memory may have changed: the compiler cannot
			 * hoist the sum out of the loop (a store into the
			 * data instead would stall its vector loads) */
			__asm__ volatile("" ::: "memory");
			acc += f(l4, ip, p, len);
		}
		r[k] = rte_rdtsc_precise() - t0;
		sink = acc;
	}
	qsort(r, ROUNDS, sizeof(r[0]), cmp_u64);
	out[0] = (double)r[0] * ns_per_cycle / (double)n;
	out[1] = (double)r[ROUNDS / 2] * ns_per_cycle / (double)n;
}

int
main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
	static const struct { const char *name; int l4; uint8_t proto;
			      uint32_t len; } cases[] = {
		{ "ipv4 header, 20 B", 0, 6, 20 },
		{ "tcp order segment, 20 + 53 B", 1, 6, 73 },
		{ "udp feed datagram, 8 + 150 B", 1, 17, 158 },
		{ "udp full datagram, 8 + 1464 B", 1, 17, 1472 },
	};
	uint64_t hz;
	double ns;

	/* the TSC's rate, measured against the monotonic clock */
	{
		struct timespec a, b;
		uint64_t c0, c1;

		clock_gettime(CLOCK_MONOTONIC, &a);
		c0 = rte_rdtsc();
		do
			clock_gettime(CLOCK_MONOTONIC, &b);
		while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 200000000L);
		c1 = rte_rdtsc();
		hz = (uint64_t)((double)(c1 - c0) * 1e9 /
			(double)((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec));
	}
	ns = 1e9 / (double)hz;		/* ns a TSC cycle */
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 131 + 7);
	printf("lib/cksum vs DPDK 22.11: ns a call, best / median of %d rounds "
	       "of %" PRIu64 "\n", ROUNDS, n);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint8_t *ip = frame + 14, *p = ip + 20;
		uint32_t len = cases[c].len;
		double a[2], b[2];

		ip[0] = 0x45;
		ip[9] = cases[c].proto;
		ip[2] = (uint8_t)((20 + len) >> 8);
		ip[3] = (uint8_t)(20 + len);
		if (!cases[c].l4)
			p = ip;
		for (int k = 0; k < 256; k++) {
			frame[60] = (uint8_t)k;
			if (sum_hgw(cases[c].l4, ip, p, len) !=
			    sum_rte(cases[c].l4, ip, p, len)) {
				fprintf(stderr, "%s: lib/cksum %04x, DPDK %04x\n",
					cases[c].name, sum_hgw(cases[c].l4, ip, p, len),
					sum_rte(cases[c].l4, ip, p, len));
				return 1;
			}
		}
		time_ns(sum_hgw, cases[c].l4, ip, p, len, n, ns, a);
		time_ns(sum_rte, cases[c].l4, ip, p, len, n, ns, b);
		printf("  %-30s lib/cksum %6.2f / %6.2f  DPDK %6.2f / %6.2f  "
		       "(DPDK / lib/cksum, best: %.2f)\n", cases[c].name,
		       a[0], a[1], b[0], b[1], b[0] / a[0]);
	}
	return 0;
}
