// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The signal tracee: checks that a profiler stopping the process over and
 * over neither loses, duplicates nor alters signals.
 *
 *   signals [-r READY] [-g GO] SECONDS
 *
 * Handlers (SA_SIGINFO | SA_RESTART) are installed for SIGUSR1 and
 * SIGRTMIN..SIGRTMIN+7. A sender thread sends them one at a time, in turn,
 * alternately process-directed (sigqueue) and thread-directed
 * (pthread_sigqueue to a spinning thread), each carrying its sequence
 * number, and waits for the handler to acknowledge before sending the
 * next: so standard signals cannot merge and handled must equal sent. The
 * handler checks signal number, si_code (SI_QUEUE) and si_value.
 *
 * Meanwhile a forker thread forks children that exit 0 at once; a SIGCHLD
 * handler reaps them (waitpid WNOHANG loop, so merged SIGCHLDs are fine).
 * At the end every child must have been reaped by the handler.
 *
 * The main thread and one more thread spin on the CPU (spin_signals) so
 * the profiler has something to sample. Prints one summary line on stdout;
 * exits 0 when everything matched, 1 otherwise.
 */
#include "tracee.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>

#define NSIGS 9 /* SIGUSR1 + 8 real-time signals */

static int sigs[NSIGS];
static atomic_int cur_sig, cur_seq;
static atomic_ulong handled, per_sig[NSIGS], bad, late;
static atomic_ulong forks, reaped, bad_children;
static atomic_int done;
static pthread_t spinner;
static double deadline;

/* The first mismatch seen by the handler, for the report. */
static volatile int bad_sig, bad_code, bad_value, bad_want_sig, bad_want_seq;

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
	int i, want_sig = atomic_load(&cur_sig),
	       want_seq = atomic_load(&cur_seq);

	(void)uc;
	if (sig != want_sig || si->si_code != SI_QUEUE ||
	    si->si_value.sival_int != want_seq) {
		if (atomic_fetch_add(&bad, 1) == 0) {
			bad_sig = sig;
			bad_code = si->si_code;
			bad_value = si->si_value.sival_int;
			bad_want_sig = want_sig;
			bad_want_seq = want_seq;
		}
	}
	for (i = 0; i < NSIGS; i++)
		if (sigs[i] == sig)
			atomic_fetch_add(&per_sig[i], 1);
	atomic_fetch_add(&handled, 1);
}

static void
on_sigchld(int sig)
{
	int saved = errno, st;

	(void)sig;
	while (waitpid(-1, &st, WNOHANG) > 0) {
		atomic_fetch_add(&reaped, 1);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			atomic_fetch_add(&bad_children, 1);
	}
	errno = saved;
}

/* Spins until done is set or, when until >= 0, until that time. */
static TRACEE_NOINLINE unsigned long
spin_signals(double until)
{
	volatile unsigned long n = 0;
	unsigned long i;

	while (!atomic_load(&done)) {
		for (i = 0; i < 100000; i++)
			n++;
		if (until >= 0 && tracee_now() >= until)
			break;
	}
	return n;
}

static void
block_test_signals(void)
{
	sigset_t set;
	int i;

	sigemptyset(&set);
	for (i = 0; i < NSIGS; i++)
		sigaddset(&set, sigs[i]);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *
spinner_main(void *arg)
{
	(void)arg;
	return (void *)spin_signals(-1);
}

/* Waits until the handler has run n times; false after timeout seconds. */
static bool
wait_handled(unsigned long n, double timeout)
{
	double give_up = tracee_now() + timeout;

	while (atomic_load(&handled) < n) {
		if (tracee_now() > give_up)
			return false;
		tracee_sleep(0.00002);
	}
	return true;
}

static unsigned long sent;

static void *
sender_main(void *arg)
{
	union sigval val;
	int seq, sig, rc;

	(void)arg;
	block_test_signals();
	for (seq = 0; tracee_now() < deadline; seq++) {
		sig = sigs[seq % NSIGS];
		atomic_store(&cur_sig, sig);
		atomic_store(&cur_seq, seq);
		val.sival_int = seq;
		if (seq % 2 == 0)
			rc = sigqueue(getpid(), sig, val);
		else
			rc = pthread_sigqueue(spinner, sig, val);
		if (rc != 0)
			tracee_die("sigqueue %d", sig);
		sent++;
		if (wait_handled(sent, 2))
			continue;
		/* Not handled within 2 s: count it, give it 5 s more. */
		atomic_fetch_add(&late, 1);
		fprintf(stderr,
			"signals: signal %d (seq %d) not handled in 2 s\n", sig,
			seq);
		if (!wait_handled(sent, 5)) {
			fprintf(stderr, "signals: signal %d (seq %d) lost\n",
				sig, seq);
			break;
		}
	}
	return NULL;
}

static void *
forker_main(void *arg)
{
	pid_t pid;

	(void)arg;
	block_test_signals();
	while (tracee_now() < deadline) {
		pid = fork();
		if (pid < 0)
			tracee_die("fork");
		if (pid == 0)
			_exit(0);
		atomic_fetch_add(&forks, 1);
		tracee_sleep(0.002);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL;
	pthread_t sender, forker;
	struct sigaction sa;
	double seconds, give_up;
	char text[64];
	int c, i, st, ok;
	pid_t left;

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

	sigs[0] = SIGUSR1;
	for (i = 1; i < NSIGS; i++)
		sigs[i] = SIGRTMIN + i - 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSIGS; i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			tracee_die("sigaction %d", sigs[i]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		tracee_die("sigaction SIGCHLD");

	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	tracee_ready(ready, text);
	tracee_go_wait(go);

	deadline = tracee_deadline(seconds);
	if ((errno = pthread_create(&spinner, NULL, spinner_main, NULL)))
		tracee_die("pthread_create");
	if ((errno = pthread_create(&sender, NULL, sender_main, NULL)))
		tracee_die("pthread_create");
	if ((errno = pthread_create(&forker, NULL, forker_main, NULL)))
		tracee_die("pthread_create");
	spin_signals(deadline);
	pthread_join(sender, NULL);
	pthread_join(forker, NULL);

	/* Every child's SIGCHLD must reach the handler: wait up to 5 s. */
	give_up = tracee_now() + 5;
	while (atomic_load(&reaped) < atomic_load(&forks) &&
	       tracee_now() < give_up)
		tracee_sleep(0.001);
	atomic_store(&done, 1);
	pthread_join(spinner, NULL);
	block_test_signals();
	left = 0;
	while (waitpid(-1, &st, WNOHANG) > 0)
		left++;

	printf("signals: sent %lu handled %lu late %lu bad %lu; "
	       "forks %lu reaped %lu unreaped %d bad-exit %lu\n",
	       sent, (unsigned long)handled, (unsigned long)late,
	       (unsigned long)bad, (unsigned long)forks, (unsigned long)reaped,
	       (int)left, (unsigned long)bad_children);
	printf("signals: per signal:");
	for (i = 0; i < NSIGS; i++)
		printf(" %d:%lu", sigs[i], (unsigned long)per_sig[i]);
	printf("\n");
	if (bad)
		printf(
		    "signals: first mismatch: got signal %d code %d value %d, "
		    "want signal %d code %d value %d\n",
		    bad_sig, bad_code, bad_value, bad_want_sig, SI_QUEUE,
		    bad_want_seq);
	ok = sent > 0 && handled == sent && !late && !bad && forks > 0 &&
	     reaped == forks && !left && !bad_children;
	return ok ? 0 : 1;
}
