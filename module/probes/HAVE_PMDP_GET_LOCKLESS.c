// SPDX-License-Identifier: GPL-2.0
/* Kernel has pmdp_get_lockless() (v6.5, "mm: Rename pmd_read_atomic()"). */
#include <linux/mm.h>
#include <linux/pgtable.h>

pmd_t probe(pmd_t *pmdp);
pmd_t probe(pmd_t *pmdp)
{
	return pmdp_get_lockless(pmdp);
}
