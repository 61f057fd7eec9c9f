/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which pages of a live process are huge: in a PMD-mapped transparent huge
 * page (THP) or in a hugetlb page, and the page size of each VMA.  The
 * pmaps text format has no room for this, so the views ask the process
 * itself at view time (issue 15).
 *
 * Where it comes from, first that works:
 *  - as root: /proc/PID/pagemap gives each present page's PFN, and
 *    /proc/kpageflags says KPF_HUGE (17: hugetlb) or KPF_THP (22).  The
 *    kernel sets KPF_THP on every page of any transparent large folio, also
 *    PTE-mapped ones and mTHP (fs/proc/page.c: "not just PMD-sized ones"),
 *    so a page counts as THP here only inside a PMD-aligned block whose
 *    pages are all present, all KPF_THP, on consecutive PFNs from a
 *    PMD-aligned head page (KPF_COMPOUND_HEAD): a PMD-sized THP mapped
 *    whole where a PMD maps it.  The huge zero page (KPF_ZERO_PAGE) is
 *    not counted.  Where PAGEMAP_SCAN works, only the pages it calls
 *    huge (below) are read; before v6.7, every page of the range;
 *  - without root (PFNs read as 0, /proc/kpageflags unreadable), the
 *    PAGEMAP_SCAN ioctl of /proc/PID/pagemap (v6.7): present pages with
 *    PAGE_IS_HUGE, which the kernel sets for PMD-mapped THPs and for
 *    hugetlb pages, the huge zero page (PAGE_IS_PFNZERO) left out;
 *  - otherwise nothing is known (an error, not "no huge pages").
 * A huge page is hugetlb when its VMA's page size is larger than the base
 * page (or, with kpageflags, when KPF_HUGE says so), THP otherwise.
 *
 * The page size of a VMA is the kernel's vma_kernel_pagesize(): from the
 * PROCMAP_QUERY ioctl of /proc/PID/maps (v6.11, vma_page_size), else the
 * KernelPageSize line of /proc/PID/smaps (read once per pmaps_huge).
 *
 * A kernel without an ioctl fails it with ENOTTY (or EINVAL for a layout
 * it does not know); that way is then not tried again for this
 * pmaps_huge.  Results are a snapshot only if the process is stopped.
 */
#ifndef PMAPS_HUGEPAGE_H
#define PMAPS_HUGEPAGE_H

#include <stddef.h>

/* Ways not to take, to test the others (the avoid argument). */
#define PMAPS_HUGE_NO_KPAGEFLAGS 1u	/* as for a reader without root */
#define PMAPS_HUGE_NO_SCAN	2u	/* as on kernels before v6.7 */
#define PMAPS_HUGE_NO_QUERY	4u	/* as on kernels before v6.11 */

/* The ways pmaps_huge_read() and pmaps_huge_page_size() took (used). */
#define PMAPS_HUGE_USED_KPAGEFLAGS 1u
#define PMAPS_HUGE_USED_SCAN	2u
#define PMAPS_HUGE_USED_QUERY	4u
#define PMAPS_HUGE_USED_SMAPS	8u

/* The open files of one process; fields are the library's. */
struct pmaps_huge {
	int pid;
	unsigned int avoid;	/* PMAPS_HUGE_NO_* */
	unsigned int used;	/* PMAPS_HUGE_USED_*, accumulated */
	int pm_fd;		/* /proc/PID/pagemap */
	int kpf_fd;		/* /proc/kpageflags, or -1 */
	int maps_fd;		/* /proc/PID/maps for PROCMAP_QUERY, or -1 */
	int no_scan;		/* PAGEMAP_SCAN is missing (ENOTTY/EINVAL) */
	char kpf_why[128];	/* why kpageflags is not used, or "" */
	char scan_why[128];	/* why PAGEMAP_SCAN is not used, or "" */
	/* the smaps fallback: [start, end) and page size of every VMA */
	struct pmaps_huge_smaps {
		unsigned long long start, end, page_size;
	} *smaps;
	size_t nr_smaps;
	int smaps_read;		/* smaps was read (nr_smaps may be 0) */
};

enum pmaps_huge_kind {
	PMAPS_HUGE_THP = 1,	/* PMD-mapped transparent huge page */
	PMAPS_HUGE_HUGETLB = 2,	/* hugetlb page */
};

/* [start, end) is in huge pages of one kind. */
struct pmaps_huge_region {
	unsigned long long start, end;
	enum pmaps_huge_kind kind;
};

/* What pmaps_huge_read() found in one address range. */
struct pmaps_huge_vma {
	unsigned long long page_size;	/* of the VMA, bytes */
	/* sorted, disjoint; adjacent regions of one kind are merged */
	struct pmaps_huge_region *regions;	/* malloc()ed */
	size_t nr_regions;
	unsigned long long huge_bytes;	/* sum of the regions' lengths */
};

/*
 * Open what process pid offers, avoiding the ways in avoid (0 in normal
 * use).  /proc/PID/pagemap must open; /proc/kpageflags and /proc/PID/maps
 * are opened if they can be.  Return 0, or -1 with a message naming the
 * file and the reason in err (nothing to close).
 */
int pmaps_huge_open(struct pmaps_huge *h, int pid, unsigned int avoid,
		    char *err, size_t errlen);
void pmaps_huge_close(struct pmaps_huge *h);

/*
 * The page size in bytes of pid's VMA holding addr into *size.  Return 0,
 * or -1 with a message in err (no VMA holds addr, the files cannot be
 * read).
 */
int pmaps_huge_page_size(struct pmaps_huge *h, unsigned long long addr,
			 unsigned long long *size, char *err, size_t errlen);

/*
 * The huge pages in [start, end) (page-aligned, inside one VMA) into *out:
 * its page size and the regions in THP or hugetlb pages, clipped to
 * [start, end).  Return 0, or -1 with err saying why nothing is known
 * (every way tried, and why each failed), *out empty.  Free *out with
 * pmaps_huge_vma_free() either way.
 */
int pmaps_huge_read(struct pmaps_huge *h, unsigned long long start,
		    unsigned long long end, struct pmaps_huge_vma *out,
		    char *err, size_t errlen);
void pmaps_huge_vma_free(struct pmaps_huge_vma *v);

/*
 * The region of v holding addr, or NULL.  *cursor (start it at 0) makes a
 * walk in ascending addresses linear.
 */
const struct pmaps_huge_region *
pmaps_huge_find(const struct pmaps_huge_vma *v, unsigned long long addr,
		size_t *cursor);

#endif
