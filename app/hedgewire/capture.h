/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the captures a net_pcap port replays, checked like input.
 */
#ifndef HGW_APP_CAPTURE_H
#define HGW_APP_CAPTURE_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#define HGW_CAPTURES_MAX 32

/* The captures a port replays, as found at start-up (a file given on
 * several queues once). */
struct hgw_captures {
	unsigned int n;
	struct hgw_capture {
		char path[PATH_MAX];
		/* pcap: the bytes of a record header (16; 24 in the
		 * "modified" format); 0: pcapng */
		unsigned int rechdr;
	} f[HGW_CAPTURES_MAX];
};

/* At start-up: for a net_pcap port, every rx_pcap file it replays (pcap
 * or pcapng) must be an Ethernet capture, and in pcapng every interface
 * must be Ethernet with the first one's snapshot length (else exit with
 * one line naming the file and what libpcap cannot read). Other ports:
 * nothing to check. */
void hgw_capture_check_start(struct hgw_captures *cs, uint16_t port);

/* At exit: was every capture readable to its end? The port takes a read
 * error for a quiet feed and reads on where libpcap can (past a bad
 * block or record header; not past a file cut mid-record); this reads
 * each capture again the same way and says which file broke, after which
 * frame, and whether the replay went on. Returns the number of captures
 * with a read error (0: all whole). */
unsigned int hgw_capture_check_end(const struct hgw_captures *cs, FILE *out);

#endif /* HGW_APP_CAPTURE_H */
