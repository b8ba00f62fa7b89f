// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * struct ruby_layout as a list of named fields: what lets two layouts be
 * compared (a DWARF layout against the generated one) and printed field
 * by field ('rbflame dump --layout'). The names are the members' own, so
 * that a test can diff two printouts; the table is made from the same
 * list as the struct (rbflame/ruby_layout_fields.h), so it holds every
 * member, in order; with the DWARF rules made from that list too, it is
 * what checks a layout before use (ruby_layout_check()).
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rbflame/ruby_dwarf.h"
#include "rbflame/ruby_layout.h"

#define FIELD_TYPE(m)                                                        \
	_Generic(((struct ruby_layout *)0)->m,                               \
		const char *: RUBY_FIELD_STR,                                \
		uint8_t: RUBY_FIELD_U8,                                      \
		int8_t: RUBY_FIELD_I8,                                       \
		uint16_t: RUBY_FIELD_U16,                                    \
		uint32_t: RUBY_FIELD_U32)
#define F(m) { #m, offsetof(struct ruby_layout, m), FIELD_TYPE(m) }

const struct ruby_layout_field ruby_layout_fields[] = {
#define RBL_FIELD(type, name, when, how, ctype, cmember) F(name),
#include "rbflame/ruby_layout_fields.h"
	{ NULL, 0, 0 },
};

const struct ruby_layout_field *
ruby_layout_field(const char *name)
{
	for (const struct ruby_layout_field *f = ruby_layout_fields; f->name;
	     f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

int64_t
ruby_layout_get(const struct ruby_layout *L, const struct ruby_layout_field *f)
{
	const char *p = (const char *)L + f->offset;

	switch (f->type) {
	case RUBY_FIELD_U8:
		return *(const uint8_t *)p;
	case RUBY_FIELD_I8:
		return *(const int8_t *)p;
	case RUBY_FIELD_U16:
		return *(const uint16_t *)p;
	case RUBY_FIELD_U32:
		return *(const uint32_t *)p;
	case RUBY_FIELD_STR:
		break;
	}
	return 0;
}

int
ruby_layout_set(struct ruby_layout *L, const struct ruby_layout_field *f,
		int64_t v)
{
	char *p = (char *)L + f->offset;

	switch (f->type) {
	case RUBY_FIELD_U8:
		if (v < 0 || v > UINT8_MAX)
			return -1;
		*(uint8_t *)p = (uint8_t)v;
		return 0;
	case RUBY_FIELD_I8:
		if (v < INT8_MIN || v > INT8_MAX)
			return -1;
		*(int8_t *)p = (int8_t)v;
		return 0;
	case RUBY_FIELD_U16:
		/* 0xffff is RUBY_LAYOUT_NONE, never a real offset. */
		if (v < 0 || v >= UINT16_MAX)
			return -1;
		*(uint16_t *)p = (uint16_t)v;
		return 0;
	case RUBY_FIELD_U32:
		if (v < 0 || v >= UINT32_MAX)
			return -1;
		*(uint32_t *)p = (uint32_t)v;
		return 0;
	case RUBY_FIELD_STR:
		break;
	}
	return -1;
}

void
ruby_layout_format(const struct ruby_layout *L,
		   const struct ruby_layout_field *f, char *buf, size_t cap)
{
	const char *s;
	int64_t v;

	if (!L) {
		snprintf(buf, cap, "-");
		return;
	}
	if (f->type == RUBY_FIELD_STR) {
		s = *(const char *const *)((const char *)L + f->offset);
		/* One word per value: the printout is split on spaces. */
		snprintf(buf, cap, "%s", s && *s ? s : "-");
		for (char *c = buf; *c; c++)
			if (*c == ' ' || *c == '\t')
				*c = '_';
		return;
	}
	v = ruby_layout_get(L, f);
	if ((f->type == RUBY_FIELD_U16 && v == RUBY_LAYOUT_NONE) ||
	    (f->type == RUBY_FIELD_U32 && v == RUBY_LAYOUT_NOVAL))
		snprintf(buf, cap, "none");
	else
		snprintf(buf, cap, "%lld", (long long)v);
}

/* Bounds no layout of a real Ruby comes near (rb_vm_t, the largest
 * struct read by offset, is about 1.5 KiB in 3.4). */
#define LAYOUT_MAX_STRUCT 4096u
#define LAYOUT_MAX_OFFSET 16384u

/* The size the layout gives C type ctype (a SIZE member), or -1. */
static int64_t
struct_size(const struct ruby_layout *L, const char *ctype)
{
	for (size_t i = 0; ctype && ruby_layout_fields[i].name; i++) {
		const struct ruby_dwarf_rule *r = &ruby_dwarf_rules[i];
		int64_t v;

		if (r->how != RUBY_DWARF_HOW_SIZE || !r->type ||
		    strcmp(r->type, ctype))
			continue;
		v = ruby_layout_get(L, &ruby_layout_fields[i]);
		return v == RUBY_LAYOUT_NONE ? -1 : v;
	}
	return -1;
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

int
ruby_layout_check(const struct ruby_layout *L, char *why, size_t cap)
{
	for (size_t i = 0; ruby_layout_fields[i].name; i++) {
		const struct ruby_layout_field *f = &ruby_layout_fields[i];
		const struct ruby_dwarf_rule *r = &ruby_dwarf_rules[i];
		const char *type = r->type ? r->type : "its struct";
		int64_t v = ruby_layout_get(L, f), size;
		bool cfp = r->type && !strcmp(r->type, "rb_control_frame_t");

		if (f->type == RUBY_FIELD_STR)
			continue;
		if (f->type == RUBY_FIELD_U16 && v == RUBY_LAYOUT_NONE) {
			/* Required of every layout: no reader path tests
			 * these for absence. */
			if (r->when == RUBY_DWARF_WHEN_ANY &&
			    (r->how == RUBY_DWARF_HOW_OFF ||
			     r->how == RUBY_DWARF_HOW_SIZE)) {
				snprintf(why, cap, "%s is missing", f->name);
				return -1;
			}
			continue;
		}
		switch (r->how) {
		case RUBY_DWARF_HOW_SIZE:
			if (v < 8 || v > LAYOUT_MAX_STRUCT ||
			    (cfp && v % 8)) {
				snprintf(why, cap, "%s %lld is no size of %s",
					 f->name, (long long)v, type);
				return -1;
			}
			break;
		case RUBY_DWARF_HOW_OFF:
			size = struct_size(L, r->type);
			if (v > LAYOUT_MAX_OFFSET ||
			    (size >= 0 && v >= size) ||
			    (cfp && (v % 8 || v + 8 > size))) {
				snprintf(why, cap,
					 "%s %lld is outside %s (%lld bytes)",
					 f->name, (long long)v, type,
					 (long long)size);
				return -1;
			}
			break;
		case RUBY_DWARF_HOW_BITS:
			size = struct_size(L, r->type);
			if (v > LAYOUT_MAX_OFFSET * 8 ||
			    (size >= 0 && v >= size * 8)) {
				snprintf(why, cap,
					 "%s bit %lld is outside %s (%lld bytes)",
					 f->name, (long long)v, type,
					 (long long)size);
				return -1;
			}
			break;
		case RUBY_DWARF_HOW_WIDTH:
			if (v > 32) { /* 0: its bitfield absent */
				snprintf(why, cap, "%s %lld is no bit width",
					 f->name, (long long)v);
				return -1;
			}
			break;
		default:
			if (has_suffix(f->name, "_shift") && (v < 0 || v > 63)) {
				snprintf(why, cap, "%s %lld is no shift",
					 f->name, (long long)v);
				return -1;
			}
			break;
		}
	}
	/* The symbol table's pages: a divisor, and an index into a page. */
	if (L->id_entry_unit == 0 || L->id_entry_unit > 1u << 20 ||
	    L->id_entry_size == 0 || L->id_entry_size > 64 ||
	    L->id_entry_str >= L->id_entry_size) {
		snprintf(why, cap,
			 "id_entry_unit %u, id_entry_size %u, id_entry_str %u are no symbol table",
			 L->id_entry_unit, L->id_entry_size, L->id_entry_str);
		return -1;
	}
	return 0;
}

const struct ruby_layout_field *
ruby_layout_diff(const struct ruby_layout *a, const struct ruby_layout *b)
{
	for (const struct ruby_layout_field *f = ruby_layout_fields; f->name;
	     f++) {
		/* Identity is where a layout came from, not what it says;
		 * YJIT is a configure option of the build, not a struct:
		 * a self-built 3.3.8 with --enable-yjit is still 3.3.8's
		 * layout, Debian's (--disable-yjit) the generated one. */
		if (f->type == RUBY_FIELD_STR || !strcmp(f->name, "yjit"))
			continue;
		if (ruby_layout_get(a, f) != ruby_layout_get(b, f))
			return f;
	}
	return NULL;
}

/* "X.Y.Z" (or "X.Y", teeny -1) into its numbers; -1 if neither. */
static int
parse_version(const char *v, int *maj, int *min, int *teeny)
{
	int n;

	*teeny = -1;
	if (!v)
		return -1;
	n = sscanf(v, "%d.%d.%d", maj, min, teeny);
	if (n < 2) {
		*teeny = -1;
		return -1;
	}
	return 0;
}

const struct ruby_layout *
ruby_layout_find(const char *version, bool *exact)
{
	return ruby_layout_find_hiding(version, NULL, exact);
}

const struct ruby_layout *
ruby_layout_find_hiding(const char *version, const char *hide, bool *exact)
{
	const struct ruby_layout *best = NULL;
	int maj, min, teeny, best_d = 0;

	if (exact)
		*exact = false;
	if (parse_version(version, &maj, &min, &teeny) < 0)
		return NULL;
	for (int i = 0; ruby_layouts[i]; i++) {
		const struct ruby_layout *L = ruby_layouts[i];
		int lmaj, lmin, lteeny, d;

		if (parse_version(L->version, &lmaj, &lmin, &lteeny) < 0 ||
		    lmaj != maj || lmin != min)
			continue;
		if (hide && *hide && !strncmp(L->version, hide, strlen(hide)))
			continue;
		if (teeny >= 0 && lteeny == teeny) {
			if (exact)
				*exact = true;
			return L;
		}
		/* The nearest release; between two as near, the newer (the
		 * list is oldest first). "X.Y" alone: the newest. */
		d = teeny < 0 ? 0 : lteeny > teeny ? lteeny - teeny :
						      teeny - lteeny;
		if (!best || d <= best_d) {
			best = L;
			best_d = d;
		}
	}
	return best;
}

size_t
ruby_layout_list(char *buf, size_t cap)
{
	size_t o = 0;

	if (cap)
		buf[0] = '\0';
	for (int i = 0; ruby_layouts[i] && o + 1 < cap; i++) {
		int n = snprintf(buf + o, cap - o, "%s%s", i ? ", " : "",
				 ruby_layouts[i]->version);

		if (n < 0 || (size_t)n >= cap - o) {
			buf[o] = '\0';	/* no half-written release */
			break;
		}
		o += (size_t)n;
	}
	return o;
}
