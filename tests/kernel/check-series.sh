#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Checks on patches/ itself, TAP: the series file lists every patch in
# order, the cover letter's base-commit is the imported newest 7.x tree
# (tests/kernel/tree.sh), each patch passes checkpatch.pl --strict from
# that tree and has a list to go to (get_maintainer.pl), and the series
# applies with patch -p1 in quilt order.  (git am is exercised by
# build.sh.)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
base=$("$top/tests/kernel/tree.sh") || exit 1
patches=$top/patches
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n $1"; }

series=$(sed -n '/^[^#]/p' "$patches/series")
echo "TAP version 13"
echo "1..$(($(echo "$series" | wc -l) * 2 + 3))"

on_disk=$(cd "$patches" && ls 0*.patch | grep -v '^0000-cover-letter')
if [ "$series" = "$on_disk" ]; then
	ok test_series_lists_every_patch
else
	not_ok test_series_lists_every_patch
fi

want=$(git -C "$base" rev-parse base)
if grep -qx "base-commit: $want" "$patches/0000-cover-letter.patch"; then
	ok test_cover_letter_base_commit
else
	not_ok test_cover_letter_base_commit
	# Debian keeps only the newest trixie-backports source: a newer one
	# means the series is to be rebased and regenerated on it.
	echo "# the imported tree is $want, $(cat "$base/.git/pmaps-base-ready")"
fi

# checkpatch asks "does MAINTAINERS need updating?" for every new file; the
# answer is no when get_maintainer.pl already finds an entry for the new
# file's directory (the file itself does not exist in the base tree).
covered() {
	for file in $(awk '/^--- \/dev\/null/ { getline; sub("^\\+\\+\\+ b/", ""); print }' "$1"); do
		(cd "$base" && ./scripts/get_maintainer.pl --nogit --nogit-fallback \
			--norolestats -f "$(dirname "$file")/" 2>/dev/null) | grep -q . ||
			return 1
	done
}
# spdxcheck.py wants Debian's python3 with ply and git, not another one
# first on PATH.
export PATH=/usr/bin:$PATH
for p in $series; do
	ignore=
	covered "$patches/$p" && ignore="--ignore FILE_PATH_CHANGES"
	out=$(cd "$base" && ./scripts/checkpatch.pl --strict --no-summary --terse \
		$ignore "$patches/$p" 2>&1)
	if [ -z "$out" ]; then
		ok "test_checkpatch $p"
	else
		not_ok "test_checkpatch $p"
		echo "$out" | sed 's/^/# /'
	fi
done

# Each patch reaches a mailing list: get_maintainer.pl runs on it and
# names at least one list.
for p in $series; do
	lists=$(cd "$base" && ./scripts/get_maintainer.pl --nogit --nogit-fallback \
		--norolestats --nom --nor "$patches/$p" 2>&1)
	if echo "$lists" | grep -q '@vger.kernel.org\|@kvack.org'; then
		ok "test_get_maintainer $p"
	else
		not_ok "test_get_maintainer $p"
		echo "$lists" | sed 's/^/# /'
	fi
done

# Quilt order with patch -p1, on a copy of just the files the series touches.
scratch=$build/series-apply
rm -rf "$scratch"
mkdir -p "$scratch"
for file in $(sed -n 's|^--- a/||p' $(echo "$series" | sed "s|^|$patches/|") | sort -u); do
	mkdir -p "$scratch/$(dirname "$file")"
	git -C "$base" show "base:$file" > "$scratch/$file"
done
applied=yes
for p in $series; do
	(cd "$scratch" && patch -p1 -s --no-backup-if-mismatch < "$patches/$p") ||
		{ applied=no; echo "# patch -p1 failed on $p"; }
done
if [ $applied = yes ]; then
	ok test_patch_p1_in_series_order
else
	not_ok test_patch_p1_in_series_order
fi
exit $failed
