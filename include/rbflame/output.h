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
#include <stddef.h>
#include <stdio.h>

#include "rbflame/options.h"	/* struct output_opts */
#include "rbflame/profile.h"

/*
 * What a writer may read, so that a raw recording reproduces its output
 * byte for byte: the string pool, frames, stacks (with counts), samples,
 * threads, meta, and of stats everything but stop_ns (the per-stop
 * lengths). Samples are in the order taken; a stack's count may exceed
 * its timed samples (merged or collapsed input): writers include those
 * too. Never the clock, the environment or the host.
 */
struct output_ops {
	const char *name;
	const char *description;
	/* Writes p to f: 0, or -1 with errno (the caller reports). */
	int (*write)(const struct profile *p, FILE *f);
	/* A writer that takes options sets this one instead of write. */
	int (*write_opts)(const struct profile *p,
			  const struct output_opts *o, FILE *f);
	/* File names that mean this format: endings (".pb.gz") and
	 * beginnings of the base name ("callgrind.out."); NULL-ended. */
	const char *const *suffixes;
	const char *const *prefixes;
	bool binary;		/* not for a terminal */
};

/** The writer called name, or NULL. */
const struct output_ops *output_find(const char *name);
/** The writer a file name implies (longest matching ending), or NULL. */
const struct output_ops *output_for_file(const char *path);
/** "collapsed, ..." for messages. */
const char *output_names(void);
/** The three above, for the option parsers (options_parse()). */
extern const struct options_formats output_formats;
/**
 * Writes p with w to f, passing o (NULL: defaults) to writers that take
 * options: 0, or -1 with errno.
 */
int output_write(const struct output_ops *w, const struct profile *p,
		 const struct output_opts *o, FILE *f);

/** The writers, for listings: the n-th, or NULL past the end. */
const struct output_ops *output_at(size_t n);

/** Sampling period in ns from the profile's rate (99 Hz when unknown). */
uint64_t output_period_ns(const struct profile *p);

/** A frame's label for the structured formats: its name, or its text
 * when it has no name (an unnamed native frame). */
const char *output_frame_label(const struct profile *p, uint32_t frame);
/** A frame's file, or NULL when it has none. */
const char *output_frame_file(const struct profile *p, uint32_t frame);
/**
 * Copies s into out (cap bytes) for line-based formats: control
 * characters become spaces, invalid UTF-8 U+FFFD. Returns out.
 */
char *output_clean_line(const char *s, char *out, size_t cap);

/**
 * Writes len bytes to f as one gzip member with a fixed header (mtime 0,
 * no name), so equal input gives equal bytes: 0, or -1 with errno.
 */
int output_gzip(FILE *f, const void *data, size_t len);

extern const struct output_ops output_collapsed;
extern const struct output_ops output_raw;
extern const struct output_ops output_speedscope;
extern const struct output_ops output_callgrind;
extern const struct output_ops output_stackprof;
extern const struct output_ops output_samplingprof;
extern const struct output_ops output_pprof;
extern const struct output_ops output_svg;
extern const struct output_ops output_summary;
extern const struct output_ops output_lines;
extern const struct output_ops output_dot;
extern const struct output_ops output_annotate;

/**
 * Makes one frame safe for collapsed-stack readers: no ';' (it separates
 * frames), no control characters or newlines, valid UTF-8 (invalid bytes
 * become U+FFFD), never empty, and never ending in whitespace + a number
 * (flamegraph.pl would read it as a count). Writes at most cap-1 bytes.
 */
size_t collapsed_sanitize(const char *in, size_t len, char *out, size_t cap);

#endif
