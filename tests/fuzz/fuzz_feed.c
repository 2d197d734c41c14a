/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire fuzzing: frames -> feed decoder -> order book.
 *
 * Input: a sequence of records [u16 big-endian length][frame bytes], so one
 * input drives the sequence tracker across several packets (gaps,
 * duplicates, end of session). Every decoded message goes to a small book,
 * and the book's own consistency check runs after each input: an
 * inconsistency aborts like a crash does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hgw_book.h"
#include "hgw_feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hgw_book *book;

static struct hgw_book *
book_get(void)
{
	static const struct hgw_book_conf bc = {
		.max_instruments = 64, .max_orders = 512, .max_levels = 8,
	};

	if (book == NULL) {
		void *mem = aligned_alloc(64, hgw_book_memsize(&bc));

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
	};
	struct hgw_feed feed;
	struct hgw_book *b = book_get();
	char why[160];

	hgw_feed_init(&feed, &fc);
	while (size >= 2) {
		size_t len = hgw_be16(data);
		struct hgw_feed_pkt p;
		const uint8_t *msg;
		uint16_t mlen;

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		if (hgw_feed_packet(&feed, data, (uint32_t)len, &p) > 0)
			while ((msg = hgw_feed_next(&feed, &p, &mlen)) != NULL)
				hgw_book_apply(b, msg);
		data += len;
		size -= len;
	}
	if (hgw_book_check(b, why, sizeof(why)) != 0) {
		fprintf(stderr, "book inconsistent: %s\n", why);
		abort();
	}
	return 0;
}
