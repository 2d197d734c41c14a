#!/usr/bin/env bash
# End-to-end through DPDK: a generated feed replayed by the net_pcap vdev
# into hedgewire's feed path; counts, gaps, drops and every instrument's
# best bid/ask must equal the generator's ground truth.
#   e2e_pcap.sh HEDGEWIRE FEEDGEN SRCDIR SCENARIO
# SCENARIO: clean | faults | gaps | workers2 | fanout2 | fanout-drops |
#           integrity | ab-lines (this one needs HGW_INSPECT: hgw-inspect)
# Captures end with MoldUDP64 end-of-session, which is what stops these
# runs: the idle timeout is off, so a starved VM cannot stop one early.
HEDGEWIRE=$1 FEEDGEN=$2 SRCDIR=$3 SCENARIO=$4
. "$SRCDIR/tests/integration/common.sh"

gen() { "$FEEDGEN" -q -o "$T/feed.pcap" --truth "$T/truth" "$@"; }

# ref_bbo CAPTURE LABEL: hedgewire's --dump-book ($T/book) equals the best
# bid/ask of every instrument by the independent reference decoder
# (tests/ref/hgw_ref.py --bbo) on the same capture.
ref_bbo() {
	python3 "$SRCDIR/tests/ref/hgw_ref.py" --feed "$1" --bbo "$T/ref.bbo" \
		>/dev/null 2>"$T/ref.err" || fail "$2: reference decoder failed: $(cat "$T/ref.err")"
	if ! diff -u "$T/ref.bbo" "$T/book" >"$T/bbo.diff"; then
		head -20 "$T/bbo.diff"
		fail "$2: best bid/ask differs from the reference decoder's"
	fi
	echo "      $2: best bid/ask of $(wc -l <"$T/ref.bbo") instruments equal the reference decoder's"
}

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
	# the book the gaps left (no ground truth: the generator's is the
	# ungapped one) is the independent reference decoder's, instrument
	# by instrument
	ref_bbo "$T/feed.pcap" gapped
	[ "$(wc -l <"$T/book")" = "$(grep -c '^bbo ' "$T/truth")" ] ||
		fail "gapped: $(wc -l <"$T/book") instruments in the book"
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
		--set run.idle_timeout_ms=2000 || rc=$?
	line=$(grep "^fanout lcore" "$T/out")
	total=$(echo "$line" | sed 's/.*: \([0-9]*\) frames.*/\1/')
	nombuf=$(sed -n 's/^port 0: .* rx_nombuf \([0-9]*\).*/\1/p' "$T/out")
	expect_eq "fanout frames + port rx_nombuf" "$((total + nombuf))" "$(truth frames)"
	# the RX lcore holds at most the two rings and a burst of the pool's
	# mbufs: the port never lacks one, so received frame i is the
	# capture's frame i + 1 (what the drop runs below rely on)
	expect_eq "port rx_nombuf" "$nombuf" 0
	# Each worker: its frames + drops are all frames; and its decoder saw
	# exactly what the reference decoder sees on the capture without the
	# frames its ring refused (hedgewire's summary names them): frames,
	# messages, gaps and gap messages
	for w in 0 1; do
		# wvalue KEY: worker w's frames, messages, gaps or gap_messages
		wvalue() { sed -n "s/^fanout worker $w: \([0-9]*\) frames, \([0-9]*\) messages, \([0-9]*\) gaps (\([0-9]*\) messages)$/frames \1 messages \2 gaps \3 gap_messages \4/p" "$T/out" |
			awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }'; }
		d=$(echo "$line" | sed "s/.*worker $w drops \([0-9]*\).*/\1/")
		expect_eq "worker $w frames + drops" "$(( $(wvalue frames) + d ))" "$total"
		runs=$(sed -n "s/^fanout worker $w dropped frames //p" "$T/out")
		[ "$d" = 0 ] || [ -n "$runs" ] || fail "worker $w dropped $d frames: no runs"
		case $runs in *more*) fail "worker $w: drop runs not all recorded: $runs";; esac
		python3 - "$T/feed.pcap" "$T/seen$w.pcap" $runs <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
gone = set()
for r in sys.argv[3:]:
    a, b = map(int, r.split('-'))
    gone.update(range(a, b + 1))
out, off, i = [d[:24]], 24, 0
while off + 16 <= len(d):
    n = struct.unpack_from('<I', d, off + 8)[0]
    if i not in gone:
        out.append(d[off:off + 16 + n])
    off += 16 + n
    i += 1
open(sys.argv[2], 'wb').write(b''.join(out))
PY
		python3 "$SRCDIR/tests/ref/hgw_ref.py" --feed "$T/seen$w.pcap" \
			--stats "$T/ref$w.stats" >/dev/null || fail "reference decoder failed"
		n=0
		while read -r kind key v; do
			case $kind in
			frames|messages|gaps|gap_messages)
				v=$key; key=$kind; got=$(wvalue "$kind");;
			*) continue;;
			esac
			expect_eq "worker $w: $key (hedgewire vs the reference on what it got)" "${got:-0}" "$v"
			n=$((n + 1))
		done <"$T/ref$w.stats"
		echo "  worker $w: $d frames dropped in $(echo "$runs" | wc -w) runs; $n counters ($(wvalue gaps) gaps) equal the reference decoder's on the rest"
	done
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
		run_hw -l0-1 "net_pcap0,rx_pcap=$cap" --set run.idle_timeout_ms=2000 \
			--dump-book "$T/book" "$@" ||
			fail "hedgewire exited $?: $(cat "$T/err")"
	}
	drop_count() { awk -v r="$1" '$1 == "drop" && $2 == r { print $3 }' "$T/out"; }
	# the independent reference decoder (tests/ref) counts the same
	ref_stats() {
		python3 "$SRCDIR/tests/ref/hgw_ref.py" --feed "$1" \
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
		ref_bbo "$1" "$(basename "$1")"
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
	feed_run "$T/d.pcap" --set run.idle_timeout_ms=2000
	expect_eq "(d) mold_seq_zero" "$(drop_count mold_seq_zero)" "$(truth frames)"
	expect_eq "(d) mold_duplicate" "$(drop_count mold_duplicate)" ""
	echo "  (d) sanitised capture: $(drop_count mold_seq_zero) packets refused as mold_seq_zero"
	ref_stats "$T/d.pcap"
	;;
ab-lines)
	# Two lines of one feed (--line-b): the same packets on two groups,
	# each line losing packets on its own, on top of the exchange's gaps
	# and line A's own faults. Each line decoded alone shows its losses
	# as the truth says; both lines on one wire show only what neither
	# line delivered. Losses are high so that runs of packets lost on
	# both lines are common (one gap, however long), and heartbeats come
	# right after each packet the exchange gapped (a heartbeat reveals a
	# gap, so a run it splits is two gaps).
	INSPECT=${HGW_INSPECT:?set HGW_INSPECT to hgw-inspect}
	GB=233.49.196.111
	gen --seed 31 --instruments 12 --messages 60000 --per-packet 4 \
		--heartbeats 23 --gap-every 46 --dup-every 29 --corrupt-every 37 \
		--line-b "$T/b.pcap" --group-b $GB --loss-a 20 --loss-b 15 --loss-seed 5
	for k in lost_a lost_b lost_both_packets ab_gaps; do
		[ "$(truth $k)" -gt 0 ] || fail "no $k: the run proves little"
	done
	last=$(truth last_seq)
	# report FILE [hgw-inspect options]: "packets messages gaps
	# gap_messages heartbeats" in $T/nums from hgw-inspect's report (the
	# session line reads "... messages M  gaps G (N messages) ...")
	report() {
		local f=$1; shift
		"$INSPECT" "$@" "$f" >"$T/rep" || fail "hgw-inspect $f exited $?"
		awk '/^moldudp64 data packets/ { p = $4; h = $6 }
			/^session / { for (i = 1; i < NF; i++) {
				if ($i == "messages" && m == "") m = $(i + 1)
				if ($i == "gaps") { g = $(i + 1); gm = substr($(i + 2), 2) } } }
			END { print p, m, g, gm, h }' "$T/rep" >"$T/nums"
	}
	# line A alone: its messages and gaps are the truth's (the exchange's
	# gaps and A's losses)
	report "$T/feed.pcap"
	read -r pa ma ga gma ha <"$T/nums"
	expect_eq "line A messages" "$ma" "$(truth messages)"
	expect_eq "line A gaps" "$ga" "$(truth gaps)"
	expect_eq "line A gap_messages" "$gma" "$(truth gap_messages)"
	expect_eq "line A messages + gap_messages" $((ma + gma)) "$last"
	expect_eq "line A heartbeats" "$ha" "$(truth heartbeats)"
	# line B alone, on its own group: no faults but its losses
	report "$T/b.pcap" --group $GB
	read -r pb mb gb gmb hb <"$T/nums"
	grep -q '^drops: none' "$T/rep" || fail "line B has drops: $(sed -n '/^drops/,$p' "$T/rep")"
	expect_eq "line B messages" "$mb" "$(truth b_messages)"
	expect_eq "line B gaps" "$gb" "$(truth b_gaps)"
	expect_eq "line B gap_messages" "$gmb" "$(truth b_gap_messages)"
	expect_eq "line B messages + gap_messages" $((mb + gmb)) "$last"
	expect_eq "line B heartbeats" "$hb" "$(truth heartbeats)"
	report "$T/b.pcap"
	read -r p _ <"$T/nums"
	expect_eq "line B packets on line A's group" "$p" 0
	# every packet the exchange sent is on a line or lost there
	expect_eq "line A packets + lost_a vs line B packets + lost_b" \
		$((pa + $(truth lost_a))) $((pb + $(truth lost_b)))
	# the lines lose independently: packets lost on both near
	# sent * (lost_a / sent) * (lost_b / sent), within 4 standard
	# deviations (lines drawing from one draw would lose ~lost_b on both)
	awk -v n=$((pa + $(truth lost_a))) -v a="$(truth lost_a)" \
		-v b="$(truth lost_b)" -v both="$(truth lost_both_packets)" '
		BEGIN { e = a * b / n; d = both - e; if (d < 0) d = -d
			exit !(d <= 4 * sqrt(e) + 3) }' ||
		fail "lost on both lines: $(truth lost_both_packets), not near" \
			"independent losses' $(truth lost_a) x $(truth lost_b) / $((pa + $(truth lost_a)))"
	# Both lines on one wire, merged by pcap time. A packet's two copies
	# carry the same time, so nothing of a later packet comes between
	# them, and the decoder (a packet it has is a duplicate; a jump ahead
	# is a gap) declares a gap only where both lines miss packets.
	# Packets less than a microsecond apart share a time, though: a plain
	# time merge puts A's whole microsecond before B's, and B's copy of a
	# packet A lost then comes after A's next packet, too late. So ties go
	# by MoldUDP64 sequence number, A's copy first: the exchange's order.
	# The step also checks that each frame of B is its A copy's bytes but
	# the group's (MAC, IPv4 destination) and the checksums, at its time.
	python3 - "$T/feed.pcap" "$T/b.pcap" "$T/ab.pcap" >"$T/merge" 2>&1 <<'EOF' || fail "merge: $(cat "$T/merge")"
import struct, sys

def read(path):
    d = open(path, 'rb').read()
    e = {b'\xd4\xc3\xb2\xa1': '<', b'\xa1\xb2\xc3\xd4': '>'}[d[:4]]
    recs, off = [], 24
    while off < len(d):
        sec, usec, cap, wire = struct.unpack(e + 'IIII', d[off:off + 16])
        recs.append((sec, usec, wire, d[off + 16:off + 16 + cap]))
        off += 16 + cap
    return d[:24], e, recs

def mold(f):  # (IPv4 offset, UDP offset, (seq, count))
    ip = 18 if f[12:14] == b'\x81\x00' else 14
    udp = ip + (f[ip] & 15) * 4
    return ip, udp, struct.unpack('>QH', f[udp + 18:udp + 28])

def masked(f):  # without the group's bytes and the checksums
    ip, udp, _ = mold(f)
    b = bytearray(f)
    for i in [3, 4, 5, ip + 10, ip + 11, ip + 16, ip + 17, ip + 18, ip + 19,
              udp + 6, udp + 7]:
        b[i] = 0
    return bytes(b)

hdr, e, a = read(sys.argv[1])
_, _, b = read(sys.argv[2])
first = {}
for r in a:
    first.setdefault((mold(r[3])[2], len(r[3])), r)
same = alone = 0
for r in b:
    c = first.get((mold(r[3])[2], len(r[3])))
    if c is None:
        alone += 1
    elif c[:3] == r[:3] and masked(c[3]) == masked(r[3]) and c[3] != r[3]:
        same += 1
    else:
        sys.exit('line B frame %s differs from line A\'s' % (mold(r[3])[2],))
with open(sys.argv[3], 'wb') as w:
    w.write(hdr)
    for sec, usec, wire, f in sorted(a + b, key=lambda r: (r[0], r[1], mold(r[3])[2][0])):
        w.write(struct.pack(e + 'IIII', sec, usec, len(f), wire) + f)
print(same, alone)
EOF
	read -r same alone <"$T/merge"
	# B's frames without an A copy: the data packets A alone lost
	expect_eq "line B frames A lost" "$alone" \
		$(($(truth lost_a) - $(truth lost_both_packets)))
	report "$T/ab.pcap" --any
	read -r pab mab gab gmab _ <"$T/nums"
	expect_eq "A/B messages" "$mab" "$(truth ab_messages)"
	expect_eq "A/B gaps" "$gab" "$(truth ab_gaps)"
	expect_eq "A/B gap_messages" "$gmab" "$(truth ab_gap_messages)"
	expect_eq "A/B messages + gap_messages" $((mab + gmab)) "$last"
	expect_eq "A/B packets + lost_both_packets vs line A packets + lost_a" \
		$((pab + $(truth lost_both_packets))) $((pa + $(truth lost_a)))
	echo "  line A: $ma messages, $ga gaps ($(truth lost_a) packets lost); line B: $mb messages, $gb gaps ($(truth lost_b) lost)"
	echo "  A/B on one wire: $mab messages, $gab gaps ($(truth lost_both_packets) packets lost on both); $same frames of B equal A's but the group"
	# an independent decoder reads line B: tshark's MoldUDP64 dissector
	if ! command -v tshark >/dev/null 2>&1; then
		echo "  (no tshark: line B not checked by it)"
	else
		tshark -n -r "$T/b.pcap" -d udp.port==26477,moldudp64 \
			-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
			-T fields -E occurrence=a -E aggregator=';' -e ip.dst \
			-e ip.checksum.status -e udp.checksum.status \
			-e moldudp64.sequence -e moldudp64.count -e moldudp64.msglen \
			-e _ws.expert.severity -e _ws.malformed \
			>"$T/tb" 2>"$T/tb.err" || fail "tshark: $(cat "$T/tb.err")"
		# checksum status 1 = Good; expert severity 0x600000 = warning
		read -r frames msgs gaps nbad < <(awk -F'\t' -v gb=$GB '
			function maxsev(s,   n, a, m, k) {
				m = 0; n = split(s, a, ";")
				for (k = 1; k <= n; k++) if (a[k] + 0 > m) m = a[k] + 0
				return m
			}
			BEGIN { next_seq = 1 }
			{
				if ($1 != gb || $2 != 1 || $3 != 1 || $4 == "" || $8 != "" ||
				    maxsev($7) >= 6291456) bad++
				c = $5 + 0
				if (c != 0 && c != 65535) {
					if (split($6, x, ";") != c) bad++
					msgs += c
				}
				if ($4 + 0 > next_seq) gaps++
				next_seq = $4 + (c == 0 || c == 65535 ? 0 : c)
			}
			END { print NR, msgs + 0, gaps + 0, bad + 0 }' "$T/tb")
		expect_eq "tshark: line B frames" "$frames" "$(truth b_frames)"
		expect_eq "tshark: line B messages" "$msgs" "$(truth b_messages)"
		expect_eq "tshark: line B gaps" "$gaps" "$(truth b_gaps)"
		expect_eq "tshark: line B frames with problems" "$nbad" 0
		echo "  tshark: line B's $frames frames to $GB, checksums good, $msgs messages, $gaps gaps"
	fi
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: e2e $SCENARIO"
