/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * A thread as the scheduler saw it, from the kernel's own log of its
 * context switches: a perf event on the thread (a software dummy event
 * with context_switch set, user space only) writing a record each time
 * the thread is put on a CPU or taken off one into a ring buffer mapped
 * here. Reading it is reading our own memory, so whether a thread has
 * been on a CPU since some moment, and whether it sleeps or waits for a
 * CPU now, costs no system call: what the sampler's idle proofs and
 * thread states read from /proc's schedstat and syscall files, two or
 * three preads a thread a tick.
 *
 * One ring a thread: the kernel lets events of different threads share
 * none (perf_event_set_output() refuses another task's). A thread the log
 * has not heard from since it was opened (asleep all along) is unknown
 * until a /proc read says it sleeps (switchlog_mark_off()); one whose
 * records were lost (its ring full: the kernel says so) is unknown until
 * it switches again. Where perf events cannot be opened (a kernel
 * without them, perf_event_paranoid, a seccomp filter, the locked-memory
 * limit) switchlog_open() fails and callers read /proc as before.
 */
#ifndef RBFLAME_SWITCHLOG_H
#define RBFLAME_SWITCHLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct switchlog;

enum switchlog_state {
	SWL_UNKNOWN,	/* no record since opened, or records lost since */
	SWL_ON,		/* switched in last: on a CPU */
	SWL_OFF,	/* switched out last */
};

struct switchlog_view {
	enum switchlog_state state;
	/* SWL_OFF: when it left its CPU (CLOCK_MONOTONIC ns; marked off:
	 * when the /proc read that said so began), and whether it left
	 * runnable (preempted) rather than to sleep. Two views with the
	 * same off_since: it was not on a CPU in between. */
	uint64_t off_since;
	bool preempted;
	/* How many records (and losses) the log has taken: two views with
	 * the same seq, nothing came in between. */
	uint64_t seq;
};

/** Logs thread tid's switches from now on; NULL with errno if the kernel
 * will not (switchlog_close() undoes it). */
struct switchlog *switchlog_open(pid_t tid);
/** Closes the event and unmaps its ring (NULL is fine). */
void switchlog_close(struct switchlog *l);
/** The thread's state as of now: the records written since the last
 * look taken first. */
void switchlog_view(struct switchlog *l, struct switchlog_view *out);
/**
 * The thread, unknown in a view *out of seq, was read asleep by a /proc
 * read begun after that view, at since: off since then, unless a record
 * came in after the view, which then says. Its state into *out either
 * way.
 */
void switchlog_mark_off(struct switchlog *l, uint64_t since,
			struct switchlog_view *out);
/** Records taken, and records the kernel said it lost: for the stats. */
uint64_t switchlog_records(const struct switchlog *l);
uint64_t switchlog_lost(const struct switchlog *l);

#endif
