/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: delegated sends on the connection of hgw_tcp.h, where the
 * sender that wins a claim puts its own segment on its own TX queue.
 *
 * Several lcores (the senders) race to send the same stream of
 * messages, each numbered by the caller with a strictly increasing
 * 32-bit reference (an order's UserRefNum): the first copy of each goes,
 * later copies are dropped, as the claim of hgw_dedup.h. Here the claim
 * and the message's place in the TCP byte stream are one word:
 *
 *     claim = last reference claimed (high 32 bits)
 *           | the sequence number of the next byte (low 32 bits)
 *
 * and one compare-and-swap moves both. So the bytes of a message lie in
 * the stream in the order of the claims, and a copy that loses the claim
 * reserves nothing. The winner copies its bytes into the connection's
 * send ring at their sequence number (the copy the owner retransmits
 * from), says so (`done`), and sends one segment built from the header
 * template the owner published: sequence number, ACK, window and
 * checksums filled in, the payload copied. No lock, no ring hop, no
 * system call.
 *
 * The owner (the lcore that polls the struct hgw_tcp) keeps everything
 * else: the handshake, ACKs, the peer's window, RTO and fast retransmit
 * (from the ring), the FIN. It publishes how far the senders may go
 * (`lim`: the peer's window and the congestion window from the first
 * byte not acknowledged, and never past the ring), the ACK and window
 * fields, and the header template; it sends its own bytes through the
 * same word, keeping the reference. A claim that finds no room, or the
 * connection closed, still moves the reference (the message is decided:
 * no later copy goes) but reserves no byte: the caller hands it back
 * (HGW_TCP_DLG_FULL, HGW_TCP_DLG_CLOSED). A claim never waits.
 *
 * Two winners' segments can reach the wire in the other order than
 * their bytes (a few nanoseconds apart); the peer's TCP puts them back
 * in order. A winner whose tx_burst is refused, or which finds that the
 * connection changed after its claim, leaves its bytes in the ring: the
 * owner's retransmission sends them (the peer's duplicate ACKs or the
 * RTO). A winner that dies between its claim and its commit stalls the
 * owner's retransmissions from that byte on (the owner waits for every
 * reserved byte to be written before it counts it sent): as with
 * hgw_dedup.h, a winner's death is not covered.
 *
 * Memory orders are commented at each access (tcp.c, tcp_dlg.c).
 */
#ifndef HGW_TCP_DLG_H
#define HGW_TCP_DLG_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hgw_cacheline.h"

struct rte_mbuf;
struct hgw_tcp;

#define HGW_TCP_DLG_MAX 512     /* bytes in one delegated send */
#define HGW_TCP_DLG_HDR 54      /* Ethernet, IPv4 and TCP, no options */
#define HGW_TCP_DLG_SENDERS 16

/* lim: bit 63 open, bits 48..62 the header template's publication, bits
 * 32..47 the connection (its tag in done), bits 0..31 the sequence
 * number senders may reserve up to (exclusive) */
#define HGW_TCP_DLG_OPEN (1ull << 63)

/* Shared between the owner and the senders. */
struct hgw_tcp_dlg {
	/* the claim: written by every sender (CAS) and by the owner */
	alignas(HGW_CACHE_LINE_SIZE) _Atomic uint64_t claim;
	/* bytes committed into the ring on this connection (low 48 bits)
	 * and the connection's generation (high 16): a sender adds its
	 * bytes only while the generation is its claim's */
	alignas(HGW_CACHE_LINE_SIZE) _Atomic uint64_t done;
	/* written by the owner only, read by every sender; stored only when
	 * they moved enough to matter (tcp.c dlg_publish), so that a
	 * sender's read finds the line in its cache */
	alignas(HGW_CACHE_LINE_SIZE) _Atomic uint64_t lim;
	_Atomic uint64_t ackwin;        /* ACK (low 32) | window field (32..47) */
	/* the header template, 56 bytes: written at a connection's start */
	alignas(HGW_CACHE_LINE_SIZE) _Atomic uint64_t hdr[7];
	/* set once before the senders start */
	uint8_t *ring;                  /* the send ring (owner's) */
	uint32_t mask;                  /* its size - 1 */
	int cksum_offload;
	uint32_t ntx;                   /* senders registered */
	struct hgw_tcp_dlg_tx *tx[HGW_TCP_DLG_SENDERS];
};

/* One sender's own: its queue, its mbufs, its counters (plain, written
 * by it alone; read after it stopped). */
struct hgw_tcp_dlg_tx {
	/* 1 from before the sender loads the claim until its bytes are in
	 * the ring: the owner starts a new stream's bytes only when no
	 * sender is (seq_cst: a store-load pair with the owner's) */
	alignas(HGW_CACHE_LINE_SIZE) _Atomic uint32_t busy;
	uint16_t port, txq;
	/* raised to each reference won with room, before its send (NULL:
	 * none): the caller's record of the highest reference sent */
	_Atomic uint64_t *floor;
	uint64_t sent, bytes;           /* claims won and sent */
	uint64_t lost;                  /* claims lost to another copy */
	uint64_t full, closed;          /* won, no byte reserved */
	uint64_t tx_full;               /* tx_burst refused: the owner
					 * retransmits */
	uint64_t moved;                 /* the connection changed between
					 * the claim and the send */
	uint64_t tx_tsc;                /* just before the last tx_burst */
};

enum hgw_tcp_dlg_res {
	HGW_TCP_DLG_LOST,               /* another copy claimed it (or a
					 * later reference): drop ours */
	HGW_TCP_DLG_SENT,               /* claimed, in the stream; m taken */
	HGW_TCP_DLG_FULL,               /* claimed, no room in the windows
					 * or the ring: not sent */
	HGW_TCP_DLG_CLOSED,             /* claimed, the connection is not
					 * open: not sent */
};

/* Turn delegated sends on for t, with d (HGW_CACHE_LINE_SIZE aligned,
 * shared memory) as the shared state; before the senders start and
 * before hgw_tcp_open(). From then on the owner sends its own bytes
 * through d too. The references start above ref0. */
void hgw_tcp_dlg_attach(struct hgw_tcp *t, struct hgw_tcp_dlg *d,
			uint32_t ref0);

/* Register a sender's own struct (up to HGW_TCP_DLG_SENDERS), before
 * the senders start: 0, or -1 when full. */
int hgw_tcp_dlg_register(struct hgw_tcp_dlg *d, struct hgw_tcp_dlg_tx *q);

/* Refuse the senders (hold 1: their claims return HGW_TCP_DLG_CLOSED)
 * or let them send again (0) while the connection is established: the
 * layer above's own reasons (its session not logged in). Owner only;
 * published at once. A sender that read the limit open just before may
 * still send. */
void hgw_tcp_dlg_hold(struct hgw_tcp *t, int hold);

/* Claim message ref and, if won and there is room, send its n bytes
 * (n <= HGW_TCP_DLG_MAX) in one segment built in m (an empty mbuf of
 * the caller's, taken on HGW_TCP_DLG_SENT and left to the caller
 * otherwise) on q's TX queue (q registered). n 0 (or over the most)
 * claims ref without sending it: HGW_TCP_DLG_CLOSED when won. Once the
 * bytes are in the stream the segment goes even if the limit closed
 * meanwhile (not if the connection or its template changed: then the
 * owner sends them again). Lock-free: the CAS retries only when another
 * claim or reservation succeeded. */
enum hgw_tcp_dlg_res hgw_tcp_dlg_send(struct hgw_tcp_dlg *d,
				      struct hgw_tcp_dlg_tx *q,
				      uint32_t ref, const void *p,
				      uint32_t n, struct rte_mbuf *m);

/* The last reference claimed. acquire: pairs with the claim's CAS
 * (acq_rel), so what a claimer stored before its claim is seen. */
static inline uint32_t
hgw_tcp_dlg_mark(struct hgw_tcp_dlg *d)
{
	return (uint32_t)(atomic_load_explicit(&d->claim,
					       memory_order_acquire) >> 32);
}

#endif
