// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The target's process tree as /proc shows it: every descendant of a
 * process we trace, seized as found. The tree may change under the walk
 * (a worker exits, another is forked): each walk reads every process's
 * parent once, seizes what it can, and the next walk, a second later,
 * sees the rest. Whatever is seized is detached with the others when the
 * tracer thread exits.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rbflame/error.h"
#include "rbflame/proc.h"
#include "rbflame/tree.h"
#include "rbflame/xmalloc.h"

#define TREE_PASSES 64		/* bound on the depth of one walk */
#define TREE_REFUSED_MAX 4096	/* bound on the refused pids kept */
#define TREE_LIST_MAX 8		/* pids named in the attach line */

void
tree_init(struct tree *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->tracer_tid = (pid_t)syscall(SYS_gettid);
	tr->self = getpid();
}

void
tree_fini(struct tree *tr)
{
	free(tr->refused);
	memset(tr, 0, sizeof(*tr));
}

static bool
refused(const struct tree *tr, pid_t pid)
{
	for (size_t i = 0; i < tr->nrefused; i++)
		if (tr->refused[i] == pid)
			return true;
	return false;
}

static void
refuse(struct tree *tr, pid_t pid)
{
	if (tr->nrefused >= TREE_REFUSED_MAX)
		return;
	tr->refused = xgrowarray(tr->refused, &tr->cap, tr->nrefused + 1,
				 sizeof(*tr->refused));
	tr->refused[tr->nrefused++] = pid;
}

/* Whether children of pid belong to the tree: a live process of ours, or
 * one we could not seize (its children may be seizable). */
static bool
in_tree(const struct tree *tr, struct target *t, pid_t pid)
{
	const struct target_process *p = target_process_find(t, pid);

	return (p && !p->exited) || refused(tr, pid);
}

/* Says, once, why pid stays out of the profile. */
static void
tell_refused(pid_t pid, pid_t parent, int err)
{
	switch (err) {
	case ESRCH:
		notice_msg("process %d (child of %d) exited before it could be followed",
			   (int)pid, (int)parent);
		break;
	case EPERM: {
		pid_t tracer = 0;

		if (proc_tracer_pid(pid, &tracer) == 0 && tracer != 0) {
			notice_msg("not following process %d (child of %d): it is traced by process %d already (a debugger, strace, another profiler)",
				   (int)pid, (int)parent, (int)tracer);
			break;
		}
		notice_msg("not following process %d (child of %d): %s (another user, or a process that cannot be traced)",
			   (int)pid, (int)parent, strerror(err));
		break;
	}
	default:
		notice_msg("not following process %d (child of %d): %s",
			   (int)pid, (int)parent, strerror(err));
	}
}

/* A seize refused because the kernel has already made pid ours: the
 * child of a fork whose event we have not read yet. */
static bool
ours_already(const struct tree *tr, pid_t pid)
{
	pid_t tracer = 0;

	return proc_tracer_pid(pid, &tracer) == 0 && tracer == tr->tracer_tid;
}

/* One attempt at pid; true when it is seized. */
static bool
adopt_one(struct tree *tr, struct target *t, pid_t pid, pid_t parent,
	  bool first)
{
	char state;
	int err;

	if (target_adopt(t, pid, parent) == 0) {
		if (!first)
			notice_msg("following process %d (child of %d), found running",
				   (int)pid, (int)parent);
		return true;
	}
	err = errno;
	if (err == EPERM && ours_already(tr, pid))
		return false;	/* its fork event is on the way */
	/* A zombie (EPERM too) is no process to profile, nor news: once
	 * its parent reaps it, it is gone from the list. */
	if (err == EPERM && proc_thread_state(pid, pid, &state) == 0 &&
	    (state == 'Z' || state == 'X'))
		return false;
	tell_refused(pid, parent, err);
	refuse(tr, pid);
	return false;
}

static void
tell_first(const pid_t *got, size_t n, size_t total, pid_t root,
	   size_t nroots)
{
	char list[TREE_LIST_MAX * 12 + 8];
	size_t len = 0;

	list[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%d",
				i ? " " : "", (int)got[i]);
	if (total > n)
		snprintf(list + len, sizeof(list) - len, " ...");
	if (nroots > 1)
		notice_msg("following %zu running process%s under the %zu targets: %s",
			   total, total == 1 ? "" : "es", nroots, list);
	else
		notice_msg("following %zu running process%s under %d: %s",
			   total, total == 1 ? "" : "es", (int)root, list);
}

size_t
tree_adopt(struct tree *tr, struct target *t, bool first)
{
	struct proc_parent *v;
	pid_t got[TREE_LIST_MAX];
	size_t n, total = 0, nroots = 0;

	for (size_t i = 0; i < t->nprocs; i++)
		nroots += t->procs[i].parent == 0;
	if (proc_parents(&v, &n) < 0) {
		debug_msg("cannot list processes: %s", strerror(errno));
		return 0;
	}
	/* Each pass takes one more generation; a pass that seizes nothing
	 * is the last. */
	for (int pass = 0; pass < TREE_PASSES; pass++) {
		size_t added = 0;

		for (size_t i = 0; i < n; i++) {
			pid_t pid = v[i].pid, parent = v[i].ppid;

			/* rbflame itself, under a shell given as the
			 * target, is not part of the profile. */
			if (pid == tr->self || target_process_find(t, pid) ||
			    refused(tr, pid) || !in_tree(tr, t, parent))
				continue;
			if (!adopt_one(tr, t, pid, parent, first))
				continue;
			if (total < TREE_LIST_MAX)
				got[total] = pid;
			total++;
			added++;
		}
		if (!added)
			break;
	}
	free(v);
	if (first && total)
		tell_first(got, total < TREE_LIST_MAX ? total : TREE_LIST_MAX,
			   total, t->pid, nroots);
	return total;
}

size_t
tree_rescan(struct tree *tr, struct target *t, uint64_t now)
{
	if (now < tr->next_scan_ns)
		return 0;
	tr->next_scan_ns = now + TREE_RESCAN_NS;
	return tree_adopt(tr, t, false);
}
