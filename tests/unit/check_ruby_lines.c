// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The succinct line-table decoder against a brute-force rank: tables are
 * built here the way iseq.c builds them (7-bit ranks for the first 54
 * positions, then 512-position blocks with 9-bit small-block ranks), for
 * every generated layout, in this process's memory, and read back through
 * the live memory backend as the reader reads a target.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbflame/mem.h"
#include "rbflame/ruby_layout.h"
#include "rbflame/ruby_lines.h"

/* Builds the index of the sorted positions pos[0..n) into a zeroed
 * buffer laid out as L says. */
static unsigned char *
build_table(const struct ruby_layout *L, const int *pos, int n, int max_pos)
{
	int imm = L->succ_immediate_size;
	int imm_words = (max_pos < imm ? max_pos + 8 : imm) / 9;
	int blocks = max_pos < imm ? 0 : (max_pos - imm + 511) / 512;
	size_t size = L->succ_succ_part + blocks * L->sizeof_succ_dict_block;
	unsigned char *t = calloc(1, size + 64);
	int r = 0;

	ck_assert_int_le(imm_words * 8, L->succ_succ_part);
	for (int w = 0; w < imm_words; w++) {
		uint64_t v = 0;

		for (int i = 0; i < 9; i++) {
			if (r < n && pos[r] == w * 9 + i)
				r++;
			v |= (uint64_t)r << (7 * i);
		}
		memcpy(t + L->succ_imm_part + 8 * w, &v, 8);
	}
	for (int b = 0; b < blocks; b++) {
		unsigned char *blk = t + L->succ_succ_part +
				     b * L->sizeof_succ_dict_block;
		uint32_t rank = r;
		uint64_t small = 0;
		int small_rank = 0;

		memcpy(blk + L->succ_block_rank, &rank, 4);
		for (int j = 0; j < 8; j++) {
			uint64_t bits = 0;

			if (j)
				small |= (uint64_t)small_rank << (9 * (j - 1));
			for (int i = 0; i < 64; i++) {
				if (r < n && pos[r] == imm + b * 512 + j * 64 + i) {
					bits |= 1ull << i;
					r++;
				}
			}
			memcpy(blk + L->succ_block_bits + 8 * j, &bits, 8);
			small_rank += __builtin_popcountll(bits);
		}
		memcpy(blk + L->succ_block_small_block_ranks, &small, 8);
	}
	ck_assert_int_eq(r, n);
	return t;
}

static int
brute_rank(const int *pos, int n, int x)
{
	int r = 0;

	while (r < n && pos[r] <= x)
		r++;
	return r;
}

/* Sorted distinct positions in [0, max_pos], pos[0] = 0. */
static int
random_positions(int *pos, int max_pos, unsigned *seed, int density)
{
	int n = 0;

	for (int p = 0; p <= max_pos; p++)
		if (p == 0 || rand_r(seed) % 100 < density)
			pos[n++] = p;
	return n;
}

START_TEST(test_succ_index_all_layouts)
{
	struct mem *m = mem_create_live(getpid());
	unsigned seed = 12345;
	static int pos[5000];

	for (int li = 0; ruby_layouts[li]; li++) {
		const struct ruby_layout *L = ruby_layouts[li];
		/* Not 54: iseq.c then allocates no block for position 54
		 * itself (its own off-by-one), so no table to compare. */
		const int sizes[] = { 3, 20, 53, 55, 60, 600, 1100, 4000 };

		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			int max_pos = sizes[s];
			int n = random_positions(pos, max_pos, &seed, 30);
			unsigned char *t = build_table(L, pos, n, max_pos);

			for (int x = 0; x <= max_pos; x++) {
				mem_flush(m);
				ck_assert_msg(ruby_succ_index(m, L, (uintptr_t)t,
							      x, n) ==
						      brute_rank(pos, n, x) - 1,
					      "layout %s max_pos %d pos %d",
					      L->version, max_pos, x);
			}
			free(t);
		}
	}
	mem_destroy(m);
}
END_TEST

/* The line of entry i in test_line_of's tables: 0, as Ruby gives the
 * instructions its compiler makes up, for the first, every fifth from
 * the third, and a run of 20 (past what a lookup looks back). */
static int32_t
line_at(int i)
{
	if (i == 0 || i % 5 == 2 || (i >= 30 && i < 50))
		return 0;
	return 100 + i;
}

/* What ruby_line_of() says at entry idx: its line, or past a 0 the
 * nearest earlier one within 16 entries, else -1. */
static int
brute_line(int idx)
{
	for (int j = idx; j >= 0 && j >= idx - 16; j--)
		if (line_at(j))
			return line_at(j);
	return -1;
}

START_TEST(test_line_of)
{
	const struct ruby_layout *L = ruby_layouts[0];
	struct mem *m = mem_create_live(getpid());
	static int pos[700];
	int n, max_pos = 650;
	unsigned seed = 7;
	unsigned char body[1024] = { 0 };
	uint64_t encoded[700];
	unsigned char *info, *t;
	uint64_t v;
	uint32_t u;

	for (int li = 0; ruby_layouts[li]; li++) {
		L = ruby_layouts[li];
		n = random_positions(pos, max_pos, &seed, 10);
		t = build_table(L, pos, n, max_pos);
		info = calloc(n, L->sizeof_insn_info_entry);
		for (int i = 0; i < n; i++) {
			int32_t line = line_at(i);

			memcpy(info + i * L->sizeof_insn_info_entry +
				       L->insn_info_line_no,
			       &line, 4);
		}
		memset(body, 0, sizeof(body));
		v = (uintptr_t)encoded;
		memcpy(body + L->body_iseq_encoded, &v, 8);
		v = (uintptr_t)info;
		memcpy(body + L->body_insns_info_body, &v, 8);
		v = (uintptr_t)t;
		memcpy(body + L->body_insns_info_succ, &v, 8);
		u = n;
		memcpy(body + L->body_insns_info_size, &u, 4);
		u = max_pos + 1;
		memcpy(body + L->body_iseq_size, &u, 4);
		for (int x = 1; x <= max_pos; x++) {
			/* pc points past the instruction: the line is that of
			 * position x - 1. */
			int want = brute_line(brute_rank(pos, n, x - 1) - 1);

			mem_flush(m);
			ck_assert_int_eq(ruby_line_of(m, L, (uintptr_t)body,
						      (uintptr_t)&encoded[x]),
					 want);
		}
		/* Garbage: pc outside the bytecode, misaligned, no table. */
		ck_assert_int_eq(ruby_line_of(m, L, (uintptr_t)body,
					      (uintptr_t)encoded - 8), -1);
		ck_assert_int_eq(ruby_line_of(m, L, (uintptr_t)body,
					      (uintptr_t)encoded + 3), -1);
		ck_assert_int_eq(ruby_line_of(m, L, (uintptr_t)body,
					      (uintptr_t)&encoded[max_pos + 5]),
				 -1);
		ck_assert_int_eq(ruby_succ_index(m, L, 0, 3, n), -1);
		ck_assert_int_eq(ruby_line_of(m, L, 16, (uintptr_t)encoded), -1);
		free(info);
		free(t);
	}
	mem_destroy(m);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("ruby_lines");
	TCase *tc = tcase_create("succinct");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_succ_index_all_layouts);
	tcase_add_test(tc, test_line_of);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
