/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a VMA without MADV_NOHUGEPAGE still has small folios only: for
 * the test children whose advice is refused (EINVAL: a kernel without
 * THP, or qemu-user, which does not pass the advice on).
 */
#ifndef PMAPS_SMALL_PAGES_H
#define PMAPS_SMALL_PAGES_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/*
 * Whether THP may back a VMA that has no advice: some THP size is
 * "always", or "inherit" of an "always".  Where MADV_NOHUGEPAGE was
 * refused, a child's pages are small folios only if not.  A kernel
 * without THP has no such file: 0.  1 with the reason in why.
 */
static inline int thp_may_back(char *why, size_t len)
{
	static const char thp[] = "/sys/kernel/mm/transparent_hugepage";
	char path[320], buf[128];
	int top_always = 0, ret = 0;
	struct dirent *d;
	FILE *f;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/enabled", thp);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		top_always = strstr(buf, "[always]") != NULL;
	fclose(f);
	if (top_always) {
		snprintf(why, len, "MADV_NOHUGEPAGE refused (EINVAL), and %s is always: the pages may be THP",
			 path);
		ret = 1;
	}
	dir = opendir(thp);
	while (dir && !ret && (d = readdir(dir))) {
		if (strncmp(d->d_name, "hugepages-", 10))
			continue;
		snprintf(path, sizeof(path), "%s/%s/enabled", thp, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) &&
		    (strstr(buf, "[always]") ||
		     (top_always && strstr(buf, "[inherit]")))) {
			snprintf(why, len, "MADV_NOHUGEPAGE refused (EINVAL), and %s is always or inherits it: the pages may be THP",
				 path);
			ret = 1;
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return ret;
}

#endif
