// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Source annotation, in the shape of stackprof's print_source: for each
 * Ruby function whose name matches --match REGEX (without it: the --limit
 * N, default 10, of most total samples), its source lines with the
 * samples at each, as a share of all samples and of the function's. The
 * files are the target's, named by it: read only through the caller's
 * tfile_root (output_opts.sources: the target's root with its rights, or
 * report's --source-root), never from the host as named. Names, paths
 * and source lines are printed escaped (utf8_put_escaped(), tabs kept in
 * source lines).
 */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbflame/callgraph.h"
#include "rbflame/output.h"
#include "rbflame/tfile.h"
#include "rbflame/utf8.h"
#include "rbflame/xmalloc.h"

#define DEFAULT_FUNCS 10
#define MAX_LINE 4096		/* longer source lines are cut */
#define MAX_SPAN 200		/* lines shown per function at most */

static const struct callgraph *sort_graph;

static int
cmp_total(const void *x, const void *y)
{
	const struct callgraph_func *a = &sort_graph->funcs[*(const uint32_t *)x];
	const struct callgraph_func *b = &sort_graph->funcs[*(const uint32_t *)y];
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return (i > j) - (i < j);
}

/*
 * The text of the target's file path, NUL-terminated, or NULL: through
 * sources only (tfile_open(): inside the root, a regular file of at most
 * TFILE_CAP_SOURCE bytes, readable by the target).
 */
static char *
read_source(const struct tfile_root *sources, const char *path)
{
	char *text;
	int fd;

	if (!sources || path[0] != '/')
		return NULL;	/* <internal:...>, (eval) */
	fd = tfile_open(sources, path, TFILE_CAP_SOURCE, NULL);
	if (fd < 0)
		return NULL;
	text = tfile_read_all(fd, TFILE_CAP_SOURCE, NULL);
	close(fd);
	return text;
}

static double
pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static void
annotate_func(const struct profile *p, const struct callgraph *g,
	      const struct output_opts *o, uint32_t fn, FILE *out)
{
	const struct callgraph_func *cf = &g->funcs[fn];
	const struct profile_frame *fr = profile_frame_get(p, cf->frame);
	const char *file = profile_str_get(p, fr->file);
	const struct callgraph_line *lines;
	size_t nl, k = 0;
	int first = 0, last = 0, no = 0;
	char *text = xmalloc(MAX_LINE), *src;
	const char *at;

	lines = callgraph_lines(g, fn, &nl);
	for (size_t i = 0; i < nl; i++) {
		if (lines[i].line <= 0)
			continue;
		if (!first || lines[i].line < first)
			first = lines[i].line;
		if (lines[i].line > last)
			last = lines[i].line;
	}
	utf8_put_escaped(out, profile_str_get(p, fr->name), 0);
	fputs(" (", out);
	utf8_put_escaped(out, file, 0);
	fprintf(out, ":%d)\n", first);
	src = first ? read_source(o->sources, file) : NULL;
	if (!src) {
		fprintf(out, "                         |  (source not available)\n");
		free(text);
		return;
	}
	/* The line before the first sampled one (often the def) to the one
	 * after the last (often the end). */
	first = first > 1 ? first - 1 : first;
	last = last + 1;
	if (last - first > MAX_SPAN)
		last = first + MAX_SPAN;
	for (at = src; *at;) {
		const char *eol = strchr(at, '\n');
		size_t len = eol ? (size_t)(eol - at) : strlen(at);

		if (++no > last)
			break;
		if (no < first) {
			at += len + (eol ? 1 : 0);
			continue;
		}
		/* Longer lines are cut. */
		if (len > MAX_LINE - 1)
			len = MAX_LINE - 1;
		memcpy(text, at, len);
		text[len] = '\0';
		at = eol ? eol + 1 : at + strlen(at);
		while (k < nl && lines[k].line < no)
			k++;
		if (k < nl && lines[k].line == no) {
			char shares[32];

			snprintf(shares, sizeof(shares), "(%.1f%% / %5.1f%%)",
				 pct(lines[k].total, g->samples),
				 pct(lines[k].total, cf->total));
			fprintf(out, "%5llu  %-17s |  %4d  | ",
				(unsigned long long)lines[k].total, shares, no);
		} else {
			fprintf(out, "                         |  %4d  | ", no);
		}
		utf8_put_escaped(out, text, UTF8_KEEP_TAB);
		fputc('\n', out);
	}
	free(src);
	free(text);
}

static int
annotate_write(const struct profile *p, const struct output_opts *o,
	       FILE *f)
{
	struct callgraph *g = callgraph_create(p);
	uint32_t *order = xmalloc((g->nfuncs ? g->nfuncs : 1) * sizeof(*order));
	size_t n = 0, shown = 0, max;
	regex_t re;
	int ret = 0;

	if (o->regex && regcomp(&re, o->regex, REG_EXTENDED | REG_NOSUB)) {
		free(order);
		callgraph_destroy(g);
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < g->nfuncs; i++) {
		const struct profile_frame *fr =
			profile_frame_get(p, g->funcs[i].frame);

		if (fr->kind != PROFILE_FRAME_RUBY || fr->file == PROFILE_NO_STR)
			continue;
		if (o->regex &&
		    regexec(&re, profile_str_get(p, fr->name), 0, NULL, 0))
			continue;
		order[n++] = i;
	}
	sort_graph = g;
	qsort(order, n, sizeof(*order), cmp_total);
	sort_graph = NULL;
	max = o->limit ? o->limit : o->regex ? n : DEFAULT_FUNCS;
	for (size_t i = 0; i < n && shown < max; i++, shown++)
		annotate_func(p, g, o, order[i], f);
	if (!n) {
		fputs(o->regex ? "no Ruby function matching /"
			       : "no Ruby function", f);
		if (o->regex)
			utf8_put_escaped(f, o->regex, 0);
		fputs(o->regex ? "/ has samples\n" : " has samples\n", f);
	}
	else if (shown < n)
		fprintf(f, "(%zu more functions under the %zu shown)\n",
			n - shown, shown);
	if (o->regex)
		regfree(&re);
	free(order);
	callgraph_destroy(g);
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		ret = -1;
	}
	return ret;
}

const struct output_ops output_annotate = {
	.name = "annotate",
	.description = "Ruby source lines with their samples (stackprof's "
		       "print_source); --match REGEX picks the functions",
	.write_opts = annotate_write,
};
