/* SPDX-License-Identifier: ISC */
/* stats.h - summary statistics over samples: percentiles, median, spread (pure). */
#ifndef NCPV_STATS_H
#define NCPV_STATS_H

#include <stddef.h>

struct stats_summary {
	size_t n;
	double min, max, mean, median, p90, p99, stddev;
};

/* Sorts v in place (ascending) and fills *out; n may be 0 (all zero). */
void stats_summarize(double *v, size_t n, struct stats_summary *out);

/* Percentile p (0..100) of an ascending array by linear interpolation
 * between closest ranks. n must be > 0. */
double stats_percentile(const double *sorted, size_t n, double p);

/* Result of comparing two samples. */
struct stats_test {
	double u;	/* Mann-Whitney U of a: pairs with a > b, ties counting one half */
	double p;	/* two-sided p-value: the chance of a U this far from n_a*n_b/2 when
			 * both samples come from one distribution */
	int exact;	/* 1: p from the exact distribution (no ties, both n <= 20);
			 * 0: normal approximation with tie correction */
};

/*
 * Mann-Whitney U (Wilcoxon rank-sum) test of whether a and b differ by more
 * than their spread. Needs no assumption about the shape of the spread,
 * which suits a few noisy benchmark runs. The smallest possible p is
 * 2 / C(na+nb, na): 0.1 for 3 runs each, 0.008 for 5 each, 1 for 1 each.
 * Returns 0, or -1 (errno EINVAL) when a sample is empty or larger than
 * STATS_TEST_MAX. Allocates scratch memory (-1 with ENOMEM on failure).
 */
#define STATS_TEST_MAX 100000
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_test *out);

#endif
