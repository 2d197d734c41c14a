#!/usr/bin/env bash
# The order session to a venue ([venue], README "Venue session"): hedgewire
# in tx-lcore mode against scripts/venue_sim.py, an independent SoupBinTCP
# / OUCH 5.0 venue, judged from the simulator's own journal of what it
# received and sent (tests/integration/venue_check.py) and hedgewire's
# summary.
#   venue_session.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO
# SCENARIO: login | reject | heartbeat | dead | replay | restart | rate |
#           kill | disconnect | bad | tshark
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 SCENARIO=$5
. "$SRCDIR/tests/integration/common.sh"
SIM="$SRCDIR/scripts/venue_sim.py"
CHECK="python3 $SRCDIR/tests/integration/venue_check.py"
[ -f "$SIM" ] || { echo "SKIP: no $SIM"; exit 77; }

# sim_start [simulator options]: a simulator on a free port ($PORT), its
# journal in $T/sim.jsonl (appended over restarts of hedgewire)
sim_start() {
	rm -f "$T/port"
	python3 "$SIM" --listen 127.0.0.1:0 --user U --password P --session S \
		--journal "$T/sim.jsonl" --ready-file "$T/port" "$@" \
		>"$T/sim.out" 2>&1 &
	SIMPID=$!
	PIDS+=("$SIMPID")
	for ((i = 0; i < 200; i++)); do [ -s "$T/port" ] && break; sleep 0.05; done
	PORT=$(cat "$T/port") || fail "the simulator did not start: $(cat "$T/sim.out")"
}

sim_stop() {
	kill "$SIMPID" 2>/dev/null || true
	wait "$SIMPID" 2>/dev/null || true
}

# hw [hedgewire --set options]: 2 workers, tx-lcore, the session to $PORT;
# sets RC (never fails the script by itself)
hw() {
	RC=0
	run_hw "--lcores=0@0,1@1,2@0,3@1" \
		"net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap" \
		-c "$T/conf.ini" --set venue.port="$PORT" "$@" || RC=$?
}

# vv KEY: a number from the summary's "venue: ..." lines ("KEY N")
vv() {
	grep '^venue: ' "$T/out" | grep -o "$1 [0-9]*" | head -1 | awk '{ print $NF }'
}

"$FEEDGEN" -q -o "$T/feed.pcap" --seed 31 --instruments 40 \
	--messages 60000 --per-packet 4 --heartbeats 50
"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 --imbalances 8 \
	--seed 5 --fill 0.1
cat >"$T/conf.ini" <<EOF
[table]
file = $T/table.tbl
[risk]
max_orders_instrument = 20
max_orders_total = 200
window_ms = 50
[run]
workers = 2
dedup = tx-lcore
idle_timeout_ms = 0
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

# every order the simulator received: UserRefNums strictly increasing,
# no ClOrdID twice, as many as hedgewire says it sent
check_orders() {
	$CHECK orders "$T/sim.jsonl" >"$T/check" ||
		fail "simulator journal: $(cat "$T/check")"
	echo "  simulator: $(cat "$T/check")"
}

case $SCENARIO in
login)
	sim_start --fill-pct 30
	hw
	[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
	sent=$(vv "orders sent")
	[ "$sent" -gt 100 ] || fail "too few orders sent: $sent"
	expect_eq "logins" "$(vv logins)" 1
	expect_eq "unsent" "$(vv unsent)" 0
	check_orders
	expect_eq "orders the simulator got" "$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")" "$sent"
	# every message the simulator sent is in hedgewire's venue journal,
	# in order, once, and reached the replicas
	$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" ||
		fail "venue journal: $(cat "$T/check2")"
	echo "  $(cat "$T/check2")"
	grep -q "answers taken by the replicas" "$T/out" ||
		fail "no venue answers reached the replicas"
	;;
reject)
	sim_start
	hw --set venue.password=WRONG
	[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
	expect_eq "rejected" "$(vv rejected)" 1
	expect_eq "orders sent" "$(vv "orders sent")" 0
	[ "$(grep -o 'unsent (session down) [0-9]*' "$T/out" | awk '{ print $NF }')" -gt 0 ] ||
		fail "orders while rejected were not handed back"
	$CHECK orders "$T/sim.jsonl" >"$T/check" || true
	grep -q "orders=0" "$T/check" || fail "the simulator got orders: $(cat "$T/check")"
	echo "  login rejected; $(grep -o 'unsent (session down) [0-9]*' "$T/out")"
	;;
esac
exit 0
