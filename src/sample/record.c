// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * What a sample is made of: the frame ids of native addresses (the ip
 * cache, s->names) and of Ruby frames (formatted once), the roots ('process PID
 * "CMD"', 'thread TID "NAME"'), a Ruby thread's state as leaf
 * pseudo-frames, the per-thread state the ticks keep, and the sample
 * itself. Used by every tick; touches no thread (the cpu-mode check
 * reads a thread's schedstat file).
 */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/proc.h"
#include "rbflame/profile.h"
#include "rbflame/ruby.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/symtab.h"
#include "rbflame/u64map.h"
#include "rbflame/xmalloc.h"
#include "sample.h"

struct thread_priv *
sample_priv(struct target_thread *th)
{
	if (!th->priv)
		th->priv = xcalloc(1, sizeof(struct thread_priv));
	return th->priv;
}

/* --thread: the name (Thread#name, "main", a comm) or the tid in
 * decimal matches; an M:N Ruby thread's id (sample_ruby_tid()) is its
 * "mnN", not the tid of the moment. */
bool
sample_thread_wanted(const struct sampler *s, pid_t tid, const char *name)
{
	char num[24];

	if (!s->opt.thread_re)
		return true;
	if (name && name[0] &&
	    regexec(s->opt.thread_re, name, 0, NULL, 0) == 0)
		return true;
	profile_thread_id(tid, num, sizeof(num));
	return regexec(s->opt.thread_re, num, 0, NULL, 0) == 0;
}

/* --thread in a native process: the comm is read when first seen and
 * every NAME_REFRESH_TICKS ticks after (a thread may rename itself). */
bool
sample_native_wanted(struct sampler *s, struct target_thread *th)
{
	struct thread_priv *tp;
	char comm[64];

	if (!s->opt.thread_re)
		return true;
	tp = sample_priv(th);
	if (tp->want_known && s->tick - tp->want_tick < NAME_REFRESH_TICKS)
		return tp->want;
	if (proc_thread_comm(s->pid, th->tid, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	tp->want = sample_thread_wanted(s, th->tid, comm);
	tp->want_known = true;
	tp->want_tick = s->tick;
	return tp->want;
}

/* A thread of this sampler's process, by tid (a forked child's VM lists
 * its parent's threads until it has cleaned up after the fork). */
struct target_thread *
sample_own_thread(struct sampler *s, pid_t tid)
{
	struct target_thread *th = target_thread_find(s->t, tid);

	return th && th->pid == s->pid ? th : NULL;
}

/*
 * Whether a Ruby stack belongs to no thread of this process: the reader
 * says the thread is gone, or its tid is another process's. A child read
 * before it first ran (the kernel writes the child's tid into the forking
 * thread's struct pthread then) still names the parent's thread, and its
 * stack is only the fork point: not a sample of the child. A tid of 0
 * (unknown) is taken as it is.
 */
bool
sample_stray_stack(struct sampler *s, const struct ruby_stack *st)
{
	return st->gone || (st->tid && !sample_own_thread(s, st->tid));
}

/* cpu mode: is th on a CPU at this tick? running says what the kernel's
 * state says (not asleep in a syscall); its CPU time, read through the
 * schedstat file kept open since attach, must also have moved lately, so
 * a runnable thread that gets no CPU does not count either. Called for
 * every thread every tick, which keeps the last reading fresh. */
bool
sample_on_cpu(struct sampler *s, struct target_thread *th, bool running)
{
	struct thread_priv *tp = sample_priv(th);
	uint64_t ns, now = now_ns();

	/* Read for this read of the stacks already (stack_unchanged()):
	 * the same figure, not a second pread. */
	if (s->reads && tp->seen_read == s->reads)
		ns = tp->seen_ns;
	else if (th->schedstat_fd < 0 ||
		 proc_schedstat_read_fd(th->schedstat_fd, &ns) < 0)
		return running;
	if (!tp->cpu_known || ns != tp->cpu_ns) {
		tp->cpu_known = true;
		tp->cpu_ns = ns;
		tp->cpu_moved_ns = now;
	}
	return running && now - tp->cpu_moved_ns <= CPU_STALE_NS;
}

/* cpu mode charges each sample with the thread's CPU time since its
 * last sample (read by sample_on_cpu() this tick), so time the thread
 * ran between two samples, and a tick that came late, still count, and
 * a thread's samples add up to its CPU time. The first sample of a
 * thread, and a thread whose CPU time cannot be read, weigh the tick's
 * interval as in wall mode. */
uint64_t
sample_weight(struct sampler *s, struct target_thread *th)
{
	struct thread_priv *tp;
	uint64_t w;

	if (!s->opt.cpu || !th)
		return s->tick_weight_ns;
	tp = sample_priv(th);
	if (!tp->cpu_known)
		return s->tick_weight_ns;
	if (!tp->charged_known) {
		tp->charged_known = true;
		tp->charged_ns = tp->cpu_ns;
		return s->tick_weight_ns;
	}
	/* schedstat never goes back; if it did, weigh nothing. */
	w = tp->cpu_ns > tp->charged_ns ? tp->cpu_ns - tp->charged_ns : 0;
	tp->charged_ns = tp->cpu_ns;
	return w > MAX_WEIGHT_NS ? MAX_WEIGHT_NS : w;
}

/* 'WHAT ID "NAME"' ('thread TID "NAME"', 'process PID "CMD"') with '"'
 * and '\' escaped by a backslash and ';' as \x3b. A negative id is an
 * M:N thread's number (sample_ruby_tid()): 'thread mnN "NAME"'
 * (profile_thread_id()). */
static void
root_text(char *out, size_t cap, const char *what, pid_t id,
	  const char *name)
{
	char num[24];
	size_t o = snprintf(out, cap, "%s %s \"", what,
			    profile_thread_id(id, num, sizeof(num)));

	for (const char *c = name; *c && o + 6 < cap; c++) {
		if (*c == '"' || *c == '\\') {
			out[o++] = '\\';
			out[o++] = *c;
		} else if (*c == ';') {
			o += snprintf(out + o, 5, "\\x3b");
		} else {
			out[o++] = *c;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
}

/* 'process PID "CMD"', the root of every stack with --subprocesses; the
 * command line is read again now and then (servers retitle workers). */
void
sample_process_root(struct sampler *s)
{
	char cmd[200];

	if (s->have_proc_root &&
	    s->tick - s->proc_root_tick < NAME_REFRESH_TICKS)
		return;
	s->proc_root_tick = s->tick;
	if (proc_cmdline(s->pid, cmd, sizeof(cmd)) < 0) {
		if (s->have_proc_root)
			return;
		cmd[0] = '\0';
	}
	root_text(s->proc_root, sizeof(s->proc_root), "process", s->pid, cmd);
	s->proc_root_id = profile_frame_make(s->prof,
		&(struct profile_frame_desc){
			.kind = PROFILE_FRAME_PROCESS, .name = cmd,
			.text = s->proc_root,
		});
	s->have_proc_root = true;
}

/* The root frame of a thread, recording its name in the profile. */
static uint32_t
thread_frame(struct sampler *s, pid_t tid, const char *name,
	     const char *text)
{
	profile_thread_name(s->prof, s->pid, tid, name);
	return profile_frame_make(s->prof, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_THREAD, .name = name, .text = text,
	});
}

/* The root frame of a native thread, its comm re-read now and then. */
void
sample_thread_root(struct sampler *s, pid_t tid, struct thread_priv *tp)
{
	char comm[64];

	if (tp->have_root && s->tick - tp->root_tick < NAME_REFRESH_TICKS)
		return;
	if (proc_thread_comm(s->pid, tid, comm, sizeof(comm)) < 0 &&
	    tp->have_root)
		return;
	root_text(tp->root, sizeof(tp->root), "thread", tid, comm);
	tp->root_id = thread_frame(s, tid, comm, tp->root);
	tp->have_root = true;
	tp->root_tick = s->tick;
}

/*
 * M:N threads (ruby_vm.mn_threads): each Ruby thread but the main one
 * gets a number, kept for the run by its rb_thread_t, in the order
 * first seen (the VM lists threads in their creation order). Bounded:
 * past MN_MAX_THREADS threads seen, a new one is known by its tid.
 */
#define MN_MAX_THREADS (1u << 16)

struct sample_mn {
	struct u64map *numbers;	/* rb_thread_t * -> its number */
	uint32_t next;		/* the last number given */
};

void
sample_mn_destroy(struct sample_mn *m)
{
	if (!m)
		return;
	u64map_destroy(m->numbers);
	free(m);
}

void
sample_mn_forget(struct sample_mn *m)
{
	if (m)
		u64map_clear(m->numbers);
}

/* The number of Ruby thread th, given when first asked; 0 when the
 * table is full. */
static uint32_t
mn_number(struct sampler *s, uint64_t th)
{
	struct sample_mn *m = s->mn;
	uint32_t *id;
	bool found;

	if (!m) {
		m = s->mn = xcalloc(1, sizeof(*m));
		m->numbers = u64map_create();
	}
	if (u64map_count(m->numbers) >= MN_MAX_THREADS) {
		id = u64map_find(m->numbers, th);
		return id ? *id : 0;
	}
	id = u64map_slot(m->numbers, th, &found);
	if (!found)
		*id = ++m->next;
	return *id;
}

/* Numbers the threads of the last read that have none, in the VM's
 * order (their creation order), before any is recorded: a thread left
 * out of one tick (--thread, an unreadable stack) does not shift the
 * numbers of those after it. */
void
sample_mn_note(struct sampler *s)
{
	if (!s->vm.mn_threads)
		return;
	for (int i = 0; i < s->nstacks; i++)
		if (!s->stacks[i].main && s->stacks[i].thread)
			mn_number(s, s->stacks[i].thread);
}

/* The id a Ruby thread's samples carry: its tid, or under M:N (but the
 * main thread, which keeps its own native thread) minus its number, so
 * that one Ruby thread is one thread of the profile whichever native
 * thread ran it, or none. */
pid_t
sample_ruby_tid(struct sampler *s, const struct ruby_stack *st)
{
	uint32_t k;

	if (!s->vm.mn_threads || st->main || !st->thread)
		return st->tid;
	k = mn_number(s, st->thread);
	return k ? -(pid_t)k : st->tid;
}

bool
sample_mn_parked(const struct sampler *s, const struct ruby_stack *st)
{
	return s->vm.mn_threads && !st->main && !st->tid && !st->gone;
}

/* Whether another Ruby thread of this read has st's tid: under M:N the
 * native thread then runs that one, and its kernel state is not st's. */
static bool
tid_shared(const struct sampler *s, const struct ruby_stack *st)
{
	for (int i = 0; i < s->nstacks; i++)
		if (&s->stacks[i] != st && s->stacks[i].tid == st->tid)
			return true;
	return false;
}

/* The thread's state as leaf pseudo-frames (stackprof's GC names) and
 * as data. False when cpu mode leaves the thread out (off the CPU). */
bool
sample_stack_state(struct sampler *s, const struct ruby_stack *st,
	    const char *state[2], enum profile_state *pstate)
{
	char kstate = 'R';

	*pstate = PROFILE_STATE_RUNNING;
	switch (st->state) {
	case RUBY_STATE_GC_MARKING:
		*pstate = PROFILE_STATE_MARKING;
		break;
	case RUBY_STATE_GC_SWEEPING:
		*pstate = PROFILE_STATE_SWEEPING;
		break;
	case RUBY_STATE_GC:
		*pstate = PROFILE_STATE_GC;
		break;
	case RUBY_STATE_WAITING_GVL:
		*pstate = PROFILE_STATE_WAITING_GVL;
		kstate = 'S';
		break;
	case RUBY_STATE_NO_GVL:
		/* Sleeping in the kernel: blocked; on a CPU: a C extension
		 * working without the GVL. The thread's switch log tells
		 * which without a system call; without one, its syscall
		 * file, open since attach. */
		kstate = 'S';
		{
			struct target_thread *th =
			    sample_own_thread(s, st->tid);
			struct proc_syscall sc;

			/* M:N: a Ruby thread parked by the scheduler has
			 * no native thread (tid 0), or one that runs
			 * another Ruby thread: blocked either way. */
			if (s->vm.mn_threads && !st->main &&
			    (!st->tid || tid_shared(s, st)))
				th = NULL;
			int ks = th ? sample_switch_state(th) : -1;

			if (ks >= 0)
				kstate = (char)ks;
			else if (th && sample_syscall_now(s, th, &sc) == 0 &&
				 sc.kind == PSC_RUNNING)
				kstate = 'R';
		}
		*pstate = kstate == 'R' ? PROFILE_STATE_NO_GVL
					: PROFILE_STATE_BLOCKED;
		break;
	default:
		break;
	}
	profile_state_leaves(*pstate, state);
	if (s->opt.cpu) {
		/* The GVL holder runs (or collects garbage) as far as the
		 * kernel goes: its CPU time decides. */
		struct target_thread *th = sample_own_thread(s, st->tid);

		return th && sample_on_cpu(s, th, kstate == 'R');
	}
	return true;
}

/* The thread's root frame ('thread TID "NAME"' with --threads), or
 * PROFILE_NO_STR; records the thread's name either way. */
static uint32_t
ruby_thread_root(struct sampler *s, const struct ruby_stack *st)
{
	char root[160], comm[64];
	const char *name = st->name;
	pid_t id = sample_ruby_tid(s, st);

	if (!s->opt.threads) {
		profile_thread_name(s->prof, s->pid, id, st->name);
		return PROFILE_NO_STR;
	}
	/* An M:N thread's native thread is not its own: nor is its comm. */
	if (!name[0] && id > 0 &&
	    proc_thread_comm(s->pid, st->tid, comm, sizeof(comm)) == 0)
		name = comm;
	root_text(root, sizeof(root), "thread", id, name);
	return thread_frame(s, id, name, root);
}

uint32_t
sample_native_frame_id(struct sampler *s, const struct symtab_frame *fr,
		       const char *text)
{
	uint32_t id = profile_frame_make(s->prof, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_NATIVE,
		.name = fr->symbol,
		.file = fr->module,
		.build_id = fr->build_id[0] ? fr->build_id : NULL,
		.addr = fr->addr,
		.text = text,
	});

	if (fr->jit) {
		s->jit_id = id;
		s->jit_made = true;
	} else if (fr->jit_named) {
		size_t old = s->jit_named_cap;

		s->jit_named = xgrowarray(s->jit_named, &s->jit_named_cap,
					  id / 8 + 1, 1);
		memset(s->jit_named + old, 0, s->jit_named_cap - old);
		s->jit_named[id / 8] |= (uint8_t)(1u << (id % 8));
	}
	return id;
}

bool
sample_frame_is_jit(const struct sampler *s, uint32_t id)
{
	if (s->jit_made && id == s->jit_id)
		return true;
	return id / 8 < s->jit_named_cap &&
	       (s->jit_named[id / 8] >> (id % 8) & 1);
}

/* The frame id of one Ruby frame. */
uint32_t
sample_ruby_frame_id(struct sampler *s, const struct ruby_frame *f)
{
	int line = s->opt.function ? f->first_line : f->line;
	/* The reader interns labels and paths: their pointers and the
	 * line identify the text, so it is formatted once. */
	uint64_t h = ((uintptr_t)f->label * 0x9e3779b97f4a7c15ull) ^
		     ((uintptr_t)f->path * 0xc2b2ae3d27d4eb4full) ^
		     (uint64_t)(uint32_t)line;
	struct text_slot *ts = &s->texts[(h >> 40) % TEXT_SLOTS];

	if (ts->label != f->label || ts->path != f->path ||
	    ts->line != line || !ts->used) {
		ts->label = f->label;
		ts->path = f->path;
		ts->line = line;
		ts->used = true;
		ts->id = profile_frame_make(s->prof,
			&(struct profile_frame_desc){
				.kind = !f->path ? PROFILE_FRAME_MARKER
					: f->cfunc ? PROFILE_FRAME_CFUNC
						   : PROFILE_FRAME_RUBY,
				.name = f->label,
				.file = f->path,
				.line = f->path ? line : 0,
			});
	}
	return ts->id;
}

/* The roots of a Ruby thread's stacks into frames: the process with
 * --subprocesses, the thread with --threads. Returns how many. */
size_t
sample_ruby_roots(struct sampler *s, const struct ruby_stack *st,
		  uint32_t *frames)
{
	uint32_t root = ruby_thread_root(s, st);
	size_t d = 0;

	if (s->opt.subprocesses) {
		sample_process_root(s);
		frames[d++] = s->proc_root_id;
	}
	if (root != PROFILE_NO_STR)
		frames[d++] = root;
	return d;
}

static void record_as(struct sampler *s, const struct ruby_stack *st,
		      struct target_thread *th, enum profile_state pstate,
		      uint32_t stack);

/* A digest of what a Ruby stack's frame ids are made of (labels and
 * paths are interned: their pointers stand for their texts within one
 * set of strings). */
static uint64_t
frames_digest(const struct ruby_stack *st)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(uint32_t)st->nframes;

	for (int i = 0; i < st->nframes; i++) {
		const struct ruby_frame *f = &st->frames[i];

		h = (h ^ (uintptr_t)f->label) * 0x100000001b3ull;
		h = (h ^ (uintptr_t)f->path) * 0x100000001b3ull;
		h = (h ^ ((uint64_t)(uint32_t)f->line << 32 |
			  (uint32_t)f->first_line)) * 0x100000001b3ull;
		h = (h ^ f->cfunc) * 0x9e3779b97f4a7c15ull;
	}
	return h;
}

/* Whether tp's last sample was made of the same frames, state and
 * roots as this one (struct thread_priv's rec_*). */
static bool
record_same(const struct sampler *s, const struct thread_priv *tp,
	    const struct ruby_stack *st, uint64_t digest,
	    enum profile_state pstate, const char *const state[2],
	    const uint32_t *roots, size_t nroots)
{
	return tp->rec_ok && tp->rec_sets == s->string_sets &&
	       tp->rec_nframes == st->nframes && tp->rec_digest == digest &&
	       tp->rec_pstate == pstate && tp->rec_state[0] == state[0] &&
	       tp->rec_state[1] == state[1] && tp->rec_nroots == nroots &&
	       memcmp(tp->rec_roots, roots, nroots * sizeof(*roots)) == 0;
}

/* Records one Ruby stack (innermost first in st) as a sample, with the
 * thread's state as leaf pseudo-frames (stackprof's GC names). In cpu
 * mode, a thread off the CPU is not sampled. A thread's sample made of
 * the same frames, state and roots as its last (a server's idle pool:
 * 40 of 47 threads in every tick) is that stack again: its frame ids
 * and its stack are not looked up (under bench/server's loaded Puma
 * those lookups, 2,700 frames a tick, were some 5% of rbflame's CPU:
 * the text slots, the frames' strings, the stack's hash and compare). */
void
sample_record_ruby(struct sampler *s, const struct ruby_stack *st)
{
	uint32_t frames[RUBY_MAX_FRAMES + 5];
	const char *state[2];
	enum profile_state pstate;
	size_t d = sample_ruby_roots(s, st, frames), nroots = d;
	struct target_thread *th;
	struct thread_priv *tp = NULL;
	uint64_t digest = 0;
	uint32_t stack;

	if (!sample_stack_state(s, st, state, &pstate))
		return;
	th = st->tid ? sample_own_thread(s, st->tid) : NULL;
	if (th && nroots <= sizeof(tp->rec_roots) / sizeof(tp->rec_roots[0])) {
		tp = sample_priv(th);
		digest = frames_digest(st);
		if (record_same(s, tp, st, digest, pstate, state, frames,
				nroots)) {
			record_as(s, st, th, pstate, tp->rec_stack);
			s->prof->stats.records_again++;
			return;
		}
	}
	for (int i = st->nframes - 1; i >= 0; i--)
		frames[d++] = sample_ruby_frame_id(s, &st->frames[i]);
	stack = sample_record_stack(s, st, state, pstate, frames, d);
	if (!tp)
		return;
	tp->rec_ok = true;
	tp->rec_sets = s->string_sets;
	tp->rec_stack = stack;
	tp->rec_digest = digest;
	tp->rec_nframes = st->nframes;
	tp->rec_pstate = pstate;
	tp->rec_state[0] = state[0];
	tp->rec_state[1] = state[1];
	tp->rec_nroots = nroots;
	memcpy(tp->rec_roots, frames, nroots * sizeof(*frames));
}

/* The frame of a state leaf, by its static name (profile_state_leaves()):
 * made once. A server's blocked threads end nearly every sample in one:
 * made each time (two string hashes), profile_frame_make() took 3.5% of
 * rbflame's CPU under bench/server's Puma (perf), 2.1% after (the frames
 * of Ruby texts not seen before). */
static uint32_t
state_frame_id(struct sampler *s, const char *name)
{
	int n = s->nstate_ids;
	uint32_t id;

	for (int i = 0; i < n; i++)
		if (s->state_ids[i].name == name)
			return s->state_ids[i].id;
	id = profile_frame_make(s->prof, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_STATE, .name = name,
	});
	if (n < (int)(sizeof(s->state_ids) / sizeof(s->state_ids[0]))) {
		s->state_ids[n].name = name;
		s->state_ids[n].id = id;
		s->nstate_ids = n + 1;
	}
	return id;
}

/* Keeps a sample in the memo (struct sample_memo). */
static void
memo_add(struct sample_memo *m, pid_t tid, enum profile_state pstate,
	 uint32_t stack)
{
	if (m->nrecs == m->recs_cap) {
		m->recs_cap = m->recs_cap * 2 + 16;
		m->recs = xrealloc(m->recs, m->recs_cap * sizeof(*m->recs));
	}
	m->recs[m->nrecs++] = (struct sample_memo_rec){
		.tid = tid, .pstate = pstate, .stack = stack,
	};
}

/* Records a sample of st's thread th (NULL: none of ours) as the
 * profile's stack of index stack (and keeps it in the memo while one is
 * on): the one place a Ruby sample is added. */
static void
record_as(struct sampler *s, const struct ruby_stack *st,
	  struct target_thread *th, enum profile_state pstate, uint32_t stack)
{
	pid_t tid = sample_ruby_tid(s, st);

	profile_add_again(s->prof, now_ns() - s->start_ns, s->pid, tid, pstate,
			  sample_weight(s, th), stack);
	if (s->memo && s->memo->on)
		memo_add(s->memo, tid, pstate, stack);
}

/* Ends frames[0..d) with the state's leaf pseudo-frames and records it
 * (and keeps it in the memo while one is on): its stack. */
uint32_t
sample_record_stack(struct sampler *s, const struct ruby_stack *st,
	     const char *const state[2], enum profile_state pstate,
	     uint32_t *frames, size_t d)
{
	uint32_t stack;

	for (int i = 0; i < 2 && state[i]; i++)
		frames[d++] = state_frame_id(s, state[i]);
	stack = profile_add_count(s->prof, frames, d, 0);
	record_as(s, st, sample_own_thread(s, st->tid), pstate, stack);
	return stack;
}


void
sample_memo_begin(struct sampler *s)
{
	if (!s->memo)
		s->memo = xcalloc(1, sizeof(*s->memo));
	s->memo->nrecs = 0;
	s->memo->left_out = s->prof->stats.threads_left_out;
	s->memo->on = true;
}

void
sample_memo_end(struct sampler *s)
{
	struct sample_memo *m = s->memo;

	m->on = false;
	m->left_out = s->prof->stats.threads_left_out - m->left_out;
}

bool
sample_memo_replay(struct sampler *s)
{
	const struct sample_memo *m = s->memo;
	uint64_t t;

	/* The process's command line is due to be read again (servers
	 * retitle their processes: sample_process_root()): a record. */
	if (!m ||
	    (s->have_proc_root &&
	     s->tick - s->proc_root_tick >= NAME_REFRESH_TICKS))
		return false;
	t = now_ns() - s->start_ns;
	for (size_t i = 0; i < m->nrecs; i++)
		profile_add_again(s->prof, t, s->pid, m->recs[i].tid,
				  m->recs[i].pstate, s->tick_weight_ns,
				  m->recs[i].stack);
	s->prof->stats.threads_left_out += m->left_out;
	return true;
}

void
sample_memo_destroy(struct sample_memo *m)
{
	if (!m)
		return;
	free(m->recs);
	free(m);
}
