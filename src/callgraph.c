// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Call-graph aggregation (see callgraph.h): frames grouped into functions,
 * self/total per function and per line, edges with sample counts and
 * estimated calls. One pass over the distinct stacks gives the counts
 * (each weighted by its count, de-duplicated within the stack by a stamp),
 * one pass over each thread's samples in time order gives the calls.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/callgraph.h"
#include "rbflame/xmalloc.h"

/* An open-addressing map from a 64-bit key to an index. */
struct map {
	uint64_t *keys;
	uint32_t *vals;		/* index + 1, 0 = empty */
	size_t n, cap;
};

static uint64_t
mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	return k ^ k >> 33;
}

static void
map_init(struct map *m)
{
	m->cap = 256;
	m->n = 0;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
}

static void
map_fini(struct map *m)
{
	free(m->keys);
	free(m->vals);
}

/* The slot of key: holding it, or the empty one where it would go. */
static size_t
map_slot(const struct map *m, uint64_t key)
{
	size_t i = mix(key) & (m->cap - 1);

	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void
map_put(struct map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		struct map big = { .cap = m->cap * 2 };

		big.keys = xcalloc(big.cap, sizeof(*big.keys));
		big.vals = xcalloc(big.cap, sizeof(*big.vals));
		for (size_t k = 0; k < m->cap; k++) {
			if (!m->vals[k])
				continue;
			i = map_slot(&big, m->keys[k]);
			big.keys[i] = m->keys[k];
			big.vals[i] = m->vals[k];
		}
		big.n = m->n;
		map_fini(m);
		*m = big;
	}
	i = map_slot(m, key);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val + 1;
}

/* The index stored for key, or -1. */
static int64_t
map_get(const struct map *m, uint64_t key)
{
	size_t i = map_slot(m, key);

	return m->vals[i] ? (int64_t)m->vals[i] - 1 : -1;
}

/* Two frames are one function when all but line and address agree (a
 * C method's file and line too: they are its caller's); a native frame
 * without a symbol is its own function per address. */
static uint64_t
func_key_hash(const struct profile *p, const struct profile_frame *f)
{
	uint64_t h = f->kind;

	/* A C method's file and line are its caller's: not part of it. */
	h = mix(h ^ f->name) ^ (f->kind == PROFILE_FRAME_CFUNC ? 0 : f->file);
	h = mix(h) ^ f->build_id;
	if (f->kind == PROFILE_FRAME_NAME || f->kind == PROFILE_FRAME_THREAD ||
	    f->kind == PROFILE_FRAME_PROCESS)
		h = mix(h) ^ f->text;
	if (f->kind == PROFILE_FRAME_NATIVE && !*profile_str_get(p, f->name))
		h = mix(h) ^ f->addr;
	return mix(h);
}

static bool
same_func(const struct profile *p, const struct profile_frame *a,
	  const struct profile_frame *b)
{
	if (a->kind != b->kind || a->name != b->name ||
	    a->build_id != b->build_id)
		return false;
	if (a->kind != PROFILE_FRAME_CFUNC && a->file != b->file)
		return false;
	if ((a->kind == PROFILE_FRAME_NAME || a->kind == PROFILE_FRAME_THREAD ||
	     a->kind == PROFILE_FRAME_PROCESS) && a->text != b->text)
		return false;
	/* Native: one function per symbol, per address when unnamed. */
	if (a->kind == PROFILE_FRAME_NATIVE &&
	    !*profile_str_get(p, a->name) && a->addr != b->addr)
		return false;
	return true;
}

/* Frames to functions; a frame's function is the first frame like it. */
static void
group_frames(struct callgraph *g, const struct profile *p, bool by_frame)
{
	size_t cap = 64, fcap = 0;
	uint32_t *slots;

	while (cap < p->nframes * 2)
		cap *= 2;
	slots = xcalloc(cap, sizeof(*slots));	/* func index + 1 */
	g->frame_func = xcalloc(p->nframes ? p->nframes : 1,
				sizeof(*g->frame_func));
	for (uint32_t id = 0; id < p->nframes; id++) {
		const struct profile_frame *f = &p->frames[id];
		uint64_t h = func_key_hash(p, f);
		size_t i = h & (cap - 1);

		while (slots[i] &&
		       (by_frame ||
			!same_func(p, &p->frames[g->funcs[slots[i] - 1].frame],
				   f)))
			i = (i + 1) & (cap - 1);
		if (!slots[i]) {
			g->funcs = xgrowarray(g->funcs, &fcap, g->nfuncs + 1,
					      sizeof(*g->funcs));
			g->funcs[g->nfuncs] = (struct callgraph_func){
				.frame = id, .line = f->line > 0 ? f->line : 0,
			};
			slots[i] = ++g->nfuncs;
		}
		g->frame_func[id] = slots[i] - 1;
		if (f->line > 0 && (g->funcs[slots[i] - 1].line == 0 ||
				    f->line < g->funcs[slots[i] - 1].line))
			g->funcs[slots[i] - 1].line = f->line;
	}
	free(slots);
}

struct builder {
	struct callgraph *g;
	struct map edge_map, line_map;
	size_t edges_cap, lines_cap;
	uint64_t *func_stamp, *edge_stamp, *line_stamp;
	size_t edge_stamp_cap, line_stamp_cap;
};

static uint32_t
edge_index(struct builder *b, uint32_t caller, uint32_t callee)
{
	struct callgraph *g = b->g;
	uint64_t key = (uint64_t)caller << 32 | callee;
	int64_t e = map_get(&b->edge_map, key);

	if (e >= 0)
		return e;
	g->edges = xgrowarray(g->edges, &b->edges_cap, g->nedges + 1,
			      sizeof(*g->edges));
	g->edges[g->nedges] = (struct callgraph_edge){
		.caller = caller, .callee = callee,
	};
	b->edge_stamp = xgrowarray(b->edge_stamp, &b->edge_stamp_cap,
				   g->nedges + 1, sizeof(*b->edge_stamp));
	b->edge_stamp[g->nedges] = 0;
	map_put(&b->edge_map, key, g->nedges);
	return g->nedges++;
}

static uint32_t
line_index(struct builder *b, uint32_t func, int32_t line)
{
	struct callgraph *g = b->g;
	uint64_t key = (uint64_t)func << 32 | (uint32_t)line;
	int64_t e = map_get(&b->line_map, key);

	if (e >= 0)
		return e;
	g->lines = xgrowarray(g->lines, &b->lines_cap, g->nlines + 1,
			      sizeof(*g->lines));
	g->lines[g->nlines] = (struct callgraph_line){
		.func = func, .line = line,
	};
	b->line_stamp = xgrowarray(b->line_stamp, &b->line_stamp_cap,
				   g->nlines + 1, sizeof(*b->line_stamp));
	b->line_stamp[g->nlines] = 0;
	map_put(&b->line_map, key, g->nlines);
	return g->nlines++;
}

/* Counts one distinct stack, weighted by its count. */
static void
count_stack(struct builder *b, const struct profile *p, size_t s)
{
	struct callgraph *g = b->g;
	const struct profile_stack *st = &p->stacks[s];
	uint64_t stamp = s + 1, c = st->count;
	uint64_t w = profile_stack_weight(p, st);

	if (!c || !st->depth)
		return;
	g->samples += c;
	g->weight_ns += w;
	for (uint32_t d = 0; d < st->depth; d++) {
		const struct profile_frame *fr = &p->frames[st->frames[d]];
		uint32_t f = g->frame_func[st->frames[d]];
		bool leaf = d + 1 == st->depth;

		if (b->func_stamp[f] != stamp) {
			b->func_stamp[f] = stamp;
			g->funcs[f].total += c;
			g->funcs[f].total_ns += w;
		}
		if (leaf) {
			g->funcs[f].self += c;
			g->funcs[f].self_ns += w;
		}
		if (fr->line > 0) {
			uint32_t l = line_index(b, f, fr->line);

			if (b->line_stamp[l] != stamp) {
				b->line_stamp[l] = stamp;
				g->lines[l].total += c;
			}
			if (leaf)
				g->lines[l].self += c;
		}
		if (d > 0) {
			uint32_t e = edge_index(
				b, g->frame_func[st->frames[d - 1]], f);

			if (b->edge_stamp[e] != stamp) {
				b->edge_stamp[e] = stamp;
				g->edges[e].count += c;
				g->edges[e].weight_ns += w;
			}
		}
	}
}

/* The call estimate: the functions on the stack of the previous sample of
 * the same thread; each one that is gone from the next is a call ended. */
struct walk {
	uint32_t cur[PROFILE_MAX_DEPTH];
	size_t depth;
};

static void
walk_to(struct builder *b, struct walk *w, const struct profile *p,
	const struct profile_stack *st)
{
	struct callgraph *g = b->g;
	size_t n = st ? st->depth : 0, common = 0;

	if (n > PROFILE_MAX_DEPTH)
		n = PROFILE_MAX_DEPTH;
	while (common < n && common < w->depth &&
	       w->cur[common] == g->frame_func[st->frames[common]])
		common++;
	for (size_t d = w->depth; d-- > common;)
		if (d > 0)
			g->edges[edge_index(b, w->cur[d - 1], w->cur[d])]
				.calls++;
	for (size_t d = common; d < n; d++)
		w->cur[d] = g->frame_func[st->frames[d]];
	w->depth = n;
}

static const struct profile *sort_profile;

static int
cmp_sample(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, k = *(const size_t *)y;
	const struct profile_sample *a = &sort_profile->samples[i];
	const struct profile_sample *c = &sort_profile->samples[k];

	if (a->pid != c->pid)
		return a->pid < c->pid ? -1 : 1;
	if (a->tid != c->tid)
		return a->tid < c->tid ? -1 : 1;
	return (i > k) - (i < k);
}

static void
estimate_calls(struct builder *b, const struct profile *p)
{
	struct walk *w = xcalloc(1, sizeof(*w));
	size_t *order = xmalloc((p->nsamples ? p->nsamples : 1) *
				sizeof(*order));
	uint64_t *timed = xcalloc(p->nstacks ? p->nstacks : 1,
				  sizeof(*timed));

	/* Each thread's samples in the order they were taken. */
	for (size_t i = 0; i < p->nsamples; i++)
		order[i] = i;
	sort_profile = p;
	qsort(order, p->nsamples, sizeof(*order), cmp_sample);
	for (size_t k = 0; k < p->nsamples; k++) {
		const struct profile_sample *s = &p->samples[order[k]];

		if (k > 0 && (s->pid != p->samples[order[k - 1]].pid ||
			      s->tid != p->samples[order[k - 1]].tid))
			walk_to(b, w, p, NULL);
		if (s->stack < p->nstacks) {
			walk_to(b, w, p, &p->stacks[s->stack]);
			timed[s->stack]++;
		}
	}
	walk_to(b, w, p, NULL);
	/* Counted stacks without times (merged or collapsed input): one
	 * visit each, in stack order. */
	for (size_t s = 0; s < p->nstacks; s++)
		if (p->stacks[s].count > timed[s])
			walk_to(b, w, p, &p->stacks[s]);
	walk_to(b, w, p, NULL);
	free(timed);
	free(order);
	free(w);
}

static int
cmp_edge(const void *x, const void *y)
{
	const struct callgraph_edge *a = x, *b = y;

	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	return (a->callee > b->callee) - (a->callee < b->callee);
}

static int
cmp_line(const void *x, const void *y)
{
	const struct callgraph_line *a = x, *b = y;

	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

static struct callgraph *
create(const struct profile *p, bool by_frame)
{
	struct callgraph *g = xcalloc(1, sizeof(*g));
	struct builder b = { .g = g };

	group_frames(g, p, by_frame);
	map_init(&b.edge_map);
	map_init(&b.line_map);
	b.func_stamp = xcalloc(g->nfuncs ? g->nfuncs : 1,
			       sizeof(*b.func_stamp));
	for (size_t s = 0; s < p->nstacks; s++)
		count_stack(&b, p, s);
	estimate_calls(&b, p);
	if (g->nedges)	/* qsort() wants a pointer even for none */
		qsort(g->edges, g->nedges, sizeof(*g->edges), cmp_edge);
	if (g->nlines)
		qsort(g->lines, g->nlines, sizeof(*g->lines), cmp_line);
	map_fini(&b.edge_map);
	map_fini(&b.line_map);
	free(b.func_stamp);
	free(b.edge_stamp);
	free(b.line_stamp);
	return g;
}

struct callgraph *
callgraph_create(const struct profile *p)
{
	return create(p, false);
}

struct callgraph *
callgraph_create_frames(const struct profile *p)
{
	return create(p, true);
}

void
callgraph_destroy(struct callgraph *g)
{
	if (!g)
		return;
	free(g->frame_func);
	free(g->funcs);
	free(g->edges);
	free(g->lines);
	free(g);
}

const struct callgraph_edge *
callgraph_callees(const struct callgraph *g, uint32_t f, size_t *n)
{
	size_t lo = 0, hi = g->nedges, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->edges[mid].caller < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < g->nedges && g->edges[end].caller == f; end++)
		;
	*n = end - lo;
	return *n ? g->edges + lo : NULL;
}

const struct callgraph_line *
callgraph_lines(const struct callgraph *g, uint32_t f, size_t *n)
{
	size_t lo = 0, hi = g->nlines, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->lines[mid].func < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < g->nlines && g->lines[end].func == f; end++)
		;
	*n = end - lo;
	return *n ? g->lines + lo : NULL;
}
