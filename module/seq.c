// SPDX-License-Identifier: GPL-2.0
/*
 * The seq_file behind /proc/pmaps_ext/PID.
 *
 * As in fs/proc/task_mmu.c the position is an address, so a restart after
 * a buffer flush resumes exactly where it stopped.  A page-aligned
 * position P names the header of the first VMA that ends above P; P with
 * PMAPS_POS_RANGES set names the range lines of that VMA from address P
 * on.  Each record prints one header, or at most PMAPS_LINES_PER_RECORD
 * range lines (after the header again, if the VMA changed since it was
 * printed), so a file needs a bounded buffer however large the VMA.
 *
 * The lock is dropped and taken again between records once the walk has
 * gone through PMAPS_PAGES_PER_LOCK pages, and a record stops at a page
 * table boundary when it has: a VMA of one long range line is walked in
 * many records, each leaving the line it gathers to the next, so that the
 * text is the same as if read under one hold.
 */
#include <linux/file.h>
#include <linux/maple_tree.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/rcupdate.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "compat.h"
#include "pmaps_ext.h"

#define PMAPS_POS_RANGES	1
#define PMAPS_POS_EOF		((loff_t)-1)

#ifdef PMAPS_TEST_HOOKS
/*
 * What the text costs beside the walk (issue 31's scattered floor): the
 * bench reads the same file with this set and unset, in one run.  Records
 * with nothing in them go to ->next without a copy to the reader.
 */
bool pmaps_bench_no_text;
module_param_named(bench_no_text, pmaps_bench_no_text, bool, 0600);

/*
 * How many holds of the lock ended because the walk spent their pages
 * (test_empty_tables_spend_the_budget).
 */
static DEFINE_SPINLOCK(pmaps_test_holds_lock);
static int pmaps_test_spent_holds;
module_param_named(test_spent_holds, pmaps_test_spent_holds, int, 0444);

static void pmaps_test_count_spent_hold(void)
{
	spin_lock(&pmaps_test_holds_lock);
	pmaps_test_spent_holds++;
	spin_unlock(&pmaps_test_holds_lock);
}
#else
static inline void pmaps_test_count_spent_hold(void)
{
}
#endif

/* What a printed header said, to tell whether a VMA changed since. */
struct pmaps_header {
	unsigned long start, end, pgoff, flags;
	struct file *file;		/* compared, never dereferenced */
};

/* What the current read holds, taken in ->start and released in ->stop. */
enum pmaps_lock {
	PMAPS_UNLOCKED,
	PMAPS_MM_USERS,			/* mm_users only: between VMA locks */
	PMAPS_VMA_LOCKED,		/* mm_users + the record VMA's read lock */
	PMAPS_MMAP_LOCKED,		/* mm_users + mmap_lock */
};

struct pmaps_file {
	struct mm_struct *mm;		/* mmgrab()ed at open; NULL: no mm */
	bool page_flags_visible;	/* pmaps_may_read_page_flags() at open */
	bool may_attach;		/* pmaps_mm_access() at open */
	unsigned int fields;		/* PMAPS_FIELDS_*, by the file opened */
	enum pmaps_lock lock;
	/* The current record, valid between ->start and ->stop: */
	struct vm_area_struct *vma;
	unsigned long addr;		/* where it starts, >= vma->vm_start */
	bool ranges;			/* range lines, else the VMA header */
	bool header_first;		/* a range record that reprints it */
	unsigned long resume;		/* where the record after it starts */
	bool carried;			/* it starts with pending, below */
	struct pmaps_range left;	/* the range line it leaves pending */
	/*
	 * The range line the last record kept left pending, for the record
	 * at pending_pos: set by ->next, so that a record retried for want
	 * of room starts with it again.
	 */
	struct pmaps_range pending;
	loff_t pending_pos;
	unsigned long budget;		/* pages left to walk under the lock */
	/* The last header whose record was kept, set by ->next: */
	struct pmaps_header shown;
	/*
	 * pmaps_may_see_page_cache() for the VMAs of page_cache_file, asked
	 * once per file per read(), not once per record or lock hold, as it
	 * may wait for a file server under the target's lock.  The file is
	 * held (get_file()), so that the pointer stays that file's.
	 */
	struct file *page_cache_file;
	bool page_cache_visible;
};

static void pmaps_header_of(struct pmaps_header *h, struct vm_area_struct *vma)
{
	h->start = vma->vm_start;
	h->end = vma->vm_end;
	h->pgoff = vma->vm_pgoff;
	h->flags = vma->vm_flags;
	h->file = vma->vm_file;
}

/*
 * The first VMA that ends above @addr, read-locked by itself, or NULL if
 * that cannot be had without the mmap lock: the VMA is being changed, or
 * there seems to be none.  /proc/PID/maps is read this way since v6.17, so
 * that a reader never holds the mmap lock that the target's mmap(),
 * munmap() and page faults on other VMAs wait for.
 */
static struct vm_area_struct *pmaps_lock_vma(struct mm_struct *mm,
					     unsigned long addr)
{
	MA_STATE(mas, &mm->mm_mt, addr, addr);
	struct vm_area_struct *vma, *first;
	unsigned long start;

	if (!PMAPS_HAVE_VMA_LOCKS)
		return NULL;
	rcu_read_lock();
	vma = mas_find(&mas, ULONG_MAX);
	/* Only a hint until the VMA is locked: it may be changing. */
	start = vma ? max(addr, READ_ONCE(vma->vm_start)) : 0;
	rcu_read_unlock();
	if (!vma)
		return NULL;
	vma = pmaps_vma_trylock(mm, start);
	if (!vma || start == addr)
		return vma;
	/* A VMA mapped below @start meanwhile comes first. */
	mas_set(&mas, addr);
	rcu_read_lock();
	first = mas_find(&mas, ULONG_MAX);
	rcu_read_unlock();
	if (first == vma)
		return vma;
	pmaps_vma_unlock(vma);
	return NULL;
}

/*
 * The VMA of the record at @addr, locked: by itself where the kernel lets
 * a module do that, else under the mmap lock.  Once a read has fallen back
 * to the mmap lock it keeps it until ->stop.
 */
static struct vm_area_struct *pmaps_find_vma(struct pmaps_file *pf,
					     unsigned long addr)
{
	struct vm_area_struct *vma;

	switch (pf->lock) {
	case PMAPS_MMAP_LOCKED:
		return find_vma(pf->mm, addr);
	case PMAPS_VMA_LOCKED:
		/* Positions only grow: the record is in this VMA or after it. */
		if (addr < pf->vma->vm_end)
			return pf->vma;
		pmaps_vma_unlock(pf->vma);
		pf->lock = PMAPS_MM_USERS;
		break;
	default:
		break;
	}
	vma = pmaps_lock_vma(pf->mm, addr);
	if (vma) {
		pf->lock = PMAPS_VMA_LOCKED;
		return vma;
	}
	if (mmap_read_lock_killable(pf->mm))
		return ERR_PTR(-EINTR);
	pf->lock = PMAPS_MMAP_LOCKED;
	return find_vma(pf->mm, addr);
}

/*
 * Look up and lock the record at *pos; NULL past the last VMA, unless a
 * range line is left pending there: then a record of that line alone,
 * with no VMA.
 */
static void *pmaps_record(struct pmaps_file *pf, loff_t *pos)
{
	unsigned long addr = *pos & PAGE_MASK;
	struct vm_area_struct *vma = pmaps_find_vma(pf, addr);

	if (IS_ERR(vma))
		return vma;
	pf->carried = pf->pending.nr_pages && pf->pending_pos == *pos;
	pf->left.nr_pages = 0;
	pf->vma = vma;
	if (!vma) {
		if (pf->carried)
			return pf;
		*pos = PMAPS_POS_EOF;
		return NULL;
	}
	/* The VMA may have moved since the position was made; never go back. */
	pf->addr = max(addr, vma->vm_start);
	pf->ranges = (*pos & PMAPS_POS_RANGES) && addr >= vma->vm_start;
	pf->resume = vma->vm_end;
	/*
	 * Range lines go under the header they belong to: if the VMA changed
	 * (grew, shrank, was replaced) since its header was printed, before
	 * a restart at this position, the record prints the header again.
	 */
	if (pf->ranges) {
		struct pmaps_header now;

		pmaps_header_of(&now, vma);
		pf->header_first = memcmp(&now, &pf->shown, sizeof(now));
	}
	return pf;
}

static void *pmaps_start(struct seq_file *m, loff_t *pos)
{
	struct pmaps_file *pf = m->private;
	struct mm_struct *mm = pf->mm;

	/* References first, then the lock; pmaps_stop() undoes both. */
	if (*pos == PMAPS_POS_EOF || !mm || !mmget_not_zero(mm))
		return NULL;
	pf->lock = PMAPS_MM_USERS;
	pf->budget = PMAPS_PAGES_PER_LOCK;
	return pmaps_record(pf, pos);
}

/* Release the record's lock, keeping the mm_users reference. */
static void pmaps_unlock(struct pmaps_file *pf)
{
	switch (pf->lock) {
	case PMAPS_VMA_LOCKED:
		pmaps_vma_unlock(pf->vma);
		break;
	case PMAPS_MMAP_LOCKED:
		mmap_read_unlock(pf->mm);
		break;
	default:
		return;
	}
	pf->lock = PMAPS_MM_USERS;
}

static void *pmaps_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct pmaps_file *pf = m->private;

	/* A record of a pending line alone was the last. */
	if (!pf->vma) {
		pf->pending.nr_pages = 0;
		*pos = PMAPS_POS_EOF;
		return NULL;
	}
	/*
	 * seq_file calls ->next only for a record whose output it kept, so
	 * this is where a printed header counts as shown, and the line the
	 * record left pending goes to the next; a record rolled back for
	 * want of room is retried with what it had.
	 */
	if (!pf->ranges || pf->header_first)
		pmaps_header_of(&pf->shown, pf->vma);
	if (!pf->ranges)
		*pos = pf->addr | PMAPS_POS_RANGES;
	else if (pf->resume < pf->vma->vm_end)
		*pos = pf->resume | PMAPS_POS_RANGES;
	else
		*pos = pf->vma->vm_end;
	pf->pending = pf->left;
	pf->pending_pos = *pos;
	/*
	 * The walk spent the pages of this hold: let whoever waits for the
	 * lock have it, as pagemap_read() lets go of it after every
	 * PAGEMAP_WALK_SIZE.  Not only when mmap_lock_is_contended(), as
	 * smaps_rollup does: a writer still spinning on the lock is not on
	 * its wait list, and a VMA lock does not tell.
	 */
	if (!pf->budget) {
		pmaps_test_count_spent_hold();
		pmaps_unlock(pf);
		cond_resched();
		pf->budget = PMAPS_PAGES_PER_LOCK;
	}
	return pmaps_record(pf, pos);
}

static void pmaps_stop(struct seq_file *m, void *v)
{
	struct pmaps_file *pf = m->private;

	if (pf->lock == PMAPS_UNLOCKED)
		return;
	pmaps_unlock(pf);
	pf->lock = PMAPS_UNLOCKED;
	mmput(pf->mm);
}

static const char *pmaps_anon_name(struct vm_area_struct *vma)
{
#ifdef CONFIG_ANON_VMA_NAME
	/* anon_vma_name() is not exported; mmap_lock keeps the name alive. */
	return vma->anon_name ? vma->anon_name->name : NULL;
#else
	return NULL;
#endif
}

/*
 * The VMA's line exactly as /proc/PID/maps prints it (show_map_vma()).
 * seq_put_hex_ll() is not exported, so the numbers go through seq_printf()
 * with the same widths.  arch_vma_name() is NULL on x86 and not consulted.
 */
static void pmaps_show_header(struct seq_file *m, struct vm_area_struct *vma)
{
	vm_flags_t flags = vma->vm_flags;
	struct file *file = vma->vm_file;
	const char *anon_name = pmaps_anon_name(vma);
	unsigned long long pgoff = 0;
	const char *name = NULL;
	unsigned long ino = 0;
	dev_t dev = 0;

	if (pmaps_text_off())
		return;
	if (file) {
		const struct inode *inode = file_user_inode(file);

		dev = inode->i_sb->s_dev;
		ino = inode->i_ino;
		pgoff = ((loff_t)vma->vm_pgoff) << PAGE_SHIFT;
	}

	seq_setwidth(m, 25 + sizeof(void *) * 6 - 1);
	seq_printf(m, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ",
		   vma->vm_start, vma->vm_end,
		   flags & VM_READ ? 'r' : '-',
		   flags & VM_WRITE ? 'w' : '-',
		   flags & VM_EXEC ? 'x' : '-',
		   flags & VM_MAYSHARE ? 's' : 'p',
		   pgoff, MAJOR(dev), MINOR(dev), ino);

	if (file) {
		seq_pad(m, ' ');
		if (anon_name)
			seq_printf(m, "[anon_shmem:%s]", anon_name);
		else
			seq_path(m, file_user_path(file), "\n");
		seq_putc(m, '\n');
		return;
	}

	if (vma->vm_ops && vma->vm_ops->name)
		name = vma->vm_ops->name(vma);
	if (!name && vma_is_initial_heap(vma))
		name = "[heap]";
	if (!name && vma_is_initial_stack(vma))
		name = "[stack]";
	if (name) {
		seq_pad(m, ' ');
		seq_puts(m, name);
	} else if (anon_name) {
		seq_pad(m, ' ');
		seq_printf(m, "[anon:%s]", anon_name);
	}
	seq_putc(m, '\n');
}

/* Let go of the file whose page-cache rule was kept: a new read(). */
static void pmaps_forget_page_cache(struct pmaps_file *pf)
{
	if (pf->page_cache_file)
		fput(pf->page_cache_file);
	pf->page_cache_file = NULL;
}

/* What the record's pages withhold (PMAPS_WITHHOLD_*). */
static unsigned int pmaps_withhold(struct seq_file *m, struct pmaps_file *pf)
{
	unsigned int access = pf->may_attach ? 0 : PMAPS_WITHHOLD_ACCESS;
	struct file *file = pf->vma->vm_file;
	bool visible;

	if (pf->page_flags_visible)
		return access;
	if (!pmaps_page_cache_asks_file(pf->vma)) {
		/* no file's page cache to ask about: nothing is asked */
		visible = pmaps_may_see_page_cache(m->file, pf->vma);
	} else {
		if (file != pf->page_cache_file) {
			pmaps_forget_page_cache(pf);
			pf->page_cache_visible =
				pmaps_may_see_page_cache(m->file, pf->vma);
			pf->page_cache_file = get_file(file);
		}
		visible = pf->page_cache_visible;
	}
	if (visible)
		return access | PMAPS_WITHHOLD_KSM;
	return access | PMAPS_WITHHOLD_KSM | PMAPS_WITHHOLD_PAGE_CACHE;
}

static int pmaps_show(struct seq_file *m, void *v)
{
	struct pmaps_file *pf = m->private;

	/*
	 * The line left pending goes on in this record's walk where that
	 * continues it; anywhere else it is printed as it is, under the
	 * header it was gathered under.
	 */
	if (pf->carried) {
		if (pf->vma && pf->ranges && !pf->header_first)
			pf->left = pf->pending;
		else
			pmaps_show_range(m, &pf->pending, pf->fields);
	}
	if (!pf->vma)
		return 0;
	if (!pf->ranges || pf->header_first)
		pmaps_show_header(m, pf->vma);
	if (pf->ranges)
		pf->resume = pmaps_show_ranges(m, pf->vma, pf->addr,
					       pmaps_withhold(m, pf),
					       pf->fields, &pf->left,
					       &pf->budget);
	return 0;
}

static const struct seq_operations pmaps_seq_operations = {
	.start	= pmaps_start,
	.next	= pmaps_next,
	.stop	= pmaps_stop,
	.show	= pmaps_show,
};

static int pmaps_open_fields(struct inode *inode, struct file *file,
			     unsigned int fields)
{
	bool may_attach = false;
	struct pmaps_file *pf;
	struct mm_struct *mm;

	mm = pmaps_mm_access(file, inode->i_private, &may_attach);
	if (IS_ERR(mm))
		return PTR_ERR(mm);

	pf = __seq_open_private(file, &pmaps_seq_operations, sizeof(*pf));
	if (!pf) {
		if (mm)
			mmdrop(mm);
		return -ENOMEM;
	}
	pf->mm = mm;
	pf->may_attach = may_attach;
	pf->page_flags_visible = pmaps_may_read_page_flags(file);
	pf->fields = fields;
	return 0;
}

static int pmaps_open(struct inode *inode, struct file *file)
{
	return pmaps_open_fields(inode, file, 0);
}

static int pmaps_numa_open(struct inode *inode, struct file *file)
{
	return pmaps_open_fields(inode, file, PMAPS_FIELDS_NUMA);
}

static int pmaps_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct pmaps_file *pf = m->private;

	pmaps_forget_page_cache(pf);
	if (pf->mm)
		mmdrop(pf->mm);
	return seq_release_private(inode, file);
}

/*
 * seq_file returns at most one buffer per read(), and allocates a page
 * for it on the first read.  A reader that asks for a lot at a time (cat
 * reads 64 KiB or more) gets PMAPS_BIG_BUFFER instead: several times fewer
 * read()s, mmap_lock round trips and records redone for want of room, for
 * memory that stays bounded per open file.  Only from its second read on,
 * once the text has outgrown the first page: most texts fit in one, and
 * kernels that zero every allocation (init_on_alloc, Debian's default)
 * spent 8 to 14 % of a read of a 1.2 KB text zeroing 32 KiB (6.12,
 * make bench-profile).
 */
#define PMAPS_BIG_BUFFER	(32 << 10)

static ssize_t pmaps_read_iter(struct kiocb *iocb, struct iov_iter *iter)
{
	struct seq_file *m = iocb->ki_filp->private_data;
	void *big;

	mutex_lock(&m->lock);
	/* mincore()'s rule is asked again in each read(): a chmod shows */
	pmaps_forget_page_cache(m->private);
	/* Nothing of the first buffer is left to copy out. */
	if (iov_iter_count(iter) >= PMAPS_BIG_BUFFER && m->buf &&
	    m->size < PMAPS_BIG_BUFFER && !m->count &&
	    m->index != PMAPS_POS_EOF) {
		/* as seq_buf_alloc() does; seq_release() kvfree()s it */
		big = kvmalloc(PMAPS_BIG_BUFFER, GFP_KERNEL_ACCOUNT);
		if (big) {
			kvfree(m->buf);
			m->buf = big;
			m->size = PMAPS_BIG_BUFFER;
		}
	}
	mutex_unlock(&m->lock);
	return seq_read_iter(iocb, iter);
}

const struct file_operations pmaps_file_operations = {
	.owner		= THIS_MODULE,
	.open		= pmaps_open,
	.read_iter	= pmaps_read_iter,
	.llseek		= seq_lseek,
	.release	= pmaps_release,
};

const struct file_operations pmaps_numa_file_operations = {
	.owner		= THIS_MODULE,
	.open		= pmaps_numa_open,
	.read_iter	= pmaps_read_iter,
	.llseek		= seq_lseek,
	.release	= pmaps_release,
};
