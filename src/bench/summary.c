/* SPDX-License-Identifier: ISC */
/* summary.c - each method's median, min and max over its runs, its ratio to the
 * baseline, and whether the difference beats run-to-run spread (pure). */
#include "result.h"

#include <errno.h>
#include <stdint.h>
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
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

/* The median of v[0..n), or -1 when n is 0 (nothing known). */
static double median_or_unknown(double *v, size_t n)
{
	struct stats_summary s;

	if (n == 0)
		return -1;
	stats_summarize(v, n, &s);
	return s.median;
}

static void summarize_one(struct bench_result *r, enum bench_test test)
{
	double *v = calloc(r->nruns + 1, sizeof(double)), *b = calloc(r->nruns + 1, sizeof(double));
	struct stats_summary s, sb;

	r->ok_runs = 0;
	r->median = r->min = r->max = r->median_bytes = 0;
	r->ratio = 0;
	r->p = r->p_stable = 1;
	r->verdict = r->verdict_stable = "n/a";
	r->cpu = 0;
	r->retrans = r->rtt_ms = -1;
	bench_latency(r, NULL, r->lat);
	bench_series_pcts(r, NULL, BENCH_SERIES_PING_IDLE, &r->ping_idle);
	bench_series_pcts(r, NULL, BENCH_SERIES_PING_LOAD, &r->ping_load);
	if (v != NULL && b != NULL && r->status != BENCH_SKIPPED) {
		size_t nc = 0;

		/* CPU per unit of work: per GiB counted, or per download. */
		for (size_t i = 0; i < r->nruns; i++) {
			const struct bench_run *run = &r->runs[i];
			double work = test == BENCH_STREAM ? (double)run->cpu_bytes / (1024.0 * 1024 * 1024)
							   : (double)run->transfers;

			if (run->ok && work > 0)
				v[nc++] = run->cpu / work;
		}
		stats_summarize(v, nc, &s);
		r->cpu = s.median;
		/* TCP's view: over the good runs that have it. */
		nc = 0;
		for (size_t i = 0; i < r->nruns; i++)
			if (r->runs[i].ok && r->runs[i].retrans >= 0)
				v[nc++] = (double)r->runs[i].retrans;
		r->retrans = median_or_unknown(v, nc);
		nc = 0;
		for (size_t i = 0; i < r->nruns; i++)
			if (r->runs[i].ok && r->runs[i].rtt_ms >= 0)
				v[nc++] = r->runs[i].rtt_ms;
		r->rtt_ms = median_or_unknown(v, nc);
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

double bench_min_p(size_t n1, size_t n2)
{
	double c = 1;

	/* C(n1 + n2, n1), built up as a product of ratios */
	for (size_t k = 1; k <= n1; k++)
		c = c * (double)(n2 + k) / (double)k;
	return c > 2 ? 2 / c : 1;
}

long bench_runs_needed(double alpha)
{
	long n = 1;

	while (n < 1000 && bench_min_p((size_t)n, (size_t)n) >= alpha)
		n++;
	return n;
}

static double median_of(double *v, size_t n)
{
	struct stats_summary s;

	stats_summarize(v, n, &s);
	return s.median;
}

/* The values of r's good runs outside the rounds in skip (a bit per round). */
static size_t kept_values(const struct bench_result *r, uint64_t skip, double *v)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].ok && !(i < 64 && (skip >> i & 1)))
			v[n++] = r->runs[i].value;
	return n;
}

/* Compare r with the baseline over the rounds not in skip: the verdict and p. */
static const char *compare(const struct bench_result *r, const struct bench_result *base, uint64_t skip,
			   double alpha, double *p)
{
	double *v = calloc(r->nruns + 1, sizeof(double)), *bv = calloc(base->nruns + 1, sizeof(double));
	const char *verdict = "n/a";
	struct stats_test st;
	size_t n, nb;

	*p = 1;
	if (v == NULL || bv == NULL)
		goto out;
	n = kept_values(r, skip, v);
	nb = kept_values(base, skip, bv);
	if (n == 0 || nb == 0)
		goto out;
	if (bench_min_p(n, nb) >= alpha) {
		/* No outcome of this many runs could reach alpha: no verdict. */
		verdict = "too few runs";
	} else if (stats_mann_whitney(v, n, bv, nb, &st) == 0) {
		double mr = median_of(v, n), mb = median_of(bv, nb);

		*p = st.p;
		verdict = st.p >= alpha ? "within spread" : mr > mb ? "faster" : "slower";
	}
out:
	free(v);
	free(bv);
	return verdict;
}

/* A round is unstable when every method that ran in it (two at least, each
 * with three good runs or more) was BENCH_UNSTABLE_FACTOR times off the median of
 * its other rounds, all the same way: something outside hit them all. */
static uint64_t unstable_rounds(const struct bench_test_result *t)
{
	uint64_t mask = 0;
	size_t rounds = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->results[i].nruns > rounds)
			rounds = t->results[i].nruns;
	for (size_t k = 0; k < rounds && k < 64; k++) {
		int low = 0, high = 0, normal = 0;

		for (size_t i = 0; i < t->n; i++) {
			const struct bench_result *r = &t->results[i];
			double *v = calloc(r->nruns + 1, sizeof(double)), med;
			size_t n;

			if (v == NULL)
				return 0;
			n = kept_values(r, (uint64_t)1 << k, v);
			if (k < r->nruns && r->runs[k].ok && r->ok_runs >= 3 && n >= 2) {
				med = median_of(v, n);
				if (r->runs[k].value * BENCH_UNSTABLE_FACTOR < med)
					low++;
				else if (r->runs[k].value > med * BENCH_UNSTABLE_FACTOR)
					high++;
				else
					normal++;
			}
			free(v);
		}
		if (normal == 0 && (low >= 2 || high >= 2) && (low == 0 || high == 0))
			mask |= (uint64_t)1 << k;
	}
	return mask;
}

void bench_summarize(struct bench_test_result *t)
{
	struct bench_result *base = t->baseline < t->n ? &t->results[t->baseline] : NULL;

	for (size_t i = 0; i < t->n; i++)
		summarize_one(&t->results[i], t->test);
	t->runs_needed = bench_runs_needed(t->alpha);
	t->unstable = unstable_rounds(t);
	if (base == NULL || base->ok_runs == 0)
		return;
	base->is_baseline = 1;
	base->ratio = 1;
	base->verdict = base->verdict_stable = "baseline";
	for (size_t i = 0; i < t->n; i++) {
		struct bench_result *r = &t->results[i];

		if (r == base || r->ok_runs == 0 || base->median <= 0)
			continue;
		r->ratio = r->median / base->median;
		r->verdict = compare(r, base, 0, t->alpha, &r->p);
		r->verdict_stable = t->unstable ? compare(r, base, t->unstable, t->alpha, &r->p_stable) : r->verdict;
		if (!t->unstable)
			r->p_stable = r->p;
	}
}

static const struct bench_series *series_of(const struct bench_run *run, enum bench_series_kind kind)
{
	return kind == BENCH_SERIES_LATENCY ? &run->latency : kind == BENCH_SERIES_PING_IDLE ? &run->ping_idle
											      : &run->ping_load;
}

void bench_series_pcts(const struct bench_result *r, const struct bench_run *only_run, enum bench_series_kind kind,
		       struct bench_pcts *out)
{
	static const double p[3] = BENCH_LATENCY_P;
	size_t n = 0, k = 0;
	double *v;

	out->n = 0;
	out->min = -1;
	for (int i = 0; i < 3; i++)
		out->p[i] = -1;
	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].ok && (only_run == NULL || only_run == &r->runs[i]))
			n += series_of(&r->runs[i], kind)->n;
	if (n == 0 || (v = malloc(n * sizeof(double))) == NULL)
		return;
	for (size_t i = 0; i < r->nruns; i++) {
		const struct bench_series *s = series_of(&r->runs[i], kind);

		/* A run without any has no array at all: memcpy must not see its NULL. */
		if (r->runs[i].ok && (only_run == NULL || only_run == &r->runs[i]) && s->n > 0) {
			memcpy(v + k, s->v, s->n * sizeof(double));
			k += s->n;
		}
	}
	qsort(v, n, sizeof(double), cmp_double);
	out->n = n;
	out->min = v[0];
	for (int i = 0; i < 3; i++)
		out->p[i] = stats_percentile(v, n, p[i]);
	free(v);
}

void bench_latency(const struct bench_result *r, const struct bench_run *only_run, double out[3])
{
	struct bench_pcts pc;

	bench_series_pcts(r, only_run, BENCH_SERIES_LATENCY, &pc);
	memcpy(out, pc.p, sizeof(pc.p));
}

/* Make room for one more element of size in *a (count n, capacity *cap). */
static int grow(void *a, size_t n, size_t *cap, size_t size)
{
	void **arr = a;

	if (n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		void *p = realloc(*arr, c * size);

		if (p == NULL) {
			errno = ENOMEM;
			return -1;
		}
		*arr = p;
		*cap = c;
	}
	return 0;
}

int bench_series_add(struct bench_series *s, double seconds)
{
	if (grow(&s->v, s->n, &s->cap, sizeof(double)) < 0)
		return -1;
	s->v[s->n++] = seconds;
	return 0;
}

int bench_run_add_sample(struct bench_run *run, double t, uint64_t bytes)
{
	if (grow(&run->samples, run->nsamples, &run->cap, sizeof(*run->samples)) < 0)
		return -1;
	run->samples[run->nsamples].t = t;
	run->samples[run->nsamples].bytes = bytes;
	run->nsamples++;
	return 0;
}

void bench_results_free(struct bench_test_result *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->results[i].nruns; k++) {
			free(t->results[i].runs[k].samples);
			free(t->results[i].runs[k].latency.v);
			free(t->results[i].runs[k].ping_idle.v);
			free(t->results[i].runs[k].ping_load.v);
		}
		free(t->results[i].runs);
	}
	free(t->results);
	memset(t, 0, sizeof(*t));
}
