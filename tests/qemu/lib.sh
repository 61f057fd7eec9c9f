# SPDX-License-Identifier: GPL-2.0
#
# What the guest harness's scripts share (tests/qemu/run.sh, arm64.sh and
# tests/mutants/run.sh); sourced.  Needs $top, $build and $troot (the
# trixie root, tests/trixie-root.sh).
#
#   kernel_spec SPEC    sets rel, image and kdir from a KERNEL argument of
#                       tests/qemu/run.sh: a Debian release (its
#                       /boot/vmlinuz and /usr/src/linux-headers) or
#                       NAME:IMAGE:KDIR
#   kernel_problems     the console lines that are a kernel problem, as an
#                       extended regular expression (tests/qemu/init greps
#                       the guest's dmesg for the same)
#   kernel_arch KDIR    arm64 or amd64: what the headers in KDIR are for
#   build_module TAG KDIR [FROM]
#                       the module of tree FROM (default $top: its Kbuild
#                       and module/) built with W=1, and with the test
#                       hooks the guest suites use unless MODULE_HOOKS=n,
#                       in a private copy named after TAG, $module_dir,
#                       so that kernels and mutants never share objects;
#                       false, with the build log printed, when the build
#                       fails or warns.  $module_dir/pmaps_ext.ko is the
#                       module.
#
# The 7.x kernels' kbuild tools run only inside the trixie root, so for a
# KDIR there the copy goes into the root and make runs chrooted there
# (tests/trixie-root.sh run), with the paths as the root sees them.  An
# arm64 KDIR built here (tests/kernel/build.sh arm64) is built for in the
# root too, where the cross compiler is, with $build bound at its own
# path.  A copy whose sources, headers and flags are those of its last
# build is not built again: the harness's self-tests and make check's
# steps build the same module for the same kernel many times.

kernel_problems='BUG:|WARNING:|Oops|soft lockup|Kernel panic|Call Trace|detected stalls|blocked for more than'

kernel_spec() {
	case $1 in
	*:*:*)
		rel=${1%%:*}
		image=${1#*:}
		kdir=${image#*:}
		image=${image%%:*}
		;;
	*)
		rel=$1
		image=/boot/vmlinuz-$rel
		kdir=/usr/src/linux-headers-$rel
		;;
	esac
}

kernel_arch() {
	if grep -q '^CONFIG_ARM64=y' "$1/.config" 2>/dev/null; then
		echo arm64
	else
		echo amd64
	fi
}

build_module() {
	from=${3:-$top}
	module_dir=$build/module-$1 module_in=
	module_arch=$(kernel_arch "$2")
	case $2 in
	"$troot"/*)
		# a root may be shared (tests/mutants links it): one copy per build
		module_dir=$troot/tmp/module-$1.$(printf '%s' "$build" | cksum | cut -d' ' -f1)
		module_in="$top/tests/trixie-root.sh run" ;;
	*)
		[ "$module_arch" = arm64 ] &&
			module_in="env PMAPS_BIND=$build $top/tests/trixie-root.sh run" ;;
	esac
	module_flags="W=1"
	[ "${MODULE_HOOKS:-y}" = n ] || module_flags="$module_flags PMAPS_TEST_HOOKS=y"
	[ "$module_arch" = arm64 ] &&
		module_flags="$module_flags ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
	# What the build depends on: the sources, the headers' config and
	# symbols (a patched kernel rebuilt in the same directory has new
	# ones), and the flags.
	module_stamp=$( { (cd "$from" && find Kbuild module -type f ! -name '*.o' |
			LC_ALL=C sort | xargs cat)
		cat "$2/.config" "$2/Module.symvers" 2>/dev/null
		echo "$2 $module_flags"; } | cksum)
	if [ -f "$module_dir/pmaps_ext.ko" ] &&
		[ "$(cat "$module_dir/.pmaps-stamp" 2>/dev/null)" = "$module_stamp" ]; then
		return 0
	fi
	rm -rf "$module_dir"
	mkdir -p "$module_dir"
	cp -r "$from/Kbuild" "$from/module" "$module_dir/"
	# shellcheck disable=SC2086 # the flags are words
	$module_in make -s -C "${2#"$troot"}" M="${module_dir#"$troot"}" \
		$module_flags modules > "$module_dir/build.log" 2>&1
	module_status=$?
	if [ $module_status -ne 0 ] || grep -qE 'warning:|error:' "$module_dir/build.log"; then
		cat "$module_dir/build.log"
		return 1
	fi
	echo "$module_stamp" > "$module_dir/.pmaps-stamp"
}
