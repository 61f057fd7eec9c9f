#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PSS and USS (issue 32), from each page's mapcount, against the kernel's
# own smaps and smaps_rollup of the same stopped processes.  The target is
# static and unmaps its [vdso] and [vvar], so that no page of it is mapped
# by any process but itself and the child it forks: nothing else can
# change a mapcount while the two are stopped.  It holds anonymous pages
# shared with the child by fork and some written again after it (COW),
# a file of its own mapped twice (and once more in the child), a memfd,
# and a 2 MiB thp where the kernel gives one, shared by fork and then
# written in one page, which splits its PMD: each page then has its own
# mapcount.  As root the pagemap source reads every mapcount from
# kpagecount; as user 65534 shared pages' mapcounts are '?', and every
# total says it is a bound.  Prints TAP.  PMAPS names the binary, CC
# builds the target.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
child_pid=
cleanup() {
	[ -n "$child_pid" ] && kill -KILL "$child_pid" 2>/dev/null
	[ -n "$target_pid" ] && kill -KILL "$target_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

tests="json_vmas_match_smaps json_total_matches_rollup json_ranges_add_up
	summary_matches_smaps totals_line_has_pss tsv_ranges_match_json
	export_uss_matches_rollup export_pss_within_rollup
	group_summary_adds_processes pid_name_group_adds_processes
	nonroot_pss_is_a_bound nonroot_export_leaves_out_pss"

if [ "$(id -u)" != 0 ]; then
	for t in $tests; do
		skip "$t" "needs root: the pagemap source reads mapcounts from kpagecount as root"
	done
	tap_done
	exit
fi

cat > "$tmp/target.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* [vdso] and [vvar] are mapped into every process: drop them */
static void unmap_special(void)
{
	unsigned long s[8], e[8];
	char line[512];
	int n = 0, i;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		exit(1);
	while (n < 8 && fgets(line, sizeof(line), f))
		if ((strstr(line, "[vdso]") || strstr(line, "[vvar")) &&
		    sscanf(line, "%lx-%lx", &s[n], &e[n]) == 2)
			n++;
	fclose(f);
	for (i = 0; i < n; i++)
		if (munmap((void *)s[i], e[i] - s[i]))
			exit(1);
}

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE), i;
	char *anon, *late, *shm, *f1, *f2, *thp;
	volatile char sum = 0;
	int fd, mfd, p[2];
	char c;

	if (argc < 2 || pipe(p))
		return 1;
	unmap_special();
	anon = mmap(NULL, 16 * ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	late = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mfd = memfd_create("pmaps-pss-test", 0);
	fd = open(argv[1], O_RDONLY);
	if (anon == MAP_FAILED || late == MAP_FAILED || mfd < 0 || fd < 0 ||
	    ftruncate(mfd, 8 * ps))
		return 1;
	shm = mmap(NULL, 8 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	f1 = mmap(NULL, 8 * ps, PROT_READ, MAP_SHARED, fd, 0);
	f2 = mmap(NULL, 6 * ps, PROT_READ, MAP_SHARED, fd, 0);
	thp = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED || f1 == MAP_FAILED || f2 == MAP_FAILED ||
	    thp == MAP_FAILED)
		return 1;
	thp = (char *)(((unsigned long)thp + (2 << 20) - 1) & ~((2UL << 20) - 1));
	madvise(thp, 2 << 20, MADV_HUGEPAGE);
	memset(thp, 4, 2 << 20);
	memset(anon, 1, 16 * ps);
	memset(shm, 2, 5 * ps);
	for (i = 0; i < 8; i++)
		sum += f1[i * ps];
	for (i = 0; i < 3; i++)
		sum += f2[i * ps];
	if (!fork()) {
		/* the child: maps f1 alone, and shares the rest */
		munmap(f2, 6 * ps);
		if (write(p[1], "c", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(p[0], &c, 1) != 1)
		return 1;
	/* after fork: private again (COW), or never shared */
	memset(anon, 5, 4 * ps);
	memset(late, 6, 2 * ps);
	thp[5 * ps] = 7;
	printf("%lx\n", (unsigned long)thp);
	fflush(stdout);
	for (;;)
		pause();
	return sum;
}
EOF

dd if=/dev/urandom of="$tmp/data" bs=4096 count=8 2>/dev/null
chmod 755 "$tmp"
chmod 644 "$tmp/data"

fail_all() {
	for t in $tests; do not_ok "$t"; done
	tap_done
	exit
}

# a static target: no shared library, so no page any other process maps
CC="${CC:-cc} -static"
if ! spawn_target pss_target 600 0.05 "$tmp/data"; then
	diag "$tmp/err"
	fail_all
fi
child_pid=$(cat "/proc/$target_pid/task/$target_pid/children" 2>/dev/null)
child_pid=${child_pid% }
if [ -z "$child_pid" ]; then
	echo "# the target's child is not there"
	fail_all
fi
kill -STOP "$target_pid" "$child_pid"

py=/usr/bin/python3
[ -x "$py" ] || py=python3

# check_json PID: per VMA and in total, pmaps --json against smaps and
# smaps_rollup, in kB as the kernel shifts its fixed-point sums
check_json() {
	"$PMAPS" --json --source=pagemap "$1" > "$tmp/json.$1" &&
	"$py" - "$1" "$tmp/json.$1" "$2" <<'EOF'
import json, sys
pid, path, what = sys.argv[1], sys.argv[2], sys.argv[3]
t = json.load(open(path))["targets"][0]
def smaps(f):
    vmas, cur = {}, None
    for line in open(f):
        w = line.split()
        if "-" in w[0] and ":" not in w[0]:
            cur = vmas.setdefault(int(w[0].split("-")[0], 16), {})
        elif w[0].endswith(":") and len(w) >= 2 and w[1].isdigit():
            cur[w[0][:-1]] = int(w[1])
    return vmas
bad = []
if what == "vmas":
    sm = smaps("/proc/%s/smaps" % pid)
    for v in t["vmas"]:
        s = sm.get(int(v["start"], 16))
        if s is None:
            bad.append("%s: not in smaps" % v["start"])
            continue
        uss = s["Private_Clean"] + s["Private_Dirty"]
        got = (v["pss"] // 1024, v["uss"] // 1024, v["mapcount_unknown"])
        if got != (s["Pss"], uss, 0):
            bad.append("%s %s: pmaps pss %d uss %d unknown %d, smaps Pss %d Private %d"
                       % (v["start"], v["name"], got[0], got[1], got[2], s["Pss"], uss))
elif what == "total":
    r = smaps("/proc/%s/smaps_rollup" % pid)
    r = list(r.values())[0]
    uss = r["Private_Clean"] + r["Private_Dirty"]
    got = (t["pss"] // 1024, t["uss"] // 1024, t["mapcount_unknown"])
    if got != (r["Pss"], uss, 0):
        bad.append("pmaps pss %d uss %d unknown %d, smaps_rollup Pss %d Private %d"
                   % (got + (r["Pss"], uss)))
    print("# %s: Pss %d kB, USS %d kB" % (pid, r["Pss"], uss))
elif what == "ranges":
    # each range: count pages over mapcount, and the VMA's sums of them
    for v in t["vmas"]:
        fx = uss = 0
        for g in v["ranges"]:
            m = g["mapcount"]
            share = (4096 << 12) // m if m >= 2 else 4096 << 12
            if g["pss"] != (g["count"] * share) >> 12:
                bad.append("%s: pss %d for %d pages of mapcount %d"
                           % (g["address"], g["pss"], g["count"], m))
            if g["uss"] != (g["count"] * 4096 if m < 2 else 0):
                bad.append("%s: uss %d" % (g["address"], g["uss"]))
            fx += g["count"] * share
            uss += g["uss"]
        if (fx >> 12, uss) != (v["pss"], v["uss"]):
            bad.append("%s: ranges add up to %d %d, VMA says %d %d"
                       % (v["start"], fx >> 12, uss, v["pss"], v["uss"]))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
EOF
}

if [ "$(getconf PAGESIZE)" != 4096 ]; then
	echo "# page size $(getconf PAGESIZE): the checks below assume 4096"
fi

check_json "$target_pid" vmas > "$tmp/d1" && check_json "$child_pid" vmas >> "$tmp/d1"
result json_vmas_match_smaps
diag "$tmp/d1" | sed 's/^# # /# /'

check_json "$target_pid" total > "$tmp/d2" && check_json "$child_pid" total >> "$tmp/d2"
result json_total_matches_rollup
sed 's/^/# /;s/^# # /# /' "$tmp/d2"

check_json "$target_pid" ranges > "$tmp/d3" && check_json "$child_pid" ranges >> "$tmp/d3"
result json_ranges_add_up
diag "$tmp/d3"

# rollup FIELD PID
rollup() {
	awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/smaps_rollup"
}
pss=$(rollup Pss "$target_pid")
uss=$(( $(rollup Private_Clean "$target_pid") + $(rollup Private_Dirty "$target_pid") ))

# --summary: the Pss and Uss columns (13, 14 from Address), per VMA as
# smaps says, and the total row as smaps_rollup
run "$PMAPS" --summary --source=pagemap "$target_pid"
awk 'NR == 2 { if ($13 != "Pss" || $14 != "Uss") bad = 1 }
	$1 == "total" { if ($13 != pss || $14 != uss) bad = 1; t = 1 }
	END { exit bad || !t }' pss="$pss" uss="$uss" "$tmp/out" &&
awk '$1 ~ /^[0-9a-f]+-[0-9a-f]+$/ { split($1, a, "-")
		print tolower(a[1]) + 0 == 0 ? a[1] : a[1], $13, $14 }' "$tmp/out" |
	sed 's/^0*//' > "$tmp/sum.rows" &&
# (not [vsyscall]: no VMA of the process's own, and pmaps lists none)
awk '/^[0-9a-f]+-[0-9a-f]+ / { split($1, a, "-"); s = a[1]; if ($NF == "[vsyscall]") s = "" }
	$1 == "Pss:" { p[s] = $2 }
	$1 == "Private_Clean:" || $1 == "Private_Dirty:" { u[s] += $2 }
	END { for (s in p) if (s != "") print s, p[s], u[s] + 0 }' "/proc/$target_pid/smaps" |
	sed 's/^0*//' | sort > "$tmp/smaps.rows" &&
sort "$tmp/sum.rows" | cmp -s - "$tmp/smaps.rows"
result summary_matches_smaps
sort "$tmp/sum.rows" | diff - "$tmp/smaps.rows" | diag

# the default view's total line: pss and uss, sizes as the others
run "$PMAPS" --source=pagemap "$target_pid"
tail -n 1 "$tmp/out" | grep -q '  pss [0-9.]*[KMG]  uss [0-9.]*[KMG]$'
result totals_line_has_pss

# TSV: the last two columns are each range's pss and uss, as JSON's
run "$PMAPS" --tsv --source=pagemap "$target_pid"
head -n 1 "$tmp/out" | grep -q '	pss	uss$' &&
awk -F '\t' 'NR > 1 { print $(NF - 1), $NF }' "$tmp/out" > "$tmp/tsv.pss" &&
"$py" -c '
import json, sys
for v in json.load(open(sys.argv[1]))["targets"][0]["vmas"]:
    for g in v["ranges"]:
        print(g["pss"], g["uss"])' "$tmp/json.$target_pid" |
	cmp -s - "$tmp/tsv.pss"
result tsv_ranges_match_json

# export: USS per kind adds up to smaps_rollup's Private_*, exactly; PSS
# per kind is rounded down to a byte each, so its sum is below the
# unrounded total by less than a byte per sample, which smaps_rollup
# rounds down to a kB
run "$PMAPS" export --source=pagemap "$target_pid"
cp "$tmp/out" "$tmp/om"
exp_sum() {
	awk -v f="$1" '$1 ~ "^" f "{" { s += $2; n++ } END { print s + 0, n + 0 }' "$tmp/om"
}
set -- $(exp_sum pmaps_uss_bytes)
[ "$rc" = 0 ] && [ "$1" = $((uss * 1024)) ] && [ "$2" -gt 0 ] &&
! grep -v '^#' "$tmp/om" | grep '^pmaps_mapcount_unknown_bytes{' | grep -vq ' 0$'
result export_uss_matches_rollup
echo "# export uss $1 bytes in $2 samples, smaps_rollup Private $uss kB"
set -- $(exp_sum pmaps_pss_bytes)
[ "$rc" = 0 ] && [ "$2" -gt 0 ] && [ "$1" -le $((pss * 1024 + 1023)) ] &&
	[ "$1" -gt $((pss * 1024 - $2)) ]
result export_pss_within_rollup
echo "# export pss $1 bytes in $2 samples, smaps_rollup Pss $pss kB"

# --cgroup: a group of both processes (a directory whose cgroup.procs
# names them), each row as its smaps_rollup, the group's total their sum
mkdir "$tmp/group"
printf '%s\n%s\n' "$target_pid" "$child_pid" > "$tmp/group/cgroup.procs"
cpss=$(rollup Pss "$child_pid")
cuss=$(( $(rollup Private_Clean "$child_pid") + $(rollup Private_Dirty "$child_pid") ))
group_table() {
	awk -v p="$target_pid" -v c="$child_pid" -v pp="$pss" -v pu="$uss" \
    -v cp="$cpss" -v cu="$cuss" '
	/Pss/ && /Uss/ { for (i = 1; i <= NF; i++) { if ($i == "Pss") P = i; if ($i == "Uss") U = i } }
	# a process row: "PID (comm)" takes two fields
	$1 == p && g { if ($(P + 1) != pp || $(U + 1) != pu) bad = 1; n++ }
	$1 == c && g { if ($(P + 1) != cp || $(U + 1) != cu) bad = 1; n++ }
	$1 == "total" && $2 == "KiB" && g { t = $(P + 1); if ($(U + 1) != pu + cu) bad = 1 }
	/^group / { g = 1 }
	END { exit bad || n != 2 || t != pp + cp }' "$tmp/out"
}
run "$PMAPS" --summary --source=pagemap --cgroup "$tmp/group"
group_table
result group_summary_adds_processes

# -p NAME of several processes is a group as well, with the same table
run "$PMAPS" --summary --source=pagemap -p pss_target
grep -q '^group pss_target: 2 processes$' "$tmp/out" && group_table
result pid_name_group_adds_processes

# Without root: the target's shared pages have mapcount '?' in pagemap
# (only PM_MMAP_EXCLUSIVE says 1), so PSS and USS are lower bounds, and
# export leaves their samples out where it cannot know them
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
kill -KILL "$child_pid" "$target_pid" 2>/dev/null
wait "$target_pid" 2>/dev/null
target_pid= child_pid=
rm -f "$tmp/layout"
if ! command -v setpriv > /dev/null; then
	lacks "setpriv(1)" nonroot_pss_is_a_bound nonroot_export_leaves_out_pss
	tap_done
	exit
fi
$nobody "$tmp/pss_target" "$tmp/data" > "$tmp/layout" &
target_pid=$!
i=0
while [ ! -s "$tmp/layout" ] && [ $i -lt 600 ] && alive "$target_pid"; do
	sleep 0.05
	i=$((i + 1))
done
child_pid=$(cat "/proc/$target_pid/task/$target_pid/children" 2>/dev/null)
child_pid=${child_pid% }
if [ ! -s "$tmp/layout" ] || [ -z "$child_pid" ]; then
	echo "# the target did not start as user 65534"
	not_ok nonroot_pss_is_a_bound
	not_ok nonroot_export_leaves_out_pss
	tap_done
	exit
fi
kill -STOP "$target_pid" "$child_pid"
run $nobody "$PMAPS" --summary --source=pagemap "$target_pid"
# the anonymous VMA shared by fork: 12 pages '?', 4 private; the total
# row a bound
awk '$1 == "total" { if ($13 !~ /^>=[0-9]+$/ || $14 !~ /^>=[0-9]+$/) bad = 1; t = 1 }
	END { exit bad || !t }' "$tmp/out" &&
run $nobody "$PMAPS" --json --source=pagemap "$target_pid" &&
"$py" -c '
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
r = [g for v in t["vmas"] for g in v["ranges"]]
unk = [g for g in r if g["mapcount"] is None]
ok = t["mapcount_unknown"] > 0 and unk and \
    all(g["pss"] is None and g["uss"] is None for g in unk) and \
    t["mapcount_unknown"] == sum(g["count"] for g in unk)
sys.exit(0 if ok else 1)' "$tmp/out"
result nonroot_pss_is_a_bound

run $nobody "$PMAPS" export --source=pagemap "$target_pid"
# the anon kind has pages of mapcount '?': no pss or uss sample, and how
# much is unknown instead
[ "$rc" = 0 ] &&
! grep -q '^pmaps_pss_bytes{.*kind="anon"' "$tmp/out" &&
! grep -q '^pmaps_uss_bytes{.*kind="anon"' "$tmp/out" &&
grep '^pmaps_mapcount_unknown_bytes{.*kind="anon"' "$tmp/out" | grep -qv ' 0$' &&
grep -q '^pmaps_resident_bytes{.*kind="anon"' "$tmp/out"
result nonroot_export_leaves_out_pss

tap_done
