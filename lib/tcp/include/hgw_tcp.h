/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: one TCP connection on a DPDK port, owned by one lcore.
 *
 * The venue session's transport where DPDK owns the order NIC: an active
 * open to one server, with everything the connection needs from the link
 * below it and nothing more. The lcore that owns it calls hgw_tcp_poll()
 * in its loop (received frames, timers, ACKs) and hgw_tcp_send() when it
 * has bytes: a send builds its segments from a prebuilt header template
 * and hands them to the port's TX queue at once (no lock, no allocation
 * beyond an mbuf, no system call). docs/design.md says why it is written
 * here and not taken from a general stack.
 *
 * What it does (RFC 9293 unless named):
 *   - handshake with the MSS and window scale options (RFC 7323), a
 *     random initial sequence number and source port per connection;
 *   - sending: a ring of bytes, segments of at most the peer's MSS within
 *     its window and the congestion window (RFC 5681: initial window 10,
 *     slow start, congestion avoidance); retransmission after the RTO
 *     (RFC 6298: smoothed RTT, Karn's rule, back-off, go-back-N) and fast
 *     retransmit at three duplicate ACKs (NewReno partial ACKs, RFC
 *     6582); zero-window probes and keepalives;
 *   - receiving: bytes into a ring whose free space is the window
 *     announced; bytes after a hole are kept in place (up to 8 ranges)
 *     and answered with a duplicate ACK, and taken when the hole fills;
 *   - FIN both ways; RST sent to segments of no connection; a RST or SYN
 *     inside the window gets a challenge ACK (RFC 5961);
 *   - ARP: answers requests for our address, resolves the next hop
 *     (the gateway, or the server on the link), refreshes it;
 *     ICMP echo requests are answered;
 *   - IPv4 and TCP checksums in software, or by the port where it offers
 *     them (cfg.cksum_offload); received checksums are verified;
 *   - replies to frames from outside (RSTs, challenge ACKs, ARP replies,
 *     pings) at most 200 a second (bursts of 50): they share the orders'
 *     TX queue and mbufs.
 * Not done: SACK, timestamps, IP options on send, fragments (dropped),
 * more than one connection. Single-threaded: every call on the owner
 * lcore.
 */
#ifndef HGW_TCP_H
#define HGW_TCP_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

struct rte_mempool;
struct hgw_soup_io;

struct hgw_tcp_cfg {
	uint16_t port, rxq, txq;        /* the DPDK port and its queues */
	uint16_t nrxq;                  /* RX queues rxq.. polled (0: 1): all
					 * a port spreads received frames on */
	uint32_t ip;                    /* ours, host byte order */
	uint32_t mask;                  /* our subnet's mask (host order) */
	uint32_t gateway;               /* next hop off the subnet (0: none) */
	uint8_t mac[6];                 /* ours (the port's) */
	uint32_t snd_buf, rcv_buf;      /* ring sizes, powers of 2 */
	uint32_t keepalive_ms;          /* idle time before a probe (0: off) */
	int cksum_offload;              /* the port computes IPv4/TCP sums */
	uint64_t hz;                    /* TSC ticks per second */
};

enum hgw_tcp_state {
	HGW_TCP_CLOSED,                 /* never opened, or let go */
	HGW_TCP_ARP,                    /* resolving the next hop */
	HGW_TCP_SYN_SENT,
	HGW_TCP_ESTABLISHED,            /* also while FINs are exchanged */
	HGW_TCP_DONE,                   /* both FINs sent and acknowledged */
	HGW_TCP_FAILED,                 /* why: hgw_tcp_failure() */
};

enum hgw_tcp_why {
	HGW_TCP_WHY_NONE,
	HGW_TCP_WHY_NO_ARP,             /* the next hop never answered */
	HGW_TCP_WHY_REFUSED,            /* RST to our SYN */
	HGW_TCP_WHY_RESET,              /* RST on the connection */
	HGW_TCP_WHY_TIMEOUT,            /* retransmissions or keepalives
					 * unanswered */
	HGW_TCP_WHY_NO_ROUTE,           /* server off the subnet, no gateway */
	HGW_TCP_WHY_N
};

struct hgw_tcp_stats {
	uint64_t rx_frames, rx_tcp, rx_arp, rx_icmp, rx_other;
	uint64_t rx_bad;                /* malformed or bad checksum */
	uint64_t rx_bytes;              /* in-order data taken */
	uint64_t rx_ooo;                /* segments after a hole */
	uint64_t rx_ooo_dropped;        /* ... not kept (no range left) */
	uint64_t rx_dup;                /* data we already had */
	uint64_t rx_no_room;            /* bytes beyond our window dropped */
	uint64_t tx_segs, tx_bytes, tx_full;   /* tx_full: the queue refused */
	uint64_t no_mbuf;
	uint64_t rto, fast_rexmit, rexmit_bytes, dupacks;
	uint64_t zero_window_probes, keepalives;
	uint64_t challenge_acks, rst_sent, rst_rcvd;
	uint64_t arp_requests, arp_replies, icmp_echo;
	uint64_t replies_limited;       /* replies to outside frames held
					 * back (a flood) */
	uint64_t dlg_bytes;             /* delegated senders' (hgw_tcp_dlg.h) */
	uint64_t dlg_waits;             /* polls that found a sender between
					 * its claim and its commit */
	uint64_t opens, fails[HGW_TCP_WHY_N];
	uint64_t srtt_us;               /* at the last sample */
};

struct hgw_tcp;

/* The TX offloads a port is asked for (the segments' IPv4 and TCP
 * checksums): the RTE_ETH_TX_OFFLOAD_ flags. */
uint64_t hgw_tcp_port_offloads(void);

/* The configuration of a session's connection on port, RX and TX queue
 * 0: our address ip on subnet mask, next hop gateway (0: none), the
 * port's MAC, a 64 KB send ring and a 256 KB receive ring, keepalives
 * after 10 s, and the port's checksum offloads where it has both. 0, or
 * -1 when the port has no MAC address. */
int hgw_tcp_cfg_port(struct hgw_tcp_cfg *cfg, uint16_t port, uint32_t ip,
		     uint32_t mask, uint32_t gateway);

/* Allocate on the port's socket (rings and a TX mbuf pool); NULL with
 * rte_errno set. No frame is sent before hgw_tcp_open(). */
struct hgw_tcp *hgw_tcp_create(const struct hgw_tcp_cfg *cfg);
void hgw_tcp_free(struct hgw_tcp *t);

/* Start a connection to ip:port (host byte order), after dropping any
 * earlier one (a RST if it was open). */
void hgw_tcp_open(struct hgw_tcp *t, uint32_t ip, uint16_t port,
		  uint64_t now_tsc);

/* Receive what the port has, run the timers, send what is due. */
void hgw_tcp_poll(struct hgw_tcp *t, uint64_t now_tsc);

/* Queue n bytes and send what the windows allow now: the bytes taken (0
 * when the ring is full), or -1 when the connection is not usable. */
long hgw_tcp_send(struct hgw_tcp *t, const void *p, size_t n);

/* Read at most n in-order bytes: how many, 0 for none yet, -1 when the
 * peer closed and all was read, -2 when the connection failed. */
long hgw_tcp_recv(struct hgw_tcp *t, void *p, size_t n);

/* The TSC taken just before the last frame went to tx_burst (what a
 * sender's latency is measured to, as for the UDP orders). */
uint64_t hgw_tcp_tx_tsc(const struct hgw_tcp *t);

/* Bytes waiting to be read. */
uint32_t hgw_tcp_readable(const struct hgw_tcp *t);

/* Bytes given to hgw_tcp_send that the peer has not acknowledged yet
 * (queued, or sent and not acked): what a close now would lose. */
uint32_t hgw_tcp_unacked(const struct hgw_tcp *t);

/* Send a FIN after the bytes queued. */
void hgw_tcp_shutdown(struct hgw_tcp *t);

/* Let the connection go: a RST if it is neither done nor failed. */
void hgw_tcp_close(struct hgw_tcp *t);

enum hgw_tcp_state hgw_tcp_state(const struct hgw_tcp *t);
enum hgw_tcp_why hgw_tcp_failure(const struct hgw_tcp *t);
const char *hgw_tcp_why_name(enum hgw_tcp_why why);
const struct hgw_tcp_stats *hgw_tcp_stats(const struct hgw_tcp *t);

/* Its counters for a summary (docs/venue.md "The session on hedgewire's
 * own TCP (`stack = dpdk`)"), each line
 * starting "WHO: tcp (dpdk)"; offload: the port computes the checksums. */
void hgw_tcp_report(const struct hgw_tcp *t, int offload, const char *who,
		    FILE *out);

/* The SoupBinTCP session's transport over it (ctx: the struct hgw_tcp;
 * one connection, handle 0). */
extern const struct hgw_soup_io hgw_tcp_soup_io;

#endif
