// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per thread, in the order threads were first
 * sampled, each sample a stack of indices into shared frames (name, file,
 * line), weighted by the time it stands for in nanoseconds (its
 * recorded weight: a late tick weighs its interval, a cpu-mode sample
 * its thread's CPU time; the period without weights); startValue and
 * endValue are the thread's first and last sample times since the start
 * of the run. Samples without times (merged or collapsed input) make one
 * more profile of their own.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/json.h"
#include "rbflame/output.h"
#include "rbflame/xmalloc.h"

struct thr {
	pid_t pid, tid;
	size_t first;		/* index of its first sample */
};

static void
write_stack(struct json *j, const struct profile_stack *st)
{
	json_array_begin(j);
	for (uint32_t d = 0; d < st->depth; d++)
		json_uint(j, st->frames[d]);
	json_array_end(j);
}

static void
thread_name(const struct profile *p, const struct thr *t, bool many_pids,
	    char *buf, size_t cap)
{
	const struct profile_thread *pt = profile_thread_find(p, t->pid,
							      t->tid);
	const char *name = pt ? profile_str_get(p, pt->name) : "";
	char id[24];
	int n = 0;

	if (many_pids)
		n = snprintf(buf, cap, "process %d ", (int)t->pid);
	profile_thread_id(t->tid, id, sizeof(id));
	snprintf(buf + n, cap - n, *name ? "thread %s \"%s\"" : "thread %s",
		 id, name);
}

static int
speedscope_write(const struct profile *p, FILE *f)
{
	struct json j;
	struct thr *thr = NULL;
	size_t nthr = 0, thr_cap = 0;
	uint64_t period = output_period_ns(p);
	uint64_t *timed = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*timed));
	uint64_t *timed_w = xcalloc(p->nstacks ? p->nstacks : 1,
				    sizeof(*timed_w));
	bool many_pids = false, untimed = false;
	char name[1024];

	/* Threads in order of their first sample. */
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];
		size_t t;

		timed[s->stack]++;
		timed_w[s->stack] += profile_sample_weight(p, s);
		for (t = 0; t < nthr; t++)
			if (thr[t].pid == s->pid && thr[t].tid == s->tid)
				break;
		if (t == nthr) {
			thr = xgrowarray(thr, &thr_cap, nthr + 1, sizeof(*thr));
			thr[nthr++] = (struct thr){ s->pid, s->tid, i };
			if (s->pid != thr[0].pid)
				many_pids = true;
		}
	}
	for (size_t s = 0; s < p->nstacks; s++)
		if (p->stacks[s].count > timed[s])
			untimed = true;

	json_init(&j, f);
	json_object_begin(&j);
	json_key(&j, "$schema");
	json_string(&j, "https://www.speedscope.app/file-format-schema.json");
	json_key(&j, "exporter");
	json_string(&j, "rbflame");
	json_key(&j, "name");
	json_string(&j, p->meta.command ? p->meta.command : "rbflame profile");
	json_key(&j, "activeProfileIndex");
	json_uint(&j, 0);
	json_newline(&j);
	json_key(&j, "shared");
	json_object_begin(&j);
	json_key(&j, "frames");
	json_array_begin(&j);
	for (uint32_t id = 0; id < p->nframes; id++) {
		const char *file = output_frame_file(p, id);

		json_newline(&j);
		json_object_begin(&j);
		json_key(&j, "name");
		json_string(&j, output_frame_label(p, id));
		if (file) {
			json_key(&j, "file");
			json_string(&j, file);
		}
		if (p->frames[id].line > 0) {
			json_key(&j, "line");
			json_int(&j, p->frames[id].line);
		}
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_newline(&j);
	json_key(&j, "profiles");
	json_array_begin(&j);
	for (size_t t = 0; t < nthr; t++) {
		uint64_t first = p->samples[thr[t].first].time_ns, last = first;

		for (size_t i = thr[t].first; i < p->nsamples; i++)
			if (p->samples[i].pid == thr[t].pid &&
			    p->samples[i].tid == thr[t].tid)
				last = p->samples[i].time_ns;
		thread_name(p, &thr[t], many_pids, name, sizeof(name));
		json_newline(&j);
		json_object_begin(&j);
		json_key(&j, "type");
		json_string(&j, "sampled");
		json_key(&j, "name");
		json_string(&j, name);
		json_key(&j, "unit");
		json_string(&j, "nanoseconds");
		json_key(&j, "startValue");
		json_uint(&j, first);
		json_key(&j, "endValue");
		json_uint(&j, last + period);
		json_key(&j, "samples");
		json_array_begin(&j);
		for (size_t i = thr[t].first; i < p->nsamples; i++)
			if (p->samples[i].pid == thr[t].pid &&
			    p->samples[i].tid == thr[t].tid)
				write_stack(&j,
					    &p->stacks[p->samples[i].stack]);
		json_array_end(&j);
		json_key(&j, "weights");
		json_array_begin(&j);
		for (size_t i = thr[t].first; i < p->nsamples; i++)
			if (p->samples[i].pid == thr[t].pid &&
			    p->samples[i].tid == thr[t].tid)
				json_uint(&j, profile_sample_weight(
						      p, &p->samples[i]));
		json_array_end(&j);
		json_object_end(&j);
	}
	if (untimed) {
		uint64_t total = 0;

		json_newline(&j);
		json_object_begin(&j);
		json_key(&j, "type");
		json_string(&j, "sampled");
		json_key(&j, "name");
		json_string(&j, "samples without times");
		json_key(&j, "unit");
		json_string(&j, "nanoseconds");
		json_key(&j, "startValue");
		json_uint(&j, 0);
		json_key(&j, "samples");
		json_array_begin(&j);
		for (size_t s = 0; s < p->nstacks; s++)
			if (p->stacks[s].count > timed[s])
				write_stack(&j, &p->stacks[s]);
		json_array_end(&j);
		json_key(&j, "weights");
		json_array_begin(&j);
		for (size_t s = 0; s < p->nstacks; s++) {
			uint64_t w = profile_stack_weight(p, &p->stacks[s]);

			if (p->stacks[s].count <= timed[s])
				continue;
			w = w > timed_w[s] ? w - timed_w[s] : 0;
			json_uint(&j, w);
			total += w;
		}
		json_array_end(&j);
		json_key(&j, "endValue");
		json_uint(&j, total);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_newline(&j);
	free(thr);
	free(timed);
	free(timed_w);
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

const struct output_ops output_speedscope = {
	.name = "speedscope",
	.description = "speedscope JSON: one sampled profile per thread, frames with file and line",
	.write = speedscope_write,
	.suffixes = (const char *const[]){ ".speedscope.json", ".json", NULL },
};
