/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: outgoing orders, inside the library.
 *
 * Internal: included by the library's own .c files and by
 * tests/unit/test_order.c, which checks the decoder against each length;
 * never by users of hgw_order_dep (its include path holds hgw_order.h
 * alone).
 */
#ifndef HGW_ORDER_INTERNAL_H
#define HGW_ORDER_INTERNAL_H

#include "hgw_order.h"

/* Fixed lengths of the OUCH 5.0 server messages (type byte included);
 * A, U, E and R end with an appendage length and carry that many more
 * bytes of optional fields. */
#define HGW_OUCH_SYSTEM_EVENT_LEN   10
#define HGW_OUCH_ACCEPTED_LEN       64
#define HGW_OUCH_REPLACED_LEN       68
#define HGW_OUCH_CANCELED_LEN       18
#define HGW_OUCH_AIQ_CANCELED_LEN   31
#define HGW_OUCH_EXECUTED_LEN       36
#define HGW_OUCH_BROKEN_LEN         36
#define HGW_OUCH_REJECTED_LEN       29
#define HGW_OUCH_CANCEL_PENDING_LEN 13
#define HGW_OUCH_CANCEL_REJECT_LEN  13
#define HGW_OUCH_MODIFIED_LEN       18
#define HGW_OUCH_RESTATED_LEN       16

#endif /* HGW_ORDER_INTERNAL_H */
