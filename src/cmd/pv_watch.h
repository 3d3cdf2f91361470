/* SPDX-License-Identifier: ISC */
/* pv_watch.h - "pv -d PID[:FD]", the pv command's second mode, and the message helper both share. */
#ifndef NCPV_CMD_PV_WATCH_H
#define NCPV_CMD_PV_WATCH_H

#include "../pv/opts.h"

/* Watch o->watch_pid's files (o->watch_fd, or all when it is -1) until the process ends or
 * closes the file, drawing when show is set. Returns pv's exit status. */
int cmd_pv_watch(const struct pv_opts *o, int show);

/* "pv: message" on stderr, as pv 1.10 prints it, whether run as pv or as "ncpv pv". */
void pv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
