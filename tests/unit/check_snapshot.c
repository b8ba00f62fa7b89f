// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Memory snapshots: the recorder over this very process, the file round
 * trip, the offline backend's EFAULT rule, and the parser against
 * truncated, bit-flipped and hand-crafted hostile files (built here byte
 * by byte from doc/snapshot-format.md, independently of the writer). Then
 * the Ruby reader offline, over a captured Ruby 3.1 process
 * (data/snapshots/ruby31-threads.snap), intact and damaged.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rbflame/mem.h"
#include "rbflame/ruby.h"
#include "rbflame/ruby_layout.h"
#include "rbflame/ruby_vm_meta.h"
#include "rbflame/snapshot.h"
#include "rbflame/xmalloc.h"

static unsigned char area[8192] __attribute__((aligned(4096)));
static char tmpdir[256];
static char maps_text[] =
	"00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/ruby\n";

static void
make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/check_snapshot.XXXXXX",
		 base && *base ? base : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void
remove_tmpdir(const char *file)
{
	if (file)
		unlink(file);
	rmdir(tmpdir);
}

static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc(n ? n : 1);
	ck_assert_int_eq(fread(buf, 1, n, f), n);
	fclose(f);
	*len = n;
	return buf;
}

static void
fill_meta(struct snapshot_meta *meta, struct snapshot_regs regs[2])
{
	memset(meta, 0, sizeof(*meta));
	meta->pid = 4242;
	meta->captured_ns = 1767225600123456789ull;
	strcpy(meta->ruby_layout, "3.1.2");
	strcpy(meta->ruby_version, "3.1.2");
	strcpy(meta->ruby_description,
	       "ruby 3.1.2p20 (2022-04-12 revision 4491bb740a) [x86_64-linux-gnu]");
	meta->ruby_vm = 0x55d0c0de1000ull;
	meta->ruby_symbols = 0x7f00deadbeefull;
	meta->ruby_vm_from_export = 1;
	meta->maps = maps_text;
	memset(regs, 0, 2 * sizeof(*regs));
	regs[0].tid = 4242;
	regs[0].regs.rip = 0x401000;
	regs[0].regs.rsp = 0x7ffc0000;
	regs[1].tid = 4243;
	regs[1].regs.rip = 0x402000;
	regs[1].regs.orig_rax = (unsigned long long)-1;
	meta->regs = regs;
	meta->nregs = 2;
}

START_TEST(test_round_trip)
{
	struct mem *live = mem_create_live(getpid());
	struct mem *rec = snapshot_recorder_create(live);
	struct snapshot_recorder_stats rs;
	struct snapshot_meta meta, back;
	struct snapshot_regs regs[2];
	unsigned char *heap = xmalloc(10000);
	unsigned char got[1024], want[1024];
	char str[64];
	struct mem *snap;
	char *path;

	for (size_t i = 0; i < sizeof(area); i++)
		area[i] = (unsigned char)(i * 13 + 7);
	for (size_t i = 0; i < 10000; i++)
		heap[i] = (unsigned char)(i ^ 0x5a);
	strcpy((char *)area + 4000, "recorded string");

	/* Overlapping, touching and separate reads. */
	ck_assert_int_eq(mem_read(rec, (uintptr_t)area + 100, got, 300), 0);
	ck_assert(!memcmp(got, area + 100, 300));
	ck_assert_int_eq(mem_read(rec, (uintptr_t)area + 250, got, 350), 0);
	ck_assert_int_eq(mem_read(rec, (uintptr_t)area + 640, got, 64), 0);
	ck_assert_int_eq(mem_read(rec, (uintptr_t)heap + 5000, got, 1000), 0);
	ck_assert(!memcmp(got, heap + 5000, 1000));
	ck_assert_int_eq(mem_read_str(rec, (uintptr_t)area + 4000, str,
				      sizeof(str)), 15);
	ck_assert_str_eq(str, "recorded string");
	/* A failed read is forwarded as a failure and kept nowhere. */
	ck_assert_int_eq(mem_read(rec, 8, got, 8), -1);
	ck_assert_int_eq(snapshot_recorder_stats(rec, &rs), 0);
	ck_assert_uint_ge(rs.regions, 3);
	ck_assert_uint_ge(rs.bytes, 300 + 350 + 64 + 1000);
	ck_assert_uint_eq(rs.dropped, 0);
	ck_assert_int_eq(snapshot_recorder_stats(live, &rs), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* Its regions, as the writer sees them: sorted, apart, all bytes. */
	{
		struct snapshot_region r;
		uint64_t sum = 0, end = 0;
		size_t i;

		for (i = 0; snapshot_recorder_region(rec, i, &r) == 0; i++) {
			ck_assert(i == 0 || r.addr > end);
			end = r.addr + r.len;
			sum += r.len;
		}
		ck_assert_int_eq(errno, ENOENT);
		ck_assert_uint_eq(i, rs.regions);
		ck_assert_uint_eq(sum, rs.bytes);
		ck_assert_int_eq(snapshot_recorder_region(live, 0, &r), -1);
		ck_assert_int_eq(errno, EINVAL);
	}

	make_tmpdir();
	path = xasprintf("%s/self.snap", tmpdir);
	fill_meta(&meta, regs);
	ck_assert_int_eq(snapshot_save(rec, &meta, path), 0);
	ck_assert_int_eq(snapshot_save(live, &meta, path), -1);
	ck_assert_int_eq(errno, EINVAL);

	/* Change the process afterwards: the snapshot keeps the old bytes. */
	memcpy(want, area + 100, 500);
	memset(area, 0, sizeof(area));
	snap = snapshot_load(path, &back);
	ck_assert_ptr_nonnull(snap);
	ck_assert_str_eq(snap->ops->name, "snapshot");
	ck_assert_int_eq(mem_read(snap, (uintptr_t)area + 100, got, 500), 0);
	ck_assert(!memcmp(got, want, 500));
	ck_assert_int_eq(mem_read(snap, (uintptr_t)heap + 5000, got, 1000), 0);
	ck_assert(!memcmp(got, heap + 5000, 1000));
	ck_assert_int_eq(mem_read_str(snap, (uintptr_t)area + 4000, str,
				      sizeof(str)), 15);
	ck_assert_str_eq(str, "recorded string");
	/* Outside what was recorded: EFAULT, like an unmapped address. */
	ck_assert_int_eq(mem_read(snap, 8, got, 8), -1);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(mem_read(snap, (uintptr_t)area + 2048, got, 8), -1);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(mem_read(snap, (uintptr_t)heap + 4000, got, 8), -1);
	ck_assert_int_eq(mem_read(snap, UINT64_MAX - 4, got, 8), -1);
	/* Partly inside: still a failure as a whole. */
	ck_assert_int_eq(mem_read(snap, (uintptr_t)heap + 5000 - 200, got, 400),
			 -1);
	ck_assert_int_eq(errno, EFAULT);
	ck_assert_int_eq(mem_read(snap, (uintptr_t)area + 100, got, 0), 0);
	mem_flush(snap);
	ck_assert_uint_gt(snap->stats.failures, 0);

	/* Meta round trip. */
	ck_assert_int_eq(back.pid, meta.pid);
	ck_assert_uint_eq(back.captured_ns, meta.captured_ns);
	ck_assert_str_eq(back.ruby_layout, meta.ruby_layout);
	ck_assert_str_eq(back.ruby_version, meta.ruby_version);
	ck_assert_str_eq(back.ruby_description, meta.ruby_description);
	ck_assert_uint_eq(back.ruby_vm, meta.ruby_vm);
	ck_assert_uint_eq(back.ruby_symbols, meta.ruby_symbols);
	ck_assert_int_eq(back.ruby_vm_from_export, 1);
	ck_assert_str_eq(back.maps, meta.maps);
	ck_assert_uint_eq(back.nregs, 2);
	ck_assert_int_eq(back.regs[1].tid, 4243);
	ck_assert(!memcmp(&back.regs[0].regs, &regs[0].regs,
			  sizeof(regs[0].regs)));
	ck_assert(!memcmp(&back.regs[1].regs, &regs[1].regs,
			  sizeof(regs[1].regs)));
	snapshot_meta_free(&back);
	ck_assert_ptr_null(back.maps);
	mem_destroy(snap);

	/* Snapshot files are private: they hold process memory. */
	{
		struct stat st;

		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq(st.st_mode & 077, 0);
	}
	/* A minimal meta (no maps, no registers, no Ruby) is valid too. */
	memset(&meta, 0, sizeof(meta));
	ck_assert_int_eq(snapshot_save(rec, &meta, path), 0);
	snap = snapshot_load(path, &back);
	ck_assert_ptr_nonnull(snap);
	ck_assert_ptr_null(back.maps);
	ck_assert_uint_eq(back.nregs, 0);
	ck_assert_str_eq(back.ruby_layout, "");
	snapshot_meta_free(&back);
	mem_destroy(snap);

	ck_assert_ptr_null(snapshot_load("/nonexistent/x.snap", &back));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(snapshot_load(tmpdir, &back));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(snapshot_save(rec, &meta, "/nonexistent/x.snap"), -1);
	ck_assert_int_eq(errno, ENOENT);

	remove_tmpdir(path);
	free(path);
	free(heap);
	mem_destroy(rec);
	mem_destroy(live);
}
END_TEST

/* ---- a fake inner backend: readable at [FAKE_LO, FAKE_HI) only ------- */

#define FAKE_LO 0x10000ull
#define FAKE_HI 0x20000ull

static uint64_t fake_lo = FAKE_LO, fake_hi = FAKE_HI;
static unsigned fake_calls;

static int
fake_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	unsigned char *out = buf;

	(void)m;
	fake_calls++;
	if (addr < fake_lo || addr + len > fake_hi || addr + len < addr) {
		errno = EFAULT;
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		out[i] = (unsigned char)((addr + i) * 31 >> 3);
	return 0;
}

static void
fake_destroy(struct mem *m)
{
	free(m);
}

static const struct mem_ops fake_ops = {
	.name = "fake",
	.read = fake_read,
	.destroy = fake_destroy,
};

static struct mem *
fake_create(uint64_t lo, uint64_t hi)
{
	struct mem *m = xcalloc(1, sizeof(*m));

	fake_lo = lo;
	fake_hi = hi;
	m->ops = &fake_ops;
	return m;
}

static unsigned char
fake_byte(uint64_t addr)
{
	return (unsigned char)(addr * 31 >> 3);
}

START_TEST(test_recorder_merge)
{
	struct mem *inner = fake_create(FAKE_LO, FAKE_HI);
	struct mem *rec = snapshot_recorder_create(inner);
	struct snapshot_recorder_stats rs;
	unsigned char b[4096];

	/* Widened to aligned 64-byte granules. */
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 100, b, 10), 0);
	ck_assert_int_eq(b[0], fake_byte(FAKE_LO + 100));
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.regions, 1);
	ck_assert_uint_eq(rs.bytes, 64);
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 1000, b, 10), 0);
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 3000, b, 10), 0);
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.regions, 3);
	/* One read bridging all three merges them. */
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 110, b, 2900), 0);
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.regions, 1);
	ck_assert_uint_eq(rs.bytes, 3072 - 64);
	/* Below the first, touching it: grows downwards. */
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 10, b, 20), 0);
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.regions, 1);
	ck_assert_uint_eq(rs.bytes, 3072);
	/* A read already inside adds nothing. */
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 500, b, 100), 0);
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.bytes, 3072);
	/* A walk upwards, one word at a time, stays one region. */
	for (uint64_t a = FAKE_LO + 8192; a < FAKE_LO + 16384; a += 8)
		ck_assert_int_eq(mem_read(rec, a, b, 8), 0);
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.regions, 2);
	ck_assert_uint_eq(rs.bytes, 3072 + 8192);
	mem_destroy(rec);
	mem_destroy(inner);

	/* Where the widened read fails, the exact bytes are kept. */
	inner = fake_create(FAKE_LO + 3, FAKE_LO + 13);
	rec = snapshot_recorder_create(inner);
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 3, b, 10), 0);
	ck_assert_int_eq(b[9], fake_byte(FAKE_LO + 12));
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 2, b, 10), -1);
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.regions, 1);
	ck_assert_uint_eq(rs.bytes, 10);
	/* Flushes reach the inner backend (which has none here). */
	mem_flush(rec);
	mem_destroy(rec);
	mem_destroy(inner);
}
END_TEST

START_TEST(test_recorder_bound)
{
	struct mem *inner = fake_create(0, UINT64_MAX);
	struct mem *rec = snapshot_recorder_create(inner);
	struct snapshot_recorder_stats rs;
	size_t mib = 1u << 20;
	unsigned char *b = xmalloc(mib);

	for (uint64_t i = 0; i < SNAPSHOT_MAX_BYTES / mib; i++)
		ck_assert_int_eq(mem_read(rec, i * 2 * mib, b, mib), 0);
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.bytes, SNAPSHOT_MAX_BYTES);
	ck_assert_uint_eq(rs.dropped, 0);
	/* Past the bound reads still work, but are not kept. */
	ck_assert_int_eq(mem_read(rec, 1ull << 40, b, 64), 0);
	ck_assert_int_eq(b[0], fake_byte(1ull << 40));
	snapshot_recorder_stats(rec, &rs);
	ck_assert_uint_eq(rs.bytes, SNAPSHOT_MAX_BYTES);
	ck_assert_uint_eq(rs.dropped, 1);
	free(b);
	mem_destroy(rec);
	mem_destroy(inner);
}
END_TEST

/* ---- hand-built files ------------------------------------------------- */

struct out {
	unsigned char *p;
	size_t len, cap;
};

static void
put(struct out *o, const void *d, size_t n)
{
	o->p = xgrowarray(o->p, &o->cap, o->len + n, 1);
	memcpy(o->p + o->len, d, n);
	o->len += n;
}

static void
put_le(struct out *o, uint64_t v, int size)
{
	for (int i = 0; i < size; i++) {
		unsigned char c = v >> (8 * i);

		put(o, &c, 1);
	}
}

static void
header(struct out *o, uint32_t nsections)
{
	put(o, "RBFSNAP1", 8);
	put_le(o, 1, 4);
	put_le(o, 0, 4);
	put_le(o, nsections, 4);
}

static void
section(struct out *o, uint32_t type, const struct out *payload)
{
	put_le(o, type, 4);
	put_le(o, 0, 4);
	put_le(o, payload->len, 8);
	put(o, payload->p, payload->len);
}

static void
pair(struct out *o, const char *k, const char *v)
{
	put_le(o, strlen(k), 2);
	put(o, k, strlen(k));
	put_le(o, strlen(v), 4);
	put(o, v, strlen(v));
}

/* MEMORY payload with regions given as {addr, len} pairs, bytes = fake. */
static void
memory(struct out *o, const uint64_t *ar, int n)
{
	put_le(o, n, 4);
	put_le(o, 0, 4);
	for (int i = 0; i < n; i++) {
		put_le(o, ar[2 * i], 8);
		put_le(o, ar[2 * i + 1], 8);
		for (uint64_t j = 0; j < ar[2 * i + 1]; j++) {
			unsigned char c = fake_byte(ar[2 * i] + j);

			put(o, &c, 1);
		}
	}
}

/* A complete file: meta, an unknown section, memory. */
static struct out
crafted(const uint64_t *ar, int n, const char *vm_value)
{
	struct out f = { 0 }, meta = { 0 }, mem = { 0 }, unk = { 0 };

	put_le(&meta, 3, 4);
	pair(&meta, "ruby_layout", "3.1.2");
	pair(&meta, "ruby_vm", vm_value);
	pair(&meta, "some_future_key", "ignored");
	put(&unk, "future", 6);
	memory(&mem, ar, n);
	header(&f, 3);
	section(&f, 1, &meta);
	section(&f, 99, &unk);
	section(&f, 4, &mem);
	free(meta.p);
	free(mem.p);
	free(unk.p);
	return f;
}

static void
expect_invalid(const struct out *f)
{
	struct snapshot_meta meta;

	errno = 0;
	ck_assert_ptr_null(snapshot_from_buffer(f->p, f->len, &meta));
	ck_assert_int_eq(errno, EINVAL);
}

START_TEST(test_crafted)
{
	static const uint64_t touching[] = { 0x1000, 16, 0x1010, 16,
					     0x2000, 8 };
	static const uint64_t overlap[] = { 0x1000, 16, 0x100f, 16 };
	static const uint64_t unsorted[] = { 0x2000, 16, 0x1000, 16 };
	static const uint64_t empty[] = { 0x1000, 0 };
	static const uint64_t wrap[] = { UINT64_MAX - 7, 8 };
	static const char *const bad_numbers[] = {
		"", "0x", "-1", "12a", "0X10", "0x10000000000000000",
		"184467440737095516160", " 1",
	};
	struct snapshot_meta meta;
	unsigned char b[32];
	struct out f, g;
	struct mem *m;

	f = crafted(touching, 3, "0x1008");
	m = snapshot_from_buffer(f.p, f.len, &meta);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(meta.ruby_vm, 0x1008);
	ck_assert_str_eq(meta.ruby_layout, "3.1.2");
	/* A read spanning touching regions is served from both. */
	ck_assert_int_eq(mem_read(m, 0x1008, b, 16), 0);
	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(b[i], fake_byte(0x1008 + i));
	ck_assert_int_eq(mem_read(m, 0x1000, b, 32), 0);
	ck_assert_int_eq(mem_read(m, 0x1000, b, 33), -1);
	ck_assert_int_eq(mem_read(m, 0xfff, b, 2), -1);
	ck_assert_int_eq(mem_read(m, 0x2000, b, 8), 0);
	ck_assert_int_eq(mem_read(m, 0x2004, b, 8), -1);
	ck_assert_int_eq(mem_read(m, 0x1fff, b, 1), -1);
	ck_assert_int_eq(mem_read(m, 0, b, 1), -1);
	mem_destroy(m);
	snapshot_meta_free(&meta);
	/* No meta wanted (the fuzzer's case). */
	m = snapshot_from_buffer(f.p, f.len, NULL);
	ck_assert_ptr_nonnull(m);
	mem_destroy(m);

	/* Trailing bytes. */
	g = f;
	g.p = xmalloc(f.len + 1);
	memcpy(g.p, f.p, f.len);
	g.p[g.len++] = 0;
	expect_invalid(&g);
	free(g.p);
	/* Wrong magic, unknown format version. */
	f.p[0] = 'X';
	expect_invalid(&f);
	f.p[0] = 'R';
	f.p[8] = 2;
	expect_invalid(&f);
	f.p[8] = 1;
	/* Too many sections announced. */
	f.p[16] = 65;
	expect_invalid(&f);
	f.p[16] = 3;
	m = snapshot_from_buffer(f.p, f.len, NULL);
	ck_assert_ptr_nonnull(m);
	mem_destroy(m);
	free(f.p);

	f = crafted(overlap, 2, "0x1");
	expect_invalid(&f);
	free(f.p);
	f = crafted(unsorted, 2, "0x1");
	expect_invalid(&f);
	free(f.p);
	f = crafted(empty, 1, "0x1");
	expect_invalid(&f);
	free(f.p);
	f = crafted(wrap, 1, "0x1");
	expect_invalid(&f);
	free(f.p);
	for (size_t i = 0; i < sizeof(bad_numbers) / sizeof(*bad_numbers);
	     i++) {
		f = crafted(touching, 1, bad_numbers[i]);
		expect_invalid(&f);
		free(f.p);
	}

	/* A huge region count in a tiny section allocates nothing big. */
	{
		struct out mem = { 0 };

		f = (struct out){ 0 };
		put_le(&mem, 0xfffff, 4);
		put_le(&mem, 0, 4);
		header(&f, 1);
		section(&f, 4, &mem);
		expect_invalid(&f);
		free(f.p);
		free(mem.p);
	}
	/* A section longer than the file. */
	f = (struct out){ 0 };
	header(&f, 1);
	put_le(&f, 4, 4);
	put_le(&f, 0, 4);
	put_le(&f, UINT64_MAX, 8);
	expect_invalid(&f);
	free(f.p);
	/* No MEMORY section; a duplicate one. */
	{
		struct out pl = { 0 }, mem = { 0 };

		put_le(&pl, 0, 4);
		memory(&mem, touching, 1);
		f = (struct out){ 0 };
		header(&f, 1);
		section(&f, 1, &pl);
		expect_invalid(&f);
		free(f.p);
		f = (struct out){ 0 };
		header(&f, 2);
		section(&f, 4, &mem);
		section(&f, 4, &mem);
		expect_invalid(&f);
		free(f.p);
		/* NUL inside a meta key. */
		free(pl.p);
		pl = (struct out){ 0 };
		put_le(&pl, 1, 4);
		put_le(&pl, 3, 2);
		put(&pl, "a\0b", 3);
		put_le(&pl, 0, 4);
		f = (struct out){ 0 };
		header(&f, 2);
		section(&f, 1, &pl);
		section(&f, 4, &mem);
		expect_invalid(&f);
		free(f.p);
		/* A REGS section of another architecture. */
		free(pl.p);
		pl = (struct out){ 0 };
		put_le(&pl, 1, 4);
		put_le(&pl, 100, 4);
		put_le(&pl, 7, 4);
		put_le(&pl, 0, 4);
		for (int i = 0; i < 100; i++)
			put_le(&pl, 0, 1);
		f = (struct out){ 0 };
		header(&f, 2);
		section(&f, 3, &pl);
		section(&f, 4, &mem);
		expect_invalid(&f);
		free(f.p);
		free(pl.p);
		free(mem.p);
	}
	ck_assert_ptr_null(snapshot_from_buffer(NULL, 0, NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(snapshot_from_buffer("", 0, NULL));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* ---- damaged files ------------------------------------------------------ */

/* A real small snapshot file from the writer, all sections present. */
static unsigned char *
small_snapshot(size_t *len)
{
	struct mem *inner = fake_create(FAKE_LO, FAKE_HI);
	struct mem *rec = snapshot_recorder_create(inner);
	struct snapshot_meta meta;
	struct snapshot_regs regs[2];
	unsigned char b[256];
	unsigned char *file;
	char *path;

	ck_assert_int_eq(mem_read(rec, FAKE_LO + 8, b, 8), 0);
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 200, b, 100), 0);
	ck_assert_int_eq(mem_read(rec, FAKE_LO + 1000, b, 16), 0);
	fill_meta(&meta, regs);
	make_tmpdir();
	path = xasprintf("%s/small.snap", tmpdir);
	ck_assert_int_eq(snapshot_save(rec, &meta, path), 0);
	file = slurp(path, len);
	remove_tmpdir(path);
	free(path);
	mem_destroy(rec);
	mem_destroy(inner);
	return file;
}

/* Whatever a damaged file gave, using it must be safe. */
static void
exercise(struct mem *m, struct snapshot_meta *meta)
{
	unsigned char b[512];

	ck_assert_uint_lt(strlen(meta->ruby_layout), sizeof(meta->ruby_layout));
	ck_assert_uint_lt(strlen(meta->ruby_version),
			  sizeof(meta->ruby_version));
	ck_assert_uint_lt(strlen(meta->ruby_description),
			  sizeof(meta->ruby_description));
	if (meta->maps)
		(void)strlen(meta->maps);
	for (size_t i = 0; i < meta->nregs; i++)
		(void)meta->regs[i].regs.rip;
	for (uint64_t a = FAKE_LO; a < FAKE_LO + 1100; a += 4) {
		if (mem_read(m, a, b, 64) < 0)
			ck_assert_int_eq(errno, EFAULT);
	}
	(void)mem_read(m, 0, b, sizeof(b));
	(void)mem_read(m, UINT64_MAX - 8, b, 16);
	{
		struct ruby_vm vm;

		if (ruby_vm_meta_get(meta, &vm) == 0)
			ck_assert_ptr_nonnull(vm.layout);
	}
}

START_TEST(test_truncated)
{
	size_t len;
	unsigned char *file = small_snapshot(&len);
	struct snapshot_meta meta;
	struct mem *m;

	m = snapshot_from_buffer(file, len, &meta);
	ck_assert_ptr_nonnull(m);
	exercise(m, &meta);
	snapshot_meta_free(&meta);
	mem_destroy(m);
	/* Every proper prefix is invalid: the file must end exactly after
	 * its last section. Heap copies so ASan sees any overrun. */
	for (size_t k = 0; k < len; k++) {
		unsigned char *cut = xmalloc(k ? k : 1);

		memcpy(cut, file, k);
		errno = 0;
		ck_assert_ptr_null(snapshot_from_buffer(cut, k, &meta));
		ck_assert_int_eq(errno, EINVAL);
		free(cut);
	}
	free(file);
}
END_TEST

START_TEST(test_flipped)
{
	static const unsigned char masks[] = { 0x01, 0x10, 0x80, 0xff };
	size_t len, accepted = 0;
	unsigned char *file = small_snapshot(&len);
	unsigned char *copy = xmalloc(len);
	unsigned seed = 12345;

	for (size_t off = 0; off < len; off++) {
		for (size_t k = 0; k < sizeof(masks); k++) {
			struct snapshot_meta meta;
			struct mem *m;

			memcpy(copy, file, len);
			copy[off] ^= masks[k];
			errno = 0;
			m = snapshot_from_buffer(copy, len, &meta);
			if (!m) {
				ck_assert_int_eq(errno, EINVAL);
				continue;
			}
			accepted++;
			exercise(m, &meta);
			snapshot_meta_free(&meta);
			mem_destroy(m);
		}
	}
	/* Flips inside memory bytes and text are still valid files. */
	ck_assert_uint_gt(accepted, 0);
	/* And a few thousand multi-byte mutations, reproducibly. */
	for (int i = 0; i < 3000; i++) {
		struct snapshot_meta meta;
		struct mem *m;
		size_t cut = len - (rand_r(&seed) % 3 == 0 ?
				    rand_r(&seed) % 16 : 0);
		int nflips = 1 + rand_r(&seed) % 6;

		memcpy(copy, file, len);
		for (int j = 0; j < nflips; j++)
			copy[rand_r(&seed) % len] ^= 1 + rand_r(&seed) % 255;
		m = snapshot_from_buffer(copy, cut, &meta);
		if (!m) {
			ck_assert_int_eq(errno, EINVAL);
			continue;
		}
		exercise(m, &meta);
		snapshot_meta_free(&meta);
		mem_destroy(m);
	}
	free(copy);
	free(file);
}
END_TEST

START_TEST(test_meta_vm)
{
	struct snapshot_meta meta;
	struct ruby_vm vm, back;

	memset(&vm, 0, sizeof(vm));
	vm.layout = ruby_layout_find("3.1.2", NULL);
	ck_assert_ptr_nonnull(vm.layout);
	strcpy(vm.version, "3.1.2");
	strcpy(vm.description, "ruby 3.1.2p20");
	vm.vm = 0x1234;
	vm.symbols = 0x5678;
	vm.vm_from_export = true;
	memset(&meta, 0, sizeof(meta));
	ruby_vm_meta_set(&meta, &vm);
	ck_assert_str_eq(meta.ruby_layout, "3.1.2");
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &back), 0);
	ck_assert_ptr_eq(back.layout, vm.layout);
	ck_assert(back.generated_exact);
	ck_assert_str_eq(back.version, "3.1.2");
	ck_assert_str_eq(back.description, "ruby 3.1.2p20");
	ck_assert_uint_eq(back.vm, 0x1234);
	ck_assert_uint_eq(back.symbols, 0x5678);
	ck_assert(back.vm_from_export);

	/* Another patch release of a known minor finds the nearest. */
	strcpy(meta.ruby_layout, "3.4.99");
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &back), 0);
	ck_assert_ptr_eq(back.layout, ruby_layout_find("3.4", NULL));
	ck_assert(!back.generated_exact);
	/* Without a layout name, the Ruby version decides. */
	meta.ruby_layout[0] = '\0';
	strcpy(meta.ruby_version, "2.7.4");
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &back), 0);
	ck_assert_ptr_eq(back.layout, ruby_layout_find("2.7.4", NULL));
	ck_assert_str_eq(back.layout->version, "2.7.4");
	strcpy(meta.ruby_version, "9.9.0");
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &back), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_str_eq(back.version, "9.9.0");
	strcpy(meta.ruby_version, "3.10");
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &back), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	strcpy(meta.ruby_version, "three");
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &back), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	meta.ruby_version[0] = '\0';
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &back), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* ---- a real Ruby 3.1 process: data/snapshots/ruby31-threads.snap ------ */

#define RUBY31_SNAP SRCDIR "/tests/unit/data/snapshots/ruby31-threads.snap"
#define FIXTURE "/ruby31-threads.rb"

/*
 * What each thread of ruby31-threads.rb was doing, root first, as
 * "LABEL:LINE"; every frame is in the fixture file (C frames take their
 * caller's file and line). The lines are the fixture's; the labels follow
 * Ruby 3.4's convention. Ruby 3.1's own Thread#backtrace, taken at
 * capture, agreed on every line. "deep" is checked separately.
 */
static const struct {
	const char *name;
	bool gvl;
	const char *frames[12];
} ruby31_threads[] = {
	{ "main", false,
	  { "<main>:90", "Array#each:90", "Thread#join:90" } },
	{ "worker", false,
	  { "block in <main>:53", "Worker#run:21", "Worker#step:28",
	    "Worker#step:28", "Worker#step:28", "Worker#step:26",
	    "Array#each:26", "block in Worker#step:26",
	    "Thread::Queue#pop:26" } },
	{ "timer", false,
	  { "block in <main>:57", "Integer#times:57",
	    "block (2 levels) in <main>:59", "Sleepy.nap:11",
	    "Kernel#sleep:11" } },
	{ "dynamic", false,
	  { "block in <main>:65", "block in <class:Dynamic>:41",
	    "Sleepy.nap:11", "Kernel#sleep:11" } },
	/* The one runnable thread, stopped inside "i += 1 while true". */
	{ "spinner", true, { "block in <main>:76", "Spinner#spin:36" } },
};

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Frame i from the root of st as "LABEL:LINE", checking its file. */
static void
frame_text(const struct ruby_stack *st, int i, char *buf, size_t cap)
{
	const struct ruby_frame *f = &st->frames[st->nframes - 1 - i];

	ck_assert_ptr_nonnull(f->label);
	ck_assert_ptr_nonnull(f->path);
	ck_assert_msg(ends_with(f->path, FIXTURE), "thread %s frame %d: %s",
		      st->name, i, f->path);
	snprintf(buf, cap, "%s:%d", f->label, f->line);
}

static const struct ruby_stack *
find_thread(const struct ruby_stack *stacks, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(stacks[i].name, name))
			return &stacks[i];
	ck_abort_msg("no thread named %s", name);
	return NULL;
}

START_TEST(test_ruby31_frames)
{
	struct snapshot_meta meta;
	struct ruby_stack *stacks = xcalloc(16, sizeof(*stacks));
	const struct ruby_stack *st;
	struct ruby_reader *r;
	struct ruby_vm vm;
	struct mem *m;
	char text[256];
	int n;

	m = snapshot_load(RUBY31_SNAP, &meta);
	ck_assert_msg(m != NULL, "%s: %s", RUBY31_SNAP, strerror(errno));
	ck_assert_str_eq(meta.ruby_version, "3.1.2");
	ck_assert(ends_with(meta.ruby_description, "[x86_64-linux-gnu]"));
	ck_assert_ptr_nonnull(meta.maps);
	ck_assert_ptr_nonnull(strstr(meta.maps, "libruby-3.1"));
	ck_assert_uint_eq(meta.nregs, 6);
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &vm), 0);
	ck_assert_str_eq(vm.layout->version, "3.1.2");

	r = ruby_reader_create(&vm, m, 0);
	ck_assert_ptr_nonnull(r);
	n = ruby_read_stacks(r, stacks, 16);
	ck_assert_int_eq(n, 6);
	for (size_t t = 0; t < sizeof(ruby31_threads) / sizeof(*ruby31_threads);
	     t++) {
		int want = 0;

		st = find_thread(stacks, n, ruby31_threads[t].name);
		ck_assert_int_eq(st->gvl, ruby31_threads[t].gvl);
		while (want < 12 && ruby31_threads[t].frames[want])
			want++;
		ck_assert_int_eq(st->nframes, want);
		for (int i = 0; i < want; i++) {
			frame_text(st, i, text, sizeof(text));
			ck_assert_str_eq(text, ruby31_threads[t].frames[i]);
		}
	}
	/* deep(40): the block, 41 calls of deep, then the sleep. */
	st = find_thread(stacks, n, "deep");
	ck_assert(!st->gvl);
	ck_assert_int_eq(st->nframes, 1 + 41 + 2);
	frame_text(st, 0, text, sizeof(text));
	ck_assert_str_eq(text, "block in <main>:70");
	for (int i = 1; i <= 41; i++) {
		frame_text(st, i, text, sizeof(text));
		ck_assert_str_eq(text, "Object#deep:45");
	}
	frame_text(st, 42, text, sizeof(text));
	ck_assert_str_eq(text, "Sleepy.nap:11");
	frame_text(st, 43, text, sizeof(text));
	ck_assert_str_eq(text, "Kernel#sleep:11");
	ck_assert(st->frames[0].cfunc);
	ck_assert(!st->frames[1].cfunc);
	ck_assert_int_eq(st->frames[1].first_line, 10);

	/* The kernel tids agree with the registers saved at capture, and
	 * the main thread is the process. */
	st = find_thread(stacks, n, "main");
	ck_assert_int_eq(st->tid, meta.pid);
	for (int i = 0; i < n; i++) {
		bool found = false;

		for (size_t k = 0; k < meta.nregs; k++)
			found |= meta.regs[k].tid == stacks[i].tid;
		ck_assert_msg(found, "thread %s tid %d", stacks[i].name,
			      (int)stacks[i].tid);
	}
	ck_assert_uint_eq(ruby_reader_stats(r)->bad_stacks, 0);
	ruby_reader_destroy(r);
	mem_destroy(m);
	snapshot_meta_free(&meta);
	free(stacks);
}
END_TEST

/*
 * A memory that lies while told to: every read through it that holds
 * the needle gets its first byte changed, as if the target wrote it
 * while a read without a stop copied it.
 */
struct tamper {
	struct mem *base;
	const char *needle;
	bool on;
};

static int
tamper_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	struct tamper *t = m->priv;
	size_t nl = strlen(t->needle);
	char *p = buf;

	if (mem_read(t->base, addr, buf, len) < 0)
		return -1;
	for (size_t i = 0; t->on && nl && i + nl <= len; i++)
		if (!memcmp(p + i, t->needle, nl))
			p[i] = 'Z';
	return 0;
}

static const struct mem_ops tamper_ops = {
	.name = "tamper",
	.read = tamper_read,
};

/* The path of the deep thread's Object#deep frames, read through a
 * reader over tm: unstopped or not, tampered or not. */
static const char *
deep_path(struct ruby_reader *r, struct ruby_stack *stacks)
{
	int n = ruby_read_stacks(r, stacks, 16);
	const struct ruby_stack *st;

	ck_assert_int_eq(n, 6);
	st = find_thread(stacks, n, "deep");
	ck_assert_int_eq(st->nframes, 44);
	return st->frames[st->nframes - 2].path;
}

/*
 * A frame resolved in a read without a stop is not trusted from the
 * cache until another read resolves it alike: a torn read (the path
 * read while the target wrote it) must not outlive its read. The same
 * frame resolved in a stopped read is served from the cache as it is
 * (the control: without the unstopped mark, the lie stays).
 */
START_TEST(test_ruby31_unstopped_cache)
{
	struct ruby_stack *stacks = xcalloc(16, sizeof(*stacks));
	struct snapshot_meta meta;
	struct tamper t = { 0 };
	struct mem tm = { .ops = &tamper_ops, .priv = &t };
	struct ruby_reader *r;
	struct ruby_vm vm;
	char clean[512], lied[512];
	const char *base;

	t.base = snapshot_load(RUBY31_SNAP, &meta);
	ck_assert_ptr_nonnull(t.base);
	ck_assert_int_eq(ruby_vm_meta_get(&meta, &vm), 0);
	r = ruby_reader_create(&vm, t.base, 0);
	snprintf(clean, sizeof(clean), "%s", deep_path(r, stacks));
	ruby_reader_destroy(r);
	base = strrchr(clean, '/');
	t.needle = base ? base + 1 : clean;
	ck_assert_uint_gt(strlen(t.needle), 3);

	for (int unstopped = 1; unstopped >= 0; unstopped--) {
		r = ruby_reader_create(&vm, &tm, 0);
		ruby_reader_set_unstopped(r, unstopped);
		t.on = true;
		snprintf(lied, sizeof(lied), "%s", deep_path(r, stacks));
		ck_assert_str_ne(lied, clean);
		t.on = false;
		if (unstopped) {
			ck_assert_str_eq(deep_path(r, stacks), clean);
			/* Confirmed now: the same again. */
			ck_assert_str_eq(deep_path(r, stacks), clean);
		} else {
			ck_assert_str_eq(deep_path(r, stacks), lied);
		}
		ruby_reader_destroy(r);
	}
	mem_destroy(t.base);
	snapshot_meta_free(&meta);
	free(stacks);
}
END_TEST

/*
 * The reader over damaged memory of a real process: flipped bytes in the
 * recorded regions must give wrong or dropped stacks, never a crash or an
 * unbounded walk (the reader's hardening, exercised through this module).
 */
START_TEST(test_ruby31_damaged)
{
	struct ruby_stack *stacks = xcalloc(16, sizeof(*stacks));
	struct snapshot_meta meta;
	unsigned char *file, *copy;
	unsigned seed = 4242;
	size_t len, memory_at;
	struct ruby_vm vm;

	file = slurp(RUBY31_SNAP, &len);
	copy = xmalloc(len);
	/* Mutate only after the META/MAPS/REGS sections: find MEMORY by
	 * walking the section headers. */
	memory_at = 8 + 12;
	for (;;) {
		uint32_t type;
		uint64_t slen;

		memcpy(&type, file + memory_at, 4);
		memcpy(&slen, file + memory_at + 8, 8);
		if (type == 4)
			break;
		memory_at += 16 + slen;
		ck_assert_uint_lt(memory_at, len);
	}
	memory_at += 16 + 8;
	for (int i = 0; i < 300; i++) {
		struct ruby_reader *r;
		struct mem *m;
		int n;

		memcpy(copy, file, len);
		for (int j = 0; j < 1 + i % 8; j++)
			copy[memory_at + rand_r(&seed) % (len - memory_at)] ^=
				(unsigned char)(1 + rand_r(&seed) % 255);
		m = snapshot_from_buffer(copy, len, &meta);
		if (!m)
			continue;	/* hit a region header */
		if (ruby_vm_meta_get(&meta, &vm) == 0) {
			r = ruby_reader_create(&vm, m, 0);
			n = ruby_read_stacks(r, stacks, 16);
			ck_assert_int_le(n, 16);
			for (int k = 0; k < n; k++)
				ck_assert_int_le(stacks[k].nframes,
						 RUBY_MAX_FRAMES);
			ruby_reader_destroy(r);
		}
		snapshot_meta_free(&meta);
		mem_destroy(m);
	}
	free(copy);
	free(file);
	free(stacks);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("snapshot");
	TCase *fuzz = tcase_create("damaged");
	TCase *ruby = tcase_create("ruby31");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_recorder_merge);
	tcase_add_test(tc, test_recorder_bound);
	tcase_add_test(tc, test_crafted);
	tcase_add_test(tc, test_meta_vm);
	suite_add_tcase(s, tc);
	/* Under ASan the byte-flip loop takes a while. */
	tcase_set_timeout(fuzz, 120);
	tcase_add_test(fuzz, test_truncated);
	tcase_add_test(fuzz, test_flipped);
	suite_add_tcase(s, fuzz);
	tcase_add_test(ruby, test_ruby31_frames);
	tcase_add_test(ruby, test_ruby31_unstopped_cache);
	tcase_set_timeout(ruby, 120);
	tcase_add_test(ruby, test_ruby31_damaged);
	suite_add_tcase(s, ruby);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
