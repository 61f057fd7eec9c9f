/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two ioctls of /proc/PID/pagemap and /proc/PID/maps that libpmaps uses
 * where the kernel has them: PAGEMAP_SCAN (v6.7) and PROCMAP_QUERY (v6.11).
 * Debian 12's uapi headers (6.1) have neither, so the layouts are spelled
 * out here as include/uapi/linux/fs.h defines them.  A kernel without them
 * fails the ioctl with ENOTTY; the callers then read the files instead.
 */
#ifndef PMAPS_PROCFS_IOCTL_H
#define PMAPS_PROCFS_IOCTL_H

#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#ifndef PAGEMAP_SCAN
/* v6.7: the ioctl of /proc/PID/pagemap */
struct page_region {
	__u64 start;
	__u64 end;			/* exclusive */
	__u64 categories;
};

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGEMAP_SCAN		_IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WPALLOWED	(1 << 0)
#define PAGE_IS_WRITTEN		(1 << 1)
#define PAGE_IS_FILE		(1 << 2)
#define PAGE_IS_PRESENT		(1 << 3)
#define PAGE_IS_SWAPPED		(1 << 4)
#define PAGE_IS_PFNZERO		(1 << 5)
#define PAGE_IS_HUGE		(1 << 6)
#define PAGE_IS_SOFT_DIRTY	(1 << 7)
#endif

#ifndef PAGE_IS_YOUNG
/*
 * Not in any released kernel yet: the non-clearing young and dirty bits
 * of the page-table entries, from patches/pagemap-scan/ (see its cover
 * letter).  A kernel without them fails PAGEMAP_SCAN with EINVAL when
 * they are asked for, as for any category it does not know.
 */
#define PAGE_IS_YOUNG		(1 << 10)
#define PAGE_IS_PTE_DIRTY	(1 << 11)
#endif

#ifndef PROCMAP_QUERY
/* v6.11: the ioctl of /proc/PID/maps */
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA	0x10

struct procmap_query {
	__u64 size;
	__u64 query_flags;
	__u64 query_addr;
	__u64 vma_start;
	__u64 vma_end;
	__u64 vma_flags;
	__u64 vma_page_size;		/* vma_kernel_pagesize() */
	__u64 vma_offset;
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 vma_name_size;
	__u32 build_id_size;
	__u64 vma_name_addr;
	__u64 build_id_addr;
};

#define PROCMAP_QUERY		_IOWR('f', 17, struct procmap_query)
#endif

/*
 * Run PAGEMAP_SCAN on pagemap fd with the masks and range of *arg (its
 * size, vec and vec_len are set here), calling add(ctx, region) for each
 * region in address order.  A resumed walk may report a region again in
 * part: add() must keep only what lies past the last region.  Return 0;
 * 1 when the kernel has no PAGEMAP_SCAN (before v6.7: ENOTTY, or EINVAL
 * for arguments it does not know), errno set; -1 on another error, or
 * add()'s -1, errno set.
 */
int pmaps_pagemap_scan(int fd, struct pm_scan_arg *arg,
		       int (*add)(void *ctx, const struct page_region *r),
		       void *ctx);

#endif
