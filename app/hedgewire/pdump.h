/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: live packet capture of its ports by a secondary process
 * (dpdk-dumpcap, dpdk-pdump), through rte_pdump.
 */
#ifndef HGW_APP_PDUMP_H
#define HGW_APP_PDUMP_H

#include <stdint.h>

#include <rte_mempool.h>

/* After rte_eal_init: serve capture requests. Says in one log line when
 * it cannot (capture is then unavailable; nothing else changes). */
void hgw_pdump_init(void);

/* Once the ports have started: one capture copy of a dummy frame from
 * pool, thrown away: it sets the capture clock before a capture stamps
 * its first frame (DPDK 22.11 sets it on the first copy), and its stamp,
 * compared with the wall clock, tells how far off captures will be (in
 * DPDK 22.11 every stamp is 2^64 / TSC Hz seconds late); said in one
 * warning with the editcap correction when over a second. */
void hgw_pdump_clock(struct rte_mempool *pool, uint16_t port);

/* At exit, before rte_eal_cleanup. */
void hgw_pdump_fini(void);

#endif /* HGW_APP_PDUMP_H */
