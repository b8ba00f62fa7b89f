/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The raw recording's constants, shared by its writer (src/out/raw.c) and
 * its reader (src/load.c). doc/raw-format.md is the specification.
 */
#ifndef RBFLAME_RAW_H
#define RBFLAME_RAW_H

#define RAW_MAGIC "\x89RBFLAME\r\n\x1a\n"
#define RAW_MAGIC_LEN 12
#define RAW_VERSION 3		/* what the writer writes */
#define RAW_VERSION_MIN 1	/* the oldest the reader reads */
/* Version 1's STATS held this many per-state counts, without their
 * number (the enum's size then): version 2 writes the number first. */
#define RAW_V1_STATES 8
/* Version 3: META's flags (after the start time), and the time weights
 * at the end of STACK and SAMPLE. */
#define RAW_V_WEIGHTS 3
enum raw_meta_flags {
	RAW_META_WEIGHTED = 1,	/* samples carry the time they stand for */
	RAW_META_COMPLETE = 2,	/* a launched command followed to its exit */
};
/* A SAMPLE's state is one byte: no recording has more states. */
#define RAW_MAX_STATES 256
#define RAW_HEADER_LEN (RAW_MAGIC_LEN + 2)	/* magic, version, compression */

enum raw_compression {
	RAW_COMPRESS_NONE = 0,
	RAW_COMPRESS_GZIP = 1,
};

enum raw_record {
	RAW_END = 0,
	RAW_META = 1,
	RAW_STATS = 2,
	RAW_STRING = 3,
	RAW_FRAME = 4,
	RAW_STACK = 5,
	RAW_THREAD = 6,
	RAW_SAMPLE = 7,
	RAW_COUNTS = 8,	/* counters STATS lacks: n, then n by number */
};

/* RAW_COUNTS's counters, by number; a number never changes meaning. */
enum raw_count {
	RAW_COUNT_EXIT_FAILED = 0,	/* stats.exit_failed */
	RAW_COUNTS_KNOWN,
};
#define RAW_MAX_COUNTS 256

#endif
