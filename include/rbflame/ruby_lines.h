/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * pc -> line of an iseq, from its insns_info table. Release builds free
 * the positions array once the succinct bit-vector index exists (Ruby
 * 2.6+), so the line is found as Ruby's own get_insn_info_succinct_bitvector
 * does: the rank of the instruction's position in the bit vector is the
 * index of its entry. Reads only the words it needs: the index of a small
 * iseq is allocated shorter than its full declared size.
 */
#ifndef RBFLAME_RUBY_LINES_H
#define RBFLAME_RUBY_LINES_H

#include <stdint.h>

#include "rbflame/ruby_layout.h"

struct mem;

/**
 * The entry index (0-based) for instruction position pos from the
 * succinct index at succ, given the table has size entries. -1 when the
 * memory is unreadable or the result is out of range.
 */
int ruby_succ_index(struct mem *m, const struct ruby_layout *L, uint64_t succ,
		    uint64_t pos, uint32_t size);

/**
 * The line executing at pc in the iseq whose constant body is at body:
 * for an instruction Ruby gave line 0 (one its compiler made up), the
 * line of the code before it. Returns the line (>= 1), or -1 when it
 * cannot be read or makes no sense.
 */
int ruby_line_of(struct mem *m, const struct ruby_layout *L, uint64_t body,
		 uint64_t pc);

#endif
