/* SPDX-License-Identifier: ISC */
/* nc_cmd.h - the "ncpv nc" command's own pieces: its option parser (the engine is ../nc/nc.h). */
#ifndef NCPV_CMD_NC_CMD_H
#define NCPV_CMD_NC_CMD_H

#include "cmd.h"
#include "tls_cmd.h"
#include "../nc/nc.h"

/*
 * Parse argv into o (the commands' contract, cmd.h; CMD_PARSE_USAGE means nc's exit 1), having
 * printed help or a one-line error. prog: the name nc was run as ("nc", "netcat": nc's prefix
 * and words), or NULL for "ncpv nc"; kept in o->prog. Ports are expanded from lists, ranges ("20-30", either
 * order) and service names. The --ssl* options go to tls (o->ssl and o->ssl_name follow
 * them); the caller makes o->tls_ctx from it.
 */
enum cmd_parse nc_parse_options(int argc, char **argv, const char *prog, struct nc_opts *o, struct cmd_tls *tls);

/* A one-line error: "PROG: message" when run as nc (o->prog), else "ncpv nc: message" (nc_help.c). */
void nc_error(const struct nc_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* nc_error with one %s for arg; returns -1. */
int nc_fail(const struct nc_opts *o, const char *fmt, const char *arg);

/* The host and ports from the operands (argc, argv past the options) whose shape the option
 * checks accepted: o->host, o->ports (shuffled with -r); -1 after an error in nc's words (nc_ports.c). */
int nc_parse_operands(struct nc_opts *o, int argc, char **argv);

/* The usage block (after a usage error) and -h's text on stderr, in o->prog's voice (nc_help.c). */
void nc_usage(const struct nc_opts *o);
void nc_help(const struct nc_opts *o);

/* -T keywords (critical, lowdelay, af11, cs3, ef ...) or a number 0..255
 * (decimal or 0x hex) to a TOS byte; -1 if unknown. Pure. */
int nc_parse_tos(const char *s);

#endif
