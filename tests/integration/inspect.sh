#!/usr/bin/env bash
# hgw-inspect tells the truth: on a capture with every fault the generator
# can inject, its message counts by type, heartbeats, gaps, duplicate
# packets and drop reasons equal the generator's; reading the same capture
# as a live DPDK port (net_pcap) prints the same report, and so does a live
# run stopped by SIGINT, after progress lines every second.
#   inspect.sh INSPECT FEEDGEN SRCDIR
INSPECT=$1 FEEDGEN=$2 SRCDIR=$3
HEDGEWIRE=unused
. "$SRCDIR/tests/integration/common.sh"

"$FEEDGEN" -q -o "$T/feed.pcap" --truth "$T/truth" --list "$T/list" --seed 41 \
	--instruments 12 --messages 50000 --per-packet 5 --vlan 141 \
	--heartbeats 40 --gap-every 53 --dup-every 7 --truncate-every 11 \
	--corrupt-every 13
"$INSPECT" "$T/feed.pcap" >"$T/out" || fail "hgw-inspect exited $?"
cat "$T/out"

got() { grep -o "$1 [0-9]*" "$T/out" | head -1 | awk '{ print $NF }'; }
expect_eq frames "$(awk '/^frames/ { print $2 }' "$T/out")" "$(truth frames)"
expect_eq messages "$(awk '$1 == "messages" && $2 ~ /^[0-9]+$/ { print $2 }' "$T/out")" "$(truth messages)"
expect_eq heartbeats "$(got heartbeats)" "$(truth heartbeats)"
expect_eq gaps "$(grep -o 'gaps [0-9]* ([0-9]* messages)' "$T/out" | awk '{ print $2 }')" "$(truth gaps)"
expect_eq gap_messages "$(grep -o 'gaps [0-9]* ([0-9]* messages)' "$T/out" | tr -d '(' | awk '{ print $3 }')" "$(truth gap_messages)"
n=0
while read -r kind key want; do
	case $kind in
	type) g=$(awk -v t="$key" '$1 == t && NF >= 3 { print $(NF - 1); exit }' "$T/out");;
	drop) g=$(awk -v r="$key" '$1 == r { print $2; exit }' "$T/out");;
	*) continue;;
	esac
	expect_eq "$kind $key" "${g:-0}" "$want"
	n=$((n + 1))
done <"$T/truth"
echo "  $n type/drop counters match the generator"

# The same capture as a live port: the report, timing aside, must be
# identical.
frames=$(truth frames)
# shellcheck disable=SC2086
"$INSPECT" -l0 --no-pci $EAL_MEM --file-prefix "$PREFIX" --log-level=error \
	--vdev "net_pcap0,rx_pcap=$T/feed.pcap" -- --live --count "$frames" \
	>"$T/live" 2>"$T/err" || fail "live hgw-inspect exited $?: $(cat "$T/err")"
untimed() { sed -e 's/  span [0-9.]* s//' -e 's/  ([0-9]*\/s over the span)//' "$1"; }
diff <(untimed "$T/out") <(untimed "$T/live") >"$T/diff" ||
	{ cat "$T/diff"; fail "live report differs from the pcap report"; }

# Live until ^C: progress on stderr every second, the summary on SIGINT.
# shellcheck disable=SC2086
"$INSPECT" -l0 --no-pci $EAL_MEM --file-prefix "$PREFIX" --log-level=error \
	--vdev "net_pcap0,rx_pcap=$T/feed.pcap" -- --live \
	>"$T/live2" 2>"$T/err2" &
pid=$!
totals="^hgw-inspect: $frames frames, $(truth messages) messages, [0-9]+ drops, $(truth gaps) gaps so far$"
for _ in $(seq 300); do
	grep -Eq "$totals" "$T/err2" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
expect_eq "exit status after SIGINT" "$rc" 0
grep -Eq "$totals" "$T/err2" || fail "no progress line with the totals: $(cat "$T/err2")"
diff <(untimed "$T/out") <(untimed "$T/live2") >"$T/diff" ||
	{ cat "$T/diff"; fail "report after SIGINT differs from the pcap report"; }
echo "  $(grep -c 'so far$' "$T/err2") progress lines, then the report on SIGINT"
echo "PASS: hgw-inspect agrees with the generator, from a file and from a port"
