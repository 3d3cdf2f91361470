/* SPDX-License-Identifier: ISC */
/* bench_opts.h - "ncpv bench"'s options, parsed once into struct bench_opts
 * (the engine's, in src/bench/session.h): the tests, durations, methods (built-in
 * and --method), server, link, reports. */
#ifndef NCPV_BENCH_OPTS_H
#define NCPV_BENCH_OPTS_H

#include "cmd.h"
#include "../bench/session.h"

/* Parse argv into o (which it fills from scratch), printing --help or a
 * one-line error as it goes. */
enum cmd_parse bench_parse_options(int argc, char **argv, struct bench_opts *o);

/* Keep the methods of the transport asked for (TLS's with --tls, else plain
 * TCP's; --method's run with either), apply --methods and check --baseline.
 * Returns 0 or an exit code after a one-line error. */
int bench_select_methods(struct bench_opts *o);

#endif
