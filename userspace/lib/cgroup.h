/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes of a cgroup and its descendants (pmaps --cgroup, issue
 * 19).  A cgroup's membership changes while it is read: a child cgroup
 * removed meanwhile is skipped, and a process listed may have ended by
 * the time it is read, which the caller tells by pmaps_pid_gone().
 */
#ifndef PMAPS_CGROUP_H
#define PMAPS_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

/* Where cgroup v2 is mounted when /proc/self/mountinfo does not say. */
#define PMAPS_CGROUP_ROOT	"/sys/fs/cgroup"

/*
 * The directory of cgroup path into dir: an absolute path as it is, a
 * relative one under the cgroup2 mount (the first one in
 * /proc/self/mountinfo, else PMAPS_CGROUP_ROOT), so that "system.slice/x"
 * works on unified and hybrid hosts alike.  The directory must have a
 * cgroup.procs file.  0, or -1 with "pmaps: PATH: ..." in err.
 */
int pmaps_cgroup_dir(const char *path, char *dir, size_t len, char *err,
		     size_t errlen);

/*
 * The PIDs in cgroup.procs of dir and of every cgroup below it, ascending
 * and without duplicates, into *pids (malloc()ed, NULL when there are
 * none).  A descendant that disappears while it is read is skipped; dir
 * itself must be readable.  Returns how many, or -1 with "pmaps: FILE:
 * ..." in err.
 */
int pmaps_cgroup_pids(const char *dir, int **pids, char *err, size_t errlen);

/*
 * What /proc says of process pid: its state letter from /proc/PID/stat
 * ('Z' a zombie), whether it is a kernel thread (PF_KTHREAD, and no
 * command line) and whether it is exiting (PF_EXITING).  -1 when it is
 * gone or its stat cannot be read.
 */
int pmaps_proc_state(int pid, char *state, bool *kthread, bool *exiting);

/*
 * Whether process pid has ended, is ending, is a zombie or is a kernel
 * thread: a member of a group that has nothing to read, which is not an
 * error.
 */
bool pmaps_pid_gone(int pid);

#endif /* PMAPS_CGROUP_H */
