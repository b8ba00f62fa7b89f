// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * rbflame top: the run of run.c watched live. Once a second, on the
 * tracer thread (run_watched()'s watch hook, the one place the profile
 * may be read during a run), the samples taken since the last look are
 * added to the since-start counts, the last TOP_RECENT_NS are counted
 * again, and the result is published as a view: plain strings and
 * numbers, escaped, owned by the view. The main thread shows the latest
 * view, full screen with ncurses when standard input and output are a
 * terminal, else as a plain-text snapshot every TOP_PLAIN_NS; it reads
 * the keys and never touches the profile or the target.
 */
#include "config.h"

#include <curses.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "rbflame/error.h"
#include "rbflame/options.h"
#include "rbflame/profile.h"
#include "rbflame/run.h"
#include "rbflame/schedule.h"
#include "rbflame/top.h"
#include "rbflame/utf8.h"
#include "rbflame/xmalloc.h"

#define TOP_PERIOD_NS (1000ull * 1000000ull)	/* a new view */
#define TOP_RECENT_NS (5000ull * 1000000ull)	/* the recent window */
#define TOP_PLAIN_NS (3000ull * 1000000ull)	/* a plain-text snapshot */
#define TOP_KEY_MS 100				/* key and resize polls */
#define TOP_NAME_MAX 512			/* an escaped name, bytes */
#define TOP_PLAIN_ROWS 20			/* functions per snapshot */
#define TOP_HISTORY 16				/* views kept for rates */

enum top_window { TOP_RECENT, TOP_ALL, TOP_WINDOWS };
static const char *const window_names[TOP_WINDOWS] = {
	[TOP_RECENT] = "last 5 s",
	[TOP_ALL] = "since start",
};

/* The state bars: one row per bar, its header, its glyph, its colour. */
#define TOP_BAR_LIST(X)					\
	X(RUNNING, "RUN%", '#', COLOR_GREEN)		\
	X(GVL, "GVL%", '~', COLOR_YELLOW)		\
	X(GC, "GC%", '%', COLOR_MAGENTA)		\
	X(BLOCKED, "BLK%", '.', COLOR_BLUE)

enum top_bar {
#define TOP_BAR_ENUM(id, head, glyph, colour) TOP_BAR_##id,
	TOP_BAR_LIST(TOP_BAR_ENUM)
#undef TOP_BAR_ENUM
	TOP_BARS
};

struct top_bar_desc {
	const char *head;
	char glyph;
	short colour;
};

static const struct top_bar_desc bars[TOP_BARS] = {
#define TOP_BAR_DESC(id, head, glyph, colour) \
	[TOP_BAR_##id] = { head, glyph, colour },
	TOP_BAR_LIST(TOP_BAR_DESC)
#undef TOP_BAR_DESC
};

/* Which bar a sampled state fills: running without the GVL counts as
 * running; a state not known (a native target) fills none, TOP_BARS. */
static enum top_bar
bar_of(enum profile_state s)
{
	enum profile_state g = profile_state_desc(s)->group;

	switch (g) {
	case PROFILE_STATE_UNKNOWN:
		return TOP_BARS;
	case PROFILE_STATE_GC:
		return TOP_BAR_GC;
	case PROFILE_STATE_WAITING_GVL:
		return TOP_BAR_GVL;
	case PROFILE_STATE_BLOCKED:
		return TOP_BAR_BLOCKED;
	default:
		return TOP_BAR_RUNNING;
	}
}

/* ---- the view: what the main thread shows ------------------------------ */

struct top_fn_row {
	char *name;
	uint64_t self[TOP_WINDOWS], total[TOP_WINDOWS];
};

struct top_thread_row {
	char *name;			/* 'TID "NAME"', escaped */
	uint64_t n[TOP_WINDOWS][TOP_BARS + 1];	/* + state not known */
};

struct top_view {
	char *target;			/* 'process PID "CMD"', escaped */
	char *ruby;			/* "ruby 3.1.2", or "native" */
	double elapsed_s;
	double rate_hz[TOP_WINDOWS];	/* ticks a second */
	double stopped[TOP_WINDOWS];	/* share of time threads were stopped */
	uint64_t samples[TOP_WINDOWS];
	uint64_t failed;
	struct top_fn_row *fns;
	size_t nfns;
	struct top_thread_row *threads;
	size_t nthreads;
	bool final;			/* sampling has ended */
};

static void
view_destroy(struct top_view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->nfns; i++)
		free(v->fns[i].name);
	for (size_t i = 0; i < v->nthreads; i++)
		free(v->threads[i].name);
	free(v->fns);
	free(v->threads);
	free(v->target);
	free(v->ruby);
	free(v);
}

/* ---- the counts: the tracer thread's own -------------------------------- */

#define FN_NONE UINT32_MAX

struct top_fn {
	uint32_t name, file;		/* string ids of the profile */
	uint64_t self[TOP_WINDOWS], total[TOP_WINDOWS];
	uint64_t mark;			/* the stack last counted in total */
};

struct top_thread {
	pid_t pid, tid;
	uint64_t n[TOP_WINDOWS][TOP_BARS + 1];	/* + state not known */
};

/* The stats of one look, for the rates of the recent window. */
struct top_mark {
	uint64_t elapsed_ns, ticks, stop_ns;
};

struct top {
	/* tracer thread only */
	size_t next_sample;		/* the first sample not yet counted */
	uint32_t *fn_of_frame;		/* frame id -> function, or FN_NONE */
	size_t nfof;
	struct top_fn *fns;
	size_t nfns, fns_cap;
	uint32_t *fn_slots;		/* (name, file) hash: index + 1 */
	size_t nfn_slots;
	struct top_thread *threads;
	size_t nthreads, threads_cap;
	uint64_t stamp;
	struct top_mark history[TOP_HISTORY];
	size_t nhistory;
	/* main thread only */
	bool screen;			/* full screen, else plain text */
	/* shared, under lock */
	pthread_mutex_t lock;
	struct top_view *latest;	/* not yet taken by the main thread */
};

static uint32_t
fn_hash(uint32_t name, uint32_t file)
{
	return (name * 2654435761u) ^ (file * 40503u + 0x9e3779b9u);
}

static void
fn_rehash(struct top *t)
{
	size_t n = t->nfn_slots ? t->nfn_slots * 2 : 256;

	free(t->fn_slots);
	t->fn_slots = xcalloc(n, sizeof(*t->fn_slots));
	t->nfn_slots = n;
	for (size_t i = 0; i < t->nfns; i++) {
		size_t h = fn_hash(t->fns[i].name, t->fns[i].file) & (n - 1);

		while (t->fn_slots[h])
			h = (h + 1) & (n - 1);
		t->fn_slots[h] = (uint32_t)i + 1;
	}
}

/* The function of a frame: its name and file (a C method's file is its
 * caller's, so C methods go by name alone); FN_NONE for the roots, the
 * state leaves and markers, which are no function. */
static uint32_t
fn_of(struct top *t, const struct profile *p, uint32_t frame)
{
	const struct profile_frame *f;
	uint32_t name, file;
	size_t h;

	if (frame >= t->nfof) {
		size_t n = p->nframes > frame ? p->nframes : frame + 1;

		t->fn_of_frame = xrealloc(t->fn_of_frame,
					  n * sizeof(*t->fn_of_frame));
		memset(t->fn_of_frame + t->nfof, 0xff,
		       (n - t->nfof) * sizeof(*t->fn_of_frame));
		t->nfof = n;
	}
	if (t->fn_of_frame[frame] != FN_NONE)
		return t->fn_of_frame[frame];
	f = profile_frame_get(p, frame);
	if (!f)
		return FN_NONE;
	switch (f->kind) {
	case PROFILE_FRAME_RUBY:
	case PROFILE_FRAME_NATIVE:
		name = f->name;
		file = f->file;
		break;
	case PROFILE_FRAME_CFUNC:
		name = f->name;
		file = PROFILE_NO_STR;
		break;
	case PROFILE_FRAME_NAME:
		name = f->text;
		file = PROFILE_NO_STR;
		break;
	default:
		return FN_NONE;
	}
	if ((t->nfns + 1) * 2 > t->nfn_slots)
		fn_rehash(t);
	h = fn_hash(name, file) & (t->nfn_slots - 1);
	while (t->fn_slots[h]) {
		struct top_fn *x = &t->fns[t->fn_slots[h] - 1];

		if (x->name == name && x->file == file)
			return t->fn_of_frame[frame] = t->fn_slots[h] - 1;
		h = (h + 1) & (t->nfn_slots - 1);
	}
	t->fns = xgrowarray(t->fns, &t->fns_cap, t->nfns + 1,
			    sizeof(*t->fns));
	memset(&t->fns[t->nfns], 0, sizeof(t->fns[0]));
	t->fns[t->nfns].name = name;
	t->fns[t->nfns].file = file;
	t->fn_slots[h] = (uint32_t)t->nfns + 1;
	return t->fn_of_frame[frame] = (uint32_t)t->nfns++;
}

static struct top_thread *
thread_of(struct top *t, pid_t pid, pid_t tid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid && t->threads[i].pid == pid)
			return &t->threads[i];
	t->threads = xgrowarray(t->threads, &t->threads_cap, t->nthreads + 1,
				sizeof(*t->threads));
	memset(&t->threads[t->nthreads], 0, sizeof(t->threads[0]));
	t->threads[t->nthreads].pid = pid;
	t->threads[t->nthreads].tid = tid;
	return &t->threads[t->nthreads++];
}

/* One sample into window w: its thread's bar, its leaf function's self,
 * every function on its stack once in total. */
static void
count_sample(struct top *t, const struct profile *p,
	     const struct profile_sample *s, enum top_window w)
{
	const struct profile_stack *st;
	uint32_t self = FN_NONE;

	thread_of(t, s->pid, s->tid)->n[w][bar_of(s->state)]++;
	if (s->stack >= p->nstacks)
		return;
	st = &p->stacks[s->stack];
	t->stamp++;
	for (uint32_t i = 0; i < st->depth; i++) {
		uint32_t fn = fn_of(t, p, st->frames[i]);

		if (fn == FN_NONE)
			continue;
		self = fn;
		if (t->fns[fn].mark != t->stamp) {
			t->fns[fn].mark = t->stamp;
			t->fns[fn].total[w]++;
		}
	}
	if (self != FN_NONE)
		t->fns[self].self[w]++;
}

static char *
escaped(const char *s)
{
	char buf[TOP_NAME_MAX];

	return xstrdup(utf8_escape(s, buf, sizeof(buf), 0));
}

/* The view of the counts as they are now. */
static struct top_view *
make_view(struct top *t, const struct profile *p, uint64_t elapsed_ns,
	  bool final)
{
	struct top_view *v = xcalloc(1, sizeof(*v));
	const struct top_mark *old = &t->history[0];
	char buf[TOP_NAME_MAX + 64];
	uint64_t span;

	snprintf(buf, sizeof(buf), "process %d \"%s\"", (int)p->meta.pid,
		 p->meta.command ? p->meta.command : "");
	v->target = escaped(buf);
	snprintf(buf, sizeof(buf), "%s%s",
		 p->meta.ruby_version ? "ruby " : "native",
		 p->meta.ruby_version ? p->meta.ruby_version : "");
	v->ruby = escaped(buf);
	v->elapsed_s = elapsed_ns / 1e9;
	v->final = final;
	v->failed = p->stats.failed;
	v->samples[TOP_ALL] = p->nsamples;
	if (elapsed_ns) {
		v->rate_hz[TOP_ALL] = p->stats.ticks / (elapsed_ns / 1e9);
		v->stopped[TOP_ALL] = (double)p->stats.stop.total_ns /
				      elapsed_ns;
	}
	span = elapsed_ns - old->elapsed_ns;
	if (span) {
		v->rate_hz[TOP_RECENT] = (p->stats.ticks - old->ticks) /
					 (span / 1e9);
		v->stopped[TOP_RECENT] =
			(double)(p->stats.stop.total_ns - old->stop_ns) / span;
	}
	v->fns = xcalloc(t->nfns ? t->nfns : 1, sizeof(*v->fns));
	for (size_t i = 0; i < t->nfns; i++) {
		const struct top_fn *f = &t->fns[i];
		struct top_fn_row *r;

		if (!f->total[TOP_ALL])
			continue;
		r = &v->fns[v->nfns++];
		if (f->file != PROFILE_NO_STR)
			snprintf(buf, sizeof(buf), "%s (%s)",
				 profile_str_get(p, f->name),
				 profile_str_get(p, f->file));
		else
			snprintf(buf, sizeof(buf), "%s",
				 profile_str_get(p, f->name));
		r->name = escaped(buf);
		memcpy(r->self, f->self, sizeof(r->self));
		memcpy(r->total, f->total, sizeof(r->total));
	}
	v->threads = xcalloc(t->nthreads ? t->nthreads : 1,
			     sizeof(*v->threads));
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct top_thread *th = &t->threads[i];
		const struct profile_thread *pt =
			profile_thread_find(p, th->pid, th->tid);
		struct top_thread_row *r = &v->threads[v->nthreads++];
		char id[24];

		snprintf(buf, sizeof(buf), "%s \"%s\"",
			 profile_thread_id(th->tid, id, sizeof(id)),
			 pt ? profile_str_get(p, pt->name) : "");
		r->name = escaped(buf);
		memcpy(r->n, th->n, sizeof(r->n));
	}
	return v;
}

/* The watch hook: count what is new, count the recent window again,
 * publish a view. */
void
top_watch(void *arg, const struct profile *p, uint64_t elapsed_ns,
	  bool final)
{
	struct top *t = arg;
	uint64_t from = elapsed_ns > TOP_RECENT_NS ? elapsed_ns - TOP_RECENT_NS
						   : 0;
	struct top_view *v, *old;
	size_t i;

	for (; t->next_sample < p->nsamples; t->next_sample++)
		count_sample(t, p, &p->samples[t->next_sample], TOP_ALL);
	for (i = 0; i < t->nfns; i++) {
		t->fns[i].self[TOP_RECENT] = 0;
		t->fns[i].total[TOP_RECENT] = 0;
	}
	for (i = 0; i < t->nthreads; i++)
		memset(t->threads[i].n[TOP_RECENT], 0,
		       sizeof(t->threads[i].n[TOP_RECENT]));
	/* Samples are logged in time order: back from the end. */
	for (i = p->nsamples; i > 0 && p->samples[i - 1].time_ns >= from; i--)
		count_sample(t, p, &p->samples[i - 1], TOP_RECENT);

	/* The oldest look within the window gives the recent rates. */
	while (t->nhistory > 1 && t->history[1].elapsed_ns <= from) {
		memmove(&t->history[0], &t->history[1],
			(t->nhistory - 1) * sizeof(t->history[0]));
		t->nhistory--;
	}
	if (!t->nhistory)
		t->history[t->nhistory++] = (struct top_mark){ 0 };
	v = make_view(t, p, elapsed_ns, final);
	v->samples[TOP_RECENT] = p->nsamples - i;
	if (t->nhistory == TOP_HISTORY) {
		memmove(&t->history[0], &t->history[1],
			(TOP_HISTORY - 1) * sizeof(t->history[0]));
		t->nhistory--;
	}
	t->history[t->nhistory++] = (struct top_mark){
		.elapsed_ns = elapsed_ns,
		.ticks = p->stats.ticks,
		.stop_ns = p->stats.stop.total_ns,
	};

	pthread_mutex_lock(&t->lock);
	old = t->latest;
	t->latest = v;
	pthread_mutex_unlock(&t->lock);
	view_destroy(old);
}

/* The newest view not yet taken, or NULL. */
static struct top_view *
take_view(struct top *t)
{
	struct top_view *v;

	pthread_mutex_lock(&t->lock);
	v = t->latest;
	t->latest = NULL;
	pthread_mutex_unlock(&t->lock);
	return v;
}

/* ---- drawing, the same text in both modes ------------------------------- */

struct top_show {
	enum top_window window;
	bool by_total;
	bool paused;
};

/* Where lines go: a stream, or the screen (with colours for the bars). */
struct top_out {
	void (*put)(struct top_out *o, const char *s, int bar);	/* -1 */
	void (*nl)(struct top_out *o);
	int width, rows, row;
	FILE *f;
};

static void __attribute__((format(printf, 3, 4)))
outf(struct top_out *o, int bar, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	o->put(o, buf, bar);
}

static const struct top_show *sort_show;

static int
cmp_rows(const void *a, const void *b)
{
	const struct top_fn_row *x = a, *y = b;
	enum top_window w = sort_show->window;
	uint64_t kx = sort_show->by_total ? x->total[w] : x->self[w];
	uint64_t ky = sort_show->by_total ? y->total[w] : y->self[w];
	uint64_t tx = sort_show->by_total ? x->self[w] : x->total[w];
	uint64_t ty = sort_show->by_total ? y->self[w] : y->total[w];

	if (kx != ky)
		return kx < ky ? 1 : -1;
	if (tx != ty)
		return tx < ty ? 1 : -1;
	return strcmp(x->name, y->name);
}

static double
pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * n / of : 0.0;
}

/* The view as lines: header, threads, functions; at most max_fns
 * functions (0: as many as the rows allow). */
static void
draw(struct top_out *o, struct top_view *v, const struct top_show *sh,
     int max_fns)
{
	enum top_window w = sh->window;
	int name_w = 24, bar_w;
	int fns;

	outf(o, -1, "rbflame top: %s, %s, %.0f s%s", v->target, v->ruby,
	     v->elapsed_s, v->final ? " (sampling ended)" : "");
	o->nl(o);
	outf(o, -1, "%.1f Hz, target stopped %.2f%% of the time, %llu samples (%llu failed)",
	     v->rate_hz[w], 100.0 * v->stopped[w],
	     (unsigned long long)v->samples[w],
	     (unsigned long long)v->failed);
	o->nl(o);
	outf(o, -1, "window: %s, sort: %s%s", window_names[w],
	     sh->by_total ? "total" : "self", sh->paused ? "  [PAUSED]" : "");
	o->nl(o);
	o->nl(o);

	outf(o, -1, "%-*s", name_w, "THREAD");
	for (int b = 0; b < TOP_BARS; b++)
		outf(o, -1, " %5s", bars[b].head);
	o->nl(o);
	bar_w = o->width - name_w - 6 * TOP_BARS - 2;
	if (bar_w > 50)
		bar_w = 50;
	for (size_t i = 0; i < v->nthreads; i++) {
		const struct top_thread_row *r = &v->threads[i];
		uint64_t all = 0, cum = 0;
		int drawn = 0;

		for (int b = 0; b < TOP_BARS; b++)
			all += r->n[w][b];
		if (!all && !r->n[w][TOP_BARS])
			continue;
		if (o->rows && o->row >= o->rows / 2)
			break;
		outf(o, -1, "%-*.*s", name_w, name_w, r->name);
		if (!all) {
			/* A native target's threads: no state known. */
			for (int b = 0; b < TOP_BARS; b++)
				outf(o, -1, " %5s", "-");
			outf(o, -1, "  (states not known: not Ruby)");
			o->nl(o);
			continue;
		}
		for (int b = 0; b < TOP_BARS; b++)
			outf(o, -1, " %5.0f", pct(r->n[w][b], all));
		outf(o, -1, "  ");
		/* Each bar ends where its cumulative share ends: the
		 * rounding never leaves a gap or a stray glyph. */
		for (int b = 0; b < TOP_BARS && bar_w > 0; b++) {
			char seg[64];
			int upto, n;

			cum += r->n[w][b];
			upto = (int)((cum * bar_w + all / 2) / all);
			n = upto - drawn;
			memset(seg, bars[b].glyph, n);
			seg[n] = '\0';
			drawn = upto;
			o->put(o, seg, b);
		}
		o->nl(o);
	}
	o->nl(o);

	outf(o, -1, "%7s %7s  %s", "SELF%", "TOTAL%", "FUNCTION");
	o->nl(o);
	sort_show = sh;
	qsort(v->fns, v->nfns, sizeof(*v->fns), cmp_rows);
	fns = 0;
	for (size_t i = 0; i < v->nfns; i++) {
		const struct top_fn_row *r = &v->fns[i];

		if (!r->total[w])
			continue;
		if (max_fns && fns >= max_fns)
			break;
		if (o->rows && o->row >= o->rows - 1)
			break;
		outf(o, -1, "%6.1f%% %6.1f%%  %s",
		     pct(r->self[w], v->samples[w]),
		     pct(r->total[w], v->samples[w]), r->name);
		o->nl(o);
		fns++;
	}
}

/* ---- plain text: not a terminal ------------------------------------------ */

static void
plain_put(struct top_out *o, const char *s, int bar)
{
	fputs(s, o->f);
}

static void
plain_nl(struct top_out *o)
{
	fputc('\n', o->f);
	o->row++;
}

static void
plain_show(FILE *f, struct top_view *v, const struct top_show *sh,
	   int max_fns)
{
	struct top_out o = {
		.put = plain_put, .nl = plain_nl, .width = 100, .f = f,
	};

	draw(&o, v, sh, max_fns);
	fputc('\n', f);
	fflush(f);
}

int
top_print(struct top *t, FILE *f, bool since_start, bool by_total,
	  int max_fns)
{
	struct top_show sh = {
		.window = since_start ? TOP_ALL : TOP_RECENT,
		.by_total = by_total,
	};
	struct top_view *v = take_view(t);

	if (!v)
		return -1;
	plain_show(f, v, &sh, max_fns);
	view_destroy(v);
	return 0;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A snapshot every TOP_PLAIN_NS, and the last one when sampling ends. */
static void
plain_ui(struct top *t, const volatile int *done)
{
	struct top_show sh = { .window = TOP_RECENT };
	struct top_view *v = NULL, *n;
	uint64_t next = now_ns() + TOP_PLAIN_NS;

	for (;;) {
		bool over = __atomic_load_n(done, __ATOMIC_ACQUIRE);

		n = take_view(t);
		if (n) {
			view_destroy(v);
			v = n;
		}
		if (v && (now_ns() >= next || (over && v->final))) {
			plain_show(stdout, v, &sh, TOP_PLAIN_ROWS);
			next = now_ns() + TOP_PLAIN_NS;
		}
		if (over)
			break;
		sleep_ms(TOP_KEY_MS);
	}
	view_destroy(v);
}

/* ---- the full screen ---------------------------------------------------- */

static void
screen_put(struct top_out *o, const char *s, int bar)
{
	int y, x;

	if (o->row >= o->rows)
		return;
	getyx(stdscr, y, x);
	(void)y;
	if (x >= o->width)
		return;
	if (bar >= 0 && has_colors())
		attron(COLOR_PAIR(bar + 1));
	addnstr(s, o->width - x);
	if (bar >= 0 && has_colors())
		attroff(COLOR_PAIR(bar + 1));
}

static void
screen_nl(struct top_out *o)
{
	o->row++;
	if (o->row < o->rows)
		move(o->row, 0);
}

static void
screen_show(struct top_view *v, const struct top_show *sh)
{
	struct top_out o = {
		.put = screen_put, .nl = screen_nl,
		.width = COLS, .rows = LINES - 1,
	};

	erase();
	move(0, 0);
	if (v)
		draw(&o, v, sh, 0);
	else
		addnstr("rbflame top: waiting for the first samples...", COLS);
	attron(A_REVERSE);
	mvaddnstr(LINES - 1, 0,
		  " q quit  s sort by self  t sort by total  w recent/since start  p pause ",
		  COLS);
	attroff(A_REVERSE);
	refresh();
}

/* Follows the terminal's size: the SIGWINCH ncurses would catch is
 * blocked (the tracer thread must not take it), so the size is asked. */
static bool
screen_resized(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || !ws.ws_row ||
	    !ws.ws_col)
		return false;
	if (ws.ws_row == LINES && ws.ws_col == COLS)
		return false;
	resizeterm(ws.ws_row, ws.ws_col);
	return true;
}

/* Keys and a redraw for every new view (none while paused). Ctrl-C is a
 * key here (raw mode): it reaches neither us as a signal nor a launched
 * command sharing the terminal. Returns the last view when sampling ended
 * by itself (the target's exit, a signal), NULL after q. */
static struct top_view *
screen_ui(struct top *t, const volatile int *done)
{
	struct top_show sh = { .window = TOP_RECENT };
	struct top_view *v = NULL, *n;
	bool dirty = true;

	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE)) {
		int ch = getch();

		switch (ch) {
		case 'q':
		case 'Q':
		case 3:		/* Ctrl-C */
			run_stop();
			goto out;
		case 's':
			sh.by_total = false;
			dirty = true;
			break;
		case 't':
			sh.by_total = true;
			dirty = true;
			break;
		case 'w':
			sh.window = sh.window == TOP_RECENT ? TOP_ALL
							    : TOP_RECENT;
			dirty = true;
			break;
		case 'p':
		case ' ':
			sh.paused = !sh.paused;
			dirty = true;
			break;
		case KEY_RESIZE:
			dirty = true;
			break;
		}
		if (screen_resized())
			dirty = true;
		if (!sh.paused && (n = take_view(t))) {
			view_destroy(v);
			v = n;
			dirty = true;
		}
		if (dirty)
			screen_show(v, &sh);
		dirty = false;
	}
	if ((n = take_view(t))) {
		view_destroy(v);
		v = n;
	}
	return v;
out:
	view_destroy(v);
	return NULL;
}

/* Keeps what is written to stderr while the screen is up (a warning of
 * the tracer thread would be drawn over), to print it after: -1 when it
 * cannot, and stderr stays. */
static int
stderr_hold(FILE **held)
{
	int saved;

	fflush(stderr);
	*held = tmpfile();
	if (!*held)
		return -1;
	saved = dup(STDERR_FILENO);
	if (saved < 0 || dup2(fileno(*held), STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		fclose(*held);
		*held = NULL;
		return -1;
	}
	return saved;
}

static void
stderr_release(FILE *held, int saved)
{
	char buf[4096];
	size_t n;

	if (saved < 0)
		return;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(held);
	while ((n = fread(buf, 1, sizeof(buf), held)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(held);
}

static void
top_ui(void *arg, const volatile int *done)
{
	struct top *t = arg;
	struct top_show sh = { .window = TOP_RECENT };
	struct top_view *last;
	SCREEN *scr = NULL;
	FILE *held = NULL;
	int saved;

	if (t->screen) {
		scr = newterm(NULL, stdout, stdin);
		if (!scr)
			notice_msg("cannot use the terminal (TERM=%s): plain text instead",
				   getenv("TERM") ? getenv("TERM") : "");
	}
	if (!scr) {
		plain_ui(t, done);
		return;
	}
	raw();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(TOP_KEY_MS);
	if (has_colors()) {
		start_color();
		use_default_colors();
		for (int b = 0; b < TOP_BARS; b++)
			init_pair(b + 1, bars[b].colour, -1);
	}
	saved = stderr_hold(&held);
	last = screen_ui(t, done);
	endwin();
	delscreen(scr);
	stderr_release(held, saved);
	/* The target is gone (or a signal came): its last view stays. */
	if (last)
		plain_show(stdout, last, &sh, TOP_PLAIN_ROWS);
	view_destroy(last);
}

/* ---- the command line --------------------------------------------------- */

static const char top_help[] =
"Usage: rbflame top [--subprocesses] [--thread REGEX] [-r HZ] -p PID\n"
"       rbflame top [--subprocesses] [--thread REGEX] [-r HZ] -- COMMAND ...\n"
"Watch a Ruby process live: functions by self and total share, and each\n"
"thread's states, refreshed every second. Nothing is written.\n"
"\n"
"Target:\n"
"  -p, --pid PID            watch the running process PID\n"
"  -- COMMAND [ARG...]      run COMMAND and watch it\n"
"      --subprocesses       also watch every process the target forks\n"
"\n"
"Sampling:\n"
"  -r, --rate HZ            samples per second (default 99)\n"
"      --thread REGEX       only the threads whose name or tid matches REGEX\n"
"                           (POSIX extended); no other is stopped, unless\n"
"                           it holds Ruby's GVL\n"
"\n"
"Other:\n"
"  -h, --help               show this help and exit\n"
"\n"
"Keys: s sort by self, t sort by total, w switch the window (last 5 s or\n"
"since start), p pause the display, q or Ctrl-C quit. When standard\n"
"output is not a terminal, a plain-text snapshot is printed every 3 s.\n"
"q, Ctrl-C or the target's exit leave the target running, untraced.\n"
"Exit status: 0 (with -- COMMAND, the command's), 1 on a runtime\n"
"failure, 2 on a usage error.\n";

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "rate", required_argument, NULL, 'r' },
	{ "subprocesses", no_argument, NULL, 'S' },
	{ "thread", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct top *
top_create(void)
{
	struct top *t = xcalloc(1, sizeof(*t));

	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void
top_destroy(struct top *t)
{
	if (!t)
		return;
	view_destroy(t->latest);
	free(t->fn_of_frame);
	free(t->fns);
	free(t->fn_slots);
	free(t->threads);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

int
top_main(int argc, char **argv)
{
	struct options o;
	struct top *t;
	struct run_watch w = {
		.watch = top_watch, .ui = top_ui, .period_ns = TOP_PERIOD_NS,
	};
	sigset_t winch;
	char *end;
	int c, code;

	memset(&o, 0, sizeof(o));
	o.rate = RATE_DEFAULT;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:r:h", long_options, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			if (o.npids)
				error_msg_and_help("top: give one -p PID");
			if (options_parse_pid(optarg, &o.pid) < 0)
				error_msg_and_help("top: invalid PID '%s': expected a process id such as 1234",
						   optarg);
			o.pids[o.npids++] = o.pid;
			break;
		case 'r':
			o.rate = strtod(optarg, &end);
			if (end == optarg || *end || !(o.rate > 0) ||
			    o.rate > RATE_MAX)
				error_msg_and_help("top: invalid rate '%s': expected samples per second, above 0 and at most %.0f",
						   optarg, RATE_MAX);
			break;
		case 'S':
			o.subprocesses = true;
			break;
		case 'T': {
			char err[256];

			if (options_thread_check(optarg, err, sizeof(err)) < 0)
				error_msg_and_help("top: %s", err);
			o.thread_regex = optarg;
			break;
		}
		case 'h':
			fputs(top_help, stdout);
			return 0;
		case ':':
			if (optopt && optopt < 0x100)
				error_msg_and_help("top: option '-%c' needs an argument",
						   optopt);
			error_msg_and_help("top: option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				error_msg_and_help("top: unknown option '-%c'",
						   optopt);
			error_msg_and_help("top: unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		error_msg_and_help("top: unexpected argument '%s' (a command goes after --)",
				   argv[optind]);
	if (optind < argc)
		o.command = argv + optind;
	if (o.npids && o.command)
		error_msg_and_help("top: -p and -- COMMAND exclude each other");
	if (!o.npids && !o.command)
		error_msg_and_help("top: give -p PID or -- COMMAND");

	t = top_create();
	t->screen = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	w.arg = t;
	/* Both threads inherit the mask: the screen asks for its size. */
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &winch, NULL);
	code = run_watched(&o, &w);
	top_destroy(t);
	return code;
}
