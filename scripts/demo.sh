#!/usr/bin/env bash
# hedgewire demo: set up (packages, huge pages, build), generate a feed and
# a pricing table, replay the feed through hedgewire with the net_pcap vdev
# (feed in, orders out), print the summary, and check the book against the
# generator's ground truth and the orders against the independent
# reference evaluator.
#   scripts/demo.sh [messages]
set -euo pipefail
cd "$(dirname "$0")/.."
msgs=${1:-1000000}
scripts/setup.sh
work=$(mktemp -d /tmp/hgw-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
B=build/app

echo "== generating a feed ($msgs ITCH 5.0 messages, 100 instruments) and a pricing table"
$B/hgw-feedgen/hgw-feedgen -o "$work/feed.pcap" --truth "$work/truth" \
	--seed 1 --instruments 100 --messages "$msgs" --per-packet 4 --heartbeats 1000
$B/hgw-tablegen/hgw-tablegen -o "$work/table.tbl" --instruments 1024 \
	--spreads 16 --imbalances 16 --seed 1 --fill 0.05
echo "== what is in the feed (hgw-inspect)"
$B/hgw-inspect/hgw-inspect "$work/feed.pcap" | head -4

echo "== replaying it through hedgewire (net_pcap in and out, 1 worker, conf/demo.ini)"
# shellcheck disable=SC2046
$B/hedgewire/hedgewire -l 0-1 --no-pci $(scripts/eal-args.sh 768) \
	--file-prefix hgw-demo --log-level=error \
	--vdev "net_pcap0,rx_pcap=$work/feed.pcap,tx_pcap=$work/orders.pcap" -- \
	-c conf/demo.ini --set "table.file=$work/table.tbl" \
	--set "order.journal=$work/journal.pcap" --dump-book "$work/book"

echo "== checks"
if diff -q <(grep '^bbo ' "$work/truth") "$work/book" >/dev/null; then
	echo "book: best bid/ask of all $(wc -l <"$work/book") instruments equal the generator's ground truth"
else
	echo "book: MISMATCH against the generator's ground truth"
	exit 1
fi
python3 tests/ref/hgw_ref.py --feed "$work/feed.pcap" --table "$work/table.tbl" \
	--conf conf/demo.ini --out "$work/expected.pcap" >/dev/null
printf 'orders vs the reference evaluator: '
python3 tests/ref/cmp_orders.py "$work/expected.pcap" "$work/orders.pcap"
echo "first orders sent:"
# (sed reads to the end: no broken pipe under pipefail)
python3 tests/ref/cmp_orders.py --decode "$work/orders.pcap" | sed -n 1,3p
