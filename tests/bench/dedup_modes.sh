#!/usr/bin/env bash
# What each dedup mode adds to the latency of the order that leaves: the
# same feed and table (larger than the last-level cache), rx burst 1, time
# from rx_burst returning to the order being handed to tx_burst, for
#   single       1 worker, no dedup (the baseline)
#   claim        2 workers racing on the claim (one CAS per order)
#   tx-lcore/1   1 worker handing over to the TX lcore (the hop alone)
#   tx-lcore     2 workers handing over to the TX lcore
#   downstream   2 workers each sending every copy, then hgw-dedup's own
#                rx_burst -> tx_burst on those copies (the extra hop)
#   venue        1 worker, the TX lcore sending over the SoupBinTCP session
#                to scripts/venue_sim.py on 127.0.0.1 ([venue]); besides
#                arrival -> send() returned, venue-send: the TX lcore's
#                dequeue of the order -> send() returned (what TCP adds)
#   venue-dpdk   the same over hedgewire's own TCP ([venue] stack = dpdk)
#                on a veth through net_af_packet, the simulator in a
#                network namespace (root only); venue-dpdk-send: the
#                dequeue -> the segment's tx_burst returned
#   venue-dpdk-claim (and /1: one worker)
#                claim mode on hedgewire's TCP: 2 (1) workers race, the
#                winner sends its own segment on its own TX queue, the TX
#                lcore owns the connection and the session; arrival -> the
#                segment's tx_burst
#   dlg-udp, dlg-tcp (and /1: one worker)
#                the order path alone, without hedgewire (tcp-dlg, built
#                from tests/integration/tcp_dlg.c): 2 (or 1) worker lcores
#                race for each order, due at a paced time; dlg-udp: the
#                winner of hgw_dedup_claim sends the UDP order frame, as
#                claim mode does; dlg-tcp: the winner of the claim that
#                also reserves its bytes in the TCP stream sends its own
#                segment (lib/tcp delegated sends) to Linux's TCP in the
#                namespace, the main lcore owning the connection (polling
#                every 20 us: it does not take a CPU from the workers);
#                due time -> tx_burst (no parsing, no book, no table: the
#                rows to compare are dlg-udp and dlg-tcp); dlg-tcp-peer:
#                the peer's receive time of the dlg-tcp orders that end a
#                read of the peer (its
#                kernel's SO_TIMESTAMPNS) less the time just before the
#                winner's tx_burst (CLOCK_REALTIME from the TSC), 2
#                workers: what the wire and the peer's TCP add
# Rounds are interleaved (mode A, B, ... then again) so drift hits every
# mode alike; the best and median round of each percentile are printed.
# On a 2-vCPU machine, tx-lcore with 2 workers runs 3 busy lcores on 2
# CPUs: its numbers then measure time sharing, and the script says so.
#   tests/bench/dedup_modes.sh [rounds] [table-MB] [messages]
# (build first: scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
mb=${2:-256}
msgs=${3:-300000}
# Inputs and captures on tmpfs: the table and feed are written just before
# the runs, and on a disk file system their writeback (hundreds of MB)
# would run during the measurement. HGW_BENCH_DIR overrides.
work=$(mktemp -d "${HGW_BENCH_DIR:-/dev/shm}/hgw-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
B=build/app
ncpu=$(nproc)
inst=$(( (mb * 1024 + 255) / 256 ))
$B/hgw-feedgen/hgw-feedgen -q -o "$work/feed.pcap" --seed 9 \
	--instruments "$(( inst < 2000 ? inst - 1 : 2000 ))" --messages "$msgs" --per-packet 4
$B/hgw-tablegen/hgw-tablegen -q -o "$work/table.tbl" --instruments "$inst" \
	--spreads 64 --imbalances 64 --seed 9 --fill 0.05
echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $ncpu CPUs; table $mb MB; $msgs messages; rx burst 1"

# lcores N: EAL --lcores for N lcores spread over the CPUs
lcores() {
	local s="0@0" i
	for ((i = 1; i < $1; i++)); do s+=",$i@$((i % ncpu))"; done
	echo "--lcores=$s"
}

# hw MODE WORKERS NLCORES: one hedgewire run; prints the p50 .. max line
# of the orders that left (sent rx_to_tx, or worker 0's when alone).
hw() {
	local mode=$1 n=$2 nl=$3 rx="" tx="" i
	for ((i = 0; i < n; i++)); do
		rx+=",rx_pcap=$work/feed.pcap"
		tx+=",tx_pcap=$work/out$i.pcap"
	done
	[ "$mode" != tx-lcore ] || tx=",tx_pcap=$work/out0.pcap"
	# shellcheck disable=SC2046
	$B/hedgewire/hedgewire "$(lcores "$nl")" --no-pci \
		$(scripts/eal-args.sh $((n * (mb + 400)))) \
		--file-prefix hgw-bench --log-level=error \
		--vdev "net_pcap0$rx$tx" -- \
		-c conf/demo.ini --set "table.file=$work/table.tbl" \
		--set book.instruments=4096 --set rx.burst=1 \
		--set run.workers="$n" --set run.dedup="$mode" \
		--set order.journal= --set run.idle_timeout_ms=0 \
		--set risk.window_ms=1 --set risk.max_orders_instrument=4096 \
		--set risk.max_orders_total=4096 >"$work/out"
	if grep -q '^ *sent rx_to_tx' "$work/out"; then
		sed -n 's/^ *sent rx_to_tx: //p' "$work/out"
	else
		sed -n 's/^  rx_to_tx: //p' "$work/out"
	fi
}

# venue [dpdk]: 1 worker + TX lcore, orders over TCP to the venue
# simulator, on 127.0.0.1 through the kernel's TCP, or ("dpdk") over
# hedgewire's TCP on a veth (net_af_packet) to the simulator in the
# namespace $ns; the rx_to_tx line goes to stdout, the dequeue -> send
# line to $work/vsend.
ns=hgwbench$$
netns_up() {
	ip netns add "$ns"
	ip link add hgwbench$$a type veth peer name hgwbench$$b netns "$ns"
	ip netns exec "$ns" ip link set lo up
	ip netns exec "$ns" ip addr add 10.79.0.2/24 dev hgwbench$$b
	ip netns exec "$ns" ip link set hgwbench$$b up
	ip netns exec "$ns" ethtool -K hgwbench$$b tx off >/dev/null
	ip link set hgwbench$$a up
}
netns_down() {
	ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
	ip link del hgwbench$$a 2>/dev/null || true
}
hw_venue() {
	local pid port host=127.0.0.1 in="" eal=() sets=() nw=1 mode=tx-lcore
	[ "${2:-}" != claim ] || { mode=claim; nw=$3; }
	if [ "${1:-}" = dpdk ]; then
		host=10.79.0.2
		in="ip netns exec $ns"
		# claim mode: a queue pair for the TX lcore and each worker
		local qp=1
		[ "$mode" != claim ] || qp=$((nw + 1))
		eal=(--vdev "net_af_packet0,iface=hgwbench$$a,qpairs=$qp")
		sets=(--set order.port=1 --set venue.stack=dpdk
		      --set venue.address=10.79.0.1/24)
	fi
	rm -f "$work/vport" "$work/vstate"
	$in python3 scripts/venue_sim.py --listen "$host:0" --user U --password P \
		--session S --ready-file "$work/vport" >"$work/vsim.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do [ -s "$work/vport" ] && break; sleep 0.05; done
	port=$(cat "$work/vport")
	# shellcheck disable=SC2046
	HGW_VENUE_PASSWORD=P $B/hedgewire/hedgewire "$(lcores $((nw + 2)))" --no-pci \
		$(scripts/eal-args.sh $((mb + 400))) \
		--file-prefix hgw-bench --log-level=error \
		--vdev "net_pcap0$(for ((i = 0; i < nw; i++)); do printf ',rx_pcap=%s' "$work/feed.pcap"; done),tx_pcap=$work/out0.pcap" \
		"${eal[@]}" -- \
		-c conf/demo.ini --set "table.file=$work/table.tbl" \
		--set book.instruments=4096 --set rx.burst=1 \
		--set run.workers=$nw --set run.dedup=$mode \
		--set order.journal= --set run.idle_timeout_ms=0 \
		--set risk.window_ms=1 --set risk.max_orders_instrument=4096 \
		--set risk.max_orders_total=4096 \
		--set venue.host="$host" --set venue.port="$port" \
		--set venue.username=U --set venue.session=S \
		--set venue.state_file="$work/vstate" \
		--set venue.max_orders_per_sec=0 \
		--set venue.max_orders_per_sec_per_symbol=0 "${sets[@]}" >"$work/out"
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	sed -n 's/^ *venue_send: //p' "$work/out" >"$work/vsend"
	# one worker: its sender's (the TX lcore's) line; two: every order
	if [ "$nw" = 1 ]; then
		sed -n 's/^  rx_to_tx: //p' "$work/out"
	else
		sed -n 's/^ *sent rx_to_tx: //p' "$work/out"
	fi
}

# hw_dlg udp|tcp WORKERS: one tcp-dlg run on the veth; the latency line
dlg_n=100000 dlg_pps=50000
hw_dlg() {
	local mode=$1 n=$2 pid="" lc="--lcores=0@0,1@1"
	[ "$n" = 1 ] || lc="--lcores=0@0,1@1,2@0"
	rm -f "$work/dport"
	if [ "$mode" = tcp ]; then
		ip netns exec "$ns" python3 tests/integration/tcp_dlg_peer.py \
			--listen 10.79.0.2:26401 --ready "$work/dport" \
			--refs "$work/drefs" --rx-times "$work/drx" \
			>"$work/dpeer.out" 2>&1 &
		pid=$!
		for ((i = 0; i < 100; i++)); do [ -s "$work/dport" ] && break; sleep 0.05; done
	fi
	# shellcheck disable=SC2046
	build/tests/integration/tcp-dlg "$lc" --no-pci $(scripts/eal-args.sh 256) \
		--file-prefix hgw-bench-dlg --log-level=error \
		--vdev "net_af_packet0,iface=hgwbench$$a,qpairs=$((n + 1))" -- \
		--mode "$mode" --ip 10.79.0.1/24 --peer 10.79.0.2:26401 \
		--workers "$n" --orders $dlg_n --rate $dlg_pps \
		--owner-sleep-us 20 ${pid:+--tx-times "$work/dtx"} >"$work/dlg" 2>&1 ||
		echo "tcp-dlg failed: $(tail -2 "$work/dlg")" >&2
	[ -z "$pid" ] || wait "$pid" 2>/dev/null || true
	sed -n "s/^ *claim-$mode: //p" "$work/dlg"
}

# The peer's receive time less the send time of each order of the last
# dlg-tcp run, as a hgw_hist_print line (count, percentiles, max; ns)
dlg_peer() {
	python3 - "$work/dtx" "$work/drx" <<'PY'
import sys
tx = dict(map(int, l.split()) for l in open(sys.argv[1]))
d = sorted(ns - tx[r] for r, ns in (map(int, l.split()) for l in open(sys.argv[2])) if r in tx)
if not d:
    sys.exit(0)
q = lambda p: d[min(len(d) - 1, int(p * len(d)))]
print('count %d p50 %d p90 %d p99 %d p99.9 %d p99.99 %d max %d' %
      (len(d), q(.5), q(.9), q(.99), q(.999), q(.9999), d[-1]))
PY
}

# The filter's own hop, on the copies the downstream run left.
dd() {
	local in="" i
	for i in 0 1; do in+=",rx_pcap=$work/out$i.pcap"; done
	# shellcheck disable=SC2046
	$B/hgw-dedup/hgw-dedup -l 0 --no-pci $(scripts/eal-args.sh 256) \
		--file-prefix hgw-bench-dd --log-level=error \
		--vdev "net_pcap0$in" --vdev "net_pcap1,tx_pcap=$work/final.pcap" \
		-- --in 0 --out 1 --idle-ms 200 --burst 1 >"$work/dd"
	sed -n "s/^ *rx_to_tx: //p" "$work/dd"
}

modes="single claim tx-lcore/1 tx-lcore downstream downstream-hop"
venue=0
[ ! -f scripts/venue_sim.py ] || { venue=1; modes+=" venue venue-send"; }
vdpdk=0
if [ $venue = 1 ] && [ "$(id -u)" = 0 ] && command -v ethtool >/dev/null; then
	vdpdk=1
	modes+=" venue-dpdk venue-dpdk-send"
	modes+=" venue-dpdk-claim/1 venue-dpdk-claim"
	[ ! -x build/tests/integration/tcp-dlg ] || modes+=" dlg-udp/1 dlg-tcp/1 dlg-udp dlg-tcp dlg-tcp-peer"
	trap 'netns_down; rm -rf "$work"' EXIT
	netns_up
fi
for ((r = 1; r <= rounds; r++)); do
	hw none 1 2 >"$work/r$r.single"
	hw claim 2 3 >"$work/r$r.claim"
	hw tx-lcore 1 3 >"$work/r$r.tx-lcore_1"
	hw tx-lcore 2 4 >"$work/r$r.tx-lcore"
	hw downstream 2 3 >"$work/r$r.downstream"
	dd >"$work/r$r.downstream-hop"
	if [ $venue = 1 ]; then
		hw_venue >"$work/r$r.venue"
		cp "$work/vsend" "$work/r$r.venue-send"
	fi
	if [ $vdpdk = 1 ]; then
		hw_venue dpdk >"$work/r$r.venue-dpdk"
		cp "$work/vsend" "$work/r$r.venue-dpdk-send"
		hw_venue dpdk claim 1 >"$work/r$r.venue-dpdk-claim_1"
		hw_venue dpdk claim 2 >"$work/r$r.venue-dpdk-claim"
		if [ -x build/tests/integration/tcp-dlg ]; then
			hw_dlg udp 1 >"$work/r$r.dlg-udp_1"
			hw_dlg tcp 1 >"$work/r$r.dlg-tcp_1"
			hw_dlg udp 2 >"$work/r$r.dlg-udp"
			hw_dlg tcp 2 >"$work/r$r.dlg-tcp"
			dlg_peer >"$work/r$r.dlg-tcp-peer"
		fi
	fi
	echo "round $r done"
done

# field NAME LINE: the number after NAME in a hgw_hist_print line
printf '\n%-15s %9s %9s %9s %9s %9s %7s   (ns; best / median of %d rounds; orders: median)\n' \
	mode p50 p99 p99.9 p99.99 max orders "$rounds"
for m in $modes; do
	f=${m//\//_}
	# the orders each round recorded (none: no line, or count 0)
	orders=$(for ((r = 1; r <= rounds; r++)); do
			awk '{ for (i = 1; i < NF; i++) if ($i == "count") { print $(i + 1); exit } }
			     END { if (NR == 0) print 0 }' "$work/r$r.$f"
		done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }')
	if [ "$orders" -eq 0 ]; then
		printf '%-15s %s\n' "$m" "no orders"
		continue
	fi
	for stat in p50 p99 p99.9 p99.99 max; do
		for ((r = 1; r <= rounds; r++)); do
			awk -v k="$stat" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' \
				"$work/r$r.$f"
		done | sort -n | awk '{ v[NR] = $1 } END { printf "%s/%s\n", v[1], v[int((NR + 1) / 2)] }' \
			>"$work/$f.$stat"
	done
	printf '%-15s %9s %9s %9s %9s %9s %7s\n' "$m" "$(cat "$work/$f.p50")" \
		"$(cat "$work/$f.p99")" "$(cat "$work/$f.p99.9")" \
		"$(cat "$work/$f.p99.99")" "$(cat "$work/$f.max")" "$orders"
done
echo
echo "single: 1 worker. claim, downstream: 2 workers, every order that left (downstream: every copy)."
echo "downstream-hop: hgw-dedup's rx_burst -> tx_burst on those copies, replayed from their pcaps."
[ $venue = 0 ] || echo "venue: 1 worker + TX lcore, arrival -> send() returned on the SoupBinTCP session; venue-send: the TX lcore's dequeue -> send() returned."
[ $venue = 1 ] || echo "venue: skipped (no scripts/venue_sim.py)"
[ $vdpdk = 0 ] || echo "venue-dpdk: the same on hedgewire's TCP (net_af_packet on a veth, Linux's TCP the peer): arrival -> the segment's tx_burst; venue-dpdk-send: dequeue -> tx_burst."
[ $vdpdk = 1 ] || echo "venue-dpdk: skipped (needs root, ethtool and the simulator)"
[ $vdpdk = 0 ] || echo "venue-dpdk-claim: claim mode on hedgewire's TCP, 2 workers (/1: 1), each winner sending its own segment: arrival -> its tx_burst."
[ $vdpdk = 0 ] || echo "dlg-udp, dlg-tcp: tcp-dlg, $dlg_n orders at $dlg_pps/s, due time -> tx_burst of the winner (2 workers; /1: 1)."
[ $vdpdk = 0 ] || echo "dlg-tcp-peer: the peer's kernel receive time (SO_TIMESTAMPNS) less the time just before the winner's tx_burst, per order of dlg-tcp."
[ "$ncpu" -ge 4 ] || echo "note: $ncpu CPUs: tx-lcore with 2 workers time-shares 3 busy lcores on $ncpu CPUs."
