// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * A thread's context switches from a perf event's ring buffer
 * (include/rbflame/switchlog.h). The ring is the kernel's, mapped
 * writable so that the tail we move frees room: no record is
 * overwritten, one that finds no room is dropped and counted, and the
 * kernel writes a PERF_RECORD_LOST before the next one that fits.
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/switchlog.h"
#include "rbflame/xmalloc.h"

/* Data pages of a ring (a power of two): one holds 256 switches of 16
 * bytes, some 25 ticks of a thread switching 1,000 times a second. A
 * thread that fills it between two looks is no idle one. */
#define RING_PAGES 1
/* Room under which a record may have found none: a SWITCH record is 16
 * bytes, a LOST one 32. */
#define RING_SLACK 64

struct switchlog {
	int fd;
	void *map;
	size_t map_len;
	struct perf_event_mmap_page *page;
	const unsigned char *data;
	uint64_t size;		/* data bytes */
	uint64_t tail;		/* what we took, as data_tail says */
	struct switchlog_view v;
	uint64_t records, lost;
};

struct switchlog *
switchlog_open(pid_t tid)
{
	struct perf_event_attr a;
	struct switchlog *l;
	long pg = sysconf(_SC_PAGESIZE);
	int fd;
	void *m;

	if (pg <= 0)
		pg = 4096;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.context_switch = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TIME;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	/* Nobody waits on the fd: wake no one before the ring is full. */
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(RING_PAGES * pg);
	fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return NULL;
	m = mmap(NULL, (size_t)(1 + RING_PAGES) * (size_t)pg,
		 PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	l = xcalloc(1, sizeof(*l));
	l->fd = fd;
	l->map = m;
	l->map_len = (size_t)(1 + RING_PAGES) * (size_t)pg;
	l->page = m;
	l->data = (const unsigned char *)m + pg;
	l->size = (uint64_t)RING_PAGES * (uint64_t)pg;
	l->tail = __atomic_load_n(&l->page->data_tail, __ATOMIC_RELAXED);
	l->v.state = SWL_UNKNOWN;
	return l;
}

void
switchlog_close(struct switchlog *l)
{
	if (!l)
		return;
	munmap(l->map, l->map_len);
	close(l->fd);
	free(l);
}

/* n bytes of the ring from position at, across its end if need be. */
static void
ring_copy(const struct switchlog *l, uint64_t at, void *out, size_t n)
{
	uint64_t off = at & (l->size - 1);
	size_t first = n;

	if (off + n > l->size)
		first = (size_t)(l->size - off);
	memcpy(out, l->data + off, first);
	if (first < n)
		memcpy((unsigned char *)out + first, l->data, n - first);
}

static void
forget(struct switchlog *l)
{
	l->v = (struct switchlog_view){ .state = SWL_UNKNOWN };
}

/* Takes the records written since the last look, oldest first. */
static void
take(struct switchlog *l)
{
	uint64_t head = __atomic_load_n(&l->page->data_head,
					__ATOMIC_ACQUIRE);
	uint64_t tail = l->tail;
	bool full;

	if (head == tail)
		goto seq;
	if (head - tail > l->size) {
		/* Not a ring the kernel keeps: start over at its head. */
		forget(l);
		l->lost++;
		tail = head;
		goto done;
	}
	/* Too little room left for one more record since the last look:
	 * one may have been dropped after the last written, and no LOST
	 * record says so until the next one fits. */
	full = l->size - (head - tail) < RING_SLACK;
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint64_t w[2];

		ring_copy(l, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			forget(l);
			l->lost++;
			tail = head;
			break;
		}
		if (h.type == PERF_RECORD_SWITCH && h.size >= 16) {
			ring_copy(l, tail + sizeof(h), w, 8);
			l->records++;
			if (h.misc & PERF_RECORD_MISC_SWITCH_OUT) {
				l->v.state = SWL_OFF;
				l->v.off_since = w[0] ? w[0] : 1;
				l->v.preempted =
				    (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
			} else {
				l->v = (struct switchlog_view){
					.state = SWL_ON
				};
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= 24) {
			/* u64 id, u64 lost */
			ring_copy(l, tail + sizeof(h), w, 16);
			l->lost += w[1] ? w[1] : 1;
			forget(l);
		}
		tail += h.size;
	}
	if (full) {
		forget(l);
		l->lost++;
	}
done:
	l->tail = tail;
	__atomic_store_n(&l->page->data_tail, tail, __ATOMIC_RELEASE);
seq:
	l->v.seq = l->records + l->lost;
}

void
switchlog_view(struct switchlog *l, struct switchlog_view *out)
{
	take(l);
	*out = l->v;
}

void
switchlog_mark_off(struct switchlog *l, uint64_t since,
		   struct switchlog_view *out)
{
	uint64_t seq = out->seq;

	take(l);
	if (l->v.state == SWL_UNKNOWN && l->v.seq == seq && since)
		l->v = (struct switchlog_view){ .state = SWL_OFF,
						.off_since = since,
						.seq = seq };
	*out = l->v;
}

uint64_t
switchlog_records(const struct switchlog *l)
{
	return l->records;
}

uint64_t
switchlog_lost(const struct switchlog *l)
{
	return l->lost;
}
