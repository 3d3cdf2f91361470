/* SPDX-License-Identifier: ISC */
/* opts.h - "ncpv pv" command line: pv's options parsed once into struct pv_opts (never prints). */
#ifndef NCPV_PV_OPTS_H
#define NCPV_PV_OPTS_H

#include <stdint.h>

#include "../display.h"

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

struct pv_opts {
	struct display_opts disp;
	int numeric, quiet, force, wait, lines, null, stats, cursor;
	int no_splice, skip_errors, stop_at_size, sync, discard, sparse, direct;
	int has_size, has_width, height;
	double delay_start, interval, avg_window;
	uint64_t size, rate_limit, buffer_size, skip_block;
	const char *size_arg, *rate_arg, *buffer_arg; /* read once -k is known */
	const char *output, *pidfile, *size_file;
	const char *store_file;	/* -U FILE: all input there first, then to the output */
	char **files; /* borrowed from argv */
	int nfiles;
	long watch_pid;	/* -d PID[:FD]: watch another process (0: not) */
	int watch_fd;	/* its FD, or -1 for every file it has open */
	long remote_pid; /* -R PID: send our options to that pv (0: not) */
	long query_pid;	/* -Q PID: show that pv's progress (0: not) */
	int interval_given; /* -i was on the command line (for -R) */
	int window_title;	/* -x windowtitle: the display also in the terminal's title */
	const char *extra_format; /* -x ...:FORMAT, or NULL for the main display's */
};

/* The largest -B: a bigger request is served with this (pv would allocate it). */
#define PV_BUFFER_MAX ((uint64_t)1 << 30)

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

#endif
