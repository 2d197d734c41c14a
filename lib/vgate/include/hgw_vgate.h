/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: what the owner of a venue session checks before an order
 * goes (docs/venue.md "Venue session"), shared by hedgewire's TX lcore (venue.c)
 * and hgw-dedup (downstream mode): the state file (UserRefNum floor, last
 * message received), the wall-clock rate caps (sliding windows of send
 * times), the per-instrument slots, the table of open orders; and the
 * relay datagrams hgw-dedup and hedgewire exchange in downstream mode.
 *
 * One owner thread each; no allocation after set-up; DPDK-free (times are
 * passed in, in any unit of which hz make a second).
 */
#ifndef HGW_VGATE_H
#define HGW_VGATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Layouts public because both owners (hedgewire's venue.c, hgw-dedup) map
 * the state file, keep the slots and the open-order table and use the
 * inline functions below on them per order; the relay's sizes are in
 * hgw_vgate_internal.h. */

/* The state file: one page, mapped shared. */
struct hgw_venue_state {
	char magic[8];                  /* "HGWVST1" */
	uint32_t day;                   /* YYYYMMDD, local time */
	uint32_t pad;
	/* The last UserRefNum handed to the socket today. Stored (relaxed:
	 * nobody reads it while we run; MAP_SHARED puts it in the page
	 * cache, which a SIGKILL keeps) before the send, so a crash can
	 * skip a number, never repeat one. */
	_Atomic uint64_t last_user_ref;
	/* The last sequenced message received today (the session's owner,
	 * relaxed, as above; informative). */
	_Atomic uint64_t last_seq;
	/* The last one journalled and handed to the replicas: a restart
	 * asks for the one after it. One writer, relaxed. */
	_Atomic uint64_t done_seq;
	uint64_t orders;                /* orders sent today (informative) */
	/* How the run before ended: 1 when it stopped cleanly (its Logout
	 * done), with open_at_end orders still open by its table; 0 when
	 * it did not (a crash, a SIGKILL: the run is cleared at start). */
	uint32_t ended_clean;
	uint32_t open_at_end;
};

/* Map (creating, or resetting on a new day) the state file at path; the
 * floor (last UserRefNum sent today) in *floor. NULL with a one-line
 * reason in err (naming the file) on failure. */
struct hgw_venue_state *hgw_vgate_state_map(const char *path, uint64_t *floor,
					    char *err, size_t errlen);
void hgw_vgate_state_unmap(struct hgw_venue_state *st);

/* At start, once: whether orders of an earlier run today may still be
 * open at the venue, where they may fill while this run starts flat:
 * some were sent (floor0, the floor mapped) and the last run either
 * stopped cleanly with some open (a Logout cancels nothing), or did not
 * stop cleanly and the venue does not cancel on disconnect (cod 0).
 * Then marks this run as not ended cleanly. */
int hgw_vgate_state_start(struct hgw_venue_state *st, uint64_t floor0,
			  int cod);

struct hgw_venue_open;
/* At a clean stop, after the Logout: the orders open[0..n) still holds
 * open, for the next run's hgw_vgate_state_start. */
void hgw_vgate_state_end(struct hgw_venue_state *st,
			 const struct hgw_venue_open *open, uint32_t n);

/* Sliding window: an order may go at now when fewer than cap went in
 * the last second (hz ticks), i.e. the cap-th last one is at least a
 * second old. */
static inline int
hgw_vgate_window_full(const uint64_t *times, uint32_t head, uint32_t n,
		      uint32_t cap, uint64_t now, uint64_t hz)
{
	return n == cap && now - times[head] < hz;
}

static inline void
hgw_vgate_window_add(uint64_t *times, uint32_t *head, uint32_t *n,
		     uint32_t cap, uint64_t now)
{
	if (*n < cap) {
		times[(*head + *n) % cap] = now;
		(*n)++;
	} else {
		times[*head] = now;
		*head = (*head + 1) % cap;
	}
}

struct hgw_venue_sym {
	uint64_t sym;                   /* 8 symbol bytes; 0: free slot */
	uint32_t head, n;               /* ring of send times */
};

/* The slot of symbol (8 bytes) in syms (nsyms, a power of two), taken
 * if new; NULL when full. */
static inline struct hgw_venue_sym *
hgw_vgate_sym_slot(struct hgw_venue_sym *syms, uint32_t nsyms, uint64_t sym)
{
	uint32_t h = (uint32_t)((sym * 0x9e3779b97f4a7c15ull) >> 40);

	for (uint32_t i = 0; i < nsyms; i++) {
		struct hgw_venue_sym *s = &syms[(h + i) & (nsyms - 1)];

		if (s->sym == sym)
			return s;
		if (s->sym == 0) {
			s->sym = sym;
			return s;
		}
	}
	return NULL;
}

/* An order sent and not known to be done. */
struct hgw_venue_open {
	uint32_t user_ref;
	uint32_t qty;                   /* open quantity (0: done) */
	uint64_t key, seq;              /* its trigger */
	uint32_t cancel_sent;           /* a kill's Cancel Order went, not
					 * yet answered by a Cancel Reject */
	uint32_t entered;               /* the quantity of the Enter Order */
	uint32_t filled;                /* executed so far */
	uint32_t accepted;              /* its Accepted came */
	uint32_t login;                 /* sent in the session's login N */
};

/* The open order with user_ref in open[0..n) (sorted by UserRefNum:
 * they are sent in increasing order), or NULL. */
static inline struct hgw_venue_open *
hgw_vgate_open_find(struct hgw_venue_open *open, uint32_t n, uint32_t user_ref)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (open[mid].user_ref < user_ref)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && open[lo].user_ref == user_ref ? &open[lo] : NULL;
}

/* Drop the done orders from open[0..*n) keeping the order; returns the
 * new count in *n. */
static inline void
hgw_vgate_open_compact(struct hgw_venue_open *open, uint32_t *n)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < *n; i++)
		if (open[i].qty != 0)
			open[j++] = open[i];
	*n = j;
}

/* The gate an order passes on its way to the venue, owned by the one
 * thread that sends (hedgewire's TX lcore in tx-lcore mode, hgw-dedup in
 * downstream mode): the UserRefNum floor, the wall-clock caps (orders a
 * second in all and per symbol; 0: off) and room among the open orders.
 * What else refuses an order (a session down, a contradiction, the
 * relay's keys) is the owner's, checked before hgw_vgate_admit. */
struct hgw_vgate_gate {
	uint64_t floor;                 /* UserRefNums <= this are refused */
	uint64_t hz;                    /* TSC ticks a second */
	uint32_t cap_total, cap_symbol;
	uint32_t total_head, total_n;   /* ring of the last sends' times */
	uint64_t *total_times;
	uint32_t nsyms;                 /* symbol slots (a power of two) */
	struct hgw_venue_sym *syms;
	uint64_t *sym_times;            /* nsyms x cap_symbol */
	/* orders sent and not known to be done, by UserRefNum (increasing) */
	uint32_t open_max, open_n;
	struct hgw_venue_open *open;
	uint32_t cancel_next;           /* a kill's cancels: the next */
};

/* Allocate g's tables (calloc): caps as above, nsyms symbol slots (a
 * power of two, used with cap_symbol), open_max open orders. 0, or
 * -ENOMEM (g's tables freed) / -EINVAL. */
int hgw_vgate_gate_init(struct hgw_vgate_gate *g, uint32_t cap_total,
			uint32_t cap_symbol, uint32_t nsyms, uint32_t open_max,
			uint64_t hz, uint64_t floor);
void hgw_vgate_gate_fini(struct hgw_vgate_gate *g);

/* Drop the done orders from the open table (hgw_vgate_open_compact),
 * keeping cancel_next within it. */
void hgw_vgate_gate_compact(struct hgw_vgate_gate *g);

/* With cancel_on_disconnect (cod), the first login whose orders the venue
 * has not cancelled: the current one (logins) while the session is up,
 * the next one while it is down (what was open when it dropped, the venue
 * cancelled); 0 without. */
static inline uint32_t
hgw_vgate_cod_login(int cod, uint64_t logins, int up)
{
	return cod ? (uint32_t)logins + !up : 0;
}

/* The cancels of every open order from the first again (a kill; or a
 * session lost after a login, since cancels written to it may never have
 * been read): compacts, rewinds cancel_next. 1 when a cancel is owed: an
 * order is open that was sent in login cod_login or later (a venue that
 * cancels on disconnect cancelled the earlier ones; 0: every login), as
 * hgw_vgate_cancel_run sends them. */
int hgw_vgate_gate_sweep(struct hgw_vgate_gate *g, uint32_t cod_login);

/* Open orders a Cancel Order went for that the venue has not answered
 * (a Canceled, or whatever else closed them, or a Cancel Reject); but
 * those sent before login cod_login, which a venue that cancels on
 * disconnect has cancelled (0: none such), as hgw_vgate_cancel_run. */
uint32_t hgw_vgate_gate_owed(const struct hgw_vgate_gate *g,
			     uint32_t cod_login);

/* May order ref, of the 8 symbol bytes sym, go at TSC now? In order: a
 * UserRefNum not above the floor, the cap in all, a symbol slot, the
 * symbol's cap, room among the open orders (compacted first when full).
 * HGW_VGATE_UNSENT_MAX when it may, with *slot its symbol's (NULL with
 * no per-symbol cap), for hgw_vgate_sent; else why not. Changes nothing
 * but a new symbol's slot and the compaction. */
uint32_t hgw_vgate_admit(struct hgw_vgate_gate *g, uint32_t ref,
			 uint64_t sym, uint64_t now,
			 struct hgw_venue_sym **slot);

/* An admitted order is being sent: the floor moves to ref first (a crash
 * after it skips the number, one before it has not sent the order) and
 * it takes the next open entry, returned for the caller's fields (key,
 * seq, login) and handed back with hgw_vgate_unopen if the send fails. */
struct hgw_venue_open *hgw_vgate_commit(struct hgw_vgate_gate *g,
					uint32_t ref, uint32_t qty);

/* An order already sent, learnt of after orders with higher numbers
 * (claim mode: each winning worker sends its own; the session's owner
 * takes them from several queues): its entry goes in UserRefNum order,
 * the floor to the highest sent. NULL when the table is full. */
struct hgw_venue_open *hgw_vgate_commit_sent(struct hgw_vgate_gate *g,
					     uint32_t ref, uint32_t qty);

/* The send of the order hgw_vgate_commit just opened failed: its entry
 * goes (the floor stays: the number is never used again). */
static inline void
hgw_vgate_unopen(struct hgw_vgate_gate *g)
{
	g->open_n--;
}

/* It went, at TSC now: counted in the caps' windows. */
void hgw_vgate_sent(struct hgw_vgate_gate *g, struct hgw_venue_sym *slot,
		    uint64_t now);

struct hgw_ouch_answer;
struct hgw_soup;

/* What a venue answer says that contradicts what was sent
 * (docs/venue.md "Answers that contradict what was sent"): each one a
 * kill, for the position the limits check is no longer the venue's. */
#define HGW_VGATE_LIES(X)                                                    \
	X(NONE, "none")                                                      \
	X(NOT_OPEN, "for an order that is not open (never sent, or closed)") \
	X(OVERFILL, "executes more than is open")                            \
	X(OVER_ENTERED, "holds more than was entered (less what filled)")    \
	X(ACCEPTED_AGAIN, "accepts an order accepted already")               \
	X(REPLACED, "replaces an order, and hedgewire sends no Replace Order")
enum hgw_vgate_lie {
#define HGW_VGATE_X(c, s) HGW_VGATE_LIE_##c,
	HGW_VGATE_LIES(HGW_VGATE_X)
#undef HGW_VGATE_X
	HGW_VGATE_LIE_MAX
};
const char *hgw_vgate_lie_name(uint32_t lie);

/* A contradiction: which, the answer's sequence number, type and
 * UserRefNum, what we hold open (ours) and what the answer says
 * (theirs), in shares. */
struct hgw_vgate_lie_rec {
	uint64_t seq;
	uint64_t ours, theirs;
	uint32_t lie;                   /* enum hgw_vgate_lie */
	uint32_t user_ref;
	uint8_t type;                   /* the answer's OUCH type */
	uint8_t pad[7];
};

/* A decoded venue answer a: the open order it names (if any) follows it
 * (Accepted, Modified: the quantity; Executed, Canceled: less; Rejected:
 * done). The Canceled answers to a kill's Cancel Order (reason 'U',
 * user requested) are counted in *cancelled and their shares in
 * *cancelled_qty. An answer about an order of an earlier run today
 * (UserRefNum at or below before, the floor this run started from: a
 * restart starts flat) is not checked, but for a Replaced. Returns
 * HGW_VGATE_LIE_NONE, or the contradiction
 * (described in *rec; the open table then takes the venue's word where
 * it is the larger: an order accepted for more is open for that much). */
uint32_t hgw_vgate_open_answer(struct hgw_venue_open *open, uint32_t n,
			       uint64_t before, const struct hgw_ouch_answer *a,
			       uint64_t *cancelled, uint64_t *cancelled_qty,
			       struct hgw_vgate_lie_rec *rec);

/* A kill: send a Cancel Order (quantity 0) for every open order from
 * open[*next] on, while the session takes them (*next moves on; counted
 * in *sent), but those sent before login cod_login (0: none), which the
 * venue cancelled itself when that connection dropped
 * (cancel_on_disconnect). 1 when all went, 0 when some wait for room or
 * a login. */
int hgw_vgate_cancel_run(struct hgw_soup *s, struct hgw_venue_open *open,
			 uint32_t n, uint32_t *next, uint32_t cod_login,
			 uint64_t now_ns, uint64_t *sent);

/* ---- downstream relay (docs/venue.md "Venue session", "Downstream mode") -------
 * One relay message per UDP datagram, in either direction on the link
 * between hedgewire's order port and hgw-dedup's input port. UDP payload:
 *
 *   0  4  magic "HGWR"
 *   4  8  relay sequence number, big-endian: from 1, +1 per datagram,
 *         per direction and per run of the sender
 *  12  2  length of what follows the length field (type, body, tag),
 *         big-endian
 *  14  1  type
 *  15  .. body (length - 9 bytes)
 *   .  8  tag: SipHash-2-4, big-endian, of every byte before it (magic
 *         to body) under the direction's key (hgw_relay_key_derive)
 *
 * hgw-dedup -> hedgewire:
 *   'S' sequenced: venue sequence number (8, BE) then the OUCH message
 *       exactly as it came in the SoupBinTCP Sequenced Data packet
 *   'u' unsent: session tail (4: the ClOrdID's first 4 characters, the
 *       feed session's last 4), trigger sequence number mod 10^10 (8,
 *       BE), UserRefNum (4, BE), reason (1, enum hgw_vgate_unsent)
 *   'L' session lost: lost count so far (4, BE), loss reason (1, enum
 *       hgw_soup_loss), ended for the run (1: 0/1)
 *   'A' session up: logins so far (4, BE)
 *   'C' the 'S' before it contradicts what was sent: its sequence
 *       number (8, BE), UserRefNum (4, BE), ours (8, BE), theirs (8,
 *       BE), the contradiction (1, enum hgw_vgate_lie), its type (1)
 *   'O' orders of an earlier run today may be open: the floor (8, BE)
 *   'b' leaving the link (the answer to 'B'; its last datagram)
 * hedgewire -> hgw-dedup:
 *   'K' kill switch on: kills so far (4, BE): cancel every open order
 *   'B' hedgewire leaves the link
 * A receiver takes a datagram only from its peer's MAC, IP and port, to
 * its own IP and port, with the right tag, and with a sequence number
 * above the last taken and at most HGW_RELAY_WINDOW above it; anything
 * else is dropped and counted by reason (hgw_relay_rx), never acted on.
 * (The header's length and the longest message: hgw_vgate_internal.h.)
 */

#define HGW_VGATE_UNSENT_REASONS(X)                                          \
	X(DOWN, "session down")                                              \
	X(USER_REF, "UserRefNum not above the last one sent today")          \
	X(RATE_TOTAL, "over max_orders_per_sec")                             \
	X(RATE_SYMBOL, "over max_orders_per_sec_per_symbol")                 \
	X(SYMBOLS_FULL, "too many instruments for the per-symbol cap")       \
	X(OUT_FULL, "session output buffer full")                            \
	X(OPEN_FULL, "open-order table full")                                \
	X(DROPPED, "not wholly written when the session dropped")            \
	X(CONTRADICTED, "a venue answer contradicted what was sent")        \
	X(NOT_KEYED, "the relay's keys not agreed yet")                      \
	X(EARLIER_OPEN, "orders of an earlier run may be open (no kill yet)")

enum hgw_vgate_unsent {
#define HGW_VGATE_X(c, s) HGW_VGATE_UNSENT_##c,
	HGW_VGATE_UNSENT_REASONS(HGW_VGATE_X)
#undef HGW_VGATE_X
	HGW_VGATE_UNSENT_MAX
};

const char *hgw_vgate_unsent_name(uint32_t why);

/* The key of one direction of the relay. */
struct hgw_relay_key {
	uint64_t k0, k1;                /* SipHash's key, little-endian halves */
};

#define HGW_RELAY_TAG           8
/* SipHash-2-4 of p[0..n) under k. */
uint64_t hgw_siphash24(const struct hgw_relay_key *k, const uint8_t *p,
		       size_t n);

/* The directions, each with its own key: a datagram one side sent is
 * never taken by the same side if reflected back to it. */
enum { HGW_RELAY_TO_HEDGEWIRE = 1, HGW_RELAY_TO_DEDUP = 2 };

/* The key of direction dir from the venue login the pair is configured
 * with (user, password, session; NULL as ""): both derive the same one,
 * and nobody without the password can (docs/venue.md "Downstream
 * mode"). The login's key: the run's follows from it (hgw_relay_key_run). */
void hgw_relay_key_derive(struct hgw_relay_key *k, int dir, const char *user,
			  const char *password, const char *session);

/* The run's keys (docs/venue.md "Downstream mode"). Each run of the pair
 * agrees fresh keys before any relay message: hedgewire sends a hello
 * 'H' with a nonce of its own (16 random bytes), hgw-dedup answers 'h'
 * with that nonce and one of its own, both under the login's keys
 * (hgw_relay_key_derive), and from then on each direction's messages are
 * tagged under hgw_relay_key_run(login key, both nonces): a datagram of
 * an earlier run (same login, other nonces) fails the tag. Hellos are
 * not numbered; their layout: "HGWH", kind ('H' or 'h'), the nonces (16
 * or 32 bytes), the tag (8) under the login key of their direction. */
#define HGW_RELAY_NONCE 16
struct hgw_relay_rx;
void hgw_relay_key_run(struct hgw_relay_key *run,
		       const struct hgw_relay_key *login,
		       const uint8_t nh[HGW_RELAY_NONCE],
		       const uint8_t nd[HGW_RELAY_NONCE]);
/* Write a hello of kind at buf (room for 45 bytes): the nonces are nn
 * bytes (16 for 'H', 32 for 'h'). Returns its length. */
size_t hgw_relay_hello_put(uint8_t *buf, const struct hgw_relay_key *login,
			   uint8_t kind, const uint8_t *nonces, size_t nn);
/* A received Ethernet frame f: 0 when it is a hello from the peer under
 * login (kind and its nonces out: *nn bytes, at most 32), 1 when it is
 * no hello, -1 when it was dropped (counted in rx->drops by reason). */
int hgw_relay_hello_rx(struct hgw_relay_rx *rx,
		       const struct hgw_relay_key *login, const uint8_t *f,
		       size_t len, uint8_t *kind, uint8_t *nonces, size_t *nn);
/* Tag the relay message msg (len bytes, as hgw_relay_put wrote it) again
 * under k: a message queued before the run's keys were agreed. */
void hgw_relay_retag(uint8_t *msg, size_t len, const struct hgw_relay_key *k);

/* Write a relay message at buf (room for 15 + blen + 8), tagged under k:
 * returns its length. */
size_t hgw_relay_put(uint8_t *buf, const struct hgw_relay_key *k,
		     uint64_t rseq, uint8_t type, const uint8_t *body,
		     size_t blen);

/* Parse a UDP payload as a relay message (the tag not checked: that is
 * hgw_relay_rx's): 0 with its fields (body points into p), 1 when it is
 * not a relay message (no magic), -1 when it has the magic and is
 * malformed (length). */
int hgw_relay_get(const uint8_t *p, size_t len, uint64_t *rseq,
		  uint8_t *type, const uint8_t **body, size_t *blen);

/* Why a relay datagram was dropped (checked in this order). */
#define HGW_RELAY_DROPS(X)                                                   \
	X(PEER, "not from the peer (source MAC, IP, port or destination)")  \
	X(MALFORMED, "malformed (length)")                                   \
	X(KEY, "tag wrong (not under the pair's key)")                       \
	X(OLD, "sequence number taken already")                              \
	X(AHEAD, "sequence number beyond the window")

enum hgw_relay_drop {
#define HGW_VGATE_X(c, s) HGW_RELAY_DROP_##c,
	HGW_RELAY_DROPS(HGW_VGATE_X)
#undef HGW_VGATE_X
	HGW_RELAY_DROP_MAX
};

const char *hgw_relay_drop_name(uint32_t why);

/* How far above the last taken a sequence number may be: more than a
 * sender can skip honestly (hgw-dedup numbers a datagram its backlog of
 * 16384 had no room for, and may skip a backlog's worth and more in a
 * burst), far less than the 2^64 a forged number could claim. A gap is
 * still a gap: hedgewire sets its kill switch on one. */
#define HGW_RELAY_WINDOW        (1u << 20)

/* One direction's receiving end. */
struct hgw_relay_rx {
	struct hgw_relay_key key;
	int peer_set;                   /* 0: addresses not checked (yet) */
	uint8_t peer_mac[6];
	uint16_t peer_port, our_port;
	uint32_t peer_ip, our_ip;
	uint64_t last;                  /* last sequence number taken */
	uint64_t drops[HGW_RELAY_DROP_MAX];
};

/* The peer's source MAC, IP and port, and our IP and port. */
void hgw_relay_rx_peer(struct hgw_relay_rx *rx, const uint8_t peer_mac[6],
		       uint32_t peer_ip, uint16_t peer_port, uint32_t our_ip,
		       uint16_t our_port);

/* A received Ethernet frame f: 0 when it is a relay datagram taken
 * (its fields out; rx->last is its number), 1 when it is not a relay
 * datagram (not IPv4/UDP, no magic), -1 when it was dropped (counted in
 * rx->drops by reason). */
int hgw_relay_rx(struct hgw_relay_rx *rx, const uint8_t *f, size_t len,
		 uint64_t *rseq, uint8_t *type, const uint8_t **body,
		 size_t *blen);

/* The UDP payload of an Ethernet/IPv4/UDP frame (no options past IHL,
 * lengths checked, checksums not): 0, or -1. */
int hgw_relay_udp_payload(const uint8_t *f, size_t len, const uint8_t **p,
			  size_t *plen);

static inline void
hgw_vgate_be(uint8_t *b, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}

static inline uint64_t
hgw_vgate_get_be(const uint8_t *b, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

#endif /* HGW_VGATE_H */
