/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: ITCH 5.0 message length and name tables.
 */
#include "hgw_itch.h"

#define HGW_ITCH_TYPES(X)                                  \
	X('S', 12, "System Event")                         \
	X('R', 39, "Stock Directory")                      \
	X('H', 25, "Stock Trading Action")                 \
	X('Y', 20, "Reg SHO Restriction")                  \
	X('L', 26, "Market Participant Position")          \
	X('V', 35, "MWCB Decline Level")                   \
	X('W', 12, "MWCB Status")                          \
	X('K', 28, "IPO Quoting Period")                   \
	X('J', 35, "LULD Auction Collar")                  \
	X('h', 21, "Operational Halt")                     \
	X('A', 36, "Add Order")                            \
	X('F', 40, "Add Order with MPID")                  \
	X('E', 31, "Order Executed")                       \
	X('C', 36, "Order Executed with Price")            \
	X('X', 23, "Order Cancel")                         \
	X('D', 19, "Order Delete")                         \
	X('U', 35, "Order Replace")                        \
	X('P', 44, "Trade")                                \
	X('Q', 40, "Cross Trade")                          \
	X('B', 19, "Broken Trade")                         \
	X('I', 50, "NOII")                                 \
	X('N', 20, "RPII")

#define HGW_ITCH_LEN_ENTRY(t, l, n) [(uint8_t)(t)] = (l),
const uint8_t hgw_itch_msg_len[256] = {
	HGW_ITCH_TYPES(HGW_ITCH_LEN_ENTRY)
};

#define HGW_ITCH_NAME_ENTRY(t, l, n) [(uint8_t)(t)] = (n),
static const char *const itch_names[256] = {
	HGW_ITCH_TYPES(HGW_ITCH_NAME_ENTRY)
};

const char *
hgw_itch_type_name(uint8_t type)
{
	return itch_names[type];
}
