/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Small helpers shared by the tracee programs of the end-to-end suite:
 * the readiness handshake with the test script, a "go" file the tracee
 * waits for before its timed phase, clocks and argument parsing.
 *
 * Handshake: the tracee writes its ready file atomically (a temporary file
 * renamed into place), so a test polling for the file never reads half of
 * it. A tracee given a go file spins in a sleep loop until that file
 * exists, so the timed phase starts only once the profiler is attached.
 *
 * Everything here is static: each tracee is a single program and the
 * chain tracee's frames must stay exactly main;f0;f1;f2;f3.
 */
#ifndef RBFLAME_TRACEE_H
#define RBFLAME_TRACEE_H

/* Include this first: the tracees use GNU extensions (pthread_setname_np). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACEE_UNUSED __attribute__((unused))
#define TRACEE_NOINLINE __attribute__((noinline))

/* Exit status of a tracee that could not set itself up (not a test result). */
#define TRACEE_EXIT_SETUP 99

static TRACEE_UNUSED __attribute__((format(printf, 1, 2), noreturn)) void
tracee_die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "tracee: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(TRACEE_EXIT_SETUP);
}

static TRACEE_UNUSED double
tracee_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static TRACEE_UNUSED void
tracee_sleep(double seconds)
{
	struct timespec ts;

	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* "2.5" -> 2.5; a missing or negative value means "forever" (-1). */
static TRACEE_UNUSED double
tracee_seconds(const char *arg)
{
	char *end;
	double d;

	if (!arg)
		return -1;
	errno = 0;
	d = strtod(arg, &end);
	if (errno || end == arg || *end)
		tracee_die("bad duration '%s'", arg);
	return d;
}

/* Absolute CLOCK_MONOTONIC deadline, or -1 for "forever". */
static TRACEE_UNUSED double
tracee_deadline(double seconds)
{
	return seconds < 0 ? -1 : tracee_now() + seconds;
}

/* Writes text to path atomically (path.tmp then rename). NULL path: no-op. */
static TRACEE_UNUSED void
tracee_ready(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	if (!path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		tracee_die("open %s", tmp);
	fputs(text, f);
	if (fclose(f) != 0)
		tracee_die("write %s", tmp);
	if (rename(tmp, path) < 0)
		tracee_die("rename %s", tmp);
}

/* Waits (at most 30 s) until path exists. NULL path: no wait. */
static TRACEE_UNUSED void
tracee_go_wait(const char *path)
{
	double give_up = tracee_now() + 30;

	if (!path)
		return;
	while (access(path, F_OK) < 0) {
		if (tracee_now() > give_up) {
			errno = 0;
			tracee_die("no go file %s after 30 s", path);
		}
		tracee_sleep(0.005);
	}
}

#endif
