/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: IGMP on the feed port ([feed] igmp): membership reports for
 * the feed's groups, so that a switch with IGMP snooping forwards them.
 *
 * The control lcore owns it and sends on a TX queue of [rx] port of its
 * own (app_ports_setup adds it): two unsolicited reports at start-up, a
 * second apart (the robustness variable, RFC 3376 8.1), one after every
 * membership query a worker saw (the workers' decoders count them and
 * store the count in their shared block, relaxed), and a leave at the
 * end. One host answering for itself: the report goes at once, not after
 * a random delay within the query's maximum response time, which only
 * spreads the reports of many hosts.
 */
#ifndef HGW_APP_IGMP_H
#define HGW_APP_IGMP_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"

struct rte_mempool;

struct hgw_igmp {
	uint16_t port, queue;
	uint32_t version;               /* HGW_IGMP_V2 or _V3 */
	uint32_t src;                   /* host order */
	uint8_t mac[6];
	uint32_t groups[2];
	uint32_t ngroups;
	struct rte_mempool *pool;
	uint64_t queries_seen;          /* the highest count a worker stored */
	uint64_t next_tsc;              /* the second start-up report (0: sent) */
	uint64_t reports, answered, leaves, failed;
};

/* Nothing to do unless [feed] igmp is on (returns 0 then; 1 when on). */
int hgw_igmp_init(struct hgw_igmp *g, const struct hgw_config *c,
		  uint16_t queue, struct rte_mempool *pool);

/* The control loop: the start-up reports, and a report for each rise of
 * queries (the largest count any worker stored). */
void hgw_igmp_poll(struct hgw_igmp *g, uint64_t queries, uint64_t now_tsc);

/* Leave the groups (v2 Leave Group; v3 a report changing to include no
 * source). */
void hgw_igmp_leave(struct hgw_igmp *g);

void hgw_igmp_report(const struct hgw_igmp *g, FILE *out);

#endif
