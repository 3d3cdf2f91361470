/* SPDX-License-Identifier: ISC */
/* pv_modes.h - the pv command's modes besides copying (-d, -R, -Q), and its message helper. */
#ifndef NCPV_CMD_PV_MODES_H
#define NCPV_CMD_PV_MODES_H

#include "../pv/opts.h"

/* Watch o->watch_pid's files (o->watch_fd, or all when it is -1) until the process ends or
 * closes the file, drawing when show is set. Returns pv's exit status. */
int cmd_pv_watch(const struct pv_opts *o, int show);

/* -R: send the options given with it to the ncpv pv o->remote_pid. pv's status (0, or 1). */
int cmd_pv_remote(const struct pv_opts *o);

/* -Q: show the progress of the ncpv pv o->query_pid until it ends. pv's status (0, or 1). */
int cmd_pv_query(const struct pv_opts *o, int show);

/* "pv: message" on stderr, as pv 1.10 prints it, whether run as pv or as "ncpv pv". */
void pv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
