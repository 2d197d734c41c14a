/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the venue gate and the downstream relay, inside the library.
 *
 * Internal: included by the library's own .c files only, never by users of
 * hgw_vgate_dep (its include path holds hgw_vgate.h alone).
 */
#ifndef HGW_VGATE_INTERNAL_H
#define HGW_VGATE_INTERNAL_H

/* A relay message (the format: hgw_vgate.h): its header, magic to type,
 * and the longest one (an 'S' with a venue message of up to 1024 bytes,
 * and the tag). */
#define HGW_RELAY_HDR    15             /* magic .. type */
#define HGW_RELAY_MAX    (HGW_RELAY_HDR + 8 + 1024 + HGW_RELAY_TAG)

#endif /* HGW_VGATE_INTERNAL_H */
