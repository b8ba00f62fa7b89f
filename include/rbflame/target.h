/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The ptrace lifecycle of a target's threads: seize them once (new threads
 * are traced automatically), stop one on request, resume it, and handle
 * every other event on the way: signals are re-injected, group stops are
 * respected (PTRACE_LISTEN), exec and exit are noticed.
 *
 * All of this must run on one thread, the tracer thread: ptrace ties
 * tracees to the thread that attached. Detaching is done by that thread
 * exiting after target_release(): the kernel then detaches every tracee
 * without stopping it, so no thread blocked in a non-restartable syscall
 * is ever interrupted on the way out, and a SIGKILLed rbflame detaches the
 * same way.
 *
 * With follow_forks, forked (and vforked) children are traced as well,
 * from their first instruction: each thread knows its process, and each
 * process its own exit and exec.
 */
#ifndef RBFLAME_TARGET_H
#define RBFLAME_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

enum thread_state {
	TS_RUNNING,		/* not in a stop we know of */
	TS_STOPPING,		/* PTRACE_INTERRUPT sent, stop not seen yet */
	TS_STOPPED,		/* in the interrupt stop we asked for */
	TS_GROUP_STOPPED,	/* stopped by SIGSTOP & co, listening */
	TS_GONE,
};

/*
 * A traced thread. Each is allocated on its own and never moves: a
 * pointer a caller holds stays valid however many threads come and go.
 * A thread that goes is unlinked and marked TS_GONE, and its memory kept
 * until the next target_poll() (which runs between ticks), so a pointer
 * held during a tick is safe to test and to walk on from.
 */
struct target_thread {
	pid_t pid;		/* its process (thread group) */
	pid_t tid;
	uint64_t serial;	/* order of first sight: 1, 2, ... */
	enum thread_state state;
	bool unwanted;		/* interrupt pending that nobody waits for */
	int pending_sig;	/* held in a signal-delivery stop: the
				 * signal to pass on when resumed */
	int syscall_fd;		/* /proc/PID/task/TID/syscall or -1 */
	int schedstat_fd;	/* .../schedstat when t->cputime, else -1 */
	struct switchlog *switches; /* its context switches when
				 * t->switches and the kernel lets us, else
				 * NULL (include/rbflame/switchlog.h) */
	uint64_t interrupted_ns;	/* our PTRACE_INTERRUPT returned */
	uint64_t stop_seen_ns;	/* waitpid reported the stop it asked for */
	uint64_t interrupts;	/* PTRACE_INTERRUPTs sent to it (--debug
				 * prints them at the end) */
	struct user_regs_struct regs; /* in a stop target_wait_stopped()
				 * returned: its registers, fetched on demand
				 * by target_thread_regs() (a cut-short
				 * syscall is fixed at target_resume()) */
	bool regs_ok;		/* regs are of this stop */
	void *priv;		/* the sampler's per-thread state */
	struct target_thread *prev, *next; /* t->threads, oldest first;
				 * a gone thread keeps its next */
	struct target_thread *reap_next; /* t->gone */
};

/* A process of the target: the first one, then every child followed. */
struct target_process {
	pid_t pid;
	pid_t parent;		/* the process that forked it; 0: the first,
				 * or the fork event is not seen yet */
	bool adopted;		/* seized as found (target_adopt()), not
				 * followed from its fork: its image may
				 * differ from its parent's */
	bool vforked;		/* shares its parent's memory until exec */
	bool exited;		/* its leader is gone */
	bool exec_seen;		/* an exec replaced its image (the sampler
				 * clears it once it has caught up) */
};

struct target_stats {
	uint64_t signals_forwarded;
	uint64_t threads_seen;
	uint64_t eintr_fixups;	/* interrupted syscalls turned into restarts */
	uint64_t waits_unspun;	/* stops awaited asleep at once: the host's
				 * interrupt latency is past the spin */
};

#define TARGET_FIND_SLOTS 128	/* target_thread_find()'s table */

struct target {
	pid_t pid;
	bool launched;
	bool exited;		/* the whole process is gone */
	int exit_status;	/* wait status of the leader when exited */
	bool exec_seen;		/* an exec replaced the image: maps changed */
	bool cputime;		/* keep each thread's schedstat open
				 * (cpu mode; Ruby mode's idle threads) */
	bool switches;		/* log each thread's context switches
				 * (Ruby mode's idle proofs and states);
				 * cleared when the kernel refuses */
	size_t nswitches;	/* threads logged, SWITCHLOG_MAX at most */
	bool regs_whole;	/* a stop's registers are fetched whole
				 * (PTRACE_GETREGS), never orig_rax first:
				 * --native, whose stops are unwound */
	bool follow_forks;	/* trace forked children too (set before
				 * attach or launch) */
	struct target_process *procs;	/* procs[0] is pid */
	size_t nprocs, procs_cap;
	struct target_thread *threads, *threads_tail; /* live, oldest first
				 * (walk with target_thread_next()) */
	size_t nthreads;
	/* target_thread_find()'s table: a live thread's slot by tid, or
	 * NULL (emptied as its thread goes) */
	struct target_thread *find[TARGET_FIND_SLOTS];
	struct target_thread *gone;	/* freed at the next target_poll() */
	uint64_t latency_avg_ns;	/* interrupt latency, moving average
				 * (1/8 weight to each stop) */
	int sigchld_fd;		/* signalfd for SIGCHLD */
	bool chld_owed;		/* a SIGCHLD was read and waitpid(-1) not
				 * run since: target_poll() drains */
	bool slept;		/* a sleep with wait_mask since the last
				 * target_take_signals() */
	sigset_t wait_mask;	/* mask while waiting (lets SIGINT in) */
	volatile sig_atomic_t *stop_flag; /* set by a signal handler */
	/* called on a gone thread just before it is freed */
	void (*thread_gone)(struct target_thread *th, void *arg);
	void *thread_gone_arg;
	/* called as a thread we held is resumed: latency_ns from our
	 * PTRACE_INTERRUPT to waitpid reporting its stop, held_ns from
	 * there to PTRACE_CONT returning (NULL: not measured) */
	void (*thread_held)(const struct target_thread *th,
			    uint64_t latency_ns, uint64_t held_ns, void *arg);
	void *thread_held_arg;
	struct target_stats stats;
};

/**
 * Prepares t: SIGCHLD must already be blocked in the calling thread.
 * wait_mask is the signal mask to hold while sleeping (so termination
 * signals can interrupt a wait); stop_flag is checked after each wake-up.
 */
int target_init(struct target *t, const sigset_t *wait_mask,
		volatile sig_atomic_t *stop_flag);

/**
 * Seizes every thread of pid (PTRACE_SEIZE, clone and exec tracing on),
 * re-listing until no new thread appears. -1 with errno from the leader's
 * seize (EPERM, ESRCH) on failure, nothing left attached.
 */
int target_attach(struct target *t, pid_t pid);

/**
 * Seizes pid, a process found already running under parent (a descendant
 * of the target that was not forked under our eyes; parent 0: another
 * target of the run), and every thread of it, as target_attach() does.
 * -1 with errno from the leader's seize (EPERM: another tracer, no
 * right, a zombie; ESRCH: it exited), nothing left attached.
 */
int target_adopt(struct target *t, pid_t pid, pid_t parent);

/**
 * Forks and execs argv traced from its first instruction. The child keeps
 * the terminal's foreground process group. On failure to exec returns -1
 * and sets *exec_errno (ENOENT -> 127, others -> 126).
 */
int target_launch(struct target *t, char **argv, int *exec_errno);

/** Finds a process by pid, NULL if unknown. */
struct target_process *target_process_find(struct target *t, pid_t pid);
/** True while some process of the target (with follow_forks, any child
 * followed; with several targets, any of them) has not exited. */
bool target_alive(const struct target *t);

/** Finds a live thread by tid, NULL if unknown. */
struct target_thread *target_thread_find(struct target *t, pid_t tid);
/**
 * The live thread after th, oldest first (the first one when th is NULL),
 * or NULL. th may have gone since it was returned: the walk goes on from
 * where it stood, so events handled inside a walk skip no thread (threads
 * found meanwhile come last; th->serial tells them apart).
 */
struct target_thread *target_thread_next(struct target *t,
					 struct target_thread *th);

/** Asks th to stop (PTRACE_INTERRUPT). */
int target_interrupt(struct target *t, struct target_thread *th);
/**
 * Handles events until th is stopped, gone, or timeout_ns passes. 0 when
 * stopped: a non-restartable syscall
 * (epoll_wait...) that our stop made fail with EINTR has been turned into
 * a restart (kept an EINTR if a real signal handler runs too, as man 7
 * signal says), so the thread can be resumed as it is. -1 otherwise: th
 * is left to resume itself when its stop arrives, or, stopped with
 * registers that cannot be read, resumed.
 */
int target_wait_stopped(struct target *t, struct target_thread *th,
			uint64_t timeout_ns);
/**
 * The registers of th, stopped by target_wait_stopped(): fetched on the
 * first call of the stop (a stop in a syscall has them already), so a
 * hold that needs none does not pay for them. NULL, errno set, when th
 * is not stopped or they cannot be read.
 */
const struct user_regs_struct *target_thread_regs(struct target_thread *th);
/**
 * Resumes a thread we stopped, then hands t->thread_held how long it
 * waited for the stop and how long it was held there.
 */
int target_resume(struct target *t, struct target_thread *th);
/**
 * Gives up an interrupt sent to th that nobody will wait for: resumed if
 * it has stopped already, else its stop resumes it when it arrives (any
 * syscall the stop cut short made to restart, as always).
 */
void target_cancel_interrupt(struct target *t, struct target_thread *th);

/**
 * Handles pending ptrace events, sleeping up to timeout_ns for the first
 * one (0: do not sleep). Returns early when *stop_flag is set. Frees the
 * threads that had gone before it was called: hold no thread across it.
 */
void target_poll(struct target *t, uint64_t timeout_ns);

/** Runs the handlers of pending termination signals, without sleeping
 * (nothing to do when a sleep since the last call let them in). */
void target_take_signals(struct target *t);

/**
 * Leaves every thread running: resumes our stops, drains events. The
 * tracer thread must exit afterwards for the kernel to detach.
 */
void target_release(struct target *t);

/** Frees t's memory (after the tracer thread is done). */
void target_fini(struct target *t);

#endif
