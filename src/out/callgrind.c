// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The callgrind format, for kcachegrind and callgrind_annotate, laid out
 * as rbspy writes it: one block per function (sorted by file, name,
 * line) with its self samples per line, then one call per callee with
 * the estimated call count (consecutive samples sharing a call are one
 * call; see callgraph.h) and the inclusive samples of that call. The
 * event is "Samples". Names are one line each: control characters become
 * spaces, invalid UTF-8 U+FFFD, and a name that would read as callgrind's
 * "(id)" name compression ("(12) x") gets a leading space.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/callgraph.h"
#include "rbflame/output.h"
#include "rbflame/xmalloc.h"

static const struct profile *sort_p;
static const struct callgraph *sort_g;

static const char *
file_of(const struct profile *p, const struct callgraph *g, uint32_t fn)
{
	const char *file = output_frame_file(p, g->funcs[fn].frame);

	return file ? file : "";
}

static int
cmp_func(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = strcmp(file_of(sort_p, sort_g, a), file_of(sort_p, sort_g, b));

	if (c)
		return c;
	c = strcmp(output_frame_label(sort_p, sort_g->funcs[a].frame),
		   output_frame_label(sort_p, sort_g->funcs[b].frame));
	if (c)
		return c;
	if (sort_g->funcs[a].line != sort_g->funcs[b].line)
		return sort_g->funcs[a].line < sort_g->funcs[b].line ? -1 : 1;
	return (a > b) - (a < b);
}

static void
put_name(FILE *f, const char *key, const char *s, char *buf, size_t cap)
{
	output_clean_line(s, buf, cap);
	fputs(key, f);
	if (buf[0] == '(' && buf[1] >= '0' && buf[1] <= '9')
		fputc(' ', f);	/* not "(id)" name compression */
	fputs(buf, f);
	fputc('\n', f);
}

static int
callgrind_write(const struct profile *p, FILE *f)
{
	struct callgraph *g = callgraph_create(p);
	uint32_t *order = xmalloc((g->nfuncs ? g->nfuncs : 1) * sizeof(*order));
	uint32_t *rank = xmalloc((g->nfuncs ? g->nfuncs : 1) * sizeof(*rank));
	size_t cap = 3 * 16384 + 8;
	char *buf = xmalloc(cap);

	for (uint32_t i = 0; i < g->nfuncs; i++)
		order[i] = i;
	sort_p = p;
	sort_g = g;
	qsort(order, g->nfuncs, sizeof(*order), cmp_func);
	for (uint32_t i = 0; i < g->nfuncs; i++)
		rank[order[i]] = i;

	fputs("# callgrind format\nversion: 1\ncreator: rbflame\n"
	      "events: Samples\n", f);
	for (uint32_t k = 0; k < g->nfuncs; k++) {
		uint32_t fn = order[k];
		const struct callgraph_func *fu = &g->funcs[fn];
		const struct callgraph_line *l;
		const struct callgraph_edge *e;
		uint32_t *callees;
		size_t n, wrote = 0;

		fputc('\n', f);
		put_name(f, "fl=", file_of(p, g, fn), buf, cap);
		put_name(f, "fn=", output_frame_label(p, fu->frame), buf, cap);
		l = callgraph_lines(g, fn, &n);
		for (size_t i = 0; i < n; i++) {
			if (!l[i].self)
				continue;
			fprintf(f, "%d %llu\n", l[i].line,
				(unsigned long long)l[i].self);
			wrote++;
		}
		/* Frames without lines, or no self samples at all. */
		if (fu->self > 0 && n == 0)
			fprintf(f, "0 %llu\n", (unsigned long long)fu->self);
		else if (wrote == 0)
			fprintf(f, "%d 0\n", fu->line);
		/* Callees in the same order as the blocks. */
		e = callgraph_callees(g, fn, &n);
		callees = xmalloc((n ? n : 1) * sizeof(*callees));
		for (size_t i = 0; i < n; i++)
			callees[i] = i;
		for (size_t i = 1; i < n; i++) {
			uint32_t v = callees[i];
			size_t m = i;

			while (m > 0 && rank[e[callees[m - 1]].callee] >
						rank[e[v].callee]) {
				callees[m] = callees[m - 1];
				m--;
			}
			callees[m] = v;
		}
		for (size_t i = 0; i < n; i++) {
			const struct callgraph_edge *c = &e[callees[i]];
			uint32_t cfr = g->funcs[c->callee].frame;

			put_name(f, "cfl=", file_of(p, g, c->callee), buf, cap);
			put_name(f, "cfn=", output_frame_label(p, cfr), buf,
				 cap);
			fprintf(f, "calls=%llu %d\n%d %llu\n",
				(unsigned long long)c->calls,
				g->funcs[c->callee].line, fu->line,
				(unsigned long long)c->count);
		}
		free(callees);
	}
	free(buf);
	free(rank);
	free(order);
	callgraph_destroy(g);
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

const struct output_ops output_callgrind = {
	.name = "callgrind",
	.description = "callgrind format for kcachegrind and callgrind_annotate",
	.write = callgrind_write,
	.suffixes = (const char *const[]){ ".callgrind", NULL },
	.prefixes = (const char *const[]){ "callgrind.out.", NULL },
};
