#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the small kernels the kernel check boots, from the two series of
# patches/ applied with git am to Debian's newest 7.x tree
# (tests/kernel/tree.sh): the pmaps RFC (patches/series), then the
# PAGEMAP_SCAN series (patches/pagemap-scan/series).  Prints
# "NAME IMAGE KDIR" per kernel, for qemu/run.sh.
#
#   tests/kernel/build.sh [CONFIG...]
#   tests/kernel/build.sh --defaults    print the default CONFIGs
#
# Default: nopagemapcount, the kernel make check boots
# (PMAPS_MATRIX=check); else plain, debug and numa, which make check-all
# and make kernel-check boot.
#
#   plain           tinyconfig + pmaps.config + leaks.config; named
#                   patched-plain, also built by make bench
#   debug           tinyconfig + pmaps.config + debug.config (KASAN,
#                   lockdep, DEBUG_VM, the hung-task and softlockup
#                   detectors, and the multi-gen LRU with memcg: the only
#                   patched kernel whose A and AGE come from generations);
#                   named patched-debug
#   nopagemapcount  plain plus nopagemapcount.config: large folios without
#                   per-page mapcounts, and mTHP; named
#                   patched-nopagemapcount
#   numa            nopagemapcount plus numa.config: two NUMA nodes when
#                   booted with QEMU_NUMA=1 (PCI and ACPI, a third more to
#                   build); named patched-numa
#   profile         plain plus profile.config (perf events); named
#                   patched-profile, built only by make bench-profile
#   arm64           plain's fragments + arm64.config for ARCH=arm64,
#                   cross-built in the trixie root (tests/trixie-root.sh
#                   arm64) with its gcc-14-aarch64-linux-gnu, the tree and
#                   the build directory bound there at their own paths;
#                   named patched-arm64, not built by default (make
#                   check-kernel-arm64)
#
# The patched tree is reused while the series and the base are unchanged,
# each build directory while its config fragments and tree are.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
if [ $# -gt 0 ] && [ "$1" != --defaults ]; then
	configs=$*
elif [ "${PMAPS_MATRIX:-all}" = check ]; then
	configs=nopagemapcount
else
	configs="plain debug numa"
fi
if [ "${1:-}" = --defaults ]; then
	echo "$configs"
	exit 0
fi

# The series goes on branch "pmaps" of the imported tree, whose work tree
# then holds it: a second copy of the tree would cost 1.8 GB of disk.
patched=$("$top/tests/kernel/tree.sh")
# The patch files, in series order (comment lines start with '#'), the
# pmaps series first.
patch_files=
for dir in "$top/patches" "$top/patches/pagemap-scan"; do
	patch_files="$patch_files $(sed -n "/^[^#]/s|^|$dir/|p" "$dir/series")"
done
stamp=$( (cat "$top"/patches/series "$top"/patches/pagemap-scan/series $patch_files
	git -C "$patched" rev-parse base) | sha256sum | cut -c1-16)
if [ "$(cat "$patched/.git/pmaps-stamp" 2>/dev/null)" != "$stamp" ] ||
	[ "$(git -C "$patched" symbolic-ref -q --short HEAD)" != pmaps ]; then
	rm -f "$patched/.git/pmaps-stamp"
	git -C "$patched" am --abort 2>/dev/null || true
	git -C "$patched" checkout -q -f -B pmaps base
	git -C "$patched" config user.name pmaps_ext
	git -C "$patched" config user.email pmaps_ext@invalid
	git -C "$patched" am -q $patch_files >&2 ||
		{ echo "build.sh: the series does not apply with git am" >&2; exit 1; }
	echo "$stamp" > "$patched/.git/pmaps-stamp"
fi

for cfg in $configs; do
	out=$build/kernel-$cfg
	fragments=$top/tests/kernel/pmaps.config
	# make, here or (arm64) in the trixie root
	mk=make image=arch/x86/boot/bzImage target=bzImage
	case $cfg in
	arm64)
		fragments="$fragments $top/tests/kernel/leaks.config $top/tests/kernel/arm64.config"
		# The tree, the fragments and the build directory, as the
		# root sees them: under the same paths.
		bind=$top
		case $build/ in "$top"/*) ;; *) bind="$bind $build" ;; esac
		mk="env PMAPS_BIND=$bind $top/tests/trixie-root.sh run make"
		image=arch/arm64/boot/Image target=Image
		;;
	plain) fragments="$fragments $top/tests/kernel/leaks.config" ;;
	profile) fragments="$fragments $top/tests/kernel/leaks.config $top/tests/kernel/profile.config" ;;
	debug) fragments="$fragments $top/tests/kernel/debug.config" ;;
	nopagemapcount) fragments="$fragments $top/tests/kernel/leaks.config $top/tests/kernel/nopagemapcount.config" ;;
	numa) fragments="$fragments $top/tests/kernel/leaks.config $top/tests/kernel/nopagemapcount.config $top/tests/kernel/numa.config" ;;
	*)
		echo "build.sh: no kernel config '$cfg'" >&2
		exit 2
		;;
	esac
	# A build directory serves while its fragments and tree are the same.
	config_stamp=$( (cat $fragments; git -C "$patched" rev-parse HEAD) | sha256sum | cut -c1-16)
	if [ "$(cat "$out/.pmaps-stamp" 2>/dev/null)" != "$config_stamp" ]; then
		rm -rf "$out"
		mkdir -p "$out"
		if [ "$cfg" = arm64 ]; then
			# Read by the tree's Makefile (Debian's kbuild patch, as
			# in Debian's own arm64 headers), so that every make in
			# this directory, the module's too, cross-builds: the
			# root has gcc-14 and aarch64-linux-gnu-gcc-14, no gcc.
			cat > "$out/.kernelvariables" <<-EOF
			override ARCH = arm64
			override CROSS_COMPILE = aarch64-linux-gnu-
			CC = \$(CROSS_COMPILE)gcc-14
			HOSTCC = gcc-14
			EOF
		fi
		$mk -s -C "$patched" O="$out" tinyconfig >/dev/null
		"$patched/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $fragments >/dev/null
		$mk -s -C "$patched" O="$out" olddefconfig >/dev/null
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
	$mk -s -C "$patched" O="$out" -j"$(nproc)" $target modules >&2
	echo "build.sh: $cfg kernel built in $(($(date +%s) - start)) s" >&2
	echo "patched-$cfg $out/$image $out"
done
