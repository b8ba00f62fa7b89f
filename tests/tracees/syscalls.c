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
 *   msgrcv   a SysV queue the ticker sends a numbered message to every 20 ms
 *   msgsnd   a full queue the ticker takes one message from every 20 ms
 *
 * Ended with EINTR by a stop (or restarted from the start of their own
 * timeout), so a profiler must not stop them in the call: the list of
 * proc_syscall_nonrestartable(), doc/syscalls.md. Each must wait its
 * full timeout (socket ones up to a tick less: they count in jiffies):
 *   epoll_wait   50 ms; an eventfd the ticker signals every 100 ms
 *   epoll_pwait, epoll_pwait2  50 ms on a silent pipe
 *   sigtimedwait 50 ms on a signal nobody sends
 *   semop        a SysV semaphore the ticker posts every 20 ms
 *   semtimedop   50 ms on a semaphore nobody posts
 *   io_getevents, io_pgetevents  50 ms on a Linux AIO context left empty
 *   io_uring_enter  GETEVENTS, min_complete 1, for a 50 ms IORING_OP_TIMEOUT
 *                submitted just before (raw syscalls, no liburing)
 *   recvfrom, recvmsg, recvmmsg, accept4  SO_RCVTIMEO 50 ms, nobody sends
 *                or connects
 *   connect      SO_SNDTIMEO 50 ms, to a listener with its backlog full
 *   sendto, sendmsg, sendmmsg  SO_SNDTIMEO 50 ms, the send buffer full
 *   read_socket, write_socket  read(2) and write(2) on sockets with
 *                SO_RCVTIMEO / SO_SNDTIMEO 50 ms: the fd decides, a pipe
 *                read (above) restarts, these end with EINTR at a stop
 * (accept, above, is on the list too; without a timeout it restarts.)
 * A call this kernel lacks or refuses (io_uring_disabled, no AIO) prints
 * "unavailable" and is no failure here: the test script decides.
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

#include <fcntl.h>
#include <linux/aio_abi.h>
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
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
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
	C_MSGRCV,
	C_MSGSND,
	C_EPOLL,
	C_EPOLL_PWAIT,
	C_EPOLL_PWAIT2,
	C_SIGTIMEDWAIT,
	C_SEMOP,
	C_SEMTIMEDOP,
	C_IO_GETEVENTS,
	C_IO_PGETEVENTS,
	C_IO_URING,
	C_RECVFROM,
	C_RECVMSG,
	C_RECVMMSG,
	C_ACCEPT4,
	C_CONNECT,
	C_SENDTO,
	C_SENDMSG,
	C_SENDMMSG,
	C_READ_SOCKET,
	C_WRITE_SOCKET,
	NCALLS
};

/* The first NRESTART calls get SIGUSR2 (see above). */
#define NRESTART 4

struct call {
	const char *name;
	void *(*run)(void *);
	int ok_errno; /* a failure that is the call's normal result */
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
static int quiet_epoll; /* an epoll set over quiet_pipe: only timeouts */

/* SysV IPC, removed by a child when this process ends, however it ends:
 * semaphore 0 the ticker posts, 1 nobody posts; a queue the ticker sends
 * to, a full one it drains. */
static int sem_id = -1, msgq_in = -1, msgq_full = -1;
#define MSG_TEXT 32
struct msg {
	long type;
	unsigned char text[MSG_TEXT];
};

static aio_context_t aio_ctx; /* Linux AIO with nothing ever submitted */

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
	} else if (r < 0 && err != c->ok_errno) {
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
 * traced at all (doc/internals.md); the thread-directed ignored signals
 * below still test the repair.
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
blocked_epoll_wait(void *arg)
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
blocked_io_uring_enter(void *arg)
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

/* Socket timeouts, jiffies in the kernel: a call may come back up to a
 * tick (10 ms at HZ=100) short of them without being early. */
#define SOCK_TIMEOUT_US 50000
#define SOCK_TIMEOUT_MIN (SOCK_TIMEOUT_US / 1e6 - 0.01)

/* The jiffies' clock: CLOCK_MONOTONIC_COARSE moves with them, at the
 * ticks of the CPU that keeps time. */
static double
coarse_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * How long a socket call with a timeout waited, since t0 and c0
 * (tracee_now(), coarse_now()): the longer of the two clocks' counts.
 * Its timer runs on jiffies, which only the CPU that keeps time moves
 * on: while its vCPU is not running (the host's steal), they stand
 * still, and a timer armed then runs out that much early by
 * CLOCK_MONOTONIC, never by the coarse clock, which moves with them.
 * CI's soak once saw recvmsg's 50 ms come back under 39 ms on a loaded
 * 2-vCPU VM (rbflame's ticks at 14 Hz of the 1000 asked); no rbflame
 * path makes it early (a stop that cuts it is restarted with its whole
 * timeout: late). A call that really returns early does by both clocks.
 */
static double
sock_waited(double t0, double c0)
{
	double mono = tracee_now() - t0, coarse = coarse_now() - c0;

	return mono > coarse ? mono : coarse;
}

static TRACEE_NOINLINE void *
blocked_msgrcv(void *arg)
{
	struct call *c = arg;
	unsigned char want = 0;
	struct msg m;
	ssize_t r;

	block_usr2();
	thread_start(c);
	for (;;) {
		r = msgrcv(msgq_in, &m, MSG_TEXT, 1, 0);
		count(c, r, errno, 0, 0);
		if (r == MSG_TEXT && m.text[0] != want++) {
			atomic_fetch_add(&c->bad, 1);
			want = m.text[0] + 1;
		}
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_msgsnd(void *arg)
{
	struct call *c = arg;
	struct msg m = {.type = 1};
	int r;

	block_usr2();
	thread_start(c);
	for (;;) {
		r = msgsnd(msgq_full, &m, MSG_TEXT, 0);
		count(c, r, errno, 0, 0);
		if (r == 0)
			m.text[0]++;
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_epoll_pwait(void *arg)
{
	struct call *c = arg;
	struct epoll_event ev;
	sigset_t mask;
	double t0;
	int r;

	block_usr2_and_chld();
	thread_start(c);
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	for (;;) {
		t0 = tracee_now();
		r = epoll_pwait(quiet_epoll, &ev, 1, 50, &mask);
		count(c, r, errno, tracee_now() - t0, 0.05);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_epoll_pwait2(void *arg)
{
	struct call *c = arg;
	struct epoll_event ev;
	struct timespec ts;
	double t0;
	long r;

	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		ts.tv_sec = 0;
		ts.tv_nsec = 50 * 1000 * 1000;
		t0 = tracee_now();
		r = syscall(SYS_epoll_pwait2, quiet_epoll, &ev, 1, &ts, NULL, 0);
		count(c, r, errno, tracee_now() - t0, 0.05);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_semop(void *arg)
{
	struct call *c = arg;
	struct sembuf op = {.sem_num = 0, .sem_op = -1};
	int r;

	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		r = semop(sem_id, &op, 1);
		count(c, r, errno, 0, 0);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_semtimedop(void *arg)
{
	struct call *c = arg;
	struct sembuf op = {.sem_num = 1, .sem_op = -1};
	struct timespec ts;
	double t0;
	int r;

	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		ts.tv_sec = 0;
		ts.tv_nsec = 50 * 1000 * 1000;
		t0 = tracee_now();
		r = semtimedop(sem_id, &op, 1, &ts);
		count(c, r, errno, tracee_now() - t0, 0.05);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_io_getevents(void *arg)
{
	struct call *c = arg;
	struct io_event ev;
	struct timespec ts;
	double t0;
	long r;

	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		ts.tv_sec = 0;
		ts.tv_nsec = 50 * 1000 * 1000;
		t0 = tracee_now();
		r = syscall(SYS_io_getevents, aio_ctx, 1, 1, &ev, &ts);
		count(c, r, errno, tracee_now() - t0, 0.05);
	}
	return NULL;
}

static TRACEE_NOINLINE void *
blocked_io_pgetevents(void *arg)
{
	struct call *c = arg;
	struct io_event ev;
	struct timespec ts;
	double t0;
	long r;

	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		ts.tv_sec = 0;
		ts.tv_nsec = 50 * 1000 * 1000;
		t0 = tracee_now();
		r = syscall(SYS_io_pgetevents, aio_ctx, 1, 1, &ev, &ts, NULL);
		count(c, r, errno, tracee_now() - t0, 0.05);
	}
	return NULL;
}

/* A socket of a fresh pair nobody else holds, with SO_RCVTIMEO or
 * SO_SNDTIMEO (opt) set to SOCK_TIMEOUT_US. */
static int
timed_socket(int type, int opt)
{
	struct timeval tv = {.tv_usec = SOCK_TIMEOUT_US};
	int sv[2];

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0 ||
	    setsockopt(sv[0], SOL_SOCKET, opt, &tv, sizeof(tv)) < 0)
		tracee_die("socketpair/setsockopt");
	return sv[0];
}

/* The same, with its send buffer full: the peer never reads. */
static int
full_socket(void)
{
	static char chunk[4096];
	int fd = timed_socket(SOCK_STREAM, SO_SNDTIMEO);
	size_t len = sizeof(chunk);

	while (len > 0)
		if (send(fd, chunk, len, MSG_DONTWAIT) < 0)
			len /= 2;
	return fd;
}

/*
 * The socket calls, one thread each: a receive on a fresh pair with
 * SO_RCVTIMEO (stream for recvfrom and read, datagram for the message
 * calls), or a send into a full one with SO_SNDTIMEO; 50 ms, nobody
 * answers. The call is the only difference.
 */
static TRACEE_NOINLINE void *
blocked_socket(void *arg)
{
	struct call *c = arg;
	int which = (int)(c - calls);
	bool sending = which == C_SENDTO || which == C_SENDMSG ||
		       which == C_SENDMMSG || which == C_WRITE_SOCKET;
	char b = 'x';
	struct iovec iov = {.iov_base = &b, .iov_len = 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct mmsghdr mm = {.msg_hdr = {.msg_iov = &iov, .msg_iovlen = 1}};
	int fd;
	double t0, c0;
	long r;

	if (sending)
		fd = full_socket();
	else
		fd = timed_socket(which == C_RECVFROM || which == C_READ_SOCKET
					  ? SOCK_STREAM
					  : SOCK_DGRAM,
				  SO_RCVTIMEO);
	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		t0 = tracee_now();
		c0 = coarse_now();
		switch (which) {
		case C_RECVFROM:
			r = recvfrom(fd, &b, 1, 0, NULL, NULL);
			break;
		case C_RECVMSG:
			r = recvmsg(fd, &mh, 0);
			break;
		case C_RECVMMSG:
			r = recvmmsg(fd, &mm, 1, 0, NULL);
			break;
		case C_READ_SOCKET:
			r = read(fd, &b, 1);
			break;
		case C_SENDTO:
			r = sendto(fd, "x", 1, 0, NULL, 0);
			break;
		case C_SENDMSG:
			r = sendmsg(fd, &mh, 0);
			break;
		case C_SENDMMSG:
			r = sendmmsg(fd, &mm, 1, 0);
			break;
		default:
			r = write(fd, "x", 1);
			break;
		}
		count(c, r, errno, sock_waited(t0, c0), SOCK_TIMEOUT_MIN);
	}
	return NULL;
}

/* A listening Unix socket on an abstract name of this process. */
static int
listener(const char *what, int backlog, struct sockaddr_un *addr,
	 socklen_t *len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		tracee_die("socket");
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
		 "rbflame-e2e-syscalls-%s-%d", what, (int)getpid());
	*len = offsetof(struct sockaddr_un, sun_path) + 1 +
	       strlen(addr->sun_path + 1);
	if (bind(fd, (struct sockaddr *)addr, *len) < 0 ||
	    listen(fd, backlog) < 0)
		tracee_die("bind/listen %s", what);
	return fd;
}

static TRACEE_NOINLINE void *
blocked_accept4(void *arg)
{
	struct call *c = arg;
	struct timeval tv = {.tv_usec = SOCK_TIMEOUT_US};
	struct sockaddr_un addr;
	socklen_t len;
	int fd = listener("accept4", 4, &addr, &len);
	double t0, c0;
	int r;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		tracee_die("setsockopt");
	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		t0 = tracee_now();
		c0 = coarse_now();
		r = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		count(c, r, errno, sock_waited(t0, c0), SOCK_TIMEOUT_MIN);
		if (r >= 0)
			close(r);
	}
	return NULL;
}

/* Connects to a listener whose backlog is full, with SO_SNDTIMEO: each
 * attempt waits for room that never comes. */
static TRACEE_NOINLINE void *
blocked_connect(void *arg)
{
	struct call *c = arg;
	struct timeval tv = {.tv_usec = SOCK_TIMEOUT_US};
	struct sockaddr_un addr;
	socklen_t len;
	double t0, c0;
	int fd, r;

	listener("connect", 0, &addr, &len);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    0);
		if (fd < 0)
			tracee_die("socket");
		if (connect(fd, (struct sockaddr *)&addr, len) < 0) {
			if (errno != EAGAIN)
				tracee_die("connect to fill the backlog");
			close(fd);
			break;
		}
	}
	block_usr2_and_chld();
	thread_start(c);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
					 sizeof(tv)) < 0)
			tracee_die("socket/setsockopt");
		t0 = tracee_now();
		c0 = coarse_now();
		r = connect(fd, (struct sockaddr *)&addr, len);
		count(c, r, errno, sock_waited(t0, c0), SOCK_TIMEOUT_MIN);
		close(fd);
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

/* Every 20 ms: posts semaphore 0, queues a numbered message, and makes
 * room for one in the full queue. */
static void
ticker_ipc(unsigned char *seq)
{
	struct sembuf post = {.sem_num = 0, .sem_op = 1};
	struct msg m = {.type = 1};

	if (semop(sem_id, &post, 1) < 0)
		tracee_die("semop post");
	m.text[0] = *seq;
	if (msgsnd(msgq_in, &m, MSG_TEXT, IPC_NOWAIT) == 0)
		++*seq;
	msgrcv(msgq_full, &m, MSG_TEXT, 0, IPC_NOWAIT);
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
	unsigned char seq = 0, msg_seq = 0;
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
			ticker_ipc(&msg_seq);
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

/* The io_uring of blocked_io_uring_enter(); -1 when the kernel has none
 * or refuses it (kernel.io_uring_disabled, a seccomp filter). */
static int
uring_setup(void)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	ring.fd = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (ring.fd < 0)
		return -1;
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
	return 0;
}

/*
 * SysV semaphores and queues outlive their process: a child removes them
 * when this process ends, however it ends (the pipe's write end closes).
 */
static void
ipc_setup(void)
{
	struct msqid_ds ds;
	struct msg m = {.type = 1};
	int p[2];
	char b;

	sem_id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
	msgq_in = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	msgq_full = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (pipe2(p, O_CLOEXEC) < 0)
		tracee_die("pipe");
	switch (fork()) {
	case -1:
		tracee_die("fork");
	case 0:
		close(p[1]);
		while (read(p[0], &b, 1) < 0 && errno == EINTR)
			;
		semctl(sem_id, 0, IPC_RMID);
		msgctl(msgq_in, IPC_RMID, NULL);
		msgctl(msgq_full, IPC_RMID, NULL);
		_exit(0);
	}
	close(p[0]);
	if (sem_id < 0 || msgq_in < 0 || msgq_full < 0)
		tracee_die("semget/msgget");
	/* Room for two messages, both taken: msgsnd waits for the ticker. */
	if (msgctl(msgq_full, IPC_STAT, &ds) < 0)
		tracee_die("msgctl");
	ds.msg_qbytes = 2 * MSG_TEXT;
	if (msgctl(msgq_full, IPC_SET, &ds) < 0 ||
	    msgsnd(msgq_full, &m, MSG_TEXT, IPC_NOWAIT) < 0 ||
	    msgsnd(msgq_full, &m, MSG_TEXT, IPC_NOWAIT) < 0)
		tracee_die("fill the message queue");
}

/* A call needs what this kernel may lack or refuse: no failure, but
 * "unavailable" with why. */
static void
unavailable(int i, const char *what)
{
	snprintf(calls[i].unavailable, sizeof(calls[i].unavailable), "%s: %s",
		 what, strerror(errno));
	calls[i].run = NULL;
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
	quiet_epoll = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = quiet_pipe[0];
	if (quiet_epoll < 0 ||
	    epoll_ctl(quiet_epoll, EPOLL_CTL_ADD, quiet_pipe[0], &ev) < 0)
		tracee_die("epoll_create1/epoll_ctl");
	ipc_setup();

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

#define SOCKET_CALL(i, fn) \
	calls[i] = (struct call){.name = #fn, .run = blocked_socket, \
				 .ok_errno = EAGAIN}
#define CALL(i, fn, err) \
	calls[i] = (struct call){.name = #fn, .run = blocked_##fn, \
				 .ok_errno = err}
	CALL(C_READ, read, 0);
	CALL(C_ACCEPT, accept, 0);
	CALL(C_FUTEX, futex, EAGAIN);
	CALL(C_WAIT4, wait4, 0);
	CALL(C_NANOSLEEP, nanosleep, 0);
	CALL(C_SELECT, select, 0);
	CALL(C_POLL, poll, 0);
	CALL(C_MSGRCV, msgrcv, 0);
	CALL(C_MSGSND, msgsnd, 0);
	CALL(C_EPOLL, epoll_wait, 0);
	CALL(C_EPOLL_PWAIT, epoll_pwait, 0);
	CALL(C_EPOLL_PWAIT2, epoll_pwait2, 0);
	CALL(C_SIGTIMEDWAIT, sigtimedwait, EAGAIN);
	CALL(C_SEMOP, semop, 0);
	CALL(C_SEMTIMEDOP, semtimedop, EAGAIN);
	CALL(C_IO_GETEVENTS, io_getevents, 0);
	CALL(C_IO_PGETEVENTS, io_pgetevents, 0);
	CALL(C_IO_URING, io_uring_enter, 0);
	SOCKET_CALL(C_RECVFROM, recvfrom);
	SOCKET_CALL(C_RECVMSG, recvmsg);
	SOCKET_CALL(C_RECVMMSG, recvmmsg);
	CALL(C_ACCEPT4, accept4, EAGAIN);
	CALL(C_CONNECT, connect, EAGAIN);
	SOCKET_CALL(C_SENDTO, sendto);
	SOCKET_CALL(C_SENDMSG, sendmsg);
	SOCKET_CALL(C_SENDMMSG, sendmmsg);
	SOCKET_CALL(C_READ_SOCKET, read_socket);
	SOCKET_CALL(C_WRITE_SOCKET, write_socket);
#undef CALL
#undef SOCKET_CALL
	if (syscall(SYS_epoll_pwait2, quiet_epoll, &ev, 1,
		    &(struct timespec){0, 0}, NULL, 0) < 0)
		unavailable(C_EPOLL_PWAIT2, "epoll_pwait2");
	if (syscall(SYS_io_setup, 4, &aio_ctx) < 0) {
		unavailable(C_IO_GETEVENTS, "io_setup");
		unavailable(C_IO_PGETEVENTS, "io_setup");
	}
	if (uring_setup() < 0)
		unavailable(C_IO_URING, "io_uring_setup");
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
