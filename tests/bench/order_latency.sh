#!/usr/bin/env bash
# Single-worker order latency: time from a packet's arrival (TSC when
# rx_burst returns) to its order being handed to tx_burst, per order, with
# a pricing table larger than the last-level cache. Runs the same feed and
# table three times: rx burst 1 (the per-packet path alone), rx burst 32 (a
# replay at full speed, where a frame also waits for the frames before it
# in its burst), and rx burst 1 again with the orders dropped at TX instead
# of written to a capture (net_pcap writes each tx_burst with a write(2),
# which a NIC's TX does not cost). Prints p50 .. max for each.
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
for run in "1 capture" "32 capture" "1 drop"; do
	read -r burst tx <<<"$run"
	vdev="net_pcap0,rx_pcap=$work/feed.pcap"
	if [ "$tx" = capture ]; then vdev+=",tx_pcap=$work/orders.pcap"; fi
	# shellcheck disable=SC2046
	$B/hedgewire/hedgewire -l 0-1 --no-pci $(scripts/eal-args.sh $((mb + 400))) \
		--file-prefix hgw-bench --log-level=error \
		--vdev "$vdev" -- \
		-c conf/demo.ini --set "table.file=$work/table.tbl" \
		--set book.instruments=4096 --set rx.burst=$burst \
		--set risk.window_ms=1 --set risk.max_orders_instrument=4096 \
		--set risk.max_orders_total=4096 >"$work/out"
	printf 'rx burst %-2s, orders %-8s: orders %s;' "$burst" "$tx" "$(awk '$1 == "orders" {print $2}' "$work/out")"
	sed -n 's/^  rx_to_tx: //p' "$work/out"
done
