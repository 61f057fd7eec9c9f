/* SPDX-License-Identifier: GPL-2.0 */
/* The fuzzers' assertion: a failed one aborts, which libFuzzer reports. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define check(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif /* FUZZ_CHECK_H */
