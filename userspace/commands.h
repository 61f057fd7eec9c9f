/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views that are commands of their own: "pmaps map PID", "pmaps watch
 * PID", ...  pmaps.c hands them argv from the command name on (argv[0] is
 * "map"), and each parses its own options and prints its own --help.
 * Each returns an exit status (enum pmaps_status).
 */
#ifndef PMAPS_COMMANDS_H
#define PMAPS_COMMANDS_H

#include <stdbool.h>
#include <time.h>

int pmaps_cmd_map(int argc, char **argv);	/* map.c */
int pmaps_cmd_watch(int argc, char **argv);	/* watch.c */
int pmaps_cmd_top(int argc, char **argv);	/* top.c */
int pmaps_cmd_wss(int argc, char **argv);	/* wss.c */
int pmaps_cmd_diff(int argc, char **argv);	/* diff.c */
int pmaps_cmd_core(int argc, char **argv);	/* core.c */

/*
 * For pmaps (command NULL) and the commands (pmaps.c): "pmaps[ COMMAND]:
 * MESSAGE" and the --help hint on stderr; returns PMAPS_ERR_INPUT, the
 * status of bad usage.
 */
int pmaps_cmd_usage_error(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The --help hint alone, after getopt_long's own message; as above. */
int pmaps_cmd_usage_hint(const char *command);
/*
 * -i, --interval of every command: seconds, as watch(1), top(1) and
 * vmstat(8) take them, with up to nine decimals ("2", "0.5"), above 0 and
 * up to PMAPS_INTERVAL_MAX.  A whole number from PMAPS_INTERVAL_MS_FROM
 * up is refused as milliseconds typed by habit ("wss -i 500" once waited
 * 500 s for 0.5); a decimal point ("300.0") says seconds.
 * Returns PMAPS_OK, or prints the usage error for command and returns its
 * status.
 */
#define PMAPS_INTERVAL_MAX	86400
#define PMAPS_INTERVAL_MS_FROM	100
int pmaps_interval_parse(const char *command, const char *arg,
			 struct timespec *ts);
/* An interval in whole milliseconds, rounded up, at least 1. */
long long pmaps_interval_ms(const struct timespec *ts);
/* A message of the loaders, "pmaps: ...", as "pmaps COMMAND: ...". */
void pmaps_cmd_report(const char *command, const char *msg);

#endif /* PMAPS_COMMANDS_H */
