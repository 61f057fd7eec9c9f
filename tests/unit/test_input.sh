#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What pmaps -f accepts, as users have it: pmaps --json output, text whose
# TABs a terminal or a mail turned into spaces (the 2007 RFC's sample is
# such a text), and documents without range lines (an empty file, a copy
# of /proc/PID/maps), which are read with a warning.  Prints TAP.  PMAPS
# names the binary (default: built with make -C userspace).
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

tab=$(printf '\t')
basic=$fix/good-basic.txt
rfc=$fix/rfc-2007-sample.txt

# view FILE: the default view of FILE without its first line, which
# names the file; false if pmaps fails or says anything on stderr.  As
# run, it leaves $tmp/out, $tmp/err and $rc for a failure's diagnostics.
view() {
	run "$PMAPS" --color=never -f "$1"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && sed 1d "$tmp/out"
}

# ---- JSON, as pmaps --json writes it ----

for f in good-basic.txt withheld.txt guest/demo-6.12.txt; do
	name=$(basename "$f" .txt)
	"$PMAPS" --json -f "$fix/$f" > "$tmp/$name.json"
	view "$fix/$f" > "$tmp/want" &&
		view "$tmp/$name.json" > "$tmp/got" &&
		[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"
	result "json_round_trip_default_view_$name"
	# --raw prints the text format: the text the JSON was made from.
	run "$PMAPS" --raw -f "$tmp/$name.json"
	expect "json_raw_gives_text_back_$name" 0 "$fix/$f" ""
done

run "$PMAPS" --raw -f - < "$tmp/good-basic.json"
expect json_from_stdin 0 "$basic" ""

"$PMAPS" --json -f "$basic" -f "$basic" > "$tmp/two.json"
run "$PMAPS" -f "$tmp/two.json"
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^$tmp/two.json:[0-9]*: expected one target per file (pmaps --json PID > FILE saves one), got" "$tmp/err"
result json_two_targets_refused

printf '%s\n' '{"schema":"pmaps/2","targets":[' > "$tmp/cut.json"
run "$PMAPS" -f "$tmp/cut.json"
expect_text json_malformed_names_file_line 2 "" \
	"$tmp/cut.json:2: expected a target object, got the end of the file"

# ---- text whose TABs became spaces ----

# The RFC's sample with TABs: its range lines are the lines that do not
# start with START-.
sed "/^[0-9a-f]*-/!s/ /$tab/g" "$rfc" > "$tmp/rfc-tabs.txt"
grep -q "$tab" "$tmp/rfc-tabs.txt" && ! grep -q "$tab" "$rfc" &&
	view "$tmp/rfc-tabs.txt" > "$tmp/want" && view "$rfc" > "$tmp/got" &&
	[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"
result rfc_sample_with_spaces_read_as_with_tabs

# 193 pages: the sum of the sample's counts.
if [ "$(getconf PAGESIZE)" = 4096 ]; then
	run "$PMAPS" --color=never -f "$rfc"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
		grep -q '^total: 8 VMAs .* resident 772.0K (193 pages) ' "$tmp/out"
	result rfc_sample_totals
else
	skip rfc_sample_totals "the sample's indexes are for 4 KiB pages"
fi

# What a terminal shows: TABs expanded to every 8th column.
expand "$basic" > "$tmp/expanded.txt"
! grep -q "$tab" "$tmp/expanded.txt" &&
	view "$basic" > "$tmp/want" && view "$tmp/expanded.txt" > "$tmp/got" &&
	[ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"
result terminal_expanded_tabs_read

run "$PMAPS" diff "$rfc" "$tmp/rfc-tabs.txt"
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ]
result diff_reads_pasted_text

sed '2s/Y_A_P__/Y_A_P_/' "$rfc" > "$tmp/bad-pasted.txt"
run "$PMAPS" -f "$tmp/bad-pasted.txt"
expect_text pasted_malformed_names_file_line 2 "" \
	"$tmp/bad-pasted.txt:2: expected FLAGS of 7 characters YRAUPDW, got 'Y_A_P_'"

# ---- documents without range lines: read, with a warning ----

# A copy of maps is the VMA headers alone.
grep "^[0-9a-f]*-" "$basic" > "$tmp/maps.txt"
n=$(grep -c . "$tmp/maps.txt")
maps_warning="pmaps: $tmp/maps.txt: warning: $n VMAs and no range lines: nothing resident (a copy of /proc/PID/maps? save pmaps --raw PID instead)"
run "$PMAPS" --color=never -f "$tmp/maps.txt"
[ "$rc" = 0 ] && [ "$n" -gt 1 ] &&
	grep -q "^total: $n VMAs .* resident 0 (0 pages) " "$tmp/out" &&
	printf '%s\n' "$maps_warning" | cmp -s - "$tmp/err"
result maps_copy_warns_exit_0

# Once per file, however often it is read.
run "$PMAPS" --summary -f "$tmp/maps.txt" -f "$tmp/maps.txt"
[ "$rc" = 0 ] && printf '%s\n' "$maps_warning" | cmp -s - "$tmp/err"
result maps_copy_warns_once

# A live process's maps, as a user would copy it.
cat /proc/self/maps > "$tmp/self-maps.txt"
run "$PMAPS" --summary -f "$tmp/self-maps.txt"
[ "$rc" = 0 ] &&
	grep -q "^pmaps: $tmp/self-maps.txt: warning: [0-9]* VMAs and no range lines" "$tmp/err"
result live_maps_copy_warns

: > "$tmp/empty.txt"
run "$PMAPS" --raw -f "$tmp/empty.txt"
expect_text empty_file_warns_exit_0 0 "" \
	"pmaps: $tmp/empty.txt: warning: empty document, no VMAs and no range lines: nothing resident"

run "$PMAPS" --raw -f - < /dev/null
expect_text empty_stdin_warns_exit_0 0 "" \
	"pmaps: <stdin>: warning: empty document, no VMAs and no range lines: nothing resident"

# A document with ranges, even in one VMA of many, gives no warning.
awk '{ print } /\[stack\]$/ { print "34356651454\t3\tYRAUPD_\t1" }' \
	"$tmp/maps.txt" > "$tmp/one-range.txt"
run "$PMAPS" --summary -f "$tmp/one-range.txt"
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && grep -q '\[stack\]' "$tmp/out"
result one_range_no_warning

tap_done
