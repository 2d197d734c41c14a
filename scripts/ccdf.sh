#!/usr/bin/env bash
# Draws latency CCDFs, several runs on one chart (single vs hedged, say),
# from the CSV files hgw_hist_write_csv writes (value,count,cumulative,ccdf):
#   scripts/ccdf.sh OUT.png LABEL=FILE.csv [LABEL=FILE.csv ...]
#                   [--title TITLE] [--unit UNIT] [--points FILE]
# x is the latency (log scale, in UNIT, default ns; tics with SI prefixes,
# 10k = 10000, 100m = 0.1); y is the percentile
# "in nines", -log10(fraction above), drawn linearly and labelled 0%, 90%,
# 99%, 99.9%... as HdrHistogram plots do. Each run is a step line that
# reads exactly as hgw_hist_percentile reports: at percentile p, the
# highest value of the bucket holding it. The last row (ccdf 0, the max)
# is drawn at log10(count) nines, the top of that run's curve, rather
# than dropped; rows with value 0 cannot sit on a log axis and are left
# out of the line (their samples still count below everything else).
# --points FILE also writes the points drawn, "LABEL<tab>value<tab>nines"
# a line, to check the chart by numbers.
# Needs gnuplot (Debian: gnuplot-nox); $GNUPLOT names another binary.
# Prints the path of the PNG. Errors are one line on stderr, exit 1
# (2 for bad usage).
set -euo pipefail

me=ccdf.sh
die() { echo "$me: $*" >&2; exit 1; }
usage() {
	echo "usage: $me OUT.png LABEL=FILE.csv [LABEL=FILE.csv ...] [--title T] [--unit U] [--points FILE]" >&2
	exit 2
}
# A gnuplot single-quoted string: only ' needs escaping, as ''.
gpq() { printf "'%s'" "${1//\'/\'\'}"; }

out="" title="latency CCDF" unit="ns" points=""
labels=() files=()
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage ;;
	--title) [ $# -ge 2 ] || usage; title=$2; shift 2 ;;
	--title=*) title=${1#--title=}; shift ;;
	--unit) [ $# -ge 2 ] || usage; unit=$2; shift 2 ;;
	--unit=*) unit=${1#--unit=}; shift ;;
	--points) [ $# -ge 2 ] || usage; points=$2; shift 2 ;;
	--points=*) points=${1#--points=}; shift ;;
	-*) echo "$me: unknown option $1 (--help for usage)" >&2; exit 2 ;;
	*)
		if [ -z "$out" ]; then
			out=$1
		else
			case $1 in
			?*=?*) labels+=("${1%%=*}"); files+=("${1#*=}") ;;
			*) die "run '$1' is not LABEL=FILE.csv" ;;
			esac
		fi
		shift ;;
	esac
done
if [ -z "$out" ] || [ ${#files[@]} -eq 0 ]; then
	usage
fi

gnuplot=${GNUPLOT:-gnuplot}
command -v "$gnuplot" >/dev/null 2>&1 ||
	die "gnuplot not found ($gnuplot); install it: apt-get install gnuplot-nox"
for f in "${files[@]}"; do
	[ -f "$f" ] || die "no such file: $f"
	[ -r "$f" ] || die "cannot read $f"
done
outdir=$(dirname -- "$out")
[ -d "$outdir" ] || die "no such directory for the PNG: $outdir"

work=$(mktemp -d /tmp/hgw-ccdf.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Each CSV to "value nines" points, checked on the way: the header, four
# numeric fields, cumulative rising by count. The first point is the
# first plotted value at the nines below it, so the step starts there.
ymax=1
for i in "${!files[@]}"; do
	f=${files[$i]}
	top=$(awk -F, -v out="$work/$i.dat" -v f="$f" '
		function bad(why) { printf "%s:%d: %s\n", f, NR, why; err = 1; exit 1 }
		BEGIN { prev = 0 }
		NR == 1 {
			sub(/\r$/, "")
			if ($0 != "value,count,cumulative,ccdf")
				bad("not a hgw_hist_write_csv file (header \"" $0 "\")")
			next
		}
		/^[ \t\r]*$/ { next }
		{
			sub(/\r$/, "")
			if (NF != 4) bad("expected 4 fields, got " NF)
			for (k = 1; k <= 4; k++)
				if ($k !~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/) bad("not a number: " $k)
			if ($3 + 0 != prev + $2) bad("cumulative " $3 " is not " prev " + " $2)
			n++; val[n] = $1 + 0; cum[n] = $3 + 0; prev = $3 + 0
		}
		END {
			if (err) exit 1
			if (n == 0 || prev <= 0) { printf "%s: no samples\n", f; exit 1 }
			total = prev; cap = log(total) / log(10); below = 0; started = 0
			for (k = 1; k <= n; k++) {
				above = total - cum[k]
				y = above > 0 ? -log(above / total) / log(10) : cap
				if (val[k] > 0) {
					if (!started) printf "%.15g %.9g\n", val[k], below > out
					printf "%.15g %.9g\n", val[k], y > out
					started = 1
				}
				below = y
			}
			if (!started) { printf "%s: every value is 0, nothing to draw on a log axis\n", f; exit 1 }
			printf "%.9g\n", cap
		}' "$f") || die "${top:-$f: unreadable}"
	ymax=$(awk -v a="$ymax" -v b="$top" 'BEGIN {
		c = int(b); if (c < b - 1e-9) c++; print (c > a ? c : a) }')
done

if [ -n "$points" ]; then
	for i in "${!files[@]}"; do
		L=${labels[$i]} awk '{ print ENVIRON["L"] "\t" $1 "\t" $2 }' "$work/$i.dat"
	done >"$points" || die "cannot write $points"
fi

# Percentile tics: n nines is 100 - 10^(2-n) percent. gnuplot reads a
# tic label as a format, hence %%.
ytics=""
for ((n = 0; n <= ymax; n++)); do
	case $n in
	0) l="0%%" ;;
	1) l="90%%" ;;
	2) l="99%%" ;;
	*) l="99.$(printf '9%.0s' $(seq 3 "$n"))%%" ;;
	esac
	ytics+="${ytics:+, }\"$l\" $n"
done

if "$gnuplot" -e 'set terminal pngcairo' >/dev/null 2>&1; then
	term="pngcairo size 1000,600 noenhanced"
else
	term="png size 1000,600 noenhanced"
fi

# Line colours in run order: gnuplot's own first eight, named so that a
# run keeps its colour from chart to chart (and a test can find it).
colors=(9400d3 009e73 56b4e9 e69f00 f0e442 0072b2 e51e10 000000)
plot=""
for i in "${!files[@]}"; do
	plot+="${plot:+, }$(gpq "$work/$i.dat") using 1:2 with steps lw 2"
	plot+=" lc rgb '#${colors[i % ${#colors[@]}]}' title $(gpq "${labels[$i]}")"
done

cat >"$work/plot.gp" <<EOF
set terminal $term
set output $(gpq "$out")
set title $(gpq "$title")
set xlabel $(gpq "latency ($unit)")
set ylabel 'percentile'
set logscale x
set format x '%.0s%c'
set yrange [0:$ymax]
set ytics ($ytics)
unset mytics
set grid xtics ytics mxtics
set key bottom right box opaque
plot $plot
EOF

if ! err=$("$gnuplot" "$work/plot.gp" 2>&1); then
	die "gnuplot failed: $(printf '%s' "$err" | grep -m1 -v '^ *$' || true)"
fi
[ -s "$out" ] || die "gnuplot wrote nothing to $out"
echo "$out"
