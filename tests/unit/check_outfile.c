// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Output files (src/outfile.c): a regular output appears only when
 * complete, with the mode of the file it replaces; an abort leaves the
 * old file and no temporary one; a symbolic link is never written
 * through (nor a hard link into); standard output, a FIFO and a device
 * are written as they are.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/outfile.h"

static char tmpdir[] = "/tmp/check_outfile.XXXXXX";

static const char *
tpath(const char *rel)
{
	static char buf[8][4096];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, rel);
	return buf[k];
}

static void
put(const char *rel, const char *text, mode_t mode)
{
	FILE *f = fopen(tpath(rel), "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(tpath(rel), mode), 0);
}

static char *
get(const char *rel)
{
	static char buf[4096];
	FILE *f = fopen(tpath(rel), "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of tmpdir, "." and ".." aside. */
static int
entries(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void
teardown(void)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	strcpy(tmpdir, "/tmp/check_outfile.XXXXXX");
}

START_TEST(test_new_file)
{
	struct outfile *o;
	struct stat st;
	mode_t um = umask(022);

	o = outfile_open(tpath("out.txt"));
	ck_assert_ptr_nonnull(o);
	fputs("profile\n", outfile_stream(o));
	/* Not there before the commit. */
	ck_assert_ptr_null(get("out.txt"));
	ck_assert_int_eq(outfile_commit(o), 0);
	ck_assert_str_eq(get("out.txt"), "profile\n");
	ck_assert_int_eq(stat(tpath("out.txt"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(entries(), 1);
	umask(um);
}
END_TEST

START_TEST(test_replace_keeps_mode)
{
	struct outfile *o;
	struct stat st, st2;

	put("out.txt", "old\n", 0640);
	ck_assert_int_eq(link(tpath("out.txt"), tpath("other")), 0);
	ck_assert_int_eq(stat(tpath("out.txt"), &st), 0);
	o = outfile_open(tpath("out.txt"));
	ck_assert_ptr_nonnull(o);
	fputs("new\n", outfile_stream(o));
	ck_assert_str_eq(get("out.txt"), "old\n");
	ck_assert_int_eq(outfile_commit(o), 0);
	ck_assert_str_eq(get("out.txt"), "new\n");
	ck_assert_int_eq(stat(tpath("out.txt"), &st2), 0);
	ck_assert_uint_eq(st2.st_mode & 07777, 0640);
	ck_assert_uint_eq(st2.st_uid, st.st_uid);
	/* A new inode: another name of the old file keeps its contents. */
	ck_assert_uint_ne(st2.st_ino, st.st_ino);
	ck_assert_str_eq(get("other"), "old\n");
	ck_assert_int_eq(entries(), 2);
}
END_TEST

START_TEST(test_abort_keeps_old)
{
	struct outfile *o;

	put("out.txt", "old\n", 0644);
	o = outfile_open(tpath("out.txt"));
	ck_assert_ptr_nonnull(o);
	fputs("half a profi", outfile_stream(o));
	fflush(outfile_stream(o));
	outfile_abort(o);
	ck_assert_str_eq(get("out.txt"), "old\n");
	ck_assert_int_eq(entries(), 1);
	/* A failed commit (a write error) too. */
	o = outfile_open(tpath("out.txt"));
	ck_assert_ptr_nonnull(o);
	fputs("x", outfile_stream(o));
	close(fileno(outfile_stream(o)));	/* the write will fail */
	errno = 0;
	ck_assert_int_eq(outfile_commit(o), -1);
	ck_assert_str_eq(get("out.txt"), "old\n");
	ck_assert_int_eq(entries(), 1);
}
END_TEST

START_TEST(test_symlink_refused)
{
	put("victim", "root's file\n", 0644);
	ck_assert_int_eq(symlink(tpath("victim"), tpath("link")), 0);
	ck_assert_int_eq(symlink(tpath("nowhere"), tpath("dangling")), 0);
	errno = 0;
	ck_assert_ptr_null(outfile_open(tpath("link")));
	ck_assert_int_eq(errno, ELOOP);
	errno = 0;
	ck_assert_ptr_null(outfile_open(tpath("dangling")));
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_str_eq(get("victim"), "root's file\n");
	ck_assert_ptr_null(get("nowhere"));
	ck_assert_int_eq(entries(), 3);
	errno = 0;
	ck_assert_ptr_null(outfile_open(tmpdir));
	ck_assert_int_eq(errno, EISDIR);
}
END_TEST

START_TEST(test_special)
{
	struct outfile *o;
	char buf[64];
	ssize_t n;
	int rd;

	/* A FIFO, with its reader: written directly. */
	ck_assert_int_eq(mkfifo(tpath("fifo"), 0600), 0);
	rd = open(tpath("fifo"), O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	o = outfile_open(tpath("fifo"));
	ck_assert_ptr_nonnull(o);
	fputs("through the fifo\n", outfile_stream(o));
	ck_assert_int_eq(outfile_commit(o), 0);
	n = read(rd, buf, sizeof(buf) - 1);
	ck_assert_int_eq(n, 17);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "through the fifo\n");
	close(rd);
	ck_assert_int_eq(entries(), 1);

	/* A device: /dev/null takes it all, /dev/full fails the commit. */
	o = outfile_open("/dev/null");
	ck_assert_ptr_nonnull(o);
	fputs("gone\n", outfile_stream(o));
	ck_assert_int_eq(outfile_commit(o), 0);
	o = outfile_open("/dev/full");
	ck_assert_ptr_nonnull(o);
	fputs("no room\n", outfile_stream(o));
	errno = 0;
	ck_assert_int_eq(outfile_commit(o), -1);
	ck_assert_int_eq(errno, ENOSPC);

	/* Standard output by name. */
	o = outfile_open("-");
	ck_assert_ptr_eq(outfile_stream(o), stdout);
	ck_assert_int_eq(outfile_commit(o), 0);
	o = outfile_open("/dev/stdout");
	ck_assert_ptr_eq(outfile_stream(o), stdout);
	outfile_abort(o);
	o = outfile_open("/dev/fd/2");
	ck_assert_ptr_nonnull(o);
	ck_assert_int_ne(fileno(outfile_stream(o)), 2);	/* a copy */
	outfile_abort(o);
	ck_assert_int_ge(fcntl(2, F_GETFD), 0);	/* still open */
}
END_TEST

START_TEST(test_relative)
{
	char cwd[4096];
	struct outfile *o;

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(tmpdir), 0);
	o = outfile_open("here.txt");
	ck_assert_ptr_nonnull(o);
	fputs("x\n", outfile_stream(o));
	ck_assert_int_eq(outfile_commit(o), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_str_eq(get("here.txt"), "x\n");
	errno = 0;
	ck_assert_ptr_null(outfile_open(tpath("missing/dir/out.txt")));
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("outfile");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_new_file);
	tcase_add_test(tc, test_replace_keeps_mode);
	tcase_add_test(tc, test_abort_keeps_old);
	tcase_add_test(tc, test_symlink_refused);
	tcase_add_test(tc, test_special);
	tcase_add_test(tc, test_relative);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
