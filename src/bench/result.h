/* SPDX-License-Identifier: ISC */
/* result.h - what the bench measured: each method's runs in each test, and
 * their summary against the baseline. Plain data shared by the runner and
 * the reports; the bench command owns every array and frees it with
 * bench_results_free. */
#ifndef NCPV_RESULT_H
#define NCPV_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "method.h"

/* Bytes counted (at the counting point) t seconds after the run started. */
struct bench_sample {
	double t;
	uint64_t bytes;
};

/* A growing list of seconds (owned by the run that holds it). */
struct bench_series {
	double *v;
	size_t n, cap;
};

/* Percentiles of a series: n 0 means unknown (then min and p are -1). */
struct bench_pcts {
	size_t n;
	double min, p[3]; /* seconds: min, and BENCH_LATENCY_P */
};

struct bench_run {
	int ok;
	double value;	     /* stream: bytes/s; files: transfers/s */
	uint64_t bytes;	     /* stream: total data counted; files: bytes the server sent */
	uint64_t transfers;  /* files: downloads that completed */
	double seconds;	     /* how long the run took (stream: from its first byte) */
	double first_byte;   /* stream: seconds from start to the first byte counted */
	int position;	     /* 1-based place of the run in its round */
	/* TCP's view from tcp_info (-1: unknown). stream: the sockets at the
	 * end of the run; files: every download, as ncpv serve logs it at close */
	long retrans;	     /* segments the server sent again (its sockets) */
	double rtt_ms;	     /* mean smoothed RTT of the server's sockets, or the
			      * client's receive-side estimate for --connect */
	double rtt_sum;	     /* files: the logged RTTs so far (ms), and how many */
	uint64_t rtt_count;
	double cpu;	     /* user + system seconds of the method's whole process tree */
	uint64_t cpu_bytes;  /* stream: every byte counted while that CPU was spent */
	struct bench_sample *samples; /* stream: the count over time (owned) */
	size_t nsamples, cap;
	struct bench_series latency; /* files: each completed download's server-side
			      * seconds, accept to close; none with --connect,
			      * where no server log is read */
	/* stream: round trips of the latency probe (a ping-pong over a second
	 * connection): just before the method started, and while it ran */
	struct bench_series ping_idle, ping_load;
	char error[200];     /* why the run failed */
};

enum bench_status { BENCH_OK, BENCH_SKIPPED, BENCH_FAILED };

struct bench_result {
	const struct bench_method *method; /* borrowed from the command's table */
	char command[METHOD_CMD_MAX * 3];  /* exactly what ran */
	const char *shell;	/* as method_command returns it */
	char *argv[32];		/* what is exec'd: points into command and argbuf */
	char argbuf[METHOD_CMD_MAX * 3];
	enum bench_status status;
	char reason[256];	/* why skipped, or the first failed run's error */
	struct bench_run *runs;	/* repeat entries (owned) */
	size_t nruns;
	/* Filled by bench_summarize over the runs that succeeded. */
	size_t ok_runs;
	double median, min, max, median_bytes;
	double ratio;		/* median / the baseline's median; 0 when unknown */
	double cpu;		/* median CPU seconds per GiB (stream) or per download (files); 0 unknown */
	double retrans, rtt_ms;	/* stream: medians over the runs; -1 unknown */
	double lat[3];		/* files: p50, p90, p99 seconds of every download of
				 * the good runs (server-side); -1 unknown */
	struct bench_pcts ping_idle, ping_load; /* stream: the probe's round trips */
	double p;		/* Mann-Whitney p against the baseline; 1 when untested */
	int is_baseline;
	const char *verdict;	/* "baseline", "faster", "slower", "within spread", "too few runs", "n/a" */
	const char *verdict_stable; /* the same without the test's unstable rounds */
	double p_stable;
};

struct bench_test_result {
	enum bench_test test;
	struct bench_result *results; /* owned */
	size_t n;
	size_t baseline;	/* index into results, or n when none ran */
	double alpha;		/* significance level of the verdicts */
	long runs_needed;	/* runs per method that can reach alpha at all */
	uint64_t unstable;	/* bit k: round k+1 was off for every method (outside load) */
};

/* How far off its other rounds every method must be for a round to be unstable. */
#define BENCH_UNSTABLE_FACTOR 4.0

/* The smallest p a two-sided Mann-Whitney test of n1 and n2 runs can give:
 * 2 / C(n1 + n2, n1), or 1. */
double bench_min_p(size_t n1, size_t n2);

/* The fewest runs per method (the same for both) whose smallest p is below
 * alpha: 4 for 0.05. */
long bench_runs_needed(double alpha);

/* Summarize every result of t and compare each with the baseline (pure):
 * "too few runs" when no outcome of the runs could reach alpha; rounds
 * where every method was far off its other rounds the same way are marked
 * unstable, and the verdicts are given again without them. */
void bench_summarize(struct bench_test_result *t);

/* The test's name ("stream", "files") and the unit of its values. */
const char *bench_test_name(enum bench_test test);
const char *bench_value_unit(enum bench_test test);

/* "ok", "skipped" or "failed". */
const char *bench_status_name(enum bench_status s);

/* Append a sample to run (growing its array); -1 with errno on ENOMEM. */
int bench_run_add_sample(struct bench_run *run, double t, uint64_t bytes);

/* Append seconds to a series; -1 with errno on ENOMEM. */
int bench_series_add(struct bench_series *s, double seconds);

/* Which series of a run: downloads' latency, the probe idle or under load. */
enum bench_series_kind { BENCH_SERIES_LATENCY, BENCH_SERIES_PING_IDLE, BENCH_SERIES_PING_LOAD };

/* The count, minimum and percentiles BENCH_LATENCY_P of series kind over
 * r's runs that succeeded (all of them when only_run is NULL, else that
 * run's) into *out; n 0 and -1 each when none is known. */
void bench_series_pcts(const struct bench_result *r, const struct bench_run *only_run, enum bench_series_kind kind,
		       struct bench_pcts *out);

/* The percentiles BENCH_LATENCY_P of the latencies of r's runs that
 * succeeded (all of them when only_run is NULL, else that run's) into
 * out[3]; -1 each when none is known. */
#define BENCH_LATENCY_P { 50, 90, 99 }
void bench_latency(const struct bench_result *r, const struct bench_run *only_run, double out[3]);

void bench_results_free(struct bench_test_result *t);

#endif
