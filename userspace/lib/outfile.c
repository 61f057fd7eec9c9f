// SPDX-License-Identifier: GPL-2.0
/*
 * libpmaps: write a file safely, as root, in a directory others may
 * write (see outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

/* Tries at a fresh random name before giving up on EEXIST. */
#define TMP_TRIES	100

/*
 * path exists and is not a regular file: "PATH: not a regular file, not
 * replacing it".  0 when it is a regular file or does not exist.
 */
static int check_target(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errlen, "%s: not a regular file (%s), not replacing it",
		 path, S_ISLNK(st.st_mode) ? "a symbolic link" :
		 S_ISDIR(st.st_mode) ? "a directory" :
		 S_ISFIFO(st.st_mode) ? "a FIFO" :
		 S_ISCHR(st.st_mode) ? "a character device" :
		 S_ISBLK(st.st_mode) ? "a block device" :
		 S_ISSOCK(st.st_mode) ? "a socket" : "of another type");
	return -1;
}

/* xorshift64*, seeded from the clock, the PID and the address of o */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

int pmaps_outfile_open(struct pmaps_outfile *o, const char *path,
		       mode_t mode, char *err, size_t errlen)
{
	static const char letters[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;
	struct timespec ts;
	uint64_t seed;
	size_t len;
	int i, e = 0;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!*base) {
		snprintf(err, errlen, "%s: expected a file name, got a directory",
			 path);
		return -1;
	}
	if (check_target(path, err, errlen))
		return -1;
	/* DIR/.BASE.XXXXXX: in the target's directory, so rename() works */
	len = dirlen + 1 + strlen(base) + 8;
	o->path = strdup(path);
	o->tmp = malloc(len);
	if (!o->path || !o->tmp) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	seed = ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^
	       ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)o;
	seed |= 1;
	for (i = 0; i < TMP_TRIES; i++) {
		uint64_t r = next_random(&seed);
		char *p;
		int k;

		snprintf(o->tmp, len, "%.*s.%s.XXXXXX", (int)dirlen, path,
			 base);
		p = o->tmp + strlen(o->tmp) - 6;
		for (k = 0; k < 6; k++, r /= 62)
			p[k] = letters[r % 62];
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			     O_CLOEXEC, mode);
		if (o->fd >= 0)
			return 0;
		e = errno;
		if (e != EEXIST)
			break;
	}
	snprintf(err, errlen, "%s: cannot create a temporary file beside it: %s",
		 path, strerror(e));
fail:
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return -1;
}

FILE *pmaps_outfile_stream(struct pmaps_outfile *o)
{
	if (!o->f && o->fd >= 0)
		o->f = fdopen(o->fd, "w");
	return o->f;
}

/* Close the temporary file: 0, or the errno of a failed write or close. */
static int close_tmp(struct pmaps_outfile *o)
{
	int e = 0;

	if (o->f) {
		errno = 0;
		if (ferror(o->f) || fflush(o->f))
			e = errno ? errno : EIO;
		if (!e && fsync(o->fd))
			e = errno;
		if (fclose(o->f) && !e)
			e = errno ? errno : EIO;
	} else if (o->fd >= 0) {
		if (fsync(o->fd))
			e = errno;
		if (close(o->fd) && !e)
			e = errno;
	}
	o->f = NULL;
	o->fd = -1;
	return e;
}

void pmaps_outfile_abort(struct pmaps_outfile *o)
{
	if (o->f)
		fclose(o->f);
	else if (o->fd >= 0)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
}

int pmaps_outfile_commit(struct pmaps_outfile *o, const char *backup,
			 char *err, size_t errlen)
{
	struct stat st;
	int e = close_tmp(o);

	if (e) {
		snprintf(err, errlen, "%s: %s", o->tmp, strerror(e));
		goto fail;
	}
	/* what is there now: it may have changed since open */
	if (check_target(o->path, err, errlen))
		goto fail;
	if (backup && !lstat(o->path, &st)) {
		if (check_target(backup, err, errlen))
			goto fail;
		if (rename(o->path, backup)) {
			snprintf(err, errlen, "%s: renaming it to %s: %s",
				 o->path, backup, strerror(errno));
			goto fail;
		}
	}
	if (rename(o->tmp, o->path)) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(errno));
		goto fail;
	}
	free(o->tmp);
	o->tmp = NULL;
	pmaps_outfile_abort(o);
	return 0;
fail:
	pmaps_outfile_abort(o);
	return -1;
}
