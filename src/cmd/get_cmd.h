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

/* --reverse, --bidir, --server-view: a run with a side-channel session (get_side.c). */
int get_side_command(const struct get_args *a);

/*
 * Parse argv into a (the commands' contract, cmd.h), having printed help or a one-line error;
 * --congestion list is printed here. cancel is the flag the engine polls (a->run.cancel,
 * a->run.net.cancel); a->run.tls and a->run.tls_name point into a->tls.
 */
enum cmd_parse get_parse_options(int argc, char **argv, struct get_args *a, volatile sig_atomic_t *cancel);

#endif
