/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: the feed decoder without its in-order fast path
 * (feed_ref.c, names ref_feed_*), and a comparison of two decoders'
 * states, for the tests that decode the same frames with both.
 */
#ifndef HGW_FEED_REF_H
#define HGW_FEED_REF_H

#include <string.h>

#include "hgw_feed.h"

int ref_feed_init(struct hgw_feed *f, const struct hgw_feed_conf *conf);
int ref_feed_packet_ck(struct hgw_feed *f, const uint8_t *frame,
		       uint32_t len, uint32_t ck, struct hgw_feed_pkt *p);

/* 1 when two decoders are in the same state. */
static inline int
feed_same(const struct hgw_feed *a, const struct hgw_feed *b)
{
	return memcmp(&a->stats, &b->stats, sizeof(a->stats)) == 0 &&
	       memcmp(a->sessions, b->sessions, sizeof(a->sessions)) == 0 &&
	       a->nsessions == b->nsessions && a->current == b->current &&
	       a->suspect == b->suspect &&
	       a->suspect_session == b->suspect_session &&
	       a->suspect_seq == b->suspect_seq &&
	       a->suspect_end == b->suspect_end &&
	       a->cand_packets == b->cand_packets &&
	       a->cand_next == b->cand_next &&
	       memcmp(a->cand_name, b->cand_name, sizeof(a->cand_name)) == 0;
}

/* 1 when two packets a decoder gave are the same. */
static inline int
feed_pkt_same(const struct hgw_feed_pkt *a, const struct hgw_feed_pkt *b)
{
	return a->session == b->session && a->seq == b->seq &&
	       a->left == b->left && a->gap == b->gap && a->end == b->end &&
	       a->join == b->join && a->next == b->next;
}

#endif
