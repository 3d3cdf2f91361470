/* SPDX-License-Identifier: ISC */
/* stats.c - summary statistics over samples: percentiles, median, spread (pure). */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_percentile(const double *sorted, size_t n, double p)
{
	double rank, frac;
	size_t lo;

	if (p <= 0)
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	rank = p / 100.0 * (double)(n - 1);
	lo = (size_t)rank;
	frac = rank - (double)lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

void stats_summarize(double *v, size_t n, struct stats_summary *out)
{
	double sum = 0, sq = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	out->n = n;
	out->min = v[0];
	out->max = v[n - 1];
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - out->mean) * (v[i] - out->mean);
	out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	out->median = stats_percentile(v, n, 50);
	out->p90 = stats_percentile(v, n, 90);
	out->p99 = stats_percentile(v, n, 99);
}

/* P(U <= u) for samples of sizes n1, n2 without ties: the number of
 * orderings whose U is at most u over C(n1+n2, n1). ways[j][k] counts the
 * orderings of i values of a and j of b with U == k, built up over i. */
static double mwu_exact_cdf(size_t n1, size_t n2, double u)
{
	size_t umax = n1 * n2, w = umax + 1;
	double *ways = calloc((n2 + 1) * w, sizeof(double));
	double below = 0, total = 0;

	if (ways == NULL)
		return -1;
	for (size_t j = 0; j <= n2; j++)
		ways[j * w] = 1; /* i == 0: one ordering, U == 0 */
	for (size_t i = 1; i <= n1; i++) {
		/* Last value is from a (adds j to U) or from b (adds nothing). */
		for (size_t j = n2 + 1; j-- > 0;) {
			double *row = ways + j * w;

			for (size_t k = umax + 1; k-- > 0;)
				row[k] = k >= j ? row[k - j] : 0;
		}
		for (size_t j = 1; j <= n2; j++)
			for (size_t k = 0; k <= umax; k++)
				ways[j * w + k] += ways[(j - 1) * w + k];
	}
	for (size_t k = 0; k <= umax; k++) {
		total += ways[n2 * w + k];
		if ((double)k <= u + 1e-9)
			below += ways[n2 * w + k];
	}
	free(ways);
	return below / total;
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_test *out)
{
	double u = 0, mean, var, tie_sum = 0, z, n = (double)(na + nb);
	size_t ties = 0;
	double *all;

	memset(out, 0, sizeof(*out));
	if (na == 0 || nb == 0 || na > STATS_TEST_MAX || nb > STATS_TEST_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	out->u = u;
	/* Tie groups over the pooled sample, for the variance correction. */
	all = malloc((na + nb) * sizeof(double));
	if (all == NULL)
		return -1;
	memcpy(all, a, na * sizeof(double));
	memcpy(all + na, b, nb * sizeof(double));
	qsort(all, na + nb, sizeof(double), cmp_double);
	for (size_t i = 0; i < na + nb;) {
		size_t k = i + 1;

		while (k < na + nb && all[k] == all[i])
			k++;
		if (k - i > 1) {
			double t = (double)(k - i);

			ties++;
			tie_sum += t * t * t - t;
		}
		i = k;
	}
	free(all);
	mean = (double)na * (double)nb / 2;
	if (ties == 0 && na <= 20 && nb <= 20) {
		double lo = mwu_exact_cdf(na, nb, u < mean ? u : 2 * mean - u);

		if (lo < 0)
			return -1;
		out->exact = 1;
		out->p = 2 * lo > 1 ? 1 : 2 * lo;
		return 0;
	}
	var = (double)na * (double)nb / 12 * ((n + 1) - tie_sum / (n * (n - 1)));
	if (var <= 0) {
		out->p = 1; /* every value equal: no evidence of a difference */
		return 0;
	}
	/* Continuity correction of one half towards the mean. */
	z = (fabs(u - mean) - 0.5) / sqrt(var);
	out->p = z <= 0 ? 1 : erfc(z / sqrt(2));
	if (out->p > 1)
		out->p = 1;
	return 0;
}
