// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Address to module and symbol for one target: the target's maps, with
 * per-mapping load bias, and one struct elf_file per distinct (path,
 * inode), opened on first use inside the target's root (tfile.c) and
 * kept across map reloads until symtab_destroy(). The vDSO is read from
 * rbflame's own copy, which the kernel maps identically into every
 * 64-bit process.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/elf_sym.h"
#include "rbflame/perfmap.h"
#include "rbflame/proc.h"
#include "rbflame/symtab.h"
#include "rbflame/tfile.h"
#include "rbflame/xmalloc.h"

#define FILE_BUCKETS 256
/* A miss re-reads the maps at most this often: junk addresses from a
 * failed unwind must not turn every frame into a read of /proc. */
#define AUTO_RELOAD_NS (100ull * 1000 * 1000)
#define VDSO_MAX_BYTES (64u * 4096)

struct sfile {
	struct sfile *next; /* hash chain */
	char *path;	    /* as maps shows it */
	uint64_t inode;
	struct elf_file *elf; /* NULL until tried, or when unreadable */
	bool tried;
};

/* Per mapping, parallel to maps.v. */
struct smap {
	struct sfile *file; /* NULL for anonymous mappings */
	uint64_t bias;
	bool bias_done, bias_ok;
};

struct symtab {
	pid_t pid;
	struct tfile_root *files; /* the target's root; NULL: no files */
	char root_prefix[PATH_MAX];
	char *exe_path; /* readlink of PROC/PID/exe, or NULL */
	struct sfile *exe;
	struct maps maps;
	struct smap *smaps;
	size_t last; /* mapping of the last hit: the fast path */
	uint64_t generation;
	uint64_t last_auto_reload_ns;
	struct sfile *buckets[FILE_BUCKETS];
	struct perfmap *jitmap; /* symtab_name_jit(), or NULL */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t
file_hash(const char *path, uint64_t inode)
{
	uint64_t h = 0xcbf29ce484222325ull ^ inode;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 32) % FILE_BUCKETS;
}

static struct sfile *
file_get(struct symtab *st, const char *path, uint64_t inode)
{
	size_t h = file_hash(path, inode);
	struct sfile *f;

	for (f = st->buckets[h]; f; f = f->next)
		if (f->inode == inode && strcmp(f->path, path) == 0)
			return f;
	f = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	f->inode = inode;
	f->next = st->buckets[h];
	st->buckets[h] = f;
	return f;
}

/*
 * rbflame's own vDSO, when the target's mapping can hold it: the kernel
 * maps the same image into every 64-bit process.
 */
static struct elf_file *
open_vdso(const struct map *m)
{
	const unsigned char *img;
	Elf64_Ehdr eh;
	uint64_t size;

	img = (const unsigned char *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!img || memcmp(img, ELFMAG, SELFMAG) || img[EI_CLASS] != ELFCLASS64)
		return NULL;
	memcpy(&eh, img, sizeof(eh));
	/* The section headers close the image. */
	size = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	if (eh.e_shoff == 0 || size > VDSO_MAX_BYTES ||
	    size > m->end - m->start)
		return NULL;
	return elf_file_open_image(img, size);
}

static struct elf_file *
open_file(struct symtab *st, struct sfile *f, const struct map *m)
{
	struct elf_file *ef;
	const char *path;
	struct stat sb;
	int fd;

	if (strcmp(f->path, "[vdso]") == 0)
		return open_vdso(m);
	if (f->path[0] != '/' || !st->files)
		return NULL;
	path = proc_path_in_root(st->root_prefix, f->path);
	fd = tfile_open(st->files, path, TFILE_CAP_ELF, &sb);
	/* Replaced since it was mapped: the mapped contents live on in
	 * map_files (readable by root only). */
	if (fd >= 0 && f->inode && sb.st_ino != f->inode) {
		close(fd);
		fd = tfile_open_mapped(st->files, m->start, m->end,
				       TFILE_CAP_ELF, NULL);
	}
	if (fd < 0)
		return NULL;
	ef = elf_file_open_fd(fd, st->files, path);
	close(fd);
	return ef;
}

/* The module of mapping idx; its file is opened on first use. */
static void
fill_module(struct symtab *st, size_t idx, struct symtab_module *out)
{
	const struct map *m = &st->maps.v[idx];
	struct smap *sm = &st->smaps[idx];
	struct sfile *f = sm->file;

	if (!f->tried) {
		f->tried = true;
		f->elf = open_file(st, f, m);
	}
	if (f->elf && !sm->bias_done) {
		uint64_t vaddr;

		sm->bias_done = true;
		if (elf_file_mapping_vaddr(f->elf, m->offset,
					   m->prot & PROT_EXEC, &vaddr) == 0) {
			sm->bias = m->start - vaddr;
			sm->bias_ok = true;
		}
	}
	out->elf = sm->bias_ok ? f->elf : NULL;
	out->bias = sm->bias_ok ? sm->bias : 0;
	out->path = f->path;
	out->start = m->start;
	out->end = m->end;
	out->prot = m->prot;
}

static bool
find_map(struct symtab *st, uint64_t ip, size_t *idx)
{
	const struct map *m;

	if (st->last < st->maps.n) {
		m = &st->maps.v[st->last];
		if (ip >= m->start && ip < m->end) {
			*idx = st->last;
			return true;
		}
	}
	m = maps_find(&st->maps, ip);
	if (!m)
		return false;
	*idx = st->last = (size_t)(m - st->maps.v);
	return true;
}

static bool
same_maps(const struct maps *a, const struct maps *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		const struct map *x = &a->v[i], *y = &b->v[i];

		if (x->start != y->start || x->end != y->end ||
		    x->offset != y->offset || x->inode != y->inode ||
		    x->prot != y->prot || !x->path != !y->path ||
		    (x->path && strcmp(x->path, y->path)))
			return false;
	}
	return true;
}

static void
pick_exe(struct symtab *st)
{
	size_t i;

	st->exe = NULL;
	for (i = 0; st->exe_path && i < st->maps.n; i++) {
		if (st->smaps[i].file &&
		    strcmp(st->smaps[i].file->path, st->exe_path) == 0) {
			st->exe = st->smaps[i].file;
			return;
		}
	}
	/* Unknown exe: the lowest file-backed mapping is the executable. */
	for (i = 0; i < st->maps.n; i++) {
		if (st->smaps[i].file && st->smaps[i].file->path[0] == '/') {
			st->exe = st->smaps[i].file;
			return;
		}
	}
}

int
symtab_reload(struct symtab *st)
{
	struct maps nm;
	struct smap *sm;
	size_t i;

	if (proc_maps_read(st->pid, &nm) < 0)
		return -1;
	if (st->smaps && same_maps(&st->maps, &nm)) {
		maps_free(&nm);
		return 0;
	}
	sm = xcalloc(nm.n ? nm.n : 1, sizeof(*sm));
	for (i = 0; i < nm.n; i++)
		if (nm.v[i].path)
			sm[i].file = file_get(st, nm.v[i].path, nm.v[i].inode);
	maps_free(&st->maps);
	free(st->smaps);
	st->maps = nm;
	st->smaps = sm;
	st->last = 0;
	st->generation++;
	pick_exe(st);
	return 0;
}

uint64_t
symtab_generation(const struct symtab *st)
{
	return st->generation;
}

struct symtab *
symtab_create(pid_t pid)
{
	struct symtab *st = xcalloc(1, sizeof(*st));
	char link[64], exe[PATH_MAX];
	ssize_t n;
	int saved;

	st->pid = pid;
	if (proc_root_prefix(pid, st->root_prefix, sizeof(st->root_prefix)) < 0)
		strcpy(st->root_prefix, "/");
	/* Without it, no file of the target is read: frames are named by
	 * address (and the vDSO). */
	st->files = tfile_root_pid(pid);
	snprintf(link, sizeof(link), "%s/%d/exe", proc_dir, (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* maps drops this suffix too (see proc_maps_parse()). */
		if (n > 10 && strcmp(exe + n - 10, " (deleted)") == 0)
			exe[n - 10] = '\0';
		st->exe_path = xstrdup(exe);
	}
	if (symtab_reload(st) < 0) {
		saved = errno;
		symtab_destroy(st);
		errno = saved;
		return NULL;
	}
	return st;
}

int
symtab_preload(struct symtab *st)
{
	struct symtab_module mod;
	size_t i;

	for (i = 0; i < st->maps.n; i++)
		if (st->smaps[i].file && (st->maps.v[i].prot & PROT_EXEC))
			fill_module(st, i, &mod);
	return 0;
}

/* The mapping holding ip, the maps re-read (at most every
 * AUTO_RELOAD_NS) when none holds it or it is not executable. */
static bool
find_code_map(struct symtab *st, uint64_t ip, size_t *out)
{
	size_t idx;
	bool found = find_map(st, ip, &idx);

	/* Not mapped, or mapped without exec: the snapshot may be stale.
	 * ld.so maps a library in two steps (the whole file read-only,
	 * then its text over it), and maps read in between would leave
	 * that library's code never executable to us. */
	if (!found || !(st->maps.v[idx].prot & PROT_EXEC)) {
		uint64_t now = now_ns();

		if (!st->last_auto_reload_ns ||
		    now - st->last_auto_reload_ns >= AUTO_RELOAD_NS) {
			st->last_auto_reload_ns = now;
			found = symtab_reload(st) == 0 &&
				find_map(st, ip, &idx);
		}
	}
	*out = idx;
	return found;
}

/* symtab_module(), also telling which file the mapping is of. */
static int
lookup(struct symtab *st, uint64_t ip, struct symtab_module *out,
       struct sfile **file)
{
	size_t idx;

	if (!find_code_map(st, ip, &idx)) {
		errno = ENOENT;
		return -1;
	}
	if (!st->smaps[idx].file) {
		errno = ENOENT;
		return -1;
	}
	fill_module(st, idx, out);
	if (file)
		*file = st->smaps[idx].file;
	return 0;
}

int
symtab_module(struct symtab *st, uint64_t ip, struct symtab_module *out)
{
	return lookup(st, ip, out, NULL);
}

bool
symtab_is_jit(struct symtab *st, uint64_t ip)
{
	size_t idx;

	return find_code_map(st, ip, &idx) && !st->maps.v[idx].path &&
	       (st->maps.v[idx].prot & PROT_EXEC);
}

void
symtab_frame_info(struct symtab *st, uint64_t ip, struct symtab_frame *out,
		  char *buf, size_t cap)
{
	struct symtab_module mod;
	const char *name = NULL, *base;
	struct sfile *f;
	uint64_t off = 0;

	memset(out, 0, sizeof(*out));
	out->addr = ip;
	if (lookup(st, ip, &mod, &f) < 0) {
		if (symtab_is_jit(st, ip)) {
			const char *jname = st->jitmap
						    ? perfmap_lookup(st->jitmap, ip)
						    : NULL;

			/* Every JIT address the map does not name is one
			 * frame: an address means nothing a run later. */
			out->jit = !jname;
			out->jit_named = jname != NULL;
			out->symbol = jname ? jname : SYMTAB_JIT_NAME;
			out->addr = 0;
			if (cap)
				snprintf(buf, cap, "%s", out->symbol);
		} else if (cap) {
			snprintf(buf, cap, "0x%" PRIx64, ip);
		}
		return;
	}
	out->module = mod.path;
	if (mod.elf) {
		size_t idlen = 0;
		const uint8_t *id = elf_file_build_id(mod.elf, &idlen);
		uint64_t fs, fe;

		for (size_t i = 0; id && i < idlen && i < 20; i++)
			snprintf(out->build_id + 2 * i, 3, "%02x", id[i]);
		name = elf_file_symbol(mod.elf, ip - mod.bias, &off);
		out->addr = ip - mod.bias;
		if (elf_file_function_bounds(mod.elf, ip - mod.bias, &fs,
					     &fe) == 0) {
			out->func_start = fs + mod.bias;
			out->func_end = fe + mod.bias;
		}
	}
	if (name) {
		out->symbol = name;
		out->addr -= off;
	}
	if (!cap)
		return;
	base = strrchr(mod.path, '/');
	base = base ? base + 1 : mod.path;
	if (name && f == st->exe)
		snprintf(buf, cap, "%s", name);
	else if (name)
		snprintf(buf, cap, "%s (%s)", name, base);
	else
		snprintf(buf, cap, "0x%" PRIx64 " (%s)",
			 mod.elf ? ip - mod.bias : ip, base);
}

void
symtab_name_jit(struct symtab *st, const char *tag)
{
	char path[64];
	pid_t ids[8];
	pid_t own = st->pid;
	int n;

	if (st->jitmap || !st->files)
		return;
	/* The pid the JIT wrote in the name: its own, in its namespace. */
	n = proc_status_nspid(st->pid, ids, 8);
	if (n > 0)
		own = ids[n - 1];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)own);
	st->jitmap = perfmap_create(st->files, path, tag);
}

void
symtab_frame_name(struct symtab *st, uint64_t ip, char *buf, size_t cap)
{
	struct symtab_frame fr;

	symtab_frame_info(st, ip, &fr, buf, cap);
}

void
symtab_destroy(struct symtab *st)
{
	size_t i;

	if (!st)
		return;
	perfmap_destroy(st->jitmap);
	for (i = 0; i < FILE_BUCKETS; i++) {
		struct sfile *f = st->buckets[i], *next;

		for (; f; f = next) {
			next = f->next;
			elf_file_close(f->elf);
			free(f->path);
			free(f);
		}
	}
	maps_free(&st->maps);
	free(st->smaps);
	tfile_root_destroy(st->files);
	free(st->exe_path);
	free(st);
}
