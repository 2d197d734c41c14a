/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests for the order journal (app/hedgewire/journal.c): files roll
 * over in order, a SIGHUP while the next file is prepared, a rename that
 * lands while the file thread makes a file, and a file-thread error that
 * coincides with a full file. Driven as hedgewire drives it: puts from
 * the caller, a poll a millisecond, the journal's own file thread. EAL in
 * memory, no huge pages. Waits are for a condition, at most 10 s.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "journal.h"
#include "hgw_test.h"

#define CAP 1024u               /* records a file: the smallest allowed */
#define BURST 16u

static char dir[64];
static struct rte_mbuf *mb[BURST];
static uint32_t seq;            /* the next order's number (its frame) */
static char said[8192];         /* the poll's lines since the last clear */

static const char *
path(const char *name)
{
	static char p[4][PATH_MAX];
	static unsigned int n;
	char *s = p[n++ % 4];

	snprintf(s, PATH_MAX, "%s/%s", dir, name);
	return s;
}

static int
exists(const char *name)
{
	return access(path(name), F_OK) == 0;
}

/* Every file of the directory removed, the order numbers from 0. */
static void
fresh(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -f %s/*", dir);
	if (system(cmd) != 0)
		printf("# %s failed\n", cmd);
	seq = 0;
	said[0] = '\0';
}

/* n orders numbered from seq, a burst at a time; returns those that found
 * the file full. */
static uint32_t
put(struct hgw_journal *j, uint32_t n)
{
	uint32_t lost = 0;

	while (n != 0) {
		uint32_t b = RTE_MIN(n, BURST);

		for (uint32_t i = 0; i < b; i++) {
			uint32_t v = seq++;

			memcpy(rte_pktmbuf_mtod(mb[i], uint8_t *), &v, sizeof(v));
		}
		lost += hgw_journal_put(hgw_journal_tx(j), mb, b,
					rte_get_tsc_cycles());
		n -= b;
	}
	return lost;
}

static void
poll_once(struct hgw_journal *j)
{
	char err[PATH_MAX + 256];

	if (hgw_journal_poll(j, err, sizeof(err))) {
		size_t l = strlen(said);

		snprintf(said + l, sizeof(said) - l, "%s\n", err);
	}
	rte_delay_us_sleep(1000);
}

/* Files the senders have been on. */
static unsigned int
files(struct hgw_journal *j)
{
	const char *n = strstr(hgw_journal_names(j), "(");

	return n == NULL ? 1 : (unsigned int)atoi(n + 1);
}

/* Polls until files() is at least want (10 s at most): 0, or -1. */
static int
poll_files(struct hgw_journal *j, unsigned int want)
{
	for (int i = 0; i < 10000 && files(j) < want; i++)
		poll_once(j);
	return files(j) >= want ? 0 : -1;
}

/* Polls until the file name exists (10 s at most): 0, or -1. */
static int
poll_exists(struct hgw_journal *j, const char *name)
{
	for (int i = 0; i < 10000 && !exists(name); i++)
		poll_once(j);
	return exists(name) ? 0 : -1;
}

/* The order numbers in a journal file, appended to out[] from *n; -1 if
 * it is not a clean journal (header, whole committed records). */
static int
read_file(const char *name, uint32_t *out, uint32_t *n, uint32_t max)
{
	FILE *f = fopen(path(name), "rb");
	uint8_t hdr[HGW_JOURNAL_FILE_HDR], rec[HGW_JOURNAL_REC];
	size_t k;
	int rc = 0;

	if (f == NULL)
		return -1;
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
	    !hgw_journal_file_header_ok(hdr))
		rc = -1;
	while (rc == 0 && (k = fread(rec, 1, sizeof(rec), f)) != 0) {
		if (k != sizeof(rec) || !hgw_journal_rec_complete(rec) ||
		    *n == max) {
			rc = -1;
			break;
		}
		memcpy(&out[(*n)++], rec + 16, sizeof(uint32_t));
	}
	fclose(f);
	return rc;
}

static uint32_t
records(const char *name)
{
	struct stat st;

	if (stat(path(name), &st) != 0)
		return UINT32_MAX;
	return (uint32_t)((st.st_size - HGW_JOURNAL_FILE_HDR) / HGW_JOURNAL_REC);
}

/* A journal at orders.pcap in an empty directory, CAP orders a file. */
static struct hgw_journal *
start(void)
{
	char err[PATH_MAX + 256];
	struct hgw_journal *j;

	fresh();
	j = hgw_journal_open(path("orders.pcap"), CAP, err, sizeof(err));
	if (j == NULL)
		printf("# %s\n", err);
	HGW_CHECK(j != NULL);
	return j;
}

/* Files of CAP orders: the senders move on at three quarters, never to a
 * full file; every file but the last holds 768..1024 orders; the files
 * in order hold 0..N-1 once, in order. */
static void
roll(void)
{
	char err[PATH_MAX + 256], name[32];
	static uint32_t got[8192];
	const uint32_t total = 6000;
	uint32_t n = 0, lost = 0;
	unsigned int nf;
	struct hgw_journal *j;

	j = start();
	if (j == NULL)
		return;
	while (seq < total) {
		n = (uint32_t)(atomic_load(&hgw_journal_tx(j)->pos) &
			       HGW_JOURNAL_SLOT_MASK);
		/* a burst that could pass the end waits for the move on */
		if (n + BURST > CAP) {
			if (poll_files(j, files(j) + 1) != 0) {
				HGW_CHECK(!"the senders moved on");
				break;
			}
			continue;
		}
		lost += put(j, BURST);
		poll_once(j);
	}
	HGW_CHECK_EQ(lost, 0);
	HGW_CHECK(hgw_journal_finish(j, err, sizeof(err)) == 0);
	HGW_CHECK_EQ(hgw_journal_written(j), total);
	HGW_CHECK_EQ(hgw_journal_failed(j), 0);
	nf = files(j);
	HGW_CHECK(nf >= 6);
	hgw_journal_free(j);
	n = 0;
	for (unsigned int i = 0; i < nf; i++) {
		hgw_journal_name("orders.pcap", i, name, sizeof(name));
		if (i + 1 < nf)
			HGW_CHECK(records(name) >= CAP / 4 * 3 &&
				  records(name) <= CAP);
		HGW_CHECK(read_file(name, got, &n, RTE_DIM(got)) == 0);
	}
	HGW_CHECK_EQ(n, total);
	for (uint32_t i = 0; i < n; i++)
		if (got[i] != i) {
			HGW_CHECK_EQ(got[i], i);
			break;
		}
	hgw_journal_name("orders.pcap", nf, name, sizeof(name));
	HGW_CHECK(!exists(name));   /* the prepared one, never used: removed */
	HGW_CHECK(said[0] == '\0');
	if (said[0] != '\0')
		printf("# said: %s", said);
}

/* A SIGHUP once the current file holds 600 orders, with logrotate's
 * rename (to rotated.pcap) before the file thread makes the next file
 * (RENAME_BEFORE), after it made it (RENAME_AFTER), or none. The next
 * file, prepared, appears at the name prepared; after the SIGHUP the
 * senders are on now (10 orders), first holds the 600, and no file
 * named absent is left. */
enum { RENAME_NONE, RENAME_AFTER, RENAME_BEFORE };

static void
sighup(int rename_at, const char *prepared, const char *first,
       const char *now, const char *absent)
{
	char err[PATH_MAX + 256], want[64];
	struct hgw_journal *j;

	j = start();
	if (j == NULL)
		return;
	if (rename_at == RENAME_BEFORE)
		HGW_CHECK(rename(path("orders.pcap"), path("rotated.pcap")) == 0);
	put(j, 600);    /* past half: the next file is made */
	HGW_CHECK(poll_exists(j, prepared) == 0);
	if (rename_at == RENAME_AFTER)
		HGW_CHECK(rename(path("orders.pcap"), path("rotated.pcap")) == 0);
	hgw_journal_reopen(j);
	HGW_CHECK(poll_files(j, 2) == 0);
	put(j, 10);
	HGW_CHECK(hgw_journal_finish(j, err, sizeof(err)) == 0);
	snprintf(want, sizeof(want), "/%s (2 files)", now);
	HGW_CHECK(strstr(hgw_journal_names(j), want) != NULL);
	if (strstr(hgw_journal_names(j), want) == NULL)
		printf("# files: %s\n", hgw_journal_names(j));
	HGW_CHECK_EQ(records(first), 600);
	HGW_CHECK_EQ(records(now), 10);
	HGW_CHECK(!exists(absent));
	HGW_CHECK(said[0] == '\0');
	hgw_journal_free(j);
}

/* systemctl reload while the next file is prepared: the senders move on
 * to the next name, and the names stay in time order (the prepared one
 * is removed before the new one is made, not after). */
static void
reload_prepared(void)
{
	sighup(RENAME_NONE, "orders.1.pcap", "orders.pcap", "orders.1.pcap",
	       "orders.2.pcap");
}

/* logrotate with the next file prepared at orders.1.pcap (orders.pcap
 * was taken then): the senders move on to the configured path. */
static void
rotate_prepared(void)
{
	sighup(RENAME_AFTER, "orders.1.pcap", "rotated.pcap", "orders.pcap",
	       "orders.1.pcap");
}

/* logrotate's rename lands before the file thread makes the next file
 * and the SIGHUP after it: that file took the configured path before
 * the SIGHUP was counted; it is replaced, and the senders end on the
 * configured path (not orders.1.pcap, with no file left there). */
static void
rotate_race(void)
{
	sighup(RENAME_BEFORE, "orders.pcap", "rotated.pcap", "orders.pcap",
	       "orders.1.pcap");
}

/* The next file cannot be allocated (past RLIMIT_FSIZE) and the current
 * one fills before a poll: both are said, the cause as well as "full". */
static void
error_and_full(void)
{
	char err[PATH_MAX + 256];
	struct rlimit old, rl;
	struct hgw_journal *j;
	uint32_t lost;

	j = start();
	if (j == NULL)
		return;
	getrlimit(RLIMIT_FSIZE, &old);
	rl = old;
	rl.rlim_cur = 4096;
	setrlimit(RLIMIT_FSIZE, &rl);
	lost = put(j, CAP + 100);
	HGW_CHECK_EQ(lost, 100);
	/* no poll until the file thread has tried (and failed) */
	rte_delay_us_sleep(50000);
	for (int i = 0; i < 10000 && strstr(said, "cannot allocate") == NULL; i++)
		poll_once(j);
	setrlimit(RLIMIT_FSIZE, &old);
	HGW_CHECK(strstr(said, "cannot allocate") != NULL);
	HGW_CHECK(strstr(said, ": full, ") != NULL);
	if (strstr(said, "cannot allocate") == NULL ||
	    strstr(said, ": full, ") == NULL)
		printf("# said: %s", said);
	HGW_CHECK(hgw_journal_finish(j, err, sizeof(err)) == 1);
	HGW_CHECK(strstr(err, "full, 100 orders sent but not journalled") != NULL);
	HGW_CHECK_EQ(hgw_journal_written(j), CAP);
	HGW_CHECK_EQ(hgw_journal_failed(j), 100);
	hgw_journal_free(j);
}

/* The journal says what it opens on stdout; here those lines become TAP
 * comments: stdout goes to a file while a test runs, then is copied out
 * with "# " before each line. */
static void
captured(void (*fn)(void))
{
	FILE *f = tmpfile();
	char line[PATH_MAX + 256];
	int saved;

	fflush(stdout);
	saved = dup(1);
	if (f == NULL || saved < 0 || dup2(fileno(f), 1) < 0) {
		printf("Bail out! cannot capture stdout\n");
		exit(1);
	}
	fn();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL)
		printf("%s%s", line[0] == '#' ? "" : "# ", line);
	fclose(f);
}

#define CAPTURED(name) \
	static void test_##name(void) { captured(name); }
CAPTURED(roll)
CAPTURED(reload_prepared)
CAPTURED(rotate_prepared)
CAPTURED(rotate_race)
CAPTURED(error_and_full)

int
main(void)
{
	char *eal[] = { "test_journal", "--no-huge", "--no-pci", "--no-shconf",
			"-m", "64", "-l", "0", "--log-level=error" };
	struct rte_mempool *mp;

	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("Bail out! EAL init failed\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("test_journal", 255, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	snprintf(dir, sizeof(dir), "/tmp/hgw-journal.XXXXXX");
	if (mp == NULL || mkdtemp(dir) == NULL) {
		printf("Bail out! no mbuf pool or no directory\n");
		return 1;
	}
	for (unsigned int i = 0; i < BURST; i++) {
		mb[i] = rte_pktmbuf_alloc(mp);
		memset(rte_pktmbuf_append(mb[i], HGW_JOURNAL_FRAME), 0,
		       HGW_JOURNAL_FRAME);
	}
	signal(SIGXFSZ, SIG_IGN);       /* a write past the limit: EFBIG */
	HGW_TEST(test_roll);
	HGW_TEST(test_reload_prepared);
	HGW_TEST(test_rotate_prepared);
	HGW_TEST(test_rotate_race);
	HGW_TEST(test_error_and_full);
	fresh();
	rmdir(dir);
	rte_eal_cleanup();
	return hgw_test_done();
}
