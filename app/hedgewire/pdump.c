/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: live packet capture of its ports by a secondary process.
 *
 * rte_pdump serves dpdk-dumpcap (and dpdk-pdump): the capture process
 * asks over the multi-process channel, and rte_pdump adds RX and TX
 * callbacks to the port's queues that copy each frame into the capture's
 * ring. So a capture costs the workers a copy per frame while it runs,
 * and nothing before or after. It needs multi-process, so huge pages
 * (not --no-huge or --in-memory).
 */
/* rte_pcapng_copy is experimental in DPDK 22.11 */
#ifndef ALLOW_EXPERIMENTAL_API
#define ALLOW_EXPERIMENTAL_API
#endif

#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_pdump.h>

#include "pdump.h"

RTE_LOG_REGISTER(hgw_pdump_logtype, hgw.pdump, INFO);
#define RTE_LOGTYPE_HGW_PDUMP hgw_pdump_logtype

static int pdump_on;

void
hgw_pdump_init(void)
{
	pdump_on = rte_pdump_init() == 0;
	if (!pdump_on)
		RTE_LOG(WARNING, HGW_PDUMP, "live packet capture (pdump) "
			"unavailable: %s\n", rte_strerror(rte_errno));
}

void
hgw_pdump_clock(struct rte_mempool *pool, uint16_t port)
{
	struct rte_mbuf *m, *c;
	struct timespec now;
	uint32_t epb[5];

	if (!pdump_on)
		return;
	m = rte_pktmbuf_alloc(pool);
	if (m == NULL || rte_pktmbuf_append(m, RTE_ETHER_MIN_LEN) == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(rte_pktmbuf_mtod(m, void *), 0, RTE_ETHER_MIN_LEN);
	clock_gettime(CLOCK_REALTIME, &now);
	c = rte_pcapng_copy(port, 0, m, pool, RTE_ETHER_MIN_LEN,
			    rte_get_tsc_cycles(), RTE_PCAPNG_DIRECTION_IN);
	/* an enhanced packet block: type, length, interface, time high,
	 * time low (ns) */
	if (c != NULL && rte_pktmbuf_data_len(c) >= sizeof(epb)) {
		memcpy(epb, rte_pktmbuf_mtod(c, const void *), sizeof(epb));
		double late = ((double)((uint64_t)epb[3] << 32 | epb[4]) -
			       (double)now.tv_sec * 1e9 - (double)now.tv_nsec) / 1e9;

		if (epb[0] == 6 && (late > 1 || late < -1))
			RTE_LOG(WARNING, HGW_PDUMP, "captures (dpdk-dumpcap) are "
				"stamped %.0f s late by this DPDK's pcapng clock; "
				"editcap -t -%.0f corrects them\n", late, late);
	}
	rte_pktmbuf_free(c);
	rte_pktmbuf_free(m);
}

void
hgw_pdump_fini(void)
{
	if (pdump_on)
		rte_pdump_uninit();
	pdump_on = 0;
}
