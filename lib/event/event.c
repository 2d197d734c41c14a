/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: control events, decision digests and checkpoints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hgw_event.h"

#define EVENT_NAME(code, name) [HGW_EVENT_##code] = name,
static const char *const type_names[HGW_EVENT_MAX] = {
	HGW_EVENT_TYPES(EVENT_NAME)
};

const char *
hgw_event_type_name(enum hgw_event_type t)
{
	return (unsigned int)t < HGW_EVENT_MAX ? type_names[t] : "unknown";
}

const char *
hgw_leave_reason_name(enum hgw_leave_reason r)
{
	switch (r) {
	case HGW_LEAVE_DIGEST:
		return "digest";
	case HGW_LEAVE_NO_MAJORITY:
		return "no_majority";
	case HGW_LEAVE_STUCK:
		return "stuck";
	default:
		return "none";
	}
}

int
hgw_event_describe(const struct hgw_event *e,
		   const char *(*limit_name)(int), uint32_t patch_count,
		   char *buf, size_t len)
{
	const char *t = hgw_event_type_name((enum hgw_event_type)e->type);

	switch (e->type) {
	case HGW_EVENT_KILL:
		return snprintf(buf, len, "%s %u", t, e->arg);
	case HGW_EVENT_DISABLE:
		return snprintf(buf, len, "%s %.8s %u", t, e->symbol, e->arg);
	case HGW_EVENT_LIMIT: {
		const char *n = limit_name != NULL ? limit_name((int)e->arg) :
			NULL;

		if (n != NULL)
			return snprintf(buf, len, "%s %s %" PRIu64, t, n,
					e->value);
		return snprintf(buf, len, "%s %u %" PRIu64, t, e->arg,
				e->value);
	}
	case HGW_EVENT_PATCH:
		return snprintf(buf, len, "%s %u", t, patch_count);
	case HGW_EVENT_UNSENT: {
		char hex[2 * 10 + 1];

		for (int i = 0; i < 10; i++)
			snprintf(hex + 2 * i, 3, "%02x", (uint8_t)e->symbol[i]);
		return snprintf(buf, len, "%s %s %" PRIu64, t, hex, e->value);
	}
	case HGW_EVENT_VENUE: {
		const struct hgw_event_venue *v = &e->venue;

		return snprintf(buf, len, "%s %" PRIu64 " %c %" PRIu32 " %"
				PRIu32 " %" PRIu32 " %c %u %" PRIu64, t,
				e->value, v->type > ' ' && v->type <= '~' ?
				v->type : '?', v->user_ref, v->qty,
				v->orig_user_ref, v->side > ' ' && v->side <= '~' ?
				v->side : '-', v->reason, v->price);
	}
	default:
		return snprintf(buf, len, "unknown %u", e->type);
	}
}

void
hgw_ckpt_publish(struct hgw_ckpt_ring *r, const struct hgw_ckpt *c)
{
	/* relaxed: only this thread writes n */
	uint64_t n = atomic_load_explicit(&r->n, memory_order_relaxed);
	struct hgw_ckpt_slot *s = &r->slot[n % HGW_CKPT_SLOTS];
	uint64_t sn = atomic_load_explicit(&s->sn, memory_order_relaxed);

	/* odd: a reader that sees it, or sees it change, discards */
	atomic_store_explicit(&s->sn, sn + 1, memory_order_relaxed);
	/* release fence: the odd sn is ordered before the field stores, so
	 * a reader whose field loads see a new value also sees sn changed */
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&s->key, c->key, memory_order_relaxed);
	atomic_store_explicit(&s->seq, c->seq, memory_order_relaxed);
	atomic_store_explicit(&s->digest, c->digest, memory_order_relaxed);
	atomic_store_explicit(&s->decisions, c->decisions,
			      memory_order_relaxed);
	/* release: the fields happen-before a reader's acquire of sn */
	atomic_store_explicit(&s->sn, sn + 2, memory_order_release);
	/* release: the slot happens-before a reader's acquire of n */
	atomic_store_explicit(&r->n, n + 1, memory_order_release);
}

/* Read one slot consistently: 0, or -1 when torn or being written. */
static int
slot_read(const struct hgw_ckpt_slot *s, struct hgw_ckpt *out)
{
	/* acquire: the field loads below are not hoisted above it */
	uint64_t a = atomic_load_explicit(&s->sn, memory_order_acquire);

	if (a & 1)
		return -1;
	out->key = atomic_load_explicit(&s->key, memory_order_relaxed);
	out->seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	out->digest = atomic_load_explicit(&s->digest, memory_order_relaxed);
	out->decisions = atomic_load_explicit(&s->decisions,
					      memory_order_relaxed);
	/* acquire fence: the field loads above come before the re-check */
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&s->sn, memory_order_relaxed) == a &&
	       a != 0 ? 0 : -1;
}

int
hgw_ckpt_latest(const struct hgw_ckpt_ring *r, struct hgw_ckpt *out)
{
	/* acquire: pairs with the writer's release of n */
	uint64_t n = atomic_load_explicit(&r->n, memory_order_acquire);

	if (n == 0)
		return -1;
	return slot_read(&r->slot[(n - 1) % HGW_CKPT_SLOTS], out);
}

int
hgw_ckpt_find(const struct hgw_ckpt_ring *r, uint64_t key, uint64_t seq,
	      struct hgw_ckpt *out)
{
	for (uint32_t i = 0; i < HGW_CKPT_SLOTS; i++) {
		struct hgw_ckpt c;

		if (slot_read(&r->slot[i], &c) == 0 && c.key == key &&
		    c.seq == seq) {
			*out = c;
			return 0;
		}
	}
	return -1;
}

uint32_t
hgw_digest_vote(const uint64_t *digest, uint32_t n, uint8_t *keep)
{
	uint32_t best = 0, best_i = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t same = 0;

		for (uint32_t j = 0; j < n; j++)
			same += digest[j] == digest[i];
		if (same > best) {
			best = same;
			best_i = i;
		}
	}
	if (2 * best <= n)
		best = 0;	/* no strict majority: nobody is kept */
	for (uint32_t i = 0; i < n; i++)
		keep[i] = best != 0 && digest[i] == digest[best_i];
	return best;
}

int
hgw_pos_decode(uint64_t word, uint32_t nmax, uint32_t *sidx, uint64_t *seq)
{
	uint32_t s = (uint32_t)(word >> 56);

	if (s == 0 || s > nmax)
		return 0;
	*sidx = s - 1;
	*seq = word & HGW_POS_SEQ_MASK;
	return 1;
}

int
hgw_pos_at_or_past(const struct hgw_pos_session *met, uint32_t sidx,
		   uint64_t seq, uint64_t key, uint64_t at)
{
	if (met[sidx].key == key)
		return seq >= at;
	for (uint32_t s = 0; s < sidx; s++)
		if (met[s].key == key)
			return 1;
	return 0;
}

int
hgw_pos_furthest(const uint64_t *word, const struct hgw_pos_session *const *met,
		 uint32_t n, uint32_t nmax, uint32_t *sidx, uint64_t *seq)
{
	int b = -1;
	uint32_t bs = 0;
	uint64_t bq = 0;

	for (uint32_t j = 0; j < n; j++) {
		uint32_t s;
		uint64_t q;

		if (!hgw_pos_decode(word[j], nmax, &s, &q))
			continue;
		/* strictly past the best so far: the first of equals stays */
		if (b < 0 || hgw_pos_at_or_past(met[j], s, q, met[b][bs].key,
						bq + 1)) {
			b = (int)j;
			bs = s;
			bq = q;
		}
	}
	if (b >= 0) {
		*sidx = bs;
		*seq = bq;
	}
	return b;
}
