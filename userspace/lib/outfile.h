/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmaps: the one way pmaps writes a file (export -o, map --png,
 * heap --png, record -o).  pmaps runs as root, often in directories that
 * others may write (/tmp, a textfile collector's directory), so:
 *
 * - the target, if it exists, must be a regular file: a device node, a
 *   FIFO, a directory or a symbolic link planted there is refused, not
 *   replaced, written through or opened (opening a FIFO would block);
 * - the data goes to a new temporary file in the target's directory,
 *   created with O_CREAT | O_EXCL | O_NOFOLLOW under a random name, so that
 *   nothing planted under a predictable name is opened;
 * - the temporary file is flushed, fsync()ed and renamed over the target
 *   only once complete: a reader sees the old file or the new one, never
 *   half of one, and a failure leaves the old file in place;
 * - a failure removes the temporary file.
 *
 * Messages are "PATH: what went wrong", for the caller to prefix with
 * "pmaps COMMAND: ".
 */
#ifndef PMAPS_OUTFILE_H
#define PMAPS_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct pmaps_outfile {
	char *path;		/* the target, as given */
	char *tmp;		/* the temporary file while open, else NULL */
	int fd;			/* of tmp, or -1 */
	FILE *f;		/* pmaps_outfile_stream()'s, or NULL */
};

/*
 * Refuse path when it exists and is not a regular file (lstat(), so a
 * symbolic link is refused too); else create the temporary file with mode
 * (less the umask).  0, or -1 with a message in err; o needs no cleanup
 * after -1.
 */
int pmaps_outfile_open(struct pmaps_outfile *o, const char *path,
		       mode_t mode, char *err, size_t errlen);

/* A stdio stream on the temporary file (once); NULL with errno. */
FILE *pmaps_outfile_stream(struct pmaps_outfile *o);

/*
 * Flush, fsync and close the temporary file; when backup is not NULL and
 * the target exists, rename the target to backup first (which must not be
 * anything but a regular file either); then rename the temporary file to
 * the target.  0, or -1 with a message in err and the temporary file
 * removed.  Either way o is finished with.
 */
int pmaps_outfile_commit(struct pmaps_outfile *o, const char *backup,
			 char *err, size_t errlen);

/* Give up: close and remove the temporary file.  Safe to call twice. */
void pmaps_outfile_abort(struct pmaps_outfile *o);

#endif
