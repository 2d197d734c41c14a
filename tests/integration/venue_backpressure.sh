#!/usr/bin/env bash
# The venue session on a quiet feed (docs/venue.md "Answers on a quiet
# feed"): the replay is over, hedgewire keeps running, and the simulator
# sends N answers at once, more than the answer ring and the replicas'
# event queues hold. The session must stay up (our heartbeats go while
# the TX lcore holds back its reads) and every replica must take every
# answer although no feed message comes to carry the events.
#   venue_backpressure.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4
. "$SRCDIR/tests/integration/common.sh"
SIM="$SRCDIR/scripts/venue_sim.py"
[ -f "$SIM" ] || { echo "SKIP: no $SIM"; exit 77; }
N=20000
# the burst's UserRefNums: 0xF0000000 + i, never sent by hedgewire
BURST_REF=4026531840

# answers of the burst in hedgewire's venue journal (written by the
# control lcore once it has posted them to the replicas' queues)
taken() { awk -v r=$BURST_REF '$3 == "E" && $4 >= r' "$T/venue.jl" 2>/dev/null | wc -l; }

"$FEEDGEN" -q -o "$T/feed.pcap" --seed 31 --instruments 40 \
	--messages 20000 --per-packet 4 --heartbeats 50
"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 --imbalances 8 \
	--seed 5 --fill 0.1
cat >"$T/conf.ini" <<EOF
[book]
instruments = 256
orders = 262144
[table]
file = $T/table.tbl
[risk]
max_position = 100000000
max_orders_instrument = 20
max_orders_total = 200
window_ms = 50
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
dead_ms = 3000
max_orders_per_sec = 0
max_orders_per_sec_per_symbol = 0
EOF

# the simulator: heartbeats every 100 ms, drops a client silent for 3 s;
# the burst on our first heartbeat after the orders (the feed is over)
python3 "$SIM" --listen 127.0.0.1:0 --user U --password P --session S \
	--journal "$T/sim.jsonl" --ready-file "$T/port" --fill-pct 30 \
	--heartbeat-ms 100 --dead-ms 3000 --burst-on-heartbeat $N \
	>"$T/sim.out" 2>&1 &
SIMPID=$!
PIDS+=("$SIMPID")
for ((i = 0; i < 600; i++)); do
	[ -s "$T/port" ] && break
	kill -0 "$SIMPID" 2>/dev/null || break
	sleep 0.05
done
PORT=$(cat "$T/port") || fail "the simulator did not start: $(cat "$T/sim.out")"

# shellcheck disable=SC2086
"$HEDGEWIRE" --lcores=0@0,1@1,2@0,3@1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
	--log-level=error \
	--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap" \
	-- -c "$T/conf.ini" --set venue.port="$PORT" >"$T/out" 2>"$T/err" &
HWPID=$!
PIDS+=("$HWPID")

# the burst (after hedgewire's start-up and the replay: bounded by
# hedgewire exiting and by the test's timeout), then until the whole burst
# is posted to the replicas, the simulator drops the session, or
# hedgewire exits (120 s at most: a bound, not a timing: the answers wait
# for the slowest replica to finish the feed, and on shared CPUs a worker
# may get little of its core)
until grep -q '"event": "burst"' "$T/sim.jsonl" 2>/dev/null; do
	kill -0 "$HWPID" 2>/dev/null || break
	sleep 0.1
done
t0=$SECONDS
until ((SECONDS - t0 > 120)); do
	[ "$(taken)" -ge $N ] && break
	grep -q '"event": "drop"' "$T/sim.jsonl" 2>/dev/null && break
	kill -0 "$HWPID" 2>/dev/null || break
	sleep 0.05
done
got=$(taken)
grep -q '"event": "burst"' "$T/sim.jsonl" ||
	fail "the simulator never sent the burst (no client heartbeat after the orders)"
# and one more client heartbeat after the last answer reached hedgewire:
# the session lives on (waited for up to 30 s)
last_rx=$(awk -v r=$BURST_REF '$3 == "E" && $4 >= r { t = $2 } END { print t }' "$T/venue.jl")
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

drop=$(grep '"event": "drop"' "$T/sim.jsonl" | grep -v '"reason": "logout"' | head -1)
[ -z "$drop" ] || fail "the simulator dropped the session: $drop; burst answers posted $got of $N; $(grep '^venue: ' "$T/out" | grep -o 'sessions lost.*')"
expect_eq "burst answers posted to the replicas" "$got" $N
[ "$(hb_after 0)" -gt 0 ] || fail "no client heartbeat after the burst was taken"
[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
vv() { grep '^venue: ' "$T/out" | grep -o "$1 [0-9]*" | head -1 | awk '{ print $NF }'; }
expect_eq "sessions lost" "$(vv "sessions lost")" 0
expect_eq "answers lost" "$(vv "bad [0-9]*, lost" | head -1)" ""
held=$(vv "reads held back (answer ring short of room)")
[ "${held:-0}" -gt 0 ] ||
	fail "the answer ring never filled: the burst did not test the hold-back (reads held ${held:-none})"
# every replica took every answer of the burst: none is an open order,
# so each counts all N as unknown (no other answer is)
mapfile -t unk < <(awk '$1 == "venue_unknown_orders" { print $2 }' "$T/out")
expect_eq "replicas reporting" "${#unk[@]}" 2
for u in "${unk[@]}"; do
	expect_eq "answers a replica took (unknown orders)" "$u" $N
done
echo "  $N answers on a quiet feed: posted $got, taken by each replica ${unk[*]}; reads held back $held polls; $(grep -c '"type": "R"' "$T/sim.jsonl") client heartbeats, the session never lost"
