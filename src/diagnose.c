// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Why an attach was refused, in words a user can act on: no such process,
 * another user's process, another tracer (gdb, strace), Yama's
 * ptrace_scope, or a container without CAP_SYS_PTRACE.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbflame/diagnose.h"
#include "rbflame/proc.h"

#define CAP_SYS_PTRACE_BIT 19

static int
read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (!fgets(buf, cap, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

void
diagnose_collect(pid_t pid, struct attach_facts *f)
{
	char path[128], buf[4096];
	FILE *st;

	memset(f, 0, sizeof(*f));
	f->pid = pid;
	f->our_euid = geteuid();
	f->yama_scope = -1;

	snprintf(path, sizeof(path), "%s/sys/kernel/yama/ptrace_scope",
		 proc_dir);
	if (read_line(path, buf, sizeof(buf)) == 0)
		f->yama_scope = atoi(buf);

	/* Our own capabilities: CapEff of the process we run in. */
	snprintf(path, sizeof(path), "%s/self/status", proc_dir);
	st = fopen(path, "re");
	if (st) {
		while (fgets(buf, sizeof(buf), st)) {
			if (!strncmp(buf, "CapEff:", 7)) {
				unsigned long long caps =
					strtoull(buf + 7, NULL, 16);

				f->have_cap_ptrace =
					(caps >> CAP_SYS_PTRACE_BIT) & 1;
			}
		}
		fclose(st);
	}

	snprintf(path, sizeof(path), "%s/%d/status", proc_dir, (int)pid);
	st = fopen(path, "re");
	if (!st)
		return;
	f->exists = true;
	while (fgets(buf, sizeof(buf), st)) {
		if (!strncmp(buf, "State:", 6))
			f->is_zombie = strchr(buf + 6, 'Z') != NULL;
		else if (!strncmp(buf, "Uid:", 4))
			f->target_uid = (uid_t)strtoul(buf + 4, NULL, 10);
		else if (!strncmp(buf, "TracerPid:", 10))
			f->tracer = (pid_t)strtol(buf + 10, NULL, 10);
	}
	fclose(st);
	if (f->tracer > 0) {
		snprintf(path, sizeof(path), "%s/%d/comm", proc_dir,
			 (int)f->tracer);
		if (read_line(path, f->tracer_comm, sizeof(f->tracer_comm)) < 0)
			f->tracer_comm[0] = '\0';
	}
}

void
diagnose_attach(int err, const struct attach_facts *f, char *buf, size_t cap)
{
	int pid = (int)f->pid;

	if (err == ESRCH || !f->exists) {
		snprintf(buf, cap,
			 "attach %d: no such process (check the PID with 'ps -p %d')",
			 pid, pid);
		return;
	}
	if (f->is_zombie) {
		snprintf(buf, cap,
			 "attach %d: the process has exited (zombie) and has no stacks to sample",
			 pid);
		return;
	}
	if (err != EPERM) {
		snprintf(buf, cap, "attach %d: %s", pid, strerror(err));
		return;
	}
	if (f->tracer > 0) {
		snprintf(buf, cap,
			 "attach %d: already traced by process %d%s%s%s: only one tracer at a time; detach it (quit gdb, stop strace) and retry",
			 pid, (int)f->tracer, f->tracer_comm[0] ? " (" : "",
			 f->tracer_comm, f->tracer_comm[0] ? ")" : "");
		return;
	}
	if (f->our_euid != 0 && f->target_uid != f->our_euid) {
		snprintf(buf, cap,
			 "attach %d: Operation not permitted: the process belongs to another user (uid %u); run rbflame as that user or with sudo",
			 pid, (unsigned)f->target_uid);
		return;
	}
	if (f->yama_scope == 3) {
		snprintf(buf, cap,
			 "attach %d: Operation not permitted: kernel.yama.ptrace_scope is 3 (ptrace disabled until reboot)",
			 pid);
		return;
	}
	if (!f->have_cap_ptrace && f->yama_scope >= 1) {
		snprintf(buf, cap,
			 "attach %d: Operation not permitted: kernel.yama.ptrace_scope is %d; run rbflame with sudo, or launch the program under rbflame (rbflame -- COMMAND), or 'sysctl kernel.yama.ptrace_scope=0'",
			 pid, f->yama_scope);
		return;
	}
	if (f->our_euid == 0 && !f->have_cap_ptrace) {
		snprintf(buf, cap,
			 "attach %d: Operation not permitted: rbflame lacks CAP_SYS_PTRACE (in a container, add it: docker run --cap-add=SYS_PTRACE)",
			 pid);
		return;
	}
	snprintf(buf, cap,
		 "attach %d: Operation not permitted (is the process setuid or non-dumpable? try sudo)",
		 pid);
}
