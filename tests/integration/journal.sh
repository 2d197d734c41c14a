#!/usr/bin/env bash
# The order journal when things go wrong: SIGKILL mid-replay, a restart on
# the same path, SIGHUP (logrotate), and a journal that cannot be written.
# Paced replays through net_pcap; the journal is checked against what left
# the port (the tx_pcap files) byte for byte by journal_cmp.py.
#   journal.sh HEDGEWIRE FEEDGEN TABLEGEN CONVERT SRCDIR SCENARIO
# SCENARIO: kill | restart | sighup | roll | error-stop | error-alarm
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 CONVERT=$4 SRCDIR=$5 SCENARIO=$6
. "$SRCDIR/tests/integration/common.sh"
JCMP="python3 $SRCDIR/tests/integration/journal_cmp.py"
CMP="python3 $SRCDIR/tests/ref/cmp_orders.py"

command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
# error-*: a small tmpfs needs CAP_SYS_ADMIN (root); without it the
# scenario cannot be set up, and is skipped before anything runs. With
# it, a mount that fails is a failure.
case $SCENARIO in error-*)
	capeff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
	(( (16#${capeff:-0} >> 21) & 1 )) || {
		echo "SKIP: $SCENARIO: mounting a tmpfs needs CAP_SYS_ADMIN (root), which this process lacks (CapEff $capeff)"
		exit 77
	};;
esac

"$FEEDGEN" -q -o "$T/feed.pcap" --truth "$T/truth" --seed 31 --instruments 40 \
	--messages 60000 --per-packet 4 --heartbeats 50 --dup-every 17
"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 --imbalances 8 \
	--seed 5 --fill 0.1
# throttles high enough for thousands of orders
conf "[risk]" "max_orders_instrument = 400" "max_orders_total = 4000" \
	"window_ms = 50"

# start_hw N MODE [args]: hedgewire in the background ($pid), N workers in
# dedup MODE, a paced replay (about 3 s); tx_pcap $T/outI.pcap.
start_hw() {
	local n=$1 mode=$2 lcores="--lcores=0@0" rx="" tx="" i nl
	shift 2
	nl=$((n + 1))
	[ "$mode" != tx-lcore ] || nl=$((nl + 1))
	for ((i = 1; i < nl; i++)); do lcores+=",$i@$((i % 2))"; done
	rm -f "$T"/out*.pcap
	for ((i = 0; i < n; i++)); do
		rx+=",rx_pcap=$T/feed.pcap"
		[ "$mode" = tx-lcore ] || tx+=",tx_pcap=$T/out$i.pcap"
	done
	[ "$mode" != tx-lcore ] || tx=",tx_pcap=$T/out0.pcap"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" "$lcores" --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error --vdev "net_pcap0$rx$tx" -- -c "$T/conf.ini" \
		--set run.workers="$n" --set run.dedup="$mode" \
		--set run.idle_timeout_ms=0 --set replay.pace=rate \
		--set replay.pps=5000 "$@" >"$T/out" 2>"$T/err" &
	pid=$!
	PIDS+=("$pid")
}

# sent_orders: complete order records in the tx_pcap files so far.
sent_orders() {
	local f n=0 s
	for f in "$T"/out*.pcap; do
		[ -f "$f" ] || continue
		s=$(stat -c %s "$f")
		[ "$s" -lt 24 ] || n=$((n + (s - 24) / 108))
	done
	echo "$n"
}

# wait_orders N: until N orders have left (or hedgewire is gone).
wait_orders() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(sent_orders)" -ge "$1" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# wait_line PATTERN: until hedgewire's output has it.
wait_line() {
	local i
	for ((i = 0; i < 600; i++)); do
		grep -q "$1" "$T/out" && return 0
		sleep 0.05
	done
	fail "no '$1' in the output: $(cat "$T/out" "$T/err")"
}

case $SCENARIO in
kill)
	# SIGKILL mid-replay: after journal-repair, the journal holds every
	# order that left but the bursts being journalled at that instant,
	# no record torn; tshark reads it.
	for mode in claim tx-lcore downstream; do
		rm -f "$T"/journal*.pcap
		# past the end of the session: the SIGKILL finds it running
		start_hw 2 "$mode" --set run.stop_at_end_of_session=no
		wait_orders 300 || fail "$mode: no orders before the kill: $(cat "$T/err")"
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null || true
		sent=$(sent_orders)
		[ -f "$T/journal.pcap" ] || fail "$mode: no journal after the kill"
		# allocated in full, so a killed process leaves the unused tail
		[ "$(stat -c %s "$T/journal.pcap")" -gt $((24 + sent * 108)) ] ||
			fail "$mode: journal not allocated ahead: $(stat -c %s "$T/journal.pcap") bytes"
		"$CONVERT" journal-repair "$T/journal.pcap" >"$T/repair" ||
			fail "$mode: journal-repair: $(cat "$T/repair")"
		grep -q "repaired, .* 0 incomplete records dropped" "$T/repair" ||
			echo "  $mode: $(cat "$T/repair") (a record was being written at the kill)"
		# one burst (64 orders at most) per sender
		$JCMP --slack 128 "$T/journal.pcap" -- "$T"/out*.pcap >"$T/cmp" ||
			fail "$mode: $(cat "$T/cmp")"
		$CMP --decode "$T/journal.pcap" >/dev/null ||
			fail "$mode: an order in the repaired journal does not decode"
		if command -v tshark >/dev/null; then
			n=$(tshark -r "$T/journal.pcap" 2>"$T/tshark.err" | wc -l)
			expect_eq "$mode: tshark's frames" "$n" \
				$((($(stat -c %s "$T/journal.pcap") - 24) / 108))
			! grep -v 'Running as user "root"' "$T/tshark.err" ||
				fail "$mode: tshark complained (above)"
		fi
		# repairing a clean journal changes nothing
		sum=$(md5sum <"$T/journal.pcap")
		"$CONVERT" journal-repair "$T/journal.pcap" >"$T/repair2"
		grep -q "clean" "$T/repair2" || fail "$mode: second repair: $(cat "$T/repair2")"
		expect_eq "$mode: second repair left it" "$(md5sum <"$T/journal.pcap")" "$sum"
		echo "  $mode: killed after $sent orders left; $(cat "$T/repair");" \
			"$(cat "$T/cmp")"
	done
	# a crashed file made by hand from the last journal: two records cut
	# short in the middle (one with its commit word missing, one with
	# only its timestamp), and an unused tail; repair must give back
	# exactly the journal
	python3 - "$T/journal.pcap" "$T/crashed.pcap" <<'PY'
import sys
buf = open(sys.argv[1], 'rb').read()
hdr, recs = buf[:24], [buf[i:i + 108] for i in range(24, len(buf), 108)]
k = len(recs) // 2
torn1 = recs[k][:12] + b'\0\0\0\0' + recs[k][16:]
torn2 = recs[k + 1][:8] + bytes(100)
open(sys.argv[2], 'wb').write(hdr + b''.join(recs[:k]) + torn1 + torn2 +
                              b''.join(recs[k:]) + bytes(108 * 50))
PY
	"$CONVERT" journal-repair "$T/crashed.pcap" >"$T/repair" ||
		fail "hand-made crash: $(cat "$T/repair")"
	grep -q "repaired, $((($(stat -c %s "$T/journal.pcap") - 24) / 108)) orders kept, 2 incomplete records dropped, 50 unused records dropped" "$T/repair" ||
		fail "hand-made crash: $(cat "$T/repair")"
	cmp -s "$T/crashed.pcap" "$T/journal.pcap" || fail "hand-made crash: repaired file differs"
	echo "  hand-made crash: $(cat "$T/repair")"
	# not a journal: refused, left alone
	sum=$(md5sum <"$T/feed.pcap")
	rc=0
	"$CONVERT" journal-repair "$T/feed.pcap" 2>"$T/repair.err" || rc=$?
	expect_eq "journal-repair of a feed capture: exit status" "$rc" 2
	expect_eq "feed capture unchanged" "$(md5sum <"$T/feed.pcap")" "$sum"
	echo "  refused: $(cat "$T/repair.err")"
	;;
restart)
	# A restart on the same path keeps the earlier journal (killed, and
	# then cleanly stopped) and says which name it took.
	start_hw 1 claim
	wait_orders 200 || fail "no orders before the kill"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	sum=$(md5sum <"$T/journal.pcap")
	size=$(stat -c %s "$T/journal.pcap")
	start_hw 1 claim --set replay.pps=50000
	wait "$pid" || fail "restart: exit status $?: $(cat "$T/err")"
	grep -q "^journal $T/journal.1.pcap: opened" "$T/out" ||
		fail "restart: $(grep '^journal' "$T/out")"
	grep -q "^journal $T/journal.1.pcap: [0-9]* orders written, 0 failed, 0 write errors" "$T/out" ||
		fail "restart summary: $(grep '^journal' "$T/out")"
	expect_eq "killed journal untouched" "$(md5sum <"$T/journal.pcap")" "$sum"
	expect_eq "killed journal size" "$(stat -c %s "$T/journal.pcap")" "$size"
	$JCMP --slack 0 "$T/journal.1.pcap" -- "$T/out0.pcap" >"$T/cmp" || fail "$(cat "$T/cmp")"
	first=$(md5sum <"$T/journal.1.pcap")
	start_hw 1 claim --set replay.pps=50000
	wait "$pid" || fail "second restart: exit status $?: $(cat "$T/err")"
	grep -q "^journal $T/journal.2.pcap: opened" "$T/out" ||
		fail "second restart: $(grep '^journal' "$T/out")"
	expect_eq "clean journal untouched" "$(md5sum <"$T/journal.1.pcap")" "$first"
	$JCMP --slack 0 "$T/journal.2.pcap" -- "$T/out0.pcap" >"$T/cmp" || fail "$(cat "$T/cmp")"
	echo "  killed journal kept ($size bytes), restarts wrote journal.1.pcap" \
		"and journal.2.pcap; $(cat "$T/cmp")"
	;;
sighup)
	# logrotate: the file renamed, then SIGHUP: a new file at the path;
	# SIGHUP again without a rename: the next free name. The events log
	# is reopened the same way. The files together hold every order.
	for mode in claim tx-lcore; do
		rm -f "$T"/journal*.pcap "$T"/events.log*
		# past the end of the session, stopped below once the last
		# file holds orders (a loaded host may take longer over the
		# two rotations than the feed lasts)
		start_hw 2 "$mode" --set run.events_log="$T/events.log" \
			--set run.stop_at_end_of_session=no --set replay.pps=2500
		wait_orders 200 || fail "$mode: no orders before SIGHUP"
		mv "$T/journal.pcap" "$T/journal.pcap.rotated"
		mv "$T/events.log" "$T/events.log.rotated"
		kill -HUP "$pid"
		wait_line "^journal $T/journal.pcap: opened (after $T/journal.pcap,"
		wait_line "^events log $T/events.log: opened"
		wait_orders 600 || fail "$mode: no orders after the first SIGHUP"
		kill -HUP "$pid"
		wait_line "^journal $T/journal.1.pcap: opened (after $T/journal.pcap,"
		wait_line "^events log $T/events.log.1: opened"
		n=$(sent_orders)
		wait_orders $((n + 50)) ||
			fail "$mode: no order after the second SIGHUP ($n before it): $(tail -3 "$T/err")"
		kill -TERM "$pid"
		wait "$pid" || fail "$mode: exit status $?: $(cat "$T/err")"
		for f in "$T/journal.pcap.rotated" "$T/journal.pcap" "$T/journal.1.pcap"; do
			[ "$(stat -c %s "$f")" -gt 24 ] || fail "$mode: $f holds no order"
		done
		$JCMP --slack 0 "$T/journal.pcap.rotated" "$T/journal.pcap" \
			"$T/journal.1.pcap" -- "$T"/out*.pcap >"$T/cmp" ||
			fail "$mode: $(cat "$T/cmp")"
		grep -q "^journal $T/journal.pcap .. $T/journal.1.pcap (3 files): $(sent_orders) orders written, 0 failed" "$T/out" ||
			fail "$mode: summary: $(grep '^journal' "$T/out")"
		for f in "$T/events.log" "$T/events.log.1"; do
			head -1 "$f" | grep -q "^# hedgewire events" || fail "$mode: $f has no header"
		done
		echo "  $mode: $(cat "$T/cmp")"
	done
	;;
roll)
	# Files of 1024 orders: the senders move on to the next file at three
	# quarters, every file is cut after its last record, and the files
	# in order hold every order once. A file thread held up by the disk
	# for longer than a file lasts (about 70 ms here) makes orders find
	# a file full: with journal_error = alarm, trading goes on and they
	# are counted, and those exactly are missing (exit status 12).
	for mode in claim downstream; do
		rm -f "$T"/journal*.pcap
		start_hw 2 "$mode" --set order.journal_orders=1024 \
			--set order.journal_error=alarm --set replay.pps=20000
		rc=0
		wait "$pid" || rc=$?
		failed=$(sed -n 's/^journal .*written, \([0-9]*\) failed.*/\1/p' "$T/out")
		if [ "$rc" != 0 ]; then
			# only orders that found a file full, said as such
			[ "$rc" = 12 ] && [ "${failed:-0}" -gt 0 ] &&
				grep -q "^hedgewire: journal .*: full, " "$T/err" &&
				! grep "^hedgewire: journal " "$T/err" | grep -qv ": full, " ||
				fail "$mode: exit status $rc: $(cat "$T/err")"
		fi
		files=("$T/journal.pcap")
		for ((i = 1; ; i++)); do
			[ -f "$T/journal.$i.pcap" ] || break
			files+=("$T/journal.$i.pcap")
		done
		# (every order written: 4 files or more; orders that found a
		# file full on a loaded host leave fewer, but a roll still)
		[ ${#files[@]} -ge 4 ] || { [ "${failed:-0}" -gt 0 ] && [ ${#files[@]} -ge 2 ]; } ||
			fail "$mode: only ${#files[@]} files, ${failed:-0} orders found a file full"
		for ((i = 0; i < ${#files[@]} - 1; i++)); do
			n=$((($(stat -c %s "${files[i]}") - 24) / 108))
			[ "$n" -ge 768 ] && [ "$n" -le 1024 ] ||
				fail "$mode: ${files[i]} holds $n orders"
		done
		$JCMP --slack 0 --skipped "$failed" "${files[@]}" -- "$T"/out*.pcap >"$T/cmp" ||
			fail "$mode: $(cat "$T/cmp")"
		want="$(($(sent_orders) - failed)) orders written, $failed failed, "
		[ "$failed" != 0 ] || want+="0 write errors"
		grep -q "^journal $T/journal.pcap .. ${files[-1]} (${#files[@]} files): $want" "$T/out" ||
			fail "$mode: summary: $(grep '^journal' "$T/out" | tail -1)"
		echo "  $mode: ${#files[@]} files; $(cat "$T/cmp")"
		# the check itself: one order taken out of the second file is
		# found missing, and counted once
		python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(b[:24 + 108 * 100] + b[24 + 108 * 101:])' \
			"${files[1]}" "$T/cut.pcap"
		cut=("${files[@]}")
		cut[1]=$T/cut.pcap
		for k in 0 2; do
			! $JCMP --slack 0 --skipped $((failed + k)) "${cut[@]}" -- "$T"/out*.pcap >/dev/null 2>&1 ||
				fail "$mode: journal_cmp missed an order taken out (--skipped $((failed + k)))"
		done
		$JCMP --slack 0 --skipped $((failed + 1)) "${cut[@]}" -- "$T"/out*.pcap >/dev/null ||
			fail "$mode: journal_cmp: an order taken out, counted: $($JCMP --slack 0 --skipped $((failed + 1)) "${cut[@]}" -- "$T"/out*.pcap 2>&1)"
		[ "$failed" = 0 ] ||
			echo "  $mode: $failed orders found a file full (the disk held the file thread up), counted"
	done
	;;
error-stop|error-alarm)
	# A journal that cannot be written: a tmpfs with room for one file of
	# 1024 orders and not for the next (prepared at 512). stop: the kill
	# switch goes on and orders stop, all of them journalled; alarm:
	# trading goes on, the orders the full file has no room for are
	# counted failed. Exit status 8 + 4 either way.
	mkdir -p "$T/small"
	mount -t tmpfs -o size=160k tmpfs "$T/small" 2>"$T/mount.err" ||
		fail "mount -t tmpfs: $(cat "$T/mount.err")"
	trap 'umount "$T/small" 2>/dev/null; it_cleanup' EXIT
	policy=${SCENARIO#error-}
	start_hw 1 claim --set order.journal="$T/small/journal.pcap" \
		--set order.journal_orders=1024 --set order.journal_error="$policy" \
		--set replay.pps=20000
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 12 ] || fail "$policy: exit status $rc, want 12: $(cat "$T/err")"
	grep -q "^hedgewire: journal $T/small/journal.1.pcap: cannot allocate .*: No space left on device" "$T/err" ||
		fail "$policy: $(cat "$T/err")"
	orders=$(value orders)
	written=$(sed -n 's/^journal .*: \([0-9]*\) orders written.*/\1/p' "$T/out")
	failed=$(sed -n 's/^journal .*written, \([0-9]*\) failed.*/\1/p' "$T/out")
	if [ "$policy" = stop ]; then
		grep -q "trading stops (\[order\] journal_error = stop)" "$T/err" ||
			fail "stop: $(cat "$T/err")"
		[ "$(value reject_kill_switch)" -gt 0 ] ||
			fail "stop: no decision refused by the kill switch"
		# The file thread makes the next file once the current one is
		# half full (512 orders), never before: that is where the error
		# and the kill switch come from. How many more orders leave
		# before the workers see the switch is a race of the file
		# thread's and the control loop's 1 ms rounds against the feed
		# on shared cpus: up to 1024 the file holds them all; past it
		# they are counted failed and said ("full"), never lost
		# silently. Either way every order that left is accounted.
		[ "$orders" -ge 512 ] || fail "stop: $orders orders left, fewer than the 512 that make the next file"
		late=0
		[ "$orders" -le 1024 ] || late=$((orders - 1024))
		expect_eq "stop: journalled" "$written" $((orders - late))
		expect_eq "stop: failed" "$failed" "$late"
		[ "$late" = 0 ] ||
			grep -q "journal $T/small/journal.pcap: full, $late orders sent but not journalled" "$T/err" ||
			fail "stop: $late orders past a full file not said: $(cat "$T/err")"
		$JCMP --slack "$late" "$T/small/journal.pcap" -- "$T/out0.pcap" >"$T/cmp" ||
			fail "stop: $(cat "$T/cmp")"
		echo "  stop: $orders orders left, then the kill switch" \
			"($(value reject_kill_switch) decisions refused); $(cat "$T/cmp")"
		[ "$late" = 0 ] ||
			echo "  stop: the switch came after the file filled: $late orders counted failed"
	else
		grep -q "(\[order\] journal_error = alarm)" "$T/err" ||
			fail "alarm: $(cat "$T/err")"
		grep -q "journal $T/small/journal.pcap: full, orders sent but not journalled" "$T/err" ||
			fail "alarm: $(cat "$T/err")"
		grep -q "journal $T/small/journal.pcap: full, $((orders - 1024)) orders sent but not journalled" "$T/err" ||
			fail "alarm: $(cat "$T/err")"
		expect_eq "alarm: kill switch rejects" "$(value reject_kill_switch)" 0
		[ "$orders" -gt 1024 ] || fail "alarm: only $orders orders (too few to fill the file)"
		expect_eq "alarm: journalled" "$written" 1024
		expect_eq "alarm: failed" "$failed" $((orders - 1024))
		expect_eq "alarm: journal_full" "$(value journal_full)" $((orders - 1024))
		$JCMP --slack $((orders - 1024)) "$T/small/journal.pcap" -- "$T/out0.pcap" >"$T/cmp" ||
			fail "alarm: $(cat "$T/cmp")"
		echo "  alarm: $orders orders left, 1024 journalled, $failed counted failed"
	fi
	grep -q "exit status 12:.* orders missing from the journal" "$T/err" ||
		fail "$policy: $(tail -1 "$T/err")"
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
