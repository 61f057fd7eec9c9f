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
static inline void tap_vdiag(const char *fmt, va_list ap)
{
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

static inline void tap_result(int ok, const char *name)
{
	printf("%s %d %s\n", ok ? "ok" : "not ok", ++tap_test_nr, name);
	fflush(stdout);
}

/*
 * Checks inside one test: a failed check says why and the test goes on,
 * so one run shows every difference; tap_test_done() then reports it.
 */
static int tap_failed_checks, tap_failed_tests;

static inline void tap_check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void tap_check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	tap_failed_checks++;
	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

static inline void tap_test_done(const char *name)
{
	tap_result(!tap_failed_checks, name);
	tap_failed_tests += !!tap_failed_checks;
	tap_failed_checks = 0;
}

static inline void tap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++tap_test_nr, name, why);
	fflush(stdout);
}

#endif
