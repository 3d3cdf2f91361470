/* SPDX-License-Identifier: ISC */
/* eta.c - the bench's time left, priced from its plan and its runs so far (see eta.h). */
#include "eta.h"

#include <string.h>

/* Seconds per download of the builtin methods, measured with -T files -n 300
 * on loopback (2 shared cores, 2026-12; TLS ones with -n 20): what spawns a
 * process or two per download costs 3-7 ms, ncat loads its CA bundle each time.
 * A guess until the method's first run. */
static const struct {
	const char *name;
	double seconds;
} per_download[] = {
	{ "ncpv", 0.0005 },    { "bash-read", 0.0005 }, { "nc-pv", 0.005 },	      { "pv-devtcp", 0.004 },
	{ "nc", 0.003 },       { "cat-devtcp", 0.003 }, { "socat", 0.007 },	      { "ncat", 0.13 },
	{ "ncpv-tls", 0.004 }, { "ncat-ssl", 0.15 },	{ "socat-openssl", 0.09 }, { "s_client", 0.072 },
};
#define PER_DOWNLOAD_OTHER 0.010
/* Start, stop and reaping of one run's process tree. */
#define RUN_OVERHEAD 0.05

double eta_files_guess(const char *method, unsigned long long count)
{
	double each = PER_DOWNLOAD_OTHER;

	for (size_t i = 0; i < sizeof(per_download) / sizeof(per_download[0]); i++)
		if (strcmp(per_download[i].name, method) == 0)
			each = per_download[i].seconds;
	return RUN_OVERHEAD + each * (double)count;
}

void eta_init(struct bench_eta *e)
{
	memset(e, 0, sizeof(*e));
}

static int valid(int test, size_t method)
{
	return test >= 0 && test < ETA_TESTS && method < ETA_METHODS;
}

void eta_plan(struct bench_eta *e, int test, size_t method, long runs, double guess)
{
	if (!valid(test, method))
		return;
	e->left[test][method] = runs > 0 ? runs : 0;
	e->guess[test][method] = guess > 0 ? guess : 0;
}

void eta_done(struct bench_eta *e, int test, size_t method, double seconds)
{
	if (!valid(test, method))
		return;
	if (e->left[test][method] > 0)
		e->left[test][method]--;
	e->done[test][method]++;
	e->spent[test][method] += seconds > 0 ? seconds : 0;
}

void eta_drop(struct bench_eta *e, int test, size_t method)
{
	if (valid(test, method))
		e->left[test][method] = 0;
}

double eta_price(const struct bench_eta *e, int test, size_t method)
{
	if (!valid(test, method))
		return 0;
	/* Not scaled by the other methods' runs: in the files test one spawns
	 * processes per download and the next does not, their guesses err apart. */
	if (e->done[test][method] > 0)
		return e->spent[test][method] / (double)e->done[test][method];
	return e->guess[test][method];
}

double eta_left(const struct bench_eta *e, int test, size_t method, double elapsed, double done)
{
	int running = valid(test, method) && e->left[test][method] > 0 && elapsed > 0;
	double left = 0, price = running ? eta_price(e, test, method) : 0;

	/* Its method's first run: its pace so far, weighed by how far it is (the
	 * first downloads alone say little), takes over from the table's guess. */
	if (running && e->done[test][method] == 0 && done > 0 && done <= 1)
		price += (elapsed / done - price) * done;
	for (int t = 0; t < ETA_TESTS; t++)
		for (size_t m = 0; m < ETA_METHODS; m++)
			if (e->left[t][m] > 0)
				left += (double)e->left[t][m] * (running && t == test && m == method ? price : eta_price(e, t, m));
	/* A run past its price is almost over: count it as ending now. */
	if (running)
		left -= elapsed < price ? elapsed : price;
	return left > 0 ? left : 0;
}

double eta_planned(const struct bench_eta *e, int test)
{
	double s = 0;

	for (int t = 0; t < ETA_TESTS; t++)
		for (size_t m = 0; m < ETA_METHODS && (test < 0 || t == test); m++)
			s += (double)e->left[t][m] * e->guess[t][m];
	return s;
}
