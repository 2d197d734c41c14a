#!/usr/bin/env bash
# End-to-end through DPDK: a generated feed replayed by the net_pcap vdev
# into hedgewire's feed path; counts, gaps, drops and every instrument's
# best bid/ask must equal the generator's ground truth.
#   e2e_pcap.sh HEDGEWIRE FEEDGEN SRCDIR SCENARIO
# SCENARIO: clean | faults | gaps | workers2 | fanout2 | fanout-drops
# Captures end with MoldUDP64 end-of-session, which is what stops these
# runs: the idle timeout is off, so a starved VM cannot stop one early.
HEDGEWIRE=$1 FEEDGEN=$2 SRCDIR=$3 SCENARIO=$4
. "$SRCDIR/tests/integration/common.sh"

gen() { "$FEEDGEN" -q -o "$T/feed.pcap" --truth "$T/truth" "$@"; }

case $SCENARIO in
clean)
	gen --seed 11 --instruments 40 --messages 300000 --per-packet 5 \
		--vlan 141 --heartbeats 200
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/feed.pcap" --set feed.vlan=141 --set run.idle_timeout_ms=0 \
		--dump-book "$T/book" || fail "hedgewire exited $?: $(cat "$T/err")"
	grep -q "stopped on end of session" "$T/out" || fail "did not stop on end of session"
	expect_eq messages "$(value messages)" "$(truth messages)"
	expect_eq heartbeats "$(value heartbeats)" "$(truth heartbeats)"
	expect_eq end_of_session "$(value end_of_session)" 1
	expect_eq gaps "$(value gaps)" 0
	check_counts
	check_bbo
	# the generator's book is consistent: nothing may be refused
	if grep -q book_error "$T/out"; then
		grep book_error "$T/out"; fail "book errors on a clean feed"
	fi
	;;
faults)
	gen --seed 12 --instruments 25 --messages 200000 --per-packet 4 \
		--heartbeats 97 --dup-every 7 --truncate-every 11 --corrupt-every 13
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/feed.pcap" --dump-book "$T/book" \
		--set run.idle_timeout_ms=0 ||
		fail "hedgewire exited $?: $(cat "$T/err")"
	expect_eq messages "$(value messages)" "$(truth messages)"
	expect_eq gaps "$(value gaps)" 0
	check_counts
	check_bbo
	;;
gaps)
	gen --seed 13 --instruments 10 --messages 100000 --per-packet 4 \
		--gap-every 50 --dup-every 9 --heartbeats 31
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/feed.pcap" --dump-book "$T/book" \
		--set run.idle_timeout_ms=0 ||
		fail "hedgewire exited $?: $(cat "$T/err")"
	expect_eq gaps "$(value gaps)" "$(truth gaps)"
	expect_eq gap_messages "$(value gap_messages)" "$(truth gap_messages)"
	expect_eq messages "$(value messages)" "$(truth messages)"
	check_counts
	# missed adds make later executes/deletes unknown: counted, not fatal
	grep -q "book_error unknown_order_ref" "$T/out" ||
		fail "gapped feed should leave unknown order references"
	;;
workers2)
	# Two workers, each on its own net_pcap queue replaying the whole
	# file: both replicas must build the same book as the generator.
	gen --seed 14 --instruments 16 --messages 100000 --per-packet 6
	run_hw --lcores=0@0,1@1,2@1 "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap" \
		--set run.workers=2 --set book.instruments=64 --set book.orders=65536 \
		--set run.idle_timeout_ms=0 \
		--dump-book "$T/book" ||
		fail "hedgewire exited $?: $(cat "$T/err")"
	grep -q "worker 1 agrees with worker 0: yes" "$T/out" ||
		fail "replicas disagree: $(grep agrees "$T/out")"
	expect_eq messages "$(value messages)" "$(truth messages)"
	check_bbo
	;;
fanout2)
	# One RX lcore fans every frame out to two workers (mbuf references
	# + SP/SC rings). The pool and the rings hold the whole capture, so
	# neither the port nor a ring can drop: both replicas see it all.
	# ~19 k frames: a 32 k pool (~80 MB) holds them all, well inside the
	# test's 256 MB of EAL memory
	gen --seed 15 --instruments 16 --messages 40000 --per-packet 4
	[ "$(truth frames)" -lt 32767 ] || fail "capture too large for the pool"
	run_hw --lcores=0@0,1@1,2@1,3@0 "net_pcap0,rx_pcap=$T/feed.pcap" \
		--set rx.mode=fanout --set run.workers=2 --set rx.ring_size=32768 \
		--set run.idle_timeout_ms=0 \
		--set rx.mbufs=32767 --set book.instruments=64 \
		--set book.orders=65536 --dump-book "$T/book" ||
		fail "hedgewire exited $?: $(cat "$T/err")"
	grep -q "worker 0 drops 0, worker 1 drops 0" "$T/out" ||
		fail "fanout dropped: $(grep fanout "$T/out")"
	grep -q "imissed 0 rx_nombuf 0" "$T/out" ||
		fail "the port dropped: $(grep '^port' "$T/out")"
	grep -q "worker 1 agrees with worker 0: yes" "$T/out" ||
		fail "replicas disagree"
	expect_eq messages "$(value messages)" "$(truth messages)"
	check_bbo
	;;
fanout-drops)
	# Rings of 64 frames and oversubscribed CPUs: a slow worker loses its
	# own copies instead of stalling the others. Every frame is either
	# seen or counted as dropped, per worker; a worker that lost frames
	# sees the sequence gaps.
	gen --seed 16 --instruments 16 --messages 200000 --per-packet 2
	rc=0
	run_hw --lcores=0@0,1@1,2@1,3@0 "net_pcap0,rx_pcap=$T/feed.pcap" \
		--set rx.mode=fanout --set run.workers=2 --set rx.ring_size=64 \
		--set book.instruments=64 --set book.orders=65536 \
		--set run.idle_timeout_ms=500 || rc=$?
	line=$(grep "^fanout lcore" "$T/out")
	total=$(echo "$line" | sed 's/.*: \([0-9]*\) frames.*/\1/')
	d0=$(echo "$line" | sed 's/.*worker 0 drops \([0-9]*\).*/\1/')
	nombuf=$(sed -n 's/^port 0: .* rx_nombuf \([0-9]*\).*/\1/p' "$T/out")
	expect_eq "worker 0 frames + drops" "$(( $(value frames) + d0 ))" "$total"
	expect_eq "fanout frames + port rx_nombuf" "$((total + nombuf))" "$(truth frames)"
	if [ "$d0" -gt 0 ]; then
		[ "$(value gaps)" -gt 0 ] || fail "worker 0 dropped $d0 frames but saw no gap"
	fi
	# replicas that lost different frames disagree, and the exit status
	# says so (8 + 1); replicas that lost nothing agree and exit 0
	if grep -q "agrees with worker 0: NO" "$T/out"; then
		expect_eq "exit status with disagreeing replicas" "$rc" 9
	else
		expect_eq "exit status" "$rc" 0
	fi
	echo "  $line (exit status $rc)"
	;;
integrity)
	# A feed handler that trusts nothing: damage a capture the ways a
	# network or a tool does; each damaged packet costs that packet and
	# nothing more, and is counted under its own reason.
	EDIT="python3 $SRCDIR/tests/integration/pcap_edit.py"
	gen --seed 21 --instruments 40 --messages 100000 --per-packet 4
	total=$(truth messages)
	feed_run() {	# feed_run CAPTURE [args]: one worker, feed only
		local cap=$1; shift
		run_hw -l0-1 "net_pcap0,rx_pcap=$cap" --set run.idle_timeout_ms=1000 "$@" ||
			fail "hedgewire exited $?: $(cat "$T/err")"
	}
	drop_count() { awk -v r="$1" '$1 == "drop" && $2 == r { print $3 }' "$T/out"; }
	# the independent reference decoder (tests/ref) counts the same
	ref_stats() {
		python3 "$SRCDIR/tests/ref/hgw_ref.py" --feed "$1" --bbo "$T/ref.bbo" \
			--stats "$T/ref.stats" >/dev/null || fail "reference decoder failed on $1"
		local kind key v got n=0
		while read -r kind key v; do
			case $kind in
			drop) got=$(drop_count "$key");;
			messages|gaps|gap_messages) v=$key; key=$kind; got=$(value "$kind");;
			*) continue;;
			esac
			expect_eq "$key (hedgewire vs the reference decoder)" "${got:-0}" "$v"
			n=$((n + 1))
		done <"$T/ref.stats"
		echo "      $n counters equal the reference decoder's"
	}
	# (a) one sequence number damaged to 2^63 (checksums made right, so
	# only the sequencing can tell): held as suspect, forgotten when the
	# feed goes on; the session is not thrown away
	$EDIT "$T/feed.pcap" "$T/a.pcap" --seq 500=0x8000000000000000 --fix-checksums >"$T/lost"
	read -r _ _ _ q _ c <"$T/lost"
	feed_run "$T/a.pcap"
	grep -q "stopped on end of session" "$T/out" || fail "(a) did not run to the end"
	expect_eq "(a) messages" "$(value messages)" $((total - c))
	expect_eq "(a) mold_suspect" "$(drop_count mold_suspect)" 1
	expect_eq "(a) gap_messages" "$(value gap_messages)" "$c"
	echo "  (a) seq $q damaged to 2^63: that packet's $c messages lost, $(value messages) of $total applied"
	ref_stats "$T/a.pcap"
	# (b) one bit flipped in 5% of the frames: every one of them refused
	# (the checksums, or the header check that comes first), nothing of
	# them applied
	$EDIT "$T/feed.pcap" "$T/b.pcap" --flip 5 --seed 3 >"$T/lost"
	k=$(wc -l <"$T/lost")
	c=$(awk '{ n += $6 } END { print n + 0 }' "$T/lost")
	feed_run "$T/b.pcap"
	grep -q "stopped on end of session" "$T/out" || fail "(b) did not run to the end"
	d=$(awk '$1 == "drop" && $2 !~ /^itch_/ { n += $3 } END { print n + 0 }' "$T/out")
	expect_eq "(b) frames refused" "$d" "$k"
	expect_eq "(b) messages" "$(value messages)" $((total - c))
	[ "$(drop_count udp_checksum)" -gt 0 ] && [ "$(drop_count ip_checksum)" -gt 0 ] ||
		fail "(b) checksums did not catch the flips: $(grep '^  drop' "$T/out")"
	echo "  (b) $k frames with a flipped bit: all refused ($(drop_count ip_checksum) ip_checksum, $(drop_count udp_checksum) udp_checksum), $(value messages) of $total messages applied"
	ref_stats "$T/b.pcap"
	# (c) a flipped session name (a phantom session): dropped, no slot,
	# the end of session still ends the run
	$EDIT "$T/feed.pcap" "$T/c.pcap" --session 700=HGX0000001 --fix-checksums >"$T/lost"
	read -r _ _ _ q _ c <"$T/lost"
	feed_run "$T/c.pcap"
	grep -q "stopped on end of session" "$T/out" || fail "(c) a phantom session held up the end"
	expect_eq "(c) mold_new_session" "$(drop_count mold_new_session)" 1
	expect_eq "(c) messages" "$(value messages)" $((total - c))
	[ "$(grep -c '^  session ' "$T/out")" = 1 ] || fail "(c) the phantom took a slot"
	echo "  (c) phantom session on one packet: dropped, $(grep -c '^  session ' "$T/out") session tracked"
	ref_stats "$T/c.pcap"
	# (d) a sanitised capture (zeroed MoldUDP64 headers): every packet
	# refused as mold_seq_zero, not as a duplicate
	$EDIT "$T/feed.pcap" "$T/d.pcap" --zero-mold --fix-checksums >/dev/null
	feed_run "$T/d.pcap" --set run.idle_timeout_ms=500
	expect_eq "(d) mold_seq_zero" "$(drop_count mold_seq_zero)" "$(truth frames)"
	expect_eq "(d) mold_duplicate" "$(drop_count mold_duplicate)" ""
	echo "  (d) sanitised capture: $(drop_count mold_seq_zero) packets refused as mold_seq_zero"
	ref_stats "$T/d.pcap"
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: e2e $SCENARIO"
