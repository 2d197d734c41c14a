/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire unit tests: lib/common/hgw_parse.h, the one number parser:
 * decimal only (no sign, space or base prefix; leading zeros decimal),
 * ranges, overflow, where the parse stops; 0xHEX; cpu-list items;
 * IPv4:PORT and IPv4/PREFIX.
 */
#include <stdint.h>
#include <string.h>

#include "hgw_parse.h"
#include "hgw_test.h"

static void
test_dec(void)
{
	static const struct { const char *s; uint64_t min, max, v; int ok;
			      size_t used; } c[] = {
		{ "0", 0, 10, 0, 1, 1 },
		{ "10", 0, 10, 10, 1, 2 },
		{ "11", 0, 10, 0, 0, 0 },		/* above max */
		{ "4", 5, 10, 0, 0, 0 },		/* below min */
		{ "010", 0, 100, 10, 1, 3 },		/* decimal, not octal */
		{ "0x10", 0, 100, 0, 1, 1 },		/* stops at the x */
		{ "7,8", 0, 100, 7, 1, 1 },
		{ "-1", 0, 100, 0, 0, 0 },
		{ "+1", 0, 100, 0, 0, 0 },
		{ " 1", 0, 100, 0, 0, 0 },
		{ "", 0, 100, 0, 0, 0 },
		{ "18446744073709551615", 0, UINT64_MAX, UINT64_MAX, 1, 20 },
		{ "18446744073709551616", 0, UINT64_MAX, 0, 0, 0 },	/* 2^64 */
		{ "99999999999999999999999", 0, UINT64_MAX, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *p = c[i].s;
		uint64_t v = 12345;
		int rc = hgw_parse_dec(&p, c[i].min, c[i].max, &v);

		HGW_CHECK_EQ(rc == 0, c[i].ok);
		HGW_CHECK_EQ((size_t)(p - c[i].s), c[i].used);
		HGW_CHECK_EQ(v, c[i].ok ? c[i].v : 12345);
	}
	/* the whole string, or nothing */
	{
		uint64_t v;

		HGW_CHECK_EQ(hgw_parse_num("42", 0, 100, &v), 0);
		HGW_CHECK_EQ(v, 42);
		HGW_CHECK_EQ(hgw_parse_num("42x", 0, 100, &v), -1);
		HGW_CHECK_EQ(hgw_parse_num("42 ", 0, 100, &v), -1);
		HGW_CHECK_EQ(hgw_parse_num("0x2a", 0, 100, &v), -1);
		HGW_CHECK_EQ(hgw_parse_num("101", 0, 100, &v), -1);
	}
}

static void
test_hex(void)
{
	const char *p;
	uint64_t v = 0;

	p = "0x1f";
	HGW_CHECK(hgw_parse_hex(&p, &v) == 0 && v == 0x1f && *p == '\0');
	p = "0XFFFFffffFFFFffff,";
	HGW_CHECK(hgw_parse_hex(&p, &v) == 0 && v == UINT64_MAX && *p == ',');
	p = "0x1ffffffffffffffff";			/* 17 digits */
	HGW_CHECK(hgw_parse_hex(&p, &v) == -1 && p[0] == '0');
	p = "0x";
	HGW_CHECK_EQ(hgw_parse_hex(&p, &v), -1);
	p = "1f";
	HGW_CHECK_EQ(hgw_parse_hex(&p, &v), -1);
	p = "0xg";
	HGW_CHECK_EQ(hgw_parse_hex(&p, &v), -1);
}

static void
test_cpu_item(void)
{
	const char *p;
	uint64_t a, b, st;

	p = "3";
	HGW_CHECK(hgw_parse_cpu_item(&p, 0, 63, &a, &b, &st) == 0 &&
		  a == 3 && b == 3 && st == 1 && *p == '\0');
	p = "2-5,7";
	HGW_CHECK(hgw_parse_cpu_item(&p, 0, 63, &a, &b, &st) == 0 &&
		  a == 2 && b == 5 && *p == ',');
	p = "0-15:2";
	HGW_CHECK(hgw_parse_cpu_item(&p, 1, 63, &a, &b, &st) == 0 &&
		  a == 0 && b == 15 && st == 2 && *p == '\0');
	/* without steps the ':' is left for the caller to refuse */
	p = "0-15:2";
	HGW_CHECK(hgw_parse_cpu_item(&p, 0, 63, &a, &b, &st) == 0 &&
		  *p == ':' && st == 1);
	p = "5-2";				/* backwards */
	HGW_CHECK_EQ(hgw_parse_cpu_item(&p, 0, 63, &a, &b, &st), -1);
	p = "64";				/* past max */
	HGW_CHECK_EQ(hgw_parse_cpu_item(&p, 0, 63, &a, &b, &st), -1);
	p = "1-";
	HGW_CHECK_EQ(hgw_parse_cpu_item(&p, 0, 63, &a, &b, &st), -1);
	p = "1-3:0";				/* step 0 */
	HGW_CHECK_EQ(hgw_parse_cpu_item(&p, 1, 63, &a, &b, &st), -1);
	HGW_CHECK_EQ(strcmp(p, "1-3:0"), 0);	/* unchanged on failure */
}

static void
test_ipv4_num(void)
{
	uint32_t ip = 7;
	uint64_t n = 7;

	HGW_CHECK(hgw_parse_ipv4_num("10.1.2.3:26400", ':', 1, 65535, &ip, &n) == 0 &&
		  ip == 0x0a010203 && n == 26400);
	HGW_CHECK(hgw_parse_ipv4_num("10.0.0.5/24", '/', 1, 32, &ip, &n) == 0 &&
		  ip == 0x0a000005 && n == 24);
	ip = 7;
	n = 7;
	/* refused, and nothing written */
	HGW_CHECK_EQ(hgw_parse_ipv4_num("10.1.2.3:0", ':', 1, 65535, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("10.1.2.3:65536", ':', 1, 65535, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("10.1.2.3:", ':', 1, 65535, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("10.1.2:80", ':', 1, 65535, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("10.1.2.3", ':', 1, 65535, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("10.1.2.3:8x", ':', 1, 65535, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("10.0.0.5/33", '/', 1, 32, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("10.0.0.5/024x", '/', 1, 32, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("host.example:80", ':', 1, 65535, &ip, &n), -1);
	HGW_CHECK_EQ(hgw_parse_ipv4_num("255.255.255.255255:80", ':', 1, 65535, &ip, &n), -1);
	HGW_CHECK(ip == 7 && n == 7);
}

int
main(void)
{
	HGW_TEST(test_dec);
	HGW_TEST(test_hex);
	HGW_TEST(test_cpu_item);
	HGW_TEST(test_ipv4_num);
	return hgw_test_done();
}
