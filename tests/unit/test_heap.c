// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk walker (userspace/lib/heap.c) on memory images built chunk by
 * chunk with glibc 2.36's layout: a main arena whose heap has a chunk on
 * every kind of list, with main_arena given (as debug symbols give it),
 * found without it, and not found; a thread arena; chunks served by mmap
 * in merged mappings; threads' tcache pointers; and heaps corrupted in
 * the ways the walker must refuse with a message, not a crash or a loop.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../userspace/lib/heap.h"
#include "../guest/tap.h"
#include "heap_image.h"

#define LIBC_DATA	0x7f0000000000ULL
#define MAIN_ARENA	(LIBC_DATA + 0x1000)
#define BRK		0x555555560000ULL
#define BRK_SIZE	0x21000ULL
#define THREAD_HEAP	0x7f1004000000ULL
#define TCACHE_CHUNK	0x290ULL

/* The main heap's chunks, in order (offsets from BRK). */
enum { TC, A, B, C, D, E, F, G, H, TOP, NR_CH };
static const uint64_t ch_size[NR_CH] = {
	[TC] = TCACHE_CHUNK, [A] = 0x20, [B] = 0x20, [C] = 0x20, [D] = 0x30,
	[E] = 0x100, [F] = 0x30, [G] = 0x500, [H] = 0x30,
};
static uint64_t ch_addr[NR_CH];

static struct pmaps_glibc_layout lay;

static uint64_t bin_head(uint64_t arena, unsigned int bin)
{
	return arena + lay.ms_bins + 16ULL * (bin - 1) - 16;
}

/* Every bin of the arena empty: fd and bk at its own head. */
static void empty_bins(struct img *im, uint64_t arena)
{
	unsigned int i;

	for (i = 1; i < 128; i++) {
		img_put64(im, bin_head(arena, i) + 16, bin_head(arena, i));
		img_put64(im, bin_head(arena, i) + 24, bin_head(arena, i));
	}
}

/* Put chunk p alone on bin of arena. */
static void bin_one(struct img *im, uint64_t arena, unsigned int bin,
		    uint64_t p)
{
	uint64_t head = bin_head(arena, bin);

	img_put64(im, head + 16, p);
	img_put64(im, head + 24, p);
	img_put64(im, p + 16, head);
	img_put64(im, p + 24, head);
}

/*
 * The main heap: a tcache struct with B in bin 0, C in fastbin 0, E in
 * small bin 16, G in the unsorted bin; A, D, F, H in use; then top.
 */
static void build_main(struct img *im, bool libc_named)
{
	uint64_t addr = BRK, top_size;
	unsigned int i;

	img_add(im, BRK, BRK_SIZE, "rw-p", "[heap]");
	img_add(im, LIBC_DATA, 0x4000, "rw-p",
		libc_named ? "/usr/lib/x86_64-linux-gnu/libc.so.6" : "");
	for (i = 0; i < TOP; i++) {
		ch_addr[i] = addr;
		addr += ch_size[i];
	}
	ch_addr[TOP] = addr;
	top_size = BRK + BRK_SIZE - addr;
	for (i = 0; i < NR_CH; i++) {
		uint64_t size = i == TOP ? top_size : ch_size[i];
		/* PREV_INUSE: clear after the free chunks E and G */
		bool prev_free = i > 0 && (i - 1 == E || i - 1 == G);

		img_put64(im, ch_addr[i] + 8, size | (prev_free ? 0 : 1));
		if (prev_free)
			img_put64(im, ch_addr[i], ch_size[i - 1]);
	}
	/* tcache: counts[0] 1, entries[0] B's user address, next NULL */
	img_at(im, ch_addr[TC] + 16, 2)[0] = 1;
	img_put64(im, ch_addr[TC] + 16 + lay.tcache_entries, ch_addr[B] + 16);
	img_put64(im, ch_addr[B] + 16, (ch_addr[B] + 16) >> 12);
	/* main_arena */
	empty_bins(im, MAIN_ARENA);
	img_put64(im, MAIN_ARENA + lay.ms_top, ch_addr[TOP]);
	img_put64(im, MAIN_ARENA + lay.ms_next, MAIN_ARENA);
	img_put64(im, MAIN_ARENA + lay.ms_system_mem, BRK_SIZE);
	img_put64(im, MAIN_ARENA + lay.ms_fastbins, ch_addr[C]);
	img_put64(im, ch_addr[C] + 16, (ch_addr[C] + 16) >> 12);
	bin_one(im, MAIN_ARENA, 16, ch_addr[E]);
	bin_one(im, MAIN_ARENA, 1, ch_addr[G]);
}

static int walk(struct img *im, uint64_t main_arena,
		struct pmaps_heap_report *r, char *err, size_t len)
{
	struct pmaps_glibc_layout l = lay;

	l.main_arena = main_arena;
	memset(r, 0, sizeof(*r));
	err[0] = '\0';
	return pmaps_heap_walk(&im->mem, &l, r, err, len);
}

static bool has_note(const struct pmaps_heap_report *r, const char *s)
{
	size_t i;

	for (i = 0; i < r->nr_notes; i++)
		if (strstr(r->notes[i], s))
			return true;
	return false;
}

/* The main heap's kinds as expected; fastbin and bins when known. */
static void check_main(const struct pmaps_heap_report *r, bool lists)
{
	static const enum pmaps_chunk_kind known[NR_CH] = {
		PMAPS_CHUNK_USED, PMAPS_CHUNK_USED, PMAPS_CHUNK_TCACHE,
		PMAPS_CHUNK_FASTBIN, PMAPS_CHUNK_USED, PMAPS_CHUNK_SMALLBIN,
		PMAPS_CHUNK_USED, PMAPS_CHUNK_UNSORTED, PMAPS_CHUNK_USED,
		PMAPS_CHUNK_TOP,
	};
	const struct pmaps_heap_seg *h;
	unsigned int i;

	tap_check(r->nr_arenas >= 1 && r->arenas[0].main &&
		  r->arenas[0].nr_heaps == 1, "one main arena with one heap");
	if (!r->nr_arenas || r->arenas[0].nr_heaps != 1)
		return;
	h = &r->arenas[0].heaps[0];
	tap_check(h->nr_chunks == NR_CH, "%zu chunks, expected %d",
		  h->nr_chunks, NR_CH);
	for (i = 0; i < NR_CH && i < h->nr_chunks; i++) {
		enum pmaps_chunk_kind want = known[i];

		if (!lists && want == PMAPS_CHUNK_FASTBIN)
			want = PMAPS_CHUNK_USED;
		else if (!lists && (want == PMAPS_CHUNK_SMALLBIN ||
				    want == PMAPS_CHUNK_UNSORTED))
			want = PMAPS_CHUNK_FREE;
		tap_check(h->chunks[i].addr == ch_addr[i] &&
			  h->chunks[i].kind == want,
			  "chunk %u: 0x%" PRIx64 " %s, expected 0x%" PRIx64 " %s",
			  i, h->chunks[i].addr,
			  pmaps_chunk_kind_name(h->chunks[i].kind), ch_addr[i],
			  pmaps_chunk_kind_name(want));
	}
}

static void test_main_with_symbols(void)
{
	struct pmaps_heap_report r;
	struct img im;
	char err[512];

	img_init(&im);
	build_main(&im, true);
	tap_check(!walk(&im, MAIN_ARENA, &r, err, sizeof(err)),
		  "walk: %s", err);
	check_main(&r, true);
	if (r.nr_arenas) {
		const struct pmaps_arena_stats *s = &r.arenas[0].stats;

		tap_check(s->tcache == 0x20 && s->fastbins == 0x20 &&
			  s->bins == 0x600 && s->nr_free == 4 &&
			  s->largest_free == 0x500 &&
			  s->heap_size == BRK_SIZE &&
			  s->used + s->free == BRK_SIZE,
			  "stats: tcache %" PRIu64 " fastbins %" PRIu64 " bins %" PRIu64 " free chunks %" PRIu64 " largest %" PRIu64,
			  s->tcache, s->fastbins, s->bins, s->nr_free,
			  s->largest_free);
	}
	pmaps_heap_report_free(&r);
	img_free(&im);
	tap_test_done("main_arena_from_symbols");
}

static void test_main_found_by_top(void)
{
	struct pmaps_heap_report r;
	struct img im;
	char err[512];

	img_init(&im);
	build_main(&im, true);
	tap_check(!walk(&im, 0, &r, err, sizeof(err)), "walk: %s", err);
	check_main(&r, true);
	tap_check(r.nr_arenas && r.arenas[0].addr == MAIN_ARENA,
		  "main_arena found at 0x%" PRIx64,
		  r.nr_arenas ? r.arenas[0].addr : 0);
	tap_check(has_note(&r, "main_arena found at"),
		  "a note says how main_arena was found");
	pmaps_heap_report_free(&r);
	img_free(&im);
	tap_test_done("main_arena_found_by_top");
}

static void test_main_not_found(void)
{
	struct pmaps_heap_report r;
	struct img im;
	char err[512];

	img_init(&im);
	build_main(&im, false);		/* no libc to search */
	tap_check(!walk(&im, 0, &r, err, sizeof(err)), "walk: %s", err);
	check_main(&r, false);
	tap_check(has_note(&r, "fastbin chunks are counted as in use"),
		  "a note says what could not be known");
	pmaps_heap_report_free(&r);
	img_free(&im);
	tap_test_done("main_arena_not_found_said");
}

/* A thread arena in its own heap, on the ring with main_arena. */
/*
 * A thread arena in its own heap at THREAD_HEAP, on the ring with
 * main_arena: header, tcache, a chunk in use, top.  Its mapping begins
 * below bytes earlier, as when the kernel merged it with one below.
 */
static void build_thread(struct img *im, uint64_t below)
{
	uint64_t arena = THREAD_HEAP + lay.heap_info_size;
	uint64_t first = (arena + lay.ms_size + 15) & ~15ULL;
	uint64_t used = first + TCACHE_CHUNK, top = used + 0x40;
	uint64_t size = 0x21000, end = THREAD_HEAP + size;

	img_add(im, THREAD_HEAP - below, size + below, "rw-p", "");
	img_put64(im, THREAD_HEAP, arena);	/* ar_ptr */
	img_put64(im, THREAD_HEAP + 16, size);
	img_put64(im, THREAD_HEAP + 24, size);
	empty_bins(im, arena);
	img_put64(im, arena + lay.ms_top, top);
	img_put64(im, arena + lay.ms_next, MAIN_ARENA);
	img_put64(im, MAIN_ARENA + lay.ms_next, arena);
	img_put64(im, first + 8, TCACHE_CHUNK | 5);
	img_put64(im, used + 8, 0x40 | 5);
	img_put64(im, top + 8, (end - top) | 1);
}

static void test_thread_arena(void)
{
	uint64_t arena = THREAD_HEAP + lay.heap_info_size;
	struct pmaps_heap_report r;
	struct img im;
	char err[512];
	size_t i;

	for (i = 0; i < 2; i++) {
		img_init(&im);
		build_main(&im, true);
		build_thread(&im, 0);
		tap_check(!walk(&im, i ? MAIN_ARENA : 0, &r, err, sizeof(err)),
			  "walk (%s symbols): %s", i ? "with" : "without", err);
		tap_check(r.nr_arenas == 2 && r.arenas[0].addr == MAIN_ARENA &&
			  r.arenas[1].addr == arena &&
			  r.arenas[1].nr_heaps == 1 &&
			  r.arenas[1].heaps[0].nr_chunks == 4 &&
			  r.arenas[1].heaps[0].chunks[0].kind ==
			  PMAPS_CHUNK_HEADER &&
			  r.arenas[1].heaps[0].chunks[2].kind ==
			  PMAPS_CHUNK_USED &&
			  r.arenas[1].heaps[0].chunks[3].kind ==
			  PMAPS_CHUNK_TOP,
			  "%s symbols: %zu arenas, expected the main one and 0x%" PRIx64 " with header, tcache, a chunk in use and top",
			  i ? "with" : "without", r.nr_arenas, arena);
		pmaps_heap_report_free(&r);
		img_free(&im);
	}
	tap_test_done("thread_arena");
}

#define STACK		0x7f1ff0000000ULL
#define MMAPS		0x7f2000000000ULL
#define PG		0x1000ULL

/*
 * Chunks served by mmap in mappings the kernel merged: after other
 * chunks, after pages that are no chunk, below a thread heap and above a
 * thread's stack; and page headers that only look like one (size 0, too
 * large, in the stack) refused.
 */
static void test_mmapped_merged(void)
{
	static const uint64_t want[][2] = {
		{ THREAD_HEAP - 4 * PG, 2 * PG },
		{ THREAD_HEAP - 2 * PG, 2 * PG },
		{ STACK + 4 * PG, PG },
		{ MMAPS, 2 * PG }, { MMAPS + 3 * PG, PG },
		{ MMAPS + 7 * PG, PG },
	};
	uint64_t stack_tp = STACK + 3 * PG + 0x700;
	struct pmaps_heap_report r;
	struct img im;
	char err[512];
	size_t i;
	bool same;

	img_init(&im);
	build_main(&im, true);
	/* in order of address: below the thread heap 1 page of no chunk, 2, 2 */
	build_thread(&im, 5 * PG);
	memset(img_at(&im, THREAD_HEAP - 5 * PG, 1), 0x5a, PG);
	img_put64(&im, THREAD_HEAP - 4 * PG + 8, 2 * PG | 2);
	img_put64(&im, THREAD_HEAP - 2 * PG + 8, 2 * PG | 2);
	/*
	 * A thread's stack above its guard page, merged with a chunk above
	 * it: a page of the stack that looks like a chunk is not one.
	 */
	img_add(&im, STACK - PG, PG, "---p", "");
	img_add(&im, STACK, 5 * PG, "rw-p", "");
	img_put64(&im, STACK + PG + 8, PG | 2);
	img_put64(&im, STACK + 4 * PG + 8, PG | 2);
	im.mem.thread_ptrs = &stack_tp;
	im.mem.nr_threads = 1;
	/* 2 pages, 1 of no chunk, 1, size 0, too large, no chunk, 1 */
	memset(img_add(&im, MMAPS, 8 * PG, "rw-p", ""), 0x5a, 8 * PG);
	img_put64(&im, MMAPS, 0);
	img_put64(&im, MMAPS + 8, 2 * PG | 2);
	img_put64(&im, MMAPS + 3 * PG, 0);
	img_put64(&im, MMAPS + 3 * PG + 8, PG | 2);
	img_put64(&im, MMAPS + 4 * PG, 0);
	img_put64(&im, MMAPS + 4 * PG + 8, 2);
	img_put64(&im, MMAPS + 5 * PG, 0);
	img_put64(&im, MMAPS + 5 * PG + 8, 4 * PG | 2);
	img_put64(&im, MMAPS + 7 * PG, 0);
	img_put64(&im, MMAPS + 7 * PG + 8, PG | 2);
	tap_check(!walk(&im, MAIN_ARENA, &r, err, sizeof(err)),
		  "walk: %s", err);
	same = r.nr_mmapped == sizeof(want) / sizeof(want[0]);
	for (i = 0; same && i < r.nr_mmapped; i++)
		same = r.mmapped[i].addr == want[i][0] &&
		       r.mmapped[i].size == want[i][1];
	tap_check(same, "%zu chunks served by mmap found, expected %zu",
		  r.nr_mmapped, sizeof(want) / sizeof(want[0]));
	for (i = 0; !same && i < r.nr_mmapped; i++)
		tap_diag("found 0x%" PRIx64 " of %" PRIu64, r.mmapped[i].addr,
			 r.mmapped[i].size);
	tap_check(r.nr_arenas == 2 && r.arenas[1].nr_heaps == 1 &&
		  r.arenas[1].heaps[0].start == THREAD_HEAP,
		  "the thread heap above them is walked");
	pmaps_heap_report_free(&r);
	img_free(&im);
	tap_test_done("mmapped_chunks_in_merged_mappings");
}

/*
 * The bound on the pages looked at: the smallest mapping first, whole;
 * then, the bound met, a mapping only where it begins and after each
 * chunk there, and a note says so.
 */
static void test_mmapped_bound(void)
{
	struct pmaps_heap_report r;
	struct img im;
	char err[512];

	img_init(&im);
	build_main(&im, true);
	/* 8 pages: a chunk, another, a page of no chunk, one of 4 */
	memset(img_add(&im, MMAPS, 8 * PG, "rw-p", ""), 0x5a, 8 * PG);
	img_put64(&im, MMAPS, 0);
	img_put64(&im, MMAPS + 8, PG | 2);
	img_put64(&im, MMAPS + PG, 0);
	img_put64(&im, MMAPS + PG + 8, 2 * PG | 2);
	img_put64(&im, MMAPS + 4 * PG, 0);
	img_put64(&im, MMAPS + 4 * PG + 8, 4 * PG | 2);
	/* 3 pages, higher: no chunk, then one of 2 */
	memset(img_add(&im, MMAPS + 16 * PG, 3 * PG, "rw-p", ""), 0x5a, 3 * PG);
	img_put64(&im, MMAPS + 17 * PG, 0);
	img_put64(&im, MMAPS + 17 * PG + 8, 2 * PG | 2);
	im.mem.scan_pages = 4;
	tap_check(!walk(&im, MAIN_ARENA, &r, err, sizeof(err)),
		  "walk: %s", err);
	tap_check(r.nr_mmapped == 3 && r.mmapped[0].addr == MMAPS &&
		  r.mmapped[1].addr == MMAPS + PG &&
		  r.mmapped[2].addr == MMAPS + 17 * PG,
		  "%zu chunks served by mmap, expected the 2 where the larger mapping begins and the smaller's, in address order",
		  r.nr_mmapped);
	tap_check(has_note(&r, "were looked for on 4 pages"),
		  "a note says the pages were bounded");
	pmaps_heap_report_free(&r);
	img_free(&im);
	tap_test_done("mmapped_chunks_bounded");
}

/* Every page resident but MMAPS + 3 pages, and how many were asked. */
static size_t resident_asked;

static int resident_but_one(void *ctx, uint64_t addr, size_t n, bool *in)
{
	size_t k;

	(void)ctx;
	for (k = 0; k < n; k++)
		in[k] = addr + k * PG != MMAPS + 3 * PG;
	resident_asked += n;
	return 0;
}

/* A page neither in memory nor in swap is not read: its header, never
 * written, is no chunk's. */
static void test_mmapped_resident(void)
{
	struct pmaps_heap_report r;
	struct img im;
	char err[512];

	img_init(&im);
	build_main(&im, true);
	img_add(&im, MMAPS, 4 * PG, "rw-p", "");
	img_put64(&im, MMAPS + 8, 2 * PG | 2);
	img_put64(&im, MMAPS + 3 * PG + 8, PG | 2);
	im.mem.resident = resident_but_one;
	resident_asked = 0;
	tap_check(!walk(&im, MAIN_ARENA, &r, err, sizeof(err)),
		  "walk: %s", err);
	tap_check(r.nr_mmapped == 1 && r.mmapped[0].addr == MMAPS &&
		  r.mmapped[0].size == 2 * PG,
		  "%zu chunks served by mmap, expected the one on a resident page",
		  r.nr_mmapped);
	tap_check(resident_asked == 4, "%zu pages asked about, expected 4",
		  resident_asked);
	pmaps_heap_report_free(&r);
	img_free(&im);
	tap_test_done("mmapped_chunks_on_resident_pages");
}

#define TLS		0x7f3000000000ULL

/*
 * Other threads' tcaches, from their thread pointers: the main heap's
 * tcache (its first chunk) is found below one thread's, at the least
 * distance (not the copy further down), and that distance is checked on
 * the other thread: 0 there is a thread with no tcache yet, a chunk of
 * another size means no tcache pointer was found, and without thread
 * pointers a note says tcaches were found by their size.
 */
static void test_tcache_tls(void)
{
	static const char *const want[] = {
		NULL,
		"is not a chunk of a tcache's size",
		"their thread pointers are not known",
	};
	uint64_t tp[2] = { TLS + 0x2000, TLS + 0x3000 };
	struct pmaps_heap_report r;
	struct img im;
	char err[512];
	size_t i;

	for (i = 0; i < 3; i++) {
		img_init(&im);
		build_main(&im, true);
		img_add(&im, TLS, 0x4000, "rw-p", "");
		img_put64(&im, tp[0] - 0x800, ch_addr[TC] + 16);
		img_put64(&im, tp[0] - 0x50, ch_addr[TC] + 16);
		/* no tcache: were 0x800 taken, a note would say so */
		img_put64(&im, tp[1] - 0x800, ch_addr[A] + 16);
		if (i == 1)
			img_put64(&im, tp[1] - 0x50, ch_addr[A] + 16);
		if (i < 2) {
			im.mem.thread_ptrs = tp;
			im.mem.nr_threads = 2;
		}
		tap_check(!walk(&im, MAIN_ARENA, &r, err, sizeof(err)),
			  "case %zu: walk: %s", i, err);
		check_main(&r, true);
		if (want[i])
			tap_check(has_note(&r, want[i]) &&
				  has_note(&r, "other threads' tcaches were not read"),
				  "case %zu: a note with \"%s\"", i, want[i]);
		else
			tap_check(!has_note(&r, "other threads' tcaches") &&
				  !has_note(&r, "thread pointer"),
				  "case %zu: the tcache pointer found: no note",
				  i);
		pmaps_heap_report_free(&r);
		img_free(&im);
	}
	tap_test_done("tcache_pointers_of_threads");
}

/* Corruption: each must fail with a message naming what was expected. */
static void test_corrupt(void)
{
	static const struct {
		const char *name, *message;
	} cases[] = {
		{ "odd size", "expected a multiple of 16" },
		{ "fastbin loop", "fastbin 0" },
		{ "tcache count", "expected its count" },
		{ "bin bk", "has bk" },
		{ "top", "without meeting the top chunk" },
		{ "no heap", "no glibc malloc heap" },
	};
	/* a heap there is not, and a heap corrupted, are told apart */
	static const int ret[] = { -1, -1, -1, -1, -1, -2 };
	struct pmaps_heap_report r;
	struct img im;
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		img_init(&im);
		build_main(&im, true);
		switch (i) {
		case 0:
			img_put64(&im, ch_addr[D] + 8, 0x38 | 1);
			break;
		case 1:		/* C's fd points at C */
			img_put64(&im, ch_addr[C] + 16,
				  ((ch_addr[C] + 16) >> 12) ^ ch_addr[C]);
			break;
		case 2:
			img_at(&im, ch_addr[TC] + 16, 2)[0] = 2;
			break;
		case 3:
			img_put64(&im, ch_addr[G] + 24, ch_addr[E]);
			break;
		case 4:
			img_put64(&im, MAIN_ARENA + lay.ms_top,
				  ch_addr[TOP] + 16);
			break;
		case 5:		/* another allocator: no [heap] */
			strcpy(im.names[0], "[anon: jemalloc]");
			break;
		}
		tap_check(walk(&im, MAIN_ARENA, &r, err, sizeof(err)) ==
			  ret[i] && strstr(err, cases[i].message),
			  "%s: expected %d with \"%s\", got \"%s\"",
			  cases[i].name, ret[i], cases[i].message, err);
		pmaps_heap_report_free(&r);
		img_free(&im);
	}
	tap_test_done("corrupt_heaps_refused");
}

static void test_units_used(void)
{
	struct pmaps_chunk chunks[] = {
		{ 0x1000, 0x30, PMAPS_CHUNK_USED },
		{ 0x1030, 0x40, PMAPS_CHUNK_TCACHE },
		{ 0x1070, 0x90, PMAPS_CHUNK_USED },
	};
	struct pmaps_heap_seg h = { 0x1000, 0x1100, chunks, 3 };
	size_t from = 0;
	unsigned int a, b;

	a = pmaps_heap_units_used(&h, 0x1000, 8, &from);
	b = pmaps_heap_units_used(&h, 0x1080, 8, &from);
	tap_check(a == 4 && b == 8, "units in use: %u and %u, expected 4 and 8",
		  a, b);
	tap_test_done("units_used");
}

static void test_layouts(void)
{
	struct pmaps_glibc_layout l;

	/* as gdb's ptype /o shows them for Debian's 2.36 */
	tap_check(!pmaps_glibc_layout_for(2, 36, &l) && l.ms_fastbins == 16 &&
		  l.ms_top == 96 && l.ms_bins == 112 && l.ms_next == 2160 &&
		  l.ms_system_mem == 2184 && l.ms_size == 2200 &&
		  l.heap_info_size == 48 && l.tcache_struct_size == 640 &&
		  l.tcache_entries == 128 && l.safe_linking,
		  "2.36's offsets");
	tap_check(!pmaps_glibc_layout_for(2, 26, &l) && l.ms_top == 88 &&
		  l.tcache_count_size == 1 && !l.safe_linking &&
		  l.heap_info_size == 32, "2.26's offsets");
	tap_check(pmaps_glibc_layout_for(2, 25, &l) == -1 &&
		  pmaps_glibc_layout_for(3, 0, &l) == -1,
		  "versions not known are said to be");
	tap_test_done("layouts");
}

int main(void)
{
	pmaps_glibc_layout_for(2, 36, &lay);
	tap_plan(11);
	test_layouts();
	test_units_used();
	test_main_with_symbols();
	test_main_found_by_top();
	test_main_not_found();
	test_thread_arena();
	test_mmapped_merged();
	test_mmapped_bound();
	test_mmapped_resident();
	test_tcache_tls();
	test_corrupt();
	return tap_failed_tests ? 1 : 0;
}
