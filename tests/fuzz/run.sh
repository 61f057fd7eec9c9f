#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fuzz pmaps with libFuzzer for FUZZ_SECONDS (default 30), a fifth of it
# for each fuzzer, and print TAP:
#   -  every saved crash in tests/unit/fixtures/fuzz-regressions/ now passes
#      (only when there are any)
#   -  fuzz_parse (the parser alone, fast) found nothing
#   -  fuzz_cli (parser, pmaps_print_text, filters and every view: the same
#      source built with -DFUZZ_CLI) found nothing
#   -  fuzz_heap (the malloc chunk walker on memory images) found nothing
#   -  fuzz_perf (the perf.data reader and its replay) found nothing
#   -  fuzz_core (pmaps core's ELF core reader, in its three formats)
#      found nothing
# All start from tests/fuzz/corpus/ and the unit fixtures.  A new crash is
# copied into tests/unit/fixtures/fuzz-regressions/, so it stays a
# regression test after this run's scratch files are gone.
#
#   tests/fuzz/run.sh            build, replay, fuzz
#   tests/fuzz/run.sh --merge    then rebuild tests/fuzz/corpus from it and
#                                this run's finds (libFuzzer -merge=1)
#
# Needs clang with the libFuzzer runtime (Debian: clang-14 and
# libclang-rt-14-dev); installs them through apt if missing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}/fuzz
seconds=${FUZZ_SECONDS:-30}
regress=$top/tests/unit/fixtures/fuzz-regressions
merge=
[ "${1:-}" = --merge ] && merge=1

. "$top/tests/tap.sh"
mkdir -p "$build"
cflags="-std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -g -O1
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-fno-omit-frame-pointer -I$top/userspace -I$top/userspace/lib"

# Try a throwaway build first: clang may exist without the fuzzer runtime.
cc=${CC_FUZZ:-clang}
probe() {
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)
	{ return d && n ? 0 : 0; }' > "$build/probe.c"
	"$cc" -fsanitize=fuzzer -o "$build/probe" "$build/probe.c" \
		>/dev/null 2>&1
}
# Debian's clang-14 (tests/deps.sh installs it) names its compiler
# clang-14; it is installed here only when that does not work either.
if ! probe && { cc=clang-14; ! probe; }; then
	export DEBIAN_FRONTEND=noninteractive
	echo "# fuzz: installing clang-14 and libclang-rt-14-dev"
	apt-get install -y -qq clang-14 libclang-rt-14-dev >/dev/null 2>&1 || {
		apt-get update -qq && apt-get install -y -qq clang-14 \
			libclang-rt-14-dev >/dev/null
	}
	cc=clang-14
	# The packages above are the runtime: without it fuzzing did not
	# happen, which is a failure of the run, not a feature the machine
	# lacks.
	probe || {
		not_ok "fuzz: no libFuzzer runtime for $cc after installing clang-14 and libclang-rt-14-dev"
		tap_done
		exit 1
	}
fi
rm -f "$build/probe" "$build/probe.c"

# Test 1 replays the saved crashes, when there are any; then the four
# fuzzers.
saved=$(find "$regress" -type f 2>/dev/null | sort)
tap_plan $((${saved:+1} + 5))

# compile NAME EXTRA_FLAGS FILES...: $build/NAME from fuzz_parse.c (or
# $src), or a "not ok" and false.
compile() {
	name=$1 extra=$2
	shift 2
	# shellcheck disable=SC2086
	if "$cc" $cflags $extra -o "$build/$name" \
		"${src:-$top/tests/fuzz/fuzz_parse.c}" \
		"$top"/userspace/lib/*.c "$@" $libs > "$build/cc-$name.log" 2>&1; then
		return 0
	fi
	sed 's/^/# /' "$build/cc-$name.log"
	return 1
}
# The library reads debug symbols with elfutils (libdw-dev).
libs="-ldw -lelf"
parse_ok=1 cli_ok=1 heap_ok=1 perf_ok=1 core_ok=1
compile fuzz_parse "" || parse_ok=
compile fuzz_cli -DFUZZ_CLI "$top/userspace/source.c" \
	"$top/userspace/filter.c" "$top/userspace/view.c" || cli_ok=
src=$top/tests/fuzz/fuzz_heap.c compile fuzz_heap "" || heap_ok=
src=$top/tests/fuzz/fuzz_perf.c compile fuzz_perf "" || perf_ok=
src=$top/tests/fuzz/fuzz_core.c compile fuzz_core "" "$top/userspace/core.c" ||
	core_ok=

# Replay the known crashes; libFuzzer runs file arguments once each.
if [ -n "$saved" ]; then
	bad=
	for bin in ${parse_ok:+fuzz_parse} ${cli_ok:+fuzz_cli} \
		${heap_ok:+fuzz_heap} ${perf_ok:+fuzz_perf} ${core_ok:+fuzz_core}; do
		echo "$saved" | xargs "$build/$bin" > "$build/replay-$bin.log" \
			2>&1 && continue
		grep -E 'ERROR|check failed|Running:' "$build/replay-$bin.log" |
			sed "s/^/# $bin: /" | tail -n 20
		bad="$bad $bin"
	done
	if [ -z "$bad" ]; then
		ok "fuzz regressions: $(echo "$saved" | wc -l) inputs pass"
	else
		not_ok "fuzz regressions in ${regress#"$top"/} fail in$bad"
	fi
fi

# fuzz NAME SECONDS [MAX_LEN]: fuzz a scratch copy of the corpus, so the
# committed one only changes on --merge; the next TAP line.  MAX_LEN
# (default 4096) is the longest input tried: the binary formats need more
# than the text (a real perf.data seed is 11.5 KiB, the core seeds 8 KiB).
fuzz() {
	name=$1 secs=$2 max_len=${3:-4096}
	work=$build/corpus-$name
	art=$build/artifacts-$name
	log=$build/fuzz-$name.log
	rm -rf "$work" "$art"
	mkdir -p "$work" "$art"
	cp "$top"/tests/fuzz/corpus/* "$work/" 2>/dev/null || true
	# Saved crashes are test 1's business: here they would stop the run.
	find "$top/tests/unit/fixtures" -path "$regress" -prune -o -type f \
		-exec cp {} "$work/" \;
	set +e
	"$build/$name" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
		-dict="$top/tests/fuzz/pmaps.dict" -artifact_prefix="$art/" \
		"$work" > "$log" 2>&1
	rc=$?
	set -e
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	found=$(find "$art" -type f | sort | head -n 1)
	if [ -n "$found" ]; then
		mkdir -p "$regress"
		cp "$found" "$regress/"
		grep -E 'ERROR|check failed|SUMMARY' "$log" | diag | head -n 10
		not_ok "$name: $(basename "$found"), saved as ${regress#"$top"/}/$(basename "$found")"
	elif [ $rc -ne 0 ]; then
		not_ok "$name exited $rc" "$log"
	else
		ok "$name: ${secs}s, ${runs:-?} runs, ${rate:-?} exec/s"
	fi
}

# fuzz_built BUILT NAME SECONDS WHAT [MAX_LEN]: fuzz NAME when it was built
# (BUILT not empty), else a "not ok" naming WHAT it is built from.
fuzz_built() {
	if [ -n "$1" ]; then
		fuzz "$2" "$3" "${5:-}"
	else
		not_ok "$2 builds$4"
	fi
}

fifth=$(( (seconds + 4) / 5 ))
fuzz_built "$parse_ok" fuzz_parse "$fifth" ""
fuzz_built "$cli_ok" fuzz_cli "$fifth" \
	" (userspace/source.c, filter.c, view.c)"
fuzz_built "$heap_ok" fuzz_heap "$fifth" ""
fuzz_built "$perf_ok" fuzz_perf "$fifth" "" 65536
fuzz_built "$core_ok" fuzz_core "$fifth" " (userspace/core.c)" 65536

if [ -n "$merge" ]; then
	# Rebuild the corpus small: the unit fixtures under their own names,
	# then what adds an edge of fuzz_cli, then what adds any feature
	# (edges and hit counts) of the parser.
	new=$build/corpus-new
	rm -rf "$new"
	mkdir -p "$new"
	find "$top/tests/unit/fixtures" -path "$regress" -prune -o -type f \
		-exec cp {} "$new/" \;
	from="$top/tests/fuzz/corpus"
	for name in fuzz_parse fuzz_cli; do
		[ -d "$build/corpus-$name" ] && from="$from $build/corpus-$name"
	done
	# shellcheck disable=SC2086
	{ [ -z "$cli_ok" ] || "$build/fuzz_cli" -merge=1 -use_counters=0 \
		"$new" $from; } > "$build/merge.log" 2>&1
	# shellcheck disable=SC2086
	{ [ -z "$parse_ok" ] || "$build/fuzz_parse" -merge=1 "$new" $from; } \
		>> "$build/merge.log" 2>&1
	rm -rf "$top/tests/fuzz/corpus"
	mv "$new" "$top/tests/fuzz/corpus"
	echo "# merged: $(find "$top/tests/fuzz/corpus" -type f | wc -l) files," \
		"$(du -sk --apparent-size "$top/tests/fuzz/corpus" | cut -f1) KiB" \
		"in tests/fuzz/corpus"
fi
tap_done
