/* get.h - what "ncpv get"'s two modes share: the options, and the pv-style progress line. */
#ifndef NCPV_CMD_GET_H
#define NCPV_CMD_GET_H

#include <signal.h>
#include <stdint.h>

#include "../addr.h"
#include "../display.h"
#include "../meter.h"
#include "../net.h"

/* Parsed once by cmd_get; read-only afterwards. */
struct get_opts {
	struct addr_spec at;
	struct net_opts net;
	double timeout, duration, interval;
	uint64_t max_bytes, size;
	int has_size, force, quiet, json, send;
	long count, parallel;
	const char *output, *source;
};

/* The live line and the final lines; caller-owned, o borrowed. */
struct get_progress {
	const struct get_opts *o;
	struct display disp;
	struct meter meter;
	int show;	/* live line on stderr */
	int shown;	/* a live line was printed */
	double next;	/* time of the next refresh */
};

void get_progress_init(struct get_progress *p, const struct get_opts *o, double now);

/* Print the line on stderr; final adds the newline and shows the average rate. */
void get_progress_draw(struct get_progress *p, double now, int final);

/* Redraw when the -i interval has passed and the line is shown. */
void get_progress_tick(struct get_progress *p, double now);

/* --count: o->count whole downloads over up to o->parallel connections,
 * with a transfers/s and latency summary. Stops early once *stop is set
 * (a signal handler's flag, borrowed). Returns an exit code. */
int get_run_batch(const struct get_opts *o, const volatile sig_atomic_t *stop);

#endif
