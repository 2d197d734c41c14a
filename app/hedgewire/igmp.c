/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: IGMP membership reports on the feed port (igmp.h).
 */
#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "hgw_cksum.h"
#include "igmp.h"

#define IGMP_V2_REPORT 0x16
#define IGMP_V2_LEAVE  0x17
#define IGMP_V3_REPORT 0x22
/* IGMPv3 group record types (RFC 3376 4.2.12) */
#define MODE_IS_EXCLUDE 2
#define CHANGE_TO_INCLUDE 3
#define CHANGE_TO_EXCLUDE 4
#define ALL_ROUTERS   RTE_IPV4(224, 0, 0, 2)
#define ALL_V3_ROUTERS RTE_IPV4(224, 0, 0, 22)

int
hgw_igmp_init(struct hgw_igmp *g, const struct hgw_config *c,
	      uint16_t queue, struct rte_mempool *pool)
{
	struct rte_ether_addr mac;

	memset(g, 0, sizeof(*g));
	if (c->igmp == HGW_IGMP_OFF)
		return 0;
	g->port = c->rx_port;
	g->queue = queue;
	g->version = c->igmp;
	g->src = c->igmp_source;
	g->pool = pool;
	if (rte_eth_macaddr_get(c->rx_port, &mac) == 0)
		memcpy(g->mac, mac.addr_bytes, sizeof(g->mac));
	if (c->feed.group != 0)
		g->groups[g->ngroups++] = c->feed.group;
	if (c->feed.group_b != 0 && c->feed.group_b != c->feed.group)
		g->groups[g->ngroups++] = c->feed.group_b;
	return 1;
}

/* One IGMP message to dst: Ethernet, IPv4 with Router Alert (RFC 2113),
 * TTL 1, and len bytes of IGMP from msg (its checksum filled in here). */
static void
send_igmp(struct hgw_igmp *g, uint32_t dst, uint8_t *msg, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	uint8_t *opt;

	if (m == NULL) {
		g->failed++;
		return;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	opt = (uint8_t *)(ip + 1);
	/* 01:00:5e and the group's low 23 bits (RFC 1112 6.4) */
	eh->dst_addr = (struct rte_ether_addr){ .addr_bytes = { 0x01, 0x00,
		0x5e, (dst >> 16) & 0x7f, (dst >> 8) & 0xff, dst & 0xff } };
	memcpy(&eh->src_addr, g->mac, RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x46;                 /* 24 bytes: the option */
	ip->type_of_service = 0xc0;             /* internetwork control */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(24 + len));
	ip->time_to_live = 1;
	ip->next_proto_id = IPPROTO_IGMP;
	ip->src_addr = rte_cpu_to_be_32(g->src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	opt[0] = 0x94;                          /* Router Alert */
	opt[1] = 4;
	opt[2] = 0;
	opt[3] = 0;
	ip->hdr_checksum = rte_cpu_to_be_16(hgw_cksum_ipv4(ip, 24));
	msg[2] = msg[3] = 0;
	uint16_t ck = (uint16_t)~hgw_cksum_block(msg, len);

	msg[2] = (uint8_t)(ck >> 8);
	msg[3] = (uint8_t)ck;
	memcpy(opt + 4, msg, len);
	m->data_len = (uint16_t)(sizeof(*eh) + 24 + len);
	m->pkt_len = m->data_len;
	if (rte_eth_tx_burst(g->port, g->queue, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		g->failed++;
		return;
	}
	g->reports++;
}

/* A report of every group, or their leave. */
static void
send_all(struct hgw_igmp *g, int leave, int answer)
{
	uint8_t msg[8 + 8 * 2];

	if (g->version == HGW_IGMP_V2) {
		for (uint32_t i = 0; i < g->ngroups; i++) {
			uint32_t grp = rte_cpu_to_be_32(g->groups[i]);

			msg[0] = leave ? IGMP_V2_LEAVE : IGMP_V2_REPORT;
			msg[1] = 0;
			memcpy(&msg[4], &grp, 4);
			send_igmp(g, leave ? ALL_ROUTERS : g->groups[i], msg, 8);
		}
		return;
	}
	/* v3: one report, a record per group */
	memset(msg, 0, sizeof(msg));
	msg[0] = IGMP_V3_REPORT;
	msg[7] = (uint8_t)g->ngroups;
	for (uint32_t i = 0; i < g->ngroups; i++) {
		uint8_t *r = msg + 8 + 8 * i;
		uint32_t grp = rte_cpu_to_be_32(g->groups[i]);

		r[0] = leave ? CHANGE_TO_INCLUDE :
		       answer ? MODE_IS_EXCLUDE : CHANGE_TO_EXCLUDE;
		memcpy(&r[4], &grp, 4);
	}
	send_igmp(g, ALL_V3_ROUTERS, msg, 8 + 8 * g->ngroups);
}

void
hgw_igmp_poll(struct hgw_igmp *g, uint64_t queries, uint64_t now_tsc)
{
	if (g->version == HGW_IGMP_OFF || g->ngroups == 0)
		return;
	if (g->reports == 0 && g->failed == 0) {
		send_all(g, 0, 0);
		g->next_tsc = now_tsc + rte_get_timer_hz();
	} else if (g->next_tsc != 0 && now_tsc >= g->next_tsc) {
		send_all(g, 0, 0);
		g->next_tsc = 0;
	}
	if (queries > g->queries_seen) {
		g->queries_seen = queries;
		g->answered++;
		send_all(g, 0, 1);
	}
}

void
hgw_igmp_leave(struct hgw_igmp *g)
{
	if (g->version == HGW_IGMP_OFF || g->ngroups == 0)
		return;
	send_all(g, 1, 0);
	g->leaves++;
}

void
hgw_igmp_report(const struct hgw_igmp *g, FILE *out)
{
	if (g->version == HGW_IGMP_OFF)
		return;
	fprintf(out, "igmp: v%u on port %u, %u group(s): reports sent %" PRIu64
		", queries answered %" PRIu64 ", leaves %" PRIu64
		", not sent %" PRIu64 "\n", g->version == HGW_IGMP_V2 ? 2 : 3,
		g->port, g->ngroups, g->reports, g->answered, g->leaves,
		g->failed);
}
