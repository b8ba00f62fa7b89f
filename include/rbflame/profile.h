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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rbflame/intern.h"

#define PROFILE_MAX_DEPTH 4096
#define PROFILE_NO_STR UINT32_MAX	/* a string id meaning "none" */
/* A run's default cap on distinct frames (--max-frames): the target
 * drives how many there are (eval, generated methods), so the cap bounds
 * our memory; the string pool is capped at PROFILE_STRS_PER_FRAME times
 * it. Beyond it a new frame is PROFILE_FRAME_LIMIT. */
#define PROFILE_MAX_FRAMES 200000
#define PROFILE_STRS_PER_FRAME 4
#define PROFILE_FRAME_LIMIT "[frame limit]"

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

/*
 * The thread states: why a sampled thread was where it was. This list is
 * the one place a state is described; every user expands it or reads
 * profile_state_desc(). One row per state:
 *
 *   X(ID, GROUP, LEAF, SUMMARY, LABEL, CLASS)
 *
 * ID       PROFILE_STATE_<ID>. A row's position is its number in raw
 *          recordings (doc/raw-format.md): add new rows at the end.
 * GROUP    the state this one is a phase of, or ID itself: GROUP's leaf
 *          goes above this one's, and the summary counts this state in
 *          GROUP's total and names it in parentheses after it. One level.
 * LEAF     the leaf pseudo-frame a stack in this state ends with, NULL
 *          for none (stackprof's names for the GC's).
 * SUMMARY  its name in the run's summary line; NULL: left out.
 * LABEL    its name as data: pprof's "state" label, profile_state_name().
 * CLASS    the flamegraph colour class of its leaf, FLAMETREE_<CLASS>
 *          (include/rbflame/flametree.h); unused without a LEAF.
 *
 * Where the states come from is the sampler's (src/sampler.c
 * stack_state()): the Ruby reader's view, refined by the kernel's.
 */
#define PROFILE_STATE_LIST(X)						\
	/* native mode: not known */					\
	X(UNKNOWN, UNKNOWN, NULL, NULL, "unknown", OTHER)		\
	/* holds the GVL, runs Ruby (or C called from Ruby) */		\
	X(RUNNING, RUNNING, NULL, "running", "running", OTHER)		\
	/* holds the GVL, in GC, phase not known */			\
	X(GC, GC, "(garbage collection)", "garbage collection", "gc", GC) \
	X(MARKING, GC, "(marking)", "marking", "marking", GC)		\
	X(SWEEPING, GC, "(sweeping)", "sweeping", "sweeping", GC)	\
	/* runnable, another thread holds the GVL */			\
	X(WAITING_GVL, WAITING_GVL, "(waiting for GVL)",		\
	  "waiting for GVL", "waiting for GVL", IDLE)			\
	/* GVL released, asleep in the kernel: sleep, IO, mutex, queue */ \
	X(BLOCKED, BLOCKED, "(blocked)", "blocked", "blocked", IDLE)	\
	/* GVL released, on a CPU: a C extension's work */		\
	X(NO_GVL, NO_GVL, "(running without GVL)",			\
	  "running without GVL", "running without GVL", NOGVL)

enum profile_state {
#define PROFILE_STATE_ENUM(id, group, leaf, summary, label, cls) \
	PROFILE_STATE_##id,
	PROFILE_STATE_LIST(PROFILE_STATE_ENUM)
#undef PROFILE_STATE_ENUM
	PROFILE_STATES
};

/* At most this many leaf pseudo-frames per state: GROUP's, then its own. */
#define PROFILE_STATE_LEAVES 2

/** A state's row of PROFILE_STATE_LIST, but CLASS (a view's own). */
struct profile_state_desc {
	enum profile_state group;
	const char *leaf;	/* NULL: none */
	const char *summary;	/* NULL: not in the summary */
	const char *label;
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
	uint64_t weight_ns;	/* the time they stand for (weighted
				 * profiles; see profile_stack_weight) */
};

struct profile_sample {
	uint64_t time_ns;	/* since the start of the run */
	pid_t pid;
	pid_t tid;
	uint32_t stack;		/* index into stacks */
	uint8_t state;		/* enum profile_state */
	uint64_t weight_ns;	/* the time it stands for: the interval
				 * since the last tick (wall), the thread's
				 * CPU time since its last sample (cpu) */
};

/** A thread seen in the run, with its last known name. */
struct profile_thread {
	pid_t pid, tid;
	uint32_t name;		/* string id; "" when not known */
};

/** profile_times' histogram: exact below 128 ns, then 64 buckets an
 * octave up to 2^32 ns (each within 1/64, 1.6%, of what it holds). */
#define PROFILE_TIMES_EXACT 128u
#define PROFILE_TIMES_BUCKETS (PROFILE_TIMES_EXACT + (32u - 7u) * 64u)

/**
 * Durations, for their percentiles: a histogram of fixed size (13.5 KiB,
 * allocated at the first one), so a long run at 1000 Hz over many
 * threads stays flat (kept one by one, they grew 12 bytes a thread a
 * tick: 360 MB in 10 minutes of 50 threads). Each is capped at
 * UINT32_MAX ns, 4.3 s. A loaded recording has the total and count only:
 * its n is 0.
 */
struct profile_times {
	uint64_t total_ns;
	uint64_t count;
	uint64_t *hist;		/* PROFILE_TIMES_BUCKETS counts, or NULL */
	uint64_t n;		/* how many the histogram holds */
	uint32_t min, max;	/* the smallest and largest, exact */
};

/** Counters the run keeps and the summary line prints. */
struct profile_stats {
	uint64_t ticks;		/* sampling rounds */
	uint64_t samples;	/* stacks recorded */
	uint64_t late_ticks;	/* rounds that started a period late or more */
	uint64_t failed;	/* samples dropped: unreadable memory, vanished thread */
	uint64_t exit_failed;	/* ... not counted in failed: those of a
				 * process's last ticks, after its last
				 * good read, as it exited (its VM torn
				 * down under the reader) */
	uint64_t blocked_reused;/* stacks of blocked threads taken without stopping them */
	uint64_t woven;		/* --native: stacks woven */
	uint64_t weave_errors;	/* --native: stacks kept unwoven under a marker */
	uint64_t jit_ends;	/* --native: native stacks whose unwinding
				 * ended in JIT code (no unwind info there) */
	struct profile_times stop; /* each sample's stop: a Ruby tick's
				 * from the GVL holder's PTRACE_INTERRUPT
				 * to the last resume returning; a native
				 * thread's from its PTRACE_INTERRUPT */
	struct profile_times held; /* each thread's hold: from waitpid
				 * reporting its stop to PTRACE_CONT
				 * returning (the part of a stop the
				 * sampler's own work makes) */
	struct profile_times latency; /* each hold's interrupt latency:
				 * from PTRACE_INTERRUPT returning to
				 * waitpid reporting the stop */
	uint64_t per_state[PROFILE_STATES]; /* samples per state */
	uint64_t rereads;	/* Ruby reads checked against a second read */
	uint64_t torn;		/* ... that found the stacks changed */
	uint64_t unstopped;	/* --max-pause: Ruby ticks read without a
				 * stop, the budget spent */
	uint64_t torn_kept;	/* --nonblocking: stacks still changing after
				 * every re-read, kept to the root part the
				 * last two reads agree on, under [torn] */
	uint64_t gvl_transit;	/* ticks whose GVL found no owner while
				 * threads waited for it */
	uint64_t threads_left_out; /* --thread: stacks of threads that did
				 * not match, not taken */
	uint64_t round_ns_total; /* how long the ticks' rounds (every
				 * process once) took, for --debug */
	uint64_t round_ns_max;
	uint64_t rounds;
	uint64_t frame_limit;	/* frames folded into [frame limit] */
	uint64_t stacks_reused;	/* Ruby stacks copied, their thread asleep
				 * and idle since its last read */
	uint64_t string_sets;	/* times a Ruby reader let its labels go */
	uint64_t deferred;	/* Ruby ticks decoded after the resume, from
				 * what the stop prefetched */
	uint64_t deferred_refused; /* ... that needed a line the stop had
				 * not fetched: stopped again, read held */
	uint64_t frames_by_epoch; /* frames the GC's count vouched for */
	uint64_t frames_by_major; /* ... the major GCs' count alone */
	uint64_t names_unread;	/* frames whose owner's name failed */
	uint64_t types_kept;	/* eps' objects' types served unread */
	uint64_t threads_by_walk; /* idle threads taken whole from the last
				 * walk of the thread list */
	uint64_t records_again;	/* Ruby samples recorded as their thread's
				 * last stack, made of the same frames */
	uint64_t walk_refreshes; /* threads read again, their walk count
				  * come due (tid and name) */
	uint64_t walk_refresh_max; /* ... the most in one read */
	uint64_t woke_in_stop;	/* ... proven idle before the stop, woken
				 * by the check after it: dropped */
	uint64_t reused_by_switches; /* ... of them, proven so by the
				 * threads' switch logs */
	uint64_t switch_marks;	/* threads whose switch log had nothing yet,
				 * read asleep in their syscall file once */
	uint64_t lines_left_out; /* lines of idle threads' last reads kept
				  * out of the round's fetches */
	uint64_t warm_fetches;	/* fetches that warmed a hold (stop.c) */
	uint64_t warm_skipped;	/* ... left out, the host's CPUs contended */
	int cpu_pressure;	/* 1: the host's CPU pressure was read
				 * (run.c); 0: no /proc/pressure/cpu */
	uint64_t quiet_ticks;	/* ticks of a process none of whose threads
				 * ran since the last read: recorded again */
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
	bool weighted;		/* samples carry the time they stand for */
	bool complete;		/* a launched command followed until it
				 * exited: the whole of a fixed workload */
};

struct profile {
	struct intern *names;	/* the string pool */
	struct profile_frame *frames;
	size_t nframes, frames_cap;
	uint32_t max_frames;	/* 0: no cap; else new frames past it, or
				 * past its string cap, are [frame limit] */
	uint32_t limit_frame;	/* [frame limit]'s id + 1, 0 until made */
	uint32_t *frame_slots;	/* frame hash table: index + 1 */
	size_t nframe_slots;
	struct profile_stack *stacks;
	size_t nstacks, stacks_cap;
	/* Every sample in order (the timeline), kept unless keep_samples
	 * is false: a run whose outputs need only the stacks (collapsed,
	 * svg) keeps none, so its memory does not grow with its length
	 * (32 bytes a sample: 1.6 MB/s at 1000 Hz over 50 threads). */
	struct profile_sample *samples;
	size_t nsamples, samples_cap;
	bool keep_samples;	/* true from profile_create() */
	uint32_t *slots;	/* stack hash table: index + 1 */
	size_t nslots;
	struct profile_thread *threads;
	size_t nthreads, threads_cap;
	uint32_t *thread_slots;	/* thread hash table: index + 1 */
	size_t nthread_slots;
	struct profile_stats stats;
	struct profile_meta meta;
	uint64_t samples_dropped; /* loaded past LOAD_MAX_SAMPLES: counted
				   * in their stacks, not timed */
};

struct profile *profile_create(void);
void profile_destroy(struct profile *p);

/** Interns a string into the pool. */
uint32_t profile_str(struct profile *p, const char *s);
/** A pooled string; "" for PROFILE_NO_STR. */
const char *profile_str_get(const struct profile *p, uint32_t id);

/** Interns a frame that is only a name (PROFILE_FRAME_NAME). */
uint32_t profile_frame(struct profile *p, const char *name);
/** Interns a frame; equal descriptions give equal ids. Past max_frames
 * (or its string cap) a frame not seen yet is [frame limit], counted in
 * stats.frame_limit; both calls never add strings then. A stack with
 * it ends there (profile_add_count): a leaf. */
uint32_t profile_frame_make(struct profile *p,
			    const struct profile_frame_desc *d);
/**
 * Reads text, one frame of collapsed stacks, into d as what wrote it
 * (profile_frame_make, the native namer): "LABEL (FILE:LINE)" a Ruby
 * frame, "LABEL (FILE.rb)" one without its line, "SYMBOL (MODULE)" a
 * native frame, anything else a bare name (PROFILE_FRAME_NAME). d->text
 * is text, so the frame written again is the same; d->name and d->file
 * point into scratch, which must hold strlen(text) + 2 bytes.
 */
void profile_frame_parse(const char *text, struct profile_frame_desc *d,
			 char *scratch);
/** A frame by id. */
const struct profile_frame *profile_frame_get(const struct profile *p,
					      uint32_t id);
/** The text of a frame id, as collapsed output shows it. */
const char *profile_frame_name(const struct profile *p, uint32_t id);
/** The name of a kind ("ruby", "cfunc", "native"...) and of a state
 * (its LABEL: "running", "gc", "waiting for GVL"...). */
const char *profile_kind_name(enum profile_kind k);
const char *profile_state_name(enum profile_state s);
/** A state's row; an unknown value gives PROFILE_STATE_UNKNOWN's. */
const struct profile_state_desc *profile_state_desc(enum profile_state s);
/**
 * The leaf pseudo-frames of state s, root first, into leaf[] (the rest
 * NULL): its group's leaf, then its own. Returns how many.
 */
int profile_state_leaves(enum profile_state s,
			 const char *leaf[PROFILE_STATE_LEAVES]);
/**
 * The samples per state as the run's summary names them, into buf (cap
 * bytes, always terminated): "running N, garbage collection N (marking
 * N, sweeping N), waiting for GVL N, ..." (tests parse it). Returns buf.
 */
char *profile_state_summary(const uint64_t per_state[PROFILE_STATES],
			    char *buf, size_t cap);

/** A thread id as text into buf: the tid in decimal, or "mnN" for -N,
 * the number of an M:N Ruby thread (which has no tid of its own).
 * Returns buf. */
char *profile_thread_id(pid_t tid, char *buf, size_t cap);

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
/** The same with the time the sample stands for (a weighted profile). */
uint32_t profile_add_weighted(struct profile *p, uint64_t time_ns, pid_t pid,
			      pid_t tid, enum profile_state state,
			      uint64_t weight_ns, const uint32_t *frames,
			      size_t depth);
/** One more sample of stack s (an index profile_add_weighted() or
 * profile_add_count() returned), as profile_add_weighted() records it:
 * the same stack again without its frames looked up. */
void profile_add_again(struct profile *p, uint64_t time_ns, pid_t pid,
		       pid_t tid, enum profile_state state, uint64_t weight_ns,
		       uint32_t s);
/** Adds count samples of a stack without a timed record (for merges). */
uint32_t profile_add_count(struct profile *p, const uint32_t *frames,
			   size_t depth, uint64_t count);
/** The same with the time they stand for together. */
uint32_t profile_add_count_weight(struct profile *p, const uint32_t *frames,
				  size_t depth, uint64_t count,
				  uint64_t weight_ns);
/**
 * The time a sample, or all samples of a stack, stand for, in ns: the
 * recorded weights of a weighted profile (meta.weighted), else the
 * sampling period (1 / stats.rate_hz, 99 Hz when not known) per sample.
 */
uint64_t profile_period_ns(const struct profile *p);
uint64_t profile_sample_weight(const struct profile *p,
			       const struct profile_sample *s);
uint64_t profile_stack_weight(const struct profile *p,
			      const struct profile_stack *s);
/** Adds one duration to pt (stats.stop, .held, .latency). */
void profile_times_note(struct profile_times *pt, uint64_t ns);
/** The q-quantile (0..1) of pt's durations in ns, 0 when none: the
 * rank q * (n - 1), rounded, within 1.6% (exact below 128 ns, and for
 * q 0 and 1). */
uint64_t profile_times_quantile(const struct profile_times *pt, double q);
/** Frees pt's durations (its total and count stay). */
void profile_times_fini(struct profile_times *pt);

/** The time all samples stand for, ns (profile_stack_weight summed). */
uint64_t profile_weight_total(const struct profile *p);
/** Total samples counted. */
uint64_t profile_total(const struct profile *p);

#endif
