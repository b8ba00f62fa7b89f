// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The churn tracee: a loop that keeps creating and joining threads and
 * forking children, so a profiler sees threads come and go between (and
 * during) its ticks, and forks happen while threads are stopped.
 *
 *   churn [-r READY] [-g GO] SECONDS
 *   churn --child            (what posix_spawn runs: exits 0 at once)
 *
 * Each round: three threads that spin briefly and are joined (the first of
 * them also forks a child from a non-main thread every 4th round), a
 * forked child that starts and joins a thread of its own then exits 7, and
 * every 4th round a posix_spawn (vfork-style clone) of /proc/self/exe
 * --child. Every child is waited for with a 5 s limit; a child that does
 * not exit in time (e.g. left stopped by a tracer) is reported with its
 * state, killed and counted as a failure.
 *
 * Prints one summary line on stdout; exits 0 when every thread create,
 * join, fork, spawn and child status went as expected, 1 otherwise.
 */
#include "tracee.h"

#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <sys/wait.h>

extern char **environ;

static atomic_ulong threads_run, forks, spawns, failures;

static void
failure(const char *what)
{
	fprintf(stderr, "churn: %s: %s\n", what, strerror(errno));
	atomic_fetch_add(&failures, 1);
}

static TRACEE_NOINLINE unsigned long
churn_spin(unsigned long iters)
{
	volatile unsigned long n = 0;
	unsigned long i;

	for (i = 0; i < iters; i++)
		n++;
	return n;
}

static char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

/* Waits for pid (5 s at most) and checks it exited with status want. */
static void
reap(pid_t pid, int want, const char *what)
{
	double give_up = tracee_now() + 5;
	int st;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			failure(what);
			return;
		}
		if (tracee_now() > give_up) {
			fprintf(stderr,
				"churn: %s %d did not exit in 5 s (state %c)\n",
				what, (int)pid, proc_state(pid));
			atomic_fetch_add(&failures, 1);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return;
		}
		tracee_sleep(0.0002);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != want) {
		fprintf(stderr, "churn: %s %d: status 0x%x, want exit %d\n",
			what, (int)pid, st, want);
		atomic_fetch_add(&failures, 1);
	}
}

static void *
child_thread(void *arg)
{
	(void)arg;
	return (void *)churn_spin(10000);
}

static TRACEE_NOINLINE void
fork_child(void)
{
	pthread_t th;
	pid_t pid = fork();

	if (pid < 0) {
		failure("fork");
		return;
	}
	if (pid == 0) {
		/* The child runs a thread of its own before exiting. */
		if (pthread_create(&th, NULL, child_thread, NULL) != 0 ||
		    pthread_join(th, NULL) != 0)
			_exit(98);
		_exit(7);
	}
	atomic_fetch_add(&forks, 1);
	reap(pid, 7, "forked child");
}

static TRACEE_NOINLINE void
spawn_child(void)
{
	char arg0[] = "churn", arg1[] = "--child";
	char *argv[] = {arg0, arg1, NULL};
	pid_t pid;

	errno = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
	if (errno) {
		failure("posix_spawn");
		return;
	}
	atomic_fetch_add(&spawns, 1);
	reap(pid, 0, "spawned child");
}

static void *
churn_thread(void *arg)
{
	churn_spin(20000);
	if (arg)
		fork_child();
	atomic_fetch_add(&threads_run, 1);
	return NULL;
}

static TRACEE_NOINLINE void
churn_round(unsigned long round)
{
	pthread_t th[3];
	int i, n = 0;

	for (i = 0; i < 3; i++) {
		void *arg = (i == 0 && round % 4 == 0) ? (void *)1 : NULL;

		errno = pthread_create(&th[n], NULL, churn_thread, arg);
		if (errno)
			failure("pthread_create");
		else
			n++;
	}
	for (i = 0; i < n; i++) {
		errno = pthread_join(th[i], NULL);
		if (errno)
			failure("pthread_join");
	}
	fork_child();
	if (round % 4 == 1)
		spawn_child();
}

int
main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL;
	unsigned long rounds = 0;
	double seconds, deadline;
	char text[64];
	int c;

	if (argc == 2 && strcmp(argv[1], "--child") == 0)
		return 0;
	while ((c = getopt(argc, argv, "+r:g:")) != -1) {
		switch (c) {
		case 'r':
			ready = optarg;
			break;
		case 'g':
			go = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-r READY] [-g GO] SECONDS\n",
				argv[0]);
			return 2;
		}
	}
	seconds = tracee_seconds(argv[optind]);
	if (seconds < 0)
		seconds = 3;

	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	tracee_ready(ready, text);
	tracee_go_wait(go);

	deadline = tracee_deadline(seconds);
	while (tracee_now() < deadline)
		churn_round(rounds++);

	printf(
	    "churn: rounds %lu threads %lu forks %lu spawns %lu failures %lu\n",
	    rounds, (unsigned long)threads_run, (unsigned long)forks,
	    (unsigned long)spawns, (unsigned long)failures);
	return failures || rounds == 0 ? 1 : 0;
}
