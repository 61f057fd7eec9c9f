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
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pagemap.h"
#include "procfs_ioctl.h"

/* include/uapi/linux/kernel-page-flags.h, spelled out to need libc only */
#define KPF_REFERENCED	2
#define KPF_UPTODATE	3
#define KPF_DIRTY	4
#define KPF_LRU		5
#define KPF_ACTIVE	6
#define KPF_WRITEBACK	8
#define KPF_ANON	12
#define KPF_SWAPCACHE	13
#define KPF_SWAPBACKED	14
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_NOPAGE	20
#define KPF_KSM		21
#define KPF_ZERO_PAGE	24

#define KPF_NOT_LISTED	((1ULL << KPF_NOPAGE) | (1ULL << KPF_ZERO_PAGE))

/* pagemap entries per pread (512 KiB buffer) */
#define PM_BATCH	65536
/* kpageflags/kpagecount entries per pread at most */
#define KPF_WINDOW	4096
/*
 * A PFN at most this far beyond either end of a window joins it: an entry
 * costs about 100 ns to read, a pread about 170 ns more, so one unneeded
 * entry in between is cheaper than another pread, and more are not.
 */
#define KPF_GAP		2
/* pagemap entries between two spans that one pread reads across */
#define SPAN_GAP	64

#define SMAPS_CHUNK	16384

/*
 * Most of the time goes into the kernel, reading kpageflags and pagemap
 * page by page, so several readers, each with its own spans, finish
 * sooner on several CPUs.  Each gets this many pages at least: starting a
 * thread costs about what reading a few hundred pages does.
 */
#define READER_MIN_PAGES	16384
#define READERS_MAX		4

/*
 * What the first pass over a batch found for each entry: not listed, a
 * page with its flags and count, or a page whose state changed between the
 * reads (its folio split, freed or reused), shown with '?'.
 */
enum pm_page {
	PM_PAGE_NONE,
	PM_PAGE_KNOWN,
	PM_PAGE_RACED,
	PM_PAGE_BLIND,		/* present, PFN hidden: pagemap alone */
};

/* The letters of folio state, unknown for a page that raced. */
#define PM_FOLIO_LETTERS ((1u << PMAPS_REFERENCED) | (1u << PMAPS_ACTIVE) | \
			  (1u << PMAPS_UPTODATE) | (1u << PMAPS_DIRTY) | \
			  (1u << PMAPS_WRITEBACK))
#define PM_ALL_LETTERS	((1u << PMAPS_NR_FLAGS) - 1)

/* The pages [vpn, vpn + n) whose pagemap entries one pread reads. */
struct span {
	uint64_t vpn;
	size_t n;
};

struct pm_ctx {
	int pid;
	unsigned long psize;
	int pm_fd, kpf_fd, kpc_fd;
	bool mglru;			/* A unknown for folios on an LRU list */
	uint64_t *pm;			/* PM_BATCH pagemap entries */
	uint64_t *pm_again;		/* the same, read after kpageflags */
	uint64_t *page_kpf, *page_kpc;	/* per entry of the batch */
	unsigned char *page_kind;	/* enum pm_page, per entry */
	uint64_t *kpf, *kpc;		/* KPF_WINDOW entries from win_start */
	uint64_t win_start;
	size_t win_len;
	int win_counts;			/* kpc holds the window's counts */
	/* the compound head of the last tail page seen, and its flags */
	uint64_t head_kpf;
	uint64_t tail_next;		/* PFN after that tail page, or 0 */
	unsigned long long zero_pfns;	/* present, but PFN hidden */
	struct page_region *regs;	/* PAGEMAP_SCAN's, in order */
	size_t nr_regs, regs_cap;
	int scanned;			/* only pages in regs are listed */
	int scan_pte_bits;		/* regs say PAGE_IS_YOUNG, _PTE_DIRTY */
	size_t reg_at;			/* region of the last page looked at */
	size_t pte_bits_at;		/* region of the last page placed */
	struct span *spans;		/* what to read, in order */
	size_t nr_spans, spans_cap;
	struct pmaps_map *out;		/* the model being built */
	size_t *range_cap;		/* room in each VMA's ranges */
	/* per VMA: a page listed there is not known to be a small folio */
	unsigned char *not_small;
	size_t vma_at;			/* VMA of the last page placed */
	char *err;
	size_t errlen;
};

/* What maps or smaps says about each VMA, in order. */
struct smaps_scan {
	char *hdr;			/* header lines, '\n' terminated */
	size_t hdr_len, hdr_cap;
	struct pmaps_smaps_vma *vma;	/* per VMA */
	size_t nr, cap;
	struct vma_line {		/* per VMA: its end, where its line is */
		unsigned long long end;
		size_t hdr_off;
	} *line;
	size_t line_cap;
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

const char *pmaps_denied_hint(const char *path)
{
	/*
	 * Root refused: "run as root" is no help, the refusal came from a
	 * security module (Yama, SELinux, AppArmor) or a user namespace.
	 */
	if (!geteuid())
		return " (root was denied too: a Yama/LSM policy or a user namespace?)";
	return strncmp(path, "/proc/kpage", 11) ?
	       " (needs root, or ptrace access to the process)" :
	       " (needs root)";
}

static int fail_errno(struct pm_ctx *c, const char *what, const char *path,
		      int e)
{
	const char *hint = "";

	if (e == EACCES || e == EPERM)
		hint = pmaps_denied_hint(path);
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

/* START and END of a line is_header() accepted. */
static void header_bounds(const char *s, unsigned long long *start,
			  unsigned long long *end)
{
	unsigned long long *v = start;

	*start = 0;
	*end = 0;
	for (; *s != ' '; s++) {
		if (*s == '-')
			v = end;
		else
			*v = *v << 4 | (unsigned long long)(*s <= '9' ? *s - '0' :
							    *s - 'a' + 10);
	}
}

static int smaps_line(struct smaps_scan *s, const char *line, size_t len)
{
	struct pmaps_smaps_vma *v;
	unsigned long long start, end;

	if (is_header(line, len)) {
		s->dropped = names_vsyscall(line, len);
		if (s->dropped)
			return 0;
		/*
		 * The file comes a page per read(), the mmap lock dropped in
		 * between: a VMA that changed meanwhile comes again, over
		 * lines already read.  The later line is the newer state;
		 * the VMAs it overlaps are gone.
		 */
		header_bounds(line, &start, &end);
		while (s->nr && s->line[s->nr - 1].end > start)
			s->hdr_len = s->line[--s->nr].hdr_off;
		if (pmaps_grow_array((void **)&s->hdr, &s->hdr_cap,
				     s->hdr_len + len + 1, 1) ||
		    pmaps_grow_array((void **)&s->vma, &s->cap, s->nr + 1,
				     sizeof(*s->vma)) ||
		    pmaps_grow_array((void **)&s->line, &s->line_cap,
				     s->nr + 1, sizeof(*s->line)))
			return -1;
		s->line[s->nr].end = end;
		s->line[s->nr].hdr_off = s->hdr_len;
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
	else if (has_prefix(line, len, "KernelPageSize:"))
		v->kernel_page_kb = smaps_number(line, len, 15);
	else if (has_prefix(line, len, "VmFlags:"))
		v->no_pages = special_vmflags(line + 8, len - 8);
	return 0;
}

/* Read /proc/PID/file (maps or smaps) into s. */
static int read_vma_file(struct pm_ctx *c, const char *file,
			 struct smaps_scan *s)
{
	char path[64];
	size_t cap = SMAPS_CHUNK, have = 0;
	char *buf;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/%s", c->pid, file);
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

/*
 * Read /proc/PID/file (maps or smaps) into s and its VMA lines into out
 * (which then needs freeing).
 */
static int list_vmas(struct pm_ctx *c, const char *file,
		     struct smaps_scan *s, struct pmaps_map *out)
{
	char name[64];
	size_t i;

	if (read_vma_file(c, file, s))
		return -1;
	snprintf(name, sizeof(name), "/proc/%d/%s headers", c->pid, file);
	if (pmaps_parse_buf_as(s->hdr ? s->hdr : "", s->hdr_len, name,
			       pmaps_page_size(), out, c->err, c->errlen))
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
	if (list_vmas(&c, "smaps", &s, vmas)) {
		pmaps_map_free(vmas);
		free(s.hdr);
		free(s.vma);
		free(s.line);
		return -1;
	}
	free(s.hdr);
	free(s.line);
	*stats = s.vma;
	return 0;
}

/*
 * Read kpageflags for the PFN of pagemap entry i and for the PFNs of the
 * following present pages, as long as each lies next to the PFNs before
 * it, above or below: the page allocator hands out runs that ascend and
 * runs that descend, and physically contiguous memory costs one pread
 * either way.  Their kpagecount is read when a page needs it
 * (window_counts()).
 */
static int fill_window(struct pm_ctx *c, size_t i, size_t n)
{
	uint64_t lo = pmaps_pm_pfn(c->pm[i]), hi = lo;
	size_t len, k;
	ssize_t got;
	size_t j;

	for (j = i + 1; j < n; j++) {
		uint64_t p = pmaps_pm_pfn(c->pm[j]);

		if (!p)
			continue;
		if (p < lo) {
			if (lo - p > KPF_GAP || hi - p >= KPF_WINDOW)
				break;
			lo = p;
		} else if (p > hi) {
			if (p - hi > KPF_GAP || p - lo >= KPF_WINDOW)
				break;
			hi = p;
		}
	}
	len = (size_t)(hi - lo + 1);

	got = pread_full(c->kpf_fd, c->kpf, len * 8, (off_t)(lo * 8));
	if (got < 0)
		return fail_errno(c, "read", "/proc/kpageflags", errno);
	/* past the end of the memory map: no struct page */
	for (k = (size_t)got / 8; k < len; k++)
		c->kpf[k] = 1ULL << KPF_NOPAGE;

	c->win_start = lo;
	c->win_len = len;
	c->win_counts = 0;
	return 0;
}

/* kpagecount for the PFNs of the window, once. */
static int window_counts(struct pm_ctx *c)
{
	ssize_t got;
	size_t k;

	if (c->win_counts)
		return 0;
	got = pread_full(c->kpc_fd, c->kpc, c->win_len * 8,
			 (off_t)(c->win_start * 8));
	if (got < 0)
		return fail_errno(c, "read", "/proc/kpagecount", errno);
	for (k = (size_t)got / 8; k < c->win_len; k++)
		c->kpc[k] = 0;
	c->win_counts = 1;
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

/*
 * Whether the multi-gen LRU is on (bit 0 of its mask,
 * Documentation/admin-guide/mm/multigen_lru.rst).  A folio on its lists
 * keeps a generation and no PG_active, and the kernel counts it active
 * while that generation is one of the two youngest (lru_gen_is_active());
 * kpageflags shows no generation, so A is unknown for a folio on an LRU
 * list there.  Off the lists (KPF_LRU clear: in a per-CPU batch, or
 * isolated) PG_active says what it says on the classic LRU.
 */
static bool lru_gen_on(void)
{
	FILE *f = fopen("/sys/kernel/mm/lru_gen/enabled", "re");
	unsigned int mask = 0;
	bool on;

	if (!f)
		return false;
	on = fscanf(f, "%x", &mask) == 1 && (mask & 1);
	fclose(f);
	return on;
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

/*
 * Whether the pte of a present page with folio flags kpf, in a VMA with
 * perms, is certainly dirty, though pagemap cannot show it.  Every way
 * the kernel maps a new anonymous page into a writable private VMA makes
 * the entry dirty: do_anonymous_page() (pte_mkwrite(pte_mkdirty()) under
 * VM_WRITE), wp_page_copy() and do_cow_fault()/set_pte_range() for the
 * write fault that makes the copy, __do_huge_pmd_anonymous_page() and
 * collapse_huge_page() for a THP, and nothing that keeps the page mapped
 * cleans it again: copy_present_pte() cleans only VM_SHARED entries on
 * fork, mprotect and clear_refs keep the bit.  The exceptions are told by
 * the folio: a swap-cache page may have been read in without a write
 * (do_swap_page() makes it dirty only on a write fault); MADV_FREE
 * (madvise_free_pte_range()) cleans pte and folio and lru_lazyfree()
 * then clears PG_swapbacked; KSM's write_protect_page() cleans the pte
 * and marks the folio dirty, as folio_free_swap() marks a page swapped
 * in by a read fault: with PG_dirty set the page is dirty anyway and P is
 * left unknown.  The zero pages are never listed.  Not told by the folio,
 * and so shown P though clean: a copy wp_page_copy() makes for an
 * unsharing fault (a read-only pin of a page shared since fork), a page
 * written by ptrace into a read-only mapping later made writable, and a
 * page between MADV_FREE and its lazy-free batch's drain.
 */
static int pte_dirty_certain(uint64_t kpf, const char *perms)
{
	const uint64_t need = (1ULL << KPF_ANON) | (1ULL << KPF_SWAPBACKED);
	const uint64_t not = (1ULL << KPF_SWAPCACHE) | (1ULL << KPF_KSM) |
			     (1ULL << KPF_DIRTY);

	return perms[1] == 'w' && perms[3] == 'p' &&
	       (kpf & (need | not)) == need;
}

/* Append n pages from index idx, extending the last range when it can. */
static int add_pages(struct pmaps_vma *v, size_t *cap, unsigned long long idx,
		     unsigned long long n, unsigned int flags,
		     unsigned int unknown, long mapcount)
{
	struct pmaps_range *r;

	if (v->nr_ranges) {
		r = &v->ranges[v->nr_ranges - 1];
		if (r->index + r->count == idx && r->flags == flags &&
		    r->unknown == unknown && r->mapcount == mapcount) {
			r->count += n;
			return 0;
		}
	}
	if (pmaps_grow_array((void **)&v->ranges, cap, v->nr_ranges + 1,
			     sizeof(*r)))
		return -1;
	r = &v->ranges[v->nr_ranges++];
	r->index = idx;
	r->count = n;
	r->flags = flags;
	r->unknown = unknown;
	r->mapcount = mapcount;
	r->node = PMAPS_NODE_UNKNOWN;
	r->kb = PMAPS_KB_UNKNOWN;
	r->age = PMAPS_AGE_UNKNOWN;
	r->line = 0;
	return 0;
}

/*
 * Add the pages [vpn, vpn + n) to the spans to read.  A span joins the
 * last one across a gap of up to SPAN_GAP pages (holes and VMA boundaries
 * read as a few unneeded entries), so that many small VMAs cost a few
 * preads, not one each.
 */
static int add_span(struct pm_ctx *c, uint64_t vpn, uint64_t n)
{
	while (n) {
		struct span *last = c->nr_spans ?
				    &c->spans[c->nr_spans - 1] : NULL;
		uint64_t take;

		if (last && vpn >= last->vpn + last->n &&
		    vpn - (last->vpn + last->n) <= SPAN_GAP &&
		    vpn - last->vpn < PM_BATCH) {
			take = PM_BATCH - (vpn - last->vpn);
			if (take > n)
				take = n;
			last->n = (size_t)(vpn + take - last->vpn);
		} else {
			if (pmaps_grow_array((void **)&c->spans, &c->spans_cap,
					     c->nr_spans + 1, sizeof(*c->spans)))
				return fail(c, "out of memory");
			take = n < PM_BATCH ? n : PM_BATCH;
			c->spans[c->nr_spans].vpn = vpn;
			c->spans[c->nr_spans].n = (size_t)take;
			c->nr_spans++;
		}
		vpn += take;
		n -= take;
	}
	return 0;
}

/* Keep region r, each page once, joined to the last where it can be. */
static int add_region(void *ctx, const struct page_region *r)
{
	struct pm_ctx *c = ctx;
	struct page_region *prev;
	uint64_t start = r->start;

	prev = c->nr_regs ? &c->regs[c->nr_regs - 1] : NULL;
	if (prev && start < prev->end)
		start = prev->end;
	if (start >= r->end)
		return 0;
	if (prev && prev->end == start && prev->categories == r->categories) {
		prev->end = r->end;
		return 0;
	}
	if (pmaps_grow_array((void **)&c->regs, &c->regs_cap, c->nr_regs + 1,
			     sizeof(*c->regs))) {
		errno = ENOMEM;
		return -1;
	}
	c->regs[c->nr_regs].start = start;
	c->regs[c->nr_regs].end = r->end;
	c->regs[c->nr_regs].categories = r->categories;
	c->nr_regs++;
	return 0;
}

/*
 * PAGEMAP_SCAN (v6.7): the regions of [start, end) whose pages are present
 * or swapped, in address order, into c->regs, so that holes cost nothing.
 * Where the kernel has PAGE_IS_YOUNG and PAGE_IS_PTE_DIRTY (it fails with
 * EINVAL otherwise, and the scan is made again without them), the regions
 * also say which pages' entries are young and dirty: Y and P.
 * Return 1 when this kernel has no such ioctl, 0 done, -1 error.
 */
static int scan_regions(struct pm_ctx *c, uint64_t start, uint64_t end)
{
	const uint64_t pte_bits = PAGE_IS_YOUNG | PAGE_IS_PTE_DIRTY;
	struct pm_scan_arg arg = {
		.start = start,
		.end = end,
		.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
		.return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED |
			       PAGE_IS_PFNZERO | pte_bits,
	};
	char path[64];
	int ret = pmaps_pagemap_scan(c->pm_fd, &arg, add_region, c);

	c->scan_pte_bits = !ret;
	if (ret == 1 && errno == EINVAL) {
		arg.start = start;
		arg.return_mask &= ~pte_bits;
		ret = pmaps_pagemap_scan(c->pm_fd, &arg, add_region, c);
	}
	if (ret < 0) {
		snprintf(path, sizeof(path), "/proc/%d/pagemap", c->pid);
		return fail_errno(c, "PAGEMAP_SCAN on", path, errno);
	}
	return ret;
}

/*
 * Spans from the scanned regions: the present pages, except those of the
 * shared zero page, which is never listed.  Swapped pages are counted for
 * their VMA.
 */
static int spans_from_regions(struct pm_ctx *c, struct pmaps_map *out)
{
	size_t r, vi = 0;

	for (r = 0; r < c->nr_regs; r++) {
		const struct page_region *g = &c->regs[r];
		uint64_t a = g->start;

		if (g->categories & PAGE_IS_PFNZERO)
			continue;
		if (g->categories & PAGE_IS_PRESENT) {
			if (add_span(c, g->start / c->psize,
				     (g->end - g->start) / c->psize))
				return -1;
			continue;
		}
		while (a < g->end) {
			struct pmaps_vma *v;
			uint64_t lo, hi;

			while (vi < out->nr_vmas && out->vmas[vi].end <= a)
				vi++;
			if (vi == out->nr_vmas || out->vmas[vi].start >= g->end)
				break;
			v = &out->vmas[vi];
			lo = a > v->start ? a : v->start;
			hi = g->end < v->end ? g->end : v->end;
			v->swapped += (long long)((hi - lo) / c->psize);
			a = hi;
		}
	}
	return 0;
}

/* What pagemap entry i of the batch lists: see enum pm_page. */
static int classify(struct pm_ctx *c, size_t i, size_t n)
{
	uint64_t e = c->pm[i], pfn, kpf;
	int raced;

	if (!(e & PMAPS_PM_PRESENT))
		return PM_PAGE_NONE;
	pfn = e & PMAPS_PM_PFN_MASK;
	if (!pfn)
		c->zero_pfns++;
	if (!pfn || c->kpf_fd < 0)
		return PM_PAGE_BLIND;
	if (pfn < c->win_start || pfn - c->win_start >= c->win_len) {
		if (fill_window(c, i, n))
			return -1;
	}
	kpf = c->kpf[pfn - c->win_start];
	if (kpf & KPF_NOT_LISTED)
		return PM_PAGE_NONE;
	/*
	 * No flag at all, not even KPF_MMAP of a mapped page: kpageflags
	 * has no online struct page for the pfn (6.18 reads 0 there), as
	 * for fsdax and device-DAX memory, which 7.x maps as ordinary
	 * folios and the kernel sides list.  What pagemap alone says.
	 */
	if (!kpf)
		return PM_PAGE_BLIND;
	/*
	 * A small folio that pagemap reports mapped exclusively has mapcount
	 * 1, whether the kernel keeps per-page mapcounts or not: its
	 * kpagecount need not be read, which halves the cost of private
	 * memory.  Large folios have theirs read.
	 */
	if ((e & PMAPS_PM_EXCLUSIVE) &&
	    !(kpf & ((1ULL << KPF_COMPOUND_HEAD) |
		     (1ULL << KPF_COMPOUND_TAIL)))) {
		c->page_kpc[i] = 1;
	} else {
		if (window_counts(c))
			return -1;
		c->page_kpc[i] = c->kpc[pfn - c->win_start];
	}
	raced = 0;
	if (kpf & (1ULL << KPF_COMPOUND_TAIL)) {
		raced = head_flags(c, pfn, &kpf);
		if (raced < 0)
			return -1;
	}
	c->page_kpf[i] = kpf;
	return raced ? PM_PAGE_RACED : PM_PAGE_KNOWN;
}

/*
 * Whether PAGEMAP_SCAN found the page at addr present, and not the zero
 * page.  Spans read across the gaps between regions; what the gaps hold
 * is not listed.  Addresses come in ascending order.
 */
static int scanned_present(struct pm_ctx *c, uint64_t addr)
{
	const struct page_region *g;

	while (c->reg_at < c->nr_regs && c->regs[c->reg_at].end <= addr)
		c->reg_at++;
	if (c->reg_at == c->nr_regs)
		return 0;
	g = &c->regs[c->reg_at];
	return g->start <= addr &&
	       (g->categories & (PAGE_IS_PRESENT | PAGE_IS_PFNZERO)) ==
	       PAGE_IS_PRESENT;
}

/*
 * Y and P of the page at addr from PAGEMAP_SCAN's PAGE_IS_YOUNG and
 * PAGE_IS_PTE_DIRTY, as letters; 0 if no region holds it.  Addresses come
 * in ascending order.
 */
static unsigned int scanned_pte_bits(struct pm_ctx *c, uint64_t addr)
{
	const struct page_region *g;
	unsigned int flags = 0;

	while (c->pte_bits_at < c->nr_regs &&
	       c->regs[c->pte_bits_at].end <= addr)
		c->pte_bits_at++;
	if (c->pte_bits_at == c->nr_regs)
		return 0;
	g = &c->regs[c->pte_bits_at];
	if (g->start > addr)
		return 0;
	if (g->categories & PAGE_IS_YOUNG)
		flags |= 1u << PMAPS_YOUNG;
	if (g->categories & PAGE_IS_PTE_DIRTY)
		flags |= 1u << PMAPS_PTE_DIRTY;
	return flags;
}

/* The VMA holding addr; addresses come in ascending order. */
static struct pmaps_vma *vma_of(struct pm_ctx *c, uint64_t addr)
{
	struct pmaps_map *out = c->out;

	while (c->vma_at < out->nr_vmas && out->vmas[c->vma_at].end <= addr)
		c->vma_at++;
	if (c->vma_at == out->nr_vmas || out->vmas[c->vma_at].start > addr)
		return NULL;
	return &out->vmas[c->vma_at];
}

/* Add page vpn, with what entry i of the batch says of it, to its VMA. */
static int place_page(struct pm_ctx *c, uint64_t vpn, size_t i)
{
	struct pmaps_vma *v = vma_of(c, vpn * c->psize);
	unsigned int unknown = PMAPS_PAGEMAP_UNKNOWN, flags = 0;
	unsigned long long idx;
	long mapcount;

	if (!v)
		return 0;
	/* file pages are counted from the mapping's file offset */
	idx = v->inode ? v->offset / c->psize + vpn - v->start / c->psize :
	      vpn;
	if (c->page_kind[i] != PM_PAGE_KNOWN ||
	    pmaps_pm_pfn(c->pm_again[i]) != pmaps_pm_pfn(c->pm[i]) ||
	    (c->page_kpf[i] & ((1ULL << KPF_COMPOUND_HEAD) |
			       (1ULL << KPF_COMPOUND_TAIL))))
		c->not_small[v - c->out->vmas] = 1;
	if (c->page_kind[i] == PM_PAGE_BLIND) {
		/* pagemap alone: whether the page is mapped only here */
		unknown = PM_ALL_LETTERS;
		mapcount = c->pm[i] & PMAPS_PM_EXCLUSIVE ? 1 :
			   PMAPS_MAPCOUNT_UNKNOWN;
	} else if (c->page_kind[i] == PM_PAGE_KNOWN &&
		   pmaps_pm_pfn(c->pm_again[i]) == pmaps_pm_pfn(c->pm[i])) {
		flags = kpf_to_flags(c->page_kpf[i]);
		if (c->mglru && (c->page_kpf[i] & (1ULL << KPF_LRU))) {
			flags &= ~(1u << PMAPS_ACTIVE);
			unknown |= 1u << PMAPS_ACTIVE;
		}
		if (pte_dirty_certain(c->page_kpf[i], v->perms)) {
			flags |= 1u << PMAPS_PTE_DIRTY;
			unknown &= ~(1u << PMAPS_PTE_DIRTY);
		}
		mapcount = (long)c->page_kpc[i];
	} else {
		/* split or freed, or moved, unmapped or replaced since */
		unknown |= PM_FOLIO_LETTERS;
		mapcount = PMAPS_MAPCOUNT_UNKNOWN;
	}
	/* this mapping's own entry: known to any reader of pagemap */
	if (c->scan_pte_bits) {
		flags &= ~PMAPS_PAGEMAP_UNKNOWN;
		flags |= scanned_pte_bits(c, vpn * c->psize);
		unknown &= ~PMAPS_PAGEMAP_UNKNOWN;
	}
	if (add_pages(v, &c->range_cap[v - c->out->vmas], idx, 1, flags,
		      unknown, mapcount))
		return fail(c, "out of memory");
	return 0;
}

static int read_span(struct pm_ctx *c, const struct span *sp)
{
	size_t n = sp->n, i, lo = n, hi = 0, known_lo = n, known_hi = 0;
	char path[64];
	ssize_t got;

	got = pread_full(c->pm_fd, c->pm, n * 8, (off_t)(sp->vpn * 8));
	if (got < 0) {
		snprintf(path, sizeof(path), "/proc/%d/pagemap", c->pid);
		return fail_errno(c, "read", path, errno);
	}
	/* short read: the rest is not mapped (any more) */
	memset((char *)c->pm + got, 0, n * 8 - (size_t)got);
	/* page flags read for an earlier span may be stale by now */
	c->win_len = 0;

	for (i = 0; i < n; i++) {
		int kind = PM_PAGE_NONE;

		if (!c->scanned || scanned_present(c, (sp->vpn + i) * c->psize))
			kind = classify(c, i, n);
		if (kind < 0)
			return -1;
		c->page_kind[i] = (unsigned char)kind;
		if (kind == PM_PAGE_NONE)
			continue;
		if (i < lo)
			lo = i;
		hi = i + 1;
		if (kind == PM_PAGE_BLIND)
			continue;
		if (i < known_lo)
			known_lo = i;
		known_hi = i + 1;
	}
	/*
	 * A page whose entry changed since its flags were read (moved,
	 * unmapped, replaced) has them from another page: '?' for it.  Only
	 * the part that has such pages is read again.
	 */
	if (known_lo < known_hi) {
		size_t len = (known_hi - known_lo) * 8;

		got = pread_full(c->pm_fd, c->pm_again + known_lo, len,
				 (off_t)((sp->vpn + known_lo) * 8));
		if (got < 0)
			got = 0;
		memset((char *)(c->pm_again + known_lo) + got, 0,
		       len - (size_t)got);
	}
	for (i = lo; i < hi; i++) {
		if (c->page_kind[i] != PM_PAGE_NONE &&
		    place_page(c, sp->vpn + i, i))
			return -1;
	}
	return 0;
}

/* The buffers one reader reads its spans with. */
static int alloc_buffers(struct pm_ctx *c)
{
	c->range_cap = calloc(c->out->nr_vmas ? c->out->nr_vmas : 1,
			      sizeof(*c->range_cap));
	c->not_small = calloc(c->out->nr_vmas ? c->out->nr_vmas : 1,
			      sizeof(*c->not_small));
	c->pm = malloc(PM_BATCH * sizeof(*c->pm));
	c->pm_again = malloc(PM_BATCH * sizeof(*c->pm_again));
	c->page_kpf = malloc(PM_BATCH * sizeof(*c->page_kpf));
	c->page_kpc = malloc(PM_BATCH * sizeof(*c->page_kpc));
	c->page_kind = malloc(PM_BATCH * sizeof(*c->page_kind));
	c->kpf = malloc(KPF_WINDOW * sizeof(*c->kpf));
	c->kpc = malloc(KPF_WINDOW * sizeof(*c->kpc));
	if (!c->range_cap || !c->not_small || !c->pm || !c->pm_again || !c->page_kpf ||
	    !c->page_kpc || !c->page_kind || !c->kpf || !c->kpc)
		return fail(c, "out of memory");
	return 0;
}

static void free_buffers(struct pm_ctx *c)
{
	free(c->range_cap);
	free(c->not_small);
	free(c->pm);
	free(c->pm_again);
	free(c->page_kpf);
	free(c->page_kpc);
	free(c->page_kind);
	free(c->kpf);
	free(c->kpc);
}

static int read_spans(struct pm_ctx *c, size_t first, size_t end)
{
	size_t i;

	if (alloc_buffers(c))
		return -1;
	for (i = first; i < end; i++)
		if (read_span(c, &c->spans[i]))
			return -1;
	return 0;
}

/*
 * One of several readers: spans [first, end), placed in a copy of the
 * VMAs of its own, which follows the previous reader's in address order.
 */
struct reader {
	struct pm_ctx c;
	struct pmaps_map part;
	size_t first, end;
	char err[256];
	pthread_t thread;
	int ret;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	r->ret = read_spans(&r->c, r->first, r->end);
	return NULL;
}

static unsigned long long span_pages(const struct pm_ctx *c)
{
	unsigned long long pages = 0;
	size_t i;

	for (i = 0; i < c->nr_spans; i++)
		pages += c->spans[i].n;
	return pages;
}

/* How many readers share the pages: one per CPU, each with enough. */
static size_t nr_readers(const struct pm_ctx *c, unsigned long long pages)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n;

	n = (size_t)(pages / READER_MIN_PAGES);
	if (n > READERS_MAX)
		n = READERS_MAX;
	if (cpus > 0 && n > (size_t)cpus)
		n = (size_t)cpus;
	if (n > c->nr_spans)
		n = c->nr_spans;
	return n ? n : 1;
}

/*
 * Readers 1.. share c's files, regions and spans, read-only; the rest of
 * their state, their VMAs and buffers, is their own.
 */
static int reader_init(struct reader *r, const struct pm_ctx *c)
{
	const struct pmaps_map *out = c->out;
	size_t v;

	r->c = (struct pm_ctx){
		.pid = c->pid, .psize = c->psize, .mglru = c->mglru,
		.pm_fd = c->pm_fd, .kpf_fd = c->kpf_fd, .kpc_fd = c->kpc_fd,
		.regs = c->regs, .nr_regs = c->nr_regs, .scanned = c->scanned,
		.scan_pte_bits = c->scan_pte_bits,
		.spans = c->spans, .nr_spans = c->nr_spans,
		.out = &r->part, .err = r->err, .errlen = sizeof(r->err),
	};
	r->part.nr_vmas = out->nr_vmas;
	r->part.vmas = calloc(out->nr_vmas ? out->nr_vmas : 1,
			      sizeof(*r->part.vmas));
	if (!r->part.vmas)
		return -1;
	for (v = 0; v < out->nr_vmas; v++) {
		r->part.vmas[v].start = out->vmas[v].start;
		r->part.vmas[v].end = out->vmas[v].end;
		r->part.vmas[v].offset = out->vmas[v].offset;
		r->part.vmas[v].inode = out->vmas[v].inode;
		memcpy(r->part.vmas[v].perms, out->vmas[v].perms,
		       sizeof(r->part.vmas[v].perms));
	}
	return 0;
}

/* Reader r's ranges after c's, joined where they meet. */
static int reader_join(struct pm_ctx *c, struct reader *r)
{
	size_t v, k;

	c->zero_pfns += r->c.zero_pfns;
	for (v = 0; v < r->part.nr_vmas; v++) {
		const struct pmaps_vma *pv = &r->part.vmas[v];

		c->not_small[v] |= r->c.not_small[v];

		for (k = 0; k < pv->nr_ranges; k++) {
			const struct pmaps_range *g = &pv->ranges[k];

			if (add_pages(&c->out->vmas[v], &c->range_cap[v],
				      g->index, g->count, g->flags, g->unknown,
				      g->mapcount))
				return fail(c, "out of memory");
		}
	}
	return 0;
}

static void reader_free(struct reader *r)
{
	size_t v;

	free_buffers(&r->c);
	for (v = 0; r->part.vmas && v < r->part.nr_vmas; v++)
		free(r->part.vmas[v].ranges);
	free(r->part.vmas);
}

/*
 * Read the spans, total pages, with n readers, this thread the first, each
 * taking a run of spans with about as many pages as the others.  The other
 * threads block signals: the caller's handlers run on the caller's thread.
 */
static int read_side_by_side(struct pm_ctx *c, size_t n,
			     unsigned long long total)
{
	struct reader r[READERS_MAX];
	unsigned long long done = 0;
	size_t k, s = 0;
	sigset_t all, old;
	int ret, started[READERS_MAX] = { 0 };

	memset(r, 0, sizeof(r));
	for (k = 0; k < n; k++) {
		unsigned long long want = total * (k + 1) / n;

		r[k].first = s;
		while (s < c->nr_spans && (done < want || k == n - 1))
			done += c->spans[s++].n;
		r[k].end = s;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (k = 1; k < n; k++) {
		r[k].ret = -1;
		if (reader_init(&r[k], c))
			continue;
		started[k] = !pthread_create(&r[k].thread, NULL, reader_main,
					     &r[k]);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	ret = read_spans(c, r[0].first, r[0].end);
	for (k = 1; k < n; k++) {
		if (started[k])
			pthread_join(r[k].thread, NULL);
		else if (r[k].part.vmas)
			reader_main(&r[k]);	/* no thread: read it here */
		if (!ret && !r[k].part.vmas)
			ret = fail(c, "out of memory");
		else if (!ret && r[k].ret)
			ret = fail(c, "%s", r[k].err);
		if (!ret)
			ret = reader_join(c, &r[k]);
		reader_free(&r[k]);
	}
	return ret;
}

static int open_ro(struct pm_ctx *c, const char *path, int *fd)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return fail_errno(c, "open", path, errno);
	return 0;
}

/*
 * Without PAGEMAP_SCAN: every page of each VMA that smaps says has
 * resident pages, and the swap counts of smaps.
 */
static int spans_from_smaps(struct pm_ctx *c, struct pmaps_map *out)
{
	struct smaps_scan s = { 0 };
	size_t i;
	int ret = -1;

	if (list_vmas(c, "smaps", &s, out))
		goto done;
	for (i = 0; i < out->nr_vmas; i++) {
		const struct pmaps_vma *v = &out->vmas[i];

		out->vmas[i].swapped = (long long)(s.vma[i].swap_kb * 1024 /
						   c->psize);
		/* nothing resident, not even hugetlb: spare its pagemap */
		if (s.vma[i].no_pages ||
		    (!s.vma[i].rss_kb && !s.vma[i].hugetlb_kb))
			continue;
		if (add_span(c, v->start / c->psize,
			     (v->end - v->start) / c->psize))
			goto done;
	}
	ret = 0;
done:
	free(s.hdr);
	free(s.vma);
	free(s.line);
	return ret;
}

/* The VMAs from maps, and spans of the pages PAGEMAP_SCAN finds. */
static int spans_from_scan(struct pm_ctx *c, struct pmaps_map *out)
{
	struct smaps_scan s = { 0 };
	size_t i;
	int ret;

	ret = list_vmas(c, "maps", &s, out);
	free(s.hdr);
	free(s.vma);
	free(s.line);
	if (ret)
		return -1;
	for (i = 0; i < out->nr_vmas; i++)
		out->vmas[i].swapped = 0;
	if (!out->nr_vmas)
		return 0;
	ret = scan_regions(c, out->vmas[0].start,
			   out->vmas[out->nr_vmas - 1].end);
	if (ret)
		return ret;
	return spans_from_regions(c, out);
}

int pmaps_from_pagemap_how(int pid, unsigned int avoid, struct pmaps_map *out,
			   struct pmaps_pagemap_method *how, char *err,
			   size_t errlen)
{
	struct pm_ctx c = {
		.pid = pid, .pm_fd = -1, .kpf_fd = -1, .kpc_fd = -1,
		.err = err, .errlen = errlen, .out = out,
	};
	struct pmaps_pagemap_method used = { 0 };
	char path[64];
	int ret = -1, scanned = 1;
	unsigned long long pages;
	size_t readers, v;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = '\0';
	c.psize = pmaps_page_size();
	c.mglru = lru_gen_on();

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	if (open_ro(&c, path, &c.pm_fd))
		goto out;
	/* root's: without them, what pagemap alone says */
	if (!(avoid & PMAPS_PM_NO_KPAGEFLAGS)) {
		c.kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
		c.kpc_fd = open("/proc/kpagecount", O_RDONLY | O_CLOEXEC);
		if (c.kpf_fd < 0 || c.kpc_fd < 0) {
			if (c.kpf_fd >= 0)
				close(c.kpf_fd);
			c.kpf_fd = -1;
		}
	}
	if (!(avoid & PMAPS_PM_NO_SCAN))
		scanned = spans_from_scan(&c, out);
	if (scanned < 0)
		goto out;
	c.scanned = !scanned;
	if (scanned) {
		/* no PAGEMAP_SCAN: start again from smaps */
		pmaps_map_free(out);
		memset(out, 0, sizeof(*out));
		c.nr_spans = 0;
		if (spans_from_smaps(&c, out))
			goto out;
	}

	pages = span_pages(&c);
	readers = avoid & PMAPS_PM_ONE_READER ? 1 : nr_readers(&c, pages);
	if (readers > 1 ? read_side_by_side(&c, readers, pages) :
	    read_spans(&c, 0, c.nr_spans))
		goto out;
	used.scan = c.scanned;
	used.readers = (int)readers;
	/* without CAP_SYS_ADMIN pagemap hides every PFN as 0 */
	used.kpageflags = c.kpf_fd >= 0 && !c.zero_pfns;
	for (v = 0; used.kpageflags && v < out->nr_vmas; v++)
		out->vmas[v].small_folios = !c.not_small[v];
	ret = 0;
out:
	if (ret) {
		pmaps_map_free(out);
		memset(out, 0, sizeof(*out));
	}
	if (how)
		*how = used;
	free(c.regs);
	free(c.spans);
	free_buffers(&c);
	if (c.pm_fd >= 0)
		close(c.pm_fd);
	if (c.kpf_fd >= 0)
		close(c.kpf_fd);
	if (c.kpc_fd >= 0)
		close(c.kpc_fd);
	return ret;
}

int pmaps_from_pagemap(int pid, struct pmaps_map *out, char *err,
		       size_t errlen)
{
	return pmaps_from_pagemap_how(pid, 0, out, NULL, err, errlen);
}

const char *pmaps_pagemap_method_name(const struct pmaps_pagemap_method *how)
{
	if (how->kpageflags)
		return how->scan ? "PAGEMAP_SCAN, kpageflags" :
		       "pagemap, kpageflags";
	return how->scan ? "PAGEMAP_SCAN, without root" :
	       "pagemap, without root";
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
	if (pm->kpf_fd < 0 || pm->kpc_fd < 0 || pfn > PMAPS_PM_PFN_MASK)
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
