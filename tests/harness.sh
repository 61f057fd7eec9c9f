# SPDX-License-Identifier: GPL-2.0
#
# How make check counts, sourced by tests/check.sh and by the harness's
# self-test (tests/selftest/test_harness.sh), which must judge the same
# code.  Needs $top and $build.  Each suite prints TAP; its ok / not ok
# lines are what is counted, and a suite is also failed, once per fault,
# when it
#   - runs past its time limit (it is killed, with all it started: nothing
#     may hang make check),
#   - exits non-zero without a failing test line,
#   - has a TAP stream that disagrees with its plan (tests/tap-plan.awk),
#   - reports no result at all.
# A whole-suite "1..0 # SKIP" counts as one skip.

passed=0 failed=0 skipped=0

# fail TEXT: a fault of the harness's own finding, one "not ok" line.
fail() {
	echo "not ok - $1"
	failed=$((failed + 1))
}

# tally LOG: its results added to the counts (tests/tap-count.awk)
tally() {
	set -- $(awk -v main=1 -f "$top/tests/tap-count.awk" "$1")
	passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
}

# run NAME LIMIT COMMAND...: a suite that prints TAP, killed after LIMIT
# seconds (timeout signals its whole process group).
run() {
	name=$1 limit=$2
	shift 2
	echo "== $name"
	out=$build/suite-$name.log
	timeout -k 30 "$limit" "$@" > "$out" 2>&1
	status=$?
	# A suite killed midway breaks its plan: that is the one fault below.
	[ $status -eq 124 ] || [ $status -eq 137 ] ||
		awk -v suite="$name" -f "$top/tests/tap-plan.awk" "$out" >> "$out"
	cat "$out"
	tally "$out"
	if [ $status -eq 124 ] || [ $status -eq 137 ]; then
		fail "$name: killed after its limit of $limit s"
	elif [ $status -ne 0 ] && ! grep -qE '^not ok( |$)' "$out"; then
		fail "$name: exited $status"
	fi
	grep -qE '^(not )?ok( |$)|^1\.\.0 # SKIP' "$out" ||
		fail "$name: no test result at all"
}

# check1 NAME LIMIT COMMAND...: a single check reported as one TAP line.
check1() {
	name=$1 limit=$2
	shift 2
	if timeout -k 30 "$limit" "$@" > "$build/suite-$name.log" 2>&1; then
		echo "ok 1 $name"
		passed=$((passed + 1))
	else
		cat "$build/suite-$name.log"
		echo "not ok 1 $name"
		failed=$((failed + 1))
	fi
}

# totals: the closing lines; CI reads the last, which must be exactly
# "N passed, N failed".  A run in which nothing passed tested nothing.
totals() {
	[ "$passed" -gt 0 ] || fail "no test passed: the run tested nothing"
	echo "$skipped skipped"
	echo "$passed passed, $failed failed"
}
