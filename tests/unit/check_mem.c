// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The live memory backend: exact reads, the per-stop cache, failures. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rbflame/mem.h"

static char buffer[8192];

START_TEST(test_read_and_cache)
{
	struct mem *m = mem_create_live(getpid());
	char out[300];
	uint64_t w;

	for (size_t i = 0; i < sizeof(buffer); i++)
		buffer[i] = (char)(i * 7);
	ck_assert_int_eq(mem_read(m, (uintptr_t)buffer + 500, out, 300), 0);
	ck_assert(memcmp(out, buffer + 500, 300) == 0);
	/* Cached until flushed: the target may not change within a stop. */
	buffer[600] = 'X';
	ck_assert_int_eq(mem_read(m, (uintptr_t)buffer + 600, out, 1), 0);
	ck_assert_uint_gt(m->stats.cache_hits, 0);
	mem_flush(m);
	ck_assert_int_eq(mem_read(m, (uintptr_t)buffer + 600, out, 1), 0);
	ck_assert_int_eq(out[0], 'X');
	ck_assert_int_eq(mem_read_u64(m, (uintptr_t)buffer + 8, &w), 0);
	ck_assert(memcmp(&w, buffer + 8, 8) == 0);
	/* A large read bypasses the cache and still is exact. */
	{
		char *big = malloc(sizeof(buffer));

		ck_assert_int_eq(mem_read(m, (uintptr_t)buffer, big,
					  sizeof(buffer)), 0);
		ck_assert(memcmp(big, buffer, sizeof(buffer)) == 0);
		free(big);
	}
	mem_destroy(m);
}
END_TEST

START_TEST(test_failures)
{
	struct mem *m = mem_create_live(getpid());
	long pg = sysconf(_SC_PAGESIZE);
	char *two = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char out[64], s[32];

	ck_assert_ptr_ne(two, MAP_FAILED);
	memset(two, 'a', 2 * pg);
	memcpy(two + pg - 4, "end", 4);
	ck_assert_int_eq(munmap(two + pg, pg), 0);
	ck_assert_int_eq(mem_read(m, 8, out, 8), -1);
	ck_assert_int_eq(mem_read(m, UINT64_MAX - 2, out, 8), -1);
	/* A read that straddles into an unmapped page fails as a whole... */
	ck_assert_int_eq(mem_read(m, (uintptr_t)two + pg - 8, out, 16), -1);
	/* ...but what lies before the hole is still readable. */
	ck_assert_int_eq(mem_read(m, (uintptr_t)two + pg - 8, out, 8), 0);
	ck_assert_int_eq(mem_read_str(m, (uintptr_t)two + pg - 4, s,
				      sizeof(s)), 3);
	ck_assert_str_eq(s, "end");
	/* Unterminated up to the hole: truncated, not a crash. */
	memset(two, 'b', pg);
	mem_flush(m);
	ck_assert_int_eq(mem_read_str(m, (uintptr_t)two + pg - 10, s,
				      sizeof(s)), 10);
	ck_assert_uint_gt(m->stats.failures, 0);
	munmap(two, pg);
	mem_destroy(m);
	m = mem_create_live(0x3ffffff0);
	ck_assert_int_eq(mem_read(m, (uintptr_t)buffer, out, 8), -1);
	ck_assert_int_eq(errno, ESRCH);
	mem_destroy(m);
}
END_TEST

/* pages[0..n) of a fresh mapping with every odd page unmapped, each even
 * page filled with its number. */
static char *
holes(long pg, int n)
{
	char *p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	for (int i = 0; i < n; i++) {
		if (i % 2)
			ck_assert_int_eq(munmap(p + i * pg, pg), 0);
		else
			memset(p + i * pg, 'A' + i, pg);
	}
	return p;
}

/* A faulting vector ends a process_vm_readv: the prefetch resumes after
 * it, so the lines behind a hole are fetched in the same prefetch. */
START_TEST(test_prefetch_resumes)
{
	struct mem *m = mem_create_live(getpid());
	long pg = sysconf(_SC_PAGESIZE);
	char *p = holes(pg, 5);
	uint64_t addrs[5];
	uint64_t calls, hits;
	char c;

	for (int i = 0; i < 5; i++)
		addrs[i] = (uintptr_t)p + i * pg + 600;
	mem_prefetch(m, addrs, 5);
	/* Three calls: 0 (then the hole at 1), 2 (then 3), 4. */
	ck_assert_uint_eq(m->stats.syscalls, 3);
	calls = m->stats.syscalls;
	hits = m->stats.cache_hits;
	for (int i = 0; i < 5; i += 2) {
		ck_assert_int_eq(mem_read(m, addrs[i], &c, 1), 0);
		ck_assert_int_eq(c, 'A' + i);
	}
	ck_assert_uint_eq(m->stats.syscalls, calls);
	ck_assert_uint_eq(m->stats.cache_hits, hits + 3);
	/* The holes are left to the reads, which fail. */
	ck_assert_int_eq(mem_read(m, addrs[1], &c, 1), -1);
	ck_assert_int_eq(mem_read(m, addrs[3], &c, 1), -1);
	/* A flush forgets them all. */
	mem_flush(m);
	calls = m->stats.syscalls;
	ck_assert_int_eq(mem_read(m, addrs[4], &c, 1), 0);
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	for (int i = 0; i < 5; i += 2)
		munmap(p + i * pg, pg);
	mem_destroy(m);
}
END_TEST

/* Many holes: a prefetch gives up after a bounded number of faults, the
 * lines behind the last one are read on demand, correctly. */
START_TEST(test_prefetch_fault_bound)
{
	struct mem *m = mem_create_live(getpid());
	long pg = sysconf(_SC_PAGESIZE);
	enum { N = 40 };
	char *p = holes(pg, N);
	uint64_t addrs[N];
	uint64_t calls;
	int fetched = 0;
	char c;

	for (int i = 0; i < N; i++)
		addrs[i] = (uintptr_t)p + i * pg;
	mem_prefetch(m, addrs, N);
	ck_assert_uint_gt(m->stats.syscalls, 1);
	ck_assert_uint_lt(m->stats.syscalls, N / 2);
	for (int i = 0; i < N; i += 2) {
		calls = m->stats.syscalls;
		ck_assert_int_eq(mem_read(m, addrs[i], &c, 1), 0);
		ck_assert_int_eq(c, 'A' + i);
		fetched += m->stats.syscalls == calls;
	}
	/* The first lines came with the prefetch, the last did not. */
	ck_assert_int_gt(fetched, 2);
	ck_assert_int_lt(fetched, N / 2);
	for (int i = 0; i < N; i += 2)
		munmap(p + i * pg, pg);
	mem_destroy(m);
}
END_TEST

/* Adjacent lines go in one remote vector, given in any order; a vector
 * that runs into a hole reads the lines before it, and the prefetch
 * resumes behind it: every line served from the cache, exact. */
START_TEST(test_prefetch_joins)
{
	struct mem *m = mem_create_live(getpid());
	long pg = sysconf(_SC_PAGESIZE);
	int per = (int)(pg / 512), n = 0;
	char *p = holes(pg, 3);
	uint64_t addrs[64], calls;
	char c;

	/* Pages 0 and 2 line by line, last first, and the hole between. */
	for (int i = 2 * per - 1; i >= 0; i--)
		addrs[n++] = (uintptr_t)p + (i < per ? i : i + per) * 512 + 7;
	addrs[n++] = (uintptr_t)p + pg;
	mem_prefetch(m, addrs, n);
	ck_assert_uint_eq(m->stats.syscalls, 2);
	calls = m->stats.syscalls;
	for (int i = 0; i < n - 1; i++) {
		ck_assert_int_eq(mem_read(m, addrs[i], &c, 1), 0);
		ck_assert_int_eq(c, addrs[i] < (uintptr_t)p + pg ? 'A' : 'C');
	}
	ck_assert_uint_eq(m->stats.syscalls, calls);
	ck_assert_int_eq(mem_read(m, addrs[n - 1], &c, 1), -1);
	munmap(p, pg);
	munmap(p + 2 * pg, pg);
	mem_destroy(m);
}
END_TEST

/* Lines 2 MiB apart (Ruby's thread stacks lie 1 MiB apart) all stay in
 * the cache together: one prefetch, then every read a hit. */
START_TEST(test_lines_apart)
{
	struct mem *m = mem_create_live(getpid());
	enum { N = 8 };
	size_t step = 2u << 20;
	char *p = mmap(NULL, N * step, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t addrs[N], calls;
	char c;

	ck_assert_ptr_ne(p, MAP_FAILED);
	for (int i = 0; i < N; i++) {
		p[i * step] = (char)('a' + i);
		addrs[i] = (uintptr_t)p + i * step;
	}
	mem_prefetch(m, addrs, N);
	calls = m->stats.syscalls;
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < N; i++) {
			ck_assert_int_eq(mem_read(m, addrs[i], &c, 1), 0);
			ck_assert_int_eq(c, 'a' + i);
		}
	ck_assert_uint_eq(m->stats.syscalls, calls);
	munmap(p, N * step);
	mem_destroy(m);
}
END_TEST

/* What a round read, cache hits included, is what the next round
 * prefetches: round after round, one system call fetches it all. */
START_TEST(test_hot_lines)
{
	struct mem *m = mem_create_live(getpid());
	uint64_t a = (uintptr_t)buffer, b = (uintptr_t)buffer + 4096;
	uint64_t w, calls;

	mem_hot_begin(m);
	ck_assert_int_eq(mem_read_u64(m, a, &w), 0);
	ck_assert_int_eq(mem_read_u64(m, b, &w), 0);
	mem_hot_end(m);
	for (int round = 0; round < 3; round++) {
		mem_flush(m);
		calls = m->stats.syscalls;
		mem_prefetch_hot(m);
		mem_hot_begin(m);
		ck_assert_int_eq(mem_read_u64(m, a, &w), 0);
		ck_assert_int_eq(mem_read_u64(m, b, &w), 0);
		mem_hot_end(m);
		ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	}
	mem_destroy(m);
}
END_TEST

/*
 * A large read (three lines or more: a control-frame array) joins the
 * next round's prefetch and is then served from the cache; with
 * mem_cache_only() on, what the cache does not hold is refused (EAGAIN)
 * without reading the target, counted, and noted for the next prefetch,
 * which brings it; off, mem_refused() is 0 and reads go to the target.
 */
START_TEST(test_cache_only)
{
	struct mem *m = mem_create_live(getpid());
	static char big[4096] __attribute__((aligned(512)));
	char out[sizeof(big)], c;
	uint64_t calls;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 13);
	mem_hot_begin(m);
	ck_assert_int_eq(mem_read(m, (uintptr_t)big + 100, out, 2000), 0);
	ck_assert(memcmp(out, big + 100, 2000) == 0);
	mem_hot_end(m);
	/* The next round: one prefetch call, then the large read from the
	 * cache, exact, no call. */
	mem_flush(m);
	big[1000] = 'Z';
	calls = m->stats.syscalls;
	mem_prefetch_hot(m);
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	big[1001] = 'Y';	/* after the prefetch: the cache has the old */
	ck_assert(mem_cache_only(m, true));
	ck_assert_int_eq(mem_read(m, (uintptr_t)big + 100, out, 2000), 0);
	ck_assert_int_eq(out[900], 'Z');
	ck_assert_int_eq(out[901], (char)(1001 * 13));
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	ck_assert_uint_eq(mem_refused(m), 0);
	/* Lines no prefetch brought: refused, small or large, no call. */
	mem_hot_begin(m);
	errno = 0;
	ck_assert_int_eq(mem_read(m, (uintptr_t)big + 3000, &c, 1), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(mem_read(m, (uintptr_t)big + 2100, out, 1900), -1);
	ck_assert_uint_eq(mem_refused(m), 2);
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	mem_hot_end(m);
	ck_assert(mem_cache_only(m, false));
	ck_assert_uint_eq(mem_refused(m), 0);
	/* The next prefetch brings them: served from the cache alone. */
	mem_flush(m);
	mem_prefetch_hot(m);
	ck_assert(mem_cache_only(m, true));
	ck_assert_int_eq(mem_read(m, (uintptr_t)big + 3000, &c, 1), 0);
	ck_assert_int_eq(c, (char)(3000 * 13));
	ck_assert_int_eq(mem_read(m, (uintptr_t)big + 2100, out, 1900), 0);
	ck_assert(memcmp(out, big + 2100, 1900) == 0);
	ck_assert_uint_eq(mem_refused(m), 0);
	mem_cache_only(m, false);
	mem_destroy(m);
}
END_TEST

/*
 * While cache-only (a stop's fetch decoded after the resume), a
 * prefetch reads nothing: the reader's own prefetches (iseqs, method
 * entries) would bring the running target's memory into what the reads
 * take for the stop's moment. The read it prepared is refused instead.
 */
START_TEST(test_cache_only_prefetch)
{
	struct mem *m = mem_create_live(getpid());
	static char page[1024] __attribute__((aligned(512)));
	uint64_t calls, addr = (uintptr_t)page + 600;
	char c;

	page[600] = 'a';
	mem_flush(m);
	ck_assert(mem_cache_only(m, true));
	calls = m->stats.syscalls;
	mem_prefetch(m, &addr, 1);
	ck_assert_uint_eq(m->stats.syscalls, calls);
	errno = 0;
	ck_assert_int_eq(mem_read(m, addr, &c, 1), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_uint_eq(mem_refused(m), 1);
	/* Off again, the same prefetch fetches. */
	ck_assert(mem_cache_only(m, false));
	mem_prefetch(m, &addr, 1);
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	ck_assert_int_eq(mem_read(m, addr, &c, 1), 0);
	ck_assert_int_eq(c, 'a');
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	mem_destroy(m);
}
END_TEST

/*
 * mem_prefetch_ranges(): the lines of every range the cache lacks, in
 * one call for all; a range too large for the cache to serve whole is
 * left out. mem_peek_cached(): the cache's bytes alone, no call, and
 * nothing noted for the next round's fetch.
 */
START_TEST(test_ranges_and_peek)
{
	struct mem *m = mem_create_live(getpid());
	static char a[4096] __attribute__((aligned(512)));
	static char b[2048] __attribute__((aligned(512)));
	static char huge[128 * 512 + 512] __attribute__((aligned(512)));
	struct mem_range r[3] = {
		{ .addr = (uintptr_t)a + 100, .len = 1500 },	/* 4 lines */
		{ .addr = (uintptr_t)b + 700, .len = 10 },	/* 1 line */
		{ .addr = (uintptr_t)huge, .len = sizeof(huge) },
	};
	uint64_t calls, w;
	char out[1500];

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (char)(i * 3);
	memset(b, 'b', sizeof(b));
	mem_flush(m);
	ck_assert_int_eq(mem_peek_cached(m, (uintptr_t)a + 100, &w, 8), -1);
	calls = m->stats.syscalls;
	mem_prefetch_ranges(m, r, 3);
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	a[200] = 'x';		/* after the fetch: the cache has the old */
	ck_assert_int_eq(mem_peek_cached(m, (uintptr_t)a + 100, out, 1500), 0);
	ck_assert_int_eq(out[100], (char)(200 * 3));
	ck_assert_int_eq(mem_peek_cached(m, (uintptr_t)b + 700, out, 10), 0);
	ck_assert_int_eq(out[0], 'b');
	/* The huge range was not fetched; nor the line past a's four. */
	ck_assert_int_eq(mem_peek_cached(m, (uintptr_t)huge, &w, 8), -1);
	ck_assert_int_eq(mem_peek_cached(m, (uintptr_t)a + 2048, &w, 8), -1);
	/* Cached lines are not fetched again. */
	mem_prefetch_ranges(m, r, 2);
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	/* A peek notes nothing: the next round's fetch is empty, where a
	 * read of the same line makes it one call. */
	mem_flush(m);
	ck_assert_int_eq(mem_read_u64(m, (uintptr_t)a + 100, &w), 0);
	mem_hot_begin(m);
	ck_assert_int_eq(mem_peek_cached(m, (uintptr_t)a + 100, &w, 8), 0);
	mem_hot_end(m);
	mem_flush(m);
	calls = m->stats.syscalls;
	mem_prefetch_hot(m);
	ck_assert_uint_eq(m->stats.syscalls, calls);
	ck_assert_int_eq(mem_read_u64(m, (uintptr_t)a + 100, &w), 0);
	mem_hot_begin(m);
	ck_assert_int_eq(mem_read_u64(m, (uintptr_t)a + 100, &w), 0);
	mem_hot_end(m);
	mem_flush(m);
	calls = m->stats.syscalls;
	mem_prefetch_hot(m);
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	mem_destroy(m);
}
END_TEST

/*
 * Lines by owner: what an owner read last is left out of the next
 * round's fetches when that owner is idle (mem_hot_drop()), but a line
 * another owner read too, or a read of no owner; a woken owner's lines
 * join the stop's fetch (mem_prefetch_hot()), not the one that warms it
 * (mem_prefetch_warm()).
 */
START_TEST(test_owner_lines)
{
	struct mem *m = mem_create_live(getpid());
	static char page[5][4096] __attribute__((aligned(4096)));
	uint64_t own = (uintptr_t)page[0], shared = (uintptr_t)page[1];
	uint64_t other = (uintptr_t)page[2], global = (uintptr_t)page[3];
	uint64_t big = (uintptr_t)page[4], x = 0x1000, y = 0x2000, w, calls;
	const uint64_t idle[] = { x };
	char buf[3 * 512];

	page[0][0] = 'a';
	mem_hot_begin(m);
	mem_hot_tag(m, x);
	ck_assert_int_eq(mem_read_u64(m, own, &w), 0);
	ck_assert_int_eq(mem_read_u64(m, shared, &w), 0);
	ck_assert_int_eq(mem_read_u64(m, global, &w), 0);
	/* Read around the cache (three lines): x's, and y's too. */
	ck_assert_int_eq(mem_read(m, big, buf, sizeof(buf)), 0);
	mem_hot_tag(m, y);
	ck_assert_int_eq(mem_read_u64(m, shared, &w), 0);
	ck_assert_int_eq(mem_read_u64(m, other, &w), 0);
	ck_assert_int_eq(mem_read(m, big + 512, buf, 512), 0);
	mem_hot_tag(m, 0);
	ck_assert_int_eq(mem_read_u64(m, global, &w), 0);
	mem_hot_end(m);
	/* x idle: its own line goes, and the large read's first and last
	 * lines; what y or no owner read too stays. */
	ck_assert_uint_eq(mem_hot_drop(m, idle, 1), 3);
	ck_assert_uint_eq(mem_hot_drop(m, idle, 1), 0);
	mem_flush(m);
	calls = m->stats.syscalls;
	mem_prefetch_hot(m);
	ck_assert_uint_eq(m->stats.syscalls, calls + 1);
	ck_assert(mem_cache_only(m, true));
	ck_assert_int_eq(mem_read_u64(m, shared, &w), 0);
	ck_assert_int_eq(mem_read_u64(m, other, &w), 0);
	ck_assert_int_eq(mem_read_u64(m, global, &w), 0);
	ck_assert_int_eq(mem_read(m, big + 512, buf, 512), 0);
	errno = 0;
	ck_assert_int_eq(mem_read_u64(m, own, &w), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(mem_read(m, big, buf, 512), -1);
	mem_cache_only(m, false);
	/* x wakes: its lines join the stop's fetch, not the warming one. */
	mem_prefetch_tags(m, idle, 1);
	mem_flush(m);
	mem_prefetch_warm(m);
	ck_assert(mem_cache_only(m, true));
	ck_assert_int_eq(mem_read_u64(m, own, &w), -1);
	mem_cache_only(m, false);
	mem_flush(m);
	mem_prefetch_hot(m);
	ck_assert(mem_cache_only(m, true));
	ck_assert_int_eq(mem_read(m, own, &w, 1), 0);
	ck_assert_int_eq((char)w, 'a');
	mem_cache_only(m, false);
	/* Once: the next fetch is the round's lines alone. */
	mem_flush(m);
	mem_prefetch_hot(m);
	ck_assert(mem_cache_only(m, true));
	ck_assert_int_eq(mem_read_u64(m, own, &w), -1);
	mem_cache_only(m, false);
	mem_destroy(m);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("mem");
	TCase *tc = tcase_create("live");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_read_and_cache);
	tcase_add_test(tc, test_failures);
	tcase_add_test(tc, test_prefetch_resumes);
	tcase_add_test(tc, test_owner_lines);
	tcase_add_test(tc, test_prefetch_fault_bound);
	tcase_add_test(tc, test_hot_lines);
	tcase_add_test(tc, test_prefetch_joins);
	tcase_add_test(tc, test_lines_apart);
	tcase_add_test(tc, test_cache_only);
	tcase_add_test(tc, test_cache_only_prefetch);
	tcase_add_test(tc, test_ranges_and_peek);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
