/* SPDX-License-Identifier: ISC */
/* status.h - one meter reading to the status line's text, the same for get, nc --progress and pv. */
#ifndef NCPV_STATUS_H
#define NCPV_STATUS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "display.h"
#include "meter.h"

/* What only pv's transfer knows (-T, -A); NULL when there is none. Pointers are borrowed. */
struct status_extra {
	int buffer_percent;	   /* 0..100, or < 0 when splicing */
	const unsigned char *last; /* the last bytes written */
	size_t last_len;
	double max_rate;	   /* -g: the highest rate so far */
};

/* Room a status line needs: the layout's longest line, its '\r' and the NUL. */
#define STATUS_LINE_MAX (DISPLAY_LINE_MAX + 2)

/*
 * The text to write for reading r into out (cap bytes: STATUS_LINE_MAX): the line ended by '\r'
 * (rewritten in place by the next one), or with numeric pv's -n line ended by '\n'. The final
 * line shows the overall rate, bytes over elapsed, as pv's last line does, and no ETA.
 * d advances (bouncing bar, previous length); now is the wall clock, for the fine ETA.
 * Returns the length written.
 */
size_t status_render(struct display *d, const struct meter_reading *r, uint64_t size, int final, int numeric,
		     const struct status_extra *x, time_t now, char *out, size_t cap);

#endif
