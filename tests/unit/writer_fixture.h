/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Shared by the writers' unit tests: a profile with every kind of frame
 * and hostile names (quotes, ';', newlines, invalid UTF-8, a 10 KB name,
 * a callgrind-like "(12)" prefix), two named threads, thread states,
 * timed samples and counted stacks without times; and the golden-file
 * comparison (RBFLAME_UPDATE_GOLDEN=1 rewrites the file).
 */
#ifndef RBFLAME_TEST_WRITER_FIXTURE_H
#define RBFLAME_TEST_WRITER_FIXTURE_H

#include <stddef.h>

#include "rbflame/output.h"
#include "rbflame/profile.h"

struct profile *fixture_hostile(void);
/** rbspy's six stacks from FORMATS.md, in one thread. */
struct profile *fixture_rbspy(void);
/** w's output for p, in a malloc'd buffer. */
char *fixture_write(const struct output_ops *w, const struct profile *p,
		    size_t *len);
/** gunzips a buffer (for binary goldens: zlib's bytes may change). */
char *fixture_gunzip(const char *buf, size_t len, size_t skip,
		     size_t *outlen);
/** Compares buf with tests/unit/data/NAME (rewrites it on request). */
void fixture_golden(const char *name, const char *buf, size_t len);

#endif
