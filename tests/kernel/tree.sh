#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Import Debian's newest linux-source-7.N from trixie-backports
# (tests/linux-source.sh 7) as a git repository and print its path,
# build/linux-7.  The base commit, branch "base", is made with fixed
# identity and dates, so its id is the same on every machine for the same
# source version: patches/ records it as base-commit.  build.sh applies
# the series in the same repository, on branch "pmaps": one work tree of
# 1.8 GB rather than two.
#
# A tree is imported again only when its source version changes.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
tree=$build/linux-7
tarball=$("$top/tests/linux-source.sh" 7)
name=$(basename "$tarball" .tar.xz)
version=$(cat "${tarball%.tar.xz}.version")
if [ "$(cat "$tree/.git/pmaps-base-ready" 2>/dev/null)" = "$name $version" ]; then
	echo "$tree"
	exit 0
fi
# The two trees earlier versions kept.
rm -rf "$tree" "$build/linux-base-7" "$build/linux-pmaps"
mkdir -p "$tree"
start=$(date +%s)
tar -xJf "$tarball" -C "$tree" --strip-components=1
cd "$tree"
git init -q -b base
git config core.autocrlf false
# Debian's tree ships a .gitignore; the base must hold every source file.
git add -A -f .
GIT_AUTHOR_NAME=pmaps_ext GIT_AUTHOR_EMAIL=pmaps_ext@invalid \
GIT_COMMITTER_NAME=pmaps_ext GIT_COMMITTER_EMAIL=pmaps_ext@invalid \
GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	git commit -q -m "Debian $name $version"
echo "$name $version" > .git/pmaps-base-ready
echo "tree.sh: imported $name $version in $(($(date +%s) - start)) s" >&2
echo "$tree"
