/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the one number parser, for configuration values, telemetry
 * arguments, tools' options and the files and /proc lines the libraries
 * read. Header-only and DPDK-free.
 *
 * A number is decimal digits only: no sign, no space, no base prefix, and
 * leading zeros are decimal ("010" is ten, "0x10" is refused): a limit
 * written by hand is never read as octal or hex.
 */
#ifndef HGW_PARSE_H
#define HGW_PARSE_H

#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

/* A decimal unsigned integer at *s, up to the first byte that is not a
 * digit, in [min, max]. Returns 0 and the value in *v with *s past the
 * digits, or -1 (no digit, overflow, out of range) with *s unchanged.
 * For values inside a larger string ("WORKER,USEC", "A.B.C.D:PORT",
 * "LO-HI"). */
static inline int
hgw_parse_dec(const char **s, uint64_t min, uint64_t max, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (x < min || x > max)
		return -1;
	*s = p;
	*v = x;
	return 0;
}

/* The whole of s as one hgw_parse_dec number: 0, or -1 (also for
 * anything after the digits) with *v unchanged. */
static inline int
hgw_parse_num(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t x;

	if (hgw_parse_dec(&s, min, max, &x) != 0 || *s != '\0')
		return -1;
	*v = x;
	return 0;
}

/* "0x" (or "0X") and 1 to 16 hex digits at *s, as masks are written.
 * Returns 0 and the value in *v with *s past the digits, or -1 with *s
 * unchanged. */
static inline int
hgw_parse_hex(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int n = 0;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return -1;
	for (p += 2;; p++, n++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A' + 10);
		else
			break;
		if (n == 16)
			return -1;
		x = x << 4 | d;
	}
	if (n == 0)
		return -1;
	*s = p;
	*v = x;
	return 0;
}

/* One item of a cpu list ("0,2-5", Linux's cpulist format) at *s: "A"
 * (b = a) or "A-B" with A <= B <= max, and with steps allowed also
 * "A-B:S" (every S-th, S >= 1, as isolcpus= takes it; else step = 1).
 * Returns 0 with *s past the item (at ',' or the end), or -1 with *s
 * unchanged. */
static inline int
hgw_parse_cpu_item(const char **s, int steps, uint64_t max, uint64_t *a,
		   uint64_t *b, uint64_t *step)
{
	const char *p = *s;

	*step = 1;
	if (hgw_parse_dec(&p, 0, max, a) != 0)
		return -1;
	*b = *a;
	if (*p == '-') {
		p++;
		if (hgw_parse_dec(&p, *a, max, b) != 0)
			return -1;
		if (steps && *p == ':') {
			p++;
			if (hgw_parse_dec(&p, 1, max + 1, step) != 0)
				return -1;
		}
	}
	*s = p;
	return 0;
}

/* An IPv4 address, sep, and a number in [min, max], the whole of s (the
 * last sep splits it): "10.0.0.1:26400" (':', 1, 65535), "10.0.0.5/24"
 * ('/', 1, 32). The address in host order in *ip, the number in *n.
 * Returns 0, or -1 (not one). */
static inline int
hgw_parse_ipv4_num(const char *s, char sep, uint64_t min, uint64_t max,
		   uint32_t *ip, uint64_t *n)
{
	char host[INET_ADDRSTRLEN];
	const char *at = strrchr(s, sep);
	struct in_addr a;

	if (at == NULL || (size_t)(at - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(at - s));
	host[at - s] = '\0';
	if (inet_pton(AF_INET, host, &a) != 1 ||
	    hgw_parse_num(at + 1, min, max, n) != 0)
		return -1;
	*ip = ntohl(a.s_addr);
	return 0;
}

#endif /* HGW_PARSE_H */
