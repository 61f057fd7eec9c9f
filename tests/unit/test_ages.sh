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

tap_done
