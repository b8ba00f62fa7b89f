/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Output files: the one way rbflame writes a file the user names (-o,
 * report's -o, diff's --svg and --collapsed). A regular output is
 * written to a new file beside it and renamed over the name only once
 * complete, so a run that fails (an attach refused, a full disk) leaves
 * an existing file as it was and never a partial one. The name itself is
 * never followed as a symbolic link: rbflame often runs as root, and a
 * link planted in a directory another user can write would otherwise
 * make it truncate any file. Standard output ("-", /dev/stdout), a FIFO
 * or a device is written directly.
 */
#ifndef RBFLAME_OUTFILE_H
#define RBFLAME_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile;

/**
 * Opens path for an output. "-", /dev/stdout and /dev/fd/1 are standard
 * output; /dev/stderr, /dev/fd/N and /proc/self/fd/N that descriptor;
 * an existing FIFO, character device or socket is opened for writing
 * as it is (never truncated, never created); anything else must be a
 * regular file or not exist: it gets a temporary file in the same
 * directory (O_EXCL, the existing file's mode and owner, else 0666 less
 * the umask), renamed into place by outfile_commit(). NULL with errno:
 * ELOOP when path is a symbolic link (other than those of /dev above),
 * EISDIR for a directory, or what creating the temporary file gave.
 */
struct outfile *outfile_open(const char *path);

/** The stream to write the output to; valid until commit or abort. */
FILE *outfile_stream(struct outfile *o);

/** Whether the output is a terminal (binary formats are refused there). */
bool outfile_is_tty(const struct outfile *o);

/**
 * Finishes the output: flushes it, and for a regular file syncs it and
 * renames it into place. 0, or -1 with errno, the temporary file removed
 * and an existing file untouched. Frees o either way.
 */
int outfile_commit(struct outfile *o);

/**
 * Drops the output: the temporary file is removed, an existing file
 * stays as it was (a direct output keeps what was written). Frees o;
 * NULL is fine.
 */
void outfile_abort(struct outfile *o);

#endif
