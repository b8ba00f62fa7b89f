/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * One tick: for each thread whose stack must be read, stop it (unless its
 * stack is provably frozen in a blocking syscall), read registers and
 * unwind through our memory module, resume it, and only then turn the
 * instruction pointers into frame names and record the sample. Runs on
 * the tracer thread. One sampler reads one process: with --subprocesses
 * each followed child gets its own (sampler_init_child).
 */
#ifndef RBFLAME_SAMPLER_H
#define RBFLAME_SAMPLER_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "rbflame/profile.h"
#include "rbflame/ruby.h"
#include "rbflame/target.h"

#define SAMPLER_MAX_FRAMES 512

struct mem;
struct symtab;
struct unwinder;
struct u64map;
struct ruby_reader;
struct ruby_stack;
struct sampler_native;
struct sample_mn;

#define TEXT_SLOTS 8192

/* A Ruby frame's text, formatted once: keyed by the reader's interned
 * label and path pointers and the line. */
struct text_slot {
	const char *label, *path;
	int line;
	bool used;
	uint32_t id;
};

/* How a sampler reads and records: the run's options that matter here. */
struct sampler_options {
	bool threads;		/* root stacks at their thread */
	bool function;		/* Ruby frames at the method's first line */
	bool cpu;		/* only threads on a CPU */
	bool nonblocking;	/* Ruby: never stop a thread, read twice */
	double max_pause;	/* Ruby: the share of wall time the process
				 * may spend stopped (0..1); ticks past it are
				 * read as with nonblocking; 0: no budget */
	bool subprocesses;	/* root stacks at 'process PID "CMD"' */
	bool native;		/* --native: weave native frames into Ruby
				 * stacks */
	bool native_all;	/* --native: keep the VM's frames */
	const char *force_version; /* read Ruby with this version's layout
				 * (not copied: must outlive the sampler) */
	const regex_t *thread_re; /* --thread: only threads whose name or
				 * tid matches; NULL: all (not copied) */
	uint64_t period_ns;	/* the requested interval between ticks */
};

/* What the target turned out to be. */
enum sampler_mode {
	SAMPLER_PENDING,	/* looking for a Ruby VM (startup, after exec) */
	SAMPLER_RUBY,		/* Ruby stacks read from the VM */
	SAMPLER_NATIVE,		/* not Ruby: native stacks */
};

struct sampler {
	struct target *t;
	pid_t pid;		/* the process this sampler reads */
	struct profile *prof;
	struct mem *mem;
	struct symtab *symtab;
	struct unwinder *unwinder;
	struct u64map *names;	/* ip << 1 | leaf -> frame id: the ip cache */
	uint32_t jit_id;	/* the [JIT] frame's id, when jit_made */
	bool jit_made;
	uint8_t *jit_named;	/* bit per frame id: JIT code a perf map
				 * named ('[yjit] A#m') */
	size_t jit_named_cap;	/* bytes of jit_named */
	struct text_slot *texts; /* Ruby frame -> frame id */
	/* The state leaves' frames ("(blocked)"...), by their static
	 * names: most samples end in one. */
	struct {
		const char *name;
		uint32_t id;
	} state_ids[8];
	int nstate_ids;
	uint64_t string_sets;	/* the reader's, when texts was last valid */
	bool trim_pending;	/* the reader let strings go: give the free
				 * memory back after the tick (malloc_trim) */
	struct sampler_options opt; /* children get their parent's */
	bool count_ticks;	/* this sampler's ticks are the run's ticks */
	char proc_root[256];	/* 'process PID "CMD"' */
	uint32_t proc_root_id;
	uint64_t proc_root_tick;
	bool have_proc_root;
	uint64_t start_ns;	/* the run's start: sample times count from it */
	uint64_t tick;
	uint64_t last_tick_ns;	/* when the last tick that sampled began */
	uint64_t tick_weight_ns; /* wall: what this tick's samples weigh */
	enum sampler_mode mode;
	uint64_t pending_since;	/* when the search for the VM (re)started */
	uint64_t pending_delay;	/* the main thread's run delay then (ns
				 * waited for a CPU; probe_elapsed()) */
	uint64_t next_probe;	/* when to look again */
	struct ruby_vm_search search; /* the VM search, across probes */
	struct ruby_vm vm;	/* the VM found (mode SAMPLER_RUBY) */
	struct ruby_reader *ruby;
	struct ruby_stack *stacks;
	int stacks_cap;
	int nstacks;		/* how many the last read filled */
	uint64_t reads;		/* sample_stacks_read() calls: a syscall
				 * file read during the last one is fresh */
	uint64_t read_t0;	/* when the last one began (now_ns()) */
	struct sample_mn *mn;	/* M:N threads' numbers, NULL until one */
	/* --nonblocking: the previous read's frames, root first, and whose
	 * they are (src/sample/ruby_tick.c) */
	struct nb_frame *nb;
	size_t nb_cap;
	struct nb_thread {
		uint64_t thread;	/* rb_thread_t * */
		size_t at;		/* its first frame in nb */
		int n;			/* its frames */
		uint64_t cfp;		/* its ec->cfp when read */
	} *nb_at;
	size_t nb_threads_cap;
	int nb_n;
	/* --max-pause: the stop time this process may still spend, ns (a
	 * debt when negative), and when it last grew */
	double pause_credit_ns;
	uint64_t pause_at_ns;
	uint64_t pause_last_ns;	/* what the last stop took */
	bool pause_said;	/* the budget's note printed */
	bool pause_decided;	/* sampler_tick_begin() asked the budget */
	bool pause_ok;		/* ... and what it said */
	/* Ruby ticks decoded once the target resumed (ruby_tick.c) */
	bool deferring;		/* this read is: stacks_keep() keeps none */
	/* The idle proofs taken before the holder's interrupt
	 * (sample_idle_proofs()), used by the tick's reads while
	 * proofs_open and checked again after it */
	uint64_t proofs_gen;
	bool proofs_open;
	bool same_on;		/* the reader copies idle threads' stacks
				 * (sample_stacks_same()) */
	uint64_t stopped_ticks;	/* ticks that stopped a holder: one in
				 * DEFER_KEEP_EVERY reads held, and keeps */
	uint32_t defer_skip;	/* stopped ticks left to read held after a
				 * deferred read was refused */
	uint32_t defer_backoff;	/* what the next refusal sets it to */
	struct sampler_native *nat; /* --native: its state, NULL until first
				 * used */
	struct target_thread *prestop; /* the GVL holder interrupted by
				 * sampler_tick_begin(), for the tick to
				 * wait for; NULL: none */
	/* A quiet process: none of its threads ran since the last tick's
	 * read, by its CPU clock (sample_quiet(), ruby_tick.c) */
	clockid_t cpu_clock;	/* the process's CLOCK_PROCESS_CPUTIME */
	bool cpu_clock_ok;
	bool quiet_asked;	/* this tick asked already ... */
	bool quiet;		/* ... and the answer */
	bool quiet_base_ok;	/* the last tick's read is exact, and ... */
	uint64_t quiet_base_ns;	/* ... the CPU time before it */
	uint64_t quiet_now_ns;	/* the CPU time before this tick's */
	struct sample_memo *memo; /* what the last read recorded, for a
				 * quiet tick to add again (ruby_tick.c) */
	bool cpu_contended;	/* set by the run loop each round: the
				 * host's CPUs were contended over the last
				 * second (no warm fetch, stop.c) */
	bool prestop_free;	/* sampler_tick_begin() found the GVL free
				 * and no thread waiting for it: its fetch
				 * and idle proofs are the tick's */
	/* reads failed since this process's last good one, and when the
	 * first of them was: an exit soon after makes them its teardown's
	 * (sampler_exited()) */
	uint64_t fail_streak;
	uint64_t fail_streak_ns;
	int fatal;		/* errno of an error that ends the run, 0 if none */
	char fatal_msg[768];	/* its one-line message */
};

/**
 * Sets up memory, symbols and unwinding for t's process, to record into
 * prof as opt says (copied), times counted from start_ns. On failure -1
 * with errno, and nothing left to free (sampler_fini() does no harm).
 */
int sampler_init(struct sampler *s, struct target *t, struct profile *prof,
		 const struct sampler_options *opt, uint64_t start_ns);
/**
 * Sets up s for pid, a child that parent's process forked: a copy of its
 * address space, so a Ruby parent's VM is the child's too (no search);
 * a child found running (target_adopt()) is searched like a new target.
 * Fails as sampler_init() does.
 */
int sampler_init_child(struct sampler *s, const struct sampler *parent,
		       pid_t pid);
/**
 * The first step of a tick that several processes take together: sends
 * PTRACE_INTERRUPT to the GVL holder of s's Ruby process (not one asleep
 * in a call an interrupt would make fail), so that every process's stop
 * is under way before any is waited for and the stops' latencies
 * overlap. sampler_tick() must follow in the same round: it waits for
 * that stop (or gives it up) before anything else.
 */
void sampler_tick_begin(struct sampler *s);
/** Samples every thread of the process once. */
void sampler_tick(struct sampler *s);

/* How long before its exit a process's reads may have failed for being
 * torn down: ~10 ms seen under load (4 ticks at 200 Hz), a second kept. */
#define SAMPLER_EXIT_TEARDOWN_NS (1000ull * 1000000ull)

/**
 * s's process has exited: the reads that failed after its last good one,
 * if the first was at most SAMPLER_EXIT_TEARDOWN_NS ago, move from
 * stats.failed to stats.exit_failed. A Ruby process spends its last
 * milliseconds tearing its VM down (threads, control frames and iseqs
 * freed under the reader): those ticks have nothing left to read, and
 * say nothing about the reads that came before. Idempotent.
 */
void sampler_exited(struct sampler *s);
void sampler_fini(struct sampler *s);

#endif
