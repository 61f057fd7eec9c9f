#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Try both series of patches/ on the upstream tag the imported Debian tree
# corresponds to (tests/kernel/tree.sh): the orig tarball of Debian's
# "linux" source package of the same version is upstream's release as
# Debian ships it.  Its name and sha256 come from trixie-backports'
# Sources index on this machine's apt mirror (tests/apt-mirror.sh), that
# index checked against the InRelease apt verified in the trixie root.
# Everything downloaded stays in build/upstream.  The tarball is imported
# as a git tree (branch "upstream") and the series applied there with git
# apply --check, one patch at a time on top of the ones before, then with
# git am -3, in build.sh's order.
#
#   tests/kernel/upstream.sh
#
# Exit 0 when both series apply with git am, 1 when one does not, 2 when
# the tarball cannot be had.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
dir=$build/upstream
troot=$build/trixie-root
suite=trixie-backports

tarball=$("$top/tests/linux-source.sh" 7) || exit 2
version=$(cat "${tarball%.tar.xz}.version")
mirror=$("$top/tests/apt-mirror.sh" 2>/dev/null) || exit 2
mkdir -p "$dir"
echo "upstream.sh: Debian linux $version, from $mirror $suite"

inrelease=$(ls "$troot/var/lib/apt/lists/"*"_dists_${suite}_InRelease" 2>/dev/null | head -n 1)
[ -n "$inrelease" ] || { echo "upstream.sh: no $suite InRelease in $troot"; exit 2; }
want=$(awk '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 } s && $3 == "main/source/Sources.xz" { print $1 }' "$inrelease")
curl -fsS -o "$dir/Sources.xz" "$mirror/dists/$suite/main/source/Sources.xz" ||
	{ echo "upstream.sh: cannot fetch $suite's Sources.xz"; exit 2; }
echo "$want  $dir/Sources.xz" | sha256sum -c --quiet ||
	{ echo "upstream.sh: Sources.xz does not match $inrelease"; exit 2; }

# "DIRECTORY SHA256 NAME" of the orig tarball in the stanza of linux $version.
# shellcheck disable=SC2046 # three words, split on purpose
set -- $(xz -dc "$dir/Sources.xz" | awk -v v="$version" '
	/^Package: / { pkg = $2; ver = ""; d = ""; sha = ""; name = "" }
	/^Version: / { ver = $2 }
	/^Directory: / { d = $2 }
	/^Checksums-Sha256:/ { c = 1; next }
	/^[^ ]/ { c = 0 }
	c && $3 ~ /\.orig\.tar\.xz$/ { sha = $1; name = $3 }
	/^$/ { if (pkg == "linux" && ver == v && name != "") { print d, sha, name; exit } }')
[ $# = 3 ] || { echo "upstream.sh: no linux $version with an orig tarball in $suite's Sources"; exit 2; }
path=$1 sha=$2 orig=$3
upver=${orig#linux_}
upver=${upver%.orig.tar.xz}
echo "upstream.sh: upstream $upver is $mirror/$path/$orig, sha256 $sha"
if [ ! -f "$dir/$orig" ]; then
	code=$(curl -sS -o "$dir/$orig.tmp" -w '%{http_code}' "$mirror/$path/$orig")
	if [ "$code" != 200 ]; then
		rm -f "$dir/$orig.tmp"
		echo "upstream.sh: $mirror/$path/$orig: HTTP $code"
		exit 2
	fi
	echo "$sha  $dir/$orig.tmp" | sha256sum -c --quiet ||
		{ echo "upstream.sh: $orig does not match Sources"; exit 2; }
	mv "$dir/$orig.tmp" "$dir/$orig"
fi

tree=$dir/linux-$upver
if [ ! -d "$tree/.git" ]; then
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$dir/$orig" -C "$tree" --strip-components=1
	git -C "$tree" init -q -b upstream
	git -C "$tree" add -A -f .
	GIT_AUTHOR_NAME=pmaps_ext GIT_AUTHOR_EMAIL=pmaps_ext@invalid \
	GIT_COMMITTER_NAME=pmaps_ext GIT_COMMITTER_EMAIL=pmaps_ext@invalid \
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$tree" commit -q -m "Linux $upver ($orig)"
fi
git -C "$tree" am --abort 2>/dev/null
git -C "$tree" checkout -q -f -B series upstream
git -C "$tree" config user.name pmaps_ext
git -C "$tree" config user.email pmaps_ext@invalid
for d in "$top/patches" "$top/patches/pagemap-scan"; do
	for p in $(sed -n '/^[^#]/p' "$d/series"); do
		if git -C "$tree" apply --check "$d/$p" 2>/dev/null; then
			echo "ok - git apply --check ${d#"$top"/}/$p"
		else
			echo "not ok - git apply --check ${d#"$top"/}/$p"
		fi
		git -C "$tree" am -q -3 "$d/$p" >/dev/null 2>&1 || {
			echo "not ok - git am -3 ${d#"$top"/}/$p"
			git -C "$tree" am --abort
			exit 1
		}
	done
done
echo "upstream.sh: both series apply to $upver with git am -3"
exit 0
