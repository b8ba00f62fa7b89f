// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * ptrace lifecycle of the target's threads. The rules kept here:
 *  - every signal-delivery stop is re-injected at once, so the target
 *    never loses a signal, whether or not we are waiting for that thread;
 *  - a group stop (SIGSTOP, Ctrl-Z) is respected with PTRACE_LISTEN;
 *  - a thread is stopped only on request, and resumed as soon as its
 *    reader is done; an interrupt nobody waits for any more is resumed
 *    when it arrives;
 *  - a vanished thread is dropped quietly; the leader's exit ends the run
 *    (with follow_forks: the last followed process's exit).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rbflame/error.h"
#include "rbflame/proc.h"
#include "rbflame/schedule.h"
#include "rbflame/switchlog.h"
#include "rbflame/target.h"
#include "rbflame/xmalloc.h"

#define SEIZE_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)
#define FOLLOW_OPTIONS (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK)
#define ATTACH_ROUNDS 100	/* bound on re-listing a thread-spawning target */

/* Kernel-internal restart codes, visible to ptrace in rax. */
#define ERESTARTNOHAND 514
/* target_wait_stopped() yields this many times before it sleeps, while
 * stops land within SPIN_LATENCY_NS on average. */
#define WAIT_SPINS 20
#define SPIN_LATENCY_NS (50ull * 1000ull)

int
target_init(struct target *t, const sigset_t *wait_mask,
	    volatile sig_atomic_t *stop_flag)
{
	sigset_t chld;

	memset(t, 0, sizeof(*t));
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	t->sigchld_fd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
	if (t->sigchld_fd < 0)
		return -1;
	t->wait_mask = *wait_mask;
	t->stop_flag = stop_flag;
	t->chld_owed = true;
	return 0;
}

struct target_process *
target_process_find(struct target *t, pid_t pid)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

bool
target_alive(const struct target *t)
{
	if (t->nthreads == 0)
		return false;
	if (!t->follow_forks && t->nprocs <= 1)
		return !t->exited;
	for (size_t i = 0; i < t->nprocs; i++)
		if (!t->procs[i].exited)
			return true;
	return false;
}

static struct target_process *
process_add(struct target *t, pid_t pid, pid_t parent)
{
	struct target_process *p = target_process_find(t, pid);

	if (p)
		return p;
	t->procs = xgrowarray(t->procs, &t->procs_cap, t->nprocs + 1,
			      sizeof(*t->procs));
	p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->parent = parent;
	return p;
}

/* The process of a thread we have not seen yet. With one process and
 * no follow_forks every traced thread is the target's; else /proc knows. */
static pid_t
thread_group(struct target *t, pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = t->pid;
	FILE *f;

	if (!t->follow_forks && t->nprocs <= 1)
		return t->pid;
	snprintf(path, sizeof(path), "%s/%d/status", proc_dir, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return t->pid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* A thread by tid: its slot of the lookup table first (a tick looks
 * its threads up several times each, and the list's walk, a cold node
 * a thread, was 2.1% of rbflame's CPU on a loaded Puma, perf), then the
 * list, which refills the slot. */
static size_t
find_slot(pid_t tid)
{
	return (size_t)tid & (TARGET_FIND_SLOTS - 1);
}

struct target_thread *
target_thread_find(struct target *t, pid_t tid)
{
	struct target_thread **slot = &t->find[find_slot(tid)];

	if (*slot && (*slot)->tid == tid)
		return *slot;
	for (struct target_thread *th = t->threads; th; th = th->next)
		if (th->tid == tid) {
			*slot = th;
			return th;
		}
	return NULL;
}

struct target_thread *
target_thread_next(struct target *t, struct target_thread *th)
{
	/* A gone thread's next is where it stood: only newer threads were
	 * appended after it, and those gone since keep their next too. */
	th = th ? th->next : t->threads;
	while (th && th->state == TS_GONE)
		th = th->next;
	return th;
}

/*
 * Logs th's context switches (t->switches): a perf event and a ring of
 * two pages a thread, locked memory, so SWITCHLOG_MAX threads at most,
 * and a third file a thread beside its syscall and schedstat files:
 * under a quarter of the open-file limit (1024 files: 256 threads), so
 * that the output and the target's own files still open. A kernel that
 * refuses one for want of support or permission refuses them all: not
 * asked again. A thread without one is read through /proc.
 */
#define SWITCHLOG_MAX 512

static size_t
switches_max(void)
{
	static size_t max;
	struct rlimit rl;

	if (!max) {
		max = SWITCHLOG_MAX;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
		    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < max)
			max = (size_t)(rl.rlim_cur / 4);
	}
	return max;
}

static void
switches_open(struct target *t, struct target_thread *th)
{
	if (!t->switches || t->nswitches >= switches_max())
		return;
	th->switches = switchlog_open(th->tid);
	if (th->switches) {
		t->nswitches++;
		return;
	}
	debug_msg("thread %d: no switch log: %s", (int)th->tid,
		  strerror(errno));
	if (errno == ENOSYS || errno == EACCES || errno == EPERM ||
	    errno == EINVAL || errno == ENOENT || errno == EOPNOTSUPP)
		t->switches = false;
}

static struct target_thread *
thread_add(struct target *t, pid_t pid, pid_t tid)
{
	struct target_thread *th = target_thread_find(t, tid);
	char path[96];

	if (th)
		return th;
	process_add(t, pid, 0);
	th = xcalloc(1, sizeof(*th));
	th->pid = pid;
	th->tid = tid;
	th->serial = ++t->stats.threads_seen;
	th->state = TS_RUNNING;
	snprintf(path, sizeof(path), "%s/%d/task/%d/syscall", proc_dir,
		 (int)pid, (int)tid);
	th->syscall_fd = open(path, O_RDONLY | O_CLOEXEC);
	th->schedstat_fd = -1;
	switches_open(t, th);
	if (t->cputime) {
		snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat",
			 proc_dir, (int)pid, (int)tid);
		th->schedstat_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	th->prev = t->threads_tail;
	if (t->threads_tail)
		t->threads_tail->next = th;
	else
		t->threads = th;
	t->threads_tail = th;
	t->nthreads++;
	return th;
}

/* th is gone: unlinked, marked, its files closed; freed by reap(). */
static void
thread_remove(struct target *t, struct target_thread *th)
{
	if (th->state == TS_GONE)
		return;
	if (th->prev)
		th->prev->next = th->next;
	else
		t->threads = th->next;
	if (th->next)
		th->next->prev = th->prev;
	else
		t->threads_tail = th->prev;
	/* th->next stays: a walk standing on th goes on from there. */
	if (t->find[find_slot(th->tid)] == th)
		t->find[find_slot(th->tid)] = NULL;
	t->nthreads--;
	th->state = TS_GONE;
	if (th->syscall_fd >= 0)
		close(th->syscall_fd);
	if (th->schedstat_fd >= 0)
		close(th->schedstat_fd);
	th->syscall_fd = th->schedstat_fd = -1;
	if (th->switches) {
		switchlog_close(th->switches);
		th->switches = NULL;
		t->nswitches--;
	}
	th->reap_next = t->gone;
	t->gone = th;
}

/* Frees the gone threads: no caller holds one between ticks. */
static void
reap(struct target *t)
{
	while (t->gone) {
		struct target_thread *th = t->gone;

		t->gone = th->reap_next;
		if (t->thread_gone)
			t->thread_gone(th, t->thread_gone_arg);
		free(th);
	}
}

static void
cont(pid_t tid, int sig)
{
	/* ESRCH: the thread died meanwhile; its exit event will follow. */
	if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig) < 0 &&
	    errno != ESRCH)
		debug_msg("PTRACE_CONT %d: %s", (int)tid, strerror(errno));
}

static int
get_regs(struct target_thread *th, struct user_regs_struct *regs)
{
	return (int)ptrace(PTRACE_GETREGS, th->tid, NULL, regs);
}

/*
 * In a stop we caused, a non-restartable syscall (epoll_wait...) has
 * already failed with EINTR: rewrite its result so the kernel restarts it,
 * keeping man 7 signal's semantics if a real handler runs too.
 */
static void
fix_interrupted_syscall(struct target *t, struct target_thread *th,
			struct user_regs_struct *regs)
{
	/* orig_rax >= 0: the stop came on the way out of a syscall. A
	 * non-restartable one that saw our interrupt has already returned
	 * -EINTR. -ERESTARTNOHAND makes the kernel restart it on resume, or
	 * turn it back into EINTR if a real signal handler runs. */
	if ((long)regs->orig_rax < 0 || (long)regs->rax != -EINTR ||
	    (!proc_syscall_nonrestartable((long)regs->orig_rax) &&
	     !proc_syscall_fd_dependent((long)regs->orig_rax)))
		return;
	regs->rax = (unsigned long long)-ERESTARTNOHAND;
	if (ptrace(PTRACE_SETREGS, th->tid, NULL, regs) == 0)
		t->stats.eintr_fixups++;
}

/* The same for a stop nobody waits on: registers read only for it. */
static void
fix_stopped_syscall(struct target *t, struct target_thread *th)
{
	struct user_regs_struct regs;

	if (get_regs(th, &regs) == 0)
		fix_interrupted_syscall(t, th, &regs);
}

/*
 * Whether an EINTR that signal sig, about to be delivered, left in a
 * non-restartable call may be turned into a restart. The kernel queues
 * even ignored signals for a traced process (SIGCHLD, SIGWINCH, SIGURG,
 * SIG_IGN'd ones: "tracers may want to know"), so a thread asleep in
 * epoll_wait or sigtimedwait fails with EINTR where untraced it would
 * have slept on. -ERESTARTNOHAND restarts the call when no handler runs
 * and still gives EINTR when one does, as without us; a fatal signal ends
 * the process either way. Only a stop signal left at its default stops
 * the process, and then EINTR is what the program would see untraced
 * (man 7 signal): that one is left alone.
 */
static bool
signal_may_restart(struct target *t, int sig)
{
	int disp;

	if (sig == SIGSTOP || sig == SIGKILL)
		return false;
	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		return true;
	disp = proc_signal_disposition(t->pid, sig);
	return disp == PROC_SIG_IGNORED || disp == PROC_SIG_CAUGHT;
}

/* th is in the stop we asked for: held from now until target_resume(). */
static void
hold(struct target_thread *th, int sig)
{
	th->state = TS_STOPPED;
	th->regs_ok = false;
	th->pending_sig = sig;
	th->stop_seen_ns = now_ns();
}

/*
 * Any ptrace stop (a signal-delivery stop, a clone or fork event) clears
 * the kernel's pending PTRACE_INTERRUPT: "any trap clears pending STOP
 * trap" (ptrace_stop() in kernel/signal.c). A thread we are stopping that
 * reports such a stop will send no other: this is the stop we wait for.
 * True when th is now held there (resumed by target_resume()).
 */
static bool
trap_answers_interrupt(struct target_thread *th, int sig)
{
	if (th->state != TS_STOPPING)
		return false;
	if (th->unwanted) {
		/* Nobody waits for it any more: it just goes on. */
		th->state = TS_RUNNING;
		th->unwanted = false;
		return false;
	}
	hold(th, sig);
	return true;
}

/* A trap of ours is over: th stays held when the trap answers our
 * interrupt, else it goes on (with sig, for a signal-delivery stop). */
static void
end_trap(struct target_thread *th, int sig)
{
	if (trap_answers_interrupt(th, sig))
		return;
	cont(th->tid, sig);
}

/* tid exited or was killed: a thread, maybe a process's leader. */
static void
on_exit_status(struct target *t, pid_t tid, int status)
{
	struct target_thread *th = target_thread_find(t, tid);
	struct target_process *p = target_process_find(t, tid);

	if (p)
		p->exited = true;
	if (tid == t->pid) {
		t->exited = true;
		t->exit_status = status;
	}
	if (th)
		thread_remove(t, th);
}

/* The thread that reports a stop; a new thread can report its first stop
 * before its parent's clone (or fork) event. */
static struct target_thread *
stopped_thread(struct target *t, pid_t tid)
{
	struct target_thread *th = target_thread_find(t, tid);

	return th ? th : thread_add(t, thread_group(t, tid), tid);
}

/* th created a thread: it is traced already. */
static void
on_clone(struct target *t, struct target_thread *th)
{
	unsigned long child = 0;

	if (ptrace(PTRACE_GETEVENTMSG, th->tid, NULL, &child) == 0 &&
	    child > 0)
		thread_add(t, thread_group(t, (pid_t)child), (pid_t)child);
	end_trap(th, 0);
}

/* th forked or vforked (follow_forks): the child is traced already; its
 * first stop may have come first. */
static void
on_fork(struct target *t, struct target_thread *th, bool vfork)
{
	unsigned long child = 0;

	if (ptrace(PTRACE_GETEVENTMSG, th->tid, NULL, &child) == 0 &&
	    child > 0) {
		struct target_process *p =
			process_add(t, (pid_t)child, th->pid);

		p->parent = th->pid;
		p->vforked = vfork;
		thread_add(t, (pid_t)child, (pid_t)child);
	}
	end_trap(th, 0);
}

/* A thread of th's process exec'd; th now has the leader's tid. */
static void
on_exec(struct target *t, struct target_thread *th)
{
	unsigned long old = 0;
	pid_t tid = th->tid, pid = th->pid;
	struct target_process *p;

	/* After exec only the leader's tid is left; the threads that
	 * vanished report no exit. */
	if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &old) == 0)
		debug_msg("exec by thread %lu", old);
	for (struct target_thread *o = target_thread_next(t, NULL); o;
	     o = target_thread_next(t, o))
		if (o->pid == pid && o->tid != pid)
			thread_remove(t, o);
	th = target_thread_find(t, pid);
	if (th && old != 0 && (pid_t)old != pid) {
		/* Another thread exec'd and took the leader's tid: the
		 * leader we knew died, with any interrupt we had sent it
		 * (its stop will never come), and its syscall file with it.
		 * Start the entry afresh. */
		thread_remove(t, th);
		th = NULL;
	}
	if (!th)
		th = thread_add(t, pid, pid);
	p = process_add(t, pid, 0);
	p->exec_seen = true;
	p->vforked = false;
	t->exec_seen = true;
	/* The exec event answered any interrupt we had sent (see
	 * trap_answers_interrupt()); the new image is not read with the old
	 * one's tables: let it run. */
	th->state = TS_RUNNING;
	th->unwanted = false;
	cont(pid, 0);
}

/* Group stop (SIGSTOP, Ctrl-Z): stay stopped as the user asked, but keep
 * receiving events. */
static void
on_group_stop(struct target_thread *th)
{
	th->state = TS_GROUP_STOPPED;
	th->unwanted = false;
	if (ptrace(PTRACE_LISTEN, th->tid, NULL, NULL) < 0 && errno != ESRCH)
		debug_msg("PTRACE_LISTEN %d: %s", (int)th->tid,
			  strerror(errno));
}

/* A PTRACE_EVENT_STOP that is no group stop: our interrupt, or a stop
 * nobody waits for. */
static void
on_interrupt_stop(struct target *t, struct target_thread *th)
{
	if (th->state == TS_STOPPING && !th->unwanted) {
		hold(th, 0);
		return;
	}
	/* A new thread's first stop, the wake-up after a group stop, an
	 * interrupt we gave up waiting for, or one sent while the thread sat
	 * in another stop: that one may have cut a non-restartable syscall
	 * short, like any of ours. */
	fix_stopped_syscall(t, th);
	th->state = TS_RUNNING;
	th->unwanted = false;
	cont(th->tid, 0);
}

/* Signal-delivery stop: the signal goes on to the target untouched, now
 * or, when this stop answers our interrupt, at the resume. */
static void
on_signal_stop(struct target *t, struct target_thread *th, int sig)
{
	t->stats.signals_forwarded++;
	if (th->state == TS_GROUP_STOPPED)
		th->state = TS_RUNNING;	/* SIGCONT & co */
	if (signal_may_restart(t, sig))
		fix_stopped_syscall(t, th);
	end_trap(th, sig);
}

static bool
is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/* One wait status for tid, handed to the handler of its kind. */
static void
handle_event(struct target *t, pid_t tid, int status)
{
	struct target_thread *th;
	int sig;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		on_exit_status(t, tid, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	th = stopped_thread(t, tid);
	sig = WSTOPSIG(status);
	switch ((unsigned)status >> 16) {
	case PTRACE_EVENT_CLONE:
		on_clone(t, th);
		break;
	case PTRACE_EVENT_FORK:
		on_fork(t, th, false);
		break;
	case PTRACE_EVENT_VFORK:
		on_fork(t, th, true);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(t, th);
		break;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig))
			on_group_stop(th);
		else
			on_interrupt_stop(t, th);
		break;
	case 0:
		on_signal_stop(t, th, sig);
		break;
	default:
		/* No other event is asked for; a trap is a trap. */
		end_trap(th, 0);
		break;
	}
}

static int
drain(struct target *t)
{
	int handled = 0;

	t->chld_owed = false;
	for (;;) {
		int status;
		pid_t tid = waitpid(-1, &status, WNOHANG | __WALL);

		if (tid <= 0)
			break;
		handle_event(t, tid, status);
		handled++;
	}
	return handled;
}

/*
 * Empties the SIGCHLD notification: whether one was pending. SIGCHLD is
 * a standard signal, pending once however many children changed state,
 * so one read empties it (a second read only ever failed with EAGAIN:
 * some 250 system calls a second on a loaded Puma, at 2-3 us each on a
 * host where every system call exits to the hypervisor).
 */
static bool
clear_sigchld(struct target *t)
{
	struct signalfd_siginfo si[4];

	if (read(t->sigchld_fd, si, sizeof(si)) <= 0)
		return false;
	t->chld_owed = true;	/* drain() has events to look for */
	return true;
}

/* Sleeps until a SIGCHLD, a signal of the wait mask, or timeout_ns:
 * whether a SIGCHLD woke it (its notification read). */
static bool
sleep_sigchld(struct target *t, uint64_t timeout_ns)
{
	struct pollfd pfd = { .fd = t->sigchld_fd, .events = POLLIN };
	struct timespec ts = {
		.tv_sec = timeout_ns / 1000000000ull,
		.tv_nsec = timeout_ns % 1000000000ull,
	};

	t->slept = true;
	return ppoll(&pfd, 1, &ts, &t->wait_mask) > 0 && clear_sigchld(t);
}

/*
 * Every event the kernel queues for a tracer (a stop, a clone, an
 * exit) sends it a SIGCHLD, so waitpid(-1) has nothing to report unless
 * a notification was read since the last drain (t->chld_owed: here, or
 * by a wait for one thread's stop). A poll that finds none, or a sleep
 * that ends without one, makes no waitpid: two fewer system calls a
 * round, on a host where each costs 2-3 us.
 */
void
target_poll(struct target *t, uint64_t timeout_ns)
{
	reap(t);
	/* Clear the SIGCHLD notification before waitpid, so an event that
	 * arrives after the drain wakes the next poll. */
	clear_sigchld(t);
	if ((t->chld_owed && drain(t)) || timeout_ns == 0 || *t->stop_flag)
		return;
	if (sleep_sigchld(t, timeout_ns))
		drain(t);
}

void
target_take_signals(struct target *t)
{
	struct timespec zero = { 0, 0 };

	/* A zero-timeout wait with the wait mask lets pending termination
	 * signals run their handlers even when ticks never leave time to
	 * sleep. A sleep since the last call let them in already: one
	 * system call a tick less (2-3 us each on a host whose system
	 * calls exit to the hypervisor). */
	if (t->slept) {
		t->slept = false;
		return;
	}
	ppoll(NULL, 0, &zero, &t->wait_mask);
}

int
target_interrupt(struct target *t, struct target_thread *th)
{
	if (ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) < 0)
		return -1;
	th->state = TS_STOPPING;
	th->unwanted = false;
	th->interrupted_ns = now_ns();
	th->interrupts++;
	return 0;
}

void
target_cancel_interrupt(struct target *t, struct target_thread *th)
{
	if (th->state == TS_STOPPED)
		target_resume(t, th);
	else if (th->state == TS_STOPPING)
		th->unwanted = true;
}

/*
 * th, held in the stop we asked for, is about to run again: when our
 * interrupt cut a non-restartable syscall short, the syscall is made to
 * restart, so that every waiter resumes it safely. Only a stop in a
 * syscall needs the registers for that, and orig_rax says whether it is
 * one (the kernel sets it to -1 on every entry but a syscall's): one
 * PTRACE_PEEKUSER, unless the hold fetched the registers anyway, or
 * they are fetched whole (t->regs_whole, --native). Done at the resume, not at the stop: the first ptrace
 * request of a stop waits until the thread is off its CPU
 * (wait_task_inactive()), 15-19 us p50 on a 2-vCPU VM, where the reads
 * of the hold need no such wait; asked at once, it was the hold's
 * largest part (PTRACE_GETREGS 18.5-19.3 us of a 75 us --native hold),
 * and by the resume it costs what a call costs. A GVL holder running
 * Ruby code is in no syscall.
 */
static void
syscall_check(struct target *t, struct target_thread *th)
{
	long orig;

	if (th->regs_ok) {
		fix_interrupted_syscall(t, th, &th->regs);
		return;
	}
	/* --native: a stop it did not unwind (a holder that let the GVL
	 * go, a retried tick) fetches them whole too, one call where
	 * orig_rax first took two in a syscall. */
	if (t->regs_whole) {
		fix_stopped_syscall(t, th);
		return;
	}
	errno = 0;
	orig = ptrace(PTRACE_PEEKUSER, th->tid,
		      (void *)offsetof(struct user_regs_struct, orig_rax),
		      NULL);
	if (errno == 0 && orig >= 0)
		fix_stopped_syscall(t, th);
}

const struct user_regs_struct *
target_thread_regs(struct target_thread *th)
{
	if (th->state != TS_STOPPED) {
		errno = ESRCH;
		return NULL;
	}
	if (!th->regs_ok) {
		if (get_regs(th, &th->regs) < 0)
			return NULL;
		th->regs_ok = true;
	}
	return &th->regs;
}

int
target_wait_stopped(struct target *t, struct target_thread *th,
		    uint64_t timeout_ns)
{
	pid_t tid = th->tid;
	uint64_t deadline = now_ns() + timeout_ns;
	int spins = 0;

	/* A host whose stops take longer than the spin lasts (a loaded
	 * one: 170-200 us p50 under bench/server's load, where the spin's
	 * 20 yields and waitpids took some 30 us) gains nothing by it but
	 * rbflame's CPU, on a CPU the target needs. */
	if (t->latency_avg_ns > SPIN_LATENCY_NS) {
		spins = WAIT_SPINS;
		t->stats.waits_unspun++;
	}

	for (;;) {
		int status;
		pid_t r = waitpid(tid, &status, WNOHANG | __WALL);
		uint64_t now;

		if (r == tid) {
			handle_event(t, tid, status);
		} else if (r < 0 && errno == ECHILD) {
			thread_remove(t, th);
			errno = ESRCH;
			return -1;
		}
		if (th->state == TS_GONE) {
			errno = ESRCH;
			return -1;
		}
		if (th->state == TS_STOPPED)
			return 0;
		if (th->state != TS_STOPPING || *t->stop_flag)
			break;
		if (r == tid)
			continue;	/* a signal went by: look again */
		now = now_ns();
		if (now >= deadline)
			break;
		/* The stop usually lands within microseconds: yield a few
		 * times before sleeping on SIGCHLD (real-time, the yields
		 * return at once, and the sleep lets a target on our CPU
		 * run to its stop: 51 us p50 pinned to one CPU, where 1-us
		 * sleeps instead of yields took 202). */
		if (spins++ < WAIT_SPINS) {
			sched_yield();
		} else {
			/* Until the stop's SIGCHLD (another thread's event
			 * read there is the next poll's to drain) or the
			 * deadline: a wake every millisecond, as before,
			 * cost a loaded host's stops (1-2 ms) a second
			 * sleep and wake, some 35 us of our CPU each on a
			 * 2-vCPU VM. */
			sleep_sigchld(t, deadline - now);
		}
	}
	if (th->state == TS_STOPPING)
		th->unwanted = true;
	errno = EAGAIN;
	return -1;
}

int
target_resume(struct target *t, struct target_thread *th)
{
	int sig = th->pending_sig;

	if (th->state != TS_STOPPED)
		return 0;
	syscall_check(t, th);
	th->state = TS_RUNNING;
	th->pending_sig = 0;
	if (ptrace(PTRACE_CONT, th->tid, NULL, (void *)(long)sig) < 0)
		return -1;
	if (th->stop_seen_ns >= th->interrupted_ns) {
		uint64_t lat = th->stop_seen_ns - th->interrupted_ns;

		t->latency_avg_ns = t->latency_avg_ns - t->latency_avg_ns / 8 +
				    lat / 8;
	}
	if (t->thread_held)
		t->thread_held(th, th->stop_seen_ns - th->interrupted_ns,
			       now_ns() - th->stop_seen_ns,
			       t->thread_held_arg);
	return 0;
}

static int
seize(struct target *t, pid_t tid)
{
	long opts = SEIZE_OPTIONS | (t->follow_forks ? FOLLOW_OPTIONS : 0);

	return (int)ptrace(PTRACE_SEIZE, tid, NULL, (void *)opts);
}

/* Seizes pid's leader, then its threads: threads created by a thread not
 * yet seized are not traced automatically, so list again until the set
 * is stable. */
static int
seize_process(struct target *t, pid_t pid)
{
	if (seize(t, pid) < 0)
		return -1;
	thread_add(t, pid, pid);
	for (int round = 0; round < ATTACH_ROUNDS; round++) {
		pid_t *tids;
		size_t n;
		bool added = false;

		if (proc_tasks(pid, &tids, &n) < 0)
			break;
		for (size_t i = 0; i < n; i++) {
			if (target_thread_find(t, tids[i]))
				continue;
			if (seize(t, tids[i]) < 0)
				continue;	/* exited meanwhile */
			thread_add(t, pid, tids[i]);
			added = true;
		}
		free(tids);
		if (!added)
			break;
	}
	return 0;
}

int
target_attach(struct target *t, pid_t pid)
{
	t->pid = pid;
	return seize_process(t, pid);
}

int
target_adopt(struct target *t, pid_t pid, pid_t parent)
{
	struct target_process *p;

	if (seize_process(t, pid) < 0)
		return -1;
	p = process_add(t, pid, parent);
	p->parent = parent;
	p->adopted = true;
	return 0;
}

int
target_launch(struct target *t, char **argv, int *exec_errno)
{
	int pipefd[2];
	pid_t pid;
	int status, err = 0;
	sigset_t empty;
	uint64_t deadline;

	*exec_errno = 0;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		/* Child: stop so the parent can seize us before exec, then
		 * run the command with the signal mask it would have had. */
		sigemptyset(&empty);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		close(pipefd[0]);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(pipefd[1]);
	t->pid = pid;
	t->launched = true;
	if (waitpid(pid, &status, WSTOPPED) != pid || !WIFSTOPPED(status))
		goto fail;
	if (seize(t, pid) < 0)
		goto fail;
	thread_add(t, pid, pid);
	kill(pid, SIGCONT);
	/* Run events until the exec happened or the child died. */
	deadline = now_ns() + 30ull * 1000000000ull;
	while (!t->exec_seen && !t->exited && now_ns() < deadline)
		target_poll(t, 100000000ull);
	/* An exec seen is a success even if the program has already exited
	 * by now (both events can come in one drain). */
	if (!t->exec_seen) {
		if (read(pipefd[0], &err, sizeof(err)) == sizeof(err))
			*exec_errno = err;
		else
			*exec_errno = ENOEXEC;
		close(pipefd[0]);
		errno = *exec_errno;
		return -1;
	}
	close(pipefd[0]);
	return 0;
fail:
	err = errno;
	kill(pid, SIGKILL);
	waitpid(pid, &status, __WALL);
	close(pipefd[0]);
	errno = err;
	return -1;
}

void
target_release(struct target *t)
{
	struct target_thread *th;

	for (th = t->threads; th; th = th->next)
		if (th->state == TS_STOPPED)
			target_resume(t, th);
	/* Interrupts still in flight: mark them so drain resumes them. */
	for (th = t->threads; th; th = th->next)
		if (th->state == TS_STOPPING)
			th->unwanted = true;
	drain(t);
}

void
target_fini(struct target *t)
{
	while (t->threads)
		thread_remove(t, t->threads);
	reap(t);
	free(t->procs);
	t->procs = NULL;
	t->nprocs = 0;
	if (t->sigchld_fd >= 0)
		close(t->sigchld_fd);
	t->sigchld_fd = -1;
}
