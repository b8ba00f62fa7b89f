/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The perf map a JIT writes for its code (/tmp/perf-PID.map, Linux perf's
 * JIT interface: one "START SIZE NAME" line per range, START and SIZE in
 * hex): YJIT writes one under 'ruby --yjit-perf' (3.3+), a line per
 * compiled block named "[JIT] Class#method". The file is the target's
 * and untrusted: it is opened inside the target's root with its rights
 * (tfile.c), read up to TFILE_CAP_PERFMAP bytes and PERFMAP_MAX_ENTRIES
 * ranges, and a line that does not parse is skipped. It only grows while
 * the JIT runs, so it is read on from where the last read stopped.
 */
#ifndef RBFLAME_PERFMAP_H
#define RBFLAME_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

struct tfile_root;
struct perfmap;

/* At most this many ranges are kept; past it the rest stay unnamed. */
#define PERFMAP_MAX_ENTRIES (1u << 20)
/* Names are cut to this many bytes. */
#define PERFMAP_NAME_MAX 200

/**
 * A map read from path (as the target sees it) inside root, which the
 * caller keeps alive until perfmap_destroy(); root NULL reads nothing
 * (perfmap_add_text() alone, for tests). Nothing is read until the
 * first lookup. A name is shown as "[TAG] NAME", the JIT's own "[JIT] "
 * prefix dropped. perfmap_destroy() frees.
 */
struct perfmap *perfmap_create(const struct tfile_root *root, const char *path,
			       const char *tag);

/**
 * The name of the range holding ip, or NULL. A miss reads what was
 * appended to the file since the last read (a JIT writes a range's line
 * before the code first runs, so an address seen running is named by
 * then, or never). The string is valid until perfmap_destroy().
 */
const char *perfmap_lookup(struct perfmap *pm, uint64_t ip);

/**
 * Parses the complete lines of text (len bytes) as if read from the
 * file; returns the bytes consumed (up to the last newline).
 */
size_t perfmap_add_text(struct perfmap *pm, const char *text, size_t len);

/** How many ranges are held. */
size_t perfmap_count(const struct perfmap *pm);

/** Frees pm (NULL is fine). */
void perfmap_destroy(struct perfmap *pm);

#endif
