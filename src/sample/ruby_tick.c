// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The Ruby tick: every Ruby thread's stack read from the VM while the
 * GVL holder is stopped (or, with --nonblocking, read until two reads
 * agree), then recorded with the thread's state.
 */
#include "config.h"


#include "rbflame/mem.h"
#include "rbflame/profile.h"
#include "rbflame/ruby.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "sample.h"

/* Stops the thread holding the GVL (or, the GVL in transit, those that
 * may take it), reads all stacks, resumes. When no thread we hold owns the GVL (none held it, or
 * the one we stopped had just released it), another may take it while we
 * read: then the read counts only if a second read finds exactly the
 * same. --nonblocking
 * never stops anything: every read is checked that way, a seqlock of
 * sorts whose sequence number is each thread's control-frame pointer and
 * a digest of its frames. */
void
sample_ruby_tick(struct sampler *s)
{
	struct gvl_hold h = { .keep = true, .prefetch = true };
	uint64_t t0 = now_ns();
	bool frozen;
	int n;

	/* A holder interrupted with the other processes' stopped since. */
	if (s->prestop)
		t0 = s->prestop->interrupted_ns;
	if (s->opt.nonblocking)
		mem_flush(s->mem);
	else
		sample_gvl_hold(s, &h);
	frozen = h.frozen;
	/* No flush here: the last holder check flushed, and what it read is
	 * frozen now (or checked by a second read below). */
	n = sample_stacks_read(s);
	mem_hot_end(s->mem);
	for (int retry = 0; !frozen && n >= 0 && retry < GVL_RETRIES;
	     retry++) {
		uint64_t d = sample_stacks_digest(s->stacks, n);
		int n2;

		mem_flush(s->mem);
		mem_prefetch_hot(s->mem);
		n2 = sample_stacks_read(s);
		frozen = n2 == n && sample_stacks_digest(s->stacks, n2) == d;
		n = n2;
		s->prof->stats.rereads++;
		if (!frozen)
			s->prof->stats.torn++;
	}
	sample_gvl_release(s, &h);
	if (h.n)
		profile_times_note(&s->prof->stats.stop, now_ns() - t0);
	if (n < 0 || !frozen) {
		/* Unreadable, or still changing after every re-read: a torn
		 * snapshot is dropped, never recorded. */
		s->prof->stats.failed++;
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &s->stacks[i];

		if (!sample_thread_wanted(s, sample_ruby_tid(s, st), st->name))
			s->prof->stats.threads_left_out++;
		else if (st->nframes < 0)
			s->prof->stats.failed++;
		else if (st->nframes > 0 && !sample_stray_stack(s, st))
			sample_record_ruby(s, st);
	}
	sample_stacks_grow(s, n);
}
