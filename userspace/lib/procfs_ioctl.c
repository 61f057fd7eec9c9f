// SPDX-License-Identifier: GPL-2.0
/* PAGEMAP_SCAN for the pagemap source and the huge page views. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include "procfs_ioctl.h"

/* Regions a call returns at most: the size of the kernel's own buffer. */
#define SCAN_VEC	512

int pmaps_pagemap_scan(int fd, struct pm_scan_arg *arg,
		       int (*add)(void *ctx, const struct page_region *r),
		       void *ctx)
{
	struct page_region vec[SCAN_VEC];
	uint64_t first = arg->start, next;
	long n, i;

	arg->size = sizeof(*arg);
	arg->vec = (uint64_t)(uintptr_t)vec;
	arg->vec_len = SCAN_VEC;
	while (arg->start < arg->end) {
		/*
		 * Valgrind does not know what PAGEMAP_SCAN writes: without
		 * this, every region would read as uninitialised there.
		 */
		memset(vec, 0, sizeof(vec));
		n = ioctl(fd, PAGEMAP_SCAN, arg);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (arg->start == first &&
			    (errno == ENOTTY || errno == EINVAL))
				return 1;
			return -1;
		}
		for (i = 0; i < n; i++)
			if (add(ctx, &vec[i]))
				return -1;
		/*
		 * Only a full vector ends a call early.  walk_end alone does
		 * not say so: once the kernel has refilled its bounce buffer
		 * it keeps that stop's walk_end even when the walk then
		 * finishes, and going on from there would report regions
		 * again (tests/guest/bench.c).
		 */
		if (n < SCAN_VEC)
			break;
		next = arg->walk_end > vec[n - 1].end ? arg->walk_end :
							vec[n - 1].end;
		if (next <= arg->start)
			break;
		arg->start = next;
	}
	return 0;
}
