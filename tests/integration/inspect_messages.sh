#!/usr/bin/env bash
# hgw-inspect --messages on hand-made captures (itch_capture.py): every
# field of all 22 ITCH 5.0 types as key=value and as JSON, the --type,
# --symbol and --filter selections, a sanitised capture (zeroed MoldUDP64
# header), a LINUX_SLL capture refused, and read errors (a record longer
# than the snapshot length, a file cut mid-record) naming the last good
# frame with exit status 1.
#   inspect_messages.sh INSPECT SRCDIR
INSPECT=$1 SRCDIR=$2
HEDGEWIRE=unused
. "$SRCDIR/tests/integration/common.sh"
CAP="$SRCDIR/tests/integration/itch_capture.py"

python3 "$CAP" gen "$T"

# run NAME EXPECTED-STATUS ARGS...: output in $T/NAME.out, stderr in
# $T/NAME.err
run() {
	local name=$1 want=$2 rc=0; shift 2
	"$INSPECT" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" = "$want" ] ||
		fail "hgw-inspect $*: exit status $rc, want $want: $(cat "$T/$name.err")"
}
# check NAME FORMAT [SELECTION...]
check() {
	local name=$1; shift
	python3 "$CAP" check "$T" "$T/$name.out" "$@" || {
		echo "--- $name output:"; head -40 "$T/$name.out"; exit 1; }
}
# stderr_is NAME REGEX: stderr is exactly one line, matching REGEX
stderr_is() {
	[ "$(wc -l <"$T/$1.err")" = 1 ] && grep -Eq -- "$2" "$T/$1.err" ||
		fail "$1: stderr is not one line matching '$2': $(cat "$T/$1.err")"
}

# Every field of every type, both formats.
run text 0 --messages "$T/all.pcap"
check text text
run json 0 --json "$T/all.pcap"
check json json
# the bad blocks of frame 9 are counted, never printed
grep -q ' 2 of unknown type or bad length, 1 malformed packets (first in frame 9)$' \
	"$T/text.err" || fail "bad blocks not counted: $(cat "$T/text.err")"
run any 0 --messages --any "$T/all.pcap"
check any text --any

# Selections.
run types 0 --type AFE "$T/all.pcap"
check types text --types AFE
run symbol 0 --symbol ABCD "$T/all.pcap"
check symbol text --symbol ABCD
run symbol-d 0 --json --symbol ABCD --type D "$T/all.pcap"
check symbol-d json --symbol ABCD --types D
run filter 0 --any --filter "udp port 26478" --messages "$T/all.pcap"
check filter text --any --port 26478
run filter-vlan 0 --json --filter "vlan 141" "$T/all.pcap"
check filter-vlan json --vlan-only

# Sanitised: decoded, one notice naming the first zeroed frame.
run san 0 --messages "$T/sanitised.pcap"
check san text --sanitised
grep -c 'MoldUDP64 header zeroed' "$T/san.err" | grep -qx 1 ||
	fail "sanitised notice not given exactly once: $(cat "$T/san.err")"
grep -qx 'hgw-inspect: frame 1: MoldUDP64 header zeroed (sanitised capture): messages are shown without sequencing' \
	"$T/san.err" || fail "sanitised notice: $(cat "$T/san.err")"
run san-json 0 --json "$T/sanitised.pcap"
check san-json json --sanitised

# Capture errors.
run sll 2 --messages "$T/sll.pcap"
stderr_is sll "^hgw-inspect: $T/sll.pcap: link type LINUX_SLL .*Ethernet"
[ ! -s "$T/sll.out" ] || fail "sll: printed something"
run big 1 --messages "$T/big.pcap"
grep -qx "hgw-inspect: $T/big.pcap: read error after frame 3: .*70000.*" \
	"$T/big.err" || fail "big: $(cat "$T/big.err")"
check big text --frames 3
run cut 1 --json "$T/cut.pcap"
grep -qx "hgw-inspect: $T/cut.pcap: read error after frame 4: .*truncated.*" \
	"$T/cut.err" || fail "cut: $(cat "$T/cut.err")"
check cut json --frames 4
# the summary too reports what came before the error
run cut-sum 1 "$T/cut.pcap"
expect_eq "frames before the cut" "$(awk '/^frames/ { print $2 }' "$T/cut-sum.out")" 4

# Bad values: one line, exit 2.
for bad in "--type AZ" "--symbol TOOLONGSYM" "--filter port" "--count x"; do
	# shellcheck disable=SC2086
	run bad 2 $bad "$T/all.pcap"
	stderr_is bad "^hgw-inspect: bad value for --"
done
echo "PASS: hgw-inspect --messages shows every field of every type, selects, and reports bad captures"
