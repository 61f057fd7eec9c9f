// SPDX-License-Identifier: GPL-2.0
/* Kernel has vma_is_initial_heap() and vma_is_initial_stack() (v6.6). */
#include <linux/mm.h>

bool probe(const struct vm_area_struct *vma);
bool probe(const struct vm_area_struct *vma)
{
	return vma_is_initial_heap(vma) || vma_is_initial_stack(vma);
}
