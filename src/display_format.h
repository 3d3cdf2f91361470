/* SPDX-License-Identifier: ISC */
/* display_format.h - the display's own view of a format string: its pieces, and the format the
 * display flags stand for (display_format.c, pure). Only display.c and display_format.c use it. */
#ifndef NCPV_DISPLAY_FORMAT_H
#define NCPV_DISPLAY_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "display.h"

/* The pieces a format string is made of. */
enum display_item {
	ITEM_TEXT, ITEM_PROGRESS, ITEM_BAR_ONLY, ITEM_AMOUNT_ONLY, ITEM_TIMER, ITEM_ETA,
	ITEM_FINETA, ITEM_RATE, ITEM_AVERAGE, ITEM_BYTES, ITEM_BUFPERCENT, ITEM_LAST, ITEM_NAME,
	ITEM_PREVLINE, ITEM_SGR
};

/* One parsed piece: an item, or literal text (start, len) of the format. */
struct display_piece {
	enum display_item item;
	const char *text;
	size_t len;
	long arg; /* %nA: how many bytes */
};

/* Parse the piece at *f (a '%' sequence or a run of text); advance *f. Returns 0 (every
 * sequence is a piece; an unknown one is text, as pv shows it). */
int display_parse_piece(const char **f, struct display_piece *p);

/* The format the display flags stand for, in pv's order, into fmt (len bytes). Without a
 * size pv leaves the ETAs out altogether, separators included. */
void display_default_format(const struct display_opts *o, uint64_t size, char *fmt, size_t len);

#endif
