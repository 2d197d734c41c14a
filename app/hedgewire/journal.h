/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the order journal, every order sent, as a pcap file.
 *
 * Workers copy each order they sent (its 92 bytes and the TSC it was
 * handed to tx_burst at) into a fixed-size record on one SP/SC ring per
 * worker; the control plane writes the records with the TSC converted to
 * wall-clock nanoseconds. Records, not mbufs, so the journal never holds
 * TX buffers and its ring is not bounded by the TX pool. Nothing of this
 * runs on a worker beyond the copy and the enqueue. Closed (and so
 * flushed) at exit, after the workers stopped.
 *
 * Format: classic pcap, nanosecond timestamps (magic 0xa1b23c4d),
 * link type Ethernet; each record is one 92-byte order frame exactly as
 * sent (docs/protocols.md "Order bytes"). Read it with tshark, tcpdump, or
 * tests/ref/cmp_orders.py --decode. (rte_pcapng of DPDK 22.11 was tried
 * first: its TSC-to-time base comes out 2^64 / tsc_hz seconds off here.)
 */
#ifndef HGW_APP_JOURNAL_H
#define HGW_APP_JOURNAL_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "hgw_order.h"

/* One journalled order: two cache lines. */
struct hgw_journal_rec {
	uint64_t tsc;                        /* handed to tx_burst */
	uint16_t len;
	uint8_t frame[HGW_ORDER_FRAME_LEN];
	uint8_t pad[128 - 8 - 2 - HGW_ORDER_FRAME_LEN];
};
_Static_assert(sizeof(struct hgw_journal_rec) == 128, "journal record size");

struct hgw_journal;

/* Open path for writing (truncating). NULL after writing one line into
 * err naming the problem. */
struct hgw_journal *hgw_journal_open(const char *path, char *err,
				     size_t errlen);

/* Create the ring (of struct hgw_journal_rec) a worker enqueues sent
 * orders on; size is a power of two. */
struct rte_ring *hgw_journal_ring(unsigned int worker, unsigned int size);

/* Write everything waiting on the rings; returns orders written. */
uint64_t hgw_journal_drain(struct hgw_journal *j, struct rte_ring *const *rings,
			   unsigned int nrings);

/* Orders written, and orders that could not be (copy or write failed). */
uint64_t hgw_journal_written(const struct hgw_journal *j);
uint64_t hgw_journal_failed(const struct hgw_journal *j);

void hgw_journal_close(struct hgw_journal *j);

#endif /* HGW_APP_JOURNAL_H */
