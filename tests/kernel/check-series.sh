#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Checks on the two series in patches/ itself, TAP: patches/ (the pmaps
# RFC) and patches/pagemap-scan/ (PAGEMAP_SCAN's young and dirty bits).
# For each: the series file lists every patch in order, the cover
# letter's base-commit is the imported newest 7.x tree
# (tests/kernel/tree.sh), each patch passes checkpatch.pl --strict from
# that tree and has a list to go to (get_maintainer.pl), and the series
# applies alone with patch -p1 in quilt order.  Last, both apply in the
# order build.sh applies them.  (git am is exercised by build.sh.)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
base=$("$top/tests/kernel/tree.sh") || exit 1
. "$top/tests/tap.sh"

# The directories of the series, in the order build.sh applies them.
dirs="$top/patches $top/patches/pagemap-scan"
series_of() { sed -n '/^[^#]/p' "$1/series"; }
plan=1
for d in $dirs; do
	plan=$((plan + $(series_of "$d" | wc -l) * 2 + 3))
done
tap_plan $plan

# get_maintainer.pl names linux-kernel@vger.kernel.org (THE REST) for any
# file at all: only what else it names tells that an entry covers one.
beyond_the_rest() {
	grep -v '^linux-kernel@vger\.kernel\.org$' | grep -q .
}

# checkpatch asks "does MAINTAINERS need updating?" for every new file; the
# answer is no when get_maintainer.pl already finds an entry for the new
# file's directory (the file itself does not exist in the base tree).
covered() {
	for file in $(awk '/^--- \/dev\/null/ { getline; sub("^\\+\\+\\+ b/", ""); print }' "$1"); do
		(cd "$base" && ./scripts/get_maintainer.pl --nogit --nogit-fallback \
			--norolestats -f "$(dirname "$file")/" 2>/dev/null) |
			beyond_the_rest || return 1
	done
}

# apply NAME DIR...: the series of each DIR, in turn, with patch -p1 on a
# copy of just the files they touch, taken from the base.
apply() {
	name=$1
	shift
	scratch=$build/series-apply
	rm -rf "$scratch"
	mkdir -p "$scratch"
	files=
	for d in "$@"; do
		files="$files $(series_of "$d" | sed "s|^|$d/|")"
	done
	for file in $(sed -n 's|^--- a/||p' $files | sort -u); do
		mkdir -p "$scratch/$(dirname "$file")"
		git -C "$base" show "base:$file" > "$scratch/$file"
	done
	applied=yes
	for p in $files; do
		(cd "$scratch" && patch -p1 -s --no-backup-if-mismatch < "$p") ||
			{ applied=no; echo "# patch -p1 failed on $p"; }
	done
	if [ $applied = yes ]; then
		ok "$name"
	else
		not_ok "$name"
	fi
}

want=$(git -C "$base" rev-parse base)
# spdxcheck.py wants Debian's python3 with ply and git, not another one
# first on PATH.
export PATH=/usr/bin:$PATH
for d in $dirs; do
	name=${d#"$top"/}
	series=$(series_of "$d")
	on_disk=$(cd "$d" && ls 0*.patch | grep -v '^0000-cover-letter')
	if [ "$series" = "$on_disk" ]; then
		ok "test_series_lists_every_patch $name"
	else
		not_ok "test_series_lists_every_patch $name"
	fi

	if grep -qx "base-commit: $want" "$d/0000-cover-letter.patch"; then
		ok "test_cover_letter_base_commit $name"
	else
		not_ok "test_cover_letter_base_commit $name"
		# Debian keeps only the newest trixie-backports source: a newer
		# one means the series is to be rebased and regenerated on it.
		echo "# the imported tree is $want, $(cat "$base/.git/pmaps-base-ready")"
	fi

	for p in $series; do
		ignore=
		covered "$d/$p" && ignore="--ignore FILE_PATH_CHANGES"
		out=$(cd "$base" && ./scripts/checkpatch.pl --strict --no-summary --terse \
			$ignore "$d/$p" 2>&1)
		if [ -z "$out" ]; then
			ok "test_checkpatch $name/$p"
		else
			not_ok "test_checkpatch $name/$p"
			echo "$out" | sed 's/^/# /'
		fi
	done

	# Each patch reaches the lists that look after what it touches:
	# get_maintainer.pl names at least one beyond linux-kernel@, and the
	# cover letter's To and Cc name every list it names.
	for p in $series; do
		lists=$(cd "$base" && ./scripts/get_maintainer.pl --nogit --nogit-fallback \
			--norolestats --nom --nor "$d/$p" 2>&1)
		missing=
		for l in $(echo "$lists" | grep '@'); do
			sed -n '/^To:/,/^$/p' "$d/0000-cover-letter.patch" |
				grep -qF "$l" || missing="$missing $l"
		done
		if echo "$lists" | beyond_the_rest && [ -z "$missing" ]; then
			ok "test_get_maintainer $name/$p"
		else
			not_ok "test_get_maintainer $name/$p"
			echo "$lists" | sed 's/^/# get_maintainer.pl: /'
			[ -z "$missing" ] || echo "# not on the cover letter:$missing"
		fi
	done

	apply "test_patch_p1_in_series_order $name" "$d"
done
apply "test_patch_p1_both_series_in_order" $dirs
tap_done
