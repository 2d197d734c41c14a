/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire benchmark: what journalling an order costs the lcore that
 * sends it, per burst of orders, for three ways of doing it:
 *
 *   none   the driver's part alone: the burst freed, as net_pcap's
 *          tx_burst frees what it sent (the baseline)
 *   ring   a 128-byte record per order (TSC, length, the 92-byte frame)
 *          copied and enqueued on an SP/SC ring for the control plane to
 *          write (hedgewire before the mapped journal)
 *   mmap   one more reference per mbuf, the driver's free, then
 *          hgw_journal_put into the mapped file and our free (hedgewire's
 *          sender_flush now)
 *
 *   journal_bench [EAL args] -- [--orders N] [--burst B] [--dir DIR]
 *
 * Each burst is timed with the TSC around exactly that work; modes take
 * turns in rounds so drift hits each alike. The consumer side (the ring
 * drained, the journal's control-plane poll, 2 ms for its file thread to
 * map the pages ahead) runs every 1024 orders, off the clock, as it runs
 * on another lcore in hedgewire. Prints, per mode,
 * the cycles and ns per order (mean) and the per-burst p50 / p99 / max.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "hgw_latency.h"
#include "journal.h"

#define MAX_BURST 64
#define ROUNDS 8
#define DRAIN_EVERY 1024        /* orders between two consumer turns */

/* The record hedgewire's ring carried (two cache lines). */
struct ring_rec {
	uint64_t tsc;
	uint16_t len;
	uint8_t frame[HGW_ORDER_FRAME_LEN];
	uint8_t pad[128 - 8 - 2 - HGW_ORDER_FRAME_LEN];
};

enum { M_NONE, M_RING, M_MMAP, M_N };
static const char *const names[M_N] = { "none", "ring", "mmap" };

static struct hgw_hist hist[M_N];
static uint64_t cycles[M_N], orders[M_N];

static int
take(struct rte_mempool *mp, struct rte_mbuf **m, uint32_t n, uint64_t *k)
{
	if (rte_pktmbuf_alloc_bulk(mp, m, n) != 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *d = (uint8_t *)rte_pktmbuf_append(m[i],
							   HGW_ORDER_FRAME_LEN);

		memset(d, 0x5a, HGW_ORDER_FRAME_LEN);
		memcpy(d + 40, k, sizeof(*k));  /* a different order each */
		(*k)++;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	uint64_t n_orders = 2000000, k = 0;
	uint32_t burst = 4;
	const char *dir = "/tmp";
	char path[512], err[1024];
	int rc = rte_eal_init(argc, argv), opt;

	if (rc < 0) {
		fprintf(stderr, "journal_bench: EAL init failed\n");
		return 1;
	}
	argc -= rc;
	argv += rc;
	while ((opt = getopt(argc, argv, "n:b:d:")) != -1) {
		switch (opt) {
		case 'n': n_orders = strtoull(optarg, NULL, 10); break;
		case 'b': burst = (uint32_t)atoi(optarg); break;
		case 'd': dir = optarg; break;
		default:
			fprintf(stderr, "usage: journal_bench [EAL args] -- "
				"[-n orders] [-b burst] [-d dir]\n");
			return 2;
		}
	}
	if (burst == 0 || burst > MAX_BURST) {
		fprintf(stderr, "journal_bench: burst 1..%d\n", MAX_BURST);
		return 2;
	}
	struct rte_mempool *mp = rte_pktmbuf_pool_create("jb", 8191, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	struct rte_ring *ring = rte_ring_create_elem("jb", sizeof(struct ring_rec),
		65536, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(path, sizeof(path), "%s/journal_bench.pcap", dir);
	struct hgw_journal *j = hgw_journal_open(path, 1u << 20, err,
						 sizeof(err));

	if (mp == NULL || ring == NULL || j == NULL) {
		fprintf(stderr, "journal_bench: set-up failed: %s\n",
			j == NULL ? err : "pool or ring");
		return 1;
	}
	struct hgw_journal_tx *jt = hgw_journal_tx(j);
	static struct ring_rec recs[MAX_BURST], sink[DRAIN_EVERY];
	struct rte_mbuf *m[MAX_BURST];
	uint64_t since = 0;

	for (int i = 0; i < M_N; i++)
		hgw_hist_init(&hist[i]);
	for (int r = 0; r < ROUNDS; r++) {
		for (int mode = 0; mode < M_N; mode++) {
			for (uint64_t o = 0; o < n_orders / ROUNDS / M_N;
			     o += burst) {
				uint64_t t0, t1;

				if (take(mp, m, burst, &k) != 0) {
					fprintf(stderr, "journal_bench: pool empty\n");
					return 1;
				}
				t0 = rte_rdtsc_precise();
				if (mode == M_NONE) {
					rte_pktmbuf_free_bulk(m, burst);
				} else if (mode == M_RING) {
					for (uint32_t i = 0; i < burst; i++) {
						recs[i].tsc = t0;
						recs[i].len = HGW_ORDER_FRAME_LEN;
						memcpy(recs[i].frame,
						       rte_pktmbuf_mtod(m[i], const void *),
						       HGW_ORDER_FRAME_LEN);
					}
					rte_pktmbuf_free_bulk(m, burst);
					rte_ring_sp_enqueue_burst_elem(ring, recs,
						sizeof(recs[0]), burst, NULL);
				} else {
					for (uint32_t i = 0; i < burst; i++)
						rte_mbuf_refcnt_update(m[i], 1);
					rte_pktmbuf_free_bulk(m, burst);
					if (hgw_journal_put(jt, m, burst, t0) != 0) {
						fprintf(stderr, "journal_bench: journal full\n");
						return 1;
					}
					rte_pktmbuf_free_bulk(m, burst);
				}
				t1 = rte_rdtsc_precise();
				hgw_hist_record(&hist[mode], t1 - t0);
				cycles[mode] += t1 - t0;
				orders[mode] += burst;
				since += burst;
				if (since >= DRAIN_EVERY) {	/* off the clock */
					since = 0;
					while (rte_ring_sc_dequeue_burst_elem(ring,
						sink, sizeof(sink[0]), DRAIN_EVERY,
						NULL) != 0)
						;
					if (hgw_journal_poll(j, err, sizeof(err)) != 0)
						fprintf(stderr, "journal_bench: %s\n", err);
					/* the journal's file thread maps the
					 * pages ahead every millisecond: 1024
					 * orders per 2 ms is still far more
					 * than hedgewire sends */
					rte_delay_us_block(2000);
				}
			}
		}
	}
	double ns = 1e9 / (double)rte_get_tsc_hz();

	printf("burst %u, %" PRIu64 " orders a mode, TSC %" PRIu64 " Hz\n",
	       burst, orders[0], rte_get_tsc_hz());
	for (int mode = 0; mode < M_N; mode++) {
		double c = (double)cycles[mode] / (double)orders[mode];

		printf("%-5s %6.1f cycles/order (%5.1f ns)%s", names[mode], c,
		       c * ns, mode == M_NONE ? "" : ", ");
		if (mode != M_NONE) {
			double b = (double)cycles[M_NONE] / (double)orders[M_NONE];

			printf("journal %5.1f ns/order", (c - b) * ns);
		}
		printf("; per burst: p50 %.0f p99 %.0f max %.0f ns\n",
		       (double)hgw_hist_percentile(&hist[mode], 50.0) * ns,
		       (double)hgw_hist_percentile(&hist[mode], 99.0) * ns,
		       (double)hist[mode].max * ns);
	}
	if (hgw_journal_finish(j, err, sizeof(err)) != 0)
		fprintf(stderr, "journal_bench: %s\n", err);
	printf("journal %s: %" PRIu64 " orders written\n", hgw_journal_names(j),
	       hgw_journal_written(j));
	hgw_journal_free(j);
	remove(path);
	rte_eal_cleanup();
	return 0;
}
