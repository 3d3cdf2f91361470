/* SPDX-License-Identifier: ISC */
/* summary.c - each method's median, min and max over its runs, its ratio to the
 * baseline, and whether the difference beats run-to-run spread (pure). */
#include "result.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../stats.h"

const char *bench_test_name(enum bench_test test)
{
	return test == BENCH_STREAM ? "stream" : "files";
}

const char *bench_value_unit(enum bench_test test)
{
	return test == BENCH_STREAM ? "B/s" : "transfers/s";
}

const char *bench_status_name(enum bench_status s)
{
	return s == BENCH_OK ? "ok" : s == BENCH_SKIPPED ? "skipped" : "failed";
}

/* The values of r's good runs into v (caller's, nruns long); returns how many. */
static size_t good_values(const struct bench_result *r, double *v, double *bytes)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].ok) {
			v[n] = r->runs[i].value;
			if (bytes)
				bytes[n] = (double)r->runs[i].bytes;
			n++;
		}
	return n;
}

static void summarize_one(struct bench_result *r)
{
	double *v = calloc(r->nruns + 1, sizeof(double)), *b = calloc(r->nruns + 1, sizeof(double));
	struct stats_summary s, sb;

	r->ok_runs = 0;
	r->median = r->min = r->max = r->median_bytes = 0;
	r->ratio = 0;
	r->p = 1;
	r->verdict = "n/a";
	if (v != NULL && b != NULL && r->status != BENCH_SKIPPED) {
		r->ok_runs = good_values(r, v, b);
		stats_summarize(v, r->ok_runs, &s);
		stats_summarize(b, r->ok_runs, &sb);
		r->median = s.median;
		r->min = s.min;
		r->max = s.max;
		r->median_bytes = sb.median;
	}
	free(v);
	free(b);
}

void bench_summarize(struct bench_test_result *t)
{
	struct bench_result *base = t->baseline < t->n ? &t->results[t->baseline] : NULL;
	double *bv = NULL, *v = NULL;
	size_t nb = 0;

	for (size_t i = 0; i < t->n; i++)
		summarize_one(&t->results[i]);
	if (base == NULL || base->ok_runs == 0)
		return;
	base->is_baseline = 1;
	base->ratio = 1;
	base->verdict = "baseline";
	bv = calloc(base->nruns, sizeof(double));
	if (bv == NULL)
		return;
	nb = good_values(base, bv, NULL);
	for (size_t i = 0; i < t->n; i++) {
		struct bench_result *r = &t->results[i];
		struct stats_test st;
		size_t n;

		if (r == base || r->ok_runs == 0 || base->median <= 0)
			continue;
		r->ratio = r->median / base->median;
		v = calloc(r->nruns, sizeof(double));
		if (v == NULL)
			break;
		n = good_values(r, v, NULL);
		if (stats_mann_whitney(v, n, bv, nb, &st) == 0) {
			r->p = st.p;
			if (st.p < t->alpha)
				r->verdict = r->median > base->median ? "faster" : "slower";
			else
				r->verdict = "within spread";
		}
		free(v);
	}
	free(bv);
}

int bench_run_add_sample(struct bench_run *run, double t, uint64_t bytes)
{
	if (run->nsamples == run->cap) {
		size_t cap = run->cap ? run->cap * 2 : 64;
		struct bench_sample *s = realloc(run->samples, cap * sizeof(*s));

		if (s == NULL) {
			errno = ENOMEM;
			return -1;
		}
		run->samples = s;
		run->cap = cap;
	}
	run->samples[run->nsamples].t = t;
	run->samples[run->nsamples].bytes = bytes;
	run->nsamples++;
	return 0;
}

void bench_results_free(struct bench_test_result *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->results[i].nruns; k++)
			free(t->results[i].runs[k].samples);
		free(t->results[i].runs);
	}
	free(t->results);
	memset(t, 0, sizeof(*t));
}
