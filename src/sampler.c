// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * One sampling round over the target's threads.
 *
 * Threads are stopped one at a time and for as short as possible: the
 * stop covers PTRACE_INTERRUPT, PTRACE_GETREGS and the unwind (raw
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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "rbflame/error.h"
#include "rbflame/intern.h"
#include "rbflame/mem.h"
#include "rbflame/proc.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/symtab.h"
#include "rbflame/unwind.h"
#include "rbflame/xmalloc.h"

#define STOP_TIMEOUT_NS (200ull * 1000000ull)
#define NAME_REFRESH_TICKS 64
#define BLOCK_PROBE_BYTES 256

struct thread_priv {
	char root[160];		/* 'thread TID "NAME"' */
	uint64_t root_tick;	/* when the name was last read */
	bool have_root;
	/* The stack of the last blocking syscall seen. */
	bool cached;
	struct proc_syscall sc;
	uint64_t probe_hash;
	uint64_t ips[SAMPLER_MAX_FRAMES];
	int nips;
};

/* ip -> frame id, so each address is named once. Key: ip << 1 | leaf. */
struct ip_cache {
	uint64_t *keys;
	uint32_t *ids;
	size_t n, cap;		/* cap is a power of two */
};

static struct ip_cache *
ip_cache_create(void)
{
	struct ip_cache *c = xcalloc(1, sizeof(*c));

	c->cap = 1024;
	c->keys = xcalloc(c->cap, sizeof(*c->keys));
	c->ids = xcalloc(c->cap, sizeof(*c->ids));
	return c;
}

static void
ip_cache_destroy(struct ip_cache *c)
{
	if (!c)
		return;
	free(c->keys);
	free(c->ids);
	free(c);
}

static void
ip_cache_clear(struct ip_cache *c)
{
	memset(c->keys, 0, c->cap * sizeof(*c->keys));
	c->n = 0;
}

static uint32_t *
ip_cache_slot(struct ip_cache *c, uint64_t key, bool *found)
{
	size_t i = (key * 0x9e3779b97f4a7c15ull) >> 20 & (c->cap - 1);

	while (c->keys[i] && c->keys[i] != key)
		i = (i + 1) & (c->cap - 1);
	*found = c->keys[i] == key;
	if (!*found) {
		if ((c->n + 1) * 2 > c->cap) {
			struct ip_cache big = { .cap = c->cap * 2 };

			big.keys = xcalloc(big.cap, sizeof(*big.keys));
			big.ids = xcalloc(big.cap, sizeof(*big.ids));
			for (size_t j = 0; j < c->cap; j++) {
				bool f;

				if (c->keys[j])
					*ip_cache_slot(&big, c->keys[j], &f) =
						c->ids[j];
			}
			big.n = c->n;
			free(c->keys);
			free(c->ids);
			*c = big;
			return ip_cache_slot(c, key, found);
		}
		c->keys[i] = key;
		c->n++;
	}
	return &c->ids[i];
}

static void
thread_gone(struct target_thread *th, void *arg)
{
	free(th->priv);
	th->priv = NULL;
}

static int
setup_process(struct sampler *s)
{
	pid_t pid = s->t->pid;

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
	if (s->unwinder)
		unwind_destroy(s->unwinder);
	if (s->symtab)
		symtab_destroy(s->symtab);
	mem_destroy(s->mem);
	s->unwinder = NULL;
	s->symtab = NULL;
	s->mem = NULL;
}

int
sampler_init(struct sampler *s, struct target *t, struct profile *prof,
	     bool threads, uint64_t start_ns)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->prof = prof;
	s->threads = threads;
	s->start_ns = start_ns;
	s->names = ip_cache_create();
	t->thread_gone = thread_gone;
	t->thread_gone_arg = s;
	t->exec_seen = false;
	return setup_process(s);
}

void
sampler_fini(struct sampler *s)
{
	teardown_process(s);
	ip_cache_destroy(s->names);
	s->names = NULL;
}

static struct thread_priv *
priv_of(struct target_thread *th)
{
	if (!th->priv)
		th->priv = xcalloc(1, sizeof(struct thread_priv));
	return th->priv;
}

/* 'thread TID "NAME"' with '"', '\' and ';' escaped. */
static void
thread_root(struct sampler *s, pid_t tid, struct thread_priv *tp)
{
	char comm[64];
	size_t o;

	if (tp->have_root && s->tick - tp->root_tick < NAME_REFRESH_TICKS)
		return;
	if (proc_thread_comm(s->t->pid, tid, comm, sizeof(comm)) < 0 &&
	    tp->have_root)
		return;
	o = snprintf(tp->root, sizeof(tp->root), "thread %d \"",
		     (int)tid);
	for (const char *c = comm; *c && o + 6 < sizeof(tp->root); c++) {
		if (*c == '"' || *c == '\\') {
			tp->root[o++] = '\\';
			tp->root[o++] = *c;
		} else if (*c == ';') {
			o += snprintf(tp->root + o, 5, "\\x3b");
		} else {
			tp->root[o++] = *c;
		}
	}
	tp->root[o++] = '"';
	tp->root[o] = '\0';
	tp->have_root = true;
	tp->root_tick = s->tick;
}

static uint64_t
probe_hash(struct sampler *s, uint64_t sp, bool *ok)
{
	unsigned char buf[BLOCK_PROBE_BYTES];

	*ok = mem_read(s->mem, sp, buf, sizeof(buf)) == 0;
	return *ok ? intern_hash(buf, sizeof(buf)) : 0;
}

static bool
same_block(const struct proc_syscall *a, const struct proc_syscall *b)
{
	return a->kind == PSC_BLOCKED && b->kind == PSC_BLOCKED &&
	       a->nr == b->nr && a->sp == b->sp && a->pc == b->pc;
}

/* Names the ips (innermost first) and records the sample. */
static void
record(struct sampler *s, pid_t tid, struct thread_priv *tp,
       const uint64_t *ips, int n)
{
	uint32_t frames[SAMPLER_MAX_FRAMES + 1];
	size_t d = 0;

	if (s->threads) {
		thread_root(s, tid, tp);
		frames[d++] = profile_frame(s->prof, tp->root);
	}
	for (int i = n - 1; i >= 0; i--) {
		/* A return address points after the call: name the call. */
		bool leaf = i == 0;
		uint64_t ip = leaf ? ips[i] : ips[i] - 1;
		bool found;
		uint32_t *id = ip_cache_slot(s->names, ip << 1 | leaf, &found);

		if (!found) {
			char name[512];

			symtab_frame_name(s->symtab, ip, name, sizeof(name));
			*id = profile_frame(s->prof, name);
		}
		frames[d++] = *id;
	}
	profile_add(s->prof, now_ns() - s->start_ns, tid, frames, d);
}

/* Samples one thread. Returns 0 when a stack was recorded. */
static int
sample_thread(struct sampler *s, struct target_thread *th, pid_t tid)
{
	struct thread_priv *tp = priv_of(th);
	struct proc_syscall sc = { .kind = PSC_UNKNOWN };
	struct user_regs_struct regs;
	uint64_t ips[SAMPLER_MAX_FRAMES];
	uint64_t h = 0, stopped_ns;
	bool hashed = false;
	int n;

	mem_flush(s->mem);
	if (th->syscall_fd >= 0)
		proc_syscall_read_fd(th->syscall_fd, &sc);

	if (sc.kind == PSC_BLOCKED) {
		h = probe_hash(s, sc.sp, &hashed);
		if (hashed && tp->cached && same_block(&tp->sc, &sc) &&
		    tp->probe_hash == h) {
			s->prof->stats.blocked_reused++;
			record(s, tid, tp, tp->ips, tp->nips);
			return 0;
		}
		if (proc_syscall_nonrestartable(sc.nr)) {
			struct proc_syscall again;

			/* Never interrupt: unwind from what the kernel says,
			 * and keep it only if the block did not end. */
			memset(&regs, 0, sizeof(regs));
			regs.rip = sc.pc;
			regs.rsp = sc.sp;
			n = unwind_stack(s->unwinder, tid, &regs, ips,
					 SAMPLER_MAX_FRAMES);
			if (n <= 0 || proc_syscall_read_fd(th->syscall_fd,
							   &again) < 0 ||
			    !same_block(&sc, &again))
				return -1;
			tp->cached = hashed;
			tp->sc = sc;
			tp->probe_hash = h;
			memcpy(tp->ips, ips, n * sizeof(*ips));
			tp->nips = n;
			s->prof->stats.blocked_reused++;
			record(s, tid, tp, ips, n);
			return 0;
		}
	}

	if (target_interrupt(s->t, th) < 0)
		return -1;
	if (target_wait_stopped(s->t, th, STOP_TIMEOUT_NS) < 0) {
		debug_msg("thread %d did not stop: %s", (int)tid,
			  strerror(errno));
		return -1;
	}
	/* Events may have moved the thread table: look it up again. */
	th = target_thread_find(s->t, tid);
	if (!th)
		return -1;
	stopped_ns = th->stopped_at_ns;
	mem_flush(s->mem);
	if (target_get_regs(th, &regs) < 0) {
		target_resume(s->t, th);
		return -1;
	}
	target_fix_interrupted_syscall(s->t, th, &regs);
	n = unwind_stack(s->unwinder, tid, &regs, ips, SAMPLER_MAX_FRAMES);
	target_resume(s->t, th);
	profile_note_stop(s->prof, now_ns() - stopped_ns);
	if (n <= 0)
		return -1;

	/* Remember the stack of a blocking call for the next ticks. */
	tp->cached = hashed && sc.kind == PSC_BLOCKED &&
		     regs.rsp == sc.sp && regs.rip == sc.pc;
	if (tp->cached) {
		tp->sc = sc;
		tp->probe_hash = h;
		memcpy(tp->ips, ips, n * sizeof(*ips));
		tp->nips = n;
	}
	record(s, tid, tp, ips, n);
	return 0;
}

void
sampler_tick(struct sampler *s)
{
	struct target *t = s->t;
	pid_t tids[4096];
	size_t n = 0;

	if (t->exec_seen) {
		/* A new program image: new maps, new symbols. */
		teardown_process(s);
		ip_cache_clear(s->names);
		t->exec_seen = false;
		if (setup_process(s) < 0)
			return;
	}
	s->tick++;
	s->prof->stats.ticks++;
	/* The thread array changes under us as events are handled: walk a
	 * copy of the tids. */
	for (size_t i = 0; i < t->nthreads && n < 4096; i++)
		tids[n++] = t->threads[i].tid;
	for (size_t i = 0; i < n && !t->exited && !*t->stop_flag; i++) {
		struct target_thread *th = target_thread_find(t, tids[i]);

		if (!th || th->state != TS_RUNNING)
			continue;
		if (sample_thread(s, th, tids[i]) < 0) {
			/* A thread that vanished is not a failed read. */
			if (target_thread_find(t, tids[i]))
				s->prof->stats.failed++;
		}
	}
}
