/* SPDX-License-Identifier: BSD-3-Clause
 * The order journal's file layout, shared by hedgewire (which writes it)
 * and hgw-convert journal-repair (which cleans a file a killed hedgewire
 * left). Header-only, no DPDK.
 *
 * A classic pcap: the 24-byte file header (magic 0xa1b23c4d, nanosecond
 * timestamps, host byte order, snapshot length 65535, link type Ethernet)
 * then records of one 92-byte order frame each, so every record is 108
 * bytes and record i starts at 24 + 108 * i. hedgewire allocates a file
 * for its whole capacity up front (zeros); a record is written header
 * fields first, then the frame, and its `len` field last: a record whose
 * len is still 0 was never finished (its sender was killed in the middle)
 * or never used (the tail). A clean exit truncates the file after its
 * last record; after a crash, journal-repair drops the records that were
 * not finished and the unused tail.
 */
#ifndef HGW_JOURNAL_FILE_H
#define HGW_JOURNAL_FILE_H

#include <stdint.h>
#include <string.h>

#define HGW_JOURNAL_MAGIC 0xa1b23c4du          /* pcap, nanoseconds */
#define HGW_JOURNAL_SNAPLEN 65535u
#define HGW_JOURNAL_LINKTYPE 1u                /* Ethernet */
#define HGW_JOURNAL_FILE_HDR 24u
#define HGW_JOURNAL_FRAME 92u                  /* docs/protocols.md "Order bytes" */
#define HGW_JOURNAL_REC (16u + HGW_JOURNAL_FRAME)

/* The pcap file header of a journal, into hdr[24]. */
static inline void
hgw_journal_file_header(uint8_t *hdr)
{
	const uint32_t magic = HGW_JOURNAL_MAGIC, zone = 0, sigfigs = 0;
	const uint32_t snap = HGW_JOURNAL_SNAPLEN, link = HGW_JOURNAL_LINKTYPE;
	const uint16_t major = 2, minor = 4;

	memcpy(hdr, &magic, 4);
	memcpy(hdr + 4, &major, 2);
	memcpy(hdr + 6, &minor, 2);
	memcpy(hdr + 8, &zone, 4);
	memcpy(hdr + 12, &sigfigs, 4);
	memcpy(hdr + 16, &snap, 4);
	memcpy(hdr + 20, &link, 4);
}

/* 1 when hdr[24] is a journal's file header. */
static inline int
hgw_journal_file_header_ok(const uint8_t *hdr)
{
	uint8_t want[HGW_JOURNAL_FILE_HDR];

	hgw_journal_file_header(want);
	return memcmp(hdr, want, sizeof(want)) == 0;
}

/* 1 when the record at rec is complete: its commit word (len) and its
 * captured length are both the frame's, and its nanoseconds in range. */
static inline int
hgw_journal_rec_complete(const uint8_t *rec)
{
	uint32_t h[4];

	memcpy(h, rec, sizeof(h));
	return h[2] == HGW_JOURNAL_FRAME && h[3] == HGW_JOURNAL_FRAME &&
	       h[1] < 1000000000u;
}

/* 1 when the record at rec is all zeros (never started). */
static inline int
hgw_journal_rec_unused(const uint8_t *rec)
{
	for (uint32_t i = 0; i < HGW_JOURNAL_REC; i++)
		if (rec[i] != 0)
			return 0;
	return 1;
}

/* Records [0, n) at recs: the complete ones are moved down, in order,
 * over the ones that are not. Returns how many were kept; *torn gets the
 * records dropped that had been started (not all zeros) or that lie
 * before a complete one (a sender's burst cut short), as opposed to the
 * unused tail. */
static inline uint64_t
hgw_journal_compact(uint8_t *recs, uint64_t n, uint64_t *torn)
{
	uint64_t kept = 0, last = 0, t = 0;

	for (uint64_t i = 0; i < n; i++)
		if (hgw_journal_rec_complete(recs + i * HGW_JOURNAL_REC))
			last = i + 1;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t *r = recs + i * HGW_JOURNAL_REC;

		if (hgw_journal_rec_complete(r)) {
			if (kept != i)
				memmove(recs + kept * HGW_JOURNAL_REC, r,
					HGW_JOURNAL_REC);
			kept++;
		} else if (i < last || !hgw_journal_rec_unused(r)) {
			t++;
		}
	}
	*torn = t;
	return kept;
}

#endif /* HGW_JOURNAL_FILE_H */
