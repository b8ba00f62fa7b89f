// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The Ruby tick: every Ruby thread's stack read from the VM while the
 * GVL holder is stopped (or, with --nonblocking, read until two reads
 * agree), then recorded with the thread's state.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rbflame/error.h"
#include "rbflame/mem.h"
#include "rbflame/profile.h"
#include "rbflame/ruby.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/xmalloc.h"
#include "sample.h"

/*
 * --nonblocking: nothing is stopped, so a read is smeared over the
 * microseconds it takes, and a thread's stack counts when two reads in a
 * row agree on it: its frames from the root, their lines but the leaf's
 * (a leaf that only moved on to another line is the same method, read
 * at one moment). Under the GVL one thread runs Ruby code at a time, so
 * the others agree at once and only the runner is read again. A runner
 * still changing after every re-read keeps what its last two reads
 * agree on from the root, under a "[torn]" leaf: the methods it was in
 * are counted, the frames the reads could not settle are named as such.
 * Dropping such a sample instead biased the profile against code whose
 * stack moves fast (a 20-deep call-heavy loop: 14.9% of the ticks lost).
 * A frame two reads agree on was there at both, or was popped and
 * pushed again the same: the stack kept is one the thread had.
 */

/* A frame of the previous read, kept root first (struct nb_thread says
 * whose). */
struct nb_frame {
	const char *label, *path;
	int line;
};

/* Frames, counted from the root, that reads a and b agree on; *same when
 * they agree on all of them (the leaf's line aside). */
static int
nb_agree(const struct nb_frame *a, int na, const struct ruby_stack *b,
	 bool *same)
{
	int nb = b->nframes, k;

	for (k = 0; k < na && k < nb; k++) {
		const struct ruby_frame *f = &b->frames[nb - 1 - k];
		bool leaf = k == na - 1 && k == nb - 1;

		if (a[k].label != f->label || a[k].path != f->path ||
		    (!leaf && a[k].line != f->line))
			break;
	}
	*same = k == na && k == nb;
	return k;
}

/* Keeps read n's stacks, root first, in s->nb for the next read. */
static void
nb_keep(struct sampler *s, int n)
{
	size_t need = 0, at = 0;

	for (int i = 0; i < n; i++)
		need += s->stacks[i].nframes > 0 ? s->stacks[i].nframes : 0;
	if (need > s->nb_cap) {
		free(s->nb);
		s->nb_cap = need + need / 2 + 64;
		s->nb = xmalloc(s->nb_cap * sizeof(*s->nb));
	}
	if ((size_t)n > s->nb_threads_cap) {
		free(s->nb_at);
		s->nb_threads_cap = (size_t)n + 16;
		s->nb_at = xmalloc(s->nb_threads_cap * sizeof(*s->nb_at));
	}
	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &s->stacks[i];

		s->nb_at[i].thread = st->thread;
		s->nb_at[i].cfp = st->cfp;
		s->nb_at[i].at = at;
		s->nb_at[i].n = st->nframes > 0 ? st->nframes : 0;
		for (int k = 0; k < s->nb_at[i].n; k++) {
			const struct ruby_frame *f =
				&st->frames[st->nframes - 1 - k];

			s->nb[at++] = (struct nb_frame){ f->label, f->path,
							 f->line };
		}
	}
	s->nb_n = n;
}

/* The previous read's entry of the thread at index i of this one. */
static const struct nb_thread *
nb_find(const struct sampler *s, int i, uint64_t thread)
{
	if (i < s->nb_n && s->nb_at[i].thread == thread)
		return &s->nb_at[i];
	for (int j = 0; j < s->nb_n; j++)
		if (s->nb_at[j].thread == thread)
			return &s->nb_at[j];
	return NULL;
}

/*
 * Reads until every thread's stack settled or GVL_RETRIES re-reads are
 * spent; then cuts each unsettled stack to its agreed root part under a
 * "[torn]" leaf (none agreed: the thread's sample is dropped, nframes -1).
 * The stacks' count, or -1.
 */
static int
nonblocking_read(struct sampler *s)
{
	int n = sample_stacks_read(s);
	int agreed[RUBY_MAX_THREADS];
	bool stuck[RUBY_MAX_THREADS];
	bool settled = false, compared = false;
	const char *torn = ruby_reader_torn(s->ruby);

	mem_hot_end(s->mem);
	for (int retry = 0; n >= 0 && !settled && retry < GVL_RETRIES;
	     retry++) {
		uint64_t sets = s->string_sets;
		int n2;

		nb_keep(s, n);
		mem_flush(s->mem);
		mem_prefetch_hot(s->mem);
		n2 = sample_stacks_read(s);
		s->prof->stats.rereads++;
		if (n2 < 0 || s->string_sets != sets) {
			/* Labels let go in between: pointers do not compare. */
			n = n2;
			compared = false;
			s->prof->stats.torn++;
			continue;
		}
		/* This set's marker: the reader's cuts carry it. */
		torn = ruby_reader_torn(s->ruby);
		compared = true;
		settled = true;
		for (int i = 0; i < n2; i++) {
			struct ruby_stack *st = &s->stacks[i];
			const struct nb_thread *p = nb_find(s, i, st->thread);
			bool same = false;

			agreed[i] = p && st->nframes >= 0
				? nb_agree(&s->nb[p->at], p->n, st, &same) : 0;
			/* Cut at a frame it could not read (taken for one
			 * popped under the read), the same in both reads and
			 * at the same control-frame pointer: no race, maybe
			 * memory that stays unreadable (a stop would count
			 * the read failed). Read again; still so after every
			 * re-read, it is failed. */
			stuck[i] = same && st->nframes > 0 &&
				   st->frames[0].label == torn &&
				   p->cfp == st->cfp;
			if (stuck[i]) {
				agreed[i] = -1;
				settled = false;
			} else if (same || (st->nframes >= 0 && agreed[i] == st->nframes)) {
				agreed[i] = -1;
			} else if (p && p->n > 0 && agreed[i] == p->n) {
				/* The other way round: this read adds frames
				 * to the last one's, a call made in between,
				 * or frames being popped as they were read (a
				 * control-frame array copied while the thread
				 * returns mixes both moments). The last read's
				 * stack, these frames from the root, is one the
				 * thread had: kept whole, no [torn] above it. */
				memmove(&st->frames[0],
					&st->frames[st->nframes - p->n],
					(size_t)p->n * sizeof(st->frames[0]));
				st->nframes = p->n;
				agreed[i] = -1;
			} else {
				settled = false;
			}
		}
		n = n2;
		if (!settled)
			s->prof->stats.torn++;
	}
	if (n < 0 || settled)
		goto count;
	if (!compared)
		return -1;
	/* Re-reads spent: what the last two reads agree on. */
	for (int i = 0; i < n; i++) {
		struct ruby_stack *st = &s->stacks[i];
		int k = agreed[i];

		if (stuck[i]) {
			st->nframes = -1;
			continue;
		}
		if (k < 0 || st->nframes < 0)
			continue;
		if (k == 0) {
			st->nframes = -1;
			continue;
		}
		memmove(&st->frames[1], &st->frames[st->nframes - k],
			(size_t)k * sizeof(st->frames[0]));
		st->frames[0] = (struct ruby_frame){ .label = torn };
		st->nframes = k + 1;
	}
count:
	/* Cut here, or by the reader at a popped frame: the same marker. */
	for (int i = 0; i < n; i++)
		if (s->stacks[i].nframes > 0 &&
		    s->stacks[i].frames[0].label == torn)
			s->prof->stats.torn_kept++;
	return n;
}

/* Whether each of the n stacks read was copied from its thread's last
 * (struct ruby_stack's reused), none read from the target's memory. */
static bool
all_copied(const struct ruby_stack *st, int n)
{
	for (int i = 0; i < n; i++)
		if (!st[i].reused)
			return false;
	return true;
}

/*
 * --max-pause: whether this tick can afford to stop the process. The
 * budget starts empty and grows with wall time at the share allowed, up
 * to one second's worth (a burst no larger than that), and each stop spends what it
 * took, from the holder's interrupt to the last resume; a stop that cost
 * more leaves a debt. A tick stops when the credit covers what the last
 * stop took (or is full: a stop dearer than a second's budget is paid
 * off before the next); otherwise it reads without stopping, as
 * --nonblocking does.
 */
bool
sample_pause_affordable(struct sampler *s, uint64_t now)
{
	double cap = s->opt.max_pause * 1e9;

	if (s->opt.max_pause <= 0)
		return true;
	/* It starts empty: the first stop learns what a stop costs, the
	 * next waits until the share has paid for it. */
	if (s->pause_at_ns && now > s->pause_at_ns)
		s->pause_credit_ns += (double)(now - s->pause_at_ns) *
				      s->opt.max_pause;
	if (s->pause_credit_ns > cap)
		s->pause_credit_ns = cap;
	s->pause_at_ns = now;
	if (s->pause_credit_ns >= (double)s->pause_last_ns ||
	    s->pause_credit_ns >= cap)
		return true;
	if (!s->pause_said) {
		s->pause_said = true;
		notice_msg("process %d: its stops would take more than %g%% of the time (--max-pause): ticks past that are read without stopping",
		     (int)s->pid, s->opt.max_pause * 100);
	}
	return false;
}

/* Resumes what h holds; the stop's time, from t0, goes to the stats
 * and the --max-pause budget. */
static void
release(struct sampler *s, struct gvl_hold *h, uint64_t t0)
{
	sample_gvl_release(s, h);
	if (h->n) {
		uint64_t took = now_ns() - t0;

		profile_times_note(&s->prof->stats.stop, took);
		s->pause_last_ns = took;
		s->pause_credit_ns -= (double)took;
	}
	h->n = 0;
}

/* One stopped tick in this many reads held, to keep the stacks of the
 * threads that went idle (stacks_keep()): a read decoded after the
 * resume keeps none. */
#define DEFER_KEEP_EVERY 8
#define DEFER_BACKOFF_MAX 64

/*
 * The GVL's holder stopped, every stack frozen, and last round's lines
 * fetched in one call during the stop: the target resumes at once and
 * the stacks are decoded after, from the cache alone (mem_cache_only(),
 * on), which holds the memory of the stop's moment. A read that needs a
 * line the prefetch did not bring (a new method, a thread that woke) is
 * refused, its lines noted for the next prefetch, and false returned (*n
 * not set): the caller stops the holder again and reads held.
 */
static bool
deferred_read(struct sampler *s, struct gvl_hold *h, uint64_t t0, int *n)
{
	uint64_t refused;
	int got;

	release(s, h, t0);
	ruby_reader_set_unstopped(s->ruby, false);
	s->deferring = true;
	got = sample_stacks_read(s);
	s->deferring = false;
	refused = mem_refused(s->mem);
	mem_cache_only(s->mem, false);
	mem_hot_end(s->mem);
	if (!refused) {
		*n = got;
		s->prof->stats.deferred++;
		s->defer_backoff = 0;
		return true;
	}
	/* A refusal costs a second stop. Where the lines keep changing (a
	 * server's threads taking turns) the next ones read held, twice
	 * as many after each refusal in a row, DEFER_BACKOFF_MAX at most. */
	s->prof->stats.deferred_refused++;
	if (!s->defer_backoff)
		s->defer_backoff = 1;
	s->defer_skip = s->defer_backoff;
	if (s->defer_backoff < DEFER_BACKOFF_MAX)
		s->defer_backoff *= 2;
	return false;
}

/*
 * A process none of whose threads ran since the last tick read it (a
 * server between requests, a worker's master) has the stacks that read
 * found: its CPU time, the sum of its threads' (the process's
 * CLOCK_PROCESS_CPUTIME, one clock_gettime), has not moved. Such a tick
 * records that read again: no idle proof, no fetch, no stop. An idle
 * Puma (a master and 2 workers, 47 threads) cost rbflame 4.0% of a core
 * at 99 Hz, a schedstat pread a thread a tick for the proofs alone.
 *  - The kernel adds a thread's run time when it leaves its CPU or at a
 *    scheduler tick (thread_group_cputime() reads no running thread's
 *    pending time): one that woke since and is on a CPU now may not
 *    show yet. Running Ruby code it owns the GVL, so a GVL with an owner
 *    is no quiet tick; one that ran Ruby code and let the GVL go within
 *    that same stretch on its CPU is the one case this misses, for a
 *    tick (the next finds the time added).
 *  - The base is the CPU time read before an exact read: stopped and
 *    frozen, or unstopped and settled, every stack read, none dropped.
 *  - cpu mode: nothing ran, nothing is recorded.
 */
bool
sample_quiet(struct sampler *s)
{
	struct timespec ts;

	if (s->quiet_asked)
		return s->quiet;
	s->quiet_asked = true;
	s->quiet = false;
	s->quiet_now_ns = 0;
	/* Copies of a kind: off where the copies are (--native,
	 * RBFLAME_NO_SAME: sample_stacks_same()). */
	if (!s->cpu_clock_ok || !s->same_on)
		return false;
	if (clock_gettime(s->cpu_clock, &ts) < 0) {
		s->quiet_base_ok = false;
		return false;
	}
	s->quiet_now_ns = (uint64_t)ts.tv_sec * 1000000000ull +
			  (uint64_t)ts.tv_nsec;
	if (!s->quiet_base_ok || s->quiet_now_ns != s->quiet_base_ns)
		return false;
	mem_flush(s->mem);
	if (ruby_gvl_owned(s->ruby) != 0)
		return false;
	s->quiet = true;
	return true;
}

/* Records the n stacks read (or of a quiet tick, the last read's). */
static void
record_stacks(struct sampler *s, int n)
{
	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &s->stacks[i];

		if (!sample_thread_wanted(s, sample_ruby_tid(s, st), st->name))
			s->prof->stats.threads_left_out++;
		else if (st->nframes < 0)
			s->prof->stats.failed++;
		else if (st->nframes > 0 && !sample_stray_stack(s, st))
			sample_record_ruby(s, st);
	}
}

/* Whether the tick's read of n stacks can be a quiet tick's base: all
 * read (room for every thread), none failed, dropped or cut. */
static bool
read_exact(const struct sampler *s, int n, bool frozen, uint64_t torn_kept,
	   uint64_t woke)
{
	if (n < 0 || !frozen || n >= s->stacks_cap ||
	    s->prof->stats.torn_kept != torn_kept ||
	    s->prof->stats.woke_in_stop != woke)
		return false;
	for (int i = 0; i < n; i++)
		if (s->stacks[i].nframes < 0)
			return false;
	return true;
}

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
	bool decided = s->pause_decided;
	uint64_t torn_kept = s->prof->stats.torn_kept;
	uint64_t woke = s->prof->stats.woke_in_stop;
	bool keep;
	int n;

	if (sample_quiet(s)) {
		/* What the last read recorded, added again: a quiet Puma's
		 * records took 29% of rbflame's CPU, frame ids, states and
		 * roots made anew for the same stacks every tick (perf). */
		s->prof->stats.quiet_ticks++;
		s->proofs_open = false;
		if (!s->opt.cpu && !sample_memo_replay(s)) {
			sample_memo_begin(s);
			record_stacks(s, s->nstacks);
			sample_memo_end(s);
		}
		return;
	}
	/* A holder interrupted with the other processes' stopped since
	 * (its idle proofs taken then); otherwise no proof is this tick's
	 * until sample_gvl_hold() takes them. */
	if (s->prestop)
		t0 = s->prestop->interrupted_ns;
	else if (!s->prestop_free)
		s->proofs_open = false;
	/* A round that interrupts every process's holder first asked the
	 * budget before the interrupt (sampler_tick_begin(); sampler_tick()
	 * clears the answer after the tick). */
	if (s->opt.nonblocking ||
	    !(decided ? s->pause_ok : sample_pause_affordable(s, t0))) {
		if (!s->opt.nonblocking)
			s->prof->stats.unstopped++;
		/* Last round's lines in one call, as a stopped tick
		 * fetches them, and this round's recorded: read on demand,
		 * a server's 47 threads cost a call per line (rbflame 11%
		 * -> 15.5% of a core at --max-pause 1, bench/server). */
		mem_flush(s->mem);
		mem_prefetch_hot(s->mem);
		mem_hot_begin(s->mem);
		ruby_reader_set_cut_torn(s->ruby, true);
		ruby_reader_set_unstopped(s->ruby, true);
		n = nonblocking_read(s);
		ruby_reader_set_unstopped(s->ruby, false);
		ruby_reader_set_cut_torn(s->ruby, false);
		frozen = true;
		goto record;
	}
	sample_gvl_hold(s, &h);
	frozen = h.frozen;
	/* The stop begins at the first interrupt: the holder's lookup and
	 * the fetch that warms the hold (sample_gvl_hold()) ran beside the
	 * target, as woven_tick() counts. */
	if (h.n && h.v[0]->interrupted_ns > t0)
		t0 = h.v[0]->interrupted_ns;
	if (frozen && h.hot && ++s->stopped_ticks % DEFER_KEEP_EVERY &&
	    !(s->defer_skip && s->defer_skip--) &&
	    mem_cache_only(s->mem, true)) {
		if (deferred_read(s, &h, t0, &n))
			goto record;
		/* A line the stop did not fetch: stopped again, the new
		 * lines in the prefetch, read held. */
		t0 = now_ns();
		h = (struct gvl_hold){ .keep = true, .prefetch = true };
		sample_gvl_hold(s, &h);
		frozen = h.frozen;
		if (h.n && h.v[0]->interrupted_ns > t0)
			t0 = h.v[0]->interrupted_ns;
	}
	/* No flush here: the last holder check flushed, and what it read is
	 * frozen now (or checked by a second read below). A hold that
	 * stopped no thread (the GVL free, or its holder asleep in a call
	 * never interrupted: a server waiting for requests) fetched nothing
	 * yet: last round's lines in one go, and this round's recorded. */
	if (!h.hot) {
		mem_prefetch_hot(s->mem);
		mem_hot_begin(s->mem);
	}
	/* Not frozen: the two reads below run beside the GVL's owner. */
	ruby_reader_set_unstopped(s->ruby, !frozen);
	n = sample_stacks_read(s);
	mem_hot_end(s->mem);
	/* Every stack a copy its idle proof vouches for (a process whose
	 * threads all sleep): no thread ran Ruby code, or its proof fails
	 * after the tick (sample_idle_recheck()) and its sample goes. A
	 * second read would copy the same again. */
	if (!frozen && n > 0 && all_copied(s->stacks, n))
		frozen = true;
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
		if (frozen || n < 0)
			break;
		s->prof->stats.torn++;
		/* The stacks moved: a thread took the GVL after the hold found
		 * it free (a server between requests: 27 of the 44 failed
		 * reads of one run of tests/ruby/servers.sh). Stopped now, it
		 * freezes every stack and the next read is one; comparing
		 * reads against a runner instead lost the tick after
		 * GVL_RETRIES. */
		h.prefetch = false;
		sample_gvl_hold(s, &h);
		if (h.frozen) {
			mem_flush(s->mem);
			ruby_reader_set_unstopped(s->ruby, false);
			n = sample_stacks_read(s);
			frozen = true;
		}
	}
	ruby_reader_set_unstopped(s->ruby, false);
	release(s, &h, t0);
record:
	if (n > 0)
		sample_idle_recheck(s, n);
	else
		s->proofs_open = false;
	s->quiet_base_ok = s->quiet_now_ns &&
			   read_exact(s, n, frozen, torn_kept, woke);
	s->quiet_base_ns = s->quiet_now_ns;
	if (n < 0 || !frozen) {
		/* Unreadable, or still changing after every re-read: a torn
		 * snapshot is dropped, never recorded. */
		s->prof->stats.failed++;
		return;
	}
	/* An exact read's samples are kept for the quiet ticks it may
	 * stand for (none in cpu mode, whose quiet ticks record nothing);
	 * another's never stand for one. */
	keep = !s->opt.cpu && s->quiet_base_ok;
	if (keep)
		sample_memo_begin(s);
	record_stacks(s, n);
	if (keep)
		sample_memo_end(s);
	sample_stacks_grow(s, n);
}
