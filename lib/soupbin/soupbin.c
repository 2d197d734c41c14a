/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: SoupBinTCP 3.00 client session (hgw_soupbin.h).
 *
 * Packets: length (2, big-endian, counts the type byte and payload), type
 * (1), payload. Client: L Login Request (username 6, password 10,
 * requested session 10, requested sequence number 20; 46 bytes), U
 * Unsequenced Data, R Client Heartbeat, O Logout Request. Server: A Login
 * Accepted (session 10, sequence number 20), J Login Rejected (reason 1),
 * S Sequenced Data, H Server Heartbeat, Z End of Session, + Debug.
 * Alphanumeric fields are left-justified and space-padded; numeric ones
 * are ASCII decimal, right-justified and space-padded.
 *
 * Sequenced Data is numbered implicitly: the first S after Login
 * Accepted carries the accepted sequence number, each next one + 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hgw_soupbin.h"
#include "hgw_soupbin_internal.h"

static const char *const loss_names[] = {
#define HGW_SOUP_X(c, s) s,
	HGW_SOUP_LOSS_REASONS(HGW_SOUP_X)
#undef HGW_SOUP_X
};

const char *
hgw_soup_loss_name(uint32_t why)
{
	return why < HGW_SOUP_LOSS_MAX ? loss_names[why] : "?";
}

int
hgw_soup_field(char *dst, size_t n, const char *s)
{
	size_t l = strlen(s);

	if (l > n)
		return -1;
	for (size_t i = 0; i < l; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return -1;
	memset(dst, ' ', n);
	memcpy(dst, s, l);
	return 0;
}

int
hgw_soup_secret_mode_ok(unsigned int st_mode)
{
	return (st_mode & (S_IWGRP | S_IXGRP | S_IRWXO)) == 0;
}

int
hgw_soup_secret_file(const char *path, char *out, size_t outlen, char *err,
		     size_t errlen)
{
	char buf[256];
	struct stat st;
	ssize_t n;
	size_t len;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
		  O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read '%s': %s%s", path,
			 strerror(errno), errno == ELOOP ?
			 " (a symbolic link is refused)" : "");
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", path);
		close(fd);
		return -1;
	}
	if (!hgw_soup_secret_mode_ok(st.st_mode)) {
		snprintf(err, errlen, "'%s' holds a password but its mode is "
			 "%04o: others may not read it (chmod 0600 or 0640)",
			 path, (unsigned int)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	len = strcspn(buf, "\r\n");
	if (len >= outlen || (len == (size_t)n && n == (ssize_t)sizeof(buf) - 1)) {
		snprintf(err, errlen, "'%s': the password is longer than %zu "
			 "characters", path, outlen - 1);
		return -1;
	}
	if (len == 0) {
		snprintf(err, errlen, "'%s' is empty: no password", path);
		return -1;
	}
	memcpy(out, buf, len);
	out[len] = '\0';
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

static void
put_be16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static uint32_t
get_be16(const uint8_t *b)
{
	return (uint32_t)b[0] << 8 | b[1];
}

size_t
hgw_soup_login_request(uint8_t *buf, const char username[6],
		       const char password[10], const char session[10],
		       uint64_t seq)
{
	uint8_t *p = buf + 3;

	put_be16(buf, HGW_SOUP_LOGIN_LEN - 2);
	buf[2] = 'L';
	memcpy(p, username, SOUP_USER);
	p += SOUP_USER;
	memcpy(p, password, SOUP_PASS);
	p += SOUP_PASS;
	memcpy(p, session, SOUP_SESSION);
	p += SOUP_SESSION;
	/* right-justified decimal, space-padded */
	memset(p, ' ', SOUP_SEQ);
	for (int i = SOUP_SEQ - 1; i >= 0; i--) {
		p[i] = (uint8_t)('0' + seq % 10);
		seq /= 10;
		if (seq == 0)
			break;
	}
	return HGW_SOUP_LOGIN_LEN;
}

/* A numeric field: optional spaces, then at least one digit and nothing
 * else (trailing spaces are tolerated, as some servers left-justify).
 * 0, or -1 for anything else or a value past 2^64 - 1. */
static int
parse_seq(const uint8_t *p, size_t n, uint64_t *out)
{
	size_t i = 0, digits = 0;
	uint64_t v = 0;

	while (i < n && p[i] == ' ')
		i++;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++) {
		uint64_t d = (uint64_t)(p[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	while (i < n && p[i] == ' ')
		i++;
	if (i != n || digits == 0)
		return -1;
	*out = v;
	return 0;
}

/* The kernel's TCP. */
static int
k_open(void *ctx, uint32_t ip, uint16_t port, int busy_poll_us, int *h,
       uint64_t *busy_poll_failed)
{
	struct sockaddr_in a;
	int one = 1, fd;

	(void)ctx;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return HGW_SOUP_IO_ERR;
	*h = fd;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (busy_poll_us > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &busy_poll_us,
		       sizeof(busy_poll_us)) != 0)
		(*busy_poll_failed)++;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(ip);
	if (connect(fd, (const struct sockaddr *)&a, sizeof(a)) == 0)
		return 1;
	return errno == EINPROGRESS ? 0 : HGW_SOUP_IO_ERR;
}

static int
k_connected(void *ctx, int h)
{
	struct pollfd p = { .fd = h, .events = POLLOUT };
	int err = 0;
	socklen_t l = sizeof(err);

	(void)ctx;
	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (getsockopt(h, SOL_SOCKET, SO_ERROR, &err, &l) != 0 || err != 0)
		return HGW_SOUP_IO_ERR;
	return 1;
}

static long
k_send(void *ctx, int h, const uint8_t *p, size_t n)
{
	(void)ctx;
	for (;;) {
		ssize_t k = send(h, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k >= 0)
			return (long)k;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 :
			HGW_SOUP_IO_ERR;
	}
}

static long
k_recv(void *ctx, int h, uint8_t *p, size_t n)
{
	(void)ctx;
	for (;;) {
		ssize_t k = recv(h, p, n, MSG_DONTWAIT);

		if (k > 0)
			return (long)k;
		if (k == 0)
			return HGW_SOUP_IO_EOF;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 :
			HGW_SOUP_IO_ERR;
	}
}

static int
k_waiting(void *ctx, int h)
{
	uint8_t b;

	(void)ctx;
	return recv(h, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

static void
k_shutdown(void *ctx, int h)
{
	(void)ctx;
	(void)shutdown(h, SHUT_WR);
}

static void
k_close(void *ctx, int h)
{
	(void)ctx;
	close(h);
}

const struct hgw_soup_io hgw_soup_kernel_io = {
	.open = k_open, .connected = k_connected, .send = k_send,
	.recv = k_recv, .waiting = k_waiting, .shutdown = k_shutdown,
	.close = k_close,
};

int
hgw_soup_init(struct hgw_soup *s, const struct hgw_soup_cfg *cfg,
	      uint64_t next_seq)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (cfg->out_bytes < 64 || cfg->heartbeat_ns == 0 ||
	    cfg->dead_ns == 0 || next_seq == 0) {
		errno = EINVAL;
		return -1;
	}
	s->cfg = *cfg;
	s->io = cfg->io != NULL ? cfg->io : &hgw_soup_kernel_io;
	s->out = malloc(cfg->out_bytes);
	if (s->out == NULL)
		return -1;
	s->next_seq = next_seq;
	s->backoff_ns = cfg->reconnect_ns;
	s->state = HGW_SOUP_IDLE;
	return 0;
}

void
hgw_soup_fini(struct hgw_soup *s)
{
	if (s->fd >= 0)
		s->io->close(s->cfg.io_ctx, s->fd);
	s->fd = -1;
	free(s->out);
	s->out = NULL;
}

void
hgw_soup_start(struct hgw_soup *s, uint64_t now_ns)
{
	if (s->state != HGW_SOUP_IDLE)
		return;
	s->state = HGW_SOUP_BACKOFF;
	s->retry_at_ns = now_ns;
}

/* Write what is pending; 0, or -1 when the socket failed (the caller
 * drops the session). */
static int
out_flush(struct hgw_soup *s)
{
	while (s->out_len != 0) {
		long k = s->io->send(s->cfg.io_ctx, s->fd,
				     s->out + s->out_head, s->out_len);

		if (k < 0)
			return -1;
		if (k == 0) {
			s->st.partial_writes++;
			return 0;
		}
		s->st.bytes_out += (uint64_t)k;
		s->out_head += (uint32_t)k;
		s->out_len -= (uint32_t)k;
		if (s->out_len != 0)
			s->st.partial_writes++;
		/* out_pkt: the first packet not wholly written (lose()
		 * hands back from there; a packet in the socket may have
		 * reached the venue) */
		while (s->out_pkt + 2 <= s->out_head) {
			uint32_t len = 2 + get_be16(s->out + s->out_pkt);

			if (s->out_pkt + len > s->out_head)
				break;
			s->out_pkt += len;
		}
	}
	s->out_head = s->out_pkt = 0;
	return 0;
}

/* Append one packet (already framed) to the output buffer: 0, or -1
 * when there is no room. */
static int
out_put(struct hgw_soup *s, const uint8_t *pkt, size_t len)
{
	if (len > s->cfg.out_bytes - s->out_len)
		return -1;
	if (s->out_head + s->out_len + len > s->cfg.out_bytes) {
		/* move the unwritten bytes (and the written head of a
		 * packet cut by a partial write) to the front */
		uint32_t from = s->out_pkt;

		memmove(s->out, s->out + from, s->out_head - from + s->out_len);
		s->out_head -= from;
		s->out_pkt = 0;
		if (s->out_head + s->out_len + len > s->cfg.out_bytes)
			return -1;
	}
	memcpy(s->out + s->out_head + s->out_len, pkt, len);
	s->out_len += (uint32_t)len;
	return 0;
}

/* The connection is gone: close it, hand back what the server cannot
 * have received whole, and wait to reconnect (or for good, at the end of
 * the session). */
static void
lose(struct hgw_soup *s, enum hgw_soup_loss why, uint64_t now_ns)
{
	uint32_t p = s->out_pkt, end = s->out_head + s->out_len;

	if (s->state == HGW_SOUP_CLOSING)
		why = HGW_SOUP_LOSS_STOP;       /* the end of a logout */
	/* packets not wholly written: from the one a partial write cut */
	while (p + 3 <= end) {
		uint32_t len = 2 + get_be16(s->out + p);

		if (p + len > end)
			break;
		if (s->out[p + 2] == 'U') {
			s->st.dropped_out++;
			if (s->drop_fn != NULL)
				s->drop_fn(s->drop_arg, s->out + p, len);
		}
		p += len;
	}
	s->out_head = s->out_len = s->out_pkt = 0;
	s->in_len = 0;
	if (s->fd >= 0)
		s->io->close(s->cfg.io_ctx, s->fd);
	s->fd = -1;
	if (why == HGW_SOUP_LOSS_CONNECT) {
		s->st.connect_failed++;
	} else {
		s->st.losses++;
		if (s->state == HGW_SOUP_UP && why != HGW_SOUP_LOSS_STOP)
			s->st.lost_up++;
	}
	s->st.loss[why]++;
	s->last_loss = why;
	if (why == HGW_SOUP_LOSS_END || why == HGW_SOUP_LOSS_REJECTED ||
	    why == HGW_SOUP_LOSS_STOP) {
		s->state = why == HGW_SOUP_LOSS_STOP ? HGW_SOUP_IDLE :
			HGW_SOUP_ENDED;
		return;
	}
	s->state = HGW_SOUP_BACKOFF;
	s->retry_at_ns = now_ns + s->backoff_ns;
	s->backoff_ns = s->backoff_ns * 2 > s->cfg.reconnect_ns * 16 ?
		s->cfg.reconnect_ns * 16 : s->backoff_ns * 2;
}

static void
send_login(struct hgw_soup *s, uint64_t now_ns)
{
	uint8_t l[HGW_SOUP_LOGIN_LEN];

	hgw_soup_login_request(l, s->cfg.username, s->cfg.password,
			       s->cfg.session, s->next_seq);
	s->state = HGW_SOUP_LOGIN;
	s->last_recv_ns = now_ns;       /* the dead timer runs from here */
	s->last_send_ns = now_ns;
	s->out_head = s->out_len = s->out_pkt = 0;
	(void)out_put(s, l, sizeof(l));
	if (out_flush(s) != 0)
		lose(s, HGW_SOUP_LOSS_IO, now_ns);
}

void
hgw_soup_attach(struct hgw_soup *s, int fd, uint64_t now_ns)
{
	s->fd = fd;
	s->in_len = 0;
	send_login(s, now_ns);
}

static void
do_connect(struct hgw_soup *s, uint64_t now_ns)
{
	int h = -1, r;

	s->st.connects++;
	s->connect_ns = now_ns;
	s->in_len = 0;
	r = s->io->open(s->cfg.io_ctx, s->cfg.ip, s->cfg.port,
			s->cfg.busy_poll_us, &h, &s->st.busy_poll_failed);
	s->fd = h;
	if (r < 0) {
		lose(s, HGW_SOUP_LOSS_CONNECT, now_ns);
		return;
	}
	if (r > 0) {
		send_login(s, now_ns);
		return;
	}
	s->state = HGW_SOUP_CONNECTING;
}

static void
check_connect(struct hgw_soup *s, uint64_t now_ns)
{
	int r = s->io->connected(s->cfg.io_ctx, s->fd);

	if (r == 0) {
		if (now_ns - s->connect_ns >= s->cfg.dead_ns)
			lose(s, HGW_SOUP_LOSS_CONNECT, now_ns);
		return;
	}
	if (r < 0) {
		lose(s, HGW_SOUP_LOSS_CONNECT, now_ns);
		return;
	}
	send_login(s, now_ns);
}

/* One whole packet from the server (p: its type byte, n: the length
 * field's value, type included). Returns 1 for a sequenced message
 * handed over, 0 otherwise; the session may be lost on return. */
static uint32_t
on_packet(struct hgw_soup *s, const uint8_t *p, uint32_t n, uint64_t now_ns,
	  hgw_soup_msg_fn fn, void *arg)
{
	uint64_t seq;

	switch (p[0]) {
	case 'A':
		if (n != 1 + SOUP_SESSION + SOUP_SEQ) {
			s->st.malformed++;
			lose(s, HGW_SOUP_LOSS_MALFORMED, now_ns);
			return 0;
		}
		/* only once, after our Login Request, and for the number we
		 * asked for: past it would skip messages we never saw; below
		 * it, the server's numbering and ours disagree (we cannot
		 * tell which messages it resends); 0 or an unparsable one is
		 * impossible; a session other than the one our numbers
		 * belong to, likewise */
		if (s->state != HGW_SOUP_LOGIN ||
		    parse_seq(p + 1 + SOUP_SESSION, SOUP_SEQ, &seq) != 0 ||
		    seq != s->next_seq ||
		    (s->accepted_session[0] != '\0' &&
		     memcmp(s->accepted_session, p + 1, SOUP_SESSION) != 0)) {
			s->st.out_of_sequence++;
			lose(s, HGW_SOUP_LOSS_SEQUENCE, now_ns);
			return 0;
		}
		memcpy(s->accepted_session, p + 1, SOUP_SESSION);
		s->recv_seq = seq;
		s->state = HGW_SOUP_UP;
		s->st.logins++;
		s->backoff_ns = s->cfg.reconnect_ns;
		return 0;
	case 'J':
		if (n != 2) {
			s->st.malformed++;
			lose(s, HGW_SOUP_LOSS_MALFORMED, now_ns);
			return 0;
		}
		if (s->state != HGW_SOUP_LOGIN) {
			s->st.out_of_sequence++;
			lose(s, HGW_SOUP_LOSS_SEQUENCE, now_ns);
			return 0;
		}
		s->st.rejects++;
		lose(s, HGW_SOUP_LOSS_REJECTED, now_ns);
		return 0;
	case 'S':
		if (n < 2) {
			s->st.malformed++;
			lose(s, HGW_SOUP_LOSS_MALFORMED, now_ns);
			return 0;
		}
		if (s->state != HGW_SOUP_UP && s->state != HGW_SOUP_CLOSING) {
			s->st.out_of_sequence++;
			lose(s, HGW_SOUP_LOSS_SEQUENCE, now_ns);
			return 0;
		}
		seq = s->recv_seq++;
		if (seq < s->next_seq) {
			/* the server went back further than we asked */
			s->st.duplicates++;
			return 0;
		}
		s->next_seq = seq + 1;
		s->st.sequenced++;
		if (fn != NULL)
			fn(arg, seq, p + 1, n - 1);
		return 1;
	case 'H':
		if (n != 1) {
			s->st.malformed++;
			lose(s, HGW_SOUP_LOSS_MALFORMED, now_ns);
			return 0;
		}
		s->st.hb_recv++;
		return 0;
	case 'Z':
		if (n != 1) {
			s->st.malformed++;
			lose(s, HGW_SOUP_LOSS_MALFORMED, now_ns);
			return 0;
		}
		lose(s, HGW_SOUP_LOSS_END, now_ns);
		return 0;
	case '+':
		s->st.debug++;
		return 0;
	default:
		s->st.unknown++;
		lose(s, HGW_SOUP_LOSS_UNKNOWN, now_ns);
		return 0;
	}
}

/* Read what the socket has and hand over every whole packet. */
static uint32_t
do_read(struct hgw_soup *s, uint64_t now_ns, hgw_soup_msg_fn fn, void *arg)
{
	uint32_t got = 0, off = 0;
	int fd = s->fd, eof = 0;

	for (;;) {
		long k;

		if (s->in_len == sizeof(s->in))
			break;
		k = s->io->recv(s->cfg.io_ctx, fd, s->in + s->in_len,
				sizeof(s->in) - s->in_len);
		if (k > 0) {
			s->in_len += (uint32_t)k;
			s->st.bytes_in += (uint64_t)k;
			s->last_recv_ns = now_ns;
			continue;
		}
		if (k == 0)
			break;
		if (k == HGW_SOUP_IO_EOF) {
			/* parse what came before the close first */
			eof = 1;
			break;
		}
		lose(s, HGW_SOUP_LOSS_IO, now_ns);
		return 0;
	}
	while (s->fd == fd && off + 2 <= s->in_len) {
		uint32_t n = get_be16(s->in + off);

		if (n == 0 || n > HGW_SOUP_MAX_PACKET) {
			s->st.malformed++;
			lose(s, HGW_SOUP_LOSS_MALFORMED, now_ns);
			return got;
		}
		if (off + 2 + n > s->in_len)
			break;
		got += on_packet(s, s->in + off + 2, n, now_ns, fn, arg);
		off += 2 + n;
	}
	if (s->fd != fd)
		return got;     /* lost while parsing */
	if (eof) {
		lose(s, HGW_SOUP_LOSS_CLOSED, now_ns);
		return got;
	}
	if (off != 0) {
		memmove(s->in, s->in + off, s->in_len - off);
		s->in_len -= off;
	}
	return got;
}

/* Bytes from the server wait unread in the socket (the owner is not
 * reading them): the server is not silent. */
static int
in_waiting(const struct hgw_soup *s)
{
	return s->io->waiting(s->cfg.io_ctx, s->fd);
}

/* hgw_soup_poll and hgw_soup_poll_timers: read = 0 leaves the input in
 * the socket. */
static uint32_t
poll_do(struct hgw_soup *s, uint64_t now_ns, hgw_soup_msg_fn fn, void *arg,
	int read)
{
	uint32_t got = 0;
	int fd;

	switch (s->state) {
	case HGW_SOUP_IDLE:
	case HGW_SOUP_ENDED:
		return 0;
	case HGW_SOUP_BACKOFF:
		if ((int64_t)(now_ns - s->retry_at_ns) >= 0)
			do_connect(s, now_ns);
		return 0;
	case HGW_SOUP_CONNECTING:
		check_connect(s, now_ns);
		return 0;
	case HGW_SOUP_LOGIN:
	case HGW_SOUP_UP:
	case HGW_SOUP_CLOSING:
		break;
	}
	fd = s->fd;
	if (read) {
		got = do_read(s, now_ns, fn, arg);
		if (s->fd != fd)
			return got;
	} else if (in_waiting(s)) {
		/* what waits unread was sent; the server's heartbeats
		 * queue behind it */
		s->last_recv_ns = now_ns;
	}
	if (s->out_len != 0 && out_flush(s) != 0) {
		lose(s, HGW_SOUP_LOSS_IO, now_ns);
		return got;
	}
	if (now_ns - s->last_recv_ns >= s->cfg.dead_ns) {
		lose(s, HGW_SOUP_LOSS_DEAD, now_ns);
		return got;
	}
	if (s->state == HGW_SOUP_UP &&
	    now_ns - s->last_send_ns >= s->cfg.heartbeat_ns) {
		static const uint8_t hb[3] = { 0, 1, 'R' };

		if (out_put(s, hb, sizeof(hb)) == 0) {
			s->st.hb_sent++;
			s->last_send_ns = now_ns;
			if (out_flush(s) != 0)
				lose(s, HGW_SOUP_LOSS_IO, now_ns);
		}
	}
	return got;
}

uint32_t
hgw_soup_poll(struct hgw_soup *s, uint64_t now_ns, hgw_soup_msg_fn fn,
	      void *arg)
{
	return poll_do(s, now_ns, fn, arg, 1);
}

void
hgw_soup_poll_timers(struct hgw_soup *s, uint64_t now_ns)
{
	poll_do(s, now_ns, NULL, NULL, 0);
}

int
hgw_soup_send_framed(struct hgw_soup *s, const uint8_t *soup, size_t len,
		     uint64_t now_ns)
{
	if (s->state != HGW_SOUP_UP) {
		s->st.refused_down++;
		return -1;
	}
	if (out_put(s, soup, len) != 0) {
		s->st.refused_full++;
		return -1;
	}
	s->st.sent_packets++;
	s->last_send_ns = now_ns;
	if (out_flush(s) != 0) {
		/* the packet is handed back through drop_fn, as unsent */
		lose(s, HGW_SOUP_LOSS_IO, now_ns);
	}
	return 0;
}

int
hgw_soup_send(struct hgw_soup *s, const uint8_t *msg, size_t len,
	      uint64_t now_ns)
{
	uint8_t pkt[3 + HGW_SOUP_MAX_PACKET];

	if (len + 1 > HGW_SOUP_MAX_PACKET) {
		errno = EMSGSIZE;
		return -1;
	}
	put_be16(pkt, (uint16_t)(len + 1));
	pkt[2] = 'U';
	memcpy(pkt + 3, msg, len);
	return hgw_soup_send_framed(s, pkt, len + 3, now_ns);
}

void
hgw_soup_abort(struct hgw_soup *s, uint64_t now_ns)
{
	if (s->state == HGW_SOUP_LOGIN || s->state == HGW_SOUP_UP)
		lose(s, HGW_SOUP_LOSS_REFUSED, now_ns);
}

void
hgw_soup_logout(struct hgw_soup *s, uint64_t now_ns)
{
	static const uint8_t o[3] = { 0, 1, 'O' };

	if (s->state != HGW_SOUP_UP && s->state != HGW_SOUP_LOGIN) {
		hgw_soup_stop(s, now_ns);
		return;
	}
	if (out_put(s, o, sizeof(o)) != 0 || out_flush(s) != 0 ||
	    s->out_len != 0) {
		/* it cannot all go now: a plain stop */
		hgw_soup_stop(s, now_ns);
		return;
	}
	s->io->shutdown(s->cfg.io_ctx, s->fd);
	s->state = HGW_SOUP_CLOSING;
	s->last_recv_ns = now_ns;
}

void
hgw_soup_stop(struct hgw_soup *s, uint64_t now_ns)
{
	if (s->state == HGW_SOUP_CLOSING) {
		lose(s, HGW_SOUP_LOSS_STOP, now_ns);
		return;
	}
	if (s->state == HGW_SOUP_UP || s->state == HGW_SOUP_LOGIN) {
		static const uint8_t o[3] = { 0, 1, 'O' };

		(void)out_flush(s);
		if (out_put(s, o, sizeof(o)) == 0)
			(void)out_flush(s);
	}
	if (s->state == HGW_SOUP_IDLE || s->state == HGW_SOUP_ENDED) {
		if (s->fd >= 0)
			s->io->close(s->cfg.io_ctx, s->fd);
		s->fd = -1;
		s->state = HGW_SOUP_IDLE;
		return;
	}
	lose(s, HGW_SOUP_LOSS_STOP, now_ns);
}
