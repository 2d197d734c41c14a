/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-tablegen: seeded, deterministic pricing table files
 * (docs/protocols.md "Pricing table entry" and docs/protocols.md
 * "Table file") for demos and
 * tests, or patch files for hgw_table_patch_load.
 *
 * Output is a pure function of the options: one seeded xoshiro256** stream
 * drawn entry by entry in key order, integer-only arithmetic (fractions are
 * parsed as decimals into 32-bit fixed point), so the same options give
 * byte-identical files on any host. Tables may be many GB: entries are
 * generated a chunk at a time into one buffer, the CRC-32C is computed as
 * they are written, and the header (which holds it) is written last at
 * offset 0. No EAL: only the file format helpers of lib/table are used.
 *
 * Entry content: a fraction --fill of entries has an action, B or S equally
 * likely; of those a fraction --absolute has an absolute price (whole
 * dollars 1..200000), the rest a touch offset drawn from {-100, 0, 0, 100}
 * (price units); time in force '0' (day) with '3' (IOC) one time in eight;
 * display 'Y'; quantity a multiple of 100 in [--qty-min, --qty-max]. Every
 * entry's tag is its key (low 32 bits), so a reader can check which entry
 * a key reached; entries without an action are otherwise zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hgw_cli.h"
#include "hgw_prng.h"
#include "hgw_table.h"

#define TG_NAME "hgw-tablegen"

/* Entries generated and written per chunk (4 MB: the CRC pass finds the
 * chunk in cache). */
#define TG_CHUNK_ENTRIES 65536u
/* Fractions are 32-bit fixed point: a draw of 32 random bits below the
 * threshold is a hit; 1.0 is 2^32. */
#define TG_ONE (1ull << 32)
/* Absolute prices: whole dollars 1..200000, 4 implied decimals. */
#define TG_ABS_DOLLARS_MAX 200000u
#define TG_PRICE_UNITS 10000u

struct tg_opts {
	const char *out;
	const char *patch;
	uint64_t patch_count;
	struct hgw_table_dims dims;
	uint64_t seed;
	uint64_t fill;           /* fixed point, TG_ONE = 1 */
	uint64_t absolute;       /* fixed point, of filled entries */
	uint32_t qty_min, qty_max;
	int quiet;
};

/* ------------------------------------------------------------------ */
/* xoshiro256** (Blackman & Vigna), seeded through splitmix64.        */

/* hgw_prng.h, as in hgw-feedgen. */

/* True with probability p / 2^32. */
static inline int
tg_chance(struct hgw_rng *r, uint64_t p)
{
	return (hgw_rng_next(r) >> 32) < p;
}

/* ------------------------------------------------------------------ */
/* Entries                                                            */

/* The contents of an entry with an action (all but tag). */
static void
tg_action(struct hgw_rng *r, const struct tg_opts *o,
	  struct hgw_table_entry *e)
{
	static const int32_t offsets[4] = { -100, 0, 0, 100 };
	uint64_t x = hgw_rng_next(r);
	uint32_t nq = (o->qty_max - o->qty_min) / 100 + 1;

	e->action = (x & 1) ? HGW_TABLE_ACTION_BUY : HGW_TABLE_ACTION_SELL;
	e->tif = ((x >> 1) & 7) == 0 ? '3' : '0';
	e->display = 'Y';
	if (o->absolute != 0 && tg_chance(r, o->absolute)) {
		e->price_mode = HGW_TABLE_PRICE_ABSOLUTE;
		e->price = (int32_t)((1 + hgw_rng_below(r, TG_ABS_DOLLARS_MAX)) *
				     TG_PRICE_UNITS);
	} else {
		e->price_mode = HGW_TABLE_PRICE_TOUCH;
		e->price = offsets[(x >> 4) & 3];
	}
	e->quantity = o->qty_min + 100 * hgw_rng_below(r, nq);
}

/* ------------------------------------------------------------------ */
/* Output                                                             */

static void __attribute__((noreturn))
tg_io_fail(const char *path, const char *what, int fd)
{
	struct stat st;
	int e = errno;

	fprintf(stderr, TG_NAME ": %s: %s: %s\n", path, what, strerror(e));
	/* Leave no multi-GB half file behind (only regular files). */
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
	exit(1);
}

static void
tg_write_all(int fd, const char *path, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(fd, (const char *)buf + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			tg_io_fail(path, "write error", fd);
		}
		done += (size_t)w;
	}
}

static void
tg_table(const struct tg_opts *o)
{
	const uint64_t n = hgw_table_nentries(&o->dims);
	uint8_t h[HGW_TABLE_HEADER_SIZE];
	struct hgw_table_entry *buf;
	uint64_t k = 0, filled = 0, absolute = 0;
	struct hgw_rng r;
	uint32_t crc = 0;
	int fd;

	buf = aligned_alloc(HGW_TABLE_ENTRY_SIZE,
			    (size_t)TG_CHUNK_ENTRIES * HGW_TABLE_ENTRY_SIZE);
	if (buf == NULL) {
		fprintf(stderr, TG_NAME ": out of memory\n");
		exit(1);
	}
	fd = open(o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		tg_io_fail(o->out, "cannot create", -1);
	/* A zero header until the CRC is known: a file cut short by a crash
	 * is refused for its magic. */
	memset(h, 0, sizeof(h));
	tg_write_all(fd, o->out, h, sizeof(h));

	hgw_rng_seed(&r, o->seed);
	while (k < n) {
		uint64_t m = n - k < TG_CHUNK_ENTRIES ? n - k :
			     TG_CHUNK_ENTRIES;
		size_t len = (size_t)m * HGW_TABLE_ENTRY_SIZE;

		memset(buf, 0, len);
		for (uint64_t j = 0; j < m; j++, k++) {
			struct hgw_table_entry *e = &buf[j];

			e->tag = (uint32_t)k;
			if (o->fill != 0 && tg_chance(&r, o->fill)) {
				tg_action(&r, o, e);
				filled++;
				absolute += e->price_mode ==
					    HGW_TABLE_PRICE_ABSOLUTE;
			}
		}
		crc = hgw_table_crc32c(buf, len, crc);
		tg_write_all(fd, o->out, buf, len);
	}
	free(buf);

	hgw_table_header_encode(h, &o->dims, crc);
	errno = EIO;                    /* for a short pwrite */
	if (pwrite(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		tg_io_fail(o->out, "write error", fd);
	if (close(fd) != 0)
		tg_io_fail(o->out, "write error", -1);

	if (!o->quiet)
		printf(TG_NAME ": %s: %" PRIu32 " x %" PRIu32 " x %" PRIu32
		       " = %" PRIu64 " entries, %.1f MB, %" PRIu64
		       " filled (%" PRIu64 " absolute), tick %" PRIu32
		       ", crc 0x%08" PRIx32 "\n", o->out,
		       o->dims.instruments, o->dims.spreads,
		       o->dims.imbalances, n,
		       (double)(HGW_TABLE_HEADER_SIZE +
				n * HGW_TABLE_ENTRY_SIZE) / (1 << 20),
		       filled, absolute,
		       o->dims.tick, crc);
}

/* A patch file of patch_count random changes, in hgw_table_patch_load's
 * format: one in eight clears an entry (action 0), the rest set one as a
 * filled table entry would be. */
static void
tg_patch(const struct tg_opts *o)
{
	const struct hgw_table_dims *d = &o->dims;
	struct hgw_rng r;
	uint64_t cleared = 0;
	FILE *f;

	f = fopen(o->patch, "we");
	if (f == NULL)
		tg_io_fail(o->patch, "cannot create", -1);
	fprintf(f, "# " TG_NAME " patch: %" PRIu64 " changes for a %" PRIu32
		" x %" PRIu32 " x %" PRIu32 " table (seed %" PRIu64 ")\n"
		"# L S I action price_mode tif display price quantity tag\n",
		o->patch_count, d->instruments, d->spreads, d->imbalances,
		o->seed);
	hgw_rng_seed(&r, o->seed);
	for (uint64_t c = 0; c < o->patch_count; c++) {
		struct hgw_table_entry e;
		uint32_t l = hgw_rng_below(&r, d->instruments);
		uint32_t s = hgw_rng_below(&r, d->spreads);
		uint32_t i = hgw_rng_below(&r, d->imbalances);
		uint64_t key = ((uint64_t)l * d->spreads + s) *
			       d->imbalances + i;

		memset(&e, 0, sizeof(e));
		if (hgw_rng_below(&r, 8) == 0) {
			e.tif = '0';
			e.display = 'Y';
			cleared++;
		} else {
			tg_action(&r, o, &e);
		}
		fprintf(f, "%" PRIu32 " %" PRIu32 " %" PRIu32 " %c %u %c %c %"
			PRId32 " %" PRIu32 " %" PRIu32 "\n", l, s, i,
			e.action ? e.action : '0', e.price_mode, e.tif,
			e.display, e.price, e.quantity, (uint32_t)key);
	}
	if (ferror(f) || fclose(f) != 0) {
		if (errno == 0)
			errno = EIO;
		tg_io_fail(o->patch, "write error", -1);
	}
	if (!o->quiet)
		printf(TG_NAME ": %s: %" PRIu64 " changes (%" PRIu64
		       " clearing) for a %" PRIu32 " x %" PRIu32 " x %" PRIu32
		       " table\n", o->patch, o->patch_count, cleared,
		       d->instruments, d->spreads, d->imbalances);
}

/* ------------------------------------------------------------------ */
/* Options                                                            */

static void
tg_usage(FILE *f)
{
	fprintf(f,
"usage: " TG_NAME " -o FILE [options]\n"
"       " TG_NAME " --patch FILE --patch-count N [options]\n"
"Writes a deterministic hedgewire pricing table file (docs/protocols.md\n"
"\"Table file\"), or a patch file of random entry changes for such a table.\n"
"  -o, --out FILE          table file to write\n"
"      --instruments N     stock locates 0..N-1 (default 1024, max 65536)\n"
"      --spreads S         spread buckets (default 16)\n"
"      --imbalances I      imbalance buckets (default 16)\n"
"      --tick T            price units per tick (default 100 = $0.01)\n"
"      --seed N            PRNG seed (default 1)\n"
"      --fill F            fraction 0..1 of entries with an action\n"
"                          (default 0.05)\n"
"      --qty-min Q         smallest quantity (default 100)\n"
"      --qty-max Q         largest quantity (default 1000); both are\n"
"                          rounded to multiples of 100, at least 100\n"
"      --absolute F        fraction 0..1 of action entries with an\n"
"                          absolute price, $1..$200000 (default 0)\n"
"      --patch FILE        write a patch file instead of a table\n"
"      --patch-count N     changes in it (default 16)\n"
"  -q, --quiet             no summary line\n"
"  -h, --help              this text\n"
"Tables hold instruments*spreads*imbalances entries of 64 bytes, at most\n"
"2^40 entries.\n");
}

/* Strict values: hgw_cli.h, shared by the tools. */
#define tg_bad(opt, val) hgw_cli_bad(TG_NAME, opt, val)
#define tg_num(opt, s, min, max) hgw_cli_num(TG_NAME, opt, s, min, max)

/* A decimal fraction in [0, 1] ("0", "1", "0.05", ".5", "1.000"; at most
 * 9 decimals) as 32-bit fixed point, rounded to nearest: integer
 * arithmetic, the same on every host. */
static uint64_t
tg_frac(const char *opt, const char *s)
{
	uint64_t num = 0, den = 1;
	const char *p = s;
	int digits = 0, decimals = 0;

	while (*p >= '0' && *p <= '9') {
		num = num * 10 + (uint64_t)(*p++ - '0');
		if (++digits > 9)
			tg_bad(opt, s);
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			num = num * 10 + (uint64_t)(*p++ - '0');
			den *= 10;
			digits++;
			if (++decimals > 9)
				tg_bad(opt, s);
		}
	}
	if (*p != '\0' || digits == 0 || num > den)
		tg_bad(opt, s);
	return ((num << 32) + den / 2) / den;
}

/* Quantity rounded to the nearest multiple of 100, at least 100. */
static uint32_t
tg_qty(const char *opt, const char *s)
{
	uint64_t q = tg_num(opt, s, 0, 4000000000ull);

	q = (q + 50) / 100 * 100;
	return q < 100 ? 100 : (uint32_t)q;
}

enum {
	OPT_INSTRUMENTS = 256, OPT_SPREADS, OPT_IMBALANCES, OPT_TICK,
	OPT_SEED, OPT_FILL, OPT_QTY_MIN, OPT_QTY_MAX, OPT_ABSOLUTE,
	OPT_PATCH, OPT_PATCH_COUNT,
};

static const struct option tg_longopts[] = {
	{"out", required_argument, NULL, 'o'},
	{"instruments", required_argument, NULL, OPT_INSTRUMENTS},
	{"spreads", required_argument, NULL, OPT_SPREADS},
	{"imbalances", required_argument, NULL, OPT_IMBALANCES},
	{"tick", required_argument, NULL, OPT_TICK},
	{"seed", required_argument, NULL, OPT_SEED},
	{"fill", required_argument, NULL, OPT_FILL},
	{"qty-min", required_argument, NULL, OPT_QTY_MIN},
	{"qty-max", required_argument, NULL, OPT_QTY_MAX},
	{"absolute", required_argument, NULL, OPT_ABSOLUTE},
	{"patch", required_argument, NULL, OPT_PATCH},
	{"patch-count", required_argument, NULL, OPT_PATCH_COUNT},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void
tg_parse(struct tg_opts *o, int argc, char **argv)
{
	const char *qty_max_arg = NULL;
	int c;

	memset(o, 0, sizeof(*o));
	o->dims = (struct hgw_table_dims){ 1024, 16, 16, 100 };
	o->seed = 1;
	o->fill = (5 * TG_ONE + 50) / 100;      /* 0.05, as tg_frac */
	o->qty_min = 100;
	o->qty_max = 1000;
	o->patch_count = 16;

	while ((c = getopt_long(argc, argv, "o:qh", tg_longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (optarg[0] == '\0')
				tg_bad("out", optarg);
			o->out = optarg;
			break;
		case OPT_INSTRUMENTS:
			o->dims.instruments = (uint32_t)tg_num("instruments",
							       optarg, 1,
							       65536);
			break;
		case OPT_SPREADS:
			o->dims.spreads = (uint32_t)tg_num("spreads", optarg,
							   1, UINT32_MAX);
			break;
		case OPT_IMBALANCES:
			o->dims.imbalances = (uint32_t)tg_num("imbalances",
							      optarg, 1,
							      UINT32_MAX);
			break;
		case OPT_TICK:
			o->dims.tick = (uint32_t)tg_num("tick", optarg, 1,
							UINT32_MAX);
			break;
		case OPT_SEED:
			o->seed = tg_num("seed", optarg, 0, UINT64_MAX);
			break;
		case OPT_FILL:
			o->fill = tg_frac("fill", optarg);
			break;
		case OPT_QTY_MIN:
			o->qty_min = tg_qty("qty-min", optarg);
			break;
		case OPT_QTY_MAX:
			o->qty_max = tg_qty("qty-max", optarg);
			qty_max_arg = optarg;
			break;
		case OPT_ABSOLUTE:
			o->absolute = tg_frac("absolute", optarg);
			break;
		case OPT_PATCH:
			if (optarg[0] == '\0')
				tg_bad("patch", optarg);
			o->patch = optarg;
			break;
		case OPT_PATCH_COUNT:
			o->patch_count = tg_num("patch-count", optarg, 0,
						1000000000000ull);
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			tg_usage(stdout);
			exit(0);
		default:
			fprintf(stderr, TG_NAME ": try --help\n");
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, TG_NAME ": unexpected argument '%s'\n",
			argv[optind]);
		exit(2);
	}
	if (o->out == NULL && o->patch == NULL) {
		fprintf(stderr, TG_NAME ": missing --out FILE (or --patch "
			"FILE)\n");
		exit(2);
	}
	if (o->out != NULL && o->patch != NULL) {
		fprintf(stderr, TG_NAME ": --out and --patch are exclusive "
			"(a patch is written instead of a table)\n");
		exit(2);
	}
	if (o->qty_max < o->qty_min) {
		char buf[16];

		if (qty_max_arg == NULL) {
			snprintf(buf, sizeof(buf), "%" PRIu32, o->qty_max);
			qty_max_arg = buf;
		}
		tg_bad("qty-max", qty_max_arg);
	}
	if (hgw_table_nentries(&o->dims) == 0) {
		fprintf(stderr, TG_NAME ": %" PRIu32 " x %" PRIu32 " x %" PRIu32
			" entries: over the 2^40 limit\n", o->dims.instruments,
			o->dims.spreads, o->dims.imbalances);
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	struct tg_opts o;

	hgw_cli_version("hgw-tablegen", argc, argv);

	tg_parse(&o, argc, argv);
	if (o.patch != NULL)
		tg_patch(&o);
	else
		tg_table(&o);
	return 0;
}
