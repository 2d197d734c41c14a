# The end-to-end trading scenarios' shared part (sourced by e2e_*.sh, after
# they set HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO): a generated feed
# and table replayed with the net_pcap vdev (rx_pcap in, tx_pcap out) into
# hedgewire, whose orders must equal, byte for byte, those of the
# independent reference evaluator (tests/ref/hgw_ref.py, which shares no
# code with hedgewire), and its counters the reference's.
. "$SRCDIR/tests/integration/common.sh"
REF="python3 $SRCDIR/tests/ref/hgw_ref.py"
CMP="python3 $SRCDIR/tests/ref/cmp_orders.py"

command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }

# trade: run hedgewire and the reference on $T/feed.pcap and compare.
trade() {
	rm -f "$T"/journal*.pcap	# a journal is never overwritten
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out.pcap" \
		-c "$T/conf.ini" --set run.idle_timeout_ms=0 ||
		fail "hedgewire exited $?: $(cat "$T/err")"
	$REF --feed "$T/feed.pcap" --table "$T/table.tbl" --conf "$T/conf.ini" \
		--out "$T/expected.pcap" --summary "$T/ref.txt" >/dev/null ||
		fail "reference evaluator failed"
	$CMP "$T/expected.pcap" "$T/out.pcap" || fail "orders differ from the reference"
	local n=0
	while read -r key want; do
		expect_eq "$key (hedgewire vs reference)" "$(value "$key")" "$want"
		n=$((n + 1))
	done <"$T/ref.txt"
	echo "  $n counters equal the reference's; $(value orders) orders identical"
	# the journal holds exactly what left
	$CMP "$T/out.pcap" "$T/journal.pcap" >/dev/null ||
		fail "journal differs from the orders sent"
	grep -q "journal .*: $(value orders) orders written, 0 failed" "$T/out" ||
		fail "journal count: $(grep journal "$T/out")"
}

# hedged_reference: the configuration of the hedging runs (throttles high
# enough for thousands of orders) and its expected orders, $want of them,
# in $T/expected.pcap.
hedged_reference() {
	conf "[risk]" "max_orders_instrument = 400" "max_orders_total = 4000" \
		"window_ms = 50"
	$REF --feed "$T/feed.pcap" --table "$T/table.tbl" --conf "$T/conf.ini" \
		--out "$T/expected.pcap" --summary "$T/ref.txt" >/dev/null
	want=$(awk '$1 == "orders" { print $2 }' "$T/ref.txt")
}

# events_reference: the expected orders ($want of them) given the events
# hedgewire logged in $T/events.log, and its counters equal to the
# reference's (worker 0's summary; every racing replica agrees with it).
events_reference() {
	$REF --feed "$T/feed.pcap" --table "$T/table.tbl" --conf "$T/conf.ini" \
		--events "$T/events.log" --out "$T/expected.pcap" \
		--summary "$T/ref.txt" >/dev/null 2>"$T/ref.err" ||
		fail "reference evaluator failed on the events log: $(cat "$T/ref.err")"
	want=$(awk '$1 == "orders" { print $2 }' "$T/ref.txt")
	local key v
	while read -r key v; do
		[ "$key" = orders ] || expect_eq "$key (hedgewire vs reference with events)" \
			"$(value "$key")" "$v"
	done <"$T/ref.txt"
}

# sent_wait PID FILE...: until an order is in one of the tx_pcap FILEs
# (net_pcap writes a burst at a time): 0; 1 if hedgewire (PID) ended
# first or 30 s passed (a loaded host can take seconds to start).
sent_wait() {
	local pid=$1 i f
	shift
	for ((i = 0; i < 300; i++)); do
		for f in "$@"; do
			[ "$(stat -c %s "$f" 2>/dev/null || echo 0)" -gt 24 ] &&
				return 0
		done
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# positions_kept LABEL MAX: after a hedged_run with events, no position of
# the orders that left (${sent[@]}) ever passed MAX; the orders that left
# before a kill are the earliest of those decided before it, and its
# recalls were all taken back before it went off ($T/recalls.txt)
positions_kept() {
	python3 "$SRCDIR/tests/ref/positions.py" --max-position "$2" \
		"${sent[@]}" >"$T/pos.txt" ||
		fail "$1: a position passed its limit: $(grep -v '^symbol' "$T/pos.txt")"
	python3 "$SRCDIR/tests/ref/kill_recalls.py" "$T/events.log" \
		"${sent[@]}" >"$T/recalls.txt" ||
		fail "$1: $(head -5 "$T/recalls.txt")"
}

# hedged_run N MODE [hedgewire args]: N workers in dedup MODE on the feed;
# checks the orders that left against $T/expected.pcap ($want orders).
# With DRIVE set (tel_driver.py arguments), telemetry commands are sent
# while it runs, and the expectation is recomputed from the events log.
hedged_run() {
	local n=$1 mode=$2 lcores="--lcores=0@0" rx="" tx="" i nl drv=""
	shift 2
	nl=$((n + 1))
	[ "$mode" != tx-lcore ] || nl=$((nl + 1))	# the TX lcore
	for ((i = 1; i < nl; i++)); do lcores+=",$i@$((i % 2))"; done
	rm -f "$T"/out*.pcap "$T/final.pcap" "$T/dd.out"
	for ((i = 0; i < n; i++)); do
		rx+=",rx_pcap=$T/feed.pcap"
		[ "$mode" = tx-lcore ] || tx+=",tx_pcap=$T/out$i.pcap"
	done
	[ "$mode" != tx-lcore ] || tx=",tx_pcap=$T/out0.pcap"
	rm -f "$T/events.log"
	if [ -n "${DRIVE:-}" ]; then
		# shellcheck disable=SC2086
		rm -f "$T/drv.ready"
		python3 "$SRCDIR/tests/integration/tel_driver.py" "$PREFIX" \
			--ready "$T/drv.ready" $DRIVE >"$T/driver.out" 2>&1 &
		drv=$!
		# hedgewire starts once the interpreter is up: a slow start
		# on a loaded host must not eat into the run
		for _ in $(seq 300); do [ -e "$T/drv.ready" ] && break; sleep 0.1; done
		set -- "$@" --set run.events_log="$T/events.log"
	fi
	run_hw "$lcores" "net_pcap0$rx$tx" -c "$T/conf.ini" \
		--set run.workers="$n" --set run.dedup="$mode" \
		--set run.idle_timeout_ms=0 "$@" ||
		fail "$n workers, $mode: hedgewire exited $?: $(cat "$T/err") $(grep -i 'left\|NOT\|NO:' "$T/out")"
	if [ -n "$drv" ]; then
		wait "$drv" || fail "telemetry driver: $(tail -4 "$T/driver.out")"
		events_reference
		grep -q "NOT at the same message" "$T/out" &&
			fail "$n workers, $mode: an event was taken at different messages"
		# tx-lcore: orders the kill switch recalled were all taken back
		# out of the replicas' positions (the reference removes them)
		if grep -q "^kill switch: .* recalled" "$T/out"; then
			grep -q "SOME NOT" "$T/out" &&
				fail "$n workers, $mode: $(grep '^kill switch' "$T/out")"
			grep '^kill switch' "$T/out" | cut -c14- | sed 's/^/  /'
		fi
		echo "  $(tail -1 "$T/driver.out" | sed 's/tel_driver: //') sent;" \
			"$(grep -c '^[0-9]' "$T/events.log") in the log; reference:" \
			"$want orders, $(awk '$1 == "reject_kill_switch" { print $2 }' "$T/ref.txt") kill rejects"
	fi
	local dead
	dead=$(sed -n 's/^worker \([0-9]*\) stopped (injected).*/\1/p' "$T/out")
	[ -n "$dead" ] || [ "$(grep -c "agrees with worker 0: yes" "$T/out")" = $((n - 1)) ] ||
		fail "$n workers, $mode: replicas disagree"
	sent=("$T"/out*.pcap)	# the caller may check them too
	if [ "$mode" = downstream ]; then
		# every copy left; the bump in the wire keeps the first ones
		[ -n "$dead" ] || expect_eq "$n workers, downstream: journal (every copy)" \
			"$(grep -o '[0-9]* orders written' "$T/out" | cut -d' ' -f1)" $((n * want))
		local in=""
		for ((i = 0; i < n; i++)); do in+=",rx_pcap=$T/out$i.pcap"; done
		# --idle-ms counts from the first frame: with captures that
		# hold none, only the signal after 30 s ends the pass (it
		# drains, prints its counters, and the checks below judge)
		# shellcheck disable=SC2086
		timeout --preserve-status -s INT 30 "$HGW_DEDUP" -l0 --no-pci $EAL_MEM --file-prefix "$PREFIX-dd" \
			--log-level=error --vdev "net_pcap0$in" \
			--vdev "net_pcap1,tx_pcap=$T/final.pcap" -- --in 0 --out 1 \
			--idle-ms 300 >"$T/dd.out" 2>"$T/dd.err" ||
			fail "hgw-dedup exited $?: $(cat "$T/dd.err")"
		grep -q "orders forwarded $want, late copies dropped $(((n - 1) * want)), invalid dropped 0" "$T/dd.out" ||
			[ -n "$dead" ] ||
			fail "$n workers, downstream: $(grep forwarded "$T/dd.out")"
		sent=("$T/final.pcap")
	else
		expect_eq "$n workers, $mode: journal" \
			"$(grep -o '[0-9]* orders written' "$T/out" | cut -d' ' -f1)" "$want"
	fi
	python3 "$SRCDIR/tests/ref/merge_orders.py" "$T/merged.pcap" "${sent[@]}" \
		>/dev/null || fail "$n workers, $mode: a duplicate order escaped"
	$CMP "$T/expected.pcap" "$T/merged.pcap" ||
		fail "$n workers, $mode: hedged orders differ from one worker's"
	# every live worker accounted every order: won + lost = all of them
	# (tx-lcore: and the ones the kill switch recalled before they left)
	local won=0 w l recalled
	recalled=$(sed -n 's/^tx lcore .* recalled by the kill switch \([0-9]*\)$/\1/p' "$T/out")
	while read -r w l; do
		won=$((won + w))
		[ -n "$dead" ] || expect_eq "$mode won + lost" $((w + l)) $((want + ${recalled:-0}))
	done < <(sed -n 's/^worker [0-9]* races won \([0-9]*\) lost \([0-9]*\).*/\1 \2/p' "$T/out")
	[ "$mode" = downstream ] || [ "$n" = 1 ] ||
		expect_eq "$n workers, $mode: orders won" "$won" $((want + ${recalled:-0}))
	echo "  $n workers, $mode${1:+ ($*)}: $want orders, each once;" \
		"won: $(sed -n -e 's/^worker \([0-9]*\) races won \([0-9]*\).*/w\1=\2/p' \
			-e 's/^queue \([0-9]*\): first copies \([0-9]*\).*/w\1=\2/p' \
			"$T/out" "$T/dd.out" 2>/dev/null | tr '\n' ' ')"
}

"$FEEDGEN" -q -o "$T/feed.pcap" --truth "$T/truth" --seed 31 --instruments 40 \
	--messages 60000 --per-packet 4 --heartbeats 50 --dup-every 17
"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 --imbalances 8 \
	--seed 5 --fill 0.1
