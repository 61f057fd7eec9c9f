#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/apt-mirror.sh, the Debian mirror that tests/deb.sh and
# tests/trixie-root.sh give debootstrap: taken from apt's sources in
# either format (fixtures/apt/*: deb822 .sources, a one-line
# sources.list, a .list in sources.list.d), said on stderr with the file
# it came from, and a clear failure when there is none.  Prints TAP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

apt=$fix/apt
mirror() {
	APT_ETC=$apt/$1 DEBIAN_MIRROR= DEBIAN_SECURITY_MIRROR= \
		run "$top/tests/apt-mirror.sh" $2
}
none_msg() {
	echo "apt-mirror.sh: no Debian $1 mirror in the apt sources ($apt/$2/sources.list, $apt/$2/sources.list.d/*.list, *.sources): no enabled deb source of a Debian release with main over http, https or file; set $3=URL"
}

# Past a third party's source, a disabled one and a deb-src one.
mirror deb822 archive
expect_text deb822_archive 0 "http://mirror.example:3142/debian" \
	"apt-mirror.sh: Debian archive mirror http://mirror.example:3142/debian (from $apt/deb822/sources.list.d/20-debian.sources)"
# URIs: on a line of its own, continued.
mirror deb822 security
expect_text deb822_security 0 "http://security-mirror.example/debian-security" \
	"apt-mirror.sh: Debian security mirror http://security-mirror.example/debian-security (from $apt/deb822/sources.list.d/20-debian.sources)"

# Past a comment, a deb-src line and Docker's "bookworm stable".
mirror oneline archive
expect_text oneline_archive 0 "https://mirror.example/debian" \
	"apt-mirror.sh: Debian archive mirror https://mirror.example/debian (from $apt/oneline/sources.list)"
mirror oneline security
expect_text oneline_security 0 "https://mirror.example/debian-security" \
	"apt-mirror.sh: Debian security mirror https://mirror.example/debian-security (from $apt/oneline/sources.list)"

mirror listd archive
expect_text list_in_sources_list_d 0 "http://ftp.example.org/debian" \
	"apt-mirror.sh: Debian archive mirror http://ftp.example.org/debian (from $apt/listd/sources.list.d/mirror.list)"
mirror listd security
expect_text no_security_source_fails 1 "" \
	"$(none_msg security listd DEBIAN_SECURITY_MIRROR)"

# Ubuntu, a CD-ROM and a third party: no Debian mirror.
mirror none archive
expect_text none_found_fails 1 "" "$(none_msg archive none DEBIAN_MIRROR)"

# No apt configuration at all.
mirror no-such-dir archive
expect_text no_sources_fails 1 "" \
	"$(none_msg archive no-such-dir DEBIAN_MIRROR)"

APT_ETC=$apt/none DEBIAN_MIRROR=http://given.example/debian \
	run "$top/tests/apt-mirror.sh"
expect_text override_says_so 0 "http://given.example/debian" \
	"apt-mirror.sh: Debian archive mirror http://given.example/debian (from \$DEBIAN_MIRROR)"

# Both scripts that run debootstrap ask the helper, and name no mirror.
for s in deb.sh trixie-root.sh; do
	name=$(echo "${s%.sh}" | tr - _)_takes_mirror_from_apt
	grep -q 'tests/apt-mirror.sh' "$top/tests/$s" &&
		! grep -q 'http://deb.debian.org' "$top/tests/$s"
	result "$name"
done

tap_done
