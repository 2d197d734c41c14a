/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-dedup: the venue session in downstream mode (docs/venue.md "Venue
 * session", "Downstream mode").
 *
 * With --venue, the first copy of each order goes to the venue as the
 * SoupBinTCP Unsequenced Data it carries, over a TCP session hgw-dedup
 * owns (lib/soupbin), after the same checks hedgewire's TX lcore makes
 * (lib/vgate: UserRefNum floor in a state file, wall-clock rate caps).
 * What the venue says, and what could not go, is relayed back to
 * hedgewire as relay datagrams (hgw_vgate.h) on the input port's TX
 * queue 0: hedgewire's order port, whose one RX queue its control lcore
 * reads. hedgewire's kill switch comes the other way (a 'K' relay
 * message on the queue after the workers'): every open order is
 * cancelled; and at its end a 'B' (it leaves the link), answered by 'b'.
 * One thread (hgw-dedup's loop) owns all of it.
 */
#ifndef HGW_DEDUP_SESSION_H
#define HGW_DEDUP_SESSION_H

#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "hgw_order.h"

struct dsess_opts {
	const char *venue;              /* "IPv4:PORT"; NULL: no session */
	const char *user, *password_file, *session, *state_file;
	uint32_t heartbeat_ms, dead_ms, reconnect_ms;
	uint32_t max_ops, max_ops_symbol;
	int cancel_on_disconnect;
	/* --venue-stack dpdk: the session on hgw-dedup's own TCP (lib/tcp)
	 * on --out's RX and TX queue 0, our address --venue-address
	 * IP/PREFIX there, the next hop --venue-gateway (NULL: none) */
	int dpdk;
	const char *address, *gateway;
	/* tests only (docs/venue.md "Downstream mode", the relay's key): at
	 * the first order, forged relay datagrams to hedgewire over the
	 * link, and forged commands to our own receiving end */
	int relay_forge;
};

struct dsess;

/* Start-up: checks the options (one line naming the bad one, exit 2),
 * maps the state file, starts connecting. Relay datagrams go out on
 * port (queue 0), from pool; with --venue-stack dpdk the session's TCP
 * runs on tcp_port (started with a queue each way, asked for
 * hgw_tcp_port_offloads()). */
struct dsess *dsess_init(const struct dsess_opts *o, uint16_t port,
			 struct rte_mempool *pool, uint16_t tcp_port);

/* A first copy (frame: the whole order frame, its decoded fields o):
 * sent on the session, or relayed back as unsent. */
void dsess_order(struct dsess *s, const uint8_t *frame,
		 const struct hgw_ouch_order *o);

/* A frame from hedgewire: 1 if it was a relay datagram (taken, or
 * dropped and counted by reason when not from hedgewire's addresses, not
 * under the key or outside the window: hgw_relay_rx), 0 if not one. */
int dsess_command(struct dsess *s, const uint8_t *frame, uint32_t len);

/* Every loop: the socket when due, relay backlog, pending cancels. */
void dsess_poll(struct dsess *s);

/* Leaving the link. DPDK 22.11's memif unmaps the shared memory when the
 * peer disconnects, under a side that may be inside rx_burst or
 * tx_burst, which faults it; so hedgewire closes its end only once
 * hgw-dedup has stopped polling it. hedgewire asks with 'B':
 * dsess_leaving is then 1, and, once the workers' queues are drained,
 * dsess_leave sends what is queued for hedgewire and a last 'b'; after
 * it the port must not be polled again (what the venue says later is
 * counted, not relayed, and not marked done in the state file). */
int dsess_leaving(const struct dsess *s);
void dsess_leave(struct dsess *s);

/* 1 while the session or the relay still has something to do. */
int dsess_busy(const struct dsess *s);

/* Logout Request, what the venue still sends (relayed), close. */
void dsess_stop(struct dsess *s);

/* Counters; returns non-zero if something was lost on its way to
 * hedgewire (relay datagrams that could not be sent). */
int dsess_report(struct dsess *s, FILE *out);

#endif /* HGW_DEDUP_SESSION_H */
