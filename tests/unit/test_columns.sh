#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Columns stay columns (issue 27): every text view that prints a row per
# range, page or VMA keeps its fields apart by whitespace whatever their
# width, so that awk's default splitting finds each field where it is on
# every row.  fixtures/wide-columns.txt has the widest values a document
# can hold: mapcounts of 1000 and 1000000 and '?', a 1 PiB range (2^38
# pages), file indexes past 2^28, the top page of the address space
# (ffffffffff600000), NUMA node 1023 and '?', folio sizes up to 1 GiB,
# AGE 0 to 3 and '?'.
# Each check takes a view's rows, wants one number of fields on all of
# them, the flags field as 7 letters of YRAUPDW_? and the other fields
# equal to what the document says, in its order.
# Prints TAP.  PMAPS names the binary.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

if [ "$(getconf PAGESIZE)" != 4096 ]; then
	echo "1..0 # SKIP the fixture's addresses assume 4 KiB pages"
	exit 0
fi

doc=$fix/wide-columns.txt
# the flags field; mawk knows no {7}
flags_re='[YRAUPDW_?][YRAUPDW_?][YRAUPDW_?][YRAUPDW_?][YRAUPDW_?][YRAUPDW_?][YRAUPDW_?]'
tab=$(printf '\t')

# doc_field N [NAME_RE [PAGES]]: field N of the document's range lines, in
# the VMAs whose name matches NAME_RE; with PAGES once per page.
doc_field() {
	awk -v f="$1" -v re="${2:-.}" -v pages="${3:-}" '
		/^[0-9a-f]+-/ { on = $NF ~ re; next }
		on && pages { for (i = 0; i < $2; i++) print $f; next }
		on { print $f }' "$doc"
}

# rows LINE_RE [SEP]: the rows of the last run's output that match
rows() {
	if [ -n "${2:-}" ]; then
		awk -F"$2" -v re="$1" '$0 ~ re' "$tmp/out"
	else
		awk -v re="$1" '$0 ~ re' "$tmp/out"
	fi
}

# columns NAME LINE_RE NF FLAGS_COL FIELD=WANT_FILE...: the rows of the
# last run matching LINE_RE (split at $split if set, else at whitespace)
# have NF fields each, field FLAGS_COL (0: none) is 7 flag letters, and
# each FIELD, one per row, is the lines of WANT_FILE.
split=
columns() {
	name=$1 re=$2 nf=$3 fc=$4 sep=$split
	shift 4
	bad=
	[ "$rc" = 0 ] || bad="exit status $rc"
	rows "$re" "$sep" > "$tmp/rows"
	[ -s "$tmp/rows" ] || bad="$bad; no row matches '$re'"
	awk ${sep:+-F"$sep"} -v nf="$nf" -v fc="$fc" -v flags_re="$flags_re" '
		NF != nf { print "row " NR " has " NF " fields, not " nf ": " $0 }
		fc && $fc !~ "^" flags_re "$" {
			print "row " NR ": field " fc " is not the flags: " $fc
		}' "$tmp/rows" > "$tmp/why"
	[ -s "$tmp/why" ] && bad="$bad; $(head -3 "$tmp/why" | tr '\n' ';')"
	for fw; do
		awk ${sep:+-F"$sep"} -v f="${fw%%=*}" '{ print $f }' \
			"$tmp/rows" > "$tmp/got"
		cmp -s "$tmp/got" "${fw#*=}" ||
			bad="$bad; field ${fw%%=*} is $(tr '\n' ' ' < "$tmp/got")not $(tr '\n' ' ' < "${fw#*=}")"
	done
	if [ -z "$bad" ]; then
		ok "$name"
	else
		not_ok "$name"
		echo "# $bad"
		diag "$tmp/out" | head -30
	fi
}

doc_field 3 > "$tmp/flags"
doc_field 4 > "$tmp/mapcount"
doc_field 2 > "$tmp/count"
doc_field 4 libc > "$tmp/libc_mapcount"
doc_field 5 > "$tmp/node"
doc_field 5 libc > "$tmp/libc_node"
doc_field 6 > "$tmp/kb"
doc_field 7 > "$tmp/age"
# the folio sizes as the text views print them: 16 KiB is 16.0K
human='function human(kb) {
	if (kb == "?") return kb
	if (kb < 1024) return sprintf("%.1fK", kb)
	if (kb < 1048576) return sprintf("%.1fM", kb / 1024)
	return sprintf("%.1fG", kb / 1048576)
}'
awk "$human { print human(\$0) }" "$tmp/kb" > "$tmp/folio"

# "  START-END SIZE FLAGS MAPCOUNT NODE FOLIO AGE": the document has the
# NUMA fields and AGE, and every view of ranges shows them
range_row='^  [0-9a-f]+-[0-9a-f]+ '

run "$PMAPS" -f "$doc"
columns default_view "$range_row" 7 3 3="$tmp/flags" 4="$tmp/mapcount" \
	5="$tmp/node" 6="$tmp/folio" 7="$tmp/age"

run "$PMAPS" --totals -f "$doc"
columns totals_view "$range_row" 7 3 3="$tmp/flags" 4="$tmp/mapcount" \
	5="$tmp/node" 7="$tmp/age"

run "$PMAPS" --areas libc.so -f "$doc"
doc_field 7 libc > "$tmp/libc_age"
columns areas_view "$range_row" 7 3 4="$tmp/libc_mapcount" \
	5="$tmp/libc_node" 7="$tmp/libc_age"

# -d: the names, padded to the widest, then the mapcount
run "$PMAPS" -d -f "$doc"
columns decode_view "$range_row" 7 0 4="$tmp/mapcount" 5="$tmp/node" \
	7="$tmp/age"

# --pages, without the 1 PiB VMA: "  ADDRESS INDEX FLAGS MAPCOUNT NODE
# FOLIO AGE KIND", the kind from KB as pmaps.1 defines it (4 KiB pages:
# thp is 2048 KiB, mTHP between), on every line, "folio?" where KB is '?'
doc_field 4 'demo|libc|vsyscall' pages > "$tmp/page_mapcount"
doc_field 3 'demo|libc|vsyscall' pages > "$tmp/page_flags"
doc_field 6 'demo|libc|vsyscall' pages |
	awk "$human { print human(\$0) }" > "$tmp/page_folio"
doc_field 6 'demo|libc|vsyscall' pages | awk '
	$1 == "?" { print "folio?"; next } $1 == 4 { print "small"; next }
	$1 == 2048 { print "thp"; next } $1 < 2048 { print "mTHP"; next }
	$1 == 1048576 { print "pud"; next } { print "folio-other" }' \
	> "$tmp/page_kind"
doc_field 7 'demo|libc|vsyscall' pages > "$tmp/page_age"
run "$PMAPS" --pages --areas demo,libc,vsyscall -f "$doc"
columns pages_view '^  [0-9a-f]+ ' 8 3 3="$tmp/page_flags" \
	4="$tmp/page_mapcount" 6="$tmp/page_folio" 7="$tmp/page_age" \
	8="$tmp/page_kind"
grep -q '^  ffffffffff600000 4503599627367936 ' "$tmp/out"
result pages_view_index_apart_from_address

# --address: the range line of the page, and the page's own lines
for a in 7fcef4c00000:1000:0:4.0K:1 7fcef4c04000:1000000:1023:16.0K:0 \
	 7fcef4c08000:?:?:?:? 7fd000000000:1000000:7:1.0G:3 \
	 ffffffffff600fff:1:0:4.0K:2; do
	addr=${a%%:*} a=${a#*:}
	echo "${a%%:*}" > "$tmp/want"
	a=${a#*:}
	echo "${a%%:*}" > "$tmp/want_node"
	a=${a#*:}
	echo "${a%%:*}" > "$tmp/want_folio"
	echo "${a#*:}" > "$tmp/want_age"
	run "$PMAPS" --address "0x$addr" -f "$doc"
	columns "address_view_$addr" "$range_row" 7 3 4="$tmp/want" \
		5="$tmp/want_node" 6="$tmp/want_folio" 7="$tmp/want_age"
	grep -qx "  node        $(cat "$tmp/want_node")" "$tmp/out" &&
		grep -qx "  folio       $(cat "$tmp/want_folio")" "$tmp/out" &&
		grep -qx "  age         $(cat "$tmp/want_age")" "$tmp/out"
	result "address_view_${addr}_node_folio_and_age"
done

# --tsv is split at TABs: an anonymous VMA's name is an empty field
run "$PMAPS" --tsv -f "$doc"
{ echo flags; cat "$tmp/flags"; } > "$tmp/tsv_flags"
{ echo mapcount; cat "$tmp/mapcount"; } > "$tmp/tsv_mapcount"
{ echo count; cat "$tmp/count"; } > "$tmp/tsv_count"
{ echo node; cat "$tmp/node"; } > "$tmp/tsv_node"
{ echo kb; cat "$tmp/kb"; } > "$tmp/tsv_kb"
{ echo age; cat "$tmp/age"; } > "$tmp/tsv_age"
split=$tab
columns tsv_view . 19 0 12="$tmp/tsv_count" 13="$tmp/tsv_flags" \
	14="$tmp/tsv_mapcount" 15="$tmp/tsv_node" 16="$tmp/tsv_kb" \
	17="$tmp/tsv_age"
# a document without them: its rows have '?' there, as the format has
run "$PMAPS" --tsv -f "$doc" -f "$fix/good-basic.txt"
{ echo node; cat "$tmp/node"; doc=$fix/good-basic.txt doc_field 1 |
	sed 's/.*/?/'; } > "$tmp/tsv_node"
{ echo age; cat "$tmp/age"; doc=$fix/good-basic.txt doc_field 1 |
	sed 's/.*/?/'; } > "$tmp/tsv_age"
columns tsv_view_mixed . 19 0 15="$tmp/tsv_node" 17="$tmp/tsv_age"
# NUMA fields without AGE (the six-column text): no age column
sed 's/\t[^\t]*$//' "$doc" > "$tmp/six.txt"
{ echo node; cat "$tmp/node"; } > "$tmp/tsv_node"
run "$PMAPS" --tsv -f "$tmp/six.txt"
columns tsv_view_six_columns . 18 0 15="$tmp/tsv_node" 16="$tmp/tsv_kb"
split=

# --summary: KiB columns as wide as the 1 PiB VMA, one row per VMA
awk '/^[0-9a-f]+-/ { if (n) printf "%.0f\n", kib; n++; kib = 0; next }
     { kib += $2 * 4 } END { printf "%.0f\n", kib }' "$doc" > "$tmp/rss"
printf '%s\n' r--p r--p rw-p --xp > "$tmp/perms"
run "$PMAPS" --summary -f "$doc"
# Address Mode Kbytes, 9 counts, Pss Uss, Huge PageSize THP mTHP, N0..N7 N?,
# Mapping: 28
columns summary_view '^[0-9a-f]+-[0-9a-f]+ ' 28 0 2="$tmp/perms" \
	4="$tmp/rss"

# --histogram: "FLAGS NAMES PAGES MB"
run "$PMAPS" --histogram -f "$doc"
echo 274877906944 > "$tmp/want"
columns histogram_view "^$flags_re " 4 1
rows '^Y__UP__ ' | awk '{ print $3 }' | cmp -s - "$tmp/want"
result histogram_pages_column

# map: "  ADDRESS CELLS", by state and by folio size; an address has a
# digit, the legend's "  a character ..." none
for by in "" "--by size" "--by node"; do
	run "$PMAPS" map $by --color=never -f "$doc"
	columns "map_view${by:+_}${by#--by }" '^  [0-9a-f]*[0-9][0-9a-f]* ' 2 0
done

# watch: "MARK   START-END COUNT FLAGS MAPCOUNT", the first frame's
# marks all "." (nothing to compare with)
run "$PMAPS" watch -n 1 -i 0.001 -f "$doc"
columns watch_view '^\.   [0-9a-f]+-' 5 4 3="$tmp/count" 4="$tmp/flags" \
	5="$tmp/mapcount"

tap_done
