// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * Native unwinding with libunwind's remote machinery and rbflame's own
 * accessors, in the way of perf's util/unwind-libunwind-local.c: memory
 * through struct mem (never one PTRACE_PEEKDATA per word), registers from
 * a PTRACE_GETREGS snapshot, and unwind tables found by us: for the
 * module holding an ip, its .eh_frame_hdr binary-search table, handed to
 * libunwind's dwarf_search_unwind_table() as a remote table.
 *
 * Owns one libunwind address space and, per executable mapping, the
 * table description plus local copies of the target's .eh_frame_hdr and
 * .eh_frame. Those are read-only, so they are read from the target once
 * and stay valid until symtab reports that the maps changed.
 *
 * Also owns a cache of CFI rows: for each function met, the register
 * state libunwind computes for each range of its code
 * (unw_reg_states_iterate()), which a step applies with
 * unw_apply_reg_state(). unw_step() would look the state up in
 * libunwind's own cache, whose lock masks all signals around it: two
 * rt_sigprocmask per frame, about half of a 49-frame unwind. (The
 * per-thread cache that takes no lock is not built in Debian's
 * libunwind 1.6.2: unw_set_caching_policy() turns UNW_CACHE_PER_THREAD
 * into UNW_CACHE_GLOBAL.) unw_step() stays the fallback for code
 * without CFI, where it guesses by the frame pointer.
 *
 * Most rows say only "CFA = rsp (or rbp) + N; the return address and
 * some callee-saved registers at CFA + k; the rest unchanged". Those are
 * compiled into a struct crule when learned, and a step through one is a
 * few loads from the stack (struct cregs: each register a value, or the
 * address it is saved at, read only when a later rule needs it): 49
 * frames cost 17 us through libunwind's cursor in a hold (7 us warm),
 * which is the target's time. What a row means is libunwind's, not
 * ours: the rule is read off two applications of its state to made-up
 * registers and memory (crule_probe()), and any row it cannot put so
 * (an expression, a register saved in another, a signal frame) is
 * stepped by libunwind from a cursor made at that frame.
 * RBFLAME_UNWIND_CHECK=1 walks each stack both ways and counts where
 * they differ (tests/native/unwind-check.sh).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/user.h>

#include <libunwind.h>

#include "rbflame/elf_sym.h"
#include "rbflame/error.h"
#include "rbflame/mem.h"
#include "rbflame/symtab.h"
#include "rbflame/unwind.h"
#include "rbflame/xmalloc.h"

/* Exported by libunwind but declared only in its private headers. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as,
					      unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

/* Accessors must match libunwind's prototypes, used or not. */
#define UNUSED __attribute__((unused))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Pointer encodings of .eh_frame_hdr (LSB 3.0, DW_EH_PE_*). */
enum {
	EH_PE_absptr = 0x00,
	EH_PE_udata2 = 0x02,
	EH_PE_udata4 = 0x03,
	EH_PE_udata8 = 0x04,
	EH_PE_sdata2 = 0x0a,
	EH_PE_sdata4 = 0x0b,
	EH_PE_sdata8 = 0x0c,
	EH_PE_pcrel = 0x10,
	EH_PE_datarel = 0x30,
	EH_PE_omit = 0xff,
};

#define MAX_HDR_BYTES (16u << 20)
#define MAX_FRAME_BYTES (64u << 20)
#define COPY_CHUNK (64u << 10)
#define MAX_MODULES 4096
/* libunwind's register-state cache (rounded to a power of two), used
 * only by the unw_step() fallback. */
#define RS_CACHE_SIZE 1024
/* CFI rows cached: all of them are dropped when this many are, so a
 * target making new code forever costs bounded memory (with libunwind
 * 1.6.2's 184-byte states and 32-byte rows, 7 MiB at most). */
#define MAX_ROWS 32768
/* Rows learned of one function at most: more, and it is stepped with
 * unw_step() every time. */
#define MAX_FDE_ROWS 1024

/* One executable mapping and how to unwind through it. */
struct umod {
	uint64_t start, end;
	bool ok; /* di usable */
	unw_dyn_info_t di;
	uint8_t *hdr; /* copy of .eh_frame_hdr, or NULL */
	uint64_t hdr_addr, hdr_len;
	uint8_t *frame; /* copy of .eh_frame, or NULL */
	uint64_t frame_addr, frame_len;
};

/* x86-64's DWARF registers, libunwind's numbers too: rax .. r15, then
 * the return address column. */
#define NREGS 17
#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16
/* Registers a compiled row changes at most: rbx, rbp, r12-r15 and the
 * return address are what compilers save. */
#define CRULE_MAX 8

enum { CR_SAME, CR_UNDEF, CR_AT };

/* A row as loads: CFA = reg cfa_reg + cfa_off; then each of e[] is
 * undefined or saved at CFA + off; every other register unchanged. */
struct crule {
	int32_t cfa_off;
	uint8_t cfa_reg;
	uint8_t n;
	struct {
		uint8_t reg, how;	/* CR_UNDEF or CR_AT */
		int16_t off;
	} e[CRULE_MAX];
};

/* The register state of [start, end): an opaque libunwind state, and
 * the same as loads where it can be put so. */
struct rs_row {
	uint64_t start, end;
	size_t state;		/* index in states */
	bool signal;		/* a signal trampoline: its caller's ip is the
				 * interrupted instruction, not a return */
	bool compiled;		/* cr holds it */
	struct crule cr;
};

/* The registers of the frame being unwound: a value (CR_SAME: known),
 * the address it is saved at (CR_AT), or none (CR_UNDEF). */
struct cregs {
	uint64_t v[NREGS];
	uint8_t how[NREGS];
};

/* row_find()'s memo: 2^ROW_MEMO_SHIFT slots of a row index. */
#define ROW_MEMO_SHIFT 9
#define BLOCKED_SCAN_WORDS 512	/* 4 KiB above sp searched for a frame */
#define UNWIND_GUESS_FRAMES 512

struct unwinder {
	pid_t pid;
	struct mem *mem;
	struct symtab *st;
	unw_addr_space_t as;
	uint64_t generation; /* of st, when mods were built */
	struct umod *mods;   /* sorted by start */
	size_t nmods, cap;
	size_t cur; /* the module last searched, if nmods */
	bool has_cur;
	const struct user_regs_struct *regs; /* during unwind_stack() */
	struct rs_row *rows; /* sorted by start, disjoint */
	size_t nrows, rows_cap;
	unsigned char *states; /* nstates of state_size bytes */
	size_t nstates, states_cap, state_size;
	struct learning *learn; /* row_learn()'s room, made once */
	uint32_t row_memo[1u << ROW_MEMO_SHIFT];
	uint64_t exec_lo, exec_hi; /* executable(): the last code mapping */
	bool check;	/* RBFLAME_UNWIND_CHECK: each walk done both ways */
	uint64_t check_walks, check_mismatches;
	bool probing;	/* crule_probe(): memory is made up */
	uint64_t compiled_steps, generic_steps, rows_compiled, rows_generic;
};

static void
clear_modules(struct unwinder *u)
{
	size_t i;

	for (i = 0; i < u->nmods; i++) {
		free(u->mods[i].hdr);
		free(u->mods[i].frame);
	}
	u->nmods = 0;
	u->has_cur = false;
	/* Code at a cached address may be other code now. */
	u->nrows = 0;
	u->nstates = 0;
}

/* Copies len bytes of target memory in pieces mem.c reads directly. */
static uint8_t *
copy_target(struct unwinder *u, uint64_t addr, uint64_t len)
{
	uint8_t *buf = xmalloc(len);
	uint64_t done, n;

	for (done = 0; done < len; done += n) {
		n = len - done < COPY_CHUNK ? len - done : COPY_CHUNK;
		if (mem_read(u->mem, addr + done, buf + done, n) < 0) {
			free(buf);
			return NULL;
		}
	}
	return buf;
}

/* Reads one encoded pointer of .eh_frame_hdr at *pos; base is its address. */
static int
read_encoded(const uint8_t *buf, uint64_t len, uint64_t *pos, uint8_t enc,
	     uint64_t base, uint64_t *out)
{
	uint64_t p = *pos, v;
	size_t size;

	switch (enc & 0x0f) {
	case EH_PE_absptr:
	case EH_PE_udata8:
	case EH_PE_sdata8:
		size = 8;
		break;
	case EH_PE_udata4:
	case EH_PE_sdata4:
		size = 4;
		break;
	case EH_PE_udata2:
	case EH_PE_sdata2:
		size = 2;
		break;
	default:
		return -1;
	}
	if (enc == EH_PE_omit || p > len || len - p < size)
		return -1;
	if (size == 8) {
		memcpy(&v, buf + p, 8);
	} else if (size == 4) {
		uint32_t w;

		memcpy(&w, buf + p, 4);
		v = (enc & 0x0f) == EH_PE_sdata4 ? (uint64_t)(int64_t)(int32_t)w
						 : w;
	} else {
		uint16_t h;

		memcpy(&h, buf + p, 2);
		v = (enc & 0x0f) == EH_PE_sdata2 ? (uint64_t)(int64_t)(int16_t)h
						 : h;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case EH_PE_pcrel:
		v += base + p;
		break;
	case EH_PE_datarel:
		v += base;
		break;
	default:
		return -1;
	}
	*pos = p + size;
	*out = v;
	return 0;
}

/* Describes the module's .eh_frame_hdr table to libunwind. */
static void
build_module(struct unwinder *u, struct umod *m, const struct elf_file *ef,
	     uint64_t bias)
{
	uint64_t hv, hs, fv, fs, pos = 4, frame_ptr, count, addr;
	uint8_t *hdr;

	if (!ef || elf_file_eh_frame_hdr(ef, &hv, &hs) < 0 || hs < 8 ||
	    hs > MAX_HDR_BYTES)
		return;
	addr = hv + bias;
	hdr = copy_target(u, addr, hs);
	if (!hdr)
		return;
	/* libunwind's remote lookup reads the table as pairs of
	 * datarel-sdata4 words: that is the only usable table format. */
	if (hdr[0] != 1 || hdr[3] != (EH_PE_datarel | EH_PE_sdata4) ||
	    read_encoded(hdr, hs, &pos, hdr[1], addr, &frame_ptr) < 0 ||
	    read_encoded(hdr, hs, &pos, hdr[2], addr, &count) < 0 ||
	    count == 0 || count > (hs - pos) / 8) {
		free(hdr);
		return;
	}
	memset(&m->di, 0, sizeof(m->di));
	m->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	m->di.start_ip = m->start;
	m->di.end_ip = m->end;
	m->di.u.rti.segbase = addr;
	m->di.u.rti.table_data = addr + pos;
	m->di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
	m->hdr = hdr;
	m->hdr_addr = addr;
	m->hdr_len = hs;
	m->ok = true;

	/* The FDEs and CIEs: a copy saves a read per stop and per byte. */
	if (elf_file_eh_frame(ef, &fv, &fs) == 0 && fs <= MAX_FRAME_BYTES &&
	    fv + bias == frame_ptr) {
		m->frame = copy_target(u, frame_ptr, fs);
		if (m->frame) {
			m->frame_addr = frame_ptr;
			m->frame_len = fs;
		}
	}
}

/* The module holding ip, built on first use; NULL if none. */
static struct umod *
module_for(struct unwinder *u, uint64_t ip)
{
	struct symtab_module sm;
	struct umod *m;
	size_t lo = 0, hi = u->nmods;

	if (u->has_cur) {
		m = &u->mods[u->cur];
		if (ip >= m->start && ip < m->end)
			return m;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->mods[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && ip < u->mods[lo - 1].end) {
		u->cur = lo - 1;
		u->has_cur = true;
		return &u->mods[lo - 1];
	}

	if (symtab_module(u->st, ip, &sm) < 0)
		return NULL;
	if (symtab_generation(u->st) != u->generation) {
		/* A reload happened behind our back: start over. */
		clear_modules(u);
		u->generation = symtab_generation(u->st);
		lo = 0;
	}
	if (u->nmods >= MAX_MODULES) {
		clear_modules(u);
		lo = 0;
	}
	u->mods = xgrowarray(u->mods, &u->cap, u->nmods + 1, sizeof(*u->mods));
	memmove(&u->mods[lo + 1], &u->mods[lo],
		(u->nmods - lo) * sizeof(*u->mods));
	u->nmods++;
	m = &u->mods[lo];
	memset(m, 0, sizeof(*m));
	m->start = sm.start;
	m->end = sm.end;
	/* No code, no unwind info: a junk ip must not copy tables again. */
	if (sm.prot & PROT_EXEC)
		build_module(u, m, sm.elf, sm.bias);
	u->cur = lo;
	u->has_cur = true;
	return m;
}

static int
find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
	       int need_unwind_info, void *arg)
{
	struct unwinder *u = arg;
	struct umod *m = module_for(u, ip);

	if (!m || !m->ok)
		return -UNW_ENOINFO;
	return dwarf_search_unwind_table(as, ip, &m->di, pi, need_unwind_info,
					 arg);
}

/*
 * Nothing to free: with a remote table, dwarf_search_unwind_table()
 * allocates pi->unwind_info from libunwind's own pool and frees it there;
 * free() here would corrupt the pool (libunwind only calls this hook for
 * dynamically registered procedures, which we never report).
 */
static void
put_unwind_info(unw_addr_space_t as UNUSED, unw_proc_info_t *pi UNUSED,
		void *arg UNUSED)
{
}

static int
get_dyn_info_list_addr(unw_addr_space_t as UNUSED, unw_word_t *dilap UNUSED,
		       void *arg UNUSED)
{
	return -UNW_ENOINFO;
}

static bool
local_read(const uint8_t *buf, uint64_t base, uint64_t len, uint64_t addr,
	   unw_word_t *valp)
{
	if (!buf || addr < base || len < sizeof(*valp) ||
	    addr - base > len - sizeof(*valp))
		return false;
	memcpy(valp, buf + (addr - base), sizeof(*valp));
	return true;
}

/* crule_probe()'s memory: each word holds its own address, marked so
 * that no register value of the probe can be taken for one. */
#define PROBE_XOR 0x5a00000000000000ull

static int
access_mem(unw_addr_space_t as UNUSED, unw_word_t addr, unw_word_t *valp,
	   int write, void *arg)
{
	struct unwinder *u = arg;

	if (write)
		return -UNW_EINVAL;
	/* Table and CFI reads follow find_proc_info() for the same module. */
	if (u->has_cur) {
		const struct umod *m = &u->mods[u->cur];

		if (local_read(m->hdr, m->hdr_addr, m->hdr_len, addr, valp) ||
		    local_read(m->frame, m->frame_addr, m->frame_len, addr,
			       valp))
			return 0;
	}
	if (u->probing) {
		*valp = addr ^ PROBE_XOR;
		return 0;
	}
	if (mem_read(u->mem, addr, valp, sizeof(*valp)) < 0)
		return -UNW_EINVAL;
	return 0;
}

/* Where each register libunwind asks for is in a PTRACE_GETREGS snapshot. */
/* clang-format off */
#define OFF(field) offsetof(struct user_regs_struct, field)
static const size_t reg_offset[] = {
	[UNW_X86_64_RAX]	= OFF(rax),
	[UNW_X86_64_RDX]	= OFF(rdx),
	[UNW_X86_64_RCX]	= OFF(rcx),
	[UNW_X86_64_RBX]	= OFF(rbx),
	[UNW_X86_64_RSI]	= OFF(rsi),
	[UNW_X86_64_RDI]	= OFF(rdi),
	[UNW_X86_64_RBP]	= OFF(rbp),
	[UNW_X86_64_RSP]	= OFF(rsp),
	[UNW_X86_64_R8]	= OFF(r8),
	[UNW_X86_64_R9]	= OFF(r9),
	[UNW_X86_64_R10]	= OFF(r10),
	[UNW_X86_64_R11]	= OFF(r11),
	[UNW_X86_64_R12]	= OFF(r12),
	[UNW_X86_64_R13]	= OFF(r13),
	[UNW_X86_64_R14]	= OFF(r14),
	[UNW_X86_64_R15]	= OFF(r15),
	[UNW_X86_64_RIP]	= OFF(rip),
};
#undef OFF
/* clang-format on */

static int
access_reg(unw_addr_space_t as UNUSED, unw_regnum_t reg, unw_word_t *valp,
	   int write, void *arg)
{
	const struct user_regs_struct *r = ((struct unwinder *)arg)->regs;

	if (write)
		return -UNW_EREADONLYREG;
	if (!r)
		return -UNW_EBADREG;
	/* UNW_X86_64_RAX .. UNW_X86_64_RIP are 0 .. 16: no holes. */
	if (reg < 0 || (size_t)reg >= ARRAY_SIZE(reg_offset))
		return -UNW_EBADREG;
	memcpy(valp, (const char *)r + reg_offset[reg], sizeof(*valp));
	return 0;
}

static int
access_fpreg(unw_addr_space_t as UNUSED, unw_regnum_t reg UNUSED,
	     unw_fpreg_t *val UNUSED, int write UNUSED, void *arg UNUSED)
{
	return -UNW_EBADREG;
}

static int
resume(unw_addr_space_t as UNUSED, unw_cursor_t *c UNUSED, void *arg UNUSED)
{
	return -UNW_EINVAL;
}

/* Frames are named by symtab, after the target runs again. */
static int
get_proc_name(unw_addr_space_t as UNUSED, unw_word_t addr UNUSED,
	      char *buf UNUSED, size_t len UNUSED, unw_word_t *offp UNUSED,
	      void *arg UNUSED)
{
	return -UNW_ENOINFO;
}

static const unw_accessors_t accessors = {
    .find_proc_info = find_proc_info,
    .put_unwind_info = put_unwind_info,
    .get_dyn_info_list_addr = get_dyn_info_list_addr,
    .access_mem = access_mem,
    .access_reg = access_reg,
    .access_fpreg = access_fpreg,
    .resume = resume,
    .get_proc_name = get_proc_name,
};

/* The first row at or after ip's, in u->rows. */
static size_t
row_index(const struct unwinder *u, uint64_t ip)
{
	size_t lo = 0, hi = u->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->rows[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The row holding ip. A stack walked again meets the same return
 * addresses: each is looked up first in a direct-mapped memo of where
 * its row was, kept honest by the row's bounds (rows are disjoint: one
 * that holds ip is ip's, wherever inserts moved it). */
static const struct rs_row *
row_find(struct unwinder *u, uint64_t ip)
{
	uint32_t *slot = &u->row_memo[(ip * 0x9e3779b97f4a7c15ull) >>
				      (64 - ROW_MEMO_SHIFT)];
	size_t i = *slot;

	if (i < u->nrows && u->rows[i].start <= ip && ip < u->rows[i].end)
		return &u->rows[i];
	i = row_index(u, ip);
	if (i < u->nrows && u->rows[i].start <= ip) {
		*slot = (uint32_t)i;
		return &u->rows[i];
	}
	return NULL;
}


/* A register of the frame: its value, read from the stack where it was
 * saved if need be. -1: none, or unreadable. */
static int
creg_get(struct unwinder *u, struct cregs *r, int i, uint64_t *out)
{
	if (r->how[i] == CR_AT) {
		uint64_t v;

		if (u->probing)
			v = r->v[i] ^ PROBE_XOR;
		else if (mem_read(u->mem, r->v[i], &v, sizeof(v)) < 0)
			return -1;
		r->v[i] = v;
		r->how[i] = CR_SAME;
	}
	if (r->how[i] != CR_SAME)
		return -1;
	*out = r->v[i];
	return 0;
}

/*
 * One step through a compiled row, as libunwind's apply_reg_state() and
 * step() below take it: 1 stepped (*ip, *sp the caller's), 0 the
 * outermost frame (an undefined return address or rbp), -1 unreadable
 * or no progress. The CFA is computed before any register changes.
 */
static int
crule_step(struct unwinder *u, const struct crule *cr, struct cregs *r,
	   uint64_t *ip, uint64_t *sp)
{
	uint64_t base, cfa;

	if (creg_get(u, r, cr->cfa_reg, &base) < 0)
		return -1;
	cfa = base + (uint64_t)(int64_t)cr->cfa_off;
	for (int k = 0; k < cr->n; k++) {
		int i = cr->e[k].reg;

		r->how[i] = cr->e[k].how;
		r->v[i] = cfa + (uint64_t)(int64_t)cr->e[k].off;
	}
	r->how[DW_RSP] = CR_SAME;
	r->v[DW_RSP] = cfa;
	if (r->how[DW_RA] == CR_UNDEF)
		return 0;
	{
		uint64_t prev_ip = *ip, prev_sp = *sp;

		if (creg_get(u, r, DW_RA, ip) < 0)
			return -1;
		if (*ip == prev_ip && cfa == prev_sp)
			return -1;
	}
	*sp = cfa;
	return r->how[DW_RBP] == CR_UNDEF ? 0 : 1;
}

/* The frame's registers as a PTRACE_GETREGS snapshot (none: 0), for a
 * libunwind cursor made at this frame. */
static void
cregs_to_user(struct unwinder *u, struct cregs *r, struct user_regs_struct *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < NREGS; i++) {
		uint64_t v;

		if (creg_get(u, r, i, &v) == 0)
			memcpy((char *)out + reg_offset[i], &v, sizeof(v));
	}
}

/* The state libunwind's cursor c reached, as cregs. */
static void
cregs_from_cursor(struct cregs *r, unw_cursor_t *c)
{
	for (int i = 0; i < NREGS; i++) {
		unw_word_t v;

		if (unw_get_reg(c, i == DW_RA ? UNW_REG_IP : i, &v) < 0) {
			r->how[i] = CR_UNDEF;
		} else {
			r->how[i] = CR_SAME;
			r->v[i] = v;
		}
	}
}

/*
 * What libunwind's state (one row) does to registers and stack, read off
 * two applications of it to made-up registers (every register a
 * distinct value, moved by a distinct amount between the two) and
 * memory (each word its own address, marked): a register that comes out
 * as it went in is unchanged; one that comes out marked was saved at
 * that address, CFA-relative by the same offset both times; the CFA is
 * the register whose move it follows. Anything else (an expression, a
 * register saved in another, an error) is no crule: false. The result is
 * checked by stepping the first probe with it.
 */
static bool
crule_probe(struct unwinder *u, const void *state, uint64_t start,
	    uint64_t end, struct crule *cr)
{
	const struct user_regs_struct *saved = u->regs;
	uint64_t in[2][NREGS], out[2][NREGS], cfa[2];
	int how[2][NREGS], ret[2];
	bool ok = true;

	memset(cr, 0, sizeof(*cr));
	u->probing = true;
	for (int p = 0; p < 2 && ok; p++) {
		struct user_regs_struct at;
		unw_cursor_t c;

		memset(&at, 0, sizeof(at));
		for (int i = 0; i < NREGS; i++) {
			in[p][i] = 0x1000000000ull + ((uint64_t)i << 16) +
				   (p ? (uint64_t)(i + 1) << 32 : 0);
			/* At both ends of the row: a rule that depends on
			 * the ip (a PLT's CFA) moves by something else. */
			if (i == DW_RA)
				in[p][i] = p ? end - 1 : start;
			memcpy((char *)&at + reg_offset[i], &in[p][i],
			       sizeof(in[p][i]));
		}
		u->regs = &at;
		ok = unw_init_remote(&c, u->as, u) == 0 &&
		     (ret[p] = unw_apply_reg_state(&c, (void *)state)) >= 0 &&
		     unw_get_reg(&c, UNW_REG_SP, &cfa[p]) == 0;
		for (int i = 0; ok && i < NREGS; i++) {
			unw_word_t v;

			how[p][i] = CR_UNDEF;
			if (i == DW_RSP)
				continue;
			if (i == DW_RA && ret[p] == 0)
				continue; /* undefined: libunwind's ip 0 */
			if (unw_get_reg(&c, i == DW_RA ? UNW_REG_IP : i, &v) < 0)
				continue;
			out[p][i] = v;
			if (v == in[p][i] && i != DW_RA)
				how[p][i] = CR_SAME;
			else if ((v & 0xff00000000000000ull) == PROBE_XOR)
				how[p][i] = CR_AT;
			else
				ok = false;
		}
		u->regs = NULL;
	}
	u->probing = false;
	u->regs = saved;
	if (!ok || ret[0] != ret[1])
		return false;
	/* The CFA follows one register's move: (i + 1) << 32. */
	cr->cfa_reg = NREGS;
	for (int i = 0; i < NREGS - 1; i++)
		if (cfa[1] - cfa[0] == (uint64_t)(i + 1) << 32)
			cr->cfa_reg = (uint8_t)i;
	if (cr->cfa_reg == NREGS ||
	    (int64_t)(cfa[0] - in[0][cr->cfa_reg]) != (int32_t)(cfa[0] - in[0][cr->cfa_reg]))
		return false;
	cr->cfa_off = (int32_t)(cfa[0] - in[0][cr->cfa_reg]);
	for (int i = 0; i < NREGS; i++) {
		int64_t off[2];

		if (i == DW_RSP)
			continue;
		if (how[0][i] != how[1][i])
			return false;
		if (how[0][i] == CR_SAME)
			continue;
		if (cr->n >= CRULE_MAX)
			return false;
		off[0] = off[1] = 0;
		if (how[0][i] == CR_AT) {
			for (int p = 0; p < 2; p++)
				off[p] = (int64_t)((out[p][i] ^ PROBE_XOR) - cfa[p]);
			if (off[0] != off[1] || off[0] != (int16_t)off[0])
				return false;
		}
		cr->e[cr->n].reg = (uint8_t)i;
		cr->e[cr->n].how = (uint8_t)how[0][i];
		cr->e[cr->n].off = (int16_t)off[0];
		cr->n++;
	}
	/* The check: the rule on probe 0 gives what libunwind gave. */
	{
		struct cregs r;
		uint64_t sip = start, ssp = in[0][DW_RSP];
		int k;

		for (int i = 0; i < NREGS; i++) {
			r.how[i] = CR_SAME;
			r.v[i] = in[0][i];
		}
		u->probing = true;
		k = crule_step(u, cr, &r, &sip, &ssp);
		u->probing = false;
		if (ret[0] == 0)
			return k == 0 && r.v[DW_RSP] == cfa[0];
		if (ssp != cfa[0] || sip != out[0][DW_RA])
			return false;
		/* rbp undefined: step()'s end of the chain, 0 */
		if (k != (how[0][DW_RBP] == CR_UNDEF ? 0 : 1))
			return false;
		/* And every register as libunwind left it. */
		u->probing = true;
		for (int i = 0; i < NREGS && k >= 0; i++) {
			uint64_t v;

			if (i == DW_RSP || i == DW_RA)
				continue;
			if (how[0][i] == CR_UNDEF ? r.how[i] != CR_UNDEF
						  : creg_get(u, &r, i, &v) < 0 ||
						    v != out[0][i])
				k = -1;
		}
		u->probing = false;
		if (k < 0)
			return false;
	}
	return true;
}

/* The rows of one function, as unw_reg_states_iterate() reports them. */
struct learning {
	struct unwinder *u;
	struct rs_row rows[MAX_FDE_ROWS];
	size_t n;
	unsigned char *states; /* n states of u->state_size bytes */
	size_t states_cap;
};

static int
learn_row(void *token, void *state, size_t size, unw_word_t start,
	  unw_word_t end)
{
	struct learning *l = token;
	struct unwinder *u = l->u;

	if (!u->state_size)
		u->state_size = size;
	/* Rows come in order, each after the last. */
	if (size != u->state_size || l->n >= MAX_FDE_ROWS || start >= end ||
	    (l->n > 0 && start < l->rows[l->n - 1].end))
		return -UNW_EINVAL;
	l->states = xgrowarray(l->states, &l->states_cap, l->n + 1, size);
	memcpy(l->states + l->n * size, state, size);
	l->rows[l->n] = (struct rs_row){ .start = start, .end = end,
					 .state = l->n };
	l->n++;
	return 0;
}

/* Adds the rows of the function holding lookup (ip, or ip - 1 for a
 * return address), with c at that frame; the row of lookup, or NULL
 * when it has no CFI or its rows would not fit. */
static const struct rs_row *
row_learn(struct unwinder *u, unw_cursor_t *c, uint64_t lookup)
{
	const struct user_regs_struct *regs = u->regs;
	struct user_regs_struct at = *regs;
	struct learning *l = u->learn;
	const struct rs_row *r = NULL;
	unw_cursor_t fn;
	bool signal;
	size_t i;
	int ret;

	/* A cursor of its own at lookup itself: libunwind looks a frame up
	 * at ip - 1 or ip by state it keeps in the cursor, which the steps
	 * that applied cached rows did not update. */
	if (!l)
		l = u->learn = xcalloc(1, sizeof(*l));
	l->u = u;
	l->n = 0;
	at.rip = lookup;
	u->regs = &at;
	ret = unw_init_remote(&fn, u->as, u);
	if (ret == 0)
		ret = unw_reg_states_iterate(&fn, learn_row, l);
	u->regs = regs;
	if (ret < 0 || l->n == 0 || lookup < l->rows[0].start ||
	    lookup >= l->rows[l->n - 1].end)
		goto out;
	signal = unw_is_signal_frame(c) > 0;
	if (u->nrows + l->n > MAX_ROWS) {
		u->nrows = 0;
		u->nstates = 0;
	}
	/* Functions do not overlap; if two FDEs say otherwise, the first
	 * one learned stays. */
	i = row_index(u, l->rows[0].start);
	if (i < u->nrows && u->rows[i].start < l->rows[l->n - 1].end)
		goto out;
	u->rows = xgrowarray(u->rows, &u->rows_cap, u->nrows + l->n,
			     sizeof(*u->rows));
	u->states = xgrowarray(u->states, &u->states_cap, u->nstates + l->n,
			       u->state_size);
	memmove(&u->rows[i + l->n], &u->rows[i],
		(u->nrows - i) * sizeof(*u->rows));
	memcpy(u->states + u->nstates * u->state_size, l->states,
	       l->n * u->state_size);
	for (size_t k = 0; k < l->n; k++) {
		struct rs_row *row = &u->rows[i + k];

		*row = l->rows[k];
		row->state = u->nstates + k;
		row->signal = signal;
		/* A signal frame's caller is exact: libunwind's to step. */
		row->compiled = !signal &&
				crule_probe(u, l->states + k * u->state_size,
					    row->start, row->end, &row->cr);
		if (row->compiled)
			u->rows_compiled++;
		else
			u->rows_generic++;
	}
	u->nrows += l->n;
	u->nstates += l->n;
	r = row_find(u, lookup);
out:
	return r;
}

/*
 * Steps c to its caller: 1, 0 at the outermost frame, < 0 on error, as
 * unw_step(). lookup is the address whose CFI row applies: the ip of the
 * innermost frame or of one a signal interrupted, else ip - 1 (a return
 * address may be the first byte of the next function). *signal: the
 * frame is a signal trampoline. The end of the chain is marked as the
 * x86-64 ABI says and unw_step() sees it: an undefined return address
 * or rbp.
 */
static int
step(struct unwinder *u, unw_cursor_t *c, uint64_t lookup, bool *signal)
{
	const struct rs_row *r = row_find(u, lookup);
	unw_save_loc_t sl;
	int ret;

	if (!r)
		r = row_learn(u, c, lookup);
	if (!r) {
		*signal = false;
		return unw_step(c);
	}
	*signal = r->signal;
	ret = unw_apply_reg_state(c, u->states + r->state * u->state_size);
	if (ret <= 0)
		return ret;
	if (unw_get_save_loc(c, UNW_X86_64_RBP, &sl) == 0 &&
	    sl.type == UNW_SLT_NONE)
		return 0;
	return 1;
}

struct unwinder *
unwind_create(pid_t pid, struct mem *mem, struct symtab *st)
{
	unw_accessors_t acc = accessors;
	struct unwinder *u;
	const char *gen;

	if (!mem || !st) {
		errno = EINVAL;
		return NULL;
	}
	u = xcalloc(1, sizeof(*u));
	u->pid = pid;
	u->mem = mem;
	u->st = st;
	u->generation = symtab_generation(st);
	u->as = unw_create_addr_space(&acc, 0);
	if (!u->as) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	gen = getenv("RBFLAME_UNWIND_CHECK");
	u->check = gen && *gen && strcmp(gen, "0") != 0;
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	/* Refused by builds with per-thread caches; the default is fine. */
	unw_set_cache_size(u->as, RS_CACHE_SIZE, 0);
	return u;
}

/* Is addr in an executable file mapping (or the vDSO), or in JIT code
 * (a caller of a C function called from YJIT's code)? A return address
 * anywhere else is garbage from a wrong guess. JIT code has no unwind
 * info: libunwind's step out of it guesses by the frame pointer, and
 * the checks of unwind_stack() end the walk where the guess is wrong. */
static bool
executable(struct unwinder *u, uint64_t addr)
{
	struct symtab_module m;

	/* Most callers are in the module of their callee. */
	if (addr >= u->exec_lo && addr < u->exec_hi)
		return true;
	if (symtab_module(u->st, addr, &m) == 0) {
		if (!(m.prot & PROT_EXEC))
			return false;
		u->exec_lo = m.start;
		u->exec_hi = m.end;
		return true;
	}
	return symtab_is_jit(u->st, addr);
}

/*
 * One step by libunwind from a cursor made at this frame: what a
 * compiled row cannot say, or a function not learned yet (step() learns
 * it). The cursor starts at ip itself, so that libunwind's checks of the
 * code there (a signal trampoline) see the frame as its own cursor
 * would; its lookups are at lookup (row_find() and row_learn()), but for
 * unw_step()'s guess in code without CFI, which looks at ip.
 */
static int
generic_step(struct unwinder *u, struct cregs *r, uint64_t lookup,
	     uint64_t *ip, uint64_t *sp, bool *exact)
{
	const struct user_regs_struct *saved = u->regs;
	struct user_regs_struct at;
	unw_cursor_t c;
	int ret;

	cregs_to_user(u, r, &at);
	at.rip = *ip;
	at.rsp = *sp;
	u->regs = &at;
	ret = unw_init_remote(&c, u->as, u);
	if (ret == 0)
		ret = step(u, &c, lookup, exact);
	if (ret > 0) {
		cregs_from_cursor(r, &c);
		if (r->how[DW_RA] != CR_SAME || r->how[DW_RSP] != CR_SAME)
			ret = -1;
		*ip = r->v[DW_RA];
		*sp = r->v[DW_RSP];
	}
	u->regs = saved;
	u->generic_steps++;
	return ret;
}

/* The walk from regs: compiled rows where they are (compiled), else
 * libunwind for every frame. */
static int
walk(struct unwinder *u, const struct user_regs_struct *regs, uint64_t *ips,
     int max, bool compiled)
{
	uint64_t ip, sp, prev_sp = 0;
	struct cregs r;
	bool exact = true; /* ip is no return address */
	int n = 0;

	for (int i = 0; i < NREGS; i++) {
		memcpy(&r.v[i], (const char *)regs + reg_offset[i],
		       sizeof(r.v[i]));
		r.how[i] = CR_SAME;
	}
	/* Valid for one walk: the maps may change between two. */
	u->exec_lo = u->exec_hi = 0;
	ip = regs->rip;
	sp = regs->rsp;
	for (;;) {
		uint64_t lookup;
		const struct rs_row *row;
		int ret;

		if (ip == 0)
			break;
		/* Each caller's frame is above its callee's: anything else
		 * is a loop or garbage (this also ends the walk at a signal
		 * frame on an alternate stack below). */
		if (n > 0 && (sp <= prev_sp || !executable(u, ip - 1)))
			break;
		ips[n++] = ip;
		prev_sp = sp;
		if (n >= max)
			break;
		lookup = exact ? ip : ip - 1;
		row = row_find(u, lookup);
		if (row && row->compiled && compiled) {
			ret = crule_step(u, &row->cr, &r, &ip, &sp);
			exact = false;
			u->compiled_steps++;
		} else {
			ret = generic_step(u, &r, lookup, &ip, &sp, &exact);
		}
		if (ret <= 0)
			break;
	}
	if (n == 0) {
		ips[0] = regs->rip;
		n = 1;
	}
	return n;
}

int
unwind_stack(struct unwinder *u, pid_t tid UNUSED,
	     const struct user_regs_struct *regs, uint64_t *ips, int max)
{
	uint64_t other[UNWIND_GUESS_FRAMES];
	int n, k;

	if (!u || !regs || !ips || max <= 0) {
		errno = EINVAL;
		return -1;
	}
	if (regs->rip == 0)
		return 0;
	if (symtab_generation(u->st) != u->generation) {
		/* Maps changed: code at a cached ip may be another now. */
		clear_modules(u);
		unw_flush_cache(u->as, 0, 0);
		u->generation = symtab_generation(u->st);
	}
	n = walk(u, regs, ips, max, true);
	if (!u->check)
		return n;
	/* RBFLAME_UNWIND_CHECK: every walk again by libunwind alone, from
	 * the same memory (the thread is still held). */
	k = walk(u, regs, other, max < UNWIND_GUESS_FRAMES ? max
						    : UNWIND_GUESS_FRAMES,
		 false);
	u->check_walks++;
	if (k != (n < UNWIND_GUESS_FRAMES ? n : UNWIND_GUESS_FRAMES) ||
	    memcmp(ips, other, (size_t)k * sizeof(*ips)) != 0) {
		int i = 0;

		while (i < n && i < k && ips[i] == other[i])
			i++;
		if (u->check_mismatches++ < 8)
			debug_msg("unwind check: walks differ at frame %d: "
				  "%#" PRIx64 " (%d frames) against "
				  "libunwind's %#" PRIx64 " (%d)",
				  i, i < n ? ips[i] : 0, n,
				  i < k ? other[i] : 0, k);
	}
	return n;
}

int
unwind_stack_blocked(struct unwinder *u, pid_t tid, uint64_t sp, uint64_t pc,
		     uint64_t *ips, int max)
{
	struct user_regs_struct regs;
	uint64_t words[BLOCKED_SCAN_WORDS], best[UNWIND_GUESS_FRAMES];
	int n, nbest;

	memset(&regs, 0, sizeof(regs));
	regs.rip = pc;
	regs.rsp = sp;
	n = unwind_stack(u, tid, &regs, ips, max);
	if (n < 0)
		return n;
	/* Frames whose CFA is the frame pointer need rbp, which only a
	 * stopped thread would give. Guess it: a slot above sp holding a
	 * saved frame pointer (0 or higher on the stack) followed by a
	 * return address into code; then (pass 1) a slot followed by a
	 * return address whatever it holds: a frame-pointer function called
	 * from code that keeps no frame pointer (a C extension's function
	 * called by libruby) saved its caller's rbp, which is any value.
	 * A genuine return address gives a true tail of the stack, so the
	 * longest walk wins. */
	if (mem_read(u->mem, sp, words, sizeof(words)) < 0)
		return n;
	nbest = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0, tries = 0;
		     i + 1 < BLOCKED_SCAN_WORDS && tries < 8; i++) {
			uint64_t slot = sp + 8 * i, saved = words[i];
			bool framed = saved == 0 || (saved > slot &&
						     saved - slot <= (8u << 20));
			int k, cap = UNWIND_GUESS_FRAMES < max
					     ? UNWIND_GUESS_FRAMES
					     : max;

			if (framed != (pass == 0) ||
			    !executable(u, words[i + 1]))
				continue;
			tries++;
			regs.rbp = slot;
			k = unwind_stack(u, tid, &regs, best, cap);
			if (k > n && k > nbest) {
				nbest = k;
				memcpy(ips, best, k * sizeof(*ips));
			}
		}
	}
	return nbest > n ? nbest : n;
}

int
unwind_function_bounds(struct unwinder *u, uint64_t ip, uint64_t *start,
		       uint64_t *end)
{
	struct umod *m = module_for(u, ip);
	unw_proc_info_t pi;

	memset(&pi, 0, sizeof(pi));
	/* Without unwind info the search only reads the table and the
	 * FDE's range: no allocation, nothing to put back. */
	if (!m || !m->ok ||
	    dwarf_search_unwind_table(u->as, ip, &m->di, &pi, 0, u) < 0 ||
	    pi.start_ip >= pi.end_ip || ip < pi.start_ip || ip >= pi.end_ip) {
		errno = ENOENT;
		return -1;
	}
	*start = pi.start_ip;
	*end = pi.end_ip;
	return 0;
}

void
unwind_destroy(struct unwinder *u)
{
	if (!u)
		return;
	debug_msg("unwind: %" PRIu64 " steps by compiled rows, %" PRIu64
		  " by libunwind; rows compiled %" PRIu64 ", not %" PRIu64,
		  u->compiled_steps, u->generic_steps, u->rows_compiled,
		  u->rows_generic);
	if (u->check)
		debug_msg("unwind check: %" PRIu64 " walks done both ways, %"
			  PRIu64 " differ", u->check_walks,
			  u->check_mismatches);
	clear_modules(u);
	free(u->mods);
	free(u->rows);
	if (u->learn)
		free(u->learn->states);
	free(u->learn);
	free(u->states);
	unw_destroy_addr_space(u->as);
	free(u);
}
