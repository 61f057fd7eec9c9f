// SPDX-License-Identifier: GPL-2.0
/*
 * The pmaps model built from pagemap, kpageflags and kpagecount instead of
 * the kernel module (see pagemap.h and
 * Documentation/admin-guide/mm/pagemap.rst).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pagemap.h"

/* /proc/PID/pagemap entry */
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_PRESENT	(1ULL << 63)

/* include/uapi/linux/kernel-page-flags.h, spelled out to need libc only */
#define KPF_REFERENCED	2
#define KPF_UPTODATE	3
#define KPF_DIRTY	4
#define KPF_ACTIVE	6
#define KPF_WRITEBACK	8
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_NOPAGE	20
#define KPF_ZERO_PAGE	24

#define KPF_NOT_LISTED	((1ULL << KPF_NOPAGE) | (1ULL << KPF_ZERO_PAGE))

/* pagemap entries per pread (512 KiB buffer) */
#define PM_BATCH	65536
/* kpageflags/kpagecount entries per pread at most */
#define KPF_WINDOW	4096
/*
 * A PFN at most this far above the previous one joins the same pread:
 * reading a few unneeded entries is cheaper than another system call.
 */
#define KPF_GAP		64

#define SMAPS_CHUNK	16384

/*
 * What the first pass over a batch found for each entry: not listed, a
 * page with its flags and count, or a page whose state changed between the
 * reads (its folio split, freed or reused), shown with '?'.
 */
enum pm_page {
	PM_PAGE_NONE,
	PM_PAGE_KNOWN,
	PM_PAGE_RACED,
};

/* The letters of folio state, unknown for a page that raced. */
#define PM_FOLIO_LETTERS ((1u << PMAPS_REFERENCED) | (1u << PMAPS_ACTIVE) | \
			  (1u << PMAPS_UPTODATE) | (1u << PMAPS_DIRTY) | \
			  (1u << PMAPS_WRITEBACK))

struct pm_ctx {
	int pid;
	unsigned long psize;
	int pm_fd, kpf_fd, kpc_fd;
	uint64_t *pm;			/* PM_BATCH pagemap entries */
	uint64_t *pm_again;		/* the same, read after kpageflags */
	uint64_t *page_kpf, *page_kpc;	/* per entry of the batch */
	unsigned char *page_kind;	/* enum pm_page, per entry */
	uint64_t *kpf, *kpc;		/* KPF_WINDOW entries from win_start */
	uint64_t win_start;
	size_t win_len;
	/* the compound head of the last tail page seen, and its flags */
	uint64_t head_kpf;
	uint64_t tail_next;		/* PFN after that tail page, or 0 */
	unsigned long long zero_pfns;	/* present, but PFN hidden */
	unsigned long long pfns;	/* present with a PFN */
	char *err;
	size_t errlen;
};

/* What smaps says about each VMA, in maps order. */
struct smaps_scan {
	char *hdr;			/* header lines, '\n' terminated */
	size_t hdr_len, hdr_cap;
	struct pmaps_smaps_vma *vma;	/* per VMA */
	size_t nr, cap;
	int dropped;			/* current entry is [vsyscall] */
};

static int fail(struct pm_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int fail_errno(struct pm_ctx *c, const char *what, const char *path,
		      int e)
{
	const char *hint = "";

	if (e == EACCES || e == EPERM)
		hint = strncmp(path, "/proc/kpage", 11) ?
		       " (needs root, or ptrace access to the process)" :
		       " (needs root)";
	else if (e == ENOENT && strncmp(path, "/proc/kpage", 11))
		hint = " (no such process?)";
	return fail(c, "%s %s: %s%s", what, path, strerror(e), hint);
}

/* pread until count bytes, end of file or error; /proc may return less. */
static ssize_t pread_full(int fd, void *buf, size_t count, off_t off)
{
	size_t done = 0;

	while (done < count) {
		ssize_t n = pread(fd, (char *)buf + done, count - done,
				  off + (off_t)done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

/* "START-END " opens a VMA header; smaps' other lines are "Key: value". */
static int is_header(const char *s, size_t len)
{
	size_t i = 0, j;

	while (i < len && is_hex(s[i]))
		i++;
	if (!i || i >= len || s[i] != '-')
		return 0;
	j = ++i;
	while (i < len && is_hex(s[i]))
		i++;
	return i > j && i < len && s[i] == ' ';
}

/* The name is what follows the five fields and the padding. */
static int names_vsyscall(const char *s, size_t len)
{
	static const char gate[] = "[vsyscall]";
	size_t i = 0;
	int field;

	for (field = 0; field < 5; field++) {
		while (i < len && s[i] != ' ')
			i++;
		while (i < len && s[i] == ' ')
			i++;
	}
	return len - i == sizeof(gate) - 1 && !memcmp(s + i, gate, len - i);
}

static int has_prefix(const char *s, size_t len, const char *key)
{
	size_t n = strlen(key);

	return len >= n && !memcmp(s, key, n);
}

/* VM_PFNMAP and VM_IO VMAs are listed without pages. */
static int special_vmflags(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t w;

		while (i < len && s[i] == ' ')
			i++;
		w = i;
		while (i < len && s[i] != ' ')
			i++;
		if (i - w == 2 && (!memcmp(s + w, "pf", 2) ||
				   !memcmp(s + w, "io", 2)))
			return 1;
	}
	return 0;
}

/* The number after "Key:" and blanks, e.g. of "Rss:   12 kB". */
static unsigned long long smaps_number(const char *s, size_t len, size_t i)
{
	unsigned long long v = 0;

	while (i < len && s[i] == ' ')
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (unsigned long long)(s[i] - '0');
	return v;
}

static int smaps_line(struct smaps_scan *s, const char *line, size_t len)
{
	struct pmaps_smaps_vma *v;

	if (is_header(line, len)) {
		s->dropped = names_vsyscall(line, len);
		if (s->dropped)
			return 0;
		if (pmaps_grow_array((void **)&s->hdr, &s->hdr_cap,
				     s->hdr_len + len + 1, 1) ||
		    pmaps_grow_array((void **)&s->vma, &s->cap, s->nr + 1,
				     sizeof(*s->vma)))
			return -1;
		memset(&s->vma[s->nr++], 0, sizeof(*s->vma));
		memcpy(s->hdr + s->hdr_len, line, len);
		s->hdr_len += len;
		s->hdr[s->hdr_len++] = '\n';
		return 0;
	}
	if (s->dropped || !s->nr)
		return 0;
	v = &s->vma[s->nr - 1];
	if (has_prefix(line, len, "Rss:"))
		v->rss_kb = smaps_number(line, len, 4);
	else if (has_prefix(line, len, "Referenced:"))
		v->referenced_kb = smaps_number(line, len, 11);
	else if (has_prefix(line, len, "Swap:"))
		v->swap_kb = smaps_number(line, len, 5);
	else if (has_prefix(line, len, "Shared_Hugetlb:"))
		v->hugetlb_kb += smaps_number(line, len, 15);
	else if (has_prefix(line, len, "Private_Hugetlb:"))
		v->hugetlb_kb += smaps_number(line, len, 16);
	else if (has_prefix(line, len, "VmFlags:"))
		v->no_pages = special_vmflags(line + 8, len - 8);
	return 0;
}

static int read_smaps(struct pm_ctx *c, struct smaps_scan *s)
{
	char path[64];
	size_t cap = SMAPS_CHUNK, have = 0;
	char *buf;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/smaps", c->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(c, "open", path, errno);
	buf = malloc(cap);
	if (!buf) {
		fail(c, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		size_t start = 0;
		char *nl;
		ssize_t n;

		/* a line longer than the buffer: make room for all of it */
		if (have == cap) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf) {
				fail(c, "%s: out of memory", path);
				goto out;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail_errno(c, "read", path, errno);
			goto out;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(buf + start, '\n', have - start))) {
			if (smaps_line(s, buf + start,
				       (size_t)(nl - (buf + start)))) {
				fail(c, "%s: out of memory", path);
				goto out;
			}
			start = (size_t)(nl - buf) + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
	}
	if (have && smaps_line(s, buf, have)) {
		fail(c, "%s: out of memory", path);
		goto out;
	}
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

/* Read smaps into s and its headers into out (which then needs freeing). */
static int smaps_vmas(struct pm_ctx *c, struct smaps_scan *s,
		      struct pmaps_map *out)
{
	char name[64];
	size_t i;

	if (read_smaps(c, s))
		return -1;
	snprintf(name, sizeof(name), "/proc/%d/smaps headers", c->pid);
	if (pmaps_parse_buf(s->hdr ? s->hdr : "", s->hdr_len, name, out,
			    c->err, c->errlen))
		return -1;
	if (out->nr_vmas != s->nr)
		return fail(c, "%s: parsed %zu VMAs from %zu header lines",
			    name, out->nr_vmas, s->nr);
	/* lines of the text built here, not of any input */
	for (i = 0; i < out->nr_vmas; i++)
		out->vmas[i].line = 0;
	return 0;
}

int pmaps_smaps_read(int pid, struct pmaps_map *vmas,
		     struct pmaps_smaps_vma **stats, char *err, size_t errlen)
{
	struct pm_ctx c = { .pid = pid, .err = err, .errlen = errlen };
	struct smaps_scan s = { 0 };

	memset(vmas, 0, sizeof(*vmas));
	*stats = NULL;
	if (errlen)
		err[0] = '\0';
	if (smaps_vmas(&c, &s, vmas)) {
		pmaps_map_free(vmas);
		free(s.hdr);
		free(s.vma);
		return -1;
	}
	free(s.hdr);
	*stats = s.vma;
	return 0;
}

static uint64_t entry_pfn(uint64_t e)
{
	return (e & PM_PRESENT) ? e & PM_PFN_MASK : 0;
}

/*
 * Read kpageflags and kpagecount for the PFN of pagemap entry i and for the
 * PFNs of the following present pages, as long as they ascend in small
 * steps: physically contiguous memory costs one pread per file.
 */
static int fill_window(struct pm_ctx *c, size_t i, size_t n)
{
	uint64_t first = entry_pfn(c->pm[i]), last = first;
	size_t len, k;
	ssize_t got;
	size_t j;

	for (j = i + 1; j < n; j++) {
		uint64_t p = entry_pfn(c->pm[j]);

		if (!p)
			continue;
		if (p <= last || p - last > KPF_GAP ||
		    p - first >= KPF_WINDOW)
			break;
		last = p;
	}
	len = (size_t)(last - first + 1);

	got = pread_full(c->kpf_fd, c->kpf, len * 8, (off_t)(first * 8));
	if (got < 0)
		return fail_errno(c, "read", "/proc/kpageflags", errno);
	/* past the end of the memory map: no struct page */
	for (k = (size_t)got / 8; k < len; k++)
		c->kpf[k] = 1ULL << KPF_NOPAGE;

	got = pread_full(c->kpc_fd, c->kpc, len * 8, (off_t)(first * 8));
	if (got < 0)
		return fail_errno(c, "read", "/proc/kpagecount", errno);
	for (k = (size_t)got / 8; k < len; k++)
		c->kpc[k] = 0;

	c->win_start = first;
	c->win_len = len;
	return 0;
}

/*
 * Page flags belong to the folio.  Linux 6.1's kpageflags reports a tail
 * page's own, mostly empty, flags, so take them from the compound head, as
 * the module does; 6.12 reports the folio's flags for every page already.
 * Tails of one compound page come in ascending PFNs, so the head found for
 * one serves the next.  Returns 1 when no head precedes the tail: the
 * folio was split or freed while it was read, which a process that maps
 * and unmaps does all the time.
 */
static int head_flags(struct pm_ctx *c, uint64_t pfn, uint64_t *kpf)
{
	uint64_t back[512];
	uint64_t from = pfn;
	ssize_t got;
	size_t k;

	if (pfn == c->tail_next) {
		*kpf = c->head_kpf;
		c->tail_next = pfn + 1;
		return 0;
	}
	while (from > 0) {
		size_t n = from < 512 ? (size_t)from : 512;

		from -= n;
		got = pread_full(c->kpf_fd, back, n * 8, (off_t)(from * 8));
		if (got < (ssize_t)(n * 8))
			return fail_errno(c, "read", "/proc/kpageflags",
					  got < 0 ? errno : EIO);
		for (k = n; k-- > 0;) {
			if (back[k] & (1ULL << KPF_COMPOUND_HEAD)) {
				c->head_kpf = back[k];
				c->tail_next = pfn + 1;
				*kpf = back[k];
				return 0;
			}
			if (!(back[k] & (1ULL << KPF_COMPOUND_TAIL)))
				return 1;
		}
	}
	return 1;
}

static unsigned int kpf_to_flags(uint64_t kpf)
{
	unsigned int f = 0;

	if (kpf & (1ULL << KPF_REFERENCED))
		f |= 1u << PMAPS_REFERENCED;
	if (kpf & (1ULL << KPF_ACTIVE))
		f |= 1u << PMAPS_ACTIVE;
	if (kpf & (1ULL << KPF_UPTODATE))
		f |= 1u << PMAPS_UPTODATE;
	if (kpf & (1ULL << KPF_DIRTY))
		f |= 1u << PMAPS_DIRTY;
	if (kpf & (1ULL << KPF_WRITEBACK))
		f |= 1u << PMAPS_WRITEBACK;
	return f;
}

/* Append one page at index idx, extending the last range when it can. */
static int add_page(struct pmaps_vma *v, size_t *cap, unsigned long long idx,
		    unsigned int flags, unsigned int unknown, long mapcount)
{
	struct pmaps_range *r;

	if (v->nr_ranges) {
		r = &v->ranges[v->nr_ranges - 1];
		if (r->index + r->count == idx && r->flags == flags &&
		    r->unknown == unknown && r->mapcount == mapcount) {
			r->count++;
			return 0;
		}
	}
	if (pmaps_grow_array((void **)&v->ranges, cap, v->nr_ranges + 1,
			     sizeof(*r)))
		return -1;
	r = &v->ranges[v->nr_ranges++];
	r->index = idx;
	r->count = 1;
	r->flags = flags;
	r->unknown = unknown;
	r->mapcount = mapcount;
	r->line = 0;
	return 0;
}

static int vma_pages(struct pm_ctx *c, struct pmaps_vma *v)
{
	uint64_t first = v->start / c->psize;
	uint64_t npages = (v->end - v->start) / c->psize;
	/* file pages are counted from the mapping's file offset */
	uint64_t base = v->inode ? v->offset / c->psize : first;
	size_t cap = 0;
	uint64_t done;
	char path[64];

	for (done = 0; done < npages;) {
		size_t n = npages - done < PM_BATCH ?
			   (size_t)(npages - done) : PM_BATCH;
		ssize_t got;
		size_t i, lo, hi;

		got = pread_full(c->pm_fd, c->pm, n * 8,
				 (off_t)((first + done) * 8));
		if (got < 0) {
			snprintf(path, sizeof(path), "/proc/%d/pagemap",
				 c->pid);
			return fail_errno(c, "read", path, errno);
		}
		/* short read: the rest is not mapped (yet) */
		memset((char *)c->pm + got, 0, n * 8 - (size_t)got);
		/* page flags read for an earlier batch may be stale by now */
		c->win_len = 0;

		/* the entries [lo, hi) of the batch that list a page */
		lo = n;
		hi = 0;
		for (i = 0; i < n; i++) {
			uint64_t e = c->pm[i], pfn, kpf;
			int raced;

			c->page_kind[i] = PM_PAGE_NONE;
			if (!(e & PM_PRESENT))
				continue;
			pfn = e & PM_PFN_MASK;
			if (!pfn) {
				c->zero_pfns++;
				continue;
			}
			c->pfns++;
			if (pfn < c->win_start ||
			    pfn - c->win_start >= c->win_len) {
				if (fill_window(c, i, n))
					return -1;
			}
			kpf = c->kpf[pfn - c->win_start];
			if (kpf & KPF_NOT_LISTED)
				continue;
			c->page_kpc[i] = c->kpc[pfn - c->win_start];
			raced = 0;
			if (kpf & (1ULL << KPF_COMPOUND_TAIL)) {
				raced = head_flags(c, pfn, &kpf);
				if (raced < 0)
					return -1;
			}
			c->page_kpf[i] = kpf;
			c->page_kind[i] = raced ? PM_PAGE_RACED : PM_PAGE_KNOWN;
			if (i < lo)
				lo = i;
			hi = i + 1;
		}
		/*
		 * A page whose entry changed since the flags were read (moved,
		 * unmapped, replaced) has them from another page: '?' for it.
		 * Only the span that lists pages is read again, so the holes
		 * of a sparse mapping are not read twice.
		 */
		if (lo < hi) {
			size_t span = (hi - lo) * 8;

			got = pread_full(c->pm_fd, c->pm_again + lo, span,
					 (off_t)((first + done + lo) * 8));
			if (got < 0)
				got = 0;
			memset((char *)(c->pm_again + lo) + got, 0,
			       span - (size_t)got);
		}
		for (i = lo; i < hi; i++) {
			unsigned int unknown = PMAPS_PAGEMAP_UNKNOWN;
			unsigned int flags;
			long mapcount;

			if (c->page_kind[i] == PM_PAGE_NONE)
				continue;
			flags = kpf_to_flags(c->page_kpf[i]);
			mapcount = (long)c->page_kpc[i];
			if (c->page_kind[i] == PM_PAGE_RACED ||
			    entry_pfn(c->pm_again[i]) != entry_pfn(c->pm[i])) {
				flags = 0;
				unknown |= PM_FOLIO_LETTERS;
				mapcount = PMAPS_MAPCOUNT_UNKNOWN;
			}
			if (add_page(v, &cap, base + done + i, flags, unknown,
				     mapcount))
				return fail(c, "out of memory");
		}
		done += n;
	}
	return 0;
}

static int open_ro(struct pm_ctx *c, const char *path, int *fd)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return fail_errno(c, "open", path, errno);
	return 0;
}

int pmaps_from_pagemap(int pid, struct pmaps_map *out, char *err,
		       size_t errlen)
{
	struct pm_ctx c = {
		.pid = pid, .pm_fd = -1, .kpf_fd = -1, .kpc_fd = -1,
		.err = err, .errlen = errlen,
	};
	struct smaps_scan s = { 0 };
	char path[64];
	int ret = -1;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = '\0';
	c.psize = pmaps_page_size();

	/* the page flag files first: they are the ones that need root */
	if (open_ro(&c, "/proc/kpageflags", &c.kpf_fd) ||
	    open_ro(&c, "/proc/kpagecount", &c.kpc_fd))
		goto out;
	if (smaps_vmas(&c, &s, out))
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	if (open_ro(&c, path, &c.pm_fd))
		goto out;

	c.pm = malloc(PM_BATCH * sizeof(*c.pm));
	c.pm_again = malloc(PM_BATCH * sizeof(*c.pm_again));
	c.page_kpf = malloc(PM_BATCH * sizeof(*c.page_kpf));
	c.page_kpc = malloc(PM_BATCH * sizeof(*c.page_kpc));
	c.page_kind = malloc(PM_BATCH * sizeof(*c.page_kind));
	c.kpf = malloc(KPF_WINDOW * sizeof(*c.kpf));
	c.kpc = malloc(KPF_WINDOW * sizeof(*c.kpc));
	if (!c.pm || !c.pm_again || !c.page_kpf || !c.page_kpc ||
	    !c.page_kind || !c.kpf || !c.kpc) {
		fail(&c, "out of memory");
		goto out;
	}
	for (i = 0; i < out->nr_vmas; i++) {
		out->vmas[i].swapped = (long long)(s.vma[i].swap_kb * 1024 /
						   c.psize);
		/* nothing resident, not even hugetlb: spare its pagemap */
		if (!s.vma[i].no_pages &&
		    (s.vma[i].rss_kb || s.vma[i].hugetlb_kb) &&
		    vma_pages(&c, &out->vmas[i]))
			goto out;
	}
	/* without CAP_SYS_ADMIN pagemap hides every PFN as 0 */
	if (c.zero_pfns && !c.pfns) {
		fail(&c, "%s: present pages read with PFN 0: root needed (CAP_SYS_ADMIN)",
		     path);
		goto out;
	}
	ret = 0;
out:
	if (ret) {
		pmaps_map_free(out);
		memset(out, 0, sizeof(*out));
	}
	free(c.pm);
	free(c.pm_again);
	free(c.page_kpf);
	free(c.page_kpc);
	free(c.page_kind);
	free(c.kpf);
	free(c.kpc);
	free(s.hdr);
	free(s.vma);
	if (c.pm_fd >= 0)
		close(c.pm_fd);
	if (c.kpf_fd >= 0)
		close(c.kpf_fd);
	if (c.kpc_fd >= 0)
		close(c.kpc_fd);
	return ret;
}

int pmaps_pagemap_open(struct pmaps_pagemap *pm, int pid, char *err,
		       size_t errlen)
{
	struct pm_ctx c = { .pid = pid, .err = err, .errlen = errlen };
	char path[64];

	pm->pid = pid;
	pm->kpf_fd = -1;
	pm->kpc_fd = -1;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	if (open_ro(&c, path, &pm->pm_fd))
		return -1;
	/* root only; the caller shows pages without them */
	pm->kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	pm->kpc_fd = open("/proc/kpagecount", O_RDONLY | O_CLOEXEC);
	return 0;
}

void pmaps_pagemap_close(struct pmaps_pagemap *pm)
{
	if (pm->pm_fd >= 0)
		close(pm->pm_fd);
	if (pm->kpf_fd >= 0)
		close(pm->kpf_fd);
	if (pm->kpc_fd >= 0)
		close(pm->kpc_fd);
	pm->pm_fd = -1;
	pm->kpf_fd = -1;
	pm->kpc_fd = -1;
}

int pmaps_pagemap_read(const struct pmaps_pagemap *pm,
		       unsigned long long addr, uint64_t *ent, size_t n,
		       char *err, size_t errlen)
{
	struct pm_ctx c = { .pid = pm->pid, .err = err, .errlen = errlen };
	unsigned long long vpn = addr / pmaps_page_size();
	char path[64];
	ssize_t got;

	if (n > SIZE_MAX / 8)
		return fail(&c, "pagemap: %zu entries is too many", n);
	/* vpn < 2^52 on any 64-bit address space, so the offset fits */
	got = pread_full(pm->pm_fd, ent, n * 8, (off_t)(vpn * 8));
	if (got < 0) {
		snprintf(path, sizeof(path), "/proc/%d/pagemap", pm->pid);
		return fail_errno(&c, "read", path, errno);
	}
	memset((char *)ent + got, 0, n * 8 - (size_t)got);
	return 0;
}

int pmaps_kpage_read(const struct pmaps_pagemap *pm, uint64_t pfn,
		     uint64_t *kpf, uint64_t *count)
{
	if (pm->kpf_fd < 0 || pm->kpc_fd < 0 || pfn > PM_PFN_MASK)
		return -1;
	if (pread_full(pm->kpf_fd, kpf, 8, (off_t)(pfn * 8)) != 8 ||
	    pread_full(pm->kpc_fd, count, 8, (off_t)(pfn * 8)) != 8)
		return -1;
	return 0;
}

const char *pmaps_kpf_name(unsigned int bit)
{
	/*
	 * include/uapi/linux/kernel-page-flags.h, then include/linux/'s as
	 * of 6.12 (6.1 calls bit 34 mappedtodisk; 39 is gone in 6.12).
	 */
	static const char *const names[] = {
		[0] = "locked",		[1] = "error",
		[2] = "referenced",	[3] = "uptodate",
		[4] = "dirty",		[5] = "lru",
		[6] = "active",		[7] = "slab",
		[8] = "writeback",	[9] = "reclaim",
		[10] = "buddy",		[11] = "mmap",
		[12] = "anon",		[13] = "swapcache",
		[14] = "swapbacked",	[15] = "compound_head",
		[16] = "compound_tail",	[17] = "huge",
		[18] = "unevictable",	[19] = "hwpoison",
		[20] = "nopage",	[21] = "ksm",
		[22] = "thp",		[23] = "offline",
		[24] = "zero_page",	[25] = "idle",
		[26] = "pgtable",
		[32] = "reserved",	[33] = "mlocked",
		[34] = "owner_2",	[35] = "private",
		[36] = "private_2",	[37] = "owner_private",
		[38] = "arch",		[39] = "uncached",
		[40] = "softdirty",
		[41] = "arch_2",	[42] = "arch_3",
	};

	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : NULL;
}
