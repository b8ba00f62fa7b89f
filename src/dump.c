// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * "rbflame dump": one look at every Ruby thread of a process. A dedicated
 * tracer thread seizes the target, finds its VM, stops every thread, reads
 * the stacks, resumes and releases them, and exits, which detaches (the
 * same lifecycle as a profiling run, src/run.c). The main thread then
 * prints, and with --snapshot saves the memory that was read, so nothing
 * slow happens while the target is stopped. --from-snapshot prints the
 * stacks held in a snapshot, with no process involved.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rbflame/diagnose.h"
#include "rbflame/dump.h"
#include "rbflame/error.h"
#include "rbflame/json.h"
#include "rbflame/mem.h"
#include "rbflame/options.h"
#include "rbflame/proc.h"
#include "rbflame/ruby.h"
#include "rbflame/ruby_vm_meta.h"
#include "rbflame/schedule.h"
#include "rbflame/snapshot.h"
#include "rbflame/utf8.h"
#include "rbflame/symtab.h"
#include "rbflame/target.h"
#include "rbflame/xmalloc.h"

/* How long all threads together may take to reach their stop. */
#define STOP_TIMEOUT_NS (2ull * 1000000000ull)
#define MAPS_MAX (16u << 20)

static const char dump_help[] =
"Usage: rbflame dump -p PID [--locals] [--json] [--snapshot FILE | --layout]\n"
"       rbflame dump --from-snapshot FILE [--locals] [--json]\n"
"Print the Ruby stack of every thread of a process once, root frame first.\n"
"\n"
"Target:\n"
"  -p, --pid PID            read the running Ruby process PID (its threads\n"
"                           are stopped for the time of one read)\n"
"      --from-snapshot FILE read a snapshot saved by --snapshot instead of\n"
"                           a process\n"
"\n"
"Output:\n"
"      --snapshot FILE      also save the memory that was read, the maps\n"
"                           and the registers to FILE, for bug reports and\n"
"                           tests (it holds process memory: keep it private)\n"
"      --locals             under each Ruby frame, its self, arguments and\n"
"                           local variables (at most 32, Strings cut at 64\n"
"                           bytes; '?' for what cannot be read)\n"
"      --json               print the dump as one JSON document (see\n"
"                           doc/dump-json.md)\n"
"      --layout             print the Ruby layout instead of the stacks: one\n"
"                           'FIELD DWARF BUILT-IN' line per field of struct\n"
"                           ruby_layout, from the target's DWARF and from\n"
"                           rbflame's built-in layout of its version ('-'\n"
"                           where there is none)\n"
"\n"
"Other:\n"
"  -h, --help               show this help and exit\n"
"\n"
"Each thread prints as 'thread TID \"NAME\"' (plus ' gvl' for the thread\n"
"holding the GVL), then one '  LABEL (PATH:LINE)' line per frame; with\n"
"--locals, '    self = VALUE' and '    NAME = VALUE' lines under it.\n"
"Exit status: 0 on success, 1 on a runtime failure, 2 on a usage error.\n";

enum {
	OPT_SNAPSHOT = 0x100,
	OPT_FROM_SNAPSHOT,
	OPT_LAYOUT,
	OPT_LOCALS,
	OPT_JSON,
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "snapshot", required_argument, NULL, OPT_SNAPSHOT },
	{ "from-snapshot", required_argument, NULL, OPT_FROM_SNAPSHOT },
	{ "layout", no_argument, NULL, OPT_LAYOUT },
	{ "locals", no_argument, NULL, OPT_LOCALS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Where the tracer thread gave up. */
enum dump_stage {
	STAGE_OK,
	STAGE_INIT,		/* target_init */
	STAGE_ATTACH,		/* target_attach */
	STAGE_MAPS,		/* symtab_create */
	STAGE_VM,		/* ruby_vm_find */
	STAGE_READ,		/* ruby_reader_create, ruby_read_stacks */
};

struct dump_ctx {
	pid_t pid;
	bool record;
	bool locals;
	sigset_t wait_mask;
	/* results of the tracer thread, valid after the join */
	enum dump_stage stage;
	int err;
	struct mem *live;
	struct mem *mem;	/* live, or the recorder wrapping it */
	struct ruby_vm vm;
	struct ruby_reader *reader;
	struct ruby_stack *stacks;
	int nstacks;
	struct snapshot_meta meta;	/* maps and regs, when recording */
};

static volatile sig_atomic_t stop_flag;

static void
on_stop_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* Prints untrusted text from the target, escaped (utf8_escape()). */
static void
put_clean(const char *s)
{
	utf8_put_escaped(stdout, s ? s : "?", 0);
}

/* The layouts of a process side by side, for tests and bug reports:
 * which one reads it, and what the plausibility checks of the fields no
 * cross-check confirms said while its stacks were read. */
static void
print_layouts(const struct ruby_vm *vm, pid_t pid,
	      const struct ruby_checks *ck)
{
	char a[288], b[288];

	fputs("# Ruby ", stdout);
	put_clean(vm->version);
	printf(" in process %d, read with the %s layout\n", (int)pid,
	       vm->layout == vm->dwarf ? "DWARF" : "built-in");
	if (vm->generated)
		printf("# built-in layout: %s (%s), %s\n",
		       vm->generated->version, vm->generated->source,
		       vm->generated_exact
			       ? "this release's own"
			       : "the nearest release's: none of its own");
	else {
		fputs("# built-in layout: none for Ruby ", stdout);
		put_clean(vm->version);
		putchar('\n');
	}
	if (!vm->dwarf) {
		fputs("# no DWARF layout: ", stdout);
		put_clean(vm->dwarf_note);
		putchar('\n');
	}
	printf("# check gc: %s%s%s\n", ruby_check_name(ck->gc),
	       ck->gc_why[0] ? ", " : "", ck->gc_why);
	printf("# check status: %s%s%s\n", ruby_check_name(ck->status),
	       ck->status_why[0] ? ", " : "", ck->status_why);
	printf("# field dwarf built-in\n");
	for (const struct ruby_layout_field *f = ruby_layout_fields; f->name;
	     f++) {
		ruby_layout_format(vm->dwarf, f, a, sizeof(a));
		ruby_layout_format(vm->generated, f, b, sizeof(b));
		printf("%s %s %s\n", f->name, a, b);
	}
}

/* What the dump prints besides the stacks. */
struct dump_what {
	bool locals;
	bool json;
};

static void
print_locals(const struct ruby_locals *lo)
{
	fputs("    self = ", stdout);
	fputs(lo->self, stdout);	/* printable ASCII (ruby_local) */
	putchar('\n');
	if (lo->stale)
		puts("    (values may be stale: JIT code or the running thread may hold newer ones in registers)");
	if (lo->total == -2) {
		printf("    (locals not read: over %d frames)\n",
		       RUBY_MAX_LOCALS_FRAMES);
		return;
	}
	if (lo->total < 0) {
		puts("    ? (the local table cannot be read)");
		return;
	}
	for (int i = 0; i < lo->n; i++) {
		fputs("    ", stdout);
		put_clean(lo->v[i].name);
		fputs(" = ", stdout);
		fputs(lo->v[i].value, stdout);
		putchar('\n');
	}
	if (lo->total > lo->n)
		printf("    (%d more locals)\n", lo->total - lo->n);
}

/*
 * Under M:N (ruby_vm.mn_threads) the number of each thread but the main
 * one, in the VM's order as a profile numbers them (sample_ruby_tid());
 * 0 for a thread that keeps its tid.
 */
static void
mn_numbers(const struct ruby_stack *stacks, int n, bool mn, int *num)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		num[i] = mn && !stacks[i].main ? ++k : 0;
}

static void
print_stacks(const struct ruby_stack *stacks, int n, bool mn)
{
	int *num = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*num));

	mn_numbers(stacks, n, mn, num);
	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &stacks[i];

		if (i > 0)
			putchar('\n');
		if (num[i])
			printf("thread mn%d \"", num[i]);
		else
			printf("thread %d \"", (int)st->tid);
		put_clean(st->name);
		putchar('"');
		/* An M:N thread's native thread of the moment, if any. */
		if (num[i] && st->tid > 0)
			printf(" on %d", (int)st->tid);
		printf("%s\n", st->gvl ? " gvl" : "");
		if (st->nframes < 0) {
			puts("  (unreadable)");
			continue;
		}
		/* Root first, leaf last. */
		for (int f = st->nframes - 1; f >= 0; f--) {
			const struct ruby_frame *fr = &st->frames[f];

			fputs("  ", stdout);
			put_clean(fr->label);
			if (!fr->path) {	/* the "[truncated]" marker */
				putchar('\n');
				continue;
			}
			fputs(" (", stdout);
			put_clean(fr->path);
			printf(":%d)\n", fr->line);
			if (fr->locals)
				print_locals(fr->locals);
		}
	}
	free(num);
}

static void
json_locals(struct json *j, const struct ruby_locals *lo)
{
	json_key(j, "self");
	json_string(j, lo->self);
	json_key(j, "stale");
	json_bool(j, lo->stale);
	json_key(j, "locals_total");
	if (lo->total < 0)
		json_null(j);
	else
		json_int(j, lo->total);
	json_key(j, "locals");
	json_array_begin(j);
	for (int i = 0; i < lo->n; i++) {
		json_object_begin(j);
		json_key(j, "name");
		json_string(j, lo->v[i].name);
		json_key(j, "value");
		json_string(j, lo->v[i].value);
		json_object_end(j);
	}
	json_array_end(j);
}

/* The dump as one JSON document: doc/dump-json.md. */
static void
print_json(pid_t pid, const char *version, const struct ruby_stack *stacks,
	   int n, bool locals, bool mn)
{
	int *num = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*num));
	struct json j;

	mn_numbers(stacks, n, mn, num);

	json_init(&j, stdout);
	json_object_begin(&j);
	json_key(&j, "format");
	json_string(&j, "rbflame-dump");
	json_key(&j, "version");
	json_int(&j, 1);
	json_key(&j, "pid");
	json_int(&j, pid);
	json_key(&j, "ruby_version");
	json_string(&j, version);
	json_key(&j, "locals");
	json_bool(&j, locals);
	json_key(&j, "threads");
	json_array_begin(&j);
	for (int i = 0; i < n; i++) {
		const struct ruby_stack *st = &stacks[i];

		json_object_begin(&j);
		json_key(&j, "tid");
		json_int(&j, st->tid);
		if (num[i]) {
			json_key(&j, "mn");
			json_int(&j, num[i]);
		}
		json_key(&j, "name");
		json_string(&j, st->name);
		json_key(&j, "gvl");
		json_bool(&j, st->gvl);
		json_key(&j, "state");
		json_string(&j, ruby_state_name(st->state));
		json_key(&j, "readable");
		json_bool(&j, st->nframes >= 0);
		json_key(&j, "frames");
		json_array_begin(&j);
		/* Root first, leaf last, as the text prints them. */
		for (int f = st->nframes - 1; f >= 0; f--) {
			const struct ruby_frame *fr = &st->frames[f];

			json_object_begin(&j);
			json_key(&j, "label");
			json_string(&j, fr->label);
			json_key(&j, "path");
			if (fr->path)
				json_string(&j, fr->path);
			else
				json_null(&j);
			json_key(&j, "line");
			json_int(&j, fr->line);
			json_key(&j, "cfunc");
			json_bool(&j, fr->cfunc);
			if (fr->locals)
				json_locals(&j, fr->locals);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	putchar('\n');
	free(num);
}

static void
print_dump(pid_t pid, const struct ruby_vm *vm,
	   const struct ruby_stack *stacks, int n, const struct dump_what *w)
{
	if (w->json)
		print_json(pid, vm->version, stacks, n, w->locals,
			   vm->mn_threads);
	else
		print_stacks(stacks, n, vm->mn_threads);
}

/* The text of /proc/PID/maps, NULL when unreadable. */
static char *
read_maps_text(pid_t pid)
{
	char path[64];
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_dir, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		text = xgrowarray(text, &cap, len + 4096 + 1, 1);
		n = fread(text + len, 1, 4096, f);
		len += n;
		if (n == 0 || len > MAPS_MAX)
			break;
	}
	fclose(f);
	if (len > MAPS_MAX)
		len = MAPS_MAX;
	text[len] = '\0';
	return text;
}

/*
 * Stops every running thread and keeps the registers of those that
 * stopped. A thread in a group stop stays as it is: it runs no code.
 */
static void
stop_all(struct dump_ctx *c, struct target *t)
{
	size_t n = t->nthreads;
	uint64_t deadline = now_ns() + STOP_TIMEOUT_NS;
	struct target_thread *th;

	for (th = target_thread_next(t, NULL); th;
	     th = target_thread_next(t, th))
		if (th->state == TS_RUNNING && target_interrupt(t, th) < 0)
			debug_msg("interrupt %d: %s", (int)th->tid,
				  strerror(errno));
	c->meta.regs = xcalloc(n ? n : 1, sizeof(*c->meta.regs));
	/* Threads stay put while the waits handle events; only those we
	 * interrupted are waited for. */
	for (th = target_thread_next(t, NULL); th && c->meta.nregs < n;
	     th = target_thread_next(t, th)) {
		const struct user_regs_struct *regs;
		uint64_t now = now_ns();

		if (th->state != TS_STOPPING)
			continue;
		if (target_wait_stopped(t, th, now < deadline ? deadline - now
							      : 0) < 0) {
			debug_msg("thread %d did not stop: %s", (int)th->tid,
				  strerror(errno));
			continue;
		}
		regs = target_thread_regs(th);
		if (!regs) {
			debug_msg("thread %d: registers: %s", (int)th->tid,
				  strerror(errno));
			continue;
		}
		c->meta.regs[c->meta.nregs].tid = th->tid;
		c->meta.regs[c->meta.nregs].regs = *regs;
		c->meta.nregs++;
	}
}

static void *
tracer_main(void *arg)
{
	struct dump_ctx *c = arg;
	struct symtab *st;
	struct target t;
	int n;

	if (target_init(&t, &c->wait_mask, &stop_flag) < 0) {
		c->stage = STAGE_INIT;
		c->err = errno;
		return NULL;
	}
	if (target_attach(&t, c->pid) < 0) {
		c->stage = STAGE_ATTACH;
		c->err = errno;
		target_fini(&t);
		return NULL;
	}
	c->live = mem_create_live(c->pid);
	c->mem = c->live;
	st = symtab_create(c->pid);
	if (!st) {
		c->stage = STAGE_MAPS;
		c->err = errno;
		goto out_release;
	}
	n = ruby_vm_find(c->pid, c->live, st, NULL, &c->vm);
	c->err = errno;
	symtab_destroy(st);
	if (n < 0) {
		c->stage = STAGE_VM;
		goto out_release;
	}
	/* Record only what the reader reads, not the VM search. */
	if (c->record)
		c->mem = snapshot_recorder_create(c->live);
	c->reader = ruby_reader_create(&c->vm, c->mem, c->pid);
	if (!c->reader) {
		c->stage = STAGE_READ;
		c->err = errno ? errno : EINVAL;
		goto out_release;
	}
	ruby_reader_set_locals(c->reader, c->locals);
	c->stacks = xcalloc(RUBY_MAX_THREADS, sizeof(*c->stacks));
	stop_all(c, &t);
	mem_flush(c->mem);
	c->nstacks = ruby_read_stacks(c->reader, c->stacks, RUBY_MAX_THREADS);
	if (c->nstacks < 0) {
		c->stage = STAGE_READ;
		c->err = errno;
	}
	if (c->record)
		c->meta.maps = read_maps_text(c->pid);
out_release:
	/* Leave every thread running; our exit detaches them. */
	target_release(&t);
	target_fini(&t);
	return NULL;
}

/* One line saying why the live dump failed. */
static void
report_failure(const struct dump_ctx *c)
{
	char buf[768];

	switch (c->stage) {
	case STAGE_OK:
		break;
	case STAGE_INIT:
		errno = c->err;
		perror_msg("cannot start tracing");
		break;
	case STAGE_ATTACH: {
		struct attach_facts f;

		diagnose_collect(c->pid, &f);
		diagnose_attach(c->err, &f, buf, sizeof(buf));
		error_msg("%s", buf);
		break;
	}
	case STAGE_MAPS:
		errno = c->err;
		perror_msg("cannot read the memory maps of process %d",
			   (int)c->pid);
		break;
	case STAGE_VM:
		if (c->err == ENOENT) {
			error_msg("process %d is not a Ruby process (no libruby or ruby_version found)",
				  (int)c->pid);
		} else if (c->err == ENOTSUP) {
			ruby_vm_unsupported_msg(&c->vm, c->pid, buf,
						sizeof(buf));
			error_msg("%s", buf);
		} else {
			errno = c->err;
			perror_msg("cannot locate the Ruby VM in process %d",
				   (int)c->pid);
		}
		break;
	case STAGE_READ:
		errno = c->err;
		perror_msg("cannot read the Ruby threads of process %d",
			   (int)c->pid);
		break;
	}
}

static int
save_snapshot(struct dump_ctx *c, const char *path)
{
	struct snapshot_recorder_stats rs;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	c->meta.pid = c->pid;
	c->meta.captured_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	ruby_vm_meta_set(&c->meta, &c->vm);
	if (snapshot_save(c->mem, &c->meta, path) < 0) {
		perror_msg("cannot write the snapshot to '%s'", path);
		return -1;
	}
	if (snapshot_recorder_stats(c->mem, &rs) == 0) {
		if (rs.dropped)
			notice_msg("snapshot incomplete: %llu reads exceeded the size bound",
				   (unsigned long long)rs.dropped);
		notice_msg("snapshot written to %s: %llu bytes of memory in %llu regions, %zu threads' registers",
			   path, (unsigned long long)rs.bytes,
			   (unsigned long long)rs.regions, c->meta.nregs);
	}
	return 0;
}

static int
dump_live(pid_t pid, const char *snapshot, bool layout,
	  const struct dump_what *w)
{
	struct dump_ctx c = { .pid = pid, .record = snapshot != NULL,
			      .locals = w->locals };
	struct sigaction sa, old_int, old_term, old_hup;
	sigset_t block, old_mask;
	pthread_t tracer;
	int code = 0;

	/* Ctrl-C during the stop makes the tracer give up waiting and
	 * release the target as usual; it is never left stopped. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &block, &old_mask);
	c.wait_mask = old_mask;
	sigdelset(&c.wait_mask, SIGINT);
	sigdelset(&c.wait_mask, SIGTERM);
	sigdelset(&c.wait_mask, SIGHUP);
	sigaddset(&c.wait_mask, SIGCHLD);

	if (pthread_create(&tracer, NULL, tracer_main, &c) != 0) {
		perror_msg("cannot start the tracer thread");
		code = 1;
		goto out_signals;
	}
	pthread_join(tracer, NULL);

	if (c.stage != STAGE_OK) {
		report_failure(&c);
		code = 1;
	} else {
		if (layout)
			print_layouts(&c.vm, pid,
				      ruby_reader_checks(c.reader));
		else
			print_dump(pid, &c.vm, c.stacks, c.nstacks, w);
		if (fflush(stdout) != 0) {
			perror_msg("cannot write to standard output");
			code = 1;
		}
		if (stop_flag)
			notice_msg("interrupted: some threads may not have been stopped while read");
		if (snapshot && save_snapshot(&c, snapshot) < 0)
			code = 1;
	}
	ruby_reader_destroy(c.reader);
	free(c.stacks);
	if (c.mem != c.live)
		mem_destroy(c.mem);
	mem_destroy(c.live);
	free(c.meta.regs);
	free(c.meta.maps);
out_signals:
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return code;
}

static int
dump_offline(const char *path, const struct dump_what *w)
{
	struct snapshot_meta meta;
	struct ruby_reader *r = NULL;
	struct ruby_stack *stacks = NULL;
	struct ruby_vm vm;
	struct mem *m;
	char buf[256];
	int n, code = 1;

	m = snapshot_load(path, &meta);
	if (!m) {
		if (errno == EINVAL)
			error_msg("'%s' is not a valid rbflame snapshot (damaged or truncated)",
				  path);
		else
			perror_msg("cannot read the snapshot '%s'", path);
		return 1;
	}
	if (ruby_vm_meta_get(&meta, &vm) < 0) {
		if (errno == ENOENT) {
			error_msg("snapshot '%s' holds no Ruby VM (it was not taken of a Ruby process)",
				  path);
		} else {
			ruby_layout_list(buf, sizeof(buf));
			error_msg("snapshot '%s' is of Ruby %s, which rbflame cannot read (supported: %s)",
				  path, vm.version, buf);
		}
		goto out;
	}
	r = ruby_reader_create(&vm, m, 0);
	if (!r) {
		perror_msg("cannot read the Ruby VM in snapshot '%s'", path);
		goto out;
	}
	ruby_reader_set_locals(r, w->locals);
	stacks = xcalloc(RUBY_MAX_THREADS, sizeof(*stacks));
	n = ruby_read_stacks(r, stacks, RUBY_MAX_THREADS);
	if (n < 0) {
		perror_msg("cannot read the Ruby threads in snapshot '%s'",
			   path);
		goto out;
	}
	print_dump(meta.pid, &vm, stacks, n, w);
	if (fflush(stdout) != 0) {
		perror_msg("cannot write to standard output");
		goto out;
	}
	code = 0;
out:
	free(stacks);
	ruby_reader_destroy(r);
	mem_destroy(m);
	snapshot_meta_free(&meta);
	return code;
}

int
dump_main(int argc, char **argv)
{
	const char *snapshot = NULL, *from = NULL;
	struct dump_what w = { 0 };
	bool layout = false;
	pid_t pid = 0;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:h", long_options, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			if (options_parse_pid(optarg, &pid) < 0)
				error_msg_and_help("dump: invalid PID '%s': expected a process id such as 1234",
						   optarg);
			break;
		case OPT_SNAPSHOT:
			snapshot = optarg;
			break;
		case OPT_FROM_SNAPSHOT:
			from = optarg;
			break;
		case OPT_LAYOUT:
			layout = true;
			break;
		case OPT_LOCALS:
			w.locals = true;
			break;
		case OPT_JSON:
			w.json = true;
			break;
		case 'h':
			fputs(dump_help, stdout);
			return 0;
		case ':':
			if (optopt && optopt < 0x100)
				error_msg_and_help("dump: option '-%c' needs an argument",
						   optopt);
			error_msg_and_help("dump: option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				error_msg_and_help("dump: unknown option '-%c'",
						   optopt);
			error_msg_and_help("dump: unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		error_msg_and_help("dump: unexpected argument '%s'",
				   argv[optind]);
	if (pid && from)
		error_msg_and_help("dump: -p and --from-snapshot exclude each other");
	if (snapshot && from)
		error_msg_and_help("dump: --snapshot needs -p, not --from-snapshot");
	if (!pid && !from)
		error_msg_and_help("dump: give -p PID or --from-snapshot FILE");
	if (layout && (from || snapshot))
		error_msg_and_help("dump: --layout needs -p, without --snapshot");
	if (layout && (w.locals || w.json))
		error_msg_and_help("dump: --layout prints the layout: drop --locals and --json");
	if (from)
		return dump_offline(from, &w);
	return dump_live(pid, snapshot, layout, &w);
}
