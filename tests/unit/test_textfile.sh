#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The pmaps package's node_exporter textfile export (issue 32), with the
# real thing: contrib/textfile/pmaps-textfile, the script
# pmaps-textfile.timer runs, writes pmaps export of the processes its
# configuration selects into a textfile directory; Debian's
# prometheus-node-exporter, started here on a free 127.0.0.1 port with
# only the textfile collector, serves them: the pmaps series with the
# target's pid, comm and kinds and the file's values, which add up to
# pmaps --summary's RSS of the stopped target; promtool check metrics
# accepts what it serves.  The selection (names, cgroups, top N by RSS),
# its bound on processes and on time, and its log; the Grafana
# dashboard parses and queries only families export writes (promtool
# checks each query).  Prints TAP.  PMAPS names the binary, CC builds the
# target.  node_exporter and promtool: in PATH, or unpacked by
# tests/deps.sh under /var/cache/pmaps-ext.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"

target_pid=
ne_pid=
victims_pid=
zombie_parent=
first_victim=
cleanup() {
	[ -n "$ne_pid" ] && kill "$ne_pid" 2>/dev/null
	[ -n "$victims_pid" ] && pkill -KILL -P "$victims_pid" 2>/dev/null
	[ -n "$zombie_parent" ] && kill -KILL "$zombie_parent" 2>/dev/null
	[ -n "$target_pid" ] && kill -KILL "$target_pid" 2>/dev/null
	[ -n "$first_victim" ] && kill -KILL "$first_victim" 2>/dev/null
	[ -s "$tmp/second-victim" ] &&
		kill -KILL "$(cat "$tmp/second-victim")" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

script=$top/contrib/textfile/pmaps-textfile
dashboard=$top/contrib/grafana/pmaps.json

tests_ne="node_exporter_serves_pmaps_series served_values_match_summary
	promtool_checks_served_metrics"
tests="script_writes_selected_names $tests_ne
	selects_cgroup top_rss_selection max_processes_bound
	zombie_left_out_of_the_selection
	processes_ending_one_per_try_are_left_out all_selected_ended_selects_again
	timeout_bound_keeps_old_file missing_directory_writes_nothing
	bad_config_exit_2 no_selection_writes_nothing
	systemd_units_verify dashboard_parses dashboard_queries_exported_families
	promtool_checks_dashboard_queries"

if [ "$(id -u)" != 0 ]; then
	for t in $tests; do
		skip "$t" "needs root: the timer's export runs as root"
	done
	tap_done
	exit
fi

find_tool() {
	command -v "$1" 2>/dev/null ||
		{ [ -x "/var/cache/pmaps-ext/$2/usr/bin/$1" ] &&
			echo "/var/cache/pmaps-ext/$2/usr/bin/$1"; }
}
ne=$(find_tool prometheus-node-exporter prometheus-node-exporter)
promtool=$(find_tool promtool prometheus)
py=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import prometheus_client.parser' 2>/dev/null; then
		py=$p
		break
	fi
done

# A target with 64 written anonymous pages, named so that only it has
# the name; stopped, so that each read sees the same pages.
name=pmtf$$
cat > "$tmp/target.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 64 * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (argc < 2 || p == MAP_FAILED)
		return 1;
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	memset(p, 1, 64 * ps);
	printf("%lx\n", (unsigned long)p);
	fflush(stdout);
	for (;;)
		pause();
}
EOF
if ! spawn_target tf_target 600 0.05 "$name"; then
	diag "$tmp/err"
	for t in $tests; do not_ok "$t"; done
	tap_done
	exit
fi
kill -STOP "$target_pid"

mkdir "$tmp/textfile"
out=$tmp/textfile/pmaps.prom
# conf FILE VAR=VALUE...: a configuration, with PMAPS and the output set
conf() {
	conf_file=$1
	shift
	{
		echo "PMAPS=$PMAPS"
		echo "PMAPS_OUTPUT=$out"
		echo "PMAPS_EXPORT_OPTIONS=--source=pagemap"
		echo "PMAPS_TOP_RSS=0"
		for a; do echo "$a"; done
	} > "$conf_file"
}
# pids FILE: the pid labels of FILE's pmaps_resident_bytes, sorted
pids() {
	sed -n 's/^pmaps_resident_bytes{pid="\([0-9]*\)".*/\1/p' "$1" | sort -un
}

conf "$tmp/names.conf" "PMAPS_NAMES='$name'"
run sh "$script" "$tmp/names.conf"
[ "$rc" = 0 ] && [ "$(pids "$out")" = "$target_pid" ] &&
	grep -q "^pmaps-textfile: wrote $out: 1 processes (1 named or in cgroups, top 0 by RSS, 0 left out) in [0-9]*\.[0-9]* s\$" "$tmp/err" &&
	[ "$(ls "$tmp/textfile")" = pmaps.prom ]
result script_writes_selected_names
cp "$out" "$tmp/written.prom"

# ---- node_exporter ----

# a free port: bound by the kernel, then released for node_exporter
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fetch() {
	python3 - "$1" > "$2" 2>/dev/null <<'EOF'
import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())
EOF
}
served=false
if [ -z "$ne" ]; then
	lacks "prometheus-node-exporter" $tests_ne
elif [ -z "$py" ]; then
	lacks "python3-prometheus-client" $tests_ne
else
	"$ne" --web.listen-address="127.0.0.1:$port" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$tmp/textfile" \
		> "$tmp/ne.log" 2>&1 &
	ne_pid=$!
	# up to 30 s (5 min under valgrind) for it to answer
	i=0
	while ! fetch "http://127.0.0.1:$port/metrics" "$tmp/metrics"; do
		if ! alive "$ne_pid" || [ $i -ge $((300 * slow)) ]; then
			echo "# node_exporter did not answer on 127.0.0.1:$port:"
			diag "$tmp/ne.log"
			break
		fi
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$tmp/metrics" ] && served=true
fi

if $served; then
	# each pmaps sample as "name labels value", labels sorted, from the
	# served text (Prometheus format) and from the file (OpenMetrics)
	"$py" - "$tmp/metrics" "$tmp/written.prom" "$target_pid" "$name" \
		> "$tmp/cmp" 2>&1 <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families as prom
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
def samples(parse, path):
    out = set()
    for f in parse(open(path).read()):
        for s in f.samples:
            if s.name.startswith("pmaps_"):
                out.add((s.name, tuple(sorted(s.labels.items())), s.value))
    return out
served = samples(prom, sys.argv[1])
written = samples(om, sys.argv[2])
bad = []
if served != written:
    bad.append("served and written differ: %d only served, %d only written"
               % (len(served - written), len(written - served)))
labels = {tuple(k for k, _ in s[1]) for s in served}
if labels != {("comm", "kind", "pid")}:
    bad.append("label names %s" % labels)
if {dict(s[1])["pid"] for s in served} != {sys.argv[3]} or \
   {dict(s[1])["comm"] for s in served} != {sys.argv[4]}:
    bad.append("not the target's pid and comm only")
if "anon" not in {dict(s[1])["kind"] for s in served}:
    bad.append("no anon kind")
err = [l for l in open(sys.argv[1]) if l.startswith("node_textfile_scrape_error")]
if err != ["node_textfile_scrape_error 0\n"]:
    bad.append("node_textfile_scrape_error: %s" % err)
print("# %d pmaps samples served" % len(served))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
EOF
	result node_exporter_serves_pmaps_series
	cat "$tmp/cmp"

	# the served resident bytes, over kinds, are --summary's RSS total
	served_rss=$(awk -v p="$target_pid" '$1 ~ "^pmaps_resident_bytes[{].*pid=\"" p "\"" { s += $2 }
		END { printf "%.0f", s / 1024 }' "$tmp/metrics")
	"$PMAPS" --summary --source=pagemap "$target_pid" > "$tmp/summary"
	want_rss=$(awk '$1 == "total" { print $4 }' "$tmp/summary")
	[ -n "$want_rss" ] && [ "$served_rss" = "$want_rss" ] && [ "$served_rss" -ge 256 ]
	result served_values_match_summary
	echo "# served resident $served_rss KiB, --summary RSS $want_rss KiB"

	if [ -z "$promtool" ]; then
		lacks "promtool (package prometheus)" promtool_checks_served_metrics
	else
		"$promtool" check metrics < "$tmp/metrics" > "$tmp/lint" 2>&1
		result promtool_checks_served_metrics
		diag "$tmp/lint"
	fi
fi
if [ -n "$ne_pid" ]; then
	kill "$ne_pid"
	wait_gone "$ne_pid" $((100 * slow)) 0.1 node_exporter ||
		echo "# node_exporter did not end"
	ne_pid=
fi

# ---- the selection and its bounds ----

# a cgroup: here a directory whose cgroup.procs names the target, as the
# script reads every cgroup.procs below the path
mkdir -p "$tmp/cg/sub"
: > "$tmp/cg/cgroup.procs"
echo "$target_pid" > "$tmp/cg/sub/cgroup.procs"
conf "$tmp/cg.conf" "PMAPS_CGROUPS=$tmp/cg"
run sh "$script" "$tmp/cg.conf"
[ "$rc" = 0 ] && [ "$(pids "$out")" = "$target_pid" ]
result selects_cgroup

# top 3 by RSS: 1 to 3 processes (one may end meanwhile), none a kernel
# thread; which are the largest changes as the machine runs
conf "$tmp/top.conf" "PMAPS_TOP_RSS=3"
run sh "$script" "$tmp/top.conf"
n=$(pids "$out" | wc -l)
kthreads=0
for p in $(pids "$out"); do
	f=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f7)
	[ -n "$f" ] && [ $((f & 0x200000)) != 0 ] && kthreads=$((kthreads + 1))
done
[ "$rc" = 0 ] && [ "$n" -ge 1 ] && [ "$n" -le 3 ] && [ "$kthreads" = 0 ] &&
	grep -q "top 3 by RSS" "$tmp/err"
result top_rss_selection

# the bound on processes: the named one first, then the largest, cut to
# 2; one of the largest may end before it is read (the script says so and
# exports the rest), on a busy machine that is not rare
conf "$tmp/max.conf" "PMAPS_NAMES=$name" "PMAPS_TOP_RSS=5" "PMAPS_MAX_PROCESSES=2"
run sh "$script" "$tmp/max.conf"
ended=$(sed -n 's/^pmaps-textfile: \([0-9]*\) selected processes ended meanwhile.*/\1/p' \
	"$tmp/err" | awk '{ n += $1 } END { print n + 0 }')
want=$((2 - ended))
[ "$rc" = 0 ] && [ "$(pids "$out" | wc -l)" = "$want" ] &&
	pids "$out" | grep -qx "$target_pid" &&
	grep -q "^pmaps-textfile: [0-9]* processes selected, [0-9]* left out: PMAPS_MAX_PROCESSES is 2\$" "$tmp/err"
result max_processes_bound

# A process that is a zombie when the selection is made is left out as
# one that has ended: not as a pagemap that cannot be opened (a zombie's
# open fails with ESRCH), which would point at a policy, nor by a failed
# export run again.  Its parent (sleep) never reaps it.
zname=pmtfz$$
cp "$(command -v sleep)" "$tmp/$zname"
sh -c '"$0" 0 & exec sleep 600' "$tmp/$zname" &
zombie_parent=$!
i=0
until ps -o stat= -C "$zname" 2>/dev/null | grep -q '^Z'; do
	i=$((i + 1))
	[ $i -lt $((100 * slow)) ] || break
	sleep 0.05
done
conf "$tmp/zombie.conf" "PMAPS_NAMES='$name $zname'"
run sh "$script" "$tmp/zombie.conf"
[ "$rc" = 0 ] && [ "$(pids "$out")" = "$target_pid" ] &&
	! grep -q "ended meanwhile" "$tmp/err" &&
	! grep -q "pagemap cannot be opened" "$tmp/err"
result zombie_left_out_of_the_selection
kill -KILL "$zombie_parent" 2>/dev/null
wait "$zombie_parent" 2>/dev/null
zombie_parent=

# Ends process $1, and returns once it has gone or is a zombie (for at
# most 10 s): the wrappers below stand for processes that end between
# selection and export.
cat > "$tmp/end-process" <<'EOF'
#!/bin/sh
kill -KILL "$1"
i=0
while [ $i -lt 200 ]; do
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) in
	'' | Z | X) break ;;
	esac
	sleep 0.05
	i=$((i + 1))
done
EOF
chmod +x "$tmp/end-process"

# Three more selected processes that end one per export, as on a machine
# where processes come and go: each try leaves out those that ended, and
# the fourth writes the one that stayed.  Two have a parent shell that
# reaps them, so that they leave no /proc entry behind; the third's
# parent (sleep) never reaps it, so that it stays a zombie, which has
# ended as well.
vname=pmtfv$$
cp "$(command -v sleep)" "$tmp/$vname"
sh -c '"$0" 600 & "$0" 600 & wait' "$tmp/$vname" &
victims_pid=$!
sh -c '"$0" 600 & exec sleep 600' "$tmp/$vname" &
zombie_parent=$!
cat > "$tmp/churn-pmaps" <<EOF
#!/bin/sh
# the first selected victim ends, and the export fails as pmaps' does
for a; do
	[ "\$(cat "/proc/\$a/comm" 2>/dev/null)" = "$vname" ] || continue
	"$tmp/end-process" "\$a"
	echo "pmaps export: process \$a ended" >&2
	exit 1
done
exec "$PMAPS" "\$@"
EOF
chmod +x "$tmp/churn-pmaps"
i=0
while [ "$(pgrep -cx "$vname")" != 3 ] && [ $i -lt $((100 * slow)) ]; do
	sleep 0.05
	i=$((i + 1))
done
conf "$tmp/churn.conf" "PMAPS_NAMES='$name $vname'" "PMAPS=$tmp/churn-pmaps"
run sh "$script" "$tmp/churn.conf"
[ "$rc" = 0 ] && [ "$(pids "$out")" = "$target_pid" ] &&
	[ "$(grep -c "^pmaps-textfile: 1 selected processes ended meanwhile; once more without them\$" "$tmp/err")" = 3 ]
result processes_ending_one_per_try_are_left_out
diag "$tmp/err"
kill -KILL "$zombie_parent" 2>/dev/null
wait "$victims_pid" "$zombie_parent" 2>/dev/null
victims_pid=

# Every selected process ends before its export, as the largest
# processes of a build machine do: the script selects again, and writes
# what the new selection found (here a new process of the same name).
aname=pmtfa$$
cp "$(command -v sleep)" "$tmp/$aname"
"$tmp/$aname" 600 &
first_victim=$!
i=0
while [ "$(cat "/proc/$first_victim/comm" 2>/dev/null)" != "$aname" ] &&
      [ $i -lt $((100 * slow)) ]; do
	sleep 0.05
	i=$((i + 1))
done
cat > "$tmp/all-gone-pmaps" <<EOF
#!/bin/sh
# the first export: every selected process ends, another of the name
# starts, and the export fails as pmaps' does
if [ ! -e "$tmp/all-gone-once" ]; then
	: > "$tmp/all-gone-once"
	"$tmp/end-process" $first_victim
	"$tmp/$aname" 600 > /dev/null 2>&1 &
	echo \$! > "$tmp/second-victim"
	# named once it has exec'd: only then can a selection find it
	i=0
	while [ "\$(cat "/proc/\$!/comm" 2>/dev/null)" != "$aname" ] && [ \$i -lt 200 ]; do
		sleep 0.05
		i=\$((i + 1))
	done
	echo "pmaps export: no process $first_victim" >&2
	exit 1
fi
exec "$PMAPS" "\$@"
EOF
chmod +x "$tmp/all-gone-pmaps"
conf "$tmp/all-gone.conf" "PMAPS_NAMES=$aname" "PMAPS=$tmp/all-gone-pmaps"
run sh "$script" "$tmp/all-gone.conf"
second_victim=$(cat "$tmp/second-victim" 2>/dev/null)
[ "$rc" = 0 ] && [ -n "$second_victim" ] &&
	[ "$(pids "$out")" = "$second_victim" ] &&
	grep -qx "pmaps-textfile: all 1 selected processes ended meanwhile; selecting again" "$tmp/err"
result all_selected_ended_selects_again
diag "$tmp/err"
[ -n "$second_victim" ] && kill -KILL "$second_victim" 2>/dev/null
wait "$first_victim" 2>/dev/null
first_victim=

# the bound on time: a pmaps that never ends is ended after
# PMAPS_TIMEOUT, nothing is written, and the last file stays
cp "$out" "$tmp/before.prom"
printf '#!/bin/sh\nexec sleep 600\n' > "$tmp/slow-pmaps"
chmod +x "$tmp/slow-pmaps"
conf "$tmp/slow.conf" "PMAPS_NAMES=$name" "PMAPS=$tmp/slow-pmaps" "PMAPS_TIMEOUT=1"
start=$(date +%s)
run sh "$script" "$tmp/slow.conf"
took=$(($(date +%s) - start))
[ "$rc" = 1 ] && [ "$took" -lt 10 ] && cmp -s "$out" "$tmp/before.prom" &&
	grep -q "^pmaps-textfile: pmaps export of 1 processes took more than PMAPS_TIMEOUT=1 s and was ended; nothing written" "$tmp/err"
result timeout_bound_keeps_old_file
echo "# ended after $took s"

conf "$tmp/nodir.conf" "PMAPS_NAMES=$name" "PMAPS_OUTPUT=$tmp/nodir/pmaps.prom"
run sh "$script" "$tmp/nodir.conf"
[ "$rc" = 1 ] && [ ! -e "$tmp/nodir" ] &&
	grep -q "^pmaps-textfile: $tmp/nodir: no such directory" "$tmp/err"
result missing_directory_writes_nothing

bad=
for a in PMAPS_TOP_RSS=x PMAPS_MAX_PROCESSES=0 PMAPS_TIMEOUT=-1 \
	 "PMAPS_OUTPUT=$tmp/textfile/pmaps.txt"; do
	conf "$tmp/bad.conf" "PMAPS_NAMES=$name" "$a"
	run sh "$script" "$tmp/bad.conf"
	[ "$rc" = 2 ] && grep -q "^pmaps-textfile: $tmp/bad.conf: " "$tmp/err" ||
		bad="$bad $a (status $rc)"
done
run sh "$script" "$tmp/none.conf"
[ "$rc" = 2 ] || bad="$bad missing file (status $rc)"
[ -z "$bad" ]
result bad_config_exit_2
[ -n "$bad" ] && echo "# not refused:$bad"

cp "$out" "$tmp/before.prom"
conf "$tmp/empty.conf" "PMAPS_NAMES=nosuch$$"
run sh "$script" "$tmp/empty.conf"
[ "$rc" = 1 ] && cmp -s "$out" "$tmp/before.prom" &&
	grep -q "^pmaps-textfile: no process selected" "$tmp/err"
result no_selection_writes_nothing

# ---- the units ----

# systemd-analyze verify: nothing to say about the service and timer the
# package installs (ExecStart there is the script debian/rules installs;
# here the tree's copy, which must exist for verify)
if ! command -v systemd-analyze > /dev/null; then
	lacks "systemd-analyze (package systemd)" systemd_units_verify
else
	mkdir "$tmp/units"
	sed "s|^ExecStart=/usr/libexec/pmaps/pmaps-textfile\$|ExecStart=$script|" \
		"$top/contrib/textfile/pmaps-textfile.service" > "$tmp/units/pmaps-textfile.service"
	cp "$top/contrib/textfile/pmaps-textfile.timer" "$tmp/units/"
	run systemd-analyze verify --man=no "$tmp/units/pmaps-textfile.service" \
		"$tmp/units/pmaps-textfile.timer"
	[ "$rc" = 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] &&
		grep -q "^ExecStart=$script\$" "$tmp/units/pmaps-textfile.service" &&
		grep -q 'debian/pmaps/usr/libexec/pmaps/pmaps-textfile$' "$top/debian/rules" &&
		grep -qx 'WantedBy=timers.target' "$tmp/units/pmaps-textfile.timer"
	result systemd_units_verify
fi

# ---- the dashboard ----

python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not d["panels"])' \
	"$dashboard" 2> "$tmp/err"
result dashboard_parses

# every expression and variable query, and the pmaps families they name
python3 - "$dashboard" > "$tmp/queries" 2> "$tmp/err" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["panels"]:
    for t in p.get("targets", []):
        print(t["expr"])
for v in d["templating"]["list"]:
    q = v.get("query")
    if isinstance(q, dict):
        print(q["query"])
EOF
grep -o 'pmaps_[a-z_]*' "$tmp/queries" | sort -u > "$tmp/used"
"$PMAPS" export --source=pagemap "$target_pid" | sed -n 's/^# TYPE \([a-z_]*\) .*/\1/p' | sort -u > "$tmp/families"
[ -s "$tmp/used" ] && [ "$(grep -c . "$tmp/queries")" -ge 8 ] &&
	! comm -23 "$tmp/used" "$tmp/families" | grep .
result dashboard_queries_exported_families
echo "# families queried: $(tr '\n' ' ' < "$tmp/used")"

# PromQL syntax: each panel's expression as a recording rule (label
# queries are Grafana's, not PromQL)
if [ -z "$promtool" ]; then
	lacks "promtool (package prometheus)" promtool_checks_dashboard_queries
else
	python3 - "$dashboard" > "$tmp/rules.yml" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("groups:\n- name: dashboard\n  rules:")
n = 0
for p in d["panels"]:
    for t in p.get("targets", []):
        n += 1
        print("  - record: dashboard:q%d\n    expr: %s" % (n, json.dumps(t["expr"])))
EOF
	"$promtool" check rules "$tmp/rules.yml" > "$tmp/lint" 2>&1 &&
		grep -q "SUCCESS: 1[0-9]* rules found" "$tmp/lint"
	result promtool_checks_dashboard_queries
	diag "$tmp/lint"
fi

tap_done
