#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Dirty pages from the pagemap source (issue 27): a stopped target that
# wrote 4 MiB of anonymous memory in a private writable mapping.  Its
# pages show P, inferred, and the dirty total of that VMA is the one the
# kernel reports in smaps (Private_Dirty + Shared_Dirty).  File pages,
# whose P the source cannot know, are '?' and count as unknown, never as
# clean: --summary and --totals mark the total as a lower bound, map
# draws no page clean, export has no dirty sample for them and says how
# much is unknown.  Prints TAP.  PMAPS names the binary, CC builds the
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

tests="anon_pages_show_p anon_dirty_is_smaps_dirty file_p_unknown_not_clean
	summary_marks_lower_bound totals_mark_lower_bound map_draws_none_clean
	export_marks_unknown"

if [ "$(id -u)" != 0 ]; then
	for t in $tests; do
		skip "$t" "needs root: the pagemap source reads kpageflags as root"
	done
	tap_done
	exit
fi

cat > "$tmp/target.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LEN (4L << 20)

int main(void)
{
	char *anon = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (anon == MAP_FAILED)
		return 1;
	memset(anon, 1, LEN);
	printf("%lx\n", (unsigned long)anon);
	fflush(stdout);
	pause();
	return 0;
}
EOF

if ! spawn_target dirty-target 600 0.05 || ! read -r anon < "$tmp/layout"; then
	for t in $tests; do
		not_ok "$t"
	done
	tap_done
	exit
fi
kill -STOP "$target_pid"
# the VMA may have merged with a neighbour: the one that holds anon
hdr=$(awk -v a="$((0x$anon))" '{ split($1, r, "-")
	if (("0x" r[1]) + 0 <= a + 0 && a + 0 < ("0x" r[2]) + 0) print $1 }' \
	"/proc/$target_pid/maps")
[ -n "$hdr" ] || hdr=$(grep -o "^[0-9a-f]*-[0-9a-f]*" "/proc/$target_pid/maps" |
	grep "^0*$anon-" | head -n 1)

# smaps' dirty kB of the VMA: what the kernel counts, pte or folio dirty
smaps_dirty=$(awk -v h="$hdr" '$1 == h { on = 1; next }
	/^[0-9a-f]+-[0-9a-f]+ / { on = 0 }
	on && ($1 == "Private_Dirty:" || $1 == "Shared_Dirty:") { s += $2 }
	END { print s + 0 }' "/proc/$target_pid/smaps")

run "$PMAPS" --source=pagemap --raw "$target_pid"
cp "$tmp/out" "$tmp/raw"
# the 5th letter of every range of the anonymous VMA
awk -F '\t' -v h="$hdr" 'NF == 1 { on = index($0, h " ") == 1; next }
	on { print substr($3, 5, 1) }' "$tmp/raw" | sort -u > "$tmp/p"
[ "$rc" = 0 ] && [ "$(cat "$tmp/p")" = P ]
result anon_pages_show_p

run "$PMAPS" --source=pagemap --summary "$target_pid"
cp "$tmp/out" "$tmp/summary"
start=${hdr%-*}
got=$(awk -v s="$start" 'index($1, s "-") == 1 { print $9 }' "$tmp/summary")
[ "$rc" = 0 ] && [ "$smaps_dirty" -ge 4096 ] && [ "$got" = "$smaps_dirty" ]
result anon_dirty_is_smaps_dirty
diag_dirty="# anon VMA $hdr: --summary Dirty '$got', smaps $smaps_dirty kB"
[ "$got" = "$smaps_dirty" ] || echo "$diag_dirty"

# Ranges of VMAs that are not writable and private (libc's text, say):
# P is '?', and with D clear such a page may be dirty or clean.
awk -F '\t' 'NF == 1 { split($0, f, " "); wp = f[2] ~ /^.w.p$/; next }
	!wp { print substr($3, 5, 2) }' "$tmp/raw" | sort -u > "$tmp/pd"
! grep -qv '^?' "$tmp/pd" && grep -qx '?_' "$tmp/pd"
result file_p_unknown_not_clean

awk '$1 == "total" { print $9 }' "$tmp/summary" | grep -q '^>=[1-9][0-9]*$'
result summary_marks_lower_bound

run "$PMAPS" --source=pagemap --totals "$target_pid"
[ "$rc" = 0 ] && tail -n 1 "$tmp/out" | grep -q '  dirty >=[0-9.]*[KMG]  '
result totals_mark_lower_bound

# every resident page of the target is dirty, shared, or '?': not clean
run "$PMAPS" map --source=pagemap --color=never --width 80 "$target_pid"
[ "$rc" = 0 ] && grep -q '^  [0-9a-f]\{8,\} .*?' "$tmp/out" &&
	! grep -q '^  [0-9a-f]\{8,\} .*[Cc]' "$tmp/out"
result map_draws_none_clean

run "$PMAPS" export --source=pagemap "$target_pid"
sample() {
	awk -v f="$1" -v k="kind=\"$2\"" 'index($1, f "{") == 1 &&
		index($1, k) { print $2 }' "$tmp/out"
}
anon_dirty=$(sample pmaps_dirty_bytes anon)
[ "$rc" = 0 ] && [ -n "$anon_dirty" ] &&
	[ "$anon_dirty" -ge $((smaps_dirty * 1024)) ] &&
	[ "$(sample pmaps_dirty_unknown_bytes anon)" = 0 ] &&
	[ -z "$(sample pmaps_dirty_bytes file)" ] &&
	[ "$(sample pmaps_dirty_unknown_bytes file)" -gt 0 ]
result export_marks_unknown

tap_done
