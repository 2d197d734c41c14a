/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the summary at exit (every worker's counters, the orders
 * sent, the replicas' agreement), the files asked for on the command line
 * (--latency, --claims, --dump-book) and the exit status.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "app.h"
#include "capture.h"
#include "hgw_cli.h"
#include "control.h"
#include "relay.h"

/* Exit status bits (docs/operations.md "Exit status"), above 8 so that they
 * never look like a start-up error (1). */
#define EXIT_DIVERGED   1	/* replicas left the race or disagree */
#define EXIT_ORDERS     2	/* orders refused by the port (not sent) */
#define EXIT_JOURNAL    4	/* orders sent but not journalled, or the
				 * journal could not be written */
#define EXIT_HALTED     8	/* a replica missed input and stopped trading */
#define EXIT_CAPTURE    16	/* a replayed capture could not be read to its end */
#define EXIT_CONTRADICTED 32	/* a venue answer contradicted what was sent */

static const char *const stop_names[] = {
	[STOP_END] = "end of session",
	[STOP_IDLE] = "idle feed",
	[STOP_SIGNAL] = "signal",
	[STOP_CONTRADICTED] = "a venue answer contradicted what was sent",
};

/* PREFIX.csv and PREFIX.json of a histogram of TSC cycles, in ns. */
static void
latency_files(const struct hgw_hist *h, const char *prefix)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	char path[PATH_MAX];
	FILE *f;

	for (int json = 0; json < 2; json++) {
		int rc;

		snprintf(path, sizeof(path), "%s.%s", prefix, json ? "json" : "csv");
		f = hgw_fcreate(path, 0, 0644);
		if (f == NULL)
			die("--latency: cannot write %s: %s", path,
			    hgw_fcreate_strerror(errno));
		rc = json ? hgw_hist_write_json(h, f, "orders sent", ns, "ns") :
			    hgw_hist_write_csv(h, f, ns);
		if (fclose(f) != 0 && rc == 0)
			rc = -errno;
		if (rc < 0)
			die("--latency: cannot write %s: %s", path, strerror(-rc));
	}
}

#if HGW_TEST_HOOKS
/* worker,seq,ns,won: one line per trigger a worker reached. */
static void
claims_write(struct hgw_worker *const *w, uint32_t n, const char *path)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	FILE *f = hgw_fcreate(path, 0, 0644);
	int bad;

	if (f == NULL)
		die("--claims: cannot write %s: %s", path,
		    hgw_fcreate_strerror(errno));
	fprintf(f, "worker,seq,ns,won\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct hgw_hooks *k = &w[i]->hooks;

		for (uint32_t j = 0; j < k->nclaims; j++)
			fprintf(f, "%u,%" PRIu64 ",%.0f,%u\n", i,
				k->claims[j].seq,
				(double)k->claims[j].cycles * ns,
				k->claims[j].won);
		if (k->claims_dropped != 0)
			fprintf(stderr, "hedgewire: --claims: worker %u: %"
				PRIu64 " triggers past the first %u not "
				"recorded\n", i, k->claims_dropped,
				CLAIMS_MAX);
	}
	bad = ferror(f);
	if (fclose(f) != 0 || bad)
		die("--claims: cannot write %s", path);
}

/* What a worker's injected faults did. */
static void
inject_report(uint32_t i, const struct hgw_worker *w)
{
	const struct hgw_inject *j = &w->hooks.inject;

	if (j->stall_us != 0)
		printf("worker %u injected stalls %" PRIu64 " of %u us\n",
		       i, j->stalls, j->stall_us);
	if (j->corrupt_seq != 0)
		printf("test: worker %u corrupted decision %" PRIu64
		       " at seq %" PRIu64 "\n", i, j->corrupt_at,
		       j->corrupt_seq);
}
#else
#define claims_write(w, n, path) do { } while (0)
#define inject_report(i, w) do { } while (0)
#endif

/* The orders that left through one sender (a worker's, or the TX
 * lcore's in tx-lcore mode). */
static void
print_sender(const struct hgw_sender *s, uint64_t pool_empty)
{
	printf("  %-22s %" PRIu64 "\n", "orders", s->tx.orders);
	printf("  %-22s %" PRIu64 "\n", "tx_full", s->tx.tx_full);
	printf("  %-22s %" PRIu64 "\n", "tx_pool_empty", pool_empty);
	printf("  %-22s %" PRIu64 "\n", "tx_pool_waits", s->tx.pool_waits);
	printf("  %-22s %" PRIu64 "\n", "journal_full", s->tx.journal_full);
	printf("  %-22s %" PRIu64 "\n", "misses", s->misses);
	hgw_hist_print(s->rx_to_tx, stdout, "rx_to_tx",
		       1e9 / (double)rte_get_tsc_hz(),
		       "ns, rx_burst return to tx_burst, per order");
}

static void
print_summary(const struct hgw_worker *w, enum stop_reason why)
{
	const struct hgw_feed_stats *f = &w->feed.stats;
	const struct hgw_book_stats *b = hgw_book_stats(w->book);

	printf("hedgewire: stopped on %s\n", stop_names[why]);
	printf("worker %u lcore %u queue %u\n", (unsigned int)w->queue,
	       w->lcore, (unsigned int)w->queue);
	printf("  %-22s %" PRIu64 "\n", "frames", f->frames);
	printf("  %-22s %" PRIu64 "\n", "mold_packets", f->mold_packets);
	printf("  %-22s %" PRIu64 "\n", "messages", f->messages);
	printf("  %-22s %" PRIu64 "\n", "heartbeats", f->heartbeats);
	printf("  %-22s %" PRIu64 "\n", "end_of_session", f->end_of_session);
	printf("  %-22s %" PRIu64 "\n", "gaps", f->gaps);
	printf("  %-22s %" PRIu64 "\n", "gap_messages", f->gap_messages);
	printf("  %-22s %" PRIu64 "\n", "dup_messages", f->dup_messages);
	printf("  %-22s %" PRIu64 "\n", "rx_multiseg", w->rx.multiseg);
	if (w->nic != NULL)
		printf("  %-22s %" PRIu64 "\n", "rx_no_nic_timestamp",
		       w->nic_no_ts);
	if (w->rx.last_tsc > w->rx.first_tsc)
		printf("  rx rate: %.0f frames/s from the first burst to the "
		       "last\n", (double)(w->rx.mbufs - 1) * (double)rte_get_tsc_hz() /
		       (double)(w->rx.last_tsc - w->rx.first_tsc));
	if (w->pace != HGW_PACE_OFF)
		printf("  paced: %" PRIu64 " frames picked up after their "
		       "deadline (worst %.1f us late), %" PRIu64 " without a "
		       "timestamp\n", w->pace_late,
		       (double)w->pace_late_max * 1e6 / (double)rte_get_tsc_hz(),
		       w->pace_no_ts);
	for (int d = 0; d < HGW_FEED_DROP_MAX; d++)
		if (f->drops[d] != 0)
			printf("  drop %-17s %" PRIu64 "\n",
			       hgw_feed_drop_name((enum hgw_feed_drop)d),
			       f->drops[d]);
	for (int t = 0; t < 256; t++)
		if (f->by_type[t] != 0)
			printf("  type %c %-15s %" PRIu64 "\n", t,
			       hgw_itch_type_name((uint8_t)t), f->by_type[t]);
	for (uint32_t s = 0; s < w->feed.nsessions; s++) {
		const struct hgw_feed_session *ss = &w->feed.sessions[s];

		printf("  session %.10s next_seq %" PRIu64 " gaps %" PRIu64
		       " gap_messages %" PRIu64 " dup_packets %" PRIu64
		       " ended %u\n", ss->name, ss->next_seq, ss->gaps,
		       ss->gap_messages, ss->dup_packets, ss->ended);
	}
	printf("  %-22s %" PRIu64 "\n", "book_applied", b->applied);
	printf("  %-22s %" PRIu64 "\n", "book_live_orders", b->live_orders);
	printf("  %-22s %" PRIu64 "\n", "book_live_orders_hwm",
	       b->live_orders_hwm);
	for (int e = 0; e < HGW_BOOK_ERR_MAX; e++)
		if (b->errors[e] != 0)
			printf("  book_error %-11s %" PRIu64 "\n",
			       hgw_book_error_name((enum hgw_book_error)e),
			       b->errors[e]);
	if (w->table == NULL)
		return;
	printf("  %-22s %" PRIu64 "\n", "triggers", w->strategy.triggers);
	for (int o = 0; o < HGW_STRATEGY_MAX; o++)
		printf("  %-22s %" PRIu64 "\n",
		       hgw_strategy_outcome_name((enum hgw_strategy_outcome)o),
		       w->strategy.outcomes[o]);
	for (int r = 0; r < HGW_RISK_MAX; r++)
		printf("  reject_%-15s %" PRIu64 "\n",
		       hgw_risk_reject_name((enum hgw_risk_reject)r),
		       hgw_risk_stats(w->risk)->rejects[r]);
	if (w->venue) {
		const struct hgw_risk_stats *rs = hgw_risk_stats(w->risk);

		printf("  %-22s %" PRIu64 "\n", "venue_filled_shares",
		       rs->filled_shares);
		printf("  %-22s %" PRIu64 "\n", "venue_reduced_shares",
		       rs->reduced_shares);
		printf("  %-22s %" PRIu64 "\n", "venue_closed_orders",
		       rs->closed_orders);
		printf("  %-22s %" PRIu64 "\n", "venue_unknown_orders",
		       rs->unknown_orders);
		printf("  %-22s %" PRIu32 "\n", "open_orders",
		       hgw_risk_open_orders(w->risk));
	}
	print_sender(w->txl != NULL ? &w->txl->out : &w->out,
		     w->out.tx.pool_empty);
}

/* Did a and b apply the same messages? What a replica's state is made
 * of: new messages (by type), gaps, ends of session; not how they came
 * (frames, duplicates from a second line, retransmissions, frames
 * refused), which may differ between faithful replicas. */
static int
feed_applied_differs(const struct hgw_feed_stats *a,
		     const struct hgw_feed_stats *b)
{
	return a->messages != b->messages || a->gaps != b->gaps ||
	       a->gap_messages != b->gap_messages ||
	       a->end_of_session != b->end_of_session ||
	       memcmp(a->by_type, b->by_type, sizeof(a->by_type)) != 0;
}

/* Replicas that saw the same feed and the same events must end in the
 * same state: feed counters, every book's touch, the risk state
 * (positions, throttle windows, limits) and the decision digest. NULL
 * when they do, else what differs first (why: room for the detail). */
static const char *
replicas_differ(const struct hgw_worker *a, const struct hgw_worker *b,
		uint32_t instruments, char *why, size_t len)
{
	if (feed_applied_differs(&a->feed.stats, &b->feed.stats))
		return "feed counters";
	for (uint32_t l = 0; l < instruments; l++) {
		struct hgw_book_top ta, tb;

		hgw_book_top(a->book, (uint16_t)l, &ta);
		hgw_book_top(b->book, (uint16_t)l, &tb);
		if (memcmp(&ta, &tb, sizeof(ta)) != 0) {
			snprintf(why, len, "book of instrument %u", l);
			return why;
		}
	}
	if (a->risk == NULL || b->risk == NULL)
		return NULL;
	if (hgw_risk_state_cmp(a->risk, b->risk, why, len) != 0)
		return why;
	if (a->digest != b->digest || a->decisions != b->decisions) {
		snprintf(why, len, "decision digest (%" PRIu64 " vs %" PRIu64
			 " decisions)", a->decisions, b->decisions);
		return why;
	}
	if (a->ev_applied != b->ev_applied)
		return "events taken";
	return NULL;
}

static int
dump_book(const struct hgw_worker *w, uint32_t instruments, const char *path)
{
	FILE *out = hgw_fcreate(path, 0, 0644);

	if (out == NULL)
		return -errno;
	for (uint32_t l = 1; l < instruments && l <= UINT16_MAX; l++) {
		const char *name = hgw_book_name(w->book, (uint16_t)l);
		struct hgw_book_top t;
		int n;

		if (name == NULL)
			continue;
		hgw_book_top(w->book, (uint16_t)l, &t);
		for (n = 8; n > 0 && name[n - 1] == ' '; n--)
			;
		fprintf(out, "bbo %u %.*s %u %" PRIu64 " %u %u %" PRIu64 " %u\n",
			l, n, name, t.bid_price, t.bid_shares, t.bid_orders,
			t.ask_price, t.ask_shares, t.ask_orders);
	}
	return fclose(out) == 0 ? 0 : -errno;
}

/* The orders: races won and lost, the TX lcore's, the venue's and the
 * relay's account, and the latency of every order that left. */
static int
report_orders(const struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *workers = a->w;
	const struct trading *t = &a->trading;
	const struct hgw_txlcore *tx = a->txlcore;
	int trade = a->trade, txl = a->txl, status = 0;

	if (t->dedup != NULL)
		for (uint32_t i = 0; i < c->workers; i++)
			printf("worker %u races won %" PRIu64 " lost %" PRIu64
			       " no slot %" PRIu64 " (orders sent %" PRIu64
			       ")\n", i, workers[i]->races.won,
			       workers[i]->races.lost, workers[i]->races.full,
			       workers[i]->out.tx.orders);
	if (txl) {
		for (uint32_t i = 0; i < c->workers; i++)
			printf("worker %u races won %" PRIu64 " lost %" PRIu64
			       " (orders handed over %" PRIu64 ", ring full "
			       "waits %" PRIu64 ", order pool waits %" PRIu64
			       ")\n", i,
			       tx->filter.passed[i],
			       /* claim mode on the venue's TCP: the claim
				* decided, the worker counted its losses */
			       tx->dlg != NULL ? workers[i]->races.lost :
			       tx->filter.dropped[i],
			       workers[i]->out.tx.orders,
			       workers[i]->out.ring_waits,
			       workers[i]->out.tx.pool_waits);
		for (uint32_t i = 0; tx->dlg != NULL && i < c->workers; i++) {
			const struct hgw_tcp_dlg_tx *q = &workers[i]->dlg_tx;

			printf("worker %u claims on the venue's TCP: sent %"
			       PRIu64 " (%" PRIu64 " bytes), lost %" PRIu64
			       ", no room %" PRIu64 ", session not open %"
			       PRIu64 ", tx refused (sent again by the TX "
			       "lcore) %" PRIu64 ", stream changed before the "
			       "send %" PRIu64 "\n", i, q->sent, q->bytes,
			       q->lost, q->full, q->closed, q->tx_full,
			       q->moved);
		}
		printf("tx lcore %u: orders sent %" PRIu64 ", late copies "
		       "dropped %" PRIu64 ", invalid %" PRIu64 ", recalled by "
		       "the kill switch %" PRIu64 "\n",
		       a->txl_lcore, tx->out.tx.orders, tx->races_lost,
		       tx->filter.invalid, tx->recalled_n);
		if (a->venue != NULL &&
		    hgw_venue_report(a->venue, stdout) != 0) {
			fprintf(stderr, "hedgewire: venue: messages or unsent "
				"orders the replicas were not told of, orders "
				"the venue's host did not acknowledge, or a "
				"kill's cancels not sent or answered\n");
			status |= EXIT_ORDERS;
		}
	}
	if (a->relay != NULL) {
		/* what hgw-dedup still relays (answers to the last orders)
		 * goes to the journal only: 500 ms */
		for (int i = 0; i < 50; i++) {
			hgw_relay_poll(a->relay, 1);
			rte_delay_us_sleep(10000);
		}
		hgw_relay_leave(a->relay);
		if (hgw_relay_report(a->relay, stdout) != 0) {
			fprintf(stderr, "hedgewire: venue: unsent orders the "
				"replicas could not take back\n");
			status |= EXIT_ORDERS;
		}
	}
	if (trade) {
		/* Every order that left, whichever worker sent it: with one
		 * worker, claim or tx-lcore the first copy of each trigger,
		 * otherwise every copy. */
		static struct hgw_hist all;
		uint64_t misses = 0;

		hgw_hist_init_precision(&all, c->latency_bits);
		if (txl) {
			hgw_hist_merge(&all, tx->out.rx_to_tx);
			misses = tx->out.misses;
		}
		for (uint32_t i = 0; i < c->workers && !txl; i++) {
			hgw_hist_merge(&all, workers[i]->out.rx_to_tx);
			misses += workers[i]->out.misses;
		}
		if (c->workers > 1) {
			printf("sent misses %" PRIu64 " (later than [replay] "
			       "miss_us = %u)\n", misses, c->miss_us);
			hgw_hist_print(&all, stdout, "sent rx_to_tx",
				       1e9 / (double)rte_get_tsc_hz(),
				       c->dedup == HGW_DEDUP_MODE_CLAIM || txl ?
				       "ns, every worker, the orders it sent" :
				       "ns, every worker, every copy sent");
		}
		if (a->args.latency != NULL)
			latency_files(&all, a->args.latency);
		if (a->args.claims != NULL)
			claims_write(workers, c->workers, a->args.claims);
	}
	return status;
}

/* Per worker: stages, buffer switches, injected faults; the RX lcore. */
static void
report_workers(const struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *workers = a->w;
	const struct trading *t = &a->trading;
	int trade = a->trade;

	/* worker 0's is in the summary above */
	for (uint32_t i = 1; workers[0]->pace != HGW_PACE_OFF && i < c->workers;
	     i++)
		printf("worker %u paced: %" PRIu64 " frames picked up after "
		       "their deadline (worst %.1f us late)\n", i,
		       workers[i]->pace_late,
		       (double)workers[i]->pace_late_max * 1e6 /
		       (double)rte_get_tsc_hz());
	for (uint32_t i = 0; trade && c->stage_sample && i < c->workers; i++) {
		const double ns = 1e9 / (double)rte_get_tsc_hz();
		char name[64];

		printf("worker %u stages, 1 trigger in %u (ns):\n", i,
		       c->stage_sample);
		hgw_hist_print(workers[i]->stage_book, stdout, "  book", ns,
			       "arrival to the trigger decoded and applied");
		snprintf(name, sizeof(name), "  replica %u lookup",
			 i % t->tables.n);
		hgw_hist_print(workers[i]->lookup, stdout, name, ns,
			       "strategy evaluation, table entry read");
		hgw_hist_print(workers[i]->stage_risk, stdout, "  risk", ns,
			       "risk checks of a decision");
	}
	for (uint32_t i = 0; i < c->workers; i++)
		if (workers[i]->venue)
			printf("worker %u venue answers taken %" PRIu64 "\n", i,
			       workers[i]->venue_answers);
	for (uint32_t i = 0; i < c->workers; i++) {
		const struct hgw_worker *w = workers[i];

		if (w->idio_on || w->prefetch)
			printf("worker %u buffers: %" PRIu64 " released, %" PRIu64
			       " lines invalidated, %" PRIu64 " poisoned; %" PRIu64
			       " prefetch bursts, %" PRIu64 " packets prefetched\n",
			       i, w->idio.freed, w->idio.lines, w->idio.poisoned,
			       w->pf.bursts, w->pf.prefetched);
	}
	for (uint32_t i = 0; i < c->workers; i++) {
		inject_report(i, workers[i]);
		if (workers[i]->passive)
			printf("worker %u went passive: the order pool ran dry "
			       "([order] mbufs); it kept accounting, the others "
			       "sent\n", i);
		if (atomic_load_explicit(&workers[i]->shared.dead,
					 memory_order_relaxed))
			printf("worker %u stopped (injected) after %" PRIu64
			       " frames\n", i, workers[i]->rx.mbufs);
	}
	if (c->rx_mode == HGW_RX_FANOUT) {
		printf("fanout lcore %u: %" PRIu64 " frames", a->fanout_lcore,
		       a->fanout->frames);
		for (uint32_t i = 0; i < c->workers; i++)
			printf(", worker %u drops %" PRIu64, i,
			       a->fanout->drops[i]);
		printf("\n");
		for (uint32_t i = 0; i < c->workers; i++) {
			const struct hgw_fanout *f = a->fanout;
			uint64_t noted = 0;

			const struct hgw_feed_stats *fs = &workers[i]->feed.stats;

			printf("fanout worker %u: %" PRIu64 " frames, %" PRIu64
			       " messages, %" PRIu64 " gaps (%" PRIu64
			       " messages)\n", i, fs->frames, fs->messages,
			       fs->gaps, fs->gap_messages);
			if (f->drops[i] == 0)
				continue;
			printf("fanout worker %u dropped frames", i);
			for (uint32_t k = 0; k < f->ndrop_runs[i]; k++) {
				printf(" %" PRIu64 "-%" PRIu64,
				       f->drop_run[i][k].first,
				       f->drop_run[i][k].first +
				       f->drop_run[i][k].n - 1);
				noted += f->drop_run[i][k].n;
			}
			if (noted != f->drops[i])
				printf(" and %" PRIu64 " more", f->drops[i] - noted);
			printf("\n");
		}
	}
}

/* The replicas still racing at the end must agree with each other
 * (relaxed loads: the workers have been joined). */
static int
report_agreement(const struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *workers = a->w;
	int status = 0;
	uint32_t left = hgw_ctl_left(a->ctl), ref = UINT32_MAX;

	if (hgw_ctl_report(a->ctl, stdout) != 0)
		status |= EXIT_DIVERGED;
	for (uint32_t i = 0; i < c->workers; i++) {
		char what[160];
		const char *d;

		if (atomic_load_explicit(&workers[i]->shared.dead,
					 memory_order_relaxed) ||
		    (left & (1u << i)) || workers[i]->halt != HGW_HALT_NONE)
			continue;
		if (ref == UINT32_MAX) {
			ref = i;
			continue;
		}
		if (a->why != STOP_END &&
		    feed_applied_differs(&workers[ref]->feed.stats,
					 &workers[i]->feed.stats)) {
			/* a stop (signal, idle) ends each replica at its own
			 * point of the feed: what they share was compared by
			 * digest while running, and once more after the join */
			printf("worker %u agrees with worker %u: yes, by digest "
			       "up to seq %" PRIu64 " (they stopped at different "
			       "points of the feed)\n", i, ref,
			       hgw_ctl_compared_seq(a->ctl));
			continue;
		}
		d = replicas_differ(workers[ref], workers[i],
				    c->book.max_instruments, what,
				    sizeof(what));
		printf("worker %u agrees with worker %u: %s%s\n", i, ref,
		       d == NULL ? "yes" : "NO: ", d == NULL ? "" : d);
		if (d != NULL)
			status |= EXIT_DIVERGED;
	}
	return status;
}

/* Replicas that halted on missed input, gaps held and recovered, and
 * warm-ups after a mid-session join. */
static int
report_halts(const struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *workers = a->w;
	int trade = a->trade, status = 0;

	for (uint32_t i = 0; trade && i < c->workers; i++) {
		const struct hgw_worker *w = workers[i];
		char name[HGW_MOLD_SESSION_LEN + 1] = "?";

		for (uint32_t k = 0; k < w->feed.nsessions; k++)
			if (w->feed.sessions[k].key == w->halt_key)
				snprintf(name, sizeof(name), "%.10s",
					 w->feed.sessions[k].name);
		if (w->halt != HGW_HALT_NONE) {
			status |= EXIT_HALTED;
			printf("worker %u HALTED on %s (session %s seq %" PRIu64
			       "): missed input, so it kept applying the feed "
			       "and sent nothing from then on; %" PRIu64
			       " triggers, %" PRIu64 " orders held back\n", i,
			       hgw_halt_name(w->halt), name, w->halt_seq,
			       w->halted_triggers, w->halted_orders);
		}
		if (w->lines == 2 || w->rq.on)
			printf("worker %u gaps: %" PRIu64 " frames held, %" PRIu64
			       " taken when filled or given up, %" PRIu64
			       " lost on both lines, %" PRIu64 " hold buffer "
			       "full; recovery: %" PRIu64 " requests, %" PRIu64
			       " messages retransmitted, %" PRIu64 " gaps "
			       "recovered, %" PRIu64 " unanswered\n", i,
			       w->hold.held, w->hold.taken, w->hold.gaps_both,
			       w->hold.full, w->rq.requests,
			       w->feed.stats.retrans_messages, w->rq.recovered,
			       w->rq.failed);
		if (w->warmup_triggers != 0 || w->warmup_left != 0)
			printf("worker %u joined mid-session (baseline): %"
			       PRIu64 " triggers left alone during the warm-up"
			       "%s\n", i, w->warmup_triggers,
			       w->warmup_left != 0 ? ", still warming up" : "");
	}
	return status;
}

/* Orders the port refused or the journal missed, a capture read error. */
static int
report_losses(const struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *workers = a->w;
	const struct trading *t = &a->trading;
	const struct hgw_txlcore *tx = a->txlcore;
	int txl = a->txl, status = 0;

	for (uint32_t i = 0; i < c->workers; i++)
		if (workers[i]->out.tx.tx_full != 0)
			status |= EXIT_ORDERS;
	if (txl && tx->out.tx.tx_full != 0)
		status |= EXIT_ORDERS;
	for (uint32_t i = 0; i < c->workers; i++)
		if (workers[i]->out.tx.journal_full != 0)
			status |= EXIT_JOURNAL;
	if (txl && tx->out.tx.journal_full != 0)
		status |= EXIT_JOURNAL;
	if (t->journal != NULL && (hgw_journal_failed(t->journal) != 0 ||
					t->journal_errors != 0))
		status |= EXIT_JOURNAL;
	if (hgw_capture_check_end(&a->captures, stdout) != 0)
		status |= EXIT_CAPTURE;
	return status;
}

/* Venue answers that contradicted what was sent (each a kill). */
static int
report_contradictions(const struct hgw_app *a)
{
	struct hgw_vgate_lie_rec l;
	uint64_t n = hgw_ctl_contradictions(a->ctl, &l);
	char what[256];

	if (n == 0)
		return 0;
	hgw_ctl_lie_describe(&l, what, sizeof(what));
	printf("venue: contradicted by %" PRIu64 " answers; the first: %s\n",
	       n, what);
	return EXIT_CONTRADICTED;
}

/* The summary at exit, after the workers have been joined. */
int
app_report(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *workers = a->w;
	struct trading *t = &a->trading;
	int status = 0;

	print_summary(workers[0], a->why);
	printf("feed: join = %s%s, lines %u, max_jump %" PRIu64 ", "
	       "session_confirm %u, recovery %s\n",
	       c->join == 1 ? "baseline" : "recover",
	       c->join == 1 ? " (a mid-session start is the baseline)" :
	       " (a mid-session start is missed input)", c->lines,
	       c->feed.max_jump, c->feed.session_confirm,
	       c->rq_server[0] != '\0' ? c->rq_server : "off");
	/* What the port itself lost (no mbuf, full ring): never silent. */
	struct rte_eth_stats ps;

	if (rte_eth_stats_get(c->rx_port, &ps) == 0)
		printf("port %u: ipackets %" PRIu64 " imissed %" PRIu64
		       " rx_nombuf %" PRIu64 " ierrors %" PRIu64 "\n",
		       c->rx_port, ps.ipackets, ps.imissed, ps.rx_nombuf,
		       ps.ierrors);
	status |= report_orders(a);
	report_workers(a);
	status |= report_agreement(a);
	status |= report_halts(a);
	status |= report_losses(a);
	status |= report_contradictions(a);
	if (t->journal != NULL)
		printf("journal %s: %" PRIu64 " orders written, %" PRIu64
		       " failed, %" PRIu64 " write errors\n",
		       hgw_journal_names(t->journal),
		       hgw_journal_written(t->journal),
		       hgw_journal_failed(t->journal),
		       t->journal_errors);
	return status;
}

void
app_dump_book(const struct hgw_app *a)
{
	int rc = dump_book(a->w[0], a->conf.book.max_instruments,
			   a->args.dump_book);

	if (rc < 0)
		die("--dump-book %s: %s", a->args.dump_book,
		    hgw_fcreate_strerror(-rc));
}

int
app_exit_status(int status)
{
	if (status == 0)
		return 0;
	fprintf(stderr, "hedgewire: exit status %d:%s%s%s%s%s%s\n", 8 + status,
		status & EXIT_DIVERGED ? " replicas diverged or disagree, or count orders that never left;" : "",
		status & EXIT_ORDERS ? " orders refused by the port;" : "",
		status & EXIT_JOURNAL ? " orders missing from the journal, or it could not be written;" : "",
		status & EXIT_HALTED ? " a replica missed input and halted;" : "",
		status & EXIT_CAPTURE ? " a capture has a read error;" : "",
		status & EXIT_CONTRADICTED ? " a venue answer contradicted what was sent;" : "");
	return 8 + status;
}
