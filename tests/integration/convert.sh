#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# hgw-convert against the generator, hgw-inspect and tshark:
#  a. a generated capture with every fault -> pcap2itch -> itch2pcap ->
#     pcap2itch gives the same binary ITCH file; gaps reported as the
#     generator made them; hgw-inspect counts the same messages by type on
#     the converted capture as on the original;
#  b. tshark's MoldUDP64 dissector reads the converted capture (session,
#     VLAN, group, port, --first-seq, --per-packet and --max-bytes packing,
#     end of session, pcap times = first message's ITCH time) with every
#     IPv4 and UDP checksum good and the generator's counts by type
#     (skipped when tshark or its moldudp64 dissector is missing);
#  c. loop --times 3: hgw-inspect sees 3x the messages, no gap, no
#     duplicate, one end of session, loops spaced by --gap-us; on a faulty
#     capture 3x every fault; pcap2itch of the loop is the ITCH file 3 times;
#  d. bad inputs: one line each, exit 2 for bad data and options, 1 for a
#     capture cut mid-frame (after writing what came before).
#   convert.sh CONVERT FEEDGEN INSPECT SRCDIR
CONVERT=$1 FEEDGEN=$2 INSPECT=$3 SRCDIR=$4
HEDGEWIRE=unused
. "$SRCDIR/tests/integration/common.sh"

# 2026-11-30 00:00:00 UTC: the date itch2pcap puts ITCH times on.
EPOCH=1795996800

# inspect FILE: hgw-inspect's report in $T/FILE.report.
inspect() {
	"$INSPECT" "$@" >"$T/$(basename "${@: -1}").report" ||
		fail "hgw-inspect $* exited $?"
}
# rep FILE AWK-PROGRAM: a value from that report.
rep() { awk "$2" "$T/$1.report"; }
by_type() {	# FILE: "X N" per message type
	awk '/^messages by type:/ { on = 1; next } /^drops/ { on = 0 }
	     on { print $1, $(NF - 1) }' "$T/$1.report"
}
session_field() {	# FILE WORD: the number after WORD on the session line
	awk -v w="$2" '/^session / { for (i = 1; i < NF; i++)
		if ($i == w) { gsub(/[()]/, "", $(i + 1)); print $(i + 1); exit } }' \
		"$T/$1.report"
}
msgs() { rep "$1" '$1 == "messages" && $2 ~ /^[0-9]+$/ { print $2 }'; }
truth_of() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

# ------------------------------------------------------------------
echo "a. round trip"
"$FEEDGEN" -q -o "$T/f.pcap" --truth "$T/truth" --seed 21 --instruments 10 \
	--messages 30000 --per-packet 5 --vlan 141 --heartbeats 40 \
	--gap-every 61 --dup-every 7 --truncate-every 11 --corrupt-every 13
"$CONVERT" pcap2itch "$T/f.pcap" "$T/a.itch" >"$T/a.out" 2>"$T/a.err" ||
	fail "pcap2itch exited $?: $(head -3 "$T/a.err")"
cat "$T/a.out"
expect_eq "messages written" \
	"$(grep -o '[0-9]* messages written' "$T/a.out" | awk '{ print $1 }')" \
	"$(truth messages)"
# One line per gap, "messages A-B missing (N)", as the generator made them.
expect_eq "gap lines" "$(grep -c ': gap at frame [0-9]*: messages [0-9]*-[0-9]* missing' "$T/a.err")" \
	"$(truth gaps)"
# "messages A-B missing (N)": N = B - A + 1, and the Ns add up.
expect_eq "gap messages" "$(awk '/gap at frame/ {
	sub(/.*: messages /, "")
	split($0, w, /-| missing \(|\)/)
	if (w[2] - w[1] + 1 != w[3]) bad++
	n += w[3] } END { print bad ? "inconsistent" : n + 0 }' "$T/a.err")" \
	"$(truth gap_messages)"
[ "$(grep -vc 'gap at frame' "$T/a.err")" = 0 ] ||
	fail "unexpected stderr: $(grep -v 'gap at frame' "$T/a.err" | head -3)"
# Nasdaq's format: 2-byte big-endian length, then the message; the feed
# starts with System Event 'O' (start of messages).
expect_eq "first bytes" "$(od -A n -t x1 -N 14 "$T/a.itch" | tr -d ' \n' | cut -c1-6,27-28)" \
	"000c534f"

"$CONVERT" itch2pcap "$T/a.itch" "$T/b.pcap" --per-packet 7 >"$T/b.out" ||
	fail "itch2pcap exited $?"
cat "$T/b.out"
"$CONVERT" -q pcap2itch "$T/b.pcap" "$T/a2.itch" 2>"$T/a2.err" ||
	fail "second pcap2itch exited $?"
[ ! -s "$T/a2.err" ] || fail "second pcap2itch: $(cat "$T/a2.err")"
cmp "$T/a.itch" "$T/a2.itch" || fail "round trip changed the ITCH file"
echo "  pcap2itch(itch2pcap(pcap2itch(capture))) = pcap2itch(capture): $(stat -c %s "$T/a.itch") bytes"
expect_eq "pcap magic" "$(od -A n -t x4 -N 4 "$T/b.pcap" | tr -d ' ')" a1b23c4d

inspect "$T/f.pcap"
inspect "$T/b.pcap"
by_type f.pcap >"$T/types.f"
by_type b.pcap >"$T/types.b"
diff "$T/types.f" "$T/types.b" || fail "hgw-inspect counts by type differ"
expect_eq "converted messages" "$(msgs b.pcap)" "$(truth messages)"
expect_eq "converted gaps" "$(session_field b.pcap gaps)" 0
expect_eq "converted duplicates" "$(session_field b.pcap packets)" 0
expect_eq "converted end of session" "$(rep b.pcap '/end-of-session/ { print $8 }')" 1
expect_eq "converted drops" "$(rep b.pcap '/^drops:/ { print $2 }')" none
echo "  hgw-inspect: $(wc -l <"$T/types.b") message types counted the same on both"

# ------------------------------------------------------------------
echo "b. tshark"
tshark_ok=0
if ! command -v tshark >/dev/null 2>&1; then
	echo "  skipped: tshark not installed (Debian package tshark)"
elif ! tshark -G protocols 2>/dev/null | grep $'\tmoldudp64$' >/dev/null; then
	echo "  skipped: this tshark has no moldudp64 dissector"
else
	tshark_ok=1
fi
if [ $tshark_ok = 1 ]; then
	first=1000 pp=4 maxb=150
	"$CONVERT" -q itch2pcap "$T/a.itch" "$T/t.pcap" --session LAB7 \
		--first-seq $first --per-packet $pp --max-bytes $maxb \
		--vlan 142 --group 233.54.12.120 --port 26500 ||
		fail "itch2pcap exited $?"
	tshark -n -r "$T/t.pcap" -d udp.port==26500,moldudp64 \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-T fields -E occurrence=a -E aggregator=';' \
		-e frame.number -e frame.time_epoch -e vlan.id -e ip.dst \
		-e udp.dstport -e udp.length -e ip.checksum.status \
		-e udp.checksum.status -e _ws.expert.severity -e _ws.malformed \
		-e moldudp64.session -e moldudp64.sequence -e moldudp64.count \
		-e moldudp64.msglen -e moldudp64.msgdata \
		>"$T/t.fields" 2>"$T/t.err" || fail "tshark: $(head -3 "$T/t.err")"
	# Checks every frame, counts messages by type (first byte of each
	# message), prints "bad ..." lines and the counts.
	awk -F'\t' -v first=$first -v pp=$pp -v maxb=$maxb -v epoch=$EPOCH '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function bad(m) { print "bad frame " $1 ": " m; nbad++ }
	function when(ns,   s) {
		s = int(ns / 1e9)
		return sprintf("%d.%09d", epoch + s, ns - s * 1e9)
	}
	{
		if (eos) bad("frame after the end of session")
		if ($3 != 142 || $4 != "233.54.12.120" || $5 != 26500)
			bad("addressing " $3 " " $4 " " $5)
		if ($7 != 1 || $8 != 1) bad("checksum status ip " $7 " udp " $8)
		# severity: 0x600000 warning and above; the end of session
		# gets a comment
		split($9, sv, ";")
		for (i in sv) if (sv[i] + 0 >= 6291456) bad("expert " $9)
		if ($10 != "") bad("malformed")
		if ($11 != "LAB7      ") bad("session \"" $11 "\"")
		if ($12 != next_seq + first) bad("sequence " $12 ", want " next_seq + first)
		if ($13 == 65535) {
			eos = 1
			if ($2 != when(last_ns)) bad("eos time " $2 " want " when(last_ns))
			next
		}
		n = split($14, len, ";")
		split($15, data, ";")
		if (n != $13) bad(n " blocks, count " $13)
		if ($13 < 1 || $13 > pp) bad("count " $13)
		pay = $6 - 8
		if (pay > maxb) bad("payload " pay " > " maxb)
		# packed greedily: the previous packet closed because it was
		# full or this first message would not fit in it
		if (prev_pay && prev_cnt < pp && prev_pay + 2 + len[1] <= maxb)
			bad("previous packet could have taken this message")
		if (pay != 20 + $13 * 2 + (length($15) - $13 + 1) / 2)
			bad("payload " pay " is not the blocks")
		# pcap time = first message ITCH time (6 bytes at 5)
		if ($2 != when(hex(substr(data[1], 11, 12))))
			bad("time " $2 " want " when(hex(substr(data[1], 11, 12))))
		for (i = 1; i <= n; i++) {
			t = substr(data[i], 1, 2)
			if (length(data[i]) != 2 * len[i]) bad("msglen " len[i])
			types[t]++
		}
		last_ns = hex(substr(data[n], 11, 12))
		next_seq += $13; msgs += $13; frames++
		prev_pay = pay; prev_cnt = $13
	}
	END {
		if (!eos) { print "bad: no end of session"; nbad++ }
		for (t in types) printf "type %c %d\n", hex(t), types[t]
		print "messages", msgs + 0
		print "data_frames", frames + 0
		print "nbad", nbad + 0
	}' "$T/t.fields" >"$T/t.seen"
	awk '/^bad/ && n++ < 10' "$T/t.seen"
	expect_eq "tshark problems" "$(truth_of "$T/t.seen" nbad)" 0
	expect_eq "tshark messages" "$(truth_of "$T/t.seen" messages)" "$(truth messages)"
	grep '^type ' "$T/truth" | sort >"$T/types.want"
	grep '^type ' "$T/t.seen" | sort >"$T/types.tshark"
	diff "$T/types.want" "$T/types.tshark" ||
		fail "tshark counts by type differ from the generator"
	# both limits must have closed packets, or the packing check proves little
	full=$(awk -F'\t' -v pp=$pp '$13 == pp' "$T/t.fields" | wc -l)
	[ "$full" -gt 0 ] && [ "$full" -lt "$(truth_of "$T/t.seen" data_frames)" ] ||
		fail "packing not exercised by both limits ($full full packets)"
	echo "  tshark: $(truth_of "$T/t.seen" data_frames) data packets, $(truth messages) messages, sequences $first.., checksums good, counts by type match"
fi

# ------------------------------------------------------------------
echo "c. loop"
"$FEEDGEN" -q -o "$T/c.pcap" --truth "$T/c.truth" --seed 22 --instruments 8 \
	--messages 20000 --per-packet 4 --vlan 141 --heartbeats 25
ctruth() { truth_of "$T/c.truth" "$1"; }
gap_us=500
"$CONVERT" loop "$T/c.pcap" "$T/l3.pcap" --times 3 --gap-us $gap_us >"$T/l.out" ||
	fail "loop exited $?"
cat "$T/l.out"
inspect "$T/c.pcap"
inspect "$T/l3.pcap"
cat "$T/l3.pcap.report"
expect_eq "loop messages" "$(msgs l3.pcap)" \
	"$((3 * $(ctruth messages)))"
expect_eq "loop heartbeats" "$(rep l3.pcap '/heartbeats/ { print $6 }')" "$((3 * $(ctruth heartbeats)))"
expect_eq "loop end of session" "$(rep l3.pcap '/end-of-session/ { print $8 }')" 1
expect_eq "loop gaps" "$(session_field l3.pcap gaps)" 0
expect_eq "loop duplicates" "$(session_field l3.pcap packets)" 0
expect_eq "loop next_seq" "$(session_field l3.pcap next_seq)" "$((3 * $(ctruth last_seq) + 1))"
expect_eq "loop ended" "$(rep l3.pcap '/^session / { print $NF }')" ended
expect_eq "loop drops" "$(rep l3.pcap '/^drops:/ { print $2 }')" none
by_type c.pcap | awk '{ print $1, 3 * $2 }' >"$T/types.c3"
by_type l3.pcap >"$T/types.l3"
diff "$T/types.c3" "$T/types.l3" || fail "loop counts by type are not 3x"
# Loops follow each other --gap-us apart: the whole span is 3 spans + 2 gaps
# (the generator's times are whole microseconds, as hgw-inspect reads them).
span_us() { rep "$1" '/^frames/ { printf "%.0f\n", $6 * 1e6 }'; }
expect_eq "loop span us" "$(span_us l3.pcap)" "$((3 * $(span_us c.pcap) + 2 * gap_us))"
# The ITCH file of the loop is the capture's, 3 times.
"$CONVERT" -q pcap2itch "$T/c.pcap" "$T/c.itch" || fail "pcap2itch exited $?"
"$CONVERT" -q pcap2itch "$T/l3.pcap" "$T/l3.itch" 2>"$T/l3.err" ||
	fail "pcap2itch of the loop exited $?"
[ ! -s "$T/l3.err" ] || fail "pcap2itch of the loop: $(head -3 "$T/l3.err")"
cat "$T/c.itch" "$T/c.itch" "$T/c.itch" | cmp - "$T/l3.itch" ||
	fail "pcap2itch of the loop is not the ITCH file 3 times"
echo "  3 loops: $(msgs l3.pcap) messages, no gap, no duplicate, one end of session; ITCH = 3 x the capture's"

# Every fault of the faulty capture, 3 times over.
"$CONVERT" -q loop "$T/f.pcap" "$T/lf.pcap" --times 3 || fail "loop exited $?"
inspect "$T/lf.pcap"
expect_eq "faulty loop messages" "$(msgs lf.pcap)" "$((3 * $(truth messages)))"
expect_eq "faulty loop gaps" "$(session_field lf.pcap gaps)" "$((3 * $(truth gaps)))"
expect_eq "faulty loop gap messages" \
	"$(grep -o 'gaps [0-9]* ([0-9]* messages)' "$T/lf.pcap.report" | tr -d '(' | awk '{ print $3 }')" \
	"$((3 * $(truth gap_messages)))"
while read -r kind r want; do
	[ "$kind" = drop ] || continue
	expect_eq "faulty loop drop $r" "$(rep lf.pcap "\$1 == \"$r\" { print \$2 }")" "$((3 * want))"
done <"$T/truth"
expect_eq "faulty loop end of session" "$(rep lf.pcap '/end-of-session/ { print $8 }')" 1
if [ $tshark_ok = 1 ]; then
	# Renumbering keeps every UDP checksum right (cut-short copies can
	# only be "unverified"), and tshark sees no sequence go backwards.
	tshark -n -r "$T/l3.pcap" -d udp.port==26477,moldudp64 \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -T fields \
		-e ip.checksum.status -e udp.checksum.status 2>/dev/null |
		sort | uniq -c >"$T/l3.csum"
	expect_eq "loop checksums" "$(awk '{ print $2 $3 }' "$T/l3.csum")" 11
	tshark -n -r "$T/lf.pcap" -d udp.port==26477,moldudp64 \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -T fields \
		-e ip.checksum.status -e udp.checksum.status 2>/dev/null |
		awk '$1 != 1 || $2 == 0' >"$T/lf.csum"
	[ ! -s "$T/lf.csum" ] || fail "bad checksums in the faulty loop: $(head -3 "$T/lf.csum")"
	echo "  tshark: every IPv4 and UDP checksum of the loops good"
fi

# ------------------------------------------------------------------
echo "d. bad inputs"
# one_line WANT-STATUS WANT-TEXT cmd...: fails unless cmd exits WANT-STATUS
# with exactly one stderr line containing WANT-TEXT and nothing on stdout.
one_line() {
	local want=$1 text=$2 rc=0
	shift 2
	"$@" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, want $want: $(cat "$T/bad.err")"
	[ "$(wc -l <"$T/bad.err")" = 1 ] || fail "$*: stderr is not one line: $(cat "$T/bad.err")"
	grep -F -- "$text" "$T/bad.err" >/dev/null ||
		fail "$*: stderr '$(cat "$T/bad.err")' lacks '$text'"
	[ ! -s "$T/bad.out" ] || fail "$*: wrote to stdout: $(cat "$T/bad.out")"
	echo "  exit $rc: $(cat "$T/bad.err")"
}
# msg LEN TYPE [BODY-LEN]: a length prefix LEN, the type byte, then
# BODY-LEN (default LEN - 1) zero bytes.
msg() {
	printf "$(printf '\\%03o\\%03o' $(($1 >> 8)) $(($1 & 255)))"
	printf '%s' "$2"
	# (never head -c -N on /dev/zero: that never ends)
	head -c "${3:-$(($1 > 0 ? $1 - 1 : 0))}" /dev/zero
}
{ msg 12 S; msg 36 A; } >"$T/good.itch"
"$CONVERT" -q itch2pcap "$T/good.itch" "$T/good.pcap" || fail "2-message file refused"
head -c $(($(stat -c %s "$T/good.itch") - 5)) "$T/good.itch" >"$T/cut.itch"
one_line 2 "cut.itch: message 2 at byte offset 14: truncated: file ends 31 bytes into its 36" \
	"$CONVERT" itch2pcap "$T/cut.itch" "$T/cut.pcap"
[ ! -e "$T/cut.pcap" ] || fail "a partial capture was left behind"
{ msg 12 S; printf '\000'; } >"$T/cut2.itch"
one_line 2 "message 2 at byte offset 14: truncated: file ends inside its length" \
	"$CONVERT" itch2pcap "$T/cut2.itch" "$T/x.pcap"
{ msg 12 S; msg 35 A; } >"$T/badlen.itch"
one_line 2 "message 2 at byte offset 14: bad length 35 for type 'A' (Add Order, 36 bytes)" \
	"$CONVERT" itch2pcap "$T/badlen.itch" "$T/x.pcap"
{ msg 12 S; msg 12 Z; } >"$T/unknown.itch"
one_line 2 "message 2 at byte offset 14: unknown type 'Z' (0x5a)" \
	"$CONVERT" itch2pcap "$T/unknown.itch" "$T/x.pcap"
{ msg 12 S; printf '\000\000'; } >"$T/zero.itch"
one_line 2 "message 2 at byte offset 14: bad length 0" \
	"$CONVERT" itch2pcap "$T/zero.itch" "$T/x.pcap"
# A real file cut short in its last message (an End of Messages 'S', 12
# bytes): it is named by number and offset.
size=$(stat -c %s "$T/a.itch")
head -c $((size - 3)) "$T/a.itch" >"$T/acut.itch"
one_line 2 "message $(truth messages) at byte offset $((size - 14)): truncated" \
	"$CONVERT" itch2pcap "$T/acut.itch" "$T/x.pcap"
# LINUX_SLL (link type 113): a pcap header only.
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\161\000\000\000' \
	>"$T/sll.pcap"
one_line 2 "sll.pcap: link type LINUX_SLL, expected Ethernet" \
	"$CONVERT" pcap2itch "$T/sll.pcap" "$T/sll.itch"
[ ! -e "$T/sll.itch" ] || fail "pcap2itch left an output for a refused capture"
one_line 2 "sll.pcap: link type LINUX_SLL, expected Ethernet" \
	"$CONVERT" loop "$T/sll.pcap" "$T/sll2.pcap" --times 2
one_line 2 "bad value for --times: '0'" \
	"$CONVERT" loop "$T/c.pcap" "$T/x.pcap" --times 0
one_line 2 "loop needs --times N" "$CONVERT" loop "$T/c.pcap" "$T/x.pcap"
one_line 2 "bad value for --per-packet: '0'" \
	"$CONVERT" itch2pcap "$T/good.itch" "$T/x.pcap" --per-packet 0
one_line 2 "bad value for --max-bytes: '71'" \
	"$CONVERT" itch2pcap "$T/good.itch" "$T/x.pcap" --max-bytes 71
one_line 2 "bad value for --session: 'ELEVENCHARS'" \
	"$CONVERT" itch2pcap "$T/good.itch" "$T/x.pcap" --session ELEVENCHARS
one_line 2 "unknown command 'pcap2pcap'" "$CONVERT" pcap2pcap "$T/c.pcap" "$T/x"
# A capture cut mid-frame: exit 1 naming the frame, after writing every
# message before it (a prefix of the whole file's).
head -c $(($(stat -c %s "$T/b.pcap") / 2)) "$T/b.pcap" >"$T/half.pcap"
"$INSPECT" "$T/half.pcap" >"$T/half.report" 2>/dev/null || true
nf=$(awk '/^frames/ { print $2 }' "$T/half.report")
nm=$(awk '$1 == "messages" { print $2 }' "$T/half.report")
one_line 1 "half.pcap: frame $((nf + 1)): " \
	"$CONVERT" -q pcap2itch "$T/half.pcap" "$T/half.itch"
grep -F "(wrote the $nm messages before it)" "$T/bad.err" >/dev/null ||
	fail "read error line does not say the $nm messages written"
[ -s "$T/half.itch" ] && cmp -n "$(stat -c %s "$T/half.itch")" "$T/half.itch" "$T/a.itch" ||
	fail "what was written before the read error is not a prefix of the whole"

echo "PASS: hgw-convert round trip, tshark, loop and bad inputs"
