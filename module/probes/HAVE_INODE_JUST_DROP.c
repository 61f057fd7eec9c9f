// SPDX-License-Identifier: GPL-2.0
/* Kernel has inode_just_drop(), which was generic_delete_inode() (v6.18). */
#include <linux/fs.h>

int probe(struct inode *inode);
int probe(struct inode *inode)
{
	return inode_just_drop(inode);
}
