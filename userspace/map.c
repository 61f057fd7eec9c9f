// SPDX-License-Identifier: GPL-2.0
/* pmaps map: placeholder until the command lands (issue 7). */
#include <stdio.h>

#include "commands.h"

int pmaps_cmd_map(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("pmaps: map: not implemented yet\n", stderr);
	return 2;
}
