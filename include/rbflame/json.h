/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * A small streaming JSON emitter, the one every JSON writer uses. It keeps
 * the nesting and the commas, and writes strings as valid UTF-8 JSON
 * whatever bytes they hold: invalid UTF-8 becomes U+FFFD, control
 * characters, '"' and '\' are escaped. Output is compact (no whitespace)
 * unless a writer asks for a newline, so it is byte-for-byte stable.
 */
#ifndef RBFLAME_JSON_H
#define RBFLAME_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* no value written yet at this level */
	bool after_key;			/* the next value follows "key": */
};

/** Starts a document on f (the caller owns f). */
void json_init(struct json *j, FILE *f);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
/** An object member's key; its value is the next call. */
void json_key(struct json *j, const char *key);
/** A string value: len bytes, any content (see the top). */
void json_string_len(struct json *j, const char *s, size_t len);
void json_string(struct json *j, const char *s);
void json_uint(struct json *j, uint64_t v);
void json_int(struct json *j, int64_t v);
/** A number; NaN and infinities, which JSON lacks, are written as null. */
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/** A newline between values, for line-oriented readers (no effect on
 * the data). */
void json_newline(struct json *j);

/**
 * Writes s (len bytes) as the inside of a JSON string (no quotes) to f.
 * Exposed for the unit test and for writers that build keys.
 */
void json_escape(FILE *f, const char *s, size_t len);

#endif
