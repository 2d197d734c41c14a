/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: what the workers are given before they are launched: the
 * lcores, the table replicas and order path (pool, journal, dedup, TX
 * lcore), the RX lcore (fanout), the workers themselves, the pacer, the
 * NIC clock, the buffer switches, and the test-only faults and claims.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_memory.h>
#include <rte_ring.h>

#include "app.h"
#include "hgw_chanmap.h"

static int
lcore_socket(unsigned int lcore)
{
	return (int)rte_lcore_to_socket_id(lcore);
}

/* Zeroed, on the socket of the lcore that is to write it. */
static void *
lcore_zmalloc(const char *name, size_t size, unsigned int lcore)
{
	return rte_zmalloc_socket(name, size, RTE_CACHE_LINE_SIZE,
				  lcore_socket(lcore));
}

/* An lcore's snapshot and histograms, at precision bits, in one cold
 * allocation on its socket, apart from its hot state: the snapshot (its
 * histogram last), then nhists histograms, each from a line of its own. */
static struct hgw_snapshot *
lcore_hists(unsigned int lcore, uint32_t bits, struct hgw_hist **hists,
	    unsigned int nhists)
{
	size_t hs = RTE_ALIGN_CEIL(hgw_hist_size(bits), RTE_CACHE_LINE_SIZE);
	size_t ss = RTE_ALIGN_CEIL(offsetof(struct hgw_snapshot, rx_to_tx) +
				   hgw_hist_size(bits), RTE_CACHE_LINE_SIZE);
	uint8_t *mem = lcore_zmalloc("hgw_hists", ss + nhists * hs, lcore);
	struct hgw_snapshot *snap = (struct hgw_snapshot *)mem;

	if (mem == NULL)
		die("cannot allocate lcore %u's histograms", lcore);
	hgw_hist_init_sized(&snap->rx_to_tx, bits);
	for (unsigned int i = 0; i < nhists; i++) {
		hists[i] = (struct hgw_hist *)(mem + ss + i * hs);
		hgw_hist_init_sized(hists[i], bits);
	}
	return snap;
}

void
app_lcores_pick(struct hgw_app *a)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);

	/* fanout: the RX lcore takes the first one */
	if (a->conf.rx_mode == HGW_RX_FANOUT) {
		a->fanout_lcore = lcore;
		lcore = rte_get_next_lcore(lcore, 1, 0);
	}
	for (uint32_t i = 0; i < a->conf.workers; i++) {
		a->worker_lcore[i] = lcore;
		lcore = rte_get_next_lcore(lcore, 1, 0);
	}
	/* tx-lcore: the lcore after the workers */
	a->txl_lcore = lcore;
}

static void
risk_conf(const struct hgw_config *c, struct hgw_risk_conf *r)
{
	memset(r, 0, sizeof(*r));
	r->instruments = c->book.max_instruments;
	r->max_quantity = c->max_quantity;
	r->max_notional = c->max_notional;
	r->collar_bps = c->collar_bps;
	r->max_position = c->max_position;
	r->window_ns = (uint64_t)c->window_ms * 1000000u;
	r->max_orders_instrument = c->max_orders_instrument;
	r->max_orders_total = c->max_orders_total;
	r->max_open_orders = c->max_open_orders;
	r->cap_open_orders = RTE_MAX(c->max_open_orders, 4096u);
	r->venue = hgw_config_venue(c);
	r->kill = c->kill != 0;
	if (hgw_risk_parse_disable(r, c->risk_disable) < 0)
		die("[risk] disable: bad list '%s'", c->risk_disable);
}

static uint64_t
va2pa(const void *va, void *arg __rte_unused)
{
	phys_addr_t pa = rte_mem_virt2phy(va);

	return pa == RTE_BAD_IOVA ? HGW_CHANMAP_PA_UNKNOWN : pa;
}

/* N replicas of the table in one region laid out by the channel map (or
 * packed back to back on 2 MB boundaries without one), the file read once
 * into replica 0 and copied; placement verified entry by entry where
 * physical addresses are known, and said in one line either way. */
static void
replicas_load(struct trading *t, const struct hgw_config *c)
{
	uint32_t n = c->replicas ? c->replicas : c->workers;
	uint64_t offsets[HGW_CHANMAP_MAX_REPLICAS], align, region, nentries;
	struct hgw_table_dims dims;
	struct hgw_chanmap map;
	struct hgw_chanmap_report rep;
	/* the header again here: the layout needs the size before loading */
	const void *bases[HGW_CHANMAP_MAX_REPLICAS];
	char err[512], line[512];

	if (hgw_table_file_header(c->table_file, &dims, &nentries, err,
				  sizeof(err)) < 0)
		die("%s", err);
	uint64_t span = nentries * HGW_TABLE_ENTRY_SIZE;

	memset(&map, 0, sizeof(map));
	if (c->chanmap[0] != '\0') {
		if (hgw_chanmap_load(c->chanmap, &map, err, sizeof(err)) < 0)
			die("[table] chanmap: %s", err);
	} else {
		snprintf(map.name, sizeof(map.name), "packed");
		map.offset = RTE_ALIGN_CEIL(span, (uint64_t)RTE_PGSIZE_2M);
	}
	if (hgw_chanmap_replica_offsets(&map, n, HGW_TABLE_ENTRY_SIZE, span,
					offsets, &align, &region, err,
					sizeof(err)) < 0)
		die("[table] replicas = %u with chanmap %s: %s", n, map.name, err);
	if (hgw_table_load_replicas(c->table_file, (int)rte_socket_id(), n,
				    offsets, align, region, &t->tables, err,
				    sizeof(err)) < 0)
		die("%s", err);
	for (uint32_t r = 0; r < n; r++)
		bases[r] = t->tables.t[r].entries;
	t->table = &t->tables.t[0];

	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(t->tables.mem);
	uint64_t page = msl != NULL ? msl->page_sz : 4096;

	if (hgw_chanmap_verify(&map, n, bases, nentries, HGW_TABLE_ENTRY_SIZE,
			       page, va2pa, NULL,
			       hgw_chanmap_hypervisor() ? HGW_CHANMAP_F_GUEST_PA : 0,
			       &rep) != 0)
		die("table %s: the placement check refused its arguments",
		    c->table_file);
	printf("table %s: %u replica(s) of %" PRIu64 " MB in %s on %s pages, "
	       "%s\n", c->table_file, n, span >> 20,
		       t->tables.contiguous ? "IOVA-contiguous memory" :
		       "memory that is not IOVA-contiguous",
		       page >= RTE_PGSIZE_1G ? "1 GB" :
		       page >= RTE_PGSIZE_2M ? "2 MB" : "4 KB",
		       hgw_chanmap_report_line(&rep, line, sizeof(line)));
	if (rep.result == HGW_CHANMAP_VIOLATED)
		RTE_LOG(WARNING, HGW_APP, "table replicas share channels: %s\n",
			line);
}

void
app_trading_init(struct hgw_app *a)
{
	struct trading *t = &a->trading;
	const struct hgw_config *c = &a->conf;
	char err[512];

	replicas_load(t, c);
	t->tx_pool = rte_pktmbuf_pool_create("hgw_tx", c->tx_mbufs,
					     RTE_MIN(256u, c->tx_mbufs / 8),
					     0, RTE_MBUF_DEFAULT_BUF_SIZE,
					     rte_eth_dev_socket_id(c->tx_port));
	if (t->tx_pool == NULL)
		die("cannot create the order pool of %u mbufs ([order] mbufs): %s",
		    c->tx_mbufs, rte_strerror(rte_errno));
	if (c->journal[0] != '\0') {
		t->journal = hgw_journal_open(c->journal, c->journal_orders,
					      err, sizeof(err));
		if (t->journal == NULL)
			die("%s", err);
	}
	if (hgw_config_dlg(c)) {
		t->dlg = rte_zmalloc("hgw_tcp_dlg", sizeof(*t->dlg),
				     HGW_CACHE_LINE_SIZE);
		if (t->dlg == NULL)
			die("cannot allocate the venue's claim state");
	}
	/* (claim mode on the venue's TCP: for the orders whose UserRefNum
	 * cannot go, decided by their trigger) */
	if (c->dedup == HGW_DEDUP_MODE_CLAIM && c->workers > 1) {
		t->dedup = rte_zmalloc("hgw_dedup", sizeof(*t->dedup),
				       RTE_CACHE_LINE_SIZE);
		if (t->dedup == NULL || hgw_dedup_init(t->dedup) != 0)
			die("cannot allocate the dedup state");
	}
	if (a->txl) {
		struct hgw_txlcore *txl;
		struct hgw_sender *out;

		txl = lcore_zmalloc("hgw_txlcore", sizeof(*txl), a->txl_lcore);
		if (txl == NULL)
			die("cannot allocate the TX lcore's state");
		a->txlcore = txl;
		out = &txl->out;
		txl->nrings = c->workers;
		txl->dlg = t->dlg;
		hgw_dedup_filter_init(&txl->filter);
		txl->snapshot = lcore_hists(a->txl_lcore, c->latency_bits,
					    &out->rx_to_tx, 1);
		out->port = c->tx_port;
		out->queue = 0;
		out->refused = &txl->refused;
		out->journal = t->journal ? hgw_journal_tx(t->journal) : NULL;
		for (uint32_t i = 0; i < c->workers; i++) {
			char name[RTE_RING_NAMESIZE];

			snprintf(name, sizeof(name), "hgw_handoff_%u", i);
			txl->rings[i] = rte_ring_create_elem(name,
				sizeof(struct hgw_handoff), c->ring_size,
				rte_socket_id(),
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (txl->rings[i] == NULL)
				die("cannot create handoff ring %u of %u orders "
				    "([rx] ring_size, a power of two): %s", i,
				    c->ring_size, rte_strerror(rte_errno));
		}
	}
}

/* fanout: one ring per worker, the RX lcore's state on its socket. */
void
app_fanout_init(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_fanout *fanout;

	fanout = lcore_zmalloc("hgw_fanout", sizeof(*fanout), a->fanout_lcore);
	if (fanout == NULL)
		die("cannot allocate the RX lcore's state");
	a->fanout = fanout;
	fanout->port = c->rx_port;
	fanout->queue = 0;
	fanout->burst = c->burst;
	fanout->drain_max = c->rx_desc;
	fanout->nrings = c->workers;
	for (uint32_t i = 0; i < c->workers; i++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "hgw_fanout_%u", i);
		fanout->rings[i] = rte_ring_create(name, c->ring_size,
						   (int)rte_socket_id(),
						   RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (fanout->rings[i] == NULL)
			die("cannot create fanout ring %u of %u ([rx] ring_size, a "
			    "power of two): %s", i, c->ring_size,
			    rte_strerror(rte_errno));
	}
}

/* One (NIC clock, TSC) pair: the TSC in the middle of the clock read. */
static int
nic_clock_pair(uint16_t port, uint64_t *clk, uint64_t *tsc)
{
	uint64_t a = rte_rdtsc_precise();
	int rc = rte_eth_read_clock(port, clk);
	uint64_t b = rte_rdtsc_precise();

	*tsc = a + (b - a) / 2;
	return rc;
}

void
app_nic_clock_init(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct app_nic_clock *nic = &a->nic;
	struct hgw_worker *const *w = a->w;
	uint64_t clk, tsc;
	int bit, off, rc;

	if (c->rx_ts != HGW_RX_TS_NIC)
		return;
	bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, NULL);
	rc = nic_clock_pair(c->rx_port, &nic->clk0, &nic->tsc0);
	if (bit < 0 || off < 0 || rc != 0)
		die("[rx] timestamp = nic: port %u gives no RX timestamps or "
		    "cannot read its clock (%s; use timestamp = tsc)",
		    c->rx_port, rc != 0 ? strerror(-rc) : "no mbuf field");
	rte_delay_us_sleep(20000);
	if (nic_clock_pair(c->rx_port, &clk, &tsc) != 0 ||
	    hgw_nic_clock_fit(&nic->shared.map, nic->clk0, nic->tsc0, clk,
			      tsc) != 0)
		die("[rx] timestamp = nic: port %u's clock does not advance",
		    c->rx_port);
	rte_seqcount_init(&nic->shared.seq);
	nic->refit_tsc = tsc;
	for (uint32_t i = 0; i < c->workers; i++) {
		w[i]->nic = &nic->shared;
		w[i]->ts_offset = off;
		w[i]->ts_flag = RTE_BIT64(bit);
	}
	printf("rx: arrival = NIC RX timestamp of a burst's first frame, "
	       "%.6f TSC cycles per NIC tick\n", nic->shared.map.tsc_per_tick);
}

/* Refit over the whole baseline about once a second (drift). */
void
app_nic_clock_refit(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct app_nic_clock *nic = &a->nic;
	struct hgw_nic_clock map;
	uint64_t clk, tsc;

	if (c->rx_ts != HGW_RX_TS_NIC ||
	    rte_rdtsc() - nic->refit_tsc < rte_get_tsc_hz())
		return;
	if (nic_clock_pair(c->rx_port, &clk, &tsc) != 0 ||
	    hgw_nic_clock_fit(&map, nic->clk0, nic->tsc0, clk, tsc) != 0)
		return;
	nic->refit_tsc = tsc;
	rte_seqcount_write_begin(&nic->shared.seq);
	nic->shared.map = map;
	rte_seqcount_write_end(&nic->shared.seq);
}

/* Paced replay: every worker gets the same t0, start_delay_ms from now,
 * so all of them are launched and waiting before the first deadline. */
uint64_t
app_pace_init(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *w = a->w;
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t t0 = rte_rdtsc() + hz / 1000 * c->start_delay_ms;
	uint64_t miss = hz / 1000000 * c->miss_us;
	int off = -1;
	uint64_t flag = 0;

	if (c->pace == HGW_PACE_PCAP) {
		int bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME,
						  NULL);

		off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME,
					       NULL);
		if (off < 0 || bit < 0)
			die("[replay] pace = pcap: port %u gives no RX timestamps "
			    "(use pace = rate)", c->rx_port);
		flag = RTE_BIT64(bit);
	}
	for (uint32_t i = 0; i < c->workers; i++) {
		w[i]->out.miss_tsc = miss;
		w[i]->pace = c->pace;
		if (c->pace == HGW_PACE_OFF)
			continue;
		w[i]->ts_offset = off;
		w[i]->ts_flag = flag;
		if (c->pace == HGW_PACE_PCAP)
			/* net_pcap stamps microseconds */
			hgw_pacer_init_pcap(&w[i]->pacer, t0, hz, 1e6, c->speed);
		else
			hgw_pacer_init_rate(&w[i]->pacer, t0, hz, c->pps,
					    c->pace_burst);
	}
	return miss;
}

void
app_idio_init(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct hgw_worker *const *w = a->w;
	uint32_t poison = hgw_config_poison_bytes(c);
	int active;
	const char *insn;

	hgw_idio_detect(&a->idio_cpu);
	insn = hgw_idio_inval_insn(&a->idio_cpu, c->invalidate, &active);
	for (uint32_t i = 0; i < c->workers; i++) {
		w[i]->cpu = &a->idio_cpu;
		w[i]->inval = active ? (enum hgw_idio_inval)c->invalidate :
				      HGW_IDIO_INVAL_OFF;
		w[i]->prefetch = (int)c->prefetch;
		hgw_idio_pf_init(&w[i]->pf, rte_get_tsc_hz() / 1000000000.0 *
				 c->prefetch_window_ns, c->prefetch_min_burst,
				 c->prefetch_depth);
		w[i]->poison_bytes = poison;
		w[i]->poison_every = c->poison_every;
		w[i]->idio_on = w[i]->inval != HGW_IDIO_INVAL_OFF || poison != 0;
	}
	printf("buffers: invalidate %s%s, prefetch %s, poison %s\n",
	       c->invalidate == HGW_IDIO_INVAL_OFF ? "off" : insn,
	       c->invalidate != HGW_IDIO_INVAL_OFF && !active ?
	       " (not on this CPU: off)" : "",
	       c->prefetch ? "on" : "off",
	       poison == 0 ? "off" : c->poison_every == 1 ? "every free" :
	       "sampled");
	if (c->prefetch)
		printf("buffers: prefetch up to %u packets into L2 when %u or "
		       "more arrive within %u ns\n", c->prefetch_depth,
		       c->prefetch_min_burst, c->prefetch_window_ns);
	if (poison != 0)
		printf("buffers: poison the first %u bytes of 1 free in %u\n",
		       poison, c->poison_every);
}

void
app_workers_init(struct hgw_app *a)
{
	const struct hgw_config *c = &a->conf;
	struct trading *t = &a->trading;
	struct hgw_worker **w = a->w;
	size_t booksz = hgw_book_memsize(&c->book);
	struct hgw_risk_conf rc;
	size_t risksz = 0;

	if (booksz == 0)
		die("[book] sizes invalid (instruments %u, orders %u, levels %u)",
		    c->book.max_instruments, c->book.max_orders,
		    c->book.max_levels);
	if (t->table != NULL) {
		risk_conf(c, &rc);
		risksz = hgw_risk_memsize(&rc);
		if (risksz == 0)
			die("[risk] configuration invalid");
	}
	for (uint32_t i = 0; i < c->workers; i++) {
		unsigned int lcore = a->worker_lcore[i];
		int socket = lcore_socket(lcore);
		void *mem;

		w[i] = lcore_zmalloc("hgw_worker", sizeof(*w[i]), lcore);
		if (w[i] == NULL)
			die("cannot allocate worker %u on socket %d", i,
			    socket);
		struct hgw_hist *hists[4];

		w[i]->snapshot = lcore_hists(lcore, c->latency_bits, hists, 4);
		w[i]->out.rx_to_tx = hists[0];
		w[i]->stage_book = hists[1];
		w[i]->lookup = hists[2];
		w[i]->stage_risk = hists[3];
		w[i]->lcore = lcore;
		w[i]->port = c->rx_port;
		w[i]->burst = c->burst;
		w[i]->drain_max = c->rx_desc;
		if (c->rx_mode == HGW_RX_FANOUT) {
			w[i]->rx_ring = a->fanout->rings[i];
			w[i]->fanout = a->fanout;
		}
		struct hgw_feed_conf fc = c->feed;

		fc.join_baseline = (uint8_t)(c->join == 1);
		fc.igmp_queries = c->igmp != HGW_IGMP_OFF ?
				  &w[i]->shared.igmp_queries : NULL;
		w[i]->lines = (uint16_t)c->lines;
		w[i]->queue = (uint16_t)(i * c->lines);
		w[i]->queue_b = (uint16_t)(i * c->lines + 1);
		w[i]->hold_on = c->lines == 2 || c->rq_server_ip != 0;
		w[i]->hold.max = c->hold_frames;
		w[i]->hold.wait_tsc = rte_get_tsc_hz() / 1000000 * c->hold_us;
		fc.hold_ahead = (uint8_t)w[i]->hold_on;
		if (c->rq_server_ip != 0) {
			struct hgw_recovery *r = &w[i]->rq;

			/* answers come unicast to where the request came from */
			fc.alt_ip = c->src_ip;
			fc.alt_port = (uint16_t)(c->rq_client_port + i);
			fc.alt_src = c->rq_server_ip;
			fc.alt_sport = c->rq_server_port;
			r->on = 1;
			memcpy(r->addr.src_mac, c->src_mac, 6);
			memcpy(r->addr.dst_mac, c->dst_mac, 6);
			r->addr.src_ip = c->src_ip;
			r->addr.dst_ip = c->rq_server_ip;
			r->addr.src_port = fc.alt_port;
			r->addr.dst_port = c->rq_server_port;
			r->timeout_tsc = rte_get_tsc_hz() / 1000 * c->rq_timeout_ms;
			r->retries = c->rq_retries;
			r->max_messages = c->rq_max_messages;
		}
		hgw_feed_init(&w[i]->feed, &fc);
		w[i]->warmup_messages = c->warmup_messages;
		w[i]->stage_every = w[i]->stage_left = c->stage_sample;
		mem = rte_zmalloc_socket("hgw_book", booksz, RTE_CACHE_LINE_SIZE,
					 socket);
		if (mem == NULL)
			die("cannot allocate %zu MB for worker %u's book (reduce "
			    "[book] orders/levels/instruments or give EAL more "
			    "memory with -m)", booksz >> 20, i);
		w[i]->book = hgw_book_init(mem, &c->book);
		if (t->table != NULL) {
			mem = rte_zmalloc_socket("hgw_risk", risksz,
						 RTE_CACHE_LINE_SIZE, socket);
			if (mem == NULL)
				die("cannot allocate %zu KB of risk state for "
				    "worker %u", risksz >> 10, i);
			w[i]->risk = hgw_risk_init(mem, &rc);
			w[i]->venue = rc.venue;
			/* each worker reads its own replica; with one per
			 * worker it is also the replica's one writer (patch
			 * events), else live patches are refused */
			w[i]->table = &t->tables.t[i % t->tables.n];
			if (t->tables.n >= c->workers)
				w[i]->table_rw = &t->tables.t[i];
			w[i]->tx_pool = t->tx_pool;
			w[i]->dedup = t->dedup;
			if (c->dedup == HGW_DEDUP_MODE_TXLCORE || t->dlg) {
				w[i]->out.ring = a->txlcore->rings[i];
				w[i]->txl = a->txlcore;
			} else {
				w[i]->out.port = c->tx_port;
				w[i]->out.queue = (uint16_t)i;
				/* a refused order is lost where it is the
				 * only copy: claim mode, or one worker (in
				 * none and downstream modes other copies
				 * may have left) */
				if (c->dedup == HGW_DEDUP_MODE_CLAIM ||
				    c->workers == 1)
					w[i]->out.refused =
						&w[i]->shared.refused;
				w[i]->out.journal = t->journal ?
					hgw_journal_tx(t->journal) : NULL;
			}
			if (t->dlg != NULL) {
				/* its own segments on TX queue 1 + i of the
				 * order port (0: the TX lcore's) */
				w[i]->dlg = t->dlg;
				w[i]->dlg_tx.port = c->tx_port;
				w[i]->dlg_tx.txq = (uint16_t)(i + 1);
				if (hgw_tcp_dlg_register(t->dlg,
							 &w[i]->dlg_tx) != 0)
					die("[run] workers = %u: at most %u with "
					    "[venue] stack = dpdk in claim mode",
					    c->workers, HGW_TCP_DLG_SENDERS);
				a->txlcore->dlg_pending[i] =
					&w[i]->shared.dlg_pending;
			}
			w[i]->capacity = (uint8_t)c->capacity;
			memcpy(w[i]->udp.src_mac, c->src_mac, 6);
			memcpy(w[i]->udp.dst_mac, c->dst_mac, 6);
			w[i]->udp.src_ip = c->src_ip;
			w[i]->udp.dst_ip = c->dst_ip;
			w[i]->udp.src_port = c->src_port;
			w[i]->udp.dst_port = c->dst_port;
			hgw_udp_tx_init(&w[i]->udp);
		}
	}
}

#if HGW_TEST_HOOKS
void
app_claims_init(struct hgw_app *a)
{
	struct hgw_worker *const *w = a->w;
	uint32_t n = a->conf.workers;

	for (uint32_t i = 0; i < n; i++) {
		struct hgw_hooks *k = &w[i]->hooks;

		k->claims = rte_malloc_socket("hgw_claims", CLAIMS_MAX *
					      sizeof(*k->claims),
					      RTE_CACHE_LINE_SIZE,
					      rte_lcore_to_socket_id(w[i]->lcore));
		if (k->claims == NULL)
			die("--claims: cannot allocate %u MB for worker %u",
			    (unsigned int)(CLAIMS_MAX * sizeof(*k->claims) >> 20),
			    i);
		k->claims_max = CLAIMS_MAX;
	}
}

void
app_inject_init(struct hgw_app *app)
{
	struct hgw_worker *const *w = app->w;
	const struct app_args *a = &app->args;
	const struct inject_arg *st = &a->inject[0], *sp = &a->inject[1];

	if (st->worker != UINT32_MAX) {
		struct hgw_inject *j = &w[st->worker]->hooks.inject;

		j->stall_us = st->a;
		j->stall_every = st->b;
		j->rng = 0x9e3779b97f4a7c15ULL ^ st->worker;
		j->countdown = st->b;
		RTE_LOG(WARNING, HGW_APP, "test: worker %u stalls %u us every "
			"~%u messages\n", st->worker, st->a, st->b);
	}
	if (a->inject[2].worker != UINT32_MAX) {
		w[a->inject[2].worker]->hooks.inject.corrupt_at = a->inject[2].a;
		RTE_LOG(WARNING, HGW_APP, "test: worker %u corrupts decision "
			"%u\n", a->inject[2].worker, a->inject[2].a);
	}
	if (sp->worker != UINT32_MAX) {
		w[sp->worker]->hooks.inject.stop_after = sp->a;
		RTE_LOG(WARNING, HGW_APP, "test: worker %u stops after %u "
			"frames\n", sp->worker, sp->a);
	}
}
#else
/* no test hooks: the command line refused --inject-* and --claims */
void app_claims_init(struct hgw_app *a) { RTE_SET_USED(a); }
void app_inject_init(struct hgw_app *a) { RTE_SET_USED(a); }
#endif
