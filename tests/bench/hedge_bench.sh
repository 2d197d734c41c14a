#!/usr/bin/env bash
# The app benchmark: single vs hedged, in one run. The same generated feed
# and pricing table (larger than the last-level cache), paced replay (every
# worker releases frame i at the same TSC deadline), hedgewire with one
# worker and then with N hedged workers (claim dedup, one replica each).
# Latency of a trigger = its order's TX TSC minus the frame's deadline;
# every order counted (the histograms' counts are printed and checked).
# Prints p50 .. max for both and the ratios, writes the histograms as CSV
# and JSON and draws both CCDFs on one PNG (scripts/ccdf.sh).
# Rounds alternate single and hedged (drift and noise hit both alike); the
# report is over all rounds' samples merged, plus each round's p99.99 and
# its spread (min / median / max over the rounds). What each replica is
# worth: every hedged worker records when it reached each trigger's order
# (hedgewire --claims), so the tail of the best of k workers is known for
# k = 1..N from the same run, with each worker's share of wins.
#   tests/bench/hedge_bench.sh [OUTDIR] [table-MB] [messages] [pps] [workers] [rounds]
# (build first: scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bench-out}
mb=${2:-256}
msgs=${3:-1000000}
pps=${4:-50000}
nw=${5:-2}
rounds=${6:-3}
mkdir -p "$out"
# Inputs and captures on tmpfs: the table and feed are written just before
# the runs, and on a disk file system their writeback (hundreds of MB)
# would run during the measurement. HGW_BENCH_DIR overrides.
work=$(mktemp -d "${HGW_BENCH_DIR:-/dev/shm}/hgw-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
B=build/app
ncpu=$(nproc)
inst=$(( (mb * 1024 + 255) / 256 ))	# 64 x 64 entries of 64 B each
$B/hgw-feedgen/hgw-feedgen -q -o "$work/feed.pcap" --seed 9 \
	--instruments "$(( inst < 2000 ? inst - 1 : 2000 ))" --messages "$msgs" --per-packet 4
$B/hgw-tablegen/hgw-tablegen -q -o "$work/table.tbl" --instruments "$inst" \
	--spreads 64 --imbalances 64 --seed 9 --fill 0.05
frames=$(capinfos -c -M "$work/feed.pcap" 2>/dev/null | awk '/Number of packets/ {print $NF}')
echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $ncpu CPUs," \
	"LLC $(lscpu | awk -F': *' '/L3/ {print $2}')"
echo "feed: $msgs messages in ${frames:-?} frames, paced at $pps frames/s; table $mb MB per replica"

# run NAME WORKERS: one paced replay; histogram in $out/NAME.csv/.json
run() {
	local name=$1 n=$2 rx="" tx="" lc="0@0" i claims=()
	for ((i = 0; i < n; i++)); do
		rx+=",rx_pcap=$work/feed.pcap"
		tx+=",tx_pcap=$work/out$i.pcap"
		lc+=",$((i + 1))@$(((i + 1) % ncpu))"
	done
	[ "$n" -gt 1 ] && claims=(--claims "$out/$name.claims.csv")
	# shellcheck disable=SC2046
	$B/hedgewire/hedgewire --lcores="$lc" --no-pci \
		$(scripts/eal-args.sh $((n * (mb + 100) + 600))) \
		--file-prefix hgw-bench --log-level=error \
		--vdev "net_pcap0$rx$tx" -- \
		-c conf/demo.ini --set "table.file=$work/table.tbl" \
		--set book.instruments=4096 --set run.workers="$n" \
		--set run.dedup=claim --set order.journal= \
		--set run.idle_timeout_ms=0 --set replay.pace=rate \
		--set replay.pps="$pps" --set risk.window_ms=1 \
		--set risk.max_orders_instrument=4096 \
		--set risk.max_orders_total=4096 --latency "$out/$name" \
		"${claims[@]}" \
		>"$work/$name.out"
	grep -q "agrees with worker 0: NO" "$work/$name.out" &&
		{ echo "$name: replicas disagree"; exit 1; }
	grep '^table ' "$work/$name.out" | sed "s/^/$name: /"
	grep 'paced:' "$work/$name.out" | head -1 | sed "s/^ */$name: /"
}

for ((r = 1; r <= rounds; r++)); do
	run "single.$r" 1
	run "hedged.$r" "$nw"
done

# Merge each mode's rounds (bucket by bucket, from the JSON files), report
# percentiles the way hgw_hist_percentile does (the bucket's high value),
# and write the merged CSV in hgw_hist_write_csv's format for ccdf.sh.
python3 - "$out" "$nw" "$rounds" <<'PY'
import json, math, sys
out, nw, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
PCTS = ['p50', 'p99', 'p99.9', 'p99.99']

def merged(mode):
    runs = [json.load(open('%s/%s.%d.json' % (out, mode, r))) for r in range(1, rounds + 1)]
    b = {}
    for d in runs:
        for v, c in d['buckets']:
            b[v] = b.get(v, 0) + c
    rows = sorted(b.items())
    total = sum(c for _, c in rows)
    with open('%s/%s.csv' % (out, mode), 'w') as f:
        f.write('value,count,cumulative,ccdf\n')
        cum = 0
        for v, c in rows:
            cum += c
            f.write('%.15g,%d,%d,%.9g\n' % (v, c, cum, (total - cum) / total))
    def pct(p):
        rank, cum = math.ceil(p / 100 * total), 0
        for v, c in rows:
            cum += c
            if cum >= rank:
                return v
    res = {k: pct(float(k[1:])) for k in PCTS}
    res['max'] = max(d['max'] for d in runs)
    res['count'] = total
    res['rounds'] = [d['percentiles']['p99.99'] for d in runs]
    return res

s, h = merged('single'), merged('hedged')
if s['count'] != h['count']:
    sys.exit('counts differ: single %d, hedged %d orders' % (s['count'], h['count']))
print('\n%-22s %10s %10s %10s %10s %10s' % (('ns, %d rounds merged' % rounds,) + tuple(PCTS) + ('max',)))
for name, d in (('single (1 worker)', s), ('hedged (%s workers)' % nw, h)):
    print('%-22s %10.0f %10.0f %10.0f %10.0f %10.0f' % ((name,) + tuple(d[k] for k in PCTS) + (d['max'],)))
print('%-22s %10.2f %10.2f %10.2f %10.2f %10.2f' % (('single / hedged',) +
      tuple(s[k] / max(h[k], 1) for k in PCTS) + (s['max'] / max(h['max'], 1),)))
for name, d in (('single', s), ('hedged', h)):
    r = sorted(d['rounds'])
    print('%s p99.99 by round: %s; spread min %.0f / median %.0f / max %.0f' % (
        name, ' '.join('%.0f' % v for v in d['rounds']), r[0], r[len(r) // 2], r[-1]))
ratios = sorted(a / max(b, 1) for a, b in zip(s['rounds'], h['rounds']))
print('single / hedged p99.99 by round: min %.2f / median %.2f / max %.2f' % (
    ratios[0], ratios[len(ratios) // 2], ratios[-1]))
print('every order counted: %d in each mode (%d a round)' % (s['count'], s['count'] // rounds))

# best of k: per trigger, the earliest of workers 0..k-1 (every round's
# triggers pooled); only triggers every worker reached count
n = int(nw)
lat = {}                       # (round, seq) -> [ns by worker]
wins = [0] * n
for r in range(1, rounds + 1):
    with open('%s/hedged.%d.claims.csv' % (out, r)) as f:
        next(f)
        for line in f:
            w, seq, ns, won = line.split(',')
            w = int(w)
            lat.setdefault((r, int(seq)), [None] * n)[w] = float(ns)
            wins[w] += int(won)
full = [v for v in lat.values() if None not in v]

def q(vals, p):
    return vals[min(len(vals) - 1, max(0, math.ceil(p / 100 * len(vals)) - 1))]

print('\nbest of k workers (trigger to order reached, ns; %d triggers every worker reached):' % len(full))
print('%-8s %10s %10s %10s %10s' % ('k', 'p50', 'p99', 'p99.9', 'p99.99'))
for k in range(1, n + 1):
    b = sorted(min(v[:k]) for v in full)
    print('%-8d %10.0f %10.0f %10.0f %10.0f' % (k, q(b, 50), q(b, 99), q(b, 99.9), q(b, 99.99)))
fastest = [0] * n
for v in full:
    fastest[v.index(min(v))] += 1
tw = sum(wins) or 1
print('share of wins (claims won): %s' % ' '.join('worker %d %.1f%%' % (i, 100 * wins[i] / tw) for i in range(n)))
print('share of being first to reach the order: %s' % ' '.join(
    'worker %d %.1f%%' % (i, 100 * fastest[i] / max(len(full), 1)) for i in range(n)))
PY
scripts/ccdf.sh "$out/hedge.png" single="$out/single.csv" \
	"hedged ($nw workers)=$out/hedged.csv" \
	--title "order latency from release deadline, $mb MB table, $pps frames/s" >/dev/null
echo "CCDF: $out/hedge.png (histograms: $out/single.csv, $out/hedged.csv)"
[ "$ncpu" -gt "$nw" ] ||
	echo "note: $ncpu CPUs for $nw workers + the control lcore: one worker shares its CPU with the control plane (it sleeps 1 ms at a time)."
echo "note: inside a VM, hypervisor preemption (tens of us) and not only DRAM refresh (~1 us) makes the tail."
