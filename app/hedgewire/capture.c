/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the captures a net_pcap port replays, checked like input.
 *
 * net_pcap reads its rx_pcap files with libpcap and hands every record to
 * rx_burst as an Ethernet frame, whatever the file's link type, and a
 * read error simply ends the replay. So the files are checked here: the
 * link type at start-up, and at exit whether each one reads to its end.
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

#define MAX_CAPTURES 32

/* pcapng block types (draft-ietf-opsawg-pcapng, section 4) and the
 * Section Header's byte-order magic as read in the reader's order */
#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_BOM 0x1A2B3C4Du
#define PCAPNG_BOM_SWAPPED 0x4D3C2B1Au
/* libpcap's largest snapshot length for Ethernet (MAXIMUM_SNAPLEN): an
 * interface's 0 or larger snapshot length is read as this one */
#define LIBPCAP_MAX_SNAPLEN 262144u

static struct capture {
	char path[PATH_MAX];
	/* pcap: the bytes of a record header (16; 24 in the "modified"
	 * format); 0: pcapng */
	unsigned int rechdr;
} files[MAX_CAPTURES];
static unsigned int nfiles;

static int
add_file(const char *key __rte_unused, const char *value, void *arg __rte_unused)
{
	for (unsigned int i = 0; i < nfiles; i++)
		if (strcmp(files[i].path, value) == 0)
			return 0;	/* the same file on several queues */
	if (nfiles < MAX_CAPTURES)
		snprintf(files[nfiles++].path, PATH_MAX, "%s", value);
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
 * the whole file, and its reader stops at an interface whose link type or
 * snapshot length differs, or at a section in the other byte order: the
 * replay would end there, or hand on frames that are not Ethernet. So
 * every Interface Description Block is read now, and a capture net_pcap
 * cannot replay to its end is refused. The walk reads block headers only
 * and stops quietly at a block it cannot read: a damaged file is a read
 * error, said at exit with the frame it broke after. */
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
					    "reads no further, so it cannot be "
					    "replayed", path, section + 1);
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
					    "libpcap reads no further, so it "
					    "cannot be replayed", path, iface,
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
hgw_capture_check_start(uint16_t port)
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
	rte_kvargs_process(kv, "rx_pcap", add_file, NULL);
	rte_kvargs_free(kv);
	for (unsigned int i = 0; i < nfiles; i++) {
		const char *path = files[i].path;
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
		files[i].rechdr = record_header(path);
		if (files[i].rechdr == 0)
			check_interfaces(path, snapshot);
	}
}

unsigned int
hgw_capture_check_end(FILE *out)
{
	unsigned int bad = 0;

	for (unsigned int i = 0; i < nfiles; i++) {
		const char *path = files[i].path;
		unsigned int rechdr = files[i].rechdr;
		char err[PCAP_ERRBUF_SIZE], why[128] = "";
		struct pcap_pkthdr *h;
		const u_char *d;
		uint64_t frames = 0;
		pcap_t *p = pcap_open_offline(path, err);
		FILE *f;
		long pos;
		int rc;

		if (p == NULL) {
			fprintf(out, "capture %s: cannot read it again: %s\n",
				path, err);
			bad++;
			continue;
		}
		/* pcap: libpcap cuts a record longer than the snapshot length
		 * (below its own hard limit) and goes on: the file position
		 * tells, since the whole record must have been read. pcapng:
		 * libpcap reads whole blocks and refuses such a record, so
		 * its own error says all (and the position moves by a block,
		 * or by several when blocks without packets come first). */
		f = rechdr != 0 ? pcap_file(p) : NULL;
		for (;;) {
			pos = f != NULL ? ftell(f) : -1;
			rc = pcap_next_ex(p, &h, &d);
			if (rc != 1)
				break;
			if (pos >= 0 &&
			    ftell(f) != pos + (long)rechdr + (long)h->caplen) {
				snprintf(why, sizeof(why), "a record longer "
					 "than the snapshot length (%d)",
					 pcap_snapshot(p));
				rc = -1;
				break;
			}
			frames++;
		}
		if (rc == -1) {
			fprintf(out, "capture %s: READ ERROR after frame %" PRIu64
				": %s (the replay ended there)\n", path,
				frames, why[0] ? why : pcap_geterr(p));
			bad++;
		}
		pcap_close(p);
	}
	return bad;
}
