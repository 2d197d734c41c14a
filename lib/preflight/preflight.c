/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: host preflight (see hgw_preflight.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hgw_preflight.h"
#include "hgw_parse.h"

#define MAX_CPUS 1024
#define DIM(a) (sizeof(a) / sizeof((a)[0]))

struct cpus {
	uint64_t w[MAX_CPUS / 64];
};

static void
cpus_set(struct cpus *s, unsigned int c)
{
	if (c < MAX_CPUS)
		s->w[c / 64] |= 1ull << (c % 64);
}

static int
cpus_has(const struct cpus *s, unsigned int c)
{
	return c < MAX_CPUS && (s->w[c / 64] >> (c % 64) & 1);
}

static int
cpus_empty(const struct cpus *s)
{
	for (size_t i = 0; i < DIM(s->w); i++)
		if (s->w[i] != 0)
			return 0;
	return 1;
}

static void
cpus_or(struct cpus *d, const struct cpus *s)
{
	for (size_t i = 0; i < DIM(d->w); i++)
		d->w[i] |= s->w[i];
}

/* d = a without b */
static void
cpus_minus(struct cpus *d, const struct cpus *a, const struct cpus *b)
{
	for (size_t i = 0; i < DIM(d->w); i++)
		d->w[i] = a->w[i] & ~b->w[i];
}

/* "0-3,5" (kernel cpulist; "" and "(null)" are empty). Flags before the
 * list ("managed_irq,domain,2-3" in isolcpus=) are skipped. Returns 0,
 * or -1 when it is not a list. */
static int
cpus_parse(const char *s, struct cpus *set)
{
	memset(set, 0, sizeof(*set));
	if (strcmp(s, "(null)") == 0)
		return 0;
	while (*s != '\0' && *s != '\n') {
		uint64_t a, b, step;

		if (isalpha((unsigned char)*s)) {   /* a flag */
			s += strcspn(s, ",");
			if (*s == ',')
				s++;
			continue;
		}
		/* A, A-B, A-B:S (0-15:2) */
		if (hgw_parse_cpu_item(&s, 1, UINT32_MAX, &a, &b, &step) != 0 ||
		    (*s != ',' && *s != '\0' && *s != '\n'))
			return -1;
		for (uint64_t c = a; c <= b && c < MAX_CPUS; c += step)
			cpus_set(set, (unsigned int)c);
		if (*s == ',')
			s++;
	}
	return 0;
}

/* "0-1,5": the shortest list. */
static char *
cpus_fmt(const struct cpus *s, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int c = 0; c < MAX_CPUS; c++) {
		unsigned int e = c;

		if (!cpus_has(s, c))
			continue;
		while (e + 1 < MAX_CPUS && cpus_has(s, e + 1))
			e++;
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%u",
						len ? "," : "", c);
		if (e > c && len < size)
			len += (size_t)snprintf(buf + len, size - len, "-%u", e);
		c = e;
	}
	if (len == 0)
		snprintf(buf, size, "none");
	return buf;
}

/* The file root/path into buf, trailing newline removed. 0 or -errno. */
static int __attribute__((format(printf, 4, 5)))
readf(const char *root, char *buf, size_t size, const char *fmt, ...)
{
	char path[512];
	size_t n, len;
	va_list ap;
	FILE *f;

	len = (size_t)snprintf(path, sizeof(path), "%s", root);
	va_start(ap, fmt);
	vsnprintf(path + len, sizeof(path) - len, fmt, ap);
	va_end(ap);
	f = fopen(path, "r");
	if (f == NULL)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* Kernel parameter KEY on the command line: 1 and its value (empty when
 * bare), the last one given winning, or 0. What follows " -- " is for
 * init, not the kernel. */
static int
cmdline_get(const char *cmdline, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);
	const char *p = cmdline;
	int found = 0;

	while (*p != '\0') {
		size_t len;

		while (*p == ' ')
			p++;
		len = strcspn(p, " ");
		if (len == 2 && strncmp(p, "--", 2) == 0)
			break;
		if (len >= klen && strncmp(p, key, klen) == 0 &&
		    (len == klen || p[klen] == '=')) {
			size_t vlen = len == klen ? 0 : len - klen - 1;

			if (vlen >= size)
				vlen = size - 1;
			memcpy(val, p + klen + (len > klen), vlen);
			val[vlen] = '\0';
			found = 1;
		}
		p += len;
	}
	return found;
}

struct ctx {
	const char *root;
	const struct hgw_pf_lcore *lc;
	unsigned int nlc;
	const struct hgw_pf_port *ports;
	unsigned int nports;
	char cmdline[4096];
	struct cpus fast;       /* CPUs of fast-path lcores */
	struct cpus all;        /* CPUs of every lcore */
	char fastl[256];        /* fast as a list */
	char ctll[256];         /* where the rest may go: the control CPUs */
};

static void __attribute__((format(printf, 4, 5)))
item(struct hgw_pf_item *it, const char *name, enum hgw_pf_status st,
     const char *fmt, ...)
{
	va_list ap;

	it->name = name;
	it->status = st;
	it->fix[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(it->seen, sizeof(it->seen), fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3)))
fix(struct hgw_pf_item *it, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(it->fix, sizeof(it->fix), fmt, ap);
	va_end(ap);
}

/* The roles on the fast CPUs in set, "worker 0, worker 1". */
static char *
roles(const struct ctx *c, const struct cpus *set, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < c->nlc && len < size; i++)
		if (c->lc[i].fast && cpus_has(set, c->lc[i].cpu))
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						len ? ", " : "", c->lc[i].role);
	return buf;
}

static void
check_lcores(struct ctx *c, struct hgw_pf_item *it)
{
	char buf[256], l[256];
	struct cpus online;
	size_t len = 0;

	if (readf(c->root, buf, sizeof(buf),
		  "/sys/devices/system/cpu/online") < 0 ||
	    cpus_parse(buf, &online) < 0) {
		item(it, "lcores", HGW_PF_WARN, "cannot read the online cpus "
		     "(/sys/devices/system/cpu/online)");
		fix(it, "mount sysfs");
		return;
	}
	for (unsigned int i = 0; i < c->nlc; i++)
		if (!cpus_has(&online, c->lc[i].cpu)) {
			item(it, "lcores", HGW_PF_FAIL, "lcore %u (%s) is on cpu "
			     "%u, which this host does not have online (online: "
			     "%s)", c->lc[i].lcore, c->lc[i].role, c->lc[i].cpu,
			     cpus_fmt(&online, l, sizeof(l)));
			fix(it, "choose lcores among cpus %s (EAL -l or --lcores)",
			    l);
			return;
		}
	for (unsigned int i = 0; i < c->nlc; i++) {
		if (c->lc[i].fast && c->lc[i].ncpus > 1) {
			item(it, "lcores", HGW_PF_WARN, "lcore %u (%s) may run on "
			     "%u cpus: the scheduler moves it", c->lc[i].lcore,
			     c->lc[i].role, c->lc[i].ncpus);
			fix(it, "pin it to one cpu (--lcores=%u@CPU)",
			    c->lc[i].lcore);
			return;
		}
		for (unsigned int j = 0; j < i; j++)
			if ((c->lc[i].fast || c->lc[j].fast) &&
			    c->lc[i].cpu == c->lc[j].cpu) {
				item(it, "lcores", HGW_PF_WARN, "%s and %s share "
				     "cpu %u: they take turns", c->lc[j].role,
				     c->lc[i].role, c->lc[i].cpu);
				fix(it, "give each fast-path lcore a cpu of its "
				    "own (EAL -l or --lcores)");
				return;
			}
	}
	for (unsigned int i = 0; i < c->nlc && len < sizeof(l); i++)
		len += (size_t)snprintf(l + len, sizeof(l) - len, "%s%s cpu %u",
					i ? ", " : "", c->lc[i].role,
					c->lc[i].cpu);
	item(it, "lcores", HGW_PF_OK, "%s", l);
}

static void
check_ports(struct ctx *c, struct hgw_pf_item *it)
{
	char l[256];
	size_t len = 0;

	l[0] = '\0';
	for (unsigned int i = 0; i < c->nports; i++) {
		if (c->ports[i].missing) {
			item(it, "ports", HGW_PF_FAIL, "%s = %u: no such DPDK "
			     "port", c->ports[i].what, c->ports[i].id);
			fix(it, "pass the device (-a PCI) or --vdev in the EAL "
			    "args, bound to a DPDK driver");
			return;
		}
		if (len < sizeof(l))
			len += (size_t)snprintf(l + len, sizeof(l) - len,
						"%s%s = %u (%s)", i ? ", " : "",
						c->ports[i].what, c->ports[i].id,
						c->ports[i].name);
	}
	item(it, "ports", HGW_PF_OK, "%s", c->nports ? l : "none");
}

/* A cpu set from the kernel command line (key=list) or a sysfs file
 * (when sys is not NULL and exists: it is what the kernel made of it). */
static void
check_cover(struct ctx *c, struct hgw_pf_item *it, const char *key,
	    const char *sys, const struct cpus *also, const char *why,
	    const char *fixpre, const char *fixpost)
{
	struct cpus set = { { 0 } }, miss;
	char buf[512], l[256], r[256], val[512];
	int from_sys = 0;

	if (sys != NULL &&
	    readf(c->root, buf, sizeof(buf), "%s", sys) == 0) {
		from_sys = 1;
		if (cpus_parse(buf, &set) < 0)
			memset(&set, 0, sizeof(set));
	}
	if (cmdline_get(c->cmdline, key, val, sizeof(val))) {
		struct cpus cl;

		if (val[0] == '\0' && strcmp(key, "rcu_nocbs") == 0)
			memset(&cl, 0xff, sizeof(cl));  /* bare: all */
		else if (cpus_parse(val, &cl) < 0)
			memset(&cl, 0, sizeof(cl));
		if (!from_sys || strcmp(key, "isolcpus") == 0)
			cpus_or(&set, &cl);
	}
	if (also != NULL)
		cpus_or(&set, also);
	cpus_minus(&miss, &c->fast, &set);
	if (cpus_empty(&miss)) {
		item(it, key, HGW_PF_OK, "covers the fast-path cpus %s%s",
		     c->fastl, why);
		return;
	}
	item(it, key, HGW_PF_WARN, "cpus %s (%s) not in %s (%s: %s)",
	     cpus_fmt(&miss, l, sizeof(l)), roles(c, &miss, r, sizeof(r)),
	     key, from_sys ? sys : "kernel command line",
	     cpus_fmt(&set, buf, sizeof(buf)));
	fix(it, "%s%s%s", fixpre, c->fastl, fixpost);
}

static void
check_governor(struct ctx *c, struct hgw_pf_item *it)
{
	char buf[64];

	for (unsigned int i = 0; i < c->nlc; i++) {
		unsigned int cpu = c->lc[i].cpu;

		if (!c->lc[i].fast)
			continue;
		if (readf(c->root, buf, sizeof(buf), "/sys/devices/system/cpu/"
			  "cpu%u/cpufreq/scaling_governor", cpu) < 0) {
			item(it, "governor", HGW_PF_WARN, "cpu %u (%s) has no "
			     "cpufreq governor: its frequency is left to the "
			     "firmware or the hypervisor", cpu, c->lc[i].role);
			fix(it, "set the BIOS (or the hypervisor host) to its "
			    "maximum-performance power profile");
			return;
		}
		if (strcmp(buf, "performance") != 0) {
			item(it, "governor", HGW_PF_WARN, "cpu %u (%s) governor is "
			     "%s: the frequency follows the load", cpu,
			     c->lc[i].role, buf);
			fix(it, "cpupower -c %s frequency-set -g performance",
			    c->fastl);
			return;
		}
	}
	item(it, "governor", HGW_PF_OK, "performance on cpus %s", c->fastl);
}

static void
check_turbo(struct ctx *c, struct hgw_pf_item *it)
{
	char buf[64];

	if (readf(c->root, buf, sizeof(buf),
		  "/sys/devices/system/cpu/intel_pstate/no_turbo") == 0) {
		if (strcmp(buf, "1") == 0) {
			item(it, "turbo", HGW_PF_OK, "off (intel_pstate/no_turbo "
			     "= 1): a steady frequency");
			return;
		}
		item(it, "turbo", HGW_PF_WARN, "on (intel_pstate/no_turbo = %s): "
		     "the frequency moves with load and heat", buf);
		fix(it, "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
		return;
	}
	if (readf(c->root, buf, sizeof(buf),
		  "/sys/devices/system/cpu/cpufreq/boost") == 0) {
		if (strcmp(buf, "0") == 0) {
			item(it, "turbo", HGW_PF_OK, "off (cpufreq/boost = 0): a "
			     "steady frequency");
			return;
		}
		item(it, "turbo", HGW_PF_WARN, "on (cpufreq/boost = %s): the "
		     "frequency moves with load and heat", buf);
		fix(it, "echo 0 > /sys/devices/system/cpu/cpufreq/boost");
		return;
	}
	item(it, "turbo", HGW_PF_WARN, "cannot tell (no intel_pstate/no_turbo "
	     "nor cpufreq/boost): left to the firmware or the hypervisor");
	fix(it, "turn turbo/boost off in the BIOS (or on the hypervisor host) "
	    "for a steady frequency");
}

static void
check_smt(struct ctx *c, struct hgw_pf_item *it, const struct cpus *isolated)
{
	char buf[256], r[256];

	for (unsigned int i = 0; i < c->nlc; i++) {
		struct cpus sib;
		unsigned int cpu = c->lc[i].cpu;

		if (!c->lc[i].fast)
			continue;
		if (readf(c->root, buf, sizeof(buf), "/sys/devices/system/cpu/"
			  "cpu%u/topology/thread_siblings_list", cpu) < 0 ||
		    cpus_parse(buf, &sib) < 0) {
			item(it, "smt", HGW_PF_WARN, "cannot read cpu %u's "
			     "siblings (topology/thread_siblings_list)", cpu);
			fix(it, "check that cpu %u is online", cpu);
			return;
		}
		for (unsigned int s = 0; s < MAX_CPUS; s++) {
			if (s == cpu || !cpus_has(&sib, s))
				continue;
			if (cpus_has(&c->all, s)) {
				struct cpus one = { { 0 } };

				cpus_set(&one, s);
				roles(c, &one, r, sizeof(r));
				item(it, "smt", HGW_PF_WARN, "cpu %u (%s) and cpu %u "
				     "(%s) are SMT siblings: one core for both",
				     cpu, c->lc[i].role, s, r[0] ? r : "control");
				fix(it, "use cpus of different cores (topology/"
				    "thread_siblings_list), or boot with nosmt");
				return;
			}
			if (!cpus_has(isolated, s)) {
				item(it, "smt", HGW_PF_WARN, "cpu %u, the SMT "
				     "sibling of cpu %u (%s), is not isolated: "
				     "other threads share the core", s, cpu,
				     c->lc[i].role);
				fix(it, "add cpu %u to isolcpus= and leave it idle, "
				    "or take it offline (echo 0 > /sys/devices/"
				    "system/cpu/cpu%u/online), or boot with nosmt",
				    s, s);
				return;
			}
		}
	}
	item(it, "smt", HGW_PF_OK, "no fast-path cpu shares its core with a "
	     "cpu that is not isolated and idle");
}

static void
check_irqs(struct ctx *c, struct hgw_pf_item *it)
{
	char path[64], buf[256], l[160], fl[256];
	unsigned int n = 0, total = 0;
	size_t len = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(fl, sizeof(fl), "%s/proc/irq", c->root);
	dir = opendir(fl);
	if (dir == NULL) {
		item(it, "irq_affinity", HGW_PF_WARN, "cannot read /proc/irq");
		fix(it, "mount /proc");
		return;
	}
	l[0] = '\0';
	while ((d = readdir(dir)) != NULL) {
		struct cpus aff, both;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/irq/%.16s/smp_affinity_list",
			 d->d_name);
		if (readf(c->root, buf, sizeof(buf), "%s", path) < 0 ||
		    cpus_parse(buf, &aff) < 0)
			continue;
		total++;
		for (size_t w = 0; w < DIM(both.w); w++)
			both.w[w] = aff.w[w] & c->fast.w[w];
		if (cpus_empty(&both))
			continue;
		if (n < 6 && len < sizeof(l))
			len += (size_t)snprintf(l + len, sizeof(l) - len,
						"%s%s (%s)", n ? ", " : "",
						d->d_name, buf);
		n++;
	}
	closedir(dir);
	if (n == 0) {
		item(it, "irq_affinity", HGW_PF_OK, "none of %u IRQs may go to "
		     "cpus %s", total, c->fastl);
		return;
	}
	item(it, "irq_affinity", HGW_PF_WARN, "%u of %u IRQs may go to cpus %s: "
	     "%s%s", n, total, c->fastl, l, n > 6 ? ", ..." : "");
	fix(it, "echo %s > /proc/irq/N/smp_affinity_list for each, with "
	    "irqbalance stopped or IRQBALANCE_BANNED_CPULIST=%s; isolcpus="
	    "managed_irq,%s for managed ones", c->ctll, c->fastl, c->fastl);
}

static void
check_thp(struct ctx *c, struct hgw_pf_item *it)
{
	char buf[128];

	if (readf(c->root, buf, sizeof(buf),
		  "/sys/kernel/mm/transparent_hugepage/enabled") < 0) {
		item(it, "thp", HGW_PF_OK, "no transparent huge pages in this "
		     "kernel");
		return;
	}
	if (strstr(buf, "[always]") == NULL) {
		item(it, "thp", HGW_PF_OK, "%s", buf);
		return;
	}
	item(it, "thp", HGW_PF_WARN, "%s: khugepaged scans and compacts "
	     "memory under the workers", buf);
	fix(it, "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled, "
	    "and transparent_hugepage=madvise on the kernel command line");
}

/* vm.nr_hugepages = N (N > 0) in one sysctl file. */
static int
sysctl_hugepages(const char *root, const char *path, char *where, size_t size)
{
	char buf[8192];
	char *line, *save = NULL;

	if (readf(root, buf, sizeof(buf), "%s", path) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = line + strspn(line, " \t-");

		if (strncmp(p, "vm.nr_hugepages", 15) != 0 &&
		    strncmp(p, "vm/nr_hugepages", 15) != 0)
			continue;
		p += 15;
		p += strspn(p, " \t");
		if (*p++ != '=')
			continue;
		p += strspn(p, " \t");
		if (strtoul(p, NULL, 10) > 0) {
			snprintf(where, size, "%s: %s", path, line);
			return 1;
		}
	}
	return 0;
}

static void
check_hugepages(struct ctx *c, struct hgw_pf_item *it)
{
	static const char *const dirs[] = {
		"/etc/sysctl.d", "/run/sysctl.d", "/usr/lib/sysctl.d",
	};
	char val[256], where[400], path[300], buf[64];
	unsigned long now = 0;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/kernel/mm/hugepages", c->root);
	dir = opendir(path);
	if (dir != NULL) {
		while ((d = readdir(dir)) != NULL) {
			if (strncmp(d->d_name, "hugepages-", 10) != 0)
				continue;
			if (readf(c->root, buf, sizeof(buf), "/sys/kernel/mm/"
				  "hugepages/%.64s/nr_hugepages", d->d_name) == 0)
				now += strtoul(buf, NULL, 10);
		}
		closedir(dir);
	}
	if (cmdline_get(c->cmdline, "hugepages", val, sizeof(val)) &&
	    strtoul(val, NULL, 10) > 0) {
		item(it, "hugepages", HGW_PF_OK, "reserved at boot: hugepages=%s "
		     "on the kernel command line (%lu reserved now)", val, now);
		return;
	}
	if (sysctl_hugepages(c->root, "/etc/sysctl.conf", where, sizeof(where))) {
		item(it, "hugepages", HGW_PF_OK, "reserved at boot by %s (%lu "
		     "reserved now)", where, now);
		return;
	}
	for (size_t i = 0; i < DIM(dirs); i++) {
		snprintf(path, sizeof(path), "%s%s", c->root, dirs[i]);
		dir = opendir(path);
		if (dir == NULL)
			continue;
		while ((d = readdir(dir)) != NULL) {
			size_t len = strlen(d->d_name);

			if (len < 6 || strcmp(d->d_name + len - 5, ".conf") != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%.200s", dirs[i],
				 d->d_name);
			if (sysctl_hugepages(c->root, path, where,
					     sizeof(where))) {
				closedir(dir);
				item(it, "hugepages", HGW_PF_OK, "reserved at boot "
				     "by %s (%lu reserved now)", where, now);
				return;
			}
		}
		closedir(dir);
	}
	item(it, "hugepages", HGW_PF_WARN, "%lu reserved now, but nothing "
	     "reserves them at boot (no hugepages= on the kernel command "
	     "line, no vm.nr_hugepages in /etc/sysctl.conf or sysctl.d)", now);
	fix(it, "add hugepages=N (hugepagesz=1G hugepages=N for 1 GB pages) "
	    "to the kernel command line, or vm.nr_hugepages = N to "
	    "/etc/sysctl.d/80-hugepages.conf");
}

/* The NUMA node of a cpu (its nodeN entry in sysfs), or -1. */
static int
cpu_node(const char *root, unsigned int cpu)
{
	char path[300];
	struct dirent *d;
	int node = -1;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%u", root,
		 cpu);
	dir = opendir(path);
	if (dir == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL)
		if (strncmp(d->d_name, "node", 4) == 0 &&
		    isdigit((unsigned char)d->d_name[4]))
			node = atoi(d->d_name + 4);
	closedir(dir);
	return node;
}

static void
check_numa(struct ctx *c, struct hgw_pf_item *it)
{
	char buf[32], l[256];
	size_t len = 0;

	l[0] = '\0';
	for (unsigned int i = 0; i < c->nports; i++) {
		const struct hgw_pf_port *p = &c->ports[i];
		int node;

		if (p->missing)
			continue;
		if (p->pci[0] == '\0') {
			if (len < sizeof(l))
				len += (size_t)snprintf(l + len, sizeof(l) - len,
							"%sport %u (%s): n/a, a "
							"virtual device",
							len ? "; " : "", p->id,
							p->name);
			continue;
		}
		if (readf(c->root, buf, sizeof(buf),
			  "/sys/bus/pci/devices/%s/numa_node", p->pci) < 0) {
			item(it, "numa", HGW_PF_WARN, "port %u (%s): cannot read "
			     "/sys/bus/pci/devices/%s/numa_node", p->id, p->name,
			     p->pci);
			fix(it, "check the PCI address");
			return;
		}
		node = atoi(buf);
		if (node < 0) {
			if (len < sizeof(l))
				len += (size_t)snprintf(l + len, sizeof(l) - len,
							"%sport %u (%s): no "
							"node (one-node host)",
							len ? "; " : "", p->id,
							p->pci);
			continue;
		}
		for (unsigned int k = 0; k < c->nlc; k++) {
			int cn = cpu_node(c->root, c->lc[k].cpu);

			if (!c->lc[k].fast || cn < 0 || cn == node)
				continue;
			item(it, "numa", HGW_PF_WARN, "port %u (%s) is on node %d, "
			     "%s (cpu %u) on node %d: every packet crosses the "
			     "interconnect", p->id, p->pci, node, c->lc[k].role,
			     c->lc[k].cpu, cn);
			fix(it, "use lcores on node %d (/sys/devices/system/node/"
			    "node%d/cpulist)", node, node);
			return;
		}
		if (len < sizeof(l))
			len += (size_t)snprintf(l + len, sizeof(l) - len,
						"%sport %u (%s): node %d, as the "
						"fast-path lcores", len ? "; " : "",
						p->id, p->pci, node);
	}
	item(it, "numa", HGW_PF_OK, "%s", len ? l : "no ports");
}

static void
check_tsc(struct ctx *c, struct hgw_pf_item *it)
{
	static char buf[1 << 16];
	char *line, *save = NULL;

	if (readf(c->root, buf, sizeof(buf), "/proc/cpuinfo") < 0) {
		item(it, "tsc", HGW_PF_WARN, "cannot read /proc/cpuinfo");
		fix(it, "mount /proc");
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char flags[4096];
		int cst, nst;

		if (strncmp(line, "flags", 5) != 0)
			continue;
		/* whole words: a space after the last one too */
		snprintf(flags, sizeof(flags), "%s ", line);
		cst = strstr(flags, " constant_tsc ") != NULL;
		nst = strstr(flags, " nonstop_tsc ") != NULL;
		if (cst && nst) {
			item(it, "tsc", HGW_PF_OK, "invariant (constant_tsc "
			     "nonstop_tsc)");
			return;
		}
		item(it, "tsc", HGW_PF_FAIL, "not invariant (%s%s%s missing): "
		     "TSC-based latencies and pacing would be wrong",
		     cst ? "" : "constant_tsc", cst || nst ? "" : ", ",
		     nst ? "" : "nonstop_tsc");
		fix(it, "run on a CPU with an invariant TSC (under a "
		    "hypervisor: expose it, e.g. QEMU -cpu host,+invtsc)");
		return;
	}
	item(it, "tsc", HGW_PF_OK, "no x86 cpu flags: the counter hedgewire "
	     "reads runs at a constant rate on this architecture");
}

static void
check_skew(struct ctx *c, struct hgw_pf_item *it)
{
	char val[32];

	if (cmdline_get(c->cmdline, "skew_tick", val, sizeof(val)) &&
	    strcmp(val, "1") == 0) {
		item(it, "skew_tick", HGW_PF_OK, "skew_tick=1: the cpus' ticks "
		     "do not fire together");
		return;
	}
	item(it, "skew_tick", HGW_PF_WARN, "no skew_tick=1: every cpu's tick "
	     "fires at the same instant, so ticks stall all replicas at once");
	fix(it, "add skew_tick=1 to the kernel command line");
}

/* DAMON: a kdamond kernel thread that samples memory and acts on it
 * (pageout, LRU sorting) runs for milliseconds at a time, on any cpu its
 * affinity allows; on a cpu a worker polls, the worker waits that long. */
static void
check_damon(struct ctx *c, struct hgw_pf_item *it)
{
	char buf[64];
	unsigned int on = 0, n = 0;

	if (readf(c->root, buf, sizeof(buf),
		  "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds") == 0)
		n = (unsigned int)strtoul(buf, NULL, 10);
	for (unsigned int i = 0; i < n && i < 64; i++)
		if (readf(c->root, buf, sizeof(buf),
			  "/sys/kernel/mm/damon/admin/kdamonds/%u/state", i) == 0 &&
		    strncmp(buf, "on", 2) == 0)
			on++;
	for (unsigned int m = 0; m < 2; m++) {
		const char *mod = m ? "damon_lru_sort" : "damon_reclaim";

		if (readf(c->root, buf, sizeof(buf),
			  "/sys/module/%s/parameters/enabled", mod) == 0 &&
		    buf[0] == 'Y')
			on++;
	}
	if (on == 0) {
		item(it, "damon", HGW_PF_OK, "no kdamond running");
		return;
	}
	item(it, "damon", HGW_PF_WARN, "%u DAMON context%s running (kdamond): "
	     "it runs milliseconds at a time on any cpu it may use, and a "
	     "worker there waits", on, on == 1 ? "" : "s");
	fix(it, "echo off > /sys/kernel/mm/damon/admin/kdamonds/N/state (and "
	    "disable what starts it: damon_reclaim, damon_lru_sort), or keep "
	    "kdamond on cpus %s: taskset -pc %s $(pgrep kdamond)", c->ctll,
	    c->ctll);
}

unsigned int
hgw_pf_run(const char *root, const struct hgw_pf_lcore *lc, unsigned int nlc,
	   const struct hgw_pf_port *ports, unsigned int nports,
	   struct hgw_pf_item *items)
{
	static struct ctx c;
	struct cpus isolated = { { 0 } }, nohz = { { 0 } }, ctl;
	char buf[512], val[512];
	unsigned int n = 0;

	memset(&c, 0, sizeof(c));
	c.root = strcmp(root, "/") == 0 ? "" : root;
	c.lc = lc;
	c.nlc = nlc;
	c.ports = ports;
	c.nports = nports;
	if (readf(c.root, c.cmdline, sizeof(c.cmdline), "/proc/cmdline") < 0)
		c.cmdline[0] = '\0';
	for (unsigned int i = 0; i < nlc; i++) {
		cpus_set(&c.all, lc[i].cpu);
		if (lc[i].fast)
			cpus_set(&c.fast, lc[i].cpu);
	}
	cpus_fmt(&c.fast, c.fastl, sizeof(c.fastl));
	cpus_minus(&ctl, &c.all, &c.fast);
	if (cpus_empty(&ctl))
		cpus_set(&ctl, 0);
	cpus_fmt(&ctl, c.ctll, sizeof(c.ctll));

	/* what the kernel isolated: sysfs, and the command line */
	if (readf(c.root, buf, sizeof(buf), "/sys/devices/system/cpu/isolated") == 0)
		cpus_parse(buf, &isolated);
	if (cmdline_get(c.cmdline, "isolcpus", val, sizeof(val))) {
		struct cpus cl;

		if (cpus_parse(val, &cl) == 0)
			cpus_or(&isolated, &cl);
	}
	if (readf(c.root, buf, sizeof(buf), "/sys/devices/system/cpu/nohz_full") == 0)
		cpus_parse(buf, &nohz);
	else if (cmdline_get(c.cmdline, "nohz_full", val, sizeof(val)))
		cpus_parse(val, &nohz);

	check_lcores(&c, &items[n++]);
	check_ports(&c, &items[n++]);
	check_cover(&c, &items[n++], "isolcpus", "/sys/devices/system/cpu/isolated",
		    NULL, ": the scheduler puts nothing else there",
		    "add isolcpus=managed_irq,domain,",
		    " to the kernel command line and reboot");
	check_cover(&c, &items[n++], "nohz_full", "/sys/devices/system/cpu/nohz_full",
		    NULL, ": no tick while one thread runs",
		    "add nohz_full=", " to the kernel command line (a kernel "
		    "with CONFIG_NO_HZ_FULL) and reboot");
	check_cover(&c, &items[n++], "rcu_nocbs", NULL, &nohz,
		    ": RCU callbacks run elsewhere (nohz_full implies it)",
		    "add rcu_nocbs=", " to the kernel command line and reboot");
	check_governor(&c, &items[n++]);
	check_turbo(&c, &items[n++]);
	check_smt(&c, &items[n++], &isolated);
	check_irqs(&c, &items[n++]);
	check_thp(&c, &items[n++]);
	check_damon(&c, &items[n++]);
	check_hugepages(&c, &items[n++]);
	check_numa(&c, &items[n++]);
	check_tsc(&c, &items[n++]);
	check_skew(&c, &items[n++]);
	return n;
}

const char *
hgw_pf_status_name(enum hgw_pf_status s)
{
	return s == HGW_PF_OK ? "ok" : s == HGW_PF_WARN ? "warn" : "fail";
}

void
hgw_pf_print(FILE *out, const struct hgw_pf_item *it)
{
	fprintf(out, "%-13s %-4s  %s", it->name, hgw_pf_status_name(it->status),
		it->seen);
	if (it->fix[0] != '\0')
		fprintf(out, "; fix: %s", it->fix);
	fputc('\n', out);
}
