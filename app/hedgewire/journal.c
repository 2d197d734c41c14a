/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: pcap journal of sent orders (control plane only).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcap/pcap.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "journal.h"

#define JOURNAL_BURST 64

struct hgw_journal {
	pcap_t *dead;
	pcap_dumper_t *out;
	uint64_t wall0_ns;      /* CLOCK_REALTIME at open ... */
	uint64_t tsc0;          /* ... and the TSC read with it */
	uint64_t hz;
	uint64_t written;
	uint64_t failed;
	uint64_t pending;       /* dumped since the last flush that worked */
};

/* Push what was dumped to the file. A write error (a full disk,
 * /dev/full) makes every record since the last good flush a failure:
 * counted, never reported as written. */
static void
journal_flush(struct hgw_journal *j)
{
	if (j->pending == 0)
		return;
	FILE *f = pcap_dump_file(j->out);

	/* a record too big for the buffer was written directly, and its
	 * error is only in the stream's error flag: look at both */
	if (pcap_dump_flush(j->out) != 0 || ferror(f)) {
		j->written -= j->pending;
		j->failed += j->pending;
		clearerr(f);	/* a later write may work (space freed) */
	}
	j->pending = 0;
}

struct hgw_journal *
hgw_journal_open(const char *path, char *err, size_t errlen)
{
	struct hgw_journal *j = calloc(1, sizeof(*j));
	struct timespec ts;

	if (j == NULL) {
		snprintf(err, errlen, "journal %s: out of memory", path);
		return NULL;
	}
	j->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
						       PCAP_TSTAMP_PRECISION_NANO);
	j->out = j->dead ? pcap_dump_open(j->dead, path) : NULL;
	if (j->out == NULL) {
		snprintf(err, errlen, "[order] journal = %s: %s", path,
			 j->dead ? pcap_geterr(j->dead) : "out of memory");
		if (j->dead)
			pcap_close(j->dead);
		free(j);
		return NULL;
	}
	/* TSC -> wall clock: one reference pair, then the invariant TSC. */
	j->tsc0 = rte_get_tsc_cycles();
	clock_gettime(CLOCK_REALTIME, &ts);
	j->wall0_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	j->hz = rte_get_tsc_hz();
	return j;
}

struct rte_ring *
hgw_journal_ring(unsigned int worker, unsigned int size)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "hgw_journal_%u", worker);
	return rte_ring_create_elem(name, sizeof(struct hgw_journal_rec), size,
				    (int)rte_socket_id(),
				    RING_F_SP_ENQ | RING_F_SC_DEQ);
}

static uint64_t
tsc_to_ns(const struct hgw_journal *j, uint64_t tsc)
{
	int64_t d = (int64_t)(tsc - j->tsc0);
	/* split so d * 1e9 cannot overflow */
	int64_t s = d / (int64_t)j->hz, r = d % (int64_t)j->hz;

	return j->wall0_ns + (uint64_t)(s * 1000000000 +
					r * 1000000000 / (int64_t)j->hz);
}

uint64_t
hgw_journal_drain(struct hgw_journal *j, struct rte_ring *const *rings,
		  unsigned int nrings)
{
	static struct hgw_journal_rec recs[JOURNAL_BURST];
	uint64_t before = j->written;

	for (unsigned int r = 0; r < nrings; r++) {
		unsigned int n;

		while ((n = rte_ring_sc_dequeue_burst_elem(rings[r], recs,
							   sizeof(recs[0]),
							   JOURNAL_BURST,
							   NULL)) != 0) {
			for (unsigned int i = 0; i < n; i++) {
				uint64_t ns = tsc_to_ns(j, recs[i].tsc);
				struct pcap_pkthdr h;

				/* with nanosecond precision tv_usec holds ns */
				h.ts.tv_sec = (time_t)(ns / 1000000000u);
				h.ts.tv_usec = (suseconds_t)(ns % 1000000000u);
				h.caplen = h.len = recs[i].len;
				pcap_dump((u_char *)j->out, &h, recs[i].frame);
				j->written++;
				j->pending++;
			}
		}
	}
	/* the control plane drains every millisecond: one write a drain
	 * keeps a killed process's loss to what it had not drained yet */
	journal_flush(j);
	return j->written - before;
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

void
hgw_journal_close(struct hgw_journal *j)
{
	if (j == NULL)
		return;
	journal_flush(j);
	pcap_dump_close(j->out);	/* closes the file */
	pcap_close(j->dead);
	free(j);
}
