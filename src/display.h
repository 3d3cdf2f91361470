/* SPDX-License-Identifier: ISC */
/* display.h - pv-style progress lines: number formatting and the line layout (pure). */
#ifndef NCPV_DISPLAY_H
#define NCPV_DISPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "meter.h"

/* The longest format string and rendered line display_* handle. */
#define DISPLAY_LINE_MAX 4096
/* The most bytes %A (last written) can show. */
#define DISPLAY_LAST_MAX 256

/* What the line shows; the fields mirror pv's display options. */
struct display_opts {
	int bytes, timer, rate, average, progress, eta, fineta;
	int bufpercent;		/* -T: transfer buffer fill */
	int last_written;	/* -A N: the last N bytes written, 0 for none */
	int lines;		/* counts are lines: SI prefixes, no unit */
	int bits;		/* count bits: rates in b/s, totals in b */
	int si;			/* powers of 1000 instead of 1024 */
	int width;		/* columns; <= 0 means 80 */
	int fit;		/* > 0: the line never passes this many columns (nor width): the
				 * bar shrinks or goes, then whole items from the right, as pv 1.6
				 * does; 0: pv 1.10's line, which runs past a width too narrow */
	const char *name;	/* -N prefix, or NULL (borrowed) */
	const char *format;	/* -F format string overriding the flags, or NULL (borrowed) */
	int numeric;		/* -n: raw numbers, items joined as pv 1.10's numeric mode does */
	int pv110;		/* pv 1.10's layout: "  B" unit field, "%3d%%" percentage */
	int gauge;		/* -g: without a size, the bar shows the rate against max_rate */
};

/* One update's figures; every pointer is borrowed for the call. */
struct display_frame {
	uint64_t count;		/* bytes (or lines) so far */
	uint64_t size;		/* expected total; 0 unknown */
	double elapsed;		/* seconds since the start */
	double rate;		/* per second over the last interval (the average on the last line) */
	double average;		/* per second, for %a and the ETA */
	double max_rate;	/* -g: the highest rate so far */
	time_t now;		/* wall clock, for the fine ETA (the caller passes it in) */
	int final;		/* the last line: the ETA is blanked */
	int buffer_percent;	/* -T: 0..100, or < 0 when splicing (no buffer) */
	const unsigned char *last; /* the last bytes written (up to last_len) */
	size_t last_len;
};

/* Caller-owned state between updates: the bouncing bar and the line length. */
struct display {
	struct display_opts o;
	int bounce;		/* pv's 0..198 step for the bar when the size is unknown */
	uint64_t bounce_count;	/* count at the last step */
	size_t prev_cols;	/* columns of the previous line, to blank leftovers */
};

/* Fill a frame from a meter reading and the wall clock now (no -T or -A data). */
void display_frame_from(struct display_frame *f, const struct meter_reading *r, uint64_t size,
			int final, time_t now);

/* Whether a format shows %A or %T, which need the bytes to pass through a buffer. */
int display_format_needs_buffer(const char *format);

/* The pv default: -pterb. */
void display_defaults(struct display_opts *o);

/* Reset the state for a new display with options o (copied; strings stay borrowed). */
void display_init(struct display *d, const struct display_opts *o);

/*
 * Check a -F format: 0 when every %{name} is known, else -1 with the
 * offending sequence copied into bad (NUL-terminated, truncated to len).
 */
int display_check_format(const char *format, char *bad, size_t len);

/*
 * Render a number as pv 1.6 does: three significant digits ("%#4.3g"), or
 * four whole digits above 99.9, then a prefix and the suffix. Prefixes are
 * powers of 1024 with an "i" (KiB, MiB, and m, u... below 1) unless decimal
 * is set (k, M, G: lines, or --si). Zero and the unprefixed case keep one
 * space: "0.00 B", "1000 B", "1.00KiB", "1.50k". Returns buf.
 */
char *display_amount(char *buf, size_t len, double amount, int decimal, const char *suffix);

/* The same, rounded where pv truncates (99.99 M is "100M", 999.7 k is "1.00M"): for ncpv's
 * own tables, not pv's display. */
char *display_amount_round(char *buf, size_t len, double amount, int decimal, const char *suffix);

/* The same, with pv 1.10's two-column unit field: "0.00  B" (a blank prefix is two spaces
 * in IEC units, so that the width never changes at a prefix boundary). */
char *display_amount_pv110(char *buf, size_t len, double amount, int decimal, const char *suffix);

/* The columns a rendered line takes on a terminal: escape sequences take none, a character
 * its wcwidth in LC_CTYPE; a line the locale cannot decode, a column a byte (as pv 1.10.5). */
size_t display_columns(const char *line, size_t len);

/*
 * Render one status line (no "\r" or "\n"), padded with spaces to the
 * previous line's length so that a shorter line hides the longer one.
 * With o.fit, it takes at most min(width, fit) columns.
 * Advances the bouncing bar when the count moved. Returns the length
 * written (at most len - 1).
 */
size_t display_line(struct display *d, const struct display_frame *f, char *buf, size_t len);

/*
 * Render one -n (numeric) line with its "\n", as pv 1.10 does: the -F format, or
 * "%t %b %r" with the items asked for (the percentage when neither -b nor -r), each
 * item a raw number: seconds and rates "%.4f", counts whole, the percentage rounded
 * (the bar step when the size is unknown). Returns the length written.
 */
size_t display_numeric(struct display *d, const struct display_frame *f, char *buf, size_t len);

/* The exact percentage of size (0 when size is 0), at most 100000 as pv 1.10 caps it. */
double display_percent_exact(uint64_t count, uint64_t size);

/* Percentage as pv computes it: whole percent of size, 0 when size is 0. */
long display_percent(uint64_t count, uint64_t size);

/* Seconds left at rate, as pv estimates it: 0 when nothing moved yet,
 * and at most DISPLAY_ETA_MAX (a century), so that the fine ETA's clock
 * arithmetic cannot overflow. */
long display_eta_seconds(uint64_t count, uint64_t size, double rate);
#define DISPLAY_ETA_MAX (100L * 365 * 86400)

#endif
