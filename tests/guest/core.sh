#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pmaps core on real core dumps, TAP.  core_target maps anonymous memory,
# a memfd (shared and private) and a file, then aborts: the kernel's core
# of it must show each mapping as core_target's coredump_filter (0x33)
# dumps it.  Then the same process held still and dumped by gdb's gcore,
# where gdb is installed and may ptrace it.
#
# A guest suite (pmaps and core_target in /bin), and run on the host by
# tests/unit/test_core.sh with PMAPS and CORE_TARGET set.  It never
# changes core_pattern: a pattern that pipes cores to a program or writes
# them to an absolute path is a reason to skip, not a setting to change
# on someone's machine.  The kernel's default, "core", writes them into
# the current directory, an empty one of the test's.
set -u

PMAPS=${PMAPS:-pmaps}
TARGET=${CORE_TARGET:-/bin/core_target}
# The TAP library: /tap.sh in the guest, TAP_LIB (tests/tap.sh) on the
# host.
. "${TAP_LIB:-/tap.sh}"

# The plan comes last: a run that stops early has none.
finish() {
	tap_done
	exit
}

# COND; result NAME: a test that is the status of the commands before
result() {
	if [ $? = 0 ]; then ok "$1"; else not_ok "$1"; fi
}

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# NT_FILE has the path the kernel resolved
real_dir=$(cd "$dir" && pwd -P)

# row FILE START-HEX: the --tsv row of the mapping that starts at START
row() {
	awk -F'\t' -v s="$2" '$2 == s' "$1"
}

# row_holding FILE ADDR-HEX: the --tsv row whose mapping holds ADDR
row_holding() {
	while IFS='	' read -r core_name start end rest; do
		[ "$start" = start ] && continue
		if [ $((0x$start)) -le $((0x$2)) ] &&
		   [ $((0x$2)) -lt $((0x$end)) ]; then
			printf '%s\t%s\t%s\t%s\n' "$core_name" "$start" "$end" \
				"$rest"
			return
		fi
	done < "$1"
}

# expect_row NAME ROW FIELDS WANT: cut -f FIELDS of ROW is WANT
expect_row() {
	got=$(printf '%s\n' "$2" | cut -f "$3")
	if [ -n "$2" ] && [ "$got" = "$4" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "# expected '$4'"
		echo "# got      '$got'"
	fi
}

# addr KEY: the address core_target printed for KEY
addr() {
	awk -v k="$1" '$1 == k { print $2 }' "$dir/layout"
}

# the page size core_target mapped with: its two private mappings start
# at page 1, so their offset is one page, and 2 pages are lost
page_kib() {
	echo $(($(awk '$1 == "page" { print $2 }' "$dir/layout") / 1024))
}
page_offset() {
	printf '%08x' "$(awk '$1 == "page" { print $2 }' "$dir/layout")"
}

memfd_name="/memfd:pmaps-core-test (deleted)"
# the columns checked: perms, offset, contents, backing, name
cols=4,5,8-10

kernel_tests="kernel_core_written kernel_core_exit_0 kernel_core_process
	kernel_core_anon kernel_core_memfd_shared kernel_core_memfd_private
	kernel_core_file kernel_core_lost kernel_core_matches_readelf"

why=
pattern=$(cat /proc/sys/kernel/core_pattern 2> /dev/null) ||
	why="no /proc/sys/kernel/core_pattern: a kernel without CONFIG_COREDUMP"
case $pattern in
"|"*)	why="core_pattern pipes cores to a program: ${pattern%% *}" ;;
/*)	why="core_pattern writes cores to $pattern, not the current directory" ;;
esac
[ -z "$why" ] && ! ulimit -c unlimited 2> /dev/null &&
	why="ulimit -c unlimited refused: RLIMIT_CORE's hard limit"

if [ -n "$why" ]; then
	for t in $kernel_tests; do skip "$t" "$why"; done
else
	mkdir "$dir/crash"
	cd "$dir/crash" || exit 1
	"$TARGET" "$dir" > "$dir/layout" 2> "$dir/target.err" &
	pid=$!
	# the shell's "Aborted (core dumped)" is no test output
	wait $pid 2> /dev/null
	cd "$dir" || exit 1
	set -- "$dir"/crash/*
	if [ $# = 1 ] && [ -f "$1" ]; then
		core=$1
		ok kernel_core_written
	else
		core=
		not_ok kernel_core_written
		echo "# core_pattern '$pattern': no single core in $dir/crash"
		sed 's/^/# /' "$dir/target.err"
	fi
fi

if [ -z "$why" ] && [ -n "$core" ]; then
	"$PMAPS" core --tsv "$core" > "$dir/tsv" 2> "$dir/err"
	rc=$?
	"$PMAPS" core "$core" > "$dir/text" 2>> "$dir/err"
	rc_text=$?
	[ "$rc" = 0 ] && [ "$rc_text" = 0 ] && [ ! -s "$dir/err" ]
	result kernel_core_exit_0
	diag "$dir/err"

	head -n 1 "$dir/text" |
		grep -qF ": core of pid $pid (core_target), signal 6 (SIGABRT), 1 thread"
	result kernel_core_process

	# written, so in the core; it may have merged with a neighbour
	expect_row kernel_core_anon "$(row_holding "$dir/tsv" "$(addr anon)")" \
		8-9 "data	anon"
	expect_row kernel_core_memfd_shared "$(row "$dir/tsv" "$(addr memfd)")" \
		$cols "rw-	00000000	data	memfd	$memfd_name"
	# not written, and a private file mapping from page 1: not dumped,
	# and gdb cannot reopen it
	expect_row kernel_core_memfd_private \
		"$(row "$dir/tsv" "$(addr memfd_private)")" \
		$cols "r--	$(page_offset)	file-only	memfd	$memfd_name"
	expect_row kernel_core_file "$(row "$dir/tsv" "$(addr file)")" \
		$cols "r--	$(page_offset)	file-only	file	$real_dir/core-data"

	lost="lost: $((2 * $(page_kib))) KiB of 1 mapping of deleted files or memfds, not in the core; a debugger cannot reopen them"
	if grep -qxF "$lost" "$dir/text"; then
		ok kernel_core_lost
	else
		not_ok kernel_core_lost
		echo "# expected '$lost'"
		grep '^lost:' "$dir/text" | sed 's/^/# got      /'
	fi

	# binutils reads the same program headers: one row per PT_LOAD (the
	# kernel's NT_FILE entries have the bounds of their loads), and
	# the same bytes in the core
	if command -v readelf > /dev/null; then
		readelf -lW "$core" | awk '$1 == "LOAD" { print $5 }' \
			> "$dir/filesz"
		want_rows=$(wc -l < "$dir/filesz")
		want_bytes=0
		while read -r f; do
			want_bytes=$((want_bytes + f))
		done < "$dir/filesz"
		got_rows=$(($(wc -l < "$dir/tsv") - 1))
		got_bytes=$(awk -F'\t' 'NR > 1 { n += $7 } END { printf "%d", n }' \
			"$dir/tsv")
		[ "$want_rows" -gt 0 ] && [ "$got_rows" = "$want_rows" ] &&
			[ "$got_bytes" = "$want_bytes" ]
		result kernel_core_matches_readelf
		echo "# readelf: $want_rows PT_LOAD, $want_bytes bytes; pmaps core: $got_rows rows, $got_bytes bytes"
	else
		# tests/qemu/run.sh puts readelf in the guest
		not_ok kernel_core_matches_readelf
		echo "# no readelf in the guest"
	fi
elif [ -z "$why" ]; then
	for t in $kernel_tests; do
		[ "$t" = kernel_core_written ] || not_ok "$t"
	done
fi

# ---- gcore ----

gcore_tests="gcore_memfd_shared gcore_file"
# Both gcore tests fail with a diagnostic.
gcore_failed() {
	for t in $gcore_tests; do not_ok "$t"; done
	echo "# $1"
	diag "$2"
}

# The held target sets its coredump_filter, which only a kernel with
# CONFIG_COREDUMP has (tinyconfig's patched kernels have none): gcore,
# which honours it, has nothing to test there.
if [ ! -e /proc/self/coredump_filter ]; then
	for t in $gcore_tests; do
		skip "$t" "no /proc/self/coredump_filter: a kernel without CONFIG_COREDUMP"
	done
	finish
fi
# Where it can run, the held target is this suite's own: one that never
# printed its layout is a failure, with gdb or without.
: > "$dir/layout"
"$TARGET" "$dir" hold > "$dir/layout" 2> "$dir/target.err" &
pid=$!
i=0
while [ "$(wc -l < "$dir/layout")" -lt 5 ] && kill -0 "$pid" 2> /dev/null &&
	[ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ "$(wc -l < "$dir/layout")" -lt 5 ]; then
	kill -9 "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	gcore_failed "core_target hold never printed its layout" "$dir/target.err"
	finish
fi

# What gcore needs of the machine: gdb, and permission to ptrace the target
# (Yama's ptrace_scope 3, or a container without CAP_SYS_PTRACE, forbid
# it even to root).
if ! command -v gdb > /dev/null; then
	# tests/qemu/run.sh puts gdb in the guest: without it, no test ran
	kill "$pid"
	wait "$pid" 2> /dev/null
	for t in $gcore_tests; do not_ok "$t"; done
	echo "# no gdb in the guest"
	finish
fi
gdb -q -batch -p "$pid" -ex "gcore $dir/gcore" > "$dir/gdb.log" 2>&1
kill "$pid"
wait "$pid" 2> /dev/null
if [ ! -s "$dir/gcore" ]; then
	if grep -q 'ptrace: Operation not permitted' "$dir/gdb.log"; then
		for t in $gcore_tests; do
			skip "$t" "gdb may not ptrace here: $(grep -m 1 'ptrace:' "$dir/gdb.log")"
		done
		finish
	fi
	gcore_failed "gcore wrote nothing" "$dir/gdb.log"
	finish
fi
"$PMAPS" core --tsv "$dir/gcore" > "$dir/gtsv" 2> "$dir/err"
diag "$dir/err"
# gdb dumps what the kernel would, and it cannot leave out a memfd
expect_row gcore_memfd_shared "$(row "$dir/gtsv" "$(addr memfd)")" \
	$cols "rw-	00000000	data	memfd	$memfd_name"
# gdb writes no PT_LOAD for mappings it would not dump (gdb 13: no
# segment at all), so perms and offset come from NT_FILE alone
got=$(row "$dir/gtsv" "$(addr file)" | cut -f 5,8-10)
case $got in
"$(page_offset)	no-segment	file	$real_dir/core-data" | \
"$(page_offset)	file-only	file	$real_dir/core-data")
	ok gcore_file ;;
*)
	not_ok gcore_file
	echo "# got '$got'" ;;
esac

finish
