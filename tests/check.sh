#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check: install what is missing, then run the suites and close with
# the totals line "N passed, N failed" (skips on the line before it).
# tests/harness.sh says how each suite is counted and limited.
#
#   tests/check.sh          make check: every kind of test, on the kernel
#                           lines that matter most, in under 40 minutes
#                           on 2 cores from a fresh machine (README.md)
#   tests/check.sh --all    make check-all: the whole matrix, every kernel
#                           line and patched config, valgrind, NUMA, the
#                           16 KiB guest, the full race stress and every
#                           mutant; it rewrites Documentation/reliability.rst
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
mkdir -p "$build"
all=
[ "${1:-}" = --all ] && all=1
log=$build/check${all:+-all}.log
: > "$log"
# Set, it would rewrite the golden files instead of comparing with them.
unset PMAPS_UPDATE_GOLDEN
# deps.sh installed every tool the tests use: a missing one fails them
# (tests/unit/tap.sh, lacks) instead of skipping them.
export PMAPS_CHECK=1
# Which kernel lines every script below finds (tests/kernels.sh).
if [ -n "$all" ]; then
	export PMAPS_MATRIX=all
else
	export PMAPS_MATRIX=check
fi

. "$top/tests/harness.sh"

# What make check runs where, and why (make check-all runs all of it on
# every line):
# - amd64 guests: 6.1 and 7.x generic, the oldest and newest lines
#   (classic LRU and mmap_lock; MGLRU and per-VMA locks), and 6.12 rt
#   (PREEMPT_RT's sleeping locks, and the 6.12 API); arm64: the generic
#   7.x kernel, 4 KiB pages.  The race stress runs 5 s on each: its exit
#   and churn tests run whatever the length, and check-all runs 60 s.
# - resources (kernel memory per open file, lock hold, latency under a
#   reader, every read size) runs on the three amd64 guests, one per lock
#   the module reads under, and against /proc/PID/pmaps on the patched
#   kernel; check-all runs it on arm64 and 16 KiB pages too.
# - one patched kernel, nopagemapcount: no per-page mapcounts and mTHP,
#   which no Debian kernel has, with kmemleak; check-all builds plain,
#   debug (KASAN, lockdep, MGLRU) and numa (two nodes) as well.
# - the mutants marked check, on the 7.x generic kernel in one guest.
omit_check='*-arm64:/bin/resources patched-*:/bin/resources'
stress=5
# The limits of the steps that boot or build kernels: make check-all's
# run them on every line, with the full stress; three times what they
# took in its run of f5f71c3 (prebuild 2273 s, kernel 1891 s, qemu
# 2296 s, qemu-arm64 1488 s).
prebuild_limit=3600 kernel_limit=3600 qemu_limit=3600 qemu_arm64_limit=3600
if [ -n "$all" ]; then
	omit_check= stress=60
	prebuild_limit=7200 kernel_limit=6000 qemu_limit=7200
	qemu_arm64_limit=4800
fi

# The lanes of make check, beside the main one below.  Each step's limit
# is at least three times what it took in the run
# Documentation/reliability.rst shows ("Time limits"), measured with
# everything beside it.
#
# kernel: the kernels, the trixie root and the 7.x source (deps.sh
# roots), then the patched kernel, built beside the other lanes as soon
# as its source is there: the main lane boots it after the mutants.
kernel_lane() {
	step1 roots 1800 "$top/tests/deps.sh" roots
	step1 prebuild $prebuild_limit "$top/tests/kernel/build.sh"
}
# guests: the Debian kernels' guests, one after another (each keeps
# about one core busy); the main lane boots the patched kernel's.
guest_lane() {
	await roots
	step qemu $qemu_limit env STRESS_SECONDS=$stress OMIT_SUITES="$omit_check" \
		"$top/tests/qemu/run.sh"
	step qemu-arm64 $qemu_arm64_limit env STRESS_SECONDS=$stress OMIT_SUITES="$omit_check" \
		"$top/tests/qemu/arm64.sh"
	if [ -n "$all" ]; then
		# Nodes need a guest with two: numa_test again, on the
		# newest bookworm generic kernel booted with QEMU_NUMA=1.
		step numa 900 env QEMU_NUMA=1 SUITES=/bin/numa_test \
			"$top/tests/qemu/run.sh" "$("$top/tests/kernels.sh" bookworm | sed -n 2p)"
	fi
}

{
	# A full first run writes about 5 GB under build/ and installs about
	# 1 GB of packages (README.md, "make check"); with less free the
	# failures are ENOSPC, so say it first.
	free_mb=$(df -Pm "$build" | awk 'NR == 2 { print $4 }')
	if [ "$free_mb" -lt 6144 ]; then
		echo "# check.sh: $free_mb MB free for $build; a first run needs about 6 GB"
	fi
	# The host's packages first: every lane needs them.
	check1 deps 1800 "$top/tests/deps.sh" host
	lane kernel_lane
	lane guest_lane
	# The main lane: the host suites (which need no root), then what
	# needs the roots and the 7.x source.
	run unit 900 make -s -C "$top/tests/unit" run
	run unit-asan 900 make -s -C "$top/tests/unit" asan
	if [ -n "$all" ]; then
		run unit-valgrind 5400 make -s -C "$top/tests/unit" valgrind
	fi
	run fuzz 900 "$top/tests/fuzz/run.sh"
	judged roots
	check1 style_checkpatch 600 "$top/tests/style.sh"
	run dkms 900 "$top/tests/dkms.sh"
	run deb 1200 "$top/tests/deb.sh"
	run selftest 1800 "$top/tests/selftest/run.sh"
	# Faults the suites must catch.
	run mutants 2400 "$top/tests/mutants/run.sh" --set "$([ -n "$all" ] && echo full || echo check)"
	# The patched kernel's guest and the bench here, beside the guest
	# lane's: in a run with them at its end, the main lane had ended
	# 500 s before it, leaving a core idle.
	judged prebuild
	run kernel $kernel_limit env OMIT_SUITES="$omit_check" "$top/tests/kernel/run.sh"
	# make bench is not judged here, but it must keep working.  It boots
	# the 7.x guest in build/ as the guest lane does: after it.
	await qemu
	check1 bench_smoke 900 "$top/tests/bench/run.sh" --smoke
	judged qemu
	judged qemu-arm64
	[ -n "$all" ] && judged numa
	# The host tests run twice (plain, ASan/UBSan; valgrind a third time
	# in check-all): say how many of the results are repetitions, before
	# the totals.
	results() {
		[ -f "$build/suite-$1.log" ] || { echo 0; return; }
		set -- $(awk -v main=1 -f "$top/tests/tap-count.awk" "$build/suite-$1.log")
		echo $(($1 + $2 + $3))
	}
	unit_n=$(results unit)
	repeats=$(results unit-asan)
	[ -n "$all" ] && repeats=$((repeats + $(results unit-valgrind)))
	echo "# $((passed + failed + skipped - repeats)) distinct tests; the $unit_n host tests ran again under ASan/UBSan${all:+ and valgrind}: $repeats of the results are repetitions"
	totals
} 2>&1 | tee "$log"
# The report of the run: Documentation/reliability.rst is make
# check-all's, the whole matrix; make check's stays in build/.  Nothing is
# printed, so the totals line stays the last one.
"$top/tests/report.sh" "$log" > "$build/reliability${all:+-all}.rst" 2>/dev/null &&
	if [ -n "$all" ]; then
		cp "$build/reliability-all.rst" "$top/Documentation/reliability.rst"
	fi
tail -n 1 "$log" | grep -qx '[0-9]* passed, 0 failed'
