#!/usr/bin/env bash
# Cache-aware RX buffers, each switch against everything else fixed: one
# worker, the same feed and table (larger than the LLC), two runs per
# setting:
#   bursty  paced replay in bursts (rate pace, [replay] burst frames share
#           a deadline, like the IDIO paper's packet bursts): latency of
#           every order from its burst's deadline
#   full    the feed at full speed: the worker's rx rate (frames/s)
# for invalidation off / invalidate / prefetch / both, and poisoning off /
# first line / 256 bytes / 256 bytes on 5% of frees. Rounds are
# interleaved; the median round of each figure is printed.
# No hardware counters here (a VM): L2/LLC write-backs cannot be counted;
# on a host with them, run this under `perf stat -e` with the L2 and LLC
# write-back events of the CPU.
#   tests/bench/idio_bench.sh [rounds] [table-MB] [messages] [pps] [burst]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
mb=${2:-256}
msgs=${3:-400000}
pps=${4:-200000}
burst=${5:-256}
# Inputs and captures on tmpfs: the table and feed are written just before
# the runs, and on a disk file system their writeback (hundreds of MB)
# would run during the measurement. HGW_BENCH_DIR overrides.
work=$(mktemp -d "${HGW_BENCH_DIR:-/dev/shm}/hgw-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
B=build/app
inst=$(( (mb * 1024 + 255) / 256 ))
$B/hgw-feedgen/hgw-feedgen -q -o "$work/feed.pcap" --seed 9 \
	--instruments "$(( inst < 2000 ? inst - 1 : 2000 ))" --messages "$msgs" --per-packet 4
$B/hgw-tablegen/hgw-tablegen -q -o "$work/table.tbl" --instruments "$inst" \
	--spreads 64 --imbalances 64 --seed 9 --fill 0.05
echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); table $mb MB; $msgs messages; bursts of $burst frames at $pps frames/s on average"

declare -A set
set[off]=""
set[invalidate]="--set buffers.invalidate=invalidate"
set[prefetch]="--set buffers.prefetch=yes"
set[both]="--set buffers.invalidate=invalidate --set buffers.prefetch=yes"
set[poison-64]="--set buffers.poison=64"
set[poison-256]="--set buffers.poison=256"
set[poison-5%]="--set buffers.poison=256 --set buffers.poison_every=20"
names="off invalidate prefetch both poison-64 poison-256 poison-5%"

# hw NAME PACE-ARGS...: one run, summary in $work/NAME.out
hw() {
	local name=$1; shift
	# shellcheck disable=SC2046,SC2086
	$B/hedgewire/hedgewire -l 0-1 --no-pci $(scripts/eal-args.sh $((mb + 600))) \
		--file-prefix hgw-bench --log-level=error \
		--vdev "net_pcap0,rx_pcap=$work/feed.pcap,tx_pcap=$work/out.pcap" -- \
		-c conf/demo.ini --set "table.file=$work/table.tbl" \
		--set book.instruments=4096 --set order.journal= \
		--set run.idle_timeout_ms=0 --set rx.mbufs=65535 \
		--set risk.window_ms=1 --set risk.max_orders_instrument=4096 \
		--set risk.max_orders_total=4096 ${set[$name]} "$@" >"$work/$name.out"
}

for ((r = 1; r <= rounds; r++)); do
	for n in $names; do
		hw "$n" --set replay.pace=rate --set replay.pps="$pps" --set replay.burst="$burst"
		sed -n 's/^  rx_to_tx: //p' "$work/$n.out" >"$work/$n.lat.$r"
		hw "$n"
		sed -n 's/^  rx rate: \([0-9]*\) .*/\1/p' "$work/$n.out" >"$work/$n.rate.$r"
		grep -q "use_after_free" "$work/$n.out" && { echo "$n: use after free detected"; exit 1; }
	done
	echo "round $r done"
done

med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
stat() {	# stat NAME KEY: median over rounds of KEY in the latency line
	for ((r = 1; r <= rounds; r++)); do
		awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$work/$1.lat.$r"
	done | med
}
printf '\n%-12s %8s %8s %8s %9s %9s %12s   (ns from the burst deadline; median of %d rounds)\n' \
	setting p50 p99 p99.9 p99.99 max "frames/s" "$rounds"
for n in $names; do
	printf '%-12s %8s %8s %8s %9s %9s %12s\n' "$n" "$(stat "$n" p50)" \
		"$(stat "$n" p99)" "$(stat "$n" p99.9)" "$(stat "$n" p99.99)" \
		"$(stat "$n" max)" "$(cat "$work/$n".rate.* | med)"
done
grep '^buffers:' "$work/both.out" | head -1
echo "orders per run: $(awk '$1 == "orders" {print $2; exit}' "$work/off.out")"
