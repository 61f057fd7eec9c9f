/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Draining the per-CPU LRU batches before a comparison, shared by the
 * guest programs that include guest.h and by oracle.c, which does not.
 */
#ifndef PMAPS_LRU_DRAIN_H
#define PMAPS_LRU_DRAIN_H

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap.h"

/*
 * Fresh folios wait in per-CPU LRU batches, with PG_active set under
 * MGLRU, until the batch is drained, so neighbouring pages could show
 * different flags.  move_pages() with no pages still calls
 * lru_cache_disable(), which drains every CPU's batches.  Kernels without
 * NUMA have no move_pages(); those here have no MGLRU either, and nothing
 * to drain.  Not compaction: it drains first, but then migrates pages, and
 * each new folio waits in a batch again, with PG_active under MGLRU, and
 * without the pte young and dirty bits.
 */
static inline void drain_lru_batches(void)
{
	int node = 0;

	if (syscall(SYS_move_pages, 0, 0UL, NULL, &node, NULL, 0) &&
	    errno != ENOSYS)
		tap_diag("move_pages (to drain LRU batches): %s",
			 strerror(errno));
}

#endif /* PMAPS_LRU_DRAIN_H */
