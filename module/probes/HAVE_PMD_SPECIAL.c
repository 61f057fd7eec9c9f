// SPDX-License-Identifier: GPL-2.0
/* Kernel has pmd_special() for huge pfn maps (v6.12). */
#include <linux/mm.h>
#include <linux/pgtable.h>

bool probe(pmd_t pmd);
bool probe(pmd_t pmd)
{
	return pmd_special(pmd);
}
