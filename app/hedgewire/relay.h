/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the venue session in downstream mode, hedgewire's side
 * (docs/venue.md "Venue session", "Downstream mode"). hgw-dedup owns the
 * session; its relay datagrams (lib/vgate hgw_vgate.h) arrive on the
 * order port's one RX queue, which only the control lcore reads:
 * sequenced messages go to hgw_venue_ctl_take (journal, then every
 * replica, as in tx-lcore mode), unsent orders become UNSENT events, a
 * lost session, a gap in the relay's numbers or a bad datagram a kill.
 * Only datagrams from hgw-dedup's addresses, under the pair's key (from
 * the [venue] login) and inside the window are taken (hgw_relay_rx);
 * the rest are counted by reason and dropped.
 * When the kill switch goes on, the control lcore sends a 'K' relay
 * message on a TX queue of its own on the order port (the one after the
 * workers'), from a pool of its own: hgw-dedup cancels the open orders.
 * At the end, 'B' and hgw-dedup's 'b' hand the link over for closing.
 */
#ifndef HGW_APP_RELAY_H
#define HGW_APP_RELAY_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"

struct hgw_ctl;

/* 1 when [venue] is set with [run] dedup = downstream. */
int hgw_relay_wanted(const struct hgw_config *c);

struct hgw_relay;

/* Start-up, after the ports: the pool, the journal. Exits with one line.
 * NULL when the run has no relay (!hgw_relay_wanted): every function
 * below then does nothing. */
struct hgw_relay *hgw_relay_init(const struct hgw_config *c,
				 struct hgw_ctl *ctl);

/* Control lcore, every poll (and once after the join, close = 1: to the
 * journal only). */
void hgw_relay_poll(struct hgw_relay *r, int close);

/* Main lcore, before the workers start: our hello until hgw-dedup
 * answers, at most ms ([venue] dead_ms); without an answer the kill
 * switch goes on (said in one line): nothing it relays could be taken. */
void hgw_relay_wait_keyed(struct hgw_relay *r, uint32_t ms);

/* After the join and the last relay reads, before the port closes: a
 * 'B' to hgw-dedup, which answers with 'b', its last datagram, and polls
 * the link no more; then 100 ms for that tx_burst to return. DPDK
 * 22.11's memif unmaps the shared memory on disconnect, under a peer
 * that may be polling it, which faults the peer. Waits at most 1 s to
 * send 'B' and 3 s for 'b'; says so on stderr when hgw-dedup did not
 * answer. */
void hgw_relay_leave(struct hgw_relay *r);

/* After the join: counters. Returns what went wrong that the replicas
 * could not be told of (0: none). */
uint64_t hgw_relay_report(struct hgw_relay *r, FILE *out);

void hgw_relay_fini(struct hgw_relay *r);

#endif /* HGW_APP_RELAY_H */
