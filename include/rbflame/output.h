/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The writer table: each output format is one const struct output_ops in
 * src/out/, looked up by name. Writers read a finished profile and write a
 * stream; they never touch the target.
 */
#ifndef RBFLAME_OUTPUT_H
#define RBFLAME_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "rbflame/profile.h"

/** What a user asks of a view beyond the profile (from the options). */
struct output_opts {
	const char *title;	/* --title; NULL: the writer's own */
	bool icicle;		/* --icicle: roots at the top */
	unsigned limit;		/* --limit N: rows of a text report, 0 all */
	const char *regex;	/* annotate: the methods to show */
};

struct output_ops {
	const char *name;
	const char *description;
	/* Writes p to f: 0, or -1 with errno (the caller reports). */
	int (*write)(const struct profile *p, FILE *f);
	/* A writer that takes options sets this one instead of write. */
	int (*write_opts)(const struct profile *p,
			  const struct output_opts *o, FILE *f);
};

/** The writer called name, or NULL. */
const struct output_ops *output_find(const char *name);
/** "collapsed, ..." for messages. */
const char *output_names(void);
/**
 * Writes p with w to f, passing o (NULL: defaults) to writers that take
 * options: 0, or -1 with errno.
 */
int output_write(const struct output_ops *w, const struct profile *p,
		 const struct output_opts *o, FILE *f);

extern const struct output_ops output_collapsed;
extern const struct output_ops output_svg;
extern const struct output_ops output_summary;
extern const struct output_ops output_lines;
extern const struct output_ops output_dot;

/**
 * Makes one frame safe for collapsed-stack readers: no ';' (it separates
 * frames), no control characters or newlines, valid UTF-8 (invalid bytes
 * become U+FFFD), never empty, and never ending in whitespace + a number
 * (flamegraph.pl would read it as a count). Writes at most cap-1 bytes.
 */
size_t collapsed_sanitize(const char *in, size_t len, char *out, size_t cap);

#endif
