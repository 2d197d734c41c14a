#!/usr/bin/env bash
# The pricing table end to end: bad tables and maps refused at start-up,
# live patches applied and refused.
# Shared set-up and helpers: tests/integration/e2e_lib.sh.
#   e2e_table.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO
# SCENARIO: bad-table | table-patch | patch-refuse
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 SCENARIO=$5
# shellcheck source=tests/integration/e2e_lib.sh
. "$SRCDIR/tests/integration/e2e_lib.sh"

case $SCENARIO in
bad-table)
	good=$T/table.tbl
	conf
	# expect_table_error WANT FILE: start-up refuses the table in one line.
	expect_table_error() {
		sed -i "s|^file = .*|file = $2|" "$T/conf.ini"
		if run_hw -l0-1 "net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out.pcap" \
			-c "$T/conf.ini"; then
			fail "accepted table $2"
		fi
		expect_eq "error lines" "$(grep -c '^hedgewire: ' "$T/err")" 1
		grep -q "$1" "$T/err" || fail "error does not say '$1': $(cat "$T/err")"
		echo "  refused: $(grep '^hedgewire: ' "$T/err")"
	}
	size=$(stat -c %s "$good")
	head -c $((size - 1)) "$good" >"$T/short.tbl"
	expect_table_error "truncated\|size" "$T/short.tbl"
	cp "$good" "$T/flip.tbl"
	printf '\x7f' | dd of="$T/flip.tbl" bs=1 seek=$((size / 2)) conv=notrunc status=none
	expect_table_error "checksum" "$T/flip.tbl"
	printf 'NOTATABLE' >"$T/junk.tbl"
	expect_table_error "$T/junk.tbl" "$T/junk.tbl"
	expect_table_error "$T/none.tbl" "$T/none.tbl"
	# a bad channel map and a power-of-two violation, with a good table
	sed -i "s|^file = .*|file = $good\nchanmap = $T/bad.map|" "$T/conf.ini"
	printf 'name x\nmask zero\n' >"$T/bad.map"
	expect_table_error "chanmap.*bad.map:2" "$good"
	sed -i "s|^chanmap = .*|chanmap =|" "$T/conf.ini"
	sed -i "s|^journal = .*|journal = $T/no-such-dir/journal.pcap|" "$T/conf.ini"
	expect_table_error "\[order\] journal = $T/no-such-dir/journal.pcap: No such file" "$good"
	;;
table-patch)
	# Live update through telemetry while hedgewire replays the feed: a
	# patch is read and validated once, every replica takes it before the
	# same message, and every entry of it then reads back, through the
	# workers' consistent read, with the patched values; a bad patch
	# changes nothing. The kill switch at run time answers with the feed
	# position it takes effect at.
	command -v dpdk-telemetry.py >/dev/null || { echo "SKIP: no dpdk-telemetry.py"; exit 77; }
	"$TABLEGEN" -q --patch "$T/patch.txt" --patch-count 25 --instruments 64 \
		--spreads 8 --imbalances 8 --seed 77
	conf
	printf '[run]\nstop_at_end_of_session = no\nidle_timeout_ms = 0\n' >>"$T/conf.ini"
	# 2000 packets/s: the feed lasts 15 s, far beyond the patch
	printf 'workers = 2\nevents_log = %s\n[replay]\npace = rate\npps = 2000\n' \
		"$T/events.log" >>"$T/conf.ini"
	# one telemetry connection for the whole test (an interpreter per
	# command is slow on a host whose CPUs the workers keep busy)
	coproc TEL { exec python3 "$SRCDIR/tests/integration/tel_driver.py" \
		"$PREFIX" --stdin --ready "$T/tel.ready" 2>&1; }
	PIDS+=("$TEL_PID")
	# plain descriptors: a coprocess's are closed in subshells (pipes)
	exec 7>&"${TEL[1]}" 8<&"${TEL[0]}"
	for _ in $(seq 300); do [ -e "$T/tel.ready" ] && break; sleep 0.1; done
	# shellcheck disable=SC2086
	"$HEDGEWIRE" --lcores=0@0,1@1,2@0 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap,tx_pcap=$T/out1.pcap" -- \
		-c "$T/conf.ini" >"$T/out" 2>"$T/err" &
	pid=$!
	PIDS+=("$pid")
	tel() {
		local reply
		echo "$1" >&7
		read -r -t 60 reply <&8 || { kill "$pid"; fail "telemetry: no reply to $1"; }
		echo "$reply"
	}
	tel /hgw/table | grep -q '"entries": 4096' || { kill "$pid"; fail "telemetry: $(tel /hgw/table)"; }
	# the feed is flowing once orders leave (at most 30 s: a loaded
	# host starts slowly)
	sent_wait "$pid" "$T/out0.pcap" "$T/out1.pcap" ||
		kill -0 "$pid" 2>/dev/null || fail "hedgewire ended: $(cat "$T/err")"
	printf '0 0 0 X 0 0 Y 0 1 1\n' >"$T/bad.txt"
	before=$(tel /hgw/table/entry,0,0,0)
	tel "/hgw/table/patch,$T/bad.txt" | grep -q '"error"' || { kill "$pid"; fail "bad patch accepted"; }
	expect_eq "entry after a refused patch" "$(tel /hgw/table/entry,0,0,0)" "$before"
	res=$(tel "/hgw/table/patch,$T/patch.txt")
	echo "  $res"
	echo "$res" | grep -q '"event": 1, "session": "[^"]*", "seq": [1-9][0-9]*, "entries": 25' ||
		{ kill "$pid"; fail "patch: $res"; }
	checked=0
	# the last line for an entry wins; check each entry's final value
	grep -v '^#' "$T/patch.txt" | awk '{ last[$1 " " $2 " " $3] = $0 }
		END { for (k in last) print last[k] }' >"$T/final.txt"
	# the feed passes the patch's position: the first entry turns (both
	# replicas take it before the same message, checked at the end)
	read -r l s i action mode tif disp price qty tag <"$T/final.txt"
	want="{\"/hgw/table/entry\": {\"action\": \"$action\", \"price_mode\": $mode, \"tif\": \"$tif\", \"display\": \"$disp\", \"price\": $price, \"quantity\": $qty, \"tag\": $tag}}"
	for _ in $(seq 100); do
		[ "$(tel "/hgw/table/entry,$l,$s,$i,0")" = "$want" ] && break
		sleep 0.1
	done
	tel /hgw/table | grep -q '"replicas": 2' || { kill "$pid"; fail "not 2 replicas: $(tel /hgw/table)"; }
	while read -r l s i action mode tif disp price qty tag; do
		want="{\"/hgw/table/entry\": {\"action\": \"$action\", \"price_mode\": $mode, \"tif\": \"$tif\", \"display\": \"$disp\", \"price\": $price, \"quantity\": $qty, \"tag\": $tag}}"
		for r in 0 1; do
			got=$(tel "/hgw/table/entry,$l,$s,$i,$r")
			[ "$got" = "$want" ] || { kill "$pid"; fail "replica $r entry $l,$s,$i: got $got want $want"; }
			checked=$((checked + 1))
		done
	done <"$T/final.txt"
	# an index beyond 2^32 is refused, not wrapped to 0
	tel "/hgw/table/entry,4294967296,0,0" | grep -q usage || fail "entry index 2^32 accepted"
	# the kill switch at run time
	expect_eq "kill switch" "$(tel /hgw/risk/kill)" '{"/hgw/risk/kill": {"kill": 0, "contradictions": 0}}'
	tel /hgw/risk/kill,1 | grep -q '"event": 2, "session": "[^"]*", "seq": [1-9]' || fail "kill switch on: $(tel /hgw/risk/kill)"
	expect_eq "kill switch" "$(tel /hgw/risk/kill)" '{"/hgw/risk/kill": {"kill": 1, "contradictions": 0}}'
	tel /hgw/risk/kill,maybe | grep -q usage || fail "bad kill value accepted"
	tel /hgw/events | grep -q '"2": "kill 1 at session' || fail "events: $(tel /hgw/events)"
	kill -TERM "$pid"
	wait "$pid" || fail "exit status $? after SIGTERM: $(cat "$T/err")"
	grep -q "event 1 patch 25 at session .*: taken by 2 of 2 replicas before the same message" "$T/out" ||
		fail "patch not taken by both replicas at one message: $(grep '^event' "$T/out")"
	expect_eq "patch lines in the events log" "$(grep -c '^+ ' "$T/events.log")" 25
	echo "  $checked patched entries (2 replicas) read back through the running process;" \
		"$(grep '^event 1' "$T/out")"
	;;
patch-refuse)
	# What is not a regular file, or too large, is refused in one line,
	# nothing is applied, and telemetry keeps answering (a FIFO with no
	# writer must not block it).
	command -v dpdk-telemetry.py >/dev/null || { echo "SKIP: no dpdk-telemetry.py"; exit 77; }
	conf
	printf '[run]\nstop_at_end_of_session = no\nidle_timeout_ms = 0\n' >>"$T/conf.ini"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out.pcap" -- \
		-c "$T/conf.ini" >"$T/out" 2>"$T/err" &
	pid=$!
	PIDS+=("$pid")
	tel() { echo "$1" | timeout 10 dpdk-telemetry.py -f "$PREFIX" 2>&1 | grep '^{'; }
	for _ in $(seq 150); do
		tel /hgw/table | grep -q entries && break
		sleep 0.2
	done
	tel /hgw/table | grep -q entries ||
		fail "/hgw/table never answered: $(tail -3 "$T/err")"
	mkdir "$T/dir"
	mkfifo "$T/fifo"
	awk 'BEGIN { for (i = 0; i < 60000; i++) print "0 0 0 B 0 0 Y 100 1 1" }' >"$T/big.txt"
	before=$(tel /hgw/table/entry,0,0,0)
	for f in "$T/dir" /dev/zero "$T/fifo" "$T/big.txt" "$T/none.txt"; do
		res=$(tel "/hgw/table/patch,$f")
		echo "$res" | grep -q '"error"' || { kill "$pid"; fail "patch $f accepted: $res"; }
		echo "  refused: $res"
		tel /hgw/table | grep -q '"entries": 4096' || { kill "$pid"; fail "telemetry stopped answering after $f"; }
	done
	expect_eq "entry after refused patches" "$(tel /hgw/table/entry,0,0,0)" "$before"
	tel /hgw/events | grep -q '"events": 0' || fail "an event was issued: $(tel /hgw/events)"
	kill -TERM "$pid"
	wait "$pid" || fail "exit status $? after SIGTERM: $(cat "$T/err")"
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: e2e $SCENARIO"
