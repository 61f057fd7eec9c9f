// SPDX-License-Identifier: GPL-2.0
/*
 * hugepage.c on a stopped child running as uid 65534 with a known layout:
 *  - a 4 MiB PMD-aligned anonymous region, MADV_HUGEPAGE, written: two
 *    THPs where the kernel gives them (its smaps AnonHugePages says);
 *  - 2048 small pages, MADV_NOHUGEPAGE, every other one written: present
 *    pages that none of the ways may call huge;
 *  - a 4 MiB MAP_HUGETLB region with its first 2 MiB page written; the
 *    test adds 4 pages to /proc/sys/vm/nr_hugepages and restores it after.
 * Every way hugepage.c has is taken in turn through its avoid argument:
 * kpageflags (root), PAGEMAP_SCAN, PROCMAP_QUERY and smaps, and the
 * reader without root in a child that drops to uid 65534.  Needs root.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../userspace/lib/hugepage.h"
#include "../../userspace/lib/pmaps.h"
#include "../../userspace/lib/procfs_ioctl.h"
#include "../guest/tap.h"
#include "qemu_user.h"
#include "small_pages.h"
#include "stopped_child.h"

#define MB		(1UL << 20)
#define THP_LEN		(4 * MB)
#define SMALL_PAGES	2048
#define HUGE_LEN	(4 * MB)
#define HUGE_TOUCHED	(2 * MB)
#define NOBODY		65534
#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"
#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"

struct layout {
	uintptr_t thp, small, huge;	/* huge: 0 if mmap failed */
	int huge_errno;
	int thp_errno;			/* MADV_HUGEPAGE refused */
	int nohuge_errno;		/* MADV_NOHUGEPAGE refused (EINVAL) */
};

static unsigned long psize;
static pid_t child = -1;
static struct layout lay;
static char thp_why[160], huge_why[160];
/* why a way the test needs is not there (qemu-user), else empty */
static char scan_why[400], query_why[400];

/* ---- the target ---- */

static int drop_to_nobody(void)
{
	return setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	       setresuid(NOBODY, NOBODY, NOBODY);
}

static void child_main(int wfd)
{
	char *raw, *thp, *small, *huge;
	unsigned long i;

	/* its owner may read it: a setuid makes a process undumpable */
	if (drop_to_nobody() || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		_exit(1);
	raw = mmap(NULL, THP_LEN + 2 * MB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		_exit(1);
	thp = (char *)(((uintptr_t)raw + 2 * MB - 1) & ~(uintptr_t)(2 * MB - 1));
	if (thp > raw)
		munmap(raw, (size_t)(thp - raw));
	munmap(thp + THP_LEN, (size_t)(raw + THP_LEN + 2 * MB - (thp + THP_LEN)));
	/* an error here (THP "never" or compiled out) leaves small pages */
	if (madvise(thp, THP_LEN, MADV_HUGEPAGE))
		lay.thp_errno = errno;
	memset(thp, 1, THP_LEN);

	small = mmap(NULL, SMALL_PAGES * psize, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (small == MAP_FAILED)
		_exit(1);
	/* EINVAL: no THP here, or qemu-user refuses it (thp_may_back()) */
	if (madvise(small, SMALL_PAGES * psize, MADV_NOHUGEPAGE)) {
		if (errno != EINVAL)
			_exit(1);
		lay.nohuge_errno = errno;
	}
	for (i = 0; i < SMALL_PAGES; i += 2)
		small[i * psize] = 1;

	huge = mmap(NULL, HUGE_LEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (huge != MAP_FAILED) {
		huge[0] = 1;
	} else {
		lay.huge_errno = errno;
		huge = NULL;
	}
	lay.thp = (uintptr_t)thp;
	lay.small = (uintptr_t)small;
	lay.huge = (uintptr_t)huge;
	if (write(wfd, &lay, sizeof(lay)) != sizeof(lay))
		_exit(1);
	for (;;)
		pause();
}

static int start_child(void)
{
	return start_stopped_child(child_main, &lay, sizeof(lay), &child);
}

/* ---- the hugetlb pool ---- */

static int pool_fd = -1;
static unsigned long pool_old;

static int read_ulong(int fd, unsigned long *v)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*v = strtoul(buf, NULL, 10);
	return 0;
}

/* 4 more pages of the default size (2 MiB here) for the child. */
static void pool_grow(void)
{
	unsigned long now;
	char buf[32];
	FILE *f = fopen("/proc/meminfo", "re");
	unsigned long kb = 0;
	int n;

	while (f && fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "Hugepagesize: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	if (kb != 2048) {
		snprintf(huge_why, sizeof(huge_why),
			 "/proc/meminfo: expected Hugepagesize 2048 kB, got %lu",
			 kb);
		return;
	}
	pool_fd = open(NR_HUGEPAGES, O_RDWR | O_CLOEXEC);
	if (pool_fd < 0 || flock(pool_fd, LOCK_EX) ||
	    read_ulong(pool_fd, &pool_old)) {
		snprintf(huge_why, sizeof(huge_why), "%s: %s", NR_HUGEPAGES,
			 strerror(errno));
		if (pool_fd >= 0)
			close(pool_fd);
		pool_fd = -1;
		return;
	}
	n = snprintf(buf, sizeof(buf), "%lu\n", pool_old + 4);
	if (pwrite(pool_fd, buf, (size_t)n, 0) != n ||
	    read_ulong(pool_fd, &now) || now < pool_old + 4)
		snprintf(huge_why, sizeof(huge_why),
			 "%s: the kernel could not reserve 4 more 2 MiB pages",
			 NR_HUGEPAGES);
}

static void pool_restore(void)
{
	char buf[32];
	int n;

	if (pool_fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%lu\n", pool_old);
	if (pwrite(pool_fd, buf, (size_t)n, 0) != n)
		tap_diag("cannot restore %s to %lu: %s", NR_HUGEPAGES,
			 pool_old, strerror(errno));
	close(pool_fd);
	pool_fd = -1;
}

static void stop_child(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
	pool_restore();
}

/* AnonHugePages of the child's VMA at addr, in kB; -1 if not found. */
static long smaps_anon_huge_kb(uintptr_t addr)
{
	char path[64], line[256];
	unsigned long long a, b;
	long kb = -1;
	int in = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)child);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx ", &a, &b) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = a == addr;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* ---- checks ---- */

static const char *kind_name(enum pmaps_huge_kind k)
{
	return k == PMAPS_HUGE_THP ? "thp" : k == PMAPS_HUGE_HUGETLB ?
	       "hugetlb" : "?";
}

/*
 * pmaps_huge_read() of [start, end) gives page size psz and exactly one
 * region [rs, re) of kind (or none if rs == re).
 */
static void expect_vma(struct pmaps_huge *h, const char *what,
		       uintptr_t start, uintptr_t end, unsigned long long psz,
		       uintptr_t rs, uintptr_t re, enum pmaps_huge_kind kind)
{
	struct pmaps_huge_vma v;
	int failed = tap_failed_checks;
	char err[256];
	size_t i;

	if (pmaps_huge_read(h, start, end, &v, err, sizeof(err))) {
		tap_check(0, "%s: %s", what, err);
		pmaps_huge_vma_free(&v);
		return;
	}
	tap_check(v.page_size == psz, "%s: page size %llu, expected %llu",
		  what, v.page_size, psz);
	if (rs == re) {
		tap_check(v.nr_regions == 0 && v.huge_bytes == 0,
			  "%s: %zu huge regions, %llu bytes, expected none",
			  what, v.nr_regions, v.huge_bytes);
	} else {
		tap_check(v.nr_regions == 1 && v.regions[0].start == rs &&
			  v.regions[0].end == re && v.regions[0].kind == kind &&
			  v.huge_bytes == re - rs,
			  "%s: expected one %s region 0x%lx-0x%lx", what,
			  kind_name(kind), (unsigned long)rs, (unsigned long)re);
	}
	for (i = 0; failed != tap_failed_checks && i < v.nr_regions; i++)
		tap_diag("  %s: %s 0x%llx-0x%llx", what,
			 kind_name(v.regions[i].kind), v.regions[i].start,
			 v.regions[i].end);
	pmaps_huge_vma_free(&v);
}

/* The whole layout read the ways avoid leaves; used must be among them. */
static void check_layout(unsigned int avoid, unsigned int want_used,
			 unsigned int not_used)
{
	struct pmaps_huge h;
	char err[256];

	if (pmaps_huge_open(&h, (int)child, avoid, err, sizeof(err))) {
		tap_check(0, "pmaps_huge_open: %s", err);
		return;
	}
	if (!thp_why[0])
		expect_vma(&h, "thp", lay.thp, lay.thp + THP_LEN, psize,
			   lay.thp, lay.thp + THP_LEN, PMAPS_HUGE_THP);
	/* a part of a THP is still in it */
	if (!thp_why[0])
		expect_vma(&h, "thp part", lay.thp + psize, lay.thp + 3 * psize,
			   psize, lay.thp + psize, lay.thp + 3 * psize,
			   PMAPS_HUGE_THP);
	expect_vma(&h, "small", lay.small, lay.small + SMALL_PAGES * psize,
		   psize, 0, 0, PMAPS_HUGE_THP);
	if (!huge_why[0])
		expect_vma(&h, "hugetlb", lay.huge, lay.huge + HUGE_LEN,
			   2 * MB, lay.huge, lay.huge + HUGE_TOUCHED,
			   PMAPS_HUGE_HUGETLB);
	tap_check((h.used & want_used) == want_used && !(h.used & not_used),
		  "took ways 0x%x, expected 0x%x and not 0x%x", h.used,
		  want_used, not_used);
	pmaps_huge_close(&h);
}

static void test_kpageflags(void)
{
	if (query_why[0]) {
		tap_skip("test_kpageflags", query_why);
		return;
	}
	check_layout(0, PMAPS_HUGE_USED_KPAGEFLAGS | PMAPS_HUGE_USED_QUERY,
		     PMAPS_HUGE_USED_SMAPS);
	tap_test_done("test_kpageflags");
}

static void test_scan(void)
{
	if (scan_why[0]) {
		tap_skip("test_scan", scan_why);
		return;
	}
	check_layout(PMAPS_HUGE_NO_KPAGEFLAGS, PMAPS_HUGE_USED_SCAN,
		     PMAPS_HUGE_USED_KPAGEFLAGS);
	tap_test_done("test_scan");
}

/* Kernels before v6.11: the page size from smaps. */
static void test_smaps_page_size(void)
{
	if (scan_why[0]) {
		tap_skip("test_smaps_page_size", scan_why);
		return;
	}
	check_layout(PMAPS_HUGE_NO_QUERY, PMAPS_HUGE_USED_SMAPS,
		     PMAPS_HUGE_USED_QUERY);
	check_layout(PMAPS_HUGE_NO_QUERY | PMAPS_HUGE_NO_KPAGEFLAGS,
		     PMAPS_HUGE_USED_SMAPS | PMAPS_HUGE_USED_SCAN,
		     PMAPS_HUGE_USED_QUERY | PMAPS_HUGE_USED_KPAGEFLAGS);
	tap_test_done("test_smaps_page_size");
}

/* kpageflags without PAGEMAP_SCAN (before v6.7) reads every page. */
static void test_kpageflags_no_scan(void)
{
	check_layout(PMAPS_HUGE_NO_SCAN, PMAPS_HUGE_USED_KPAGEFLAGS,
		     PMAPS_HUGE_USED_SCAN);
	tap_test_done("test_kpageflags_no_scan");
}

/* Neither way: an error naming both, not "no huge pages". */
static void test_nothing_known(void)
{
	struct pmaps_huge h;
	struct pmaps_huge_vma v;
	char err[256];

	if (pmaps_huge_open(&h, (int)child,
			    PMAPS_HUGE_NO_KPAGEFLAGS | PMAPS_HUGE_NO_SCAN, err,
			    sizeof(err))) {
		tap_check(0, "pmaps_huge_open: %s", err);
	} else {
		tap_check(pmaps_huge_read(&h, lay.thp, lay.thp + THP_LEN, &v,
					  err, sizeof(err)) == -1,
			  "read succeeded with no way to read");
		tap_diag("error: %s", err);
		tap_check(strstr(err, "/proc/kpageflags") &&
			  strstr(err, "PAGEMAP_SCAN") && !v.nr_regions,
			  "message '%s'", err);
		pmaps_huge_vma_free(&v);
		pmaps_huge_close(&h);
	}
	tap_test_done("test_nothing_known");
}

/* A reader without root: PAGEMAP_SCAN, whatever avoid says of kpageflags. */
static void test_unprivileged(void)
{
	pid_t pid;
	int st;

	if (scan_why[0]) {
		tap_skip("test_unprivileged", scan_why);
		return;
	}
	pid = fork();
	if (!pid) {
		if (drop_to_nobody())
			_exit(2);
		check_layout(0, PMAPS_HUGE_USED_SCAN | PMAPS_HUGE_USED_QUERY,
			     PMAPS_HUGE_USED_KPAGEFLAGS);
		check_layout(PMAPS_HUGE_NO_QUERY,
			     PMAPS_HUGE_USED_SCAN | PMAPS_HUGE_USED_SMAPS,
			     PMAPS_HUGE_USED_KPAGEFLAGS);
		_exit(tap_failed_checks ? 1 : 0);
	}
	tap_check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		  WEXITSTATUS(st) == 0, "unprivileged reader failed");
	tap_test_done("test_unprivileged");
}

/* A process that is gone: the file in the message. */
static void test_missing_pid(void)
{
	struct pmaps_huge h;
	char err[256], want[64];
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	tap_check(pmaps_huge_open(&h, (int)pid, 0, err, sizeof(err)) == -1,
		  "pid %d: no error", (int)pid);
	snprintf(want, sizeof(want), "/proc/%d/pagemap", (int)pid);
	tap_check(strstr(err, want) != NULL, "message '%s'", err);
	tap_test_done("test_missing_pid");
}

static void thp_check(void)
{
	char buf[128] = "";
	long kb;
	FILE *f = fopen(THP_ENABLED, "re");

	if (!f || !fgets(buf, sizeof(buf), f))
		snprintf(thp_why, sizeof(thp_why), "%s: %s", THP_ENABLED,
			 strerror(errno));
	else if (strstr(buf, "[never]"))
		snprintf(thp_why, sizeof(thp_why), "%s says never",
			 THP_ENABLED);
	if (f)
		fclose(f);
	if (!thp_why[0] && lay.thp_errno)
		snprintf(thp_why, sizeof(thp_why), "madvise(MADV_HUGEPAGE): %s",
			 strerror(lay.thp_errno));
	if (thp_why[0])
		return;
	kb = smaps_anon_huge_kb(lay.thp);
	if (kb != (long)(THP_LEN / 1024))
		snprintf(thp_why, sizeof(thp_why),
			 "the kernel gave %ld kB of THP of %lu (smaps AnonHugePages)",
			 kb, THP_LEN / 1024);
}

int main(void)
{
	static const char *const names[] = {
		"test_kpageflags", "test_scan", "test_smaps_page_size",
		"test_kpageflags_no_scan", "test_nothing_known",
		"test_unprivileged", "test_missing_pid",
	};
	const size_t nr = sizeof(names) / sizeof(names[0]);
	char why[512], path[64];
	size_t i;

	psize = pmaps_page_size();
	tap_plan((int)nr);
	if (geteuid()) {
		for (i = 0; i < nr; i++)
			tap_skip(names[i], "needs root for the hugetlb pool and uid 65534");
		return 0;
	}
	pool_grow();
	if (start_child()) {
		stop_child();
		for (i = 0; i < nr; i++)
			tap_result(0, names[i]);
		return 1;
	}
	if (lay.nohuge_errno && thp_may_back(why, sizeof(why))) {
		stop_child();
		for (i = 0; i < nr; i++)
			tap_skip(names[i], why);
		return 0;
	}
	if (lay.nohuge_errno)
		tap_diag("madvise(MADV_NOHUGEPAGE): %s, but no THP size is always here: the pages are small",
			 strerror(lay.nohuge_errno));
	thp_check();
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)child);
	qemu_user_refuses_ioctl(path, PAGEMAP_SCAN, "PAGEMAP_SCAN", scan_why,
				sizeof(scan_why));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)child);
	qemu_user_refuses_ioctl(path, PROCMAP_QUERY, "PROCMAP_QUERY",
				query_why, sizeof(query_why));
	if (!huge_why[0] && !lay.huge)
		snprintf(huge_why, sizeof(huge_why), "MAP_HUGETLB: %s",
			 strerror(lay.huge_errno));
	/* the rest is tested without them */
	if (thp_why[0])
		tap_diag("THP not checked: %s", thp_why);
	if (huge_why[0])
		tap_diag("hugetlb not checked: %s", huge_why);
	test_kpageflags();
	test_scan();
	test_smaps_page_size();
	test_kpageflags_no_scan();
	test_nothing_known();
	test_unprivileged();
	test_missing_pid();
	stop_child();
	return tap_failed_tests ? 1 : 0;
}
