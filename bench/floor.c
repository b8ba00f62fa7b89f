// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The floor under rbflame's stop time: the bare ptrace cycle, and nothing
 * else, on the same target rbflame is measured on.
 *
 *   floor -p PID [-n CYCLES] [-r HZ] [-R]
 *
 * Seizes every thread of PID (PTRACE_SEIZE, which stops nothing), then
 * CYCLES times, HZ times a second: picks a thread the kernel shows running
 * (state R; on a busy Ruby process, the one holding the GVL), or the main
 * thread when none is, and times PTRACE_INTERRUPT -> its stop -> PTRACE_CONT
 * returning. It waits for the stop as rbflame does: waitpid(WNOHANG) with a
 * few sched_yield()s, then a blocking waitpid. Prints one line:
 *
 *   floor: N cycles, P50 us p50, P99 us p99, R on a running thread; held H50 us p50, H99 us p99; cpu C us a cycle
 *
 * (p50 and p99 chosen as rbflame's summary chooses them; held: from
 * waitpid reporting the stop to PTRACE_CONT returning, as rbflame's
 * summary measures its holds, here with nothing read in between; cpu:
 * the mean CPU time, user and system, the tracer spent from the
 * interrupt to PTRACE_CONT returning, waiting for the stop included:
 * what a stop costs the tracer before it reads anything. Not the
 * search for a running thread in /proc, which a sampler does not do:
 * some 10 us a thread on a 2-vCPU VM), and exits, which
 * detaches every thread without stopping it. Signals the target receives
 * meanwhile are passed on. Exit status 0, 1 on failure, 2 on usage error.
 *
 * -R: each hold also does the least a hold that reads the target does,
 * as rbflame's does it: one PTRACE_PEEKUSER of orig_rax (whether the
 * stop cut a syscall short) and one 512-byte process_vm_readv of a line
 * of the target's stack, which the tracer fetched just before the
 * interrupt too (the first read after the tracer slept is the slow one:
 * on a 2-vCPU VM 6.9 us for a line, 1.2 us so warmed). The line is
 * the one at the stack pointer of the thread first found running,
 * taken once in a stop before the cycles (PTRACE_GETREGSET).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 1024
#define MAX_CYCLES 1000000
#define SPINS 20

static pid_t tids[MAX_THREADS];
static int ntids;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The tracer's own CPU time, user and system. */
static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ull,
			       .tv_nsec = t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* Seizes every thread of pid. 0, or -1 when none could be seized. */
static int
seize_all(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && ntids < MAX_THREADS) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid > 0 && ptrace(PTRACE_SEIZE, tid, NULL, NULL) == 0)
			tids[ntids++] = tid;
	}
	closedir(dir);
	return ntids ? 0 : -1;
}

/* The kernel's state letter for a thread, '?' if unreadable. */
static char
thread_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

/* Passes on the signals of any thread in a signal-delivery stop. */
static void
drain(void)
{
	int status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
		if (WIFSTOPPED(status) && status >> 16 == 0)
			ptrace(PTRACE_CONT, tid, NULL,
			       (void *)(long)WSTOPSIG(status));
		else if (WIFSTOPPED(status))
			ptrace(PTRACE_CONT, tid, NULL, NULL);
	}
}

static int read_in_hold;	/* -R */
static uint64_t read_at;	/* -R: the line read, 0 until known */

/* -R: one line of the target at read_at. */
static void
read_line(pid_t tid)
{
	static char line[512];
	struct iovec local = { line, sizeof(line) };
	struct iovec remote = { (void *)(uintptr_t)read_at, sizeof(line) };

	(void)process_vm_readv(tid, &local, 1, &remote, 1, 0);
}

/* -R's work in the hold: orig_rax, then the line. */
static void
hold_read(pid_t tid)
{
	errno = 0;
	(void)ptrace(PTRACE_PEEKUSER, tid,
		     (void *)offsetof(struct user_regs_struct, orig_rax), NULL);
	read_line(tid);
}

/* -R: read_at from tid's stack pointer, in a stop of its own (not
 * timed). 0, or -1 when tid would not stop. */
static int
find_line(pid_t tid)
{
	struct user_regs_struct regs;
	struct iovec io = { &regs, sizeof(regs) };
	int status;

	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0)
		return -1;
	for (;;) {
		if (waitpid(tid, &status, __WALL) != tid || !WIFSTOPPED(status))
			return -1;
		if (status >> 16 == PTRACE_EVENT_STOP)
			break;
		ptrace(PTRACE_CONT, tid, NULL,
		       (void *)(long)(status >> 16 ? 0 : WSTOPSIG(status)));
	}
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &io) == 0)
		read_at = regs.rsp & ~(uint64_t)511;
	ptrace(PTRACE_CONT, tid, NULL, NULL);
	return read_at ? 0 : -1;
}

/* One cycle on tid: its duration in ns, or 0 when the thread is gone;
 * *held: from waitpid reporting the stop to PTRACE_CONT returning;
 * *cpu: the tracer's CPU time from the interrupt to that return. */
static uint64_t
cycle(pid_t tid, uint64_t *held, uint64_t *cpu)
{
	uint64_t t0, seen, end, c0;
	int spins = 0;

	if (read_in_hold)
		read_line(tid);	/* the fetch that warms the hold's */
	c0 = cpu_ns();
	t0 = now_ns();
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0)
		return 0;
	for (;;) {
		int status;
		pid_t r = waitpid(tid, &status,
				  __WALL | (spins < SPINS ? WNOHANG : 0));

		if (r == 0) {
			spins++;
			sched_yield();
			continue;
		}
		if (r < 0 || !WIFSTOPPED(status))
			return 0;
		if (status >> 16 == PTRACE_EVENT_STOP)
			break;
		/* A signal on its way: pass it on, the interrupt stays
		 * pending and comes next. */
		ptrace(PTRACE_CONT, tid, NULL,
		       (void *)(long)(status >> 16 ? 0 : WSTOPSIG(status)));
	}
	seen = now_ns();
	if (read_in_hold)
		hold_read(tid);
	if (ptrace(PTRACE_CONT, tid, NULL, NULL) < 0)
		return 0;
	end = now_ns();
	*cpu = cpu_ns() - c0;
	*held = end - seen;
	return end - t0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static double
quantile_us(const uint64_t *v, size_t n, double q)
{
	return v[(size_t)(q * (double)(n - 1) + 0.5)] / 1000.0;
}

static void
usage(FILE *f)
{
	fprintf(f, "Usage: floor -p PID [-n CYCLES] [-r HZ] [-R]\n"
		   "Time the bare PTRACE_INTERRUPT -> stop -> PTRACE_CONT "
		   "cycle on PID's running thread\n"
		   "(defaults: 600 cycles at 200 Hz; -R: each hold reads "
		   "orig_rax and one line, fetched before too).\n");
}

int
main(int argc, char **argv)
{
	long cycles = 600, hz = 200;
	uint64_t *v, *hv, next, period, cpu_sum = 0;
	pid_t pid = 0;
	size_t n = 0;
	int c, running = 0;

	while ((c = getopt(argc, argv, "p:n:r:Rh")) != -1) {
		switch (c) {
		case 'R':
			read_in_hold = 1;
			break;
		case 'p':
			pid = (pid_t)atoi(optarg);
			break;
		case 'n':
			cycles = atol(optarg);
			break;
		case 'r':
			hz = atol(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (pid <= 0 || cycles <= 0 || cycles > MAX_CYCLES || hz <= 0 ||
	    hz > 100000 || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (seize_all(pid) < 0) {
		fprintf(stderr, "floor: seize %d: %s\n", (int)pid,
			strerror(errno));
		return 1;
	}
	if (read_in_hold) {
		pid_t tid = pid;

		for (int j = 0; j < ntids; j++)
			if (thread_state(pid, tids[j]) == 'R') {
				tid = tids[j];
				break;
			}
		if (find_line(tid) < 0) {
			fprintf(stderr, "floor: -R: no stack line of %d: %s\n",
				(int)tid, strerror(errno));
			return 1;
		}
	}
	v = calloc((size_t)cycles, sizeof(*v));
	hv = calloc((size_t)cycles, sizeof(*hv));
	if (!v || !hv)
		return 1;
	period = 1000000000ull / (uint64_t)hz;
	next = now_ns();
	for (long i = 0; i < cycles; i++) {
		pid_t tid = pid;
		uint64_t ns, held = 0, cpu = 0;

		next += period;
		sleep_until(next);
		drain();
		for (int j = 0; j < ntids; j++) {
			if (thread_state(pid, tids[j]) == 'R') {
				tid = tids[j];
				running++;
				break;
			}
		}
		ns = cycle(tid, &held, &cpu);
		if (ns) {
			cpu_sum += cpu;
			hv[n] = held;
			v[n++] = ns;
		}
		else if (kill(pid, 0) < 0)
			break;	/* the target is gone */
	}
	if (n == 0) {
		fprintf(stderr, "floor: no cycle completed\n");
		return 1;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	qsort(hv, n, sizeof(*hv), cmp_u64);
	printf("floor: %zu cycles, %.1f us p50, %.1f us p99, %d on a running thread; held %.1f us p50, %.1f us p99; cpu %.1f us a cycle\n",
	       n, quantile_us(v, n, 0.5), quantile_us(v, n, 0.99), running,
	       quantile_us(hv, n, 0.5), quantile_us(hv, n, 0.99),
	       (double)cpu_sum / (double)n / 1000.0);
	free(v);
	free(hv);
	return 0;
}
