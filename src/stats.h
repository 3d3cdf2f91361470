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

#endif
