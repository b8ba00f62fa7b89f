/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * String interning: each distinct string gets a small dense id, so stacks
 * are arrays of ids and frames are compared by number.
 */
#ifndef RBFLAME_INTERN_H
#define RBFLAME_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern;

struct intern *intern_create(void);
/** The id of s (len bytes, need not be NUL-terminated), adding it if new. */
uint32_t intern_id(struct intern *in, const char *s, size_t len);
/** The id of a NUL-terminated string. */
uint32_t intern_str(struct intern *in, const char *s);
/** The id of s when it is pooled, else UINT32_MAX; never adds it. */
uint32_t intern_find(const struct intern *in, const char *s);
/** The string with that id (NUL-terminated, owned by in). */
const char *intern_get(const struct intern *in, uint32_t id);
/** Length of the string with that id. */
size_t intern_len(const struct intern *in, uint32_t id);
/** Number of strings. */
uint32_t intern_count(const struct intern *in);
/** Empties in (every id and string gone), keeping its tables' room: a
 * pool filled and emptied over and over reuses the same memory. */
void intern_clear(struct intern *in);
void intern_destroy(struct intern *in);

/** FNV-1a, the hash used by the tables here. */
uint64_t intern_hash(const void *data, size_t len);

#endif
