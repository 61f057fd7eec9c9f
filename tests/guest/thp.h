/* SPDX-License-Identifier: GPL-2.0 */
/* The THP and mTHP sysfs knobs, as the guest tests read them. */
#ifndef PMAPS_GUEST_THP_H
#define PMAPS_GUEST_THP_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/*
 * The [bracketed] choice of a sysfs file that lists them all (a THP or
 * mTHP "enabled" knob) into buf; 0, or -1.
 */
static inline int sysfs_choice(const char *path, char *buf, size_t len)
{
	char line[256], *open_br, *close_br;
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	open_br = ok ? strchr(line, '[') : NULL;
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br || (size_t)(close_br - open_br) > len)
		return -1;
	snprintf(buf, len, "%.*s", (int)(close_br - open_br - 1), open_br + 1);
	return 0;
}

#endif
