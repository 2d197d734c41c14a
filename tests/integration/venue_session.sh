#!/usr/bin/env bash
# The order session to a venue ([venue], docs/venue.md "Venue session"): hedgewire
# in tx-lcore mode against scripts/venue_sim.py, an independent SoupBinTCP
# / OUCH 5.0 venue, judged from the simulator's own journal of what it
# received and sent (tests/integration/venue_check.py) and hedgewire's
# summary.
#   venue_session.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO
# SCENARIO: login | reject | heartbeat | dead | replay | restart | rate |
#           kill | kill-unanswered | disconnect | bad | tshark | fills | lie | fuzz |
#           dpdk-* (venue_dpdk.sh)
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 SCENARIO=$5
. "$SRCDIR/tests/integration/common.sh"
SIM="$SRCDIR/scripts/venue_sim.py"
SIMPID=""
CHECK="python3 $SRCDIR/tests/integration/venue_check.py"
# part of the tree: missing is a broken checkout, not a reason to skip
[ -f "$SIM" ] || fail "no $SIM"

sim_stop() {
	[ -n "$SIMPID" ] || return 0
	kill "$SIMPID" 2>/dev/null || true
	wait "$SIMPID" 2>/dev/null || true
}

# run_conf [--set S.K=V ...]: $T/run.ini, conf.ini with those keys set
# (what the reference reads of the run's configuration)
run_conf() {
	python3 - "$T/conf.ini" "$@" >"$T/run.ini" <<'PY'
import sys
sets = [a.split('=', 1) for a in sys.argv[2:] if '=' in a and '.' in a.split('=')[0]]
sec, out = None, []
for line in open(sys.argv[1]):
    if line.startswith('['):
        sec = line.strip()[1:-1]
    elif '=' in line:
        k = line.split('=')[0].strip()
        for sk, v in sets:
            if sk == sec + '.' + k:
                line = '%s = %s\n' % (k, v)
    out.append(line)
for sk, v in sets:
    s_, k = sk.split('.', 1)
    if not any(l.startswith(k + ' ') for l in out):
        out.append('[%s]\n%s = %s\n' % (s_, k, v))
sys.stdout.write(''.join(out))
PY
}

# hw_bg [hedgewire --set options]: 2 workers, tx-lcore, the session to
# $PORT, events log $T/events.log (a new one each run), in the background
# (hedgewire itself, not a subshell, so that a signal reaches it); its
# pid in HWPID
hw_bg() {
	rm -f "$T/events.log"
	run_conf "$@"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" "--lcores=0@0,1@1,2@0,3@1" --no-pci $EAL_MEM \
		--file-prefix "$PREFIX" --log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap" \
		-- -c "$T/conf.ini" --set venue.port="$PORT" \
		--set run.events_log="$T/events.log" "$@" >"$T/out" 2>"$T/err" &
	HWPID=$!
	PIDS+=("$HWPID")
}

# waited START [hedgewire --set options]: START (hw_bg, or hwd_bg
# downstream) with the options, waited for; sets RC (never fails the
# script by itself)
waited() {
	local start=$1
	shift
	RC=0
	"$start" "$@"
	wait "$HWPID" || RC=$?
}

# hw [hedgewire --set options]: hw_bg, waited for
hw() {
	waited hw_bg "$@"
}

# driven DRIVER START [hedgewire --set options]: START (hw_bg, or hwd_bg
# downstream) with the options, but the run goes on past the end of the
# session until the telemetry driver DRIVER (a pid) has sent its
# commands, and then stops on SIGTERM: the commands land while hedgewire
# runs, however long a loaded host takes to get the first order to the
# venue. A driver that got no event back fails the script. Sets RC.
driven() {
	local drv=$1 start=$2
	shift 2
	"$start" --set run.stop_at_end_of_session=no "$@"
	wait "$drv" || fail "telemetry driver: $(cat "$T/driver.out"); hedgewire: $(tail -3 "$T/err")"
	kill -TERM "$HWPID" 2>/dev/null || true
	RC=0
	wait "$HWPID" || RC=$?
}

# check_ref [venue_check.py ref options]: the orders the simulator
# received are those the reference decides for the run's configuration
# ($T/run.ini) given hedgewire's events log ($T/events.log)
check_ref() {
	python3 "$SRCDIR/tests/ref/hgw_ref.py" --feed "$T/feed.pcap" --table "$T/table.tbl" \
		--conf "$T/run.ini" --events "$T/events.log" --out "$T/ref.pcap" \
		>"$T/ref.txt" 2>"$T/ref.err" || fail "hgw_ref: $(tail -3 "$T/ref.err")"
	$CHECK ref "$T/sim.jsonl" "$T/ref.pcap" "$@" >"$T/check4" 2>&1 ||
		fail "reference: $(cat "$T/check4")"
	echo "  $(cat "$T/check4")"
}

# check_events [venue_check.py events options]: hedgewire's events log
# against the simulator's journal
check_events() {
	local jl taken
	jl=$(find "$T" -maxdepth 1 -name 'venue.jl*' | sort -V | tail -1)
	taken=$(sed -n 's/^venue: \([0-9]*\) answers taken by the replicas.*/\1/p' "$T/out")
	$CHECK events "$T/sim.jsonl" "$T/events.log" --journal "$jl" \
		--taken "${taken:-0}" "$@" >"$T/check5" 2>&1 ||
		fail "$(cat "$T/check5")"
	echo "  $(cat "$T/check5")"
}

# driver_events CMD: how many CMD the telemetry driver sent that became
# events
driver_events() {
	grep -c "^$1 .*\"event\"" "$T/driver.out" || true
}

# kill_checks: after a run with the telemetry driver's kill,1: cancels
# sent, each at the simulator and answered as the summary says, every
# order open at the venue cancelled and none entered after the kill, the
# reference and the events
kill_checks() {
	local cs vc
	cs=$(vv "cancels sent") vc=$(vv "cancelled by the venue after a kill")
	[ "$cs" -gt 0 ] || fail "no cancels sent: $(grep '^venue' "$T/out"); driver: $(cat "$T/driver.out")"
	$CHECK cancels "$T/sim.jsonl" >"$T/check" 2>&1 || fail "$(cat "$T/check")"
	expect_eq "cancels the simulator got" "$(sed -n 's/.*cancels=\([0-9]*\).*/\1/p' "$T/check")" "$cs"
	expect_eq "cancelled answers" "$(sed -n 's/.*canceled=\([0-9]*\).*/\1/p' "$T/check")" "$vc"
	$CHECK kill "$T/sim.jsonl" >"$T/check3" 2>&1 || fail "$(cat "$T/check3")"
	echo "  cancels sent $cs, cancelled by the venue $vc; simulator: $(cat "$T/check")"
	echo "  $(cat "$T/check3")"
	check_ref
	check_events --kills "$(driver_events /hgw/risk/kill,1)"
}

# vv KEY: a number from the summary's "venue: ..." lines ("KEY N")
vv() {
	grep '^venue: ' "$T/out" | grep -o "$1 [0-9]*" | head -1 | awk '{ print $NF }'
}

venue_feed 60000
cat >>"$T/conf.ini" <<EOF
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
chmod 0600 "$T/conf.ini"	# it holds the venue password

# sim_settled: wait (60 s at most) until the simulator has closed every
# connection it accepted: what hedgewire wrote before it exited, the
# simulator's kernel may hold unread while the simulator lags behind
sim_settled() {
	local i opened closed
	for ((i = 0; i < 1200; i++)); do
		[ -n "$SIMPID" ] && kill -0 "$SIMPID" 2>/dev/null || return 0
		opened=$(grep -c '"event": "connect"' "$T/sim.jsonl" 2>/dev/null || true)
		closed=$(grep -c '"event": "close"' "$T/sim.jsonl" 2>/dev/null || true)
		[ "${closed:-0}" -lt "${opened:-0}" ] || return 0
		sleep 0.05
	done
}

# every order the simulator received: UserRefNums strictly increasing,
# no ClOrdID twice, as many as hedgewire says it sent
check_orders() {
	sim_settled
	$CHECK orders "$T/sim.jsonl" >"$T/check" 2>&1 ||
		fail "simulator journal: $(cat "$T/check")"
	echo "  simulator: $(cat "$T/check")"
}

case $SCENARIO in
downstream-*)
	# shellcheck source=tests/integration/venue_downstream.sh
	. "$SRCDIR/tests/integration/venue_downstream.sh"
	exit 0
	;;
dpdk-*)
	# the session on hedgewire's own TCP: tests/integration/venue_dpdk.sh
	. "$SRCDIR/tests/integration/venue_dpdk.sh"
	exit 0
	;;
lie|fuzz)
	# a hostile venue: tests/integration/venue_lie.sh, venue_fuzz.sh
	. "$SRCDIR/tests/integration/venue_$SCENARIO.sh"
	exit 0
	;;
esac

case $SCENARIO in
login)
	sim_start --fill-pct 30
	# paced (3 s of feed): the venue's answers come back while the feed
	# still runs, so the replicas take some (replayed at full speed, the
	# feed can end first)
	hw --set replay.pace=rate --set replay.pps=5000
	[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
	sent=$(vv "orders sent")
	[ "$sent" -gt 100 ] || fail "too few orders sent: $sent"
	expect_eq "logins" "$(vv logins)" 1
	expect_eq "unsent" "$(vv unsent)" 0
	check_orders
	expect_eq "orders the simulator got" "$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")" "$sent"
	# every message the simulator sent is in hedgewire's venue journal,
	# in order, once, and reached the replicas
	$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" 2>&1 ||
		fail "venue journal: $(cat "$T/check2")"
	echo "  $(cat "$T/check2")"
	grep -q "answers taken by the replicas" "$T/out" ||
		fail "no venue answers reached the replicas"
	check_ref
	check_events
	;;
reject)
	sim_start
	# the password only from a file others cannot read (or the
	# environment): never from --set
	sed -i 's/^password = P$/password = WRONG/' "$T/conf.ini"
	hw --set replay.pace=rate --set replay.pps=15000
	[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
	expect_eq "rejected" "$(vv rejected)" 1
	expect_eq "orders sent" "$(vv "orders sent")" 0
	# the session ended for the run: a kill, so (almost) nothing is
	# decided; whatever was, is handed back
	[ "$(vv "session-lost kills")" = 1 ] || fail "no kill on a rejected login"
	[ "$(value reject_kill_switch)" -gt 0 ] || fail "the replicas did not stop trading"
	$CHECK orders "$T/sim.jsonl" >"$T/check" 2>&1 || true
	grep -q "orders=0" "$T/check" || fail "the simulator got orders: $(cat "$T/check")"
	echo "  login rejected; kill switch rejects $(value reject_kill_switch); $(grep -o 'unsent (session down) [0-9]*' "$T/out" || echo 'nothing handed back')"
	check_ref
	check_events
	;;
heartbeat)
	# both sides heartbeat every 100 ms; a paced replay with quiet spells
	sim_start --heartbeat-ms 100
	hw --set venue.heartbeat_ms=100 --set venue.dead_ms=1000 \
		--set replay.pace=rate --set replay.pps=2000
	[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
	hs=$(vv "heartbeats sent") hr=$(vv "received")
	[ "$hs" -gt 0 ] || fail "no client heartbeat sent"
	[ "$hr" -gt 0 ] || fail "no server heartbeat received"
	# a session is lost only when the simulator really was silent 1 s,
	# by its own clock (a stall of a loaded host is one)
	$CHECK silences "$T/sim.jsonl" 1000 >"$T/check6" 2>&1 || fail "$(cat "$T/check6")"
	sil=$(sed -n 's/^silences=//p' "$T/check6")
	[ "$(vv "sessions lost")" -le "$sil" ] ||
		fail "sessions lost $(vv "sessions lost"), the simulator silent $sil times for 1 s"
	$CHECK heartbeats "$T/sim.jsonl" >"$T/check" 2>&1 || fail "$(cat "$T/check")"
	check_ref
	check_events
	echo "  hedgewire: heartbeats sent $hs received $hr; simulator: $(cat "$T/check")"
	;;
dead)
	# the simulator goes silent (no data, no heartbeat) after 20 messages
	sim_start --silent-after 20 --heartbeat-ms 100
	hw --set venue.heartbeat_ms=100 --set venue.dead_ms=500 \
		--set replay.pace=rate --set replay.pps=6000
	grep -q "^venue: connection dropped (server silent too long) [1-9]" "$T/out" ||
		fail "dead server not detected: $(grep '^venue' "$T/out")"
	[ "$(vv "session-lost kills")" -ge 1 ] || fail "no kill on the lost session"
	grep -q "venue session lost" "$T/err" || fail "the control plane did not say the session was lost"
	check_orders
	echo "  $(grep '^venue: connection dropped' "$T/out" | tr '\n' ' ')"
	check_ref
	check_events
	;;
replay)
	# the simulator drops the connection after 30 messages; hedgewire
	# reconnects asking for the next one and the simulator replays; the
	# operator re-enables trading after the session-lost kill
	sim_start --drop-after 30 --fill-pct 30
	# re-enabled 0.5 s after the simulator dropped the connection
	python3 "$SRCDIR/tests/integration/tel_driver.py" "$PREFIX" \
		--cmd /hgw/risk/kill,0 --gap-ms 500,500 --duration 1 \
		--after "$T/sim.jsonl:\"reason\": \"drop-after" \
		>"$T/driver.out" 2>&1 &
	drv=$!
	PIDS+=("$drv")
	hw --set venue.reconnect_ms=50 --set replay.pace=rate --set replay.pps=6000
	# its output whole (it may re-enable nothing if the run ended first:
	# what it did is counted below)
	wait "$drv" || true
	[ "$RC" = 0 ] || fail "exit $RC: $(tail -5 "$T/err")"
	[ "$(vv logins)" -ge 2 ] || fail "no reconnect: $(grep '^venue' "$T/out")"
	[ "$(vv "session-lost kills")" -ge 1 ] || fail "no kill on the lost session"
	check_orders
	$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" 2>&1 ||
		fail "venue journal: $(cat "$T/check2")"
	echo "  logins $(vv logins); $(cat "$T/check2")"
	check_ref
	check_events --unkills "$(driver_events /hgw/risk/kill,0)"
	;;
restart-logout)
	# a clean stop (Logout) with orders still open, then a restart on
	# the same state file with cancel_on_disconnect = yes: the Logout
	# cancelled nothing, so the restart must not trade until an
	# operator clears the kill switch
	sim_start --fill-pct 30 --cancel-on-disconnect
	hw --set venue.cancel_on_disconnect=yes
	[ "$RC" = 0 ] || fail "first run: exit $RC: $(cat "$T/err")"
	$CHECK orders "$T/sim.jsonl" >"$T/check" 2>&1 || fail "first run: $(cat "$T/check")"
	first=$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")
	[ "$first" -gt 0 ] || fail "the first run sent nothing"
	hw --set venue.cancel_on_disconnect=yes
	[ "$RC" = 0 ] || fail "restart: exit $RC: $(cat "$T/err")"
	grep -q "^venue: orders of an earlier run today (UserRefNum up to [1-9][0-9]*) may still be open at the venue (it stopped with orders open)" "$T/out" ||
		fail "the restart did not say the earlier orders may be open: $(grep '^venue' "$T/out")"
	$CHECK orders "$T/sim.jsonl" >"$T/check" 2>&1 || fail "$(cat "$T/check")"
	all=$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")
	expect_eq "orders the venue received from the restart" $((all - first)) 0
	echo "  first run sent $first and stopped with orders open; the restart traded nothing"
	;;
restart | restart-open)
	# SIGKILL in the middle, then a restart on the same state file: no
	# UserRefNum twice, none going back, no ClOrdID twice at the venue.
	# restart: the venue cancels what is open when the connection drops;
	# restart-open: it does not, so the first run's orders may still
	# fill, which the restart (starting flat) would not count: it must
	# not trade until an operator clears the kill switch
	if [ "$SCENARIO" = restart ]; then
		cod=yes
		sim_start --fill-pct 30 --cancel-on-disconnect
	else
		cod=no
		sim_start --fill-pct 30
	fi
	# shellcheck disable=SC2086
	(exec "$HEDGEWIRE" "--lcores=0@0,1@1,2@0,3@1" --no-pci $EAL_MEM \
		--file-prefix "$PREFIX" --log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap" \
		-- -c "$T/conf.ini" --set venue.port="$PORT" \
		--set run.events_log="$T/events1.log" \
		--set venue.cancel_on_disconnect=$cod \
		--set replay.pace=rate --set replay.pps=3000 \
		--set run.stop_at_end_of_session=no >"$T/out1" 2>&1) &
	hwpid=$!
	# killed once orders flow (a loaded host starts slowly), mid-replay
	for ((i = 0; i < 600; i++)); do
		grep -q '"type": "U"' "$T/sim.jsonl" 2>/dev/null && break
		kill -0 "$hwpid" 2>/dev/null || break
		sleep 0.05
	done
	sleep 0.5
	# it runs past the end of the session: a SIGKILL, never an end
	kill -0 "$hwpid" 2>/dev/null ||
		fail "the first run ended before the SIGKILL: $(tail -3 "$T/out1")"
	kill -KILL "$hwpid" 2>/dev/null || true
	wait "$hwpid" 2>/dev/null || true
	# what it wrote before the SIGKILL, a lagging simulator reads later
	sim_settled
	$CHECK orders "$T/sim.jsonl" >"$T/check" 2>&1 || fail "first run: $(cat "$T/check")"
	first=$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")
	[ "$first" -gt 0 ] || fail "nothing sent before the SIGKILL"
	hw --set replay.pace=rate --set replay.pps=6000 \
		--set venue.cancel_on_disconnect=$cod
	[ "$RC" = 0 ] || fail "restart: exit $RC: $(cat "$T/err")"
	floor=$(sed -n 's/.*UserRefNum floor \([0-9]*\),.*/\1/p' "$T/out")
	[ "$floor" -gt 0 ] || fail "the restart did not read the floor"
	if [ "$SCENARIO" = restart-open ]; then
		grep -q "^venue: orders of an earlier run today (UserRefNum up to $floor) may still be open" "$T/out" ||
			fail "the restart did not say the earlier orders may be open: $(grep '^venue' "$T/out")"
		# not one Enter Order on the restart's connection
		$CHECK orders "$T/sim.jsonl" >"$T/check" 2>&1 || fail "$(cat "$T/check")"
		all=$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")
		expect_eq "orders the venue received from the restart" $((all - first)) 0
		expect_eq "orders the restart sent" "$(vv "orders sent")" 0
		echo "  first run sent $first before SIGKILL; the restart from floor $floor traded nothing: $(grep -o 'orders of an earlier run.*' "$T/out" | head -1)"
		exit 0
	fi
	grep -q "unsent (UserRefNum not above the last one sent today) [1-9]" "$T/out" ||
		fail "the restart resent nothing and refused nothing: $(grep '^venue' "$T/out")"
	check_orders
	# what the first run received before the SIGKILL is in its journal,
	# the rest in the restart's: none missing
	$CHECK covered "$T/sim.jsonl" "$T/venue.jl" "$T/venue.jl.1" >"$T/check2" 2>&1 ||
		fail "journals: $(cat "$T/check2")"
	echo "  $(cat "$T/check2")"
	# each run's orders are the reference's given its events log: the
	# first run's on the first connection (cut short by the SIGKILL),
	# the restart's on the next
	check_ref --conns 2-
	check_events --conns 2- --first-seq auto
	mv "$T/events1.log" "$T/events.log"
	check_ref --conns 1-1
	echo "  first run sent $first before SIGKILL; restart from floor $floor sent $(vv "orders sent")"
	;;
rate)
	# a fast replay offers about a thousand orders a second (the feed-time
	# throttle allows 300 per 100 ms of feed time), a slow host a few
	# hundred: the wall-clock caps hold at the session (a per-symbol cap
	# low enough to bite on a slow host too)
	sim_start
	hw --set venue.max_orders_per_sec=40 --set venue.max_orders_per_sec_per_symbol=3 \
		--set risk.max_orders_instrument=20 --set risk.max_orders_total=300 \
		--set risk.window_ms=100 --set replay.pace=rate --set replay.pps=6000 \
		--set order.journal="$T/orders.pcap"
	[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
	# the caps on hedgewire's own clock (its journal of orders sent)
	$CHECK sendrate "$T/orders.pcap" "$T/sim.jsonl" 40 3 >"$T/check7" 2>&1 ||
		fail "$(cat "$T/check7")"
	echo "  $(cat "$T/check7")"
	# and the run offered more than the caps take: without refusals it
	# would not test them
	grep -q "unsent (over max_orders_per_sec) [1-9]" "$T/out" ||
		fail "the total cap refused nothing: $(grep '^venue' "$T/out")"
	grep -q "unsent (over max_orders_per_sec_per_symbol) [1-9]" "$T/out" ||
		fail "the per-symbol cap refused nothing: $(grep '^venue' "$T/out")"
	check_orders
	check_ref
	check_events
	echo "  hedgewire: $(grep -o 'unsent (over max[^)]*) [0-9]*' "$T/out" | tr '\n' ' ')"
	;;
kill)
	# kill switch mid-run: every order open at the venue is cancelled
	sim_start
	# the kill switch 0.5 s after the first order reached the venue
	python3 "$SRCDIR/tests/integration/tel_driver.py" "$PREFIX" \
		--cmd /hgw/risk/kill,1 --gap-ms 500,500 --duration 1 \
		--after "$T/sim.jsonl:\"type\": \"U\"" >"$T/driver.out" 2>&1 &
	PIDS+=($!)
	driven $! hw_bg --set replay.pace=rate --set replay.pps=3000
	[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
	kill_checks
	;;
kill-unanswered)
	# the venue stops reading for good after 100 orders, and then the
	# kill switch goes on: its cancels are never answered, so at the stop
	# hedgewire waits the session's dead time for the answers, then says
	# that orders may be open at the venue and exits with the orders bit
	# (10), never 0
	sim_start --rcvbuf 2048 --stall-after 100:600000
	python3 "$SRCDIR/tests/integration/tel_driver.py" "$PREFIX" \
		--cmd /hgw/risk/kill,1 --gap-ms 200,200 --duration 1 \
		--after "$T/sim.jsonl:\"event\": \"stall\"" >"$T/driver.out" 2>&1 &
	PIDS+=($!)
	driven $! hw_bg --set replay.pace=rate --set replay.pps=3000 \
		--set venue.heartbeat_ms=500 --set venue.dead_ms=3000
	[ "$RC" = 10 ] || fail "exit $RC with the kill's cancels unanswered: $(tail -3 "$T/err"); driver: $(cat "$T/driver.out")"
	[ "$(vv "cancels sent")" -gt 0 ] || [ "$(vv kills)" -gt 0 ] ||
		fail "no kill: $(grep '^venue' "$T/out"); driver: $(cat "$T/driver.out")"
	grep -Eq "^hedgewire: venue: stopping with cancels not (sent|answered) \(the session is up\): orders may be open at the venue" "$T/err" ||
		fail "not said: $(grep venue "$T/err")"
	echo "  $(grep "stopping with cancels" "$T/err"); cancels sent $(vv "cancels sent")"
	;;
disconnect)
	# the venue cancels open orders when the session drops: hedgewire
	# does not cancel them again, and the replicas get the venue's cancels
	sim_start --drop-after 40 --cancel-on-disconnect
	# (no cancel is owed, so the reconnect must come before the feed's
	# end: 3,000 pps leaves it about 5 s)
	hw --set venue.cancel_on_disconnect=yes --set venue.reconnect_ms=50 \
		--set replay.pace=rate --set replay.pps=3000
	[ "$(vv logins)" -ge 2 ] || fail "no reconnect"
	expect_eq "cancels sent (the venue did it)" "$(vv "cancels sent")" 0
	$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" 2>&1 || fail "$(cat "$T/check2")"
	awk '$3 == "C"' "$T/venue.jl" | grep -q . || fail "no Canceled answer reached the journal"
	echo "  $(awk '$3 == "C"' "$T/venue.jl" | wc -l) venue cancels journalled; $(cat "$T/check2")"
	check_ref
	check_events
	# without the flag, hedgewire cancels what it knows open after the reconnect
	sim_stop
	rm -f "$T/state" "$T/sim.jsonl"
	sim_start --drop-after 40
	hw --set venue.cancel_on_disconnect=no --set venue.reconnect_ms=50 \
		--set replay.pace=rate --set replay.pps=6000
	[ "$(vv "cancels sent")" -gt 0 ] || fail "no cancels after the reconnect: $(grep '^venue' "$T/out")"
	check_ref
	check_events
	echo "  without cancel_on_disconnect: cancels sent $(vv "cancels sent")"
	;;
bad)
	# a System Event one byte too long (sequenced: an OUCH message that
	# does not decode), a packet type SoupBinTCP does not have, and a
	# Login Accepted one below what was asked for after a drop
	for kind in badlen unknown gap; do
		sim_stop
		rm -f "$T/state" "$T/sim.jsonl" "$T/venue.jl"*
		sim_start --bad-after "20:$kind"
		# (the reconnect must come before the feed's end)
		hw --set replay.pace=rate --set replay.pps=3000 --set venue.reconnect_ms=50
		case $kind in
		badlen) want="a message the application refused";;
		unknown) want="unknown packet type";;
		gap) want="out-of-sequence login or data";;
		esac
		grep -Eq "^venue: connection dropped \(($want)\) [1-9]" "$T/out" ||
			fail "$kind: not counted as $want: $(grep '^venue' "$T/out" | tr '\n' ' ')"
		[ "$(vv "session-lost kills")" -ge 1 ] || fail "$kind: no kill"
		[ "$(vv logins)" -ge 2 ] || fail "$kind: no reconnect after the drop"
		case $kind in
		badlen)
			[ "$(vv "(bad")" = 1 ] || fail "badlen: bad messages $(vv "(bad")"
			grep -q " BAD$" "$T/venue.jl" || fail "badlen: not journalled as BAD";;
		unknown)
			expect_eq "unknown packets" "$(vv ", unknown")" 1;;
		gap)
			# refused, and the next login gets the right number: every
			# message once, in order
			expect_eq "out-of-sequence" "$(vv ", out-of-sequence")" 1
			$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" 2>&1 ||
				fail "gap: $(cat "$T/check2")";;
		esac
		check_orders
		echo "  $kind: $(grep -E "^venue: connection dropped \(($want)\)" "$T/out")"
		check_ref
		check_events
	done
	;;
tshark)
	command -v dumpcap >/dev/null || { echo "SKIP: no dumpcap"; exit 77; }
	sim_start --fill-pct 30
	dumpcap -q -i lo -f "tcp port $PORT" -w "$T/session.pcapng" >"$T/dumpcap.out" 2>&1 &
	dc=$!
	PIDS+=("$dc")
	# until dumpcap captures: it writes the file's header once the
	# interface is open and filtered, then names the file; at most 30 s
	# (a loaded host starts it slowly)
	for ((i = 0; i < 300; i++)); do
		grep -q "^File: " "$T/dumpcap.out" &&
			[ -s "$T/session.pcapng" ] && break
		kill -0 "$dc" 2>/dev/null || fail "dumpcap: $(cat "$T/dumpcap.out")"
		sleep 0.1
	done
	[ -s "$T/session.pcapng" ] || fail "dumpcap not capturing after 30 s: $(cat "$T/dumpcap.out")"
	sleep 0.2
	hw --set replay.pace=rate --set replay.pps=5000
	capture_ended "$T/session.pcapng" "$PORT"
	kill -INT "$dc"; wait "$dc" 2>/dev/null || true
	[ "$RC" = 0 ] || fail "exit $RC: $(cat "$T/err")"
	tshark -r "$T/session.pcapng" -d "tcp.port==$PORT,soupbintcp" -T fields \
		-e soupbintcp.packet_type 2>/dev/null | tr ',' '\n' | tr -d "'" >"$T/types"
	login=$(tshark -r "$T/session.pcapng" -d "tcp.port==$PORT,soupbintcp" \
		-Y "soupbintcp.packet_type == 'L'" -T fields -e soupbintcp.username \
		-e soupbintcp.session 2>/dev/null | tr -d ' ')
	expect_eq "tshark: Login Request (username, session)" "$login" "$(printf 'U\tS')"
	tshark -r "$T/session.pcapng" -d "tcp.port==$PORT,soupbintcp" -V \
		>"$T/session.txt" 2>/dev/null
	grep -q "Requested sequence number: 1$" "$T/session.txt" ||
		fail "tshark: the Login Request does not ask for message 1"
	expect_eq "tshark: Unsequenced Data packets" "$(grep -cx U "$T/types")" "$(vv "orders sent")"
	expect_eq "tshark: Login Requests" "$(grep -cx L "$T/types")" 1
	expect_eq "tshark: Login Accepted" "$(grep -cx A "$T/types")" 1
	expect_eq "tshark: Logout Requests" "$(grep -cx O "$T/types")" 1
	[ "$(grep -cx S "$T/types")" -ge "$(vv "orders sent")" ] ||
		fail "tshark: fewer Sequenced Data than orders"
	if [ -f "$SRCDIR/tests/integration/soupbin_tshark.py" ]; then
		python3 "$SRCDIR/tests/integration/soupbin_tshark.py" "$T/session.pcapng" "$PORT" "$T/sim.jsonl" \
			>"$T/ts.out" 2>&1 || fail "soupbin_tshark.py: $(tail -3 "$T/ts.out")"
		echo "  $(tail -1 "$T/ts.out")"
	fi
	echo "  tshark decodes $(grep -cx U "$T/types") orders, the login and the logout"
	check_ref
	check_events
	;;
fills)
	# Positions and open orders come from what the venue did: 3 replicas
	# take every answer as an event at one feed position. The venue fills
	# every order whole, so an order is open from its decision until its
	# answers reach the replicas: the open-order cap bites while answers
	# are on their way, and the position limit (filled plus open on the
	# order's side) as fills add up. The replicas agree (the exit check compares every open
	# order and position: exit 0), and the reference evaluator, given the
	# events log (the answers, at their positions), decides exactly the
	# orders the venue received, with the same rejects and the same
	# filled, cancelled and open shares.
	sim_start --fill-pct 100
	sed -e 's/^max_position = .*/max_position = 1500\nmax_open_orders = 2/' \
		-e "s|^workers = 2|workers = 3\\nevents_log = $T/events.log|" \
		"$T/conf.ini" >"$T/fills.ini"
	chmod 0600 "$T/fills.ini"
	RC=0
	run_hw "--lcores=0@0,1@1,2@0,3@1,4@0" \
		"net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap" \
		-c "$T/fills.ini" --set venue.port="$PORT" \
		--set replay.pace=rate --set replay.pps=3000 || RC=$?
	[ "$RC" = 0 ] || fail "exit $RC (replicas must agree): $(tail -5 "$T/err")"
	python3 "$SRCDIR/tests/ref/hgw_ref.py" --feed "$T/feed.pcap" --table "$T/table.tbl" \
		--conf "$T/fills.ini" --events "$T/events.log" --out "$T/ref.pcap" \
		>"$T/ref.txt" 2>"$T/ref.err" || fail "hgw_ref: $(tail -3 "$T/ref.err")"
	ref() { awk -v k="$1" '$1 == k { print $2; exit }' "$T/ref.txt"; }
	for key in decisions reject_position_limit reject_open_orders \
		   venue_filled_shares venue_reduced_shares venue_closed_orders \
		   venue_unknown_orders open_orders; do
		expect_eq "$key (worker 0 vs the reference)" "$(value "$key")" "$(ref "$key")"
	done
	for key in reject_position_limit reject_open_orders venue_filled_shares; do
		[ "$(ref "$key")" -gt 0 ] || fail "no $key in this run: the test means little"
	done
	# the orders the venue received are the reference's, byte for byte
	python3 - "$T/ref.pcap" "$T/sim.jsonl" <<'PY' >"$T/cmp" 2>&1 || fail "$(cat "$T/cmp")"
import json, struct, sys
buf = open(sys.argv[1], 'rb').read()
ref, off = [], 24
while off + 16 <= len(buf):
    n = struct.unpack_from('<I', buf, off + 8)[0]
    ref.append(buf[off + 16 + 45:off + 16 + n].hex())
    off += 16 + n
got = [r['hex'] for r in map(json.loads, open(sys.argv[2]))
       if r.get('dir') == 'in' and r.get('type') == 'U' and r.get('msg') == 'O']
if got != ref:
    k = next((i for i, (a, b) in enumerate(zip(got, ref)) if a != b), min(len(got), len(ref)))
    sys.exit('the venue got %d orders, the reference decides %d; first difference at %d'
             % (len(got), len(ref), k))
print('the venue got %d orders, each the reference\'s' % len(got))
PY
	echo "  $(cat "$T/cmp")"
	check_orders
	cp "$T/fills.ini" "$T/run.ini"
	check_events
	echo "  $(grep -c ' venue ' "$T/events.log") venue answers taken by 3 replicas;" \
		"rejects: position $(value reject_position_limit), open orders" \
		"$(value reject_open_orders); filled $(value venue_filled_shares) shares"
	;;
*)
	fail "unknown scenario '$SCENARIO'"
	;;
esac
exit 0
