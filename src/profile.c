// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* Sample storage and per-stack aggregation; owns stacks, samples, names. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rbflame/profile.h"
#include "rbflame/xmalloc.h"

struct profile *
profile_create(void)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	p->names = intern_create();
	p->nslots = 1024;
	p->slots = xcalloc(p->nslots, sizeof(*p->slots));
	return p;
}

void
profile_destroy(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].frames);
	free(p->stacks);
	free(p->samples);
	free(p->stats.stop_ns);
	free(p->slots);
	intern_destroy(p->names);
	free(p);
}

uint32_t
profile_frame(struct profile *p, const char *name)
{
	return intern_str(p->names, name);
}

const char *
profile_frame_name(const struct profile *p, uint32_t id)
{
	return intern_get(p->names, id);
}

static uint64_t
stack_hash(const uint32_t *frames, size_t depth)
{
	return intern_hash(frames, depth * sizeof(*frames)) ^ depth;
}

static void
rehash(struct profile *p)
{
	size_t ns = p->nslots * 2;
	uint32_t *slots = xcalloc(ns, sizeof(*slots));

	for (size_t s = 0; s < p->nstacks; s++) {
		size_t i = stack_hash(p->stacks[s].frames, p->stacks[s].depth) &
			   (ns - 1);

		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = s + 1;
	}
	free(p->slots);
	p->slots = slots;
	p->nslots = ns;
}

static uint32_t
stack_id(struct profile *p, const uint32_t *frames, size_t depth)
{
	size_t i;
	struct profile_stack *st;

	if (depth > PROFILE_MAX_DEPTH)
		depth = PROFILE_MAX_DEPTH;
	i = stack_hash(frames, depth) & (p->nslots - 1);
	while (p->slots[i]) {
		st = &p->stacks[p->slots[i] - 1];
		if (st->depth == depth &&
		    !memcmp(st->frames, frames, depth * sizeof(*frames)))
			return p->slots[i] - 1;
		i = (i + 1) & (p->nslots - 1);
	}
	p->stacks = xgrowarray(p->stacks, &p->stacks_cap, p->nstacks + 1,
			       sizeof(*p->stacks));
	st = &p->stacks[p->nstacks];
	st->frames = xmalloc((depth ? depth : 1) * sizeof(*frames));
	memcpy(st->frames, frames, depth * sizeof(*frames));
	st->depth = depth;
	st->count = 0;
	p->slots[i] = ++p->nstacks;
	if (p->nstacks * 2 > p->nslots)
		rehash(p);
	return p->nstacks - 1;
}

uint32_t
profile_add_count(struct profile *p, const uint32_t *frames, size_t depth,
		  uint64_t count)
{
	uint32_t s = stack_id(p, frames, depth);

	p->stacks[s].count += count;
	return s;
}

uint32_t
profile_add(struct profile *p, uint64_t time_ns, pid_t tid,
	    const uint32_t *frames, size_t depth)
{
	uint32_t s = profile_add_count(p, frames, depth, 1);
	struct profile_sample *smp;

	p->samples = xgrowarray(p->samples, &p->samples_cap, p->nsamples + 1,
				sizeof(*p->samples));
	smp = &p->samples[p->nsamples++];
	smp->time_ns = time_ns;
	smp->tid = tid;
	smp->stack = s;
	p->stats.samples++;
	return s;
}

uint64_t
profile_total(const struct profile *p)
{
	uint64_t t = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		t += p->stacks[i].count;
	return t;
}

void
profile_note_stop(struct profile *p, uint64_t ns)
{
	struct profile_stats *st = &p->stats;

	st->stop_ns = xgrowarray(st->stop_ns, &st->stop_cap,
				 st->stop_count + 1, sizeof(*st->stop_ns));
	st->stop_ns[st->stop_count++] = ns > UINT32_MAX ? UINT32_MAX : ns;
	st->stop_ns_total += ns;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint64_t
profile_stop_quantile(const struct profile *p, double q)
{
	const struct profile_stats *st = &p->stats;
	uint32_t *v;
	uint64_t r;
	size_t i;

	if (!st->stop_count)
		return 0;
	v = xmalloc(st->stop_count * sizeof(*v));
	memcpy(v, st->stop_ns, st->stop_count * sizeof(*v));
	qsort(v, st->stop_count, sizeof(*v), cmp_u32);
	i = (size_t)(q * (st->stop_count - 1) + 0.5);
	r = v[i];
	free(v);
	return r;
}
