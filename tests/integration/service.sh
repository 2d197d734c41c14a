#!/usr/bin/env bash
# hedgewire as a service: what `meson install` puts where (the systemd
# units and the /etc profile), the stats record through rte_log, live
# capture with dpdk-dumpcap, and the Prometheus exporter.
#   service.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR BUILDDIR SCENARIO
# SCENARIO: install | stats-log | pdump | exporter
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 BUILD=$5 SCENARIO=$6
. "$SRCDIR/tests/integration/common.sh"
command -v python3 >/dev/null || fail "python3 missing (scripts/setup.sh installs it)"

# feed_and_table: a generated feed ($T/feed.pcap, 15,000 frames) and table.
feed_and_table() {
	"$FEEDGEN" -q -o "$T/feed.pcap" --truth "$T/truth" --seed 41 \
		--instruments 40 --messages 60000 --per-packet 4 --heartbeats 50
	"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 \
		--imbalances 8 --seed 5 --fill 0.1
}

# alive: fails unless hedgewire ($hw, when set) still runs.
alive() {
	[ -z "${hw:-}" ] || kill -0 "$hw" 2>/dev/null ||
		fail "hedgewire exited before it answered: $(tail -3 "$T/err")"
}

# wait_socket: until hedgewire's telemetry socket is there.
wait_socket() {
	local sock=/var/run/dpdk/$PREFIX/dpdk_telemetry.v2
	for _ in $(seq 150); do [ -S "$sock" ] && return 0; alive; sleep 0.1; done
	fail "no telemetry socket $sock"
}

# wait_ready: until hedgewire answers /hgw/stats (its ports are up then).
# Each try starts python3, which can take over a second on a loaded
# machine: the paced replays below last 7.5 s so that a try lands in them.
wait_ready() {
	wait_socket
	for _ in $(seq 150); do
		tel /hgw/stats 2>/dev/null | grep -q '"running": 1' && return 0
		alive
		sleep 0.1
	done
	fail "hedgewire never answered /hgw/stats"
}

# tel CMD...: each command's JSON reply, one line each, straight from the
# telemetry socket.
tel() {
	python3 - "/var/run/dpdk/$PREFIX/dpdk_telemetry.v2" "$@" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.recv(1024)
for cmd in sys.argv[2:]:
    s.send(cmd.encode())
    print(json.dumps(json.loads(s.recv(65536))))
PY
}

case $SCENARIO in
install)
	# meson install --destdir: every file where the build's options say,
	# the unit pointing at the installed binary and profile, the profile
	# accepted by the installed hedgewire, the unit verified.
	dest=$T/dest
	meson install -C "$BUILD" --no-rebuild --destdir "$dest" >"$T/install.log" 2>&1 ||
		fail "meson install: $(tail -5 "$T/install.log")"
	meson introspect "$BUILD" --buildoptions >"$T/opts.json"
	eval "$(python3 - "$T/opts.json" <<'PY'
import json, os, sys
o = {x['name']: x['value'] for x in json.load(open(sys.argv[1]))}
p = o['prefix']
print('prefix=%s bindir=%s confdir=%s' % (p, os.path.join(p, o['bindir']),
      os.path.join(p, o['sysconfdir'], 'hedgewire')))
PY
)"
	unitdir=$prefix/lib/systemd/system
	for f in "$bindir/hedgewire" "$bindir/hgw-exporter" \
		"$confdir/hedgewire.ini" "$confdir/eal.env" \
		"$unitdir/hedgewire.service" "$unitdir/hgw-exporter.service"; do
		[ -f "$dest$f" ] || fail "meson install did not install $f"
	done
	[ -x "$dest$bindir/hgw-exporter" ] || fail "$bindir/hgw-exporter is not executable"
	unit=$dest$unitdir/hedgewire.service
	grep -qx "ExecStart=$bindir/hedgewire \$HGW_EAL_ARGS -- -c $confdir/hedgewire.ini" "$unit" ||
		fail "ExecStart does not run $bindir/hedgewire with $confdir/hedgewire.ini: $(grep ExecStart= "$unit")"
	grep -qx "EnvironmentFile=$confdir/eal.env" "$unit" || fail "the unit does not read $confdir/eal.env"
	# the unit's keys, one by one (systemd-analyze verify checks syntax,
	# not these values)
	python3 - "$unit" "$dest$confdir/eal.env" <<'PY' || fail "unit keys"
import re, shlex, sys
unit = {}
for line in open(sys.argv[1]):
    m = re.match(r'^(\w+)=(.*)$', line.rstrip('\n'))
    if m:
        unit.setdefault(m.group(1), []).append(m.group(2))
def one(k):
    assert len(unit.get(k, [])) == 1, (k, unit.get(k))
    return unit[k][0]
assert one('LimitMEMLOCK') == 'infinity'
assert one('StandardOutput') == 'journal' and one('StandardError') == 'journal'
assert one('SyslogIdentifier') == 'hedgewire'
assert one('Restart') == 'on-failure'
# docs/operations.md "Exit status": 1 start-up refused, 8 + any of 5 bits; never restarted
prevent = set(int(x) for x in one('RestartPreventExitStatus').split())
assert prevent == {1} | set(range(8, 8 + 32)), sorted(prevent)
# CPUAffinity lists the CPUs of the lcores the EAL args give (-l)
def cpus(spec):
    out = set()
    for part in spec.replace(',', ' ').split():
        a, _, b = part.partition('-')
        out |= set(range(int(a), int(b or a) + 1))
    return out
env = {}
for line in open(sys.argv[2]):
    if re.match(r'^\w+=', line):
        k, v = line.rstrip('\n').split('=', 1)
        env[k] = v
args = shlex.split(env['HGW_EAL_ARGS'])
assert '-a' in args and '--file-prefix' in args, args
lc = cpus(args[args.index('-l') + 1])
assert cpus(one('CPUAffinity')) == lc, (one('CPUAffinity'), lc)
print('  unit: LimitMEMLOCK, journal, restart policy (not on %d statuses), '
      'CPUAffinity = -l %s' % (len(prevent), args[args.index('-l') + 1]))
PY
	# the installed hedgewire accepts the installed profile and says its
	# version
	"$dest$bindir/hedgewire" --version | grep -qx "hedgewire [0-9.]*" ||
		fail "installed hedgewire --version"
	# shellcheck disable=SC2086
	"$dest$bindir/hedgewire" -l0 --no-pci --no-huge -m 64 --file-prefix "$PREFIX" \
		--log-level=error -- -c "$dest$confdir/hedgewire.ini" --print-config \
		>"$T/printed" 2>"$T/err" || fail "the installed profile is refused: $(cat "$T/err")"
	grep -q "stats_interval_ms = 1000" "$T/printed" || fail "profile: no stats record"
	echo "  installed: $bindir/{hedgewire,hgw-exporter}, $confdir/{hedgewire.ini,eal.env}, $unitdir/{hedgewire,hgw-exporter}.service"
	if command -v systemd-analyze >/dev/null; then
		# offline: the executables named are the ones in the destdir
		for u in hedgewire hgw-exporter; do
			sed "s|=$bindir/|=$dest$bindir/|g" "$dest$unitdir/$u.service" >"$T/$u.service"
			systemd-analyze verify "$T/$u.service" >"$T/verify" 2>&1 ||
				fail "systemd-analyze verify $u.service: $(cat "$T/verify")"
			[ ! -s "$T/verify" ] || fail "systemd-analyze verify $u.service: $(cat "$T/verify")"
		done
		echo "  systemd-analyze verify: both units clean"
	else
		fail "systemd-analyze missing (package systemd; scripts/test.sh installs it)"
	fi
	# --prefix=/usr puts the profile in /etc and the units in
	# /usr/lib/systemd/system (configured only; nothing built)
	meson setup --prefix=/usr -Dtests=false "$T/b-usr" "$SRCDIR" >"$T/setup.log" 2>&1 ||
		fail "meson setup --prefix=/usr: $(tail -5 "$T/setup.log")"
	meson introspect "$T/b-usr" --installed >"$T/installed.json"
	for want in /etc/hedgewire/hedgewire.ini /etc/hedgewire/eal.env \
		/usr/lib/systemd/system/hedgewire.service /usr/bin/hedgewire /usr/bin/hgw-exporter; do
		grep -q "\"$want\"" "$T/installed.json" || fail "--prefix=/usr does not install $want"
	done
	grep -qx "ExecStart=/usr/bin/hedgewire \$HGW_EAL_ARGS -- -c /etc/hedgewire/hedgewire.ini" \
		"$T/b-usr/conf/hedgewire.service" || fail "--prefix=/usr unit: $(grep ExecStart= "$T/b-usr/conf/hedgewire.service")"
	echo "  --prefix=/usr: /etc/hedgewire, /usr/lib/systemd/system, /usr/bin"
	;;
stats-log)
	# A paced replay (about 3 s) with a stats record every 200 ms: several
	# records with growing counts, the last one equal to the summary.
	# Throttles tight enough for risk rejects.
	feed_and_table
	conf "[risk]" "max_orders_instrument = 50" "max_orders_total = 300" \
		"window_ms = 1000"
	# stdout through a pipe, as under systemd: the version line must
	# come at start-up, not at exit
	set +e
	# shellcheck disable=SC2086
	"$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out.pcap" -- \
		-c "$T/conf.ini" --set run.idle_timeout_ms=0 --set replay.pace=rate \
		--set replay.pps=5000 --set run.stats_interval_ms=200 2>"$T/err" |
		{ IFS= read -r first; date +%s.%N >"$T/first.t"; printf '%s\n' "$first" >"$T/out"; cat >>"$T/out"; }
	rc=${PIPESTATUS[0]}
	set -e
	date +%s.%N >"$T/end.t"
	[ "$rc" -eq 0 ] || fail "hedgewire exited $rc: $(grep -v '^HGW_STATS' "$T/err" | tail -3)"
	grep -qx "hedgewire [0-9.]*" <(head -1 "$T/out") || fail "first line is not the version: $(head -1 "$T/out")"
	awk -v a="$(cat "$T/first.t")" -v b="$(cat "$T/end.t")" 'BEGIN { exit !(b - a > 1.5) }' ||
		fail "the version line came $(awk -v a="$(cat "$T/first.t")" -v b="$(cat "$T/end.t")" 'BEGIN { print b - a }') s before the end of a 3 s run: held in a buffer"
	grep '^HGW_STATS: ' "$T/err" >"$T/records" || fail "no stats record on stderr: $(tail -3 "$T/err")"
	python3 - "$T/records" "$T/out" <<'PY' || fail "stats records wrong: $(cat "$T/records")"
import re, sys
recs = []
for line in open(sys.argv[1]):
    kv = dict(f.split('=', 1) for f in line.split()[1:])
    recs.append({k: (v if '/' in v else int(v)) for k, v in kv.items()})
out = open(sys.argv[2]).read()
def summary(key):
    return int(re.search(r'^  %s +(\d+)$' % key, out, re.M).group(1))
periodic = [r for r in recs if r['final'] == 0]
assert len(periodic) >= 5, 'only %d periodic records' % len(periodic)
# a worker descheduled past the wait (a loaded host) or not yet in its
# loop says 0/1: counted as it last answered, never less (below)
assert sum(r['answering'] == '1/1' for r in periodic) >= 3, 'few answers'
for r in periodic:
    assert r['answering'] in ('1/1', '0/1'), r
    assert r['answering'] == '1/1' or r['sent'] == 0, ('stale latency', r)
assert recs[-1]['final'] == 1 and sum(r['final'] for r in recs) == 1, 'one final record, the last'
keys = ['frames', 'messages', 'gaps', 'triggers', 'orders', 'rejects', 'tx_full']
for a, b in zip(recs, recs[1:]):
    for k in keys:
        assert a[k] <= b[k], ('%s went down' % k, a, b)
grew = sum(1 for a, b in zip(periodic, periodic[1:]) if b['frames'] > a['frames'])
assert grew >= 3, 'frames grew in only %d intervals' % grew
for r in periodic:
    assert r['interval_ms'] >= 190, ('record early', r)
    assert r['sent'] == 0 or r['p50_ns'] <= r['p99_ns'] <= r['max_ns'], r
last = recs[-1]
rejects = sum(int(n) for n in re.findall(r'^  reject_\w+ +(\d+)$', out, re.M))
want = {'frames': summary('frames'), 'messages': summary('messages'),
        'gaps': summary('gaps'), 'triggers': summary('triggers'),
        'orders': summary('orders'), 'rejects': rejects,
        'tx_full': summary('tx_full'), 'misses': summary('misses')}
for k, v in want.items():
    assert last[k] == v, ('last record %s = %d, summary %d' % (k, last[k], v))
assert last['orders'] > 0 and last['rejects'] > 0, last
# the intervals' latencies add up to every order sent, and the largest
# is the summary's max (to the histogram's precision, 2^-6)
m = re.search(r'^  rx_to_tx: count (\d+) .* max (\d+) ', out, re.M)
count, mx = int(m.group(1)), int(m.group(2))
assert sum(r['sent'] for r in recs) == count == want['orders'], (sum(r['sent'] for r in recs), count)
top = max(r['max_ns'] for r in recs)
assert abs(top - mx) <= mx / 64 + 1, ('largest interval max %d, summary max %d' % (top, mx))
print('  %d records every ~200 ms; last: frames %d, triggers %d, orders %d, '
      'rejects %d = the summary; %d orders over the intervals, max %d ns'
      % (len(recs), last['frames'], last['triggers'], last['orders'],
         last['rejects'], count, top))
PY
	# a worker that does not answer: frozen 600 ms at a time (longer
	# than the 200 ms the record waits), so records in the middle of
	# the run say 0/1; they count it as it last answered, so no count
	# goes down, and the latencies still add up to every order sent
	set +e
	# shellcheck disable=SC2086
	"$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--vdev "net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out.pcap" -- \
		-c "$T/conf.ini" --set run.idle_timeout_ms=0 --set replay.pace=rate \
		--set replay.pps=5000 --set run.stats_interval_ms=200 \
		--inject-stall 0,600000,12000 >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	[ "$rc" -eq 0 ] || fail "hedgewire (stalls) exited $rc: $(grep -v '^HGW_STATS' "$T/err" | tail -3)"
	grep '^HGW_STATS: ' "$T/err" >"$T/records"
	python3 - "$T/records" "$T/out" <<'PY' || fail "stats records with a frozen worker: $(cat "$T/records")"
import re, sys
recs = [{k: (v if '/' in v else int(v)) for k, v in
         (f.split('=', 1) for f in line.split()[1:])}
        for line in open(sys.argv[1])]
out = open(sys.argv[2]).read()
first = next(i for i, r in enumerate(recs) if r['answering'] == '1/1')
stale = [r for r in recs[first:] if r['answering'] == '0/1']
assert stale, 'no record found the worker frozen'
for a, b in zip(recs, recs[1:]):
    for k in ('frames', 'messages', 'triggers', 'orders', 'rejects'):
        assert a[k] <= b[k], ('%s went down' % k, a, b)
for r in stale:
    assert r['sent'] == 0 and r['frames'] > 0, r
count = int(re.search(r'^  rx_to_tx: count (\d+) ', out, re.M).group(1))
assert sum(r['sent'] for r in recs) == count, (sum(r['sent'] for r in recs), count)
print('  worker frozen: %d of %d records said 0/1, each with its last '
      'counts (frames %s); %d orders over the intervals'
      % (len(stale), len(recs), ', '.join(str(r['frames']) for r in stale[:3]), count))
PY
	# a bad value names the key, in one line
	for bad in 5 lots; do
		if run_hw -l0-1 "net_pcap0,rx_pcap=$T/feed.pcap" -c "$T/conf.ini" \
			--set run.stats_interval_ms=$bad; then
			fail "accepted stats_interval_ms = $bad"
		fi
		[ "$(grep -c . "$T/err")" -eq 1 ] || fail "stats_interval_ms = $bad: $(cat "$T/err")"
		grep -q "stats_interval_ms" "$T/err" || fail "error does not name the key: $(cat "$T/err")"
	done
	echo "  refused: $(cat "$T/err")"
	;;
pdump)
	# dpdk-dumpcap, a secondary process, captures hedgewire's port live:
	# the feed frames it receives (MoldUDP64, as tshark reads them, byte
	# for byte the feed) and the orders it sends (each in its journal).
	# DPDK 22.11's dumpcap needs a port with RX and TX queues, and its
	# secondary re-creates a net_pcap port from the primary's devargs (cut
	# at 63 bytes), opening a tx_pcap for writing again: so the orders go
	# to /dev/null and the journal says what left (docs/operations.md "Running as a
	# service").
	# This test runs alone (is_parallel: false in meson.build), so huge
	# pages this host has are free for it: it is skipped only on a host
	# without them (or told not to use them), and fails when they are
	# there but taken.
	case $EAL_MEM in *--no-huge*)
		total_mb=0
		for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
			kb=${d##*hugepages-}; kb=${kb%kB}
			grep -qs "hugetlbfs.*pagesize=$((kb / 1024))M" /proc/mounts || continue
			total_mb=$((total_mb + $(cat "$d/nr_hugepages") * kb / 1024))
		done
		if [ -n "${HGW_NO_HUGE:-}" ] || [ "$(id -u)" -ne 0 ] || [ "$total_mb" -lt 256 ]; then
			echo "SKIP: no huge pages for dpdk-dumpcap's secondary process to attach to (${total_mb} MB mounted, 256 wanted; root: $([ "$(id -u)" -eq 0 ] && echo yes || echo no); HGW_NO_HUGE='${HGW_NO_HUGE:-}'); scripts/setup.sh reserves them"
			exit 77
		fi
		fail "$total_mb MB of huge pages, under 256 MB free while this test runs alone: $(ls "$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)" | head -5 | tr '\n' ' ')";;
	esac
	command -v dpdk-dumpcap >/dev/null || fail "dpdk-dumpcap missing (package dpdk)"
	command -v tshark >/dev/null || fail "tshark missing"
	feed_and_table
	conf "[risk]" "max_orders_instrument = 400" "max_orders_total = 4000" \
		"window_ms = 50"
	args="rx_pcap=$T/feed.pcap,tx_pcap=/dev/null"
	[ ${#args} -le 63 ] || fail "devargs '$args' over 63 bytes: dumpcap's secondary would cut them (a shorter TMPDIR)"
	# shellcheck disable=SC2086
	# hedgewire stays up after the feed (only SIGTERM stops it), and
	# dumpcap stops once it has captured CAP_N packets: the capture is
	# live by construction, whatever the machine's speed. The feed lasts
	# 7.5 s at 2,000 frames/s, CAP_N packets (frames and orders) take
	# under a second; if dumpcap attaches too late to see CAP_N, it is
	# stopped after 30 s and the test fails, saying so.
	CAP_N=1500
	"$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--vdev "net_pcap0,$args" -- -c "$T/conf.ini" --set run.idle_timeout_ms=0 \
		--set run.stop_at_end_of_session=no \
		--set replay.pace=rate --set replay.pps=2000 >"$T/out" 2>"$T/err" &
	hw=$!
	PIDS+=("$hw")
	wait_ready
	t0=$(date +%s)
	timeout 30 dpdk-dumpcap --file-prefix="$PREFIX" -i net_pcap0 \
		-w "$T/cap.pcapng" -c "$CAP_N" >"$T/dumpcap" 2>&1 ||
		fail "dpdk-dumpcap exited $? before $CAP_N packets (timeout: 124): $(cat "$T/dumpcap")"
	kill -0 "$hw" 2>/dev/null || fail "hedgewire died during the capture: $(tail -3 "$T/err")"
	kill -TERM "$hw"
	wait "$hw" || fail "hedgewire exited $?: $(tail -3 "$T/err")"
	dissect="-d udp.port==26477,moldudp64"
	# shellcheck disable=SC2086
	tshark -r "$T/cap.pcapng" $dissect -Y moldudp64 -T fields -e frame.time_epoch \
		-e moldudp64.session -e moldudp64.sequence -e moldudp64.count \
		-e udp.payload >"$T/cap.mold" 2>/dev/null || fail "tshark cannot read the capture"
	# shellcheck disable=SC2086
	tshark -r "$T/feed.pcap" $dissect -Y moldudp64 -T fields -e moldudp64.session \
		-e moldudp64.sequence -e moldudp64.count -e udp.payload >"$T/feed.mold" 2>/dev/null
	tshark -r "$T/cap.pcapng" -Y "udp.dstport == 40001" -T fields -e udp.payload \
		>"$T/cap.orders" 2>/dev/null || fail "tshark cannot read the order capture"
	tshark -r "$T/journal.pcap" -T fields -e udp.payload >"$T/sent.orders" 2>/dev/null
	# the capture clock: as hedgewire's warning says, or right
	late=$(sed -n 's/.*editcap -t -\([0-9]*\) corrects them.*/\1/p' "$T/err")
	python3 - "$T/cap.mold" "$T/feed.mold" "$T/cap.orders" "$T/sent.orders" \
		"$t0" "${late:-0}" <<'PY' || fail "capture wrong ($(tail -2 "$T/dumpcap" | tr '\n' ' '))"
import sys
cap = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
feed = [l.rstrip('\n').split('\t') for l in open(sys.argv[2]) if l.strip()]
corders = [l.strip() for l in open(sys.argv[3]) if l.strip()]
sent = set(l.strip() for l in open(sys.argv[4]) if l.strip())
t0, late = float(sys.argv[5]), float(sys.argv[6])
assert len(cap) >= 1000, 'only %d MoldUDP64 frames captured' % len(cap)
index = {tuple(f[:3]): f[3] for f in feed}
seqs = []
for c in cap:
    key = tuple(c[1:4])
    assert key in index, ('captured frame not in the feed', key)
    assert index[key] == c[4], ('captured frame differs from the feed', key)
    seqs.append(int(c[2]))
# the capture window is one stretch of the feed, in order
assert seqs == sorted(seqs), 'captured out of order'
assert corders, 'no order captured'
for o in corders:
    assert o in sent, ('captured order not in the journal', o[:40])
first = float(cap[0][0]) - late
assert abs(first - t0) < 30, ('capture clock: first frame at %.0f (%.0f s late said), '
                              'captured at %.0f' % (float(cap[0][0]), late, t0))
print('  %d feed frames (seq %d..%d, byte for byte the feed) and %d orders '
      '(each in the journal) captured; clock %s' % (len(cap), seqs[0], seqs[-1],
      len(corders), 'right' if late == 0 else '%.0f s late, as hedgewire warned' % late))
PY
	# A separate order port, as on a host with a feed NIC and an order
	# NIC: it has TX queues only, so hedgewire gives it an idle RX queue
	# (DPDK 22.11's pdump captures only ports with both); its orders are
	# captured, each in the journal.
	python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))' >"$T/e.pcap"
	a0="rx_pcap=$T/feed.pcap,tx_pcap=/dev/null" a1="rx_pcap=$T/e.pcap,tx_pcap=/dev/null"
	[ ${#a0} -le 63 ] && [ ${#a1} -le 63 ] || fail "devargs over 63 bytes: dumpcap's secondary would cut them (a shorter TMPDIR)"
	rm -f "$T/journal.pcap"
	# shellcheck disable=SC2086
	"$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--vdev "net_pcap0,$a0" --vdev "net_pcap1,$a1" -- -c "$T/conf.ini" \
		--set run.idle_timeout_ms=0 --set order.port=1 \
		--set run.stop_at_end_of_session=no \
		--set replay.pace=rate --set replay.pps=2000 >"$T/out2" 2>"$T/err2" &
	hw=$!
	PIDS+=("$hw")
	wait_ready
	# as above: until CAP2_N orders are captured, hedgewire still up
	CAP2_N=50
	timeout 30 dpdk-dumpcap --file-prefix="$PREFIX" -i net_pcap1 \
		-w "$T/cap2.pcapng" -c "$CAP2_N" >"$T/dumpcap2" 2>&1 ||
		fail "dpdk-dumpcap on the order port exited $? before $CAP2_N packets (timeout: 124): $(cat "$T/dumpcap2")"
	kill -0 "$hw" 2>/dev/null || fail "hedgewire (two ports) died during the capture: $(tail -3 "$T/err2")"
	kill -TERM "$hw"
	wait "$hw" || fail "hedgewire (two ports) exited $?: $(tail -3 "$T/err2")"
	tshark -r "$T/cap2.pcapng" -Y "udp.dstport == 40001" -T fields -e udp.payload \
		>"$T/cap2.orders" 2>/dev/null || fail "tshark cannot read the order port's capture"
	tshark -r "$T/journal.pcap" -T fields -e udp.payload >"$T/sent2.orders" 2>/dev/null
	n=$(grep -c . "$T/cap2.orders" || true)
	[ "$n" -ge "$CAP2_N" ] || fail "$n orders captured on the separate order port, dumpcap stopped at $CAP2_N packets"
	missing=$(grep -cvxFf "$T/sent2.orders" "$T/cap2.orders" || true)
	[ "$missing" -eq 0 ] || fail "$missing orders captured on the order port are not in the journal"
	echo "  separate order port: $n orders captured (each in the journal)"
	;;
exporter)
	# hgw-exporter against a live hedgewire: the exposition parses with
	# an independent parser (prometheus_client), says what /hgw/stats and
	# /hgw/latency say, and hgw_up is 0 before and after hedgewire.
	PY3=python3
	python3 -c 'import prometheus_client' 2>/dev/null || PY3=/usr/bin/python3
	$PY3 -c 'import prometheus_client' 2>/dev/null ||
		fail "python3-prometheus-client missing (scripts/test.sh installs it)"
	feed_and_table
	conf "[risk]" "max_orders_instrument = 400" "max_orders_total = 4000" \
		"window_ms = 50"
	# --cache 0: every scrape asks anew, so each one can be compared with
	# the telemetry answers of the same moment (exporter-flood tests the
	# cache)
	python3 "$SRCDIR/scripts/hgw-exporter" --file-prefix "$PREFIX" \
		--listen 127.0.0.1:0 --cache 0 >"$T/exporter.out" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 300); do grep -q '^hgw-exporter .*http://' "$T/exporter.out" && break; sleep 0.1; done
	url=$(sed -n 's|^hgw-exporter .*\(http://[^ ]*/metrics\).*|\1|p' "$T/exporter.out")
	[ -n "$url" ] || fail "exporter did not start: $(cat "$T/exporter.out")"
	# check FILE [STATS-JSON LATENCY-JSON]: parse FILE (an exposition);
	# with the JSON replies, every value must equal theirs.
	check() {
		$PY3 - "$@" <<'PY'
import json, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
fams = {f.name: f for f in text_string_to_metric_families(text)}
for f in fams.values():
    assert f.documentation and f.type != 'unknown', ('no HELP/TYPE', f.name)
    assert f.samples, ('empty family', f.name)
def value(name, **labels):
    for f in fams.values():
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise AssertionError('no sample %s %s' % (name, labels))
up = value('hgw_up')
if len(sys.argv) == 2:
    assert up == 0 and set(fams) == {'hgw_up', 'hgw_exporter_queries'}, (up, list(fams))
    print('down')
    sys.exit(0)
st = json.loads(open(sys.argv[2]).read())['/hgw/stats']
lat = json.loads(open(sys.argv[3]).read())['/hgw/latency']
assert up == 1
assert fams['hgw_frames'].type == 'counter' and fams['hgw_order_latency_seconds'].type == 'summary'
for key, name in [('frames', 'hgw_frames_total'), ('messages', 'hgw_messages_total'),
                  ('gaps', 'hgw_gaps_total'), ('dup_messages', 'hgw_dup_messages_total'),
                  ('drops', 'hgw_drops_total'), ('orders_sent', 'hgw_orders_sent_total'),
                  ('misses', 'hgw_misses_total'), ('workers', 'hgw_workers'),
                  ('workers_answering', 'hgw_workers_answering'), ('running', 'hgw_running')]:
    assert value(name) == st[key], (name, value(name), st[key])
for key, q in [('p50_ns', '0.5'), ('p99_ns', '0.99'), ('p99_9_ns', '0.999'),
               ('p99_999_ns', '0.99999')]:
    assert abs(value('hgw_order_latency_seconds', quantile=q) - lat[key] / 1e9) < 1e-12, (q, lat[key])
assert value('hgw_order_latency_seconds_count') == lat['count'] == st['orders_sent'], lat
assert abs(value('hgw_order_latency_seconds_sum') - lat['sum_ns'] / 1e9) < 1e-9
assert abs(value('hgw_order_latency_max_seconds') - lat['max_ns'] / 1e9) < 1e-12
wins = sum(value('hgw_worker_wins_ratio', worker=str(w)) for w in range(st['workers']))
assert abs(wins - 1) < 1e-5, wins
assert value('hgw_replica_racing', worker='0') == 1 and value('hgw_replica_racing', worker='1') == 1
print('%d families; frames %d, orders %d, p50 %.0f ns' % (len(fams), st['frames'],
      st['orders_sent'], lat['p50_ns']))
PY
	}
	curl_() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$1"; }
	curl_ "$url" >"$T/m0" || fail "GET $url failed"
	r=$(check "$T/m0") || fail "exposition without hedgewire: $(cat "$T/m0")"
	echo "  before hedgewire: $r"
	# two hedged workers; keep running after the feed's end so that the
	# counters hold still for the comparison
	# shellcheck disable=SC2086
	"$HEDGEWIRE" --lcores=0@0,1@1,2@0 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
		--log-level=error --vdev \
		"net_pcap0,rx_pcap=$T/feed.pcap,rx_pcap=$T/feed.pcap,tx_pcap=$T/out0.pcap,tx_pcap=$T/out1.pcap" \
		-- -c "$T/conf.ini" --set run.workers=2 --set replay.pace=rate \
		--set replay.pps=10000 --set run.idle_timeout_ms=0 \
		--set run.stop_at_end_of_session=no >"$T/out" 2>"$T/err" &
	hw=$!
	PIDS+=("$hw")
	wait_ready
	curl_ "$url" >"$T/m1" || fail "GET $url failed while hedgewire runs"
	$PY3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
f = {x.name: x for x in text_string_to_metric_families(open(sys.argv[1]).read())}
assert f["hgw_up"].samples[0].value == 1 and f["hgw_running"].samples[0].value == 1
' "$T/m1" || fail "live exposition: $(head -20 "$T/m1")"
	# the replay over (frames hold still), the exporter must say exactly
	# what /hgw/stats and /hgw/latency say
	prev=-1
	for _ in $(seq 100); do
		tel /hgw/stats >"$T/s" || fail "telemetry query failed"
		now=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["/hgw/stats"]["frames"])' "$T/s")
		[ "$now" = "$prev" ] && break
		prev=$now
		sleep 0.5
	done
	curl_ "$url" >"$T/m2" || fail "GET $url failed"
	tel /hgw/stats >"$T/stats.json"
	tel /hgw/latency >"$T/lat.json"
	r=$(check "$T/m2" "$T/stats.json" "$T/lat.json" 2>&1) ||
		fail "exporter disagrees with telemetry: $r $(cat "$T/stats.json" "$T/lat.json"; grep -v '^#' "$T/m2")"
	echo "  live: $r"
	kill -TERM "$hw"
	wait "$hw" || fail "hedgewire exited $?: $(tail -3 "$T/err")"
	final=$(awk '/sent rx_to_tx: count/ { print $4 }' "$T/out")
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["/hgw/latency"]["count"])' "$T/lat.json")
	expect_eq "orders at exit vs exported" "$final" "$got"
	curl_ "$url" >"$T/m3" || fail "GET $url failed after hedgewire"
	r=$(check "$T/m3") || fail "exposition after hedgewire: $(cat "$T/m3")"
	echo "  after hedgewire: $r"
	;;
*)
	fail "unknown scenario $SCENARIO"
	;;
esac
echo "PASS: service $SCENARIO"
