// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * pprof's profile.proto, gzipped, for 'go tool pprof', Pyroscope and
 * Grafana: two values per sample, samples/count and wall (or cpu)
 * time in nanoseconds (the time the samples stand for, their recorded
 * weights; count x period in a profile without them); one location per
 * frame, with its line and its function (one per call-graph function,
 * so a method at three lines is one function); native frames also
 * carry their module as a mapping (path, build id) and their address. Samples of the same
 * stack, thread and state are one pprof sample, labelled pid, thread_id,
 * thread_name and state. Encoded by protobuf-c from src/out/profile.proto.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.pb-c.h"
#include "rbflame/callgraph.h"
#include "rbflame/output.h"
#include "rbflame/xmalloc.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__ValueType PbValueType;

/* One pprof sample being built: which stack, thread and state. */
struct agg {
	uint32_t stack;
	pid_t pid, tid;
	int state;		/* -1: a sample without time or thread */
	uint64_t count;
	uint64_t weight_ns;	/* the time they stand for */
};

struct aggs {
	struct agg *v;
	size_t n, cap;
	uint32_t *slots;	/* index + 1 */
	size_t nslots;
};

static uint64_t
agg_hash(uint32_t stack, pid_t pid, pid_t tid, int state)
{
	uint64_t h = stack;

	h = h * 0x9e3779b97f4a7c15ull ^ (uint32_t)pid;
	h = h * 0x9e3779b97f4a7c15ull ^ (uint32_t)tid;
	h = h * 0x9e3779b97f4a7c15ull ^ (uint32_t)state;
	return h ^ h >> 31;
}

static void
agg_add(struct aggs *a, uint32_t stack, pid_t pid, pid_t tid, int state,
	uint64_t weight_ns,
	uint64_t count)
{
	size_t i;

	if ((a->n + 1) * 2 > a->nslots) {
		size_t ns = a->nslots ? a->nslots * 2 : 1024;
		uint32_t *slots = xcalloc(ns, sizeof(*slots));

		for (size_t k = 0; k < a->n; k++) {
			const struct agg *g = &a->v[k];

			i = agg_hash(g->stack, g->pid, g->tid, g->state) &
			    (ns - 1);
			while (slots[i])
				i = (i + 1) & (ns - 1);
			slots[i] = k + 1;
		}
		free(a->slots);
		a->slots = slots;
		a->nslots = ns;
	}
	i = agg_hash(stack, pid, tid, state) & (a->nslots - 1);
	while (a->slots[i]) {
		struct agg *g = &a->v[a->slots[i] - 1];

		if (g->stack == stack && g->pid == pid && g->tid == tid &&
		    g->state == state) {
			g->count += count;
			g->weight_ns += weight_ns;
			return;
		}
		i = (i + 1) & (a->nslots - 1);
	}
	a->v = xgrowarray(a->v, &a->cap, a->n + 1, sizeof(*a->v));
	a->v[a->n] = (struct agg){ stack, pid, tid, state, count, weight_ns };
	a->slots[i] = ++a->n;
}

static int64_t
str(struct intern *t, const char *s)
{
	return intern_str(t, s);
}

static PbLabel *
label_num(struct intern *t, const char *key, int64_t num)
{
	PbLabel *l = xmalloc(sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = str(t, key);
	l->num = num;
	return l;
}

static PbLabel *
label_str(struct intern *t, const char *key, const char *val)
{
	PbLabel *l = xmalloc(sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = str(t, key);
	l->str = str(t, val);
	return l;
}

static int
pprof_write(const struct profile *p, FILE *f)
{
	struct callgraph *g = callgraph_create(p);
	struct intern *t = intern_create();
	struct aggs a = { 0 };
	uint64_t period = output_period_ns(p);
	uint64_t *timed = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*timed));
	uint64_t *timed_w = xcalloc(p->nstacks ? p->nstacks : 1,
				    sizeof(*timed_w));
	PbProfile pr;
	PbValueType vt[2], ptype, *vtp[2] = { &vt[0], &vt[1] };
	PbFunction *fns;
	PbLocation *locs;
	PbLine *lines;
	PbMapping *maps = NULL;
	size_t nmaps = 0, maps_cap = 0;
	uint64_t *loc_map;	/* frame -> mapping id, 0 = none */
	PbSample *smp;
	const char *unit_type = p->meta.mode && !strcmp(p->meta.mode, "cpu")
					? "cpu"
					: "wall";
	unsigned char *buf;
	size_t len;
	int ret;

	perftools__profiles__profile__init(&pr);
	str(t, "");	/* string 0 must be "" */

	/* Functions: the call graph's, so lines of one method share one. */
	fns = xcalloc(g->nfuncs ? g->nfuncs : 1, sizeof(*fns));
	pr.function = xcalloc(g->nfuncs ? g->nfuncs : 1, sizeof(*pr.function));
	for (size_t i = 0; i < g->nfuncs; i++) {
		const char *file = output_frame_file(p, g->funcs[i].frame);

		perftools__profiles__function__init(&fns[i]);
		fns[i].id = i + 1;
		fns[i].name = str(t, output_frame_label(p, g->funcs[i].frame));
		fns[i].system_name = fns[i].name;
		fns[i].filename = str(t, file ? file : "");
		fns[i].start_line = g->funcs[i].line;
		pr.function[i] = &fns[i];
	}
	pr.n_function = g->nfuncs;

	/* Mappings: one per native module (path and build id). */
	loc_map = xcalloc(p->nframes ? p->nframes : 1, sizeof(*loc_map));
	for (uint32_t id = 0; id < p->nframes; id++) {
		const struct profile_frame *fr = &p->frames[id];
		int64_t file, build_id;
		size_t m;

		if (fr->kind != PROFILE_FRAME_NATIVE ||
		    fr->file == PROFILE_NO_STR)
			continue;
		file = str(t, profile_str_get(p, fr->file));
		build_id = str(t, profile_str_get(p, fr->build_id));
		for (m = 0; m < nmaps; m++)
			if (maps[m].filename == file &&
			    maps[m].build_id == build_id)
				break;
		if (m == nmaps) {
			maps = xgrowarray(maps, &maps_cap, nmaps + 1,
					  sizeof(*maps));
			perftools__profiles__mapping__init(&maps[m]);
			maps[m].id = m + 1;
			maps[m].filename = file;
			maps[m].build_id = build_id;
			maps[m].has_functions = true;
			nmaps++;
		}
		loc_map[id] = m + 1;
	}
	pr.mapping = xcalloc(nmaps ? nmaps : 1, sizeof(*pr.mapping));
	for (size_t m = 0; m < nmaps; m++)
		pr.mapping[m] = &maps[m];
	pr.n_mapping = nmaps;

	/* Locations: one per frame, id = frame id + 1. */
	locs = xcalloc(p->nframes ? p->nframes : 1, sizeof(*locs));
	lines = xcalloc(p->nframes ? p->nframes : 1, sizeof(*lines));
	pr.location = xcalloc(p->nframes ? p->nframes : 1,
			      sizeof(*pr.location));
	for (uint32_t id = 0; id < p->nframes; id++) {
		PbLine *lp = &lines[id];

		perftools__profiles__location__init(&locs[id]);
		perftools__profiles__line__init(lp);
		locs[id].id = id + 1;
		locs[id].mapping_id = loc_map[id];
		if (p->frames[id].kind == PROFILE_FRAME_NATIVE)
			locs[id].address = p->frames[id].addr;
		lp->function_id = g->frame_func[id] + 1;
		lp->line = p->frames[id].line > 0 ? p->frames[id].line : 0;
		locs[id].n_line = 1;
		locs[id].line = xmalloc(sizeof(*locs[id].line));
		locs[id].line[0] = lp;
		pr.location[id] = &locs[id];
	}
	pr.n_location = p->nframes;

	/* Samples: timed ones by stack, thread and state, then the rest. */
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];

		uint64_t w = profile_sample_weight(p, s);

		agg_add(&a, s->stack, s->pid, s->tid, s->state, w, 1);
		timed[s->stack]++;
		timed_w[s->stack] += w;
	}
	for (size_t s = 0; s < p->nstacks; s++) {
		uint64_t w = profile_stack_weight(p, &p->stacks[s]);

		if (p->stacks[s].count > timed[s])
			agg_add(&a, s, 0, 0, -1,
				w > timed_w[s] ? w - timed_w[s] : 0,
				p->stacks[s].count - timed[s]);
	}
	smp = xcalloc(a.n ? a.n : 1, sizeof(*smp));
	pr.sample = xcalloc(a.n ? a.n : 1, sizeof(*pr.sample));
	for (size_t i = 0; i < a.n; i++) {
		const struct agg *ag = &a.v[i];
		const struct profile_stack *st = &p->stacks[ag->stack];
		PbSample *s = &smp[i];

		perftools__profiles__sample__init(s);
		s->n_location_id = st->depth;
		s->location_id = xmalloc((st->depth ? st->depth : 1) *
					 sizeof(*s->location_id));
		for (uint32_t d = 0; d < st->depth; d++)	/* leaf first */
			s->location_id[d] = st->frames[st->depth - 1 - d] + 1;
		s->n_value = 2;
		s->value = xmalloc(2 * sizeof(*s->value));
		s->value[0] = ag->count;
		s->value[1] = ag->weight_ns;
		s->label = xcalloc(4, sizeof(*s->label));
		if (ag->state >= 0) {
			const struct profile_thread *th =
				profile_thread_find(p, ag->pid, ag->tid);

			s->label[s->n_label++] = label_num(t, "pid", ag->pid);
			s->label[s->n_label++] =
				label_num(t, "thread_id", ag->tid);
			if (th && *profile_str_get(p, th->name))
				s->label[s->n_label++] = label_str(
					t, "thread_name",
					profile_str_get(p, th->name));
			if (ag->state != PROFILE_STATE_UNKNOWN)
				s->label[s->n_label++] = label_str(
					t, "state", profile_state_name(ag->state));
		}
		pr.sample[i] = s;
	}
	pr.n_sample = a.n;

	perftools__profiles__value_type__init(&vt[0]);
	perftools__profiles__value_type__init(&vt[1]);
	perftools__profiles__value_type__init(&ptype);
	vt[0].type = str(t, "samples");
	vt[0].unit = str(t, "count");
	vt[1].type = str(t, unit_type);
	vt[1].unit = str(t, "nanoseconds");
	ptype = vt[1];
	pr.sample_type = vtp;
	pr.n_sample_type = 2;
	pr.period_type = &ptype;
	pr.period = period;
	pr.default_sample_type = 1;
	pr.time_nanos = p->meta.start_unix_ns;
	pr.duration_nanos = (int64_t)(p->stats.duration_s * 1e9);

	pr.n_string_table = intern_count(t);
	pr.string_table = xmalloc(pr.n_string_table * sizeof(char *));
	for (uint32_t i = 0; i < pr.n_string_table; i++)
		pr.string_table[i] = (char *)intern_get(t, i);

	len = perftools__profiles__profile__get_packed_size(&pr);
	buf = xmalloc(len ? len : 1);
	perftools__profiles__profile__pack(&pr, buf);
	ret = output_gzip(f, buf, len);
	if (ret == 0 && ferror(f)) {
		errno = errno ? errno : EIO;
		ret = -1;
	}

	free(buf);
	free(pr.string_table);
	for (size_t i = 0; i < a.n; i++) {
		for (size_t k = 0; k < smp[i].n_label; k++)
			free(smp[i].label[k]);
		free(smp[i].label);
		free(smp[i].value);
		free(smp[i].location_id);
	}
	free(smp);
	free(pr.sample);
	for (uint32_t id = 0; id < p->nframes; id++)
		free(locs[id].line);
	free(locs);
	free(lines);
	free(pr.location);
	free(pr.mapping);
	free(maps);
	free(loc_map);
	free(pr.function);
	free(fns);
	free(a.v);
	free(a.slots);
	free(timed);
	free(timed_w);
	intern_destroy(t);
	callgraph_destroy(g);
	return ret;
}

const struct output_ops output_pprof = {
	.name = "pprof",
	.description = "gzipped pprof profile.proto for go tool pprof, Pyroscope, Grafana",
	.write = pprof_write,
	.suffixes = (const char *const[]){ ".pb.gz", ".pprof", NULL },
	.binary = true,
};
