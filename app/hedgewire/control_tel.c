/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the control plane's telemetry commands (/hgw/risk/kill,
 * /hgw/risk/disable, /hgw/risk/limit, /hgw/table, /hgw/table/entry,
 * /hgw/table/patch, /hgw/events, /hgw/replicas). Each reads the control
 * plane's state or posts an event under its lock, from a telemetry
 * thread; none runs on a worker.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_telemetry.h>

#include "control.h"
#include "control_int.h"
#include "hgw_parse.h"

/* The control plane the commands act on (ctl_tel_register): DPDK 22.11's
 * telemetry callbacks take no argument of ours. Set once, before the
 * first command is registered. */
static struct hgw_ctl *tel_ctl;

/* Reply with the event's id and position (or the error). */
static void
reply_event(struct hgw_ctl *ct, struct rte_tel_data *d, int rc,
	    const struct hgw_event *e, const char *err)
{
	char name[HGW_MOLD_SESSION_LEN + 1];

	rte_tel_data_start_dict(d);
	if (rc != 0) {
		rte_tel_data_add_dict_string(d, "error", err);
		return;
	}
	rte_tel_data_add_dict_u64(d, "event", e->id);
	memcpy(name, ct->rec[e->id % HGW_EV_MAX].name, HGW_MOLD_SESSION_LEN);
	name[HGW_MOLD_SESSION_LEN] = '\0';
	for (int i = 0; i < HGW_MOLD_SESSION_LEN; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			name[i] = '.';
	rte_tel_data_add_dict_string(d, "session", e->key ? name : "-");
	rte_tel_data_add_dict_u64(d, "seq", e->seq);
}

/* /hgw/risk/kill[,0|1]: read, or set for every replica at one position. */
static int
tel_risk_kill(const char *cmd __rte_unused, const char *params,
	      struct rte_tel_data *d)
{
	struct hgw_ctl *ct = tel_ctl;
	struct hgw_event e = { .type = HGW_EVENT_KILL };
	char err[128];
	int rc;

	if (params == NULL || *params == '\0') {
		pthread_mutex_lock(&ct->lock);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "kill", ct->kill);
		rte_tel_data_add_dict_u64(d, "contradictions", ct->lies);
		if (ct->lies != 0) {
			char what[256];

			hgw_ctl_lie_describe(&ct->lie, what, sizeof(what));
			rte_tel_data_add_dict_string(d, "contradicted", what);
		}
		pthread_mutex_unlock(&ct->lock);
		return 0;
	}
	if (strcmp(params, "0") != 0 && strcmp(params, "1") != 0) {
		rte_tel_data_string(d, "usage: /hgw/risk/kill[,0|1]");
		return 0;
	}
	e.arg = params[0] == '1';
	pthread_mutex_lock(&ct->lock);
	rc = ctl_kill_post(ct, &e, err, sizeof(err));
	reply_event(ct, d, rc, &e, err);
	pthread_mutex_unlock(&ct->lock);
	return 0;
}

/* /hgw/risk/disable,SYMBOL,0|1: enable or disable one instrument. */
static int
tel_risk_disable(const char *cmd __rte_unused, const char *params,
		 struct rte_tel_data *d)
{
	struct hgw_ctl *ct = tel_ctl;
	struct hgw_event e = { .type = HGW_EVENT_DISABLE };
	const char *comma = params != NULL ? strchr(params, ',') : NULL;
	size_t n = comma != NULL ? (size_t)(comma - params) : 0;
	char err[128];
	int rc;

	int ok = comma != NULL && n >= 1 && n <= 8 &&
		 (strcmp(comma + 1, "0") == 0 || strcmp(comma + 1, "1") == 0);

	for (size_t k = 0; ok && k < n; k++)
		ok = params[k] > ' ' && params[k] <= '~';
	if (!ok) {
		rte_tel_data_string(d, "usage: /hgw/risk/disable,SYMBOL,0|1 "
				    "(1: disabled; SYMBOL 1-8 printable "
				    "characters, no spaces)");
		return 0;
	}
	memcpy(e.symbol, params, n);
	e.arg = comma[1] == '1';
	pthread_mutex_lock(&ct->lock);
	/* the control plane's copy of the list says what every replica's
	 * will do: a change no replica could make is refused here */
	{
		struct hgw_risk_conf next = ct->rconf;
		uint32_t w = 0;

		for (uint32_t k = 0; k < next.ndisabled; k++)
			if (strcmp(next.disabled[k], e.symbol) != 0)
				memcpy(next.disabled[w++], next.disabled[k], 9);
		next.ndisabled = w;
		if (e.arg == 1 && w == HGW_RISK_MAX_DISABLED) {
			snprintf(err, sizeof(err), "the disabled list is full "
				 "(%u instruments)", HGW_RISK_MAX_DISABLED);
			rc = -1;
		} else {
			if (e.arg == 1)
				memcpy(next.disabled[next.ndisabled++],
				       e.symbol, 9);
			rc = ctl_post(ct, &e, 0, err, sizeof(err));
			if (rc == 0)
				ct->rconf = next;
		}
	}
	reply_event(ct, d, rc, &e, err);
	pthread_mutex_unlock(&ct->lock);
	return 0;
}

/* /hgw/risk/limit[,NAME,VALUE]: list the limits, or change one. */
static int
tel_risk_limit(const char *cmd __rte_unused, const char *params,
	       struct rte_tel_data *d)
{
	struct hgw_ctl *ct = tel_ctl;
	struct hgw_event e = { .type = HGW_EVENT_LIMIT };
	const char *comma = params != NULL ? strchr(params, ',') : NULL;
	char name[32], err[128];
	uint64_t v;
	int k, rc;

	if (params == NULL || *params == '\0') {
		pthread_mutex_lock(&ct->lock);
		rte_tel_data_start_dict(d);
		for (int i = 0; i < HGW_RISK_LIMIT_MAX; i++)
			rte_tel_data_add_dict_u64(d, ctl_limit_name(i),
						  ct->limits[i]);
		pthread_mutex_unlock(&ct->lock);
		return 0;
	}
	if (comma == NULL || (size_t)(comma - params) >= sizeof(name)) {
		rte_tel_data_string(d, "usage: /hgw/risk/limit[,NAME,VALUE]");
		return 0;
	}
	memcpy(name, params, (size_t)(comma - params));
	name[comma - params] = '\0';
	k = hgw_risk_limit_by_name(name);
	if (k < 0 || hgw_parse_num(comma + 1, 0, UINT64_MAX, &v) != 0 ||
	    hgw_risk_limit_valid(&ct->rconf, (enum hgw_risk_limit)k, v) != 0) {
		rte_tel_data_start_dict(d);
		snprintf(err, sizeof(err), "bad limit '%s' (see /hgw/risk/limit "
			 "for names; values within the [risk] ranges, "
			 "max_orders_* at most their start-up value)", params);
		rte_tel_data_add_dict_string(d, "error", err);
		return 0;
	}
	e.arg = (uint32_t)k;
	e.value = v;
	pthread_mutex_lock(&ct->lock);
	rc = ctl_post(ct, &e, 0, err, sizeof(err));
	if (rc == 0)
		ct->limits[k] = v;
	reply_event(ct, d, rc, &e, err);
	pthread_mutex_unlock(&ct->lock);
	return 0;
}

/* /hgw/table/patch,FILE: read and validate once, then every replica
 * takes the whole patch at one position (no decision sees half of it). */
static int
tel_table_patch(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct hgw_ctl *ct = tel_ctl;
	struct hgw_event e = { .type = HGW_EVENT_PATCH };
	struct hgw_table_patch *p;
	struct hgw_table_dims dims;
	char err[512];
	int rc;

	pthread_mutex_lock(&ct->lock);
	rc = ct->closed ? -2 : ct->tables == NULL ? -1 :
	     ct->tables->n < ct->n ? -3 : 0;
	if (rc == 0)
		dims = ct->tables->t[0].dims;	/* fixed for the run */
	pthread_mutex_unlock(&ct->lock);
	if (rc == -3) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error", "live patches need "
			"one table replica per worker ([table] replicas)");
		return 0;
	}
	if (rc == -2) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error", "not running");
		return 0;
	}
	if (rc != 0 || params == NULL || *params == '\0') {
		rte_tel_data_string(d, rc != 0 ? "no table loaded ([table] file)" :
				    "usage: /hgw/table/patch,FILE");
		return 0;
	}
	/* outside the lock: a slow file never holds up other commands */
	p = hgw_table_patch_load(params, &dims, HGW_TABLE_PATCH_MAX_BYTES, err,
				 sizeof(err));
	if (p == NULL) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error", err);
		return 0;
	}
	e.patch = p;
	pthread_mutex_lock(&ct->lock);
	ctl_patches_reap(ct);
	if (ct->npatches == PATCHES_MAX) {
		/* the oldest waits for a worker whose feed has not moved */
		snprintf(err, sizeof(err), "patch store full: %u patches "
			 "wait for a worker to take them (event %" PRIu64
			 " first)", (unsigned int)PATCHES_MAX,
			 ct->patches[0].id);
		rc = -1;
	} else {
		rc = ctl_post(ct, &e, hgw_table_patch_count(p), err, sizeof(err));
	}
	if (rc == 0)
		ct->patches[ct->npatches++] = (struct patch_rec){
			.p = p, .id = e.id,
			.targets = ct->rec[e.id % HGW_EV_MAX].targets };
	reply_event(ct, d, rc, &e, err);
	if (rc == 0)
		rte_tel_data_add_dict_u64(d, "entries", hgw_table_patch_count(p));
	pthread_mutex_unlock(&ct->lock);
	if (rc != 0)
		hgw_table_patch_free(p);
	else
		RTE_LOG(INFO, HGW_CTL, "table patch %s: %u entries (event %"
			PRIu64 ")\n", params, hgw_table_patch_count(p), e.id);
	return 0;
}

/* /hgw/table/entry,L,S,I[,R]: one entry of replica R, read as a worker
 * reads it (under the entry's sequence count). */
static int
tel_table_entry(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct hgw_ctl *ct = tel_ctl;
	uint64_t v[4] = { 0, 0, 0, 0 };
	struct hgw_table_entry e;
	char buf[128], c[2] = { 0, 0 };
	char *tok, *save = NULL;
	int n = 0, ok;

	if (params != NULL && strlen(params) < sizeof(buf)) {
		/* strsep, not strtok: an empty field is an error */
		strcpy(buf, params);
		save = buf;
		while ((tok = strsep(&save, ",")) != NULL && n < 5)
			if (n == 4 || hgw_parse_num(tok, 0, UINT32_MAX, &v[n++]) != 0)
				n = 5;	/* too many or not a number */
	}
	pthread_mutex_lock(&ct->lock);
	const struct hgw_table *t = ct->tables != NULL ? ct->tables->t : NULL;

	ok = t != NULL && (n == 3 || n == 4) && v[3] < ct->tables->n &&
	     v[0] < t->dims.instruments && v[1] < t->dims.spreads &&
	     v[2] < t->dims.imbalances;
	if (ok)
		hgw_table_read(&t[v[3]], (v[0] * t->dims.spreads + v[1]) *
			       t->dims.imbalances + v[2], &e);
	pthread_mutex_unlock(&ct->lock);
	if (!ok) {
		rte_tel_data_string(d, "usage: /hgw/table/entry,LOCATE,SPREAD,IMBALANCE[,REPLICA] (within the table)");
		return 0;
	}
	rte_tel_data_start_dict(d);
	c[0] = e.action ? (char)e.action : '0';
	rte_tel_data_add_dict_string(d, "action", c);
	rte_tel_data_add_dict_u64(d, "price_mode", e.price_mode);
	c[0] = (char)e.tif;
	rte_tel_data_add_dict_string(d, "tif", c);
	c[0] = (char)e.display;
	rte_tel_data_add_dict_string(d, "display", c);
	rte_tel_data_add_dict_int(d, "price", e.price);
	rte_tel_data_add_dict_u64(d, "quantity", e.quantity);
	rte_tel_data_add_dict_u64(d, "tag", e.tag);
	return 0;
}

/* /hgw/table: the loaded table's dimensions. */
static int
tel_table_info(const char *cmd __rte_unused, const char *params __rte_unused,
	       struct rte_tel_data *d)
{
	struct hgw_ctl *ct = tel_ctl;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&ct->lock);
	if (ct->tables != NULL) {
		const struct hgw_table *t = &ct->tables->t[0];

		rte_tel_data_add_dict_u64(d, "instruments", t->dims.instruments);
		rte_tel_data_add_dict_u64(d, "spreads", t->dims.spreads);
		rte_tel_data_add_dict_u64(d, "imbalances", t->dims.imbalances);
		rte_tel_data_add_dict_u64(d, "tick", t->dims.tick);
		rte_tel_data_add_dict_u64(d, "entries", t->nentries);
		rte_tel_data_add_dict_u64(d, "replicas", ct->tables->n);
	}
	pthread_mutex_unlock(&ct->lock);
	return 0;
}

/* /hgw/events: how many, and the last ones with their positions. */
static int
tel_events(const char *cmd __rte_unused, const char *params __rte_unused,
	   struct rte_tel_data *d)
{
	struct hgw_ctl *ct = tel_ctl;
	char name[32], buf[RTE_TEL_MAX_STRING_LEN];

	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&ct->lock);
	rte_tel_data_add_dict_u64(d, "events", ct->next_id);
	for (uint64_t id = ct->next_id > 64 ? ct->next_id - 63 : 1;
	     id <= ct->next_id; id++) {
		const struct ev_rec *r = &ct->rec[id % HGW_EV_MAX];

		snprintf(name, sizeof(name), "%" PRIu64, id);
		ctl_describe_rec(r, buf, sizeof(buf));
		rte_tel_data_add_dict_string(d, name, buf);
	}
	pthread_mutex_unlock(&ct->lock);
	return 0;
}

/* /hgw/replicas: which workers race, which left and why. */
static int
tel_replicas(const char *cmd __rte_unused, const char *params __rte_unused,
	     struct rte_tel_data *d)
{
	struct hgw_ctl *ct = tel_ctl;
	char name[32], buf[96];

	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&ct->lock);
	rte_tel_data_add_dict_u64(d, "digest_compares", ct->compares);
	rte_tel_data_add_dict_u64(d, "membarrier", (uint64_t)ct->membarrier);
	for (uint32_t i = 0; i < ct->n; i++) {
		snprintf(name, sizeof(name), "worker%u", i);
		if (ct->left_mask & (1u << i))
			snprintf(buf, sizeof(buf), "left: %s at seq %" PRIu64,
				 hgw_leave_reason_name(ct->left_reason[i]),
				 ct->left_at[i].seq);
		else if (atomic_load_explicit(&ct->w[i]->shared.halted,
					      memory_order_relaxed) != 0)
			/* relaxed: a flag, set once */
			snprintf(buf, sizeof(buf), "halted on %s",
				 hgw_halt_name(atomic_load_explicit(
					&ct->w[i]->shared.halted,
					memory_order_relaxed)));
		else
			snprintf(buf, sizeof(buf), "%s",
				 ctl_worker_dead(ct, i) ? "stopped" : "racing");
		rte_tel_data_add_dict_string(d, name, buf);
	}
	pthread_mutex_unlock(&ct->lock);
	return 0;
}

void
ctl_tel_register(struct hgw_ctl *ct)
{
	tel_ctl = ct;
	rte_telemetry_register_cmd("/hgw/table/patch", tel_table_patch,
		"Apply a table patch file to every replica at one feed position. Parameters: FILE");
	rte_telemetry_register_cmd("/hgw/table/entry", tel_table_entry,
		"One entry of the running table. Parameters: LOCATE,SPREAD,IMBALANCE[,REPLICA]");
	rte_telemetry_register_cmd("/hgw/table", tel_table_info,
		"Dimensions of the loaded pricing table. No parameters");
	rte_telemetry_register_cmd("/hgw/risk/kill", tel_risk_kill,
		"Read or set the kill switch (at one feed position). Parameters: [0|1]");
	rte_telemetry_register_cmd("/hgw/risk/disable", tel_risk_disable,
		"Disable (1) or enable (0) an instrument. Parameters: SYMBOL,0|1");
	rte_telemetry_register_cmd("/hgw/risk/limit", tel_risk_limit,
		"List the risk limits, or change one. Parameters: [NAME,VALUE]");
	rte_telemetry_register_cmd("/hgw/events", tel_events,
		"Control events and their feed positions. No parameters");
	rte_telemetry_register_cmd("/hgw/replicas", tel_replicas,
		"Which workers race, which left the race and why. No parameters");
}
