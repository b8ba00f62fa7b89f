/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Helpers for the layout probes. A probe file #includes one of Ruby's own
 * .c files, so that the private structs of that translation unit are in
 * scope, then lists what struct ruby_layout needs in one function. Nothing
 * is linked or run: the probe is only compiled to an object file (with the
 * flags of the configured Ruby tree), and the generator reads the answers
 * back from two kinds of ELF sections, in the manner of the kernel's
 * asm-offsets.c:
 *
 *   .rbl.vals        "name value" strings, one per RBL_VAL(), NUL-separated
 *   .rbl.bits.NAME   a zeroed object whose bitfield is all ones: the
 *                    generator scans its bytes for the bit position and
 *                    width (offsetof() cannot name a bitfield)
 *
 * Field names are the members of struct ruby_layout (ruby_layout.h); a
 * field a version lacks is simply not emitted and becomes RUBY_LAYOUT_NONE.
 */
#ifndef RBFLAME_RUBY_LAYOUT_PROBE_H
#define RBFLAME_RUBY_LAYOUT_PROBE_H

#include <stddef.h>
#include "ruby/version.h"	/* RUBY_API_VERSION_* */
#include "version.h"		/* RUBY_VERSION_TEENY */

/* 207 for 2.7, 301 for 3.1, ... */
#define RBL_API	(RUBY_API_VERSION_MAJOR * 100 + RUBY_API_VERSION_MINOR)

/* Emits "name value" for an integer constant expression. */
#define RBL_VAL(name, expr)						\
	__asm__ volatile(".pushsection .rbl.vals,\"a\"\n\t"		\
			 ".asciz \"" #name " %c0\"\n\t"			\
			 ".popsection" : : "i" ((long)(expr)))

#define RBL_OFF(name, type, member)	RBL_VAL(name, offsetof(type, member))
#define RBL_SIZE(name, type)		RBL_VAL(name, sizeof(type))

/*
 * Places a zeroed `type` whose bitfield `field` (a designator such as
 * .status or .flags.mode) is all ones in section .rbl.bits.name; the
 * generator turns it into name_bit and name_width.
 */
#define RBL_BITS(name, type, field)					\
	__attribute__((used, section(".rbl.bits." #name)))		\
	static const type rbl_bits_##name = { field = -1 }

#endif /* RBFLAME_RUBY_LAYOUT_PROBE_H */
