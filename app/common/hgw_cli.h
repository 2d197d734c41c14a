/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tools: strict command-line values.
 *
 * A bad value prints one line "PROG: bad value for --OPT: 'VALUE'" and
 * exits 2, the same for every tool. Header-only: the tools share no
 * library code beyond this (hgw-feedgen stays independent of hedgewire's
 * decoder and book, which its output is used to check).
 */
#ifndef HGW_CLI_H
#define HGW_CLI_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef HGW_VERSION
#define HGW_VERSION "unknown"
#endif

/* "--version" anywhere before a "--" (so before the EAL sees it, in the
 * DPDK tools): print "PROG VERSION" and exit 0. */
static inline void
hgw_cli_version(const char *prog, int argc, char **argv)
{
	for (int i = 1; i < argc && argv[i][0] != '\0'; i++) {
		if (argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2] == '\0')
			return;
		if (__builtin_strcmp(argv[i], "--version") == 0) {
			printf("%s %s\n", prog, HGW_VERSION);
			exit(0);
		}
	}
}

static inline void __attribute__((noreturn))
hgw_cli_bad(const char *prog, const char *opt, const char *val)
{
	fprintf(stderr, "%s: bad value for --%s: '%s'\n", prog, opt, val);
	exit(2);
}

/* A fatal error: one line "PROG: message", exit with status. */
static inline void __attribute__((noreturn, format(printf, 3, 0)))
hgw_cli_vexit(const char *prog, int status, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(status);
}

/* A fatal error: one line "PROG: message", exit 1. */
static inline void __attribute__((noreturn, format(printf, 2, 3)))
hgw_cli_die(const char *prog, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hgw_cli_vexit(prog, EXIT_FAILURE, fmt, ap);
}

/* Bad input data (as opposed to an I/O failure): one line, exit 2, the
 * status of a bad option value. */
static inline void __attribute__((noreturn, format(printf, 2, 3)))
hgw_cli_bad_input(const char *prog, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hgw_cli_vexit(prog, 2, fmt, ap);
}

/* Decimal unsigned integer in [min, max]; no sign, no spaces. */
static inline uint64_t
hgw_cli_num(const char *prog, const char *opt, const char *s, uint64_t min,
	    uint64_t max)
{
	unsigned long long v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		hgw_cli_bad(prog, opt, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		hgw_cli_bad(prog, opt, s);
	return v;
}

#endif /* HGW_CLI_H */
