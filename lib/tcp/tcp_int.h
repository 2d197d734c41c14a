/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: what the owner's code (tcp.c) and the delegated senders
 * (tcp_dlg.c) share inside lib/tcp.
 */
#ifndef HGW_TCP_INT_H
#define HGW_TCP_INT_H

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "hgw_cksum.h"

/* A segment's IPv4 and TCP checksums: by the port (offload), or here. */
static inline void
hgw_tcp_cksums(struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
	       struct rte_tcp_hdr *th, int offload)
{
	ip->hdr_checksum = 0;
	th->cksum = 0;
	if (offload) {
		m->l2_len = sizeof(struct rte_ether_hdr);
		m->l3_len = sizeof(struct rte_ipv4_hdr);
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
			       RTE_MBUF_F_TX_TCP_CKSUM;
		th->cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
	} else {
		ip->hdr_checksum = rte_cpu_to_be_16(
			hgw_cksum_ipv4(ip, sizeof(*ip)));
		th->cksum = rte_cpu_to_be_16((uint16_t)~hgw_cksum_l4(ip, th,
			rte_be_to_cpu_16(ip->total_length) - sizeof(*ip),
			IPPROTO_TCP));
	}
}

#endif
