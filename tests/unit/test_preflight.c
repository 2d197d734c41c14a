/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: host preflight on a planted tree, for what the
 * integration test cannot plant: a PCI port and its NUMA node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hgw_preflight.h"
#include "hgw_test.h"

static char root[64];

static void
put(const char *path, const char *text)
{
	char p[256], *slash;
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, path);
	for (slash = strchr(p + 1, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	if (text == NULL) {             /* a directory */
		mkdir(p, 0755);
		return;
	}
	f = fopen(p, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static const struct hgw_pf_item *
find(const struct hgw_pf_item *it, unsigned int n, const char *name)
{
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(it[i].name, name) == 0)
			return &it[i];
	return NULL;
}

/* Worker 0 on cpu 2 (node 1), control on cpu 0 (node 0). */
static unsigned int
run(const char *pci, struct hgw_pf_item *items)
{
	struct hgw_pf_lcore lc[2] = {
		{ "control", 0, 0, 1, 0 },
		{ "worker 0", 1, 1, 1, 2 },
	};
	struct hgw_pf_port port = { "[rx] port", 0, 0, "", "" };

	snprintf(port.name, sizeof(port.name), "%s", pci);
	snprintf(port.pci, sizeof(port.pci), "%s", pci);
	return hgw_pf_run(root, lc, 2, &port, 1, items);
}

static void
test_numa_pci(void)
{
	struct hgw_pf_item items[HGW_PF_MAX_ITEMS];
	const struct hgw_pf_item *it;
	unsigned int n;

	put("/sys/devices/system/cpu/online", "0-3\n");
	put("/sys/devices/system/cpu/cpu0/node0", NULL);
	put("/sys/devices/system/cpu/cpu2/node1", NULL);
	put("/sys/bus/pci/devices/0000:81:00.0/numa_node", "0\n");
	put("/sys/bus/pci/devices/0000:82:00.0/numa_node", "1\n");
	put("/sys/bus/pci/devices/0000:03:00.0/numa_node", "-1\n");

	n = run("0000:81:00.0", items);
	it = find(items, n, "numa");
	HGW_CHECK(it != NULL && it->status == HGW_PF_WARN);
	HGW_CHECK(it != NULL && strstr(it->seen, "node 0, worker 0 (cpu 2) "
				       "on node 1") != NULL);
	HGW_CHECK(it != NULL && strstr(it->fix, "node0/cpulist") != NULL);

	n = run("0000:82:00.0", items);
	it = find(items, n, "numa");
	HGW_CHECK(it != NULL && it->status == HGW_PF_OK);
	HGW_CHECK(it != NULL && strstr(it->seen, "node 1") != NULL);

	n = run("0000:03:00.0", items);
	it = find(items, n, "numa");
	HGW_CHECK(it != NULL && it->status == HGW_PF_OK);

	/* no such PCI device in sysfs: cannot tell */
	n = run("0000:99:00.0", items);
	it = find(items, n, "numa");
	HGW_CHECK(it != NULL && it->status == HGW_PF_WARN);
}

/* The command line: the last of a parameter wins; flags before the
 * isolcpus list; strided lists. */
static void
test_cmdline(void)
{
	struct hgw_pf_item items[HGW_PF_MAX_ITEMS];
	const struct hgw_pf_item *it;
	unsigned int n;

	put("/proc/cmdline", "isolcpus=3 isolcpus=nohz,domain,0-6:2 "
	    "nohz_full=1 nohz_full=2 rcu_nocbs skew_tick=0 skew_tick=1\n");
	n = run("0000:82:00.0", items);
	it = find(items, n, "isolcpus");
	HGW_CHECK(it != NULL && it->status == HGW_PF_OK);
	it = find(items, n, "nohz_full");
	HGW_CHECK(it != NULL && it->status == HGW_PF_OK);
	it = find(items, n, "rcu_nocbs");       /* bare: every cpu */
	HGW_CHECK(it != NULL && it->status == HGW_PF_OK);
	it = find(items, n, "skew_tick");
	HGW_CHECK(it != NULL && it->status == HGW_PF_OK);

	put("/proc/cmdline", "isolcpus=nohz,domain,1-7:2 nohz_full=1 skew_tick=1 "
	    "skew_tick=0\n");
	n = run("0000:82:00.0", items);
	it = find(items, n, "isolcpus");
	HGW_CHECK(it != NULL && it->status == HGW_PF_WARN);
	it = find(items, n, "nohz_full");
	HGW_CHECK(it != NULL && it->status == HGW_PF_WARN);
	it = find(items, n, "skew_tick");
	HGW_CHECK(it != NULL && it->status == HGW_PF_WARN);
}

/* DAMON: a kdamond on (sysfs admin, or a module's switch) is a warning. */
static void
test_damon(void)
{
	struct hgw_pf_item items[HGW_PF_MAX_ITEMS];
	const struct hgw_pf_item *it;
	unsigned int n;

	n = run("0000:82:00.0", items);
	it = find(items, n, "damon");
	HGW_CHECK(it != NULL && it->status == HGW_PF_OK);
	put("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "2\n");
	put("/sys/kernel/mm/damon/admin/kdamonds/0/state", "off\n");
	put("/sys/kernel/mm/damon/admin/kdamonds/1/state", "off\n");
	n = run("0000:82:00.0", items);
	it = find(items, n, "damon");
	HGW_CHECK(it != NULL && it->status == HGW_PF_OK);
	put("/sys/kernel/mm/damon/admin/kdamonds/1/state", "on\n");
	n = run("0000:82:00.0", items);
	it = find(items, n, "damon");
	HGW_CHECK(it != NULL && it->status == HGW_PF_WARN);
	HGW_CHECK(it != NULL && strstr(it->seen, "1 DAMON context running") !=
		  NULL);
	HGW_CHECK(it != NULL && strstr(it->fix, "taskset -pc 0 ") != NULL);
	put("/sys/module/damon_reclaim/parameters/enabled", "Y\n");
	n = run("0000:82:00.0", items);
	it = find(items, n, "damon");
	HGW_CHECK(it != NULL && strstr(it->seen, "2 DAMON contexts") != NULL);
}

int
main(void)
{
	char cmd[96];
	int rc;

	snprintf(root, sizeof(root), "/tmp/hgw-preflight.XXXXXX");
	if (mkdtemp(root) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	HGW_TEST(test_numa_pci);
	HGW_TEST(test_cmdline);
	HGW_TEST(test_damon);
	rc = hgw_test_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
	return rc;
}
