// SPDX-License-Identifier: GPL-2.0
/*
 * Guest tests for reliability and security of the pmaps text
 * (/proc/pmaps_ext/PID): very long texts, kernel memory per open file,
 * mmap_lock hold times, and the permission cases pmaps_test.c lacks.
 *
 *   resources [test_name...]
 *
 * Runs as root; TAP on stdout; exit status 0 when everything passed or was
 * skipped.  PMAPS_FILE_FMT (default "/proc/pmaps_ext/%s"; "%d" works too)
 * selects the file; PMAPS_CLI (default /bin/pmaps) the command-line tool.
 * test_200k_ranges_every_read_size needs 200000 pages available (800 MiB
 * of 4 KiB pages, 3.1 GiB of 16 KiB ones): tests/qemu/run.sh gives the
 * guest memory for that.
 *
 * Permission matrix (PTRACE_MODE_READ_FSCREDS, checked at open()).
 * "denied" is ENOENT in the module's directory, which names only
 * processes the reader may read, and EACCES for /proc/PID/pmaps
 * (denied_errno()); Documentation/pmaps_ext.rst has the whole matrix.
 *
 *   case                                  expected        asserted by
 *   ------------------------------------  --------------  -----------------------------
 *   root reader                           reads           pmaps_test: every test;
 *                                                         test_perm_nondumpable (root
 *                                                         reads a non-dumpable target)
 *   same uid, dumpable target             reads           pmaps_test: test_perm_same_uid
 *   other uid                             denied          pmaps_test: test_perm_other_uid
 *   same uid, PR_SET_DUMPABLE 0           denied          pmaps_test: test_perm_nondumpable
 *   same uid, non-dumpable by a           denied          resources: test_perm_setuid_target
 *     credential change (as set-id)
 *   reader is the target ("self"),        reads           pmaps_test: test_perm_self
 *     non-dumpable
 *   opened as root, privileges dropped    reads (access   pmaps_test: test_perm_open_then_drop
 *     before read()                         fixed at open)
 *   reader in a child pid namespace       its own pids    pmaps_test: test_pid_namespace
 *                                           only; outer
 *                                           pid ENOENT
 *   uid 65534 with only CAP_SYS_PTRACE    reads a root    resources: test_perm_cap_sys_ptrace_only
 *                                           process
 *   uid 65534 with no caps, or with       denied          resources: test_perm_cap_sys_ptrace_only
 *     only DAC-override caps
 *   uid 65534 with only CAP_SYS_ADMIN     denied; /proc/  resources: test_perm_cap_sys_admin_only
 *                                           PID/pmaps as
 *                                           maps (reads on
 *                                           7.x)
 *   any non-root reader                   no PFN shown    resources: test_no_physical_addresses
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"
#include "pagemap.h"
#include "pmaps.h"
#include "tap.h"

#define DEFAULT_CLI		"/bin/pmaps"
#define TEST_TIMEOUT_SEC	300
#define MIB			(1UL << 20)

/* ---- reading ---- */

static const struct pmaps_vma *vma_at(const struct pmaps_map *map,
				      const void *addr)
{
	unsigned long long a = (uintptr_t)addr;
	size_t i;

	for (i = 0; i < map->nr_vmas; i++)
		if (map->vmas[i].start <= a && a < map->vmas[i].end)
			return &map->vmas[i];
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A /proc/meminfo field in kB, or -1. */
static long long meminfo_kb(const char *key)
{
	size_t klen = strlen(key);
	long long val = -1;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			val = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return val;
}

/* ---- mappings ---- */

/*
 * An anonymous mapping of that many pages, every stride-th one written:
 * with stride 2 each written page is a one-page range of its own.
 * NORESERVE: only the written pages need memory.
 */
static char *map_sparse(size_t pages, size_t stride)
{
	char *p = map_between_guards(pages * page_size, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS |
				     MAP_NORESERVE, -1, 0);
	size_t i;

	if (!p)
		return NULL;
	/* a THP would make 512 written pages one range */
	if (no_thp(p, pages * page_size)) {
		tap_diag("MADV_NOHUGEPAGE: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < pages; i += stride)
		((volatile char *)p)[i * page_size] = 1;
	return p;
}

/* Enough memory for pages more pages, with a margin for the rest? */
static bool have_memory_for(size_t pages, long long *avail_mib)
{
	long long avail = meminfo_kb("MemAvailable");

	*avail_mib = avail / 1024;
	return avail < 0 ||
	       (unsigned long long)avail * 1024 >= pages * page_size + 128 * MIB;
}

/* ---- test_200k_ranges_every_read_size ---- */

#define BIG_RANGES		200000UL
/*
 * 1-byte reads: the first 256 KiB (64 pages of seq_file's buffer, some
 * 11000 records), and the rest only if the whole file fits the budget.
 * A MiB took 50 s on arm64 under TCG, a fifth of the suite's limit.
 */
#define BYTE_READ_PROBE		(256UL << 10)
#define BYTE_READ_BUDGET_MS	20000.0

struct sparse_setup {
	size_t pages;
	size_t stride;
};

static char *setup_sparse(void *arg)
{
	const struct sparse_setup *s = arg;

	return map_sparse(s->pages, s->stride);
}

/* The VMA at base must hold exactly nr one-page ranges, stride apart. */
static bool check_sparse(const struct text *t, const char *path,
			 const char *base, size_t nr, size_t stride)
{
	unsigned long long first = (uintptr_t)base / page_size;
	const struct pmaps_vma *v;
	struct pmaps_map map;
	bool ok = true;
	size_t i;

	if (parse_text(t, path, &map))
		return false;
	v = vma_at(&map, base);
	if (!v) {
		tap_diag("no VMA holds %p", (const void *)base);
		ok = false;
	} else if (v->nr_ranges != nr) {
		tap_diag("%zu range lines in the VMA, expected %zu",
			 v->nr_ranges, nr);
		ok = false;
	}
	for (i = 0; ok && i < nr; i++) {
		const struct pmaps_range *r = &v->ranges[i];

		if (r->index != first + i * stride || r->count != 1) {
			tap_diag("range %zu (line %u) is %llu +%llu, expected %llu +1",
				 i, r->line, r->index, r->count,
				 first + i * stride);
			ok = false;
		}
	}
	pmaps_map_free(&map);
	return ok;
}

/* b must equal a, or its first b->len bytes if prefix. */
/*
 * Keep every header of t but only the range lines of the mapping at base.
 * The target's other mappings share pages with processes that come and
 * go (the binary, the vDSO), whose mapcounts and flags may change between
 * two reads; the comparison is about how the file is read, not about them.
 */
static void keep_own_ranges(struct text *t, const void *base)
{
	char header[32];
	size_t in = 0, out = 0, hlen;
	bool own = false;

	hlen = (size_t)snprintf(header, sizeof(header), "%lx-",
				(unsigned long)(uintptr_t)base);
	while (in < t->len) {
		const char *line = t->data + in;
		const char *nl = memchr(line, '\n', t->len - in);
		size_t len = nl ? (size_t)(nl - line) + 1 : t->len - in;
		size_t digits = 0;
		bool is_range;

		/* INDEX<TAB>...: decimal digits, then a TAB */
		while (digits < len && line[digits] >= '0' && line[digits] <= '9')
			digits++;
		is_range = digits && digits < len && line[digits] == '\t';

		if (!is_range)
			own = len >= hlen && !memcmp(line, header, hlen);
		if (!is_range || own) {
			memmove(t->data + out, line, len);
			out += len;
		}
		in += len;
	}
	t->len = out;
}

static bool same_text(const struct text *a, const struct text *b,
		      const char *what, bool prefix)
{
	size_t n = a->len < b->len ? a->len : b->len, off = 0;

	while (off < n && a->data[off] == b->data[off])
		off++;
	if (off == b->len && (prefix || off == a->len))
		return true;
	tap_diag("%s: %zu bytes, 64 KiB reads: %zu; first difference at byte %zu",
		 what, b->len, a->len, off);
	show_line_at("64 KiB reads", a, off);
	show_line_at(what, b, off);
	return false;
}

static enum outcome test_200k_ranges_every_read_size(void)
{
	static const size_t chunks[] = { 4096, 1 * MIB };
	struct sparse_setup setup = { .pages = 2 * BIG_RANGES, .stride = 2 };
	struct text ref = { 0 }, other = { 0 };
	struct timespec t0, t1;
	char path[PATH_MAX], what[48];
	double ms, projected;
	long long avail_mib;
	bool ok = true;
	struct target t;
	size_t i;
	int fd, err;

	if (!have_memory_for(BIG_RANGES, &avail_mib))
		return skip("needs %lu MiB + 128 MiB available, have %lld MiB",
			    BIG_RANGES * page_size / MIB, avail_mib);
	if (target_start(&t, setup_sparse, &setup))
		return FAIL;
	if (target_stop(&t)) {
		target_end(&t);
		return FAIL;
	}
	pmaps_path_pid(path, sizeof(path), t.pid);

	/* a stopped target's PG_active can still flip while batches drain */
	drain_lru_batches();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = read_path_text(path, READ_CHUNK, &ref);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (err) {
		tap_diag("reading %s: %s", path, strerror(-err));
		ok = false;
		goto out;
	}
	tap_diag("%zu bytes in 64 KiB reads: %.1f ms", ref.len,
		 elapsed_ms(&t0, &t1));
	tap_check(check_sparse(&ref, path, t.base, BIG_RANGES, setup.stride),
		  "the 64 KiB-read text lacks the %lu ranges", BIG_RANGES);
	keep_own_ranges(&ref, t.base);

	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		err = read_path_text(path, chunks[i], &other);
		keep_own_ranges(&other, t.base);
		snprintf(what, sizeof(what), "%zu-byte reads", chunks[i]);
		if (err)
			tap_check(0, "%s of %s: %s", what, path, strerror(-err));
		else
			tap_check(same_text(&ref, &other, what, false),
				  "%s give another text", what);
	}

	/* 1-byte reads cost a syscall a byte: time the probe, then decide. */
	other.len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_check(0, "open %s: %s", path, strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = read_fd_text(fd, 1, BYTE_READ_PROBE, &other);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = elapsed_ms(&t0, &t1);
	projected = other.len ? ms * (double)ref.len / (double)other.len : 0;
	tap_diag("1-byte reads: first %zu bytes in %.0f ms; whole file projected %.0f ms",
		 other.len, ms, projected);
	if (err == 1 && projected <= BYTE_READ_BUDGET_MS)
		err = read_fd_text(fd, 1, 0, &other);
	close(fd);
	keep_own_ranges(&other, t.base);
	if (err < 0) {
		tap_check(0, "1-byte reads of %s: %s", path, strerror(-err));
	} else {
		if (err == 1)
			tap_diag("comparing only the first %zu bytes of 1-byte reads",
				 other.len);
		tap_check(same_text(&ref, &other, "1-byte reads", err == 1),
			  "1-byte reads give another text");
	}
out:
	text_free(&ref);
	text_free(&other);
	target_end(&t);
	ok = ok && !tap_failed_checks;
	tap_failed_checks = 0;
	return ok ? PASS : FAIL;
}

/* ---- test_kernel_memory_per_open_file ---- */

#define NR_OPEN_FILES		100
/*
 * Documentation/pmaps_ext.rst: an open file costs its seq_file buffer
 * (one page, more only for a header longer than that) plus struct file,
 * struct seq_file and a small private struct; nothing per page, range or
 * VMA.  64 KiB leaves room for slab rounding and noise, yet a file that
 * buffers its whole text (over 128 KiB here) fails.
 */
#define PER_FILE_BOUND		(64UL << 10)
/*
 * At least half its one-page buffer: less means the measurement did not
 * see the files (Slab counts whole slab pages, so it is coarse).
 */
#define PER_FILE_MIN		(2UL << 10)
#define MEM_TEXT_RANGES		8192

/*
 * Flush every CPU's slabs and free the empty ones (kmem_cache_shrink()).
 * Otherwise objects freed on one CPU wait in that CPU's partial slabs
 * while another CPU allocates new slabs, and Slab counts both: in one
 * run on a 6.12 PREEMPT_RT guest, 100 files closed and opened again cost
 * 55% of their first opening, where other runs of the same code cost
 * next to nothing.
 */
static void slab_shrink_all(void)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir("/sys/kernel/slab");

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_type == DT_DIR && d->d_name[0] != '.') {
			snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
				 d->d_name);
			write_string(path, "1");
		}
	closedir(dir);
}

/*
 * Kernel memory that a seq_file buffer (kvmalloc) can come from, in kB,
 * after slab_shrink_all().
 */
static long long kernel_kb(void)
{
	long long slab, vm;

	slab_shrink_all();
	slab = meminfo_kb("Slab");
	vm = meminfo_kb("VmallocUsed");
	return slab < 0 ? -1 : slab + (vm > 0 ? vm : 0);
}

/*
 * kernel_kb() once it holds still: two readings SETTLE_MS apart within
 * SETTLE_KB, after at most SETTLE_POLLS.  What the set-up just freed
 * (the long-text target's maple nodes, through RCU, whose grace periods
 * under TCG take long) otherwise leaves Slab during the measurement: one
 * make check-all saw -56 kB "with 100 more files open" on patched-plain.
 * Whether and how long it waited is said, and a reading that never
 * settles is used as it is.
 */
#define SETTLE_MS		250
#define SETTLE_KB		16
#define SETTLE_POLLS		20

static long long kernel_kb_settled(void)
{
	long long first = kernel_kb(), was = first, now = first;
	int polls;

	for (polls = 1; polls <= SETTLE_POLLS; polls++) {
		usleep(SETTLE_MS * 1000);
		now = kernel_kb();
		if (now < 0 || llabs(now - was) <= SETTLE_KB)
			break;
		was = now;
	}
	if (polls > 1)
		tap_diag("Slab+VmallocUsed %s after %d readings %d ms apart, %+lld kB from the first",
			 polls > SETTLE_POLLS ? "did not hold still" : "held still",
			 (polls > SETTLE_POLLS ? SETTLE_POLLS : polls) + 1,
			 SETTLE_MS, now - first);
	return now;
}

/* Open NR_OPEN_FILES of path and read one byte of each. */
static int open_partially_read(const char *path, int *fds)
{
	int i;
	char byte;

	for (i = 0; i < NR_OPEN_FILES; i++) {
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0 || read(fds[i], &byte, 1) != 1) {
			tap_diag("open and read 1 byte of %s (#%d): %s", path,
				 i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void close_all(int *fds)
{
	int i;

	for (i = 0; i < NR_OPEN_FILES; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * Generic KASAN keeps freed objects in a quarantine instead of handing
 * them out again (mm/kasan/quarantine.c), so on such a kernel freeing
 * shows neither as reuse nor in Slab; kmemleak (tests/qemu/init) judges
 * leaks there.  The kernel says so in its log at boot.
 */
/* syslog(2) actions; glibc's <sys/klog.h> does not name them */
#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_SIZE_BUFFER	10

static bool kasan_quarantines(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	bool found = false;
	char *log;
	int len;

	if (size <= 0)
		return false;
	log = malloc((size_t)size + 1);
	if (!log)
		return false;
	len = klogctl(SYSLOG_ACTION_READ_ALL, log, size);
	if (len > 0) {
		log[len] = '\0';
		found = strstr(log, "KernelAddressSanitizer initialized (generic)");
	}
	free(log);
	return found;
}

/*
 * A text long enough that a file buffering it whole is told from one
 * holding a page: the target of both per-file memory tests.
 */
static int start_long_text_target(struct target *t, char *path, size_t size)
{
	static struct sparse_setup setup = { .pages = 2 * MEM_TEXT_RANGES,
					     .stride = 2 };
	struct text text = { 0 };
	int err;

	if (target_start(t, setup_sparse, &setup))
		return -1;
	if (target_stop(t))
		return -1;
	pmaps_path_pid(path, size, t->pid);
	err = read_path_text(path, READ_CHUNK, &text);
	if (err) {
		tap_diag("reading %s: %s", path, strerror(-err));
		return -1;
	}
	tap_diag("the target's text is %zu bytes", text.len);
	err = text.len <= 2 * PER_FILE_BOUND;
	if (err)
		tap_diag("text too short to tell a per-file bound of %lu bytes from buffering it whole",
			 PER_FILE_BOUND);
	text_free(&text);
	return err ? -1 : 0;
}

/*
 * What both per-file memory tests measure: kernel memory before and
 * after NR_OPEN_FILES of the long text's file are opened and partially
 * read.  As many are held open before, as a warm-up (slab caches,
 * dentries): a warm-up round closed first would leave free objects that
 * the measured round reuses, and it would cost nothing.
 */
struct open_files {
	int held[NR_OPEN_FILES], fds[NR_OPEN_FILES];
	char path[PATH_MAX];
	struct target t;
	long long before, opened;		/* kernel_kb() */
	long long avail_before, avail_opened;	/* MemAvailable */
	cpu_set_t cpus;				/* affinity to restore */
	bool pinned;
};

/* Opening and closing on one CPU keeps the files' objects in its slabs. */
static void pin_to_this_cpu(struct open_files *f)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	f->pinned = false;
	if (cpu < 0 || sched_getaffinity(0, sizeof(f->cpus), &f->cpus))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	f->pinned = !sched_setaffinity(0, sizeof(one), &one);
}

static int open_files_measured(struct open_files *f)
{
	memset(f->held, -1, sizeof(f->held));
	memset(f->fds, -1, sizeof(f->fds));
	pin_to_this_cpu(f);
	if (start_long_text_target(&f->t, f->path, sizeof(f->path)) ||
	    open_partially_read(f->path, f->held))
		return -1;
	f->before = kernel_kb_settled();
	f->avail_before = meminfo_kb("MemAvailable");
	if (open_partially_read(f->path, f->fds))
		return -1;
	f->opened = kernel_kb();
	f->avail_opened = meminfo_kb("MemAvailable");
	return 0;
}

static void open_files_end(struct open_files *f)
{
	close_all(f->fds);
	close_all(f->held);
	target_end(&f->t);
	if (f->pinned)
		sched_setaffinity(0, sizeof(f->cpus), &f->cpus);
}

static enum outcome test_kernel_memory_per_open_file(void)
{
	struct open_files f;
	long long per_file;
	bool ok = false;

	if (meminfo_kb("Slab") < 0)
		return skip("no Slab line in /proc/meminfo");
	if (open_files_measured(&f))
		goto out;
	per_file = (f.opened - f.before) * 1024 / NR_OPEN_FILES;
	tap_diag("Slab+VmallocUsed: %lld kB before, %+lld kB with %d more files open",
		 f.before, f.opened - f.before, NR_OPEN_FILES);
	tap_diag("=> %lld bytes of kernel memory per open file (bounds %lu to %lu); MemAvailable %+lld kB",
		 per_file, PER_FILE_MIN, PER_FILE_BOUND,
		 f.avail_opened - f.avail_before);
	ok = per_file >= (long long)PER_FILE_MIN &&
	     per_file < (long long)PER_FILE_BOUND;
	if (per_file < (long long)PER_FILE_MIN)
		tap_diag("an open, partially read file costs %lld bytes, under the %lu of its buffer: the measurement missed it",
			 per_file, PER_FILE_MIN);
	else if (per_file >= (long long)PER_FILE_BOUND)
		tap_diag("an open, partially read file costs %lld bytes, over %lu",
			 per_file, PER_FILE_BOUND);
out:
	open_files_end(&f);
	return ok ? PASS : FAIL;
}

/*
 * What closed files gave back, as many opened again reuse; what they kept
 * (a leaked buffer), those must take anew.
 */
static enum outcome test_closed_files_give_memory_back(void)
{
	long long per_file, again, reopened;
	struct open_files f;
	bool ok = false;

	if (meminfo_kb("Slab") < 0)
		return skip("no Slab line in /proc/meminfo");
	if (kasan_quarantines())
		return skip("KASAN quarantines freed objects; the plain kernel's suites judge what closing frees");
	if (open_files_measured(&f))
		goto out;
	close_all(f.fds);
	memset(f.fds, -1, sizeof(f.fds));
	if (open_partially_read(f.path, f.fds))
		goto out;
	reopened = kernel_kb();

	per_file = (f.opened - f.before) * 1024 / NR_OPEN_FILES;
	again = (reopened - f.opened) * 1024 / NR_OPEN_FILES;
	tap_diag("Slab+VmallocUsed: %+lld kB with %d more files open, %+lld kB after closing them and opening as many again",
		 f.opened - f.before, NR_OPEN_FILES, reopened - f.opened);
	tap_diag("=> %lld bytes per open file, %lld per file opened again",
		 per_file, again);
	ok = per_file >= (long long)PER_FILE_MIN && again < per_file / 2;
	if (per_file < (long long)PER_FILE_MIN)
		tap_diag("an open file costs %lld bytes, under %lu: the measurement missed it",
			 per_file, PER_FILE_MIN);
	else if (again >= per_file / 2)
		tap_diag("closing the files gave back too little: opening as many again cost %lld bytes each",
			 again);
out:
	open_files_end(&f);
	return ok ? PASS : FAIL;
}

/* ---- test_release_drops_the_mm ---- */

#define NR_MM_TARGETS		200
#define MM_CACHE		"mm_struct"

/*
 * Allocated objects of a slab cache, from /proc/slabinfo after flushing
 * the per-CPU slabs (whose free objects slabinfo counts as active), or -1.
 */
static long long slab_active_objects(const char *cache)
{
	char line[512], name[64], shrink[PATH_MAX];
	long long active = -1, n;
	FILE *f;

	snprintf(shrink, sizeof(shrink), "/sys/kernel/slab/%s/shrink", cache);
	if (!access(shrink, W_OK))
		write_string(shrink, "1");
	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", name, &n) == 2 &&
		    !strcmp(name, cache)) {
			active = n;
			break;
		}
	fclose(f);
	return active;
}

/*
 * Each open file pins its target's mm_struct (mmgrab()) and release must
 * drop it: a missing mmdrop() keeps every such mm_struct after its
 * process is gone.  Open and close the text of many short-lived
 * processes and count mm_structs before and after.
 */
static enum outcome test_release_drops_the_mm(void)
{
	pid_t pids[NR_MM_TARGETS], parent = getpid();
	long long before, after = -1;
	char path[PATH_MAX], byte;
	bool ok = false;
	int i, fd, tries;

	if (slab_active_objects(MM_CACHE) < 0)
		return skip("no %s line in /proc/slabinfo", MM_CACHE);
	if (kasan_quarantines())
		return skip("KASAN quarantines freed objects; the plain kernel's suites judge what release frees");
	for (i = 0; i < NR_MM_TARGETS; i++)
		pids[i] = -1;
	before = slab_active_objects(MM_CACHE);
	for (i = 0; i < NR_MM_TARGETS; i++) {
		fflush(stdout);
		pids[i] = fork();
		if (pids[i] < 0) {
			tap_diag("fork: %s", strerror(errno));
			goto out;
		}
		if (pids[i] == 0) {
			die_with_parent(parent);
			pause();
			_exit(0);
		}
		pmaps_path_pid(path, sizeof(path), pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, &byte, 1) != 1) {
			tap_diag("open and read 1 byte of %s: %s", path,
				 strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
	}
	ok = true;
out:
	for (i = 0; i < NR_MM_TARGETS && pids[i] > 0; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < NR_MM_TARGETS && pids[i] > 0; i++)
		waitpid(pids[i], NULL, 0);
	if (!ok)
		return FAIL;
	/*
	 * The last mmdrop() of an exited process can wait for a CPU that
	 * borrowed its mm to switch, or for RCU (PREEMPT_RT frees it from
	 * an RCU callback): a bounded wait, 5 s.
	 */
	for (tries = 0; tries < 50; tries++) {
		syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, -1);
		after = slab_active_objects(MM_CACHE);
		if (after - before < NR_MM_TARGETS / 2)
			break;
		usleep(100 * 1000);
	}
	tap_diag("%s objects: %lld before, %lld after opening, reading and closing the text of %d processes that then exited",
		 MM_CACHE, before, after, NR_MM_TARGETS);
	if (after - before >= NR_MM_TARGETS / 2) {
		tap_diag("%lld mm_structs outlived their processes: release did not drop the mm",
			 after - before);
		return FAIL;
	}
	return PASS;
}

/* ---- test_mmap_latency_under_reader ---- */

/*
 * A reader that held the mmap lock across a whole read of a long text
 * would stall the target's mmap() for that long; one that drops it as it
 * goes stalls it for a small part of a read.  A single worst call cannot
 * tell them apart under TCG, where one host preemption decides it.  So
 * the target's calls are timed in LAT_ROUNDS interleaved rounds, each a
 * phase alone then one with readers, each phase LAT_PHASE_READS full reads
 * long, or down to one where LAT_PHASES_BUDGET_NS says (with readers, and
 * on until one of their reads has ended, so that each such phase holds
 * one): a reader holding the lock for a read shows in nearly every
 * readers' phase, a preemption in one.  What is judged is the median over
 * the rounds of each phase's worst call, with readers minus alone: under
 * half of one full read.
 */
/* a long read: a whole-read stall stands far above the noise */
#define LAT_RANGES		200000UL
#define NR_READERS		2
#define LAT_ROUNDS		7
#define LAT_PHASE_READS		6
#define LAT_MIN_PHASE_NS	250000000ULL
#define LAT_MAX_SAMPLES		(1 << 18)
#define LAT_IDLE_WAIT_NS	30000000000ULL
/* a phase with readers waits this long at most for one read to end */
#define LAT_MAX_PHASE_NS	60000000000ULL
/*
 * The rounds' phases together, past the reads they wait for: a quarter of
 * the test's alarm.  LAT_PHASE_READS reads of 2.8 s (TCG arm64) or 1.6 s
 * (KASAN and lockdep) made 14 phases of 17 s or 10 s, and the alarm rang;
 * a shorter phase still holds one whole read.
 */
#define LAT_PHASES_BUDGET_NS	(TEST_TIMEOUT_SEC * 1000000000ULL / 4)

struct lat_shared {
	int stop_readers;
	int pause_readers;
	int reading[NR_READERS];
	unsigned long full_reads[NR_READERS];
	int read_err[NR_READERS];
	uint64_t phase_ns;
	/* a phase goes on, past phase_ns, until this many reads ended */
	unsigned long until_reads;
	size_t nr;
	uint64_t worst;
	/* the last LAT_MAX_SAMPLES calls of the phase */
	uint64_t ns[LAT_MAX_SAMPLES];
};

static unsigned long reads_so_far(struct lat_shared *sh)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < NR_READERS; i++)
		sum += __atomic_load_n(&sh->full_reads[i], __ATOMIC_SEQ_CST);
	return sum;
}

/*
 * The readers of a run: NR_READERS, or as PMAPS_LAT_READERS says (make
 * bench judges the 99th percentile with one reader, as issue 31 asks).
 */
static int lat_readers = NR_READERS;

/* One phase's calls. */
struct lat_phase {
	size_t n;
	uint64_t median, worst;
};

/* Every round's phases of one kind, and all their calls' times. */
struct lat_stats {
	struct lat_phase phase[LAT_ROUNDS];
	uint64_t median, worst, median_worst, p99;
	uint64_t *all;
	size_t calls;			/* in all */
};

/*
 * The target: for each command byte, time mmap() and munmap() of one
 * page, both of which take its mmap write lock, for phase_ns, and on until
 * until_reads reads have ended: where a read takes longer than a phase
 * (a slow clock, a kernel whose reads wait for this very lock), a phase
 * with readers would otherwise see none end and prove nothing.
 */
static void latency_target(struct lat_shared *sh, int cmd_fd, int reply_fd)
{
	char cmd;

	while (read(cmd_fd, &cmd, 1) == 1 && cmd == 'r') {
		uint64_t start = now_ns(), t0, t1, t2;
		size_t n = 0;

		sh->worst = 0;

		do {
			void *p;

			t0 = now_ns();
			p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			t1 = now_ns();
			if (p == MAP_FAILED || munmap(p, page_size)) {
				cmd = 'e';
				break;
			}
			t2 = now_ns();
			sh->ns[n++ % LAT_MAX_SAMPLES] = t1 - t0;
			sh->ns[n++ % LAT_MAX_SAMPLES] = t2 - t1;
			if (t1 - t0 > sh->worst)
				sh->worst = t1 - t0;
			if (t2 - t1 > sh->worst)
				sh->worst = t2 - t1;
		} while ((t2 - start < sh->phase_ns ||
			  reads_so_far(sh) < sh->until_reads) &&
			 t2 - start < LAT_MAX_PHASE_NS);
		sh->nr = n < LAT_MAX_SAMPLES ? n : LAT_MAX_SAMPLES;
		if (write(reply_fd, &cmd, 1) != 1)
			break;
	}
	_exit(0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* Let the target run one phase; false if it failed or stalled. */
static bool latency_phase(struct lat_shared *sh, int cmd_fd, int reply_fd,
			  struct lat_stats *st, int round)
{
	struct lat_phase *ph = &st->phase[round];
	uint64_t *all;
	char reply = 0;

	*ph = (struct lat_phase){ 0 };
	if (write(cmd_fd, "r", 1) != 1 || read(reply_fd, &reply, 1) != 1 ||
	    reply != 'r') {
		tap_diag("the target's mmap loop failed (%c)", reply);
		return false;
	}
	ph->n = sh->nr;
	if (!ph->n)
		return false;
	ph->median = median_u64(sh->ns, ph->n);
	ph->worst = sh->worst;
	all = realloc(st->all, (st->calls + ph->n) * sizeof(*all));
	if (!all) {
		tap_diag("keeping %zu call times: out of memory",
			 st->calls + ph->n);
		return false;
	}
	memcpy(all + st->calls, sh->ns, ph->n * sizeof(*all));
	st->all = all;
	st->calls += ph->n;
	return true;
}

/* The medians over the rounds, and the worst call of all. */
static void latency_summary(struct lat_stats *st)
{
	uint64_t medians[LAT_ROUNDS], worsts[LAT_ROUNDS];
	int i;

	st->worst = 0;
	for (i = 0; i < LAT_ROUNDS; i++) {
		medians[i] = st->phase[i].median;
		worsts[i] = st->phase[i].worst;
		if (worsts[i] > st->worst)
			st->worst = worsts[i];
	}
	st->median = median_u64(medians, LAT_ROUNDS);
	st->median_worst = median_u64(worsts, LAT_ROUNDS);
	/* of every call of every round */
	qsort(st->all, st->calls, sizeof(*st->all), cmp_u64);
	st->p99 = st->all[st->calls * 99 / 100];
}

/* Read path whole, again and again, until told to stop; idle on pause. */
static void latency_reader(struct lat_shared *sh, int slot, const char *path)
{
	struct timespec idle = { 0, 1000 * 1000 };
	struct text t = { 0 };

	/* lower priority: measure lock hold times, not CPU contention */
	if (setpriority(PRIO_PROCESS, 0, 10))
		tap_diag("setpriority: %s", strerror(errno));
	while (!__atomic_load_n(&sh->stop_readers, __ATOMIC_SEQ_CST)) {
		int err;

		if (__atomic_load_n(&sh->pause_readers, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&sh->reading[slot], 0,
					 __ATOMIC_SEQ_CST);
			nanosleep(&idle, NULL);
			continue;
		}
		__atomic_store_n(&sh->reading[slot], 1, __ATOMIC_SEQ_CST);
		err = read_path_text(path, MIB, &t);
		if (err) {
			sh->read_err[slot] = -err;
			break;
		}
		__atomic_add_fetch(&sh->full_reads[slot], 1, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&sh->reading[slot], 0, __ATOMIC_SEQ_CST);
	text_free(&t);
	_exit(0);
}

/* Pause the readers and wait until none is inside a read. */
static bool readers_idle(struct lat_shared *sh)
{
	struct timespec tick = { 0, 1000 * 1000 };
	uint64_t start = now_ns();
	int i, busy;

	__atomic_store_n(&sh->pause_readers, 1, __ATOMIC_SEQ_CST);
	do {
		busy = 0;
		for (i = 0; i < lat_readers; i++)
			busy += __atomic_load_n(&sh->reading[i],
						__ATOMIC_SEQ_CST);
		if (!busy)
			return true;
		nanosleep(&tick, NULL);
	} while (now_ns() - start < LAT_IDLE_WAIT_NS);
	tap_diag("the readers did not pause within %llu s",
		 LAT_IDLE_WAIT_NS / 1000000000ULL);
	return false;
}


static double median3_ms(double a, double b, double c)
{
	if (a > b) {
		double x = a;

		a = b;
		b = x;
	}
	return c < a ? a : c > b ? b : c;
}

static enum outcome test_mmap_latency_under_reader(void)
{
	struct lat_shared *sh;
	pid_t parent = getpid(), target, readers[NR_READERS] = { 0 };
	int cmd[2], reply[2], i, round;
	struct lat_stats alone = { 0 }, busy = { 0 };
	unsigned long reads_in[LAT_ROUNDS] = { 0 };
	struct text text = { 0 };
	const char *nr_env = getenv("PMAPS_LAT_READERS");
	char path[PATH_MAX], label[24], ready;
	double read_ms[3], excess_ms;
	uint64_t read_ns;
	long long avail_mib;
	bool ok = false;

	if (nr_env) {
		lat_readers = atoi(nr_env);
		if (lat_readers < 1 || lat_readers > NR_READERS) {
			tap_diag("PMAPS_LAT_READERS: expected 1 to %d, got '%s'",
				 NR_READERS, nr_env);
			return FAIL;
		}
	}
	if (!have_memory_for(LAT_RANGES, &avail_mib))
		return skip("needs %lu MiB + 128 MiB available, have %lld MiB",
			    LAT_RANGES * page_size / MIB, avail_mib);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe2(cmd, O_CLOEXEC) ||
	    pipe2(reply, O_CLOEXEC)) {
		tap_diag("shared page or pipes: %s", strerror(errno));
		return FAIL;
	}
	/* the readers start paused: the first phase is one alone */
	sh->pause_readers = 1;
	fflush(stdout);
	target = fork();
	if (target == 0) {
		close(cmd[1]);
		close(reply[0]);
		die_with_parent(parent);
		if (!map_sparse(2 * LAT_RANGES, 2))
			_exit(1);
		if (write(reply[1], "s", 1) != 1)
			_exit(1);
		latency_target(sh, cmd[0], reply[1]);
	}
	close(cmd[0]);
	close(reply[1]);
	if (target < 0 || read(reply[0], &ready, 1) != 1) {
		tap_diag("the latency target did not set up");
		goto out;
	}
	pmaps_path_pid(path, sizeof(path), target);

	for (i = 0; i < 3; i++) {
		struct timespec t0, t1;
		int err;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = read_path_text(path, MIB, &text);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (err) {
			tap_diag("reading %s: %s", path, strerror(-err));
			goto out;
		}
		read_ms[i] = elapsed_ms(&t0, &t1);
	}
	read_ms[0] = median3_ms(read_ms[0], read_ms[1], read_ms[2]);
	tap_diag("one full read of %zu bytes (%lu ranges) takes %.1f ms",
		 text.len, LAT_RANGES, read_ms[0]);
	/* long enough that a whole-read lock hold shows in each phase */
	read_ns = (uint64_t)(read_ms[0] * 1e6);
	sh->phase_ns = read_ns * LAT_PHASE_READS;
	if (sh->phase_ns > LAT_PHASES_BUDGET_NS / (2 * LAT_ROUNDS)) {
		sh->phase_ns = LAT_PHASES_BUDGET_NS / (2 * LAT_ROUNDS);
		if (sh->phase_ns < read_ns)
			sh->phase_ns = read_ns;
		tap_diag("phases cut to %.0f ms from %d reads' %.0f ms: %d phases share %llu s, each at least one read",
			 sh->phase_ns / 1e6, LAT_PHASE_READS,
			 read_ns * LAT_PHASE_READS / 1e6, 2 * LAT_ROUNDS,
			 LAT_PHASES_BUDGET_NS / 1000000000ULL);
	}
	if (sh->phase_ns < LAT_MIN_PHASE_NS)
		sh->phase_ns = LAT_MIN_PHASE_NS;

	for (i = 0; i < lat_readers; i++) {
		fflush(stdout);
		readers[i] = fork();
		if (readers[i] == 0) {
			die_with_parent(parent);
			latency_reader(sh, i, path);
		}
		if (readers[i] < 0) {
			tap_diag("fork: %s", strerror(errno));
			goto out;
		}
	}
	for (round = 0; round < LAT_ROUNDS; round++) {
		unsigned long before;

		sh->until_reads = 0;
		if (!readers_idle(sh) ||
		    !latency_phase(sh, cmd[1], reply[0], &alone, round))
			goto out;
		before = reads_so_far(sh);
		sh->until_reads = before + 1;
		__atomic_store_n(&sh->pause_readers, 0, __ATOMIC_SEQ_CST);
		if (!latency_phase(sh, cmd[1], reply[0], &busy, round))
			goto out;
		reads_in[round] = reads_so_far(sh) - before;
	}
	latency_summary(&alone);
	latency_summary(&busy);
	ok = true;

	tap_diag("mmap/munmap latency   %10s %10s %8s %14s %10s", "median us",
		 "worst us", "calls", "round worst us", "p99 us");
	snprintf(label, sizeof(label), "with %d reader%s", lat_readers,
		 lat_readers == 1 ? "" : "s");
	tap_diag("  %-20s%10.1f %10.1f %8zu %14.1f %10.1f", "without readers",
		 alone.median / 1e3, alone.worst / 1e3, alone.calls,
		 alone.median_worst / 1e3, alone.p99 / 1e3);
	tap_diag("  %-20s%10.1f %10.1f %8zu %14.1f %10.1f", label,
		 busy.median / 1e3, busy.worst / 1e3, busy.calls,
		 busy.median_worst / 1e3, busy.p99 / 1e3);
	tap_diag("  one full read       %10.1f ms", read_ms[0]);
	tap_diag("(%d rounds of %.0f ms alone, then as long with readers and on until a read ended; medians over the rounds, worst of all)",
		 LAT_ROUNDS, sh->phase_ns / 1e6);
	for (round = 0; round < LAT_ROUNDS; round++)
		tap_diag("  round %d: worst %.1f us alone, %.1f us with readers over %lu full reads",
			 round, alone.phase[round].worst / 1e3,
			 busy.phase[round].worst / 1e3, reads_in[round]);
out:
	__atomic_store_n(&sh->stop_readers, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < NR_READERS; i++) {
		if (readers[i] <= 0)
			continue;
		waitpid(readers[i], NULL, 0);
		tap_diag("reader %d: %lu full reads%s%s", i, sh->full_reads[i],
			 sh->read_err[i] ? ", then " : "",
			 sh->read_err[i] ? strerror(sh->read_err[i]) : "");
		if (!sh->full_reads[i] || sh->read_err[i]) {
			tap_diag("reader %d did not keep reading", i);
			ok = false;
		}
	}
	if (target > 0) {
		close(cmd[1]);
		kill(target, SIGKILL);
		waitpid(target, NULL, 0);
	}
	text_free(&text);
	free(alone.all);
	free(busy.all);
	if (!ok)
		return FAIL;
	/* readers that never got to read would prove nothing */
	for (round = 0; round < LAT_ROUNDS; round++)
		if (!reads_in[round]) {
			tap_diag("no full read ended in round %d's phase with readers",
				 round);
			return FAIL;
		}
	if (busy.calls < 100) {
		tap_diag("the target made only %zu mmap calls with readers",
			 busy.calls);
		return FAIL;
	}
	/* a reader holding mmap_lock for a whole read stalls mmap that long */
	excess_ms = ((double)busy.median_worst - (double)alone.median_worst) / 1e6;
	if (excess_ms >= read_ms[0] / 2) {
		tap_diag("the rounds' worst mmap latency is %.1f ms more with readers, at least half of one full read (%.1f ms): is mmap_lock held across the read?",
			 excess_ms, read_ms[0]);
		return FAIL;
	}
	return PASS;
}

/* ---- test_lock_dropped_within_one_vma ---- */

/*
 * The module walks at most 64 MiB (PMAPS_PAGES_PER_LOCK) under one hold
 * of the target's lock, then lets a waiting writer in.  A VMA of one long
 * line is read in one read() all the same, so whether the lock was let go
 * inside it is seen in the text, not in a time: the target changes that
 * VMA as fast as it can all along, unmapping its last page, one more each
 * time (which takes its mmap lock for writing, and since v6.4 the VMA's
 * own write lock too), so that no two states of it are alike; a record
 * that finds the VMA changed since its header was printed prints the
 * header again.  A read that held the lock across the VMA shows its
 * header once; one that let go between records shows it again.  A file
 * whose read() returns a page at most (the series' /proc/PID/pmaps) takes
 * the lock again at each read(), which may print the header too: only
 * headers beyond one per read() count.  Needs a read long enough for
 * the writer to get the lock at all: a reader that lets go of an rwsem
 * and takes it again at once may take it back before a waiting writer
 * runs, until the writer has waited long enough to be handed it
 * (RWSEM_FLAG_HANDOFF, a few milliseconds).  So 4 KiB pages: as many
 * pages as THPs would be, walked one by one.
 */
#define HOLD_AREA		(512UL << 20)
/* the most the target unmaps, a page at a time */
#define HOLD_TAIL		(64UL << 20)
/* a bound for each wait on the target, not a timed expectation */
#define HOLD_WAIT_NS		60000000000ULL

struct hold_shared {
	unsigned long changes;	/* munmap() calls the target made */
	int stop;
	int err;		/* errno of a failed munmap() */
	uintptr_t base;		/* the area, once mapped and written */
};

static void hold_target(struct hold_shared *sh)
{
	char *base = map_between_guards(HOLD_AREA, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *end = base + HOLD_AREA;

	if (!base)
		_exit(1);
	if (no_thp(base, HOLD_AREA)) {
		sh->err = errno;
		_exit(1);
	}
	memset(base, 1, HOLD_AREA);
	__atomic_store_n(&sh->base, (uintptr_t)base, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_SEQ_CST) &&
	       end > base + HOLD_AREA - HOLD_TAIL) {
		end -= page_size;
		if (munmap(end, page_size)) {
			sh->err = errno;
			_exit(1);
		}
		__atomic_add_fetch(&sh->changes, 1, __ATOMIC_SEQ_CST);
	}
	_exit(0);
}

/* Wait, within HOLD_WAIT_NS, until *v is above min; false if not. */
static bool wait_above(unsigned long *v, unsigned long min)
{
	struct timespec tick = { 0, 1000 * 1000 };
	uint64_t start = now_ns();

	while (__atomic_load_n(v, __ATOMIC_SEQ_CST) <= min) {
		if (now_ns() - start > HOLD_WAIT_NS)
			return false;
		nanosleep(&tick, NULL);
	}
	return true;
}

static enum outcome test_lock_dropped_within_one_vma(void)
{
	const size_t cap = 4 * MIB;
	pid_t parent = getpid(), target;
	struct hold_shared *sh;
	char path[PATH_MAX], head[32], *buf = NULL, *p;
	unsigned long before, after;
	long long avail_mib;
	size_t headers = 0, reads = 0;
	ssize_t n = -1, more = -1;
	bool ok = false;
	int fd, status;

	if (!have_memory_for(HOLD_AREA / page_size, &avail_mib))
		return skip("needs %lu MiB + 128 MiB available, have %lld MiB",
			    HOLD_AREA / MIB, avail_mib);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	buf = malloc(cap + 1);
	if (sh == MAP_FAILED || !buf) {
		tap_diag("shared page or buffer: %s", strerror(errno));
		free(buf);
		return FAIL;
	}
	fflush(stdout);
	target = fork();
	if (target == 0) {
		die_with_parent(parent);
		hold_target(sh);
	}
	if (target < 0) {
		tap_diag("fork: %s", strerror(errno));
		goto out;
	}
	/* the area is written and the target changes it */
	if (!wait_above(&sh->changes, 1)) {
		tap_diag("the target did not start changing its area (munmap: %s)",
			 strerror(sh->err));
		goto out;
	}
	pmaps_path_pid(path, sizeof(path), target);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("%s: %s", path, strerror(errno));
		goto out;
	}
	before = __atomic_load_n(&sh->changes, __ATOMIC_SEQ_CST);
	n = 0;
	do {
		more = read(fd, buf + n, cap - n);
		if (more > 0) {
			n += more;
			reads++;
		}
	} while (more > 0 && (size_t)n < cap);
	after = __atomic_load_n(&sh->changes, __ATOMIC_SEQ_CST);
	close(fd);
	if (more != 0) {
		tap_diag("%s: read() after %zd bytes: %s", path, n,
			 more < 0 ? strerror(errno) : "over the 4 MiB cap");
		goto out;
	}
	buf[n] = '\0';
	snprintf(head, sizeof(head), "%08lx-", (unsigned long)sh->base);
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, head, strlen(head)))
			headers++;
	tap_diag("%zu read() calls, %zd bytes: the area's header %zu times; the target changed it %lu times meanwhile",
		 reads, n, headers, after - before);
	/*
	 * Each read() after the first takes the lock anew and may print the
	 * header again: only a header more than the reads explain was
	 * printed after letting go inside one read().
	 */
	ok = headers > reads;
	if (!ok)
		tap_diag("the area's header came %zu times in %zu reads: no read let go of the lock inside its %lu MiB",
			 headers, reads, HOLD_AREA / MIB);
out:
	__atomic_store_n(&sh->stop, 1, __ATOMIC_SEQ_CST);
	if (target > 0 && waitpid(target, &status, 0) == target &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		tap_diag("the target failed (munmap: %s)", strerror(sh->err));
		ok = false;
	}
	munmap(sh, sizeof(*sh));
	free(buf);
	return ok ? PASS : FAIL;
}

/* ---- permissions ---- */

struct anon_setup {
	size_t pages;
	bool drop;		/* become NOBODY first */
	int dumpable;		/* PR_SET_DUMPABLE after dropping; -1: leave */
	int *dumpable_seen;	/* shared: PR_GET_DUMPABLE after setup */
};

static char *setup_anon(void *arg)
{
	const struct anon_setup *s = arg;
	char *base;

	if (s->drop && !drop_to_nobody(s->dumpable))
		return NULL;
	if (s->dumpable_seen)
		*s->dumpable_seen = prctl(PR_GET_DUMPABLE);
	base = map_sparse(s->pages, 1);
	drain_lru_batches();
	return base;
}

/* The target's file must hold its one range of written pages. */
static bool reads_target(const struct target *t, size_t pages)
{
	struct text text = { 0 };
	const struct pmaps_vma *v;
	char path[PATH_MAX];
	struct pmaps_map map;
	bool ok = false;
	int err;

	pmaps_path_pid(path, sizeof(path), t->pid);
	err = read_path_text(path, READ_CHUNK, &text);
	if (err) {
		tap_diag("uid %d reading %s: %s", (int)geteuid(), path,
			 strerror(-err));
		text_free(&text);
		return false;
	}
	if (!parse_text(&text, path, &map)) {
		v = vma_at(&map, t->base);
		ok = v && v->nr_ranges == 1 &&
		     v->ranges[0].index == (uintptr_t)t->base / page_size &&
		     v->ranges[0].count == pages;
		if (!ok)
			tap_diag("%s lacks the target's %zu written pages at %p",
				 path, pages, (void *)t->base);
		pmaps_map_free(&map);
	}
	text_free(&text);
	return ok;
}

struct cap_case {
	const char *name;
	uint32_t caps;		/* effective and permitted, bits 0..31 */
	bool may_read;
	const struct target *target;
	/* /proc/PID/pmaps: may_read is whether /proc/PID/maps opens */
	bool as_maps;
};

/* Whether /proc/pid/maps opens for us. */
static bool maps_opens(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Become NOBODY keeping only the capabilities of c, then open. */
static bool read_with_caps(void *arg)
{
	const struct cap_case *c = arg;
	bool may_read = c->may_read;

	if (!drop_to_with_caps(NOBODY, c->caps))
		return false;
	if (c->as_maps && !pid_dir[0]) {
		may_read = maps_opens(c->target->pid);
		tap_diag("uid %d with %s: /proc/%d/maps %s", NOBODY, c->name,
			 (int)c->target->pid, may_read ? "opens" : "is denied");
	}
	if (may_read)
		return reads_target(c->target, 4);
	return open_denied_pid(c->target->pid);
}

/* Each case reads, or is denied, a root target, dumpable. */
static enum outcome run_cap_cases(struct cap_case *cases, size_t nr)
{
	struct anon_setup setup = { .pages = 4, .dumpable = -1 };
	struct target t;
	bool ok = true;
	size_t i;

	if (!require_root())
		return skip("needs root");
	if (target_start(&t, setup_anon, &setup))
		return FAIL;
	for (i = 0; i < nr; i++) {
		cases[i].target = &t;
		if (!run_in_child(read_with_caps, &cases[i])) {
			tap_diag("uid %d with %s: expected %s", NOBODY,
				 cases[i].name, cases[i].as_maps && !pid_dir[0] ?
				 "what maps gives" : cases[i].may_read ?
				 "to read" : strerror(denied_errno()));
			ok = false;
		}
	}
	target_end(&t);
	return ok ? PASS : FAIL;
}

/* PTRACE_MODE_READ's capability step: CAP_SYS_PTRACE and nothing else. */
static enum outcome test_perm_cap_sys_ptrace_only(void)
{
	struct cap_case cases[] = {
		{ "CAP_SYS_PTRACE only", CAPBIT(CAP_SYS_PTRACE), true, NULL, false },
		{ "no capabilities", 0, false, NULL, false },
		{ "CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER",
		  CAPBIT(CAP_DAC_OVERRIDE) | CAPBIT(CAP_DAC_READ_SEARCH) |
		  CAPBIT(CAP_FOWNER), false, NULL, false },
	};

	return run_cap_cases(cases, ARRAY_SIZE(cases));
}

/*
 * CAP_SYS_ADMIN gives no more than it gives for /proc/PID/maps.  Since
 * 7.x, mm_access() lets perfmon_capable() readers (CAP_PERFMON or
 * CAP_SYS_ADMIN) open maps, and so /proc/PID/pmaps, for PTRACE_MODE_READ;
 * 6.12 did not.  The module's directory names only what /proc under
 * hidepid=invisible shows, which asks ptrace_may_access() alone: denied.
 */
static enum outcome test_perm_cap_sys_admin_only(void)
{
	struct cap_case cases[] = {
		{ "CAP_SYS_ADMIN only", CAPBIT(CAP_SYS_ADMIN), false, NULL,
		  true },
	};

	return run_cap_cases(cases, ARRAY_SIZE(cases));
}

static bool denied_as_nobody(void *arg)
{
	return drop_to(NOBODY) && open_denied_pid(*(pid_t *)arg);
}

/*
 * A set-id program is non-dumpable because exec changed its credentials;
 * the initramfs has no setuid file, but setresuid() from root makes the
 * same change (commit_creds() sets dumpable from fs.suid_dumpable).
 */
static enum outcome test_perm_setuid_target(void)
{
	struct anon_setup setup = { .pages = 4, .drop = true, .dumpable = -1 };
	int *dumpable;
	struct target t;
	bool ok = true;
	FILE *f;
	int mode = 0;

	if (!require_root())
		return skip("needs root");
	f = fopen("/proc/sys/fs/suid_dumpable", "re");
	if (f) {
		if (fscanf(f, "%d", &mode) != 1)
			mode = 0;
		fclose(f);
	}
	if (mode == 1)
		return skip("fs.suid_dumpable is 1: credential changes keep processes dumpable");
	dumpable = mmap(NULL, sizeof(*dumpable), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (dumpable == MAP_FAILED)
		return FAIL;
	*dumpable = -1;
	setup.dumpable_seen = dumpable;
	if (target_start(&t, setup_anon, &setup))
		return FAIL;
	if (*dumpable == 1) {
		tap_diag("the target is dumpable after setresuid(%d)", NOBODY);
		ok = false;
	}
	if (!run_in_child(denied_as_nobody, &t.pid))
		ok = false;
	if (!reads_target(&t, setup.pages)) {
		tap_diag("root cannot read the non-dumpable target");
		ok = false;
	}
	target_end(&t);
	return ok ? PASS : FAIL;
}

/* Nothing may name a pfn, in any case. */
static bool text_has_no_pfn(const struct text *t, const char *what)
{
	size_t i;

	for (i = 0; i + 3 <= t->len; i++)
		if (!strncasecmp(t->data + i, "pfn", 3)) {
			tap_diag("%s mentions a pfn at byte %zu", what, i);
			return false;
		}
	return true;
}

/*
 * Range lines have exactly the four documented columns, and each index
 * is virtual: the range lies inside its VMA.
 */
static bool ranges_are_virtual(const struct text *t, const char *path)
{
	const char *p = t->data, *end = t->data + t->len;
	struct pmaps_map map;
	bool ok = true;
	size_t i, j;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p), tabs = 0, k;

		if (n && p[0] >= '0' && p[0] <= '9' && memchr(p, '\t', n)) {
			for (k = 0; k < n; k++)
				tabs += p[k] == '\t';
			if (tabs != 3) {
				tap_diag("range line with %zu columns: %.*s",
					 tabs + 1, (int)n, p);
				ok = false;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (parse_text(t, path, &map))
		return false;
	for (i = 0; i < map.nr_vmas; i++) {
		const struct pmaps_vma *v = &map.vmas[i];

		for (j = 0; j < v->nr_ranges; j++) {
			const struct pmaps_range *r = &v->ranges[j];
			unsigned long long a = pmaps_range_addr(v, r);

			if (a < v->start || a + r->count * page_size > v->end) {
				tap_diag("line %u: index %llu is outside its VMA %s",
					 r->line, r->index, v->header);
				ok = false;
			}
		}
	}
	pmaps_map_free(&map);
	return ok;
}

/* The CLI's --source for file_fmt, and its target argument. */
static void cli_source(pid_t pid, char *src, size_t srclen, char *arg,
		       size_t arglen)
{
	if (!strcmp(file_fmt, DEFAULT_FILE_FMT)) {
		snprintf(src, srclen, "--source=module");
		snprintf(arg, arglen, "%d", (int)pid);
	} else if (!strcmp(file_fmt, "/proc/%s/pmaps") ||
		   !strcmp(file_fmt, "/proc/%d/pmaps")) {
		snprintf(src, srclen, "--source=kernel");
		snprintf(arg, arglen, "%d", (int)pid);
	} else {
		/* any other file is read as a saved document */
		snprintf(src, srclen, "--source=file");
		pmaps_path_pid(arg, arglen, pid);
	}
}

static bool cli_shows_no_pfn(const char *base)
{
	const char *cli = getenv("PMAPS_CLI");
	char src[32], who[PATH_MAX], addr[32], range[64], what[64];
	char *views[][3] = { { "--address", addr, NULL },
			     { "--pages", "--range", range } };
	struct text out = { 0 };
	bool ok = true;
	size_t i;

	if (!cli || !*cli)
		cli = DEFAULT_CLI;
	cli_source(getpid(), src, sizeof(src), who, sizeof(who));
	snprintf(addr, sizeof(addr), "%lx", (unsigned long)(uintptr_t)base);
	snprintf(range, sizeof(range), "%lx,%lx", (unsigned long)(uintptr_t)base,
		 (unsigned long)(uintptr_t)base + 4 * page_size);
	for (i = 0; i < ARRAY_SIZE(views); i++) {
		char *argv[8] = { (char *)cli, src, "--color=never", views[i][0] };
		size_t n = 4;
		int status;

		if (views[i][1])
			argv[n++] = views[i][1];
		if (views[i][2])
			argv[n++] = views[i][2];
		argv[n++] = who;
		status = run_capture(argv, &out);
		snprintf(what, sizeof(what), "pmaps %s", views[i][0]);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			tap_diag("%s %s %s (uid %d) exited with status %d: %.*s",
				 cli, src, views[i][0], NOBODY, status,
				 (int)(out.len < 300 ? out.len : 300),
				 out.data ? out.data : "");
			ok = false;
		} else if (!out.len) {
			tap_diag("%s printed nothing", what);
			ok = false;
		}
		ok = text_has_no_pfn(&out, what) && ok;
	}
	text_free(&out);
	return ok;
}

static bool no_pfn_as_nobody(void *arg)
{
	struct pmaps_pagemap pm;
	struct text text = { 0 };
	char path[PATH_MAX], err[256];
	uint64_t ent[4];
	bool ok = true;
	char *base;
	size_t i;
	int rc;

	(void)arg;
	if (!drop_to(NOBODY))
		return false;
	/* the uid change made us non-dumpable; the CLI child must read us */
	prctl(PR_SET_DUMPABLE, 1);
	base = map_sparse(4, 1);
	if (!base)
		return false;
	drain_lru_batches();

	pmaps_path(path, sizeof(path), "self");
	rc = read_path_text(path, READ_CHUNK, &text);
	if (rc) {
		tap_diag("reading %s: %s", path, strerror(-rc));
		return false;
	}
	ok = text_has_no_pfn(&text, path) && ok;
	ok = ranges_are_virtual(&text, path) && ok;
	text_free(&text);

	/* what the CLI's pagemap views get: present, but PFN 0 */
	if (pmaps_pagemap_open(&pm, getpid(), err, sizeof(err))) {
		tap_diag("%s", err);
		return false;
	}
	if (pmaps_pagemap_read(&pm, (uintptr_t)base, ent, 4, err, sizeof(err))) {
		tap_diag("%s", err);
		ok = false;
	} else {
		for (i = 0; i < 4; i++)
			if (!(ent[i] & PMAPS_PM_PRESENT) || pmaps_pm_pfn(ent[i])) {
				tap_diag("pagemap of page %zu as uid %d: %#llx, expected present with PFN 0",
					 i, NOBODY, (unsigned long long)ent[i]);
				ok = false;
			}
	}
	pmaps_pagemap_close(&pm);
	return cli_shows_no_pfn(base) && ok;
}

static enum outcome test_no_physical_addresses(void)
{
	if (!require_root())
		return skip("needs root");
	return run_in_child(no_pfn_as_nobody, NULL) ? PASS : FAIL;
}

/* ---- runner ---- */

static const struct test_case tests[] = {
	TEST(test_200k_ranges_every_read_size),
	TEST(test_kernel_memory_per_open_file),
	TEST(test_closed_files_give_memory_back),
	TEST(test_release_drops_the_mm),
	TEST(test_mmap_latency_under_reader),
	TEST(test_lock_dropped_within_one_vma),
	TEST(test_perm_cap_sys_ptrace_only),
	TEST(test_perm_cap_sys_admin_only),
	TEST(test_perm_setuid_target),
	TEST(test_no_physical_addresses),
};

/* PMAPS_FILE_FMT may say "%d": cli_source() matches either form. */
int main(int argc, char **argv)
{
	return guest_main(argc, argv, tests, ARRAY_SIZE(tests),
			  TEST_TIMEOUT_SEC, true);
}
