#!/usr/bin/env bash
# Trading across feed gaps: the gap halt, and A/B lines.
# Shared set-up and helpers: tests/integration/e2e_lib.sh.
#   e2e_gaps_trade.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO
# SCENARIO: gap-halt | ab-trade
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 SCENARIO=$5
# shellcheck source=tests/integration/e2e_lib.sh
. "$SRCDIR/tests/integration/e2e_lib.sh"

case $SCENARIO in
gap-halt)
	# A replica that missed input stops trading; the others carry on.
	# Worker 1's copy of the feed lacks 400 frames: it halts at the gap,
	# worker 0 sends every order (the reference's, byte for byte), and
	# the exit status says a replica halted (8 + 8). Then a capture met
	# mid-session: join = recover halts (nothing sent), join = baseline
	# trades after the warm-up.
	EDIT="python3 $SRCDIR/tests/integration/pcap_edit.py"
	hedged_reference
	$EDIT "$T/feed.pcap" "$T/holed.pcap" --drop 3000-3399 >/dev/null
	for mode in claim tx-lcore; do
		rm -f "$T"/out*.pcap
		lcores="--lcores=0@0,1@1,2@0"
		tx=",tx_pcap=$T/out0.pcap,tx_pcap=$T/out1.pcap"
		[ "$mode" = claim ] || { lcores+=",3@1"; tx=",tx_pcap=$T/out0.pcap"; }
		rc=0
		run_hw "$lcores" "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/holed.pcap$tx" \
			-c "$T/conf.ini" --set run.workers=2 --set run.dedup=$mode \
			--set run.idle_timeout_ms=0 || rc=$?
		expect_eq "$mode: exit status" "$rc" 16
		grep -q "exit status 16: a replica missed input and halted" "$T/err" ||
			fail "$mode: stderr: $(cat "$T/err")"
		grep -q "^worker 1 HALTED on a sequence gap" "$T/out" ||
			fail "$mode: worker 1 did not halt: $(grep -i 'halt\|agree' "$T/out")"
		grep -q "^worker 0 HALTED" "$T/out" && fail "$mode: worker 0 halted"
		grep -q "LEFT THE RACE" "$T/out" && fail "$mode: a replica left the race: $(grep LEFT "$T/out")"
		python3 "$SRCDIR/tests/ref/merge_orders.py" "$T/merged.pcap" "$T"/out*.pcap \
			>/dev/null || fail "$mode: a duplicate order escaped"
		$CMP "$T/expected.pcap" "$T/merged.pcap" ||
			fail "$mode: the orders that left differ from the reference's"
		echo "  $mode: $(grep '^worker 1 HALTED' "$T/out" | cut -c1-90)...; $want orders left, as the reference's"
	done
	# met mid-session: the first 2000 frames are not in the capture
	$EDIT "$T/feed.pcap" "$T/late.pcap" --drop 1-2000 >/dev/null
	rc=0
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/late.pcap,tx_pcap=$T/out.pcap" \
		-c "$T/conf.ini" --set run.idle_timeout_ms=0 || rc=$?
	expect_eq "late join, recover: exit status" "$rc" 16
	expect_eq "late join, recover: orders" "$(value orders)" 0
	# baseline_check LABEL CAPTURE OUT.pcap: hedgewire's orders (OUT) and
	# counters equal, byte for byte, the reference evaluator's on CAPTURE
	# with the same configuration ($T/base.ini: join = baseline and its
	# warm-up), and the triggers it left alone during the warm-up are
	# the reference's
	baseline_check() {
		local label=$1 key v n=0
		$REF --feed "$2" --table "$T/table.tbl" --conf "$T/base.ini" \
			--out "$T/expected-base.pcap" --summary "$T/ref-base.txt" \
			>/dev/null 2>"$T/ref-base.err" ||
			fail "$label: reference evaluator failed: $(cat "$T/ref-base.err")"
		$CMP "$T/expected-base.pcap" "$3" ||
			fail "$label: the orders differ from the reference's"
		while read -r key v; do
			expect_eq "$label: $key (hedgewire vs reference)" "$(value "$key")" "$v"
			n=$((n + 1))
		done <"$T/ref-base.txt"
		v=$(awk '$1 == "warmup_triggers" { print $2 }' "$T/ref-base.err")
		[ -n "$v" ] || fail "$label: the reference met no baseline join"
		grep -q "^worker 0 joined mid-session (baseline): $v triggers left alone during the warm-up$" "$T/out" ||
			fail "$label: $(grep -i joined "$T/out"), the reference left $v alone"
		echo "  $label: $(value orders) orders and $n counters as the reference's; $v triggers left alone in the warm-up"
	}
	# base.ini: the same configuration, met mid-session under baseline
	# with a warm-up of WARMUP messages, for hedgewire and the reference
	base_ini() {
		sed "s/^\[feed\]$/&\njoin = baseline\nwarmup_messages = $1/" "$T/conf.ini" >"$T/base.ini"
		grep -q "^warmup_messages = $1$" "$T/base.ini" || fail "base.ini: no [feed]"
	}
	base_ini 5000
	# the warm-up matters here: without it the reference sends more
	$REF --feed "$T/late.pcap" --table "$T/table.tbl" \
		--conf <(sed 's/^warmup_messages = .*/warmup_messages = 0/' "$T/base.ini") \
		--out "$T/expected-nowarm.pcap" --summary "$T/ref-nowarm.txt" >/dev/null 2>&1 ||
		fail "reference evaluator failed without a warm-up"
	rc=0
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/late.pcap,tx_pcap=$T/out.pcap" \
		-c "$T/base.ini" --set run.idle_timeout_ms=0 || rc=$?
	expect_eq "late join, baseline: exit status" "$rc" 0
	expect_eq "late join, baseline: gaps" "$(value gaps)" 0
	baseline_check "late join, baseline" "$T/late.pcap" "$T/out.pcap"
	nowarm=$(awk '$1 == "orders" { print $2 }' "$T/ref-nowarm.txt")
	[ "$nowarm" -gt "$(value orders)" ] ||
		fail "late join: the warm-up holds back no order ($nowarm without it): the test means little"
	echo "  late join: recover halts (0 orders); baseline trades after the warm-up ($(value orders) orders; $nowarm without one)"
	# a second session met mid-way right after the first (no end of
	# session between them): the warm-up starts at the join frame however
	# frames are batched, so one frame a burst and 32 a burst each decide
	# as the reference does
	"$FEEDGEN" -q -o "$T/sa.pcap" --session SESSIONA --seed 71 \
		--instruments 40 --messages 30000 --per-packet 4
	"$FEEDGEN" -q -o "$T/sb.pcap" --session SESSIONB --seed 72 \
		--instruments 40 --messages 30000 --per-packet 4
	na=$(capinfos -c -M "$T/sa.pcap" | awk '/Number of packets/ {print $NF}')
	$EDIT "$T/sa.pcap" "$T/sa2.pcap" --drop "$na-$na" >/dev/null	# its end of session
	$EDIT "$T/sb.pcap" "$T/sb2.pcap" --drop 1-300 >/dev/null
	mergecap -F pcap -a -w "$T/two.pcap" "$T/sa2.pcap" "$T/sb2.pcap"
	base_ini 2000
	for b in 1 32; do
		rc=0
		run_hw -l0-1 "net_pcap0,rx_pcap=$T/two.pcap,tx_pcap=$T/two$b.pcap" \
			-c "$T/base.ini" --set run.idle_timeout_ms=2000 --set rx.burst=$b || rc=$?
		expect_eq "two sessions, burst $b: exit status" "$rc" 0
		baseline_check "two sessions, burst $b" "$T/two.pcap" "$T/two$b.pcap"
	done
	;;
ab-trade)
	# A/B lines: each worker reads both lines and takes the first copy of
	# each message. Losses on one line only are no gap: the orders equal
	# the reference's, nobody halts. A range both lines lost is one gap:
	# every worker halts there (exit 8 + 8), having sent exactly the
	# reference's orders before it.
	EDIT="python3 $SRCDIR/tests/integration/pcap_edit.py"
	hedged_reference
	$EDIT "$T/feed.pcap" "$T/a.pcap" --drop 3000-3100 >/dev/null
	$EDIT "$T/a.pcap" "$T/a2.pcap" --drop 8000-8200 >/dev/null
	$EDIT "$T/feed.pcap" "$T/b.pcap" --drop 5000-5100 >/dev/null
	ab_run() {	# ab_run A B [args]: 2 workers, 2 lines each
		local a=$1 b=$2
		shift 2
		rm -f "$T"/out*.pcap
		rc=0
		run_hw --lcores=0@0,1@1,2@0 \
			"net_pcap0,rx_pcap=$a,rx_pcap=$b,rx_pcap=$a,rx_pcap=$b,tx_pcap=$T/out0.pcap,tx_pcap=$T/out1.pcap" \
			-c "$T/conf.ini" --set run.workers=2 --set feed.lines=2 \
			--set run.idle_timeout_ms=0 "$@" || rc=$?
		python3 "$SRCDIR/tests/ref/merge_orders.py" "$T/merged.pcap" "$T"/out*.pcap \
			>/dev/null || fail "A/B: a duplicate order escaped"
	}
	ab_run "$T/a2.pcap" "$T/b.pcap"
	expect_eq "A/B, one line lost each range: exit status" "$rc" 0
	expect_eq "A/B: gaps" "$(value gaps)" 0
	grep -q "HALTED" "$T/out" && fail "A/B: a worker halted: $(grep HALTED "$T/out")"
	grep -q "^worker 0 gaps: [1-9][0-9]* frames held, .* 0 lost on both lines" "$T/out" ||
		fail "A/B: $(grep '^worker 0 gaps' "$T/out")"
	$CMP "$T/expected.pcap" "$T/merged.pcap" || fail "A/B: orders differ from the reference's"
	expect_eq "A/B: messages" "$(value messages)" "$(truth messages)"
	echo "  one line lost each range: no gap, $(value messages) messages, $want orders as the reference's; $(grep '^worker 0 gaps' "$T/out" | cut -d';' -f1)"
	# a bit flipped in 2% of line A's frames: each refused by its
	# checksum and filled by line B, so it costs nothing
	$EDIT "$T/feed.pcap" "$T/af.pcap" --flip 2 --seed 5 >"$T/flipped"
	ab_run "$T/af.pcap" "$T/feed.pcap"
	expect_eq "A/B, flipped bits on A: exit status" "$rc" 0
	expect_eq "A/B, flipped bits on A: gaps" "$(value gaps)" 0
	[ "$(awk '$1 == "drop" && $2 ~ /checksum/ { n += $3 } END { print n + 0 }' "$T/out")" -gt 0 ] ||
		fail "A/B flipped: no checksum drop"
	$CMP "$T/expected.pcap" "$T/merged.pcap" || fail "A/B flipped: orders differ from the reference's"
	echo "  $(wc -l <"$T/flipped") frames of line A damaged: refused by their checksums, filled by line B, $want orders as the reference's"
	# both lines lost frames 5050-5100: one gap, every worker halts there
	$EDIT "$T/feed.pcap" "$T/a3.pcap" --drop 5050-5150 >/dev/null
	ab_run "$T/a3.pcap" "$T/b.pcap"
	expect_eq "A/B, a range both lost: exit status" "$rc" 16
	expect_eq "A/B, a range both lost: gaps" "$(value gaps)" 1
	grep -q "^worker 0 HALTED on a sequence gap on both lines" "$T/out" ||
		fail "A/B both lost: $(grep -i 'halt\|gaps' "$T/out")"
	grep -q "^worker 1 HALTED on a sequence gap on both lines" "$T/out" ||
		fail "A/B both lost: worker 1: $(grep -i 'halt' "$T/out")"
	echo "  both lines lost one range: $(value gaps) gap of $(value gap_messages) messages; $(grep -c HALTED "$T/out") workers halted there"
	# the same range lost on both lines, with a hold buffer of 4 frames:
	# it fills in the middle of a burst that also brought the last
	# frames before the gap, and the gap is given up on there. The halt
	# still takes effect at the gap: the orders that left are the
	# reference's over the frames before it, none held back
	frames=$(capinfos -M -c "$T/feed.pcap" | awk '/Number of packets/ { print $NF }')
	$EDIT "$T/feed.pcap" "$T/upto.pcap" --drop "5050-$frames" >/dev/null
	$REF --feed "$T/upto.pcap" --table "$T/table.tbl" --conf "$T/conf.ini" \
		--out "$T/expected-upto.pcap" --summary "$T/ref-upto.txt" >/dev/null
	ab_run "$T/a3.pcap" "$T/a3.pcap" --set feed.hold_frames=4
	expect_eq "A/B, a range both lost, 4 frames held at most: exit status" "$rc" 16
	grep -q "^worker 0 HALTED on a sequence gap" "$T/out" ||
		fail "A/B, 4 frames held at most: $(grep -i 'halt\|gaps' "$T/out")"
	$CMP "$T/expected-upto.pcap" "$T/merged.pcap" ||
		fail "A/B, 4 frames held at most: orders differ from the reference's before the gap"
	echo "  4 frames held at most: $(grep '^worker 0 gaps' "$T/out" | cut -d';' -f1 | cut -d: -f2); $(awk '$1 == "orders" { print $2 }' "$T/ref-upto.txt") orders, the reference's before the gap"
	# random losses on each line (the generator's, independent): the
	# decoder sees exactly the messages at least one line delivered and
	# declares exactly the gaps both lines lost (feed only, 2 workers)
	"$FEEDGEN" -q -o "$T/la.pcap" --truth "$T/truth" --seed 41 --instruments 40 \
		--messages 60000 --per-packet 4 --line-b "$T/lb.pcap" \
		--group-b 233.49.196.111 --loss-a 3 --loss-b 3 --loss-seed 4
	run_hw --lcores=0@0,1@1,2@0 \
		"net_pcap0,rx_pcap=$T/la.pcap,rx_pcap=$T/lb.pcap,rx_pcap=$T/la.pcap,rx_pcap=$T/lb.pcap" \
		--set run.workers=2 --set feed.lines=2 --set feed.group_b=233.49.196.111 \
		--set run.idle_timeout_ms=0 ||
		fail "A/B random losses: hedgewire exited $?: $(cat "$T/err")"
	expect_eq "A/B random losses: messages" "$(value messages)" "$(truth ab_messages)"
	expect_eq "A/B random losses: gaps" "$(value gaps)" "$(truth ab_gaps)"
	expect_eq "A/B random losses: gap_messages" "$(value gap_messages)" "$(truth ab_gap_messages)"
	grep -q "^worker 1 agrees with worker 0: yes" "$T/out" || fail "A/B: replicas disagree"
	echo "  random losses (A $(truth lost_a), B $(truth lost_b) packets, $(truth lost_both_packets) on both): $(value messages) messages, $(value gaps) gaps, as the generator's A/B truth"
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: e2e $SCENARIO"
