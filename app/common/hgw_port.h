/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: bringing up a DPDK port, shared by hedgewire, hgw-dedup and
 * hgw-meter (and hgw-inspect's live mode).
 */
#ifndef HGW_PORT_H
#define HGW_PORT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

/* What to take on the RX queues. */
enum hgw_port_rx {
	HGW_PORT_RX_OWN = 0,    /* the port's own address only */
	HGW_PORT_RX_ALLMULTI,   /* every multicast group (the feed) */
	HGW_PORT_RX_PROMISC,    /* everything (orders to any address) */
};

struct hgw_port_conf {
	uint16_t nrx, ntx;              /* queues */
	uint16_t nrxd, ntxd;            /* descriptors (adjusted to the PMD) */
	struct rte_mempool *rx_pool;    /* needed when nrx > 0 */
	uint64_t rx_offloads;           /* wanted; kept where offered */
	uint64_t tx_offloads;           /* wanted; kept where offered */
	enum hgw_port_rx rx;
	/* A port with queues one way only gets one idle queue the other way
	 * where the device has one (rx_pool needed): DPDK 22.11's pdump
	 * (dpdk-dumpcap) captures only ports with both. */
	int both_ways;
	/* For messages: what asked for this port ("[order] port = 3",
	 * "--port 1") and for its queues ("[run] workers = 2",
	 * "--copies 3"); NULL: "port N". */
	const char *what;
	const char *rx_why, *tx_why;
};

/* Check that the port exists and has the queues, configure it, set the
 * queues up on the port's socket and start it. 0, or -1 after writing
 * one line into err naming the port, what asked for it and the step that
 * failed. A refused all-multicast or promiscuous mode is not an error
 * (virtual devices take everything anyway): it is written into warn
 * (when not NULL; "" otherwise). */
int hgw_port_start(uint16_t port, const struct hgw_port_conf *pc,
		   char *err, size_t errlen, char *warn, size_t warnlen);

/* The port's driver name ("net_memif", ...), or "?". */
const char *hgw_port_driver(uint16_t port);

/* 1 when the port is a net_memif (whose peer must not close the link
 * under a side that polls it). */
int hgw_port_is_memif(uint16_t port);

/* 1 when the port's link is up (rte_eth_link_get_nowait). */
int hgw_port_link_up(uint16_t port);

#endif /* HGW_PORT_H */
