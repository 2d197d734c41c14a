/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire fuzzing: frames -> feed decoder -> order book.
 *
 * Input: a sequence of records [u16 big-endian length][frame bytes], so one
 * input drives the sequence tracker across several packets (gaps,
 * duplicates, end of session, suspect jumps, new sessions). The length's
 * top bit asks for the frame's IPv4 and UDP checksums to be made right
 * first, so that mutated frames get past the checksums to the sequencing
 * as often as they fail them; its next bit has them taken as good, as a
 * port with RX checksum offload reports them (a frame is shorter than
 * 2^14 bytes). Every decoded message goes to a small book,
 * and the book's own consistency check runs after each input: an
 * inconsistency aborts like a crash does.
 *
 * Each frame is copied to a buffer of exactly its length, so that a read
 * past its end is one AddressSanitizer sees. It is decoded twice: by the
 * decoder and by the same code without its in-order fast path
 * (tests/unit/feed_ref.c); a difference in return code, packet, messages
 * handed out or decoder state aborts too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hgw_book.h"
#include "hgw_cksum.h"
#include "hgw_feed.h"
#include "feed_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Make a frame's IPv4 header and UDP checksums right, where it has
 * them within len (anything else is left as it is). */
static void
fix_checksums(uint8_t *b, size_t len)
{
	size_t ip = 14, ihl, ulen;

	if (len < 14)
		return;
	if (hgw_be16(b + 12) == 0x8100 || hgw_be16(b + 12) == 0x88A8)
		ip = 18;
	if (len < ip + 20)
		return;
	ihl = (size_t)(b[ip] & 0x0F) * 4;
	if (ihl < 20 || len < ip + ihl + 8)
		return;
	ulen = hgw_be16(b + ip + ihl + 4);
	if (ulen < 8 || ip + ihl + ulen > len)
		return;
	hgw_cksum_fill_ipv4_udp(b + ip, (uint32_t)ihl);
}

static struct hgw_book *book;

static struct hgw_book *
book_get(void)
{
	static const struct hgw_book_conf bc = {
		.max_instruments = 64, .max_orders = 512, .max_levels = 8,
	};

	if (book == NULL) {
		void *mem = aligned_alloc(HGW_BOOK_ALIGN, hgw_book_memsize(&bc));

		if (mem == NULL)
			abort();
		book = hgw_book_init(mem, &bc);
	}
	hgw_book_reset(book);
	return book;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the generator's defaults: 233.54.12.111:26477, any VLAN */
	static const struct hgw_feed_conf fc = {
		.group = 0xE9360C6F, .port = 26477, .vlan = 0,
		.max_jump = 1000, .session_confirm = 2,
	};
	struct hgw_feed feed, ref;
	struct hgw_book *b = book_get();
	char why[160];

	hgw_feed_init(&feed, &fc);
	ref_feed_init(&ref, &fc);
	while (size >= 2) {
		size_t len = hgw_be16(data) & 0x3FFF;
		int fix = (data[0] & 0x80) != 0;
		/* as a port with RX checksum offload reports them */
		uint32_t ck = (data[0] & 0x40) != 0 ?
			      HGW_FEED_CK_IP_GOOD | HGW_FEED_CK_L4_GOOD : 0;
		struct hgw_feed_pkt p, rp;
		const uint8_t *msg, *rmsg;
		uint16_t mlen, rlen;
		uint8_t *frame;
		int rc, rrc;

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		/* malloc(0) too: ASan then sees any read of an empty frame */
		frame = malloc(len);
		if (frame == NULL && len != 0)
			abort();
		if (len != 0)
			memcpy(frame, data, len);
		if (fix)
			fix_checksums(frame, len);
		rc = hgw_feed_packet_ck(&feed, frame, (uint32_t)len, ck, &p);
		rrc = ref_feed_packet_ck(&ref, frame, (uint32_t)len, ck, &rp);
		if (rc != rrc || (rc >= 0 && !feed_pkt_same(&p, &rp))) {
			fprintf(stderr, "decoders differ: %d vs %d\n", rc, rrc);
			abort();
		}
		if (rc > 0) {
			do {
				msg = hgw_feed_next(&feed, &p, &mlen);
				rmsg = hgw_feed_next(&ref, &rp, &rlen);
				if (msg != rmsg || (msg != NULL && mlen != rlen)) {
					fprintf(stderr, "decoders hand out "
						"different messages\n");
					abort();
				}
				if (msg != NULL)
					hgw_book_apply(b, msg);
			} while (msg != NULL);
		}
		if (!feed_same(&feed, &ref)) {
			fprintf(stderr, "decoders differ in state\n");
			abort();
		}
		free(frame);
		data += len;
		size -= len;
	}
	if (hgw_book_check(b, why, sizeof(why)) != 0) {
		fprintf(stderr, "book inconsistent: %s\n", why);
		abort();
	}
	return 0;
}
