// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * "rbflame diff BASE NEW": two profiles compared function by function.
 * Each profile is first reduced to functions (the line dropped, so code
 * that moved is not a change), then the call graph gives every function's
 * self and total samples, counted once per sample. The table lists the
 * largest changes of share; --fail-above PCT makes the exit status a
 * verdict for CI: 1 when some function's total share grew by more than
 * PCT points and the growth is significant at 99% for the sample counts
 * (two-proportion z test, on effective sample counts: a recording's
 * samples that cluster, as a preempted thread's do, weigh less), so
 * noise between two runs does not fail a build. --svg and --collapsed
 * write the differential flamegraph and flamegraph.pl's differential
 * input. Two checkouts compare: files under each side's root (given or
 * detected, diff_roots_detect) are named relative to it. Profiles that
 * cannot be compared (different programs, too few samples for the
 * threshold) exit 2 with the reason. Several runs a side (BASE... --
 * NEW...) are judged by their run-to-run spread (Welch's t on the mean
 * shares, Holm's correction); --markdown writes the verdict and table
 * for a CI summary. Recordings of commands run to their end (a fixed
 * workload) compare each function's time rather than its share
 * (time_test), so a faster function does not make the others fail;
 * --fail-total-above gates on the total.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/callgraph.h"
#include "rbflame/diff.h"
#include "rbflame/error.h"
#include "rbflame/outfile.h"
#include "rbflame/utf8.h"
#include "rbflame/flametree.h"
#include "rbflame/intern.h"
#include "rbflame/load.h"
#include "rbflame/output.h"
#include "rbflame/svg.h"
#include "rbflame/xmalloc.h"

#define DEFAULT_ROWS 20

static const char diff_help[] =
"Usage: rbflame diff [OPTIONS] BASE NEW\n"
"       rbflame diff [OPTIONS] BASE... -- NEW...\n"
"Compare two profiles of the same program (raw recordings or collapsed\n"
"stacks), function by function: the functions whose share of samples\n"
"grew or shrank most, total (on the stack) and self (the leaf). A '*'\n"
"marks a change of total share significant at 99% for the sample counts\n"
"(two-proportion z test; a recording's clustered samples count as fewer:\n"
"prefer recordings to collapsed stacks for the verdict). With several\n"
"runs a side (options before the '--'), the change is of each function's\n"
"mean share and its significance comes from the run-to-run spread\n"
"(one-sided Welch's t, Holm's correction over the functions that grew\n"
"by more than --fail-above; '*' marks significant growth).\n"
"When every profile is a recording of a command run to its end (launch\n"
"mode, the command exited), each function's time is compared instead:\n"
"its seconds (on CPU with --mode cpu), the change in % of the base's\n"
"total time; a caller that grew only through one callee is not named.\n"
"The output says which is compared.\n"
"\n"
"Options:\n"
"      --fail-above PCT   exit 1 when a function's total share grew by\n"
"                         more than PCT points (time: its time by more\n"
"                         than PCT% of the base's total), significantly\n"
"                         at 99%\n"
"      --fail-total-above PCT\n"
"                         exit 1 when the total time grew by more than\n"
"                         PCT% (recordings of runs to their end only)\n"
"      --svg FILE         write a differential flamegraph: the new\n"
"                         profile's frames, red where the share grew,\n"
"                         blue where it shrank\n"
"      --collapsed FILE   write flamegraph.pl's differential input\n"
"                         ('stack BASE NEW', the base scaled to the new\n"
"                         profile's total)\n"
"      --markdown FILE    write the verdict and the table in Markdown,\n"
"                         for a CI job's summary\n"
"      --root BASE_DIR NEW_DIR\n"
"                         the two checkouts' trees: a file under one is\n"
"                         named relative to it, so both sides match\n"
"                         (default: found from the files only one side\n"
"                         names; the output says which)\n"
"      --title TEXT       the SVG's title\n"
"      --limit N          rows of the table (default 20)\n"
"  -h, --help             show this help and exit\n"
"\n"
"Exit status: 0 when no function grew beyond --fail-above (or without\n"
"it), 1 when one did or the total grew beyond --fail-total-above, 2 on\n"
"an error or when the profiles cannot be compared (of different\n"
"programs, or too few samples to decide).\n";

double
diff_z_eff(double p1, double n1, double p2, double n2)
{
	double p, se;

	if (n1 <= 0 || n2 <= 0)
		return 0;
	p = (p1 * n1 + p2 * n2) / (n1 + n2);
	se = sqrt(p * (1 - p) * (1.0 / n1 + 1.0 / n2));
	return se > 0 ? (p2 - p1) / se : 0;
}

double
diff_z(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2)
{
	if (!n1 || !n2)
		return 0;
	return diff_z_eff((double)x1 / (double)n1, (double)n1,
			  (double)x2 / (double)n2, (double)n2);
}

static const struct profile *order_prof;

/* Samples by process, thread, then time: each thread's sequence. */
static int
cmp_sample_order(const void *x, const void *y)
{
	const struct profile_sample *a = &order_prof->samples[*(const size_t *)x];
	const struct profile_sample *b = &order_prof->samples[*(const size_t *)y];

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	return (*(const size_t *)x > *(const size_t *)y) -
	       (*(const size_t *)x < *(const size_t *)y);
}

/*
 * How much each function's samples cluster: the lag-1 autocorrelation of
 * "the function is on the stack" along each thread's timed samples. A
 * thread preempted by a busy machine stays sampled in the same place for
 * many ticks, and those samples are not independent evidence. rho[f] is
 * 0 for an untimed profile (collapsed stacks carry no order).
 */
static void
autocorrelation(const struct profile *q, const struct callgraph *g,
		double *rho)
{
	size_t n = q->nsamples, pairs = 0;
	size_t *order;
	uint64_t *both, *on, *stamp_prev, *stamp_cur;

	for (size_t f = 0; f < g->nfuncs; f++)
		rho[f] = 0;
	if (n < 3)
		return;
	order = xmalloc(n * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	order_prof = q;
	qsort(order, n, sizeof(*order), cmp_sample_order);
	order_prof = NULL;
	both = xcalloc(g->nfuncs ? g->nfuncs : 1, sizeof(*both));
	on = xcalloc(g->nfuncs ? g->nfuncs : 1, sizeof(*on));
	stamp_prev = xcalloc(g->nfuncs ? g->nfuncs : 1, sizeof(*stamp_prev));
	stamp_cur = xcalloc(g->nfuncs ? g->nfuncs : 1, sizeof(*stamp_cur));
	for (size_t k = 0; k < n; k++) {
		const struct profile_sample *cur = &q->samples[order[k]];
		const struct profile_stack *st = &q->stacks[cur->stack];
		bool pair = k > 0 &&
			    q->samples[order[k - 1]].pid == cur->pid &&
			    q->samples[order[k - 1]].tid == cur->tid;

		if (pair)
			pairs++;
		for (uint32_t d = 0; d < st->depth; d++) {
			uint32_t f = g->frame_func[st->frames[d]];

			if (stamp_cur[f] == k + 1)
				continue;	/* recursion: once */
			stamp_cur[f] = k + 1;
			on[f]++;
			if (pair && stamp_prev[f] == k)
				both[f]++;
		}
		/* This sample's functions become the previous ones. */
		for (uint32_t d = 0; d < st->depth; d++)
			stamp_prev[g->frame_func[st->frames[d]]] = k + 1;
	}
	for (size_t f = 0; f < g->nfuncs && pairs > 1; f++) {
		double pf = (double)on[f] / (double)n;
		double r;

		if (pf <= 0 || pf >= 1)
			continue;
		r = ((double)both[f] / (double)pairs - pf * pf) /
		    (pf * (1 - pf));
		rho[f] = r < 0 ? 0 : r > 0.99 ? 0.99 : r;
	}
	free(order);
	free(both);
	free(on);
	free(stamp_prev);
	free(stamp_cur);
}

/* file relative to root when it lies under it, else file itself. */
static const char *
under_root(const char *file, const char *root)
{
	size_t n = root ? strlen(root) : 0;

	if (!n || strncmp(file, root, n))
		return file;
	if (root[n - 1] == '/')
		return file[n] ? file + n : file;
	return file[n] == '/' && file[n + 1] ? file + n + 1 : file;
}

/* The function a frame belongs to, as text: "LABEL (FILE)", FILE
 * relative to root when under it, or the text. */
static char *
function_key(const struct profile *p, const struct profile_frame *f,
	     uint32_t id, const char *root, enum profile_kind *kind,
	     char **label, char **file)
{
	const char *text = profile_frame_name(p, id);
	size_t ll, fo, fl;
	int line;

	*kind = f->kind;
	*label = *file = NULL;
	if ((f->kind == PROFILE_FRAME_RUBY || f->kind == PROFILE_FRAME_CFUNC) &&
	    f->file != PROFILE_NO_STR && *profile_str_get(p, f->name)) {
		*label = xstrdup(profile_str_get(p, f->name));
		*file = xstrdup(under_root(profile_str_get(p, f->file), root));
	} else if (f->kind == PROFILE_FRAME_NAME &&
		   flametree_split(text, &ll, &fo, &fl, &line) == 0) {
		char *full = xstrndup(text + fo, fl);

		*kind = PROFILE_FRAME_RUBY;
		*label = xstrndup(text, ll);
		*file = xstrdup(under_root(full, root));
		free(full);
	}
	if (*label)
		return xasprintf("%s (%s)", *label, *file);
	return xstrdup(text);
}

/* The source files of p's Ruby and C-method frames, absolute ones. */
static struct intern *
ruby_files(const struct profile *p)
{
	struct intern *in = intern_create();

	for (size_t id = 0; id < p->nframes; id++) {
		const struct profile_frame *f = &p->frames[id];

		if ((f->kind == PROFILE_FRAME_RUBY ||
		     f->kind == PROFILE_FRAME_CFUNC) &&
		    f->file != PROFILE_NO_STR &&
		    profile_str_get(p, f->file)[0] == '/')
			intern_str(in, profile_str_get(p, f->file));
	}
	return in;
}

/* Whether s is one of in's strings (intern_str would add it). */
static bool
has_str(const struct intern *in, const char *s)
{
	uint32_t n = intern_count(in);

	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(intern_get(in, i), s))
			return true;
	return false;
}

void
diff_roots_detect(const struct profile *base, const struct profile *new_p,
		  struct diff_roots *r)
{
	struct intern *fa = ruby_files(base), *fb = ruby_files(new_p);
	struct intern *pairs = intern_create();
	uint32_t na = intern_count(fa), nb = intern_count(fb);
	size_t *votes = NULL, cap = 0, best = 0;
	bool *only_b = xcalloc(nb ? nb : 1, sizeof(*only_b));

	memset(r, 0, sizeof(*r));
	for (uint32_t j = 0; j < nb; j++)
		only_b[j] = !has_str(fa, intern_get(fb, j));
	/* Every file of one side only, against every file of the other:
	 * the longest common tail that starts at a '/' leaves two
	 * prefixes, one vote for that pair of roots. */
	for (uint32_t i = 0; i < na; i++) {
		const char *a = intern_get(fa, i);
		size_t la = strlen(a);

		if (has_str(fb, a))
			continue;
		for (uint32_t j = 0; j < nb; j++) {
			const char *b = intern_get(fb, j);
			size_t lb = strlen(b), k = 0;
			char *key;
			uint32_t id;

			if (!only_b[j])
				continue;
			while (k < la && k < lb &&
			       a[la - 1 - k] == b[lb - 1 - k])
				k++;
			/* The tail starts at its first '/' (the roots end
			 * before it); nothing left of it on a side: no
			 * root. */
			while (k > 0 && a[la - k] != '/')
				k--;
			if (k == 0 || k == la || k == lb || k + 1 >= la)
				continue;
			key = xasprintf("%.*s%c%.*s", (int)(la - k), a, '\0',
					(int)(lb - k), b);
			id = intern_id(pairs, key, (la - k) + 1 + (lb - k));
			free(key);
			if (id >= cap) {
				size_t old = cap;

				votes = xgrowarray(votes, &cap, id + 1,
						   sizeof(*votes));
				memset(votes + old, 0,
				       (cap - old) * sizeof(*votes));
			}
			votes[id]++;
		}
	}
	/* The pair most files agree on; ties to the first found. */
	for (uint32_t id = 0; id < intern_count(pairs); id++) {
		if (votes[id] > best) {
			const char *k = intern_get(pairs, id);
			size_t l = strlen(k);

			best = votes[id];
			free(r->dir[DIFF_BASE]);
			free(r->dir[DIFF_NEW]);
			r->dir[DIFF_BASE] = xstrdup(k);
			r->dir[DIFF_NEW] = xstrndup(k + l + 1,
					intern_len(pairs, id) - l - 1);
		}
	}
	r->detected = best > 0;
	r->votes = best;
	free(votes);
	free(only_b);
	intern_destroy(pairs);
	intern_destroy(fa);
	intern_destroy(fb);
}

void
diff_roots_fini(struct diff_roots *r)
{
	free(r->dir[DIFF_BASE]);
	free(r->dir[DIFF_NEW]);
	memset(r, 0, sizeof(*r));
}

struct profile *
diff_by_function(const struct profile *p)
{
	return diff_by_function_under(p, NULL);
}

struct profile *
diff_by_function_under(const struct profile *p, const char *root)
{
	struct profile *q = profile_create();
	uint32_t *map = xmalloc((p->nframes ? p->nframes : 1) * sizeof(*map));
	uint32_t *fr = xmalloc(PROFILE_MAX_DEPTH * sizeof(*fr));
	uint64_t *timed, *timed_w;

	for (uint32_t id = 0; id < p->nframes; id++) {
		const struct profile_frame *f = &p->frames[id];
		enum profile_kind kind;
		char *label, *file;
		char *key = function_key(p, f, id, root, &kind, &label,
					 &file);
		struct profile_frame_desc d = {
			.kind = kind, .name = label ? label : key,
			.file = file, .text = key,
		};

		map[id] = profile_frame_make(q, &d);
		free(key);
		free(label);
		free(file);
	}
	/* Timed samples in their order (the significance test reads it),
	 * then what each stack counts beyond them (collapsed input). */
	timed = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*timed));
	timed_w = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*timed_w));
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct profile_sample *sm = &p->samples[i];
		const struct profile_stack *st = &p->stacks[sm->stack];

		for (uint32_t d = 0; d < st->depth; d++)
			fr[d] = map[st->frames[d]];
		profile_add_weighted(q, sm->time_ns, sm->pid, sm->tid,
				     sm->state, sm->weight_ns, fr, st->depth);
		timed[sm->stack]++;
		timed_w[sm->stack] += sm->weight_ns;
	}
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct profile_stack *st = &p->stacks[s];

		if (st->count <= timed[s] && st->weight_ns <= timed_w[s])
			continue;
		for (uint32_t d = 0; d < st->depth; d++)
			fr[d] = map[st->frames[d]];
		profile_add_count_weight(q, fr, st->depth,
					 st->count > timed[s]
						 ? st->count - timed[s]
						 : 0,
					 st->weight_ns > timed_w[s]
						 ? st->weight_ns - timed_w[s]
						 : 0);
	}
	/* What the time comparison reads: the weights and what they are. */
	q->meta.weighted = p->meta.weighted;
	q->meta.complete = p->meta.complete;
	q->stats.rate_hz = p->stats.rate_hz;
	free(timed);
	free(timed_w);
	free(map);
	free(fr);
	return q;
}

static double
share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static int
cmp_rows(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	double da = fabs(a->total_delta), db = fabs(b->total_delta);

	if (da != db)
		return da < db ? 1 : -1;
	da = fabs(a->self_delta);
	db = fabs(b->self_delta);
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name, b->name);
}

void
diff_compare(const struct profile *base, const struct profile *new_p,
	     struct diff_result *r)
{
	diff_compare_under(base, new_p, NULL, r);
}

void
diff_compare_under(const struct profile *base, const struct profile *new_p,
		   const struct diff_roots *roots, struct diff_result *r)
{
	const struct profile *const b[1] = { base }, *const n[1] = { new_p };

	diff_compare_runs(b, 1, n, 1, roots, 0, r);
}

/*
 * The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (Lentz), for Student's t distribution below.
 */
static double
beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		double del;

		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x /
		     ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-12)
			break;
	}
	return h;
}

static double
beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double
diff_t_sf2(double t, double df)
{
	if (!isfinite(df) || df > 1e6)
		return erfc(fabs(t) / sqrt(2));
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

static int
cmp_p(const void *x, const void *y)
{
	double a = (*(struct diff_row *const *)x)->p;
	double b = (*(struct diff_row *const *)y)->p;

	return (a > b) - (a < b);
}

/*
 * Several runs a side: each function's total share per run, its mean
 * and spread (standard deviation across runs, never below the sampling
 * error of one run), Welch's t on the means, one-sided (growth), and
 * Holm's correction at 1% over the functions whose mean grew by more
 * than pct points (the only ones a verdict can name).
 */
static void
spread_test(struct diff_result *r, const size_t nruns[2], double pct)
{
	struct diff_row **cand = xmalloc((r->nrows ? r->nrows : 1) *
					 sizeof(*cand));
	size_t nc = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		struct diff_row *w = &r->rows[i];
		double v[2], dfd = 0, se2 = 0;

		for (int k = 0; k < 2; k++) {
			double m = w->sum[k] / (double)nruns[k];
			double var = nruns[k] > 1
				? (w->sumsq[k] - nruns[k] * m * m) /
					  (double)(nruns[k] - 1)
				: 0;
			/* The sampling error of one run of the mean size. */
			double n1 = (double)r->samples[k] / (double)nruns[k];
			double floor = n1 > 0 ? m * (100 - m) / n1 : 0;

			w->mean[k] = m;
			w->sd[k] = sqrt(var > 0 ? var : 0);
			v[k] = (var > floor ? var : floor) / (double)nruns[k];
			se2 += v[k];
			/* A side held at its floor counts its runs' degrees
			 * of freedom too, as time mode's does: the floor is
			 * a lower bound (a profile's samples come in runs of
			 * the same stack, so a share varies more than a
			 * binomial), not a known variance. Taken as one,
			 * 3 runs a side with spreads under it made t = 2.91
			 * significant by the normal's tail (p 0.0018) where
			 * Student's 4 df give 0.022. */
			if (nruns[k] > 1)
				dfd += v[k] * v[k] / (double)(nruns[k] - 1);
		}
		w->total_delta = w->mean[DIFF_NEW] - w->mean[DIFF_BASE];
		w->df = dfd > 0 ? se2 * se2 / dfd : INFINITY;
		w->z = se2 > 0 ? w->total_delta / sqrt(se2) : 0;
		/* One-sided: the gate asks whether it grew. */
		w->p = se2 > 0 && w->z > 0 ? diff_t_sf2(w->z, w->df) / 2 : 1;
		w->significant = false;
		if (w->total_delta > pct && se2 > 0)
			cand[nc++] = w;
	}
	qsort(cand, nc, sizeof(*cand), cmp_p);
	for (size_t i = 0; i < nc; i++) {
		if (cand[i]->p > 0.01 / (double)(nc - i))
			break;
		cand[i]->significant = true;
	}
	r->tested = nc;
	free(cand);
}

/*
 * Whether the runs compare by time: every one a weighted recording of a
 * command followed to its end (the whole of a fixed workload), all of
 * one mode. NULL when they do, else why not, for the output.
 */
static const char *
time_mode(const struct profile *const *base, size_t nbase,
	  const struct profile *const *new_p, size_t nnew, bool *cpu)
{
	const char *mode = NULL;

	for (size_t j = 0; j < nbase + nnew; j++) {
		const struct profile *p = j < nbase ? base[j]
						    : new_p[j - nbase];
		const char *m = p->meta.mode ? p->meta.mode : "";

		if (!p->meta.weighted)
			return "a profile has no time weights: collapsed stacks, or a recording without them";
		if (!p->meta.complete)
			return "a recording is not of a command run to its end: an attach, -d or an interrupted run does no fixed work";
		if (mode && strcmp(mode, m))
			return "the recordings mix wall and cpu mode";
		mode = m;
	}
	*cpu = mode && !strcmp(mode, "cpu");
	return NULL;
}

/* The mean and standard deviation of n values from their sums. */
static void
mean_sd(double sum, double sumsq, size_t n, double *mean, double *sd)
{
	double m = n ? sum / (double)n : 0;
	double var = n > 1 ? (sumsq - (double)n * m * m) / (double)(n - 1)
			   : 0;

	*mean = m;
	*sd = sqrt(var > 0 ? var : 0);
}

/*
 * Time mode's degrees of freedom for a change of means whose squared
 * standard error is se2 (dfd: Welch's denominator, the sum over the
 * sides of (var/n)^2 / (n - 1)): Welch's, or Student's where Welch's are
 * fewer. With as many runs a side, Welch's t is Student's, whose df are
 * exact when the sides' spreads are equal (the same code: the false
 * alarms the gate must not raise). Welch's approximation sank to 2 df
 * with 3 runs a side whenever one side's spread came out larger, and
 * missed 2-5% of a 2x slower Shop#tax.
 */
static double
time_df(double se2, double dfd, const size_t nruns[2])
{
	double df = dfd > 0 ? se2 * se2 / dfd : INFINITY;
	double student = (double)(nruns[0] + nruns[1]) - 2;

	return nruns[0] + nruns[1] > 2 && df < student ? student : df;
}

/*
 * How much more a function grew than the rest of the run, seconds: a
 * loaded machine makes all code slower alike (the runs' CPU time moved
 * by 5-15% on a shared 2-CPU host), and a person does not blame a method
 * for that. The rest of the run (the total less the function) grew by a
 * ratio; the function's growth beyond the same ratio of its own time is
 * its own. A rest that got faster discounts nothing (a faster Shop#tax
 * does not make Shop#ship slower). A uniform slowdown is the total's,
 * which --fail-total-above gates, and so is the growth of a function
 * that is the whole run.
 */
static double
excess(const struct diff_result *r, const struct diff_row *w, double *c)
{
	double fb = w->tmean[DIFF_BASE];
	double df = w->tmean[DIFF_NEW] - fb;
	double rest_b = r->tot_mean[DIFF_BASE] - fb;
	double rest_d = r->tot_mean[DIFF_NEW] - r->tot_mean[DIFF_BASE] - df;
	double ratio;

	*c = 0;
	/* The whole run (<main>): its growth is the total's. */
	if (rest_b <= 0.01 * r->tot_mean[DIFF_BASE])
		return 0;
	ratio = rest_d / rest_b;
	/* The rest unchanged but for rounding (the same runs again):
	 * nothing to discount, nor its spread to add. */
	if (ratio <= 1e-9)
		return df;
	*c = fb / rest_b;
	return df - fb * ratio;
}

/*
 * The excess's spread. With c = fb / rest_b (0 when the rest did not
 * grow), the excess is the change of the mean of g = f - c (T - f) =
 * (1 + c) f - c T over each side's runs (f the function's time, T the
 * run's total): a difference of two means like any other, whose runs'
 * variance is (1 + c)^2 var f + c^2 var T - 2 c (1 + c) cov(f, T), never
 * below f's sampling floor (as f's own test: the runs' spread of g is
 * what this test adds; scaled by (1 + c)^2 the floor cost the gate a 2x
 * slower method beside a 20% slower one, 200 samples a run). A run
 * where the whole process ran slower moves f and T together and g little; one where the
 * hot loop ran slower than the start-up (a busy 2-CPU host: Shop#ship
 * +23% while the rest grew 12%, all three runs of one side alike) moves
 * g, and only the runs' spread of g says whether that is more than
 * chance: tested on f alone it failed the same code at t = 6.2.
 */
static void
excess_spread(const struct diff_result *r, struct diff_row *w,
	      const size_t nruns[2], const double floor[2], double c)
{
	double se2 = 0, dfd = 0;

	for (int k = 0; k < 2; k++) {
		double n = (double)nruns[k], var = 0, v;

		if (nruns[k] > 1) {
			double cov = (w->tcross[k] -
				      n * w->tmean[k] * r->tot_mean[k]) /
				     (n - 1);
			double vt = r->tot_sd[k] * r->tot_sd[k];
			double vf = w->tsd[k] * w->tsd[k];

			var = (1 + c) * (1 + c) * vf + c * c * vt -
			      2 * c * (1 + c) * cov;
		}
		if (var < floor[k])
			var = floor[k];
		v = var / n;
		se2 += v;
		if (nruns[k] > 1)
			dfd += v * v / (n - 1);
	}
	w->xse = sqrt(se2);
	w->xdf = time_df(se2, dfd, nruns);
}

/*
 * Time mode: each function's time per run, its mean and spread; the
 * change in percent of the base's mean total time; Welch's t on the
 * means, one-sided (did it get slower?), each side's variance at least
 * one run's sampling error (total time squared x p (1 - p) / samples a
 * run, p its share), and Holm's correction at 1% over the functions
 * whose time grew by more than pct% of the base's total. The total time
 * gets the same test on its own (no floor: it is measured, not
 * sampled).
 */
static void
time_test(struct diff_result *r, const size_t nruns[2])
{
	double base_total, se2 = 0, dfd = 0;

	for (int k = 0; k < 2; k++)
		mean_sd(r->tot_sum[k], r->tot_sumsq[k], nruns[k],
			&r->tot_mean[k], &r->tot_sd[k]);
	base_total = r->tot_mean[DIFF_BASE];
	for (int k = 0; k < 2; k++) {
		double v = r->tot_sd[k] * r->tot_sd[k] / (double)nruns[k];

		se2 += v;
		if (nruns[k] > 1)
			dfd += v * v / (double)(nruns[k] - 1);
	}
	r->tot_delta = base_total > 0
		? 100 * (r->tot_mean[DIFF_NEW] - base_total) / base_total : 0;
	r->tot_z = se2 > 0 ? (r->tot_mean[DIFF_NEW] - base_total) / sqrt(se2)
			   : 0;
	r->tot_se = sqrt(se2);
	r->tot_df = time_df(se2, dfd, nruns);
	r->tot_p = se2 > 0 && r->tot_z > 0
		? diff_t_sf2(r->tot_z, r->tot_df) / 2 : 1;
	for (size_t i = 0; i < r->nrows; i++) {
		struct diff_row *w = &r->rows[i];
		double v[2], floors[2], wdfd = 0, wse2 = 0, sd, c;

		for (int k = 0; k < 2; k++) {
			double var, floor, sh, n1;

			mean_sd(w->tsum[k], w->tsumsq[k], nruns[k],
				&w->tmean[k], &w->tsd[k]);
			w->smean[k] = w->ssum[k] / (double)nruns[k];
			var = nruns[k] > 1 ? w->tsd[k] * w->tsd[k] : 0;
			sh = r->tot_mean[k] > 0 ? w->tmean[k] / r->tot_mean[k]
						: 0;
			n1 = (double)r->samples[k] / (double)nruns[k];
			floor = n1 > 0 ? r->tot_mean[k] * r->tot_mean[k] * sh *
						 (1 - sh) / n1
				       : 0;
			floors[k] = floor;
			v[k] = (var > floor ? var : floor) / (double)nruns[k];
			wse2 += v[k];
			/* A side held at its floor counts its runs' df too:
			 * three runs whose spread came out below one run's
			 * sampling error do not make the floor a known
			 * variance. Taken as one (infinite df, the normal's
			 * tail), the gate failed identical code under
			 * contention: Shop#tax +7.9% of the total, t = 2.4
			 * for more than 5%, p 0.008 (base spread 0.003 s,
			 * new 0.011, both under the floor's 0.015); with
			 * Student's 4 df p is 0.037. */
			if (nruns[k] > 1)
				wdfd += v[k] * v[k] / (double)(nruns[k] - 1);
		}
		sd = base_total > 0 ? 100 / base_total : 0;
		w->total_delta =
			(w->tmean[DIFF_NEW] - w->tmean[DIFF_BASE]) * sd;
		w->self_delta =
			(w->smean[DIFF_NEW] - w->smean[DIFF_BASE]) * sd;
		w->df = time_df(wse2, wdfd, nruns);
		w->se = sqrt(wse2);
		w->significant = false;
		w->excess = excess(r, w, &c) * sd;
		excess_spread(r, w, nruns, floors, c);
		w->time = true;
	}
}


/*
 * The one-sided p of Welch's t that a mean grew by more than thr:
 * delta - thr in standard errors, z set to it.
 */
static double
grew_beyond(double delta, double thr, double se, double df, double *z)
{
	*z = se > 0 ? (delta - thr) / se : 0;
	return se > 0 && *z > 0 ? diff_t_sf2(*z, df) / 2 : 1;
}

/*
 * Time mode's verdict: did a function get slower by more than pct% of
 * the base's total? The null hypothesis is "by pct% at most", not "not
 * at all": a method 4% slower is no FAIL at --fail-above 5, and under
 * contention identical code measured +5.7% (t = 3.5 against no change,
 * spreads of 3 runs a side) and failed one pair in 20 (#18). Welch's t
 * of the growth beyond pct, one-sided, Holm's correction at 1% over the
 * functions a FAIL line could name: those whose time grew by more than
 * pct% and that no callee explains (explain()); the callers that grew
 * through them are never named, so they are not tested either. A
 * caller's growth through its callee that grew most is not its own: the
 * loop around a 2x slower Shop#tax and a Shop#ship 5% slower by chance
 * grew by both, and was named beside Shop#tax in 2% of tries.
 */
static void
time_holm(struct diff_result *r, double pct)
{
	struct diff_row **cand = xmalloc((r->nrows ? r->nrows : 1) *
					 sizeof(*cand));
	double thr = pct / 100 * r->tot_mean[DIFF_BASE];
	size_t nc = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		struct diff_row *w = &r->rows[i];
		double own = w->tmean[DIFF_NEW] - w->tmean[DIFF_BASE] -
			     w->via_pct / 100 * r->tot_mean[DIFF_BASE];
		double xz, xp;

		/* A caller's growth through the call that grew most is
		 * that callee's: the rest of it must exceed pct. */
		w->p = grew_beyond(own, thr, w->se, w->df, &w->z);
		/* So must its growth beyond the rest of the run's, by its
		 * own spread (excess_spread()): the weaker of the two
		 * decides, and is printed. */
		xp = grew_beyond(w->excess / 100 * r->tot_mean[DIFF_BASE],
				 thr, w->xse, w->xdf, &xz);
		if (xp > w->p) {
			w->p = xp;
			w->z = xz;
		}
	}
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].total_delta > pct &&
		    r->rows[i].excess > pct && !r->rows[i].explained)
			cand[nc++] = &r->rows[i];
	qsort(cand, nc, sizeof(*cand), cmp_p);
	for (size_t i = 0; i < nc; i++) {
		if (cand[i]->p > 0.01 / (double)(nc - i))
			break;
		cand[i]->significant = true;
	}
	r->tested = nc;
	free(cand);
}

/* Adds one run's time of the call caller -> callee (row indices). A
 * linear search: a benchmark's call graph has a few hundred calls. */
static void
edge_add(struct diff_result *r, size_t *cap, size_t caller, size_t callee,
	 int k, double sec)
{
	size_t e;

	if (caller == callee)
		return;		/* recursion explains nothing */
	for (e = 0; e < r->nedges; e++)
		if (r->edges[e].caller == caller &&
		    r->edges[e].callee == callee)
			break;
	if (e == r->nedges) {
		r->edges = xgrowarray(r->edges, cap, e + 1, sizeof(*r->edges));
		memset(&r->edges[e], 0, sizeof(*r->edges));
		r->edges[e].caller = caller;
		r->edges[e].callee = callee;
		r->nedges++;
	}
	r->edges[e].sum[k] += sec;
}

/*
 * Time mode, as a person reads a slower run: a function's time includes
 * its callees', so when Shop#tax got slower, <main> and every caller on
 * the way did too. A function whose growth one call it makes accounts
 * for (through that call and in the callee's own total), but for less
 * than the threshold, is explained by that callee:
 * it does not fail, the callee (or, further down, what explains it) is
 * the one named. What grew across several callees, or in the function
 * itself, stays its own.
 */
static void
explain(struct diff_result *r, const size_t nruns[2], double pct)
{
	double base_total = r->tot_mean[DIFF_BASE];

	if (base_total <= 0)
		return;
	for (size_t e = 0; e < r->nedges; e++) {
		const struct diff_edge *ed = &r->edges[e];
		struct diff_row *f = &r->rows[ed->caller];
		double grew = (ed->sum[DIFF_NEW] / (double)nruns[DIFF_NEW] -
			       ed->sum[DIFF_BASE] / (double)nruns[DIFF_BASE]) *
			      100 / base_total;

		const struct diff_row *c = &r->rows[ed->callee];

		/* Only a callee nested in it (a C method merged across its
		 * callers can hold its caller: Integer#times around the
		 * benchmark), through this call, and no more than the
		 * callee grew in all: a callee shared with a faster caller
		 * passes on only what it kept of the growth. */
		if (c->tmean[DIFF_BASE] > f->tmean[DIFF_BASE] ||
		    c->tmean[DIFF_NEW] > f->tmean[DIFF_NEW])
			continue;
		if (c->total_delta < grew)
			grew = c->total_delta;
		if (grew > f->via_pct)
			f->via_pct = grew;

		if (f->total_delta > pct && f->total_delta - grew <= pct &&
		    grew > 0 &&
		    (!f->explained || grew > f->explained_by_pct)) {
			f->explained = c->name;
			f->explained_by_pct = grew;
			f->explained_row = ed->callee;
		}
	}
	/* Equal totals can still make a loop of explanations: a row whose
	 * chain comes back to it explains itself. */
	for (size_t i = 0; i < r->nrows; i++) {
		size_t at = i, steps = 0;

		while (r->rows[at].explained && steps++ < r->nrows) {
			at = r->rows[at].explained_row;
			if (at == i) {
				r->rows[i].explained = NULL;
				break;
			}
		}
	}
}

void
diff_compare_runs(const struct profile *const *base, size_t nbase,
		  const struct profile *const *new_p, size_t nnew,
		  const struct diff_roots *roots, double pct,
		  struct diff_result *r)
{
	const size_t nruns[2] = { nbase, nnew };
	struct intern *names = intern_create();
	size_t cap = 0, ecap = 0;

	memset(r, 0, sizeof(*r));
	r->runs[DIFF_BASE] = nbase;
	r->runs[DIFF_NEW] = nnew;
	r->why_shares = time_mode(base, nbase, new_p, nnew, &r->cpu);
	r->time = !r->why_shares;
	for (size_t j = 0; j < nbase + nnew; j++) {
		int k = j < nbase ? DIFF_BASE : DIFF_NEW;
		const struct profile *run = k == DIFF_BASE ? base[j]
							   : new_p[j - nbase];
		struct profile *q = diff_by_function_under(
			run, roots ? roots->dir[k] : NULL);
		struct callgraph *g = callgraph_create(q);
		double *rho = xmalloc((g->nfuncs ? g->nfuncs : 1) *
				      sizeof(*rho));
		size_t *ids = xmalloc((g->nfuncs ? g->nfuncs : 1) *
				      sizeof(*ids));

		autocorrelation(q, g, rho);
		r->samples[k] += g->samples;
		r->tot_sum[k] += g->weight_ns / 1e9;
		r->tot_sumsq[k] += (g->weight_ns / 1e9) * (g->weight_ns / 1e9);
		for (size_t i = 0; i < g->nfuncs; i++) {
			const char *name = profile_frame_name(q,
							      g->funcs[i].frame);
			uint32_t id = intern_str(names, name);
			struct diff_row *row;
			double sh;

			if (id >= r->nrows) {	/* new: ids are dense */
				r->rows = xgrowarray(r->rows, &cap, id + 1,
						     sizeof(*r->rows));
				memset(&r->rows[id], 0, sizeof(*r->rows));
				r->rows[id].name = xstrdup(name);
				r->nrows = id + 1;
			}
			row = &r->rows[id];
			row->code |= profile_frame_get(q, g->funcs[i].frame)
					     ->file != PROFILE_NO_STR;
			row->total[k] += g->funcs[i].total;
			row->self[k] += g->funcs[i].self;
			sh = share(g->funcs[i].total, g->samples);
			row->sum[k] += sh;
			row->sumsq[k] += sh * sh;
			sh = g->funcs[i].total_ns / 1e9;
			row->tsum[k] += sh;
			row->tsumsq[k] += sh * sh;
			row->tcross[k] += sh * (g->weight_ns / 1e9);
			row->ssum[k] += g->funcs[i].self_ns / 1e9;
			if (rho[i] > row->rho[k])
				row->rho[k] = rho[i];
			ids[i] = id;
		}
		for (size_t e = 0; e < g->nedges; e++)
			edge_add(r, &ecap, ids[g->edges[e].caller],
				 ids[g->edges[e].callee], k,
				 g->edges[e].weight_ns / 1e9);
		free(ids);
		free(rho);
		callgraph_destroy(g);
		profile_destroy(q);
	}
	intern_destroy(names);
	for (size_t i = 0; i < r->nrows; i++) {
		struct diff_row *row = &r->rows[i];

		row->total_delta = share(row->total[DIFF_NEW], r->samples[1]) -
				   share(row->total[DIFF_BASE], r->samples[0]);
		row->self_delta = share(row->self[DIFF_NEW], r->samples[1]) -
				  share(row->self[DIFF_BASE], r->samples[0]);
		/* Clustered samples count for fewer: n (1 - rho) / (1 + rho),
		 * the effective size of an AR(1) series. */
		for (int k = 0; k < 2; k++)
			row->n_eff[k] = (double)r->samples[k] *
					(1 - row->rho[k]) / (1 + row->rho[k]);
		row->z = diff_z_eff(share(row->total[DIFF_BASE],
					  r->samples[0]) / 100,
				    row->n_eff[DIFF_BASE],
				    share(row->total[DIFF_NEW],
					  r->samples[1]) / 100,
				    row->n_eff[DIFF_NEW]);
		row->significant = fabs(row->z) > DIFF_Z99;
		if (row->code) {
			double b = share(row->total[DIFF_BASE], r->samples[0]);
			double n = share(row->total[DIFF_NEW], r->samples[1]);

			if (b > r->code_top[DIFF_BASE])
				r->code_top[DIFF_BASE] = b;
			if (n > r->code_top[DIFF_NEW])
				r->code_top[DIFF_NEW] = n;
			if ((b < n ? b : n) > r->common)
				r->common = b < n ? b : n;
		}
	}
	if (r->time) {
		time_test(r, nruns);
		explain(r, nruns, pct);
		time_holm(r, pct);
	} else if (nbase > 1 || nnew > 1)
		spread_test(r, nruns, pct);
	if (r->nrows)
		qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_rows);
}

void
diff_result_fini(struct diff_result *r)
{
	free(r->edges);
	for (size_t i = 0; i < r->nrows; i++)
		free(r->rows[i].name);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

/* The table of time mode: each function's mean time in seconds, the
 * change in percent of the base's total time. */
static void
print_time_table(const struct diff_result *r, size_t n, FILE *f)
{
	fprintf(f, "       TOTAL (s %s)               SELF (s %s)\n",
		r->cpu ? "on CPU" : "of wall time",
		r->cpu ? "on CPU" : "of wall time");
	fputs("    base      new   change      base      new   change   "
	      "FRAME\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *w = &r->rows[i];

		fprintf(f, "  %7.3f  %7.3f  %+6.1f%%%c  %7.3f  %7.3f  "
			"%+6.1f%%   ",
			w->tmean[DIFF_BASE], w->tmean[DIFF_NEW],
			w->total_delta, w->significant ? '*' : ' ',
			w->smean[DIFF_BASE], w->smean[DIFF_NEW],
			w->self_delta);
		utf8_put_escaped(f, w->name, 0);
		fputc('\n', f);
	}
	if (n < r->nrows)
		fprintf(f, "  (%zu more frames changed less)\n", r->nrows - n);
	fputs("  change: in % of the base's total time; * grew "
	      "significantly at 99% (Welch's t on the mean times, Holm's "
	      "correction)\n", f);
	fprintf(f, "total: %.3f s -> %.3f s %s (%+.1f%%; spread %.3f, %.3f s "
		"over %zu, %zu runs)\n",
		r->tot_mean[DIFF_BASE], r->tot_mean[DIFF_NEW],
		r->cpu ? "on CPU" : "of wall time", r->tot_delta,
		r->tot_sd[DIFF_BASE], r->tot_sd[DIFF_NEW],
		r->runs[DIFF_BASE], r->runs[DIFF_NEW]);
}

static void
print_table(const struct diff_result *r, const char *bname,
	    const char *nname, unsigned limit, FILE *f)
{
	size_t n = r->nrows < limit ? r->nrows : limit;

	fputs("base: ", f);
	utf8_put_escaped(f, bname, 0);
	fprintf(f, ", %llu samples; new: ",
		(unsigned long long)r->samples[DIFF_BASE]);
	utf8_put_escaped(f, nname, 0);
	fprintf(f, ", %llu samples\n",
		(unsigned long long)r->samples[DIFF_NEW]);
	if (r->time) {
		print_time_table(r, n, f);
		return;
	}
	fputs("       TOTAL (% of samples)        SELF (% of samples)\n", f);
	fputs("    base     new   change       base     new   change   "
	      "FRAME\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *w = &r->rows[i];

		fprintf(f, "  %6.1f  %6.1f  %+6.1f%c     %6.1f  %6.1f  %+6.1f   ",
			share(w->total[DIFF_BASE], r->samples[0]),
			share(w->total[DIFF_NEW], r->samples[1]),
			w->total_delta, w->significant ? '*' : ' ',
			share(w->self[DIFF_BASE], r->samples[0]),
			share(w->self[DIFF_NEW], r->samples[1]),
			w->self_delta);
		utf8_put_escaped(f, w->name, 0);
		fputc('\n', f);
	}
	if (n < r->nrows)
		fprintf(f, "  (%zu more frames changed less)\n", r->nrows - n);
	if (r->runs[DIFF_BASE] > 1 || r->runs[DIFF_NEW] > 1)
		fputs("  * grew significantly at 99% across the runs "
		      "(Welch's t on the mean shares, Holm's correction)\n",
		      f);
	else
		fputs("  * significant at 99% (two-proportion z test)\n", f);
}

/* Text for a Markdown table cell: control characters escaped as the
 * terminal table does, then Markdown's and HTML's own characters. */
static void
md_put(FILE *f, const char *s)
{
	size_t cap = strlen(s) * 4 + 8;
	char *buf = xmalloc(cap);

	utf8_escape(s, buf, cap, 0);
	for (const char *c = buf; *c; c++) {
		switch (*c) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '|': case '\\': case '`': case '*': case '_': case '[':
		case ']': case '#': case '~': case '!':
			fputc('\\', f);
			fputc(*c, f);
			break;
		default:
			fputc(*c, f);
		}
	}
	free(buf);
}

/* Markdown's table in time mode: seconds, changes in % of the base's
 * total time. */
static void
write_time_rows(const struct diff_result *r, const struct diff_markdown *m,
		size_t n, FILE *f)
{
	fputs("\n| function | total base (s) | total new (s) | change "
	      "| self base (s) | self new (s) | change |\n"
	      "|:--|--:|--:|--:|--:|--:|--:|\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *w = &r->rows[i];
		bool fail = m->verdict == DIFF_FAIL &&
			    diff_row_fails(w, m->fail_above);

		fputs(fail ? "| **FAIL** " : "| ", f);
		md_put(f, w->name);
		fprintf(f, " | %.3f | %.3f | %+.1f%%%s | %.3f | %.3f "
			"| %+.1f%% |\n",
			w->tmean[DIFF_BASE], w->tmean[DIFF_NEW],
			w->total_delta, w->significant ? "\\*" : "",
			w->smean[DIFF_BASE], w->smean[DIFF_NEW],
			w->self_delta);
	}
	if (n < r->nrows)
		fprintf(f, "\n%zu more function%s changed less.\n",
			r->nrows - n, r->nrows - n == 1 ? "" : "s");
	fputs("\nChanges in % of the base's total time; \\* grew "
	      "significantly at 99% (Welch's t on the mean times, Holm's "
	      "correction)\n", f);
}

int
diff_write_markdown(const struct diff_result *r,
		    const struct diff_markdown *m, FILE *f)
{
	size_t n = r->nrows < m->limit ? r->nrows : m->limit;
	static const char *const verdict[] = {
		[DIFF_REPORT] = "", [DIFF_PASS] = ": PASS",
		[DIFF_FAIL] = ": FAIL", [DIFF_NO_VERDICT] = ": no verdict",
	};

	fprintf(f, "### rbflame diff%s\n\n", verdict[m->verdict]);
	if (m->verdict == DIFF_NO_VERDICT && m->reason) {
		md_put(f, m->reason);
		fputs("\n\n", f);
	}
	fputs("- base ", f);
	md_put(f, m->base_name);
	fprintf(f, ": %llu samples; new ",
		(unsigned long long)r->samples[DIFF_BASE]);
	md_put(f, m->new_name);
	fprintf(f, ": %llu samples\n",
		(unsigned long long)r->samples[DIFF_NEW]);
	if (m->roots && m->roots->dir[DIFF_BASE]) {
		fputs("- roots: base ", f);
		md_put(f, m->roots->dir[DIFF_BASE]);
		fputs(", new ", f);
		md_put(f, m->roots->dir[DIFF_NEW]);
		fputs(m->roots->detected ? " (detected)\n" : " (--root)\n", f);
	}
	if (r->time)
		fprintf(f, "- compared: each function's %s time, every "
			"recording a command run to its end; total %.3f s -> "
			"%.3f s (%+.1f%%)\n", r->cpu ? "on-CPU" : "wall",
			r->tot_mean[DIFF_BASE], r->tot_mean[DIFF_NEW],
			r->tot_delta);
	else
		fprintf(f, "- compared: shares of samples (%s)\n",
			r->why_shares);
	if (m->fail_above >= 0 && r->time)
		fprintf(f, "- fails when a function's time grows by more "
			"than %g%% of the base's total, significantly at "
			"99%%\n", m->fail_above);
	else if (m->fail_above >= 0)
		fprintf(f, "- fails when a function's total share grows by "
			"more than %g points, significantly at 99%%\n",
			m->fail_above);
	if (m->fail_total_above >= 0)
		fprintf(f, "- fails when the total time grows by more than "
			"%g%%%s\n", m->fail_total_above,
			diff_total_fails(r, m->fail_total_above) ? ": **FAIL**"
								  : "");
	if (r->time) {
		write_time_rows(r, m, n, f);
		return ferror(f) ? -1 : 0;
	}
	fputs("\n| function | total base | total new | change "
	      "| self base | self new | change |\n"
	      "|:--|--:|--:|--:|--:|--:|--:|\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *w = &r->rows[i];
		bool fail = m->verdict == DIFF_FAIL &&
			    diff_row_fails(w, m->fail_above);

		fputs(fail ? "| **FAIL** " : "| ", f);
		md_put(f, w->name);
		fprintf(f, " | %.1f%% | %.1f%% | %+.1f%s | %.1f%% | %.1f%% "
			"| %+.1f |\n",
			share(w->total[DIFF_BASE], r->samples[0]),
			share(w->total[DIFF_NEW], r->samples[1]),
			w->total_delta, w->significant ? "\\*" : "",
			share(w->self[DIFF_BASE], r->samples[0]),
			share(w->self[DIFF_NEW], r->samples[1]),
			w->self_delta);
	}
	if (n < r->nrows)
		fprintf(f, "\n%zu more function%s changed less.\n",
			r->nrows - n, r->nrows - n == 1 ? "" : "s");
	if (r->runs[DIFF_BASE] > 1 || r->runs[DIFF_NEW] > 1)
		fputs("\n\\* grew significantly at 99% across the runs "
		      "(Welch's t on the mean shares, Holm's correction)\n",
		      f);
	else
		fputs("\n\\* significant at 99% (two-proportion z test)\n",
		      f);
	return ferror(f) ? -1 : 0;
}

bool
diff_row_fails(const struct diff_row *w, double fail_above)
{
	return fail_above >= 0 && w->total_delta > fail_above &&
	       w->significant && !w->explained &&
	       (!w->time || w->excess > fail_above);
}

bool
diff_total_fails(const struct diff_result *r, double pct)
{
	bool spread = r->runs[DIFF_BASE] > 1 || r->runs[DIFF_NEW] > 1;

	double z;

	if (pct < 0 || !r->time || r->tot_delta <= pct)
		return false;
	/* One run a side, or runs of the same total: the change as
	 * measured. Else significantly more than pct%, as time_holm(). */
	return !spread || r->tot_se == 0 ||
	       grew_beyond(r->tot_mean[DIFF_NEW] - r->tot_mean[DIFF_BASE],
			   pct / 100 * r->tot_mean[DIFF_BASE], r->tot_se,
			   r->tot_df, &z) <= 0.01;
}

/* Every stack of the tree with its self samples in both profiles, the
 * base scaled to the new profile's total, as difffolded.pl -n does. */
static void
put_diff_stacks(const struct flametree *t, uint32_t id, char *path,
		size_t len, size_t cap, double scale, FILE *f)
{
	const struct flametree_node *n = &t->nodes[id];

	if (id != FLAMETREE_ROOT) {
		const char *text = flametree_str(t, n->text);
		size_t tl = strlen(text);
		char *clean = xmalloc(tl * 3 + 8);
		size_t cl = collapsed_sanitize(text, tl, clean, tl * 3 + 8);

		if (len + cl + 2 < cap) {
			if (len)
				path[len++] = ';';
			memcpy(path + len, clean, cl);
			len += cl;
		}
		free(clean);
		if (n->self[FLAMETREE_BASE] || n->self[FLAMETREE_NEW])
			fprintf(f, "%.*s %llu %llu\n", (int)len, path,
				(unsigned long long)llround(
					(double)n->self[FLAMETREE_BASE] * scale),
				(unsigned long long)n->self[FLAMETREE_NEW]);
	}
	for (uint32_t k = n->child; k != FLAMETREE_NONE; k = t->nodes[k].next)
		put_diff_stacks(t, k, path, len, cap, scale, f);
}

/* One output file, through outfile: renamed into place when complete. */
static int
write_file(const char *path, const char *what,
	   int (*fn)(const void *, FILE *), const void *arg)
{
	struct outfile *o = outfile_open(path);

	if (!o) {
		if (errno == ELOOP)
			error_msg("diff: not writing %s '%s': it is a symbolic link, which rbflame does not write through; give the file it points to",
				  what, path);
		else
			perror_msg("diff: cannot open %s '%s'", what, path);
		return -1;
	}
	errno = 0;
	if (fn(arg, outfile_stream(o)) < 0) {
		perror_msg("diff: cannot write %s '%s'", what, path);
		outfile_abort(o);
		return -1;
	}
	if (outfile_commit(o) < 0) {
		perror_msg("diff: cannot write %s '%s' (left as it was)", what,
			   path);
		return -1;
	}
	return 0;
}

struct tree_arg {
	const struct flametree *t;
	const struct svg_params *sp;
};

static int
svg_fn(const void *arg, FILE *f)
{
	const struct tree_arg *a = arg;

	return svg_write(a->t, a->sp, f);
}

static int
collapsed_fn(const void *arg, FILE *f)
{
	const struct flametree *t = ((const struct tree_arg *)arg)->t;
	const struct flametree_node *r = &t->nodes[FLAMETREE_ROOT];
	double scale = r->total[FLAMETREE_BASE]
			       ? (double)r->total[FLAMETREE_NEW] /
					 (double)r->total[FLAMETREE_BASE]
			       : 1.0;
	size_t cap = 1 << 20;
	char *path = xmalloc(cap);

	put_diff_stacks(t, FLAMETREE_ROOT, path, 0, cap, scale, f);
	free(path);
	return ferror(f) ? -1 : 0;
}

struct md_arg {
	const struct diff_result *r;
	const struct diff_markdown *m;
};

static int
markdown_fn(const void *arg, FILE *f)
{
	const struct md_arg *a = arg;

	return diff_write_markdown(a->r, a->m, f);
}

enum {
	OPT_FAIL_ABOVE = 0x100,
	OPT_SVG,
	OPT_COLLAPSED,
	OPT_TITLE,
	OPT_LIMIT,
	OPT_ROOT,
	OPT_MARKDOWN,
	OPT_FAIL_TOTAL_ABOVE,
};

static const struct option long_options[] = {
	{ "fail-above", required_argument, NULL, OPT_FAIL_ABOVE },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "collapsed", required_argument, NULL, OPT_COLLAPSED },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "markdown", required_argument, NULL, OPT_MARKDOWN },
	{ "fail-total-above", required_argument, NULL, OPT_FAIL_TOTAL_ABOVE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A root as the profiles name files: resolved when it exists here, and
 * without a trailing '/'. */
static char *
root_dir(const char *dir)
{
	char *r = realpath(dir, NULL);
	size_t n;

	if (!r)
		r = xstrdup(dir);
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		r[--n] = '\0';
	return r;
}

static void
print_roots(const struct diff_roots *roots, FILE *f)
{
	if (!roots->dir[DIFF_BASE]) {
		fputs("roots: none (no file differs only by its directory; "
		      "files compare by their whole path)\n", f);
		return;
	}
	fputs("roots: base ", f);
	utf8_put_escaped(f, roots->dir[DIFF_BASE], 0);
	fputs(", new ", f);
	utf8_put_escaped(f, roots->dir[DIFF_NEW], 0);
	if (roots->detected)
		fprintf(f, " (detected: %zu file%s differ only by them; "
			"--root sets them)\n", roots->votes,
			roots->votes == 1 ? "" : "s");
	else
		fputs(" (--root)\n", f);
}

/* A failing function in time mode: its times, the change, the spread. */
static void
print_time_fail(const struct diff_result *r, const struct diff_row *w,
		double fail_above)
{
	printf(": %s time %.3f s -> %.3f s (%+.3f s, %+.1f%% of the base's "
	       "%.3f s, above %g%%; spread %.3f, %.3f s over %zu, %zu runs; "
	       "t = %.1f for more than %g%%, significant at 99%% over %zu "
	       "function%s)\n",
	       r->cpu ? "on-CPU" : "wall", w->tmean[DIFF_BASE],
	       w->tmean[DIFF_NEW], w->tmean[DIFF_NEW] - w->tmean[DIFF_BASE],
	       w->total_delta, r->tot_mean[DIFF_BASE], fail_above,
	       w->tsd[DIFF_BASE], w->tsd[DIFF_NEW], r->runs[DIFF_BASE],
	       r->runs[DIFF_NEW], w->z, fail_above, r->tested,
	       r->tested == 1 ? "" : "s");
}

static void
print_time_pass(const struct diff_result *r, double fail_above,
		double fail_total)
{
	fputs("PASS:", stdout);
	if (fail_above >= 0)
		printf(" no function's time grew by more than %g%% of the "
		       "base's total significantly%s", fail_above,
		       fail_total >= 0 ? ";" : "");
	if (fail_total >= 0)
		printf(" total time %+.1f%%, within %g%%", r->tot_delta,
		       fail_total);
	putchar('\n');
}

/*
 * The fewest samples a side needs for a function going from 0 to pct
 * points of it to be significant at 99%: below, --fail-above could never
 * fail. (p2 = d, p1 = 0, pooled d/2: z^2 = d n / (1 - d/2) for equal n.)
 */
static double
samples_needed(double pct)
{
	double d = (pct < 1 ? 1 : pct) / 100;

	return DIFF_Z99 * DIFF_Z99 * (1 - d / 2) / d;
}

static struct profile *
load(const char *path)
{
	struct profile *p = profile_create();
	char err[512];

	if (profile_load_file(p, path, err, sizeof(err)) < 0) {
		error_msg("diff: %s", err);
		profile_destroy(p);
		return NULL;
	}
	return p;
}

int
diff_main(int argc, char **argv)
{
	const char *svg = NULL, *collapsed = NULL, *title = NULL;
	const char *markdown = NULL;
	struct diff_roots roots = { 0 };
	struct diff_markdown md = { 0 };
	char *reason = NULL;
	double fail_above = -1, fail_total = -1;
	unsigned limit = DEFAULT_ROWS;
	struct profile **base = NULL, **new_p = NULL;
	char **files[2], *name[2] = { NULL, NULL };
	size_t nb = 0, nn = 0;
	bool spread;
	struct diff_result r;
	int c, code = 0, dd = -1, full_argc = argc;
	char *end;

	/* BASE... -- NEW...: options come before the "--". */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dd = i;
			argc = i;
			break;
		}

	exit_code_on_die = 2;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) !=
	       -1) {
		switch (c) {
		case OPT_FAIL_ABOVE:
			errno = 0;
			fail_above = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !isfinite(fail_above) || fail_above < 0 ||
			    fail_above >= 100)
				error_msg_and_help("diff: invalid --fail-above '%s': expected percentage points from 0 to 100, such as 5",
						   optarg);
			break;
		case OPT_FAIL_TOTAL_ABOVE:
			errno = 0;
			fail_total = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !isfinite(fail_total) || fail_total < 0 ||
			    fail_total > 1000)
				error_msg_and_help("diff: invalid --fail-total-above '%s': expected a percentage of the base's total time from 0 to 1000, such as 5",
						   optarg);
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case OPT_COLLAPSED:
			collapsed = optarg;
			break;
		case OPT_MARKDOWN:
			markdown = optarg;
			break;
		case OPT_TITLE:
			title = optarg;
			break;
		case OPT_LIMIT: {
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 1 ||
			    v > 1000000)
				error_msg_and_help("diff: invalid limit '%s': expected a number of rows from 1 to 1000000",
						   optarg);
			limit = (unsigned)v;
			break;
		}
		case OPT_ROOT:
			if (optind >= argc || !*optarg || !*argv[optind])
				error_msg_and_help("diff: --root needs two directories, BASE_DIR and NEW_DIR");
			diff_roots_fini(&roots);
			roots.dir[DIFF_BASE] = root_dir(optarg);
			roots.dir[DIFF_NEW] = root_dir(argv[optind++]);
			break;
		case 'h':
			fputs(diff_help, stdout);
			diff_roots_fini(&roots);
			return 0;
		case ':':
			error_msg_and_help("diff: option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				error_msg_and_help("diff: unknown option '-%c'",
						   optopt);
			error_msg_and_help("diff: unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (dd < 0 && argc - optind != 2)
		error_msg_and_help("diff: give two profiles, BASE and NEW, or runs of each: BASE... -- NEW...");
	if (dd >= 0 && (optind >= dd || dd + 1 >= full_argc))
		error_msg_and_help("diff: give at least one profile on each side of '--': BASE... -- NEW...");
	nb = dd >= 0 ? (size_t)(dd - optind) : 1;
	nn = dd >= 0 ? (size_t)(full_argc - dd - 1) : 1;
	files[DIFF_BASE] = argv + optind;
	files[DIFF_NEW] = dd >= 0 ? argv + dd + 1 : argv + optind + 1;
	base = xcalloc(nb, sizeof(*base));
	new_p = xcalloc(nn, sizeof(*new_p));
	for (size_t i = 0; i < nb + nn; i++) {
		struct profile **slot = i < nb ? &base[i] : &new_p[i - nb];

		*slot = load(i < nb ? files[DIFF_BASE][i]
				    : files[DIFF_NEW][i - nb]);
		if (!*slot) {
			code = 2;
			goto out_profiles;
		}
	}

	if (!roots.dir[DIFF_BASE])
		diff_roots_detect(base[0], new_p[0], &roots);
	diff_compare_runs((const struct profile *const *)base, nb,
			  (const struct profile *const *)new_p, nn, &roots,
			  fail_above < 0 ? 0 : fail_above, &r);
	spread = nb > 1 || nn > 1;
	for (int k = 0; k < 2; k++) {
		size_t n = k == DIFF_BASE ? nb : nn;

		name[k] = n > 1 ? xasprintf("%s and %zu more", files[k][0],
					    n - 1)
				: xstrdup(files[k][0]);
	}
	print_roots(&roots, stdout);
	if (r.time)
		printf("compared: time (each function's %s seconds, every "
		       "recording a command run to its end)\n",
		       r.cpu ? "on-CPU" : "wall-clock");
	else
		printf("compared: shares of samples (%s)\n", r.why_shares);
	print_table(&r, name[DIFF_BASE], name[DIFF_NEW], limit, stdout);
	if (spread && !r.time)
		printf("runs: base %zu, new %zu: the change is of the mean "
		       "share, its significance from the run-to-run spread "
		       "(one-sided Welch's t, Holm's correction over %zu "
		       "function%s that grew by more than %g points)\n",
		       nb, nn, r.tested, r.tested == 1 ? "" : "s",
		       fail_above < 0 ? 0 : fail_above);
	md.base_name = name[DIFF_BASE];
	md.new_name = name[DIFF_NEW];
	md.roots = &roots;
	md.limit = limit;
	md.fail_above = fail_above;
	md.fail_total_above = fail_total;
	/* No verdict: why, in one line. */
	if (fail_above >= 0 &&
	    ((double)r.samples[DIFF_BASE] < samples_needed(fail_above) ||
	     (double)r.samples[DIFF_NEW] < samples_needed(fail_above)))
		reason = xasprintf("too few samples to decide: base %llu, new %llu; a change of %g points needs %.0f a side to be significant at 99%%",
				   (unsigned long long)r.samples[DIFF_BASE],
				   (unsigned long long)r.samples[DIFF_NEW],
				   fail_above < 1 ? 1 : fail_above,
				   ceil(samples_needed(fail_above)));
	else if (r.code_top[DIFF_BASE] >= 50 && r.code_top[DIFF_NEW] >= 50 &&
		 r.common < 10)
		reason = xasprintf("the profiles are of different programs: no method is on the stack in more than %.1f%% of both (with --root BASE_DIR NEW_DIR if they ran from two checkouts)",
				   r.common);
	else if (fail_total >= 0 && !r.time)
		reason = xasprintf("--fail-total-above compares total time, which these profiles cannot give: %s",
				   r.why_shares);
	md.verdict = reason ? DIFF_NO_VERDICT : DIFF_REPORT;
	if (!reason && (fail_above >= 0 || fail_total >= 0)) {
		md.verdict = DIFF_PASS;
		for (size_t i = 0; i < r.nrows; i++)
			if (diff_row_fails(&r.rows[i], fail_above))
				md.verdict = DIFF_FAIL;
		if (diff_total_fails(&r, fail_total))
			md.verdict = DIFF_FAIL;
	}
	md.reason = reason;

	if (!reason && (svg || collapsed)) {
		struct flametree *t = flametree_create();
		char sub[256];
		struct svg_params sp = {
			.title = title, .subtitle = sub, .diff = true,
		};
		struct tree_arg ta = { .t = t, .sp = &sp };

		snprintf(sub, sizeof(sub),
			 "base %llu samples, new %llu samples; frames by "
			 "function",
			 (unsigned long long)r.samples[DIFF_BASE],
			 (unsigned long long)r.samples[DIFF_NEW]);
		for (size_t i = 0; i < nn + nb; i++) {
			int k = i < nn ? DIFF_NEW : DIFF_BASE;
			struct profile *q = diff_by_function_under(
				k == DIFF_NEW ? new_p[i] : base[i - nn],
				roots.dir[k]);

			flametree_add(t, q, k == DIFF_NEW ? FLAMETREE_NEW
							  : FLAMETREE_BASE);
			profile_destroy(q);
		}
		flametree_sort(t);
		if (svg && write_file(svg, "SVG file", svg_fn, &ta) < 0)
			code = 2;
		if (collapsed && write_file(collapsed, "collapsed file",
					    collapsed_fn, &ta) < 0)
			code = 2;
		flametree_destroy(t);
	}
	if (markdown) {
		struct md_arg ma = { .r = &r, .m = &md };

		if (write_file(markdown, "Markdown file", markdown_fn, &ma) < 0)
			code = 2;
	}

	if (reason) {
		fflush(stdout);
		error_msg("diff: %s", reason);
		code = 2;
	} else if (code == 0 && (fail_above >= 0 || fail_total >= 0)) {
		for (size_t i = 0; i < r.nrows; i++) {
			const struct diff_row *w = &r.rows[i];

			if (!diff_row_fails(w, fail_above))
				continue;
			fputs("FAIL: ", stdout);
			utf8_put_escaped(stdout, w->name, 0);
			if (r.time) {
				print_time_fail(&r, w, fail_above);
				continue;
			}
			if (spread) {
				printf(": mean total share %.1f%% -> %.1f%% "
				       "(%+.1f points, above %g; spread %.1f, "
				       "%.1f points over %zu, %zu runs; t = "
				       "%.1f, significant at 99%% over %zu "
				       "functions)\n",
				       w->mean[DIFF_BASE], w->mean[DIFF_NEW],
				       w->total_delta, fail_above,
				       w->sd[DIFF_BASE], w->sd[DIFF_NEW], nb,
				       nn, w->z, r.tested);
				continue;
			}
			printf(": total share %.1f%% -> %.1f%% "
			       "(%+.1f points, above %g; z = %.1f, "
			       "significant at 99%%; effective "
			       "samples %.0f, %.0f)\n",
			       share(w->total[DIFF_BASE], r.samples[0]),
			       share(w->total[DIFF_NEW], r.samples[1]),
			       w->total_delta, fail_above, w->z,
			       w->n_eff[DIFF_BASE], w->n_eff[DIFF_NEW]);
		}
		if (diff_total_fails(&r, fail_total))
			printf("FAIL: total time: %.3f s -> %.3f s (%+.1f%%, "
			       "above %g%%; spread %.3f, %.3f s over %zu, %zu "
			       "runs)\n",
			       r.tot_mean[DIFF_BASE], r.tot_mean[DIFF_NEW],
			       r.tot_delta, fail_total, r.tot_sd[DIFF_BASE],
			       r.tot_sd[DIFF_NEW], nb, nn);
		if (md.verdict == DIFF_FAIL)
			code = 1;
		else if (r.time)
			print_time_pass(&r, fail_above, fail_total);
		else
			printf("PASS: no function's total share grew by more "
			       "than %g points significantly\n", fail_above);
	}
	if (fflush(stdout) != 0) {
		perror_msg("diff: cannot write the table");
		code = 2;
	}
	free(reason);
	free(name[DIFF_BASE]);
	free(name[DIFF_NEW]);
	diff_result_fini(&r);
out_profiles:
	for (size_t i = 0; i < nb; i++)
		profile_destroy(base[i]);
	for (size_t i = 0; i < nn; i++)
		profile_destroy(new_p[i]);
	free(base);
	free(new_p);
	diff_roots_fini(&roots);
	return code;
}
