/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Samples and their aggregation. A frame is an interned string; a stack is
 * an array of frame ids, root first, stored once (hash-consed); every
 * sample is logged with its time and thread so timed formats can be
 * written, and counted per stack for the aggregate ones. Writers read a
 * profile and never touch the target.
 */
#ifndef RBFLAME_PROFILE_H
#define RBFLAME_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rbflame/intern.h"

#define PROFILE_MAX_DEPTH 4096

struct profile_stack {
	uint32_t *frames;	/* root first */
	uint32_t depth;
	uint64_t count;		/* samples with exactly this stack */
};

struct profile_sample {
	uint64_t time_ns;	/* since the start of the run */
	pid_t tid;
	uint32_t stack;		/* index into stacks */
};

/** Counters the run keeps and the summary line prints. */
struct profile_stats {
	uint64_t ticks;		/* sampling rounds */
	uint64_t samples;	/* stacks recorded */
	uint64_t late_ticks;	/* rounds that started a period late or more */
	uint64_t failed;	/* samples dropped: unreadable memory, vanished thread */
	uint64_t blocked_reused;/* stacks of blocked threads taken without stopping them */
	uint64_t stop_ns_total;	/* time threads spent stopped by us */
	uint64_t stop_count;
	uint32_t *stop_ns;	/* each stop's length, for percentiles */
	size_t stop_cap;
	double duration_s;	/* how long sampling ran */
	double rate_hz;		/* requested rate */
};

struct profile {
	struct intern *names;
	struct profile_stack *stacks;
	size_t nstacks, stacks_cap;
	struct profile_sample *samples;
	size_t nsamples, samples_cap;
	uint32_t *slots;	/* stack hash table: index + 1 */
	size_t nslots;
	struct profile_stats stats;
};

struct profile *profile_create(void);
void profile_destroy(struct profile *p);

/** Interns a frame name. */
uint32_t profile_frame(struct profile *p, const char *name);
/** The name of a frame id. */
const char *profile_frame_name(const struct profile *p, uint32_t id);

/**
 * Records one sample of thread tid at time_ns with frames (root first,
 * depth truncated to PROFILE_MAX_DEPTH). Returns the stack index.
 */
uint32_t profile_add(struct profile *p, uint64_t time_ns, pid_t tid,
		     const uint32_t *frames, size_t depth);
/** Adds count samples of a stack without a timed record (for merges). */
uint32_t profile_add_count(struct profile *p, const uint32_t *frames,
			   size_t depth, uint64_t count);
/** Records how long one thread was stopped for a sample. */
void profile_note_stop(struct profile *p, uint64_t ns);
/** The q-quantile (0..1) of the stop lengths in ns, 0 when none. */
uint64_t profile_stop_quantile(const struct profile *p, double q);

/** Total samples counted. */
uint64_t profile_total(const struct profile *p);

#endif
