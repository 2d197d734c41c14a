/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the order journal, every order sent, as a pcap file.
 *
 * Workers hand each sent order's mbuf (with an extra reference) to the
 * control plane over one SP/SC ring per worker; the control plane writes
 * the frame with the time it was handed to tx_burst (the worker's TSC,
 * converted to wall-clock nanoseconds) and drops the reference. Nothing of
 * this runs on a worker beyond the enqueue. Closed (and so flushed) at
 * exit, after the workers stopped.
 *
 * Format: classic pcap, nanosecond timestamps (magic 0xa1b23c4d),
 * link type Ethernet; each record is one 92-byte order frame exactly as
 * sent (README "Order bytes"). Read it with tshark, tcpdump, or
 * tests/ref/cmp_orders.py --decode. (rte_pcapng of DPDK 22.11 was tried
 * first: its TSC-to-time base comes out 2^64 / tsc_hz seconds off here.)
 */
#ifndef HGW_APP_JOURNAL_H
#define HGW_APP_JOURNAL_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

struct hgw_journal;

/* Open path for writing (truncating). NULL after writing one line into
 * err naming the problem. */
struct hgw_journal *hgw_journal_open(const char *path, char *err,
				     size_t errlen);

/* Create the ring a worker enqueues sent orders on. */
struct rte_ring *hgw_journal_ring(unsigned int worker, unsigned int size);

/* Write everything waiting on the rings; returns orders written. */
uint64_t hgw_journal_drain(struct hgw_journal *j, struct rte_ring *const *rings,
			   unsigned int nrings);

/* Orders written, and orders that could not be (copy or write failed). */
uint64_t hgw_journal_written(const struct hgw_journal *j);
uint64_t hgw_journal_failed(const struct hgw_journal *j);

void hgw_journal_close(struct hgw_journal *j);

/* The TSC an order was handed to tx_burst at, in an mbuf dynamic field
 * registered by hgw_journal_register_tsc() at start-up. */
extern int hgw_tx_tsc_offset;
int hgw_journal_register_tsc(void);

static inline uint64_t *
hgw_tx_tsc(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, hgw_tx_tsc_offset, uint64_t *);
}

#endif /* HGW_APP_JOURNAL_H */
