/* SPDX-License-Identifier: ISC */
/* progress.h - the live pv-style status line on stderr that get and nc share. */
#ifndef NCPV_PROGRESS_H
#define NCPV_PROGRESS_H

#include <stdint.h>

#include "../display.h"
#include "../meter.h"

/* Caller-owned; hot paths only meter_add(&p->meter, n). */
struct progress {
	struct display disp;
	struct meter meter;
	uint64_t size;	 /* expected total for the bar and ETA; 0 unknown */
	double interval; /* seconds between refreshes */
	double next;	 /* time of the next refresh */
	int show;	 /* draw live lines */
	int shown;	 /* a line was drawn, so the final one must end it */
};

/* pv's default line (-pterb); show decides whether progress_tick draws. */
void progress_init(struct progress *p, int show, double interval, uint64_t size, double now);

/* Draw now; final ends the line with a newline and shows the average rate, as pv does. */
void progress_draw(struct progress *p, double now, int final);

/* Draw if shown and the interval has passed. */
void progress_tick(struct progress *p, double now);

#endif
