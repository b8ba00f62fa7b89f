// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The call graph for graphviz, in the shape of stackprof's print_graphviz:
 * one box per function sized by its self samples, labelled with its self
 * and total samples and shares; one edge per caller -> callee, labelled
 * and weighted by the samples through that call. --limit N keeps the N
 * functions of most total samples and the edges between them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/callgraph.h"
#include "rbflame/output.h"
#include "rbflame/utf8.h"
#include "rbflame/xmalloc.h"

/* A dot string's contents: the text escaped as everywhere
 * (utf8_escape(): control characters as "\xHH", invalid UTF-8 U+FFFD),
 * then quotes and backslashes escaped for dot. */
static void
put_dot_str(FILE *f, const char *s)
{
	size_t cap = 4 * strlen(s) + 1;
	char *e = xmalloc(cap);

	utf8_escape(s, e, cap, 0);
	for (const char *p = e; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		fputc(*p, f);
	}
	free(e);
}

static const struct callgraph *sort_graph;

static int
cmp_by_total(const void *x, const void *y)
{
	const struct callgraph_func *a = &sort_graph->funcs[*(const uint32_t *)x];
	const struct callgraph_func *b = &sort_graph->funcs[*(const uint32_t *)y];

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return (*(const uint32_t *)x > *(const uint32_t *)y) -
	       (*(const uint32_t *)x < *(const uint32_t *)y);
}

static double
pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static int
dot_write(const struct profile *p, const struct output_opts *o, FILE *f)
{
	struct callgraph *g = callgraph_create(p);
	uint32_t *order = xmalloc((g->nfuncs ? g->nfuncs : 1) * sizeof(*order));
	bool *keep = xcalloc(g->nfuncs ? g->nfuncs : 1, sizeof(*keep));
	uint64_t total = g->samples, max_edge = 1;
	size_t n = g->nfuncs;

	for (size_t i = 0; i < g->nfuncs; i++)
		order[i] = i;
	if (o->limit && o->limit < n) {
		sort_graph = g;
		qsort(order, n, sizeof(*order), cmp_by_total);
		sort_graph = NULL;
		n = o->limit;
	}
	for (size_t i = 0; i < n; i++)
		keep[order[i]] = true;
	for (size_t e = 0; e < g->nedges; e++)
		if (g->edges[e].count > max_edge)
			max_edge = g->edges[e].count;

	fputs("digraph profile {\n", f);
	fputs("  node [shape=box];\n", f);
	for (size_t i = 0; i < g->nfuncs; i++) {
		const struct callgraph_func *fn = &g->funcs[i];
		const struct profile_frame *fr = profile_frame_get(p, fn->frame);
		double size = pct(fn->self, total) / 100.0 * 28 + 10;
		size_t ne;
		const struct callgraph_edge *ed;

		if (!keep[i])
			continue;
		fprintf(f, "  %zu [size=%.2f] [fontsize=%.2f] [label=\"", i,
			size, size);
		if ((fr->kind == PROFILE_FRAME_RUBY ||
		     fr->kind == PROFILE_FRAME_CFUNC) &&
		    *profile_str_get(p, fr->name))
			put_dot_str(f, profile_str_get(p, fr->name));
		else
			put_dot_str(f, profile_frame_name(p, fn->frame));
		fprintf(f, "\\n%llu (%.1f%%)\\r", (unsigned long long)fn->self,
			pct(fn->self, total));
		if (fn->total != fn->self)
			fprintf(f, "of %llu (%.1f%%)\\r",
				(unsigned long long)fn->total,
				pct(fn->total, total));
		fputs("\"];\n", f);
		ed = callgraph_callees(g, i, &ne);
		for (size_t k = 0; k < ne; k++) {
			if (!keep[ed[k].callee])
				continue;
			fprintf(f, "  %zu -> %u [label=\"%llu\"] [weight=%llu] "
				"[penwidth=%.2f];\n", i, ed[k].callee,
				(unsigned long long)ed[k].count,
				(unsigned long long)ed[k].count,
				1 + 4.0 * (double)ed[k].count / (double)max_edge);
		}
	}
	fputs("}\n", f);
	free(order);
	free(keep);
	callgraph_destroy(g);
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

const struct output_ops output_dot = {
	.name = "dot",
	.description = "call graph for graphviz (dot -Tsvg)",
	.write_opts = dot_write,
	.suffixes = (const char *const[]){ ".dot", ".gv", NULL },
};
