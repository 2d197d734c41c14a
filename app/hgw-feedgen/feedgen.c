/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-feedgen: synthetic Nasdaq TotalView-ITCH 5.0 session over
 * Ethernet / [802.1Q] / IPv4 / UDP multicast / MoldUDP64, written to a pcap.
 *
 * This program is the independent source of ground truth that the decoder
 * and order book tests compare against, so on purpose it uses no hedgewire
 * library except the ITCH layouts (lib/itch): it keeps its own simple model
 * of live orders (per instrument: an array with swap-remove, plus a count of
 * live orders per price level so the best bid/ask is known in O(1) and new
 * orders never cross the book). Output is a pure function of the options:
 * one seeded xoshiro256** stream and integer-only arithmetic (no libm, no
 * clock), so the same options give byte-identical files on any host.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <pcap/pcap.h>

#include "hgw_cksum.h"
#include "hgw_mcast_frame.h"
#include "hgw_cli.h"
#include "hgw_prng.h"
#include "hgw_itch.h"

#define FG_NAME "hgw-feedgen"

/* Prices: 4 implied decimals, one cent tick. */
#define FG_TICK 100u
/* Each instrument's mid walks within anchor +- min(FG_WALK_TICKS, anchor/4)
 * and orders rest at most FG_MAX_OFF_TICKS from the mid, so every live
 * price lies in a span narrower than FG_LVL_WIN ticks (see fg_new_price),
 * which lets a ring of FG_LVL_WIN counters index price levels. */
#define FG_WALK_TICKS 400u
#define FG_MAX_OFF_TICKS 10u
#define FG_LVL_WIN 1024u

/* MoldUDP64 framing. */
#define FG_MOLD_HDR 20u
#define FG_MAX_UDP_PAYLOAD 1400u
#define FG_MOLD_EOS 0xFFFFu
/* The smallest ITCH message is 12 bytes, so a packet holds at most this. */
#define FG_MAX_BLOCKS ((FG_MAX_UDP_PAYLOAD - FG_MOLD_HDR) / (2u + 12u))

#define FG_ETH_HDR 14u
#define FG_VLAN_HDR 4u
#define FG_IP_HDR 20u
#define FG_UDP_HDR 8u
#define FG_MAX_FRAME (FG_ETH_HDR + FG_VLAN_HDR + FG_IP_HDR + FG_UDP_HDR + \
		      FG_MAX_UDP_PAYLOAD)
#define FG_UDP_SRC_PORT 26400u

#define FG_NS_PER_SEC 1000000000ull
#define FG_ITCH_START_NS (34200ull * FG_NS_PER_SEC)      /* 09:30:00 */
#define FG_DAY_NS (86400ull * FG_NS_PER_SEC)
/* 2026-11-30 00:00:00 UTC (date -u -d 2026-11-30 +%s). */
#define FG_PCAP_EPOCH 1795996800ull
/* Time runs in ns << FG_TS_FRAC so sub-ns mean gaps still add up. */
#define FG_TS_FRAC 16

enum { FG_BUY = 0, FG_SELL = 1 };

/* The PRNG: xoshiro256** seeded by splitmix64 (hgw_prng.h), as in
 * hgw-tablegen. */

struct fg_order {
	uint64_t ref;
	uint32_t price;
	uint32_t shares;
	uint8_t side;            /* FG_BUY / FG_SELL */
};

struct fg_instr {
	char stock[HGW_ITCH_STOCK_LEN];
	uint32_t mid, lo, hi;    /* mid price and the bounds of its walk */
	uint32_t target;         /* live orders above which adds turn to deletes */
	struct fg_order *ord;    /* live orders, unordered */
	uint32_t n, cap;
	uint16_t *lvl;           /* [side * FG_LVL_WIN + tick % FG_LVL_WIN] */
	uint32_t nside[2];       /* live orders per side */
	uint32_t best[2];        /* best bid / ask price when nside > 0 */
};

struct fg_opts {
	uint64_t seed;
	uint64_t instruments;
	uint64_t messages;
	uint64_t per_packet;
	uint64_t rate;
	char session[10];        /* space padded */
	char session_trim[11];
	uint32_t group;          /* host order */
	uint32_t src;
	uint64_t port;
	uint64_t vlan;
	uint64_t heartbeats;
	uint64_t gap_every, dup_every, trunc_every, corrupt_every;
	const char *out, *truth, *list;
	/* Line B: a second capture of the same packets (see fg_flush). */
	const char *line_b;
	uint32_t group_b;        /* host order; 0 = the same as group */
	uint32_t loss_ppm[2];    /* per line, parts per million */
	uint64_t loss_seed;
	int quiet;
};

/* What a receiver of one line, or of both (A/B arbitration), sees of the
 * data packets: runs of missing packets are the gaps it declares. */
struct fg_view {
	uint64_t messages;
	uint64_t gaps, gap_messages;
	int prev_missing;        /* the last data packet was missing */
};

struct fg {
	struct fg_opts o;
	struct hgw_rng rng;
	/* Line losses: a stream of its own, so the feed does not depend on
	 * them. */
	struct hgw_rng loss_rng;
	struct fg_instr *ins;
	uint64_t next_ref;
	uint64_t next_match;

	/* ITCH clock, ns << FG_TS_FRAC. */
	uint64_t ts_fp;
	uint64_t mean_fp;        /* mean gap between messages */
	uint64_t window_ns;      /* a packet closes when its span exceeds this */

	/* The MoldUDP64 packet being filled. */
	uint8_t pay[FG_MAX_UDP_PAYLOAD];
	size_t pay_len;
	size_t last_blk;         /* payload offset of the last block */
	unsigned pkt_count;
	uint8_t pkt_types[FG_MAX_BLOCKS];
	uint64_t pkt_seq;
	uint64_t pkt_first_ns, pkt_last_ns;
	uint64_t next_seq;

	/* Output. */
	pcap_t *pd;
	pcap_dumper_t *dump;
	FILE *list;
	uint8_t frame[FG_MAX_FRAME];
	uint16_t ip_id;
	uint64_t data_pkts;
	pcap_dumper_t *dump_b;
	uint8_t frame_b[FG_MAX_FRAME];

	/* Truth counters. Line A is the --out capture: its view and
	 * type_count include the exchange's gaps and A's losses. */
	uint64_t frames, frames_b, heartbeats;
	struct fg_view a, b, ab;
	uint64_t lost_a, lost_b, lost_both, lost_both_messages;
	uint64_t dups, truncs, corrupts;
	uint64_t type_count[256];
};

/* ------------------------------------------------------------------ */
/* Order model                                                        */

static inline uint16_t *
fg_lvl(struct fg_instr *in, int side, uint32_t price)
{
	return &in->lvl[(uint32_t)side * FG_LVL_WIN +
			(price / FG_TICK) % FG_LVL_WIN];
}

static inline int
fg_better(int side, uint32_t a, uint32_t b)
{
	return side == FG_BUY ? a > b : a < b;
}

static void
fg_lvl_add(struct fg_instr *in, int side, uint32_t price)
{
	(*fg_lvl(in, side, price))++;
	if (in->nside[side] == 0 || fg_better(side, price, in->best[side]))
		in->best[side] = price;
	in->nside[side]++;
}

/* Removes one order from its level; when that empties the best level,
 * walks away from the inside to the next non-empty one. The walk is bounded
 * because every live price lies within FG_LVL_WIN ticks. */
static void
fg_lvl_del(struct fg_instr *in, int side, uint32_t price)
{
	uint16_t *c = fg_lvl(in, side, price);
	uint32_t p = price;
	unsigned i;

	(*c)--;
	in->nside[side]--;
	if (in->nside[side] == 0 || price != in->best[side] || *c != 0)
		return;
	for (i = 0; i < FG_LVL_WIN; i++) {
		p = side == FG_BUY ? p - FG_TICK : p + FG_TICK;
		if (*fg_lvl(in, side, p) != 0) {
			in->best[side] = p;
			return;
		}
	}
	fprintf(stderr, FG_NAME ": internal error: price level walk\n");
	abort();
}

static void
fg_order_add(struct fg_instr *in, const struct fg_order *o)
{
	if (in->n == in->cap) {
		uint32_t cap = in->cap ? in->cap * 2 : 64;
		struct fg_order *p = realloc(in->ord, cap * sizeof(*p));

		if (p == NULL) {
			fprintf(stderr, FG_NAME ": out of memory\n");
			exit(1);
		}
		in->ord = p;
		in->cap = cap;
	}
	in->ord[in->n++] = *o;
	fg_lvl_add(in, o->side, o->price);
}

static void
fg_order_del(struct fg_instr *in, uint32_t j)
{
	fg_lvl_del(in, in->ord[j].side, in->ord[j].price);
	in->ord[j] = in->ord[--in->n];
}

/* A new order's price: a few ticks behind the mid on its side, and never
 * at or through the opposite best, so the book never locks or crosses.
 * Bids stay >= lo - FG_MAX_OFF_TICKS ticks (a clamped bid sits one tick
 * under an ask, and asks are never below lo + 1 tick) and asks stay
 * <= hi + FG_MAX_OFF_TICKS ticks, which bounds the live span. */
static uint32_t
fg_new_price(struct fg *g, const struct fg_instr *in, int side)
{
	uint32_t r = hgw_rng_below(&g->rng, 100);
	uint32_t k, p;

	if (r < 40)
		k = 1;
	else if (r < 65)
		k = 2;
	else if (r < 80)
		k = 3;
	else
		k = 4 + hgw_rng_below(&g->rng, FG_MAX_OFF_TICKS - 3);
	if (side == FG_BUY) {
		p = in->mid - k * FG_TICK;
		if (in->nside[FG_SELL] && p >= in->best[FG_SELL])
			p = in->best[FG_SELL] - FG_TICK;
	} else {
		p = in->mid + k * FG_TICK;
		if (in->nside[FG_BUY] && p <= in->best[FG_BUY])
			p = in->best[FG_BUY] + FG_TICK;
	}
	return p;
}

/* Order sizes: mostly one round lot, some several, some odd lots. */
static uint32_t
fg_new_shares(struct fg *g)
{
	uint32_t r = hgw_rng_below(&g->rng, 100);

	if (r < 55)
		return 100;
	if (r < 80)
		return 100 * (2 + hgw_rng_below(&g->rng, 4));
	if (r < 90)
		return 100 * (6 + hgw_rng_below(&g->rng, 45));
	return 1 + hgw_rng_below(&g->rng, 99);
}

/* Part of an order (1 .. shares - 1; whole lots when it has several). */
static uint32_t
fg_partial(struct fg *g, uint32_t shares)
{
	if (shares >= 200)
		return 100 * (1 + hgw_rng_below(&g->rng, shares / 100 - 1));
	return 1 + hgw_rng_below(&g->rng, shares - 1);
}

/* ------------------------------------------------------------------ */
/* Frames                                                             */

/* Builds the full frame carrying a MoldUDP64 payload to group with IPv4
 * identification id into f and returns its length. */
static size_t
fg_frame_to(const struct fg *g, uint8_t *f, uint32_t group, uint16_t id,
	    const uint8_t *pay, size_t plen)
{
	const struct hgw_mcast_addr a = {
		.src = g->o.src, .group = group, .sport = FG_UDP_SRC_PORT,
		.dport = (uint16_t)g->o.port, .vlan = (uint16_t)g->o.vlan,
	};

	return hgw_mcast_frame(f, &a, id, pay, plen);
}

/* Builds line A's frame into g->frame and returns its length. Each call
 * uses the next IPv4 identification. */
static size_t
fg_build_frame(struct fg *g, const uint8_t *pay, size_t plen)
{
	return fg_frame_to(g, g->frame, g->o.group, g->ip_id++, pay, plen);
}

/* Writes len bytes of frame to dump with the pcap time of ITCH time ns. */
static void
fg_dump(pcap_dumper_t *dump, const uint8_t *frame, size_t len, uint64_t ns)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(FG_PCAP_EPOCH + ns / FG_NS_PER_SEC);
	h.ts.tv_usec = (suseconds_t)((ns % FG_NS_PER_SEC) / 1000);
	h.caplen = (bpf_u_int32)len;
	h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)dump, &h, frame);
}

/* Writes len bytes of g->frame to line A with the pcap time of ITCH time
 * ns, and its --list line. */
static void
fg_write(struct fg *g, size_t len, uint64_t ns, uint64_t seq, unsigned count)
{
	fg_dump(g->dump, g->frame, len, ns);
	g->frames++;
	if (g->list)
		fprintf(g->list, "%s %" PRIu64 " %u %zu\n", g->o.session_trim,
			seq, count, len);
}

/* Writes line B's copy of a frame of line A: the same payload and IPv4
 * identification id, to --group-b, at the same pcap time. */
static void
fg_write_b(struct fg *g, uint16_t id, const uint8_t *pay, size_t plen,
	   uint64_t ns)
{
	size_t len;

	g->frames_b++;           /* counted for the truth even unwritten */
	if (g->dump_b == NULL)
		return;
	len = fg_frame_to(g, g->frame_b, g->o.group_b, id, pay, plen);
	fg_dump(g->dump_b, g->frame_b, len, ns);
}

static void
fg_mold_hdr(const struct fg *g, uint8_t *p, uint64_t seq, unsigned count)
{
	memcpy(p, g->o.session, 10);
	hgw_put_be64(p + 10, seq);
	hgw_put_be16(p + 18, (uint16_t)count);
}

/* A heartbeat (count 0) or end of session (count 0xFFFF) carrying the next
 * expected sequence number, on both lines: these are never lost. */
static void
fg_control(struct fg *g, unsigned count, uint64_t ns)
{
	uint8_t p[FG_MOLD_HDR];
	uint16_t id = g->ip_id;
	size_t len;

	fg_mold_hdr(g, p, g->next_seq, count);
	len = fg_build_frame(g, p, sizeof(p));
	fg_write(g, len, ns, g->next_seq, count);
	fg_write_b(g, id, p, sizeof(p), ns);
}

static inline int
fg_every(uint64_t n, uint64_t every)
{
	return every != 0 && n % every == 0;
}

/* One data packet of count messages, missing or not, as a view sees it. */
static void
fg_see(struct fg_view *v, int missing, unsigned count)
{
	if (missing) {
		if (!v->prev_missing)
			v->gaps++;
		v->prev_missing = 1;
		v->gap_messages += count;
	} else {
		v->prev_missing = 0;
		v->messages += count;
	}
}

/* Closes the packet being filled: applies the fault schedule, writes its
 * frames, and a heartbeat when one is due. Data packets are numbered from
 * 1 including gapped ones (sent by the exchange, lost on the way), so
 * "every N" schedules and heartbeats do not shift when gaps are on.
 *
 * The lines: the exchange sends each packet that --gap-every does not
 * remove on both lines; then each line loses it independently (--loss-a,
 * --loss-b). A packet lost on a line leaves nothing there: the other
 * faults (dup, truncate, corrupt) are line A's and apply only to packets
 * that A receives. Line B's copy has line A's IPv4 identification, so
 * the two differ only in the group and the checksums. */
static void
fg_flush(struct fg *g)
{
	uint64_t n;
	unsigned i;
	size_t len;
	uint16_t id;
	int gapped, lost_a, lost_b;

	if (g->pkt_count == 0)
		return;
	n = ++g->data_pkts;
	fg_mold_hdr(g, g->pay, g->pkt_seq, g->pkt_count);

	/* Both draws for every data packet, whatever the rates: each line's
	 * pattern depends only on --loss-seed and its own rate. */
	lost_a = hgw_rng_below(&g->loss_rng, 1000000) < g->o.loss_ppm[0];
	lost_b = hgw_rng_below(&g->loss_rng, 1000000) < g->o.loss_ppm[1];
	gapped = fg_every(n, g->o.gap_every);
	if (gapped)
		lost_a = lost_b = 0;     /* never sent: not a line's loss */
	g->lost_a += (uint64_t)lost_a;
	g->lost_b += (uint64_t)lost_b;
	if (lost_a && lost_b) {
		g->lost_both++;
		g->lost_both_messages += g->pkt_count;
	}
	fg_see(&g->a, gapped || lost_a, g->pkt_count);
	fg_see(&g->b, gapped || lost_b, g->pkt_count);
	fg_see(&g->ab, gapped || (lost_a && lost_b), g->pkt_count);

	id = g->ip_id;
	if (gapped) {
		/* the exchange's gap: no identification used */
	} else if (lost_a) {
		g->ip_id++;              /* sent on A, lost on the way */
	} else {
		if (fg_every(n, g->o.trunc_every)) {
			/* Cut in the middle of the last block's message bytes;
			 * IPv4 and UDP lengths still claim the whole packet. */
			size_t mlen = hgw_be16(g->pay + g->last_blk);
			size_t cut = g->pay_len - (mlen - mlen / 2);

			len = fg_build_frame(g, g->pay, g->pay_len);
			len -= g->pay_len - cut;
			fg_write(g, len, g->pkt_last_ns, g->pkt_seq, g->pkt_count);
			g->truncs++;
		}
		if (fg_every(n, g->o.corrupt_every)) {
			/* One more message claimed than present; lengths and
			 * checksums consistent. */
			hgw_put_be16(g->pay + 18, (uint16_t)(g->pkt_count + 1));
			len = fg_build_frame(g, g->pay, g->pay_len);
			fg_write(g, len, g->pkt_last_ns, g->pkt_seq,
				 g->pkt_count + 1);
			hgw_put_be16(g->pay + 18, (uint16_t)g->pkt_count);
			g->corrupts++;
		}
		id = g->ip_id;
		len = fg_build_frame(g, g->pay, g->pay_len);
		fg_write(g, len, g->pkt_last_ns, g->pkt_seq, g->pkt_count);
		for (i = 0; i < g->pkt_count; i++)
			g->type_count[g->pkt_types[i]]++;
		if (fg_every(n, g->o.dup_every)) {
			/* Same bytes again, as a duplicated datagram. */
			fg_write(g, len, g->pkt_last_ns, g->pkt_seq,
				 g->pkt_count);
			g->dups++;
		}
	}
	if (!gapped && !lost_b)
		fg_write_b(g, id, g->pay, g->pay_len, g->pkt_last_ns);
	g->pkt_count = 0;

	if (fg_every(n, g->o.heartbeats)) {
		/* A heartbeat carries the next expected sequence, so the
		 * receiver sees any gap before it: a later missing packet
		 * starts a new gap, on either line and on both. */
		fg_control(g, 0, g->pkt_last_ns);
		g->heartbeats++;
		g->a.prev_missing = 0;
		g->b.prev_missing = 0;
		g->ab.prev_missing = 0;
	}
}

/* The ITCH time of the next message; advances the clock by a jittered gap
 * whose mean is 1/rate: half are bursts (0 .. mean/4), 7/16 ordinary
 * (0 .. 2 mean), 1/16 lulls (0 .. 16 mean). Integer only, so it is the
 * same on every host. Saturates just before midnight. */
static uint64_t
fg_clock(struct fg *g)
{
	uint64_t ns = g->ts_fp >> FG_TS_FRAC;
	uint64_t r = hgw_rng_next(&g->rng);
	uint64_t span, gap;
	unsigned kind = (unsigned)(r & 15);

	if (kind < 8)
		span = g->mean_fp / 4;
	else if (kind < 15)
		span = g->mean_fp * 2;
	else
		span = g->mean_fp * 16;
	/* Uniform in [0, span): floor(u * span / 2^32) for the 32-bit u in
	 * the high bits, split so no product overflows. */
	gap = (r >> 32) * (span >> 32) +
	      (((r >> 32) * (span & 0xffffffffu)) >> 32);
	g->ts_fp += gap;
	if ((g->ts_fp >> FG_TS_FRAC) >= FG_DAY_NS)
		g->ts_fp = (FG_DAY_NS - 1) << FG_TS_FRAC;
	return ns;
}

/* Appends one ITCH message to the current packet, closing it first when it
 * is full (count, 1400-byte payload) or the message is too late for it. */
static void
fg_emit(struct fg *g, const void *msg, size_t len, uint64_t ns)
{
	if (g->pkt_count != 0 &&
	    (g->pkt_count >= g->o.per_packet ||
	     g->pay_len + 2 + len > FG_MAX_UDP_PAYLOAD ||
	     ns - g->pkt_first_ns > g->window_ns))
		fg_flush(g);
	if (g->pkt_count == 0) {
		g->pkt_seq = g->next_seq;
		g->pkt_first_ns = ns;
		g->pay_len = FG_MOLD_HDR;
	}
	g->last_blk = g->pay_len;
	hgw_put_be16(g->pay + g->pay_len, (uint16_t)len);
	memcpy(g->pay + g->pay_len + 2, msg, len);
	g->pay_len += 2 + len;
	g->pkt_types[g->pkt_count++] = *(const uint8_t *)msg;
	g->pkt_last_ns = ns;
	g->next_seq++;
}

/* ------------------------------------------------------------------ */
/* ITCH messages                                                      */

static void
fg_hdr(struct hgw_itch_hdr *h, uint8_t type, uint16_t locate, uint64_t ns)
{
	h->type = type;
	hgw_put_be16(h->locate, locate);
	hgw_put_be16(h->tracking, 0);
	hgw_put_be48(h->timestamp, ns);
}

static void
fg_system_event(struct fg *g, uint8_t code)
{
	struct hgw_itch_system_event m;
	uint64_t ns = fg_clock(g);

	memset(&m, 0, sizeof(m));
	fg_hdr(&m.h, HGW_ITCH_SYSTEM_EVENT, 0, ns);
	m.event_code = code;
	fg_emit(g, &m, sizeof(m), ns);
}

static void
fg_directory(struct fg *g, uint32_t i)
{
	struct hgw_itch_stock_directory m;
	uint64_t ns = fg_clock(g);

	memset(&m, 0, sizeof(m));
	fg_hdr(&m.h, HGW_ITCH_STOCK_DIRECTORY, (uint16_t)(i + 1), ns);
	memcpy(m.stock, g->ins[i].stock, sizeof(m.stock));
	m.market_category = 'Q';          /* Nasdaq Global Select */
	m.financial_status = 'N';         /* normal */
	hgw_put_be32(m.round_lot_size, 100);
	m.round_lots_only = 'N';
	m.issue_classification = 'C';     /* common stock */
	memcpy(m.issue_subtype, "C ", 2); /* common shares */
	m.authenticity = 'P';             /* live / production */
	m.short_sale_threshold = 'N';
	m.ipo_flag = 'N';
	m.luld_tier = '1';
	m.etp_flag = 'N';
	hgw_put_be32(m.etp_leverage, 0);
	m.inverse = 'N';
	fg_emit(g, &m, sizeof(m), ns);
}

static const char fg_mpids[][4] = {
	{'G', 'S', 'C', 'O'}, {'M', 'S', 'C', 'O'}, {'U', 'B', 'S', 'S'},
	{'N', 'I', 'T', 'E'}, {'C', 'D', 'R', 'G'}, {'J', 'P', 'M', 'S'},
	{'V', 'I', 'R', 'T'}, {'A', 'R', 'C', 'A'},
};

static void
fg_add(struct fg *g, struct fg_instr *in, uint16_t locate, uint64_t ns,
       int mpid)
{
	struct hgw_itch_add_order_mpid m;
	struct fg_order o;

	o.side = hgw_rng_below(&g->rng, 2) ? FG_SELL : FG_BUY;
	o.price = fg_new_price(g, in, o.side);
	o.shares = fg_new_shares(g);
	o.ref = g->next_ref++;
	fg_order_add(in, &o);

	memset(&m, 0, sizeof(m));
	fg_hdr(&m.a.h, mpid ? HGW_ITCH_ADD_ORDER_MPID : HGW_ITCH_ADD_ORDER,
	       locate, ns);
	hgw_put_be64(m.a.order_ref, o.ref);
	m.a.side = o.side == FG_BUY ? 'B' : 'S';
	hgw_put_be32(m.a.shares, o.shares);
	memcpy(m.a.stock, in->stock, sizeof(m.a.stock));
	hgw_put_be32(m.a.price, o.price);
	if (mpid) {
		memcpy(m.attribution,
		       fg_mpids[hgw_rng_below(&g->rng, sizeof(fg_mpids) /
					 sizeof(fg_mpids[0]))], 4);
		fg_emit(g, &m, sizeof(m), ns);
	} else {
		fg_emit(g, &m.a, sizeof(m.a), ns);
	}
}

/* Executions mostly hit the inside: the best placed of four random live
 * orders (distance from its side's best price). */
static uint32_t
fg_pick_exec(struct fg *g, const struct fg_instr *in)
{
	uint32_t best = 0, best_d = UINT32_MAX;
	int k;

	for (k = 0; k < 4; k++) {
		uint32_t j = hgw_rng_below(&g->rng, in->n);
		const struct fg_order *o = &in->ord[j];
		uint32_t d = o->side == FG_BUY ? in->best[FG_BUY] - o->price :
						 o->price - in->best[FG_SELL];

		if (d < best_d) {
			best_d = d;
			best = j;
		}
	}
	return best;
}

static void
fg_execute(struct fg *g, struct fg_instr *in, uint16_t locate, uint64_t ns,
	   int with_price)
{
	struct hgw_itch_order_executed_px m;
	uint32_t j = fg_pick_exec(g, in);
	struct fg_order *o = &in->ord[j];
	uint32_t x = o->shares;

	if (o->shares > 1 && hgw_rng_below(&g->rng, 10) >= 6)
		x = fg_partial(g, o->shares);

	memset(&m, 0, sizeof(m));
	fg_hdr(&m.e.h, with_price ? HGW_ITCH_ORDER_EXECUTED_PX :
				    HGW_ITCH_ORDER_EXECUTED, locate, ns);
	hgw_put_be64(m.e.order_ref, o->ref);
	hgw_put_be32(m.e.executed_shares, x);
	hgw_put_be64(m.e.match_number, g->next_match++);
	if (with_price) {
		/* A price other than the displayed one (non-displayed or
		 * cross executions): within a tick of it. */
		uint32_t r = hgw_rng_below(&g->rng, 3);
		uint32_t px = o->price + FG_TICK * r - FG_TICK;

		m.printable = hgw_rng_below(&g->rng, 4) ? 'Y' : 'N';
		hgw_put_be32(m.execution_price, px);
	}
	o->shares -= x;
	if (o->shares == 0)
		fg_order_del(in, j);
	if (with_price)
		fg_emit(g, &m, sizeof(m), ns);
	else
		fg_emit(g, &m.e, sizeof(m.e), ns);
}

static void
fg_cancel(struct fg *g, struct fg_instr *in, uint16_t locate, uint64_t ns)
{
	struct hgw_itch_order_cancel m;
	uint32_t j = hgw_rng_below(&g->rng, in->n);
	struct fg_order *o = &in->ord[j];
	uint32_t x = o->shares;

	/* Mostly partial; a fifth cancel the whole remainder. */
	if (o->shares > 1 && hgw_rng_below(&g->rng, 5) != 0)
		x = fg_partial(g, o->shares);

	memset(&m, 0, sizeof(m));
	fg_hdr(&m.h, HGW_ITCH_ORDER_CANCEL, locate, ns);
	hgw_put_be64(m.order_ref, o->ref);
	hgw_put_be32(m.cancelled_shares, x);
	o->shares -= x;
	if (o->shares == 0)
		fg_order_del(in, j);
	fg_emit(g, &m, sizeof(m), ns);
}

static void
fg_delete(struct fg *g, struct fg_instr *in, uint16_t locate, uint64_t ns)
{
	struct hgw_itch_order_delete m;
	uint32_t j = hgw_rng_below(&g->rng, in->n);

	memset(&m, 0, sizeof(m));
	fg_hdr(&m.h, HGW_ITCH_ORDER_DELETE, locate, ns);
	hgw_put_be64(m.order_ref, in->ord[j].ref);
	fg_order_del(in, j);
	fg_emit(g, &m, sizeof(m), ns);
}

static void
fg_replace(struct fg *g, struct fg_instr *in, uint16_t locate, uint64_t ns)
{
	struct hgw_itch_order_replace m;
	uint32_t j = hgw_rng_below(&g->rng, in->n);
	struct fg_order *o = &in->ord[j];

	memset(&m, 0, sizeof(m));
	fg_hdr(&m.h, HGW_ITCH_ORDER_REPLACE, locate, ns);
	hgw_put_be64(m.original_ref, o->ref);
	/* Leave the old level first so the new price is clamped against the
	 * book without the order being replaced. */
	fg_lvl_del(in, o->side, o->price);
	o->ref = g->next_ref++;
	o->shares = fg_new_shares(g);
	o->price = fg_new_price(g, in, o->side);
	fg_lvl_add(in, o->side, o->price);
	hgw_put_be64(m.new_ref, o->ref);
	hgw_put_be32(m.shares, o->shares);
	hgw_put_be32(m.price, o->price);
	fg_emit(g, &m, sizeof(m), ns);
}

/* A non-cross trade against a hidden order: inside the spread, reference
 * 0 or a fresh reference that never rests on the book. */
static void
fg_trade(struct fg *g, struct fg_instr *in, uint16_t locate, uint64_t ns)
{
	struct hgw_itch_trade m;
	uint32_t px = in->mid;
	uint64_t ref = 0;

	if (in->nside[FG_BUY] && in->nside[FG_SELL])
		px = (in->best[FG_BUY] + in->best[FG_SELL]) / 2 / FG_TICK *
		     FG_TICK;
	if (hgw_rng_below(&g->rng, 2))
		ref = g->next_ref++;

	memset(&m, 0, sizeof(m));
	fg_hdr(&m.h, HGW_ITCH_TRADE, locate, ns);
	hgw_put_be64(m.order_ref, ref);
	m.side = hgw_rng_below(&g->rng, 2) ? 'S' : 'B';
	hgw_put_be32(m.shares, 100 * (1 + hgw_rng_below(&g->rng, 5)));
	memcpy(m.stock, in->stock, sizeof(m.stock));
	hgw_put_be32(m.price, px);
	hgw_put_be64(m.match_number, g->next_match++);
	fg_emit(g, &m, sizeof(m), ns);
}

/* One body message. Mix (per mille): A 400, F 40, D 340, U 100, X 50,
 * E 40, C 10, P 20. Above an instrument's target live count, adds turn
 * into deletes with a probability growing to 1 at 1.5 x target; orders
 * events on an instrument without live orders fall back to an add. */
static void
fg_body(struct fg *g)
{
	uint32_t idx = hgw_rng_below(&g->rng, g->o.instruments);
	struct fg_instr *in = &g->ins[idx];
	uint16_t locate = (uint16_t)(idx + 1);
	uint32_t r;
	uint64_t ns;
	char kind;

	/* Mid random walk, reflected at its bounds. */
	r = hgw_rng_below(&g->rng, 32);
	if (r == 0)
		in->mid = in->mid + FG_TICK <= in->hi ? in->mid + FG_TICK :
							in->mid - FG_TICK;
	else if (r == 1)
		in->mid = in->mid - FG_TICK >= in->lo ? in->mid - FG_TICK :
							in->mid + FG_TICK;

	r = hgw_rng_below(&g->rng, 1000);
	if (r < 400)
		kind = 'A';
	else if (r < 440)
		kind = 'F';
	else if (r < 780)
		kind = 'D';
	else if (r < 880)
		kind = 'U';
	else if (r < 930)
		kind = 'X';
	else if (r < 970)
		kind = 'E';
	else if (r < 980)
		kind = 'C';
	else
		kind = 'P';

	if ((kind == 'A' || kind == 'F') && in->n > in->target &&
	    hgw_rng_below(&g->rng, in->target / 2) < in->n - in->target)
		kind = 'D';
	if (in->n == 0 && kind != 'A' && kind != 'F' && kind != 'P')
		kind = 'A';

	ns = fg_clock(g);
	switch (kind) {
	case 'A':
		fg_add(g, in, locate, ns, 0);
		break;
	case 'F':
		fg_add(g, in, locate, ns, 1);
		break;
	case 'D':
		fg_delete(g, in, locate, ns);
		break;
	case 'U':
		fg_replace(g, in, locate, ns);
		break;
	case 'X':
		fg_cancel(g, in, locate, ns);
		break;
	case 'E':
		fg_execute(g, in, locate, ns, 0);
		break;
	case 'C':
		fg_execute(g, in, locate, ns, 1);
		break;
	default:
		fg_trade(g, in, locate, ns);
		break;
	}
}

/* Deterministic 4-letter ticker for instrument i (0-based): i scrambled
 * through a bijection of [0, 26^4), so names are unique and do not depend
 * on the seed. */
static void
fg_ticker(uint32_t i, char out[HGW_ITCH_STOCK_LEN])
{
	uint32_t v = (uint32_t)(((uint64_t)i * 7919u + 104729u) % 456976u);
	int k;

	memset(out, ' ', HGW_ITCH_STOCK_LEN);
	for (k = 3; k >= 0; k--) {
		out[k] = (char)('A' + v % 26);
		v /= 26;
	}
}

static void
fg_init_instruments(struct fg *g)
{
	uint32_t k = (uint32_t)g->o.instruments, i;

	g->ins = calloc(k, sizeof(*g->ins));
	if (g->ins == NULL) {
		fprintf(stderr, FG_NAME ": out of memory\n");
		exit(1);
	}
	for (i = 0; i < k; i++) {
		struct fg_instr *in = &g->ins[i];
		uint32_t anchor = (1000 + hgw_rng_below(&g->rng, 49001)) * FG_TICK;
		uint32_t half = anchor / 4 / FG_TICK;

		if (half > FG_WALK_TICKS)
			half = FG_WALK_TICKS;
		fg_ticker(i, in->stock);
		in->mid = anchor;
		in->lo = anchor - half * FG_TICK;
		in->hi = anchor + half * FG_TICK;
		in->target = 100 + hgw_rng_below(&g->rng, 101);
		in->lvl = calloc(2 * FG_LVL_WIN, sizeof(*in->lvl));
		if (in->lvl == NULL) {
			fprintf(stderr, FG_NAME ": out of memory\n");
			exit(1);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Truth                                                              */

/* The --truth file: "key value..." lines in a fixed order (see the tests
 * that read it); messages, gaps, type counts and drops count what a
 * receiver of line A (the --out capture) can see, while the BBO is the
 * exchange's book after every generated message, so bbo_valid is 0 once
 * any packet was missing on A. Then the lines: packets each line lost,
 * those lost on both (messages no receiver can see), what a receiver of
 * line B alone sees (b_*) and what an A/B receiver, taking the first copy
 * of each message, sees (ab_*); a heartbeat splits a run of missing
 * packets into two gaps, as it does for line A. */
static int
fg_write_truth(struct fg *g, FILE *f)
{
	uint32_t i, j;
	unsigned t;

	fprintf(f, "hgw-feedgen-truth 1\n");
	fprintf(f, "session %s\n", g->o.session_trim);
	fprintf(f, "frames %" PRIu64 "\n", g->frames);
	fprintf(f, "last_seq %" PRIu64 "\n", g->next_seq - 1);
	fprintf(f, "messages %" PRIu64 "\n", g->a.messages);
	fprintf(f, "heartbeats %" PRIu64 "\n", g->heartbeats);
	fprintf(f, "end_of_session 1\n");
	fprintf(f, "gaps %" PRIu64 "\n", g->a.gaps);
	fprintf(f, "gap_messages %" PRIu64 "\n", g->a.gap_messages);
	fprintf(f, "drop mold_duplicate %" PRIu64 "\n", g->dups);
	fprintf(f, "drop ip_truncated %" PRIu64 "\n", g->truncs);
	fprintf(f, "drop mold_truncated %" PRIu64 "\n", g->corrupts);
	for (t = 0; t < 256; t++)
		if (g->type_count[t])
			fprintf(f, "type %c %" PRIu64 "\n", (char)t,
				g->type_count[t]);
	fprintf(f, "bbo_valid %d\n", g->a.gaps == 0);
	fprintf(f, "lost_a %" PRIu64 "\n", g->lost_a);
	fprintf(f, "lost_b %" PRIu64 "\n", g->lost_b);
	fprintf(f, "lost_both_packets %" PRIu64 "\n", g->lost_both);
	fprintf(f, "lost_both_messages %" PRIu64 "\n", g->lost_both_messages);
	fprintf(f, "b_frames %" PRIu64 "\n", g->frames_b);
	fprintf(f, "b_messages %" PRIu64 "\n", g->b.messages);
	fprintf(f, "b_gaps %" PRIu64 "\n", g->b.gaps);
	fprintf(f, "b_gap_messages %" PRIu64 "\n", g->b.gap_messages);
	fprintf(f, "ab_messages %" PRIu64 "\n", g->ab.messages);
	fprintf(f, "ab_gaps %" PRIu64 "\n", g->ab.gaps);
	fprintf(f, "ab_gap_messages %" PRIu64 "\n", g->ab.gap_messages);

	for (i = 0; i < g->o.instruments; i++) {
		const struct fg_instr *in = &g->ins[i];
		uint32_t px[2] = {0, 0}, cnt[2] = {0, 0};
		uint64_t sh[2] = {0, 0};
		char name[HGW_ITCH_STOCK_LEN + 1];
		int s, n = HGW_ITCH_STOCK_LEN;

		/* Independent of the level counters: a plain scan. */
		for (j = 0; j < in->n; j++) {
			const struct fg_order *o = &in->ord[j];

			s = o->side;
			if (cnt[s] == 0 || fg_better(s, o->price, px[s])) {
				px[s] = o->price;
				sh[s] = 0;
				cnt[s] = 0;
			}
			if (o->price == px[s]) {
				sh[s] += o->shares;
				cnt[s]++;
			}
		}
		for (s = 0; s < 2; s++) {
			if ((in->nside[s] != 0) != (cnt[s] != 0) ||
			    (cnt[s] && px[s] != in->best[s])) {
				fprintf(stderr, FG_NAME ": internal error: "
					"best price tracking\n");
				abort();
			}
		}
		if (cnt[FG_BUY] && cnt[FG_SELL] && px[FG_BUY] >= px[FG_SELL]) {
			fprintf(stderr, FG_NAME ": internal error: crossed\n");
			abort();
		}
		memcpy(name, in->stock, HGW_ITCH_STOCK_LEN);
		while (n > 0 && name[n - 1] == ' ')
			n--;
		name[n] = '\0';
		fprintf(f, "bbo %" PRIu32 " %s %" PRIu32 " %" PRIu64 " %" PRIu32
			" %" PRIu32 " %" PRIu64 " %" PRIu32 "\n", i + 1, name,
			px[FG_BUY], sh[FG_BUY], cnt[FG_BUY],
			px[FG_SELL], sh[FG_SELL], cnt[FG_SELL]);
	}
	return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Options                                                            */

static void
fg_usage(FILE *f)
{
	fprintf(f,
"usage: " FG_NAME " -o FILE.pcap [options]\n"
"Writes a deterministic Nasdaq TotalView-ITCH 5.0 session over\n"
"Ethernet/[802.1Q]/IPv4/UDP multicast/MoldUDP64 as a pcap.\n"
"  -o, --out FILE          pcap to write, - for stdout (required)\n"
"      --truth FILE        ground truth for tests\n"
"      --list FILE         one line per frame: SESSION SEQ COUNT LEN\n"
"      --seed S            PRNG seed (default 1)\n"
"      --instruments K     instruments, locates 1..K (default 8, max 65535)\n"
"      --messages N        body messages (default 100000)\n"
"      --per-packet M      max messages per MoldUDP64 packet, 1..98\n"
"                          (default 4; payload never above 1400 bytes)\n"
"      --rate R            messages per second (default 200000)\n"
"      --session S         MoldUDP64 session, 1..10 printable chars, no\n"
"                          spaces (default HGW0000001)\n"
"      --group A.B.C.D     multicast group (default 233.54.12.111)\n"
"      --port P            UDP destination port (default 26477)\n"
"      --src A.B.C.D       source address (default 10.1.1.1)\n"
"      --vlan V            802.1Q VLAN id, 0 = untagged (default 0)\n"
"      --heartbeats N      heartbeat after every N data packets (default 0)\n"
"      --gap-every N       drop data packets N, 2N, ... (default 0 = off)\n"
"      --dup-every N       write them twice\n"
"      --truncate-every N  precede them with a cut-short copy\n"
"      --corrupt-every N   precede them with a copy claiming one more message\n"
"      --line-b FILE       also write line B: the same packets at the same\n"
"                          times to --group-b (same bytes but the group, the\n"
"                          multicast MAC and the checksums); heartbeats and\n"
"                          the end of session go to both lines\n"
"      --group-b A.B.C.D   line B's group (default: --group)\n"
"      --loss-a PCT        line A loses each data packet with probability\n"
"                          PCT percent, 0..100, up to 4 decimals (default 0)\n"
"      --loss-b PCT        the same for line B, drawn independently\n"
"      --loss-seed S       seed of the losses' own PRNG (default 1); without\n"
"                          losses the capture does not depend on it\n"
"  -q, --quiet             no summary line\n"
"  -h, --help              this text\n"
"Lines and faults: --gap-every packets are never sent, on either line; each\n"
"line then loses packets on its own (--loss-a, --loss-b); --dup-every,\n"
"--truncate-every and --corrupt-every apply to line A only, to the packets\n"
"A receives. --out is line A: --list and the truth's messages, gaps, type\n"
"and drop lines are A's; the truth's b_* lines are line B's and ab_* an A/B\n"
"receiver's (the first copy of each message).\n");
}

/* Strict values: hgw_cli.h, shared by the tools. */
#define fg_bad(opt, val) hgw_cli_bad(FG_NAME, opt, val)
#define fg_num(opt, s, min, max) hgw_cli_num(FG_NAME, opt, s, min, max)

static uint32_t
fg_addr(const char *opt, const char *s, int want_mcast)
{
	struct in_addr a;
	uint32_t v;

	if (inet_pton(AF_INET, s, &a) != 1)
		fg_bad(opt, s);
	v = ntohl(a.s_addr);
	if (want_mcast ? (v >> 28) != 0xe :
			 ((v >> 28) >= 0xe || v == 0))
		fg_bad(opt, s);
	return v;
}

enum {
	OPT_SEED = 256, OPT_INSTRUMENTS, OPT_MESSAGES, OPT_PER_PACKET,
	OPT_RATE, OPT_SESSION, OPT_GROUP, OPT_PORT, OPT_SRC, OPT_VLAN,
	OPT_HEARTBEATS, OPT_GAP, OPT_DUP, OPT_TRUNC, OPT_CORRUPT, OPT_TRUTH,
	OPT_LIST, OPT_LINE_B, OPT_GROUP_B, OPT_LOSS_A, OPT_LOSS_B,
	OPT_LOSS_SEED,
};

static const struct option fg_longopts[] = {
	{"seed", required_argument, NULL, OPT_SEED},
	{"instruments", required_argument, NULL, OPT_INSTRUMENTS},
	{"messages", required_argument, NULL, OPT_MESSAGES},
	{"per-packet", required_argument, NULL, OPT_PER_PACKET},
	{"rate", required_argument, NULL, OPT_RATE},
	{"session", required_argument, NULL, OPT_SESSION},
	{"group", required_argument, NULL, OPT_GROUP},
	{"port", required_argument, NULL, OPT_PORT},
	{"src", required_argument, NULL, OPT_SRC},
	{"vlan", required_argument, NULL, OPT_VLAN},
	{"heartbeats", required_argument, NULL, OPT_HEARTBEATS},
	{"gap-every", required_argument, NULL, OPT_GAP},
	{"dup-every", required_argument, NULL, OPT_DUP},
	{"truncate-every", required_argument, NULL, OPT_TRUNC},
	{"corrupt-every", required_argument, NULL, OPT_CORRUPT},
	{"out", required_argument, NULL, 'o'},
	{"truth", required_argument, NULL, OPT_TRUTH},
	{"list", required_argument, NULL, OPT_LIST},
	{"line-b", required_argument, NULL, OPT_LINE_B},
	{"group-b", required_argument, NULL, OPT_GROUP_B},
	{"loss-a", required_argument, NULL, OPT_LOSS_A},
	{"loss-b", required_argument, NULL, OPT_LOSS_B},
	{"loss-seed", required_argument, NULL, OPT_LOSS_SEED},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void
fg_session(struct fg_opts *o, const char *s)
{
	size_t len = strlen(s), i;

	/* Printable, no spaces: the padding is ours, and --list lines stay
	 * space separated. */
	if (len == 0 || len > 10)
		fg_bad("session", s);
	for (i = 0; i < len; i++)
		if (s[i] <= 0x20 || s[i] > 0x7e)
			fg_bad("session", s);
	memset(o->session, ' ', sizeof(o->session));
	memcpy(o->session, s, len);
	memcpy(o->session_trim, s, len);
	o->session_trim[len] = '\0';
}

/* A percentage 0..100 with up to 4 decimals, in parts per million:
 * integer parsing, so the same text gives the same losses everywhere. */
static uint32_t
fg_pct(const char *opt, const char *s)
{
	uint32_t v = 0, scale = 10000;
	const char *p = s;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits == 3)
			fg_bad(opt, s);
		v = v * 10 + (uint32_t)(*p - '0');
	}
	if (digits == 0)
		fg_bad(opt, s);
	v *= 10000;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			fg_bad(opt, s);
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale == 1)
				fg_bad(opt, s);
			scale /= 10;
			v += (uint32_t)(*p - '0') * scale;
		}
	}
	if (*p != '\0' || v > 1000000)
		fg_bad(opt, s);
	return v;
}

static void
fg_parse(struct fg_opts *o, int argc, char **argv)
{
	const uint64_t big = 1000000000000ull;   /* 10^12 */
	int c;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->instruments = 8;
	o->messages = 100000;
	o->per_packet = 4;
	o->rate = 200000;
	fg_session(o, "HGW0000001");
	o->group = 0xe9360c6f;                   /* 233.54.12.111 */
	o->src = 0x0a010101;                     /* 10.1.1.1 */
	o->port = 26477;
	o->loss_seed = 1;

	while ((c = getopt_long(argc, argv, "o:qh", fg_longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SEED:
			o->seed = fg_num("seed", optarg, 0, UINT64_MAX);
			break;
		case OPT_INSTRUMENTS:
			o->instruments = fg_num("instruments", optarg, 1, 65535);
			break;
		case OPT_MESSAGES:
			o->messages = fg_num("messages", optarg, 0, big);
			break;
		case OPT_PER_PACKET:
			o->per_packet = fg_num("per-packet", optarg, 1,
					       FG_MAX_BLOCKS);
			break;
		case OPT_RATE:
			o->rate = fg_num("rate", optarg, 1, 1000000000);
			break;
		case OPT_SESSION:
			fg_session(o, optarg);
			break;
		case OPT_GROUP:
			o->group = fg_addr("group", optarg, 1);
			break;
		case OPT_PORT:
			o->port = fg_num("port", optarg, 1, 65535);
			break;
		case OPT_SRC:
			o->src = fg_addr("src", optarg, 0);
			break;
		case OPT_VLAN:
			o->vlan = fg_num("vlan", optarg, 0, 4094);
			break;
		case OPT_HEARTBEATS:
			o->heartbeats = fg_num("heartbeats", optarg, 0, big);
			break;
		case OPT_GAP:
			o->gap_every = fg_num("gap-every", optarg, 0, big);
			break;
		case OPT_DUP:
			o->dup_every = fg_num("dup-every", optarg, 0, big);
			break;
		case OPT_TRUNC:
			o->trunc_every = fg_num("truncate-every", optarg, 0, big);
			break;
		case OPT_CORRUPT:
			o->corrupt_every = fg_num("corrupt-every", optarg, 0, big);
			break;
		case 'o':
			if (optarg[0] == '\0')
				fg_bad("out", optarg);
			o->out = optarg;
			break;
		case OPT_TRUTH:
			if (optarg[0] == '\0')
				fg_bad("truth", optarg);
			o->truth = optarg;
			break;
		case OPT_LIST:
			if (optarg[0] == '\0')
				fg_bad("list", optarg);
			o->list = optarg;
			break;
		case OPT_LINE_B:
			if (optarg[0] == '\0')
				fg_bad("line-b", optarg);
			o->line_b = optarg;
			break;
		case OPT_GROUP_B:
			o->group_b = fg_addr("group-b", optarg, 1);
			break;
		case OPT_LOSS_A:
			o->loss_ppm[0] = fg_pct("loss-a", optarg);
			break;
		case OPT_LOSS_B:
			o->loss_ppm[1] = fg_pct("loss-b", optarg);
			break;
		case OPT_LOSS_SEED:
			o->loss_seed = fg_num("loss-seed", optarg, 0, UINT64_MAX);
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			fg_usage(stdout);
			exit(0);
		default:
			fprintf(stderr, FG_NAME ": try --help\n");
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, FG_NAME ": unexpected argument '%s'\n",
			argv[optind]);
		exit(2);
	}
	if (o->out == NULL) {
		fprintf(stderr, FG_NAME ": missing --out FILE\n");
		exit(2);
	}
	if (o->line_b == NULL && (o->group_b != 0 || o->loss_ppm[1] != 0)) {
		fprintf(stderr, FG_NAME ": --group-b and --loss-b need --line-b\n");
		exit(2);
	}
	if (o->line_b && strcmp(o->line_b, "-") == 0 &&
	    strcmp(o->out, "-") == 0) {
		fprintf(stderr, FG_NAME ": --out and --line-b both on stdout\n");
		exit(2);
	}
	if (o->group_b == 0)
		o->group_b = o->group;
	/* The session must end before midnight: expected duration with 20%
	 * margin for jitter (the clock also saturates, as a backstop). */
	if ((o->messages + 6 + o->instruments) * 12 / 10 / o->rate + 1 >=
	    86400 - 34200) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%" PRIu64, o->rate);
		fg_bad("rate", buf);
	}
}

/* A pcap writer on path (- for stdout) with a large buffer: with stdio's
 * default the write syscalls cost more than generating the feed. */
static pcap_dumper_t *
fg_open_dump(pcap_t *pd, const char *path)
{
	pcap_dumper_t *d;
	FILE *pf;

	if (strcmp(path, "-") == 0) {
		pf = stdout;
	} else {
		pf = fopen(path, "wb");
		if (pf == NULL) {
			fprintf(stderr, FG_NAME ": cannot open %s: %s\n",
				path, strerror(errno));
			exit(1);
		}
	}
	setvbuf(pf, NULL, _IOFBF, 1 << 20);
	d = pcap_dump_fopen(pd, pf);
	if (d == NULL) {
		fprintf(stderr, FG_NAME ": %s\n", pcap_geterr(pd));
		exit(1);
	}
	return d;
}

static int
fg_close_dump(pcap_dumper_t *d, const char *path)
{
	if (pcap_dump_flush(d) != 0 || ferror(pcap_dump_file(d))) {
		fprintf(stderr, FG_NAME ": write error on %s\n", path);
		return -1;
	}
	pcap_dump_close(d);
	return 0;
}

int
main(int argc, char **argv)
{
	static struct fg g;
	uint64_t x, i;
	FILE *truth = NULL;

	hgw_cli_version("hgw-feedgen", argc, argv);

	fg_parse(&g.o, argc, argv);

	x = g.o.seed;
	for (i = 0; i < 4; i++)
		g.rng.s[i] = hgw_splitmix64(&x);
	/* A different stream from --seed's even when the seeds are equal. */
	x = g.o.loss_seed ^ 0x6c6f737373656564ull;
	for (i = 0; i < 4; i++)
		g.loss_rng.s[i] = hgw_splitmix64(&x);
	g.next_ref = 1;
	g.next_match = 1;
	g.next_seq = 1;
	g.ts_fp = FG_ITCH_START_NS << FG_TS_FRAC;
	g.mean_fp = (FG_NS_PER_SEC << FG_TS_FRAC) / g.o.rate;
	g.window_ns = g.mean_fp >> (FG_TS_FRAC + 1);
	fg_init_instruments(&g);

	g.pd = pcap_open_dead(DLT_EN10MB, 65535);
	if (g.pd == NULL) {
		fprintf(stderr, FG_NAME ": pcap_open_dead failed\n");
		return 1;
	}
	g.dump = fg_open_dump(g.pd, g.o.out);
	if (g.o.line_b)
		g.dump_b = fg_open_dump(g.pd, g.o.line_b);
	if (g.o.list) {
		g.list = fopen(g.o.list, "w");
		if (g.list == NULL) {
			fprintf(stderr, FG_NAME ": cannot open %s: %s\n",
				g.o.list, strerror(errno));
			return 1;
		}
		setvbuf(g.list, NULL, _IOFBF, 1 << 20);
	}
	if (g.o.truth) {
		truth = fopen(g.o.truth, "w");
		if (truth == NULL) {
			fprintf(stderr, FG_NAME ": cannot open %s: %s\n",
				g.o.truth, strerror(errno));
			return 1;
		}
	}

	fg_system_event(&g, HGW_ITCH_EVENT_START_MESSAGES);
	fg_system_event(&g, HGW_ITCH_EVENT_START_SYSTEM);
	fg_system_event(&g, HGW_ITCH_EVENT_START_MARKET);
	for (i = 0; i < g.o.instruments; i++)
		fg_directory(&g, (uint32_t)i);
	for (i = 0; i < g.o.messages; i++)
		fg_body(&g);
	fg_system_event(&g, HGW_ITCH_EVENT_END_MARKET);
	fg_system_event(&g, HGW_ITCH_EVENT_END_SYSTEM);
	fg_system_event(&g, HGW_ITCH_EVENT_END_MESSAGES);
	fg_flush(&g);
	fg_control(&g, FG_MOLD_EOS, g.pkt_last_ns);

	if (fg_close_dump(g.dump, g.o.out) != 0 ||
	    (g.dump_b && fg_close_dump(g.dump_b, g.o.line_b) != 0))
		return 1;
	pcap_close(g.pd);
	if (g.list && fclose(g.list) != 0) {
		fprintf(stderr, FG_NAME ": write error on %s\n", g.o.list);
		return 1;
	}
	if (truth && (fg_write_truth(&g, truth) != 0 || fclose(truth) != 0)) {
		fprintf(stderr, FG_NAME ": write error on %s\n", g.o.truth);
		return 1;
	}
	/* With the pcap on stdout ("-o -") the summary would corrupt it. */
	if (!g.o.quiet && strcmp(g.o.out, "-") != 0 &&
	    (g.o.line_b == NULL || strcmp(g.o.line_b, "-") != 0)) {
		printf(FG_NAME ": %" PRIu64 " frames, %" PRIu64 " messages, "
		       "last seq %" PRIu64 " -> %s\n", g.frames, g.a.messages,
		       g.next_seq - 1, g.o.out);
		if (g.o.line_b)
			printf(FG_NAME ": line B: %" PRIu64 " frames, %" PRIu64
			       " messages -> %s; %" PRIu64 " messages lost "
			       "on both lines\n", g.frames_b, g.b.messages,
			       g.o.line_b, g.lost_both_messages);
	}
	for (i = 0; i < g.o.instruments; i++) {
		free(g.ins[i].ord);
		free(g.ins[i].lvl);
	}
	free(g.ins);
	return 0;
}
