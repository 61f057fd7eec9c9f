#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pmaps over the module, in the guest, TAP: it must find the module (or a
# patched kernel's /proc/PID/pmaps) by itself and show the same model as
# the raw text.
# A test returns 0 (ok), 4 (skip, as kselftest's KSFT_SKIP, with
# $skip_reason), or anything else (not ok): tap.sh's check.

tests="test_raw_is_module_text test_source_is_found test_tsv_is_same_model
	test_summary_total_resident test_cgroup_three_processes
	test_wss_without_attach"

. /lib.sh
. /tap.sh
tap_plan 6

# Without a target there is nothing to test: each test fails.
if ! start_demo /tmp/cli-demo.pid; then
	for t in $tests; do
		not_ok "$t"
	done
	tap_done
	exit
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
		diff /tmp/cli-raw.txt /tmp/cli-raw2.txt | head -n 6 | sed 's/^/# /'
		[ "$try" = 5 ] || echo "# retried: the target's text changed between two reads, attempt $((try + 1)) of 5"
	done
	echo "# the target's text never held still"
	return 1
}

# show_heads N FILE...: the first N lines of each FILE, as diagnostics
show_heads() {
	n=$1
	shift
	for f; do
		head -n "$n" "$f" | sed 's/^/# /'
	done
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
	without_vdso_ranges /tmp/cli-out.txt > /tmp/cli-got.tmp
	without_gate /tmp/cli-got.tmp > /tmp/cli-got.txt
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
	# pages of the running kernel's size (16 KiB on arm64-16k)
	kb=$(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps)
	want=$(awk -F'\t' -v kb="$kb" '/^[0-9]+\t/ { n += $2 } END { print n * kb }' "/proc/pmaps_ext/$pid")
	got=$(pmaps --summary "$pid" | awk '$1 == "total" { print $4 }')
	[ "$want" = "$got" ] || { echo "# resident KiB: want $want, got $got"; return 1; }
}

# The PIDs of the lines of FILE matching pattern PAT, as pmaps prints
# them ("PID (comm)..." at the start, or pid="PID"), sorted.
pids_of() {
	sed -n "s/$2/\\1/p" "$1" | sort -nu
}

# pmaps --cgroup, wss --cgroup and export --cgroup over a cgroup v2 that
# holds three processes, one in a child cgroup: each must list exactly
# those three, read from the module (or the patched kernel).
test_cgroup_three_processes() {
	grep -qw cgroup2 /proc/filesystems || {
		skip_reason="no cgroup2 in this kernel"
		return 4
	}
	mnt=/tmp/cgroup2
	mkdir -p "$mnt"
	mount -t cgroup2 none "$mnt" || return 1
	mkdir "$mnt/g" "$mnt/g/sub"
	cg_pids=
	for where in g g g/sub; do
		sleep 1000 &
		cg_pids="$cg_pids $!"
		echo $! > "$mnt/$where/cgroup.procs"
	done
	want=$(echo $cg_pids | tr ' ' '\n' | sort -n)
	source=module
	[ -e "/proc/$pid/pmaps" ] && source=kernel
	bad=
	pmaps --cgroup "$mnt/g" --summary > /tmp/cg-summary.txt 2>&1 || bad="$bad summary-status"
	[ "$(pids_of /tmp/cg-summary.txt '^\([0-9]*\) (.*): source .*')" = "$want" ] || bad="$bad summary-pids"
	[ "$(grep -c ": source $source\$" /tmp/cg-summary.txt)" = 3 ] || bad="$bad summary-source"
	grep -q "^group $mnt/g: 3 processes\$" /tmp/cg-summary.txt || bad="$bad summary-group"
	pmaps wss --clear-refs --cgroup "$mnt/g" -i 0.1 > /tmp/cg-wss.txt 2>&1 || bad="$bad wss-status"
	[ "$(pids_of /tmp/cg-wss.txt '^ *[0-9]* *[0-9]* *[0-9]* \([0-9]*\) (.*)$')" = "$want" ] || bad="$bad wss-pids"
	grep -q "(source $source)\$" /tmp/cg-wss.txt || bad="$bad wss-source"
	pmaps export --cgroup "$mnt/g" > /tmp/cg-export.txt 2>&1 || bad="$bad export-status"
	[ "$(pids_of /tmp/cg-export.txt '^pmaps_resident_bytes{pid="\([0-9]*\)".*')" = "$want" ] || bad="$bad export-pids"
	kill $cg_pids
	wait $cg_pids 2> /dev/null
	rmdir "$mnt/g/sub" "$mnt/g"
	umount "$mnt"
	[ -z "$bad" ] && return 0
	echo "# failed:$bad"
	show_heads 20 /tmp/cg-summary.txt /tmp/cg-wss.txt
	return 1
}

# pmaps wss by a same-uid reader that may read the target but not attach
# to it (Yama's ptrace_scope 1, a sibling): the module withholds Y from
# it, so --source=module must say so and fail, and the default must
# measure with smaps Referenced instead.
test_wss_without_attach() {
	scope=/proc/sys/kernel/yama/ptrace_scope
	[ -e "$scope" ] || {
		skip_reason="no Yama in this kernel"
		return 4
	}
	was=$(cat "$scope")
	[ "$was" = 3 ] && {
		skip_reason="Yama's ptrace_scope is 3 until reboot"
		return 4
	}
	have_nobody
	echo 1 > "$scope" || return 1
	# su execs, so $! is the target; exec makes it dumpable again after
	# su's uid change
	su -s /bin/sh nobody -c 'exec sleep 1000' &
	target=$!
	i=0
	while [ "$(cat "/proc/$target/comm" 2> /dev/null)" != sleep ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	su -s /bin/sh nobody -c "pmaps wss --clear-refs --source=module -i 0.1 $target" \
		> /tmp/wss-module.txt 2>&1
	module_rc=$?
	su -s /bin/sh nobody -c "pmaps wss --clear-refs -i 0.1 $target" \
		> /tmp/wss-auto.txt 2>&1
	auto_rc=$?
	kill "$target"
	wait "$target" 2> /dev/null
	echo "$was" > "$scope"
	bad=
	[ "$module_rc" = 1 ] &&
		grep -q "^pmaps wss: module withholds Y from this reader, who may read process $target but not attach to it" /tmp/wss-module.txt ||
		bad="$bad module(exit $module_rc)"
	[ "$auto_rc" = 0 ] && head -n 1 /tmp/wss-auto.txt | grep -q "smaps Referenced" ||
		bad="$bad auto(exit $auto_rc)"
	[ -z "$bad" ] && return 0
	echo "# failed:$bad"
	show_heads 5 /tmp/wss-module.txt /tmp/wss-auto.txt
	return 1
}

for t in $tests; do
	check "$t" "$t"
done

kill -9 "$pid"
tap_done
