// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Collapsed stacks, the input of flamegraph.pl and speedscope: one line
 * per distinct stack, frames root first joined by ';', a space, the count.
 * Lines are sorted bytewise so the same profile always gives the same file.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/output.h"
#include "rbflame/utf8.h"
#include "rbflame/xmalloc.h"


size_t
collapsed_sanitize(const char *in, size_t len, char *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0, i = 0;

	if (cap == 0)
		return 0;
	while (i < len && o + 4 < cap) {
		uint32_t cp;
		size_t l = utf8_len(p + i, len - i, &cp);

		if (l == 2 && cp < 0xa0) {
			/* A C1 control (U+009B is CSI to some terminals):
			 * a space, as the C0 ones. */
			out[o++] = ' ';
			i += l;
		} else if (l == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);	/* U+FFFD */
			o += 3;
			i++;
		} else if (l == 1) {
			unsigned char c = p[i++];

			if (c == ';')
				c = ':';
			else if (c < 0x20 || c == 0x7f)
				c = ' ';
			out[o++] = c;
		} else {
			memcpy(out + o, p + i, l);
			o += l;
			i += l;
		}
	}
	if (o == 0 && cap > 3) {
		memcpy(out, "[?]", 3);
		o = 3;
	}
	/* "name 12" would end a line in "... 12 5": flamegraph.pl reads two
	 * counts. Glue the number to the name. */
	if (o > 0 && out[o - 1] >= '0' && out[o - 1] <= '9') {
		size_t k = o;

		while (k > 0 && ((out[k - 1] >= '0' && out[k - 1] <= '9') ||
				 out[k - 1] == '.'))
			k--;
		while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == '\t')) {
			out[k - 1] = '_';
			k--;
		}
	}
	out[o] = '\0';
	return o;
}

struct line {
	char *text;
	size_t len;
	uint64_t count;
};

static int
cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->text, y->text, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

static int
collapsed_write(const struct profile *p, FILE *f)
{
	uint32_t nfr = p->nframes;
	char **clean = xcalloc(nfr ? nfr : 1, sizeof(*clean));
	size_t *clen = xcalloc(nfr ? nfr : 1, sizeof(*clen));
	struct line *lines = xcalloc(p->nstacks ? p->nstacks : 1,
				     sizeof(*lines));
	size_t nlines = 0;
	int ret = 0;

	/* Sanitize each distinct frame once, not once per stack. */
	for (uint32_t id = 0; id < nfr; id++) {
		uint32_t text = p->frames[id].text;
		size_t len = intern_len(p->names, text);
		size_t cap = len * 3 + 8;

		clean[id] = xmalloc(cap);
		clen[id] = collapsed_sanitize(intern_get(p->names, text), len,
					      clean[id], cap);
	}
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct profile_stack *st = &p->stacks[s];
		size_t len = 0, o = 0;

		if (!st->count)
			continue;
		for (uint32_t d = 0; d < st->depth; d++)
			len += clen[st->frames[d]] + 1;
		lines[nlines].text = xmalloc(len + 4);
		for (uint32_t d = 0; d < st->depth; d++) {
			if (d)
				lines[nlines].text[o++] = ';';
			memcpy(lines[nlines].text + o, clean[st->frames[d]],
			       clen[st->frames[d]]);
			o += clen[st->frames[d]];
		}
		if (st->depth == 0) {
			memcpy(lines[nlines].text, "[?]", 3);
			o = 3;
		}
		lines[nlines].len = o;
		lines[nlines].count = st->count;
		nlines++;
	}
	qsort(lines, nlines, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < nlines; i++) {
		uint64_t count = lines[i].count;

		/* Two stacks can sanitize to one text: print it once. */
		while (i + 1 < nlines && !cmp_line(&lines[i], &lines[i + 1])) {
			free(lines[i].text);
			count += lines[++i].count;
		}
		fwrite(lines[i].text, 1, lines[i].len, f);
		fprintf(f, " %llu\n", (unsigned long long)count);
		free(lines[i].text);
	}
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		ret = -1;
	}
	for (uint32_t id = 0; id < nfr; id++)
		free(clean[id]);
	free(clean);
	free(clen);
	free(lines);
	return ret;
}

const struct output_ops output_collapsed = {
	.name = "collapsed",
	.description = "folded stacks for flamegraph.pl and speedscope",
	.write = collapsed_write,
	.stacks_only = true,
	.suffixes = (const char *const[]){ ".txt", ".collapsed", ".folded",
					   NULL },
};
