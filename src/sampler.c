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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>

#include "rbflame/error.h"
#include "rbflame/intern.h"
#include "rbflame/mem.h"
#include "rbflame/proc.h"
#include "rbflame/ruby.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/symtab.h"
#include "rbflame/unwind.h"
#include "rbflame/weave.h"
#include "rbflame/xmalloc.h"

#define STOP_TIMEOUT_NS (200ull * 1000000ull)
#define PROBE_EVERY_NS (50ull * 1000000ull)	/* look for the VM again */
#define PROBE_FOR_NS (3000ull * 1000000ull)	/* then decide */
#define GVL_RETRIES 3
#define NAME_REFRESH_TICKS 64
#define BLOCK_PROBE_BYTES 256
/* cpu mode: a thread whose CPU time has not moved for this long is not on
 * a CPU, whatever its kernel state (longer than the kernel's accounting
 * tick, so a running thread's time has moved within it). */
#define CPU_STALE_NS (12ull * 1000000ull)

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
	/* cpu mode: the thread's CPU time and when it last moved */
	bool cpu_known;
	uint64_t cpu_ns, cpu_moved_ns;
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
	pid_t pid = s->pid;

	s->mode = SAMPLER_PENDING;
	s->pending_since = now_ns();
	s->next_probe = 0;

	s->mem = mem_create_live(pid);
	s->symtab = symtab_create(pid);
	if (!s->symtab)
		return -1;
	s->unwinder = unwind_create(pid, s->mem, s->symtab);
	if (!s->unwinder)
		return -1;
	return 0;
}

static void native_destroy(struct sampler_native *n);

static void
teardown_process(struct sampler *s)
{
	ruby_reader_destroy(s->ruby);
	s->ruby = NULL;
	/* --native: names and the VM's file belong to the old image. */
	native_destroy(s->nat);
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
	s->names = ip_cache_create();
	s->texts = xcalloc(TEXT_SLOTS, sizeof(*s->texts));
	t->thread_gone = thread_gone;
	t->thread_gone_arg = s;
	t->exec_seen = false;
	if (target_process_find(t, s->pid))
		target_process_find(t, s->pid)->exec_seen = false;
	return setup_process(s);
}

int
sampler_init_child(struct sampler *s, const struct sampler *parent,
		   pid_t pid)
{
	memset(s, 0, sizeof(*s));
	s->t = parent->t;
	s->pid = pid;
	s->prof = parent->prof;
	s->opt = parent->opt;
	s->start_ns = parent->start_ns;
	s->names = ip_cache_create();
	s->texts = xcalloc(TEXT_SLOTS, sizeof(*s->texts));
	if (setup_process(s) < 0)
		return -1;
	if (parent->mode == SAMPLER_RUBY) {
		/* fork copies the address space: same VM, same addresses. */
		s->vm = parent->vm;
		s->ruby = ruby_reader_create(&s->vm, s->mem, s->pid);
		s->mode = SAMPLER_RUBY;
	} else if (parent->mode == SAMPLER_NATIVE) {
		s->mode = SAMPLER_NATIVE;
	}
	return 0;
}

void
sampler_fini(struct sampler *s)
{
	teardown_process(s);
	ip_cache_destroy(s->names);
	s->names = NULL;
	free(s->texts);
	s->texts = NULL;
	free(s->stacks);
	s->stacks = NULL;
}

static struct thread_priv *
priv_of(struct target_thread *th)
{
	if (!th->priv)
		th->priv = xcalloc(1, sizeof(struct thread_priv));
	return th->priv;
}

/* A thread of this sampler's process, by tid (a forked child's VM lists
 * its parent's threads until it has cleaned up after the fork). */
static struct target_thread *
own_thread(struct sampler *s, pid_t tid)
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
static bool
stray_stack(struct sampler *s, const struct ruby_stack *st)
{
	return st->gone || (st->tid && !own_thread(s, st->tid));
}

/* cpu mode: is th on a CPU at this tick? running says what the kernel's
 * state says (not asleep in a syscall); its CPU time, read through the
 * schedstat file kept open since attach, must also have moved lately, so
 * a runnable thread that gets no CPU does not count either. Called for
 * every thread every tick, which keeps the last reading fresh. */
static bool
on_cpu(struct sampler *s, struct target_thread *th, bool running)
{
	struct thread_priv *tp = priv_of(th);
	uint64_t ns, now = now_ns();

	if (th->schedstat_fd < 0 ||
	    proc_schedstat_read_fd(th->schedstat_fd, &ns) < 0)
		return running;
	if (!tp->cpu_known || ns != tp->cpu_ns) {
		tp->cpu_known = true;
		tp->cpu_ns = ns;
		tp->cpu_moved_ns = now;
	}
	return running && now - tp->cpu_moved_ns <= CPU_STALE_NS;
}

/* 'WHAT ID "NAME"' ('thread TID "NAME"', 'process PID "CMD"') with '"'
 * and '\' escaped by a backslash and ';' as \x3b. */
static void
root_text(char *out, size_t cap, const char *what, pid_t id,
	  const char *name)
{
	size_t o = snprintf(out, cap, "%s %d \"", what, (int)id);

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
static void
process_root(struct sampler *s)
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
static void
thread_root(struct sampler *s, pid_t tid, struct thread_priv *tp)
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
	uint32_t frames[SAMPLER_MAX_FRAMES + 2];
	size_t d = 0;

	if (s->opt.subprocesses) {
		process_root(s);
		frames[d++] = s->proc_root_id;
	}
	if (s->opt.threads) {
		thread_root(s, tid, tp);
		frames[d++] = tp->root_id;
	}
	for (int i = n - 1; i >= 0; i--) {
		/* A return address points after the call: name the call. */
		bool leaf = i == 0;
		uint64_t ip = leaf ? ips[i] : ips[i] - 1;
		bool found;
		uint32_t *id = ip_cache_slot(s->names, ip << 1 | leaf, &found);

		if (!found) {
			char name[512];
			struct symtab_frame fr;

			symtab_frame_info(s->symtab, ip, &fr, name,
					  sizeof(name));
			*id = profile_frame_make(s->prof,
				&(struct profile_frame_desc){
					.kind = PROFILE_FRAME_NATIVE,
					.name = fr.symbol,
					.file = fr.module,
					.build_id = fr.build_id[0] ? fr.build_id
								   : NULL,
					.addr = fr.addr,
					.text = name,
				});
		}
		frames[d++] = *id;
	}
	profile_add_sample(s->prof, now_ns() - s->start_ns, s->pid, tid,
			   PROFILE_STATE_UNKNOWN, frames, d);
}

/* True when th sleeps in a call that an interrupt would make fail (a C
 * extension may wait in epoll_wait holding the GVL): such a thread is
 * never stopped; the double read checks what it holds still. */
static bool
in_nonrestartable(struct target_thread *th)
{
	struct proc_syscall sc;

	return th->syscall_fd >= 0 &&
	       proc_syscall_read_fd(th->syscall_fd, &sc) == 0 &&
	       sc.kind == PSC_BLOCKED && proc_syscall_nonrestartable(sc.nr);
}

/* The stack of th, asleep in the non-restartable call sc: never
 * interrupted, it is unwound from the sp and pc the kernel reports, and
 * kept only if th is still in the same block afterwards. The count, or
 * -1. */
static int
unwind_blocked(struct sampler *s, struct target_thread *th,
	       const struct proc_syscall *sc, uint64_t *ips)
{
	struct proc_syscall again;
	int n = unwind_stack_blocked(s->unwinder, th->tid, sc->sp, sc->pc,
				     ips, SAMPLER_MAX_FRAMES);

	if (n <= 0 || proc_syscall_read_fd(th->syscall_fd, &again) < 0 ||
	    !same_block(sc, &again))
		return -1;
	s->prof->stats.blocked_reused++;
	return n;
}

/* Waits for the stop of th (sent PTRACE_INTERRUPT), unwinds it from its
 * registers, resumes it. The count (<= 0: no stack); *stop_ns: how long
 * it was stopped since the interrupt, 0 when it never stopped. */
static int
unwind_stopped(struct sampler *s, struct target_thread *th, uint64_t *ips,
	       uint64_t *stop_ns)
{
	int n;

	*stop_ns = 0;
	if (target_wait_stopped(s->t, th, STOP_TIMEOUT_NS) < 0) {
		debug_msg("thread %d did not stop: %s", (int)th->tid,
			  strerror(errno));
		return -1;
	}
	/* Its stack ran until now: what the cache holds of it is stale. */
	mem_flush(s->mem);
	n = unwind_stack(s->unwinder, th->tid, &th->regs, ips,
			 SAMPLER_MAX_FRAMES);
	target_resume(s->t, th);
	*stop_ns = now_ns() - th->stopped_at_ns;
	return n;
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
	struct thread_priv *tp = priv_of(th);
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
		if (hashed && tp->cached && same_block(&tp->sc, &sc) &&
		    tp->probe_hash == h) {
			s->prof->stats.blocked_reused++;
			record(s, th->tid, tp, tp->ips, tp->nips);
			return 0;
		}
		if (proc_syscall_nonrestartable(sc.nr)) {
			n = unwind_blocked(s, th, &sc, ips);
			if (n < 0)
				return -1;
			keep_block(tp, hashed, &sc, h, ips, n);
			record(s, th->tid, tp, ips, n);
			return 0;
		}
	}

	if (target_interrupt(s->t, th) < 0)
		return -1;
	n = unwind_stopped(s, th, ips, &stop_ns);
	if (stop_ns)
		profile_note_stop(s->prof, stop_ns);
	if (n <= 0)
		return -1;
	/* The registers of the stop say whether it was in the block. */
	keep_block(tp, hashed && sc.kind == PSC_BLOCKED &&
		       th->regs.rsp == sc.sp && th->regs.rip == sc.pc,
		   &sc, h, ips, n);
	record(s, th->tid, tp, ips, n);
	return 0;
}

/* A native tick: every thread of the process, one short stop each (or
 * none, for a thread whose stack is frozen in a blocking call). */
static void
native_tick(struct sampler *s)
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
		/* cpu mode: sample_thread skips a thread asleep in the
		 * kernel; one whose CPU time stands still is off a CPU too. */
		if (s->opt.cpu && !on_cpu(s, th, true))
			continue;
		/* A thread that vanished is not a failed read. */
		if (sample_thread(s, th) < 0 && th->state != TS_GONE)
			s->prof->stats.failed++;
	}
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
	if (ruby_vm_find(s->pid, s->mem, s->symtab, s->opt.force_version,
			 &vm) == 0) {
		if (s->opt.force_version)
			error_msg("warning: reading Ruby %s with the layout of %s (--force-version): frames may be wrong if the two differ",
				  vm.version, vm.layout->version);
		s->vm = vm;
		s->ruby = ruby_reader_create(&s->vm, s->mem, s->pid);
		s->mode = SAMPLER_RUBY;
		free(s->prof->meta.ruby_version);
		s->prof->meta.ruby_version = xstrdup(vm.version);
		debug_msg("Ruby %s: reading Ruby stacks", vm.version);
		return;
	}
	switch (errno) {
	case ENOTSUP:
		s->fatal = ENOTSUP;
		ruby_vm_unsupported_msg(&vm, s->pid, s->fatal_msg,
					sizeof(s->fatal_msg));
		return;
	case EAGAIN:
		/* Ruby, but its VM is not there yet (or not found). */
		if (now - s->pending_since > PROBE_FOR_NS) {
			s->fatal = EIO;
			snprintf(s->fatal_msg, sizeof(s->fatal_msg),
				 "process %d runs Ruby %s but its VM could not be located (is it a supported build? try --debug)",
				 (int)s->pid, vm.version);
		}
		return;
	default:
		/* Right after exec the loader has not mapped libruby yet. */
		if (loader_busy(s->pid) &&
		    now - s->pending_since < PROBE_FOR_NS)
			return;
		s->mode = SAMPLER_NATIVE;
		if (s->pid != s->t->pid) {
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

/* The thread's state as leaf pseudo-frames (stackprof's GC names) and
 * as data. False when cpu mode leaves the thread out (off the CPU). */
static bool
stack_state(struct sampler *s, const struct ruby_stack *st,
	    const char *state[2], enum profile_state *pstate)
{
	char kstate = 'R';

	state[0] = state[1] = NULL;
	*pstate = PROFILE_STATE_RUNNING;
	switch (st->state) {
	case RUBY_STATE_GC_MARKING:
		state[0] = "(garbage collection)";
		state[1] = "(marking)";
		*pstate = PROFILE_STATE_MARKING;
		break;
	case RUBY_STATE_GC_SWEEPING:
		state[0] = "(garbage collection)";
		state[1] = "(sweeping)";
		*pstate = PROFILE_STATE_SWEEPING;
		break;
	case RUBY_STATE_GC:
		state[0] = "(garbage collection)";
		*pstate = PROFILE_STATE_GC;
		break;
	case RUBY_STATE_WAITING_GVL:
		state[0] = "(waiting for GVL)";
		*pstate = PROFILE_STATE_WAITING_GVL;
		kstate = 'S';
		break;
	case RUBY_STATE_NO_GVL:
		/* Sleeping in the kernel: blocked; on a CPU: a C extension
		 * working without the GVL. The thread's syscall file, open
		 * since attach, tells which without an open per tick. */
		kstate = 'S';
		{
			struct target_thread *th = own_thread(s, st->tid);
			struct proc_syscall sc;

			if (th && th->syscall_fd >= 0 &&
			    proc_syscall_read_fd(th->syscall_fd, &sc) == 0 &&
			    sc.kind == PSC_RUNNING)
				kstate = 'R';
		}
		state[0] = kstate == 'R' ? "(running without GVL)"
					 : "(blocked)";
		*pstate = kstate == 'R' ? PROFILE_STATE_NO_GVL
					: PROFILE_STATE_BLOCKED;
		break;
	default:
		break;
	}
	if (s->opt.cpu) {
		/* The GVL holder runs (or collects garbage) as far as the
		 * kernel goes: its CPU time decides. */
		struct target_thread *th = own_thread(s, st->tid);

		return th && on_cpu(s, th, kstate == 'R');
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

	if (!s->opt.threads) {
		profile_thread_name(s->prof, s->pid, st->tid, st->name);
		return PROFILE_NO_STR;
	}
	if (!name[0] && proc_thread_comm(s->pid, st->tid, comm,
					 sizeof(comm)) == 0)
		name = comm;
	root_text(root, sizeof(root), "thread", st->tid, name);
	return thread_frame(s, st->tid, name, root);
}

/* The frame id of one Ruby frame. */
static uint32_t
ruby_frame_id(struct sampler *s, const struct ruby_frame *f)
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
static size_t
ruby_roots(struct sampler *s, const struct ruby_stack *st, uint32_t *frames)
{
	uint32_t root = ruby_thread_root(s, st);
	size_t d = 0;

	if (s->opt.subprocesses) {
		process_root(s);
		frames[d++] = s->proc_root_id;
	}
	if (root != PROFILE_NO_STR)
		frames[d++] = root;
	return d;
}

/* Ends frames[0..d) with the state's leaf pseudo-frames and records it. */
static void
record_stack(struct sampler *s, const struct ruby_stack *st,
	     const char *const state[2], enum profile_state pstate,
	     uint32_t *frames, size_t d)
{
	for (int i = 0; i < 2 && state[i]; i++)
		frames[d++] = profile_frame_make(s->prof,
			&(struct profile_frame_desc){
				.kind = PROFILE_FRAME_STATE, .name = state[i],
			});
	profile_add_sample(s->prof, now_ns() - s->start_ns, s->pid,
			   st->tid, pstate, frames, d);
}

/* Records one Ruby stack (innermost first in st) as a sample, with the
 * thread's state as leaf pseudo-frames (stackprof's GC names). In cpu
 * mode, a thread off the CPU is not sampled. */
static void
record_ruby(struct sampler *s, const struct ruby_stack *st)
{
	uint32_t frames[RUBY_MAX_FRAMES + 5];
	const char *state[2];
	enum profile_state pstate;
	size_t d = ruby_roots(s, st, frames);

	if (!stack_state(s, st, state, &pstate))
		return;
	for (int i = st->nframes - 1; i >= 0; i--)
		frames[d++] = ruby_frame_id(s, &st->frames[i]);
	record_stack(s, st, state, pstate, frames, d);
}

/* A digest of what a read of all stacks saw: two equal digests across
 * two reads mean no thread ran Ruby code in between. */
static uint64_t
stacks_digest(const struct ruby_stack *st, int n)
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

/* The GVL holder's stop, as the Ruby and the woven tick take it. */
struct gvl_hold {
	bool keep;		/* holders that let the GVL go before their
				 * stop landed stay stopped too */
	bool prefetch;		/* each retry first fetches what the last
				 * round read, in one go */
	struct target_thread *v[GVL_RETRIES + 1]; /* stopped, holder last */
	int n;
	bool frozen;		/* a thread we hold owns the GVL */
};

/*
 * Stops the thread holding the GVL: while it is stopped no thread can run
 * Ruby code, so every Ruby stack is frozen. A holder may let the GVL go
 * before its stop lands: then the new holder is stopped, up to GVL_RETRIES
 * times, the earlier ones kept (h->keep) or resumed. A holder asleep in a
 * call an interrupt would make fail is never stopped. h->frozen tells
 * whether it worked; when not, the caller reads twice.
 */
static void
gvl_hold(struct sampler *s, struct gvl_hold *h)
{
	for (int attempt = 0; attempt <= GVL_RETRIES; attempt++) {
		struct target_thread *th;
		pid_t holder = 0;

		mem_flush(s->mem);
		if (h->prefetch && attempt > 0) {
			/* Stopped: fetch what the last round read in one
			 * go, and remember what this round reads. */
			mem_prefetch_hot(s->mem);
			mem_hot_begin(s->mem);
		}
		if (ruby_gvl_holder(s->ruby, &holder) < 0 || !holder)
			return;
		for (int i = 0; i < h->n; i++) {
			if (h->v[i]->tid == holder) {
				h->frozen = true; /* one we hold */
				return;
			}
		}
		if (!h->keep && h->n) {
			/* It let the GVL go before it stopped: let it run. */
			target_resume(s->t, h->v[--h->n]);
		}
		th = own_thread(s, holder);
		if (!th || th->state != TS_RUNNING || in_nonrestartable(th))
			return;
		if (target_interrupt(s->t, th) < 0 ||
		    target_wait_stopped(s->t, th, STOP_TIMEOUT_NS) < 0)
			return;
		h->v[h->n++] = th;
	}
}

/* Resumes what gvl_hold() stopped. */
static void
gvl_release(struct sampler *s, struct gvl_hold *h)
{
	for (int i = 0; i < h->n; i++)
		target_resume(s->t, h->v[i]);
}

/* Reads every Ruby stack into s->stacks: their count, or -1. */
static int
stacks_read(struct sampler *s)
{
	if (s->stacks_cap == 0) {
		s->stacks_cap = 16;
		s->stacks = xcalloc(s->stacks_cap, sizeof(*s->stacks));
	}
	return ruby_read_stacks(s->ruby, s->stacks, s->stacks_cap);
}

/* After a tick that read n stacks: more threads than room, grow for the
 * next tick. */
static void
stacks_grow(struct sampler *s, int n)
{
	if (n == s->stacks_cap && s->stacks_cap < RUBY_MAX_THREADS) {
		s->stacks_cap *= 2;
		free(s->stacks);
		s->stacks = xcalloc(s->stacks_cap, sizeof(*s->stacks));
	}
}

/* Stops the thread holding the GVL, reads all stacks, resumes. When no
 * thread we hold owns the GVL (none held it, or the one we stopped had
 * just released it), another may take it while we read: then the read
 * counts only if a second read finds exactly the same. --nonblocking
 * never stops anything: every read is checked that way, a seqlock of
 * sorts whose sequence number is each thread's control-frame pointer and
 * a digest of its frames. */
static void
ruby_tick(struct sampler *s)
{
	struct gvl_hold h = { .keep = true, .prefetch = true };
	uint64_t t0 = now_ns();
	bool frozen;
	int n;

	if (s->opt.nonblocking)
		mem_flush(s->mem);
	else
		gvl_hold(s, &h);
	frozen = h.frozen;
	/* No flush here: the last holder check flushed, and what it read is
	 * frozen now (or checked by a second read below). */
	n = stacks_read(s);
	mem_hot_end(s->mem);
	for (int retry = 0; !frozen && n >= 0 && retry < GVL_RETRIES;
	     retry++) {
		uint64_t d = stacks_digest(s->stacks, n);
		int n2;

		mem_flush(s->mem);
		mem_prefetch_hot(s->mem);
		n2 = stacks_read(s);
		frozen = n2 == n && stacks_digest(s->stacks, n2) == d;
		n = n2;
		s->prof->stats.rereads++;
		if (!frozen)
			s->prof->stats.torn++;
	}
	gvl_release(s, &h);
	if (h.n)
		profile_note_stop(s->prof, now_ns() - t0);
	if (n < 0 || !frozen) {
		/* Unreadable, or still changing after every re-read: a torn
		 * snapshot is dropped, never recorded. */
		s->prof->stats.failed++;
		return;
	}
	for (int i = 0; i < n; i++) {
		if (s->stacks[i].nframes < 0)
			s->prof->stats.failed++;
		else if (s->stacks[i].nframes > 0 &&
			 !stray_stack(s, &s->stacks[i]))
			record_ruby(s, &s->stacks[i]);
	}
	stacks_grow(s, n);
}

/* ---- --native: native frames woven into Ruby stacks ------------------ */

/* What the weave needs of one native frame, named once per address. */
struct native_info {
	uint32_t id;
	uint64_t start, end;	/* function bounds, runtime; equal: unknown */
	bool vm;
};

struct sampler_native {
	char *vm_module;	/* the VM's file, as maps shows it */
	struct ip_cache *infos_by_ip; /* ip << 1 | leaf -> index in infos */
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

static void
native_destroy(struct sampler_native *n)
{
	if (!n)
		return;
	free(n->vm_module);
	ip_cache_destroy(n->infos_by_ip);
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
		n->infos_by_ip = ip_cache_create();
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
	uint32_t *slot = ip_cache_slot(n->infos_by_ip, ip << 1 | leaf, &found);
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
	ni->id = profile_frame_make(s->prof, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_NATIVE,
		.name = fr.symbol,
		.file = fr.module,
		.build_id = fr.build_id[0] ? fr.build_id : NULL,
		.addr = fr.addr,
		.text = name,
	});
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
 * *stopping), and unwind_stopped() finishes it. -1 on failure.
 */
static int
native_begin(struct sampler *s, pid_t tid, uint64_t *ips,
	     struct target_thread **stopping)
{
	struct target_thread *th = own_thread(s, tid);
	struct proc_syscall sc = { .kind = PSC_UNKNOWN };

	*stopping = NULL;
	if (!th || th->state != TS_RUNNING)
		return -1;
	if (th->syscall_fd >= 0)
		proc_syscall_read_fd(th->syscall_fd, &sc);
	if (sc.kind == PSC_BLOCKED && proc_syscall_nonrestartable(sc.nr))
		return unwind_blocked(s, th, &sc, ips);
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
	size_t d = ruby_roots(s, st, frames), nw;
	const char *state[2];
	enum profile_state pstate;
	enum weave_error e;
	uint32_t marker;

	if (!stack_state(s, st, state, &pstate))
		return;
	for (int i = 0; i < nips; i++) {
		/* Root first; a return address points after the call. */
		bool leaf = i == nips - 1;
		uint64_t ip = ips[nips - 1 - i];
		const struct native_info *ni =
			native_info(s, n, leaf ? ip : ip - 1, leaf);

		nat[i] = (struct weave_native){
			.id = ni->id, .start = ni->start, .end = ni->end,
			.vm = ni->vm,
		};
	}
	for (int i = 0; i < st->nframes; i++) {
		const struct ruby_frame *f = &st->frames[st->nframes - 1 - i];

		rb[i] = (struct weave_ruby){
			.id = ruby_frame_id(s, f),
			.cfunc = f->cfunc,
			.cfunc_addr = f->cfunc_addr,
		};
	}
	marker = profile_frame_make(s->prof, &(struct profile_frame_desc){
		.kind = PROFILE_FRAME_MARKER, .name = "[unwoven]",
	});
	e = weave(nat, nips, rb, st->nframes, s->opt.native_all, marker,
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
	record_stack(s, st, state, pstate, frames, d);
}

/*
 * A --native tick: the GVL holder is stopped (then no Ruby stack can
 * change), every Ruby stack is read and every Ruby thread's native stack
 * unwound to raw ips (the holder's while it is stopped anyway, each
 * other's in a stop of its own inside the holder's), the holder resumed;
 * only then are frames named and woven. Without a holder we hold, the
 * Ruby stacks are read again after the unwinds and the tick counts only
 * if nothing moved, as in ruby_tick().
 */
static void
native_ruby_tick(struct sampler *s)
{
	struct gvl_hold h = { .keep = false };
	struct target_thread *held;
	struct sampler_native *nat;
	bool frozen;
	uint64_t t0 = 0, d0 = 0;
	int n;

	/* A holder asleep in a call an interrupt would make fail (a C
	 * extension in epoll_wait with the GVL) is never stopped: unwound as
	 * blocked below, checked by the second read. */
	gvl_hold(s, &h);
	frozen = h.frozen;
	held = h.n ? h.v[0] : NULL;
	/* From PTRACE_INTERRUPT, as sample_thread() counts. */
	if (held)
		t0 = held->stopped_at_ns;
	/* No flush: the holder check just did, and what it read is frozen
	 * now (or checked by a second read below). */
	n = stacks_read(s);
	nat = native_state(s);
	if (!frozen && n >= 0)
		d0 = stacks_digest(s->stacks, n);
	/* The holder's stack, and the first step of every other's. */
	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &s->stacks[i];
		uint64_t *ips = nat->ips + (size_t)i * SAMPLER_MAX_FRAMES;

		nat->nips[i] = -1;
		nat->stopping[i] = NULL;
		if (st->nframes <= 0 || !st->tid || stray_stack(s, st))
			continue;
		if (held && st->tid == held->tid) {
			int k = unwind_stack(s->unwinder, st->tid,
					     &held->regs, ips,
					     SAMPLER_MAX_FRAMES);

			nat->nips[i] = k > 0 ? k : -1;
		} else {
			nat->nips[i] = native_begin(s, st->tid, ips,
						    &nat->stopping[i]);
		}
	}
	/* The interrupted ones: each stop awaited, unwound, resumed. */
	for (int i = 0; i < n; i++) {
		uint64_t stop;

		if (!nat->stopping[i])
			continue;
		nat->nips[i] = unwind_stopped(s, nat->stopping[i],
					      nat->ips + (size_t)i *
							 SAMPLER_MAX_FRAMES,
					      &stop);
		if (stop && !held)
			profile_note_stop(s->prof, stop);
	}
	if (!frozen && n >= 0) {
		/* Nothing held the Ruby stacks still: they count only if a
		 * second read finds them as the first. */
		mem_flush(s->mem);
		frozen = stacks_read(s) == n &&
			 stacks_digest(s->stacks, n) == d0;
	}
	gvl_release(s, &h);
	if (held)
		profile_note_stop(s->prof, now_ns() - t0);
	if (n < 0 || !frozen) {
		s->prof->stats.failed++;
		return;
	}
	for (int i = 0; i < n; i++) {
		if (s->stacks[i].nframes > 0 && stray_stack(s, &s->stacks[i]))
			continue;
		if (s->stacks[i].nframes < 0 ||
		    (s->stacks[i].nframes > 0 && nat->nips[i] <= 0))
			s->prof->stats.failed++;
		else if (s->stacks[i].nframes > 0)
			record_woven(s, nat, &s->stacks[i],
				     nat->ips + (size_t)i * SAMPLER_MAX_FRAMES,
				     nat->nips[i]);
	}
	stacks_grow(s, n);
}

/* ---- end of --native ------------------------------------------------- */

void
sampler_tick(struct sampler *s)
{
	struct target *t = s->t;
	struct target_process *p = target_process_find(t, s->pid);

	/* Gone, or a vfork child still running in its parent's memory. */
	if (!p || p->exited || p->vforked)
		return;
	if (p->exec_seen) {
		/* A new program image: new maps, new symbols. */
		teardown_process(s);
		ip_cache_clear(s->names);
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
	if (s->count_ticks)
		s->prof->stats.ticks++;
	if (s->mode == SAMPLER_RUBY && s->opt.native) {
		native_ruby_tick(s);
		return;
	}
	if (s->mode == SAMPLER_RUBY)
		ruby_tick(s);
	else
		native_tick(s);
}
