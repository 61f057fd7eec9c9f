#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl -f, from the linux-source-6.12 tree, over the module sources.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD:-$top/build}/checkpatch
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	tarball=$("$top/tests/linux-source.sh")
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
cd "$top"
"$dir/scripts/checkpatch.pl" --no-tree --strict --show-types --terse -f \
	module/*.c module/*.h module/probes/*.c
