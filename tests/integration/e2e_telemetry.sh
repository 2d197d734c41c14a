#!/usr/bin/env bash
# The telemetry commands end to end while orders flow.
# Shared set-up and helpers: tests/integration/e2e_lib.sh.
#   e2e_telemetry.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO
# SCENARIO: telemetry
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 SCENARIO=$5
# shellcheck source=tests/integration/e2e_lib.sh
. "$SRCDIR/tests/integration/e2e_lib.sh"

case $SCENARIO in
telemetry)
	# /hgw/stats, /hgw/workers and /hgw/latency answer while hedgewire
	# runs (a paced replay that does not stop at its end of session:
	# the test stops it once the queries are answered), through Debian's
	# dpdk-telemetry.py, and what they say agrees with the summary at
	# exit.
	command -v dpdk-telemetry.py >/dev/null || fail "dpdk-telemetry.py missing (package dpdk)"
	conf "[risk]" "max_orders_instrument = 400" "max_orders_total = 4000" \
		"window_ms = 50"
	# hedgewire itself in the background (not in a subshell), for the
	# signal below
	# shellcheck disable=SC2086
	"$HEDGEWIRE" --lcores=0@0,1@1,2@0 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap,tx_pcap=$T/out1.pcap" -- \
		-c "$T/conf.ini" --set run.workers=2 --set replay.pace=rate \
		--set replay.pps=4000 --set run.idle_timeout_ms=0 \
		--set run.stop_at_end_of_session=no >"$T/out" 2>"$T/err" &
	hw=$!
	PIDS+=("$hw")
	sock=/var/run/dpdk/$PREFIX/dpdk_telemetry.v2
	for _ in $(seq 300); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ] || fail "no telemetry socket $sock"
	mode=$(stat -c %A "$sock")
	case $mode in ?????w????|????????w?) fail "telemetry socket is $mode: others may write";; esac
	# queried once orders leave: the commands are registered and the
	# counters moving (at most 30 s: a loaded host starts slowly)
	sent_wait $hw "$T/out0.pcap" "$T/out1.pcap" ||
		fail "no order left in 30 s (or hedgewire ended): $(tail -3 "$T/err")"
	# a worker answers a snapshot within 200 ms, or is counted as not
	# answering (descheduled on a loaded host): asked again, 20 times
	# at most, until both answered
	for ((i = 0; i < 20; i++)); do
		printf '/hgw/stats\n/hgw/workers\n/hgw/latency\n' |
			dpdk-telemetry.py -f "$PREFIX" >"$T/tel" 2>&1 || fail "dpdk-telemetry.py: $(cat "$T/tel")"
		grep -q '"workers_answering": 2' "$T/tel" &&
			[ "$(grep -o '"answered": 1' "$T/tel" | wc -l)" = 2 ] && break
	done
	# it runs until told to stop (not at the end of the session), so it
	# is running when asked whatever the host's speed: stopped here
	kill -0 $hw 2>/dev/null || fail "hedgewire ended by itself: $(cat "$T/err")"
	kill -TERM $hw
	wait $hw || fail "hedgewire exited $?: $(cat "$T/err")"
	grep -q "stopped on signal" "$T/out" || fail "did not stop on the signal: $(head -3 "$T/out")"
	python3 - "$T/tel" "$T/out" <<'PY' || fail "telemetry answers wrong: $(cat "$T/tel")"
import json, re, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
got = {k: v for d in docs for k, v in d.items()}
st, wk, lat = got['/hgw/stats'], got['/hgw/workers'], got['/hgw/latency']
out = open(sys.argv[2]).read()
final = int(re.search(r'sent rx_to_tx: count (\d+)', out).group(1))
assert st['running'] == 1 and st['workers'] == 2 and st['workers_answering'] == 2, st
assert 0 < st['frames'] and st['messages'] > 0, st
assert set(wk) == {'worker0', 'worker1'}, wk
for w in wk.values():
    assert w['answered'] == 1 and w['frames'] > 0, w
    assert w['count'] == w['orders'], w
    assert w['p50_ns'] <= w['p99_ns'] <= w['max_ns'], w
# asked one after the other: counts only grow, never past the end
assert 0 < st['orders_sent'] <= lat['count'] <= final, (st, lat, final)
assert lat['p50_ns'] <= lat['p99_9_ns'] <= lat['max_ns'], lat
assert abs(lat['worker0_wins_ppm'] + lat['worker1_wins_ppm'] - 1000000) <= 2, lat
print('  live: %d frames, %d orders; latency count %d of %d at exit, p50 %d ns'
      % (st['frames'], st['orders_sent'], lat['count'], final, lat['p50_ns']))
PY
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: e2e $SCENARIO"
