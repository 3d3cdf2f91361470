/* SPDX-License-Identifier: ISC */
/* report.h - the bench's outputs: the seed-style table, CSV, JSON and a
 * self-contained HTML page with SVG charts. Each writes to the caller's
 * stream and returns 0, or -1 with errno when writing failed. */
#ifndef NCPV_REPORT_H
#define NCPV_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "env.h"
#include "result.h"
#include "tput.h"

/* The version of the JSON document's layout: raised when a field changes
 * meaning or goes away (new fields may appear without it). 4: every number's
 * key names its unit (value became bytes_per_s or transfers_per_s, seconds
 * elapsed_s, duration duration_s, size size_bytes, ...; the manual lists them). */
#define BENCH_SCHEMA_VERSION 4

/* How the results were obtained, for every report's header. */
struct bench_info {
	const char *version;
	const char *server;	/* what served the data */
	const char *path;	/* "loopback", "link 94mbit (netns)", "remote HOST:PORT" */
	const char *counting;	/* where and how bytes and downloads were counted */
	double duration;	/* stream: seconds per run */
	uint64_t count, size;	/* files: downloads per run, bytes each */
	long repeat;
	double alpha;
	const struct bench_env *env; /* where and when it ran */
	int interrupted;	/* stopped by a signal: the results are partial */
	int shuffle;		/* methods in random order in each round, from seed */
	unsigned seed;
	const char *no_probe;	/* why the stream test had no latency probe, or NULL */
	double probe_interval, probe_idle; /* its seconds between round trips, and idle before each run */
	const struct tput_results *tput; /* -T streams,udp, or NULL */
};

int report_text(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n);
int report_csv(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n);
/* One CSV row per run (round, place in it, value, CPU, ...). */
int report_csv_runs(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n);
int report_json(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n);
int report_html(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n);

/* "2.31x faster p=0.008" and the like, for a result's last column. */
char *report_verdict(char *buf, size_t len, const struct bench_result *r);

/* Why r (or its run, when run is not NULL) has no latency figures: no good
 * run, or no server log (only a local ncpv serve logs each download). */
const char *report_no_latency(const struct bench_result *r, const struct bench_run *run);

/* Why r (or its run) has no latency-probe figures: --no-latency, --connect
 * (no echo server there), no good run, or no round trip came back. */
const char *report_no_ping(const struct bench_info *info, const struct bench_result *r, const struct bench_run *run);

/* CPU seconds as "48.0us", "2.19ms" or "1.20s" ("-" when 0). */
char *report_cpu(char *buf, size_t len, double seconds);

/* TCP's view of r as every report shows it: retransmits per run (a median:
 * "9.5" stays 9.5) and the mean RTT as "50us"; "-" when unknown. */
void report_tcp_cells(const struct bench_result *r, char *retrans, size_t rlen, char *rtt, size_t tlen);

/* The order a report shows t's methods in: fastest median first, then those
 * with no good run (skipped or failed) in their given order. Returns t->n
 * indexes into t->results, malloc'd (the caller frees), or NULL when out of
 * memory: then REPORT_ROW keeps the given order. */
size_t *report_order(const struct bench_test_result *t);
#define REPORT_ROW(order, i) ((order) != NULL ? (order)[i] : (i))

/* What "same p=0.69" means, in one phrase, for the first table of a report. */
#define REPORT_P_PHRASE \
	"p: the chance of a gap this large between two equally fast methods; same: p >= %.2g, no real difference"

/* How many methods of t have a good run (0: no second table to draw). */
size_t report_ran(const struct bench_test_result *t);

/* The rounds of mask (bit k: round k+1) as "2, 5" in buf; returns how many. */
int report_rounds(char *buf, size_t len, uint64_t mask);

/* The answer first, one sentence per test: which method is fastest, by how
 * much against the baseline, and how strong the verdict is. */
size_t report_headline(char *buf, size_t len, const struct bench_info *info, const struct bench_test_result *tests,
		       size_t n);

/* What a reader must know before trusting t's verdicts, as lines of text
 * in buf ("" when nothing): too few runs for any verdict, and unstable
 * rounds with the verdicts without them. Returns the length needed. */
size_t report_cautions(char *buf, size_t len, const struct bench_info *info, const struct bench_test_result *t);

/* Round axis values (1, 2, 5 x 10^n) covering lo..hi: on a linear scale
 * from 0 in equal steps (about 4) to the first at or past hi; on a log scale
 * 1, 2, 5 per decade (powers of ten only past 3 decades) from the decade
 * of lo to the first at or past hi. Returns how many (at most max). */
int report_ticks(double lo, double hi, int logscale, double *ticks, int max);

/* The key of a rate in test's unit, after prefix: "median_" gives
 * "median_bytes_per_s" (stream) or "median_transfers_per_s" (files). Returns
 * a static string; prefix is "", "median_", "min_" or "max_". */
const char *report_rate_key(enum bench_test test, const char *prefix);

/* A value in its test's unit as people read it: "11.2MiB/s", "1.23k/s". */
char *report_value(char *buf, size_t len, enum bench_test test, double v);

#endif
