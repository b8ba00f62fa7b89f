// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The native tick, for a process that is not Ruby: every thread's native
 * stack, one thread at a time and each stopped for as short as possible:
 * the stop covers PTRACE_INTERRUPT, the registers and the unwind (raw
 * instruction pointers only); names are looked up after the resume.
 *
 * A thread blocked in a syscall has a frozen stack. If it is the same
 * block as last time (same syscall, sp, pc and the same words at sp), the
 * previous stack is reused without stopping it. A thread blocked in a
 * non-restartable syscall (epoll_wait, sigtimedwait...) is never stopped:
 * interrupting it would make the call fail with EINTR. Its stack is
 * unwound from the sp and pc the kernel reports, and kept only if the
 * thread is still in the same block afterwards.
 */
#include "config.h"

#include <string.h>

#include "rbflame/intern.h"
#include "rbflame/mem.h"
#include "rbflame/proc.h"
#include "rbflame/profile.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/symtab.h"
#include "rbflame/target.h"
#include "rbflame/u64map.h"
#include "sample.h"

#define BLOCK_PROBE_BYTES 256

static uint64_t
probe_hash(struct sampler *s, uint64_t sp, bool *ok)
{
	unsigned char buf[BLOCK_PROBE_BYTES];

	*ok = mem_read(s->mem, sp, buf, sizeof(buf)) == 0;
	return *ok ? intern_hash(buf, sizeof(buf)) : 0;
}

/* Names the ips (innermost first) and records the sample. */
static void
record_native(struct sampler *s, pid_t tid, struct thread_priv *tp,
       const uint64_t *ips, int n)
{
	uint32_t frames[SAMPLER_MAX_FRAMES + 2];
	size_t d = 0;

	if (s->opt.subprocesses) {
		sample_process_root(s);
		frames[d++] = s->proc_root_id;
	}
	if (s->opt.threads) {
		sample_thread_root(s, tid, tp);
		frames[d++] = tp->root_id;
	}
	for (int i = n - 1; i >= 0; i--) {
		/* A return address points after the call: name the call. */
		bool leaf = i == 0;
		uint64_t ip = leaf ? ips[i] : ips[i] - 1;
		bool found;
		uint32_t *id = u64map_slot(s->names, ip << 1 | leaf, &found);

		if (!found) {
			char name[512];
			struct symtab_frame fr;

			symtab_frame_info(s->symtab, ip, &fr, name,
					  sizeof(name));
			*id = sample_native_frame_id(s, &fr, name);
		}
		if (sample_frame_is_jit(s, *id)) {
			if (i == n - 1)
				s->prof->stats.jit_ends++;
			if (d > 0 && frames[d - 1] == *id)
				continue;	/* one frame for a run */
		}
		frames[d++] = *id;
	}
	profile_add_weighted(s->prof, now_ns() - s->start_ns, s->pid, tid,
			     PROFILE_STATE_UNKNOWN,
			     sample_weight(s, sample_own_thread(s, tid)),
			     frames, d);
}

/* Keeps the stack of the blocking call sc for the next ticks, when the
 * words at its sp could be read (cached). */
static void
keep_block(struct thread_priv *tp, bool cached, const struct proc_syscall *sc,
	   uint64_t h, const uint64_t *ips, int n)
{
	tp->cached = cached;
	if (!cached)
		return;
	tp->sc = *sc;
	tp->probe_hash = h;
	memcpy(tp->ips, ips, n * sizeof(*ips));
	tp->nips = n;
}

/* Samples one thread. Returns 0 when a stack was recorded. */
static int
sample_thread(struct sampler *s, struct target_thread *th)
{
	struct thread_priv *tp = sample_priv(th);
	struct proc_syscall sc = { .kind = PSC_UNKNOWN };
	uint64_t ips[SAMPLER_MAX_FRAMES];
	uint64_t h = 0, stop_ns;
	bool hashed = false;
	int n;

	mem_flush(s->mem);
	if (th->syscall_fd >= 0)
		proc_syscall_read_fd(th->syscall_fd, &sc);

	/* cpu mode: a thread asleep in a syscall is off the CPU. */
	if (s->opt.cpu && (sc.kind == PSC_BLOCKED || sc.kind == PSC_USER))
		return 0;
	if (sc.kind == PSC_BLOCKED) {
		h = probe_hash(s, sc.sp, &hashed);
		if (hashed && tp->cached && sample_same_block(&tp->sc, &sc) &&
		    tp->probe_hash == h) {
			s->prof->stats.blocked_reused++;
			record_native(s, th->tid, tp, tp->ips, tp->nips);
			return 0;
		}
		if (proc_syscall_never_stop(th->pid, &sc)) {
			n = sample_unwind_blocked(s, th, &sc, ips);
			if (n < 0)
				return -1;
			keep_block(tp, hashed, &sc, h, ips, n);
			record_native(s, th->tid, tp, ips, n);
			return 0;
		}
	}

	if (target_interrupt(s->t, th) < 0)
		return -1;
	n = sample_unwind_stopped(s, th, ips, &stop_ns);
	if (stop_ns)
		profile_times_note(&s->prof->stats.stop, stop_ns);
	if (n <= 0)
		return -1;
	/* The registers of the stop say whether it was in the block. */
	keep_block(tp, hashed && sc.kind == PSC_BLOCKED &&
		       th->regs.rsp == sc.sp && th->regs.rip == sc.pc,
		   &sc, h, ips, n);
	record_native(s, th->tid, tp, ips, n);
	return 0;
}

/* A native tick: every thread of the process, one short stop each (or
 * none, for a thread whose stack is frozen in a blocking call). */
void
sample_native_tick(struct sampler *s)
{
	struct target *t = s->t;
	struct target_process *p;
	struct target_thread *th;
	uint64_t born;

	/* Threads stay put while events come and go during the walk; those
	 * found meanwhile wait for the next tick. */
	born = t->stats.threads_seen;
	for (th = target_thread_next(t, NULL); th && th->serial <= born &&
	     !*t->stop_flag; th = target_thread_next(t, th)) {
		if (th->pid != s->pid)
			continue;
		/* Events handled on the way may have moved the process
		 * table: look the process up again. */
		p = target_process_find(t, s->pid);
		if (!p || p->exited)
			break;
		if (th->state != TS_RUNNING)
			continue;
		if (!sample_native_wanted(s, th)) {
			s->prof->stats.threads_left_out++;
			continue;
		}
		/* cpu mode: sample_thread skips a thread asleep in the
		 * kernel; one whose CPU time stands still is off a CPU too. */
		if (s->opt.cpu && !sample_on_cpu(s, th, true))
			continue;
		/* A thread that vanished is not a failed read. */
		if (sample_thread(s, th) < 0 && th->state != TS_GONE)
			s->prof->stats.failed++;
	}
}
