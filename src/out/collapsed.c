// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Collapsed stacks, the input of flamegraph.pl and speedscope: one line
 * per distinct stack, frames root first joined by ';', a space, the count.
 * Lines are sorted bytewise so the same profile always gives the same file.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
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

/*
 * What the writer keeps beside the profile: each frame as collapsed
 * output shows it, the interned text itself when sanitizing leaves it
 * alone (nearly always), else a copy. Lines are never built: stacks are
 * sorted by comparing their frames in place and written frame by frame.
 * Building every line and a sanitized copy of every frame (3x its
 * length) took some 35 MB at the end of a run at the frame cap (200000
 * frames, a 9.4 MB file), over the 56 MB the run had kept flat for ten
 * minutes.
 */
struct writer {
	const struct profile *p;
	const char **clean;	/* frame id -> its text as shown */
	size_t *clen;
};

/* A stack's text: its frames' texts ("[?]" for none) joined by ';',
 * read in runs of bytes. */
struct cursor {
	const struct writer *w;
	const uint32_t *frames;	/* NULL: the empty stack's "[?]" */
	uint32_t n, d;		/* frames, and the current one */
	size_t off;		/* into frame d's text */
	bool sep;		/* a ';' comes first */
};

static void
cursor_init(struct cursor *c, const struct writer *w,
	    const struct profile_stack *st, uint32_t d)
{
	*c = (struct cursor){ .w = w, .frames = st->depth ? st->frames : NULL,
			      .n = st->depth ? st->depth : 1, .d = d };
}

/* The bytes at the cursor up to the next boundary: their count, 0 at
 * the end. */
static size_t
cursor_peek(const struct cursor *c, const char **s)
{
	if (c->d >= c->n)
		return 0;
	if (c->sep) {
		*s = ";";
		return 1;
	}
	if (!c->frames) {
		*s = "[?]" + c->off;
		return 3 - c->off;
	}
	*s = c->w->clean[c->frames[c->d]] + c->off;
	return c->w->clen[c->frames[c->d]] - c->off;
}

/* Moves past k of the bytes cursor_peek() gave. */
static void
cursor_skip(struct cursor *c, size_t k)
{
	const char *s;
	size_t left;

	if (c->sep) {
		c->sep = false;
		return;
	}
	left = cursor_peek(c, &s);
	c->off += k;
	if (k == left) {
		c->off = 0;
		c->d++;
		c->sep = c->d < c->n;
	}
}

/* Two stacks' lines compared bytewise, a prefix first: the frames they
 * share from the root compare equal whole, the rest in runs. */
static int
cmp_stack(const void *x, const void *y, void *arg)
{
	const struct writer *w = arg;
	const struct profile_stack *a = &w->p->stacks[*(const uint32_t *)x];
	const struct profile_stack *b = &w->p->stacks[*(const uint32_t *)y];
	struct cursor ca, cb;
	uint32_t d = 0;

	while (d < a->depth && d < b->depth && a->frames[d] == b->frames[d])
		d++;
	if (d && d == a->depth && d == b->depth)
		return 0;
	cursor_init(&ca, w, a, d);
	cursor_init(&cb, w, b, d);
	/* Past shared frames, a ';' comes before the next one. */
	ca.sep = d > 0 && d < ca.n;
	cb.sep = d > 0 && d < cb.n;
	for (;;) {
		const char *sa, *sb;
		size_t la = cursor_peek(&ca, &sa), lb = cursor_peek(&cb, &sb);
		size_t k = la < lb ? la : lb;
		int c;

		if (!k)
			return (la > 0) - (lb > 0);
		c = memcmp(sa, sb, k);
		if (c)
			return c;
		cursor_skip(&ca, k);
		cursor_skip(&cb, k);
	}
}

static void
write_stack(const struct writer *w, const struct profile_stack *st, FILE *f)
{
	struct cursor c;
	const char *s;
	size_t n;

	cursor_init(&c, w, st, 0);
	while ((n = cursor_peek(&c, &s)) > 0) {
		fwrite(s, 1, n, f);
		cursor_skip(&c, n);
	}
}

static int
collapsed_write(const struct profile *p, FILE *f)
{
	uint32_t nfr = p->nframes;
	struct writer w = {
		.p = p,
		.clean = xcalloc(nfr ? nfr : 1, sizeof(*w.clean)),
		.clen = xcalloc(nfr ? nfr : 1, sizeof(*w.clen)),
	};
	uint32_t *order = xcalloc(p->nstacks ? p->nstacks : 1,
				  sizeof(*order));
	char *buf = NULL;
	size_t bufcap = 0, n = 0;
	int ret = 0;

	/* Sanitize each distinct frame once, not once per stack. */
	for (uint32_t id = 0; id < nfr; id++) {
		uint32_t text = p->frames[id].text;
		const char *in = intern_get(p->names, text);
		size_t len = intern_len(p->names, text), o;

		buf = xgrowarray(buf, &bufcap, len * 3 + 8, 1);
		o = collapsed_sanitize(in, len, buf, len * 3 + 8);
		if (o == len && !memcmp(buf, in, len)) {
			w.clean[id] = in;
		} else {
			char *copy = xmalloc(o + 1);

			memcpy(copy, buf, o + 1);
			w.clean[id] = copy;
		}
		w.clen[id] = o;
	}
	free(buf);
	for (uint32_t s = 0; s < p->nstacks; s++)
		if (p->stacks[s].count)
			order[n++] = s;
	qsort_r(order, n, sizeof(*order), cmp_stack, &w);
	for (size_t i = 0; i < n; i++) {
		uint64_t count = p->stacks[order[i]].count;

		/* Two stacks can sanitize to one text: print it once. */
		while (i + 1 < n && !cmp_stack(&order[i], &order[i + 1], &w))
			count += p->stacks[order[++i]].count;
		write_stack(&w, &p->stacks[order[i]], f);
		fprintf(f, " %llu\n", (unsigned long long)count);
	}
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		ret = -1;
	}
	for (uint32_t id = 0; id < nfr; id++)
		if (w.clean[id] != intern_get(p->names, p->frames[id].text))
			free((char *)w.clean[id]);
	free(w.clean);
	free(w.clen);
	free(order);
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
