#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl -f over the module sources, from the newest Debian tree:
# the newest linux-source-7.N (tests/linux-source.sh 7), extracted again
# when that version changes.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD:-$top/build}/checkpatch
tarball=$("$top/tests/linux-source.sh" 7)
version="$(basename "$tarball" .tar.xz) $(cat "${tarball%.tar.xz}.version")"
if [ ! -x "$dir/scripts/checkpatch.pl" ] ||
   [ "$(cat "$dir/.pmaps-version" 2>/dev/null)" != "$version" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	echo "$version" > "$dir/.pmaps-version"
fi
cd "$top"
# module/probes.h is what Kbuild generates in a built tree, not a source.
headers=
for h in module/*.h; do
	[ "$h" = module/probes.h ] || headers="$headers $h"
done
# shellcheck disable=SC2086
"$dir/scripts/checkpatch.pl" --no-tree --strict --show-types --terse -f \
	module/*.c $headers module/probes/*.c
