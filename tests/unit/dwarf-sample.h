/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * Types for the DWARF reader's unit test (check_ruby_dwarf.c): compiled
 * with -g into dwarf-sample-4 and dwarf-sample-5 (DWARF 4 and 5, whose
 * bitfields are described differently), and into the test itself, which
 * checks the DWARF's answers against offsetof() and the bits it sets.
 */
#ifndef RBFLAME_DWARF_SAMPLE_H
#define RBFLAME_DWARF_SAMPLE_H

#include <stdint.h>

enum sample_color {
	SAMPLE_RED = 1,
	SAMPLE_MAGIC = 0x7fff0001,
	SAMPLE_NEGATIVE = -2,
};

/* Constants as Ruby declares them: anonymous enums. */
enum {
	SAMPLE_SHIFT = 12,
	SAMPLE_MASK = 0x7c000,
	SAMPLE_HIGH = 0x80,	/* DW_FORM_data1: not -128 */
	SAMPLE_LAST_OP = 0xa9,
};

struct sample_flags {
	int before;
	unsigned int mode : 2;
	unsigned int during : 1;
	unsigned int : 0;
	unsigned int late : 5;
};

typedef struct sample_struct {
	void *p;
	struct sample_flags flags;
	union {
		struct {
			long len;
			char *ptr;
		} heap;
		char ary[24];
	} as;
	struct {		/* anonymous member */
		int x;
		int y;
	};
	enum sample_color color;
	unsigned char kind : 4;
	uint64_t imm[6];
} sample_t;

#endif
