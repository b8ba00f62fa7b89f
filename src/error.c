// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Error and notice printing: the only place below main() that writes to
 * the user's terminal.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/error.h"
#include "rbflame/utf8.h"

const char *program_name = "rbflame";
bool debug_enabled;
bool quiet_enabled;
int exit_code_on_die = 1;

static void
vmsg(const char *fmt, va_list ap, int err)
{
	/* Build the whole line first so concurrent writers do not interleave.
	 * Messages name threads, paths and versions the target chose: every
	 * message is one line, and a control character in it is data,
	 * escaped (utf8_escape()) before it reaches the terminal. */
	char buf[1024], out[1024];
	size_t len;
	int n = snprintf(buf, sizeof(buf), "%s: ", program_name);

	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof(buf))
		n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (err && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, ": %s", strerror(err));
	utf8_escape(buf, out, sizeof(out) - 1, 0);
	len = strlen(out);
	out[len++] = '\n';
	fflush(stdout);
	fwrite(out, 1, len, stderr);
}

void
error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void
perror_msg(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
}

void
error_msg_and_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	exit(exit_code_on_die);
}

void
perror_msg_and_die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
	exit(exit_code_on_die);
}

void
error_msg_and_help(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n",
		program_name);
	exit(2);
}

void
notice_msg(const char *fmt, ...)
{
	va_list ap;

	if (quiet_enabled)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

void
debug_msg(const char *fmt, ...)
{
	va_list ap;

	if (!debug_enabled)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}
