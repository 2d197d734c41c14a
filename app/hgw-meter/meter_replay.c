/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: the replay. Every packet leaves on every copy queue at its
 * release time (--pace), but for what --drop and --corrupt say; the order
 * queues are polled while it waits.
 */
#include "meter_int.h"
#include "meter_match.h"

/* Is frame f (from 0) of the capture one --drop keeps off queue q (1)
 * or --corrupt damages on it (2)? 0: sent as it is. */
static inline int
dropped(const struct meter *m, uint16_t q, uint32_t f)
{
	for (uint32_t r = 0; r < m->ndrops; r++)
		if (m->drops[r].q == q && f + 1 >= m->drops[r].a &&
		    f + 1 <= m->drops[r].b)
			return m->drops[r].corrupt ? 2 : 1;
	return 0;
}

/* --corrupt: a copy of f with one bit of its last byte flipped (the
 * checksums left as they were), for one queue; NULL: no mbuf. */
static struct rte_mbuf *
damaged_copy(struct meter *m, struct rte_mbuf *f)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(f, m->cp_pool, 0, UINT32_MAX);

	if (c != NULL)
		rte_pktmbuf_mtod(c, uint8_t *)[rte_pktmbuf_data_len(c) - 1] ^= 0x04;
	return c;
}

/* Hand frames [i, i + k), all due, to every live TX queue: one burst per
 * queue, queue 0 first, each copy a reference to the loaded mbuf (the PMD
 * drops it once sent). The send time of a frame is the TSC read just
 * before the first of these bursts; later loops keep the first loop's.
 * A full queue is retried while the order queues are polled; one that
 * takes nothing for --stall-ms (a full ring nobody drains, or a memif
 * queue the peer did not connect) is dead from then on: its copies are
 * dropped and counted. */
static void
send_frames(struct meter *m, uint32_t i, uint16_t k, uint64_t t0)
{
	struct rte_mbuf **p = m->pkts + i;
	uint16_t live = 0;
	uint64_t now;

	for (uint16_t q = 0; q < m->copies; q++)
		live += !m->qdead[q];
	if (live == 0) {
		m->tx_dropped += (uint64_t)k * m->copies;
		return;
	}
	for (uint16_t j = 0; j < k; j++)
		rte_mbuf_refcnt_update(p[j], (int16_t)live);
	now = rte_rdtsc();
	for (uint16_t j = 0; j < k; j++) {
		if (m->sent_tsc[i + j] == 0)
			m->sent_tsc[i + j] = now;
		hgw_hist_record(&m->lag, now - (t0 + m->off[i + j]));
	}
	m->packets_sent += k;
	for (uint16_t q = 0; q < m->copies; q++) {
		struct rte_mbuf *sel[BURST], **src = p;
		uint64_t since = now;
		uint16_t done = 0, nq = k;

		if (m->qdead[q]) {
			m->tx_dropped += k;
			continue;
		}
		if (unlikely(m->qdrops[q])) {
			/* --drop: this queue's copy of those frames is lost */
			nq = 0;
			for (uint16_t j = 0; j < k; j++) {
				int d = dropped(m, q, i + j);
				struct rte_mbuf *c;

				if (d == 0) {
					sel[nq++] = p[j];
					continue;
				}
				c = d == 2 ? damaged_copy(m, p[j]) : NULL;
				rte_pktmbuf_free(p[j]); /* our reference */
				if (c != NULL) {
					sel[nq++] = c;
					m->corrupted[q]++;
				} else {
					m->dropped[q]++;
				}
			}
			src = sel;
		}
		while (done < nq) {
			uint16_t s = rte_eth_tx_burst(m->port, q, src + done,
						      (uint16_t)(nq - done));

			if (s != 0) {
				done += s;
				since = rte_rdtsc();
				continue;
			}
			meter_poll_orders(m);
			if (rte_rdtsc() - since > m->stall_tsc || stopped()) {
				if (!stopped())
					m->qdead[q] = 1;
				for (uint16_t j = done; j < nq; j++)
					rte_pktmbuf_free(src[j]); /* our reference */
				m->tx_dropped += nq - done;
				break;
			}
		}
		m->copies_sent += done;
	}
}

/* One pass over the capture, released from t0. */
void
meter_replay_once(struct meter *m, uint64_t t0)
{
	uint32_t i = 0;

	while (i < m->npkts && !stopped()) {
		uint64_t due = t0 + m->off[i], now;
		uint16_t k = 1;

		while ((now = rte_rdtsc()) < due && !stopped())
			meter_poll_orders(m);
		if (now < due)
			break;          /* stopped */
		/* every frame already due leaves in this burst */
		while (k < BURST && i + k < m->npkts && t0 + m->off[i + k] <= now)
			k++;
		send_frames(m, i, k, t0);
		i += k;
		meter_poll_orders(m);
	}
}

/* Poll the order queues for ms milliseconds (or until a signal). */
void
meter_poll_for(struct meter *m, uint32_t ms)
{
	const uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 1000 * ms;

	while (rte_rdtsc() < end && !stopped())
		meter_poll_orders(m);
}
