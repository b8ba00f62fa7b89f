// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The syscall tracee: one thread blocked, over and over, in each of the
 * system calls a Ruby process typically sleeps in, so a test can check
 * that a profiler stopping the threads never makes one fail with EINTR
 * nor return early.
 *
 *   syscalls [-r READY] [-g GO] SECONDS
 *
 * Restartable after a ptrace stop, and (with SA_RESTART) after a handler:
 *   read     a pipe a ticker thread writes a numbered byte to every 20 ms
 *   accept   a Unix socket the ticker connects to every 50 ms
 *   futex    raw FUTEX_WAIT, the ticker bumps the word and wakes every 20 ms
 *   wait4    a child that sleeps 30 ms
 * These four also get SIGUSR2 (handler installed with SA_RESTART) from the
 * ticker every 100 ms, one thread at a time and only once the thread's
 * previous one was handled (two pending SIGUSR2 would merge into one):
 * the calls must restart, and every SIGUSR2 must reach the handler.
 *
 * Restarted after a ptrace stop but never after a handler (SIGUSR2 is
 * blocked in these threads); each must also wait its full timeout:
 *   nanosleep 20 ms, select 50 ms, poll 50 ms (on a silent pipe)
 *
 * Not restartable at all (man 7 signal: EINTR after a stop even without a
 * handler, so a profiler must not stop them in the call):
 *   epoll_wait  50 ms timeout; an eventfd the ticker signals every 100 ms
 *   sigtimedwait  50 ms on a signal nobody sends
 *   io_uring_enter  GETEVENTS, min_complete 1, for a 50 ms IORING_OP_TIMEOUT
 *                 submitted just before (raw syscalls, no liburing)
 * doc/syscalls.md lists them all with the kernel's reasons. A call this
 * kernel refuses (io_uring_disabled) prints "unavailable" and is no
 * failure here: the test script decides.
 *
 * Every 10 ms one of the threads also gets a signal whose default
 * action is to be ignored (SIGCHLD, SIGWINCH, SIGURG in turn). Untraced
 * the kernel drops those at once; traced it queues them, so a sleeping
 * call wakes up and must not come back with EINTR either.
 *
 * Prints one line per call on stdout; exits 0 when no call saw EINTR, an
 * unexpected error or an early return, every call returned at least once
 * and handled SIGUSR2 == sent; 1 otherwise.
 */
#include "tracee.h"

#include <linux/futex.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

enum {
	C_READ,
	C_ACCEPT,
	C_FUTEX,
	C_WAIT4,
	C_NANOSLEEP,
	C_SELECT,
	C_POLL,
	C_EPOLL,
	C_SIGTIMEDWAIT,
	C_IO_URING,
	NCALLS
};

/* The first NRESTART calls get SIGUSR2 (see above). */
#define NRESTART 4

struct call {
	const char *name;
	void *(*run)(void *);
	char unavailable[96]; /* why this kernel cannot run it, or "" */
	pthread_t th;
	atomic_ulong calls, eintr, errors, early, bad;
	atomic_int last_errno;
	atomic_ulong usr2_sent, usr2_handled;
};

static struct call calls[NCALLS];
static atomic_int stop, running;
static atomic_ulong usr2_skipped;
static _Thread_local struct call *self;

static int data_pipe[2], quiet_pipe[2], listen_fd, event_fd, epoll_fd;
static atomic_int futex_word;
static struct sockaddr_un sun;
static socklen_t sun_len;
static int quiet_sig; /* the signal sigtimedwait waits for: never sent */

/* One io_uring, set up by hand (no liburing): the rings and the SQEs
 * mapped from its fd, used by the io_uring_enter thread alone. */
static struct {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
} ring = {.fd = -1};

static void
on_usr2(int sig)
{
	(void)sig;
	if (self)
		atomic_fetch_add(&self->usr2_handled, 1);
}

/* Counts one return of call c: r < 0 with errno, elapsed vs. its timeout. */
static void
count(struct call *c, long r, int err, double elapsed, double timeout)
{
	atomic_fetch_add(&c->calls, 1);
	if (r < 0 && err == EINTR) {
		atomic_fetch_add(&c->eintr, 1);
	} else if (r < 0 && !(c == &calls[C_FUTEX] && err == EAGAIN) &&
		   !(c == &calls[C_SIGTIMEDWAIT] && err == EAGAIN)) {
		atomic_fetch_add(&c->errors, 1);
		atomic_store(&c->last_errno, err);
	} else if (timeout > 0 && elapsed < timeout - 0.001) {
		atomic_fetch_add(&c->early, 1);
	}
}

static void
block_usr2(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/*
 * The threads in non-restartable calls also block SIGCHLD, which they
 * ignore anyway. The wait4 child's SIGCHLD is sent to the process; traced,
 * the kernel queues it and may pick one of these threads to wake, and if
 * another thread dequeues it first, the woken thread returns EINTR with no
 * signal-delivery stop for rbflame to repair. That race comes with being
 * traced at all (README); the thread-directed ignored signals below still
 * test the repair.
 */
static void
block_usr2_and_chld(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void
thread_start(struct call *c)
{
	self = c;
	atomic_fetch_add(&running, 1);
}

static TRACEE_NOINLINE void *
blocked_read(void *arg)
{
	struct call *c = arg;
	unsigned char want = 0, b;
	ssize_t r;

	thread_start(c);
	for (;;) {
		r = read(data_pipe[0], &b, 1);
		count(c, r, errno, 0, 0);
		if (r == 1 && b != want++) {
			atomic_fetch_add(&c->bad, 1);
			want = b + 1;
		}
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_accept(void *arg)
{
	struct call *c = arg;
	int fd;

	thread_start(c);
	for (;;) {
		fd = accept(listen_fd, NULL, NULL);
		count(c, fd, errno, 0, 0);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_futex(void *arg)
{
	struct call *c = arg;
	long r;
	int v;

	thread_start(c);
	for (;;) {
		v = atomic_load(&futex_word);
		r = syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, v, NULL,
			    NULL, 0);
		count(c, r, errno, 0, 0);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_wait4(void *arg)
{
	struct call *c = arg;
	pid_t pid, r;
	int st;

	thread_start(c);
	for (;;) {
		pid = fork();
		if (pid < 0)
			tracee_die("fork");
		if (pid == 0) {
			tracee_sleep(0.03);
			_exit(0);
		}
		for (;;) {
			r = waitpid(pid, &st, 0);
			count(c, r, errno, 0, 0);
			if (r == pid || (r < 0 && errno != EINTR))
				break;
		}
		if (r == pid && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
			atomic_fetch_add(&c->bad, 1);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_nanosleep(void *arg)
{
	struct call *c = arg;
	struct timespec ts;
	double t0;
	int r;

	block_usr2();
	thread_start(c);
	for (;;) {
		ts.tv_sec = 0;
		ts.tv_nsec = 20 * 1000 * 1000;
		t0 = tracee_now();
		r = nanosleep(&ts, NULL);
		count(c, r, errno, tracee_now() - t0, 0.02);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_select(void *arg)
{
	struct call *c = arg;
	struct timeval tv;
	fd_set fds;
	double t0;
	int r;

	block_usr2();
	thread_start(c);
	for (;;) {
		FD_ZERO(&fds);
		FD_SET(quiet_pipe[0], &fds);
		tv.tv_sec = 0;
		tv.tv_usec = 50 * 1000;
		t0 = tracee_now();
		r = select(quiet_pipe[0] + 1, &fds, NULL, NULL, &tv);
		count(c, r, errno, tracee_now() - t0, 0.05);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_poll(void *arg)
{
	struct call *c = arg;
	struct pollfd pfd;
	double t0;
	int r;

	block_usr2();
	thread_start(c);
	for (;;) {
		pfd.fd = quiet_pipe[0];
		pfd.events = POLLIN;
		t0 = tracee_now();
		r = poll(&pfd, 1, 50);
		count(c, r, errno, tracee_now() - t0, 0.05);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_epoll(void *arg)
{
	struct call *c = arg;
	struct epoll_event ev;
	uint64_t v;
	double t0;
	int r;

	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		t0 = tracee_now();
		r = epoll_wait(epoll_fd, &ev, 1, 50);
		/* Only a timeout (r == 0) must have waited the full 50 ms. */
		count(c, r, errno, tracee_now() - t0, r == 0 ? 0.05 : 0);
		if (r == 1 && read(event_fd, &v, sizeof(v)) != sizeof(v))
			atomic_fetch_add(&c->bad, 1);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_sigtimedwait(void *arg)
{
	struct call *c = arg;
	struct timespec ts;
	sigset_t set;
	double t0;
	int r;

	block_usr2_and_chld();
	thread_start(c);
	sigemptyset(&set);
	sigaddset(&set, quiet_sig);
	for (;;) {
		ts.tv_sec = 0;
		ts.tv_nsec = 50 * 1000 * 1000;
		t0 = tracee_now();
		r = sigtimedwait(&set, NULL, &ts);
		count(c, r, errno, tracee_now() - t0, 0.05);
	}
	return NULL;
}

/* Queues a 50 ms IORING_OP_TIMEOUT tagged seq and submits it alone: a
 * call that submits returns the count even when its wait is cut short. */
static void
uring_submit_timeout(struct __kernel_timespec *ts, uint64_t seq)
{
	unsigned tail = *ring.sq_tail, i = tail & *ring.sq_mask;
	struct io_uring_sqe *sqe = &ring.sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_TIMEOUT;
	sqe->fd = -1;
	sqe->addr = (uintptr_t)ts;
	sqe->len = 1;
	sqe->user_data = seq;
	ring.sq_array[i] = i;
	__atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, ring.fd, 1, 0, 0, NULL, 0) != 1)
		tracee_die("io_uring_enter submit");
}

/* Takes one completion off the ring: false when there is none. */
static bool
uring_reap(int32_t *res, uint64_t *data)
{
	unsigned head = *ring.cq_head;
	struct io_uring_cqe *cqe;

	if (head == __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE))
		return false;
	cqe = &ring.cqes[head & *ring.cq_mask];
	*res = cqe->res;
	*data = cqe->user_data;
	__atomic_store_n(ring.cq_head, head + 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * Waits for each timeout's completion in io_uring_enter(GETEVENTS,
 * min_complete 1), the way an event loop on io_uring sleeps: a return
 * with no completion is early, a completion before 50 ms too.
 */
static TRACEE_NOINLINE void *
blocked_io_uring(void *arg)
{
	struct call *c = arg;
	struct __kernel_timespec ts;
	uint64_t seq = 0, data;
	int32_t res;
	double t0;
	long r;
	int err;
	bool got;

	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		ts.tv_sec = 0;
		ts.tv_nsec = 50 * 1000 * 1000;
		t0 = tracee_now();
		uring_submit_timeout(&ts, ++seq);
		do {
			r = syscall(SYS_io_uring_enter, ring.fd, 0, 1,
				    IORING_ENTER_GETEVENTS, NULL, 0);
			err = errno;
			got = uring_reap(&res, &data);
			if (r >= 0 && !got) {
				atomic_fetch_add(&c->calls, 1);
				atomic_fetch_add(&c->early, 1);
				continue;
			}
			count(c, r, err, tracee_now() - t0, got ? 0.05 : 0);
		} while (!got);
		if (data != seq || res != -ETIME)
			atomic_fetch_add(&c->bad, 1);
	}
	return NULL;
}

static void
ticker_connect(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		tracee_die("socket");
	if (connect(fd, (struct sockaddr *)&sun, sun_len) < 0)
		tracee_die("connect");
	close(fd);
}

/* Signals whose default action is to be ignored (SIGCHLD stays pending
 * in the threads that block it). */
static const int ignored[] = { SIGCHLD, SIGWINCH, SIGURG };

static unsigned long
usr2_total(int handled)
{
	unsigned long n = 0;

	for (int i = 0; i < NRESTART; i++)
		n += atomic_load(handled ? &calls[i].usr2_handled
					 : &calls[i].usr2_sent);
	return n;
}

static void *
ticker(void *arg)
{
	unsigned long tick;
	unsigned char seq = 0;
	uint64_t one = 1;

	(void)arg;
	block_usr2();
	for (tick = 1; !atomic_load(&stop); tick++) {
		tracee_sleep(0.01);
		if (tick % 2 == 0) {
			if (write(data_pipe[1], &seq, 1) == 1)
				seq++;
			atomic_fetch_add(&futex_word, 1);
			syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1,
				NULL, NULL, 0);
		}
		if (tick % 5 == 0)
			ticker_connect();
		if (calls[tick % NCALLS].run)
			pthread_kill(calls[tick % NCALLS].th,
				     ignored[tick % (sizeof(ignored) /
						     sizeof(*ignored))]);
		if (tick % 10 == 0) {
			if (write(event_fd, &one, sizeof(one)) != sizeof(one))
				tracee_die("eventfd write");
			struct call *c = &calls[(tick / 10) % NRESTART];

			if (atomic_load(&c->usr2_handled) <
			    atomic_load(&c->usr2_sent)) {
				atomic_fetch_add(&usr2_skipped, 1);
			} else if (pthread_kill(c->th, SIGUSR2) == 0) {
				atomic_fetch_add(&c->usr2_sent, 1);
			}
		}
	}
	return NULL;
}

/* The io_uring of blocked_io_uring(); false (with why) when the kernel
 * has none or refuses it (kernel.io_uring_disabled, a seccomp filter). */
static bool
uring_setup(char *why, size_t len)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	ring.fd = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (ring.fd < 0) {
		snprintf(why, len, "io_uring_setup: %s", strerror(errno));
		return false;
	}
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (cq_len > sq_len)
			sq_len = cq_len;
		cq_len = sq_len;
	}
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring.fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		tracee_die("mmap io_uring SQ ring");
	cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, ring.fd,
			  IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			tracee_die("mmap io_uring CQ ring");
	}
	ring.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 ring.fd, IORING_OFF_SQES);
	if (ring.sqes == MAP_FAILED)
		tracee_die("mmap io_uring SQEs");
	ring.sq_tail = (unsigned *)(sq + p.sq_off.tail);
	ring.sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	ring.sq_array = (unsigned *)(sq + p.sq_off.array);
	ring.cq_head = (unsigned *)(cq + p.cq_off.head);
	ring.cq_tail = (unsigned *)(cq + p.cq_off.tail);
	ring.cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	ring.cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return true;
}

static void
setup(void)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct sigaction sa;
	sigset_t set;

	if (pipe(data_pipe) < 0 || pipe(quiet_pipe) < 0)
		tracee_die("pipe");
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		tracee_die("socket");
	/* Abstract name: nothing to clean up, works inside a chroot. */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
		 "rbflame-e2e-syscalls-%d", (int)getpid());
	sun_len = offsetof(struct sockaddr_un, sun_path) + 1 +
		  strlen(sun.sun_path + 1);
	if (bind(listen_fd, (struct sockaddr *)&sun, sun_len) < 0 ||
	    listen(listen_fd, 64) < 0)
		tracee_die("bind/listen");
	event_fd = eventfd(0, EFD_CLOEXEC);
	epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (event_fd < 0 || epoll_fd < 0)
		tracee_die("eventfd/epoll_create1");
	ev.data.fd = event_fd;
	if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, event_fd, &ev) < 0)
		tracee_die("epoll_ctl");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL) < 0)
		tracee_die("sigaction");
	/* Blocked everywhere (threads inherit it), waited for, never sent. */
	quiet_sig = SIGRTMIN + 1;
	sigemptyset(&set);
	sigaddset(&set, quiet_sig);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	calls[C_READ] = (struct call){.name = "read", .run = blocked_read};
	calls[C_ACCEPT] =
	    (struct call){.name = "accept", .run = blocked_accept};
	calls[C_FUTEX] = (struct call){.name = "futex", .run = blocked_futex};
	calls[C_WAIT4] = (struct call){.name = "wait4", .run = blocked_wait4};
	calls[C_NANOSLEEP] =
	    (struct call){.name = "nanosleep", .run = blocked_nanosleep};
	calls[C_SELECT] =
	    (struct call){.name = "select", .run = blocked_select};
	calls[C_POLL] = (struct call){.name = "poll", .run = blocked_poll};
	calls[C_EPOLL] =
	    (struct call){.name = "epoll_wait", .run = blocked_epoll};
	calls[C_SIGTIMEDWAIT] =
	    (struct call){.name = "sigtimedwait", .run = blocked_sigtimedwait};
	calls[C_IO_URING] =
	    (struct call){.name = "io_uring_enter", .run = blocked_io_uring};
	if (!uring_setup(calls[C_IO_URING].unavailable,
			 sizeof(calls[C_IO_URING].unavailable)))
		calls[C_IO_URING].run = NULL;
}

int
main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL;
	double seconds, deadline, give_up;
	unsigned long sent, handled;
	pthread_t tick_th;
	char text[64];
	int c, i, nthreads = 0, fail = 0;

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

	setup();
	for (i = 0; i < NCALLS; i++) {
		if (!calls[i].run)
			continue;
		if ((errno = pthread_create(&calls[i].th, NULL, calls[i].run,
					    &calls[i])))
			tracee_die("pthread_create");
		nthreads++;
	}
	while (atomic_load(&running) < nthreads)
		tracee_sleep(0.001);
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	tracee_ready(ready, text);
	tracee_go_wait(go);

	/* The counts start now: the phase the profiler watches. */
	for (i = 0; i < NCALLS; i++) {
		atomic_store(&calls[i].calls, 0);
		atomic_store(&calls[i].eintr, 0);
		atomic_store(&calls[i].errors, 0);
		atomic_store(&calls[i].early, 0);
		atomic_store(&calls[i].bad, 0);
	}
	if ((errno = pthread_create(&tick_th, NULL, ticker, NULL)))
		tracee_die("pthread_create");
	deadline = tracee_deadline(seconds);
	while (tracee_now() < deadline)
		tracee_sleep(0.05);
	/* Only the ticker stops: a call thread that exited could leave a
	 * SIGUSR2 sent to it unhandled. They stay in their calls until exit. */
	atomic_store(&stop, 1);
	pthread_join(tick_th, NULL);

	/* Every SIGUSR2 sent must have reached the handler: 2 s grace. */
	give_up = tracee_now() + 2;
	while (usr2_total(1) < usr2_total(0) &&
	       tracee_now() < give_up)
		tracee_sleep(0.001);

	for (i = 0; i < NCALLS; i++) {
		struct call *cl = &calls[i];
		int bad = cl->eintr || cl->errors || cl->early || cl->bad ||
			  !cl->calls;

		if (!cl->run) {
			/* Not a failure here: the test script decides. */
			printf("syscalls: %-14s unavailable: %s\n", cl->name,
			       cl->unavailable);
			continue;
		}
		printf("syscalls: %-14s calls %lu eintr %lu errors %lu early "
		       "%lu bad %lu%s%s\n",
		       cl->name, (unsigned long)cl->calls,
		       (unsigned long)cl->eintr, (unsigned long)cl->errors,
		       (unsigned long)cl->early, (unsigned long)cl->bad,
		       cl->errors ? " last error: " : "",
		       cl->errors ? strerror(cl->last_errno) : "");
		fail |= bad;
	}
	sent = usr2_total(0);
	handled = usr2_total(1);
	printf("syscalls: SIGUSR2 sent %lu handled %lu (%lu not sent: the "
	       "previous one still pending)\n",
	       sent, handled, (unsigned long)atomic_load(&usr2_skipped));
	fail |= sent != handled || !sent;
	printf("syscalls: %s\n", fail ? "FAILED" : "ok");
	fflush(stdout);
	/* The blocked threads never return: exit_group ends them. */
	exit(fail);
}
