// SPDX-License-Identifier: GPL-2.0
/* Kernel has pgdp_get(), p4dp_get() and pudp_get() (v6.10). */
#include <linux/mm.h>
#include <linux/pgtable.h>

pud_t probe(pgd_t *pgdp, p4d_t *p4dp, pud_t *pudp);
pud_t probe(pgd_t *pgdp, p4d_t *p4dp, pud_t *pudp)
{
	(void)pgdp_get(pgdp);
	(void)p4dp_get(p4dp);
	return pudp_get(pudp);
}
