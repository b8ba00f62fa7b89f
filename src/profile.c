// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* Sample storage and per-stack aggregation; owns frames, stacks, samples,
 * threads and the string pool. */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
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
	p->nframe_slots = 1024;
	p->frame_slots = xcalloc(p->nframe_slots, sizeof(*p->frame_slots));
	p->nthread_slots = 64;
	p->thread_slots = xcalloc(p->nthread_slots, sizeof(*p->thread_slots));
	p->keep_samples = true;
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
	profile_times_fini(&p->stats.stop);
	profile_times_fini(&p->stats.held);
	profile_times_fini(&p->stats.latency);
	free(p->slots);
	free(p->frames);
	free(p->frame_slots);
	free(p->threads);
	free(p->thread_slots);
	free(p->meta.command);
	free(p->meta.ruby_version);
	free(p->meta.mode);
	intern_destroy(p->names);
	free(p);
}

uint32_t
profile_str(struct profile *p, const char *s)
{
	return intern_str(p->names, s);
}

const char *
profile_str_get(const struct profile *p, uint32_t id)
{
	return id == PROFILE_NO_STR ? "" : intern_get(p->names, id);
}

static uint64_t
frame_hash(const struct profile_frame *f)
{
	uint64_t h = f->kind;

	h = h * 0x9e3779b97f4a7c15ull ^ f->name;
	h = h * 0x9e3779b97f4a7c15ull ^ f->file;
	h = h * 0x9e3779b97f4a7c15ull ^ f->build_id;
	h = h * 0x9e3779b97f4a7c15ull ^ (uint32_t)f->line;
	h = h * 0x9e3779b97f4a7c15ull ^ f->addr;
	h = h * 0x9e3779b97f4a7c15ull ^ f->text;
	return h ^ h >> 29;
}

static bool
frame_eq(const struct profile_frame *a, const struct profile_frame *b)
{
	return a->kind == b->kind && a->name == b->name &&
	       a->file == b->file && a->build_id == b->build_id &&
	       a->line == b->line && a->addr == b->addr && a->text == b->text;
}

static void
frame_rehash(struct profile *p)
{
	size_t ns = p->nframe_slots * 2;
	uint32_t *slots = xcalloc(ns, sizeof(*slots));

	for (size_t f = 0; f < p->nframes; f++) {
		size_t i = frame_hash(&p->frames[f]) & (ns - 1);

		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = f + 1;
	}
	free(p->frame_slots);
	p->frame_slots = slots;
	p->nframe_slots = ns;
}

static uint32_t
frame_intern(struct profile *p, const struct profile_frame *f)
{
	size_t i = frame_hash(f) & (p->nframe_slots - 1);

	while (p->frame_slots[i]) {
		if (frame_eq(&p->frames[p->frame_slots[i] - 1], f))
			return p->frame_slots[i] - 1;
		i = (i + 1) & (p->nframe_slots - 1);
	}
	p->frames = xgrowarray(p->frames, &p->frames_cap, p->nframes + 1,
			       sizeof(*p->frames));
	p->frames[p->nframes] = *f;
	p->frame_slots[i] = ++p->nframes;
	if (p->nframes * 2 > p->nframe_slots)
		frame_rehash(p);
	return p->nframes - 1;
}

/* True when the frame or string cap leaves no room for a new frame. */
static bool
frames_full(const struct profile *p)
{
	return p->max_frames &&
	       (p->nframes >= p->max_frames ||
		intern_count(p->names) + PROFILE_STRS_PER_FRAME >=
			(uint64_t)p->max_frames * PROFILE_STRS_PER_FRAME);
}

/* The [frame limit] leaf: made past the caps, once. */
static uint32_t
frame_limit(struct profile *p)
{
	uint32_t id = intern_str(p->names, PROFILE_FRAME_LIMIT);
	struct profile_frame f = {
		.text = id, .name = id, .file = PROFILE_NO_STR,
		.build_id = PROFILE_NO_STR, .kind = PROFILE_FRAME_NAME,
	};

	p->stats.frame_limit++;
	p->limit_frame = frame_intern(p, &f) + 1;
	return p->limit_frame - 1;
}

/* A string's id: added when adding, else only found; one not pooled
 * sets *miss: a frame with it cannot be there yet. */
static uint32_t
frame_str(struct profile *p, const char *s, bool add, bool *miss)
{
	uint32_t id;

	if (add)
		return intern_str(p->names, s);
	id = intern_find(p->names, s);
	if (id == UINT32_MAX)
		*miss = true;
	return id;
}

/* f's id: interned when there is room, else found, else [frame limit];
 * miss: one of its strings is not pooled, so it is not there. */
static uint32_t
frame_capped(struct profile *p, const struct profile_frame *f, bool add,
	     bool miss)
{
	size_t i;

	if (add)
		return frame_intern(p, f);
	if (miss)
		return frame_limit(p);
	for (i = frame_hash(f) & (p->nframe_slots - 1); p->frame_slots[i];
	     i = (i + 1) & (p->nframe_slots - 1))
		if (frame_eq(&p->frames[p->frame_slots[i] - 1], f))
			return p->frame_slots[i] - 1;
	return frame_limit(p);
}

uint32_t
profile_frame(struct profile *p, const char *name)
{
	bool add = !frames_full(p), miss = false;
	uint32_t id = frame_str(p, name, add, &miss);
	struct profile_frame f = {
		.text = id, .name = id, .file = PROFILE_NO_STR,
		.build_id = PROFILE_NO_STR, .kind = PROFILE_FRAME_NAME,
	};

	return frame_capped(p, &f, add, miss);
}

uint32_t
profile_frame_make(struct profile *p, const struct profile_frame_desc *d)
{
	bool add = !frames_full(p), miss = false;
	struct profile_frame f = {
		.name = frame_str(p, d->name ? d->name : "", add, &miss),
		.file = d->file ? frame_str(p, d->file, add, &miss)
				: PROFILE_NO_STR,
		.build_id = d->build_id ? frame_str(p, d->build_id, add, &miss)
					: PROFILE_NO_STR,
		.line = d->line,
		.kind = d->kind,
		.addr = d->addr,
	};

	if (d->text) {
		f.text = frame_str(p, d->text, add, &miss);
	} else if (d->file && (d->kind == PROFILE_FRAME_RUBY ||
			       d->kind == PROFILE_FRAME_CFUNC)) {
		char buf[8192];

		snprintf(buf, sizeof(buf), "%s (%s:%d)", d->name, d->file,
			 d->line);
		f.text = frame_str(p, buf, add, &miss);
	} else {
		f.text = f.name;
	}
	return frame_capped(p, &f, add, miss);
}

/* The " (" that opens the parenthesis text ends with, balanced, so a
 * label may hold parentheses ("block (2 levels) in <main>"): its offset,
 * or 0 when text has no such tail or no label before it. */
static size_t
tail_paren(const char *text, size_t len)
{
	int depth = 0;

	if (len < 4 || text[len - 1] != ')')
		return 0;
	for (size_t i = len; i-- > 1;) {
		if (text[i] == ')')
			depth++;
		else if (text[i] == '(' && --depth == 0)
			return text[i - 1] == ' ' && i > 1 ? i - 1 : 0;
	}
	return 0;
}

void
profile_frame_parse(const char *text, struct profile_frame_desc *d,
		    char *scratch)
{
	size_t len = strlen(text), sp = tail_paren(text, len);
	const char *in = text + sp + 2;
	size_t inlen = sp ? len - sp - 3 : 0, digits = 0;

	*d = (struct profile_frame_desc){
		.kind = PROFILE_FRAME_NAME, .name = text, .text = text,
	};
	if (!sp || inlen == 0)
		return;
	while (digits < inlen && in[inlen - 1 - digits] >= '0' &&
	       in[inlen - 1 - digits] <= '9')
		digits++;
	if (digits > 0 && digits < 10 && inlen > digits + 1 &&
	    in[inlen - 1 - digits] == ':') {
		d->kind = PROFILE_FRAME_RUBY;
		d->line = atoi(in + inlen - digits);
		inlen -= digits + 1;
	} else if (inlen > 3 && !memcmp(in + inlen - 3, ".rb", 3)) {
		d->kind = PROFILE_FRAME_RUBY;	/* a method, by its file */
	} else if (!memchr(in, ' ', inlen) && !memchr(in, ':', inlen)) {
		d->kind = PROFILE_FRAME_NATIVE;	/* "symbol (libfoo.so)" */
	} else {
		return;
	}
	memcpy(scratch, text, sp);
	scratch[sp] = '\0';
	memcpy(scratch + sp + 1, in, inlen);
	scratch[sp + 1 + inlen] = '\0';
	d->name = scratch;
	d->file = scratch + sp + 1;
}

const struct profile_frame *
profile_frame_get(const struct profile *p, uint32_t id)
{
	return id < p->nframes ? &p->frames[id] : NULL;
}

const char *
profile_frame_name(const struct profile *p, uint32_t id)
{
	return id < p->nframes ? intern_get(p->names, p->frames[id].text) : "";
}

const char *
profile_kind_name(enum profile_kind k)
{
	static const char *const names[PROFILE_FRAME_KINDS] = {
		[PROFILE_FRAME_NAME] = "name",
		[PROFILE_FRAME_RUBY] = "ruby",
		[PROFILE_FRAME_CFUNC] = "cfunc",
		[PROFILE_FRAME_NATIVE] = "native",
		[PROFILE_FRAME_STATE] = "state",
		[PROFILE_FRAME_THREAD] = "thread",
		[PROFILE_FRAME_PROCESS] = "process",
		[PROFILE_FRAME_MARKER] = "marker",
	};

	return (unsigned)k < PROFILE_FRAME_KINDS ? names[k] : "name";
}

static const struct profile_state_desc state_desc[PROFILE_STATES] = {
#define STATE_DESC(id, grp, lf, sum, lbl, cls)				\
	[PROFILE_STATE_##id] = {					\
		.group = PROFILE_STATE_##grp, .leaf = lf, .summary = sum, \
		.label = lbl,						\
	},
	PROFILE_STATE_LIST(STATE_DESC)
#undef STATE_DESC
};

const struct profile_state_desc *
profile_state_desc(enum profile_state s)
{
	return &state_desc[(unsigned)s < PROFILE_STATES ? s
							: PROFILE_STATE_UNKNOWN];
}

const char *
profile_state_name(enum profile_state s)
{
	return profile_state_desc(s)->label;
}

int
profile_state_leaves(enum profile_state s,
		     const char *leaf[PROFILE_STATE_LEAVES])
{
	const struct profile_state_desc *d = profile_state_desc(s);
	int n = 0;

	leaf[0] = leaf[1] = NULL;
	if (d->group != s && state_desc[d->group].leaf)
		leaf[n++] = state_desc[d->group].leaf;
	if (d->leaf)
		leaf[n++] = d->leaf;
	return n;
}

/* Appends to buf (cap bytes) at *len; past cap, only counts. */
static void __attribute__((format(printf, 4, 5)))
appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*len < cap ? buf + *len : NULL,
		      *len < cap ? cap - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

char *
profile_state_summary(const uint64_t per_state[PROFILE_STATES], char *buf,
		      size_t cap)
{
	size_t len = 0;

	if (cap)
		buf[0] = '\0';
	for (int g = 0; g < PROFILE_STATES; g++) {
		const char *open = " (";
		uint64_t total = 0;

		if (state_desc[g].group != g || !state_desc[g].summary)
			continue;
		for (int s = 0; s < PROFILE_STATES; s++)
			if (state_desc[s].group == g)
				total += per_state[s];
		appendf(buf, cap, &len, "%s%s %llu", len ? ", " : "",
			state_desc[g].summary, (unsigned long long)total);
		for (int s = 0; s < PROFILE_STATES; s++) {
			if (s == g || state_desc[s].group != g ||
			    !state_desc[s].summary)
				continue;
			appendf(buf, cap, &len, "%s%s %llu", open,
				state_desc[s].summary,
				(unsigned long long)per_state[s]);
			open = ", ";
		}
		if (open[0] == ',')
			appendf(buf, cap, &len, ")");
	}
	return buf;
}

static size_t
thread_slot(const struct profile *p, pid_t pid, pid_t tid, size_t nslots,
	    const uint32_t *slots)
{
	uint64_t k = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
	size_t i = (k * 0x9e3779b97f4a7c15ull >> 32) & (nslots - 1);

	while (slots[i]) {
		const struct profile_thread *t = &p->threads[slots[i] - 1];

		if (t->pid == pid && t->tid == tid)
			break;
		i = (i + 1) & (nslots - 1);
	}
	return i;
}

const struct profile_thread *
profile_thread_find(const struct profile *p, pid_t pid, pid_t tid)
{
	size_t i = thread_slot(p, pid, tid, p->nthread_slots, p->thread_slots);

	return p->thread_slots[i] ? &p->threads[p->thread_slots[i] - 1]
				  : NULL;
}

char *
profile_thread_id(pid_t tid, char *buf, size_t cap)
{
	if (tid < 0)
		snprintf(buf, cap, "mn%d", -(int)tid);
	else
		snprintf(buf, cap, "%d", (int)tid);
	return buf;
}

void
profile_thread_name(struct profile *p, pid_t pid, pid_t tid,
		    const char *name)
{
	size_t i = thread_slot(p, pid, tid, p->nthread_slots, p->thread_slots);
	uint32_t nid;

	if (!name)
		name = "";
	if (p->thread_slots[i]) {
		struct profile_thread *t = &p->threads[p->thread_slots[i] - 1];

		/* Called with every sample: the name interned only when
		 * it changed (a hash and a compare per sample were 2.7% of
		 * rbflame's CPU on a loaded Puma, perf). */
		if (strcmp(intern_get(p->names, t->name), name) != 0)
			t->name = intern_str(p->names, name);
		return;
	}
	nid = intern_str(p->names, name);
	p->threads = xgrowarray(p->threads, &p->threads_cap, p->nthreads + 1,
				sizeof(*p->threads));
	p->threads[p->nthreads] = (struct profile_thread){
		.pid = pid, .tid = tid, .name = nid,
	};
	p->thread_slots[i] = ++p->nthreads;
	if (p->nthreads * 2 > p->nthread_slots) {
		size_t ns = p->nthread_slots * 2;
		uint32_t *slots = xcalloc(ns, sizeof(*slots));

		for (size_t t = 0; t < p->nthreads; t++)
			slots[thread_slot(p, p->threads[t].pid,
					  p->threads[t].tid, ns, slots)] = t + 1;
		free(p->thread_slots);
		p->thread_slots = slots;
		p->nthread_slots = ns;
	}
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
	st->weight_ns = 0;
	p->slots[i] = ++p->nstacks;
	if (p->nstacks * 2 > p->nslots)
		rehash(p);
	return p->nstacks - 1;
}

uint32_t
profile_add_count(struct profile *p, const uint32_t *frames, size_t depth,
		  uint64_t count)
{
	uint32_t s;

	/* A stack past the frame cap ends at its first [frame limit]. */
	if (p->limit_frame)
		for (size_t i = 0; i < depth; i++)
			if (frames[i] == p->limit_frame - 1) {
				depth = i + 1;
				break;
			}
	s = stack_id(p, frames, depth);

	p->stacks[s].count += count;
	return s;
}

uint32_t
profile_add_count_weight(struct profile *p, const uint32_t *frames,
			 size_t depth, uint64_t count, uint64_t weight_ns)
{
	uint32_t s = profile_add_count(p, frames, depth, count);

	p->stacks[s].weight_ns += weight_ns;
	return s;
}

uint32_t
profile_add_sample(struct profile *p, uint64_t time_ns, pid_t pid, pid_t tid,
		   enum profile_state state, const uint32_t *frames,
		   size_t depth)
{
	return profile_add_weighted(p, time_ns, pid, tid, state, 0, frames,
				    depth);
}

uint32_t
profile_add_weighted(struct profile *p, uint64_t time_ns, pid_t pid,
		     pid_t tid, enum profile_state state, uint64_t weight_ns,
		     const uint32_t *frames, size_t depth)
{
	uint32_t s = profile_add_count(p, frames, depth, 0);

	profile_add_again(p, time_ns, pid, tid, state, weight_ns, s);
	return s;
}

void
profile_add_again(struct profile *p, uint64_t time_ns, pid_t pid, pid_t tid,
		  enum profile_state state, uint64_t weight_ns, uint32_t s)
{
	unsigned st = (unsigned)state < PROFILE_STATES ? state : 0;

	p->stacks[s].count++;
	p->stacks[s].weight_ns += weight_ns;
	if (p->keep_samples) {
		struct profile_sample *smp;

		p->samples = xgrowarray(p->samples, &p->samples_cap,
					p->nsamples + 1, sizeof(*p->samples));
		smp = &p->samples[p->nsamples++];
		smp->time_ns = time_ns;
		smp->pid = pid;
		smp->tid = tid;
		smp->stack = s;
		smp->state = (uint8_t)st;
		smp->weight_ns = weight_ns;
	}
	p->stats.samples++;
	p->stats.per_state[st]++;
}

uint32_t
profile_add(struct profile *p, uint64_t time_ns, pid_t tid,
	    const uint32_t *frames, size_t depth)
{
	return profile_add_sample(p, time_ns, p->meta.pid, tid,
				  PROFILE_STATE_UNKNOWN, frames, depth);
}

uint64_t
profile_period_ns(const struct profile *p)
{
	double hz = p->stats.rate_hz > 0 ? p->stats.rate_hz : 99.0;

	return (uint64_t)(1e9 / hz + 0.5);
}

uint64_t
profile_sample_weight(const struct profile *p, const struct profile_sample *s)
{
	return p->meta.weighted ? s->weight_ns : profile_period_ns(p);
}

uint64_t
profile_stack_weight(const struct profile *p, const struct profile_stack *s)
{
	return p->meta.weighted ? s->weight_ns
				: s->count * profile_period_ns(p);
}

uint64_t
profile_weight_total(const struct profile *p)
{
	uint64_t t = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		t += profile_stack_weight(p, &p->stacks[i]);
	return t;
}

uint64_t
profile_total(const struct profile *p)
{
	uint64_t t = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		t += p->stacks[i].count;
	return t;
}

/* The bucket of ns (< 2^32): exact below PROFILE_TIMES_EXACT, then the
 * octave and the 6 bits after its leading one. */
static size_t
times_bucket(uint32_t ns)
{
	unsigned e;

	if (ns < PROFILE_TIMES_EXACT)
		return ns;
	e = 31u - (unsigned)__builtin_clz(ns);	/* 7..31 */
	return PROFILE_TIMES_EXACT + (e - 7u) * 64u + ((ns >> (e - 6u)) & 63u);
}

/* The middle of bucket b's range of values. */
static uint64_t
times_value(size_t b)
{
	size_t k;
	unsigned e;
	uint64_t lo, width;

	if (b < PROFILE_TIMES_EXACT)
		return b;
	k = b - PROFILE_TIMES_EXACT;
	e = 7u + (unsigned)(k / 64u);
	width = 1ull << (e - 6u);
	lo = (1ull << e) + (uint64_t)(k % 64u) * width;
	return lo + width / 2;
}

void
profile_times_note(struct profile_times *pt, uint64_t ns)
{
	uint32_t v = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;

	if (!pt->hist)
		pt->hist = xcalloc(PROFILE_TIMES_BUCKETS, sizeof(*pt->hist));
	pt->hist[times_bucket(v)]++;
	if (!pt->n || v < pt->min)
		pt->min = v;
	if (!pt->n || v > pt->max)
		pt->max = v;
	pt->n++;
	pt->total_ns += ns;
	pt->count++;
}

uint64_t
profile_times_quantile(const struct profile_times *pt, double q)
{
	uint64_t rank, seen = 0, v;

	if (!pt->n || !pt->hist)
		return 0;
	if (q <= 0)
		return pt->min;
	if (q >= 1)
		return pt->max;
	rank = (uint64_t)(q * (double)(pt->n - 1) + 0.5);
	for (size_t b = 0; b < PROFILE_TIMES_BUCKETS; b++) {
		seen += pt->hist[b];
		if (seen > rank) {
			v = times_value(b);
			return v < pt->min ? pt->min
					   : v > pt->max ? pt->max : v;
		}
	}
	return pt->max;
}

void
profile_times_fini(struct profile_times *pt)
{
	free(pt->hist);
	pt->hist = NULL;
	pt->n = 0;
}
