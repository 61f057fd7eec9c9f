/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a test binary needs to know when tests/unit/arm64.sh runs it under
 * qemu-user: the emulator answers a process's own /proc/self (exe, maps)
 * itself, with the guest's view, but another process's /proc/PID as the
 * kernel does, and what it does not emulate (the PAGEMAP_SCAN ioctl,
 * MADV_HUGEPAGE) it refuses without asking the kernel.
 */
#ifndef PMAPS_QEMU_USER_H
#define PMAPS_QEMU_USER_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The qemu-user emulator the kernel runs as this process: a child's
 * /proc/PID/exe is the kernel's (qemu-user answers only our own PID), and
 * names the emulator where our /proc/self/exe names this test.  Natively
 * both are the same file; under valgrind, which answers the same way,
 * the child's is valgrind's tool, not a qemu-*: no emulator here.  1
 * with the emulator's name (its path's last part) in buf under qemu-user;
 * 0 otherwise, or when it cannot be told (then the tests run, and fail
 * if they must).
 */
static inline int qemu_user_emulator(char *buf, size_t len)
{
	static int known = -1;
	static char emu[256];
	char self[256], path[64];
	const char *base;
	ssize_t n, m;
	int p[2];
	pid_t pid;

	if (known < 0) {
		known = 0;
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n > 0 && !pipe(p)) {
			pid = fork();
			if (!pid) {
				char c;

				close(p[1]);
				/* until the parent has looked */
				while (read(p[0], &c, 1) < 0)
					;
				_exit(0);
			}
			close(p[0]);
			if (pid > 0) {
				snprintf(path, sizeof(path), "/proc/%d/exe",
					 (int)pid);
				m = readlink(path, emu, sizeof(emu) - 1);
				if (m > 0) {
					emu[m] = '\0';
					self[n] = '\0';
					base = strrchr(emu, '/');
					base = base ? base + 1 : emu;
					known = strcmp(emu, self) &&
						!strncmp(base, "qemu-", 5);
				}
			}
			close(p[1]);
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
	}
	if (known && buf)
		snprintf(buf, len, "%s",
			 strrchr(emu, '/') ? strrchr(emu, '/') + 1 : emu);
	return known;
}

/*
 * Under qemu-user, /proc/self/maps is the emulator's account of the
 * guest, not the kernel's file: its addresses are not padded to 8 digits
 * as the kernel's are (%08lx), and pmaps' reader refuses it.  1 with the
 * reason in why when this process runs under an emulator and its own
 * maps are so; natively 0, and the test reads its maps.
 */
static inline int qemu_user_own_maps(char *why, size_t len)
{
	char emu[256], line[128];
	size_t digits = 0;
	FILE *f;

	if (!qemu_user_emulator(emu, sizeof(emu)))
		return 0;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	while (isxdigit((unsigned char)line[digits]))
		digits++;
	if (line[digits] != '-' || digits >= 8)
		return 0;
	line[digits] = '\0';
	snprintf(why, len,
		 "qemu-user (%s) does not emulate the kernel's /proc/self/maps: its start %s is not padded to 8 digits",
		 emu, line);
	return 1;
}

/*
 * Whether the emulator this process runs under refuses the ioctl cmd
 * (named name) on the file path: qemu-user answers one it does not
 * emulate ENOTTY before looking at the argument, where a kernel that has
 * it faults on the NULL argument (EFAULT).  1 with the reason in why;
 * natively 0, whatever this kernel says, and the test runs.
 */
static inline int qemu_user_refuses_ioctl(const char *path, unsigned long cmd,
					  const char *name, char *why,
					  size_t len)
{
	char emu[256];
	int fd, r, e;

	if (!qemu_user_emulator(emu, sizeof(emu)))
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	r = ioctl(fd, cmd, NULL);
	e = errno;
	close(fd);
	if (r != -1 || e != ENOTTY)
		return 0;
	snprintf(why, len, "qemu-user (%s) does not emulate the %s ioctl",
		 emu, name);
	return 1;
}

#endif
