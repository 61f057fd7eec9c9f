/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kind of memory a VMA is, from its /proc/PID/maps header alone: the
 * label pmaps export gives its samples (issue 19).  A short fixed set, so
 * that a time series database's label values stay bounded.
 */
#ifndef PMAPS_KIND_H
#define PMAPS_KIND_H

#include "pmaps.h"

enum pmaps_kind {
	PMAPS_KIND_ANON,	/* private anonymous, [anon:NAME] too */
	PMAPS_KIND_FILE,	/* a file's pages */
	PMAPS_KIND_SHMEM,	/* shared anonymous, memfd, SysV, /dev/shm */
	PMAPS_KIND_STACK,	/* [stack] */
	PMAPS_KIND_HEAP,	/* [heap], the brk area */
	PMAPS_KIND_OTHER,	/* [vdso], [vvar], [vsyscall], ... */
	PMAPS_NR_KINDS
};

/* "anon", "file", ...: the name of kind k. */
extern const char *const pmaps_kind_names[PMAPS_NR_KINDS];

enum pmaps_kind pmaps_vma_kind(const struct pmaps_vma *v);

#endif /* PMAPS_KIND_H */
