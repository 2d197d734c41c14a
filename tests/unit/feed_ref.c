/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: the feed decoder without its in-order fast path, under
 * the names ref_feed_*, so that test_feed can decode the same frames with
 * both and require the same results.
 */
#define HGW_FEED_NO_FAST_PATH
#define hgw_feed_drop_name     ref_feed_drop_name
#define hgw_feed_drop_help     ref_feed_drop_help
#define hgw_feed_drop_by_name  ref_feed_drop_by_name
#define hgw_feed_session_key   ref_feed_session_key
#define hgw_feed_init          ref_feed_init
#define hgw_feed_packet        ref_feed_packet
#define hgw_feed_packet_ck     ref_feed_packet_ck
#define hgw_feed_drops_total   ref_feed_drops_total
#define hgw_feed_stats_add     ref_feed_stats_add
#include "feed.c"
