/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: stalls of spinning cores (see hgw_stalls.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hgw_stalls.h"

/* Traces compared at once: the per-trace cursors of the overlap scan
 * live on the stack. */
#define MAX_TRACES 256
/* 0.5 ms: lag bins below are bursts, not periods */
#define MIN_PERIOD_BIN 5
/* bins each side that set the local background */
#define LOCAL_BINS 10
#define RTE_DIM_(a) (sizeof(a) / sizeof((a)[0]))

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	/* vDSO: no system call, ~20-40 ns here, far below the 1 us
	 * threshold; one clock for every CPU, so starts compare across
	 * threads */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
hgw_stalls_alloc(struct hgw_stall_trace *t, const unsigned int *cpus,
		 unsigned int n, uint32_t cap)
{
	for (unsigned int i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].cpu = cpus[i];
		t[i].cap = cap;
		t[i].stalls = malloc((size_t)cap * sizeof(t[i].stalls[0]));
		if (t[i].stalls == NULL) {
			hgw_stalls_free(t, i);
			return -ENOMEM;
		}
		/* touch every page now: a first-touch fault during the run
		 * would be recorded as a stall of our own making */
		memset(t[i].stalls, 0, (size_t)cap * sizeof(t[i].stalls[0]));
	}
	return 0;
}

void
hgw_stalls_free(struct hgw_stall_trace *t, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		free(t[i].stalls);
		t[i].stalls = NULL;
	}
}

struct run {
	atomic_uint ready;
	atomic_int go;
	uint64_t t0, end, threshold;
};

struct spinner {
	struct run *run;
	struct hgw_stall_trace *t;
};

static void *
spin(void *arg)
{
	struct spinner *s = arg;
	struct run *run = s->run;
	struct hgw_stall_trace *t = s->t;
	uint64_t prev, now, reads = 0;

	atomic_fetch_add_explicit(&run->ready, 1, memory_order_relaxed);
	/* acquire: pairs with the release that published t0 and end */
	while (!atomic_load_explicit(&run->go, memory_order_acquire))
		;
	prev = now_ns();
	for (;;) {
		now = now_ns();
		reads++;
		if (now - prev > run->threshold) {
			if (t->n < t->cap) {
				t->stalls[t->n].start_ns = prev - run->t0;
				t->stalls[t->n].dur_ns = now - prev;
				t->n++;
			} else {
				t->lost++;
			}
		}
		if (now >= run->end)
			break;
		prev = now;
	}
	t->reads = reads;
	return NULL;
}

int
hgw_stalls_record(struct hgw_stall_trace *t, unsigned int n,
		  uint64_t duration_ns, uint64_t threshold_ns)
{
	struct spinner sp[MAX_TRACES];
	pthread_t th[MAX_TRACES];
	struct run run = { .threshold = threshold_ns };
	unsigned int started = 0;
	int rc = 0;

	if (n > MAX_TRACES)
		return -E2BIG;
	atomic_init(&run.ready, 0);
	atomic_init(&run.go, 0);
	for (unsigned int i = 0; i < n; i++) {
		pthread_attr_t attr;
		cpu_set_t set;
		int e;

		t[i].n = 0;
		t[i].lost = 0;
		t[i].reads = 0;
		t[i].err = 0;
		sp[i].run = &run;
		sp[i].t = &t[i];
		CPU_ZERO(&set);
		if (t[i].cpu >= CPU_SETSIZE) {
			t[i].err = -EINVAL;
			rc = -EINVAL;
			break;
		}
		CPU_SET(t[i].cpu, &set);
		pthread_attr_init(&attr);
		e = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (e == 0)
			e = pthread_create(&th[i], &attr, spin, &sp[i]);
		pthread_attr_destroy(&attr);
		if (e != 0) {
			t[i].err = -e;
			rc = -e;
			break;
		}
		started++;
	}
	/* wait for every spinner to be on its CPU, sleeping: the caller
	 * may share a CPU with one of them */
	while (atomic_load_explicit(&run.ready, memory_order_relaxed) < started) {
		struct timespec ts = { 0, 100000 };

		nanosleep(&ts, NULL);
	}
	run.t0 = now_ns();
	run.end = run.t0 + (rc == 0 ? duration_ns : 0);
	/* release: t0, end and threshold are visible to a spinner that
	 * sees go */
	atomic_store_explicit(&run.go, 1, memory_order_release);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	return rc;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least p% of them at or
 * below it. v sorted, n > 0. */
static uint64_t
rank(const uint64_t *v, uint64_t n, unsigned int p)
{
	uint64_t k = (n * p + 99) / 100;

	return v[k == 0 ? 0 : k - 1];
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Is lag bin b (centred on b bins) within one bin of a multiple k >= 2
 * of period p (ns)? */
static int
harmonic(unsigned int b, uint64_t p)
{
	uint64_t lag = (uint64_t)b * HGW_STALLS_BIN_NS;
	uint64_t k = (lag + p / 2) / p;
	uint64_t m = k * p;

	return k >= 2 && (m > lag ? m - lag : lag - m) <= HGW_STALLS_BIN_NS;
}

/* The level of unrelated stalls around lag bin b: the median of the
 * bins within LOCAL_BINS each side, b and its neighbours left out (it
 * falls with the lag when stalls come in bursts, so one level for all
 * lags would see peaks on the slope). */
static uint32_t
local_background(const uint32_t *lags, unsigned int b)
{
	uint32_t v[2 * LOCAL_BINS];
	unsigned int n = 0;

	for (unsigned int i = b > LOCAL_BINS ? b - LOCAL_BINS : 1;
	     i <= b + LOCAL_BINS && i < HGW_STALLS_LAG_BINS - 1; i++)
		if (i + 1 < b || i > b + 1)
			v[n++] = lags[i];
	qsort(v, n, sizeof(v[0]), cmp_u32);
	return n == 0 ? 0 : v[n / 2];
}

/* Dominant periods from the lag histogram. Unrelated stalls spread
 * over the lags: their level is the local median (background is the
 * median of all bins, reported). A periodic
 * source adds a peak at its period and at each multiple. A local
 * maximum is a period when it stands out of the background by 4 sigma
 * (Poisson) and holds 5% of the stalls; going up in lag, a peak at a
 * multiple of a period already found is its echo, unless it is half as
 * high again as that period's own peak (a second source at a multiple:
 * a 250 Hz tick beside a 1000 Hz one). The highest three are kept.
 * Lags below MIN_PERIOD_BIN are left out: stalls come in bursts (one
 * interrupt, then its softirq, then a preemption), which pile up at
 * short lags, and no kernel tick is faster than 1000 Hz. */
static void
find_periods(struct hgw_stall_stats *s)
{
	uint32_t sorted[HGW_STALLS_LAG_BINS - 1];
	struct hgw_stall_period found[HGW_STALLS_LAG_BINS];
	unsigned int nfound = 0;

	memcpy(sorted, &s->lags[1], sizeof(sorted));
	qsort(sorted, RTE_DIM_(sorted), sizeof(sorted[0]), cmp_u32);
	s->background = sorted[RTE_DIM_(sorted) / 2];
	s->nperiods = 0;
	for (unsigned int b = MIN_PERIOD_BIN; b < HGW_STALLS_LAG_BINS - 2; b++) {
		uint32_t c = s->lags[b], bg = local_background(s->lags, b);
		double sigma;
		uint32_t ex;
		int echo = 0;

		/* a strict maximum over two bins each side: a plateau or a
		 * shoulder of a peak is not a second period */
		if (c <= bg || c <= s->lags[b - 1] || c <= s->lags[b - 2] ||
		    c < s->lags[b + 1] || c < s->lags[b + 2])
			continue;
		ex = c - bg;
		sigma = 1.0;
		while (sigma * sigma < (double)bg)
			sigma += 1.0;
		if ((double)ex < 4.0 * sigma || ex < 3 || ex * 20ull < s->n)
			continue;
		for (unsigned int f = 0; f < nfound; f++)
			if (harmonic(b, found[f].period_ns) &&
			    ex * 2ull < found[f].excess * 3ull)
				echo = 1;
		if (echo)
			continue;
		found[nfound].period_ns = s->lag_sum[b] / c;
		found[nfound].excess = ex;
		found[nfound].share = (double)ex / (double)s->n;
		nfound++;
	}
	/* the highest first */
	for (unsigned int i = 0; i < nfound && s->nperiods < HGW_STALLS_PERIODS;
	     i++) {
		unsigned int best = 0;

		for (unsigned int f = 1; f < nfound; f++)
			if (found[f].excess > found[best].excess)
				best = f;
		if (found[best].excess == 0)
			break;
		s->periods[s->nperiods++] = found[best];
		found[best].excess = 0;
	}
}

void
hgw_stalls_analyze(const struct hgw_stall_trace *t, unsigned int n,
		   uint64_t duration_ns, struct hgw_stall_stats *st,
		   uint64_t *scratch)
{
	uint32_t k[MAX_TRACES];

	if (n > MAX_TRACES)
		n = MAX_TRACES;
	for (unsigned int i = 0; i < n; i++) {
		const struct hgw_stall_trace *a = &t[i];
		struct hgw_stall_stats *s = &st[i];

		memset(s, 0, sizeof(*s));
		s->cpu = a->cpu;
		s->n = a->n;
		s->lost = a->lost;
		s->per_s = duration_ns == 0 ? 0 :
			   (double)(a->n + a->lost) * 1e9 / (double)duration_ns;
		for (uint32_t x = 0; x < a->n; x++) {
			scratch[x] = a->stalls[x].dur_ns;
			s->stalled_ns += a->stalls[x].dur_ns;
		}
		if (a->n > 0) {
			qsort(scratch, a->n, sizeof(scratch[0]), cmp_u64);
			s->p50_ns = rank(scratch, a->n, 50);
			s->p99_ns = rank(scratch, a->n, 99);
			s->max_ns = scratch[a->n - 1];
		}

		/* overlap: every trace is sorted and its stalls disjoint, so
		 * their ends are sorted too; one cursor per other trace moves
		 * past the stalls that end before this one starts, and the
		 * stall under it overlaps iff it starts before this one ends */
		memset(k, 0, sizeof(k[0]) * n);
		for (uint32_t x = 0; x < a->n; x++) {
			uint64_t s0 = a->stalls[x].start_ns;
			uint64_t s1 = s0 + a->stalls[x].dur_ns;

			for (unsigned int j = 0; j < n; j++) {
				const struct hgw_stall_trace *b = &t[j];

				if (j == i)
					continue;
				while (k[j] < b->n && b->stalls[k[j]].start_ns +
				       b->stalls[k[j]].dur_ns <= s0)
					k[j]++;
				if (k[j] < b->n && b->stalls[k[j]].start_ns < s1) {
					s->overlapped++;
					break;
				}
			}
		}
		s->overlap_share = a->n == 0 ? 0 :
				   (double)s->overlapped / (double)a->n;

		for (uint32_t x = 1; x < a->n; x++) {
			uint64_t d = a->stalls[x].start_ns -
				     a->stalls[x - 1].start_ns;
			uint64_t b = d / HGW_STALLS_BIN_NS;

			if (b >= HGW_STALLS_BINS)
				b = HGW_STALLS_BINS - 1;
			s->intervals[b]++;
		}
		for (uint32_t x = 0; x < a->n; x++)
			for (uint32_t y = x + 1; y < a->n; y++) {
				uint64_t d = a->stalls[y].start_ns -
					     a->stalls[x].start_ns;
				uint64_t b = (d + HGW_STALLS_BIN_NS / 2) /
					     HGW_STALLS_BIN_NS;

				if (b >= HGW_STALLS_LAG_BINS)
					break;
				s->lags[b]++;
				s->lag_sum[b] += d;
			}
		find_periods(s);
	}
}

const char *
hgw_stalls_period_name(uint64_t period_ns)
{
	static const struct {
		uint32_t hz;
		const char *name;
	} ticks[] = {
		{ 1000, "1000 Hz tick" },
		{ 300, "300 Hz tick" },
		{ 250, "250 Hz tick" },
		{ 100, "100 Hz tick" },
	};

	for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
		uint64_t p = 1000000000u / ticks[i].hz;

		if (period_ns * 100 >= p * 97 && period_ns * 100 <= p * 103)
			return ticks[i].name;
	}
	return NULL;
}

static double
us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

void
hgw_stalls_print(FILE *out, const char *prefix,
		 const struct hgw_stall_stats *st, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct hgw_stall_stats *s = &st[i];
		uint64_t total = 0;

		fprintf(out, "%scpu %u: %" PRIu64 " stalls, %.1f/s, p50 %.1f us, "
			"p99 %.1f us, max %.1f us", prefix, s->cpu,
			s->n + s->lost, s->per_s, us(s->p50_ns), us(s->p99_ns),
			us(s->max_ns));
		if (n >= 2)
			fprintf(out, ", %.1f%% overlap a stall on another cpu",
				100.0 * s->overlap_share);
		if (s->lost != 0)
			fprintf(out, " (%" PRIu64 " not recorded: arrays full)",
				s->lost);
		fputc('\n', out);
		fprintf(out, "%scpu %u: periods", prefix, s->cpu);
		if (s->nperiods == 0)
			fprintf(out, " none");
		for (unsigned int p = 0; p < s->nperiods; p++) {
			const char *name = hgw_stalls_period_name(
				s->periods[p].period_ns);

			fprintf(out, "%s %.2f ms%s%s%s %.0f%%", p ? "," : "",
				(double)s->periods[p].period_ns / 1e6,
				name ? " (" : "", name ? name : "",
				name ? ")" : "", 100.0 * s->periods[p].share);
		}
		fputc('\n', out);
		for (unsigned int b = 0; b < HGW_STALLS_BINS; b++)
			total += s->intervals[b];
		fprintf(out, "%scpu %u: intervals", prefix, s->cpu);
		if (total == 0)
			fprintf(out, " none");
		for (unsigned int b = 0; b < HGW_STALLS_BINS; b++) {
			if (s->intervals[b] == 0 || s->intervals[b] * 100 < total)
				continue;
			if (b == HGW_STALLS_BINS - 1)
				fprintf(out, " >=%.1f ms: %u",
					b * HGW_STALLS_BIN_NS / 1e6,
					s->intervals[b]);
			else
				fprintf(out, " %.1f-%.1f ms: %u",
					b * HGW_STALLS_BIN_NS / 1e6,
					(b + 1) * HGW_STALLS_BIN_NS / 1e6,
					s->intervals[b]);
		}
		fputc('\n', out);
	}
}

void
hgw_stalls_print_json(FILE *out, const struct hgw_stall_stats *st,
		      unsigned int n, uint64_t duration_ns,
		      uint64_t threshold_ns)
{
	fprintf(out, "{\"seconds\": %.3f, \"threshold_ns\": %" PRIu64
		", \"cpus\": [", (double)duration_ns / 1e9, threshold_ns);
	for (unsigned int i = 0; i < n; i++) {
		const struct hgw_stall_stats *s = &st[i];
		int first = 1;

		fprintf(out, "%s\n  {\"cpu\": %u, \"stalls\": %" PRIu64
			", \"not_recorded\": %" PRIu64 ", \"per_second\": %.3f"
			", \"p50_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64
			", \"max_ns\": %" PRIu64 ", \"stalled_ns\": %" PRIu64
			", \"overlapped\": %" PRIu64 ", \"overlap_share\": %.4f"
			", \"periods\": [", i ? "," : "", s->cpu, s->n + s->lost,
			s->lost, s->per_s, s->p50_ns, s->p99_ns, s->max_ns,
			s->stalled_ns, s->overlapped, s->overlap_share);
		for (unsigned int p = 0; p < s->nperiods; p++) {
			const char *name = hgw_stalls_period_name(
				s->periods[p].period_ns);

			fprintf(out, "%s{\"period_ns\": %" PRIu64 ", \"hz\": %.1f"
				", \"excess\": %u, \"share\": %.4f, \"name\": ",
				p ? ", " : "", s->periods[p].period_ns,
				1e9 / (double)s->periods[p].period_ns,
				s->periods[p].excess, s->periods[p].share);
			if (name)
				fprintf(out, "\"%s\"}", name);
			else
				fprintf(out, "null}");
		}
		fprintf(out, "], \"intervals\": [");
		for (unsigned int b = 0; b < HGW_STALLS_BINS; b++) {
			if (s->intervals[b] == 0)
				continue;
			fprintf(out, "%s{\"from_ns\": %" PRIu64 ", \"to_ns\": ",
				first ? "" : ", ", (uint64_t)b * HGW_STALLS_BIN_NS);
			if (b == HGW_STALLS_BINS - 1)
				fprintf(out, "null");
			else
				fprintf(out, "%" PRIu64,
					(uint64_t)(b + 1) * HGW_STALLS_BIN_NS);
			fprintf(out, ", \"count\": %u}", s->intervals[b]);
			first = 0;
		}
		fprintf(out, "]}");
	}
	fprintf(out, "\n]}");
}

unsigned int
hgw_stalls_advise(FILE *out, const char *prefix,
		  const struct hgw_stall_stats *st, unsigned int n,
		  const char *cpulist)
{
	const char *tick = NULL;
	double worst = 0, rate = 0;
	unsigned int lines = 0, wcpu = 0;
	uint64_t all = 0;

	for (unsigned int i = 0; i < n; i++) {
		all += st[i].n + st[i].lost;
		if (st[i].per_s > rate)
			rate = st[i].per_s;
		if (st[i].overlap_share > worst) {
			worst = st[i].overlap_share;
			wcpu = st[i].cpu;
		}
		for (unsigned int p = 0; p < st[i].nperiods && tick == NULL; p++)
			tick = hgw_stalls_period_name(st[i].periods[p].period_ns);
	}
	if (all == 0) {
		fprintf(out, "%sno stalls above the threshold on cpus %s\n",
			prefix, cpulist);
		return 1;
	}
	if (n >= 2 && worst >= 0.10) {
		fprintf(out, "%s%.0f%% of cpu %u's stalls coincide with a stall "
			"on another of cpus %s: a replica there is stalled too, "
			"so hedging across these cpus cannot hide them\n", prefix,
			100.0 * worst, wcpu, cpulist);
		lines++;
	}
	if (tick != NULL) {
		fprintf(out, "%sstalls recur with the kernel's %s: boot with "
			"nohz_full=%s rcu_nocbs=%s isolcpus=%s (a cpu that runs "
			"one thread then takes no tick and no RCU callbacks)\n",
			prefix, tick, cpulist, cpulist, cpulist);
		fprintf(out, "%sskew_tick=1 on the kernel command line offsets "
			"each cpu's tick, so the ticks that remain stop "
			"coinciding across cpus\n", prefix);
		lines += 2;
	} else if (rate >= 10) {
		fprintf(out, "%sstalls that do not recur at a kernel tick rate: "
			"interrupts or the hypervisor; move IRQs off cpus %s "
			"(/proc/irq/*/smp_affinity_list, irqbalance) or give "
			"the guest dedicated host cpus\n", prefix, cpulist);
		lines++;
	}
	if (lines == 0) {
		fprintf(out, "%sfew stalls, rarely together: hedging across cpus "
			"%s can hide them\n", prefix, cpulist);
		lines++;
	}
	return lines;
}
