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

#include "pmaps.h"

/*
 * pagemap and kpageflags cannot show pte young/dirty: these letters are set
 * in every range's unknown mask (printed '?') and never in its flags.
 */
#define PMAPS_PAGEMAP_UNKNOWN ((1u << PMAPS_YOUNG) | (1u << PMAPS_PTE_DIRTY))

/*
 * Fill *out with the VMAs and resident pages of process pid, as the module
 * would show them:
 *  - one VMA per /proc/PID/maps line, in order, header byte-for-byte (taken
 *    from the identical header lines of /proc/PID/smaps), fields filled by
 *    the libpmaps parser; the [vsyscall] gate VMA is left out;
 *  - VMAs whose smaps VmFlags has pf, io or ht (PFN map, I/O, hugetlb) get
 *    no ranges, nor do VMAs whose smaps Rss is 0 (nothing to read);
 *  - a page is listed when pagemap shows it present with a nonzero PFN and
 *    kpageflags has neither KPF_NOPAGE nor KPF_ZERO_PAGE;
 *  - R/A/U/D/W come from kpageflags, mapcount from kpagecount, Y and P are
 *    unknown (PMAPS_PAGEMAP_UNKNOWN); ranges are grouped as the format says.
 * All line fields are 0 (there is no source text).
 *
 * The result is a snapshot only if pid is stopped; pages may change between
 * the reads otherwise.  Needs root (CAP_SYS_ADMIN for PFNs, read access to
 * /proc/kpageflags and /proc/kpagecount).
 *
 * Return 0 on success.  On failure return -1, write a message naming the file
 * and the reason into err (when errlen > 0), and leave *out empty
 * (pmaps_map_free on it is harmless).
 */
int pmaps_from_pagemap(int pid, struct pmaps_map *out, char *err,
		       size_t errlen);

#endif
