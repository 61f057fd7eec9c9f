#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Import one of Debian's linux-source trees (tests/linux-source.sh) as a git
# repository and print its path.  The base commit is made with fixed
# identity and dates, so its id is the same on every machine for the same
# source version: patches/ records the 6.12 one as base-commit, and git am
# applies the series on exactly that tree.
#
#   tests/kernel/tree.sh [6.12]   build/linux-base, linux-source-6.12
#   tests/kernel/tree.sh 7        build/linux-base-7, the newest 7.N
#
# A tree is imported again only when its source version changes.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
line=${1:-6.12}
case $line in
6.12) tree=$build/linux-base ;;
7) tree=$build/linux-base-7 ;;
*) echo "usage: tests/kernel/tree.sh [6.12|7]" >&2; exit 2 ;;
esac
tarball=$("$top/tests/linux-source.sh" "$line")
name=$(basename "$tarball" .tar.xz)
version=$(cat "${tarball%.tar.xz}.version")
# The marker holds what was imported; an older empty one is taken as the
# 6.12 tree, which linux-source.sh never fetches again.
if [ -f "$tree/.pmaps-base-ready" ]; then
	have=$(cat "$tree/.pmaps-base-ready")
	[ -n "$have" ] || have="linux-source-6.12 $version"
	if [ "$have" = "$name $version" ]; then
		echo "$tree"
		exit 0
	fi
fi
rm -rf "$tree"
mkdir -p "$tree"
start=$(date +%s)
tar -xJf "$tarball" -C "$tree" --strip-components=1
cd "$tree"
git init -q
git config core.autocrlf false
# Debian's tree ships a .gitignore; the base must hold every source file.
git add -A -f .
GIT_AUTHOR_NAME=pmaps_ext GIT_AUTHOR_EMAIL=pmaps_ext@invalid \
GIT_COMMITTER_NAME=pmaps_ext GIT_COMMITTER_EMAIL=pmaps_ext@invalid \
GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	git commit -q -m "Debian $name $version"
echo "$name $version" > .pmaps-base-ready
echo "tree.sh: imported $name $version in $(($(date +%s) - start)) s" >&2
echo "$tree"
