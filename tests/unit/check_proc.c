// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* /proc parsing: maps, syscall lines, chroot path handling, threads. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rbflame/proc.h"
#include "rbflame/schedule.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

START_TEST(test_maps_parse)
{
	const char *text =
		"55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 123 /usr/bin/true\n"
		"55d0c0a02000-55d0c0a06000 r-xp 00002000 08:01 123 /usr/bin/true\n"
		"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
		"7f0000001000-7f0000002000 r-xp 00001000 08:01 9 /srv/jail/lib/libx.so.1 (deleted)\n"
		"garbage line\n"
		"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                  [vdso]";
	struct maps m;
	const struct map *mp;

	ck_assert_int_eq(proc_maps_parse(text, &m), 0);
	ck_assert_uint_eq(m.n, 5);
	mp = maps_find(&m, 0x55d0c0a03000);
	ck_assert_ptr_nonnull(mp);
	ck_assert_uint_eq(mp->offset, 0x2000);
	ck_assert_int_eq(mp->prot, PROT_READ | PROT_EXEC);
	ck_assert_str_eq(mp->path, "/usr/bin/true");
	ck_assert_ptr_null(maps_find(&m, 0x7f0000000000)->path);
	ck_assert_str_eq(maps_find(&m, 0x7f0000001800)->path,
			 "/srv/jail/lib/libx.so.1");
	ck_assert_str_eq(maps_find(&m, 0x7ffd00000000)->path, "[vdso]");
	ck_assert_ptr_null(maps_find(&m, 0x1000));
	ck_assert_ptr_null(maps_find(&m, 0x55d0c0a06000));
	maps_free(&m);
}
END_TEST

START_TEST(test_target_path)
{
	/* Unchrooted: the path unchanged. */
	ck_assert_str_eq(proc_path_in_root("/", "/usr/lib/libc.so.6"),
			 "/usr/lib/libc.so.6");
	/* Chrooted at /srv/jail: maps shows our view; strip the prefix. */
	ck_assert_str_eq(proc_path_in_root("/srv/jail",
					   "/srv/jail/lib/libx.so.1"),
			 "/lib/libx.so.1");
	ck_assert_str_eq(proc_path_in_root("/srv/jail", "/srv/jail"), "/");
	/* A prefix that is only a string prefix is not stripped. */
	ck_assert_str_eq(proc_path_in_root("/srv/jail", "/srv/jailbreak/x"),
			 "/srv/jailbreak/x");
	ck_assert_str_eq(proc_path_in_root("/", "[vdso]"), "[vdso]");
}
END_TEST

START_TEST(test_syscall_parse)
{
	struct proc_syscall sc;

	ck_assert_int_eq(proc_syscall_parse("running\n", &sc), 0);
	ck_assert_int_eq(sc.kind, PSC_RUNNING);
	ck_assert_int_eq(proc_syscall_parse(
		"232 0x3 0x7ffc 0x10 0xffffffffffffffff 0x0 0x0 0x7ffd1000 0x7f00abcd\n",
		&sc), 0);
	ck_assert_int_eq(sc.kind, PSC_BLOCKED);
	ck_assert_int_eq(sc.nr, 232);
	ck_assert_uint_eq(sc.sp, 0x7ffd1000);
	ck_assert_uint_eq(sc.pc, 0x7f00abcd);
	ck_assert_uint_eq(sc.args[3], 0xffffffffffffffffull);
	ck_assert_int_eq(proc_syscall_parse("-1 0x7ffd2000 0x401000\n", &sc), 0);
	ck_assert_int_eq(sc.kind, PSC_USER);
	ck_assert_int_eq(proc_syscall_parse("junk", &sc), -1);
	ck_assert_int_eq(sc.kind, PSC_UNKNOWN);
	/* Cut short, or a number too long for its field: not a syscall. */
	ck_assert_int_eq(proc_syscall_parse("232 0x3 0x7ffc\n", &sc), -1);
	ck_assert_int_eq(proc_syscall_parse("-1 0x7ffd2000\n", &sc), -1);
	ck_assert_int_eq(proc_syscall_parse(
		"7 0x11112222333344445 0x0 0x0 0x0 0x0 0x0 0x1 0x2\n", &sc), -1);
	ck_assert_int_eq(proc_syscall_parse("", &sc), -1);
	ck_assert_int_eq(proc_syscall_parse("- 0x1 0x2\n", &sc), -1);
	/* Upper-case hex and no 0x read as well. */
	ck_assert_int_eq(proc_syscall_parse(
		"0 0xA 0Xb c 0x0 0x0 0x0 0xDEAD 0xbeef\n", &sc), 0);
	ck_assert_int_eq(sc.kind, PSC_BLOCKED);
	ck_assert_uint_eq(sc.args[0], 0xa);
	ck_assert_uint_eq(sc.args[1], 0xb);
	ck_assert_uint_eq(sc.args[2], 0xc);
	ck_assert_uint_eq(sc.sp, 0xdead);
	ck_assert_uint_eq(sc.pc, 0xbeef);
}
END_TEST

START_TEST(test_schedstat_parse)
{
	unsigned long long v[3];
	const char *p = "123456789012 42 7\n";

	ck_assert_int_eq(proc_schedstat_parse(&p, v), 0);
	ck_assert_uint_eq(v[0], 123456789012ull);
	ck_assert_uint_eq(v[1], 42);
	ck_assert_uint_eq(v[2], 7);
	ck_assert_str_eq(p, "\n");
	p = "9999999999999999999 0 1";	/* 19 digits: the most read */
	ck_assert_int_eq(proc_schedstat_parse(&p, v), 0);
	ck_assert_uint_eq(v[0], 9999999999999999999ull);
	p = "12345678901234567890 0 1";
	ck_assert_int_eq(proc_schedstat_parse(&p, v), -1);
	p = "1 2";
	ck_assert_int_eq(proc_schedstat_parse(&p, v), -1);
	p = "x 2 3";
	ck_assert_int_eq(proc_schedstat_parse(&p, v), -1);
	p = "-1 2 3";
	ck_assert_int_eq(proc_schedstat_parse(&p, v), -1);
}
END_TEST

START_TEST(test_restartable_table)
{
	const struct proc_syscall_rule *rules, *r;
	size_t n;

	ck_assert(proc_syscall_nonrestartable(SYS_epoll_wait));
	ck_assert(proc_syscall_nonrestartable(SYS_epoll_pwait));
	ck_assert(proc_syscall_nonrestartable(SYS_rt_sigtimedwait));
	ck_assert(proc_syscall_nonrestartable(SYS_semtimedop));
	ck_assert(proc_syscall_nonrestartable(SYS_io_getevents));
	ck_assert(proc_syscall_nonrestartable(SYS_io_uring_enter));
	ck_assert(!proc_syscall_nonrestartable(SYS_nanosleep));
	ck_assert(!proc_syscall_nonrestartable(SYS_read));
	ck_assert(!proc_syscall_nonrestartable(SYS_futex));
	ck_assert(!proc_syscall_nonrestartable(SYS_poll));
	ck_assert(!proc_syscall_nonrestartable(SYS_select));
	/* -ERESTARTNOHAND since Linux 2.6.9: restarted after a stop. */
	ck_assert(!proc_syscall_nonrestartable(SYS_msgrcv));
	ck_assert(!proc_syscall_nonrestartable(SYS_msgsnd));
	ck_assert(!proc_syscall_nonrestartable(-1));

	r = proc_syscall_rule(SYS_io_uring_enter);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->name, "io_uring_enter");
	ck_assert_int_eq(r->nr, 426);
	ck_assert_int_eq(r->policy, PROC_SYSCALL_NEVER_STOP);
	ck_assert_int_eq(proc_syscall_rule(SYS_semop)->policy,
			 PROC_SYSCALL_REWRITE);
	ck_assert_ptr_null(proc_syscall_rule(SYS_read));

	/* One row per call, each with its reason. */
	rules = proc_syscall_rules(&n);
	ck_assert_uint_ge(n, 18);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_eq(proc_syscall_rule(rules[i].nr), &rules[i]);
		ck_assert(rules[i].policy == PROC_SYSCALL_REWRITE ||
			  rules[i].policy == PROC_SYSCALL_NEVER_STOP);
		ck_assert_uint_gt(strlen(rules[i].why), 10);
	}
}
END_TEST

/* The list as doc/syscalls.md tells it: its table under "## The list",
 * one row per call ("| `name` | nr | ... | policy | ..."), the same calls
 * as the code, with the same numbers and policies. */
START_TEST(test_restartable_doc)
{
	const struct proc_syscall_rule *rules;
	char line[1024], name[64];
	bool in_list = false, *seen;
	size_t n, rows = 0;
	FILE *f = fopen(SRCDIR "/doc/syscalls.md", "r");

	ck_assert_ptr_nonnull(f);
	rules = proc_syscall_rules(&n);
	seen = calloc(n, sizeof(*seen));
	while (fgets(line, sizeof(line), f)) {
		const struct proc_syscall_rule *r = NULL;
		long nr;

		if (!strncmp(line, "## ", 3))
			in_list = !strcmp(line, "## The list\n");
		if (!in_list || sscanf(line, "| `%63[a-z0-9_]` | %ld |", name,
				       &nr) != 2)
			continue;
		rows++;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(rules[i].name, name))
				r = &rules[i];
		ck_assert_msg(r, "doc/syscalls.md lists %s, the code does not",
			      name);
		ck_assert_msg(!seen[r - rules], "%s listed twice", name);
		seen[r - rules] = true;
		ck_assert_int_eq(nr, r->nr);
		ck_assert_msg(strstr(line, r->policy == PROC_SYSCALL_REWRITE
						   ? "| rewrite |"
						   : "| never stop |"),
			      "doc/syscalls.md: %s has another policy", name);
	}
	fclose(f);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(seen[i], "doc/syscalls.md misses %s",
			      rules[i].name);
	ck_assert_uint_eq(rows, n);
	free(seen);
}
END_TEST

static void
on_signal(int sig)
{
	(void)sig;
}

START_TEST(test_self)
{
	pid_t *tids;
	size_t n;
	char comm[64], state;
	pid_t tracer = 99;
	uid_t uid;
	struct maps m;

	ck_assert_int_eq(proc_tasks(getpid(), &tids, &n), 0);
	ck_assert_uint_ge(n, 1);
	free(tids);
	ck_assert_int_eq(proc_thread_comm(getpid(), getpid(), comm,
					  sizeof(comm)), 0);
	ck_assert(strstr(comm, "check_proc") != NULL);
	ck_assert_int_eq(proc_thread_state(getpid(), getpid(), &state), 0);
	ck_assert_int_eq(state, 'R');
	ck_assert_int_eq(proc_tracer_pid(getpid(), &tracer), 0);
	ck_assert_int_eq(proc_status_uid(getpid(), &uid), 0);
	ck_assert_uint_eq(uid, getuid());
	ck_assert_int_eq(proc_maps_read(getpid(), &m), 0);
	ck_assert_ptr_nonnull(maps_find(&m, (uint64_t)(uintptr_t)&test_self));
	maps_free(&m);
	ck_assert_int_eq(proc_tasks(0x3ffffff0, &tids, &n), -1);
}
END_TEST

/* Signal dispositions, read back from our own status file. */
START_TEST(test_signal_disposition)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGTSTP, &sa, NULL), 0);
	ck_assert_int_eq(proc_signal_disposition(getpid(), SIGTSTP),
			 PROC_SIG_IGNORED);
	sa.sa_handler = SIG_DFL;
	ck_assert_int_eq(sigaction(SIGTSTP, &sa, NULL), 0);
	ck_assert_int_eq(proc_signal_disposition(getpid(), SIGTSTP),
			 PROC_SIG_DEFAULT);
	sa.sa_handler = on_signal;
	ck_assert_int_eq(sigaction(SIGRTMIN + 3, &sa, NULL), 0);
	ck_assert_int_eq(proc_signal_disposition(getpid(), SIGRTMIN + 3),
			 PROC_SIG_CAUGHT);
	ck_assert_int_eq(proc_signal_disposition(getpid(), 0), -1);
	ck_assert_int_eq(proc_signal_disposition(getpid(), 65), -1);
}
END_TEST

START_TEST(test_schedstat)
{
	char path[96];
	uint64_t a = 0, b = 0;
	volatile unsigned long spin = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
		 (int)getpid(), (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(proc_schedstat_read_fd(fd, &a), 0);
	/* Busy for ~20 ms: more than any kernel's accounting tick. */
	for (uint64_t t0 = now_ns(); now_ns() - t0 < 20000000ull;)
		spin++;
	/* The same fd, read again: the time moved. */
	ck_assert_int_eq(proc_schedstat_read_fd(fd, &b), 0);
	ck_assert_uint_gt(b, a);
	/* Put on a CPU again after a sleep: the slices count moves. */
	{
		uint64_t r1, s1, r2, s2;

		ck_assert_int_eq(proc_schedstat_read(fd, &r1, &s1), 0);
		usleep(2000);
		ck_assert_int_eq(proc_schedstat_read(fd, &r2, &s2), 0);
		ck_assert_uint_ge(r2, r1);
		ck_assert_uint_gt(s2, s1);
	}
	close(fd);
}
END_TEST

/* A child that spins on CPU 0 for ms milliseconds, then exits. */
static pid_t
spinner(unsigned ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;
		volatile unsigned long spin = 0;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (uint64_t t0 = now_ns(); now_ns() - t0 < ms * 1000000ull;)
			spin++;
		_exit(0);
	}
	return pid;
}

/* Two spinners on one CPU: each waits for it about half the time, and
 * its run delay (what probe_elapsed() subtracts) says so. */
START_TEST(test_run_delay)
{
	pid_t a, b;
	uint64_t d0 = 0, d1 = 0;

	a = spinner(400);
	b = spinner(400);
	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(b, 0);
	ck_assert_int_eq(proc_run_delay(a, &d0), 0);
	usleep(300000);
	ck_assert_int_eq(proc_run_delay(a, &d1), 0);
	/* Some 150 ms waited in 300; a busy host only adds. */
	ck_assert_uint_gt(d1 - d0, 50000000ull);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	/* Gone: -1, nothing written. */
	d1 = 7;
	ck_assert_int_eq(proc_run_delay(a, &d1), -1);
	ck_assert_uint_eq(d1, 7);
}
END_TEST

START_TEST(test_cpu_pressure_parse)
{
	uint64_t us = 0;
	double avg = -1;

	ck_assert_int_eq(proc_cpu_pressure_parse(
				 "some avg10=25.12 avg60=7.10 avg300=18.74 "
				 "total=4512588044\n"
				 "full avg10=0.00 avg60=0.00 avg300=0.00 "
				 "total=0\n",
				 &us, &avg),
			 0);
	ck_assert_uint_eq(us, 4512588044ull);
	ck_assert(avg > 25.11 && avg < 25.13);
	ck_assert_int_eq(proc_cpu_pressure_parse(
				 "some avg10=0.00 avg60=0.00 avg300=0.00 "
				 "total=17",
				 &us, NULL),
			 0);
	ck_assert_uint_eq(us, 17);
	/* The "full" line's total is not the one; garbage, no total,
	 * a share past 100%. */
	us = 3;
	ck_assert_int_eq(proc_cpu_pressure_parse(
				 "full avg10=0.00 avg60=0.00 avg300=0.00 "
				 "total=9\n",
				 &us, &avg),
			 -1);
	ck_assert_int_eq(proc_cpu_pressure_parse(
				 "some avg10=1.00 avg60=0.00 avg300=0.00\n"
				 "full avg10=0.00 avg60=0.00 avg300=0.00 "
				 "total=9\n",
				 &us, &avg),
			 -1);
	ck_assert_int_eq(proc_cpu_pressure_parse(
				 "some avg10=x avg60=0 avg300=0 total=5\n",
				 &us, &avg),
			 -1);
	ck_assert_int_eq(proc_cpu_pressure_parse(
				 "some avg10=100.50 avg60=0 avg300=0 total=5\n",
				 &us, &avg),
			 -1);
	ck_assert_int_eq(proc_cpu_pressure_parse(
				 "some avg10=1.00 avg60=0 avg300=0 total=5x\n",
				 &us, &avg),
			 -1);
	ck_assert_int_eq(proc_cpu_pressure_parse("", &us, &avg), -1);
	ck_assert_uint_eq(us, 3);
}
END_TEST

/* Two spinners on one CPU: one waits for it all the time, and the
 * host's CPU pressure counts that wait (the run loop's test for a
 * contended host, src/run.c). */
START_TEST(test_cpu_pressure)
{
	int fd = proc_cpu_pressure_open();
	uint64_t t0 = 0, t1 = 0;
	double avg10;
	pid_t a, b;

	if (fd < 0) {
		/* A kernel feature (PSI), nothing CI can install. */
		printf("test_cpu_pressure: no /proc/pressure/cpu here: %s\n",
		       strerror(errno));
		return;
	}
	a = spinner(400);
	b = spinner(400);
	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(b, 0);
	usleep(50000);
	ck_assert_int_eq(proc_cpu_pressure_read(fd, &t0, &avg10), 0);
	ck_assert(avg10 >= 0 && avg10 <= 100);
	usleep(300000);
	ck_assert_int_eq(proc_cpu_pressure_read(fd, &t1, NULL), 0);
	/* The kernel weighs each CPU's share by its busy time: CPU 0's
	 * 100% counts at least half on a host whose other CPUs are all
	 * busy without contention, more where they idle; 20% asked. */
	ck_assert_uint_gt(t1 - t0, 60000ull);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	close(fd);
}
END_TEST

START_TEST(test_nspid_parse)
{
	pid_t ids[4];

	ck_assert_int_eq(proc_nspid_parse("Name:\truby\nNSpid:\t27621\t1\n"
					  "NSpgid:\t27621\t1\n", ids, 4), 2);
	ck_assert_int_eq(ids[0], 27621);
	ck_assert_int_eq(ids[1], 1);
	ck_assert_int_eq(proc_nspid_parse("NSpid:\t7\n", ids, 4), 1);
	ck_assert_int_eq(ids[0], 7);
	/* Three levels, room for two. */
	ck_assert_int_eq(proc_nspid_parse("NSpid:\t9 5 1\n", ids, 2), 2);
	ck_assert_int_eq(ids[1], 5);
	/* No line (kernels before 4.1), an empty one, garbage. */
	ck_assert_int_eq(proc_nspid_parse("Name:\tx\nPid:\t3\n", ids, 4), 0);
	ck_assert_int_eq(proc_nspid_parse("NSpid:\n", ids, 4), 0);
	ck_assert_int_eq(proc_nspid_parse("NSpid:\t-3 x\n", ids, 4), 0);
	ck_assert_int_eq(proc_nspid_parse("", ids, 4), 0);
}
END_TEST

/* dir/rel, a file holding text. */
static void
fake_text(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void
fake_status(const char *dir, const char *rel, const char *nspid)
{
	char text[256];

	snprintf(text, sizeof(text),
		 "Name:\truby\nUmask:\t0022\n%s\nNSpgid:\t1\n", nspid);
	fake_text(dir, rel, text);
}

static void
fake_dir(const char *dir, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

/* The tid map over a fake /proc: a process in another PID namespace (its
 * ids 1 and 2 are our 100 and 105), one in ours, one with no NSpid. */
START_TEST(test_tidmap)
{
	char dir[] = "/tmp/check_proc.XXXXXX";
	const char *saved = proc_dir;
	struct proc_tidmap *m;
	char cmd[64];
	unsigned r;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	fake_dir(dir, "100");
	fake_dir(dir, "100/task");
	fake_dir(dir, "100/task/100");
	fake_dir(dir, "100/task/105");
	fake_status(dir, "100/status", "NSpid:\t100\t1");
	fake_status(dir, "100/task/100/status", "NSpid:\t100\t1");
	fake_status(dir, "100/task/105/status", "NSpid:\t105\t2");
	fake_dir(dir, "200");
	fake_status(dir, "200/status", "NSpid:\t200");
	fake_dir(dir, "300");
	fake_status(dir, "300/status", "Pid:\t300");
	proc_dir = dir;

	m = proc_tidmap_create(100);
	ck_assert(proc_tidmap_foreign(m));
	ck_assert_uint_eq(proc_tidmap_refreshes(m), 1);
	ck_assert_int_eq(proc_tidmap_host(m, 1), 100);
	ck_assert_int_eq(proc_tidmap_host(m, 2), 105);
	ck_assert_int_eq(proc_tidmap_host(m, 0), 0);
	ck_assert_int_eq(proc_tidmap_host(m, -2), 0);
	ck_assert_uint_eq(proc_tidmap_refreshes(m), 1);
	/* A thread started since: a miss reads the map again. */
	fake_dir(dir, "100/task/107");
	fake_status(dir, "100/task/107/status", "NSpid:\t107\t3");
	ck_assert_int_eq(proc_tidmap_host(m, 3), 107);
	ck_assert_uint_eq(proc_tidmap_refreshes(m), 2);
	/* An id that is nowhere: read once, then remembered (for a second)
	 * however often it is asked for. */
	ck_assert_int_eq(proc_tidmap_host(m, 9), 0);
	ck_assert_uint_eq(proc_tidmap_refreshes(m), 3);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(proc_tidmap_host(m, 9), 0);
	r = proc_tidmap_refreshes(m);
	ck_assert_uint_le(r, 4);	/* 4: a second went by */
	/* Another new id is still read at once. */
	fake_dir(dir, "100/task/110");
	fake_status(dir, "100/task/110/status", "NSpid:\t110\t4");
	ck_assert_int_eq(proc_tidmap_host(m, 4), 110);
	ck_assert_uint_eq(proc_tidmap_refreshes(m), r + 1);
	proc_tidmap_destroy(m);

	/* Our namespace, or no NSpid at all: ids are ours, nothing read. */
	m = proc_tidmap_create(200);
	ck_assert(!proc_tidmap_foreign(m));
	ck_assert_int_eq(proc_tidmap_host(m, 200), 200);
	ck_assert_int_eq(proc_tidmap_host(m, 4711), 4711);
	ck_assert_uint_eq(proc_tidmap_refreshes(m), 0);
	proc_tidmap_destroy(m);
	m = proc_tidmap_create(300);
	ck_assert(!proc_tidmap_foreign(m));
	ck_assert_int_eq(proc_tidmap_host(m, 300), 300);
	proc_tidmap_destroy(m);
	/* A process that is gone: nothing to map either. */
	m = proc_tidmap_create(400);
	ck_assert(!proc_tidmap_foreign(m));
	proc_tidmap_destroy(m);

	proc_dir = saved;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The run delay comes from proc_dir like every other /proc read: the
 * second of schedstat's three fields; a short file is no figure. */
START_TEST(test_run_delay_file)
{
	char dir[] = "/tmp/check_proc.XXXXXX";
	const char *saved = proc_dir;
	char cmd[64];
	uint64_t d = 7;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	fake_dir(dir, "500");
	fake_text(dir, "500/schedstat", "123456789 987654321 42\n");
	fake_dir(dir, "501");
	fake_text(dir, "501/schedstat", "123456789\n");
	proc_dir = dir;

	ck_assert_int_eq(proc_run_delay(500, &d), 0);
	ck_assert_uint_eq(d, 987654321ull);
	d = 7;
	ck_assert_int_eq(proc_run_delay(501, &d), -1);
	ck_assert_uint_eq(d, 7);
	ck_assert_int_eq(proc_run_delay(502, &d), -1);

	proc_dir = saved;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* An environment variable from a fake /proc/PID/environ: a name that
 * only starts the same is another variable, an entry astride a read's
 * 4096 bytes is whole, one longer than the reader keeps is no match. */
START_TEST(test_environ)
{
	char dir[] = "/tmp/check_proc.XXXXXX";
	const char *saved = proc_dir;
	char path[512], cmd[64], v[16];
	static char big[6000];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	fake_dir(dir, "500");
	snprintf(path, sizeof(path), "%s/500/environ", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("RUBY_MN_THREADS_X=9", f);
	fputc('\0', f);
	memset(big, 'a', 4070);
	fputs(big, f);	/* a filler: the next entry starts at 4091 */
	fputc('\0', f);
	fputs("RUBY_MN_THREADS=1", f);	/* across byte 4096 */
	fputc('\0', f);
	memset(big, 'b', sizeof(big) - 1);
	memcpy(big, "LONG=", 5);
	fputs(big, f);	/* longer than the reader keeps */
	fputc('\0', f);
	fputs("LAST=ok", f);
	fputc('\0', f);
	fclose(f);
	proc_dir = dir;

	ck_assert_int_eq(proc_environ_get(500, "RUBY_MN_THREADS", v,
					  sizeof(v)), 0);
	ck_assert_str_eq(v, "1");
	ck_assert_int_eq(proc_environ_get(500, "RUBY_MN_THREADS_X", v,
					  sizeof(v)), 0);
	ck_assert_str_eq(v, "9");
	ck_assert_int_eq(proc_environ_get(500, "LAST", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "ok");
	errno = 0;
	ck_assert_int_eq(proc_environ_get(500, "LONG", v, sizeof(v)), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(proc_environ_get(500, "RUBY", v, sizeof(v)), -1);
	ck_assert_int_eq(proc_environ_get(501, "LAST", v, sizeof(v)), -1);

	proc_dir = saved;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The parent in a stat line, past a comm that holds ') ' itself. */
START_TEST(test_stat_ppid)
{
	struct proc_parent *v;
	size_t n;
	bool me = false;
	pid_t ppid = 0;

	ck_assert_int_eq(proc_stat_ppid_parse("42 (puma) S 7 42 42 0", &ppid),
			 0);
	ck_assert_int_eq(ppid, 7);
	ck_assert_int_eq(proc_stat_ppid_parse("43 (a) S 9 (b)) R 11 1", &ppid),
			 0);
	ck_assert_int_eq(ppid, 11);
	ck_assert_int_eq(proc_stat_ppid_parse("44 (cut", &ppid), -1);
	ck_assert_int_eq(proc_stat_ppid_parse("45 (x) S", &ppid), -1);
	ck_assert_int_eq(proc_stat_ppid_parse("46 (x) S -3", &ppid), -1);

	/* This process is listed, under its parent. */
	ck_assert_int_eq(proc_parents(&v, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == getpid())
			me = v[i].ppid == getppid();
	free(v);
	ck_assert(me);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("proc");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_maps_parse);
	tcase_add_test(tc, test_target_path);
	tcase_add_test(tc, test_syscall_parse);
	tcase_add_test(tc, test_schedstat_parse);
	tcase_add_test(tc, test_restartable_table);
	tcase_add_test(tc, test_restartable_doc);
	tcase_add_test(tc, test_signal_disposition);
	tcase_add_test(tc, test_schedstat);
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_nspid_parse);
	tcase_add_test(tc, test_tidmap);
	tcase_add_test(tc, test_stat_ppid);
	tcase_add_test(tc, test_environ);
	tcase_add_test(tc, test_run_delay);
	tcase_add_test(tc, test_cpu_pressure_parse);
	tcase_add_test(tc, test_cpu_pressure);
	tcase_add_test(tc, test_run_delay_file);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
