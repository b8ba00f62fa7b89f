// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * struct ruby_layout from DWARF. One pass over the chosen compilation
 * units indexes their named structs, unions, typedefs and enumerators in
 * a hash table (names point into libdw's string sections); lookups then
 * walk members by name. Each member of struct ruby_layout has a rule on
 * its line of rbflame/ruby_layout_fields.h, expanded here into
 * ruby_dwarf_rules[]: the C type and member the generator's probes ask
 * for (scripts/ruby-layout/probe-*.c), with the alternatives of other
 * versions, or code_NAME() below: the feature flags, from which members
 * exist, and a few preprocessor macros, which DWARF does not carry:
 * constants, each with the reason it is safe.
 *
 * Owns the libdw handles, their libelf handles and file descriptors of
 * one struct ruby_dwarf (the file, and its dwz file when it links one).
 */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libelf.h>

#include "rbflame/ruby_dwarf.h"
#include "rbflame/xmalloc.h"

#define MAX_UNITS 100000u	/* compilation units looked at */
#define MAX_DIES (1u << 24)	/* DIEs indexed in all */
#define MAX_DEPTH 8		/* nesting of type definitions walked */
#define MAX_CHILDREN 100000u	/* members of one struct looked at */
#define MAX_TYPEDEFS 32		/* typedef / qualifier chain */
#define MAX_IMPORTS 4096	/* dwz partial units followed */
#define MAX_NAME 128

const char *const ruby_dwarf_cus[] = {
	"vm.c", "iseq.c", "gc.c", "symbol.c", "st.c", "yjit.c", NULL,
};

struct entry {
	const char *name;	/* NULL: empty slot */
	char kind;		/* 's' struct, 'u' union, 't' typedef,
				 * 'e' enumerator or constant */
	Dwarf_Die die;		/* types */
	int64_t value;		/* enumerators */
};

struct ruby_dwarf {
	int fd, alt_fd;
	Elf *elf, *alt_elf;
	Dwarf *dbg, *alt;
	struct entry *tab;
	size_t cap, n;
	size_t dies;		/* visited, bounded by MAX_DIES */
	Dwarf_Off imported[MAX_IMPORTS];
	size_t nimported;
	bool rust;
};

/* ---- the index ------------------------------------------------------- */

static uint64_t
hash(char kind, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ (unsigned char)kind;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return h;
}

static struct entry *
slot(struct ruby_dwarf *d, char kind, const char *name)
{
	size_t i = hash(kind, name) & (d->cap - 1);

	/* The table is never full (grown at half), so this ends. */
	while (d->tab[i].name &&
	       (d->tab[i].kind != kind || strcmp(d->tab[i].name, name)))
		i = (i + 1) & (d->cap - 1);
	return &d->tab[i];
}

static void
grow(struct ruby_dwarf *d)
{
	struct entry *old = d->tab;
	size_t oldcap = d->cap;

	d->cap = oldcap ? oldcap * 2 : 4096;
	d->tab = xcalloc(d->cap, sizeof(*d->tab));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].name)
			*slot(d, old[i].kind, old[i].name) = old[i];
	free(old);
}

/* The first definition of a name wins: later units repeat the headers. */
static struct entry *
add(struct ruby_dwarf *d, char kind, const char *name)
{
	struct entry *e;

	if (!name || !*name || strlen(name) >= MAX_NAME)
		return NULL;
	if ((d->n + 1) * 2 > d->cap)
		grow(d);
	e = slot(d, kind, name);
	if (e->name)
		return NULL;
	e->name = name;
	e->kind = kind;
	d->n++;
	return e;
}

static const struct entry *
find(struct ruby_dwarf *d, char kind, const char *name)
{
	const struct entry *e;

	if (!d->cap)
		return NULL;
	e = slot(d, kind, name);
	return e->name ? e : NULL;
}

/*
 * Whether the type of die (an enumeration type, or a variable) is signed:
 * 1, 0, or -1 when the DWARF does not say. An enum's underlying type is
 * its DW_AT_type.
 */
static int
type_signed(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t = *die;
	Dwarf_Word enc;

	for (int i = 0; i < MAX_TYPEDEFS; i++) {
		if (dwarf_tag(&t) == DW_TAG_base_type) {
			if (!dwarf_attr(&t, DW_AT_encoding, &a) ||
			    dwarf_formudata(&a, &enc) != 0)
				return -1;
			return enc == DW_ATE_signed ||
			       enc == DW_ATE_signed_char;
		}
		if (!dwarf_attr_integrate(&t, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &t))
			return -1;
	}
	return -1;
}

/*
 * A DW_AT_const_value as the number it is. DW_FORM_data1/2/4/8 carry no
 * sign: dwarf_formsdata() sign-extends them, which turns an unsigned
 * enum's 0x80 into -128, so they are read as the type says (unsigned
 * when it says nothing: C enumerators are non-negative as a rule, and a
 * negative one is given in DW_FORM_sdata by GCC and clang).
 */
static int
const_value(Dwarf_Die *die, Dwarf_Die *typed, int64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Sword s;
	Dwarf_Word u;

	if (!dwarf_attr(die, DW_AT_const_value, &a))
		return -1;
	switch (dwarf_whatform(&a)) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		break;
	case DW_FORM_udata:
		goto as_unsigned;
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
		if (type_signed(typed) != 1)
			goto as_unsigned;
		break;
	default:
		return -1;
	}
	if (dwarf_formsdata(&a, &s) != 0)
		return -1;
	*v = s;
	return 0;
as_unsigned:
	if (dwarf_formudata(&a, &u) != 0)
		return -1;
	*v = (int64_t)u;
	return 0;
}

static void walk(struct ruby_dwarf *d, Dwarf_Die *parent, int depth);

/* A dwz partial unit, imported once. */
static void
walk_import(struct ruby_dwarf *d, Dwarf_Die *die, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die unit;
	Dwarf_Off off;

	if (!dwarf_attr(die, DW_AT_import, &a) || !dwarf_formref_die(&a, &unit))
		return;
	off = dwarf_dieoffset(&unit);
	for (size_t i = 0; i < d->nimported; i++)
		if (d->imported[i] == off)
			return;
	if (d->nimported >= MAX_IMPORTS)
		return;
	d->imported[d->nimported++] = off;
	walk(d, &unit, depth + 1);
}

static void
walk(struct ruby_dwarf *d, Dwarf_Die *parent, int depth)
{
	Dwarf_Die die, child;
	struct entry *e;
	int64_t v;

	if (depth > MAX_DEPTH || dwarf_child(parent, &die) != 0)
		return;
	do {
		if (++d->dies > MAX_DIES)
			return;
		switch (dwarf_tag(&die)) {
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (dwarf_hasattr(&die, DW_AT_declaration))
				break;
			e = add(d, dwarf_tag(&die) == DW_TAG_structure_type
					   ? 's' : 'u',
				dwarf_diename(&die));
			if (e)
				e->die = die;
			/* Types defined inside (C puts them at file scope,
			 * but a compiler may nest them). */
			walk(d, &die, depth + 1);
			break;
		case DW_TAG_typedef:
			e = add(d, 't', dwarf_diename(&die));
			if (e)
				e->die = die;
			break;
		case DW_TAG_enumeration_type:
			if (dwarf_child(&die, &child) != 0)
				break;
			do {
				if (++d->dies > MAX_DIES)
					return;
				if (dwarf_tag(&child) != DW_TAG_enumerator ||
				    const_value(&child, &die, &v) < 0)
					continue;
				e = add(d, 'e', dwarf_diename(&child));
				if (e)
					e->value = v;
			} while (dwarf_siblingof(&child, &child) == 0);
			break;
		case DW_TAG_variable:
			/* static const int ID_ENTRY_UNIT = 512; */
			if (const_value(&die, &die, &v) == 0) {
				e = add(d, 'e', dwarf_diename(&die));
				if (e)
					e->value = v;
			}
			break;
		case DW_TAG_imported_unit:
			walk_import(d, &die, depth);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
}

static bool
wanted(Dwarf_Die *cu, const char *const *cus)
{
	const char *name, *base;

	if (!cus)
		return true;
	name = dwarf_diename(cu);
	if (!name)
		return false;
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (size_t i = 0; cus[i]; i++)
		if (!strcmp(base, cus[i]))
			return true;
	return false;
}

/*
 * Whether every string section of elf ends with a NUL. libdw hands out
 * a DW_FORM_strp or DW_FORM_line_strp name as a pointer into .debug_str
 * or .debug_line_str once its offset is inside the section, without
 * looking for the end of the string: in a section whose last string is
 * cut, each strcmp() of that name would read past the section. Every
 * toolchain ends them with a NUL. Called after dwarf_begin_elf(), which
 * has decompressed the sections libdw reads, so elf_getdata() gives its
 * bytes.
 */
static bool
strings_terminated(Elf *elf)
{
	static const char *const names[] = {
		".debug_str", ".debug_line_str", ".zdebug_str",
		".zdebug_line_str",
	};
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		GElf_Shdr sh;
		bool str = false;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			str = str || !strcmp(name, names[i]);
		if (!str || sh.sh_type == SHT_NOBITS)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_size > 0 &&
		    ((const char *)data->d_buf)[data->d_size - 1] != '\0')
			return false;
	}
	return true;
}

/*
 * libdw over a descriptor: read with pread (ELF_C_READ), not mmap, so a
 * file truncated under us is a read error, never a SIGBUS. NULL for a
 * file whose strings are not all terminated.
 */
static Dwarf *
begin(int fd, Elf **elfp)
{
	Dwarf *dbg;

	*elfp = elf_begin(fd, ELF_C_READ, NULL);
	if (!*elfp)
		return NULL;
	dbg = dwarf_begin_elf(*elfp, DWARF_C_READ, NULL);
	if (dbg && !strings_terminated(*elfp)) {
		dwarf_end(dbg);
		return NULL;
	}
	return dbg;
}

struct ruby_dwarf *
ruby_dwarf_open(const char *path, const char *const *cus)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	return ruby_dwarf_open_fd(fd, -1, cus);
}

struct ruby_dwarf *
ruby_dwarf_open_fd(int fd, int alt_fd, const char *const *cus)
{
	struct ruby_dwarf *d;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	unsigned units = 0, used = 0;
	const char *altname;
	const void *altid;
	int saved;

	d = xcalloc(1, sizeof(*d));
	d->fd = fd;
	d->alt_fd = alt_fd;
	if (d->fd < 0) {
		errno = EBADF;
		goto fail;
	}
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    !(d->dbg = begin(d->fd, &d->elf))) {
		errno = ENODATA;
		goto fail;
	}
	/* libdw would look for a dwz file itself, with open(2) on the
	 * host's paths: it gets ours, or none is followed. */
	if (d->alt_fd >= 0) {
		d->alt = begin(d->alt_fd, &d->alt_elf);
		if (!d->alt) {
			errno = ENODATA;
			goto fail;
		}
		dwarf_setalt(d->dbg, d->alt);
	} else if (dwelf_dwarf_gnu_debugaltlink(d->dbg, &altname,
						&altid) > 0) {
		errno = ENOLINK;
		goto fail;
	}
	while (units++ < MAX_UNITS &&
	       dwarf_get_units(d->dbg, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		if (dwarf_tag(&cudie) != DW_TAG_compile_unit)
			continue;
		if (dwarf_srclang(&cudie) == DW_LANG_Rust)
			d->rust = true;
		if (!wanted(&cudie, cus))
			continue;
		used++;
		walk(d, &cudie, 0);
	}
	if (!used) {
		errno = units > 1 ? ENOENT : ENODATA;
		goto fail;
	}
	return d;
fail:
	saved = errno;
	ruby_dwarf_close(d);
	errno = saved;
	return NULL;
}

void
ruby_dwarf_close(struct ruby_dwarf *d)
{
	if (!d)
		return;
	if (d->dbg)
		dwarf_end(d->dbg);	/* not the alt, which we set */
	if (d->alt)
		dwarf_end(d->alt);
	if (d->elf)
		elf_end(d->elf);
	if (d->alt_elf)
		elf_end(d->alt_elf);
	if (d->fd >= 0)
		close(d->fd);
	if (d->alt_fd >= 0)
		close(d->alt_fd);
	free(d->tab);
	free(d);
}

int
ruby_dwarf_has_rust(const struct ruby_dwarf *d)
{
	return d->rust;
}

/* ---- lookups ---------------------------------------------------------- */

/* "struct X", "union X" or a typedef name -> its DIE. */
static int
type_die(struct ruby_dwarf *d, const char *type, Dwarf_Die *out)
{
	const struct entry *e;

	if (!strncmp(type, "struct ", 7))
		e = find(d, 's', type + 7);
	else if (!strncmp(type, "union ", 6))
		e = find(d, 'u', type + 6);
	else
		e = find(d, 't', type);
	if (!e) {
		errno = ENOENT;
		return -1;
	}
	*out = e->die;
	return 0;
}

/* Through typedefs and qualifiers to the type itself. */
static int
strip(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	for (int i = 0; i < MAX_TYPEDEFS; i++) {
		switch (dwarf_tag(die)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!dwarf_attr_integrate(die, DW_AT_type, &a) ||
			    !dwarf_formref_die(&a, die))
				return -1;
			continue;
		default:
			return 0;
		}
	}
	return -1;
}

static int
member_location(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word u;
	Dwarf_Op *ops;
	size_t n;

	/* Union members may have none: they are at 0. */
	if (!dwarf_attr(m, DW_AT_data_member_location, &a)) {
		*off = 0;
		return 0;
	}
	if (dwarf_formudata(&a, &u) == 0) {
		*off = u;
		return 0;
	}
	/* DWARF 2 style: a location expression DW_OP_plus_uconst N. */
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 &&
	    ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return 0;
	}
	return -1;
}

/* The member called name of the struct or union agg, looking through
 * anonymous members; *off is added its offset. */
static int
member_find(Dwarf_Die *agg, const char *name, Dwarf_Die *out, uint64_t *off,
	    int depth)
{
	Dwarf_Die m, t;
	Dwarf_Attribute a;
	unsigned n = 0;
	uint64_t loc;

	if (depth > MAX_DEPTH || dwarf_child(agg, &m) != 0)
		return -1;
	do {
		const char *mn;

		if (n++ > MAX_CHILDREN)
			return -1;
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		mn = dwarf_diename(&m);
		if (mn && strcmp(mn, name))
			continue;
		if (member_location(&m, &loc) < 0)
			continue;
		if (mn) {
			*out = m;
			*off += loc;
			return 0;
		}
		/* An anonymous struct or union: look inside. */
		if (!dwarf_attr_integrate(&m, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &t) || strip(&t) < 0)
			continue;
		if (member_find(&t, name, out, off, depth + 1) == 0) {
			*off += loc;
			return 0;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return -1;
}

/* type + "a.b.c": the last member's DIE and its byte offset. */
static int
resolve(struct ruby_dwarf *d, const char *type, const char *path,
	Dwarf_Die *member, uint64_t *off)
{
	char part[MAX_NAME];
	Dwarf_Die cur;
	Dwarf_Attribute a;
	const char *p = path;

	*off = 0;
	if (type_die(d, type, &cur) < 0 || strip(&cur) < 0)
		goto notfound;
	for (int i = 0; i < MAX_DEPTH; i++) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (len == 0 || len >= sizeof(part))
			goto notfound;
		memcpy(part, p, len);
		part[len] = '\0';
		if (member_find(&cur, part, member, off, 0) < 0)
			goto notfound;
		if (!dot)
			return 0;
		p = dot + 1;
		if (!dwarf_attr_integrate(member, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &cur) || strip(&cur) < 0)
			goto notfound;
	}
notfound:
	errno = ENOENT;
	return -1;
}

int
ruby_dwarf_offset(struct ruby_dwarf *d, const char *type, const char *member,
		  uint64_t *off)
{
	Dwarf_Die m;

	if (resolve(d, type, member, &m, off) < 0)
		return -1;
	/* A bitfield has no byte offset of its own. */
	if (dwarf_hasattr(&m, DW_AT_bit_size)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int
ruby_dwarf_size(struct ruby_dwarf *d, const char *type, uint64_t *size)
{
	Dwarf_Die t;
	Dwarf_Word w;

	if (type_die(d, type, &t) < 0 || strip(&t) < 0 ||
	    dwarf_aggregate_size(&t, &w) != 0) {
		errno = ENOENT;
		return -1;
	}
	*size = w;
	return 0;
}

int
ruby_dwarf_member_size(struct ruby_dwarf *d, const char *type,
		       const char *member, uint64_t *size)
{
	Dwarf_Attribute a;
	Dwarf_Die m, t;
	Dwarf_Word w;
	uint64_t off;

	if (resolve(d, type, member, &m, &off) < 0 ||
	    !dwarf_attr_integrate(&m, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &t) || dwarf_aggregate_size(&t, &w) != 0) {
		errno = ENOENT;
		return -1;
	}
	*size = w;
	return 0;
}

int
ruby_dwarf_bits(struct ruby_dwarf *d, const char *type, const char *member,
		uint64_t *bit, uint64_t *width)
{
	Dwarf_Attribute a;
	Dwarf_Word bsize, boff, storage;
	Dwarf_Die m, t;
	uint64_t off;

	if (resolve(d, type, member, &m, &off) < 0)
		return -1;
	if (!dwarf_attr(&m, DW_AT_bit_size, &a) ||
	    dwarf_formudata(&a, &bsize) != 0 || bsize == 0 || bsize > 64)
		goto bad;
	if (dwarf_attr(&m, DW_AT_data_bit_offset, &a)) {
		/* DWARF 4+: bits from the start of the containing struct,
		 * whose offset resolve() added as bytes (the member itself
		 * has no DW_AT_data_member_location). */
		if (dwarf_formudata(&a, &boff) != 0)
			goto bad;
		*bit = off * 8 + boff;
	} else if (dwarf_attr(&m, DW_AT_bit_offset, &a)) {
		/* DWARF 2/3: counted from the most significant bit of a
		 * storage unit of DW_AT_byte_size (or the type's size) at
		 * the member's location. */
		if (dwarf_formudata(&a, &boff) != 0)
			goto bad;
		if (!dwarf_attr(&m, DW_AT_byte_size, &a) ||
		    dwarf_formudata(&a, &storage) != 0) {
			if (!dwarf_attr_integrate(&m, DW_AT_type, &a) ||
			    !dwarf_formref_die(&a, &t) ||
			    dwarf_aggregate_size(&t, &storage) != 0)
				goto bad;
		}
		if (boff + bsize > storage * 8)
			goto bad;
		*bit = off * 8 + storage * 8 - boff - bsize;
	} else {
		goto bad;
	}
	*width = bsize;
	return 0;
bad:
	errno = ENOENT;
	return -1;
}

int
ruby_dwarf_enum(struct ruby_dwarf *d, const char *name, int64_t *value)
{
	const struct entry *e = find(d, 'e', name);

	if (!e) {
		errno = ENOENT;
		return -1;
	}
	*value = e->value;
	return 0;
}

int
ruby_dwarf_member_is(struct ruby_dwarf *d, const char *type,
		     const char *member, const char *tname)
{
	Dwarf_Attribute a;
	Dwarf_Die m, t;
	uint64_t off;

	if (resolve(d, type, member, &m, &off) < 0 ||
	    !dwarf_attr_integrate(&m, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &t))
		return 0;
	for (int i = 0; i < MAX_TYPEDEFS; i++) {
		const char *n = dwarf_diename(&t);

		if (dwarf_tag(&t) == DW_TAG_typedef && n && !strcmp(n, tname))
			return 1;
		if (dwarf_tag(&t) != DW_TAG_typedef &&
		    dwarf_tag(&t) != DW_TAG_const_type &&
		    dwarf_tag(&t) != DW_TAG_volatile_type)
			return 0;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &t))
			return 0;
	}
	return 0;
}

/* ---- the Ruby layout -------------------------------------------------- */

static bool
has(struct ruby_dwarf *d, const char *type, const char *member)
{
	Dwarf_Die m;
	uint64_t off;

	return resolve(d, type, member, &m, &off) == 0;
}

/*
 * The members whose HOW is CODE, one function each, named after the
 * member (ruby_dwarf_rules[] refers to code_NAME for every CODE line of
 * ruby_layout_fields.h, so a missing one does not compile).
 *
 * First the feature flags: which shapes exist.
 */

static int
code_threads(struct ruby_dwarf *d, const struct ruby_layout *L, int64_t *v,
	     char *why, size_t whylen)
{
	*v = has(d, "rb_vm_t", "ractor") ? RUBY_LAYOUT_THREADS_RACTOR
					 : RUBY_LAYOUT_THREADS_VM;
	return 0;
}

static int
code_tid(struct ruby_dwarf *d, const struct ruby_layout *L, int64_t *v,
	 char *why, size_t whylen)
{
	*v = has(d, "rb_thread_t", "nt")    ? RUBY_LAYOUT_TID_NATIVE_THREAD
	     : has(d, "rb_thread_t", "tid") ? RUBY_LAYOUT_TID_THREAD
					    : RUBY_LAYOUT_TID_PTHREAD;
	return 0;
}

static int
code_string(struct ruby_dwarf *d, const struct ruby_layout *L, int64_t *v,
	    char *why, size_t whylen)
{
	*v = has(d, "struct RString", "len") ? RUBY_LAYOUT_STRING_LEN_FIELD
					     : RUBY_LAYOUT_STRING_LEN_IN_FLAGS;
	return 0;
}

static int
code_lines(struct ruby_dwarf *d, const struct ruby_layout *L, int64_t *v,
	   char *why, size_t whylen)
{
	uint64_t u;

	*v = ruby_dwarf_size(d, "struct succ_index_table", &u) == 0
		     ? RUBY_LAYOUT_LINES_SUCCINCT
		     : RUBY_LAYOUT_LINES_POSITIONS;
	return 0;
}

static int
code_classpath(struct ruby_dwarf *d, const struct ruby_layout *L, int64_t *v,
	       char *why, size_t whylen)
{
	*v = has(d, "rb_classext_t", "classpath") ? RUBY_LAYOUT_CLASSPATH_EXT
						  : RUBY_LAYOUT_CLASSPATH_IVAR;
	return 0;
}

static int
code_attached(struct ruby_dwarf *d, const struct ruby_layout *L, int64_t *v,
	      char *why, size_t whylen)
{
	*v = has(d, "rb_classext_t", "as.singleton_class.attached_object")
		     ? RUBY_LAYOUT_ATTACHED_EXT
		     : RUBY_LAYOUT_ATTACHED_IVAR;
	return 0;
}

static int
code_first_lineno_fixnum(struct ruby_dwarf *d, const struct ruby_layout *L,
			 int64_t *v, char *why, size_t whylen)
{
	*v = ruby_dwarf_member_is(d, "rb_iseq_location_t", "first_lineno",
				  "VALUE");
	return 0;
}

static int
code_yjit(struct ruby_dwarf *d, const struct ruby_layout *L, int64_t *v,
	  char *why, size_t whylen)
{
	uint64_t u;

	/* C in 3.1 (yjit.c then includes its code generator, whose
	 * codeblock_t is indexed), Rust from 3.2. */
	*v = ruby_dwarf_has_rust(d) ||
	     ruby_dwarf_size(d, "codeblock_t", &u) == 0;
	return 0;
}

/* Then what a -g build does not record, being preprocessor macros. */

/* VM_ENV_DATA_INDEX_* (vm_core.h): -2, -1, 0 since Ruby 2.2. */
static int
code_env_index_me_cref(struct ruby_dwarf *d, const struct ruby_layout *L,
		       int64_t *v, char *why, size_t whylen)
{
	*v = -2;
	return 0;
}

static int
code_env_index_specval(struct ruby_dwarf *d, const struct ruby_layout *L,
		       int64_t *v, char *why, size_t whylen)
{
	*v = -1;
	return 0;
}

static int
code_env_index_flags(struct ruby_dwarf *d, const struct ruby_layout *L,
		     int64_t *v, char *why, size_t whylen)
{
	*v = 0;
	return 0;
}

/* IMEMO_MASK (internal/imemo.h): 0x0f since 2.3. */
static int
code_imemo_type_mask(struct ruby_dwarf *d, const struct ruby_layout *L,
		     int64_t *v, char *why, size_t whylen)
{
	*v = 0xf;
	return 0;
}

/* IMMEDIATE_TABLE_SIZE (iseq.c): imm_part has IMMEDIATE_TABLE_SIZE / 9
 * uint64_t words. */
static int
code_succ_immediate_size(struct ruby_dwarf *d, const struct ruby_layout *L,
			 int64_t *v, char *why, size_t whylen)
{
	uint64_t u;

	if (ruby_dwarf_member_size(d, "struct succ_index_table", "imm_part",
				   &u) < 0 ||
	    u == 0 || u % 8) {
		snprintf(why, whylen,
			 "no struct succ_index_table.imm_part size");
		return -1;
	}
	*v = (int64_t)(u / 8 * 9);
	return 0;
}

/* RSTRING_EMBED_LEN_MASK: a string whose length is a field (3.2+) has
 * no mask in its flags, 0. */
static int
code_rstring_embed_len_mask(struct ruby_dwarf *d, const struct ruby_layout *L,
			    int64_t *v, char *why, size_t whylen)
{
	if (L->string == RUBY_LAYOUT_STRING_LEN_FIELD) {
		*v = 0;
		return 0;
	}
	if (ruby_dwarf_enum(d, "RSTRING_EMBED_LEN_MASK", v) == 0)
		return 0;
	snprintf(why, whylen, "no constant RSTRING_EMBED_LEN_MASK (for %s)",
		 "rstring_embed_len_mask");
	return -1;
}

/* ID_ENTRY_UNIT (symbol.c) is a static const int, whose value the DWARF
 * holds when the compiler kept it as a constant; 512 in every release
 * since 2.2. */
static int
code_id_entry_unit(struct ruby_dwarf *d, const struct ruby_layout *L,
		   int64_t *v, char *why, size_t whylen)
{
	if (ruby_dwarf_enum(d, "ID_ENTRY_UNIT", v) < 0 || *v <= 0 ||
	    *v >= 1 << 20)
		*v = 512;
	return 0;
}

/* RVALUE is gone in 3.4 (BASE_SLOT_SIZE, a macro): 40 bytes, the size of
 * five VALUEs, in every version. */
static int
code_sizeof_rvalue(struct ruby_dwarf *d, const struct ruby_layout *L,
		   int64_t *v, char *why, size_t whylen)
{
	uint64_t u;

	*v = ruby_dwarf_size(d, "RVALUE", &u) == 0 ? (int64_t)u : 40;
	return 0;
}

/* The code function of a member: code_NAME for HOW CODE, else none. */
#define RULE_CODE_OFF(name) NULL
#define RULE_CODE_SIZE(name) NULL
#define RULE_CODE_BITS(name) NULL
#define RULE_CODE_ENUM(name) NULL
#define RULE_CODE_WIDTH(name) NULL
#define RULE_CODE_CODE(name) code_##name
#define RULE_CODE_ARG(name) NULL
#define RULE_CODE_NONE(name) NULL

const struct ruby_dwarf_rule ruby_dwarf_rules[] = {
#define RBL_FIELD(type, name, when, how, ctype, cmember)                     \
	{ RUBY_DWARF_WHEN_##when, RUBY_DWARF_HOW_##how, ctype, cmember,      \
	  RULE_CODE_##how(name) },
#include "rbflame/ruby_layout_fields.h"
	{ 0 },
};

/* Copies alternative number i of "a|b|c" into buf; -1 past the last. */
static int
alternative(const char *list, int i, char *buf, size_t cap)
{
	const char *p = list;

	for (; i > 0; i--) {
		p = strchr(p, '|');
		if (!p)
			return -1;
		p++;
	}
	size_t len = strcspn(p, "|");

	if (len >= cap)
		return -1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return 0;
}

static bool
applies(enum ruby_dwarf_when w, const struct ruby_layout *L)
{
	switch (w) {
	case RUBY_DWARF_WHEN_ANY:
	case RUBY_DWARF_WHEN_OPT:
		return true;
	case RUBY_DWARF_WHEN_RACTOR:
		return L->threads == RUBY_LAYOUT_THREADS_RACTOR;
	case RUBY_DWARF_WHEN_VMLIST:
		return L->threads == RUBY_LAYOUT_THREADS_VM;
	case RUBY_DWARF_WHEN_TID_THREAD:
		return L->tid == RUBY_LAYOUT_TID_THREAD;
	case RUBY_DWARF_WHEN_NOT_NT:
		return L->tid != RUBY_LAYOUT_TID_NATIVE_THREAD;
	case RUBY_DWARF_WHEN_NT:
		return L->tid == RUBY_LAYOUT_TID_NATIVE_THREAD;
	case RUBY_DWARF_WHEN_SUCC:
		return L->lines == RUBY_LAYOUT_LINES_SUCCINCT;
	case RUBY_DWARF_WHEN_CP_IVAR:
		return L->classpath == RUBY_LAYOUT_CLASSPATH_IVAR;
	case RUBY_DWARF_WHEN_CP_EXT:
		return L->classpath == RUBY_LAYOUT_CLASSPATH_EXT;
	case RUBY_DWARF_WHEN_ATT_IVAR:
		return L->attached == RUBY_LAYOUT_ATTACHED_IVAR;
	case RUBY_DWARF_WHEN_ATT_EXT:
		return L->attached == RUBY_LAYOUT_ATTACHED_EXT;
	case RUBY_DWARF_WHEN_LEN_FLAGS:
		return L->string == RUBY_LAYOUT_STRING_LEN_IN_FLAGS;
	}
	return false;
}

/* One data rule's answer (OFF, SIZE, BITS, ENUM); -1 when no
 * alternative is found. */
static int
answer(struct ruby_dwarf *d, const struct ruby_dwarf_rule *r, int64_t *v,
       int64_t *w)
{
	char type[MAX_NAME], member[MAX_NAME];
	uint64_t u, width;
	int64_t s;

	if (r->how == RUBY_DWARF_HOW_ENUM) {
		if (ruby_dwarf_enum(d, r->member, &s) < 0)
			return -1;
		*v = s;
		return 0;
	}
	for (int ti = 0; alternative(r->type, ti, type, sizeof(type)) == 0;
	     ti++) {
		if (r->how == RUBY_DWARF_HOW_SIZE) {
			if (ruby_dwarf_size(d, type, &u) == 0) {
				*v = (int64_t)u;
				return 0;
			}
			continue;
		}
		for (int mi = 0; alternative(r->member, mi, member,
					     sizeof(member)) == 0;
		     mi++) {
			if (r->how == RUBY_DWARF_HOW_OFF &&
			    ruby_dwarf_offset(d, type, member, &u) == 0) {
				*v = (int64_t)u;
				return 0;
			}
			if (r->how == RUBY_DWARF_HOW_BITS &&
			    ruby_dwarf_bits(d, type, member, &u, &width) == 0) {
				*v = (int64_t)u;
				*w = (int64_t)width;
				return 0;
			}
		}
	}
	return -1;
}

static void
absent(struct ruby_layout *L)
{
	for (const struct ruby_layout_field *f = ruby_layout_fields; f->name;
	     f++) {
		char *p = (char *)L + f->offset;

		if (f->type == RUBY_FIELD_U16)
			*(uint16_t *)p = RUBY_LAYOUT_NONE;
		else if (f->type == RUBY_FIELD_U32)
			*(uint32_t *)p = RUBY_LAYOUT_NOVAL;
	}
}

int
ruby_dwarf_layout(struct ruby_dwarf *d, const char *version,
		  const char *origin, struct ruby_dwarf_layout *out,
		  char *why, size_t whylen)
{
	struct ruby_layout *L = &out->layout;
	unsigned maj, min;
	int64_t v, w;

	memset(out, 0, sizeof(*out));
	if (sscanf(version, "%u.%u", &maj, &min) != 2 || maj > 255 ||
	    min > 255) {
		snprintf(why, whylen, "bad Ruby version '%s'", version);
		errno = EINVAL;
		return -1;
	}
	snprintf(out->version, sizeof(out->version), "%s", version);
	snprintf(out->source, sizeof(out->source), "DWARF of %s", origin);
	absent(L);
	/* HOW ARG */
	L->version = out->version;
	L->source = out->source;
	L->api_major = (uint8_t)maj;
	L->api_minor = (uint8_t)min;

	/* In the list's order: the feature flags first, then what they
	 * choose between. */
	for (size_t i = 0; ruby_layout_fields[i].name; i++) {
		const struct ruby_layout_field *f = &ruby_layout_fields[i];
		const struct ruby_dwarf_rule *r = &ruby_dwarf_rules[i];
		int rc;

		if (r->how == RUBY_DWARF_HOW_ARG ||
		    r->how == RUBY_DWARF_HOW_WIDTH ||
		    r->how == RUBY_DWARF_HOW_NONE || !applies(r->when, L))
			continue;
		w = 0;
		if (r->how == RUBY_DWARF_HOW_CODE)
			rc = r->code(d, L, &v, why, whylen);
		else
			rc = answer(d, r, &v, &w);
		if (rc < 0) {
			if (r->when == RUBY_DWARF_WHEN_OPT)
				continue;
			/* code() has said why. */
			if (r->how == RUBY_DWARF_HOW_ENUM)
				snprintf(why, whylen, "no constant %s (for %s)",
					 r->member, f->name);
			else if (r->how != RUBY_DWARF_HOW_CODE)
				snprintf(why, whylen, "no %s%s%s (for %s)",
					 r->type, r->member ? "." : "",
					 r->member ? r->member : "", f->name);
			errno = ENOENT;
			return -1;
		}
		if (ruby_layout_set(L, f, v) < 0) {
			snprintf(why, whylen, "%s = %lld: out of range",
				 f->name, (long long)v);
			errno = ERANGE;
			return -1;
		}
		/* thread_status_bit -> thread_status_width, when there is
		 * one (objspace_during_gc is one bit). */
		if (r->how == RUBY_DWARF_HOW_BITS &&
		    r[1].how == RUBY_DWARF_HOW_WIDTH &&
		    ruby_layout_set(L, f + 1, w) < 0)
			goto internal;
	}
	return 0;
internal:
	snprintf(why, whylen, "internal error: layout rule table");
	errno = EINVAL;
	return -1;
}
