// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* Allocators that die: out of memory is not a condition rbflame recovers from. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/error.h"
#include "rbflame/xmalloc.h"

static void ATTR_NORETURN
die_oom(void)
{
	error_msg_and_die("out of memory");
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die_oom();
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die_oom();
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		die_oom();
	return p;
}

void *
xgrowarray(void *ptr, size_t *cap, size_t need, size_t elsize)
{
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return ptr;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elsize)
			die_oom();
		n *= 2;
	}
	ptr = xrealloc(ptr, n * elsize);
	*cap = n;
	return ptr;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die_oom();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		die_oom();
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die_oom();
	va_end(ap);
	return s;
}
