// SPDX-License-Identifier: GPL-2.0
/*
 * pmaps_ext: /proc/pmaps_ext/PID shows which pages of a process are
 * resident and what state they are in, as grouped page ranges, following
 * the 2007 /proc/<pid>/pmaps RFC.  See Documentation/pmaps_ext.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

#include "compat.h"
#include "pmaps_ext.h"

static int __init pmaps_ext_init(void)
{
	int err = pmaps_fs_register();

	/* What a reader costs the target depends on it: say which. */
	if (!err)
		pr_info("reads each VMA under %s\n",
			PMAPS_HAVE_VMA_LOCKS ? "its own per-VMA lock" :
					       "the mmap read lock");
	return err;
}

static void __exit pmaps_ext_exit(void)
{
	pmaps_fs_unregister();
}

module_init(pmaps_ext_init);
module_exit(pmaps_ext_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-page memory maps of processes in /proc/pmaps_ext/PID");
MODULE_ALIAS_FS("pmaps_ext");
