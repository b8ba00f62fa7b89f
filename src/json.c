// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The JSON emitter: commas and nesting, numbers, and strings made valid
 * UTF-8. Frame names come from the target's memory and may hold any byte,
 * so every string goes through json_escape(); the result always parses.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "rbflame/json.h"
#include "rbflame/utf8.h"

void
json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

/* Before any value: the comma that separates it from the previous one. */
static void
value_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
}

static void
nest_open(struct json *j, int c)
{
	value_sep(j);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void
nest_close(struct json *j, int c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void
json_object_begin(struct json *j)
{
	nest_open(j, '{');
}

void
json_object_end(struct json *j)
{
	nest_close(j, '}');
}

void
json_array_begin(struct json *j)
{
	nest_open(j, '[');
}

void
json_array_end(struct json *j)
{
	nest_close(j, ']');
}


void
json_escape(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t l = utf8_len(p + i, len - i, NULL);
		unsigned char c = p[i];

		if (l == 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			i++;
			continue;
		}
		if (l > 1) {
			fwrite(p + i, 1, l, f);
			i += l;
			continue;
		}
		i++;
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
}

void
json_key(struct json *j, const char *key)
{
	value_sep(j);
	fputc('"', j->f);
	json_escape(j->f, key, strlen(key));
	fputs("\":", j->f);
	j->after_key = true;
}

void
json_string_len(struct json *j, const char *s, size_t len)
{
	value_sep(j);
	fputc('"', j->f);
	json_escape(j->f, s, len);
	fputc('"', j->f);
}

void
json_string(struct json *j, const char *s)
{
	json_string_len(j, s, strlen(s));
}

void
json_uint(struct json *j, uint64_t v)
{
	value_sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void
json_int(struct json *j, int64_t v)
{
	value_sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void
json_double(struct json *j, double v)
{
	value_sep(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else if (v == (double)(int64_t)v && fabs(v) < 1e15)
		fprintf(j->f, "%" PRId64, (int64_t)v);
	else
		fprintf(j->f, "%.9g", v);
}

void
json_bool(struct json *j, bool v)
{
	value_sep(j);
	fputs(v ? "true" : "false", j->f);
}

void
json_null(struct json *j)
{
	value_sep(j);
	fputs("null", j->f);
}

void
json_newline(struct json *j)
{
	fputc('\n', j->f);
}
