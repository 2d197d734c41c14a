/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire --check: the host preflight for this configuration.
 *
 * The lcores and ports are the EAL's (the same arguments as a run), so
 * this comes after rte_eal_init; it reads files only, and configures,
 * starts and allocates nothing on a port. HGW_SYSROOT, when set, is
 * the directory /proc, /sys and /etc are read under (a testing aid).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "check.h"
#include "hgw_preflight.h"
#include "hgw_stalls.h"

/* A stall rate above this (per second, any worker cpu) is a warn: a
 * cpu left to one thread by nohz_full sees about one tick a second. */
#define STALLS_PER_S_WARN  100.0
/* A share of a worker's stalls coinciding with another worker's above
 * this is a warn: hedging cannot hide those. */
#define OVERLAP_WARN       0.10
#define STALL_THRESHOLD_NS 1000

static void
add_lcore(struct hgw_pf_lcore *l, unsigned int lcore, const char *role,
	  int fast)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore);

	memset(l, 0, sizeof(*l));
	snprintf(l->role, sizeof(l->role), "%s", role);
	l->lcore = lcore;
	l->fast = fast;
	l->ncpus = (unsigned int)CPU_COUNT(&set);
	for (unsigned int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			l->cpu = c;
			break;
		}
}

static void
add_port(struct hgw_pf_port *p, const char *what, uint16_t id)
{
	struct rte_eth_dev_info info;

	memset(p, 0, sizeof(*p));
	snprintf(p->what, sizeof(p->what), "%s", what);
	p->id = id;
	if (!rte_eth_dev_is_valid_port(id) ||
	    rte_eth_dev_info_get(id, &info) != 0 || info.device == NULL) {
		p->missing = 1;
		return;
	}
	snprintf(p->name, sizeof(p->name), "%s", rte_dev_name(info.device));
	if (strcmp(rte_bus_name(rte_dev_bus(info.device)), "pci") == 0)
		snprintf(p->pci, sizeof(p->pci), "%.31s", p->name);
}

static struct hgw_stall_stats st[RTE_MAX_LCORE];

/* The stall item: spin on the worker cpus (each once) for stall_ms.
 * Returns the number of cpus measured (their numbers are in st[]). */
static unsigned int
check_stalls(struct hgw_pf_item *it, const struct hgw_pf_lcore *lc,
	     unsigned int nlc, int lcores_failed, uint32_t stall_ms,
	     char *list, size_t lsize)
{
	static struct hgw_stall_trace t[RTE_MAX_LCORE];
	static unsigned int cpus[RTE_MAX_LCORE];
	uint64_t dur = (uint64_t)stall_ms * 1000000u, *scratch;
	unsigned int n = 0;
	char seen[HGW_PF_TEXT];
	size_t len = 0, slen = 0;
	uint32_t cap;
	int warn = 0;

	it->name = "stalls";
	it->fix[0] = '\0';
	it->status = HGW_PF_OK;
	if (stall_ms == 0) {
		snprintf(it->seen, sizeof(it->seen), "not measured "
			 "(--check-stall-ms 0)");
		return 0;
	}
	if (lcores_failed) {
		it->status = HGW_PF_FAIL;
		snprintf(it->seen, sizeof(it->seen), "not measured: the lcores "
			 "item failed");
		snprintf(it->fix, sizeof(it->fix), "fix the lcores first");
		return 0;
	}
	list[0] = '\0';
	for (unsigned int i = 0; i < nlc; i++) {
		int dup = 0;

		if (strncmp(lc[i].role, "worker", 6) != 0)
			continue;
		for (unsigned int k = 0; k < n; k++)
			dup |= cpus[k] == lc[i].cpu;
		if (dup)
			continue;
		cpus[n++] = lc[i].cpu;
		len += (size_t)snprintf(list + len, lsize - len, "%s%u",
					len ? "," : "", lc[i].cpu);
		if (len >= lsize)
			break;
	}
	/* a stall every 10 us of the run at most: far above any tick or
	 * interrupt rate; more are counted, not recorded */
	cap = (uint32_t)(dur / 10000) + 64;
	scratch = malloc((size_t)cap * sizeof(*scratch));
	if (n == 0 || scratch == NULL || hgw_stalls_alloc(t, cpus, n, cap) != 0) {
		free(scratch);
		it->status = HGW_PF_FAIL;
		snprintf(it->seen, sizeof(it->seen), n == 0 ? "no worker lcore" :
			 "out of memory for the stall arrays");
		snprintf(it->fix, sizeof(it->fix), "check [run] workers");
		return 0;
	}
	if (hgw_stalls_record(t, n, dur, STALL_THRESHOLD_NS) != 0) {
		for (unsigned int i = 0; i < n; i++)
			if (t[i].err != 0) {
				it->status = HGW_PF_FAIL;
				snprintf(it->seen, sizeof(it->seen), "cannot spin "
					 "on cpu %u: %s", t[i].cpu,
					 strerror(-t[i].err));
				snprintf(it->fix, sizeof(it->fix), "check the "
					 "lcores: is cpu %u online?", t[i].cpu);
				break;
			}
		hgw_stalls_free(t, n);
		free(scratch);
		return 0;
	}
	hgw_stalls_analyze(t, n, dur, st, scratch);
	seen[0] = '\0';
	for (unsigned int i = 0; i < n; i++) {
		if (st[i].per_s > STALLS_PER_S_WARN ||
		    (n >= 2 && st[i].overlap_share >= OVERLAP_WARN))
			warn = 1;
		if (slen < sizeof(seen))
			slen += (size_t)snprintf(seen + slen, sizeof(seen) - slen,
				"%scpu %u %.0f/s p50 %.1f us p99 %.1f us", i ? "; " : "",
				st[i].cpu, st[i].per_s, st[i].p50_ns / 1e3,
				st[i].p99_ns / 1e3);
		if (n >= 2 && slen < sizeof(seen))
			slen += (size_t)snprintf(seen + slen, sizeof(seen) - slen,
				", %.0f%% overlapping another worker's",
				100.0 * st[i].overlap_share);
	}
	it->status = warn ? HGW_PF_WARN : HGW_PF_OK;
	snprintf(it->seen, sizeof(it->seen), "%u ms on worker cpus %s: %s",
		 stall_ms, list, seen);
	if (warn)
		snprintf(it->fix, sizeof(it->fix), "see the stall report below "
			 "and hgw-stalls --cpus %s: nohz_full=%s rcu_nocbs=%s "
			 "skew_tick=1, IRQs elsewhere", list, list, list);
	hgw_stalls_free(t, n);
	free(scratch);
	return n;
}

int
hgw_check_run(const struct hgw_config *c, uint32_t stall_ms)
{
	static struct hgw_pf_lcore lc[RTE_MAX_LCORE];
	struct hgw_pf_item items[HGW_PF_MAX_ITEMS];
	struct hgw_pf_port ports[2];
	const char *root = getenv("HGW_SYSROOT");
	int trade = c->table_file[0] != '\0';
	int txl = trade && (c->dedup == HGW_DEDUP_MODE_TXLCORE ||
			    hgw_config_dlg(c));
	unsigned int need = c->workers + (c->rx_mode == HGW_RX_FANOUT) +
			    (unsigned int)txl;
	unsigned int nlc = 0, nports = 0, n, nst, count[3] = { 0 };
	unsigned int lcore = rte_get_main_lcore();
	char list[256];

	if (root == NULL || root[0] == '\0')
		root = "/";
	/* the roles app_lcores_pick (trading.c) gives the lcores after the
	 * main one, in order: the RX lcore (fanout), the workers, the TX
	 * lcore (tx-lcore) */
	add_lcore(&lc[nlc++], lcore, "control", 0);
	lcore = rte_get_next_lcore(-1, 1, 0);
	for (unsigned int i = 0; i < need && lcore < RTE_MAX_LCORE; i++) {
		char role[24];
		unsigned int w = i - (c->rx_mode == HGW_RX_FANOUT);

		if (c->rx_mode == HGW_RX_FANOUT && i == 0)
			snprintf(role, sizeof(role), "rx");
		else if (w < c->workers)
			snprintf(role, sizeof(role), "worker %u", w);
		else
			snprintf(role, sizeof(role), "tx");
		add_lcore(&lc[nlc++], lcore, role, 1);
		lcore = rte_get_next_lcore(lcore, 1, 0);
	}
	add_port(&ports[nports++], "[rx] port", c->rx_port);
	if (trade && c->tx_port != c->rx_port)
		add_port(&ports[nports++], "[order] port", c->tx_port);

	printf("hedgewire %s host check%s%s\n", HGW_VERSION,
	       strcmp(root, "/") == 0 ? "" : ", host files under ",
	       strcmp(root, "/") == 0 ? "" : root);
	n = hgw_pf_run(root, lc, nlc, ports, nports, items);
	if (nlc - 1 < need) {
		/* fewer lcores than the configuration needs: a run would
		 * stop at start-up, so the check fails here */
		items[0].status = HGW_PF_FAIL;
		snprintf(items[0].seen, sizeof(items[0].seen), "[run] workers "
			 "= %u%s%s needs %u lcores besides the main one; the "
			 "EAL has %u", c->workers,
			 c->rx_mode == HGW_RX_FANOUT ? " with [rx] mode = fanout" : "",
			 !txl ? "" : c->dedup == HGW_DEDUP_MODE_TXLCORE ?
			 " with [run] dedup = tx-lcore" :
			 " with [run] dedup = claim on [venue] stack = dpdk",
			 need, nlc - 1);
		snprintf(items[0].fix, sizeof(items[0].fix), "give the EAL "
			 "more lcores (e.g. -l 0-%u) or lower [run] workers", need);
	}
	nst = check_stalls(&items[n], lc, nlc, items[0].status == HGW_PF_FAIL,
			   stall_ms, list, sizeof(list));
	n++;
	for (unsigned int i = 0; i < n; i++) {
		hgw_pf_print(stdout, &items[i]);
		count[items[i].status]++;
	}
	if (nst > 0) {
		printf("stall report (%u ms, a gap over %u ns is a stall):\n",
		       stall_ms, STALL_THRESHOLD_NS);
		hgw_stalls_print(stdout, "  ", st, nst);
		hgw_stalls_advise(stdout, "  advice: ", st, nst, list);
	}
	printf("check: %u ok, %u warn, %u fail\n", count[HGW_PF_OK],
	       count[HGW_PF_WARN], count[HGW_PF_FAIL]);
	fflush(stdout);
	return count[HGW_PF_FAIL] != 0 ? 1 : 0;
}
