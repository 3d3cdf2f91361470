/* SPDX-License-Identifier: ISC */
/* opts.h - "ncpv pv" command line: pv's options parsed once into struct pv_opts. */
#ifndef NCPV_PV_OPTS_H
#define NCPV_PV_OPTS_H

#include <stdint.h>

#include "../cmd/cmd.h" /* enum cmd_parse: these options belong to the pv command */
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
	int numeric, quiet, force, wait, lines, null, stats;
	int no_splice, skip_errors, stop_at_size, sync, discard;
	int has_size, has_width, height;
	double delay_start, interval, avg_window;
	uint64_t size, rate_limit, buffer_size;
	const char *output, *pidfile, *size_file;
	char **files; /* borrowed from argv */
	int nfiles;
};

/* Parse argv into o: the commands' contract (cmd/cmd.h), CMD_PARSE_USAGE meaning pv's status 64. */
enum cmd_parse pv_parse_options(int argc, char **argv, struct pv_opts *o);

#endif
