/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: a delegated sender's claim and segment (hgw_tcp_dlg.h).
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>

#include "hgw_tcp_dlg.h"
#include "tcp_int.h"

_Static_assert(HGW_TCP_DLG_HDR == sizeof(struct rte_ether_hdr) +
	       sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_tcp_hdr),
	       "the template is Ethernet, IPv4 and TCP without options");
_Static_assert(HGW_TCP_DLG_HDR <= 7 * sizeof(uint64_t),
	       "the template fits its words");

int
hgw_tcp_dlg_register(struct hgw_tcp_dlg *d, struct hgw_tcp_dlg_tx *q)
{
	if (d->ntx == HGW_TCP_DLG_SENDERS)
		return -1;
	d->tx[d->ntx++] = q;
	return 0;
}

enum hgw_tcp_dlg_res
hgw_tcp_dlg_send(struct hgw_tcp_dlg *d, struct hgw_tcp_dlg_tx *q,
		 uint32_t ref, const void *p, uint32_t n, struct rte_mbuf *m)
{
	uint64_t c, l, l2, nc, dn, aw, h[7];
	enum hgw_tcp_dlg_res r;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	uint32_t seq, off, first;
	uint8_t *f;

	/* seq_cst: a store-load pair with the owner's move of the claim
	 * and load of busy (tcp.c dlg_quiet) */
	atomic_store_explicit(&q->busy, 1, memory_order_seq_cst);
	/* acquire: pairs with the owner's release when it starts or seals
	 * a stream (tcp.c dlg_reset, dlg_seal): the limit it closed before
	 * that is then what the load of lim below reads, or newer */
	c = atomic_load_explicit(&d->claim, memory_order_acquire);
	for (;;) {
		if ((uint32_t)(c >> 32) >= ref) {
			q->lost++;
			/* release: nothing of ours in the ring */
			atomic_store_explicit(&q->busy, 0,
					      memory_order_release);
			return HGW_TCP_DLG_LOST;
		}
		/* acquire: pairs with the owner's release of lim: the
		 * template and the ACK word it published before are read
		 * below. Read after the claim: a limit of a newer stream
		 * than the claim read makes the CAS fail */
		l = atomic_load_explicit(&d->lim, memory_order_acquire);
		seq = (uint32_t)c;
		if (!(l & HGW_TCP_DLG_OPEN) || n == 0 ||
		    n > HGW_TCP_DLG_MAX) {
			r = HGW_TCP_DLG_CLOSED;
			nc = (uint64_t)ref << 32 | seq;
		} else if ((int32_t)((uint32_t)l - (seq + n)) < 0) {
			r = HGW_TCP_DLG_FULL;
			nc = (uint64_t)ref << 32 | seq;
		} else {
			r = HGW_TCP_DLG_SENT;
			nc = (uint64_t)ref << 32 | (uint32_t)(seq + n);
		}
		/* acquire on failure: c is then read as by the load above.
		 * acq_rel on success: what the caller stored before its
		 * claim is seen by whoever reads this claim with acquire
		 * (a caller's note that it is claiming, read after the
		 * mark); the bytes the CAS reserves are published by done's
		 * release below. weak: a spurious failure goes round again */
		if (atomic_compare_exchange_weak_explicit(&d->claim, &c, nc,
							  memory_order_acq_rel,
							  memory_order_acquire))
			break;
	}
	if (r != HGW_TCP_DLG_SENT) {
		if (r == HGW_TCP_DLG_FULL)
			q->full++;
		else
			q->closed++;
		/* release: nothing of ours in the ring */
		atomic_store_explicit(&q->busy, 0, memory_order_release);
		return r;
	}
	q->sent++;
	q->bytes += n;
	/* the caller's record of the highest reference sent (a crash after
	 * this skips the number, one before it has not sent it). relaxed:
	 * a mapped word for the next run, it orders nothing here */
	if (q->floor != NULL) {
		uint64_t fl = atomic_load_explicit(q->floor,
						   memory_order_relaxed);

		while (fl < ref &&
		       !atomic_compare_exchange_weak_explicit(q->floor, &fl, ref,
				memory_order_relaxed, memory_order_relaxed))
			;
	}
	/* the copy the owner retransmits from */
	off = seq & d->mask;
	first = d->mask + 1 - off;
	if (first > n)
		first = n;
	memcpy(d->ring + off, p, first);
	memcpy(d->ring, (const uint8_t *)p + first, n - first);
	/* release: our bytes are in the ring before the owner, seeing 0,
	 * lets a new stream write there */
	atomic_store_explicit(&q->busy, 0, memory_order_release);
	/* counted while the stream is still the claim's (a new one resets
	 * done under another tag) */
	dn = atomic_load_explicit(&d->done, memory_order_relaxed);
	while ((uint16_t)(dn >> 48) == (uint16_t)(l >> 32))
		/* release: the ring's bytes before their count (the
		 * owner's acquire in dlg_sync) */
		if (atomic_compare_exchange_weak_explicit(&d->done, &dn,
							  dn + n,
							  memory_order_release,
							  memory_order_relaxed))
			break;
	if ((uint16_t)(dn >> 48) != (uint16_t)(l >> 32))
		goto moved;
	/* the template and the ACK word, as a seqlock against the owner
	 * publishing a new template (relaxed reads, the fence, the limit
	 * again: tcp.c dlg_publish) */
	for (unsigned int i = 0; i < RTE_DIM(h); i++)
		h[i] = atomic_load_explicit(&d->hdr[i], memory_order_relaxed);
	aw = atomic_load_explicit(&d->ackwin, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	/* relaxed: ordered by the fence above */
	l2 = atomic_load_explicit(&d->lim, memory_order_relaxed);
	/* the same connection and template: the bytes are in its stream,
	 * so they go even if the limit closed meanwhile */
	if (((l2 ^ l) >> 32 & 0x7fffffff) != 0 ||
	    rte_pktmbuf_tailroom(m) < HGW_TCP_DLG_HDR + n)
		goto moved;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(f, h, HGW_TCP_DLG_HDR);
	ip = (struct rte_ipv4_hdr *)(f + sizeof(struct rte_ether_hdr));
	th = (struct rte_tcp_hdr *)(ip + 1);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) +
						       sizeof(*th) + n));
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32((uint32_t)aw);
	th->rx_win = rte_cpu_to_be_16((uint16_t)(aw >> 32));
	th->data_off = (uint8_t)(sizeof(*th) / 4) << 4;
	th->tcp_flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
	memcpy(f + HGW_TCP_DLG_HDR, p, n);
	m->data_len = (uint16_t)(HGW_TCP_DLG_HDR + n);
	m->pkt_len = m->data_len;
	hgw_tcp_cksums(m, ip, th, d->cksum_offload);
	q->tx_tsc = rte_rdtsc();
	if (rte_eth_tx_burst(q->port, q->txq, &m, 1) != 1) {
		/* in the ring: the owner sends it again */
		rte_pktmbuf_free(m);
		q->tx_full++;
	}
	return HGW_TCP_DLG_SENT;
moved:
	/* the stream's own, or a dead stream's: not ours to send now */
	q->tx_tsc = rte_rdtsc();
	q->moved++;
	rte_pktmbuf_free(m);
	return HGW_TCP_DLG_SENT;
}
