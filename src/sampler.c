// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A sampler's life and its tick: set up memory, symbols and unwinding for
 * one process, look for its Ruby VM, start over after an exec, and at
 * each tick hand over to the tick of its mode: src/sample/ruby_tick.c,
 * native_tick.c (not Ruby) or woven_tick.c (--native in a Ruby process).
 */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rbflame/error.h"
#include "rbflame/mem.h"
#include "rbflame/proc.h"
#include "rbflame/ruby.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/symtab.h"
#include "rbflame/u64map.h"
#include "rbflame/unwind.h"
#include "rbflame/xmalloc.h"
#include "sample/sample.h"

#define PROBE_EVERY_NS (50ull * 1000000ull)	/* look for the VM again */
#define PROBE_FOR_NS (3000ull * 1000000ull)	/* then decide */
#define SYMBOLS_WAIT_NS (1000ull * 1000000ull) /* for the symbol table
				 * of a VM found without one */
/* Scan time one probe may take: the target's signals wait for the event
 * loop, which runs between probes (issue #20: 1.6 s without a cap). */
#define PROBE_BUDGET_NS (10ull * 1000000ull)

/* The search's budget a call: PROBE_BUDGET_NS, or for tests the
 * microseconds of RBFLAME_PROBE_BUDGET_US (a host too slow for it). */
static uint64_t
probe_budget(void)
{
	const char *us = getenv("RBFLAME_PROBE_BUDGET_US");

	if (us && *us && strtoull(us, NULL, 10) > 0)
		return strtoull(us, NULL, 10) * 1000ull;
	return PROBE_BUDGET_NS;
}

static void
thread_gone(struct target_thread *th, void *arg)
{
	if (th->priv)
		free(((struct thread_priv *)th->priv)->last);
	free(th->priv);
	th->priv = NULL;
}

/* A hold of ours is over: both its parts go to the profile's stats. */
static void
thread_held(const struct target_thread *th, uint64_t latency_ns,
	    uint64_t held_ns, void *arg)
{
	struct profile *prof = arg;

	profile_times_note(&prof->stats.latency, latency_ns);
	profile_times_note(&prof->stats.held, held_ns);
}

static int
setup_process(struct sampler *s)
{
	pid_t pid = s->pid;

	s->mode = SAMPLER_PENDING;
	s->pending_since = now_ns();
	if (proc_run_delay(pid, &s->pending_delay) < 0)
		s->pending_delay = 0;
	s->next_probe = 0;
	memset(&s->search, 0, sizeof(s->search));
	s->search.budget_ns = probe_budget();
	s->search.symbols_wait_ns = SYMBOLS_WAIT_NS;

	/* Any process's CPU clock can be read (the kernel checks nothing),
	 * a thread's only in its own process. */
	s->cpu_clock_ok = clock_getcpuclockid(pid, &s->cpu_clock) == 0;
	s->quiet_base_ok = false;
	s->mem = mem_create_live(pid);
	s->symtab = symtab_create(pid);
	if (!s->symtab)
		return -1;
	s->unwinder = unwind_create(pid, s->mem, s->symtab);
	if (!s->unwinder)
		return -1;
	return 0;
}

static void
teardown_process(struct sampler *s)
{
	ruby_reader_destroy(s->ruby);
	s->ruby = NULL;
	/* Its threads are gone; their numbers are not given again. */
	sample_mn_forget(s->mn);
	/* --native: names and the VM's file belong to the old image. */
	sample_woven_destroy(s->nat);
	s->nat = NULL;
	/* Its interned strings die with it: forget texts keyed by them. */
	if (s->texts)
		memset(s->texts, 0, TEXT_SLOTS * sizeof(*s->texts));
	if (s->unwinder)
		unwind_destroy(s->unwinder);
	if (s->symtab)
		symtab_destroy(s->symtab);
	mem_destroy(s->mem);
	s->unwinder = NULL;
	s->symtab = NULL;
	s->mem = NULL;
}

/* setup_process() for a new sampler, which a failure frees again. */
static int
setup_or_undo(struct sampler *s)
{
	int err;

	if (setup_process(s) == 0)
		return 0;
	err = errno;
	sampler_fini(s);
	errno = err;
	return -1;
}

int
sampler_init(struct sampler *s, struct target *t, struct profile *prof,
	     const struct sampler_options *opt, uint64_t start_ns)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->pid = t->pid;
	s->count_ticks = true;
	s->prof = prof;
	s->opt = *opt;
	s->start_ns = start_ns;
	s->names = u64map_create();
	s->texts = xcalloc(TEXT_SLOTS, sizeof(*s->texts));
	t->thread_gone = thread_gone;
	t->thread_gone_arg = s;
	t->thread_held = thread_held;
	t->thread_held_arg = prof;
	t->exec_seen = false;
	if (target_process_find(t, s->pid))
		target_process_find(t, s->pid)->exec_seen = false;
	return setup_or_undo(s);
}

int
sampler_init_child(struct sampler *s, const struct sampler *parent,
		   pid_t pid)
{
	const struct target_process *p;

	memset(s, 0, sizeof(*s));
	s->t = parent->t;
	s->pid = pid;
	s->prof = parent->prof;
	s->opt = parent->opt;
	s->start_ns = parent->start_ns;
	s->names = u64map_create();
	s->texts = xcalloc(TEXT_SLOTS, sizeof(*s->texts));
	if (setup_or_undo(s) < 0)
		return -1;
	p = target_process_find(s->t, pid);
	if (p && p->adopted)
		return 0;	/* found running: it may have exec'd since */
	if (parent->mode == SAMPLER_RUBY) {
		/* fork copies the address space: same VM, same addresses. */
		s->vm = parent->vm;
		s->ruby = ruby_reader_create(&s->vm, s->mem, s->pid);
		sample_stacks_same(s);
		s->mode = SAMPLER_RUBY;
		/* Its own map: what YJIT compiles from now on (what it
		 * compiled before the fork is in the parent's alone). */
		symtab_name_jit(s->symtab, "yjit");
	} else if (parent->mode == SAMPLER_NATIVE) {
		s->mode = SAMPLER_NATIVE;
	}
	return 0;
}

void
sampler_fini(struct sampler *s)
{
	teardown_process(s);
	u64map_destroy(s->names);
	s->names = NULL;
	free(s->texts);
	s->texts = NULL;
	free(s->jit_named);
	s->jit_named = NULL;
	s->jit_named_cap = 0;
	free(s->stacks);
	s->stacks = NULL;
	free(s->nb);
	s->nb = NULL;
	free(s->nb_at);
	s->nb_at = NULL;
	sample_mn_destroy(s->mn);
	s->mn = NULL;
	sample_memo_destroy(s->memo);
	s->memo = NULL;
}

/* True while the dynamic loader is mapped but libc is not: the
 * program's libraries (libruby among them) are still being loaded. */
static bool
loader_busy(pid_t pid)
{
	bool ld = false, libc = false;
	struct maps mp;

	if (proc_maps_read(pid, &mp) < 0)
		return false;
	for (size_t i = 0; i < mp.n; i++) {
		const char *p = mp.v[i].path, *b;

		if (!p || !(b = strrchr(p, '/')))
			continue;
		ld |= !strncmp(b + 1, "ld-linux", 8) || !strncmp(b + 1, "ld-", 3);
		libc |= !strncmp(b + 1, "libc.so", 7) ||
			!strncmp(b + 1, "libc-", 5);
	}
	maps_free(&mp);
	return ld && !libc;
}

/* Whether s reads one of the run's targets (-p A,B), not a child. */
static bool
sampler_is_root(const struct sampler *s)
{
	const struct target_process *p = target_process_find(s->t, s->pid);

	return p && p->adopted && !p->parent;
}

/*
 * How long the search for the VM has run, in the target's time: the
 * wall time since it started less what the target's main thread spent
 * waiting for a CPU meanwhile. A starved process (a host at load 13, a
 * container at its CPU quota) takes seconds of wall time to map its
 * libraries or set up its VM; the deadlines are about its progress, not
 * ours. A process stopped or asleep waits for no CPU: its time counts.
 */
static uint64_t
probe_elapsed(const struct sampler *s, uint64_t now)
{
	uint64_t wall = now - s->pending_since, delay;

	if (proc_run_delay(s->pid, &delay) < 0 || delay < s->pending_delay)
		return wall;
	delay -= s->pending_delay;
	return delay < wall ? wall - delay : 0;
}

/* Looks for the Ruby VM; decides the mode once it is found or the
 * search has run long enough. */
static void
probe_ruby(struct sampler *s)
{
	struct ruby_vm vm;
	uint64_t now = now_ns();

	if (now < s->next_probe)
		return;
	s->next_probe = now + PROBE_EVERY_NS;
	mem_flush(s->mem);
	if (ruby_vm_find_step(s->pid, s->mem, s->symtab, s->opt.force_version,
			      &s->search, &vm) == 0) {
		if (s->opt.force_version)
			error_msg("warning: reading Ruby %s with the layout of %s (--force-version): frames may be wrong if the two differ",
				  vm.version, vm.layout->version);
		s->vm = vm;
		s->ruby = ruby_reader_create(&s->vm, s->mem, s->pid);
		sample_stacks_same(s);
		s->mode = SAMPLER_RUBY;
		/* YJIT's code by the names of 'ruby --yjit-perf' (3.3+). */
		symtab_name_jit(s->symtab, "yjit");
		free(s->prof->meta.ruby_version);
		s->prof->meta.ruby_version = xstrdup(vm.version);
		debug_msg("Ruby %s: reading Ruby stacks", vm.version);
		return;
	}
	switch (errno) {
	case EINPROGRESS:
		/* Out of time: go on at the next tick, after the loop. */
		s->next_probe = now;
		return;
	case ENOTSUP:
		s->fatal = ENOTSUP;
		ruby_vm_unsupported_msg(&vm, s->pid, s->fatal_msg,
					sizeof(s->fatal_msg));
		return;
	case EAGAIN:
		/* Ruby, but its VM is not there yet (or not found), or its
		 * symbol table (the search gives up on it in time). */
		if (!s->search.vm && probe_elapsed(s, now) > PROBE_FOR_NS) {
			s->fatal = EIO;
			snprintf(s->fatal_msg, sizeof(s->fatal_msg),
				 "process %d runs Ruby %s but its VM could not be located (is it a supported build? try --debug)",
				 (int)s->pid, vm.version);
		}
		return;
	default:
		/* Right after exec the loader has not mapped libruby yet. */
		if (loader_busy(s->pid) &&
		    probe_elapsed(s, now) < PROBE_FOR_NS)
			return;
		s->mode = SAMPLER_NATIVE;
		if (s->pid != s->t->pid && !sampler_is_root(s)) {
			/* A child that ran another program (a shell, a
			 * helper): not worth a line each time. */
			debug_msg("child %d is not Ruby: native stacks",
				  (int)s->pid);
			return;
		}
		notice_msg("process %d is not a Ruby process (no libruby or ruby_version found): profiling native stacks%s",
			   (int)s->pid,
			   s->opt.nonblocking ? " (--nonblocking is for Ruby stacks: native ones are read in short stops)" : "");
		return;
	}
}

/* Whether this round's tick of s stops a Ruby GVL holder. */
static bool
tick_stops_holder(struct sampler *s)
{
	struct target_process *p = target_process_find(s->t, s->pid);

	return p && !p->exited && !p->vforked && !p->exec_seen &&
	       !s->fatal && s->mode == SAMPLER_RUBY && !s->opt.nonblocking;
}

/*
 * What each sample of this tick stands for in wall mode: the time since
 * the last tick, so a tick that came late (rbflame itself delayed, a
 * slow stop) weighs its actual interval. The first weighs one period.
 * cpu mode weighs each thread by its own CPU time (sample_weight()).
 */
static void
tick_weight(struct sampler *s)
{
	uint64_t now = now_ns();

	s->tick_weight_ns = s->last_tick_ns && now > s->last_tick_ns
				    ? now - s->last_tick_ns
				    : s->opt.period_ns;
	if (s->tick_weight_ns > MAX_WEIGHT_NS)
		s->tick_weight_ns = MAX_WEIGHT_NS;
	s->last_tick_ns = now;
}

/*
 * A round's first step: the GVL holder interrupted, not waited for, so
 * that the stops of several processes overlap. --max-pause decides
 * here, before the interrupt: a stop the budget cannot afford is never
 * begun (it was, and cancelled by the tick's unstopped read: a stop paid
 * and never charged to the budget).
 */
void
sampler_tick_begin(struct sampler *s)
{
	s->prestop = NULL;
	s->prestop_free = false;
	s->pause_decided = false;
	if (!tick_stops_holder(s) || sample_quiet(s))
		return;
	s->pause_ok = sample_pause_affordable(s, now_ns());
	s->pause_decided = true;
	if (s->pause_ok)
		s->prestop = sample_gvl_prestop(s);
}

static void
tick(struct sampler *s)
{
	struct target *t = s->t;
	struct target_process *p = target_process_find(t, s->pid);
	uint64_t failed;

	/* Gone, or a vfork child still running in its parent's memory. */
	if (p && p->exited)
		sampler_exited(s);
	if (!p || p->exited || p->vforked)
		return;
	if (p->exec_seen) {
		/* A new program image: new maps, new symbols. */
		teardown_process(s);
		u64map_clear(s->names);
		s->have_proc_root = false;
		p->exec_seen = false;
		t->exec_seen = false;
		if (setup_process(s) < 0)
			return;
	}
	if (s->mode == SAMPLER_PENDING)
		probe_ruby(s);
	if (s->fatal || s->mode == SAMPLER_PENDING)
		return;
	s->tick++;
	tick_weight(s);
	if (s->count_ticks)
		s->prof->stats.ticks++;
	failed = s->prof->stats.failed;
	if (s->mode == SAMPLER_NATIVE)
		sample_native_tick(s);
	else if (s->opt.native)
		sample_woven_tick(s);
	else
		sample_ruby_tick(s);
	if (s->prof->stats.failed == failed) {
		s->fail_streak = 0;
	} else {
		if (!s->fail_streak)
			s->fail_streak_ns = now_ns();
		s->fail_streak += s->prof->stats.failed - failed;
	}
	/* The target runs again. The 65536 strings the reader let go
	 * left holes that glibc keeps resident (RSS grew 56 -> 90 MiB over
	 * 3 minutes of evals.rb while the heap stayed at 58): give them
	 * back, at most once a set. */
	if (s->trim_pending) {
		s->trim_pending = false;
		malloc_trim(0);
	}
}

void
sampler_exited(struct sampler *s)
{
	struct profile_stats *st = &s->prof->stats;

	if (s->fail_streak && s->fail_streak <= st->failed &&
	    now_ns() - s->fail_streak_ns <= SAMPLER_EXIT_TEARDOWN_NS) {
		st->failed -= s->fail_streak;
		st->exit_failed += s->fail_streak;
	}
	s->fail_streak = 0;
}

void
sampler_tick(struct sampler *s)
{
	tick(s);
	s->pause_decided = false;	/* this tick's, taken or not */
	s->quiet_asked = false;
	/* A stop begun that the tick did not take (the process exited or
	 * exec'd meanwhile, a stop requested): let the thread run. */
	if (s->prestop) {
		target_cancel_interrupt(s->t, s->prestop);
		s->prestop = NULL;
	}
}
