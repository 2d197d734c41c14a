/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire tests: the SoupBinTCP client session (lib/soupbin) against a
 * scripted server in this process: a socketpair, or a TCP listener on
 * 127.0.0.1 for connects and reconnects. Time is driven by the test.
 *
 * Server packets are written byte by byte here from the SoupBinTCP 3.00
 * layouts, independent of lib/soupbin.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hgw_soupbin.h"
#include "hgw_test.h"

#define MS 1000000ull
#define SEC 1000000000ull

static struct hgw_soup S;

struct got {
	uint32_t n;
	uint64_t seq[64];
	uint8_t first[64];
	size_t len[64];
};

static void
on_msg(void *arg, uint64_t seq, const uint8_t *msg, size_t len)
{
	struct got *g = arg;

	if (g->n < 64) {
		g->seq[g->n] = seq;
		g->first[g->n] = msg[0];
		g->len[g->n] = len;
	}
	g->n++;
}

struct dropped {
	uint32_t n;
	uint8_t last[64];
};

static void
on_drop(void *arg, const uint8_t *pkt, size_t len)
{
	struct dropped *d = arg;

	d->n++;
	memcpy(d->last, pkt, len < 64 ? len : 64);
}

static void
cfg_default(struct hgw_soup_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->ip = 0x7f000001;
	hgw_soup_field(c->username, 6, "U");
	hgw_soup_field(c->password, 10, "P");
	hgw_soup_field(c->session, 10, "");
	c->heartbeat_ns = 1 * SEC;
	c->dead_ns = 15 * SEC;
	c->reconnect_ns = 100 * MS;
	c->out_bytes = 4096;
}

/* server side: write a packet of type t with payload p (n bytes) */
static void
srv_put(int fd, char t, const void *p, size_t n)
{
	uint8_t b[512];

	b[0] = (uint8_t)((n + 1) >> 8);
	b[1] = (uint8_t)(n + 1);
	b[2] = (uint8_t)t;
	memcpy(b + 3, p, n);
	HGW_CHECK_EQ(write(fd, b, n + 3), n + 3);
}

static void
srv_accept_login(int fd, const char *session, uint64_t seq)
{
	char p[30];
	char num[21];

	memset(p, ' ', sizeof(p));
	memcpy(p, session, strlen(session));
	snprintf(num, sizeof(num), "%20llu", (unsigned long long)seq);
	memcpy(p + 10, num, 20);
	srv_put(fd, 'A', p, 30);
}

/* read exactly n bytes the client sent (blocking, with a timeout) */
static ssize_t
srv_read(int fd, uint8_t *b, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t k;

		if (poll(&p, 1, 2000) <= 0)
			break;
		k = read(fd, b + got, n - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* what the client has sent so far, without waiting */
static ssize_t
srv_drain(int fd, uint8_t *b, size_t n)
{
	ssize_t k = recv(fd, b, n, MSG_DONTWAIT);

	return k < 0 ? 0 : k;
}

static int
pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return -1;
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	return 0;
}

/* Login Request bytes exactly as SoupBinTCP lays them out */
static void
test_login_request_bytes(void)
{
	uint8_t b[64];
	static const char want[] =
		"\x00\x2f" "L" "U     " "P         " "S         "
		"                   7";

	HGW_CHECK_EQ(hgw_soup_login_request(b, "U     ", "P         ",
					    "S         ", 7), 49);
	HGW_CHECK(memcmp(b, want, 49) == 0);
	hgw_soup_login_request(b, "U     ", "P         ", "S         ",
			       UINT64_MAX);
	HGW_CHECK(memcmp(b + 29, "18446744073709551615", 20) == 0);
	HGW_CHECK_EQ(hgw_soup_field((char *)b, 6, "TOOLONG"), -1);
	HGW_CHECK_EQ(hgw_soup_field((char *)b, 6, "A\tB"), -1);
}

/* login accepted; sequenced data in order; heartbeats both ways; a
 * silent server is declared dead after dead_ns, not before */
static void
test_session_basic(void)
{
	struct hgw_soup_cfg c;
	struct got g = { 0 };
	uint8_t b[256];
	int sv[2];
	uint64_t t = 1000 * SEC;

	cfg_default(&c);
	HGW_CHECK_EQ(hgw_soup_init(&S, &c, 1), 0);
	HGW_CHECK_EQ(pair(sv), 0);
	hgw_soup_attach(&S, sv[0], t);
	HGW_CHECK_EQ(srv_read(sv[1], b, 49), 49);
	HGW_CHECK(memcmp(b + 29, "                   1", 20) == 0);
	HGW_CHECK_EQ(S.state, HGW_SOUP_LOGIN);
	/* not logged in: orders are refused */
	HGW_CHECK_EQ(hgw_soup_send(&S, (const uint8_t *)"O", 1, t), -1);
	HGW_CHECK_EQ(S.st.refused_down, 1);
	srv_accept_login(sv[1], "S", 1);
	srv_put(sv[1], 'S', "Aaaaa", 5);
	srv_put(sv[1], 'H', "", 0);
	srv_put(sv[1], '+', "debug text", 10);
	srv_put(sv[1], 'S', "Cbb", 3);
	HGW_CHECK_EQ(hgw_soup_poll(&S, t, on_msg, &g), 2);
	HGW_CHECK_EQ(S.state, HGW_SOUP_UP);
	HGW_CHECK_EQ(g.n, 2);
	HGW_CHECK_EQ(g.seq[0], 1);
	HGW_CHECK_EQ(g.seq[1], 2);
	HGW_CHECK_EQ(g.first[1], 'C');
	HGW_CHECK_EQ(g.len[0], 5);
	HGW_CHECK_EQ(S.st.hb_recv, 1);
	HGW_CHECK_EQ(S.st.debug, 1);
	HGW_CHECK_EQ(S.next_seq, 3);
	/* an order goes out as Unsequenced Data */
	HGW_CHECK_EQ(hgw_soup_send(&S, (const uint8_t *)"Oxyz", 4, t), 0);
	HGW_CHECK_EQ(srv_read(sv[1], b, 7), 7);
	HGW_CHECK(memcmp(b, "\x00\x05UOxyz", 7) == 0);
	/* 999 ms after the last send: no heartbeat yet; at 1 s: one */
	hgw_soup_poll(&S, t + 999 * MS, on_msg, &g);
	HGW_CHECK_EQ(srv_drain(sv[1], b, sizeof(b)), 0);
	hgw_soup_poll(&S, t + 1000 * MS, on_msg, &g);
	HGW_CHECK_EQ(srv_read(sv[1], b, 3), 3);
	HGW_CHECK(memcmp(b, "\x00\x01R", 3) == 0);
	HGW_CHECK_EQ(S.st.hb_sent, 1);
	/* the server has been silent since t: alive at 14.999 s */
	hgw_soup_poll(&S, t + 14999 * MS, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_UP);
	/* a server heartbeat keeps it alive */
	srv_put(sv[1], 'H', "", 0);
	hgw_soup_poll(&S, t + 14999 * MS, on_msg, &g);
	hgw_soup_poll(&S, t + 29000 * MS, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_UP);
	hgw_soup_poll(&S, t + 29999 * MS, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	HGW_CHECK_EQ(S.last_loss, HGW_SOUP_LOSS_DEAD);
	HGW_CHECK_EQ(S.st.lost_up, 1);
	/* the peer sees the close (after the heartbeats of the last 29 s) */
	{
		ssize_t k;

		while ((k = read(sv[1], b, sizeof(b))) > 0)
			;
		HGW_CHECK_EQ(k, 0);
	}
	close(sv[1]);
	hgw_soup_fini(&S);
}

static void
test_login_rejected(void)
{
	struct hgw_soup_cfg c;
	uint8_t b[64];
	int sv[2];

	cfg_default(&c);
	HGW_CHECK_EQ(hgw_soup_init(&S, &c, 1), 0);
	HGW_CHECK_EQ(pair(sv), 0);
	hgw_soup_attach(&S, sv[0], 0);
	HGW_CHECK_EQ(srv_read(sv[1], b, 49), 49);
	srv_put(sv[1], 'J', "A", 1);
	hgw_soup_poll(&S, 1, NULL, NULL);
	HGW_CHECK_EQ(S.state, HGW_SOUP_ENDED);
	HGW_CHECK_EQ(S.st.rejects, 1);
	HGW_CHECK_EQ(S.last_loss, HGW_SOUP_LOSS_REJECTED);
	HGW_CHECK_EQ(S.st.lost_up, 0);
	/* no reconnect, however long */
	hgw_soup_poll(&S, 100 * SEC, NULL, NULL);
	HGW_CHECK_EQ(S.st.connects, 0);
	close(sv[1]);
	hgw_soup_fini(&S);
}

/* One scripted misbehaviour: what the server sends after logging in
 * (login: 0 for none, else the accepted sequence number), and what the
 * client must count and why it drops. */
static void
bad_case(uint64_t login_seq, const uint8_t *bytes, size_t n,
	 uint32_t want_loss, const uint64_t *counter, uint32_t want_msgs)
{
	struct hgw_soup_cfg c;
	struct got g = { 0 };
	uint8_t b[64];
	int sv[2];

	cfg_default(&c);
	HGW_CHECK_EQ(hgw_soup_init(&S, &c, 3), 0);
	HGW_CHECK_EQ(pair(sv), 0);
	hgw_soup_attach(&S, sv[0], 0);
	HGW_CHECK_EQ(srv_read(sv[1], b, 49), 49);
	if (login_seq != 0)
		srv_accept_login(sv[1], "S", login_seq);
	HGW_CHECK_EQ(write(sv[1], bytes, n), n);
	hgw_soup_poll(&S, 1, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	HGW_CHECK_EQ(S.last_loss, want_loss);
	HGW_CHECK_EQ(*counter, 1);
	HGW_CHECK_EQ(g.n, want_msgs);
	HGW_CHECK_EQ(S.fd, -1);
	close(sv[1]);
	hgw_soup_fini(&S);
}

static void
test_bad_input(void)
{
	/* Sequenced Data with no payload, a heartbeat with one, a zero
	 * length, a length past any packet, a type SoupBinTCP lacks; one
	 * good message first each time: it is handed over, then the drop */
	static const uint8_t s_empty[] = { 0, 2, 'S', 'X', 0, 1, 'S' };
	static const uint8_t h_long[] = { 0, 2, 'S', 'X', 0, 2, 'H', 0 };
	static const uint8_t zero[] = { 0, 2, 'S', 'X', 0, 0 };
	static const uint8_t huge[] = { 0, 2, 'S', 'X', 0xff, 0xff, 'S' };
	static const uint8_t unknown[] = { 0, 2, 'S', 'X', 0, 1, 'Q' };
	uint8_t login_again[33] = { 0, 31, 'A' };

	memset(login_again + 3, ' ', 30);
	login_again[3] = 'S';
	login_again[32] = '3';

	bad_case(3, s_empty, sizeof(s_empty), HGW_SOUP_LOSS_MALFORMED,
		 &S.st.malformed, 1);
	bad_case(3, h_long, sizeof(h_long), HGW_SOUP_LOSS_MALFORMED,
		 &S.st.malformed, 1);
	bad_case(3, zero, sizeof(zero), HGW_SOUP_LOSS_MALFORMED,
		 &S.st.malformed, 1);
	bad_case(3, huge, sizeof(huge), HGW_SOUP_LOSS_MALFORMED,
		 &S.st.malformed, 1);
	bad_case(3, unknown, sizeof(unknown), HGW_SOUP_LOSS_UNKNOWN,
		 &S.st.unknown, 1);
	/* a second Login Accepted in the middle of the session */
	bad_case(3, login_again, sizeof(login_again), HGW_SOUP_LOSS_SEQUENCE,
		 &S.st.out_of_sequence, 0);
	/* data before any Login Accepted */
	bad_case(0, s_empty, 4, HGW_SOUP_LOSS_SEQUENCE,
		 &S.st.out_of_sequence, 0);
}

/* Login Accepted beyond the next number we expect (3) would skip
 * messages; 0 and non-numbers are impossible */
static void
test_login_out_of_sequence(void)
{
	static const char *const bad[] = {
		"                   4", "                   0",
		"               12a34", "                    ",
		"99999999999999999999" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t pkt[33] = { 0, 31, 'A', 'S', ' ', ' ', ' ', ' ', ' ',
				    ' ', ' ', ' ', ' ' };

		memcpy(pkt + 13, bad[i], 20);
		bad_case(0, pkt, sizeof(pkt), HGW_SOUP_LOSS_SEQUENCE,
			 &S.st.out_of_sequence, 0);
	}
}

/* A full output buffer refuses (never grows); at a drop, every packet
 * not wholly written is handed back, and what the server received plus
 * what was handed back is exactly what was accepted. */
/* A session up over a socketpair with 4 KB socket buffers (partial
 * writes come soon), its handed-back orders counted in d. */
static void
up_small(const struct hgw_soup_cfg *c, struct dropped *d, int sv[2])
{
	uint8_t b[64];
	int small = 4096;

	HGW_CHECK_EQ(hgw_soup_init(&S, c, 1), 0);
	S.drop_fn = on_drop;
	S.drop_arg = d;
	HGW_CHECK_EQ(pair(sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	hgw_soup_attach(&S, sv[0], 0);
	HGW_CHECK_EQ(srv_read(sv[1], b, 49), 49);
	srv_accept_login(sv[1], "S", 1);
	hgw_soup_poll(&S, 1, NULL, NULL);
	HGW_CHECK(hgw_soup_up(&S));
}

static void
test_output_bounded(void)
{
	struct hgw_soup_cfg c;
	struct dropped d = { 0 };
	uint8_t b[1 << 16], msg[47];
	int sv[2];
	uint32_t accepted = 0, whole = 0;
	ssize_t k, total = 0;

	cfg_default(&c);
	c.out_bytes = 1000;
	up_small(&c, &d, sv);
	memset(msg, 'O', sizeof(msg));
	for (int i = 0; i < 10000; i++) {
		msg[1] = (uint8_t)i;
		if (hgw_soup_send(&S, msg, sizeof(msg), 2) == 0)
			accepted++;
	}
	HGW_CHECK(S.st.refused_full > 0);
	HGW_CHECK(S.st.partial_writes > 0);
	HGW_CHECK_EQ(accepted + S.st.refused_full, 10000);
	HGW_CHECK(S.out_len <= c.out_bytes);
	/* the server reads a little, then the connection drops */
	k = srv_drain(sv[1], b, 5000);
	total += k;
	close(sv[1]);
	hgw_soup_poll(&S, 4, NULL, NULL);
	/* the socketpair peer is gone: writes fail or EOF is read */
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	/* bytes the server read: whole 50-byte packets, maybe one cut */
	whole = (uint32_t)(total / 50);
	/* every accepted order: wholly read, or handed back, or still in
	 * the kernel's buffers (read by no one: the close discarded them;
	 * the server did not get them whole either, but we cannot tell
	 * those from sent) */
	HGW_CHECK(whole + d.n <= accepted);
	HGW_CHECK(d.n > 0);
	HGW_CHECK_EQ(d.n, S.st.dropped_out);
	HGW_CHECK(memcmp(d.last, "\x00\x30UO", 4) == 0);
	hgw_soup_fini(&S);
}

/* A loss after a partial write hands back exactly the orders not wholly
 * written to the socket: one the venue may have got is never handed back
 * (its position taken back while it may still trade). */
static void
test_loss_after_partial_write(void)
{
	struct hgw_soup_cfg c;
	struct dropped d = { 0 };
	uint8_t b[64], msg[47];
	int sv[2];
	const uint32_t n = 1000;	/* 50 KB of orders, 50 bytes each */

	cfg_default(&c);
	c.out_bytes = 1 << 16;
	up_small(&c, &d, sv);
	memset(msg, 'O', sizeof(msg));
	for (uint32_t i = 0; i < n; i++)
		HGW_CHECK_EQ(hgw_soup_send(&S, msg, sizeof(msg), 2), 0);
	/* the server reads what came: the socket then takes part of the
	 * buffer, in pieces that are no multiple of 50 */
	while (srv_drain(sv[1], b, sizeof(b)) > 0)
		;
	hgw_soup_poll(&S, 3, NULL, NULL);
	/* the socket took part of the buffer */
	HGW_CHECK(S.out_head != 0 && S.out_len != 0);
	close(sv[1]);
	hgw_soup_poll(&S, 4, NULL, NULL);
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	/* the login request took 49 bytes */
	HGW_CHECK_EQ(d.n, n - (uint32_t)((S.st.bytes_out - 49) / 50));
	HGW_CHECK_EQ(d.n, S.st.dropped_out);
	hgw_soup_fini(&S);
}

/* connect through TCP; drop; reconnect after the back-off asking for the
 * next number not seen; the replay skips what was already handed over;
 * the back-off doubles; End of Session stops reconnecting */
static void
test_reconnect_replay(void)
{
	struct hgw_soup_cfg c;
	struct got g = { 0 };
	struct sockaddr_in a = { 0 };
	socklen_t al = sizeof(a);
	uint8_t b[256];
	int l, fd;
	uint64_t t = 0;

	l = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(0x7f000001);
	HGW_CHECK_EQ(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	HGW_CHECK_EQ(listen(l, 4), 0);
	getsockname(l, (struct sockaddr *)&a, &al);
	cfg_default(&c);
	c.port = ntohs(a.sin_port);
	HGW_CHECK_EQ(hgw_soup_init(&S, &c, 1), 0);
	hgw_soup_start(&S, t);
	for (int i = 0; i < 100 && S.state != HGW_SOUP_LOGIN; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_LOGIN);
	fd = accept(l, NULL, NULL);
	HGW_CHECK_EQ(srv_read(fd, b, 49), 49);
	HGW_CHECK(memcmp(b + 29, "                   1", 20) == 0);
	srv_accept_login(fd, "S", 1);
	srv_put(fd, 'S', "A1", 2);
	srv_put(fd, 'S', "A2", 2);
	srv_put(fd, 'S', "A3", 2);
	for (int i = 0; i < 100 && g.n < 3; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(g.n, 3);
	/* the server drops */
	close(fd);
	for (int i = 0; i < 100 && S.state == HGW_SOUP_UP; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	HGW_CHECK_EQ(S.last_loss, HGW_SOUP_LOSS_CLOSED);
	HGW_CHECK_EQ(S.st.lost_up, 1);
	/* not before the back-off */
	hgw_soup_poll(&S, t + 99 * MS, on_msg, &g);
	HGW_CHECK_EQ(S.st.connects, 1);
	t += 100 * MS;
	for (int i = 0; i < 100 && S.state != HGW_SOUP_LOGIN; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(S.st.connects, 2);
	fd = accept(l, NULL, NULL);
	HGW_CHECK_EQ(srv_read(fd, b, 49), 49);
	HGW_CHECK(memcmp(b + 29, "                   4", 20) == 0);
	/* the server accepts from 2, below what we asked: its numbering
	 * and ours disagree, so the session drops; the next login gets 4 */
	srv_accept_login(fd, "S", 2);
	srv_put(fd, 'S', "A2", 2);
	for (int i = 0; i < 100 && S.state == HGW_SOUP_LOGIN; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	HGW_CHECK_EQ(S.last_loss, HGW_SOUP_LOSS_SEQUENCE);
	HGW_CHECK_EQ(g.n, 3);
	close(fd);
	t += 200 * MS;  /* the second loss in a row: 200 ms */
	for (int i = 0; i < 100 && S.state != HGW_SOUP_LOGIN; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	fd = accept(l, NULL, NULL);
	HGW_CHECK_EQ(srv_read(fd, b, 49), 49);
	HGW_CHECK(memcmp(b + 29, "                   4", 20) == 0);
	srv_accept_login(fd, "S", 4);
	srv_put(fd, 'S', "A4", 2);
	srv_put(fd, 'S', "A5", 2);
	for (int i = 0; i < 100 && g.n < 5; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(g.n, 5);
	HGW_CHECK_EQ(g.seq[3], 4);
	HGW_CHECK_EQ(g.seq[4], 5);
	HGW_CHECK_EQ(S.st.out_of_sequence, 1);
	/* a Login Accepted for another session is refused */
	close(fd);
	for (int i = 0; i < 100 && S.state == HGW_SOUP_UP; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	t += 100 * MS;
	for (int i = 0; i < 100 && S.state != HGW_SOUP_LOGIN; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	fd = accept(l, NULL, NULL);
	HGW_CHECK_EQ(srv_read(fd, b, 49), 49);
	srv_accept_login(fd, "OTHER", 6);
	for (int i = 0; i < 100 && S.state == HGW_SOUP_LOGIN; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(S.last_loss, HGW_SOUP_LOSS_SEQUENCE);
	close(fd);
	/* that was the second loss in a row without a login: 200 ms */
	hgw_soup_poll(&S, t + 199 * MS, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	t += 200 * MS;
	for (int i = 0; i < 100 && S.state != HGW_SOUP_LOGIN; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_LOGIN);
	fd = accept(l, NULL, NULL);
	HGW_CHECK_EQ(srv_read(fd, b, 49), 49);
	HGW_CHECK(memcmp(b + 29, "                   6", 20) == 0);
	srv_accept_login(fd, "S", 6);
	srv_put(fd, 'Z', "", 0);
	for (int i = 0; i < 100 && S.state != HGW_SOUP_ENDED; i++)
		hgw_soup_poll(&S, t, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_ENDED);
	HGW_CHECK_EQ(S.last_loss, HGW_SOUP_LOSS_END);
	hgw_soup_poll(&S, t + 100 * SEC, on_msg, &g);
	HGW_CHECK_EQ(S.st.connects, 5);
	close(fd);
	hgw_soup_fini(&S);
	close(l);
}

/* nobody listening: the connect fails, counted, and is retried */
static void
test_connect_refused(void)
{
	struct hgw_soup_cfg c;
	struct sockaddr_in a = { 0 };
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(0x7f000001);
	bind(l, (struct sockaddr *)&a, sizeof(a));
	getsockname(l, (struct sockaddr *)&a, &al);
	close(l);       /* the port is free: nobody listens */
	cfg_default(&c);
	c.port = ntohs(a.sin_port);
	HGW_CHECK_EQ(hgw_soup_init(&S, &c, 1), 0);
	hgw_soup_start(&S, 0);
	for (int i = 0; i < 1000 && S.st.connect_failed == 0; i++)
		hgw_soup_poll(&S, 0, NULL, NULL);
	HGW_CHECK_EQ(S.st.connect_failed, 1);
	HGW_CHECK_EQ(S.st.losses, 0);
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	hgw_soup_poll(&S, 100 * MS, NULL, NULL);
	HGW_CHECK_EQ(S.st.connects, 2);
	hgw_soup_fini(&S);
}

/* the application refuses a message: the connection drops from inside
 * the callback, the messages after it are not handed over, and the
 * reconnect asks for the one after the refused one */
static void
on_msg_refuse(void *arg, uint64_t seq, const uint8_t *msg, size_t len)
{
	on_msg(arg, seq, msg, len);
	if (msg[0] == 'X')
		hgw_soup_abort(&S, 5);
}

static void
test_abort_in_callback(void)
{
	struct hgw_soup_cfg c;
	struct got g = { 0 };
	uint8_t b[64];
	int sv[2];

	cfg_default(&c);
	HGW_CHECK_EQ(hgw_soup_init(&S, &c, 1), 0);
	HGW_CHECK_EQ(pair(sv), 0);
	hgw_soup_attach(&S, sv[0], 0);
	HGW_CHECK_EQ(srv_read(sv[1], b, 49), 49);
	srv_accept_login(sv[1], "S", 1);
	srv_put(sv[1], 'S', "A", 1);
	srv_put(sv[1], 'S', "X", 1);
	srv_put(sv[1], 'S', "B", 1);
	hgw_soup_poll(&S, 1, on_msg_refuse, &g);
	HGW_CHECK_EQ(g.n, 2);
	HGW_CHECK_EQ(S.state, HGW_SOUP_BACKOFF);
	HGW_CHECK_EQ(S.last_loss, HGW_SOUP_LOSS_REFUSED);
	HGW_CHECK_EQ(S.next_seq, 3);
	HGW_CHECK_EQ(S.st.lost_up, 1);
	close(sv[1]);
	hgw_soup_fini(&S);
}

static void
test_logout_on_stop(void)
{
	struct hgw_soup_cfg c;
	uint8_t b[64];
	int sv[2];

	cfg_default(&c);
	HGW_CHECK_EQ(hgw_soup_init(&S, &c, 1), 0);
	HGW_CHECK_EQ(pair(sv), 0);
	hgw_soup_attach(&S, sv[0], 0);
	HGW_CHECK_EQ(srv_read(sv[1], b, 49), 49);
	srv_accept_login(sv[1], "S", 1);
	hgw_soup_poll(&S, 1, NULL, NULL);
	hgw_soup_stop(&S, 2);
	HGW_CHECK_EQ(srv_read(sv[1], b, 3), 3);
	HGW_CHECK(memcmp(b, "\x00\x01O", 3) == 0);
	HGW_CHECK_EQ(S.state, HGW_SOUP_IDLE);
	HGW_CHECK_EQ(srv_read(sv[1], b, 1), 0);  /* then closed */
	close(sv[1]);
	hgw_soup_fini(&S);
}

/* a graceful logout: the server reads the Logout Request and then EOF,
 * and what it sends until it closes is still handed over */
static void
test_logout_graceful(void)
{
	struct hgw_soup_cfg c;
	struct got g = { 0 };
	uint8_t b[64];
	int sv[2];

	cfg_default(&c);
	HGW_CHECK_EQ(hgw_soup_init(&S, &c, 1), 0);
	HGW_CHECK_EQ(pair(sv), 0);
	hgw_soup_attach(&S, sv[0], 0);
	HGW_CHECK_EQ(srv_read(sv[1], b, 49), 49);
	srv_accept_login(sv[1], "S", 1);
	hgw_soup_poll(&S, 1, on_msg, &g);
	HGW_CHECK_EQ(hgw_soup_send(&S, (const uint8_t *)"O1", 2, 1), 0);
	hgw_soup_logout(&S, 2);
	HGW_CHECK_EQ(S.state, HGW_SOUP_CLOSING);
	HGW_CHECK_EQ(hgw_soup_send(&S, (const uint8_t *)"O2", 2, 2), -1);
	HGW_CHECK_EQ(srv_read(sv[1], b, 8), 8);
	HGW_CHECK(memcmp(b, "\x00\x03UO1\x00\x01O", 8) == 0);
	HGW_CHECK_EQ(srv_read(sv[1], b, 1), 0);  /* our side shut down */
	srv_put(sv[1], 'S', "A1", 2);           /* the answer to O1 */
	hgw_soup_poll(&S, 3, on_msg, &g);
	HGW_CHECK_EQ(g.n, 1);
	HGW_CHECK_EQ(S.state, HGW_SOUP_CLOSING);
	close(sv[1]);
	hgw_soup_poll(&S, 4, on_msg, &g);
	HGW_CHECK_EQ(S.state, HGW_SOUP_IDLE);
	HGW_CHECK_EQ(S.st.lost_up, 0);
	HGW_CHECK_EQ(S.fd, -1);
	hgw_soup_fini(&S);
}

int
main(void)
{
	HGW_TEST(test_login_request_bytes);
	HGW_TEST(test_session_basic);
	HGW_TEST(test_login_rejected);
	HGW_TEST(test_bad_input);
	HGW_TEST(test_login_out_of_sequence);
	HGW_TEST(test_output_bounded);
	HGW_TEST(test_loss_after_partial_write);
	HGW_TEST(test_reconnect_replay);
	HGW_TEST(test_connect_refused);
	HGW_TEST(test_abort_in_callback);
	HGW_TEST(test_logout_on_stop);
	HGW_TEST(test_logout_graceful);
	return hgw_test_done();
}
