#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the small kernels the kernel check boots.  Prints "NAME IMAGE KDIR"
# per kernel, for qemu/run.sh.
#
#   tests/kernel/build.sh [plain] [debug] [nopagemapcount]
#
#   plain           patches/ applied to the Debian 6.12 tree with git am,
#                   tinyconfig + pmaps.config; named patched-plain
#   debug           the same plus debug.config; named patched-debug
#   nopagemapcount  the unpatched newest Debian 7.x tree, tinyconfig +
#                   pmaps.config as pmaps-7.config adjusts it +
#                   nopagemapcount.config: large folios without per-page
#                   mapcounts, for the module alone
#
# The patched tree is reused while the series is unchanged, each build
# directory while its config fragments (and, for 7.x, its tree) are.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
configs=${*:-plain debug nopagemapcount}

case " $configs " in
*" plain "* | *" debug "*)
	base=$("$top/tests/kernel/tree.sh")
	patched=$build/linux-pmaps
	# The patch files, in series order (comment lines start with '#').
	patch_files=$(sed -n "/^[^#]/s|^|$top/patches/|p" "$top/patches/series")

	stamp=$(cat "$top"/patches/series $patch_files | sha256sum | cut -c1-16)
	if [ "$(cat "$patched/.pmaps-stamp" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$patched"
		git clone -q "$base" "$patched"
		git -C "$patched" config user.name pmaps_ext
		git -C "$patched" config user.email pmaps_ext@invalid
		git -C "$patched" am -q $patch_files >&2 ||
			{ echo "build.sh: the series does not apply with git am" >&2; exit 1; }
		for cfg in plain debug; do rm -rf "$build/kernel-$cfg"; done
		echo "$stamp" > "$patched/.pmaps-stamp"
	fi
	;;
esac

for cfg in $configs; do
	out=$build/kernel-$cfg
	fragments=$top/tests/kernel/pmaps.config
	case $cfg in
	plain)
		src=$patched name=patched-plain
		;;
	debug)
		src=$patched name=patched-debug
		fragments="$fragments $top/tests/kernel/debug.config"
		;;
	nopagemapcount)
		src=$("$top/tests/kernel/tree.sh" 7) name=nopagemapcount
		# pmaps.config less the symbols 7.x no longer has.
		gone=$(sed -n 's/^# gone: \(CONFIG_[A-Z0-9_]*\)$/\1/p' \
			"$top/tests/kernel/pmaps-7.config" | paste -sd'|')
		mkdir -p "$build/fragments"
		grep -vE "^(${gone:-CONFIG_NONE_GONE})=" "$fragments" \
			> "$build/fragments/pmaps-7-base.config"
		fragments="$build/fragments/pmaps-7-base.config"
		fragments="$fragments $top/tests/kernel/pmaps-7.config"
		fragments="$fragments $top/tests/kernel/nopagemapcount.config"
		;;
	*)
		echo "build.sh: no kernel config '$cfg'" >&2
		exit 2
		;;
	esac
	# A build directory serves while its fragments and tree are the same.
	config_stamp=$( (cat $fragments; git -C "$src" rev-parse HEAD) | sha256sum | cut -c1-16)
	if [ "$(cat "$out/.pmaps-stamp" 2>/dev/null)" != "$config_stamp" ]; then
		rm -rf "$out"
		mkdir -p "$out"
		make -s -C "$src" O="$out" tinyconfig >/dev/null
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $fragments >/dev/null
		make -s -C "$src" O="$out" olddefconfig >/dev/null
		# Fail early when a fragment line did not survive olddefconfig
		# (whole lines: CONFIG_CMDLINE holds spaces).
		if ! grep -h '^CONFIG_' $fragments | grep -vxFf "$out/.config" >"$out/.pmaps-lost"; then
			echo "$config_stamp" > "$out/.pmaps-stamp"
		else
			sed "s/^/build.sh: $cfg: did not take: /" "$out/.pmaps-lost" >&2
			exit 1
		fi
	fi
	start=$(date +%s)
	make -s -C "$src" O="$out" -j"$(nproc)" bzImage modules >&2
	echo "build.sh: $cfg kernel built in $(($(date +%s) - start)) s" >&2
	echo "$name $out/arch/x86/boot/bzImage $out"
done
