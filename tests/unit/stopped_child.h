/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A child that sets up a known memory layout and is then stopped, so that
 * the tests read a process that does not change under them.
 */
#ifndef PMAPS_STOPPED_CHILD_H
#define PMAPS_STOPPED_CHILD_H

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../guest/tap.h"

/*
 * Fork a child that runs child_main(wfd), which writes len bytes of its
 * layout to wfd and never returns; read them into layout, then stop the
 * child.  *pid is the child (or -1); 0 when it is stopped, -1 otherwise.
 */
static inline int start_stopped_child(void (*child_main)(int wfd),
				      void *layout, size_t len, pid_t *pid)
{
	int p[2], st;

	if (pipe(p))
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (!*pid) {
		/* a test that dies leaves no stopped child behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		child_main(p[1]);
	}
	close(p[1]);
	if (read(p[0], layout, len) != (ssize_t)len) {
		close(p[0]);
		tap_diag("child failed to set up its layout");
		return -1;
	}
	close(p[0]);
	if (kill(*pid, SIGSTOP) || waitpid(*pid, &st, WUNTRACED) != *pid ||
	    !WIFSTOPPED(st))
		return -1;
	return 0;
}

#endif
