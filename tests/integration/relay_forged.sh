#!/usr/bin/env bash
# Forged relay datagrams in downstream mode (docs/venue.md "Downstream
# mode", "The relay's key"): hedgewire -> net_memif -> hgw-dedup -> TCP ->
# scripts/venue_sim.py, with hgw-dedup's --relay-forge. At the first
# order hgw-dedup puts on the link, ahead of its honest datagrams and
# numbered as the next honest one: an unsent 'u' of that order from
# another source MAC, another source IP, another source port, one under
# another key, and an 'A' under the key numbered 2^64-1; and it gives
# its own receiving end (the function its loop gives every frame) a 'K'
# from another MAC, a 'K' and a 'B' under another key and a 'K' under the
# key numbered 2^64-1. Nothing of it is taken: each is counted under its
# reason on the side it reached, no order is taken back, no kill, no
# early leave, every honest datagram and venue answer reaches the
# replicas, which agree.
#   relay_forged.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR   (HGW_DEDUP in env)
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4
. "$SRCDIR/tests/integration/common.sh"
SIM="$SRCDIR/scripts/venue_sim.py"
CHECK="python3 $SRCDIR/tests/integration/venue_check.py"
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no"
[ -f "$SIM" ] || { echo "SKIP: no $SIM"; exit 77; }
[ -x "${HGW_DEDUP:-}" ] || { echo "SKIP: no hgw-dedup (HGW_DEDUP)"; exit 77; }

venue_feed 60000
cat >>"$T/conf.ini" <<EOF
[run]
workers = 2
dedup = downstream
idle_timeout_ms = 0
events_log = $T/events.log
[order]
port = 1
[venue]
host = 127.0.0.1
username = U
password = P
session = S
state_file = $T/state
journal = $T/venue.jl
max_orders_per_sec = 0
max_orders_per_sec_per_symbol = 0
EOF
chmod 0600 "$T/conf.ini"	# it holds the venue password

rm -f "$T/port"
python3 "$SIM" --listen 127.0.0.1:0 --user U --password P --session S \
	--journal "$T/sim.jsonl" --ready-file "$T/port" --fill-pct 30 \
	>"$T/sim.out" 2>&1 &
PIDS+=($!)
for ((i = 0; i < 600; i++)); do
	[ -s "$T/port" ] && break
	sleep 0.05
done
PORT=$(cat "$T/port") || fail "the simulator did not start: $(cat "$T/sim.out")"

mem=$("$SRCDIR/scripts/eal-args.sh" 256)
# shellcheck disable=SC2086
HGW_VENUE_PASSWORD=P "$HGW_DEDUP" -l1 --no-pci $mem --file-prefix "$PREFIX-dd" \
	--log-level=error --vdev "net_memif0,role=server,$MEMIF" -- \
	--in 0 --queues 3 --idle-ms 0 --venue "127.0.0.1:$PORT" \
	--venue-user U --venue-session S \
	--state-file "$T/dstate" --reconnect-ms 50 --relay-forge \
	>"$T/dd.out" 2>"$T/dd.err" &
DDPID=$!
PIDS+=("$DDPID")
for ((i = 0; i < 300; i++)); do
	[ -S "$SOCK" ] && grep -q "^hgw-dedup: port" "$T/dd.out" && break
	if ! kill -0 "$DDPID" 2>/dev/null; then
		if grep -qi "memif" "$T/dd.err" &&
		   grep -qi "driver\|probe\|vdev\|EAL init" "$T/dd.err"; then
			echo "SKIP: no net_memif PMD: $(head -3 "$T/dd.err")"
			exit 77
		fi
		fail "hgw-dedup exited before listening: $(cat "$T/dd.err")"
	fi
	sleep 0.1
done
[ -S "$SOCK" ] || fail "no memif socket after 30 s: $(cat "$T/dd.err")"
grep -q "^hgw-dedup: port" "$T/dd.out" ||
	fail "no start-up line from hgw-dedup after 30 s: $(cat "$T/dd.out")"

RC=0
# shellcheck disable=SC2086
"$HEDGEWIRE" "--lcores=0@0,1@1,2@0" --no-pci $mem --file-prefix "$PREFIX" \
	--log-level=error \
	--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap" \
	--vdev "net_memif0,role=client,$MEMIF" -- -c "$T/conf.ini" \
	--set venue.port="$PORT" --set replay.pace=rate --set replay.pps=5000 \
	>"$T/out" 2>"$T/err" || RC=$?
kill -TERM "$DDPID" 2>/dev/null || true
DDRC=0
wait "$DDPID" || DDRC=$?
[ "$RC" = 0 ] || fail "hedgewire exit $RC: $(cat "$T/err")"
[ "$DDRC" = 0 ] || fail "hgw-dedup exit $DDRC: $(cat "$T/dd.err") $(grep '^venue' "$T/dd.out")"
grep -q "^hgw-dedup: venue" "$T/dd.out" || fail "hgw-dedup did not start its session"

# dv KEY / rv KEY: a number from hgw-dedup's "venue: ..." lines, from
# hedgewire's relay line
dv() {
	grep '^venue: ' "$T/dd.out" | grep -o "$1 [0-9][0-9]*" | head -1 | awk '{ print $NF }'
}
rv() {
	grep '^venue: relay from hgw-dedup' "$T/out" | grep -o "$1 [0-9][0-9]*" | head -1 | awk '{ print $NF }'
}
# drops FILE REASON: the count of datagrams dropped for REASON
drops() {
	grep '^venue: relay datagrams dropped' "$1" | grep -o "$2 [0-9][0-9]*" | awk '{ print $NF }'
}

[ "$(dv "orders sent")" -gt 100 ] || fail "too few orders sent: $(grep '^venue' "$T/dd.out")"
# hedgewire: each forged datagram counted under its reason
expect_eq "hedgewire: dropped, not from the peer" "$(drops "$T/out" "destination)")" 3
# (tag wrong: one under another key, one of an earlier run of the pair)
expect_eq "hedgewire: dropped, tag wrong" "$(drops "$T/out" "key)")" 2
expect_eq "hedgewire: dropped, beyond the window" "$(drops "$T/out" "the window")" 1
expect_eq "hedgewire: dropped, in all" "$(drops "$T/out" "dropped")" 6
# the earlier run's answer to its hello, replayed: refused, the run's
# keys stay this run's
expect_eq "hedgewire: keys agreed" "$(grep -o 'keys agreed [a-z]*' "$T/out" | head -1)" "keys agreed yes"
expect_eq "hedgewire: answers to a hello refused" "$(rv "answers refused")" 1
# ... and nothing of them taken: the forged 'u' took no order back, the
# 2^64-1 did not shadow the honest numbers (no gap, no repeat dropped,
# every answer relayed reached the replicas)
expect_eq "hedgewire: unsent taken" "$(rv "unsent")" 0
expect_eq "UNSENT events" "$(grep -c "^[0-9]* [0-9a-f]* [0-9]* unsent" "$T/events.log" || true)" 0
expect_eq "hedgewire: relay gaps" "$(rv gaps)" 0
expect_eq "hedgewire: sequenced" "$(rv sequenced)" "$(dv "relayed messages")"
expect_eq "hedgewire: logins" "$(rv logins)" "$(dv logins)"
grep -q "venue session lost" "$T/err" && fail "a kill: $(cat "$T/err")"
# hgw-dedup: the forged commands counted, no kill, no leave before
# hedgewire's own 'B'
expect_eq "hgw-dedup: dropped, not from the peer" "$(drops "$T/dd.out" "destination)")" 1
expect_eq "hgw-dedup: dropped, tag wrong" "$(drops "$T/dd.out" "key)")" 3
expect_eq "hgw-dedup: hellos refused" "$(dv "hellos refused")" 1
expect_eq "hgw-dedup: dropped, beyond the window" "$(drops "$T/dd.out" "the window")" 1
expect_eq "hgw-dedup: kills" "$(dv kills)" 0
expect_eq "hgw-dedup: cancels sent" "$(dv "cancels sent")" 0
grep -q "hgw-dedup left the link: yes" "$T/out" ||
	fail "hedgewire closed the link without hgw-dedup's 'b'"
expect_eq "hgw-dedup: venue messages after hedgewire left" "$(dv "after it left")" 0
# every message the simulator sent is in hedgewire's venue journal, in
# order, once; the simulator got every order once
$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" 2>&1 ||
	fail "venue journal: $(cat "$T/check2")"
$CHECK orders "$T/sim.jsonl" >"$T/check" 2>&1 ||
	fail "simulator journal: $(cat "$T/check")"
grep -q "NOT at the same message\|PASSED WITHOUT IT" "$T/out" &&
	fail "an event was not taken at one position: $(grep 'NOT at\|PASSED' "$T/out" | head -3)"
expect_eq "replicas agreeing with worker 0" "$(grep -c "agrees with worker 0: yes" "$T/out")" 1
echo "  hedgewire: $(grep '^venue: relay datagrams dropped' "$T/out" | cut -c8-)"
echo "  hgw-dedup: $(grep '^venue: relay datagrams dropped' "$T/dd.out" | cut -c8-)"
echo "  $(cat "$T/check"); $(cat "$T/check2")"
