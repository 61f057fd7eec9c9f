#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Package the module with DKMS and build it for every Debian kernel that
# tests/kernels.sh names, printing TAP.  Runs as root; installs dkms (and
# kernel headers and the trixie root, through tests/deps.sh) when missing.
#
# The bookworm kernels (6.1, 6.12, 6.12 rt) are built by the host's dkms
# (3.0), the 7.x ones by trixie's (3.2) inside the trixie root: their
# kbuild tools run only on trixie (tests/trixie-root.sh), and a machine
# with a 7.x kernel is a trixie one.  Each side is one add, build and
# install per kernel, remove cycle.
#
# DKMS runs on private --sourcetree, --dkmstree and --installtree
# directories under a temporary directory, so the host's own DKMS state
# (/usr/src, /var/lib/dkms, /lib/modules) is never touched and a rerun, or
# a run after an interrupted one, starts from nothing.  DKMS's signing key
# (/var/lib/dkms/mok.key) is the one exception: dkms makes it on first use.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive

if ! command -v dkms >/dev/null 2>&1; then
	if [ "${CI:-}" = true ] || ! apt-cache show dkms >/dev/null 2>&1; then
		apt-get update -qq
	fi
	echo "# dkms.sh: installing dkms"
	apt-get install -y -qq dkms > /tmp/dkms-apt.$$ 2>&1 ||
		{ cat /tmp/dkms-apt.$$ >&2; rm -f /tmp/dkms-apt.$$; exit 1; }
	rm -f /tmp/dkms-apt.$$
fi

# The 7.x kernels are the NAME:IMAGE:KDIR lines, built in the trixie root.
troot=${BUILD:-$top/build}/trixie-root
all=$("$top/tests/kernels.sh" 2>/dev/null) && [ -x "$troot/usr/sbin/dkms" ] ||
	{ "$top/tests/deps.sh" >&2 && all=$("$top/tests/kernels.sh"); }
kernels=$(echo "$all" | grep -v :)
root_kernels=$(echo "$all" | sed -n 's/^\([^:]*\):.*/\1/p')
for rel in $kernels; do
	if [ ! -d "/usr/src/linux-headers-$rel" ]; then
		"$top/tests/deps.sh" >&2
		break
	fi
done

. "$top/tests/tap-host.sh"
host_tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmaps-dkms.XXXXXX")
root_tmp=$(mktemp -d "$troot/tmp/pmaps-dkms.XXXXXX")
trap 'rm -rf "$host_tmp" "$root_tmp"' EXIT INT TERM

# Copy the module's sources to $1.  Only tracked and new unignored files:
# in-tree build output (*.o, .cmd, probes.h) made for another kernel must
# not reach the DKMS build.
copy_sources() {
	mkdir -p "$1"
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$top" && git ls-files -co --exclude-standard -- \
			Kbuild Makefile dkms.conf module) |
			(cd "$top" && xargs cp --parents -t "$1")
	else
		(cd "$top" && find Kbuild Makefile dkms.conf module -type f \
			! -name '*.o' ! -name '*.cmd' ! -name '*.ko' ! -name probes.h) |
			(cd "$top" && xargs cp --parents -t "$1")
	fi
}

# cycle WHERE TMP DKMS KERNEL...: add, build and install for each KERNEL,
# and remove, in private trees under TMP.  DKMS is the command that runs
# dkms; inside the root it sees TMP as $dir.  WHERE names the side in the
# TAP lines.  --kernelsourcedir, because dkms 3.2 looks for the headers
# under the private --installtree.
cycle() {
	where=$1 tmp=$2 dkms=$3
	shift 3
	dir=${tmp#"$troot"}
	src=$dir/src/$name-$version
	copy_sources "$tmp/src/$name-$version"
	mkdir -p "$tmp/dkms" "$tmp/install"
	tree="--sourcetree $dir/src --dkmstree $dir/dkms --installtree $dir/install"
	log=$tmp/add.log
	# shellcheck disable=SC2086
	if $dkms add $tree "$src" > "$log" 2>&1; then
		ok "dkms add $name/$version ($where)"
	else
		not_ok "dkms add $name/$version ($where)" "$log"
	fi

	for rel in "$@"; do
		what="dkms build $name/$version for $rel"
		log=$tmp/build-$rel.log
		mod=$tmp/dkms/$name/$version/$rel/x86_64/module
		# Install into the private tree too: it checks DEST_MODULE_LOCATION.
		# --no-depmod, because depmod would work on the real /lib/modules.
		mkdir -p "$tmp/install/$rel"
		# shellcheck disable=SC2086
		if ! $dkms build $tree -m "$name" -v "$version" -k "$rel" \
			--kernelsourcedir "/usr/src/linux-headers-$rel" > "$log" 2>&1; then
			make_log=$tmp/dkms/$name/$version/build/make.log
			[ -f "$make_log" ] && cat "$make_log" >> "$log"
			not_ok "$what" "$log"
		# Kernels with CONFIG_MODULE_COMPRESS (6.12) get pmaps_ext.ko.xz.
		elif ko=$(find "$mod" -name "$name.ko*" 2>/dev/null | head -n 1) &&
			[ -z "$ko" ]; then
			ls -l "$mod" >> "$log" 2>&1 || true
			not_ok "$what: no $name.ko" "$log"
		elif [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$rel" ]; then
			modinfo "$ko" >> "$log"
			not_ok "$what: vermagic is not $rel" "$log"
		elif [ ! -s "$tmp/dkms/$name/$version/$rel/x86_64/log/make.log" ]; then
			# no log is no evidence of a clean build
			not_ok "$what: no make.log to check for warnings" "$log"
		elif grep -E 'warning:|error:' \
			"$tmp/dkms/$name/$version/$rel/x86_64/log/make.log" >> "$log"; then
			not_ok "$what: compiler warnings" "$log"
		elif ! $dkms install $tree --no-depmod -m "$name" -v "$version" \
			-k "$rel" --kernelsourcedir "/usr/src/linux-headers-$rel" \
			>> "$log" 2>&1 ||
			! ls "$tmp/install/$rel/updates/dkms/$name.ko"* >/dev/null 2>&1; then
			not_ok "$what: dkms install into updates/dkms" "$log"
		else
			ok "$what"
		fi
	done

	log=$tmp/remove.log
	# shellcheck disable=SC2086
	if $dkms remove $tree --no-depmod -m "$name" -v "$version" --all \
		> "$log" 2>&1 && [ ! -e "$tmp/dkms/$name/$version" ]; then
		ok "dkms remove --all ($where)"
	else
		not_ok "dkms remove --all ($where)" "$log"
	fi
}

tap_plan $(($(echo $kernels $root_kernels | wc -w) + 4))
# shellcheck disable=SC2086
cycle host "$host_tmp" dkms $kernels
# shellcheck disable=SC2086
cycle "trixie root" "$root_tmp" "$top/tests/trixie-root.sh run dkms" $root_kernels

tap_done
