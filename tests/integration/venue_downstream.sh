# shellcheck shell=bash
# The venue session in downstream mode (docs/venue.md "Venue session",
# "Downstream mode"), sourced by venue_session.sh for its downstream-*
# scenarios (its simulator helpers, conf.ini, feed and table): hedgewire
# (2 workers, dedup downstream) sends every copy on [order] port 1, a
# net_memif client; hgw-dedup, the memif server, lets the first copy of
# each order out on its TCP session to scripts/venue_sim.py and relays
# the venue's answers, unsent orders and lost sessions back over the same
# memif; hedgewire's control lcore gives them to every replica and sends
# the kill switch to hgw-dedup, which cancels the open orders.
# A skip only when DPDK has no memif driver to load (EAL loads its PMDs
# from the pmds-* directory beside libdpdk); with the driver there, any
# failure to start is a failure.
memif_pmd() {
	local d
	d=$(pkg-config --variable=libdir libdpdk 2>/dev/null) ||
		d=/usr/lib/$(uname -m)-linux-gnu
	compgen -G "$d/dpdk/pmds-*/librte_net_memif.so*" >/dev/null ||
		compgen -G "$d/librte_net_memif.so*" >/dev/null
}
memif_pmd || { echo "SKIP: no net_memif PMD (librte_net_memif) under $(pkg-config --variable=libdir libdpdk 2>/dev/null || echo /usr/lib)"; exit 77; }
SOCK=$T/memif.sock
MEMIF="socket=$SOCK,socket-abstract=no"
DDPID=""

# dd_start [hgw-dedup options]: the memif server, in the background,
# logged in to the simulator at $DD_HOST (default 127.0.0.1), $PORT, with
# the EAL arguments in DD_EAL (an array) besides the memif; output in
# $T/dd.out
DD_EAL=()
dd_start() {
	local mem
	mem=$("$SRCDIR/scripts/eal-args.sh" 256)
	rm -f "$SOCK"
	# shellcheck disable=SC2086
	HGW_VENUE_PASSWORD=P "$HGW_DEDUP" -l1 --no-pci $mem --file-prefix "$PREFIX-dd" \
		--log-level=error --vdev "net_memif0,role=server,$MEMIF" \
		"${DD_EAL[@]}" -- \
		--in 0 --queues 3 --idle-ms 0 --venue "${DD_HOST:-127.0.0.1}:$PORT" \
		--venue-user U --venue-session S \
		--state-file "$T/dstate" --reconnect-ms 50 "$@" \
		>"$T/dd.out" 2>"$T/dd.err" &
	DDPID=$!
	PIDS+=("$DDPID")
	for ((i = 0; i < 300; i++)); do
		[ -S "$SOCK" ] && grep -q "^hgw-dedup: port" "$T/dd.out" && break
		kill -0 "$DDPID" 2>/dev/null ||
			fail "hgw-dedup exited before listening: $(cat "$T/dd.err")"
		sleep 0.1
	done
	[ -S "$SOCK" ] || fail "no memif socket after 30 s: $(cat "$T/dd.err")"
	grep -q "^hgw-dedup: port" "$T/dd.out" ||
		fail "no start-up line from hgw-dedup after 30 s: $(cat "$T/dd.out")"
}

# dd_stop: SIGTERM once hedgewire has stopped (the client leaves the
# memif first); hgw-dedup's exit status in DDRC. hedgewire closed its end
# only after hgw-dedup had stopped polling the link ('B', 'b'): memif
# unmaps the shared memory under a peer still polling it.
dd_stop() {
	kill -TERM "$DDPID" 2>/dev/null || true
	DDRC=0
	wait "$DDPID" || DDRC=$?
	grep -q "hgw-dedup left the link: yes" "$T/out" ||
		fail "hedgewire closed the link without hgw-dedup's 'b': $(grep '^venue: relay' "$T/out") $(cat "$T/err"); hgw-dedup: $(grep 'left the link\|leave' "$T/dd.out")"
	grep -q "^venue: hedgewire left the link: yes" "$T/dd.out" ||
		fail "hgw-dedup did not see hedgewire leave: $(grep 'left the link' "$T/dd.out")"
}

# hwd_bg [hedgewire --set options]: 2 workers, downstream, orders on the
# memif (port 1), events log $T/events.log, in the background; its pid
# in HWPID
hwd_bg() {
	rm -f "$T/events.log"
	run_conf "$@"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" "--lcores=0@0,1@1,2@0" --no-pci $EAL_MEM \
		--file-prefix "$PREFIX" --log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap" \
		--vdev "net_memif0,role=client,$MEMIF" -- -c "$T/conf.ini" \
		--set run.dedup=downstream --set order.port=1 \
		--set venue.port="$PORT" --set replay.pace=rate \
		--set run.events_log="$T/events.log" "$@" \
		>"$T/out" 2>"$T/err" &
	HWPID=$!
	PIDS+=("$HWPID")
}

# hwd [hedgewire --set options]: hwd_bg, waited for; sets RC
hwd() {
	waited hwd_bg "$@"
}

# dv KEY: a number from hgw-dedup's "venue: ..." lines ("KEY N")
dv() {
	grep '^venue: ' "$T/dd.out" | grep -o "$1 [0-9][0-9]*" | head -1 | awk '{ print $NF }'
}

# rv KEY: a number from hedgewire's relay line
rv() {
	grep '^venue: relay from hgw-dedup' "$T/out" | grep -o "$1 [0-9][0-9]*" | head -1 | awk '{ print $NF }'
}

# the replicas took every event at one position, and agree
replicas_ok() {
	grep -q "NOT at the same message\|PASSED WITHOUT IT" "$T/out" &&
		fail "an event was not taken at one position: $(grep 'NOT at\|PASSED' "$T/out" | head -3)"
	expect_eq "replicas agreeing with worker 0" "$(grep -c "agrees with worker 0: yes" "$T/out")" 1
}

# dd_refuse WHAT [hgw-dedup options]: refused at start-up in one line
# matching WHAT, exit status not 0
dd_refuse() {
	local what=$1 mem
	shift
	mem=$("$SRCDIR/scripts/eal-args.sh" 64)
	# shellcheck disable=SC2086
	if "$HGW_DEDUP" -l1 --no-pci $mem --file-prefix "$PREFIX-bad" \
		--log-level=error --vdev net_null0 --vdev net_null1 -- --in 0 "$@" \
		>"$T/bad.out" 2>"$T/bad.err"; then
		fail "hgw-dedup $* was accepted"
	fi
	grep -q -- "$what" "$T/bad.err" || fail "hgw-dedup $*: $(cat "$T/bad.err")"
	expect_eq "hgw-dedup $*: error lines" "$(grep -c '^hgw-dedup: ' "$T/bad.err")" 1
}

# dd_trade: hedgewire trades through the hgw-dedup dd_start started, at
# 5,000 pps, and both stop with status 0: every order at the venue once,
# the reference's given the events log; every message the simulator sent
# in hedgewire's venue journal in order, once, and taken by both replicas
# alike; one login, nothing unsent, no relay gap
dd_trade() {
	local sent taken
	hwd --set replay.pps=5000
	dd_stop
	[ "$RC" = 0 ] || fail "hedgewire exit $RC: $(cat "$T/err")"
	[ "$DDRC" = 0 ] || fail "hgw-dedup exit $DDRC: $(cat "$T/dd.err") $(grep '^venue' "$T/dd.out")"
	sent=$(dv "orders sent")
	[ "$sent" -gt 100 ] || fail "too few orders sent: $sent"
	[ "$(dv logins)" = 1 ] ||
		fail "logins $(dv logins), not 1: $(grep '^venue' "$T/dd.out"); simulator: $(grep '"event"' "$T/sim.jsonl" | grep -v '"listen"' | head -5)"
	expect_eq "unsent" "$(dv unsent)" 0
	check_orders
	expect_eq "orders the simulator got" "$(sed -n 's/.*orders=\([0-9]*\).*/\1/p' "$T/check")" "$sent"
	$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" 2>&1 ||
		fail "venue journal: $(cat "$T/check2")"
	taken=$(sed -n 's/^venue: \([0-9]*\) answers taken by the replicas.*/\1/p' "$T/out")
	[ "${taken:-0}" -gt 100 ] || fail "venue answers taken by the replicas: ${taken:-none}"
	expect_eq "relay gaps" "$(rv gaps)" 0
	expect_eq "relay bad" "$(rv ", bad")" 0
	replicas_ok
	echo "  sent $sent; $(cat "$T/check2"); replicas took $taken answers"
	echo "  hedgewire: $(grep '^venue: relay from' "$T/out" | cut -c8-)"
	echo "  hgw-dedup: $(grep '^venue: relayed' "$T/dd.out" | cut -c8-)"
	check_ref --late "$(rv "after the stop")"
	check_events --unrelayed "$(dv "after it left")"
}

case $SCENARIO in
downstream-dpdk)
	# hgw-dedup's session on its own TCP (--venue-stack dpdk, lib/tcp) on
	# its --out port, a veth through net_af_packet, the simulator in a
	# network namespace behind it: Linux's TCP is the peer. Orders and
	# answers byte for byte, the reference and the events, as in
	# downstream-login; the TCP's counters in hgw-dedup's summary.
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces, veth)"; exit 77; }
	command -v ethtool >/dev/null || { echo "SKIP: no ethtool"; exit 77; }
	v="--venue 10.77.0.2:9 --venue-user U --state-file $T/x --out 1"
	# shellcheck disable=SC2086
	dd_refuse "bad value for --venue-address: '10.77.0.1'" $v \
		--venue-stack dpdk --venue-address 10.77.0.1
	# shellcheck disable=SC2086
	dd_refuse "bad value for --venue-stack: 'lwip'" $v --venue-stack lwip
	# shellcheck disable=SC2086
	dd_refuse "go with --venue-stack dpdk" $v --venue-address 10.77.0.1/24
	# shellcheck disable=SC2086
	dd_refuse "bad value for --venue-gateway: 'x'" $v --venue-stack dpdk \
		--venue-address 10.77.0.1/24 --venue-gateway x
	# shellcheck disable=SC2086
	dd_refuse "bad value for --venue-gateway: not on --venue-address's subnet" \
		$v --venue-stack dpdk --venue-address 10.77.0.1/24 --venue-gateway 10.9.0.1
	echo "  bad --venue-stack, --venue-address and --venue-gateway refused in one line each"
	NS="hgwd$$" VA="hgwc$$" VB="hgwe$$"
	netns_add "$NS" "$VA" "$VB"
	ip netns exec "$NS" ip addr add 10.77.0.2/24 dev "$VB"
	ip netns exec "$NS" ip link set "$VB" up
	# the kernel fills in its checksums (offloaded to a veth, they would
	# reach the raw socket under net_af_packet unfilled)
	ip netns exec "$NS" ethtool -K "$VB" tx off >/dev/null
	SIM_NS=$NS SIM_LISTEN=10.77.0.2:0
	sim_start --fill-pct 30
	DD_HOST=10.77.0.2 DD_EAL=(--vdev "net_af_packet0,iface=$VA")
	dd_start --out 1 --venue-stack dpdk --venue-address 10.77.0.1/24
	grep -q "TCP: hgw-dedup's own on --out" "$T/dd.out" ||
		fail "hgw-dedup not on its own TCP: $(grep '^hgw-dedup: venue' "$T/dd.out")"
	dd_trade
	# from our address on the veth, not the kernel's loopback
	grep -q '"peer": "10.77.0.1:' "$T/sim.jsonl" ||
		fail "the simulator's peer: $(grep -o '"peer": "[^"]*"' "$T/sim.jsonl" | head -1)"
	segs=$(grep '^venue: tcp (dpdk)' "$T/dd.out" | grep -o 'segments sent [0-9]*' | awk '{ print $3 }')
	[ "${segs:-0}" -gt 0 ] || fail "no segment counted: $(grep '^venue: tcp' "$T/dd.out")"
	echo "  hgw-dedup: $(grep '^venue: tcp (dpdk) opens' "$T/dd.out" | cut -c8- | cut -c1-160)"
	;;
downstream-login)
	# bad options: one line naming the option
	v="--venue 127.0.0.1:9 --venue-user U"
	# shellcheck disable=SC2086
	dd_refuse "--state-file is required" $v
	# shellcheck disable=SC2086
	dd_refuse "bad value for --venue: '127.0.0:9'" $v --venue 127.0.0:9 --state-file "$T/x"
	# shellcheck disable=SC2086
	dd_refuse "bad value for --dead-ms: 100" $v --state-file "$T/x" --dead-ms 100 --heartbeat-ms 100
	# shellcheck disable=SC2086
	dd_refuse "bad value for --venue-user" $v --venue-user TOOLONGUSER --state-file "$T/x"
	echo "  bad hgw-dedup options refused in one line each"
	sim_start --fill-pct 30
	dd_start
	dd_trade
	# one signal to both while the feed runs: hgw-dedup keeps serving
	# hedgewire until its 'B' (dd_stop checks the 'B' and 'b'), then
	# both stop with status 0 (a new venue day: the UserRefNums are the
	# same triggers')
	sim_stop
	rm -f "$T/dstate"
	sim_start
	dd_start
	# past the end of the session: the signal below finds it running
	hwd_bg --set replay.pps=2000 --set run.stop_at_end_of_session=no
	# stopped once orders flow: on a loaded host the memif link can
	# take over a second to come up, and a stop before it finds no
	# link to leave (hedgewire then exits 10: orders refused)
	for ((i = 0; i < 600; i++)); do
		grep -q '"type": "U"' "$T/sim.jsonl" 2>/dev/null && break
		kill -0 "$HWPID" 2>/dev/null || break
		sleep 0.05
	done
	sleep 0.5
	kill -0 "$HWPID" 2>/dev/null || fail "hedgewire ended before the stop: $(tail -3 "$T/err")"
	kill -TERM "$HWPID" "$DDPID"
	RC=0
	wait "$HWPID" || RC=$?
	dd_stop
	expect_eq "hedgewire exit, both stopped at once" "$RC" 0
	[ "$DDRC" = 0 ] || fail "hgw-dedup exit $DDRC, both stopped at once: $(cat "$T/dd.err")"
	grep -q "hedgewire did not leave" "$T/dd.out" && fail "hgw-dedup gave up waiting for hedgewire"
	[ "$(dv "orders sent")" -gt 0 ] || fail "no orders sent before the stop: $(grep '^venue' "$T/dd.out")"
	echo "  both stopped at once after $(dv "orders sent") orders: $(grep 'left the link' "$T/dd.out")"
	;;
downstream-rate)
	sim_start
	# (a per-symbol cap low enough to bite on a slow host too, as in
	# venue-session-rate: at 10 it refused 6 orders of 900 here, none on a
	# loaded host)
	dd_start --max-orders-per-sec 40 --max-orders-per-sec-per-symbol 3
	hwd --set risk.max_orders_instrument=20 --set risk.max_orders_total=300 \
		--set risk.window_ms=100 --set replay.pps=6000
	dd_stop
	[ "$RC" = 0 ] || fail "hedgewire exit $RC: $(cat "$T/err")"
	[ "$DDRC" = 0 ] || fail "hgw-dedup exit $DDRC: $(cat "$T/dd.err")"
	grep -q "unsent (over max_orders_per_sec) [1-9]" "$T/dd.out" ||
		fail "the total cap refused nothing: $(grep '^venue' "$T/dd.out")"
	grep -q "unsent (over max_orders_per_sec_per_symbol) [1-9]" "$T/dd.out" ||
		fail "the per-symbol cap refused nothing: $(grep '^venue' "$T/dd.out")"
	check_orders
	$CHECK rate "$T/sim.jsonl" 40 3 >"$T/check" 2>&1 || fail "$(cat "$T/check")"
	# every refused order came back and every replica took it back
	u=$(dv "unsent")
	expect_eq "unsent relayed to hedgewire" "$(rv "unsent")" "$u"
	expect_eq "unsent of an unknown session" "$(rv "session unknown")" 0
	expect_eq "unsent not taken" "$(rv "not taken")" 0
	# one UNSENT event each in the events log; every replica found the
	# order it takes back
	ev=$(grep -c "^[0-9]* [0-9a-f]* [0-9]* unsent" "$T/events.log" || true)
	# but those that came back after the workers stopped (journalled
	# only: docs/venue.md "Downstream mode")
	late=$(rv "after the stop")
	expect_eq "UNSENT events (unsent $u, $late after the stop)" "$ev" "$((u - late))"
	grep -q "recalled orders not" "$T/out" &&
		fail "a replica did not find an unsent order: $(grep 'recalled orders not' "$T/out")"
	replicas_ok
	echo "  $(cat "$T/check"); hgw-dedup refused $u, relayed; the replicas took back $((u - late)) ($late came after the stop)"
	check_ref --late "$late"
	check_events --unrelayed "$(dv "after it left")"
	;;
downstream-kill)
	sim_start
	dd_start
	# the kill switch 0.5 s after the first order reached the venue
	python3 "$SRCDIR/tests/integration/tel_driver.py" "$PREFIX" \
		--cmd /hgw/risk/kill,1 --gap-ms 500,500 --duration 1 \
		--after "$T/sim.jsonl:\"type\": \"U\"" >"$T/driver.out" 2>&1 &
	PIDS+=($!)
	driven $! hwd_bg --set replay.pps=3000
	dd_stop
	[ "$RC" = 0 ] || fail "hedgewire exit $RC: $(cat "$T/err")"
	[ "$DDRC" = 0 ] || fail "hgw-dedup exit $DDRC: $(cat "$T/dd.err")"
	[ "$(rv "kills sent")" -ge 1 ] || fail "hedgewire sent no kill: $(grep '^venue' "$T/out"); driver: $(cat "$T/driver.out")"
	[ "$(dv kills)" -ge 1 ] || fail "hgw-dedup took no kill: $(grep '^venue' "$T/dd.out")"
	cs=$(dv "cancels sent") vc=$(dv "cancelled by the venue after a kill")
	[ "$cs" -gt 0 ] || fail "no cancels sent: $(grep '^venue' "$T/dd.out")"
	$CHECK cancels "$T/sim.jsonl" >"$T/check" 2>&1 || fail "$(cat "$T/check")"
	expect_eq "cancels the simulator got" "$(sed -n 's/.*cancels=\([0-9]*\).*/\1/p' "$T/check")" "$cs"
	expect_eq "cancelled answers" "$(sed -n 's/.*canceled=\([0-9]*\).*/\1/p' "$T/check")" "$vc"
	# every order open at the venue cancelled, no order decided after
	# the kill (one in flight to hgw-dedup at the kill may come after
	# its sweep: named, and left open)
	$CHECK kill "$T/sim.jsonl" "$T/events.log" >"$T/check3" 2>&1 ||
		fail "$(cat "$T/check3")"
	echo "  $(cat "$T/check3")"
	check_orders
	replicas_ok
	echo "  cancels sent $cs, cancelled by the venue $vc; simulator: $(cat "$T/check")"
	check_ref --late "$(rv "after the stop")"
	check_events --kills "$(driver_events /hgw/risk/kill,1)" \
		--unrelayed "$(dv "after it left")"
	;;
downstream-disconnect)
	# the venue drops the session: hgw-dedup reconnects, and hedgewire
	# stops trading (kill switch), which cancels what is open
	sim_start --drop-after 40
	dd_start
	hwd --set replay.pps=3000
	dd_stop
	[ "$RC" = 0 ] || fail "hedgewire exit $RC: $(cat "$T/err")"
	[ "$DDRC" = 0 ] || fail "hgw-dedup exit $DDRC: $(cat "$T/dd.err")"
	[ "$(dv logins)" -ge 2 ] || fail "no reconnect: $(grep '^venue' "$T/dd.out")"
	[ "$(rv "sessions lost")" -ge 1 ] || fail "no lost session relayed: $(grep '^venue' "$T/out")"
	grep -q "venue session lost" "$T/err" || fail "the control plane did not say the session was lost"
	[ "$(value reject_kill_switch)" -gt 0 ] || fail "the replicas did not stop trading"
	[ "$(dv "cancels sent")" -gt 0 ] || fail "no cancels after the reconnect: $(grep '^venue' "$T/dd.out")"
	$CHECK answers "$T/sim.jsonl" "$T/venue.jl" >"$T/check2" 2>&1 ||
		fail "venue journal: $(cat "$T/check2")"
	check_orders
	replicas_ok
	echo "  logins $(dv logins); kill switch rejects $(value reject_kill_switch); cancels $(dv "cancels sent"); $(cat "$T/check2")"
	check_ref --late "$(rv "after the stop")"
	check_events --unrelayed "$(dv "after it left")"
	;;
downstream-lie)
	# hgw-dedup finds the contradiction (docs/venue.md "Answers that
	# contradict what was sent"): it sends no order after it, cancels
	# what is open, relays 'C' after the answer and exits 4; hedgewire
	# sets its kill switch and stops with exit 40. Judged as venue-lie's
	# runs are (tests/integration/venue_lie_check.py lie), by the
	# simulator's journal: no Enter Order 250 ms after the lie, every
	# order open then cancelled, the line naming the answer
	LIECHECK="python3 $SRCDIR/tests/integration/venue_lie_check.py"
	for kind in overfill replace-future; do
		sim_stop
		rm -f "$T/dstate" "$T/sim.jsonl" "$T/venue.jl"*
		sim_start --lie "$kind" --lie-after 20
		dd_start
		hwd --set replay.pps=4000
		dd_stop
		expect_eq "$kind: hgw-dedup's exit status" "$DDRC" 4
		grep -q "^hgw-dedup: venue contradicted: " "$T/dd.err" ||
			fail "$kind: hgw-dedup did not name the contradiction: $(cat "$T/dd.err")"
		expect_eq "$kind: contradictions relayed" "$(rv contradictions)" 1
		$LIECHECK lie "$T/sim.jsonl" "$RC" "$T/err" >"$T/check" 2>&1 ||
			fail "$kind: $(cat "$T/check")"
		echo "  $kind: hedgewire exit $RC, hgw-dedup exit $DDRC; $(cat "$T/check")"
		echo "    $(grep -m1 'venue contradicted:' "$T/err")"
	done
	;;
*)
	fail "unknown scenario $SCENARIO"
	;;
esac
