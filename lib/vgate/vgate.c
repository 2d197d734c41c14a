/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the venue session's gate and relay messages (hgw_vgate.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hgw_order.h"
#include "hgw_soupbin.h"
#include "hgw_vgate.h"
#include "hgw_vgate_internal.h"

static const char *const unsent_names[] = {
#define HGW_VGATE_X(c, s) s,
	HGW_VGATE_UNSENT_REASONS(HGW_VGATE_X)
#undef HGW_VGATE_X
};

const char *
hgw_vgate_unsent_name(uint32_t why)
{
	return why < HGW_VGATE_UNSENT_MAX ? unsent_names[why] : "?";
}

static uint32_t
today(void)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	return (uint32_t)((tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 +
			  tm.tm_mday);
}

struct hgw_venue_state *
hgw_vgate_state_map(const char *path, uint64_t *floor, char *err,
		    size_t errlen)
{
	struct hgw_venue_state *st;
	struct stat sb;
	/* O_NOFOLLOW: a symbolic link there is refused, never written
	 * through */
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	uint32_t day = today();

	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 errno == ELOOP ? "a symbolic link (refused)" :
			 strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", path);
		close(fd);
		return NULL;
	}
	if (sb.st_size != 0 && sb.st_size != 4096) {
		snprintf(err, errlen, "'%s' is %lld bytes, not a state file "
			 "(4096)", path, (long long)sb.st_size);
		close(fd);
		return NULL;
	}
	if (sb.st_size == 0 && ftruncate(fd, 4096) != 0) {
		snprintf(err, errlen, "cannot size '%s': %s", path,
			 strerror(errno));
		close(fd);
		return NULL;
	}
	st = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (st == MAP_FAILED) {
		snprintf(err, errlen, "cannot map '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	if (sb.st_size != 0 && memcmp(st->magic, "HGWVST1", 8) != 0) {
		snprintf(err, errlen, "'%s' is not a hedgewire state file",
			 path);
		munmap(st, 4096);
		return NULL;
	}
	if (sb.st_size == 0 || st->day != day) {
		memset(st, 0, sizeof(*st));
		memcpy(st->magic, "HGWVST1", 8);
		st->day = day;
		atomic_store_explicit(&st->last_user_ref, 0,
				      memory_order_relaxed);
		if (msync(st, 4096, MS_SYNC) != 0) {
			snprintf(err, errlen, "cannot write '%s': %s", path,
				 strerror(errno));
			munmap(st, 4096);
			return NULL;
		}
	}
	*floor = atomic_load_explicit(&st->last_user_ref,
				      memory_order_relaxed);
	return st;
}

void
hgw_vgate_state_unmap(struct hgw_venue_state *st)
{
	if (st != NULL)
		munmap(st, 4096);
}

void
hgw_vgate_open_answer(struct hgw_venue_open *open, uint32_t n,
		      const struct hgw_ouch_answer *a, uint64_t *cancelled,
		      uint64_t *cancelled_qty)
{
	struct hgw_venue_open *o;

	if (a->type == HGW_OUCH_SYSTEM_EVENT)
		return;
	o = hgw_vgate_open_find(open, n, a->user_ref);
	if (o == NULL)
		return;
	switch (a->type) {
	case HGW_OUCH_ACCEPTED:
	case HGW_OUCH_MODIFIED:
		o->qty = a->qty;
		break;
	case HGW_OUCH_CANCELED:
		/* the answer to our Cancel Order, by its reason: a Canceled
		 * of another reason (an IOC's remainder, say) may still be on
		 * its way when the kill's Cancel Order goes out, which the
		 * venue then rejects */
		if (o->cancel_sent && a->reason == HGW_OUCH_CANCEL_USER) {
			(*cancelled)++;
			*cancelled_qty += a->qty;
		}
		/* fall through */
	case HGW_OUCH_AIQ_CANCELED:
	case HGW_OUCH_EXECUTED:
		o->qty = o->qty > a->qty ? o->qty - a->qty : 0;
		break;
	case HGW_OUCH_REJECTED:
		o->qty = 0;
		break;
	default:
		break;
	}
}

int
hgw_vgate_cancel_run(struct hgw_soup *s, struct hgw_venue_open *open,
		     uint32_t n, uint32_t *next, uint64_t now_ns,
		     uint64_t *sent)
{
	while (*next < n) {
		struct hgw_venue_open *o = &open[*next];
		uint8_t x[HGW_OUCH_CANCEL_ORDER_LEN];

		if (o->qty != 0) {
			hgw_ouch_cancel_order(x, o->user_ref, 0);
			if (hgw_soup_send(s, x, sizeof(x), now_ns) != 0)
				return 0;       /* full or down: later */
			(*sent)++;
			o->cancel_sent = 1;
		}
		(*next)++;
	}
	return 1;
}

size_t
hgw_relay_put(uint8_t *buf, uint64_t rseq, uint8_t type, const uint8_t *body,
	      size_t blen)
{
	memcpy(buf, "HGWR", 4);
	hgw_vgate_be(buf + 4, rseq, 8);
	hgw_vgate_be(buf + 12, blen + 1, 2);
	buf[14] = type;
	if (blen != 0)
		memcpy(buf + HGW_RELAY_HDR, body, blen);
	return HGW_RELAY_HDR + blen;
}

int
hgw_relay_get(const uint8_t *p, size_t len, uint64_t *rseq, uint8_t *type,
	      const uint8_t **body, size_t *blen)
{
	uint64_t l;

	if (len < 4 || memcmp(p, "HGWR", 4) != 0)
		return 1;
	if (len < HGW_RELAY_HDR)
		return -1;
	l = hgw_vgate_get_be(p + 12, 2);
	if (l == 0 || l + 14 != len)
		return -1;
	*rseq = hgw_vgate_get_be(p + 4, 8);
	*type = p[14];
	*body = p + HGW_RELAY_HDR;
	*blen = (size_t)l - 1;
	return 0;
}

int
hgw_relay_udp_payload(const uint8_t *f, size_t len, const uint8_t **p,
		      size_t *plen)
{
	size_t ihl, ulen;

	if (len < 42 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4)
		return -1;
	ihl = (size_t)(f[14] & 0xf) * 4;
	if (ihl < 20 || f[23] != 17 || len < 14 + ihl + 8)
		return -1;
	ulen = (size_t)f[14 + ihl + 4] << 8 | f[14 + ihl + 5];
	if (ulen < 8 || 14 + ihl + ulen > len)
		return -1;
	*p = f + 14 + ihl + 8;
	*plen = ulen - 8;
	return 0;
}
