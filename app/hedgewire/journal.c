/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the order journal's files (control plane). The senders'
 * side is hgw_journal_put in journal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "journal.h"

/* Pages kept mapped writable ahead of the senders: 4 MiB, ~38,000
 * orders, refreshed every millisecond. */
#define JOURNAL_AHEAD (4u << 20)
/* Names tried for a file before giving up. */
#define JOURNAL_NAMES 100000u
/* A file that could not be created is tried again after this long. */
#define JOURNAL_RETRY_S 1

struct jfile {
	int fd;                         /* -1: none */
	uint8_t *map;                   /* the whole file, MAP_SHARED */
	size_t bytes;
	uint64_t gen;
	uint64_t used;                  /* retiring: records reserved */
	uint64_t checked;               /* retiring: seen committed */
	char name[PATH_MAX];
};

struct hgw_journal {
	struct hgw_journal_tx *tx;      /* the senders' part (rte_zmalloc) */
	char path[PATH_MAX];
	uint64_t cap;
	struct jfile cur;               /* the senders' file */
	struct jfile next;              /* prepared, not published yet */
	struct jfile old;               /* left, senders may still write */
	uint64_t written, failed;
	uint64_t retry_tsc;             /* no new file before this */
	int hup;                        /* a reopen is due */
	int failing;                    /* the last file creation failed */
	int full_said;                  /* the current file's overflow said */
	unsigned int files;             /* files published */
	char first[PATH_MAX], last[PATH_MAX];
	char names[2 * PATH_MAX + 32];
};

int
hgw_journal_name(const char *path, unsigned int k, char *out, size_t len)
{
	size_t n = strlen(path);
	int w;

	if (k == 0)
		w = snprintf(out, len, "%s", path);
	else if (n > 5 && strcmp(path + n - 5, ".pcap") == 0)
		w = snprintf(out, len, "%.*s.%u.pcap", (int)(n - 5), path, k);
	else
		w = snprintf(out, len, "%s.%u", path, k);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

static void
jfile_init(struct jfile *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

/* A new file at the first free name, allocated and mapped, its header
 * written and its first pages mapped writable. 0, or -1 with err
 * ("NAME: what failed"). */
static int
jfile_create(struct hgw_journal *j, struct jfile *f, char *err, size_t errlen)
{
	size_t bytes = HGW_JOURNAL_FILE_HDR + j->cap * HGW_JOURNAL_REC;
	unsigned int k;
	int fd = -1, rc;

	for (k = 0; k < JOURNAL_NAMES; k++) {
		if (hgw_journal_name(j->path, k, f->name, sizeof(f->name)) < 0) {
			snprintf(err, errlen, "%s: name too long", j->path);
			return -1;
		}
		/* O_EXCL: an earlier journal is never truncated */
		fd = open(f->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", k == JOURNAL_NAMES ?
			 j->path : f->name, k == JOURNAL_NAMES ?
			 "no free name left" : strerror(errno));
		return -1;
	}
	/* every block now: a sender's store never allocates one (no
	 * SIGBUS on a full disk); EFBIG past RLIMIT_FSIZE (SIGXFSZ is
	 * ignored), ENOSPC on a full disk */
	rc = posix_fallocate(fd, 0, (off_t)bytes);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot allocate %zu bytes: %s",
			 f->name, bytes, strerror(rc));
		goto fail;
	}
	f->map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f->map == MAP_FAILED) {
		f->map = NULL;
		snprintf(err, errlen, "%s: cannot map %zu bytes: %s",
			 f->name, bytes, strerror(errno));
		goto fail;
	}
	hgw_journal_file_header(f->map);
	if (madvise(f->map, RTE_MIN(bytes, (size_t)JOURNAL_AHEAD),
		    MADV_POPULATE_WRITE) != 0) {
		snprintf(err, errlen, "%s: cannot map its pages "
			 "(MADV_POPULATE_WRITE, Linux 5.14): %s", f->name,
			 strerror(errno));
		munmap(f->map, bytes);
		f->map = NULL;
		goto fail;
	}
	f->fd = fd;
	f->bytes = bytes;
	f->used = f->checked = 0;
	return 0;
fail:
	unlink(f->name);	/* ours (O_EXCL), and nothing in it */
	close(fd);
	return -1;
}

/* A prepared file never published: nothing in it, removed. */
static void
jfile_discard(struct jfile *f)
{
	if (f->fd < 0)
		return;
	munmap(f->map, f->bytes);
	unlink(f->name);
	close(f->fd);
	jfile_init(f);
}

/* 1 when every record reserved in f (f->used) is committed. */
static int
jfile_committed(struct jfile *f)
{
	const struct hgw_journal_rec *r = (const struct hgw_journal_rec *)
		(f->map + HGW_JOURNAL_FILE_HDR);

	/* acquire: pairs with the sender's commit, so its stores (and
	 * its read of base[]) are done before the file is truncated or
	 * unmapped, or base[] is reused */
	while (f->checked < f->used &&
	       atomic_load_explicit(&r[f->checked].len,
				    memory_order_acquire) != 0)
		f->checked++;
	return f->checked == f->used;
}

/* The senders are done with f: cut it after its last record, close it.
 * Records not complete (only after a sender stopped half way, which a
 * clean stop never does) are dropped and counted as failed. */
static int
jfile_close(struct hgw_journal *j, struct jfile *f, char *err, size_t errlen)
{
	uint64_t torn = 0, kept;
	int bad = 0;

	kept = jfile_committed(f) ? f->used :
		hgw_journal_compact(f->map + HGW_JOURNAL_FILE_HDR, f->used,
				    &torn);
	if (kept != f->used)
		j->failed += f->used - kept;
	j->written += kept;
	munmap(f->map, f->bytes);
	if (ftruncate(f->fd, (off_t)(HGW_JOURNAL_FILE_HDR +
				     kept * HGW_JOURNAL_REC)) != 0) {
		snprintf(err, errlen, "journal %s: cannot cut it after its "
			 "last record (hgw-convert journal-repair will): %s",
			 f->name, strerror(errno));
		bad = 1;
	}
	if (close(f->fd) != 0 && !bad) {
		snprintf(err, errlen, "journal %s: %s", f->name,
			 strerror(errno));
		bad = 1;
	}
	if (kept != f->used && !bad) {
		snprintf(err, errlen, "journal %s: %" PRIu64 " records "
			 "incomplete, dropped", f->name, f->used - kept);
		bad = 1;
	}
	jfile_init(f);
	return bad;
}

/* Senders on to j->next (prepared), from now on. Only when j->old is
 * closed: base[] of the next generation is the old one's. Returns 1
 * when orders found the file full (err). */
static int
journal_switch(struct hgw_journal *j, char *err, size_t errlen)
{
	uint64_t gen = j->cur.gen + 1, p, reserved;

	j->tx->base[gen & 1] = j->next.map + HGW_JOURNAL_FILE_HDR;
	p = atomic_load_explicit(&j->tx->pos, memory_order_relaxed);
	/* release: base[] written above is seen by every sender whose
	 * fetch_add reads this generation */
	while (!atomic_compare_exchange_weak_explicit(&j->tx->pos, &p,
			gen << HGW_JOURNAL_GEN_SHIFT, memory_order_release,
			memory_order_relaxed))
		;
	reserved = p & HGW_JOURNAL_SLOT_MASK;
	j->old = j->cur;
	j->old.used = RTE_MIN(reserved, j->cap);
	j->old.checked = 0;
	j->cur = j->next;
	j->cur.gen = gen;
	jfile_init(&j->next);
	j->files++;
	snprintf(j->last, sizeof(j->last), "%s", j->cur.name);
	printf("journal %s: opened (after %s, %" PRIu64 " orders)\n",
	       j->cur.name, j->old.name, j->old.used);
	fflush(stdout);
	if (reserved > j->cap) {
		j->failed += reserved - j->cap;
		snprintf(err, errlen, "journal %s: full, %" PRIu64 " orders "
			 "sent but not journalled", j->old.name,
			 reserved - j->cap);
		return 1;
	}
	return 0;
}

struct hgw_journal *
hgw_journal_open(const char *path, uint64_t cap, char *err, size_t errlen)
{
	struct hgw_journal *j = calloc(1, sizeof(*j));
	struct timespec ts;
	struct stat st;
	char why[PATH_MAX + 128];

	if (j == NULL) {
		snprintf(err, errlen, "[order] journal = %s: out of memory", path);
		return NULL;
	}
	/* a device or FIFO would take a record at a time, and lose what
	 * a killed process had not written yet: a journal is a file */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "[order] journal = %s: not a regular file",
			 path);
		free(j);
		return NULL;
	}
	snprintf(j->path, sizeof(j->path), "%s", path);
	j->cap = cap;
	jfile_init(&j->cur);
	jfile_init(&j->next);
	jfile_init(&j->old);
	j->tx = rte_zmalloc("hgw_journal", sizeof(*j->tx), RTE_CACHE_LINE_SIZE);
	if (j->tx == NULL) {
		snprintf(err, errlen, "[order] journal = %s: out of memory", path);
		free(j);
		return NULL;
	}
	if (jfile_create(j, &j->cur, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "[order] journal = %s", why);
		rte_free(j->tx);
		free(j);
		return NULL;
	}
	j->tx->cap = cap;
	j->tx->base[0] = j->cur.map + HGW_JOURNAL_FILE_HDR;
	/* TSC -> wall clock: one reference pair, then the invariant TSC */
	j->tx->tsc0 = rte_get_tsc_cycles();
	clock_gettime(CLOCK_REALTIME, &ts);
	j->tx->wall0_ns = (uint64_t)ts.tv_sec * 1000000000u +
			  (uint64_t)ts.tv_nsec;
	j->tx->mult = (uint64_t)(((unsigned __int128)1000000000u << 40) /
				 rte_get_tsc_hz());
	/* generation 0, nothing reserved; the workers are launched after
	 * this (rte_eal_remote_launch orders it) */
	atomic_store_explicit(&j->tx->pos, 0, memory_order_relaxed);
	j->files = 1;
	snprintf(j->first, sizeof(j->first), "%s", j->cur.name);
	snprintf(j->last, sizeof(j->last), "%s", j->cur.name);
	printf("journal %s: opened, room for %" PRIu64 " orders a file\n",
	       j->cur.name, cap);
	return j;
}

struct hgw_journal_tx *
hgw_journal_tx(struct hgw_journal *j)
{
	return j->tx;
}

void
hgw_journal_reopen(struct hgw_journal *j)
{
	j->hup = 1;
	/* prepared before the rotation, at the name that was free then:
	 * the new file goes to the configured path if it is free now */
	jfile_discard(&j->next);
}

int
hgw_journal_poll(struct hgw_journal *j, char *err, size_t errlen)
{
	uint64_t now = rte_get_timer_cycles(), p, reserved, ahead;
	int bad = 0;

	if (j->old.fd >= 0 && jfile_committed(&j->old))
		bad |= jfile_close(j, &j->old, err, errlen);
	p = atomic_load_explicit(&j->tx->pos, memory_order_relaxed);
	reserved = p & HGW_JOURNAL_SLOT_MASK;
	/* half full: the next file is made ready */
	if (j->next.fd < 0 && (reserved >= j->cap / 2 || j->hup) &&
	    now >= j->retry_tsc) {
		char why[PATH_MAX + 128];

		if (jfile_create(j, &j->next, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "journal %s", why);
			j->retry_tsc = now + JOURNAL_RETRY_S * rte_get_timer_hz();
			/* said once, not at every retry */
			bad |= !j->failing;
			j->failing = 1;
		} else {
			j->failing = 0;
		}
	}
	/* full: said at once (counted when the file is closed) */
	if (reserved > j->cap && !j->full_said) {
		snprintf(err, errlen, "journal %s: full, orders sent but not "
			 "journalled (no next file ready in time)", j->cur.name);
		j->full_said = 1;
		bad = 1;
	}
	/* three quarters: the senders move on; the last quarter is room
	 * for the control plane's own delays */
	if (j->next.fd >= 0 && j->old.fd < 0 &&
	    (reserved >= j->cap / 4 * 3 || j->hup)) {
		j->hup = 0;
		j->full_said = 0;
		bad |= journal_switch(j, err, errlen);
		reserved = 0;
	}
	/* The pages the senders reach next, mapped writable now (a no-op
	 * for those that are: writeback write-protects a page it cleans) */
	if (reserved < j->cap) {
		size_t off = HGW_JOURNAL_FILE_HDR + reserved * HGW_JOURNAL_REC;

		off &= ~(size_t)(getpagesize() - 1);
		ahead = RTE_MIN((uint64_t)JOURNAL_AHEAD, j->cur.bytes - off);
		madvise(j->cur.map + off, ahead, MADV_POPULATE_WRITE);
	}
	return bad;
}

int
hgw_journal_finish(struct hgw_journal *j, char *err, size_t errlen)
{
	uint64_t reserved;
	int bad = 0;

	if (j->old.fd >= 0)
		bad |= jfile_close(j, &j->old, err, errlen);
	reserved = atomic_load_explicit(&j->tx->pos, memory_order_acquire) &
		   HGW_JOURNAL_SLOT_MASK;
	if (j->cur.fd >= 0) {
		j->cur.used = RTE_MIN(reserved, j->cap);
		j->cur.checked = 0;
		if (reserved > j->cap) {
			j->failed += reserved - j->cap;
			snprintf(err, errlen, "journal %s: full, %" PRIu64
				 " orders sent but not journalled",
				 j->cur.name, reserved - j->cap);
			bad = 1;
		}
		bad |= jfile_close(j, &j->cur, err, errlen);
	}
	jfile_discard(&j->next);
	return bad;
}

uint64_t
hgw_journal_written(const struct hgw_journal *j)
{
	return j->written;
}

uint64_t
hgw_journal_failed(const struct hgw_journal *j)
{
	return j->failed;
}

const char *
hgw_journal_names(struct hgw_journal *j)
{
	if (j->files == 1)
		snprintf(j->names, sizeof(j->names), "%s", j->first);
	else
		snprintf(j->names, sizeof(j->names), "%s .. %s (%u files)",
			 j->first, j->last, j->files);
	return j->names;
}

void
hgw_journal_free(struct hgw_journal *j)
{
	if (j == NULL)
		return;
	jfile_discard(&j->next);
	rte_free(j->tx);
	free(j);
}
