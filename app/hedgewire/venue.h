/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the order session to the venue ([venue], docs/venue.md
 * "Venue session"): SoupBinTCP to an OUCH 5.0 port, owned by the TX lcore in
 * tx-lcore mode.
 *
 * Threads: the TX lcore alone drives the socket (lib/soupbin), sends
 * each deduplicated order, applies the wall-clock rate caps and the
 * UserRefNum floor, and cancels open orders on a kill. It hands every
 * sequenced message it receives, in sequence order, to the control lcore
 * over an SP/SC ring; the control lcore journals it and gives it to the
 * replicas (hgw_ctl_venue_answer), and turns a lost session into a kill
 * (hgw_ctl_session_lost). Orders that do not go are handed back through
 * the TX lcore's recalled ring, as the kill switch's are (UNSENT).
 */
#ifndef HGW_APP_VENUE_H
#define HGW_APP_VENUE_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "config.h"
#include "hgw_latency.h"
#include "hgw_order.h"
#include "hgw_soupbin.h"
#include "hgw_vgate.h"

struct hgw_txlcore;
struct hgw_tcp;
struct hgw_tcp_dlg;

struct hgw_handoff;

/* Why an order that passed dedup did not go to the venue. */
#define HGW_VENUE_UNSENT_REASONS(X) HGW_VGATE_UNSENT_REASONS(X)

enum hgw_venue_unsent {
#define HGW_VENUE_X(c, s) HGW_VENUE_UNSENT_##c,
	HGW_VENUE_UNSENT_REASONS(HGW_VENUE_X)
#undef HGW_VENUE_X
	HGW_VENUE_UNSENT_MAX
};

/* One sequenced message, TX lcore -> control lcore. */
#define HGW_VENUE_RAW 160
struct hgw_venue_msg {
	struct hgw_ouch_answer a;       /* decoded (ok) */
	uint64_t rx_ns;                 /* received, ns since the Unix epoch */
	uint16_t len;                   /* whole message length */
	uint8_t ok;                     /* 1: decoded; 0: why in raw */
	uint8_t pad[5];
	/* what it contradicts of what was sent (lie HGW_VGATE_LIE_NONE:
	 * nothing), as the session's owner found it */
	struct hgw_vgate_lie_rec lie;
	uint8_t raw[HGW_VENUE_RAW];     /* its first bytes */
};
_Static_assert(sizeof(struct hgw_venue_msg) % 8 == 0, "ring element size");

struct hgw_ctl;

/* The control lcore's side of a venue session (tx-lcore: struct
 * hgw_venue's; downstream: the relay's): the venue journal and what went
 * to the replicas. */
struct hgw_venue_ctl {
	struct hgw_ctl *plane;          /* what the answers go to */
	FILE *journal;
	char journal_path[300];
	uint64_t lost_seen;             /* shared.lost last acted on */
	uint64_t posted, not_posted, journal_errors;
	uint64_t lost_calls;            /* session-lost kills asked for */
	int closed;                     /* after the join: journal only */
};

struct hgw_venue {
	/* Written by the TX lcore, read live by the control lcore. */
	struct {
		/* Sessions lost after Login Accepted, plus 1 once the
		 * session ended for the run (End of Session, Login
		 * Rejected). Release by the TX lcore after the loss is
		 * counted; the control lcore loads it with acquire and calls
		 * hgw_ctl_session_lost() once per increase. */
		_Atomic uint32_t lost;
		/* 1 while logged in; relaxed (start-up wait, a hint). */
		_Atomic uint32_t up;
		/* 1 once the session ended for the run (End of Session,
		 * Login Rejected); relaxed, as up. */
		_Atomic uint32_t ended;
	} shared __rte_cache_aligned;

	/* The control lcore's alone (its own lines: it writes counters). */
	struct hgw_venue_ctl ctl __rte_cache_aligned;

	/* TX lcore only from here (the control lcore reads the counters
	 * after the join). */
	struct hgw_soup soup __rte_cache_aligned;
	struct hgw_tcp *tcp;            /* [venue] stack = dpdk; else NULL */
	/* claim mode on it: the workers send (hgw_tcp_dlg.h), and this lcore
	 * keeps the account of what they sent; else NULL */
	struct hgw_tcp_dlg *dlg;
	uint64_t dlg_untracked;         /* sent, no room in the open table */
	uint64_t dlg_waits;             /* answers that waited for a claim */
	int dlg_held;                   /* the senders refused now */
	int tcp_offload;                /* ... its checksums by the port */
	uint64_t unacked_stop;          /* ... bytes not acked at the stop */
	struct rte_ring *answers;       /* struct hgw_venue_msg, SP/SC */
	uint64_t tsc0, epoch_ns0;       /* TSC at init, and the time then */
	double ns_per_tsc;
	uint64_t poll_tsc, next_poll;   /* recv at most every poll_tsc */
	uint64_t hz;
	uint32_t lost_seen_up;          /* soup.st.lost_up last published */
	uint64_t lost_up_seen;          /* soup.st.lost_up last swept for */
	uint64_t owed_stop;             /* cancels unsent or unanswered at
					 * the stop: orders may be open */
	int cancel_on_disconnect;
	struct hgw_venue_state *state;  /* mapped state_file */
	uint64_t floor0;                /* the floor at start: earlier runs' */
	int earlier_open;               /* their orders may still be open */
	/* the UserRefNum floor, the caps and the open orders (lib/vgate) */
	struct hgw_vgate_gate g;
	/* kill: cancels to send (from g.cancel_next), 0/1 pending */
	int cancel_pending;
	uint64_t kills;
	/* counters */
	uint64_t sent;
	uint64_t unsent[HGW_VENUE_UNSENT_MAX];
	uint64_t unsent_lost;           /* the recalled ring was full */
	uint64_t cancels_sent;          /* Cancel Order messages */
	uint64_t venue_cancelled;       /* Canceled 'U' answers after a kill */
	uint64_t venue_cancelled_qty;
	uint64_t msgs, answers_bad, answers_lost;
	/* answers that contradicted what was sent: from the first on,
	 * every order is refused (HGW_VENUE_UNSENT_CONTRADICTED) */
	uint64_t lies;
	int lie_swept;                  /* the cancels for the first went */
	uint64_t reads_held;             /* polls without a read: ring short */
	uint64_t held_since;             /* TSC the current hold began; 0 */
	uint64_t held_max;               /* the longest hold, TSC */
	/* dedup (dequeue on the TX lcore) -> send() returned, TSC */
	struct hgw_hist send_lat;
	/* overflow of the recalled ring: handed back as room appears */
	uint32_t back_head, back_n;
	struct { uint64_t key, seq; } back[4096];
};

/* Start-up (main lcore): check [venue] against the rest of the
 * configuration, map the state file, allocate, and connect at the TX
 * lcore's first poll. Exits with one line on bad input. NULL when no
 * [venue] host is configured. */
struct hgw_venue *hgw_venue_init(const struct hgw_config *c,
				  struct hgw_tcp_dlg *dlg);

/* Main lcore, before the workers start: wait for the TX lcore's first
 * login, at most ms; if it did not come, says so in one line and sets
 * the kill switch (hgw_ctl_session_lost). */
void hgw_venue_wait_up(struct hgw_venue *v, uint32_t ms);

/* TX lcore, claim mode on the venue's TCP: a claim a worker won (h->sent:
 * enum hgw_tcp_dlg_res): an order it sent goes into the session's account
 * (the open orders, the UserRefNum floor, the journal, the latency); one
 * it could not send is handed back as unsent. Frees h->m. */
void hgw_venue_take(struct hgw_venue *v, struct hgw_txlcore *t,
		    const struct hgw_handoff *h);

/* TX lcore: one deduplicated order (h: its trigger and mbuf, freed
 * here): sent on the session, or handed back as unsent. */
void hgw_venue_order(struct hgw_venue *v, struct hgw_txlcore *t,
		     const struct hgw_handoff *h, uint64_t deq_tsc);

/* TX lcore, every loop: the socket when due, pending cancels. */
void hgw_venue_poll(struct hgw_venue *v, struct hgw_txlcore *t);

/* TX lcore: the kill switch went on: cancel every open order. */
void hgw_venue_kill(struct hgw_venue *v, struct hgw_txlcore *t);

/* TX lcore, on its way out: Logout Request and close. */
void hgw_venue_stop(struct hgw_venue *v, struct hgw_txlcore *t);

/* Control lcore, every millisecond (and once after the join): journal
 * and hand over the venue's messages, and a lost session as a kill. */
void hgw_venue_ctl_poll(struct hgw_venue *v);

/* Control lcore: journal one sequenced message and give it to every
 * replica (hgw_ctl_venue_answer); one that did not decode is a kill.
 * The tx-lcore path (hgw_venue_ctl_poll) and the downstream relay
 * (relay.c) both come here. */
void hgw_venue_ctl_take(struct hgw_venue_ctl *vc,
			const struct hgw_venue_msg *m);

/* Downstream relay: open [venue] journal (start-up), flush it (control
 * lcore, every poll: 0 or -1), print the control side's counters (close:
 * from now on to the journal only), close it. */
void hgw_venue_ctl_open(struct hgw_venue_ctl *vc, const struct hgw_config *c);
/* Start-up, after hgw_ctl_init: the control plane the messages go to. */
void hgw_venue_ctl_bind(struct hgw_venue_ctl *vc, struct hgw_ctl *plane);
/* Control lcore: the replicas have stopped; venue messages from now on
 * are journalled only. */
void hgw_venue_ctl_close(struct hgw_venue_ctl *vc);
int hgw_venue_ctl_flush(struct hgw_venue_ctl *vc);
void hgw_venue_ctl_report(struct hgw_venue_ctl *vc, FILE *out, int close);
void hgw_venue_ctl_fini(struct hgw_venue_ctl *vc);

/* After the join: the session's counters. Returns what went wrong that
 * the replicas could not be told of: venue messages lost on their way,
 * and unsent orders that could not be handed back (0: none). */
uint64_t hgw_venue_report(struct hgw_venue *v, FILE *out);

void hgw_venue_fini(struct hgw_venue *v);

#endif /* HGW_APP_VENUE_H */
