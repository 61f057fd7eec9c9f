# SPDX-License-Identifier: GPL-2.0
# The bench's table and targets, from the records of tests/guest/bench.c
# (one file per kernel, in the order given) and, optionally, the output of
# tests/bench/userspace.sh as a file whose name ends in "userspace.txt".
#
#   awk -f tests/bench/table.awk [-v smoke=1] records-KERNEL.tsv... [userspace.txt]
#
# Every ratio compares readers timed in the same guest, the same run,
# round-robin on the same workload process.  smoke=1 marks the targets as
# not judged: smoke workloads are 64 times smaller than the real ones.
BEGIN {
	FS = "\t"
	nk = 0
}

function ms(ns) { return sprintf("%.1f", ns / 1e6) }

function size(b) {
	if (b >= 1048576)
		return sprintf("%.1fM", b / 1048576)
	if (b >= 1024)
		return sprintf("%.1fK", b / 1024)
	return b ""
}

function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }

function verdict(ok) {
	if (smoke)
		return "not judged (smoke)"
	return ok ? "holds" : "MISSED"
}

# The verdict of a target on times, which a tick-stepped clock cannot give.
function timed_verdict(ok) {
	if (coarse_clock != "")
		return "not judged (clock " coarse_clock ")"
	return verdict(ok)
}

FILENAME ~ /userspace\.txt$/ {
	if ($0 ~ /lines\/s$/) {
		n = split($0, word, " ")
		userspace_rate = word[n - 1]
	}
	# (c) and on: "(c) WORKLOAD, A vs B, METRIC time: ...; ratio R,
	# target Nx: met" (or MISSED), or "(c) WORKLOAD, A vs B, METRIC
	# time: not measured (WHY); target Nx"
	if ($0 ~ /^\([c-z]\) / && $0 ~ /target [0-9.]+x/) {
		nh++
		host_what[nh] = substr($0, 5)
		sub(/: .*/, "", host_what[nh])
		match($0, /target [0-9.]+x/)
		host_limit[nh] = substr($0, RSTART + 7, RLENGTH - 8)
		if (match($0, /ratio [0-9.]+,/)) {
			host_ratio[nh] = substr($0, RSTART + 6, RLENGTH - 7)
			host_met[nh] = $0 ~ /: met$/
		}
	}
	next
}

FNR == 1 { k = ++nk }
$1 == "kernel" { kernel[k] = $2 }
$1 == "clock" { clock[k] = $2 }
$1 == "workload" {
	if (!(($2) in wseen)) {
		wseen[$2] = 1
		worder[++nw] = $2
	}
	what[$2] = $3
}
$1 == "reader" {
	if (!(($2) in rseen)) {
		rseen[$2] = 1
		rorder[++nr] = $2
	}
	cmd[$2] = $3
}
$1 == "row" {
	key = k SUBSEP $2 SUBSEP $3
	t[key] = $4
	runs[key] = $5
	bytes[key] = $6
	lines[key] = $7
	rl[key] = $8
	rb[key] = $9
}
$1 == "latency" {
	lat_median[k, $2] = $3
	lat_worst[k, $2] = $4
	lat_p99[k, $2] = $5
}
$1 == "vma-locks" { vma_locks[k] = 1 }
$1 == "fail" { fails[k] = fails[k] "\n  " $2 ": " $4 }
$1 == "skip" { skips[k] = skips[k] "\n  " $2 ": " $3 }
$1 == "memory" {
	mem_ranges[k, $2] = $4
	mem_bytes[k, $2] = $5
}
$1 == "scale" && $2 == "sparse" {
	key = k SUBSEP $3
	if (!(key in smin) || $5 < smin[key]) {
		smin[key] = $5
		sminx[key] = $4
	}
	if (!(key in smax) || $5 > smax[key]) {
		smax[key] = $5
		smaxx[key] = $4
	}
}

END {
	for (k = 1; k <= nk; k++) {
		printf "== kernel %s\n", kernel[k]
		# jiffies and refined-jiffies tick in 1/HZ s: a reader's time
		# is a count of ticks, and a ratio of two counts means nothing.
		coarse_clock = clock[k] ~ /jiffies/ ? clock[k] : ""
		if (coarse_clock != "")
			printf "clock: %s, in steps of a tick: times and ratios are not measurements, targets on times not judged\n",
			       coarse_clock
		# /scan: against the PAGEMAP_SCAN ioctl, binary and without
		# young or dirty, where the kernel has it (v6.7+).
		printf "%-10s %-12s %10s %5s %9s %8s %7s %7s %7s %7s\n",
		       "workload", "reader", "time ms", "runs", "bytes",
		       "lines", "B/range", "/smaps", "/p-types", "/scan"
		for (w = 1; w <= nw; w++) {
			wl = worder[w]
			sm = t[k, wl, "smaps"]
			pt = t[k, wl, "page-types"]
			sc = t[k, wl, "pagemap-scan"]
			for (r = 1; r <= nr; r++) {
				key = k SUBSEP wl SUBSEP rorder[r]
				if (!(key in t))
					continue
				printf "%-10s %-12s %10s %5d %9s %8d %7s %7s %7s %7s\n",
				       wl, rorder[r], ms(t[key]), runs[key],
				       size(bytes[key]), lines[key],
				       rl[key] ? sprintf("%.1f", rb[key] / rl[key]) : "-",
				       ratio(t[key], sm), ratio(t[key], pt),
				       ratio(t[key], sc)
			}
		}
		if (fails[k] != "")
			printf "failed:%s\n", fails[k]
		if (skips[k] != "")
			printf "skipped:%s\n", skips[k]
		print ""
		targets(k)
		print ""
	}
	if (userspace_rate != "")
		printf "userspace: pmaps parse + view %.2fM range lines/s (target >= 1M): %s\n",
		       userspace_rate / 1e6, verdict(userspace_rate >= 1e6)
	# Host timings: the verdict is userspace.sh's, made from the
	# unrounded times.
	for (h = 1; h <= nh; h++) {
		if (h in host_ratio)
			printf "userspace %s <= %s x: %s x: %s\n",
			       host_what[h], host_limit[h], host_ratio[h],
			       verdict(host_met[h])
		else
			printf "userspace %s <= %s x: not measured\n",
			       host_what[h], host_limit[h]
	}
	for (w = 1; w <= nw; w++)
		printf "workload %s: %s\n", worder[w], what[worder[w]]
}

# The issue's targets for the in-kernel readers of kernel k: the module,
# and /proc/PID/pmaps where the kernel has it.
function targets(k,    i, src, a, b, w, worst, x, key) {
	for (i = 1; i <= 2; i++) {
		src = i == 1 ? "module" : "kernel"
		if (!((k SUBSEP "dense" SUBSEP src) in t) &&
		    !((k SUBSEP src) in smin))
			continue
		a = t[k, "dense", src]
		b = t[k, "dense", "smaps"]
		if (a && b)
			printf "target dense: %s <= 0.7 x smaps: %s x: %s\n",
			       src, ratio(a, b), timed_verdict(a <= 0.7 * b)
		# issue 31: THP 256 MiB, beside PAGEMAP_SCAN (the /scan
		# column).  A cat costs more than either walk of 128 THPs, so
		# the kernel's share is compared where both have it: read(2)
		# in the bench process.
		a = t[k, "thp256", src "-read"]
		b = t[k, "thp256", "smaps-read"]
		if (a && b)
			printf "target thp256: %s-read <= 0.5 x smaps-read: %s x (%s x PAGEMAP_SCAN): %s\n",
			       src, ratio(a, b), ratio(a, t[k, "thp256", "pagemap-scan"]),
			       timed_verdict(a <= 0.5 * b)
		a = t[k, "thp256", src]
		b = t[k, "thp256", "smaps"]
		if (a && b)
			printf "target thp256: %s <= 0.5 x cat smaps: %s x: %s\n",
			       src, ratio(a, b), timed_verdict(a <= 0.5 * b)
		a = t[k, "scattered", "page-types"]
		b = t[k, "scattered", src]
		if (a && b)
			printf "target scattered: %s >= 20 x faster than page-types -l -M: %s x: %s\n",
			       src, ratio(a, b), timed_verdict(a >= 20 * b)
		# What the text costs (issue 31): the module's read(2) with and
		# without its text (bench_no_text), beside page-types and
		# PAGEMAP_SCAN.  Were the text free, page-types / the walk
		# is as far as the module could get.
		w = t[k, "scattered", "module-walk"]
		b = t[k, "scattered", "module-read"]
		if (src == "module" && a && w && b)
			printf "floor scattered: page-types -l -M / the module's walk without the text: %s x; read(2) %s ms, of which the walk %s ms, the text %.0f %%; PAGEMAP_SCAN %s ms\n",
			       ratio(a, w), ms(b), ms(w), 100 * (b - w) / b,
			       ms(t[k, "scattered", "pagemap-scan"])
		key = k SUBSEP src
		if (key in smin)
			printf "target sparse: %s cost within 2 x from 1 GiB to 64 TiB: %s x (%.1f to %.1f ms): %s\n",
			       src, ratio(smax[key], smin[key]),
			       smin[key] / 1e6, smax[key] / 1e6,
			       timed_verdict(smax[key] <= 2 * smin[key])
		worst = 0
		for (x = 1; x <= nw; x++) {
			key = k SUBSEP worder[x] SUBSEP src
			if (rl[key] && rb[key] / rl[key] > worst)
				worst = rb[key] / rl[key]
		}
		if (worst)
			printf "target output: %s at most 40 bytes per range line: %.1f at most: %s\n",
			       src, worst, verdict(worst <= 40)
	}
	# A reader must not stall the target where the module reads each VMA
	# under its own lock (issue 31: the 99th percentile of the target's
	# mmap/munmap calls with one reader at most 2 x alone, the worst at
	# most 3 x); under the mmap lock there is no target.
	if ((k, "alone") in lat_worst && (k, "readers") in lat_worst) {
		a = lat_p99[k, "readers"]
		b = lat_p99[k, "alone"]
		if (!(a > 0 && b > 0))
			printf "target stall p99: not measured (no 99th percentile in the latency records)\n"
		else
			printf "target stall p99: the target's mmap/munmap p99 with 1 module reader %.1f us, alone %.1f us (medians %.1f, %.1f us): %s x: %s\n",
			       a, b, lat_median[k, "readers"],
			       lat_median[k, "alone"], ratio(a, b),
			       vma_locks[k] ? timed_verdict(a <= 2 * b) : "no target (mmap lock)"
		a = lat_worst[k, "readers"]
		b = lat_worst[k, "alone"]
		printf "target stall worst: the target's worst mmap/munmap with 1 module reader %.1f us, alone %.1f us: %s x: %s\n",
		       a, b, ratio(a, b),
		       vma_locks[k] ? timed_verdict(a <= 3 * b) : "no target (mmap lock)"
	}
	# A per-range allocation of 8 bytes would add 8 bytes per range line
	# to each open file; take an eighth of that as the line.
	if ((k, "scattered") in mem_bytes && (k, "dense") in mem_bytes) {
		a = mem_bytes[k, "scattered"] - mem_bytes[k, "dense"]
		b = mem_ranges[k, "scattered"] - mem_ranges[k, "dense"]
		printf "target memory: module slab per open file %d B with %d ranges, %d B with %d: %+d B for %d more ranges: %s\n",
		       mem_bytes[k, "dense"], mem_ranges[k, "dense"],
		       mem_bytes[k, "scattered"], mem_ranges[k, "scattered"],
		       a, b, verdict(a < b)
	}
}
