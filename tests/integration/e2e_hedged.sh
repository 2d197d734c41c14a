#!/usr/bin/env bash
# Hedged workers end to end: N replicas in each dedup mode, a stalled or
# stopped worker, paced replay, the RX buffer options.
# Shared set-up and helpers: tests/integration/e2e_lib.sh.
#   e2e_hedged.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO
# SCENARIO: hedged | stall | worker-stop | paced | buffers
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 SCENARIO=$5
# shellcheck source=tests/integration/e2e_lib.sh
. "$SRCDIR/tests/integration/e2e_lib.sh"

# claims_check: after a claim-mode run with --claims $T/claims.csv, each
# worker's records (worker,seq,ns,won) are one per race it ran, its wins
# its races won, and every trigger of the run won by exactly one worker.
claims_check() {
	local i won lost got
	while read -r i won lost; do
		got=$(awk -F, -v w="$i" '$1 == w { n++; s += $4 } END { print n + 0, s + 0 }' "$T/claims.csv")
		expect_eq "--claims: worker $i: records, wins" "$got" "$((won + lost)) $won"
	done < <(sed -n 's/^worker \([0-9]*\) races won \([0-9]*\) lost \([0-9]*\).*/\1 \2 \3/p' "$T/out")
	expect_eq "--claims: triggers won once" \
		"$(awk -F, 'NR > 1 && $4 == 1 { n[$2]++ } END { for (s in n) if (n[s] != 1) bad++; print length(n), bad + 0 }' "$T/claims.csv")" \
		"$want 0"
}

case $SCENARIO in
hedged|stall|worker-stop)
	# N hedged workers, each with its own RX queue (the whole feed) and
	# its own replica, in every dedup mode: together they send exactly the
	# orders one worker sends (the reference's), each trigger once, and
	# every live replica accounts every order whether it won it or not.
	#   hedged       2, 3 and 4 workers (more lcores than CPUs: --lcores)
	#   stall        2 workers, worker 1 frozen 1 ms / 10 ms at random
	#                messages: nothing lost, nothing twice
	#   worker-stop  2 workers, worker 1 stops for good mid-feed: the
	#                orders continue
	hedged_reference
	[ "$want" -gt 500 ] || fail "too few orders to mean much: $want"
	if [ "$SCENARIO" = hedged ]; then
		# hgw-dedup refuses bad arguments in one line
		for bad in "--in 0 --out 0" "--burst 0" "--queues 99" "--idle-ms x"; do
			# shellcheck disable=SC2086
			if "$HGW_DEDUP" -l0 --no-pci $EAL_MEM --file-prefix "$PREFIX-dd" \
				--log-level=error --vdev net_null0 --vdev net_null1 -- \
				$bad >/dev/null 2>"$T/dd.err"; then
				fail "hgw-dedup accepted $bad"
			fi
			expect_eq "hgw-dedup $bad: error lines" "$(grep -c '^hgw-dedup: ' "$T/dd.err")" 1
		done
		echo "  hgw-dedup refused bad arguments: $(cat "$T/dd.err")"
	fi
	case $SCENARIO in
	hedged) runs="2:claim 3:claim 4:claim 2:tx-lcore 3:tx-lcore 4:tx-lcore
		2:downstream 3:downstream 4:downstream";;
	*) runs="2:claim 2:tx-lcore 2:downstream";;
	esac
	for run in $runs; do
		n=${run%%:*} mode=${run#*:}
		if [ "$SCENARIO" = stall ]; then
			for us in 1000 10000; do
				hedged_run "$n" "$mode" --inject-stall "1,$us,3000"
				grep -q "worker 1 injected stalls [1-9][0-9]* of $us us" "$T/out" ||
					fail "no stall was injected: $(grep stalls "$T/out")"
			done
		elif [ "$SCENARIO" = worker-stop ]; then
			hedged_run "$n" "$mode" --inject-stop "1,100"
			grep -q "worker 1 stopped (injected) after" "$T/out" ||
				fail "worker 1 did not stop"
		elif [ "$n" = 3 ]; then
			# the order paths without stage timing (each mode's
			# path is compiled once per setting)
			hedged_run "$n" "$mode" --set run.stage_sample=0
		elif [ "$run" = 2:claim ]; then
			# --claims: one record per trigger a worker claimed,
			# and the ones it won are its races won
			hedged_run "$n" "$mode" --claims "$T/claims.csv"
			claims_check
		else
			hedged_run "$n" "$mode"
		fi
	done
	;;
paced)
	# Paced replay: every trigger is in the sent orders' histogram exactly
	# once, in the text report and in the CSV and JSON files; the pcap pace
	# finds a timestamp on every frame; a worker held up 10 ms records
	# the lateness as latency (and as misses), it is not lost.
	hedged_reference
	for pace in rate pcap; do
		hedged_run 2 claim --set replay.pace=$pace --set replay.pps=200000 \
			--set replay.speed=2 --latency "$T/lat"
		expect_eq "$pace: sent rx_to_tx count" \
			"$(sed -n 's/^ *sent rx_to_tx: count \([0-9]*\) .*/\1/p' "$T/out")" "$want"
		grep -q "paced: .* 0 without a timestamp" "$T/out" ||
			fail "$pace: frames without a timestamp: $(grep paced: "$T/out")"
		expect_eq "$pace: CSV count" "$(awk -F, 'NR > 1 { n += $2 } END { print n }' "$T/lat.csv")" "$want"
		expect_eq "$pace: JSON count" "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["count"])' "$T/lat.json")" "$want"
		echo "  $pace pace: $(grep 'sent rx_to_tx' "$T/out")"
	done
	# one worker frozen for 10 ms now and then: the orders released while
	# it was frozen are late by up to 10 ms, and that is what it reports
	hedged_run 1 claim --set replay.pace=rate --set replay.pps=100000 \
		--inject-stall 0,10000,2000
	grep -q "worker 0 injected stalls [1-9]" "$T/out" || fail "no stall injected"
	max=$(sed -n 's/^  rx_to_tx: .* max \([0-9]*\) .*/\1/p' "$T/out")
	[ "$max" -ge 9000000 ] || fail "10 ms stalls, yet the worst order was $max ns late"
	[ "$(value misses)" -gt 0 ] || fail "10 ms stalls, yet no order missed 1 ms"
	echo "  stalled worker: $(value misses) misses, worst $max ns"
	;;
buffers)
	# Cache-aware buffers: with self-invalidation, L2 prefetch and
	# poisoning all on, the orders are byte-identical to the reference's
	# (as with all off), nothing is taken for a use after free, and each
	# switch did its work. Queues mode (each worker the only holder) and
	# fanout (the last of the workers to let go invalidates and poisons).
	hedged_reference
	on=(--set buffers.invalidate=invalidate --set buffers.prefetch=yes
	    --set buffers.prefetch_min_burst=2 --set buffers.poison=256)
	hedged_run 2 claim "${on[@]}"
	check_buffers() {
		grep -q "use_after_free" "$T/out" && fail "$1: a live buffer was taken for freed"
		grep -q "buffers: invalidate clflushopt\|buffers: invalidate dc civac\|not on this CPU" "$T/out" ||
			fail "$1: $(grep '^buffers' "$T/out")"
		read -r freed lines poisoned bursts < <(sed -n \
			's/^worker [0-9]* buffers: \([0-9]*\) released, \([0-9]*\) lines invalidated, \([0-9]*\) poisoned; \([0-9]*\) prefetch bursts.*/\1 \2 \3 \4/p' \
			"$T/out" | awk '{ for (i = 1; i <= 4; i++) s[i] += $i }
				END { print s[1] + 0, s[2] + 0, s[3] + 0, s[4] + 0 }')
		# every buffer is released once, by its last holder: one per
		# frame and queue ($2 copies of each frame)
		expect_eq "$1: buffers released" "$freed" $(($(value frames) * $2))
		[ "${freed:-0}" -gt 0 ] && [ "$poisoned" = "$freed" ] ||
			fail "$1: released $freed, poisoned $poisoned"
		grep -q "not on this CPU" "$T/out" || [ "$lines" -ge "$freed" ] ||
			fail "$1: $lines lines invalidated for $freed buffers"
		[ "$bursts" -gt 0 ] || fail "$1: no prefetch burst in a full-speed replay"
		echo "  $1: workers released $freed buffers, $lines lines invalidated, $poisoned poisoned, $bursts prefetch bursts"
	}
	check_buffers queues 2
	run_hw --lcores=0@0,1@1,2@0,3@1 \
		"net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap,tx_pcap=$T/out1.pcap" \
		-c "$T/conf.ini" --set run.workers=2 --set rx.mode=fanout \
		--set rx.ring_size=32768 --set rx.mbufs=40000 \
		--set run.idle_timeout_ms=3000 "${on[@]}" ||
		fail "fanout: hedgewire exited $?: $(cat "$T/err")"
	grep -q "worker 0 drops 0, worker 1 drops 0" "$T/out" || fail "fanout dropped: $(grep '^fanout' "$T/out")"
	python3 "$SRCDIR/tests/ref/merge_orders.py" "$T/merged.pcap" "$T/out0.pcap" "$T/out1.pcap" \
		>/dev/null || fail "fanout: a duplicate order escaped"
	$CMP "$T/expected.pcap" "$T/merged.pcap" || fail "fanout: orders differ with the buffer switches on"
	check_buffers fanout 1
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: e2e $SCENARIO"
