/* SPDX-License-Identifier: ISC */
/* pv_cmd.h - the pv command: its exit bits, option parsing and help (pv_opts.c), its message
 * helper, and its modes besides copying (-d in pv_watch.c, -R and -Q in pv_remote.c). */
#ifndef NCPV_CMD_PV_CMD_H
#define NCPV_CMD_PV_CMD_H

#include <stdio.h>

#include "../pv/pv.h"

/* pv's exit status bits (pv(1) "EXIT STATUS"); 64 is also its usage error. */
enum pv_exit {
	PV_EXIT_PIDFILE = 1,	/* -P could not be written */
	PV_EXIT_ACCESS = 2,	/* an input could not be opened or stat()ed */
	PV_EXIT_SAME = 4,	/* an input is the output */
	PV_EXIT_CLOSE = 8,	/* no input could be moved to / closed */
	PV_EXIT_TRANSFER = 16,	/* reading or writing failed */
	PV_EXIT_SIGNAL = 32,	/* a signal ended the run early */
	PV_EXIT_USAGE = 64	/* bad option (and memory allocation failures) */
};

/* What pv_parse_options found. */
enum pv_parse {
	PV_PARSE_RUN = 0,	/* o is filled: run */
	PV_PARSE_HELP,		/* --help: the caller prints the usage, exit 0 */
	PV_PARSE_VERSION,	/* --version: likewise */
	PV_PARSE_ERROR		/* e->msg says what, in pv 1.10's words; exit PV_EXIT_USAGE */
};

/* An error message, without the program name in front; may hold two lines. */
struct pv_parse_err {
	char msg[512];
};

/* Parse argv into o (strings borrowed from argv). Prints nothing. */
int pv_parse_options(int argc, char **argv, struct pv_opts *o, struct pv_parse_err *e);

/* pv's --help text. */
void pv_usage(FILE *f);

/* -x SPEC into o (window_title, process_title, extra_format, extra_spec: pointing into spec,
 * which must outlive o). Unknown words are ignored, as pv does. */
void pv_extra_display(const char *spec, struct pv_opts *o);

/* "pv: message" on stderr, as pv 1.10 prints it, whether run as pv or as "ncpv pv". */
void pv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Watch the files of each -d PID[:FD] and further argument (one FD, or every file the process
 * has open) until the processes end or close them, drawing when show is set. pv's exit status. */
int cmd_pv_watch(const struct pv_opts *o, int show);

/* -R: send the options given with it to the ncpv pv o->remote_pid. pv's status (0, or 1). */
int cmd_pv_remote(const struct pv_opts *o);

/* The target's side of -R and -Q (from: the sender, known from its SIGUSR2). A query is
 * answered with st and signalled back: 0. A change is read into m for the caller to apply and
 * then signal back: 1. -1: no message of ours (no answer). */
struct pv_remote_msg;
struct pv_remote_state;
int cmd_pv_remote_answer(pid_t from, const struct pv_remote_state *st, struct pv_remote_msg *m);

/* A change's display switches into d, replacing d's, with no -N or -F (as pv 1.10). */
void cmd_pv_remote_apply(const struct pv_remote_msg *m, struct display_opts *d);

/* -Q: show the progress of the ncpv pv o->query_pid until it ends. pv's status (0, or 1). */
int cmd_pv_query(const struct pv_opts *o, int show);

#endif
