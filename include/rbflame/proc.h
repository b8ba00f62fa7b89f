/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Parsing of /proc for one target: memory maps, threads, names, the
 * syscall a thread is blocked in (and which ones a stop would make fail),
 * and the target's root directory (so files of chrooted or containerised
 * targets are opened through /proc/PID/root). The /proc location itself
 * is settable so tests can point it at a fake tree.
 */
#ifndef RBFLAME_PROC_H
#define RBFLAME_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/** Where /proc is ("/proc" unless a test changes it). */
extern const char *proc_dir;

struct map {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	int prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint64_t inode;
	char *path;		/* as /proc/PID/maps prints it, NULL if anonymous */
};

struct maps {
	struct map *v;
	size_t n;
};

/** Reads /proc/PID/maps. 0, or -1 with errno. maps_free() frees. */
int proc_maps_read(pid_t pid, struct maps *out);
/** Parses maps text (for unit tests). */
int proc_maps_parse(const char *text, struct maps *out);
/** The mapping containing addr, or NULL. Binary search. */
const struct map *maps_find(const struct maps *m, uint64_t addr);
void maps_free(struct maps *m);

/**
 * A path from the target's maps as the target sees it, for tfile_open()
 * inside its root: maps prints paths relative to the reader's root, so
 * the target's root prefix (the readlink of /proc/PID/root, as our root
 * sees it) is stripped. Points into path.
 */
const char *proc_path_in_root(const char *root_prefix, const char *path);
/** readlink /proc/PID/root into buf; "/" for an unchrooted target. */
int proc_root_prefix(pid_t pid, char *buf, size_t cap);

/** Threads of pid: *tids is malloc'd, *n set. 0 or -1. */
int proc_tasks(pid_t pid, pid_t **tids, size_t *n);
/** A process and its parent, as /proc/PID/stat says. */
struct proc_parent {
	pid_t pid, ppid;
};
/**
 * Every process of the system with its parent (each /proc/PID/stat; a process
 * that exits while listed is left out): *v is malloc'd, *n set, at most
 * PROC_PARENTS_MAX. 0 or -1.
 */
int proc_parents(struct proc_parent **v, size_t *n);
#define PROC_PARENTS_MAX 65536
/** The ppid of a /proc/PID/stat line (comm may hold ') '): 0 or -1. */
int proc_stat_ppid_parse(const char *line, pid_t *ppid);
/** The process (thread group) of pid, which may be a thread: 0 or -1. */
int proc_tgid(pid_t pid, pid_t *tgid);
/** comm of a thread ("" on failure); 0 or -1. */
int proc_thread_comm(pid_t pid, pid_t tid, char *buf, size_t cap);
/** Command line of pid, args joined by spaces, truncated to cap. */
int proc_cmdline(pid_t pid, char *buf, size_t cap);
/** The value of environment variable name in pid's initial environment
 * (/proc/PID/environ: what it was started with) into buf, truncated to
 * cap; -1 with errno ENOENT when it has none, else open's errno. */
int proc_environ_get(pid_t pid, const char *name, char *buf, size_t cap);
/** Real uid owning pid, and the state letter from /proc/PID/stat. */
int proc_status_uid(pid_t pid, uid_t *uid);
int proc_thread_state(pid_t pid, pid_t tid, char *state);
/** What pid does on a signal, from SigIgn and SigCgt in its status. */
enum { PROC_SIG_DEFAULT, PROC_SIG_IGNORED, PROC_SIG_CAUGHT };
/** PROC_SIG_* for signal sig (1..64) of pid, or -1 with errno. */
int proc_signal_disposition(pid_t pid, int sig);
/** TracerPid of pid (0 when untraced), -1 on error. */
int proc_tracer_pid(pid_t pid, pid_t *tracer);

/**
 * The ids in the NSpid line of status text (/proc/PID/status or a task's):
 * the id in each PID namespace from /proc's own (ours) down to the
 * process's, at most max. Returns how many; 0 when there is no NSpid line
 * (kernels before 4.1: no namespaces to tell apart).
 */
int proc_nspid_parse(const char *status, pid_t *ids, int max);

/**
 * The NSpid ids of process pid (/proc/PID/status), as proc_nspid_parse():
 * the last is the pid the process sees itself as. How many, 0 without an
 * NSpid line, -1 with errno when the file cannot be read.
 */
int proc_status_nspid(pid_t pid, pid_t *ids, int max);

/*
 * Thread ids of one process as it sees them (what gettid() returns in its
 * PID namespace, what glibc and Ruby store) mapped to ours (what ptrace and
 * /proc take). For a process in our namespace both are the same and
 * nothing is read. For one in another (a container, unshare --pid) the
 * map comes from the NSpid lines of /proc/PID/task/TID/status, read again
 * when an id is missing from it; an id still missing is remembered, and
 * asking for it again reads /proc at most once a second.
 */
struct proc_tidmap;

/** The map of process pid; never fails. proc_tidmap_destroy() frees. */
struct proc_tidmap *proc_tidmap_create(pid_t pid);
/** Whether pid lives in another PID namespace than /proc's. */
bool proc_tidmap_foreign(const struct proc_tidmap *m);
/**
 * Our id of the thread pid calls tid; 0 when pid has no such thread
 * (tid <= 0, an exited thread, an id left from before a fork).
 */
pid_t proc_tidmap_host(struct proc_tidmap *m, pid_t tid);
/** How many times the map was read from /proc (for tests). */
unsigned proc_tidmap_refreshes(const struct proc_tidmap *m);
void proc_tidmap_destroy(struct proc_tidmap *m);

/** What /proc/PID/task/TID/syscall says. */
struct proc_syscall {
	enum {
		PSC_RUNNING,	/* "running": on a CPU or runnable */
		PSC_BLOCKED,	/* blocked inside syscall nr */
		PSC_USER,	/* blocked outside a syscall ("-1 sp pc") */
		PSC_UNKNOWN,
	} kind;
	long nr;
	uint64_t args[6];
	uint64_t sp, pc;
};

/** Parses one line of /proc/.../syscall text. */
int proc_syscall_parse(const char *text, struct proc_syscall *out);
/**
 * Parses a schedstat file's three fields ("RUN_NS WAIT_NS SLICES") from
 * *p into v, moving *p past them. 0, or -1 (EINVAL) when one is missing
 * or longer than 19 digits.
 */
int proc_schedstat_parse(const char **p, unsigned long long v[3]);
/**
 * Reads it through fd (an open /proc/PID/task/TID/syscall; pread at 0
 * regenerates the text, so one fd serves every tick).
 */
int proc_syscall_read_fd(int fd, struct proc_syscall *out);

/**
 * A thread's time on a CPU so far in ns, the first field of an open
 * /proc/PID/task/TID/schedstat read through fd (pread at 0, like the
 * syscall file). 0 or -1.
 */
int proc_schedstat_read_fd(int fd, uint64_t *run_ns);
/**
 * The same, and the third field: how many times the thread was put on a
 * CPU (slices may be NULL). A thread off its CPU whose two counts have
 * not moved has not been on one since.
 */
int proc_schedstat_read(int fd, uint64_t *run_ns, uint64_t *slices);
/**
 * The time pid's main thread has spent runnable but waiting for a CPU
 * so far, in ns (the second field of /proc/PID/schedstat). 0 or -1.
 */
int proc_run_delay(pid_t pid, uint64_t *wait_ns);

/**
 * The host's CPU pressure file (/proc/pressure/cpu, the kernel's PSI),
 * opened for proc_cpu_pressure_read(); -1 where the kernel has none
 * (before 4.20, or psi=0).
 */
int proc_cpu_pressure_open(void);
/**
 * How long, in microseconds since boot, some task waited for a CPU
 * (the total of the file's "some" line), and the share of the last 10
 * seconds it did, in percent (its avg10; avg10 may be NULL): pread at 0
 * through fd. 0 or -1.
 */
int proc_cpu_pressure_read(int fd, uint64_t *some_us, double *avg10);
/**
 * proc_cpu_pressure_read()'s parse of the file's text: 0 or -1 (no
 * "some" line first, or no avg10 or total on it).
 */
int proc_cpu_pressure_parse(const char *text, uint64_t *some_us,
			    double *avg10);

/**
 * What rbflame does about a thread blocked in a syscall that one of its
 * stops would make fail (doc/syscalls.md). Calls not in the table are
 * restarted by the kernel after a stop without a handler (-ERESTARTSYS,
 * -ERESTARTNOHAND, -ERESTART_RESTARTBLOCK): any thread may be stopped.
 */
enum proc_syscall_policy {
	/*
	 * The wait ends with -EINTR, but running the call again is the same
	 * call (nothing done, no timeout of its own): the -EINTR found at
	 * the stop becomes -ERESTARTNOHAND, so a stop may land there.
	 */
	PROC_SYSCALL_REWRITE,
	/*
	 * No stop is equivalent: a restart would start the call's own
	 * timeout again, or the call has done part of its work. Never
	 * stopped; an -EINTR found at a stop rbflame did not choose (a
	 * queued ignored signal, a new thread) is still rewritten: a longer
	 * wait is the lesser harm.
	 */
	PROC_SYSCALL_NEVER_STOP,
};

/** One row of the table: an x86_64 syscall number, its name, why. */
struct proc_syscall_rule {
	long nr;
	const char *name;
	enum proc_syscall_policy policy;
	const char *why;
};

/** The row of syscall nr; NULL when the kernel restarts it after a stop. */
const struct proc_syscall_rule *proc_syscall_rule(long nr);

/** The whole table, *n rows (static storage). */
const struct proc_syscall_rule *proc_syscall_rules(size_t *n);

/**
 * True when syscall nr has a row: a stop would make it fail with EINTR,
 * or restart it from scratch. The sampler never stops such a thread (the
 * REWRITE rows included: it unwinds them from what the kernel reports),
 * and target_fix_interrupted_syscall() turns an -EINTR that any stop
 * finds in one into -ERESTARTNOHAND.
 */
bool proc_syscall_nonrestartable(long nr);

/**
 * True when the thread of process pid blocked as sc says must never be
 * stopped: a call of the table above, or a read or write family call
 * (read, readv, write, writev, sendfile, splice) on a socket, which ends
 * with -EINTR at a stop when the socket has a timeout /proc cannot show.
 * Costs a readlink of /proc/PID/fd/N for those calls only.
 */
bool proc_syscall_never_stop(pid_t pid, const struct proc_syscall *sc);

/**
 * True for the calls whose stop behaviour depends on their fd (read,
 * readv, write, writev, sendfile, splice): an -EINTR a stop finds in one
 * came from a socket timeout and is rewritten like the table's.
 */
bool proc_syscall_fd_dependent(long nr);

#endif
