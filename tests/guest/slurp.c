// SPDX-License-Identifier: GPL-2.0
/*
 * slurp FILE OUT: FILE read whole, then written to OUT.  compare.sh reads
 * the texts of processes that share busybox's text with the guest's shell
 * tools; a busybox reader, or a filter running beside it, maps those
 * pages while the file is read and changes their mapcount (and, where
 * the kernel keeps no per-page mapcount, that of the whole folio).  This
 * reader is not busybox and runs nothing beside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLURP_MAX	(64UL << 20)	/* far above any text compared */

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "slurp: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	size_t cap = 1UL << 20, len = 0, done = 0;
	char *buf;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: slurp FILE OUT\n");
		return 2;
	}
	buf = malloc(cap);
	if (!buf)
		return fail("allocating for", argv[1]);
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("opening", argv[1]);
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *grown = cap < SLURP_MAX ? realloc(buf, 2 * cap) :
				      NULL;

			if (!grown) {
				errno = EFBIG;
				return fail("reading", argv[1]);
			}
			buf = grown;
			cap *= 2;
		}
	}
	if (n < 0)
		return fail("reading", argv[1]);
	close(fd);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail("creating", argv[2]);
	while (done < len) {
		n = write(fd, buf + done, len - done);
		if (n <= 0)
			return fail("writing", argv[2]);
		done += (size_t)n;
	}
	if (close(fd))
		return fail("closing", argv[2]);
	free(buf);
	return 0;
}
