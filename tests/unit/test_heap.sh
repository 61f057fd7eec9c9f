#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps heap, TAP: heap_target.c's known malloc/free pattern in the main
# arena and two thread arenas must show in --chunks to the chunk, and the
# map and the summary must be what those chunks make; the same with the
# C library's debug symbols (libc6-dbg) and without them (an empty
# --debug-dir, and PMAPS_DEBUG_DIR).  A corrupted heap is refused with a
# message and status 3, a target linked with jemalloc with status 4.  Needs root, or
# ptrace access to its own children.  PMAPS names the binary; CC builds
# the targets.
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

usage_hint="Try 'pmaps heap --help' for more information."
mkdir "$tmp/empty"
mkfifo "$tmp/fifo"

# start PROG [ARG...]: run $tmp/PROG, read what it writes until it closes
# stdout (no sleep: the end of file is the signal) into $tmp/layout, and
# set $pid.
start() {
	start_prog=$1
	shift
	"$tmp/$start_prog" "$@" > "$tmp/fifo" &
	pid=$!
	pids="$pids $pid"
	# bounded: a target that never closes its stdout is killed
	timeout -k 5 $((120 * slow)) cat "$tmp/fifo" > "$tmp/layout" ||
		kill -KILL "$pid" 2> /dev/null
}

# ---- the target ----

if ! ${CC:-cc} -O2 -pthread -o "$tmp/heap_target" "$here/heap_target.c" \
	2> "$tmp/err"; then
	diag "$tmp/err"
	not_ok heap_target_builds
	tap_done
	exit
fi
start heap_target
[ -s "$tmp/layout" ] && alive "$pid"
result heap_target_writes_its_chunks
# pmaps heap reads the target's memory with process_vm_readv(2), which
# qemu-user (tests/unit/arm64.sh) does not emulate: there the tests of
# what it reads are skipped, and those of what it refuses first still run.
qemu_user_refuses process_vm_readv "$PMAPS" heap "$pid"
no_readv=$qemu_refused

# chunks_match NAME: every chunk of the layout is in $tmp/out (--chunks)
# with its size and state, and the mmap'ed one among those served by mmap.
chunks_match() {
	sed 's/^ *//' "$tmp/out" | awk '
		NR == FNR {
			if ($1 == "mmap") mm[$2] = $3
			else want[$1] = $2 " " $3
			next
		}
		/^chunks served by mmap/ { in_mm = 1; next }
		in_mm { got_mm[$1] = $2; next }
		{ got[$1] = $2 " " $3 }
		END {
			for (a in want) {
				n++
				if (want[a] != got[a]) {
					bad++
					if (bad < 10) print "# " a ": " got[a] ", expected " want[a]
				}
			}
			for (a in mm)
				if (got_mm[a] != mm[a]) {
					bad++
					print "# mmap " a ": " got_mm[a] ", expected " mm[a]
				}
			print "# " n " chunks of the target checked"
			exit bad > 0
		}' "$tmp/layout" -
}

run "$PMAPS" heap --chunks "$pid"
[ "$rc" = 0 ] && chunks_match && cp "$tmp/out" "$tmp/chunks_dbg"
result_unless "$no_readv" chunks_match_the_target

grep -q "layout from debug symbols (/usr/lib/debug/.build-id/" "$tmp/out" &&
	! grep -q '^note: main_arena' "$tmp/out"
result_unless "$no_readv" layout_from_debug_symbols

# The chunks served by mmap, where the kernel merged their mappings: the
# target's lie in fewer mappings than there are of them, and every one is
# found (chunks_match), as many as mp_ counts.
set -- $(awk '
	function hex(x,   i, v) {
		v = 0
		for (i = 1; i <= length(x); i++)
			v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	NR == FNR { if ($1 == "mmap") a[++n] = hex($2); next }
	{
		split($1, r, "-")
		for (i = 1; i <= n; i++)
			if (a[i] >= hex(r[1]) && a[i] < hex(r[2])) m[$1] = 1
	}
	END { for (k in m) c++; print n, c }' "$tmp/layout" "/proc/$pid/maps")
echo "# $1 chunks served by mmap in $2 mappings"
[ "$2" -lt "$1" ] && grep -q "^chunks served by mmap: $1, " "$tmp/chunks_dbg" &&
	! grep -q '^note: mp_ counts' "$tmp/chunks_dbg"
result_unless "$no_readv" mmapped_chunks_in_merged_mappings
grep '^note: mp_ counts' "$tmp/chunks_dbg" | diag

run "$PMAPS" heap --chunks --debug-dir "$tmp/empty" "$pid"
[ "$rc" = 0 ] && chunks_match &&
	grep -q "from the heaps (no debug symbols: $tmp/empty/.build-id/" \
		"$tmp/out" &&
	grep -q '^note: main_arena found at 0x[0-9a-f]* by the ring of arenas' \
		"$tmp/out" &&
	grep -q '^note: chunks served by mmap are found by their headers' \
		"$tmp/out"
result_unless "$no_readv" chunks_match_without_debug_symbols

# PMAPS_DEBUG_DIR does what --debug-dir does; the chunks are the same.
PMAPS_DEBUG_DIR=$tmp/empty run "$PMAPS" heap --chunks "$pid"
[ "$rc" = 0 ] && sed 1d "$tmp/out" > "$tmp/a" &&
	"$PMAPS" heap --chunks --debug-dir "$tmp/empty" "$pid" | sed 1d > "$tmp/b" &&
	cmp -s "$tmp/a" "$tmp/b" && grep -v '^note' "$tmp/a" > "$tmp/a2" &&
	grep -v '^note' "$tmp/chunks_dbg" | sed 1d > "$tmp/b2" &&
	cmp -s "$tmp/a2" "$tmp/b2"
result_unless "$no_readv" debug_dir_from_environment

grep -q "^glibc\|glibc [0-9]*\.[0-9]*, layout" "$tmp/chunks_dbg"
result_unless "$no_readv" glibc_version_shown

# The summary is the sum of the chunks, per arena.
run "$PMAPS" heap --summary "$pid"
awk '
	/^(main arena|arena) / { a = $0; order[++na] = a; next }
	/^heap / { split(substr($2, 3), r, "-0x"); hs[a] += hex(r[2]) - hex(r[1]); nh[a]++; next }
	/^chunks served/ { exit }
	/^ / {
		s = $2; k = $3
		if (k == "used" || k == "header" || k == "fence") { used[a] += s; next }
		free[a] += s
		if (k == "top") { top[a] += s; next }
		nf[a]++
		if (s > big[a]) big[a] = s
		if (k == "tcache") tc[a] += s
		else if (k == "fastbin") fb[a] += s
		else if (k == "free") un[a] += s
		else bins[a] += s
	}
	function hex(x,   i, v) {
		v = 0
		for (i = 1; i <= length(x); i++)
			v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	END {
		for (i = 1; i <= na; i++) {
			a = order[i]
			printf "%s %d %d %d %d %d %d %d %d %d %d\n", a, nh[a], hs[a],
				used[a], free[a], nf[a], big[a], top[a], tc[a],
				fb[a], bins[a]
		}
	}' "$tmp/chunks_dbg" > "$tmp/want_summary"
sed -n '/^Arena/,/^chunks served/p' "$tmp/out" | sed '1d;$d' |
	sed 's/  */ /g' > "$tmp/got_summary"
[ "$rc" = 0 ] && [ "$(wc -l < "$tmp/got_summary")" = 3 ] &&
	cmp -s "$tmp/want_summary" "$tmp/got_summary"
result_unless "$no_readv" summary_is_the_sum_of_the_chunks
cmp -s "$tmp/want_summary" "$tmp/got_summary" ||
	diff "$tmp/want_summary" "$tmp/got_summary" | diag

# want_map SCALE: the map without colour drawn from the chunks, a heap a
# line: a character per cell of SCALE 16-byte units, its level the eighths
# in use, rounded (the units in use at 8), but 0 only for none and 8 only
# for all.
want_map() {
	awk -v S="$1" '
	/^heap / {
		split(substr($2, 3), r, "-0x"); start = hex(r[1]); end = hex(r[2])
		cb = S * 16
		cells = int((end - start + cb - 1) / cb)
		for (i = 0; i < cells; i++) u[i] = 0
		printf "%s", (nheap++ ? "\n" : "")
		next
	}
	/^chunks served/ { flush(); exit }
	/^ / {
		s = $2; k = $3; addr = hex($1)
		if (k == "used" || k == "header" || k == "fence")
			for (x = addr; x < addr + s; x += 16)
				u[int((x - start) / cb)]++
		last = addr + s
		if (last >= end) flush()
	}
	function flush(   i, c, l) {
		if (!cells) return
		for (i = 0; i < cells; i++) {
			c = u[i]
			l = int((c * 8 + int(S / 2)) / S)
			if (c > 0 && l == 0) l = 1
			if (c < S && l == 8) l = 7
			printf "%s", l == 0 ? "." : l == 8 ? "#" : l
		}
		cells = 0
	}
	function hex(x,   i, v) {
		v = 0
		for (i = 1; i <= length(x); i++)
			v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	END { print "" }' "$tmp/chunks_dbg"
}

# got_map: the cells of the map in $tmp/out, a heap a line.
got_map() {
	awk '/^heap / { printf "%s", (n++ ? "\n" : ""); next }
		/^chunks served/ { exit }
		/^  [0-9a-f]+ / { printf "%s", $2 }
		END { print "" }' "$tmp/out"
}

# map_is NAME SCALE LEGEND: the last run drew want_map SCALE, under a
# legend line that matches LEGEND.
map_is() {
	want_map "$2" > "$tmp/want_map"
	got_map > "$tmp/got_map"
	[ "$rc" = 0 ] && [ -s "$tmp/want_map" ] &&
		cmp -s "$tmp/want_map" "$tmp/got_map" && grep -q "$3" "$tmp/out"
	result_unless "$no_readv" "$1"
	cmp -s "$tmp/want_map" "$tmp/got_map" ||
		{ wc -c "$tmp/want_map" "$tmp/got_map"; cmp "$tmp/want_map" "$tmp/got_map"; } | diag
}

# The map without colour: a character per 128 bytes, the units in use.
run "$PMAPS" heap --color=never -w 100 "$pid"
map_is map_is_drawn_from_the_chunks 8 \
	"^legend: a character is a cell of 8 units of 16 bytes"
cp "$tmp/out" "$tmp/map8"

# --scale 64: a cell is 1 KiB, its level the eighths of it in use.
run "$PMAPS" heap --color=never -w 100 --scale 64 "$pid"
map_is map_scale_is_drawn_from_the_chunks 64 \
	"^legend: a character is a cell of 64 units of 16 bytes (1024 bytes): '.' none in use, 1-7 that many eighths of them, '#' all 64$"

# rows FILE CELLS: the rows of each heap in FILE, a map of CELLS cells a
# row, as "START-END ROWS" lines: as computed from the heap's size, and
# (rows_got) as drawn.
rows_want() {
	awk -v C="$2" '/^heap / {
		split(substr($2, 3), r, "-0x")
		n = hex(r[2]) - hex(r[1])
		print $2, int((n + C * 16 - 1) / (C * 16))
	}
	function hex(x,   i, v) {
		v = 0
		for (i = 1; i <= length(x); i++)
			v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}' "$1"
}
rows_got() {
	awk '/^heap / { if (h) print h, n; h = $2; n = 0; next }
		/^chunks served/ { exit }
		/^  [0-9a-f]+ / { n++ }
		END { if (h) print h, n }' "$1"
}
# -w 100: "  ", the address and " " (aw + 3), then characters by 16; aw
# is the width of --chunks' addresses.
aw=$(awk '/^  [0-9a-f]+ / { print length($1); exit }' "$tmp/chunks_dbg")
chars=$(( (100 - aw - 3) / 16 * 16 ))
rows_want "$tmp/chunks_dbg" $((chars * 8)) > "$tmp/want_rows8"
rows_want "$tmp/chunks_dbg" $((chars * 64)) > "$tmp/want_rows64"
rows_got "$tmp/map8" > "$tmp/got_rows8"
rows_got "$tmp/out" > "$tmp/got_rows64"
[ "$rc" = 0 ] && [ -s "$tmp/want_rows8" ] &&
	cmp -s "$tmp/want_rows8" "$tmp/got_rows8" &&
	cmp -s "$tmp/want_rows64" "$tmp/got_rows64" &&
	! cmp -s "$tmp/got_rows8" "$tmp/got_rows64"
result_unless "$no_readv" map_scale_divides_the_rows
diff "$tmp/want_rows64" "$tmp/got_rows64" | diag

run "$PMAPS" heap --color=always -w 100 "$pid"
[ "$rc" = 0 ] && grep -q "${esc}\[38;5;255m${esc}\[48;5;255m" "$tmp/out" &&
	grep -q "${esc}\[48;5;232m  ${esc}\[0m0 " "$tmp/out"
result_unless "$no_readv" map_in_grey_levels

# ---- --png ----

# png.py DIR PNG TEXT TAIL FONT: check PNG as a decoder would
# (png_decode.py, in DIR), and against TEXT, the map in colour
# at the same width and scale: a band of 12 pixel rows per line of TEXT,
# each line of text drawn with map_font.h's glyphs (d0d0d0 on black,
# pixel-exact), the legend's lead and its swatches of the nine greys
# followed by TAIL (what a cell is) instead of the terminal's, each row
# its address and then a column of 5 pixels per character, the first
# cell's 5x5 square of grey over the second's.  Prints the cells, a heap
# a line as want_map does ('.', 1-7, '#'), then "rows N" per heap.
cat > "$tmp/png.py" <<'PYEOF'
import re, sys
sys.dont_write_bytecode = True	# nothing written into the tree
sys.path.insert(0, sys.argv[1])
from png_decode import decode
png, text, tail, font_h = sys.argv[2:6]
w, h, plte, rows = decode(png)
rows = [bytes(plte[3 * i] for i in row) for row in rows]
for i in range(len(plte) // 3):
    assert plte[3 * i] == plte[3 * i + 1] == plte[3 * i + 2], "grey palette"
# the greys, by level: xterm's 232 + l * 23 / 8
greys = [8 + 10 * (l * 23 // 8) for l in range(9)]
TEXT, BLACK = 0xd0, 0
glyphs = [bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", m))
          for m in re.findall(r"\{([^{}]*)\}", open(font_h).read().split("= {", 1)[1])]
assert len(glyphs) == 95, len(glyphs)
def want_text(band, x0, s):
    """the text pixels of s from x0 on in band (12 rows of w), set"""
    for k, c in enumerate(s):
        x = x0 + 6 * k
        if x + 6 > w:
            break
        g = glyphs[ord(c) - 0x20] if 0x20 <= ord(c) <= 0x7e else glyphs[ord("?") - 0x20]
        for r in range(10):
            for b in range(6):
                band[1 + r][x + b] = TEXT if g[r] & (0x80 >> b) else BLACK
def check(line, band, what):
    got = [bytearray(rows[12 * line + y]) for y in range(12)]
    for y in range(12):
        if got[y] != band[y]:
            x = next(i for i in range(w) if got[y][i] != band[y][i])
            sys.exit("line %d (%s): pixel %d,%d is %02x, expected %02x"
                     % (line, what, x, y, got[y][x], band[y][x]))
lines = [re.sub("\x1b\\[[0-9;]*m", "", l.rstrip("\n")) for l in open(text, encoding="utf-8")]
raw_lines = open(text, encoding="utf-8").read().split("\n")
assert h == 12 * len(lines), "%d pixels tall for %d lines" % (h, len(lines))
maps, nrows = [], []
for n, l in enumerate(lines):
    band = [bytearray(w) for y in range(12)]
    m = re.match(r"^(  [0-9a-f]+) (\u2580+)$", l)
    if l.startswith("legend: "):
        lead = raw_lines[n].split("\x1b[", 1)[0]
        want_text(band, 0, lead)
        x = 6 * len(lead)
        for lv in range(9):
            for y in range(1, 11):
                band[y][x:x + 10] = bytes([greys[lv]]) * 10
            want_text(band, x + 12, str(lv))
            x += 24
        want_text(band, x, tail)
        check(n, band, "legend")
    elif m:
        label, cells = m.group(1), len(m.group(2))
        want_text(band, 0, label)
        x0 = 6 * (len(label) + 1)
        first = rows[12 * n + 3][x0 + 2:x0 + 5 * cells:5]
        second = rows[12 * n + 8][x0 + 2:x0 + 5 * cells:5]
        levels = []
        for i in range(cells):
            for y0, v in ((1, first[i]), (6, second[i])):
                if v == BLACK and y0 == 6 and i == cells - 1:
                    continue	# a last character of one cell
                assert v in greys, "line %d: cell %d is %02x, no grey" % (n, i, v)
                levels.append(greys.index(v))
                for y in range(y0, y0 + 5):
                    band[y][x0 + 5 * i:x0 + 5 * i + 5] = bytes([v]) * 5
        check(n, band, "row")
        maps[-1] += "".join("." if v == 0 else "#" if v == 8 else str(v) for v in levels)
        nrows[-1] += 1
    else:
        want_text(band, 0, l)
        check(n, band, "text")
        if l.startswith("heap "):
            maps.append("")
            nrows.append(0)
print("\n".join(maps))
for r in nrows:
    print("rows", r)
PYEOF

if command -v python3 > /dev/null; then
	run "$PMAPS" heap --png "$tmp/heap.png" -w 100 "$pid"
	[ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] &&
		"$PMAPS" heap --color=always -w 100 "$pid" > "$tmp/color" &&
		python3 "$tmp/png.py" "$here" "$tmp/heap.png" "$tmp/color" \
			"; a cell is a square of 5x5 pixels, 128 bytes" \
			"$top/userspace/map_font.h" > "$tmp/png_map" 2> "$tmp/err"
	result_unless "$no_readv" png_is_the_map_in_colour

	want_map 8 > "$tmp/want_map"
	grep -v '^rows ' "$tmp/png_map" > "$tmp/got_map"
	[ -s "$tmp/want_map" ] && cmp -s "$tmp/want_map" "$tmp/got_map"
	result_unless "$no_readv" png_cells_match_the_chunks
	cmp -s "$tmp/want_map" "$tmp/got_map" || { wc -c "$tmp/want_map" "$tmp/got_map"; cmp "$tmp/want_map" "$tmp/got_map"; } | diag

	# --scale 64: two cells of 1 KiB a character, the rows computed.
	run "$PMAPS" heap --png - -w 100 --scale 64 "$pid"
	mv "$tmp/out" "$tmp/heap64.png" && : > "$tmp/out"
	want_map 64 > "$tmp/want_map"
	rows_want "$tmp/chunks_dbg" $((chars * 2 * 64)) |
		awk '{ print "rows", $2 }' >> "$tmp/want_map"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
		"$PMAPS" heap --color=always -w 100 --scale 64 "$pid" > "$tmp/color" &&
		python3 "$tmp/png.py" "$here" "$tmp/heap64.png" "$tmp/color" \
			"; a cell is a square of 5x5 pixels, 1024 bytes" \
			"$top/userspace/map_font.h" > "$tmp/got_map" 2> "$tmp/err" &&
		cmp -s "$tmp/want_map" "$tmp/got_map" &&
		! cmp -s "$tmp/got_map" "$tmp/png_map"
	result_unless "$no_readv" png_scale_divides_the_rows
	cmp -s "$tmp/want_map" "$tmp/got_map" || diff "$tmp/want_map" "$tmp/got_map" | tail -5 | diag
else
	lacks python3 png_is_the_map_in_colour png_cells_match_the_chunks \
		png_scale_divides_the_rows
fi

run "$PMAPS" heap --png "$tmp/no/such/dir.png" "$pid"
if [ -n "$no_readv" ]; then
	skip png_unwritable_exit_1 "$no_readv"
else
	expect_text png_unwritable_exit_1 1 "" \
		"pmaps heap: $tmp/no/such/dir.png: cannot create a temporary file beside it: No such file or directory"
fi

if [ -n "$no_readv" ]; then
	skip png_full_disk "$no_readv"
elif [ -c /dev/full ]; then
	"$PMAPS" heap --png - "$pid" > /dev/full 2> "$tmp/err"
	rc=$?
	: > "$tmp/out"
	expect_text png_full_disk 1 "" \
		"pmaps heap: write error: No space left on device"
else
	skip png_full_disk "no /dev/full"
fi

# No PNG to a terminal (--png -): the message alone, exit 2 as for bad
# usage, as pmaps map refuses it; to a file it is written.
if have_tty png_not_to_terminal png_file_from_terminal; then
	on_tty "'$PMAPS' heap --png - '$pid'"
	rc=$?
	printf '%s\r\n' "pmaps heap: --png -: not writing a PNG image to a terminal; redirect standard output, or give a FILE" \
		"$usage_hint" > "$tmp/want"
	[ "$rc" = 2 ] && cmp -s "$tmp/out" "$tmp/want"
	result png_not_to_terminal

	on_tty "'$PMAPS' heap --png '$tmp/tty.png' '$pid'"
	rc=$?
	[ "$rc" = 0 ] && [ ! -s "$tmp/out" ] &&
		head -c 8 "$tmp/tty.png" | od -An -c | grep -q 'P   N   G'
	result_unless "$no_readv" png_file_from_terminal
fi

run "$PMAPS" heap --json "$pid"
if command -v python3 > /dev/null; then
	[ "$rc" = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "pmaps-heap/1" and d["glibc"]
n = sum(len(h["chunks"]) for a in d["arenas"] for h in a["heaps"])
want = sum(1 for l in open(sys.argv[2]) if l.startswith("  "))
assert n + len(d["mmapped"]) == want, (n, want)
assert len(d["arenas"]) == 3 and d["arenas"][0]["main"]
' "$tmp/out" "$tmp/chunks_dbg" 2> "$tmp/err"
	result_unless "$no_readv" json_holds_every_chunk
else
	lacks python3 json_holds_every_chunk
fi

# ---- tcaches of threads that share an arena ----
#
# tcache_target.c: three threads in one arena, each with chunks in its own
# tcache, and a decoy with a tcache's size and layout.  The tcaches are
# read from the threads' tcache pointers: every chunk is as the target
# says, no other chunk is in a tcache, and the summary's tcache bytes are
# theirs, to the byte.

if ${CC:-cc} -O2 -pthread -o "$tmp/tcache_target" "$here/tcache_target.c" \
	2> "$tmp/err"; then
	start tcache_target
	run "$PMAPS" heap --chunks "$pid"
	[ "$rc" = 0 ] && chunks_match &&
		[ "$(grep -c ' tcache$' "$tmp/out")" = \
		  "$(grep -c ' tcache$' "$tmp/layout")" ] &&
		! grep -q "^note: other threads' tcaches" "$tmp/out"
	result_unless "$no_readv" tcaches_of_other_threads
	grep '^note' "$tmp/out" | diag

	run "$PMAPS" heap --summary "$pid"
	tc=$(awk '$3 == "tcache" { n += $2 } END { print n }' "$tmp/layout")
	echo "# $tc bytes in the target's tcaches"
	[ "$rc" = 0 ] && awk -v tc="$tc" '
		/^main arena / { found = 1; ok = $11 == tc }
		END { exit !(found && ok) }' "$tmp/out"
	result_unless "$no_readv" tcache_bytes_of_other_threads
	grep '^main arena' "$tmp/out" | diag

	# Another tracer holds it: no thread pointer, and a note says the
	# tcaches were found by their size instead.
	if command -v strace > /dev/null; then
		strace -p "$pid" -o /dev/null 2> /dev/null &
		tracer=$!
		for i in $(seq 100); do
			awk '/^TracerPid:/ { exit $2 == 0 }' "/proc/$pid/status" &&
				break
			sleep 0.05
		done
		run "$PMAPS" heap --summary "$pid"
		kill "$tracer"
		wait "$tracer" 2> /dev/null
		[ "$rc" = 0 ] && grep -q "^note: other threads' tcaches were not read from the threads (their thread pointers are not known)" "$tmp/out"
		result_unless "$no_readv" tcaches_by_size_without_ptrace
	else
		lacks strace tcaches_by_size_without_ptrace
	fi
else
	diag "$tmp/err"
	not_ok tcaches_of_other_threads
	not_ok tcache_bytes_of_other_threads
	not_ok tcaches_by_size_without_ptrace
fi

# ---- what pmaps heap refuses ----

start heap_target corrupt
run "$PMAPS" heap --summary "$pid"
[ "$rc" = 3 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^pmaps heap: process $pid: chunk at 0x[0-9a-f]* in heap 0x[0-9a-f]*-0x[0-9a-f]*: size field 0x1239, expected a multiple of 16" "$tmp/err"
result_unless "$no_readv" corrupted_heap_refused

cat > "$tmp/jemalloc_target.c" << 'EOF'
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
	int i;

	for (i = 0; i < 100; i++)
		memset(malloc(100 + i), 1, 100);
	if (write(1, "ok\n", 3) != 3 || close(1))
		return 1;
	pause();
	return 0;
}
EOF
if ${CC:-cc} -O2 -o "$tmp/jemalloc_target" "$tmp/jemalloc_target.c" \
	-ljemalloc 2> "$tmp/err"; then
	start jemalloc_target
	run "$PMAPS" heap "$pid"
	[ "$rc" = 4 ] && [ ! -s "$tmp/out" ] &&
		grep -q "^pmaps heap: process $pid allocates with jemalloc (/.*libjemalloc.so.2), not glibc's malloc: " "$tmp/err"
	result other_allocator_refused
else
	lacks "libjemalloc-dev" other_allocator_refused
fi

# ---- a heap that changes all the time ----
#
# Two threads and main malloc and free without pause, in the main arena
# and two thread arenas, so that a read of a running process would meet
# heaps in the middle of a change.  pmaps heap stops the process while it
# reads: 20 reads in a row must all succeed.

cat > "$tmp/churn_target.c" << 'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *churn(void *arg)
{
	void *slot[64] = { 0 };
	unsigned int seed = (unsigned int)(unsigned long)arg;

	for (;;) {
		unsigned int i = (unsigned int)rand_r(&seed) % 64;

		free(slot[i]);
		slot[i] = malloc(16 + (unsigned int)rand_r(&seed) % 4000);
		if (slot[i])
			memset(slot[i], 1, 16);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	if (pthread_create(&t[0], NULL, churn, (void *)1UL) ||
	    pthread_create(&t[1], NULL, churn, (void *)2UL))
		return 1;
	printf("churning\n");
	fclose(stdout);
	churn((void *)3UL);
	return 0;
}
EOF
if ${CC:-cc} -O2 -pthread -o "$tmp/churn_target" "$tmp/churn_target.c" \
	2> "$tmp/err"; then
	start churn_target
	failures=0
	for i in $(seq 20); do
		"$PMAPS" heap --summary "$pid" > "$tmp/out" 2> "$tmp/err" || {
			failures=$((failures + 1))
			[ "$failures" = 1 ] && diag "$tmp/err"
		}
	done
	echo "# $failures of 20 reads of the churning process failed"
	[ "$failures" = 0 ] && alive "$pid"
	result_unless "$no_readv" churning_heap_read_whole
	kill -KILL "$pid"
else
	diag "$tmp/err"
	not_ok churning_heap_read_whole
fi

# ---- usage ----

run "$PMAPS" heap
expect_text no_pid 2 "" "pmaps heap: expected a PID
$usage_hint"
run "$PMAPS" heap --summary --png x.png 1
expect_text png_is_a_view 2 "" "pmaps heap: --summary and --png: expected at most one view
$usage_hint"
run "$PMAPS" heap --summary --json 1
expect_text two_views 2 "" "pmaps heap: --summary and --json: expected at most one view
$usage_hint"
run "$PMAPS" heap --scale 0 1
expect_text bad_scale 2 "" "pmaps heap: --scale: expected a number of 16-byte units from 1 to 1073741824, got '0'
$usage_hint"
run "$PMAPS" heap 1x
expect_text bad_pid 2 "" "pmaps heap: expected a PID, got '1x'
$usage_hint"
run "$PMAPS" heap 999999999
expect_text no_process 1 "" "pmaps heap: no process 999999999"
run "$PMAPS" heap --help
cp "$tmp/out" "$tmp/help"
run "$PMAPS" help heap
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/help" &&
	grep -q '^Usage: pmaps heap \[OPTION\]... PID$' "$tmp/out"
result help_heap

tap_done
