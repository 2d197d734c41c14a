/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the operator socket.
 *
 * DPDK's telemetry library serves at most 10 connections at once (22.11,
 * lib/telemetry/telemetry.c MAX_CONNECTIONS) and closes every one past
 * them as soon as it is accepted: ten clients that connect and stay lock
 * everyone else out, the operator who needs /hgw/risk/kill included.
 *
 * This socket takes the kill switch's commands as datagrams (AF_UNIX,
 * SOCK_DGRAM): there is no connection to hold. The control loop drains
 * it every pass (a millisecond), at most OPSOCK_BURST commands a pass;
 * the kernel queues at most net.unix.max_dgram_qlen of them (10 by
 * default) and a flood only ever fills that queue, which the next pass
 * empties. Each command is answered with one datagram to its sender's
 * address (a sender that bound none gets no answer), sent without
 * waiting: a sender that does not read loses its answers, nothing else.
 * Who may send is who may write the socket file: its owner, and the
 * members of [run] telemetry_group (as for the telemetry socket).
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_log.h>

#include "app.h"
#include "control.h"
#include "opsock.h"

/* Commands taken per pass of the control loop: more than the kernel's
 * default queue (10), so that a pass empties it. */
#define OPSOCK_BURST 32
/* The longest command there is ("/hgw/risk/kill,1\n") with room to
 * spare; a longer datagram is refused whole. */
#define OPSOCK_CMD_MAX 64
#define KILL_CMD "/hgw/risk/kill"

int
hgw_opsock_init(struct hgw_opsock *op, struct hgw_ctl *ctl, const char *group,
		char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *dir = rte_eal_get_runtime_dir();
	struct group *g = NULL;
	struct stat st;

	memset(op, 0, sizeof(*op));
	op->fd = -1;
	op->ctl = ctl;
	if ((size_t)snprintf(op->path, sizeof(op->path), "%s/%s", dir,
			     HGW_OPSOCK_NAME) >= sizeof(op->path)) {
		snprintf(err, errlen, "operator socket: the runtime directory "
			 "%s is too long for a socket path (--file-prefix)", dir);
		return -1;
	}
	if (group[0] != '\0' && (g = getgrnam(group)) == NULL) {
		snprintf(err, errlen, "bad value for [run] telemetry_group: no "
			 "group '%s'", group);
		return -1;
	}
	/* one left by an earlier run with this prefix that ended without
	 * removing it: the EAL lets no other primary run with it now */
	if (lstat(op->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "operator socket %s: exists and "
				 "is not a socket", op->path);
			return -1;
		}
		unlink(op->path);
	}
	op->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	memcpy(sun.sun_path, op->path, sizeof(sun.sun_path));
	/* the runtime directory is its owner's (0700), or 0750 and the
	 * group's: nobody else reaches the socket before its mode is set */
	if (op->fd < 0 ||
	    bind(op->fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    chmod(op->path, g != NULL ? 0660 : 0600) != 0 ||
	    (g != NULL && chown(op->path, (uid_t)-1, g->gr_gid) != 0)) {
		snprintf(err, errlen, "operator socket %s: %s", op->path,
			 strerror(errno));
		if (op->fd >= 0)
			close(op->fd);
		op->fd = -1;
		return -1;
	}
	return 0;
}

/* s as a JSON string (quotes, backslashes and controls escaped). */
static void
json_str(char *out, size_t len, const char *s)
{
	size_t k = 0;

	if (len < 3)
		return;
	out[k++] = '"';
	for (; *s != '\0' && k + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			k += (size_t)snprintf(out + k, len - k, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			k += (size_t)snprintf(out + k, len - k, "\\u%04x", c);
		else
			out[k++] = (char)c;
	}
	out[k++] = '"';
	out[k] = '\0';
}

/* Run one command; its answer (JSON, as telemetry's) in out. */
static void
run_cmd(struct hgw_opsock *op, const char *cmd, char *out, size_t len)
{
	struct hgw_kill_answer a;
	char s1[64], s2[sizeof(a.err) * 6 + 3];
	int set;

	if (strcmp(cmd, KILL_CMD) == 0) {
		set = -1;
	} else if (strncmp(cmd, KILL_CMD ",", sizeof(KILL_CMD)) == 0) {
		const char *p = cmd + sizeof(KILL_CMD);

		if (strcmp(p, "0") != 0 && strcmp(p, "1") != 0) {
			snprintf(out, len, "{\"" KILL_CMD "\":\"usage: "
				 KILL_CMD "[,0|1]\"}");
			op->refused++;
			return;
		}
		set = p[0] == '1';
	} else {
		snprintf(out, len, "{\"error\":\"unknown command: this socket "
			 "takes " KILL_CMD "[,0|1] only\"}");
		op->refused++;
		return;
	}
	op->taken++;
	if (hgw_ctl_kill_op(op->ctl, set, &a) != 0) {
		json_str(s2, sizeof(s2), a.err);
		snprintf(out, len, "{\"" KILL_CMD "\":{\"error\":%s}}", s2);
	} else if (set < 0 || a.event == 0) {
		/* read, or on already (nothing posted) */
		snprintf(out, len, "{\"" KILL_CMD "\":{\"kill\":%u,"
			 "\"contradictions\":%" PRIu64 "}}", a.kill,
			 a.contradictions);
	} else {
		json_str(s1, sizeof(s1), a.session);
		snprintf(out, len, "{\"" KILL_CMD "\":{\"event\":%" PRIu64
			 ",\"session\":%s,\"seq\":%" PRIu64 "}}", a.event, s1,
			 a.seq);
	}
}

void
hgw_opsock_poll(struct hgw_opsock *op)
{
	if (op->fd < 0)
		return;
	for (int i = 0; i < OPSOCK_BURST; i++) {
		char buf[OPSOCK_CMD_MAX + 1], ans[1024];
		struct sockaddr_un from;
		socklen_t flen = sizeof(from);
		ssize_t n;

		/* MSG_TRUNC: the datagram's whole length, even if longer */
		n = recvfrom(op->fd, buf, sizeof(buf) - 1,
			     MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&from, &flen);
		if (n < 0)
			return;	/* EAGAIN: none left */
		if ((size_t)n > sizeof(buf) - 1) {
			snprintf(ans, sizeof(ans), "{\"error\":\"command too "
				 "long (over %u bytes)\"}", OPSOCK_CMD_MAX);
			op->refused++;
		} else {
			buf[n] = '\0';
			if (n > 0 && buf[n - 1] == '\n')  /* echo ... | */
				buf[--n] = '\0';
			if (strlen(buf) != (size_t)n) {
				snprintf(ans, sizeof(ans), "{\"error\":\"a NUL "
					 "byte in the command\"}");
				op->refused++;
			} else {
				run_cmd(op, buf, ans, sizeof(ans));
			}
		}
		/* an unbound sender has no address to answer to */
		if (flen <= sizeof(sa_family_t) ||
		    sendto(op->fd, ans, strlen(ans), MSG_DONTWAIT | MSG_NOSIGNAL,
			   (struct sockaddr *)&from, flen) < 0)
			op->unanswered++;
	}
}

void
hgw_opsock_fini(struct hgw_opsock *op)
{
	if (op->fd < 0)
		return;
	close(op->fd);
	op->fd = -1;
	unlink(op->path);
	RTE_LOG(INFO, HGW_APP, "operator socket: %" PRIu64 " commands run, %"
		PRIu64 " refused, %" PRIu64 " answers not delivered\n",
		op->taken, op->refused, op->unanswered);
}
