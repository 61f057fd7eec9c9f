#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps watch: frames of two committed snapshots read in turn (golden
# files, checked by hand: see the comments), memory that stays flat over
# 300 frames, the filters, --changed, the terminal (q, SIGTERM) through
# script(1) and its scrolling through tmux, errors, and a live process
# changed between frames (root, pagemap).  Prints TAP.
# PMAPS names the binary; CC builds the target process.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
watch_pid=
changed_pid=
# a private tmux server for the scrolling tests, whose socket goes with $tmp
sock=$tmp/tmux.sock
have_tmux=
command -v tmux > /dev/null && have_tmux=1
cleanup() {
	[ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null
	[ -n "$changed_pid" ] && kill "$changed_pid" 2>/dev/null
	[ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null
	[ -n "$have_tmux" ] && tmux -S "$sock" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# frame N [FILE]: the lines of frame N
frame() {
	awk -v n="$1" '/^=== frame / { on = $3 == n } on' "${2:-$tmp/out}"
}

usage_hint="Try 'pmaps watch --help' for more information."

cd "$fix" || exit 1

if [ "$(getconf PAGESIZE)" != 4096 ]; then
	echo "1..0 # SKIP the fixtures assume 4 KiB pages"
	exit 0
fi

# ---- two snapshots in turn ----
#
# good-basic-later.txt differs from good-basic.txt: cat's page 8 and the
# heap's page 20 became young (Y), the anonymous VMA at 7f3a1c000000 is
# gone (its 4 pages vanish, the header marked '-'), the heap grew by 4
# pages and pages 30-31 appeared (+), heap pages 8-15 lost P, and the
# file's first page became dirty (D).  So frame 2 says resident 34 (-2)
# dirty 17 (-9) young 30 (+0), changed +2 -4 D1 Y2; frame 3, back to the
# first, marks the 8 heap pages D again, the anonymous pages +, pages
# 30-31 -.  Frame 1 has nothing to compare with: no marks, no deltas.
run "$PMAPS" watch -n 3 -i 0.001 -f good-basic.txt -f good-basic-later.txt
expect golden_text_view 0 "$golden/watch-basic.text" ""

[ "$(grep -c '^=== frame ' "$tmp/out")" = 3 ] &&
	! frame 1 | grep -q '^[-+DY]' &&
	frame 2 | grep -q '^total pages: resident 34 (-2)  dirty 17 (-9)  young 30 (+0)  changed +2 -4 D1 Y2$'
result frames_counted_and_marked

# Marked or not, every range line has the same fields for awk: MARK
# START-END PAGES FLAGS MAPCOUNT, "." where nothing changed.
awk '/^[-+DY.]   [0-9a-f]+-/ { n++; if (NF != 5) bad++ }
	END { exit !(n > 20 && !bad) }' "$tmp/out" &&
	grep -q '^[-+DY]   [0-9a-f]' "$tmp/out" && grep -q '^\.   [0-9a-f]' "$tmp/out"
result range_lines_same_fields_marked_or_not

# The map marks the same changes over its cells (+ - ! *) and lists
# them: the heap's pages 0-7 dirty, 8-15 young, page 20 became young (*),
# 30-31 appeared (+); the anonymous VMA is gone from the picture.
run "$PMAPS" watch --map --color=never -w 80 -n 3 -i 0.001 -f good-basic.txt \
	-f good-basic-later.txt
expect golden_map_view 0 "$golden/watch-basic.map" ""

run "$PMAPS" watch --map --color=always -w 80 -n 2 -i 0.001 -f good-basic.txt \
	-f good-basic-later.txt
# page 30 appeared, pte-dirty: bright white '+' over red
frame 2 | grep -q "${esc}\[1m${esc}\[38;5;231m${esc}\[48;5;196m+"
result map_marks_in_color

# One file is read again every frame: nothing changes.
run "$PMAPS" watch -n 2 -i 0.001 -f good-basic.txt
[ "$rc" = 0 ] && frame 2 | grep -q 'changed +0 -0 D0 Y0$' &&
	! frame 2 | grep -q '^[-+DY]'
result same_file_no_changes

# A withheld mapcount is shown as '?', where a count would be.
run "$PMAPS" watch -n 1 -i 0.001 -f withheld.txt
[ "$rc" = 0 ] &&
	grep -q '^\.   000000401000-000000411000       16 Y??U_??    ?$' "$tmp/out" &&
	grep -q '^\.   000000411000-000000430000       31 Y??U_??    1$' "$tmp/out"
result withheld_mapcount_shown_as_is

# Its D is '?' where P is clear: the dirty total counts the P pages and is
# only a lower bound, marked ">="; its Y are all known, so young is counted.
[ "$rc" = 0 ] && sed -n 2p "$tmp/out" |
	grep -qx 'total pages: resident 202  dirty >=41  young 202'
result withheld_dirty_total_unknown

# ---- filters ----
#
# Applied to each frame before it is compared.  --areas heap: the heap
# alone, its totals and its changes (pages 8-15 no longer pte-dirty, page
# 20 young, 30-31 appeared).
run "$PMAPS" watch -n 2 -i 0.001 --areas heap -f good-basic.txt \
	-f good-basic-later.txt
expect_text areas_select_vmas 0 "=== frame 1
total pages: resident 17  dirty 17  young 16
good-basic.txt: source file
. 55d0c9b1e000-55d0c9b3f000 rw-p [heap]
.   55d0c9b1e000-55d0c9b2e000       16 Y_AUP__    1
.   55d0c9b32000-55d0c9b33000        1 ____P__    1

=== frame 2
total pages: resident 19 (+2)  dirty 11 (-6)  young 19 (+3)  changed +2 -0 D0 Y1
good-basic-later.txt: source file
. 55d0c9b1e000-55d0c9b43000 rw-p [heap]
.   55d0c9b1e000-55d0c9b26000        8 Y_AUP__    1
.   55d0c9b26000-55d0c9b2e000        8 Y_AU___    1
Y   55d0c9b32000-55d0c9b33000        1 Y___P__    1
+   55d0c9b3c000-55d0c9b3e000        2 Y___P__    1" ""

# --flags D (PG_dirty): what enters the selection is marked +, what
# leaves it -: the file's first page became dirty, so its VMA enters; the
# anonymous VMA is gone; the heap, pte-dirty only, is never selected.
run "$PMAPS" watch -n 2 -i 0.001 --flags D -f good-basic.txt \
	-f good-basic-later.txt
frame 2 > "$tmp/frame"
[ "$rc" = 0 ] &&
	grep -qx 'total pages: resident 6 (-3)  dirty 6 (-3)  young 5 (-3)  changed +1 -4 D0 Y1' "$tmp/frame" &&
	grep -qx '+ 7f3a1d000000-7f3a1d200000 r--s /tmp/my file (deleted)' "$tmp/frame" &&
	grep -qx -- '- 7f3a1c000000-7f3a1c021000 rw-p \[anon\]' "$tmp/frame" &&
	! grep -q 'heap' "$tmp/out"
result flags_select_ranges

# --range with --map: the heap cut to the window, as pmaps map cuts it,
# the changes drawn over its cells (page 20 young, 30-31 appeared).
run "$PMAPS" watch --map --color=never -w 80 -n 2 -i 0.001 \
	--range 55d0c9b2e000,55d0c9b43000 -f good-basic.txt -f good-basic-later.txt
frame 2 > "$tmp/frame"
[ "$rc" = 0 ] &&
	[ "$(grep -c '^[0-9a-f]\{1,\}-[0-9a-f]* ' "$tmp/frame")" = 1 ] &&
	grep -qx '55d0c9b2e000-55d0c9b43000 rw-p \[heap\]  21 pages' "$tmp/frame" &&
	grep -qx '  55d0c9b2e000 \.\.\*\.\.\.\.+\.\.\.' "$tmp/frame"
result map_range_cuts_rows

run "$PMAPS" watch --areas heap, -f good-basic.txt
expect_text bad_areas_exit_2 2 "" "pmaps watch: --areas: expected PATTERN[,PATTERN...], got 'heap,'
$usage_hint"

# ---- only what changed ----
#
# --changed: frame 1, with nothing to compare, is the whole frame; frame 2
# only the VMAs with a mark (see golden_text_view): cat's data (page 8
# young), the heap, the anonymous VMA gone and the file (its first page
# dirty), each with all its ranges; not cat's text, the stack, the vdso.
run "$PMAPS" watch --changed -n 2 -i 0.001 -f good-basic.txt \
	-f good-basic-later.txt
frame 1 "$golden/watch-basic.text" > "$tmp/want"
cat >> "$tmp/want" <<'EOF'
=== frame 2
total pages: resident 34 (-2)  dirty 17 (-9)  young 30 (+0)  changed +2 -4 D1 Y2
good-basic-later.txt: source file
. 55d0c8a07000-55d0c8a09000 rw-p /usr/bin/cat
.   55d0c8a07000-55d0c8a08000        1 Y__UPD_    1
Y   55d0c8a08000-55d0c8a09000        1 Y__U_DW    1
. 55d0c9b1e000-55d0c9b43000 rw-p [heap]
.   55d0c9b1e000-55d0c9b26000        8 Y_AUP__    1
.   55d0c9b26000-55d0c9b2e000        8 Y_AU___    1
Y   55d0c9b32000-55d0c9b33000        1 Y___P__    1
+   55d0c9b3c000-55d0c9b3e000        2 Y___P__    1
- 7f3a1c000000-7f3a1c021000 rw-p [anon]
-   7f3a1c000000-7f3a1c004000        4 YRAUPD_    1
. 7f3a1d000000-7f3a1d200000 r--s /tmp/my file (deleted)
D   7f3a1d000000-7f3a1d001000        1 __AUPD_    1
.   7f3a1d1ff000-7f3a1d200000        1 Y_AU___    2
EOF
expect changed_shows_changed_vmas 0 "$tmp/want" ""

# Nothing changed: a line says so, rather than an empty list.
run "$PMAPS" watch --changed -n 2 -i 0.001 -f good-basic.txt
frame 2 > "$tmp/frame"
[ "$rc" = 0 ] && [ "$(sed -n '4,$p' "$tmp/frame")" = "no VMA changed" ]
result changed_says_none

# With --map, the picture of the same VMAs now (the gone one has no
# cells), and the list of changed ranges after it.
run "$PMAPS" watch --map --changed --color=never -w 80 -n 2 -i 0.001 \
	-f good-basic.txt -f good-basic-later.txt
frame 2 | grep '^[0-9a-f]\{1,\}-[0-9a-f]* ' | cut -d' ' -f1 > "$tmp/titles"
printf '%s\n' 55d0c8a07000-55d0c8a09000 55d0c9b1e000-55d0c9b43000 \
	7f3a1d000000-7f3a1d200000 > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/titles" "$tmp/want" &&
	frame 2 | grep -qx 'changed: 5 ranges' &&
	[ "$(frame 1 | grep -c '^[0-9a-f]\{1,\}-[0-9a-f]* ')" = 10 ]
result changed_map_draws_changed_vmas

# ---- memory stays flat ----

# Two documents of 2000 ranges each (pages 4i, then 4i+1 and 4i+2: each
# frame to B says +4000 -2000), read in turn for 300 frames; the
# heap in use after frame 300 must be what it was after frame 50 (both
# read the same document), and the peak RSS must not have grown.
awk 'BEGIN {
	base = 34152235008
	print "7f3a1c000000-7f3a1e000000 rw-p 00000000 00:00 0 "
	for (i = 0; i < 2000; i++)
		printf "%.0f\t1\tY__UP__\t1\n", base + 4 * i
}' > "$tmp/big-a.txt"
awk 'BEGIN {
	base = 34152235008
	print "7f3a1c000000-7f3a1e000000 rw-p 00000000 00:00 0 "
	for (i = 0; i < 2000; i++)
		printf "%.0f\t2\tYRAUPD_\t1\n", base + 4 * i + 1
}' > "$tmp/big-b.txt"
# Under valgrind (tests/unit/Makefile's pmaps-valgrind; not any wrapper
# script: tests/unit/arm64.sh runs pmaps under qemu-user by one) both
# checks below skip, and 300 frames would take 90 s: 60 still run the
# frame loop under its leak check.
frames=300
grep -qs valgrind "$PMAPS" && frames=60
run "$PMAPS" watch --self-stats -n $frames -i 0.001 -f "$tmp/big-a.txt" \
	-f "$tmp/big-b.txt"
frame 50 | grep '^self:' > "$tmp/at50"
frame $frames | grep '^self:' > "$tmp/at300"
heap50=$(sed -n 's/.*heap in use \([0-9]*\) bytes.*/\1/p' "$tmp/at50")
heap300=$(sed -n 's/.*heap in use \([0-9]*\) bytes.*/\1/p' "$tmp/at300")
hwm50=$(sed -n 's/.*VmHWM \([0-9]*\) kB.*/\1/p' "$tmp/at50")
hwm300=$(sed -n 's/.*VmHWM \([0-9]*\) kB.*/\1/p' "$tmp/at300")
echo "# frame 50: $(cat "$tmp/at50")"
echo "# frame 300: $(cat "$tmp/at300")"
# valgrind's and ASan's allocators do not report to mallinfo2(); glibc's
# does, so a 0 there is a failure, not a reason to skip.
if [ "$heap50" = 0 ] &&
   { grep -qs valgrind "$PMAPS" || grep -q __asan_init "$PMAPS"; }; then
	skip heap_flat_over_300_frames "mallinfo2() sees no heap under valgrind or ASan"
else
	[ "$rc" = 0 ] && [ -n "$heap50" ] && [ "$heap50" != 0 ] &&
		[ "$heap50" = "$heap300" ] &&
		frame 300 | grep -q 'changed +4000 -2000 D0 Y0$'
	result heap_flat_over_300_frames
fi
# valgrind and ASan keep freed memory aside for a while, growing RSS
# whatever the program does: there the heap and their own leak checks say it.
if grep -qs valgrind "$PMAPS" || grep -q __asan_init "$PMAPS"; then
	skip rss_flat_over_300_frames "under valgrind or ASan"
else
	[ -n "$hwm50" ] && [ "$hwm50" = "$hwm300" ]
	result rss_flat_over_300_frames
fi

# ---- the terminal ----

if ! command -v script > /dev/null; then
	skip tty_q_quits "no script(1)"
	skip tty_sigterm_restores "no script(1)"
elif ! script -qec true /dev/null < /dev/null > /dev/null 2>&1; then
	skip tty_q_quits "script(1) cannot open a pseudo-terminal here"
	skip tty_sigterm_restores "script(1) cannot open a pseudo-terminal here"
else
	# q while waiting a minute for frame 2: one frame, the screen given
	# back, status 0.  (timeout only ends a watch that ignored q.)
	printf q | timeout -k 5 30 script -qec \
		"'$PMAPS' watch -i 60 -f good-basic.txt; echo rc=\$?" \
		/dev/null > "$tmp/out" 2>&1
	[ "$(grep -c 'pmaps watch: frame' "$tmp/out")" = 1 ] &&
		grep -q 'pmaps watch: frame 1, every 60 s; q quits' "$tmp/out" &&
		grep -q "${esc}\[?25h${esc}\[?1049lrc=0" "$tmp/out"
	result tty_q_quits

	# SIGTERM once the terminal is raw: status 0, the modes restored.
	cat > "$tmp/term.sh" <<EOF
'$PMAPS' watch -i 60 -f good-basic.txt < /dev/tty > /dev/tty &
p=\$!
i=0
until stty -a | grep -q -- '-icanon'; do
	[ \$i -ge 600 ] && break
	sleep 0.05
	i=\$((i + 1))
done
kill -TERM \$p
wait \$p
echo rc=\$?
stty -a | grep -q -- '-icanon' || echo modes restored
EOF
	timeout -k 5 60 script -qec "sh '$tmp/term.sh'" /dev/null < /dev/null \
		> "$tmp/out" 2>&1
	grep -q 'rc=0' "$tmp/out" && grep -q 'modes restored' "$tmp/out" &&
		grep -q "${esc}\[?1049l" "$tmp/out"
	result tty_sigterm_restores
fi

# ---- scrolling, in tmux ----
#
# As test_top.sh drives pmaps top: a detached tmux of 80x24, keys sent
# with send-keys, the screen read with capture-pane, each wait polling a
# bounded number of times for what the screen should show.  demo-6.1's
# frame is 2 lines of title and totals, which stay, and 74 after them: 21
# fit above the status line.

tm() {
	tmux -S "$sock" -f "$tmp/tmux.conf" "$@"
}

# start_watch ARGS...: pmaps watch ARGS (no blanks) in a new session,
# which says its exit status once it has ended (under valgrind or ASan, a
# report is a status of its own) and stays for the screen to be read
start_watch() {
	tm kill-session -t watch 2> /dev/null
	: > "$tmp/screen"
	tm new-session -d -s watch -x 80 -y 24 -c "$fix" \
		"'$PMAPS' watch $*; echo \"pmaps watch exited with status \$?\"; exec sleep 3600"
}

# screen_until CHECK...: poll until CHECK, run on a fresh capture in
# $tmp/screen, succeeds: 30 s at most (5 min under valgrind)
screen_until() {
	i=0
	until tm capture-pane -p -t watch > "$tmp/screen" 2> /dev/null &&
	      "$@"; do
		i=$((i + 1))
		[ $i -ge $((300 * slow)) ] && return 1
		sleep 0.1
	done
}

# shows TEXT: the screen has a line TEXT (fixed, whole)
shows() {
	grep -qxF -- "$1" "$tmp/screen"
}

# frame_not N: the title names a frame other than N
frame_not() {
	! grep -q "^pmaps watch: frame $1," "$tmp/screen"
}

# row N TEXT: row N of the screen is TEXT, without its trailing blanks
row() {
	[ "$(sed -n "${1}p" "$tmp/screen" | sed 's/ *$//')" = "$2" ]
}

show_screen() {
	echo "# screen:"
	diag "$tmp/screen"
}

scroll_tests="tty_scroll_first_screen tty_scroll_end tty_scroll_line
	tty_scroll_page tty_scroll_home tty_scroll_q_quits
	tty_scroll_kept_across_frames tty_scroll_live_q_quits"
if [ -z "$have_tmux" ]; then
	lacks tmux $scroll_tests
else
	write_tmux_conf "$tmp/tmux.conf"
	result_diag=show_screen
	first='. 000000400000-000000401000 r--p /bin/demo'
	last='.   7ffcdf6ea000-7ffcdf6eb000        1 YR_____    3'
	status='Up/Down, PgUp/PgDn, Home/End scroll'

	# The first screen: the title, then the frame's first lines; the
	# last line of the frame is not there.
	start_watch -i 60 -f guest/demo-6.1.txt
	screen_until shows "lines 1-21 of 74; $status" &&
		row 1 'pmaps watch: frame 1, every 60 s; q quits' &&
		row 3 'guest/demo-6.1.txt: source file' && row 4 "$first" &&
		! shows "$last"
	result tty_scroll_first_screen

	# End: the last line, on the row above the status; the title stays.
	tm send-keys -t watch End
	screen_until shows "lines 54-74 of 74; $status" &&
		row 23 "$last" &&
		row 1 'pmaps watch: frame 1, every 60 s; q quits' &&
		! shows "$first"
	result tty_scroll_end

	# Home, then a line down with j: the frame's second line is first.
	tm send-keys -t watch Home j
	screen_until shows "lines 2-22 of 74; $status" && row 3 "$first"
	result tty_scroll_line

	# PgDn a screen on, PgUp back, k the line up.
	tm send-keys -t watch NPage
	screen_until shows "lines 23-43 of 74; $status" && ! shows "$first" &&
		tm send-keys -t watch PPage k &&
		screen_until shows "lines 1-21 of 74; $status" && row 4 "$first"
	result tty_scroll_page

	tm send-keys -t watch G g
	screen_until shows "lines 1-21 of 74; $status" && row 4 "$first"
	result tty_scroll_home

	tm send-keys -t watch q
	screen_until shows "pmaps watch exited with status 0"
	result tty_scroll_q_quits

	# Frames go on while scrolled, and keep the place: a later frame
	# still shows the end.
	start_watch -i 0.1 -f guest/demo-6.1.txt
	screen_until shows "lines 1-21 of 74; $status" &&
		tm send-keys -t watch End &&
		screen_until shows "lines 54-74 of 74; $status" &&
		frame_now=$(sed -n 's/^pmaps watch: frame \([0-9]*\),.*/\1/p' "$tmp/screen") &&
		screen_until frame_not "$frame_now" &&
		shows "lines 54-74 of 74; $status" && row 23 "$last"
	result tty_scroll_kept_across_frames

	tm send-keys -t watch q
	screen_until shows "pmaps watch exited with status 0"
	result tty_scroll_live_q_quits
	result_diag=
	tm kill-session -t watch 2> /dev/null
fi

# ---- usage and errors ----

run "$PMAPS" watch --help
grep -q -- "--interval" "$tmp/out" && grep -q -- "--frames" "$tmp/out" &&
	grep -q -- "--map" "$tmp/out" && grep -q -- "--areas" "$tmp/out" &&
	grep -q -- "--changed" "$tmp/out" && [ "$rc" = 0 ]
result help

run "$PMAPS" watch
expect_text no_target_exit_2 2 "" "pmaps watch: expected a PID, -f FILE or --cgroup PATH
$usage_hint"

run "$PMAPS" watch -f good-basic.txt 1
expect_text pid_and_file_exit_2 2 "" "pmaps watch: expected a PID or -f FILE, not both
$usage_hint"

run "$PMAPS" watch 1 2
expect_text two_pids_exit_2 2 "" "pmaps watch: expected one PID, got '2' too
$usage_hint"

run "$PMAPS" watch -i soon 1
expect_text bad_interval_exit_2 2 "" "pmaps watch: --interval: expected seconds above 0 and up to 86400, e.g. 0.5, got 'soon'
$usage_hint"

# -i was milliseconds once: a whole number from 100 is refused as such.
run "$PMAPS" watch -i 100 -f good-basic.txt
expect_text interval_100_is_milliseconds 2 "" "pmaps watch: --interval: expected seconds, got '100', which looks like milliseconds: for 100 ms write 0.1, for 100 seconds 100.0
$usage_hint"

# Just below the guess, and past it with a decimal point, are seconds.
run "$PMAPS" watch -n 1 -i 99 -f good-basic.txt
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && grep -q '^=== frame 1$' "$tmp/out"
result interval_99_is_seconds
run "$PMAPS" watch -n 1 -i 300.0 -f good-basic.txt
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && grep -q '^=== frame 1$' "$tmp/out"
result interval_with_point_is_seconds

run "$PMAPS" watch -n 0 1
expect_text bad_frames_exit_2 2 "" "pmaps watch: --frames: expected a number from 1, got '0'
$usage_hint"

run "$PMAPS" watch -f no-such.txt
expect_text missing_file_exit_1 1 "" "pmaps watch: no-such.txt: No such file or directory"

# A document that turns malformed: the frames before it, then status 2.
run "$PMAPS" watch -n 3 -i 0.001 -f good-basic.txt -f bad-count.txt
[ "$rc" = 2 ] && [ "$(grep -c '^=== frame ' "$tmp/out")" = 1 ] &&
	grep -qx "pmaps watch: bad-count.txt:2: expected decimal COUNT, got '+1'" "$tmp/err"
result malformed_later_exit_2

pid_max=$(cat /proc/sys/kernel/pid_max)
run "$PMAPS" watch "$pid_max"
expect_text unknown_pid_exit_1 1 "" "pmaps watch: no process $pid_max"

# ---- a live process changed between frames (root, pagemap) ----

# 16 anonymous pages, 0-3 written; on SIGUSR1 it writes 4-7, drops 0-1
# (MADV_DONTNEED) and says "done".  8 more, written once, in a VMA of
# their own (PROT_NONE pages on either side), are left alone.
cat > "$tmp/target.c" <<'EOF'
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *guard, *anon, *other;

	signal(SIGUSR1, on_usr1);
	guard = mmap(NULL, 27 * ps, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED)
		return 1;
	anon = guard + ps;
	other = guard + 18 * ps;
	if (mprotect(anon, 16 * ps, PROT_READ | PROT_WRITE) ||
	    madvise(anon, 16 * ps, MADV_NOHUGEPAGE) ||
	    mprotect(other, 8 * ps, PROT_READ | PROT_WRITE) ||
	    madvise(other, 8 * ps, MADV_NOHUGEPAGE))
		return 1;
	memset(anon, 1, 4 * ps);
	memset(other, 3, 8 * ps);
	printf("%lx %lx\n", (unsigned long)anon, (unsigned long)other);
	fflush(stdout);
	while (!go)
		pause();
	memset(anon + 4 * ps, 2, 4 * ps);
	madvise(anon, 2 * ps, MADV_DONTNEED);
	printf("done\n");
	fflush(stdout);
	for (;;)
		pause();
}
EOF

live_tests="live_changes_marked live_changed_only"
if [ "$(id -u)" != 0 ]; then
	for t in $live_tests; do skip "$t" "needs root"; done
elif ! spawn_target watch-target 600 0.05 ||
     ! read -r anon other < "$tmp/layout" || [ -z "$other" ]; then
	diag "$tmp/err"
	for t in $live_tests; do not_ok "$t"; done
	echo "# could not start the target process"
else
	a() { printf '%x' $((0x$anon + $1 * 4096)); }
	# marked SIGN [FILE]: the pages of the target's 16 that lines marked
	# SIGN ("+" added, "-" gone) name, over all frames so far of FILE
	# ($tmp/live), in order and each as often as it is named.
	marked() {
		grep "^[$1]   [0-9a-f]*-[0-9a-f]* " "${2:-$tmp/live}" |
			while read -r _ range _; do
				first=$(((0x${range%-*} - 0x$anon) / 4096))
				end=$(((0x${range#*-} - 0x$anon) / 4096))
				while [ "$first" -lt "$end" ]; do
					[ "$first" -ge 0 ] && [ "$first" -lt 16 ] &&
						echo "$first"
					first=$((first + 1))
				done
			done | sort -n | tr '\n' ' ' | sed 's/ $//'
	}
	# wait_for_pages SIGN PAGES [FILE]: until lines marked SIGN name PAGES
	wait_for_pages() {
		i=0
		until [ "$(marked "$1" "${3:-}")" = "$2" ]; do
			[ $i -ge $((600 * slow)) ] && return 1
			sleep 0.05
			i=$((i + 1))
		done
	}
	"$PMAPS" watch --source=pagemap -i 0.05 "$target_pid" > "$tmp/live" \
		2> "$tmp/err" &
	watch_pid=$!
	# the same change, seen by a watch that shows only what changed
	"$PMAPS" watch --changed --source=pagemap -i 0.05 "$target_pid" \
		> "$tmp/changed" 2> "$tmp/err-changed" &
	changed_pid=$!
	# Each step waits for the one before: a step that timed out says so
	# and fails the test, rather than let the later checks run on a
	# process in some other state.  --changed has compared one frame
	# before the change.
	if ! wait_for_line "$tmp/live" "^=== frame 1" ||
	   ! wait_for_line "$tmp/changed" "^=== frame 2"; then
		echo "# pmaps watch showed no frame 1, or --changed no frame 2"
	elif ! kill -USR1 "$target_pid" || ! wait_for_line "$tmp/layout" done; then
		echo "# the target did not say done after SIGUSR1"
	elif ! wait_for_pages + "4 5 6 7"; then
		echo "# no frames marked pages 4-7 added"
	elif ! wait_for_pages - "0 1"; then
		echo "# no frames marked pages 0-1 gone"
	elif ! wait_for_pages + "4 5 6 7" "$tmp/changed" ||
	     ! wait_for_pages - "0 1" "$tmp/changed"; then
		echo "# --changed marked not pages 4-7 added and 0-1 gone"
	fi
	kill -TERM "$watch_pid" "$changed_pid"
	wait_gone "$changed_pid" 600 0.05 "pmaps watch --changed after SIGTERM"
	changed_rc=$rc
	changed_pid=
	wait_gone "$watch_pid" 600 0.05 "pmaps watch after SIGTERM"
	watch_pid=
	n=$(sed -n 's/^=== frame \([0-9]*\)$/\1/p' "$tmp/live" | tail -n 1)
	# A frame may fall inside the target's memset or between it and the
	# madvise: the change can then be marked over two frames, but each
	# page once.
	[ "$rc" = 0 ] && [ "$(marked +)" = "4 5 6 7" ] &&
		[ "$(marked -)" = "0 1" ]
	result live_changes_marked
	[ "$rc" = 0 ] || diag "$tmp/err"
	echo "# in $n frames: added $(marked +), gone $(marked -)"

	# --changed: the 8 pages' VMA, left alone, in frame 1 (where every
	# VMA is) and in no later frame; the 16 pages' VMA in a later one.
	later() {
		awk '/^=== frame / { n = $3 } n > 1' "$tmp/changed"
	}
	[ "$changed_rc" = 0 ] &&
		frame 1 "$tmp/changed" | grep -Eq "^\. 0*$other-" &&
		! later | grep -Eq "^[-+.] 0*$other-" &&
		later | grep -Eq "^\. 0*$anon-" &&
		[ "$(marked + "$tmp/changed")" = "4 5 6 7" ]
	result live_changed_only
	[ "$changed_rc" = 0 ] || diag "$tmp/err-changed"
	echo "# --changed: $(grep -c '^=== frame' "$tmp/changed") frames, $(later | grep -c '^no VMA changed$') with no VMA changed"
fi

tap_done
