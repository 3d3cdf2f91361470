/* SPDX-License-Identifier: ISC */
/* get_summary.h - how a get run ends in words: the exit code of an end reason, the summary of
 * one stream, of -P's streams and of --count's batch (text on stderr, --json's object), and the
 * message for a download kept with -o that a signal cut. Used by get.c and get_side.c. */
#ifndef NCPV_CMD_GET_SUMMARY_H
#define NCPV_CMD_GET_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "get_cmd.h"
#include "../get/get_engine.h"
#include "../json.h"

/* The exit code of a run that ended with end (net_error, tls_error: the engine's, for
 * GET_END_NET and GET_END_TLS). */
int get_exit_code(enum get_end end, int net_error, int tls_error);

/* Where --json's lines go: stdout, or stderr when the data goes there (-o -). */
FILE *get_json_out(const struct get_args *a);

/* A signal stopped a download kept with -o (end GET_END_INTERRUPTED, a->run.output, not
 * --send): says that the output is not whole (stdout has only part; FILE left as it was, the
 * engine did not replace it) and returns NCPV_EXIT_FAIL; otherwise returns rc, saying nothing. */
int get_interrupted_output(const struct get_args *a, enum get_end end, uint64_t bytes, int rc);
/* The same for an upload (--send, --reverse) of a regular FILE a signal cut short: the server
 * has only part of it, status 1. An endless source (random, zero, a pipe) ends as asked. */
int get_interrupted_upload(const struct get_args *a, enum get_end end, uint64_t bytes, int rc);

/* The socket as the kernel runs it, and TCP's figures over the transfer: the "socket" and
 * "tcp" members of a JSON summary (none when r has not got them). */
void get_socket_json(struct json *j, const struct get_result *r);

/* One stream's summary: the --json object, then (unless -q) the line on stderr. */
void get_print_summary(const struct get_args *a, const struct get_result *r, enum get_end end);

/* -P's n streams (rs[0..n-1]): the --json object with each stream's figures, then (unless -q)
 * a line a stream and the sum's. */
void get_print_parallel(const struct get_args *a, const struct get_result *rs, long n, enum get_end end);

/* --count's batch: the --json object, then (unless -q) the line on stderr. */
void get_print_batch(const struct get_args *a, const struct get_batch_result *r);

#endif
