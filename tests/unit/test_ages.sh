#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# AGE, the MGLRU generation age of the NUMA files (issue 27): each view
# that shows it, on fixtures/numa-ages.txt, whose counts are known:
#
#   /bin/demo     2 pages '?'                            (withheld)
#   [anon] 16     age 0: 4, 1: 2, 2: 3, 3: 1, '?': 2+2   (14 resident)
#   [anon] 512    age 0: 256, 3: 256                     (no '?')
#   total         age 0: 260, 1: 2, 2: 3, 3: 257, '?': 6 (528 resident)
#
# A page of age '?' is never counted or drawn as a known age, and a count
# of a known age beside some '?' is a lower bound (">=").  Prints TAP.
# PMAPS names the binary.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

cd "$fix" || exit 1
doc=numa-ages.txt

# ---- --ages: pages per age and VMA ----

run "$PMAPS" --ages -f "$doc"
cat > "$tmp/want" <<'W'
numa-ages.txt: source file
Address                   Mode     Age0     Age1     Age2     Age3     Age?    Pages Mapping
000000400000-000000402000 r--p        -        -        -        -        2        2 /bin/demo
7f0000000000-7f0000010000 rw-p      >=4      >=2      >=3      >=1        4       14 [anon]
7f0000200000-7f0000400000 rw-p      256        0        0      256        0      512 [anon]
total pages                       >=260      >=2      >=3    >=257        6      528
W
expect ages_view 0 "$tmp/want" ""

# every row has the same fields, and the ages and '?' add up to Pages
awk 'NR > 2 { n = $1 == "total" ? NF : NF - 1; s = 0
	for (i = n - 5; i < n; i++) { v = $i; sub(/^>=/, "", v); s += v }
	if (s != $n) bad = 1 } END { exit bad }' "$tmp/out"
result ages_add_up_to_resident

# an age above 3 gets its own column, never lumped with 3
printf '%s\n' '00400000-00402000 r--p 00000000 08:01 13 /bin/demo' \
	"0	1	___U___	1	0	4	3" "1	1	___U___	1	0	4	5" > "$tmp/old.txt"
run "$PMAPS" --ages -f "$tmp/old.txt"
[ "$rc" = 0 ] && sed -n 2p "$tmp/out" | grep -q ' Age3 *Age4 *Age5 *Age? ' &&
	sed -n 3p "$tmp/out" | awk '{ exit !($6 == 1 && $8 == 1 && $9 == 0) }'
result ages_view_older_than_3

# a document without AGE: every page '?', and said so
run "$PMAPS" --ages -f good-basic.txt
[ "$rc" = 0 ] && grep -q '^total pages *- *- *- *- *36 *36$' "$tmp/out" &&
	grep -q '^(no AGE in this document' "$tmp/out"
result ages_view_without_age

run "$PMAPS" --ages -d -f "$doc"
expect_text ages_with_decode 2 "" "pmaps: -d and --ages cannot be combined: -d names flags only in the default view and --pages
Try 'pmaps --help' for more information."

# ---- JSON: pmaps/4, "age" per range, read back ----

run "$PMAPS" --json -f "$doc"
cp "$tmp/out" "$tmp/ages.json"
# the ages in range order, null for '?'
awk -F'\t' 'NF >= 4 { print $7 == "?" ? "null" : $7 }' "$doc" > "$tmp/want"
[ "$rc" = 0 ] && head -1 "$tmp/out" | grep -q '^{"schema":"pmaps/4",' &&
	grep -o '"age":[a-z0-9]*}' "$tmp/out" | sed 's/"age":\(.*\)}/\1/' |
	cmp -s - "$tmp/want"
result json_age_per_range

# --raw of the JSON is the text with AGE (headers are rebuilt)
run "$PMAPS" --raw -f "$tmp/ages.json"
grep -v '^[0-9a-f]*-' "$doc" > "$tmp/want"
[ "$rc" = 0 ] && grep -v '^[0-9a-f]*-' "$tmp/out" | cmp -s - "$tmp/want"
result json_round_trips_age

run "$PMAPS" --ages -f "$tmp/ages.json"
"$PMAPS" --ages -f "$doc" | sed 1d > "$tmp/want"
[ "$rc" = 0 ] && sed 1d "$tmp/out" | cmp -s - "$tmp/want"
result json_ages_view_as_text

# NUMA fields without AGE stay pmaps/3, without "age"
run "$PMAPS" --json -f numa-two-nodes.txt
[ "$rc" = 0 ] && head -1 "$tmp/out" | grep -q '"pmaps/3"' &&
	! grep -q '"age"' "$tmp/out"
result json_six_columns_stay_pmaps3

# an age above PMAPS_AGE_MAX is refused
sed 's/"age":3/"age":8/' "$tmp/ages.json" > "$tmp/bad.json"
run "$PMAPS" --raw -f "$tmp/bad.json"
[ "$rc" = 2 ] && grep -q 'age' "$tmp/err"
result json_age_out_of_range

# ---- watch: a line of pages per age each frame ----

# frame N: its "pages by age" line
age_line() {
	awk -v n="$1" '/^=== frame / { on = $3 == n } on && /^pages by age:/' \
		"$tmp/out"
}
run "$PMAPS" watch -n 1 -i 0.001 -f "$doc"
[ "$rc" = 0 ] && [ "$(age_line 1)" = \
	"pages by age:  0 >=260  1 >=2  2 >=3  3 >=257  ? 6" ]
result watch_ages_line

# the 512-page VMA alone has no '?': exact counts, and how they moved
sed -n '/^7f0000200000-/,$p' "$doc" > "$tmp/known.txt"
sed 's/\t0$/\t1/' "$tmp/known.txt" > "$tmp/known-later.txt"
run "$PMAPS" watch -n 2 -i 0.001 -f "$tmp/known.txt" -f "$tmp/known-later.txt"
[ "$rc" = 0 ] && [ "$(age_line 1)" = \
	"pages by age:  0 256  1 0  2 0  3 256  ? 0" ] &&
	[ "$(age_line 2)" = \
	"pages by age:  0 0 (-256)  1 256 (+256)  2 0 (+0)  3 256 (+0)  ? 0 (+0)" ]
result watch_ages_moved

run "$PMAPS" watch -n 1 -i 0.001 -f numa-two-nodes.txt
[ "$rc" = 0 ] && ! grep -q '^pages by age' "$tmp/out"
result watch_no_ages_without_age

# ---- map --by age ----
#
# Checked by hand: two pages a character.  /bin/demo '?'; the 16 pages
# "00" "00" "11" "22", then page 8 (age 2) with 9 (age 3), a tie going to
# the later in the legend: "3"; "??", two absent "..", "??".  The 512
# pages: 2 rows of 0, 2 rows of 3.  The legend lists the ages drawn.
run "$PMAPS" map --color=never --width 80 --by age -f "$doc"
expect by_age_golden 0 "$golden/numa-ages.by-age" ""

# '?' is grey (247), never one of the ages' colours; a tie of a known age
# and '?' goes to '?' (pages 10 and 11 are '?' both, 14 and 15 too).
run "$PMAPS" map --color=always --width 80 --by age -f "$doc"
c() { printf '%s[38;5;%sm' "$esc" "$1"; }
b() { printf '%s[48;5;%sm' "$esc" "$1"; }
h=$(printf '\342\226\200')
want_row="  7f0000000000 $(c 196)$(b 196)$h$h$(c 208)$(b 208)$h$(c 226)$(b 226)$h$(b 33)$h$(c 247)$(b 247)$h$(c 236)$(b 236)$h$(c 247)$(b 247)$h$esc[0m"
[ "$rc" = 0 ] && [ "$(sed -n 8p "$tmp/out")" = "$want_row" ] &&
	sed -n 7p "$tmp/out" | grep -q '16 pages'
result by_age_color
[ "$rc" = 0 ] && [ "$(sed -n 8p "$tmp/out")" = "$want_row" ] ||
	{ sed -n 8p "$tmp/out"; echo "$want_row"; } | cat -v | diag

# The PNG: 260 pages at age 0, 2 at 1, 3 at 2, 257 at 3, 6 '?' and 2 not
# present, 25 pixels each, and a 10x10 swatch each
if command -v python3 > /dev/null; then
	run "$PMAPS" map --width 80 --by age --png "$tmp/age.png" -f "$doc"
	printf '%s\n' 416x192 "ff0000 $((100 + 260 * 25))" \
		"ff8700 $((100 + 2 * 25))" "ffff00 $((100 + 3 * 25))" \
		"0087ff $((100 + 257 * 25))" "9e9e9e $((100 + 6 * 25))" \
		"303030 $((100 + 2 * 25))" > "$tmp/want"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
		python3 "$here/png_decode.py" "$tmp/age.png" ff0000 ff8700 \
		ffff00 0087ff 9e9e9e 303030 > "$tmp/pixels" 2> "$tmp/err" &&
		cmp -s "$tmp/pixels" "$tmp/want"
	result by_age_png_pixels
	[ -s "$tmp/pixels" ] && diff "$tmp/want" "$tmp/pixels" | diag
else
	lacks python3 by_age_png_pixels
fi

# Without AGE (the six-column text) there is nothing to colour by
run "$PMAPS" map --color=never --by age -f numa-two-nodes.txt
expect_text by_age_without_age 2 "" \
"pmaps map: numa-two-nodes.txt: --by age: expected the AGE column, which it lacks; read the process with --numa, or save it with pmaps --numa
Try 'pmaps map --help' for more information."

tap_done
