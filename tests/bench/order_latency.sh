#!/usr/bin/env bash
# Single-worker order latency: time from a packet's arrival (TSC when
# rx_burst returns) to its order being handed to tx_burst, per order, with
# a pricing table larger than the last-level cache. Runs the same feed and
# table twice: rx burst 1 (the per-packet path alone) and rx burst 32 (a
# replay at full speed, where a frame also waits for the frames before it
# in its burst). Prints p50 .. max for both.
#   tests/bench/order_latency.sh [table-MB] [messages]
# (build first: scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
mb=${1:-256}
msgs=${2:-1000000}
# Inputs and captures on tmpfs: the table and feed are written just before
# the runs, and on a disk file system their writeback (hundreds of MB)
# would run during the measurement. HGW_BENCH_DIR overrides.
work=$(mktemp -d "${HGW_BENCH_DIR:-/dev/shm}/hgw-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
B=build/app
# 64 x 64 buckets = 256 KB of table per instrument
inst=$(( (mb * 1024 + 255) / 256 ))
$B/hgw-feedgen/hgw-feedgen -q -o "$work/feed.pcap" --seed 9 \
	--instruments "$(( inst < 2000 ? inst - 1 : 2000 ))" --messages "$msgs" --per-packet 4
$B/hgw-tablegen/hgw-tablegen -o "$work/table.tbl" --instruments "$inst" \
	--spreads 64 --imbalances 64 --seed 9 --fill 0.05
echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); LLC $(lscpu | awk -F': *' '/L3/ {print $2}')"
for burst in 1 32; do
	# shellcheck disable=SC2046
	$B/hedgewire/hedgewire -l 0-1 --no-pci $(scripts/eal-args.sh $((mb + 400))) \
		--file-prefix hgw-bench --log-level=error \
		--vdev "net_pcap0,rx_pcap=$work/feed.pcap,tx_pcap=$work/orders.pcap" -- \
		-c conf/demo.ini --set "table.file=$work/table.tbl" \
		--set book.instruments=4096 --set rx.burst=$burst \
		--set risk.window_ms=1 --set risk.max_orders_instrument=4096 \
		--set risk.max_orders_total=4096 >"$work/out"
	printf 'rx burst %-2s: orders %s;' "$burst" "$(awk '$1 == "orders" {print $2}' "$work/out")"
	sed -n 's/^  rx_to_tx: //p' "$work/out"
done
