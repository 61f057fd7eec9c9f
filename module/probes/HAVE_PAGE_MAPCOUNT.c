// SPDX-License-Identifier: GPL-2.0
/* Kernel still has page_mapcount() (removed in v6.12). */
#include <linux/mm.h>

int probe(struct page *page);
int probe(struct page *page)
{
	return page_mapcount(page);
}
