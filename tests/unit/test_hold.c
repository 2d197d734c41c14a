/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the buffer of frames held past a sequence gap
 * (app/hedgewire/worker_hold.c) and its recovery requests: frames kept
 * in sequence order, the other line's copy recognised, the first one
 * taken off, when a gap is given up on and why, and the MoldUDP64
 * re-request frames it sends, read back from a net_ring port (its TX
 * queue and its RX queue are one ring) and checked
 * against the MoldUDP64 specification's request layout (session, 10
 * bytes; sequence number, 8; message count, 2; big-endian) and the
 * Ethernet/IPv4/UDP headers before it. EAL in memory, no huge pages.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "hgw_test.h"
#include "worker_int.h"

/* Stand-ins for frames: the buffer keeps the pointers and never reads
 * through them. */
static struct rte_mbuf fake[8];

static struct rte_mempool *pool;
static uint16_t port;           /* net_ring0: what it sends, it receives */

static struct hgw_feed_pkt
pkt(uint64_t seq, uint16_t left)
{
	return (struct hgw_feed_pkt){ .seq = seq, .left = left, .session = 0 };
}

/* A worker with one session expected at next_seq; lines 1 or 2; a wait
 * of wait_ms before one line gives a gap up; no recovery. */
static struct hgw_worker *
worker(uint32_t lines, uint64_t next_seq, uint32_t wait_ms)
{
	struct hgw_worker *w = calloc(1, sizeof(*w));

	if (w == NULL)
		abort();
	w->lines = (uint16_t)lines;
	w->hold.max = 4;
	w->hold.wait_tsc = rte_get_tsc_hz() / 1000 * wait_ms;
	w->feed.nsessions = 1;
	memcpy(w->feed.sessions[0].name, "SESSION001", HGW_MOLD_SESSION_LEN);
	w->feed.sessions[0].next_seq = next_seq;
	w->feed.rq_session = -1;
	w->tx_pool = pool;
	w->out.port = port;
	w->out.queue = 0;
	return w;
}

static void
test_put_keeps_sequence_order(void)
{
	struct hgw_worker *w = worker(2, 5, 1000);
	struct hgw_feed_pkt a = pkt(30, 2), b = pkt(10, 3), c = pkt(20, 1);

	w->hold.line_end[1] = 99;
	w->cur_line = 0;
	wk_hold_put(w, &fake[0], &a);
	/* the first held frame starts the wait: what the other line
	 * delivered before says nothing about this gap */
	HGW_CHECK(w->hold.since != 0);
	HGW_CHECK_EQ(w->hold.line_end[1], 0);
	w->cur_line = 1;
	wk_hold_put(w, &fake[1], &b);
	wk_hold_put(w, &fake[2], &c);
	HGW_CHECK_EQ(w->hold.n, 3);
	HGW_CHECK_EQ(w->hold.held, 3);
	HGW_CHECK_EQ(w->hold.seq[0], 10);
	HGW_CHECK_EQ(w->hold.seq[1], 20);
	HGW_CHECK_EQ(w->hold.seq[2], 30);
	HGW_CHECK(w->hold.m[0] == &fake[1] && w->hold.m[1] == &fake[2] &&
		  w->hold.m[2] == &fake[0]);
	HGW_CHECK_EQ(w->hold.left[0], 3);
	HGW_CHECK_EQ(w->hold.line[0], 1);
	HGW_CHECK_EQ(w->hold.line[2], 0);
	/* no recovery configured: nothing asked */
	HGW_CHECK_EQ(w->rq.requests + w->rq.no_mbuf + w->rq.tx_full, 0);
	free(w);
}

static void
test_copy_of_a_held_frame(void)
{
	struct hgw_worker *w = worker(2, 5, 1000);
	struct hgw_feed_pkt a = pkt(10, 3), same = pkt(10, 3);
	struct hgw_feed_pkt shorter = pkt(10, 2), hb = pkt(10, 0);

	w->cur_line = 0;
	HGW_CHECK_EQ(wk_hold_copy(w, &fake[0], &a), 0);
	wk_hold_put(w, &fake[0], &a);
	HGW_CHECK_EQ(w->hold.line_end[0], 13);
	/* line B's copy: not held twice, freed after the batch */
	w->cur_line = 1;
	HGW_CHECK_EQ(wk_hold_copy(w, &fake[1], &same), 1);
	HGW_CHECK_EQ(w->hold.nfree, 1);
	HGW_CHECK(w->hold.free[0] == &fake[1]);
	HGW_CHECK_EQ(w->hold.line_end[1], 13);
	/* other messages from the same number, or a heartbeat announcing
	 * it: not copies */
	HGW_CHECK_EQ(wk_hold_copy(w, &fake[2], &shorter), 0);
	HGW_CHECK_EQ(wk_hold_copy(w, &fake[3], &hb), 0);
	/* ... even when a heartbeat with that number is held */
	wk_hold_put(w, &fake[3], &hb);
	HGW_CHECK_EQ(wk_hold_copy(w, &fake[4], &hb), 0);
	HGW_CHECK_EQ(w->hold.nfree, 1);
	HGW_CHECK_EQ(w->hold.n, 2);
	free(w);
}

static void
test_taken_in_order(void)
{
	struct hgw_worker *w = worker(1, 5, 1000);
	struct hgw_feed_pkt a = pkt(10, 1), b = pkt(11, 1), c = pkt(12, 1);

	wk_hold_put(w, &fake[0], &c);
	wk_hold_put(w, &fake[1], &a);
	wk_hold_put(w, &fake[2], &b);
	wk_hold_taken(w);
	HGW_CHECK_EQ(w->hold.n, 2);
	HGW_CHECK_EQ(w->hold.taken, 1);
	HGW_CHECK(w->hold.free[0] == &fake[1]);	/* seq 10 first */
	HGW_CHECK_EQ(w->hold.seq[0], 11);
	HGW_CHECK_EQ(w->hold.seq[1], 12);
	HGW_CHECK(w->hold.m[0] == &fake[2] && w->hold.m[1] == &fake[0]);
	wk_hold_taken(w);
	wk_hold_taken(w);
	HGW_CHECK_EQ(w->hold.n, 0);
	HGW_CHECK_EQ(w->hold.nfree, 3);
	HGW_CHECK(w->hold.free[2] == &fake[0]);
	free(w);
}

static void
test_give_up_two_lines(void)
{
	struct hgw_worker *w = worker(2, 5, 60000);
	struct hgw_feed_pkt a = pkt(10, 2);

	w->cur_line = 0;
	wk_hold_copy(w, &fake[0], &a);
	wk_hold_put(w, &fake[0], &a);
	/* line B has not delivered past the gap: wait */
	HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_NONE);
	/* it has: both lines lost it */
	w->hold.line_end[1] = 12;
	HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_BOTH_LINES);
	wk_hold_gave_up(w, HGW_HALT_BOTH_LINES);
	HGW_CHECK_EQ(w->hold.gaps_both, 1);
	HGW_CHECK_EQ(w->rq.failed, 0);
	free(w);
}

static void
test_give_up_after_the_wait(void)
{
	struct hgw_worker *w = worker(1, 5, 1);
	struct hgw_feed_pkt a = pkt(10, 2);

	wk_hold_put(w, &fake[0], &a);
	rte_delay_us_block(3000);
	/* the wait is over, but the line has not been polled empty since
	 * the gap began (a worker off its CPU): not yet */
	HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_NONE);
	w->hold.line_empty[0] = rte_rdtsc();
	HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_GAP);
	/* two lines: both must have been polled empty */
	w->lines = 2;
	HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_NONE);
	w->hold.line_empty[1] = rte_rdtsc();
	HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_BOTH_LINES);
	free(w);
}

/* The next frame the port sent: its MoldUDP64 request (session, seq,
 * count) read by the specification's layout, after the Ethernet, IPv4
 * and UDP headers; 0 when there was none or it was not one. */
static int
sent_request(char session[10], uint64_t *seq, uint16_t *count)
{
	struct rte_mbuf *m;
	const uint8_t *f, *p;
	int ok;

	if (rte_eth_rx_burst(port, 0, &m, 1) != 1)
		return 0;
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	p = f + 14 + 20 + 8;
	ok = rte_pktmbuf_data_len(m) == 14 + 20 + 8 + 20 &&
	     f[12] == 0x08 && f[13] == 0x00 &&          /* IPv4 */
	     f[14] == 0x45 && f[23] == 17 &&            /* no options, UDP */
	     (f[38] << 8 | f[39]) == 8 + 20 &&          /* UDP length */
	     (f[36] << 8 | f[37]) == 26400;             /* to the server */
	memcpy(session, p, 10);
	*seq = 0;
	for (int i = 0; i < 8; i++)
		*seq = *seq << 8 | p[10 + i];
	*count = (uint16_t)(p[18] << 8 | p[19]);
	rte_pktmbuf_free(m);
	return ok;
}

static struct hgw_worker *
recovering_worker(uint64_t next_seq)
{
	struct hgw_worker *w = worker(1, next_seq, 1000);

	w->rq.on = 1;
	w->rq.retries = 2;
	w->rq.max_messages = 100;
	w->rq.timeout_tsc = rte_get_tsc_hz() / 1000;	/* 1 ms */
	w->rq.addr = (struct hgw_mold_addr){
		.src_mac = { 2, 0, 0, 0, 0, 1 }, .dst_mac = { 2, 0, 0, 0, 0, 2 },
		.src_ip = 0x0a000001, .dst_ip = 0x0a000002,
		.src_port = 26500, .dst_port = 26400 };
	return w;
}

static void
test_recovery_requests(void)
{
	struct hgw_worker *w = recovering_worker(5);
	struct hgw_feed_pkt a = pkt(400, 2);
	char name[10];
	uint64_t seq;
	uint16_t count;

	/* the first held frame asks for 5 .. 399, at most 100 of them */
	wk_hold_put(w, &fake[0], &a);
	HGW_CHECK_EQ(w->rq.requests, 1);
	HGW_CHECK(w->rq.active);
	HGW_CHECK(sent_request(name, &seq, &count));
	HGW_CHECK(memcmp(name, "SESSION001", 10) == 0);
	HGW_CHECK_EQ(seq, 5);
	HGW_CHECK_EQ(count, 100);
	/* the decoder takes answers inside what was asked only */
	HGW_CHECK_EQ(w->feed.rq_session, 0);
	HGW_CHECK_EQ(w->feed.rq_lo, 5);
	HGW_CHECK_EQ(w->feed.rq_hi, 105);
	/* before the deadline: nothing */
	w->rq.deadline = rte_rdtsc() + rte_get_tsc_hz() * 3600;
	HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_NONE);
	HGW_CHECK(!sent_request(name, &seq, &count));
	/* all that was asked came and the gap goes on: the rest asked */
	w->feed.sessions[0].next_seq = 105;
	wk_hold_recovery_next(w);
	HGW_CHECK_EQ(w->rq.requests, 2);
	HGW_CHECK(sent_request(name, &seq, &count));
	HGW_CHECK_EQ(seq, 105);
	HGW_CHECK_EQ(count, 100);
	/* no answer: two retries, each after twice the last timeout, then
	 * the gap is given up on */
	for (uint32_t k = 0; k < 2; k++) {
		uint64_t t = w->rq.cur_timeout, before = rte_rdtsc();

		w->rq.deadline = 0;	/* the deadline has passed */
		HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_NONE);
		HGW_CHECK_EQ(w->rq.cur_timeout, 2 * t);
		HGW_CHECK(w->rq.deadline >= before + 2 * t);
		HGW_CHECK(sent_request(name, &seq, &count));
		HGW_CHECK_EQ(seq, 105);
	}
	w->rq.deadline = 0;
	HGW_CHECK_EQ(wk_hold_check(w), HGW_HALT_NO_ANSWER);
	wk_hold_gave_up(w, HGW_HALT_NO_ANSWER);
	HGW_CHECK_EQ(w->rq.failed, 1);
	HGW_CHECK(!w->rq.active);
	HGW_CHECK_EQ(w->feed.rq_session, -1);
	HGW_CHECK_EQ(w->rq.requests, 4);
	free(w);
}

static void
test_recovery_filled(void)
{
	struct hgw_worker *w = recovering_worker(5);
	struct hgw_feed_pkt a = pkt(50, 2);
	char name[10];
	uint64_t seq;
	uint16_t count;

	wk_hold_put(w, &fake[0], &a);
	HGW_CHECK(sent_request(name, &seq, &count));
	HGW_CHECK_EQ(count, 45);
	/* the answers came, and the held frame was taken */
	w->feed.sessions[0].next_seq = 52;
	wk_hold_taken(w);
	wk_hold_recovery_next(w);
	HGW_CHECK_EQ(w->rq.recovered, 1);
	HGW_CHECK(!w->rq.active);
	HGW_CHECK_EQ(w->feed.rq_session, -1);
	HGW_CHECK(!sent_request(name, &seq, &count));
	/* a halted worker asks for nothing: it will not trade again */
	w->halt = HGW_HALT_GAP;
	wk_hold_put(w, &fake[1], &a);
	HGW_CHECK_EQ(w->rq.requests, 1);
	HGW_CHECK(!sent_request(name, &seq, &count));
	free(w);
}

int
main(void)
{
	char *eal[] = { "test_hold", "--no-huge", "--no-pci", "--no-shconf",
			"-m", "64", "-l", "0", "--log-level=error",
			"--vdev=net_ring0" };
	struct rte_eth_conf conf = { 0 };
	uint16_t p;

	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("Bail out! EAL init failed\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("test_hold", 255, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL || rte_eth_dev_get_port_by_name("net_ring0", &p) != 0 ||
	    rte_eth_dev_configure(p, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(p, 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(p, 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(p) != 0) {
		printf("Bail out! no mempool or net_ring port\n");
		return 1;
	}
	port = p;
	HGW_TEST(test_put_keeps_sequence_order);
	HGW_TEST(test_copy_of_a_held_frame);
	HGW_TEST(test_taken_in_order);
	HGW_TEST(test_give_up_two_lines);
	HGW_TEST(test_give_up_after_the_wait);
	HGW_TEST(test_recovery_requests);
	HGW_TEST(test_recovery_filled);
	rte_eal_cleanup();
	return hgw_test_done();
}
