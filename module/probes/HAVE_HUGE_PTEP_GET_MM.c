// SPDX-License-Identifier: GPL-2.0
/* huge_ptep_get() takes the mm and the address of the entry (v6.11). */
#include <linux/hugetlb.h>
#include <linux/mm.h>

pte_t probe(struct mm_struct *mm, unsigned long addr, pte_t *ptep);
pte_t probe(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	return huge_ptep_get(mm, addr, ptep);
}
