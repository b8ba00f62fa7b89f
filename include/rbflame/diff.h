/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The rbflame authors */
/*
 * "rbflame diff BASE NEW": how two profiles of the same program differ,
 * function by function (frames that differ only by line are one, so a
 * shifted line does not read as a change). The comparison is pure and
 * unit-tested; diff_main() reads the files and writes the table, the
 * differential flamegraph and flamegraph.pl's differential input.
 */
#ifndef RBFLAME_DIFF_H
#define RBFLAME_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rbflame/profile.h"

/* |z| above this: a difference of proportions significant at 99%
 * (two-sided). */
#define DIFF_Z99 2.5758293035489004

enum { DIFF_BASE, DIFF_NEW };

struct diff_row {
	char *name;		/* "LABEL (FILE)", or the frame's text */
	uint64_t total[2];	/* samples with it on the stack, per profile */
	uint64_t self[2];	/* samples with it as the leaf */
	double total_delta;	/* change of the total share, in points */
	double self_delta;
	double rho[2];		/* lag-1 autocorrelation of its presence
				 * along each thread's timed samples */
	double n_eff[2];	/* samples as independent evidence */
	double z;		/* two-proportion z of the total share,
				 * from the effective sample sizes */
	bool significant;	/* |z| > DIFF_Z99 */
	bool code;		/* a Ruby or C method (it has a file) */
	/* Several runs a side (diff_compare_runs): */
	double sum[2], sumsq[2];	/* of its total share per run */
	double mean[2], sd[2];	/* its total share's mean and spread */
	double df;		/* Welch's degrees of freedom */
	double p;		/* one-sided p of Welch's t (in z) */
	double se;		/* time mode: the standard error of the
				 * change of its mean time, s */
	/* Time mode (diff_result.time): seconds, summed over the runs */
	double tsum[2], tsumsq[2];	/* its total time per run */
	double tcross[2];		/* ... times the run's total time */
	double ssum[2];			/* its self time */
	double tmean[2], tsd[2];	/* total time's mean and spread */
	double smean[2];		/* self time's mean */
	const char *explained;	/* time mode: the callee whose growth
				 * accounts for this one's but for less
				 * than the threshold (it fails instead,
				 * or the growth is below it), or NULL */
	double explained_by_pct;	/* that call's growth */
	double via_pct;		/* time mode: the growth of its call that
				 * grew most (nested callees), in % of the
				 * base's total: not its own */
	size_t explained_row;	/* its row, before the rows are sorted */
	double excess;		/* time mode: its growth beyond the rest of
				 * the run's (a slower machine), in % of
				 * the base's total */
	double xse, xdf;	/* time mode: the excess's standard error
				 * (s) and degrees of freedom */
	bool time;		/* compared by time */
};

struct diff_result {
	struct diff_row *rows;	/* largest |total_delta| first */
	size_t nrows;
	uint64_t samples[2];
	double code_top[2];	/* the largest total share of a method */
	double common;		/* the largest share a method has in both:
				 * the smaller of its two total shares */
	size_t runs[2];		/* profiles a side */
	size_t tested;		/* several runs: functions tested (Holm) */
	/*
	 * Time mode: every profile is a weighted recording of a command run
	 * to its end, all in one mode, so each function's time is compared:
	 * total_delta and self_delta are then the change of its mean time
	 * in percent of the base's mean total time, and z, p, significant
	 * test that change (Welch's t over the runs, never below one run's
	 * sampling error, one-sided, Holm). Otherwise shares, and why_shares
	 * says why.
	 */
	bool time;
	bool cpu;		/* the recordings are of cpu mode */
	const char *why_shares;	/* static text, NULL in time mode */
	double tot_sum[2], tot_sumsq[2];	/* each run's total time, s */
	double tot_mean[2], tot_sd[2];
	double tot_delta;	/* the total's change, % of the base's */
	double tot_z, tot_p;	/* Welch's t of it, one-sided p */
	double tot_se, tot_df;	/* its standard error (s), Welch's df */
	struct diff_edge *edges;	/* time mode: calls, by row index
					 * before the rows are sorted */
	size_t nedges;
};

/* A call between two functions, its time summed over each side's runs. */
struct diff_edge {
	size_t caller, callee;
	double sum[2];
};

/*
 * Where each side's own source tree is, so that two checkouts of one
 * program compare: a file under a root is named relative to it; a file
 * elsewhere (a library, a gem) by its whole path.
 */
struct diff_roots {
	char *dir[2];		/* base's and new's root, or NULL */
	bool detected;		/* found by diff_roots_detect() */
	size_t votes;		/* file pairs that agreed on them */
};

/**
 * Finds the roots of two checkouts: among the files each profile's Ruby
 * frames name that the other does not, the pair of directory prefixes
 * that most pairs of files differ by alone ("/a/base" and "/a/new" for
 * "/a/base/lib/x.rb" and "/a/new/lib/x.rb"). None found: both NULL,
 * detected false. diff_roots_fini frees.
 */
void diff_roots_detect(const struct profile *base,
		       const struct profile *new_p, struct diff_roots *r);
void diff_roots_fini(struct diff_roots *r);

/**
 * A copy of p with every frame replaced by its function (line dropped):
 * "LABEL (FILE)" for Ruby and C-function frames (structured, or read back
 * from collapsed text), the frame's text for the rest. The caller
 * destroys it.
 */
struct profile *diff_by_function(const struct profile *p);
/** The same with files under root (NULL: none) named relative to it. */
struct profile *diff_by_function_under(const struct profile *p,
				       const char *root);

/** Compares base and new (any profiles) into r; diff_result_fini frees. */
void diff_compare(const struct profile *base, const struct profile *new_p,
		  struct diff_result *r);
/**
 * Several profiles a side (runs of the same benchmark): counts summed
 * for the table; with more than one run on a side, total_delta is the
 * change of the mean total share, z Welch's t from the run-to-run spread
 * (never below one run's sampling error), and significant means a
 * growth significant at 1% (one-sided) after Holm's correction over the
 * functions whose mean share grew by more than pct points.
 */
void diff_compare_runs(const struct profile *const *base, size_t nbase,
		       const struct profile *const *new_p, size_t nnew,
		       const struct diff_roots *roots, double pct,
		       struct diff_result *r);
/** Two-sided tail of Student's t with df degrees of freedom (infinite:
 * the normal's). */
double diff_t_sf2(double t, double df);
/** The same with each side's files under its root (roots may be NULL)
 * named relative to it. */
void diff_compare_under(const struct profile *base,
			const struct profile *new_p,
			const struct diff_roots *roots, struct diff_result *r);
void diff_result_fini(struct diff_result *r);

/**
 * The two-proportion z statistic of x2/n2 against x1/n1 (pooled), 0 when
 * either count is 0 or nothing varies.
 */
double diff_z(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2);

/**
 * The same from shares p1, p2 (0..1) and effective sample sizes n1, n2,
 * which clustered samples make smaller than the counts.
 */
double diff_z_eff(double p1, double n1, double p2, double n2);

/** Whether w fails --fail-above pct (negative: no threshold): its total
 * share grew by more than pct points (time mode: its time by more than
 * pct% of the base's total time), significantly at 99%. */
bool diff_row_fails(const struct diff_row *w, double pct);
/** Whether r's total time fails --fail-total-above pct (negative: no
 * threshold): time mode only, grew by more than pct% of the base's, and
 * significantly at 99% when either side has several runs. */
bool diff_total_fails(const struct diff_result *r, double pct);

enum diff_verdict {
	DIFF_REPORT,		/* no --fail-above */
	DIFF_PASS,
	DIFF_FAIL,
	DIFF_NO_VERDICT,	/* the profiles cannot be compared */
};

/* What the Markdown summary says beside the rows. */
struct diff_markdown {
	enum diff_verdict verdict;
	const char *reason;	/* DIFF_NO_VERDICT: why, one line */
	const char *base_name, *new_name;	/* the files */
	const struct diff_roots *roots;		/* or NULL */
	double fail_above;	/* negative: none */
	double fail_total_above; /* negative: none */
	size_t limit;		/* rows */
};

/**
 * Writes r for a CI job's summary: a heading with the verdict, the
 * files, roots and threshold, then the first m->limit rows as a
 * Markdown table (failing rows marked **FAIL**, significant changes
 * with *). Names are escaped for Markdown and HTML. -1 on a write error.
 */
int diff_write_markdown(const struct diff_result *r,
			const struct diff_markdown *m, FILE *f);

/**
 * Runs "rbflame diff"; argv[0] is "diff". Returns 0 (no frame grew too
 * much, or no --fail-above), 1 (some frame's total share grew by more
 * than --fail-above points, significantly at 99%), 2 on an error.
 */
int diff_main(int argc, char **argv);

#endif
