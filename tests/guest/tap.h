/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal kselftest-style TAP output for the guest tests. */
#ifndef PMAPS_TAP_H
#define PMAPS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_test_nr;

static inline void tap_plan(int nr)
{
	printf("TAP version 13\n1..%d\n", nr);
	fflush(stdout);
}

/* Comment lines ("# ...") carry diagnostics without affecting the result. */
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void tap_result(int ok, const char *name)
{
	printf("%s %d %s\n", ok ? "ok" : "not ok", ++tap_test_nr, name);
	fflush(stdout);
}

static inline void tap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++tap_test_nr, name, why);
	fflush(stdout);
}

#endif
