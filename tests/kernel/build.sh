#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Apply patches/ to the Debian 6.12 tree with git am and build a small kernel
# for each config: "plain" (tinyconfig + pmaps.config) and "debug" (plus
# debug.config).  Prints "NAME IMAGE KDIR" per kernel, for qemu/run.sh.
#
#   tests/kernel/build.sh [plain] [debug]
#
# The patched tree is reused while the series is unchanged, each build
# directory while its config fragments are.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
configs=${*:-plain debug}
base=$("$top/tests/kernel/tree.sh")
src=$build/linux-pmaps
# The patch files, in series order (comment lines start with '#').
patch_files=$(sed -n "/^[^#]/s|^|$top/patches/|p" "$top/patches/series")

stamp=$(cat "$top"/patches/series $patch_files | sha256sum | cut -c1-16)
if [ "$(cat "$src/.pmaps-stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$src"
	git clone -q "$base" "$src"
	git -C "$src" config user.name pmaps_ext
	git -C "$src" config user.email pmaps_ext@invalid
	git -C "$src" am -q $patch_files >&2 ||
		{ echo "build.sh: the series does not apply with git am" >&2; exit 1; }
	for cfg in plain debug; do rm -rf "$build/kernel-$cfg"; done
	echo "$stamp" > "$src/.pmaps-stamp"
fi

for cfg in $configs; do
	out=$build/kernel-$cfg
	fragments=$top/tests/kernel/pmaps.config
	[ "$cfg" = debug ] && fragments="$fragments $top/tests/kernel/debug.config"
	# A build directory serves while its fragments are the same.
	config_stamp=$(cat $fragments | sha256sum | cut -c1-16)
	if [ "$(cat "$out/.pmaps-stamp" 2>/dev/null)" != "$config_stamp" ]; then
		rm -rf "$out"
		mkdir -p "$out"
		make -s -C "$src" O="$out" tinyconfig >/dev/null
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $fragments >/dev/null
		make -s -C "$src" O="$out" olddefconfig >/dev/null
		# Fail early when a fragment line did not survive olddefconfig.
		for line in $(grep -h '^CONFIG_' $fragments); do
			grep -qx "$line" "$out/.config" ||
				{ echo "build.sh: $cfg: $line did not take" >&2; exit 1; }
		done
		echo "$config_stamp" > "$out/.pmaps-stamp"
	fi
	start=$(date +%s)
	make -s -C "$src" O="$out" -j"$(nproc)" bzImage modules >&2
	echo "build.sh: $cfg kernel built in $(($(date +%s) - start)) s" >&2
	echo "patched-$cfg $out/arch/x86/boot/bzImage $out"
done
