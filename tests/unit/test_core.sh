#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps core, TAP: the committed synthetic cores of fixtures/core (which
# gen_core.c writes, and this test checks it still does) against golden
# output and exact messages; then real cores of this machine's kernel and
# gdb through tests/guest/core.sh.  PMAPS names the binary (default: built
# with make -C userspace); CC builds gen_core and core_target.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
fix=$fix/core

trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

usage_hint="Try 'pmaps core --help' for more information."

# ---- the fixtures are gen_core's ----

mkdir "$tmp/gen"
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -O2 -o "$tmp/gen_core" \
	"$here/gen_core.c" 2> "$tmp/err" && "$tmp/gen_core" "$tmp/gen"; then
	(cd "$fix" && ls) > "$tmp/want_list"
	(cd "$tmp/gen" && ls) > "$tmp/got_list"
	differ=
	for f in $(cat "$tmp/want_list"); do
		cmp -s "$fix/$f" "$tmp/gen/$f" || differ="$differ $f"
	done
	[ -n "$differ" ] && echo "# differ from gen_core's:$differ"
	cmp -s "$tmp/want_list" "$tmp/got_list" && [ -z "$differ" ]
	result fixtures_are_gen_core_output
else
	diag "$tmp/err"
	not_ok fixtures_are_gen_core_output
fi

# File names in messages and titles are as given: run from the fixtures.
cd "$fix" || exit 1

# ---- good cores ----

run "$PMAPS" core good.core
expect good_text 0 "$golden/core-good.text" ""

run "$PMAPS" core --tsv good.core
expect good_tsv 0 "$golden/core-good.tsv" ""

run "$PMAPS" core --json good.core
expect good_json 0 "$golden/core-good.json" ""
if ! command -v python3 > /dev/null; then
	lacks python3 good_json_parses
else
	# the golden text is JSON, and its sums are those of its mappings
	python3 -c '
import json, sys
core = json.load(open(sys.argv[1]))["cores"][0]
maps = core["mappings"]
lost = sum(m["size"] - m["in_core"] for m in maps
	   if m["backing"] in ("memfd", "deleted"))
sys.exit(not (core["mapped"] == sum(m["size"] for m in maps) and
	      core["in_core"] == sum(m["in_core"] for m in maps) and
	      core["lost"] == lost and core["pid"] == 4242))' "$tmp/out"
	result good_json_parses
fi

run "$PMAPS" core small.core
expect small_text 0 "$golden/core-small.text" ""

# More than 65534 program headers are counted in section header 0.
run "$PMAPS" core xnum.core
sed 's/^xnum\.core:/small.core:/' "$tmp/out" > "$tmp/xnum"
cp "$tmp/xnum" "$tmp/out"
expect xnum_reads_count_from_section_header 0 "$golden/core-small.text" ""

# An arm64 core: the same mappings and notes, its own NT_PRSTATUS size.
run "$PMAPS" core arm64.core
sed 's/^arm64\.core:/small.core:/' "$tmp/out" > "$tmp/arm64"
cp "$tmp/arm64" "$tmp/out"
expect arm64_core_reads_as_x86_64_one 0 "$golden/core-small.text" ""

run "$PMAPS" core no-nt-file.core
expect no_nt_file_loads_only 0 "$golden/core-no-nt-file.text" ""

# e_phnum 0: a valid, empty core (a NULL array once reached qsort()).
run "$PMAPS" core no-phdrs.core
expect_text no_program_headers 0 \
"no-phdrs.core: core of an unknown process (no NT_PRPSINFO note), 0 threads
without NT_FILE: which mappings are file-backed is unknown; PT_LOAD segments only
Address           Perm Offset     Kbytes   InCore Contents   Backing Mapping
total KiB                              0        0
0 mappings" ""

# ---- cut short: shown as far as it goes, exit 2 ----

run "$PMAPS" core truncated.core
expect truncated_data 2 "$golden/core-truncated.text" \
	"pmaps core: truncated.core: truncated: the file has 18432 bytes, its program headers describe 32768 (RLIMIT_CORE, ulimit -c, may have cut it)"

run "$PMAPS" core cut-notes.core
expect truncated_in_notes 2 "$golden/core-cut-notes.text" \
	"pmaps core: cut-notes.core: truncated: the file has 864 bytes, its program headers describe 8192 (RLIMIT_CORE, ulimit -c, may have cut it)"

# ---- malformed: a bad NT_FILE leaves the PT_LOAD segments ----

# no_nt_file_like NAME CORE MESSAGE: CORE shows as no-nt-file.core does
no_nt_file_like() {
	run "$PMAPS" core "$2"
	sed "s/^$2:/no-nt-file.core:/" "$tmp/out" > "$tmp/renamed"
	cp "$tmp/renamed" "$tmp/out"
	expect "$1" 2 "$golden/core-no-nt-file.text" "pmaps core: $2: $3"
}

no_nt_file_like bad_note_size bad-note-size.core \
	"note at 0x344: expected its name (5 bytes) and description (4294967280 bytes) within the 132 bytes left of its PT_NOTE segment"
no_nt_file_like bad_nt_file_count bad-nt-file-count.core \
	"NT_FILE: expected 1000 entries of 24 bytes, got 70 bytes for them; file names not shown"
no_nt_file_like nt_file_overlap nt-file-overlap.core \
	"NT_FILE: entry 1: expected start at or after 0x402000 (the end of entry 0), got 0x401000; file names not shown"

# An arm64 core with x86-64's 336-byte NT_PRSTATUS: the signal and the
# threads are unknown, the rest is shown.
run "$PMAPS" core arm64-x86-prstatus.core
expect_text arm64_with_x86_64_prstatus 2 \
"arm64-x86-prstatus.core: core of pid 77 (small), 0 threads
command: small
Address                   Perm Offset     Kbytes   InCore Contents   Backing Mapping
000000400000-000000402000 r-x  00000000        8        0 file-only  file    /bin/small
000000402000-000000403000 rw-  00002000        4        4 data       file    /bin/small
7ffc00000000-7ffc00001000 rw-  00000000        4        0 not-dumped anon    [anon]
total KiB                                     16        4
3 mappings: 1 data, 1 file-only, 1 not-dumped" \
	"pmaps core: arm64-x86-prstatus.core: NT_PRSTATUS: expected 392 bytes (arm64 struct elf_prstatus), got 336"

# A bad PT_LOAD is left out; NT_FILE still names its mapping.
run "$PMAPS" core filesz-above-memsz.core
expect_text filesz_above_memsz 2 \
"filesz-above-memsz.core: core of pid 77 (small), signal 6 (SIGABRT), 1 thread
command: small
Address                   Perm Offset     Kbytes   InCore Contents   Backing Mapping
000000400000-000000402000 r-x  00000000        8        0 file-only  file    /bin/small
000000402000-000000403000 ???  00002000        4        0 no-segment file    /bin/small
7ffc00000000-7ffc00001000 rw-  00000000        4        0 not-dumped anon    [anon]
total KiB                                     16        0
3 mappings: 1 file-only, 1 not-dumped, 1 no-segment" \
	"pmaps core: filesz-above-memsz.core: program header 2 (PT_LOAD): expected p_filesz at most p_memsz (0x1000), got 0x2000"

# ---- not a core: nothing shown, exit 2 ----

# not_a_core NAME CORE MESSAGE
not_a_core() {
	run "$PMAPS" core "$2"
	expect_text "$1" 2 "" "pmaps core: $2: $3"
}

not_a_core class32 class32.core \
	"expected a 64-bit ELF core file (ELFCLASS64), got ELFCLASS32"
not_a_core big_endian big-endian.core \
	"expected a little-endian ELF core file (ELFDATA2LSB), got ELFDATA2MSB"
not_a_core executable exec.core \
	"expected an ELF core file (e_type ET_CORE), got ET_EXEC"
not_a_core other_machine riscv.core \
	"expected an x86-64 or arm64 core file (e_machine EM_X86_64 or EM_AARCH64), got EM_RISCV"
not_a_core cut_in_header cut-header.core \
	"truncated: expected a 64-byte ELF header, got 40 bytes"
not_a_core cut_in_program_headers cut-phdrs.core \
	"truncated: expected 4 program headers at 0x40-0x120, the file ends at 0x8c"
not_a_core not_elf not-elf.core \
	"expected an ELF core file, got no ELF magic (7f 45 4c 46) at its start"
not_a_core compressed zstd.core \
	"expected an ELF core file, got zstd-compressed data (decompress it first)"

run "$PMAPS" core --json not-elf.core
expect_text json_when_no_core 2 '{"schema":"pmaps-core/1","cores":[
]}' "pmaps core: not-elf.core: expected an ELF core file, got no ELF magic (7f 45 4c 46) at its start"

# ---- files that cannot be read: exit 1 ----

run "$PMAPS" core no-such.core
expect_text missing_file 1 "" \
	"pmaps core: no-such.core: No such file or directory"

run "$PMAPS" core .
expect_text directory 1 "" \
	"pmaps core: .: expected a regular file, got a directory"

# Every file shown that can be, the worst status returned.
run "$PMAPS" core no-such.core small.core exec.core
expect worst_status_of_several 2 "$golden/core-small.text" \
	"pmaps core: no-such.core: No such file or directory
pmaps core: exec.core: expected an ELF core file (e_type ET_CORE), got ET_EXEC"

if [ -w /dev/full ]; then
	"$PMAPS" core small.core > /dev/full 2> "$tmp/err"
	rc=$?
	[ "$rc" = 1 ] && grep -qx 'pmaps core: write error: No space left on device' "$tmp/err"
	result full_disk_exit_1
else
	skip full_disk_exit_1 "no /dev/full"
fi

# ---- usage ----

run "$PMAPS" core
expect_text no_file 2 "" "pmaps core: expected a core FILE
$usage_hint"

run "$PMAPS" core --bogus small.core
expect_text unknown_option 2 "" "pmaps core: unrecognized option '--bogus'
$usage_hint"

run "$PMAPS" core --json --tsv small.core
expect_text json_and_tsv 2 "" "pmaps core: --json and --tsv cannot be combined
$usage_hint"

run "$PMAPS" core --help
missing=
for o in --json --tsv --help " -h," data partial file-only not-dumped \
	 truncated no-segment memfd deleted; do
	grep -q -e "$o" "$tmp/out" || missing="$missing $o"
done
[ -n "$missing" ] && echo "# missing from --help:$missing"
[ "$rc" = 0 ] && [ -z "$missing" ] && [ ! -s "$tmp/err" ]
result help_lists_options_and_kinds

# ---- real cores: this kernel's, and gdb's gcore ----

cd "$tmp" || exit 1
if ${CC:-cc} -O2 -o "$tmp/core_target" "$top/tests/guest/core_target.c" \
	2> "$tmp/err"; then
	PMAPS=$PMAPS CORE_TARGET=$tmp/core_target TAP_LIB=$top/tests/tap.sh \
		sh "$top/tests/guest/core.sh" > "$tmp/real" 2>&1
	# its tests become ours, renumbered
	tap_adopt "$tmp/real"
	grep -q '^1\.\.' "$tmp/real" || {
		not_ok real_cores_finished
		echo "# tests/guest/core.sh ended before its plan"
	}
else
	diag "$tmp/err"
	not_ok real_cores_core_target_builds
fi

tap_done
