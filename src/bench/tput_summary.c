/* SPDX-License-Identifier: ISC */
/* tput_summary.c - the throughput tests' rows summarized (pure): medians and
 * spread over the good runs, CPU per GiB, the ratio to ncpv at the same point,
 * and for UDP the sent rate against the asked one. */
#include "tput.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the n values of v (sorted in place); -1 for none. */
static double median(double *v, size_t n)
{
	if (n == 0)
		return -1;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median over the good runs of one figure (runs where it is unknown, < 0, left out). */
static double median_of(const struct tput_row *row, double (*get)(const struct tput_run *))
{
	double v[1024];
	size_t n = 0;

	for (size_t i = 0; i < row->nruns && n < 1024; i++)
		if (row->runs[i].ok && get(&row->runs[i]) >= 0)
			v[n++] = get(&row->runs[i]);
	return median(v, n);
}

static double get_rate(const struct tput_run *r) { return r->f.bytes_per_s; }
static double get_sent_pps(const struct tput_run *r) { return r->f.sent_pps; }
static double get_recv_pps(const struct tput_run *r) { return r->f.received_pps; }
static double get_loss(const struct tput_run *r) { return r->f.loss_percent; }
static double get_jitter(const struct tput_run *r) { return r->f.jitter_s; }

/* CPU seconds per GiB moved: the run's CPU over its bytes. */
static double get_cpu_per_gib(const struct tput_run *r)
{
	return r->cpu_s >= 0 && r->f.bytes > 0 ? r->cpu_s / ((double)r->f.bytes / (1024.0 * 1024 * 1024)) : -1;
}

/* ncpv's row at the same point as row, or NULL. */
static const struct tput_row *ncpv_row(const struct tput_results *r, const struct tput_row *row)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct tput_row *o = &r->rows[i];

		if (o->method == TPUT_NCPV && o->test == row->test && o->streams == row->streams &&
		    o->rate_bits == row->rate_bits && o->length == row->length)
			return o;
	}
	return NULL;
}

void tput_summarize(struct tput_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct tput_row *row = &r->rows[i];

		row->ok_runs = 0;
		row->min = row->max = -1;
		for (size_t k = 0; k < row->nruns; k++) {
			double v = row->runs[k].f.bytes_per_s;

			if (!row->runs[k].ok)
				continue;
			if (row->ok_runs++ == 0 || v < row->min)
				row->min = v;
			if (v > row->max)
				row->max = v;
		}
		row->median = median_of(row, get_rate);
		row->cpu_per_gib_s = median_of(row, get_cpu_per_gib);
		row->sent_pps = median_of(row, get_sent_pps);
		row->received_pps = median_of(row, get_recv_pps);
		row->loss_percent = median_of(row, get_loss);
		row->jitter_s = median_of(row, get_jitter);
		row->accuracy = row->test == TPUT_UDP && row->rate_bits > 0 && row->median >= 0
					? row->median * 8 / row->rate_bits : 0;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct tput_row *row = &r->rows[i];
		const struct tput_row *base = ncpv_row(r, row);

		row->ratio = base && base->median > 0 && row->median >= 0 ? row->median / base->median : 0;
	}
}

void tput_results_free(struct tput_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->rows[i].runs);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
