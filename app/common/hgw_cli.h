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
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hgw_parse.h"

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

/* A whole argument that is a decimal unsigned integer in [min, max]
 * (hgw_parse_dec); anything else is a bad value for --opt (exit 2). */
static inline uint64_t
hgw_cli_num(const char *prog, const char *opt, const char *s, uint64_t min,
	    uint64_t max)
{
	uint64_t v;

	if (hgw_parse_num(s, min, max, &v) != 0)
		hgw_cli_bad(prog, opt, s);
	return v;
}

/* hgw_cli_num for an option that C's base-0 parse (strtoull(s, &end, 0))
 * used to read: a leading 0 ("010", "0x10") is refused as a bad value for
 * --opt rather than read as a decimal number the old parse took for
 * another one (010 was 8, 0x10 was 16). "0" alone is zero. */
static inline uint64_t
hgw_cli_num_no_prefix(const char *prog, const char *opt, const char *s,
		      uint64_t min, uint64_t max)
{
	if (s[0] == '0' && s[1] != '\0')
		hgw_cli_bad(prog, opt, s);
	return hgw_cli_num(prog, opt, s, min, max);
}

/* Open a file the tools write, for stdio: created with mode (less the
 * umask), or with excl = 0 an existing one truncated. O_NOFOLLOW: a
 * symbolic link at path is refused (ELOOP), never written through;
 * O_CLOEXEC; what is there must be a regular file (else EINVAL: a FIFO
 * or device is not truncated or blocked on). With excl, a file that
 * exists is EEXIST, a symbolic link ELOOP. NULL with errno set;
 * hgw_fcreate_strerror() says it in words. */
static inline FILE *
hgw_fcreate(const char *path, int excl, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
		      O_NONBLOCK | O_NOCTTY | (excl ? O_EXCL : 0), mode);
	struct stat st;
	FILE *f;
	int e;

	if (fd < 0) {
		/* O_EXCL meets a link as a file that exists: say what it is */
		if (errno == EEXIST && lstat(path, &st) == 0 &&
		    S_ISLNK(st.st_mode))
			errno = ELOOP;
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		e = EINVAL;
		goto fail;
	}
	if ((!excl && ftruncate(fd, 0) != 0) ||
	    fcntl(fd, F_SETFL, 0) != 0) {
		e = errno;
		goto fail;
	}
	f = fdopen(fd, "w");
	if (f != NULL)
		return f;
	e = errno;
fail:
	close(fd);
	errno = e;
	return NULL;
}

/* Why hgw_fcreate() failed, for a one-line message. */
static inline const char *
hgw_fcreate_strerror(int e)
{
	if (e == ELOOP)
		return "a symbolic link (refused: never written through)";
	if (e == EINVAL)
		return "not a regular file";
	return strerror(e);
}

#endif /* HGW_CLI_H */
