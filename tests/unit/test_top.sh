#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps top, used as a person would: in a detached tmux of a fixed size
# (120x40, private server), keys typed with send-keys, the screen read with
# capture-pane.  Prints TAP.  PMAPS names the binary (default: built with
# make -C userspace); CC builds the target process of the live tests, which
# need root (the pagemap source).  Without tmux the screen tests skip.
#
# A test waits for the screen to show what it expects, polling a bounded
# number of times (many more when PMAPS runs pmaps under valgrind); the
# assertion is on what the screen shows, never on how long it took.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

# a private tmux server, whose socket goes with $tmp
sock=$tmp/tmux.sock
target_pid=
have_tmux=
command -v tmux > /dev/null && have_tmux=1
cleanup() {
	[ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null
	[ -n "$have_tmux" ] && tmux -S "$sock" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# 0.1 s apart: 30 s for pmaps, 5 min for pmaps under valgrind
polls=$((300 * slow))

usage_hint="Try 'pmaps top --help' for more information."

# ---- without a terminal ----

cd "$fix" || exit 1

run "$PMAPS" top --help
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	head -n 1 "$tmp/out" | grep -qx 'Usage: pmaps top \[OPTION\]... PID' &&
	grep -q '^Keys:' "$tmp/out"
result top_help_exit_0

run "$PMAPS" top
expect_text top_no_target 2 "" "pmaps top: expected one PID, -p NAME or -f FILE
$usage_hint"

run "$PMAPS" top 1 -f good-basic.txt
expect_text top_two_targets 2 "" "pmaps top: expected one PID, -p NAME or -f FILE
$usage_hint"

run "$PMAPS" top -i 0 -f good-basic.txt
expect_text top_bad_interval 2 "" "pmaps top: --interval: expected seconds above 0 and up to 86400, e.g. 0.5, got '0'
$usage_hint"

run "$PMAPS" top -i 250 -f good-basic.txt
expect_text top_interval_250_is_milliseconds 2 "" "pmaps top: --interval: expected seconds, got '250', which looks like milliseconds: for 250 ms write 0.25, for 250 seconds 250.0
$usage_hint"

# Named "pmaps top:" as map and watch name theirs (issue 32).
run "$PMAPS" top -f no-such-file.txt
expect_text top_missing_file 1 "" "pmaps top: no-such-file.txt: No such file or directory"

run "$PMAPS" top -f bad-count.txt
expect_text top_malformed_file 2 "" "pmaps top: bad-count.txt:2: expected decimal COUNT, got '+1'"

if [ "$(cat /proc/2/comm 2>/dev/null)" != kthreadd ]; then
	skip top_kernel_thread "PID 2 is not kthreadd here"
else
	run "$PMAPS" top 2
	expect_text top_kernel_thread 1 "" "pmaps top: PID 2 is a kernel thread: it has no user memory"
fi

run "$PMAPS" top -f good-basic.txt < /dev/null
expect_text top_needs_a_terminal 2 "" "pmaps top: needs a terminal: standard input and output must be one
$usage_hint"

# ---- on a screen ----

# what a failed test shows: the screen, not the last run's output
show_screen() {
	echo "# screen:"
	diag "$tmp/screen"
}
result_diag=show_screen

screen_tests="top_file_screen_golden top_list_is_default_view
	top_down_selects_next top_pgdn_moves_a_screen top_tab_is_address_view
	top_no_dump_of_a_file top_back_to_list top_search_address_in_range
	top_search_address_in_gap top_search_name top_search_again
	top_search_not_found top_filter_flags top_filter_error_is_parsers
	top_filter_cleared top_help top_quit_restores_screen
	top_signal_restores_screen top_file_warning_on_screen top_interval_reloads
	top_interval_keeps_last_good top_interval_quit"
live_tests="top_live_stats_match_proc top_live_search_address
	top_live_detail_is_address_view top_live_dump_shows_bytes
	top_live_dump_previous_page top_live_dump_error top_live_reload
	top_live_quit"

tm() {
	tmux -S "$sock" -f "$tmp/tmux.conf" "$@"
}

# The pane runs this: a line to find once pmaps top has left the screen,
# pmaps top, whose PID (valgrind's, under valgrind) is kept, and its exit
# status.  The pane stays (sleep) so that the screen can be read after.
cat > "$tmp/run-top" <<EOF
#!/bin/sh
echo "screen before pmaps top"
sh -c 'echo \$\$ > "\$0"; exec "\$@"' "$tmp/top.pid" "$PMAPS" top "\$@"
echo "pmaps top exited with status \$?"
exec sleep 3600
EOF
chmod +x "$tmp/run-top"
# The whole 40 rows for the pane, and a server that outlives its sessions.
write_tmux_conf "$tmp/tmux.conf"

# start_top ARGS...: pmaps top ARGS in a new window (no blanks in ARGS)
start_top() {
	tm kill-session -t top 2> /dev/null
	rm -f "$tmp/top.pid"
	: > "$tmp/screen"
	tm new-session -d -s top -x 120 -y 40 "$tmp/run-top $*"
}

# wait_for [-E] TEXT: poll until the screen shows TEXT (fixed, or with -E
# an extended regex); the screen is left in $tmp/screen.
wait_for() {
	mode=-F
	if [ "$1" = -E ]; then
		mode=-E
		shift
	fi
	i=0
	while :; do
		tm capture-pane -p -t top > "$tmp/screen" 2> /dev/null
		grep -q $mode -- "$1" "$tmp/screen" && return 0
		i=$((i + 1))
		[ $i -ge $polls ] && return 1
		sleep 0.1
	done
}

# wait_until CHECK...: poll until the command CHECK, run on a fresh
# capture in $tmp/screen, succeeds.  For a test that asserts several things
# of one screen: pmaps top may show the first before it draws the rest
# (under valgrind, long enough for one capture to fall in between).
wait_until() {
	i=0
	while :; do
		tm capture-pane -p -t top > "$tmp/screen" 2> /dev/null
		"$@" && return 0
		i=$((i + 1))
		[ $i -ge $polls ] && return 1
		sleep 0.1
	done
}

# keys KEY...: tmux key names; text TEXT: typed as is
keys() {
	tm send-keys -t top "$@"
}

text() {
	tm send-keys -t top -l "$1"
}

# wait_exit: wait until pmaps top has ended; its status in $exit_status
wait_exit() {
	wait_for "pmaps top exited with status" &&
		exit_status=$(sed -n 's/^pmaps top exited with status //p' \
			      "$tmp/screen")
}

# rows: the list rows on the screen (rows 5..39), without the marker column
rows() {
	sed -n '5,39p' "$tmp/screen" | cut -c3-
}

# selected: the selected list row, without the marker
selected() {
	sed -n 's/^> //p' "$tmp/screen"
}

# Flatten: rows of the screen joined by blanks, as a message wraps.
flat() {
	tr '\n' ' ' < "$tmp/screen"
}

if [ -z "$have_tmux" ]; then
	lacks tmux $screen_tests $live_tests
	tap_done
	exit
fi

# A committed capture of the guest, with 14 VMAs and 59 ranges: 73 rows.
demo=guest/demo-6.1.txt
"$PMAPS" --color=never -f "$demo" > "$tmp/default" 2> /dev/null
nr_rows=$(($(wc -l < "$tmp/default") - 2))

start_top -f "$demo"
wait_for "row 1/$nr_rows" &&
	cmp -s "$tmp/screen" "$golden/top-demo-6.1.screen"
result top_file_screen_golden
cmp -s "$tmp/screen" "$golden/top-demo-6.1.screen" ||
	diff "$golden/top-demo-6.1.screen" "$tmp/screen" | diag

# The list is the default view without its title and total, row for row.
sed -n "2,36p" "$tmp/default" > "$tmp/want"
rows > "$tmp/got"
cmp -s "$tmp/got" "$tmp/want" && [ "$(selected)" = "$(sed -n 2p "$tmp/default")" ]
result top_list_is_default_view

keys Down Down
wait_for "row 3/$nr_rows" && [ "$(selected)" = "$(sed -n 4p "$tmp/default")" ]
result top_down_selects_next

# 35 list rows: PgDn from row 3 selects row 38 and scrolls a screen, so
# the first VMA is gone and row 38 is the 3rd row shown (top row 36).
keys NPage
wait_for "row 38/$nr_rows" &&
	[ "$(selected)" = "$(sed -n 39p "$tmp/default")" ] &&
	[ "$(sed -n 7p "$tmp/screen")" = "> $(selected)" ] &&
	! grep -q '000000400000-000000401000 r--p' "$tmp/screen"
result top_pgdn_moves_a_screen

# Tab: the selected range's first page, exactly as pmaps --address shows it.
page=$(printf '%x' "0x$(selected | sed 's/^ *\([0-9a-f]*\)-.*/\1/')")
"$PMAPS" --color=never --address "$page" -f "$demo" > "$tmp/want" 2>&1
keys Tab
wait_for "detail of page 0x$page " &&
	sed -n "5,$((4 + $(wc -l < "$tmp/want")))p" "$tmp/screen" > "$tmp/got" &&
	cmp -s "$tmp/got" "$tmp/want"
result top_tab_is_address_view

keys Enter
wait_for "no hex dump: $demo is a saved document, not a live process"
result top_no_dump_of_a_file

keys q
wait_for "row 38/$nr_rows"
result top_back_to_list

# An address in a range selects the range; in no range, its VMA.
keys /
text 7f1dadf7d000
keys Enter
wait_for "page 0x7f1dadf7d000" &&
	[ "$(selected)" = "  7f1dadf7c000-7f1dadf82000   24.0K Y__UP__   1" ]
result top_search_address_in_range

keys /
text 0x7f1dadf7a000
keys Enter
wait_for "page 0x7f1dadf7a000" &&
	[ "$(selected)" = "7f1dadf76000-7f1dadf96000 rw-p  128.0K [anon]" ]
result top_search_address_in_gap

# A name: the next VMA after the selected one whose name has it, wrapping
# around; n finds the one after.
keys /
text demo
keys Enter
wait_for "page 0x400000" &&
	[ "$(selected)" = "000000400000-000000401000 r--p    4.0K /bin/demo" ]
result top_search_name

keys n
wait_for "page 0x401000" &&
	[ "$(selected)" = "000000401000-00000047e000 r-xp  500.0K /bin/demo" ]
result top_search_again

keys /
text nosuchname
keys Enter
wait_for "not found: nosuchname" &&
	[ "$(selected)" = "000000401000-00000047e000 r-xp  500.0K /bin/demo" ]
result top_search_not_found

# f takes --flags syntax: the rows are what pmaps --flags shows; the VMA
# selected stays selected (its header is row 3 of the filtered list).
"$PMAPS" --color=never --flags A -f "$demo" > "$tmp/filtered" 2> /dev/null
nr_filtered=$(($(wc -l < "$tmp/filtered") - 2))
keys f
text A
keys Enter
wait_for "row 3/$nr_filtered " &&
	grep -q "filter: A " "$tmp/screen" &&
	rows | sed '/^$/d' > "$tmp/got" &&
	sed '1d;$d' "$tmp/filtered" > "$tmp/want" &&
	cmp -s "$tmp/got" "$tmp/want" &&
	grep -q "^$(tail -n 1 "$tmp/filtered" | cut -c1-30)" "$tmp/screen"
result top_filter_flags

"$PMAPS" --flags X -f "$demo" 2> "$tmp/err" > /dev/null
msg=$(head -n 1 "$tmp/err" | sed 's/^pmaps: //')
keys f
text X
keys Enter
filter_error_shown() {
	grep -qF "'X' in 'X'" "$tmp/screen" && flat | grep -qF -- "$msg" &&
		grep -q "filter: A " "$tmp/screen"
}
wait_until filter_error_shown
result top_filter_error_is_parsers

keys f Enter
# In one capture: the message row is drawn before the bar.
filter_cleared() {
	grep -q "filter cleared" "$tmp/screen" && grep -q "row 3/$nr_rows " "$tmp/screen"
}
wait_until filter_cleared
result top_filter_cleared

# The help screen's checks and the return to the list are one test: keep
# the status of the first part, or a failed grep there is thrown away.
keys ?
wait_for "q, Esc" && grep -q '^Keys:' "$tmp/screen" &&
	grep -q '^  /  *search: a hex address' "$tmp/screen"
help_shown=$?
keys q
wait_for "row 3/$nr_rows " && [ "$help_shown" = 0 ]
result top_help

keys q
wait_exit && [ "$exit_status" = 0 ] &&
	grep -q "^screen before pmaps top" "$tmp/screen" &&
	! grep -q "pmaps top  $demo" "$tmp/screen"
result top_quit_restores_screen

start_top -f "$demo"
wait_for "row 1/$nr_rows" && kill -TERM "$(cat "$tmp/top.pid")" &&
	wait_exit && [ "$exit_status" = 143 ] &&
	grep -q "^screen before pmaps top" "$tmp/screen" &&
	! grep -q "pmaps top  $demo" "$tmp/screen"
result top_signal_restores_screen

# A copy of /proc/PID/maps loads with a warning, which top shows in its
# message row: on stderr it was written over the screen.
grep "^[0-9a-f]*-" "$demo" > "$tmp/maps.txt"
start_top -f "$tmp/maps.txt"
wait_for "row 1/" &&
	head -n 1 "$tmp/screen" | grep -q "^ pmaps top  $tmp/maps.txt: source file " &&
	flat | grep -qF "warning: $(grep -c . "$tmp/maps.txt") VMAs and no range lines" &&
	keys q && wait_exit && [ "$exit_status" = 0 ] &&
	! grep -q "warning" "$tmp/screen"
result top_file_warning_on_screen

# -i: each reload reads the file again; a malformed one leaves the last
# good document on the screen, with the parser's message, until it is
# good again.
cp good-basic.txt "$tmp/doc.txt"
basic_rows=$(($("$PMAPS" --color=never -f good-basic.txt | wc -l) - 2))
"$PMAPS" -f bad-count.txt 2> "$tmp/err"
bad_msg=$(sed "s|bad-count.txt|$tmp/doc.txt|" "$tmp/err")
start_top -i 0.2 -f "$tmp/doc.txt"
wait_for "row 1/$basic_rows " && grep -q "(reload every 0.2 s)" "$tmp/screen" &&
	cp "$demo" "$tmp/doc.new" && mv "$tmp/doc.new" "$tmp/doc.txt" &&
	wait_for "/$nr_rows "
result top_interval_reloads

cp bad-count.txt "$tmp/doc.new" && mv "$tmp/doc.new" "$tmp/doc.txt"
wait_for "reload failed" &&
	flat | grep -qF -- "reload failed, showing the last document: $bad_msg" &&
	grep -q "/$nr_rows " "$tmp/screen" &&
	cp good-basic.txt "$tmp/doc.new" && mv "$tmp/doc.new" "$tmp/doc.txt" &&
	wait_for "/$basic_rows " && ! grep -q "reload failed" "$tmp/screen"
result top_interval_keeps_last_good

keys q
wait_exit && [ "$exit_status" = 0 ]
result top_interval_quit

# ---- a live process ----

# Page 1 of a 4-page anonymous mapping holds a marker, pages 0 and 1 are
# written; SIGUSR1 writes all 8 pages of a second mapping.  PROT_NONE
# guards keep the two from merging with each other or anything else.
cat > "$tmp/target.c" <<'EOF'
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile sig_atomic_t touch;

static void on_usr1(int sig)
{
	touch = sig;
}

int main(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *guard, *anon, *more;

	signal(SIGUSR1, on_usr1);
	guard = mmap(NULL, 15 * ps, PROT_NONE, flags, -1, 0);
	if (guard == MAP_FAILED)
		return 1;
	anon = guard + ps;
	more = guard + 6 * ps;
	if (mprotect(anon, 4 * ps, PROT_READ | PROT_WRITE) ||
	    mprotect(more, 8 * ps, PROT_READ | PROT_WRITE) ||
	    madvise(guard, 15 * ps, MADV_NOHUGEPAGE))
		return 1;
	memset(anon, 0, 2 * ps);
	memcpy(anon + ps, "PMAPS-TOP-MARKER", 16);
	printf("%lx %lx %ld\n", (unsigned long)anon, (unsigned long)more, ps);
	fflush(stdout);
	for (;;) {
		pause();
		if (touch) {
			touch = 0;
			memset(more, 3, 8 * ps);
			printf("touched\n");
			fflush(stdout);
		}
	}
}
EOF

start_target() {
	spawn_target top-target "$polls" 0.1 || return 1
	read -r anon more psize < "$tmp/layout" || return 1
}

# status_kb FIELD: the field of /proc/PID/status of the target, in kB
status_kb() {
	sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB$/\1/p" "/proc/$target_pid/status"
}

# faults: "MINFLT MAJFLT" of the target, fields 10 and 12 of its stat
faults() {
	sed 's/.*) //' "/proc/$target_pid/stat" | cut -d' ' -f8,10
}

if [ "$(id -u)" != 0 ]; then
	for t in $live_tests; do skip "$t" "needs root (pagemap source)"; done
elif ! start_target; then
	diag "$tmp/err"
	for t in $live_tests; do not_ok "$t"; done
	echo "# could not start the target process"
else
	marker=$(printf '%x' $((0x$anon + psize)))
	start_top --source=pagemap "$target_pid"
	wait_for "VmRSS " && set -- $(faults) &&
		grep -q "VmRSS $(status_kb VmRSS) kB " "$tmp/screen" &&
		grep -q "VmSwap $(status_kb VmSwap) kB " "$tmp/screen" &&
		grep -q "VmSwap [0-9]* kB  minflt $1  majflt $2  RssAnon " "$tmp/screen"
	result top_live_stats_match_proc

	# pages 0 and 1 are one range; the marker's page is the one selected
	keys /
	text "$marker"
	keys Enter
	wait_for "page 0x$marker" &&
		selected | grep -Eq "^  0*$anon-0*$(printf '%x' $((0x$anon + 2 * psize))) "
	result top_live_search_address

	"$PMAPS" --source=pagemap --color=never --address "$marker" \
		"$target_pid" > "$tmp/want" 2>&1
	keys Tab
	wait_for "detail of page 0x$marker" &&
		sed -n "5,$((4 + $(wc -l < "$tmp/want")))p" "$tmp/screen" > "$tmp/got" &&
		cmp -s "$tmp/got" "$tmp/want" && grep -q '^  pfn  ' "$tmp/got"
	result top_live_detail_is_address_view
	if ! cmp -s "$tmp/got" "$tmp/want"; then
		diff "$tmp/want" "$tmp/got" | diag
	fi

	keys Tab
	wait_for "dump of page 0x$marker" &&
		grep -q "^0*$marker  50 4d 41 50 53 2d 54 4f  50 2d 4d 41 52 4b 45 52  |PMAPS-TOP-MARKER|\$" "$tmp/screen"
	result top_live_dump_shows_bytes

	# page 0 was written with zeros: one line, "*", the last line
	keys Left
	wait_for "dump of page 0x$anon" &&
		grep -q "^0*$anon  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\$" "$tmp/screen" &&
		grep -qx '\*' "$tmp/screen" && ! grep -q MARKER "$tmp/screen"
	result top_live_dump_previous_page

	# [vvar] is a PFN mapping: /proc/PID/mem refuses it with EIO
	vvar=$(sed -n 's/^\([0-9a-f]*\)-.*\[vvar\]$/\1/p' "/proc/$target_pid/maps")
	if [ -z "$vvar" ]; then
		skip top_live_dump_error "this kernel maps no [vvar]"
	else
		keys q /
		text vvar
		keys Enter
		wait_for "page 0x$vvar" && keys Enter &&
			wait_for "cannot read page 0x$vvar: Input/output error"
		result top_live_dump_error
		keys q
	fi

	# r reloads: the second mapping gets a range, the faults go up
	keys /
	text "$more"
	keys Enter
	more_end=$(printf '%x' $((0x$more + 8 * psize)))
	wait_for "page 0x$more" && selected | grep -q "^0*$more-" &&
		! grep -q "^    0*$more-" "$tmp/screen" &&
		kill -USR1 "$target_pid" &&
		i=0 && while ! grep -q touched "$tmp/layout" && [ $i -lt $polls ]; do
			sleep 0.1
			i=$((i + 1))
		done &&
		grep -q touched "$tmp/layout" &&
		keys r && wait_for -E "^    0*$more-0*$more_end " &&
		set -- $(faults) &&
		grep -q "minflt $1 (+[1-9][0-9]*)  majflt $2 (+0)  " "$tmp/screen" &&
		grep -q "VmRSS $(status_kb VmRSS) kB " "$tmp/screen"
	result top_live_reload

	keys q
	wait_exit && [ "$exit_status" = 0 ]
	result top_live_quit
fi

tap_done
