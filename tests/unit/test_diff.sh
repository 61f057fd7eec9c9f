#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps diff: golden output over a fixture pair, the same snapshot as text
# and as JSON, and the messages for malformed input.  Prints TAP.  PMAPS
# names the binary (default: built with make -C userspace).
#
# fixtures/diff-a.txt and diff-b.txt differ in every way the output has a
# line for; golden/diff-a-b is what pmaps diff prints for them, checked
# line by line against the fixtures (see the comments at each step there
# in this file).  diff-a.json is pmaps --json of diff-a.txt;
# diff-b-reordered.json holds diff-b.txt as JSON with every object's
# members in reverse order, pretty-printed, and with members pmaps/1 does
# not define, which readers must skip.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
cleanup() {
	[ -n "$target_pid" ] && kill -KILL "$target_pid" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# expect_error NAME STDERR-TEXT: exit 2, nothing on stdout
expect_error() {
	expect_text "$1" 2 "" "$2"
}

hint="Try 'pmaps diff --help' for more information."

# The six counts that are always printed, all 0: no difference.
no_difference=$tmp/no_difference
unseen="pmaps diff: note: '?' (not known) in both A and B for some pages, so their changes cannot be seen:"
unseen_withheld="$unseen referenced, active, dirty, writeback, mapcount"
printf 'summary\t%s\t0\n' pages_appeared pages_disappeared pages_changed \
	mapcount_changed vmas_appeared vmas_disappeared > "$no_difference"

# ---- usage ----

run "$PMAPS" diff --help
missing=
for o in --summary --ignore-mapcount --source --help " -h,"; do
	grep -q -e "$o" "$tmp/out" || missing="$missing $o"
done
[ -n "$missing" ] && echo "# missing from --help:$missing"
[ "$rc" = 0 -a -z "$missing" ]
result help_lists_every_option

run "$PMAPS" diff "$fix/diff-a.txt"
expect_error one_snapshot "pmaps diff: expected two snapshots A B, got 1
$hint"

run "$PMAPS" diff --bogus a b
expect_error unknown_option "pmaps diff: unrecognized option '--bogus'
$hint"

cd "$fix" || exit 1

run "$PMAPS" diff no-such-file.txt diff-a.txt
expect_error missing_file_is_trouble \
	"pmaps diff: no-such-file.txt: No such file or directory"

run "$PMAPS" diff diff-a.txt bad-count.txt
expect_error malformed_text_names_line \
	"pmaps diff: bad-count.txt:2: expected decimal COUNT, got '+1'"

if [ "$(getconf PAGESIZE)" != 4096 ]; then
	for t in golden_text text_from_stdin summary_only same_text_no_difference \
		 json_same_as_text json_against_text reordered_json \
		 withheld_same_no_difference withheld_json_null_same_as_text \
		 withheld_mapcount_changes withheld_mapcount_changes_json \
		 mapcount_only_differs ignore_mapcount_no_difference \
		 ignore_mapcount_keeps_flag_change; do
		skip "$t" "fixtures assume 4 KiB pages"
	done
else
	# golden/diff-a-b, from A to B:
	#  cat r-xp, same VMA: index 3 appeared; index 5 gained Y;
	#    index 6 went from mapcount 2 to 3 (a line of its own: another
	#    change); index 4 the same, not shown;
	#  [heap] grew from ...3f000 to ...5f000: old line -, new line +;
	#    its pages 8-15 lost Y; 4 pages appeared in the new part;
	#  the anonymous VMA: 8 pages lost Y and R; B has them as two ranges
	#    of 4, one change, so one line;
	#  /tmp/my file: perms r--s became rw-s, same pages: - and +, no page
	#    line;
	#  [anon:gone]: gone with its 2 pages; /dev/shm/new: new, 2 pages;
	#  [stack]: flags known in A, '?' for Y and P in B: changed, but no
	#    flag counts as gained or lost where either side cannot know it;
	#  the first cat VMA is the same in both: not shown.
	#  Summary: appeared 1 + 4 + 2, disappeared 2, changed 1 + 1 + 8 + 8
	#  + 3, mapcount changed 1, VMAs appeared heap, file, shm and
	#  disappeared heap, file, gone; young gained 1 (index 5), lost 8 + 8,
	#  referenced lost 8.
	run "$PMAPS" diff diff-a.txt diff-b.txt
	expect golden_text 1 "$golden/diff-a-b" ""

	run "$PMAPS" diff - diff-b.txt < diff-a.txt
	expect text_from_stdin 1 "$golden/diff-a-b" ""

	grep '^summary' "$golden/diff-a-b" > "$tmp/summary"
	run "$PMAPS" diff --summary diff-a.txt diff-b.txt
	expect summary_only 1 "$tmp/summary" ""

	# '?' on both sides cannot show a change: a note on stderr says
	# which flags (long names) and whether the mapcount.
	run "$PMAPS" diff diff-b.txt diff-b.txt
	expect same_text_no_difference 0 "$no_difference" \
		"$unseen young, active, pte-dirty"

	run "$PMAPS" diff diff-a.json diff-a.txt
	expect json_same_as_text 0 "$no_difference" ""

	run "$PMAPS" diff diff-a.json diff-b.txt
	expect json_against_text 1 "$golden/diff-a-b" ""

	run "$PMAPS" diff diff-a.txt diff-b-reordered.json
	expect reordered_json 1 "$golden/diff-a-b" ""

	# A withheld mapcount ('?', null in JSON) is the same as another.
	run "$PMAPS" diff withheld.txt withheld.txt
	expect withheld_same_no_difference 0 "$no_difference" "$unseen_withheld"

	"$PMAPS" --json -f withheld.txt > "$tmp/withheld.json"
	run "$PMAPS" diff "$tmp/withheld.json" withheld.txt
	expect withheld_json_null_same_as_text 0 "$no_difference" \
		"$unseen_withheld"

	# '?' against a count is a change as shown, but only a count known on
	# both sides can be a changed mapcount: pages 0 and 2 are changed
	# pages, page 3 is also a changed mapcount, page 1 is the same.
	h='00400000-00404000 r--p 00000000 00:02 15                                 /bin/x'
	printf '%s\n0\t1\tY??U_??\t1\n1\t1\tY??U_??\t?\n2\t1\tY??U_??\t?\n3\t1\tY??U_??\t2\n' \
		"$h" > "$tmp/wa.txt"
	printf '%s\n0\t1\tY??U_??\t?\n1\t1\tY??U_??\t?\n2\t1\tY??U_??\t1\n3\t1\tY??U_??\t3\n' \
		"$h" > "$tmp/wb.txt"
	printf '%s\t%s\n' \
		vma '=	00400000-00404000	r--p	00000000	00:02	15	/bin/x' \
		'~' '00400000	1	Y??U_??	Y??U_??	1	?' \
		'~' '00402000	1	Y??U_??	Y??U_??	?	1' \
		'~' '00403000	1	Y??U_??	Y??U_??	2	3' \
		summary 'pages_appeared	0' summary 'pages_disappeared	0' \
		summary 'pages_changed	3' summary 'mapcount_changed	1' \
		summary 'vmas_appeared	0' summary 'vmas_disappeared	0' \
		> "$tmp/wab"
	run "$PMAPS" diff "$tmp/wa.txt" "$tmp/wb.txt"
	expect withheld_mapcount_changes 1 "$tmp/wab" "$unseen_withheld"

	"$PMAPS" --json -f "$tmp/wb.txt" > "$tmp/wb.json"
	run "$PMAPS" diff "$tmp/wa.txt" "$tmp/wb.json"
	expect withheld_mapcount_changes_json 1 "$tmp/wab" "$unseen_withheld"

	# --ignore-mapcount: mc-a and mc-b differ only in mapcounts (2 to 3,
	# 2 to 5, '?' to 4); mc-c is mc-b with page 2 also losing Y.
	printf '%s\n0\t2\tYRAU___\t2\n2\t1\tYRAU___\t2\n3\t1\tYRAU___\t?\n' \
		"$h" > "$tmp/mc-a.txt"
	printf '%s\n0\t2\tYRAU___\t3\n2\t1\tYRAU___\t5\n3\t1\tYRAU___\t4\n' \
		"$h" > "$tmp/mc-b.txt"
	printf '%s\n0\t2\tYRAU___\t3\n2\t1\t_RAU___\t5\n3\t1\tYRAU___\t4\n' \
		"$h" > "$tmp/mc-c.txt"
	# without the option, the mapcounts are differences
	run "$PMAPS" diff "$tmp/mc-a.txt" "$tmp/mc-b.txt"
	[ "$rc" = 1 ] && grep -q '^summary	pages_changed	4$' "$tmp/out" &&
		grep -q '^summary	mapcount_changed	3$' "$tmp/out"
	result mapcount_only_differs

	run "$PMAPS" diff --ignore-mapcount "$tmp/mc-a.txt" "$tmp/mc-b.txt"
	expect ignore_mapcount_no_difference 0 "$no_difference" ""

	printf '%s\t%s\n' \
		vma '=	00400000-00404000	r--p	00000000	00:02	15	/bin/x' \
		'~' '00402000	1	YRAU___	_RAU___	2	5' \
		summary 'pages_appeared	0' summary 'pages_disappeared	0' \
		summary 'pages_changed	1' summary 'mapcount_changed	1' \
		summary 'vmas_appeared	0' summary 'vmas_disappeared	0' \
		summary 'young_lost	1' > "$tmp/mc-ac"
	run "$PMAPS" diff --ignore-mapcount "$tmp/mc-a.txt" "$tmp/mc-c.txt"
	expect ignore_mapcount_keeps_flag_change 1 "$tmp/mc-ac" ""
fi

# ---- SNAPSHOT PID: a saved document against the live process ----
# A stopped sleep(1) of our own, once it runs sleep and not the shell
# that forked it; the pagemap source, as the host has no module.  Other
# processes change its shared pages' mapcounts meanwhile (the very noise
# of --ignore-mapcount), and set the referenced and active flags of the
# pages it shares with them (files, the vDSO) as they map and read them,
# so only its VMAs, its pages and the flags of its own pages must stay.

sleep 300 &
target_pid=$!
i=0
while [ "$(readlink "/proc/$target_pid/exe")" = "$(readlink /proc/$$/exe)" ] &&
      [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -STOP "$target_pid"
i=0
until grep -q '^State:.*T' "/proc/$target_pid/status" || [ $i -ge 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
run "$PMAPS" --source=pagemap --raw "$target_pid"
cp "$tmp/out" "$tmp/snap.txt"
# stable DIFF-OUTPUT RC: no VMA or page appeared or disappeared, no page
# of its own ([heap], [stack], anonymous) changed; exit 0 exactly when
# no page changed.
stable() {
	awk -F'\t' -v rc="$2" '
		$1 == "vma" { if ($2 != "=") bad = 1; shared = $8 ~ /^(\/|\[vdso\]|\[vvar)/ }
		$1 == "+" || $1 == "-" { bad = 1 }
		$1 == "~" && !shared { bad = 1 }
		$1 == "summary" && $2 ~ /^(pages_appeared|pages_disappeared|vmas_appeared|vmas_disappeared)$/ && $3 != 0 { bad = 1 }
		$1 == "summary" && $2 == "pages_changed" { changed = $3 }
		END { exit bad || changed == "" || (rc != (changed != 0)) }' "$1"
}
run "$PMAPS" diff --source=pagemap --ignore-mapcount "$tmp/snap.txt" "$target_pid"
[ -s "$tmp/snap.txt" ] && grep -q sleep "$tmp/snap.txt" &&
	[ "$rc" != 2 ] && stable "$tmp/out" "$rc"
result snapshot_against_live_pid_no_changes

# the live process first, the snapshot second: the same
run "$PMAPS" diff --source=pagemap --ignore-mapcount "$target_pid" "$tmp/snap.txt"
[ "$rc" != 2 ] && stable "$tmp/out" "$rc"
result live_pid_against_snapshot_no_changes

# against another process: it fails
run "$PMAPS" diff --source=pagemap --ignore-mapcount "$tmp/snap.txt" $$
[ "$rc" = 1 ] && ! stable "$tmp/out" "$rc"
result snapshot_against_other_pid_differs

# a file named by the digits is the file, not the process
printf '%s\n' '00400000-00401000 r--p 00000000 00:02 15 /bin/y' > "$tmp/$target_pid"
run sh -c "cd '$tmp' && '$PMAPS' diff '$target_pid' ./'$target_pid'"
expect digits_naming_a_file_are_the_file 0 "$no_difference" ""
rm -f "$tmp/$target_pid"

kill -KILL "$target_pid"
wait "$target_pid" 2> /dev/null
target_pid=

# digits naming neither a file nor a process
run "$PMAPS" diff "$fix/diff-a.txt" 2147483647
expect_error pid_without_process_is_usage_error \
	"pmaps diff: 2147483647: expected a snapshot file or the PID of a running process, found neither (name a file of that name ./2147483647)
$hint"

run "$PMAPS" diff --source=file "$fix/diff-a.txt" 1
expect_error source_file_refused \
	"pmaps diff: --source: expected auto, kernel, module or pagemap, got 'file'
$hint"

# ---- malformed JSON: file, line and what was expected ----
# A message quotes the input from where it went wrong: up to 24 bytes of
# that line, then "..." if the line goes on.

cd "$tmp" || exit 1
# json NAME LINES...: the file NAME.json, one argument a line
json() {
	name=$1
	shift
	printf '%s\n' "$@" > "$name.json"
}

head='{"schema":"pmaps/1","targets":['
tgt='{"label":"x","pid":0,"source":"file","vmas":['
vma='{"start":"0x1000","end":"0x3000","perms":"rw-p","offset":0,"dev":"00:00","inode":0,"name":"","swapped":null,"ranges":['

json schema '{"schema":"pmaps/5","targets":[]}'
run "$PMAPS" diff schema.json schema.json
expect_error json_wrong_schema \
	"pmaps diff: schema.json:1: expected schema \"pmaps/1\", \"pmaps/2\", \"pmaps/3\" or \"pmaps/4\", got '\"pmaps/5\",\"targets\":[]}'"

json none "$head" ']}'
run "$PMAPS" diff none.json none.json
expect_error json_no_target \
	"pmaps diff: none.json:1: expected one target, got none"

json two "$head" "$tgt]}," "$tgt]}" ']}'
run "$PMAPS" diff two.json two.json
expect_error json_two_targets \
	"pmaps diff: two.json:3: expected one target per file (pmaps --json PID > FILE saves one), got '{\"label\":\"x\",\"pid\":0,\"so...'"

json novmas "$head" '{"label":"x"}' ']}'
run "$PMAPS" diff novmas.json novmas.json
expect_error json_target_without_vmas \
	"pmaps diff: novmas.json:2: expected member \"vmas\" in this target"

json flags "$head" "$tgt" "$vma" \
	'{"index":1,"count":1,"address":"0x1000","flags":"YRAUPD","mapcount":1}]}]}' ']}'
run "$PMAPS" diff flags.json flags.json
expect_error json_short_flags \
	"pmaps diff: flags.json:4: expected flags of 7 characters YRAUPDW, '_' or '?', got '\"YRAUPD\",\"mapcount\":1}]}...'"

json mapcount "$head" "$tgt" "$vma" \
	'{"index":1,"count":1,"address":"0x1000","flags":"Y??U_??","mapcount":"?"}]}]}' ']}'
run "$PMAPS" diff mapcount.json mapcount.json
expect_error json_mapcount_number_or_null \
	"pmaps diff: mapcount.json:4: expected mapcount as a whole number or null, got '\"?\"}]}]}'"

json nocount "$head" "$tgt" "$vma" \
	'{"index":1,' '"address":"0x1000","flags":"YRAUPDW","mapcount":1}]}]}' ']}'
run "$PMAPS" diff nocount.json nocount.json
expect_error json_missing_member_names_object_line \
	"pmaps diff: nocount.json:4: expected member \"count\" in this range"

json zero "$head" "$tgt" "$vma" \
	'{"index":1,"count":0,"address":"0x1000","flags":"YRAUPDW","mapcount":1}]}]}' ']}'
run "$PMAPS" diff zero.json zero.json
expect_error json_count_zero \
	"pmaps diff: zero.json:4: expected count of at least 1, got '0,\"address\":\"0x1000\",\"fl...'"

json outside "$head" "$tgt" "$vma" \
	'{"index":2,"count":2,"address":"0x2000","flags":"YRAUPDW","mapcount":1}]}]}' ']}'
run "$PMAPS" diff outside.json outside.json
expect_error json_range_outside_vma \
	"pmaps diff: outside.json:4: expected a range inside 1000-3000 starting at or after 1000, got 2 pages at 0x2000"

json address "$head" "$tgt" "$vma" \
	'{"index":1,"count":1,"address":"0x2000","flags":"YRAUPDW","mapcount":1}]}]}' ']}'
run "$PMAPS" diff address.json address.json
expect_error json_address_must_match_index \
	"pmaps diff: address.json:4: expected address 0x1000 for index 1, got 0x2000"

json order "$head" "$tgt" "$vma]}," \
	'{"start":"0x2000","end":"0x4000","perms":"rw-p","offset":0,"dev":"00:00","inode":0,"name":"","ranges":[]}' \
	']}]}'
run "$PMAPS" diff order.json order.json
expect_error json_vmas_out_of_order \
	"pmaps diff: order.json:4: expected a VMA starting at or after 3000, got 2000"

json upper "$head" "$tgt" \
	'{"start":"0x1000","end":"0x3A00","perms":"rw-p","offset":0,"dev":"00:00","inode":0,"name":"","ranges":[]}' \
	']}]}'
run "$PMAPS" diff upper.json upper.json
expect_error json_address_lowercase_hex \
	"pmaps diff: upper.json:3: expected end as \"0x\" and lowercase hex, got '\"0x3A00\",\"perms\":\"rw-p\",...'"

json nul "$head" "$tgt" \
	'{"start":"0x1000","end":"0x3000","perms":"rw-p","offset":0,"dev":"00:00","inode":0,"name":"a\u0000b","ranges":[]}' \
	']}]}'
run "$PMAPS" diff nul.json nul.json
expect_error json_no_nul_in_names \
	"pmaps diff: nul.json:3: expected a \\u escape of a character, not NUL or half a surrogate pair, got '\\\\u0000b\",\"ranges\":[]}'"

json again "$head" "$tgt" \
	'{"start":"0x1000","start":"0x1000","end":"0x3000","perms":"rw-p","offset":0,"dev":"00:00","inode":0,"name":"","ranges":[]}' \
	']}]}'
run "$PMAPS" diff again.json again.json
expect_error json_member_twice \
	"pmaps diff: again.json:3: expected each member once, \"start\" again, got '\"0x1000\",\"end\":\"0x3000\",...'"

json cut "$head" "$tgt" "$vma"
run "$PMAPS" diff cut.json cut.json
expect_error json_truncated \
	"pmaps diff: cut.json:4: expected a range object, got the end of the file"

json trailing "$head" "$tgt]}" ']}' 'x'
run "$PMAPS" diff trailing.json trailing.json
expect_error json_trailing_text \
	"pmaps diff: trailing.json:4: expected the end of the file after the document, got 'x'"

# Unknown members are skipped whatever they hold; a value that is not JSON
# is still an error.
json badvalue "$head" '{"label":tru,"vmas":[]}' ']}'
run "$PMAPS" diff badvalue.json badvalue.json
expect_error json_unknown_member_must_be_json \
	"pmaps diff: badvalue.json:2: expected a JSON value, got 'tru,\"vmas\":[]}'"

json empty "$head" '{"vmas":[],"future":{"a":[1,-2.5e3,true,false,null,"\"\\"]}}' ']}'
run "$PMAPS" diff empty.json /dev/null
expect json_unknown_members_skipped 0 "$no_difference" ""

tap_done
