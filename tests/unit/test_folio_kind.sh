#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One word, one meaning (issue 27): every view names the folio of a page
# as pmaps_folio_kind() does (pmaps.1, "Folio kinds").  folio-kinds.txt
# has five 512-page VMAs whose KB is 4, 64, 1024 (a 1 MiB page-cache
# folio of a file), 2048 and '?'.  With 4 KiB pages thp is 2048 KiB only;
# 64 and 1024 are mTHP, in the map's state view and --by size, the
# --summary columns, the --pages kind column, --address and --json.
# (16 KiB pages: the views take the host's page size; test_parse.c checks
# the classification for them.)  Prints TAP.  PMAPS names the binary.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

tests="map_state map_by_size summary_columns pages_column address_kind
	json_folio"
if [ "$(getconf PAGESIZE)" != 4096 ]; then
	for t in $tests; do skip "$t" "the fixture assumes 4 KiB pages"; done
	tap_done
	exit
fi
doc=$fix/folio-kinds.txt
# the VMAs by start, and what each view must call their pages
starts="7f0000000000 7f0000200000 7f0000400000 7f0000600000 7f0000800000"
set -- small mTHP mTHP thp 'folio?'

# the letters of the rows of the VMA at $1 in the last run, one line
letters() {
	awk -v h="$1-" 'index($0, h) == 1 { on = 1; next }
		on && /^  / { printf "%s", $2; next } { on = 0 }' "$tmp/out" |
		fold -w 1 | sort -u | tr -d '\n'
}

# kind WORD: the map's state letter, its --by size letter, the --summary
# THP and mTHP of a 2048 KiB VMA of it, as "STATE SIZE THP MTHP"
want_of() {
	case $1 in
	small) echo "C S 0 0" ;;
	mTHP) echo "T M 0 2048" ;;
	thp) echo "H H 2048 0" ;;
	*) echo "C ? - -" ;;
	esac
}

run "$PMAPS" map --color=never --width 80 -f "$doc"
bad=
i=0
for s in $starts; do
	i=$((i + 1))
	eval "k=\${$i}"
	w=$(want_of "$k")
	[ "$(letters "$s")" = "${w%% *}" ] || bad="$bad $s:$(letters "$s")"
done
[ "$rc" = 0 ] && [ -z "$bad" ]
result map_state
[ -n "$bad" ] && echo "# state letters:$bad"

run "$PMAPS" map --by size --color=never --width 80 -f "$doc"
bad=
i=0
for s in $starts; do
	i=$((i + 1))
	eval "k=\${$i}"
	w=$(want_of "$k" | cut -d' ' -f2)
	[ "$(letters "$s")" = "$w" ] || bad="$bad $s:$(letters "$s")"
done
[ "$rc" = 0 ] && [ -z "$bad" ]
result map_by_size
[ -n "$bad" ] && echo "# size letters:$bad"

# Address Mode Kbytes, 9 counts, Pss Uss, Huge PageSize: THP and mTHP are
# 17, 18
run "$PMAPS" --summary -f "$doc"
bad=
i=0
for s in $starts; do
	i=$((i + 1))
	eval "k=\${$i}"
	w=$(want_of "$k" | cut -d' ' -f3-)
	got=$(awk -v a="$s-" 'index($1, a) == 1 { print $17, $18 }' "$tmp/out")
	[ "$got" = "$w" ] || bad="$bad $s:'$got'"
done
[ "$rc" = 0 ] && [ -z "$bad" ] &&
	awk '$16 == "PageSize" && $17 == "THP" && $18 == "mTHP" { f = 1 }
		END { exit !f }' "$tmp/out"
result summary_columns
[ -n "$bad" ] && echo "# THP mTHP:$bad"

# ADDRESS INDEX FLAGS MAPCOUNT NODE FOLIO KIND: 512 lines of each
run "$PMAPS" --pages -f "$doc"
want=$(printf '512 %s\n' "$@" | sort | uniq -c | awk '{ print $1 * $2, $3 }')
got=$(awk '/^  [0-9a-f]+ / { print $7 }' "$tmp/out" | sort | uniq -c |
	awk '{ print $1, $2 }')
[ "$rc" = 0 ] && [ "$got" = "$want" ] &&
	[ -z "$(awk '/^  [0-9a-f]+ / && NF != 7' "$tmp/out")" ]
result pages_column
[ "$got" = "$want" ] || echo "# kinds '$got', want '$want'"

bad=
i=0
for s in $starts; do
	i=$((i + 1))
	eval "k=\${$i}"
	run "$PMAPS" --address "0x$s" -f "$doc"
	if [ "$k" = "folio?" ]; then
		! grep -q '^  folio kind' "$tmp/out" || bad="$bad $s"
	else
		grep -q "^  folio kind  $k " "$tmp/out" || bad="$bad $s"
	fi
done
[ -z "$bad" ]
result address_kind
[ -n "$bad" ] && echo "# folio kind wrong at:$bad"

run "$PMAPS" --json -f "$doc"
got=$(grep -o '"folio":[^}]*' "$tmp/out" | tr '\n' ' ')
[ "$rc" = 0 ] &&
	[ "$got" = '"folio":"small" "folio":"mTHP" "folio":"mTHP" "folio":"thp" "folio":null ' ]
result json_folio
[ "$rc" = 0 ] || echo "# folio members: $got"

tap_done
