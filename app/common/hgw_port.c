/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: DPDK port bring-up, one implementation for every tool.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "hgw_port.h"

int
hgw_port_start(uint16_t port, const struct hgw_port_conf *pc, char *err,
	       size_t errlen, char *warn, size_t warnlen)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint16_t nrx = pc->nrx, ntx = pc->ntx;
	uint16_t nrxd = pc->nrxd ? pc->nrxd : 1024;
	uint16_t ntxd = pc->ntxd ? pc->ntxd : 1024;
	char what[64];
	int rc;

	if (warn != NULL && warnlen > 0)
		warn[0] = '\0';
	if (pc->what != NULL)
		snprintf(what, sizeof(what), "%s", pc->what);
	else
		snprintf(what, sizeof(what), "port %u", port);
	if (!rte_eth_dev_is_valid_port(port)) {
		snprintf(err, errlen, "%s: no such DPDK port (%u available; "
			 "pass a device or --vdev in the EAL args)", what,
			 rte_eth_dev_count_avail());
		return -1;
	}
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot get device info: %s", what,
			 strerror(-rc));
		return -1;
	}
	if (info.max_rx_queues < pc->nrx) {
		snprintf(err, errlen, "%s needs %u RX queues on port %u (%s "
			 "has %u)", pc->rx_why ? pc->rx_why : what, pc->nrx,
			 port, info.driver_name, info.max_rx_queues);
		return -1;
	}
	if (info.max_tx_queues < pc->ntx) {
		snprintf(err, errlen, "%s needs %u TX queues on port %u (%s "
			 "has %u; with net_pcap add one tx_pcap per queue)",
			 pc->tx_why ? pc->tx_why : what, pc->ntx, port,
			 info.driver_name, info.max_tx_queues);
		return -1;
	}
	if (pc->both_ways && nrx == 0 && ntx != 0 && info.max_rx_queues != 0 &&
	    pc->rx_pool != NULL)
		nrx = 1;
	if (pc->both_ways && ntx == 0 && nrx != 0 && info.max_tx_queues != 0)
		ntx = 1;
	memset(&conf, 0, sizeof(conf));
	/* wanted where offered; net_pcap stamps without offering it, and
	 * whoever needs a stamp checks the mbuf field after the start */
	conf.rxmode.offloads = pc->rx_offloads & info.rx_offload_capa;
	conf.txmode.offloads = pc->tx_offloads & info.tx_offload_capa;
	rc = rte_eth_dev_configure(port, nrx, ntx, &conf);
	if (rc != 0) {
		snprintf(err, errlen, "%s: configure with %u RX / %u TX queues "
			 "failed: %s", what, nrx, ntx, strerror(-rc));
		return -1;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrxd, &ntxd);
	if (rc != 0) {
		snprintf(err, errlen, "%s: descriptor counts refused: %s", what,
			 strerror(-rc));
		return -1;
	}
	for (uint16_t q = 0; q < nrx; q++) {
		rc = rte_eth_rx_queue_setup(port, q, nrxd,
					    rte_eth_dev_socket_id(port), NULL,
					    pc->rx_pool);
		if (rc != 0) {
			snprintf(err, errlen, "%s: RX queue %u setup failed: %s",
				 what, q, strerror(-rc));
			return -1;
		}
	}
	for (uint16_t q = 0; q < ntx; q++) {
		rc = rte_eth_tx_queue_setup(port, q, ntxd,
					    rte_eth_dev_socket_id(port), NULL);
		if (rc != 0) {
			snprintf(err, errlen, "%s: TX queue %u setup failed: %s",
				 what, q, strerror(-rc));
			return -1;
		}
	}
	rc = rte_eth_dev_start(port);
	if (rc != 0) {
		snprintf(err, errlen, "%s (%s): start failed: %s", what,
			 info.driver_name, strerror(-rc));
		return -1;
	}
	if (pc->nrx == 0 || pc->rx == HGW_PORT_RX_OWN)
		return 0;
	rc = pc->rx == HGW_PORT_RX_ALLMULTI ?
		rte_eth_allmulticast_enable(port) :
		rte_eth_promiscuous_enable(port);
	if (rc != 0 && rc != -ENOTSUP && warn != NULL)
		snprintf(warn, warnlen, "port %u: %s: %s", port,
			 pc->rx == HGW_PORT_RX_ALLMULTI ? "all-multicast" :
			 "promiscuous", strerror(-rc));
	return 0;
}

const char *
hgw_port_driver(uint16_t port)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port, &info) != 0 || info.driver_name == NULL)
		return "?";
	return info.driver_name;
}

int
hgw_port_is_memif(uint16_t port)
{
	return strcmp(hgw_port_driver(port), "net_memif") == 0;
}

int
hgw_port_link_up(uint16_t port)
{
	struct rte_eth_link l;

	memset(&l, 0, sizeof(l));
	return rte_eth_link_get_nowait(port, &l) == 0 &&
	       l.link_status == RTE_ETH_LINK_UP;
}
