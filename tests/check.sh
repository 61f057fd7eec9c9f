#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check: install what is missing, then run every suite and close with
# the totals line "N passed, N failed" (skips on the line before it).
# tests/harness.sh says how each suite is counted and limited.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
mkdir -p "$build"
log=$build/check.log
: > "$log"
# Set, it would rewrite the golden files instead of comparing with them.
unset PMAPS_UPDATE_GOLDEN
# deps.sh installed every tool the tests use: a missing one fails them
# (tests/unit/tap.sh, lacks) instead of skipping them.
export PMAPS_CHECK=1

. "$top/tests/harness.sh"

# The limits are about three times what each suite takes on a 2-core
# machine with the packages installed (Documentation/reliability.rst):
# a hang costs minutes, never the whole CI run.
{
	# A full first run writes about 5 GB under build/ and installs about
	# 1 GB of packages (README.md, "make check"); with less free the
	# failures are ENOSPC, so say it first.
	free_mb=$(df -Pm "$build" | awk 'NR == 2 { print $4 }')
	if [ "$free_mb" -lt 6144 ]; then
		echo "# check.sh: $free_mb MB free for $build; a first run needs about 6 GB"
	fi
	if ! timeout -k 30 1800 "$top/tests/deps.sh"; then
		fail "tests/deps.sh failed"
	fi
	# The patched kernels build in the background at the lowest
	# priority, on what CPU the suites before them leave idle (about 8
	# of CI's 60 minutes when built in line); the kernel step waits for
	# it, and tests/kernel/run.sh builds whatever it did not.  The 7.x
	# source is fetched first: style.sh reads it too, and no two steps
	# may fetch it at once.
	prebuild=
	if "$top/tests/linux-source.sh" 7 >/dev/null; then
		timeout -k 30 2400 nice -n 19 "$top/tests/kernel/build.sh" \
			> "$build/prebuild.log" 2>&1 &
		prebuild=$!
	fi
	run unit 900 make -s -C "$top/tests/unit" run
	run unit-asan 900 make -s -C "$top/tests/unit" asan
	run unit-valgrind 1800 make -s -C "$top/tests/unit" valgrind
	check1 style_checkpatch 600 "$top/tests/style.sh"
	run dkms 900 "$top/tests/dkms.sh"
	run deb 600 "$top/tests/deb.sh"
	run fuzz 900 "$top/tests/fuzz/run.sh"
	run selftest 1200 "$top/tests/selftest/run.sh"
	# Faults the suites must catch (make mutants runs them all).
	run mutants 1800 "$top/tests/mutants/run.sh" --set check
	# The race stress runs 60 s on the debug kernel (tests/kernel/run.sh),
	# where KASAN and lockdep make a race show, and on the arm64 generic
	# one (tests/qemu/arm64.sh); 20 s on each Debian amd64 kernel, as on
	# the other patched ones: the minutes go to the arm64 guests.
	run qemu 1800 env STRESS_SECONDS=20 "$top/tests/qemu/run.sh"
	run qemu-arm64 1800 "$top/tests/qemu/arm64.sh"
	# Nodes need a guest with two: numa_test again, on the newest
	# bookworm generic kernel booted with QEMU_NUMA=1.
	run numa 900 env QEMU_NUMA=1 SUITES=/bin/numa_test \
		"$top/tests/qemu/run.sh" "$("$top/tests/kernels.sh" bookworm | sed -n 2p)"
	[ -n "$prebuild" ] && wait "$prebuild"
	run kernel 2400 "$top/tests/kernel/run.sh"
	# make bench is not judged here, but it must keep working.
	check1 bench_smoke 900 "$top/tests/bench/run.sh" --smoke
	# The host tests run three times (plain, ASan/UBSan, valgrind): say
	# how many of the results are repetitions, before the totals.
	results() {
		[ -f "$build/suite-$1.log" ] || { echo 0; return; }
		set -- $(awk -v main=1 -f "$top/tests/tap-count.awk" "$build/suite-$1.log")
		echo $(($1 + $2 + $3))
	}
	unit_n=$(results unit) repeats=$(($(results unit-asan) + $(results unit-valgrind)))
	echo "# $((passed + failed + skipped - repeats)) distinct tests; $unit_n host tests × 3 builds (plain, ASan/UBSan, valgrind) make $repeats of the results repetitions"
	totals
} 2>&1 | tee "$log"
# Documentation/reliability.rst shows the last full run; nothing is printed,
# so the totals line stays the last one.
"$top/tests/report.sh" "$log" > "$build/reliability.rst" 2>/dev/null &&
	cp "$build/reliability.rst" "$top/Documentation/reliability.rst"
tail -n 1 "$log" | grep -qx '[0-9]* passed, 0 failed'
