/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * UTF-8 validation, one place for every writer that must emit valid text
 * (collapsed, JSON, SVG): frame names come from the target's memory and
 * may hold any bytes.
 */
#ifndef RBFLAME_UTF8_H
#define RBFLAME_UTF8_H

#include <stddef.h>
#include <stdint.h>

/**
 * Length of the valid UTF-8 sequence at p (n > 0 bytes left), 0 if
 * invalid: truncated, overlong, a surrogate or past U+10FFFF. *cp, when
 * not NULL, receives the code point.
 */
size_t utf8_len(const unsigned char *p, size_t n, uint32_t *cp);

#endif
