// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The writers' shared test profile and golden-file helpers. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "writer_fixture.h"
#include "rbflame/xmalloc.h"

#ifndef SRCDIR
#define SRCDIR "."
#endif

static uint32_t
frame(struct profile *p, enum profile_kind kind, const char *name,
      const char *file, int line)
{
	struct profile_frame_desc d = {
		.kind = kind, .name = name, .file = file, .line = line,
	};

	return profile_frame_make(p, &d);
}

struct profile *
fixture_hostile(void)
{
	struct profile *p = profile_create();
	static char longname[10240 + 1];
	struct profile_frame_desc nat = {
		.kind = PROFILE_FRAME_NATIVE, .name = "memcpy",
		.file = "/lib/x86_64-linux-gnu/libc.so.6",
		.build_id = "0123456789abcdef", .addr = 0x9a0c0,
		.text = "memcpy",
	};
	struct profile_frame_desc anon = {
		.kind = PROFILE_FRAME_NATIVE, .name = "",
		.file = "/usr/lib/x.so", .build_id = "feed", .addr = 0x42,
		.text = "[x.so+0x42]",
	};
	uint32_t main_, meth5, meth6, times, cfn, gc, mark, blk, lng, bad,
		 paren, ctl, n1, n2;

	memset(longname, 'L', sizeof(longname) - 1);
	p->meta.pid = 4242;
	p->meta.command = xstrdup("ruby \"w;x\".rb\n--flag \xff");
	p->meta.ruby_version = xstrdup("3.1.2");
	p->meta.mode = xstrdup("wall");
	p->meta.start_unix_ns = 1700000000123456789ull;
	p->stats.rate_hz = 100;
	p->stats.duration_s = 0.25;
	p->stats.ticks = 12;
	p->stats.failed = 2;

	main_ = frame(p, PROFILE_FRAME_RUBY, "<main>", "/app/a.rb", 1);
	meth5 = frame(p, PROFILE_FRAME_RUBY, "A#b;c\"q\"", "/app/dir/x\ny.rb",
		      5);
	meth6 = frame(p, PROFILE_FRAME_RUBY, "A#b;c\"q\"", "/app/dir/x\ny.rb",
		      6);
	times = frame(p, PROFILE_FRAME_CFUNC, "Integer#times", "/app/a.rb", 1);
	cfn = frame(p, PROFILE_FRAME_RUBY, "block in <main>", "/app/a.rb", 2);
	gc = frame(p, PROFILE_FRAME_STATE, "(garbage collection)", NULL, 0);
	mark = frame(p, PROFILE_FRAME_STATE, "(marking)", NULL, 0);
	blk = frame(p, PROFILE_FRAME_STATE, "(blocked)", NULL, 0);
	lng = frame(p, PROFILE_FRAME_RUBY, longname, "/app/long.rb", 9);
	bad = frame(p, PROFILE_FRAME_RUBY, "bad\xff\xfe utf8 \xc3", "/app/\xff.rb",
		    3);
	paren = profile_frame(p, "(12) looks compressed");
	ctl = profile_frame(p, "ctl\x01\t\r\x7f name 12");
	n1 = profile_frame_make(p, &nat);
	n2 = profile_frame_make(p, &anon);
	profile_thread_name(p, 4242, 4242, "main");
	profile_thread_name(p, 4242, 4243, "w\"q;\xff\n");

	{
		const uint32_t s1[] = { main_, meth5 };
		const uint32_t s2[] = { main_, meth6, times, cfn };
		const uint32_t s3[] = { main_, meth5, gc, mark };
		const uint32_t s4[] = { main_, meth5, meth6, meth5 };
		const uint32_t s5[] = { main_, blk };
		const uint32_t s6[] = { main_, lng, bad, paren, ctl };
		const uint32_t s7[] = { main_, times, n1, n2 };
		uint64_t t = 1000;

		profile_add_sample(p, t, 4242, 4242, PROFILE_STATE_RUNNING,
				   s1, 2);
		profile_add_sample(p, t, 4242, 4243, PROFILE_STATE_BLOCKED,
				   s5, 2);
		t += 10000000;
		profile_add_sample(p, t, 4242, 4242, PROFILE_STATE_RUNNING,
				   s1, 2);
		profile_add_sample(p, t, 4242, 4243, PROFILE_STATE_BLOCKED,
				   s5, 2);
		t += 10100000;
		profile_add_sample(p, t, 4242, 4242, PROFILE_STATE_MARKING,
				   s3, 4);
		t += 9900000;
		profile_add_sample(p, t, 4242, 4242, PROFILE_STATE_RUNNING,
				   s2, 4);
		profile_add_sample(p, t, 4242, 4243, PROFILE_STATE_NO_GVL,
				   s7, 4);
		t += 10000000;
		profile_add_sample(p, t, 4242, 4242, PROFILE_STATE_RUNNING,
				   s4, 4);
		profile_add_sample(p, t, 4242, 4243, PROFILE_STATE_RUNNING,
				   s6, 5);
		/* Counted without times, as a merge or collapsed input. */
		profile_add_count(p, s2, 4, 3);
		profile_add_count(p, s6, 3, 2);
	}
	p->stats.per_state[PROFILE_STATE_RUNNING] = 4;
	return p;
}

struct profile *
fixture_rbspy(void)
{
	struct profile *p = profile_create();
	uint32_t f1 = frame(p, PROFILE_FRAME_RUBY, "func1", "file1.rb", 1);
	uint32_t f2 = frame(p, PROFILE_FRAME_RUBY, "func2", "file2.rb", 2);
	uint32_t f3 = frame(p, PROFILE_FRAME_RUBY, "func3", "file3.rb", 3);
	uint32_t fx = frame(p, PROFILE_FRAME_RUBY, "funcX", "file1.rb", 42);
	const uint32_t s[6][3] = {
		{ f1 }, { f1, f2, f3 }, { f1, f2 }, { f1, f3 }, { f1, f2 },
		{ f1, fx, f3 },
	};
	const size_t d[6] = { 1, 3, 2, 2, 2, 3 };

	for (int i = 0; i < 6; i++)
		profile_add(p, (uint64_t)i * 10000000, 1, s[i], d[i]);
	return p;
}

char *
fixture_write(const struct output_ops *w, const struct profile *p,
	      size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_int_eq(output_write(w, p, NULL, f), 0);
	fclose(f);
	return buf;
}

char *
fixture_gunzip(const char *buf, size_t len, size_t skip, size_t *outlen)
{
	z_stream z;
	size_t cap = 1 << 20;
	char *out = xmalloc(cap);

	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)buf + skip;
	z.avail_in = len - skip;
	z.next_out = (unsigned char *)out;
	z.avail_out = cap;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = cap - z.avail_out;
	inflateEnd(&z);
	return out;
}

void
fixture_golden(const char *name, const char *buf, size_t len)
{
	char path[4096];
	FILE *f;
	char *golden;
	long glen;

	snprintf(path, sizeof(path), "%s/tests/unit/data/%s", SRCDIR, name);
	if (getenv("RBFLAME_UPDATE_GOLDEN")) {
		f = fopen(path, "wb");
		ck_assert_msg(f != NULL, "cannot write %s", path);
		fwrite(buf, 1, len, f);
		fclose(f);
	}
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s (RBFLAME_UPDATE_GOLDEN=1 makes it)",
		      path);
	fseek(f, 0, SEEK_END);
	glen = ftell(f);
	rewind(f);
	golden = xmalloc(glen + 1);
	ck_assert_uint_eq(fread(golden, 1, glen, f), (size_t)glen);
	fclose(f);
	ck_assert_msg((size_t)glen == len && !memcmp(golden, buf, len),
		      "output differs from %s (%zu bytes, golden %ld)", path,
		      len, glen);
	free(golden);
}
