// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * stackprof's JSON dump, version 1.2, as 'stackprof' (the command) and
 * speedscope read it: frames keyed by an integer id (one per function,
 * from the call graph) with name, file, line, samples (self),
 * total_samples (once per sample), edges {callee: samples} and lines
 * {line: [total, self]}; raw (each sample's stack of ids, root first,
 * consecutive equal stacks run-length counted), raw_lines (the same with
 * each frame's line) and raw_timestamp_deltas (one per sample, us).
 * Thread states map to stackprof's conventions: GC samples are counted
 * in gc_samples and keep stackprof's own "(garbage collection)",
 * "(marking)", "(sweeping)" frames; failed reads are missed_samples.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/callgraph.h"
#include "rbflame/json.h"
#include "rbflame/output.h"
#include "rbflame/xmalloc.h"

/* The run-length encoder of raw and raw_lines: a stack is written once,
 * then its repeat count when the next one differs. */
#define STACKPROF_MAX_UNTIMED 100000000ull

struct rle {
	uint64_t *prev;
	size_t depth;
	uint64_t count;
	bool have;
};

static void
rle_flush(struct json *j, struct rle *r)
{
	if (r->have) {
		json_uint(j, r->count);
		r->have = false;
	}
}

static void
rle_add(struct json *j, struct rle *r, const uint64_t *v, size_t depth,
	uint64_t n)
{
	if (r->have && r->depth == depth &&
	    !memcmp(r->prev, v, depth * sizeof(*v))) {
		r->count += n;
		return;
	}
	rle_flush(j, r);
	json_uint(j, depth);
	for (size_t d = 0; d < depth; d++)
		json_uint(j, v[d]);
	memcpy(r->prev, v, depth * sizeof(*v));
	r->depth = depth;
	r->count = n;
	r->have = true;
}

/* Each sample in order, then the stacks' samples without times (each a
 * run of its count), as the ids or lines of its frames. */
static void
write_raw(struct json *j, const struct profile *p, const struct callgraph *g,
	  const uint64_t *timed, bool lines)
{
	struct rle r = { .prev = xmalloc(PROFILE_MAX_DEPTH *
					 sizeof(*r.prev)) };
	uint64_t *v = xmalloc(PROFILE_MAX_DEPTH * sizeof(*v));

	for (size_t i = 0; i <= p->nsamples + p->nstacks; i++) {
		const struct profile_stack *st;
		uint64_t n = 1;

		if (i < p->nsamples) {
			st = &p->stacks[p->samples[i].stack];
		} else if (i < p->nsamples + p->nstacks) {
			size_t s = i - p->nsamples;

			st = &p->stacks[s];
			if (st->count <= timed[s])
				continue;
			n = st->count - timed[s];
		} else {
			break;
		}
		for (uint32_t d = 0; d < st->depth; d++) {
			int32_t line = p->frames[st->frames[d]].line;

			if (lines)
				v[d] = line > 0 ? (uint64_t)line : 0;
			else
				v[d] = g->frame_func[st->frames[d]] + 1;
		}
		rle_add(j, &r, v, st->depth, n);
	}
	rle_flush(j, &r);
	free(r.prev);
	free(v);
}

/* The GC and its phases (the states grouped under it). */
static bool
is_gc(uint8_t state)
{
	return profile_state_desc(state)->group == PROFILE_STATE_GC;
}

static int
stackprof_write(const struct profile *p, FILE *f)
{
	struct callgraph *g = callgraph_create(p);
	uint64_t *timed = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*timed));
	uint64_t period_us = (output_period_ns(p) + 500) / 1000, gc = 0;
	uint64_t prev = 0, untimed = 0;
	struct json j;
	char key[32];

	for (size_t i = 0; i < p->nsamples; i++) {
		timed[p->samples[i].stack]++;
		if (is_gc(p->samples[i].state))
			gc++;
	}
	/* Samples without times each need a delta: refuse absurd counts
	 * (collapsed input can claim any) rather than write gigabytes. */
	for (size_t s = 0; s < p->nstacks; s++) {
		untimed += p->stacks[s].count - timed[s];
		if (untimed > STACKPROF_MAX_UNTIMED) {
			free(timed);
			callgraph_destroy(g);
			errno = EFBIG;
			return -1;
		}
	}
	json_init(&j, f);
	json_object_begin(&j);
	json_key(&j, "version");
	json_double(&j, 1.2);
	json_key(&j, "mode");
	json_string(&j, p->meta.mode ? p->meta.mode : "wall");
	json_key(&j, "interval");
	json_uint(&j, period_us ? period_us : 1);
	json_key(&j, "samples");
	json_uint(&j, g->samples);
	json_key(&j, "gc_samples");
	json_uint(&j, gc);
	json_key(&j, "missed_samples");
	json_uint(&j, p->stats.failed);
	json_key(&j, "metadata");
	json_object_begin(&j);
	json_key(&j, "profiler");
	json_string(&j, "rbflame");
	if (p->meta.pid) {
		json_key(&j, "pid");
		json_int(&j, p->meta.pid);
	}
	if (p->meta.command) {
		json_key(&j, "command");
		json_string(&j, p->meta.command);
	}
	if (p->meta.ruby_version) {
		json_key(&j, "ruby_version");
		json_string(&j, p->meta.ruby_version);
	}
	json_object_end(&j);
	json_newline(&j);
	json_key(&j, "frames");
	json_object_begin(&j);
	for (size_t fn = 0; fn < g->nfuncs; fn++) {
		const struct callgraph_func *fu = &g->funcs[fn];
		const char *file = output_frame_file(p, fu->frame);
		const struct callgraph_edge *e;
		const struct callgraph_line *l;
		size_t n;

		json_newline(&j);
		snprintf(key, sizeof(key), "%zu", fn + 1);
		json_key(&j, key);
		json_object_begin(&j);
		json_key(&j, "name");
		json_string(&j, output_frame_label(p, fu->frame));
		json_key(&j, "file");
		json_string(&j, file ? file : "");
		if (fu->line > 0) {
			json_key(&j, "line");
			json_int(&j, fu->line);
		}
		json_key(&j, "total_samples");
		json_uint(&j, fu->total);
		json_key(&j, "samples");
		json_uint(&j, fu->self);
		e = callgraph_callees(g, fn, &n);
		if (n) {
			json_key(&j, "edges");
			json_object_begin(&j);
			for (size_t k = 0; k < n; k++) {
				snprintf(key, sizeof(key), "%u",
					 e[k].callee + 1);
				json_key(&j, key);
				json_uint(&j, e[k].count);
			}
			json_object_end(&j);
		}
		l = callgraph_lines(g, fn, &n);
		if (n) {
			json_key(&j, "lines");
			json_object_begin(&j);
			for (size_t k = 0; k < n; k++) {
				snprintf(key, sizeof(key), "%d", l[k].line);
				json_key(&j, key);
				json_array_begin(&j);
				json_uint(&j, l[k].total);
				json_uint(&j, l[k].self);
				json_array_end(&j);
			}
			json_object_end(&j);
		}
		json_object_end(&j);
	}
	json_object_end(&j);
	json_newline(&j);
	json_key(&j, "raw");
	json_array_begin(&j);
	write_raw(&j, p, g, timed, false);
	json_array_end(&j);
	json_newline(&j);
	json_key(&j, "raw_lines");
	json_array_begin(&j);
	write_raw(&j, p, g, timed, true);
	json_array_end(&j);
	json_newline(&j);
	/* One delta per sample, in us; samples without times get the
	 * period each, so wall-mode readers still weigh them right. */
	json_key(&j, "raw_timestamp_deltas");
	json_array_begin(&j);
	for (size_t i = 0; i < p->nsamples; i++) {
		uint64_t t = p->samples[i].time_ns;

		json_uint(&j, i == 0 ? period_us : (t - prev) / 1000);
		prev = t;
	}
	for (size_t s = 0; s < p->nstacks; s++)
		for (uint64_t c = timed[s]; c < p->stacks[s].count; c++)
			json_uint(&j, period_us);
	json_array_end(&j);
	json_object_end(&j);
	json_newline(&j);
	free(timed);
	callgraph_destroy(g);
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

const struct output_ops output_stackprof = {
	.name = "stackprof",
	.description = "stackprof's JSON dump (1.2) for the stackprof command and speedscope",
	.write = stackprof_write,
	.suffixes = (const char *const[]){ ".stackprof.json", NULL },
};
