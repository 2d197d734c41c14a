/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the captures a net_pcap port replays, checked like input.
 */
#ifndef HGW_APP_CAPTURE_H
#define HGW_APP_CAPTURE_H

#include <stdint.h>
#include <stdio.h>

/* At start-up: for a net_pcap port, every rx_pcap file it replays must
 * be an Ethernet capture (else exit with one line naming the file and
 * its link type). Other ports: nothing to check. */
void hgw_capture_check_start(uint16_t port);

/* At exit: was every capture readable to its end? The port replays a
 * capture until a read error as if the feed had gone quiet; this says
 * which file broke and after which frame. Returns the number of
 * captures with a read error (0: all whole). */
unsigned int hgw_capture_check_end(FILE *out);

#endif /* HGW_APP_CAPTURE_H */
