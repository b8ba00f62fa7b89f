// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The table of output formats, and the file names that imply one. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "rbflame/output.h"
#include "rbflame/utf8.h"

static const struct output_ops *const outputs[] = {
	&output_collapsed,
	&output_raw,
	&output_speedscope,
	&output_stackprof,
	&output_callgrind,
	&output_pprof,
	&output_samplingprof,
	&output_svg,
	&output_summary,
	&output_lines,
	&output_dot,
	&output_annotate,
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

const struct options_formats output_formats = {
	.known = format_known,
	.for_file = format_for_file,
	.names = output_names,
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
	double hz = p->stats.rate_hz > 0 ? p->stats.rate_hz : 99.0;

	return (uint64_t)(1e9 / hz + 0.5);
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
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, o = 0;

	while (i < len && o + 4 < cap) {
		size_t l = utf8_len(u + i, len - i, NULL);

		if (l == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else if (l == 1) {
			out[o++] = u[i] < 0x20 || u[i] == 0x7f ? ' ' : u[i];
			i++;
		} else {
			memcpy(out + o, u + i, l);
			o += l;
			i += l;
		}
	}
	out[o] = '\0';
	return out;
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
