#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps run as root on hostile files (issue 28): every command that writes
# a file (export -o, map --png, heap --png, record -o) refuses a target
# that is a device node, a FIFO or a symbolic link, is not led astray by a
# symbolic link planted at a temporary name, replaces a regular file by
# rename only once the new one is complete, and leaves no temporary file;
# every reader (-f, diff, perf -i, core, ...) fails early on a device, a
# FIFO, endless, truncated or oversized input, with a message that names
# the file, the line and what was expected, in bounded memory.  Every wait
# is bounded (timeout -k), so a command that blocks or reads forever fails
# its test instead of hanging the suite.  Prints TAP.  PMAPS names the
# binary (default: built with make -C userspace).
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

pids=
cleanup() {
	for p in $pids; do
		kill -KILL "$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

basic=$fix/good-basic.txt
# Seconds a command may take on hostile input before it counts as hung
# (its test fails); scaled under valgrind.
limit=$((20 * slow))

# bounded CMD...: run CMD as run does, killed after $limit seconds (then
# $rc is 124 or 137, which no test expects).  Memory is bounded too
# (ulimit -v, 1 GiB; unlimited under valgrind, which needs its own): a
# reader that keeps what it reads fails with ENOMEM instead of eating the
# machine's memory.
bounded() {
	if [ "$slow" = 1 ]; then
		run sh -c 'ulimit -v 1048576; exec timeout -k 5 "$0" "$@"' \
			"$limit" "$@"
	else
		run timeout -k 5 "$limit" "$@"
	fi
}

# A target: this process's own child, idle.
sleep 1000 &
target=$!
pids="$pids $target"

# fresh: a new scratch directory $tmp/w for a writer's output, and in
# $tmp/s a character device with /dev/null's numbers (made as root, so
# that a pmaps that replaced it would replace a copy, not the machine's
# /dev/null; /dev/null itself where mknod is not allowed, and then pmaps
# cannot replace it anyway), a FIFO and a victim file: each test starts
# from the same state, whatever the one before did.
fresh() {
	rm -rf "$tmp/w" "$tmp/s"
	mkdir "$tmp/w" "$tmp/s"
	if mknod "$tmp/s/null" c 1 3 2> /dev/null; then
		devnull=$tmp/s/null
	else
		devnull=/dev/null
	fi
	mkfifo "$tmp/s/fifo"
	echo "victim's content" > "$tmp/s/victim"
	cp "$tmp/s/victim" "$tmp/s/victim.orig"
}

# untouched: the device, the FIFO and the victim are what they were, and
# $tmp/w holds no temporary file (.NAME.XXXXXX) of a writer; a test's
# last condition.
untouched() {
	[ -c "$devnull" ] && [ -p "$tmp/s/fifo" ] &&
		cmp -s "$tmp/s/victim" "$tmp/s/victim.orig" &&
		[ -z "$(find "$tmp/w" -name '.*' ! -type l)" ]
}

# writer NAME FILE: run writer NAME's command with output FILE, bounded
writer() {
	case $1 in
	export)	bounded "$PMAPS" export --source=pagemap -o "$2" "$target" ;;
	map)	bounded "$PMAPS" map --png "$2" -f "$basic" ;;
	heap)	bounded "$PMAPS" heap --png "$2" "$target" ;;
	record)	bounded "$PMAPS" record -o "$2" -- true ;;
	esac
}

# refused NAME FILE WHAT: writer NAME refused FILE, which is WHAT, with
# status 1 and the one message
refused() {
	[ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
		[ "$(cat "$tmp/err")" = "pmaps $1: $2: not a regular file ($3), not replacing it" ] &&
		untouched
}

# The file each writer writes must be what it writes on standard output
# (or, for record, a perf.data that pmaps perf reads).
valid_output() {
	case $1 in
	export)	tail -n 1 "$2" | grep -qx '# EOF' ;;
	map|heap) [ "$(head -c 8 "$2" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] ;;
	record)	[ "$(head -c 8 "$2")" = PERFILE2 ] ;;
	esac
}

for w in export map heap record; do
	# ---- a device node, a FIFO, a symbolic link at the target ----
	fresh
	writer "$w" "$devnull"
	refused "$w" "$devnull" "a character device"
	result "${w}_refuses_a_device"

	# Before the fix, fopen() of a FIFO blocked until the bound.
	fresh
	writer "$w" "$tmp/s/fifo"
	refused "$w" "$tmp/s/fifo" "a FIFO"
	result "${w}_refuses_a_fifo"

	fresh
	ln -s "$tmp/s/victim" "$tmp/w/link"
	writer "$w" "$tmp/w/link"
	refused "$w" "$tmp/w/link" "a symbolic link" && [ -L "$tmp/w/link" ]
	result "${w}_refuses_a_symlink_at_the_target"

	# A directory: not replaced, not written into.
	fresh
	mkdir "$tmp/w/dir"
	writer "$w" "$tmp/w/dir"
	refused "$w" "$tmp/w/dir" "a directory" && [ -z "$(ls -A "$tmp/w/dir")" ]
	result "${w}_refuses_a_directory"

	# ---- a regular file: replaced by rename, once complete ----
	# A hard link to the old file keeps the old content: the new file is
	# a new inode, renamed into place, not the old one truncated and
	# written (where a reader would see half a file).
	fresh
	echo old > "$tmp/w/out"
	ln "$tmp/w/out" "$tmp/w/old"
	writer "$w" "$tmp/w/out"
	[ "$rc" = 0 ] && [ "$(cat "$tmp/w/old")" = old ] &&
		valid_output "$w" "$tmp/w/out" && untouched
	result "${w}_replaces_a_file_by_rename"

	# ---- symbolic links planted at temporary names ----
	# FILE.tmp was export's temporary file before the fix, opened with
	# O_CREAT | O_TRUNC, following a link there; the others would follow
	# one too if they ever wrote through a name others can guess.
	fresh
	for t in out.tmp .out.tmp .out.tmp.XXXXXX out~ .out.swp; do
		ln -s "$tmp/s/victim" "$tmp/w/$t"
	done
	writer "$w" "$tmp/w/out"
	[ "$rc" = 0 ] && valid_output "$w" "$tmp/w/out" && untouched &&
		[ "$(find "$tmp/w" -type l | wc -l)" = 5 ] &&
		[ "$(ls -A "$tmp/w" | wc -l)" = 6 ]
	result "${w}_ignores_symlinks_at_temporary_names"
done

# ---- record: the old perf.data stays until the new one is complete ----
fresh
(
	cd "$tmp/w" || exit 1
	echo old > perf.data
	bounded "$PMAPS" record -- "$tmp/no/such/command"
	[ "$rc" = 1 ] && [ "$(cat perf.data)" = old ] &&
		[ ! -e perf.data.old ] && [ "$(ls -A | wc -l)" = 1 ] &&
		grep -q "^pmaps record: $tmp/no/such/command: No such file or directory\$" "$tmp/err"
)
result record_failed_command_keeps_perf_data
(
	cd "$tmp/w" || exit 1
	bounded "$PMAPS" record -- true
	[ "$rc" = 0 ] && [ "$(cat perf.data.old)" = old ] &&
		valid_output record perf.data && [ "$(ls -A | wc -l)" = 2 ]
)
result record_keeps_the_old_perf_data_as_old
(
	cd "$tmp/w" || exit 1
	rm -f perf.data.old
	ln -s "$tmp/s/victim" perf.data.old
	cp perf.data before
	bounded "$PMAPS" record -- true
	[ "$rc" = 1 ] && cmp -s perf.data before && untouched &&
		grep -q "^pmaps record: perf.data.old: not a regular file (a symbolic link), not replacing it\$" "$tmp/err"
)
result record_refuses_a_symlink_at_perf_data_old

tap_done
