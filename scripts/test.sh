#!/usr/bin/env bash
# Runs the whole hedgewire test suite and ends with "N passed, N failed,
# N skipped", each failure and each skip (with the reason it printed)
# named above that line.
#   1. set-up (packages, huge pages, build/ with gcc and -Dwerror=true),
#      then the packages only the tests need (TEST_PACKAGES below);
#   2. every test in build/: unit, end-to-end through DPDK vdevs, tshark;
#   3. build-san/ with clang, -Dwerror=true and ASan+UBSan: the unit tests
#      again, and the libFuzzer run of the feed decoder (HGW_FUZZ_SECONDS,
#      default 30, on every CPU);
#   4. build-arm64/: the DPDK-free libraries and their unit tests cross-built
#      for arm64 (config/aarch64-linux-gnu.ini) and run under qemu-user;
#   5. build-tsan/ with clang and ThreadSanitizer: the unit tests whose
#      threads share memory (meson suite 'threads').
# Exit status 0 only when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${HGW_FUZZ_SECONDS:-30}
passed=0 failed=0 skipped=0 failures="" skips=""

scripts/setup.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

# What only the tests need, beyond scripts/setup.sh's: clang, llvm and the
# compiler-rt libraries for build-san/ (ASan, UBSan, libFuzzer); tshark,
# the independent decoder of feed and order frames; gnuplot for the CCDF
# chart test (scripts/ccdf.sh); python3-prometheus-client, the independent
# parser of hgw-exporter's output; systemd, whose systemd-analyze verifies
# the units; the arm64 cross compiler and qemu-user for the arm64 stage;
# ip, ethtool, nft and ping for the venue session over hedgewire's own TCP
# (a network namespace behind a veth, loss by nftables). A test whose tool
# is missing says so.
TEST_PACKAGES=(clang llvm libclang-rt-14-dev tshark gnuplot-nox
	python3-prometheus-client systemd
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
	iproute2 ethtool nftables iputils-ping)
missing=()
for p in "${TEST_PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "test: not root: cannot install ${missing[*]} (run with sudo)"
	else
		echo "test: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q >/dev/null
		apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
			echo "test: could not install ${missing[*]}"
	fi
fi

# One failure that no meson run counts (a build's set-up or build).
fail_step() {
	echo "$1"
	failed=$((failed + 1))
	failures+="  $1"$'\n'
}

# skip_reasons BUILDDIR PREFIX: one line per test the last `meson test`
# in BUILDDIR skipped (exit 77), its name and the reason it printed (its
# last line starting "SKIP", else its last line), from the test log.
skip_reasons() {
	python3 - "$1/meson-logs/testlog.json" "$2" <<'PY'
import json, sys
try:
    lines = open(sys.argv[1]).read().splitlines()
except OSError as e:
    print("  %s(no test log: %s)" % (sys.argv[2], e.strerror))
    sys.exit(0)
for line in lines:
    t = json.loads(line)
    if t.get("result") != "SKIP":
        continue
    out = [l.strip() for l in ((t.get("stdout") or "") + "\n" +
           (t.get("stderr") or "")).splitlines() if l.strip()]
    said = [l for l in out if l.startswith("SKIP")]
    why = said[-1] if said else out[-1] if out else "no reason printed"
    print("  %s%s: %s" % (sys.argv[2], t["name"], why))
PY
}

# Adds the counts of one `meson test` run (its summary block) to the
# totals, and the names of what failed and what was skipped to theirs.
#   tally LOG PREFIX BUILDDIR
tally() {
	local log=$1 ok xfail fail upass skip tout
	ok=$(awk '/^Ok:/ {print $2}' "$log")
	xfail=$(awk '/^Expected Fail:/ {print $3}' "$log")
	fail=$(awk '/^Fail:/ {print $2}' "$log")
	upass=$(awk '/^Unexpected Pass:/ {print $3}' "$log")
	skip=$(awk '/^Skipped:/ {print $2}' "$log")
	tout=$(awk '/^Timeout:/ {print $2}' "$log")
	if [ -z "$ok" ]; then	# meson did not get as far as a summary
		failed=$((failed + 1))
		failures+="  $2meson test gave no summary"$'\n'
		return
	fi
	# the names of what failed, repeated just above the closing line
	# (--print-errorlogs lists each one twice: once kept)
	failures+=$(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|UNEXPECTEDPASS|ERROR) ' "$log" |
		sed -E 's/^ *[0-9]+\/[0-9]+ +//; s/ +(FAIL|TIMEOUT|UNEXPECTEDPASS|ERROR) .*/ \1/' |
		sed "s|^|  $2|" | awk '!seen[$0]++')$'\n'
	passed=$((passed + ok + ${xfail:-0}))
	failed=$((failed + ${fail:-0} + ${upass:-0} + ${tout:-0}))
	skipped=$((skipped + ${skip:-0}))
	[ "${skip:-0}" -eq 0 ] || skips+=$(skip_reasons "$3" "$2")$'\n'
}

log=$(mktemp /tmp/hgw-test.XXXXXX)
trap 'rm -f "$log"' EXIT

echo "== tests (gcc, release, -Dwerror=true)"
meson test -C build --print-errorlogs 2>&1 | tee "$log"
tally "$log" "build: " build

echo "== tests (clang, ASan+UBSan, fuzz ${FUZZ_SECONDS}s)"
if [ ! -f build-san/build.ninja ]; then
	CC=clang meson setup build-san -Dwerror=true -Dbuildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=true \
		-Dfuzz_seconds="$FUZZ_SECONDS" >/dev/null ||
		fail_step "build-san: meson setup failed"
else
	meson configure build-san -Dfuzz_seconds="$FUZZ_SECONDS" >/dev/null
fi
if [ -f build-san/build.ninja ] && ninja -C build-san >/dev/null; then
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	ASAN_OPTIONS=detect_leaks=1 \
		meson test -C build-san --print-errorlogs --suite unit --suite fuzz 2>&1 | tee "$log"
	tally "$log" "build-san: " build-san
else
	fail_step "build-san: clang/sanitizer build failed"
fi

echo "== tests (arm64: aarch64-linux-gnu-gcc, -Dwerror=true, qemu-user)"
if [ ! -f build-arm64/build.ninja ]; then
	meson setup build-arm64 --cross-file config/aarch64-linux-gnu.ini \
		-Dwerror=true >/dev/null || fail_step "build-arm64: meson setup failed"
fi
if [ -f build-arm64/build.ninja ] && ninja -C build-arm64 >/dev/null; then
	meson test -C build-arm64 --print-errorlogs --suite unit 2>&1 | tee "$log"
	tally "$log" "build-arm64: " build-arm64
else
	fail_step "build-arm64: arm64 cross build failed"
fi

echo "== tests (clang, ThreadSanitizer, suite threads)"
if [ ! -f build-tsan/build.ninja ]; then
	CC=clang meson setup build-tsan -Dwerror=true -Dbuildtype=debugoptimized \
		-Db_sanitize=thread -Db_lundef=false >/dev/null ||
		fail_step "build-tsan: meson setup failed"
fi
# Only what the 'threads' suite runs is built here, not the whole tree.
tsan_targets=$( [ -f build-tsan/build.ninja ] &&
	meson introspect build-tsan --tests | python3 -c '
import json, os, sys
print(" ".join(sorted({os.path.relpath(t["cmd"][0], "build-tsan")
	for t in json.load(sys.stdin)
	if any(s.endswith(":threads") for s in t["suite"])})))')
if [ -n "$tsan_targets" ] && ninja -C build-tsan $tsan_targets >/dev/null; then
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		meson test -C build-tsan --no-rebuild --print-errorlogs \
		--suite threads 2>&1 | tee "$log"
	tally "$log" "build-tsan: " build-tsan
else
	fail_step "build-tsan: ThreadSanitizer build failed"
fi

if [ -n "${failures//$'\n'/}" ]; then
	echo "== failed"
	printf '%s' "$failures" | grep .
fi
if [ -n "${skips//$'\n'/}" ]; then
	echo "== skipped (not passed)"
	printf '%s' "$skips" | grep .
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
