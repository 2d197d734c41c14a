/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: configuration keys, defaults and validation.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "config.h"
#include "hgw_parse.h"
#include "hgw_idio.h"
#include "hgw_latency.h"
#include "hgw_order.h"
#include "hgw_risk.h"
#include "hgw_soupbin.h"

enum key_type {
	KEY_U16, KEY_U32, KEY_U64, KEY_BOOL, KEY_IPV4, KEY_MAC,
	KEY_CHAR,	/* one printable character, in a uint32_t */
	KEY_STR,	/* a string of up to max bytes (the field's size) */
	KEY_DISABLE,	/* [risk] disable: symbols, checked by the risk module */
	KEY_ENUM,	/* one of the key's names, stored as its index (uint32_t) */
	KEY_DOUBLE,	/* a positive decimal number, in [min, max] */
	KEY_SECRET,	/* a KEY_STR never given on the command line, only in
			 * a file others cannot read; printed masked */
};

static const char *const dedup_modes[] = {
	[HGW_DEDUP_MODE_NONE] = "none",
	[HGW_DEDUP_MODE_CLAIM] = "claim",
	[HGW_DEDUP_MODE_TXLCORE] = "tx-lcore",
	[HGW_DEDUP_MODE_DOWNSTREAM] = "downstream",
};

static const char *const join_modes[] = { "recover", "baseline" };

static const char *const journal_errors[] = {
	[HGW_JOURNAL_ERROR_STOP] = "stop",
	[HGW_JOURNAL_ERROR_ALARM] = "alarm",
};

static const char *const rx_modes[] = {
	[HGW_RX_QUEUES] = "queues",
	[HGW_RX_FANOUT] = "fanout",
	[HGW_RX_FLOW_MIRROR] = "flow-mirror",
};

static const char *const igmp_modes[] = {
	[HGW_IGMP_OFF] = "off",
	[HGW_IGMP_V2] = "v2",
	[HGW_IGMP_V3] = "v3",
};

static const char *const venue_stacks[] = {
	[HGW_VENUE_STACK_KERNEL] = "kernel",
	[HGW_VENUE_STACK_DPDK] = "dpdk",
};

static const char *const rx_ts_modes[] = {
	[HGW_RX_TS_TSC] = "tsc",
	[HGW_RX_TS_NIC] = "nic",
};

static const char *const pace_modes[] = {
	[HGW_PACE_OFF] = "off",
	[HGW_PACE_PCAP] = "pcap",
	[HGW_PACE_RATE] = "rate",
};

static const char *const inval_modes[] = {
	[HGW_IDIO_INVAL_OFF] = "off",
	[HGW_IDIO_INVAL_INVALIDATE] = "invalidate",
	[HGW_IDIO_INVAL_DEMOTE] = "demote",
};

/* [buffers] poison: bytes, by index (hgw_config_poison_bytes) */
static const char *const poison_sizes[] = { "off", "64", "128", "256" };

uint32_t
hgw_config_poison_bytes(const struct hgw_config *c)
{
	return c->poison == 0 ? 0 : 32u << c->poison;
}

struct key {
	const char *section;
	const char *name;
	enum key_type type;
	size_t offset;
	uint64_t min, max;
	const char *def;      /* default, parsed like a file value */
	const char *const *names;	/* KEY_ENUM: the values, by index */
	uint32_t nnames;
};

#define K(sec, nm, ty, field, lo, hi, dflt) \
	{ sec, nm, ty, offsetof(struct hgw_config, field), lo, hi, dflt, NULL, 0 }
#define KE(sec, nm, field, tbl, dflt) \
	{ sec, nm, KEY_ENUM, offsetof(struct hgw_config, field), 0, 0, dflt, \
	  tbl, RTE_DIM(tbl) }
#define KS(sec, nm, ty, field, dflt) \
	{ sec, nm, ty, offsetof(struct hgw_config, field), 0, \
	  sizeof(((struct hgw_config *)0)->field) - 1, dflt, NULL, 0 }

/* The one list of keys. conf/demo.ini documents each of them. */
static const struct key keys[] = {
	K("feed", "group",    KEY_IPV4, feed.group, 0, 0, "233.54.12.111"),
	K("feed", "port",     KEY_U16,  feed.port, 0, 65535, "26477"),
	K("feed", "vlan",     KEY_U16,  feed.vlan, 0, 4094, "0"),
	K("feed", "max_jump", KEY_U64,  feed.max_jump, 0, 1ull << 48, "1000000"),
	K("feed", "session_confirm", KEY_U32, feed.session_confirm, 0, 1000000, "8"),
	KE("feed", "join",    join, join_modes, "recover"),
	K("feed", "warmup_messages", KEY_U32, warmup_messages, 0, 1u << 31, "0"),
	K("feed", "lines",    KEY_U32,  lines, 1, 2, "1"),
	K("feed", "group_b",  KEY_IPV4, feed.group_b, 0, 0, "0.0.0.0"),
	K("feed", "hold_frames", KEY_U32, hold_frames, 1, 1024, "1024"),
	K("feed", "hold_us",  KEY_U32,  hold_us, 1, 10000000, "1000"),
	KE("feed", "igmp",    igmp, igmp_modes, "off"),
	K("feed", "igmp_source", KEY_IPV4, igmp_source, 0, 0, "0.0.0.0"),
	KS("recovery", "server", KEY_STR, rq_server, ""),
	K("recovery", "client_port", KEY_U16, rq_client_port, 1, 65535 - 16, "26500"),
	K("recovery", "timeout_ms", KEY_U32, rq_timeout_ms, 1, 60000, "20"),
	K("recovery", "retries", KEY_U32, rq_retries, 0, 100, "3"),
	K("recovery", "max_messages", KEY_U32, rq_max_messages, 1, 65535, "1000"),
	K("book", "instruments", KEY_U32, book.max_instruments, 1, 65536, "8192"),
	K("book", "orders",   KEY_U32,  book.max_orders, 1, 1u << 30, "1048576"),
	K("book", "levels",   KEY_U32,  book.max_levels, 1, 65536, "256"),
	KE("rx",  "mode",     rx_mode, rx_modes, "queues"),
	K("rx",   "ring_size", KEY_U32, ring_size, 64, 65536, "4096"),
	K("rx",   "port",     KEY_U16,  rx_port, 0, RTE_MAX_ETHPORTS - 1, "0"),
	K("rx",   "burst",    KEY_U16,  burst, 1, 512, "32"),
	K("rx",   "descriptors", KEY_U16, rx_desc, 64, 32768, "1024"),
	K("rx",   "mbufs",    KEY_U32,  mbufs, 1023, 1u << 24, "16383"),
	KE("rx",  "timestamp", rx_ts, rx_ts_modes, "tsc"),
	KS("table", "file",   KEY_STR,  table_file, ""),
	K("table", "replicas", KEY_U32, replicas, 0, HGW_MAX_WORKERS, "0"),
	KS("table", "chanmap", KEY_STR, chanmap, ""),
	K("risk", "kill",     KEY_BOOL, kill, 0, 1, "no"),
	KS("risk", "disable", KEY_DISABLE, risk_disable, ""),
	K("risk", "max_quantity", KEY_U32, max_quantity, 1, UINT32_MAX, "10000"),
	K("risk", "max_notional", KEY_U64, max_notional, 1, 100000000000000ull, "1000000"),
	K("risk", "collar_bps", KEY_U32, collar_bps, 0, 1000000, "500"),
	K("risk", "max_position", KEY_U64, max_position, 0, 1ull << 40, "100000"),
	K("risk", "window_ms", KEY_U32, window_ms, 1, 86400000, "1000"),
	K("risk", "max_orders_instrument", KEY_U32, max_orders_instrument, 1,
	  HGW_RISK_MAX_WINDOW_ORDERS, "10"),
	K("risk", "max_orders_total", KEY_U32, max_orders_total, 1,
	  HGW_RISK_MAX_WINDOW_ORDERS, "100"),
	K("risk", "max_open_orders", KEY_U32, max_open_orders, 1,
	  HGW_RISK_MAX_OPEN_ORDERS, "1000"),
	K("order", "port",    KEY_U16,  tx_port, 0, RTE_MAX_ETHPORTS - 1, "0"),
	K("order", "src_mac", KEY_MAC,  src_mac, 0, 0, "02:00:00:00:00:01"),
	K("order", "dst_mac", KEY_MAC,  dst_mac, 0, 0, "02:00:00:00:00:02"),
	K("order", "src_ip",  KEY_IPV4, src_ip, 0, 0, "10.2.0.1"),
	K("order", "dst_ip",  KEY_IPV4, dst_ip, 0, 0, "10.2.0.2"),
	K("order", "src_port", KEY_U16, src_port, 1, 65535, "40000"),
	K("order", "dst_port", KEY_U16, dst_port, 1, 65535, "40001"),
	K("order", "capacity", KEY_CHAR, capacity, 0, 0, "P"),
	K("order", "mbufs",   KEY_U32,  tx_mbufs, 1023, 1u << 24, "8191"),
	KS("order", "journal", KEY_STR, journal, ""),
	K("order", "journal_orders", KEY_U64, journal_orders, 1024, 1ull << 32, "1048576"),
	KE("order", "journal_error", journal_error, journal_errors, "stop"),
	K("run",  "workers",  KEY_U32,  workers, 1, HGW_MAX_WORKERS, "1"),
	KE("run", "dedup",    dedup, dedup_modes, "claim"),
	K("run",  "stop_at_end_of_session", KEY_BOOL, stop_at_end, 0, 1, "yes"),
	K("run",  "idle_timeout_ms", KEY_U32, idle_timeout_ms, 0, 3600000, "2000"),
	K("run",  "stage_sample", KEY_U32, stage_sample, 0, 1000000, "64"),
	K("run",  "latency_precision_bits", KEY_U32, latency_bits, 1,
	  HGW_HIST_MAX_SUB_BITS, "6"),
	KS("run", "events_log", KEY_STR, events_log, ""),
	KS("run", "telemetry_group", KEY_STR, telemetry_group, ""),
	K("run",  "digest_every", KEY_U32, digest_every, 0, 1u << 30, "1024"),
	K("run",  "stats_interval_ms", KEY_U32, stats_interval_ms, 0, 86400000, "0"),
	KE("buffers", "invalidate", invalidate, inval_modes, "off"),
	K("buffers", "prefetch", KEY_BOOL, prefetch, 0, 1, "no"),
	K("buffers", "prefetch_depth", KEY_U32, prefetch_depth, 1, 64, "8"),
	K("buffers", "prefetch_min_burst", KEY_U32, prefetch_min_burst, 1, 4096, "8"),
	K("buffers", "prefetch_window_ns", KEY_U32, prefetch_window_ns, 100, 1000000, "1000"),
	KE("buffers", "poison", poison, poison_sizes, "off"),
	K("buffers", "poison_every", KEY_U32, poison_every, 1, 1000000, "1"),
	KE("replay", "pace",  pace, pace_modes, "off"),
	K("replay", "speed",  KEY_DOUBLE, speed, 0, 1000000, "1"),
	K("replay", "pps",    KEY_U32,  pps, 1, 100000000, "100000"),
	K("replay", "burst",  KEY_U32,  pace_burst, 1, 65536, "1"),
	K("replay", "start_delay_ms", KEY_U32, start_delay_ms, 1, 60000, "200"),
	K("replay", "miss_us", KEY_U32, miss_us, 1, 60000000, "1000"),
	KS("venue", "host",   KEY_STR,  venue_host, ""),
	K("venue", "port",    KEY_U16,  venue_port, 1, 65535, "15000"),
	KS("venue", "username", KEY_STR, venue_username, ""),
	KS("venue", "password", KEY_SECRET, venue_password, ""),
	KS("venue", "password_file", KEY_STR, venue_password_file, ""),
	KS("venue", "session", KEY_STR, venue_session, ""),
	K("venue", "heartbeat_ms", KEY_U32, venue_heartbeat_ms, 10, 60000, "1000"),
	K("venue", "dead_ms", KEY_U32, venue_dead_ms, 20, 600000, "15000"),
	K("venue", "reconnect_ms", KEY_U32, venue_reconnect_ms, 1, 60000, "500"),
	KS("venue", "state_file", KEY_STR, venue_state_file, ""),
	K("venue", "max_orders_per_sec", KEY_U32, venue_max_ops, 0, 1000000, "1000"),
	K("venue", "max_orders_per_sec_per_symbol", KEY_U32, venue_max_ops_symbol,
	  0, 10000, "100"),
	K("venue", "cancel_on_disconnect", KEY_BOOL, venue_cancel_on_disconnect,
	  0, 1, "no"),
	KS("venue", "journal", KEY_STR, venue_journal, ""),
	KE("venue", "stack",  venue_stack, venue_stacks, "kernel"),
	KS("venue", "address", KEY_STR, venue_address, ""),
	K("venue", "gateway", KEY_IPV4, venue_gateway, 0, 0, "0.0.0.0"),
};

static const struct key *
key_find(const char *section, const char *name)
{
	for (size_t i = 0; i < RTE_DIM(keys); i++)
		if (strcmp(keys[i].section, section) == 0 &&
		    strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static int
section_known(const char *section)
{
	for (size_t i = 0; i < RTE_DIM(keys); i++)
		if (strcmp(keys[i].section, section) == 0)
			return 1;
	return 0;
}

/* Parse value into the field of k. Returns 0 or -1 with err set. */
/* KEY_STR: value into field, if it fits. */
static int
str_set(const struct key *k, char *field, const char *value,
	const char *where, char *err, size_t errlen)
{
	if (strlen(value) > k->max) {
		snprintf(err, errlen,
			 "%s: bad value for [%s] %s: too long (at most %" PRIu64 " characters)",
			 where, k->section, k->name, k->max);
		return -1;
	}
	strcpy(field, value);
	return 0;
}

/* KEY_SECRET: as KEY_STR, but refused from --set (the command line is
 * readable by every user in /proc/PID/cmdline), and from a file whose
 * mode lets others read it. where: "default", "--set" or the file. */
static int
secret_set(const struct key *k, char *field, const char *value,
	   const char *where, char *err, size_t errlen)
{
	struct stat st;

	if (strcmp(where, "--set") == 0) {
		snprintf(err, errlen, "--set: [%s] %s may not be given on the "
			 "command line (every user can read it): use [%s] "
			 "%s_file or the environment variable %s", k->section,
			 k->name, k->section, k->name, HGW_SOUP_PASSWORD_ENV);
		return -1;
	}
	if (value[0] != '\0' && strcmp(where, "default") != 0) {
		if (stat(where, &st) != 0) {
			snprintf(err, errlen, "%s: cannot check its mode: %s",
				 where, strerror(errno));
			return -1;
		}
		if (!hgw_soup_secret_mode_ok(st.st_mode)) {
			snprintf(err, errlen, "%s: holds [%s] %s but its mode "
				 "is %04o: others may not read it (chmod 0600 "
				 "or 0640)", where, k->section, k->name,
				 (unsigned int)(st.st_mode & 07777));
			return -1;
		}
	}
	return str_set(k, field, value, where, err, errlen);
}

static int
key_set(struct hgw_config *c, const struct key *k, const char *value,
	const char *where, char *err, size_t errlen)
{
	void *field = (char *)c + k->offset;
	uint64_t v;

	switch (k->type) {
	case KEY_U16:
	case KEY_U32:
	case KEY_U64:
		/* decimal only: "010" is ten and "0x10" an error, never a
		 * silent octal or hex reading of a risk limit */
		if (hgw_parse_num(value, k->min, k->max, &v) < 0) {
			snprintf(err, errlen,
				 "%s: bad value for [%s] %s: '%s' (expected an integer %" PRIu64 "..%" PRIu64 ")",
				 where, k->section, k->name, value, k->min, k->max);
			return -1;
		}
		if (k->type == KEY_U16)
			*(uint16_t *)field = (uint16_t)v;
		else if (k->type == KEY_U32)
			*(uint32_t *)field = (uint32_t)v;
		else
			*(uint64_t *)field = v;
		return 0;
	case KEY_ENUM: {
		char list[256];
		size_t off = 0;

		for (uint32_t m = 0; m < k->nnames; m++)
			if (strcmp(value, k->names[m]) == 0) {
				*(uint32_t *)field = m;
				return 0;
			}
		for (uint32_t m = 0; m < k->nnames && off < sizeof(list); m++)
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s", m == 0 ? "" :
						m + 1 == k->nnames ? " or " : ", ",
						k->names[m]);
		snprintf(err, errlen,
			 "%s: bad value for [%s] %s: '%s' (expected %s)",
			 where, k->section, k->name, value, list);
		return -1;
	}
	case KEY_DOUBLE: {
		char *end;
		double d;

		errno = 0;
		d = strtod(value, &end);
		if (*value == '\0' || errno != 0 || *end != '\0' || !(d > 0) ||
		    d > (double)k->max) {
			snprintf(err, errlen,
				 "%s: bad value for [%s] %s: '%s' (expected a number above 0, at most %" PRIu64 ")",
				 where, k->section, k->name, value, k->max);
			return -1;
		}
		*(double *)field = d;
		return 0;
	}
	case KEY_MAC:
		if (hgw_parse_mac(value, field) < 0) {
			snprintf(err, errlen,
				 "%s: bad value for [%s] %s: '%s' (expected a MAC address aa:bb:cc:dd:ee:ff)",
				 where, k->section, k->name, value);
			return -1;
		}
		return 0;
	case KEY_CHAR:
		if (strlen(value) != 1 || value[0] < 0x21 || value[0] > 0x7e) {
			snprintf(err, errlen,
				 "%s: bad value for [%s] %s: '%s' (expected one printable character)",
				 where, k->section, k->name, value);
			return -1;
		}
		*(uint32_t *)field = (uint8_t)value[0];
		return 0;
	case KEY_DISABLE: {
		struct hgw_risk_conf rc;

		if (hgw_risk_parse_disable(&rc, value) < 0) {
			snprintf(err, errlen,
				 "%s: bad value for [%s] %s: '%s' (expected at most %d symbols of 1..8 characters)",
				 where, k->section, k->name, value,
				 HGW_RISK_MAX_DISABLED);
			return -1;
		}
		/* kept as text, parsed again at start-up */
		__attribute__((fallthrough));
	}
	case KEY_STR:
		return str_set(k, field, value, where, err, errlen);
	case KEY_SECRET:
		return secret_set(k, field, value, where, err, errlen);
	case KEY_BOOL:
		if (!strcasecmp(value, "yes") || !strcasecmp(value, "true") ||
		    !strcmp(value, "1") || !strcasecmp(value, "on"))
			*(uint32_t *)field = 1;
		else if (!strcasecmp(value, "no") ||
			 !strcasecmp(value, "false") || !strcmp(value, "0") ||
			 !strcasecmp(value, "off"))
			*(uint32_t *)field = 0;
		else {
			snprintf(err, errlen,
				 "%s: bad value for [%s] %s: '%s' (expected yes or no)",
				 where, k->section, k->name, value);
			return -1;
		}
		return 0;
	case KEY_IPV4: {
		struct in_addr a;

		if (inet_pton(AF_INET, value, &a) != 1) {
			snprintf(err, errlen,
				 "%s: bad value for [%s] %s: '%s' (expected an IPv4 address)",
				 where, k->section, k->name, value);
			return -1;
		}
		*(uint32_t *)field = ntohl(a.s_addr);
		return 0;
	}
	}
	return -1;
}

#define CHECK_FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* [venue] against the rest (hgw_config_check). */
static int
venue_check(struct hgw_config *c, char *err, size_t errlen)
{
	struct in_addr a;
	uint64_t pfx;
	char f[10];

	if (c->venue_host[0] == '\0')
		return 0;
	if (c->table_file[0] == '\0')
		CHECK_FAIL("[venue] host needs trading ([table] file)");
	if (c->dedup == HGW_DEDUP_MODE_NONE)
		CHECK_FAIL("[venue] with [run] dedup = none: every worker sends "
			   "every copy, so no single owner of the venue session "
			   "(use tx-lcore, or claim with [venue] stack = dpdk)");
	if (c->dedup == HGW_DEDUP_MODE_CLAIM &&
	    c->venue_stack != HGW_VENUE_STACK_DPDK)
		CHECK_FAIL("[venue] with [run] dedup = claim needs [venue] stack "
			   "= dpdk: the worker that wins an order sends it on "
			   "hedgewire's own TCP (or use tx-lcore)");
	if (c->dedup == HGW_DEDUP_MODE_CLAIM &&
	    (c->venue_max_ops != 0 || c->venue_max_ops_symbol != 0))
		CHECK_FAIL("[venue] max_orders_per_sec%s = %u with [run] dedup = "
			   "claim: the winning worker sends at once, and these "
			   "caps are kept only where one lcore sends (set 0, or "
			   "use tx-lcore)", c->venue_max_ops != 0 ? "" :
			   "_per_symbol", c->venue_max_ops != 0 ?
			   c->venue_max_ops : c->venue_max_ops_symbol);
	/* 0.0.0.0 is no venue's: refused, not read as "no session" */
	if (inet_pton(AF_INET, c->venue_host, &a) != 1 || a.s_addr == 0)
		CHECK_FAIL("bad value for [venue] host: '%s' (expected an IPv4 "
			   "address)", c->venue_host);
	c->venue_host_ip = ntohl(a.s_addr);
	if (c->venue_stack == HGW_VENUE_STACK_DPDK) {
		if (c->dedup == HGW_DEDUP_MODE_DOWNSTREAM)
			CHECK_FAIL("[venue] stack = dpdk with [run] dedup = "
				   "downstream: hgw-dedup owns the session there "
				   "(give it --venue-stack dpdk; here, stack = "
				   "kernel)");
		if (c->tx_port == c->rx_port)
			CHECK_FAIL("[venue] stack = dpdk needs [order] port "
				   "apart from [rx] port (%u): the venue's "
				   "segments come back on the order port's RX "
				   "queue", c->rx_port);
		if (hgw_parse_ipv4_num(c->venue_address, '/', 1, 32,
				       &c->venue_ip, &pfx) != 0)
			CHECK_FAIL("bad value for [venue] address: '%s' "
				   "(expected IP/PREFIX, our address on [order] "
				   "port, with stack = dpdk)", c->venue_address);
		c->venue_mask = pfx == 32 ? UINT32_MAX : ~(UINT32_MAX >> pfx);
		if (c->venue_gateway != 0 && (c->venue_gateway & c->venue_mask) !=
		    (c->venue_ip & c->venue_mask))
			CHECK_FAIL("bad value for [venue] gateway: not on [venue] "
				   "address's subnet (%s)", c->venue_address);
	}
	if (c->dedup == HGW_DEDUP_MODE_DOWNSTREAM) {
		/* hgw-dedup owns the session (its options); hedgewire reads
		 * the relay on the order port's own RX queue */
		if (c->tx_port == c->rx_port)
			CHECK_FAIL("[venue] with [run] dedup = downstream needs "
				   "[order] port apart from [rx] port (%u): the "
				   "venue's answers come back on the order port's "
				   "RX queue", c->rx_port);
		return 0;
	}
	if (c->venue_username[0] == '\0')
		CHECK_FAIL("[venue] username is required with [venue] host");
	if (c->venue_state_file[0] == '\0')
		CHECK_FAIL("[venue] state_file is required with [venue] host: it "
			   "keeps the last UserRefNum sent, so a restart never "
			   "reuses one");
	if (c->venue_dead_ms <= c->venue_heartbeat_ms)
		CHECK_FAIL("bad value for [venue] dead_ms: %u (must exceed "
			   "heartbeat_ms, %u)", c->venue_dead_ms,
			   c->venue_heartbeat_ms);
	if (c->venue_max_ops != 0 && c->venue_max_ops_symbol > c->venue_max_ops)
		CHECK_FAIL("bad value for [venue] max_orders_per_sec_per_symbol: "
			   "%u (above max_orders_per_sec, %u)",
			   c->venue_max_ops_symbol, c->venue_max_ops);
	if (hgw_soup_field(f, 6, c->venue_username) != 0)
		CHECK_FAIL("bad value for [venue] username: '%s' (printable "
			   "ASCII)", c->venue_username);
	if (hgw_soup_field(f, 10, c->venue_password) != 0)
		CHECK_FAIL("bad value for [venue] password (printable ASCII)");
	if (hgw_soup_field(f, 10, c->venue_session) != 0)
		CHECK_FAIL("bad value for [venue] session: '%s' (printable "
			   "ASCII)", c->venue_session);
	return 0;
}

int
hgw_config_check(struct hgw_config *c, char *err, size_t errlen)
{
	if (c->digest_every & (c->digest_every - 1))
		CHECK_FAIL("bad value for [run] digest_every: %u (a power of "
			   "two, or 0)", c->digest_every);
	if (c->stats_interval_ms != 0 && c->stats_interval_ms < 10)
		CHECK_FAIL("bad value for [run] stats_interval_ms: %u (0 = off, "
			   "or 10..86400000)", c->stats_interval_ms);
	if (c->lines == 2 && c->rx_mode != HGW_RX_QUEUES)
		CHECK_FAIL("[feed] lines = 2 needs [rx] mode = queues (two RX "
			   "queues a worker: 2i line A, 2i+1 line B)");
	if (c->rq_server[0] != '\0') {
		uint64_t port;

		if (hgw_parse_ipv4_num(c->rq_server, ':', 1, 65535,
				       &c->rq_server_ip, &port) != 0)
			CHECK_FAIL("bad value for [recovery] server: '%s' "
				   "(expected IP:PORT)", c->rq_server);
		c->rq_server_port = (uint16_t)port;
		if (c->table_file[0] == '\0')
			CHECK_FAIL("[recovery] server needs trading ([table] "
				   "file): requests leave on the workers' order "
				   "queues");
		if (c->dedup == HGW_DEDUP_MODE_TXLCORE)
			CHECK_FAIL("[recovery] server with [run] dedup = "
				   "tx-lcore: workers have no TX queue of their "
				   "own to ask from (use claim)");
		if (hgw_config_dlg(c))
			CHECK_FAIL("[recovery] server with [run] dedup = claim "
				   "and [venue] stack = dpdk: the workers' TX "
				   "queues carry the venue's segments");
	}
	return venue_check(c, err, errlen);
}

#undef CHECK_FAIL

int
hgw_config_venue(const struct hgw_config *c)
{
	return c->venue_host[0] != '\0';
}

int
hgw_config_dlg(const struct hgw_config *c)
{
	return hgw_config_venue(c) && c->dedup == HGW_DEDUP_MODE_CLAIM &&
	       c->venue_stack == HGW_VENUE_STACK_DPDK;
}

void
hgw_config_defaults(struct hgw_config *c)
{
	char err[256];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < RTE_DIM(keys); i++)
		if (key_set(c, &keys[i], keys[i].def, "default", err,
			    sizeof(err)) < 0)
			abort();	/* a default that does not parse is a bug */
}

#define CONF_MAX_LINE 1024		/* longer: refused, with its line */
#define CONF_MAX_KEYS 512

/* What rte_cfgfile lets through or turns into a generic error, checked
 * first with file:line: not a regular file (a directory would load as
 * empty, /dev/zero never ends, a FIFO blocks), an overlong line, a line
 * that is neither a section, a comment nor KEY = VALUE, a key given
 * twice in one section. 0, or -1 with err set. */
static int
conf_prescan(const char *path, char *err, size_t errlen)
{
	static char seen[CONF_MAX_KEYS][2 * CFG_NAME_LEN + 2];
	static unsigned long key_line[CONF_MAX_KEYS];
	char line[CONF_MAX_LINE + 2], sec[CFG_NAME_LEN] = "";
	unsigned long lineno = 0;
	unsigned int nkeys = 0;
	struct stat st;
	int fd, rc = 0;
	FILE *f;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (a configuration "
			 "is an INI file)", path);
		close(fd);
		return -1;
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		close(fd);
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		size_t n = strlen(line);
		char *p = line, *eq, *end;

		lineno++;
		if (n > CONF_MAX_LINE && line[n - 1] != '\n') {
			snprintf(err, errlen, "%s:%lu: line longer than %d bytes",
				 path, lineno, CONF_MAX_LINE);
			rc = -1;
			break;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		end = p + strcspn(p, "\r\n");
		*end = '\0';
		if (*p == '\0' || *p == ';' || *p == '#')
			continue;
		if (*p == '[') {
			char *close_br = strchr(p, ']');

			if (close_br != NULL && (size_t)(close_br - p - 1) < sizeof(sec)) {
				memcpy(sec, p + 1, (size_t)(close_br - p - 1));
				sec[close_br - p - 1] = '\0';
			}
			continue;
		}
		eq = strchr(p, '=');
		if (eq == NULL) {
			snprintf(err, errlen, "%s:%lu: '%.40s' is not KEY = VALUE",
				 path, lineno, p);
			rc = -1;
			break;
		}
		while (eq > p && (eq[-1] == ' ' || eq[-1] == '\t'))
			eq--;
		char key[2 * CFG_NAME_LEN + 2];

		snprintf(key, sizeof(key), "%s.%.*s", sec, (int)(eq - p), p);
		for (unsigned int i = 0; i < nkeys; i++)
			if (strcmp(seen[i], key) == 0) {
				snprintf(err, errlen, "%s:%lu: [%s] %.*s given "
					 "twice (first at line %lu)", path,
					 lineno, sec, (int)(eq - p), p,
					 key_line[i]);
				rc = -1;
				break;
			}
		if (rc == 0 && nkeys < CONF_MAX_KEYS) {
			snprintf(seen[nkeys], sizeof(seen[nkeys]), "%s", key);
			key_line[nkeys++] = lineno;
		}
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	}
	fclose(f);
	return rc;
}

int
hgw_config_load(struct hgw_config *c, const char *path, char *err,
		size_t errlen)
{
	struct rte_cfgfile *cf;
	int rc = 0;

	if (conf_prescan(path, err, errlen) != 0)
		return -1;
	cf = rte_cfgfile_load(path, CFG_FLAG_EMPTY_VALUES);

	if (cf == NULL) {
		snprintf(err, errlen, "%s: cannot read or parse the file", path);
		return -1;
	}
	int nsec = rte_cfgfile_num_sections(cf, NULL, 0);

	for (int s = 0; s < nsec && rc == 0; s++) {
		char sec[CFG_NAME_LEN];
		int n = rte_cfgfile_section_num_entries_by_index(cf, sec, s);

		if (n < 0)
			break;
		if (!section_known(sec)) {
			snprintf(err, errlen, "%s: unknown section [%s]", path, sec);
			rc = -1;
			break;
		}
		struct rte_cfgfile_entry *e = calloc(n > 0 ? (size_t)n : 1, sizeof(*e));

		if (e == NULL) {
			snprintf(err, errlen, "%s: out of memory", path);
			rc = -1;
			break;
		}
		n = rte_cfgfile_section_entries_by_index(cf, s, sec, e, n);
		for (int i = 0; i < n && rc == 0; i++) {
			const struct key *k = key_find(sec, e[i].name);

			if (k == NULL) {
				snprintf(err, errlen, "%s: unknown key [%s] %s",
					 path, sec, e[i].name);
				rc = -1;
			} else {
				rc = key_set(c, k, e[i].value, path, err, errlen);
			}
		}
		free(e);
	}
	rte_cfgfile_close(cf);
	return rc;
}

int
hgw_config_set(struct hgw_config *c, const char *assignment, char *err,
	       size_t errlen)
{
	char buf[256];
	const char *eq = strchr(assignment, '=');
	const char *dot = strchr(assignment, '.');

	if (eq == NULL || dot == NULL || dot > eq ||
	    strlen(assignment) >= sizeof(buf)) {
		snprintf(err, errlen,
			 "--set '%s': expected section.key=value", assignment);
		return -1;
	}
	memcpy(buf, assignment, strlen(assignment) + 1);
	buf[dot - assignment] = '\0';
	buf[eq - assignment] = '\0';

	const char *sec = buf, *name = buf + (dot - assignment) + 1;
	const struct key *k = key_find(sec, name);

	if (k == NULL) {
		snprintf(err, errlen, "--set: unknown key [%s] %s", sec, name);
		return -1;
	}
	return key_set(c, k, eq + 1, "--set", err, errlen);
}

int
hgw_config_secrets(struct hgw_config *c, char *err, size_t errlen)
{
	const char *env = getenv(HGW_SOUP_PASSWORD_ENV);
	int from_env = env != NULL && env[0] != '\0';
	int n = (c->venue_password[0] != '\0') +
		(c->venue_password_file[0] != '\0') + from_env;

	if (n > 1) {
		snprintf(err, errlen, "the venue password is given %d ways "
			 "([venue] password, [venue] password_file, %s): "
			 "give one", n, HGW_SOUP_PASSWORD_ENV);
		return -1;
	}
	if (from_env) {
		if (strlen(env) >= sizeof(c->venue_password)) {
			snprintf(err, errlen, "bad value for %s: longer than "
				 "%zu characters", HGW_SOUP_PASSWORD_ENV,
				 sizeof(c->venue_password) - 1);
			return -1;
		}
		strcpy(c->venue_password, env);
	} else if (c->venue_password_file[0] != '\0' &&
		   hgw_soup_secret_file(c->venue_password_file,
					c->venue_password,
					sizeof(c->venue_password), err,
					errlen) < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "bad value for [venue] password_file: %s",
			 why);
		return -1;
	}
	return 0;
}

void
hgw_config_print(const struct hgw_config *c, FILE *out)
{
	const char *cur = "";

	for (size_t i = 0; i < RTE_DIM(keys); i++) {
		const struct key *k = &keys[i];
		const void *field = (const char *)c + k->offset;

		if (strcmp(cur, k->section) != 0) {
			fprintf(out, "%s[%s]\n", i ? "\n" : "", k->section);
			cur = k->section;
		}
		switch (k->type) {
		case KEY_U16:
			fprintf(out, "%s = %u\n", k->name, *(const uint16_t *)field);
			break;
		case KEY_U32:
			fprintf(out, "%s = %u\n", k->name, *(const uint32_t *)field);
			break;
		case KEY_U64:
			fprintf(out, "%s = %" PRIu64 "\n", k->name,
				*(const uint64_t *)field);
			break;
		case KEY_MAC: {
			const uint8_t *m = field;

			fprintf(out, "%s = %02x:%02x:%02x:%02x:%02x:%02x\n",
				k->name, m[0], m[1], m[2], m[3], m[4], m[5]);
			break;
		}
		case KEY_CHAR:
			fprintf(out, "%s = %c\n", k->name,
				(char)*(const uint32_t *)field);
			break;
		case KEY_ENUM:
			fprintf(out, "%s = %s\n", k->name,
				k->names[*(const uint32_t *)field]);
			break;
		case KEY_DOUBLE:
			fprintf(out, "%s = %g\n", k->name,
				*(const double *)field);
			break;
		case KEY_STR:
		case KEY_DISABLE:
			fprintf(out, "%s = %s\n", k->name, (const char *)field);
			break;
		case KEY_SECRET:	/* said to be set, never shown */
			fprintf(out, "%s = %s\n", k->name,
				*(const char *)field ? "(set, not shown)" : "");
			break;
		case KEY_BOOL:
			fprintf(out, "%s = %s\n", k->name,
				*(const uint32_t *)field ? "yes" : "no");
			break;
		case KEY_IPV4: {
			uint32_t a = *(const uint32_t *)field;

			fprintf(out, "%s = %u.%u.%u.%u\n", k->name, a >> 24,
				(a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
			break;
		}
		}
	}
}
