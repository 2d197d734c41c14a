#!/usr/bin/env bash
# What takes a worker's CPU: runs a command (a hedgewire run, or one of
# the benchmarks) with the kernel's sched_switch tracepoint on (tracefs,
# root), then lists the longest times a worker lcore thread (rte-worker-N)
# was taken off its CPU while it still wanted to run, and what ran there
# meanwhile. Needs no hardware counters.
#   tests/bench/preempt_trace.sh [-t MIN_US] [-n ROWS] COMMAND [ARGS...]
set -euo pipefail
min_us=200 rows=15
while getopts t:n: o; do
	case $o in
	t) min_us=$OPTARG ;;
	n) rows=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $min_us$rows in
*[!0-9]*) echo "$0: -t and -n take whole numbers (got -t '$min_us' -n '$rows')" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "usage: $0 [-t MIN_US] [-n ROWS] COMMAND [ARGS...]" >&2; exit 2; }
T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null ||
	{ echo "$0: no tracefs at $T (root needed)" >&2; exit 1; }
out=$(mktemp /tmp/hgw-trace.XXXXXX)
trap 'echo 0 >"$T/tracing_on"; echo 0 >"$T/events/sched/sched_switch/enable"; rm -f "$out"' EXIT
echo 0 >"$T/tracing_on"
echo >"$T/trace"
echo 65536 >"$T/buffer_size_kb"
echo 1 >"$T/events/sched/sched_switch/enable"
echo 1 >"$T/tracing_on"
rc=0
"$@" || rc=$?
echo 0 >"$T/tracing_on"
cat "$T/trace" >"$out"
python3 - "$out" "$min_us" "$rows" <<'PY'
import collections, re, sys
path, min_us, rows = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
rx = re.compile(r'\[(\d+)\].* (\d+\.\d+): sched_switch: prev_comm=(.*?) '
                r'prev_pid=\d+ .*prev_state=(\S+) ==> next_comm=(.*?) next_pid=')
cur, off, gaps, lost = {}, {}, [], 0
for line in open(path):
    if 'LOST' in line:
        lost += 1
    m = rx.search(line)
    if not m:
        continue
    cpu, t, prev, state, nxt = m.groups()
    t = float(t)
    if cpu in cur:          # what just ran on this cpu, for whoever waits
        c, since = cur[cpu]
        for w, (t0, wcpu, ran) in off.items():
            if wcpu == cpu and c != w:
                ran[c] += (t - since) * 1e6
    # preempted while runnable (R): it wanted the cpu
    if prev.startswith('rte-worker') and state.startswith('R'):
        off[prev] = (t, cpu, collections.Counter())
    if nxt in off:
        t0, wcpu, ran = off.pop(nxt)
        if (t - t0) * 1e6 >= min_us:
            gaps.append(((t - t0) * 1e6, nxt, wcpu, ran.most_common(3)))
    cur[cpu] = (nxt, t)
by = collections.Counter()
for d, w, cpu, ran in gaps:
    for c, us in ran:
        by[c] += us
print('worker threads taken off their cpu for %.0f us or more: %d times' % (min_us, len(gaps)))
for d, w, cpu, ran in sorted(gaps, reverse=True)[:rows]:
    print('  %8.0f us  %-13s cpu %s  ran: %s' % (
        d, w, cpu, ', '.join('%s %.0f us' % x for x in ran)))
if by:
    print('in those times, by thread: ' +
          ', '.join('%s %.0f us' % x for x in by.most_common(8)))
if lost:
    print('(the trace buffer overflowed: some switches are missing)')
PY
exit $rc
