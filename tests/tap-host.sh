# SPDX-License-Identifier: GPL-2.0
# Sourced by the host-side TAP scripts outside tests/unit (deb.sh,
# dkms.sh): tests/tap.sh's results, and what dkms.conf says, written
# once.  $top is set.

. "$top/tests/tap.sh"

# dkms.conf is the one place the module's name and version are written.
dkms_conf() {
	sed -n "s/^$1=\"*\\([^\"]*\\)\"*\$/\\1/p" "$top/dkms.conf"
}
name=$(dkms_conf PACKAGE_NAME)
version=$(dkms_conf PACKAGE_VERSION)
