// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * /proc parsing for one target: maps, threads and their names, the syscall
 * a thread is blocked in (and the table of those a stop would make fail),
 * the tracer, the target's root directory, and its thread ids as it sees
 * them from another PID namespace (the tid map).
 * Everything read here comes from the kernel, but a process can vanish
 * between two reads, so every function may fail with ESRCH or ENOENT.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/proc.h"
#include "rbflame/xmalloc.h"

const char *proc_dir = "/proc";

#define MAX_MAPS 1000000	/* bound on untrusted-size input */
#define TIDMAP_MAX 65536	/* threads of one process in a tid map */
#define TIDMAP_MISSED 64	/* ids remembered as missing */
#define TIDMAP_RETRY_NS 1000000000ull	/* look for those again after */

/* Reads a whole small /proc file; caller frees. */
static char *
slurp(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, len = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			if (cap >= (64u << 20)) {
				errno = EFBIG;
				goto fail;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
fail:
	{
		int err = errno;

		close(fd);
		free(buf);
		errno = err;
		return NULL;
	}
}

int
proc_maps_parse(const char *text, struct maps *out)
{
	size_t cap = 0;
	const char *p = text;

	out->v = NULL;
	out->n = 0;
	while (*p && out->n < MAX_MAPS) {
		const char *eol = strchr(p, '\n');
		size_t linelen = eol ? (size_t)(eol - p) : strlen(p);
		char line[PATH_MAX + 256];
		unsigned long long start, end, off, inode;
		char perms[8] = ""; /* "r" alone leaves [2] unset otherwise */
		int pathpos = 0;
		struct map *mp;

		if (linelen >= sizeof(line))
			linelen = sizeof(line) - 1;
		memcpy(line, p, linelen);
		line[linelen] = '\0';
		p = eol ? eol + 1 : p + linelen;
		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu %n", &start,
			   &end, perms, &off, &inode, &pathpos) < 5)
			continue;
		out->v = xgrowarray(out->v, &cap, out->n + 1, sizeof(*out->v));
		mp = &out->v[out->n++];
		mp->start = start;
		mp->end = end;
		mp->offset = off;
		mp->inode = inode;
		mp->prot = (perms[0] == 'r' ? PROT_READ : 0) |
			   (perms[1] == 'w' ? PROT_WRITE : 0) |
			   (perms[2] == 'x' ? PROT_EXEC : 0);
		mp->path = NULL;
		if (pathpos > 0 && line[pathpos]) {
			char *s = line + pathpos;
			size_t l = strlen(s);

			/* " (deleted)" marks a replaced file; keep the name. */
			if (l > 10 && !strcmp(s + l - 10, " (deleted)"))
				s[l - 10] = '\0';
			mp->path = xstrdup(s);
		}
	}
	return 0;
}

int
proc_maps_read(pid_t pid, struct maps *out)
{
	char path[64];
	char *text;
	int ret;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_dir, (int)pid);
	text = slurp(path, NULL);
	if (!text)
		return -1;
	ret = proc_maps_parse(text, out);
	free(text);
	return ret;
}

const struct map *
maps_find(const struct maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct map *mp = &m->v[mid];

		if (addr < mp->start)
			hi = mid;
		else if (addr >= mp->end)
			lo = mid + 1;
		else
			return mp;
	}
	return NULL;
}

void
maps_free(struct maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

int
proc_root_prefix(pid_t pid, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/root", proc_dir, (int)pid);
	n = readlink(path, buf, cap - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

const char *
proc_path_in_root(const char *root_prefix, const char *path)
{
	size_t pl = root_prefix ? strlen(root_prefix) : 0;

	if (!path || path[0] != '/' || pl <= 1 ||
	    strncmp(path, root_prefix, pl))
		return path;
	if (path[pl] == '/')
		return path + pl;
	return path[pl] == '\0' ? "/" : path;
}

int
proc_tasks(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	size_t cap = 0;

	*tids = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/%d/task", proc_dir, (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long t = strtol(de->d_name, &end, 10);

		if (*end || t <= 0)
			continue;
		*tids = xgrowarray(*tids, &cap, *n + 1, sizeof(**tids));
		(*tids)[(*n)++] = (pid_t)t;
	}
	closedir(d);
	return 0;
}

static int read_small(const char *path, char *buf, size_t cap);

int
proc_stat_ppid_parse(const char *line, pid_t *ppid)
{
	/* "PID (COMM) S PPID ...": comm may contain spaces and parentheses,
	 * the state follows the last ')'. */
	const char *p = strrchr(line, ')');
	char state;
	int v;

	if (!p || sscanf(p + 1, " %c %d", &state, &v) != 2 || v < 0) {
		errno = EINVAL;
		return -1;
	}
	*ppid = (pid_t)v;
	return 0;
}

int
proc_parents(struct proc_parent **v, size_t *n)
{
	DIR *d = opendir(proc_dir);
	struct dirent *de;
	size_t cap = 0;

	*v = NULL;
	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL && *n < PROC_PARENTS_MAX) {
		char path[64], buf[1024];
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		pid_t ppid;

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/stat", proc_dir, pid);
		/* Gone since readdir, or a kernel thread's odd line: skip. */
		if (read_small(path, buf, sizeof(buf)) < 0 ||
		    proc_stat_ppid_parse(buf, &ppid) < 0)
			continue;
		*v = xgrowarray(*v, &cap, *n + 1, sizeof(**v));
		(*v)[*n].pid = (pid_t)pid;
		(*v)[(*n)++].ppid = ppid;
	}
	closedir(d);
	return 0;
}

static int
read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

int
proc_thread_comm(pid_t pid, pid_t tid, char *buf, size_t cap)
{
	char path[96];
	int n;

	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", proc_dir, (int)pid,
		 (int)tid);
	n = read_small(path, buf, cap);
	if (n < 0) {
		buf[0] = '\0';
		return -1;
	}
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int
proc_cmdline(pid_t pid, char *buf, size_t cap)
{
	char path[64];
	int n;

	snprintf(path, sizeof(path), "%s/%d/cmdline", proc_dir, (int)pid);
	n = read_small(path, buf, cap);
	if (n < 0)
		return -1;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (int i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return 0;
}

/* The environment is read in pieces of this size, at most ENVIRON_MAX
 * bytes of it: a variable past that is not found. */
#define ENVIRON_CHUNK 4096
#define ENVIRON_MAX (1 << 20)

int
proc_environ_get(pid_t pid, const char *name, char *buf, size_t cap)
{
	char path[64], chunk[ENVIRON_CHUNK], entry[ENVIRON_CHUNK];
	size_t nl = strlen(name), el = 0, total = 0;
	bool skip = false;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/environ", proc_dir, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (total < ENVIRON_MAX &&
	       (n = read(fd, chunk, sizeof(chunk))) > 0) {
		total += (size_t)n;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] != '\0') {
				/* An entry longer than entry[] is not ours
				 * if its start does not match. */
				if (el < sizeof(entry) - 1)
					entry[el++] = chunk[i];
				else
					skip = true;
				continue;
			}
			entry[el] = '\0';
			if (!skip && el > nl && entry[nl] == '=' &&
			    !strncmp(entry, name, nl)) {
				close(fd);
				snprintf(buf, cap, "%s", entry + nl + 1);
				return 0;
			}
			el = 0;
			skip = false;
		}
	}
	close(fd);
	errno = ENOENT;
	return -1;
}

/* Finds "Key:\t..." in /proc/PID/status and parses its first number in
 * base (0: decimal, or hex with 0x). */
static int
status_field_base(pid_t pid, const char *key, int base, unsigned long *val)
{
	char path[64], buf[4096];
	size_t kl = strlen(key);
	char *p;

	snprintf(path, sizeof(path), "%s/%d/status", proc_dir, (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == ':') {
			*val = strtoul(p + kl + 1, NULL, base);
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}

static int
status_field(pid_t pid, const char *key, long *val)
{
	unsigned long v;

	if (status_field_base(pid, key, 10, &v) < 0)
		return -1;
	*val = (long)v;
	return 0;
}

int
proc_signal_disposition(pid_t pid, int sig)
{
	unsigned long ign, cgt;

	if (sig < 1 || sig > 64 ||
	    status_field_base(pid, "SigIgn", 16, &ign) < 0 ||
	    status_field_base(pid, "SigCgt", 16, &cgt) < 0)
		return -1;
	if (ign >> (sig - 1) & 1)
		return PROC_SIG_IGNORED;
	if (cgt >> (sig - 1) & 1)
		return PROC_SIG_CAUGHT;
	return PROC_SIG_DEFAULT;
}

int
proc_status_uid(pid_t pid, uid_t *uid)
{
	long v;

	if (status_field(pid, "Uid", &v) < 0)
		return -1;
	*uid = (uid_t)v;
	return 0;
}

int
proc_tracer_pid(pid_t pid, pid_t *tracer)
{
	long v;

	if (status_field(pid, "TracerPid", &v) < 0)
		return -1;
	*tracer = (pid_t)v;
	return 0;
}

int
proc_tgid(pid_t pid, pid_t *tgid)
{
	long v;

	if (status_field(pid, "Tgid", &v) < 0)
		return -1;
	*tgid = (pid_t)v;
	return 0;
}

int
proc_thread_state(pid_t pid, pid_t tid, char *state)
{
	char path[96], buf[1024];
	char *p;

	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", proc_dir, (int)pid,
		 (int)tid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	/* comm may contain spaces and parentheses: the state follows the
	 * last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2]) {
		errno = EINVAL;
		return -1;
	}
	*state = p[2];
	return 0;
}

int
proc_nspid_parse(const char *status, pid_t *ids, int max)
{
	const char *p = status;
	int n = 0;

	while (p && strncmp(p, "NSpid:", 6)) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return 0;
	p += 6;
	while (n < max) {
		char *end;
		long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		v = strtol(p, &end, 10);
		if (v <= 0 || v > INT_MAX)
			break;
		ids[n++] = (pid_t)v;
		p = end;
	}
	return n;
}

/* ---- tid map ---------------------------------------------------------- */

struct tidmap_entry {
	pid_t ns;		/* as the process sees it */
	pid_t host;		/* as /proc and ptrace see it */
};

struct proc_tidmap {
	pid_t pid;
	bool foreign;
	struct tidmap_entry *v;	/* sorted by ns */
	size_t n, cap;
	pid_t missed[TIDMAP_MISSED];
	size_t nmissed;
	uint64_t read_ns;	/* CLOCK_MONOTONIC of the last read */
	unsigned refreshes;
};

static uint64_t
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
tidmap_cmp(const void *a, const void *b)
{
	const struct tidmap_entry *x = a, *y = b;

	return (x->ns > y->ns) - (x->ns < y->ns);
}

static pid_t
tidmap_find(const struct proc_tidmap *m, pid_t ns)
{
	struct tidmap_entry key = { .ns = ns }, *e;

	if (!m->n)
		return 0;
	e = bsearch(&key, m->v, m->n, sizeof(*m->v), tidmap_cmp);
	return e ? e->host : 0;
}

/* The NSpid ids of the status file at path: how many, -1 if unreadable. */
static int
status_nspid(const char *path, pid_t *ids, int max)
{
	char buf[4096];

	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	return proc_nspid_parse(buf, ids, max);
}

int
proc_status_nspid(pid_t pid, pid_t *ids, int max)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/%d/status", proc_dir, (int)pid);
	return status_nspid(path, ids, max);
}

/* Reads the map again from the tasks' status files. */
static void
tidmap_read(struct proc_tidmap *m)
{
	char path[96];
	struct dirent *de;
	size_t k = 0;
	DIR *d;

	m->read_ns = monotonic_ns();
	m->refreshes++;
	snprintf(path, sizeof(path), "%s/%d/task", proc_dir, (int)m->pid);
	d = opendir(path);
	if (!d)
		return;		/* gone: keep what we had */
	m->n = 0;
	while ((de = readdir(d)) != NULL && m->n < TIDMAP_MAX) {
		pid_t ids[32];
		char *end;
		long t = strtol(de->d_name, &end, 10);
		int n;

		if (*end || t <= 0 || t > INT_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%d/task/%ld/status", proc_dir,
			 (int)m->pid, t);
		n = status_nspid(path, ids, 32);
		if (n < 1)
			continue;	/* exited meanwhile */
		m->v = xgrowarray(m->v, &m->cap, m->n + 1, sizeof(*m->v));
		m->v[m->n].ns = ids[n - 1];
		m->v[m->n].host = (pid_t)t;
		m->n++;
	}
	closedir(d);
	qsort(m->v, m->n, sizeof(*m->v), tidmap_cmp);
	/* Forget the missing ids that are there now. */
	for (size_t i = 0; i < m->nmissed; i++)
		if (!tidmap_find(m, m->missed[i]))
			m->missed[k++] = m->missed[i];
	m->nmissed = k;
}

struct proc_tidmap *
proc_tidmap_create(pid_t pid)
{
	struct proc_tidmap *m = xcalloc(1, sizeof(*m));
	char path[64];
	pid_t ids[32];

	m->pid = pid;
	snprintf(path, sizeof(path), "%s/%d/status", proc_dir, (int)pid);
	/* Unreadable (gone) or one id: nothing to map. */
	m->foreign = status_nspid(path, ids, 32) > 1;
	if (m->foreign)
		tidmap_read(m);
	return m;
}

bool
proc_tidmap_foreign(const struct proc_tidmap *m)
{
	return m->foreign;
}

pid_t
proc_tidmap_host(struct proc_tidmap *m, pid_t tid)
{
	bool missing = m->nmissed == TIDMAP_MISSED;
	pid_t host;

	if (tid <= 0)
		return 0;
	if (!m->foreign)
		return tid;
	host = tidmap_find(m, tid);
	if (host)
		return host;
	/* A new thread is read at once; an id known to be missing (an
	 * exited thread the VM still lists, one left from before a fork)
	 * reads /proc at most once a second, whatever asks for it. */
	for (size_t i = 0; i < m->nmissed && !missing; i++)
		missing = m->missed[i] == tid;
	if (missing && monotonic_ns() - m->read_ns < TIDMAP_RETRY_NS)
		return 0;
	tidmap_read(m);
	host = tidmap_find(m, tid);
	if (!host && m->nmissed < TIDMAP_MISSED) {
		bool known = false;

		for (size_t i = 0; i < m->nmissed; i++)
			known |= m->missed[i] == tid;
		if (!known)
			m->missed[m->nmissed++] = tid;
	}
	return host;
}

unsigned
proc_tidmap_refreshes(const struct proc_tidmap *m)
{
	return m->refreshes;
}

void
proc_tidmap_destroy(struct proc_tidmap *m)
{
	if (!m)
		return;
	free(m->v);
	free(m);
}

static const char *
skip_blanks(const char *q)
{
	while (*q == ' ' || *q == '\t')
		q++;
	return q;
}

/* Blanks, then an unsigned decimal of at most 19 digits (no overflow)
 * into *out; *p moves past it. -1, *p kept, when there is none. */
static int
parse_udec(const char **p, unsigned long long *out)
{
	const char *q = skip_blanks(*p);
	unsigned long long v = 0;
	int digits = 0;

	for (; *q >= '0' && *q <= '9'; q++) {
		if (++digits > 19)
			return -1;
		v = v * 10 + (unsigned)(*q - '0');
	}
	if (!digits)
		return -1;
	*out = v;
	*p = q;
	return 0;
}

/* As parse_udec(), with an optional '-'. */
static int
parse_dec(const char **p, long *out)
{
	const char *q = skip_blanks(*p);
	unsigned long long v;
	bool neg;

	neg = *q == '-';
	if (neg)
		q++;
	if (parse_udec(&q, &v) < 0 || v > (unsigned long long)LONG_MAX)
		return -1;
	*out = neg ? -(long)v : (long)v;
	*p = q;
	return 0;
}

/* Blanks, then a hex number with an optional 0x, at most 16 digits. */
static int
parse_hex(const char **p, unsigned long long *out)
{
	const char *q = skip_blanks(*p);
	unsigned long long v = 0;
	int digits = 0;

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	for (;; q++) {
		unsigned d;

		if (*q >= '0' && *q <= '9')
			d = (unsigned)(*q - '0');
		else if (*q >= 'a' && *q <= 'f')
			d = (unsigned)(*q - 'a') + 10;
		else if (*q >= 'A' && *q <= 'F')
			d = (unsigned)(*q - 'A') + 10;
		else
			break;
		if (++digits > 16)
			return -1;
		v = v << 4 | d;
	}
	if (!digits)
		return -1;
	*out = v;
	*p = q;
	return 0;
}

int
proc_schedstat_parse(const char **p, unsigned long long v[3])
{
	for (int i = 0; i < 3; i++)
		if (parse_udec(p, &v[i]) < 0) {
			errno = EINVAL;
			return -1;
		}
	return 0;
}

int
proc_syscall_parse(const char *text, struct proc_syscall *out)
{
	unsigned long long v[8];
	const char *p = text;
	long nr;
	int n = 0;

	memset(out, 0, sizeof(*out));
	if (!strncmp(text, "running", 7)) {
		out->kind = PSC_RUNNING;
		return 0;
	}
	/* "NR 0xARG1 .. 0xARG6 0xSP 0xPC" or "-1 0xSP 0xPC", as the kernel
	 * prints it; parsed by hand: sscanf() was a tenth of the CPU of
	 * the syscall-file reads a server's ticks make. */
	if (parse_dec(&p, &nr) == 0) {
		n = 1;
		while (n < 9 && parse_hex(&p, &v[n - 1]) == 0)
			n++;
	}
	if (n == 3 && nr == -1) {
		out->kind = PSC_USER;
		out->nr = -1;
		out->sp = v[0];
		out->pc = v[1];
		return 0;
	}
	if (n == 9 && nr >= 0) {
		out->kind = PSC_BLOCKED;
		out->nr = nr;
		for (int i = 0; i < 6; i++)
			out->args[i] = v[i];
		out->sp = v[6];
		out->pc = v[7];
		return 0;
	}
	out->kind = PSC_UNKNOWN;
	errno = EINVAL;
	return -1;
}

int
proc_syscall_read_fd(int fd, struct proc_syscall *out)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0) {
		if (n == 0)
			errno = ESRCH;
		out->kind = PSC_UNKNOWN;
		return -1;
	}
	buf[n] = '\0';
	return proc_syscall_parse(buf, out);
}

/* A schedstat file's three fields, "RUN_NS WAIT_NS SLICES\n", read
 * through fd at 0. */
static int
schedstat_fields(int fd, unsigned long long v[3])
{
	char buf[128];
	const char *p = buf;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0) {
		if (n == 0)
			errno = ESRCH;
		return -1;
	}
	buf[n] = '\0';
	return proc_schedstat_parse(&p, v);
}

int
proc_schedstat_read(int fd, uint64_t *run_ns, uint64_t *slices)
{
	unsigned long long v[3];

	if (schedstat_fields(fd, v) < 0)
		return -1;
	*run_ns = v[0];
	if (slices)
		*slices = v[2];
	return 0;
}

int
proc_run_delay(pid_t pid, uint64_t *wait_ns)
{
	char path[64];
	unsigned long long v[3];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%d/schedstat", proc_dir, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = schedstat_fields(fd, v);
	close(fd);
	if (r == 0)
		*wait_ns = v[1];
	return r;
}

int
proc_schedstat_read_fd(int fd, uint64_t *run_ns)
{
	return proc_schedstat_read(fd, run_ns, NULL);
}

int
proc_cpu_pressure_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/pressure/cpu", proc_dir);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int
proc_cpu_pressure_parse(const char *text, uint64_t *some_us, double *avg10)
{
	const char *nl = strchr(text, '\n');
	const char *p = strstr(text, " total=");
	const char *a = strstr(text, " avg10=");
	char *end;
	unsigned long long v;
	double pct;

	if (strncmp(text, "some ", 5) != 0 || !p || (nl && p > nl) || !a ||
	    a > p)
		return -1;
	a += strlen(" avg10=");
	if (!isdigit((unsigned char)*a))
		return -1;
	pct = strtod(a, &end);
	if (*end != ' ' || pct < 0 || pct > 100)
		return -1;
	p += strlen(" total=");
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end != '\n' && *end != '\0' && *end != ' '))
		return -1;
	*some_us = v;
	if (avg10)
		*avg10 = pct;
	return 0;
}

int
proc_cpu_pressure_read(int fd, uint64_t *some_us, double *avg10)
{
	char buf[256];
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return proc_cpu_pressure_parse(buf, some_us, avg10);
}

/* x86_64 numbers (configure accepts no other host) for C libraries
 * older than these calls. */
#ifndef SYS_io_pgetevents
#define SYS_io_pgetevents 333
#endif
#ifndef SYS_io_uring_enter
#define SYS_io_uring_enter 426
#endif
#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

#define RULE(call, policy, why) \
	{ SYS_##call, #call, PROC_SYSCALL_##policy, why }
#define TIMEOUT_EINTR "-EINTR; a restart would wait its relative timeout anew"
#define RCVTIMEO "-EINTR under SO_RCVTIMEO, which /proc does not show"
#define SNDTIMEO "-EINTR under SO_SNDTIMEO, which /proc does not show; " \
		 "a blocked stream send returns what it sent so far"

/*
 * The blocking calls that a stop of ours makes fail: PTRACE_INTERRUPT,
 * or an ignored signal the kernel queues only because the process is
 * traced, wakes them and their wait ends with -EINTR instead of a
 * restart code, or restarts with its relative timeout from zero. Every
 * other call is restarted by the kernel after a stop without a handler.
 * The measurements, the calls reviewed and left out, and what is not
 * covered: doc/syscalls.md (check_proc keeps its table in step).
 */
static const struct proc_syscall_rule syscall_rules[] = {
	RULE(epoll_wait, NEVER_STOP, TIMEOUT_EINTR),
	RULE(epoll_pwait, NEVER_STOP, TIMEOUT_EINTR),
	RULE(epoll_pwait2, NEVER_STOP, TIMEOUT_EINTR),
	RULE(rt_sigtimedwait, NEVER_STOP, TIMEOUT_EINTR),
	RULE(semtimedop, NEVER_STOP, TIMEOUT_EINTR),
	RULE(io_getevents, NEVER_STOP, TIMEOUT_EINTR),
	RULE(io_pgetevents, NEVER_STOP,
	     "-ERESTARTNOHAND, but the restart waits its relative timeout "
	     "anew"),
	RULE(io_uring_enter, NEVER_STOP,
	     "-EINTR from the GETEVENTS wait, which may have a relative "
	     "timeout (IORING_ENTER_EXT_ARG)"),
	RULE(semop, REWRITE,
	     "-EINTR; no timeout and nothing done (all or none): a restart "
	     "is the same call"),
	RULE(accept, NEVER_STOP, RCVTIMEO),
	RULE(accept4, NEVER_STOP, RCVTIMEO),
	RULE(recvfrom, NEVER_STOP, RCVTIMEO),
	RULE(recvmsg, NEVER_STOP, RCVTIMEO),
	RULE(recvmmsg, NEVER_STOP, RCVTIMEO),
	RULE(connect, NEVER_STOP, SNDTIMEO),
	RULE(sendto, NEVER_STOP, SNDTIMEO),
	RULE(sendmsg, NEVER_STOP, SNDTIMEO),
	RULE(sendmmsg, NEVER_STOP, SNDTIMEO),
};

const struct proc_syscall_rule *
proc_syscall_rules(size_t *n)
{
	*n = sizeof(syscall_rules) / sizeof(*syscall_rules);
	return syscall_rules;
}

const struct proc_syscall_rule *
proc_syscall_rule(long nr)
{
	for (size_t i = 0; i < sizeof(syscall_rules) / sizeof(*syscall_rules);
	     i++)
		if (syscall_rules[i].nr == nr)
			return &syscall_rules[i];
	return NULL;
}

bool
proc_syscall_nonrestartable(long nr)
{
	return proc_syscall_rule(nr) != NULL;
}

/*
 * Calls whose fate at a stop depends on their fd: on a socket with
 * SO_RCVTIMEO (reads) or SO_SNDTIMEO (writes) the wait ends with -EINTR
 * (measured: read, readv, splice, write, sendfile), on a pipe or a socket
 * without a timeout the kernel restarts them. /proc shows no timeout, so
 * every such call on a socket is never stopped. The arguments that are
 * fds, as bits: 1 args[0], 2 args[1], 4 args[2].
 */
static const struct {
	long nr;
	unsigned fds;
} socket_calls[] = {
	{ SYS_read, 1 },   { SYS_readv, 1 },	{ SYS_write, 1 },
	{ SYS_writev, 1 }, { SYS_sendfile, 3 }, { SYS_splice, 5 },
};

/* Whether fd of process pid is a socket: /proc/PID/fd/N reads
 * "socket:[INODE]". */
static bool
fd_is_socket(pid_t pid, uint64_t fd)
{
	char path[64], link[32];
	ssize_t n;

	if (fd > INT32_MAX)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fd/%" PRIu64, (int)pid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return strncmp(link, "socket:[", 8) == 0;
}

bool
proc_syscall_fd_dependent(long nr)
{
	for (size_t i = 0; i < sizeof(socket_calls) / sizeof(*socket_calls);
	     i++)
		if (socket_calls[i].nr == nr)
			return true;
	return false;
}

bool
proc_syscall_never_stop(pid_t pid, const struct proc_syscall *sc)
{
	if (sc->kind != PSC_BLOCKED)
		return false;
	if (proc_syscall_nonrestartable(sc->nr))
		return true;
	for (size_t i = 0; i < sizeof(socket_calls) / sizeof(*socket_calls);
	     i++) {
		if (socket_calls[i].nr != sc->nr)
			continue;
		for (unsigned a = 0; a < 3; a++)
			if ((socket_calls[i].fds & (1u << a)) &&
			    fd_is_socket(pid, sc->args[a]))
				return true;
		return false;
	}
	return false;
}
