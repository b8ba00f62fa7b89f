// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The recording backend (snapshot.h): forwards every read to another
 * backend and keeps the bytes it returned, widened to aligned granules,
 * in a sorted array of disjoint regions that snapshot_save() writes. It
 * owns its regions, never its inner backend.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/mem.h"
#include "rbflame/snapshot.h"
#include "rbflame/xmalloc.h"

#define GRANULE 64		/* divides the page size: never crosses one */

struct region {
	uint64_t addr;
	size_t len;
	size_t cap;
	unsigned char *data;
};

struct recorder {
	struct mem *inner;
	struct region *r;	/* sorted by addr, disjoint, never touching */
	size_t n, cap;
	uint64_t bytes;
	uint64_t dropped;
	unsigned char *tmp;	/* scratch for widened reads */
	size_t tmpcap;
};

static const struct mem_ops recorder_ops;

static uint64_t
region_end(const struct region *r)
{
	return r->addr + r->len;
}

/* First region ending at or after addr (so touching counts), or n. */
static size_t
first_reaching(const struct recorder *rec, uint64_t addr)
{
	size_t lo = 0, hi = rec->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (region_end(&rec->r[mid]) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keeps [addr, addr + len) with the bytes just read there. */
static void
keep(struct recorder *rec, uint64_t addr, const void *data, size_t len)
{
	uint64_t end = addr + len;
	size_t i = first_reaching(rec, addr), j = i;
	uint64_t ns, ne, old = 0, grow;
	struct region *first;
	unsigned char *buf;

	/* Regions i..j-1 overlap or touch [addr, end]. */
	while (j < rec->n && rec->r[j].addr <= end)
		old += rec->r[j++].len;
	if (i == j) {
		if (rec->bytes + len > SNAPSHOT_MAX_BYTES) {
			rec->dropped++;
			return;
		}
		rec->r = xgrowarray(rec->r, &rec->cap, rec->n + 1,
				    sizeof(*rec->r));
		memmove(&rec->r[i + 1], &rec->r[i],
			(rec->n - i) * sizeof(*rec->r));
		rec->n++;
		rec->r[i].addr = addr;
		rec->r[i].len = len;
		rec->r[i].cap = len;
		rec->r[i].data = xmalloc(len);
		memcpy(rec->r[i].data, data, len);
		rec->bytes += len;
		return;
	}
	first = &rec->r[i];
	ns = addr < first->addr ? addr : first->addr;
	ne = region_end(&rec->r[j - 1]);
	if (end > ne)
		ne = end;
	grow = (ne - ns) - old;
	if (grow > 0 && rec->bytes + grow > SNAPSHOT_MAX_BYTES) {
		rec->dropped++;
		return;
	}
	if (ns == first->addr) {
		/* Growing in place is the common case (a walk upwards):
		 * double the buffer so a long walk stays linear. */
		if (first->cap < ne - ns) {
			size_t cap = first->cap * 2;

			if (cap < ne - ns)
				cap = ne - ns;
			first->data = xrealloc(first->data, cap);
			first->cap = cap;
		}
		buf = first->data;
	} else {
		buf = xmalloc(ne - ns);
		memcpy(buf + (first->addr - ns), first->data, first->len);
		free(first->data);
		first->data = buf;
		first->cap = ne - ns;
	}
	for (size_t k = i + 1; k < j; k++) {
		memcpy(buf + (rec->r[k].addr - ns), rec->r[k].data,
		       rec->r[k].len);
		free(rec->r[k].data);
	}
	memcpy(buf + (addr - ns), data, len);
	first->addr = ns;
	first->len = ne - ns;
	memmove(&rec->r[i + 1], &rec->r[j], (rec->n - j) * sizeof(*rec->r));
	rec->n -= j - i - 1;
	rec->bytes += grow;
}

static int
recorder_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	struct recorder *rec = m->priv;
	uint64_t a0, a1;

	if (len == 0)
		return mem_read(rec->inner, addr, buf, len);
	if (addr + len < addr || len > SNAPSHOT_MAX_BYTES) {
		/* Wraps, or too large to keep: forward only. */
		if (mem_read(rec->inner, addr, buf, len) < 0)
			return -1;
		rec->dropped++;
		return 0;
	}
	/* Widen to aligned granules, so that a reader reading one more
	 * field next to this one still finds it in the snapshot. */
	a0 = addr & ~(uint64_t)(GRANULE - 1);
	a1 = (addr + len + GRANULE - 1) & ~(uint64_t)(GRANULE - 1);
	if (a1 > a0 && (a0 != addr || a1 != addr + len)) {
		size_t wl = a1 - a0;

		if (rec->tmpcap < wl) {
			rec->tmp = xrealloc(rec->tmp, wl);
			rec->tmpcap = wl;
		}
		if (mem_read(rec->inner, a0, rec->tmp, wl) == 0) {
			memcpy(buf, rec->tmp + (addr - a0), len);
			keep(rec, a0, rec->tmp, wl);
			return 0;
		}
	}
	if (mem_read(rec->inner, addr, buf, len) < 0)
		return -1;
	keep(rec, addr, buf, len);
	return 0;
}

static void
recorder_flush(struct mem *m)
{
	struct recorder *rec = m->priv;

	mem_flush(rec->inner);
}

static void
recorder_destroy(struct mem *m)
{
	struct recorder *rec = m->priv;

	for (size_t i = 0; i < rec->n; i++)
		free(rec->r[i].data);
	free(rec->r);
	free(rec->tmp);
	free(rec);
	free(m);
}

static const struct mem_ops recorder_ops = {
	.name = "recorder",
	.read = recorder_read,
	.flush = recorder_flush,
	.destroy = recorder_destroy,
};

struct mem *
snapshot_recorder_create(struct mem *inner)
{
	struct mem *m = xcalloc(1, sizeof(*m));
	struct recorder *rec = xcalloc(1, sizeof(*rec));

	rec->inner = inner;
	m->ops = &recorder_ops;
	m->priv = rec;
	return m;
}

/* m's recorder, or NULL with EINVAL when m is none. */
static struct recorder *
recorder_of(struct mem *m)
{
	if (!m || m->ops != &recorder_ops) {
		errno = EINVAL;
		return NULL;
	}
	return m->priv;
}

int
snapshot_recorder_stats(struct mem *m, struct snapshot_recorder_stats *out)
{
	struct recorder *rec = recorder_of(m);

	if (!rec)
		return -1;
	out->regions = rec->n;
	out->bytes = rec->bytes;
	out->dropped = rec->dropped;
	return 0;
}

int
snapshot_recorder_region(struct mem *m, size_t i, struct snapshot_region *out)
{
	struct recorder *rec = recorder_of(m);

	if (!rec)
		return -1;
	if (i >= rec->n) {
		errno = ENOENT;
		return -1;
	}
	out->addr = rec->r[i].addr;
	out->len = rec->r[i].len;
	out->data = rec->r[i].data;
	return 0;
}
