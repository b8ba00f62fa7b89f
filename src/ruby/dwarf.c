// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * struct ruby_layout from DWARF. One pass over the chosen compilation
 * units indexes their named structs, unions, typedefs and enumerators in
 * a hash table (names point into libdw's string sections); lookups then
 * walk members by name. A table of rules maps each field of struct
 * ruby_layout to the C type and member the generator's probes ask for
 * (scripts/ruby-layout/probe-*.c), with the alternatives of other
 * versions; the feature flags come from which members exist. A few
 * answers are preprocessor macros, which DWARF does not carry: they are
 * constants here, each with the reason it is safe.
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
 * libdw over a descriptor: read with pread (ELF_C_READ), not mmap, so a
 * file truncated under us is a read error, never a SIGBUS.
 */
static Dwarf *
begin(int fd, Elf **elfp)
{
	*elfp = elf_begin(fd, ELF_C_READ, NULL);
	if (!*elfp)
		return NULL;
	return dwarf_begin_elf(*elfp, DWARF_C_READ, NULL);
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

/* When a rule applies; outside it the field stays absent. */
enum when {
	ANY,		/* every version: required */
	OPT,		/* some versions: absent when not found */
	RACTOR,		/* threads per ractor (3.0+) */
	VMLIST,		/* threads in the VM (2.7) */
	TID_THREAD,	/* rb_thread_t.tid (3.0-3.2) */
	NOT_NT,		/* before rb_native_thread (<= 3.2) */
	NT,		/* rb_native_thread (3.3+) */
	SUCC,		/* succinct line table */
	CP_IVAR,	/* class path in the ivar table (<= 3.2) */
	CP_EXT,		/* rb_classext_t.classpath (3.3+) */
	ATT_IVAR,	/* __attached__ ivar (<= 3.1) */
	ATT_EXT,	/* classext attached_object (3.2+) */
	LEN_FLAGS,	/* embedded string length in flags (<= 3.1) */
};

enum how {
	OFF,		/* byte offset of member in type */
	SIZE,		/* sizeof(type) */
	BITS,		/* bitfield: field = bit, FIELD_width = width */
	ENUM,		/* enumerator or constant named member */
};

struct rule {
	const char *field;
	enum when when;
	enum how how;
	const char *type;	/* alternatives separated by '|' */
	const char *member;	/* alternatives separated by '|' */
};

#define VM "rb_vm_t"
#define RACT "rb_ractor_t"
#define TH "rb_thread_t"
#define NTH "struct rb_native_thread"
#define EC "rb_execution_context_t"
#define CFP "rb_control_frame_t"
#define BODY "struct rb_iseq_constant_body"
#define ME "rb_method_entry_t"
#define DEF "rb_method_definition_t"
#define CLS "struct RClass"
#define EXT "rb_classext_t"
#define STR "struct RString"
#define ARY "struct RArray"
#define SYMS "rb_symbols_t"
#define OBJSP "rb_objspace_t"

static const struct rule rules[] = {
	/* rb_vm_t */
	{ "vm_ractor_set", RACTOR, OFF, VM, "ractor.set" },
	{ "vm_ractor_cnt", RACTOR, OFF, VM, "ractor.cnt" },
	{ "vm_main_ractor", RACTOR, OFF, VM, "ractor.main_ractor" },
	{ "vm_main_thread", ANY, OFF, VM, "ractor.main_thread|main_thread" },
	{ "vm_living_threads", VMLIST, OFF, VM, "living_threads" },
	{ "vm_living_thread_num", VMLIST, OFF, VM, "living_thread_num" },
	{ "vm_running_thread", VMLIST, OFF, VM, "running_thread" },
	{ "vm_gvl_owner", VMLIST, OFF, VM, "gvl.owner" },
	{ "vm_objspace", ANY, OFF, VM, "gc.objspace|objspace" },
	/* rb_ractor_t */
	{ "ractor_threads_set", RACTOR, OFF, RACT, "threads.set" },
	{ "ractor_threads_cnt", RACTOR, OFF, RACT, "threads.cnt" },
	{ "ractor_running_ec", RACTOR, OFF, RACT, "threads.running_ec" },
	{ "ractor_main_thread", RACTOR, OFF, RACT, "threads.main" },
	{ "ractor_gvl_owner", RACTOR, OFF, RACT,
	  "threads.sched.running|threads.gvl.owner" },
	{ "ractor_vmlr_node", RACTOR, OFF, RACT, "vmlr_node" },
	/* ccan list */
	{ "list_node_next", ANY, OFF,
	  "struct ccan_list_node|struct list_node", "next" },
	{ "list_node_prev", ANY, OFF,
	  "struct ccan_list_node|struct list_node", "prev" },
	/* rb_thread_t */
	{ "thread_lt_node", ANY, OFF, TH, "lt_node|vmlt_node" },
	{ "thread_self", ANY, OFF, TH, "self" },
	{ "thread_ractor", RACTOR, OFF, TH, "ractor" },
	{ "thread_vm", ANY, OFF, TH, "vm" },
	{ "thread_ec", ANY, OFF, TH, "ec" },
	{ "thread_nt", NT, OFF, TH, "nt" },
	{ "thread_thread_id", NOT_NT, OFF, TH, "thread_id" },
	{ "thread_tid", TID_THREAD, OFF, TH, "tid" },
	{ "thread_name", ANY, OFF, TH, "name" },
	{ "thread_status_bit", ANY, BITS, TH, "status" },
	{ "thread_runnable", ANY, ENUM, NULL, "THREAD_RUNNABLE" },
	{ "thread_stopped", ANY, ENUM, NULL, "THREAD_STOPPED" },
	{ "thread_stopped_forever", ANY, ENUM, NULL,
	  "THREAD_STOPPED_FOREVER" },
	{ "thread_killed", ANY, ENUM, NULL, "THREAD_KILLED" },
	{ "nt_thread_id", NT, OFF, NTH, "thread_id" },
	{ "nt_tid", NT, OFF, NTH, "tid" },
	/* rb_execution_context_t */
	{ "ec_vm_stack", ANY, OFF, EC, "vm_stack" },
	{ "ec_vm_stack_size", ANY, OFF, EC, "vm_stack_size" },
	{ "ec_cfp", ANY, OFF, EC, "cfp" },
	{ "ec_thread_ptr", ANY, OFF, EC, "thread_ptr" },
	{ "ec_fiber_ptr", ANY, OFF, EC, "fiber_ptr" },
	/* rb_control_frame_t */
	{ "sizeof_control_frame", ANY, SIZE, CFP, NULL },
	{ "cfp_pc", ANY, OFF, CFP, "pc" },
	{ "cfp_sp", ANY, OFF, CFP, "sp" },
	{ "cfp_iseq", ANY, OFF, CFP, "iseq" },
	{ "cfp_self", ANY, OFF, CFP, "self" },
	{ "cfp_ep", ANY, OFF, CFP, "ep" },
	{ "cfp_block_code", ANY, OFF, CFP, "block_code" },
	{ "cfp_jit_return", OPT, OFF, CFP, "jit_return" },
	/* frame magic */
	{ "frame_magic_mask", ANY, ENUM, NULL, "VM_FRAME_MAGIC_MASK" },
	{ "frame_magic_method", ANY, ENUM, NULL, "VM_FRAME_MAGIC_METHOD" },
	{ "frame_magic_block", ANY, ENUM, NULL, "VM_FRAME_MAGIC_BLOCK" },
	{ "frame_magic_class", ANY, ENUM, NULL, "VM_FRAME_MAGIC_CLASS" },
	{ "frame_magic_top", ANY, ENUM, NULL, "VM_FRAME_MAGIC_TOP" },
	{ "frame_magic_cfunc", ANY, ENUM, NULL, "VM_FRAME_MAGIC_CFUNC" },
	{ "frame_magic_ifunc", ANY, ENUM, NULL, "VM_FRAME_MAGIC_IFUNC" },
	{ "frame_magic_eval", ANY, ENUM, NULL, "VM_FRAME_MAGIC_EVAL" },
	{ "frame_magic_rescue", ANY, ENUM, NULL, "VM_FRAME_MAGIC_RESCUE" },
	{ "frame_magic_dummy", ANY, ENUM, NULL, "VM_FRAME_MAGIC_DUMMY" },
	{ "frame_flag_cframe", ANY, ENUM, NULL, "VM_FRAME_FLAG_CFRAME" },
	{ "env_flag_local", ANY, ENUM, NULL, "VM_ENV_FLAG_LOCAL" },
	/* iseq */
	{ "iseq_body", ANY, OFF, "rb_iseq_t", "body" },
	{ "body_type", ANY, OFF, BODY, "type" },
	{ "body_iseq_size", ANY, OFF, BODY, "iseq_size" },
	{ "body_iseq_encoded", ANY, OFF, BODY, "iseq_encoded" },
	{ "body_pathobj", ANY, OFF, BODY, "location.pathobj" },
	{ "body_base_label", ANY, OFF, BODY, "location.base_label" },
	{ "body_label", ANY, OFF, BODY, "location.label" },
	{ "body_first_lineno", ANY, OFF, BODY, "location.first_lineno" },
	{ "body_insns_info_body", ANY, OFF, BODY, "insns_info.body" },
	{ "body_insns_info_positions", ANY, OFF, BODY,
	  "insns_info.positions" },
	{ "body_insns_info_size", ANY, OFF, BODY, "insns_info.size" },
	{ "body_insns_info_succ", SUCC, OFF, BODY,
	  "insns_info.succ_index_table" },
	{ "body_local_iseq", ANY, OFF, BODY, "local_iseq" },
	{ "body_parent_iseq", ANY, OFF, BODY, "parent_iseq" },
	{ "sizeof_insn_info_entry", ANY, SIZE, "struct iseq_insn_info_entry",
	  NULL },
	{ "insn_info_line_no", ANY, OFF, "struct iseq_insn_info_entry",
	  "line_no" },
	{ "iseq_type_top", ANY, ENUM, NULL, "ISEQ_TYPE_TOP" },
	{ "iseq_type_method", ANY, ENUM, NULL, "ISEQ_TYPE_METHOD" },
	{ "iseq_type_block", ANY, ENUM, NULL, "ISEQ_TYPE_BLOCK" },
	{ "iseq_type_class", ANY, ENUM, NULL, "ISEQ_TYPE_CLASS" },
	{ "iseq_type_rescue", ANY, ENUM, NULL, "ISEQ_TYPE_RESCUE" },
	{ "iseq_type_ensure", ANY, ENUM, NULL, "ISEQ_TYPE_ENSURE" },
	{ "iseq_type_eval", ANY, ENUM, NULL, "ISEQ_TYPE_EVAL" },
	{ "iseq_type_main", ANY, ENUM, NULL, "ISEQ_TYPE_MAIN" },
	{ "iseq_type_plain", ANY, ENUM, NULL, "ISEQ_TYPE_PLAIN" },
	/* struct succ_index_table (iseq.c) */
	{ "succ_imm_part", SUCC, OFF, "struct succ_index_table", "imm_part" },
	{ "succ_succ_part", SUCC, OFF, "struct succ_index_table",
	  "succ_part" },
	{ "sizeof_succ_dict_block", SUCC, SIZE, "struct succ_dict_block",
	  NULL },
	{ "succ_block_rank", SUCC, OFF, "struct succ_dict_block", "rank" },
	{ "succ_block_small_block_ranks", SUCC, OFF, "struct succ_dict_block",
	  "small_block_ranks" },
	{ "succ_block_bits", SUCC, OFF, "struct succ_dict_block", "bits" },
	/* method entries */
	{ "me_flags", ANY, OFF, ME, "flags" },
	{ "me_defined_class", ANY, OFF, ME, "defined_class" },
	{ "me_def", ANY, OFF, ME, "def" },
	{ "me_called_id", ANY, OFF, ME, "called_id" },
	{ "me_owner", ANY, OFF, ME, "owner" },
	{ "def_type_bit", ANY, BITS, DEF, "type" },
	{ "def_original_id", ANY, OFF, DEF, "original_id" },
	{ "def_iseq_iseqptr", ANY, OFF, DEF, "body.iseq.iseqptr" },
	{ "def_cfunc_func", ANY, OFF, DEF, "body.cfunc.func" },
	{ "def_bmethod_proc", ANY, OFF, DEF, "body.bmethod.proc" },
	{ "def_alias_original_me", ANY, OFF, DEF, "body.alias.original_me" },
	{ "method_type_iseq", ANY, ENUM, NULL, "VM_METHOD_TYPE_ISEQ" },
	{ "method_type_cfunc", ANY, ENUM, NULL, "VM_METHOD_TYPE_CFUNC" },
	{ "method_type_attrset", ANY, ENUM, NULL, "VM_METHOD_TYPE_ATTRSET" },
	{ "method_type_ivar", ANY, ENUM, NULL, "VM_METHOD_TYPE_IVAR" },
	{ "method_type_bmethod", ANY, ENUM, NULL, "VM_METHOD_TYPE_BMETHOD" },
	{ "method_type_zsuper", ANY, ENUM, NULL, "VM_METHOD_TYPE_ZSUPER" },
	{ "method_type_alias", ANY, ENUM, NULL, "VM_METHOD_TYPE_ALIAS" },
	{ "method_type_undef", ANY, ENUM, NULL, "VM_METHOD_TYPE_UNDEF" },
	{ "method_type_optimized", ANY, ENUM, NULL,
	  "VM_METHOD_TYPE_OPTIMIZED" },
	{ "method_type_missing", ANY, ENUM, NULL, "VM_METHOD_TYPE_MISSING" },
	{ "method_type_refined", ANY, ENUM, NULL, "VM_METHOD_TYPE_REFINED" },
	/* T_IMEMO */
	{ "imemo_type_shift", ANY, ENUM, NULL, "RUBY_FL_USHIFT" },
	{ "imemo_env", ANY, ENUM, NULL, "imemo_env" },
	{ "imemo_cref", ANY, ENUM, NULL, "imemo_cref" },
	{ "imemo_svar", ANY, ENUM, NULL, "imemo_svar" },
	{ "imemo_ment", ANY, ENUM, NULL, "imemo_ment" },
	{ "imemo_iseq", ANY, ENUM, NULL, "imemo_iseq" },
	{ "svar_cref_or_me", ANY, OFF, "struct vm_svar", "cref_or_me" },
	{ "cref_klass", ANY, OFF, "rb_cref_t", "klass_or_self|klass" },
	{ "cref_next", ANY, OFF, "rb_cref_t", "next" },
	/* RBasic, types, special constants */
	{ "rbasic_flags", ANY, OFF, "struct RBasic", "flags" },
	{ "rbasic_klass", ANY, OFF, "struct RBasic", "klass" },
	{ "t_mask", ANY, ENUM, NULL, "RUBY_T_MASK" },
	{ "t_object", ANY, ENUM, NULL, "RUBY_T_OBJECT" },
	{ "t_class", ANY, ENUM, NULL, "RUBY_T_CLASS" },
	{ "t_module", ANY, ENUM, NULL, "RUBY_T_MODULE" },
	{ "t_string", ANY, ENUM, NULL, "RUBY_T_STRING" },
	{ "t_array", ANY, ENUM, NULL, "RUBY_T_ARRAY" },
	{ "t_iclass", ANY, ENUM, NULL, "RUBY_T_ICLASS" },
	{ "t_imemo", ANY, ENUM, NULL, "RUBY_T_IMEMO" },
	{ "fl_ushift", ANY, ENUM, NULL, "RUBY_FL_USHIFT" },
	{ "fl_singleton", ANY, ENUM, NULL, "RUBY_FL_SINGLETON" },
	{ "qfalse", ANY, ENUM, NULL, "RUBY_Qfalse" },
	{ "qnil", ANY, ENUM, NULL, "RUBY_Qnil" },
	{ "qtrue", ANY, ENUM, NULL, "RUBY_Qtrue" },
	{ "qundef", ANY, ENUM, NULL, "RUBY_Qundef" },
	{ "fixnum_flag", ANY, ENUM, NULL, "RUBY_FIXNUM_FLAG" },
	{ "symbol_flag", ANY, ENUM, NULL, "RUBY_SYMBOL_FLAG" },
	{ "special_shift", ANY, ENUM, NULL, "RUBY_SPECIAL_SHIFT" },
	{ "immediate_mask", ANY, ENUM, NULL, "RUBY_IMMEDIATE_MASK" },
	/* RClass / rb_classext_t */
	{ "rclass_super", ANY, OFF, CLS, "super" },
	{ "rclass_ext", OPT, OFF, CLS, "ptr" },
	{ "sizeof_rclass", ANY, SIZE, CLS, NULL },
	{ "classext_iv_tbl", ATT_IVAR, OFF, EXT, "iv_tbl" },
	{ "classext_classpath", CP_EXT, OFF, EXT, "classpath" },
	{ "classext_attached", ATT_EXT, OFF, EXT,
	  "as.singleton_class.attached_object" },
	{ "classext_origin", ANY, OFF, EXT, "origin_" },
	{ "classext_includer", ANY, OFF, EXT, "includer" },
	{ "id_attached", ATT_IVAR, ENUM, NULL, "id__attached__" },
	/* st_table */
	{ "st_num_entries", ANY, OFF, "st_table", "num_entries" },
	{ "st_entries", ANY, OFF, "st_table", "entries" },
	{ "st_entries_start", ANY, OFF, "st_table", "entries_start" },
	{ "st_entries_bound", ANY, OFF, "st_table", "entries_bound" },
	{ "sizeof_st_entry", ANY, SIZE, "struct st_table_entry", NULL },
	{ "st_entry_hash", ANY, OFF, "struct st_table_entry", "hash" },
	{ "st_entry_key", ANY, OFF, "struct st_table_entry", "key" },
	{ "st_entry_record", ANY, OFF, "struct st_table_entry", "record" },
	/* RString */
	{ "rstring_len", ANY, OFF, STR, "len|as.heap.len" },
	{ "rstring_heap_ptr", ANY, OFF, STR, "as.heap.ptr" },
	{ "rstring_embed_ary", ANY, OFF, STR, "as.embed.ary|as.ary" },
	{ "rstring_noembed", ANY, ENUM, NULL, "RSTRING_NOEMBED" },
	{ "rstring_embed_len_mask", LEN_FLAGS, ENUM, NULL,
	  "RSTRING_EMBED_LEN_MASK" },
	{ "rstring_embed_len_shift", LEN_FLAGS, ENUM, NULL,
	  "RSTRING_EMBED_LEN_SHIFT" },
	/* RArray */
	{ "rarray_heap_len", ANY, OFF, ARY, "as.heap.len" },
	{ "rarray_heap_ptr", ANY, OFF, ARY, "as.heap.ptr" },
	{ "rarray_embed_ary", ANY, OFF, ARY, "as.ary" },
	{ "rarray_embed_flag", ANY, ENUM, NULL, "RARRAY_EMBED_FLAG" },
	{ "rarray_embed_len_mask", ANY, ENUM, NULL, "RARRAY_EMBED_LEN_MASK" },
	{ "rarray_embed_len_shift", ANY, ENUM, NULL,
	  "RARRAY_EMBED_LEN_SHIFT" },
	/* symbols (symbol.c) */
	{ "sizeof_symbols", ANY, SIZE, SYMS, NULL },
	{ "symbols_last_id", ANY, OFF, SYMS, "last_id" },
	{ "symbols_str_sym", ANY, OFF, SYMS, "str_sym" },
	{ "symbols_ids", ANY, OFF, SYMS, "ids" },
	{ "id_entry_size", ANY, ENUM, NULL, "ID_ENTRY_SIZE" },
	{ "id_entry_str", ANY, ENUM, NULL, "ID_ENTRY_STR" },
	{ "tlast_op_id", ANY, ENUM, NULL, "tLAST_OP_ID" },
	{ "id_scope_shift", ANY, ENUM, NULL, "RUBY_ID_SCOPE_SHIFT" },
	/* GC (gc.c) */
	{ "objspace_mode_bit", ANY, BITS, OBJSP, "flags.mode" },
	{ "objspace_during_gc_bit", ANY, BITS, OBJSP, "flags.during_gc" },
	{ "objspace_gc_count", ANY, OFF, OBJSP, "profile.count" },
	{ "gc_mode_none", ANY, ENUM, NULL, "gc_mode_none" },
	{ "gc_mode_marking", ANY, ENUM, NULL, "gc_mode_marking" },
	{ "gc_mode_sweeping", ANY, ENUM, NULL, "gc_mode_sweeping" },
	{ "gc_mode_compacting", OPT, ENUM, NULL, "gc_mode_compacting" },
	{ "sizeof_rvalue", OPT, SIZE, "RVALUE", NULL },
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
applies(enum when w, const struct ruby_layout *L)
{
	switch (w) {
	case ANY:
	case OPT:
		return true;
	case RACTOR:
		return L->threads == RUBY_LAYOUT_THREADS_RACTOR;
	case VMLIST:
		return L->threads == RUBY_LAYOUT_THREADS_VM;
	case TID_THREAD:
		return L->tid == RUBY_LAYOUT_TID_THREAD;
	case NOT_NT:
		return L->tid != RUBY_LAYOUT_TID_NATIVE_THREAD;
	case NT:
		return L->tid == RUBY_LAYOUT_TID_NATIVE_THREAD;
	case SUCC:
		return L->lines == RUBY_LAYOUT_LINES_SUCCINCT;
	case CP_IVAR:
		return L->classpath == RUBY_LAYOUT_CLASSPATH_IVAR;
	case CP_EXT:
		return L->classpath == RUBY_LAYOUT_CLASSPATH_EXT;
	case ATT_IVAR:
		return L->attached == RUBY_LAYOUT_ATTACHED_IVAR;
	case ATT_EXT:
		return L->attached == RUBY_LAYOUT_ATTACHED_EXT;
	case LEN_FLAGS:
		return L->string == RUBY_LAYOUT_STRING_LEN_IN_FLAGS;
	}
	return false;
}

/* One rule's answer; -1 when no alternative is found. */
static int
answer(struct ruby_dwarf *d, const struct rule *r, int64_t *v, int64_t *w)
{
	char type[MAX_NAME], member[MAX_NAME];
	uint64_t u, width;
	int64_t s;

	if (r->how == ENUM) {
		if (ruby_dwarf_enum(d, r->member, &s) < 0)
			return -1;
		*v = s;
		return 0;
	}
	for (int ti = 0; alternative(r->type, ti, type, sizeof(type)) == 0;
	     ti++) {
		if (r->how == SIZE) {
			if (ruby_dwarf_size(d, type, &u) == 0) {
				*v = (int64_t)u;
				return 0;
			}
			continue;
		}
		for (int mi = 0; alternative(r->member, mi, member,
					     sizeof(member)) == 0;
		     mi++) {
			if (r->how == OFF &&
			    ruby_dwarf_offset(d, type, member, &u) == 0) {
				*v = (int64_t)u;
				return 0;
			}
			if (r->how == BITS &&
			    ruby_dwarf_bits(d, type, member, &u, &width) == 0) {
				*v = (int64_t)u;
				*w = (int64_t)width;
				return 0;
			}
		}
	}
	return -1;
}

static bool
has(struct ruby_dwarf *d, const char *type, const char *member)
{
	Dwarf_Die m;
	uint64_t off;

	return resolve(d, type, member, &m, &off) == 0;
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
	uint64_t u;
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
	L->version = out->version;
	L->source = out->source;
	L->api_major = (uint8_t)maj;
	L->api_minor = (uint8_t)min;

	/* Feature flags: which shapes exist. */
	L->threads = has(d, VM, "ractor") ? RUBY_LAYOUT_THREADS_RACTOR
					  : RUBY_LAYOUT_THREADS_VM;
	L->tid = has(d, TH, "nt")    ? RUBY_LAYOUT_TID_NATIVE_THREAD
		 : has(d, TH, "tid") ? RUBY_LAYOUT_TID_THREAD
				     : RUBY_LAYOUT_TID_PTHREAD;
	L->string = has(d, STR, "len") ? RUBY_LAYOUT_STRING_LEN_FIELD
				       : RUBY_LAYOUT_STRING_LEN_IN_FLAGS;
	L->lines = ruby_dwarf_size(d, "struct succ_index_table", &u) == 0
			   ? RUBY_LAYOUT_LINES_SUCCINCT
			   : RUBY_LAYOUT_LINES_POSITIONS;
	L->classpath = has(d, EXT, "classpath") ? RUBY_LAYOUT_CLASSPATH_EXT
						: RUBY_LAYOUT_CLASSPATH_IVAR;
	L->attached = has(d, EXT, "as.singleton_class.attached_object")
			      ? RUBY_LAYOUT_ATTACHED_EXT
			      : RUBY_LAYOUT_ATTACHED_IVAR;
	L->first_lineno_fixnum = (uint8_t)ruby_dwarf_member_is(
		d, "rb_iseq_location_t", "first_lineno", "VALUE");
	/* YJIT: C in 3.1 (yjit.c then includes its code generator, whose
	 * codeblock_t is indexed), Rust from 3.2. */
	L->yjit = ruby_dwarf_has_rust(d) ||
		  ruby_dwarf_size(d, "codeblock_t", &u) == 0;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct rule *r = &rules[i];
		const struct ruby_layout_field *f = ruby_layout_field(r->field);
		char wname[MAX_NAME];

		if (!f)
			goto internal;
		if (!applies(r->when, L))
			continue;
		w = 0;
		if (answer(d, r, &v, &w) < 0) {
			if (r->when == OPT)
				continue;
			if (r->how == ENUM)
				snprintf(why, whylen, "no constant %s (for %s)",
					 r->member, r->field);
			else
				snprintf(why, whylen, "no %s%s%s (for %s)",
					 r->type, r->member ? "." : "",
					 r->member ? r->member : "", r->field);
			errno = ENOENT;
			return -1;
		}
		if (ruby_layout_set(L, f, v) < 0) {
			snprintf(why, whylen, "%s = %lld: out of range",
				 r->field, (long long)v);
			errno = ERANGE;
			return -1;
		}
		if (r->how != BITS)
			continue;
		/* thread_status_bit -> thread_status_width, when there is
		 * one (objspace_during_gc is one bit). */
		snprintf(wname, sizeof(wname), "%.*s_width",
			 (int)(strlen(r->field) - 4), r->field);
		f = ruby_layout_field(wname);
		if (f && ruby_layout_set(L, f, w) < 0)
			goto internal;
	}

	/* What a -g build does not record, being preprocessor macros: */
	/* VM_ENV_DATA_INDEX_* (vm_core.h): -2, -1, 0 since Ruby 2.2. */
	L->env_index_me_cref = -2;
	L->env_index_specval = -1;
	L->env_index_flags = 0;
	/* IMEMO_MASK (internal/imemo.h): 0x0f since 2.3. */
	L->imemo_type_mask = 0xf;
	/* IMMEDIATE_TABLE_SIZE (iseq.c): imm_part has
	 * IMMEDIATE_TABLE_SIZE / 9 uint64_t words. */
	if (L->lines == RUBY_LAYOUT_LINES_SUCCINCT) {
		if (ruby_dwarf_member_size(d, "struct succ_index_table",
					   "imm_part", &u) < 0 ||
		    u == 0 || u % 8) {
			snprintf(why, whylen,
				 "no struct succ_index_table.imm_part size");
			errno = ENOENT;
			return -1;
		}
		L->succ_immediate_size = (uint16_t)(u / 8 * 9);
	}
	/* ID_ENTRY_UNIT (symbol.c) is a static const int, whose value the
	 * DWARF holds when the compiler kept it as a constant; 512 in
	 * every release since 2.2. */
	L->id_entry_unit = ruby_dwarf_enum(d, "ID_ENTRY_UNIT", &v) == 0 &&
					   v > 0 && v < 1 << 20
				   ? (uint32_t)v
				   : 512;
	/* A string whose length is a field has no mask in its flags. */
	if (L->string == RUBY_LAYOUT_STRING_LEN_FIELD) {
		L->rstring_embed_len_mask = 0;
		L->rstring_embed_len_shift = 0;
	}
	/* RVALUE is gone in 3.4 (BASE_SLOT_SIZE, a macro): 40 bytes, the
	 * size of five VALUEs, in every version. */
	if (L->sizeof_rvalue == RUBY_LAYOUT_NONE)
		L->sizeof_rvalue = 40;
	return 0;
internal:
	snprintf(why, whylen, "internal error: layout rule table");
	errno = EINVAL;
	return -1;
}
