#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The pmaps command line, as the user sees it: exact output, messages and
# exit statuses.  Prints TAP.  PMAPS names the binary (default: built with
# make -C userspace); CC builds the target process of the pagemap tests.
# Process tests need root (pagemap) and skip otherwise; the tests that
# expect neither /proc/PID/pmaps nor the module skip where one exists.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
cleanup() {
	[ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null
	[ -n "${threads_pid:-}" ] && kill "$threads_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

tab=$(printf '\t')

usage_hint="Try 'pmaps --help' for more information."

# Range lines with tabs, from "INDEX COUNT FLAGS MAPCOUNT" words.
ranges() {
	printf '%s\n' "$@" | tr ' ' '\t'
}

# Documents captured from guests (tests/qemu, demo mode).
for f in demo-6.1 demo-6.12; do
	cp "$fix/guest/$f.txt" "$tmp/$f.txt"
done
basic=$fix/good-basic.txt
pid_max=$(cat /proc/sys/kernel/pid_max)

# ---- files ----

for f in demo-6.1 demo-6.12; do
	run "$PMAPS" --raw -f "$tmp/$f.txt"
	expect "raw_is_byte_identical_$f" 0 "$tmp/$f.txt" ""
done

run "$PMAPS" --raw -f - < "$tmp/demo-6.12.txt"
expect raw_from_stdin 0 "$tmp/demo-6.12.txt" ""

# An unprivileged reader's text: '?' flags and mapcounts.
run "$PMAPS" --raw -f "$fix/withheld.txt"
expect raw_is_byte_identical_withheld 0 "$fix/withheld.txt" ""

run "$PMAPS" --color=never -f "$tmp/demo-6.12.txt"
[ "$rc" = 0 -a -s "$tmp/out" -a ! -s "$tmp/err" ] &&
	grep -q /tmp/demo.data "$tmp/out"
result default_view_shows_file_vmas

cd "$fix" || exit 1
run "$PMAPS" -f bad-count.txt
expect_text malformed_file_exit_2 2 "" \
	"bad-count.txt:2: expected decimal COUNT, got '+1'"

run "$PMAPS" -f - < bad-range-overlap.txt
expect_text malformed_stdin_names_stdin 2 "" \
	"<stdin>:5: expected range starting at or after 7f0000004000, got '7f0000002000-7f0000004000'"

# A capture that kept a serial console's CRLF line ends is not the format.
sed 's/$/\r/' guest/demo-6.12.txt > "$tmp/crlf.txt"
run "$PMAPS" -f "$tmp/crlf.txt"
expect_text crlf_rejected 2 "" \
	"$tmp/crlf.txt:2: expected MAPCOUNT as decimal or '?', got '1\\x0d'"

run "$PMAPS" -f no-such-file.txt
expect_text missing_file_exit_1 1 "" \
	"pmaps: no-such-file.txt: No such file or directory"

# Several targets: every good one shown, the worst status returned.
run "$PMAPS" --raw -f bad-count.txt -f no-such-file.txt -f "$basic"
expect_text worst_status_of_several 2 "$(cat "$basic")" \
	"bad-count.txt:2: expected decimal COUNT, got '+1'
pmaps: no-such-file.txt: No such file or directory"
cd "$tmp" || exit 1

# ---- usage ----

run "$PMAPS" --help
missing=
for o in --source --pid-name --file --color --decode --summary --histogram \
	 --areas --flags --range --address --pages --json --raw --tsv \
	 --totals --help --version " -p," " -f," " -d," " -h,"; do
	grep -q -e "$o" "$tmp/out" || missing="$missing $o"
done
[ -n "$missing" ] && echo "# missing from --help:$missing"
[ "$rc" = 0 -a -z "$missing" ]
result help_lists_every_option

run "$PMAPS" --version
expect_text version 0 "pmaps (pmaps_ext) 0.1" ""

run "$PMAPS"
expect_text no_target_exit_2 2 "" "pmaps: expected a PID, -p NAME, -f FILE or --cgroup PATH
$usage_hint"

run "$PMAPS" 12abc
expect_text bad_pid_exit_2 2 "" "pmaps: expected a PID, got '12abc'
$usage_hint"

run "$PMAPS" --bogus 1
expect_text unknown_option_exit_2 2 "" "pmaps: unrecognized option '--bogus'
$usage_hint"

run "$PMAPS" --json --tsv 1
expect_text two_views_exit_2 2 "" "pmaps: --json and --tsv cannot be combined
$usage_hint"

# Options the view would ignore are refused, in either order.
for v in --summary --histogram --pages --json --tsv --raw "--address 1000"; do
	set -- $v
	run "$PMAPS" --totals "$@" 1
	expect_text "totals_with_$1" 2 "" \
		"pmaps: --totals and $1 cannot be combined: only the default view has per-VMA totals
$usage_hint"
done
run "$PMAPS" --summary --totals 1
expect_text summary_then_totals 2 "" \
	"pmaps: --totals and --summary cannot be combined: only the default view has per-VMA totals
$usage_hint"

for v in --summary --json --tsv --raw; do
	run "$PMAPS" -d "$v" 1
	expect_text "decode_with_$v" 2 "" \
		"pmaps: -d and $v cannot be combined: -d names flags only in the default view and --pages
$usage_hint"
done
run "$PMAPS" --summary --decode 1
expect_text summary_then_decode 2 "" \
	"pmaps: --decode and --summary cannot be combined: --decode names flags only in the default view and --pages
$usage_hint"

# The views that show flags take -d; --histogram and --address name
# them anyway.
for v in --pages --histogram "--address 55d0c9b20000"; do
	run "$PMAPS" -d $v -f "$basic"
	[ "$rc" = 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ]
	result "decode_with_${v%% *}"
done
run "$PMAPS" -d --pages -f "$basic"
grep -q 'young,uptodate' "$tmp/out" && ! grep -q 'Y__U___' "$tmp/out"
result decode_pages_names_flags

run "$PMAPS" --address 7f00 --address 7f01 1
expect_text second_address 2 "" \
	"pmaps: --address 7f00 and --address 7f01 cannot be combined: one address at a time
$usage_hint"

run "$PMAPS" --range xyz 1
expect_text bad_range_value 2 "" \
	"pmaps: --range: expected START,END in hex, got 'xyz'
$usage_hint"

run "$PMAPS" --range 0x2000,1000 1
expect_text range_end_below_start 2 "" \
	"pmaps: --range: expected START below END, got '0x2000,1000'
$usage_hint"

run "$PMAPS" --range 1000,2000x 1
expect_text range_trailing_garbage 2 "" \
	"pmaps: --range: expected START,END in hex, got '1000,2000x'
$usage_hint"

flag_help="a flag letter (YRAUPDW) or name (young, referenced, active, uptodate, pte-dirty, dirty, writeback)"
run "$PMAPS" --flags DX 1
expect_text bad_flags_letter 2 "" \
	"pmaps: --flags: expected $flag_help, got 'X' in 'DX'
$usage_hint"

run "$PMAPS" --flags D,,W 1
expect_text bad_flags_empty_term 2 "" \
	"pmaps: --flags: expected $flag_help, got an empty item in 'D,,W'
$usage_hint"

run "$PMAPS" --flags 'dirty~dirty' 1
expect_text bad_flags_set_and_clear 2 "" \
	"pmaps: --flags: expected each flag either set or clear, got both in 'dirty~dirty'
$usage_hint"

run "$PMAPS" --flags pte-dirt 1
expect_text bad_flags_name 2 "" \
	"pmaps: --flags: expected $flag_help, got 'pte-dirt' in 'pte-dirt'
$usage_hint"

# An address in no VMA: an error on stderr and status 1, as grep's "no
# match", nothing on stdout (issue 32: it was stdout and status 0).
run "$PMAPS" --address 10 -f "$basic"
expect_text address_in_no_vma 1 "" \
	"pmaps: 0x10: not in any VMA of $basic"
# In one target of two: that one shown, the other said, status 0.
"$PMAPS" --address 55d0c8a00000 -f "$basic" > "$tmp/addr_one"
run "$PMAPS" --address 55d0c8a00000 -f "$fix/withheld.txt" -f "$basic"
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/addr_one" &&
	[ "$(cat "$tmp/err")" = "pmaps: 0x55d0c8a00000: not in any VMA of $fix/withheld.txt" ]
result address_in_one_target_of_two

run "$PMAPS" --address 7fzz 1
expect_text bad_address 2 "" \
	"pmaps: --address: expected an address in hex, got '7fzz'
$usage_hint"

run "$PMAPS" --areas heap, 1
expect_text bad_areas_empty_pattern 2 "" \
	"pmaps: --areas: expected PATTERN[,PATTERN...], got 'heap,'
$usage_hint"

run "$PMAPS" --source=proc 1
expect_text bad_source 2 "" \
	"pmaps: --source: expected auto, kernel, module, pagemap or file, got 'proc'
$usage_hint"

run "$PMAPS" --color=sometimes 1
expect_text bad_color 2 "" \
	"pmaps: --color: expected auto, always or never, got 'sometimes'
$usage_hint"

# ---- -i, --interval: seconds in every command ----

for cmd in watch top wss; do
	for i in 0 0.0 -1 soon 1.5x 0.5.5 .5 1e3 86401; do
		run "$PMAPS" "$cmd" -i "$i" 1
		expect_text "interval_${cmd}_rejects_$i" 2 "" \
			"pmaps $cmd: --interval: expected seconds above 0 and up to 86400, e.g. 0.5, got '$i'
Try 'pmaps $cmd --help' for more information."
	done
done

# watch's -i was milliseconds once; "wss -i 500" waited 500 s for a user
# who meant 0.5.  Every command refuses it.
for cmd in watch top wss; do
	run "$PMAPS" "$cmd" -i 1000 1
	expect_text "interval_${cmd}_1000_is_milliseconds" 2 "" \
		"pmaps $cmd: --interval: expected seconds, got '1000', which looks like milliseconds: for 1000 ms write 1, for 1000 seconds 1000.0
Try 'pmaps $cmd --help' for more information."
done

# A decimal point says seconds: wss may measure for minutes.  Option
# parsing goes on to the next mistake.
run "$PMAPS" wss -i 500.0 -n x 1
expect_text interval_wss_500.0_is_seconds 2 "" \
	"pmaps wss: --count: expected a number of intervals, got 'x'
Try 'pmaps wss --help' for more information."

run "$PMAPS" --raw --source=file "$basic"
expect source_file_takes_file_arguments 0 "$basic" ""

run "$PMAPS" --source=file -p init
expect_text source_file_has_no_processes 2 "" \
	"pmaps: --source=file reads files, not processes named init
$usage_hint"

# ---- options before a command, help ----

run "$PMAPS" map --source=file --color=never -w 60 "$basic"
cp "$tmp/out" "$tmp/map_after"
[ "$rc" = 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ]
result map_of_file_draws
run "$PMAPS" --source=file --color=never map -w 60 "$basic"
expect options_before_command 0 "$tmp/map_after" ""
run "$PMAPS" --source file --color never map -w 60 "$basic"
expect option_values_before_command 0 "$tmp/map_after" ""

# A value of the command's own options before its name (issue 32: each
# was "invalid option" from pmaps, which does not take them).
run "$PMAPS" -w 60 --source=file --color=never map "$basic"
expect command_option_value_before_command 0 "$tmp/map_after" ""
"$PMAPS" watch -i 0.2 -n 1 --color=never -f "$basic" > "$tmp/watch_after"
run "$PMAPS" -i 0.2 -n 1 watch --color=never -f "$basic"
expect watch_interval_before_command 0 "$tmp/watch_after" ""
"$PMAPS" map --png "$tmp/after.png" --scale 2 -f "$basic"
run "$PMAPS" --png "$tmp/before.png" --scale 2 map -f "$basic"
[ "$rc" = 0 ] && [ -s "$tmp/after.png" ] &&
	cmp -s "$tmp/after.png" "$tmp/before.png"
result png_scale_before_command
run "$PMAPS" --scale=2 --png="$tmp/eq.png" -s2 map -f "$basic"
[ "$rc" = 0 ] && cmp -s "$tmp/after.png" "$tmp/eq.png"
result attached_values_before_command

# An option the command does not take: the command says so.
run "$PMAPS" --summary map 1
expect_text option_before_command_it_lacks 2 "" \
	"pmaps map: unrecognized option '--summary'
Try 'pmaps map --help' for more information."

# A value of an option is no command word.
cp "$basic" "$tmp/map"
run "$PMAPS" --raw -f map
expect file_named_like_a_command 0 "$basic" ""

"$PMAPS" --help > "$tmp/pmaps_help"
run "$PMAPS" help
expect help_is_pmaps_help 0 "$tmp/pmaps_help" ""
for cmd in map watch top wss diff core; do
	"$PMAPS" "$cmd" --help > "$tmp/cmd_help"
	run "$PMAPS" help "$cmd"
	if cmp -s "$tmp/cmd_help" "$tmp/pmaps_help"; then
		not_ok "help_$cmd"
		echo "# pmaps $cmd --help printed pmaps' own help"
	else
		expect "help_$cmd" 0 "$tmp/cmd_help" ""
	fi
	run "$PMAPS" --help "$cmd"
	expect "help_option_before_$cmd" 0 "$tmp/cmd_help" ""
done

run "$PMAPS" help bogus
expect_text help_unknown_command 2 "" \
	"pmaps: help: expected a COMMAND: map, watch, top, wss, diff, core, heap, perf, record or export; got 'bogus'
$usage_hint"

run "$PMAPS" help map watch
expect_text help_two_commands 2 "" \
	"pmaps: help: expected one COMMAND, got 'watch' too
$usage_hint"

# ---- colour (the default view colours something when allowed) ----

run "$PMAPS" --color=always -f "$basic"
[ "$rc" = 0 ] && grep -q "$esc" "$tmp/out"
result color_always_has_escapes

run env NO_COLOR=1 "$PMAPS" --color=always -f "$basic"
[ "$rc" = 0 ] && grep -q "$esc" "$tmp/out"
result color_always_beats_no_color

run "$PMAPS" --color=never -f "$basic"
[ "$rc" = 0 ] && ! grep -q "$esc" "$tmp/out"
result color_never_has_none

# WHEN after a space, as after '=', in pmaps and in its commands.
run "$PMAPS" --color always -f "$basic"
[ "$rc" = 0 ] && grep -q "$esc" "$tmp/out"
result color_space_always_has_escapes

run "$PMAPS" --color never -f "$basic"
[ "$rc" = 0 ] && [ -s "$tmp/out" ] && ! grep -q "$esc" "$tmp/out"
result color_space_never_has_none

run "$PMAPS" map --color always -w 60 -f "$basic"
[ "$rc" = 0 ] && grep -q "$esc" "$tmp/out"
result map_color_space_always

# Only WHEN joins: a PID after --color stays a target.
run "$PMAPS" --color "$pid_max"
expect_text color_then_pid_is_a_target 1 "" "pmaps: no process $pid_max"

run "$PMAPS" -f "$basic"
[ "$rc" = 0 ] && ! grep -q "$esc" "$tmp/out"
result color_auto_not_a_tty

if have_tty color_auto_on_tty no_color_on_tty; then
	on_tty "NO_COLOR= '$PMAPS' -f '$basic'" && grep -q "$esc" "$tmp/out"
	result color_auto_on_tty
	on_tty "NO_COLOR=1 '$PMAPS' -f '$basic'" && ! grep -q "$esc" "$tmp/out"
	result no_color_on_tty
fi

# ---- filters, exact through --raw ----

h_cat1='55d0c8a00000-55d0c8a02000 r--p 00000000 08:01 1234567                    /usr/bin/cat'
h_cat2='55d0c8a02000-55d0c8a07000 r-xp 00002000 08:01 1234567                    /usr/bin/cat'
h_cat3='55d0c8a07000-55d0c8a09000 rw-p 00007000 08:01 1234567                    /usr/bin/cat'
h_heap='55d0c9b1e000-55d0c9b3f000 rw-p 00000000 00:00 0                          [heap]'
h_anon='7f3a1c000000-7f3a1c021000 rw-p 00000000 00:00 0 '
h_file='7f3a1d000000-7f3a1d200000 r--s 00010000 fd:01 987                        /tmp/my file (deleted)'
h_buf='7f3a1d400000-7f3a1d404000 rw-p 00000000 00:00 0                          [anon:my buf]'
h_stack='7ffd0e5a0000-7ffd0e5c1000 rw-p 00000000 00:00 0                          [stack]'
h_vdso='7ffd0e5f4000-7ffd0e5f6000 r-xp 00000000 00:00 0                          [vdso]'

if [ "$(getconf PAGESIZE)" != 4096 ]; then
	for t in areas_heap areas_keywords areas_anon areas_substring \
		 flags_set flags_clear flags_or_of_terms flags_names \
		 range_clips_anon range_clips_file range_keeps_empty_vma \
		 range_outside_everything filters_combine \
		 filter_keeps_withheld_mapcount flags_ptedirty \
		 flags_pte_dirty flags_pte_dirty_clear total_one_vma_singular \
		 total_no_vmas_plural; do
		skip "$t" "fixtures assume 4 KiB pages"
	done
else
	run "$PMAPS" --raw --areas heap -f "$basic"
	expect_text areas_heap 0 "$h_heap
$(ranges '23035943710 16 Y_AUP__ 1' '23035943730 1 ____P__ 1')" ""

	run "$PMAPS" --raw --areas stack,vdso -f "$basic"
	expect_text areas_keywords 0 "$h_stack
$(ranges '34356651454 3 YRAUPD_ 1')
$h_vdso
$(ranges '34356651508 2 Y__U___ 47')" ""

	run "$PMAPS" --raw --areas anon -f "$basic"
	expect_text areas_anon 0 "$h_anon
$(ranges '34152235008 4 YRAUPD_ 1')
$h_buf" ""

	run "$PMAPS" --raw --areas 'my file' -f "$basic"
	expect_text areas_substring 0 "$h_file
$(ranges '16 1 __AU___ 1' '527 1 Y_AU___ 2')" ""

	run "$PMAPS" --raw --flags D -f "$basic"
	expect_text flags_set 0 "$h_cat3
$(ranges '7 1 Y__UPD_ 1' '8 1 ___U_DW 1')
$h_anon
$(ranges '34152235008 4 YRAUPD_ 1')
$h_stack
$(ranges '34356651454 3 YRAUPD_ 1')" ""

	run "$PMAPS" --raw --flags '~U' -f "$basic"
	expect_text flags_clear 0 "$h_heap
$(ranges '23035943730 1 ____P__ 1')" ""

	run "$PMAPS" --raw --flags 'D,W' -f "$basic"
	expect_text flags_comma_is_and 0 "$h_cat3
$(ranges '8 1 ___U_DW 1')" ""

	run "$PMAPS" --raw --flags DW --flags '~A,~U' -f "$basic"
	expect_text flags_repeated_is_or 0 "$h_cat3
$(ranges '8 1 ___U_DW 1')
$h_heap
$(ranges '23035943730 1 ____P__ 1')" ""

	run "$PMAPS" --raw --flags writeback --flags '~young,~uptodate' -f "$basic"
	expect_text flags_names 0 "$h_cat3
$(ranges '8 1 ___U_DW 1')
$h_heap
$(ranges '23035943730 1 ____P__ 1')" ""

	# P by its older name ptedirty and as -d spells it: the same ranges.
	run "$PMAPS" --raw --flags 'ptedirty,~D' -f "$basic"
	cp "$tmp/out" "$tmp/ptedirty"
	expect_text flags_ptedirty 0 "$h_heap
$(ranges '23035943710 16 Y_AUP__ 1' '23035943730 1 ____P__ 1')" ""
	run "$PMAPS" --raw --flags 'pte-dirty,~D' -f "$basic"
	expect flags_pte_dirty 0 "$tmp/ptedirty" ""
	run "$PMAPS" --raw --flags '~pte-dirty~young' -f "$basic"
	expect_text flags_pte_dirty_clear 0 "$h_cat2
$(ranges '4 3 _R_U___ 2')
$h_cat3
$(ranges '8 1 ___U_DW 1')
$h_file
$(ranges '16 1 __AU___ 1')" ""

	# The totals line counts VMAs in words that agree with the number.
	run "$PMAPS" --color=never --areas heap -f "$basic"
	[ "$rc" = 0 ] && tail -n 1 "$tmp/out" | grep -q '^total: 1 VMA  mapped 132.0K  resident 68.0K (17 pages)  '
	result total_one_vma_singular
	run "$PMAPS" --color=never --range 1000,2000 -f "$basic"
	[ "$rc" = 0 ] && tail -n 1 "$tmp/out" | grep -q '^total: 0 VMAs  mapped 0  resident 0 (0 pages)  '
	result total_no_vmas_plural

	run "$PMAPS" --raw --range 55d0c9b20000,0x55D0C9B24000 -f "$basic"
	expect_text range_clips_anon 0 "$h_heap
$(ranges '23035943712 4 Y_AUP__ 1')" ""

	# A page partly inside the range is kept whole, at either end.
	run "$PMAPS" --raw --range 55d0c8a05800,55d0c8a06800 -f "$basic"
	expect_text range_clips_file 0 "$h_cat2
$(ranges '5 2 _R_U___ 2')" ""

	run "$PMAPS" --raw --range 7f3a1d400000,7f3a1d401000 -f "$basic"
	expect_text range_keeps_empty_vma 0 "$h_buf" ""

	run "$PMAPS" --raw --range 1000,2000 -f "$basic"
	expect_text range_outside_everything 0 "" ""

	run "$PMAPS" --raw --areas cat --range 55d0c8a01000,55d0c8a08000 \
		--flags Y -f "$basic"
	expect_text filters_combine 0 "$h_cat1
$(ranges '1 1 Y__U___ 3')
$h_cat2
$(ranges '2 1 YRAU___ 3')
$h_cat3
$(ranges '7 1 Y__UPD_ 1')" ""

	# Filtered text is written again from the model: '?' stays '?'.
	run "$PMAPS" --raw --range 401000,411000 -f "$fix/withheld.txt"
	expect_text filter_keeps_withheld_mapcount 0 "$(sed -n 3p "$fix/withheld.txt")
$(ranges '1 16 Y??U_?? ?')" ""
fi

# ---- processes ----

run "$PMAPS" "$pid_max"
expect_text unknown_pid_exit_1 1 "" "pmaps: no process $pid_max"

name=pmaps-cli-$$-target
run "$PMAPS" -p "$name"
expect_text pid_name_no_match 1 "" "pmaps: no process named $name"

# Scripts get valid JSON even when every target failed.
run "$PMAPS" --json "$pid_max"
if ! command -v python3 > /dev/null; then
	lacks python3 json_when_every_target_fails
else
	[ "$rc" = 1 ] && python3 -c '
import json, sys
sys.exit(json.load(open(sys.argv[1]))["targets"] != [])' "$tmp/out"
	result json_when_every_target_fails
fi

# Continue past a missing process.
run "$PMAPS" --raw "$pid_max" -f "$basic"
expect_text unknown_pid_then_file 1 "$(cat "$basic")" \
	"pmaps: no process $pid_max"

# A target with a known layout: 16 anonymous pages between PROT_NONE
# guards, 0-3 and 8 written; 3 pages of a file mapped from page 1, read.
cat > "$tmp/target.c" <<'EOF'
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE);
	volatile char sink = 0;
	char *guard, *anon, *file;
	int fd, i;

	guard = mmap(NULL, 18 * ps, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (argc < 2 || guard == MAP_FAILED)
		return 1;
	anon = guard + ps;
	if (mprotect(anon, 16 * ps, PROT_READ | PROT_WRITE) ||
	    madvise(anon, 16 * ps, MADV_NOHUGEPAGE))
		return 1;
	memset(anon, 1, 4 * ps);
	anon[8 * ps] = 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	file = mmap(NULL, 3 * ps, PROT_READ, MAP_SHARED, fd, ps);
	if (file == MAP_FAILED)
		return 1;
	for (i = 0; i < 3; i++)
		sink += file[i * ps];
	printf("%lx %lx %ld\n", (unsigned long)anon, (unsigned long)file, ps);
	fflush(stdout);
	pause();
	return sink;
}
EOF

start_target() {
	head -c 16384 /dev/urandom > "$tmp/data"
	spawn_target "$name" 600 0.05 "$tmp/data" || return 1
	read -r anon file psize < "$tmp/layout" || return 1
}

process_tests="pagemap_anon_exact pagemap_file_exact pages_stay_in_range auto_falls_back_to_pagemap
	unknown_flags_match_neither pid_name_argv0 pid_name_comm
	source_kernel_missing source_module_missing
	not_root_lists_tried_sources not_root_pagemap_says_why"

if [ "$(id -u)" != 0 ]; then
	for t in $process_tests; do skip "$t" "needs root"; done
elif ! start_target; then
	diag "$tmp/err"
	for t in $process_tests; do
		not_ok "$t"
	done
	echo "# could not start the target process"
else
	anon_end=$(printf '%x' $((0x$anon + 16 * psize)))
	anon_idx=$((0x$anon / psize))
	anon_hdr=$(grep "^$anon-" "/proc/$target_pid/maps")
	file_hdr=$(grep "^$file-" "/proc/$target_pid/maps")

	# --pages walks pagemap itself: it must keep to --range as well.
	lo=$(printf '%x' $((0x$anon + 2 * psize)))
	run "$PMAPS" --source=pagemap --pages --range "$lo,$anon_end" "$target_pid"
	outside=0
	for addr in $(sed -n 's/^  \([0-9a-f]*\) .*/\1/p' "$tmp/out"); do
		[ $((0x$addr)) -ge $((0x$lo)) ] && [ $((0x$addr)) -lt $((0x$anon_end)) ] ||
			outside=$((outside + 1))
	done
	[ "$rc" = 0 ] && [ "$outside" = 0 ] && grep -q "^  0*$lo " "$tmp/out"
	result pages_stay_in_range

	# Y is '?' from pagemap; P is inferred for written anonymous pages
	# of a writable private mapping (where D is clear, else '?'); the page
	# flags depend on the kernel.
	flags='?[R_][A_]U\(P_\|?D\)_'
	run "$PMAPS" --source=pagemap --raw --range "$anon,$anon_end" \
		"$target_pid"
	head -n 1 "$tmp/out" > "$tmp/got_hdr"
	printf '%s\n' "$anon_hdr" > "$tmp/want_hdr"
	[ "$rc" = 0 -a ! -s "$tmp/err" ] &&
		cmp -s "$tmp/got_hdr" "$tmp/want_hdr" &&
		[ "$(wc -l < "$tmp/out")" = 3 ] &&
		sed -n 2p "$tmp/out" |
		grep -qx "$anon_idx${tab}4${tab}$flags${tab}1" &&
		sed -n 3p "$tmp/out" |
		grep -qx "$((anon_idx + 8))${tab}1${tab}$flags${tab}1"
	result pagemap_anon_exact
	cp "$tmp/out" "$tmp/pagemap_anon"

	run "$PMAPS" --source=pagemap --raw --areas "$tmp/data" "$target_pid"
	head -n 1 "$tmp/out" > "$tmp/got_hdr"
	printf '%s\n' "$file_hdr" > "$tmp/want_hdr"
	[ "$rc" = 0 -a ! -s "$tmp/err" ] &&
		cmp -s "$tmp/got_hdr" "$tmp/want_hdr" &&
		[ "$(wc -l < "$tmp/out")" = 2 ] &&
		sed -n 2p "$tmp/out" | grep -qx "1${tab}3${tab}?..U?..${tab}1"
	result pagemap_file_exact

	if [ -e /proc/self/pmaps ] || [ -e /proc/pmaps_ext ]; then
		skip auto_falls_back_to_pagemap "kernel or module source here"
	else
		run "$PMAPS" --raw --range "$anon,$anon_end" "$target_pid"
		expect auto_falls_back_to_pagemap 0 "$tmp/pagemap_anon" ""
	fi

	# '?' is neither set nor clear: no range passes Y, nor ~Y.
	run "$PMAPS" --source=pagemap --raw --range "$anon,$anon_end" \
		--flags Y --flags '~Y' --flags '~P' "$target_pid"
	expect_text unknown_flags_match_neither 0 "" ""

	# argv[0] has the whole name, comm only its first 15 bytes.
	run "$PMAPS" --source=pagemap --raw --range "$anon,$anon_end" \
		-p "$name"
	[ "$rc" = 0 ] &&
		cmp -s "$tmp/out" "$tmp/pagemap_anon"
	result pid_name_argv0
	comm=$(cat "/proc/$target_pid/comm")
	run "$PMAPS" --source=pagemap --raw --range "$anon,$anon_end" \
		-p "$comm"
	[ "$rc" = 0 -a "$comm" != "$name" ] &&
		cmp -s "$tmp/out" "$tmp/pagemap_anon"
	result pid_name_comm

	kernel_why="/proc/$target_pid/pmaps: No such file or directory (this kernel lacks the pmaps patches)"
	module_why="/proc/pmaps_ext/$target_pid: No such file or directory (module not loaded: sudo modprobe pmaps_ext, or sudo make load in its source tree)"
	pagemap_why="open /proc/$target_pid/pagemap: Permission denied (needs root, or ptrace access to the process)"
	if [ -e /proc/self/pmaps ]; then
		skip source_kernel_missing "/proc/PID/pmaps exists here"
	else
		run "$PMAPS" --source=kernel "$target_pid"
		expect_text source_kernel_missing 1 "" "pmaps: kernel: $kernel_why"
	fi
	if [ -e /proc/pmaps_ext ]; then
		skip source_module_missing "the module is loaded here"
	else
		run "$PMAPS" --source=module "$target_pid"
		expect_text source_module_missing 1 "" "pmaps: module: $module_why"
	fi

	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	if [ -e /proc/self/pmaps ] || [ -e /proc/pmaps_ext ]; then
		skip not_root_lists_tried_sources "kernel or module source here"
		skip not_root_pagemap_says_why "kernel or module source here"
	elif ! command -v setpriv > /dev/null; then
		lacks "setpriv(1)" not_root_lists_tried_sources \
			not_root_pagemap_says_why
	elif run $nobody "$PMAPS" --version; [ "$rc" != 0 ]; then
		# e.g. pmaps in a directory user 65534 cannot enter: the
		# test's set-up failed, which is no fact about this machine
		not_ok not_root_lists_tried_sources
		not_ok not_root_pagemap_says_why
		echo "# user 65534 cannot run $PMAPS (status $rc):"
		diag "$tmp/err"
	else
		run $nobody "$PMAPS" "$target_pid"
		expect_text not_root_lists_tried_sources 1 "" \
			"pmaps: cannot read process $target_pid, tried each source:
  kernel: $kernel_why
  module: $module_why
  pagemap: $pagemap_why"
		run $nobody "$PMAPS" --source=pagemap "$target_pid"
		expect_text not_root_pagemap_says_why 1 "" \
			"pmaps: pagemap: $pagemap_why"
	fi
fi

# ---- -p NAME of processes the caller may not read ----

# Two of root's, read as nobody: one line for both, not each source's
# refusal for each (issue 32), in pmaps and in map.
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	skip name_not_readable_said_once "needs root and setpriv(1)"
	skip map_name_not_readable_said_once "needs root and setpriv(1)"
else
	cp "$(command -v sleep)" "$tmp/pmaps-rootonly"
	"$tmp/pmaps-rootonly" 60 & root1=$!
	"$tmp/pmaps-rootonly" 60 & root2=$!
	# until both have exec'd (their name is the copy's): 10 s at most
	i=0
	while [ "$(cat "/proc/$root1/comm" "/proc/$root2/comm" 2> /dev/null)" != \
		"$(printf 'pmaps-rootonly\npmaps-rootonly')" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMAPS" -p pmaps-rootonly
	expect_text name_not_readable_said_once 1 "" \
		"pmaps: 2 processes named pmaps-rootonly not readable: run as root"
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMAPS" map -p pmaps-rootonly
	expect_text map_name_not_readable_said_once 1 "" \
		"pmaps map: 2 processes named pmaps-rootonly not readable: run as root"
	kill "$root1" "$root2"
	wait "$root1" "$root2" 2> /dev/null
fi

# ---- processes without user memory ----

# kthreadd: PID 2 wherever the kernel starts it, as it does on Linux.
if [ "$(cat /proc/2/comm 2>/dev/null)" != kthreadd ]; then
	skip kernel_thread_said_once "PID 2 is not kthreadd here"
else
	run "$PMAPS" 2
	expect_text kernel_thread_said_once 1 "" \
		"pmaps: PID 2 is a kernel thread: it has no user memory"
fi

# A sleep whose child exited unreaped: the child stays a zombie.
sh -c 'sleep 0 & exec sleep 30' &
zombie_parent=$!
zombie=
for i in 1 2 3 4 5 6 7 8 9 10; do
	for d in /proc/[0-9]*; do
		set -- $(sed 's/.*) //' "$d/stat" 2>/dev/null)
		[ "${1:-}" = Z -a "${2:-}" = "$zombie_parent" ] &&
			zombie=${d#/proc/}
	done
	[ -n "$zombie" ] && break
	sleep 0.1
done
if [ -z "$zombie" ]; then
	not_ok zombie_said_once
	not_ok zombie_source_pagemap_said_once
	not_ok wss_zombie_fails
	echo "# no zombie child of $zombie_parent appeared"
else
	run "$PMAPS" "$zombie"
	expect_text zombie_said_once 1 "" \
		"pmaps: PID $zombie is a zombie: it has no memory left"
	run "$PMAPS" --source=pagemap "$zombie"
	expect_text zombie_source_pagemap_said_once 1 "" \
		"pmaps: PID $zombie is a zombie: it has no memory left"
	# clear_refs then smaps, which is empty for a zombie: not a total 0
	run "$PMAPS" wss --clear-refs -n 1 -i 0.1 "$zombie"
	expect_text wss_zombie_fails 1 "" \
		"pmaps wss: PID $zombie is a zombie: it has no memory left"
fi
kill "$zombie_parent" 2>/dev/null
wait "$zombie_parent" 2>/dev/null

# ---- a thread's ID ----

# /proc has an unlisted directory per thread: a thread's ID is read as its
# process, said on stderr, and export labels the process (issue 32).
cat > "$tmp/threads.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

static void *thread(void *arg)
{
	printf("%ld %ld\n", (long)getpid(), (long)syscall(SYS_gettid));
	fflush(stdout);
	for (;;)
		pause();
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
EOF
tgid= tid= threads_pid=
if [ "$(id -u)" != 0 ]; then
	skip thread_id_read_as_process "needs root"
	skip thread_id_export_labels_process "needs root"
	skip thread_id_wss_says_process "needs root"
elif ! ${CC:-cc} -pthread -o "$tmp/threads" "$tmp/threads.c" 2> "$tmp/err"; then
	diag "$tmp/err"
	not_ok thread_id_read_as_process
	not_ok thread_id_export_labels_process
	not_ok thread_id_wss_says_process
else
	"$tmp/threads" > "$tmp/threads.out" &
	threads_pid=$!
	wait_for_line "$tmp/threads.out" '^[0-9]* [0-9]*$' &&
		read -r tgid tid < "$tmp/threads.out"
	echo "# process $tgid, thread $tid"
	run "$PMAPS" --summary "$tid"
	label=$(head -n 1 "$tmp/out")
	[ "$rc" = 0 ] && [ -n "$tid" ] && [ "$tid" != "$tgid" ] &&
		[ "${label%%:*}" = "$tgid (threads)" ] &&
		[ "$(cat "$tmp/err")" = "pmaps: $tid is a thread of process $tgid: reading process $tgid" ]
	result thread_id_read_as_process
	run "$PMAPS" export "$tid"
	[ "$rc" = 0 ] && grep -q "{pid=\"$tgid\"," "$tmp/out" &&
		! grep -q "{pid=\"$tid\"," "$tmp/out" &&
		[ "$(cat "$tmp/err")" = "pmaps: $tid is a thread of process $tgid: reading process $tgid" ]
	result thread_id_export_labels_process
	# the commands that take one PID say so too
	run "$PMAPS" wss --clear-refs -i 0.01 -n 1 "$tid"
	[ "$rc" = 0 ] && grep -qx "pmaps wss: $tid is a thread of process $tgid: reading process $tgid" "$tmp/err" &&
		! grep -q "pmaps: $tid is a thread" "$tmp/err"
	result thread_id_wss_says_process
	kill "$threads_pid"
	wait "$threads_pid" 2> /dev/null
fi

# ---- root denied ----

# Where even root may not open PID 1's pagemap (as in some containers),
# "needs root" would be wrong: say that root was denied, and by what.
root_denied="open /proc/1/pagemap: Permission denied (root was denied too: a Yama/LSM policy or a user namespace?)"
if [ "$(id -u)" != 0 ]; then
	skip root_denied_not_told_needs_root "needs root"
	skip root_denied_auto_not_told_needs_root "needs root"
elif pid1_err=$(LC_ALL=C head -c 8 /proc/1/pagemap 2>&1 > /dev/null)
	[ "${pid1_err#*Permission denied}" = "$pid1_err" ]; then
	skip root_denied_not_told_needs_root "root may read /proc/1/pagemap here"
	skip root_denied_auto_not_told_needs_root "root may read /proc/1/pagemap here"
else
	run "$PMAPS" --source=pagemap 1
	expect_text root_denied_not_told_needs_root 1 "" \
		"pmaps: pagemap: $root_denied"
	run "$PMAPS" 1
	[ "$rc" = 1 -a ! -s "$tmp/out" ] &&
		grep -qxF "  pagemap: $root_denied" "$tmp/err" &&
		! grep -q "needs root" "$tmp/err"
	result root_denied_auto_not_told_needs_root
fi

tap_done
