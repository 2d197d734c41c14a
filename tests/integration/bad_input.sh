#!/usr/bin/env bash
# Bad input never crashes and never passes silently:
#   bad configuration -> one line naming the key or value, non-zero exit;
#   corrupted or truncated capture -> counted drops, clean exit.
#   bad_input.sh HEDGEWIRE FEEDGEN SRCDIR SCENARIO   (config | capture)
HEDGEWIRE=$1 FEEDGEN=$2 SRCDIR=$3 SCENARIO=$4
. "$SRCDIR/tests/integration/common.sh"

# expect_start_error WANT-REGEX ARGS...: start-up fails with one line.
expect_start_error() {
	local want=$1; shift
	if run_hw -l0-1 "net_null0" "$@"; then
		fail "accepted $*"
	fi
	local lines
	lines=$(grep -c '^hedgewire: ' "$T/err" || true)
	expect_eq "error lines for $*" "$lines" 1
	grep -Eq "$want" "$T/err" || fail "error for $* does not name it: $(cat "$T/err")"
	echo "  rejected $*: $(grep '^hedgewire: ' "$T/err")"
}

# ref_stats CAPTURE LABEL: every feed counter of hedgewire's summary ($T/out)
# equals the independent reference decoder's (tests/ref/hgw_ref.py
# --stats) on the same file, both ways: each counter the reference
# gives, and each type and drop line hedgewire prints.
ref_stats() {
	local cap=$1 label=$2 kind key v got n=0
	python3 "$SRCDIR/tests/ref/hgw_ref.py" --feed "$cap" --stats "$T/ref.stats" \
		>/dev/null 2>"$T/ref.err" || fail "$label: reference decoder failed: $(cat "$T/ref.err")"
	while read -r kind key v; do
		case $kind in
		frames|messages|heartbeats|end_of_session|gaps|gap_messages)
			v=$key; key=$kind; got=$(value "$kind");;
		drop) got=$(awk -v r="$key" '$1 == "drop" && $2 == r { print $3 }' "$T/out");;
		type) got=$(awk -v t="$key" '$1 == "type" && $2 == t { print $NF }' "$T/out");;
		session)	# "session NAME next N ended E"
			got=$(awk -v s="$key" '$1 == "session" && $2 == s {
				print "next", $4, "ended", $NF }' "$T/out")
			v=$(awk -v s="$key" '$1 == "session" && $2 == s {
				print "next", $4, "ended", $6 }' "$T/ref.stats");;
		*) fail "$label: reference line '$kind $key $v'";;
		esac
		expect_eq "$label: $kind $key (hedgewire vs the reference decoder)" "${got:-0}" "$v"
		n=$((n + 1))
	done <"$T/ref.stats"
	# and nothing hedgewire counted that the reference did not
	while read -r kind key v; do
		grep -q "^$kind $key " "$T/ref.stats" ||
			fail "$label: hedgewire counts $kind $key $v, the reference nothing"
	done < <(awk '($1 == "drop" || $1 == "type") && $NF > 0 { print $1, $2, $NF }' "$T/out")
	echo "  $label: $n counters equal the reference decoder's"
}

case $SCENARIO in
config)
	printf '[feed]\nport = 26477\ncolour = blue\n' >"$T/unknown-key.ini"
	printf '[fed]\nport = 1\n' >"$T/unknown-section.ini"
	printf '[book]\norders = lots\n' >"$T/bad-value.ini"
	printf '[feed]\ngroup = 233.54.12\n' >"$T/bad-ip.ini"
	printf '[run]\nstop_at_end_of_session = maybe\n' >"$T/bad-bool.ini"
	expect_start_error '\[feed\] colour' -c "$T/unknown-key.ini"
	expect_start_error '\[fed\]' -c "$T/unknown-section.ini"
	expect_start_error "\[book\] orders: 'lots'" -c "$T/bad-value.ini"
	expect_start_error "\[feed\] group: '233.54.12'" -c "$T/bad-ip.ini"
	expect_start_error "stop_at_end_of_session: 'maybe'" -c "$T/bad-bool.ini"
	expect_start_error "\[feed\] port: '70000'" --set feed.port=70000
	expect_start_error "\[rx\] burst: '0'" --set rx.burst=0
	expect_start_error "\[run\] nothing" --set run.nothing=1
	expect_start_error "cannot read" -c "$T/does-not-exist.ini"
	expect_start_error "workers = 4 needs" --set run.workers=4
	expect_start_error "\\[rx\\] mode: 'mirror'" --set rx.mode=mirror
	expect_start_error "\\[run\\] dedup: 'first'" --set run.dedup=first
	expect_start_error "\\[table\\] replicas: '17'" --set table.replicas=17
	expect_start_error "\\[order\\] journal_orders: '5'" --set order.journal_orders=5
	expect_start_error "\\[order\\] journal_error: 'ignore'" --set order.journal_error=ignore
	expect_start_error "\\[rx\\] ring_size: 'big'" --set rx.ring_size=big
	expect_start_error "flow-mirror: port 0 \\(net_null\\) cannot mirror" \
		--set rx.mode=flow-mirror
	expect_start_error "timestamp = nic: port 0 \\(net_null\\) offers no RX timestamps" \
		--set rx.timestamp=nic
	expect_start_error "timestamp = nic with \\[replay\\] pace" \
		--set rx.timestamp=nic --set replay.pace=rate
	expect_start_error "\\[rx\\] timestamp: 'hw'" --set rx.timestamp=hw
	expect_start_error "\\[replay\\] pace: 'fast'" --set replay.pace=fast
	expect_start_error "\\[replay\\] speed: '-1'" --set replay.speed=-1
	expect_start_error "\\[replay\\] speed: '2x'" --set replay.speed=2x
	expect_start_error "\\[replay\\] burst: '0'" --set replay.burst=0
	expect_start_error "\\[buffers\\] invalidate: 'flush'" --set buffers.invalidate=flush
	expect_start_error "\\[buffers\\] poison: '100'" --set buffers.poison=100
	expect_start_error "\\[buffers\\] prefetch_depth: '0'" --set buffers.prefetch_depth=0
	expect_start_error "\\[run\\] latency_precision_bits: '11'" \
		--set run.latency_precision_bits=11
	expect_start_error "\\[run\\] stage_sample: 'often'" --set run.stage_sample=often
	expect_start_error "inject-stall: bad value '0,0,5'" --inject-stall 0,0,5
	expect_start_error "inject-stall: bad value '0,10'" --inject-stall 0,10
	expect_start_error "inject-stop: no worker 3" --inject-stop 3,10
	expect_start_error "with \\[rx\\] mode = fanout needs 2 lcores" \
		--set rx.mode=fanout
	# the keys of control events, feed integrity, A/B lines and recovery
	expect_start_error "\\[run\\] digest_every: 3 \\(a power of two" --set run.digest_every=3
	expect_start_error "\\[feed\\] join: 'maybe'" --set feed.join=maybe
	expect_start_error "\\[feed\\] lines: '3'" --set feed.lines=3
	expect_start_error "\\[feed\\] hold_frames: '2000'" --set feed.hold_frames=2000
	expect_start_error "\\[feed\\] group_b: '233.1'" --set feed.group_b=233.1
	expect_start_error "lines = 2 needs \\[rx\\] mode = queues" \
		--set feed.lines=2 --set rx.mode=flow-mirror
	expect_start_error "\\[recovery\\] server: '10.0.0.1'" --set recovery.server=10.0.0.1
	expect_start_error "\\[recovery\\] server: '10.0.0.1:0'" --set recovery.server=10.0.0.1:0
	expect_start_error "\\[recovery\\] server needs trading" --set recovery.server=10.0.0.1:26400
	expect_start_error "inject-corrupt: bad value '1'" --inject-corrupt 1
	# numbers are decimal: a hex or signed limit is refused, not read
	expect_start_error "\\[risk\\] max_quantity: '0x10'" --set risk.max_quantity=0x10
	expect_start_error "\\[risk\\] max_open_orders: .0." --set risk.max_open_orders=0
	expect_start_error "\\[risk\\] max_open_orders: .65537." --set risk.max_open_orders=65537
	# the configuration file is checked line by line, with file:line
	mkdir "$T/dir.ini"
	printf '[feed]\nport = 1\nport = 2\n' >"$T/dup.ini"
	printf '[feed]\nport 1\n' >"$T/noeq.ini"
	python3 -c 'print("[feed]"); print("port = " + "1" * 2000)' >"$T/long.ini"
	expect_start_error "dir.ini: not a regular file" -c "$T/dir.ini"
	expect_start_error "/dev/zero: not a regular file" -c /dev/zero
	expect_start_error "dup.ini:3: \\[feed\\] port given twice \\(first at line 2\\)" -c "$T/dup.ini"
	expect_start_error "noeq.ini:2: 'port 1' is not KEY = VALUE" -c "$T/noeq.ini"
	expect_start_error "long.ini:2: line longer than" -c "$T/long.ini"
	# app options without the "--" that ends the EAL's: said so
	# shellcheck disable=SC2086
	if "$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error --vdev net_null0 -c "$SRCDIR/conf/demo.ini" \
		>"$T/out" 2>"$T/err"; then
		fail "app options without -- accepted"
	fi
	expect_eq "no --: error lines" "$(grep -c '^hedgewire: ' "$T/err")" 1
	grep -q "it goes after '--'" "$T/err" || fail "no --: $(cat "$T/err")"
	echo "  rejected app options without --: $(grep '^hedgewire: ' "$T/err")"
	# a port that does not exist is refused before anything asks about it
	expect_start_error "\\[rx\\] port = 5: no such DPDK port" --set rx.port=5
	expect_start_error "\\[order\\] port = 5: no such DPDK port" \
		--set table.file=/nonexistent --set order.port=5
	if run_hw -l0-1 "net_pcap0,rx_pcap=$T/none.pcap" --set run.idle_timeout_ms=100; then
		fail "a capture that does not exist was accepted"
	fi
	grep -q "Segmentation\|core dumped" "$T/err" && fail "crashed on a missing capture"
	expect_eq "missing capture: error lines" "$(grep -c '^hedgewire: ' "$T/err")" 1
	echo "  rejected a missing capture: $(grep '^hedgewire: ' "$T/err")"
	# [venue]: tx-lcore owns a session, or claim mode on hedgewire's TCP;
	# the keys it needs
	v="--set table.file=/nonexistent --set venue.host=127.0.0.1 --set venue.username=U --set venue.state_file=$T/st"
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] with \\[run\\] dedup = claim needs \\[venue\\] stack = dpdk" $v
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] with \\[run\\] dedup = downstream needs \\[order\\] port apart" $v --set run.dedup=downstream
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] with \\[run\\] dedup = none" $v --set run.dedup=none
	v+=" --set run.dedup=tx-lcore"
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] host: '10.0.0'" $v --set venue.host=10.0.0
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] state_file is required" $v --set venue.state_file=
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] username is required" $v --set venue.username=
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] username: too long" $v --set venue.username=TOOLONG
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] dead_ms: 1000" $v --set venue.dead_ms=1000
	# shellcheck disable=SC2086
	expect_start_error "\\[venue\\] max_orders_per_sec_per_symbol: 20" $v \
		--set venue.max_orders_per_sec=10 --set venue.max_orders_per_sec_per_symbol=20
	expect_start_error "\\[venue\\] host needs trading" --set venue.host=127.0.0.1
	# and the bundled profiles are valid
	for f in "$SRCDIR"/conf/*.ini; do
		run_hw -l0-1 "net_null0" -c "$f" --print-config ||
			fail "bundled $f rejected: $(cat "$T/err")"
	done
	;;
capture)
	"$FEEDGEN" -q -o "$T/feed.pcap" --truth "$T/truth" --seed 21 \
		--instruments 5 --messages 20000 --per-packet 4
	# Cut the capture in the middle of a record: no end-of-session, so
	# hedgewire stops on the idle timeout with what it could read, says
	# which capture broke after which frame, and exits 8 + 16.
	size=$(stat -c %s "$T/feed.pcap")
	head -c $((size / 2 + 7)) "$T/feed.pcap" >"$T/cut.pcap"
	rc=0
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/cut.pcap" --set run.idle_timeout_ms=2000 || rc=$?
	expect_eq "truncated capture: exit status" "$rc" 24
	grep -q "stopped on idle feed" "$T/out" || fail "did not stop on idle"
	msgs=$(value messages)
	frames=$(value frames)
	grep -q "^capture $T/cut.pcap: READ ERROR after frame $frames: " "$T/out" ||
		fail "truncated capture: $(grep -i capture "$T/out") (frames $frames)"
	# what it read, it decoded as the reference decodes the frames
	# before the cut (the reference stops at the broken record too)
	ref_stats "$T/cut.pcap" "truncated capture"
	grep -q "a capture has a read error" "$T/err" || fail "stderr: $(cat "$T/err")"
	echo "  truncated capture: $msgs of $(truth messages) messages; $(grep '^capture' "$T/out")"
	# A record longer than the snapshot length (caplen 70000) after
	# frame 5: libpcap would cut it and go on; it is a read error.
	python3 - "$T/feed.pcap" "$T/long.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = 24
for _ in range(5):
    off += 16 + struct.unpack('<I', d[off + 8:off + 12])[0]
ts, frac, incl, orig = struct.unpack('<IIII', d[off:off + 16])
open(sys.argv[2], 'wb').write(d[:off] + struct.pack('<IIII', ts, frac, 70000, 70000) + d[off + 16:])
PY
	rc=0
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/long.pcap" --set run.idle_timeout_ms=2000 || rc=$?
	expect_eq "caplen 70000: exit status" "$rc" 24
	grep -q "^capture $T/long.pcap: READ ERROR after frame 5: a record longer than the snapshot length" "$T/out" ||
		fail "caplen 70000: $(grep -i capture "$T/out")"
	echo "  $(grep '^capture' "$T/out")"
	# Not Ethernet: refused at start-up in one line
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[20:24] = (113).to_bytes(4, "little"); open(sys.argv[2], "wb").write(d)' \
		"$T/feed.pcap" "$T/sll.pcap"
	if run_hw -l0-1 "net_pcap0,rx_pcap=$T/sll.pcap" --set run.idle_timeout_ms=2000; then
		fail "a LINUX_SLL capture was replayed"
	fi
	expect_eq "LINUX_SLL: error lines" "$(grep -c '^hedgewire: ' "$T/err")" 1
	grep -q "link type LINUX_SLL (113) is not Ethernet" "$T/err" || fail "LINUX_SLL: $(cat "$T/err")"
	echo "  refused: $(grep '^hedgewire: ' "$T/err")"
	# Overwrite a byte every 397 of the frames' bytes (not the record
	# headers: a damaged record header is a read error, above) of a copy:
	# every damaged frame is counted under the drop reason, and every
	# surviving message decoded, exactly as the reference decoder does;
	# hedgewire never crashes.
	python3 - "$T/feed.pcap" "$T/noise.pcap" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, o = 24, 100
while off + 16 <= len(d):
    incl = struct.unpack_from('<I', d, off + 8)[0]
    start, end = off + 16, off + 16 + incl
    while o < end:
        if o >= start:
            d[o] = 0x5a
        o += 397
    off = end
open(sys.argv[2], 'wb').write(d)
PY
	rc=0
	run_hw -l0-1 "net_pcap0,rx_pcap=$T/noise.pcap" --set run.idle_timeout_ms=2000 || rc=$?
	expect_eq "corrupted capture: exit status" "$rc" 0
	grep -q "^capture " "$T/out" && fail "corrupted capture: $(grep '^capture' "$T/out")"
	ref_stats "$T/noise.pcap" "corrupted capture"
	drops=$(awk '$1 == "drop" { s += $3 } END { print s + 0 }' "$T/out")
	[ "$drops" -gt 0 ] || fail "corrupted capture: no frame was refused: the damage missed"
	echo "  corrupted capture: $(value frames) frames, $drops drops, $(value gaps) gaps, clean exit"
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: bad input $SCENARIO"
