// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the chunk walker (userspace/lib/heap.c): memory
 * images of a [heap], libc's data and a thread heap, with glibc 2.36's
 * layout, from the fuzzer's bytes.  The first byte chooses: bit 0, whether
 * main_arena is given (as debug symbols give it) or to be found; bit 1,
 * whether the bytes are the images themselves, or XORed over a valid heap
 * with a chunk on each list, from which mutations reach deep into the
 * lists.  The walk must end on any input, without a sanitizer's report;
 * whatever it returns, its report must hold together.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "../unit/heap_image.h"

#define BRK		0x555555560000ULL
#define LIBC_DATA	0x7f0000000000ULL
#define MAIN_ARENA	(LIBC_DATA + 0x100)
#define THREAD_HEAP	0x7f1004000000ULL
#define REGION		0x1000ULL

static struct pmaps_glibc_layout lay;

static uint64_t bin_head(uint64_t arena, unsigned int bin)
{
	return arena + lay.ms_bins + 16ULL * (bin - 1) - 16;
}

/* A valid main heap: tcache struct, B in tcache, C in a fastbin, E in the
 * unsorted bin, top; and a thread arena with a chunk in use. */
static void base(struct img *im)
{
	uint64_t tc = BRK, b = tc + 0x290, c = b + 0x20, d = c + 0x20;
	uint64_t e = d + 0x30, f = e + 0x100, top = f + 0x30;
	uint64_t ta = THREAD_HEAP + lay.heap_info_size;
	uint64_t tfirst = (ta + lay.ms_size + 15) & ~15ULL;
	unsigned int i;

	img_put64(im, tc + 8, 0x291);
	img_put64(im, b + 8, 0x21);
	img_put64(im, c + 8, 0x21);
	img_put64(im, d + 8, 0x31);
	img_put64(im, e + 8, 0x101);
	img_put64(im, f, 0x100);
	img_put64(im, f + 8, 0x30);
	img_put64(im, top + 8, (BRK + REGION - top) | 1);
	img_at(im, tc + 16, 1)[0] = 1;
	img_put64(im, tc + 16 + lay.tcache_entries, b + 16);
	img_put64(im, b + 16, (b + 16) >> 12);
	for (i = 1; i < 128; i++) {
		img_put64(im, bin_head(MAIN_ARENA, i) + 16,
			  bin_head(MAIN_ARENA, i));
		img_put64(im, bin_head(MAIN_ARENA, i) + 24,
			  bin_head(MAIN_ARENA, i));
	}
	img_put64(im, bin_head(MAIN_ARENA, 1) + 16, e);
	img_put64(im, bin_head(MAIN_ARENA, 1) + 24, e);
	img_put64(im, e + 16, bin_head(MAIN_ARENA, 1));
	img_put64(im, e + 24, bin_head(MAIN_ARENA, 1));
	img_put64(im, MAIN_ARENA + lay.ms_fastbins, c);
	img_put64(im, c + 16, (c + 16) >> 12);
	img_put64(im, MAIN_ARENA + lay.ms_top, top);
	img_put64(im, MAIN_ARENA + lay.ms_next, ta);
	img_put64(im, MAIN_ARENA + lay.ms_system_mem, REGION);
	/* the thread arena's heap */
	img_put64(im, THREAD_HEAP, ta);
	img_put64(im, THREAD_HEAP + 16, REGION);
	img_put64(im, THREAD_HEAP + 24, REGION);
	for (i = 1; i < 128; i++) {
		img_put64(im, bin_head(ta, i) + 16, bin_head(ta, i));
		img_put64(im, bin_head(ta, i) + 24, bin_head(ta, i));
	}
	img_put64(im, ta + lay.ms_top, tfirst + 0x40);
	img_put64(im, ta + lay.ms_next, MAIN_ARENA);
	img_put64(im, tfirst + 8, 0x45);
	img_put64(im, tfirst + 0x48, (THREAD_HEAP + REGION - tfirst - 0x40) | 1);
}

static void check(const struct pmaps_heap_report *r)
{
	size_t i, j, k;

	for (i = 0; i < r->nr_arenas; i++)
		for (j = 0; j < r->arenas[i].nr_heaps; j++) {
			const struct pmaps_heap_seg *h = &r->arenas[i].heaps[j];
			uint64_t at = h->start;

			for (k = 0; k < h->nr_chunks; k++) {
				/* chunks tile the heap, in order */
				if (h->chunks[k].addr != at || !h->chunks[k].size)
					abort();
				at += h->chunks[k].size;
			}
			if (at != h->end)
				abort();
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct {
		uint64_t start;
		const char *name;
	} regions[] = {
		{ BRK, "[heap]" },
		{ LIBC_DATA, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ THREAD_HEAP, "" },
	};
	struct pmaps_heap_report r;
	struct pmaps_glibc_layout l;
	unsigned char mode;
	struct img im;
	char err[PMAPS_HEAP_MSG];
	size_t i, k;

	if (!size)
		return 0;
	pmaps_glibc_layout_for(2, 36, &lay);
	mode = data[0];
	data++;
	size--;
	img_init(&im);
	for (i = 0; i < 3; i++)
		if (!img_add(&im, regions[i].start, REGION, "rw-p",
			     regions[i].name))
			goto out;
	if (mode & 2)
		base(&im);
	for (i = 0; i < 3; i++)
		for (k = 0; k < REGION && i * REGION + k < size; k++)
			im.bufs[i][k] ^= data[i * REGION + k];
	l = lay;
	if (mode & 1)
		l.main_arena = MAIN_ARENA;
	memset(&r, 0, sizeof(r));
	if (!pmaps_heap_walk(&im.mem, &l, &r, err, sizeof(err))) {
		check(&r);
		pmaps_heap_report_free(&r);
	} else if (!err[0]) {
		abort();	/* a failure must say why */
	}
out:
	img_free(&im);
	return 0;
}
