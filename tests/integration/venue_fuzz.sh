# A venue that garbles its answers at random (sourced by venue_session.sh,
# SCENARIO fuzz; its helpers sim_start, hw, vv and $T/conf.ini): hedgewire
# in tx-lcore mode against scripts/venue_sim.py --fuzz SEED, one run per
# seed of a fixed list, 60 s of paced feed in all. An operator clears the
# kill switch every half second or so (tel_driver.py), so that trading
# resumes after each session the venue drops or garbles. Judged by
# tests/integration/venue_lie_check.py fuzz on the simulator's journal:
# hedgewire never crashes (exit status 0 or 8 + bits, no sanitizer report);
# the first contradiction it received killed the run (bit 32, named by
# `venue contradicted:`, no Enter Order 250 ms after it, the open orders
# cancelled) and nothing else did; every malformed packet dropped the
# connection and is counted under its reason; the position the venue
# filled per symbol never passed [risk] max_position before a
# contradiction.
#   HGW_FUZZ_SEEDS="seed ..." runs those seeds instead (a failure prints
#   its seed: rerun it alone); HGW_FUZZ_SECONDS=S plays S s of feed in all.
SEEDS=${HGW_FUZZ_SEEDS:-"11 23 37"}
SECONDS_ALL=${HGW_FUZZ_SECONDS:-60}
RATE=0.03
MAXPOS=3000
nseeds=$(echo "$SEEDS" | wc -w)
# venue_session.sh's 60,000-message feed (28,924 frames: two copies of
# each packet) lasts SECONDS_ALL over all seeds
pps=$((28924 * nseeds / SECONDS_ALL))
LIECHECK="python3 $SRCDIR/tests/integration/venue_lie_check.py"
failed=()
for seed in $SEEDS; do
	sim_stop
	rm -f "$T/state" "$T/sim.jsonl" "$T/venue.jl"*
	sim_start --fuzz "$seed" --fuzz-rate "$RATE"
	# the operator: /hgw/risk/kill,0 every 300-700 ms from the first
	# order on, for longer than the run
	python3 "$SRCDIR/tests/integration/tel_driver.py" "$PREFIX" \
		--cmd /hgw/risk/kill,0 --gap-ms 300,700 --duration 300 \
		--seed "$seed" --after "$T/sim.jsonl:\"type\": \"U\"" \
		>"$T/driver.out" 2>&1 &
	drv=$!
	t0=$EPOCHREALTIME
	hw --set replay.pace=rate --set replay.pps="$pps" \
		--set venue.reconnect_ms=50 --set risk.max_position="$MAXPOS"
	kill "$drv" 2>/dev/null || true
	wait "$drv" 2>/dev/null || true
	sim_stop
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	for f in out err sim.jsonl venue.jl driver.out; do
		[ ! -f "$T/$f" ] || cp "$T/$f" "$T/seed$seed.$f"
	done
	echo "  seed $seed: exit $RC in $secs s, orders sent $(vv "orders sent"), logins $(vv logins), position rejects $(value reject_position_limit)"
	if $LIECHECK fuzz "$T/sim.jsonl" "$RC" "$T/err" "$T/out" "$T/venue.jl" \
		"$MAXPOS" >"$T/seed$seed.check" 2>&1; then
		sed 's/^/    /' "$T/seed$seed.check"
		grep -m1 'venue contradicted:' "$T/err" | sed 's/^/    /' || true
	else
		failed+=("$seed")
		sed 's/^/    /' "$T/seed$seed.check"
	fi
done
[ ${#failed[@]} -eq 0 ] || fail "seeds failed (HGW_FUZZ_SEEDS=\"${failed[*]}\" reruns them): ${failed[*]}"
