/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build the pmaps model of a process without the kernel module, from
 * /proc/PID/smaps, /proc/PID/pagemap, /proc/kpageflags and /proc/kpagecount
 * (Documentation/admin-guide/mm/pagemap.rst).  Used as the "pagemap" source
 * of the front ends and as the oracle the module is tested against.
 */
#ifndef PMAPS_PAGEMAP_H
#define PMAPS_PAGEMAP_H

#include <stddef.h>
#include <stdint.h>

#include "pmaps.h"

/*
 * pagemap and kpageflags cannot show pte young/dirty: these letters are set
 * in a range's unknown mask (printed '?') and not in its flags, but for P
 * of the anonymous pages whose pte the kernel certainly made dirty (see
 * pte_dirty_certain() in pagemap.c), and for both where PAGEMAP_SCAN has
 * PAGE_IS_YOUNG and PAGE_IS_PTE_DIRTY (patches/pagemap-scan/).
 */
#define PMAPS_PAGEMAP_UNKNOWN ((1u << PMAPS_YOUNG) | (1u << PMAPS_PTE_DIRTY))

/*
 * Fill *out with the VMAs and resident pages of process pid, as the module
 * would show them, from what the reader may read:
 *  - one VMA per /proc/PID/maps line, in order, header byte-for-byte,
 *    fields filled by the libpmaps parser; the [vsyscall] gate VMA is left
 *    out;
 *  - PAGEMAP_SCAN (v6.7) finds the present and swapped pages, so holes cost
 *    nothing, and gives each VMA's swapped pages.  Without it (ENOTTY) the
 *    VMAs come from /proc/PID/smaps, whose Rss, hugetlb and VmFlags (pf, io)
 *    say which VMAs to read whole, and whose Swap gives the swapped pages;
 *  - a page is listed when pagemap shows it present and it is not the
 *    shared zero page;
 *  - with /proc/kpageflags and /proc/kpagecount readable and PFNs shown
 *    (root), R/A/U/D/W come from kpageflags and the mapcount from
 *    kpagecount; pages without a normal struct page (KPF_NOPAGE) and the
 *    zero page are left out;
 *  - otherwise (a reader without root, for processes it may read) pagemap
 *    alone: every letter is '?', and the mapcount is 1 where pagemap says
 *    PM_MMAP_EXCLUSIVE, '?' otherwise.  Without PAGEMAP_SCAN the zero page
 *    cannot be told from others there and is listed;
 *  - Y and P come from PAGEMAP_SCAN's PAGE_IS_YOUNG and PAGE_IS_PTE_DIRTY
 *    where the kernel has them (patches/pagemap-scan/), for any reader;
 *    otherwise they are unknown (PMAPS_PAGEMAP_UNKNOWN), but for P set
 *    where kpageflags shows an anonymous, swap-backed page, not in the swap
 *    cache, not KSM, not PG_dirty, in a writable private VMA: such a
 *    page's pte is dirty; ranges are grouped as the format says.
 * All line fields are 0 (there is no source text).
 *
 * The result is a snapshot only if pid is stopped; pages may change between
 * the reads otherwise.  A page whose folio was split or freed meanwhile (a
 * compound tail without its head), or whose pagemap entry changed by the
 * time its flags were read, is listed with '?' for R, A, U, D, W and the
 * mapcount, never as an error.  Needs read access to /proc/PID/pagemap
 * (the process's owner, or ptrace access).
 *
 * Return 0 on success.  On failure return -1, write a message naming the file
 * and the reason into err (when errlen > 0), and leave *out empty
 * (pmaps_map_free on it is harmless).
 */
int pmaps_from_pagemap(int pid, struct pmaps_map *out, char *err,
		       size_t errlen);

/*
 * Fill the NODE and KB of every range of map, a model of process pid
 * that pmaps_from_pagemap() built, and set map->numa: the node of each
 * page from move_pages(2) in query mode (nodes NULL), which needs only
 * ptrace read access; the folio size from kpageflags (root), as the run
 * of compound tail pages after the head for THP and hugetlb folios.
 * Ranges split where either changes.  What cannot be told is unknown
 * ('?').  Return 0, or -1 with a message in err (map then unchanged
 * but for the VMAs done).
 */
int pmaps_pagemap_numa(int pid, struct pmaps_map *map, char *err,
		       size_t errlen);

/* How pmaps_from_pagemap_how() built a model. */
struct pmaps_pagemap_method {
	int scan;		/* PAGEMAP_SCAN found the pages */
	int kpageflags;		/* flags and mapcounts from /proc/kpage* */
	int readers;		/* threads that read the pages side by side */
};

/* Ways pmaps_from_pagemap_how() is not to take, to test the others. */
#define PMAPS_PM_NO_SCAN	1u	/* as on kernels before v6.7 */
#define PMAPS_PM_NO_KPAGEFLAGS	2u	/* as for a reader without root */
#define PMAPS_PM_ONE_READER	4u	/* as on one CPU */

/*
 * pmaps_from_pagemap(), avoiding the ways in avoid, and saying in *how
 * (if not NULL) which it took.
 */
int pmaps_from_pagemap_how(int pid, unsigned int avoid, struct pmaps_map *out,
			   struct pmaps_pagemap_method *how, char *err,
			   size_t errlen);

/*
 * What to add to an EACCES or EPERM message about path: that it needs
 * root (or, for a process's files, ptrace access), or, for a reader that
 * is root already, what else may have refused it.
 */
const char *pmaps_denied_hint(const char *path);

/* "PAGEMAP_SCAN, kpageflags", "pagemap, without root", ...: for headers. */
const char *pmaps_pagemap_method_name(const struct pmaps_pagemap_method *how);

/* What /proc/PID/smaps says of one VMA; sizes in kB, as smaps prints them. */
struct pmaps_smaps_vma {
	unsigned long long rss_kb;
	/* pages accessed (pte young, or PG_referenced) since last cleared */
	unsigned long long referenced_kb;
	unsigned long long swap_kb;
	/* Shared_Hugetlb + Private_Hugetlb: resident, but not in Rss */
	unsigned long long hugetlb_kb;
	/* KernelPageSize: the VMA's page size, 0 if smaps had no such line */
	unsigned long long kernel_page_kb;
	int no_pages;		/* VmFlags pf or io: no struct pages to list */
};

/*
 * The VMAs of process pid as /proc/PID/smaps lists them, [vsyscall] left
 * out: their headers parsed into *vmas (no ranges, line 0), and what smaps
 * says of VMA i in (*stats)[i] (malloc()ed).  Needs what reading
 * /proc/PID/maps needs, not root.  Return 0, or -1 with a message in err
 * and nothing to free.
 */
int pmaps_smaps_read(int pid, struct pmaps_map *vmas,
		     struct pmaps_smaps_vma **stats, char *err, size_t errlen);

/*
 * Per-page detail, for views that show single pages.
 *
 * /proc/PID/pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst).
 * Without CAP_SYS_ADMIN the kernel reports the PFN and the swap offset as 0.
 */
#define PMAPS_PM_PRESENT	(1ULL << 63)
#define PMAPS_PM_SWAP		(1ULL << 62)
#define PMAPS_PM_FILE		(1ULL << 61)	/* file page or shared anon */
#define PMAPS_PM_UFFD_WP	(1ULL << 57)
#define PMAPS_PM_EXCLUSIVE	(1ULL << 56)	/* mapped exactly once */
#define PMAPS_PM_SOFT_DIRTY	(1ULL << 55)
#define PMAPS_PM_PFN_MASK	((1ULL << 55) - 1)

/* PFN of a present page; 0 when not present or hidden. */
static inline uint64_t pmaps_pm_pfn(uint64_t e)
{
	return (e & PMAPS_PM_PRESENT) ? e & PMAPS_PM_PFN_MASK : 0;
}

/* Swap type (bits 0-4) and offset (bits 5-54) of a swapped entry. */
static inline unsigned int pmaps_pm_swap_type(uint64_t e)
{
	return (unsigned int)(e & 0x1f);
}

static inline uint64_t pmaps_pm_swap_offset(uint64_t e)
{
	return (e & PMAPS_PM_PFN_MASK) >> 5;
}

/*
 * Open files of one process.  pagemap is required; kpageflags and
 * kpagecount are root-only, so without them the fds stay -1.
 */
struct pmaps_pagemap {
	int pid;
	int pm_fd, kpf_fd, kpc_fd;
};

/* Return 0, or -1 with a message in err if pagemap cannot be opened. */
int pmaps_pagemap_open(struct pmaps_pagemap *pm, int pid, char *err,
		       size_t errlen);
void pmaps_pagemap_close(struct pmaps_pagemap *pm);

/*
 * The n entries of the pages from virtual address addr (rounded down to a
 * page) on.  Entries past the end of the address space read as 0.
 * Return 0, or -1 with a message in err.
 */
int pmaps_pagemap_read(const struct pmaps_pagemap *pm,
		       unsigned long long addr, uint64_t *ent, size_t n,
		       char *err, size_t errlen);

/*
 * kpageflags (the KPF_* bits of include/uapi/linux/kernel-page-flags.h)
 * and kpagecount of pfn.  Return 0, or -1 if they are not readable (not
 * root) or pfn has no entry.
 */
int pmaps_kpage_read(const struct pmaps_pagemap *pm, uint64_t pfn,
		     uint64_t *kpf, uint64_t *count);

/*
 * The size in KiB of the folio holding pfn, measured in kpageflags as its
 * compound head and the run of tails after it (kpageflags has no size
 * field); PMAPS_KB_UNKNOWN without kpageflags or where the folio changed
 * meanwhile, never a guess.  *fc remembers the last folio, so the pages of
 * one cost one measurement; zero it before the first call.
 */
struct pmaps_folio_cache {
	uint64_t head, pages;
	int have;
};
unsigned long long pmaps_kpf_folio_kb(const struct pmaps_pagemap *pm,
				      struct pmaps_folio_cache *fc,
				      uint64_t pfn);

/*
 * Name of KPF bit, as the KPF_ macro without the prefix in lowercase
 * ("referenced", "compound_head"); NULL for a bit with no name.  Bits 32
 * and up are the kernel's debugging ones (include/linux/...), not ABI.
 */
const char *pmaps_kpf_name(unsigned int bit);

#endif
