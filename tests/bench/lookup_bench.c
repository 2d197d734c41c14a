/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire benchmark: one random table lookup, read by one worker
 * ("single") or raced by N workers on N replicas ("hedged"), with every
 * sample counted.
 *
 *   lookup_bench [EAL args] -- [--table-mb MB] [--samples N] [--gap-ns NS]
 *                [--block N] [--seed S] [--csv PREFIX] [--no-flush]
 *
 * The idea is the published Tailslayer benchmark's: N copies of a table
 * far larger than the last-level cache, N cores reading the same entry of
 * their own copy at the same moment, first answer wins. Unlike the
 * reference benchmark, no sample is ever dropped: a sample whose readers
 * were all late counts with its full lateness.
 *
 * Workers are the EAL lcores (N = lcore count, at least 2); the main lcore
 * is worker 0 and reads too (CALL_MAIN), so no core sits idle in
 * rte_eal_wait_lcore. Replica w is its own anonymous mapping of
 * --table-mb MiB, 2 MiB aligned and advised MADV_HUGEPAGE, filled before
 * the run: entry i (64 bytes) holds lookup_val(i) + j in word j, so each
 * read can be checked.
 *
 * The schedule is built before the run and only read while it runs: for
 * sample k an entry index (seeded PRNG) and a TSC deadline
 * t0 + k * gap. Samples come in blocks of --block, alternating single and
 * hedged, each mode getting --samples, so drift and noise hit both alike.
 * In a single block only worker 0 reads; in a hedged block every worker
 * reads the same index from its own replica. A worker spins until the
 * deadline (or starts at once if it is already late), loads the entry,
 * waits for the load, reads the TSC and stores start and finish in its own
 * arrays: no line is shared between workers on the hot path, no atomics.
 *
 * After the join, per sample: single latency = finish[0] - deadline;
 * hedged latency = min over workers of finish[w] - deadline. Both go into
 * hgw_hist histograms (TSC cycles), printed in ns. Also printed: each
 * worker's own latency in hedged blocks, which worker answered first, how
 * many samples started late, and, as a diagnostic only, the read time
 * from each worker's own start (finish - start), which leaves out late
 * starts and so separates the memory part of the tail from the vCPU being
 * taken away (the host's steal time over the run is printed too).
 *
 * Cache: on x86 the line just read is flushed (clflush) after its finish
 * time is taken, outside the timed window, so every timed read misses all
 * caches, not only the ~97% that a random index into >= 1 GiB would miss.
 * --no-flush turns that off. Elsewhere nothing is flushed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#if defined(RTE_ARCH_X86)
#include <emmintrin.h>
#endif

#include "hgw_latency.h"
#include "hgw_prng.h"

#define PROG "lookup_bench"
#define ENTRY_SIZE 64
#define HUGE_2M ((size_t)2 << 20)
/* A worker that starts more than this after its deadline was "late". */
#define LATE_NS 1000

struct entry {
	uint64_t w[ENTRY_SIZE / 8];
};

/* One scheduled sample: 16 bytes, read-only during the run and shared by
 * all workers (read-only lines may be shared freely). */
struct slot {
	uint64_t deadline;   /* TSC */
	uint32_t idx;        /* entry index */
	uint32_t hedged;     /* 0: single block (worker 0 only), 1: all */
};

/* Per-worker state; each worker writes only its own. */
struct worker {
	struct entry *replica;
	uint64_t *start;     /* TSC when the spin ended, per sample */
	uint64_t *finish;    /* TSC when the load had completed */
	uint64_t reads;
	uint64_t bad;        /* reads that returned the wrong value */
	unsigned int lcore;
	int64_t steal;       /* /proc/stat steal ticks of its CPU, before */
} __rte_cache_aligned;

static struct {
	uint64_t table_mb;
	uint64_t samples;    /* per mode */
	uint64_t gap_ns;
	uint64_t block;
	uint64_t seed;
	const char *csv;
	int flush;
} opt = {
	.table_mb = 1024,
	.samples = 1000000,
	.gap_ns = 2000,
	.block = 10000,
	.seed = 1,
	.csv = NULL,
	.flush = 1,
};

/* Set before launch, read-only afterwards. */
static struct slot *sched;
static uint64_t nslots;
static struct worker *workers;
static unsigned int nworkers;
static unsigned int worker_of_lcore[RTE_MAX_LCORE];

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	rte_eal_cleanup();
	exit(EXIT_FAILURE);
}

/* The value word 0 of entry i holds (word j holds this + j). */
static inline uint64_t
lookup_val(uint64_t i)
{
	return (i * 0x9e3779b97f4a7c15ull) ^ 0x5bd1e9955bd1e995ull;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [EAL args] -- [options]\n"
		"  --table-mb MB   size of each replica (default 1024)\n"
		"  --samples N     samples per mode, single and hedged (default 1000000)\n"
		"  --gap-ns NS     time between two deadlines (default 2000)\n"
		"  --block N       samples per block; blocks alternate single/hedged "
		"(default 10000)\n"
		"  --seed S        seed of the index sequence (default 1)\n"
		"  --csv PREFIX    write PREFIX-single.csv and PREFIX-hedged.csv\n"
		"  --no-flush      do not clflush the line after each read\n"
		"Workers are the EAL lcores (at least 2, e.g. -l 0-1).\n");
}

static uint64_t
num_arg(const char *name, const char *s, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		die("bad value for --%s: '%s'", name, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		die("bad value for --%s: '%s' (%" PRIu64 "..%" PRIu64 ")",
		    name, s, min, max);
	return v;
}

static void
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "table-mb", required_argument, NULL, 't' },
		{ "samples", required_argument, NULL, 'n' },
		{ "gap-ns", required_argument, NULL, 'g' },
		{ "block", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "csv", required_argument, NULL, 'c' },
		{ "no-flush", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;   /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			/* idx is 32-bit: 2^32 entries of 64 bytes = 256 GiB */
			opt.table_mb = num_arg("table-mb", optarg, 1, 262144);
			break;
		case 'n':
			opt.samples = num_arg("samples", optarg, 1, 1000000000);
			break;
		case 'g':
			opt.gap_ns = num_arg("gap-ns", optarg, 100, 1000000000);
			break;
		case 'b':
			opt.block = num_arg("block", optarg, 1, 1000000000);
			break;
		case 's':
			opt.seed = num_arg("seed", optarg, 0, UINT64_MAX);
			break;
		case 'c':
			if (optarg[0] == '\0')
				die("bad value for --csv: ''");
			opt.csv = optarg;
			break;
		case 'F':
			opt.flush = 0;
			break;
		case 'h':
			usage(stdout);
			rte_eal_cleanup();
			exit(EXIT_SUCCESS);
		case ':':
			die("option '%s' needs a value", argv[optind - 1]);
		default:
			die("unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (optind != argc)
		die("unexpected argument '%s' (options are --name value)",
		    argv[optind]);
}

/* MemAvailable from /proc/meminfo in bytes, 0 if unknown. */
static uint64_t
mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

/* Anonymous mapping of len bytes (a multiple of 2 MiB) aligned to 2 MiB,
 * advised MADV_HUGEPAGE; *thp says whether the advice was taken. NULL on
 * failure. */
static void *
map_aligned(size_t len, int *thp)
{
	size_t span = len + HUGE_2M;
	uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	uint8_t *a = (uint8_t *)RTE_ALIGN_CEIL((uintptr_t)p, HUGE_2M);

	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + len < p + span)
		munmap(a + len, (size_t)(p + span - (a + len)));
	*thp = madvise(a, len, MADV_HUGEPAGE) == 0;
	return a;
}

/* Bytes of [va, va + len) backed by transparent huge pages, from
 * /proc/self/smaps; -1 if unreadable. */
static int64_t
thp_bytes(const void *va, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	uintptr_t lo = (uintptr_t)va, hi = lo + len;
	int inside = 0;
	int64_t sum = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long s, e, kb;

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2)
			inside = s >= lo && e <= hi;
		else if (inside && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			sum += (int64_t)kb << 10;
	}
	fclose(f);
	return sum;
}

/* Steal time of CPU cpu so far, in USER_HZ ticks, from /proc/stat (time
 * the hypervisor ran something else on that vCPU); -1 if unknown. */
static int64_t
steal_ticks(int cpu)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	int64_t st = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long v[8];
		int c;

		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu",
			   &c, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]) == 9 && c == cpu) {
			st = (int64_t)v[7];
			break;
		}
	}
	fclose(f);
	return st;
}

/* Schedule: block by block, alternating single and hedged until each mode
 * has opt.samples. Deadlines are filled in later (fill_deadlines). */
static void
build_schedule(uint64_t nentries)
{
	uint64_t rng = opt.seed;
	uint64_t left[2] = { opt.samples, opt.samples };
	uint64_t k = 0;

	for (uint32_t mode = 0; left[0] + left[1] > 0; mode ^= 1) {
		uint64_t n = RTE_MIN(opt.block, left[mode]);

		for (uint64_t i = 0; i < n; i++, k++) {
			/* multiply-shift: uniform in [0, nentries) */
			uint64_t r = hgw_splitmix64(&rng) >> 32;

			sched[k].idx = (uint32_t)((r * nentries) >> 32);
			sched[k].hedged = mode;
		}
		left[mode] -= n;
	}
}

/* d[k] = t0 + k * gap, computed in double from k so that rounding does not
 * accumulate (exact to well under a cycle up to 2^53 cycles). */
static void
fill_deadlines(uint64_t t0, double gap_cycles)
{
	for (uint64_t k = 0; k < nslots; k++)
		sched[k].deadline = t0 + (uint64_t)((double)k * gap_cycles);
}

/* The timed loop. No syscall, allocation, logging or shared write in it.
 * The spin has no rte_pause(): under KVM a long PAUSE loop triggers
 * pause-loop exiting, which would take the vCPU away by itself. */
static int
worker_main(void *arg __rte_unused)
{
	struct worker *me = &workers[worker_of_lcore[rte_lcore_id()]];
	const struct slot *s = sched;
	const struct entry *tab = me->replica;
	uint64_t *start = me->start, *finish = me->finish;
	const uint64_t n = nslots;
	const int single_too = me == &workers[0];
	const int flush = opt.flush;
	uint64_t reads = 0, bad = 0;

	for (uint64_t k = 0; k < n; k++) {
		if (!s[k].hedged && !single_too)
			continue;
		const uint64_t d = s[k].deadline;
		uint64_t now;

		while ((now = rte_rdtsc()) < d)
			;
#if defined(RTE_ARCH_X86)
		/* Orders the load after the TSC read that ended the spin: no
		 * speculative issue of the load (which would warm the line)
		 * before the deadline has been seen. */
		_mm_lfence();
#else
		rte_mb();
#endif
		const struct entry *e = &tab[s[k].idx];
		/* volatile: the load is done, exactly once, whatever the
		 * compiler thinks of the value's use */
		const uint64_t v = *(const volatile uint64_t *)&e->w[0];
#if defined(RTE_ARCH_X86)
		/* Waits for the load to complete before the TSC is read:
		 * RDTSC alone may execute before an outstanding miss. */
		_mm_lfence();
		const uint64_t t = rte_rdtsc();
#else
		const uint64_t t = rte_rdtsc_precise();
#endif
		start[k] = now;
		finish[k] = t;
		bad += v != lookup_val(s[k].idx);
		reads++;
#if defined(RTE_ARCH_X86)
		/* After the finish time, so not timed. A clflush of a clean
		 * line costs ~100 ns here: well inside the default 2000 ns
		 * gap; with gaps near that it delays the next start, which
		 * is then counted as late like any other delay. */
		if (flush)
			_mm_clflush(e);
#else
		RTE_SET_USED(flush);
#endif
	}
	me->reads = reads;
	me->bad = bad;
	return 0;
}

static double ns_per_cycle;

static const double pct[] = { 50, 99, 99.9, 99.99, 100 };
static const char *const pct_name[] = { "p50", "p99", "p99.9", "p99.99", "max" };

static void
print_hist(const char *name, const struct hgw_hist *h)
{
	printf("  %-9s", name);
	for (unsigned int i = 0; i < RTE_DIM(pct); i++)
		printf(" %s %7.0f", pct_name[i],
		       (double)hgw_hist_percentile(h, pct[i]) * ns_per_cycle);
	printf("   (n %" PRIu64 ", mean %.0f)\n", h->count,
	       h->count ? (double)h->sum / (double)h->count * ns_per_cycle : 0.0);
}

static FILE *
open_csv(const char *suffix, char *path, size_t sz)
{
	FILE *f;

	if ((size_t)snprintf(path, sz, "%s-%s.csv", opt.csv, suffix) >= sz)
		die("--csv prefix too long: '%s'", opt.csv);
	f = fopen(path, "w");
	if (f == NULL)
		die("cannot write %s: %s", path, strerror(errno));
	return f;
}

static void *
alloc_or_die(size_t len, const char *what)
{
	int thp;
	void *p = map_aligned(RTE_ALIGN_CEIL(len, HUGE_2M), &thp);

	if (p == NULL)
		die("cannot map %zu MiB for %s: %s", len >> 20, what,
		    strerror(errno));
	return p;
}

int
main(int argc, char **argv)
{
	int ret = rte_eal_init(argc, argv);

	if (ret < 0) {
		fprintf(stderr, PROG ": EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	argc -= ret;
	argv += ret;
	parse_args(argc, argv);

	nworkers = rte_lcore_count();
	if (nworkers < 2)
		die("needs at least 2 lcores (e.g. EAL -l 0-1), got %u", nworkers);

	const uint64_t table_bytes = opt.table_mb << 20;
	const uint64_t nentries = table_bytes / ENTRY_SIZE;

	nslots = 2 * opt.samples;
	const uint64_t side = nslots * sizeof(struct slot) +
			      (uint64_t)nworkers * nslots * 2 * sizeof(uint64_t);
	const uint64_t need = (uint64_t)nworkers * table_bytes + side;
	const uint64_t avail = mem_available();

	/* keep 256 MiB for everything else on the host */
	if (avail != 0 && need + (256ull << 20) > avail)
		die("needs %" PRIu64 " MiB (%u replicas x %" PRIu64 " MiB + %"
		    PRIu64 " MiB schedule and results) but only %" PRIu64
		    " MiB is available; lower --table-mb or --samples",
		    need >> 20, nworkers, opt.table_mb, side >> 20, avail >> 20);

	char csv_path[2][4096];
	FILE *csv[2] = { NULL, NULL };

	if (opt.csv != NULL) {
		csv[0] = open_csv("single", csv_path[0], sizeof(csv_path[0]));
		csv[1] = open_csv("hedged", csv_path[1], sizeof(csv_path[1]));
	}

	/* Workers: worker 0 is the main lcore, then the others in order. */
	workers = calloc(nworkers, sizeof(*workers));
	if (workers == NULL)
		die("out of memory");
	unsigned int lc, w = 0;

	workers[w++].lcore = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(lc)
		workers[w++].lcore = lc;

	/* Replicas, touched and filled before anything is timed. */
	int thp_ok = 1;

	for (w = 0; w < nworkers; w++) {
		int thp;
		struct entry *t = map_aligned(table_bytes, &thp);

		if (t == NULL)
			die("cannot map replica %u (%" PRIu64 " MiB): %s", w,
			    opt.table_mb, strerror(errno));
		thp_ok &= thp;
		for (uint64_t i = 0; i < nentries; i++) {
			const uint64_t v = lookup_val(i);

			for (unsigned int j = 0; j < RTE_DIM(t[i].w); j++)
				t[i].w[j] = v + j;
		}
		workers[w].replica = t;
		worker_of_lcore[workers[w].lcore] = w;
	}
	int64_t thp_total = 0;

	for (w = 0; w < nworkers && thp_total >= 0; w++) {
		int64_t b = thp_bytes(workers[w].replica, table_bytes);

		thp_total = b < 0 ? -1 : thp_total + b;
	}

	/* Schedule and result arrays, pre-faulted (memset) so the run takes
	 * no page faults. Unused result slots stay UINT64_MAX. */
	sched = alloc_or_die(nslots * sizeof(*sched), "the schedule");
	memset(sched, 0, nslots * sizeof(*sched));
	for (w = 0; w < nworkers; w++) {
		workers[w].start = alloc_or_die(nslots * sizeof(uint64_t), "results");
		workers[w].finish = alloc_or_die(nslots * sizeof(uint64_t), "results");
		memset(workers[w].start, 0xff, nslots * sizeof(uint64_t));
		memset(workers[w].finish, 0xff, nslots * sizeof(uint64_t));
	}
	build_schedule(nentries);

	const uint64_t hz = rte_get_tsc_hz();

	ns_per_cycle = 1e9 / (double)hz;
	printf(PROG ": N=%u workers (lcores", nworkers);
	for (w = 0; w < nworkers; w++)
		printf("%s%u", w ? "," : " ", workers[w].lcore);
	printf("), table %" PRIu64 " MiB per replica (%" PRIu64 " entries of %d B), "
	       "%" PRIu64 " samples per mode, gap %" PRIu64 " ns, block %" PRIu64
	       ", seed %" PRIu64 ", TSC %" PRIu64 " Hz\n", opt.table_mb, nentries,
	       ENTRY_SIZE, opt.samples, opt.gap_ns, opt.block, opt.seed, hz);
	if (thp_total >= 0)
		printf("replicas: %u separate anonymous mappings, MADV_HUGEPAGE %s, "
		       "%" PRId64 " of %" PRIu64 " MiB in transparent huge pages\n",
		       nworkers, thp_ok ? "taken" : "refused", thp_total >> 20,
		       (nworkers * table_bytes) >> 20);
	printf("channel placement: unverified (VM, no host-physical addresses); "
	       "the replicas are only separate allocations\n");
#if defined(RTE_ARCH_X86)
	printf("cache: %s\n", opt.flush ?
	       "clflush of the line after each read, outside the timed window" :
	       "no flush (--no-flush); random indices only");
#else
	printf("cache: no flush on this architecture; random indices only\n");
#endif
	fflush(stdout);

	/* t0 leaves 50 ms for every worker to be launched and spinning. */
	fill_deadlines(rte_rdtsc() + hz / 20,
		       (double)opt.gap_ns * (double)hz / 1e9);
	for (w = 0; w < nworkers; w++)
		workers[w].steal = steal_ticks((int)rte_lcore_to_cpu_id(
						   (int)workers[w].lcore));
	/* The launch publishes everything written above to the workers. */
	if (rte_eal_mp_remote_launch(worker_main, NULL, CALL_MAIN) != 0)
		die("cannot launch the workers");
	rte_eal_mp_wait_lcore();

	/* Every sample, single or hedged, goes into a histogram. */
	struct hgw_hist *hs = malloc(sizeof(*hs));
	struct hgw_hist *hh = malloc(sizeof(*hh));
	/* Diagnostic only: read time from each worker's own start, which
	 * leaves out late starts (preemption before the read) and so shows
	 * the memory part of the tail. */
	struct hgw_hist *rs = malloc(sizeof(*rs));
	struct hgw_hist *rh = malloc(sizeof(*rh));
	struct hgw_hist *hw = malloc(nworkers * sizeof(*hw));
	uint64_t *wins = calloc(nworkers, sizeof(*wins));
	const uint64_t late = (uint64_t)((double)LATE_NS * (double)hz / 1e9);
	uint64_t late_single = 0, late_all = 0, late_any = 0, ties = 0;
	uint64_t reads = 0, bad = 0;

	if (hs == NULL || hh == NULL || rs == NULL || rh == NULL || hw == NULL ||
	    wins == NULL)
		die("out of memory");
	hgw_hist_init(hs);
	hgw_hist_init(hh);
	hgw_hist_init(rs);
	hgw_hist_init(rh);
	for (w = 0; w < nworkers; w++)
		hgw_hist_init(&hw[w]);
	for (uint64_t k = 0; k < nslots; k++) {
		const uint64_t d = sched[k].deadline;

		if (!sched[k].hedged) {
			hgw_hist_record(hs, workers[0].finish[k] - d);
			hgw_hist_record(rs, workers[0].finish[k] -
					    workers[0].start[k]);
			late_single += workers[0].start[k] - d > late;
			continue;
		}
		uint64_t best = UINT64_MAX, best_read = UINT64_MAX;
		unsigned int winner = 0, nlate = 0, nbest = 0;

		for (w = 0; w < nworkers; w++) {
			const uint64_t lat = workers[w].finish[k] - d;

			hgw_hist_record(&hw[w], lat);
			nlate += workers[w].start[k] - d > late;
			best_read = RTE_MIN(best_read, workers[w].finish[k] -
					    workers[w].start[k]);
			if (lat < best) {
				best = lat;
				winner = w;
				nbest = 1;
			} else if (lat == best) {
				nbest++;
			}
		}
		hgw_hist_record(hh, best);
		hgw_hist_record(rh, best_read);
		if (nbest > 1)
			ties++;
		else
			wins[winner]++;
		late_all += nlate == nworkers;
		late_any += nlate > 0;
	}
	for (w = 0; w < nworkers; w++) {
		reads += workers[w].reads;
		bad += workers[w].bad;
	}

	printf("latency = first answer - deadline, ns; every sample counted:\n");
	print_hist("single", hs);
	print_hist("hedged", hh);
	printf("  ratio single/hedged:");
	for (unsigned int i = 0; i < RTE_DIM(pct); i++) {
		double a = (double)hgw_hist_percentile(hs, pct[i]);
		double b = (double)hgw_hist_percentile(hh, pct[i]);

		printf(" %s %.2f", pct_name[i], b > 0 ? a / b : 0.0);
	}
	printf("\nread time alone (finish - own start; late starts left out, "
	       "a diagnostic, not the measure):\n");
	print_hist("single", rs);
	print_hist("hedged", rh);
	printf("hedged blocks, each worker on its own:\n");
	for (w = 0; w < nworkers; w++) {
		char name[32];

		snprintf(name, sizeof(name), "worker %u", w);
		print_hist(name, &hw[w]);
	}
	printf("hedged wins (first answer):");
	for (w = 0; w < nworkers; w++)
		printf(" worker %u %" PRIu64 " (%.1f%%)", w, wins[w],
		       100.0 * (double)wins[w] / (double)opt.samples);
	printf(", ties %" PRIu64 " (%.1f%%)\n", ties,
	       100.0 * (double)ties / (double)opt.samples);
	const double pc = 100.0 / (double)opt.samples;

	printf("late starts (> deadline + %d ns), counted not dropped: single %"
	       PRIu64 " (%.2f%%); hedged: every worker %" PRIu64 " (%.2f%%), "
	       "some worker %" PRIu64 " (%.2f%%)\n", LATE_NS,
	       late_single, (double)late_single * pc, late_all,
	       (double)late_all * pc, late_any, (double)late_any * pc);
	printf("reads %" PRIu64 ", wrong values %" PRIu64 "\n", reads, bad);
	/* Context for the tail: vCPU time the host took during the run. */
	printf("host steal during the run (/proc/stat, %.0f ms resolution):",
	       1e3 / (double)sysconf(_SC_CLK_TCK));
	for (w = 0; w < nworkers; w++) {
		int cpu = (int)rte_lcore_to_cpu_id((int)workers[w].lcore);
		int64_t after = steal_ticks(cpu);

		if (workers[w].steal < 0 || after < 0)
			printf("%s cpu %d unknown", w ? "," : "", cpu);
		else
			printf("%s cpu %d %.0f ms", w ? "," : "", cpu,
			       (double)(after - workers[w].steal) * 1e3 /
			       (double)sysconf(_SC_CLK_TCK));
	}
	printf("\n");

	for (int m = 0; m < 2; m++) {
		if (csv[m] == NULL)
			continue;
		/* the format of every hedgewire histogram (scripts/ccdf.sh) */
		if (hgw_hist_write_csv(m ? hh : hs, csv[m], ns_per_cycle) != 0 ||
		    fclose(csv[m]) != 0)
			die("cannot write %s", csv_path[m]);
		printf("wrote %s\n", csv_path[m]);
	}
	rte_eal_cleanup();
	return bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
