#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps perf, TAP: fixtures/perf/demo.data, written by perf record (perf
# 6.1) of perf_target.c, against golden output; the messages for files
# that are cut short, foreign-endian or no perf.data at all; then live
# recordings by this machine's perf (Debian's linux-perf, which
# tests/deps.sh installs), whose mmaps pmaps perf --timeline must list
# exactly as perf script --show-mmap-events does.  PMAPS names the binary;
# CC builds perf_target and its library.
#
# demo.data was made in /tmp/pmaps-perf, so that its names stay short:
#   cc -O2 -shared -fPIC -o libpmaps-perf.so tests/unit/perf_lib.c
#   cc -O2 -o perf_target tests/unit/perf_target.c -ldl
#   head -c 8192 /dev/zero > data.bin
#   perf record -q -e dummy -d -o demo.data -- \
#	./perf_target ./libpmaps-perf.so ./data.bin /bin/true
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
fix=$fix/perf

trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

usage_hint="Try 'pmaps perf --help' for more information."

# File names in messages are as given: run from the fixtures.
cd "$fix" || exit 1

# ---- the fixture ----

run "$PMAPS" perf -i demo.data --pid 6509
expect demo_maps 0 "$golden/perf-demo.maps" ""

run "$PMAPS" perf -i demo.data --timeline
expect demo_timeline 0 "$golden/perf-demo.timeline" ""

# data.bin and the library mapped, but not yet its text (r-xp)
run "$PMAPS" perf -i demo.data --pid 6509 --at 65466.061900
expect demo_at 0 "$golden/perf-demo-at.maps" ""

# the output is a document pmaps reads, and pmaps diff compares
"$PMAPS" perf -i demo.data --pid 6509 > "$tmp/a" &&
	"$PMAPS" perf -i demo.data --pid 6509 --at 65466.061900 > "$tmp/b" &&
	"$PMAPS" -f "$tmp/a" > /dev/null 2>&1 &&
	"$PMAPS" diff "$tmp/a" "$tmp/a" > /dev/null
result output_reads_as_a_document
# read as a document, it is said to be pmaps perf's, not a copy of
# /proc/PID/maps (issue 32)
run "$PMAPS" -f "$tmp/a"
n=$(grep -c '^[0-9a-f]*-[0-9a-f]* ' "$tmp/a")
[ "$rc" = 0 ] && [ "$(cat "$tmp/err")" = "pmaps: $tmp/a: warning: $n VMAs and no range lines: a listing of pmaps perf, the mappings perf.data recorded, has no page state (save pmaps --raw PID for that)" ]
result output_read_back_says_what_it_is
run "$PMAPS" diff "$tmp/b" "$tmp/a"
[ "$rc" = 1 ] && grep -q "^vma	+	7f32094b2000-7f32094b3000	r-xp	.*libpmaps-perf.so$" "$tmp/out"
result diff_shows_the_library_text_mapped_after_at

run "$PMAPS" perf -i demo.data
expect_text several_processes_need_pid 1 "" \
	"pmaps perf: demo.data: records 2 processes; choose one with --pid: 6509 (perf_target) 6570 (true)"

run "$PMAPS" perf -i demo.data --pid 4242
expect_text no_such_pid 1 "" \
	"pmaps perf: demo.data: no mappings of pid 4242 are recorded"

# the child: forked with the parent's mappings, which its exec dropped
run "$PMAPS" perf -i demo.data --pid 6570
[ "$rc" = 0 ] && ! grep -q perf_target "$tmp/out" &&
	grep -q "/usr/bin/true$" "$tmp/out" &&
	grep -q "^@ .*forked from 6509 at 65466.062028, exec at" "$tmp/out"
result child_after_exec

# ---- files that are not whole, or not perf.data ----

head -c 6000 demo.data > "$tmp/cut.data"
run "$PMAPS" perf -i "$tmp/cut.data" --pid 6509
[ "$rc" = 2 ] && grep -q "perf_target$" "$tmp/out" &&
	[ "$(cat "$tmp/err")" = "pmaps perf: $tmp/cut.data: truncated: expected the data section at 0x108-0x1c00, the file ends at 0x1770" ]
result truncated_shows_what_it_can

{ printf 2ELIFREP; tail -c +9 demo.data; } > "$tmp/be.data"
run "$PMAPS" perf -i "$tmp/be.data"
expect_text big_endian 2 "" \
	"pmaps perf: $tmp/be.data: expected a little-endian perf.data, got one written on a big-endian machine (magic 2ELIFREP)"

run "$PMAPS" perf -i "$golden/perf-demo.maps"
expect_text not_perf_data 2 "" \
	"pmaps perf: $golden/perf-demo.maps: expected a perf.data file (magic PERFILE2), got 40 20 70 6d 61 70 73 20 at its start"

run "$PMAPS" perf -i "$tmp/none.data"
expect_text missing_file 1 "" \
	"pmaps perf: $tmp/none.data: No such file or directory"

# - is standard input, as perf report -i - reads it
"$PMAPS" perf -i - --pid 6509 < demo.data > "$tmp/out" 2> "$tmp/err" &&
	sed '1s/^@ pmaps perf: -:/@ pmaps perf: demo.data:/' "$tmp/out" > "$tmp/o" &&
	cmp -s "$tmp/o" "$golden/perf-demo.maps"
result from_stdin_same_mappings

# ---- usage ----

run "$PMAPS" perf -i demo.data --at 12x
expect_text bad_at 2 "" \
	"pmaps perf: --at: expected seconds as perf script shows them (e.g. 64732.305715), got '12x'
$usage_hint"

run "$PMAPS" perf demo.data
expect_text file_not_after_i 2 "" \
	"pmaps perf: unexpected argument 'demo.data' (the file comes after -i)
$usage_hint"

run "$PMAPS" help perf
[ "$rc" = 0 ] && grep -q "^Usage: pmaps perf" "$tmp/out"
result help

# ---- what perf itself reads ----

# mmap_lines FILE: the MMAP2 records perf script shows, as
# "TIME PID/TID START LEN PGOFF PERMS NAME", numbers in hex
perf_mmaps() {
	perf script -i "$1" --show-mmap-events 2> /dev/null |
		sed -n 's/^.* \([0-9]*\.[0-9]*\): PERF_RECORD_MMAP2 \([0-9]*\/[0-9]*\): \[0x\([0-9a-f]*\)(0x\([0-9a-f]*\)) @ \(0x\)\{0,1\}\([0-9a-f]*\) [^]]*\]: \([-rwxsp]\{4\}\) \(.*\)$/\1 \2 \3 \4 \6 \7 \8/p' |
		while read -r t who start len off perms name; do
			printf '%s %s %x %x %x %s %s\n' "$t" "$who" \
				$((0x$start)) $((0x$len)) $((0x$off)) \
				"$perms" "$name"
		done
}

# the same of pmaps perf --timeline
pmaps_mmaps() {
	"$PMAPS" perf -i "$1" --timeline |
		sed -n 's/^\([0-9.]*\) *\([0-9]*\/[0-9]*\) *mmap2 *\([0-9a-f]*\)-\([0-9a-f]*\) \([-rwxsp]*\) \([0-9a-f]*\) \(.*\)$/\1 \2 \3 \4 \6 \5 \7/p' |
		sed 's/  replaces .*//; s/  (made before recording.*//' |
		while read -r t who start end off perms name; do
			printf '%s %s %x %x %x %s %s\n' "$t" "$who" \
				$((0x$start)) $((0x$end - 0x$start)) \
				$((0x$off)) "$perms" "$name"
		done
}

# same_as_perf NAME FILE [REASON]: pmaps lists FILE's MMAP2 records as
# perf does; skipped for REASON, when given, as FILE was never written
same_as_perf() {
	if [ -n "${3:-}" ]; then
		skip "$1" "$3"
		return
	fi
	perf_mmaps "$2" > "$tmp/perf.mm"
	pmaps_mmaps "$2" > "$tmp/pmaps.mm"
	if [ -s "$tmp/perf.mm" ] && cmp -s "$tmp/perf.mm" "$tmp/pmaps.mm"; then
		ok "$1"
	else
		not_ok "$1"
		echo "# $(wc -l < "$tmp/perf.mm") MMAP2 records in perf script, $(wc -l < "$tmp/pmaps.mm") in pmaps perf --timeline"
		diff "$tmp/perf.mm" "$tmp/pmaps.mm" | head -20 | diag
	fi
}

# ---- pmaps record: refusals, which need no perf ----

run "$PMAPS" record
expect_text record_needs_a_target 2 "" \
	"pmaps record: expected -- CMD [ARG]... or -p PID
Try 'pmaps record --help' for more information."

# pmaps record follows its target with perf_event_open(2), before it
# runs a command: qemu-user (tests/unit/arm64.sh) does not emulate it,
# and there the tests that need it are skipped.
qemu_user_refuses perf_event_open "$PMAPS" record -o "$tmp/probe.data" -- true
no_perf=$qemu_refused
rm -f "$tmp/probe.data"

run "$PMAPS" record -o "$tmp/none.data" -- "$tmp/no-such-command"
if [ -n "$no_perf" ]; then
	skip record_command_not_found "$no_perf"
else
	expect_text record_command_not_found 1 "" \
		"pmaps record: $tmp/no-such-command: No such file or directory"
fi
[ ! -e "$tmp/none.data" ]
result record_command_not_found_leaves_no_file

# --snapshot-every is in seconds, as every interval (it was milliseconds)
run "$PMAPS" record --snapshot-every 500 -p 1
expect_text record_snapshot_every_in_seconds 2 "" \
	"pmaps record: --snapshot-every: expected seconds, got '500', which looks like milliseconds: for 500 ms write 0.5, for 500 seconds 500.0
Try 'pmaps record --help' for more information."
run "$PMAPS" record --snapshot-every 0 -p 1
expect_text record_snapshot_every_above_zero 2 "" \
	"pmaps record: --snapshot-every: expected seconds above 0 and up to 86400, e.g. 0.5, got '0'
Try 'pmaps record --help' for more information."

# kthreadd, PID 2 on Linux: refused as every command refuses it, not
# recorded until killed (the bound only keeps a failure from hanging)
if [ "$(cat /proc/2/comm 2>/dev/null)" != kthreadd ]; then
	skip record_kernel_thread_refused "PID 2 is not kthreadd here"
else
	run timeout -s INT $((10 * slow)) "$PMAPS" record -o "$tmp/none.data" -p 2
	expect_text record_kernel_thread_refused 1 "" \
		"pmaps record: PID 2 is a kernel thread: it has no user memory"
fi

# another user's process: perf_event_paranoid is explained
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	skip record_refused_explains_paranoid "needs root and setpriv(1)"
else
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMAPS" record -o "$tmp/none.data" -p 1
	[ "$rc" = 1 ] && grep -q "^pmaps record: perf_event_open of pid 1: Permission denied$" "$tmp/err" &&
		grep -q "^pmaps record: kernel.perf_event_paranoid is -\{0,1\}[0-9]*: " "$tmp/err"
	result_unless "$no_perf" record_refused_explains_paranoid
fi

have_perf=1
if ! command -v perf > /dev/null || ! perf version > /dev/null 2>&1; then
	have_perf=
	lacks "perf (linux-perf)" fixture_as_perf_script live_as_perf_script \
		live_dlopen_and_unseen_munmap live_pipe_mode \
		record_command_as_perf_script record_pid_as_perf_script
fi
[ -n "$have_perf" ] &&
same_as_perf fixture_as_perf_script demo.data

# ---- live: this machine's perf records perf_target ----

cc=${CC:-cc}
if ! $cc -O2 -shared -fPIC -o "$tmp/libpmaps-perf.so" "$here/perf_lib.c" \
	2> "$tmp/err" ||
   ! $cc -O2 -o "$tmp/perf_target" "$here/perf_target.c" -ldl 2>> "$tmp/err"
then
	diag "$tmp/err"
	not_ok live_builds
	tap_done
	exit
fi
head -c 8192 /dev/zero > "$tmp/data.bin"

if [ -n "$have_perf" ]; then
	perf record -q -e dummy -d -o "$tmp/live.data" -- "$tmp/perf_target" \
		"$tmp/libpmaps-perf.so" "$tmp/data.bin" /bin/true \
		> "$tmp/layout" 2> "$tmp/perf.err"
	if [ $? != 0 ] || [ ! -s "$tmp/layout" ]; then
		diag "$tmp/perf.err"
		not_ok live_records
	else
		same_as_perf live_as_perf_script "$tmp/live.data"

		# the library dlopen()ed, and data.bin though unmapped: perf
		# cannot know
		read -r _ dstart dend < "$tmp/layout"
		lpid=$(perf script -i "$tmp/live.data" --show-task-events 2> /dev/null |
			sed -n 's/.*PERF_RECORD_COMM exec: perf_target:\([0-9]*\)\/.*/\1/p' |
			head -n 1)
		run "$PMAPS" perf -i "$tmp/live.data" --pid "$lpid"
		[ "$rc" = 0 ] && grep -q "r-xp .*/libpmaps-perf.so$" "$tmp/out" &&
			grep -q "^0*$dstart-0*$dend r--p .*/data.bin$" "$tmp/out" &&
			grep -q "^@ not seen: munmap" "$tmp/out"
		result live_dlopen_and_unseen_munmap
	fi

	# pipe mode: the attributes come as records (a command that
	# writes nothing, as its output is perf's)
	perf record -q -e dummy -d -o - -- /bin/true > "$tmp/pipe.data" \
		2> /dev/null
	run "$PMAPS" perf -i - < "$tmp/pipe.data"
	[ "$rc" = 0 ] && grep -q " /usr/bin/true$" "$tmp/out"
	result live_pipe_mode
fi

# ---- pmaps record ----

run "$PMAPS" record -o "$tmp/rec.data" -- "$tmp/perf_target" \
	"$tmp/libpmaps-perf.so" "$tmp/data.bin" /bin/true
rpid=$(sed -n 's/^pmaps record: recording pid \([0-9]*\) into .*/\1/p' "$tmp/err")
read -r _ dstart dend < "$tmp/out"
cp "$tmp/err" "$tmp/rec.err"
run "$PMAPS" perf -i "$tmp/rec.data" --pid "${rpid:-0}"
[ "$rc" = 0 ] && grep -q "r-xp .*/libpmaps-perf.so$" "$tmp/out" &&
	grep -q "^0*$dstart-0*$dend r--p .*/data.bin$" "$tmp/out" &&
	grep -q "^@ .*exec at" "$tmp/out"
result_unless "$no_perf" record_command_read_back
[ -n "$have_perf" ] && same_as_perf record_command_as_perf_script "$tmp/rec.data" "$no_perf"

# -p, with snapshots at its start and end only: the test says when the
# target maps and unmaps, through pipes
mkfifo "$tmp/in" "$tmp/layout.fifo" "$tmp/rec.fifo"
"$tmp/perf_target" "$tmp/libpmaps-perf.so" "$tmp/data.bin" "" wait \
	< "$tmp/in" > "$tmp/layout.fifo" &
tpid=$!
# Every read and wait below is bounded: after the limit the watchdog kills
# both processes, which ends each read (end of file) and wait.
( sleep $((300 * slow)); kill -KILL "$tpid" 2> /dev/null ) &
watchdog=$!
exec 3> "$tmp/in" 5< "$tmp/layout.fifo"
# started, and data.bin mapped
read -r ready <&5
"$PMAPS" record -o "$tmp/p.data" --snapshot-every 86400.0 -p "$tpid" \
	2> "$tmp/rec.fifo" &
rpid=$!
( sleep $((300 * slow)); kill -KILL "$rpid" 2> /dev/null ) &
watchdog="$watchdog $!"
exec 6< "$tmp/rec.fifo"
# valgrind may warn first (of pidfd_open, which it does not know)
while read -r started <&6; do
	case $started in "pmaps record: "*) break ;; esac
done
echo go >&3
read -r _ dstart dend <&5
read -r _ astart aend <&5
kill -INT "$rpid"
wait "$rpid"
rc=$?
cat <&6 > "$tmp/rec.rest"
echo done >&3
exec 3>&- 5<&- 6<&-
wait "$tpid"
kill $watchdog 2> /dev/null
[ "$rc" = 0 ] && [ "$ready" = ready ] &&
	[ "$started" = "pmaps record: recording pid $tpid into $tmp/p.data" ] &&
	grep -q "^pmaps record: [0-9]* records, 2 snapshots written to $tmp/p.data$" "$tmp/rec.rest"
[ $? = 0 ] || { echo "# first line: $started"; diag "$tmp/rec.rest"; false; }
result_unless "$no_perf" record_pid_until_interrupted
run "$PMAPS" perf -i "$tmp/p.data" --timeline
grep -q "^[0-9.]* *$tpid/$tpid *unmap *0*$dstart-0*$dend r--p 00000000 .*/data.bin  (seen by snapshots: unmapped after " "$tmp/out" &&
	grep -q "^0.000000 *$tpid/$tpid *mmap2 *0*$dstart-0*$dend r--p 00000000 .*/data.bin  (made before recording" "$tmp/out"
result_unless "$no_perf" record_snapshots_show_the_unmap
run "$PMAPS" perf -i "$tmp/p.data"
[ "$rc" = 0 ] && ! grep -q "data.bin$" "$tmp/out" &&
	grep -q "r-xp .*/libpmaps-perf.so$" "$tmp/out" &&
	grep -q "^0*$astart-" "$tmp/out" &&
	grep -q "^@ before recording: [0-9]* mappings read from /proc/$tpid/maps when recording started;" "$tmp/out"
result_unless "$no_perf" record_pid_mappings
[ -n "$have_perf" ] && same_as_perf record_pid_as_perf_script "$tmp/p.data" "$no_perf"

tap_done
