// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The woven tick (--native in a Ruby process): every Ruby thread's Ruby
 * stack and its native stack, read while the GVL holder is stopped, then
 * named and woven into one stack (weave.c) after every thread runs again.
 * Owns the per-process --native state: the VM's file, the names of
 * native frames, the room for raw stacks.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/error.h"
#include "rbflame/mem.h"
#include "rbflame/proc.h"
#include "rbflame/profile.h"
#include "rbflame/ruby.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/symtab.h"
#include "rbflame/target.h"
#include "rbflame/u64map.h"
#include "rbflame/unwind.h"
#include "rbflame/weave.h"
#include "rbflame/xmalloc.h"
#include "sample.h"

/* What the weave needs of one native frame, named once per address. */
struct native_info {
	uint32_t id;
	uint64_t start, end;	/* function bounds, runtime; equal: unknown */
	bool vm;
};

struct sampler_native {
	char *vm_module;	/* the VM's file, as maps shows it */
	struct u64map *infos_by_ip; /* ip << 1 | leaf -> index in infos */
	struct native_info *infos;
	size_t ninfos, infos_cap;
	uint64_t *ips;		/* per Ruby stack: SAMPLER_MAX_FRAMES ips */
	int *nips;		/* per Ruby stack: count, <= 0 unreadable */
	struct target_thread **stopping; /* per Ruby stack: interrupted */
	int cap;		/* stacks room */
	uint64_t errors_shown;
	/* One stack's weave: its inputs and its output. */
	struct weave_native nat[SAMPLER_MAX_FRAMES];
	struct weave_ruby rb[RUBY_MAX_FRAMES];
	uint32_t frames[SAMPLER_MAX_FRAMES + RUBY_MAX_FRAMES + 8];
};

void
sample_woven_destroy(struct sampler_native *n)
{
	if (!n)
		return;
	free(n->vm_module);
	u64map_destroy(n->infos_by_ip);
	free(n->infos);
	free(n->ips);
	free(n->nips);
	free(n->stopping);
	free(n);
}

/* The VM's file: libruby, else (a static ruby) the executable, the first
 * file mapped; as ruby_vm_find() chooses. */
static char *
vm_module_path(pid_t pid)
{
	struct maps mp;
	char *path = NULL;

	if (proc_maps_read(pid, &mp) < 0)
		return NULL;
	for (size_t i = 0; i < mp.n && !path; i++) {
		const char *p = mp.v[i].path, *b;

		if (p && (b = strrchr(p, '/')) && !strncmp(b + 1, "libruby", 7))
			path = xstrdup(p);
	}
	if (!path && mp.n && mp.v[0].path)
		path = xstrdup(mp.v[0].path);
	maps_free(&mp);
	return path;
}

static struct sampler_native *
native_state(struct sampler *s)
{
	struct sampler_native *n = s->nat;

	if (!n) {
		n = s->nat = xcalloc(1, sizeof(*n));
		n->vm_module = vm_module_path(s->pid);
		n->infos_by_ip = u64map_create();
		debug_msg("--native: the VM's frames are those of %s",
			  n->vm_module ? n->vm_module : "(no file found)");
	}
	if (n->cap < s->stacks_cap) {
		free(n->ips);
		free(n->nips);
		free(n->stopping);
		n->cap = s->stacks_cap;
		n->ips = xcalloc((size_t)n->cap * SAMPLER_MAX_FRAMES,
				 sizeof(*n->ips));
		n->nips = xcalloc(n->cap, sizeof(*n->nips));
		n->stopping = xcalloc(n->cap, sizeof(*n->stopping));
	}
	return n;
}

/* Names ip (ip - 1 already for return addresses) once: its frame, its
 * function's bounds (a sized symbol, else its FDE), whether it is the
 * VM's. Called after the target runs again. */
static const struct native_info *
native_info(struct sampler *s, struct sampler_native *n, uint64_t ip,
	    bool leaf)
{
	bool found;
	uint32_t *slot = u64map_slot(n->infos_by_ip, ip << 1 | leaf, &found);
	struct native_info *ni;
	struct symtab_frame fr;
	char name[512];

	if (found)
		return &n->infos[*slot];
	n->infos = xgrowarray(n->infos, &n->infos_cap, n->ninfos + 1,
			      sizeof(*n->infos));
	*slot = (uint32_t)n->ninfos;
	ni = &n->infos[n->ninfos++];
	symtab_frame_info(s->symtab, ip, &fr, name, sizeof(name));
	ni->start = fr.func_start;
	ni->end = fr.func_end;
	if (ni->start >= ni->end &&
	    unwind_function_bounds(s->unwinder, ip, &ni->start, &ni->end) < 0)
		ni->start = ni->end = 0;
	if (!fr.symbol && fr.module && ni->start < ni->end) {
		/* No name (a stripped library's static function): named by
		 * its function's link-time start, so that its samples stay
		 * together whatever the ip. */
		const char *base = strrchr(fr.module, '/');

		fr.addr -= ip - ni->start;
		snprintf(name, sizeof(name), "0x%" PRIx64 " (%s)", fr.addr,
			 base ? base + 1 : fr.module);
	}
	ni->id = sample_native_frame_id(s, &fr, name);
	ni->vm = fr.module && n->vm_module && !strcmp(fr.module, n->vm_module);
	return ni;
}

/*
 * The native stack of a Ruby thread other than the stopped holder, in two
 * steps, so that all such threads stop together and the holder waits for
 * the slowest stop, not for their sum. native_begin(): a thread blocked in
 * a non-restartable call is never interrupted: unwound now from what the
 * kernel reports, kept only if still in the same block (returns the
 * count); any other is sent PTRACE_INTERRUPT (returns 0 and sets
 * *stopping), and sample_unwind_stopped() finishes it. -1 on failure.
 */
static int
native_begin(struct sampler *s, pid_t tid, uint64_t *ips,
	     struct target_thread **stopping)
{
	struct target_thread *th = sample_own_thread(s, tid);
	struct proc_syscall sc = { .kind = PSC_UNKNOWN };

	*stopping = NULL;
	if (!th || th->state != TS_RUNNING)
		return -1;
	if (th->syscall_fd >= 0)
		proc_syscall_read_fd(th->syscall_fd, &sc);
	if (proc_syscall_never_stop(th->pid, &sc))
		return sample_unwind_blocked(s, th, &sc, ips);
	if (target_interrupt(s->t, th) < 0)
		return -1;
	*stopping = th;
	return 0;
}

/* Weaves and records one thread's stacks (after the resume). */
static void
record_woven(struct sampler *s, struct sampler_native *n,
	     const struct ruby_stack *st, const uint64_t *ips, int nips)
{
	struct weave_native *nat = n->nat;
	struct weave_ruby *rb = n->rb;
	uint32_t *frames = n->frames;
	size_t d = sample_ruby_roots(s, st, frames), nw;
	const char *state[2];
	enum profile_state pstate;
	enum weave_error e;
	uint32_t marker;
	int m = 0;

	if (!sample_stack_state(s, st, state, &pstate))
		return;
	for (int i = 0; i < nips; i++) {
		/* Root first; a return address points after the call. */
		bool leaf = i == nips - 1;
		uint64_t ip = ips[nips - 1 - i];
		const struct native_info *ni =
			native_info(s, n, leaf ? ip : ip - 1, leaf);

		if (m > 0 && nat[m - 1].id == ni->id &&
		    sample_frame_is_jit(s, ni->id))
			continue;	/* one frame for a run of JIT code */
		nat[m++] = (struct weave_native){
			.id = ni->id, .start = ni->start, .end = ni->end,
			.vm = ni->vm,
		};
	}
	if (m > 0 && sample_frame_is_jit(s, nat[0].id))
		s->prof->stats.jit_ends++;
	for (int i = 0; i < st->nframes; i++) {
		const struct ruby_frame *f = &st->frames[st->nframes - 1 - i];

		rb[i] = (struct weave_ruby){
			.id = sample_ruby_frame_id(s, f),
			.cfunc = f->cfunc,
			.cfunc_addr = f->cfunc_addr,
		};
	}
	marker = profile_frame_make(s->prof, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_MARKER, .name = "[unwoven]",
	});
	e = weave(nat, m, rb, st->nframes, s->opt.native_all, marker,
		  frames + d, SAMPLER_MAX_FRAMES + RUBY_MAX_FRAMES, &nw);
	if (e == WEAVE_NO_ROOM) {
		s->prof->stats.failed++;
		return;
	}
	if (e == WEAVE_OK) {
		s->prof->stats.woven++;
	} else {
		s->prof->stats.weave_errors++;
		if (n->errors_shown++ < 8)
			debug_msg("--native: thread %d: %s", (int)st->tid,
				  weave_error_name(e));
	}
	d += nw;
	sample_record_stack(s, st, state, pstate, frames, d);
}

/*
 * One try at a --native tick: the GVL holder is stopped (then no Ruby
 * stack can change), every Ruby stack is read and every Ruby thread's
 * native stack unwound to raw ips (the holder's while it is stopped
 * anyway, each other's in a stop of its own inside the holder's), the
 * holder resumed; only then are frames named and woven. Without a holder
 * we hold, the Ruby stacks are read again after the unwinds and the tick
 * counts only if nothing moved, as in sample_ruby_tick(): false when
 * something did (nothing recorded), true when done.
 */
static bool
woven_try(struct sampler *s)
{
	struct gvl_hold h = { .keep = false, .prefetch = true };
	struct target_thread *held;
	struct sampler_native *nat;
	bool frozen;
	uint64_t t0 = 0, d0 = 0;
	int n;

	/* A holder asleep in a call an interrupt would make fail (a C
	 * extension in epoll_wait with the GVL) is never stopped: unwound as
	 * blocked below, checked by the second read. */
	sample_gvl_hold(s, &h);
	frozen = h.frozen;
	held = h.n ? h.v[0] : NULL;
	/* From PTRACE_INTERRUPT, as sample_thread() counts. */
	if (held)
		t0 = held->interrupted_ns;
	/* No flush: the holder check just did, and what it read is frozen
	 * now (or checked by a second read below). Not frozen, the reads
	 * run beside the GVL's owner: the reader trusts nothing of them
	 * (no frame cache stamp under the GC count, reader.c). */
	ruby_reader_set_unstopped(s->ruby, !frozen);
	n = sample_stacks_read(s);
	nat = native_state(s);
	if (!frozen && n >= 0)
		d0 = sample_stacks_digest(s->stacks, n);
	/* The holder's stack, and the first step of every other's. */
	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &s->stacks[i];
		uint64_t *ips = nat->ips + (size_t)i * SAMPLER_MAX_FRAMES;

		nat->nips[i] = -1;
		nat->stopping[i] = NULL;
		if (st->nframes <= 0 || !st->tid || sample_stray_stack(s, st))
			continue;
		/* --thread: one left out is never stopped for its stack. */
		if (!sample_thread_wanted(s, sample_ruby_tid(s, st), st->name))
			continue;
		if (held && st->tid == held->tid) {
			const struct user_regs_struct *r =
				target_thread_regs(held);
			int k = r ? unwind_stack(s->unwinder, st->tid, r, ips,
						 SAMPLER_MAX_FRAMES)
				  : -1;

			nat->nips[i] = k > 0 ? k : -1;
		} else {
			nat->nips[i] = native_begin(s, st->tid, ips,
						    &nat->stopping[i]);
		}
	}
	/* What the holder's stop read (its Ruby stacks, its native stack):
	 * fetched in one go at the next tick's stop. The other threads'
	 * stacks are read after a flush each, below. */
	mem_hot_end(s->mem);
	/* The interrupted ones: each stop awaited, unwound, resumed. */
	for (int i = 0; i < n; i++) {
		uint64_t stop;

		if (!nat->stopping[i])
			continue;
		nat->nips[i] = sample_unwind_stopped(s, nat->stopping[i],
					      nat->ips + (size_t)i *
							 SAMPLER_MAX_FRAMES,
					      &stop);
		if (stop && !held)
			profile_times_note(&s->prof->stats.stop, stop);
	}
	if (!frozen && n >= 0) {
		/* Nothing held the Ruby stacks still: they count only if a
		 * second read finds them as the first. */
		mem_flush(s->mem);
		frozen = sample_stacks_read(s) == n &&
			 sample_stacks_digest(s->stacks, n) == d0;
		s->prof->stats.rereads++;
		if (!frozen)
			s->prof->stats.torn++;
	}
	ruby_reader_set_unstopped(s->ruby, false);
	sample_gvl_release(s, &h);
	if (held)
		profile_times_note(&s->prof->stats.stop, now_ns() - t0);
	if (n < 0) {
		s->prof->stats.failed++;
		return true;
	}
	if (!frozen)
		return false;
	for (int i = 0; i < n; i++) {
		if (!sample_thread_wanted(s,
					  sample_ruby_tid(s, &s->stacks[i]),
					  s->stacks[i].name)) {
			s->prof->stats.threads_left_out++;
			continue;
		}
		if (s->stacks[i].nframes > 0 &&
		    sample_stray_stack(s, &s->stacks[i]))
			continue;
		/* Parked by the M:N scheduler: no native stack to weave;
		 * its Ruby stack is all there is. */
		if (s->stacks[i].nframes > 0 &&
		    sample_mn_parked(s, &s->stacks[i]))
			sample_record_ruby(s, &s->stacks[i]);
		else if (s->stacks[i].nframes < 0 ||
			 (s->stacks[i].nframes > 0 && nat->nips[i] <= 0))
			s->prof->stats.failed++;
		else if (s->stacks[i].nframes > 0)
			record_woven(s, nat, &s->stacks[i],
				     nat->ips + (size_t)i * SAMPLER_MAX_FRAMES,
				     nat->nips[i]);
	}
	sample_stacks_grow(s, n);
	return true;
}

/*
 * A --native tick. One whose Ruby stacks moved while no thread we held
 * owned the GVL (free at the hold, a thread took it before the second
 * read) is tried again, up to GVL_RETRIES times: that thread owns the
 * GVL now, is stopped, and the stacks hold still. Puma under ab,
 * --native: 24 of 24 failed reads were such ticks, 2.5% of them, dropped
 * until then; with one retry 0-6 of some 460 ticks still failed both.
 */
void
sample_woven_tick(struct sampler *s)
{
	for (int try = 0; try < GVL_RETRIES; try++)
		if (woven_try(s))
			return;
	s->prof->stats.failed++;
}
