// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The DWARF reader (src/ruby/dwarf.c) on small programs compiled with -g,
 * in DWARF 4 and DWARF 5 (dwarf-sample.c): offsets through nested and
 * anonymous members, sizes, bitfields in both encodings, enumerators and
 * a constant; the answers are checked against offsetof() and the bits the
 * compiler sets here. Also the field list of struct ruby_layout
 * (src/ruby/layout.c) against the struct, its compare and print
 * helpers, and that every member has a DWARF rule.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/ruby_dwarf.h"
#include "rbflame/ruby_layout.h"

#include "dwarf-sample.h"

static const char *const samples[] = {
	BUILDDIR "/tests/unit/dwarf-sample-4",
	BUILDDIR "/tests/unit/dwarf-sample-5",
};

/* Bit position and width of a bitfield, from the bits it sets. */
#define BITS_OF(field, bit, width)                                           \
	do {                                                                 \
		sample_t s_;                                                 \
		const unsigned char *b_ = (const unsigned char *)&s_;        \
		memset(&s_, 0, sizeof(s_));                                  \
		s_.field--; /* 0 - 1: every bit of the field */          \
		*(bit) = -1;                                                 \
		*(width) = 0;                                                \
		for (size_t i_ = 0; i_ < sizeof(s_) * 8; i_++)               \
			if (b_[i_ / 8] >> (i_ % 8) & 1) {                    \
				if (*(bit) < 0)                              \
					*(bit) = (long)i_;                   \
				(*(width))++;                                \
			}                                                    \
	} while (0)

static struct ruby_dwarf *
open_sample(int i)
{
	struct ruby_dwarf *d = ruby_dwarf_open(samples[i], NULL);

	ck_assert_msg(d, "%s: %s", samples[i], strerror(errno));
	return d;
}

START_TEST(offsets)
{
	struct ruby_dwarf *d = open_sample(_i);
	uint64_t v;

	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "p", &v), 0);
	ck_assert_uint_eq(v, offsetof(sample_t, p));
	ck_assert_int_eq(ruby_dwarf_offset(d, "struct sample_struct", "as.heap.ptr",
					   &v), 0);
	ck_assert_uint_eq(v, offsetof(sample_t, as.heap.ptr));
	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "as.ary", &v), 0);
	ck_assert_uint_eq(v, offsetof(sample_t, as.ary));
	/* Through the anonymous struct. */
	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "y", &v), 0);
	ck_assert_uint_eq(v, offsetof(sample_t, y));
	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "color", &v), 0);
	ck_assert_uint_eq(v, offsetof(sample_t, color));
	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "imm", &v), 0);
	ck_assert_uint_eq(v, offsetof(sample_t, imm));
	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "flags.before", &v), 0);
	ck_assert_uint_eq(v, offsetof(sample_t, flags.before));
	/* What is not there. */
	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "nope", &v), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "as.heap.nope", &v),
			 -1);
	ck_assert_int_eq(ruby_dwarf_offset(d, "no_such_t", "p", &v), -1);
	ck_assert_int_eq(ruby_dwarf_offset(d, "struct sample_flags", "", &v),
			 -1);
	/* A bitfield has no byte offset. */
	ck_assert_int_eq(ruby_dwarf_offset(d, "sample_t", "kind", &v), -1);
	ruby_dwarf_close(d);
}
END_TEST

START_TEST(sizes)
{
	struct ruby_dwarf *d = open_sample(_i);
	uint64_t v;

	ck_assert_int_eq(ruby_dwarf_size(d, "sample_t", &v), 0);
	ck_assert_uint_eq(v, sizeof(sample_t));
	ck_assert_int_eq(ruby_dwarf_size(d, "struct sample_flags", &v), 0);
	ck_assert_uint_eq(v, sizeof(struct sample_flags));
	ck_assert_int_eq(ruby_dwarf_member_size(d, "sample_t", "imm", &v), 0);
	ck_assert_uint_eq(v, sizeof(((sample_t *)0)->imm));
	ck_assert_int_eq(ruby_dwarf_member_size(d, "sample_t", "as", &v), 0);
	ck_assert_uint_eq(v, sizeof(((sample_t *)0)->as));
	ck_assert_int_eq(ruby_dwarf_size(d, "struct nope", &v), -1);
	ruby_dwarf_close(d);
}
END_TEST

START_TEST(bitfields)
{
	struct ruby_dwarf *d = open_sample(_i);
	uint64_t bit, width;
	long want_bit, want_width;

	BITS_OF(flags.mode, &want_bit, &want_width);
	ck_assert_int_eq(ruby_dwarf_bits(d, "sample_t", "flags.mode", &bit,
					 &width), 0);
	ck_assert_uint_eq(bit, want_bit);
	ck_assert_uint_eq(width, 2);
	BITS_OF(flags.during, &want_bit, &want_width);
	ck_assert_int_eq(ruby_dwarf_bits(d, "sample_t", "flags.during", &bit,
					 &width), 0);
	ck_assert_uint_eq(bit, want_bit);
	ck_assert_uint_eq(width, 1);
	/* After a zero-width field: the next storage unit. */
	BITS_OF(flags.late, &want_bit, &want_width);
	ck_assert_int_eq(ruby_dwarf_bits(d, "sample_t", "flags.late", &bit,
					 &width), 0);
	ck_assert_uint_eq(bit, want_bit);
	ck_assert_uint_eq(width, 5);
	BITS_OF(kind, &want_bit, &want_width);
	ck_assert_int_eq(ruby_dwarf_bits(d, "sample_t", "kind", &bit, &width),
			 0);
	ck_assert_uint_eq(bit, want_bit);
	ck_assert_uint_eq(width, want_width);
	/* Not a bitfield. */
	ck_assert_int_eq(ruby_dwarf_bits(d, "sample_t", "color", &bit, &width),
			 -1);
	ruby_dwarf_close(d);
}
END_TEST

START_TEST(enums)
{
	struct ruby_dwarf *d = open_sample(_i);
	int64_t v;

	ck_assert_int_eq(ruby_dwarf_enum(d, "SAMPLE_RED", &v), 0);
	ck_assert_int_eq(v, SAMPLE_RED);
	ck_assert_int_eq(ruby_dwarf_enum(d, "SAMPLE_MAGIC", &v), 0);
	ck_assert_int_eq(v, SAMPLE_MAGIC);
	ck_assert_int_eq(ruby_dwarf_enum(d, "SAMPLE_NEGATIVE", &v), 0);
	ck_assert_int_eq(v, -2);
	ck_assert_int_eq(ruby_dwarf_enum(d, "SAMPLE_SHIFT", &v), 0);
	ck_assert_int_eq(v, 12);
	ck_assert_int_eq(ruby_dwarf_enum(d, "SAMPLE_MASK", &v), 0);
	ck_assert_int_eq(v, 0x7c000);
	ck_assert_int_eq(ruby_dwarf_enum(d, "SAMPLE_HIGH", &v), 0);
	ck_assert_int_eq(v, 0x80);
	ck_assert_int_eq(ruby_dwarf_enum(d, "SAMPLE_LAST_OP", &v), 0);
	ck_assert_int_eq(v, 0xa9);
	/* A constant variable the compiler kept as a value. */
	if (ruby_dwarf_enum(d, "SAMPLE_UNIT", &v) == 0)
		ck_assert_int_eq(v, 512);
	ck_assert_int_eq(ruby_dwarf_enum(d, "SAMPLE_NOPE", &v), -1);
	ck_assert_int_eq(ruby_dwarf_member_is(d, "sample_t", "color",
					      "sample_t"), 0);
	ck_assert_int_eq(ruby_dwarf_has_rust(d), 0);
	ruby_dwarf_close(d);
}
END_TEST

START_TEST(not_ruby)
{
	struct ruby_dwarf *d = open_sample(0);
	struct ruby_dwarf_layout dl;
	char why[200];

	/* Only the named units are indexed. */
	ck_assert_ptr_null(ruby_dwarf_open(samples[0], ruby_dwarf_cus));
	ck_assert_int_eq(errno, ENOENT);
	/* A program with DWARF but no Ruby: a reason, not a layout. */
	ck_assert_int_eq(ruby_dwarf_layout(d, "3.1.2", "sample", &dl, why,
					   sizeof(why)), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_msg(strstr(why, "no ") == why, "why: %s", why);
	ck_assert_int_eq(ruby_dwarf_layout(d, "three", "sample", &dl, why,
					   sizeof(why)), -1);
	ck_assert_int_eq(errno, EINVAL);
	ruby_dwarf_close(d);
	/* No DWARF at all. */
	ck_assert_ptr_null(ruby_dwarf_open("/dev/null", NULL));
	ck_assert_ptr_null(ruby_dwarf_open("/nonexistent", NULL));
}
END_TEST

/*
 * A file linking a dwz file: libdw would open the name it gives itself,
 * with open(2) on the host. Without the dwz file from the caller (found
 * inside the target's root by elf_find_dwarf()) the DWARF is refused.
 */
START_TEST(dwz_link_needs_alt)
{
	char dir[] = "/tmp/check_ruby_dwarf.XXXXXX", cmd[1024], path[256];
	static const char link[] = "/fifo\0\x12\x34\x56\x78\x9a";
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/link.bin", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fwrite(link, 1, sizeof(link) - 1, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --add-section .gnu_debugaltlink='%s' '%s' '%s/dwz'",
		 path, samples[0], dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/dwz", dir);
	errno = 0;
	ck_assert_ptr_null(ruby_dwarf_open(path, NULL));
	ck_assert_int_eq(errno, ENOLINK);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static size_t
field_size(const struct ruby_layout_field *f)
{
	switch (f->type) {
	case RUBY_FIELD_STR:
		return sizeof(const char *);
	case RUBY_FIELD_U8:
	case RUBY_FIELD_I8:
		return 1;
	case RUBY_FIELD_U16:
		return 2;
	case RUBY_FIELD_U32:
		return 4;
	}
	return 0;
}

/*
 * The field table and the struct come from one list: the table holds
 * each member once, in the struct's order, and nothing but members.
 */
START_TEST(field_list)
{
	const struct ruby_layout_field *f, *prev = NULL;
	int n = 0;

	for (f = ruby_layout_fields; f->name; prev = f++, n++) {
		ck_assert_uint_ne(field_size(f), 0);
		ck_assert_uint_le(f->offset + field_size(f),
				  sizeof(struct ruby_layout));
		ck_assert_ptr_eq(ruby_layout_field(f->name), f);
		if (prev)
			ck_assert_msg(f->offset >= prev->offset +
						     field_size(prev),
				      "%s overlaps %s or comes before it",
				      f->name, prev->name);
	}
	ck_assert_int_gt(n, 200);
	ck_assert_str_eq(ruby_layout_fields[0].name, "version");
	ck_assert_uint_eq(ruby_layout_fields[0].offset, 0);
}
END_TEST

/* Whether s is "a" or "a|b|...", no part empty. */
static bool
alternatives_ok(const char *s)
{
	return s && *s && s[0] != '|' && s[strlen(s) - 1] != '|' &&
	       !strstr(s, "||");
}

static bool
ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n > m && !strcmp(s + n - m, end);
}

/*
 * Every member of struct ruby_layout has a DWARF rule, or is marked as
 * having none (NONE), and each rule has what its HOW needs; a CODE rule
 * without its function does not compile. A member added without a rule
 * fails here.
 */
START_TEST(rules)
{
	const struct ruby_layout_field *f = ruby_layout_fields;
	const struct ruby_dwarf_rule *r = ruby_dwarf_rules;

	for (; f->name; f++, r++) {
		const char *n = f->name;
		bool arg = !strcmp(n, "version") || !strcmp(n, "source") ||
			   !strcmp(n, "api_major") || !strcmp(n, "api_minor");
		char bit[64];

		ck_assert_msg(r->how >= RUBY_DWARF_HOW_OFF &&
				      r->how <= RUBY_DWARF_HOW_NONE,
			      "%s: no DWARF rule", n);
		ck_assert_msg(!r->code == (r->how != RUBY_DWARF_HOW_CODE),
			      "%s: code() without CODE, or CODE without", n);
		/* ruby_dwarf_layout() sets these four from its arguments. */
		ck_assert_msg(arg == (r->how == RUBY_DWARF_HOW_ARG),
			      "%s: ARG is for the identity only", n);
		ck_assert_msg(ends_with(n, "_bit") ==
				      (r->how == RUBY_DWARF_HOW_BITS),
			      "%s: BITS is for NAME_bit", n);
		switch (r->how) {
		case RUBY_DWARF_HOW_OFF:
		case RUBY_DWARF_HOW_BITS:
			ck_assert_msg(alternatives_ok(r->type) &&
					      alternatives_ok(r->member),
				      "%s: OFF and BITS need a type and a "
				      "member", n);
			break;
		case RUBY_DWARF_HOW_SIZE:
			ck_assert_msg(alternatives_ok(r->type) && !r->member,
				      "%s: SIZE takes a type only", n);
			break;
		case RUBY_DWARF_HOW_ENUM:
			ck_assert_msg(!r->type && r->member && *r->member &&
					      !strchr(r->member, '|'),
				      "%s: ENUM takes one constant", n);
			break;
		case RUBY_DWARF_HOW_WIDTH:
			/* Set by the BITS rule right before it. */
			ck_assert_msg(ends_with(n, "_width"), "%s: WIDTH", n);
			snprintf(bit, sizeof(bit), "%.*s_bit",
				 (int)(strlen(n) - 6), n);
			ck_assert_msg(f > ruby_layout_fields &&
					      r[-1].how == RUBY_DWARF_HOW_BITS &&
					      !strcmp(f[-1].name, bit),
				      "%s: WIDTH must follow %s, a BITS", n,
				      bit);
			/* fall through */
		case RUBY_DWARF_HOW_CODE:
		case RUBY_DWARF_HOW_ARG:
		case RUBY_DWARF_HOW_NONE:
			ck_assert_msg(!r->type && !r->member,
				      "%s: no C names for this HOW", n);
			break;
		}
		if (r->how == RUBY_DWARF_HOW_WIDTH ||
		    r->how == RUBY_DWARF_HOW_ARG ||
		    r->how == RUBY_DWARF_HOW_NONE)
			ck_assert_msg(r->when == RUBY_DWARF_WHEN_ANY,
				      "%s: WHEN is ANY when there is no rule",
				      n);
	}
	ck_assert_msg(!r->how, "more DWARF rules than members");
}
END_TEST

START_TEST(field_helpers)
{
	struct ruby_layout a = *ruby_layout_find("3.1.2", NULL);
	struct ruby_layout b = a;
	const struct ruby_layout_field *f = ruby_layout_field("thread_ec");
	char buf[64];

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(ruby_layout_field("no_such_field"));
	ck_assert_ptr_null(ruby_layout_diff(&a, &b));
	/* Where a layout came from does not count. */
	b.source = "DWARF of /usr/bin/ruby";
	ck_assert_ptr_null(ruby_layout_diff(&a, &b));
	/* Nor whether it was built with YJIT (a configure option). */
	b.yjit = !a.yjit;
	ck_assert_ptr_null(ruby_layout_diff(&a, &b));
	b.yjit = a.yjit;
	ck_assert_int_eq(ruby_layout_set(&b, f, 0x30), 0);
	ck_assert_int_eq(ruby_layout_get(&b, f), 0x30);
	ck_assert_ptr_eq(ruby_layout_diff(&a, &b), f);
	ck_assert_int_eq(ruby_layout_set(&b, f, RUBY_LAYOUT_NONE), -1);
	ck_assert_int_eq(ruby_layout_set(&b, f, -1), -1);
	ck_assert_int_eq(ruby_layout_set(&b, ruby_layout_field("env_index_me_cref"),
					 -2), 0);
	ruby_layout_format(&a, f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "40");
	ruby_layout_format(&a, ruby_layout_field("thread_nt"), buf,
			   sizeof(buf));
	ck_assert_str_eq(buf, "none");
	ruby_layout_format(&a, ruby_layout_field("gc_mode_compacting"), buf,
			   sizeof(buf));
	ck_assert_str_eq(buf, "none");
	ruby_layout_format(&a, ruby_layout_field("env_index_me_cref"), buf,
			   sizeof(buf));
	ck_assert_str_eq(buf, "-2");
	ruby_layout_format(&a, ruby_layout_field("source"), buf, sizeof(buf));
	ck_assert_str_eq(buf, "ruby3.1_3.1.2-7+deb12u1");
	ruby_layout_format(NULL, f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-");
}
END_TEST

static Suite *
dwarf_suite(void)
{
	Suite *s = suite_create("ruby_dwarf");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, offsets, 0, 2);
	tcase_add_loop_test(tc, sizes, 0, 2);
	tcase_add_loop_test(tc, bitfields, 0, 2);
	tcase_add_loop_test(tc, enums, 0, 2);
	tcase_add_test(tc, not_ruby);
	tcase_add_test(tc, dwz_link_needs_alt);
	tcase_add_test(tc, field_list);
	tcase_add_test(tc, rules);
	tcase_add_test(tc, field_helpers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(dwarf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
