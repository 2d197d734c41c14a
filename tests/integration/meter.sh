#!/usr/bin/env bash
# The external meter against a running hedgewire: two DPDK processes on
# one memif "wire" (hgw-meter the server, hedgewire the client). The meter
# replays a generated feed, one copy per worker queue, paced; hedgewire's
# orders come back on the same port, one RX queue per worker. Every order
# the independent reference (tests/ref/hgw_ref.py) expects must come back
# exactly once, byte for byte, with a wire-to-wire latency each: nothing
# missed, unexpected or duplicated. With 1 worker, then 2 (dedup claim),
# then 2 that both send every order (dedup downstream): each second copy
# must be counted as a duplicate.
#   meter.sh HEDGEWIRE FEEDGEN TABLEGEN METER SRCDIR
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 METER=$4 SRCDIR=$5
. "$SRCDIR/tests/integration/common.sh"
REF="python3 $SRCDIR/tests/ref/hgw_ref.py"

command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
need_memif "$METER"

SOCK=$T/memif.sock
# an abstract socket is the default; a file lets us wait for the server
MEMIF="socket=$SOCK,socket-abstract=no"

conf "[risk]" "window_ms = 50" "max_orders_instrument = 400" \
	"max_orders_total = 4000" "[order]" "journal ="

# 30,592 frames: 1.5 s at 20,000 packets/s, slow enough for a loaded
# 2-vCPU machine where the meter and hedgewire's workers share CPUs
"$FEEDGEN" -q -o "$T/feed.pcap" --seed 31 --instruments 40 --messages 60000 \
	--per-packet 4 --heartbeats 50 --dup-every 17
"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 --imbalances 8 \
	--seed 5 --fill 0.1
$REF --feed "$T/feed.pcap" --table "$T/table.tbl" --conf "$T/conf.ini" \
	--out "$T/expected.pcap" --summary "$T/ref.txt" >/dev/null ||
	fail "reference evaluator failed"
want=$(awk '$1 == "orders" { print $2 }' "$T/ref.txt")
[ "$want" -gt 500 ] || fail "too few orders to mean much: $want"

# mvalue KEY: the number after KEY in the meter's counters.
mvalue() {
	awk -v k="$1" '$1 == k { print $2; exit }' "$T/meter.out"
}

# start_meter LCORE [meter args]: the memif server, in the background.
start_meter() {
	local lcore=$1 mem
	shift
	mem=$("$SRCDIR/scripts/eal-args.sh" 256)
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	"$METER" -l"$lcore" --no-pci $mem --file-prefix "$PREFIX-m" \
		--log-level=error --vdev "net_memif0,role=server,$MEMIF" -- \
		--pcap "$T/feed.pcap" --stall-ms 30000 "$@" \
		>"$T/meter.out" 2>"$T/meter.err" &
	MPID=$!
	PIDS+=("$MPID")
}

# wait_socket: until the meter listens and has started its port, which
# it says in its header (hedgewire's memif client does not retry a
# refused connection), or fail if it died.
wait_socket() {
	local i
	for i in $(seq 300); do
		[ -S "$SOCK" ] && grep -q "^hgw-meter: port" "$T/meter.out" &&
			return 0
		kill -0 "$MPID" 2>/dev/null ||
			fail "meter exited before listening: $(cat "$T/meter.err")"
		sleep 0.1
	done
	fail "no memif socket after 30 s: $(cat "$T/meter.err")"
}

# The meter alone: no peer, so the link never comes up; it must refuse
# in one clear line instead of sending into the void.
start_meter 0 --link-timeout-ms 500
wait "$MPID" && fail "meter without a peer exited 0"
grep -q "link still down after 500 ms" "$T/meter.err" ||
	fail "no link error: $(cat "$T/meter.err")"
expect_eq "error lines" "$(grep -c "^hgw-meter: " "$T/meter.err")" 1
echo "  no peer: $(grep "^hgw-meter: " "$T/meter.err" | cut -c1-80)..."

# hw_client LCORES [app args]: hedgewire as the memif client, in the
# background (no stop of its own: see stop_both).
hw_client() {
	local lcores=$1 mem
	shift
	mem=$("$SRCDIR/scripts/eal-args.sh" 256)
	# shellcheck disable=SC2086
	"$HEDGEWIRE" "$lcores" --no-pci $mem \
		--file-prefix "$PREFIX" --log-level=error \
		--vdev "net_memif0,role=client,$MEMIF" -- -c "$T/conf.ini" \
		--set run.stop_at_end_of_session=no --set run.idle_timeout_ms=0 \
		"$@" >"$T/out" 2>"$T/err" &
	HPID=$!
	PIDS+=("$HPID")
}

# stop_both WHAT: the meter reports once it has waited for late orders,
# then holds the wire until hedgewire has stopped: whichever side closes
# a memif under a peer that still polls can fault it, so hedgewire runs
# with no stop of its own and is stopped here, between the two.
# hedgewire's exit status in HRC; a failing meter fails the test.
stop_both() {
	while ! grep -q "^hgw-meter: done" "$T/meter.out"; do
		kill -0 "$MPID" 2>/dev/null || break
		sleep 0.1
	done
	kill -TERM "$HPID" 2>/dev/null || true
	HRC=0
	wait "$HPID" || HRC=$?
	wait "$MPID" || fail "$1: meter exited $?: $(cat "$T/meter.err")" \
		"(hedgewire: $(cat "$T/err"))"
}

# measure N MODE: N hedgewire workers in dedup MODE, the meter sending
# N copies.
measure() {
	local n=$1 mode=$2 hw_lcores meter_lcore cpus i dups=0 what
	[ "$mode" != downstream ] || dups=$(((n - 1) * want))
	what="$n worker(s), $mode"
	cpus=$(nproc)
	if [ "$cpus" -ge $((n + 2)) ]; then
		hw_lcores="-l0-$n" meter_lcore=$((n + 1))
	else
		# 2 vCPUs: hedgewire's main lcore (asleep most of the time) on
		# CPU 0, its workers alternately on CPU 1 and 0; the meter polls
		# beside the main lcore with 1 worker, beside worker 0 with more
		hw_lcores="--lcores=0@0"
		for ((i = 1; i <= n; i++)); do hw_lcores+=",$i@$((i % 2))"; done
		meter_lcore=$((n > 1 ? 1 : 0))
	fi
	start_meter "$meter_lcore" --copies "$n" --pace rate --pps 20000 \
		--expect "$T/expected.pcap" --timeout-us 30000000 --wait-ms 3000 \
		--link-timeout-ms 30000 --json "$T/meter.json" --csv "$T/meter"
	wait_socket
	hw_client "$hw_lcores" --set run.workers="$n" --set run.dedup="$mode"
	stop_both "$what"
	[ "$HRC" = 0 ] || fail "$what: hedgewire exited $HRC: $(cat "$T/err")"
	grep -q "still connected" "$T/meter.out" &&
		fail "$what: the meter closed the wire under hedgewire"
	grep -q "stopped on signal" "$T/out" ||
		fail "$what: hedgewire stopped early: $(head -1 "$T/out")"

	expect_eq "$what: packets sent" "$(mvalue packets_sent)" "$(mvalue packets)"
	expect_eq "$what: copies sent" "$(mvalue copies_sent)" \
		$(($(mvalue packets) * n))
	expect_eq "$what: tx_dropped" "$(mvalue tx_dropped)" 0
	expect_eq "$what: expected" "$(mvalue expected)" "$want"
	expect_eq "$what: orders received" "$(mvalue orders)" $((want + dups))
	expect_eq "$what: matched" "$(mvalue matched)" "$want"
	expect_eq "$what: duplicates" "$(mvalue duplicates)" "$dups"
	for k in unexpected missed no_order late differs other_frames \
		expected_not_in_capture; do
		expect_eq "$what: $k" "$(mvalue "$k")" 0
	done
	local hist
	hist=$(sed -n 's/^  wire_to_wire: count \([0-9]*\) .*/\1/p' "$T/meter.out")
	expect_eq "$what: histogram count" "$hist" "$want"
	# hedgewire saw every frame, and every replica the same ones
	grep -q "^  frames *$(mvalue packets)\$" "$T/out" ||
		fail "$what: hedgewire's frames: $(grep '^  frames' "$T/out" | tr -s ' ')"
	expect_eq "$what: replicas agreeing with worker 0" \
		"$(grep -c "agrees with worker 0: yes" "$T/out")" $((n - 1))
	if [ "$(nproc)" -lt $((n + 2)) ]; then
		grep -q "^note: meter and hedgewire share $(nproc) CPUs" "$T/meter.out" ||
			fail "$what: no shared-CPU note on $(nproc) CPUs"
	fi
	python3 - "$T/meter.json" "$want" <<'EOF' || fail "$what: JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
assert d["matched"] == want and d["missed"] == 0, d
w = d["wire_to_wire"]
assert w["count"] == want and w["unit"] == "ns", w
assert sum(c for _, c in w["buckets"]) == want
assert 0 < w["percentiles"]["p50"] <= w["max"]
EOF
	[ "$(tail -n +2 "$T/meter-wire_to_wire.csv" | awk -F, '{ s += $2 } END { print s }')" = "$want" ] ||
		fail "$what: CSV counts"
	echo "  $what: $want expected orders, each matched once, byte for" \
		"byte; no miss, no stray; duplicates $dups"
	echo "  $what: $(sed -n 's/^  wire_to_wire: //p' "$T/meter.out")"
	grep "^note:" "$T/meter.out" | sed 's/^/  /' || true
}

# recover MODE: 2 workers (claim); the meter leaves frames 3000-3010 out
# of worker 1's copy (corrupt: damages frame 4000 of it, a single bad
# packet; latejoin: leaves out its first 2,000 frames, a feed met
# mid-session). answer, corrupt, latejoin: the meter is also the
# re-request server,
# worker 1 asks for the missing messages, applies them in order and
# trades on (no halt, exit 0, every expected order matched once);
# silent: nobody answers, worker 1 gives up and halts (exit 16), worker
# 0 carries on and every expected order is still matched once.
recover() {
	local mode=$1 retrans=() rc what="recovery, $1" damage rq=()
	# answered: 3 s before worker 1 gives up (the default 0.3 s is short
	# for a meter that shares a loaded CPU); silent: the default
	[ "$mode" = silent ] || retrans=(--retrans 10.9.9.9:26400)
	[ "$mode" = silent ] || rq=(--set recovery.timeout_ms=200)
	damage=(--drop 1:3000-3010)
	[ "$mode" != corrupt ] || damage=(--corrupt 1:4000)
	# latejoin: worker 1 meets the feed 2,000 frames in (join = recover)
	[ "$mode" != latejoin ] || damage=(--drop 1:1-2000)
	start_meter 1 --copies 2 --pace rate --pps 20000 \
		--expect "$T/expected.pcap" --timeout-us 30000000 --wait-ms 3000 \
		--link-timeout-ms 30000 "${damage[@]}" "${retrans[@]}"
	wait_socket
	hw_client --lcores=0@0,1@1,2@0 --set run.workers=2 --set run.dedup=claim \
		--set recovery.server=10.9.9.9:26400 "${rq[@]}"
	stop_both "$what"
	rc=$HRC
	expect_eq "$what: matched" "$(mvalue matched)" "$want"
	expect_eq "$what: duplicates" "$(mvalue duplicates)" 0
	expect_eq "$what: missed" "$(mvalue missed)" 0
	if [ "$mode" = corrupt ]; then
		# one damaged frame: refused by its checksum, then recovered
		expect_eq "$what: frames damaged on worker 1's copy" "$(mvalue corrupted_q1)" 1
	elif [ "$mode" = latejoin ]; then
		expect_eq "$what: frames left out of worker 1's copy" "$(mvalue dropped_q1)" 2000
	else
		expect_eq "$what: frames left out of worker 1's copy" "$(mvalue dropped_q1)" 11
	fi
	local gaps
	gaps=$(grep '^worker 1 gaps' "$T/out") || fail "$what: no gap line: $(cat "$T/err")"
	if [ "$mode" != silent ]; then
		expect_eq "$what: hedgewire exit status" "$rc" 0
		grep -q "HALTED" "$T/out" && fail "$what: $(grep HALTED "$T/out")"
		[ "$(mvalue retrans_answered)" -ge 1 ] || fail "$what: the meter answered nothing"
		echo "$gaps" | grep -q " 1 gaps recovered, 0 unanswered" ||
			fail "$what: $gaps"
		# every message the meter sent was taken, but for repeats: a
		# request ([recovery] max_messages = 1000 at most) that timed
		# out under load is asked again, and both answers come. So the
		# worker's requests are ceil(taken / 1000) distinct ones plus
		# repeats, and the meter sent at most 1000 more per repeat.
		local reqs hwmsgs sent repeats
		reqs=$(echo "$gaps" | sed -n 's/.* \([0-9]*\) requests, .*/\1/p')
		hwmsgs=$(echo "$gaps" | sed -n 's/.* \([0-9]*\) messages retransmitted.*/\1/p')
		[ -n "$reqs" ] && [ -n "$hwmsgs" ] && [ "$hwmsgs" -gt 0 ] ||
			fail "$what: no recovery counts: $gaps"
		sent=$(mvalue retrans_messages)
		repeats=$((reqs - (hwmsgs + 999) / 1000))
		[ "$repeats" -ge 0 ] && [ "$sent" -ge "$hwmsgs" ] &&
			[ $((sent - hwmsgs)) -le $((repeats * 1000)) ] ||
			fail "$what: $gaps vs meter $sent"
		grep -q "^worker 1 agrees with worker 0: yes" "$T/out" ||
			fail "$what: $(grep agrees "$T/out")"
	else
		expect_eq "$what: hedgewire exit status" "$rc" 16
		grep -q "^worker 1 HALTED on a sequence gap" "$T/out" ||
			fail "$what: worker 1 did not halt: $(grep -i halt "$T/out")"
		grep -q "^worker 0 HALTED" "$T/out" && fail "$what: worker 0 halted"
	fi
	echo "  $what: $want expected orders matched once; $(echo "$gaps" | cut -d: -f2-)"
	grep "^worker 1 HALTED" "$T/out" | cut -c1-100 | sed 's/^/  /' || true
}

measure 1 claim
measure 2 claim
measure 2 downstream
recover answer
recover corrupt
recover latejoin
recover silent
echo "PASS: meter"
