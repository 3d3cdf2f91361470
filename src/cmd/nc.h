/* SPDX-License-Identifier: ISC */
/* nc.h - the "ncpv nc" command's own pieces: its option parser (the engine is ../nc/nc.h). */
#ifndef NCPV_CMD_NC_H
#define NCPV_CMD_NC_H

#include "cmd.h"
#include "../nc/nc.h"

/*
 * Parse argv into o (the commands' contract, cmd.h; CMD_PARSE_USAGE means nc's exit 1), having
 * printed help or a one-line error. Ports are expanded from lists, ranges ("20-30", either
 * order) and service names.
 */
enum cmd_parse nc_parse_options(int argc, char **argv, struct nc_opts *o);

/* -T keywords (critical, lowdelay, af11, cs3, ef ...) or a number 0..255
 * (decimal or 0x hex) to a TOS byte; -1 if unknown. Pure. */
int nc_parse_tos(const char *s);

#endif
