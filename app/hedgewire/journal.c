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

#include <pthread.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "journal.h"

/* Pages kept mapped writable ahead of the senders: 4 MiB, ~38,000
 * orders, refreshed every millisecond. */
#define JOURNAL_AHEAD (4u << 20)
/* Names tried for a file before giving up. */
#define JOURNAL_NAMES 100000u
/* A file that could not be created is tried again after this long. */
#define JOURNAL_RETRY_S 1
/* Files left by the senders and waiting to be closed, and lines the
 * file thread has for the control lcore: ring sizes (one slot short of
 * this many fit). */
#define JOURNAL_RING 64

enum { NEXT_NONE, NEXT_READY, NEXT_STALE };

struct jfile {
	int fd;                         /* -1: none */
	uint8_t *map;                   /* the whole file, MAP_SHARED */
	size_t bytes;
	uint64_t gen;
	uint64_t hup;                   /* prepared after this many SIGHUPs */
	uint64_t used;                  /* retiring: records reserved */
	uint64_t checked;               /* retiring: seen committed */
	char name[PATH_MAX];
};

/*
 * Two parties, so that the control lcore never waits for the disk. Under
 * write-back pressure creating or cutting a file can take hundreds of
 * milliseconds (a file system journal commit, dirty-page throttling),
 * which the senders would spend filling the current file, and which
 * would hold up the kill switch and telemetry. So:
 * - the control lcore (hgw_journal_poll) moves the senders on to the
 *   prepared file (memory only), hands a file the senders left to the
 *   file thread once every record reserved in it is committed, and says
 *   what went wrong;
 * - the file thread (a DPDK control thread) keeps one file prepared,
 *   closes and cuts the files handed to it, and keeps the pages ahead
 *   of the senders mapped. It sleeps a millisecond between rounds.
 * A prepared file is handed over by next_ready; left files go through
 * the closing ring (in slots of pool[], given back through the spare
 * ring: no allocation on the control lcore), lines back through the
 * said ring (rte_ring: each single producer, single consumer; enqueue
 * releases, dequeue acquires).
 */
struct hgw_journal {
	struct hgw_journal_tx *tx;      /* the senders' part (rte_zmalloc) */
	char path[PATH_MAX];
	uint64_t cap;

	/* the control lcore's */
	struct jfile cur;               /* the senders' file */
	struct jfile old;               /* left, senders may still write */
	uint64_t full;                  /* orders that found a file full */
	int hup_due;                    /* a SIGHUP's new file not opened yet */
	int full_said;                  /* the current file's overflow said */
	unsigned int files;             /* files published */
	char first[PATH_MAX], last[PATH_MAX];
	char names[2 * PATH_MAX + 32];

	/* shared */
	/* NEXT_READY: next is prepared and the control lcore's; NEXT_NONE
	 * or NEXT_STALE (prepared before the last SIGHUP: to be removed
	 * before another is made): the file thread's. Stored with release
	 * by the side giving next away, loaded with acquire by the other,
	 * so next's fields are seen. */
	_Atomic int next_ready;
	struct jfile next;
	/* SIGHUPs so far: the control lcore adds one (release) when one
	 * arrives, after logrotate renamed the file; the file thread loads
	 * it (acquire) before it picks a name, and tags the file with it.
	 * A prepared file older than the last SIGHUP is removed, not used. */
	_Atomic uint64_t hups;
	/* The file the senders are on now, for the pages ahead: stored by
	 * the control lcore (release) before the old one is handed to the
	 * file thread, loaded by the file thread (acquire). */
	_Atomic(uint8_t *) cur_map;
	_Atomic int stop;               /* control lcore: the thread ends */
	struct rte_ring *closing;       /* struct jfile *: to close */
	struct rte_ring *spare;         /* struct jfile *: free pool slots */
	struct rte_ring *said;          /* char *: lines to say */
	_Atomic uint64_t unsaid;        /* lines the said ring had no room for */
	pthread_t thread;
	int thread_up;
	struct jfile pool[JOURNAL_RING - 1];

	/* the file thread's (read by the control lcore after the join) */
	uint64_t written, torn;
	uint64_t retry_tsc;             /* no new file before this */
	int failing;                    /* the last file creation failed */
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
		/* O_EXCL: an earlier journal is never truncated, nor a
		 * symbolic link followed; 0640: the order flow is not for
		 * every user */
		fd = open(f->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, 0640);
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
 * clean stop never does) are dropped and counted as failed. The file
 * thread's during the run, the control lcore's at the end. */
static int
jfile_close(struct hgw_journal *j, struct jfile *f, char *err, size_t errlen)
{
	uint64_t torn = 0, kept;
	int bad = 0;

	kept = jfile_committed(f) ? f->used :
		hgw_journal_compact(f->map + HGW_JOURNAL_FILE_HDR, f->used,
				    &torn);
	j->torn += f->used - kept;
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

/* File thread: a line for the control lcore to say (one a millisecond;
 * counted in unsaid if 63 are waiting). */
static void
journal_say(struct hgw_journal *j, const char *line)
{
	char *s = strdup(line);

	if (s != NULL && rte_ring_sp_enqueue(j->said, s) == 0)
		return;
	free(s);
	/* relaxed: a count, read by the control lcore */
	atomic_fetch_add_explicit(&j->unsaid, 1, memory_order_relaxed);
}

/* File thread: the pages the senders reach next, mapped writable now
 * (a no-op for those that are: writeback write-protects a page it
 * cleans). cur_map and pos may be a switch apart: then some pages of
 * the new file are touched early, no harm. */
static void
journal_ahead(struct hgw_journal *j)
{
	uint8_t *map = atomic_load_explicit(&j->cur_map, memory_order_acquire);
	uint64_t reserved = atomic_load_explicit(&j->tx->pos,
				memory_order_relaxed) & HGW_JOURNAL_SLOT_MASK;
	size_t bytes = HGW_JOURNAL_FILE_HDR + j->cap * HGW_JOURNAL_REC, off;

	if (reserved >= j->cap)
		return;
	off = HGW_JOURNAL_FILE_HDR + reserved * HGW_JOURNAL_REC;
	off &= ~(size_t)(getpagesize() - 1);
	madvise(map + off, RTE_MIN((size_t)JOURNAL_AHEAD, bytes - off),
		MADV_POPULATE_WRITE);
}

/* File thread: one round. A prepared file a SIGHUP made stale is
 * removed first (its name may be the one the new file should take);
 * then the next file is made once the current one is half full (or a
 * SIGHUP asks for one); then one file the senders left is cut and
 * closed; then the pages ahead are mapped. One cut a round, so a slow
 * cut delays the next file's preparation by one cut at most. */
static void
journal_round(struct hgw_journal *j, uint64_t *made_hups)
{
	char why[PATH_MAX + 128], line[PATH_MAX + 160];
	uint64_t now = rte_get_timer_cycles(), hups, reserved;
	struct jfile *f;
	/* acquire: the control lcore is done with next's fields */
	int state = atomic_load_explicit(&j->next_ready, memory_order_acquire);

	if (state == NEXT_STALE) {
		jfile_discard(&j->next);
		state = NEXT_NONE;
		/* relaxed: next stays the file thread's either way */
		atomic_store_explicit(&j->next_ready, NEXT_NONE,
				      memory_order_relaxed);
	}
	/* acquire: after a SIGHUP, logrotate's rename is done before a
	 * name is picked */
	hups = atomic_load_explicit(&j->hups, memory_order_acquire);
	reserved = atomic_load_explicit(&j->tx->pos, memory_order_relaxed) &
		   HGW_JOURNAL_SLOT_MASK;
	if (state == NEXT_NONE &&
	    (reserved >= j->cap / 2 || hups != *made_hups) &&
	    now >= j->retry_tsc) {
		if (jfile_create(j, &j->next, why, sizeof(why)) < 0) {
			snprintf(line, sizeof(line), "journal %s", why);
			/* said once, not at every retry */
			if (!j->failing)
				journal_say(j, line);
			j->failing = 1;
			j->retry_tsc = now + JOURNAL_RETRY_S * rte_get_timer_hz();
		} else {
			j->failing = 0;
			j->next.hup = *made_hups = hups;
			/* release: next's fields before the hand-over (a
			 * SIGHUP since makes it stale: the control lcore
			 * hands it back) */
			atomic_store_explicit(&j->next_ready, NEXT_READY,
					      memory_order_release);
		}
	}
	if (rte_ring_sc_dequeue(j->closing, (void **)&f) == 0) {
		if (jfile_close(j, f, why, sizeof(why)))
			journal_say(j, why);
		/* the slot back (room for every slot: cannot fail) */
		rte_ring_sp_enqueue(j->spare, f);
	}
	journal_ahead(j);
}

static void *
journal_files(void *arg)
{
	struct hgw_journal *j = arg;
	uint64_t made_hups = 0;         /* SIGHUPs before the last file made */

	while (!atomic_load_explicit(&j->stop, memory_order_acquire)) {
		journal_round(j, &made_hups);
		rte_delay_us_sleep(1000);
	}
	return NULL;
}

/* Control lcore: f (left by the senders, every record committed) to the
 * file thread, to be cut and closed. 0, or -1 (every slot in use: f
 * stays, tried again at the next poll). */
static int
journal_hand(struct hgw_journal *j, const struct jfile *f)
{
	struct jfile *c;

	if (rte_ring_sc_dequeue(j->spare, (void **)&c) != 0)
		return -1;
	*c = *f;
	/* room for every slot: cannot fail */
	rte_ring_sp_enqueue(j->closing, c);
	return 0;
}

/* Senders on to j->next (prepared), from now on. Only when j->old is
 * handed over (every record reserved in it committed): base[] of the
 * next generation is the old one's. Returns 1 when orders found the
 * file full (err). */
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
	/* release: the file thread's pages-ahead move to the new file
	 * before it can be handed the old one */
	atomic_store_explicit(&j->cur_map, j->cur.map, memory_order_release);
	jfile_init(&j->next);
	/* release: the file thread may prepare next again */
	atomic_store_explicit(&j->next_ready, NEXT_NONE, memory_order_release);
	j->files++;
	snprintf(j->last, sizeof(j->last), "%s", j->cur.name);
	printf("journal %s: opened (after %s, %" PRIu64 " orders)\n",
	       j->cur.name, j->old.name, j->old.used);
	fflush(stdout);
	if (reserved > j->cap) {
		j->full += reserved - j->cap;
		snprintf(err, errlen, "journal %s: full, %" PRIu64 " orders "
			 "sent but not journalled", j->old.name,
			 reserved - j->cap);
		return 1;
	}
	return 0;
}

/* The end: the file thread stopped and joined; the files it had not
 * closed yet are the caller's. */
static void
journal_thread_stop(struct hgw_journal *j)
{
	if (!j->thread_up)
		return;
	atomic_store_explicit(&j->stop, 1, memory_order_release);
	pthread_join(j->thread, NULL);
	j->thread_up = 0;
}

void
hgw_journal_free(struct hgw_journal *j)
{
	char err[PATH_MAX + 256];
	void *line;

	if (j == NULL)
		return;
	/* not finished (an error path): the files cut and closed all the
	 * same, what went wrong said */
	if (j->thread_up && hgw_journal_finish(j, err, sizeof(err)))
		fprintf(stderr, "hedgewire: %s\n", err);
	while (j->said != NULL && rte_ring_sc_dequeue(j->said, &line) == 0)
		free(line);
	rte_ring_free(j->closing);
	rte_ring_free(j->spare);
	rte_ring_free(j->said);
	jfile_discard(&j->next);
	rte_free(j->tx);
	free(j);
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
	j->closing = rte_ring_create("hgw_journal_closing", JOURNAL_RING,
				     SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	j->spare = rte_ring_create("hgw_journal_spare", JOURNAL_RING,
				   SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	j->said = rte_ring_create("hgw_journal_said", JOURNAL_RING,
				  SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (j->tx == NULL || j->closing == NULL || j->spare == NULL ||
	    j->said == NULL) {
		snprintf(err, errlen, "[order] journal = %s: out of memory", path);
		hgw_journal_free(j);
		return NULL;
	}
	for (unsigned int i = 0; i < RTE_DIM(j->pool); i++)
		rte_ring_sp_enqueue(j->spare, &j->pool[i]);
	if (jfile_create(j, &j->cur, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "[order] journal = %s", why);
		hgw_journal_free(j);
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
	/* the file thread is created after these (pthread_create orders
	 * them for it) */
	atomic_store_explicit(&j->cur_map, j->cur.map, memory_order_relaxed);
	j->files = 1;
	snprintf(j->first, sizeof(j->first), "%s", j->cur.name);
	snprintf(j->last, sizeof(j->last), "%s", j->cur.name);
	if (rte_ctrl_thread_create(&j->thread, "hgw-journal", NULL,
				   journal_files, j) != 0) {
		snprintf(err, errlen, "[order] journal = %s: cannot start its "
			 "file thread", path);
		jfile_discard(&j->cur);	/* nothing in it yet */
		hgw_journal_free(j);
		return NULL;
	}
	j->thread_up = 1;
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
	/* release: pairs with the file thread's acquire before it picks
	 * a name (logrotate renamed the file before it signalled) */
	atomic_fetch_add_explicit(&j->hups, 1, memory_order_release);
	j->hup_due = 1;
}

/* Control lcore: lines the said ring had no room for, counted: 1 and
 * one line in err (the count taken), or 0. */
static int
journal_unsaid(struct hgw_journal *j, char *err, size_t errlen)
{
	/* relaxed: a count */
	uint64_t n = atomic_exchange_explicit(&j->unsaid, 0,
					      memory_order_relaxed);

	if (n == 0)
		return 0;
	snprintf(err, errlen, "journal: %" PRIu64 " more errors of its file "
		 "thread not shown (too many at once)", n);
	return 1;
}

int
hgw_journal_poll(struct hgw_journal *j, char *err, size_t errlen)
{
	uint64_t p, reserved;
	char *line;
	int bad = 0;

	/* the file the senders left, to the file thread once every record
	 * reserved in it is committed (it may then reuse its base[] slot) */
	if (j->old.fd >= 0 && jfile_committed(&j->old) &&
	    journal_hand(j, &j->old) == 0)
		jfile_init(&j->old);
	p = atomic_load_explicit(&j->tx->pos, memory_order_relaxed);
	reserved = p & HGW_JOURNAL_SLOT_MASK;
	/* full: said at once (counted when the senders move on) */
	if (reserved > j->cap && !j->full_said) {
		snprintf(err, errlen, "journal %s: full, orders sent but not "
			 "journalled (no next file ready in time)", j->cur.name);
		j->full_said = 1;
		bad = 1;
	}
	/* acquire: the file thread's writes to next are seen */
	if (atomic_load_explicit(&j->next_ready, memory_order_acquire) ==
	    NEXT_READY) {
		if (j->next.hup != atomic_load_explicit(&j->hups,
							memory_order_relaxed)) {
			/* prepared before the last SIGHUP, at the name that
			 * was free then: the file thread removes it before
			 * it makes the new one (release: back to it) */
			atomic_store_explicit(&j->next_ready, NEXT_STALE,
					      memory_order_release);
		} else if (j->old.fd < 0 &&
			   (reserved >= j->cap / 4 * 3 || j->hup_due)) {
			/* three quarters: the senders move on; the last
			 * quarter is room for the control lcore's delays
			 * (its "full, N orders" line, if any, replaces the
			 * one above) */
			j->hup_due = 0;
			j->full_said = 0;
			bad |= journal_switch(j, err, errlen);
		}
	}
	if (bad)
		return 1;
	/* the file thread's lines, one a call, when there is no other */
	if (journal_unsaid(j, err, errlen))
		return 1;
	if (rte_ring_sc_dequeue(j->said, (void **)&line) == 0) {
		snprintf(err, errlen, "%s", line);
		free(line);
		return 1;
	}
	return 0;
}

/* At the end: line into err; one already there is said first. */
static void
finish_say(char *err, size_t errlen, const char *line, int *bad)
{
	if (*bad)
		fprintf(stderr, "hedgewire: %s\n", err);
	snprintf(err, errlen, "%s", line);
	*bad = 1;
}

int
hgw_journal_finish(struct hgw_journal *j, char *err, size_t errlen)
{
	char why[PATH_MAX + 128], *line;
	uint64_t reserved;
	struct jfile *f;
	int bad = 0;

	journal_thread_stop(j);
	/* what the file thread had not said or closed yet */
	while (rte_ring_sc_dequeue(j->said, (void **)&line) == 0) {
		finish_say(err, errlen, line, &bad);
		free(line);
	}
	if (journal_unsaid(j, why, sizeof(why)))
		finish_say(err, errlen, why, &bad);
	while (rte_ring_sc_dequeue(j->closing, (void **)&f) == 0)
		if (jfile_close(j, f, why, sizeof(why)))
			finish_say(err, errlen, why, &bad);
	if (j->old.fd >= 0 && jfile_close(j, &j->old, why, sizeof(why)))
		finish_say(err, errlen, why, &bad);
	reserved = atomic_load_explicit(&j->tx->pos, memory_order_acquire) &
		   HGW_JOURNAL_SLOT_MASK;
	if (j->cur.fd >= 0) {
		j->cur.used = RTE_MIN(reserved, j->cap);
		j->cur.checked = 0;
		if (reserved > j->cap) {
			j->full += reserved - j->cap;
			snprintf(why, sizeof(why), "journal %s: full, %" PRIu64
				 " orders sent but not journalled",
				 j->cur.name, reserved - j->cap);
			finish_say(err, errlen, why, &bad);
		}
		if (jfile_close(j, &j->cur, why, sizeof(why)))
			finish_say(err, errlen, why, &bad);
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
	return j->full + j->torn;
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
