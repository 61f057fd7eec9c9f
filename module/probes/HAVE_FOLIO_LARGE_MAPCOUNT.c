// SPDX-License-Identifier: GPL-2.0
/* Large folios count all their mappings in one value (v6.11). */
#include <linux/mm.h>

int probe(struct folio *folio);
int probe(struct folio *folio)
{
	return folio_large_mapcount(folio);
}
