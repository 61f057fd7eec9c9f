// SPDX-License-Identifier: GPL-2.0
/*
 * oracle: check the pmaps text of the module (/proc/pmaps_ext/PID) or of the
 * kernel patch (/proc/PID/pmaps) against the model that libpmaps builds from
 * /proc/PID/pagemap, /proc/kpageflags and /proc/kpagecount, for PID 1, for
 * this process and for a child with a rich layout.  Runs as root in the
 * guest; prints kselftest TAP.
 *
 * Environment:
 *   PMAPS_FILE_FMT  path of the text with one %d for the PID,
 *                   e.g. "/proc/%d/pmaps" for the kernel patch;
 *   PMAPS_DIR       otherwise the directory of PID files
 *                   (default /proc/pmaps_ext).
 *
 * The two sources group pages differently (Y and P are unknown to pagemap,
 * but where PAGEMAP_SCAN reports PAGE_IS_YOUNG and PAGE_IS_PTE_DIRTY), so
 * ranges are compared page by page: same pages, same index, same mapcount,
 * same R/A/U/D/W, and same Y and P where pagemap knows Y.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "loaded.h"
#include "lru_drain.h"
#include "tap.h"
#include "thp.h"
#include "pmaps.h"
#include "pagemap.h"

/* What both sources know; Y and P only the module does. */
#define KNOWN_FLAGS ((1u << PMAPS_REFERENCED) | (1u << PMAPS_ACTIVE) | \
		     (1u << PMAPS_UPTODATE) | (1u << PMAPS_DIRTY) | \
		     (1u << PMAPS_WRITEBACK))

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23	/* Linux 5.14 */
#endif

#define ATTEMPTS	3
#define SHOW_LAST	10	/* mismatches shown on the last attempt */
#define SHOW_RETRY	3	/* and on attempts that will be retried */
#define TEXT_CAP	(1UL << 20)

static char path_fmt[256];
static unsigned long psize;

/* The pmaps text of one target; kept across attempts. */
struct text {
	char *buf;
	size_t len, cap;
};

struct report {
	const char *who;
	int attempt, shown, max_shown;
	size_t vmas, pages, mod_pages, pm_pages;
	size_t pte_bit_pages;		/* of pages, with Y and P compared */
	size_t bad_vmas, bad_pages, events;
};

static void mismatch(struct report *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void mismatch(struct report *rp, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	rp->events++;
	if (rp->shown++ >= rp->max_shown)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tap_diag("%s attempt %d: %s", rp->who, rp->attempt, buf);
}

static int set_path_fmt(void)
{
	const char *fmt = getenv("PMAPS_FILE_FMT");
	const char *dir = getenv("PMAPS_DIR");
	const char *pct;

	if (fmt && *fmt) {
		/* a format from outside: exactly one conversion, %d */
		pct = strchr(fmt, '%');
		if (!pct || pct[1] != 'd' || strchr(pct + 2, '%') ||
		    strlen(fmt) >= sizeof(path_fmt)) {
			tap_diag("PMAPS_FILE_FMT must contain exactly one %%d: '%s'",
				 fmt);
			return -1;
		}
		snprintf(path_fmt, sizeof(path_fmt), "%s", fmt);
		return 0;
	}
	if (!dir || !*dir)
		dir = "/proc/pmaps_ext";
	if (strchr(dir, '%') || strlen(dir) + 4 >= sizeof(path_fmt)) {
		tap_diag("bad PMAPS_DIR '%s'", dir);
		return -1;
	}
	snprintf(path_fmt, sizeof(path_fmt), "%s/%%d", dir);
	return 0;
}

static void text_path(char *buf, size_t len, int pid)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, len, path_fmt, pid);
#pragma GCC diagnostic pop
}

/* Grow t to cap bytes, all touched, so reading into it faults nothing. */
static int text_reserve(struct text *t, size_t cap)
{
	char *b;

	if (cap <= t->cap)
		return 0;
	b = realloc(t->buf, cap);
	if (!b)
		return -1;
	memset(b + t->cap, 0, cap - t->cap);
	t->buf = b;
	t->cap = cap;
	return 0;
}

/*
 * Read the whole file.  Return 0, 1 if the buffer had to grow (the text of
 * this process is then stale), -1 with errno on error.
 */
static int text_read(struct text *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int grew = 0;

	if (fd < 0)
		return -1;
	t->len = 0;
	for (;;) {
		ssize_t n;

		if (t->len == t->cap) {
			if (text_reserve(t, t->cap ? t->cap * 2 : TEXT_CAP)) {
				close(fd);
				errno = ENOMEM;
				return -1;
			}
			grew = 1;
		}
		n = read(fd, t->buf + t->len, t->cap - t->len);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		t->len += (size_t)n;
	}
	close(fd);
	return grew;
}

/* Walks the pages of one VMA's ranges, in address order. */
struct cursor {
	const struct pmaps_vma *v;
	size_t i;
	unsigned long long off;		/* pages of range i already used */
};

/* Current page (relative to the VMA start) and pages left in its range. */
static int cur_get(struct cursor *c, unsigned long long *page,
		   unsigned long long *left, const struct pmaps_range **r)
{
	while (c->i < c->v->nr_ranges && c->off >= c->v->ranges[c->i].count) {
		c->i++;
		c->off = 0;
	}
	if (c->i >= c->v->nr_ranges)
		return 0;
	*r = &c->v->ranges[c->i];
	*page = (pmaps_range_addr(c->v, *r) - c->v->start) / psize + c->off;
	*left = (*r)->count - c->off;
	return 1;
}

static void describe(char *buf, size_t len, const struct pmaps_range *r)
{
	char f[PMAPS_NR_FLAGS + 1];

	pmaps_format_flags(r->flags, r->unknown, f);
	snprintf(buf, len, "%s mapcount %ld", f, r->mapcount);
}

static void only_in(struct report *rp, const struct pmaps_vma *v,
		    const struct pmaps_range *r, unsigned long long page,
		    unsigned long long off, unsigned long long n,
		    const char *side)
{
	char d[64];

	describe(d, sizeof(d), r);
	mismatch(rp, "%s: %llu page(s) at %llx (index %llu, %s) only in %s",
		 v->header, n, v->start + page * psize, r->index + off, d,
		 side);
	rp->bad_pages += n;
}

/* Page-by-page comparison of two VMAs with the same header. */
static void compare_pages(struct report *rp, const struct pmaps_vma *mv,
			  const struct pmaps_vma *pv)
{
	struct cursor a = { .v = mv }, b = { .v = pv };
	size_t before = rp->events;

	for (;;) {
		const struct pmaps_range *ra = NULL, *rb = NULL;
		unsigned long long pa = 0, pb = 0, la = 0, lb = 0, n;
		unsigned int known;
		int ha = cur_get(&a, &pa, &la, &ra);
		int hb = cur_get(&b, &pb, &lb, &rb);

		if (!ha && !hb)
			break;
		if (ha && (!hb || pa < pb)) {
			n = hb && pb - pa < la ? pb - pa : la;
			only_in(rp, mv, ra, pa, a.off, n, "module");
			rp->mod_pages += n;
			a.off += n;
			continue;
		}
		if (!ha || pb < pa) {
			n = ha && pa - pb < lb ? pa - pb : lb;
			only_in(rp, pv, rb, pb, b.off, n, "pagemap");
			rp->pm_pages += n;
			b.off += n;
			continue;
		}
		n = la < lb ? la : lb;
		rp->pages += n;
		rp->mod_pages += n;
		rp->pm_pages += n;
		/*
		 * Under the multi-gen LRU pagemap cannot know A of a folio
		 * on a list (kpageflags has no generation); pmaps_test's
		 * test_active_mglru_aging checks the module's A there.
		 */
		known = KNOWN_FLAGS & ~(rb->unknown & (1u << PMAPS_ACTIVE));
		/*
		 * Y is known only from PAGEMAP_SCAN's PAGE_IS_YOUNG, which
		 * comes with PAGE_IS_PTE_DIRTY: then P is the entry's too,
		 * not pte_dirty_certain()'s guess, and both must agree.
		 */
		if (!(rb->unknown & (1u << PMAPS_YOUNG))) {
			known |= PMAPS_PAGEMAP_UNKNOWN;
			rp->pte_bit_pages += n;
		}
		if ((ra->flags & known) != (rb->flags & known) ||
		    ra->mapcount != rb->mapcount || ra->unknown) {
			char da[64], db[64];

			describe(da, sizeof(da), ra);
			describe(db, sizeof(db), rb);
			mismatch(rp, "%s: %llu page(s) at %llx (index %llu): module %s, pagemap %s",
				 mv->header, n, mv->start + pa * psize,
				 ra->index + a.off, da, db);
			rp->bad_pages += n;
		}
		a.off += n;
		b.off += n;
	}
	if (rp->events != before)
		rp->bad_vmas++;
}

/* Same VMA headers in the same order, then the pages of each. */
static void compare_maps(struct report *rp, const struct pmaps_map *mod,
			 const struct pmaps_map *pm)
{
	size_t i = 0, j = 0;

	while (i < mod->nr_vmas || j < pm->nr_vmas) {
		const struct pmaps_vma *mv = i < mod->nr_vmas ?
					     &mod->vmas[i] : NULL;
		const struct pmaps_vma *pv = j < pm->nr_vmas ?
					     &pm->vmas[j] : NULL;

		/*
		 * The kernel's file ends with the gate VMA's header, as maps
		 * does; the pagemap source leaves it out, having no pages.
		 */
		if (mv && !pv && !mv->nr_ranges &&
		    strstr(mv->header, " [vsyscall]")) {
			i++;
			continue;
		}
		/* resynchronise on addresses after a missing VMA */
		if (mv && (!pv || mv->start < pv->start)) {
			mismatch(rp, "VMA only in module: %s", mv->header);
			rp->bad_vmas++;
			i++;
			continue;
		}
		if (!mv || pv->start < mv->start) {
			mismatch(rp, "VMA only in pagemap: %s", pv->header);
			rp->bad_vmas++;
			j++;
			continue;
		}
		rp->vmas++;
		if (strcmp(mv->header, pv->header)) {
			mismatch(rp, "VMA header: module '%s', maps '%s'",
				 mv->header, pv->header);
			rp->bad_vmas++;
		}
		if (mv->end == pv->end && mv->offset == pv->offset &&
		    mv->inode == pv->inode)
			compare_pages(rp, mv, pv);
		i++;
		j++;
	}
}

/*
 * Write-fault every page of our private writable mappings except [skip,
 * skip_end), keeping its content: heap, stack and buffers are then all
 * present and none is COW-shared with a child any more.  Allocating between
 * the two reads then neither faults in pages of ours nor changes a child's
 * mapcounts.  Without MADV_POPULATE_WRITE (Linux 5.14), retries remain.
 */
static void populate_self(uintptr_t skip, uintptr_t skip_end)
{
	static char maps[65536];
	ssize_t n, len = 0;
	char *line, *nl;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while (len < (ssize_t)sizeof(maps) - 1 &&
	       (n = read(fd, maps + len, sizeof(maps) - 1 - len)) > 0)
		len += n;
	close(fd);
	maps[len] = '\0';
	for (line = maps; (nl = strchr(line, '\n')); line = nl + 1) {
		unsigned long long start, end;
		char perms[5];

		*nl = '\0';
		if (sscanf(line, "%llx-%llx %4s", &start, &end, perms) != 3 ||
		    strcmp(perms, "rw-p"))
			continue;
		if (start < skip)
			madvise((void *)(uintptr_t)start,
				(end < skip ? end : skip) - start,
				MADV_POPULATE_WRITE);
		if (end > skip_end) {
			start = start > skip_end ? start : skip_end;
			madvise((void *)(uintptr_t)start, end - start,
				MADV_POPULATE_WRITE);
		}
	}
}

/*
 * Compare target pid up to ATTEMPTS times.  The module text is read first,
 * then the pagemap model is built, then the text is parsed: for this
 * process, as little as possible happens between the two reads.
 */
static int check_target(const char *who, int pid, struct text *t)
{
	struct pmaps_map mod, pm;
	char path[300], err[512];
	struct report rp;
	int attempt, ret;

	text_path(path, sizeof(path), pid);
	for (attempt = 1; attempt <= ATTEMPTS; attempt++) {
		int last = attempt == ATTEMPTS;

		memset(&rp, 0, sizeof(rp));
		rp.who = who;
		rp.attempt = attempt;
		rp.max_shown = last ? SHOW_LAST : SHOW_RETRY;

		/* our own new pages wait in LRU batches too: drain after */
		if (pid == getpid())
			populate_self(0, 0);
		drain_lru_batches();
		ret = text_read(t, path);
		if (ret < 0) {
			tap_diag("%s: read %s: %s", who, path,
				 strerror(errno));
			return 0;
		}
		if (pmaps_from_pagemap(pid, &pm, err, sizeof(err))) {
			tap_diag("%s: pagemap model: %s", who, err);
			return 0;
		}
		if (ret == 1) {
			/* grown while reading: self's text is stale, reread */
			tap_diag("%s attempt %d: text buffer grew to %zu bytes, retrying",
				 who, attempt, t->cap);
			pmaps_map_free(&pm);
			continue;
		}
		if (pmaps_parse_buf_as(t->buf, t->len, path,
				       pmaps_page_size(), &mod, err,
				       sizeof(err))) {
			tap_diag("%s attempt %d: parse: %s", who, attempt, err);
			rp.events++;
		} else {
			compare_maps(&rp, &mod, &pm);
		}
		pmaps_map_free(&mod);
		pmaps_map_free(&pm);

		tap_diag("%s attempt %d: %zu VMAs, %zu pages compared (module %zu, pagemap %zu; Y and P on %zu), %zu mismatches in %zu VMAs, %zu pages",
			 who, attempt, rp.vmas, rp.pages, rp.mod_pages,
			 rp.pm_pages, rp.pte_bit_pages, rp.events, rp.bad_vmas,
			 rp.bad_pages);
		if (!rp.events)
			return 1;
		if (rp.shown > rp.max_shown)
			tap_diag("%s attempt %d: %d more mismatches not shown",
				 who, attempt, rp.shown - rp.max_shown);
		if (!last)
			tap_diag("retried: %s, attempt %d of %d", who,
				 attempt + 1, ATTEMPTS);
	}
	return 0;
}

/* State letter of /proc/PID/stat, or 0. */
static char proc_state(int pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * PID 1: init ignores SIGSTOP sent from inside its namespace, so it is
 * usually compared live; it sleeps in wait() and barely changes.
 */
static int test_oracle_init(struct text *t)
{
	int stopped = 0, i, ok;
	char path[300];

	if (getpid() == 1) {
		tap_skip("test_oracle_init", "this is PID 1: see test_oracle_self");
		return 1;
	}
	/* no text to read: leave init alone */
	text_path(path, sizeof(path), 1);
	if (access(path, R_OK)) {
		tap_diag("init: %s: %s", path, strerror(errno));
		tap_result(0, "test_oracle_init");
		return 0;
	}
	if (!kill(1, SIGSTOP)) {
		for (i = 0; i < 50 && !stopped; i++) {
			stopped = proc_state(1) == 'T';
			if (!stopped)
				sleep_ms(2);
		}
	}
	if (!stopped)
		tap_diag("init: PID 1 did not stop, comparing it running");
	ok = check_target("init", 1, t);
	kill(1, SIGCONT);
	tap_result(ok, "test_oracle_init");
	return ok;
}

/*
 * This process changes as it reads, so: size the text buffer and warm the
 * allocator up with a first round; check_target() then populates our
 * anonymous memory before each attempt and retries on mismatch.
 */
static int test_oracle_self(struct text *t)
{
	struct pmaps_map pm;
	char path[300], err[512];
	int pid = getpid(), ok = 0;

	text_path(path, sizeof(path), pid);
	if (text_read(t, path) < 0) {
		tap_diag("self: read %s: %s", path, strerror(errno));
	} else if (text_reserve(t, t->len * 2 + TEXT_CAP)) {
		tap_diag("self: out of memory");
	} else if (pmaps_from_pagemap(pid, &pm, err, sizeof(err))) {
		tap_diag("self: pagemap model: %s", err);
	} else {
		pmaps_map_free(&pm);
		ok = check_target("self", pid, t);
	}
	tap_result(ok, "test_oracle_self");
	return ok;
}

#define CHILD_ANON	64
#define CHILD_ZERO	8
#define CHILD_MEMFD	16
#define CHILD_SHOFF	4	/* memfd page the shared mapping starts at */
#define CHILD_NONE	4
#define COW_PAGES	16
#define SHARED_PAGES	8
#define THP_SIZE	(2UL << 20)
#define HUGE_SIZE	(2UL << 20)	/* x86-64's default hugetlb size */
#define CHILD_HUGE	3		/* huge pages the child maps */
#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB	4U
#endif

static void touch(volatile char *p, size_t pages, int write)
{
	size_t i;

	/* volatile: every access happens, so every page faults in */
	for (i = 0; i < pages; i++) {
		if (write)
			p[i * psize] = (char)(i + 1);
		else
			(void)p[i * psize];
	}
}

static void *map_anon(size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(10);
	return p;
}

/* memfd of n written pages: in the page cache, dirty, never written back */
static int make_memfd(size_t n)
{
	char *buf = map_anon(psize, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	int fd = memfd_create("pmaps_oracle", MFD_CLOEXEC);
	size_t i;

	if (fd < 0)
		_exit(11);
	for (i = 0; i < n; i++) {
		memset(buf, 'a' + (int)(i % 26), psize);
		if (write(fd, buf, psize) != (ssize_t)psize)
			_exit(12);
	}
	munmap(buf, psize);
	return fd;
}

/* The executable mapped once more and read whole: clean file pages. */
static void map_exe(void)
{
	struct stat st;
	char *p;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !st.st_size)
		_exit(13);
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		_exit(14);
	close(fd);
	touch(p, (st.st_size + psize - 1) / psize, 0);
}

/* Two THP-sized areas; the second gets a hole, splitting its PMD. */
static void map_thp(void)
{
	char *p = map_anon(3 * THP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *a = (char *)(((uintptr_t)p + THP_SIZE - 1) & ~(THP_SIZE - 1));

	/* no THP is fine: small pages are compared all the same */
	madvise(a, 2 * THP_SIZE, MADV_HUGEPAGE);
	touch(a, 2 * THP_SIZE / psize, 1);
	madvise(a + THP_SIZE + 8 * psize, psize, MADV_DONTNEED);
}

/*
 * hugetlb: two private 2 MiB pages, the first written, the second only
 * read (hugetlb has no zero page), and a written page of a hugetlb memfd
 * mapped shared.  The pool may have no room, and then there are none.
 */
static void map_hugetlb(void)
{
	volatile char *priv, *shm = MAP_FAILED;
	int fd, n = 0;

	priv = mmap(NULL, 2 * HUGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (priv != MAP_FAILED) {
		priv[0] = 1;
		(void)priv[HUGE_SIZE];
		n += 2;
	}
	fd = memfd_create("pmaps_oracle_huge", MFD_CLOEXEC | MFD_HUGETLB);
	if (fd >= 0 && !ftruncate(fd, HUGE_SIZE))
		shm = mmap(NULL, HUGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
	if (shm != MAP_FAILED) {
		shm[0] = 1;
		n++;
	}
	if (fd >= 0)
		close(fd);
	tap_diag("child: %d hugetlb pages mapped", n);
}

/*
 * The child's layout, in pages:
 *  - anon: 64 pages without THP, 0-9 and 20-29 written, 5-6 dropped;
 *  - 8 anon pages only read: the zero page, which neither side lists;
 *  - a 16-page memfd: shared from page 4 and read, private from page 0
 *    with pages 0, 1 and 8 written (anonymous COW pages in a file VMA);
 *  - the executable, read; THP areas; written pages made PROT_NONE;
 *  - hugetlb pages, private and shared, if the pool has room;
 *  - the parent's COW and shared anonymous pages, also mapped by a
 *    grandchild: mapcount 3, or 1 for the COW pages the child rewrote.
 */
static void child_main(int wfd, volatile char *cow)
{
	volatile char *anon, *zero, *shm, *priv, *none;
	int fd, gp[2];
	pid_t gc;
	char c;

	anon = map_anon(CHILD_ANON * psize, PROT_READ | PROT_WRITE,
			MAP_PRIVATE);
	madvise((void *)anon, CHILD_ANON * psize, MADV_NOHUGEPAGE);
	touch(anon, 10, 1);
	touch(anon + 20 * psize, 10, 1);
	madvise((void *)(anon + 5 * psize), 2 * psize, MADV_DONTNEED);

	zero = map_anon(CHILD_ZERO * psize, PROT_READ, MAP_PRIVATE);
	madvise((void *)zero, CHILD_ZERO * psize, MADV_NOHUGEPAGE);
	touch(zero, CHILD_ZERO, 0);

	fd = make_memfd(CHILD_MEMFD);
	shm = mmap(NULL, (CHILD_MEMFD - CHILD_SHOFF) * psize, PROT_READ,
		   MAP_SHARED, fd, CHILD_SHOFF * psize);
	priv = mmap(NULL, CHILD_MEMFD * psize, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE, fd, 0);
	if (shm == MAP_FAILED || priv == MAP_FAILED)
		_exit(15);
	close(fd);
	touch(shm, CHILD_MEMFD - CHILD_SHOFF, 0);
	touch(priv, CHILD_MEMFD, 0);
	touch(priv, 2, 1);
	touch(priv + 8 * psize, 1, 1);

	map_exe();
	map_thp();
	map_hugetlb();

	none = map_anon(CHILD_NONE * psize, PROT_READ | PROT_WRITE,
			MAP_PRIVATE);
	touch(none, CHILD_NONE, 1);
	mprotect((void *)none, CHILD_NONE * psize, PROT_NONE);

	/* a grandchild shares all of the above: mapcounts of 2 and 3 */
	if (pipe(gp))
		_exit(16);
	gc = fork();
	if (gc < 0)
		_exit(16);
	if (!gc) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(gp[0]);
		/* done writing memory: the parent may stop it from now on */
		if (write(gp[1], "", 1) != 1)
			_exit(0);
		for (;;)
			pause();
	}
	close(gp[1]);
	if (read(gp[0], &c, 1) != 1)
		_exit(17);
	close(gp[0]);
	/* now the child's own copies: mapcount 1 */
	touch(cow, 4, 1);

	if (write(wfd, &gc, sizeof(gc)) != sizeof(gc))
		_exit(18);
	for (;;)
		pause();
}

static int stop(pid_t pid, int wait)
{
	int st;

	if (kill(pid, SIGSTOP))
		return -1;
	if (wait)
		return waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st) ?
		       0 : -1;
	return 0;
}

/* The hugetlb pool's size before the child grew it, or -1. */
static long huge_pool_old = -1;

static long read_number(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static void write_number(int fd, long v)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld", v);

	if (pwrite(fd, buf, (size_t)n, 0) != n)
		tap_diag("child: writing %s: %s", NR_HUGEPAGES,
			 strerror(errno));
}

/* Room for the child's huge pages; without it, the child maps none. */
static void huge_pool_grow(void)
{
	int fd = open(NR_HUGEPAGES, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		tap_diag("child: no %s: no hugetlb pages compared",
			 NR_HUGEPAGES);
		return;
	}
	huge_pool_old = read_number(fd);
	if (huge_pool_old >= 0)
		write_number(fd, huge_pool_old + CHILD_HUGE);
	if (read_number(fd) < huge_pool_old + CHILD_HUGE)
		tap_diag("child: the hugetlb pool has no room: no hugetlb pages compared");
	close(fd);
}

/* Once the child and grandchild are gone, with their huge pages. */
static void huge_pool_restore(void)
{
	int fd;

	if (huge_pool_old < 0)
		return;
	fd = open(NR_HUGEPAGES, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		write_number(fd, huge_pool_old);
		close(fd);
	}
}

static int test_oracle_child(struct text *t)
{
	volatile char *cow, *shared;
	pid_t pid, gc = -1;
	int p[2], ok = 0;

	cow = mmap(NULL, COW_PAGES * psize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	shared = mmap(NULL, SHARED_PAGES * psize, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cow == MAP_FAILED || shared == MAP_FAILED || pipe(p)) {
		tap_diag("child: setup: %s", strerror(errno));
		tap_result(0, "test_oracle_child");
		return 0;
	}
	madvise((void *)cow, COW_PAGES * psize, MADV_NOHUGEPAGE);
	touch(cow, COW_PAGES, 1);
	touch(shared, SHARED_PAGES, 1);
	/* the grandchild comes back to us when the child dies */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	huge_pool_grow();

	pid = fork();
	if (pid < 0) {
		tap_diag("child: fork: %s", strerror(errno));
	} else if (!pid) {
		close(p[0]);
		child_main(p[1], cow);
	} else {
		close(p[1]);
		if (read(p[0], &gc, sizeof(gc)) != sizeof(gc)) {
			tap_diag("child: layout setup failed");
		} else if (stop(gc, 0) || stop(pid, 1)) {
			tap_diag("child: cannot stop it: %s", strerror(errno));
		} else {
			/*
			 * Our pages are COW-shared with the child: unshare all
			 * but the COW region now, or writing them while
			 * comparing changes the child's mapcounts.
			 */
			populate_self((uintptr_t)cow,
				      (uintptr_t)cow + COW_PAGES * psize);
			ok = check_target("child", pid, t);
		}
		if (gc > 0)
			kill(gc, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (gc > 0)
			waitpid(gc, NULL, 0);
	}
	huge_pool_restore();
	close(p[0]);
	munmap((void *)cow, COW_PAGES * psize);
	munmap((void *)shared, SHARED_PAGES * psize);
	tap_result(ok, "test_oracle_child");
	return ok;
}

/*
 * mTHP: anonymous large folios mapped by PTEs, which the grandchild maps
 * only in part.  With per-page mapcounts (CONFIG_PAGE_MAPCOUNT) the halves
 * of each folio differ; without them (CONFIG_NO_PAGE_MAPCOUNT, v6.15) the
 * kernel keeps no per-page count and /proc/kpagecount reports the folio's
 * average.  Either way the text must say what kpagecount says.
 */
#define MTHP_SIZE	(64UL << 10)
#define MTHP_AREA	(16 * MTHP_SIZE)
#define KPF_THP_BIT	22

static const char mthp_path[] =
	"/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled";
static const char pmd_thp_path[] =
	"/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled";

static int write_setting(const char *path, const char *value)
{
	FILE *f = fopen(path, "we");
	int ok;

	if (!f)
		return -1;
	ok = fputs(value, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* kpageflags of the page at addr in pid, or 0 when it is not present. */
static uint64_t page_kflags(int pid, uintptr_t addr)
{
	uint64_t entry = 0, flags = 0;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &entry, sizeof(entry), (off_t)(addr / psize * 8)) !=
	    sizeof(entry) || !(entry >> 63)) {
		close(fd);
		return 0;
	}
	close(fd);
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &flags, sizeof(flags),
		  (off_t)((entry & ((1ULL << 55) - 1)) * 8)) != sizeof(flags))
		flags = 0;
	close(fd);
	return flags;
}

/* The mapcounts the text gives the first folio of the area: differ? */
static int folio_mapcounts_differ(const struct text *t, uintptr_t area,
				  int *ok)
{
	struct pmaps_map map;
	long first = -1;
	int differ = 0;
	char err[512];
	size_t v, r;

	*ok = 0;
	if (pmaps_parse_buf_as(t->buf, t->len, "mthp", pmaps_page_size(),
			       &map, err, sizeof(err)))
		return 0;
	for (v = 0; v < map.nr_vmas; v++) {
		const struct pmaps_vma *vma = &map.vmas[v];

		if (vma->start > area || vma->end <= area)
			continue;
		for (r = 0; r < vma->nr_ranges; r++) {
			const struct pmaps_range *rg = &vma->ranges[r];
			unsigned long long page = rg->index * psize;

			if (page >= area + MTHP_SIZE ||
			    page + rg->count * psize <= area)
				continue;
			*ok = 1;
			if (first < 0)
				first = rg->mapcount;
			else if (rg->mapcount != first)
				differ = 1;
		}
	}
	pmaps_map_free(&map);
	return differ;
}

static int test_oracle_mthp(struct text *t)
{
	char old_mthp[32], old_pmd[32] = "";
	int p[2], ok = 0, seen, differ;
	pid_t pid, gc = -1;
	char *area = NULL;

	if (sysfs_choice(mthp_path, old_mthp, sizeof(old_mthp))) {
		tap_skip("test_oracle_mthp", "no 64 KiB mTHP: the kernel has no THP, or is older than v6.8");
		return 1;
	}
	/* 64 KiB folios, never a PMD THP over them */
	sysfs_choice(pmd_thp_path, old_pmd, sizeof(old_pmd));
	if (write_setting(mthp_path, "always") ||
	    (old_pmd[0] && write_setting(pmd_thp_path, "never")) || pipe(p)) {
		tap_diag("mthp: setup: %s", strerror(errno));
		goto restore;
	}
	pid = fork();
	if (!pid) {
		char *raw = map_anon(MTHP_AREA + MTHP_SIZE,
				     PROT_READ | PROT_WRITE, MAP_PRIVATE);
		uintptr_t a;
		size_t off;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		a = ((uintptr_t)raw + MTHP_SIZE - 1) & ~(MTHP_SIZE - 1);
		touch((volatile char *)a, MTHP_AREA / psize, 1);
		gc = fork();
		if (!gc) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			/* the grandchild maps the first half of each folio */
			for (off = 0; off < MTHP_AREA; off += MTHP_SIZE)
				madvise((char *)a + off + MTHP_SIZE / 2,
					MTHP_SIZE / 2, MADV_DONTNEED);
			if (write(p[1], &a, sizeof(a)) != sizeof(a))
				_exit(1);
			for (;;)
				pause();
		}
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &area, sizeof(area)) != sizeof(area)) {
		tap_diag("mthp: the target did not set up");
	} else if (stop(pid, 1)) {
		tap_diag("mthp: cannot stop it: %s", strerror(errno));
	} else if (!(page_kflags(pid, (uintptr_t)area) &
		     (1ULL << KPF_THP_BIT))) {
		/*
		 * With 64 KiB mTHP set to always, a fresh guest has the
		 * folios: none means the setup failed, not the machine.
		 */
		tap_diag("mthp: no 64 KiB folio was allocated; nothing to compare");
		ok = 0;
	} else {
		/* unshare our pages, or our writes change the child's counts */
		populate_self(0, 0);
		ok = check_target("mthp", pid, t);
		differ = folio_mapcounts_differ(t, (uintptr_t)area, &seen);
		if (!seen) {
			tap_diag("mthp: the text has no range for the area");
			ok = 0;
		} else {
			tap_diag("mthp: pages of one folio show %s",
				 differ ? "their own mapcounts (per-page mapcounts)" :
				 "one mapcount (the folio average: no per-page mapcounts)");
		}
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(p[0]);
restore:
	write_setting(mthp_path, old_mthp);
	if (old_pmd[0])
		write_setting(pmd_thp_path, old_pmd);
	tap_result(ok, "test_oracle_mthp");
	return ok;
}

/* Nothing could be tested: each test fails. */
static int fail_all(void)
{
	tap_result(0, "test_oracle_init");
	tap_result(0, "test_oracle_self");
	tap_result(0, "test_oracle_child");
	tap_result(0, "test_oracle_mthp");
	return 1;
}

int main(void)
{
	struct text t = { 0 };
	int ok = 1;

#ifdef __GLIBC__
	/*
	 * Never give freed heap back: a heap that shrinks and regrows shows
	 * new pages between the two reads of this process.
	 */
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
	psize = pmaps_page_size();
	tap_plan(4);
	if (geteuid()) {
		tap_skip("test_oracle_init", "needs root");
		tap_skip("test_oracle_self", "needs root");
		tap_skip("test_oracle_child", "needs root");
		tap_skip("test_oracle_mthp", "needs root");
		return 0;
	}
	if (set_path_fmt())
		return fail_all();
	tap_diag("pmaps text: %s", path_fmt);
	if (pmaps_dir_missing(path_fmt))
		return fail_all();
	if (text_reserve(&t, TEXT_CAP)) {
		tap_diag("out of memory");
		return fail_all();
	}
	ok &= test_oracle_init(&t);
	ok &= test_oracle_self(&t);
	ok &= test_oracle_child(&t);
	ok &= test_oracle_mthp(&t);
	free(t.buf);
	return ok ? 0 : 1;
}
