// SPDX-License-Identifier: GPL-2.0
/*
 * The target of test_heap.sh: a known malloc/free pattern in the main
 * arena and in two thread arenas, then one line per chunk it made on
 * stdout, "ADDR SIZE STATE" (chunk addresses, sizes with the header, the
 * state pmaps heap --chunks must show), and "mmap ADDR SIZE" for a chunk
 * served by mmap (one of 1 MiB, and more in mappings the kernel merges);
 * then it closes stdout and waits to be killed.  The second thread also
 * fills more than one heap (HEAP_MAX_SIZE is 64 MiB) with chunks in use.
 *
 *   heap_target           the pattern
 *   heap_target corrupt   the pattern, then a chunk's size overwritten
 *
 * Nothing allocates between the pattern and the end of the output: the
 * lines are formatted into a static buffer and written with write(2).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_LINES	2048
#define GROW_CHUNKS	600		/* of 120 KiB: two heaps */
#define MMAP_MERGED	5		/* chunks served by mmap, one freed */

static char out[MAX_LINES * 48];
static size_t out_len;
static pthread_barrier_t done;

static void line(const char *state, uintptr_t p, size_t size)
{
	out_len += (size_t)snprintf(out + out_len, sizeof(out) - out_len,
				    "%lx %zu %s\n",
				    (unsigned long)(p - 16), size,
				    state);
}

/*
 * In the calling thread's arena: 9 chunks of 0x20 freed (7 to the tcache,
 * 2 to a fastbin), 8 of 0x100 freed (7 to the tcache, 1 sorted into a
 * small bin), one of 0x500 sorted into a large bin and one of 0x600 left
 * in the unsorted bin; guards of 0x30 in use keep them apart.
 */
static void pattern(void)
{
	void *t[9], *s[8], *gs[8], *l, *gl, *u, *gu, *big;
	uintptr_t ta[9], sa[8], la, ua;
	int i;

	for (i = 0; i < 9; i++)
		t[i] = malloc(0x18);
	for (i = 0; i < 8; i++) {
		s[i] = malloc(0xf8);
		gs[i] = malloc(0x28);
	}
	l = malloc(0x4f8);
	gl = malloc(0x28);
	u = malloc(0x5f8);
	gu = malloc(0x28);
	for (i = 0; i < 9; i++)
		ta[i] = (uintptr_t)t[i];
	for (i = 0; i < 8; i++)
		sa[i] = (uintptr_t)s[i];
	la = (uintptr_t)l;
	ua = (uintptr_t)u;
	for (i = 0; i < 8; i++)
		free(s[i]);
	free(l);
	/* a large request sorts the unsorted bin: s[7] and l to their bins */
	big = malloc(0x7f8);
	free(u);
	/* last: a large request would consolidate the fastbins */
	for (i = 0; i < 9; i++)
		free(t[i]);
	for (i = 0; i < 9; i++)
		line(i < 7 ? "tcache" : "fastbin", ta[i], 0x20);
	for (i = 0; i < 8; i++) {
		line(i < 7 ? "tcache" : "smallbin", sa[i], 0x100);
		line("used", (uintptr_t)gs[i], 0x30);
	}
	line("largebin", la, 0x500);
	line("used", (uintptr_t)gl, 0x30);
	line("unsorted", ua, 0x600);
	line("used", (uintptr_t)gu, 0x30);
	line("used", (uintptr_t)big, 0x800);
}

static void *thread_main(void *arg)
{
	int i;

	/* first: a large request consolidates the fastbins */
	if (arg)
		for (i = 0; i < GROW_CHUNKS; i++)
			line("used", (uintptr_t)malloc(120 << 10),
			     (120 << 10) + 16);
	pattern();
	pthread_barrier_wait(&done);
	pause();
	return NULL;
}

/* "mmap ADDR SIZE" for p, a chunk served by mmap: its size field. */
static void mmapped(void *p)
{
	/* the size field, 8 bytes below p: a pointer of its own */
	const size_t *hdr = (const size_t *)((uintptr_t)p - 16);

	out_len += (size_t)snprintf(out + out_len, sizeof(out) - out_len,
				    "mmap %lx %zu\n",
				    (unsigned long)((uintptr_t)p - 16),
				    hdr[1] & ~(size_t)7);
}

/*
 * Chunks served by mmap in one mapping: each mmap lands right below the
 * last, and the kernel merges adjacent anonymous mappings.  The middle
 * one is freed, and its pages mapped again, not zeroed, so that chunks
 * also start after memory that is no chunk.  (Its free raises malloc's
 * mmap threshold: the pattern after stays in the heap, as before.)
 */
static void mmapped_merged(void)
{
	void *p[MMAP_MERGED];
	const size_t *hdr;
	size_t hole_size;
	uintptr_t hole;
	int i;

	for (i = 0; i < MMAP_MERGED; i++)
		p[i] = malloc(200 << 10);
	hole = (uintptr_t)p[MMAP_MERGED / 2] - 16;
	hdr = (const size_t *)hole;
	hole_size = hdr[1] & ~(size_t)7;
	free(p[MMAP_MERGED / 2]);
	if (mmap((void *)hole, hole_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
	    (void *)hole)
		exit(1);
	memset((void *)hole, 0x5a, hole_size);
	for (i = 0; i < MMAP_MERGED; i++)
		if (i != MMAP_MERGED / 2)
			mmapped(p[i]);
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	void *m;
	int i;

	pthread_barrier_init(&done, NULL, 2);
	/* one thread at a time: each makes its own arena */
	for (i = 0; i < 2; i++) {
		if (pthread_create(&th[i], NULL, thread_main,
				   i ? (void *)1 : NULL))
			return 1;
		pthread_barrier_wait(&done);
	}
	/* first, as above */
	m = malloc(1 << 20);
	mmapped(m);
	mmapped_merged();
	pattern();
	if (argc > 1 && !strcmp(argv[1], "corrupt")) {
		/* a size field that is not a multiple of 16 */
		void *p = malloc(0x28);

		((size_t *)p)[-1] = 0x1238 | 1;
	}
	/* closed: the reader's end of file, which the test waits for */
	if (write(1, out, out_len) != (ssize_t)out_len || close(1))
		return 1;
	pause();
	return 0;
}
