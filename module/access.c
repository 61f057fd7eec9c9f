// SPDX-License-Identifier: GPL-2.0
/*
 * Who may open /proc/pmaps_ext/PID.
 *
 * The rules are those of PTRACE_MODE_READ_FSCREDS, which /proc/PID/maps
 * uses.  ptrace_may_access() and mm_access() are not exported, so this
 * follows __ptrace_may_access() with exported helpers.  The LSM hook
 * (security_ptrace_access_check()) is not exported either and is not
 * consulted; Documentation/pmaps_ext.rst says so.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "pmaps_ext.h"

/* Root in the sense of the issue: CAP_SYS_PTRACE over the target, or CAP_SYS_ADMIN. */
static bool pmaps_has_cap(struct user_namespace *ns)
{
	return ns_capable(ns, CAP_SYS_PTRACE) || capable(CAP_SYS_ADMIN);
}

/* Called with task_lock(task) held, as __ptrace_may_access() is. */
static bool pmaps_may_read(struct task_struct *task)
{
	const struct cred *cred, *tcred;
	struct mm_struct *mm;
	bool same_ids;

	if (same_thread_group(task, current))
		return true;

	rcu_read_lock();
	cred = current_cred();
	tcred = __task_cred(task);
	same_ids = uid_eq(cred->fsuid, tcred->euid) &&
		   uid_eq(cred->fsuid, tcred->suid) &&
		   uid_eq(cred->fsuid, tcred->uid) &&
		   gid_eq(cred->fsgid, tcred->egid) &&
		   gid_eq(cred->fsgid, tcred->sgid) &&
		   gid_eq(cred->fsgid, tcred->gid);
	if (!same_ids && !pmaps_has_cap(tcred->user_ns)) {
		rcu_read_unlock();
		return false;
	}
	rcu_read_unlock();

	/*
	 * Read dumpability after the credentials, so a task that drops
	 * privileges and turns non-dumpable is never seen half way.  Pairs
	 * with the write barrier in commit_creds().
	 */
	smp_rmb();
	mm = task->mm;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !pmaps_has_cap(mm->user_ns))
		return false;
	return true;
}

/*
 * Return the target's mm pinned with mmgrab() (the caller mmdrop()s it), NULL
 * for a task without one (kernel threads, zombies), or an ERR_PTR.  Like
 * mm_access(), the check holds exec_update_lock so that it and the mm
 * belong to the same program: a file opened before a setuid exec never
 * reads the new image, because the old mm has no users left by then.
 */
struct mm_struct *pmaps_mm_access(struct task_struct *task)
{
	struct mm_struct *mm;
	bool allowed;
	int err;

	err = down_read_killable(&task->signal->exec_update_lock);
	if (err)
		return ERR_PTR(err);

	mm = get_task_mm(task);
	if (mm && mm != current->mm) {
		task_lock(task);
		allowed = pmaps_may_read(task);
		task_unlock(task);
		if (!allowed) {
			mmput(mm);
			mm = ERR_PTR(-EACCES);
		}
	}
	up_read(&task->signal->exec_update_lock);

	if (!IS_ERR_OR_NULL(mm)) {
		mmgrab(mm);
		mmput(mm);
	}
	return mm;
}
