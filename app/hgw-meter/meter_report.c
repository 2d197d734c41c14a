/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: the report at the end, and its --csv and --json files.
 */
#include "meter_int.h"

static const char *const unexpected_names[] = {
#define METER_UNEXPECTED_NAME(code, name, help) name,
	METER_UNEXPECTED(METER_UNEXPECTED_NAME)
#undef METER_UNEXPECTED_NAME
};

static const char *const unexpected_help[] = {
#define METER_UNEXPECTED_HELP(code, name, help) help,
	METER_UNEXPECTED(METER_UNEXPECTED_HELP)
#undef METER_UNEXPECTED_HELP
};

static uint64_t
unexpected_total(const struct meter *m)
{
	uint64_t t = 0;

	for (int i = 0; i < UNEXPECTED_MAX; i++)
		t += m->unexpected[i];
	return t;
}

/* Triggers expected but never answered (after the wait). */
void
meter_count_no_order(struct meter *m)
{
	for (uint64_t i = 0; i < m->nmsgs; i++)
		if ((m->flags[i] & (F_EXPECTED | F_ANSWERED)) == F_EXPECTED)
			m->no_order++;
}

static uint64_t
missed(const struct meter *m)
{
	return m->no_order + m->expected_unknown + m->late;
}

/* The counters as "  name value" lines (the form hedgewire's summary
 * uses), or as JSON members. */
#define METER_COUNTERS(X)                                                      \
	X(packets, m->npkts)                                                   \
	X(packets_sent, m->packets_sent)                                       \
	X(copies, m->copies)                                                   \
	X(copies_sent, m->copies_sent)                                         \
	X(tx_dropped, m->tx_dropped)                                           \
	X(messages, m->nmsgs)                                                  \
	X(frames, m->frames)                                                   \
	X(other_frames, m->other_frames)                                       \
	X(orders, m->orders)                                                   \
	X(matched, m->matched)                                                 \
	X(late, m->late)                                                       \
	X(unexpected, unexpected_total(m))                                     \
	X(duplicates, m->duplicates)                                           \
	X(expected, m->exp ? (uint64_t)m->nexp + m->expected_unknown : 0)      \
	X(expected_not_in_capture, m->expected_unknown)                        \
	X(no_order, m->no_order)                                               \
	X(missed, missed(m))                                                   \
	X(differs, m->differs)

/* The re-request server's, final once the wire is let go. */
#define METER_RT_COUNTERS(X)                                                   \
	X(retrans_requests, m->rt_requests)                                    \
	X(retrans_answered, m->rt_answered)                                    \
	X(retrans_messages, m->rt_messages)                                    \
	X(retrans_packets, m->rt_packets)                                      \
	X(retrans_not_had, m->rt_not_had)                                      \
	X(retrans_limited, m->rt_limited)                                      \
	X(retrans_bad, m->rt_bad)                                              \
	X(retrans_lost, m->rt_lost)                                            \
	X(hold_frames, m->hold_frames)

void
meter_report(const struct meter *m, const struct opts *o, double secs)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();

	printf("sent %" PRIu64 " packets x %u copies in %.3f s",
	       m->packets_sent, m->copies, secs);
	if (m->tx_dropped != 0)
		printf(", %" PRIu64 " copies dropped (a TX queue took nothing "
		       "for %u ms)", m->tx_dropped, o->stall_ms);
	printf("\n");
	for (uint16_t q = 0; q < m->copies; q++)
		if (m->qdead[q])
			printf("WARNING: TX queue %u stalled and was given up: "
			       "fewer queues on the other side than --copies?\n",
			       q);
	hgw_hist_print(&m->lag, stdout, "send_lag", ns,
		       "ns, tx_burst minus the packet's release time");
	hgw_hist_print(&m->w2w, stdout, "wire_to_wire", ns,
		       "ns, order rx_burst minus its trigger's tx_burst, both "
		       "hops; first order per trigger");
#define METER_PRINT(name, v) printf("  %-24s %" PRIu64 "\n", #name, (uint64_t)(v));
	METER_COUNTERS(METER_PRINT)
#undef METER_PRINT
	for (uint16_t q = 0; q < m->copies; q++) {
		char key[32];

		if (!m->qdrops[q])
			continue;
		snprintf(key, sizeof(key), "dropped_q%u", q);
		printf("  %-24s %" PRIu64 "  frames not sent on queue %u "
		       "(--drop)\n", key, m->dropped[q], q);
		snprintf(key, sizeof(key), "corrupted_q%u", q);
		printf("  %-24s %" PRIu64 "  frames sent damaged on queue %u "
		       "(--corrupt)\n", key, m->corrupted[q], q);
	}
	for (int i = 0; i < UNEXPECTED_MAX; i++)
		if (m->unexpected[i] != 0)
			printf("  unexpected %-13s %" PRIu64 "  %s\n",
			       unexpected_names[i], m->unexpected[i],
			       unexpected_help[i]);
	if (m->exp != NULL)
		printf("expected %" PRIu64 ": matched %" PRIu64 " (late %" PRIu64
		       "), missed %" PRIu64 ", unexpected %" PRIu64
		       ", duplicates %" PRIu64 ", differing %" PRIu64 "\n",
		       (uint64_t)m->nexp + m->expected_unknown, m->matched,
		       m->late, missed(m), unexpected_total(m), m->duplicates,
		       m->differs);
	else
		printf("triggers answered %" PRIu64 " (of %" PRIu64
		       " messages sent; late %" PRIu64 "), unexpected %" PRIu64
		       ", duplicates %" PRIu64 "\n", m->matched, m->nmsgs,
		       m->late, unexpected_total(m), m->duplicates);
}

void
meter_report_retrans(const struct meter *m)
{
	printf(PROG ": re-request server: %" PRIu64 " requests, %" PRIu64
	       " answered with %" PRIu64 " messages in %" PRIu64 " packets; %"
	       PRIu64 " for messages the capture does not have, %" PRIu64
	       " bad\n", m->rt_requests, m->rt_answered, m->rt_messages,
	       m->rt_packets, m->rt_not_had, m->rt_bad);
#define METER_RT_PRINT(name, v) printf("  %-24s %" PRIu64 "\n", #name, (uint64_t)(v));
	METER_RT_COUNTERS(METER_RT_PRINT)
#undef METER_RT_PRINT
	fflush(stdout);
}

void
meter_write_csv(const struct hgw_hist *h, const char *prefix, const char *name)
{
	char path[4096];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s-%s.csv", prefix, name);
	f = fopen(path, "w");
	if (f == NULL)
		die("--csv %s: %s", path, strerror(errno));
	rc = hgw_hist_write_csv(h, f, 1e9 / (double)rte_get_tsc_hz());
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		die("--csv %s: %s", path, strerror(-rc));
}

void
meter_write_json(const struct meter *m, const struct opts *o)
{
	const double ns = 1e9 / (double)rte_get_tsc_hz();
	FILE *f = fopen(o->json, "w");
	int rc;

	if (f == NULL)
		die("--json %s: %s", o->json, strerror(errno));
	fprintf(f, "{\"pace\": \"%s\", ", meter_pace_names[o->pace]);
#define METER_JSON(name, v) fprintf(f, "\"%s\": %" PRIu64 ", ", #name, (uint64_t)(v));
	METER_COUNTERS(METER_JSON)
#undef METER_JSON
	fputs("\"unexpected_by_reason\": {", f);
	for (int i = 0; i < UNEXPECTED_MAX; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "",
			unexpected_names[i], m->unexpected[i]);
	fputs("}, \"dropped_by_queue\": [", f);
	for (uint16_t q = 0; q < m->copies; q++)
		fprintf(f, "%s%" PRIu64, q ? ", " : "", m->dropped[q]);
	fputs("], ", f);
	if (m->rt_on) {
#define METER_RT_JSON(name, v) fprintf(f, "\"%s\": %" PRIu64 ", ", #name, (uint64_t)(v));
		METER_RT_COUNTERS(METER_RT_JSON)
#undef METER_RT_JSON
	}
	fputs("\n\"wire_to_wire\": ", f);
	rc = hgw_hist_write_json(&m->w2w, f, "wire_to_wire", ns, "ns");
	fputs(", \"send_lag\": ", f);
	if (rc == 0)
		rc = hgw_hist_write_json(&m->lag, f, "send_lag", ns, "ns");
	fputs("}\n", f);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		die("--json %s: %s", o->json, strerror(-rc));
}
