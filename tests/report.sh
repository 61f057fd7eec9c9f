#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write Documentation/reliability.rst from a make check log: per kernel,
# the load the race stress put through the module and how it ended, the
# faults survived, the memory held, and the fuzzing done.  make check runs
# it at the end, so the table always shows the last full run.
#
#   tests/report.sh build/check.log > Documentation/reliability.rst
set -eu
log=${1:?usage: tests/report.sh CHECK_LOG}

cat <<'HEAD'
.. SPDX-License-Identifier: GPL-2.0

===========================================
Reliability: results of the last make check
===========================================

Written by ``tests/report.sh`` from the log of ``make check`` (do not edit by
hand).  Each kernel booted with ``panic_on_warn=1``; its console was
checked for ``BUG:``, ``WARNING:``, ``Oops``, KASAN, lockdep, soft lockup,
RCU stall and hung-task reports.  The debug kernel has KASAN, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP,
DEBUG_VM and the softlockup and hung-task detectors.  The patched kernels
are Debian's newest 7.x source with patches/ applied; patched-nopagemapcount
adds NO_PAGE_MAPCOUNT and 16 KiB to 512 KiB mTHP: its large folios keep no
per-page mapcount.

HEAD
# The commit the run tested, so that the table says what it is of.
top=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null) || commit=
if [ -n "$commit" ]; then
	dirty=
	git -C "$top" diff --quiet HEAD 2>/dev/null || dirty=", with uncommitted changes"
	echo "From the run on $(date -u -r "$log" '+%Y-%m-%d %H:%M UTC') of commit"
	echo "\`\`$commit\`\`$dirty."
	echo
fi

# tap_kind(), for the programs below
tap_count=$(cat "$top/tests/tap-count.awk")
awk "$tap_count"'
function flush() {
	if (kernel == "")
		return
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%d / %d / %d\t%s\n", kernel, stress,
		exits, unloads, memory, latency, passed, failed, skipped, verdict
	kernel = ""
}
/^qemu: kernel / {
	flush()
	kernel = $3; stress = "-"; exits = "ok"; unloads = "-"; memory = "-"
	latency = "-"; passed = 0; failed = 0; skipped = 0; verdict = "clean"
	next
}
# The header of a host suite ends the guest section before it.
/^== / { flush(); next }
kernel == "" { next }
{ kind = tap_kind() }
kind == "fail" { failed++ }
kind == "pass" { passed++ }
kind == "skip" { skipped++ }
/reads, .* VMAs, .* ranges checked/ {
	sub(/^# /, ""); sub(/ \(.*/, ""); stress = $0
}
/^not ok [0-9]+ test_(exit_between_reads|exit_mid_huge_read|open_exit_read_close_1000)/ {
	exits = "FAILED"
}
/unloads went through while readers were busy/ { unloads = $2 "/" $4 }
/bytes of kernel memory per open file/ { memory = $3 " B" }
/^# suite \/bin\/resources: not run in this guest/ {
	memory = "(not run here)"; latency = memory
}
# "with 2 readers  MEDIAN WORST CALLS ROUND-WORST": the worst call.
/^#   with 2 readers/ { latency = $6 " us" }
/^#   one full read/ { latency = latency " / " $(NF - 1) " ms" }
/^not ok - .*: the module does not build/ { verdict = "MODULE DID NOT BUILD" }
/^not ok - .*: the console shows a kernel problem/ { verdict = "KERNEL PROBLEM" }
/^not ok - .*: the guest did not finish/ { verdict = "DID NOT FINISH" }
END { flush() }
' "$log" | awk -F'\t' '
BEGIN {
	h[1] = "Kernel"; h[2] = "Race stress: reads, VMAs, ranges checked"
	h[3] = "Exit races"; h[4] = "Unloads while open"
	h[5] = "Kernel memory per open file"
	h[6] = "Worst mmap with readers / one full read"
	h[7] = "Tests passed / failed / skipped"; h[8] = "Console"
	n = 8
	for (i = 1; i <= n; i++) w[i] = length(h[i])
}
{
	rows++
	for (i = 1; i <= n; i++) {
		cell[rows, i] = $i
		if (length($i) > w[i]) w[i] = length($i)
	}
}
function rule(   i, s) {
	s = ""
	for (i = 1; i <= n; i++) s = s (i > 1 ? "  " : "") sprintf("%s", dashes(w[i]))
	print s
}
function dashes(k,   s) { s = ""; while (k-- > 0) s = s "="; return s }
function row(get,   i, s) {
	s = ""
	for (i = 1; i <= n; i++) s = s (i > 1 ? "  " : "") sprintf("%-" w[i] "s", get[i])
	sub(/ +$/, "", s)
	print s
}
END {
	rule(); row(h); rule()
	for (r = 1; r <= rows; r++) {
		for (i = 1; i <= n; i++) c[i] = cell[r, i]
		row(c)
	}
	rule()
}'

echo
echo "Bad inputs tried (libFuzzer, ASan and UBSan, over the committed corpus):"
echo
fuzzed=$(grep -E '^ok [0-9]+ fuzz_(parse|cli):|^not ok [0-9]+ fuzz' "$log" |
	sed 's/^\(not \)\{0,1\}ok [0-9]* /- /')
echo "${fuzzed:-- (no fuzzing in this log)}"
echo
for suite in unit-asan unit-valgrind; do
	echo "Unit and CLI tests, $suite: $(awk -v s="== $suite" "$tap_count"'
		$0 == s { on = 1; next }
		/^== / { on = 0 }
		on { c[tap_kind()]++ }
		END { printf "%d passed, %d failed, %d skipped", c["pass"], c["fail"], c["skip"] }' "$log")."
	echo
done
echo
echo "Whole run: $(tail -n 1 "$log"), $(tail -n 2 "$log" | head -n 1)."
