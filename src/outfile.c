// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Output files (see outfile.h). Owns the temporary file of a regular
 * output, its directory descriptor and its stream, until commit or abort.
 *
 * The directory is opened once and everything after happens relative to
 * it (fstatat, openat, renameat), so the name checked is the name
 * replaced. rename(2) replaces a directory entry: whatever the name holds
 * by then (a symlink planted after the check, a hard link to another
 * user's file) is replaced, never written through.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/outfile.h"
#include "rbflame/xmalloc.h"

#define TMP_TRIES 64

struct outfile {
	FILE *f;
	bool own_stream;	/* f is ours to fclose */
	int dirfd;		/* regular output: its directory, else -1 */
	char *base;		/* ... its name there */
	char *tmp;		/* ... and the temporary file's */
};

/* The descriptor a /dev or /proc name means, or -1. */
static int
std_name(const char *path)
{
	const char *n = NULL;
	char *end;
	long fd;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	if (!strncmp(path, "/dev/fd/", 8))
		n = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		n = path + 14;
	if (!n || *n < '0' || *n > '9')
		return -1;
	errno = 0;
	fd = strtol(n, &end, 10);
	if (errno || *end || fd > INT_MAX)
		return -1;
	return (int)fd;
}

static struct outfile *
direct(int fd, bool own)
{
	struct outfile *o = xcalloc(1, sizeof(*o));

	o->dirfd = -1;
	if (fd == STDOUT_FILENO && !own) {
		o->f = stdout;
		return o;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int err = errno;

		if (own)
			close(fd);
		free(o);
		errno = err;
		return NULL;
	}
	o->own_stream = true;
	return o;
}

/* One of the process's descriptors, written as it is. */
static struct outfile *
open_std(int fd)
{
	int copy;

	if (fd == STDOUT_FILENO)
		return direct(fd, false);
	copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (copy < 0)
		return NULL;
	return direct(copy, true);
}

/* An existing FIFO, device or socket: opened as it is. */
static struct outfile *
open_special(int dirfd, const char *base)
{
	struct stat st;
	int fd;

	fd = openat(dirfd, base,
		    O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* Swapped for a regular file since the check: nothing was written
	 * or truncated yet; refuse rather than write into it. */
	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
		close(fd);
		errno = EAGAIN;
		return NULL;
	}
	return direct(fd, true);
}

/* A new file beside base, with the mode (and owner) of the file it will
 * replace, or 0666 less the umask. */
static int
create_tmp(struct outfile *o, const struct stat *old)
{
	for (int i = 0; i < TMP_TRIES; i++) {
		unsigned char r[6];
		int fd;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -1;
		free(o->tmp);
		o->tmp = xasprintf(".%.200s.rbflame-%02x%02x%02x%02x%02x%02x",
				   o->base, r[0], r[1], r[2], r[3], r[4], r[5]);
		fd = openat(o->dirfd, o->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0666);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return -1;
		if (old) {
			/* chown first: it clears set-id bits. Keeping the
			 * owner needs root; without, the file is ours. */
			if (fchown(fd, old->st_uid, old->st_gid) < 0 &&
			    errno != EPERM)
				goto fail;
			if (fchmod(fd, old->st_mode & 07777) < 0)
				goto fail;
		}
		return fd;
fail:
		{
			int err = errno;

			close(fd);
			unlinkat(o->dirfd, o->tmp, 0);
			errno = err;
			return -1;
		}
	}
	errno = EEXIST;
	return -1;
}

static void
free_outfile(struct outfile *o)
{
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->base);
	free(o->tmp);
	free(o);
}

struct outfile *
outfile_open(const char *path)
{
	struct outfile *o;
	const char *slash;
	struct stat st;
	char *dir;
	int fd, err;

	if (!path || !*path) {
		errno = EINVAL;
		return NULL;
	}
	fd = std_name(path);
	if (fd >= 0)
		return open_std(fd);

	o = xcalloc(1, sizeof(*o));
	slash = strrchr(path, '/');
	if (slash && slash[1] == '\0') {
		free(o);
		errno = EISDIR;
		return NULL;
	}
	dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
		    : xstrdup(".");
	o->base = xstrdup(slash ? slash + 1 : path);
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (o->dirfd < 0)
		goto fail;
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			goto fail;
		}
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			struct outfile *sp = open_special(o->dirfd, o->base);

			err = errno;
			free_outfile(o);
			errno = err;
			return sp;
		}
		fd = create_tmp(o, &st);
	} else if (errno == ENOENT) {
		fd = create_tmp(o, NULL);
	} else {
		goto fail;
	}
	if (fd < 0)
		goto fail;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		err = errno;
		close(fd);
		unlinkat(o->dirfd, o->tmp, 0);
		errno = err;
		goto fail;
	}
	o->own_stream = true;
	return o;
fail:
	err = errno;
	free_outfile(o);
	errno = err;
	return NULL;
}

FILE *
outfile_stream(struct outfile *o)
{
	return o->f;
}

bool
outfile_is_tty(const struct outfile *o)
{
	return isatty(fileno(o->f));
}

int
outfile_commit(struct outfile *o)
{
	int err = 0;

	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno ? errno : EIO;
	if (o->tmp && !err && fsync(fileno(o->f)) < 0)
		err = errno;
	if (o->own_stream && fclose(o->f) != 0 && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (o->tmp) {
		if (!err &&
		    renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0)
			err = errno;
		if (err)
			unlinkat(o->dirfd, o->tmp, 0);
	}
	free_outfile(o);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void
outfile_abort(struct outfile *o)
{
	if (!o)
		return;
	if (o->own_stream)
		fclose(o->f);
	else if (o->f)
		fflush(o->f);
	if (o->tmp)
		unlinkat(o->dirfd, o->tmp, 0);
	free_outfile(o);
}
