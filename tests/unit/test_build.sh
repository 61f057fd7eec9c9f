#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Building pmaps, as a new user does: a missing library is named by its
# package before any compile (userspace/Makefile, check-deps), and the
# README's package lists, debian/control and the Makefile agree.  Prints
# TAP.  A compiler that lacks headers is played by a wrapper around CC
# that fails, as the compiler would, on an #include of a header in $HIDE.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

real_cc=$(command -v "${CC:-cc}")
cat > "$tmp/cc" <<WRAP
#!/bin/sh
src=
for a; do
	case \$a in
	-) src=\$(cat) ;;
	*.c) src=\$(cat "\$a") ;;
	esac
done
for h in \$HIDE; do
	if printf '%s\n' "\$src" | grep -q "^#include <\$h>"; then
		echo "fatal error: \$h: No such file or directory" >&2
		exit 1
	fi
done
case " \$* " in
*" - "*) printf '%s\n' "\$src" | exec "$real_cc" "\$@" ;;
*) exec "$real_cc" "\$@" ;;
esac
WRAP
chmod +x "$tmp/cc"

# Without dwarf.h and zlib.h: both packages in one line, nothing compiled.
HIDE="dwarf.h elfutils/libdw.h zlib.h" \
	run make -s -C "$top/userspace" O="$tmp/o" CC="$tmp/cc"
head -n 3 "$tmp/err" > "$tmp/err3"
printf '%s\n' \
	"pmaps cannot be built: $tmp/cc finds no zlib.h elfutils/libdw.h dwarf.h." \
	"On Debian or Ubuntu, install what has them:" \
	"    apt-get install zlib1g-dev libdw-dev" > "$tmp/want"
[ "$rc" != 0 ] && cmp -s "$tmp/want" "$tmp/err3" &&
	! grep -q 'fatal error' "$tmp/err" &&
	[ -z "$(find "$tmp/o" -name '*.o')" ]
result missing_headers_named_by_package

# Every header there: the check says nothing and lets the build go on.
HIDE= run make -s -C "$top/userspace" O="$tmp/o" CC="$tmp/cc" check-deps
expect_text all_headers_found_check_is_silent 0 "" ""

# The packages that have them, from the Makefile's BUILD_DEPS.
lib_pkgs=$(sed -n '/^BUILD_DEPS :=/,/^$/p' "$top/userspace/Makefile" |
	grep -o ':[a-z0-9.+-]*' | tr -d : | sort -u)
# debian/control's Build-Depends, as package names apt-get installs.
build_deps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$top/debian/control" |
	sed -e 's/^Build-Depends://' -e '/^[A-Z]/d' | tr ',' '\n' |
	sed -e 's/(.*)//' -e 's/[[:space:]]//g' -e '/^$/d' \
	    -e 's/^debhelper-compat$/debhelper/' \
	    -e 's/^dh-sequence-dkms$/dh-dkms/' | sort -u)
[ -n "$lib_pkgs" ] && [ -n "$build_deps" ] || echo "# nothing parsed"

missing=
for p in $lib_pkgs; do
	printf '%s\n' "$build_deps" | grep -qx "$p" || missing="$missing $p"
done
result_diag="echo # not in debian/control's Build-Depends:$missing"
[ -n "$lib_pkgs" ] && [ -z "$missing" ]
result control_build_depends_every_library
result_diag=

# README, "Debian packages": the apt-get line before make deb installs
# what dpkg-buildpackage needs (dpkg-dev) and every Build-Depends.
readme_deb=$(grep -m1 -A2 '^### Debian packages' "$top/README.md" |
	grep -m1 'apt-get install' | sed 's/.*apt-get install//' |
	tr ' ' '\n' | sed '/^$/d' | sort -u)
want_deb=$(printf '%s\n' dpkg-dev $build_deps | sort -u)
result_diag="echo # README's line: $(echo $readme_deb); wanted: $(echo $want_deb)"
[ -n "$build_deps" ] && [ "$readme_deb" = "$want_deb" ]
result readme_deb_line_is_build_depends
result_diag=

# README, building the reader: the sentence and its apt-get line name
# every library package.
missing=
sentence=$(sed -n '/Building it needs a C11 compiler/,/^$/p' "$top/README.md")
for p in $lib_pkgs; do
	printf '%s\n' "$sentence" | grep -q -- "$p" || missing="$missing $p"
done
result_diag="echo # not in README's sentence on building pmaps:$missing"
[ -n "$sentence" ] && [ -n "$lib_pkgs" ] && [ -z "$missing" ]
result readme_names_every_library
result_diag=

tap_done
