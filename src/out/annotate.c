// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Source annotation, in the shape of stackprof's print_source: for each
 * Ruby function whose name matches --match REGEX (without it: the --limit
 * N, default 10, of most total samples), its source lines with the
 * samples at each, as a share of all samples and of the function's. The
 * files are the target's: read through /proc/PID/root while it lives
 * (containers), else through the root recorded at attach (chroots), else
 * as named.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/callgraph.h"
#include "rbflame/output.h"
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

/* Source files bigger than this are not annotated. */
#define MAX_SOURCE_BYTES (64L << 20)

/* path, when it is a regular file of a sane size: the paths come from
 * the profile, and a FIFO or a device would block or never end. Opened
 * without blocking, checked, then read normally. */
static FILE *
open_regular(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > MAX_SOURCE_BYTES ||
	    fcntl(fd, F_SETFL, O_RDONLY) < 0 || !(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return f;
}

/* The target's file: through its live root, its recorded root, or as
 * named; NULL when none opens. */
static FILE *
open_source(const struct profile *p, const char *path)
{
	char buf[8192], link[64], now[4096];
	FILE *f;
	ssize_t n;

	if (path[0] != '/')
		return NULL;	/* <internal:...>, (eval) */
	/* The live root, if the process there is still ours: same root. */
	if (p->meta.pid > 0) {
		snprintf(link, sizeof(link), "/proc/%d/root", (int)p->meta.pid);
		n = readlink(link, now, sizeof(now) - 1);
		if (n > 0) {
			now[n] = '\0';
			if (p->meta.root && !strcmp(now, p->meta.root)) {
				snprintf(buf, sizeof(buf), "%s%s", link, path);
				if ((f = open_regular(buf)))
					return f;
			}
		}
	}
	if (p->meta.root && strcmp(p->meta.root, "/")) {
		snprintf(buf, sizeof(buf), "%s%s", p->meta.root, path);
		if ((f = open_regular(buf)))
			return f;
	}
	return open_regular(path);
}

static double
pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static void
annotate_func(const struct profile *p, const struct callgraph *g,
	      uint32_t fn, FILE *out)
{
	const struct callgraph_func *cf = &g->funcs[fn];
	const struct profile_frame *fr = profile_frame_get(p, cf->frame);
	const char *file = profile_str_get(p, fr->file);
	const struct callgraph_line *lines;
	size_t nl, k = 0;
	int first = 0, last = 0, no = 0;
	char *text = xmalloc(MAX_LINE);
	FILE *src;

	lines = callgraph_lines(g, fn, &nl);
	for (size_t i = 0; i < nl; i++) {
		if (lines[i].line <= 0)
			continue;
		if (!first || lines[i].line < first)
			first = lines[i].line;
		if (lines[i].line > last)
			last = lines[i].line;
	}
	fprintf(out, "%s (%s:%d)\n", profile_str_get(p, fr->name), file,
		first);
	src = first ? open_source(p, file) : NULL;
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
	while (fgets(text, MAX_LINE, src)) {
		size_t len = strlen(text);
		bool whole = len && text[len - 1] == '\n';

		if (whole)
			text[--len] = '\0';
		else	/* skip the rest of a long line */
			for (int c; (c = fgetc(src)) != EOF && c != '\n';)
				;
		if (++no < first)
			continue;
		if (no > last)
			break;
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)text[i] < 0x20 && text[i] != '\t')
				text[i] = ' ';
		while (k < nl && lines[k].line < no)
			k++;
		if (k < nl && lines[k].line == no) {
			char shares[32];

			snprintf(shares, sizeof(shares), "(%.1f%% / %5.1f%%)",
				 pct(lines[k].total, g->samples),
				 pct(lines[k].total, cf->total));
			fprintf(out, "%5llu  %-17s |  %4d  | %s\n",
				(unsigned long long)lines[k].total, shares, no,
				text);
		} else {
			fprintf(out, "                         |  %4d  | %s\n",
				no, text);
		}
	}
	fclose(src);
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
		annotate_func(p, g, order[i], f);
	if (!n)
		fprintf(f, "no Ruby function %s%s%s has samples\n",
			o->regex ? "matching /" : "", o->regex ? o->regex : "",
			o->regex ? "/" : "");
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
