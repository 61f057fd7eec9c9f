/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMAPS_EXT_H
#define PMAPS_EXT_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/seq_file.h>

/* access.c: who may open which file, and see which PIDs and page state. */
struct mm_struct *pmaps_mm_access(struct file *file, struct pid *pid,
				  bool *may_attach);
struct vfsmount *pmaps_pid_procfs_mount(void);
int pmaps_pid_owner(struct vfsmount *procfs, struct pid *pid, kuid_t *uid,
		    kgid_t *gid);
bool pmaps_may_read_page_flags(struct file *file);
bool pmaps_page_cache_asks_file(struct vm_area_struct *vma);
bool pmaps_may_see_page_cache(const struct file *reader,
			      struct vm_area_struct *vma);

/* seq.c: the files behind /proc/pmaps_ext/PID and /proc/pmaps_ext/numa/PID. */
extern const struct file_operations pmaps_file_operations;
extern const struct file_operations pmaps_numa_file_operations;

/* walk.c: a run of pages that will become one range line. */
struct pmaps_range {
	unsigned long start;		/* address of its first page */
	unsigned long index;		/* INDEX of that page, when read */
	unsigned long nr_pages;		/* 0: nothing pending */
	unsigned int flags;		/* letters, withheld letters, AGE */
	int mapcount;			/* or withheld */
	/* PMAPS_FIELDS_NUMA only, else 0 so that they never split a range: */
	int node;			/* folio_nid() */
	unsigned long kb;		/* folio_size() in KiB, or withheld */
};

/*
 * walk.c: print the range lines of @vma from @addr on.  Stops early once a
 * record holds PMAPS_LINES_PER_RECORD lines, so every record is small, and
 * returns where the next record starts (vma->vm_end when done).
 *
 * It also stops, at the end of a page table, once it has walked *@budget
 * pages (then 0), which bounds the work done under one hold of the lock
 * even where one line covers a whole VMA.  The line still being gathered
 * is then not printed: it is left in *@pending, for the next record to
 * go on with.  *@pending holds, on entry, what the record before left
 * (nr_pages 0: nothing), and on return what this one leaves.
 */
#define PMAPS_LINES_PER_RECORD	32
/*
 * The pages walked under one hold of the lock.  64 MiB: under a
 * millisecond for 4 KiB pages, and at most 32 pmd-mapped THPs, so that
 * the drop and retake stays a small part of the walk of THPs too.
 */
#define PMAPS_PAGES_PER_LOCK	(64UL << (20 - PAGE_SHIFT))
/*
 * @withhold: whose shared state is withheld from a reader who may not read
 * /proc/kpageflags: PMAPS_WITHHOLD_PAGE_CACHE, the VMA's page-cache pages
 * (pmaps_may_see_page_cache() said no), and PMAPS_WITHHOLD_KSM, KSM pages;
 * and PMAPS_WITHHOLD_ACCESS, the access state (Y, R, A, AGE) of every
 * page, from a reader who may not attach to the target.
 */
#define PMAPS_WITHHOLD_PAGE_CACHE	BIT(0)
#define PMAPS_WITHHOLD_KSM		BIT(1)
#define PMAPS_WITHHOLD_ACCESS		BIT(2)
/* @fields: the opt-in range fields; the RFC's four are always printed. */
#define PMAPS_FIELDS_NUMA	BIT(0)	/* NODE and KB (/proc/pmaps_ext/numa) */
unsigned long pmaps_show_ranges(struct seq_file *m, struct vm_area_struct *vma,
				unsigned long addr, unsigned int withhold,
				unsigned int fields, struct pmaps_range *pending,
				unsigned long *budget);
/* Print @range, a line pmaps_show_ranges() left pending, as it is. */
void pmaps_show_range(struct seq_file *m, const struct pmaps_range *range,
		      unsigned int fields);

/*
 * seq.c, test builds only (make PMAPS_TEST_HOOKS=y): while the parameter
 * bench_no_text is set, every record walks as it would and prints
 * nothing, so that make bench can time the walk without the text beside
 * the real read.
 */
#ifdef PMAPS_TEST_HOOKS
extern bool pmaps_bench_no_text;
#endif
static inline bool pmaps_text_off(void)
{
#ifdef PMAPS_TEST_HOOKS
	return READ_ONCE(pmaps_bench_no_text);
#else
	return false;
#endif
}

/* fs.c: the filesystem mounted on /proc/pmaps_ext. */
int pmaps_fs_register(void);
void pmaps_fs_unregister(void);

#endif /* PMAPS_EXT_H */
