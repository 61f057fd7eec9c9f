// SPDX-License-Identifier: GPL-2.0
/*
 * NODE and KB for the pagemap source (pmaps --numa --source=pagemap):
 * the node of each resident page from move_pages(2) in query mode, the
 * folio size from kpageflags.  See pmaps_pagemap_numa() in pagemap.h.
 */
#define _DEFAULT_SOURCE		/* syscall() */
#define _FILE_OFFSET_BITS 64

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pagemap.h"

/* include/uapi/linux/kernel-page-flags.h */
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_THP			22
/* Pages asked of move_pages() at a time, and pagemap entries read. */
#define BATCH			1024
/* The largest folio looked for: 1 GiB of 4 KiB pages. */
#define MAX_FOLIO_PAGES		(1ULL << 18)
/* kpageflags entries read at a time when measuring a folio */
#define FOLIO_READ_MIN		16
#define FOLIO_READ_MAX		512

struct numa_ctx {
	struct pmaps_pagemap pm;
	unsigned long long psize;
	struct pmaps_folio_cache fc;
	/* move_pages() refused (no NUMA in the kernel, or permission): '?' */
	int no_nodes;
};

static uint64_t kpf_of(const struct pmaps_pagemap *pm, uint64_t pfn, int *ok)
{
	uint64_t kpf = 0;

	*ok = pread(pm->kpf_fd, &kpf, 8, (off_t)(pfn * 8)) == 8;
	return kpf;
}

/*
 * kpageflags of the n PFNs from pfn into buf, *got of them read (fewer
 * past the end of the memory map); false if none could be.
 */
static bool kpf_run(const struct pmaps_pagemap *pm, uint64_t pfn,
		    uint64_t *buf, size_t n, size_t *got)
{
	ssize_t r = pread(pm->kpf_fd, buf, n * 8, (off_t)(pfn * 8));

	*got = r > 0 ? (size_t)r / 8 : 0;
	return *got > 0;
}

/* From n (not a power of two) up to the next power of two. */
static size_t to_power_of_two(uint64_t n)
{
	uint64_t p = 1;

	while (p <= n)
		p <<= 1;
	return (size_t)(p - n);
}

/*
 * A THP or hugetlb folio is its head page and the run of tail pages after
 * it: PMAPS_KB_UNKNOWN where kpageflags cannot say (not root, PFN hidden,
 * or the folio changed under us).
 */
unsigned long long pmaps_kpf_folio_kb(const struct pmaps_pagemap *pm,
				      struct pmaps_folio_cache *fc,
				      uint64_t pfn)
{
	unsigned long long psize = pmaps_page_size();
	const uint64_t compound = (1ULL << KPF_COMPOUND_HEAD) |
				  (1ULL << KPF_COMPOUND_TAIL);
	uint64_t kpf, head, n, buf[FOLIO_READ_MAX];
	size_t chunk, want, got, k;
	int ok;

	if (pm->kpf_fd < 0 || !pfn)
		return PMAPS_KB_UNKNOWN;
	if (fc->have && pfn >= fc->head && pfn - fc->head < fc->pages)
		return fc->pages * psize / 1024;
	kpf = kpf_of(pm, pfn, &ok);
	if (!ok)
		return PMAPS_KB_UNKNOWN;
	if (!(kpf & compound))
		return psize / 1024;
	if (!(kpf & ((1ULL << KPF_THP) | (1ULL << KPF_HUGE))))
		return PMAPS_KB_UNKNOWN;	/* not a folio of user memory */
	/*
	 * Back to the head, then on over the tails, in reads that double
	 * from FOLIO_READ_MIN entries: a THP costs a few preads, not one a
	 * page, and a small mTHP no more than twice its own entries.
	 */
	head = pfn;
	n = 0;
	chunk = FOLIO_READ_MIN;
	while (!(kpf & (1ULL << KPF_COMPOUND_HEAD))) {
		if (!head || n >= MAX_FOLIO_PAGES)
			return PMAPS_KB_UNKNOWN;
		want = chunk;
		if (want > head)
			want = (size_t)head;
		if (want > MAX_FOLIO_PAGES - n)
			want = (size_t)(MAX_FOLIO_PAGES - n);
		if (!kpf_run(pm, head - want, buf, want, &got) || got < want)
			return PMAPS_KB_UNKNOWN;
		for (k = want; k-- > 0;) {
			kpf = buf[k];
			head--;
			n++;
			if (!(kpf & compound))
				return PMAPS_KB_UNKNOWN;	/* split meanwhile */
			if (kpf & (1ULL << KPF_COMPOUND_HEAD))
				break;
		}
		if (chunk < FOLIO_READ_MAX)
			chunk *= 2;
	}
	/*
	 * Folios are a power of two of pages: the tails end at head + 2^k.
	 * Read the entry at each power of two alone, and the rest up to the
	 * next one only if that is a tail, so that no more than one entry
	 * past the folio is read.
	 */
	for (n = 1; n < MAX_FOLIO_PAGES;) {
		want = n & (n - 1) ? to_power_of_two(n) : 1;
		if (want > FOLIO_READ_MAX)
			want = FOLIO_READ_MAX;
		if (want > MAX_FOLIO_PAGES - n)
			want = (size_t)(MAX_FOLIO_PAGES - n);
		if (!kpf_run(pm, head + n, buf, want, &got))
			break;
		for (k = 0; k < got; k++) {
			if (!(buf[k] & (1ULL << KPF_COMPOUND_TAIL)))
				goto measured;
			n++;
		}
		if (got < want)
			break;
	}
measured:
	fc->head = head;
	fc->pages = n;
	fc->have = 1;
	return n * psize / 1024;
}

/* Append a range to ranges, joined to the last where it continues it. */
static int emit(struct pmaps_range **ranges, size_t *nr, size_t *cap,
		const struct pmaps_range *r, unsigned long long index,
		long node, unsigned long long kb)
{
	struct pmaps_range *last = *nr ? &(*ranges)[*nr - 1] : NULL;

	if (last && last->index + last->count == index &&
	    last->flags == r->flags && last->unknown == r->unknown &&
	    last->mapcount == r->mapcount && last->node == node &&
	    last->kb == kb) {
		last->count++;
		return 0;
	}
	if (pmaps_grow_array((void **)ranges, cap, *nr + 1, sizeof(**ranges)))
		return -1;
	last = &(*ranges)[(*nr)++];
	*last = *r;
	last->index = index;
	last->count = 1;
	last->node = node;
	last->kb = kb;
	return 0;
}

/* Split the ranges of v where node or folio size changes. */
static int numa_vma(struct numa_ctx *c, int pid, struct pmaps_vma *v,
		    char *err, size_t errlen)
{
	struct pmaps_range *out = NULL;
	size_t nr = 0, cap = 0, j;
	void *addrs[BATCH];
	uint64_t ent[BATCH];
	int status[BATCH];

	for (j = 0; j < v->nr_ranges; j++) {
		const struct pmaps_range r = v->ranges[j];
		unsigned long long addr = pmaps_range_addr(v, &r), done = 0;

		while (done < r.count) {
			size_t n = r.count - done < BATCH ?
				   (size_t)(r.count - done) : BATCH, k;
			unsigned long long a = addr + done * c->psize;

			for (k = 0; k < n; k++)
				addrs[k] = (void *)(uintptr_t)(a + k * c->psize);
			/* nodes NULL: only ask where the pages are */
			if (!c->no_nodes &&
			    syscall(SYS_move_pages, pid, (unsigned long)n,
				    addrs, NULL, status, 0) < 0) {
				if (errno != ENOSYS && errno != EPERM &&
				    errno != EACCES) {
					snprintf(err, errlen, "move_pages of process %d: %s",
						 pid, strerror(errno));
					goto fail;
				}
				/* a node not to be known is '?', not an error */
				c->no_nodes = 1;
			}
			if (c->no_nodes)
				for (k = 0; k < n; k++)
					status[k] = -ENOENT;
			if (pmaps_pagemap_read(&c->pm, a, ent, n, err, errlen))
				goto fail;
			for (k = 0; k < n; k++) {
				/* a negative status (-ENOENT, -EFAULT): not known */
				long node = status[k] >= 0 ? status[k] :
					    PMAPS_NODE_UNKNOWN;

				if (emit(&out, &nr, &cap, &r,
					 r.index + done + k, node,
					 pmaps_kpf_folio_kb(&c->pm, &c->fc,
							   pmaps_pm_pfn(ent[k])))) {
					snprintf(err, errlen, "out of memory");
					goto fail;
				}
			}
			done += n;
		}
	}
	free(v->ranges);
	v->ranges = out;
	v->nr_ranges = nr;
	return 0;
fail:
	free(out);
	return -1;
}

int pmaps_pagemap_numa(int pid, struct pmaps_map *map, char *err,
		       size_t errlen)
{
	struct numa_ctx c = { .psize = pmaps_page_size() };
	size_t i;
	int ret = 0;

	if (pmaps_pagemap_open(&c.pm, pid, err, errlen))
		return -1;
	for (i = 0; i < map->nr_vmas && !ret; i++)
		ret = numa_vma(&c, pid, &map->vmas[i], err, errlen);
	pmaps_pagemap_close(&c.pm);
	/* and AGE, which kpageflags cannot tell: '?' on every range */
	if (!ret) {
		map->numa = true;
		map->age = true;
	}
	return ret;
}
