/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the NIC's RX timestamp clock on the TSC timeline.
 *
 * With [rx] timestamp = nic the arrival of a burst is the hardware RX
 * timestamp of its first frame (RTE_ETH_RX_OFFLOAD_TIMESTAMP, in the
 * NIC's clock ticks), converted to TSC cycles by a linear map fitted from
 * (NIC clock, TSC) pairs the control plane reads with rte_eth_read_clock:
 * one at start-up, then a new one every second over the whole baseline,
 * so the rate is known to a few ppm and drift is followed. Each pair's
 * TSC is the middle of the TSCs read around the clock read.
 * Pure arithmetic, shared by the control plane, the workers and a test.
 */
#ifndef HGW_NICCLOCK_H
#define HGW_NICCLOCK_H

#include <stdint.h>

/* Layout public because the workers and the control plane keep the map
 * by value and convert inline. */
struct hgw_nic_clock {
	uint64_t clk0;          /* a NIC clock reading ... */
	uint64_t tsc0;          /* ... and the TSC at that instant */
	double tsc_per_tick;    /* TSC cycles per NIC clock tick */
};

/* The map through two (clock, TSC) points; the first is the origin.
 * Returns 0, or -1 if the clock did not advance. */
static inline int
hgw_nic_clock_fit(struct hgw_nic_clock *c, uint64_t clk_a, uint64_t tsc_a,
		  uint64_t clk_b, uint64_t tsc_b)
{
	if (clk_b <= clk_a || tsc_b <= tsc_a)
		return -1;
	c->clk0 = clk_a;
	c->tsc0 = tsc_a;
	c->tsc_per_tick = (double)(tsc_b - tsc_a) / (double)(clk_b - clk_a);
	return 0;
}

/* The TSC of NIC clock value clk (before the origin too). */
static inline uint64_t
hgw_nic_clock_tsc(const struct hgw_nic_clock *c, uint64_t clk)
{
	if (clk >= c->clk0)
		return c->tsc0 + (uint64_t)((double)(clk - c->clk0) *
					    c->tsc_per_tick);
	return c->tsc0 - (uint64_t)((double)(c->clk0 - clk) * c->tsc_per_tick);
}

#endif /* HGW_NICCLOCK_H */
