// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Target files (src/tfile.c): names stay inside the root they are
 * resolved in ("..", absolute symlinks, magic links), only regular files
 * within the cap open and nothing blocks, reads stop at the cap, and a
 * process's files open only when the process could read them itself
 * (as root: a child running as nobody), with rbflame's own rights back
 * afterwards.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/tfile.h"

static char tmpdir[] = "/tmp/check_tfile.XXXXXX";

static const char *
tpath(const char *rel)
{
	static char buf[8][4096];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s%s", tmpdir, rel);
	return buf[k];
}

static void
put(const char *rel, const char *text, mode_t mode)
{
	int fd = open(tpath(rel), O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

/* The contents of path under r, or NULL with errno. */
static char *
slurp(const struct tfile_root *r, const char *path, uint64_t cap)
{
	int fd = tfile_open(r, path, cap, NULL);
	char *s;
	int err;

	if (fd < 0)
		return NULL;
	s = tfile_read_all(fd, cap, NULL);
	err = errno;
	close(fd);
	errno = err;
	return s;
}

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_int_eq(chmod(tmpdir, 0755), 0);
	ck_assert_int_eq(mkdir(tpath("/etc"), 0755), 0);
	put("/etc/secret", "inside\n", 0644);
}

static void
teardown(void)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	strcpy(tmpdir, "/tmp/check_tfile.XXXXXX");
}

START_TEST(test_creds_parse)
{
	struct tfile_creds c;

	ck_assert_int_eq(tfile_creds_parse("Name:\tx\nUid:\t1\t2\t3\t4\n"
					   "Gid:\t5\t6\t7\t8\n"
					   "Groups:\t10 20 \nNSpid:\t1\n", &c),
			 0);
	ck_assert_uint_eq(c.uid, 4);	/* the fs ids */
	ck_assert_uint_eq(c.gid, 8);
	ck_assert_uint_eq(c.ngroups, 2);
	ck_assert_uint_eq(c.groups[1], 20);
	ck_assert_int_eq(tfile_creds_parse("Uid:\t0\t0\t0\t0\n"
					   "Gid:\t0\t0\t0\t0\nGroups:\n", &c),
			 0);
	ck_assert_uint_eq(c.ngroups, 0);
	ck_assert_int_eq(tfile_creds_parse("Uid:\t1\t2\n", &c), -1);
	ck_assert_int_eq(tfile_creds_parse("Gid:\t1\t2\t3\t4\n", &c), -1);
}
END_TEST

START_TEST(test_may_read)
{
	struct tfile_creds c = { .uid = 100, .gid = 200, .ngroups = 1,
				 .groups = { 300 } };
	struct stat st = { .st_uid = 100, .st_gid = 1, .st_mode = 0400 };

	ck_assert(tfile_creds_may_read(&c, &st));
	st.st_mode = 0044;	/* owner bits rule for the owner */
	ck_assert(!tfile_creds_may_read(&c, &st));
	st.st_uid = 1;
	st.st_gid = 300;
	st.st_mode = 0040;
	ck_assert(tfile_creds_may_read(&c, &st));
	st.st_gid = 200;
	ck_assert(tfile_creds_may_read(&c, &st));
	st.st_mode = 0604;	/* group bits rule for the group */
	ck_assert(!tfile_creds_may_read(&c, &st));
	st.st_gid = 2;
	ck_assert(tfile_creds_may_read(&c, &st));
	st.st_mode = 0600;
	ck_assert(!tfile_creds_may_read(&c, &st));
	c.uid = 0;
	ck_assert(tfile_creds_may_read(&c, &st));
}
END_TEST

START_TEST(test_confined)
{
	struct tfile_root *r = tfile_root_dir(tmpdir);
	char *s;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(symlink("/etc/secret", tpath("/abs")), 0);
	ck_assert_int_eq(symlink("../../../../etc/secret", tpath("/etc/up")),
			 0);
	ck_assert_int_eq(symlink("/proc/self/root/etc/secret",
				 tpath("/magic")), 0);
	s = slurp(r, "/etc/secret", 100);
	ck_assert_str_eq(s, "inside\n");
	free(s);
	/* An absolute symlink and ".." past the root: the root's file. */
	s = slurp(r, "/abs", 100);
	ck_assert_str_eq(s, "inside\n");
	free(s);
	s = slurp(r, "/etc/up", 100);
	ck_assert_str_eq(s, "inside\n");
	free(s);
	s = slurp(r, "/../../etc/secret", 100);
	ck_assert_str_eq(s, "inside\n");
	free(s);
	/* No /proc inside: the link leads nowhere. */
	errno = 0;
	ck_assert_ptr_null(slurp(r, "/magic", 100));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(slurp(r, "etc/secret", 100));
	ck_assert_int_eq(errno, EINVAL);
	tfile_root_destroy(r);

	/* From the host's root, a magic link of /proc is refused. */
	r = tfile_root_dir("/");
	ck_assert_ptr_nonnull(r);
	errno = 0;
	ck_assert_int_eq(tfile_open(r, "/proc/self/root/etc/hostname", 1 << 20,
				    NULL), -1);
	ck_assert_int_eq(errno, ELOOP);
	tfile_root_destroy(r);
}
END_TEST

START_TEST(test_not_regular)
{
	struct tfile_root *r = tfile_root_dir(tmpdir);
	struct timespec t0, t1;
	int fd;

	ck_assert_int_eq(mkfifo(tpath("/fifo"), 0666), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	ck_assert_int_eq(tfile_open(r, "/fifo", 100, NULL), -1);
	ck_assert_int_eq(errno, ENOEXEC);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 2);	/* never blocks */
	errno = 0;
	ck_assert_int_eq(tfile_open(r, "/etc", 100, NULL), -1);
	ck_assert_int_eq(errno, ENOEXEC);
	tfile_root_destroy(r);

	/* A device is refused before it is opened. */
	r = tfile_root_dir("/");
	errno = 0;
	ck_assert_int_eq(tfile_open(r, "/dev/null", 100, NULL), -1);
	ck_assert_int_eq(errno, ENOEXEC);
	/* A regular file of /proc: size 0, read to the cap at most. */
	fd = tfile_open(r, "/proc/self/maps", 100, NULL);
	ck_assert_int_ge(fd, 0);
	errno = 0;
	ck_assert_ptr_null(tfile_read_all(fd, 16, NULL));
	ck_assert_int_eq(errno, EFBIG);
	close(fd);
	tfile_root_destroy(r);
}
END_TEST

START_TEST(test_cap)
{
	struct tfile_root *r = tfile_root_dir(tmpdir);
	struct stat st;
	char *s;
	size_t len;
	int fd;

	fd = open(tpath("/sparse"), O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 2ll << 30), 0);	/* 2 GiB of holes */
	close(fd);
	errno = 0;
	ck_assert_int_eq(tfile_open(r, "/sparse", TFILE_CAP_ELF, NULL), -1);
	ck_assert_int_eq(errno, EFBIG);
	fd = tfile_open(r, "/etc/secret", 7, &st);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(st.st_size, 7);
	s = tfile_read_all(fd, 7, &len);
	ck_assert_uint_eq(len, 7);
	ck_assert_str_eq(s, "inside\n");
	free(s);
	errno = 0;
	ck_assert_ptr_null(tfile_read_all(fd, 6, NULL));
	ck_assert_int_eq(errno, EFBIG);
	close(fd);
	errno = 0;
	ck_assert_int_eq(tfile_open(r, "/etc/secret", 6, NULL), -1);
	ck_assert_int_eq(errno, EFBIG);
	tfile_root_destroy(r);
}
END_TEST

/* A child running as nobody until killed; its pid. */
static pid_t
nobody_child(void)
{
	int p[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 ||
		    setuid(65534) < 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

START_TEST(test_target_rights)
{
	struct tfile_root *r;
	char *s;
	pid_t pid;
	int fd;

	if (geteuid() != 0) {
		fprintf(stderr, "check_tfile: not root: the rights of another "
				"user are not tested\n");
		return;
	}
	ck_assert_int_eq(mkdir(tpath("/closed"), 0700), 0);
	put("/closed/open", "open file in a closed directory\n", 0644);
	put("/etc/root-only", "root's\n", 0600);
	put("/etc/world", "anyone's\n", 0644);
	pid = nobody_child();
	r = tfile_root_pid(pid);
	ck_assert_ptr_nonnull(r);
	/* Through the child's root, which is ours: the full host path. */
	s = slurp(r, tpath("/etc/world"), 100);
	ck_assert_str_eq(s, "anyone's\n");
	free(s);
	errno = 0;
	ck_assert_ptr_null(slurp(r, tpath("/etc/root-only"), 100));
	ck_assert_int_eq(errno, EACCES);
	errno = 0;
	ck_assert_ptr_null(slurp(r, tpath("/closed/open"), 100));
	ck_assert_int_eq(errno, EACCES);
	/* Our own rights are back: root reads both. */
	ck_assert_uint_eq(syscall(SYS_setfsuid, -1), 0);
	fd = open(tpath("/etc/root-only"), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = open(tpath("/closed/open"), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	close(fd);

	/* After the child is gone: its last rights still rule. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	errno = 0;
	ck_assert_ptr_null(slurp(r, tpath("/etc/root-only"), 100));
	ck_assert_int_eq(errno, EACCES);
	s = slurp(r, tpath("/etc/world"), 100);
	ck_assert_str_eq(s, "anyone's\n");
	free(s);
	tfile_root_destroy(r);
}
END_TEST

START_TEST(test_mapped)
{
	struct tfile_root *r = tfile_root_pid(getpid());
	struct stat st;
	void *m;
	int fd;

	ck_assert_ptr_nonnull(r);
	fd = open(tpath("/etc/secret"), O_RDONLY);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	close(fd);
	/* Replaced under its name: map_files still has the mapped one. */
	put("/etc/new", "replaced\n", 0644);
	ck_assert_int_eq(rename(tpath("/etc/new"), tpath("/etc/secret")), 0);
	fd = tfile_open_mapped(r, (uintptr_t)m, (uintptr_t)m + 4096, 100,
			       &st);
	if (fd < 0 && errno == EPERM) {
		fprintf(stderr, "check_tfile: map_files needs CAP_SYS_ADMIN\n");
	} else {
		char *s;

		ck_assert_int_ge(fd, 0);
		s = tfile_read_all(fd, 100, NULL);
		ck_assert_str_eq(s, "inside\n");
		free(s);
		close(fd);
	}
	munmap(m, 4096);
	tfile_root_destroy(r);
	r = tfile_root_dir(tmpdir);
	errno = 0;
	ck_assert_int_eq(tfile_open_mapped(r, 0, 4096, 100, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	tfile_root_destroy(r);
}
END_TEST

/* In a child: openat2 fails with err (a seccomp filter, as a container
 * runtime's may be); tfile_open() must fail too, never open the file
 * another way. Exit 0 when it did. */
static void
refused_openat2(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	struct tfile_root *r = tfile_root_dir(tmpdir);
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(2);
		errno = 0;
		if (tfile_open(r, "/etc/secret", 100, NULL) != -1)
			_exit(3);
		_exit(errno == err ? 0 : 4);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "openat2 refused with %d: child status %#x", err, st);
	tfile_root_destroy(r);
}

START_TEST(test_no_openat2)
{
	refused_openat2(ENOSYS);
	refused_openat2(EPERM);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("tfile");
	TCase *tc = tcase_create("tfile");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_creds_parse);
	tcase_add_test(tc, test_may_read);
	tcase_add_test(tc, test_confined);
	tcase_add_test(tc, test_not_regular);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_target_rights);
	tcase_add_test(tc, test_mapped);
	tcase_add_test(tc, test_no_openat2);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
