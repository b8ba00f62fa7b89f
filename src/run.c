// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A profiling run. The ptrace work happens on a dedicated tracer thread:
 * when it exits, the kernel detaches every tracee without stopping it,
 * which is the one detach that never interrupts a blocked syscall and that
 * also happens if rbflame is killed. The main thread then writes the
 * profile, so whatever was collected is written on every exit path that
 * lets us run: end of duration, Ctrl-C, SIGTERM, target exit.
 *
 * With --subprocesses every child the target forks is traced too (and
 * its children): one sampler per process, made when the fork is seen and
 * finished when the child exits; its samples stay in the profile. With
 * -p, the descendants already running are seized at attach, and /proc is
 * looked at once a second for those that join otherwise (tree.c). The
 * run ends when every followed process has exited.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/diagnose.h"
#include "rbflame/error.h"
#include "rbflame/outfile.h"
#include "rbflame/output.h"
#include "rbflame/proc.h"
#include "rbflame/profile.h"
#include "rbflame/run.h"
#include "rbflame/sampler.h"
#include "rbflame/schedule.h"
#include "rbflame/target.h"
#include "rbflame/tfile.h"
#include "rbflame/tree.h"
#include "rbflame/xmalloc.h"

#define PROGRESS_NS (250ull * 1000000ull)

static volatile sig_atomic_t stop_flag;
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_from_user;	/* kill(), not the tty */

static void
on_stop_signal(int sig, siginfo_t *si, void *uctx)
{
	stop_flag = 1;
	stop_signal = sig;
	stop_from_user = si && (si->si_code == SI_USER || si->si_code == SI_QUEUE);
}

struct run_ctx {
	const struct options *o;
	const struct run_watch *w;	/* NULL: none */
	volatile int done;		/* the tracer thread is over */
	struct profile *prof;
	sigset_t wait_mask;
	/* results of the tracer thread */
	int attach_errno;	/* attach or launch failed with this */
	pid_t attach_pid;	/* the target whose attach failed */
	int exec_errno;		/* launch: the command could not be run */
	pid_t pid;
	bool exited;
	int exit_status;
	bool progress;
	size_t nprocs;		/* processes profiled (--subprocesses) */
	char fatal_msg[768];	/* an error that ended sampling */
	uint64_t searched_ns;	/* > 0: the run ended while the sampler was
				 * still looking for the Ruby VM, this long */
	/* The target's root with its rights, kept from the attach on: where
	 * annotate reads sources, after the target has gone too. */
	struct tfile_root *sources;
};

/* --subprocesses: the samplers of the followed children. */
struct child {
	pid_t pid;
	struct sampler *s;	/* NULL once its process has exited */
};

struct children {
	struct child *v;
	size_t n, cap;
};

static struct child *
child_find(struct children *k, pid_t pid)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].pid == pid)
			return &k->v[i];
	return NULL;
}

/* Starts a sampler for each child whose fork has been seen, and finishes
 * those whose process has exited. */
static void
children_sync(struct children *k, struct target *t, struct sampler *first)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		struct target_process *p = &t->procs[i];
		struct child *ch = child_find(k, p->pid);
		const struct sampler *parent = first;

		/* parent 0 and not adopted: its fork event is not seen yet. */
		if (p->pid == first->pid || (!p->parent && !p->adopted))
			continue;
		if (!ch && !p->exited) {
			struct child *pc = child_find(k, p->parent);

			if (pc && pc->s)
				parent = pc->s;
			k->v = xgrowarray(k->v, &k->cap, k->n + 1,
					  sizeof(*k->v));
			ch = &k->v[k->n++];
			ch->pid = p->pid;
			ch->s = xcalloc(1, sizeof(*ch->s));
			if (sampler_init_child(ch->s, parent, p->pid) < 0) {
				debug_msg("cannot read child %d: %s",
					  (int)p->pid, strerror(errno));
				sampler_fini(ch->s);
				free(ch->s);
				ch->s = NULL;
			} else {
				debug_msg("following child %d of %d",
					  (int)p->pid, (int)p->parent);
			}
			continue;
		}
		if (ch && ch->s && (p->exited || ch->s->fatal)) {
			if (p->exited)
				sampler_exited(ch->s);
			if (ch->s->fatal)
				error_msg("process %d: %s", (int)p->pid,
					  ch->s->fatal_msg);
			sampler_fini(ch->s);
			free(ch->s);
			ch->s = NULL;
		}
	}
}

/* The run over: those whose exit came with the last round's are counted
 * as exited too. */
static void
children_fini(struct children *k, struct target *t)
{
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].s) {
			const struct target_process *p =
				target_process_find(t, k->v[i].pid);

			if (!p || p->exited)
				sampler_exited(k->v[i].s);
			sampler_fini(k->v[i].s);
			free(k->v[i].s);
		}
	}
	free(k->v);
}

/*
 * One round: every process once; the first one still there counts the
 * round as the run's tick. Every Ruby process's GVL holder is sent its
 * interrupt first, then each process is waited for, read and resumed in
 * turn: the stops' latencies overlap instead of adding up, one ptrace
 * floor per round rather than one per process (bench/procs measures
 * it). A process whose tick does not come (a stop requested meanwhile)
 * has its interrupt given up, never left stopped.
 */
static void
tick_all(struct target *t, struct sampler *s, struct children *k,
	 bool contended)
{
	struct target_process *p = target_process_find(t, s->pid);
	bool counted = p && !p->exited;

	s->cpu_contended = contended;
	sampler_tick_begin(s);
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].s) {
			k->v[i].s->cpu_contended = contended;
			sampler_tick_begin(k->v[i].s);
		}
	s->count_ticks = true;
	sampler_tick(s);
	for (size_t i = 0; i < k->n; i++) {
		struct sampler *ks = k->v[i].s;

		if (!ks)
			continue;
		if (*t->stop_flag) {
			if (ks->prestop)
				target_cancel_interrupt(t, ks->prestop);
			ks->prestop = NULL;
			continue;
		}
		ks->count_ticks = !counted;
		counted = true;
		sampler_tick(ks);
	}
}

static void
progress_line(struct run_ctx *c, uint64_t elapsed_ns, bool final)
{
	const struct profile_stats *st = &c->prof->stats;
	double secs = elapsed_ns / 1e9;

	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K%s: %.1f s, %llu samples (%.1f/s), %llu failed",
		program_name, secs, (unsigned long long)st->samples,
		secs > 0 ? st->ticks / secs : 0.0,
		(unsigned long long)st->failed);
	fflush(stderr);
}

/* A round's length: from its first PTRACE_INTERRUPT to its last sample
 * (--debug prints the mean and the longest). */
static void
note_round(struct profile *p, uint64_t ns)
{
	p->stats.rounds++;
	p->stats.round_ns_total += ns;
	if (ns > p->stats.round_ns_max)
		p->stats.round_ns_max = ns;
}

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000	/* <linux/sched.h>, GNU only */
#endif

/*
 * The sampling thread runs SCHED_FIFO at the lowest real-time priority
 * while it samples, when it may (root has CAP_SYS_NICE; a container may
 * not), so that neither a tick nor a held target waits for a CPU. At
 * normal priority, on a CPU it shares with its target, a resumed target
 * preempted us inside PTRACE_CONT and we got the CPU back only at the
 * scheduler's next tick: the same loop pinned to one CPU at 999 Hz was
 * stopped 91% of the time at 251 samples/s (held 3.6 ms p50), and
 * 11% at 997 samples/s (held 41 us p50) this way; its samples landed
 * on the scheduler's ticks, in step with any loop as regular. Each tick
 * does bounded work and the loop sleeps between ticks; a tick that ran
 * long waits at least as long after it (sample_loop()), so we take at
 * most about half a CPU. Never inherited by a fork.
 */
static bool
realtime_begin(const struct options *o)
{
	struct sched_param sp = {
		.sched_priority = sched_get_priority_min(SCHED_FIFO),
	};

	if (o->no_realtime || getenv("RBFLAME_NO_REALTIME"))
		return false;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0) {
		debug_msg("sampling at normal priority: SCHED_FIFO refused: %s",
			  strerror(errno));
		return false;
	}
	debug_msg("sampling thread SCHED_FIFO, priority %d",
		  sp.sched_priority);
	return true;
}

static void
realtime_end(bool rt)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (rt)
		sched_setscheduler(0, SCHED_OTHER, &sp);
}

/*
 * Whether the host's CPUs are contended, for the holds' warm fetch
 * (prefetch_warm() in src/sample/stop.c): over the last second, some
 * task waited for a CPU PRESSURE_BUSY_PCT of the time or more, as the
 * kernel's CPU pressure counts it (/proc/pressure/cpu, "some").
 * bench/server's Puma under ab on 2 CPUs: 54-61%; a target spinning
 * beside rbflame: 0%. Without the file, never (every fetch warmed).
 */
#define PRESSURE_WINDOW_NS 1000000000ull
#define PRESSURE_BUSY_PCT 10

struct pressure {
	int fd;			/* /proc/pressure/cpu, or -1 */
	uint64_t some_us;	/* its "some" total at at_ns */
	uint64_t at_ns;
	bool contended;		/* over the last window */
};

/* The first window's answer is the kernel's own average of the last
 * 10 seconds. */
static void
pressure_init(struct pressure *pr, uint64_t now)
{
	double avg10 = 0;

	pr->contended = false;
	pr->at_ns = now;
	pr->fd = proc_cpu_pressure_open();
	if (pr->fd < 0)
		return;
	if (proc_cpu_pressure_read(pr->fd, &pr->some_us, &avg10) < 0) {
		close(pr->fd);
		pr->fd = -1;
		return;
	}
	pr->contended = avg10 >= PRESSURE_BUSY_PCT;
}

static void
pressure_update(struct pressure *pr, uint64_t now)
{
	uint64_t some;

	if (pr->fd < 0 || now - pr->at_ns < PRESSURE_WINDOW_NS)
		return;
	if (proc_cpu_pressure_read(pr->fd, &some, NULL) < 0) {
		pr->contended = false;
		return;
	}
	pr->contended = some >= pr->some_us &&
			(some - pr->some_us) * 1000 * 100 >=
				(now - pr->at_ns) * PRESSURE_BUSY_PCT;
	pr->some_us = some;
	pr->at_ns = now;
}

static void
sample_loop(struct run_ctx *c, struct target *t, struct sampler *s,
	    struct tree *tree)
{
	const struct options *o = c->o;
	uint64_t start = s->start_ns;
	uint64_t end = o->duration > 0 ? start + (uint64_t)(o->duration * 1e9)
				       : UINT64_MAX;
	uint64_t next_progress = start + PROGRESS_NS;
	uint64_t next_watch = c->w ? start + c->w->period_ns : UINT64_MAX;
	struct schedule sched;
	struct children kids = { 0 };

	bool rt = realtime_begin(o);
	struct pressure pr;

	pressure_init(&pr, start);
	c->prof->stats.cpu_pressure = pr.fd >= 0;
	schedule_init(&sched, start, o->rate, start ^ (uint64_t)getpid());
	while (!stop_flag && target_alive(t) && !s->fatal) {
		uint64_t now = now_ns(), done;

		if (now >= end)
			break;
		if (now >= next_watch) {
			c->w->watch(c->w->arg, c->prof, now - start, false);
			next_watch = now + c->w->period_ns;
		}
		if (c->progress && now >= next_progress) {
			progress_line(c, now - start, false);
			next_progress = now + PROGRESS_NS;
		}
		if (now < sched.next_ns) {
			uint64_t wake = sched.next_ns < end ? sched.next_ns : end;

			if (wake > next_watch)
				wake = next_watch > now ? next_watch : now;

			target_poll(t, wake - now);
			continue;
		}
		pressure_update(&pr, now);
		if (t->follow_forks || t->nprocs > 1) {
			if (t->follow_forks && !t->launched)
				tree_rescan(tree, t, now);
			children_sync(&kids, t, s);
			now = now_ns();
			tick_all(t, s, &kids, pr.contended);
		} else {
			s->cpu_contended = pr.contended;
			sampler_tick(s);
		}
		done = now_ns();
		note_round(c->prof, done - now);
		c->prof->stats.late_ticks += schedule_advance(&sched, done);
		/* Real-time: a long tick is followed by as long a rest. */
		if (rt && sched.next_ns < done + (done - now))
			sched.next_ns = done + (done - now);
		target_take_signals(t);
	}
	realtime_end(rt);
	if (pr.fd >= 0)
		close(pr.fd);
	c->prof->stats.duration_s = (now_ns() - start) / 1e9;
	if (c->w)
		c->w->watch(c->w->arg, c->prof, now_ns() - start, true);
	c->nprocs = t->nprocs;
	children_fini(&kids, t);
	if (c->progress)
		progress_line(c, 0, true);
}

/* What the run is, for the formats that carry it. */
static void
record_meta(struct profile *p, const struct options *o, pid_t pid)
{
	char cmd[4096];
	struct timespec ts;

	p->meta.pid = pid;
	if (o->command) {
		/* The child has not run exec yet: its command is ours. */
		size_t n = 0;

		cmd[0] = '\0';
		for (char *const *a = o->command; *a && n + 2 < sizeof(cmd);
		     a++)
			n += snprintf(cmd + n, sizeof(cmd) - n, "%s%s",
				      n ? " " : "", *a);
		p->meta.command = xstrdup(cmd);
	} else if (proc_cmdline(pid, cmd, sizeof(cmd)) == 0) {
		p->meta.command = xstrdup(cmd);
	}
	p->meta.mode = xstrdup(o->cpu ? "cpu" : "wall");
	p->meta.weighted = true;
	clock_gettime(CLOCK_REALTIME, &ts);
	p->meta.start_unix_ns = (uint64_t)ts.tv_sec * 1000000000ull +
				(uint64_t)ts.tv_nsec;
}

/* Seizes every -p target, each a root of its own; on a failure lets go
 * of those seized (the tracer thread's exit detaches them). */
static int
attach_all(struct run_ctx *c, struct target *t)
{
	const struct options *o = c->o;

	c->attach_pid = o->pids[0];
	if (target_attach(t, o->pids[0]) < 0)
		goto out_fail;
	for (size_t i = 1; i < o->npids; i++) {
		c->attach_pid = o->pids[i];
		if (target_adopt(t, o->pids[i], 0) < 0)
			goto out_fail;
	}
	return 0;
out_fail:
	c->attach_errno = errno;
	target_release(t);
	target_fini(t);
	return -1;
}

static void *tracer_run(struct run_ctx *c);

static void *
tracer_main(void *arg)
{
	struct run_ctx *c = arg;

	tracer_run(c);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether a --max-pause budget bounds the run's Ruby stops. */
static bool
pause_budget(const struct options *o)
{
	return o->max_pause > 0 && !o->nonblocking && !o->native;
}

static void *
tracer_run(struct run_ctx *c)
{
	const struct options *o = c->o;
	struct target t;
	struct sampler s;
	struct tree tree;
	regex_t thread_re;
	bool sampler_ok = false;

	/* Checked by the option parser: it compiles. */
	if (o->thread_regex &&
	    regcomp(&thread_re, o->thread_regex, REG_EXTENDED | REG_NOSUB)) {
		c->attach_errno = EINVAL;
		return NULL;
	}
	if (target_init(&t, &c->wait_mask, &stop_flag) < 0) {
		c->attach_errno = errno;
		goto out_re;
	}
	/* cpu mode weighs by it; Ruby mode copies the stacks of threads it
	 * shows idle (sample_stacks_same()). */
	t.cputime = o->cpu || !o->native;
	/* Wall mode: the kernel's log of each thread's switches answers
	 * those proofs and the threads' states without a pread a thread a
	 * tick (include/rbflame/switchlog.h); RBFLAME_NO_SWITCHLOG reads
	 * /proc instead, for tests and bench to compare. */
	t.switches = !o->native && !o->cpu &&
		     !getenv("RBFLAME_NO_SWITCHLOG");
	t.follow_forks = o->subprocesses;
	t.regs_whole = o->native;
	if (o->command) {
		if (target_launch(&t, o->command, &c->exec_errno) < 0) {
			c->attach_errno = errno ? errno : EINVAL;
			c->pid = t.pid;
			c->exited = t.exited;
			c->exit_status = t.exit_status;
			target_fini(&t);
			goto out_re;
		}
	} else if (attach_all(c, &t) < 0) {
		goto out_re;
	}
	c->pid = t.pid;
	tree_init(&tree);
	/* The tree as it is now; joiners are looked for once a second. A
	 * command just launched has no descendants yet, and every one it
	 * forks is followed from its fork. */
	if (t.follow_forks && !t.launched)
		tree_adopt(&tree, &t, true);
	tree.next_scan_ns = now_ns() + TREE_RESCAN_NS;
	record_meta(c->prof, o, t.pid);
	c->sources = tfile_root_pid(t.pid);
	if (sampler_init(&s, &t, c->prof, &(struct sampler_options){
				.threads = o->threads,
				.function = o->function,
				.cpu = o->cpu,
				.nonblocking = o->nonblocking,
				/* Stopped reads only: --nonblocking never
				 * stops, --native stops each thread it
				 * unwinds. */
				.max_pause = pause_budget(o)
					? o->max_pause / 100 : 0,
				.subprocesses = o->subprocesses ||
						o->npids > 1,
				.native = o->native,
				.native_all = o->native_all,
				.force_version = o->force_version,
				.thread_re = o->thread_regex ? &thread_re
							     : NULL,
				.period_ns = (uint64_t)(1e9 / o->rate + 0.5),
			 }, now_ns()) == 0) {
		struct target_process *p;

		sampler_ok = true;
		sample_loop(c, &t, &s, &tree);
		p = target_process_find(&t, s.pid);
		if (!p || p->exited)
			sampler_exited(&s);
	} else {
		error_msg("cannot read process %d: %s", (int)t.pid,
			  strerror(errno));
	}
	if (debug_enabled)
		for (struct target_thread *th = target_thread_next(&t, NULL);
		     th; th = target_thread_next(&t, th))
			debug_msg("thread %d of process %d: %llu interrupts",
				  (int)th->tid, (int)th->pid,
				  (unsigned long long)th->interrupts);
	debug_msg("stops awaited asleep at once, the interrupt latency past "
		  "the spin: %llu (latency %.1f us, moving average)",
		  (unsigned long long)t.stats.waits_unspun,
		  t.latency_avg_ns / 1e3);
	/* Leave every thread running; our exit detaches them. */
	target_release(&t);
	/* A launched command followed to its exit: the recording holds the
	 * whole of its work, which rbflame diff compares in seconds. */
	c->prof->meta.complete = o->command && t.exited && !stop_flag &&
				 !(sampler_ok && s.fatal);
	c->exited = t.exited;
	c->exit_status = t.exit_status;
	if (sampler_ok && s.fatal)
		snprintf(c->fatal_msg, sizeof(c->fatal_msg), "%s", s.fatal_msg);
	if (sampler_ok && !s.fatal && s.mode == SAMPLER_PENDING)
		c->searched_ns = now_ns() - s.pending_since + 1;
	if (sampler_ok)
		sampler_fini(&s);
	tree_fini(&tree);
	target_fini(&t);
out_re:
	if (o->thread_regex)
		regfree(&thread_re);
	return NULL;
}

/* The summary's tail for a Ruby target: samples per state, named as the
 * leaf pseudo-frames are, so a share can be read off without the profile. */
static void
summary_states(const struct profile_stats *st)
{
	char buf[512];

	fprintf(stderr, "; states: %s",
		profile_state_summary(st->per_state, buf, sizeof(buf)));
}

static void
summary(const struct run_ctx *c)
{
	const struct profile_stats *st = &c->prof->stats;

	if (quiet_enabled || c->w)
		return;
	fprintf(stderr,
		"%s: %llu samples in %.2f s (%llu ticks at %.1f Hz), %llu late ticks, %llu failed reads; threads stopped %.1f us p50, %.1f us p99; held %.1f us p50, %.1f us p99 (interrupt latency %.1f us p50)",
		program_name, (unsigned long long)st->samples, st->duration_s,
		(unsigned long long)st->ticks,
		st->duration_s > 0 ? st->ticks / st->duration_s : 0.0,
		(unsigned long long)st->late_ticks,
		(unsigned long long)st->failed,
		profile_times_quantile(&st->stop, 0.5) / 1e3,
		profile_times_quantile(&st->stop, 0.99) / 1e3,
		profile_times_quantile(&st->held, 0.5) / 1e3,
		profile_times_quantile(&st->held, 0.99) / 1e3,
		profile_times_quantile(&st->latency, 0.5) / 1e3);
	/* Before the optional parts: tests match ones that end the line. */
	fprintf(stderr, "; samples weigh %.3f s of %s time",
		profile_weight_total(c->prof) / 1e9,
		c->o->cpu ? "CPU" : "thread");
	/* The share of wall time each process spent stopped, on average:
	 * what --max-pause bounds, and what a server pays. */
	fprintf(stderr, "; stopped %.2f%% of the time",
		st->duration_s > 0
			? 100.0 * (double)st->stop.total_ns / 1e9 /
				  st->duration_s /
				  (double)(c->nprocs ? c->nprocs : 1)
			: 0.0);
	if (pause_budget(c->o))
		fprintf(stderr, " (--max-pause %g%%), %llu ticks read without stopping",
			c->o->max_pause, (unsigned long long)st->unstopped);
	if (c->prof->meta.ruby_version)
		summary_states(st);
	if (c->o->subprocesses || c->o->npids > 1)
		fprintf(stderr, "; %zu processes", c->nprocs);
	if (st->exit_failed)
		fprintf(stderr, "; %llu reads failed as their process exited (not among the failed reads)",
			(unsigned long long)st->exit_failed);
	if (c->o->nonblocking || pause_budget(c->o))
		fprintf(stderr, "; torn reads %llu of %llu (%.1f%%), %llu stacks kept to their settled part under [torn]",
			(unsigned long long)st->torn,
			(unsigned long long)st->rereads,
			st->rereads ? 100.0 * st->torn / st->rereads : 0.0,
			(unsigned long long)st->torn_kept);
	if (debug_enabled && !c->o->nonblocking)
		fprintf(stderr, "; second reads %llu, torn %llu, GVL in transit past the spin %llu",
			(unsigned long long)st->rereads,
			(unsigned long long)st->torn,
			(unsigned long long)st->gvl_transit);
	if (debug_enabled)
		fprintf(stderr, "; stacks of idle threads copied %llu (by switch logs %llu); ticks decoded after the resume %llu, stopped again for lines not fetched %llu; frames the GC count vouched for %llu (the major GCs' alone %llu), method entries' types kept %llu; idle threads taken from the last walk %llu, read again as their walk count came due %llu (at most %llu in one read), woken around the stop %llu, read asleep once for their switch logs %llu, their lines left out of the fetches %llu; ticks of a process that had not run since, its last read recorded again %llu; samples made of their thread's last frames, recorded as its last stack %llu; frames whose owner's name could not be read %llu",
			(unsigned long long)st->stacks_reused,
			(unsigned long long)st->reused_by_switches,
			(unsigned long long)st->deferred,
			(unsigned long long)st->deferred_refused,
			(unsigned long long)st->frames_by_epoch,
			(unsigned long long)st->frames_by_major,
			(unsigned long long)st->types_kept,
			(unsigned long long)st->threads_by_walk,
			(unsigned long long)st->walk_refreshes,
			(unsigned long long)st->walk_refresh_max,
			(unsigned long long)st->woke_in_stop,
			(unsigned long long)st->switch_marks,
			(unsigned long long)st->lines_left_out,
			(unsigned long long)st->quiet_ticks,
			(unsigned long long)st->records_again,
			(unsigned long long)st->names_unread);
	if (debug_enabled && st->cpu_pressure)
		fprintf(stderr, "; holds' fetches warmed %llu, not warmed as the CPUs were contended %llu",
			(unsigned long long)st->warm_fetches,
			(unsigned long long)st->warm_skipped);
	else if (debug_enabled)
		fprintf(stderr, "; holds' fetches warmed %llu (no /proc/pressure/cpu: whatever the host's load)",
			(unsigned long long)st->warm_fetches);
	if (debug_enabled && st->rounds)
		fprintf(stderr, "; rounds took %.1f us mean, %.1f us max",
			st->round_ns_total / 1e3 / st->rounds,
			st->round_ns_max / 1e3);
	if (st->frame_limit)
		fprintf(stderr, "; %llu frames past the cap of %u distinct (kept as [frame limit]; --max-frames)",
			(unsigned long long)st->frame_limit,
			c->prof->max_frames);
	if (st->string_sets)
		fprintf(stderr, "; labels let go %llu times (a target that makes new code: the reader keeps %u at most)",
			(unsigned long long)st->string_sets,
			RUBY_READER_STRINGS_MAX);
	if (st->woven || st->weave_errors)
		fprintf(stderr, "; --native: %llu stacks woven, %llu weave errors (kept under [unwoven])",
			(unsigned long long)st->woven,
			(unsigned long long)st->weave_errors);
	if (st->jit_ends)
		fprintf(stderr, "; %llu native stacks ended in JIT code ([JIT]: no unwind info there)",
			(unsigned long long)st->jit_ends);
	fputc('\n', stderr);
}

static int
status_to_exit(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 125;
}

/* Says why an output cannot be opened, in words a user can act on. */
static void
open_error(const char *path)
{
	int err = errno;

	switch (err) {
	case ELOOP:
		error_msg("not writing to '%s': it is a symbolic link, which rbflame does not write through (in a directory another user can write, it could lead anywhere); give the file it points to",
			  path);
		break;
	case EISDIR:
		error_msg("cannot write to '%s': it is a directory", path);
		break;
	default:
		errno = err;
		perror_msg("cannot open output file '%s' (check the directory exists and is writable)",
			   path);
	}
}

/* Opens every output before sampling, so a bad path fails at once. */
int
run_open_outputs(const struct options_outputs *os, struct outfile **outs)
{
	for (size_t i = 0; i < os->n; i++) {
		const struct output_ops *w = output_find(os->v[i].format);
		const char *path = os->v[i].path ? os->v[i].path : "-";

		outs[i] = outfile_open(path);
		if (!outs[i]) {
			open_error(path);
			goto out_abort;
		}
		if (w->binary && outfile_is_tty(outs[i])) {
			error_msg("not writing %s (binary) to a terminal: give -o FILE",
				  w->name);
			goto out_abort;
		}
	}
	return 0;
out_abort:
	run_abort_outputs(os, outs);
	return -1;
}

void
run_abort_outputs(const struct options_outputs *os, struct outfile **outs)
{
	for (size_t i = 0; i < os->n; i++) {
		outfile_abort(outs[i]);
		outs[i] = NULL;
	}
}

int
run_write_outputs(const struct options_outputs *os, struct outfile **outs,
		  const struct profile *prof, const struct output_opts *view)
{
	int ret = 0;

	for (size_t i = 0; i < os->n; i++) {
		const struct output_ops *w = output_find(os->v[i].format);
		const char *name = os->v[i].path ? os->v[i].path
						 : "standard output";

		errno = 0;
		if (output_write(w, prof, view, outfile_stream(outs[i])) < 0) {
			perror_msg("cannot write the %s profile to %s", w->name,
				   name);
			outfile_abort(outs[i]);
			ret = -1;
		} else if (outfile_commit(outs[i]) < 0) {
			perror_msg("cannot write the %s profile to %s%s",
				   w->name, name,
				   os->v[i].path ? " (left as it was)" : "");
			ret = -1;
		}
		outs[i] = NULL;
	}
	return ret;
}

void
run_help(FILE *f)
{
	fputs(options_help_head, f);
	output_help(f);
	fputs(options_help_tail, f);
}

/* Every -p names a process: said before anything is seized or written. */
static int
check_pids(const struct options *o)
{
	for (size_t i = 0; i < o->npids; i++) {
		pid_t pid = o->pids[i], tgid = 0;
		struct attach_facts f;
		char msg[512];

		if (proc_tgid(pid, &tgid) < 0) {
			diagnose_collect(pid, &f);
			diagnose_attach(ESRCH, &f, msg, sizeof(msg));
			error_msg("%s", msg);
			return -1;
		}
		if (tgid != pid) {
			error_msg("attach %d: not a process but a thread of process %d (give -p %d)",
				  (int)pid, (int)tgid, (int)tgid);
			return -1;
		}
	}
	return 0;
}

void
run_stop(void)
{
	stop_signal = SIGINT;
	stop_from_user = 0;
	stop_flag = 1;
}

int
run_profile(const struct options *o)
{
	return run_watched(o, NULL);
}

int
run_watched(const struct options *o, const struct run_watch *w)
{
	struct run_ctx c = { .o = o, .w = w };
	struct output_opts view;
	struct sigaction sa;
	sigset_t block;
	pthread_t tracer;
	struct outfile *outs[OPTIONS_MAX_OUTPUTS] = { 0 };
	int fail = o->command ? 125 : 1;
	int code = 0;

	exit_code_on_die = fail;
	if (check_pids(o) < 0)
		return fail;
	if (run_open_outputs(&o->outputs, outs) < 0)
		return fail;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* Termination signals are taken only while the tracer sleeps, so a
	 * stop request is seen between two ticks, never inside one. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &block, &c.wait_mask);
	sigdelset(&c.wait_mask, SIGINT);
	sigdelset(&c.wait_mask, SIGTERM);
	sigdelset(&c.wait_mask, SIGHUP);
	sigaddset(&c.wait_mask, SIGCHLD);

	c.prof = profile_create();
	c.prof->max_frames = o->max_frames;
	/* The timeline grows with the run: kept only for what reads it. */
	c.prof->keep_samples = w != NULL;
	for (size_t i = 0; i < o->outputs.n; i++)
		if (!output_find(o->outputs.v[i].format)->stacks_only)
			c.prof->keep_samples = true;
	c.prof->stats.rate_hz = o->rate;
	c.progress = !o->quiet && !w && isatty(STDERR_FILENO);
	if (pthread_create(&tracer, NULL, tracer_main, &c) != 0) {
		perror_msg("cannot start the sampling thread");
		return fail;
	}
	if (w)
		w->ui(w->arg, &c.done);
	pthread_join(tracer, NULL);

	if (c.attach_errno || c.exec_errno) {
		if (o->command && c.exec_errno) {
			errno = c.exec_errno;
			perror_msg("cannot run '%s'%s", o->command[0],
				   c.exec_errno == ENOENT
					   ? " (not found: check the name and PATH)"
					   : "");
			code = c.exec_errno == ENOENT ? 127 : 126;
		} else if (o->command) {
			errno = c.attach_errno;
			perror_msg("cannot trace '%s'", o->command[0]);
			code = 125;
		} else {
			struct attach_facts f;
			char msg[512];

			diagnose_collect(c.attach_pid, &f);
			diagnose_attach(c.attach_errno, &f, msg, sizeof(msg));
			error_msg("%s", msg);
			code = 1;
		}
		/* Nothing to write: every output stays as it was. */
		run_abort_outputs(&o->outputs, outs);
		profile_destroy(c.prof);
		return code;
	}

	if (c.fatal_msg[0]) {
		error_msg("%s", c.fatal_msg);
		code = fail;
	}
	view = o->view;
	view.sources = c.sources;
	if (run_write_outputs(&o->outputs, outs, c.prof, &view) < 0)
		code = fail;
	tfile_root_destroy(c.sources);
	/* After a fatal error with nothing collected, its line says it all. */
	if (!c.fatal_msg[0] || c.prof->stats.samples) {
		if (c.prof->stats.samples == 0 && o->thread_regex &&
		    c.prof->stats.threads_left_out)
			notice_msg("no thread matched --thread '%s' during the run (%llu stacks of other threads left out): give a thread's name (Thread#name, or its comm) or its tid",
				   o->thread_regex,
				   (unsigned long long)c.prof->stats.threads_left_out);
		else if (c.prof->stats.samples == 0 && c.searched_ns)
			notice_msg("no samples were collected: the run ended while rbflame was still looking for process %d's Ruby VM (%.0f ms of search; --debug says what it found)",
				   (int)c.pid, c.searched_ns / 1e6);
		else if (c.prof->stats.samples == 0)
			notice_msg("no samples were collected (the target exited or was idle before the first tick)");
		summary(&c);
	}

	if (o->command) {
		/* The command runs on in the foreground: wait for it, so
		 * the shell's prompt does not come back under it. */
		int status = c.exit_status;

		if (!c.exited) {
			sigset_t stops;

			/* Termination signals now reach this thread: each one
			 * sent with kill() is passed on to the command (one
			 * from the terminal has reached it already). */
			sigemptyset(&stops);
			sigaddset(&stops, SIGINT);
			sigaddset(&stops, SIGTERM);
			sigaddset(&stops, SIGHUP);
			pthread_sigmask(SIG_UNBLOCK, &stops, NULL);
			for (;;) {
				if (stop_flag && (stop_signal != SIGINT ||
						  stop_from_user))
					kill(c.pid, stop_signal);
				stop_flag = 0;
				if (waitpid(c.pid, &status, 0) == c.pid ||
				    errno != EINTR)
					break;
			}
		}
		if (code == 0)
			code = status_to_exit(status);
	}
	profile_destroy(c.prof);
	return code;
}
