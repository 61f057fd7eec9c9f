#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps map: the picture of committed documents (golden files, checked by
# hand: see the comments), zoom, width, colour, the filters, the PNG
# decoded and its pixels counted, errors, and a live process read through
# pagemap (root).
# Prints TAP.  PMAPS names the binary; CC builds the target process.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
cleanup() {
	[ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

usage_hint="Try 'pmaps map --help' for more information."
# The picture's rows of a VMA: the lines after its header, up to the next.
rows_of() {
	awk -v h="$1" 'index($0, h) == 1 { on = 1; next }
		on && /^  / { print; next } { on = 0 }' "$tmp/out"
}

cd "$fix" || exit 1

if [ "$(getconf PAGESIZE)" != 4096 ]; then
	echo "1..0 # SKIP the fixtures assume 4 KiB pages"
	exit 0
fi

# ---- golden pictures ----
#
# Checked by hand against the fixtures.  good-basic.map: the r-xp text
# has page 2 (mapcount 3), 3 (none), 4-6 (mapcount 2): "mMM", a shared
# page beside a missing one being lowercase; the rw-p data has page 7
# dirty and 8 under writeback: one character, the stronger of the two,
# uppercase as both are resident ("W"); the heap's 16 pte-dirty pages are 8 "D", then pages
# 16-19 missing, page 20 pte-dirty: "..d"; the 512-page file mapping
# wraps at 128 pages (64 characters) a row into 4 rows, 0x80000 apart,
# its first page clean ("c"), its last shared ("m").  demo-6.*: ramfs
# pages are all dirty, the vdso page is shared (mapcount 3); the 40-page
# r--p VMA has pages 0-15 and 18-33: 8 "D", ".", 8 "D", "...".
for f in guest/demo-6.1 guest/demo-6.12 good-basic huge-sparse; do
	g=$(basename "$f")
	run "$PMAPS" map --color=never --width 80 -f "$f.txt"
	expect "golden_$g" 0 "$golden/$g.map" ""
done

# The same picture through every way of naming a file.
run "$PMAPS" map --color=never --width 80 --source=file good-basic.txt
expect source_file_argument 0 "$golden/good-basic.map" ""
run "$PMAPS" map --color=never --width 80 -f - < good-basic.txt
sed '1s/^good-basic.txt:/<stdin>:/' "$golden/good-basic.map" > "$tmp/want"
expect from_stdin 0 "$tmp/want" ""

# Several targets: each picture in turn, a blank line between.
run "$PMAPS" map --color=never --width 80 -f good-basic.txt -f good-basic.txt
{ cat "$golden/good-basic.map"; echo; cat "$golden/good-basic.map"; } \
	> "$tmp/want"
expect two_targets 0 "$tmp/want" ""

# ---- legend ----

run "$PMAPS" map --color=never --width 80 -f good-basic.txt
sed -n 2,6p "$tmp/out" > "$tmp/legend"
printf '%s\n' "legend: . not present  C clean  Y young  M shared  D dirty" \
	"        T mTHP  H thp  W writeback  S swapped" \
	"  a character is 2 pages: the state most of them have (the later one on a tie)," \
	"  uppercase when both are resident or swapped, lowercase when one is" \
	"note: swapped, thp, mTHP: not in a saved document, not shown" > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/legend" "$tmp/want"
result legend_names_every_state

# pagemap-unknown.txt has '?' for Y and P: the legend says so, and a
# "?" flag is not drawn as set: a Y? page is not young.  Nor is a page
# whose P is '?' and D clear drawn clean: it may be dirty, so it is '?'
# (the last 4 pages of app's text), and no page of the file is 'C'.
run "$PMAPS" map --color=never --width 80 -f pagemap-unknown.txt
[ "$rc" = 0 ] && grep -qx "note: young: not known from source file, not shown" "$tmp/out" &&
	grep -qx "note: pte-dirty: not known from source file for some pages, drawn as ? where no other state is known" "$tmp/out" &&
	grep -qx '  000000500000 \.*??' "$tmp/out" &&
	! grep -q '^  [0-9a-f]\{12\} .*[YyCc]' "$tmp/out"
result unknown_flags_noted_not_drawn

# withheld.txt: /bin/demo's text has pages 1-16 and 48-63 with mapcount
# '?', young: drawn young, not shared; the vdso's mapcount 3 is shared.
# Its D and W are '?' too: not drawn as dirty, and said so; as all its
# pages with them are young, none is drawn '?' and the legend has no '?'.
run "$PMAPS" map --color=never --width 80 -f withheld.txt
[ "$rc" = 0 ] &&
	grep -qx "note: PG_dirty, writeback: not known ('?') for some pages, drawn as ? where no other state is known" "$tmp/out" &&
	! grep -q "^        ? resident" "$tmp/out" &&
	grep -qx "note: shared: mapcount not known ('?') for some pages, drawn as not shared" "$tmp/out" &&
	rows_of 000000401000-00000047e000 | grep -qx '  000000401000 Y\{63\}' &&
	rows_of 7f4d25b47000-7f4d25b49000 | grep -qx '  7f4d25b47000 m'
result unknown_mapcount_noted_not_shared

# The same pages, not young: what is not known to be clean is '?', one
# letter whatever the share, and the legend names it on a line of its own.
sed 's/\tY??U_??\t/\t_??U_??\t/' withheld.txt > "$tmp/unknown.txt"
run "$PMAPS" map --color=never --width 80 -f "$tmp/unknown.txt"
[ "$rc" = 0 ] &&
	sed -n 4p "$tmp/out" | grep -qx "        ? resident, state not known ('?')" &&
	rows_of 000000401000-00000047e000 | grep -qx '  000000401000 ?\{63\}' &&
	rows_of 00000047e000-0000004a6000 | grep -qx '  00000047e000 ????????.????????...' &&
	rows_of 0000004a6000-0000004aa000 | grep -qx '  0000004a6000 ?D'
result unknown_state_drawn_unknown

# ---- zoom ----

# 1 TiB with 513 pages at its start, one at page 1000000 and 100000 from
# page 200000000: 2^28 pages in 16 rows of 64 characters is 262144 pages
# a character; the first holds 513 pages (":", up to a quarter), the
# fourth the young page (1000000 / 262144 = 3; ":"), and the 100000 clean
# pages fall in characters 762 and 763, row 11, columns 58 and 59: 15872
# of 262144 (":") and 84128 ("c", more than a quarter).
run "$PMAPS" map --color=never --width 80 -f huge-sparse.txt
rows_of 7e0000000000-7f0000000000 > "$tmp/rows"
[ "$rc" = 0 ] && [ "$(wc -l < "$tmp/rows")" = 16 ] &&
	grep -q "268435456 pages, 262144 a character" "$tmp/out" &&
	sed -n 1p "$tmp/rows" | grep -qx '  7e0000000000 :\.\.:\.\{60\}' &&
	sed -n 12p "$tmp/rows" | grep -qx '  7eb000000000 \.\{58\}:c\.\{4\}'
result zoom_fits_16_rows

# Without colour the glyph is the density (issue 32: one page of 262144
# was a "c", as full-looking as a full cell): cells of 4 pages with 4, 3,
# 2 and 1 resident are "C", "C", "c" and ":", and the legend says so.
printf '7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n' > "$tmp/density.txt"
for n in 4 3 2 1; do
	printf '%d\t%d\t___U___\t1\n' \
		$((34091302912 + 4 * (4 - n))) "$n" >> "$tmp/density.txt"
done
run "$PMAPS" map --color=never --scale 4 -f "$tmp/density.txt"
rows_of 7f0000000000-7f0000010000 > "$tmp/rows"
printf '  7f0000000000 CCc:\n' > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/rows" "$tmp/want" &&
	grep -qx '  more than 1/4; : when up to 1/4' "$tmp/out"
result zoom_glyph_shows_density

# --scale 4 on the heap: pages 0-15 pte-dirty, 16-19 none, 20 dirty
# (one of four: ":").
run "$PMAPS" map --color=never --width 80 --scale 4 -f good-basic.txt
rows_of 55d0c9b1e000-55d0c9b3f000 > "$tmp/rows"
printf '  55d0c9b1e000 DDDD.:...\n' > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/rows" "$tmp/want" &&
	grep -q '^55d0c9b1e000-55d0c9b3f000 rw-p \[heap\]  33 pages, 4 a character$' "$tmp/out"
result scale_merges_pages

# Zoomed cells in colour: shaded by how many pages are resident.
run "$PMAPS" map --color=always --width 80 --scale 4 -f good-basic.txt
full=$(printf '\342\226\210')
quarter=$(printf '\342\226\221')
rows_of "${esc}[1m55d0c9b1e000" > "$tmp/rows"
# red over "not present": 4 full cells, a blank, a quarter, 3 blanks
printf '  55d0c9b1e000 \033[38;5;196m\033[48;5;236m%s %s   \033[0m\n' \
	"$full$full$full$full" "$quarter" > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/rows" "$tmp/want"
result zoom_shades_by_density

# ---- width ----

# 120 columns: 120 - 15 = 105, 104 characters, 208 pages a row.
run "$PMAPS" map --color=never --width 120 -f good-basic.txt
rows_of "7f3a1d000000-7f3a1d200000" | cut -c1-14 > "$tmp/rows"
printf '  %s\n' 7f3a1d000000 7f3a1d0d0000 7f3a1d1a0000 > "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/rows" "$tmp/want" &&
	[ "$(rows_of "7f3a1d000000-7f3a1d200000" | sed -n 2p | wc -c)" = $((15 + 104 + 1)) ]
result width_wraps_rows

run env COLUMNS=120 "$PMAPS" map --color=never -f good-basic.txt
rows_of "7f3a1d000000-7f3a1d200000" | cut -c1-14 > "$tmp/rows"
[ "$rc" = 0 ] && cmp -s "$tmp/rows" "$tmp/want"
result width_from_columns

# Narrower than 80 pages would allow: still 40 characters (80 pages).
run "$PMAPS" map --color=never --width 20 -f good-basic.txt
[ "$rc" = 0 ] && [ "$(rows_of "7f3a1d000000-7f3a1d200000" | wc -l)" = 7 ] &&
	[ "$(rows_of "7f3a1d000000-7f3a1d200000" | sed -n 2p | wc -c)" = $((15 + 40 + 1)) ]
result at_least_80_pages_a_row

# ---- colour ----

# The rw-p data of cat: page 7 dirty (red, the upper half) over page 8
# under writeback (yellow, the lower half).
run "$PMAPS" map --color=always --width 80 -f good-basic.txt
half=$(printf '\342\226\200')
rows_of "${esc}[1m55d0c8a07000" > "$tmp/rows"
printf '  55d0c8a07000 \033[38;5;196m\033[48;5;226m%s\033[0m\n' "$half" \
	> "$tmp/want"
[ "$rc" = 0 ] && cmp -s "$tmp/rows" "$tmp/want"
result color_half_blocks

run env NO_COLOR=1 "$PMAPS" map --width 80 -f good-basic.txt
[ "$rc" = 0 ] && ! grep -q "$esc" "$tmp/out"
result no_color_not_a_tty

if have_tty color_auto_on_tty no_color_on_tty; then
	on_tty "NO_COLOR= '$PMAPS' map --width 80 -f good-basic.txt" &&
		grep -q "$esc\[38;5;" "$tmp/out"
	result color_auto_on_tty
	on_tty "NO_COLOR=1 '$PMAPS' map --width 80 -f good-basic.txt" &&
		! grep -q "$esc" "$tmp/out"
	result no_color_on_tty
fi

# ---- filters ----
#
# Applied before drawing, as pmaps applies them.  --areas: only the VMAs
# selected, each drawn as without it (good-basic.map's lines 7-14 are
# cat's three VMAs and the heap).
run "$PMAPS" map --color=never --width 80 --areas heap,cat -f good-basic.txt
sed -n 1,14p "$golden/good-basic.map" > "$tmp/want"
expect areas_draws_only_those_vmas 0 "$tmp/want" ""

# The same options before the command's name.
run "$PMAPS" --areas heap,cat map --color=never --width 80 -f good-basic.txt
expect areas_before_command 0 "$tmp/want" ""

# --flags P: cat's data had page 7 dirty over page 8 under writeback
# ("w"); page 8 is not pte-dirty, so it is drawn not present ("d").  VMAs
# without a P page are gone, and a note says what the picture leaves out.
run "$PMAPS" map --color=never --width 80 --flags P -f good-basic.txt
[ "$rc" = 0 ] &&
	[ "$(rows_of "55d0c8a07000-55d0c8a09000 rw-p")" = "  55d0c8a07000 d" ] &&
	[ "$(rows_of "55d0c9b1e000-55d0c9b3f000 rw-p")" = "  55d0c9b1e000 DDDDDDDD..d......" ] &&
	! grep -q '^55d0c8a02000-\|^7f3a1d000000-' "$tmp/out" &&
	grep -qx "note: --flags: only the pages of matching ranges are drawn, all others as not present" "$tmp/out"
result flags_draws_only_matching_pages

# --range: only the rows of the window, the VMA cut to it; the file
# mapping's second row alone, then its last page (shared, at file page
# 527: the cut moves the file offset with the start), then the heap from
# page 16 (16-19 missing, 20 pte-dirty).
run "$PMAPS" map --color=never --width 80 --range 7f3a1d080000,7f3a1d100000 \
	-f good-basic.txt
dots=................................................................
[ "$rc" = 0 ] &&
	[ "$(grep -c '^[0-9a-f]\{1,\}-[0-9a-f]* ' "$tmp/out")" = 1 ] &&
	grep -qx '7f3a1d080000-7f3a1d100000 r--s /tmp/my file (deleted)  128 pages' "$tmp/out" &&
	[ "$(rows_of 7f3a1d080000-)" = "  7f3a1d080000 $dots" ] &&
	grep -qx "note: --range: only addresses 7f3a1d080000-7f3a1d100000 are drawn, each VMA cut to them" "$tmp/out"
result range_limits_rows
run "$PMAPS" map --color=never --width 80 --range 7f3a1d1fe000,7f3a1d200000 \
	-f good-basic.txt
[ "$rc" = 0 ] && [ "$(rows_of 7f3a1d1fe000-)" = "  7f3a1d1fe000 m" ]
result range_keeps_file_page_addresses
run "$PMAPS" map --color=never --width 80 --range 55d0c9b2e000,55d0c9b3f000 \
	-f good-basic.txt
[ "$rc" = 0 ] && [ "$(rows_of 55d0c9b2e000-55d0c9b3f000)" = "  55d0c9b2e000 ..d......" ]
result range_cuts_anonymous_vma

run "$PMAPS" map --range 5,1 -f good-basic.txt
expect_text bad_range_exit_2 2 "" "pmaps map: --range: expected START below END, got '5,1'
$usage_hint"

run "$PMAPS" map --flags D,X -f good-basic.txt
expect_text bad_flags_exit_2 2 "" "pmaps map: --flags: expected a flag letter (YRAUPDW) or name (young, referenced, active, uptodate, pte-dirty, dirty, writeback), got 'X' in 'D,X'
$usage_hint"

# ---- PNG ----

# Checks a PNG as a decoder would, then counts the pixels of each state's
# colour: png_decode.py FILE RGB...

if ! command -v python3 > /dev/null; then
	lacks python3 png_decodes png_pixels_per_state png_zoomed_decodes \
		png_filtered_pixels png_font_printable_ascii png_font_lowercase
else
	# 630 pages: 594 not present, 1 clean, 9 shared, 25 dirty, 1 under
	# writeback (see golden_good-basic); each page is 5x5 pixels, each
	# legend swatch 10x10.  The widest line is a row of cells: "  " and 12
	# hex digits and " " (15 characters of 6 pixels), 64 cells of 5 and a
	# character's 6 to spare, 416 pixels (the file mapping's title, the
	# widest text, is 64 characters, 384); 34 lines of 12 pixels: title,
	# 9 states, a note, 10 VMA titles and 13 rows.
	run "$PMAPS" map --width 80 --png "$tmp/basic.png" -f good-basic.txt
	[ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] &&
		python3 "$here/png_decode.py" "$tmp/basic.png" 303030 008700 00ff00 \
		00ffff ff0000 0087ff ffff00 ff00ff > "$tmp/pixels" 2> "$tmp/err"
	result png_decodes
	printf '%s\n' 416x408 "303030 $((100 + 594 * 25))" \
		"008700 $((100 + 25))" "00ff00 100" "00ffff $((100 + 9 * 25))" \
		"ff0000 $((100 + 25 * 25))" "0087ff 100" "ffff00 $((100 + 25))" \
		"ff00ff 100" > "$tmp/want"
	cmp -s "$tmp/pixels" "$tmp/want"
	result png_pixels_per_state
	[ -s "$tmp/pixels" ] && diff "$tmp/want" "$tmp/pixels" | diag

	# --areas heap: its 33 pages alone, 17 pte-dirty and 16 not present
	# (and each state's swatch); no shared page of cat, no clean page of
	# the file.
	run "$PMAPS" map --width 80 --areas heap --png "$tmp/heap.png" \
		-f good-basic.txt
	printf '%s\n' 416x156 "303030 $((100 + 16 * 25))" "008700 100" \
		"00ffff 100" "ff0000 $((100 + 17 * 25))" > "$tmp/want"
	[ "$rc" = 0 ] &&
		python3 "$here/png_decode.py" "$tmp/heap.png" 303030 008700 00ffff \
		ff0000 > "$tmp/pixels" 2> "$tmp/err" &&
		cmp -s "$tmp/pixels" "$tmp/want"
	result png_filtered_pixels
	[ -s "$tmp/pixels" ] && diff "$tmp/want" "$tmp/pixels" | diag

	# 1 TiB: 16 rows, whatever the size; 29 lines with the zoom line.
	run "$PMAPS" map --width 80 --png - -f huge-sparse.txt
	mv "$tmp/out" "$tmp/huge.png" && : > "$tmp/out"
	[ "$rc" = 0 ] &&
		python3 "$here/png_decode.py" "$tmp/huge.png" > "$tmp/pixels" &&
		grep -qx '[0-9]*x348' "$tmp/pixels"
	result png_zoomed_decodes

	# The glyphs of a line of text: each character's 6x10 pixels (one
	# pixel row down in the line's 12) as 60 digits, 1 where the pixel is
	# the text's colour (d0d0d0); a line per character.
	cat > "$tmp/glyphs.py" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
line, first, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
pos, idat = 8, b""
while pos < len(data):
    size, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + size]
    if kind == b"IHDR":
        w = struct.unpack(">I", body[:4])[0]
    elif kind == b"PLTE":
        plte = body
    elif kind == b"IDAT":
        idat += body
    pos += 12 + size
raw = zlib.decompress(idat)
def text(x, y):
    i = raw[y * (w + 1) + 1 + x]
    return plte[3 * i:3 * i + 3] == b"\xd0\xd0\xd0"
for c in range(first, first + n):
    print("".join("1" if text(6 * c + x, 12 * line + 1 + y) else "0"
                  for y in range(10) for x in range(6)))
EOF

	# Every printable ASCII character in a VMA's name: after the 23
	# characters of "00400000-00401000 r--p " and the name's "/", the
	# space is blank and the 94 others are each drawn, all different (a
	# font without lowercase, or drawing a missing glyph as '?', fails).
	# The VMA's title is line 11, after the title, 9 states and a note.
	python3 -c 'print("00400000-00401000 r--p 00000000 00:02 15 /" +
		"".join(map(chr, range(0x20, 0x7f))) + "\n0\t1\tY______\t1")' \
		> "$tmp/ascii.txt"
	run "$PMAPS" map --width 80 --png "$tmp/ascii.png" -f "$tmp/ascii.txt"
	[ "$rc" = 0 ] &&
		python3 "$tmp/glyphs.py" "$tmp/ascii.png" 11 24 95 \
			> "$tmp/glyphs" 2> "$tmp/err" &&
		[ "$(wc -l < "$tmp/glyphs")" = 95 ] &&
		sed -n 1p "$tmp/glyphs" | grep -qx '0\{60\}' &&
		! sed 1d "$tmp/glyphs" | grep -qx '0*' &&
		[ "$(sed 1d "$tmp/glyphs" | sort -u | wc -l)" = 94 ]
	result png_font_printable_ascii

	# A path in lowercase and in uppercase: the VMAs' titles, from
	# character 23 on ("/usr/lib/x"), differ where the letters are, and
	# only there.
	printf '00400000-00401000 r--p 00000000 00:02 15 /usr/lib/x\n0\t1\tY______\t1\n' \
		> "$tmp/lower.txt"
	sed '1s,/usr/lib/x$,/USR/LIB/X,' "$tmp/lower.txt" > "$tmp/upper.txt"
	run "$PMAPS" map --width 80 --png "$tmp/lower.png" -f "$tmp/lower.txt"
	[ "$rc" = 0 ] &&
		python3 "$tmp/glyphs.py" "$tmp/lower.png" 11 23 10 \
			> "$tmp/lower" 2> "$tmp/err" &&
		run "$PMAPS" map --width 80 --png "$tmp/upper.png" \
			-f "$tmp/upper.txt" && [ "$rc" = 0 ] &&
		python3 "$tmp/glyphs.py" "$tmp/upper.png" 11 23 10 \
			> "$tmp/upper" 2> "$tmp/err" &&
		paste -d ' ' "$tmp/lower" "$tmp/upper" |
		awk '{ printf "%d", $1 != $2 } END { print "" }' |
		grep -qx 0111011101
	result png_font_lowercase
fi
# No PNG written is a failure of pmaps, not a reason to skip.
if command -v file > /dev/null; then
	[ -s "$tmp/basic.png" ] &&
		file "$tmp/basic.png" | grep -q "PNG image data, 416 x 408, 8-bit colormap"
	result png_file_recognises
else
	lacks "file(1)" png_file_recognises
fi

run "$PMAPS" map --png "$tmp/no/such/dir.png" -f good-basic.txt
expect_text png_unwritable_exit_1 1 "" \
	"pmaps map: $tmp/no/such/dir.png: cannot create a temporary file beside it: No such file or directory"

# No PNG to a terminal (--png -): the message alone, exit 2 as for bad
# usage, as gzip refuses.  To a file it is written, stdout a terminal or
# not: the same bytes as through a pipe.
if have_tty png_not_to_terminal png_file_from_terminal; then
	on_tty "'$PMAPS' map --width 80 --png - -f good-basic.txt"
	rc=$?
	printf '%s\r\n' "pmaps map: --png -: not writing a PNG image to a terminal; redirect standard output, or give a FILE" \
		"$usage_hint" > "$tmp/want"
	[ "$rc" = 2 ] && cmp -s "$tmp/out" "$tmp/want"
	result png_not_to_terminal

	"$PMAPS" map --width 80 --png - -f good-basic.txt > "$tmp/pipe.png"
	on_tty "'$PMAPS' map --width 80 --png '$tmp/tty.png' -f good-basic.txt"
	rc=$?
	[ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/pipe.png" ] &&
		cmp -s "$tmp/tty.png" "$tmp/pipe.png"
	result png_file_from_terminal
fi

# ---- usage and errors ----

run "$PMAPS" map --help
grep -q -- "--png" "$tmp/out" && grep -q -- "--scale" "$tmp/out" &&
	grep -q -- "--width" "$tmp/out" && grep -q -- "--range" "$tmp/out" &&
	[ "$rc" = 0 ]
result help

run "$PMAPS" map
expect_text no_target_exit_2 2 "" "pmaps map: expected a PID, -p NAME or -f FILE
$usage_hint"

run "$PMAPS" map 12x
expect_text bad_pid_exit_2 2 "" "pmaps map: expected a PID, got '12x'
$usage_hint"

run "$PMAPS" map --scale 0 -f good-basic.txt
expect_text bad_scale_exit_2 2 "" "pmaps map: --scale: expected a number of pages from 1 to 1099511627776, got '0'
$usage_hint"

run "$PMAPS" map --width wide -f good-basic.txt
expect_text bad_width_exit_2 2 "" "pmaps map: --width: expected a number of columns, got 'wide'
$usage_hint"

run "$PMAPS" map --png x.png -f good-basic.txt -f good-basic.txt
expect_text png_one_target 2 "" "pmaps map: --png draws one target, got 2
$usage_hint"

run "$PMAPS" map --bogus -f good-basic.txt
expect_text unknown_option 2 "" "pmaps map: unrecognized option '--bogus'
$usage_hint"

run "$PMAPS" map -f bad-count.txt
expect_text malformed_exit_2 2 "" "pmaps map: bad-count.txt:2: expected decimal COUNT, got '+1'"

# A bad target is reported, the good ones still drawn.
run "$PMAPS" map --color=never --width 80 -f no-such.txt -f good-basic.txt
expect missing_then_good 1 "$golden/good-basic.map" \
	"pmaps map: no-such.txt: No such file or directory"

# A full disk: exit 1 and "write error", as every command says, once
# however many pictures were cut (16 rows of 3984 characters, more than
# stdio holds back: written, and failing, while drawing); a short
# picture, a PNG on stdout and --help alike.
full() {
	: > "$tmp/out"
	"$@" > /dev/full 2> "$tmp/err"
	rc=$?
}
if [ -c /dev/full ]; then
	full "$PMAPS" map --color=never --width 4000 -f huge-sparse.txt \
		-f huge-sparse.txt
	expect_text full_disk_picture 1 "" \
		"pmaps map: write error: No space left on device"
	full "$PMAPS" map --color=never --width 80 -f good-basic.txt
	expect_text full_disk_short_picture 1 "" \
		"pmaps map: write error: No space left on device"
	full "$PMAPS" map --png - -f good-basic.txt
	expect_text full_disk_png_stdout 1 "" \
		"pmaps map: write error: No space left on device"
	full "$PMAPS" map --help
	expect_text full_disk_help 1 "" \
		"pmaps map: write error: No space left on device"
	# a bad target first: the write error is still said
	full "$PMAPS" map --color=never -f no-such.txt -f good-basic.txt
	expect_text full_disk_after_bad_target 1 "" \
		"pmaps map: no-such.txt: No such file or directory
pmaps map: write error: No space left on device"
else
	for t in full_disk_picture full_disk_short_picture \
		 full_disk_png_stdout full_disk_help full_disk_after_bad_target; do
		skip "$t" "no /dev/full"
	done
fi

pid_max=$(cat /proc/sys/kernel/pid_max)
run "$PMAPS" map "$pid_max"
expect_text unknown_pid_exit_1 1 "" "pmaps map: no process $pid_max"

# A name with control bytes is escaped, never sent to the terminal.
printf '00400000-00401000 r--p 00000000 00:02 15 /bin/\033]0;x\a\n0\t1\tY______\t1\n' \
	> "$tmp/esc.txt"
run "$PMAPS" map --color=never --width 80 -f "$tmp/esc.txt"
[ "$rc" = 0 ] && grep -q '/bin/\\x1b]0;x\\x07  1 page$' "$tmp/out" && ! grep -q "$esc" "$tmp/out"
result names_escaped

# ---- --by node and --by size ----
#
# numa-two-nodes.txt, checked by hand: a 16-page VMA with pages 0-3 on
# node 0 in 4 KiB folios, 4-7 on node 1 in 16 KiB (mTHP), 8-9 absent,
# 10 '?' for both, 11 node 0 in 8 KiB, 12 and 14-15 node 1 in 4 KiB, 13
# absent; then a 2 MiB VMA all on node 1 in one PMD folio, 4 rows of 128
# pages.  By node, two pages a character: "00", "11", "..", then page 10
# '?' against 11 on node 0, a tie going to the later in the legend: '?';
# "1." and "11" are both "1", digits having no case.  By size: "SS",
# "MM", "..", the same tie "?", then "s" (one 4 KiB page of two), "S".
for b in node size; do
	run "$PMAPS" map --color=never --width 80 --by "$b" -f numa-two-nodes.txt
	expect "by_${b}_golden" 0 "$golden/numa-two-nodes.by-$b" ""
done

# In colour: each node its colour, '?' grey (247), not present 236; the
# row (line 5, after the bold title) as upper page over lower page, one
# escape per change.
run "$PMAPS" map --color=always --width 80 --by node -f numa-two-nodes.txt
c() { printf '%s[38;5;%sm' "$esc" "$1"; }
b() { printf '%s[48;5;%sm' "$esc" "$1"; }
h=$(printf '\342\226\200')
want_legend="legend: $(c 236)$h$h$esc[0m not present  $(c 33)$h$h$esc[0m node 0  $(c 208)$h$h$esc[0m node 1  $(c 247)$h$h$esc[0m node not known ('?')"
want_row="  7f0000000000 $(c 33)$(b 33)$h$h$(c 208)$(b 208)$h$h$(c 236)$(b 236)$h$(c 247)$(b 33)$h$(c 208)$(b 236)$h$(b 208)$h$esc[0m"
[ "$rc" = 0 ] && [ "$(sed -n 2p "$tmp/out")" = "$want_legend" ] &&
	[ "$(sed -n 5p "$tmp/out")" = "$want_row" ]
result by_node_color

# The default picture of a NUMA document is still by state.
run "$PMAPS" map --color=never --width 80 -f numa-two-nodes.txt
[ "$rc" = 0 ] && sed -n 2p "$tmp/out" | grep -q '^legend: \. not present  C clean'
result by_default_is_state

# Without the NUMA columns there is nothing to colour by: said, naming
# --numa, not drawn as all '?'.
for b in node size; do
	run "$PMAPS" map --color=never --by "$b" -f good-basic.txt
	expect_text "by_${b}_without_numa" 2 "" \
"pmaps map: good-basic.txt: --by $b: expected the NODE and KB columns, which it lacks; read the process with --numa, or save it with pmaps --numa
$usage_hint"
done
run "$PMAPS" map --by nodes -f numa-two-nodes.txt
expect_text by_bad_value 2 "" "pmaps map: --by: expected node, size or age, got 'nodes'
$usage_hint"

# The PNG by node: 5 pages on node 0, 519 on node 1, 1 '?' and 3 not
# present, 25 pixels each, and a 10x10 swatch each; 416 pixels wide as
# good-basic's, 12 lines of 12: title, 4 legend lines, 2 VMA titles and
# 5 rows.
if command -v python3 > /dev/null; then
	run "$PMAPS" map --width 80 --by node --png "$tmp/node.png" \
		-f numa-two-nodes.txt
	printf '%s\n' 416x144 "0087ff $((100 + 5 * 25))" \
		"ff8700 $((100 + 519 * 25))" "9e9e9e $((100 + 25))" \
		"303030 $((100 + 3 * 25))" > "$tmp/want"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
		python3 "$here/png_decode.py" "$tmp/node.png" 0087ff ff8700 \
		9e9e9e 303030 > "$tmp/pixels" 2> "$tmp/err" &&
		cmp -s "$tmp/pixels" "$tmp/want"
	result by_node_png_pixels
	[ -s "$tmp/pixels" ] && diff "$tmp/want" "$tmp/pixels" | diag
else
	lacks python3 by_node_png_pixels
fi

# ---- a live process, through pagemap (root) ----

# 16 anonymous pages, 0-3 and 8 written, no THP; and 4 MiB, 2 MiB
# aligned, asking for THP, all written.
cat > "$tmp/target.c" <<'EOF'
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25	/* Linux 6.1 */
#endif

int main(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t huge = 2 << 20;
	char *guard, *anon, *big, *thp;

	guard = mmap(NULL, 18 * ps, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	big = mmap(NULL, 4 * huge, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || big == MAP_FAILED)
		return 1;
	anon = guard + ps;
	if (mprotect(anon, 16 * ps, PROT_READ | PROT_WRITE) ||
	    madvise(anon, 16 * ps, MADV_NOHUGEPAGE))
		return 1;
	memset(anon, 1, 4 * ps);
	anon[8 * ps] = 1;
	thp = (char *)(((uintptr_t)big + huge - 1) & ~(uintptr_t)(huge - 1));
	madvise(thp, 2 * huge, MADV_HUGEPAGE);
	memset(thp, 1, 2 * huge);
	/* no THP at fault (no free 2 MiB block then): ask again, compacting */
	madvise(thp, 2 * huge, MADV_COLLAPSE);
	printf("%lx %lx\n", (unsigned long)anon, (unsigned long)thp);
	fflush(stdout);
	pause();
	return 0;
}
EOF

start_target() {
	spawn_target map-target 600 0.05 || return 1
	read -r anon thp < "$tmp/layout" && [ -n "$thp" ]
}

live_tests="live_anon_pages live_thp_marked live_range_one_vma live_png"
if [ "$(id -u)" != 0 ]; then
	for t in $live_tests; do skip "$t" "needs root"; done
elif ! start_target; then
	diag "$tmp/err"
	for t in $live_tests; do not_ok "$t"; done
	echo "# could not start the target process"
else
	# Whether written anonymous pages are PG_dirty depends on the
	# kernel: clean or dirty, but both pages of 0-1 and 2-3, one of 8-9.
	run "$PMAPS" map --source=pagemap --color=never --width 80 "$target_pid"
	rows_of "$anon-" > "$tmp/rows"
	[ "$rc" = 0 ] &&
		grep -qx "  $anon [CD][CD]\.\.[cd]\.\.\." "$tmp/rows"
	result live_anon_pages

	# THP is the kernel's choice: tested when smaps says it chose it.
	# The skip names why not: THP off here, or none given (no 2 MiB
	# block free, even after MADV_COLLAPSE's compaction).
	thp_mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' \
		   /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null)
	thp_kb=$(awk -v a="$thp-" 'index($0, a) == 1 { on = 1; next }
		/^[0-9a-f]+-/ { on = 0 }
		on && $1 == "AnonHugePages:" { print $2 }' "/proc/$target_pid/smaps")
	if [ "${thp_kb:-0}" -lt 2048 ]; then
		if [ -z "$thp_mode" ] || [ "$thp_mode" = never ]; then
			skip live_thp_marked "this kernel has THP off (enabled: ${thp_mode:-no such file})"
		else
			skip live_thp_marked "the kernel gave no THP even after MADV_COLLAPSE (AnonHugePages ${thp_kb:-0} kB)"
		fi
	else
		# each 2 MiB THP is 512 pages, 256 characters: 4 full rows
		n=$(rows_of "$thp-" | grep -c "^  [0-9a-f]* H\{64\}$")
		[ "$n" -ge $((thp_kb / 2048 * 4)) ]
		result live_thp_marked
		[ "$n" -ge $((thp_kb / 2048 * 4)) ] ||
			echo "# $n full rows of H for $thp_kb kB of THP"
	fi

	# --range over the 16 pages: their VMA alone, between its guards.
	end=$(printf '%x' $((0x$anon + 16 * 4096)))
	run "$PMAPS" map --source=pagemap --color=never --width 80 \
		--range "$anon,$end" "$target_pid"
	[ "$rc" = 0 ] &&
		[ "$(grep -c '^[0-9a-f]\{1,\}-[0-9a-f]* ' "$tmp/out")" = 1 ] &&
		rows_of "$anon-$end" | grep -qx "  $anon [CD][CD]\.\.[cd]\.\.\."
	result live_range_one_vma

	run "$PMAPS" map --source=pagemap --png "$tmp/live.png" "$target_pid"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
		{ ! command -v python3 > /dev/null ||
		  python3 "$here/png_decode.py" "$tmp/live.png" > /dev/null; }
	result live_png
fi

tap_done
