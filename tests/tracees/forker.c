// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The forking tracee: forks N children (default 200), up to 16 alive at a
 * time, each spinning briefly then exiting with status i % 64; then
 * spins until SECONDS after the go file and exits.
 *
 *   forker [-r READY] [-g GO] [-n N] SECONDS
 *
 * Every child is waited for with a 5 s limit: one that does not exit in
 * time (left stopped by a tracer) is reported with its state and killed.
 * Exits 0 when every fork succeeded and every child exited with its own
 * status, 1 otherwise; prints one summary line on stdout.
 */
#include "tracee.h"

#include <signal.h>
#include <sys/wait.h>

#define MAX_ALIVE 16

static unsigned long failures;

static TRACEE_NOINLINE unsigned long
forker_spin(unsigned long iters)
{
	volatile unsigned long n = 0;

	for (unsigned long i = 0; i < iters; i++)
		n++;
	return n;
}

static char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	size_t len;
	FILE *f;

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

/* Waits for child pid (5 s at most); it must exit with status want. */
static void
reap(pid_t pid, int want)
{
	double give_up = tracee_now() + 5;
	pid_t r;
	int st;

	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "forker: waitpid %d: %s\n", (int)pid,
				strerror(errno));
			failures++;
			return;
		}
		if (tracee_now() > give_up) {
			fprintf(stderr,
				"forker: child %d did not exit in 5 s (state %c)\n",
				(int)pid, proc_state(pid));
			failures++;
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return;
		}
		tracee_sleep(0.0002);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != want) {
		fprintf(stderr, "forker: child %d: status 0x%x, want exit %d\n",
			(int)pid, st, want);
		failures++;
	}
}

static TRACEE_NOINLINE void
fork_all(int n)
{
	pid_t alive[MAX_ALIVE];
	int want[MAX_ALIVE];
	int nalive = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid;

		if (nalive == MAX_ALIVE) {
			reap(alive[0], want[0]);
			memmove(alive, alive + 1, --nalive * sizeof(*alive));
			memmove(want, want + 1, nalive * sizeof(*want));
		}
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "forker: fork: %s\n", strerror(errno));
			failures++;
			continue;
		}
		if (pid == 0) {
			forker_spin(200000);
			_exit(i % 64);
		}
		alive[nalive] = pid;
		want[nalive++] = i % 64;
	}
	for (int i = 0; i < nalive; i++)
		reap(alive[i], want[i]);
}

int
main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL;
	double deadline;
	int n = 200, c;
	char text[64];

	while ((c = getopt(argc, argv, "+r:g:n:")) != -1) {
		switch (c) {
		case 'r':
			ready = optarg;
			break;
		case 'g':
			go = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-r READY] [-g GO] [-n N] SECONDS\n",
				argv[0]);
			return 2;
		}
	}
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	tracee_ready(ready, text);
	tracee_go_wait(go);
	deadline = tracee_deadline(tracee_seconds(argv[optind]));

	fork_all(n);
	while (deadline < 0 || tracee_now() < deadline)
		forker_spin(100000);
	printf("forker: forked %d children, %lu failures\n", n, failures);
	return failures ? 1 : 0;
}
