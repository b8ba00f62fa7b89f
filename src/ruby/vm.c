// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Finding the Ruby VM in a process: which file is Ruby (libruby, or a
 * static ruby executable), its version (ruby_version), the layout for
 * that version (from the file's DWARF when it has some, else the
 * generated one; the DWARF layout lives here, one at a time), the VM (ruby_current_vm_ptr when exported, otherwise a
 * structural search of the file's data, in slices of a time budget so
 * the caller's event loop runs between them), and the global symbol table
 * (ruby_global_symbols, hidden in Debian's builds: found by its shape).
 * Every candidate is validated by walking what it points to: the target's
 * memory is untrusted.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/elf_sym.h"
#include "rbflame/error.h"
#include "rbflame/mem.h"
#include "rbflame/proc.h"
#include "rbflame/ruby.h"
#include "rbflame/ruby_dwarf.h"
#include "rbflame/symtab.h"
#include "rbflame/tfile.h"
#include "rbflame/xmalloc.h"

#define SCAN_MAX_BYTES (16u << 20)	/* bound on one data region */

enum { SYM_VERSION, SYM_DESCRIPTION, SYM_VM_PTR, SYM_GLOBAL_SYMBOLS, NSYMS };
static const char *const sym_names[NSYMS] = {
	"ruby_version", "ruby_description", "ruby_current_vm_ptr",
	"ruby_global_symbols",
};

static uint64_t
u64(struct mem *m, uint64_t addr, bool *ok)
{
	uint64_t v = 0;

	if (mem_read_u64(m, addr, &v) < 0)
		*ok = false;
	return v;
}

/* A VM candidate is right if its main thread's execution context points
 * back at the thread and its VM stack is sane. */
static bool
vm_valid(struct mem *m, const struct ruby_layout *L, uint64_t vm)
{
	uint64_t th, ec, stack, size, cfp;
	bool ok = true;

	if (!vm || vm & 7)
		return false;
	if (L->threads == RUBY_LAYOUT_THREADS_RACTOR) {
		uint64_t ractor = u64(m, vm + L->vm_main_ractor, &ok);

		if (!ok || !ractor || ractor & 7)
			return false;
		th = u64(m, ractor + L->ractor_main_thread, &ok);
		if (!ok || th != u64(m, vm + L->vm_main_thread, &ok))
			return false;
	} else {
		th = u64(m, vm + L->vm_main_thread, &ok);
	}
	if (!ok || !th || th & 7)
		return false;
	if (L->thread_vm != RUBY_LAYOUT_NONE &&
	    u64(m, th + L->thread_vm, &ok) != vm)
		return false;
	ec = u64(m, th + L->thread_ec, &ok);
	if (!ok || !ec || ec & 7 || u64(m, ec + L->ec_thread_ptr, &ok) != th)
		return false;
	stack = u64(m, ec + L->ec_vm_stack, &ok);
	size = u64(m, ec + L->ec_vm_stack_size, &ok);
	cfp = u64(m, ec + L->ec_cfp, &ok);
	return ok && stack && size > 0 && size < (64u << 20) && cfp >= stack &&
	       cfp < stack + size * 8;
}

/* Reads the String VALUE at v (layout-aware) for the symbol probe. */
static int
small_string(struct mem *m, const struct ruby_layout *L, uint64_t v,
	     char *buf, size_t cap)
{
	uint64_t flags, len, ptr;
	bool ok = true;

	if (!v || (v & L->immediate_mask) || v == L->qnil || v == L->qfalse)
		return -1;
	flags = u64(m, v + L->rbasic_flags, &ok);
	if (!ok || (flags & L->t_mask) != L->t_string)
		return -1;
	if (flags & L->rstring_noembed) {
		len = u64(m, v + L->rstring_len, &ok);
		ptr = u64(m, v + L->rstring_heap_ptr, &ok);
	} else {
		len = L->string == RUBY_LAYOUT_STRING_LEN_IN_FLAGS
			      ? (flags & L->rstring_embed_len_mask) >>
					L->rstring_embed_len_shift
			      : u64(m, v + L->rstring_len, &ok);
		ptr = v + L->rstring_embed_ary;
	}
	if (!ok || len >= cap)
		return -1;
	if (mem_read(m, ptr, buf, len) < 0)
		return -1;
	buf[len] = '\0';
	return 0;
}

static uint64_t
array_at(struct mem *m, const struct ruby_layout *L, uint64_t v, uint64_t i)
{
	uint64_t flags, len, ptr;
	bool ok = true;

	if (!v || (v & L->immediate_mask))
		return 0;
	flags = u64(m, v + L->rbasic_flags, &ok);
	if (!ok || (flags & L->t_mask) != L->t_array)
		return 0;
	if (flags & L->rarray_embed_flag) {
		len = (flags & L->rarray_embed_len_mask) >>
		      L->rarray_embed_len_shift;
		ptr = v + L->rarray_embed_ary;
	} else {
		len = u64(m, v + L->rarray_heap_len, &ok);
		ptr = u64(m, v + L->rarray_heap_ptr, &ok);
	}
	if (!ok || i >= len)
		return 0;
	return u64(m, ptr + 8 * i, &ok);
}

/* rb_symbols_t candidate: ids is an Array of pages and operator IDs are
 * their own names ('+' is ID 43). */
static bool
symbols_valid(struct mem *m, const struct ruby_layout *L, uint64_t a)
{
	uint64_t ids, last, page;
	char name[8];
	bool ok = true;

	last = u64(m, a + L->symbols_last_id, &ok);
	ids = u64(m, a + L->symbols_ids, &ok);
	if (!ok || last < 100 || last > 100000000 || !ids ||
	    (ids & L->immediate_mask))
		return false;
	page = array_at(m, L, ids, '+' / L->id_entry_unit);
	if (!page)
		return false;
	if (small_string(m, L,
			 array_at(m, L, page,
				  ('+' % L->id_entry_unit) * L->id_entry_size +
					  L->id_entry_str),
			 name, sizeof(name)) < 0)
		return false;
	return !strcmp(name, "+");
}

struct region {
	uint64_t start, end;
};

/* The writable data of the Ruby file: its rw mappings and the anonymous
 * mapping right after them (.bss beyond the file's end). */
static size_t
data_regions(const struct maps *mp, const char *path, struct region *out,
	     size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < mp->n && n < max; i++) {
		const struct map *m = &mp->v[i];

		if (!m->path || strcmp(m->path, path) ||
		    !(m->prot & PROT_WRITE))
			continue;
		out[n].start = m->start;
		out[n].end = m->end;
		if (i + 1 < mp->n && !mp->v[i + 1].path &&
		    mp->v[i + 1].start == m->end &&
		    (mp->v[i + 1].prot & PROT_WRITE))
			out[n].end = mp->v[i + 1].end;
		n++;
	}
	return n;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

typedef bool (*candidate_fn)(struct mem *m, const struct ruby_layout *L,
			     uint64_t v);

/* Scans regions for a word (pointer mode) or an address (struct mode)
 * that passes check, from where cur says (region, word) until deadline
 * (ns on the monotonic clock, 0 for none): past it, returns 0 with
 * *more set and cur where to go on; a call past its deadline from the
 * start still looks at 256 words. A full pass leaves cur at 0. */
static uint64_t
scan(struct mem *m, const struct ruby_layout *L, const struct region *rg,
     size_t nrg, bool pointers, candidate_fn check, uint64_t cur[2],
     uint64_t deadline, bool *more)
{
	*more = false;
	for (size_t r = cur[0]; r < nrg; r++, cur[1] = 0) {
		uint64_t len = rg[r].end - rg[r].start;
		uint64_t *words;

		cur[0] = r;
		if (len > SCAN_MAX_BYTES)
			len = SCAN_MAX_BYTES;
		words = xmalloc(len);
		if (mem_read(m, rg[r].start, words, len) < 0) {
			free(words);
			continue;
		}
		for (uint64_t i = cur[1], from = i; i < len / 8; i++) {
			uint64_t cand = pointers ? words[i]
						 : rg[r].start + 8 * i;

			if (deadline && !(i & 255) && i != from &&
			    now_ns() > deadline) {
				cur[1] = i;
				*more = true;
				free(words);
				return 0;
			}
			if (pointers && (cand < 0x10000 || cand & 7))
				continue;
			if (!pointers && (words[i] == 0 ||
					  i + 8 >= len / 8))
				continue;
			mem_flush(m);
			if (check(m, L, cand)) {
				free(words);
				cur[0] = cur[1] = 0;
				return cand;
			}
		}
		free(words);
	}
	cur[0] = cur[1] = 0;
	return 0;
}

/*
 * The deadline of a scan in a call of ruby_vm_find_step() that must end
 * by deadline: never less than a quarter of the budget from now, so that
 * every call moves the scan on. What comes before it (the maps, the ELF
 * symbols of libruby, the VM's check) took 0.7-1.9 ms here; on a host
 * where it takes the whole budget, every call stopped the scan at its
 * first word, the search never ended and a launched program ran to its
 * end unsampled (tests/ruby/launch.sh's script, launched with a budget
 * of 40 us: 0 samples in every run).
 */
static uint64_t
scan_deadline(const struct ruby_vm_search *srch, uint64_t deadline)
{
	uint64_t least;

	if (!deadline)
		return 0;
	least = now_ns() + srch->budget_ns / 4;
	return least > deadline ? least : deadline;
}

static const struct ruby_layout *
layout_for(const char *version, bool *exact)
{
	const char *hide = getenv("RBFLAME_NO_LAYOUT");

	/* For tests: act as if the layouts of these releases did not
	 * exist. */
	return ruby_layout_find_hiding(version, hide, exact);
}

/* The DWARF layout of the last Ruby file looked at, found or not: the VM
 * search runs again and again until Ruby has started (launch mode), and
 * reading DWARF costs a good part of a second. */
static struct {
	bool valid;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char version[32];
	bool found;
	char note[256];
	struct ruby_dwarf_layout dl;
} dwarf_cache;

/* The target's files: its root, as tfile opens it, and its prefix as
 * maps shows paths (proc_path_in_root()). */
struct files {
	struct tfile_root *root;	/* NULL: none can be read */
	char prefix[4096];
};

/*
 * The layout from the DWARF of the Ruby file path (as maps shows it), or
 * NULL with note saying why there is none.
 */
static const struct ruby_layout *
dwarf_layout_for(const struct files *fs, const char *path,
		 const char *version, char *note, size_t cap)
{
	const char *in_root = proc_path_in_root(fs->prefix, path);
	struct elf_dwarf ed;
	char why[200] = "";
	struct ruby_dwarf *d;
	struct stat st;
	int fd, err;

	fd = tfile_open(fs->root, in_root, TFILE_CAP_ELF, &st);
	if (fd < 0) {
		snprintf(note, cap, "cannot read %s: %s", path,
			 strerror(errno));
		return NULL;
	}
	close(fd);
	if (dwarf_cache.valid && dwarf_cache.dev == st.st_dev &&
	    dwarf_cache.ino == st.st_ino && dwarf_cache.size == st.st_size &&
	    dwarf_cache.mtime.tv_sec == st.st_mtim.tv_sec &&
	    dwarf_cache.mtime.tv_nsec == st.st_mtim.tv_nsec &&
	    !strcmp(dwarf_cache.version, version))
		goto out;
	memset(&dwarf_cache, 0, sizeof(dwarf_cache));
	dwarf_cache.valid = true;
	dwarf_cache.dev = st.st_dev;
	dwarf_cache.ino = st.st_ino;
	dwarf_cache.size = st.st_size;
	dwarf_cache.mtime = st.st_mtim;
	snprintf(dwarf_cache.version, sizeof(dwarf_cache.version), "%s",
		 version);
	if (elf_find_dwarf(fs->root, in_root, &ed) < 0) {
		if (errno == ENOLINK)
			snprintf(dwarf_cache.note, sizeof(dwarf_cache.note),
				 "the DWARF of %s needs its dwz file (.gnu_debugaltlink), which was not found",
				 path);
		else
			snprintf(dwarf_cache.note, sizeof(dwarf_cache.note),
				 "%s has no DWARF debug info and no debug file was found",
				 path);
		goto out;
	}
	d = ruby_dwarf_open_fd(ed.fd, ed.alt_fd, ruby_dwarf_cus);
	if (!d) {
		err = errno;
		snprintf(dwarf_cache.note, sizeof(dwarf_cache.note),
			 "cannot read the DWARF of %.200s: %s", ed.path,
			 err == ENOENT ? "no vm.c compilation unit"
				       : strerror(err));
		goto out;
	}
	if (ruby_dwarf_layout(d, version, ed.path, &dwarf_cache.dl, why,
			      sizeof(why)) < 0)
		snprintf(dwarf_cache.note, sizeof(dwarf_cache.note),
			 "the DWARF of %.200s does not describe Ruby's VM: %s",
			 ed.path, why);
	else if (ruby_layout_check(&dwarf_cache.dl.layout, why,
				   sizeof(why)) < 0)
		/* The target's files are untrusted: a layout that would
		 * read outside what it describes is not used. */
		snprintf(dwarf_cache.note, sizeof(dwarf_cache.note),
			 "the DWARF of %.200s was refused: %s", ed.path, why);
	else
		dwarf_cache.found = true;
	ruby_dwarf_close(d);
	debug_msg("DWARF layout of %s: %s", path,
		  dwarf_cache.found ? dwarf_cache.dl.source : dwarf_cache.note);
out:
	snprintf(note, cap, "%s", dwarf_cache.note);
	return dwarf_cache.found ? &dwarf_cache.dl.layout : NULL;
}

/*
 * A release with no layout of its own is read with the nearest one of the
 * same X.Y: say so once. Its GC and status fields are then checked for
 * plausibility by the reader (ruby_checks), the rest by the walk itself.
 */
static void
nearest_warning(const struct ruby_vm *vm)
{
	static bool warned;

	if (!vm->generated || vm->generated_exact || warned)
		return;
	warned = true;
	error_msg("warning: Ruby %s has no built-in layout of its own: reading it with %s's, the nearest release (a field that looks wrong is dropped with a warning; 'rbflame dump -p PID --layout' shows the checks)",
		  vm->version, vm->generated->version);
}

/* Chooses between the DWARF and the generated layout (see ruby.h). */
static const struct ruby_layout *
choose_layout(const struct files *fs, const char *path,
	      const char *force_version, struct ruby_vm *vm)
{
	const char *mode = getenv("RBFLAME_LAYOUT");
	const struct ruby_layout_field *f;
	static bool warned;
	char a[32], b[32];

	vm->generated = layout_for(force_version ? force_version : vm->version,
				   &vm->generated_exact);
	if (force_version || (mode && !strcmp(mode, "generated"))) {
		snprintf(vm->dwarf_note, sizeof(vm->dwarf_note),
			 "DWARF not looked for (%s)",
			 force_version ? "--force-version" :
					 "RBFLAME_LAYOUT=generated");
		if (!force_version)
			nearest_warning(vm);
		return vm->generated;
	}
	vm->dwarf = dwarf_layout_for(fs, path, vm->version, vm->dwarf_note,
				     sizeof(vm->dwarf_note));
	if (mode && !strcmp(mode, "dwarf")) {
		if (!vm->dwarf) {
			char note[sizeof(vm->dwarf_note)];

			snprintf(note, sizeof(note), "%s", vm->dwarf_note);
			snprintf(vm->dwarf_note, sizeof(vm->dwarf_note),
				 "RBFLAME_LAYOUT=dwarf, but %.200s", note);
		}
		return vm->dwarf;
	}
	if (!vm->dwarf) {
		if (vm->dwarf_note[0] && strstr(vm->dwarf_note, "refused") &&
		    !warned) {
			warned = true;
			error_msg("warning: Ruby %s: %s; using rbflame's built-in layout",
				  vm->version, vm->dwarf_note);
		}
		nearest_warning(vm);
		return vm->generated;
	}
	/* Only the layout of the very release can contradict the DWARF, and
	 * then the built-in one wins: the DWARF is the target's file. */
	if (vm->generated && vm->generated_exact &&
	    (f = ruby_layout_diff(vm->dwarf, vm->generated))) {
		ruby_layout_format(vm->dwarf, f, a, sizeof(a));
		ruby_layout_format(vm->generated, f, b, sizeof(b));
		snprintf(vm->dwarf_note, sizeof(vm->dwarf_note),
			 "the DWARF of %.200s was refused: it disagrees with the built-in layout of %.16s at %.40s (DWARF %.32s, built-in %.32s)",
			 path, vm->generated->version, f->name, a, b);
		if (!warned) {
			warned = true;
			error_msg("warning: Ruby %s: %s; using the built-in layout",
				  vm->version, vm->dwarf_note);
		}
		vm->dwarf = NULL;
		return vm->generated;
	}
	return vm->dwarf;
}

void
ruby_vm_unsupported_msg(const struct ruby_vm *vm, pid_t pid, char *buf,
			size_t cap)
{
	char supported[256];

	ruby_layout_list(supported, sizeof(supported));
	snprintf(buf, cap,
		 "process %d runs Ruby %s, which rbflame cannot read: no layout (supported: %s, and any Ruby with DWARF debug info) and %s; install its debug info or use a Ruby built with -g, or try --force-version X.Y",
		 (int)pid, vm->version[0] ? vm->version : "of an unknown version",
		 supported, vm->dwarf_note[0] ? vm->dwarf_note : "no DWARF");
}

/* Which mapped file is Ruby: libruby first, then the executable (a static
 * ruby). Fills the symbol addresses (link-time) and returns the path. */
static const char *
find_ruby_file(const struct files *fs, const struct maps *mp, uint64_t *syms)
{
	const char *tried = NULL;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < mp->n; i++) {
			const char *p = mp->v[i].path;
			const char *base;
			int found;

			if (!p || p[0] != '/' || (tried && !strcmp(p, tried)))
				continue;
			base = strrchr(p, '/') + 1;
			/* Pass 0: libruby; pass 1: the first file (the
			 * executable, mapped first). */
			if (pass == 0 && strncmp(base, "libruby", 7))
				continue;
			if (pass == 1 && i > 0 && mp->v[0].path &&
			    strcmp(p, mp->v[0].path))
				continue;
			tried = p;
			found = elf_lookup_symbols(fs->root,
						   proc_path_in_root(fs->prefix,
								     p),
						   sym_names, syms, NULL,
						   NSYMS);
			if (found > 0 && syms[SYM_VERSION])
				return p;
		}
	}
	return NULL;
}

#define PTHREAD_TID_OFF_DEFAULT 0x2d0	/* glibc 2.28-2.36, x86_64 */

/* Where glibc keeps the kernel tid in struct pthread: its debugger
 * descriptor _thread_db_pthread_tid = { bits, count, offset }, in
 * libpthread (glibc < 2.34, a local symbol) or libc. */
static uint32_t
pthread_tid_offset(const struct files *fs, const struct maps *mp,
		   struct mem *mem, struct symtab *st)
{
	static const char *const name[1] = { "_thread_db_pthread_tid" };

	for (size_t i = 0; i < mp->n; i++) {
		const char *p = mp->v[i].path, *base;
		struct symtab_module mod;
		uint64_t addr = 0;
		uint32_t desc[3];

		if (!p || !(base = strrchr(p, '/')) ||
		    (strncmp(base + 1, "libpthread", 10) &&
		     strncmp(base + 1, "libc.so", 7) &&
		     strncmp(base + 1, "libc-", 5)))
			continue;
		if (elf_lookup_symbols(fs->root,
				       proc_path_in_root(fs->prefix, p), name,
				       &addr, NULL, 1) == 1 &&
		    symtab_module(st, mp->v[i].start, &mod) == 0 && mod.elf &&
		    mem_read(mem, addr + mod.bias, desc, sizeof(desc)) == 0 &&
		    desc[0] == 32 && desc[1] == 1 && desc[2] < 4096)
			return desc[2];
	}
	return PTHREAD_TID_OFF_DEFAULT;
}

/*
 * Whether the process runs Ruby threads M:N (3.3+, RUBY_MN_THREADS=1):
 * Ruby reads the variable once at start, from the environment it was
 * started with, as /proc/PID/environ shows it. Then the threads but the
 * main one take turns on a few shared native threads: a thread's tid is
 * the one it runs on at the moment, none while the scheduler parks it.
 */
static bool
mn_threads(pid_t pid, const struct ruby_layout *L)
{
	char v[16];

	if (!pid || L->tid != RUBY_LAYOUT_TID_NATIVE_THREAD ||
	    proc_environ_get(pid, "RUBY_MN_THREADS", v, sizeof(v)) < 0)
		return false;
	return atoi(v) > 0;
}

/*
 * Whether off is where glibc keeps the tid: the main thread's struct
 * pthread (its pthread_t) must hold the id of one of the process's
 * threads, as the process sees its ids. A libc other than glibc, or a
 * glibc of another layout, has something else there: the reader then
 * keeps to the VM's own tid field.
 */
static bool
pthread_tid_valid(pid_t pid, struct mem *mem, const struct ruby_layout *L,
		  uint64_t vm, uint32_t off)
{
	struct proc_tidmap *map;
	uint64_t th, pt = 0;
	int32_t tid = 0;
	bool ok = true;
	pid_t host;
	char state;

	th = u64(mem, vm + L->vm_main_thread, &ok);
	if (!ok || !th)
		return false;
	if (L->tid == RUBY_LAYOUT_TID_NATIVE_THREAD) {
		uint64_t nt = u64(mem, th + L->thread_nt, &ok);

		if (ok && nt && L->nt_thread_id != RUBY_LAYOUT_NONE)
			pt = u64(mem, nt + L->nt_thread_id, &ok);
	} else if (L->thread_thread_id != RUBY_LAYOUT_NONE) {
		pt = u64(mem, th + L->thread_thread_id, &ok);
	}
	if (!ok || !pt || pt & 7 || mem_read(mem, pt + off, &tid, 4) < 0 ||
	    tid <= 0)
		return false;
	map = proc_tidmap_create(pid);
	host = proc_tidmap_host(map, tid);
	proc_tidmap_destroy(map);
	return host > 0 && proc_thread_state(pid, host, &state) == 0;
}

int
ruby_vm_find(pid_t pid, struct mem *mem, struct symtab *st,
	     const char *force_version, struct ruby_vm *vm)
{
	struct ruby_vm_search all = { .budget_ns = 0 };

	return ruby_vm_find_step(pid, mem, st, force_version, &all, vm);
}

int
ruby_vm_find_step(pid_t pid, struct mem *mem, struct symtab *st,
		  const char *force_version, struct ruby_vm_search *srch,
		  struct ruby_vm *vm)
{
	uint64_t deadline = srch->budget_ns ? now_ns() + srch->budget_ns : 0;
	uint64_t syms[NSYMS] = { 0 };
	bool more = false;
	struct symtab_module mod;
	struct region rg[8];
	struct files fs;
	struct maps mp;
	const char *path;
	size_t nrg;
	int err = 0;

	memset(vm, 0, sizeof(*vm));
	if (proc_maps_read(pid, &mp) < 0)
		return -1;
	fs.root = tfile_root_pid(pid);
	if (proc_root_prefix(pid, fs.prefix, sizeof(fs.prefix)) < 0)
		strcpy(fs.prefix, "/");
	path = find_ruby_file(&fs, &mp, syms);
	if (!path) {
		err = ENOENT;
		goto out;
	}
	/* The bias of the file: any of its mappings tells it. */
	for (size_t i = 0; i < mp.n; i++) {
		if (mp.v[i].path && !strcmp(mp.v[i].path, path) &&
		    symtab_module(st, mp.v[i].start, &mod) == 0 && mod.elf)
			goto have_bias;
	}
	err = EIO;
	goto out;
have_bias:
	if (mem_read_str(mem, syms[SYM_VERSION] + mod.bias, vm->version,
			 sizeof(vm->version)) <= 0) {
		err = EIO;
		goto out;
	}
	if (syms[SYM_DESCRIPTION])
		mem_read_str(mem, syms[SYM_DESCRIPTION] + mod.bias,
			     vm->description, sizeof(vm->description));
	vm->layout = choose_layout(&fs, path, force_version, vm);
	if (!vm->layout) {
		err = ENOTSUP;
		goto out;
	}
	vm->mn_threads = mn_threads(pid, vm->layout);
	nrg = data_regions(&mp, path, rg, 8);

	if (syms[SYM_VM_PTR] && !getenv("RBFLAME_NO_VM_EXPORT")) {
		mem_read_u64(mem, syms[SYM_VM_PTR] + mod.bias, &vm->vm);
		vm->vm_from_export = true;
		if (!vm_valid(mem, vm->layout, vm->vm))
			vm->vm = 0;
	}
	/* A VM found by an earlier call of this search, checked again. */
	if (!vm->vm && srch->vm && vm_valid(mem, vm->layout, srch->vm))
		vm->vm = srch->vm;
	if (!vm->vm) {
		vm->vm_from_export = false;
		srch->vm = 0;
		vm->vm = scan(mem, vm->layout, rg, nrg, true, vm_valid,
			      srch->vm_at, scan_deadline(srch, deadline),
			      &more);
	}
	if (!vm->vm) {
		/* Not started yet (launch mode) or not findable; or out
		 * of time: the next call goes on from there. */
		err = more ? EINPROGRESS : EAGAIN;
		goto out;
	}
	srch->vm = vm->vm;
	if (syms[SYM_GLOBAL_SYMBOLS] &&
	    symbols_valid(mem, vm->layout, syms[SYM_GLOBAL_SYMBOLS] + mod.bias))
		vm->symbols = syms[SYM_GLOBAL_SYMBOLS] + mod.bias;
	else
		vm->symbols = scan(mem, vm->layout, rg, nrg, false,
				   symbols_valid, srch->symbols_at,
				   scan_deadline(srch, deadline),
				   &more);
	if (more) {
		err = EINPROGRESS;
		goto out;
	}
	/* Launched, Ruby sets up its VM before Init_sym fills the symbol
	 * table: a VM found in between, taken, named no method or class
	 * for the whole run (tests/views/checkouts.sh: every label of one
	 * recording in 18 '#<Class:0x...>#(unknown C function)'). */
	if (!vm->symbols && srch->symbols_wait_ns) {
		uint64_t now = now_ns();

		if (!srch->symbols_missed_ns)
			srch->symbols_missed_ns = now;
		if (now - srch->symbols_missed_ns < srch->symbols_wait_ns) {
			err = EAGAIN;
			goto out;
		}
	}
	vm->pthread_tid_off = pthread_tid_offset(&fs, &mp, mem, st);
	if (!pthread_tid_valid(pid, mem, vm->layout, vm->vm,
			       vm->pthread_tid_off)) {
		debug_msg("no thread id at offset %#x of the main thread's struct pthread: using the VM's",
			  vm->pthread_tid_off);
		vm->pthread_tid_off = 0;
	}
	debug_msg("ruby %s in %s: vm %#llx (%s), global symbols %#llx, layout %s",
		  vm->version, path, (unsigned long long)vm->vm,
		  vm->vm_from_export ? "exported" : "found by search",
		  (unsigned long long)vm->symbols,
		  vm->layout == vm->dwarf ? vm->layout->source : "built-in");
out:
	tfile_root_destroy(fs.root);
	maps_free(&mp);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
