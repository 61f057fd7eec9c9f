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
	kill_all $pids
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

basic=$fix/good-basic.txt
# Seconds a command may take on hostile input before it counts as hung
# (its test fails); scaled by $slow.
limit=$((20 * slow))

# bounded CMD...: run CMD as run does, killed after $limit seconds (then
# $rc is 124 or 137, which no test expects).  Memory is bounded too
# (ulimit -v, 1 GiB; not under valgrind or AddressSanitizer, which map
# far more address space of their own): a reader that keeps what it reads
# fails with ENOMEM instead of eating the machine's memory.
memlimit=1
if [ "$slow" != 1 ]; then
	memlimit=0
fi
bounded() {
	if [ "$memlimit" = 1 ]; then
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

# pmaps heap reads its target with process_vm_readv(2), pmaps record
# follows one with perf_event_open(2): qemu-user (tests/unit/arm64.sh)
# emulates neither, and there the tests of what they write are skipped.
qemu_user_refuses process_vm_readv "$PMAPS" heap --summary "$target"
no_readv=$qemu_refused
qemu_user_refuses perf_event_open "$PMAPS" record -o "$tmp/probe.data" -- true
no_perf=$qemu_refused
rm -f "$tmp/probe.data"

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
	case $w in
	heap)	w_refused=$no_readv ;;
	record)	w_refused=$no_perf ;;
	*)	w_refused= ;;
	esac
	# ---- a device node, a FIFO, a symbolic link at the target ----
	fresh
	writer "$w" "$devnull"
	refused "$w" "$devnull" "a character device"
	result_unless "$w_refused" "${w}_refuses_a_device"

	# Before the fix, fopen() of a FIFO blocked until the bound.
	fresh
	writer "$w" "$tmp/s/fifo"
	refused "$w" "$tmp/s/fifo" "a FIFO"
	result_unless "$w_refused" "${w}_refuses_a_fifo"

	fresh
	ln -s "$tmp/s/victim" "$tmp/w/link"
	writer "$w" "$tmp/w/link"
	refused "$w" "$tmp/w/link" "a symbolic link" && [ -L "$tmp/w/link" ]
	result_unless "$w_refused" "${w}_refuses_a_symlink_at_the_target"

	# A directory: not replaced, not written into.
	fresh
	mkdir "$tmp/w/dir"
	writer "$w" "$tmp/w/dir"
	refused "$w" "$tmp/w/dir" "a directory" && [ -z "$(ls -A "$tmp/w/dir")" ]
	result_unless "$w_refused" "${w}_refuses_a_directory"

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
	result_unless "$w_refused" "${w}_replaces_a_file_by_rename"

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
	result_unless "$w_refused" "${w}_ignores_symlinks_at_temporary_names"
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
result_unless "$no_perf" record_failed_command_keeps_perf_data
(
	cd "$tmp/w" || exit 1
	bounded "$PMAPS" record -- true
	[ "$rc" = 0 ] && [ "$(cat perf.data.old)" = old ] &&
		valid_output record perf.data && [ "$(ls -A | wc -l)" = 2 ]
)
result_unless "$no_perf" record_keeps_the_old_perf_data_as_old
(
	cd "$tmp/w" || exit 1
	rm -f perf.data.old
	ln -s "$tmp/s/victim" perf.data.old
	cp perf.data before
	bounded "$PMAPS" record -- true
	[ "$rc" = 1 ] && cmp -s perf.data before && untouched &&
		grep -q "^pmaps record: perf.data.old: not a regular file (a symbolic link), not replacing it\$" "$tmp/err"
)
result_unless "$no_perf" record_refuses_a_symlink_at_perf_data_old

# ---- readers: devices, FIFOs, endless, truncated and oversized input ----

# feed CMD...: CMD's output into the FIFO $tmp/s/fifo, in the background
# (it ends with SIGPIPE when the reader stops reading, or at cleanup)
feed() {
	"$@" > "$tmp/s/fifo" &
	pids="$pids $!"
}

# failed_with NAME RC MESSAGE: the last bounded run exited RC, printed
# nothing on stdout and exactly MESSAGE on stderr
failed_with() {
	expect_text "$1" "$2" "" "$3"
}

nul_msg=": expected text, got a NUL byte at byte 1 of the line"

fresh
bounded "$PMAPS" -f /dev/zero
failed_with read_dev_zero 2 "/dev/zero:1$nul_msg"

bounded "$PMAPS" map -f /dev/zero
failed_with map_dev_zero 2 "pmaps map: /dev/zero:1$nul_msg"

bounded "$PMAPS" diff /dev/zero "$basic"
failed_with diff_dev_zero 2 "pmaps diff: /dev/zero:1$nul_msg"

bounded "$PMAPS" diff "$basic" - < /dev/zero
failed_with diff_stdin_dev_zero 2 "pmaps diff: <stdin>:1$nul_msg"

# /dev/urandom: a NUL byte, an overlong line or a bad line, whichever
# comes first, in the first lines
bounded "$PMAPS" -f /dev/urandom
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -Eq '^/dev/urandom:[0-9]+: expected ' "$tmp/err" &&
	[ "$(wc -l < "$tmp/err")" = 1 ]
result read_dev_urandom

# An empty document is valid: read with a warning (a guard: so it was).
bounded "$PMAPS" --raw -f /dev/null
failed_with read_dev_null 0 \
	"pmaps: /dev/null: warning: empty document, no VMAs and no range lines: nothing resident"

fresh
feed cat /dev/zero
bounded "$PMAPS" -f "$tmp/s/fifo"
failed_with read_fifo_of_zeros 2 "$tmp/s/fifo:1$nul_msg"

# Endless lines, each bad: the first one ends the read.
fresh
feed yes
bounded "$PMAPS" -f "$tmp/s/fifo"
failed_with read_fifo_endless_bad_lines 2 \
	"$tmp/s/fifo:1: expected VMA header or TAB-separated range line, got 'y'"

# Endless good lines then: a VMA header, then the same range again and
# again, which the second time is out of order.
fresh
feed sh -c 'head -n 1 "$1"; while echo "$(sed -n 2p "$1")"; do :; done' sh "$basic"
bounded "$PMAPS" -f "$tmp/s/fifo"
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^$tmp/s/fifo:3: expected " "$tmp/err"
result read_fifo_endless_repeated_range

# A document through a FIFO still reads (a guard).
fresh
feed cat "$basic"
bounded "$PMAPS" --raw -f "$tmp/s/fifo"
expect read_fifo_document 0 "$basic" ""

# JSON: endless blank lines, endless elements that are not targets.
fresh
feed sh -c 'echo "{"; yes ""'
bounded "$PMAPS" -f "$tmp/s/fifo"
failed_with json_endless_blank_lines 2 \
	"$tmp/s/fifo:4098: expected at most 4096 blank lines in a row, got more"

fresh
feed sh -c 'echo "{\"schema\":\"pmaps/2\",\"targets\":["; yes "{\"x\":1},"'
bounded "$PMAPS" -f "$tmp/s/fifo"
failed_with json_endless_bad_elements 2 \
	"$tmp/s/fifo:3: expected one target per file (pmaps --json PID > FILE saves one), got '{\"x\":1},'"

# Endless bytes without a newline: an overlong line at line 1.
fresh
feed sh -c 'yes | tr -d "\n"'
bounded "$PMAPS" -f "$tmp/s/fifo"
failed_with read_endless_line 2 \
	"$tmp/s/fifo:1: expected a line of at most 65536 bytes, got a longer one"

# ---- oversized and truncated files ----

# A VMA name as long as the kernel can print one (PATH_MAX bytes, every
# one a newline escaped as \012): read.  One byte more than the longest
# line allowed: refused at its line, without reading on.
# (Long lines are compared, not shown: a failure's diff would be huge.)
long=$(head -c 4095 /dev/zero | tr '\0' 'n' | sed 's/n/\\012/g')
{
	head -n 3 "$basic"
	printf '%s\n' "7fff00000000-7fff00001000 r--p 00000000 08:01 7 /$long"
} > "$tmp/long.txt"
bounded "$PMAPS" --raw -f "$tmp/long.txt"
[ "$(sed -n 4p "$tmp/long.txt" | wc -c)" = $((49 + 4095 * 4 + 1)) ] &&
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/long.txt" "$tmp/out"
result read_longest_kernel_line

pad=$(head -c $((65536 - 48)) /dev/zero | tr '\0' x)
{
	head -n 3 "$basic"
	printf '%s\n' "7fff00000000-7fff00001000 r--p 00000000 08:01 7 /$pad"
} > "$tmp/over.txt"
bounded "$PMAPS" -f "$tmp/over.txt"
[ "$(sed -n 4p "$tmp/over.txt" | wc -c)" = 65538 ] && [ "$rc" = 2 ] &&
	[ ! -s "$tmp/out" ] &&
	[ "$(cat "$tmp/err")" = "$tmp/over.txt:4: expected a line of at most 65536 bytes, got a longer one" ]
result read_oversized_line

# A file cut in the middle of a line: that line is named.
head -c $(($(head -n 5 "$basic" | wc -c) + 6)) "$basic" > "$tmp/cut.txt"
bounded "$PMAPS" -f "$tmp/cut.txt"
[ "$rc" = 2 ] && grep -q "^$tmp/cut.txt:6: expected " "$tmp/err"
result read_truncated_text

"$PMAPS" --json -f "$basic" > "$tmp/basic.json"
head -c 300 "$tmp/basic.json" > "$tmp/cut.json"
bounded "$PMAPS" -f "$tmp/cut.json"
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^$tmp/cut.json:$(($(wc -l < "$tmp/cut.json") + 1)): expected " "$tmp/err"
result read_truncated_json

# A large document still reads: 1 million range lines (about 24 MB; a
# tenth under valgrind, a third under AddressSanitizer), and as JSON
# (113 MB, parsed early at several sizes).
lines=$((1000000 / slow))
awk -v n="$lines" 'BEGIN {
	print "7f0000000000-7f8000000000 rw-p 00000000 00:00 0 "
	for (i = 0; i < n; i++)
		printf "%.0f\t1\tYRAU___\t1\n", 34091302912 + 2 * i
}' > "$tmp/big.txt"
bounded "$PMAPS" --summary -f "$tmp/big.txt"
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && grep -q " $((lines * 4)) " "$tmp/out"
result read_large_document
"$PMAPS" --json -f "$tmp/big.txt" > "$tmp/big.json"
bounded "$PMAPS" --summary -f - < "$tmp/big.json"
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && grep -q " $((lines * 4)) " "$tmp/out"
result read_large_json_document
rm -f "$tmp/big.txt" "$tmp/big.json"

# ---- pmaps perf ----

magic_msg="expected a perf.data file (magic PERFILE2), got 00 00 00 00 00 00 00 00 at its start"
bounded "$PMAPS" perf -i /dev/zero
failed_with perf_dev_zero 2 "pmaps perf: /dev/zero: $magic_msg"

bounded "$PMAPS" perf -i - < /dev/zero
failed_with perf_stdin_dev_zero 2 "pmaps perf: -: $magic_msg"

bounded "$PMAPS" perf -i /dev/urandom
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -Eq '^pmaps perf: /dev/urandom: expected a perf.data file \(magic PERFILE2\), got ([0-9a-f]{2} ){7}[0-9a-f]{2} at its start$' "$tmp/err"
result perf_dev_urandom

# pipe mode's header, then zeros: the first record is no record
fresh
feed sh -c 'printf "PERFILE2\020\0\0\0\0\0\0\0"; cat /dev/zero'
bounded "$PMAPS" perf -i "$tmp/s/fifo"
failed_with perf_pipe_mode_then_zeros 2 \
	"pmaps perf: $tmp/s/fifo: offset 0x10: record 1: expected a record type of 1 to 127 and a size of at least 8, got type 0 and size 0"

# le64 V: V as 8 bytes, little-endian
le64() {
	le64_i=0
	while [ $le64_i -lt 8 ]; do
		printf "\\$(printf %03o $((($1 >> (8 * le64_i)) & 255)))"
		le64_i=$((le64_i + 1))
	done
}

# A file-mode header whose data section is 1 TiB, then zeros: the first
# record is no record (before the fix: read until memory ran out).
fresh
{
	printf PERFILE2
	le64 104		# header size
	le64 136		# attr_size: a perf_event_attr of 120, ids
	le64 104; le64 136	# the attribute section
	le64 240; le64 1099511627776	# the data section
	head -c 48 /dev/zero	# no feature
} > "$tmp/header"
feed sh -c 'cat "$1"; cat /dev/zero' sh "$tmp/header"
bounded "$PMAPS" perf -i "$tmp/s/fifo"
[ "$(wc -c < "$tmp/header")" = 104 ] && [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	[ "$(cat "$tmp/err")" = "pmaps perf: $tmp/s/fifo: offset 0xf0: record 1: expected a record type of 1 to 127 and a size of at least 8, got type 0 and size 0" ]
result perf_file_mode_huge_data_then_zeros

# A perf.data that pmaps record wrote, snapshots and all, through a pipe
# with zeros after it: read as far as its header and its feature table
# say, as the file itself is.  It follows the idle target, which it
# snapshots as it starts and as SIGINT stops it: a command of its own
# (sleep 0.3) could end before the first interval on a busy machine,
# and then the file had no snapshot to break below.  SIGINT comes after
# 0.3 s times $slow: under valgrind pmaps had not yet set its handler at
# 0.3 s and died of the signal, writing nothing.
fresh
(cd "$tmp/w" && timeout -k 10 -s INT "$(awk -v s="$slow" 'BEGIN { print 0.3 * s }')" \
	"$PMAPS" record --snapshot-every 0.05 -p "$target" 2> /dev/null)
if [ -s "$tmp/w/perf.data" ]; then
	"$PMAPS" perf -i "$tmp/w/perf.data" 2>&1 |
		sed "s|$tmp/w/perf.data|FILE|" > "$tmp/want"
	feed sh -c 'cat "$1"; cat /dev/zero' sh "$tmp/w/perf.data"
	bounded "$PMAPS" perf -i "$tmp/s/fifo"
	[ -s "$tmp/want" ] && [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
		sed "s|$tmp/s/fifo|FILE|" "$tmp/out" | cmp -s "$tmp/want" - &&
		"$PMAPS" perf --timeline -i "$tmp/w/perf.data" |
		grep -q ' snapshot of /proc/'
	result perf_file_mode_through_a_pipe_reads_no_further

	# and the same with its snapshots' magic zeroed: refused, not read on
	off=$(grep -abo PMAPSNAP "$tmp/w/perf.data" | cut -d: -f1)
	feed sh -c 'head -c "$2" "$1"; head -c 8 /dev/zero; tail -c +$(($2 + 9)) "$1"; cat /dev/zero' sh "$tmp/w/perf.data" "$off"
	bounded "$PMAPS" perf -i "$tmp/s/fifo"
	[ -n "$off" ] && [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
		[ "$(cat "$tmp/err")" = "pmaps perf: $tmp/s/fifo: offset $(printf 0x%x "$off"): expected the snapshots of pmaps record (magic PMAPSNAP)" ]
	result perf_snapshots_not_pmaps_refused
elif [ -n "$no_perf" ]; then
	skip perf_file_mode_through_a_pipe_reads_no_further "$no_perf"
	skip perf_snapshots_not_pmaps_refused "$no_perf"
else
	not_ok perf_file_mode_through_a_pipe_reads_no_further
	not_ok perf_snapshots_not_pmaps_refused
	echo "# pmaps record wrote no perf.data"
fi

# ---- pmaps core ----

bounded "$PMAPS" core /dev/zero
failed_with core_dev_zero 1 "pmaps core: /dev/zero: expected a regular file, got a special file"

# Before the fix, open() waited for a writer until the bound.
fresh
bounded "$PMAPS" core "$tmp/s/fifo"
failed_with core_fifo 1 "pmaps core: $tmp/s/fifo: expected a regular file, got a special file"

# ---- pmaps heap: its debug symbols ----

mkdir "$tmp/dbg"
bounded "$PMAPS" heap --summary --debug-dir="$tmp/dbg" "$target"
debug=$(sed -n 's/.*no debug symbols: \([^:]*\): No such file or directory.*/\1/p' "$tmp/out" | head -n 1)
case $debug in
"$tmp/dbg/.build-id/"*)
	mkdir -p "$(dirname "$debug")"
	mkfifo "$debug"
	bounded "$PMAPS" heap --summary --debug-dir="$tmp/dbg" "$target"
	[ "$rc" = 0 ] && grep -q "($debug: expected an ELF file, got a FIFO)" "$tmp/out"
	result heap_debug_file_fifo
	rm -f "$debug"
	ln -s /dev/zero "$debug"
	bounded "$PMAPS" heap --summary --debug-dir="$tmp/dbg" "$target"
	[ "$rc" = 0 ] && grep -q "($debug: expected an ELF file, got a special file)" "$tmp/out"
	result heap_debug_file_dev_zero
	;;
*)
	if [ -n "$no_readv" ]; then
		skip heap_debug_file_fifo "$no_readv"
		skip heap_debug_file_dev_zero "$no_readv"
	else
		not_ok heap_debug_file_fifo
		not_ok heap_debug_file_dev_zero
		echo "# pmaps heap did not name the debug file it looked for:"
		diag "$tmp/out" "$tmp/err"
	fi
	;;
esac

# ---- pmaps heap faults no page into its target ----

# An idle target that has used malloc: most of its libc it never touched,
# and those pages are not in its page tables (smaps Rss).  Before the fix,
# pmaps heap read libc's read-only mappings whole with process_vm_readv()
# for glibc's banner, which mapped every page of them (here libc's Rss
# went from about 1 MB to 1.8 MB); now it reads the banner from libc's
# file, and nothing but present pages (or untouched anonymous ones, as
# zeros) from the process.
cat > "$tmp/idle.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char *p = malloc(1000), *q = malloc(200000);

	memset(p, 1, 1000);
	memset(q, 2, 4096);	/* the rest of q: never touched */
	printf("ready %p %p\n", (void *)p, (void *)q);
	free(p);
	fflush(stdout);
	pause();
	return 0;
}
EOF
# rss PID: the Rss of its libc mappings and of all, and the size of its
# readable libc mappings, in kB (smaps)
rss() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { libc = $6 ~ /\/libc[.-]/; r = $2 ~ /^r/ }
	/^Size:/ { if (libc && r) size += $2 }
	/^Rss:/ { all += $2; if (libc) lrss += $2 }
	END { print lrss + 0, all + 0, size + 0 }' "/proc/$1/smaps" 2> /dev/null
}
mkdir "$tmp/empty"
if ! ${CC:-cc} -O2 -o "$tmp/idle" "$tmp/idle.c" 2> "$tmp/err"; then
	diag "$tmp/err"
	not_ok heap_faults_no_page
	not_ok heap_faults_no_page_with_debug_symbols
else
	for t in heap_faults_no_page heap_faults_no_page_with_debug_symbols; do
		# a target of its own: the test before may have faulted in
		# what this one looks for
		rm -f "$tmp/idle.out"
		"$tmp/idle" > "$tmp/idle.out" &
		idle=$!
		pids="$pids $idle"
		wait_for_line "$tmp/idle.out" ready
		if [ "$t" = heap_faults_no_page ]; then
			set -- --debug-dir="$tmp/empty"
		else
			set --
		fi
		before=$(rss "$idle")
		bounded "$PMAPS" heap --summary "$@" "$idle"
		after=$(rss "$idle")
		echo "# $t: libc Rss, all Rss, libc size (kB): before $before, after $after"
		# libc has pages the target never touched (else no test)
		set -- $before $after
		[ $# = 6 ] && [ "$1" -lt "$3" ] && [ "$rc" = 0 ] &&
			[ "$4" -le "$1" ] && [ "$5" -le "$2" ] &&
			grep -q '^main arena' "$tmp/out" &&
			grep -q '^chunks served by mmap: 1,' "$tmp/out"
		result_unless "$no_readv" "$t"
		kill -KILL "$idle"
		wait "$idle" 2> /dev/null
	done
fi

tap_done
