/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: application configuration (INI, read with rte_cfgfile).
 *
 * Every key is listed in one table in config.c with its type, range and
 * default; conf/demo.ini documents each. Unknown sections or keys and bad
 * values are errors that name the key.
 */
#ifndef HGW_APP_CONFIG_H
#define HGW_APP_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hgw_book.h"
#include "hgw_feed.h"

#define HGW_MAX_WORKERS 16

/* How the first copy of each order is chosen among the workers. */
enum hgw_dedup_mode {
	HGW_DEDUP_MODE_NONE,   /* every worker sends its copy */
	HGW_DEDUP_MODE_CLAIM,  /* a worker claims the trigger, then sends */
	HGW_DEDUP_MODE_TXLCORE,    /* workers hand over; one TX lcore sends firsts */
	HGW_DEDUP_MODE_DOWNSTREAM, /* every copy is sent; hgw-dedup filters */
};

/* How each worker gets its full copy of the feed. */
/* [order] journal_error: what a journal write error does. */
enum hgw_journal_error {
	HGW_JOURNAL_ERROR_STOP,   /* the kill switch: trading stops */
	HGW_JOURNAL_ERROR_ALARM,  /* said, and the exit status; trading goes on */
};

enum hgw_rx_mode {
	HGW_RX_QUEUES,       /* each worker polls its own queue that carries it all */
	HGW_RX_FANOUT,       /* one RX lcore, zero-copy fan-out over rings */
	HGW_RX_FLOW_MIRROR,  /* rte_flow mirrors the feed to every worker's queue */
};

/* Where a burst's arrival time comes from (unpaced). */
enum hgw_igmp_mode {
	HGW_IGMP_OFF,
	HGW_IGMP_V2,              /* RFC 2236 reports and leaves */
	HGW_IGMP_V3,              /* RFC 3376 reports */
};

enum hgw_venue_stack {
	HGW_VENUE_STACK_KERNEL,   /* a kernel TCP socket */
	HGW_VENUE_STACK_DPDK,     /* lib/tcp on [order] port */
};

enum hgw_rx_ts {
	HGW_RX_TS_TSC,       /* the TSC when rx_burst returned */
	HGW_RX_TS_NIC,       /* the NIC's RX timestamp, on the TSC timeline */
};

/* Paced replay: when each frame is released to the workers. */
enum hgw_pace {
	HGW_PACE_OFF,        /* as fast as it comes; arrival = rx_burst return */
	HGW_PACE_PCAP,       /* t0 + (ts_i - ts_0) / speed, pcap timestamps */
	HGW_PACE_RATE,       /* t0 + i / pps */
};

struct hgw_config {
	struct hgw_feed_conf feed;
	uint32_t join;            /* [feed] join: 0 recover, 1 baseline */
	uint32_t warmup_messages; /* [feed] baseline join: messages before trading */
	uint32_t lines;           /* [feed] 1, or 2: A/B lines, two queues a worker */
	uint32_t hold_frames;     /* frames held while a gap waits to be filled */
	uint32_t hold_us;         /* A/B: how long line B may take to fill one */
	/* [recovery] MoldUDP64 re-request */
	char rq_server[64];       /* IP:PORT; empty: off */
	uint16_t rq_client_port;  /* worker i asks from this port + i */
	uint32_t rq_timeout_ms;
	uint32_t rq_retries;
	uint32_t rq_max_messages;
	struct hgw_book_conf book;

	/* [rx] */
	uint32_t rx_mode;         /* HGW_RX_* */
	uint32_t ring_size;       /* fanout: frames queued per worker */
	uint16_t rx_port;         /* DPDK port id the feed arrives on */
	uint16_t burst;           /* rx_burst size */
	uint16_t rx_desc;         /* RX descriptors per queue */
	uint32_t mbufs;           /* mbufs in the RX pool */
	uint32_t rx_ts;           /* HGW_RX_TS_* */

	/* [table] */
	char table_file[256];     /* empty: no trading, feed path only */
	uint32_t replicas;        /* table copies; 0 = one per worker */
	char chanmap[256];        /* channel map file; empty: packed copies */

	/* [risk] */
	uint32_t kill;
	char risk_disable[512];
	uint32_t max_quantity;
	uint64_t max_notional;
	uint32_t collar_bps;
	uint64_t max_position;
	uint32_t window_ms;
	uint32_t max_orders_instrument;
	uint32_t max_orders_total;
	uint32_t max_open_orders;

	/* [order] */
	uint16_t tx_port;         /* DPDK port orders leave on */
	uint8_t src_mac[6], dst_mac[6];
	uint32_t src_ip, dst_ip;  /* host byte order */
	uint16_t src_port, dst_port;
	uint32_t capacity;        /* OUCH capacity byte */
	uint32_t tx_mbufs;        /* mbufs in the order pool */
	char journal[256];        /* pcap journal of sent orders; empty: none */
	uint64_t journal_orders;  /* orders a journal file has room for */
	uint32_t journal_error;   /* enum hgw_journal_error */

	/* [run] */
	uint32_t workers;         /* worker lcores */
	uint32_t dedup;           /* HGW_DEDUP_MODE_* */
	uint32_t stop_at_end;     /* stop when every worker saw end-of-session */
	uint32_t idle_timeout_ms; /* stop after this long with no frame; 0 = never */
	uint32_t stage_sample;    /* stamp the stages of 1 trigger in N; 0 = off */
	uint32_t latency_bits;    /* histogram precision: error below 2^-bits */
	char events_log[256];     /* control events and their positions; empty: none */
	char telemetry_group[64]; /* group that may use the telemetry socket */
	uint32_t digest_every;    /* compare decision digests every 2^k seqs; 0 = off */
	uint32_t stats_interval_ms; /* one stats record through rte_log; 0 = off */

	/* [buffers] (lib/idio) */
	uint32_t invalidate;      /* enum hgw_idio_inval */
	uint32_t prefetch;        /* burst-driven L2 prefetch on/off */
	uint32_t prefetch_depth;  /* packets ahead, at most */
	uint32_t prefetch_min_burst; /* arrivals per window that make a burst */
	uint32_t prefetch_window_ns;
	uint32_t poison;          /* index: off, 64, 128, 256 bytes */
	uint32_t poison_every;    /* poison one free in this many */

	/* [replay] */
	uint32_t pace;            /* HGW_PACE_* */
	double speed;             /* pcap pace: timeline speed factor */
	uint32_t pps;             /* rate pace: frames per second */
	uint32_t pace_burst;      /* rate pace: frames released together */
	uint32_t start_delay_ms;  /* t0 = launch + this (every worker alike) */
	uint32_t miss_us;         /* a later order counts as a miss */

	/* [venue] the SoupBinTCP order session (empty host: none) */
	char venue_host[64];      /* IPv4 address */
	uint16_t venue_port;
	char venue_username[7];
	char venue_password[11];  /* never from --set: hgw_config_secrets() */
	char venue_password_file[256]; /* a 0600/0640 file holding it */
	char venue_session[11];   /* empty: the current session */
	uint32_t venue_heartbeat_ms;
	uint32_t venue_dead_ms;
	uint32_t venue_reconnect_ms;
	char venue_state_file[256];
	uint32_t venue_max_ops;   /* orders per second, all (0: no cap) */
	uint32_t venue_max_ops_symbol; /* ... per instrument (0: no cap) */
	uint32_t venue_cancel_on_disconnect;
	char venue_journal[256];  /* the venue's messages; empty: none */
	uint32_t venue_stack;     /* HGW_VENUE_STACK_* */
	uint32_t igmp;            /* HGW_IGMP_*: the feed port joins its groups */
	uint32_t igmp_source;     /* the reports' source address (host order) */
	char venue_address[32];   /* stack = dpdk: ours, "IP/PREFIX" */
	uint32_t venue_gateway;   /* stack = dpdk: next hop off the subnet */

	/* Parsed from the keys above by hgw_config_check (host order) */
	uint32_t venue_host_ip;   /* [venue] host; 0: no session */
	uint32_t venue_ip, venue_mask;  /* [venue] address (stack = dpdk) */
	uint32_t rq_server_ip;    /* [recovery] server; 0: off */
	uint16_t rq_server_port;
};

/* [buffers] poison in bytes (0: off). */
uint32_t hgw_config_poison_bytes(const struct hgw_config *c);

/* Fill c with every key's default. */
void hgw_config_defaults(struct hgw_config *c);

/* Does a venue session answer the orders (positions from its fills)? */
int hgw_config_venue(const struct hgw_config *c);

/* Claim mode with the venue session on hedgewire's own TCP: the worker
 * that wins a trigger sends its own segment, and the TX lcore owns the
 * connection and the session (docs/venue.md). */
int hgw_config_dlg(const struct hgw_config *c);

/* Load an INI file over the defaults. Returns 0, or -1 after writing one
 * line naming the file and the bad section, key or value into err. */
int hgw_config_load(struct hgw_config *c, const char *path, char *err,
		    size_t errlen);

/* Apply one "section.key=value" override (command line --set). Same
 * errors as hgw_config_load. */
/* The venue password from [venue] password_file or the environment
 * (HGW_VENUE_PASSWORD) into venue_password; at most one of the three may
 * be given. After the file and every --set. 0, or -1 with one line in
 * err. */
int hgw_config_secrets(struct hgw_config *c, char *err, size_t errlen);

int hgw_config_set(struct hgw_config *c, const char *assignment, char *err,
		   size_t errlen);

/* After the file, every --set and the secrets: the rules that join keys
 * ([run] digest_every a power of two, [feed] lines with [rx] mode,
 * [recovery] server and [venue] against the dedup mode and trading), and
 * the addresses parsed once into the fields that follow the keys. 0, or
 * -1 with one line naming the key in err. What needs the EAL (ports,
 * lcores) is checked at start-up. */
int hgw_config_check(struct hgw_config *c, char *err, size_t errlen);

/* Print every key and its value in INI form (for --print-config). */
void hgw_config_print(const struct hgw_config *c, FILE *out);

#endif /* HGW_APP_CONFIG_H */
