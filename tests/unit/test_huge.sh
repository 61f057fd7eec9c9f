#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps --summary, --pages and --json on THP and hugetlb pages (issue 15):
# a target holds a PMD-aligned 4 MiB MADV_HUGEPAGE region, written; 64
# small pages, every other one written; and a 4 MiB MAP_HUGETLB region
# with its first 2 MiB page written, for which the test adds 4 pages to
# /proc/sys/vm/nr_hugepages and restores it after; a PMD-aligned 2 MiB
# MADV_HUGEPAGE region only read (the huge zero page) and a small page
# only read (the zero page).  The Huge and PageSize columns and the folio
# kind column of --pages ("thp", "hugetlb", "small") must say what it
# touched, and --numa's THP column, the JSON's folio, the map and
# --address the same as smaps' AnonHugePages; a document saved to a file
# has none of it.  Needs root: the
# pagemap source, and the hugetlb pool.  (A reader without root is tested
# in test_hugepage.c, on the library: the pagemap source refuses it.)
# Prints TAP.  PMAPS names the binary, CC builds the target.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

pool=/proc/sys/vm/nr_hugepages
pool_old=
target_pid=
cleanup() {
	[ -n "$target_pid" ] && kill -KILL "$target_pid" 2>/dev/null
	[ -n "$pool_old" ] && echo "$pool_old" > "$pool"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

thp_tests="summary_thp_row pages_thp_marks json_thp numa_thp_is_anonhugepages
	json_folio_thp map_draws_thp address_names_thp"
huge_tests="summary_hugetlb_row pages_hugetlb_marks json_hugetlb"
other_tests="summary_small_row summary_total_row pages_small_no_marks
	file_document_has_no_huge address_names_zero_page
	address_names_huge_zero_page"

if [ "$(id -u)" != 0 ]; then
	for t in $thp_tests $huge_tests $other_tests; do
		skip "$t" "needs root for the pagemap source and the hugetlb pool"
	done
	tap_done
	exit
fi

cat > "$tmp/target.c" <<'EOF'
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB (1UL << 20)

int main(void)
{
	long ps = sysconf(_SC_PAGESIZE), i;
	char *raw, *thp, *small, *huge, *hz;
	volatile char sink;

	raw = mmap(NULL, 6 * MB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return 1;
	thp = (char *)(((uintptr_t)raw + 2 * MB - 1) & ~(uintptr_t)(2 * MB - 1));
	if (thp > raw)
		munmap(raw, (size_t)(thp - raw));
	munmap(thp + 4 * MB, (size_t)(raw + 6 * MB - (thp + 4 * MB)));
	madvise(thp, 4 * MB, MADV_HUGEPAGE);
	memset(thp, 1, 4 * MB);
	small = mmap(NULL, 64 * ps, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (small == MAP_FAILED || madvise(small, 64 * ps, MADV_NOHUGEPAGE))
		return 1;
	for (i = 0; i < 64; i += 2)
		small[i * ps] = 1;
	/* read only: page 1 maps the zero page */
	sink = small[ps];
	raw = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return 1;
	hz = (char *)(((uintptr_t)raw + 2 * MB - 1) & ~(uintptr_t)(2 * MB - 1));
	madvise(hz, 2 * MB, MADV_HUGEPAGE);
	/* read only: the huge zero page, where use_zero_page allows it */
	sink = hz[0];
	(void)sink;
	huge = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (huge == MAP_FAILED)
		huge = NULL;
	else
		huge[0] = 1;
	printf("%lx %lx %lx %ld %lx\n", (unsigned long)thp,
	       (unsigned long)small, (unsigned long)huge, ps,
	       (unsigned long)hz);
	fflush(stdout);
	pause();
	return 0;
}
EOF

# 4 more default-size hugetlb pages, if the default is 2 MiB
huge_why=
if [ "$(sed -n 's/^Hugepagesize: *\([0-9]*\) kB/\1/p' /proc/meminfo)" != 2048 ]; then
	huge_why="the default hugetlb page size is not 2 MiB"
elif ! pool_old=$(cat "$pool" 2> /dev/null); then
	huge_why="$pool: not readable"
	pool_old=
else
	echo $((pool_old + 4)) > "$pool" 2> /dev/null
	[ "$(cat "$pool")" -ge $((pool_old + 4)) ] ||
		huge_why="$pool: the kernel could not reserve 4 more 2 MiB pages"
fi

if ! spawn_target huge_target 600 0.05; then
	diag "$tmp/err"
	for t in $thp_tests $huge_tests $other_tests; do not_ok "$t"; done
	tap_done
	exit
fi
read -r thp small huge psize hz < "$tmp/layout"
kib=$((psize / 1024))
[ -z "$huge_why" ] && [ "$huge" = 0 ] && huge_why="MAP_HUGETLB failed"

thp_why=
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null; then
	thp_why="transparent_hugepage/enabled says never"
else
	# what the kernel gave: it may lack a free 2 MiB block
	got=$(awk -v a="$thp-" 'index($1, a) == 1 { in_vma = 1; next }
		/^[0-9a-f]+-/ { in_vma = 0 }
		in_vma && $1 == "AnonHugePages:" { print $2 }' \
		"/proc/$target_pid/smaps")
	[ "$got" = 4096 ] ||
		thp_why="the kernel gave ${got:-no} kB of THP of 4096 (smaps AnonHugePages)"
fi

# row ADDR: the --summary row of the VMA at ADDR, fields Huge and PageSize
row() {
	awk -v a="$1-" 'index($1, a) == 1 { print $15, $16 }' "$tmp/summary"
}

end_of() {
	printf '%x' $((0x$1 + $2))
}

run "$PMAPS" --source=pagemap --summary "$target_pid"
cp "$tmp/out" "$tmp/summary"
summary_rc=$rc

# --pages of [ADDR, ADDR + LEN): page lines, and those whose folio kind
# (the fifth field: ADDRESS INDEX FLAGS MAPCOUNT KIND) is KIND
pages() {
	run "$PMAPS" --source=pagemap --pages --range "$1,$(end_of "$1" "$2")" \
		"$target_pid"
	lines=$(grep -c '^  [0-9a-f]* ' "$tmp/out")
	marked=$(awk -v k="$3" '/^  [0-9a-f]+ / && $5 == k' "$tmp/out" |
		wc -l)
}

if [ -n "$thp_why" ]; then
	for t in $thp_tests; do skip "$t" "$thp_why"; done
else
	[ "$summary_rc" = 0 ] && [ "$(row "$thp")" = "4096 $kib" ]
	result summary_thp_row

	pages "$thp" $((4 << 20)) thp
	[ "$rc" = 0 ] && [ "$lines" = $((4 * 1024 / kib)) ] &&
		[ "$marked" = "$lines" ]
	result pages_thp_marks

	run "$PMAPS" --source=pagemap --json "$target_pid"
	grep -q "\"start\":\"0x$thp\",.*\"page_size\":$psize,\"huge\":$((4 * 1024 / kib)),\"pss\":" "$tmp/out"
	result json_thp

	# --numa: THP (by KB) and Huge both what smaps calls AnonHugePages;
	# Address Mode Kbytes, 9 counts, Pss Uss, Huge PageSize THP mTHP
	run "$PMAPS" --source=pagemap --numa --summary "$target_pid"
	[ "$rc" = 0 ] &&
		[ "$(awk -v a="$thp-" 'index($1, a) == 1 { print $15, $17, $18 }' "$tmp/out")" = "$got $got 0" ]
	result numa_thp_is_anonhugepages

	# every range of the VMA is in thp folios, and its huge pages are
	# AnonHugePages
	run "$PMAPS" --source=pagemap --numa --json "$target_pid"
	vma=$(awk -v s="\"start\":\"0x$thp\"" 'index($0, s) { on = 1 }
		on { print } on && /\]\}/ { exit }' "$tmp/out")
	[ "$rc" = 0 ] &&
		echo "$vma" | grep -q "\"huge\":$((got / kib))," &&
		[ "$(echo "$vma" | grep -o '"folio":[^,}]*' | sort -u)" = '"folio":"thp"' ]
	result json_folio_thp

	# the map draws each of its cells H (thp), as root from kpageflags
	run "$PMAPS" map --source=pagemap --color=never --width 80 "$target_pid"
	[ "$rc" = 0 ] &&
		[ "$(awk -v h="$thp-" 'index($0, h) == 1 { on = 1; next }
			on && /^  / { printf "%s", $2; next } { on = 0 }' "$tmp/out" |
			fold -w 1 | sort -u | tr -d '\n')" = H ]
	result map_draws_thp

	run "$PMAPS" --source=pagemap --address "0x$thp" "$target_pid"
	[ "$rc" = 0 ] && grep -q '^  folio kind  thp (' "$tmp/out"
	result address_names_thp
fi

if [ -n "$huge_why" ]; then
	for t in $huge_tests; do skip "$t" "$huge_why"; done
else
	[ "$summary_rc" = 0 ] && [ "$(row "$huge")" = "2048 2048" ]
	result summary_hugetlb_row

	# only the written page of the two is in memory
	pages "$huge" $((4 << 20)) hugetlb
	[ "$rc" = 0 ] && [ "$lines" = $((2 * 1024 / kib)) ] &&
		[ "$marked" = "$lines" ]
	result pages_hugetlb_marks

	run "$PMAPS" --source=pagemap --json "$target_pid"
	grep -q "\"start\":\"0x$huge\",.*\"page_size\":2097152,\"huge\":$((2 * 1024 / kib)),\"pss\":" "$tmp/out"
	result json_hugetlb
fi

rc=$summary_rc
cp "$tmp/summary" "$tmp/out"
[ "$rc" = 0 ] && [ "$(row "$small")" = "0 $kib" ]
result summary_small_row

# the total is the sum of the rows; PageSize has none
want=$(awk '$1 ~ /^[0-9a-f]+-[0-9a-f]+$/ { s += $15 } END { print s " -" }' "$tmp/summary")
[ "$rc" = 0 ] &&
	[ "$(awk '$1 == "total" { print $15, $16 }' "$tmp/summary")" = "$want" ]
result summary_total_row

# 32 written pages, each small; the page read maps the zero page
pages "$small" $((64 * psize)) small
[ "$rc" = 0 ] && [ "$lines" = 33 ] && [ "$marked" = 32 ] &&
	grep -q '^  [0-9a-f]* *[0-9]*  present (not listed) zero-page' "$tmp/out"
result pages_small_no_marks

run "$PMAPS" --source=pagemap --address "0x$(end_of "$small" "$psize")" \
	"$target_pid"
[ "$rc" = 0 ] && grep -qx '  flags       none: the zero page, not listed' "$tmp/out" &&
	grep -qx '  folio kind  zero page' "$tmp/out"
result address_names_zero_page

if [ "$(cat /sys/kernel/mm/transparent_hugepage/use_zero_page 2> /dev/null)" != 1 ] ||
   [ -n "$thp_why" ]; then
	skip address_names_huge_zero_page "no huge zero page (use_zero_page, or ${thp_why:-THP})"
else
	run "$PMAPS" --source=pagemap --address "0x$hz" "$target_pid"
	[ "$rc" = 0 ] && grep -qx '  flags       none: the huge zero page, not listed' "$tmp/out" &&
		grep -qx '  folio kind  huge zero page' "$tmp/out"
	result address_names_huge_zero_page
fi

# Saved as text, the huge pages are gone: '-' and no marks.
"$PMAPS" --source=pagemap --raw "$target_pid" > "$tmp/saved.txt" &&
	run "$PMAPS" --summary -f "$tmp/saved.txt" &&
	cp "$tmp/out" "$tmp/summary" &&
	[ "$(row "$thp")" = "- -" ] &&
	run "$PMAPS" --pages -f "$tmp/saved.txt" &&
	! grep -q ' thp\| hugetlb\| small' "$tmp/out"
result file_document_has_no_huge

tap_done
