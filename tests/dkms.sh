#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Package the module with DKMS and build it for every bookworm kernel that
# tests/kernels.sh names (6.1, 6.12, 6.12 rt), printing TAP.  Runs as
# root; installs dkms (and kernel headers, through tests/deps.sh) when
# missing.
#
# Not the 7.x kernels: host DKMS would run their kbuild tools, which only
# run on trixie (tests/trixie-root.sh), and a 7.x machine is a trixie one,
# whose own dkms would build there.  tests/qemu/run.sh builds the module
# for them inside the trixie root, with the same warning check.
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

kernels=$("$top/tests/kernels.sh" bookworm)
for rel in $kernels; do
	if [ ! -d "/usr/src/linux-headers-$rel" ]; then
		"$top/tests/deps.sh" >&2
		break
	fi
done

# dkms.conf is the one place the version is written.
name=$(sed -n 's/^PACKAGE_NAME="*\([^"]*\)"*$/\1/p' "$top/dkms.conf")
version=$(sed -n 's/^PACKAGE_VERSION="*\([^"]*\)"*$/\1/p' "$top/dkms.conf")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmaps-dkms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
src=$tmp/src/$name-$version
mkdir -p "$src" "$tmp/dkms" "$tmp/install"
tree="--sourcetree $tmp/src --dkmstree $tmp/dkms --installtree $tmp/install"

# Only tracked and new unignored files: in-tree build output (*.o, .cmd,
# probes.h) made for another kernel must not reach the DKMS build.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -co --exclude-standard -- \
		Kbuild Makefile dkms.conf module) |
		(cd "$top" && xargs cp --parents -t "$src")
else
	(cd "$top" && find Kbuild Makefile dkms.conf module -type f \
		! -name '*.o' ! -name '*.cmd' ! -name '*.ko' ! -name probes.h) |
		(cd "$top" && xargs cp --parents -t "$src")
fi

n=0 failed=0
ok() {
	n=$((n + 1))
	echo "ok $n $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
	[ -f "$2" ] && sed 's/^/# /' "$2"
	return 0
}

echo "1..$(($(echo "$kernels" | wc -w) + 2))"

log=$tmp/add.log
# shellcheck disable=SC2086
if dkms add $tree "$src" > "$log" 2>&1; then
	ok "dkms add $name/$version"
else
	not_ok "dkms add $name/$version" "$log"
fi

for rel in $kernels; do
	what="dkms build $name/$version for $rel"
	log=$tmp/build-$rel.log
	mod=$tmp/dkms/$name/$version/$rel/x86_64/module
	# Install into the private tree too: it checks DEST_MODULE_LOCATION.
	# --no-depmod, because depmod would work on the real /lib/modules.
	mkdir -p "$tmp/install/$rel"
	# shellcheck disable=SC2086
	if ! dkms build $tree -m "$name" -v "$version" -k "$rel" > "$log" 2>&1; then
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
	elif grep -E 'warning:|error:' \
		"$tmp/dkms/$name/$version/$rel/x86_64/log/make.log" >> "$log"; then
		not_ok "$what: compiler warnings" "$log"
	elif ! dkms install $tree --no-depmod -m "$name" -v "$version" \
		-k "$rel" >> "$log" 2>&1 ||
		! ls "$tmp/install/$rel/updates/dkms/$name.ko"* >/dev/null 2>&1; then
		not_ok "$what: dkms install into updates/dkms" "$log"
	else
		ok "$what"
	fi
done

log=$tmp/remove.log
# shellcheck disable=SC2086
if dkms remove $tree --no-depmod -m "$name" -v "$version" --all \
	> "$log" 2>&1 && [ ! -e "$tmp/dkms/$name/$version" ]; then
	ok "dkms remove --all"
else
	not_ok "dkms remove --all" "$log"
fi

[ "$failed" -eq 0 ]
