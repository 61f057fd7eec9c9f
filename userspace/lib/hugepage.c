// SPDX-License-Identifier: GPL-2.0
/*
 * THP and hugetlb pages of a live process, and VMA page sizes: see
 * hugepage.h for the sources and what they can tell.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hugepage.h"
#include "pagemap.h"
#include "pmaps.h"
#include "procfs_ioctl.h"

/* include/uapi/linux/kernel-page-flags.h */
#define KPF_COMPOUND_HEAD	15
#define KPF_HUGE		17
#define KPF_THP			22
#define KPF_ZERO_PAGE		24

#define ERR(err, errlen, ...) \
	((errlen) ? (void)snprintf((err), (errlen), __VA_ARGS__) : (void)0)

/* A growing list of regions, kept sorted, disjoint and merged. */
struct rlist {
	struct pmaps_huge_region *r;
	size_t n, cap;
};

/*
 * Append [start, end) of kind; regions come in ascending order.  A region
 * overlapping the last one is clipped, so a source that repeats itself (a
 * resumed PAGEMAP_SCAN) cannot count a page twice.
 */
static int rl_add(struct rlist *l, unsigned long long start,
		  unsigned long long end, enum pmaps_huge_kind kind)
{
	struct pmaps_huge_region *last = l->n ? &l->r[l->n - 1] : NULL;

	if (last && start < last->end)
		start = last->end;
	if (start >= end)
		return 0;
	if (last && last->end == start && last->kind == kind) {
		last->end = end;
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		void *p = realloc(l->r, cap * sizeof(*l->r));

		if (!p)
			return -1;
		l->r = p;
		l->cap = cap;
	}
	l->r[l->n].start = start;
	l->r[l->n].end = end;
	l->r[l->n].kind = kind;
	l->n++;
	return 0;
}

static int missing_ioctl(int e)
{
	return e == ENOTTY || e == EINVAL || e == EOPNOTSUPP;
}

int pmaps_huge_open(struct pmaps_huge *h, int pid, unsigned int avoid,
		    char *err, size_t errlen)
{
	char path[64];
	int e;

	memset(h, 0, sizeof(*h));
	h->pid = pid;
	h->avoid = avoid;
	h->kpf_fd = -1;
	h->maps_fd = -1;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	h->pm_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (h->pm_fd < 0) {
		ERR(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (avoid & PMAPS_HUGE_NO_KPAGEFLAGS) {
		snprintf(h->kpf_why, sizeof(h->kpf_why),
			 "/proc/kpageflags: not tried");
	} else {
		h->kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
		e = errno;
		if (h->kpf_fd < 0)
			snprintf(h->kpf_why, sizeof(h->kpf_why),
				 "/proc/kpageflags: %s%s", strerror(e),
				 e == EACCES || e == EPERM ?
				 pmaps_denied_hint("/proc/kpageflags") : "");
	}
	if (avoid & PMAPS_HUGE_NO_SCAN) {
		h->no_scan = 1;
		snprintf(h->scan_why, sizeof(h->scan_why),
			 "PAGEMAP_SCAN: not tried");
	}
	/* without it, pmaps_huge_page_size() reads smaps */
	if (!(avoid & PMAPS_HUGE_NO_QUERY)) {
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
		h->maps_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return 0;
}

void pmaps_huge_close(struct pmaps_huge *h)
{
	if (h->pm_fd >= 0)
		close(h->pm_fd);
	if (h->kpf_fd >= 0)
		close(h->kpf_fd);
	if (h->maps_fd >= 0)
		close(h->maps_fd);
	h->pm_fd = h->kpf_fd = h->maps_fd = -1;
	free(h->smaps);
	h->smaps = NULL;
	h->nr_smaps = 0;
	h->smaps_read = 0;
}

void pmaps_huge_vma_free(struct pmaps_huge_vma *v)
{
	free(v->regions);
	memset(v, 0, sizeof(*v));
}

const struct pmaps_huge_region *
pmaps_huge_find(const struct pmaps_huge_vma *v, unsigned long long addr,
		size_t *cursor)
{
	size_t i = *cursor < v->nr_regions ? *cursor : 0;

	/* a walk that went backwards starts over */
	if (i && addr < v->regions[i].start)
		i = 0;
	for (; i < v->nr_regions && v->regions[i].end <= addr; i++)
		;
	*cursor = i;
	if (i < v->nr_regions && v->regions[i].start <= addr)
		return &v->regions[i];
	return NULL;
}

/* ---- page sizes ---- */

/* "KernelPageSize:        4 kB" of every VMA of /proc/PID/smaps, once. */
static int smaps_load(struct pmaps_huge *h, char *err, size_t errlen)
{
	struct pmaps_smaps_vma *stats;
	struct pmaps_map vmas;
	size_t i;

	if (h->smaps_read)
		return 0;
	if (pmaps_smaps_read(h->pid, &vmas, &stats, err, errlen))
		return -1;
	h->smaps = calloc(vmas.nr_vmas ? vmas.nr_vmas : 1, sizeof(*h->smaps));
	if (!h->smaps) {
		ERR(err, errlen, "/proc/%d/smaps: %s", h->pid,
		    strerror(ENOMEM));
	} else {
		for (i = 0; i < vmas.nr_vmas; i++) {
			h->smaps[i].start = vmas.vmas[i].start;
			h->smaps[i].end = vmas.vmas[i].end;
			h->smaps[i].page_size = stats[i].kernel_page_kb * 1024;
		}
		h->nr_smaps = vmas.nr_vmas;
		h->smaps_read = 1;
	}
	pmaps_map_free(&vmas);
	free(stats);
	return h->smaps ? 0 : -1;
}

/* Page size and bounds of the VMA holding addr; as pmaps_huge_page_size. */
static int vma_info(struct pmaps_huge *h, unsigned long long addr,
		    unsigned long long *size, unsigned long long *vstart,
		    unsigned long long *vend, char *err, size_t errlen)
{
	size_t i;

	if (h->maps_fd >= 0) {
		struct procmap_query q;

		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_addr = addr;	/* flags 0: the VMA covering addr */
		if (!ioctl(h->maps_fd, PROCMAP_QUERY, &q)) {
			h->used |= PMAPS_HUGE_USED_QUERY;
			*size = q.vma_page_size;
			*vstart = q.vma_start;
			*vend = q.vma_end;
			return 0;
		}
		if (errno == ENOENT) {
			ERR(err, errlen, "/proc/%d/maps: no VMA at 0x%llx",
			    h->pid, addr);
			return -1;
		}
		if (!missing_ioctl(errno)) {
			ERR(err, errlen, "/proc/%d/maps: PROCMAP_QUERY: %s",
			    h->pid, strerror(errno));
			return -1;
		}
		/* before v6.11: smaps from now on */
		close(h->maps_fd);
		h->maps_fd = -1;
	}
	if (smaps_load(h, err, errlen))
		return -1;
	for (i = 0; i < h->nr_smaps; i++) {
		if (h->smaps[i].start <= addr && addr < h->smaps[i].end) {
			if (!h->smaps[i].page_size) {
				ERR(err, errlen,
				    "/proc/%d/smaps: expected a KernelPageSize line for the VMA at 0x%llx",
				    h->pid, h->smaps[i].start);
				return -1;
			}
			h->used |= PMAPS_HUGE_USED_SMAPS;
			*size = h->smaps[i].page_size;
			*vstart = h->smaps[i].start;
			*vend = h->smaps[i].end;
			return 0;
		}
	}
	ERR(err, errlen, "/proc/%d/smaps: no VMA at 0x%llx", h->pid, addr);
	return -1;
}

int pmaps_huge_page_size(struct pmaps_huge *h, unsigned long long addr,
			 unsigned long long *size, char *err, size_t errlen)
{
	unsigned long long vstart, vend;

	return vma_info(h, addr, size, &vstart, &vend, err, errlen);
}

/* ---- PAGEMAP_SCAN ---- */

struct scan_add {
	struct rlist *l;
	enum pmaps_huge_kind kind;
};

static int scan_add(void *ctx, const struct page_region *r)
{
	struct scan_add *a = ctx;

	if (rl_add(a->l, r->start, r->end, a->kind)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/*
 * The regions of [start, end) whose pages have every category of want and
 * none of unwanted, appended to l as kind.  Return 0; 1 if the kernel has
 * no PAGEMAP_SCAN (h->no_scan and h->scan_why set); -1 with err.
 */
static int scan(struct pmaps_huge *h, unsigned long long start,
		unsigned long long end, uint64_t want, uint64_t unwanted,
		enum pmaps_huge_kind kind, struct rlist *l, char *err,
		size_t errlen)
{
	struct scan_add add = { .l = l, .kind = kind };
	struct pm_scan_arg arg;
	int ret;

	if (h->no_scan)
		return 1;
	memset(&arg, 0, sizeof(arg));
	arg.start = start;
	arg.end = end;
	arg.category_mask = want | unwanted;
	arg.category_inverted = unwanted;
	arg.return_mask = want;
	ret = pmaps_pagemap_scan(h->pm_fd, &arg, scan_add, &add);
	if (ret > 0) {
		h->no_scan = 1;
		snprintf(h->scan_why, sizeof(h->scan_why),
			 "PAGEMAP_SCAN on /proc/%d/pagemap: %s (before v6.7)",
			 h->pid, strerror(errno));
	} else if (ret < 0) {
		ERR(err, errlen, "/proc/%d/pagemap: PAGEMAP_SCAN: %s", h->pid,
		    strerror(errno));
	}
	return ret;
}

/* ---- pagemap + kpageflags ---- */

/* Buffers for one PMD-sized block. */
struct kpf_buf {
	uint64_t *ent, *kpf;
};

/*
 * kpageflags of the present pages of ent[0..n) into kpf[], one pread()
 * per run of consecutive PFNs.  Return 0; 1 if pagemap hides the PFNs;
 * -1 with err.
 */
static int kpf_fill(struct pmaps_huge *h, const uint64_t *ent, uint64_t *kpf,
		    size_t n, char *err, size_t errlen)
{
	size_t i = 0, j;

	while (i < n) {
		uint64_t pfn = pmaps_pm_pfn(ent[i]);
		ssize_t got;

		if (!(ent[i] & PMAPS_PM_PRESENT)) {
			kpf[i++] = 0;
			continue;
		}
		if (!pfn) {
			snprintf(h->kpf_why, sizeof(h->kpf_why),
				 "/proc/%d/pagemap: shows no PFNs (needs CAP_SYS_ADMIN)",
				 h->pid);
			return 1;
		}
		for (j = i + 1; j < n && (ent[j] & PMAPS_PM_PRESENT) &&
		     pmaps_pm_pfn(ent[j]) == pfn + (j - i); j++)
			;
		got = pread(h->kpf_fd, kpf + i, (j - i) * sizeof(*kpf),
			    (off_t)(pfn * sizeof(*kpf)));
		if (got < 0) {
			ERR(err, errlen, "/proc/kpageflags: PFN 0x%llx: %s",
			    (unsigned long long)pfn, strerror(errno));
			return -1;
		}
		/* past the last PFN: no flags */
		memset((char *)(kpf + i) + got, 0,
		       (j - i) * sizeof(*kpf) - (size_t)got);
		i = j;
	}
	return 0;
}

/*
 * The huge pages of [s, e), inside one PMD-sized block [bs, bs + pmd).
 * Return as kpf_fill().
 */
static int kpf_block(struct pmaps_huge *h, struct kpf_buf *b,
		     unsigned long long s, unsigned long long e,
		     unsigned long long bs, unsigned long long pmd,
		     struct rlist *l, char *err, size_t errlen)
{
	unsigned long long psize = pmaps_page_size();
	size_t n = (size_t)((e - s) / psize), i;
	uint64_t pfn0;
	ssize_t got;
	int ret, thp;

	got = pread(h->pm_fd, b->ent, n * sizeof(*b->ent),
		    (off_t)(s / psize * sizeof(*b->ent)));
	if (got < 0) {
		ERR(err, errlen, "/proc/%d/pagemap: %s", h->pid,
		    strerror(errno));
		return -1;
	}
	memset((char *)b->ent + got, 0, n * sizeof(*b->ent) - (size_t)got);
	ret = kpf_fill(h, b->ent, b->kpf, n, err, errlen);
	if (ret)
		return ret;
	/* a PMD-sized THP mapped whole, where a PMD maps it */
	pfn0 = pmaps_pm_pfn(b->ent[0]);
	thp = s == bs && e == bs + pmd && !(pfn0 % n) &&
	      (b->kpf[0] >> KPF_COMPOUND_HEAD & 1);
	for (i = 0; thp && i < n; i++)
		thp = (b->ent[i] & PMAPS_PM_PRESENT) &&
		      pmaps_pm_pfn(b->ent[i]) == pfn0 + i &&
		      (b->kpf[i] >> KPF_THP & 1) &&
		      !(b->kpf[i] >> KPF_ZERO_PAGE & 1);
	if (thp)
		return rl_add(l, s, e, PMAPS_HUGE_THP) ? -2 : 0;
	for (i = 0; i < n; i++)
		if ((b->kpf[i] >> KPF_HUGE & 1) &&
		    rl_add(l, s + i * psize, s + (i + 1) * psize,
			   PMAPS_HUGE_HUGETLB))
			return -2;
	return 0;
}

/*
 * The huge pages of [start, end) from pagemap and kpageflags.  With
 * PAGEMAP_SCAN, only the pages it says are huge are read, so holes and
 * small pages cost nothing; without it (before v6.7), the whole range.
 * Return as kpf_fill().
 */
static int kpf_read(struct pmaps_huge *h, unsigned long long start,
		    unsigned long long end, struct rlist *l, char *err,
		    size_t errlen)
{
	unsigned long long psize = pmaps_page_size();
	unsigned long long pmd = psize * (psize / sizeof(uint64_t));
	struct rlist present = { 0 };
	struct pmaps_huge_region whole = { start, end, PMAPS_HUGE_THP };
	const struct pmaps_huge_region *r = &whole;
	struct kpf_buf b;
	size_t nr = 1, k;
	int ret = 0;

	b.ent = malloc(psize / sizeof(uint64_t) * sizeof(uint64_t));
	b.kpf = malloc(psize / sizeof(uint64_t) * sizeof(uint64_t));
	if (!b.ent || !b.kpf) {
		ret = -2;
		goto out;
	}
	ret = scan(h, start, end, PAGE_IS_PRESENT | PAGE_IS_HUGE, 0,
		   PMAPS_HUGE_THP, &present, err, errlen);
	if (ret < 0)
		goto out;
	if (!ret) {
		r = present.r;
		nr = present.n;
	}
	ret = 0;
	for (k = 0; k < nr && !ret; k++) {
		unsigned long long s = r[k].start;

		while (s < r[k].end && !ret) {
			unsigned long long bs = s - s % pmd;
			unsigned long long e = bs + pmd < r[k].end ?
					       bs + pmd : r[k].end;

			ret = kpf_block(h, &b, s, e, bs, pmd, l, err, errlen);
			s = e;
		}
	}
out:
	if (ret == -2) {
		ERR(err, errlen, "/proc/%d/pagemap: %s", h->pid,
		    strerror(ENOMEM));
		ret = -1;
	}
	free(present.r);
	free(b.ent);
	free(b.kpf);
	return ret;
}

int pmaps_huge_read(struct pmaps_huge *h, unsigned long long start,
		    unsigned long long end, struct pmaps_huge_vma *out,
		    char *err, size_t errlen)
{
	unsigned long long psize = pmaps_page_size();
	unsigned long long pmd = psize * (psize / sizeof(uint64_t));
	unsigned long long vstart, vend, ks, ke;
	struct rlist l = { 0 };
	size_t i, j;
	int ret = 1;

	memset(out, 0, sizeof(*out));
	if (vma_info(h, start, &out->page_size, &vstart, &vend, err, errlen))
		return -1;
	if (h->kpf_fd >= 0) {
		/*
		 * Whether a page is in a PMD-mapped THP takes its whole
		 * PMD-sized block: read those, inside the VMA, and clip.
		 */
		ks = start - start % pmd;
		ke = end % pmd ? end - end % pmd + pmd : end;
		ks = ks > vstart ? ks : vstart;
		ke = ke < vend ? ke : vend;
		ret = kpf_read(h, ks, ke, &l, err, errlen);
		if (!ret) {
			h->used |= PMAPS_HUGE_USED_KPAGEFLAGS;
		} else if (ret > 0) {
			/* PFNs hidden: kpageflags is of no use here */
			close(h->kpf_fd);
			h->kpf_fd = -1;
			l.n = 0;
		}
	}
	if (ret > 0) {
		/* hugetlb VMAs have their page size; others hold THPs */
		enum pmaps_huge_kind kind = out->page_size > pmaps_page_size() ?
					    PMAPS_HUGE_HUGETLB :
					    PMAPS_HUGE_THP;

		ret = scan(h, start, end, PAGE_IS_PRESENT | PAGE_IS_HUGE,
			   PAGE_IS_PFNZERO, kind, &l, err, errlen);
		if (!ret)
			h->used |= PMAPS_HUGE_USED_SCAN;
		else if (ret > 0)
			ERR(err, errlen, "huge pages not known: %s; %s",
			    h->kpf_why, h->scan_why);
	}
	if (ret) {
		free(l.r);
		out->page_size = 0;
		return -1;
	}
	/* clip to [start, end), dropping what falls outside */
	for (i = j = 0; i < l.n; i++) {
		struct pmaps_huge_region r = l.r[i];

		r.start = r.start > start ? r.start : start;
		r.end = r.end < end ? r.end : end;
		if (r.start >= r.end)
			continue;
		l.r[j++] = r;
		out->huge_bytes += r.end - r.start;
	}
	out->regions = l.r;
	out->nr_regions = j;
	return 0;
}
