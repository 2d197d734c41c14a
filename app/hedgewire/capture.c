/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the captures a net_pcap port replays, checked like input.
 *
 * net_pcap reads its rx_pcap files with libpcap and hands every record to
 * rx_burst as an Ethernet frame, whatever the file's link type, and takes
 * a read error for the end of a burst (the replay goes on where libpcap
 * can, or ends). So the files are checked here: the link types at
 * start-up, and at exit whether each one reads to its end.
 *
 * Both formats libpcap reads are replayed: pcap (a file header, then a
 * record header and the frame per record) and pcapng (blocks: a Section
 * Header, Interface Descriptions, Enhanced/Simple Packet Blocks, and
 * blocks without packets, such as the Interface Statistics dumpcap
 * writes at the end, which libpcap passes over).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>

#include "capture.h"
#include "hgw_cli.h"

/* pcapng block types (draft-ietf-opsawg-pcapng, section 4) and the
 * Section Header's byte-order magic as read in the reader's order */
#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_BOM 0x1A2B3C4Du
#define PCAPNG_BOM_SWAPPED 0x4D3C2B1Au
/* libpcap's largest snapshot length for Ethernet (MAXIMUM_SNAPLEN): an
 * interface's 0 or larger snapshot length is read as this one */
#define LIBPCAP_MAX_SNAPLEN 262144u

static int
add_file(const char *key __rte_unused, const char *value, void *arg)
{
	struct hgw_captures *cs = arg;

	for (unsigned int i = 0; i < cs->n; i++)
		if (strcmp(cs->f[i].path, value) == 0)
			return 0;	/* the same file on several queues */
	if (cs->n < HGW_CAPTURES_MAX)
		snprintf(cs->f[cs->n++].path, PATH_MAX, "%s", value);
	return 0;
}

static uint32_t
rd32(const unsigned char *b, int swap)
{
	uint32_t v;

	memcpy(&v, b, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static uint16_t
rd16(const unsigned char *b, int swap)
{
	uint16_t v;

	memcpy(&v, b, sizeof(v));
	return swap ? __builtin_bswap16(v) : v;
}

static unsigned int
adjusted_snaplen(uint32_t snaplen)
{
	return snaplen == 0 || snaplen > LIBPCAP_MAX_SNAPLEN ?
		LIBPCAP_MAX_SNAPLEN : snaplen;
}

/* The record header size of a pcap file by its magic number (libpcap
 * opened it, so it is pcap or pcapng); 0 for pcapng. */
static unsigned int
record_header(const char *path)
{
	unsigned char m[4];
	FILE *f = fopen(path, "rb");
	size_t n;
	uint32_t magic;

	if (f == NULL)
		hgw_cli_die("hedgewire", "capture %s: %s", path, strerror(errno));
	n = fread(m, 1, sizeof(m), f);
	fclose(f);
	if (n != sizeof(m))
		hgw_cli_die("hedgewire", "capture %s: shorter than a file header",
			    path);
	magic = rd32(m, 0);
	switch (magic) {
	case 0xA1B2C3D4u: case 0xD4C3B2A1u:	/* microseconds */
	case 0xA1B23C4Du: case 0x4D3CB2A1u:	/* nanoseconds */
		return 16;
	case 0xA1B2CD34u: case 0x34CDB2A1u:	/* "modified" pcap */
		return 24;
	default:
		return 0;
	}
}

/* A pcapng capture may describe several interfaces, in several sections.
 * libpcap gives the first interface's link type and snapshot length for
 * the whole file; an interface whose link type or snapshot length
 * differs, and a section in the other byte order, are read errors to it,
 * and so are the packets on that interface or in that section: net_pcap
 * would replay the capture with holes, or hand on frames that are not
 * Ethernet. So every Interface Description Block is read now, and such a
 * capture is refused. The walk reads block headers only and stops
 * quietly at a block it cannot read: a damaged file is a read error,
 * said at exit with the frame it broke after. */
static void
check_interfaces(const char *path, int snapshot)
{
	FILE *f = fopen(path, "rb");
	unsigned char b[16];
	unsigned int section = 0, iface = 0;
	int swap = 0;
	long off = 0;

	if (f == NULL)
		hgw_cli_die("hedgewire", "capture %s: %s", path, strerror(errno));
	/* a block: type, total length, body, total length again (>= 12) */
	while (fread(b, 1, 12, f) == 12) {
		uint32_t type = rd32(b, swap), len;

		if (type == PCAPNG_SHB) {
			uint32_t bom = rd32(b + 8, 0);
			int s = bom == PCAPNG_BOM_SWAPPED;

			if (bom != PCAPNG_BOM && !s)
				break;
			if (section > 0 && s != swap) {
				fclose(f);
				hgw_cli_die("hedgewire", "capture %s: section %u "
					    "is in the other byte order: libpcap "
					    "cannot read it", path, section + 1);
			}
			swap = s;
			section++;
			iface = 0;
		}
		len = rd32(b + 4, swap);
		if (len < 12 || len % 4 != 0 || len > LONG_MAX - off)
			break;
		if (type == PCAPNG_IDB) {
			unsigned int lt, snap;

			/* link type (16 bits), reserved, snapshot length */
			if (len < 20 || fread(b + 12, 1, 4, f) != 4)
				break;
			lt = rd16(b + 8, swap);
			snap = adjusted_snaplen(rd32(b + 12, swap));
			if (lt != DLT_EN10MB) {
				fclose(f);
				hgw_cli_die("hedgewire", "capture %s: interface "
					    "%u of section %u: link type %s (%u) "
					    "is not Ethernet: only Ethernet "
					    "captures can be replayed", path,
					    iface, section,
					    pcap_datalink_val_to_name((int)lt) ?
					    pcap_datalink_val_to_name((int)lt) :
					    "?", lt);
			}
			if (snap != (unsigned int)snapshot) {
				fclose(f);
				hgw_cli_die("hedgewire", "capture %s: interface "
					    "%u of section %u: snapshot length "
					    "%u, not the first interface's %d: "
					    "libpcap reads none of its packets",
					    path, iface,
					    section, snap, snapshot);
			}
			iface++;
		}
		off += (long)len;
		if (fseek(f, off, SEEK_SET) != 0)
			break;
	}
	fclose(f);
}

void
hgw_capture_check_start(struct hgw_captures *cs, uint16_t port)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	char err[PCAP_ERRBUF_SIZE];

	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL ||
	    info.driver_name == NULL || strcmp(info.driver_name, "net_pcap") != 0)
		return;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return;
	rte_kvargs_process(kv, "rx_pcap", add_file, cs);
	rte_kvargs_free(kv);
	for (unsigned int i = 0; i < cs->n; i++) {
		const char *path = cs->f[i].path;
		pcap_t *p = pcap_open_offline(path, err);
		int dlt, snapshot;

		if (p == NULL)
			hgw_cli_die("hedgewire", "capture %s: %s", path, err);
		dlt = pcap_datalink(p);
		snapshot = pcap_snapshot(p);
		pcap_close(p);
		if (dlt != DLT_EN10MB)
			hgw_cli_die("hedgewire", "capture %s: link type %s (%d) "
				    "is not Ethernet: only Ethernet captures "
				    "can be replayed", path,
				    pcap_datalink_val_to_name(dlt) ?
				    pcap_datalink_val_to_name(dlt) : "?", dlt);
		cs->f[i].rechdr = record_header(path);
		if (cs->f[i].rechdr == 0)
			check_interfaces(path, snapshot);
	}
}

/* What libpcap reads of a capture, read as net_pcap does: on past a read
 * error (it asks for the next packet at the next burst), to the end. */
struct readback {
	uint64_t frames;	/* frames handed on, in all */
	uint64_t errors;	/* read errors, in all */
	uint64_t first_at;	/* frames handed on before the first error */
	char first[PCAP_ERRBUF_SIZE];	/* what the first error was */
};

static void
read_error(struct readback *r, const char *why)
{
	if (r->errors++ == 0) {
		r->first_at = r->frames;
		snprintf(r->first, sizeof(r->first), "%s", why);
	}
}

/* Reads capture c to its end through libpcap into r; 0, or -1 if it
 * cannot be opened (err says why). */
static int
read_back(const struct hgw_capture *c, struct readback *r, char *err)
{
	pcap_t *p = pcap_open_offline(c->path, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	char why[128];
	FILE *f;

	memset(r, 0, sizeof(*r));
	if (p == NULL)
		return -1;
	f = pcap_file(p);
	for (;;) {
		long pos = f != NULL ? ftell(f) : -1;
		int rc = pcap_next_ex(p, &h, &d);

		if (rc == 1) {
			/* pcap: libpcap cuts a record longer than the
			 * snapshot length (below its own hard limit), hands
			 * it on and goes on: the file position tells, since
			 * the whole record must have been read. pcapng:
			 * libpcap reads whole blocks and refuses such a
			 * record itself (and the position moves by more than
			 * a record when blocks without packets come first). */
			if (c->rechdr != 0 && pos >= 0 &&
			    ftell(f) != pos + (long)c->rechdr + (long)h->caplen) {
				snprintf(why, sizeof(why), "a record longer "
					 "than the snapshot length (%d)",
					 pcap_snapshot(p));
				read_error(r, why);
			}
			r->frames++;
			continue;
		}
		if (rc != PCAP_ERROR)
			break;	/* the end of the file */
		read_error(r, pcap_geterr(p));
		/* a cut file ends here; a bad block or record header is
		 * passed over; an error that did not move the position
		 * (the disk's) would come back for ever */
		if (f == NULL || ftell(f) == pos)
			break;
	}
	pcap_close(p);
	return 0;
}

unsigned int
hgw_capture_check_end(const struct hgw_captures *cs, FILE *out)
{
	unsigned int bad = 0;

	for (unsigned int i = 0; i < cs->n; i++) {
		char err[PCAP_ERRBUF_SIZE];
		struct readback r;

		if (read_back(&cs->f[i], &r, err) != 0) {
			fprintf(out, "capture %s: cannot read it again: %s\n",
				cs->f[i].path, err);
			bad++;
			continue;
		}
		if (r.errors == 0)
			continue;
		fprintf(out, "capture %s: READ ERROR after frame %" PRIu64
			": %s", cs->f[i].path, r.first_at, r.first);
		if (r.frames == r.first_at && r.errors == 1)
			fprintf(out, " (the replay ended there)\n");
		else	/* net_pcap went on reading */
			fprintf(out, " (the replay went on to frame %" PRIu64
				", %" PRIu64 " read error%s in all)\n",
				r.frames, r.errors, r.errors == 1 ? "" : "s");
		bad++;
	}
	return bad;
}
