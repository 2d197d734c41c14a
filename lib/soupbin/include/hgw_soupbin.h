/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: a SoupBinTCP 3.00 client session over a non-blocking TCP
 * socket (docs/venue.md "Venue session").
 *
 * One owner thread drives it: hgw_soup_poll() connects, logs in, reads and
 * parses what the server sent, hands each Sequenced Data message to a
 * callback in sequence order, sends a heartbeat after heartbeat_ns without
 * sending, declares the server dead after dead_ns of silence and
 * reconnects after a back-off, asking for the next sequence number it has
 * not seen so the server replays what was missed. hgw_soup_send() queues
 * one Unsequenced Data packet in a bounded output buffer and writes what
 * the socket takes; a full buffer refuses (counted), it never grows.
 *
 * Time is passed in by the caller (ns, any monotonic origin), so tests
 * drive it deterministically. No allocation after hgw_soup_init().
 *
 * The byte stream under it is a transport (struct hgw_soup_io): by
 * default a kernel TCP socket, whose only system calls are socket,
 * connect, poll (connect completion), setsockopt, send, recv and close;
 * or another TCP, such as hedgewire's own on a DPDK port (lib/tcp), which
 * makes none. DPDK-free.
 */
#ifndef HGW_SOUPBIN_H
#define HGW_SOUPBIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HGW_SOUP_MAX_PACKET       4096  /* longest packet accepted from a server */
#define HGW_SOUP_IN_BUF           (2 * HGW_SOUP_MAX_PACKET + 65536)

enum hgw_soup_state {
	HGW_SOUP_IDLE = 0,      /* not started, or stopped */
	HGW_SOUP_BACKOFF,       /* waiting to (re)connect */
	HGW_SOUP_CONNECTING,    /* non-blocking connect in progress */
	HGW_SOUP_LOGIN,         /* Login Request sent, waiting for A or J */
	HGW_SOUP_UP,            /* logged in: orders may go */
	HGW_SOUP_CLOSING,       /* Logout Request sent, our side shut down:
				 * reading what the server still sends */
	HGW_SOUP_ENDED,         /* End of Session, or Login Rejected: no
				 * reconnect (a new session needs a restart) */
};

/* Why a session was lost (the last reason is kept). */
#define HGW_SOUP_LOSS_REASONS(X)                                            \
	X(NONE, "none")                                                     \
	X(CONNECT, "connect failed")                                        \
	X(CLOSED, "connection closed by the server")                        \
	X(IO, "socket error")                                               \
	X(DEAD, "server silent too long")                                   \
	X(END, "end of session")                                            \
	X(REJECTED, "login rejected")                                       \
	X(MALFORMED, "malformed packet")                                    \
	X(UNKNOWN, "unknown packet type")                                   \
	X(SEQUENCE, "out-of-sequence login or data")                        \
	X(INPUT_FULL, "packet longer than the input buffer")                \
	X(REFUSED, "a message the application refused")                    \
	X(STOP, "stopped")

enum hgw_soup_loss {
#define HGW_SOUP_X(c, s) HGW_SOUP_LOSS_##c,
	HGW_SOUP_LOSS_REASONS(HGW_SOUP_X)
#undef HGW_SOUP_X
	HGW_SOUP_LOSS_MAX
};

/* A loss reason, for people. */
const char *hgw_soup_loss_name(uint32_t why);

/* A transport: one TCP connection at a time, named by a handle >= 0 that
 * open() gives and close() ends. Every call returns at once. */
#define HGW_SOUP_IO_EOF  (-1)   /* recv: the server closed its side */
#define HGW_SOUP_IO_ERR  (-2)   /* any call: the connection failed */
struct hgw_soup_io {
	/* Start connecting to ip:port (host byte order): 1 connected now,
	 * 0 in progress (*h set either way), HGW_SOUP_IO_ERR. */
	int (*open)(void *ctx, uint32_t ip, uint16_t port, int busy_poll_us,
		    int *h, uint64_t *busy_poll_failed);
	/* An open in progress: 1 connected, 0 not yet, HGW_SOUP_IO_ERR. */
	int (*connected)(void *ctx, int h);
	/* Write at most n bytes: how many were taken (0: none now), or
	 * HGW_SOUP_IO_ERR. */
	long (*send)(void *ctx, int h, const uint8_t *p, size_t n);
	/* Read at most n bytes: how many (0: none now), HGW_SOUP_IO_EOF
	 * when the server closed and everything was read, or
	 * HGW_SOUP_IO_ERR. */
	long (*recv)(void *ctx, int h, uint8_t *p, size_t n);
	/* 1 when bytes wait unread. */
	int (*waiting)(void *ctx, int h);
	/* Send a FIN after what was written (our side is done). */
	void (*shutdown)(void *ctx, int h);
	/* Let the connection go (a FIN or a reset, as the transport does at
	 * a close); h is not used again. */
	void (*close)(void *ctx, int h);
};

/* The default transport: a kernel TCP socket (ctx unused). */
extern const struct hgw_soup_io hgw_soup_kernel_io;

struct hgw_soup_cfg {
	uint32_t ip;                    /* IPv4, host byte order */
	uint16_t port;
	char username[6];               /* space padded */
	char password[10];              /* space padded */
	char session[10];               /* space padded; all blank: current */
	uint64_t heartbeat_ns;          /* client heartbeat after this without sending */
	uint64_t dead_ns;               /* server silent this long: dead */
	uint64_t reconnect_ns;          /* first back-off; doubles to 16x */
	uint32_t out_bytes;             /* output buffer (bytes; >= 64) */
	int busy_poll_us;               /* SO_BUSY_POLL (0: not set) */
	const struct hgw_soup_io *io;   /* NULL: hgw_soup_kernel_io */
	void *io_ctx;
};

struct hgw_soup_stats {
	uint64_t connects;              /* connect() calls */
	uint64_t logins;                /* Login Accepted */
	uint64_t rejects;               /* Login Rejected */
	uint64_t connect_failed;        /* connects that did not complete */
	uint64_t losses;                /* connections dropped (any reason) */
	uint64_t lost_up;               /* ... of them after Login Accepted
					 * (a stop is not a loss) */
	uint64_t loss[HGW_SOUP_LOSS_MAX];
	uint64_t hb_sent, hb_recv;      /* R sent, H received */
	uint64_t sequenced;             /* S messages handed over */
	uint64_t duplicates;            /* S messages already seen (skipped) */
	uint64_t debug;                 /* '+' packets (ignored) */
	uint64_t malformed;             /* bad length for its type */
	uint64_t unknown;               /* packet type not SoupBinTCP's */
	uint64_t out_of_sequence;       /* Login Accepted past what we have */
	uint64_t sent_packets;          /* Unsequenced Data queued */
	uint64_t refused_down;          /* hgw_soup_send while not UP */
	uint64_t refused_full;          /* ... with the output buffer full */
	uint64_t partial_writes;        /* send() took part of what we had */
	uint64_t dropped_out;           /* packets not wholly written at a drop */
	uint64_t bytes_out, bytes_in;
	uint64_t busy_poll_failed;      /* SO_BUSY_POLL refused (not fatal) */
};

/* Called for each Sequenced Data message, in sequence order: seq is its
 * sequence number (from 1), msg/len its payload (valid during the call). */
typedef void (*hgw_soup_msg_fn)(void *arg, uint64_t seq, const uint8_t *msg,
				size_t len);

/* Called at a drop for each packet queued by hgw_soup_send that was not
 * wholly written to the socket (the server cannot have it): pkt/len is
 * the whole SoupBinTCP packet. */
typedef void (*hgw_soup_drop_fn)(void *arg, const uint8_t *pkt, size_t len);

/* Layout public because the owners embed the session by value
 * (hedgewire's venue, hgw-dedup) and hgw_soup_up() reads it inline; the
 * Login Request's layout is in hgw_soupbin_internal.h. */
struct hgw_soup {
	struct hgw_soup_cfg cfg;
	hgw_soup_drop_fn drop_fn;       /* NULL: dropped packets only counted */
	void *drop_arg;
	const struct hgw_soup_io *io;
	int fd;                         /* the transport's handle, or -1 */
	enum hgw_soup_state state;
	uint32_t last_loss;             /* enum hgw_soup_loss */
	uint64_t next_seq;              /* next sequenced message expected */
	uint64_t recv_seq;              /* seq of the next S on this connection */
	char accepted_session[10];      /* from Login Accepted */
	uint64_t last_send_ns, last_recv_ns;
	uint64_t retry_at_ns, backoff_ns;
	uint32_t out_head, out_len;     /* bytes [head, head + len) pending */
	uint32_t out_pkt;               /* start of the first packet not
					 * wholly written (<= out_head) */
	uint64_t connect_ns;            /* when the connect started */
	uint32_t in_len;
	uint8_t *out;                   /* cfg.out_bytes */
	uint8_t in[HGW_SOUP_IN_BUF];
	struct hgw_soup_stats st;
};

/* Set up s (allocates the output buffer: the only allocation). The
 * session starts idle; hgw_soup_start() makes it connect at the next
 * poll. next_seq: the first sequence number to ask for (1: the whole
 * session). 0, or -1 with errno (EINVAL for a bad config). */
int hgw_soup_init(struct hgw_soup *s, const struct hgw_soup_cfg *cfg,
		  uint64_t next_seq);
void hgw_soup_fini(struct hgw_soup *s);

/* Connect at the next poll (IDLE -> BACKOFF with the retry due now). */
void hgw_soup_start(struct hgw_soup *s, uint64_t now_ns);

/* Take an already connected handle of the transport (tests: a socketpair
 * with the kernel's) and send the Login Request on it. */
void hgw_soup_attach(struct hgw_soup *s, int fd, uint64_t now_ns);

/* Do what is due at now_ns: connect, read and parse (fn for each
 * Sequenced Data message), flush pending output, heartbeat, dead-server
 * check, reconnect. Returns the number of sequenced messages handed to
 * fn. A lost session shows as st.losses increasing. */
uint32_t hgw_soup_poll(struct hgw_soup *s, uint64_t now_ns,
		       hgw_soup_msg_fn fn, void *arg);

/* hgw_soup_poll without reading, for an owner with no room for what a
 * read would hand over: connect, flush pending output, heartbeat,
 * dead-server check, reconnect. Input waiting unread in the socket
 * counts as heard from the server (its heartbeats queue behind it): the
 * session stays up while the owner catches up. */
void hgw_soup_poll_timers(struct hgw_soup *s, uint64_t now_ns);

/* Queue one Unsequenced Data packet carrying len bytes (msg), and write
 * what the socket takes now. 0; -1 when not logged in (refused_down) or
 * when the output buffer has no room (refused_full): nothing queued. */
int hgw_soup_send(struct hgw_soup *s, const uint8_t *msg, size_t len,
		  uint64_t now_ns);

/* Queue an already framed packet (soup, len: the 2-byte length, type and
 * payload, e.g. the Unsequenced Data of an order frame), as
 * hgw_soup_send. The frame is not checked beyond its length field. */
int hgw_soup_send_framed(struct hgw_soup *s, const uint8_t *soup, size_t len,
			 uint64_t now_ns);

/* Drop the connection now (from the owner thread, also from within the
 * message callback), counted as HGW_SOUP_LOSS_REFUSED, and reconnect
 * after the back-off asking for the message after the last one handed
 * over. For a message the application cannot take. */
void hgw_soup_abort(struct hgw_soup *s, uint64_t now_ns);

/* Log out gracefully: a Logout Request after what is pending, then our
 * side of the connection is shut down (the server reads every packet we
 * sent before it), and polls keep handing over what the server still
 * sends until it closes (then IDLE) or dead_ns passes. Closing with
 * unread input would reset the connection and could discard what the
 * server had not read yet. */
void hgw_soup_logout(struct hgw_soup *s, uint64_t now_ns);

/* Stop: a Logout Request when logged in (written if the socket takes
 * it), then close. The session goes IDLE. */
void hgw_soup_stop(struct hgw_soup *s, uint64_t now_ns);

/* 1 when orders can go. */
static inline int
hgw_soup_up(const struct hgw_soup *s)
{
	return s->state == HGW_SOUP_UP;
}

/* Build a Login Request (49 bytes) at buf. seq: the requested sequence
 * number. Returns 49. */
size_t hgw_soup_login_request(uint8_t *buf, const char username[6],
			      const char password[10], const char session[10],
			      uint64_t seq);

/* Copy s into a space-padded field of n bytes: 0, or -1 if it is longer
 * than n or holds a byte outside printable ASCII. */
int hgw_soup_field(char *dst, size_t n, const char *s);

/* The environment variable a venue password may come from, so that it is
 * never on a command line (/proc/PID/cmdline is readable by every user). */
#define HGW_SOUP_PASSWORD_ENV "HGW_VENUE_PASSWORD"

/* 1 if a file with this st_mode may hold a secret: no access for others
 * and at most read for the group (0600, 0640, 0400, 0440). */
int hgw_soup_secret_mode_ok(unsigned int st_mode);

/* Read a secret (a venue password) from the first line of path into out
 * (outlen bytes, NUL-terminated; the line ending is not kept). The file
 * must be a regular file, not a symbolic link (O_NOFOLLOW), whose mode
 * passes hgw_soup_secret_mode_ok(), and the line must fit. Returns 0, or
 * -1 with one line in err. */
int hgw_soup_secret_file(const char *path, char *out, size_t outlen,
			 char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* HGW_SOUPBIN_H */
