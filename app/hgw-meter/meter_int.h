/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: what its files share (not an API):
 *
 *   meter.c         main: the ports, the wire held after the report
 *   meter_cli.c     the command line
 *   meter_capture.c the capture loaded and indexed, --expect
 *   meter_match.h   the matcher: each order to its trigger (inline, on
 *                   the fast path with the replay)
 *   meter_rereq.c   the MoldUDP64 re-request server (--retrans)
 *   meter_replay.c  the replay: copies, --drop and --corrupt, pacing
 *   meter_report.c  the report, --csv and --json
 */
#ifndef HGW_METER_INT_H
#define HGW_METER_INT_H

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <pcap/pcap.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "hgw_cli.h"
#include "hgw_feed.h"
#include "hgw_latency.h"
#include "hgw_mold.h"
#include "hgw_order.h"
#include "hgw_port.h"

#define PROG "hgw-meter"
#define BURST 32
#define MAX_COPIES 16
#define MAX_FRAME 9216          /* jumbo; the pool's data room */
#define CLORDID_MOD 10000000000ull
#define MAX_DROPS 16
/* MoldUDP64 answers: UDP payload per packet, as Nasdaq's servers keep
 * under a 1500-byte MTU; blocks that fit one (2-byte length each) */
#define RT_PAYLOAD 1400u
#define RT_MAX_BLOCKS ((RT_PAYLOAD - HGW_MOLD_HDR_LEN) / 2)

enum pace { PACE_PCAP, PACE_RATE, PACE_TOP };

struct opts {
	const char *pcap, *expect, *csv, *json;
	struct hgw_feed_conf feed;
	uint16_t port, order_port, copies, order_queues;
	enum pace pace;
	double speed;
	uint64_t pps;
	uint32_t loops;
	uint64_t timeout_us;
	uint32_t wait_ms, link_ms, settle_ms, stall_ms, hold_ms, mbufs;
	/* --retrans: the re-request server's address (host order) */
	int retrans;
	uint32_t rt_ip;
	uint16_t rt_port, rt_max;
	/* --drop Q:A-B: frames a..b (1-based) not sent on queue q */
	struct drop { uint16_t q; uint32_t a, b; uint8_t corrupt; } drops[MAX_DROPS];
	uint32_t ndrops;
};

/* Orders that match no expected trigger, by reason (X-macro: code, name,
 * help). Every order is counted once: matched, duplicate, or here. */
#define METER_UNEXPECTED(X)                                                    \
	X(BAD_CLORDID,  "bad_clordid",  "ClOrdID is not 4 characters and 10 digits") \
	X(NO_SESSION,   "no_session",   "ClOrdID names none of the replayed MoldUDP64 sessions") \
	X(NO_TRIGGER,   "no_trigger",   "no replayed packet carries that sequence number") \
	X(BAD_USERREF,  "bad_userref",  "UserRefNum is not the sequence number mod 2^32") \
	X(NOT_SENT,     "not_sent_yet", "its trigger had not been sent yet")     \
	X(NOT_EXPECTED, "not_expected", "a replayed trigger, but not one --expect lists")

enum meter_unexpected {
#define METER_UNEXPECTED_ENUM(code, name, help) UNEXPECTED_##code,
	METER_UNEXPECTED(METER_UNEXPECTED_ENUM)
#undef METER_UNEXPECTED_ENUM
	UNEXPECTED_MAX
};

/* Sequence numbers one packet of the capture carries for the first time
 * (a duplicate packet's repeats belong to the first packet that carried
 * them: that is the copy hedgewire acts on). */
struct range {
	uint64_t seq;           /* first sequence number */
	uint32_t count;
	uint32_t pkt;           /* the packet */
	uint64_t msg;           /* index of its first message in flags[] */
	uint16_t session;
	uint16_t off;           /* its first new block: offset in the frame */
};

struct session {
	char name[HGW_MOLD_SESSION_LEN];
	uint32_t first, n;      /* ranges[first, first + n), by sequence */
};

#define F_ANSWERED 1
#define F_EXPECTED 2

struct meter {
	uint16_t port, oport, copies, nrxq;
	uint32_t npkts;
	struct rte_mbuf **pkts;
	uint64_t *off;          /* release time, TSC cycles after the loop's t0 */
	uint64_t *sent_tsc;     /* TSC before its first tx_burst; 0: not yet */
	uint64_t stall_tsc, timeout_tsc;
	uint8_t qdead[MAX_COPIES];

	uint32_t nsessions;
	struct session sessions[HGW_FEED_MAX_SESSIONS];
	struct range *ranges;
	uint32_t nranges;
	uint64_t nmsgs;
	uint8_t *flags;         /* per message: F_* */
	uint32_t *exp;          /* per message: 1 + expected order index, or 0 */
	uint8_t *exp_frames;    /* --expect: HGW_ORDER_FRAME_LEN bytes each */
	uint32_t nexp;

	/* --drop */
	const struct drop *drops;
	uint32_t ndrops;
	uint8_t qdrops[MAX_COPIES];     /* queue q has --drop ranges */
	uint64_t dropped[MAX_COPIES];   /* frames not sent on q by --drop */
	uint64_t corrupted[MAX_COPIES]; /* frames sent damaged on q (--corrupt) */
	struct rte_mempool *cp_pool;    /* --corrupt: the damaged copies */

	/* --retrans: the re-request server */
	int rt_on;
	int holding;            /* after the report: only requests count */
	uint32_t rt_ip;
	uint16_t rt_port, rt_max;
	struct rte_ether_addr mac;      /* the feed port's */
	struct rte_mempool *rt_pool;
	const uint8_t **blk;    /* per message: its block (length prefix) */
	uint64_t rt_requests, rt_answered, rt_messages, rt_packets;
	uint64_t rt_not_had, rt_limited, rt_bad, rt_lost, hold_frames;

	/* counters */
	uint64_t packets_sent, copies_sent, tx_dropped, capture_truncated;
	uint64_t ts_backwards, no_trigger, dup_frames, non_feed;
	uint64_t frames, other_frames, orders, matched, late, duplicates;
	uint64_t differs, expected_unknown, no_order;
	uint64_t unexpected[UNEXPECTED_MAX];
	struct hgw_hist w2w;    /* TSC cycles: order RX minus trigger TX */
	struct hgw_hist lag;    /* TSC cycles: tx_burst minus release time */
};

extern const char *const meter_pace_names[];

/* Written by the signal handler, read by the loops; relaxed: a flag that
 * orders nothing. */
extern _Atomic int meter_stop;

static inline int
stopped(void)
{
	return atomic_load_explicit(&meter_stop, memory_order_relaxed);
}

#define die(...) hgw_cli_die(PROG, __VA_ARGS__)

/* meter_cli.c: the options (exits with one line on a bad one). */
void meter_parse(int argc, char **argv, struct opts *o);

/* meter_capture.c: the capture into mbufs, its sessions and the
 * sequence numbers each packet carries first; --expect's orders. */
void meter_capture_load(struct meter *m, const struct opts *o);
void meter_expect_load(struct meter *m, const char *path);

/* meter_rereq.c: a frame to the --retrans address on order queue q: a
 * request answered on TX queue q, or a bad one counted; 0: not ours, for
 * the order matcher. */
int meter_retrans_frame(struct meter *m, uint16_t q, const uint8_t *d,
			uint32_t len);

/* meter_replay.c: one pass over the capture from t0; poll the order
 * queues for ms. */
void meter_replay_once(struct meter *m, uint64_t t0);
void meter_poll_for(struct meter *m, uint32_t ms);

/* meter_report.c */
void meter_count_no_order(struct meter *m);
void meter_report(const struct meter *m, const struct opts *o, double secs);
void meter_report_retrans(const struct meter *m);
void meter_write_csv(const struct hgw_hist *h, const char *prefix,
		     const char *name);
void meter_write_json(const struct meter *m, const struct opts *o);

#endif /* HGW_METER_INT_H */
