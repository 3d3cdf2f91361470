/* SPDX-License-Identifier: ISC */
/* get_cmd.h - the "ncpv get" command's own pieces: its parsed options and their parser
 * (get_opts.c); the engine is ../get/get_engine.h. */
#ifndef NCPV_CMD_GET_CMD_H
#define NCPV_CMD_GET_CMD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd.h"
#include "tls_cmd.h"
#include "../get/get_engine.h"
#include "../get/get_side.h"
#include "../net.h"

/* Parsed once by get_parse_options; read-only afterwards. */
struct get_args {
	struct get_opts run;   /* what the engine needs */
	struct cmd_tls tls;    /* run.tls points into it */
	double interval;       /* -i */
	int force, quiet, json;
	struct sockopt_want sock; /* run.sock points here once a socket setting is given */
	int list_cc;	       /* --congestion list */
	int side;	       /* 0: no side channel; else 1 + enum get_side_mode (-R, --bidir, --server-view) */
};

/* get.c's summary and exit codes, for get_side.c's runs (defined in get.c). */
/* Where --json's lines go: stdout, or stderr when the data goes there (-o -). */
FILE *get_json_out(const struct get_args *a);
/* A signal stopped a download kept with -o (end GET_END_INTERRUPTED, a->run.output, not
 * --send): says that the output is not whole (stdout has only part; FILE left as it was, the
 * engine did not replace it) and returns NCPV_EXIT_FAIL; otherwise returns rc, saying nothing. */
int get_interrupted_output(const struct get_args *a, enum get_end end, uint64_t bytes, int rc);
int get_exit_code(enum get_end end, int net_error, int tls_error);
void get_print_summary(const struct get_args *a, const struct get_result *r, enum get_end end);
void get_socket_json(struct json *j, const struct get_result *r);

/* --reverse, --bidir, --server-view: a run with a side-channel session (get_side.c). */
int get_side_command(const struct get_args *a);

/*
 * Parse argv into a (the commands' contract, cmd.h), having printed help or a one-line error;
 * --congestion list is printed here. cancel is the flag the engine polls (a->run.cancel,
 * a->run.net.cancel); a->run.tls and a->run.tls_name point into a->tls.
 */
enum cmd_parse get_parse_options(int argc, char **argv, struct get_args *a, volatile sig_atomic_t *cancel);

#endif
