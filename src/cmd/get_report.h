/* SPDX-License-Identifier: ISC */
/* get_report.h - get's per-interval figures (-i SEC) as lines on stderr or, with --json, as JSON
 * Lines on stdout, and the --omit part of the summary. */
#ifndef NCPV_CMD_GET_REPORT_H
#define NCPV_CMD_GET_REPORT_H

#include <stdio.h>

#include "../get/get_engine.h"
#include "../json.h"

/* What the report needs from the command line; owned by the caller. */
struct get_report {
	int json, quiet, send;
	FILE *json_out;	 /* where JSON Lines go: stdout (stderr with -o -) */
	FILE *text_out;	 /* where the lines go: stderr */
	int width;	 /* > 0: cut the lines to this many columns (a terminal's width) */
	int header_shown;
};

/* get_events.interval's shape: ctx is a struct get_report. Lines are written and flushed at once. */
void get_report_interval(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum);

/* The text line of one record (80 columns), label "  1" or "SUM". Returns line. */
char *get_report_line(char *line, size_t len, const char *label, const struct get_interval *iv);

/* One record's members in a JSON object (start, end, seconds, bytes, bits_per_second, omitted,
 * retransmits, cwnd_segments, rtt_us, rttvar_us, pacing and delivery): what every interval
 * object holds. */
void get_report_interval_json(struct json *j, const struct get_interval *iv);

/* The header over get_report_line's columns. */
const char *get_report_header(void);

/* --omit in the JSON summary: "omitted_seconds" and "omitted_bytes". */
void get_report_omit_json(struct json *j, const struct get_result *r);

/* --omit SEC in the text summary: "(the first 2 s, 1.2 GiB, left out: --omit)", or that the
 * stream ended before SEC and nothing was; "" without --omit. Returns buf. */
char *get_report_omit_text(char *buf, size_t len, double omit, const struct get_result *r);

#endif
