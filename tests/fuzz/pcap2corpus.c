/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire fuzzing: split a pcap into fuzz inputs of N frames each,
 * every frame as [u16 big-endian length][bytes] (fuzz_feed's format).
 *   pcap2corpus IN.pcap OUTDIR [frames-per-input] [max-inputs]
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE], path[4096];
	struct pcap_pkthdr *h;
	const unsigned char *d;
	FILE *out = NULL;
	long per = argc > 3 ? atol(argv[3]) : 4;
	long max = argc > 4 ? atol(argv[4]) : 200;
	long frames = 0, inputs = 0;

	if (argc < 3 || per <= 0 || max <= 0) {
		fprintf(stderr, "usage: pcap2corpus IN.pcap OUTDIR [frames-per-input] [max-inputs]\n");
		return 2;
	}
	pcap_t *p = pcap_open_offline(argv[1], err);

	if (p == NULL) {
		fprintf(stderr, "pcap2corpus: %s\n", err);
		return 1;
	}
	while (inputs < max && pcap_next_ex(p, &h, &d) == 1) {
		if (out == NULL) {
			snprintf(path, sizeof(path), "%s/seed-%05ld", argv[2], inputs);
			out = fopen(path, "wb");
			if (out == NULL) {
				fprintf(stderr, "pcap2corpus: %s: %s\n", path, strerror(errno));
				return 1;
			}
		}
		/* fuzz_feed's length has 14 bits (its top two are flags):
		 * a longer frame is left out, not cut */
		if (h->caplen > 0x3FFF)
			continue;
		/* top bit: the harness keeps the checksums right as it
		 * mutates the frame (the fuzzer flips the bit too) */
		unsigned char l[2] = { (unsigned char)(0x80 | h->caplen >> 8),
				       (unsigned char)h->caplen };
		fwrite(l, 1, 2, out);
		fwrite(d, 1, h->caplen, out);
		if (++frames % per == 0) {
			fclose(out);
			out = NULL;
			inputs++;
		}
	}
	if (out != NULL)
		fclose(out);
	pcap_close(p);
	return 0;
}
