/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-inspect: one ITCH 5.0 message as one line, every field, either as
 * key=value pairs or as a JSON object with the same keys.
 */
#ifndef HGW_INSPECT_SHOW_H
#define HGW_INSPECT_SHOW_H

#include <stddef.h>
#include <stdint.h>

#include "hgw_itch.h"

#define SHOW_SESSION_LEN 10	/* MoldUDP64 session field */

/* Where a message was found: frame number (1-based, as in Wireshark),
 * raw 10-byte MoldUDP64 session and the message's sequence number. */
struct show_at {
	uint64_t frame;
	const uint8_t *session;	/* SHOW_SESSION_LEN bytes */
	uint64_t seq;
};

/* Short stable name of a message type ("add_order"), or NULL for a type
 * ITCH 5.0 does not define. */
const char *show_type_name(uint8_t type);

/* The raw 8-byte stock field of a message, or NULL for a type that names
 * no stock. msg must be a well-formed message (hgw_itch_len_ok). */
const uint8_t *show_stock(const uint8_t *msg);

/* Format msg, a well-formed message, as one line ending in '\n' into buf.
 * Returns the line's length; a line that does not fit is cut at cap - 1
 * (a buffer of SHOW_LINE_MAX bytes always fits). */
#define SHOW_LINE_MAX 1024
size_t show_line(char *buf, size_t cap, int json, const struct show_at *at,
		 const uint8_t *msg);

#endif /* HGW_INSPECT_SHOW_H */
