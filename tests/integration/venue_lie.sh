# A venue that contradicts what hedgewire sent (sourced by venue_session.sh,
# SCENARIO lie; its helpers sim_start, hw, vv and $T/feed.pcap,
# $T/conf.ini): for each kind of scripts/venue_sim.py --lie, one run in
# tx-lcore mode with the simulator lying once after LIE_AFTER honest
# answers. Each run must end as a kill: exit status 8 + bits with bit 32,
# one stderr line `venue contradicted:` naming the lie's type, sequence
# number, UserRefNum and quantity as the simulator journalled them, no
# Enter Order at the simulator more than 250 ms after the lie was sent,
# every order open at the venue then cancelled, no crash
# (tests/integration/venue_lie_check.py lie). Every kind is run and
# judged; the test fails after the last one if any failed.
#   HGW_LIE_KINDS="kind ..." runs only those.
LIE_AFTER=20
KINDS=${HGW_LIE_KINDS:-exec-unsent exec-closed-dead exec-closed-zero
	exec-closed-modified exec-closed-filled overfill accept-over modify-over
	restate-over replace replace-future}
LIECHECK="python3 $SRCDIR/tests/integration/venue_lie_check.py"
# a third of venue_session.sh's feed: at 4000 frames a second (two
# copies of each packet) about 2.5 s, the lie after the first 0.5 s
"$FEEDGEN" -q -o "$T/feed.pcap" --seed 31 --instruments 40 \
	--messages 20000 --per-packet 4 --heartbeats 50
failed=()
for kind in $KINDS; do
	sim_stop
	rm -f "$T/state" "$T/sim.jsonl" "$T/venue.jl"*
	sim_start --lie "$kind" --lie-after "$LIE_AFTER"
	t0=$EPOCHREALTIME
	# paced: orders keep coming for about 2 s after the lie, unless
	# hedgewire stops them
	hw --set replay.pace=rate --set replay.pps=4000
	sim_stop
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	cp "$T/out" "$T/$kind.out"
	cp "$T/err" "$T/$kind.err"
	cp "$T/sim.jsonl" "$T/$kind.jsonl"
	if $LIECHECK lie "$T/sim.jsonl" "$RC" "$T/err" >"$T/$kind.check" 2>&1; then
		echo "  $kind: exit $RC in $secs s; $(cat "$T/$kind.check")"
		echo "    $(grep -m1 'venue contradicted:' "$T/err")"
	else
		failed+=("$kind")
		echo "  $kind: exit $RC in $secs s, orders sent $(vv "orders sent"):"
		sed 's/^/    /' "$T/$kind.check"
	fi
done
[ ${#failed[@]} -eq 0 ] || fail "${#failed[@]} kinds of lie not killed as they should be: ${failed[*]}"
