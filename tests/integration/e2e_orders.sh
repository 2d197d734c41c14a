#!/usr/bin/env bash
# The order path end to end: the orders sent equal the reference's, the
# journal, a stop signal, orders the port refuses.
# Shared set-up and helpers: tests/integration/e2e_lib.sh.
#   e2e_orders.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO
# SCENARIO: orders | sigterm | tx-refused
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 SCENARIO=$5
# shellcheck source=tests/integration/e2e_lib.sh
. "$SRCDIR/tests/integration/e2e_lib.sh"

case $SCENARIO in
orders)
	conf "[risk]" "max_orders_instrument = 20" "max_orders_total = 200" \
		"window_ms = 50"
	trade
	[ "$(value orders)" -gt 100 ] || fail "too few orders to mean much: $(value orders)"
	"$SRCDIR/tests/integration/tshark_orders.sh" "$T/out.pcap" "$(value orders)" ||
		fail "tshark refused the order frames"
	# a journal that is not a regular file (a device would lose what a
	# killed process had not written): refused at start-up, one line
	rc=0
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out-refused.pcap" \
		-c "$T/conf.ini" --set run.idle_timeout_ms=0 \
		--set order.journal=/dev/full || rc=$?
	expect_eq "journal on /dev/full: exit status" "$rc" 1
	expect_eq "journal on /dev/full: error lines" "$(grep -c '^hedgewire: ' "$T/err")" 1
	grep -q "^hedgewire: \[order\] journal = /dev/full: not a regular file" "$T/err" ||
		fail "journal on /dev/full: $(cat "$T/err")"
	echo "  refused: $(cat "$T/err"); exit status $rc"
	$CMP --decode "$T/out.pcap" >"$T/decoded" || fail "decoder refused an order"
	# UserRefNum strictly increasing
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^UserRefNum=/) {
		split($i, a, "="); n++; if (a[2] + 0 <= last) bad = 1; last = a[2] + 0 } }
		END { if (n == 0) { print "no UserRefNum decoded"; exit 1 } exit bad }' \
		"$T/decoded" || fail "UserRefNum not strictly increasing"
	;;
sigterm)
	# A long replay stopped half way: the summary is printed, the exit
	# is clean, and the journal holds every order that left.
	"$FEEDGEN" -q -o "$T/feed.pcap" --seed 32 --instruments 40 \
		--messages 3000000 --per-packet 4
	# a realistic rate (2,000 orders/s), not the unthrottled stress
	conf "[risk]" "window_ms = 100" "max_orders_total = 200" \
		"max_orders_instrument = 50"
	# never stop on its own: the signal is what ends the run
	printf '[run]\nstop_at_end_of_session = no\nidle_timeout_ms = 0\n' >>"$T/conf.ini"
	# two replicas of the table: a patch must reach both
	sed -i "s|^file = .*|&\nreplicas = 2|" "$T/conf.ini"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out.pcap" -- \
		-c "$T/conf.ini" >"$T/out" 2>"$T/err" &
	pid=$!
	# stopped once orders leave: a loaded host can take over a second
	# to start (EAL, the two table replicas)
	sent_wait "$pid" "$T/out.pcap" || true
	sleep 0.2
	kill -TERM "$pid" 2>/dev/null || true	# gone: wait says how
	wait "$pid" || fail "exit status $? after SIGTERM: $(cat "$T/err")"
	grep -q "stopped on signal" "$T/out" || fail "did not stop on the signal"
	msgs=$(value messages)
	# The signal lands mid-replay, soon after the first orders (a few
	# hundred thousand of 3 M messages); a run that had finished first
	# would still test the clean stop.
	[ "$msgs" -lt 3000000 ] && when="mid-replay" || when="after the replay"
	orders=$(value orders)
	[ "$orders" -gt 0 ] || fail "no orders before the signal"
	grep -q "journal .*: $orders orders written, 0 failed" "$T/out" ||
		fail "journal: $(grep journal "$T/out"), orders $orders"
	$CMP "$T/out.pcap" "$T/journal.pcap" >/dev/null ||
		fail "journal differs from the orders sent"
	echo "  stopped $when after $msgs messages; $orders orders, all journalled"
	# two replicas stopped by a signal end at different points of the
	# feed: not a divergence (compared by digest), exit status 0
	rm -f "$T/journal.pcap"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" --lcores=0@0,1@1,2@0 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap,tx_pcap=$T/out1.pcap" -- \
		-c "$T/conf.ini" --set run.workers=2 >"$T/out" 2>"$T/err" &
	pid=$!
	sent_wait "$pid" "$T/out0.pcap" "$T/out1.pcap" || true
	sleep 0.7
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" || fail "2 workers: exit status $? after SIGTERM: $(cat "$T/err") $(grep -i 'agree\|event\|left' "$T/out")"
	grep -q "^worker 1 agrees with worker 0: yes" "$T/out" ||
		fail "2 workers: $(grep agrees "$T/out")"
	echo "  2 workers stopped by a signal: $(grep agrees "$T/out")"
	;;
tx-refused)
	# An order port that refuses orders: a net_ring nobody reads, full
	# after 1023. A refused burst is tried again for 200 us, then dropped
	# and counted (later ones get one try each); every replica counted
	# those orders in its position, so the control plane sets the kill
	# switch: trading stops soon after instead of deciding on, the
	# journal has the orders that left, and the exit status says orders
	# were refused. Paced, so that a control lcore slowed down by a
	# loaded host still stops it well before the end.
	"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 \
		--imbalances 8 --seed 6 --fill 1.0
	conf "[risk]" "max_orders_instrument = 4096" "max_orders_total = 4096"
	rc=0
	# shellcheck disable=SC2086
	"$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error --vdev "net_pcap0,rx_pcap=$T/feed.pcap" \
		--vdev net_ring0 -- -c "$T/conf.ini" --set order.port=1 \
		--set run.idle_timeout_ms=0 --set replay.pace=rate \
		--set replay.pps=8000 >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "exit status" "$rc" 10
	grep -q "^hedgewire: exit status 10: orders refused by the port" "$T/err" ||
		fail "stderr: $(cat "$T/err")"
	grep -q "orders refused by the port (.*): trading stops until /hgw/risk/kill,0" "$T/err" ||
		fail "no kill switch: $(cat "$T/err")"
	grep -q "^kill switch: set 1 times because the port refused orders" "$T/out" ||
		fail "summary: $(grep '^kill switch' "$T/out")"
	sent=$(value orders) refused=$(value tx_full) killed=$(value reject_kill_switch)
	expect_eq "orders the ring took" "$sent" 1023
	grep -q "journal .*: 1023 orders written, 0 failed" "$T/out" ||
		fail "journal: $(grep journal "$T/out")"
	[ "$refused" -gt 0 ] && [ $((refused * 4)) -lt "$killed" ] ||
		fail "refused $refused, kill switch rejects $killed: trading did not stop soon"
	echo "  $sent orders sent, $refused refused, then $killed decisions met the kill switch; exit status $rc"
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: e2e $SCENARIO"
