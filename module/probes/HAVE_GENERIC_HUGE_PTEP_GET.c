// SPDX-License-Identifier: GPL-2.0
/*
 * huge_ptep_get() is asm-generic's inline ptep_get(), not an architecture's
 * own (__HAVE_ARCH_HUGE_PTEP_GET), which may be out of line and unexported.
 */
#include <linux/hugetlb.h>
#include <linux/mm.h>

#ifdef __HAVE_ARCH_HUGE_PTEP_GET
#error "the architecture's own huge_ptep_get()"
#endif
