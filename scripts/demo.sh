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

# a new run replaces the last one's outputs (the journal and the venue
# state would otherwise carry over: a journal is never overwritten, and a
# venue session never sends a UserRefNum twice in a day)
rm -f "$work"/feed.pcap "$work"/truth "$work"/table.tbl "$work"/orders.pcap \
	"$work"/journal*.pcap "$work"/book "$work"/expected.pcap "$work"/venue.*

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

echo "== trading with a venue: scripts/venue_sim.py (SoupBinTCP 3.00 / OUCH 5.0 on TCP; it fills half of each order)"
python3 scripts/venue_sim.py --listen 127.0.0.1:0 --user demo --password demo \
	--session DEMO --fill-pct 50 --journal "$work/venue.sim.jsonl" \
	--ready-file "$work/venue.port" >"$work/venue.sim.out" 2>&1 &
sim=$!
for _ in $(seq 100); do [ -s "$work/venue.port" ] && break; sleep 0.05; done
[ -s "$work/venue.port" ] || { echo "the venue simulator did not start: $(cat "$work/venue.sim.out")"; exit 1; }
# tx-lcore dedup: the TX lcore (lcore 2) owns the session
# shellcheck disable=SC2046
HGW_VENUE_PASSWORD=demo $B/hedgewire/hedgewire --lcores=0@0,1@1,2@0 --no-pci $(scripts/eal-args.sh 768) \
	--file-prefix hgw-demo --log-level=error \
	--vdev "net_pcap0,rx_pcap=$work/feed.pcap,tx_pcap=/dev/null" -- \
	-c conf/demo.ini --set "table.file=$work/table.tbl" --set run.dedup=tx-lcore \
	--set venue.host=127.0.0.1 --set "venue.port=$(cat "$work/venue.port")" \
	--set venue.username=demo --set venue.session=DEMO \
	--set "venue.state_file=$work/venue.state" --set "venue.journal=$work/venue.journal" \
	--set "run.events_log=$work/venue.events" >"$work/venue.out" ||
	{ echo "hedgewire with the venue exited $?: see $work/venue.out"; kill "$sim"; exit 1; }
kill "$sim"
wait "$sim" || true
grep -E '^venue: (orders sent|answers|connection)|^venue: [0-9]+ answers' "$work/venue.out" | head -4
grep -E '^  (orders|venue_filled_shares|venue_reduced_shares|open_orders|reject_open_orders|reject_position_limit) ' "$work/venue.out" | head -8
tail -1 "$work/venue.sim.out"

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
echo "with the venue: summary $work/venue.out, the venue's messages $work/venue.journal,"
echo "                 events $work/venue.events, the simulator's journal $work/venue.sim.jsonl"
# the orders' UDP destination port, from [order] dst_port
dst_port=$(awk -F'[ \t]*=[ \t]*' '/^\[/ {sec = $0} sec == "[order]" && $1 == "dst_port" {print $2}' conf/demo.ini)
# tshark decodes SoupBinTCP (and OUCH in it) over TCP only: it shows the
# order frames' Ethernet/IPv4/UDP with checksums checked and the payload
# (SoupBinTCP 'U', length 48, then the OUCH 5.0 'O'), which the reference
# decoder then reads field by field.
echo "open the orders in tshark (udp.payload = SoupBinTCP 'U' + OUCH 5.0 'O'):"
echo "  tshark -r $work/orders.pcap -Y udp.dstport==$dst_port -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -T fields -e frame.number -e ip.dst -e udp.dstport -e udp.checksum.status -e udp.payload"
echo "or field by field: python3 tests/ref/cmp_orders.py --decode $work/orders.pcap"
