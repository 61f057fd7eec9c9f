#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build page-types from tools/mm of Debian's newest linux-source-7.N
# tarball (tests/linux-source.sh 7, which the patched kernels are built
# from too) and print the binary's path.  Nothing of it is kept in the
# tree.
#
#   tests/bench/page-types.sh [--static]
#
# --static builds a static binary for the busybox guest, in
# $BUILD/page-types-static.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
cc=${CC:-gcc}
out=$build/page-types
ldflags=
if [ "${1:-}" = --static ]; then
	out=$build/page-types-static
	ldflags=-static
fi

if [ ! -x "$out/page-types" ]; then
	tarball=$("$top/tests/linux-source.sh" 7)
	name=$(basename "$tarball" .tar.xz)
	rm -rf "$out"
	mkdir -p "$out"
	echo "page-types.sh: extracting page-types from $(basename "$tarball")" >&2
	# page-types.c, two uapi headers it includes by relative path, and
	# the two files of tools/lib/api it links (fs.c finds debugfs).
	tar -xJf "$tarball" -C "$out" --strip-components=1 --wildcards \
		"$name/tools/mm/page-types.c" \
		"$name/tools/lib/api/*" \
		"$name/tools/include/*" \
		"$name/include/uapi/linux/kernel-page-flags.h" \
		"$name/include/uapi/linux/magic.h"
	(cd "$out/tools" && $cc -O2 -Wall -Ilib -Ilib/api -Iinclude -pthread \
		$ldflags -o "$out/page-types" mm/page-types.c lib/api/fs/fs.c \
		lib/api/debug.c) >&2 ||
		{ echo "page-types.sh: building page-types failed" >&2; exit 1; }
fi
echo "$out/page-types"
