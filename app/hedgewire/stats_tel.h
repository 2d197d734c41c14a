/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: live counters and latency over rte_telemetry (/hgw/stats,
 * /hgw/workers, /hgw/latency).
 */
#ifndef HGW_APP_STATS_TEL_H
#define HGW_APP_STATS_TEL_H

#include "worker.h"

struct hgw_stats_tel;

/* Register the commands for workers *w[0..n-1] and, in tx-lcore mode, the
 * TX lcore (else NULL), whose histograms have precision_bits. Call before
 * the workers are launched, once a run. Exits with one line if it cannot
 * allocate. */
struct hgw_stats_tel *hgw_stats_tel_init(struct hgw_worker *const *w,
					 uint32_t n, struct hgw_txlcore *txl,
					 uint32_t precision_bits);

/* One stats record through rte_log (logtype hgw.stats, INFO): feed,
 * decision and order totals so far, and the latency of the orders sent
 * since the last record. Control lcore; final = 1 for the one after the
 * workers have been joined. */
void hgw_stats_tel_record(struct hgw_stats_tel *t, int final);

/* The workers have been joined: read their counters directly from now. */
void hgw_stats_tel_joined(struct hgw_stats_tel *t);

/* Before the workers and the TX lcore are freed: the commands read them
 * no more (t itself stays: a telemetry thread may still be in one). */
void hgw_stats_tel_fini(struct hgw_stats_tel *t);

/* [run] telemetry_group: the telemetry socket (0660) and its runtime
 * directory (0750) given to that group, and its parent made searchable,
 * so that a member (hgw-exporter as an unprivileged user) can connect;
 * an empty group leaves them as the EAL made them (root only). 0, or -1
 * with one line in err. */
int hgw_stats_tel_share(const char *group, char *err, size_t errlen);

#endif /* HGW_APP_STATS_TEL_H */
