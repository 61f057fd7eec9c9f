// SPDX-License-Identifier: GPL-2.0
/*
 * The page-table walk behind the range lines.
 *
 * walk_page_range() and vm_normal_page() are not exported to modules, so
 * this descends pgd/p4d/pud/pmd/pte itself with inline helpers, under the
 * mmap read lock taken by the seq_file ->start.  Each PTE table is read
 * under its page-table lock, a PMD-mapped THP under the pmd lock, and a
 * hugetlb entry under huge_pte_lock(), so a page's flags and mapcount are
 * read together.
 */
#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/limits.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
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

/*
 * The letters that are the same in every process mapping the page, and so
 * tell how other processes use it.  Y and P are this mapping's own pte
 * bits, and U says only that the contents are valid.
 */
#define PMAPS_SHARED_STATE	(BIT(PMAPS_F_REFERENCED) | BIT(PMAPS_F_ACTIVE) | \
				 BIT(PMAPS_F_DIRTY) | BIT(PMAPS_F_WRITEBACK))
/* The letters that tell when the page was last used (with AGE). */
#define PMAPS_ACCESS_STATE	(BIT(PMAPS_F_YOUNG) | BIT(PMAPS_F_REFERENCED) | \
				 BIT(PMAPS_F_ACTIVE))
/* Above the letters' bits: the letter is withheld and printed as '?'. */
#define PMAPS_WITHHELD(flags)	((flags) << PMAPS_NR_FLAGS)
/* The mapcount of a withheld page mapped more than once, printed '?'. */
#define PMAPS_MAPCOUNT_WITHHELD	INT_MIN

/* The folio size of a withheld page, printed '?'. */
#define PMAPS_KB_WITHHELD	0

/*
 * AGE (PMAPS_FIELDS_NUMA only) is kept in the flags, above the withheld
 * bits, as age + 1: it is folio state read with the letters, and it must
 * split ranges as they do.  0 is unknown, printed '?'.
 */
#define PMAPS_AGE_SHIFT		(2 * PMAPS_NR_FLAGS)
#define PMAPS_AGE(age)		(((age) + 1U) << PMAPS_AGE_SHIFT)
#define PMAPS_AGE_MASK		(7U << PMAPS_AGE_SHIFT)
#define PMAPS_AGE_OF(flags)	\
	((int)(((flags) & PMAPS_AGE_MASK) >> PMAPS_AGE_SHIFT) - 1)

/*
 * struct pmaps_range (pmaps_ext.h): flags holds BIT(PMAPS_F_*),
 * PMAPS_WITHHELD() and PMAPS_AGE(); mapcount may be PMAPS_MAPCOUNT_WITHHELD
 * and kb PMAPS_KB_WITHHELD.
 */

struct pmaps_walk {
	struct seq_file *m;
	struct vm_area_struct *vma;
	unsigned int withhold;		/* PMAPS_WITHHOLD_*, see pmaps_withheld() */
	bool numa;			/* print NODE, KB and AGE too */
	struct pmaps_range range;
	unsigned int lines;		/* range lines this record printed */
	unsigned long budget;		/* pages left to walk under the lock */
	unsigned long resume;		/* where the next record starts */
	bool pending;			/* stopped for the budget: range pends */
};

/* What a step of the walk asks its caller to do. */
enum pmaps_step {
	PMAPS_CONTINUE,
	PMAPS_RECORD_FULL,		/* stop; walk->resume is set */
	PMAPS_PMD_CHANGED,		/* the pmd changed under us: reread it */
};

/*
 * File VMAs count in file pages, anonymous ones in virtual pages.  Base
 * pages in both, whatever the VMA: before v6.7 ("mm/filemap: remove
 * hugetlb special casing in filemap.c") linear_page_index() counted a
 * hugetlb VMA in huge pages, so the offset is computed here as the
 * documentation gives it.
 */
static unsigned long pmaps_page_index(struct vm_area_struct *vma,
				      unsigned long addr)
{
	if (vma->vm_file)
		return vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
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
 * "INDEX\tCOUNT\tFLAGS\tMAPCOUNT\n", or with PMAPS_FIELDS_NUMA
 * "INDEX\tCOUNT\tFLAGS\tMAPCOUNT\tNODE\tKB\tAGE\n", built backwards in one
 * buffer and written with one seq_write(): the range line is the hot path
 * of a big text, and one call per field costs more than the formatting
 * itself.
 */
void pmaps_show_range(struct seq_file *m, const struct pmaps_range *range,
		      unsigned int fields)
{
	/* six 20-digit numbers, a sign, the letters and seven separators */
	char line[6 * 20 + 1 + PMAPS_NR_FLAGS + 7];
	char *end = line + sizeof(line), *p = end;
	int bit, age;

	if (pmaps_text_off())
		return;
	*--p = '\n';
	if (fields & PMAPS_FIELDS_NUMA) {
		age = PMAPS_AGE_OF(range->flags);
		if (age < 0)
			*--p = '?';
		else
			p = pmaps_put_dec(p, age);
		*--p = '\t';
		if (range->kb == PMAPS_KB_WITHHELD)
			*--p = '?';
		else
			p = pmaps_put_dec(p, range->kb);
		*--p = '\t';
		p = pmaps_put_dec(p, range->node);
		*--p = '\t';
	}
	if (range->mapcount == PMAPS_MAPCOUNT_WITHHELD) {
		*--p = '?';
	} else {
		p = pmaps_put_dec(p, range->mapcount < 0 ?
				     -(long long)range->mapcount :
				     range->mapcount);
		if (range->mapcount < 0)
			*--p = '-';
	}
	*--p = '\t';
	for (bit = PMAPS_NR_FLAGS - 1; bit >= 0; bit--) {
		if (range->flags & PMAPS_WITHHELD(BIT(bit)))
			*--p = '?';
		else if (range->flags & BIT(bit))
			*--p = pmaps_flag_letters[bit];
		else
			*--p = '_';
	}
	*--p = '\t';
	p = pmaps_put_dec(p, range->nr_pages);
	*--p = '\t';
	p = pmaps_put_dec(p, range->index);
	seq_write(m, p, end - p);
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
	pmaps_show_range(walk->m, &walk->range,
			 walk->numa ? PMAPS_FIELDS_NUMA : 0);
	walk->range.nr_pages = 0;
	if (++walk->lines < PMAPS_LINES_PER_RECORD)
		return true;
	walk->resume = addr;
	return false;
}

/*
 * A page whose shared state this reader may not see, for a reader who may
 * not read /proc/kpageflags: a page-cache page (or a page of a VMA without
 * a file, such as [vdso]) in a VMA that fails mincore()'s rule, and a KSM
 * page anywhere.  A KSM page is mapped by every process, of any user,
 * that holds the same bytes: its mapcount would tell how many do, the
 * deduplication side channel, and its R, A, D and W how they use it.  Any
 * other anonymous folio, a copy-on-write copy in a private file mapping
 * included, shows no more than anonymous VMAs show.
 */
static bool pmaps_withheld(const struct pmaps_walk *walk, struct folio *folio)
{
	if (folio_test_anon(folio))
		return (walk->withhold & PMAPS_WITHHOLD_KSM) &&
		       folio_test_ksm(folio);
	return walk->withhold & PMAPS_WITHHOLD_PAGE_CACHE;
}

/*
 * @nr pages of @folio from @addr on, all alike.  NODE and KB are read
 * here, under the same page-table lock as the flags, which keeps the
 * folio from being split, freed or migrated meanwhile.  NODE is shown to
 * every reader, as /proc/PID/numa_maps shows it under the same
 * PTRACE_MODE_READ check; the size of a withheld page-cache folio is
 * withheld with its state, as only /proc/kpageflags tells it otherwise.
 */
static bool pmaps_add_pages(struct pmaps_walk *walk, unsigned long addr,
			    unsigned long nr, struct folio *folio,
			    unsigned int flags, int mapcount)
{
	struct pmaps_range *range = &walk->range;
	unsigned long kb = 0;
	int node = 0;

	if (walk->numa) {
		node = folio_nid(folio);
		kb = pmaps_withheld(walk, folio) ? PMAPS_KB_WITHHELD :
		     folio_size(folio) >> 10;
	}
	if (range->nr_pages &&
	    addr == range->start + (range->nr_pages << PAGE_SHIFT) &&
	    flags == range->flags && mapcount == range->mapcount &&
	    node == range->node && kb == range->kb) {
		range->nr_pages += nr;
		return true;
	}
	if (!pmaps_end_range(walk, addr))
		return false;
	range->start = addr;
	range->index = pmaps_page_index(walk->vma, addr);
	range->nr_pages = nr;
	range->flags = flags;
	range->mapcount = mapcount;
	range->node = node;
	range->kb = kb;
	return true;
}

static enum pmaps_step pmaps_hole(struct pmaps_walk *walk, unsigned long addr)
{
	return pmaps_end_range(walk, addr) ? PMAPS_CONTINUE : PMAPS_RECORD_FULL;
}

/*
 * The walk went through table entries up to @next, worth @nr pages of the
 * budget: a populated entry the pages it maps, an empty one a page, what
 * reading it costs beside them.  Returns true when that spent the pages
 * of this hold of the lock: the record then stops at @next, a table
 * boundary, and the range pending there is left to the next record
 * instead of being printed, so the lines are the same whether or not the
 * lock was dropped between.  Counting the empty entries bounds a hold
 * over page tables that map nothing (what MADV_DONTNEED of THPs leaves).
 */
static bool pmaps_spend(struct pmaps_walk *walk, unsigned long nr,
			unsigned long next)
{
	if (walk->budget > nr) {
		walk->budget -= nr;
		return false;
	}
	walk->budget = 0;
	if (next == walk->vma->vm_end)
		return false;
	walk->resume = next;
	walk->pending = true;
	return true;
}

#ifdef CONFIG_LRU_GEN
/*
 * The lruvec of a folio on an LRU list, as folio_lruvec() finds it, or
 * NULL.  Not folio_lruvec() itself, though 7.3 exports the root_mem_cgroup
 * it falls back on (6.1 and 6.12 do not): it may write lruvec->pgdat, and
 * warns on a folio without a memcg; a charged folio always has one.  Nor
 * lru_gen_is_active(), which reads max_seq again: A and AGE come from one
 * read (pmaps_folio_lru_state()).  Call under RCU, which keeps the memcg
 * alive (folio_lruvec()'s rule); the page-table lock keeps the folio.
 */
static struct lruvec *pmaps_folio_lruvec(struct folio *folio)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg;

	if (!mem_cgroup_disabled()) {
		memcg = folio_memcg(folio);
		return memcg ? &memcg->nodeinfo[folio_nid(folio)]->lruvec :
		       NULL;
	}
#endif
	return &folio_pgdat(folio)->__lruvec;
}

/*
 * A and AGE.  A folio on a multi-gen LRU list keeps its generation in
 * folio->flags and no PG_active.  The kernel counts it as active (in
 * /proc/meminfo's Active(anon) and Active(file), lru_gen_update_size())
 * while that generation is one of the two youngest of its lruvec,
 * lru_gen_is_active(): gen is max_seq's or max_seq - 1's.  AGE is how
 * many generations younger than the folio's the youngest is, from the
 * same read of max_seq, so that A is AGE < MIN_NR_GENS on every line:
 * the generations alive span at most MAX_NR_GENS sequence numbers up to
 * max_seq, so the distance between gen numbers modulo MAX_NR_GENS is the
 * distance in sequence numbers.  Both are read without the LRU lock, as
 * folio_update_gen() and lru_gen_look_around() read them; aging may move
 * either a moment later, as it may after any read.  Off the lists (in a
 * per-CPU batch, or isolated) a folio carries PG_active instead, which
 * lru_gen_add_folio() and lru_gen_del_folio() translate to and from a
 * generation, and has no AGE.  Call under RCU, for the lruvec: the pte
 * walk holds it across a whole table, as an RCU section of its own for
 * each folio cost a third of the module's time on dense memory (6.12,
 * 512 MiB: 20.9 against 14.5 ms).
 */
static unsigned int pmaps_folio_lru_state(struct folio *folio)
{
	unsigned long max_seq;
	int gen = folio_lru_gen(folio), age;
	struct lruvec *lruvec;

	BUILD_BUG_ON(PMAPS_AGE(MAX_NR_GENS - 1) > PMAPS_AGE_MASK);
	if (gen < 0)
		return folio_test_active(folio) ? BIT(PMAPS_F_ACTIVE) : 0;
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "the lruvec is read under RCU");
	lruvec = pmaps_folio_lruvec(folio);
	/*
	 * The generation before max_seq: aging gives a folio the generation
	 * of a max_seq it has read, so max_seq read after is at least that
	 * one.  Reordered (arm64 may), a folio just moved to the youngest
	 * generation could be read against the max_seq before and show age
	 * 3 without A.
	 */
	smp_rmb();
	max_seq = lruvec ? READ_ONCE(lruvec->lrugen.max_seq) : 0;
	if (!lruvec)
		return PMAPS_WITHHELD(BIT(PMAPS_F_ACTIVE));
	age = (lru_gen_from_seq(max_seq) - gen + MAX_NR_GENS) % MAX_NR_GENS;
	return PMAPS_AGE(age) | (age < MIN_NR_GENS ? BIT(PMAPS_F_ACTIVE) : 0);
}
#else
/* The classic LRU has two lists and no ages. */
static unsigned int pmaps_folio_lru_state(struct folio *folio)
{
	return folio_test_active(folio) ? BIT(PMAPS_F_ACTIVE) : 0;
}
#endif /* CONFIG_LRU_GEN */

/*
 * The folio's letters, and with the NUMA fields its AGE.  A withheld
 * page's AGE is withheld with its A.  Y, a pte bit, is added by
 * pmaps_pte_flags().  Call under RCU.
 */
static unsigned int pmaps_folio_flags(const struct pmaps_walk *walk,
				      struct folio *folio)
{
	unsigned int flags = pmaps_folio_lru_state(folio);

	if (!walk->numa || pmaps_withheld(walk, folio) ||
	    (walk->withhold & PMAPS_WITHHOLD_ACCESS))
		flags &= ~PMAPS_AGE_MASK;
	if (folio_test_referenced(folio))
		flags |= BIT(PMAPS_F_REFERENCED);
	if (folio_test_uptodate(folio))
		flags |= BIT(PMAPS_F_UPTODATE);
	if (folio_test_dirty(folio))
		flags |= BIT(PMAPS_F_DIRTY);
	if (folio_test_writeback(folio))
		flags |= BIT(PMAPS_F_WRITEBACK);
	if (pmaps_withheld(walk, folio))
		flags = (flags & ~PMAPS_SHARED_STATE) |
			PMAPS_WITHHELD(PMAPS_SHARED_STATE);
	if (walk->withhold & PMAPS_WITHHOLD_ACCESS)
		flags = (flags & ~PMAPS_ACCESS_STATE) |
			PMAPS_WITHHELD(PMAPS_ACCESS_STATE);
	return flags;
}

/*
 * Y and P, from the pte (or pmd, or hugetlb entry) that maps the page: Y
 * unless the access state is withheld, so that it cannot split a range.
 */
static unsigned int pmaps_pte_flags(const struct pmaps_walk *walk,
				    bool young, bool dirty)
{
	unsigned int flags = dirty ? BIT(PMAPS_F_PTE_DIRTY) : 0;

	if (young && !(walk->withhold & PMAPS_WITHHOLD_ACCESS))
		flags |= BIT(PMAPS_F_YOUNG);
	return flags;
}

/*
 * The mapcount of @page as the reader may see it: a withheld page shows 1
 * where pagemap would set PM_MMAP_EXCLUSIVE, which tells anyone that much,
 * and no count otherwise.
 */
static int pmaps_mapcount(const struct pmaps_walk *walk, struct folio *folio,
			  struct page *page)
{
	if (!pmaps_withheld(walk, folio))
		return pmaps_page_mapcount(folio, page);
	return pmaps_page_mapped_exclusively(folio, page) ?
	       1 : PMAPS_MAPCOUNT_WITHHELD;
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
 * The pages of @folio that the ptes from @ptep on map in order, @page (the
 * page of @pte, the first) included, with at most @max ptes: as
 * folio_pte_batch() finds them for fork and zap, each pte read with
 * ptep_get().  The pages are read together, the folio's state once.
 * Returns how many were added; *@more is false when the record filled up
 * on the next one.
 */
static unsigned long pmaps_walk_folio_ptes(struct pmaps_walk *walk,
					   pte_t *ptep, pte_t pte,
					   unsigned long addr, unsigned long max,
					   struct folio *folio,
					   struct page *page, bool *more)
{
	unsigned int folio_flags = pmaps_folio_flags(walk, folio), flags;
	unsigned long pfn = pte_pfn(pte), nr = 0, run = 0, run_addr = addr;
	unsigned long idx = folio_page_idx(folio, page);
	unsigned int run_flags = 0;
	int mapcount = 0, run_mapcount = 0;
	bool uniform;

	max = min(max, folio_nr_pages(folio) - idx);
	uniform = max > 1 && pmaps_pte_folio_mapcount_uniform(folio);
	if (uniform)
		mapcount = pmaps_mapcount(walk, folio, page);

	*more = true;
	for (;;) {
		flags = folio_flags;
		flags |= pmaps_pte_flags(walk, pte_young(pte), pte_dirty(pte));
		if (!uniform)
			mapcount = pmaps_mapcount(walk, folio,
						  folio_page(folio, idx + nr));
		/* Alike pages go to the range in one step. */
		if (run && (flags != run_flags || mapcount != run_mapcount)) {
			if (!pmaps_add_pages(walk, run_addr, run, folio,
					     run_flags, run_mapcount)) {
				*more = false;
				return nr - run;
			}
			run = 0;
		}
		if (!run) {
			run_addr = addr + (nr << PAGE_SHIFT);
			run_flags = flags;
			run_mapcount = mapcount;
		}
		run++;
		if (++nr == max)
			break;
		pte = ptep_get(ptep + nr);
		if (!pte_present(pte) || pte_special(pte) ||
		    pte_pfn(pte) != pfn + nr)
			break;
	}
	if (!pmaps_add_pages(walk, run_addr, run, folio, run_flags,
			     run_mapcount)) {
		*more = false;
		return nr - run;
	}
	return nr;
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
		struct page *page = NULL;
		bool more;

		nr = 1;
		if (!pte_none(pte))
			page = pmaps_normal_page(walk->vma, pte);
		if (page) {
			nr = pmaps_walk_folio_ptes(walk, ptep, pte, addr,
						   (end - addr) >> PAGE_SHIFT,
						   page_folio(page), page,
						   &more);
		} else {
			/* No pte is populated without the lock held here. */
			while (pte_none(pte) && addr + (nr << PAGE_SHIFT) != end &&
			       pte_none(ptep_get(ptep + nr)))
				nr++;
			more = pmaps_end_range(walk, addr);
		}
		if (!more) {
			step = PMAPS_RECORD_FULL;
			break;
		}
		addr += nr << PAGE_SHIFT;
		ptep += nr;
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
	 * folio mapped here that is neither anonymous, nor in a file, nor
	 * device memory: fs/dax.c clears the mapping of a shared (reflinked)
	 * fsdax folio, which since v6.17 is mapped by a pmd like this one.
	 * Where the kernel marks the huge zero pmd special, pmd_special()
	 * above caught it already.
	 */
	if (!folio_test_anon(folio) && !folio->mapping &&
	    !folio_is_zone_device(folio)) {
		step = pmaps_hole(walk, addr);
		goto unlock;
	}

	rcu_read_lock();
	flags = pmaps_folio_flags(walk, folio);
	rcu_read_unlock();
	flags |= pmaps_pte_flags(walk, pmd_young(pmd), pmd_dirty(pmd));
	nr = (addr & ~PMD_MASK) >> PAGE_SHIFT;
	/* One page answers for all where it provably may. */
	if (pmaps_pmd_folio_mapcount_uniform(folio)) {
		if (!pmaps_add_pages(walk, addr, (end - addr) >> PAGE_SHIFT,
				     folio, flags,
				     pmaps_mapcount(walk, folio,
						    folio_page(folio, nr))))
			step = PMAPS_RECORD_FULL;
		goto unlock;
	}
	for (; addr != end; addr += PAGE_SIZE, nr++) {
		struct page *page = folio_page(folio, nr);

		if (!pmaps_add_pages(walk, addr, 1, folio, flags,
				     pmaps_mapcount(walk, folio, page))) {
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
	unsigned long next, nr, max;
	pmd_t pmd;

	do {
		pmd = pmdp_get_lockless(pmdp);
		if (pmd_none(pmd)) {
			/*
			 * Skip the run of empty pmds whole, read without the
			 * lock: a pmd populated meanwhile is as if read before.
			 */
			max = ((end - 1) >> PMD_SHIFT) - (addr >> PMD_SHIFT) + 1;
			for (nr = 1; nr < max; nr++)
				if (!pmd_none(pmdp_get_lockless(pmdp + nr)))
					break;
			if (pmaps_hole(walk, addr) == PMAPS_RECORD_FULL)
				return PMAPS_RECORD_FULL;
			next = ((addr >> PMD_SHIFT) + nr) << PMD_SHIFT;
			if (pmaps_spend(walk, nr, min(next, end)))
				return PMAPS_RECORD_FULL;
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
		if (step == PMAPS_RECORD_FULL ||
		    pmaps_spend(walk, (min(next, end) - addr) >> PAGE_SHIFT,
				min(next, end)))
			return PMAPS_RECORD_FULL;
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

#ifdef CONFIG_HUGETLB_PAGE
/*
 * hugetlb VMAs.  A hugetlb folio is mapped whole, by one entry that
 * hugetlb calls a pte: on x86-64 the pmd of a 2 MiB page, the pud of a
 * 1 GiB page; or, on arm64, by a block of contiguous ptes or pmds
 * (pmaps_huge_entries(), module/compat.h), whose first entry stands for
 * the page.  huge_pte_offset(), hugetlb_walk() and walk_page_range()
 * are not exported, so the entries are found as huge_pte_offset() finds
 * them, and each is read under huge_pte_lock() as huge_ptep_get() reads
 * it (pmaps_huge_ptep_get(), module/compat.h), as pagemap_hugetlb_range()
 * in fs/proc/task_mmu.c does.
 */

/*
 * The (first) entry of the huge page at @addr, as huge_pte_offset() finds
 * it.  In *next the end (at most @end) of the table that holds it: the
 * entries of the huge pages up to there follow it.  NULL when a table
 * above it is missing; *next is then the end of what that table would map.
 */
static pte_t *pmaps_huge_pte_offset(struct mm_struct *mm, unsigned long addr,
				    unsigned long sz, unsigned long end,
				    unsigned long *next)
{
	unsigned long start = addr & ~(sz - 1);
	pgd_t *pgdp = pgd_offset(mm, addr);
	p4d_t *p4dp;
	pud_t *pudp;
	pud_t pud;
	pmd_t pmd;

	*next = pgd_addr_end(addr, end);
	if (!pgd_present(pgdp_get(pgdp)))
		return NULL;
	p4dp = p4d_offset(pgdp, addr);
	*next = p4d_addr_end(addr, end);
	if (!p4d_present(p4dp_get(p4dp)))
		return NULL;
	pudp = pud_offset(p4dp, addr);
	if (sz == PUD_SIZE)
		return (pte_t *)pudp;
	*next = pud_addr_end(addr, end);
	/* One read: the pmd table is found from the pud value checked. */
	pud = pudp_get(pudp);
	if (!pud_present(pud))
		return NULL;
	if (sz >= PMD_SIZE)
		return (pte_t *)pmd_offset(&pud, start);
	/*
	 * A block of contiguous ptes, in a pte table that hugetlb frees
	 * only with the VMA's page tables (free_pgtables()), after the VMA
	 * is gone: the mmap or VMA lock held keeps it.
	 */
	*next = pmd_addr_end(addr, end);
	pmd = pmdp_get_lockless(pmd_offset(&pud, addr));
	if (!pmd_present(pmd) || pmd_leaf(pmd))
		return NULL;
	return pte_offset_kernel(&pmd, start);
}

/* The huge page mapped by *@ptep; [@addr, @end) lies inside it. */
static enum pmaps_step pmaps_walk_huge_pte(struct pmaps_walk *walk,
					   struct hstate *h, pte_t *ptep,
					   unsigned long addr, unsigned long end)
{
	struct mm_struct *mm = walk->vma->vm_mm;
	enum pmaps_step step = PMAPS_CONTINUE;
	struct folio *folio;
	struct page *page;
	unsigned int flags;
	spinlock_t *ptl;	/* the lock of the entry's table */
	int mapcount;
	pte_t pte;

	ptl = huge_pte_lock(h, mm, ptep);
	pte = pmaps_huge_ptep_get(mm, addr, ptep, huge_page_size(h));
	/* Not present: migration and hwpoison entries, and uffd markers. */
	if (!pte_present(pte)) {
		step = pmaps_hole(walk, addr);
		goto unlock;
	}

	folio = page_folio(pte_page(pte));
	rcu_read_lock();
	flags = pmaps_folio_flags(walk, folio);
	rcu_read_unlock();
	flags |= pmaps_pte_flags(walk, pte_young(pte), huge_pte_dirty(pte));
	/*
	 * The folio is only ever mapped whole, by entries like this one, so
	 * every page of it has the same mapcount: the entire mapcount, on
	 * each kernel's kpagecount.  One page answers for all, which keeps a
	 * 1 GiB page from costing 262144 struct page reads under the lock.
	 */
	page = folio_page(folio, (addr & ~huge_page_mask(h)) >> PAGE_SHIFT);
	mapcount = pmaps_page_mapcount(folio, page);
	/*
	 * Withheld, it shows 1 only where pagemap_hugetlb_range() sets
	 * PM_MMAP_EXCLUSIVE: a table shared with other processes maps the
	 * page for each of them, yet counts once.
	 */
	if (pmaps_withheld(walk, folio) &&
	    (mapcount != 1 || hugetlb_pmd_shared(ptep)))
		mapcount = PMAPS_MAPCOUNT_WITHHELD;
	if (!pmaps_add_pages(walk, addr, (end - addr) >> PAGE_SHIFT, folio,
			     flags, mapcount))
		step = PMAPS_RECORD_FULL;
unlock:
	spin_unlock(ptl);
	return step;
}

/* The entries of one table from @ptep on, for [@addr, @end). */
static enum pmaps_step pmaps_walk_huge_ptes(struct pmaps_walk *walk,
					    struct hstate *h, pte_t *ptep,
					    unsigned long addr,
					    unsigned long end)
{
	struct mm_struct *mm = walk->vma->vm_mm;
	unsigned int shift = huge_page_shift(h);
	unsigned long sz = huge_page_size(h);
	unsigned int entries = pmaps_huge_entries(sz);
	enum pmaps_step step;
	unsigned long next, nr, max;

	do {
		if (huge_pte_none(pmaps_huge_ptep_get(mm, addr, ptep, sz))) {
			/*
			 * Skip the run of empty entries whole, read without
			 * the lock as pmaps_walk_pmds() reads empty pmds.
			 */
			max = ((end - 1) >> shift) - (addr >> shift) + 1;
			for (nr = 1; nr < max; nr++) {
				pte_t next_pte = pmaps_huge_ptep_get(mm,
							addr + (nr << shift),
							ptep + nr * entries, sz);

				if (!huge_pte_none(next_pte))
					break;
			}
			if (pmaps_hole(walk, addr) == PMAPS_RECORD_FULL)
				return PMAPS_RECORD_FULL;
			next = ((addr >> shift) + nr) << shift;
			if (pmaps_spend(walk, nr, min(next, end)))
				return PMAPS_RECORD_FULL;
			ptep += nr * entries;
			continue;
		}
		next = ((addr >> shift) + 1) << shift;
		step = pmaps_walk_huge_pte(walk, h, ptep, addr, min(next, end));
		if (step == PMAPS_RECORD_FULL ||
		    pmaps_spend(walk, (min(next, end) - addr) >> PAGE_SHIFT,
				min(next, end)))
			return PMAPS_RECORD_FULL;
		/* Per populated entry, as pagemap_hugetlb_range() does. */
		cond_resched();
		ptep += entries;
	} while (addr = min(next, end), addr != end);
	return PMAPS_CONTINUE;
}

/*
 * Mainline walks hugetlb entries under hugetlb_vma_lock_read(), which is
 * not exported.  What it guards against is PMD sharing: shared mappings of
 * a hugetlbfs file share pmd tables between processes
 * (CONFIG_HUGETLB_PMD_PAGE_TABLE_SHARING), and huge_pmd_unshare() clears
 * a process's pud under that process's locks only; once the last sharer
 * unshares, the table is freed, while this walk may be reading it under
 * the target's mmap lock.  huge_pmd_unshare() (and huge_pmd_unshare_flush())
 * require the mapping's i_mmap_rwsem held for write, on 6.1 as on 7.x
 * (i_mmap_assert_write_locked() in mm/hugetlb.c).  Holding it for read
 * here therefore keeps every pud of the VMA pointing at the table it
 * points at, and that table alive: the second way the comment above
 * huge_pte_offset() gives to walk safely, and one hugetlb_walk() accepts
 * under lockdep.  Sharing a table (huge_pmd_share()) only fills an empty
 * pud, under i_mmap_rwsem read too, and the walk reads each pud once.
 * Private mappings never share tables and the mmap lock would do; they
 * take the same lock, for one rule.  Order, as in mm/rmap.c: mmap_lock,
 * i_mmap_rwsem, then the page-table lock; nothing sleeps under the last.
 */
static enum pmaps_step pmaps_walk_hugetlb(struct pmaps_walk *walk,
					  unsigned long addr, unsigned long end)
{
	struct vm_area_struct *vma = walk->vma;
	struct address_space *mapping = vma->vm_file->f_mapping;
	struct hstate *h = hstate_vma(vma);
	unsigned long sz = huge_page_size(h), next;
	enum pmaps_step step;
	pte_t *ptep;

	/* The sizes huge_pte_offset() knows (pmaps_huge_entries()). */
	if (!pmaps_huge_entries(sz))
		return PMAPS_CONTINUE;

	i_mmap_lock_read(mapping);
	do {
		ptep = pmaps_huge_pte_offset(vma->vm_mm, addr, sz, end, &next);
		if (ptep)
			step = pmaps_walk_huge_ptes(walk, h, ptep, addr, next);
		else
			step = pmaps_hole(walk, addr);
		if (step == PMAPS_RECORD_FULL)
			break;
	} while (addr = next, addr != end);
	i_mmap_unlock_read(mapping);
	return step;
}
#else
static enum pmaps_step pmaps_walk_hugetlb(struct pmaps_walk *walk,
					  unsigned long addr, unsigned long end)
{
	return PMAPS_CONTINUE;
}
#endif /* CONFIG_HUGETLB_PAGE */

static enum pmaps_step pmaps_walk_vma(struct pmaps_walk *walk,
				      unsigned long addr)
{
	struct vm_area_struct *vma = walk->vma;
	unsigned long end = vma->vm_end, next;
	pgd_t *pgdp;
	pgd_t pgd;

	/* No normal pages: PFN and I/O maps. */
	if (vma->vm_flags & (VM_PFNMAP | VM_IO))
		return PMAPS_CONTINUE;
	if (is_vm_hugetlb_page(vma))
		return pmaps_walk_hugetlb(walk, addr, end);

	pgdp = pgd_offset(vma->vm_mm, addr);
	do {
		next = pgd_addr_end(addr, end);
		pgd = pgdp_get(pgdp);
		if (pgd_none(pgd) || pgd_bad(pgd)) {
			if (!pmaps_end_range(walk, addr))
				return PMAPS_RECORD_FULL;
		} else if (pmaps_walk_p4ds(walk, pgdp, addr, next) ==
			   PMAPS_RECORD_FULL) {
			return PMAPS_RECORD_FULL;
		}
	} while (pgdp++, addr = next, addr != end);
	return PMAPS_CONTINUE;
}

unsigned long pmaps_show_ranges(struct seq_file *m, struct vm_area_struct *vma,
				unsigned long addr, unsigned int withhold,
				unsigned int fields, struct pmaps_range *pending,
				unsigned long *budget)
{
	struct pmaps_walk walk = {
		.m = m,
		.vma = vma,
		.withhold = withhold,
		.numa = fields & PMAPS_FIELDS_NUMA,
		.budget = *budget,
		.resume = vma->vm_end,
	};

	/* What the record before left goes on here, or is printed first. */
	if (pending->nr_pages)
		walk.range = *pending;
	pending->nr_pages = 0;
	if (pmaps_walk_vma(&walk, addr) == PMAPS_RECORD_FULL) {
		if (walk.pending)
			*pending = walk.range;
	} else {
		pmaps_end_range(&walk, vma->vm_end);
	}
	*budget = walk.budget;
	return walk.resume;
}
