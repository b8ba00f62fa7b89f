// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A JIT's perf map (/tmp/perf-PID.map) read for names of JIT code: the
 * ranges sorted by start, their names interned. Owns the ranges, the
 * names and the place in the file the next read starts at. The file is
 * the target's: every line is checked, every count capped (perfmap.h).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/intern.h"
#include "rbflame/perfmap.h"
#include "rbflame/tfile.h"
#include "rbflame/xmalloc.h"

/* A line longer than this is no perf map's: skipped. */
#define LINE_MAX_BYTES 4096
/* One read of the file's new bytes takes at most this much. */
#define READ_CHUNK (1u << 20)
/* A range larger than this is no JIT's code. */
#define RANGE_MAX (1ull << 32)

struct range {
	uint64_t start, end;
	const char *name; /* owned by names */
};

struct perfmap {
	const struct tfile_root *root; /* not owned */
	char *path;
	char tag[32];
	struct range *v;
	size_t n, cap;
	size_t nsorted; /* v[0, nsorted) is sorted */
	struct intern *names;
	uint64_t off; /* the file's bytes parsed so far */
	dev_t dev;
	ino_t ino;
	bool skipping; /* inside a line too long, until its newline */
	bool done;     /* capped or refused: read no more */
};

struct perfmap *
perfmap_create(const struct tfile_root *root, const char *path, const char *tag)
{
	struct perfmap *pm = xcalloc(1, sizeof(*pm));

	pm->root = root;
	pm->path = xstrdup(path);
	snprintf(pm->tag, sizeof(pm->tag), "%s", tag);
	pm->names = intern_create();
	return pm;
}

static int
range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool
hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (digits == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*p = s;
	*out = v;
	return digits > 0;
}

/* One line (no newline): "START SIZE NAME". */
static void
add_line(struct perfmap *pm, const char *s, const char *end)
{
	uint64_t start, size;
	char name[PERFMAP_NAME_MAX + 40];
	size_t len;

	if (pm->n >= PERFMAP_MAX_ENTRIES)
		return;
	if (!hex(&s, end, &start) || s >= end || *s != ' ')
		return;
	s++;
	if (!hex(&s, end, &size) || s >= end || *s != ' ')
		return;
	s++;
	if (!size || size > RANGE_MAX || start > UINT64_MAX - size)
		return;
	if (end - s > 6 && memcmp(s, "[JIT] ", 6) == 0)
		s += 6;
	len = (size_t)(end - s);
	if (len > PERFMAP_NAME_MAX)
		len = PERFMAP_NAME_MAX;
	if (!len)
		return;
	/* Control bytes would reach terminals and files: '?' instead. */
	snprintf(name, sizeof(name), "[%s] ", pm->tag);
	for (size_t i = 0, k = strlen(name); i < len; i++, k++)
		name[k] =
		    (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	name[strlen(pm->tag) + 3 + len] = '\0';
	pm->v = xgrowarray(pm->v, &pm->cap, pm->n + 1, sizeof(*pm->v));
	pm->v[pm->n++] = (struct range){
	    .start = start,
	    .end = start + size,
	    .name = intern_get(pm->names, intern_str(pm->names, name)),
	};
}

size_t
perfmap_add_text(struct perfmap *pm, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			break;
		if (pm->skipping)
			pm->skipping = false;
		else if (nl - p <= LINE_MAX_BYTES)
			add_line(pm, p, nl);
		p = nl + 1;
	}
	/* A line with no end yet longer than any line may be: skip it up
	 * to its newline, whenever that comes. */
	if (end - p > LINE_MAX_BYTES) {
		pm->skipping = true;
		p = end;
	}
	if (pm->nsorted < pm->n) {
		qsort(pm->v, pm->n, sizeof(*pm->v), range_cmp);
		pm->nsorted = pm->n;
	}
	return (size_t)(p - text);
}

/* Reads what the file holds past pm->off. */
static void
refresh(struct perfmap *pm)
{
	struct stat st;
	char *buf = NULL;
	int fd;

	if (!pm->root || pm->done)
		return;
	fd = tfile_open(pm->root, pm->path, TFILE_CAP_PERFMAP, &st);
	if (fd < 0) {
		/* Not there (yet, or no --yjit-perf): look again at the
		 * next miss. Too large: keep what was read. */
		if (errno == EFBIG)
			pm->done = true;
		return;
	}
	if (pm->off && (st.st_dev != pm->dev || st.st_ino != pm->ino ||
			(uint64_t)st.st_size < pm->off)) {
		/* Another file now (the JIT removes an old one as it
		 * starts): its ranges are another program's. */
		pm->n = pm->nsorted = 0;
		pm->off = 0;
		pm->skipping = false;
		intern_clear(pm->names);
	}
	pm->dev = st.st_dev;
	pm->ino = st.st_ino;
	while ((uint64_t)st.st_size > pm->off) {
		uint64_t want = (uint64_t)st.st_size - pm->off;
		ssize_t got;
		size_t used;

		if (want > READ_CHUNK)
			want = READ_CHUNK;
		if (!buf)
			buf = xmalloc(READ_CHUNK);
		got = pread(fd, buf, (size_t)want, (off_t)pm->off);
		if (got <= 0)
			break;
		used = perfmap_add_text(pm, buf, (size_t)got);
		if (!used && (size_t)got < READ_CHUNK)
			break; /* a line still being written */
		pm->off += used ? used : (uint64_t)got;
	}
	free(buf);
	close(fd);
}

static const char *
find(const struct perfmap *pm, uint64_t ip)
{
	size_t lo = 0, hi = pm->n;

	/* The last range starting at or below ip. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->v[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ip < pm->v[lo - 1].end)
		return pm->v[lo - 1].name;
	return NULL;
}

const char *
perfmap_lookup(struct perfmap *pm, uint64_t ip)
{
	const char *name = find(pm, ip);

	if (name)
		return name;
	refresh(pm);
	return find(pm, ip);
}

size_t
perfmap_count(const struct perfmap *pm)
{
	return pm->n;
}

void
perfmap_destroy(struct perfmap *pm)
{
	if (!pm)
		return;
	intern_destroy(pm->names);
	free(pm->v);
	free(pm->path);
	free(pm);
}
