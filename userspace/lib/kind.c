// SPDX-License-Identifier: GPL-2.0
/*
 * What kind of memory a VMA is: see kind.h.
 */
#include <string.h>

#include "kind.h"

const char *const pmaps_kind_names[PMAPS_NR_KINDS] = {
	[PMAPS_KIND_ANON] = "anon",
	[PMAPS_KIND_FILE] = "file",
	[PMAPS_KIND_SHMEM] = "shmem",
	[PMAPS_KIND_STACK] = "stack",
	[PMAPS_KIND_HEAP] = "heap",
	[PMAPS_KIND_OTHER] = "other",
};

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Shared memory shows in maps as a file of an internal mount: a shared
 * anonymous mapping as "/dev/zero (deleted)", memfd_create() as
 * "/memfd:NAME (deleted)", SysV shm as "/SYSV%08x", POSIX shm under
 * /dev/shm; with a name given by prctl(PR_SET_VMA_ANON_NAME),
 * "[anon_shmem:NAME]".  A file on some other tmpfs cannot be told from
 * maps alone and counts as a file.
 */
static bool is_shmem(const struct pmaps_vma *v)
{
	return starts_with(v->name, "[anon_shmem:") ||
	       (v->inode && (starts_with(v->name, "/dev/zero") ||
			     starts_with(v->name, "/memfd:") ||
			     starts_with(v->name, "/SYSV") ||
			     starts_with(v->name, "/dev/shm/")));
}

enum pmaps_kind pmaps_vma_kind(const struct pmaps_vma *v)
{
	/* old kernels named each thread's stack [stack:TID] */
	if (!strcmp(v->name, "[stack]") || starts_with(v->name, "[stack:"))
		return PMAPS_KIND_STACK;
	if (!strcmp(v->name, "[heap]"))
		return PMAPS_KIND_HEAP;
	if (is_shmem(v))
		return PMAPS_KIND_SHMEM;
	if (v->inode)
		return PMAPS_KIND_FILE;
	if (!v->name[0] || starts_with(v->name, "[anon:"))
		return PMAPS_KIND_ANON;
	return PMAPS_KIND_OTHER;
}
