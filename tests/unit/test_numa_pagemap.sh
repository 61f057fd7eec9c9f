#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmaps --numa --source=pagemap on this host: NODE from move_pages(2),
# KB from kpageflags.  The host has one node (checked: else skipped), so
# every resident page's node is 0; a 2 MiB-aligned MADV_HUGEPAGE region
# is one 2048 KiB folio where the kernel gave a THP (root, to read
# kpageflags).  Prints TAP.  PMAPS names the binary, CC builds the target.
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

tests="numa_columns_on_every_range numa_node_zero numa_same_pages
	numa_small_pages_4k numa_thp_2048 numa_off_unchanged
	numa_map_by_node numa_map_by_size"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
if [ "$(id -u)" != 0 ] || [ "$nodes" != 1 ] ||
   [ "$(getconf PAGESIZE)" != 4096 ]; then
	for t in $tests; do
		skip "$t" "needs root, one NUMA node and 4 KiB pages"
	done
	tap_done
	exit
fi

# 4 MiB of anonymous memory, the middle 2 MiB aligned and MADV_HUGEPAGE,
# then 16 small pages touched in a MADV_NOHUGEPAGE region.
cat > "$tmp/target.c" <<'EOC'
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	size_t huge = 2UL << 20;
	char *p = mmap(NULL, 3 * huge, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *s = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *h;

	if (p == MAP_FAILED || s == MAP_FAILED)
		return 1;
	h = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
	madvise(h, huge, MADV_HUGEPAGE);
	madvise(s, 16 * 4096, MADV_NOHUGEPAGE);
	memset(h, 1, huge);
	memset(s, 1, 16 * 4096);
	printf("%lx %lx\n", (unsigned long)h, (unsigned long)s);
	fflush(stdout);
	pause();
	return 0;
}
EOC
if ! spawn_target numa_target 600 0.05; then
	diag "$tmp/err"
	for t in $tests; do not_ok "$t"; done
	tap_done
	exit
fi
read -r huge small < "$tmp/layout"
# The node of a page is move_pages(2)'s answer, which qemu-user
# (tests/unit/arm64.sh) does not emulate: there every node is '?', and
# the tests of node 0 are skipped.
qemu_user_refuses move_pages "$PMAPS" --numa --source=pagemap --raw "$target_pid"
no_nodes=$qemu_refused

run "$PMAPS" --numa --source=pagemap --raw "$target_pid"
cp "$tmp/out" "$tmp/numa"
# range lines: a number first; headers have an address range.  AGE, the
# seventh column, is always "?": kpageflags has no generation.
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	awk -F'\t' '/^[0-9]+\t/ && (NF != 7 || $7 != "?") { bad = 1 } END { exit bad }' "$tmp/numa" &&
	grep -q '^[0-9]*	' "$tmp/numa"
result numa_columns_on_every_range

# move_pages may say -EFAULT for pages without a struct page (the vDSO's
# data pages): '?' then, but never another node.
awk -F'\t' '/^[0-9]+\t/ && $5 != 0 && $5 != "?" { bad = 1 }
	/^[0-9]+\t/ && $5 == 0 { zero++ }
	END { exit bad || !zero }' "$tmp/numa"
result_unless "$no_nodes" numa_node_zero

# Splitting by node and size moves no page: the same number per VMA.
run "$PMAPS" --source=pagemap --raw "$target_pid"
cp "$tmp/out" "$tmp/plain"
pages() {
	awk -F'\t' '/^[0-9]+\t/ { n[h] += $2; next } { h = $1 }
		END { for (v in n) print v, n[v] }' "$1" | sort
}
# the target is idle: its pages do not change between the two reads
[ "$rc" = 0 ] && [ "$(pages "$tmp/numa")" = "$(pages "$tmp/plain")" ]
result numa_same_pages

# The VMA of a header starting with address $1: its range lines.
ranges_of() {
	awk -F'\t' -v a="$1" 'index($0, a "-") == 1 { on = 1; next }
		on && /^[0-9]+\t/ { print; next } { on = 0 }' "$tmp/numa"
}
ranges_of "$small" > "$tmp/small"
[ "$(awk -F'\t' '{ n += $2 } $6 != 4 { bad = 1 } END { print bad ? -1 : n }' "$tmp/small")" = 16 ]
result numa_small_pages_4k

# A THP, if the kernel made one (AnonHugePages in smaps): 512 pages, one
# 2048 KiB folio; the region may share its VMA with the rest of the map.
thp_kb=$(awk -v a="$huge" 'index($0, a "-") == 1 || ($1 ~ /-/ && on) {
		on = index($0, a "-") == 1 } on && /^AnonHugePages:/ { print $2 }' \
	"/proc/$target_pid/smaps" 2>/dev/null | head -1)
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	skip numa_thp_2048 "THP disabled"
else
	first=$(printf '%d' "0x$huge")
	first=$((first / 4096))
	awk -F'\t' -v f="$first" '/^[0-9]+\t/ && $1 <= f && $1 + $2 >= f + 512 &&
		$6 == 2048 { ok = 1 } END { exit !ok }' "$tmp/numa"
	st=$?
	if [ $st != 0 ] && [ "${thp_kb:-0}" = 0 ]; then
		skip numa_thp_2048 "the kernel gave no THP"
	else
		[ $st = 0 ]
		result numa_thp_2048
	fi
fi

# Without --numa: the four columns, as before.
awk -F'\t' '/^[0-9]+\t/ && NF != 4 { bad = 1 } END { exit bad }' "$tmp/plain"
result numa_off_unchanged

# map --by node through the pagemap source: the small pages' row all on
# node 0 (16 pages, 8 characters).
run "$PMAPS" map --numa --source=pagemap --by node --color=never --width 80 \
	"$target_pid"
[ "$rc" = 0 ] && grep -q '^legend: \. not present  0 node 0' "$tmp/out" &&
	grep -qx "  0*$small 00000000" "$tmp/out"
result_unless "$no_nodes" numa_map_by_node

# map --by size: the small pages' row all 4 KiB; the THP's first row all
# 2 MiB where the kernel gave one (the MADV_HUGEPAGE region is a VMA of its
# own, so its rows start at $huge: 64 characters of 2 pages each).
run "$PMAPS" map --numa --source=pagemap --by size --color=never --width 80 \
	"$target_pid"
cp "$tmp/out" "$tmp/by-size"
hs=$(printf 'H%.0s' $(seq 64))
[ "$rc" = 0 ] && grep -qx "  0*$small SSSSSSSS" "$tmp/by-size" &&
	if [ "${thp_kb:-0}" != 0 ]; then
		grep -qx "  0*$huge $hs" "$tmp/by-size"
	else
		echo "# no THP given: only the small pages checked"
	fi
result numa_map_by_size

tap_done
