#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pmaps over the module, in the guest, TAP: it must find the module (or a
# patched kernel's /proc/PID/pmaps) by itself and show the same model as
# the raw text.
n=0
failed=0
check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $name"
	else
		failed=1
		echo "not ok $n $name"
	fi
}

tests="test_raw_is_module_text test_source_is_found test_tsv_is_same_model
	test_summary_total_resident"

. /lib.sh

echo "TAP version 13"
echo "1..4"

# Without a target there is nothing to test: each test fails.
if ! start_demo /tmp/cli-demo.pid; then
	for t in $tests; do
		n=$((n + 1))
		echo "not ok $n $t"
	done
	exit 1
fi
pid=$demo_pid
kill -STOP "$pid"
# Drain the per-CPU LRU batches, whose draining flips PG_active, so the
# stopped target's text stays the same from one read to the next.
echo 1 > /proc/sys/vm/compact_memory

# Run "$@" into /tmp/cli-out.txt between two reads of the module's text,
# until the text is the same before and after: the target is stopped, but
# pages it shares may change state while other processes run.
between_stable_reads() {
	for try in 1 2 3 4 5; do
		without_vdso_ranges "/proc/pmaps_ext/$pid" > /tmp/cli-raw.txt
		"$@" > /tmp/cli-out.txt || return 1
		without_vdso_ranges "/proc/pmaps_ext/$pid" > /tmp/cli-raw2.txt
		cmp -s /tmp/cli-raw.txt /tmp/cli-raw2.txt && return 0
	done
	echo "# the target's text never held still"
	return 1
}

# same_or_diff WANT GOT: equal files, or a diagnostic and failure.
same_or_diff() {
	cmp -s "$1" "$2" && return 0
	diff "$1" "$2" | head -n 10 | sed 's/^/# /'
	return 1
}

# With no --source, pmaps finds the module, and --raw passes its text on.
test_raw_is_module_text() {
	between_stable_reads pmaps --raw "$pid" || return 1
	without_vdso_ranges /tmp/cli-out.txt > /tmp/cli-got.txt
	same_or_diff /tmp/cli-raw.txt /tmp/cli-got.txt
}

# A patched kernel's /proc/PID/pmaps comes first.
test_source_is_found() {
	want=module
	[ -e "/proc/$pid/pmaps" ] && want=kernel
	pmaps --json "$pid" | grep -q "\"source\": *\"$want\""
}

# Every range of the text, and nothing else, as index count flags mapcount.
test_tsv_is_same_model() {
	between_stable_reads pmaps --tsv "$pid" || return 1
	awk -F'\t' '/^[0-9]+\t/ { print $1, $2, $3, $4 }' /tmp/cli-raw.txt > /tmp/cli-want.txt
	awk -F'\t' 'NR > 1 && $8 != "[vdso]" { print $11, $12, $13, $14 }' /tmp/cli-out.txt > /tmp/cli-got.txt
	[ -s /tmp/cli-want.txt ] && same_or_diff /tmp/cli-want.txt /tmp/cli-got.txt
}

# The summary's resident total is the sum of the ranges' pages (a stopped
# target's pages stay resident, whatever their flags do).
test_summary_total_resident() {
	want=$(awk -F'\t' '/^[0-9]+\t/ { n += $2 } END { print n * 4 }' "/proc/pmaps_ext/$pid")
	got=$(pmaps --summary "$pid" | awk '$1 == "total" { print $4 }')
	[ "$want" = "$got" ] || { echo "# resident KiB: want $want, got $got"; return 1; }
}

for t in $tests; do
	check "$t" "$t"
done

kill -9 "$pid"
exit $failed
