#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Debian mirror this machine's apt uses, for debootstrap and the roots
# it makes (tests/deb.sh, tests/trixie-root.sh), so that a user's own
# mirror or proxy serves them too.
#
#   tests/apt-mirror.sh [archive|security]
#
# Prints the URI of the first enabled "deb" source, in apt's order
# (sources.list, then sources.list.d/ by name; one-line .list files and
# deb822 .sources alike), whose suite is a Debian release (archive:
# bookworm, trixie-updates, ...; security: bookworm-security, ...) with the
# component main, and says on stderr which it used and from which file.
# DEBIAN_MIRROR (archive) and DEBIAN_SECURITY_MIRROR (security) override
# the sources.  When none is found it says so, and what to set, and fails.
# APT_ETC (default /etc/apt) is where the sources are read from.
set -u
kind=${1:-archive}
etc=${APT_ETC:-/etc/apt}
case $kind in
archive) var=DEBIAN_MIRROR ;;
security) var=DEBIAN_SECURITY_MIRROR ;;
*)
	echo "apt-mirror.sh: expected archive or security, got '$kind'" >&2
	exit 2
	;;
esac
eval "override=\${$var:-}"
if [ -n "$override" ]; then
	echo "apt-mirror.sh: Debian $kind mirror $override (from \$$var)" >&2
	echo "$override"
	exit 0
fi

for f in "$etc/sources.list" "$etc"/sources.list.d/*; do
	case $f in
	*.list | *.sources) [ -f "$f" ] || continue ;;
	*) continue ;;
	esac
	uri=$(awk -v kind="$kind" -v deb822="$(case $f in *.sources) echo 1 ;; esac)" '
	# A Debian release, as apt sources name it.
	function debian_suite(s,    base) {
		base = s
		if (kind == "security") {
			if (!sub(/-security$/, "", base) && !sub(/\/updates$/, "", base))
				return 0
		} else {
			sub(/-(updates|backports|proposed-updates)$/, "", base)
		}
		return base ~ /^(jessie|stretch|buster|bullseye|bookworm|trixie|forky|duke|sid|oldoldstable|oldstable|stable|testing|unstable)$/
	}
	function usable(u) { return u ~ /^(https?:\/\/|file:\/)/ }
	function has_main(list,    n, i, c) {
		n = split(list, c, /[ \t]+/)
		for (i = 1; i <= n; i++)
			if (c[i] == "main")
				return 1
		return 0
	}
	function found(u) {
		sub(/\/+$/, "", u)
		print u
		done = 1
		exit
	}
	# deb822: a paragraph per source, "Key: value", continued on lines
	# that start with a blank.
	function paragraph(    nt, t, ns, s, nu, u, i, j, k, deb) {
		if (enabled == "no" || !has_main(comps))
			return
		nt = split(types, t, /[ \t]+/)
		for (i = 1; i <= nt; i++)
			if (t[i] == "deb")
				deb = 1
		if (!deb)
			return
		ns = split(suites, s, /[ \t]+/)
		nu = split(uris, u, /[ \t]+/)
		for (j = 1; j <= ns; j++)
			if (debian_suite(s[j]))
				for (k = 1; k <= nu; k++)
					if (usable(u[k]))
						found(u[k])
	}
	function reset() { types = uris = suites = comps = enabled = ""; key = "" }
	BEGIN { reset() }
	deb822 && /^[ \t]*#/ { next }
	deb822 && /^[ \t]*$/ { paragraph(); reset(); next }
	deb822 && /^[ \t]/ {
		if (key == "types") types = types " " $0
		if (key == "uris") uris = uris " " $0
		if (key == "suites") suites = suites " " $0
		if (key == "components") comps = comps " " $0
		next
	}
	deb822 {
		key = tolower($0)
		sub(/:.*/, "", key)
		v = $0
		sub(/^[^:]*:[ \t]*/, "", v)
		if (key == "types") types = v
		else if (key == "uris") uris = v
		else if (key == "suites") suites = v
		else if (key == "components") comps = v
		else if (key == "enabled") enabled = tolower(v)
		next
	}
	END { if (deb822 && !done) paragraph() }
	# One-line: deb [OPTIONS] URI SUITE COMPONENT...
	!deb822 {
		sub(/#.*/, "")
		if ($1 != "deb")
			next
		i = 2
		if ($i ~ /^\[/) {
			while (i <= NF && $i !~ /\]$/)
				i++
			i++
		}
		c = ""
		for (j = i + 2; j <= NF; j++)
			c = c " " $j
		if (usable($i) && debian_suite($(i + 1)) && has_main(c))
			found($i)
	}' "$f")
	if [ -n "$uri" ]; then
		echo "apt-mirror.sh: Debian $kind mirror $uri (from $f)" >&2
		echo "$uri"
		exit 0
	fi
done
echo "apt-mirror.sh: no Debian $kind mirror in the apt sources ($etc/sources.list, $etc/sources.list.d/*.list, *.sources): no enabled deb source of a Debian release with main over http, https or file; set $var=URL" >&2
exit 1
