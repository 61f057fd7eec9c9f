#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/table.awk judges a target on times only where the guest's
# clock measures them: a guest on jiffies or refined-jiffies (its TSC
# calibration failed under TCG) times in steps of a tick, so those
# targets are not judged and the table says why; targets on bytes still
# are.  tests/bench/plot.awk does not draw such a guest's series and says
# so.  Prints TAP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# records KERNEL CLOCK: a guest's records (tests/guest/bench.c) where the
# module reads dense in 0.6 x smaps's time, 24 bytes a range line.
records() {
	printf 'kernel\t%s\n' "$1"
	[ -n "$2" ] && printf 'clock\t%s\n' "$2"
	printf 'reader\tmodule\tcat /proc/pmaps_ext/PID\n'
	printf 'reader\tsmaps\tcat /proc/PID/smaps\n'
	printf 'workload\tdense\t512 MiB anonymous, all written\n'
	printf 'row\tdense\tmodule\t60000000\t5\t2400\t100\t100\t2400\n'
	printf 'row\tdense\tsmaps\t100000000\t5\t9000\t300\t0\t0\n'
	printf 'scale\tdense\tmodule\t16384\t20000000\n'
	printf 'scale\tdense\tmodule\t32768\t40000000\n'
}
table() {
	run awk -f "$top/tests/bench/table.awk" "$@"
}

records tsc-kernel tsc > "$tmp/tsc.tsv"
records tick-kernel refined-jiffies > "$tmp/tick.tsv"
records old-kernel "" > "$tmp/old.tsv"

table "$tmp/tsc.tsv"
grep -qx 'target dense: module <= 0.7 x smaps: 0.60 x: holds' "$tmp/out" &&
	! grep -q '^clock:' "$tmp/out"
result tsc_clock_judged

table "$tmp/tick.tsv"
grep -qx 'target dense: module <= 0.7 x smaps: 0.60 x: not judged (clock refined-jiffies)' "$tmp/out" &&
	grep -qx 'clock: refined-jiffies, in steps of a tick: times and ratios are not measurements, targets on times not judged' "$tmp/out"
result tick_clock_not_judged

grep -qx 'target output: module at most 40 bytes per range line: 24.0 at most: holds' "$tmp/out"
result tick_clock_bytes_still_judged

# The judgement is per kernel: a ticking guest before a measured one.
table "$tmp/tick.tsv" "$tmp/tsc.tsv"
[ "$(grep -c '^target dense: .*: not judged (clock refined-jiffies)$' "$tmp/out")" = 1 ] &&
	[ "$(grep -c '^target dense: .*: holds$' "$tmp/out")" = 1 ]
result clock_judged_per_kernel

# Records from before the clock line: judged, as they were.
table "$tmp/old.tsv"
grep -qx 'target dense: module <= 0.7 x smaps: 0.60 x: holds' "$tmp/out"
result records_without_clock_judged

awk -f "$top/tests/bench/plot.awk" "$tmp/tick.tsv" "$tmp/tsc.tsv" > "$tmp/svg"
[ "$(grep -c '<polyline' "$tmp/svg")" = 1 ] &&
	grep -q '>tsc-kernel module</text>' "$tmp/svg" &&
	! grep -q '>tick-kernel module</text>' "$tmp/svg" &&
	grep -q '>not drawn, times in steps of a tick: tick-kernel (clock refined-jiffies)</text>' "$tmp/svg"
result tick_clock_not_drawn

tap_done
