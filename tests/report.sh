#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Write Documentation/reliability.rst from a make check-all log (or
# build/reliability.rst from a make check one): per kernel, the load the
# race stress put through the module and how it ended, the faults
# survived, the memory held, and the fuzzing done; then every time limit
# of the run against what the step, guest or suite it bounds took.  The
# runs write it at their end, so it always shows the last one.
#
#   tests/report.sh build/check-all.log > Documentation/reliability.rst
set -eu
log=${1:?usage: tests/report.sh CHECK_LOG}
what="make check"
case $log in *check-all.log) what="make check-all" ;; esac
title="Reliability: results of the last $what"

rule=$(echo "$title" | sed 's/./=/g')
printf '.. SPDX-License-Identifier: GPL-2.0\n\n%s\n%s\n%s\n\n' "$rule" "$title" "$rule"
printf 'Written by ``tests/report.sh`` from the log of ``%s`` (do not edit\n' "$what"
cat <<'HEAD'
by hand).  Each kernel booted with ``panic_on_warn=1``; its console was
checked for ``BUG:``, ``WARNING:``, ``Oops``, KASAN, lockdep, soft lockup,
RCU stall and hung-task reports.  The patched kernels are Debian's newest
7.x source with patches/ applied: patched-debug has KASAN, PROVE_LOCKING,
DEBUG_ATOMIC_SLEEP, DEBUG_VM and the softlockup and hung-task detectors;
patched-nopagemapcount adds NO_PAGE_MAPCOUNT and 16 KiB to 512 KiB mTHP
(its large folios keep no per-page mapcount) and kmemleak; patched-numa
is the same with two NUMA nodes.

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

# rst_table: tab-separated rows on stdin, the first the header, as an
# reStructuredText simple table
rst_table() {
	awk -F'\t' '
	{
		rows++
		if (NF > n) n = NF
		for (i = 1; i <= NF; i++) {
			cell[rows, i] = $i
			if (length($i) > w[i]) w[i] = length($i)
		}
	}
	function dashes(k,   s) { s = ""; while (k-- > 0) s = s "="; return s }
	function rule(   i, s) {
		s = ""
		for (i = 1; i <= n; i++) s = s (i > 1 ? "  " : "") dashes(w[i])
		print s
	}
	function row(r,   i, s) {
		s = ""
		for (i = 1; i <= n; i++) s = s (i > 1 ? "  " : "") sprintf("%-" w[i] "s", cell[r, i])
		sub(/ +$/, "", s)
		print s
	}
	END {
		if (!rows)
			exit
		rule(); row(1); rule()
		for (r = 2; r <= rows; r++) row(r)
		rule()
	}'
}
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
' "$log" | {
	printf 'Kernel\tRace stress: reads, VMAs, ranges checked\tExit races\tUnloads while open\tKernel memory per open file\tWorst mmap with readers / one full read\tTests passed / failed / skipped\tConsole\n'
	cat
} | rst_table

echo
echo "Bad inputs tried (libFuzzer, ASan and UBSan, over the committed corpus):"
echo
fuzzed=$(grep -E '^ok [0-9]+ fuzz_(parse|cli):|^not ok [0-9]+ fuzz' "$log" |
	sed 's/^\(not \)\{0,1\}ok [0-9]* /- /')
echo "${fuzzed:-- (no fuzzing in this log)}"
echo
for suite in unit-asan unit-valgrind; do
	grep -qx "== $suite" "$log" || continue
	what="Unit and CLI tests"
	echo "$what, $suite: $(awk -v s="== $suite" "$tap_count"'
		$0 == s { on = 1; next }
		/^== / { on = 0 }
		on { c[tap_kind()]++ }
		END { printf "%d passed, %d failed, %d skipped", c["pass"], c["fail"], c["skip"] }' "$log")."
	echo
done

cat <<'LIMITS'
Time limits
===========

Every limit of the run beside what it bounds took in it, with all the
run ran beside it: each step of the harness (``tests/harness.sh``), each
guest (``QEMU_TIMEOUT``) and, for each guest suite, the guest where its
limit is tightest.  A limit below three times the time taken is marked
BELOW 3 x: it is one a slower machine can hit.

LIMITS
limits=$(mktemp)
awk '
function verdict(took, limit) {
	return took > 0 && limit < 3 * took ? "BELOW 3 x" : "ok"
}
function ratio(took, limit) {
	return took > 0 ? sprintf("%.1f x", limit / took) : "-"
}
/^== / { step = $2; next }
/^qemu: kernel / { rel = $3 }
/^# [^ ]+: [0-9]+ s, [0-9]+ s of CPU, limit [0-9]+ s$/ {
	sub(/:$/, "", $2)
	steps = steps sprintf("%s\t%s s\t%s s\t%s s\t%s\t%s\n", $2, $3, $5, $10,
		ratio($3, $10), verdict($3, $10))
}
/^qemu: [^ ]+: guest ran [0-9]+ s \(limit [0-9]+ s\)$/ {
	g = $2; sub(/:$/, "", g)
	guests = guests sprintf("%s\t%s\t%s s\t%s s\t%s\t%s\n", step, g, $5,
		$8, ratio($5, $8), verdict($5, $8))
}
/^# suite [^ ]+ exit [0-9]+ after [0-9]+ s \(limit [0-9]+ s\)/ {
	name = $3; took = $7; limit = $10
	r = took > 0 ? limit / took : 1e9
	if (!(name in best) || r < best[name]) {
		best[name] = r; where[name] = rel; btook[name] = took
		blimit[name] = limit
	}
	if (!(name in runs))
		names[++nsuites] = name
	runs[name]++
}
END {
	print "STEPS"
	printf "Step\tTook\tCPU\tLimit\tLimit / took\tVerdict\n%s", steps
	print "GUESTS"
	printf "Step\tGuest\tTook\tLimit\tLimit / took\tVerdict\n%s", guests
	print "SUITES"
	printf "Suite\tGuests\tTightest on\tTook\tLimit\tLimit / took\tVerdict\n"
	for (i = 1; i <= nsuites; i++) {
		n = names[i]
		printf "%s\t%d\t%s\t%s s\t%s s\t%s\t%s\n", n, runs[n], where[n],
			btook[n], blimit[n], ratio(btook[n], blimit[n]),
			verdict(btook[n], blimit[n])
	}
}' "$log" > "$limits"
for part in STEPS GUESTS SUITES; do
	awk -v part="$part" '/^(STEPS|GUESTS|SUITES)$/ { on = $0 == part; next } on' \
		"$limits" | rst_table
	echo
done
rm -f "$limits"
echo "Whole run: $(tail -n 1 "$log"), $(tail -n 2 "$log" | head -n 1)."
