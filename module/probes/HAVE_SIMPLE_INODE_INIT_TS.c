// SPDX-License-Identifier: GPL-2.0
/* Kernel has simple_inode_init_ts() (v6.7). */
#include <linux/fs.h>

void probe(struct inode *inode);
void probe(struct inode *inode)
{
	simple_inode_init_ts(inode);
}
