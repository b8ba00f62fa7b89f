// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Text reports in the shape of stackprof's: a header (mode, samples, GC
 * share), then one row per function ("summary") or per source line
 * ("lines") with its total and self samples and their shares, heaviest
 * self first, --limit N rows at most. One file for both: they are the
 * same table over the call graph's functions or its lines. Names and
 * paths are the target's: printed through utf8_put_escaped().
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/callgraph.h"
#include "rbflame/output.h"
#include "rbflame/utf8.h"
#include "rbflame/xmalloc.h"

struct row {
	uint64_t total, self;
	uint32_t func;
	int32_t line;		/* lines: the line; summary: 0 */
};

static const struct callgraph *sort_graph;
static const struct profile *sort_prof;

/* The name a function goes by in a report: a Ruby frame's label, or the
 * frame's text (native symbol and module, state, thread). */
static const char *
func_name(const struct profile *p, const struct callgraph *g, uint32_t fn)
{
	const struct profile_frame *f = profile_frame_get(p,
							  g->funcs[fn].frame);

	if ((f->kind == PROFILE_FRAME_RUBY || f->kind == PROFILE_FRAME_CFUNC) &&
	    *profile_str_get(p, f->name))
		return profile_str_get(p, f->name);
	return profile_frame_name(p, g->funcs[fn].frame);
}

static const char *
func_file(const struct profile *p, const struct callgraph *g, uint32_t fn)
{
	const struct profile_frame *f = profile_frame_get(p,
							  g->funcs[fn].frame);

	return profile_str_get(p, f->file);
}

/* Heaviest self first, then total, then name and line: a stable order. */
static int
cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	int c;

	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	c = strcmp(func_name(sort_prof, sort_graph, a->func),
		   func_name(sort_prof, sort_graph, b->func));
	if (c)
		return c;
	c = strcmp(func_file(sort_prof, sort_graph, a->func),
		   func_file(sort_prof, sort_graph, b->func));
	if (c)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

static int
cmp_func_name(const void *x, const void *y)
{
	return strcmp(func_name(sort_prof, sort_graph, *(const uint32_t *)x),
		      func_name(sort_prof, sort_graph, *(const uint32_t *)y));
}

/* Functions whose name another one has too (the same method name in two
 * files; a C function called from two files): their rows name the file. */
static bool *
ambiguous_names(const struct profile *p, const struct callgraph *g)
{
	uint32_t *idx = xmalloc((g->nfuncs ? g->nfuncs : 1) * sizeof(*idx));
	bool *amb = xcalloc(g->nfuncs ? g->nfuncs : 1, sizeof(*amb));

	for (size_t i = 0; i < g->nfuncs; i++)
		idx[i] = i;
	qsort(idx, g->nfuncs, sizeof(*idx), cmp_func_name);
	for (size_t i = 1; i < g->nfuncs; i++)
		if (!strcmp(func_name(p, g, idx[i - 1]),
			    func_name(p, g, idx[i])))
			amb[idx[i - 1]] = amb[idx[i]] = true;
	free(idx);
	return amb;
}

static double
pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

/* Samples in GC: those whose stack holds a GC state frame. */
static uint64_t
gc_samples(const struct profile *p)
{
	const char *gc = profile_state_desc(PROFILE_STATE_GC)->leaf;
	uint64_t n = 0;

	for (size_t s = 0; s < p->nstacks; s++) {
		const struct profile_stack *st = &p->stacks[s];

		for (uint32_t d = 0; d < st->depth; d++) {
			const char *t = profile_frame_name(p, st->frames[d]);

			if (!strcmp(t, gc)) {
				n += st->count;
				break;
			}
		}
	}
	return n;
}

static void
header(const struct profile *p, uint64_t total, FILE *f)
{
	uint64_t gc = gc_samples(p);

	fputs("==================================\n", f);
	if (p->meta.mode) {
		/* A recording's, so anything: escaped like every name. */
		fputs("  Mode: ", f);
		utf8_put_escaped(f, p->meta.mode, 0);
		if (p->stats.rate_hz > 0)
			fprintf(f, "(%g Hz)", p->stats.rate_hz);
		fputc('\n', f);
	}
	fprintf(f, "  Samples: %llu (%.2f%% failed reads",
		(unsigned long long)total,
		pct(p->stats.failed, total + p->stats.failed));
	if (p->stats.exit_failed)
		fprintf(f, "; %llu more as processes exited",
			(unsigned long long)p->stats.exit_failed);
	fputs(")\n", f);
	fprintf(f, "  GC: %llu (%.2f%%)\n", (unsigned long long)gc,
		pct(gc, total));
	if (p->meta.weighted)
		fprintf(f, "  Time: %.3f s (what the samples stand for)\n",
			profile_weight_total(p) / 1e9);
	fputs("==================================\n", f);
}

static void
put_pct(FILE *f, double v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "(%.1f%%)", v);
	fprintf(f, "%8s", buf);
}

static int
report(const struct profile *p, const struct output_opts *o, FILE *f,
       bool by_line)
{
	struct callgraph *g = callgraph_create(p);
	size_t n = by_line ? g->nlines : g->nfuncs, shown;
	struct row *rows = xcalloc(n ? n : 1, sizeof(*rows));
	uint64_t total = g->samples;
	bool *amb;

	for (size_t i = 0; i < n; i++) {
		if (by_line)
			rows[i] = (struct row){
				.total = g->lines[i].total,
				.self = g->lines[i].self,
				.func = g->lines[i].func,
				.line = g->lines[i].line,
			};
		else
			rows[i] = (struct row){
				.total = g->funcs[i].total,
				.self = g->funcs[i].self, .func = i,
			};
	}
	sort_graph = g;
	sort_prof = p;
	qsort(rows, n, sizeof(*rows), cmp_row);
	amb = ambiguous_names(p, g);
	header(p, total, f);
	fprintf(f, "     TOTAL    (pct)     SAMPLES    (pct)     %s\n",
		by_line ? "LINE" : "FRAME");
	shown = o->limit && o->limit < n ? o->limit : n;
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];
		const char *file = func_file(p, g, r->func);

		fprintf(f, "%10llu ", (unsigned long long)r->total);
		put_pct(f, pct(r->total, total));
		fprintf(f, "  %10llu ", (unsigned long long)r->self);
		put_pct(f, pct(r->self, total));
		fputs("     ", f);
		utf8_put_escaped(f, func_name(p, g, r->func), 0);
		if (*file && (by_line || amb[r->func])) {
			fputs(" (", f);
			utf8_put_escaped(f, file, 0);
			if (by_line)
				fprintf(f, ":%d", r->line);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	if (shown < n)
		fprintf(f, "  (%zu more %s under the %zu shown)\n", n - shown,
			by_line ? "lines" : "frames", shown);
	sort_graph = NULL;
	sort_prof = NULL;
	free(amb);
	free(rows);
	callgraph_destroy(g);
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

static int
summary_write(const struct profile *p, const struct output_opts *o, FILE *f)
{
	return report(p, o, f, false);
}

static int
lines_write(const struct profile *p, const struct output_opts *o, FILE *f)
{
	return report(p, o, f, true);
}

const struct output_ops output_summary = {
	.name = "summary",
	.description = "text report: samples per frame, heaviest first "
		       "(stackprof's)",
	.write_opts = summary_write,
};

const struct output_ops output_lines = {
	.name = "lines",
	.description = "text report: samples per source line, heaviest "
		       "first",
	.write_opts = lines_write,
};
