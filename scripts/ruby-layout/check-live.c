/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * check-live: a maintainer's check of a generated struct ruby_layout
 * against a live Ruby process, not part of rbflame. It walks every thread
 * of the target's main ractor with nothing but the layout and prints what
 * it finds (thread tids, names and status, and each frame's label, path,
 * line, method id and name), so that the output can be compared with the
 * target's own backtraces. It reads /proc/PID/mem directly and bounds
 * every loop, but keeps no caches and handles no races: stop the target
 * (kill -STOP) or let it sleep while it runs.
 *
 *   cc -I include -o /tmp/check-live scripts/ruby-layout/check-live.c \
 *      src/ruby/layouts/ruby_*.c src/ruby/layouts/index.c
 *   /tmp/check-live PID VM_ADDR [SYMBOLS_ADDR]
 *
 * VM_ADDR is the value of ruby_current_vm_ptr; SYMBOLS_ADDR the address of
 * ruby_global_symbols (hidden in Debian's builds: without it, check-live
 * scans the writable mappings of libruby for it). See doc/ruby-layout.md.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbflame/ruby_layout.h"

static int memfd;
static const struct ruby_layout *L;
static uint64_t symbols;

static int
rd(uint64_t addr, void *buf, size_t len)
{
	return pread(memfd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

static uint64_t
u64(uint64_t addr)
{
	uint64_t v = 0;

	if (rd(addr, &v, 8) < 0)
		return 0;
	return v;
}

static uint32_t
u32(uint64_t addr)
{
	uint32_t v = 0;

	if (rd(addr, &v, 4) < 0)
		return 0;
	return v;
}

static uint64_t
bits(uint64_t obj, unsigned bit, unsigned width)
{
	return (u64(obj + bit / 8) >> (bit % 8)) & ((1ull << width) - 1);
}

static int
type_of(uint64_t v)
{
	if (!v || (v & L->immediate_mask) || v == L->qnil || v == L->qfalse)
		return -1;
	return (int)(u64(v + L->rbasic_flags) & L->t_mask);
}

/* A String VALUE into buf, "?" if it is none. */
static const char *
rstr(uint64_t v, char *buf, size_t cap)
{
	uint64_t flags, len, ptr;

	snprintf(buf, cap, "?");
	if (type_of(v) != (int)L->t_string)
		return buf;
	flags = u64(v + L->rbasic_flags);
	if (flags & L->rstring_noembed) {
		len = u64(v + L->rstring_len);
		ptr = u64(v + L->rstring_heap_ptr);
	} else {
		len = L->string == RUBY_LAYOUT_STRING_LEN_IN_FLAGS ?
			(flags & L->rstring_embed_len_mask) >>
				L->rstring_embed_len_shift :
			u64(v + L->rstring_len);
		ptr = v + L->rstring_embed_ary;
	}
	if (len >= cap)
		len = cap - 1;
	if (rd(ptr, buf, len) < 0)
		len = 0;
	buf[len] = 0;
	return buf;
}

static uint64_t
rary_at(uint64_t v, uint64_t i)
{
	uint64_t flags, len, ptr;

	if (type_of(v) != (int)L->t_array)
		return 0;
	flags = u64(v + L->rbasic_flags);
	if (flags & L->rarray_embed_flag) {
		len = (flags & L->rarray_embed_len_mask) >>
			L->rarray_embed_len_shift;
		ptr = v + L->rarray_embed_ary;
	} else {
		len = u64(v + L->rarray_heap_len);
		ptr = u64(v + L->rarray_heap_ptr);
	}
	return i < len ? u64(ptr + 8 * i) : 0;
}

static const char *
id2name(uint64_t id, char *buf, size_t cap)
{
	uint64_t serial, page;

	snprintf(buf, cap, "?");
	if (!symbols)
		return buf;
	serial = id > L->tlast_op_id ? id >> L->id_scope_shift : id;
	page = rary_at(u64(symbols + L->symbols_ids),
		       serial / L->id_entry_unit);
	return rstr(rary_at(page, (serial % L->id_entry_unit) *
				L->id_entry_size + L->id_entry_str),
		    buf, cap);
}

/* Finds ruby_global_symbols in libruby's writable mappings. */
static uint64_t
find_symbols(int pid)
{
	char path[64], line[512];
	uint64_t lo, hi, a, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char perms[5];
		char buf[32];

		if (!strstr(line, "libruby") ||
		    sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", &lo, &hi,
			   perms) != 3 || perms[1] != 'w')
			continue;
		for (a = lo; a + L->sizeof_symbols <= hi; a += 8) {
			uint64_t ids = u64(a + L->symbols_ids);
			uint64_t last = u32(a + L->symbols_last_id);

			if (last < 1000 || last > 10000000 ||
			    type_of(ids) != (int)L->t_array)
				continue;
			symbols = a;
			/* Operator IDs are their own serials: '+' is 43. */
			if (!strcmp(id2name('+', buf, sizeof(buf)), "+") &&
			    rary_at(ids, (last - 1) / L->id_entry_unit)) {
				found = a;
				break;
			}
			symbols = 0;
		}
	}
	fclose(f);
	return found;
}

static int
lineno(uint64_t body, uint64_t pc)
{
	uint64_t enc = u64(body + L->body_iseq_encoded);
	uint64_t info = u64(body + L->body_insns_info_body);
	uint32_t size = u32(body + L->body_insns_info_size);
	uint64_t succ, pos, idx;

	if (!pc)
		return -1;
	pos = (pc - enc) / 8;
	if (pos)
		pos--;
	if (size == 0)
		return -1;
	if (size == 1) {
		idx = 0;
	} else {
		succ = u64(body + L->body_insns_info_succ);
		if (pos < L->succ_immediate_size) {
			uint64_t w = u64(succ + L->succ_imm_part +
					 8 * (pos / 9));
			idx = (w >> (pos % 9 * 7)) & 0x7f;
		} else {
			uint64_t b = pos - L->succ_immediate_size;
			uint64_t blk = succ + L->succ_succ_part +
				       b / 512 * L->sizeof_succ_dict_block;
			unsigned sb = b % 512 / 64;
			uint64_t sbr = u64(blk +
					   L->succ_block_small_block_ranks);
			uint64_t word = u64(blk + L->succ_block_bits + 8 * sb);

			idx = u32(blk + L->succ_block_rank) +
			      (sb ? (sbr >> ((sb - 1) * 9)) & 0x1ff : 0) +
			      __builtin_popcountll(word << (63 - b % 64));
		}
		if (idx == 0 || idx > size)
			return -1;
		idx--;
	}
	return (int)u32(info + idx * L->sizeof_insn_info_entry +
			L->insn_info_line_no);
}

/* The method entry of a frame: ep[ME_CREF], through an svar if any. */
static uint64_t
frame_me(uint64_t ep)
{
	uint64_t v = u64(ep + 8 * L->env_index_me_cref);
	int i;

	for (i = 0; i < 2 && type_of(v) == (int)L->t_imemo; i++) {
		uint64_t t = (u64(v) >> L->imemo_type_shift) &
			     L->imemo_type_mask;

		if (t == L->imemo_ment)
			return v;
		if (t != L->imemo_svar)
			return 0;
		v = u64(v + L->svar_cref_or_me);
	}
	return 0;
}

static void
walk_ec(uint64_t ec)
{
	uint64_t stack = u64(ec + L->ec_vm_stack);
	uint64_t end = stack + 8 * u64(ec + L->ec_vm_stack_size);
	uint64_t cfp = u64(ec + L->ec_cfp);
	char a[256], b[256], c[256];
	int n;

	/* The last frame below the end of the stack is a dummy. */
	for (n = 0; cfp + 2 * L->sizeof_control_frame <= end && n < 512;
	     n++, cfp += L->sizeof_control_frame) {
		uint64_t iseq = u64(cfp + L->cfp_iseq);
		uint64_t pc = u64(cfp + L->cfp_pc);
		uint64_t ep = u64(cfp + L->cfp_ep);
		uint64_t flags = u64(ep + 8 * L->env_index_flags);
		uint64_t magic = flags & L->frame_magic_mask;

		if (magic == L->frame_magic_cfunc) {
			uint64_t me = frame_me(ep);
			uint64_t def = u64(me + L->me_def);
			uint64_t id = u64(def + L->def_original_id);

			printf("    cfunc %s (id %" PRIu64 ", type %" PRIu64
			       ")\n", id2name(id, a, sizeof(a)), id,
			       bits(def, L->def_type_bit, L->def_type_width));
		} else if (iseq && pc) {
			uint64_t body = u64(iseq + L->iseq_body);
			uint64_t path = u64(body + L->body_pathobj);
			uint64_t me = frame_me(ep);
			uint64_t line1 = u64(body + L->body_first_lineno);

			if (type_of(path) == (int)L->t_array)
				path = rary_at(path, 0);
			printf("    %s:%d %s (type %u, base %s, first %" PRIu64
			       ", me %s)\n", rstr(path, a, sizeof(a)),
			       lineno(body, pc),
			       rstr(u64(body + L->body_label), b, sizeof(b)),
			       u32(body + L->body_type),
			       rstr(u64(body + L->body_base_label), c,
				    sizeof(c)),
			       L->first_lineno_fixnum ? line1 >> 1 : line1,
			       me ? id2name(u64(me + L->me_called_id), c,
					    sizeof(c)) : "-");
		} else {
			printf("    (frame magic %#" PRIx64 ")\n", magic);
		}
	}
}

int
main(int argc, char **argv)
{
	char path[64], buf[256];
	uint64_t vm, ractor, head, node, running_ec;
	const char *ver;
	int pid, i;

	if (argc < 3) {
		fprintf(stderr, "usage: check-live PID VM_ADDR "
				"[SYMBOLS_ADDR]\n");
		return 2;
	}
	pid = atoi(argv[1]);
	vm = strtoull(argv[2], NULL, 0);
	ver = getenv("RUBY_LAYOUT") ? getenv("RUBY_LAYOUT") : "3.1";
	for (i = 0; ruby_layouts[i]; i++)
		if (!strncmp(ruby_layouts[i]->version, ver, strlen(ver)))
			L = ruby_layouts[i];
	if (!L) {
		fprintf(stderr, "no layout for %s\n", ver);
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	memfd = open(path, O_RDONLY);
	if (memfd < 0) {
		perror(path);
		return 1;
	}
	symbols = argc > 3 ? strtoull(argv[3], NULL, 0) : find_symbols(pid);
	printf("layout %s (%s), vm %#" PRIx64 ", global_symbols %#" PRIx64
	       "\n", L->version, L->source, vm, symbols);

	if (L->threads == RUBY_LAYOUT_THREADS_RACTOR) {
		ractor = u64(vm + L->vm_main_ractor);
		head = ractor + L->ractor_threads_set;
		running_ec = u64(ractor + L->ractor_running_ec);
		printf("main ractor %#" PRIx64 ": %u threads, running_ec %#"
		       PRIx64 ", main thread %#" PRIx64 " (vm says %#" PRIx64
		       ")\n", ractor, u32(ractor + L->ractor_threads_cnt),
		       running_ec, u64(ractor + L->ractor_main_thread),
		       u64(vm + L->vm_main_thread));
	} else {
		head = vm + L->vm_living_threads;
		running_ec = u64(u64(vm + L->vm_running_thread) + L->thread_ec);
		printf("%u threads, running thread %#" PRIx64 "\n",
		       u32(vm + L->vm_living_thread_num),
		       u64(vm + L->vm_running_thread));
	}
	node = u64(head + L->list_node_next);
	for (i = 0; node != head && node && i < 1000; i++) {
		uint64_t th = node - L->thread_lt_node;
		uint64_t ec = u64(th + L->thread_ec);
		int tid = -1;

		if (L->tid == RUBY_LAYOUT_TID_THREAD)
			tid = (int)u32(th + L->thread_tid);
		else if (L->tid == RUBY_LAYOUT_TID_NATIVE_THREAD)
			tid = (int)u32(u64(th + L->thread_nt) + L->nt_tid);
		printf("thread %#" PRIx64 " tid %d name %s status %" PRIu64
		       " self-check %s ec %#" PRIx64 "%s\n", th, tid,
		       rstr(u64(th + L->thread_name), buf, sizeof(buf)),
		       bits(th, L->thread_status_bit, L->thread_status_width),
		       u64(ec + L->ec_thread_ptr) == th ? "ok" : "BAD", ec,
		       ec == running_ec ? " (holds the GVL)" : "");
		walk_ec(ec);
		node = u64(node + L->list_node_next);
	}
	{
		uint64_t os = u64(vm + L->vm_objspace);

		printf("objspace %#" PRIx64 ": gc mode %" PRIu64
		       ", during_gc %" PRIu64 "\n", os,
		       bits(os, L->objspace_mode_bit, L->objspace_mode_width),
		       bits(os, L->objspace_during_gc_bit, 1));
	}
	return 0;
}
