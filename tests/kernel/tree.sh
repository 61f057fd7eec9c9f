#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Import Debian's linux-source-6.12 as a git repository, once, and print its
# path.  The base commit is made with fixed identity and dates, so its id is
# the same on every machine: patches/ records it as base-commit, and git am
# applies the series on exactly that tree.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
tree=$build/linux-base
if [ -f "$tree/.pmaps-base-ready" ]; then
	echo "$tree"
	exit 0
fi
tarball=$("$top/tests/linux-source.sh")
version=$(cat "$build/cache/linux-source-6.12.version")
rm -rf "$tree"
mkdir -p "$tree"
tar -xJf "$tarball" -C "$tree" --strip-components=1
cd "$tree"
git init -q
git config core.autocrlf false
# Debian's tree ships a .gitignore; the base must hold every source file.
git add -A -f .
GIT_AUTHOR_NAME=pmaps_ext GIT_AUTHOR_EMAIL=pmaps_ext@invalid \
GIT_COMMITTER_NAME=pmaps_ext GIT_COMMITTER_EMAIL=pmaps_ext@invalid \
GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	git commit -q -m "Debian linux-source-6.12 $version"
touch .pmaps-base-ready
echo "$tree"
