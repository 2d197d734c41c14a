/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the order journal, every order sent, as a pcap file that
 * survives the process.
 *
 * The sending lcore itself writes each order it handed to tx_burst into
 * a file mapped MAP_SHARED: the pages belong to the page cache, so what
 * a sender wrote is in the file even if hedgewire is killed the next
 * instant. Layout: app/common/hgw_journal_file.h (a classic pcap with
 * nanosecond timestamps whose records are all 108 bytes).
 *
 * Senders (any worker in claim mode, the TX lcore in tx-lcore mode, every
 * worker in downstream and none) share one file: a burst of n orders
 * reserves n records with one fetch_add on pos, and each record is
 * committed by storing its len field last (release). The journal's file
 * thread creates each file at its full size (posix_fallocate: no block
 * is allocated by a sender's store, so a full disk cannot SIGBUS it)
 * as soon as the last one prepared was taken, keeps the pages just
 * ahead of the senders mapped writable (no page fault on the sender),
 * and truncates each file after its last record once its senders are
 * done with it. The control lcore only moves the senders on to the
 * prepared file, so it never waits for the disk. Files are never
 * overwritten: a path
 * that exists makes the next name (orders.pcap, orders.1.pcap, ...).
 */
#ifndef HGW_APP_JOURNAL_H
#define HGW_APP_JOURNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "hgw_journal_file.h"
#include "hgw_order.h"

_Static_assert(HGW_JOURNAL_FRAME == HGW_ORDER_FRAME_LEN,
	       "journal records hold one order frame");

/* One record as it lies in the file (4-byte aligned: 24 + 108 i). */
struct hgw_journal_rec {
	uint32_t ts_sec, ts_nsec;       /* handed to tx_burst, wall clock */
	uint32_t caplen;
	/* The commit: 0 until the record is complete, then the frame
	 * length, stored last with release (the control plane loads it
	 * with acquire before it truncates or unmaps the file). */
	_Atomic uint32_t len;
	uint8_t frame[HGW_JOURNAL_FRAME];
};
_Static_assert(sizeof(struct hgw_journal_rec) == HGW_JOURNAL_REC,
	       "journal record size");

/* pos: the file's generation above this bit, records reserved below. */
#define HGW_JOURNAL_GEN_SHIFT 40
#define HGW_JOURNAL_SLOT_MASK ((UINT64_C(1) << HGW_JOURNAL_GEN_SHIFT) - 1)

/* What the senders share. */
struct hgw_journal_tx {
	/* generation << 40 | records reserved in that generation's file.
	 * Senders: one fetch_add per burst, acquire, which pairs with the
	 * control plane's release CAS that starts a generation, so base[]
	 * of that generation is seen written (fetch_adds of other senders
	 * after the CAS continue its release sequence). */
	_Atomic uint64_t pos;
	/* Below: read-only to senders. base[g & 1] is written by the
	 * control plane just before the CAS that starts generation g, and
	 * only once every record reserved in generation g - 2 (the same
	 * slot) has been committed, so no sender can still read it. */
	uint8_t *base[2] __rte_cache_aligned;   /* a file's record 0 */
	uint64_t cap;                   /* records a file holds */
	/* TSC -> wall clock: wall0_ns + (tsc - tsc0) * mult >> 40 */
	uint64_t tsc0, wall0_ns, mult;
};

/* Sending lcore, after tx_burst: journal the n orders in m[] (still
 * referenced by the caller: the driver may have freed its own
 * reference), handed to tx_burst at TSC tsc. Returns the orders that
 * found no room (the file is full: the control plane did not move the
 * senders on in time); the caller counts them. No system call, no
 * allocation, no lock: one fetch_add, the copies, one release store per
 * record. */
static inline uint32_t
hgw_journal_put(struct hgw_journal_tx *jt, struct rte_mbuf *const *m,
		uint32_t n, uint64_t tsc)
{
	uint64_t p, slot, cap = jt->cap;
	uint32_t fit;

	/* nothing sent (tx_burst took none): base[] not read either */
	if (unlikely(n == 0))
		return 0;
	p = atomic_fetch_add_explicit(&jt->pos, n, memory_order_acquire);
	slot = p & HGW_JOURNAL_SLOT_MASK;
	if (unlikely(slot >= cap))
		return n;
	fit = slot + n <= cap ? n : (uint32_t)(cap - slot);

	struct hgw_journal_rec *r = (struct hgw_journal_rec *)
		(jt->base[(p >> HGW_JOURNAL_GEN_SHIFT) & 1] +
		 slot * HGW_JOURNAL_REC);
	uint64_t ns = jt->wall0_ns + (uint64_t)(((unsigned __int128)
					(tsc - jt->tsc0) * jt->mult) >> 40);
	uint32_t sec = (uint32_t)(ns / 1000000000u);
	uint32_t nsec = (uint32_t)(ns % 1000000000u);

	for (uint32_t i = 0; i < fit; i++, r++) {
		r->ts_sec = sec;
		r->ts_nsec = nsec;
		r->caplen = HGW_JOURNAL_FRAME;
		memcpy(r->frame, rte_pktmbuf_mtod(m[i], const void *),
		       HGW_JOURNAL_FRAME);
		/* release: the fields above are in the file before the
		 * record counts as complete */
		atomic_store_explicit(&r->len, HGW_JOURNAL_FRAME,
				      memory_order_release);
	}
	return n - fit;
}

struct hgw_journal;

/* Start-up: open the journal at path (or the next free name after it)
 * with room for cap orders per file. NULL after one line into err
 * naming the problem (a path that exists and is not a regular file, a
 * directory that cannot be written, no space). Prints the name used. */
struct hgw_journal *hgw_journal_open(const char *path, uint64_t cap,
				     char *err, size_t errlen);

/* What the senders are given. */
struct hgw_journal_tx *hgw_journal_tx(struct hgw_journal *j);

/* Control lcore, every millisecond: move the senders on to the prepared
 * file at three quarters, hand the file they left to the journal's file
 * thread once they are done with it. No system call but the "opened"
 * line: the file thread (started by hgw_journal_open) prepares, closes
 * and maps the files. Returns 1 when something failed (one line in err
 * a call: a file that could not be created, allocated or cut, orders
 * that found the file full), else 0. */
int hgw_journal_poll(struct hgw_journal *j, char *err, size_t errlen);

/* SIGHUP (control lcore): the senders move on to a file prepared after
 * this call, at the configured path (or the next free name); the
 * current one is closed. */
void hgw_journal_reopen(struct hgw_journal *j);

/* After the senders stopped: stop the file thread, finish every file
 * (truncated after its last record). Returns 1 when something failed
 * (the last line in err, any earlier ones to stderr), else 0. */
int hgw_journal_finish(struct hgw_journal *j, char *err, size_t errlen);

/* Orders in the journal's files, and orders sent but not in them. */
uint64_t hgw_journal_written(const struct hgw_journal *j);
uint64_t hgw_journal_failed(const struct hgw_journal *j);

/* The files written so far: "NAME" or "FIRST .. LAST (N files)". */
const char *hgw_journal_names(struct hgw_journal *j);

void hgw_journal_free(struct hgw_journal *j);

/* The name try k (0, 1, ...) gives for path: path itself, then
 * "stem.k.pcap" for "stem.pcap", else "path.k". -1 if it does not fit. */
int hgw_journal_name(const char *path, unsigned int k, char *out,
		     size_t len);

#endif /* HGW_APP_JOURNAL_H */
