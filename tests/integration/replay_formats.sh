#!/usr/bin/env bash
# net_pcap replays pcap and pcapng captures (both read by libpcap; pcapng
# is what editcap, dumpcap and dpdk-dumpcap write by default), and
# hedgewire checks both the same way:
#   whole, in either format (pcapng with the blocks dumpcap writes after
#   the last packet, or with packets on two Ethernet interfaces): no read
#   error, exit 0, the reference's orders and counters;
#   cut in the middle of a packet, in either format, or a pcapng record
#   longer than the snapshot length: "READ ERROR after frame K" with K the
#   packets before it (counted from the file, and equal to the frames
#   hedgewire received), exit 8 + 16;
#   a pcapng capture libpcap reads only part of (a later interface not
#   Ethernet, or with another snapshot length): refused at start-up in
#   one line.
#   replay_formats.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4
. "$SRCDIR/tests/integration/common.sh"
REF="python3 $SRCDIR/tests/ref/hgw_ref.py"
CMP="python3 $SRCDIR/tests/ref/cmp_orders.py"
EDIT="python3 $SRCDIR/tests/integration/pcapng_edit.py"

command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
command -v editcap >/dev/null || { echo "SKIP: editcap (tshark) missing"; exit 77; }

"$FEEDGEN" -q -o "$T/feed.pcap" --truth "$T/truth" --seed 41 --instruments 40 \
	--messages 30000 --per-packet 4 --heartbeats 50 --dup-every 17
"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 --imbalances 8 \
	--seed 5 --fill 0.1
conf "[risk]" "max_orders_instrument = 20" "max_orders_total = 200" \
	"window_ms = 50"
$REF --feed "$T/feed.pcap" --table "$T/table.tbl" --conf "$T/conf.ini" \
	--out "$T/expected.pcap" --summary "$T/ref.txt" >/dev/null ||
	fail "reference evaluator failed"
frames=$(truth frames)

# whole FILE LABEL: a trading replay of FILE to its end of session: exit
# 0, no capture named, every frame received, the reference's orders byte
# for byte and its counters.
whole() {
	local file=$1 label=$2 rc=0 key want n=0
	rm -f "$T"/journal*.pcap "$T/out.pcap"
	run_hw -l0-1 "net_pcap0,rx_pcap=$file,tx_pcap=$T/out.pcap" \
		-c "$T/conf.ini" --set run.idle_timeout_ms=0 || rc=$?
	grep '^capture ' "$T/out" && fail "$label: a capture named: $(cat "$T/err")"
	expect_eq "$label: exit status" "$rc" 0
	grep -q "stopped on end of session" "$T/out" || fail "$label: did not reach the end of session"
	expect_eq "$label: frames" "$(value frames)" "$frames"
	$CMP "$T/expected.pcap" "$T/out.pcap" >/dev/null ||
		fail "$label: orders differ from the reference's"
	while read -r key want; do
		expect_eq "$label: $key (hedgewire vs reference)" "$(value "$key")" "$want"
		n=$((n + 1))
	done <"$T/ref.txt"
	echo "  $label: exit 0, $frames frames, $(value orders) orders and $n counters equal the reference's"
}

# broken FILE LABEL K WHY GOT TAIL: a replay of FILE: exit 8 + 16, the
# capture named with K frames read before its first read error (WHY), GOT
# frames received in all, and TAIL said of the rest of the file. The idle
# timeout stops the run when the file has no end of session (a host too
# slow to replay the readable part in it would stop early and fail).
broken() {
	local file=$1 label=$2 k=$3 why=$4 got=$5 tail=$6 rc=0 line
	run_hw -l0-1 "net_pcap0,rx_pcap=$file" --set run.idle_timeout_ms=2000 || rc=$?
	expect_eq "$label: exit status" "$rc" 24
	grep -q "a capture has a read error" "$T/err" || fail "$label: stderr: $(cat "$T/err")"
	expect_eq "$label: capture lines" "$(grep -c '^capture ' "$T/out")" 1
	line=$(grep '^capture ' "$T/out")
	case $line in
	"capture $file: READ ERROR after frame $k: $why"*" ($tail)") ;;
	*) fail "$label: $line; want after frame $k: $why ... ($tail)";;
	esac
	expect_eq "$label: frames received" "$(value frames)" "$got"
	echo "  $label: exit $rc, ${line//$T\//}"
}

# refused FILE LABEL WANT: start-up refuses FILE in one line matching WANT
refused() {
	local file=$1 label=$2 want=$3 rc=0
	run_hw -l0-1 "net_pcap0,rx_pcap=$file" --set run.idle_timeout_ms=2000 || rc=$?
	expect_eq "$label: exit status" "$rc" 1
	expect_eq "$label: error lines" "$(grep -c '^hedgewire: ' "$T/err")" 1
	grep -Eq "^hedgewire: capture $file: $want" "$T/err" || fail "$label: $(cat "$T/err")"
	echo "  $label: $(sed "s|$T/||" "$T/err")"
}

# the formats: pcapng as editcap writes it (Section Header, Interface
# Description, Enhanced Packet Blocks), then with what dumpcap adds after
# the last packet, then with a second Ethernet interface half-way
editcap -F pcapng "$T/feed.pcap" "$T/plain.pcapng"
$EDIT trailer "$T/plain.pcapng" "$T/feed.pcapng"
$EDIT iface "$T/plain.pcapng" "$T/two.pcapng" 1 65535
for f in feed.pcap plain.pcapng feed.pcapng two.pcapng; do
	expect_eq "$f: packets" "$($EDIT count "$T/$f")" "packets $frames whole"
done

whole "$T/feed.pcap" "pcap"
whole "$T/plain.pcapng" "pcapng (editcap)"
whole "$T/feed.pcapng" "pcapng with NRB and ISB after the packets"
whole "$T/two.pcapng" "pcapng with two Ethernet interfaces"

# cut in the middle of the same packet in both formats
k=$((frames / 2 + 3))
$EDIT cut "$T/feed.pcap" "$T/cut.pcap" "$k"
$EDIT cut "$T/feed.pcapng" "$T/cut.pcapng" "$k"
for f in cut.pcap cut.pcapng; do
	expect_eq "$f: packets" "$($EDIT count "$T/$f")" "packets $k cut"
done
broken "$T/cut.pcap" "pcap cut in packet $k" "$k" "truncated dump file" \
	"$k" "the replay ended there"
broken "$T/cut.pcapng" "pcapng cut in packet $k" "$k" "truncated pcapng dump file" \
	"$k" "the replay ended there"
# cut in the block after the last packet: every frame was replayed, but
# the file is damaged and so is what the tool that wrote it stopped on
head -c -4 "$T/feed.pcapng" >"$T/cut-isb.pcapng"
expect_eq "cut-isb.pcapng: packets" "$($EDIT count "$T/cut-isb.pcapng")" "packets $frames cut"
broken "$T/cut-isb.pcapng" "pcapng cut in its last block (ISB)" "$frames" \
	"truncated pcapng dump file" "$frames" "the replay ended there"
# a pcapng record longer than the interface's snapshot length (65535):
# libpcap refuses that block and net_pcap reads on from the next one
$EDIT caplen "$T/feed.pcapng" "$T/long.pcapng" 5 70000
broken "$T/long.pcapng" "pcapng caplen 70000" 5 "invalid packet capture length 70000" \
	$((frames - 1)) "the replay went on to frame $((frames - 1)), 1 read error in all"

# what libpcap reads only part of: refused before the replay starts
$EDIT iface "$T/plain.pcapng" "$T/sll.pcapng" 113 65535
refused "$T/sll.pcapng" "a LINUX_SLL interface half-way" \
	"interface 1 of section 1: link type LINUX_SLL \\(113\\) is not Ethernet"
$EDIT iface "$T/plain.pcapng" "$T/snap.pcapng" 1 1500
refused "$T/snap.pcapng" "an interface with snapshot length 1500" \
	"interface 1 of section 1: snapshot length 1500, not the first interface's 65535: libpcap reads none of its packets"
echo "PASS: replay formats"
