/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel version difference pmaps_ext meets, in one place.
 *
 * The code is written against the newest API; each block below supplies it
 * on older kernels.  Blocks key on a feature probe (module/probes/HAVE_*.c,
 * compiled by Kbuild into probes.h), never on a version number, and name
 * the change that introduced the API.
 */
#ifndef PMAPS_EXT_COMPAT_H
#define PMAPS_EXT_COMPAT_H

#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/pgtable.h>

#include "probes.h"

/*
 * v6.5, "mm: Rename pmd_read_atomic()": pmdp_get_lockless() replaced
 * pmd_read_atomic().
 */
#ifndef HAVE_PMDP_GET_LOCKLESS
static inline pmd_t pmdp_get_lockless(pmd_t *pmdp)
{
	return pmd_read_atomic(pmdp);
}
#endif

/*
 * v6.10, "mm: introduce pudp/p4dp/pgdp_get() functions": accessors for the
 * upper levels, so architectures can hook them.
 */
#ifndef HAVE_PUDP_GET
static inline pgd_t pgdp_get(pgd_t *pgdp)
{
	return READ_ONCE(*pgdp);
}

static inline p4d_t p4dp_get(p4d_t *p4dp)
{
	return READ_ONCE(*p4dp);
}

static inline pud_t pudp_get(pud_t *pudp)
{
	return READ_ONCE(*pudp);
}
#endif

/*
 * v6.11, "mm: provide mm_struct and address to huge_ptep_get()": before,
 * huge_ptep_get() took the entry alone.  The macro calls the one-argument
 * function (a macro does not expand itself again); linux/hugetlb.h,
 * included above, declared it before the macro existed.  mm and addr are
 * still evaluated, so they count as used.
 */
#ifndef HAVE_HUGE_PTEP_GET_MM
#define huge_ptep_get(mm, addr, ptep)	\
	((void)(mm), (void)(addr), huge_ptep_get(ptep))
#endif

/*
 * How many entries map one hugetlb page of @sz bytes, 0 for a size the
 * walk does not know.  A pmd- or pud-sized page is one entry.  arm64 also
 * has contiguous sizes (arch/arm64/mm/hugetlbpage.c, arch_hugetlb_valid_size()):
 * CONT_PTE_SIZE, mapped by CONT_PTES ptes, and CONT_PMD_SIZE, by CONT_PMDS
 * pmds, each entry carrying the contiguous bit.  With 4K pages those are
 * 64 KiB and 32 MiB; with 16K pages 2 MiB and 1 GiB, the sizes x86-64 maps
 * with a single pmd or pud.
 */
static inline unsigned int pmaps_huge_entries(unsigned long sz)
{
	if (sz == PMD_SIZE || sz == PUD_SIZE)
		return 1;
#ifdef CONFIG_ARM64
	if (sz == CONT_PTE_SIZE)
		return CONT_PTES;
	if (sz == CONT_PMD_SIZE)
		return CONT_PMDS;
#endif
	return 0;
}

/*
 * pmaps_huge_ptep_get() reads the hugetlb entry *@ptep (the first of its
 * block) of a huge page of @sz bytes at @addr as huge_ptep_get() does.  Where huge_ptep_get() is
 * asm-generic's inline ptep_get(), or is exported, it is that.
 *
 * arm64 defines __HAVE_ARCH_HUGE_PTEP_GET and has its own, out of line
 * in arch/arm64/mm/hugetlbpage.c and not exported (not in 7.3.4 arm64's
 * Module.symvers; modpost then fails on the module).  arm64 maps a hugetlb page of CONT_PTE_SIZE
 * or CONT_PMD_SIZE by CONT_PTES ptes or CONT_PMDS pmds carrying the
 * contiguous bit, and the hardware may set the access flag and the dirty
 * state on any one of them; its huge_ptep_get() therefore ORs young and
 * dirty over the block into the first entry's value.  The same is done
 * here, with the block's entry count taken from the page size
 * (pmaps_huge_entries(); arm64 takes it from where @ptep lies, which is
 * the same thing).  ptep_get()
 * will not do: its gather (contpte_ptep_get(), exported) covers
 * CONT_PTES entries, which for a contiguous pmd block is wrong wherever
 * CONT_PMDS differs (16K pages: 128 against 32).  pmd- and pud-sized
 * pages have no contiguous bit and are read as they are.
 */
#if defined(HAVE_GENERIC_HUGE_PTEP_GET) || defined(HAVE_EXPORT_HUGE_PTEP_GET)
static inline pte_t pmaps_huge_ptep_get(struct mm_struct *mm,
					unsigned long addr, pte_t *ptep,
					unsigned long sz)
{
	return huge_ptep_get(mm, addr, ptep);
}
#elif defined(CONFIG_ARM64)
static inline pte_t pmaps_huge_ptep_get(struct mm_struct *mm,
					unsigned long addr, pte_t *ptep,
					unsigned long sz)
{
	pte_t pte = READ_ONCE(*ptep), entry;
	unsigned int i, ncontig;

	if (!pte_present(pte) || !pte_cont(pte))
		return pte;
	ncontig = pmaps_huge_entries(sz);
	for (i = 0; i < ncontig; i++) {
		entry = READ_ONCE(ptep[i]);
		if (pte_dirty(entry))
			pte = pte_mkdirty(pte);
		if (pte_young(entry))
			pte = pte_mkyoung(pte);
	}
	return pte;
}
#else
#error "pmaps_ext: this architecture's huge_ptep_get() is its own and not exported"
#endif

/*
 * v6.6, "mm: factor out VMA stack and heap checks": the [heap] and [stack]
 * tests /proc/PID/maps uses became helpers.  Before, task_mmu.c open-coded
 * the same comparisons.
 */
#ifndef HAVE_VMA_IS_INITIAL_HEAP
static inline bool vma_is_initial_heap(const struct vm_area_struct *vma)
{
	return vma->vm_start <= vma->vm_mm->brk &&
	       vma->vm_end >= vma->vm_mm->start_brk;
}

static inline bool vma_is_initial_stack(const struct vm_area_struct *vma)
{
	return vma->vm_start <= vma->vm_mm->start_stack &&
	       vma->vm_end >= vma->vm_mm->start_stack;
}
#endif

/*
 * v6.8, "fs: store real path instead of fake path in backing file f_path":
 * /proc/PID/maps shows the user path of overlayfs backing files.  Older
 * kernels have no backing files, so f_path is that path.
 */
#ifndef HAVE_FILE_USER_PATH
static inline const struct path *file_user_path(const struct file *file)
{
	return &file->f_path;
}

static inline const struct inode *file_user_inode(const struct file *file)
{
	return file_inode(file);
}
#endif

/*
 * The mapcount of a range line is what /proc/kpagecount reports for the
 * page (Documentation/pmaps_ext.rst, "Mapcount").
 *
 * v6.15, "mm: CONFIG_NO_PAGE_MAPCOUNT to prepare for not maintain
 * per-page mapcounts in large folios": with that option a large folio
 * keeps no per-page mapcount, and /proc/kpagecount reports the folio's
 * average page mapcount, folio_average_page_mapcount() of mm/internal.h,
 * rebuilt here from the public folio helpers.  It is at least 1 for a
 * mapped folio.
 */
#ifdef CONFIG_NO_PAGE_MAPCOUNT
static inline int pmaps_page_mapcount(struct folio *folio, struct page *page)
{
	int mapcount, entire_mapcount, average;

	if (!folio_test_large(folio))
		return atomic_read(&folio->_mapcount) + 1;
	mapcount = folio_large_mapcount(folio);
	if (mapcount <= 0)
		return 0;
	entire_mapcount = folio_entire_mapcount(folio);
	if (mapcount <= entire_mapcount)
		return entire_mapcount;
	mapcount -= entire_mapcount;
	/* rounded to the nearest integer, but at least 1 */
	average = ((unsigned int)mapcount + folio_large_nr_pages(folio) / 2) >>
		  folio_large_order(folio);
	return max_t(int, average + entire_mapcount, 1);
}
#elif defined(HAVE_PAGE_MAPCOUNT)
/* Before v6.12, the precise per-page mapcount was page_mapcount(). */
static inline int pmaps_page_mapcount(struct folio *folio, struct page *page)
{
	return page_mapcount(page);
}
#else
/*
 * v6.12, "fs/proc: move page_mapcount() to fs/proc/internal.h": the
 * precise per-page mapcount, folio_precise_page_mapcount() there, left
 * the public API.  It is rebuilt here from the folio helpers.
 */
static inline int pmaps_page_mapcount(struct folio *folio, struct page *page)
{
	int mapcount = atomic_read(&page->_mapcount) + 1;

	if (page_mapcount_is_type(mapcount))
		mapcount = 0;
	if (folio_test_large(folio))
		mapcount += folio_entire_mapcount(folio);
	return mapcount;
}
#endif

/*
 * Whether every page of @folio, which a pmd maps whole here, has the same
 * pmaps_page_mapcount(), and pmaps_page_mapped_exclusively() too, so that
 * one page answers for all 512 (a hugetlb folio, only ever mapped whole,
 * always does).
 *
 * Under CONFIG_NO_PAGE_MAPCOUNT (v6.15, above) the count is the folio's,
 * whatever the page.  With per-page counts, a page's count is its own
 * _mapcount (the ptes that map it) plus the folio's entire mapcount (the
 * pmds), and v6.11, "mm: track mapcount of large folios in single value",
 * keeps _large_mapcount, the sum of all of them: __folio_add_rmap() and
 * __folio_remove_rmap() change it with every pmd and with every pte, and
 * a pmd changes no page's _mapcount.  When that sum is the entire
 * mapcount alone, no pte maps any page of the folio, and every page's
 * count is the entire mapcount.  The two reads are not one atomic
 * snapshot, as the 512 reads of the pages are not either.
 *
 * Before v6.11 there is no such sum (and on v6.1 a file THP's pmd mapping
 * is counted in each page's _mapcount), so each page is read.
 */
#ifdef CONFIG_NO_PAGE_MAPCOUNT
static inline bool pmaps_pmd_folio_mapcount_uniform(struct folio *folio)
{
	return true;
}
#elif defined(HAVE_FOLIO_LARGE_MAPCOUNT)
static inline bool pmaps_pmd_folio_mapcount_uniform(struct folio *folio)
{
	return folio_large_mapcount(folio) == folio_entire_mapcount(folio);
}
#else
static inline bool pmaps_pmd_folio_mapcount_uniform(struct folio *folio)
{
	return false;
}
#endif

/*
 * The same for pages of a large folio mapped by ptes: only where no
 * per-page count is kept (CONFIG_NO_PAGE_MAPCOUNT, v6.15); else each
 * page's _mapcount counts the ptes that map that page, in every process.
 */
static inline bool pmaps_pte_folio_mapcount_uniform(struct folio *folio)
{
	return IS_ENABLED(CONFIG_NO_PAGE_MAPCOUNT);
}

/*
 * Whether pagemap sets PM_MMAP_EXCLUSIVE for @page, as
 * __folio_page_mapped_exclusively() in fs/proc/task_mmu.c decides it: the
 * page's precise mapcount is 1 or, under CONFIG_NO_PAGE_MAPCOUNT (v6.15,
 * above), which keeps no per-page count, the folio is not maybe mapped
 * shared.
 */
#ifdef CONFIG_NO_PAGE_MAPCOUNT
static inline bool pmaps_page_mapped_exclusively(struct folio *folio,
						 struct page *page)
{
	return !folio_maybe_mapped_shared(folio);
}
#else
static inline bool pmaps_page_mapped_exclusively(struct folio *folio,
						 struct page *page)
{
	return pmaps_page_mapcount(folio, page) == 1;
}
#endif

/*
 * v6.14, "Pass parent directory inode and expected name to
 * ->d_revalidate()": before, ->d_revalidate() got the dentry alone.
 * PMAPS_D_REVALIDATE(fn) names what goes into dentry_operations for an fn
 * written to the new signature; on older kernels PMAPS_DEFINE_D_REVALIDATE(fn)
 * defines a wrapper that passes the dentry's own name (the callers here
 * never need the directory).
 */
#ifdef HAVE_D_REVALIDATE_DIR
#define PMAPS_D_REVALIDATE(fn)	fn
#define PMAPS_DEFINE_D_REVALIDATE(fn)
#else
#define PMAPS_D_REVALIDATE(fn)	fn##_dentry_only
#define PMAPS_DEFINE_D_REVALIDATE(fn)					\
static int fn##_dentry_only(struct dentry *dentry, unsigned int flags)	\
{									\
	return fn(NULL, &dentry->d_name, dentry, flags);		\
}
#endif

/*
 * v6.17, "new helper: set_default_d_op()": the superblock's default
 * dentry operations are set through a helper, and sb->s_d_op is gone.
 */
#ifndef HAVE_SET_DEFAULT_D_OP
static inline void set_default_d_op(struct super_block *sb,
				    const struct dentry_operations *ops)
{
	sb->s_d_op = ops;
}
#endif

/*
 * v6.18, "fs: rename generic_delete_inode() and generic_drop_inode()":
 * the ->drop_inode that always drops is inode_just_drop().
 */
#ifndef HAVE_INODE_JUST_DROP
static inline int inode_just_drop(struct inode *inode)
{
	return generic_delete_inode(inode);
}
#endif

/*
 * v6.12, "mm: introduce ARCH_SUPPORTS_HUGE_PFNMAP and special bits to
 * pmd/pud": a huge pfn map has the special bit, as special ptes do.
 * Before, only VM_PFNMAP and VM_MIXEDMAP VMAs held huge pfn maps; the walk
 * skips the first and asks pfn_valid() in the second.
 */
#ifndef HAVE_PMD_SPECIAL
static inline bool pmd_special(pmd_t pmd)
{
	return false;
}
#endif

/*
 * Per-VMA read locks for readers (lock_vma_under_rcu(), v6.4) are exported
 * to modules on the 7.x kernels (mm/mmap_lock.c, EXPORT_SYMBOL_GPL); 6.12
 * has them built in but not exported.  Exports cannot be seen by a
 * compile, so Kbuild looks this one up in Module.symvers.  Without it,
 * every record is read under the mmap lock.
 */
#ifdef HAVE_EXPORT_LOCK_VMA_UNDER_RCU
#define PMAPS_HAVE_VMA_LOCKS	1
#define pmaps_vma_trylock	lock_vma_under_rcu
#define pmaps_vma_unlock	vma_end_read
#else
#define PMAPS_HAVE_VMA_LOCKS	0
static inline struct vm_area_struct *
pmaps_vma_trylock(struct mm_struct *mm, unsigned long addr)
{
	return NULL;
}

static inline void pmaps_vma_unlock(struct vm_area_struct *vma)
{
}
#endif

/*
 * v6.4, "ksmbd: remove internal.h include": vfs_path_lookup(), exported
 * long before, was declared in fs/internal.h only.  The export is the
 * same; only its prototype is missing.
 */
#ifndef HAVE_VFS_PATH_LOOKUP_DECL
int vfs_path_lookup(struct dentry *dentry, struct vfsmount *mnt,
		    const char *name, unsigned int flags, struct path *path);
#endif

/*
 * v6.7, "fs: new accessor methods for atime and mtime": inode timestamps
 * are set through helpers.
 */
#ifndef HAVE_SIMPLE_INODE_INIT_TS
static inline void simple_inode_init_ts(struct inode *inode)
{
	struct timespec64 now = current_time(inode);

	inode->i_atime = now;
	inode->i_mtime = now;
	inode->i_ctime = now;
}
#endif

#endif /* PMAPS_EXT_COMPAT_H */
