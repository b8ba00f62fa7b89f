// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The attach-diagnosis table, from a fake /proc tree: each usual failure
 * gets its own actionable line.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/diagnose.h"
#include "rbflame/proc.h"

static char root[256];

static void
put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void
fake_proc(const char *uid, const char *tracer, const char *state,
	  const char *capeff, const char *yama)
{
	char buf[512], cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(buf, sizeof(buf),
		 "Name:\tapp\nState:\t%s\nTracerPid:\t%s\nUid:\t%s\t%s\t%s\t%s\n",
		 state, tracer, uid, uid, uid, uid);
	put("1234/status", buf);
	put("77/comm", "gdb\n");
	snprintf(buf, sizeof(buf), "Name:\trbflame\nCapEff:\t%s\n", capeff);
	put("self/status", buf);
	if (yama)
		put("sys/kernel/yama/ptrace_scope", yama);
	proc_dir = root;
}

static char *
why(int err)
{
	static char msg[512];
	struct attach_facts f;

	diagnose_collect(1234, &f);
	diagnose_attach(err, &f, msg, sizeof(msg));
	return msg;
}

START_TEST(test_table)
{
	int root_user = geteuid() == 0;
	const char *full = "000001ffffffffff", *none = "0000000000000000";

	snprintf(root, sizeof(root), "/tmp/rbflame-fakeproc.%d", (int)getpid());

	fake_proc("0", "0", "S (sleeping)", full, NULL);
	ck_assert(strstr(why(ESRCH), "no such process") != NULL);

	fake_proc("0", "77", "S (sleeping)", full, NULL);
	ck_assert(strstr(why(EPERM), "already traced by process 77 (gdb)"));

	fake_proc("0", "0", "Z (zombie)", full, NULL);
	ck_assert(strstr(why(EPERM), "exited") != NULL);

	if (!root_user) {
		fake_proc("12345", "0", "S (sleeping)", none, NULL);
		ck_assert(strstr(why(EPERM), "another user") != NULL);
	}

	fake_proc(root_user ? "0" : "12345", "0", "S", none, "1\n");
	if (root_user) {
		ck_assert(strstr(why(EPERM), "ptrace_scope is 1") != NULL);
		fake_proc("0", "0", "S", none, "3\n");
		ck_assert(strstr(why(EPERM), "until reboot") != NULL);
		fake_proc("0", "0", "S", none, NULL);
		ck_assert(strstr(why(EPERM), "CAP_SYS_PTRACE") != NULL);
	}
	fake_proc("0", "0", "S", full, NULL);
	ck_assert(strstr(why(EIO), "attach 1234") != NULL);

	/* No /proc/1234 at all. */
	fake_proc("0", "0", "S", full, NULL);
	{
		struct attach_facts f;
		char msg[256];

		diagnose_collect(999999, &f);
		diagnose_attach(EPERM, &f, msg, sizeof(msg));
		ck_assert(strstr(msg, "no such process") != NULL);
	}
	snprintf(root, sizeof(root) - 8, "rm -rf /tmp/rbflame-fakeproc.%d",
		 (int)getpid());
	ck_assert_int_eq(system(root), 0);
	proc_dir = "/proc";
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("diagnose");
	TCase *tc = tcase_create("table");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_table);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
