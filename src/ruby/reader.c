// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Reading Ruby stacks out of a VM: threads of the main ractor, their
 * control frames, and for each frame its label (with the class name, as
 * Ruby 3.4 prints backtraces), its file and the line executing.
 *
 * Everything is read through struct mem and validated: a pointer that
 * does not lead to an object of the expected type ends the frame or the
 * stack, and is counted. Every loop is bounded.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/error.h"
#include "rbflame/intern.h"
#include "rbflame/mem.h"
#include "rbflame/proc.h"
#include "rbflame/ruby.h"
#include "rbflame/ruby_lines.h"
#include "rbflame/xmalloc.h"

#define MAX_STRING 4096		/* longest label or path we read */
#define MAX_EP_CHAIN 64		/* blocks nested in blocks */
#define MAX_CLASS_DEPTH 16	/* singleton of singleton of ... */
#define MAX_SUPER_CHAIN 32	/* iclasses (extend) above a singleton */
#define MAX_IVARS 256		/* entries scanned in a class ivar table */
#define ID_CACHE 4096		/* ID -> name cache slots (power of two) */
#define FRAME_CACHE 16384	/* resolved frames (power of two) */
/* Labels and paths kept before the reader starts a new set
 * (RUBY_READER_STRINGS_MAX): a target that evals code under new names
 * forever (tests/ruby/fixtures/evals.rb) made the set grow 0.2 MB/s at
 * 1000 Hz, without end. */
#define STRINGS_MAX RUBY_READER_STRINGS_MAX
#define ISEQ_MEMO 256		/* iseqs checked in one read (power of two) */
#define TYPE_CACHE 1024		/* eps' objects' types (power of two) */
#define VS_MAX (1u << 20)	/* bytes of VM stack values read at once */
#define GC_COUNT_MAX (1ull << 40) /* more GCs than any process has run */
/* The GC bit set in this many GVL-holder samples in a row while the GC
 * count stands still: one collection would have to last minutes. */
#define GC_STUCK_SAMPLES 2000
/* The GVL holder's status must be runnable: this many holder samples,
 * and more than half of them not, drop the status field. */
#define STATUS_SAMPLES 50

/*
 * A resolved frame, keyed by (iseq, pc) for Ruby frames and by the method
 * entry for C frames. A hit is validated against the target before use:
 * the iseq must still be an iseq with the same body, bytecode and label,
 * and the frame must run under the same method entry (a GC that frees,
 * reuses or compacts an iseq, or code redefined into the same addresses,
 * changes one of them); a C frame's method entry must still have the
 * same definition and owner.
 *
 * Or, cheaper, by the GC's count (epoch): a slot checked in a stopped
 * read while the GC was not marking holds for every stopped read with
 * the same count. Its iseq was alive then, so marked by the last marking
 * or allocated after it: the sweep under way frees neither, and the next
 * sweep belongs to a collection that starts by moving the count. Nor can
 * another iseq take its key meanwhile: the pc points into the bytecode,
 * freed with the iseq alone (a compaction moves the iseq, not its
 * bytecode). A C frame's slot is keyed by its method entry alone, which
 * a compaction may move and free: stamped while the GC is idle, or
 * sweeping where compaction is not lazy (3.2 on: a mode of its own,
 * done within one GC step) or its flag says none is under way. The
 * method entry of a Ruby frame is still compared (the ep is the
 * stack's, read each time): a frame in transit runs under another one.
 * The iseqs' headers a hit read only to check them were 4 of the 22
 * lines a 20-deep stack's stop fetched.
 *
 * An object old when checked (promoted: it survived three GCs) is
 * vouched for by the count of major GCs instead: a minor GC marks every
 * old object before it starts and so frees none, nor moves any (only a
 * major GC compacts), and every major GC moves that count as it starts.
 * A server's GCs are minor ones, one every few requests: under
 * bench/server's Puma the GC count vouched for 37 thousand frames of a
 * run, the major count for 62 thousand, and a worker's hold took 130
 * us for 150 (p50).
 */
struct frame_slot {
	uint64_t key1, key2;	/* iseq, pc; or 0, method entry */
	uint64_t body, encoded;	/* Ruby frames: what the iseq pointed to */
	uint64_t label;		/* the iseq's label String */
	uint64_t me_raw;	/* the frame's method entry when resolved */
	uint64_t def, owner;	/* C frames: the method entry's fields */
	uint8_t kind;		/* 0 empty, 1 Ruby frame, 2 C frame */
	bool confirmed;		/* resolved in a stopped read, or alike in
				 * two reads: served as it is */
	uint32_t gen;		/* the read that resolved it */
	uint64_t epoch;		/* GC count + 1 when checked in a quiet
				 * stopped read; 0 none */
	uint64_t major;		/* major GC count + 1 when so checked and
				 * its object was old; 0 none */
	struct ruby_frame f;
};

/*
 * An iseq's header as one read of all stacks found it: within that read
 * (the target stopped) it cannot change, so a stack that runs the same
 * iseq in many frames (recursion, nested blocks of one method) reads it
 * once, not once a frame. Valid while gen is the reader's read_gen.
 */
struct iseq_memo {
	uint64_t iseq;
	uint64_t flags, body, encoded, label;
	uint32_t gen;
};

/*
 * The imemo type of an object a frame's ep names (a method entry, a
 * cref, an svar), kept while the GC's count stands, or the count of
 * major GCs for an old object, as a frame slot is (struct frame_slot):
 * an object's type changes only when the GC frees or moves it. A stop
 * that found every frame in the cache still read these objects' headers
 * to resolve each frame's method entry (frame_method_entry()): a 20-deep
 * stack's stop fetched 2 of its 16 lines for them.
 */
struct type_slot {
	uint64_t obj;
	uint64_t epoch, major;	/* as struct frame_slot's */
	int type;		/* imemo_type(), -1: not an imemo */
};

struct id_slot {
	uint64_t id;
	uint32_t name;		/* intern id + 1; 0 = empty */
};

struct ruby_reader {
	struct ruby_vm vm;
	const struct ruby_layout *L;
	struct mem *mem;
	struct proc_tidmap *tids; /* the process's tids -> ours; NULL offline */
	/* The labels and paths of frames read, which the stacks returned
	 * point into; at STRINGS_MAX a new set starts and this one is kept
	 * as old_strings, freed when the next set starts (a stack of the
	 * last read points into one of the two). */
	struct intern *strings, *old_strings;
	struct ruby_reader_stats stats;
	bool bad;		/* a read failed in the current frame */
	uint64_t main_ractor;	/* as thread_list() last read it */
	bool layout_ok;		/* L passed ruby_layout_check(): frame reads
				 * stay inside the frames they copy */
	uint64_t id_classpath, id_tmp_classpath; /* <= 3.1, found lazily */
	struct id_slot ids[ID_CACHE];
	uint64_t *cfps;		/* scratch: the control frames of a stack */
	size_t cfps_cap;
	struct frame_slot *frames; /* FRAME_CACHE slots */
	struct iseq_memo memo[ISEQ_MEMO];
	struct type_slot types[TYPE_CACHE];
	uint32_t read_gen;	/* bumped by each ruby_read_stacks() */
	/* The used part of the VM stack being walked, read in one go so the
	 * environment slots of every frame are served without a syscall. */
	uint64_t vs_base, vs_len;
	uint64_t *vs;
	size_t vs_cap;
	/* Plausibility of the GC and status fields (see ruby_checks). */
	struct ruby_checks checks;
	uint64_t gc_count;	/* the GC count when the GC bit was last set */
	uint64_t objspace;	/* vm->objspace once its GC state passed the
				 * check: set at boot, never moved */
	/* This read's GC count + 1, when a stopped read that found the GC
	 * quiet may stamp slots with it (quiet) or trust those stamped
	 * with it; 0 when the count is unknown or the read is unstopped. */
	uint64_t epoch;
	uint64_t major;		/* as epoch, of the major GCs' count */
	bool quiet;		/* Ruby frames' slots: no marking under way */
	bool quiet_me;		/* C frames' too: nor a sweep that may be
				 * moving objects (<= 3.1's auto-compaction
				 * moves them while it sweeps) */
	uint32_t gc_stuck;	/* GC bit set since, count unchanged */
	uint32_t holder_samples, holder_not_runnable;
	/* dump --locals: on, and what this read rendered */
	bool locals_on;
	bool cut_torn;		/* ruby_reader_set_cut_torn() */
	bool unstopped;		/* ruby_reader_set_unstopped() */
	ruby_same_stack_fn same; /* ruby_reader_set_same() */
	void *same_ctx;
	/* The last walk of the thread list, for the next to skip the
	 * threads the hook proves idle (walk_reuse()). */
	struct walk_entry *walk;	/* RUBY_MAX_THREADS, allocated once */
	int nwalk;
	uint64_t walk_cnt;		/* the list's count then + 1; 0: none */
	bool bad_leaf_or_cut;	/* this stack lost its leaf or was cut */
	struct ruby_locals **locals;	/* RUBY_MAX_LOCALS_FRAMES slots */
	size_t nlocals;
	/* ruby_reader_set_fresh(): the threads the next read reads */
	uint64_t fresh[RUBY_FRESH_MAX];
	size_t nfresh;
};

/* ---- memory helpers: a failed read sets r->bad and yields 0 ---------- */

static uint64_t
rd64(struct ruby_reader *r, uint64_t addr)
{
	uint64_t v = 0;

	if (addr - r->vs_base < r->vs_len && !(addr & 7))
		return r->vs[(addr - r->vs_base) / 8];
	if (mem_read_u64(r->mem, addr, &v) < 0)
		r->bad = true;
	return v;
}

static uint32_t
rd32(struct ruby_reader *r, uint64_t addr)
{
	uint32_t v = 0;

	if (mem_read(r->mem, addr, &v, sizeof(v)) < 0)
		r->bad = true;
	return v;
}

static uint64_t
bits(struct ruby_reader *r, uint64_t obj, unsigned bit, unsigned width)
{
	if (bit == RUBY_LAYOUT_NONE || width == 0 || width > 32)
		return 0;
	return (rd64(r, obj + bit / 8) >> (bit % 8)) & ((1ull << width) - 1);
}

static bool
special(const struct ruby_layout *L, uint64_t v)
{
	return !v || (v & L->immediate_mask) || v == L->qnil ||
	       v == L->qfalse || v == L->qtrue || v == L->qundef || (v & 7);
}

/* The T_xxx type of a heap object, -1 for special constants. */
static int
type_of(struct ruby_reader *r, uint64_t v)
{
	if (special(r->L, v))
		return -1;
	return (int)(rd64(r, v + r->L->rbasic_flags) & r->L->t_mask);
}

/* The imemo type in an object's flags, -1 for an object no imemo. */
static int
imemo_of(const struct ruby_layout *L, uint64_t flags)
{
	if ((flags & L->t_mask) != L->t_imemo)
		return -1;
	return (int)((flags >> L->imemo_type_shift) & L->imemo_type_mask);
}

static int
imemo_type(struct ruby_reader *r, uint64_t v)
{
	if (special(r->L, v))
		return -1;
	return imemo_of(r->L, rd64(r, v + r->L->rbasic_flags));
}

/*
 * Whether a stamp taken when a slot or a type was checked (the GC count
 * + 1; the major GCs' count + 1 for an old object, or 0) holds in this
 * read: see struct frame_slot.
 */
static bool
stamp_holds(const struct ruby_reader *r, uint64_t epoch, uint64_t major)
{
	return r->epoch &&
	       (epoch == r->epoch || (r->major && major == r->major));
}

/* The major GCs' stamp for an object checked now with these flags:
 * this read's count if they say old, else 0. */
static uint64_t
major_stamp(const struct ruby_reader *r, uint64_t flags)
{
	uint64_t old = r->L->fl_promoted;

	return r->major && (flags & old) == old ? r->major : 0;
}

/* imemo_type(v), from struct type_slot when it may be. */
static int
imemo_type_kept(struct ruby_reader *r, uint64_t v)
{
	const struct ruby_layout *L = r->L;
	struct type_slot *t;
	uint64_t flags;
	int type;

	if (special(L, v))
		return -1;
	t = &r->types[((v >> 3) * 0x9e3779b97f4a7c15ull) >> 54 &
		      (TYPE_CACHE - 1)];
	if (t->obj == v && stamp_holds(r, t->epoch, t->major)) {
		r->stats.types_kept++;
		return t->type;
	}
	flags = rd64(r, v + L->rbasic_flags);
	if (r->bad)
		return -1;
	type = imemo_of(L, flags);
	/* Stamped as a C frame's slot is: a sweep may move objects up to
	 * 3.1 (r->quiet_me). */
	if (r->quiet_me) {
		t->obj = v;
		t->type = type;
		t->epoch = r->epoch;
		t->major = major_stamp(r, flags);
	}
	return type;
}

/* Reads String v into buf (NUL-terminated); NULL if v is no String. */
static const char *
rstring(struct ruby_reader *r, uint64_t v, char *buf, size_t cap)
{
	const struct ruby_layout *L = r->L;
	uint64_t flags, len, ptr;

	if (type_of(r, v) != (int)L->t_string)
		return NULL;
	flags = rd64(r, v + L->rbasic_flags);
	if (flags & L->rstring_noembed) {
		len = rd64(r, v + L->rstring_len);
		ptr = rd64(r, v + L->rstring_heap_ptr);
	} else {
		len = L->string == RUBY_LAYOUT_STRING_LEN_IN_FLAGS
			      ? (flags & L->rstring_embed_len_mask) >>
					L->rstring_embed_len_shift
			      : rd64(r, v + L->rstring_len);
		ptr = v + L->rstring_embed_ary;
	}
	if (r->bad)
		return NULL;
	if (len >= cap)
		len = cap - 1;
	if (mem_read(r->mem, ptr, buf, len) < 0) {
		r->bad = true;
		return NULL;
	}
	buf[len] = '\0';
	/* A NUL inside would cut the text short: keep what comes before. */
	return buf;
}

static uint64_t
rarray_at(struct ruby_reader *r, uint64_t v, uint64_t i)
{
	const struct ruby_layout *L = r->L;
	uint64_t flags, len, ptr;

	if (type_of(r, v) != (int)L->t_array)
		return 0;
	flags = rd64(r, v + L->rbasic_flags);
	if (flags & L->rarray_embed_flag) {
		len = (flags & L->rarray_embed_len_mask) >>
		      L->rarray_embed_len_shift;
		ptr = v + L->rarray_embed_ary;
	} else {
		len = rd64(r, v + L->rarray_heap_len);
		ptr = rd64(r, v + L->rarray_heap_ptr);
	}
	if (r->bad || i >= len)
		return 0;
	return rd64(r, ptr + 8 * i);
}

/* ---- IDs ------------------------------------------------------------- */

/* The name of ID id, interned; NULL when unknown. IDs never change
 * their name, so the cache needs no validation. */
static const char *
id_name(struct ruby_reader *r, uint64_t id)
{
	const struct ruby_layout *L = r->L;
	size_t slot = (id * 0x9e3779b97f4a7c15ull >> 40) & (ID_CACHE - 1);
	uint64_t serial, page, str;
	char buf[256];
	bool saved = r->bad;

	if (r->ids[slot].name && r->ids[slot].id == id)
		return intern_get(r->strings, r->ids[slot].name - 1);
	if (!r->vm.symbols || !id)
		return NULL;
	serial = id > L->tlast_op_id ? id >> L->id_scope_shift : id;
	page = rarray_at(r, rd64(r, r->vm.symbols + L->symbols_ids),
			 serial / L->id_entry_unit);
	str = rarray_at(r, page,
			(serial % L->id_entry_unit) * L->id_entry_size +
				L->id_entry_str);
	if (!rstring(r, str, buf, sizeof(buf))) {
		r->bad = saved;	/* an unknown name is not a broken stack */
		return NULL;
	}
	r->ids[slot].id = id;
	r->ids[slot].name = intern_str(r->strings, buf) + 1;
	return intern_get(r->strings, r->ids[slot].name - 1);
}

/* ---- classes --------------------------------------------------------- */

/* The classext of a class: a pointer (<= 3.1) or embedded after RClass. */
static uint64_t
classext(struct ruby_reader *r, uint64_t klass)
{
	if (r->L->rclass_ext != RUBY_LAYOUT_NONE)
		return rd64(r, klass + r->L->rclass_ext);
	return klass + r->L->sizeof_rclass;
}

/* <= 3.1: the value of ivar id (or of the ivars named name, found once)
 * in the class's ivar st_table. */
static uint64_t
class_ivar(struct ruby_reader *r, uint64_t klass, uint64_t id,
	   const char *name, uint64_t *found_id)
{
	const struct ruby_layout *L = r->L;
	uint64_t tbl, entries, start, bound;

	tbl = rd64(r, classext(r, klass) + L->classext_iv_tbl);
	if (!tbl || r->bad)
		return 0;
	entries = rd64(r, tbl + L->st_entries);
	start = rd32(r, tbl + L->st_entries_start);
	bound = rd32(r, tbl + L->st_entries_bound);
	if (r->bad || !entries || bound < start || bound - start > MAX_IVARS)
		return 0;
	for (uint64_t i = start; i < bound; i++) {
		uint64_t e = entries + i * L->sizeof_st_entry;
		uint64_t hash = rd64(r, e + L->st_entry_hash);
		uint64_t key = rd64(r, e + L->st_entry_key);
		const char *kn;

		if (r->bad)
			return 0;
		if (hash == ~0ull)
			continue;	/* deleted */
		if (id ? key != id : false)
			continue;
		if (!id) {
			kn = id_name(r, key);
			if (!kn || strcmp(kn, name))
				continue;
			if (found_id)
				*found_id = key;
		}
		return rd64(r, e + L->st_entry_record);
	}
	return 0;
}

/* The permanent (or temporary) name of a class or module into buf;
 * false for an anonymous one. */
static bool
class_path(struct ruby_reader *r, uint64_t klass, char *buf, size_t cap)
{
	const struct ruby_layout *L = r->L;
	uint64_t path = 0;

	if (L->classpath == RUBY_LAYOUT_CLASSPATH_EXT) {
		path = rd64(r, classext(r, klass) + L->classext_classpath);
	} else {
		if (r->id_classpath)
			path = class_ivar(r, klass, r->id_classpath, NULL,
					  NULL);
		else
			path = class_ivar(r, klass, 0, "__classpath__",
					  &r->id_classpath);
		if (!path && !r->bad) {
			if (r->id_tmp_classpath)
				path = class_ivar(r, klass, r->id_tmp_classpath,
						  NULL, NULL);
			else
				path = class_ivar(r, klass, 0,
						  "__tmp_classpath__",
						  &r->id_tmp_classpath);
		}
	}
	return path && rstring(r, path, buf, cap) && buf[0] &&
	       strncmp(buf, "#<", 2) != 0;
}

/* The object a singleton class is attached to. */
static uint64_t
attached_object(struct ruby_reader *r, uint64_t klass)
{
	const struct ruby_layout *L = r->L;

	if (L->attached == RUBY_LAYOUT_ATTACHED_EXT)
		return rd64(r, classext(r, klass) + L->classext_attached);
	return class_ivar(r, klass, L->id_attached, NULL, NULL);
}

/* The class of heap object obj as Ruby's rb_obj_class() finds it: its
 * klass, past its singleton class and the iclasses of the modules it was
 * extended with (one per module); 0 when unreadable or not a class. */
static uint64_t
real_class(struct ruby_reader *r, uint64_t obj)
{
	const struct ruby_layout *L = r->L;
	uint64_t k = rd64(r, obj + L->rbasic_klass);

	for (int i = 0; i < MAX_SUPER_CHAIN && !r->bad; i++) {
		uint64_t flags;

		if (special(L, k))
			return 0;
		flags = rd64(r, k + L->rbasic_flags);
		if (r->bad)
			return 0;
		if ((flags & L->t_mask) == L->t_class &&
		    !(flags & L->fl_singleton))
			return k;
		if ((flags & L->t_mask) != L->t_class &&
		    (flags & L->t_mask) != L->t_iclass)
			return 0;
		k = rd64(r, k + L->rclass_super);
	}
	return 0;
}

/*
 * What Ruby's rb_class_path() prints for a class or module, which is
 * what stackprof puts before a method name: its name; for an anonymous
 * class "#<Class:0x...>"; for an anonymous module "#<C:0x...>", C being
 * "Module" when the module's class is Module and otherwise what its klass
 * prints ("Refinement" for a refinement on 3.1+, a Module subclass's
 * name, or "#<Class:0x...>" for a singleton class). The address is the
 * object's own, as %p prints it. False when a read fails; the klass of a
 * module is a class, so the recursion is one level deep.
 */
static bool
class_text(struct ruby_reader *r, uint64_t klass, char *buf, size_t cap,
	   int depth)
{
	const struct ruby_layout *L = r->L;
	char of[256];
	uint64_t real, meta;
	int t = type_of(r, klass);

	if (r->bad || depth > 1 ||
	    (t != (int)L->t_class && t != (int)L->t_module))
		return false;
	if (class_path(r, klass, buf, cap))
		return true;
	if (r->bad)
		return false;
	if (t == (int)L->t_module) {
		real = real_class(r, klass);
		if (!real || r->bad)
			return false;
		if (!class_path(r, real, of, sizeof(of)) ||
		    strcmp(of, "Module") != 0) {
			meta = rd64(r, klass + L->rbasic_klass);
			if (!class_text(r, meta, of, sizeof(of), depth + 1))
				return false;
		}
	} else {
		snprintf(of, sizeof(of), "Class");
	}
	snprintf(buf, cap, "#<%s:0x%016" PRIx64 ">", of, klass);
	return true;
}

/* "Owner#name", or "Owner.name" for a singleton method, Owner as
 * stackprof prints it (class_text); a singleton method of an object that
 * is no class or module is "#<C:0xOBJ>.name", C the object's class and
 * OBJ its address (rb_profile_frame_classpath). False when a read
 * failed: a name made short of it ("run" for Puma::Cluster#run, read
 * from the stop's cache alone or torn, servers.sh) is no name Ruby
 * knows, so the frame is unreadable and its sample dropped, counted. */
static bool
qualified_name(struct ruby_reader *r, uint64_t owner, const char *name,
	       char *out, size_t cap)
{
	const struct ruby_layout *L = r->L;
	char path[512];
	uint64_t flags;
	int t = type_of(r, owner);

	if (r->bad)
		return false;
	if (t != (int)L->t_class && t != (int)L->t_module) {
		snprintf(out, cap, "%s", name);
		return true;
	}
	flags = rd64(r, owner + L->rbasic_flags);
	if ((flags & L->fl_singleton) && t == (int)L->t_class) {
		uint64_t obj = attached_object(r, owner);
		int ot = type_of(r, obj);

		if (ot == (int)L->t_class || ot == (int)L->t_module) {
			if (class_text(r, obj, path, sizeof(path), 0)) {
				snprintf(out, cap, "%s.%s", path, name);
				return true;
			}
		} else if (ot >= 0 && class_text(r, real_class(r, obj), path,
						 sizeof(path), 0)) {
			snprintf(out, cap, "#<%s:0x%016" PRIx64 ">.%s", path,
				 obj, name);
			return true;
		}
		snprintf(out, cap, "#<Class:0x%016" PRIx64 ">.%s", owner,
			 name);
		return !r->bad;
	}
	if (class_text(r, owner, path, sizeof(path), 0))
		snprintf(out, cap, "%s#%s", path, name);
	else
		snprintf(out, cap, "#<%s:0x%016" PRIx64 ">#%s",
			 t == (int)L->t_module ? "Module" : "Class", owner,
			 name);
	return !r->bad;
}

/* ---- frames ---------------------------------------------------------- */

/* A method entry from an ep slot: directly, or through an svar. */
static uint64_t
check_method_entry(struct ruby_reader *r, uint64_t v)
{
	for (int i = 0; i < 2; i++) {
		int t = imemo_type_kept(r, v);

		if (t == (int)r->L->imemo_ment)
			return v;
		if (t != (int)r->L->imemo_svar)
			return 0;
		v = rd64(r, v + r->L->svar_cref_or_me);
	}
	return 0;
}

/* rb_vm_frame_method_entry(): the first method entry up the ep chain. */
static uint64_t
frame_method_entry(struct ruby_reader *r, uint64_t ep)
{
	const struct ruby_layout *L = r->L;

	for (int i = 0; i < MAX_EP_CHAIN && ep && !r->bad; i++) {
		uint64_t flags = rd64(r, ep + 8 * L->env_index_flags);
		uint64_t me = check_method_entry(
			r, rd64(r, ep + 8 * (int64_t)L->env_index_me_cref));

		if (me || (flags & L->env_flag_local))
			return me;
		ep = rd64(r, ep + 8 * (int64_t)L->env_index_specval) & ~3ull;
	}
	return 0;
}

/*
 * Whether method entry me runs iseq, as far as can be told: a frame read
 * while the VM pushes or pops one can pair the new iseq with the method
 * entry slot of the frame that was there before (a Fixture.done? labelled
 * with Thread.pass's owner). A C function's entry never runs an iseq, and
 * a plain iseq method says which one it runs; other kinds (bmethod,
 * alias...) are taken as they are.
 */
static bool
me_runs_iseq(struct ruby_reader *r, uint64_t me, uint64_t iseq)
{
	const struct ruby_layout *L = r->L;
	uint64_t def, type;

	uint64_t ptr;

	/* What cannot be read (a snapshot that did not record it) proves
	 * nothing either way, and must not spoil the reads that follow. */
	if (L->def_iseq_iseqptr == RUBY_LAYOUT_NONE)
		return true;
	def = rd64(r, me + L->me_def);
	if (r->bad || !def)
		goto unknown;
	type = bits(r, def, L->def_type_bit, L->def_type_width);
	if (r->bad)
		goto unknown;
	/* Kinds that run no iseq of their own cannot own an iseq frame. */
	if (type == L->method_type_cfunc || type == L->method_type_attrset ||
	    type == L->method_type_ivar || type == L->method_type_optimized ||
	    type == L->method_type_missing || type == L->method_type_undef)
		return false;
	if (type != L->method_type_iseq)
		return true;
	ptr = rd64(r, def + L->def_iseq_iseqptr);
	if (r->bad)
		goto unknown;
	return ptr == iseq;
unknown:
	r->bad = false;
	return true;
}

static const char *
keep(struct ruby_reader *r, const char *s)
{
	return intern_get(r->strings, intern_str(r->strings, s));
}

/*
 * The pc YJIT leaves in a frame it pushed: none. JIT code writes a
 * frame's pc only before a call that may look at it (a raise, an
 * allocation, a method call out of JIT code), so a method JIT code
 * entered and that has called nothing since has pc 0 (3.1.2, --yjit: a
 * warmed-up loop of opt_plus and opt_lt read 0 in every sample). Any
 * value below an iseq's encoded instructions reads as no line, and
 * iseq_frame() falls back to the method's first line.
 */
#define JIT_NO_PC 1

/* A frame with an iseq and no pc is YJIT's when its magic says a method
 * or a block ran it: the interpreter sets the pc of every frame of
 * those kinds as it pushes it. Frames of other kinds (ifunc, dummy, C)
 * keep the old reading. */
static bool
jit_pushed(struct ruby_reader *r, uint64_t iseq, uint64_t ep)
{
	const struct ruby_layout *L = r->L;
	uint64_t magic;

	if (L->cfp_jit_return == RUBY_LAYOUT_NONE || special(L, iseq) || !ep)
		return false;
	magic = rd64(r, ep + 8 * L->env_index_flags) & L->frame_magic_mask;
	if (r->bad) {
		r->bad = false;
		return false;
	}
	return magic == L->frame_magic_method ||
	       magic == L->frame_magic_block;
}

/* The last " in " of a label, or NULL. */
static char *
last_in(char *label)
{
	char *in = NULL;

	for (char *p = strstr(label, " in "); p; p = strstr(p + 1, " in "))
		in = p;
	return in;
}

/* Fills f for an iseq frame. 0, or -1 when the frame is unreadable. */
static int
iseq_frame(struct ruby_reader *r, uint64_t iseq, uint64_t pc, uint64_t ep,
	   struct ruby_frame *f)
{
	const struct ruby_layout *L = r->L;
	char label[MAX_STRING], path[MAX_STRING], name[MAX_STRING];
	uint64_t body, pathobj, lineno, local, real;
	uint32_t type;

	if (imemo_type(r, iseq) != (int)L->imemo_iseq)
		return -1;
	body = rd64(r, iseq + L->iseq_body);
	if (r->bad || !body)
		return -1;
	if (!rstring(r, rd64(r, body + L->body_label), label, sizeof(label)))
		return -1;
	pathobj = rd64(r, body + L->body_pathobj);
	/* [path, realpath] when they differ: the realpath is absolute. */
	real = type_of(r, pathobj) == (int)L->t_array
		       ? rarray_at(r, pathobj, 1)
		       : pathobj;
	if (!rstring(r, real, path, sizeof(path)) &&
	    !rstring(r, rarray_at(r, pathobj, 0), path, sizeof(path)))
		return -1;
	r->bad = false;
	type = rd32(r, body + L->body_type);
	lineno = rd64(r, body + L->body_first_lineno);
	f->first_line = (int)(L->first_lineno_fixnum ? lineno >> 1 : lineno);
	/* <main> and <top (required)> record first line 0; their code starts
	 * at line 1. */
	if (f->first_line < 1)
		f->first_line = 1;
	f->line = ruby_line_of(r->mem, L, body, pc);
	if (f->line < 0)
		f->line = f->first_line;
	f->cfunc = false;
	f->cfunc_addr = 0;

	/* Qualify the method part of the label with its owner: "m" of a
	 * method iseq, the "m" of "block (2 levels) in m" when the block's
	 * local iseq is a method. */
	local = rd64(r, body + L->body_local_iseq);
	if (type == L->iseq_type_method ||
	    (local && local != iseq &&
	     rd32(r, rd64(r, local + L->iseq_body) + L->body_type) ==
		     L->iseq_type_method)) {
		uint64_t me = frame_method_entry(r, ep);
		uint64_t owner;

		/* No method entry, or one of another iseq: the frame is
		 * being pushed or popped (its environment is not written
		 * yet, or no longer); the read is torn. */
		if (r->bad || !me ||
		    !me_runs_iseq(r, me, type == L->iseq_type_method
						 ? iseq : local)) {
			r->bad = false;
			return -1;
		}
		owner = me ? rd64(r, me + L->me_owner) : 0;
		/* The method follows the last " in ": "rescue in block in
		 * m" is a rescue clause in a block of m (a def's name has
		 * no space). */
		char *in = type == L->iseq_type_method ? NULL
						       : last_in(label);
		const char *method = in ? in + 4 : label;

		if (r->bad ||
		    (owner && !qualified_name(r, owner, method, name,
					      sizeof(name)))) {
			r->bad = false;
			r->stats.names_unread++;
			return -1;
		}
		if (owner) {
			if (in)
				snprintf(in + 4, sizeof(label) - (in + 4 - label),
					 "%s", name);
			else
				snprintf(label, sizeof(label), "%s", name);
		}
	}
	r->bad = false;
	f->label = keep(r, label);
	f->path = keep(r, path);
	return 0;
}

/* The entry of the C function a method definition runs: body.cfunc.func,
 * through aliases; 0 when it is no C function or unreadable. */
static uint64_t
cfunc_addr(struct ruby_reader *r, uint64_t def)
{
	const struct ruby_layout *L = r->L;

	for (int i = 0; i < 4 && def && !r->bad; i++) {
		uint64_t type = bits(r, def, L->def_type_bit, L->def_type_width);

		if (r->bad)
			return 0;
		if (type == L->method_type_cfunc) {
			uint64_t fn = rd64(r, def + L->def_cfunc_func);

			return r->bad ? 0 : fn;
		}
		if (type != L->method_type_alias)
			return 0;
		def = rd64(r, def + L->def_alias_original_me);
		def = def ? rd64(r, def + L->me_def) : 0;
	}
	return 0;
}

/* Fills f for a C function frame (path and line come from the caller). */
static int
cfunc_frame(struct ruby_reader *r, uint64_t ep, struct ruby_frame *f)
{
	const struct ruby_layout *L = r->L;
	char label[MAX_STRING];
	uint64_t me = check_method_entry(
		r, rd64(r, ep + 8 * (int64_t)L->env_index_me_cref));
	uint64_t def, id, owner;
	const char *name;

	if (!me || r->bad)
		return -1;
	def = rd64(r, me + L->me_def);
	owner = rd64(r, me + L->me_owner);
	id = def ? rd64(r, def + L->def_original_id) : 0;
	if (!id)
		id = rd64(r, me + L->me_called_id);
	if (r->bad)
		return -1;
	name = id_name(r, id);
	if (!name)
		name = "(unknown C function)";
	if (!qualified_name(r, owner, name, label, sizeof(label))) {
		r->bad = false;
		r->stats.names_unread++;
		return -1;
	}
	f->cfunc_addr = cfunc_addr(r, def);
	r->bad = false;
	f->label = keep(r, label);
	f->path = NULL;
	f->line = 0;
	f->first_line = 0;
	f->cfunc = true;
	return 0;
}

static struct frame_slot *
frame_slot(struct ruby_reader *r, uint64_t k1, uint64_t k2)
{
	uint64_t h = (k1 * 0x9e3779b97f4a7c15ull) ^ (k2 * 0xc2b2ae3d27d4eb4full);

#ifdef RBFLAME_NO_FRAME_CACHE	/* bench/run's uncached build: all miss */
	r->frames[(h >> 32) & (FRAME_CACHE - 1)].kind = 0;
#endif
	return &r->frames[(h >> 32) & (FRAME_CACHE - 1)];
}

static struct iseq_memo *
iseq_memo(struct ruby_reader *r, uint64_t iseq)
{
	return &r->memo[((iseq >> 3) * 0x9e3779b97f4a7c15ull) >> 56 &
			(ISEQ_MEMO - 1)];
}

/* The flags, body, bytecode and label of iseq, read once per read of
 * all stacks (struct iseq_memo). 0, or -1 when unreadable. */
static int
iseq_header(struct ruby_reader *r, uint64_t iseq, uint64_t *flags,
	    uint64_t *body, uint64_t *encoded, uint64_t *label)
{
	const struct ruby_layout *L = r->L;
	struct iseq_memo *m = iseq_memo(r, iseq);

	if (m->gen != r->read_gen || m->iseq != iseq) {
		uint64_t b;

		r->bad = false;
		m->flags = rd64(r, iseq + L->rbasic_flags);
		b = m->body = rd64(r, iseq + L->iseq_body);
		m->encoded = b ? rd64(r, b + L->body_iseq_encoded) : 0;
		m->label = b ? rd64(r, b + L->body_label) : 0;
		if (r->bad) {
			m->gen = 0;
			return -1;
		}
		m->iseq = iseq;
		m->gen = r->read_gen;
	}
	*flags = m->flags;
	*body = m->body;
	*encoded = m->encoded;
	*label = m->label;
	return 0;
}

/* A slot the GC's count vouches for in this read (struct frame_slot). */
static bool
slot_current(const struct ruby_reader *r, const struct frame_slot *sl,
	     uint8_t kind, uint64_t key1, uint64_t key2)
{
	return stamp_holds(r, sl->epoch, sl->major) && sl->kind == kind &&
	       sl->key1 == key1 && sl->key2 == key2 && sl->confirmed;
}

/* A slot checked, or filled, in this read: stamped when the read may;
 * flags are its object's (the iseq, the method entry), as this read
 * found them. */
static void
slot_checked(const struct ruby_reader *r, struct frame_slot *sl,
	     uint64_t flags)
{
	if (sl->confirmed && (sl->kind == 1 ? r->quiet : r->quiet_me)) {
		sl->epoch = r->epoch;
		sl->major = major_stamp(r, flags);
	}
}

/* Two resolutions of a frame alike (labels and paths are interned:
 * their pointers compare). */
static bool
same_frame(const struct ruby_frame *a, const struct ruby_frame *b)
{
	return a->label == b->label && a->path == b->path &&
	       a->line == b->line && a->first_line == b->first_line &&
	       a->cfunc == b->cfunc && a->cfunc_addr == b->cfunc_addr;
}

/*
 * A frame from the cache, or resolved and kept there. A frame resolved
 * in a read without a stop may be torn (the target wrote what it read
 * meanwhile); kept as it is, every later read would find it in the
 * cache, and two reads compared for consistency would agree on it. So
 * it is kept unconfirmed and resolved again when another read uses it:
 * trusted once two reads' resolutions agree, or a read with a stop made
 * it.
 */
static int
iseq_frame_cached(struct ruby_reader *r, uint64_t iseq, uint64_t pc,
		  uint64_t ep, struct ruby_frame *f)
{
	const struct ruby_layout *L = r->L;
	struct frame_slot *sl = frame_slot(r, iseq, pc);
	uint64_t body, flags, encoded, label, me;

	if (slot_current(r, sl, 1, iseq, pc)) {
		me = frame_method_entry(r, ep);
		if (!r->bad && me == sl->me_raw) {
			r->stats.frames_by_epoch++;
			r->stats.frames_by_major += sl->epoch != r->epoch;
			*f = sl->f;
			return 0;
		}
		r->bad = false;
	}
	if (iseq_header(r, iseq, &flags, &body, &encoded, &label) < 0 ||
	    imemo_of(L, flags) != (int)L->imemo_iseq || !body)
		return -1;
	/* The method entry decides the class in the label ("block in
	 * A#m"): two methods with the same code, freed and allocated again
	 * at the same addresses (GC.compact, redefinition), differ only
	 * there. The eps are in the values read with the stack. */
	me = frame_method_entry(r, ep);
	r->bad = false;
	if (sl->kind == 1 && sl->key1 == iseq && sl->key2 == pc &&
	    sl->body == body && sl->encoded == encoded && sl->label == label &&
	    sl->me_raw == me) {
		/* Resolved in a read without a stop: resolved again (in
		 * another read: this one's would find the same bytes)
		 * before it is trusted. */
		if (sl->confirmed || sl->gen == r->read_gen) {
			slot_checked(r, sl, flags);
			*f = sl->f;
			return 0;
		}
		if (iseq_frame(r, iseq, pc, ep, f) < 0)
			return -1;
		r->bad = false;
		if (same_frame(f, &sl->f)) {
			sl->confirmed = true;
			return 0;
		}
	} else if (iseq_frame(r, iseq, pc, ep, f) < 0) {
		return -1;
	}
	r->bad = false;
	sl->epoch = 0;		/* not what it was checked as */
	/* A read from the cache alone that was refused a line (its class
	 * path, its line table) may have resolved the frame short of it:
	 * never kept. That read is done again, stopped. */
	if (mem_refused(r->mem))
		return 0;
	sl->confirmed = !r->unstopped;
	sl->gen = r->read_gen;
	sl->kind = 1;
	sl->key1 = iseq;
	sl->key2 = pc;
	sl->body = body;
	sl->encoded = encoded;
	sl->label = label;
	sl->me_raw = me;
	sl->f = *f;
	slot_checked(r, sl, flags);
	return 0;
}

static int
cfunc_frame_cached(struct ruby_reader *r, uint64_t ep, struct ruby_frame *f)
{
	const struct ruby_layout *L = r->L;
	uint64_t me = rd64(r, ep + 8 * (int64_t)L->env_index_me_cref);
	struct frame_slot *sl;
	uint64_t def, owner, flags;

	if (r->bad || special(L, me))
		return cfunc_frame(r, ep, f);
	sl = frame_slot(r, 0, me);
	if (slot_current(r, sl, 2, 0, me)) {
		r->stats.frames_by_epoch++;
		r->stats.frames_by_major += sl->epoch != r->epoch;
		*f = sl->f;
		return 0;
	}
	def = rd64(r, me + L->me_def);
	owner = rd64(r, me + L->me_owner);
	flags = rd64(r, me + L->rbasic_flags);
	if (r->bad)
		flags = 0;	/* not old: not vouched for by the major count */
	if (!r->bad && sl->kind == 2 && sl->key2 == me && sl->def == def &&
	    sl->owner == owner && imemo_of(L, flags) == (int)L->imemo_ment) {
		if (sl->confirmed || sl->gen == r->read_gen) {
			slot_checked(r, sl, flags);
			*f = sl->f;
			return 0;
		}
		r->bad = false;
		if (cfunc_frame(r, ep, f) < 0)
			return -1;
		if (same_frame(f, &sl->f)) {
			sl->confirmed = true;
			return 0;
		}
	} else {
		r->bad = false;
		if (cfunc_frame(r, ep, f) < 0)
			return -1;
	}
	sl->epoch = 0;		/* as iseq_frame_cached() */
	if (mem_refused(r->mem))
		return 0;	/* as iseq_frame_cached() */
	sl->confirmed = !r->unstopped;
	sl->gen = r->read_gen;
	sl->kind = 2;
	sl->key1 = 0;
	sl->key2 = me;
	sl->def = def;
	sl->owner = owner;
	sl->f = *f;
	slot_checked(r, sl, flags);
	return 0;
}

/* Fetches what the frame loop will read, a few system calls for the
 * whole stack instead of a few per frame: the iseq objects, then their
 * bodies, and the method entries of C frames (their eps are in the
 * values read with the stack). */
static void
prefetch_frames(struct ruby_reader *r, uint64_t n)
{
	const struct ruby_layout *L = r->L;
	uint64_t sz = L->sizeof_control_frame;
	uint64_t addrs[RUBY_MAX_FRAMES];
	size_t k = 0, j = 0;

	addrs[0] = 0;

	for (uint64_t i = 0; i < n && k < RUBY_MAX_FRAMES; i++) {
		const uint64_t *f = r->cfps + i * sz / 8;
		uint64_t iseq = f[L->cfp_iseq / 8], pc = f[L->cfp_pc / 8];
		uint64_t ep = f[L->cfp_ep / 8];

		if (iseq && pc && !special(L, iseq)) {
			struct iseq_memo *m = iseq_memo(r, iseq);

			/* Checked already in this read, or vouched for by
			 * the GC's count: nothing to fetch. */
			if ((m->gen == r->read_gen && m->iseq == iseq) ||
			    slot_current(r, frame_slot(r, iseq, pc), 1, iseq,
					 pc))
				continue;
			/* Recursion: the same iseq as the frame before. */
			if (k && addrs[k - 1] == iseq)
				continue;
			addrs[k++] = iseq;
		} else if (ep) {
			uint64_t me = rd64(r, ep + 8 * (int64_t)L->env_index_me_cref);

			if (!slot_current(r, frame_slot(r, 0, me), 2, 0, me))
				addrs[k++] = me;
		}
	}
	r->bad = false;
	mem_prefetch(r->mem, addrs, k);
	/* Second round: the bodies of the iseqs (now in the cache). */
	for (size_t i = 0; i < k; i++) {
		uint64_t body;

		if (special(L, addrs[i]))
			continue;
		body = rd64(r, addrs[i] + L->iseq_body);
		if (!r->bad && body && !(body & 7))
			addrs[j++] = body;
		r->bad = false;
	}
	mem_prefetch(r->mem, addrs, j);
}

/* ---- locals (dump --locals) ------------------------------------------ */

#define MAX_LOCAL_TABLE 65536	/* more locals than any frame has */

/* Appends len bytes of target text to out (at *pos, capacity cap) as
 * printable ASCII: every other byte, and a quote or backslash, escaped;
 * stops short rather than cut an escape. */
static void
put_escaped(char *out, size_t cap, size_t *pos, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[8];
		int k;

		if (c == '"' || c == '\\')
			k = snprintf(e, sizeof(e), "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			k = snprintf(e, sizeof(e), "\\x%02x", c);
		else
			k = snprintf(e, sizeof(e), "%c", c);
		if (*pos + (size_t)k >= cap)
			return;
		memcpy(out + *pos, e, (size_t)k);
		*pos += (size_t)k;
	}
	out[*pos] = '\0';
}

static void
put_text(char *out, size_t cap, size_t *pos, const char *s)
{
	size_t k = strlen(s);

	if (*pos + k >= cap)
		k = cap - 1 - *pos;
	memcpy(out + *pos, s, k);
	*pos += k;
	out[*pos] = '\0';
}

/* A String's length and the address of its bytes; -1 when no String. */
static int
string_at(struct ruby_reader *r, uint64_t v, uint64_t *len, uint64_t *ptr)
{
	const struct ruby_layout *L = r->L;
	uint64_t flags;

	if (type_of(r, v) != (int)L->t_string)
		return -1;
	flags = rd64(r, v + L->rbasic_flags);
	if (flags & L->rstring_noembed) {
		*len = rd64(r, v + L->rstring_len);
		*ptr = rd64(r, v + L->rstring_heap_ptr);
	} else {
		*len = L->string == RUBY_LAYOUT_STRING_LEN_IN_FLAGS
			       ? (flags & L->rstring_embed_len_mask) >>
					 L->rstring_embed_len_shift
			       : rd64(r, v + L->rstring_len);
		*ptr = v + L->rstring_embed_ary;
	}
	return r->bad ? -1 : 0;
}

/* "text" (N bytes): the first RUBY_LOCAL_STRING bytes, whatever length
 * the target's String claims. */
static int
render_string(struct ruby_reader *r, uint64_t v, char *out, size_t cap,
	      size_t *pos)
{
	char bytes[RUBY_LOCAL_STRING];
	uint64_t len, ptr, n;
	char tail[48];

	if (string_at(r, v, &len, &ptr) < 0)
		return -1;
	n = len < sizeof(bytes) ? len : sizeof(bytes);
	if (n && mem_read(r->mem, ptr, bytes, n) < 0)
		return -1;
	put_text(out, cap, pos, "\"");
	put_escaped(out, cap, pos, bytes, n);
	snprintf(tail, sizeof(tail), "%s\" (%" PRIu64 " bytes)",
		 n < len ? "..." : "", len);
	put_text(out, cap, pos, tail);
	return 0;
}

static double
flonum_value(uint64_t v)
{
	uint64_t b63 = v >> 63, t;
	double d;

	if (v == 0x8000000000000002ull)
		return 0.0;
	/* rb_float_flonum_value(): undo the rotation, restore bits 62..63 */
	t = (2 - b63) | (v & ~3ull);
	t = (t >> 3) | (t << 61);
	memcpy(&d, &t, sizeof(d));
	return d;
}

static void
render_double(double d, char *out, size_t cap)
{
	/* The shortest of %.15g and %.17g that reads back the same. */
	snprintf(out, cap, "%.15g", d);
	if (strtod(out, NULL) != d)
		snprintf(out, cap, "%.17g", d);
	if (!strpbrk(out, ".eni"))	/* 1.0 prints as 1.0, as Ruby does */
		snprintf(out + strlen(out), cap - strlen(out), ".0");
}

static uint64_t
hash_size(struct ruby_reader *r, uint64_t v, uint64_t flags)
{
	const struct ruby_layout *L = r->L;
	uint64_t st;

	if (!(flags & L->rhash_st_flag))
		return (flags & L->rhash_ar_size_mask) >> L->rhash_ar_size_shift;
	st = L->rhash_st != RUBY_LAYOUT_NONE ? rd64(r, v + L->rhash_st)
					     : v + L->sizeof_rhash;
	return st ? rd64(r, st + L->st_num_entries) : 0;
}

/* The value v rendered into out (see struct ruby_local); "?" when it
 * cannot be read. Never spoils r->bad. */
static void
render_value(struct ruby_reader *r, uint64_t v, char *out, size_t cap)
{
	const struct ruby_layout *L = r->L;
	bool saved = r->bad;
	char name[256];
	uint64_t flags, t;
	size_t pos = 0;
	const char *s;

	out[0] = '\0';
	r->bad = false;
	if (v == L->qnil) {
		snprintf(out, cap, "nil");
	} else if (v == L->qtrue) {
		snprintf(out, cap, "true");
	} else if (v == L->qfalse) {
		snprintf(out, cap, "false");
	} else if (v & L->fixnum_flag) {
		snprintf(out, cap, "%" PRId64, (int64_t)v >> 1);
	} else if (L->flonum_mask != RUBY_LAYOUT_NOVAL &&
		   (v & L->flonum_mask) == L->flonum_flag) {
		render_double(flonum_value(v), out, cap);
	} else if ((v & ((1ull << L->special_shift) - 1)) == L->symbol_flag) {
		s = id_name(r, v >> L->special_shift);
		put_text(out, cap, &pos, ":");
		if (s)
			put_escaped(out, cap, &pos, s, strlen(s));
		else
			put_text(out, cap, &pos, "?");
	} else if (special(L, v)) {
		snprintf(out, cap, "?");	/* undef, or no VALUE at all */
	} else {
		flags = rd64(r, v + L->rbasic_flags);
		t = flags & L->t_mask;
		if (r->bad) {
			snprintf(out, cap, "?");
		} else if (t == L->t_string) {
			if (render_string(r, v, out, cap, &pos) < 0)
				snprintf(out, cap, "?");
		} else if (t == L->t_array) {
			uint64_t len = flags & L->rarray_embed_flag
					       ? (flags & L->rarray_embed_len_mask) >>
							 L->rarray_embed_len_shift
					       : rd64(r, v + L->rarray_heap_len);

			snprintf(out, cap, r->bad ? "?" : "#<Array size=%" PRIu64 ">",
				 len);
		} else if (t == L->t_hash && L->rhash_st_flag != RUBY_LAYOUT_NOVAL &&
			   L->sizeof_rhash != RUBY_LAYOUT_NONE) {
			uint64_t n = hash_size(r, v, flags);

			snprintf(out, cap, r->bad ? "?" : "#<Hash size=%" PRIu64 ">",
				 n);
		} else if (t == L->t_float && L->rfloat_value != RUBY_LAYOUT_NONE) {
			uint64_t bitsv = rd64(r, v + L->rfloat_value);
			double d;

			memcpy(&d, &bitsv, sizeof(d));
			if (r->bad)
				snprintf(out, cap, "?");
			else
				render_double(d, out, cap);
		} else if (t == L->t_bignum) {
			snprintf(out, cap, "#<Integer>");
		} else if (t == L->t_symbol && L->rsymbol_fstr != RUBY_LAYOUT_NONE) {
			uint64_t len, ptr, n;

			if (string_at(r, rd64(r, v + L->rsymbol_fstr), &len,
				      &ptr) < 0)
				goto unknown;
			n = len < sizeof(name) ? len : sizeof(name);
			if (mem_read(r->mem, ptr, name, n) < 0)
				goto unknown;
			put_text(out, cap, &pos, ":");
			put_escaped(out, cap, &pos, name, n);
		} else if (class_text(r, real_class(r, v), name,
				      sizeof(name), 0)) {
			put_text(out, cap, &pos, "#<");
			put_escaped(out, cap, &pos, name, strlen(name));
			put_text(out, cap, &pos, ">");
		} else {
			goto unknown;
		}
	}
	r->bad = saved;
	return;
unknown:
	snprintf(out, cap, "?");
	r->bad = saved;
}

/* A frame's self: a class or module by its name, others as values. */
static void
render_self(struct ruby_reader *r, uint64_t self, char *out, size_t cap)
{
	char name[256];
	int t = type_of(r, self);
	bool saved = r->bad;
	size_t pos = 0;

	r->bad = false;
	if ((t == (int)r->L->t_class || t == (int)r->L->t_module) &&
	    class_text(r, self, name, sizeof(name), 0)) {
		out[0] = '\0';
		put_escaped(out, cap, &pos, name, strlen(name));
	} else {
		render_value(r, self, out, cap);
	}
	r->bad = saved;
}

static const struct ruby_locals locals_over = { .self = "?", .total = -2 };

/*
 * The locals of the Ruby frame running iseq with environment ep: names
 * from the iseq's local table, values from the environment below ep, the
 * last local at ep[me_cref - 1] (what getlocal reads). Kept until the
 * next read; NULL only when locals are off.
 */
static const struct ruby_locals *
frame_locals(struct ruby_reader *r, uint64_t iseq, uint64_t ep, uint64_t self,
	     bool stale)
{
	const struct ruby_layout *L = r->L;
	uint64_t ids[RUBY_MAX_LOCALS];
	struct ruby_locals *lo;
	uint64_t body, table, size;
	bool saved = r->bad;
	bool names;

	if (!r->locals_on)
		return NULL;
	if (r->nlocals >= RUBY_MAX_LOCALS_FRAMES)
		return &locals_over;
	lo = xcalloc(1, sizeof(*lo));
	r->locals[r->nlocals++] = lo;
	render_self(r, self, lo->self, sizeof(lo->self));
	lo->stale = stale;
	lo->total = -1;
	r->bad = false;
	if (L->body_local_table == RUBY_LAYOUT_NONE ||
	    L->body_local_table_size == RUBY_LAYOUT_NONE)
		goto out;
	body = rd64(r, iseq + L->iseq_body);
	if (r->bad || !body)
		goto out;
	size = rd32(r, body + L->body_local_table_size);
	table = rd64(r, body + L->body_local_table);
	if (r->bad || size > MAX_LOCAL_TABLE || (size && !table) || !ep)
		goto out;
	lo->total = (int)size;
	lo->n = size < RUBY_MAX_LOCALS ? (int)size : RUBY_MAX_LOCALS;
	names = lo->n == 0 ||
		mem_read(r->mem, table, ids, lo->n * sizeof(*ids)) == 0;
	for (int i = 0; i < lo->n; i++) {
		int64_t slot = L->env_index_me_cref - 1 -
			       (int64_t)(size - 1 - (uint64_t)i);
		const char *name = names ? id_name(r, ids[i]) : NULL;
		uint64_t v;

		lo->v[i].name = keep(r, name ? name : "?");
		r->bad = false;
		v = rd64(r, ep + 8 * slot);
		if (r->bad)
			snprintf(lo->v[i].value, sizeof(lo->v[i].value), "?");
		else
			render_value(r, v, lo->v[i].value,
				     sizeof(lo->v[i].value));
	}
out:
	r->bad = saved;
	return lo;
}

static void
free_locals(struct ruby_reader *r)
{
	for (size_t i = 0; i < r->nlocals; i++)
		free(r->locals[i]);
	r->nlocals = 0;
}

void
ruby_reader_set_locals(struct ruby_reader *r, bool on)
{
	r->locals_on = on;
	if (on && !r->locals)
		r->locals = xcalloc(RUBY_MAX_LOCALS_FRAMES, sizeof(*r->locals));
}

void
ruby_reader_set_cut_torn(struct ruby_reader *r, bool on)
{
	r->cut_torn = on;
}

void
ruby_reader_set_unstopped(struct ruby_reader *r, bool on)
{
	r->unstopped = on;
}

void
ruby_reader_set_same(struct ruby_reader *r, ruby_same_stack_fn fn, void *ctx)
{
	r->same = fn;
	r->same_ctx = ctx;
}

void
ruby_reader_set_fresh(struct ruby_reader *r, const uint64_t *threads,
		      size_t n)
{
	r->nfresh = n < RUBY_FRESH_MAX ? n : RUBY_FRESH_MAX;
	memcpy(r->fresh, threads, r->nfresh * sizeof(*threads));
}

/* st's frames from the unchanged stack the hook gives: true when copied.
 * Never with locals (they are read anew each time and freed), and only
 * from a stack whose labels are in the current sets. */
static bool
copy_same(struct ruby_reader *r, struct ruby_stack *st)
{
	const struct ruby_stack *was;

	if (!r->same || r->locals_on)
		return false;
	was = r->same(r->same_ctx, st);
	if (!was || was->thread != st->thread || was->nframes < 0 ||
	    was->nframes > RUBY_MAX_FRAMES ||
	    was->sets != r->stats.string_sets)
		return false;
	st->cfp = was->cfp;
	st->nframes = was->nframes;
	memcpy(st->frames, was->frames,
	       (size_t)was->nframes * sizeof(st->frames[0]));
	st->reused = true;
	return true;
}

const char *
ruby_reader_torn(struct ruby_reader *r)
{
	return keep(r, "[torn]");
}

const char *
ruby_state_name(enum ruby_state s)
{
	switch (s) {
	case RUBY_STATE_RUNNING:
		return "running";
	case RUBY_STATE_GC_MARKING:
		return "gc_marking";
	case RUBY_STATE_GC_SWEEPING:
		return "gc_sweeping";
	case RUBY_STATE_GC:
		return "gc";
	case RUBY_STATE_WAITING_GVL:
		return "waiting_gvl";
	case RUBY_STATE_NO_GVL:
		return "no_gvl";
	}
	return "?";
}

/* A word at addr if the cache holds it (mem_peek_cached()). */
static bool
peek64(struct ruby_reader *r, uint64_t addr, uint64_t *v)
{
	return mem_peek_cached(r->mem, addr, v, sizeof(*v)) == 0;
}

/*
 * Ahead of a read, the control frames of the threads it will read
 * (ruby_reader_set_fresh()) in one fetch for all of them, then the
 * values under their frames in a second: what read_frames() reads, two
 * calls a thread whose stack moved past the lines the round's fetch
 * brought (a server's thread that woke into a request: under
 * bench/server's loaded Puma, read_frames() read 2 of a worker tick's
 * 5-6 lines on demand). Planned from what the cache holds, bounded
 * as read_frames() bounds its reads. The pointers it follows to get
 * there (the thread's ec, the ec's stack and cfp) are fetched first,
 * a level at a time for all the threads, where the cache lacks them:
 * a thread that woke into a request was idle last round, its lines
 * left out of the round's fetch, and each of its reads was a call of
 * its own (bench/server's Puma: some 5 such threads a worker tick, 3-4
 * one-line calls each). A pointer still not there (the level's fetch
 * faulted) leaves its thread to be read as before.
 */
static size_t due_wants(struct ruby_reader *r, int level, uint64_t *want,
			size_t cap);

static void
prefetch_fresh_pointers(struct ruby_reader *r)
{
	const struct ruby_layout *L = r->L;
	uint64_t want[6 * RUBY_FRESH_MAX];
	size_t nw = 0;

	for (size_t i = 0; i < r->nfresh; i++) {
		uint64_t th = r->fresh[i], ec;

		if (!peek64(r, th + L->thread_ec, &ec)) {
			want[nw++] = th + L->thread_ec;
			want[nw++] = th + L->thread_name;
		}
	}
	nw += due_wants(r, 1, want + nw, sizeof(want) / sizeof(*want) - nw);
	mem_prefetch(r->mem, want, nw);
	nw = 0;
	for (size_t i = 0; i < r->nfresh; i++) {
		uint64_t ec, v;

		if (!peek64(r, r->fresh[i] + L->thread_ec, &ec) || !ec ||
		    special(L, ec))
			continue;
		if (!peek64(r, ec + L->ec_vm_stack, &v))
			want[nw++] = ec + L->ec_vm_stack;
		if (!peek64(r, ec + L->ec_vm_stack_size, &v))
			want[nw++] = ec + L->ec_vm_stack_size;
		if (!peek64(r, ec + L->ec_cfp, &v))
			want[nw++] = ec + L->ec_cfp;
	}
	/* The due threads' after the fresh ones' (at most 3 each, 3 x
	 * RUBY_FRESH_MAX in all), in what room is left. */
	nw += due_wants(r, 2, want + nw, sizeof(want) / sizeof(*want) - nw);
	mem_prefetch(r->mem, want, nw);
}

static void
prefetch_fresh(struct ruby_reader *r)
{
	const struct ruby_layout *L = r->L;
	uint64_t sz = L->sizeof_control_frame, base[RUBY_FRESH_MAX];
	uint64_t due[2 * RUBY_FRESH_MAX];
	/* Zeroed: GCC 12 takes a const pointer argument for a read. */
	struct mem_range cf[3 * RUBY_FRESH_MAX] = { 0 };
	struct mem_range vs[RUBY_FRESH_MAX] = { 0 };
	size_t ncf = 0, nvs = 0, ndue = 0;

	if (r->layout_ok && sz)
		prefetch_fresh_pointers(r);
	for (size_t i = 0; i < r->nfresh && r->layout_ok && sz; i++) {
		uint64_t ec, stack, size, cfp, end, n;

		if (!peek64(r, r->fresh[i] + L->thread_ec, &ec) || !ec ||
		    !peek64(r, ec + L->ec_vm_stack, &stack) ||
		    !peek64(r, ec + L->ec_vm_stack_size, &size) ||
		    !peek64(r, ec + L->ec_cfp, &cfp))
			continue;
		end = stack + size * 8;
		if (!stack || !cfp || size > (64u << 20) || cfp < stack ||
		    cfp > end || (end - cfp) % 8)
			continue;
		n = (end - cfp) / sz;
		if (n < 2)
			continue;
		if (n - 1 > RUBY_MAX_FRAMES - 1)
			n = RUBY_MAX_FRAMES;
		cf[ncf] = (struct mem_range){ .addr = cfp, .len = (n - 1) * sz };
		base[ncf++] = stack;
	}
	r->nfresh = 0;
	/* The refreshes' last level (their tids) in the same call. */
	if (r->layout_ok && sz)
		ndue = due_wants(r, 3, due, sizeof(due) / sizeof(*due));
	for (size_t i = 0; i < ndue; i++)
		cf[ncf + i] = (struct mem_range){ .addr = due[i], .len = 4 };
	mem_prefetch_ranges(r->mem, cf, ncf + ndue);
	for (size_t i = 0; i < ncf; i++) {
		uint64_t sp, stack = base[i], cfp = cf[i].addr, len;

		if (!peek64(r, cfp + L->cfp_sp, &sp) || sp <= stack ||
		    sp > cfp || sp - stack > VS_MAX)
			continue;
		len = sp - stack + 8 * 4;
		if (len > cfp - stack)
			len = cfp - stack;
		vs[nvs++] = (struct mem_range){ .addr = stack, .len = len };
	}
	mem_prefetch_ranges(r->mem, vs, nvs);
}

/* Reads the frames of execution context ec into st. */
static int
read_frames(struct ruby_reader *r, uint64_t ec, struct ruby_stack *st)
{
	const struct ruby_layout *L = r->L;
	uint64_t stack, size, cfp, end, n, sz = L->sizeof_control_frame;
	uint64_t words;
	const char *path = NULL;
	int line = 0, first = 0;
	bool truncated, cut;

	r->bad = false;
	stack = rd64(r, ec + L->ec_vm_stack);
	size = rd64(r, ec + L->ec_vm_stack_size);
	cfp = rd64(r, ec + L->ec_cfp);
	st->nframes = 0;
	st->cfp = cfp;
	if (r->bad || size > (64u << 20) || !r->layout_ok)
		return -1;
	/* A thread not started yet has no VM stack, or only the dummy
	 * frame: an empty stack, not an unreadable one. */
	if (!stack || !cfp)
		return 0;
	end = stack + size * 8;
	if (cfp < stack || cfp > end || (end - cfp) % 8)
		return -1;
	n = (end - cfp) / sz;
	/* The bottom frame is the VM's dummy: skip exactly one. */
	if (n == 0)
		return 0;
	n--;
	/* Deeper than we keep: the frames nearest the leaf, under a marker
	 * root, so a flamegraph does not show a false root. */
	truncated = n > RUBY_MAX_FRAMES - 1;
	if (truncated)
		n = RUBY_MAX_FRAMES - 1;
	words = n * sz / 8;
	r->cfps = xgrowarray(r->cfps, &r->cfps_cap, words ? words : 1,
			     sizeof(*r->cfps));
	/* The whole control-frame array in one read. */
	if (n && mem_read(r->mem, cfp, r->cfps, n * sz) < 0)
		return -1;
	/* And the values below the innermost frame's sp (the frames' eps
	 * point there): one more read instead of one per frame. */
	r->vs_len = 0;
	if (n) {
		uint64_t sp = r->cfps[L->cfp_sp / 8];

		if (sp > stack && sp <= cfp && sp - stack <= VS_MAX) {
			uint64_t len = sp - stack + 8 * 4;

			if (len > cfp - stack)
				len = cfp - stack;
			r->vs = xgrowarray(r->vs, &r->vs_cap, len / 8 + 1,
					   sizeof(*r->vs));
			if (mem_read(r->mem, stack, r->vs, len) == 0) {
				r->vs_base = stack;
				r->vs_len = len & ~7ull;
			}
		}
	}

	prefetch_frames(r, n);
	st->nframes = 0;
	cut = false;
	r->bad_leaf_or_cut = false;
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t *f = r->cfps + i * sz / 8;
		uint64_t pc = f[L->cfp_pc / 8], iseq = f[L->cfp_iseq / 8];
		uint64_t ep = f[L->cfp_ep / 8];
		struct ruby_frame *out = &st->frames[st->nframes];
		uint64_t magic;

		r->bad = false;
		if (iseq && !pc && jit_pushed(r, iseq, ep))
			pc = JIT_NO_PC;
		if (iseq && pc) {
			/* A Ruby frame that cannot be read, or is torn (being
			 * pushed or popped: its method entry runs another
			 * iseq), spoils the stack: left out, the stack would
			 * be one the program never had (A#run;A#hand with
			 * the A#a6 between them missing). */
			if (iseq_frame_cached(r, iseq, pc, ep, out) < 0) {
				/* The leaf alone may be in transit (a call
				 * pushing it, a return popping it): the stack
				 * without it is its caller's, a moment before
				 * or after. Dropping the sample instead loses
				 * the most samples where calls are densest. */
				if (i == 0) {
					r->stats.leaf_transit++;
					r->bad_leaf_or_cut = true;
					continue;
				}
				r->stats.bad_frames++;
				if (!r->cut_torn)
					return -1;
				/* Read without a stop: the frame was popped
				 * since the control frames were read, and so
				 * was every frame above it. What is under it
				 * is the stack's settled part. */
				st->nframes = 0;
				cut = true;
				r->bad_leaf_or_cut = true;
				continue;
			}
			out->locals = frame_locals(
				r, iseq, ep, f[L->cfp_self / 8],
				st->gvl || (L->cfp_jit_return !=
						    RUBY_LAYOUT_NONE &&
					    f[L->cfp_jit_return / 8]));
			st->nframes++;
			continue;
		}
		/* No iseq and pc: a C function frame, or a frame of no
		 * interest (ifunc, dummy). */
		magic = rd64(r, ep + 8 * L->env_index_flags) &
			L->frame_magic_mask;
		if (r->bad) {
			r->stats.bad_frames++;
			continue;
		}
		if (magic == L->frame_magic_cfunc) {
			if (cfunc_frame_cached(r, ep, out) == 0) {
				out->locals = NULL;
				st->nframes++;
			} else {
				r->stats.bad_frames++;
			}
		}
	}
	r->vs_len = 0;	/* valid for this stack only */
	/* C frames carry the path and line of their caller: walk from the
	 * root (the end) towards the leaf. */
	for (int i = st->nframes - 1; i >= 0; i--) {
		struct ruby_frame *f = &st->frames[i];

		if (f->cfunc) {
			f->path = path ? path : keep(r, "(unknown)");
			f->line = line;
			f->first_line = first;
		} else {
			path = f->path;
			line = f->line;
			first = f->first_line;
		}
	}
	/* Nothing but a leaf in transit, or under a popped frame: no stack
	 * to keep (an empty one reads as a thread not started). */
	if (!st->nframes && n > 0 && r->bad_leaf_or_cut)
		return -1;
	if (cut) {
		memmove(&st->frames[1], &st->frames[0],
			(size_t)st->nframes * sizeof(st->frames[0]));
		st->frames[0] = (struct ruby_frame){
			.label = ruby_reader_torn(r),
		};
		st->nframes++;
	}
	if (truncated) {
		struct ruby_frame *f = &st->frames[st->nframes++];

		f->label = keep(r, "[truncated]");
		f->path = NULL;
		f->line = f->first_line = 0;
		f->cfunc = false;
		f->cfunc_addr = 0;
		f->locals = NULL;
	}
	return 0;
}

/* ---- threads --------------------------------------------------------- */

/* The pthread_t of thread th (the address of glibc's struct pthread),
 * 0 when there is none yet. */
static uint64_t
thread_pthread(struct ruby_reader *r, uint64_t th)
{
	const struct ruby_layout *L = r->L;
	uint64_t nt;

	if (L->tid == RUBY_LAYOUT_TID_NATIVE_THREAD) {
		if (L->nt_thread_id == RUBY_LAYOUT_NONE)
			return 0;
		nt = rd64(r, th + L->thread_nt);
		return nt ? rd64(r, nt + L->nt_thread_id) : 0;
	}
	if (L->thread_thread_id == RUBY_LAYOUT_NONE)
		return 0;
	return rd64(r, th + L->thread_thread_id);
}

/*
 * The tid of thread th as its process sees it; 0 when unknown, -1 when
 * the process has no such thread. glibc's struct pthread has it from the
 * kernel, which writes it when the thread starts and, in a forked child,
 * for the thread that forked (CLONE_CHILD_SETTID); glibc zeroes it for
 * the threads a fork left behind, and the kernel when a thread exits.
 * Ruby's own copy is written once at thread start: 3.0 to 3.2 keep the
 * parent's in a forked child (fixed in 3.3). That copy is used only when
 * glibc's cannot be read (no offset, a snapshot that did not record it).
 */
static pid_t
ns_tid(struct ruby_reader *r, uint64_t th)
{
	const struct ruby_layout *L = r->L;
	bool saved = r->bad;
	uint64_t pt, nt;
	int32_t tid = 0;

	if (r->vm.pthread_tid_off) {
		pt = thread_pthread(r, th);
		if (!r->bad && pt && !(pt & 7)) {
			tid = (int32_t)rd32(r, pt + r->vm.pthread_tid_off);
			if (!r->bad)
				return tid > 0 ? tid : -1;
		}
		r->bad = saved;
	}
	switch (L->tid) {
	case RUBY_LAYOUT_TID_THREAD:
		tid = (int32_t)rd32(r, th + L->thread_tid);
		break;
	case RUBY_LAYOUT_TID_NATIVE_THREAD:
		nt = rd64(r, th + L->thread_nt);
		tid = nt ? (int32_t)rd32(r, nt + L->nt_tid) : 0;
		break;
	default:
		break;	/* 2.7: glibc's is the only one */
	}
	return tid > 0 ? tid : 0;
}

/* The tid of thread th as rbflame sees it (ptrace, /proc); 0 when
 * unknown, -1 when the process has no such thread (see ns_tid(); or an
 * id its PID namespace does not have: the parent's, in a child read
 * before it first ran). */
static pid_t
thread_tid(struct ruby_reader *r, uint64_t th)
{
	pid_t tid = ns_tid(r, th), host;

	if (tid <= 0 || !r->tids)
		return tid;
	host = proc_tidmap_host(r->tids, tid);
	return host ? host : -1;
}

struct thread_list {
	uint64_t head;		/* list head address */
	uint64_t running_ec;	/* the GVL holder's ec, 0 if none holds it */
	uint64_t main_thread;
	uint64_t cnt;		/* the VM's count of its threads + 1; 0 when
				 * the layout has none */
};

/* A thread as the last walk of the list found it. */
struct walk_entry {
	uint64_t thread;	/* rb_thread_t * */
	uint64_t ec;
	uint64_t next;		/* its list node's next */
	uint64_t name_v;	/* its name's VALUE, and the name read there */
	char name[sizeof(((struct ruby_stack *)0)->name)];
	bool name_ok;		/* ... when that read did not fail */
	pid_t tid;
	uint32_t reused;	/* walks in a row that took its tid from here */
};

/* A thread's tid and name are read again from its own memory after this
 * many walks took them from the last (an idle thread: all of it): what
 * others write in its struct (Thread#name=, a waker's status) is that
 * much behind at most. */
#define WALK_REUSE_MAX 32

/*
 * The walks an entry has been taken from, for the one built at place n
 * of this walk: one more when it was taken again (known); 0 when it was
 * due and read again from the thread's memory (walked); else a first
 * read, whose count starts at n modulo half the bound, so that the
 * threads of a list read whole come due over 16 walks, after 17 to 32.
 * Counting from 0 alike, every thread came due in the same walk: on
 * tests/ruby/idle.sh's 28 threads, 27 tids and names read again in one
 * read, 3 to 4 dependent one-line reads each, in one hold. Not from n
 * modulo the whole bound: the last threads would come due a walk or
 * two after a read that took them whole (idle.sh, whose list changes
 * every 10 walks or so: 479 refreshes in 4 s, against 136 from 0 and
 * 42-46 so).
 */
static uint32_t
walk_count(const struct walk_entry *w, int n, bool known, bool walked)
{
	if (known)
		return w->reused + 1;
	if (walked)
		return 0;
	return (uint32_t)n % (WALK_REUSE_MAX / 2);
}

/* running_ec keeps the last thread that ran Ruby after it released the
 * GVL; the GVL's owner field is cleared on release: trust it when the
 * layout has it. */
static uint64_t
holder_ec(struct ruby_reader *r, uint64_t owner_field, uint64_t running_ec)
{
	uint64_t owner;

	bool saved = r->bad;
	uint64_t ec;

	if (owner_field == RUBY_LAYOUT_NONE)
		return running_ec;
	owner = rd64(r, owner_field);
	ec = owner ? rd64(r, owner + r->L->thread_ec) : 0;
	if (r->bad) {
		/* Unreadable (a snapshot that did not record it): the last
		 * thread to run is the best answer left. */
		r->bad = saved;
		return running_ec;
	}
	return ec;
}

/* The thread list's count at obj + off, + 1; 0 when the layout has
 * none or it cannot be read (a snapshot that did not record it): only
 * the reuse of the last walk needs it. */
static uint64_t
list_count(struct ruby_reader *r, uint64_t obj, uint16_t off)
{
	bool saved = r->bad;
	uint32_t cnt;

	if (off == RUBY_LAYOUT_NONE)
		return 0;
	cnt = rd32(r, obj + off);
	if (r->bad) {
		r->bad = saved;
		return 0;
	}
	return (uint64_t)cnt + 1;
}

/* Whether a thread's tid (and its name) may be taken from its entry of
 * the last walk: not after WALK_REUSE_MAX walks in a row, nor under M:N,
 * where a Ruby thread's tid is that of the native thread running it at
 * the moment. */
static bool
walk_knows(const struct ruby_reader *r, const struct walk_entry *w)
{
	return w->tid > 0 && w->reused < WALK_REUSE_MAX && !r->vm.mn_threads;
}

/*
 * The lines the walk's refreshes will read (the threads whose tid and
 * name come due: walk_knows() false), level by level for
 * prefetch_fresh(), which fetches them with the fresh threads' pointers
 * and frames: level 1 the thread's ec, status, list node, name VALUE
 * and native-thread pointer, 2 the name's String and the native
 * thread's pthread_t, 3 the tid (glibc's, or Ruby's). At most 8 a
 * thread, as many threads as fit in cap. Each a dependent one-line call of its
 * own before (3-4 a thread; under bench/server's loaded Puma the tid and
 * name reads were 15% of rbflame's process_vm_readv calls). Followed
 * through the cache alone; how many addresses went into want.
 */
static size_t
due_wants(struct ruby_reader *r, int level, uint64_t *want, size_t cap)
{
	const struct ruby_layout *L = r->L;
	size_t n = 0;

	if (r->vm.mn_threads || !r->walk)
		return 0;
	for (int i = 0; i < r->nwalk && n + 8 <= cap; i++) {
		const struct walk_entry *w = &r->walk[i];
		uint64_t th = w->thread, nt = 0, pt = 0, v;
		bool native = L->tid == RUBY_LAYOUT_TID_NATIVE_THREAD;

		if (w->tid <= 0 || w->reused < WALK_REUSE_MAX || !th)
			continue;
		if (level == 1) {
			/* What the walk reads of it besides: its ec, status
			 * and list node. */
			want[n++] = th + L->thread_ec;
			want[n++] = th + L->thread_status_bit / 8;
			want[n++] = th + L->thread_lt_node + L->list_node_next;
			want[n++] = th + L->thread_name;
			if (native)
				want[n++] = th + L->thread_nt;
			else if (L->thread_thread_id != RUBY_LAYOUT_NONE)
				want[n++] = th + L->thread_thread_id;
			if (L->tid == RUBY_LAYOUT_TID_THREAD)
				want[n++] = th + L->thread_tid;
			continue;
		}
		if (native && !peek64(r, th + L->thread_nt, &nt))
			nt = 0;
		if (level == 2) {
			if (peek64(r, th + L->thread_name, &v) && v &&
			    !special(L, v)) {
				want[n++] = v;
				want[n++] = v + L->rstring_embed_ary;
			}
			if (nt && !(nt & 7) &&
			    L->nt_thread_id != RUBY_LAYOUT_NONE)
				want[n++] = nt + L->nt_thread_id;
			continue;
		}
		if (native && nt && !(nt & 7) &&
		    L->nt_thread_id != RUBY_LAYOUT_NONE)
			peek64(r, nt + L->nt_thread_id, &pt);
		else if (!native && L->thread_thread_id != RUBY_LAYOUT_NONE)
			peek64(r, th + L->thread_thread_id, &pt);
		if (r->vm.pthread_tid_off && pt && !(pt & 7))
			want[n++] = pt + r->vm.pthread_tid_off;
		if (native && nt && !(nt & 7))
			want[n++] = nt + L->nt_tid;
	}
	return n;
}

/* The tid of thread th, from the last walk of the list when it may be
 * taken from there, else read. */
static pid_t
walk_tid(struct ruby_reader *r, uint64_t th)
{
	for (int i = 0; i < r->nwalk; i++)
		if (r->walk[i].thread == th && walk_knows(r, &r->walk[i]))
			return r->walk[i].tid;
	return thread_tid(r, th);
}

static int
thread_list(struct ruby_reader *r, struct thread_list *tl)
{
	const struct ruby_layout *L = r->L;
	uint64_t vm = r->vm.vm;

	r->bad = false;
	if (L->threads == RUBY_LAYOUT_THREADS_RACTOR) {
		uint64_t ractor = rd64(r, vm + L->vm_main_ractor);

		if (r->bad || !ractor)
			return -1;
		r->main_ractor = ractor;
		tl->head = ractor + L->ractor_threads_set;
		tl->running_ec = holder_ec(
			r,
			L->ractor_gvl_owner == RUBY_LAYOUT_NONE
				? RUBY_LAYOUT_NONE
				: ractor + L->ractor_gvl_owner,
			rd64(r, ractor + L->ractor_running_ec));
		tl->main_thread = rd64(r, ractor + L->ractor_main_thread);
		tl->cnt = list_count(r, ractor, L->ractor_threads_cnt);
	} else {
		uint64_t running = rd64(r, vm + L->vm_running_thread);

		tl->head = vm + L->vm_living_threads;
		tl->running_ec = holder_ec(
			r,
			L->vm_gvl_owner == RUBY_LAYOUT_NONE
				? RUBY_LAYOUT_NONE
				: vm + L->vm_gvl_owner,
			running ? rd64(r, running + L->thread_ec) : 0);
		tl->main_thread = rd64(r, vm + L->vm_main_thread);
		tl->cnt = list_count(r, vm, L->vm_living_thread_num);
	}
	return r->bad ? -1 : 0;
}

struct ruby_reader *
ruby_reader_create(const struct ruby_vm *vm, struct mem *mem, pid_t pid)
{
	struct ruby_reader *r = xcalloc(1, sizeof(*r));
	const struct ruby_layout *L = vm->layout;
	char why[160];

	r->vm = *vm;
	r->L = L;
	/* Checked where it was chosen; checked again here, since a reader
	 * given a layout that reads past a frame would do so every tick. */
	r->layout_ok = L && ruby_layout_check(L, why, sizeof(why)) == 0;
	if (L && !r->layout_ok)
		debug_msg("layout %s refused: %s", L->version ? L->version : "?",
			  why);
	r->mem = mem;
	if (pid > 0)
		r->tids = proc_tidmap_create(pid);
	r->strings = intern_create();
	r->frames = xcalloc(FRAME_CACHE, sizeof(*r->frames));
	r->checks.gc = L->vm_objspace == RUBY_LAYOUT_NONE ||
				       L->objspace_during_gc_bit ==
					       RUBY_LAYOUT_NONE
			       ? RUBY_CHECK_ABSENT
			       : RUBY_CHECK_PENDING;
	r->checks.status = L->thread_status_bit == RUBY_LAYOUT_NONE
				   ? RUBY_CHECK_ABSENT
				   : RUBY_CHECK_PENDING;
	return r;
}

const struct ruby_checks *
ruby_reader_checks(const struct ruby_reader *r)
{
	return &r->checks;
}

const char *
ruby_check_name(enum ruby_check c)
{
	switch (c) {
	case RUBY_CHECK_ABSENT:
		return "absent";
	case RUBY_CHECK_PENDING:
		return "pending";
	case RUBY_CHECK_PASSED:
		return "passed";
	case RUBY_CHECK_DROPPED:
		return "dropped";
	}
	return "?";
}

/* Which layout the reader reads with, for the warnings below. */
static const char *
layout_name(const struct ruby_reader *r)
{
	return r->L == r->vm.dwarf ? "DWARF" : r->L->version;
}

static void
drop_gc(struct ruby_reader *r, const char *why)
{
	r->checks.gc = RUBY_CHECK_DROPPED;
	snprintf(r->checks.gc_why, sizeof(r->checks.gc_why), "%s", why);
	error_msg("warning: Ruby %s: the GC state read with the %s layout is implausible (%s): samples will not show (garbage collection)",
		  r->vm.version, layout_name(r), why);
}

static void
drop_status(struct ruby_reader *r, const char *why)
{
	r->checks.status = RUBY_CHECK_DROPPED;
	snprintf(r->checks.status_why, sizeof(r->checks.status_why), "%s",
		 why);
	error_msg("warning: Ruby %s: thread status read with the %s layout is implausible (%s): waiting for the GVL is no longer told apart",
		  r->vm.version, layout_name(r), why);
}

void
ruby_reader_destroy(struct ruby_reader *r)
{
	if (!r)
		return;
	intern_destroy(r->strings);
	intern_destroy(r->old_strings);
	proc_tidmap_destroy(r->tids);
	free(r->cfps);
	free(r->frames);
	free(r->walk);
	free(r->vs);
	free_locals(r);
	free(r->locals);
	free(r);
}

const struct ruby_reader_stats *
ruby_reader_stats(const struct ruby_reader *r)
{
	return &r->stats;
}

/* The GVL's owner field (an rb_thread_t *, 0 while the GVL is free), or
 * 0 when the layout has none or the thread list was never walked (the
 * main ractor not known yet: it is set once, at boot). */
static uint64_t
gvl_owner_field(const struct ruby_reader *r)
{
	const struct ruby_layout *L = r->L;

	if (L->threads == RUBY_LAYOUT_THREADS_RACTOR)
		return L->ractor_gvl_owner != RUBY_LAYOUT_NONE && r->main_ractor
			       ? r->main_ractor + L->ractor_gvl_owner
			       : 0;
	return L->vm_gvl_owner != RUBY_LAYOUT_NONE ? r->vm.vm + L->vm_gvl_owner
						   : 0;
}

/*
 * With an owner field, the owner is the holder's thread: its tid from
 * the last walk, one line read in all. The list's head, its count and
 * the owner's ec (read back to the same thread) are no part of the
 * answer: under bench/server's loaded Puma they were four of the five
 * lines a lookup read, one process_vm_readv each, and a tick looks up
 * the holder once or, while the GVL is in transit, a few times.
 */
int
ruby_gvl_holder(struct ruby_reader *r, pid_t *tid)
{
	struct thread_list tl;
	uint64_t field = gvl_owner_field(r), th;

	*tid = 0;
	r->bad = false;
	if (field) {
		th = rd64(r, field);
	} else {
		if (thread_list(r, &tl) < 0)
			return -1;
		if (!tl.running_ec)
			return 0;
		th = rd64(r, tl.running_ec + r->L->ec_thread_ptr);
	}
	if (r->bad)
		return -1;
	*tid = th ? walk_tid(r, th) : 0;
	if (*tid < 0)
		*tid = 0;
	return r->bad ? -1 : 0;
}

int
ruby_gvl_owned(struct ruby_reader *r)
{
	uint64_t field = gvl_owner_field(r), owner;
	pid_t tid;

	if (!field) {
		/* No owner field (or the list not walked yet): the holder's
		 * lookup, which knows the last thread to run. */
		if (ruby_gvl_holder(r, &tid) < 0)
			return -1;
		return tid != 0;
	}
	r->bad = false;
	owner = rd64(r, field);
	return r->bad ? -1 : owner != 0;
}

static bool
gc_mode_known(const struct ruby_layout *L, uint64_t mode)
{
	return mode == L->gc_mode_none || mode == L->gc_mode_marking ||
	       mode == L->gc_mode_sweeping ||
	       (L->gc_mode_compacting != RUBY_LAYOUT_NOVAL &&
		mode == L->gc_mode_compacting);
}

/*
 * Whether the objspace read at os looks like one: its phase is one of
 * the GC's modes, and its GC count a count. At most every GC_STUCK_SAMPLES
 * holder samples with the GC bit set, the count must have moved: one
 * collection does not last minutes, a constant word read as the bit does.
 * false when it dropped the field.
 */
static bool
gc_plausible(struct ruby_reader *r, uint64_t os, uint64_t mode, bool in_gc,
	     uint64_t *epoch)
{
	const struct ruby_layout *L = r->L;
	uint64_t count = 0;
	char why[160];

	*epoch = 0;
	if (L->objspace_gc_count != RUBY_LAYOUT_NONE) {
		count = rd64(r, os + L->objspace_gc_count);
		if (r->bad)
			return true;	/* unreadable now: no verdict */
		*epoch = count + 1;
	}
	if (!gc_mode_known(L, mode)) {
		snprintf(why, sizeof(why),
			 "objspace %#" PRIx64 ": mode %" PRIu64
			 " is not a GC mode",
			 os, mode);
		drop_gc(r, why);
		return false;
	}
	if (count > GC_COUNT_MAX) {
		snprintf(why, sizeof(why),
			 "objspace %#" PRIx64 ": GC count %" PRIu64
			 " is no count",
			 os, count);
		drop_gc(r, why);
		return false;
	}
	if (r->checks.gc == RUBY_CHECK_PENDING) {
		r->checks.gc = RUBY_CHECK_PASSED;
		snprintf(r->checks.gc_why, sizeof(r->checks.gc_why),
			 "mode %" PRIu64 ", GC count %" PRIu64, mode, count);
		r->gc_count = count;
	}
	if (!in_gc || L->objspace_gc_count == RUBY_LAYOUT_NONE)
		return true;
	if (count != r->gc_count) {
		r->gc_count = count;
		r->gc_stuck = 0;
	} else if (++r->gc_stuck >= GC_STUCK_SAMPLES) {
		snprintf(why, sizeof(why),
			 "in GC for %u samples while the GC count stayed at %" PRIu64,
			 r->gc_stuck, count);
		drop_gc(r, why);
		return false;
	}
	return true;
}

/* The count of major GCs + 1 in the objspace at os, 0 when the layout
 * has none or it is unreadable or no count. */
static uint64_t
major_epoch(struct ruby_reader *r, uint64_t os)
{
	const struct ruby_layout *L = r->L;
	uint64_t major;

	if (L->objspace_major_gc_count == RUBY_LAYOUT_NONE ||
	    L->fl_promoted == RUBY_LAYOUT_NOVAL || !L->fl_promoted)
		return 0;
	major = rd64(r, os + L->objspace_major_gc_count);
	if (r->bad || major > GC_COUNT_MAX) {
		r->bad = false;
		return 0;
	}
	return major + 1;
}

/*
 * Whether a GC that sweeps (up to 3.1) may be moving objects as it
 * goes: its compaction flag, true when the layout has none or it cannot
 * be read. A process that stops allocating stays in the sweep its last
 * GC began (the sweep goes on as it allocates): bench/target.rb, after
 * start-up, at every tick.
 */
static bool
compacting(struct ruby_reader *r, uint64_t os)
{
	const struct ruby_layout *L = r->L;
	uint64_t on;

	if (L->objspace_during_compacting_bit == RUBY_LAYOUT_NONE)
		return true;
	on = bits(r, os, L->objspace_during_compacting_bit, 1);
	if (r->bad) {
		r->bad = false;
		return true;
	}
	return on != 0;
}

/* What the GVL holder is doing as far as the GC goes. */
static enum ruby_state
gc_state(struct ruby_reader *r)
{
	const struct ruby_layout *L = r->L;
	uint64_t os, mode, epoch;
	bool in_gc;

	r->epoch = r->major = 0;
	r->quiet = r->quiet_me = false;
	if (r->checks.gc == RUBY_CHECK_ABSENT ||
	    r->checks.gc == RUBY_CHECK_DROPPED)
		return RUBY_STATE_RUNNING;
	/* A line of the VM's struct a stop fetched for this pointer alone
	 * (a 20-deep stack's 17th). */
	os = r->objspace ? r->objspace : rd64(r, r->vm.vm + L->vm_objspace);
	if (r->bad || !os) {
		r->bad = false;
		return RUBY_STATE_RUNNING;
	}
	in_gc = bits(r, os, L->objspace_during_gc_bit, 1);
	mode = bits(r, os, L->objspace_mode_bit, L->objspace_mode_width);
	if (r->bad) {
		r->bad = false;
		return RUBY_STATE_RUNNING;
	}
	if (!gc_plausible(r, os, mode, in_gc, &epoch)) {
		r->bad = false;
		return RUBY_STATE_RUNNING;
	}
	r->bad = false;
	if (r->checks.gc == RUBY_CHECK_PASSED)
		r->objspace = os;
	/* The frame cache's epoch (struct frame_slot): a stopped read only,
	 * whose count and stacks are of one moment. */
	if (!r->unstopped && r->checks.gc == RUBY_CHECK_PASSED) {
		bool swept = !in_gc && mode == L->gc_mode_sweeping;

		r->epoch = epoch;
		r->major = epoch ? major_epoch(r, os) : 0;
		r->quiet_me = epoch && !in_gc &&
			      (mode == L->gc_mode_none ||
			       (swept && L->gc_mode_compacting !=
						 RUBY_LAYOUT_NOVAL) ||
			       (swept && !compacting(r, os)));
		r->quiet = r->quiet_me || (epoch && swept);
	}
	if (!in_gc)
		return RUBY_STATE_RUNNING;
	if (mode == L->gc_mode_marking)
		return RUBY_STATE_GC_MARKING;
	if (mode == L->gc_mode_sweeping)
		return RUBY_STATE_GC_SWEEPING;
	return RUBY_STATE_GC;
}

/*
 * The GVL holder is runnable by definition: a status field that says
 * otherwise for most of the holder's samples is not the status.
 */
static void
status_plausible(struct ruby_reader *r, int status)
{
	char why[160];

	if (r->checks.status != RUBY_CHECK_PENDING &&
	    r->checks.status != RUBY_CHECK_PASSED)
		return;
	if (r->holder_samples >= UINT32_MAX / 2)
		return;
	r->holder_samples++;
	if ((uint32_t)status != r->L->thread_runnable)
		r->holder_not_runnable++;
	if (r->holder_samples < STATUS_SAMPLES)
		return;
	if (r->holder_not_runnable * 2 > r->holder_samples) {
		snprintf(why, sizeof(why),
			 "the GVL holder was not runnable in %u of %u samples",
			 r->holder_not_runnable, r->holder_samples);
		drop_status(r, why);
		return;
	}
	if (r->checks.status == RUBY_CHECK_PENDING) {
		r->checks.status = RUBY_CHECK_PASSED;
		snprintf(r->checks.status_why, sizeof(r->checks.status_why),
			 "the GVL holder runnable in %u of %u samples",
			 r->holder_samples - r->holder_not_runnable,
			 r->holder_samples);
	}
}

/*
 * Whether th is among the n threads read already. A thread list that
 * loops back on itself short of its head (damaged memory) would otherwise
 * give the same threads again and again up to RUBY_MAX_THREADS, read while
 * the target is stopped, and count each sample many times.
 */
static bool
seen_thread(const struct ruby_stack *out, int n, uint64_t th)
{
	for (int i = 0; i < n; i++)
		if (out[i].thread == th)
			return true;
	return false;
}

/* At STRINGS_MAX strings, a new set: the caches that point into the
 * old one (ID names, resolved frames) start empty. */
static void
rotate_strings(struct ruby_reader *r)
{
	struct intern *next = r->old_strings;

	if (intern_count(r->strings) < STRINGS_MAX)
		return;
	/* The set before last, emptied, is the next: its tables have the
	 * room already (allocating them anew fragmented the heap, 2-3 MB
	 * a set). */
	if (next)
		intern_clear(next);
	else
		next = intern_create();
	r->old_strings = r->strings;
	r->strings = next;
	memset(r->ids, 0, sizeof(r->ids));
	memset(r->frames, 0, FRAME_CACHE * sizeof(*r->frames));
	r->stats.string_sets++;
}

/*
 * The thread the last walk found at this place, taken whole from the
 * hook's copy of its last stack when the hook proves it has not run
 * since (ruby_reader_set_same()): nothing of it is read, neither its
 * struct, its tid, its name nor its stack; the walk goes on from the
 * next node the last walk found in it. A thread's own struct changes
 * when it runs; the list's links when a thread joins or leaves, which
 * changes the list's count (checked by the caller) and makes the
 * joiner run. A server's idle pool cost a round three lines a thread
 * (struct, name, tid), most of what its stop fetched. The GVL and
 * state are the current read's: an idle thread may hold the GVL
 * asleep in a call. True when st is filled.
 */
static bool
walk_reuse(struct ruby_reader *r, const struct walk_entry *w,
	   const struct thread_list *tl, enum ruby_state gc,
	   struct ruby_stack *st, bool *not_idle)
{
	const struct ruby_stack *was;

	memset(st, 0, offsetof(struct ruby_stack, frames));
	st->thread = w->thread;
	st->tid = w->tid;
	*not_idle = false;
	if (!w->tid || w->reused >= WALK_REUSE_MAX)
		return false;
	was = r->same(r->same_ctx, st);
	if (!was) {
		*not_idle = true;
		return false;
	}
	if (was->thread != w->thread || was->tid != w->tid ||
	    was->nframes < 0 || was->nframes > RUBY_MAX_FRAMES ||
	    was->sets != r->stats.string_sets)
		return false;
	memcpy(st, was, offsetof(struct ruby_stack, frames) +
			(size_t)was->nframes * sizeof(st->frames[0]));
	st->gvl = w->ec && w->ec == tl->running_ec;
	if (st->gvl)
		st->state = gc;
	else if (r->checks.status != RUBY_CHECK_DROPPED &&
		 (uint32_t)st->status == r->L->thread_runnable)
		st->state = RUBY_STATE_WAITING_GVL;
	else
		st->state = RUBY_STATE_NO_GVL;
	st->reused = true;
	r->stats.threads_by_walk++;
	return true;
}

int
ruby_read_stacks(struct ruby_reader *r, struct ruby_stack *out, int max)
{
	const struct ruby_layout *L = r->L;
	struct thread_list tl;
	enum ruby_state gc;
	uint64_t node;
	bool by_walk;
	int n = 0;

	free_locals(r);
	rotate_strings(r);
	if (++r->read_gen == 0)
		r->read_gen = 1;	/* 0 marks an empty memo slot */
	if (thread_list(r, &tl) < 0) {
		r->nfresh = 0;
		return -1;
	}
	gc = gc_state(r);
	prefetch_fresh(r);
	node = rd64(r, tl.head + L->list_node_next);
	/* The last walk stands while the list's count does; once a thread
	 * is not where it was, the rest is read. */
	by_walk = r->same && !r->locals_on && tl.cnt && tl.cnt == r->walk_cnt;
	if (!r->walk)
		r->walk = xcalloc(RUBY_MAX_THREADS, sizeof(*r->walk));
	r->walk_cnt = 0;
	for (int guard = 0; node && node != tl.head && n < max &&
			    guard < RUBY_MAX_THREADS;
	     guard++) {
		uint64_t th = node - L->thread_lt_node;
		struct ruby_stack *st = &out[n];
		struct walk_entry *w = &r->walk[n];
		uint64_t ec, name;
		uint64_t refused;
		bool bad, known, walked, kept, name_ok, not_idle = false;

		if (seen_thread(out, n, th))
			break;
		by_walk = by_walk && n < r->nwalk && w->thread == th;
		if (by_walk && walk_reuse(r, w, &tl, gc, st, &not_idle)) {
			w->reused++;
			node = w->next;
			n++;
			continue;
		}
		r->bad = false;
		memset(st, 0, offsetof(struct ruby_stack, frames));
		st->thread = th;
		st->main = th == tl.main_thread;
		/* The lines of this thread's read, for the prefetch of the
		 * round it next runs in (sample_idle_proofs()). */
		mem_hot_tag(r->mem, th);
		ec = rd64(r, th + L->thread_ec);
		/* A thread that ran, where the last walk found it: its tid
		 * as it was (glibc's, a line of its own), refreshed as an
		 * idle thread's is. Under bench/server's Puma a thread's tid
		 * and name were 9.6 of the 51 lines a tick read on demand. */
		walked = by_walk;
		known = walked && walk_knows(r, w);
		if (walked && !known && w->tid > 0 &&
		    w->reused >= WALK_REUSE_MAX)
			r->stats.walk_refreshes++;
		refused = mem_refused(r->mem);
		st->tid = known ? w->tid : thread_tid(r, th);
		st->gone = st->tid < 0;
		if (st->gone)
			st->tid = 0;
		st->status = (int)bits(r, th, L->thread_status_bit,
				       L->thread_status_width);
		/* A name that cannot be read (the target's to corrupt: only
		 * Thread#name reads it) loses the name, not the stack. A
		 * name is a frozen String: the same VALUE, the same name. */
		bad = r->bad;
		name = rd64(r, th + L->thread_name);
		if (known && !r->bad && w->name_ok && name == w->name_v)
			memcpy(st->name, w->name, sizeof(st->name));
		else if (!rstring(r, name, st->name, sizeof(st->name)))
			snprintf(st->name, sizeof(st->name), "%s",
				 th == tl.main_thread ? "main" : "");
		name_ok = !r->bad;
		r->bad = bad;
		st->gvl = ec && ec == tl.running_ec;
		if (st->gvl)
			status_plausible(r, st->status);
		if (st->gvl)
			st->state = gc;
		else if (r->checks.status != RUBY_CHECK_DROPPED &&
			 (uint32_t)st->status == L->thread_runnable)
			st->state = RUBY_STATE_WAITING_GVL;
		else
			st->state = RUBY_STATE_NO_GVL;
		st->sets = r->stats.string_sets;
		st->reused = false;
		/* The hook said no already: not asked twice. */
		if (r->bad || !ec ||
		    ((not_idle || !copy_same(r, st)) &&
		     read_frames(r, ec, st) < 0)) {
			st->nframes = -1;
			r->stats.bad_stacks++;
		}
		mem_hot_tag(r->mem, 0);
		n++;
		r->bad = false;
		node = rd64(r, node + L->list_node_next);
		if (r->bad) {
			r->nwalk = 0;
			return n ? n : -1;
		}
		if (by_walk && w->next != node)
			by_walk = false;	/* the list changed here */
		/* Kept for the next walk: only a thread whose stack this
		 * read got may be taken from it, and only what was read: a
		 * read decoded from the stop's cache alone that was refused
		 * a line (done again, stopped) keeps nothing, as the frame
		 * cache keeps nothing of it (a name left empty so was copied
		 * into the next reads: matrix-mn's 'thread mn1 ""'), nor a
		 * name whose read failed. */
		kept = mem_refused(r->mem) == refused;
		*w = (struct walk_entry){ .thread = th, .ec = ec, .next = node,
					  .name_v = name,
					  .name_ok = kept && name_ok,
					  .tid = kept && st->nframes >= 0 &&
							 !st->gone
							 ? st->tid : 0,
					  .reused = walk_count(w, n, known,
							       walked) };
		memcpy(w->name, st->name, sizeof(w->name));
	}
	r->nwalk = n;
	r->walk_cnt = tl.cnt;
	return n;
}
