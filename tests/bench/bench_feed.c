/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire benchmark: decode + book a capture held in memory on one core.
 *
 *   bench_feed FILE.pcap|FILE.itch [passes] [instruments orders levels]
 *
 * The whole capture is first copied into one buffer (frames back to back,
 * 64-byte aligned like mbuf data), so the timed loop measures the decoder
 * and the book, not file I/O. Each pass re-initialises the decoder and
 * empties the book (untimed) and replays every frame. Prints messages/s
 * for decode only, decode + book one message at a time, and decode + book
 * a burst at a time with prefetching (what hedgewire's workers do), best
 * and median of the passes, by wall time and by the thread's CPU time.
 * From a capture also the bulk mode with the IPv4 and UDP checksums taken
 * as a port with RX checksum offload reports them ("bulk, NIC cksums"):
 * the others verify them in software, as on a port that does not.
 *
 * A file that is not a pcap is read as Nasdaq's binary ITCH 5.0 format
 * (each message preceded by its length, 2 bytes big-endian: the daily
 * TotalView-ITCH files; hgw-convert pcap2itch writes it), the input any
 * ITCH handler takes. Then "decode" is walking the length prefixes and
 * checking each type and length (hgw_itch_len_ok), with no network layers:
 * the same book modes, so the two inputs give comparable numbers.
 */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#define HUGE_2M ((size_t)2 << 20)

#include "hgw_book.h"
#include "hgw_feed.h"

struct frames {
	uint8_t *buf;
	uint32_t *off, *len;
	size_t n, cap, used, size;
	int itch;	/* buf holds an ITCH file of `used` bytes, n messages */
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: on a shared machine, a pass preempted by other
 * processes loses wall time, not CPU time (cache pollution from them
 * remains). */
static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the last pass. */
static double last_cpu;

static int
load(const char *path, struct frames *fr)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *d;
	pcap_t *p = pcap_open_offline(path, err);

	if (p == NULL) {
		fprintf(stderr, "bench_feed: %s\n", err);
		return -1;
	}
	while (pcap_next_ex(p, &h, &d) == 1) {
		size_t need = (h->caplen + 63u) & ~(size_t)63;

		if (fr->n == fr->cap) {
			fr->cap = fr->cap ? fr->cap * 2 : 1 << 16;
			fr->off = realloc(fr->off, fr->cap * sizeof(*fr->off));
			fr->len = realloc(fr->len, fr->cap * sizeof(*fr->len));
		}
		if (fr->used + need > fr->size) {
			fr->size = fr->size ? fr->size * 2 : 1 << 24;
			fr->buf = realloc(fr->buf, fr->size);
		}
		if (fr->off == NULL || fr->len == NULL || fr->buf == NULL) {
			fprintf(stderr, "bench_feed: out of memory\n");
			return -1;
		}
		memcpy(fr->buf + fr->used, d, h->caplen);
		fr->off[fr->n] = (uint32_t)fr->used;
		fr->len[fr->n] = h->caplen;
		fr->used += need;
		fr->n++;
	}
	pcap_close(p);
	return 0;
}

enum mode { DECODE_ONLY, BOOK_EACH, BOOK_BULK, BOOK_CURSOR, BOOK_BULK_CK,
	    NMODES };

/* The worker's way (BOOK_CURSOR): a cursor over the batch, coming back
 * at every message that changed a book (where the worker evaluates its
 * trigger). Returns the changes. */
static uint64_t
apply_cursor(struct hgw_book *b, const uint8_t *const *msgs, uint32_t n)
{
	struct hgw_book_cursor c;
	uint64_t ch = 0;

	hgw_book_cursor_start(b, msgs, sizeof(msgs[0]), n, &c);
	while (c.next < n)
		ch += hgw_book_apply_until(b, msgs, n, &c) != 0;
	return ch;
}

static uint64_t
apply_batch(struct hgw_book *b, enum mode mode, const uint8_t *const *msgs,
	    uint32_t n)
{
	return mode == BOOK_CURSOR ? apply_cursor(b, msgs, n) :
				     hgw_book_apply_bulk(b, msgs, n, NULL);
}

/* 1 when the file starts with a pcap magic number (either byte order,
 * micro- or nanosecond). */
static int
is_pcap(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint32_t m = 0;
	size_t got = f != NULL ? fread(&m, 1, sizeof(m), f) : 0;

	if (f != NULL)
		fclose(f);
	return got == sizeof(m) &&
	       (m == 0xa1b2c3d4u || m == 0xd4c3b2a1u ||
		m == 0xa1b23c4du || m == 0x4d3cb2a1u);
}

/* The whole ITCH file into one buffer; counts its messages and refuses a
 * message of unknown type, wrong length or cut short. */
static int
load_itch(const char *path, struct frames *fr)
{
	FILE *f = fopen(path, "rb");
	size_t pos = 0;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (fr->used == fr->size) {
			fr->size = fr->size ? fr->size * 2 : 1 << 24;
			fr->buf = realloc(fr->buf, fr->size);
			if (fr->buf == NULL) {
				fprintf(stderr, "bench_feed: out of memory\n");
				fclose(f);
				return -1;
			}
		}
		size_t got = fread(fr->buf + fr->used, 1, fr->size - fr->used, f);

		if (got == 0)
			break;
		fr->used += got;
	}
	fclose(f);
	while (pos + 2 <= fr->used) {
		uint16_t l = hgw_be16(fr->buf + pos);

		if (pos + 2 + l > fr->used || l == 0 ||
		    !hgw_itch_len_ok(fr->buf[pos + 2], l)) {
			fprintf(stderr, "bench_feed: %s: bad or cut message at "
				"byte %zu\n", path, pos);
			return -1;
		}
		pos += 2u + l;
		fr->n++;
	}
	if (pos != fr->used) {
		fprintf(stderr, "bench_feed: %s: %zu trailing bytes\n", path,
			fr->used - pos);
		return -1;
	}
	fr->itch = 1;
	return 0;
}

/* Messages applied at a time from an ITCH file: about what one burst of
 * 32 frames carries in the pcap mode. */
#define ITCH_BATCH 64

/* pass() for an ITCH file: walk the length prefixes, check each message
 * (as the feed decoder does) and apply it. */
static double
pass_itch(const struct frames *fr, struct hgw_book *b, enum mode mode,
	  uint64_t *msgs, uint64_t *changes)
{
	static const uint8_t *batch[ITCH_BATCH];
	const uint8_t *p = fr->buf, *end = fr->buf + fr->used;
	uint64_t ch = 0, n = 0, bad = 0;
	uint32_t nb = 0;

	hgw_book_reset(b);
	double c0 = cpu_s(), t0 = now_s();

	while (p < end) {
		uint16_t l = hgw_be16(p);
		const uint8_t *m = p + 2;

		p += 2u + l;
		if (!hgw_itch_len_ok(m[0], l)) {
			bad++;
			continue;
		}
		n++;
		if (mode == DECODE_ONLY) {
			ch += m[0];
		} else if (mode == BOOK_EACH) {
			ch += hgw_book_apply(b, m) != 0;
		} else {
			batch[nb++] = m;
			if (nb == ITCH_BATCH) {
				ch += apply_batch(b, mode, batch, nb);
				nb = 0;
			}
		}
	}
	if (nb != 0)
		ch += apply_batch(b, mode, batch, nb);
	double t = now_s() - t0;

	last_cpu = cpu_s() - c0;

	*msgs = n + bad;
	*changes = ch;
	return t;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define BURST 32                /* frames per rx_burst, as in hedgewire */
#define MSGS_MAX (BURST * 128)  /* a 1500-byte frame holds < 128 blocks */

/* One pass in a mode. Frames are taken BURST at a time like a worker's
 * rx_burst; BOOK_BULK decodes a burst, then applies its messages with
 * hgw_book_apply_bulk (prefetching ahead), BOOK_CURSOR the same with the
 * worker's cursor (back at every book change), BOOK_EACH applies each
 * message as it is decoded. Returns seconds. */
static double
pass(const struct frames *fr, struct hgw_feed *f, struct hgw_book *b,
     enum mode mode, uint64_t *msgs, uint64_t *changes)
{
	static const struct hgw_feed_conf fc = { .group = 0xE9360C6F, .port = 26477 };
	static const uint8_t *batch[MSGS_MAX];
	/* BOOK_BULK_CK: the checksums as a port with RX checksum offload
	 * reports them (hgw_feed_packet_ck's flags), not summed here */
	const uint32_t ck = mode == BOOK_BULK_CK ?
		HGW_FEED_CK_IP_GOOD | HGW_FEED_CK_L4_GOOD : 0;
	uint64_t ch = 0;

	hgw_feed_init(f, &fc);
	hgw_book_reset(b);
	double c0 = cpu_s(), t0 = now_s();

	for (size_t i = 0; i < fr->n; i += BURST) {
		size_t end = i + BURST < fr->n ? i + BURST : fr->n;
		uint32_t nb = 0;

		for (size_t k = i; k < end; k++) {
			struct hgw_feed_pkt p;
			const uint8_t *m;
			uint16_t l;

			if (hgw_feed_packet_ck(f, fr->buf + fr->off[k],
					       fr->len[k], ck, &p) <= 0)
				continue;
			while ((m = hgw_feed_next(f, &p, &l)) != NULL) {
				if (mode == DECODE_ONLY)
					ch += m[0];	/* keep the loop honest */
				else if (mode == BOOK_EACH)
					ch += hgw_book_apply(b, m) != 0;
				else
					batch[nb++] = m;
			}
		}
		if (mode >= BOOK_BULK)
			ch += apply_batch(b, mode, batch, nb);
	}
	double t = now_s() - t0;

	last_cpu = cpu_s() - c0;

	*msgs = f->stats.messages;
	*changes = ch;
	return t;
}

int
main(int argc, char **argv)
{
	struct frames fr = { 0 };
	struct hgw_book_conf bc = { 8192, 1u << 20, 256 };
	int passes = argc > 2 ? atoi(argv[2]) : 5;
	static struct hgw_feed feed;

	if (argc < 2 || passes < 1) {
		fprintf(stderr, "usage: bench_feed FILE.pcap|FILE.itch [passes] [instruments orders levels]\n");
		return 2;
	}
	if (argc > 5) {
		bc.max_instruments = (uint32_t)atoi(argv[3]);
		bc.max_orders = (uint32_t)atoi(argv[4]);
		bc.max_levels = (uint32_t)atoi(argv[5]);
	}
	if (is_pcap(argv[1]) ? load(argv[1], &fr) < 0 :
	    load_itch(argv[1], &fr) < 0)
		return 1;
	size_t bsz = hgw_book_memsize(&bc);
	/* hedgewire takes the book from DPDK huge pages; do the same here
	 * (2 MB aligned + MADV_HUGEPAGE), or 4 KB pages' TLB misses, not
	 * the book, are what gets measured. HGW_BENCH_4K=1 shows that. */
	size_t asz = (bsz + HUGE_2M - 1) & ~(HUGE_2M - 1);
	void *mem = bsz ? aligned_alloc(HUGE_2M, asz) : NULL;
	int thp = mem != NULL && getenv("HGW_BENCH_4K") == NULL &&
		  madvise(mem, asz, MADV_HUGEPAGE) == 0;
	struct hgw_book *book = mem ? hgw_book_init(mem, &bc) : NULL;

	if (book == NULL) {
		fprintf(stderr, "bench_feed: bad book sizes\n");
		return 1;
	}
	printf("%s: %zu %s, %.1f MB in memory; book %zu MB on %s pages "
	       "(instruments %u, orders %u, levels %u)\n",
	       fr.itch ? "ITCH file" : "capture", fr.n,
	       fr.itch ? "messages" : "frames",
	       (double)fr.used / 1e6, bsz >> 20, thp ? "2 MB (THP)" : "4 KB",
	       bc.max_instruments, bc.max_orders, bc.max_levels);

	static const char *const names[] = { "decode only       ",
		"decode+book each  ", "decode+book bulk  ", "decode+book cursor",
		"bulk, NIC cksums  " };
	const char *input = fr.itch ? "itch " : "pcap ";
	double *t[NMODES], *tc[NMODES];
	uint64_t msgs = 0, changes = 0;
	/* An ITCH file has no checksums: no BOOK_BULK_CK. */
	const int nmodes = fr.itch ? BOOK_BULK_CK : NMODES;

	for (int m = 0; m < nmodes; m++)
	{
		t[m] = calloc((size_t)passes, sizeof(double));
		tc[m] = calloc((size_t)passes, sizeof(double));
	}
	/* HGW_BENCH_MODE=0..4 runs one mode only (for profiling). */
	const char *only = getenv("HGW_BENCH_MODE");

	for (int i = 0; i < passes; i++)
		for (int m = 0; m < nmodes; m++) {
			t[m][i] = only && atoi(only) != m ? 1e9 :
				fr.itch ? pass_itch(&fr, book, (enum mode)m,
						    &msgs, &changes) :
				pass(&fr, &feed, book, (enum mode)m, &msgs, &changes);
			tc[m][i] = t[m][i] == 1e9 ? 1e9 : last_cpu;
		}

	const struct hgw_book_stats *bs = hgw_book_stats(book);
	uint64_t errs = 0;

	for (int e = 0; e < HGW_BOOK_ERR_MAX; e++)
		errs += bs->errors[e];
	printf("messages per pass: %" PRIu64 " (book changes %" PRIu64
	       ", live orders peak %" PRIu64 ", book errors %" PRIu64 ")\n",
	       msgs, changes, bs->live_orders_hwm, errs);
	for (int m = 0; m < nmodes; m++) {
		qsort(t[m], (size_t)passes, sizeof(double), cmp_double);
		qsort(tc[m], (size_t)passes, sizeof(double), cmp_double);
		printf("%s%s: best %6.1f M msg/s (%5.1f ns/msg), median %6.1f M msg/s;"
		       " on-CPU best %6.1f, median %6.1f\n",
		       input, names[m], (double)msgs / t[m][0] / 1e6,
		       t[m][0] * 1e9 / (double)msgs,
		       (double)msgs / t[m][passes / 2] / 1e6,
		       (double)msgs / tc[m][0] / 1e6,
		       (double)msgs / tc[m][passes / 2] / 1e6);
		free(t[m]);
		free(tc[m]);
	}
	free(mem);
	free(fr.buf);
	free(fr.off);
	free(fr.len);
	return 0;
}
