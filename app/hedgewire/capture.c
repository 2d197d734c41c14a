/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the captures a net_pcap port replays, checked like input.
 *
 * net_pcap reads its rx_pcap files with libpcap and hands every record to
 * rx_burst as an Ethernet frame, whatever the file's link type, and a
 * read error simply ends the replay. So the files are checked here: the
 * link type at start-up, and at exit whether each one reads to its end.
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

static char files[MAX_CAPTURES][PATH_MAX];
static unsigned int nfiles;

static int
add_file(const char *key __rte_unused, const char *value, void *arg __rte_unused)
{
	for (unsigned int i = 0; i < nfiles; i++)
		if (strcmp(files[i], value) == 0)
			return 0;	/* the same file on several queues */
	if (nfiles < MAX_CAPTURES)
		snprintf(files[nfiles++], PATH_MAX, "%s", value);
	return 0;
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
		pcap_t *p = pcap_open_offline(files[i], err);
		int dlt;

		if (p == NULL)
			hgw_cli_die("hedgewire", "capture %s: %s", files[i], err);
		dlt = pcap_datalink(p);
		pcap_close(p);
		if (dlt != DLT_EN10MB)
			hgw_cli_die("hedgewire", "capture %s: link type %s (%d) "
				    "is not Ethernet: only Ethernet captures "
				    "can be replayed", files[i],
				    pcap_datalink_val_to_name(dlt) ?
				    pcap_datalink_val_to_name(dlt) : "?", dlt);
	}
}

unsigned int
hgw_capture_check_end(FILE *out)
{
	unsigned int bad = 0;

	for (unsigned int i = 0; i < nfiles; i++) {
		char err[PCAP_ERRBUF_SIZE], why[128] = "";
		struct pcap_pkthdr *h;
		const u_char *d;
		uint64_t frames = 0;
		pcap_t *p = pcap_open_offline(files[i], err);
		FILE *f;
		long pos;
		int rc;

		if (p == NULL) {
			fprintf(out, "capture %s: cannot read it again: %s\n",
				files[i], err);
			bad++;
			continue;
		}
		f = pcap_file(p);
		/* libpcap cuts a record longer than the snapshot length
		 * (below its own hard limit) and goes on: the file position
		 * tells, since the whole record must have been read */
		for (;;) {
			pos = f != NULL ? ftell(f) : -1;
			rc = pcap_next_ex(p, &h, &d);
			if (rc != 1)
				break;
			if (pos >= 0 && ftell(f) != pos + 16 + (long)h->caplen) {
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
				": %s (the replay ended there)\n", files[i],
				frames, why[0] ? why : pcap_geterr(p));
			bad++;
		}
		pcap_close(p);
	}
	return bad;
}
