/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-convert: ITCH 5.0 files and MoldUDP64 captures, for replay labs.
 *
 *   hgw-convert itch2pcap IN.itch OUT.pcap [options]
 *   hgw-convert pcap2itch IN.pcap OUT.itch [options]
 *   hgw-convert loop IN.pcap OUT.pcap --times N [options]
 *   hgw-convert journal-repair FILE
 *
 * The .itch side is Nasdaq's binary file format (the daily TotalView-ITCH
 * files, and what other ITCH tools read and write): every message preceded
 * by its length, 2 bytes big-endian, nothing else. The capture side is the
 * framing hgw-feedgen writes (Ethernet / [802.1Q] / IPv4 / UDP multicast /
 * MoldUDP64), so a real day's file can be replayed through hedgewire, and a
 * capture can be cut back to the messages it carries.
 *
 * Like hgw-feedgen, this tool uses no hedgewire library but the ITCH
 * layouts (and, for journal-repair, the order journal's file layout,
 * app/common/hgw_journal_file.h): it parses frames itself, so the tests that compare it with
 * hgw-inspect and tshark compare independent decoders. Every command
 * streams (constant memory), since daily files run to gigabytes.
 *
 * Exit status: 0 done, 1 I/O error (cannot open, read or write), 2 bad
 * option or bad input data (one line naming where).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <pcap/pcap.h>

#include "hgw_cksum.h"
#include "hgw_mcast_frame.h"
#include "hgw_cli.h"
#include "hgw_itch.h"
#include "hgw_journal_file.h"

#define CV_NAME "hgw-convert"
#define die(...) hgw_cli_die(CV_NAME, __VA_ARGS__)
#define cv_bad(opt, val) hgw_cli_bad(CV_NAME, opt, val)
#define cv_num(opt, s, min, max) hgw_cli_num(CV_NAME, opt, s, min, max)

/* MoldUDP64. */
#define CV_MOLD_HDR 20u
#define CV_MOLD_SESSION 10u
#define CV_MOLD_HEARTBEAT 0u
#define CV_MOLD_EOS 0xFFFFu
/* Data packets carry 1 .. 0xFFFE messages: 0 and 0xFFFF are control. */
#define CV_MAX_COUNT 0xFFFEu

/* Framing, as hgw-feedgen writes it. */
#define CV_ETH_HDR 14u
#define CV_VLAN_HDR 4u
#define CV_IP_HDR 20u
#define CV_UDP_HDR 8u
/* The largest UDP payload an IPv4 datagram can carry. */
#define CV_MAX_UDP_PAYLOAD (65535u - CV_IP_HDR - CV_UDP_HDR)
#define CV_MAX_FRAME (CV_ETH_HDR + CV_VLAN_HDR + CV_IP_HDR + CV_UDP_HDR + \
		      CV_MAX_UDP_PAYLOAD)
/* libpcap's own limit (MAXIMUM_SNAPLEN): room for the largest frame. */
#define CV_SNAPLEN 262144
/* The longest ITCH 5.0 message (NOII, 50 bytes): the smallest --max-bytes
 * must still fit any one message in a packet. */
#define CV_ITCH_MAX_LEN 50u
#define CV_MIN_MAX_BYTES (CV_MOLD_HDR + 2u + CV_ITCH_MAX_LEN)
#define CV_UDP_SRC_PORT 26400u
#define CV_SRC_IP 0x0a010101u          /* 10.1.1.1 */
#define CV_DEF_GROUP 0xe9360c6fu       /* 233.54.12.111 */
#define CV_DEF_PORT 26477u

#define CV_NS_PER_SEC 1000000000ull
/* Captures written from an ITCH file are dated 2026-11-30 (00:00:00 UTC
 * = 1795996800 s, date -u -d 2026-11-30 +%s), the day hgw-feedgen uses,
 * so generated and converted captures of the same messages line up. ITCH
 * timestamps are nanoseconds since midnight of that day. */
#define CV_PCAP_EPOCH 1795996800ull

/* Sessions one capture may hold (a day's feed has one per channel). */
#define CV_MAX_SESSIONS 64

enum cv_cmd { CMD_ITCH2PCAP, CMD_PCAP2ITCH, CMD_LOOP };

struct cv_opts {
	enum cv_cmd cmd;
	const char *in, *out;
	char session[CV_MOLD_SESSION];  /* space padded */
	uint64_t first_seq;
	uint64_t per_packet;
	uint64_t max_bytes;
	uint32_t group;                 /* host order; 0 = any (filters) */
	uint16_t port;                  /* 0 = any (filters) */
	uint16_t vlan;
	uint64_t times;
	uint64_t gap_us;
	int quiet;
};

/* An output file to remove when the input turns out bad half way: a
 * capture without its tail must not pass for a whole one. */
static const char *cv_partial;

/* Bad input data: one line, the partial output removed, exit 2. */
static void __attribute__((noreturn, format(printf, 1, 2)))
cv_bad_input(const char *fmt, ...)
{
	va_list ap;

	if (cv_partial != NULL)
		unlink(cv_partial);
	va_start(ap, fmt);
	hgw_cli_vexit(CV_NAME, 2, fmt, ap);
}

/* ------------------------------------------------------------------ */
/* Checksums and frames                                               */

/* The feed a capture is filtered on. */
struct cv_filter {
	uint32_t group;         /* 0 = any */
	uint16_t port;          /* 0 = any */
};

/* A MoldUDP64 packet found in a frame. */
struct cv_mold {
	uint8_t *udp;           /* UDP header (in the caller's buffer) */
	uint8_t *pay;           /* MoldUDP64 header */
	size_t len;             /* UDP payload length (UDP length - 8) */
	uint64_t seq;
	uint16_t count;
	int whole;              /* whole datagram captured and consistent */
};

enum cv_kind {
	CV_OTHER,               /* not a UDP datagram to the feed */
	CV_FEED_BAD,            /* to the feed, but no usable MoldUDP64 header */
	CV_FEED_MOLD,           /* MoldUDP64 header present (see m->whole) */
};

/* Blocks of a data packet fill its payload exactly. */
static int
cv_blocks_ok(const uint8_t *pay, size_t len, unsigned count)
{
	size_t off = CV_MOLD_HDR;
	unsigned i;

	for (i = 0; i < count; i++) {
		if (off + 2 > len)
			return 0;
		off += 2u + hgw_be16(pay + off);
		if (off > len)
			return 0;
	}
	return off == len;
}

/* Ethernet / up to two 802.1Q or 802.1ad tags / IPv4 / UDP, filtered on
 * the feed's group and port. caplen bytes of the frame are present. */
static enum cv_kind
cv_parse(const struct cv_filter *flt, uint8_t *d, uint32_t caplen,
	 struct cv_mold *m)
{
	size_t off = 12, ihl, tl, ul;
	uint16_t et;
	uint8_t *ip, *udp;
	int tags = 0;

	if (caplen < CV_ETH_HDR)
		return CV_OTHER;
	et = hgw_be16(d + off);
	while ((et == 0x8100 || et == 0x88a8) && tags++ < 2) {
		off += CV_VLAN_HDR;
		if (caplen < off + 2)
			return CV_OTHER;
		et = hgw_be16(d + off);
	}
	off += 2;
	if (et != 0x0800 || caplen < off + CV_IP_HDR)
		return CV_OTHER;
	ip = d + off;
	ihl = (size_t)(ip[0] & 0xf) * 4;
	if ((ip[0] >> 4) != 4 || ihl < CV_IP_HDR || ip[9] != 17 ||
	    (flt->group != 0 && hgw_be32(ip + 16) != flt->group))
		return CV_OTHER;
	/* Fragments: the feed is never fragmented, and a later fragment has
	 * no UDP header to filter on. */
	if ((hgw_be16(ip + 6) & 0x3fff) != 0 ||
	    caplen < off + ihl + CV_UDP_HDR)
		return CV_OTHER;
	udp = ip + ihl;
	if (flt->port != 0 && hgw_be16(udp + 2) != flt->port)
		return CV_OTHER;

	tl = hgw_be16(ip + 2);
	ul = hgw_be16(udp + 4);
	if (ul < CV_UDP_HDR + CV_MOLD_HDR || tl < ihl + ul ||
	    caplen < off + ihl + CV_UDP_HDR + CV_MOLD_HDR)
		return CV_FEED_BAD;
	m->udp = udp;
	m->pay = udp + CV_UDP_HDR;
	m->len = ul - CV_UDP_HDR;
	m->seq = hgw_be64(m->pay + 10);
	m->count = hgw_be16(m->pay + 18);
	/* A sequence that would wrap is garbage, not a packet to trust. */
	if (m->seq > UINT64_MAX - CV_MOLD_EOS)
		return CV_FEED_BAD;
	m->whole = caplen >= off + tl &&
		   (m->count == CV_MOLD_HEARTBEAT || m->count == CV_MOLD_EOS ||
		    cv_blocks_ok(m->pay, m->len, m->count));
	return CV_FEED_MOLD;
}

/* A session name for messages: non-printable bytes as '?'. */
static const char *
cv_session_str(const char *name, char buf[CV_MOLD_SESSION + 1])
{
	unsigned i;

	for (i = 0; i < CV_MOLD_SESSION; i++)
		buf[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
	buf[CV_MOLD_SESSION] = '\0';
	return buf;
}

/* Sessions by name, a short linear table. */
struct cv_session {
	char name[CV_MOLD_SESSION];
	uint64_t next;          /* pcap2itch: next expected sequence */
	uint64_t first, end;    /* loop: lowest sequence, one past the last */
	int ended;
	int seen;
};

static struct cv_session *
cv_session_get(struct cv_session *s, unsigned *n, const uint8_t *name,
	       const char *file)
{
	unsigned i;

	for (i = 0; i < *n; i++)
		if (memcmp(s[i].name, name, CV_MOLD_SESSION) == 0)
			return &s[i];
	if (*n == CV_MAX_SESSIONS)
		cv_bad_input("%s: more than %u MoldUDP64 sessions", file,
			     CV_MAX_SESSIONS);
	memset(&s[*n], 0, sizeof(s[*n]));
	memcpy(s[*n].name, name, CV_MOLD_SESSION);
	s[*n].next = 1;
	return &s[(*n)++];
}

static pcap_t *
cv_open_capture(const char *file)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p;

	/* Nanoseconds, whatever the file holds: loop keeps them exact. */
	p = pcap_open_offline_with_tstamp_precision(file,
			PCAP_TSTAMP_PRECISION_NANO, err);
	if (p == NULL)
		die("%s", err);
	if (pcap_datalink(p) != DLT_EN10MB)
		cv_bad_input("%s: link type %s, expected Ethernet (EN10MB)",
			     file, pcap_datalink_val_to_name(pcap_datalink(p)) ?
			     pcap_datalink_val_to_name(pcap_datalink(p)) : "?");
	return p;
}

/* A nanosecond pcap (magic 0xa1b23c4d) on a buffered FILE. */
static pcap_dumper_t *
cv_open_dump(const char *file, int linktype, int snaplen, pcap_t **pd)
{
	pcap_dumper_t *dump;
	FILE *f;

	*pd = pcap_open_dead_with_tstamp_precision(linktype, snaplen,
						   PCAP_TSTAMP_PRECISION_NANO);
	if (*pd == NULL)
		die("pcap_open_dead failed");
	f = fopen(file, "wb");
	if (f == NULL)
		die("cannot open %s: %s", file, strerror(errno));
	/* Large buffer: stdio's default makes the syscalls the cost. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	dump = pcap_dump_fopen(*pd, f);
	if (dump == NULL)
		die("%s: %s", file, pcap_geterr(*pd));
	return dump;
}

static void
cv_close_dump(pcap_dumper_t *dump, pcap_t *pd, const char *file)
{
	if (pcap_dump_flush(dump) != 0 || ferror(pcap_dump_file(dump)))
		die("write error on %s", file);
	pcap_dump_close(dump);
	pcap_close(pd);
}

/* Writes a frame with a time in ns since the Unix epoch; tv_usec holds
 * nanoseconds in a nanosecond dump. */
static void
cv_dump(pcap_dumper_t *dump, const uint8_t *frame, uint32_t caplen,
	uint32_t len, uint64_t ns)
{
	struct pcap_pkthdr h;

	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(ns / CV_NS_PER_SEC);
	h.ts.tv_usec = (suseconds_t)(ns % CV_NS_PER_SEC);
	h.caplen = caplen;
	h.len = len;
	pcap_dump((u_char *)dump, &h, frame);
}

/* ------------------------------------------------------------------ */
/* itch2pcap                                                          */

struct cv_i2p {
	const struct cv_opts *o;
	pcap_t *pd;
	pcap_dumper_t *dump;
	uint8_t pay[CV_MAX_UDP_PAYLOAD];
	uint8_t frame[CV_MAX_FRAME];
	size_t pay_len;
	unsigned count;         /* messages in the packet being filled */
	uint64_t pkt_seq;       /* sequence of its first message */
	uint64_t pkt_ns;        /* ITCH time of its first message */
	uint64_t next_seq;
	uint16_t ip_id;
	uint64_t packets;
};

/* Frames a MoldUDP64 payload as hgw-feedgen does (same addresses, MACs,
 * TTL, a new IPv4 identification per frame) with both checksums. */
static size_t
cv_build_frame(struct cv_i2p *c, const uint8_t *pay, size_t plen)
{
	const struct hgw_mcast_addr a = {
		.src = CV_SRC_IP, .group = c->o->group,
		.sport = CV_UDP_SRC_PORT, .dport = c->o->port, .vlan = c->o->vlan,
	};

	return hgw_mcast_frame(c->frame, &a, c->ip_id++, pay, plen);
}

static void
cv_i2p_send(struct cv_i2p *c, const uint8_t *pay, size_t plen, uint64_t ns)
{
	size_t len = cv_build_frame(c, pay, plen);

	cv_dump(c->dump, c->frame, (uint32_t)len, (uint32_t)len,
		CV_PCAP_EPOCH * CV_NS_PER_SEC + ns);
	c->packets++;
}

static void
cv_i2p_flush(struct cv_i2p *c)
{
	if (c->count == 0)
		return;
	memcpy(c->pay, c->o->session, CV_MOLD_SESSION);
	hgw_put_be64(c->pay + 10, c->pkt_seq);
	hgw_put_be16(c->pay + 18, (uint16_t)c->count);
	cv_i2p_send(c, c->pay, c->pay_len, c->pkt_ns);
	c->count = 0;
}

static void
cv_i2p_add(struct cv_i2p *c, const uint8_t *msg, size_t len)
{
	if (c->count != 0 && (c->count >= c->o->per_packet ||
			      c->pay_len + 2 + len > c->o->max_bytes))
		cv_i2p_flush(c);
	if (c->count == 0) {
		c->pkt_seq = c->next_seq;
		c->pkt_ns = hgw_itch_timestamp(msg);
		c->pay_len = CV_MOLD_HDR;
	}
	hgw_put_be16(c->pay + c->pay_len, (uint16_t)len);
	memcpy(c->pay + c->pay_len + 2, msg, len);
	c->pay_len += 2 + len;
	c->count++;
	c->next_seq++;
}

/* Reads n bytes; returns how many came before end of file. */
static size_t
cv_read(FILE *f, void *buf, size_t n, const char *file)
{
	size_t got = fread(buf, 1, n, f);

	if (got < n && ferror(f))
		die("read error on %s: %s", file, strerror(errno));
	return got;
}

static int
cv_itch2pcap(const struct cv_opts *o)
{
	static struct cv_i2p c;
	uint8_t msg[256], eos[CV_MOLD_HDR];
	uint64_t off = 0, n = 0, last_ns = 0;
	FILE *in;
	size_t got;

	c.o = o;
	c.next_seq = o->first_seq;
	in = fopen(o->in, "rb");
	if (in == NULL)
		die("cannot open %s: %s", o->in, strerror(errno));
	setvbuf(in, NULL, _IOFBF, 1 << 20);
	c.dump = cv_open_dump(o->out, DLT_EN10MB, CV_SNAPLEN, &c.pd);
	cv_partial = o->out;

	/* Each message: length (2, big-endian), then that many bytes whose
	 * first is the type. Checked against the ITCH 5.0 table before a
	 * byte of it is framed. */
	for (;;) {
		uint8_t lb[2];
		uint16_t len;
		uint8_t type;

		got = cv_read(in, lb, 2, o->in);
		if (got == 0)
			break;
		n++;
		if (got < 2)
			cv_bad_input("%s: message %" PRIu64 " at byte offset %"
				     PRIu64 ": truncated: file ends inside its "
				     "length", o->in, n, off);
		len = hgw_be16(lb);
		if (len == 0)
			cv_bad_input("%s: message %" PRIu64 " at byte offset %"
				     PRIu64 ": bad length 0", o->in, n, off);
		if (cv_read(in, msg, 1, o->in) != 1)
			cv_bad_input("%s: message %" PRIu64 " at byte offset %"
				     PRIu64 ": truncated: file ends after its "
				     "length (%u)", o->in, n, off, len);
		type = msg[0];
		if (hgw_itch_msg_len[type] == 0 && type > 0x20 && type < 0x7f)
			cv_bad_input("%s: message %" PRIu64 " at byte offset %"
				     PRIu64 ": unknown type '%c' (0x%02x)",
				     o->in, n, off, type, type);
		if (hgw_itch_msg_len[type] == 0)
			cv_bad_input("%s: message %" PRIu64 " at byte offset %"
				     PRIu64 ": unknown type 0x%02x", o->in, n,
				     off, type);
		if (len != hgw_itch_msg_len[type])
			cv_bad_input("%s: message %" PRIu64 " at byte offset %"
				     PRIu64 ": bad length %u for type '%c' "
				     "(%s, %u bytes)", o->in, n, off, len, type,
				     hgw_itch_type_name(type),
				     hgw_itch_msg_len[type]);
		got = cv_read(in, msg + 1, len - 1u, o->in);
		if (got < len - 1u)
			cv_bad_input("%s: message %" PRIu64 " at byte offset %"
				     PRIu64 ": truncated: file ends %zu bytes "
				     "into its %u", o->in, n, off, got + 1, len);
		cv_i2p_add(&c, msg, len);
		last_ns = hgw_itch_timestamp(msg);
		off += 2u + len;
	}
	fclose(in);
	cv_i2p_flush(&c);

	/* End of session: the next sequence number, at the last message's
	 * time. */
	memcpy(eos, o->session, CV_MOLD_SESSION);
	hgw_put_be64(eos + 10, c.next_seq);
	hgw_put_be16(eos + 18, CV_MOLD_EOS);
	cv_i2p_send(&c, eos, sizeof(eos), last_ns);
	cv_close_dump(c.dump, c.pd, o->out);
	cv_partial = NULL;

	if (!o->quiet)
		printf(CV_NAME ": %" PRIu64 " messages in %" PRIu64 " packets "
		       "(sequence %" PRIu64 "..%" PRIu64 ") and an end of "
		       "session -> %s\n", n, c.packets - 1, o->first_seq,
		       c.next_seq - 1, o->out);
	return 0;
}

/* ------------------------------------------------------------------ */
/* pcap2itch                                                          */

struct cv_p2i {
	uint64_t frames, other, malformed, after_end;
	uint64_t dup_packets, heartbeats, eos;
	uint64_t messages, bad_msgs, gaps, gap_messages;
	uint64_t bad_first_seq;
};

static void
cv_gap(struct cv_p2i *st, const struct cv_session *s, uint64_t seq)
{
	char nb[CV_MOLD_SESSION + 1];

	fprintf(stderr, CV_NAME ": session '%s': gap at frame %" PRIu64
		": messages %" PRIu64 "-%" PRIu64 " missing (%" PRIu64 ")\n",
		cv_session_str(s->name, nb), st->frames, s->next, seq - 1,
		seq - s->next);
	st->gaps++;
	st->gap_messages += seq - s->next;
}

static void
cv_write(FILE *f, const uint8_t *blk, size_t len, const char *file)
{
	if (fwrite(blk, 1, len, f) != len)
		die("write error on %s: %s", file, strerror(errno));
}

static int
cv_pcap2itch(const struct cv_opts *o)
{
	static struct cv_session sess[CV_MAX_SESSIONS];
	struct cv_filter flt = { o->group, o->port };
	struct cv_p2i st;
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned nsess = 0, i;
	pcap_t *p;
	FILE *out;
	int rc;

	memset(&st, 0, sizeof(st));
	p = cv_open_capture(o->in);
	out = fopen(o->out, "wb");
	if (out == NULL)
		die("cannot open %s: %s", o->out, strerror(errno));
	setvbuf(out, NULL, _IOFBF, 1 << 20);

	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		struct cv_session *s;
		struct cv_mold m;
		enum cv_kind k;
		const uint8_t *blk;
		uint64_t seq;

		st.frames++;
		/* cv_parse writes nothing: the const cast only lets loop
		 * share it. */
		k = cv_parse(&flt, (uint8_t *)(uintptr_t)d, h->caplen, &m);
		if (k == CV_OTHER) {
			st.other++;
			continue;
		}
		if (k == CV_FEED_BAD || !m.whole) {
			st.malformed++;
			continue;
		}
		s = cv_session_get(sess, &nsess, m.pay, o->in);
		if (s->ended) {
			st.after_end++;
			continue;
		}
		if (m.count == CV_MOLD_HEARTBEAT || m.count == CV_MOLD_EOS) {
			/* Both carry the next sequence number. */
			if (m.seq > s->next) {
				cv_gap(&st, s, m.seq);
				s->next = m.seq;
			}
			if (m.count == CV_MOLD_EOS) {
				s->ended = 1;
				st.eos++;
			} else {
				st.heartbeats++;
			}
			continue;
		}
		if (m.seq + m.count <= s->next) {
			/* Duplicate or retransmission: all seen already. */
			st.dup_packets++;
			continue;
		}
		if (m.seq > s->next)
			cv_gap(&st, s, m.seq);
		/* An overlapping packet: only its new tail. */
		blk = m.pay + CV_MOLD_HDR;
		for (seq = m.seq; seq < m.seq + m.count; seq++) {
			uint16_t len = hgw_be16(blk);

			if (seq >= s->next) {
				if (len != 0 && hgw_itch_len_ok(blk[2], len)) {
					cv_write(out, blk, 2u + len, o->out);
					st.messages++;
				} else if (st.bad_msgs++ == 0) {
					st.bad_first_seq = seq;
				}
			}
			blk += 2u + len;
		}
		s->next = m.seq + m.count;
	}
	if (fflush(out) != 0 || ferror(out) || fclose(out) != 0)
		die("write error on %s", o->out);
	if (rc == PCAP_ERROR)
		die("%s: frame %" PRIu64 ": %s (wrote the %" PRIu64
		    " messages before it)", o->in, st.frames + 1,
		    pcap_geterr(p), st.messages);
	pcap_close(p);

	/* Skipped, not written: another ITCH tool (and itch2pcap) would
	 * stop at them. Their sequence numbers are lost from the file. */
	if (st.bad_msgs)
		fprintf(stderr, CV_NAME ": %" PRIu64 " messages of unknown "
			"type or bad length skipped (first at sequence %"
			PRIu64 ")\n", st.bad_msgs, st.bad_first_seq);
	if (!o->quiet) {
		printf(CV_NAME ": %" PRIu64 " frames: %" PRIu64 " messages "
		       "written, %" PRIu64 " gaps (%" PRIu64 " messages), %"
		       PRIu64 " duplicate packets, %" PRIu64 " heartbeats, %"
		       PRIu64 " end of session, %" PRIu64 " malformed, %"
		       PRIu64 " after end, %" PRIu64 " not the feed -> %s\n",
		       st.frames, st.messages, st.gaps, st.gap_messages,
		       st.dup_packets, st.heartbeats, st.eos, st.malformed,
		       st.after_end, st.other, o->out);
		for (i = 0; i < nsess; i++) {
			char nb[CV_MOLD_SESSION + 1];

			printf(CV_NAME ": session '%s': next sequence %"
			       PRIu64 "%s\n", cv_session_str(sess[i].name, nb),
			       sess[i].next, sess[i].ended ? ", ended" : "");
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* loop                                                               */

/* Pass 1: every session's sequence span from its well-formed packets
 * (a cut-short or corrupt copy must not stretch it), and the capture's
 * time span. A data packet ends one past its last message; a heartbeat
 * or an end of session carries the next number: so a gap at the end of
 * the input still counts in the span, and the next loop starts exactly
 * where this one's end of session said it would. */
static uint32_t
cv_loop_scan(const struct cv_opts *o, struct cv_session *sess,
	     unsigned *nsess, uint64_t *first_ns, uint64_t *last_ns,
	     uint64_t *frames)
{
	struct cv_filter flt = { o->group, o->port };
	struct pcap_pkthdr *h;
	const u_char *d;
	uint32_t maxcap = 0;
	pcap_t *p = cv_open_capture(o->in);
	int rc;

	*frames = 0;
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		uint64_t ns = (uint64_t)h->ts.tv_sec * CV_NS_PER_SEC +
			      (uint64_t)h->ts.tv_usec;
		struct cv_session *s;
		struct cv_mold m;
		uint64_t end;

		if (*frames == 0)
			*first_ns = ns;
		*last_ns = ns;
		(*frames)++;
		if (h->caplen > maxcap)
			maxcap = h->caplen;
		if (cv_parse(&flt, (uint8_t *)(uintptr_t)d, h->caplen, &m) !=
		    CV_FEED_MOLD || !m.whole)
			continue;
		s = cv_session_get(sess, nsess, m.pay, o->in);
		end = m.seq;
		if (m.count != CV_MOLD_HEARTBEAT && m.count != CV_MOLD_EOS)
			end += m.count;
		if (!s->seen || m.seq < s->first)
			s->first = m.seq;
		if (!s->seen || end > s->end)
			s->end = end;
		s->seen = 1;
	}
	if (rc == PCAP_ERROR)
		die("%s: frame %" PRIu64 ": %s", o->in, *frames + 1,
		    pcap_geterr(p));
	pcap_close(p);
	return maxcap;
}

static int
cv_loop(const struct cv_opts *o)
{
	static struct cv_session sess[CV_MAX_SESSIONS];
	struct cv_filter flt = { o->group, o->port };
	uint64_t first_ns = 0, last_ns = 0, frames, period, written = 0;
	uint64_t k, dropped_eos = 0;
	unsigned nsess = 0, i;
	uint32_t maxcap;
	uint8_t *buf;
	pcap_t *pd;
	pcap_dumper_t *dump;
	int snaplen, linktype;

	maxcap = cv_loop_scan(o, sess, &nsess, &first_ns, &last_ns, &frames);
	for (i = 0; i < nsess; i++) {
		uint64_t span = sess[i].end - sess[i].first;

		if (span != 0 && (o->times - 1) > (UINT64_MAX - sess[i].end) /
						   span)
			cv_bad_input("%s: --times %" PRIu64 " would overflow "
				     "sequence numbers", o->in, o->times);
	}
	/* Loop k starts gap after loop k - 1's last frame. */
	period = last_ns - first_ns + o->gap_us * 1000u;
	if (period != 0 && (o->times - 1) > (UINT32_MAX * CV_NS_PER_SEC -
					     last_ns) / period)
		cv_bad_input("%s: --times %" PRIu64 " runs past the pcap "
			     "time range (year 2106)", o->in, o->times);

	buf = malloc(maxcap ? maxcap : 1);
	if (buf == NULL)
		die("out of memory");
	{
		pcap_t *p = cv_open_capture(o->in);

		snaplen = pcap_snapshot(p);
		linktype = pcap_datalink(p);
		pcap_close(p);
	}
	if ((uint32_t)snaplen < maxcap)
		snaplen = (int)maxcap;
	dump = cv_open_dump(o->out, linktype, snaplen, &pd);

	for (k = 0; k < o->times; k++) {
		pcap_t *p = cv_open_capture(o->in);
		struct pcap_pkthdr *h;
		const u_char *d;
		uint64_t n = 0;
		int rc;

		while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
			uint64_t ns = (uint64_t)h->ts.tv_sec * CV_NS_PER_SEC +
				      (uint64_t)h->ts.tv_usec;
			struct cv_session *s = NULL;
			struct cv_mold m;

			n++;
			if (h->caplen > maxcap)
				die("%s changed while being read", o->in);
			memcpy(buf, d, h->caplen);
			if (cv_parse(&flt, buf, h->caplen, &m) == CV_FEED_MOLD) {
				for (i = 0; i < nsess; i++)
					if (memcmp(sess[i].name, m.pay,
						   CV_MOLD_SESSION) == 0)
						s = &sess[i];
			}
			if (s != NULL) {
				uint8_t old[8];
				uint64_t span = s->end - s->first;

				/* Only the last loop ends the session. */
				if (m.count == CV_MOLD_EOS &&
				    k + 1 < o->times) {
					dropped_eos++;
					continue;
				}
				memcpy(old, m.pay + 10, 8);
				hgw_put_be64(m.pay + 10, m.seq + k * span);
				/* 0: the sender sent no checksum. */
				if (hgw_be16(m.udp + 6) != 0) {
					uint16_t c = hgw_cksum_update(
						hgw_be16(m.udp + 6), old,
						m.pay + 10, 8);

					hgw_put_be16(m.udp + 6,
						     c ? c : 0xffff);
				}
			}
			cv_dump(dump, buf, h->caplen, h->len, ns + k * period);
			written++;
		}
		if (rc == PCAP_ERROR)
			die("%s: loop %" PRIu64 ", frame %" PRIu64 ": %s",
			    o->in, k + 1, n + 1, pcap_geterr(p));
		if (n != frames)
			die("%s changed while being read", o->in);
		pcap_close(p);
	}
	cv_close_dump(dump, pd, o->out);
	free(buf);

	if (!o->quiet) {
		printf(CV_NAME ": %" PRIu64 " frames x %" PRIu64 " loops: %"
		       PRIu64 " frames written (%" PRIu64 " ends of session "
		       "dropped), a loop every %" PRIu64 " ns -> %s\n",
		       frames, o->times, written, dropped_eos, period, o->out);
		for (i = 0; i < nsess; i++) {
			char nb[CV_MOLD_SESSION + 1];

			printf(CV_NAME ": session '%s': sequence %" PRIu64
			       "..%" PRIu64 ", span %" PRIu64 " per loop\n",
			       cv_session_str(sess[i].name, nb),
			       sess[i].first, sess[i].first + o->times *
			       (sess[i].end - sess[i].first) - 1,
			       sess[i].end - sess[i].first);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* journal-repair                                                     */

/* Records a journal left by a kill may hold that are neither complete
 * nor unused: one burst per sender at most. More than this, and the file
 * is not a journal (its records do not fall at 24 + 108 i): left alone. */
#define CV_JOURNAL_MAX_TORN 4096u

/* A hedgewire order journal left by a process that was killed: its
 * complete records kept in order, the ones a sender had not finished
 * and the unused tail dropped, into FILE.repair (then renamed over
 * FILE, so FILE is either the old file or the repaired one). A clean
 * journal is left as it is. */
static int
cv_journal_repair(const char *path, int quiet)
{
	char tmp[4096];
	struct stat st;
	uint8_t *map;
	uint64_t n, kept, torn, rem, cut = 0;
	int fd, out;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, CV_NAME ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < HGW_JOURNAL_FILE_HDR) {
		fprintf(stderr, CV_NAME ": %s: not a hedgewire journal (%s)\n",
			path, S_ISREG(st.st_mode) ? "shorter than a pcap header" :
			"not a regular file");
		return 2;
	}
	/* private: the records are compacted in memory, never in FILE */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, CV_NAME ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!hgw_journal_file_header_ok(map)) {
		fprintf(stderr, CV_NAME ": %s: not a hedgewire journal (its pcap "
			"header is not a journal's: nanosecond, Ethernet, "
			"snapshot length %u)\n", path, HGW_JOURNAL_SNAPLEN);
		return 2;
	}
	n = ((uint64_t)st.st_size - HGW_JOURNAL_FILE_HDR) / HGW_JOURNAL_REC;
	rem = ((uint64_t)st.st_size - HGW_JOURNAL_FILE_HDR) % HGW_JOURNAL_REC;
	kept = hgw_journal_compact(map + HGW_JOURNAL_FILE_HDR, n, &torn);
	if (rem != 0) {
		/* a file cut inside a record: that record is incomplete */
		uint8_t *r = map + st.st_size - rem;

		for (uint64_t i = 0; i < rem && cut == 0; i++)
			cut = r[i] != 0;
	}
	if (torn + cut > CV_JOURNAL_MAX_TORN) {
		fprintf(stderr, CV_NAME ": %s: not a hedgewire journal (%" PRIu64
			" records neither complete nor unused); not changed\n",
			path, torn + cut);
		return 2;
	}
	if (kept == n && rem == 0) {
		if (!quiet)
			printf("%s: clean, %" PRIu64 " orders; not changed\n",
			       path, kept);
		return 0;
	}
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.repair", path) >= sizeof(tmp)) {
		fprintf(stderr, CV_NAME ": %s: name too long\n", path);
		return 2;
	}
	/* 0640 like the journal it replaces: the order flow */
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   0640);
	if (out < 0) {
		fprintf(stderr, CV_NAME ": %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	size_t len = HGW_JOURNAL_FILE_HDR + kept * HGW_JOURNAL_REC, done = 0;

	while (done < len) {
		ssize_t w = write(out, map + done, len - done);

		if (w <= 0) {
			fprintf(stderr, CV_NAME ": %s: %s\n", tmp,
				w < 0 ? strerror(errno) : "short write");
			close(out);
			unlink(tmp);
			return 1;
		}
		done += (size_t)w;
	}
	if (fsync(out) != 0 || close(out) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, CV_NAME ": %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		return 1;
	}
	if (!quiet)
		printf("%s: repaired, %" PRIu64 " orders kept, %" PRIu64
		       " incomplete records dropped, %" PRIu64 " unused "
		       "records dropped\n", path, kept, torn + cut,
		       n - kept - torn);
	munmap(map, (size_t)st.st_size);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Options                                                            */

static void
cv_usage(FILE *f)
{
	fprintf(f,
"usage: " CV_NAME " itch2pcap IN.itch OUT.pcap [options]\n"
"       " CV_NAME " pcap2itch IN.pcap OUT.itch [options]\n"
"       " CV_NAME " loop IN.pcap OUT.pcap --times N [options]\n"
"       " CV_NAME " journal-repair FILE [-q]\n"
"\n"
"An .itch file is Nasdaq's binary ITCH 5.0 format: each message preceded\n"
"by its length, 2 bytes big-endian (uncompressed). Captures are\n"
"Ethernet/[802.1Q]/IPv4/UDP/MoldUDP64; written ones are nanosecond pcaps.\n"
"\n"
"itch2pcap: messages in file order, numbered from --first-seq, packed\n"
"into MoldUDP64 packets, then an end of session. A packet's time is its\n"
"first message's ITCH time on 2026-11-30 (UTC). A message of unknown\n"
"type, a length that does not match its type or a cut-short file stops\n"
"it (exit 2, naming the message and its byte offset; no output left).\n"
"      --session S        MoldUDP64 session, 1..10 printable chars, no\n"
"                         spaces (default HGW0000001)\n"
"      --first-seq N      first sequence number (default 1)\n"
"      --per-packet N     max messages per packet, 1..65534 (default 4)\n"
"      --max-bytes N      max UDP payload, %u..%u (default 1400)\n"
"      --group A.B.C.D    multicast group (default 233.54.12.111)\n"
"      --port P           UDP destination port (default 26477)\n"
"      --vlan V           802.1Q VLAN id, 0 = untagged (default 0)\n"
"\n"
"pcap2itch: every new message of the feed, in sequence order per session;\n"
"duplicates and retransmissions dropped, gaps reported on stderr; cut or\n"
"inconsistent packets skipped. A read error stops it after writing what\n"
"came before (exit 1).\n"
"      --group A.B.C.D    feed group (default 233.54.12.111, 0.0.0.0 = any)\n"
"      --port P           feed UDP port (default 26477, 0 = any)\n"
"\n"
"loop: the capture N times in one file; loop k (from 0) adds k x span to\n"
"every MoldUDP64 sequence number (span = one past the last message - the\n"
"first), keeps only the last loop's end of session, and starts --gap-us\n"
"after the previous loop's last frame. Order reference numbers repeat in\n"
"every loop: a book sees the orders added again.\n"
"      --times N          loops, 1..1000000 (required)\n"
"      --gap-us US        pause between loops (default 0)\n"
"      --group, --port    the feed, as for pcap2itch\n"
"\n"
"journal-repair: a hedgewire order journal left by a process that was\n"
"killed (its files are allocated in full and cut at a clean exit) made a\n"
"clean pcap: complete records kept in order, records a sender had not\n"
"finished and the unused tail dropped (FILE replaced through FILE.repair).\n"
"A clean journal is not changed. Not a journal: exit 2, not changed.\n"
"\n"
"  -q, --quiet            no summary line\n"
"  -h, --help             this text\n"
"exit status: 0 done, 1 I/O error, 2 bad option or bad input data\n",
		CV_MIN_MAX_BYTES, CV_MAX_UDP_PAYLOAD);
}

enum {
	OPT_SESSION = 256, OPT_FIRST_SEQ, OPT_PER_PACKET, OPT_MAX_BYTES,
	OPT_GROUP, OPT_PORT, OPT_VLAN, OPT_TIMES, OPT_GAP_US,
};

static const struct option cv_longopts[] = {
	{"session", required_argument, NULL, OPT_SESSION},
	{"first-seq", required_argument, NULL, OPT_FIRST_SEQ},
	{"per-packet", required_argument, NULL, OPT_PER_PACKET},
	{"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
	{"group", required_argument, NULL, OPT_GROUP},
	{"port", required_argument, NULL, OPT_PORT},
	{"vlan", required_argument, NULL, OPT_VLAN},
	{"times", required_argument, NULL, OPT_TIMES},
	{"gap-us", required_argument, NULL, OPT_GAP_US},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Which options each command takes (bit = option - OPT_SESSION). */
#define CV_BIT(opt) (1u << ((opt) - OPT_SESSION))
static const unsigned cv_allowed[] = {
	[CMD_ITCH2PCAP] = CV_BIT(OPT_SESSION) | CV_BIT(OPT_FIRST_SEQ) |
			  CV_BIT(OPT_PER_PACKET) | CV_BIT(OPT_MAX_BYTES) |
			  CV_BIT(OPT_GROUP) | CV_BIT(OPT_PORT) | CV_BIT(OPT_VLAN),
	[CMD_PCAP2ITCH] = CV_BIT(OPT_GROUP) | CV_BIT(OPT_PORT),
	[CMD_LOOP] = CV_BIT(OPT_TIMES) | CV_BIT(OPT_GAP_US) |
		     CV_BIT(OPT_GROUP) | CV_BIT(OPT_PORT),
};

static void
cv_session(struct cv_opts *o, const char *s)
{
	size_t len = strlen(s), i;

	/* Printable, no spaces: the padding is ours. */
	if (len == 0 || len > CV_MOLD_SESSION)
		cv_bad("session", s);
	for (i = 0; i < len; i++)
		if (s[i] <= 0x20 || s[i] > 0x7e)
			cv_bad("session", s);
	memset(o->session, ' ', sizeof(o->session));
	memcpy(o->session, s, len);
}

static uint32_t
cv_addr(const char *s, int want_mcast)
{
	struct in_addr a;
	uint32_t v;

	if (inet_pton(AF_INET, s, &a) != 1)
		cv_bad("group", s);
	v = ntohl(a.s_addr);
	if (want_mcast && (v >> 28) != 0xe)
		cv_bad("group", s);
	/* A filter: a multicast group, or 0.0.0.0 for any. */
	if (!want_mcast && v != 0 && (v >> 28) != 0xe)
		cv_bad("group", s);
	return v;
}

static void
cv_parse_args(struct cv_opts *o, int argc, char **argv)
{
	const char *group = NULL, *port = NULL, *cmd;
	unsigned seen = 0, i;
	int c;

	memset(o, 0, sizeof(*o));
	cv_session(o, "HGW0000001");
	o->first_seq = 1;
	o->per_packet = 4;
	o->max_bytes = 1400;
	o->group = CV_DEF_GROUP;
	o->port = CV_DEF_PORT;

	/* Options anywhere (getopt permutes); the command is the first
	 * operand, so which options apply is checked once it is known. */
	while ((c = getopt_long(argc, argv, "qh", cv_longopts, NULL)) != -1) {
		if (c >= OPT_SESSION && c <= OPT_GAP_US)
			seen |= CV_BIT(c);
		switch (c) {
		case OPT_SESSION:
			cv_session(o, optarg);
			break;
		case OPT_FIRST_SEQ:
			/* Room for any file's messages after it. */
			o->first_seq = cv_num("first-seq", optarg, 1,
					      UINT64_MAX >> 1);
			break;
		case OPT_PER_PACKET:
			o->per_packet = cv_num("per-packet", optarg, 1,
					       CV_MAX_COUNT);
			break;
		case OPT_MAX_BYTES:
			o->max_bytes = cv_num("max-bytes", optarg,
					      CV_MIN_MAX_BYTES,
					      CV_MAX_UDP_PAYLOAD);
			break;
		case OPT_GROUP:
			group = optarg;
			break;
		case OPT_PORT:
			port = optarg;
			break;
		case OPT_VLAN:
			o->vlan = (uint16_t)cv_num("vlan", optarg, 0, 4094);
			break;
		case OPT_TIMES:
			o->times = cv_num("times", optarg, 1, 1000000);
			break;
		case OPT_GAP_US:
			/* A day at most. */
			o->gap_us = cv_num("gap-us", optarg, 0,
					   86400ull * 1000000u);
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			cv_usage(stdout);
			exit(0);
		default:
			fprintf(stderr, CV_NAME ": try --help\n");
			exit(2);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, CV_NAME ": missing command (itch2pcap, "
			"pcap2itch or loop; try --help)\n");
		exit(2);
	}
	cmd = argv[optind];
	if (strcmp(cmd, "itch2pcap") == 0)
		o->cmd = CMD_ITCH2PCAP;
	else if (strcmp(cmd, "pcap2itch") == 0)
		o->cmd = CMD_PCAP2ITCH;
	else if (strcmp(cmd, "loop") == 0)
		o->cmd = CMD_LOOP;
	else {
		fprintf(stderr, CV_NAME ": unknown command '%s' (itch2pcap, "
			"pcap2itch or loop; try --help)\n", cmd);
		exit(2);
	}
	for (i = 0; i < sizeof(cv_longopts) / sizeof(cv_longopts[0]); i++) {
		int v = cv_longopts[i].val;

		if (v >= OPT_SESSION && v <= OPT_GAP_US &&
		    (seen & CV_BIT(v)) && !(cv_allowed[o->cmd] & CV_BIT(v))) {
			fprintf(stderr, CV_NAME ": %s takes no --%s\n", cmd,
				cv_longopts[i].name);
			exit(2);
		}
	}
	/* itch2pcap sends to a group; the others filter on one (0 = any). */
	if (group != NULL)
		o->group = cv_addr(group, o->cmd == CMD_ITCH2PCAP);
	if (port != NULL)
		o->port = (uint16_t)cv_num("port", port,
					   o->cmd == CMD_ITCH2PCAP ? 1 : 0,
					   65535);
	if (argc - optind != 3) {
		fprintf(stderr, CV_NAME ": %s needs IN and OUT files (try "
			"--help)\n", cmd);
		exit(2);
	}
	o->in = argv[optind + 1];
	o->out = argv[optind + 2];
	if (o->cmd == CMD_LOOP && !(seen & CV_BIT(OPT_TIMES))) {
		fprintf(stderr, CV_NAME ": loop needs --times N\n");
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	struct cv_opts o;

	hgw_cli_version("hgw-convert", argc, argv);

	/* journal-repair takes a file and -q, none of the capture options */
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;	/* the command is the first operand */
		if (strcmp(argv[i], "journal-repair") != 0)
			break;
		int quiet = 0, nfiles = 0;
		const char *file = NULL;

		for (int k = 1; k < argc; k++) {
			if (k == i)
				continue;
			if (strcmp(argv[k], "-q") == 0 ||
			    strcmp(argv[k], "--quiet") == 0) {
				quiet = 1;
			} else if (argv[k][0] == '-') {
				fprintf(stderr, CV_NAME ": journal-repair takes "
					"no %s\n", argv[k]);
				return 2;
			} else {
				file = argv[k];
				nfiles++;
			}
		}
		if (nfiles != 1) {
			fprintf(stderr, CV_NAME ": journal-repair needs one "
				"FILE (try --help)\n");
			return 2;
		}
		return cv_journal_repair(file, quiet);
	}
	cv_parse_args(&o, argc, argv);
	switch (o.cmd) {
	case CMD_ITCH2PCAP:
		return cv_itch2pcap(&o);
	case CMD_PCAP2ITCH:
		return cv_pcap2itch(&o);
	case CMD_LOOP:
		return cv_loop(&o);
	}
	return 2;
}
