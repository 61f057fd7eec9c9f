#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A document saved on a kernel of another page size, read on this host
# (issue 33): every view shows the sizes and addresses of the kernel it
# came from, and a document whose text fits more than one page size is
# refused unless --page-size says which.
#
# fixtures/arm64-16k holds real output of a 16 KiB-page arm64 kernel:
# demo.txt is /proc/pmaps_ext/PID and demo-numa.txt
# /proc/pmaps_ext/numa/PID of the demo process, as
# QEMU_NUMA=1 tests/qemu/run.sh --mode demo <the 7.3.4+deb13-arm64-16k
# spec of tests/kernels.sh arm64> printed them (two NUMA nodes); the
# guest-*.txt files are what pmaps itself printed in that guest for the
# same process, read live with the guest's 16 KiB pages: pmaps PID,
# pmaps --summary PID, pmaps --numa --summary PID and pmaps map --numa
# --by node --areas anon PID.  They are the oracle: this host reads the
# saved texts and must print the same (but the first line, which names
# the target, and the columns only a live process has).  Prints TAP.
# PMAPS names the binary (default: built with make -C userspace).
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

d=$fix/arm64-16k
text=$d/demo.txt
numa=$d/demo-numa.txt

# ok_run CMD...: run it; true if it exits 0 with nothing on stderr.
ok_run() {
	run "$@"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ]
}

# same_but_first GUEST: $tmp/out, without its first line (the target),
# is the guest's output without its own.
same_but_first() {
	sed 1d "$tmp/out" > "$tmp/got"
	sed 1d "$1" > "$tmp/want"
	cmp -s "$tmp/want" "$tmp/got" || {
		diff "$tmp/want" "$tmp/got" | head -20 | diag
		return 1
	}
}

# no_live_columns: --summary columns Huge and PageSize (the 15th and
# 16th fields of each row but the header's) are read from a live
# process, "-" for a file, the guest's page size there: dropped from both.
no_live_columns() {
	awk '{ $15 = ""; $16 = ""; print }' "$1"
}

# same_summary GUEST: --summary's $tmp/out is GUEST but for the first
# line and the live-only columns
same_summary() {
	no_live_columns "$tmp/out" | sed 1d > "$tmp/got" &&
		no_live_columns "$1" | sed 1d > "$tmp/want" &&
		cmp -s "$tmp/want" "$tmp/got"
}

[ "$(getconf PAGESIZE)" = 16384 ] &&
	echo "# this host has 16 KiB pages: the tests below show less here"

# ---- the plain text: sizes and addresses as the 16K kernel had them ----

ok_run "$PMAPS" --color=never -f "$text" && same_but_first "$d/guest-default.txt"
result default_view_as_on_the_16k_guest

ok_run "$PMAPS" --summary -f "$text" &&
	same_summary "$d/guest-summary.txt"
result summary_as_on_the_16k_guest

# the guest's total: RSS 1712 KiB, 107 pages of 16 KiB; PSS 1397 KiB
ok_run "$PMAPS" -f "$text" &&
	tail -n 1 "$tmp/out" | grep -q 'resident 1.7M (107 pages) .* pss 1.4M  uss 1.1M$' &&
	ok_run "$PMAPS" --summary -f "$text" &&
	grep -q '^total KiB  *3424  *1712 .* 1397  *1088 ' "$tmp/out"
result totals_count_16k_pages

# --pages: one line per 16 KiB page, at index * 16384 in anon memory and
# from the file offset in a file mapping
ok_run "$PMAPS" --pages --areas demo.data,stack -f "$text" &&
	grep -q '^  7fff94004000            5  YRAU_D_   1$' "$tmp/out" &&
	grep -q '^  7fff9401c000           11  YRAU_D_   1$' "$tmp/out" &&
	[ "$(grep -c '^  7fff940[01]' "$tmp/out")" = 8 ] &&
	grep -q '^  \.\.\. 8 not present \.\.\.$' "$tmp/out" &&
	grep -q '^  7fffee2f8000   8589916350  YRAUP__   1$' "$tmp/out"
result pages_view_16k_addresses

ok_run "$PMAPS" --address 7fffee2fbfff -f "$text" &&
	grep -q '^page 0x7fffee2fbfff$' "$tmp/out" &&
	grep -q '^  address     0x7fffee2f8000$' "$tmp/out" &&
	grep -q '^  index       8589916350$' "$tmp/out"
result address_view_16k_page

# --range clips in pages of 16 KiB: 0x7fff940a8000 is inside the second
# page of the range at 7fff940a4000
ok_run "$PMAPS" --range 7fff940a9000,7fff940b0000 -f "$text" &&
	grep -q '^  7fff940a8000-7fff940b0000   32.0K YRAUP__   1$' "$tmp/out"
result range_filter_clips_16k_pages

# ---- the NUMA text ----

ok_run "$PMAPS" --summary -f "$numa" &&
	same_summary "$d/guest-numa-summary.txt"
result numa_summary_as_on_the_16k_guest

# KB 16 is a one-page folio of 16 KiB: small, not an mTHP of 4 KiB pages
ok_run "$PMAPS" --summary -f "$numa" &&
	grep -q '^total KiB .* 0  *0  *640  *1072 *$' "$tmp/out"
result numa_kb_16_is_no_mthp

ok_run "$PMAPS" map --color=never --by node --areas anon -f "$numa" &&
	same_but_first "$d/guest-map-node.txt"
result map_as_on_the_16k_guest

ok_run "$PMAPS" map --color=never --areas stack -f "$text" &&
	grep -q '^7fffee2d8000-7fffee2fc000 rw-p \[stack\]  9 pages$' "$tmp/out"
result map_counts_16k_pages

# watch replays a saved file: its segments count 16 KiB pages
ok_run "$PMAPS" watch -n 1 --color=never -f "$text" &&
	grep -q '^total pages: resident 107 ' "$tmp/out" &&
	grep -q '^\.   7fff940a4000-7fff940b4000        4 YRAUP__    1$' "$tmp/out" &&
	grep -q '^\.   7fffee2f8000-7fffee2fc000        1 YRAUP__    1$' "$tmp/out"
result watch_counts_16k_pages

# ---- JSON: pmaps writes the page size, and reads it back ----

ok_run "$PMAPS" --json -f "$text" && cp "$tmp/out" "$tmp/demo.json" &&
	grep -q '"source":"file","page_size":16384,' "$tmp/demo.json" &&
	grep -q '"address":"0x7fffee2f8000"' "$tmp/demo.json"
result json_says_page_size_16384

ok_run "$PMAPS" --color=never -f "$tmp/demo.json" &&
	same_but_first "$d/guest-default.txt"
result json_read_back_as_on_the_16k_guest

# an older pmaps wrote no "page_size": the addresses tell it
sed 's/"page_size":16384,//' "$tmp/demo.json" > "$tmp/old.json"
ok_run "$PMAPS" --color=never -f "$tmp/old.json" &&
	same_but_first "$d/guest-default.txt"
result json_without_page_size_told_by_addresses

# a "page_size" the ranges do not fit is refused: before them, at the
# first range it places elsewhere; after them, at itself
sed 's/"page_size":16384,/"page_size":4096,/' "$tmp/demo.json" > "$tmp/bad.json"
run "$PMAPS" -f "$tmp/bad.json"
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	[ "$(cat "$tmp/err")" = "$tmp/bad.json:5: expected address 0x401000 for index 1, got 0x404000" ]
result json_wrong_page_size_refused

# (the target ends the line before the last: ranges, VMA, VMAs, target)
sed 's/"page_size":16384,//; $!s/\]}\]}$/]}],"page_size":65536}/' \
	"$tmp/demo.json" > "$tmp/late.json"
run "$PMAPS" -f "$tmp/late.json"
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^$tmp/late.json:[0-9]*: expected page_size 16384, as the ranges have it, got '65536}'$" "$tmp/err"
result json_late_wrong_page_size_refused

# ---- ambiguous documents: refused, or read with --page-size ----

# one file VMA of 64 KiB with one range at file page 0: pages of 4 KiB
# to 64 KiB all fit it
printf '%s\n%s\n' \
	'00400000-00410000 r--p 00000000 08:01 7                                  /bin/x' \
	"0${tab:=$(printf '\t')}1${tab}YRAU___${tab}1" > "$tmp/ambiguous.txt"
run "$PMAPS" -f "$tmp/ambiguous.txt"
expect_text ambiguous_text_refused 2 "" \
	"$tmp/ambiguous.txt:2: expected range lines that tell the page size, got ones that fit pages of 4096, 8192, 16384, 32768 or 65536 bytes alike (give --page-size)"

ok_run "$PMAPS" --page-size 16K -f "$tmp/ambiguous.txt" &&
	grep -q '^  00400000-00404000   16.0K YRAU___   1$' "$tmp/out" &&
	ok_run "$PMAPS" --page-size 4096 -f "$tmp/ambiguous.txt" &&
	grep -q '^  00400000-00401000    4.0K YRAU___   1$' "$tmp/out"
result ambiguous_text_read_with_page_size

ok_run "$PMAPS" --json --page-size 65536 -f "$tmp/ambiguous.txt" &&
	cp "$tmp/out" "$tmp/ambiguous.json" &&
	grep -q '"page_size":65536,' "$tmp/ambiguous.json" &&
	ok_run "$PMAPS" -f "$tmp/ambiguous.json" &&
	grep -q '^  00400000-00410000   64.0K YRAU___   1$' "$tmp/out"
result json_page_size_tells_what_text_did_not

sed 's/"page_size":65536,//' "$tmp/ambiguous.json" > "$tmp/ambiguous-old.json"
run "$PMAPS" -f "$tmp/ambiguous-old.json"
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^$tmp/ambiguous-old.json:4: expected a target \"page_size\" or ranges that tell it, got ranges that fit pages of 4096, 8192, 16384, 32768 or 65536 bytes alike (give --page-size)$" "$tmp/err"
result ambiguous_json_refused

# KB narrows: a 16 KiB folio is no whole number of 32 or 64 KiB pages
printf '%s\n%s\n' \
	'00400000-00410000 r--p 00000000 08:01 7                                  /bin/x' \
	"0${tab}1${tab}YRAU___${tab}1${tab}0${tab}16" > "$tmp/kb.txt"
run "$PMAPS" -f "$tmp/kb.txt"
[ "$rc" = 2 ] && grep -q 'fit pages of 4096, 8192 or 16384 bytes alike' "$tmp/err"
result numa_kb_narrows_page_sizes

# a document of one page size read with another is refused where it is
# wrong, as any malformed document is
run "$PMAPS" --page-size 4096 -f "$text"
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^$text:28: expected range inside 00598000-005a0000, got '00472000-00473000'$" "$tmp/err"
result wrong_page_size_option_refused

# VMAs not on 16 KiB boundaries cannot be of a 16 KiB kernel
run "$PMAPS" --page-size 16384 -f "$fix/good-basic.txt"
[ "$rc" = 2 ] && grep -q "^$fix/good-basic.txt:[0-9]*: expected START, END and OFFSET multiples of the page size, 16384, got " "$tmp/err"
result unaligned_vma_refused_with_page_size

# a document without ranges shows nothing that depends on it
printf '%s\n' '00400000-00410000 r--p 00000000 08:01 7                                  /bin/x' > "$tmp/maps.txt"
run "$PMAPS" --summary -f "$tmp/maps.txt"
[ "$rc" = 0 ] && grep -q '^total KiB  *64  *0 ' "$tmp/out"
result no_ranges_no_page_size_needed

for bad in 0 1000 4095 12288 12K 128K 131072 4K9 -4096 ''; do
	run "$PMAPS" --page-size "$bad" -f "$text"
	expect_text "page_size_option_refuses_'$bad'" 2 "" \
		"pmaps: --page-size: expected a power of two from 4096 to 65536 bytes (or 4K to 64K), got '$bad'
Try 'pmaps --help' for more information."
done

# diff: two snapshots of one page size compare; of two, refused
ok_run "$PMAPS" diff "$text" "$tmp/demo.json"
result diff_16k_text_and_json_same

run "$PMAPS" diff "$tmp/ambiguous.txt" "$tmp/ambiguous.txt"
[ "$rc" = 2 ] && grep -q "^pmaps diff: $tmp/ambiguous.txt:2: expected range lines that tell the page size" "$tmp/err" &&
	ok_run "$PMAPS" diff --page-size 16K "$tmp/ambiguous.txt" "$tmp/ambiguous.txt"
result diff_ambiguous_needs_page_size

"$PMAPS" --json --page-size 4K -f "$tmp/ambiguous.txt" > "$tmp/a4.json"
run "$PMAPS" diff "$text" "$tmp/a4.json"
[ "$rc" = 2 ] && grep -q "^pmaps diff: $tmp/a4.json: expected pages of 16384 bytes as in $text, got pages of 4096 bytes$" "$tmp/err"
result diff_of_two_page_sizes_refused

tap_done
