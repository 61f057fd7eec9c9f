# SPDX-License-Identifier: GPL-2.0
#
# How every counter of make check (tests/harness.sh, tests/qemu/run.sh,
# tests/report.sh) reads a TAP result line, written once.
#
#   awk -v main=1 -f tests/tap-count.awk LOG...
#       prints "PASSED FAILED SKIPPED RETRIED RERUN" for the LOGs
#   awk -f tests/tap-count.awk -f PROGRAM ...
#       PROGRAM calls tap_kind() on a line and counts as it likes
#
# "ok N ..." passes unless it says "# SKIP"; "not ok" fails, numbered or
# the harness's own "not ok - ..."; a whole stream's "1..0 # SKIP" is one
# skip; "# retried: ..." is an attempt made again (the suites print one
# for each, with its difference); "# rerun: ..." is a guest booted again
# because the first boot died of the machine, not of a test
# (tests/qemu/run.sh).

# tap_kind(): what the line in $0 is: "pass", "fail", "skip", "retry",
# "rerun" or "".
function tap_kind() {
	if ($0 ~ /^not ok( |$)/)
		return "fail"
	if ($0 ~ /^ok [0-9]+/)
		return $0 ~ /# SKIP/ ? "skip" : "pass"
	if ($0 ~ /^1\.\.0 # SKIP/)
		return "skip"
	if ($0 ~ /^# retried: /)
		return "retry"
	if ($0 ~ /^# rerun: /)
		return "rerun"
	return ""
}

main { tap_counted[tap_kind()]++ }
END {
	if (main)
		printf "%d %d %d %d %d\n", tap_counted["pass"], tap_counted["fail"],
			tap_counted["skip"], tap_counted["retry"], tap_counted["rerun"]
}
