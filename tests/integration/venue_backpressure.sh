#!/usr/bin/env bash
# The venue session on a quiet feed (docs/venue.md "Answers on a quiet
# feed"): the replay is over, hedgewire keeps running, and the simulator
# sends N answers at once, more than the answer ring and the replicas'
# event queues hold. The session must stay up (our heartbeats go while
# the TX lcore holds back its reads) and every replica must take every
# answer although no feed message comes to carry the events. The burst
# is N System Events: answers about no order, so nothing a replica holds
# changes and none contradicts what was sent. Worker 1 freezes for 5 s
# near the end of the replay (--inject-stall): the burst comes while it
# is frozen, its event queue fills, then the answer ring, and the reads
# are held back far longer than the venue's dead time (1 s) until it
# comes back, finishes the feed and both take the rest on a quiet feed.
#   venue_backpressure.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4
. "$SRCDIR/tests/integration/common.sh"
SIM="$SRCDIR/scripts/venue_sim.py"
[ -f "$SIM" ] || { echo "SKIP: no $SIM"; exit 77; }
N=20000
DEAD_MS=1000	# the simulator's and hedgewire's dead time

# answers of the burst (System Events, sequence numbers B0..B1) in
# hedgewire's venue journal (written by the control lcore as it posts
# them to the replicas' queues)
taken() {
	[ -f "$T/venue.jl" ] || { echo 0; return; }
	awk -v a="$B0" -v b="$B1" '$3 == "S" && $1 >= a && $1 <= b' \
		"$T/venue.jl" | wc -l
}
# burst_field KEY: KEY of the simulator's burst record
burst_field() {
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("event") == "burst":
        print(r[sys.argv[2]]); break' "$T/sim.jsonl" "$1"
}

venue_feed 20000
cat >>"$T/conf.ini" <<EOF
[run]
workers = 2
dedup = tx-lcore
idle_timeout_ms = 0
stop_at_end_of_session = no
[venue]
host = 127.0.0.1
username = U
password = P
session = S
state_file = $T/state
journal = $T/venue.jl
heartbeat_ms = 100
dead_ms = $DEAD_MS
max_orders_per_sec = 0
max_orders_per_sec_per_symbol = 0
EOF
chmod 0600 "$T/conf.ini"	# it holds the venue password

# the simulator: heartbeats every 100 ms, drops a client silent for 1 s;
# the burst on our first heartbeat after the orders (the feed is over)
sim_start --fill-pct 30 --heartbeat-ms 100 --dead-ms $DEAD_MS \
	--burst-on-heartbeat $N

# shellcheck disable=SC2086
"$HEDGEWIRE" --lcores=0@0,1@1,2@0,3@1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
	--log-level=error \
	--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap" \
	-- -c "$T/conf.ini" --set venue.port="$PORT" \
	--inject-stall 1,5000000,19000 >"$T/out" 2>"$T/err" &
HWPID=$!
PIDS+=("$HWPID")

# the burst (after hedgewire's start-up and the replay: bounded by
# hedgewire exiting and by the test's timeout)
until grep -q '"event": "burst"' "$T/sim.jsonl" 2>/dev/null; do
	kill -0 "$HWPID" 2>/dev/null ||
		fail "hedgewire exited before the burst: $(cat "$T/err")"
	sleep 0.1
done
t_burst=$SECONDS
B0=$(burst_field first_seq) B1=$(burst_field last_seq)
expect_eq "answers in the burst" $((B1 - B0 + 1)) $N
# then until the whole burst is posted to the replicas, the simulator
# drops the session, or hedgewire exits (120 s at most: a bound, not a
# timing; the replicas take the answers as fast as their cores let them)
until ((SECONDS - t_burst > 120)); do
	[ "$(taken)" -ge $N ] && break
	grep -q '"event": "drop"' "$T/sim.jsonl" && break
	kill -0 "$HWPID" 2>/dev/null || break
	sleep 0.05
done
got=$(taken)
t_taken=$SECONDS
# and one more client heartbeat after the last answer reached hedgewire:
# the session lives on (waited for up to 30 s)
last_rx=$(awk -v a="$B0" -v b="$B1" '$3 == "S" && $1 >= a && $1 <= b { t = $2 } END { print t }' "$T/venue.jl")
# hb_after WAIT_S: client heartbeats the simulator received after
# last_rx, waiting up to WAIT_S for one (or a drop)
hb_after() {
	python3 - "$T/sim.jsonl" "${last_rx:-0}" "$1" <<'PY'
import json, sys, time
last = int(sys.argv[2]) / 1e9
end = time.monotonic() + float(sys.argv[3])
while True:
    recs = [json.loads(l) for l in open(sys.argv[1]) if l.endswith('\n')]
    n = sum(1 for r in recs if r.get('dir') == 'in' and
            r.get('type') == 'R' and r['t'] > last)
    if n or time.monotonic() > end or \
            any(r.get('event') == 'drop' for r in recs):
        break
    time.sleep(0.1)
print(n)
PY
}
[ "$got" -ge $N ] && hb_after 30 >/dev/null
kill -INT "$HWPID" 2>/dev/null
RC=0
wait "$HWPID" || RC=$?
kill "$SIMPID" 2>/dev/null; wait "$SIMPID" 2>/dev/null

drop=$(grep '"event": "drop"' "$T/sim.jsonl" | grep -v '"reason": "logout"' | head -1 || true)
[ -z "$drop" ] || fail "the simulator dropped the session: $drop; burst answers posted $got of $N; $(grep '^venue: ' "$T/out" | grep -o 'sessions lost.*')"
expect_eq "burst answers posted to the replicas" "$got" $N
[ "$(hb_after 0)" -gt 0 ] || fail "no client heartbeat after the burst was taken"
# exit 0: among the rest, the replicas agree (state, digest, events taken)
[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
vv() { grep '^venue: ' "$T/out" | grep -o "$1 [0-9]*" | head -1 | awk '{ print $NF }'; }
expect_eq "sessions lost" "$(vv "sessions lost")" 0
expect_eq "answers bad" "$(vv "(bad")" 0
expect_eq "answers lost" "$(vv "bad [0-9]*, lost")" 0
held=$(vv "reads held back (answer ring short of room)")
[ "${held:-0}" -gt 0 ] ||
	fail "the answer ring never filled: the burst did not test the hold-back (reads held ${held:-none})"
# the premise, on hedgewire's own clock: one hold outlasted the dead time
# (else a session whose timers stop while reads are held would survive
# this run too)
hold_ms=$(vv "longest hold")
[ "${hold_ms:-0}" -gt $DEAD_MS ] ||
	fail "the longest hold was ${hold_ms:-none} ms, not longer than the dead time ($DEAD_MS ms): the run did not test the session's timers during a hold"
# every replica took every answer posted to the replicas, the burst's
# among them
posted=$(vv "to the replicas")
[ "${posted:-0}" -ge $N ] || fail "answers posted to the replicas: ${posted:-none}, fewer than the burst's $N"
mapfile -t took < <(sed -n 's/^worker [0-9]* venue answers taken \([0-9]*\)$/\1/p' "$T/out")
expect_eq "replicas reporting" "${#took[@]}" 2
for t in "${took[@]}"; do
	expect_eq "venue answers a replica took" "$t" "$posted"
done
echo "  $N answers on a quiet feed: posted $got (all answers posted $posted), taken by each replica ${took[*]}; reads held back $held polls, the longest hold $hold_ms ms; $(grep -c '"type": "R"' "$T/sim.jsonl") client heartbeats, the session never lost; burst after ${t_burst} s, taken in $((t_taken - t_burst)) s"
