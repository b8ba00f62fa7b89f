// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The table of output formats, and the file names that imply one. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>

#include "rbflame/output.h"
#include "rbflame/utf8.h"

static const struct output_ops *const outputs[] = {
#define OUTPUT_ENTRY(name) &output_##name,
	OUTPUT_WRITERS(OUTPUT_ENTRY)
#undef OUTPUT_ENTRY
};

#define NOUTPUTS (sizeof(outputs) / sizeof(outputs[0]))

const struct output_ops *
output_find(const char *name)
{
	for (size_t i = 0; i < NOUTPUTS; i++)
		if (!strcmp(outputs[i]->name, name))
			return outputs[i];
	return NULL;
}

const struct output_ops *
output_at(size_t n)
{
	return n < NOUTPUTS ? outputs[n] : NULL;
}

const struct output_ops *
output_for_file(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len = strlen(path), best = 0;
	const struct output_ops *found = NULL;

	base = base ? base + 1 : path;
	for (size_t i = 0; i < NOUTPUTS; i++) {
		const struct output_ops *o = outputs[i];

		for (const char *const *s = o->suffixes; s && *s; s++) {
			size_t sl = strlen(*s);

			if (sl > best && sl < len &&
			    !strcmp(path + len - sl, *s)) {
				best = sl;
				found = o;
			}
		}
		for (const char *const *s = o->prefixes; s && *s; s++) {
			size_t sl = strlen(*s);

			if (sl > best && !strncmp(base, *s, sl)) {
				best = sl;
				found = o;
			}
		}
	}
	return found;
}

const char *
output_names(void)
{
	static char names[256];

	/* Built from the table, so a new writer is listed without an edit. */
	if (!names[0])
		for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]);
		     i++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", outputs[i]->name);
	return names;
}

#define HELP_INDENT 25	/* where the help texts' descriptions start */
#define HELP_WIDTH 76	/* and where their lines end at the latest */
#define HELP_NBSP '\1'	/* a space that never breaks a line */

/* Writes s's words at column *col, wrapping to HELP_INDENT; with glue,
 * the first word follows the text before it without a space. */
static void
help_words(FILE *f, const char *s, int *col, bool glue)
{
	while (*s) {
		int n = (int)strcspn(s, " ");

		if (glue) {
			glue = false;
		} else if (*col > HELP_INDENT && *col + 1 + n > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_INDENT, "");
			*col = HELP_INDENT;
		} else if (*col > HELP_INDENT) {
			fputc(' ', f);
			(*col)++;
		}
		for (int i = 0; i < n; i++)
			fputc(s[i] == HELP_NBSP ? ' ' : s[i], f);
		*col += n;
		s += n;
		while (*s == ' ')
			s++;
	}
}

void
output_help(FILE *f)
{
	fputs("Formats (-f FMT; an -o without -f takes the one its name implies):\n",
	      f);
	for (size_t i = 0; i < NOUTPUTS; i++) {
		const struct output_ops *o = outputs[i];
		char word[64];
		bool first = true;
		int col;

		col = fprintf(f, "  %s%s", o->name,
			      o == OUTPUT_DEFAULT ? " (default)" : "");
		if (col > HELP_INDENT - 2) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%*s", HELP_INDENT - col, "");
		col = HELP_INDENT;
		help_words(f, o->description, &col, false);
		/* Then the file names that imply it: "; -o *.pb.gz, *.pprof"
		 * (the semicolon may pass HELP_WIDTH by one). */
		if ((o->suffixes && o->suffixes[0]) ||
		    (o->prefixes && o->prefixes[0]))
			help_words(f, ";", &col, true);
		for (const char *const *s = o->suffixes; s && *s; s++) {
			snprintf(word, sizeof(word), "%s*%s%s",
				 first ? "-o\1" : "", *s,
				 s[1] || o->prefixes ? "," : "");
			help_words(f, word, &col, false);
			first = false;
		}
		for (const char *const *s = o->prefixes; s && *s; s++) {
			snprintf(word, sizeof(word), "%s%s*%s",
				 first ? "-o\1" : "", *s, s[1] ? "," : "");
			help_words(f, word, &col, false);
			first = false;
		}
		fputc('\n', f);
	}
}

static bool
format_known(const char *name)
{
	return output_find(name) != NULL;
}

static const char *
format_for_file(const char *path)
{
	const struct output_ops *w = output_for_file(path);

	return w ? w->name : NULL;
}

static const char *
format_default(void)
{
	return OUTPUT_DEFAULT->name;
}

const struct options_formats output_formats = {
	.known = format_known,
	.for_file = format_for_file,
	.names = output_names,
	.default_name = format_default,
};

int
output_write(const struct output_ops *w, const struct profile *p,
	     const struct output_opts *o, FILE *f)
{
	static const struct output_opts none;

	if (w->write_opts)
		return w->write_opts(p, o ? o : &none, f);
	return w->write(p, f);
}

uint64_t
output_period_ns(const struct profile *p)
{
	return profile_period_ns(p);
}

const char *
output_frame_label(const struct profile *p, uint32_t frame)
{
	const struct profile_frame *f = profile_frame_get(p, frame);
	const char *name;

	if (!f)
		return "";
	name = profile_str_get(p, f->name);
	return *name ? name : profile_str_get(p, f->text);
}

const char *
output_frame_file(const struct profile *p, uint32_t frame)
{
	const struct profile_frame *f = profile_frame_get(p, frame);

	if (!f || f->file == PROFILE_NO_STR)
		return NULL;
	return profile_str_get(p, f->file);
}

char *
output_clean_line(const char *s, char *out, size_t cap)
{
	return utf8_escape(s, out, cap, 0);
}

/* gzip with zlib's own header: mtime 0, no file name, OS byte fixed. */
int
output_gzip(FILE *f, const void *data, size_t len)
{
	z_stream z;
	unsigned char out[65536];
	int zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	z.next_in = (unsigned char *)data;
	do {
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		int flush;

		z.avail_in = chunk;
		len -= chunk;
		flush = len ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, flush);
			fwrite(out, 1, sizeof(out) - z.avail_out, f);
		} while (z.avail_out == 0);
	} while (len);
	deflateEnd(&z);
	if (zr != Z_STREAM_END) {
		errno = EIO;
		return -1;
	}
	return 0;
}
