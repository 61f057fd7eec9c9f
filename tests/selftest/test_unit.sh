#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The host unit suites (tests/unit) catch what they claim to: each case
# breaks a private copy of the tree, runs the piece that should notice and
# is ok only when that piece fails as it should; the unbroken copy passes
# the same piece first, so a piece that fails anyway proves nothing.  One
# copy, built once; each breakage is undone before the next.  Needs what
# tests/unit needs for these pieces: root, tmux, file(1), a 2 MiB hugetlb
# pool.  Prints TAP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

base=$work/tree
unit=$base/tests/unit
build=$base/build/unit
pmaps=$build/userspace/pmaps

# No piece may hang this self-test either: each runs with a bound.
piece() {
	timeout -k 10 600 "$@"
}

# sh_test NAME LOG: tests/unit/test_NAME.sh of the copy, its TAP in LOG
sh_test() {
	PMAPS=$pmaps CC="${CC:-cc}" piece sh "$unit/test_$1.sh" > "$2" 2>&1
}

# breaks FILE EXPR: st_sed on the copy, FILE kept to be restored by
# unbreak, which leaves it newer than its objects, so make rebuilds them.
breaks() {
	rm -f "$work"/*.log	# no log of an earlier run may answer for this one
	cp "$base/$1" "$work/orig" && st_sed "$base" "$1" "$2"
}

unbreak() {
	cp "$work/orig" "$base/$1" && touch "$base/$1"
}

# rebuild: the plain tests and pmaps of the copy
rebuild() {
	make -s -C "$unit" all > "$work/build.log" 2>&1 ||
		{ echo "# make failed:"; sed 's/^/#   /' "$work/build.log"; }
}

st_copy "$base" || { echo "Bail out! cannot copy the tree"; exit 1; }
rebuild

# ---- 1: a result sees every check of its test (top_help) ----

sh_test top "$work/top.log"
caught top_help_passes_unbroken "$work/top.log" '^ok [0-9]+ top_help$'
# an impossible check on the help screen, before the 'q' back to the list
breaks tests/unit/test_top.sh \
	"s/wait_for \"q, Esc\" && grep -q '^Keys:'/wait_for \"q, Esc\" \\&\\& grep -q '^No such line:'/" &&
	sh_test top "$work/top.log"
caught top_help_sees_help_screen_checks "$work/top.log" '^not ok [0-9]+ top_help$'
unbreak tests/unit/test_top.sh

# ---- 2: test_pagemap's no_pages and hugetlb tests can fail ----

overcommit=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages
before=$(cat "$overcommit" 2> /dev/null)
piece "$build/test_pagemap" > "$work/pagemap.log" 2>&1
caught pagemap_no_pages_passes_unbroken "$work/pagemap.log" \
	'^ok [0-9]+ test_special_vmas_no_pages$'
# not skipped: the test reserves its own huge page
caught pagemap_hugetlb_runs_unbroken "$work/pagemap.log" \
	'^ok [0-9]+ test_hugetlb_ranges$'
after=$(cat "$overcommit" 2> /dev/null)
echo "# nr_overcommit_hugepages before: $before, after: $after" > "$work/limit"
[ "$before" = "$after" ] && echo "limit restored" >> "$work/limit"
caught pagemap_hugetlb_limit_restored "$work/limit" '^limit restored$'

# the library no longer sees VmFlags pf or io
breaks userspace/lib/pagemap.c \
	's/if (i - w == 2 && (!memcmp(s + w, "pf", 2) ||/if (i - w == 3 \&\& (!memcmp(s + w, "pf", 2) ||/' &&
	rebuild && piece "$build/test_pagemap" > "$work/pagemap.log" 2>&1
caught pagemap_no_pages_catches_vmflags "$work/pagemap.log" \
	'^not ok [0-9]+ test_special_vmas_no_pages$'
unbreak userspace/lib/pagemap.c

# PAGEMAP_SCAN's present regions are no longer read
breaks userspace/lib/pagemap.c \
	's/if (g->categories \& PAGE_IS_PRESENT) {/if (g->categories \& PAGE_IS_WPALLOWED \&\& 0) {/' &&
	rebuild && piece "$build/test_pagemap" > "$work/pagemap.log" 2>&1
caught pagemap_hugetlb_catches_lost_pages "$work/pagemap.log" \
	'^not ok [0-9]+ test_hugetlb_ranges$'
unbreak userspace/lib/pagemap.c

# without PAGEMAP_SCAN, the pagemap of hugetlb-only VMAs is no longer read
breaks userspace/lib/pagemap.c \
	's/(!s.vma\[i\].rss_kb \&\& !s.vma\[i\].hugetlb_kb)/(!s.vma[i].rss_kb)/' &&
	rebuild && piece "$build/test_pagemap" > "$work/pagemap.log" 2>&1
caught pagemap_read_path_catches_lost_pages "$work/pagemap.log" \
	'^not ok [0-9]+ test_scan_matches_read$'
unbreak userspace/lib/pagemap.c

# each reader after the first skips its first span
breaks userspace/lib/pagemap.c 's/\t\tr\[k\].first = s;/\t\tr[k].first = s + !!k;/' &&
	rebuild && piece "$build/test_readers" > "$work/readers.log" 2>&1
caught readers_catch_a_lost_span "$work/readers.log" \
	'^not ok [0-9]+ test_readers_join$'
unbreak userspace/lib/pagemap.c
rebuild

# ---- 3: a sanitizer report fails a test that expects exit 1 ----

asan_core() {
	piece make -s -C "$unit" asan TESTS= SCRIPTS="$unit/test_core.sh" \
		> "$work/asan.log" 2>&1
}
asan_core
caught asan_write_error_passes_unbroken "$work/asan.log" \
	'^ok [0-9]+ full_disk_exit_1$'
# a heap overflow on the path of the write error, which exits 1
breaks userspace/core.c \
	's/fprintf(stderr, "pmaps core: write error: %s\\n",/{ char *volatile st_p = malloc(1); st_p[1] = 0; free(st_p); } &/' &&
	asan_core
caught asan_report_fails_exit_1_test "$work/asan.log" \
	'^not ok [0-9]+ full_disk_exit_1$'
caught asan_report_exits_97 "$work/asan.log" '^# exit status 97;'
unbreak userspace/core.c

# ---- 4: the golden files are compared unless PMAPS_UPDATE_GOLDEN=1 ----

piece "$build/test_view" > "$work/view.log" 2>&1
caught golden_passes_unbroken "$work/view.log" \
	'^ok 1 default view matches golden files$'
breaks tests/unit/golden/demo-6.1.default '1s/^/broken /' &&
	PMAPS_UPDATE_GOLDEN=0 piece "$build/test_view" > "$work/view.log" 2>&1
caught golden_update_0_compares "$work/view.log" \
	'^not ok 1 default view matches golden files$'
PMAPS_UPDATE_GOLDEN=1 piece make -s -C "$unit" run \
	TESTS="$build/test_view" SCRIPTS= > "$work/view.log" 2>&1
caught golden_make_run_compares "$work/view.log" \
	'^not ok 1 default view matches golden files$'
PMAPS_UPDATE_GOLDEN=1 piece "$build/test_view" > "$work/view.log" 2>&1
echo "# exit status $?" >> "$work/view.log"
caught golden_update_bails_out "$work/view.log" '^Bail out! '
caught golden_update_exits_3 "$work/view.log" '^# exit status 3$'
if grep -q '^ok .*golden' "$work/view.log"; then
	grep '^ok .*golden' "$work/view.log" > "$work/nook"
else
	echo "no golden test ok" > "$work/nook"
fi
caught golden_update_reports_no_ok "$work/nook" '^no golden test ok$'
unbreak tests/unit/golden/demo-6.1.default

# ---- 5: test_wss is exact after a known sweep ----

sh_test wss "$work/wss.log"
caught wss_exact_passes_unbroken "$work/wss.log" \
	'^ok [0-9]+ estimate_is_working_set$'
# one page of the working set never read
breaks tests/unit/test_wss.sh \
	's/for (off = 0; off < WORKING; off += ps)/for (off = ps; off < WORKING; off += ps)/' &&
	sh_test wss "$work/wss.log"
caught wss_catches_one_page_short "$work/wss.log" \
	'^not ok [0-9]+ estimate_is_working_set$'
unbreak tests/unit/test_wss.sh

# ---- 6: spawn_target fails when the target writes no layout ----

breaks tests/unit/test_wss.sh 's/	memset(p, 1, MAPPED);/	return 7;/' &&
	sh_test wss "$work/wss.log"
caught spawn_target_reports_exit "$work/wss.log" \
	'^# wss-target exited \(status 7\) before writing its layout$'
caught spawn_target_exit_fails_tests "$work/wss.log" \
	'^not ok [0-9]+ estimate_is_working_set$'
unbreak tests/unit/test_wss.sh
# alive but silent: the bounded wait (30 s) ends, the target is killed
breaks tests/unit/test_wss.sh 's/	printf("%lx %lx %lu\\n"/	if (0) printf("%lx %lx %lu\\n"/' &&
	sh_test wss "$work/wss.log"
caught spawn_target_reports_no_layout "$work/wss.log" \
	'^# wss-target wrote no layout in [0-9]+ polls'
caught spawn_target_silence_fails_tests "$work/wss.log" \
	'^not ok [0-9]+ estimate_is_working_set$'
unbreak tests/unit/test_wss.sh

# ---- 7: a set-up failure is no skip ----

sh_test map "$work/map.log"
caught png_file_passes_unbroken "$work/map.log" '^ok [0-9]+ png_file_recognises$'
# pmaps writes its PNG somewhere else: the test has none to look at
breaks tests/unit/test_map.sh \
	's|--png "$tmp/basic.png" -f good-basic.txt|--png "$tmp/elsewhere.png" -f good-basic.txt|' &&
	sh_test map "$work/map.log"
caught png_file_missing_fails "$work/map.log" '^not ok [0-9]+ png_file_recognises$'
unbreak tests/unit/test_map.sh

# ---- 8: under make check a missing tool is a fault of the set-up ----

# the test looks for a python3 no machine has
breaks tests/unit/test_core.sh \
	's/command -v python3 >/command -v python3-not-installed >/' && {
	PMAPS_CHECK=1 sh_test core "$work/core-check.log"
	PMAPS_CHECK= sh_test core "$work/core-elsewhere.log"
}
caught missing_tool_fails_under_make_check "$work/core-check.log" \
	'^not ok [0-9]+ good_json_parses$'
caught missing_tool_skips_elsewhere "$work/core-elsewhere.log" \
	'^ok [0-9]+ good_json_parses # SKIP no python3$'
unbreak tests/unit/test_core.sh

tap_done
