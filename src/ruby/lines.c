// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Line numbers from the succinct bit-vector index of an iseq's
 * insns_info, the way iseq.c's succ_index_lookup() computes them, over
 * untrusted memory: every read can fail and every index is range-checked.
 */
#include "config.h"

#include <errno.h>

#include "rbflame/mem.h"
#include "rbflame/ruby_lines.h"

#define ISEQ_MAX_SIZE (1u << 26)	/* instructions: far above real code */
#define LINE0_BACK 16	/* entries looked back past a line 0 */

int
ruby_succ_index(struct mem *m, const struct ruby_layout *L, uint64_t succ,
		uint64_t pos, uint32_t size)
{
	uint64_t rank;

	if (!succ)
		return -1;
	if (pos < L->succ_immediate_size) {
		uint64_t w;

		/* 9 ranks of 7 bits in each word of imm_part. */
		if (mem_read_u64(m, succ + L->succ_imm_part + 8 * (pos / 9),
				 &w) < 0)
			return -1;
		rank = (w >> (pos % 9 * 7)) & 0x7f;
	} else {
		uint64_t b = pos - L->succ_immediate_size;
		uint64_t blk = succ + L->succ_succ_part +
			       b / 512 * L->sizeof_succ_dict_block;
		unsigned sb = b % 512 / 64;
		uint64_t small = 0, word;
		uint32_t brank;

		if (mem_read(m, blk + L->succ_block_rank, &brank,
			     sizeof(brank)) < 0 ||
		    mem_read_u64(m, blk + L->succ_block_small_block_ranks,
				 &small) < 0 ||
		    mem_read_u64(m, blk + L->succ_block_bits + 8 * sb, &word) < 0)
			return -1;
		rank = brank + (sb ? (small >> ((sb - 1) * 9)) & 0x1ff : 0) +
		       (uint64_t)__builtin_popcountll(word << (63 - b % 64));
	}
	/* The rank counts entries up to and including pos: 1-based. */
	if (rank == 0 || rank > size)
		return -1;
	return (int)(rank - 1);
}

int
ruby_line_of(struct mem *m, const struct ruby_layout *L, uint64_t body,
	     uint64_t pc)
{
	uint64_t enc, info, succ = 0, pos;
	uint32_t size = 0, iseq_size = 0;
	int32_t line;
	int idx;

	if (mem_read_u64(m, body + L->body_iseq_encoded, &enc) < 0 ||
	    mem_read_u64(m, body + L->body_insns_info_body, &info) < 0 ||
	    mem_read(m, body + L->body_insns_info_size, &size,
		     sizeof(size)) < 0 ||
	    mem_read(m, body + L->body_iseq_size, &iseq_size,
		     sizeof(iseq_size)) < 0)
		return -1;
	if (!enc || !info || size == 0 || size > ISEQ_MAX_SIZE ||
	    iseq_size > ISEQ_MAX_SIZE || pc < enc || (pc - enc) % 8)
		return -1;
	pos = (pc - enc) / 8;
	if (pos > iseq_size)
		return -1;
	/* The pc points past the instruction being executed. */
	if (pos)
		pos--;
	if (size == 1) {
		idx = 0;
	} else {
		if (mem_read_u64(m, body + L->body_insns_info_succ, &succ) < 0)
			return -1;
		idx = ruby_succ_index(m, L, succ, pos, size);
		if (idx < 0)
			return -1;
	}
	/* Ruby's compiler gives the instructions it makes up line 0: the
	 * throw that passes an exception on at the end of an ensure clause,
	 * or of a rescue clause none of whose classes matched. A thread
	 * unwinding through ensure clauses spends its time at them (a
	 * Puma thread's "ensure in Puma::Server#process_client (server.rb:0)",
	 * which Ruby's own backtrace would print too). Such an instruction
	 * ends the code before it: the nearest earlier entry's line. */
	for (int back = 0; back <= LINE0_BACK && idx >= 0; back++, idx--) {
		if (mem_read(m, info + (uint64_t)idx * L->sizeof_insn_info_entry +
				       L->insn_info_line_no,
			     &line, sizeof(line)) < 0 || line < 0)
			return -1;
		if (line)
			return line;
	}
	return -1;
}
