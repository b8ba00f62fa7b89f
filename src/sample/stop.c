// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Stopping threads, and reading what they hold still: the GVL holder's
 * stop (every Ruby stack frozen while it lasts), the short stop of one
 * thread to unwind it, the never-stopped unwind of a thread asleep in a
 * non-restartable call, and the reads of all Ruby stacks with their
 * digest (two equal digests: nothing ran in between).
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rbflame/error.h"
#include "rbflame/intern.h"
#include "rbflame/mem.h"
#include "rbflame/proc.h"
#include "rbflame/ruby.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/switchlog.h"
#include "rbflame/target.h"
#include "rbflame/unwind.h"
#include "rbflame/xmalloc.h"
#include "sample.h"

bool
sample_same_block(const struct proc_syscall *a, const struct proc_syscall *b)
{
	return a->kind == PSC_BLOCKED && b->kind == PSC_BLOCKED &&
	       a->nr == b->nr && a->sp == b->sp && a->pc == b->pc;
}

/* True when th sleeps in a call that an interrupt would make fail (a C
 * extension may wait in epoll_wait holding the GVL): such a thread is
 * never stopped; the double read checks what it holds still. */
static bool
in_nonrestartable(struct target_thread *th)
{
	struct proc_syscall sc;

	/* On a CPU or waiting for one, as its switch log says: in no
	 * sleep an interrupt could cut (the common case, a holder running
	 * Ruby code), no pread. */
	if (sample_switch_running(th))
		return false;
	return th->syscall_fd >= 0 &&
	       proc_syscall_read_fd(th->syscall_fd, &sc) == 0 &&
	       proc_syscall_never_stop(th->pid, &sc);
}

/* The stack of th, asleep in the non-restartable call sc: never
 * interrupted, it is unwound from the sp and pc the kernel reports, and
 * kept only if th is still in the same block afterwards. The count, or
 * -1. */
int
sample_unwind_blocked(struct sampler *s, struct target_thread *th,
	       const struct proc_syscall *sc, uint64_t *ips)
{
	struct proc_syscall again;
	int n = unwind_stack_blocked(s->unwinder, th->tid, sc->sp, sc->pc,
				     ips, SAMPLER_MAX_FRAMES);

	if (n <= 0 || proc_syscall_read_fd(th->syscall_fd, &again) < 0 ||
	    !sample_same_block(sc, &again))
		return -1;
	s->prof->stats.blocked_reused++;
	return n;
}

/* Waits for the stop of th (sent PTRACE_INTERRUPT), unwinds it from its
 * registers, resumes it. The count (<= 0: no stack); *stop_ns: how long
 * it was stopped since the interrupt, 0 when it never stopped. */
int
sample_unwind_stopped(struct sampler *s, struct target_thread *th,
		      uint64_t *ips, uint64_t *stop_ns)
{
	const struct user_regs_struct *regs;
	int n;

	*stop_ns = 0;
	if (target_wait_stopped(s->t, th, STOP_TIMEOUT_NS) < 0) {
		debug_msg("thread %d did not stop: %s", (int)th->tid,
			  strerror(errno));
		return -1;
	}
	/* Its stack ran until now: what the cache holds of it is stale. */
	mem_flush(s->mem);
	regs = target_thread_regs(th);
	n = regs ? unwind_stack(s->unwinder, th->tid, regs, ips,
				SAMPLER_MAX_FRAMES)
		 : -1;
	target_resume(s->t, th);
	*stop_ns = now_ns() - th->interrupted_ns;
	return n;
}

/* A digest of what a read of all stacks saw: two equal digests across
 * two reads mean no thread ran Ruby code in between. */
uint64_t
sample_stacks_digest(const struct ruby_stack *st, int n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;

	for (int i = 0; i < n; i++) {
		h = (h ^ (uint64_t)st[i].tid) * 0x100000001b3ull;
		h = (h ^ (uint64_t)(uint32_t)st[i].nframes) * 0x100000001b3ull;
		h = (h ^ st[i].state) * 0x100000001b3ull;
		h = (h ^ st[i].cfp) * 0x100000001b3ull;
		/* The name is recorded too (--threads): a read whose name
		 * and frames come from different moments must not agree. */
		h = (h ^ intern_hash(st[i].name, strnlen(st[i].name,
							 sizeof(st[i].name)))) *
		    0x100000001b3ull;
		for (int f = 0; f < st[i].nframes; f++) {
			/* Labels and paths are interned: pointers compare. */
			h = (h ^ (uintptr_t)st[i].frames[f].label) *
			    0x100000001b3ull;
			h = (h ^ (uint64_t)st[i].frames[f].line) *
			    0x100000001b3ull;
		}
	}
	return h;
}

static bool
held(const struct gvl_hold *h, pid_t tid)
{
	for (int i = 0; i < h->n; i++)
		if (h->v[i]->tid == tid)
			return true;
	return false;
}

/* Whether the last read saw a thread waiting for the GVL that we do not
 * hold stopped: one that may take a GVL without owner. */
static bool
free_waiters(const struct sampler *s, const struct gvl_hold *h)
{
	for (int i = 0; i < s->nstacks; i++)
		if (s->stacks[i].state == RUBY_STATE_WAITING_GVL &&
		    !held(h, s->stacks[i].tid))
			return true;
	return false;
}

/*
 * The GVL's holder into *holder (0: none), read until one holds it while
 * the last read saw threads waiting for it: a GVL without an owner then
 * is in transit, its next holder woken but not yet running, and about to
 * run Ruby code while the stacks are read (measured on the lockstep
 * fixture, 2 CPUs: no owner at 95% of ticks, a holder within tens of
 * microseconds). Waits GVL_SPIN_NS at most: GVL_SPIN_YIELDS reads a
 * yield apart, then a GVL_SPIN_NAP_NS nap apart (under SCHED_FIFO a
 * yield goes to no normal thread and returns at once, so yields alone
 * spun the whole wait on a CPU: a server's handoffs, 13 thousand yields
 * and as many reads in 5 s of bench/server's Puma; a nap gives the CPU
 * to whoever needs it, the woken thread included); a GVL free with no
 * waiter (every thread asleep) is read once.
 * -1 if unreadable.
 */
/* Sleeps ns nanoseconds (a signal may cut it short). */
static void
nap_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };

	nanosleep(&ts, NULL);
}

static int
gvl_owner(struct sampler *s, const struct gvl_hold *h, pid_t *holder)
{
	uint64_t until = 0;

	for (int spin = 0; spin < GVL_SPIN_READS; spin++) {
		if (ruby_gvl_holder(s->ruby, holder) < 0)
			return -1;
		if (*holder || h->n || !free_waiters(s, h))
			return 0;
		if (!until)
			until = now_ns() + GVL_SPIN_NS;
		else if (now_ns() >= until)
			break;
		if (spin < GVL_SPIN_YIELDS)
			sched_yield();
		else
			nap_ns(GVL_SPIN_NAP_NS);
		mem_flush(s->mem);
	}
	s->prof->stats.gvl_transit++;
	return 0;
}

/*
 * A GVL still without owner after the spin, with threads held: a holder
 * stopped inside the GVL's handoff may hold the GVL's mutex with no owner
 * set, or the next holder is slow to wake. Stops every thread the last
 * read saw waiting for the GVL that we do not hold yet (as many as h has
 * room for): those are the threads that may take it and run Ruby code
 * while the stacks are read. All are interrupted first, then awaited, so
 * the stops overlap (one stop's latency, not one per thread). How many
 * stopped.
 */
static int
stop_waiters(struct sampler *s, struct gvl_hold *h)
{
	struct target_thread *v[GVL_MAX_HELD];
	int k = 0, stopped = 0;

	for (int i = 0; i < s->nstacks && h->n + k < GVL_MAX_HELD; i++) {
		const struct ruby_stack *st = &s->stacks[i];
		struct target_thread *th;

		if (st->state != RUBY_STATE_WAITING_GVL || held(h, st->tid))
			continue;
		/* --thread: one left out is not stopped; if it takes the
		 * GVL, the second read sees it moved. */
		if (!sample_thread_wanted(s, sample_ruby_tid(s, st), st->name))
			continue;
		th = sample_own_thread(s, st->tid);
		if (!th || th->state != TS_RUNNING || in_nonrestartable(th) ||
		    target_interrupt(s->t, th) < 0)
			continue;
		v[k++] = th;
	}
	for (int i = 0; i < k; i++) {
		if (target_wait_stopped(s->t, v[i], STOP_TIMEOUT_NS) < 0)
			continue;
		h->v[h->n++] = v[i];
		stopped++;
	}
	return stopped;
}

/*
 * Last round's lines fetched without a stop, just before the holder is
 * looked up and interrupted: the holder's lookup reads from them, and
 * the hold that fetches them again, the target stopped, finds the
 * tracer's side of the call warm. The first remote read after the
 * tracer slept is the slow one: a 16-vector fetch took 16.6 us p50 in
 * a hold, 7.4 us after the same fetch unstopped, 5.2 us back to back;
 * one line 6.9 us, 1.2 after (2-vCPU VM, a C target). What it costs
 * is rbflame's CPU, not the target's time, while a CPU is free: on a
 * host whose CPUs are contended (s->cpu_contended, the run loop's CPU
 * pressure) rbflame's CPU is taken from the target, and the fetch is
 * left out. A loaded Puma's (bench/server) cost rbflame about 1% of a
 * core for 10-15 us of held time a tick.
 */
static void
prefetch_warm(struct sampler *s)
{
	if (s->cpu_contended) {
		s->prof->stats.warm_skipped++;
		return;
	}
	s->prof->stats.warm_fetches++;
	mem_prefetch_warm(s->mem);
}

/*
 * Stops the thread holding the GVL: while it is stopped no thread can run
 * Ruby code, so every Ruby stack is frozen. A holder may let the GVL go
 * before its stop lands: then the new holder is stopped, up to GVL_RETRIES
 * times, the earlier ones kept (h->keep) or resumed. A GVL found without
 * owner while threads wait for it is in transit: waited for when nothing
 * is held yet, else (h->keep) its takers are stopped too.
 * A holder asleep in a call an interrupt would make fail is never
 * stopped. h->frozen tells whether a thread we hold owns the GVL; when
 * not, the caller reads twice.
 */
void
sample_gvl_hold(struct sampler *s, struct gvl_hold *h)
{
	if (s->prestop) {
		/* Interrupted by sampler_tick_begin() with the other
		 * processes' holders: held like a holder of an earlier
		 * attempt (kept, or let go if it let the GVL go). */
		struct target_thread *th = s->prestop;

		s->prestop = NULL;
		if (target_wait_stopped(s->t, th, STOP_TIMEOUT_NS) == 0)
			h->v[h->n++] = th;
	}
	for (int attempt = 0; attempt <= GVL_RETRIES; attempt++) {
		struct target_thread *th;
		pid_t holder = 0;

		mem_flush(s->mem);
		if (h->prefetch && h->n > 0) {
			/* Stopped (a holder of an earlier attempt, or the
			 * one the round interrupted): fetch what the last
			 * round read in one go, and remember what this round
			 * reads. */
			mem_prefetch_hot(s->mem);
			mem_hot_begin(s->mem);
			h->hot = true;
		} else if (h->prefetch && !s->prestop_free) {
			/* Nothing stopped yet: the idle threads are proven
			 * so, and the same fetch, unstopped and without
			 * their lines, warms it for the hold
			 * (prefetch_warm()). The round's lookup found the
			 * GVL free: it proved and fetched already, this
			 * lookup reads what it needs. */
			sample_idle_proofs(s);
			prefetch_warm(s);
		}
		if (gvl_owner(s, h, &holder) < 0)
			return;
		if (!holder) {
			/* In transit still: its takers stopped, one of them
			 * may own it now. */
			if (h->keep && attempt < GVL_RETRIES &&
			    stop_waiters(s, h) > 0)
				continue;
			return;
		}
		if (held(h, holder)) {
			h->frozen = true; /* one we hold */
			return;
		}
		if (!h->keep && h->n) {
			/* It let the GVL go before it stopped: let it run. */
			target_resume(s->t, h->v[--h->n]);
		}
		th = sample_own_thread(s, holder);
		if (!th || th->state != TS_RUNNING || in_nonrestartable(th) ||
		    h->n >= GVL_MAX_HELD)
			return;
		if (target_interrupt(s->t, th) < 0 ||
		    target_wait_stopped(s->t, th, STOP_TIMEOUT_NS) < 0)
			return;
		h->v[h->n++] = th;
	}
}

/*
 * The GVL holder as one read finds it, sent PTRACE_INTERRUPT and not
 * waited for (sampler_tick_begin()), or NULL: none, unreadable, not ours,
 * or asleep in a call an interrupt would make fail.
 */
struct target_thread *
sample_gvl_prestop(struct sampler *s)
{
	struct target_thread *th;
	pid_t holder = 0;

	mem_flush(s->mem);
	sample_idle_proofs(s);
	prefetch_warm(s);
	if (ruby_gvl_holder(s->ruby, &holder) < 0)
		return NULL;
	if (!holder) {
		/* Free, and none of the threads the last read saw waits
		 * for it: the tick reads without a stop (sample_gvl_hold()
		 * looks once more), under the proofs just taken. */
		s->prestop_free = !free_waiters(s, &(struct gvl_hold){ 0 });
		return NULL;
	}
	th = sample_own_thread(s, holder);
	if (!th || th->state != TS_RUNNING || in_nonrestartable(th) ||
	    target_interrupt(s->t, th) < 0)
		return NULL;
	return th;
}

/* Resumes what sample_gvl_hold() stopped. */
void
sample_gvl_release(struct sampler *s, struct gvl_hold *h)
{
	for (int i = 0; i < h->n; i++)
		target_resume(s->t, h->v[i]);
}

/*
 * The proof behind ruby_reader_set_same()'s hook (stack_unchanged()):
 * the last stack of a thread that has not run since it was read, so
 * that its frames are copied, not read again (most threads of a server
 * sleep: Puma's pool waits on a condition variable). The proof is the
 * kernel's, from the thread's schedstat: its run time (ns) and how
 * many times it was put on a CPU.
 *  - The kernel adds to the run time when the thread leaves its CPU: a
 *    thread that ran since the last read and sleeps now shows more. Only
 *    a thread on a CPU lags.
 *  - So the first check after a read also asks the syscall file: the
 *    kernel answers it once the thread is off its CPU (a thread just
 *    preempted on its way to sleep can cost a scheduler tick, so it is
 *    read only when the run time has not moved), and the run time read
 *    again then is exact. Same as before the read: idle, proven.
 *  - Once proven, a thread not put on a CPU since (the count has not
 *    moved) is idle still: one pread a tick.
 * The files are open since attach; a read of a stack takes some ten
 * process_vm_readv calls. Notes the run time for stacks_keep(), and the
 * syscall file for the sample's state.
 */
static const struct ruby_stack *
idle_proof(struct sampler *s, struct target_thread *th,
	   struct thread_priv *tp)
{
	struct proc_syscall sc;
	uint64_t ns, slices, again;

	tp->seen = false;
	if (proc_schedstat_read(th->schedstat_fd, &ns, &slices) < 0 || !ns)
		return NULL;
	tp->seen = true;
	tp->seen_ns = ns;
	tp->seen_read = s->reads;
	if (!tp->last_ok || tp->last_ns != ns) {
		tp->idle = false;
		return NULL;
	}
	if (tp->idle && tp->idle_slices == slices) {
		tp->sc_read = s->reads;	/* asleep where the proof saw it */
		return tp->last;
	}
	if (proc_syscall_read_fd(th->syscall_fd, &sc) < 0)
		return NULL;
	tp->sc_now = sc;
	tp->sc_read = s->reads;
	if (sc.kind != PSC_BLOCKED ||
	    proc_schedstat_read(th->schedstat_fd, &again, &slices) < 0 ||
	    again != ns)
		return NULL;
	tp->idle = true;
	tp->idle_slices = slices;
	return tp->last;
}

/*
 * idle_proof() from the thread's switch log (struct target_thread's
 * switches), no pread: the stack last read, while the thread was asleep
 * (off its CPU, not preempted) since a moment before the read began,
 * stands while the log says it is asleep since that same moment. A
 * preempted thread is read, as the /proc proofs read it: copies of one
 * gave impossible stacks under --nonblocking beside a loaded CPU (2 of 3
 * runs of tests/ruby/nonblocking.sh), for a reason not found. A thread
 * the log has not heard from
 * since attach (asleep all along) is read asleep once in its syscall
 * file, which marks it off from then (switchlog_mark_off()); its next
 * read is the one that can be copied.
 */
static const struct ruby_stack *
idle_proof_log(struct sampler *s, struct target_thread *th,
	       struct thread_priv *tp)
{
	struct switchlog_view v;

	tp->seen = true;
	tp->seen_ns = 0;
	tp->seen_read = s->reads;
	switchlog_view(th->switches, &v);
	if (v.state == SWL_UNKNOWN) {
		uint64_t since = now_ns();
		struct proc_syscall sc;

		if (proc_syscall_read_fd(th->syscall_fd, &sc) == 0 &&
		    sc.kind == PSC_BLOCKED) {
			s->prof->stats.switch_marks++;
			switchlog_mark_off(th->switches, since, &v);
		}
	}
	if (v.state != SWL_OFF || v.preempted || !tp->last_ok ||
	    tp->last_off != v.off_since)
		return NULL;
	return tp->last;
}

/* The moment the read of a thread began, the tick's reads from
 * sample_stacks_read(): a thread off its CPU since before it (and still,
 * as the log says after the read) was read whole while it slept. The
 * margin covers the log's clock (the kernel's fast monotonic clock)
 * against ours. */
#define OFF_MARGIN_NS 2000

/* The thread's switch log after a read of its stack: the moment it
 * went off its CPU if that was before the read began, else 0 (its next
 * read is fresh). */
static uint64_t
off_before_read(const struct sampler *s, struct target_thread *th)
{
	struct switchlog_view v;

	switchlog_view(th->switches, &v);
	return v.state == SWL_OFF && !v.preempted &&
		       v.off_since + OFF_MARGIN_NS <= s->read_t0
		       ? v.off_since
		       : 0;
}

bool
sample_switch_running(struct target_thread *th)
{
	struct switchlog_view v;

	if (!th->switches)
		return false;
	switchlog_view(th->switches, &v);
	return v.state == SWL_ON || (v.state == SWL_OFF && v.preempted);
}

int
sample_switch_state(struct target_thread *th)
{
	struct switchlog_view v;

	if (!th->switches)
		return -1;
	switchlog_view(th->switches, &v);
	if (v.state == SWL_UNKNOWN)
		return -1;
	return v.state == SWL_ON || v.preempted ? 'R' : 'S';
}

/* The thread of st, if it has the files an idle proof reads. */
static struct target_thread *
proof_thread(struct sampler *s, const struct ruby_stack *st)
{
	struct target_thread *th;

	/* M:N: a native thread runs several Ruby threads. */
	if (!st->tid || st->gone || s->vm.mn_threads)
		return NULL;
	th = sample_own_thread(s, st->tid);
	if (!th || th->syscall_fd < 0 ||
	    (!th->switches && th->schedstat_fd < 0))
		return NULL;
	return th;
}

static const struct ruby_stack *
stack_unchanged(void *ctx, const struct ruby_stack *st)
{
	struct sampler *s = ctx;
	struct target_thread *th = proof_thread(s, st);
	struct thread_priv *tp;

	if (!th)
		return NULL;
	tp = sample_priv(th);
	if (!s->proofs_open || tp->proof_gen != s->proofs_gen)
		return th->switches ? idle_proof_log(s, th, tp)
				    : idle_proof(s, th, tp);
	/* Proven before the interrupt: no pread while the target waits. */
	tp->seen = th->switches || tp->proof_ns != 0;
	tp->seen_ns = tp->proof_ns;
	tp->seen_read = s->reads;
	if (tp->proof) {
		tp->sc_read = s->reads;
		tp->proof_used = true;
	}
	return tp->proof;
}

/* Threads woken since the last read whose lines a prefetch adds. */
#define WOKEN_MAX 64

/*
 * The idle proofs of the threads the last read saw, taken just before
 * the holder's interrupt, beside the running target: the reads of the
 * tick take them (stack_unchanged()) instead of reading two files a
 * thread while the target is stopped. A server's hold did those
 * preads for its idle pool: 140 us of its reads held (bench/server's
 * Puma, 23 threads a worker, mean), where its prefetch took 35. A
 * proof says the thread was idle up to here; sample_idle_recheck()
 * checks after the tick that it stayed so through the stop.
 * Taken before the round's fetches, which then leave out the lines of
 * the threads read last round and proven idle now: their stacks are
 * copied. A server's threads take turns: bench/server's Puma leaves
 * out 12-16 lines of a worker's round, which fetched some 36.
 */
void
sample_idle_proofs(struct sampler *s)
{
	/* Zeroed: GCC 12 takes a const pointer argument for a read. */
	uint64_t woke[WOKEN_MAX] = { 0 }, idle[WOKEN_MAX] = { 0 };
	uint64_t fresh[RUBY_FRESH_MAX];
	size_t nwoke = 0, nidle = 0, nfresh = 0;

	/* A second stop of the tick (a deferred read refused) keeps the
	 * first one's proofs: the stacks its read left may be a few. */
	if (s->proofs_open || !s->same_on)
		return;
	s->proofs_gen++;
	s->proofs_open = true;
	for (int i = 0; i < s->nstacks; i++) {
		struct target_thread *th = proof_thread(s, &s->stacks[i]);
		struct thread_priv *tp;

		/* Those without a copy too: their run time before the read
		 * is what stacks_keep() keeps with their stack. */
		if (!th) {
			if (nfresh < RUBY_FRESH_MAX)
				fresh[nfresh++] = s->stacks[i].thread;
			continue;
		}
		tp = sample_priv(th);
		tp->proof = th->switches ? idle_proof_log(s, th, tp)
					 : idle_proof(s, th, tp);
		tp->proof_ns = tp->seen ? tp->seen_ns : 0;
		tp->proof_gen = s->proofs_gen;
		tp->proof_used = false;
		/* Read, not copied: its frames fetched ahead with the
		 * others' (ruby_reader_set_fresh()). */
		if (!tp->proof && nfresh < RUBY_FRESH_MAX)
			fresh[nfresh++] = s->stacks[i].thread;
		if (s->stacks[i].reused) {
			/* Copied last round, read this one: what its last
			 * read fetched is fetched with the stop's lines. A
			 * server's threads take turns, and the one that
			 * wakes was idle last round: its lines were fetched
			 * one call each while the holder stayed stopped. */
			if (!tp->proof && nwoke < WOKEN_MAX)
				woke[nwoke++] = s->stacks[i].thread;
		} else if (tp->proof && nidle < WOKEN_MAX) {
			/* Read last round, copied this one. */
			idle[nidle++] = s->stacks[i].thread;
		}
	}
	mem_prefetch_tags(s->mem, woke, nwoke);
	s->prof->stats.lines_left_out += mem_hot_drop(s->mem, idle, nidle);
	ruby_reader_set_fresh(s->ruby, fresh, nfresh);
}

/*
 * After the tick's reads: each stack taken from a proof made before the
 * interrupt stands if its thread has still not been put on a CPU (its
 * run time and count unchanged). One that woke in between may have run
 * before the stop: its sample is dropped (nframes 0: nothing to
 * record), counted, and its next read is fresh.
 */
void
sample_idle_recheck(struct sampler *s, int n)
{
	if (!s->proofs_open)
		return;
	s->proofs_open = false;
	for (int i = 0; i < n; i++) {
		struct ruby_stack *st = &s->stacks[i];
		struct target_thread *th;
		struct thread_priv *tp;
		uint64_t ns, slices;

		if (!st->reused || !(th = proof_thread(s, st)) || !th->priv)
			continue;
		tp = th->priv;
		if (!tp->proof_used || tp->proof_gen != s->proofs_gen)
			continue;
		tp->proof_used = false;
		if (th->switches) {
			struct switchlog_view v;

			switchlog_view(th->switches, &v);
			if (v.state == SWL_OFF && v.off_since == tp->last_off)
				continue;
		} else if (proc_schedstat_read(th->schedstat_fd, &ns,
					       &slices) == 0 &&
			   ns == tp->last_ns && slices == tp->idle_slices) {
			continue;
		}
		tp->idle = false;
		st->nframes = 0;
		s->prof->stats.woke_in_stop++;
	}
}

/*
 * Keeps a copy of each stack read fresh, with the CPU time its thread
 * had just before, for stack_unchanged(). Not after a read decoded once
 * the target resumed (s->deferring): the run time was read after the
 * resume, the stack is of the stop, and a thread that ran in between
 * would later be copied with a stack it had left. Those keep what an
 * earlier read kept, a stack and a run time of the same moment.
 */
static void
stacks_keep(struct sampler *s, int n)
{
	/* Interned once a call: a lookup, not per thread. */
	const char *torn = ruby_reader_torn(s->ruby);

	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &s->stacks[i];
		struct target_thread *th;
		struct thread_priv *tp;

		if (!st->tid || (!st->reused && (st->gone || s->deferring)))
			continue;
		th = sample_own_thread(s, st->tid);
		if (st->reused) {
			s->prof->stats.stacks_reused++;
			if (th && th->switches)
				s->prof->stats.reused_by_switches++;
			continue;
		}
		if (!th || !th->priv)
			continue;
		tp = th->priv;
		tp->last_ok = false;
		if (th->switches)
			tp->last_off = off_before_read(s, th);
		/* Not a stack cut under [torn] by a read without a stop:
		 * an idle thread's is no race, so maybe memory that stays
		 * unreadable, for a later read to count failed, never to
		 * be copied as the thread's stack. */
		if (!tp->seen || st->nframes < 0 ||
		    (st->nframes > 0 &&
		     st->frames[0].label == torn))
			continue;
		if (!tp->last || tp->last_cap < st->nframes) {
			int cap = st->nframes < 16 ? 16 : st->nframes;

			free(tp->last);
			tp->last = xmalloc(offsetof(struct ruby_stack, frames) +
					   (size_t)cap * sizeof(st->frames[0]));
			tp->last_cap = cap;
		}
		memcpy(tp->last, st, offsetof(struct ruby_stack, frames) +
			(size_t)st->nframes * sizeof(st->frames[0]));
		tp->last_ns = tp->seen_ns;
		tp->last_ok = true;
		tp->idle = false;
		tp->seen = false;
		/* A proof of the copy replaced: a later read of this tick
		 * proves it anew. */
		tp->proof_gen = 0;
		tp->proof = NULL;
	}
}

int
sample_syscall_now(struct sampler *s, struct target_thread *th,
		   struct proc_syscall *sc)
{
	struct thread_priv *tp = sample_priv(th);

	if (s->reads && tp->sc_read == s->reads) {
		*sc = tp->sc_now;
		return 0;
	}
	if (th->syscall_fd < 0)
		return -1;
	return proc_syscall_read_fd(th->syscall_fd, sc);
}

void
sample_stacks_same(struct sampler *s)
{
	/* --native stops and unwinds each thread anyway. RBFLAME_NO_SAME
	 * turns the copies off, a quiet process's too (sample_quiet()), for
	 * tests and bench to compare. */
	s->same_on = !s->opt.native && !getenv("RBFLAME_NO_SAME");
	if (s->same_on)
		ruby_reader_set_same(s->ruby, stack_unchanged, s);
}

/* Reads every Ruby stack into s->stacks: their count, or -1. The next
 * tick's GVL hold looks at them for threads waiting for the GVL. */
int
sample_stacks_read(struct sampler *s)
{
	struct ruby_reader_stats was;
	const struct ruby_reader_stats *now;
	uint64_t due;
	int n;

	if (s->stacks_cap == 0) {
		s->stacks_cap = 16;
		s->stacks = xcalloc(s->stacks_cap, sizeof(*s->stacks));
	}
	was = *ruby_reader_stats(s->ruby);
	s->reads++;
	s->read_t0 = now_ns();
	n = ruby_read_stacks(s->ruby, s->stacks, s->stacks_cap);
	now = ruby_reader_stats(s->ruby);
	s->prof->stats.frames_by_epoch +=
		now->frames_by_epoch - was.frames_by_epoch;
	s->prof->stats.frames_by_major +=
		now->frames_by_major - was.frames_by_major;
	s->prof->stats.types_kept += now->types_kept - was.types_kept;
	s->prof->stats.names_unread += now->names_unread - was.names_unread;
	s->prof->stats.threads_by_walk +=
		now->threads_by_walk - was.threads_by_walk;
	due = now->walk_refreshes - was.walk_refreshes;
	s->prof->stats.walk_refreshes += due;
	if (due > s->prof->stats.walk_refresh_max)
		s->prof->stats.walk_refresh_max = due;
	s->nstacks = n > 0 ? n : 0;
	stacks_keep(s, s->nstacks);
	/* The reader let its oldest labels go (a target that evals new
	 * code forever): texts keyed by their pointers must not outlive
	 * them. */
	if (ruby_reader_stats(s->ruby)->string_sets != s->string_sets) {
		uint64_t sets = ruby_reader_stats(s->ruby)->string_sets;

		if (sets > s->string_sets)
			s->prof->stats.string_sets += sets - s->string_sets;
		s->string_sets = sets;
		memset(s->texts, 0, TEXT_SLOTS * sizeof(*s->texts));
		s->trim_pending = true;
	}
	sample_mn_note(s);
	return n;
}

/* After a tick that read n stacks: more threads than room, grow for the
 * next tick. */
void
sample_stacks_grow(struct sampler *s, int n)
{
	if (n == s->stacks_cap && s->stacks_cap < RUBY_MAX_THREADS) {
		s->stacks_cap *= 2;
		free(s->stacks);
		s->stacks = xcalloc(s->stacks_cap, sizeof(*s->stacks));
	}
}
