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
# "NAME=SECONDS" of each step so far, for the closing lines: CI shows the
# head and the tail of a log, and where the minutes went must be in them.
times=
began=$(date +%s)

# begin NAME: say, now, how far into the run NAME starts, so that a run
# killed from outside still says it; sets start for timed.
begin() {
	start=$(date +%s)
	echo "# $1 starts $((start - began)) s into the run"
}

# timed NAME START [END]: NAME took from START to END (date +%s; now).
timed() {
	times="$times $1=$((${3:-$(date +%s)} - $2))"
}

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
	begin "$name"
	timeout -k 30 "$limit" "$@" > "$build/suite-$name.log" 2>&1
	judge "$name" "$limit" $? "$start"
}

# run_beside NAME LIMIT COMMAND...: run, but in the background, beside the
# steps after it, until joined NAME prints and counts it: for a suite that
# leaves a core idle.
run_beside() {
	name=$1 limit=$2
	shift 2
	begin "$name"
	echo "# $name runs beside the steps below; its results follow == $name"
	rm -f "$build/suite-$name.done"
	{
		timeout -k 30 "$limit" "$@" > "$build/suite-$name.log" 2>&1
		echo "$? $limit $start $(date +%s)" > "$build/suite-$name.done"
	} &
	echo $! > "$build/suite-$name.pid"
}

# joined NAME: wait for run_beside's NAME, then judge it as run does.
joined() {
	wait "$(cat "$build/suite-$1.pid")"
	echo "== $1"
	if ! read -r status limit start end < "$build/suite-$1.done"; then
		fail "$1: ended without an exit status"
		return
	fi
	judge "$1" "$limit" "$status" "$start" "$end"
}

# judge NAME LIMIT STATUS START [END]: a suite's log, $build/suite-NAME.log,
# printed and counted, with the faults the harness finds itself.
judge() {
	name=$1 limit=$2 status=$3
	out=$build/suite-$name.log
	timed "$name" "$4" ${5:+"$5"}
	# A suite killed midway breaks its plan: that is the one fault below.
	[ "$status" -eq 124 ] || [ "$status" -eq 137 ] ||
		awk -v suite="$name" -f "$top/tests/tap-plan.awk" "$out" >> "$out"
	cat "$out"
	tally "$out"
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		fail "$name: killed after its limit of $limit s"
	elif [ "$status" -ne 0 ] && ! grep -qE '^not ok( |$)' "$out"; then
		fail "$name: exited $status"
	fi
	grep -qE '^(not )?ok( |$)|^1\.\.0 # SKIP' "$out" ||
		fail "$name: no test result at all"
}

# check1 NAME LIMIT COMMAND...: a single check reported as one TAP line.
check1() {
	name=$1 limit=$2
	shift 2
	begin "$name"
	timeout -k 30 "$limit" "$@" > "$build/suite-$name.log" 2>&1
	status=$?
	timed "$name" "$start"
	if [ $status -eq 0 ]; then
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
	echo "# seconds per step:$times"
	echo "$skipped skipped"
	echo "$passed passed, $failed failed"
}
