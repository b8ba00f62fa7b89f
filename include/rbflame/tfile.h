/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Target files: the one way rbflame opens a file whose name the target
 * chose (a mapped ELF file, its debug files, the DWARF, a Ruby source).
 * The name is resolved inside the target's root with openat2's
 * RESOLVE_IN_ROOT, as the target's own file system credentials would
 * resolve it, and the result must be a regular file within a size cap.
 * rbflame often runs as root next to processes it does not trust: what
 * such a process names must never open a file it could not read itself,
 * leave its root, block on a FIFO, or make rbflame read gigabytes.
 * doc/security.md says what this guards against and what not.
 */
#ifndef RBFLAME_TFILE_H
#define RBFLAME_TFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Size caps, by what a file is for. */
#define TFILE_CAP_ELF (1ull << 30)	  /* a mapped object, a debug file */
#define TFILE_CAP_DEBUGLINK (256ull << 20) /* read whole for its CRC */
#define TFILE_CAP_SOURCE (16ull << 20)	  /* a Ruby source for annotate */
#define TFILE_CAP_PERFMAP (64ull << 20)  /* a JIT's perf map (perfmap.h) */

/** File system credentials: whose rights a file is opened with. */
struct tfile_creds {
	uid_t uid;		/* fsuid */
	gid_t gid;		/* fsgid */
	size_t ngroups;		/* supplementary groups */
	gid_t groups[256];	/* the first 256 of them */
	bool groups_cut;	/* there were more */
};

struct tfile_root;

/**
 * The files of process pid: its root directory (/proc/PID/root), opened
 * now and kept so that files can be opened after the process exits, and
 * its credentials (fsuid, fsgid, groups of /proc/PID/status), read again
 * at each open while the process lives. NULL with errno.
 * tfile_root_destroy() frees.
 */
struct tfile_root *tfile_root_pid(pid_t pid);

/**
 * A directory the user named (rbflame report --source-root DIR): files
 * are resolved inside it, opened with rbflame's own rights. NULL with
 * errno.
 */
struct tfile_root *tfile_root_dir(const char *dir);

void tfile_root_destroy(struct tfile_root *r);

/**
 * Opens path (absolute, as the target sees it) inside r's root for
 * reading: a descriptor (O_RDONLY, O_CLOEXEC, O_NONBLOCK) the caller
 * closes, its fstat in *st if st is not NULL. -1 with errno: ENOENT and
 * friends from the resolution, EXDEV when it would leave the root,
 * ENOEXEC when it is not a regular file, EFBIG when larger than cap,
 * EACCES when the target could not read it, ENOSYS or EPERM when the
 * kernel refuses openat2 (never retried without it).
 */
int tfile_open(const struct tfile_root *r, const char *path, uint64_t cap,
	       struct stat *st);

/**
 * The file mapped at [start, end) in r's process, through
 * /proc/PID/map_files (the contents it mapped, even when the name now
 * holds another file), with the same checks as tfile_open(). -1 with
 * errno for a tfile_root_dir() root.
 */
int tfile_open_mapped(const struct tfile_root *r, uint64_t start,
		      uint64_t end, uint64_t cap, struct stat *st);

/**
 * Reads fd (a tfile_open() descriptor) from offset 0 into a buffer of at
 * most cap bytes, NUL-terminated: the caller frees it. NULL with errno
 * (EFBIG when there is more than cap: a file under /proc or /sys may
 * hold more than its size says).
 */
char *tfile_read_all(int fd, uint64_t cap, size_t *len);

/**
 * Parses the Uid, Gid and Groups lines of /proc/PID/status text into c.
 * 0, or -1 with errno EINVAL when a line is missing.
 */
int tfile_creds_parse(const char *status, struct tfile_creds *c);

/** Whether c may read a file of st by its mode bits (no ACLs). */
bool tfile_creds_may_read(const struct tfile_creds *c,
			  const struct stat *st);

#endif
