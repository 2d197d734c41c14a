/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire benchmark: what sending one small order costs through lwIP's
 * raw TCP API (the system liblwip with its threading as packaged: NO_SYS 0,
 * core locking, its own tcpip thread) vs a segment built by hand.
 *
 *   lwip_send [sends]            (default 200000 per method; run pinned)
 *
 * Two ethernet netifs in one stack, A 10.9.0.1 and B 10.9.0.2 (etharp
 * output, ARP resolved at connect); A connects to B's listener, Nagle off.
 * A send is LOCK_TCPIP_CORE, tcp_write(52 bytes, COPY), tcp_output,
 * UNLOCK_TCPIP_CORE, timed with the TSC from before the lock to A's
 * linkoutput ("->linkout") and to after the unlock ("call"). linkoutput
 * copies the frame into a ring slot, as a driver into a TX buffer. Off the
 * clock the bench thread feeds that ring to B (ethernet_input under the
 * core lock) and waits until A has nothing unsent, at most 2 KB in flight
 * and 32 pbufs queued. B's ACKs reach A either "rx-inline" (a ring the
 * bench thread feeds to A off the clock: the sender alone, only the tcpip
 * thread's timers running) or "rx-tcpip" (tcpip_input, as the packaged
 * port takes received frames: the tcpip thread processes them, competing
 * with the sends for the core lock and the CPU). "hand-built" fills seq,
 * ack, window, IP id and payload into a 14+20+20-byte template, computes
 * both checksums (RFC 1071, 64-bit accumulator) and copies the 106-byte
 * frame into a ring slot.
 *
 * Allocations: this program defines malloc/calloc/realloc, forwarding to
 * glibc's __libc_*; liblwip.so calls them through its PLT, so its calls
 * land here (ELF interposition, no preload). Counted in a pass of 10000
 * sends before each timed pass (timed passes count nothing), not counting
 * frames the test injects: "alloc/s" is the bench thread within the timed
 * call, "all/s" all threads (ACK processing, timers), per send.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <x86intrin.h>

#include "lwip/init.h"
#include "lwip/tcpip.h"
#include "lwip/tcp.h"
#include "lwip/etharp.h"
#include "lwip/ethip6.h"
#include "lwip/inet_chksum.h"
#include "netif/ethernet.h"

#define PAYLOAD 52              /* a SoupBinTCP-framed Enter Order is 50 */
#define PORT 15000
#define RING 1024
#define SLOT 1536
#define COUNT_SENDS 10000
#define WARMUP 20000

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static atomic_int counting;
static atomic_ulong n_all;
static _Thread_local unsigned long n_mine;
static _Thread_local int injecting;

static inline void
count(void)
{
	if (atomic_load_explicit(&counting, memory_order_relaxed) && !injecting) {
		n_mine++;
		atomic_fetch_add_explicit(&n_all, 1, memory_order_relaxed);
	}
}
void *malloc(size_t n) { count(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { count(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { count(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }

static double ns_per_tick;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
tsc(void)
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

/* The wire: rings of frame slots. */
struct ring {
	uint32_t head, tail;
	uint16_t len[RING];
	uint8_t buf[RING][SLOT];
};
static struct ring ab, ba, txd;  /* A->B, B->A, hand-built TX */
static unsigned long dropped, missed;
static struct netif na, nb;
static uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 1 }, mac_b[6] = { 2, 0, 0, 0, 0, 2 };
static int rx_tcpip, armed;     /* these two and t_link: core lock held */
static uint64_t t_link;

static struct pbuf *
inject(const void *frame, uint16_t len)
{
	injecting = 1;
	struct pbuf *q = pbuf_alloc(PBUF_RAW, len, PBUF_RAM);
	injecting = 0;
	if (q != NULL)
		memcpy(q->payload, frame, len);
	return q;
}

static void
ring_put(struct ring *r, struct pbuf *p)
{
	if (r->head - r->tail == RING || p->tot_len > SLOT) {
		dropped++;
		return;
	}
	r->len[r->head % RING] = pbuf_copy_partial(p, r->buf[r->head % RING],
						   p->tot_len, 0);
	r->head++;
}

static err_t
linkout(struct netif *n, struct pbuf *p)
{
	uint8_t f[SLOT];
	struct pbuf *q;

	if (n == &na) {
		if (armed)
			t_link = tsc(), armed = 0;
		ring_put(&ab, p);
	} else if (!rx_tcpip) {
		ring_put(&ba, p);
	} else {
		q = inject(f, pbuf_copy_partial(p, f, sizeof(f), 0));
		if (q == NULL || tcpip_input(q, &na) != ERR_OK) {
			dropped++;
			if (q != NULL)
				pbuf_free(q);
		}
	}
	return ERR_OK;
}

static err_t
if_init(struct netif *n)
{
	n->hwaddr_len = 6;
	memcpy(n->hwaddr, n->state, 6);
	n->mtu = 1500;
	n->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP |
		NETIF_FLAG_ETHERNET | NETIF_FLAG_LINK_UP;
	n->output = etharp_output;
	n->output_ip6 = ethip6_output;
	n->linkoutput = linkout;
	return ERR_OK;
}

/* Feed the rings to their netifs until both are empty. Core lock held. */
static void
pump(void)
{
	while (ab.tail != ab.head || ba.tail != ba.head) {
		struct ring *r = ab.tail != ab.head ? &ab : &ba;
		uint32_t i = r->tail++ % RING;
		struct pbuf *q = inject(r->buf[i], r->len[i]);

		if (q != NULL && ethernet_input(q, r == &ab ? &nb : &na) != ERR_OK)
			pbuf_free(q);
	}
}

static struct tcp_pcb *pa, *pb;
static int connected;
static uint64_t rx_bytes;
static atomic_int tcpip_up;
static pid_t tcpip_tid;

static err_t
on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	(void)arg; (void)err;
	if (p == NULL)
		return tcp_close(pcb);
	rx_bytes += p->tot_len;
	tcp_recved(pcb, p->tot_len);
	pbuf_free(p);
	return ERR_OK;
}

static err_t
on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg; (void)err;
	tcp_recv(pb = pcb, on_recv);
	return ERR_OK;
}

static err_t
on_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg; (void)pcb;
	connected = err == ERR_OK;
	return ERR_OK;
}

static void
init_done(void *arg)
{
	(void)arg;
	tcpip_tid = gettid();
	atomic_store(&tcpip_up, 1);
}

static uint8_t order[PAYLOAD] = { 0, 50, 'U', 'O' };

static void
lwip_send(uint64_t *to_link, uint64_t *call, unsigned long *allocs)
{
	LOCK_TCPIP_CORE();
	pump();         /* rx-inline: both ways; rx-tcpip: A->B only */
	while (pa->unsent != NULL || pa->snd_nxt - pa->lastack > 2048 ||
	       tcp_sndqueuelen(pa) > 32) {
		UNLOCK_TCPIP_CORE();
		usleep(20);
		LOCK_TCPIP_CORE();
		pump();
	}
	UNLOCK_TCPIP_CORE();
	order[8]++;

	unsigned long a0 = n_mine;
	uint64_t t0 = tsc();
	LOCK_TCPIP_CORE();
	armed = 1;
	if (tcp_write(pa, order, PAYLOAD, TCP_WRITE_FLAG_COPY) == ERR_OK)
		tcp_output(pa);
	int miss = armed;
	armed = 0;
	UNLOCK_TCPIP_CORE();
	uint64_t t2 = tsc();

	*allocs += n_mine - a0;
	missed += miss;
	*to_link = miss ? t2 - t0 : t_link - t0;
	*call = t2 - t0;
}

static uint8_t tmpl[128] __attribute__((aligned(64))) = {
	2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0,            /* Ethernet */
	0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 9, 0, 1, 10, 9, 0, 2,
	0xc0, 0, 0x3a, 0x98, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x18 /* PSH|ACK */
};
static uint32_t hb_seq = 1000, hb_ack = 5000;
static uint16_t hb_id;

/* RFC 1071: 32-bit words summed into 64 bits (fine below 16 GB) */
static uint64_t
sum32(const uint8_t *b, size_t n, uint64_t s)
{
	uint32_t w;

	for (; n >= 4; n -= 4, b += 4) {
		memcpy(&w, b, 4);
		s += w;
	}
	w = 0;
	memcpy(&w, b, n);       /* tail, zero padded (little endian) */
	return s + w;
}

static uint16_t
fold(uint64_t s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static uint16_t
hb_build(uint8_t *f)
{
	uint8_t *ip = f + 14, *th = ip + 20;
	uint64_t s;

	put16(ip + 2, htons(20 + 20 + PAYLOAD));
	put16(ip + 4, htons(hb_id++));
	put16(ip + 10, 0);
	put32(th + 4, htonl(hb_seq));
	hb_seq += PAYLOAD;
	put32(th + 8, htonl(hb_ack));
	put16(th + 14, htons(0xffff));
	put16(th + 16, 0);
	memcpy(th + 20, order, PAYLOAD);
	put16(ip + 10, fold(sum32(ip, 20, 0)));
	s = sum32(ip + 12, 8, (uint64_t)htons(6) + htons(20 + PAYLOAD));
	put16(th + 16, fold(sum32(th, 20 + PAYLOAD, s)));
	return 14 + 20 + 20 + PAYLOAD;
}

static void
hb_send(uint64_t *to_tx, uint64_t *call, unsigned long *allocs)
{
	unsigned long a0 = n_mine;

	order[8]++;
	uint64_t t0 = tsc();
	uint16_t len = hb_build(tmpl);

	memcpy(txd.buf[txd.head++ % RING], tmpl, len);
	*to_tx = *call = tsc() - t0;
	*allocs += n_mine - a0;
}

/* Our sums against lwIP's on one frame: IPv4 header and TCP pseudo sum. */
static int
hb_check(void)
{
	uint8_t f[128];
	uint16_t len, tcs;
	ip4_addr_t src, dst;
	struct pbuf *p;

	memcpy(f, tmpl, sizeof(f));
	len = hb_build(f);
	memcpy(&tcs, f + 50, 2);
	put16(f + 50, 0);
	p = pbuf_alloc(PBUF_RAW, len - 34, PBUF_RAM);
	memcpy(p->payload, f + 34, len - 34);
	memcpy(&src.addr, f + 26, 4);
	memcpy(&dst.addr, f + 30, 4);
	u16_t ref = inet_chksum_pseudo(p, IP_PROTO_TCP, len - 34, &src, &dst);
	pbuf_free(p);
	return fold(sum32(f + 14, 20, 0)) == 0 && ref == tcs;
}

static int
cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
row(const char *name, const char *what, uint64_t *v, size_t n,
    double al_mine, double al_all)
{
	static const double q[] = { 0.50, 0.99, 0.999, 0.9999 };
	char label[64];

	qsort(v, n, sizeof(*v), cmp64);
	snprintf(label, sizeof(label), "%s %s", name, what);
	printf("%-24s", label);
	for (int i = 0; i < 4; i++)
		printf(" %7.0f", (double)v[(size_t)(q[i] * (double)(n - 1))] * ns_per_tick);
	printf(" %8.0f %7.2f %7.2f\n", (double)v[n - 1] * ns_per_tick, al_mine, al_all);
}

/* voluntary and involuntary context switches of one thread */
static void
ctxsw(pid_t tid, long *sw)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	sw[0] = sw[1] = -1;
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "voluntary_ctxt_switches: %ld", &sw[0]);
		sscanf(line, "nonvoluntary_ctxt_switches: %ld", &sw[1]);
	}
	fclose(f);
}

static uint64_t *lat_link, *lat_call;

/* A counting pass, then n timed sends: one or two rows of the table. */
static void
run(const char *name, void (*send)(uint64_t *, uint64_t *, unsigned long *),
    size_t n, int tcpip_rx)
{
	unsigned long al = 0, all0 = atomic_load(&n_all);
	uint64_t l, c;
	long sw[8];

	LOCK_TCPIP_CORE();
	rx_tcpip = tcpip_rx;
	UNLOCK_TCPIP_CORE();
	atomic_store(&counting, 1);
	for (size_t i = 0; i < COUNT_SENDS; i++)
		send(&l, &c, &al);
	atomic_store(&counting, 0);
	double al_mine = (double)al / COUNT_SENDS;
	double al_all = (double)(atomic_load(&n_all) - all0) / COUNT_SENDS;

	ctxsw(tcpip_tid, sw);
	ctxsw(gettid(), sw + 2);
	uint64_t w0 = now_ns();
	for (size_t i = 0; i < n; i++)
		send(&lat_link[i], &lat_call[i], &al);
	uint64_t w1 = now_ns();
	ctxsw(tcpip_tid, sw + 4);
	ctxsw(gettid(), sw + 6);

	if (send == lwip_send)
		row(name, "->linkout", lat_link, n, al_mine, al_all);
	row(name, "call", lat_call, n, al_mine, al_all);
	printf("  (%.2f s; context switches: tcpip thread %ld vol %ld invol,"
	       " bench thread %ld vol %ld invol)\n", (double)(w1 - w0) / 1e9,
	       sw[4] - sw[0], sw[5] - sw[1], sw[6] - sw[2], sw[7] - sw[3]);
}

int
main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
	struct timespec d = { 0, 200000000 };
	ip_addr_t ip_a, ip_b;
	ip4_addr_t mask, gw;
	uint64_t l, c, n0 = now_ns(), t0 = tsc();
	unsigned long al;

	nanosleep(&d, NULL);
	ns_per_tick = (double)(now_ns() - n0) / (double)(tsc() - t0);
	n = n < 1 ? 1 : n;
	lat_link = calloc(n, sizeof(*lat_link));
	lat_call = calloc(n, sizeof(*lat_call));
	tcpip_init(init_done, NULL);
	while (!atomic_load(&tcpip_up))
		usleep(1000);

	IP_ADDR4(&ip_a, 10, 9, 0, 1);
	IP_ADDR4(&ip_b, 10, 9, 0, 2);
	IP4_ADDR(&mask, 255, 255, 255, 0);
	ip4_addr_set_zero(&gw);
	LOCK_TCPIP_CORE();
	netif_add(&na, ip_2_ip4(&ip_a), &mask, &gw, mac_a, if_init, tcpip_input);
	netif_add(&nb, ip_2_ip4(&ip_b), &mask, &gw, mac_b, if_init, tcpip_input);
	netif_set_up(&na);
	netif_set_up(&nb);
	struct tcp_pcb *lp = tcp_new();
	tcp_bind_netif(lp, &nb);        /* both addresses are local: pin routes */
	tcp_bind(lp, &ip_b, PORT);
	lp = tcp_listen(lp);
	tcp_accept(lp, on_accept);
	pa = tcp_new();
	tcp_bind_netif(pa, &na);
	tcp_nagle_disable(pa);
	tcp_connect(pa, &ip_b, PORT, on_connected);
	pump();
	UNLOCK_TCPIP_CORE();
	if (!connected || pb == NULL || !hb_check()) {
		fprintf(stderr, "lwip_send: %s\n", connected && pb != NULL ?
			"hand-built checksums disagree with lwIP's" :
			"connection not established");
		return 1;
	}
	for (int i = 0; i < WARMUP; i++)
		lwip_send(&l, &c, &al);

	printf("lwIP %s, %zu sends of %d bytes per method, %.3f ns/tick\n",
	       LWIP_VERSION_STRING, n, PAYLOAD, ns_per_tick);
	printf("%-24s %7s %7s %7s %7s %8s %7s %7s\n", "method (ns)", "p50",
	       "p99", "p99.9", "p99.99", "max", "alloc/s", "all/s");
	run("lwip rx-inline", lwip_send, n, 0);
	run("lwip rx-tcpip", lwip_send, n, 1);
	run("hand-built", hb_send, n, 0);

	usleep(300000);         /* the tcpip thread takes the last ACKs */
	LOCK_TCPIP_CORE();
	pump();
	uint64_t sent = (uint64_t)(2 * n + WARMUP + 2 * COUNT_SENDS) * PAYLOAD;
	printf("B received %" PRIu64 " of %" PRIu64 " bytes; %lu sends did not"
	       " reach linkoutput; %lu frames dropped\n", rx_bytes, sent,
	       missed, dropped);
	UNLOCK_TCPIP_CORE();
	return 0;
}
