/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * UTF-8 validation, one place for every writer that must emit valid text
 * (collapsed, JSON, SVG): frame names come from the target's memory and
 * may hold any bytes. And the one escaping of text shown to a person
 * (the text reports, dot, diff's table, dump, every message on stderr):
 * a thread name or a path with ESC in it must not drive the terminal.
 */
#ifndef RBFLAME_UTF8_H
#define RBFLAME_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * Length of the valid UTF-8 sequence at p (n > 0 bytes left), 0 if
 * invalid: truncated, overlong, a surrogate or past U+10FFFF. *cp, when
 * not NULL, receives the code point.
 */
size_t utf8_len(const unsigned char *p, size_t n, uint32_t *cp);

/* utf8_escape() flags. */
#define UTF8_KEEP_TAB 1u	/* a tab stays (source lines) */

/**
 * Copies s into out (cap bytes, NUL-terminated) as text safe for a
 * terminal: the C0 controls (newline and ESC among them), DEL and the C1
 * controls U+0080-U+009F become "\xHH", invalid UTF-8 bytes U+FFFD; a tab
 * stays with UTF8_KEEP_TAB. Cut at a whole unit when out is full.
 * Returns out.
 */
char *utf8_escape(const char *s, char *out, size_t cap, unsigned flags);

/** utf8_escape() of s to f, whatever its length. */
void utf8_put_escaped(FILE *f, const char *s, unsigned flags);

#endif
