#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every pmaps command read without root (issue 15): a target running as
# user 65534 with known memory, read by pmaps as user 65534 from
# /proc/PID/pagemap alone (--source=pagemap, so that a loaded module or a
# patched kernel changes nothing).  Nothing may claim to know what that
# reader cannot: page state is '?', and each command says so.  Prints TAP.
# PMAPS names the binary (default: built with make -C userspace); CC builds
# the target.  Needs root (to become user 65534) and setpriv(1); top's
# tests need tmux.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
sock=$tmp/tmux.sock
cleanup() {
	[ -n "$target_pid" ] && kill "$target_pid" 2>/dev/null
	command -v tmux > /dev/null && tmux -S "$sock" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

tests="nonroot_header_says_without_root nonroot_written_pages_unknown_flags
	nonroot_zero_pages_not_listed nonroot_map_notes nonroot_map_draws_unknown
	nonroot_watch_totals_unknown nonroot_top_screen nonroot_top_dump
	nonroot_wss_clear_refs nonroot_wss_without_clear_refs_says_what_works
	nonroot_diff_same nonroot_diff_notes_unknown"

nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"

# 0.1 s apart: 30 s for pmaps, 5 min for pmaps under valgrind
polls=$((300 * slow))

# The target: 16 written anonymous pages, and 8 read-only ones that map
# the shared zero page, each VMA between two PROT_NONE pages of its own,
# so that no neighbour merges with it.  It prints both addresses and the
# page size, then waits: its memory no longer changes.
cat > "$tmp/target.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *guarded(size_t pages, int prot, size_t ps)
{
	char *p = mmap(NULL, (pages + 2) * ps, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mprotect(p + ps, pages * ps, prot))
		return NULL;
	return p + ps;
}

int main(void)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), i;
	char *anon = guarded(16, PROT_READ | PROT_WRITE, ps);
	char *zero = guarded(8, PROT_READ, ps);
	volatile char sum = 0;

	if (!anon || !zero)
		return 1;
	memset(anon, 0x5a, 16 * ps);
	for (i = 0; i < 8; i++)
		sum += zero[i * ps];
	printf("%lx %lx %zu\n", (unsigned long)anon, (unsigned long)zero, ps);
	fflush(stdout);
	for (;;)
		pause();
}
EOF

# start_target: build the target, start it as user 65534 (setpriv execs
# it: $! is its PID) and wait for its layout.
start_target() {
	${CC:-cc} -O2 -o "$tmp/nr-target" "$tmp/target.c" 2> "$tmp/err" || {
		echo "# the target does not build"
		diag "$tmp/err"
		return 1
	}
	$nobody "$tmp/nr-target" > "$tmp/layout" &
	target_pid=$!
	i=0
	while [ ! -s "$tmp/layout" ]; do
		if ! alive "$target_pid" || [ $i -ge $polls ]; then
			echo "# the target wrote no layout"
			kill -KILL "$target_pid" 2> /dev/null
			target_pid=
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
	read -r anon zero psize < "$tmp/layout"
}

# as_nobody CMD...: run CMD as user 65534, as run does
as_nobody() {
	run $nobody "$@"
}

if [ "$(id -u)" != 0 ]; then
	for t in $tests; do skip "$t" "needs root, to become user 65534"; done
	tap_done
	exit
fi
if ! command -v setpriv > /dev/null; then
	lacks "setpriv(1)" $tests
	tap_done
	exit
fi

# User 65534 must reach the binary and the target: $tmp (mktemp, 0700)
# opens to it, and a binary under a directory it cannot enter is copied
# there.
chmod 755 "$tmp"
if ! $nobody "$PMAPS" --version > /dev/null 2>&1; then
	cp "$PMAPS" "$tmp/pmaps" && chmod 755 "$tmp/pmaps" && PMAPS=$tmp/pmaps
fi
if ! as_nobody "$PMAPS" --version || [ "$rc" != 0 ]; then
	# the test's set-up failed, which is no fact about this machine
	for t in $tests; do not_ok "$t"; done
	echo "# user 65534 cannot run $PMAPS (status $rc):"
	diag "$tmp/err"
	tap_done
	exit
fi
if ! start_target; then
	for t in $tests; do not_ok "$t"; done
	echo "# could not start the target as user 65534"
	tap_done
	exit
fi

hex() {
	printf '%x' "$1"
}
anon_end=$(hex $((0x$anon + 16 * psize)))
zero_end=$(hex $((0x$zero + 8 * psize)))
pid=$target_pid

# ---- the default view ----

as_nobody "$PMAPS" --source=pagemap "$pid"
cp "$tmp/out" "$tmp/default"
header=$(head -n 1 "$tmp/default")
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	printf '%s\n' "$header" | grep -Eqx "$pid \(nr-target\): source pagemap \((PAGEMAP_SCAN|pagemap), without root\)"
result nonroot_header_says_without_root
scan=
case $header in *PAGEMAP_SCAN*) scan=1 ;; esac

# The 16 written pages: one range, every letter '?', mapcount 1 (pagemap
# says PM_MMAP_EXCLUSIVE); the totals cannot know any state.
grep -A1 "^0*$anon-0*$anon_end rw-p " "$tmp/default" | sed -n 2p |
	grep -Eqx "  0*$anon-0*$anon_end +64\.0K \?{7} +1" &&
	tail -n 1 "$tmp/default" | grep -q "  young -  referenced -  active -  pte-dirty -  dirty -  writeback -  shared -  "
result nonroot_written_pages_unknown_flags
[ -s "$tmp/default" ] && grep -A1 "^0*$anon-" "$tmp/default" | diag

# The zero page is no page of the process's: PAGEMAP_SCAN leaves it out.
# Without PAGEMAP_SCAN pagemap cannot tell it from others.
if [ -z "$scan" ] && qemu_user_refuses PAGEMAP_SCAN "$PMAPS" --source=pagemap "$pid"; then
	skip nonroot_zero_pages_not_listed "$qemu_refused: the zero page is listed"
elif [ -z "$scan" ]; then
	skip nonroot_zero_pages_not_listed "no PAGEMAP_SCAN (kernel before 6.7): the zero page is listed"
else
	grep -A1 "^0*$zero-0*$zero_end r--p " "$tmp/default" > "$tmp/zero"
	[ "$(wc -l < "$tmp/zero")" = 2 ] &&
		sed -n 2p "$tmp/zero" | grep -qv '^  '
	result nonroot_zero_pages_not_listed
fi

# ---- map ----

as_nobody "$PMAPS" map --source=pagemap --color=never -w 80 "$pid"
grep -qx "note: PG_dirty, writeback: not known ('?') for some pages, drawn as ? where no other state is known" "$tmp/out" &&
	grep -qx "note: young: not known from source pagemap, not shown" "$tmp/out" &&
	grep -qx "note: thp, mTHP: not shown (/proc/kpageflags needs root)" "$tmp/out" &&
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ]
result nonroot_map_notes

# No page is clean: 16 pages, 8 characters of '?'; the legend names it.
grep -qx "        ? resident, state not known ('?')" "$tmp/out" &&
	grep -A1 "^0*$anon-0*$anon_end rw-p " "$tmp/out" | sed -n 2p |
	grep -qx "  0*$anon ????????" &&
	! grep -q '^  [0-9a-f]\{8,\} .*[CcYyDd]' "$tmp/out"
result nonroot_map_draws_unknown

# ---- watch ----

as_nobody "$PMAPS" watch --source=pagemap -n 2 -i 0.1 "$pid"
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$(grep -c '^=== frame' "$tmp/out")" = 2 ] &&
	grep -Eqx 'total pages: resident [0-9]+  dirty -  young -' "$tmp/out" &&
	grep -Eqx 'total pages: resident [0-9]+ \(\+0\)  dirty -  young -  changed \+0 -0 D0 Y0' "$tmp/out" &&
	grep -q "source pagemap (.*without root)" "$tmp/out"
result nonroot_watch_totals_unknown

# ---- top ----

if ! command -v tmux > /dev/null; then
	lacks tmux nonroot_top_screen nonroot_top_dump
else
	cat > "$tmp/run-top" <<EOF
#!/bin/sh
$nobody "$PMAPS" top --source=pagemap "$pid"
echo "pmaps top exited with status \$?"
exec sleep 3600
EOF
	chmod +x "$tmp/run-top"
	write_tmux_conf "$tmp/tmux.conf"
	tm() {
		tmux -S "$sock" -f "$tmp/tmux.conf" "$@"
	}
	wait_for() {
		i=0
		while :; do
			tm capture-pane -p -t top > "$tmp/screen" 2> /dev/null
			grep -qF -- "$1" "$tmp/screen" && return 0
			i=$((i + 1))
			[ $i -ge $polls ] && return 1
			sleep 0.1
		done
	}
	result_diag="diag $tmp/screen"
	tm new-session -d -s top -x 120 -y 40 "$tmp/run-top"
	# The bar at the bottom, written last: a capture once caught the
	# title alone, the rest not yet written (valgrind).
	wait_for " row 1/" &&
		grep -q "source pagemap (.*without root)" "$tmp/screen" &&
		grep -q "young -  referenced -  active -  pte-dirty -  dirty -" "$tmp/screen"
	result nonroot_top_screen

	# The owner may read /proc/PID/mem: Enter dumps the written page.
	tm send-keys -t top /
	tm send-keys -t top -l "$anon"
	tm send-keys -t top Enter
	# The bar, drawn last: a capture taken while ncurses was still
	# drawing showed the dump's first line over the list (valgrind).
	wait_for "page 0x$anon" && tm send-keys -t top Enter &&
		wait_for "dump of page 0x$anon" &&
		grep -q "bytes read from /proc/$pid/mem" "$tmp/screen" &&
		grep -q "5a 5a 5a 5a 5a 5a 5a 5a  5a 5a 5a 5a 5a 5a 5a 5a  |ZZZZZZZZZZZZZZZZ|" "$tmp/screen" &&
		tm send-keys -t top q && tm send-keys -t top q &&
		wait_for "pmaps top exited with status" &&
		grep -qx "pmaps top exited with status 0" "$tmp/screen"
	result nonroot_top_dump
	result_diag=
fi

# ---- wss ----

# clear_refs of one's own process is the owner's to write; smaps
# Referenced counts what was accessed.
as_nobody "$PMAPS" wss --source=pagemap --clear-refs -i 0.2 "$pid"
[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] &&
	sed -n 1p "$tmp/out" | grep -qx "$pid (nr-target): clear_refs, then smaps Referenced (source pagemap, which cannot see young bits)" &&
	grep -Eq '^total +[0-9]+ +[0-9]+ +[0-9]+$' "$tmp/out"
result nonroot_wss_clear_refs

# Without --clear-refs: idle page tracking, which needs root; the message
# says that --clear-refs works.
as_nobody "$PMAPS" wss -i 0.2 "$pid"
if [ -e /sys/kernel/mm/page_idle/bitmap ]; then
	[ "$rc" = 1 ] && [ ! -s "$tmp/out" ] &&
		grep -qx "pmaps wss: /sys/kernel/mm/page_idle/bitmap: Permission denied (idle page tracking needs root; --clear-refs works for your own processes)" "$tmp/err"
else
	[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] &&
		grep -q "^pmaps wss: measuring needs --clear-refs: idle page tracking is not available" "$tmp/err"
fi
result nonroot_wss_without_clear_refs_says_what_works

# ---- diff ----

# Two snapshots of the waiting target, text and JSON: the same pages; but
# '?' on both sides hides any change of state, and a note says so.
$nobody "$PMAPS" --source=pagemap --raw "$pid" > "$tmp/a.pmaps" &&
	$nobody "$PMAPS" --source=pagemap --json "$pid" > "$tmp/b.json"
as_nobody "$PMAPS" diff "$tmp/a.pmaps" "$tmp/b.json"
printf 'summary\t%s\t0\n' pages_appeared pages_disappeared pages_changed \
	mapcount_changed vmas_appeared vmas_disappeared > "$tmp/same"
[ "$rc" = 0 ] && cmp -s "$tmp/out" "$tmp/same"
result nonroot_diff_same
[ "$(cat "$tmp/err")" = "pmaps diff: note: '?' (not known) in both A and B for some pages, so their changes cannot be seen: young, referenced, active, uptodate, pte-dirty, dirty, writeback, mapcount" ]
result nonroot_diff_notes_unknown

tap_done
