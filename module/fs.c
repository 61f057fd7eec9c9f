// SPDX-License-Identifier: GPL-2.0
/*
 * The pmaps_ext filesystem, mounted on /proc/pmaps_ext.
 *
 * procfs offers modules no per-PID lookup hook, so, following nfsd, the
 * module creates the mount point with proc_create_mount_point() and
 * registers a small filesystem whose root directory looks PIDs up on
 * demand.  Names resolve in the reader's pid namespace, so every process
 * sees its own PIDs, whichever namespace mounted it, and exist only for a
 * reader who may read the process (pmaps_pid_owner()).
 *
 * /proc/pmaps_ext/numa is the same directory again, whose files add NODE
 * and KB to each range line: a second file per PID rather than a mount
 * option, so that any reader may ask for the fields without remounting
 * (which needs CAP_SYS_ADMIN and would change the text for every reader),
 * and so that the patch series can offer the same as /proc/PID/pmaps_numa.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/threads.h>

#include "compat.h"
#include "pmaps_ext.h"

#define PMAPS_FS_MAGIC		0x706d6170	/* "pmap" */
#define PMAPS_ROOT_INO		1
#define PMAPS_SELF_INO		2
#define PMAPS_NUMA_INO		3
/* readdir positions: the dots, "self", "numa" (root only), then PIDs. */
#define PMAPS_POS_SELF		2
#define PMAPS_POS_NUMA		3
#define PMAPS_POS_FIRST_PID	4

static struct proc_dir_entry *pmaps_mount_point;

/* Decimal without sign or leading zeros, as /proc spells PIDs. */
static bool pmaps_name_to_pid_nr(const struct qstr *name, pid_t *nr)
{
	unsigned long long value = 0;
	unsigned int i;

	if (!name->len || name->len > 10 || (name->len > 1 && name->name[0] == '0'))
		return false;
	for (i = 0; i < name->len; i++) {
		if (name->name[i] < '0' || name->name[i] > '9')
			return false;
		value = value * 10 + name->name[i] - '0';
	}
	if (!value || value > PID_MAX_LIMIT)
		return false;
	*nr = value;
	return true;
}

static void pmaps_init_inode(struct inode *inode, unsigned long ino,
			     umode_t mode)
{
	inode->i_ino = ino;
	inode->i_mode = mode;
	simple_inode_init_ts(inode);
}

/* The procfs that decides which PIDs a reader of @sb sees. */
static struct vfsmount *pmaps_procfs(struct super_block *sb)
{
	return sb->s_fs_info;
}

/*
 * A PID's file holds a reference on the struct pid, not on the task, and
 * resolves the task at open.  Its owner is /proc/PID/maps's, set again at
 * every revalidation as procfs does.
 */
static struct inode *pmaps_pid_inode(struct inode *dir, struct pid *pid,
				     kuid_t uid, kgid_t gid)
{
	struct inode *inode = new_inode(dir->i_sb);

	if (!inode)
		return NULL;
	pmaps_init_inode(inode, get_next_ino(), S_IFREG | 0444);
	inode->i_fop = dir->i_ino == PMAPS_NUMA_INO ?
		       &pmaps_numa_file_operations : &pmaps_file_operations;
	inode->i_private = get_pid(pid);
	inode->i_uid = uid;
	inode->i_gid = gid;
	return inode;
}

/* "self" links to the reader's thread-group id in its own namespace. */
static const char *pmaps_self_get_link(struct dentry *dentry,
				       struct inode *inode,
				       struct delayed_call *done)
{
	pid_t tgid;
	char *name;

	if (!dentry)
		return ERR_PTR(-ECHILD);
	tgid = task_tgid_nr_ns(current, task_active_pid_ns(current));
	if (!tgid)
		return ERR_PTR(-ENOENT);
	name = kasprintf(GFP_KERNEL, "%d", tgid);
	if (!name)
		return ERR_PTR(-ENOMEM);
	set_delayed_call(done, kfree_link, name);
	return name;
}

static const struct inode_operations pmaps_self_inode_operations = {
	.get_link	= pmaps_self_get_link,
};

static const struct inode_operations pmaps_root_inode_operations;
static const struct file_operations pmaps_root_file_operations;

/* The root directory, or "numa" in it: both list the PIDs. */
static struct inode *pmaps_dir_inode(struct super_block *sb, unsigned long ino)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	pmaps_init_inode(inode, ino, S_IFDIR | 0555);
	inode->i_op = &pmaps_root_inode_operations;
	inode->i_fop = &pmaps_root_file_operations;
	set_nlink(inode, 2);
	return inode;
}

static struct dentry *pmaps_root_lookup(struct inode *dir,
					struct dentry *dentry,
					unsigned int flags)
{
	struct inode *inode;
	struct pid *pid;
	kuid_t uid;
	kgid_t gid;
	pid_t nr;
	int err;

	if (strcmp(dentry->d_name.name, "self") == 0) {
		inode = new_inode(dir->i_sb);
		if (inode) {
			pmaps_init_inode(inode, PMAPS_SELF_INO, S_IFLNK | 0777);
			inode->i_op = &pmaps_self_inode_operations;
		}
	} else if (dir->i_ino == PMAPS_ROOT_INO &&
		   strcmp(dentry->d_name.name, "numa") == 0) {
		inode = pmaps_dir_inode(dir->i_sb, PMAPS_NUMA_INO);
	} else {
		if (!pmaps_name_to_pid_nr(&dentry->d_name, &nr))
			return ERR_PTR(-ENOENT);
		/* in the reader's pid namespace */
		pid = find_get_pid(nr);
		if (!pid)
			return ERR_PTR(-ENOENT);
		err = pmaps_pid_owner(pmaps_procfs(dir->i_sb), pid, &uid, &gid);
		inode = err ? NULL : pmaps_pid_inode(dir, pid, uid, gid);
		put_pid(pid);
		if (err)
			return ERR_PTR(err);
	}
	if (!inode)
		return ERR_PTR(-ENOMEM);
	return d_splice_alias(inode, dentry);
}

/*
 * A cached PID dentry is good only while its name still means the same
 * live process to this reader and the reader may see it: readers in other
 * pid namespaces or with other credentials, and a PID reused after exit,
 * must look the name up again.
 */
static int pmaps_d_revalidate(struct inode *dir, const struct qstr *name,
			      struct dentry *dentry, unsigned int flags)
{
	struct inode *inode;
	bool valid;
	kuid_t uid;
	kgid_t gid;
	pid_t nr;

	if (flags & LOOKUP_RCU)
		return -ECHILD;
	inode = d_inode(dentry);
	if (!inode || !S_ISREG(inode->i_mode))
		return 1;
	if (!pmaps_name_to_pid_nr(name, &nr))
		return 0;
	rcu_read_lock();
	valid = pid_nr_ns(inode->i_private, task_active_pid_ns(current)) == nr &&
		pid_task(inode->i_private, PIDTYPE_PID);
	rcu_read_unlock();
	if (!valid || pmaps_pid_owner(pmaps_procfs(dentry->d_sb),
				      inode->i_private, &uid, &gid))
		return 0;
	inode->i_uid = uid;
	inode->i_gid = gid;
	return 1;
}

PMAPS_DEFINE_D_REVALIDATE(pmaps_d_revalidate)

static const struct dentry_operations pmaps_dentry_operations = {
	.d_revalidate	= PMAPS_D_REVALIDATE(pmaps_d_revalidate),
	.d_delete	= always_delete_dentry,
};

/*
 * Lists "self", "numa" in the root, and the thread-group leaders of the
 * reader's namespace that the reader may see.
 */
static int pmaps_root_iterate(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct vfsmount *procfs = pmaps_procfs(dir->i_sb);
	struct pid_namespace *ns = task_active_pid_ns(current);
	char name[16];
	struct pid *pid;
	bool visible;
	kuid_t uid;
	kgid_t gid;
	pid_t nr;
	int len;

	if (!dir_emit_dots(file, ctx))
		return 0;
	if (ctx->pos == PMAPS_POS_SELF) {
		if (!dir_emit(ctx, "self", 4, PMAPS_SELF_INO, DT_LNK))
			return 0;
		ctx->pos++;
	}
	if (ctx->pos == PMAPS_POS_NUMA) {
		if (dir->i_ino == PMAPS_ROOT_INO &&
		    !dir_emit(ctx, "numa", 4, PMAPS_NUMA_INO, DT_DIR))
			return 0;
		ctx->pos++;
	}

	while (ctx->pos - PMAPS_POS_FIRST_PID <= PID_MAX_LIMIT) {
		nr = ctx->pos - PMAPS_POS_FIRST_PID;
		rcu_read_lock();
		for (;;) {
			pid = find_ge_pid(nr, ns);
			if (!pid || pid_task(pid, PIDTYPE_TGID))
				break;
			nr = pid_nr_ns(pid, ns) + 1;
		}
		if (pid) {
			nr = pid_nr_ns(pid, ns);
			get_pid(pid);
		}
		rcu_read_unlock();
		if (!pid)
			break;
		visible = !pmaps_pid_owner(procfs, pid, &uid, &gid);
		put_pid(pid);

		ctx->pos = nr + PMAPS_POS_FIRST_PID;
		len = snprintf(name, sizeof(name), "%d", nr);
		if (visible && !dir_emit(ctx, name, len, ctx->pos, DT_REG))
			return 0;
		ctx->pos++;
	}
	ctx->pos = PID_MAX_LIMIT + PMAPS_POS_FIRST_PID + 1;
	return 0;
}

static const struct inode_operations pmaps_root_inode_operations = {
	.lookup		= pmaps_root_lookup,
};

static const struct file_operations pmaps_root_file_operations = {
	.owner		= THIS_MODULE,
	.read		= generic_read_dir,
	.iterate_shared	= pmaps_root_iterate,
	.llseek		= generic_file_llseek,
};

static void pmaps_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	put_pid(inode->i_private);
}

static const struct super_operations pmaps_super_operations = {
	.statfs		= simple_statfs,
	.drop_inode	= inode_just_drop,
	.evict_inode	= pmaps_evict_inode,
};

static int pmaps_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *root;

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = PMAPS_FS_MAGIC;
	/*
	 * As procfs: no stacking file system on top.  Its files open other
	 * procfs files (pmaps_may_open_maps()), which is magic enough.
	 */
	sb->s_stack_depth = FILESYSTEM_MAX_STACK_DEPTH;
	sb->s_op = &pmaps_super_operations;
	set_default_d_op(sb, &pmaps_dentry_operations);
	sb->s_time_gran = 1;

	root = pmaps_dir_inode(sb, PMAPS_ROOT_INO);
	if (!root)
		return -ENOMEM;
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

/* A superblock whose procfs is in the pid namespace of @fc's. */
static int pmaps_same_pid_ns(struct super_block *sb, struct fs_context *fc)
{
	struct vfsmount *procfs = fc->s_fs_info;

	return proc_pid_ns(pmaps_procfs(sb)->mnt_sb) ==
	       proc_pid_ns(procfs->mnt_sb);
}

/*
 * One superblock per pid namespace of the mounters, with its procfs for
 * pmaps_pid_owner() in that namespace; sget_fc() hands the procfs on from
 * fc->s_fs_info to a new superblock, and pmaps_free_fc() drops it when an
 * existing one is reused.  Sharing the superblock, a second mount on the
 * same mount point is refused by do_add_mount() with EBUSY, as for any
 * file system with one superblock.  With a superblock per mount it
 * stacked: a manual mount that made the kernel load the module, while the
 * modprobe.d rule mounted it, left two, and after modprobe -r unmounted
 * one the other kept the module busy.  s_stack_depth does not prevent
 * that; it only concerns stacking file systems such as overlayfs.
 */
static int pmaps_get_tree(struct fs_context *fc)
{
	struct vfsmount *procfs = pmaps_pid_procfs_mount();
	struct super_block *sb;
	int err;

	if (IS_ERR(procfs))
		return PTR_ERR(procfs);
	fc->s_fs_info = procfs;
	sb = sget_fc(fc, pmaps_same_pid_ns, set_anon_super_fc);
	if (IS_ERR(sb))
		return PTR_ERR(sb);
	if (!sb->s_root) {
		err = pmaps_fill_super(sb, fc);
		if (err) {
			deactivate_locked_super(sb);
			return err;
		}
		sb->s_flags |= SB_ACTIVE;
	}
	fc->root = dget(sb->s_root);
	return 0;
}

/* A context that made no superblock still holds its procfs. */
static void pmaps_free_fc(struct fs_context *fc)
{
	if (fc->s_fs_info)
		mntput(fc->s_fs_info);
}

static const struct fs_context_operations pmaps_context_operations = {
	.free		= pmaps_free_fc,
	.get_tree	= pmaps_get_tree,
};

static int pmaps_init_fs_context(struct fs_context *fc)
{
	fc->ops = &pmaps_context_operations;
	return 0;
}

static void pmaps_kill_sb(struct super_block *sb)
{
	struct vfsmount *procfs = pmaps_procfs(sb);

	kill_anon_super(sb);
	mntput(procfs);
}

static struct file_system_type pmaps_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "pmaps_ext",
	.init_fs_context	= pmaps_init_fs_context,
	.kill_sb		= pmaps_kill_sb,
};

int pmaps_fs_register(void)
{
	int err;

	pmaps_mount_point = proc_create_mount_point("pmaps_ext");
	if (!pmaps_mount_point)
		return -ENOMEM;
	err = register_filesystem(&pmaps_fs_type);
	if (err)
		remove_proc_entry("pmaps_ext", NULL);
	return err;
}

void pmaps_fs_unregister(void)
{
	unregister_filesystem(&pmaps_fs_type);
	remove_proc_entry("pmaps_ext", NULL);
}
