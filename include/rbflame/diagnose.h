/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Turning a refused attach into one line a user can act on. The facts are
 * gathered from /proc (proc_dir, so tests can point it at a fake tree) and
 * the message is chosen by a pure function, so the table is unit-tested.
 */
#ifndef RBFLAME_DIAGNOSE_H
#define RBFLAME_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct attach_facts {
	pid_t pid;
	bool exists;		/* /proc/PID exists */
	bool is_zombie;
	uid_t target_uid;
	uid_t our_euid;
	pid_t tracer;		/* TracerPid, 0 if none */
	char tracer_comm[64];
	int yama_scope;		/* -1 when Yama is absent */
	bool have_cap_ptrace;	/* CAP_SYS_PTRACE in our effective set */
};

/** Reads the facts for pid from proc_dir. */
void diagnose_collect(pid_t pid, struct attach_facts *f);
/**
 * Writes the one-line reason (without the program name) why attaching
 * failed with err, and what to do.
 */
void diagnose_attach(int err, const struct attach_facts *f, char *buf,
		     size_t cap);

#endif
