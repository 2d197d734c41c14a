#!/usr/bin/env bash
# hedgewire --check (host preflight) and hgw-stalls.
#   check.sh HEDGEWIRE HGW_STALLS SRCDIR SCENARIO   (host | sysroot | stalls)
# host:    this machine with conf/demo.ini: every item named once with ok,
#          warn or fail, the summary agrees, exit status 1 iff a fail;
#          too few lcores for the workers is a fail.
# sysroot: planted /proc, /sys and /etc trees (HGW_SYSROOT) with known
#          answers: all ok; each item warns; lcores and tsc fail.
# stalls:  hgw-stalls for 1 s: sane text, JSON that parses; bad options.
HEDGEWIRE=$1 STALLS=$2 SRCDIR=$3 SCENARIO=$4
FEEDGEN=/bin/false
. "$SRCDIR/tests/integration/common.sh"

ITEMS="lcores ports isolcpus nohz_full rcu_nocbs governor turbo smt
irq_affinity thp damon hugepages numa tsc skew_tick stalls"

# check [EAL lcores] [app args...]: hedgewire --check on net_null0 with
# conf/demo.ini; output in $T/out, status in $rc.
check() {
	local lcores=$1; shift
	rc=0
	run_hw "$lcores" net_null0 -c "$SRCDIR/conf/demo.ini" --check "$@" || rc=$?
}

# Every item exactly once, with a status; the summary line counts them;
# the exit status is 1 iff one failed.
check_shape() {
	local name n ok warn fails
	for name in $ITEMS; do
		n=$(grep -cE "^$name +(ok|warn|fail)  " "$T/out" || true)
		expect_eq "lines for item $name" "$n" 1
	done
	n=$(grep -cE '^[a-z_]+ +(ok|warn|fail)  ' "$T/out" || true)
	expect_eq "item lines" "$n" "$(echo $ITEMS | wc -w)"
	# a warn or fail line says the fix
	n=$(grep -E '^[a-z_]+ +(warn|fail)  ' "$T/out" | grep -vc '; fix: ' || true)
	expect_eq "warn/fail lines without a fix" "$n" 0
	ok=$(grep -cE '^[a-z_]+ +ok  ' "$T/out" || true)
	warn=$(grep -cE '^[a-z_]+ +warn  ' "$T/out" || true)
	fails=$(grep -cE '^[a-z_]+ +fail  ' "$T/out" || true)
	grep -qx "check: $ok ok, $warn warn, $fails fail" "$T/out" ||
		fail "summary does not match the items: $(grep '^check:' "$T/out")"
	if [ "$fails" -gt 0 ]; then
		expect_eq "exit status with $fails fail(s)" "$rc" 1
	else
		expect_eq "exit status with no fail" "$rc" 0
	fi
	# it trades nothing: no run summary
	! grep -q '^packets\|^worker 0 lcore' "$T/out" || fail "--check ran the data path"
}

status_of() {	# item -> ok|warn|fail
	awk -v k="$1" '$1 == k { print $2; exit }' "$T/out"
}

expect_items() {	# STATUS item...
	local want=$1 name; shift
	for name in "$@"; do
		expect_eq "item $name ($(grep "^$name " "$T/out"))" \
			"$(status_of "$name")" "$want"
	done
}

# plant DIR KIND: a host tree for lcores 0 (control) and 1 (worker 0).
#   good: everything as it should be
#   bad:  every item that can warn does
plant() {
	local d=$1 kind=$2 c
	mkdir -p "$d/proc/irq/24" "$d/proc/irq/25" "$d/sys/kernel/mm/transparent_hugepage" \
		"$d/sys/kernel/mm/hugepages/hugepages-2048kB" "$d/etc/sysctl.d" \
		"$d/sys/devices/system/cpu/intel_pstate"
	for c in 0 1 3; do
		mkdir -p "$d/sys/devices/system/cpu/cpu$c/cpufreq" \
			"$d/sys/devices/system/cpu/cpu$c/topology" \
			"$d/sys/devices/system/cpu/cpu$c/node0"
	done
	echo 0-3 >"$d/sys/devices/system/cpu/online"
	echo 512 >"$d/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
	echo "processor	: 0" >"$d/proc/cpuinfo"
	echo "flags		: fpu tsc msr constant_tsc rep_good nopl nonstop_tsc cpuid" >>"$d/proc/cpuinfo"
	if [ "$kind" = good ]; then
		echo "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=managed_irq,domain,1,3 nohz_full=1 rcu_nocbs=1 skew_tick=1 hugepages=512 quiet" >"$d/proc/cmdline"
		echo 1,3 >"$d/sys/devices/system/cpu/isolated"
		echo 1 >"$d/sys/devices/system/cpu/nohz_full"
		for c in 0 1 3; do echo performance >"$d/sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor"; done
		echo 1 >"$d/sys/devices/system/cpu/intel_pstate/no_turbo"
		echo 0 >"$d/proc/irq/24/smp_affinity_list"
		echo 0,2 >"$d/proc/irq/25/smp_affinity_list"
		echo "always madvise [never]" >"$d/sys/kernel/mm/transparent_hugepage/enabled"
	else
		# the parameters after "--" are init's, not the kernel's
		echo "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet -- skew_tick=1 nohz_full=1" >"$d/proc/cmdline"
		echo >"$d/sys/devices/system/cpu/isolated"
		for c in 0 1 3; do echo powersave >"$d/sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor"; done
		echo 0 >"$d/sys/devices/system/cpu/intel_pstate/no_turbo"
		echo 0 >"$d/proc/irq/24/smp_affinity_list"
		echo 0-3 >"$d/proc/irq/25/smp_affinity_list"
		echo "[always] madvise never" >"$d/sys/kernel/mm/transparent_hugepage/enabled"
		mkdir -p "$d/sys/kernel/mm/damon/admin/kdamonds/0"
		echo 1 >"$d/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
		echo on >"$d/sys/kernel/mm/damon/admin/kdamonds/0/state"
		echo "vm.nr_hugepages = 0" >"$d/etc/sysctl.d/10-zero.conf"
	fi
	echo 0,2 >"$d/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"
	echo 1,3 >"$d/sys/devices/system/cpu/cpu1/topology/thread_siblings_list"
	echo 1,3 >"$d/sys/devices/system/cpu/cpu3/topology/thread_siblings_list"
}

case $SCENARIO in
host)
	check -l0-1 --check-stall-ms 300
	check_shape
	echo "  this host ($(grep '^check:' "$T/out")):"
	grep -E '^[a-z_]+ +(ok|warn|fail)  ' "$T/out" | cut -c1-100 | sed 's/^/    /'
	# the stall run measured the worker's cpu
	grep -Eq '^stalls +(ok|warn)  300 ms on worker cpus 1: cpu 1 [0-9]+/s' "$T/out" ||
		fail "no stall measurement on cpu 1: $(grep '^stalls' "$T/out")"
	grep -q '^  cpu 1: [0-9]* stalls' "$T/out" || fail "no stall report"
	# more workers than lcores: the check fails, says why, exit 1
	check -l0-1 --check-stall-ms 0 --set run.workers=2
	check_shape
	expect_items fail lcores
	grep -q '^lcores .*workers = 2 needs 2 lcores besides the main one; the EAL has 1' "$T/out" ||
		fail "lcores fail does not say why: $(grep '^lcores' "$T/out")"
	# a worker lcore on a cpu this host does not have: the EAL refuses
	# it before the check can run; the exit status still says so
	n=$(nproc --all)
	check "-l0,$n" --check-stall-ms 0
	[ "$rc" -ne 0 ] || fail "--check with lcore $n (not on this host) exited 0"
	grep -q "lcore $n unavailable" "$T/err" || fail "lcore $n: $(tail -3 "$T/err")"
	grep -q "^hedgewire: EAL init failed" "$T/err" || fail "lcore $n: $(tail -1 "$T/err")"
	# two workers sharing a cpu: a warn
	check --lcores=0@0,1@1,2@1 --check-stall-ms 0 --set run.workers=2
	check_shape
	expect_items warn lcores
	# a bad duration: one line, exit 2
	check -l0-1 --check-stall-ms 70000
	expect_eq "exit status for --check-stall-ms 70000" "$rc" 2
	grep -qx "hedgewire: bad value for --check-stall-ms: '70000'" "$T/err" ||
		fail "bad --check-stall-ms: $(cat "$T/err")"
	echo "PASS: hedgewire --check on this host"
	;;
sysroot)
	plant "$T/good" good
	HGW_SYSROOT=$T/good check -l0-1 --check-stall-ms 0
	check_shape
	expect_items ok $ITEMS
	echo "  planted good host: every item ok, exit 0"
	grep -q "host files under $T/good" "$T/out" || fail "the header does not name the root"

	plant "$T/bad" bad
	HGW_SYSROOT=$T/bad check -l0-1 --check-stall-ms 0
	check_shape
	expect_items warn isolcpus nohz_full rcu_nocbs governor turbo smt \
		irq_affinity thp damon hugepages skew_tick
	expect_items ok lcores ports numa tsc stalls
	grep -q '^irq_affinity .*1 of 2 IRQs may go to cpus 1: 25 (0-3)' "$T/out" ||
		fail "irq_affinity: $(grep '^irq_affinity' "$T/out")"
	grep -q '^smt .*cpu 3, the SMT sibling of cpu 1 (worker 0), is not isolated' "$T/out" ||
		fail "smt: $(grep '^smt' "$T/out")"
	echo "  planted bad host: every item that can warn warns, exit 0"

	# each warn turned back to ok by the other way of fixing it
	plant "$T/alt" bad
	echo "BOOT_IMAGE=/vmlinuz isolcpus=1,3 nohz_full=1 skew_tick=1" >"$T/alt/proc/cmdline"
	echo "# reserved at boot" >"$T/alt/etc/sysctl.d/80-hugepages.conf"
	echo " vm.nr_hugepages=1024" >>"$T/alt/etc/sysctl.d/80-hugepages.conf"
	echo "always [madvise] never" >"$T/alt/sys/kernel/mm/transparent_hugepage/enabled"
	echo off >"$T/alt/sys/kernel/mm/damon/admin/kdamonds/0/state"
	rm "$T/alt/sys/devices/system/cpu/intel_pstate/no_turbo"
	mkdir -p "$T/alt/sys/devices/system/cpu/cpufreq"
	echo 0 >"$T/alt/sys/devices/system/cpu/cpufreq/boost"
	echo 0 >"$T/alt/proc/irq/25/smp_affinity_list"
	for c in 0 1 3; do echo performance >"$T/alt/sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor"; done
	HGW_SYSROOT=$T/alt check -l0-1 --check-stall-ms 0
	check_shape
	expect_items ok $ITEMS
	grep -q '^rcu_nocbs .*nohz_full implies it' "$T/out" || fail "rcu_nocbs: $(grep '^rcu_nocbs' "$T/out")"
	grep -q '^hugepages .*80-hugepages.conf' "$T/out" || fail "hugepages: $(grep '^hugepages' "$T/out")"
	echo "  planted host fixed the other way (sysfs, sysctl.d, boost): every item ok"

	# failures: the worker's cpu is not online; no invariant TSC
	plant "$T/fail" good
	echo 0 >"$T/fail/sys/devices/system/cpu/online"
	HGW_SYSROOT=$T/fail check -l0-1 --check-stall-ms 0
	check_shape
	expect_items fail lcores
	grep -q '^lcores .*cpu 1, which this host does not have online (online: 0)' "$T/out" ||
		fail "lcores: $(grep '^lcores' "$T/out")"
	plant "$T/fail2" good
	sed -i 's/ nonstop_tsc//' "$T/fail2/proc/cpuinfo"
	HGW_SYSROOT=$T/fail2 check -l0-1 --check-stall-ms 0
	check_shape
	expect_items fail tsc
	expect_items ok lcores isolcpus skew_tick
	# the stall run does not start on a cpu the lcores item refused
	HGW_SYSROOT=$T/fail check -l0-1 --check-stall-ms 100
	check_shape
	expect_items fail lcores stalls
	echo "PASS: planted hosts give the expected ok/warn/fail for every item"
	;;
stalls)
	out=$("$STALLS" --cpus 0,1 --seconds 1) || fail "hgw-stalls exited $?"
	echo "$out" | sed 's/^/    /' | cut -c1-120
	for c in 0 1; do
		line=$(echo "$out" | grep "^cpu $c: [0-9]* stalls") || fail "no line for cpu $c"
		echo "$line" | grep -Eq "^cpu $c: [0-9]+ stalls, [0-9.]+/s, p50 [0-9.]+ us, p99 [0-9.]+ us, max [0-9.]+ us, [0-9.]+% overlap" ||
			fail "cpu $c line: $line"
		echo "$out" | grep -q "^cpu $c: periods" || fail "no periods for cpu $c"
		echo "$out" | grep -q "^cpu $c: intervals" || fail "no intervals for cpu $c"
	done
	echo "$out" | grep -q '^advice: ' || fail "no advice"
	"$STALLS" --cpus 0,1 --seconds 1 --threshold-ns 2000 --json >"$T/s.json" ||
		fail "hgw-stalls --json exited $?"
	python3 - "$T/s.json" <<'PY' || fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["threshold_ns"] == 2000 and d["seconds"] == 1.0, d
assert [c["cpu"] for c in d["cpus"]] == [0, 1], d["cpus"]
for c in d["cpus"]:
    n = c["stalls"]
    assert abs(c["per_second"] - n) < 1e-6, c
    assert n == 0 or 2000 < c["p50_ns"] <= c["p99_ns"] <= c["max_ns"], c
    assert 0 <= c["overlap_share"] <= 1 and c["overlapped"] <= n, c
    assert c["stalled_ns"] >= n * 2000, c
    assert sum(b["count"] for b in c["intervals"]) == max(n - c["not_recorded"] - 1, 0), c
    for p in c["periods"]:
        assert 450000 <= p["period_ns"] <= 20100000 and 0 < p["share"] <= 1, p
print("  json: %s" % ", ".join("cpu %d %d stalls %.0f%% overlapping" % (c["cpu"], c["stalls"], 100 * c["overlap_share"]) for c in d["cpus"]))
PY
	# bad options: one line naming it, exit 2
	for bad in "--cpus 4096" "--cpus 0,0" "--cpus 1-0" "--cpus x" \
		   "--seconds 0" "--threshold-ns 10"; do
		# shellcheck disable=SC2086
		rc=0
		"$STALLS" $bad >"$T/o" 2>"$T/e" || rc=$?
		expect_eq "exit status for $bad" "$rc" 2
		expect_eq "error lines for $bad" "$(wc -l <"$T/e")" 1
		grep -q "^hgw-stalls: " "$T/e" || fail "error for $bad: $(cat "$T/e")"
	done
	# a cpu this host does not have
	n=$(nproc --all)
	if "$STALLS" --cpus "$n" --seconds 1 >"$T/o" 2>"$T/e"; then fail "accepted cpu $n"; fi
	grep -q "cpu $n is not online" "$T/e" || fail "cpu $n: $(cat "$T/e")"
	echo "PASS: hgw-stalls"
	;;
*)
	fail "unknown scenario $SCENARIO"
	;;
esac
