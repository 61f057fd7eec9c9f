// SPDX-License-Identifier: GPL-2.0
/*
 * The glibc malloc chunk walker (see heap.h).
 *
 * What it relies on, from glibc's malloc/malloc.c and arena.c (x86-64):
 *
 *  - A chunk is a header, prev_size then size, whose low three bits are
 *    PREV_INUSE (1), IS_MMAPPED (2) and NON_MAIN_ARENA (4); chunks of a
 *    heap follow each other, and a chunk is free when the next one's
 *    PREV_INUSE is clear -- except chunks in a tcache or a fastbin, which
 *    keep it set: those are found by walking the lists.
 *  - The main arena (main_arena, in libc's data) owns the sbrk heap,
 *    [heap]; its top chunk reaches the end of it.  Every other arena is a
 *    malloc_state right after the heap_info of its first heap; its heaps
 *    are HEAP_MAX_SIZE aligned, chained from the current one (which holds
 *    top) by heap_info.prev.  Arenas are a ring through malloc_state.next.
 *  - A heap that is not its arena's current one ends with fenceposts: a
 *    16-byte chunk, then a header of size 0.
 *  - The tcache_perthread_struct of the thread that made an arena is its
 *    first chunk; it lists free chunks by user address; since 2.32 the
 *    next links of tcache and fastbins are "safe-linked": stored XOR the
 *    link's own address shifted right by 12.
 *  - Bins are circular lists whose heads sit in malloc_state.bins, each
 *    head seen as a chunk 16 bytes before its fd/bk pair.
 *
 * Without debug symbols main_arena is found from the heaps: by the ring of
 * a thread arena, or as the one place in libc's data that points at the
 * [heap]'s top chunk; and it is checked before it is used.  What cannot
 * be found is said in a note, never assumed.
 *
 * Every address read is checked against the mappings before it is read,
 * every list is bounded by the number of chunks it could hold, and every
 * walk moves forward: no input can make the walker loop or read out of
 * bounds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "pmaps.h"

#define PREV_INUSE	1ULL
#define IS_MMAPPED	2ULL
#define NON_MAIN_ARENA	4ULL
#define SIZE_BITS	7ULL
#define CHUNK_HDR	16ULL
#define MINSIZE		32ULL
#define HEAP_MAX_SIZE	(64ULL << 20)
#define NBINS		128
#define NSMALLBINS	64
#define PAGE		4096ULL
/* An arena ring longer than this is not glibc's (narenas_limit is 8 per
 * core): the walk stops. */
#define MAX_ARENAS	4096
/* Bytes of a heap read at a time. */
#define WINDOW		(1U << 20)

/* ---- layouts ---- */

int pmaps_glibc_layout_for(int major, int minor,
			   struct pmaps_glibc_layout *lay)
{
	/* have_fastchunks, an int after flags, came in 2.27 */
	unsigned int fast = major == 2 && minor < 27 ? 8 : 16;
	int known = major == 2 && minor >= 26 && minor <= 41;

	memset(lay, 0, sizeof(*lay));
	lay->major = major;
	lay->minor = minor;
	lay->nr_fastbins = 10;
	lay->ms_fastbins = fast;
	lay->ms_top = fast + 80;
	lay->ms_bins = fast + 96;
	/* bins[254], binmap[4] */
	lay->ms_next = lay->ms_bins + 254 * 8 + 16;
	lay->ms_system_mem = lay->ms_next + 24;
	lay->ms_size = lay->ms_system_mem + 16;
	/* heap_info.pagesize came in 2.35 */
	lay->heap_info_size = major == 2 && minor < 35 ? 32 : 48;
	if (major > 2 || (major == 2 && minor >= 26)) {
		lay->tcache_bins = 64;
		/* counts became uint16_t in 2.30 */
		lay->tcache_count_size = major == 2 && minor < 30 ? 1 : 2;
		lay->tcache_entries = lay->tcache_bins * lay->tcache_count_size;
		lay->tcache_struct_size = lay->tcache_entries +
					  lay->tcache_bins * 8;
	}
	lay->safe_linking = major > 2 || (major == 2 && minor >= 32);
	return known ? 0 : -1;
}

static const char *const kind_names[PMAPS_CHUNK_NR] = {
	[PMAPS_CHUNK_USED] = "used",
	[PMAPS_CHUNK_HEADER] = "header",
	[PMAPS_CHUNK_TCACHE] = "tcache",
	[PMAPS_CHUNK_FASTBIN] = "fastbin",
	[PMAPS_CHUNK_UNSORTED] = "unsorted",
	[PMAPS_CHUNK_SMALLBIN] = "smallbin",
	[PMAPS_CHUNK_LARGEBIN] = "largebin",
	[PMAPS_CHUNK_FREE] = "free",
	[PMAPS_CHUNK_TOP] = "top",
	[PMAPS_CHUNK_FENCE] = "fence",
};

const char *pmaps_chunk_kind_name(enum pmaps_chunk_kind kind)
{
	return (unsigned int)kind < PMAPS_CHUNK_NR ? kind_names[kind] : "?";
}

bool pmaps_chunk_kind_free(enum pmaps_chunk_kind kind)
{
	return kind >= PMAPS_CHUNK_TCACHE && kind <= PMAPS_CHUNK_TOP;
}

void pmaps_heap_note(struct pmaps_heap_report *r, const char *fmt, ...)
{
	char (*notes)[PMAPS_HEAP_MSG];
	va_list ap;

	notes = realloc(r->notes, (r->nr_notes + 1) * sizeof(*notes));
	if (!notes)
		return;
	r->notes = notes;
	va_start(ap, fmt);
	vsnprintf(notes[r->nr_notes++], PMAPS_HEAP_MSG, fmt, ap);
	va_end(ap);
}

void pmaps_heap_report_free(struct pmaps_heap_report *r)
{
	size_t i, j;

	for (i = 0; i < r->nr_arenas; i++) {
		for (j = 0; j < r->arenas[i].nr_heaps; j++)
			free(r->arenas[i].heaps[j].chunks);
		free(r->arenas[i].heaps);
	}
	free(r->arenas);
	free(r->mmapped);
	free(r->notes);
	memset(r, 0, sizeof(*r));
}

unsigned int pmaps_heap_units_used(const struct pmaps_heap_seg *h,
				   uint64_t addr, unsigned int n, size_t *from)
{
	uint64_t end = addr + (uint64_t)n * PMAPS_HEAP_UNIT, lo, hi;
	unsigned int used = 0;
	size_t i = *from;

	while (i < h->nr_chunks &&
	       h->chunks[i].addr + h->chunks[i].size <= addr)
		i++;
	*from = i;
	for (; i < h->nr_chunks && h->chunks[i].addr < end; i++) {
		const struct pmaps_chunk *c = &h->chunks[i];

		if (pmaps_chunk_kind_free(c->kind))
			continue;
		lo = c->addr > addr ? c->addr : addr;
		hi = c->addr + c->size < end ? c->addr + c->size : end;
		if (hi > lo)
			used += (unsigned int)((hi - lo) / PMAPS_HEAP_UNIT);
	}
	return used;
}

/* ---- reading the target ---- */

struct walk {
	const struct pmaps_heap_mem *mem;
	struct pmaps_glibc_layout lay;
	struct pmaps_heap_report *r;
	char *err;
	size_t errlen;
	/* a window of the heap being walked */
	unsigned char *win;
	uint64_t win_start;
	size_t win_len;
	/* the failure is no heap or a failed read, not a corrupted heap */
	bool not_corrupt;
	/* the main heap: [heap] */
	const struct pmaps_heap_mapping *brk_map;
	uint64_t main_top;		/* its top chunk, once walked */
};

static int fail(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, w->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* As fail(), for what says nothing of the heap: no heap, no memory. */
static int fail_other(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail_other(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, w->errlen, fmt, ap);
	va_end(ap);
	w->not_corrupt = true;
	return -1;
}

static const struct pmaps_heap_mapping *find_map(const struct pmaps_heap_mem *m,
						 uint64_t addr)
{
	size_t lo = 0, hi = m->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m->maps[mid].start)
			hi = mid;
		else if (addr >= m->maps[mid].end)
			lo = mid + 1;
		else
			return &m->maps[mid];
	}
	return NULL;
}

/* len bytes at addr lie in one readable mapping. */
static bool readable(const struct walk *w, uint64_t addr, uint64_t len)
{
	const struct pmaps_heap_mapping *m = find_map(w->mem, addr);

	return m && m->perms[0] == 'r' && len <= m->end - addr;
}

/* Read len bytes at addr, what for the message ("tcache entry"). */
static int rd(struct walk *w, uint64_t addr, void *buf, size_t len,
	      const char *what)
{
	if (!readable(w, addr, len))
		return fail(w, "%s at 0x%" PRIx64 ": not in a readable mapping of the process",
			    what, addr);
	if (w->mem->read(w->mem->ctx, addr, buf, len))
		return fail_other(w, "%s at 0x%" PRIx64 ": cannot read %zu bytes: %s",
			    what, addr, len, strerror(errno ? errno : EIO));
	return 0;
}

static int rd64(struct walk *w, uint64_t addr, uint64_t *v, const char *what)
{
	return rd(w, addr, v, sizeof(*v), what);
}

/* The 8 bytes at addr, addr inside [win_start, heap end): from the window. */
static int win64(struct walk *w, uint64_t addr, uint64_t end, uint64_t *v)
{
	if (addr < w->win_start || addr + 8 > w->win_start + w->win_len) {
		uint64_t len = end - addr;

		if (len > WINDOW)
			len = WINDOW;
		if (len < 8)
			return fail(w, "chunk header at 0x%" PRIx64 ": past the heap's end at 0x%" PRIx64,
				    addr, end);
		w->win_start = addr;
		w->win_len = 0;
		if (rd(w, addr, w->win, (size_t)len, "heap"))
			return -1;
		w->win_len = (size_t)len;
	}
	memcpy(v, w->win + (addr - w->win_start), 8);
	return 0;
}

/* A safe-linked pointer, stored at pos, in the clear. */
static uint64_t reveal(const struct walk *w, uint64_t pos, uint64_t stored)
{
	return w->lay.safe_linking ? (pos >> 12) ^ stored : stored;
}

/* ---- arenas and heaps ---- */

static struct pmaps_arena *add_arena(struct walk *w, uint64_t addr, bool main)
{
	struct pmaps_arena *a;

	a = realloc(w->r->arenas, (w->r->nr_arenas + 1) * sizeof(*a));
	if (!a) {
		fail_other(w, "out of memory");
		return NULL;
	}
	w->r->arenas = a;
	a = &a[w->r->nr_arenas++];
	memset(a, 0, sizeof(*a));
	a->addr = addr;
	a->main = main;
	return a;
}

static struct pmaps_heap_seg *add_heap(struct walk *w, struct pmaps_arena *a,
				       uint64_t start, uint64_t end)
{
	struct pmaps_heap_seg *h;

	h = realloc(a->heaps, (a->nr_heaps + 1) * sizeof(*h));
	if (!h) {
		fail_other(w, "out of memory");
		return NULL;
	}
	a->heaps = h;
	h = &h[a->nr_heaps++];
	memset(h, 0, sizeof(*h));
	h->start = start;
	h->end = end;
	return h;
}

static int add_chunk(struct walk *w, struct pmaps_heap_seg *h, size_t *cap,
		     uint64_t addr, uint64_t size, enum pmaps_chunk_kind kind)
{
	if (pmaps_grow_array((void **)&h->chunks, cap, h->nr_chunks + 1,
			     sizeof(*h->chunks)))
		return fail_other(w, "out of memory");
	h->chunks[h->nr_chunks].addr = addr;
	h->chunks[h->nr_chunks].size = size;
	h->chunks[h->nr_chunks++].kind = kind;
	return 0;
}

/*
 * Walk the chunks of heap h from first to h->end.  top: the arena's top
 * chunk when it is in this heap (0: the heap ends in fenceposts, or for
 * the main heap without main_arena, the chunk that reaches the end).
 * Chunks come out USED or FREE by the next one's PREV_INUSE; the bytes
 * before first are the HEADER.
 */
static int walk_heap(struct walk *w, struct pmaps_arena *a,
		     struct pmaps_heap_seg *h, uint64_t first, uint64_t top,
		     bool top_here)
{
	uint64_t addr = first, raw, size, end = h->end;
	size_t cap = 0, i;
	unsigned long long odd_arena_bit = 0;

	w->win_len = 0;
	if (first > h->start &&
	    add_chunk(w, h, &cap, h->start, first - h->start,
		      PMAPS_CHUNK_HEADER))
		return -1;
	while (addr < end) {
		if (end - addr < CHUNK_HDR)
			return fail(w, "heap 0x%" PRIx64 "-0x%" PRIx64 ": %" PRIu64 " bytes left at 0x%" PRIx64 ", expected a chunk header of 16",
				    h->start, end, end - addr, addr);
		if (win64(w, addr + 8, end, &raw))
			return -1;
		size = raw & ~SIZE_BITS;
		if (top_here && (addr == top || (!top && addr + size == end))) {
			if (size < MINSIZE || size > end - addr || size % 16)
				return fail(w, "top chunk at 0x%" PRIx64 ": size 0x%" PRIx64 ", expected at least 0x20, a multiple of 16, up to the heap's end at 0x%" PRIx64,
					    addr, size, end);
			if (add_chunk(w, h, &cap, addr, size, PMAPS_CHUNK_TOP))
				return -1;
			h->end = addr + size;
			break;
		}
		if (!top_here && size <= CHUNK_HDR &&
		    end - addr <= (size ? 2 : 1) * CHUNK_HDR + 15) {
			/* fenceposts: 16, then 0 reaching the end */
			if (add_chunk(w, h, &cap, addr,
				      size ? CHUNK_HDR : end - addr,
				      PMAPS_CHUNK_FENCE))
				return -1;
			addr += size ? CHUNK_HDR : end - addr;
			continue;
		}
		if (size < MINSIZE || size % 16 || size > end - addr ||
		    (raw & IS_MMAPPED))
			return fail(w, "chunk at 0x%" PRIx64 " in heap 0x%" PRIx64 "-0x%" PRIx64 ": size field 0x%" PRIx64 ", expected a multiple of 16 from 0x20 up to the heap's end, IS_MMAPPED clear",
				    addr, h->start, end, raw);
		if (add_chunk(w, h, &cap, addr, size, PMAPS_CHUNK_USED))
			return -1;
		addr += size;
	}
	if (top_here && top && (!h->nr_chunks ||
	    h->chunks[h->nr_chunks - 1].kind != PMAPS_CHUNK_TOP))
		return fail(w, "heap 0x%" PRIx64 "-0x%" PRIx64 ": the chunks end at 0x%" PRIx64 " without meeting the top chunk at 0x%" PRIx64,
			    h->start, end, addr, top);
	if (top_here && !top && (!h->nr_chunks ||
	    h->chunks[h->nr_chunks - 1].kind != PMAPS_CHUNK_TOP))
		return fail(w, "heap 0x%" PRIx64 "-0x%" PRIx64 ": no chunk reaches its end, as the top chunk does",
			    h->start, end);
	/* in use or free: the next chunk's PREV_INUSE */
	for (i = 0; i + 1 < h->nr_chunks; i++) {
		struct pmaps_chunk *c = &h->chunks[i];
		uint64_t next_raw;

		if (c->kind != PMAPS_CHUNK_USED)
			continue;
		if (win64(w, c->addr + c->size + 8, end, &next_raw))
			return -1;
		if (!(next_raw & PREV_INUSE)) {
			c->kind = PMAPS_CHUNK_FREE;
			continue;
		}
		if (win64(w, c->addr + 8, end, &raw))
			return -1;
		if (!(raw & NON_MAIN_ARENA) != a->main)
			odd_arena_bit++;
	}
	if (odd_arena_bit)
		pmaps_heap_note(w->r, "heap 0x%" PRIx64 ": %llu chunks in use have NON_MAIN_ARENA %s, unlike glibc's",
				h->start, odd_arena_bit,
				a->main ? "set" : "clear");
	return 0;
}

/* Where a chunk address is: its heap and index. */
struct where {
	struct pmaps_arena *arena;
	struct pmaps_heap_seg *heap;
	struct pmaps_chunk *chunk;
};

static bool find_chunk(struct walk *w, uint64_t addr, struct where *at)
{
	size_t i, j;

	for (i = 0; i < w->r->nr_arenas; i++) {
		struct pmaps_arena *a = &w->r->arenas[i];

		for (j = 0; j < a->nr_heaps; j++) {
			struct pmaps_heap_seg *h = &a->heaps[j];
			size_t lo = 0, hi = h->nr_chunks;

			if (addr < h->start || addr >= h->end)
				continue;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (h->chunks[mid].addr < addr)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo == h->nr_chunks || h->chunks[lo].addr != addr)
				return false;
			at->arena = a;
			at->heap = h;
			at->chunk = &h->chunks[lo];
			return true;
		}
	}
	return false;
}

static uint64_t total_chunks(const struct walk *w)
{
	uint64_t n = 0;
	size_t i, j;

	for (i = 0; i < w->r->nr_arenas; i++)
		for (j = 0; j < w->r->arenas[i].nr_heaps; j++)
			n += w->r->arenas[i].heaps[j].nr_chunks;
	return n;
}

/* ---- tcache ---- */

/*
 * Check (mark false) or mark the tcache_perthread_struct at user address
 * mem.  Returns 0; -1 with a message when a list is not what glibc keeps.
 */
static int tcache_lists(struct walk *w, uint64_t mem, bool mark)
{
	const struct pmaps_glibc_layout *l = &w->lay;
	unsigned char buf[64 * 2 + 64 * 8];
	unsigned int i;

	if (l->tcache_struct_size > sizeof(buf) ||
	    rd(w, mem, buf, l->tcache_struct_size, "tcache_perthread_struct"))
		return -1;
	for (i = 0; i < l->tcache_bins; i++) {
		uint64_t e, count = 0, n = 0, next;
		struct where at;

		if (l->tcache_count_size == 2) {
			uint16_t c16;

			memcpy(&c16, buf + 2 * i, 2);
			count = c16;
		} else {
			count = buf[i];
		}
		memcpy(&e, buf + l->tcache_entries + 8 * i, 8);
		while (e) {
			if (++n > count)
				return fail(w, "tcache 0x%" PRIx64 " bin %u: more than its count of %" PRIu64 " chunks",
					    mem, i, count);
			if (!find_chunk(w, e - CHUNK_HDR, &at))
				return fail(w, "tcache 0x%" PRIx64 " bin %u: entry 0x%" PRIx64 " is not a chunk of any heap",
					    mem, i, e);
			if (at.chunk->size != MINSIZE + 16ULL * i ||
			    at.chunk->kind != (mark ? PMAPS_CHUNK_USED :
					       at.chunk->kind) ||
			    (at.chunk->kind != PMAPS_CHUNK_USED &&
			     at.chunk->kind != PMAPS_CHUNK_TCACHE))
				return fail(w, "tcache 0x%" PRIx64 " bin %u: chunk 0x%" PRIx64 " of size 0x%" PRIx64 " (%s), expected size 0x%llx, not free by PREV_INUSE, on no other list",
					    mem, i, at.chunk->addr,
					    at.chunk->size,
					    pmaps_chunk_kind_name(at.chunk->kind),
					    MINSIZE + 16ULL * i);
			if (mark)
				at.chunk->kind = PMAPS_CHUNK_TCACHE;
			if (rd64(w, e, &next, "tcache entry"))
				return -1;
			e = reveal(w, e, next);
		}
		if (n != count)
			return fail(w, "tcache 0x%" PRIx64 " bin %u: %" PRIu64 " chunks, expected its count of %" PRIu64,
				    mem, i, n, count);
	}
	return 0;
}

static uint64_t tcache_chunk_size(const struct pmaps_glibc_layout *l)
{
	uint64_t s = (l->tcache_struct_size + 8 + 15) & ~15ULL;

	return s < MINSIZE ? MINSIZE : s;
}

/* The chunk at user address mem is one of a tcache_perthread_struct's
 * size, in use (by PREV_INUSE), in a heap walked. */
static bool tcache_sized(struct walk *w, uint64_t mem)
{
	struct where at;

	return mem >= CHUNK_HDR && find_chunk(w, mem - CHUNK_HDR, &at) &&
	       at.chunk->kind == PMAPS_CHUNK_USED &&
	       at.chunk->size == tcache_chunk_size(&w->lay);
}

static bool in_list(uint64_t v, const uint64_t *list, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (list[k] == v)
			return true;
	return false;
}

/* Bytes below a thread pointer searched for the tcache pointer: libc's
 * static TLS, after the executable's and those of libraries before it. */
#define TLS_SCAN	(64U << 10)

/*
 * The distance below every thread pointer of libc's `tcache` (a static
 * __thread pointer): the least one at which some thread has one of the
 * known tcaches (the first chunks of arenas, made by their first
 * thread), checked on every thread, whose value there must be 0 or a
 * chunk of the tcache's size.  0 when there is none.
 */
static uint64_t tcache_tls_offset(struct walk *w, const uint64_t *known,
				  size_t nr_known)
{
	const struct pmaps_heap_mem *mem = w->mem;
	uint64_t best = 0, x, v;
	size_t t;

	for (t = 0; t < mem->nr_threads; t++) {
		uint64_t tp = mem->thread_ptrs[t], lo;
		const struct pmaps_heap_mapping *m;

		if (tp < 8 || tp % 8 || !(m = find_map(mem, tp - 8)) ||
		    m->perms[0] != 'r')
			continue;
		lo = tp - m->start > TLS_SCAN ? tp - TLS_SCAN : m->start;
		/* once one is found, only a lesser one matters */
		if (best && tp - lo > best)
			lo = tp - best;
		lo = (lo + 7) & ~7ULL;
		w->win_len = 0;		/* the window is a heap's no more */
		if (tp - lo < 8 ||
		    mem->read(mem->ctx, lo, w->win, (size_t)(tp - lo)))
			continue;
		for (x = 8; x <= tp - lo && (!best || x < best); x += 8) {
			memcpy(&v, w->win + (tp - x - lo), 8);
			if (in_list(v, known, nr_known)) {
				best = x;
				break;
			}
		}
	}
	for (t = 0; best && t < mem->nr_threads; t++) {
		uint64_t tp = mem->thread_ptrs[t];

		if (!tp)
			continue;
		v = 0;
		if (tp < best || !readable(w, tp - best, 8) ||
		    mem->read(mem->ctx, tp - best, &v, 8) ||
		    (v && !tcache_sized(w, v))) {
			pmaps_heap_note(w->r, "thread pointer 0x%" PRIx64 ": 0x%" PRIx64 ", %" PRIu64 " bytes below it, where another thread has its tcache, is not a chunk of a tcache's size",
					tp, v, best);
			best = 0;
		}
	}
	return best;
}

/* Mark the tcache at user address mem, unless it is among done[0..*nr);
 * add it there. */
static int tcache_once(struct walk *w, uint64_t mem, uint64_t *done,
		       size_t *nr)
{
	if (in_list(mem, done, *nr))
		return 0;
	if (tcache_lists(w, mem, false) || tcache_lists(w, mem, true))
		return -1;
	done[(*nr)++] = mem;
	return 0;
}

/*
 * Each arena's first chunk is the tcache of the thread that made it.
 * Every other thread's is read from the thread: its `tcache` TLS pointer
 * (tcache_tls_offset()).  Without it, other tcaches are taken to be the
 * chunks of a tcache's size whose lists all check out, which data of
 * that size can fool, and a note says so.
 */
static int tcaches(struct walk *w)
{
	uint64_t size = tcache_chunk_size(&w->lay), found = 0, x, *done;
	size_t i, j, k, nr_done = 0, nr_known;
	int ret = -1;

	if (!w->lay.tcache_bins)
		return 0;
	done = calloc(w->r->nr_arenas + w->mem->nr_threads, sizeof(*done));
	if (!done)
		return fail_other(w, "out of memory");
	/* the first chunks: a tcache, or no arena of glibc's */
	for (i = 0; i < w->r->nr_arenas; i++) {
		struct pmaps_heap_seg *h = w->r->arenas[i].heaps;
		size_t first;

		if (!w->r->arenas[i].nr_heaps)
			continue;
		first = h->nr_chunks && h->chunks[0].kind == PMAPS_CHUNK_HEADER;
		if (first < h->nr_chunks && h->chunks[first].size == size &&
		    h->chunks[first].kind == PMAPS_CHUNK_USED &&
		    tcache_once(w, h->chunks[first].addr + CHUNK_HDR, done,
				&nr_done))
			goto out;
	}
	nr_known = nr_done;
	found = nr_done;
	x = nr_known ? tcache_tls_offset(w, done, nr_known) : 0;
	if (x) {
		for (i = 0; i < w->mem->nr_threads; i++) {
			uint64_t tp = w->mem->thread_ptrs[i], v = 0;

			if (!tp || rd64(w, tp - x, &v, "a thread's tcache pointer"))
				continue;
			if (v && tcache_once(w, v, done, &nr_done))
				goto out;
		}
		found = nr_done;
	} else {
		if (w->mem->nr_threads != 1)
			pmaps_heap_note(w->r, "other threads' tcaches were not read from the threads (%s): chunks of a tcache's size whose lists check out are taken for them",
					w->mem->nr_threads ?
					"no tcache pointer found below their thread pointers" :
					"their thread pointers are not known");
		for (i = 0; i < w->r->nr_arenas; i++) {
			struct pmaps_arena *a = &w->r->arenas[i];

			for (j = 0; j < a->nr_heaps; j++) {
				struct pmaps_heap_seg *h = &a->heaps[j];

				for (k = 0; k < h->nr_chunks; k++) {
					struct pmaps_chunk *c = &h->chunks[k];
					uint64_t mem = c->addr + CHUNK_HDR;

					if (c->kind != PMAPS_CHUNK_USED ||
					    c->size != size ||
					    in_list(mem, done, nr_known))
						continue;
					/* data of that size: not a tcache */
					if (tcache_lists(w, mem, false))
						continue;
					if (tcache_lists(w, mem, true))
						goto out;
					found++;
				}
			}
		}
	}
	if (!found)
		pmaps_heap_note(w->r, "no tcache found: chunks in tcaches are counted as in use");
	ret = 0;
out:
	free(done);
	return ret;
}

/* ---- fastbins and bins ---- */

static int fastbins(struct walk *w, struct pmaps_arena *a)
{
	uint64_t bound = total_chunks(w);
	unsigned int i;

	for (i = 0; i < w->lay.nr_fastbins; i++) {
		uint64_t p, n = 0, fd;
		struct where at;

		if (rd64(w, a->addr + w->lay.ms_fastbins + 8 * i, &p,
			 "malloc_state.fastbinsY"))
			return -1;
		while (p) {
			if (++n > bound || !find_chunk(w, p, &at) ||
			    at.arena != a ||
			    at.chunk->kind != PMAPS_CHUNK_USED ||
			    at.chunk->size != MINSIZE + 16ULL * i)
				return fail(w, "arena 0x%" PRIx64 " fastbin %u: 0x%" PRIx64 " is not a chunk of the arena of size 0x%llx, not free by PREV_INUSE, on no other list",
					    a->addr, i, p, MINSIZE + 16ULL * i);
			at.chunk->kind = PMAPS_CHUNK_FASTBIN;
			if (rd64(w, p + 16, &fd, "fastbin chunk's fd"))
				return -1;
			p = reveal(w, p + 16, fd);
		}
	}
	return 0;
}

static unsigned int largebin_index(uint64_t sz)
{
	if ((sz >> 6) <= 48)
		return 48 + (unsigned int)(sz >> 6);
	if ((sz >> 9) <= 20)
		return 91 + (unsigned int)(sz >> 9);
	if ((sz >> 12) <= 10)
		return 110 + (unsigned int)(sz >> 12);
	if ((sz >> 15) <= 4)
		return 119 + (unsigned int)(sz >> 15);
	if ((sz >> 18) <= 2)
		return 124 + (unsigned int)(sz >> 18);
	return 126;
}

static bool fits_bin(unsigned int bin, uint64_t size)
{
	if (bin == 1)
		return true;
	if (bin < NSMALLBINS)
		return size == 16ULL * bin;
	return size >= 16ULL * NSMALLBINS && largebin_index(size) == bin;
}

static int bins(struct walk *w, struct pmaps_arena *a)
{
	uint64_t bound = total_chunks(w);
	unsigned int i;

	for (i = 1; i < NBINS; i++) {
		uint64_t head = a->addr + w->lay.ms_bins + 16ULL * (i - 1) - 16;
		uint64_t p, prev = head, bk, n = 0;
		struct where at;

		if (rd64(w, head + 16, &p, "malloc_state.bins"))
			return -1;
		while (p != head) {
			if (++n > bound || !find_chunk(w, p, &at) ||
			    at.arena != a ||
			    at.chunk->kind != PMAPS_CHUNK_FREE ||
			    !fits_bin(i, at.chunk->size))
				return fail(w, "arena 0x%" PRIx64 " bin %u: 0x%" PRIx64 " is not a free chunk of the arena that fits the bin, on no other list",
					    a->addr, i, p);
			if (rd64(w, p + 24, &bk, "bin chunk's bk"))
				return -1;
			if (bk != prev)
				return fail(w, "arena 0x%" PRIx64 " bin %u: chunk 0x%" PRIx64 " has bk 0x%" PRIx64 ", expected 0x%" PRIx64,
					    a->addr, i, p, bk, prev);
			at.chunk->kind = i == 1 ? PMAPS_CHUNK_UNSORTED :
					 i < NSMALLBINS ? PMAPS_CHUNK_SMALLBIN :
					 PMAPS_CHUNK_LARGEBIN;
			prev = p;
			if (rd64(w, p + 16, &p, "bin chunk's fd"))
				return -1;
		}
	}
	return 0;
}

/* ---- finding arenas ---- */

static bool is_anon(const struct pmaps_heap_mapping *m)
{
	return !m->name[0] || !strncmp(m->name, "[anon", 5);
}

static bool is_libc(const struct pmaps_heap_mapping *m)
{
	const char *base = strrchr(m->name, '/');

	base = base ? base + 1 : m->name;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-2.", 7);
}

/* A thread heap's heap_info at h: ar_ptr, prev, size, mprotect_size. */
struct heap_info {
	uint64_t ar_ptr, prev, size, mprotect_size;
};

static bool heap_info_at(struct walk *w, uint64_t h, struct heap_info *hi)
{
	const struct pmaps_heap_mapping *m = find_map(w->mem, h);

	if (!m || strcmp(m->perms, "rw-p") || !is_anon(m) ||
	    !readable(w, h, sizeof(*hi)) ||
	    w->mem->read(w->mem->ctx, h, hi, sizeof(*hi)))
		return false;
	return hi->size >= PAGE && hi->size <= HEAP_MAX_SIZE &&
	       hi->size <= m->end - h && !(hi->prev % HEAP_MAX_SIZE);
}

/* The arena's heaps, from the one holding top back by prev. */
static int thread_heaps(struct walk *w, struct pmaps_arena *a, uint64_t top)
{
	uint64_t h = top & ~(HEAP_MAX_SIZE - 1);
	size_t n = 0;

	while (h) {
		struct heap_info hi;
		struct pmaps_heap_seg *seg;
		bool first;
		uint64_t start;

		if (++n > w->mem->nr_maps ||
		    !heap_info_at(w, h, &hi) || hi.ar_ptr != a->addr)
			return fail(w, "arena 0x%" PRIx64 ": heap 0x%" PRIx64 " has no heap_info of that arena (ar_ptr, prev, size up to 64 MiB)",
				    a->addr, h);
		first = !hi.prev;
		if (first && a->addr != h + w->lay.heap_info_size)
			return fail(w, "arena 0x%" PRIx64 ": expected it %u bytes into its first heap 0x%" PRIx64,
				    a->addr, w->lay.heap_info_size, h);
		seg = add_heap(w, a, h, h + hi.size);
		if (!seg)
			return -1;
		start = first ? (a->addr + w->lay.ms_size + 15) & ~15ULL :
			h + w->lay.heap_info_size;
		if (start >= seg->end)
			return fail(w, "heap 0x%" PRIx64 ": size %" PRIu64 " leaves no room for chunks",
				    h, hi.size);
		if (walk_heap(w, a, seg, start, top, n == 1))
			return -1;
		h = hi.prev;
	}
	/* the order they were made in, the arena's own heap first */
	for (n = 0; n < a->nr_heaps / 2; n++) {
		struct pmaps_heap_seg t = a->heaps[n];

		a->heaps[n] = a->heaps[a->nr_heaps - 1 - n];
		a->heaps[a->nr_heaps - 1 - n] = t;
	}
	return 0;
}

/* A thread arena's malloc_state at addr: its top and next. */
static int arena_state(struct walk *w, uint64_t addr, uint64_t *top,
		       uint64_t *next)
{
	return rd64(w, addr + w->lay.ms_top, top, "malloc_state.top") ||
	       rd64(w, addr + w->lay.ms_next, next, "malloc_state.next");
}

/*
 * The ring of arenas from main_arena (given), or, without it, from every
 * thread heap found by its alignment.  Adds the thread arenas; sets
 * *main_arena when the ring shows it.
 */
static int find_thread_arenas(struct walk *w, uint64_t *main_arena)
{
	uint64_t start = *main_arena, a, top, next;
	size_t n = 0, i;

	if (!start) {
		/* the first heap of each thread arena: prev 0, ar_ptr in it */
		for (i = 0; i < w->mem->nr_maps && !start; i++) {
			const struct pmaps_heap_mapping *m = &w->mem->maps[i];
			uint64_t h = (m->start + HEAP_MAX_SIZE - 1) &
				     ~(HEAP_MAX_SIZE - 1);
			struct heap_info hi;

			for (; h >= m->start && h < m->end;
			     h += HEAP_MAX_SIZE) {
				if (heap_info_at(w, h, &hi) && !hi.prev &&
				    (hi.ar_ptr == h + 32 || hi.ar_ptr == h + 48)) {
					start = hi.ar_ptr;
					if (w->lay.heap_info_size !=
					    hi.ar_ptr - h) {
						pmaps_heap_note(w->r, "heap_info is %" PRIu64 " bytes in this process, not %u as in glibc %d.%d",
								hi.ar_ptr - h,
								w->lay.heap_info_size,
								w->lay.major,
								w->lay.minor);
						w->lay.heap_info_size =
							(unsigned int)(hi.ar_ptr - h);
					}
					break;
				}
				if (h + HEAP_MAX_SIZE < h)
					break;
			}
		}
		if (!start)
			return 0;	/* no thread arena */
	}
	a = start;
	do {
		bool is_thread = (a & (HEAP_MAX_SIZE - 1)) ==
				 w->lay.heap_info_size;

		if (++n > MAX_ARENAS)
			return fail(w, "the ring of arenas from 0x%" PRIx64 " does not close in %d arenas",
				    start, MAX_ARENAS);
		if (arena_state(w, a, &top, &next))
			return -1;
		if (!is_thread || a == *main_arena) {
			/* main_arena: not in a heap */
			if (*main_arena && a != *main_arena)
				return fail(w, "arena 0x%" PRIx64 " in the ring is neither main_arena 0x%" PRIx64 " nor %u bytes into a 64 MiB aligned heap",
					    a, *main_arena, w->lay.heap_info_size);
			*main_arena = a;
		} else {
			struct pmaps_arena *ar;

			for (i = 0; i < w->r->nr_arenas; i++)
				if (w->r->arenas[i].addr == a)
					return fail(w, "arena 0x%" PRIx64 " comes twice in the ring of arenas",
						    a);
			ar = add_arena(w, a, false);
			if (!ar || thread_heaps(w, ar, top))
				return -1;
			ar->state_read = true;
		}
		a = next;
	} while (a != start);
	return 0;
}

/* The main heap, [heap]: from sbrk_base (or its start) to its top. */
static int main_heap(struct walk *w, struct pmaps_arena *a, uint64_t top)
{
	const struct pmaps_heap_mapping *m = w->brk_map;
	uint64_t start = m->start;
	struct pmaps_heap_seg *h;

	if (w->lay.have_mp && w->lay.sbrk_base) {
		if (w->lay.sbrk_base < m->start || w->lay.sbrk_base >= m->end)
			return fail(w, "mp_.sbrk_base 0x%" PRIx64 " is not in [heap] 0x%" PRIx64 "-0x%" PRIx64,
				    w->lay.sbrk_base, m->start, m->end);
		start = w->lay.sbrk_base;
	}
	if (top && (top < start || top >= m->end))
		return fail(w, "main_arena.top 0x%" PRIx64 " is not in [heap] 0x%" PRIx64 "-0x%" PRIx64,
			    top, start, m->end);
	h = add_heap(w, a, start, m->end);
	if (!h || walk_heap(w, a, h, (start + 15) & ~15ULL, top, true))
		return -1;
	w->main_top = h->chunks[h->nr_chunks - 1].addr;
	return 0;
}

/*
 * main_arena without debug symbols: the one word in libc's writable data
 * that points at the [heap]'s top chunk, at malloc_state.top.  Returns
 * its address, or 0 when there is not exactly one.
 */
static uint64_t main_arena_by_top(struct walk *w)
{
	uint64_t found = 0, nr = 0;
	size_t i;

	for (i = 0; i < w->mem->nr_maps; i++) {
		const struct pmaps_heap_mapping *m = &w->mem->maps[i];
		uint64_t addr;

		if (strcmp(m->perms, "rw-p") || !is_libc(m))
			continue;
		for (addr = m->start; addr < m->end; addr += WINDOW) {
			size_t len = m->end - addr < WINDOW ?
				     (size_t)(m->end - addr) : WINDOW;
			size_t off;

			if (w->mem->read(w->mem->ctx, addr, w->win, len)) {
				/*
				 * A page the reader would not read (a page of
				 * the file the process never wrote, which a
				 * read would fault in) holds no pointer to
				 * the heap: the others, page by page.
				 */
				for (off = 0; off < len; off += PAGE) {
					size_t n = len - off < PAGE ?
						   len - off : PAGE;

					if (w->mem->read(w->mem->ctx, addr + off,
							 w->win + off, n))
						memset(w->win + off, 0, n);
				}
			}
			for (off = 0; off + 8 <= len; off += 8) {
				uint64_t v;

				memcpy(&v, w->win + off, 8);
				if (v == w->main_top &&
				    addr + off >= m->start + w->lay.ms_top) {
					found = addr + off - w->lay.ms_top;
					nr++;
				}
			}
		}
	}
	w->win_len = 0;
	return nr == 1 ? found : 0;
}

/* main_arena's top and system_mem agree with the [heap] walked. */
static bool main_arena_checks(struct walk *w, uint64_t addr)
{
	uint64_t top, next, sys;
	const struct pmaps_heap_seg *h = &w->r->arenas[0].heaps[0];

	return !arena_state(w, addr, &top, &next) && top == w->main_top &&
	       !rd64(w, addr + w->lay.ms_system_mem, &sys, "system_mem") &&
	       sys >= h->end - h->start;
}

/* ---- mmapped chunks ---- */

/*
 * Pages of anonymous memory whose first 16 bytes are read for the header
 * of a chunk served by mmap, at most: bounded work in a process with much
 * of it (1 GiB of 4 KiB pages).
 */
#define MMAP_SCAN_PAGES	(1U << 18)
/* Headers read in one call. */
#define MMAP_SCAN_BATCH	256

/*
 * The first part of [addr, end) known to be a heap or a stack, not chunks
 * served by mmap: a heap, or for a thread arena's the 64 MiB reserved for
 * it, whose rw part can merge with a mapping below; a thread's stack,
 * from its guard page up to its thread pointer's page (glibc puts struct
 * pthread, less than a page, at the top), which can merge with a mapping
 * above.  Returns its start (end when there is none) and its end in
 * *skip_end.
 */
static uint64_t next_heap(const struct walk *w, uint64_t addr, uint64_t end,
			  uint64_t *skip_end)
{
	uint64_t best = end;
	size_t i, j;

	*skip_end = end;
	for (i = 0; i < w->mem->nr_threads; i++) {
		uint64_t tp = w->mem->thread_ptrs[i], s, e;
		const struct pmaps_heap_mapping *m = find_map(w->mem, tp);

		/* a stack of glibc's: right above a guard page */
		if (!m || m == w->mem->maps || m[-1].end != m->start ||
		    m[-1].perms[0] != '-')
			continue;
		s = m->start;
		e = (tp + PAGE) & ~(PAGE - 1);
		if (e <= addr || s >= best)
			continue;
		best = s > addr ? s : addr;
		*skip_end = e;
	}
	for (i = 0; i < w->r->nr_arenas; i++) {
		const struct pmaps_arena *a = &w->r->arenas[i];

		for (j = 0; j < a->nr_heaps; j++) {
			uint64_t s = a->heaps[j].start, e = a->heaps[j].end;

			if (!a->main) {
				s &= ~(HEAP_MAX_SIZE - 1);
				e = s + HEAP_MAX_SIZE;
			}
			if (e <= addr || s >= best)
				continue;
			best = s > addr ? s : addr;
			*skip_end = e;
		}
	}
	return best;
}

/*
 * The header of a chunk served by mmap at addr, below limit: prev_size 0
 * (the mmap is page aligned, no offset), IS_MMAPPED alone, and a size in
 * whole pages that fits.
 */
static bool mmapped_header(const uint64_t hdr[2], uint64_t addr,
			   uint64_t limit)
{
	uint64_t size = hdr[1] & ~SIZE_BITS;

	return !hdr[0] && (hdr[1] & SIZE_BITS) == IS_MMAPPED &&
	       size >= PAGE && !(size % PAGE) && size <= limit - addr;
}

/*
 * Of the n pages at addrs, one after the other, those in memory or in
 * swap, moved to the front: how many.  All n when that is not known.
 */
static size_t only_resident(struct walk *w, uint64_t *addrs, size_t n)
{
	bool in[MMAP_SCAN_BATCH];
	size_t k, kept = 0;

	if (!w->mem->resident || n > MMAP_SCAN_BATCH ||
	    w->mem->resident(w->mem->ctx, addrs[0], n, in))
		return n;
	for (k = 0; k < n; k++)
		if (in[k])
			addrs[kept++] = addrs[k];
	return kept;
}

/* The 16 bytes at each of n addresses; one that cannot be read is 0s. */
static void read_headers(struct walk *w, const uint64_t *addrs, size_t n,
			 uint64_t (*hdrs)[2])
{
	size_t k;

	if (w->mem->read_each &&
	    !w->mem->read_each(w->mem->ctx, addrs, n, sizeof(hdrs[0]), hdrs))
		return;
	for (k = 0; k < n; k++)
		if (w->mem->read(w->mem->ctx, addrs[k], hdrs[k],
				 sizeof(hdrs[k])))
			memset(hdrs[k], 0, sizeof(hdrs[k]));
}

typedef const struct pmaps_heap_mapping *map_ptr;

static int by_size(const void *a, const void *b)
{
	map_ptr x = *(const map_ptr *)a, y = *(const map_ptr *)b;
	uint64_t sx = x->end - x->start, sy = y->end - y->start;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_addr(const void *a, const void *b)
{
	const struct pmaps_chunk *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Chunks served by mmap: page-aligned chunk headers in anonymous rw
 * mappings.  Not only where a mapping begins: the kernel merges adjacent
 * anonymous mappings, so a chunk can start on any page of one, after
 * another chunk or after memory that is no chunk.  Every page not inside
 * a chunk found, a heap or a stack is looked at, MMAP_SCAN_BATCH headers
 * a read, the smallest mappings first: a large one (a reservation, a
 * sanitizer's shadow) is where the bound is met, and beyond it a mapping
 * is looked at only where it begins and after each chunk found there.
 */
static int mmapped_chunks(struct walk *w)
{
	uint64_t addrs[MMAP_SCAN_BATCH], hdrs[MMAP_SCAN_BATCH][2];
	uint64_t bytes = 0, pages = 0, max_pages = w->mem->scan_pages ?
		 w->mem->scan_pages : MMAP_SCAN_PAGES;
	map_ptr *order;
	size_t i, cap = 0, nr_order = 0;
	bool capped = false;

	order = calloc(w->mem->nr_maps + 1, sizeof(*order));
	if (!order)
		return fail_other(w, "out of memory");
	for (i = 0; i < w->mem->nr_maps; i++) {
		const struct pmaps_heap_mapping *m = &w->mem->maps[i];

		if (!strcmp(m->perms, "rw-p") && is_anon(m) &&
		    strcmp(m->name, "[heap]") && !(m->start % PAGE) &&
		    m->end > m->start)
			order[nr_order++] = m;
	}
	qsort(order, nr_order, sizeof(*order), by_size);
	for (i = 0; i < nr_order; i++) {
		const struct pmaps_heap_mapping *m = order[i];
		uint64_t addr = m->start;

		while (addr < m->end) {
			uint64_t skip_end, limit, next;
			size_t n = 0, k;
			bool found = false;

			limit = next_heap(w, addr, m->end, &skip_end);
			if (limit == addr) {
				addr = (skip_end + PAGE - 1) & ~(PAGE - 1);
				continue;
			}
			while (n < (capped ? 1 : MMAP_SCAN_BATCH) &&
			       addr + n * PAGE < limit &&
			       limit - (addr + n * PAGE) >= PAGE) {
				addrs[n] = addr + n * PAGE;
				n++;
			}
			if (!n) {
				addr = limit;
				continue;
			}
			if (!capped && pages + n > max_pages) {
				capped = true;
				n = 1;
			}
			pages += n;
			next = addrs[n - 1] + PAGE;
			n = only_resident(w, addrs, n);
			read_headers(w, addrs, n, hdrs);
			for (k = 0; k < n; k++) {
				uint64_t size = hdrs[k][1] & ~SIZE_BITS;

				if (addrs[k] < addr ||
				    !mmapped_header(hdrs[k], addrs[k], limit))
					continue;
				if (pmaps_grow_array((void **)&w->r->mmapped,
						     &cap, w->r->nr_mmapped + 1,
						     sizeof(*w->r->mmapped))) {
					free(order);
					return fail_other(w, "out of memory");
				}
				w->r->mmapped[w->r->nr_mmapped].addr = addrs[k];
				w->r->mmapped[w->r->nr_mmapped].size = size;
				w->r->mmapped[w->r->nr_mmapped++].kind =
					PMAPS_CHUNK_USED;
				bytes += size;
				found = true;
				/* its pages are its data: not looked at */
				addr = addrs[k] + size;
			}
			if (capped && !found)
				break;
			if (next > addr)
				addr = next;
		}
	}
	free(order);
	if (w->r->nr_mmapped)
		qsort(w->r->mmapped, w->r->nr_mmapped,
		      sizeof(*w->r->mmapped), by_addr);
	if (capped)
		pmaps_heap_note(w->r, "chunks served by mmap were looked for on %" PRIu64 " pages of anonymous memory, the smallest mappings first, then only where a mapping begins: there may be more",
				max_pages);
	if (!w->lay.have_mp)
		pmaps_heap_note(w->r, "chunks served by mmap are found by their headers; without mp_ from debug symbols their count is not checked");
	else if ((long long)w->r->nr_mmapped != w->lay.n_mmaps ||
		 bytes != w->lay.mmapped_mem)
		pmaps_heap_note(w->r, "mp_ counts %lld chunks served by mmap, %" PRIu64 " bytes; %zu found, %" PRIu64 " bytes",
				w->lay.n_mmaps, w->lay.mmapped_mem,
				w->r->nr_mmapped, bytes);
	return 0;
}

/* ---- totals ---- */

static void arena_stats(struct pmaps_arena *a)
{
	struct pmaps_arena_stats *s = &a->stats;
	size_t j, k;

	memset(s, 0, sizeof(*s));
	for (j = 0; j < a->nr_heaps; j++) {
		const struct pmaps_heap_seg *h = &a->heaps[j];

		s->heap_size += h->end - h->start;
		s->nr_chunks += h->nr_chunks;
		for (k = 0; k < h->nr_chunks; k++) {
			const struct pmaps_chunk *c = &h->chunks[k];

			if (!pmaps_chunk_kind_free(c->kind)) {
				s->used += c->size;
				continue;
			}
			s->free += c->size;
			if (c->kind == PMAPS_CHUNK_TOP) {
				s->top += c->size;
				continue;
			}
			s->nr_free++;
			if (c->size > s->largest_free)
				s->largest_free = c->size;
			if (c->kind == PMAPS_CHUNK_TCACHE)
				s->tcache += c->size;
			else if (c->kind == PMAPS_CHUNK_FASTBIN)
				s->fastbins += c->size;
			else if (c->kind == PMAPS_CHUNK_FREE)
				s->unlisted += c->size;
			else
				s->bins += c->size;
		}
	}
}

/* ---- the walk ---- */

static int walk(struct walk *w)
{
	uint64_t main_arena = w->lay.main_arena, main_top = 0, next;
	struct pmaps_arena *main;
	size_t i;

	for (i = 0; i < w->mem->nr_maps; i++)
		if (!strcmp(w->mem->maps[i].name, "[heap]"))
			w->brk_map = &w->mem->maps[i];
	if (main_arena) {
		if (arena_state(w, main_arena, &main_top, &next))
			return -1;
		if (!main_top)
			return fail_other(w, "main_arena at 0x%" PRIx64 " has no top chunk: this process has not used glibc's malloc",
				    main_arena);
	}
	main = add_arena(w, main_arena, true);
	if (!main)
		return -1;
	if (w->brk_map) {
		if (main_heap(w, main, main_top))
			return -1;
	} else if (main_arena && main_top != main_arena + w->lay.ms_bins - 16) {
		/* top is not the initial one, in the bins: not in [heap] */
		pmaps_heap_note(w->r, "the main arena's top 0x%" PRIx64 " is not in a [heap]: its non-contiguous heap is not shown",
				main_top);
	}
	if (find_thread_arenas(w, &main_arena))
		return -1;
	w->r->arenas[0].addr = main_arena;
	if (!w->brk_map && w->r->nr_arenas == 1)
		return fail_other(w, "no glibc malloc heap: no [heap] mapping and no 64 MiB aligned heap of a thread arena");
	if (!w->lay.main_arena && main_arena && w->brk_map &&
	    !main_arena_checks(w, main_arena))
		return fail(w, "main_arena 0x%" PRIx64 ", found by the ring of arenas, has a top or system_mem unlike the [heap] walked",
			    main_arena);
	if (!main_arena && w->brk_map) {
		main_arena = main_arena_by_top(w);
		if (main_arena && !main_arena_checks(w, main_arena))
			main_arena = 0;
		w->r->arenas[0].addr = main_arena;
	}
	if (!w->lay.main_arena && main_arena)
		pmaps_heap_note(w->r, "main_arena found at 0x%" PRIx64 " by %s, without debug symbols",
				main_arena, w->r->nr_arenas > 1 ?
				"the ring of arenas" :
				"the one pointer in libc's data to the top chunk");
	w->r->arenas[0].state_read = main_arena && w->brk_map;
	if (!w->r->arenas[0].state_read && w->brk_map)
		pmaps_heap_note(w->r, "main_arena not found: in the main arena, fastbin chunks are counted as in use, and free chunks are on no known bin");
	if (tcaches(w))
		return -1;
	for (i = 0; i < w->r->nr_arenas; i++) {
		struct pmaps_arena *a = &w->r->arenas[i];

		if (a->state_read && (fastbins(w, a) || bins(w, a)))
			return -1;
	}
	if (mmapped_chunks(w))
		return -1;
	for (i = 0; i < w->r->nr_arenas; i++)
		arena_stats(&w->r->arenas[i]);
	return 0;
}

int pmaps_heap_walk(const struct pmaps_heap_mem *mem,
		    const struct pmaps_glibc_layout *lay,
		    struct pmaps_heap_report *out, char *err, size_t errlen)
{
	struct walk w = {
		.mem = mem, .lay = *lay, .r = out, .err = err,
		.errlen = errlen,
	};
	int ret;

	if (!lay->major) {
		snprintf(err, errlen, "no glibc version known: the layout of its malloc cannot be chosen");
		return -2;
	}
	out->layout = *lay;
	w.win = malloc(WINDOW);
	if (!w.win) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ret = walk(&w);
	free(w.win);
	out->layout = w.lay;
	if (ret) {
		pmaps_heap_report_free(out);
		ret = w.not_corrupt ? -2 : -1;
	}
	return ret;
}
