/* SPDX-License-Identifier: ISC */
/* tput_parse.c - what the throughput tests read from each client's stdout:
 * ncpv get's JSON, iperf3's --json document and iperf2's -y C lines, and the
 * option lists of -T streams,udp (pure: no I/O, no global state). */
#include "tput.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../jsonread.h"
#include "../units.h"
#include "../udp/pace.h"

const char *tput_method_name(enum tput_method m)
{
	return m == TPUT_NCPV ? "ncpv" : m == TPUT_IPERF3 ? "iperf3" : "iperf2";
}

const char *tput_method_tool(enum tput_method m)
{
	return m == TPUT_NCPV ? "ncpv" : m == TPUT_IPERF3 ? "iperf3" : "iperf";
}

static void figures_unknown(struct tput_figures *f)
{
	f->seconds = -1;
	f->bytes = 0;
	f->bytes_per_s = -1;
	f->sent_pps = f->received_pps = f->loss_percent = f->jitter_s = -1;
}

/* A figure must be a finite number >= 0 to count. */
static int good(double v)
{
	return isfinite(v) && v >= 0;
}

int tput_parse_ncpv_streams(const char *text, size_t len, struct tput_figures *f, char *err, size_t errlen)
{
	struct jvalue *doc = NULL;
	char why[128];

	figures_unknown(f);
	if (jv_parse(text, len, &doc, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "ncpv get -j: not JSON (%s)", why);
		return -1;
	}
	f->seconds = jv_number(doc, "seconds", -1);
	f->bytes_per_s = jv_number(doc, "rate", -1);
	f->bytes = good(jv_number(doc, "bytes", -1)) ? (uint64_t)jv_number(doc, "bytes", 0) : 0;
	jv_free(doc);
	if (!good(f->bytes_per_s) || f->seconds <= 0) {
		snprintf(err, errlen, "ncpv get -j: no rate and seconds");
		return -1;
	}
	return 0;
}

int tput_parse_ncpv_udp(const char *text, size_t len, struct tput_figures *f, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;

	figures_unknown(f);
	/* JSON Lines: the summary is the line whose event is "summary". */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct jvalue *doc = NULL;
		char why[128];

		if (n > 0 && jv_parse(p, n, &doc, why, sizeof(why)) == 0 &&
		    strcmp(jv_string(doc, "event", ""), "summary") == 0) {
			f->seconds = jv_number(doc, "seconds", -1);
			f->bytes_per_s = jv_number(doc, "sent_bps", -1) / 8;
			f->bytes = (uint64_t)fmax(0, jv_number(doc, "sent_bytes", 0));
			f->sent_pps = jv_number(doc, "sent_pps", -1);
			f->received_pps = jv_number(doc, "received_pps", -1);
			f->loss_percent = jv_number(doc, "loss_percent", -1);
			f->jitter_s = good(jv_number(doc, "jitter_ms", -1)) ? jv_number(doc, "jitter_ms", 0) / 1e3 : -1;
			jv_free(doc);
			if (!good(f->bytes_per_s) || f->seconds <= 0) {
				snprintf(err, errlen, "ncpv get -u -j: the summary has no sent_bps and seconds");
				return -1;
			}
			return 0;
		}
		jv_free(doc);
		p += n + 1;
	}
	snprintf(err, errlen, "ncpv get -u -j: no summary line");
	return -1;
}

int tput_parse_iperf3(const char *text, size_t len, int udp, struct tput_figures *f, char *err, size_t errlen)
{
	struct jvalue *doc = NULL;
	const struct jvalue *endv, *sum, *sent;
	char why[128];

	figures_unknown(f);
	if (jv_parse(text, len, &doc, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "iperf3 --json: not JSON (%s)", why);
		return -1;
	}
	if (jv_string(doc, "error", NULL) != NULL) {
		snprintf(err, errlen, "iperf3: %.150s", jv_string(doc, "error", ""));
		jv_free(doc);
		return -1;
	}
	endv = jv_get(doc, "end");
	if (!udp) {
		/* The receiver's view: what arrived, over its seconds. */
		sum = jv_get(endv, "sum_received");
		f->seconds = jv_number(sum, "seconds", -1);
		f->bytes_per_s = jv_number(sum, "bits_per_second", -1) / 8;
		f->bytes = good(jv_number(sum, "bytes", -1)) ? (uint64_t)jv_number(sum, "bytes", 0) : 0;
	} else {
		/* The sender's rate and packets; loss and jitter as the receiver
		 * counted them ("sum"); received = packets - lost, as iperf3 counts. */
		double packets, lost, rsecs;

		sent = jv_get(endv, "sum_sent");
		sum = jv_get(endv, "sum");
		f->seconds = jv_number(sent, "seconds", -1);
		f->bytes_per_s = jv_number(sent, "bits_per_second", -1) / 8;
		f->bytes = good(jv_number(sent, "bytes", -1)) ? (uint64_t)jv_number(sent, "bytes", 0) : 0;
		packets = jv_number(sent, "packets", -1);
		if (good(packets) && f->seconds > 0)
			f->sent_pps = packets / f->seconds;
		f->loss_percent = jv_number(sum, "lost_percent", -1);
		f->jitter_s = good(jv_number(sum, "jitter_ms", -1)) ? jv_number(sum, "jitter_ms", 0) / 1e3 : -1;
		packets = jv_number(jv_get(endv, "sum_received"), "packets", -1);
		lost = jv_number(sum, "lost_packets", -1);
		rsecs = jv_number(jv_get(endv, "sum_received"), "seconds", -1);
		if (good(packets) && good(lost) && packets >= lost && rsecs > 0)
			f->received_pps = (packets - lost) / rsecs;
	}
	jv_free(doc);
	if (!good(f->bytes_per_s) || f->seconds <= 0) {
		snprintf(err, errlen, "iperf3 --json: no end.%s with bits_per_second and seconds",
			 udp ? "sum_sent" : "sum_received");
		return -1;
	}
	return 0;
}

#define CSV_FIELDS 16

/* Split one line of iperf's CSV into at most CSV_FIELDS fields (in place).
 * Returns how many. */
static int csv_split(char *line, char **field)
{
	int n = 0;

	for (char *p = line; n < CSV_FIELDS;) {
		field[n++] = p;
		p = strchr(p, ',');
		if (p == NULL)
			break;
		*p++ = '\0';
	}
	return n;
}

/* The end of an interval "0.0-10.0", or -1. */
static double interval_end(const char *s)
{
	const char *dash = strchr(s, '-');

	return dash ? strtod(dash + 1, NULL) : -1;
}

/* iperf2's UDP server line for the client port: jitter (ms), lost, total, percent. */
static void udp_server_figures(const char *server, const char *client_port, struct tput_figures *f)
{
	char line[512], *field[CSV_FIELDS];

	for (const char *p = server; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (csv_split(line, field) >= 13 && strcmp(field[2], client_port) == 0 &&
			    strtol(field[11], NULL, 10) > 0) {
				f->jitter_s = strtod(field[9], NULL) / 1e3;
				f->loss_percent = strtod(field[12], NULL);
				if (f->seconds > 0)
					f->received_pps = (strtod(field[11], NULL) - strtod(field[10], NULL)) / f->seconds;
			}
		}
		p = nl ? nl + 1 : NULL;
	}
}

int tput_parse_iperf2(const char *text, size_t len, int udp, int length, const char *server, struct tput_figures *f,
		      char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	double sum_bytes = 0, sum_bps = 0, secs = -1;
	int lines = 0, have_total = 0;
	char port[16] = "";

	figures_unknown(f);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512], *field[CSV_FIELDS];
		int nf;

		p += n + 1;
		if (n == 0 || n >= sizeof(line))
			continue;
		memcpy(line, p - n - 1, n);
		line[n] = '\0';
		nf = csv_split(line, field);
		if (nf < 9 || have_total)
			continue;
		/* Only the report of the whole run (its interval from 0), not interim ones. */
		if (strtod(field[6], NULL) != 0)
			continue;
		if (strcmp(field[5], "-1") == 0) { /* the sum line of -P N: it is the answer */
			sum_bytes = strtod(field[7], NULL);
			sum_bps = strtod(field[8], NULL);
			secs = interval_end(field[6]);
			have_total = 1;
			continue;
		}
		sum_bytes += strtod(field[7], NULL);
		sum_bps += strtod(field[8], NULL);
		if (interval_end(field[6]) > secs)
			secs = interval_end(field[6]);
		if (lines++ == 0)
			snprintf(port, sizeof(port), "%s", field[2]);
	}
	if ((lines == 0 && !have_total) || secs <= 0 || !good(sum_bps)) {
		snprintf(err, errlen, "iperf -y C: no report line of the whole run");
		return -1;
	}
	/* The interval shows tenths ("0.0-1.1" for a run whose rate iperf2 took over 1.039 s): 6%
	 * off in a 1 s run. Its own rates were taken over exact times: bytes over the rate reported
	 * (a stream's, -P's sum line, or the streams' rates added up when -R -P prints no sum) is
	 * the time that rate stands for. */
	f->seconds = sum_bytes > 0 ? sum_bytes * 8 / sum_bps : secs;
	f->bytes = (uint64_t)sum_bytes;
	f->bytes_per_s = sum_bps / 8;
	if (udp) {
		if (length > 0)
			f->sent_pps = sum_bytes / length / secs;
		if (server != NULL)
			udp_server_figures(server, port, f);
	}
	return 0;
}

/* A comma-separated list, each item through parse; 0, or -1 (empty, too long, bad item). */
static int parse_list(const char *s, int (*parse)(const char *item, struct tput_opts *o, size_t k),
		      struct tput_opts *o, size_t *n)
{
	char copy[256], *rest = copy;
	size_t k = 0;

	if (strlen(s) >= sizeof(copy))
		return -1;
	snprintf(copy, sizeof(copy), "%s", s);
	/* strsep, not strtok: an empty item ("1,,2", "1,") reaches parse, which refuses it. */
	for (char *t = strsep(&rest, ","); t; t = strsep(&rest, ",")) {
		if (k >= TPUT_MAX_LIST || parse(t, o, k) < 0)
			return -1;
		k++;
	}
	if (k == 0)
		return -1;
	*n = k;
	return 0;
}

static int one_stream(const char *item, struct tput_opts *o, size_t k)
{
	long v;

	if (units_parse_long(item, 1, 128, &v) < 0)
		return -1;
	o->streams[k] = (int)v;
	return 0;
}

static int one_rate(const char *item, struct tput_opts *o, size_t k)
{
	return udp_parse_rate(item, &o->rates[k]);
}

static int one_length(const char *item, struct tput_opts *o, size_t k)
{
	long v;

	if (units_parse_long(item, 36, 65507, &v) < 0)
		return -1;
	o->lengths[k] = (int)v;
	return 0;
}

int tput_parse_streams(const char *s, struct tput_opts *o)
{
	return parse_list(s, one_stream, o, &o->nstreams);
}

int tput_parse_rates(const char *s, struct tput_opts *o)
{
	return parse_list(s, one_rate, o, &o->nrates);
}

int tput_parse_lengths(const char *s, struct tput_opts *o)
{
	return parse_list(s, one_length, o, &o->nlengths);
}

void tput_default_opts(struct tput_opts *o)
{
	static const int streams[] = { 1, 2, 4 }, lengths[] = { 64, 1400 };
	static const double rates[] = { 10e6, 100e6, 1e9, 0 };

	if (o->nstreams == 0) {
		memcpy(o->streams, streams, sizeof(streams));
		o->nstreams = 3;
	}
	if (o->nrates == 0) {
		memcpy(o->rates, rates, sizeof(rates));
		o->nrates = 4;
	}
	if (o->nlengths == 0) {
		memcpy(o->lengths, lengths, sizeof(lengths));
		o->nlengths = 2;
	}
}
