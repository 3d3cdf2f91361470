/* display.h - pv-style progress lines: number formatting and the line layout (pure). */
#ifndef NCPV_DISPLAY_H
#define NCPV_DISPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "meter.h"

/* What the line shows; the fields mirror pv's display options. */
struct display_opts {
	int bytes, timer, rate, average, progress, eta, fineta;
	int bits; /* count bits: rates in b/s, totals in b */
	int si;	  /* powers of 1000 instead of 1024 */
	int width; /* columns; <= 0 means 80 */
	const char *name;   /* -N prefix, or NULL */
	const char *format; /* -F format string overriding the flags, or NULL */
};

/* The pv default: -pterb. */
void display_defaults(struct display_opts *o);

/*
 * Render a number as pv does: three significant digits, then a prefix
 * (Ki, Mi, ... for powers of 1024; k, M, ... with si) and the suffix, e.g.
 * "11.2MiB", " 652MiB", "1.00KiB". Returns buf.
 */
char *display_amount(char *buf, size_t len, double amount, int si, const char *suffix);

/*
 * Render one status line (without "\r" or "\n") into buf. size is the
 * expected total (0: unknown); final blanks the ETA as pv does at the end.
 * Returns the length written (at most len - 1).
 */
size_t display_line(char *buf, size_t len, const struct display_opts *o,
		    const struct meter_reading *r, uint64_t size, int final);

#endif
