// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Target files: every file whose name the target chose is opened here,
 * inside the target's root, with the target's rights. Owns the root
 * directory and /proc/PID descriptors of a struct tfile_root.
 *
 * How a name is opened:
 * 1. openat2(root, name, O_PATH, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS):
 *    "..", absolute names and absolute symlinks stay inside the root; a
 *    /proc magic link is refused. With O_PATH nothing is opened yet: a
 *    device or a FIFO is never opened, so never blocks and has no side
 *    effect. glibc 2.36 has no wrapper, hence syscall(2); a kernel or a
 *    seccomp filter that refuses it (ENOSYS, EPERM) refuses the file:
 *    there is no fallback to open(2), which would follow the target's
 *    symlinks out of its root.
 * 2. fstat: a regular file, at most cap bytes.
 * 3. The O_PATH descriptor is reopened for reading through
 *    /proc/thread-self/fd: the same inode, now with a permission check.
 * Steps 1 and 3 run with the target's file system credentials (fsuid,
 * fsgid, supplementary groups), switched on this thread only with the
 * raw system calls (glibc's setgroups() would switch every thread), so
 * the kernel checks every directory on the way and the file itself as it
 * would for the target. Without the right to switch (rbflame running as
 * an ordinary user with CAP_SYS_PTRACE) the kernel checks rbflame's own
 * rights, and the file's mode bits must also let the target read it;
 * with a capability that bypasses permission checks and no way to
 * switch, the file is refused.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rbflame/error.h"
#include "rbflame/proc.h"
#include "rbflame/tfile.h"
#include "rbflame/xmalloc.h"

#define STATUS_MAX (64u << 10)	/* /proc/PID/status with 64k groups */

struct tfile_root {
	int rootfd;		/* O_PATH directory */
	int procfd;		/* /proc/PID, -1 for a directory root */
	bool own;		/* a directory root: rbflame's own rights */
	struct tfile_creds creds;	/* as read at creation */
};

/* ---- credentials --------------------------------------------------------- */

/* The fourth id of a "Uid:" or "Gid:" line: the file system one. */
static int
parse_fs_id(const char *line, unsigned long *id)
{
	const char *p = line;
	char *end;

	for (int i = 0; i < 4; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		errno = 0;
		*id = strtoul(p, &end, 10);
		if (end == p || errno || *id > UINT32_MAX - 1)
			return -1;
		p = end;
	}
	return 0;
}

static const char *
find_line(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, kl))
			return p + kl;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int
tfile_creds_parse(const char *status, struct tfile_creds *c)
{
	const char *uid = find_line(status, "Uid:");
	const char *gid = find_line(status, "Gid:");
	const char *groups = find_line(status, "Groups:");
	unsigned long u, g;

	memset(c, 0, sizeof(*c));
	if (!uid || !gid || !groups || parse_fs_id(uid, &u) < 0 ||
	    parse_fs_id(gid, &g) < 0) {
		errno = EINVAL;
		return -1;
	}
	c->uid = (uid_t)u;
	c->gid = (gid_t)g;
	for (const char *p = groups; *p && *p != '\n';) {
		unsigned long v;
		char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (end == p || errno || v > UINT32_MAX - 1) {
			errno = EINVAL;
			return -1;
		}
		p = end;
		if (c->ngroups == sizeof(c->groups) / sizeof(c->groups[0])) {
			/* Fewer groups: fewer rights, never more. */
			c->groups_cut = true;
			break;
		}
		c->groups[c->ngroups++] = (gid_t)v;
	}
	return 0;
}

static bool
in_groups(const struct tfile_creds *c, gid_t gid)
{
	if (c->gid == gid)
		return true;
	for (size_t i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

bool
tfile_creds_may_read(const struct tfile_creds *c, const struct stat *st)
{
	if (c->uid == 0)
		return true;
	if (st->st_uid == c->uid)
		return st->st_mode & S_IRUSR;
	if (in_groups(c, st->st_gid))
		return st->st_mode & S_IRGRP;
	return st->st_mode & S_IROTH;
}

/* The credentials of the process behind procfd, NUL-terminated status
 * read whole: 0, or -1 when it is gone. */
static int
read_creds(int procfd, struct tfile_creds *c)
{
	char *buf;
	size_t len;
	int fd, ret;

	fd = openat(procfd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	buf = tfile_read_all(fd, STATUS_MAX, &len);
	close(fd);
	if (!buf)
		return -1;
	ret = tfile_creds_parse(buf, c);
	free(buf);
	return ret;
}

/* This thread's credentials before a switch, to restore after. */
struct saved {
	uid_t fsuid;
	gid_t fsgid;
	int ngroups;
	gid_t *groups;
};

static uid_t
cur_fsuid(void)
{
	return (uid_t)syscall(SYS_setfsuid, (uid_t)-1);
}

static gid_t
cur_fsgid(void)
{
	return (gid_t)syscall(SYS_setfsgid, (gid_t)-1);
}

/* Whether this thread bypasses file permission checks. */
static bool
has_dac_override(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	uint32_t mask = 1u << CAP_DAC_OVERRIDE | 1u << CAP_DAC_READ_SEARCH;

	if (syscall(SYS_capget, &h, d) < 0)
		return true;	/* unknown: assume the worst */
	return d[0].effective & mask;
}

static bool
same_creds(const struct tfile_creds *c, const struct saved *s)
{
	if (c->uid != s->fsuid || c->gid != s->fsgid || c->groups_cut)
		return false;
	/* Our groups must be the target's, as sets. */
	for (int i = 0; i < s->ngroups; i++)
		if (!in_groups(c, s->groups[i]))
			return false;
	for (size_t i = 0; i < c->ngroups; i++) {
		int k;

		for (k = 0; k < s->ngroups; k++)
			if (s->groups[k] == c->groups[i])
				break;
		if (k == s->ngroups && c->groups[i] != s->fsgid)
			return false;
	}
	return true;
}

static void
restore(const struct saved *s)
{
	syscall(SYS_setfsuid, s->fsuid);
	syscall(SYS_setfsgid, s->fsgid);
	if (syscall(SYS_setgroups, (size_t)s->ngroups, s->groups) < 0 ||
	    cur_fsuid() != s->fsuid || cur_fsgid() != s->fsgid) {
		/* Running on with another user's rights would be a bug in
		 * every later file access: stop here. */
		error_msg("cannot restore file system credentials after reading a target's file");
		abort();
	}
}

/* What take_creds() did. */
enum took {
	TOOK_REFUSED = -1,	/* cannot: errno EACCES */
	TOOK_OWN,		/* kept ours: check the mode bits too */
	TOOK_SWITCHED,		/* took c's: restore() undoes */
	TOOK_SAME,		/* ours are c's already */
};

/*
 * Takes c's rights on this thread. When it cannot (no CAP_SETUID or
 * CAP_SETGID), keeps its own if they are no wider than an ordinary
 * user's: the kernel checks them, the caller checks c against the mode
 * bits; else refuses, since it could read what c cannot.
 */
static enum took
take_creds(const struct tfile_creds *c, struct saved *s)
{
	int n;

	s->fsuid = cur_fsuid();
	s->fsgid = cur_fsgid();
	n = (int)syscall(SYS_getgroups, 0, NULL);
	s->ngroups = n > 0 ? n : 0;
	s->groups = xmalloc((size_t)(s->ngroups ? s->ngroups : 1) *
			    sizeof(gid_t));
	if (s->ngroups &&
	    syscall(SYS_getgroups, s->ngroups, s->groups) != s->ngroups)
		s->ngroups = 0;
	if (same_creds(c, s))
		return TOOK_SAME;
	if (syscall(SYS_setgroups, c->ngroups, c->groups) < 0)
		goto cannot;
	syscall(SYS_setfsgid, c->gid);
	syscall(SYS_setfsuid, c->uid);
	if (cur_fsgid() != c->gid || cur_fsuid() != c->uid) {
		restore(s);
		goto cannot;
	}
	return TOOK_SWITCHED;
cannot:
	if (s->fsuid == 0 || has_dac_override()) {
		errno = EACCES;
		return TOOK_REFUSED;
	}
	return TOOK_OWN;
}

/* ---- roots --------------------------------------------------------------- */

struct tfile_root *
tfile_root_pid(pid_t pid)
{
	struct tfile_root *r = xcalloc(1, sizeof(*r));
	char path[PATH_MAX];
	int saved;

	r->rootfd = r->procfd = -1;
	snprintf(path, sizeof(path), "%s/%d", proc_dir, (int)pid);
	r->procfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->procfd < 0)
		goto fail;
	r->rootfd = openat(r->procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->rootfd < 0 || read_creds(r->procfd, &r->creds) < 0)
		goto fail;
	return r;
fail:
	saved = errno;
	tfile_root_destroy(r);
	errno = saved;
	return NULL;
}

struct tfile_root *
tfile_root_dir(const char *dir)
{
	struct tfile_root *r = xcalloc(1, sizeof(*r));

	r->procfd = -1;
	r->own = true;
	r->rootfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->rootfd < 0) {
		free(r);
		return NULL;
	}
	return r;
}

void
tfile_root_destroy(struct tfile_root *r)
{
	if (!r)
		return;
	if (r->rootfd >= 0)
		close(r->rootfd);
	if (r->procfd >= 0)
		close(r->procfd);
	free(r);
}

/* ---- opening ------------------------------------------------------------- */

static long
sys_openat2(int dirfd, const char *path, const struct open_how *how)
{
	return syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
}

/* Says once that openat2 is refused, the reason for every file then. */
static void
openat2_refused(int err)
{
	static bool said;

	if (said)
		return;
	said = true;
	error_msg("warning: openat2 is refused (%s): no file of the target is read (no symbols from its files, no DWARF, no sources); it needs Linux 5.6 and no seccomp filter against it",
		  strerror(err));
}

/* The O_PATH descriptor of a regular file, for reading: the reopen is
 * the permission check. */
static int
reopen(int pathfd, uint64_t cap, struct stat *st)
{
	char self[64];
	int fd;

	if (fstat(pathfd, st) < 0)
		return -1;
	if (!S_ISREG(st->st_mode)) {
		errno = ENOEXEC;
		return -1;
	}
	if ((uint64_t)st->st_size > cap) {
		errno = EFBIG;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/thread-self/fd/%d", pathfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) ||
	    (uint64_t)st->st_size > cap) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	return fd;
}

/* The rights files of r are opened with now: the process's own while it
 * lives, those it had last. */
static void
current_creds(const struct tfile_root *r, struct tfile_creds *c)
{
	if (read_creds(r->procfd, c) < 0)
		*c = r->creds;
}

int
tfile_open(const struct tfile_root *r, const char *path, uint64_t cap,
	   struct stat *stp)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct tfile_creds c;
	struct saved s = { 0 };
	enum took took = TOOK_SAME;
	struct stat st;
	int pathfd, fd = -1, err;

	if (!r || !path || path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	if (!r->own) {
		current_creds(r, &c);
		took = take_creds(&c, &s);
		if (took == TOOK_REFUSED) {
			free(s.groups);
			return -1;
		}
	}
	pathfd = (int)sys_openat2(r->rootfd, path, &how);
	if (pathfd < 0 && (errno == ENOSYS || errno == EPERM))
		openat2_refused(errno);
	if (pathfd >= 0) {
		fd = reopen(pathfd, cap, &st);
		err = errno;
		close(pathfd);
		errno = err;
	}
	err = errno;
	if (took == TOOK_SWITCHED)
		restore(&s);
	free(s.groups);
	if (fd >= 0 && took == TOOK_OWN && !tfile_creds_may_read(&c, &st)) {
		close(fd);
		fd = -1;
		err = EACCES;
	}
	if (fd < 0) {
		errno = err;
		return -1;
	}
	if (stp)
		*stp = st;
	return fd;
}

int
tfile_open_mapped(const struct tfile_root *r, uint64_t start, uint64_t end,
		  uint64_t cap, struct stat *stp)
{
	struct tfile_creds c;
	struct stat st;
	char name[64];
	int pathfd, fd, err;

	if (!r || r->procfd < 0) {
		errno = EINVAL;
		return -1;
	}
	/* Our own name for a mapping, not the target's: no resolution to
	 * confine. map_files wants CAP_SYS_ADMIN (or CHECKPOINT_RESTORE),
	 * which rbflame's own credentials carry and the target's may not:
	 * opened as rbflame, checked against the target's mode bits. */
	snprintf(name, sizeof(name), "map_files/%llx-%llx",
		 (unsigned long long)start, (unsigned long long)end);
	pathfd = openat(r->procfd, name, O_PATH | O_CLOEXEC);
	if (pathfd < 0)
		return -1;
	fd = reopen(pathfd, cap, &st);
	err = errno;
	close(pathfd);
	if (fd < 0) {
		errno = err;
		return -1;
	}
	current_creds(r, &c);
	if (!tfile_creds_may_read(&c, &st)) {
		close(fd);
		errno = EACCES;
		return -1;
	}
	if (stp)
		*stp = st;
	return fd;
}

char *
tfile_read_all(int fd, uint64_t cap, size_t *lenp)
{
	size_t len = 0, size = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (len == size) {
			if (size > cap) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			size = size ? size * 2 : 4096;
			if (size > cap + 1)
				size = cap + 1;
			buf = xrealloc(buf, size + 1);
		}
		n = pread(fd, buf + len, size - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > cap) {
			free(buf);
			errno = EFBIG;
			return NULL;
		}
	}
	buf = buf ? buf : xmalloc(1);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}
