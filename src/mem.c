// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Target memory, live-process backend: process_vm_readv through a small
 * direct-mapped cache of aligned lines that is valid for one stop (the
 * sampler flushes it whenever the target may have run), with a
 * PTRACE_PEEKDATA fallback for kernels or targets where process_vm_readv
 * is refused. Owns nothing but its cache.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "rbflame/mem.h"
#include "rbflame/xmalloc.h"

#define LINE_SHIFT 9			/* 512-byte lines */
#define LINE_SIZE (1u << LINE_SHIFT)
#define NLINES_SHIFT 12
#define NLINES (1u << NLINES_SHIFT)	/* 2 MiB of cache */
#define PROBES 4			/* slots a line may take */
#define PREFETCH_MAX 1024		/* lines per prefetch (IOV_MAX) */
#define PREFETCH_FAULTS 8		/* unreadable lines skipped per prefetch */
#define TAG_PENDING 2			/* tag bit: slot chosen for the line
					 * in this prefetch (never valid) */
#define TAGS_SHIFT 8			/* owners of lines remembered */
#define TAGS (1u << TAGS_SHIFT)
#define TAG_LINES 32			/* lines remembered an owner */
#define LARGE_LINES 128			/* a large read served from the cache,
					 * or noted for the next prefetch:
					 * 64 KiB at most */

#define NO_OWNER 0xffff		/* a line read outside any owner's read */
#define PREFETCHED 0xfffe		/* fetched by a prefetch, not yet read */
#define MISS_MAX 256			/* lines read around the cache, a round */

/* A slot's tag, apart from its data (struct live's data, same index):
 * a line's PROBES slots lie side by side in two or three cache lines,
 * where with each tag beside its 512 bytes a lookup touched PROBES
 * cold lines of as many pages (the prefetches' lookups and the reads
 * around them were some 7% of rbflame's CPU on a loaded Puma, perf). */
struct line {
	uint64_t tag;			/* line address | 1 when valid */
	uint32_t gen;
	uint32_t noted;			/* the recording that noted it */
	uint32_t shared;		/* ... that saw two owners read it */
	uint16_t owner;			/* the first reader's slot (struct tag) */
};

struct live {
	pid_t pid;
	uint32_t gen;			/* bumped by flush: O(1) invalidation */
	int use_peek;			/* process_vm_readv refused (ENOSYS/EPERM) */
	/* The lines one sampling round fetched, recorded between
	 * mem_hot_begin() and mem_hot_end(); the next round fetches them
	 * all in one system call (mem_prefetch_hot()). */
	bool recording;
	bool cache_only;		/* mem_cache_only(): misses refused */
	uint64_t refused;		/* reads refused since it was set */
	uint32_t rec;			/* bumped by each mem_hot_begin() */
	uint64_t cur[PREFETCH_MAX], hot[PREFETCH_MAX];
	size_t ncur, nhot;
	/* The lines of that round two owners read (or one and a read of
	 * no owner): mem_hot_drop() keeps them. */
	uint64_t shared_cur[PREFETCH_MAX], shared[PREFETCH_MAX];
	size_t nshared_cur, nshared;
	/* The lines read around the cache, and their first readers. */
	uint64_t miss[MISS_MAX];
	uint16_t miss_owner[MISS_MAX];
	size_t nmiss;
	/* mem_hot_tag(): each owner's lines of its last read, and the
	 * lines mem_prefetch_tags() asked for the next prefetch. */
	struct tag {
		uint64_t key;
		uint8_t n;
		uint64_t lines[TAG_LINES];
	} tags[TAGS];
	struct tag *tag;		/* the owner being read, or NULL */
	uint64_t extra[PREFETCH_MAX];
	size_t nextra;
	struct line lines[NLINES];
	unsigned char data[NLINES][LINE_SIZE];
};

/* The bytes of the line in slot l. */
static unsigned char *
line_data(struct live *lv, const struct line *l)
{
	return lv->data[l - lv->lines];
}

/* A line this round reads, fetched or served from the cache (a line the
 * round found prefetched is hot for the next round too), noted once,
 * as the first owner's that read it; one a second owner reads is
 * shared. */
static void
note_tag(struct live *lv, uint64_t laddr)
{
	struct tag *t = lv->tag;

	if (t && t->n < TAG_LINES)
		t->lines[t->n++] = laddr;
}

static struct line *line_find(struct live *lv, uint64_t laddr);

static uint16_t
owner_now(const struct live *lv)
{
	return lv->tag ? (uint16_t)(lv->tag - lv->tags) : NO_OWNER;
}

static void
note_shared(struct live *lv, uint64_t laddr)
{
	if (lv->nshared_cur < PREFETCH_MAX)
		lv->shared_cur[lv->nshared_cur++] = laddr;
}

/*
 * Who reads laddr this round: false when it was noted already (then, if
 * by another owner, it is shared), true the first time, with owner set
 * as its reader's. The line's own fields say it for a line in the
 * cache; the lines read around the cache (few: the large reads of
 * stacks the cache missed) are looked up in the round's list of them.
 */
static bool
note_first(struct live *lv, struct line *l, uint64_t laddr)
{
	uint16_t owner = owner_now(lv), first = PREFETCHED;
	bool seen = false;

	if (l && l->noted == lv->rec) {
		seen = true;
		first = l->owner;
	} else {
		for (size_t i = 0; i < lv->nmiss; i++)
			if (lv->miss[i] == laddr) {
				seen = true;
				first = lv->miss_owner[i];
				break;
			}
	}
	if (seen && first == PREFETCHED) {
		/* Fetched by a prefetch of this round: the first read
		 * claims it, as its first reader. */
		if (l)
			l->owner = owner;
		note_tag(lv, laddr);
		return false;
	}
	if (seen) {
		if (first != owner && (!l || l->shared != lv->rec)) {
			if (l)
				l->shared = lv->rec;
			note_shared(lv, laddr);
		}
		return false;
	}
	if (l) {
		l->noted = lv->rec;
		l->owner = owner;
	}
	return true;
}

static void
note_line(struct live *lv, struct line *l, uint64_t laddr)
{
	if (!lv->recording || !note_first(lv, l, laddr))
		return;
	if (lv->ncur < PREFETCH_MAX)
		lv->cur[lv->ncur++] = laddr;
	note_tag(lv, laddr);
}

/* A line a prefetch of this round fetched: hot for the next round, its
 * owner the first that reads it. */
static void
note_prefetched(struct live *lv, struct line *l, uint64_t laddr)
{
	if (!lv->recording)
		return;
	l->noted = lv->rec;
	l->owner = PREFETCHED;
	if (lv->ncur < PREFETCH_MAX)
		lv->cur[lv->ncur++] = laddr;
}

/* A line this round needs that the cache does not hold (read around
 * the cache, or refused): the next round's prefetch fetches it. */
static void
note_missing(struct live *lv, uint64_t laddr)
{
	if (!lv->recording || !note_first(lv, line_find(lv, laddr), laddr))
		return;
	if (lv->nmiss < MISS_MAX) {
		lv->miss_owner[lv->nmiss] = owner_now(lv);
		lv->miss[lv->nmiss++] = laddr;
	}
	if (lv->ncur < PREFETCH_MAX)
		lv->cur[lv->ncur++] = laddr;
	note_tag(lv, laddr);
}

/* A read mem_cache_only() does not let reach the target. */
static int
refuse(struct live *lv)
{
	lv->refused++;
	errno = EAGAIN;
	return -1;
}

static int
peek_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	unsigned char *out = buf;
	uint64_t a = addr & ~7ull;
	size_t skip = addr - a;

	while (len > 0) {
		long w;
		size_t n;

		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, pid, (void *)a, NULL);
		if (errno)
			return -1;
		n = sizeof(w) - skip;
		if (n > len)
			n = len;
		memcpy(out, (unsigned char *)&w + skip, n);
		out += n;
		len -= n;
		a += sizeof(w);
		skip = 0;
	}
	return 0;
}

static int
raw_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	struct live *lv = m->priv;
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	m->stats.syscalls++;
	if (!lv->use_peek) {
		n = process_vm_readv(lv->pid, &local, 1, &remote, 1, 0);
		if (n == (ssize_t)len)
			return 0;
		if (n >= 0) {
			errno = EFAULT;	/* partial: the rest is unmapped */
			return -1;
		}
		if (errno != ENOSYS && errno != EPERM)
			return -1;
		lv->use_peek = 1;
	}
	return peek_read(lv->pid, addr, buf, len);
}

/*
 * The cache is set-associative over a hash of the address: a line may
 * sit in any of PROBES slots from its hash. Direct-mapped by address,
 * lines 2 MiB apart shared one slot, and Ruby 3.1 puts each thread's VM
 * stack on its native stack, one 2 MiB mapping a thread: with 50 threads
 * a round evicted its own lines, and a read served from the cache alone
 * was refused at every tick.
 */
static size_t
slot_of(uint64_t laddr)
{
	return (size_t)(((laddr >> LINE_SHIFT) * 0x9e3779b97f4a7c15ull) >>
			(64 - NLINES_SHIFT));
}

/* The slot holding laddr valid, or NULL. */
static struct line *
line_find(struct live *lv, uint64_t laddr)
{
	size_t s = slot_of(laddr);

	for (int p = 0; p < PROBES; p++) {
		struct line *l = &lv->lines[(s + p) % NLINES];

		if (l->tag == (laddr | 1) && l->gen == lv->gen)
			return l;
	}
	return NULL;
}

/* A slot to fill with laddr: one holding no valid line, or else the
 * first of its probes (evicted); NULL when laddr is already pending or
 * every probe is (a prefetch). */
static struct line *
line_claim(struct live *lv, uint64_t laddr)
{
	size_t s = slot_of(laddr);
	struct line *evict = NULL;

	for (int p = 0; p < PROBES; p++) {
		struct line *l = &lv->lines[(s + p) % NLINES];

		if (l->tag == (laddr | TAG_PENDING))
			return NULL;
		if (l->tag & TAG_PENDING)
			continue;
		if (!(l->tag & 1) || l->gen != lv->gen)
			return l;
		if (!evict)
			evict = l;
	}
	return evict;
}

static struct line *
line_get(struct mem *m, uint64_t laddr)
{
	struct live *lv = m->priv;
	struct line *l = line_find(lv, laddr);

	if (l) {
		m->stats.cache_hits++;
		note_line(lv, l, laddr);
		return l;
	}
	if (lv->cache_only) {
		note_missing(lv, laddr);
		refuse(lv);
		return NULL;
	}
	l = line_claim(lv, laddr);	/* never NULL: no prefetch runs */
	if (raw_read(m, laddr, line_data(lv, l), LINE_SIZE) < 0) {
		l->tag = 0;
		return NULL;
	}
	l->tag = laddr | 1;
	l->gen = lv->gen;
	l->noted = 0;			/* the slot may have held another line */
	l->shared = 0;
	note_line(lv, l, laddr);
	return l;
}

/*
 * A read of more than two lines (a whole control-frame array, the values
 * under it): served from the cache when a prefetch brought every line of
 * it, else read around the cache in one call, its lines noted for the
 * next round's prefetch (LARGE_LINES at most), so that a round fetches
 * the stacks with everything else, in one call, while the target is
 * stopped.
 */
static int
large_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	struct live *lv = m->priv;
	uint64_t first = addr & ~(uint64_t)(LINE_SIZE - 1);
	uint64_t last = (addr + len - 1) & ~(uint64_t)(LINE_SIZE - 1);
	bool fits = (last - first) / LINE_SIZE < LARGE_LINES, all = fits;
	unsigned char *out = buf;

	for (uint64_t la = first; all && la <= last; la += LINE_SIZE)
		all = line_find(lv, la) != NULL;
	if (!all) {
		for (uint64_t la = first; fits && la <= last; la += LINE_SIZE)
			note_missing(lv, la);
		if (lv->cache_only)
			return refuse(lv);
		return raw_read(m, addr, buf, len);
	}
	for (uint64_t la = first; la <= last; la += LINE_SIZE) {
		struct line *l = line_find(lv, la);
		size_t off = la < addr ? addr - la : 0;
		size_t n = LINE_SIZE - off;

		if (n > len)
			n = len;
		memcpy(out, line_data(lv, l) + off, n);
		out += n;
		len -= n;
		m->stats.cache_hits++;
		note_line(lv, l, la);
	}
	return 0;
}

static int
live_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	struct live *lv = m->priv;
	unsigned char *out = buf;

	if (len == 0)
		return 0;
	if (addr + len < addr) {
		errno = EFAULT;
		return -1;
	}
	if (len > 2 * LINE_SIZE)
		return large_read(m, addr, buf, len);
	while (len > 0) {
		uint64_t laddr = addr & ~(uint64_t)(LINE_SIZE - 1);
		size_t off = addr - laddr;
		size_t n = LINE_SIZE - off;
		struct line *l;

		if (n > len)
			n = len;
		l = line_get(m, laddr);
		if (!l && lv->cache_only)
			return -1;	/* refused */
		if (!l) {
			/* The line straddles an unmapped page: read exactly. */
			return raw_read(m, addr, out, len);
		}
		memcpy(out, line_data(lv, l) + off, n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

/*
 * One process_vm_readv over the n lines of local/remote (remote in
 * ascending order), resumed after each line it cannot read: the kernel
 * ends a call at the first remote vector that faults, having read those
 * before it, so one unmapped line must not cost the lines behind it.
 * Adjacent lines go in one remote vector: the kernel pins and locks per
 * remote vector, about 1 us each on a 2-vCPU VM (a 20-deep stack's 22
 * lines took 22 us as 22 vectors), and a stack's control frames and
 * environments lie side by side. Sets ok[i] for each line read. At most
 * PREFETCH_FAULTS faulting lines are skipped; the lines after the last
 * one are left unread. How many lines were read.
 */
static size_t
readv_resume(struct mem *m, pid_t pid, const struct iovec *local,
	     const struct iovec *remote, size_t n, bool *ok)
{
	struct iovec run[PREFETCH_MAX];
	size_t i = 0, nok = 0;
	int faults = 0;

	memset(ok, 0, n * sizeof(*ok));
	while (i < n) {
		size_t nrun = 0;
		ssize_t got;

		for (size_t j = i; j < n; j++) {
			struct iovec *last = nrun ? &run[nrun - 1] : NULL;

			if (last && (char *)last->iov_base + last->iov_len ==
					    (char *)remote[j].iov_base)
				last->iov_len += remote[j].iov_len;
			else
				run[nrun++] = remote[j];
		}
		m->stats.syscalls++;
		got = process_vm_readv(pid, local + i, n - i, run, nrun, 0);
		if (got < 0 && errno != EFAULT && errno != EIO)
			break;		/* ESRCH, EPERM...: no use going on */
		/* Whole lines read, in order; the first short one faulted
		 * (a line never straddles a page). */
		while (i < n && got >= (ssize_t)remote[i].iov_len) {
			got -= remote[i].iov_len;
			ok[i++] = true;
			nok++;
		}
		if (i == n || ++faults > PREFETCH_FAULTS)
			break;
		i++;			/* the faulting line: read on demand */
	}
	return nok;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The distinct lines of addrs[0..n), in address order, into want:
 * their count (PREFETCH_MAX at most). */
static size_t
lines_sorted(const uint64_t *addrs, size_t n, uint64_t *want)
{
	size_t nwant = 0, k = 0;

	for (size_t i = 0; i < n && nwant < PREFETCH_MAX; i++)
		if (addrs[i])
			want[nwant++] = addrs[i] & ~(uint64_t)(LINE_SIZE - 1);
	qsort(want, nwant, sizeof(*want), cmp_u64);
	for (size_t i = 0; i < nwant; i++)
		if (!k || want[k - 1] != want[i])
			want[k++] = want[i];
	return k;
}

static void
live_prefetch_sorted(struct mem *m, const uint64_t *want, size_t nwant);

static void
live_prefetch(struct mem *m, const uint64_t *addrs, size_t n)
{
	struct live *lv = m->priv;
	uint64_t want[PREFETCH_MAX];

	if (lv->use_peek)
		return;
	live_prefetch_sorted(m, want, lines_sorted(addrs, n, want));
}

/* live_prefetch() of lines already distinct and in address order. */
static void
live_prefetch_sorted(struct mem *m, const uint64_t *want, size_t nwant)
{
	struct live *lv = m->priv;
	struct iovec local[PREFETCH_MAX], remote[PREFETCH_MAX];
	struct line *lines[PREFETCH_MAX];
	bool ok[PREFETCH_MAX];
	size_t k = 0;

	/* Cache-only (a stop's fetch decoded after the resume): a fetch
	 * now would read the running target into what the reads take for
	 * the stop's moment; the lines it wanted are refused and noted
	 * as the reads ask for them. */
	if (lv->use_peek || lv->cache_only)
		return;
	/* In address order, each line once, for readv_resume() to join
	 * neighbours (lines_sorted(): sorted as a whole, since inserting
	 * each line in order cost a server's rounds of a few hundred lines
	 * 15% of rbflame's CPU). */
	for (size_t i = 0; i < nwant; i++) {
		uint64_t laddr = want[i];
		struct line *l;

		if (line_find(lv, laddr))
			continue;
		l = line_claim(lv, laddr);
		if (!l)
			continue;	/* no slot free */
		lines[k] = l;
		l->tag = laddr | TAG_PENDING;
		local[k].iov_base = line_data(lv, l);
		local[k].iov_len = LINE_SIZE;
		remote[k].iov_base = (void *)(uintptr_t)laddr;
		remote[k].iov_len = LINE_SIZE;
		k++;
	}
	if (k == 0)
		return;
	readv_resume(m, lv->pid, local, remote, k, ok);
	for (size_t j = 0; j < k; j++) {
		if (!ok[j]) {
			lines[j]->tag = 0;	/* not read: read on demand */
			continue;
		}
		lines[j]->tag = (uintptr_t)remote[j].iov_base | 1;
		lines[j]->gen = lv->gen;
		lines[j]->noted = 0;
		lines[j]->shared = 0;
		note_prefetched(lv, lines[j], (uintptr_t)remote[j].iov_base);
	}
}

static void
live_flush(struct mem *m)
{
	struct live *lv = m->priv;

	if (++lv->gen == 0) {
		/* Wrapped: make sure no stale line matches generation 0. */
		for (size_t i = 0; i < NLINES; i++)
			lv->lines[i].tag = 0;
		lv->gen = 1;
	}
}

static void
live_destroy(struct mem *m)
{
	free(m->priv);
	free(m);
}

static const struct mem_ops live_ops = {
	.name = "live",
	.read = live_read,
	.flush = live_flush,
	.prefetch = live_prefetch,
	.destroy = live_destroy,
};

struct mem *
mem_create_live(pid_t pid)
{
	struct mem *m = xcalloc(1, sizeof(*m));
	struct live *lv = xcalloc(1, sizeof(*lv));

	lv->pid = pid;
	lv->gen = 1;
	m->ops = &live_ops;
	m->priv = lv;
	return m;
}

int
mem_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	m->stats.reads++;
	if (m->ops->read(m, addr, buf, len) < 0) {
		m->stats.failures++;
		return -1;
	}
	return 0;
}

int
mem_read_u64(struct mem *m, uint64_t addr, uint64_t *out)
{
	return mem_read(m, addr, out, sizeof(*out));
}

ssize_t
mem_read_str(struct mem *m, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;

	if (cap == 0)
		return -1;
	/* Read in small chunks that do not cross a page, so a string that
	 * ends just before an unmapped page is still read. */
	while (got + 1 < cap) {
		uint64_t a = addr + got;
		size_t chunk = 64 - (a & 63);
		char *nul;

		if (chunk > cap - 1 - got)
			chunk = cap - 1 - got;
		if (mem_read(m, a, buf + got, chunk) < 0) {
			if (got == 0)
				return -1;
			break;
		}
		nul = memchr(buf + got, '\0', chunk);
		if (nul)
			return nul - buf;
		got += chunk;
	}
	buf[got] = '\0';
	return got;
}

void
mem_prefetch(struct mem *m, const uint64_t *addrs, size_t n)
{
	if (m && m->ops->prefetch && n)
		m->ops->prefetch(m, addrs, n);
}

void
mem_prefetch_ranges(struct mem *m, const struct mem_range *r, size_t n)
{
	struct live *lv;
	uint64_t want[PREFETCH_MAX];
	size_t k = 0;

	if (!m || m->ops != &live_ops)
		return;
	lv = m->priv;
	for (size_t i = 0; i < n; i++) {
		uint64_t first, last;

		if (!r[i].len || r[i].addr + r[i].len < r[i].addr)
			continue;
		first = r[i].addr & ~(uint64_t)(LINE_SIZE - 1);
		last = (r[i].addr + r[i].len - 1) & ~(uint64_t)(LINE_SIZE - 1);
		/* large_read() serves such a range from the cache only
		 * below LARGE_LINES lines; above, a fetch is wasted. */
		if ((last - first) / LINE_SIZE >= LARGE_LINES)
			continue;
		for (uint64_t la = first; la <= last && k < PREFETCH_MAX;
		     la += LINE_SIZE)
			if (!line_find(lv, la))
				want[k++] = la;
	}
	if (k)
		live_prefetch(m, want, k);
}

int
mem_peek_cached(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	struct live *lv;
	unsigned char *out = buf;

	if (!m || m->ops != &live_ops || addr + len < addr)
		return -1;
	lv = m->priv;
	while (len > 0) {
		uint64_t laddr = addr & ~(uint64_t)(LINE_SIZE - 1);
		size_t off = addr - laddr, chunk = LINE_SIZE - off;
		const struct line *l = line_find(lv, laddr);

		if (!l)
			return -1;
		if (chunk > len)
			chunk = len;
		memcpy(out, line_data(lv, l) + off, chunk);
		out += chunk;
		addr += chunk;
		len -= chunk;
	}
	return 0;
}

void
mem_hot_begin(struct mem *m)
{
	struct live *lv;

	if (!m || m->ops != &live_ops)
		return;
	lv = m->priv;
	lv->recording = true;
	lv->ncur = 0;
	lv->nshared_cur = 0;
	lv->nmiss = 0;
	if (++lv->rec == 0) {
		/* Wrapped: no line may look noted by this recording. */
		for (size_t i = 0; i < NLINES; i++)
			lv->lines[i].noted = lv->lines[i].shared = 0;
		lv->rec = 1;
	}
}

void
mem_hot_end(struct mem *m)
{
	struct live *lv;

	if (!m || m->ops != &live_ops)
		return;
	lv = m->priv;
	lv->recording = false;
	lv->tag = NULL;
	/* Sorted once here: a tick fetches the set twice (warm, then
	 * stopped), and qsort() was 2% of a server's rbflame CPU. */
	lv->nhot = lines_sorted(lv->cur, lv->ncur, lv->hot);
	lv->nshared = lines_sorted(lv->shared_cur, lv->nshared_cur,
				   lv->shared);
}

void
mem_prefetch_warm(struct mem *m)
{
	struct live *lv;

	if (!m || m->ops != &live_ops)
		return;
	lv = m->priv;
	live_prefetch_sorted(m, lv->hot, lv->nhot);
}

void
mem_prefetch_hot(struct mem *m)
{
	struct live *lv;

	if (!m || m->ops != &live_ops)
		return;
	lv = m->priv;
	if (lv->nextra) {
		/* One call for both: the woken owners' lines after the
		 * round's (live_prefetch() sorts, and fetches each once). */
		size_t k = lv->nhot;

		if (k > PREFETCH_MAX - lv->nextra)
			k = PREFETCH_MAX - lv->nextra;
		memmove(lv->extra + k, lv->extra, lv->nextra * sizeof(*lv->extra));
		memcpy(lv->extra, lv->hot, k * sizeof(*lv->extra));
		live_prefetch(m, lv->extra, k + lv->nextra);
		lv->nextra = 0;
		return;
	}
	mem_prefetch_warm(m);
}

static struct tag *
tag_slot(struct live *lv, uint64_t key)
{
	return &lv->tags[(key * 0x9e3779b97f4a7c15ull) >> (64 - TAGS_SHIFT)];
}

void
mem_hot_tag(struct mem *m, uint64_t key)
{
	struct live *lv;
	struct tag *t;

	if (!m || m->ops != &live_ops)
		return;
	lv = m->priv;
	if (!key || !lv->recording) {
		lv->tag = NULL;
		return;
	}
	/* Direct-mapped: a key takes its slot from whoever had it. */
	t = tag_slot(lv, key);
	t->key = key;
	t->n = 0;
	lv->tag = t;
}

void
mem_prefetch_tags(struct mem *m, const uint64_t *keys, size_t n)
{
	struct live *lv;

	if (!m || m->ops != &live_ops)
		return;
	lv = m->priv;
	lv->nextra = 0;
	for (size_t i = 0; i < n; i++) {
		const struct tag *t = tag_slot(lv, keys[i]);

		if (!keys[i] || t->key != keys[i])
			continue;
		for (uint8_t j = 0; j < t->n && lv->nextra < PREFETCH_MAX / 2; j++)
			lv->extra[lv->nextra++] = t->lines[j];
	}
}

size_t
mem_hot_drop(struct mem *m, const uint64_t *idle, size_t n)
{
	struct live *lv;
	bool gone[PREFETCH_MAX];
	size_t dropped = 0, out = 0;

	if (!m || m->ops != &live_ops)
		return 0;
	lv = m->priv;
	memset(gone, 0, lv->nhot * sizeof(*gone));
	for (size_t i = 0; i < n; i++) {
		const struct tag *t = tag_slot(lv, idle[i]);

		if (!idle[i] || t->key != idle[i])
			continue;
		for (uint8_t j = 0; j < t->n; j++) {
			const uint64_t *at = bsearch(&t->lines[j], lv->hot,
						     lv->nhot, sizeof(*at),
						     cmp_u64);

			if (!at || gone[at - lv->hot] ||
			    bsearch(&t->lines[j], lv->shared, lv->nshared,
				    sizeof(*at), cmp_u64))
				continue;
			gone[at - lv->hot] = true;
			dropped++;
		}
	}
	if (!dropped)
		return 0;
	for (size_t i = 0; i < lv->nhot; i++)
		if (!gone[i])
			lv->hot[out++] = lv->hot[i];
	lv->nhot = out;
	return dropped;
}

bool
mem_cache_only(struct mem *m, bool on)
{
	struct live *lv;

	if (!m || m->ops != &live_ops)
		return false;
	lv = m->priv;
	/* PTRACE_PEEKDATA's targets have no prefetch to serve from. */
	if (on && lv->use_peek)
		return false;
	lv->cache_only = on;
	if (on)
		lv->refused = 0;
	return true;
}

uint64_t
mem_refused(const struct mem *m)
{
	const struct live *lv;

	if (!m || m->ops != &live_ops)
		return 0;
	lv = m->priv;
	return lv->cache_only ? lv->refused : 0;
}

void
mem_flush(struct mem *m)
{
	if (m && m->ops->flush)
		m->ops->flush(m);
}

void
mem_destroy(struct mem *m)
{
	if (m)
		m->ops->destroy(m);
}
