/* SPDX-License-Identifier: ISC */
/* compare.h - "ncpv bench compare A.json B.json": each method of each test in
 * two saved runs side by side, the ratio of medians and a Mann-Whitney
 * verdict over the two sets of runs (pure, over parsed JSON). */
#ifndef NCPV_COMPARE_H
#define NCPV_COMPARE_H

#include <stddef.h>

#include "../jsonread.h"

struct compare_row {
	char test[16];
	char method[64];
	char unit[16];
	size_t na, nb;		/* good runs in A and in B */
	double median_a, median_b;
	double ratio;		/* median_b / median_a; 0 when either is missing */
	double p;		/* Mann-Whitney p, 1 when untested */
	const char *verdict;	/* "faster", "slower", "same", "too few runs", "only in A", "only in B" */
};

/* Compare saved runs a and b (bench --json documents) at level alpha: rows
 * for every method of every test in either, in A's order then B's new ones.
 * Returns the number of rows (at most max; *more set when some did not
 * fit), or -1 when either is not a bench document this version reads:
 * err then starts with "A " or "B ", saying which, and goes on with what
 * is wrong ("is not the JSON of ncpv bench --json (...)"). */
int compare_runs(const struct jvalue *a, const struct jvalue *b, double alpha, struct compare_row *rows,
		 size_t max, int *more, char *err, size_t errlen);

/* The setups of a and b where they differ (path, server, stream duration,
 * files count and size), as "what A's in A, B's in B; ..." into buf; empty
 * when they agree. */
void compare_setup(const struct jvalue *a, const struct jvalue *b, char *buf, size_t len);

#endif
