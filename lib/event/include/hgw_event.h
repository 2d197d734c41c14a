/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: control events at a feed position, and decision digests.
 *
 * Workers are deterministic replicas only if every input a decision
 * depends on reaches every worker at the same point of the feed. The feed
 * does; control-plane changes (kill switch, disabled instruments, risk
 * limits, table patches) do not, unless they are turned into events that
 * carry the feed position before which they take effect:
 *
 *   position (session key K, sequence number S): the event takes effect
 *   just before the worker evaluates the first new message m such that
 *   m is of session K with sequence >= S, or m's session was first met
 *   after K. K = 0 means "before the first message".
 *
 * Faithful replicas see the same messages in the same order, so they take
 * every event before the same message, whatever their timing. The control
 * plane chooses a position no live worker has passed (app/hedgewire,
 * control.c says how, without making the workers wait for it).
 *
 * Each worker also folds every decision (trigger position, risk outcome,
 * the order's fields) into a running digest and publishes it at common
 * checkpoints (every 2^k sequence numbers) in a small ring; the control
 * plane compares the replicas' digests at the latest checkpoint they all
 * reached. The digest runs from the start, so one differing decision
 * shows at every later checkpoint.
 *
 * Plain C11: no DPDK, no allocation; the unit test links it alone.
 */
#ifndef HGW_EVENT_H
#define HGW_EVENT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hgw_cacheline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Event types (X-macro: code, name). */
#define HGW_EVENT_TYPES(X)                                                     \
	X(KILL,    "kill")      /* arg: 1 on, 0 off */                          \
	X(DISABLE, "disable")   /* symbol; arg: 1 disabled, 0 enabled */        \
	X(LIMIT,   "limit")     /* arg: enum hgw_risk_limit; value */           \
	X(PATCH,   "patch")     /* patch: a validated table patch */            \
	X(UNSENT,  "unsent")    /* tkey, value: a trigger whose order the   \
				 * kill switch recalled before it left;       \
				 * symbol: that session's 10-byte name */     \
	X(VENUE,   "venue")     /* venue: one answer of the venue session;  \
				 * value: its sequence number there */       \

enum hgw_event_type {
#define HGW_EVENT_ENUM(code, name) HGW_EVENT_##code,
	HGW_EVENT_TYPES(HGW_EVENT_ENUM)
#undef HGW_EVENT_ENUM
	HGW_EVENT_MAX
};

const char *hgw_event_type_name(enum hgw_event_type t);

/* Why a worker leaves the race (a bit of its announcement word, not an
 * event: app/hedgewire/control.c). */
enum hgw_leave_reason {
	HGW_LEAVE_NONE = 0,
	HGW_LEAVE_DIGEST,       /* its decisions differ from the majority's */
	HGW_LEAVE_NO_MAJORITY,  /* replicas differ and no majority exists */
	HGW_LEAVE_STUCK,        /* it takes no events (its queue is full) */
};

const char *hgw_leave_reason_name(enum hgw_leave_reason r);

struct hgw_table_patch;

/* Layouts public because events travel by value through the workers'
 * queues, the workers embed their checkpoint ring (struct hgw_ckpt_ring)
 * and hgw_event_due() runs inline per message. */

/* A VENUE event's answer: what the replicas need of an OUCH 5.0 server
 * message (the fields of struct hgw_ouch_answer that risk uses, and the
 * price for the log). */
struct hgw_event_venue {
	uint32_t user_ref;
	uint32_t orig_user_ref; /* Replaced: the order it replaced */
	uint32_t qty;
	uint8_t type;           /* the OUCH message type byte */
	uint8_t side;
	uint16_t reason;
	uint64_t price;
};

/* One event, as the control plane hands it to each worker (one SP/SC
 * queue per worker). 64 bytes, one ring element: a cache line on x86-64,
 * half of one where lines are 128 bytes (the ring, not the event, keeps
 * producer and consumer apart). */
struct hgw_event {
	uint64_t id;            /* 1, 2, ... in the order they were issued */
	uint64_t key;           /* position: session key (0: before all) */
	uint64_t seq;           /* position: sequence number */
	uint32_t type;          /* enum hgw_event_type */
	uint32_t arg;
	uint64_t value;         /* LIMIT: the new value */
	union {
		struct {
			union {
				/* PATCH: read-only, shared */
				const struct hgw_table_patch *patch;
				/* UNSENT: the trigger's session key */
				uint64_t tkey;
			};
			/* DISABLE: NUL-terminated, 1..8 chars */
			char symbol[16];
		};
		struct hgw_event_venue venue;   /* VENUE */
	};
};

_Static_assert(sizeof(struct hgw_event) == 64, "an event is 64 bytes");

/* Is a message due to take the event at (ev_key, ev_seq) first? msg_sidx
 * is the index of the message's session in the worker's first-met order,
 * ev_sidx that of the event's session (-1: not met yet). */
static inline int
hgw_event_due(uint64_t ev_key, uint64_t ev_seq, int ev_sidx, int msg_sidx,
	      uint64_t msg_seq)
{
	if (ev_key == 0)
		return 1;
	if (ev_sidx < 0)
		return 0;
	return msg_sidx > ev_sidx || (msg_sidx == ev_sidx && msg_seq >= ev_seq);
}

/* Positions a worker publishes (app/hedgewire/worker.h: its horizon, and
 * in tx-lcore mode what it handed over): one word, (sidx + 1) << 56 | seq,
 * sidx the index of the message's session in the order that worker met
 * the sessions; 0 before any message. With the word, each worker
 * publishes the sessions it met (struct hgw_pos_session, written once
 * each before the first word naming them), so that the control plane
 * places an event from what the workers published, never from their
 * decoders' state. */
#define HGW_POS_SEQ_MASK ((UINT64_C(1) << 56) - 1)
#define HGW_POS_NAME_LEN 10     /* a MoldUDP64 session name */

struct hgw_pos_session {
	uint64_t key;
	char name[HGW_POS_NAME_LEN];
};

static inline uint64_t
hgw_pos_word(uint32_t sidx, uint64_t seq)
{
	return (uint64_t)(sidx + 1) << 56 | (seq & HGW_POS_SEQ_MASK);
}

/* 1 with the session index and sequence number of a position word; 0 for
 * none (0, or an index not below nmax). */
int hgw_pos_decode(uint64_t word, uint32_t nmax, uint32_t *sidx,
		   uint64_t *seq);

/* Is the position (sidx, seq), of a worker that met the sessions met[]
 * (at least sidx + 1 of them), at or past (key, at)? A session that
 * worker met before its current one is behind it; one it has not met is
 * ahead of it. */
int hgw_pos_at_or_past(const struct hgw_pos_session *met, uint32_t sidx,
		       uint64_t seq, uint64_t key, uint64_t at);

/* The furthest of n workers' positions: word[j] is worker j's position
 * word, met[j] the sessions it published. Returns the worker (the first
 * of those furthest), with its position in *sidx, *seq; -1 when no word
 * holds a position. */
int hgw_pos_furthest(const uint64_t *word, const struct hgw_pos_session *const *met,
		     uint32_t n, uint32_t nmax, uint32_t *sidx, uint64_t *seq);

/* "kill 1", "disable ABCD 0", "limit max_position 300", "patch 3",
 * "unsent HEX SEQ", "venue SEQ TYPE USERREF QTY ORIG SIDE REASON PRICE"
 * (SIDE '-' when none): the event's type and arguments, as in the events
 * log.
 * limit_name gives a limit's name (NULL: its number). Returns the length
 * (snprintf's). */
int hgw_event_describe(const struct hgw_event *e,
		       const char *(*limit_name)(int), uint32_t patch_count,
		       char *buf, size_t len);

/* Fold one word into a running digest (a multiply-xorshift mix: every
 * bit of x reaches every bit of the result, order matters). */
static inline uint64_t
hgw_digest_fold(uint64_t d, uint64_t x)
{
	d ^= x;
	d *= 0xff51afd7ed558ccdULL;
	d ^= d >> 33;
	return d;
}

#define HGW_DIGEST_INIT 0x6a09e667f3bcc908ULL

/* Checkpoints: the last HGW_CKPT_SLOTS (position, digest) pairs a worker
 * published. One writer (the worker); readers (the control plane) read
 * a slot under its sequence word and retry or give up on a torn read. */
#define HGW_CKPT_SLOTS 256

struct hgw_ckpt_slot {
	/* Even when stable, odd while written. Writer: odd (relaxed),
	 * release fence, fields (relaxed), even (release). Reader: acquire
	 * load, fields (relaxed), acquire fence, relaxed load; equal and
	 * even: the fields belong together. */
	_Atomic uint64_t sn;
	_Atomic uint64_t key, seq, digest, decisions;
};

struct hgw_ckpt_ring {
	struct hgw_ckpt_slot slot[HGW_CKPT_SLOTS];
	/* Checkpoints published so far; release by the writer after the
	 * slot, acquire by readers: slot (n - 1) % SLOTS is the latest. */
	alignas(HGW_CACHE_LINE_SIZE) _Atomic uint64_t n;
};

_Static_assert(offsetof(struct hgw_ckpt_ring, n) % HGW_CACHE_LINE_SIZE == 0 &&
	       sizeof(struct hgw_ckpt_ring) ==
	       offsetof(struct hgw_ckpt_ring, n) + HGW_CACHE_LINE_SIZE,
	       "the publication count has a cache line of its own");

/* One checkpoint's contents. */
struct hgw_ckpt {
	uint64_t key, seq, digest, decisions;
};

/* Writer: publish a checkpoint (no allocation, no system call). */
void hgw_ckpt_publish(struct hgw_ckpt_ring *r, const struct hgw_ckpt *c);

/* Reader: the latest checkpoint. 0, or -1 if none yet or torn (retry). */
int hgw_ckpt_latest(const struct hgw_ckpt_ring *r, struct hgw_ckpt *out);

/* Reader: the checkpoint at (key, seq) if the ring still holds it.
 * 0, or -1 (not published yet, overwritten, or torn). */
int hgw_ckpt_find(const struct hgw_ckpt_ring *r, uint64_t key, uint64_t seq,
		  struct hgw_ckpt *out);

/* Majority vote over n digests: sets keep[i] = 1 for the
 * members of the largest group of equal digests when it is a strict
 * majority of n, else every keep[i] = 0 (no replica can be trusted).
 * Returns the size of the kept group (n when all agree). */
uint32_t hgw_digest_vote(const uint64_t *digest, uint32_t n, uint8_t *keep);

#ifdef __cplusplus
}
#endif

#endif /* HGW_EVENT_H */
