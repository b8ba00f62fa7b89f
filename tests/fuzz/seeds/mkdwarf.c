// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Seed maker of fuzz_dwarf_layout: writes a C file whose DWARF, once
 * compiled with -g, describes a built-in layout the way a libruby debug
 * file does, for only the types, members and constants the DWARF rules
 * ask (ruby_dwarf_rules[]): a few KiB instead of the megabytes of Ruby's
 * own vm.o. Every struct is a union of packed one-member structs, each
 * padded to put its member at the layout's offset; nested paths
 * ("ractor.set") become nested structs of the same shape; bitfields sit
 * at their bit; constants are enumerators. The feature flags follow
 * from which members exist, as in a real build.
 *
 *	mkdwarf VERSION >vm.c           the C file for that built-in layout
 *	mkdwarf VERSION FILE            0 when FILE's DWARF gives it back
 *
 * Built and run by mkdwarf.sh against a build's librbflame.a.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/ruby_dwarf.h"
#include "rbflame/ruby_layout.h"
#include "rbflame/xmalloc.h"

#define MAX_KIDS 64

struct node {
	char name[64];
	int64_t off;	/* bytes from the start of the type; bits for a
			 * bitfield, whose width is > 0 */
	int width;
	int array;	/* > 0: unsigned long long name[array] */
	int nkids;
	struct node *kids[MAX_KIDS];
};

struct type {
	char name[64];	/* "struct X" or a typedef name */
	int64_t size;	/* -1: no size rule */
	struct node root;
};

static struct type types[64];
static int ntypes, npad;

static struct type *
type_get(const char *name)
{
	for (int i = 0; i < ntypes; i++)
		if (!strcmp(types[i].name, name))
			return &types[i];
	if (ntypes == 64)
		abort();
	snprintf(types[ntypes].name, sizeof(types[ntypes].name), "%s", name);
	types[ntypes].size = -1;
	return &types[ntypes++];
}

static struct node *
kid(struct node *n, const char *name, size_t len)
{
	struct node *k;

	for (int i = 0; i < n->nkids; i++)
		if (strlen(n->kids[i]->name) == len &&
		    !strncmp(n->kids[i]->name, name, len))
			return n->kids[i];
	if (n->nkids == MAX_KIDS)
		abort();
	k = xcalloc(1, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%.*s", (int)len, name);
	n->kids[n->nkids++] = k;
	return k;
}

/* Adds member path ("a.b.c") of type at off (bits when width > 0). */
static struct node *
add(const char *type, const char *path, int64_t off, int width)
{
	struct node *n = &type_get(type)->root;

	for (;;) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		n = kid(n, path, len);
		if (!dot)
			break;
		path = dot + 1;
	}
	n->off = off;
	n->width = width;
	return n;
}

/* The byte where n's first member starts (aggregates: their lowest). */
static int64_t
start(const struct node *n)
{
	int64_t lo = INT64_MAX;

	if (!n->nkids)
		return n->width ? n->off / 8 : n->off;
	for (int i = 0; i < n->nkids; i++) {
		int64_t s = start(n->kids[i]);

		if (s < lo)
			lo = s;
	}
	return lo;
}

static void emit_body(const struct node *n, int64_t base, int64_t size);

/* One member of an aggregate starting at byte base, in its padded
 * wrapper. */
static void
emit_member(const struct node *k, int64_t base)
{
	int64_t at = start(k) - base;

	printf("struct __attribute__((packed)) { ");
	if (at > 0)
		printf("char _p%d[%lld]; ", npad++, (long long)at);
	if (k->nkids) {
		printf("struct __attribute__((packed)) { ");
		emit_body(k, start(k), -1);
		printf("} %s; ", k->name);
	} else if (k->width) {
		int r = (int)((k->off - base * 8) % 8);

		if (r)
			printf("unsigned long long _p%d : %d; ", npad++, r);
		printf("unsigned long long %s : %d; ", k->name, k->width);
	} else if (k->array) {
		printf("unsigned long long %s[%d]; ", k->name, k->array);
	} else {
		printf("char %s; ", k->name);
	}
	printf("}; ");
}

static void
emit_body(const struct node *n, int64_t base, int64_t size)
{
	printf("union __attribute__((packed)) { ");
	for (int i = 0; i < n->nkids; i++)
		emit_member(n->kids[i], base);
	if (size > 0)
		printf("char _size[%lld]; ", (long long)size);
	printf("}; ");
}

/* Alternative i of "a|b" into buf; false past the last. */
static bool
alt(const char *list, int i, char *buf, size_t cap)
{
	const char *p = list;

	for (; i > 0; i--) {
		p = strchr(p, '|');
		if (!p)
			return false;
		p++;
	}
	snprintf(buf, cap, "%.*s", (int)strcspn(p, "|"), p);
	return true;
}

/* The first spelling that does not make a member whose presence is a
 * feature flag this layout has not set (src/ruby/dwarf.c, code_*()). */
static void
spelling(const struct ruby_layout *L, const char *type, const char *list,
	 char *buf, size_t cap)
{
	for (int i = 0; alt(list, i, buf, cap); i++) {
		if (!strcmp(type, "rb_vm_t") && !strncmp(buf, "ractor", 6) &&
		    L->threads != RUBY_LAYOUT_THREADS_RACTOR)
			continue;
		if (!strcmp(type, "struct RString") && !strcmp(buf, "len") &&
		    L->string != RUBY_LAYOUT_STRING_LEN_FIELD)
			continue;
		return;
	}
	abort();
}

/* Whether a rule before number i names the constant name already. */
static bool
seen(const char *name, size_t i)
{
	while (i-- > 0)
		if (ruby_dwarf_rules[i].how == RUBY_DWARF_HOW_ENUM &&
		    !strcmp(ruby_dwarf_rules[i].member, name))
			return true;
	return false;
}

static void
generate(const struct ruby_layout *L)
{
	char type[64], member[128];

	printf("/* Generated by tests/fuzz/seeds/mkdwarf for %s */\n",
	       L->version);
	printf("typedef unsigned long VALUE;\n");
	for (size_t i = 0; ruby_layout_fields[i].name; i++) {
		const struct ruby_layout_field *f = &ruby_layout_fields[i];
		const struct ruby_dwarf_rule *r = &ruby_dwarf_rules[i];
		int64_t v = ruby_layout_get(L, f);
		struct node *n;

		if ((f->type == RUBY_FIELD_U16 && v == RUBY_LAYOUT_NONE) ||
		    (f->type == RUBY_FIELD_U32 && v == RUBY_LAYOUT_NOVAL))
			continue;
		switch (r->how) {
		case RUBY_DWARF_HOW_ENUM:
			/* RUBY_FL_USHIFT answers two members. */
			if (i > 0 && seen(r->member, i))
				break;
			printf("enum e_%s { %s = %lldLL };\n", r->member,
			       r->member, (long long)v);
			break;
		case RUBY_DWARF_HOW_SIZE:
			alt(r->type, 0, type, sizeof(type));
			type_get(type)->size = v;
			break;
		case RUBY_DWARF_HOW_OFF:
		case RUBY_DWARF_HOW_BITS:
			alt(r->type, 0, type, sizeof(type));
			spelling(L, type, r->member, member, sizeof(member));
			n = add(type, member, v,
				r->how == RUBY_DWARF_HOW_OFF ? 0
				: r[1].how == RUBY_DWARF_HOW_WIDTH
					? (int)ruby_layout_get(L, f + 1)
					: 1);
			if (!strcmp(f->name, "succ_imm_part"))
				n->array = L->succ_immediate_size / 9;
			break;
		default:
			break;
		}
	}
	if (L->string == RUBY_LAYOUT_STRING_LEN_IN_FLAGS)
		printf("enum e_mask { RSTRING_EMBED_LEN_MASK = %uLL };\n",
		       L->rstring_embed_len_mask);
	if (L->id_entry_unit != RUBY_LAYOUT_NOVAL)
		printf("static const int ID_ENTRY_UNIT = %u;\n"
		       "const int *use_id_entry_unit = &ID_ENTRY_UNIT;\n",
		       L->id_entry_unit);
	if (L->sizeof_rvalue != RUBY_LAYOUT_NONE)
		type_get("RVALUE")->size = L->sizeof_rvalue;
	if (L->yjit)
		type_get("codeblock_t")->size = 8;
	printf("typedef struct { %s first_lineno; } rb_iseq_location_t;\n"
	       "rb_iseq_location_t v_location;\n",
	       L->first_lineno_fixnum ? "VALUE" : "int");
	for (int i = 0; i < ntypes; i++) {
		const struct type *t = &types[i];
		bool tagged = !strncmp(t->name, "struct ", 7);

		printf("%sstruct __attribute__((packed)) %s { ",
		       tagged ? "" : "typedef ", tagged ? t->name + 7 : "");
		emit_body(&t->root, 0, t->size);
		printf("}%s;\n%s v_%d;\n", tagged ? "" : t->name, t->name, i);
	}
}

static int
verify(const struct ruby_layout *L, const char *path)
{
	struct ruby_dwarf *d = ruby_dwarf_open(path, ruby_dwarf_cus);
	struct ruby_dwarf_layout out;
	const struct ruby_layout_field *f;
	char why[256] = "";
	char a[64], b[64];

	if (!d) {
		perror(path);
		return 1;
	}
	if (ruby_dwarf_layout(d, L->version, path, &out, why, sizeof(why)) <
	    0) {
		fprintf(stderr, "%s: %s\n", path, why);
		return 1;
	}
	ruby_dwarf_close(d);
	if (ruby_layout_check(&out.layout, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: refused: %s\n", path, why);
		return 1;
	}
	f = ruby_layout_diff(L, &out.layout);
	if (f) {
		ruby_layout_format(L, f, a, sizeof(a));
		ruby_layout_format(&out.layout, f, b, sizeof(b));
		fprintf(stderr, "%s: %s is %s, built-in %s (accepted)\n", path,
			f->name, b, a);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct ruby_layout *L;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mkdwarf VERSION [FILE]\n");
		return 2;
	}
	L = ruby_layout_find(argv[1], NULL);
	if (!L) {
		fprintf(stderr, "mkdwarf: no layout for %s\n", argv[1]);
		return 1;
	}
	if (argc == 3)
		return verify(L, argv[2]);
	generate(L);
	return 0;
}
