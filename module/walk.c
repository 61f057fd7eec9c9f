// SPDX-License-Identifier: GPL-2.0
/*
 * The page-table walk behind the range lines.
 *
 * walk_page_range() and vm_normal_page() are not exported to modules, so
 * this descends pgd/p4d/pud/pmd/pte itself with inline helpers, under the
 * mmap read lock taken by the seq_file ->start.  Each PTE table is read
 * under its page-table lock, and a PMD-mapped THP under the pmd lock, so a
 * page's flags and mapcount are read together.
 */
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "compat.h"
#include "pmaps_ext.h"

#ifdef CONFIG_HIGHPTE
#error "PTE tables are mapped with pte_offset_kernel(); HIGHPTE is unsupported"
#endif

enum pmaps_flag_bit {
	PMAPS_F_YOUNG,
	PMAPS_F_REFERENCED,
	PMAPS_F_ACTIVE,
	PMAPS_F_UPTODATE,
	PMAPS_F_PTE_DIRTY,
	PMAPS_F_DIRTY,
	PMAPS_F_WRITEBACK,
	PMAPS_NR_FLAGS
};

/*
 * The flag letters of the text format, indexed by bit, in output order.
 * Documentation/pmaps_ext.rst, userspace/lib/pmaps.c and the patch series
 * must change with this table.
 */
static const char pmaps_flag_letters[PMAPS_NR_FLAGS] = {
	[PMAPS_F_YOUNG]		= 'Y',
	[PMAPS_F_REFERENCED]	= 'R',
	[PMAPS_F_ACTIVE]	= 'A',
	[PMAPS_F_UPTODATE]	= 'U',
	[PMAPS_F_PTE_DIRTY]	= 'P',
	[PMAPS_F_DIRTY]		= 'D',
	[PMAPS_F_WRITEBACK]	= 'W',
};

/* A run of pages that will become one range line. */
struct pmaps_range {
	unsigned long start;		/* address of its first page */
	unsigned long nr_pages;		/* 0: nothing pending */
	unsigned int flags;		/* BIT(PMAPS_F_*) */
	int mapcount;
};

struct pmaps_walk {
	struct seq_file *m;
	struct vm_area_struct *vma;
	struct pmaps_range range;
	unsigned int lines;		/* range lines this record printed */
	unsigned long resume;		/* where the next record starts */
};

/* What a step of the walk asks its caller to do. */
enum pmaps_step {
	PMAPS_CONTINUE,
	PMAPS_RECORD_FULL,		/* stop; walk->resume is set */
	PMAPS_PMD_CHANGED,		/* the pmd changed under us: reread it */
};

/* File VMAs count in file pages, anonymous ones in virtual pages. */
static unsigned long pmaps_page_index(struct vm_area_struct *vma,
				      unsigned long addr)
{
	if (vma->vm_file)
		return linear_page_index(vma, addr);
	return addr >> PAGE_SHIFT;
}

/* The decimal digits of @v, written backwards to end just before @end. */
static char *pmaps_put_dec(char *end, unsigned long long v)
{
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

/*
 * "INDEX\tCOUNT\tFLAGS\tMAPCOUNT\n", built backwards in one buffer and
 * written with one seq_write(): the range line is the hot path of a big
 * text, and one call per field costs more than the formatting itself.
 */
static void pmaps_print_range(struct pmaps_walk *walk)
{
	const struct pmaps_range *range = &walk->range;
	/* three 20-digit numbers, a sign, the letters and four separators */
	char line[3 * 20 + 1 + PMAPS_NR_FLAGS + 4];
	char *end = line + sizeof(line), *p = end;
	int bit;

	*--p = '\n';
	p = pmaps_put_dec(p, range->mapcount < 0 ? -(long long)range->mapcount :
					       range->mapcount);
	if (range->mapcount < 0)
		*--p = '-';
	*--p = '\t';
	for (bit = PMAPS_NR_FLAGS - 1; bit >= 0; bit--)
		*--p = range->flags & BIT(bit) ? pmaps_flag_letters[bit] : '_';
	*--p = '\t';
	p = pmaps_put_dec(p, range->nr_pages);
	*--p = '\t';
	p = pmaps_put_dec(p, pmaps_page_index(walk->vma, range->start));
	seq_write(walk->m, p, end - p);
}

/*
 * The walk reached @addr, which does not continue the pending range: print
 * that range.  Returns false when the record is full, and then the next
 * record starts at @addr, where nothing is pending.
 */
static bool pmaps_end_range(struct pmaps_walk *walk, unsigned long addr)
{
	if (!walk->range.nr_pages)
		return true;
	pmaps_print_range(walk);
	walk->range.nr_pages = 0;
	if (++walk->lines < PMAPS_LINES_PER_RECORD)
		return true;
	walk->resume = addr;
	return false;
}

static bool pmaps_add_page(struct pmaps_walk *walk, unsigned long addr,
			   unsigned int flags, int mapcount)
{
	struct pmaps_range *range = &walk->range;

	if (range->nr_pages &&
	    addr == range->start + (range->nr_pages << PAGE_SHIFT) &&
	    flags == range->flags && mapcount == range->mapcount) {
		range->nr_pages++;
		return true;
	}
	if (!pmaps_end_range(walk, addr))
		return false;
	range->start = addr;
	range->nr_pages = 1;
	range->flags = flags;
	range->mapcount = mapcount;
	return true;
}

static enum pmaps_step pmaps_hole(struct pmaps_walk *walk, unsigned long addr)
{
	return pmaps_end_range(walk, addr) ? PMAPS_CONTINUE : PMAPS_RECORD_FULL;
}

static unsigned int pmaps_folio_flags(struct folio *folio)
{
	unsigned int flags = 0;

	if (folio_test_referenced(folio))
		flags |= BIT(PMAPS_F_REFERENCED);
	if (folio_test_active(folio))
		flags |= BIT(PMAPS_F_ACTIVE);
	if (folio_test_uptodate(folio))
		flags |= BIT(PMAPS_F_UPTODATE);
	if (folio_test_dirty(folio))
		flags |= BIT(PMAPS_F_DIRTY);
	if (folio_test_writeback(folio))
		flags |= BIT(PMAPS_F_WRITEBACK);
	return flags;
}

/*
 * vm_normal_page() for the VMAs walked here, which are never VM_PFNMAP or
 * VM_IO: special ptes (the zero page, pfns inserted into VM_MIXEDMAP, and
 * on x86 before v6.17 the devmap ptes of fsdax) have no normal struct
 * page.  As there, any other present pte maps one; pfn_valid(), which
 * costs more than the rest of a page's visit, is only asked where a
 * driver's VM_MIXEDMAP could break that rule.
 */
static struct page *pmaps_normal_page(struct vm_area_struct *vma, pte_t pte)
{
	unsigned long pfn;

	if (!pte_present(pte) || pte_special(pte))
		return NULL;
	pfn = pte_pfn(pte);
	if (is_zero_pfn(pfn))
		return NULL;
	if ((vma->vm_flags & VM_MIXEDMAP) && !pfn_valid(pfn))
		return NULL;
	return pfn_to_page(pfn);
}

/*
 * How many entries, of the at most @max from @table on, are zero.  A
 * sparse VMA's tables are mostly zero (pte_none(), pmd_none()), and
 * memchr_inv() skips them a word at a time instead of entry by entry;
 * an entry that is not zero is then read properly by the caller.
 */
static unsigned long pmaps_zero_entries(const void *table, unsigned long max,
					size_t entry_size)
{
	const char *nonzero = memchr_inv(table, 0, max * entry_size);

	if (!nonzero)
		return max;
	return (nonzero - (const char *)table) / entry_size;
}

/*
 * Since v6.6 ("mm/khugepaged: retract_page_tables() without mmap or vma
 * lock") a PTE table can be freed by RCU under the mmap read lock, and
 * since v6.14 (CONFIG_PT_RECLAIM) by MADV_DONTNEED too.  So, exactly as
 * ___pte_offset_map() and __pte_offset_map_lock() do (neither is
 * exported): enter RCU, then read the pmd, lock the table it points to,
 * and check the pmd still points there.  A pmd read before rcu_read_lock()
 * could name a table already on its way to being freed.
 */
static enum pmaps_step pmaps_walk_ptes(struct pmaps_walk *walk, pmd_t *pmdp,
				       unsigned long addr, unsigned long end)
{
	struct mm_struct *mm = walk->vma->vm_mm;
	enum pmaps_step step = PMAPS_CONTINUE;
	spinlock_t *ptl;	/* the PTE table's lock */
	unsigned long nr;
	pte_t *ptep;
	pmd_t pmd;

	rcu_read_lock();
	pmd = pmdp_get_lockless(pmdp);
	if (pmd_none(pmd) || !pmd_present(pmd) || pmd_trans_huge(pmd) ||
	    pmd_bad(pmd)) {
		/* No longer a PTE table: the caller reads the pmd again. */
		rcu_read_unlock();
		return PMAPS_PMD_CHANGED;
	}
	ptl = pte_lockptr(mm, &pmd);
	spin_lock(ptl);
	if (!pmd_same(pmd, pmdp_get_lockless(pmdp))) {
		step = PMAPS_PMD_CHANGED;
		goto unlock;
	}

	ptep = pte_offset_kernel(&pmd, addr);
	while (addr != end) {
		pte_t pte = ptep_get(ptep);
		struct page *page;
		struct folio *folio;
		unsigned int flags;
		bool more;

		if (pte_none(pte)) {
			/*
			 * No pte is populated without the lock held here.  A
			 * lone hole (every other page mapped) is not worth a
			 * scan; a run of them is.
			 */
			nr = 1;
			if (addr + PAGE_SIZE != end && pte_none(ptep_get(ptep + 1)))
				nr += pmaps_zero_entries(ptep + 1,
							 ((end - addr) >> PAGE_SHIFT) - 1,
							 sizeof(*ptep));
			if (!pmaps_end_range(walk, addr)) {
				step = PMAPS_RECORD_FULL;
				break;
			}
			addr += nr << PAGE_SHIFT;
			ptep += nr;
			continue;
		}
		page = pmaps_normal_page(walk->vma, pte);
		if (!page) {
			more = pmaps_end_range(walk, addr);
		} else {
			folio = page_folio(page);
			flags = pmaps_folio_flags(folio);
			if (pte_young(pte))
				flags |= BIT(PMAPS_F_YOUNG);
			if (pte_dirty(pte))
				flags |= BIT(PMAPS_F_PTE_DIRTY);
			more = pmaps_add_page(walk, addr, flags,
					      pmaps_page_mapcount(folio, page));
		}
		if (!more) {
			step = PMAPS_RECORD_FULL;
			break;
		}
		addr += PAGE_SIZE;
		ptep++;
	}
unlock:
	spin_unlock(ptl);
	rcu_read_unlock();
	return step;
}

/* A PMD-mapped THP: its pages share the folio flags and pmd young/dirty. */
static enum pmaps_step pmaps_walk_huge_pmd(struct pmaps_walk *walk,
					   pmd_t *pmdp, unsigned long addr,
					   unsigned long end)
{
	struct vm_area_struct *vma = walk->vma;
	enum pmaps_step step = PMAPS_CONTINUE;
	struct folio *folio;
	unsigned int flags;
	unsigned long nr;
	spinlock_t *ptl;	/* the lock of the pmd's table */
	pmd_t pmd;

	ptl = pmd_lock(vma->vm_mm, pmdp);
	pmd = *pmdp;
	if (!pmd_trans_huge(pmd)) {
		step = PMAPS_PMD_CHANGED;
		goto unlock;
	}
	/*
	 * A huge pfn map (a driver's pfn inserted at pmd level) has no struct
	 * page to read, as vm_normal_page_pmd() says.
	 */
	if (pmd_special(pmd) ||
	    ((vma->vm_flags & VM_MIXEDMAP) && !pfn_valid(pmd_pfn(pmd)))) {
		step = pmaps_hole(walk, addr);
		goto unlock;
	}

	folio = page_folio(pmd_page(pmd));
	/*
	 * huge_zero_pfn is not exported.  The huge zero folio is the one
	 * folio mapped here that is neither anonymous nor in a file.
	 */
	if (!folio_test_anon(folio) && !folio->mapping) {
		step = pmaps_hole(walk, addr);
		goto unlock;
	}

	flags = pmaps_folio_flags(folio);
	if (pmd_young(pmd))
		flags |= BIT(PMAPS_F_YOUNG);
	if (pmd_dirty(pmd))
		flags |= BIT(PMAPS_F_PTE_DIRTY);
	nr = (addr & ~PMD_MASK) >> PAGE_SHIFT;
	for (; addr != end; addr += PAGE_SIZE, nr++) {
		struct page *page = folio_page(folio, nr);

		if (!pmaps_add_page(walk, addr, flags,
				    pmaps_page_mapcount(folio, page))) {
			step = PMAPS_RECORD_FULL;
			break;
		}
	}
unlock:
	spin_unlock(ptl);
	return step;
}

static enum pmaps_step pmaps_walk_pmds(struct pmaps_walk *walk, pud_t *pudp,
				       unsigned long addr, unsigned long end)
{
	pmd_t *pmdp = pmd_offset(pudp, addr);
	enum pmaps_step step;
	unsigned long next, nr;
	pmd_t pmd;

	do {
		pmd = pmdp_get_lockless(pmdp);
		if (pmd_none(pmd)) {
			/*
			 * Skip the run of empty pmds whole.  The scan reads
			 * without the lock, as pmdp_get_lockless() does: a
			 * pmd populated meanwhile is as if read before.
			 */
			nr = ((end - 1) >> PMD_SHIFT) - (addr >> PMD_SHIFT) + 1;
			nr = max(pmaps_zero_entries(pmdp, nr, sizeof(*pmdp)),
				 1UL);
			if (pmaps_hole(walk, addr) == PMAPS_RECORD_FULL)
				return PMAPS_RECORD_FULL;
			next = ((addr >> PMD_SHIFT) + nr) << PMD_SHIFT;
			pmdp += nr;
			continue;
		}
		next = pmd_addr_end(addr, end);
		for (;;) {
			/*
			 * Not present: THP migration entries, which are not
			 * read.  Bad: also a devmap pmd (fsdax before v6.17),
			 * which x86 never counted as pmd_trans_huge().
			 */
			if (pmd_none(pmd) || !pmd_present(pmd))
				step = pmaps_hole(walk, addr);
			else if (pmd_trans_huge(pmd))
				step = pmaps_walk_huge_pmd(walk, pmdp, addr, next);
			else if (pmd_bad(pmd))
				step = pmaps_hole(walk, addr);
			else
				step = pmaps_walk_ptes(walk, pmdp, addr, next);
			if (step != PMAPS_PMD_CHANGED)
				break;
			pmd = pmdp_get_lockless(pmdp);
		}
		if (step == PMAPS_RECORD_FULL)
			return step;
		/* Per populated pmd, as fs/proc/task_mmu.c's pmd_entry does. */
		cond_resched();
		pmdp++;
	} while (addr = min(next, end), addr != end);
	return PMAPS_CONTINUE;
}

/*
 * Empty upper levels are skipped whole, so a mostly empty 1 TiB VMA costs
 * what its populated tables cost.  A huge PUD (DAX) is "bad" on x86 and is
 * skipped as well.
 */
static enum pmaps_step pmaps_walk_puds(struct pmaps_walk *walk, p4d_t *p4dp,
				       unsigned long addr, unsigned long end)
{
	pud_t *pudp = pud_offset(p4dp, addr);
	enum pmaps_step step;
	unsigned long next;
	pud_t pud;

	do {
		next = pud_addr_end(addr, end);
		pud = pudp_get(pudp);
		if (pud_none(pud) || pud_bad(pud))
			step = pmaps_hole(walk, addr);
		else
			step = pmaps_walk_pmds(walk, pudp, addr, next);
		if (step == PMAPS_RECORD_FULL)
			return step;
	} while (pudp++, addr = next, addr != end);
	return PMAPS_CONTINUE;
}

static enum pmaps_step pmaps_walk_p4ds(struct pmaps_walk *walk, pgd_t *pgdp,
				       unsigned long addr, unsigned long end)
{
	p4d_t *p4dp = p4d_offset(pgdp, addr);
	enum pmaps_step step;
	unsigned long next;
	p4d_t p4d;

	do {
		next = p4d_addr_end(addr, end);
		p4d = p4dp_get(p4dp);
		if (p4d_none(p4d) || p4d_bad(p4d))
			step = pmaps_hole(walk, addr);
		else
			step = pmaps_walk_puds(walk, p4dp, addr, next);
		if (step == PMAPS_RECORD_FULL)
			return step;
	} while (p4dp++, addr = next, addr != end);
	return PMAPS_CONTINUE;
}

unsigned long pmaps_show_ranges(struct seq_file *m, struct vm_area_struct *vma,
				unsigned long addr)
{
	struct pmaps_walk walk = { .m = m, .vma = vma, .resume = vma->vm_end };
	unsigned long end = vma->vm_end;
	pgd_t *pgdp;
	unsigned long next;
	pgd_t pgd;

	/* No normal pages (PFN and I/O maps), or a walk of its own (hugetlb). */
	if (vma->vm_flags & (VM_PFNMAP | VM_IO | VM_HUGETLB))
		return end;

	pgdp = pgd_offset(vma->vm_mm, addr);
	do {
		next = pgd_addr_end(addr, end);
		pgd = pgdp_get(pgdp);
		if (pgd_none(pgd) || pgd_bad(pgd)) {
			if (!pmaps_end_range(&walk, addr))
				return walk.resume;
		} else if (pmaps_walk_p4ds(&walk, pgdp, addr, next) ==
			   PMAPS_RECORD_FULL) {
			return walk.resume;
		}
	} while (pgdp++, addr = next, addr != end);

	pmaps_end_range(&walk, end);
	return end;
}
