// SPDX-License-Identifier: GPL-2.0
/*
 * The guest half of make bench: build each workload as a process of its
 * own, run every reader on it side by side, and print what was measured
 * as tab-separated records for tests/bench/report.sh.  Nothing here judges
 * a target; the host does that from the records of one run, because the
 * guest is emulated and only ratios taken in the same run carry over.
 *
 *   bench [--smoke] [--runs N] [--only NAME[,NAME]...]
 *         [--readers NAME[,NAME]...]
 *
 * --only runs only the named workloads and scaling series (dense-scale,
 * sparse-scale), for working on one of them; --readers only the named
 * readers (tests/qemu/init profiles one at a time so).
 * --smoke shrinks every workload 64 times and takes one run, to check the
 * bench itself works (make check), not to measure.
 *
 * Records, one per line, fields separated by tabs:
 *   kernel   RELEASE
 *   reader   NAME  COMMAND            a reader that exists on this kernel
 *   workload NAME  DESCRIPTION
 *   row      WORKLOAD READER MEDIAN_NS RUNS BYTES LINES RANGE_LINES RANGE_BYTES
 *                                       (pagemap-scan: each region is a line
 *                                       and a range line of its 24 bytes)
 *   fail     WORKLOAD READER WHY      the reader did not exit 0
 *   skip     WORKLOAD WHY
 *   scale    SERIES READER X MEDIAN_NS  X: resident pages (dense) or
 *                                       virtual bytes (sparse)
 *   memory   WORKLOAD FILES RANGE_LINES SLAB_BYTES_PER_FILE
 * and "# ..." comments for people.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/types.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../userspace/lib/procfs_ioctl.h"

#define MIB		(1ULL << 20)
#define GIB		(1ULL << 30)
#define TIB		(1ULL << 40)
#define MAX_RUNS	512
#define MAX_READERS	16
#define CLOCKSOURCE	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define PIPE_CHUNK	65536

/*
 * The pagemap-scan reader: every category v6.7 reports without
 * userfaultfd, over x86-64's 47-bit user address space (where every
 * workload lives), 4096 regions a call.
 */
#define SCAN_END	0x7ffffffff000ULL
#define SCAN_VEC	4096
#define SCAN_RETURN	(PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_FILE | \
			 PAGE_IS_PFNZERO | PAGE_IS_HUGE | PAGE_IS_SOFT_DIRTY)

static unsigned long page_size;
static unsigned int shrink = 1;		/* --smoke: 64 */
static unsigned int runs = 5;
static const char *only;		/* --only: comma-separated names */
static const char *only_readers;	/* --readers: the same */

/* Whether name is in list, comma-separated names; NULL lists them all. */
static bool listed(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	if (!list)
		return true;
	for (; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* Whether workload or series name is to run (--only). */
static bool wanted(const char *name)
{
	return listed(only, name);
}

/* ---- readers ---- */

struct reader {
	const char *name;
	const char *argv[8];		/* "%d" is replaced by the pid */
	/*
	 * Or read this file ("%d": the pid) here, with 64 KiB read()s and no
	 * process or pipe in between: the kernel's share of a cat.
	 */
	const char *direct;
	/*
	 * With direct, ask it for its present pages with the PAGEMAP_SCAN
	 * ioctl instead: binary regions, without young or dirty, the
	 * baseline for the text readers.  Only where the ioctl works.
	 */
	bool scan;
	const char *needs;		/* a path that must exist, or NULL */
	bool in_scaling;		/* also timed in the scaling series */
	/*
	 * With direct, read with the module's bench_no_text set: the walk
	 * without the text, which must then be empty.
	 */
	bool no_text;
};

#define NO_TEXT_PARAM	"/sys/module/pmaps_ext/parameters/bench_no_text"

static const struct reader all_readers[] = {
	{ .name = "module", .argv = { "cat", "/proc/pmaps_ext/%d" },
	  .needs = "/proc/pmaps_ext/self", .in_scaling = true },
	{ .name = "module-read", .direct = "/proc/pmaps_ext/%d",
	  .needs = "/proc/pmaps_ext/self" },
	{ .name = "module-walk", .direct = "/proc/pmaps_ext/%d",
	  .needs = NO_TEXT_PARAM, .no_text = true },
	{ .name = "kernel", .argv = { "cat", "/proc/%d/pmaps" },
	  .needs = "/proc/self/pmaps", .in_scaling = true },
	{ .name = "kernel-read", .direct = "/proc/%d/pmaps",
	  .needs = "/proc/self/pmaps" },
	{ .name = "smaps", .argv = { "cat", "/proc/%d/smaps" },
	  .in_scaling = true },
	{ .name = "smaps-read", .direct = "/proc/%d/smaps" },
	{ .name = "page-types",
	  .argv = { "/bin/page-types", "-p", "%d", "-l", "-M", "-N" },
	  .needs = "/bin/page-types" },
	{ .name = "pagemap",
	  .argv = { "pmaps", "--source=pagemap", "--color=never", "%d" } },
	{ .name = "pmaps",
	  .argv = { "pmaps", "--source=module", "--color=never", "%d" },
	  .needs = "/proc/pmaps_ext/self" },
	{ .name = "pagemap-scan", .direct = "/proc/%d/pagemap", .scan = true,
	  .in_scaling = true },
};

_Static_assert(sizeof(all_readers) / sizeof(all_readers[0]) <= MAX_READERS,
	       "MAX_READERS too small");

static const struct reader *readers[MAX_READERS];
static unsigned int nr_readers;

struct output {
	unsigned long long bytes, lines, range_lines, range_bytes;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * Read what a reader wrote, and with out, count its lines and range lines
 * (those with a tab).  Only the warm-up run counts: byte by byte costs
 * more than some readers do.
 */
static void count_output(int fd, struct output *out)
{
	static char buf[PIPE_CHUNK];
	unsigned long long line_bytes = 0;
	bool tab = false;
	ssize_t n, i;

	if (out)
		memset(out, 0, sizeof(*out));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("read from reader");
		}
		if (!out)
			continue;
		out->bytes += n;
		for (i = 0; i < n; i++) {
			line_bytes++;
			if (buf[i] == '\t') {
				tab = true;
			} else if (buf[i] == '\n') {
				out->lines++;
				if (tab) {
					out->range_lines++;
					out->range_bytes += line_bytes;
				}
				line_bytes = 0;
				tab = false;
			}
		}
	}
}

/*
 * One PAGEMAP_SCAN pass over the whole user address space of fd's
 * process; the number of regions, or -1 with errno.
 */
static long long scan_pagemap(int fd)
{
	static struct page_region vec[SCAN_VEC];
	struct pm_scan_arg arg = {
		.size = sizeof(arg),
		.start = 0,
		.end = SCAN_END,
		.vec = (uintptr_t)vec,
		.vec_len = SCAN_VEC,
		.category_mask = PAGE_IS_PRESENT,
		.return_mask = SCAN_RETURN,
	};
	long long regions = 0;
	__u64 next;
	int n;

	for (;;) {
		n = ioctl(fd, PAGEMAP_SCAN, &arg);
		if (n < 0)
			return -1;
		regions += n;
		/*
		 * Only a full vector ends a call early.  walk_end alone does
		 * not say so: once the kernel has refilled its 512-region
		 * bounce buffer, it keeps that stop's walk_end even when the
		 * walk then finishes (6.12, 7.3), and going on from there
		 * would count regions twice.
		 */
		if (n < SCAN_VEC)
			return regions;
		next = arg.walk_end > vec[n - 1].end ? arg.walk_end :
						       vec[n - 1].end;
		if (next >= arg.end)
			return regions;
		arg.start = next;
	}
}

/*
 * Whether PAGEMAP_SCAN works here: kernels before v6.7 have no ioctl on
 * pagemap (ENOTTY), and one that does not know a category says EINVAL.
 */
static bool have_pagemap_scan(void)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = scan_pagemap(fd) >= 0;
	if (!ok)
		printf("# pagemap-scan: not run: PAGEMAP_SCAN on /proc/self/pagemap: %s\n",
		       strerror(errno));
	close(fd);
	return ok;
}

/* Set the module's bench_no_text parameter to Y or N; false on failure. */
static bool set_no_text(bool on)
{
	int fd = open(NO_TEXT_PARAM, O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, on ? "Y" : "N", 1) == 1;
	close(fd);
	return ok;
}

static uint64_t read_direct(const struct reader *r, pid_t pid,
			    struct output *out, char *why, size_t whylen)
{
	uint64_t t0, t1;
	long long regions = 0;
	char path[64];
	int fd;

	if (r->no_text && !set_no_text(true)) {
		snprintf(why, whylen, "%s: %s", NO_TEXT_PARAM, strerror(errno));
		return 0;
	}
	t0 = now_ns();
	snprintf(path, sizeof(path), r->direct, (int)pid);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		if (r->scan)
			regions = scan_pagemap(fd);
		else
			count_output(fd, out);
		close(fd);
	}
	t1 = now_ns();
	/* Every other reader of the module needs its text back. */
	if (r->no_text && !set_no_text(false)) {
		snprintf(why, whylen, "%s: %s", NO_TEXT_PARAM, strerror(errno));
		return 0;
	}
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return 0;
	}
	if (regions < 0) {
		snprintf(why, whylen, "PAGEMAP_SCAN on %s: %s", path,
			 strerror(errno));
		return 0;
	}
	if (r->no_text && out && out->bytes) {
		snprintf(why, whylen, "%llu bytes with bench_no_text set",
			 out->bytes);
		return 0;
	}
	/* each region stands for a range line of the text readers */
	if (r->scan && out) {
		out->lines = regions;
		out->range_lines = regions;
		out->bytes = regions * sizeof(struct page_region);
		out->range_bytes = out->bytes;
	}
	return t1 - t0 ? t1 - t0 : 1;
}

/*
 * Run reader r on pid, its output to /dev/null, or with out, into a pipe
 * this process reads and counts.  Returns the wall time from fork to
 * reaping, or 0 if the reader failed.
 */
static uint64_t run_reader(const struct reader *r, pid_t pid,
			   struct output *out, char *why, size_t whylen)
{
	char pidstr[16], *argv[8];
	int fds[2], status, i;
	uint64_t t0, t1;
	pid_t child;

	if (r->direct)
		return read_direct(r, pid, out, why, whylen);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	for (i = 0; r->argv[i]; i++) {
		char *arg = strdup(r->argv[i]);
		char *hole = strstr(arg, "%d");

		if (hole) {
			char *s;

			if (asprintf(&s, "%.*s%s%s", (int)(hole - arg), arg,
				     pidstr, hole + 2) < 0)
				die("asprintf");
			free(arg);
			arg = s;
		}
		argv[i] = arg;
	}
	argv[i] = NULL;

	/*
	 * Timed runs write to /dev/null, as "cat FILE > /dev/null" does: a
	 * pipe to this process would add a wakeup on the other CPU per pipe
	 * buffer, which under TCG costs more than some readers' own work.
	 */
	if (out && pipe(fds))
		die("pipe");
	t0 = now_ns();
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(out ? fds[1] : null, 1);
		dup2(null, 2);
		if (out) {
			close(fds[0]);
			close(fds[1]);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (out) {
		close(fds[1]);
		count_output(fds[0], out);
		close(fds[0]);
	}
	if (waitpid(child, &status, 0) < 0)
		die("waitpid");
	t1 = now_ns();
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, whylen, "%s %s", r->name,
			 WIFEXITED(status) ? "exited non-zero" : "was killed");
		return 0;
	}
	return t1 - t0 ? t1 - t0 : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) / 2];
}

/* ---- workloads ---- */

/* The part of a workload that runs in its own process, then sleeps. */
typedef int (*build_fn)(unsigned long long size, unsigned long long arg);

static char *map_anon(unsigned long long len, int extra_flags, bool huge)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/*
	 * 4 KiB pages unless huge pages are the point: the Debian kernels
	 * have THP "always", which would turn dense memory into a few
	 * PMD-mapped folios and a sparse touch into 2 MiB of memory each.
	 */
	madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return p;
}

/* size bytes, every stride-th page written */
static int build_anon(unsigned long long size, unsigned long long stride)
{
	char *p = map_anon(size, 0, false);
	unsigned long long off;

	if (!p)
		return -1;
	for (off = 0; off < size; off += stride * page_size)
		p[off] = 1;
	return 0;
}

#define BENCH_FILE	"/tmp/bench.file"

/* A tmpfs file of size bytes, mapped shared and read whole. */
static int build_file(unsigned long long size, unsigned long long unused)
{
	static char chunk[PIPE_CHUNK];
	unsigned long long off;
	volatile char sum = 0;
	char *p;
	int fd;

	(void)unused;
	fd = open(BENCH_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(chunk, 'x', sizeof(chunk));
	for (off = 0; off < size; off += sizeof(chunk))
		if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
			return -1;
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	for (off = 0; off < size; off += page_size)
		sum += p[off];
	return sum == 1;	/* never: keeps the reads */
}

/* size bytes reserved, touched pages written evenly across them */
static int build_sparse(unsigned long long size, unsigned long long touched)
{
	char *p = map_anon(size, MAP_NORESERVE, false);
	unsigned long long step = size / touched / page_size * page_size, i;

	if (!p)
		return -1;
	for (i = 0; i < touched; i++)
		p[i * step] = 1;
	return 0;
}

/*
 * count one-page VMAs: a mapping of count pages, written, then every
 * other page made read-only, so no two neighbours can merge.  count / 2
 * read-write VMAs alternate with count / 2 read-only ones.
 */
static int build_many(unsigned long long count, unsigned long long unused)
{
	char *p = map_anon(count * page_size, 0, false);
	unsigned long long i;

	(void)unused;
	if (!p)
		return -1;
	for (i = 0; i < count; i++)
		p[i * page_size] = 1;
	for (i = 1; i < count; i += 2)
		if (mprotect(p + i * page_size, page_size, PROT_READ))
			return -1;
	return 0;
}

/* size bytes of THP, 2 MiB aligned */
static int build_thp(unsigned long long size, unsigned long long unused)
{
	unsigned long long align = 2 * MIB, off;
	char *raw = map_anon(size + align, 0, true), *p;

	(void)unused;
	if (!raw)
		return -1;
	p = (char *)(((uintptr_t)raw + align - 1) & ~(align - 1));
	madvise(p, size, MADV_HUGEPAGE);
	for (off = 0; off < size; off += page_size)
		p[off] = 1;
	return 0;
}

/* Start a workload; its pid once it is built, or -1. */
static pid_t start_workload(build_fn build, unsigned long long size,
			    unsigned long long arg)
{
	int fds[2];
	char ok = 0;
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(fds[0]);
		ok = build(size, arg) == 0;
		if (write(fds[1], &ok, 1) != 1)
			_exit(1);
		close(fds[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (read(fds[0], &ok, 1) != 1)
		ok = 0;
	close(fds[0]);
	if (!ok) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

static void stop_workload(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(BENCH_FILE);
}

/* A line of /proc/PID/smaps_rollup or /proc/meminfo, in kB; -1 if none. */
static long long kb_field(const char *path, const char *key)
{
	char line[256];
	long long kb = -1;
	size_t len = strlen(key);
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			kb = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

static long long rollup_kb(pid_t pid, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	return kb_field(path, key);
}

/*
 * Every reader once to warm caches and count the output, then runs rounds
 * in which each reader runs once, so all see the same machine state.
 * Returns the module's range lines (0 without the module).
 */
static unsigned long long measure(const char *workload, pid_t pid)
{
	static uint64_t times[MAX_READERS][MAX_RUNS];
	unsigned long long module_ranges = 0;
	struct output out[MAX_READERS];
	bool failed[MAX_READERS] = { false };
	char why[128];
	unsigned int i, run;

	for (i = 0; i < nr_readers; i++)
		if (!run_reader(readers[i], pid, &out[i], why, sizeof(why))) {
			printf("fail\t%s\t%s\t%s\n", workload,
			       readers[i]->name, why);
			failed[i] = true;
		}
	for (run = 0; run < runs; run++)
		for (i = 0; i < nr_readers; i++) {
			if (failed[i])
				continue;
			times[i][run] = run_reader(readers[i], pid, NULL, why,
						   sizeof(why));
			if (!times[i][run]) {
				printf("fail\t%s\t%s\t%s\n", workload,
				       readers[i]->name, why);
				failed[i] = true;
			}
		}
	for (i = 0; i < nr_readers; i++) {
		if (failed[i])
			continue;
		printf("row\t%s\t%s\t%llu\t%u\t%llu\t%llu\t%llu\t%llu\n",
		       workload, readers[i]->name,
		       (unsigned long long)median(times[i], runs), runs,
		       out[i].bytes, out[i].lines, out[i].range_lines,
		       out[i].range_bytes);
		if (!strcmp(readers[i]->name, "module"))
			module_ranges = out[i].range_lines;
	}
	fflush(stdout);
	return module_ranges;
}

/*
 * The module keeps nothing per page or per range: kernel slab per open,
 * fully read file.  The files are read to EOF and kept open, so whatever
 * a read left allocated is counted; comparing workloads with one range
 * and with many shows whether it grows with them.
 */
static void measure_memory(const char *workload, pid_t pid,
			   unsigned long long ranges)
{
	enum { FILES = 32 };
	static char buf[PIPE_CHUNK];
	long long before, after;
	char path[64];
	int fds[FILES], i;

	if (access("/proc/pmaps_ext/self", R_OK))
		return;
	snprintf(path, sizeof(path), "/proc/pmaps_ext/%d", (int)pid);
	before = kb_field("/proc/meminfo", "Slab");
	for (i = 0; i < FILES; i++) {
		fds[i] = open(path, O_RDONLY);
		if (fds[i] < 0)
			die(path);
		while (read(fds[i], buf, sizeof(buf)) > 0)
			;
	}
	after = kb_field("/proc/meminfo", "Slab");
	for (i = 0; i < FILES; i++)
		close(fds[i]);
	printf("memory\t%s\t%d\t%llu\t%lld\n", workload, FILES, ranges,
	       (after - before) * 1024 / FILES);
}

struct workload {
	const char *name;
	const char *what;
	build_fn build;
	unsigned long long size, arg;
	const char *needs;
};

static void run_workload(const struct workload *w)
{
	unsigned long long ranges;
	pid_t pid;

	if (w->needs && access(w->needs, F_OK)) {
		printf("skip\t%s\tno %s\n", w->name, w->needs);
		return;
	}
	printf("workload\t%s\t%s%s\n", w->name,
	       shrink > 1 ? "smoke, 1/64 of: " : "", w->what);
	fflush(stdout);
	pid = start_workload(w->build, w->size, w->arg);
	if (pid < 0) {
		printf("skip\t%s\tcould not build it\n", w->name);
		return;
	}
	if (w->build == build_thp)
		printf("# %s: AnonHugePages %lld of %llu kB\n", w->name,
		       rollup_kb(pid, "AnonHugePages"), w->size >> 10);
	ranges = measure(w->name, pid);
	if (w->build == build_anon && listed(only_readers, "module"))
		measure_memory(w->name, pid, ranges);
	stop_workload(pid);
}

/* One point of a scaling series: x, and how to build its workload. */
struct point {
	unsigned long long x, size, arg;
	pid_t pid;
};

/*
 * Time the scaling readers on each point's workload; one record per point
 * and reader.  With together, every workload lives at once and each run
 * goes round all points and readers, so a change in machine load hits
 * every point alike; otherwise (too big to hold at once) one point after
 * the other.
 */
static void scale_series(const char *series, struct point *pts,
			 unsigned int nr, build_fn build, bool together)
{
	static uint64_t times[16][MAX_READERS][MAX_RUNS];
	unsigned int p, i, run, first, last;
	struct output o;
	char why[128];

	for (first = 0; first < nr; first = last) {
		last = together ? nr : first + 1;
		for (p = first; p < last; p++) {
			pts[p].pid = start_workload(build, pts[p].size,
						    pts[p].arg);
			if (pts[p].pid < 0)
				printf("skip\t%s-%llu\tcould not build it\n",
				       series, pts[p].x);
		}
		for (run = 0; run <= runs; run++)
			for (p = first; p < last; p++)
				for (i = 0; i < nr_readers && pts[p].pid > 0; i++) {
					uint64_t ns;

					if (!readers[i]->in_scaling)
						continue;
					/* run 0 warms up and checks */
					ns = run_reader(readers[i], pts[p].pid,
							run ? NULL : &o, why,
							sizeof(why));
					if (!ns)
						printf("fail\t%s-%llu\t%s\t%s\n",
						       series, pts[p].x,
						       readers[i]->name, why);
					if (run)
						times[p][i][run - 1] = ns;
				}
		for (p = first; p < last; p++) {
			if (pts[p].pid < 0)
				continue;
			for (i = 0; i < nr_readers; i++)
				if (readers[i]->in_scaling)
					printf("scale\t%s\t%s\t%llu\t%llu\n",
					       series, readers[i]->name, pts[p].x,
					       (unsigned long long)median(times[p][i], runs));
			stop_workload(pts[p].pid);
		}
		fflush(stdout);
	}
}

#define SPARSE_TOUCHED	1000

/*
 * The clock every time here is read from, as the kernel names it.  A
 * guest whose TSC calibration failed under TCG runs on (refined-)jiffies:
 * times in steps of a tick, which tests/bench/table.awk does not judge.
 */
static void print_clocksource(void)
{
	char name[64] = "unknown";
	FILE *f = fopen(CLOCKSOURCE, "re");

	if (f) {
		if (!fgets(name, sizeof(name), f))
			strcpy(name, "unknown");
		name[strcspn(name, "\n")] = '\0';
		fclose(f);
	}
	printf("clock\t%s\n", name);
}

int main(int argc, char **argv)
{
	struct workload workloads[] = {
		{ .name = "dense", .what = "512 MiB anonymous, all written",
		  .build = build_anon, .size = 512 * MIB, .arg = 1 },
		{ .name = "scattered",
		  .what = "every other page of 512 MiB written",
		  .build = build_anon, .size = 512 * MIB, .arg = 2 },
		{ .name = "file",
		  .what = "256 MiB tmpfs file mapped shared and read",
		  .build = build_file, .size = 256 * MIB },
		{ .name = "sparse",
		  .what = "1 TiB reserved, 1000 pages touched across it",
		  .build = build_sparse, .size = TIB, .arg = SPARSE_TOUCHED },
		{ .name = "many-vmas", .what = "20000 one-page mappings",
		  .build = build_many, .size = 20000 },
		{ .name = "thp", .what = "1 GiB in transparent huge pages",
		  .build = build_thp, .size = GIB,
		  .needs = "/sys/kernel/mm/transparent_hugepage/enabled" },
		{ .name = "thp256", .what = "256 MiB in transparent huge pages",
		  .build = build_thp, .size = 256 * MIB,
		  .needs = "/sys/kernel/mm/transparent_hugepage/enabled" },
	};
	struct point pts[16];
	unsigned long long x;
	struct utsname uts;
	unsigned int i, nr;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--smoke")) {
			shrink = 64;
			runs = 1;
		} else if (!strcmp(argv[i], "--runs") && i + 1 < (unsigned int)argc) {
			runs = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--only") && i + 1 < (unsigned int)argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--readers") && i + 1 < (unsigned int)argc) {
			only_readers = argv[++i];
		} else {
			fprintf(stderr, "usage: bench [--smoke] [--runs N] [--only NAME[,NAME]...] [--readers NAME[,NAME]...]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "bench: --runs: expected 1 to %d\n", MAX_RUNS);
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	uname(&uts);
	printf("kernel\t%s\n", uts.release);
	print_clocksource();
	for (i = 0; i < sizeof(all_readers) / sizeof(all_readers[0]); i++) {
		const struct reader *r = &all_readers[i];
		unsigned int a;

		if (!listed(only_readers, r->name) ||
		    (r->needs && access(r->needs, F_OK)))
			continue;
		if (r->scan && !have_pagemap_scan())
			continue;
		readers[nr_readers++] = r;
		printf("reader\t%s\t", r->name);
		if (r->scan)
			printf("PAGEMAP_SCAN of %s, %d regions a call, in the bench process",
			       r->direct, SCAN_VEC);
		else if (r->direct)
			printf("read(2) of %s in 64 KiB, in the bench process%s",
			       r->direct,
			       r->no_text ? ", with the module's bench_no_text set: the walk without the text" : "");
		for (a = 0; r->argv[a]; a++) {
			const char *arg = r->argv[a], *hole = strstr(arg, "%d");

			printf("%s%.*s%s%s", a ? " " : "",
			       hole ? (int)(hole - arg) : (int)strlen(arg), arg,
			       hole ? "PID" : "", hole ? hole + 2 : "");
		}
		printf("\n");
	}

	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		struct workload w = workloads[i];

		/* many-vmas counts mappings, sparse keeps its touched pages */
		w.size /= shrink;
		if (w.build == build_sparse && w.size < GIB)
			w.size = GIB;
		if (wanted(w.name))
			run_workload(&w);
	}

	/* Time against resident pages: dense, 64 MiB to 1 GiB. */
	for (nr = 0, x = 64 * MIB; x <= GIB; x *= 2, nr++)
		pts[nr] = (struct point){ .x = x / shrink / page_size,
					  .size = x / shrink, .arg = 1 };
	if (wanted("dense-scale"))
		scale_series("dense", pts, nr, build_anon, false);
	/* Time against virtual size: 1000 pages in 1 GiB to 64 TiB. */
	for (nr = 0, x = GIB; x <= 64 * TIB; x *= 16, nr++)
		pts[nr] = (struct point){ .x = x, .size = x,
					  .arg = SPARSE_TOUCHED };
	if (wanted("sparse-scale"))
		scale_series("sparse", pts, nr, build_sparse, true);
	printf("# bench: done\n");
	return 0;
}
