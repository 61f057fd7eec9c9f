// SPDX-License-Identifier: GPL-2.0
/*
 * Who may open /proc/pmaps_ext/PID, who sees which PIDs, and which page
 * state a reader is shown.
 *
 * Who may open it: whoever may open /proc/PID/maps.
 *
 * That decision is PTRACE_MODE_READ_FSCREDS, made by mm_access() and
 * ptrace_may_access(), with the LSM hook and dumpability behind them; none
 * of these is exported, and since v7.x dumpability (get_dumpable(),
 * mm->user_ns) is not even visible to modules.  A copy of the rules would
 * drift from the kernel it runs on.  So procfs decides: at open(), the
 * module opens the target's maps file, in the procfs instance it is
 * mounted on and with the reader's credentials, and serves the file only
 * if that open succeeds.  Credentials, user namespaces, dumpability, LSMs
 * (Yama, SELinux, AppArmor) and the mount's hidepid= then apply exactly as
 * they do to maps.
 *
 * Which page state a reader is shown: Y, R, A and AGE only to whoever may
 * open /proc/PID/mem, PTRACE_MODE_ATTACH_FSCREDS, decided the same way.
 * With clear_refs, which asks only for the target's uid, per-page access
 * bits are an access trace of the target, which the kernel gives only to
 * root otherwise (page_idle's bitmap is 0600, kpageflags 0400) and to a
 * reader who could attach and watch it anyway.  Yama's ptrace_scope 1-3
 * or an LSM policy can allow read and deny attach.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/stat.h>
#include <linux/user_namespace.h>

#include "compat.h"
#include "pmaps_ext.h"

/*
 * The root of the procfs that the pmaps_ext mount holding @file sits on
 * (normally /proc, with pmaps_ext on /proc/pmaps_ext), or an ERR_PTR.
 */
static int pmaps_proc_root(const struct file *file, struct path *proc)
{
	struct path up = {
		.mnt	= file->f_path.mnt,
		.dentry	= file->f_path.mnt->mnt_root,
	};

	path_get(&up);
	/* A lazily unmounted pmaps_ext has no procfs above it any more. */
	if (!follow_up(&up) || up.dentry->d_sb->s_magic != PROC_SUPER_MAGIC) {
		path_put(&up);
		return -EACCES;
	}
	proc->mnt = up.mnt;
	proc->dentry = dget_parent(up.dentry);
	dput(up.dentry);
	return 0;
}

/*
 * Open PID's @file ("maps", "mem") in @proc as the reader, read-only;
 * procfs checks the access.
 */
static int pmaps_may_open(const struct path *proc, struct pid *pid,
			  const char *file)
{
	pid_t nr = pid_nr_ns(pid, proc_pid_ns(proc->dentry->d_sb));
	char name[32];
	struct file *f;

	/* Not in that procfs's pid namespace: /proc there cannot show it. */
	if (!nr)
		return -ENOENT;
	snprintf(name, sizeof(name), "%d/%s", nr, file);
	f = file_open_root(proc, name, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	filp_close(f, NULL);
	return 0;
}

#ifdef PMAPS_TEST_HOOKS
/*
 * Test builds only (make PMAPS_TEST_HOOKS=y, as tests/qemu/run.sh builds
 * the module it tests): while test_hold_check is set, an open waits, at
 * most PMAPS_TEST_HOLD_MS, between taking the target's mm and the check,
 * and counts itself in test_held_checks first.  A guest test makes the
 * target's thread exit in that window (test_perm_thread_exit_during_open).
 */
#define PMAPS_TEST_HOLD_MS	10000

static bool pmaps_test_hold_check;
module_param_named(test_hold_check, pmaps_test_hold_check, bool, 0600);
static int pmaps_test_held_checks;
module_param_named(test_held_checks, pmaps_test_held_checks, int, 0400);
static DEFINE_SPINLOCK(pmaps_test_lock);

static void pmaps_test_hold(void)
{
	unsigned int waited;

	if (!READ_ONCE(pmaps_test_hold_check))
		return;
	spin_lock(&pmaps_test_lock);
	pmaps_test_held_checks++;
	spin_unlock(&pmaps_test_lock);
	for (waited = 0; waited < PMAPS_TEST_HOLD_MS &&
	     READ_ONCE(pmaps_test_hold_check); waited += 20)
		msleep(20);
}

/*
 * How many times pmaps_may_see_page_cache() asked a file, in
 * test_page_cache_checks (test_page_cache_checked_once_per_vma).
 */
static int pmaps_test_page_cache_checks;
module_param_named(test_page_cache_checks, pmaps_test_page_cache_checks,
		   int, 0444);

static void pmaps_test_count_page_cache_check(void)
{
	spin_lock(&pmaps_test_lock);
	pmaps_test_page_cache_checks++;
	spin_unlock(&pmaps_test_lock);
}
#else
static inline void pmaps_test_hold(void)
{
}

static inline void pmaps_test_count_page_cache_check(void)
{
}
#endif

/*
 * The check for one program of @task: its mm (mmget()), NULL for a task
 * without one (kernel threads, zombies), an ERR_PTR, or -EAGAIN when an
 * exec() replaced the mm while procfs was deciding.  Only exec() replaces
 * an mm, and it replaces the credentials with it, so an mm that is the same
 * before and after the check is the one the check was made for.
 *
 * A task that has no mm after the check (its thread exited meanwhile)
 * serves none, though the mm taken before may live on in its other threads
 * or CLONE_VM users: procfs checks nothing when it finds no mm
 * (proc_mem_open() makes mm_access()'s -ESRCH an empty file), so the check
 * may have been made for no mm at all.
 */
static struct mm_struct *pmaps_check_mm(struct file *file, struct pid *pid,
					struct task_struct *task,
					bool *may_attach)
{
	struct mm_struct *mm = get_task_mm(task), *after;
	struct path proc;
	int err;

	pmaps_test_hold();
	err = pmaps_proc_root(file, &proc);
	if (!err) {
		err = pmaps_may_open(&proc, pid, "maps");
		/*
		 * For the same mm as maps: the recheck below covers both.
		 * Its own mm a reader may always trace, as mm_access()
		 * lets it; mem's mode 0600 would refuse a non-dumpable
		 * reader, whose files procfs gives to root.
		 */
		*may_attach = !err && (mm == current->mm ||
				       !pmaps_may_open(&proc, pid, "mem"));
		path_put(&proc);
	}
	/*
	 * A PID number freed and reused while procfs looked it up named
	 * another process; this one has exited then, and no pid comes back.
	 */
	if (!err && !pid_has_task(pid, PIDTYPE_PID))
		err = -ESRCH;
	if (err) {
		if (mm)
			mmput(mm);
		return ERR_PTR(err);
	}
	after = get_task_mm(task);
	if (after)
		mmput(after);
	if (after != mm && mm) {
		mmput(mm);
		/* An exit leaves no mm, which reads as an empty file. */
		return after ? ERR_PTR(-EAGAIN) : NULL;
	}
	/* An mm where there was none: not this check's; check again. */
	return after == mm ? mm : ERR_PTR(-EAGAIN);
}

/* exec()s in a row that an open waits out before it gives up with EAGAIN */
#define PMAPS_EXEC_RETRIES	8

/*
 * Return the mm of the process @file names, pinned with mmgrab() (the
 * caller mmdrop()s it), NULL for a task without one, or an ERR_PTR; and
 * in *@may_attach whether the reader may attach to it as well.  A file
 * opened before a set-id exec never reads the new image: the old mm has
 * no users left by then.
 */
struct mm_struct *pmaps_mm_access(struct file *file, struct pid *pid,
				  bool *may_attach)
{
	struct task_struct *task;
	struct mm_struct *mm;
	int tries = 0;

	task = get_pid_task(pid, PIDTYPE_PID);
	if (!task)
		return ERR_PTR(-ESRCH);
	do
		mm = pmaps_check_mm(file, pid, task, may_attach);
	while (mm == ERR_PTR(-EAGAIN) && ++tries < PMAPS_EXEC_RETRIES);
	put_task_struct(task);

	if (!IS_ERR_OR_NULL(mm)) {
		mmgrab(mm);
		mmput(mm);
	}
	return mm;
}

/*
 * Which PIDs a reader sees: those it may read, decided by a procfs of the
 * module's own, mounted with hidepid=ptraceable.  procfs then answers
 * lookup and stat of a PID exactly as a /proc with that option would: the
 * name exists only for a reader that passes PTRACE_MODE_READ_FSCREDS on
 * the process (LSM hook included), and its owner is /proc/PID/maps's,
 * which task_dump_owner() makes root for a non-dumpable process.  Not
 * hidepid=invisible: without gid= its pid_gid is root's group, and
 * has_pid_permissions() admits any reader in group 0, as a supplementary
 * group too, before asking ptrace.  The reader's own /proc cannot be used:
 * ->lookup() and ->d_revalidate() are not told which mount the path came
 * through.  A /proc without hidepid= shows more (every PID and its owner);
 * these files show no more than any hidepid= would.
 */
struct vfsmount *pmaps_pid_procfs_mount(void)
{
	/* parsed in place, so not a string literal */
	char options[] = "hidepid=ptraceable,subset=pid";
	struct file_system_type *proc = get_fs_type("proc");

	/*
	 * procfs is built in: get_fs_type() took no module reference, and
	 * put_filesystem() is not exported anyway.
	 */
	if (!proc)
		return ERR_PTR(-ENODEV);
	return vfs_kern_mount(proc, SB_KERNMOUNT, "proc", options);
}

/*
 * Whether the reader may see @pid in @procfs (from
 * pmaps_pid_procfs_mount()), and if so its owner; -ENOENT when hidden.
 */
int pmaps_pid_owner(struct vfsmount *procfs, struct pid *pid, kuid_t *uid,
		    kgid_t *gid)
{
	pid_t nr = pid_nr_ns(pid, proc_pid_ns(procfs->mnt_sb));
	struct kstat stat;
	struct path path;
	char name[24];
	int err;

	if (!nr)
		return -ENOENT;
	/*
	 * maps, not the PID's directory: task_dump_owner() gives files, not
	 * /proc/PID itself, to root when the process is not dumpable.
	 */
	snprintf(name, sizeof(name), "%d/maps", nr);
	/* A path, not an open file: readdir asks this for every PID. */
	err = vfs_path_lookup(procfs->mnt_root, procfs, name, 0, &path);
	if (err)
		return -ENOENT;
	/*
	 * Walking into a cached /proc/PID dentry, procfs asks the
	 * directory's permission, which hides the process as lookup does.
	 */
	err = vfs_getattr(&path, &stat, STATX_UID | STATX_GID,
			  AT_STATX_SYNC_AS_STAT);
	path_put(&path);
	/*
	 * The number looked up is @pid's only while @pid has a task: it is
	 * freed, and may name another process, only after that.
	 */
	if (err || !pid_has_task(pid, PIDTYPE_PID))
		return -ENOENT;
	*uid = stat.uid;
	*gid = stat.gid;
	return 0;
}

/*
 * Page state that is the same in every process mapping the page (R, A,
 * D, W and the mapcount) lets a reader watch other users' processes use a
 * file both map.  The kernel shows it to whoever may read
 * /proc/kpageflags and /proc/kpagecount, root-owned and mode 0400, so the
 * opener of @file sees it if it may open /proc/kpageflags, in the procfs
 * that @file's mount sits on: credentials, capabilities and LSMs decide
 * as for that file, and a root an LSM confines away from it is no
 * exception.  Called at open, so current's credentials are the opener's.
 *
 * First the part of generic_permission() that decides for such a file,
 * without audit: a reader who fails it is told no without an open, which
 * would log a denial at every unprivileged open.  A procfs without the
 * file (CONFIG_PROC_PAGE_MONITOR off, or mounted subset=pid) leaves that
 * answer, as no LSM rule can name the file there.
 */
bool pmaps_may_read_page_flags(struct file *file)
{
	struct file *flags;
	struct path proc;

	if (!uid_eq(current_fsuid(), GLOBAL_ROOT_UID) &&
	    !ns_capable_noaudit(&init_user_ns, CAP_DAC_OVERRIDE) &&
	    !ns_capable_noaudit(&init_user_ns, CAP_DAC_READ_SEARCH))
		return false;
	if (pmaps_proc_root(file, &proc))
		return false;
	flags = file_open_root(&proc, "kpageflags", O_RDONLY, 0);
	path_put(&proc);
	if (IS_ERR(flags))
		return PTR_ERR(flags) == -ENOENT;
	filp_close(flags, NULL);
	return true;
}

/*
 * Whether pmaps_may_see_page_cache() asks @vma's file: only where the pages
 * that are not anonymous are that file's page cache (below).  Elsewhere
 * the VMA alone answers, and nothing may sleep.
 */
bool pmaps_page_cache_asks_file(struct vm_area_struct *vma)
{
	return vma->vm_file && !vma_is_anonymous(vma) &&
	       !(vma->vm_flags & VM_MIXEDMAP);
}

/*
 * For other readers, mincore()'s rule (can_do_mincore(), v5.2 "mm/mincore.c:
 * make mincore() more conservative"): a VMA's page-cache state is shown
 * if the VMA is anonymous or its file is one the reader owns or could open
 * for writing.  Decided with the credentials @reader was opened with, as
 * pagemap decides what it shows, so a descriptor passed to a more
 * privileged process shows it no more.  May sleep (->permission(), which
 * on NFS or FUSE may ask the server): seq.c asks once per file per read().
 *
 * Not so where the pages that are not anonymous are no file's page cache:
 * pages a driver or the kernel inserted (VM_MIXEDMAP: io_uring's rings,
 * many drivers' buffers), whose state is that of whoever else maps them.
 * The file's rule does not answer for them: a reader may write a 0666
 * device node, or own io_uring's root-owned anonymous inode.  A file VMA
 * without vm_ops, which vma_is_anonymous() would call anonymous, is taken
 * the same way (vma_init() gives each new VMA dummy vm_ops).
 */
bool pmaps_may_see_page_cache(const struct file *reader,
			      struct vm_area_struct *vma)
{
	const struct cred *saved;
	bool may;

	if (!pmaps_page_cache_asks_file(vma))
		/* anonymous memory, or pages no file's rule answers for */
		return vma_is_anonymous(vma) && !vma->vm_file &&
		       !(vma->vm_flags & VM_MIXEDMAP);
	pmaps_test_count_page_cache_check();
	saved = override_creds(reader->f_cred);
	may = file_owner_or_capable(vma->vm_file) ||
	      file_permission(vma->vm_file, MAY_WRITE) == 0;
	revert_creds(saved);
	return may;
}
