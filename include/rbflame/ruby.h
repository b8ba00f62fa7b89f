/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * The Ruby reader: finds a CRuby VM inside a process and reads the Ruby
 * stack of every thread of its main ractor straight from memory, through
 * a struct mem (a live process or a captured snapshot) and a generated
 * struct ruby_layout. It never calls ptrace: the caller decides what is
 * stopped while it reads.
 *
 * Frame text follows one convention on every Ruby version (Ruby 3.4's
 * backtrace labels: "A#m", "A.s", "block in A#m", "<main>", C functions
 * as "Integer#times"), with the file and the line executing in that frame.
 */
#ifndef RBFLAME_RUBY_H
#define RBFLAME_RUBY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rbflame/ruby_layout.h"

struct mem;
struct symtab;

#define RUBY_MAX_FRAMES 2048
#define RUBY_MAX_THREADS 1024

/** What discovery found in a process: enough to read it, even offline. */
struct ruby_vm {
	const struct ruby_layout *layout;	/* the one read with */
	/* The candidates: the generated layout of this version and the one
	 * from the target's DWARF (static storage in vm.c, valid until the
	 * next ruby_vm_find() of another file); NULL when there is none. */
	const struct ruby_layout *generated;
	const struct ruby_layout *dwarf;
	/* generated is the layout of this very release, not the nearest
	 * release's (ruby_layout_find()) */
	bool generated_exact;
	char dwarf_note[512];	/* why dwarf is NULL, "" when it is not */
	char version[32];	/* "3.1.2", from ruby_version */
	char description[160];	/* ruby_description, when readable */
	uint64_t vm;		/* rb_vm_t * */
	uint64_t symbols;	/* rb_symbols_t (ruby_global_symbols), 0 unknown */
	bool vm_from_export;	/* ruby_current_vm_ptr was exported */
	/* Where glibc's struct pthread keeps the kernel's tid (glibc's
	 * _thread_db_pthread_tid), checked against the main thread; 0 when
	 * unknown. Every version keeps the pthread_t of its threads: the
	 * reader takes tids from there, where the kernel writes them. */
	uint32_t pthread_tid_off;
	/* M:N threads (3.3+, RUBY_MN_THREADS=1 in the environment the
	 * process started with): every thread but the main one runs on
	 * whichever shared native thread the scheduler gives it, and on
	 * none while it waits, so its tid is no identity. Live processes
	 * only: false offline. */
	bool mn_threads;
};

/**
 * Finds the Ruby VM of process pid. -1 with errno: ENOENT when the
 * process is not Ruby (no libruby, no ruby_version), ENOTSUP when the
 * version has no layout (vm->version says which, vm->dwarf_note why the
 * DWARF gave none), EAGAIN when Ruby is there but its VM is not (not
 * started yet, or not found), EIO when the Ruby file cannot be read.
 *
 * The layout: the one built from the Ruby file's DWARF (the file's own,
 * or its separate debug file) when there is DWARF, else the generated one
 * of that version. DWARF wins; when both exist and disagree, a warning
 * names the first field that differs. force_version ("X.Y" or "X.Y.Z",
 * NULL for none) reads the process with that version's generated layout
 * whatever ruby_version says (the caller warns).
 *
 * For tests: RBFLAME_LAYOUT=dwarf requires the DWARF layout (ENOTSUP
 * without it), RBFLAME_LAYOUT=generated never looks for DWARF;
 * RBFLAME_NO_VM_EXPORT=1 ignores ruby_current_vm_ptr and forces the
 * structural search; RBFLAME_NO_LAYOUT=X.Y[.Z] acts as if the generated
 * layouts of those releases did not exist (ruby_layout_find_hiding()):
 * X.Y.Z, a release read with the nearest one; X.Y, an unsupported one.
 */
int ruby_vm_find(pid_t pid, struct mem *mem, struct symtab *st,
		 const char *force_version, struct ruby_vm *vm);

/** Where a structural search stands between ruby_vm_find_step() calls:
 * zero it to start, set budget_ns. */
struct ruby_vm_search {
	uint64_t budget_ns;	/* scan time one call may take; 0: no limit */
	uint64_t vm;		/* the VM, once found */
	uint64_t vm_at[2];	/* where the VM scan goes on: region, word */
	uint64_t symbols_at[2];	/* the same for the symbol table's */
	uint64_t symbols_wait_ns; /* how long a VM found with no symbol
				 * table fails with EAGAIN before it is
				 * taken without one (0: at once) */
	uint64_t symbols_missed_ns; /* when that was first so */
};

/**
 * ruby_vm_find() in slices: a structural search (the target's data can
 * be large and full of pointers: 8 MiB took 1.9 s) stops after
 * srch->budget_ns and fails with EINPROGRESS; the next call goes on
 * where it stopped. The caller serves the target (its signals) between
 * calls. EAGAIN still means a full pass found no VM, or (for at most
 * srch->symbols_wait_ns) a VM whose symbol table is not there yet.
 */
int ruby_vm_find_step(pid_t pid, struct mem *mem, struct symtab *st,
		      const char *force_version, struct ruby_vm_search *srch,
		      struct ruby_vm *vm);

/**
 * The one-line message for a process whose Ruby cannot be read
 * (ruby_vm_find() failed with ENOTSUP): the version found, the versions
 * with a built-in layout, why there is no DWARF layout and what to do.
 */
void ruby_vm_unsupported_msg(const struct ruby_vm *vm, pid_t pid, char *buf,
			     size_t cap);

#define RUBY_MAX_LOCALS 32	/* locals rendered per frame */
#define RUBY_LOCAL_TEXT 300	/* bytes of one rendered value, NUL included */
#define RUBY_LOCAL_STRING 64	/* bytes of a String shown */
#define RUBY_MAX_LOCALS_FRAMES 2048 /* frames whose locals one read keeps */

/** A local variable or argument of a frame (ruby_reader_set_locals()). */
struct ruby_local {
	const char *name;	/* from the iseq's local table; "?" unknown */
	/* The value rendered as printable ASCII (every other byte as \xNN):
	 * nil, true, false, 42, 1.5, :sym, "text" (N bytes), with "..."
	 * before the closing quote when cut at RUBY_LOCAL_STRING bytes,
	 * #<Array size=N>, #<Hash size=N>, #<Integer> for a bignum,
	 * #<ClassName>; "?" when it cannot be read. */
	char value[RUBY_LOCAL_TEXT];
};

/** What a Ruby frame holds. Owned by the reader, valid until its next
 * ruby_read_stacks() or ruby_reader_destroy(). */
struct ruby_locals {
	char self[RUBY_LOCAL_TEXT];	/* the frame's self, rendered */
	/* The values may be older than what the code holds: the frame is
	 * the GVL holder's (its values may be in registers when it
	 * stopped) or runs YJIT code. */
	bool stale;
	/* locals in the frame's table; -1 unreadable; -2 not read, over
	 * RUBY_MAX_LOCALS_FRAMES frames in this read */
	int total;
	int n;				/* rendered in v[], <= RUBY_MAX_LOCALS */
	struct ruby_local v[RUBY_MAX_LOCALS];
};

/** One frame, innermost first in a stack. Strings are owned by the reader. */
struct ruby_frame {
	const char *label;	/* "A#m", "block in A#m", "Integer#times" */
	const char *path;	/* absolute path; the caller's for C frames;
				 * NULL for the "[truncated]" marker root */
	int line;		/* line executing; the caller's for C frames */
	int first_line;		/* the method's first line (the caller's for
				 * C frames) */
	bool cfunc;
	uint64_t cfunc_addr;	/* C frames: the entry of the C function the
				 * method runs (its definition's
				 * body.cfunc.func, through aliases), 0 when
				 * not known */
	/* Ruby frames, when the reader reads locals: what the frame
	 * holds; NULL otherwise */
	const struct ruby_locals *locals;
};

/* Why a thread is where it is, as far as the VM can tell. */
enum ruby_state {
	RUBY_STATE_RUNNING,	/* holds the GVL, runs Ruby or C code */
	RUBY_STATE_GC_MARKING,	/* holds the GVL, the GC is marking */
	RUBY_STATE_GC_SWEEPING,	/* holds the GVL, the GC is sweeping */
	RUBY_STATE_GC,		/* holds the GVL, in GC (compacting, other) */
	RUBY_STATE_WAITING_GVL,	/* runnable, waiting for the GVL */
	RUBY_STATE_NO_GVL,	/* released the GVL: sleep, IO, mutex, queue,
				 * or a C extension's work without the GVL
				 * (the kernel's state tells these apart) */
};

struct ruby_stack {
	uint64_t thread;	/* rb_thread_t * */
	pid_t tid;		/* kernel thread id as rbflame sees it (see
				 * ruby_reader_create()), 0 if unknown */
	bool gone;		/* the process has no such thread (tid 0): it
				 * exited, or was left behind by a fork */
	char name[64];		/* Thread#name, "main" for the main thread */
	bool main;		/* the VM's main thread */
	bool gvl;		/* this thread holds the GVL */
	int status;		/* the VM's thread status value */
	enum ruby_state state;
	uint64_t cfp;		/* ec->cfp when read: moves with every call
				 * and return, a marker of change */
	uint64_t sets;		/* the reader's string_sets when its frames
				 * were read: their labels are valid while
				 * that stays (see ruby_reader_set_same()) */
	bool reused;		/* frames copied from the unchanged stack
				 * ruby_reader_set_same()'s hook gave */
	int nframes;
	struct ruby_frame frames[RUBY_MAX_FRAMES];
};

struct ruby_reader;

/**
 * A reader of the VM vm through mem. pid is the live process mem reads, or
 * 0 offline (a snapshot). Thread ids are the kernel's: from glibc's struct
 * pthread, which the kernel writes at thread start and in a forked child
 * (Ruby's own copy is stale there before 3.3), else from the VM's field.
 * With a pid they are mapped to rbflame's PID namespace when the process
 * lives in another (a container); offline they are as the process saw
 * them. ruby_reader_destroy() frees.
 */
struct ruby_reader *ruby_reader_create(const struct ruby_vm *vm,
				       struct mem *mem, pid_t pid);
void ruby_reader_destroy(struct ruby_reader *r);

/**
 * Whether ruby_read_stacks() also reads the locals of every Ruby frame
 * (ruby_frame.locals): off by default, for "rbflame dump --locals". Every
 * read of a value is bounded and may fail (a "?"), never the stack.
 */
void ruby_reader_set_locals(struct ruby_reader *r, bool on);

/**
 * Whether a Ruby frame that fails its checks cuts the stack instead of
 * failing it: off by default; on for reads without a stop
 * (--nonblocking), where such a frame was popped while the stack was
 * read. The frames under it are kept, under a "[torn]" marker leaf.
 */
void ruby_reader_set_cut_torn(struct ruby_reader *r, bool on);

/**
 * Whether the reads that follow run with the target running (no GVL
 * holder stopped): frames they resolve are cached unconfirmed, trusted
 * only once resolved alike again or in a stopped read. Off by default.
 */
void ruby_reader_set_unstopped(struct ruby_reader *r, bool on);

/**
 * The stack of a thread that cannot have changed since it was last read:
 * asked with st's thread, tid and state filled in, before its frames are
 * read; returns a stack of the same thread read before (whose frames
 * are then copied, if their labels are still valid: same sets), or NULL
 * to read them. A thread that has not run since its last read cannot
 * have changed its own stack, and no other thread writes it.
 */
typedef const struct ruby_stack *(*ruby_same_stack_fn)(
	void *ctx, const struct ruby_stack *st);
void ruby_reader_set_same(struct ruby_reader *r, ruby_same_stack_fn fn,
			  void *ctx);

/**
 * The threads (rb_thread_t addresses) the next ruby_read_stacks() will
 * read rather than copy (the hook above will not vouch for them): it
 * fetches their control frames and values ahead, a few system calls for
 * all of them (RUBY_FRESH_MAX at most). Used by that read alone.
 */
#define RUBY_FRESH_MAX 64
void ruby_reader_set_fresh(struct ruby_reader *r, const uint64_t *threads,
			   size_t n);

/** The "[torn]" marker's label (interned: a stack ends in it when its
 * frames[0].label is this pointer). */
const char *ruby_reader_torn(struct ruby_reader *r);

/** The name of a state as data: "running", "gc_marking", "gc_sweeping",
 * "gc", "waiting_gvl", "no_gvl". */
const char *ruby_state_name(enum ruby_state s);

/**
 * The kernel tid of the thread holding the GVL, 0 when none holds it;
 * -1 when the VM could not be read.
 */
int ruby_gvl_holder(struct ruby_reader *r, pid_t *tid);

/**
 * Whether a thread owns the GVL, by the owner field alone (one line read
 * once the thread list was walked; the holder's thread is not looked
 * up): 1 owned, 0 free, -1 unreadable.
 */
int ruby_gvl_owned(struct ruby_reader *r);

/**
 * Reads every thread of the main ractor into out[0..max). Returns the
 * number of threads, or -1 when the thread list itself is unreadable. A
 * thread whose frames cannot be read gets nframes = -1 (a dropped sample).
 */
int ruby_read_stacks(struct ruby_reader *r, struct ruby_stack *out, int max);

/*
 * The plausibility of the fields no attach-time cross-check can confirm:
 * a layout that reads a Ruby release it was not made from (the nearest
 * release's, or a DWARF one gone wrong) can put the GC's phase bits or a
 * thread's status on a word that means something else. Such a field is
 * checked against what it must look like, and dropped when it does not:
 * the samples then say less (no GC state; waiting and blocked told apart
 * by the kernel alone), never something false.
 */
enum ruby_check {
	RUBY_CHECK_ABSENT = 0,	/* the layout has no such field */
	RUBY_CHECK_PENDING,	/* not read yet */
	RUBY_CHECK_PASSED,	/* plausible so far */
	RUBY_CHECK_DROPPED,	/* implausible: no longer used */
};

struct ruby_checks {
	enum ruby_check gc;	/* vm->objspace: phase bits, GC count */
	enum ruby_check status;	/* rb_thread_t.status */
	char gc_why[160];	/* what was seen: "mode 3, count 12" */
	char status_why[160];
};

/**
 * The checks so far (they run as the reader reads; see ruby_check). A
 * field dropped is said once through error.c, as a warning.
 */
const struct ruby_checks *ruby_reader_checks(const struct ruby_reader *r);

/** The name of a check's result: "absent", "pending", "passed", "dropped". */
const char *ruby_check_name(enum ruby_check c);

/** Counters for the summary line. */
/* Labels and paths a reader keeps before it lets them go and starts
 * anew (about 70 bytes each: 4.5 MiB). */
#define RUBY_READER_STRINGS_MAX (1u << 16)

struct ruby_reader_stats {
	uint64_t bad_frames;	/* frames that failed validation */
	uint64_t bad_stacks;	/* stacks dropped */
	uint64_t leaf_transit;	/* leaf frames left out, being pushed or
				 * popped (the stack is its caller's) */
	uint64_t frames_by_epoch; /* frames served by the GC's count,
				   * unchecked (struct frame_slot) */
	uint64_t frames_by_major; /* ... of them, by the count of major
				   * GCs alone (an old iseq or method
				   * entry, minor GCs since) */
	uint64_t names_unread;	/* frames dropped as their owner's name
				 * could not be read whole */
	uint64_t types_kept;	/* types of the objects frames' eps name,
				 * served unread (struct type_slot) */
	uint64_t threads_by_walk; /* threads taken whole from the last
				   * walk of the list, nothing read */
	uint64_t walk_refreshes; /* threads whose tid and name were read
				  * again, WALK_REUSE_MAX walks taken */
	uint64_t string_sets;	/* times the labels and paths kept were
				 * let go (at RUBY_READER_STRINGS_MAX) */
};
const struct ruby_reader_stats *ruby_reader_stats(const struct ruby_reader *r);

#endif
