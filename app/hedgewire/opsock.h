/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the operator socket, a way to the kill switch that no
 * telemetry client can crowd out.
 */
#ifndef HGW_APP_OPSOCK_H
#define HGW_APP_OPSOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

struct hgw_ctl;

/* The socket's name in the EAL's runtime directory. */
#define HGW_OPSOCK_NAME "hgw_operator"

/* The socket, and what it was asked; the control loop's alone. */
struct hgw_opsock {
	int fd;                 /* -1: none (hgw_opsock_init sets it) */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint64_t taken, refused, unanswered;
	struct hgw_ctl *ctl;    /* the kill switch's control plane */
};

/* After hgw_ctl_init, before the control loop: a datagram socket
 * (AF_UNIX, SOCK_DGRAM) at <runtime dir>/hgw_operator, mode 0600, or 0660
 * and the group's with [run] telemetry_group (empty: none). 0, or -1
 * with one line in err. */
int hgw_opsock_init(struct hgw_opsock *op, struct hgw_ctl *ctl,
		    const char *group, char *err, size_t errlen);

/* Control loop (main lcore), every pass: take at most a burst of the
 * commands waiting ("/hgw/risk/kill", "/hgw/risk/kill,0" or ",1", as the
 * telemetry command), run each and answer it with one datagram to its
 * sender, never waiting for the sender. */
void hgw_opsock_poll(struct hgw_opsock *op);

/* Once the control loop has returned: the socket is closed and removed. */
void hgw_opsock_fini(struct hgw_opsock *op);

#endif /* HGW_APP_OPSOCK_H */
