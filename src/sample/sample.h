/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The sampler's insides, shared by its files and by nothing else:
 * sampler.c (lifecycle, tick dispatch) calls one tick per mode,
 * ruby_tick.c, native_tick.c or woven_tick.c; they stop threads through
 * stop.c and turn what they read into samples through record.c.
 */
#ifndef RBFLAME_SAMPLE_H
#define RBFLAME_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rbflame/proc.h"
#include "rbflame/profile.h"
#include "rbflame/ruby.h"
#include "rbflame/sampler.h"
#include "rbflame/target.h"

#define STOP_TIMEOUT_NS (200ull * 1000000ull)
#define GVL_RETRIES 3
/* Threads one tick may hold stopped: the holders of its retries and the
 * threads waiting for a GVL in transit (see stop_waiters()). */
#define GVL_MAX_HELD (GVL_RETRIES + 1 + 8)
/* A GVL in transit (no owner, threads waiting, none stopped yet): how
 * long and how many reads to wait for its next holder (see gvl_owner()). */
#define GVL_SPIN_NS (500ull * 1000ull)
#define GVL_SPIN_READS 256
#define GVL_SPIN_YIELDS 8	/* reads a yield apart, then a nap apart */
#define GVL_SPIN_NAP_NS (20ull * 1000ull)
#define NAME_REFRESH_TICKS 64
/* cpu mode: a thread whose CPU time has not moved for this long is not on
 * a CPU, whatever its kernel state (longer than the kernel's accounting
 * tick, so a running thread's time has moved within it). */
#define CPU_STALE_NS (12ull * 1000000ull)
/* The most one sample may stand for: a bound on garbage (a clock step, a
 * counter that went back), far above any real tick's lateness. */
#define MAX_WEIGHT_NS (10ull * 1000000000ull)

/* A thread's state kept across ticks (th->priv). */
struct thread_priv {
	char root[160];		/* 'thread TID "NAME"' */
	uint32_t root_id;	/* its frame */
	uint64_t root_tick;	/* when the name was last read */
	bool have_root;
	/* The stack of the last blocking syscall seen. */
	bool cached;
	struct proc_syscall sc;
	uint64_t probe_hash;
	uint64_t ips[SAMPLER_MAX_FRAMES];
	int nips;
	/* --thread, native process: whether its comm or tid matches */
	bool want, want_known;
	uint64_t want_tick;
	/* Its last Ruby stack read fresh (frames[0..nframes) allocated),
	 * and its CPU time just before (stack_unchanged()); seen_ns: the
	 * CPU time read for the read under way. */
	struct ruby_stack *last;
	int last_cap;
	bool last_ok, seen;
	uint64_t last_ns, seen_ns;
	uint64_t seen_read;	/* s->reads when seen_ns was read */
	/* Proven off its CPU with last_ns since the stack was read, having
	 * been put on one idle_slices times: while both stay, it was not
	 * put on one again. */
	bool idle;
	uint64_t idle_slices;
	/* Its idle proof taken before the holder's interrupt, for the
	 * tick of s->proofs_gen: the stack it gave (NULL: none) and the
	 * CPU time read for it; used: a read took the stack from it, to
	 * be checked again after the tick (sample_idle_recheck()). */
	/* With a switch log: the moment it went off its CPU, before the
	 * read of last began (0: it did not, or the log cannot say). */
	uint64_t last_off;
	uint64_t proof_gen;
	const struct ruby_stack *proof;
	uint64_t proof_ns;
	bool proof_used;
	/* What its syscall file said during read number sc_read (s->reads),
	 * for the state of its sample. */
	struct proc_syscall sc_now;
	uint64_t sc_read;
	/* cpu mode: the thread's CPU time and when it last moved */
	bool cpu_known;
	uint64_t cpu_ns, cpu_moved_ns;
	/* cpu mode: the CPU time the thread's samples have accounted for */
	bool charged_known;
	uint64_t charged_ns;
	/* Its last Ruby sample (sample_record_ruby()): the profile's stack,
	 * and what it was made of: the frames' digest and count in the
	 * reader's set of strings rec_sets, the state's leaves, the roots.
	 * A sample made of the same is that stack again. */
	bool rec_ok;
	uint32_t rec_stack;
	uint64_t rec_digest, rec_sets;
	int rec_nframes;
	enum profile_state rec_pstate;
	const char *rec_state[2];
	uint32_t rec_roots[2];
	size_t rec_nroots;
};

/* ---- the ticks: one per sampler mode ---------------------------------- */

/** Ruby: every Ruby thread's stack, the GVL holder stopped. */
void sample_ruby_tick(struct sampler *s);
/**
 * Whether none of the process's threads ran since the last tick's read
 * (an exact one), asked once a tick: then that read's stacks are this
 * tick's too, and sample_ruby_tick() records them again without reading.
 */
bool sample_quiet(struct sampler *s);
/** Not Ruby: every thread's native stack, each in a short stop. */
void sample_native_tick(struct sampler *s);
/** --native in a Ruby process: Ruby and native stacks woven. */
void sample_woven_tick(struct sampler *s);
/** Frees the --native state (NULL is fine). */
void sample_woven_destroy(struct sampler_native *n);

/* ---- record.c: frame ids, roots, states, samples ----------------------- */

/** M:N threads' numbers (sample_ruby_tid()): freed with the sampler,
 * forgotten with its process image (the numbers go on). NULL is fine. */
void sample_mn_destroy(struct sample_mn *m);
void sample_mn_forget(struct sample_mn *m);
/** Under M:N, numbers the threads of the last read (s->stacks) that
 * have none yet, in the VM's order. */
void sample_mn_note(struct sampler *s);
/** The id a Ruby thread's samples carry: its tid, or under M:N (but the
 * main thread) minus its number, the same whatever native thread runs
 * it. */
pid_t sample_ruby_tid(struct sampler *s, const struct ruby_stack *st);

/** th's per-thread state, made on first use (freed when th goes). */
struct thread_priv *sample_priv(struct target_thread *th);
/** --thread: whether the thread tid named name (may be "") is sampled. */
bool sample_thread_wanted(const struct sampler *s, pid_t tid,
			  const char *name);
/** --thread: whether th, a thread of a native process, is sampled (its
 * comm re-read now and then). */
bool sample_native_wanted(struct sampler *s, struct target_thread *th);
/** A thread of s's process by tid, NULL if none. */
struct target_thread *sample_own_thread(struct sampler *s, pid_t tid);
/** Whether a Ruby stack belongs to no thread of s's process. */
bool sample_stray_stack(struct sampler *s, const struct ruby_stack *st);
/** cpu mode: whether th is on a CPU (running: the kernel says so). */
bool sample_on_cpu(struct sampler *s, struct target_thread *th, bool running);
/** The time a sample of th taken now stands for: the tick's interval
 * (wall), th's CPU time since its last sample (cpu mode). */
uint64_t sample_weight(struct sampler *s, struct target_thread *th);
/** Sets s->proc_root_id, 'process PID "CMD"' (--subprocesses). */
void sample_process_root(struct sampler *s);
/** Sets tp->root_id, a native thread's 'thread TID "NAME"'. */
void sample_thread_root(struct sampler *s, pid_t tid, struct thread_priv *tp);
/** A Ruby thread's state as leaf pseudo-frames and as data; false when
 * cpu mode leaves the thread out. */
bool sample_stack_state(struct sampler *s, const struct ruby_stack *st,
			const char *state[2], enum profile_state *pstate);
struct symtab_frame;
/** The frame id of one native frame, fr as symtab_frame_info() filled
 * it and text the name it wrote (or the caller's better one). */
uint32_t sample_native_frame_id(struct sampler *s,
				const struct symtab_frame *fr,
				const char *text);
/** Is id the [JIT] frame, or JIT code a perf map named? A run of one
 * such frame is recorded as one: every unnamed JIT address has the same
 * name, and a stack through JIT code unwinds by guesses, so how many
 * frames it shows means nothing; a walk that ends in either is counted
 * as ended in JIT code. */
bool sample_frame_is_jit(const struct sampler *s, uint32_t id);
/** The frame id of one Ruby frame. */
uint32_t sample_ruby_frame_id(struct sampler *s, const struct ruby_frame *f);
/** A Ruby stack's root frames into frames; how many. */
size_t sample_ruby_roots(struct sampler *s, const struct ruby_stack *st,
			 uint32_t *frames);
/** Records a Ruby stack as a sample: its roots, frames and state (in cpu
 * mode, not when off the CPU). */
void sample_record_ruby(struct sampler *s, const struct ruby_stack *st);
/** An M:N thread the scheduler parks: no native thread runs it, so it
 * has no native stack. */
bool sample_mn_parked(const struct sampler *s, const struct ruby_stack *st);
/*
 * The samples a tick recorded, kept while s->memo->on (sample_record_stack()
 * appends): a quiet tick adds them again (sample_memo_replay()), no
 * frame looked up, state read or root made.
 */
struct sample_memo {
	struct sample_memo_rec {
		pid_t tid;
		enum profile_state pstate;
		uint32_t stack;	/* the profile's stack it was */
	} *recs;
	size_t nrecs, recs_cap;
	uint64_t left_out;	/* threads --thread left out */
	bool on;		/* recording */
};
/** Starts keeping the tick's samples (s->memo made on first use). */
void sample_memo_begin(struct sampler *s);
/** Stops keeping them. */
void sample_memo_end(struct sampler *s);
/** Adds the memo's samples again at this tick's weight, for a quiet
 * tick (whose base read is the memo's: only an exact read keeps one);
 * false, nothing added, when there is none yet or the process's root is
 * due to be read again (a record makes it). */
bool sample_memo_replay(struct sampler *s);
void sample_memo_destroy(struct sample_memo *m);
/** Ends frames[0..d) with the state's leaf frames and records it: the
 * profile's stack it is. */
uint32_t sample_record_stack(struct sampler *s, const struct ruby_stack *st,
			     const char *const state[2],
			     enum profile_state pstate, uint32_t *frames,
			     size_t d);

/* ---- stop.c: stopping threads and reading them ------------------------- */

/** Whether a and b are the same blocking syscall at the same sp and pc. */
bool sample_same_block(const struct proc_syscall *a,
		       const struct proc_syscall *b);
/** The stack of th asleep in the non-restartable call sc, never
 * interrupted: the count, or -1 if the block ended meanwhile. */
int sample_unwind_blocked(struct sampler *s, struct target_thread *th,
			  const struct proc_syscall *sc, uint64_t *ips);
/** Waits for th's stop (interrupted), unwinds, resumes: the count (<= 0:
 * none); *stop_ns: the stop's length, 0 when it never stopped. */
int sample_unwind_stopped(struct sampler *s, struct target_thread *th,
			  uint64_t *ips, uint64_t *stop_ns);

/* The GVL holder's stop, as the Ruby and the woven tick take it. */
struct gvl_hold {
	bool keep;		/* holders that let the GVL go before their
				 * stop landed stay stopped too, and so do
				 * the takers of a GVL in transit */
	bool prefetch;		/* each retry first fetches what the last
				 * round read, in one go */
	struct target_thread *v[GVL_MAX_HELD]; /* stopped; without keep,
						 * the holder alone */
	int n;
	bool frozen;		/* a thread we hold owns the GVL */
	bool hot;		/* this round's lines are being recorded
				 * (mem_hot_begin()), last round's fetched */
};

/** Stops the GVL holder (see struct gvl_hold); h->frozen: it worked. */
void sample_gvl_hold(struct sampler *s, struct gvl_hold *h);
/** --max-pause: whether this tick can afford to stop the process (it
 * accrues the budget's credit up to now). */
bool sample_pause_affordable(struct sampler *s, uint64_t now);
/** The GVL holder sent PTRACE_INTERRUPT, not waited for (see
 * sampler_tick_begin()); NULL if none was. */
struct target_thread *sample_gvl_prestop(struct sampler *s);
/** Resumes what sample_gvl_hold() stopped. */
void sample_gvl_release(struct sampler *s, struct gvl_hold *h);
/**
 * The idle proofs of the threads of the last read, taken before the
 * holder's interrupt, for this tick's reads to use; after them,
 * sample_idle_recheck() over the n stacks of the last read drops those
 * whose thread woke meanwhile.
 */
void sample_idle_proofs(struct sampler *s);
void sample_idle_recheck(struct sampler *s, int n);
/** Reads every Ruby stack into s->stacks: the count, or -1. */
int sample_stacks_read(struct sampler *s);
/** th's syscall file, as read during the last read of the stacks or now. */
/** Whether th's switch log says it is on a CPU or waiting for one
 * (false: it sleeps, or it has no log, or the log cannot say). */
bool sample_switch_running(struct target_thread *th);
/** th's kernel state from its switch log: 'R' (on a CPU, or runnable),
 * 'S' (asleep), -1 (no log, or it cannot say). */
int sample_switch_state(struct target_thread *th);
int sample_syscall_now(struct sampler *s, struct target_thread *th,
		       struct proc_syscall *sc);
/** Lets the reader copy the stacks of threads idle since their last
 * read (ruby_reader_set_same()); called once the reader is made. */
void sample_stacks_same(struct sampler *s);
/** After a tick that read n stacks: grows s->stacks if it was full. */
void sample_stacks_grow(struct sampler *s, int n);
/** A digest of n stacks: equal digests, nothing ran Ruby in between. */
uint64_t sample_stacks_digest(const struct ruby_stack *st, int n);

#endif
