/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: host preflight, the host settings a low-latency run needs.
 *
 * Each item is ok, warn or fail, with what was seen and the fix. The
 * checks read files only (/proc, /sys, /etc under a root directory, "/"
 * on a real host), so they run before any device is touched and a test
 * can plant a tree with known answers. The caller says which CPUs run
 * what (from the EAL's lcores) and which ports are used.
 */
#ifndef HGW_PREFLIGHT_H
#define HGW_PREFLIGHT_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hgw_pf_status {
	HGW_PF_OK,
	HGW_PF_WARN,
	HGW_PF_FAIL,
};

/* Layouts public because callers (hedgewire --check) fill the lcores and
 * ports and read the items by value. */

/* One lcore: its role and the CPUs it may run on. */
struct hgw_pf_lcore {
	char role[24];          /* "control", "worker 0", "rx", "tx" */
	unsigned int lcore;
	int fast;               /* on the fast path: must be quiet */
	unsigned int ncpus;     /* CPUs in its affinity set */
	unsigned int cpu;       /* the first of them */
};

/* One port used by the configuration. */
struct hgw_pf_port {
	char what[24];          /* "[rx] port" */
	unsigned int id;
	int missing;            /* no such DPDK port */
	char name[64];          /* device name */
	char pci[32];           /* PCI address; empty for a virtual device */
};

#define HGW_PF_TEXT 320

struct hgw_pf_item {
	const char *name;
	enum hgw_pf_status status;
	char seen[HGW_PF_TEXT];
	char fix[HGW_PF_TEXT];  /* empty when ok */
};

/* Items hgw_pf_run fills at most. */
#define HGW_PF_MAX_ITEMS 20

/* Runs every check for these lcores and ports with /proc, /sys and /etc
 * under root ("" or "/" for the host). Fills items[] in a fixed order
 * and returns their number. */
unsigned int hgw_pf_run(const char *root, const struct hgw_pf_lcore *lc,
			unsigned int nlc, const struct hgw_pf_port *ports,
			unsigned int nports, struct hgw_pf_item *items);

const char *hgw_pf_status_name(enum hgw_pf_status s);

/* One line: "NAME STATUS  seen[; fix: fix]". */
void hgw_pf_print(FILE *out, const struct hgw_pf_item *it);

#ifdef __cplusplus
}
#endif

#endif /* HGW_PREFLIGHT_H */
