/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Reading a profile back: a raw recording (doc/raw-format.md) or
 * collapsed stacks ("a;b;c 12" lines), the format sniffed from the first
 * bytes. The parsers are pure functions over a buffer: no I/O, no exit,
 * every count and length bounded by the input, so any bytes give either a
 * profile or one error line (with the line or offset), never a crash.
 */
#ifndef RBFLAME_LOAD_H
#define RBFLAME_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "rbflame/profile.h"

enum load_format {
	LOAD_COLLAPSED,		/* text; no times, threads or metadata */
	LOAD_RAW,		/* lossless recording */
};

/** Refuses inputs above this. */
#define LOAD_MAX_BYTES (1ull << 32)
/** Refuses a raw recording whose body decompresses to more than this
 * (a writer of ours gives about 6 bytes a sample). */
#define LOAD_MAX_BODY (256ull << 20)
/** Timed samples kept from a raw recording; past it a sample is only its
 * stack's count (profile.samples_dropped), so aggregate views stay
 * whole while memory stays bounded (24 bytes a sample). */
#define LOAD_MAX_SAMPLES (1u << 22)
/** Refuses stack counts that add up to more than this: sums, shares and
 * the writers' arithmetic then never overflow. */
#define LOAD_MAX_TOTAL (UINT64_MAX / 2)

/**
 * Loads buf (len bytes) into p, which must be empty (fresh from
 * profile_create()). Returns the enum load_format it found, or -1 with a
 * one-line message in err (errcap bytes), e.g. "line 3: no count at the
 * end of the line". On error p holds part of the input: destroy it.
 */
int profile_load_buffer(struct profile *p, const void *buf, size_t len,
			char *err, size_t errcap);

/**
 * Reads the file at path ("-" is standard input) and loads it as above;
 * I/O errors come back as messages naming the file, errno set.
 */
int profile_load_file(struct profile *p, const char *path, char *err,
		      size_t errcap);

/** The collapsed parser alone (what profile_load_buffer calls): frames
 * are read back into label, file and line (profile_frame_parse), a frame
 * with the file and line of the Ruby frame below it, under another name,
 * as a C method. */
int load_collapsed(struct profile *p, const char *buf, size_t len, char *err,
		   size_t errcap);
/** The raw reader alone. */
int load_raw(struct profile *p, const void *buf, size_t len, char *err,
	     size_t errcap);

#endif
