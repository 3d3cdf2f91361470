/* SPDX-License-Identifier: ISC */
/* tput_report.c - the throughput tests' tables: text for the terminal, the
 * "throughput" member of bench's JSON document, and a section of the HTML
 * report. Rates are in bits per second here, as iperf3 and iperf2 show them. */
#include "tput.h"

#include <stdio.h>
#include <string.h>

#include "report.h"
#include "../display.h"
#include "../json.h"

static const char *status_of(const struct tput_row *row)
{
	return row->skipped ? "skipped" : row->ok_runs == 0 ? "failed" : row->ok_runs < row->nruns ? "partly failed" : "ok";
}

/* bytes/s as "5.12 Gbit/s"; "-" when unknown. */
static char *bits(char *buf, size_t len, double bytes_per_s)
{
	if (bytes_per_s < 0)
		return snprintf(buf, len, "-"), buf;
	return display_amount_round(buf, len, bytes_per_s * 8, 1, "bit/s");
}

static char *count_per_s(char *buf, size_t len, double v)
{
	if (v < 0)
		return snprintf(buf, len, "-"), buf;
	return display_amount_round(buf, len, v, 1, "");
}

/* Jitter in seconds as "8.85us"; "0" when it is zero, "-" when unknown. */
static char *jitter(char *buf, size_t len, double seconds)
{
	if (seconds < 0)
		return snprintf(buf, len, "-"), buf;
	if (seconds == 0)
		return snprintf(buf, len, "0"), buf;
	return report_cpu(buf, len, seconds);
}

static char *asked(char *buf, size_t len, double rate_bits)
{
	if (rate_bits <= 0)
		return snprintf(buf, len, "max"), buf;
	return display_amount_round(buf, len, rate_bits, 1, "bit/s");
}

/* The spread as the min-max range in percent of the median. */
static char *spread(char *buf, size_t len, const struct tput_row *row)
{
	if (row->ok_runs < 2 || row->median <= 0)
		return snprintf(buf, len, "-"), buf;
	snprintf(buf, len, "%.1f%%", (row->max - row->min) / row->median * 100);
	return buf;
}

/* Each row's command line (the port is the one of that run's server). */
static void commands(FILE *f, const struct tput_results *r, enum tput_test test)
{
	fputs("Commands:\n", f);
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].test == test && r->rows[i].command[0])
			fprintf(f, "  %s\n", r->rows[i].command);
}

static void why(FILE *f, const struct tput_results *r, enum tput_test test)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].test == test && r->rows[i].reason[0] &&
		    (i == 0 || r->rows[i - 1].method != r->rows[i].method || strcmp(r->rows[i - 1].reason, r->rows[i].reason) != 0))
			fprintf(f, "  %s %s: %s\n", tput_method_name(r->rows[i].method), status_of(&r->rows[i]),
				r->rows[i].reason);
}

int tput_report_text(FILE *f, const struct tput_results *r)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];

	if (r->tests & TPUT_STREAMS) {
		fprintf(f, "\nstreams test: TCP throughput with P parallel streams, %.0f s runs x %ld, on %s; "
			   "each method downloads from its own server (iperf3 and iperf with -R); CPU is client + server per GiB "
			   "received\n",
			r->seconds, r->repeat, r->path);
		fprintf(f, "%3s  %-7s %14s %8s %8s %10s %5s\n", "P", "method", "median", "spread", "vs ncpv", "CPU/GiB",
			"runs");
		for (size_t i = 0; i < r->n; i++) {
			const struct tput_row *row = &r->rows[i];

			if (row->test != TPUT_STREAMS)
				continue;
			if (row->ratio > 0)
				snprintf(c, sizeof(c), "%.2fx", row->ratio);
			else
				snprintf(c, sizeof(c), "-");
			fprintf(f, "%3d  %-7s %14s %8s %8s %10s %2zu/%zu%s\n", row->streams, tput_method_name(row->method),
				row->skipped ? "skipped" : bits(a, sizeof(a), row->median), spread(b, sizeof(b), row), c,
				report_cpu(d, sizeof(d), row->cpu_per_gib_s), row->ok_runs, row->nruns,
				row->ok_runs < row->nruns ? " !" : "");
		}
		why(f, r, TPUT_STREAMS);
		commands(f, r, TPUT_STREAMS);
	}
	if (r->tests & TPUT_UDP) {
		fprintf(f, "\nudp test: one UDP flow per rate asked (max: as fast as possible; iperf2 is asked 10G), "
			   "%.0f s runs x %ld, on %s; sent rate and packets/s at the sender, loss and jitter "
			   "at the receiver\n", r->seconds, r->repeat, r->path);
		fprintf(f, "%5s %12s  %-7s %14s %8s %9s %9s %7s %9s %9s %5s\n", "len", "asked", "method", "sent", "of asked",
			"sent pps", "recv pps", "loss", "jitter", "CPU/GiB", "runs");
		for (size_t i = 0; i < r->n; i++) {
			const struct tput_row *row = &r->rows[i];
			char acc[16], loss[16];

			if (row->test != TPUT_UDP)
				continue;
			snprintf(acc, sizeof(acc), row->accuracy > 0 ? "%.2f%%" : "-", row->accuracy * 100);
			snprintf(loss, sizeof(loss), row->loss_percent >= 0 ? "%.2f%%" : "-", row->loss_percent);
			fprintf(f, "%5d %12s  %-7s %14s %8s %9s %9s %7s %9s %9s %2zu/%zu%s\n", row->length,
				asked(a, sizeof(a), row->rate_bits), tput_method_name(row->method),
				row->skipped ? "skipped" : bits(b, sizeof(b), row->median), acc,
				count_per_s(c, sizeof(c), row->sent_pps), count_per_s(e, sizeof(e), row->received_pps), loss,
				jitter(g, sizeof(g), row->jitter_s),
				report_cpu(d, sizeof(d), row->cpu_per_gib_s), row->ok_runs, row->nruns,
				row->ok_runs < row->nruns ? " !" : "");
		}
		why(f, r, TPUT_UDP);
		commands(f, r, TPUT_UDP);
	}
	return ferror(f) ? -1 : 0;
}

/* A figure, or null when unknown (< 0). */
static void maybe(struct json *j, const char *key, double v, int digits)
{
	if (v < 0)
		json_null(j, key);
	else
		json_general(j, key, v, digits);
}

static void row_json(struct json *j, const struct tput_row *row)
{
	json_object(j, NULL);
	json_string(j, "method", tput_method_name(row->method));
	json_string(j, "tool", tput_method_tool(row->method));
	if (row->test == TPUT_STREAMS) {
		json_int(j, "streams", row->streams);
	} else {
		json_int(j, "length_bytes", row->length);
		json_general(j, "rate_asked_bits_per_s", row->rate_bits, 6);
	}
	json_string(j, "status", status_of(row));
	if (row->reason[0])
		json_string(j, "reason", row->reason);
	json_string(j, "command", row->command);
	json_uint(j, "runs_ok", row->ok_runs);
	maybe(j, row->test == TPUT_STREAMS ? "median_bytes_per_s" : "sent_median_bytes_per_s", row->median, 6);
	maybe(j, "min_bytes_per_s", row->min, 6);
	maybe(j, "max_bytes_per_s", row->max, 6);
	maybe(j, "cpu_per_gib_s", row->cpu_per_gib_s, 4);
	if (row->test == TPUT_STREAMS) {
		maybe(j, "ratio_to_ncpv", row->ratio > 0 ? row->ratio : -1, 4);
	} else {
		maybe(j, "sent_of_asked", row->accuracy > 0 ? row->accuracy : -1, 6);
		maybe(j, "sent_packets_per_s", row->sent_pps, 6);
		maybe(j, "received_packets_per_s", row->received_pps, 6);
		maybe(j, "loss_percent", row->loss_percent, 6);
		maybe(j, "jitter_s", row->jitter_s, 6);
	}
	json_array(j, "runs");
	for (size_t k = 0; k < row->nruns; k++) {
		const struct tput_run *run = &row->runs[k];

		json_object(j, NULL);
		json_bool(j, "ok", run->ok);
		json_uint(j, "bytes", run->f.bytes);
		maybe(j, "seconds_s", run->f.seconds, 6);
		maybe(j, "bytes_per_s", run->f.bytes_per_s, 6);
		maybe(j, "cpu_s", run->cpu_s, 6);
		if (row->test == TPUT_UDP) {
			maybe(j, "sent_packets_per_s", run->f.sent_pps, 6);
			maybe(j, "received_packets_per_s", run->f.received_pps, 6);
			maybe(j, "loss_percent", run->f.loss_percent, 6);
			maybe(j, "jitter_s", run->f.jitter_s, 6);
		}
		if (!run->ok)
			json_string(j, "error", run->error);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

int tput_failed(const struct tput_results *r)
{
	for (size_t i = 0; r != NULL && i < r->n; i++)
		if (!r->rows[i].skipped && r->rows[i].ok_runs < r->rows[i].nruns)
			return 1;
	return 0;
}

void tput_report_json(struct json *j, const struct tput_results *r)
{
	if (r == NULL || r->tests == 0)
		return;
	json_object(j, "throughput");
	json_general(j, "run_s", r->seconds, 6);
	json_int(j, "repeat", r->repeat);
	json_string(j, "path", r->path);
	for (int test = TPUT_STREAMS; test <= TPUT_UDP; test <<= 1) {
		if (!(r->tests & test))
			continue;
		json_array(j, test == TPUT_STREAMS ? "streams" : "udp");
		for (size_t i = 0; i < r->n; i++)
			if (r->rows[i].test == (enum tput_test)test)
				row_json(j, &r->rows[i]);
		json_end(j);
	}
	json_end(j);
}

static void esc(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
}

/* One cell, escaped. */
static void td(FILE *f, const char *s)
{
	fputs("<td>", f);
	esc(f, s);
	fputs("</td>", f);
}

int tput_report_html(FILE *f, const struct tput_results *r)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];

	if (r == NULL || r->tests == 0)
		return 0;
	if (r->tests & TPUT_STREAMS) {
		fprintf(f, "<h2>streams: TCP with P parallel streams beside iperf3 and iperf2</h2>\n<p>%.0f s runs x %ld "
			   "on ", r->seconds, r->repeat);
		esc(f, r->path);
		fputs(", each method downloading from its own server (iperf3 and iperf with -R); CPU is client + "
		      "server per GiB received.</p>\n"
		      "<table><tr><th>P</th><th>method</th><th>median</th><th>spread</th><th>vs ncpv</th>"
		      "<th>CPU/GiB</th><th>runs</th><th>command</th></tr>\n", f);
		for (size_t i = 0; i < r->n; i++) {
			const struct tput_row *row = &r->rows[i];

			if (row->test != TPUT_STREAMS)
				continue;
			snprintf(a, sizeof(a), "%d", row->streams);
			snprintf(c, sizeof(c), row->ratio > 0 ? "%.2fx" : "-", row->ratio);
			snprintf(e, sizeof(e), "%zu/%zu", row->ok_runs, row->nruns);
			fputs("<tr>", f);
			td(f, a);
			td(f, tput_method_name(row->method));
			td(f, row->skipped ? "skipped" : bits(b, sizeof(b), row->median));
			td(f, spread(g, sizeof(g), row));
			td(f, c);
			td(f, report_cpu(d, sizeof(d), row->cpu_per_gib_s));
			td(f, e);
			td(f, row->skipped ? row->reason : row->command);
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	if (r->tests & TPUT_UDP) {
		fprintf(f, "<h2>udp: a rate sweep beside iperf3 -u and iperf -u</h2>\n<p>%.0f s runs x %ld on loopback; "
			   "sent rate and packets/s at the sender, loss and jitter at the receiver.</p>\n<table><tr>"
			   "<th>length</th><th>asked</th><th>method</th><th>sent</th><th>of asked</th><th>sent pps</th>"
			   "<th>recv pps</th><th>loss</th><th>jitter</th><th>CPU/GiB</th><th>runs</th></tr>\n",
			r->seconds, r->repeat);
		for (size_t i = 0; i < r->n; i++) {
			const struct tput_row *row = &r->rows[i];
			char n[16];

			if (row->test != TPUT_UDP)
				continue;
			snprintf(n, sizeof(n), "%d", row->length);
			fputs("<tr>", f);
			td(f, n);
			td(f, asked(a, sizeof(a), row->rate_bits));
			td(f, tput_method_name(row->method));
			td(f, row->skipped ? "skipped" : bits(b, sizeof(b), row->median));
			snprintf(c, sizeof(c), row->accuracy > 0 ? "%.2f%%" : "-", row->accuracy * 100);
			td(f, c);
			td(f, count_per_s(d, sizeof(d), row->sent_pps));
			td(f, count_per_s(e, sizeof(e), row->received_pps));
			snprintf(g, sizeof(g), row->loss_percent >= 0 ? "%.2f%%" : "-", row->loss_percent);
			td(f, g);
			td(f, jitter(a, sizeof(a), row->jitter_s));
			td(f, report_cpu(d, sizeof(d), row->cpu_per_gib_s));
			snprintf(n, sizeof(n), "%zu/%zu", row->ok_runs, row->nruns);
			td(f, n);
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	return ferror(f) ? -1 : 0;
}
