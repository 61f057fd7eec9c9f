// SPDX-License-Identifier: GPL-2.0
/*
 * The tcache target of test_heap.sh: three threads in one arena
 * (M_ARENA_MAX 1), each freeing chunks of its own size into its own
 * tcache: main 2 of 0x20, the second thread 5 of 0x40, the third 3 of
 * 0x70.  The tcaches of the second and third are chunks of the main heap
 * that only the threads' tcache pointers tell from data: a decoy of the
 * same size, laid out as a tcache holding one chunk in use, must not
 * make that chunk free.  Writes "ADDR SIZE STATE" per chunk, as
 * heap_target does, closes stdout and waits to be killed.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char out[4096];
static size_t out_len;
static pthread_barrier_t done;

static void line(uintptr_t p, size_t size, const char *state)
{
	out_len += (size_t)snprintf(out + out_len, sizeof(out) - out_len,
				    "%lx %zu %s\n", (unsigned long)(p - 16),
				    size, state);
}

/* n chunks of size (header included) into this thread's tcache. */
static void to_tcache(int n, size_t size)
{
	void *p[8];
	int i;

	for (i = 0; i < n; i++)
		p[i] = malloc(size - 8);
	for (i = 0; i < n; i++)
		free(p[i]);
	for (i = 0; i < n; i++)
		line((uintptr_t)p[i], size, "tcache");
}

static void *thread_main(void *arg)
{
	if (arg)
		to_tcache(3, 0x70);
	else
		to_tcache(5, 0x40);
	pthread_barrier_wait(&done);
	pause();
	return NULL;
}

int main(void)
{
	unsigned char *decoy;
	uintptr_t *victim;
	uint16_t one = 1;
	pthread_t th[2];
	int i;

	mallopt(M_ARENA_MAX, 1);
	pthread_barrier_init(&done, NULL, 2);
	to_tcache(2, 0x20);
	/*
	 * The decoy: a tcache_perthread_struct's size (0x290 in glibc 2.30
	 * and later), counts[3] 1 and entries[3] the victim, a chunk of
	 * 0x50 in use whose next link, safe-linked, is NULL.
	 */
	decoy = calloc(1, 0x288);
	victim = malloc(0x48);
	if (!decoy || !victim)
		return 1;
	memcpy(decoy + 2 * 3, &one, 2);
	memcpy(decoy + 128 + 8 * 3, &victim, 8);
	victim[0] = (uintptr_t)victim >> 12;
	line((uintptr_t)decoy, 0x290, "used");
	line((uintptr_t)victim, 0x50, "used");
	/* one thread at a time, so that each makes its tcache in turn */
	for (i = 0; i < 2; i++) {
		if (pthread_create(&th[i], NULL, thread_main,
				   i ? (void *)1 : NULL))
			return 1;
		pthread_barrier_wait(&done);
	}
	if (write(1, out, out_len) != (ssize_t)out_len || close(1))
		return 1;
	pause();
	return 0;
}
