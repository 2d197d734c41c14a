/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the RX and order ports (flow-mirror rule included), and the
 * [recovery] server and [feed] lines checked against them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_mbuf.h>

#include "app.h"
#include "hgw_port.h"
#include "hgw_tcp.h"
#include "relay.h"
#include "venue.h"

/* Configure and start a port with nrx RX queues fed from rx_pool and ntx
 * TX queues. */
static void
port_start(uint16_t port, uint16_t nrx, uint16_t ntx, uint16_t nrxd,
	   struct rte_mempool *rx_pool, uint64_t rx_offloads,
	   uint64_t tx_offloads, const char *what)
{
	char err[256], warn[128], whatv[48], rx_why[64];
	struct hgw_port_conf pc = {
		.nrx = nrx, .ntx = ntx, .nrxd = nrxd, .ntxd = 512,
		.rx_pool = rx_pool, .rx_offloads = rx_offloads,
		.tx_offloads = tx_offloads,
		/* the feed is multicast: take every group; the decoder
		 * filters */
		.rx = HGW_PORT_RX_ALLMULTI, .what = whatv, .rx_why = rx_why,
		/* so that dpdk-dumpcap can capture a feed-only or an
		 * order-only port too */
		.both_ways = 1,
		.tx_why = "[run] workers / dedup" };

	snprintf(whatv, sizeof(whatv), "%s = %u", what, port);
	snprintf(rx_why, sizeof(rx_why), "[run] workers x [feed] lines = %u",
		 nrx);
	if (hgw_port_start(port, &pc, err, sizeof(err), warn,
			   sizeof(warn)) != 0)
		die("%s", err);
	if (warn[0] != '\0')
		RTE_LOG(WARNING, HGW_APP, "%s\n", warn);
}

/* flow-mirror: one rte_flow rule on the feed (group, port) whose fate is
 * queue 0 and which mirrors every packet to queues 1..N-1 with SAMPLE
 * actions of ratio 1. Validated first; a PMD that cannot do it stops
 * start-up with one line saying so (use fanout or queues there). */
static void
flow_mirror(const struct hgw_config *c)
{
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 ip_spec, ip_mask;
	struct rte_flow_item_udp udp_spec, udp_mask;
	struct rte_flow_item pattern[4];
	struct rte_flow_action_queue queue[HGW_MAX_WORKERS];
	struct rte_flow_action sub[HGW_MAX_WORKERS][2];
	struct rte_flow_action_sample sample[HGW_MAX_WORKERS];
	struct rte_flow_action actions[HGW_MAX_WORKERS + 1];
	struct rte_flow_error ferr;
	struct rte_eth_dev_info info;
	uint32_t n = c->workers, a = 0;

	memset(&ip_spec, 0, sizeof(ip_spec));
	memset(&ip_mask, 0, sizeof(ip_mask));
	memset(&udp_spec, 0, sizeof(udp_spec));
	memset(&udp_mask, 0, sizeof(udp_mask));
	memset(pattern, 0, sizeof(pattern));
	memset(actions, 0, sizeof(actions));
	ip_spec.hdr.dst_addr = rte_cpu_to_be_32(c->feed.group);
	ip_mask.hdr.dst_addr = c->feed.group ? RTE_BE32(0xffffffff) : 0;
	udp_spec.hdr.dst_port = rte_cpu_to_be_16(c->feed.port);
	udp_mask.hdr.dst_port = c->feed.port ? RTE_BE16(0xffff) : 0;
	pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	pattern[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		.spec = &ip_spec, .mask = &ip_mask };
	pattern[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_UDP,
		.spec = &udp_spec, .mask = &udp_mask };
	pattern[3].type = RTE_FLOW_ITEM_TYPE_END;
	for (uint32_t q = 1; q < n; q++) {
		queue[q].index = (uint16_t)q;
		sub[q][0] = (struct rte_flow_action){
			.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue[q] };
		sub[q][1] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_END };
		sample[q] = (struct rte_flow_action_sample){ .ratio = 1,
			.actions = sub[q] };
		actions[a++] = (struct rte_flow_action){
			.type = RTE_FLOW_ACTION_TYPE_SAMPLE, .conf = &sample[q] };
	}
	queue[0].index = 0;
	actions[a++] = (struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue[0] };
	actions[a].type = RTE_FLOW_ACTION_TYPE_END;

	rte_eth_dev_info_get(c->rx_port, &info);
	memset(&ferr, 0, sizeof(ferr));
	if (rte_flow_validate(c->rx_port, &attr, pattern, actions, &ferr) != 0)
		die("[rx] mode = flow-mirror: port %u (%s) cannot mirror the feed "
		    "to %u queues: %s (use [rx] mode = fanout or queues)",
		    c->rx_port, info.driver_name, n,
		    ferr.message ? ferr.message : rte_strerror(rte_errno));
	if (rte_flow_create(c->rx_port, &attr, pattern, actions, &ferr) == NULL)
		die("[rx] mode = flow-mirror: port %u (%s): creating the rule "
		    "failed: %s", c->rx_port, info.driver_name,
		    ferr.message ? ferr.message : rte_strerror(rte_errno));
}

void
app_ports_setup(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	int trading = a->trade;
	struct rte_mempool *pool;
	uint16_t nw = (uint16_t)c->workers;
	/* TX queues: one per worker, or the TX lcore's one, or both (claim
	 * mode on the venue's TCP: the TX lcore's 0, worker i's 1 + i) */
	int dlg = hgw_config_dlg(c);
	uint16_t ntx = c->dedup == HGW_DEDUP_MODE_TXLCORE ? 1 :
		       (uint16_t)(nw + dlg);

	/* downstream with [venue]: one more for the control lcore's relay
	 * commands to hgw-dedup (relay.h) */
	ntx = (uint16_t)(ntx + hgw_relay_wanted(c));

	if (!rte_eth_dev_is_valid_port(c->rx_port))
		die("[rx] port = %u: no such DPDK port (%u available; pass a "
		    "device or --vdev in the EAL args)", c->rx_port,
		    rte_eth_dev_count_avail());
	pool = rte_pktmbuf_pool_create("hgw_rx", c->mbufs,
				       RTE_MIN(256u, c->mbufs / 8), 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       rte_eth_dev_socket_id(c->rx_port));
	if (pool == NULL)
		die("cannot create the RX pool of %u mbufs ([rx] mbufs): %s",
		    c->mbufs, rte_strerror(rte_errno));
	/* fanout: one RX queue for the RX lcore; else one per worker and
	 * line */
	uint16_t nrx = c->rx_mode == HGW_RX_FANOUT ? 1 : (uint16_t)(nw * c->lines);

	/* pcap pace: the frames' capture times, in the mbuf; [rx] timestamp
	 * = nic: the NIC's RX stamps, which it must offer */
	uint64_t offl = c->pace == HGW_PACE_PCAP || c->rx_ts == HGW_RX_TS_NIC ?
			RTE_ETH_RX_OFFLOAD_TIMESTAMP : 0;

	/* the port's checksum verdicts where it gives them (the decoder
	 * checks in software what it does not) */
	offl |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;

	if (c->rx_ts == HGW_RX_TS_NIC) {
		struct rte_eth_dev_info info;

		if (c->pace != HGW_PACE_OFF)
			die("[rx] timestamp = nic with [replay] pace: a paced "
			    "replay sets every arrival itself (use timestamp = tsc)");
		if (rte_eth_dev_info_get(c->rx_port, &info) != 0 ||
		    !(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP))
			die("[rx] timestamp = nic: port %u (%s) offers no RX "
			    "timestamps (use timestamp = tsc)", c->rx_port,
			    info.driver_name);
	}

	/* [feed] igmp: the control lcore's reports on a TX queue of [rx]
	 * port after the others */
	uint16_t nigmp = c->igmp != HGW_IGMP_OFF;

	if (!trading || c->tx_port == c->rx_port) {
		a->igmp_queue = trading ? ntx : 0;
		port_start(c->rx_port, nrx, (uint16_t)(a->igmp_queue + nigmp),
			   c->rx_desc, pool, offl, 0, "[rx] port");
	} else {
		a->igmp_queue = 0;
		port_start(c->rx_port, nrx, nigmp, c->rx_desc, pool, offl, 0,
			   "[rx] port");
		/* [venue] stack = dpdk: the venue's segments, ARP and pings
		 * come back on RX queue 0, the TX lcore's (claim mode: on its
		 * RX queues, one for each TX queue, all the TX lcore's: a
		 * port may pair them, as net_af_packet does); the port
		 * computes the segments' checksums where it can (venue.c
		 * asks) */
		int dpdk = hgw_config_venue(c) &&
			   c->venue_stack == HGW_VENUE_STACK_DPDK;

		/* (claim mode: the RX queues beyond 0 carry little, and
		 * come from the feed's pool: 256 descriptors each) */
		port_start(c->tx_port, dpdk ? (dlg ? ntx : 1) : 0, ntx,
			   dlg ? RTE_MIN(c->rx_desc, 256) : c->rx_desc,
			   pool, 0,
			   dpdk ? hgw_tcp_port_offloads() : 0, "[order] port");
	}
	if (c->rx_mode == HGW_RX_FLOW_MIRROR)
		flow_mirror(c);
	a->rx_pool = pool;
}

/* Stopping and closing the ports flushes what net_pcap wrote. */
void
app_ports_close(const struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;

	rte_eth_dev_stop(c->rx_port);
	rte_eth_dev_close(c->rx_port);
	if (a->trade && c->tx_port != c->rx_port) {
		rte_eth_dev_stop(c->tx_port);
		rte_eth_dev_close(c->tx_port);
	}
}

void
app_recovery_lines_init(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;

	/* the keys were checked with the configuration (config.c) */
	if (c->rq_server_ip != 0)
		printf("recovery: gaps re-requested from %s, answers to port %u "
		       "+ worker\n", c->rq_server, c->rq_client_port);
}
