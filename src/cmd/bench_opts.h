/* SPDX-License-Identifier: ISC */
/* bench_opts.h - "ncpv bench"'s options, parsed once into a struct: the
 * tests, durations, methods (built-in and --method), server, link, reports. */
#ifndef NCPV_BENCH_OPTS_H
#define NCPV_BENCH_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "cmd.h"
#include "../addr.h"
#include "../bench/method.h"

#define MAX_METHODS 32

struct bench_opts {
	int tests;		/* BENCH_STREAM | BENCH_FILES */
	int tests_given;	/* the tests -T named (0 without -T) */
	double duration, timeout;
	uint64_t count, size;
	long repeat;
	const char *only;	/* --methods LIST */
	const char *baseline;
	int seed_server;
	int tls;		/* --tls: the server speaks TLS, and the TLS methods run */
	const char *connect;
	struct addr_spec remote;
	const char *link;
	double link_bits, link_delay, link_loss;
	int json, csv, quiet;
	const char *html;	/* --html FILE, or the default report's name */
	char html_default[64];
	char json_path[4096];	/* the JSON beside the HTML report */
	int no_report;
	int shuffle;		/* random order of methods within each round */
	unsigned seed;		/* its seed, reported */
	int csv_runs;		/* CSV: a row per run */
	struct bench_method methods[MAX_METHODS];
	size_t nmethods;
};

/* Parse argv into o (which it fills from scratch), printing --help or a
 * one-line error as it goes. */
enum cmd_parse bench_parse_options(int argc, char **argv, struct bench_opts *o);

/* Keep the methods of the transport asked for (TLS's with --tls, else plain
 * TCP's; --method's run with either), apply --methods and check --baseline.
 * Returns 0 or an exit code after a one-line error. */
int bench_select_methods(struct bench_opts *o);

/* The baseline: --baseline, or the seed's nc-pv (openssl's s_client with --tls). */
const char *bench_baseline(const struct bench_opts *o);

#endif
