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
#define PROFILE_NO_STR UINT32_MAX	/* a string id meaning "none" */

/* What a frame stands for; writers colour and label by it. */
enum profile_kind {
	PROFILE_FRAME_NAME,	/* only a name (collapsed input, tests) */
	PROFILE_FRAME_RUBY,	/* Ruby method or block: name, file, line */
	PROFILE_FRAME_CFUNC,	/* Ruby method written in C: name, and the
				 * caller's file and line */
	PROFILE_FRAME_NATIVE,	/* machine code: symbol (or none), module
				 * path, build id, link-time address */
	PROFILE_FRAME_STATE,	/* "(garbage collection)", "(blocked)"... */
	PROFILE_FRAME_THREAD,	/* root: 'thread TID "NAME"' */
	PROFILE_FRAME_PROCESS,	/* root: 'process PID "CMD"' */
	PROFILE_FRAME_MARKER,	/* "[truncated]" and other markers */
	PROFILE_FRAME_KINDS
};

/* Why a sampled thread was where it was (the leaf pseudo-frame, as data). */
enum profile_state {
	PROFILE_STATE_UNKNOWN,	/* native mode: not known */
	PROFILE_STATE_RUNNING,	/* running Ruby (holds the GVL) */
	PROFILE_STATE_GC,	/* in GC, phase not known */
	PROFILE_STATE_MARKING,	/* in GC, marking */
	PROFILE_STATE_SWEEPING,	/* in GC, sweeping */
	PROFILE_STATE_WAITING_GVL,
	PROFILE_STATE_BLOCKED,	/* sleep, IO, mutex, queue */
	PROFILE_STATE_NO_GVL,	/* on a CPU without the GVL (C extension) */
	PROFILE_STATES
};

/** A frame: every string is an id into the profile's string pool. */
struct profile_frame {
	uint32_t text;		/* the frame as collapsed output shows it */
	uint32_t name;		/* label, symbol or state; "" when none */
	uint32_t file;		/* source or module path, or PROFILE_NO_STR */
	uint32_t build_id;	/* native: hex build id, or PROFILE_NO_STR */
	int32_t line;		/* source line, 0 when none */
	uint8_t kind;		/* enum profile_kind */
	uint64_t addr;		/* native: link-time address, else 0 */
};

/**
 * A frame to intern. text NULL derives it: "name (file:line)" for Ruby
 * and C-method frames with a file, else the name.
 */
struct profile_frame_desc {
	enum profile_kind kind;
	const char *name;
	const char *file;
	const char *build_id;
	int line;
	uint64_t addr;
	const char *text;
};

struct profile_stack {
	uint32_t *frames;	/* frame ids, root first */
	uint32_t depth;
	uint64_t count;		/* samples with exactly this stack */
};

struct profile_sample {
	uint64_t time_ns;	/* since the start of the run */
	pid_t pid;
	pid_t tid;
	uint32_t stack;		/* index into stacks */
	uint8_t state;		/* enum profile_state */
};

/** A thread seen in the run, with its last known name. */
struct profile_thread {
	pid_t pid, tid;
	uint32_t name;		/* string id; "" when not known */
};

/** Counters the run keeps and the summary line prints. */
struct profile_stats {
	uint64_t ticks;		/* sampling rounds */
	uint64_t samples;	/* stacks recorded */
	uint64_t late_ticks;	/* rounds that started a period late or more */
	uint64_t failed;	/* samples dropped: unreadable memory, vanished thread */
	uint64_t blocked_reused;/* stacks of blocked threads taken without stopping them */
	uint64_t woven;		/* --native: stacks woven */
	uint64_t weave_errors;	/* --native: stacks kept unwoven under a marker */
	uint64_t stop_ns_total;	/* time threads spent stopped by us */
	uint64_t stop_count;
	uint32_t *stop_ns;	/* each stop's length, for percentiles */
	size_t stop_cap;
	uint64_t per_state[PROFILE_STATES]; /* samples per state */
	uint64_t rereads;	/* Ruby reads checked against a second read */
	uint64_t torn;		/* ... that found the stacks changed */
	double duration_s;	/* how long sampling ran */
	double rate_hz;		/* requested rate */
};

/** What the run was: recorded by run.c, read by timed formats. */
struct profile_meta {
	pid_t pid;		/* the target (the first one) */
	char *command;		/* its command line, or NULL */
	char *ruby_version;	/* "3.1.2", or NULL when not Ruby */
	char *mode;		/* "wall" or "cpu" */
	uint64_t start_unix_ns;	/* wall-clock time of the first tick */
	char *root;		/* the target's root directory as we see it
				 * (readlink /proc/PID/root), or NULL: where
				 * its source files are once it is gone */
};

struct profile {
	struct intern *names;	/* the string pool */
	struct profile_frame *frames;
	size_t nframes, frames_cap;
	uint32_t *frame_slots;	/* frame hash table: index + 1 */
	size_t nframe_slots;
	struct profile_stack *stacks;
	size_t nstacks, stacks_cap;
	struct profile_sample *samples;
	size_t nsamples, samples_cap;
	uint32_t *slots;	/* stack hash table: index + 1 */
	size_t nslots;
	struct profile_thread *threads;
	size_t nthreads, threads_cap;
	uint32_t *thread_slots;	/* thread hash table: index + 1 */
	size_t nthread_slots;
	struct profile_stats stats;
	struct profile_meta meta;
};

struct profile *profile_create(void);
void profile_destroy(struct profile *p);

/** Interns a string into the pool. */
uint32_t profile_str(struct profile *p, const char *s);
/** A pooled string; "" for PROFILE_NO_STR. */
const char *profile_str_get(const struct profile *p, uint32_t id);

/** Interns a frame that is only a name (PROFILE_FRAME_NAME). */
uint32_t profile_frame(struct profile *p, const char *name);
/** Interns a frame; equal descriptions give equal ids. */
uint32_t profile_frame_make(struct profile *p,
			    const struct profile_frame_desc *d);
/** A frame by id. */
const struct profile_frame *profile_frame_get(const struct profile *p,
					      uint32_t id);
/** The text of a frame id, as collapsed output shows it. */
const char *profile_frame_name(const struct profile *p, uint32_t id);
/** The name of a kind ("ruby", "cfunc", "native"...) and of a state. */
const char *profile_kind_name(enum profile_kind k);
const char *profile_state_name(enum profile_state s);

/** Records (or renames) a thread. */
void profile_thread_name(struct profile *p, pid_t pid, pid_t tid,
			 const char *name);
/** A thread's record, or NULL when never seen. */
const struct profile_thread *profile_thread_find(const struct profile *p,
						 pid_t pid, pid_t tid);

/**
 * Records one sample of thread tid at time_ns with frames (root first,
 * depth truncated to PROFILE_MAX_DEPTH). Returns the stack index.
 */
uint32_t profile_add(struct profile *p, uint64_t time_ns, pid_t tid,
		     const uint32_t *frames, size_t depth);
/** The same with the process and the thread's state. */
uint32_t profile_add_sample(struct profile *p, uint64_t time_ns, pid_t pid,
			    pid_t tid, enum profile_state state,
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
