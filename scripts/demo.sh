#!/usr/bin/env bash
# hedgewire demo: set up (packages, huge pages, build), generate a feed and
# a pricing table, replay the feed through hedgewire with the net_pcap vdev
# (feed in, orders out), print the summary, and check the book against the
# generator's ground truth and the orders against the independent
# reference evaluator. Everything it writes stays in OUTDIR (default
# demo-out/), which it names at the end.
#   scripts/demo.sh [OUTDIR] [messages]
set -euo pipefail
out='' msgs=1000000
for a in "$@"; do
	if [[ $a =~ ^[0-9]+$ ]]; then msgs=$a; else out=$a; fi
done
[ -z "$out" ] || mkdir -p "$out"
[ -z "$out" ] || out=$(cd "$out" && pwd)	# as the caller named it
cd "$(dirname "$0")/.."
top=$(pwd)
out=${out:-$top/demo-out}
scripts/setup.sh
mkdir -p "$out"
[ -e "$out/.gitignore" ] || echo '*' >"$out/.gitignore"	# outputs, not sources
# Paths inside the source tree are shown relative to its top directory.
case $out in "$top"/*) work=${out#"$top"/} ;; *) work=$out ;; esac
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

if [ "$work" = "$out" ]; then
	echo "== where it is ($work/)"
else
	echo "== where it is ($work/; paths from the top of the source tree)"
fi
echo "feed (ITCH 5.0 over MoldUDP64):  $work/feed.pcap  (generator's truth: $work/truth)"
echo "pricing table:                   $work/table.tbl"
echo "orders sent (OUCH 5.0 over UDP): $work/orders.pcap"
echo "journal of every order sent:     $work/journal.pcap"
echo "book at exit (best bid/ask):     $work/book"
echo "expected orders (reference):     $work/expected.pcap"
# the orders' UDP destination port, from [order] dst_port
dst_port=$(awk -F'[ \t]*=[ \t]*' '/^\[/ {sec = $0} sec == "[order]" && $1 == "dst_port" {print $2}' conf/demo.ini)
# tshark decodes SoupBinTCP (and OUCH in it) over TCP only: it shows the
# order frames' Ethernet/IPv4/UDP with checksums checked and the payload
# (SoupBinTCP 'U', length 48, then the OUCH 5.0 'O'), which the reference
# decoder then reads field by field.
echo "open the orders in tshark (udp.payload = SoupBinTCP 'U' + OUCH 5.0 'O'):"
echo "  tshark -r $work/orders.pcap -Y udp.dstport==$dst_port -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -T fields -e frame.number -e ip.dst -e udp.dstport -e udp.checksum.status -e udp.payload"
echo "or field by field: python3 tests/ref/cmp_orders.py --decode $work/orders.pcap"
