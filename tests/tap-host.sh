# SPDX-License-Identifier: GPL-2.0
# Sourced by the host-side TAP scripts outside tests/unit (deb.sh,
# dkms.sh): their result helpers and what dkms.conf says, written once.
#
# ok TEST, not_ok TEST [LOG]: the next result; not_ok adds LOG's last 40
# lines as TAP comments and counts the failure in $failed.  $top is set.

n=0 failed=0
ok() {
	n=$((n + 1))
	echo "ok $n $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
	[ -n "${2:-}" ] && [ -f "$2" ] && tail -n 40 "$2" | sed 's/^/# /'
	return 0
}

# dkms.conf is the one place the module's name and version are written.
dkms_conf() {
	sed -n "s/^$1=\"*\\([^\"]*\\)\"*\$/\\1/p" "$top/dkms.conf"
}
name=$(dkms_conf PACKAGE_NAME)
version=$(dkms_conf PACKAGE_VERSION)
