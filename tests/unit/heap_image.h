/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A memory image for the chunk walker (userspace/lib/heap.h): mappings
 * with contents of their own, and the reader over them.  Shared by
 * test_heap.c, which builds heaps chunk by chunk, and tests/fuzz/fuzz_heap.c,
 * which fills them with the fuzzer's bytes.
 */
#ifndef PMAPS_TEST_HEAP_IMAGE_H
#define PMAPS_TEST_HEAP_IMAGE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"

#define IMG_MAX_MAPS	8

struct img {
	struct pmaps_heap_mapping maps[IMG_MAX_MAPS];
	unsigned char *bufs[IMG_MAX_MAPS];
	char names[IMG_MAX_MAPS][64];
	struct pmaps_heap_mem mem;
};

static int img_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct img *im = ctx;
	size_t i;

	for (i = 0; i < im->mem.nr_maps; i++) {
		const struct pmaps_heap_mapping *m = &im->maps[i];

		if (addr >= m->start && addr < m->end &&
		    len <= m->end - addr) {
			memcpy(buf, im->bufs[i] + (addr - m->start), len);
			return 0;
		}
	}
	return -1;
}

static void img_init(struct img *im)
{
	memset(im, 0, sizeof(*im));
	im->mem.maps = im->maps;
	im->mem.read = img_read;
	im->mem.ctx = im;
}

/* A mapping; mappings must be added in address order.  NULL when full. */
static unsigned char *img_add(struct img *im, uint64_t start, uint64_t size,
			      const char *perms, const char *name)
{
	size_t n = im->mem.nr_maps;

	if (n == IMG_MAX_MAPS || !(im->bufs[n] = calloc(1, (size_t)size)))
		return NULL;
	im->maps[n].start = start;
	im->maps[n].end = start + size;
	memcpy(im->maps[n].perms, perms, 4);
	strncpy(im->names[n], name, sizeof(im->names[n]) - 1);
	im->maps[n].name = im->names[n];
	im->mem.nr_maps++;
	return im->bufs[n];
}

static void img_free(struct img *im)
{
	size_t i;

	for (i = 0; i < im->mem.nr_maps; i++)
		free(im->bufs[i]);
	im->mem.nr_maps = 0;
}

/* Where addr is in the image, or NULL. */
static unsigned char *img_at(struct img *im, uint64_t addr, size_t len)
{
	size_t i;

	for (i = 0; i < im->mem.nr_maps; i++)
		if (addr >= im->maps[i].start && addr < im->maps[i].end &&
		    len <= im->maps[i].end - addr)
			return im->bufs[i] + (addr - im->maps[i].start);
	return NULL;
}

static void img_put64(struct img *im, uint64_t addr, uint64_t v)
{
	unsigned char *p = img_at(im, addr, 8);

	if (p)
		memcpy(p, &v, 8);
}

#endif /* PMAPS_TEST_HEAP_IMAGE_H */
