#!/usr/bin/env bash
# A flood of scrapes never takes the telemetry connections an operator
# needs: 50 clients scrape hgw-exporter at once, over and over, while an
# operator connects to hedgewire's telemetry socket again and again; every
# operator connection is answered, and the exporter asked hedgewire at
# most once per --cache interval (its hgw_exporter_queries_total). With
# [run] telemetry_group, an unprivileged member of the group reaches the
# socket through its own exporter, and nobody else does.
# usage: exporter_flood.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4
. "$SRCDIR/tests/integration/common.sh"

"$FEEDGEN" -q -o "$T/feed.pcap" --seed 41 --instruments 40 \
	--messages 60000 --per-packet 4 --heartbeats 50
"$TABLEGEN" -q -o "$T/table.tbl" --instruments 64 --spreads 8 \
	--imbalances 8 --seed 5 --fill 0.1
conf "[risk]" "max_orders_instrument = 400" "max_orders_total = 4000" \
	"window_ms = 50"
SOCK=/var/run/dpdk/$PREFIX/dpdk_telemetry.v2

# hedgewire, running until told to stop
# shellcheck disable=SC2086
"$HEDGEWIRE" -l0-1 --no-pci $EAL_MEM --file-prefix "$PREFIX" \
	--log-level=error --vdev "net_pcap0,rx_pcap=$T/feed.pcap,tx_pcap=$T/out.pcap" \
	-- -c "$T/conf.ini" --set replay.pace=rate --set replay.pps=2000 \
	--set run.idle_timeout_ms=0 --set run.stop_at_end_of_session=no \
	--set run.telemetry_group=nogroup \
	>"$T/out" 2>"$T/err" &
HW=$!
PIDS+=("$HW")
for _ in $(seq 300); do
	[ -S "$SOCK" ] && break
	kill -0 "$HW" 2>/dev/null || fail "hedgewire exited: $(cat "$T/err")"
	sleep 0.1
done
[ -S "$SOCK" ] || fail "no telemetry socket after 30 s"
# the socket opens at EAL start-up, the commands a while later (after the
# table and the ports): the flood and the operator start once /hgw/stats
# answers, not while a loaded host is still starting hedgewire
python3 - "$SOCK" <<'PY' || fail "/hgw/stats never answered: $(cat "$T/err")"
import json, socket, sys, time
end = time.monotonic() + 30
while time.monotonic() < end:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(sys.argv[1])
        s.recv(1024)
        s.send(b'/hgw/stats')
        if isinstance(json.loads(s.recv(65536).decode()).get('/hgw/stats'), dict):
            sys.exit(0)
    except OSError:
        pass
    finally:
        s.close()
    time.sleep(0.05)
sys.exit(1)
PY

python3 "$SRCDIR/scripts/hgw-exporter" --socket "$SOCK" --cache 1 \
	--listen 127.0.0.1:0 >"$T/exporter.out" 2>&1 &
PIDS+=("$!")
for _ in $(seq 300); do grep -q '^hgw-exporter .*http://' "$T/exporter.out" && break; sleep 0.1; done
url=$(sed -n 's|^hgw-exporter .*\(http://[^ ]*/metrics\).*|\1|p' "$T/exporter.out")
[ -n "$url" ] || fail "exporter did not start: $(cat "$T/exporter.out")"

python3 - "$url" "$SOCK" <<'PY' || fail "flood"
import json, re, socket, sys, threading, time, urllib.request
url, sock = sys.argv[1], sys.argv[2]
stop = threading.Event()
scrapes = [0]
errors = []

def scrape_loop():
    while not stop.is_set():
        try:
            urllib.request.urlopen(url, timeout=30).read()
            scrapes[0] += 1
        except Exception as e:      # noqa: BLE001 - counted, then failed
            errors.append(repr(e))

def operator():
    """One operator command on a new connection: its answer, or why not."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(10)
    try:
        s.connect(sock)
        hello = s.recv(1024)
        if not hello:
            return 'closed at once (no free telemetry connection)'
        s.send(b'/hgw/stats')
        r = json.loads(s.recv(65536).decode())
        return None if isinstance(r.get('/hgw/stats'), dict) else repr(r)
    except OSError as e:
        return repr(e)
    finally:
        s.close()

threads = [threading.Thread(target=scrape_loop) for _ in range(50)]
t0 = time.monotonic()
for t in threads:
    t.start()
# the operator goes on until the flood has made 500 scrapes (at least
# 20 commands), so every command meets scrapes in flight
bad, asked = [], 0
while asked < 20 or (scrapes[0] < 500 and time.monotonic() - t0 < 60):
    why = operator()
    asked += 1
    if why:
        bad.append(why)
stop.set()
for t in threads:
    t.join()
elapsed = time.monotonic() - t0
body = urllib.request.urlopen(url, timeout=30).read().decode()
m = re.search(r'^hgw_exporter_queries_total (\d+)', body, re.M)
queries = int(m.group(1)) if m else -1
up = re.search(r'^hgw_up (\d)', body, re.M)
print(f'  {scrapes[0]} scrapes by 50 clients in {elapsed:.1f} s; '
      f'{queries} telemetry queries; operator: {asked - len(bad)} of {asked} answered')
assert not errors, errors[:3]
assert up and up.group(1) == '1', body[:300]
assert scrapes[0] >= 500, 'the flood made too few scrapes to mean anything'
# one query per second of cache at most, and the last GET's own
assert 1 <= queries <= elapsed / 1.0 + 2, (queries, elapsed)
assert not bad, bad[:3]
PY
# [run] telemetry_group: an unprivileged member of the group (nobody, in
# nogroup) reaches the socket through hgw-exporter; others cannot
dir=$(dirname "$SOCK")
expect_eq "telemetry socket" "$(stat -c '%a %G' "$SOCK")" "660 nogroup"
expect_eq "runtime directory" "$(stat -c '%a %G' "$dir")" "750 nogroup"
chmod 0711 "$T"
mkdir -m 0755 "$T/pub"
install -m 0755 "$SRCDIR/scripts/hgw-exporter" "$T/pub/hgw-exporter"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 \
	"$T/pub/hgw-exporter" --socket "$SOCK" --listen 127.0.0.1:0 \
	>"$T/exporter2.out" 2>&1 &
PIDS+=("$!")
for _ in $(seq 300); do grep -q '^hgw-exporter .*http://' "$T/exporter2.out" && break; sleep 0.1; done
url2=$(sed -n 's|^hgw-exporter .*\(http://[^ ]*/metrics\).*|\1|p' "$T/exporter2.out")
[ -n "$url2" ] || fail "unprivileged exporter did not start: $(cat "$T/exporter2.out")"
# until one scrape has hedgewire up (30 s): on a loaded host one query
# can take longer than the exporter's 2 s timeout; without the group's
# access none ever does
for _ in $(seq 60); do
	python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=30).read().decode())' \
		"$url2" >"$T/m.nobody" || fail "GET $url2 failed"
	grep -qx 'hgw_up 1' "$T/m.nobody" && break
	sleep 0.5
done
grep -qx 'hgw_up 1' "$T/m.nobody" ||
	fail "an exporter run as nobody (nogroup) cannot reach hedgewire: $(grep hgw_up "$T/m.nobody")"
if setpriv --reuid=65534 --regid=65533 --clear-groups /usr/bin/python3 -c \
	'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).connect(sys.argv[1])' \
	"$SOCK" 2>/dev/null; then
	fail "a user outside the group connected to the telemetry socket"
fi
echo "  telemetry_group = nogroup: nobody's exporter answers (hgw_up 1); gid 65533 is refused"
kill -TERM "$HW"
wait "$HW" || fail "hedgewire exited $?: $(tail -3 "$T/err")"
echo "PASS"
