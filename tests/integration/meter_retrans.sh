#!/usr/bin/env bash
# hgw-meter as the MoldUDP64 re-request server, end to end over a memif
# wire, without hedgewire: tests/integration/retrans_client.c is the
# client. The meter replays a generated feed on 2 queues with a --drop
# range on queue 1; the client finds that gap, asks for it there during
# the replay and, once the meter has reported and holds the wire (SIGUSR1
# from here), asks again and for ranges past the capture, over
# --retrans-max, to the broadcast MAC, of an unknown session, with a bad
# count and for one message. The client checks every answer against the capture; here
# the meter's counters must agree, and both must exit cleanly: the
# client closes first, the meter lets go of the wire after it.
#   meter_retrans.sh FEEDGEN METER CLIENT SRCDIR
FEEDGEN=$1 METER=$2 CLIENT=$3 SRCDIR=$4
HEDGEWIRE=/nonexistent
. "$SRCDIR/tests/integration/common.sh"
need_memif "$METER"

SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no"
SERVER=10.0.0.1:30000
DROP_A=101 DROP_B=140 RT_MAX=200

# about 1,500 frames of 4 messages, a few heartbeats, no duplicates (a
# duplicate of a dropped frame would fill part of the gap by itself)
"$FEEDGEN" -q -o "$T/feed.pcap" --seed 7 --instruments 20 --messages 6000 \
	--per-packet 4 --heartbeats 50

mvalue() {
	awk -v k="$1" '$1 == k { print $2; exit }' "$T/meter.out"
}

cpus=$(nproc)
if [ "$cpus" -ge 2 ]; then m_lcore=0 c_lcore=1; else m_lcore=0 c_lcore=0; fi
mem=$("$SRCDIR/scripts/eal-args.sh" 256)
rm -f "$SOCK"
# shellcheck disable=SC2086
"$METER" -l"$m_lcore" --no-pci $mem --file-prefix "$PREFIX-m" \
	--log-level=error --vdev "net_memif0,role=server,$MEMIF" -- \
	--pcap "$T/feed.pcap" --copies 2 --pace rate --pps 10000 \
	--wait-ms 200 --link-timeout-ms 30000 --hold-ms 60000 \
	--retrans "$SERVER" --retrans-max "$RT_MAX" \
	--drop "1:$DROP_A-$DROP_B" --json "$T/meter.json" \
	>"$T/meter.out" 2>"$T/meter.err" &
MPID=$!
PIDS+=("$MPID")
for i in $(seq 300); do
	[ -S "$SOCK" ] && grep -q "^hgw-meter: port" "$T/meter.out" && break
	kill -0 "$MPID" 2>/dev/null ||
		fail "meter exited before listening: $(cat "$T/meter.err")"
	sleep 0.1
done
[ -S "$SOCK" ] || fail "no memif socket after 30 s: $(cat "$T/meter.err")"
grep -q "^hgw-meter: re-request server $SERVER" "$T/meter.out" ||
	fail "no re-request server line: $(cat "$T/meter.out")"

# shellcheck disable=SC2086
"$CLIENT" -l"$c_lcore" --no-pci $mem --file-prefix "$PREFIX-c" \
	--log-level=error --vdev "net_memif0,role=client,$MEMIF" -- \
	--pcap "$T/feed.pcap" --queues 2 --drop "1:$DROP_A-$DROP_B" \
	--server "$SERVER" --retrans-max "$RT_MAX" \
	>"$T/client.out" 2>"$T/client.err" &
CPID=$!
PIDS+=("$CPID")

# the client's second round once the meter has reported: it holds the
# wire from then on, answering requests
while ! grep -q "^hgw-meter: done" "$T/meter.out"; do
	kill -0 "$MPID" 2>/dev/null || fail "meter died: $(cat "$T/meter.err")"
	kill -0 "$CPID" 2>/dev/null || break
	sleep 0.1
done
kill -USR1 "$CPID" 2>/dev/null || true
crc=0
wait "$CPID" || crc=$?
sed 's/^/  client: /' "$T/client.out"
[ "$crc" = 0 ] || fail "client exited $crc: $(cat "$T/client.err")" \
	"(meter: $(wait "$MPID"; tail -12 "$T/meter.out"; cat "$T/meter.err"))"
mrc=0
wait "$MPID" || mrc=$?
[ "$mrc" = 0 ] || fail "meter exited $mrc: $(cat "$T/meter.err")"
grep -q "still connected" "$T/meter.out" &&
	fail "the meter closed the wire under the client"

# the meter's side of the same story
packets=$(mvalue packets)
dropped=$((DROP_B - DROP_A + 1))
expect_eq "dropped_q1" "$(mvalue dropped_q1)" "$dropped"
expect_eq "copies_sent" "$(mvalue copies_sent)" $((2 * packets - dropped))
expect_eq "tx_dropped" "$(mvalue tx_dropped)" 0
# requests 1-7 and the bad one; answered: all but 6 (unknown session)
expect_eq "retrans_requests" "$(mvalue retrans_requests)" 7
expect_eq "retrans_answered" "$(mvalue retrans_answered)" 6
expect_eq "retrans_bad" "$(mvalue retrans_bad)" 1
# past the capture's end, and the unknown session
expect_eq "retrans_not_had" "$(mvalue retrans_not_had)" 2
expect_eq "retrans_limited" "$(mvalue retrans_limited)" 1
expect_eq "retrans_lost" "$(mvalue retrans_lost)" 0
expect_eq "hold_frames" "$(mvalue hold_frames)" 0
gap=$(sed -n 's/.*frames [0-9]*-[0-9]* (\([0-9]*\) messages) dropped.*/\1/p' \
	"$T/client.out")
# the gap twice, 5 past the end, --retrans-max from 1, 3 to broadcast, 1
expect_eq "retrans_messages" "$(mvalue retrans_messages)" \
	$((2 * gap + 5 + RT_MAX + 3 + 1))
python3 - "$T/meter.json" <<'PY' || fail "JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["retrans_requests"] == 7 and d["retrans_bad"] == 1, d
assert d["dropped_by_queue"][0] == 0 and d["dropped_by_queue"][1] > 0, d
PY
grep "^hgw-meter: re-request server:" "$T/meter.out" | sed 's/^/  /'
[ -z "${HGW_SHOW_METER:-}" ] || cat "$T/meter.out"
echo "PASS: meter-retrans"
