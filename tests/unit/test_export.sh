#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps export --openmetrics (issue 19): a stopped target holds written
# anonymous memory, a read file mapping, written shared memory (memfd),
# heap and stack, and a comm with a quote and a backslash.  Its output is
# parsed by Debian's python3-prometheus-client OpenMetrics parser, and
# each family's sum over kinds must equal the total row of pmaps
# --summary of the same stopped process (shared bytes only over its
# private kinds: other processes map and unmap the libraries meanwhile).  -o writes a file through
# a temporary file beside FILE and a rename; labels carry no address, and a file name only
# with --file-names.  Prints TAP.  PMAPS names the binary, CC builds the
# target.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
cleanup() {
	[ -n "$target_pid" ] && kill -KILL "$target_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

tests="parses_as_openmetrics families_are_gauges_in_bytes ends_with_eof
	sums_match_summary kinds_of_target comm_escaped no_address_labels
	file_names_only_when_asked numa_node_labels numa_age_family
	numa_folio_family
	output_file_renamed
	output_file_error
	missing_pid_writes_nothing missing_pid_writes_no_file
	missing_pid_keeps_old_file missing_pid_old_file_unchanged
	kernel_thread_writes_nothing usage_errors help_lists_export"

# Debian's python3 has the parser (tests/deps.sh); a python3 first in
# PATH, from pyenv or a venv, may not.
py=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then
		py=$p
		break
	fi
done

if [ "$(id -u)" != 0 ]; then
	for t in $tests; do
		skip "$t" "needs root: the pagemap source reads flags and huge pages as root"
	done
	tap_done
	exit
fi

cat > "$tmp/target.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE), i;
	char *anon, *shm, *file, *heap, *thp;
	volatile char sum = 0;
	int fd;

	if (argc < 2)
		return 1;
	/* a comm that label values must escape */
	prctl(PR_SET_NAME, "ex\"p\\t", 0, 0, 0);
	anon = mmap(NULL, 16 * ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = memfd_create("pmaps-export-test", 0);
	if (anon == MAP_FAILED || fd < 0 || ftruncate(fd, 8 * ps))
		return 1;
	shm = mmap(NULL, 8 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	fd = open(argv[1], O_RDONLY);
	file = fd < 0 ? MAP_FAILED :
	       mmap(NULL, 4 * ps, PROT_READ, MAP_PRIVATE, fd, 0);
	heap = malloc(4 * ps);
	/* a PMD-sized (2 MiB) thp where the kernel gives one */
	thp = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED || file == MAP_FAILED || !heap ||
	    thp == MAP_FAILED)
		return 1;
	thp = (char *)(((unsigned long)thp + (2 << 20) - 1) & ~((2UL << 20) - 1));
	madvise(thp, 2 << 20, MADV_HUGEPAGE);
	memset(thp, 4, 2 << 20);
	memset(anon, 1, 16 * ps);
	memset(shm, 2, 8 * ps);
	memset(heap, 3, 4 * ps);
	for (i = 0; i < 4; i++)
		sum += file[i * ps];
	printf("%lx %ld\n", (unsigned long)anon, ps);
	fflush(stdout);
	pause();
	return sum;
}
EOF

# a file of 4 pages of its own, so that no other process shares it
dd if=/dev/urandom of="$tmp/data" bs=4096 count=8 2>/dev/null

# Linked statically: the mapcount of a shared library's page changes
# whenever another process maps or unmaps it, and so its shared and USS
# bytes between the export and --summary read; with no library, the
# target's file pages are its own (its binary and the data).
target_cflags=-static
if ! spawn_target export_target 600 0.05 "$tmp/data"; then
	diag "$tmp/err"
	for t in $tests; do not_ok "$t"; done
	tap_done
	exit
fi
read -r anon_addr psize < "$tmp/layout"
# stopped, so that export and --summary read the same pages
kill -STOP "$target_pid"

# parse FILE: each sample as "family<TAB>pid<TAB>comm<TAB>kind<TAB>file<TAB>
# value<TAB>label names<TAB>node<TAB>age<TAB>folio" into FILE.samples, each family as "name type unit" into
# FILE.families; false, with the parser's message, if it does not parse.
parse() {
	"$py" - "$1" > "$1.parsed" 2> "$1.perr" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
for f in text_string_to_metric_families(text):
    print("F\t%s\t%s\t%s" % (f.name, f.type, f.unit))
    for s in f.samples:
        l = s.labels
        print("S\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s" % (f.name,
              l.get("pid"), l.get("comm"), l.get("kind"), l.get("file", ""),
              int(s.value), ",".join(sorted(l)), l.get("node", ""),
              l.get("age", ""), l.get("folio", "")))
EOF
	st=$?
	grep '^F' "$1.parsed" | cut -f2- > "$1.families"
	grep '^S' "$1.parsed" | cut -f2- > "$1.samples"
	return $st
}

# sum FAMILY: the bytes of FAMILY of the target, over all kinds
sum() {
	awk -F '\t' -v f="$1" -v p="$target_pid" \
		'$1 == f && $2 == p { s += $6; n++ } END { print n ? s : "-" }' \
		"$tmp/om.samples"
}

run "$PMAPS" export --openmetrics --source=pagemap "$target_pid"
cp "$tmp/out" "$tmp/om"
export_rc=$rc
"$PMAPS" --summary --source=pagemap "$target_pid" > "$tmp/summary"

if [ -z "$py" ]; then
	lacks "python3-prometheus-client" parses_as_openmetrics \
		families_are_gauges_in_bytes sums_match_summary kinds_of_target \
		comm_escaped file_names_only_when_asked
	parsed=false
else
	parse "$tmp/om"
	[ "$export_rc" = 0 ] && [ ! -s "$tmp/err" ]
	result parses_as_openmetrics
	parsed=true
fi

tail -n 1 "$tmp/om" | grep -qx '# EOF' && [ "$(grep -c '^# EOF' "$tmp/om")" = 1 ]
result ends_with_eof

if $parsed; then
	awk '$2 != "gauge" || $3 != "bytes" || $1 !~ /^pmaps_[a-z_]+_bytes$/ { bad = 1 }
		END { exit bad || NR != 12 }' "$tmp/om.families"
	result families_are_gauges_in_bytes

	# total KiB row: Kbytes RSS Young Referenced Active PteDirty Dirty
	# Writeback Shared Swapped Pss Uss Huge PageSize, "-" where not
	# known, ">=N"
	# where N is a lower bound: the kinds export has a sample for add up
	# to no more than it (the others have none)
	kib() {
		v=$(awk -v c="$1" '$1 == "total" { print $c }' "$tmp/summary")
		case $v in
		-) echo - ;;
		">="*) echo ">=$((${v#>=} * 1024))" ;;
		*) echo $((v * 1024)) ;;
		esac
	}
	bad=
	for pair in mapped:3 resident:4 young:5 pte_dirty:8 dirty:9 \
		    shared:11 swapped:12 uss:14 huge:15; do
		name=${pair%:*} col=${pair#*:}
		got=$(sum "pmaps_${name}_bytes") want=$(kib "$col")
		case $want in
		">="*) [ "$got" = - ] || [ "$got" -le "${want#>=}" ] ;;
		*) [ "$got" = "$want" ] ;;
		esac || bad="$bad $name: export $got, --summary $want;"
	done
	[ -z "$bad" ]
	result sums_match_summary
	[ -n "$bad" ] && echo "#$bad"

	# kind VALUE: the resident bytes of kind in the target
	kind() {
		awk -F '\t' -v p="$target_pid" -v k="$1" \
			'$1 == "pmaps_resident_bytes" && $2 == p && $4 == k { print $6 }' \
			"$tmp/om.samples"
	}
	[ "$(kind anon)" -ge $((16 * psize)) ] &&
		[ "$(kind shmem)" = $((8 * psize)) ] &&
		[ "$(kind heap)" -ge $((4 * psize)) ] &&
		[ "$(kind stack)" -gt 0 ] && [ "$(kind file)" -gt 0 ]
	result kinds_of_target

	[ "$(cut -f3 "$tmp/om.samples" | sort -u)" = 'ex"p\t' ]
	result comm_escaped
fi

# Labels: pid, comm, kind and nothing else (no node without --numa); no
# value looks like an address.
grep -v '^#' "$tmp/om" | sed 's/{.*//' | sort -u > "$tmp/names"
! grep -q '0x[0-9a-f]\|[0-9a-f]\{8,\}-' "$tmp/om" &&
	! grep -v '^#' "$tmp/om" | grep -v '^pmaps_[a-z_]*_bytes{pid="[0-9]*",comm="ex\\"p\\\\t",kind="[a-z]*"} [0-9]*$' |
		grep -q .
result no_address_labels

if $parsed; then
	run "$PMAPS" export --file-names --source=pagemap "$target_pid"
	cp "$tmp/out" "$tmp/fn"
	parse "$tmp/fn" &&
		awk -F '\t' -v f="$tmp/data" '$4 == "file" && $5 == f { n++ }
			($4 != "file" && $4 != "shmem") && $5 != "" { bad = 1 }
			END { exit bad || !n }' "$tmp/fn.samples" &&
		! cut -f5 "$tmp/om.samples" | grep -q .
	result file_names_only_when_asked
fi

# --numa: the page-state families come per node, each node one the
# machine has, and per kind they add up to the samples without --numa;
# the per-VMA families have no node label.
if $parsed; then
	# the nodes are move_pages(2)'s, which qemu-user does not emulate
	qemu_user_refuses move_pages "$PMAPS" export --numa --source=pagemap "$target_pid"
	no_nodes=$qemu_refused
	run "$PMAPS" export --numa --source=pagemap "$target_pid"
	cp "$tmp/out" "$tmp/numa"
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null |
		sed 's/.*node//' | sort -n | xargs)
	# per_kind FILE: "family kind bytes" of the page-state families,
	# summed over nodes
	per_kind() {
		awk -F '\t' '$1 ~ /^pmaps_(resident|dirty|pte_dirty|young)_bytes$/ {
			s[$1 " " $4] += $6 } END { for (k in s) print k, s[k] }' "$1" |
			sort
	}
	parse "$tmp/numa" && [ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
		awk -F '\t' -v nodes=" $nodes " '
			$1 ~ /^pmaps_(mapped|swapped|huge)_bytes$/ && $8 != "" { bad = 1 }
			$1 ~ /^pmaps_(resident|dirty|pte_dirty|young|shared)_bytes$/ {
				if (index(nodes, " " $8 " ") == 0) bad = 1; n++ }
			END { exit bad || !n }' "$tmp/numa.samples" &&
		[ "$(per_kind "$tmp/numa.samples")" = "$(per_kind "$tmp/om.samples")" ]
	result_unless "$no_nodes" numa_node_labels
	[ "$rc" = 0 ] || diag "$tmp/err"
	echo "# nodes: $nodes"

	# pmaps_age_bytes: the pagemap source has no AGE ('?' on every
	# range), so per kind it is all age="unknown", as much as is
	# resident, and ages 0 to 3 are there at 0, never the unknown pages
	awk -F '\t' '$1 ~ /^pmaps_age(_bytes)?$/ && $2 == "gauge" &&
		$3 == "bytes" { f = 1 } END { exit !f }' "$tmp/numa.families" &&
		awk -F '\t' '
			$1 == "pmaps_resident_bytes" { res[$4] += $6 }
			$1 == "pmaps_age_bytes" {
				if ($7 != "age,comm,kind,pid" || $8 != "") bad = 1
				if ($9 ~ /^[0-3]$/) { known[$9]++; if ($6) bad = 1 }
				else if ($9 == "unknown") unk[$4] += $6
				else bad = 1
			}
			END {
				for (k in res) if (unk[k] != res[k]) bad = 1
				for (k in unk) if (!(k in res)) bad = 1
				for (a = 0; a < 4; a++) if (!known[a]) bad = 1
				exit bad || !unk["anon"]
			}' "$tmp/numa.samples" &&
		! grep -q '^pmaps_age' "$tmp/om.families"
	result numa_age_family

	# pmaps_folio_bytes: per kind its samples add up to the resident
	# bytes, and its thp ones to what smaps_rollup counts in PMD-mapped
	# folios (the target's thp is mapped whole, its other pages small);
	# where THP is not "never", the target has one.
	rollup_kb() {
		awk -v k="$1:" '$1 == k { print $2 }' "/proc/$target_pid/smaps_rollup"
	}
	pmd_bytes=$((($(rollup_kb AnonHugePages) + $(rollup_kb ShmemPmdMapped) + $(rollup_kb FilePmdMapped)) * 1024))
	thp_mode=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
	echo "# smaps_rollup PMD-mapped: $pmd_bytes bytes; THP: ${thp_mode:-none}"
	awk -F '\t' '$1 ~ /^pmaps_folio(_bytes)?$/ && $2 == "gauge" &&
		$3 == "bytes" { f = 1 } END { exit !f }' "$tmp/numa.families" &&
		awk -F '\t' -v pmd="$pmd_bytes" -v need_thp="$(case $thp_mode in
			''|*'[never]'*) echo 0 ;; *) echo 1 ;; esac)" '
			$1 == "pmaps_resident_bytes" { res[$4] += $6 }
			$1 == "pmaps_folio_bytes" {
				if ($7 != "comm,folio,kind,pid" || $8 != "") bad = 1
				sum[$4] += $6
				if ($10 == "thp") thp += $6
				seen[$10] = 1
			}
			END {
				for (k in res) if (sum[k] != res[k]) bad = 1
				for (k in sum) if (!(k in res)) bad = 1
				if (!seen["small"] || !seen["thp"] || !seen["mTHP"] || !seen["unknown"]) bad = 1
				if (thp != pmd || (need_thp && !thp)) bad = 1
				exit bad
			}' "$tmp/numa.samples" &&
		! grep -q '^pmaps_folio' "$tmp/om.families"
	result numa_folio_family
else
	lacks "python3-prometheus-client" numa_node_labels numa_age_family \
		numa_folio_family
fi

mkdir "$tmp/textfile"
run "$PMAPS" export --source=pagemap -o "$tmp/textfile/pmaps.prom" "$target_pid"
# PSS samples aside: the [vdso]'s pages change their mapcount, and so
# the target's PSS, whenever another process maps them
[ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] &&
	grep -v '^pmaps_pss_bytes{' "$tmp/textfile/pmaps.prom" > "$tmp/a" &&
	grep -v '^pmaps_pss_bytes{' "$tmp/om" | cmp -s - "$tmp/a" &&
	[ "$(ls "$tmp/textfile")" = pmaps.prom ]
result output_file_renamed

run "$PMAPS" export --source=pagemap -o "$tmp/nodir/pmaps.prom" "$target_pid"
[ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^pmaps export: $tmp/nodir/pmaps.prom: cannot create a temporary file beside it: No such file or directory\$" "$tmp/err"
result output_file_error

# A PID that is no process: reported, status 1, and nothing written,
# not even the headers (issue 32: a scraper took headers without samples
# for the truth), whatever the other PIDs.
"${CC:-cc}" -x c -o "$tmp/true" - <<'EOF' 2>/dev/null
int main(void) { return 0; }
EOF
"$tmp/true" & gone=$!
wait "$gone"
run "$PMAPS" export --source=pagemap "$gone" "$target_pid"
expect_text missing_pid_writes_nothing 1 "" \
	"pmaps export: no process $gone
pmaps export: nothing written"

# -o: no file, not even a temporary one (.gone.prom.XXXXXX); an existing
# one stays as it was.
run "$PMAPS" export --source=pagemap -o "$tmp/textfile/gone.prom" "$gone"
[ "$rc" = 1 ] && [ ! -e "$tmp/textfile/gone.prom" ] &&
	[ -z "$(find "$tmp/textfile" -name '*gone.prom*')" ]
result missing_pid_writes_no_file
printf '# an earlier export\n# EOF\n' > "$tmp/textfile/old.prom"
cp "$tmp/textfile/old.prom" "$tmp/old.want"
run "$PMAPS" export --source=pagemap -o "$tmp/textfile/old.prom" \
	"$target_pid" "$gone"
expect_text missing_pid_keeps_old_file 1 "" \
	"pmaps export: no process $gone
pmaps export: nothing written to $tmp/textfile/old.prom"
cmp -s "$tmp/textfile/old.prom" "$tmp/old.want"
result missing_pid_old_file_unchanged

# kthreadd, PID 2 on Linux: refused before any header.
if [ "$(cat /proc/2/comm 2>/dev/null)" != kthreadd ]; then
	skip kernel_thread_writes_nothing "PID 2 is not kthreadd here"
else
	run "$PMAPS" export 2
	expect_text kernel_thread_writes_nothing 1 "" \
		"pmaps export: PID 2 is a kernel thread: it has no user memory
pmaps export: nothing written"
fi

run "$PMAPS" export
r1=$rc
grep -q "^pmaps export: expected a PID or --cgroup PATH\$" "$tmp/err" || r1=x
run "$PMAPS" export --cgroup / 1
r2=$rc
run "$PMAPS" export x
[ "$r1" = 2 ] && [ "$r2" = 2 ] && [ "$rc" = 2 ] &&
	grep -q "^pmaps export: expected a PID, got 'x'\$" "$tmp/err"
result usage_errors

run "$PMAPS" help export
[ "$rc" = 0 ] && grep -q '^Usage: pmaps export ' "$tmp/out" &&
	"$PMAPS" --help | grep -q '^  export '
result help_lists_export

tap_done
