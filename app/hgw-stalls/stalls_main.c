/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-stalls: spin on several CPUs at once and report their stalls.
 *
 *   hgw-stalls [--cpus LIST] [--seconds N] [--threshold-ns N] [--json]
 *
 * Hedging across worker cores hides a stall only when the other cores
 * are not stalled at the same time. Run it on candidate worker cores:
 * it says how often each stalls, for how long, how many of its stalls
 * coincide with another core's, and at which periods they recur (a
 * kernel tick), with the boot options that would help.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hgw_cli.h"
#include "hgw_stalls.h"

#define PROG "hgw-stalls"
#define MAX_CPUS 256u

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " PROG " [--cpus LIST] [--seconds N] [--threshold-ns N] [--json]\n"
		"  --cpus LIST        cpus to spin on at once, e.g. 0,1 or 2-5\n"
		"                     (default: every cpu this process may use)\n"
		"  --seconds N        how long (1..3600, default 5)\n"
		"  --threshold-ns N   a gap longer than this is a stall (100..1000000000,\n"
		"                     default 1000)\n"
		"  --json             one JSON object instead of text\n"
		"  --version          print the version and exit\n");
}

/* "0,2-5": cpus in the order given, each at most once. */
static unsigned int
parse_cpus(const char *s, unsigned int *cpus, unsigned int max)
{
	const char *p = s;
	unsigned int n = 0;
	cpu_set_t seen;

	CPU_ZERO(&seen);
	while (*p != '\0') {
		uint64_t a, b, step;

		if (hgw_parse_cpu_item(&p, 0, CPU_SETSIZE - 1, &a, &b,
				       &step) != 0 || (*p != ',' && *p != '\0'))
			hgw_cli_bad(PROG, "cpus", s);
		for (uint64_t c = a; c <= b; c++) {
			if (CPU_ISSET(c, &seen))
				hgw_cli_bad(PROG, "cpus", s);
			if (n == max)
				hgw_cli_bad_input(PROG, "--cpus: more than %u cpus", max);
			CPU_SET(c, &seen);
			cpus[n++] = (unsigned int)c;
		}
		if (*p == ',' && *++p == '\0')
			hgw_cli_bad(PROG, "cpus", s);
	}
	if (n == 0)
		hgw_cli_bad(PROG, "cpus", s);
	return n;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "threshold-ns", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static unsigned int cpus[MAX_CPUS];
	struct hgw_stall_trace *t;
	struct hgw_stall_stats *st;
	uint64_t seconds = 5, threshold = 1000, *scratch, dur;
	unsigned int n = 0;
	cpu_set_t allowed;
	const char *list = NULL;
	char listbuf[1024];
	int opt, json = 0, rc;
	size_t len = 0;
	uint32_t cap;

	hgw_cli_version(PROG, argc, argv);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			list = optarg;
			break;
		case 's':
			seconds = hgw_cli_num(PROG, "seconds", optarg, 1, 3600);
			break;
		case 't':
			threshold = hgw_cli_num(PROG, "threshold-ns", optarg, 100,
						1000000000);
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc)
		hgw_cli_bad_input(PROG, "unexpected argument '%s'", argv[optind]);
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		hgw_cli_die(PROG, "sched_getaffinity: %s", strerror(errno));
	if (list != NULL) {
		n = parse_cpus(list, cpus, MAX_CPUS);
		for (unsigned int i = 0; i < n; i++)
			if (!CPU_ISSET(cpus[i], &allowed))
				hgw_cli_bad_input(PROG, "--cpus: cpu %u is not "
						  "online or not allowed to this "
						  "process", cpus[i]);
	} else {
		for (unsigned int c = 0; c < CPU_SETSIZE && n < MAX_CPUS; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[n++] = c;
	}
	listbuf[0] = '\0';
	for (unsigned int i = 0; i < n && len + 12 < sizeof(listbuf); i++)
		len += (size_t)snprintf(listbuf + len, sizeof(listbuf) - len,
					"%s%u", i ? "," : "", cpus[i]);

	/* room for a stall every 10 us of the run, at most 16 M per cpu
	 * (256 MB): far more than any tick or interrupt rate; stalls past
	 * it are counted as not recorded */
	cap = seconds * 100000 > (16u << 20) ? 16u << 20 :
	      (uint32_t)(seconds * 100000);
	t = calloc(n, sizeof(*t));
	st = calloc(n, sizeof(*st));
	scratch = malloc((size_t)cap * sizeof(*scratch));
	if (t == NULL || st == NULL || scratch == NULL ||
	    hgw_stalls_alloc(t, cpus, n, cap) != 0)
		hgw_cli_die(PROG, "out of memory for %u cpus x %u stalls", n, cap);
	dur = seconds * 1000000000u;
	if (!json)
		printf("%s %s: spinning on cpus %s for %" PRIu64 " s, a gap over "
		       "%" PRIu64 " ns is a stall\n", PROG, HGW_VERSION, listbuf,
		       seconds, threshold);
	fflush(stdout);
	rc = hgw_stalls_record(t, n, dur, threshold);
	if (rc != 0) {
		for (unsigned int i = 0; i < n; i++)
			if (t[i].err != 0)
				hgw_cli_die(PROG, "cannot spin on cpu %u: %s",
					    t[i].cpu, strerror(-t[i].err));
		hgw_cli_die(PROG, "cannot spin: %s", strerror(-rc));
	}
	for (unsigned int i = 0; i < n; i++)
	hgw_stalls_analyze(t, n, dur, st, scratch);
	if (json) {
		hgw_stalls_print_json(stdout, st, n, dur, threshold);
		putchar('\n');
	} else {
		hgw_stalls_print(stdout, "", st, n);
		hgw_stalls_advise(stdout, "advice: ", st, n, listbuf);
	}
	hgw_stalls_free(t, n);
	free(t);
	free(st);
	free(scratch);
	return fflush(stdout) == 0 ? 0 : 1;
}
