// SPDX-License-Identifier: GPL-2.0
/* linux/namei.h declares vfs_path_lookup() (v6.4). */
#include <linux/namei.h>
#include <linux/path.h>

int probe(struct path *root, struct path *path);
int probe(struct path *root, struct path *path)
{
	return vfs_path_lookup(root->dentry, root->mnt, "1", 0, path);
}
