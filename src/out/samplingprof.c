// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * SamplingProf's text format: four chunks separated by a blank line:
 * the runtime in ms (samples x period: all threads queued into one, as
 * SamplingProf defines it for many threads), the call element id map
 * ("path:line:method,id"; an element is a line of code, so each frame is
 * one), the counts ("id,self,total", total once per sample) and the call
 * graph ("id1,id2,count": samples in which element id1 called id2; a
 * direct recursion is "id,id,count"). Names are made one line each.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "rbflame/callgraph.h"
#include "rbflame/output.h"
#include "rbflame/xmalloc.h"

static int
samplingprof_write(const struct profile *p, FILE *f)
{
	struct callgraph *g = callgraph_create_frames(p);
	size_t cap = 3 * 16384 + 8;
	char *a = xmalloc(cap), *b = xmalloc(cap);

	fprintf(f, "%llu\n\n",
		(unsigned long long)(g->samples * output_period_ns(p) /
				     1000000));
	for (size_t fn = 0; fn < g->nfuncs; fn++) {
		uint32_t fr = g->funcs[fn].frame;
		const char *file = output_frame_file(p, fr);

		fprintf(f, "%s:%d:%s,%zu\n",
			output_clean_line(file ? file : "", a, cap),
			g->funcs[fn].line,
			output_clean_line(output_frame_label(p, fr), b, cap),
			fn);
	}
	fputc('\n', f);
	for (size_t fn = 0; fn < g->nfuncs; fn++)
		fprintf(f, "%zu,%llu,%llu\n", fn,
			(unsigned long long)g->funcs[fn].self,
			(unsigned long long)g->funcs[fn].total);
	fputc('\n', f);
	for (size_t e = 0; e < g->nedges; e++)
		fprintf(f, "%u,%u,%llu\n", g->edges[e].caller,
			g->edges[e].callee,
			(unsigned long long)g->edges[e].count);
	free(a);
	free(b);
	callgraph_destroy(g);
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

const struct output_ops output_samplingprof = {
	.name = "samplingprof",
	.description = "SamplingProf's text format (runtime, id map, counts, call graph)",
	.write = samplingprof_write,
	.suffixes = (const char *const[]){ ".samplingprof", NULL },
};
