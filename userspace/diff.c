// SPDX-License-Identifier: GPL-2.0
/* pmaps diff: placeholder until the command lands (issue 7). */
#include <stdio.h>

#include "commands.h"

int pmaps_cmd_diff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("pmaps: diff: not implemented yet\n", stderr);
	return 2;
}
