// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The multi-threaded tracee: four worker threads, each spinning in its own
 * pair of functions (worker_X -> spin_X), most with a name of their own:
 *
 *   worker_a  "worker-a"
 *   worker_b  "worker-b"
 *   worker_c  (unnamed: keeps the process comm, "threads")
 *   worker_d  "q\"t;x"  (a quote and a semicolon, to test escaping)
 *
 *   threads [-r READY] [SECONDS]
 *
 * Once every worker runs, READY gets "pid PID" then one "TID FUNCTION"
 * line per worker. The main thread sleeps until the deadline (or forever)
 * and exits 0.
 */
#include "tracee.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#define NWORKERS 4

struct worker {
	const char *func;
	const char *name; /* NULL: leave the inherited comm */
	void *(*start)(void *);
	pid_t tid;
};

static double deadline = -1;
static atomic_int started;

/*
 * Each spin_X is its own function, the leaf of its thread's stack. The
 * bodies differ (the step K) so identical code folding (-fipa-icf, on at
 * -O2, which a user's CFLAGS may bring) cannot merge them into one symbol.
 */
#define DEFINE_SPIN(X, K)                                                      \
	static TRACEE_NOINLINE unsigned long spin_##X(void)                    \
	{                                                                      \
		volatile unsigned long n = 0;                                  \
		unsigned long i;                                               \
                                                                               \
		for (;;) {                                                     \
			for (i = 0; i < 1000000; i++)                          \
				n += K;                                        \
			if (deadline >= 0 && tracee_now() >= deadline)         \
				break;                                         \
		}                                                              \
		return n;                                                      \
	}
DEFINE_SPIN(a, 1)
DEFINE_SPIN(b, 2)
DEFINE_SPIN(c, 3)
DEFINE_SPIN(d, 5)

static struct worker workers[NWORKERS];

static void
worker_setup(struct worker *w)
{
	w->tid = (pid_t)syscall(SYS_gettid);
	if (w->name && pthread_setname_np(pthread_self(), w->name) != 0)
		tracee_die("pthread_setname_np %s", w->name);
	atomic_fetch_add(&started, 1);
}

static TRACEE_NOINLINE void *
worker_a(void *arg)
{
	worker_setup(arg);
	return (void *)(spin_a() + 1);
}

static TRACEE_NOINLINE void *
worker_b(void *arg)
{
	worker_setup(arg);
	return (void *)(spin_b() + 1);
}

static TRACEE_NOINLINE void *
worker_c(void *arg)
{
	worker_setup(arg);
	return (void *)(spin_c() + 1);
}

static TRACEE_NOINLINE void *
worker_d(void *arg)
{
	worker_setup(arg);
	return (void *)(spin_d() + 1);
}

int
main(int argc, char **argv)
{
	const char *ready = NULL;
	char text[1024];
	pthread_t th[NWORKERS];
	double seconds;
	size_t len;
	int c, i;

	while ((c = getopt(argc, argv, "+r:")) != -1) {
		switch (c) {
		case 'r':
			ready = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-r READY] [SECONDS]\n",
				argv[0]);
			return 2;
		}
	}
	seconds = tracee_seconds(argv[optind]);

	deadline = tracee_deadline(seconds);

	workers[0] = (struct worker){"worker_a", "worker-a", worker_a, 0};
	workers[1] = (struct worker){"worker_b", "worker-b", worker_b, 0};
	workers[2] = (struct worker){"worker_c", NULL, worker_c, 0};
	workers[3] = (struct worker){"worker_d", "q\"t;x", worker_d, 0};
	for (i = 0; i < NWORKERS; i++) {
		errno =
		    pthread_create(&th[i], NULL, workers[i].start, &workers[i]);
		if (errno)
			tracee_die("pthread_create");
	}
	while (atomic_load(&started) < NWORKERS)
		tracee_sleep(0.001);

	len = snprintf(text, sizeof(text), "pid %d\n", (int)getpid());
	for (i = 0; i < NWORKERS; i++)
		len += snprintf(text + len, sizeof(text) - len, "%d %s\n",
				(int)workers[i].tid, workers[i].func);
	tracee_ready(ready, text);

	for (i = 0; i < NWORKERS; i++)
		pthread_join(th[i], NULL);
	return 0;
}
