/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Allocators that die on failure. Only these and main() may exit: every
 * other allocation failure is a program bug, not a target condition.
 */
#ifndef RBFLAME_XMALLOC_H
#define RBFLAME_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/** Grows *ptr (of *cap elements of size elsize) to hold at least need. */
void *xgrowarray(void *ptr, size_t *cap, size_t need, size_t elsize);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/** asprintf() that dies on failure; the caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
