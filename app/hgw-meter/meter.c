/* SPDX-License-Identifier: BSD-3-Clause
 * hgw-meter: external replay and wire-to-wire meter.
 *
 *   hgw-meter [EAL args] -- --pcap FEED.pcap [options]
 *
 * A separate DPDK process that plays a capture into hedgewire over a
 * port and receives hedgewire's orders on the same or another port: the
 * view from outside the box, both hops included. On one host the port is
 * a memif "wire" between the two processes: the meter is the memif server
 * (it starts first and waits for the link), hedgewire the client:
 *
 *   hgw-meter -l0 --file-prefix m \
 *       --vdev net_memif0,role=server,socket=S,socket-abstract=no \
 *       -- --pcap feed.pcap --copies 2 --pace rate --pps 20000
 *   (once it has printed its "port" line:)
 *   hedgewire -l0-2 --file-prefix h \
 *       --vdev net_memif0,role=client,socket=S,socket-abstract=no \
 *       -- -c conf.ini --set run.workers=2 \
 *       --set run.stop_at_end_of_session=no --set run.idle_timeout_ms=0
 *   (once the meter has printed "done": stop hedgewire, SIGTERM)
 *
 * The order matters on memif (DPDK 22.11): the client connects once and
 * does not retry, so the server must be listening and started; and the
 * PMD unmaps the shared memory on disconnect, under a peer that may be
 * inside rx_burst, which faults it. So neither side may close while the
 * other polls: hedgewire must not stop on its own during the run, and
 * the meter, after its report, holds the wire (polling nothing) until
 * hedgewire has disconnected (--hold-ms). The server takes the number of
 * queues the client asks for, up to its own: a copy queue the client did
 * not connect takes nothing, and is given up after --stall-ms, counted.
 * Each side masks the interrupts of the rings it polls, so tx_burst on
 * memif makes no system call.
 *
 * The meter is the duplicating switch: every packet leaves on --copies TX
 * queues, one per hedgewire worker (memif queue q reaches worker q's RX
 * queue), and each worker's orders come back on its own TX queue, that is
 * the meter's RX queue q. On a lab host the port is a NIC.
 *
 * Every order is matched to its trigger from its ClOrdID (the session's
 * last 4 characters and the sequence number mod 10^10,
 * docs/protocols.md "Order bytes"; the UserRefNum must agree): the ITCH
 * message with that sequence number, carried by one packet of the capture.
 * Its latency is the TSC when rx_burst returned the order minus the TSC
 * read just before the
 * first tx_burst of that packet (queue 0: the copies for the other queues
 * are handed over right after, in queue order). With --expect (an orders
 * pcap, e.g. from tests/ref/hgw_ref.py) every expected trigger must get
 * exactly one order: the others are counted as misses, never dropped.
 *
 * With --retrans IP:PORT the meter is also the MoldUDP64 re-request
 * server (lib/mold): a request to that address on RX queue q is answered
 * on TX queue q, so the worker that saw the gap gets the messages, by
 * unicast to the requester, with the capture's messages of that session
 * and those sequence numbers (indexed at start-up: the ones a packet of
 * the capture carries for the first time, as the decoder sees them), at
 * most --retrans-max, in packets of at most 1400 bytes of UDP payload.
 * Requests are served during the replay and, unlike anything else, while
 * the meter holds the wire after its report: a worker may still be
 * asking then. That reopens the memif race above on the meter's side;
 * hold_wire says how far it is narrowed. --drop Q:A-B keeps frames A..B
 * off queue Q: a gap that only worker Q sees, for the server to fill.
 *
 * One lcore: the sender polls the order queues while it waits for the
 * next release time and while a TX queue is full. After start-up there
 * is no allocation and no system call: packets are loaded into mbufs once
 * and sent again and again with a reference per copy.
 */
#include "meter_int.h"
#include "meter_match.h"

const char *const meter_pace_names[] = {
	[PACE_PCAP] = "pcap", [PACE_RATE] = "rate", [PACE_TOP] = "top",
};

_Atomic int meter_stop;

static void
on_signal(int sig)
{
	(void)sig;
	atomic_store_explicit(&meter_stop, 1, memory_order_relaxed);
}

static void
port_start(uint16_t port, uint16_t nrx, uint16_t ntx, struct rte_mempool *mp,
	   const char *what)
{
	char err[256], warn[128], whatv[48], tx_why[32], rx_why[40];
	/* no RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE: the copies share mbufs;
	 * orders may go to any address: take them all */
	struct hgw_port_conf pc = { .nrx = nrx, .ntx = ntx, .rx_pool = mp,
				    .rx = HGW_PORT_RX_PROMISC, .what = whatv,
				    .rx_why = rx_why, .tx_why = tx_why };

	snprintf(whatv, sizeof(whatv), "%s %u", what, port);
	snprintf(tx_why, sizeof(tx_why), "--copies %u", ntx);
	snprintf(rx_why, sizeof(rx_why), "--order-queues %u", nrx);
	if (hgw_port_start(port, &pc, err, sizeof(err), warn,
			   sizeof(warn)) != 0)
		die("%s", err);
	if (warn[0] != '\0')
		fprintf(stderr, PROG ": %s\n", warn);
}

/* Wait until every port's link is up, or die after ms milliseconds. */
static void
link_wait(const uint16_t *ports, uint32_t n, uint32_t ms)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t start = rte_get_timer_cycles();

	for (;;) {
		uint32_t down = n;

		for (uint32_t i = 0; i < n; i++) {
			if (hgw_port_link_up(ports[i])) {
				down--;
				continue;
			}
			if (rte_get_timer_cycles() - start > hz / 1000 * ms)
				die("port %u (%s): link still down after %u ms "
				    "(--link-timeout-ms): is hedgewire running "
				    "and connected? (memif: the meter is the server, "
				    "hedgewire role=client on the same socket, "
				    "started after the meter, with no more queues "
				    "than --copies)", ports[i], hgw_port_driver(ports[i]),
				    ms);
		}
		if (down == 0 || stopped())
			return;
		rte_delay_us_sleep(10000);
	}
}

/* A memif peer that still polls faults if the shared memory goes away
 * under it (the PMD unmaps it on disconnect while the peer may be inside
 * rx_burst): hold the wire until the peer has stopped and disconnected,
 * at most ms milliseconds. Without --retrans nothing is polled meanwhile,
 * so the same race cannot hit the meter. With it, the peer may still ask
 * for messages it missed, so the RX queues are polled, but only every
 * HOLD_POLL_US and only right after the link was seen up: the PMD's
 * control thread marks the link down before it unmaps, so the meter can
 * only fault if it is inside one rx_burst or tx_burst at the very moment
 * of the unmap (DPDK gives no hook to close that window), which the low
 * duty cycle makes unlikely rather than impossible. Other drivers close
 * at once. */
#define HOLD_POLL_US 200
#define HOLD_SETTLE_MS 100
static void
hold_wire(struct meter *m, const uint16_t *ports, uint32_t n, uint32_t ms)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t start = rte_get_timer_cycles();
	uint32_t memif = 0;

	for (uint32_t i = 0; i < n; i++)
		memif += hgw_port_is_memif(ports[i]);
	if (memif == 0 || ms == 0 || stopped())
		return;
	printf(PROG ": holding the memif wire until the peer disconnects (stop "
	       "hedgewire now; at most %u ms, --hold-ms)\n", ms);
	fflush(stdout);
	for (;;) {
		uint32_t up = 0;

		for (uint32_t i = 0; i < n; i++) {
			if (hgw_port_is_memif(ports[i]) &&
			    hgw_port_link_up(ports[i]))
				up++;
		}
		if (up == 0) {
			/* The PMD's control thread marks the link down first
			 * and tears the connection down after: closing the
			 * port meanwhile would run that teardown twice at
			 * once (a fault seen once polling every 200 us). Give
			 * it time to finish. */
			rte_delay_us_sleep(HOLD_SETTLE_MS * 1000);
			return;
		}
		if (stopped())
			break;
		if (rte_get_timer_cycles() - start > hz / 1000 * ms) {
			printf(PROG ": the peer is still connected after %u ms: "
			       "closing the wire under it\n", ms);
			break;
		}
		if (m->rt_on && up == memif) {
			meter_poll_orders(m);
			rte_delay_us_sleep(HOLD_POLL_US);
		} else {
			rte_delay_us_sleep(10000);
		}
	}
}

int
main(int argc, char **argv)
{
	static struct meter m;
	struct rte_mempool *rx_pool;
	struct opts o;
	uint16_t ports[2];
	uint32_t nports;
	uint64_t t_start;
	long ncpu;
	int rc;

	hgw_cli_version("hgw-meter", argc, argv);
	rc = rte_eal_init(argc, argv);

	if (rc < 0)
		die("EAL init failed: %s", rte_strerror(rte_errno));
	meter_parse(argc - rc, argv + rc, &o);
	if (!rte_eth_dev_is_valid_port(o.port) ||
	    !rte_eth_dev_is_valid_port(o.order_port))
		die("--port %u / --order-port %u: no such DPDK port (%u available; "
		    "pass a device or --vdev in the EAL args)", o.port,
		    o.order_port, rte_eth_dev_count_avail());
	m.port = o.port;
	m.oport = o.order_port;
	m.copies = o.copies;
	m.nrxq = o.order_queues;
	m.stall_tsc = rte_get_tsc_hz() / 1000 * o.stall_ms;
	m.timeout_tsc = (uint64_t)((double)rte_get_tsc_hz() / 1e6 *
				   (double)o.timeout_us);
	m.drops = o.drops;
	m.ndrops = o.ndrops;
	for (uint32_t i = 0; i < o.ndrops; i++)
		m.qdrops[o.drops[i].q] = 1;
	m.rt_on = o.retrans;
	m.rt_ip = o.rt_ip;
	m.rt_port = o.rt_port;
	m.rt_max = o.rt_max;
	hgw_hist_init(&m.w2w);
	hgw_hist_init(&m.lag);

	meter_capture_load(&m, &o);
	if (o.expect != NULL)
		meter_expect_load(&m, o.expect);

	rx_pool = rte_pktmbuf_pool_create("hgw_meter_rx", o.mbufs,
					  RTE_MIN(256u, o.mbufs / 8), 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE,
					  rte_eth_dev_socket_id(o.order_port));
	m.cp_pool = rx_pool;
	if (rx_pool == NULL)
		die("cannot create an RX pool of %u mbufs (--mbufs): %s",
		    o.mbufs, rte_strerror(rte_errno));
	if (o.port == o.order_port) {
		port_start(o.port, o.order_queues, o.copies, rx_pool, "--port");
		ports[0] = o.port;
		nports = 1;
	} else {
		port_start(o.port, 0, o.copies, rx_pool, "--port");
		port_start(o.order_port, o.order_queues, 0, rx_pool,
			   "--order-port");
		ports[0] = o.port;
		ports[1] = o.order_port;
		nports = 2;
	}
	if (o.retrans) {
		/* answers are built in these, at most a burst per TX queue
		 * in flight beyond what the TX rings hold */
		uint32_t n = 1024u * o.copies + 1023u;

		rc = rte_eth_macaddr_get(o.port, &m.mac);
		if (rc != 0)
			die("port %u: cannot get its MAC address: %s", o.port,
			    strerror(-rc));
		m.rt_pool = rte_pktmbuf_pool_create("hgw_meter_retrans", n,
					RTE_MIN(256u, n / 8), 0,
					RTE_MBUF_DEFAULT_BUF_SIZE,
					rte_eth_dev_socket_id(o.port));
		if (m.rt_pool == NULL)
			die("cannot create a pool of %u mbufs for --retrans "
			    "answers: %s (more EAL memory: -m)", n,
			    rte_strerror(rte_errno));
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	printf(PROG ": %s: %u packets, %" PRIu64 " messages (possible triggers) "
	       "in %u session%s",
	       o.pcap, m.npkts, m.nmsgs, m.nsessions,
	       m.nsessions == 1 ? "" : "s");
	for (uint32_t s = 0; s < m.nsessions; s++)
		printf(" '%.10s'", m.sessions[s].name);
	if (m.no_trigger)
		printf(", %" PRIu64 " frames with no new trigger (%" PRIu64
		       " duplicates, %" PRIu64 " not the feed, the rest heartbeats "
		       "or end of session; sent all the same)", m.no_trigger,
		       m.dup_frames, m.non_feed);
	if (m.capture_truncated)
		printf(", %" PRIu64 " frames cut short by the capture (sent as "
		       "captured)", m.capture_truncated);
	if (m.ts_backwards)
		printf(", %" PRIu64 " timestamps going back (released with the "
		       "previous frame)", m.ts_backwards);
	printf("\n");
	printf(PROG ": port %u (%s) x %u TX queue%s (one copy per hedgewire "
	       "worker), orders on port %u (%s) x %u RX queue%s; pace %s",
	       o.port, hgw_port_driver(o.port), o.copies, o.copies == 1 ? "" : "s",
	       o.order_port, hgw_port_driver(o.order_port), o.order_queues,
	       o.order_queues == 1 ? "" : "s", meter_pace_names[o.pace]);
	if (o.pace == PACE_PCAP)
		printf(" x%g", o.speed);
	else if (o.pace == PACE_RATE)
		printf(" %" PRIu64 " packets/s", o.pps);
	printf(", loops %u, timeout %" PRIu64 " us", o.loops, o.timeout_us);
	if (o.expect != NULL)
		printf(", expecting %" PRIu64 " orders (%s)",
		       (uint64_t)m.nexp + m.expected_unknown, o.expect);
	printf("\n");
	if (o.retrans) {
		char ip[INET_ADDRSTRLEN];
		struct in_addr a = { .s_addr = htonl(o.rt_ip) };

		inet_ntop(AF_INET, &a, ip, sizeof(ip));
		printf(PROG ": re-request server %s:%u (MAC " RTE_ETHER_ADDR_PRT_FMT
		       "), at most %u messages per request, %u bytes of UDP "
		       "payload per packet\n", ip, o.rt_port,
		       RTE_ETHER_ADDR_BYTES(&m.mac), o.rt_max, RT_PAYLOAD);
	}
	for (uint32_t i = 0; i < o.ndrops; i++)
		printf(PROG ": --%s: frames %u to %u %s on queue %u\n",
		       o.drops[i].corrupt ? "corrupt" : "drop",
		       o.drops[i].a, o.drops[i].b,
		       o.drops[i].corrupt ? "sent damaged" : "not sent",
		       o.drops[i].q);
	/* The meter polls one lcore; hedgewire needs one per worker and a
	 * main lcore (asleep most of the time). Fewer CPUs than that and
	 * they time-share: the latencies include it. */
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 0 && ncpu < 2 + o.copies)
		printf("note: %s share %ld CPUs (the meter's lcore %u on CPU %d, "
		       "hedgewire's %u worker%s and main lcore): the latencies "
		       "include their contention\n",
		       hgw_port_is_memif(o.port) ?
		       "meter and hedgewire" :
		       "if hedgewire runs on this host, meter and hedgewire",
		       ncpu, rte_lcore_id(), sched_getcpu(), o.copies,
		       o.copies == 1 ? "" : "s");
	fflush(stdout);

	link_wait(ports, nports, o.link_ms);
	meter_poll_for(&m, o.settle_ms);

	t_start = rte_rdtsc();
	for (uint32_t l = 0; l < o.loops && !stopped(); l++)
		meter_replay_once(&m, rte_rdtsc());
	double secs = (double)(rte_rdtsc() - t_start) / (double)rte_get_tsc_hz();

	meter_poll_for(&m, o.wait_ms);
	if (stopped())
		printf(PROG ": stopped on a signal\n");
	if (m.exp != NULL)
		meter_count_no_order(&m);
	meter_report(&m, &o, secs);
	if (o.csv != NULL) {
		meter_write_csv(&m.w2w, o.csv, "wire_to_wire");
		meter_write_csv(&m.lag, o.csv, "send_lag");
	}
	printf(PROG ": done\n");
	fflush(stdout);
	m.holding = 1;
	hold_wire(&m, ports, nports, o.hold_ms);
	if (o.retrans)
		meter_report_retrans(&m);     /* after the hold: its requests count */
	if (o.json != NULL)
		meter_write_json(&m, &o);

	for (uint32_t i = 0; i < nports; i++) {
		rte_eth_dev_stop(ports[i]);
		rte_eth_dev_close(ports[i]);
	}
	rte_eal_cleanup();
	return 0;
}
