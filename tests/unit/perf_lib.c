// SPDX-License-Identifier: GPL-2.0
/* The library perf_target.c dlopen()s: a file of its own to map. */
int pmaps_perf_lib(void);

int pmaps_perf_lib(void)
{
	return 42;
}
