/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMAPS_EXT_H
#define PMAPS_EXT_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/seq_file.h>

/* access.c: who may open which file, and see which PIDs and page state. */
struct mm_struct *pmaps_mm_access(struct file *file, struct pid *pid);
struct vfsmount *pmaps_pid_procfs_mount(void);
int pmaps_pid_owner(struct vfsmount *procfs, struct pid *pid, kuid_t *uid,
		    kgid_t *gid);
bool pmaps_may_read_page_flags(struct file *file);
bool pmaps_may_see_page_cache(const struct file *reader,
			      struct vm_area_struct *vma);

/* seq.c: the files behind /proc/pmaps_ext/PID and /proc/pmaps_ext/numa/PID. */
extern const struct file_operations pmaps_file_operations;
extern const struct file_operations pmaps_numa_file_operations;

/*
 * walk.c: print the range lines of @vma from @addr on.  Stops early once a
 * record holds PMAPS_LINES_PER_RECORD lines, so every record is small, and
 * returns where the next record starts (vma->vm_end when done).
 */
#define PMAPS_LINES_PER_RECORD	32
/*
 * @withhold: whose shared state is withheld from a reader who may not read
 * /proc/kpageflags: PMAPS_WITHHOLD_PAGE_CACHE, the VMA's page-cache pages
 * (pmaps_may_see_page_cache() said no), and PMAPS_WITHHOLD_KSM, KSM pages.
 */
#define PMAPS_WITHHOLD_PAGE_CACHE	BIT(0)
#define PMAPS_WITHHOLD_KSM		BIT(1)
/* @fields: the opt-in range fields; the RFC's four are always printed. */
#define PMAPS_FIELDS_NUMA	BIT(0)	/* NODE and KB (/proc/pmaps_ext/numa) */
unsigned long pmaps_show_ranges(struct seq_file *m, struct vm_area_struct *vma,
				unsigned long addr, unsigned int withhold,
				unsigned int fields);

/* fs.c: the filesystem mounted on /proc/pmaps_ext. */
int pmaps_fs_register(void);
void pmaps_fs_unregister(void);

#endif /* PMAPS_EXT_H */
