/* SPDX-License-Identifier: ISC */
/* report_html.c - a self-contained HTML report: the headline, the tables, a
 * comparison chart per test (all methods, with spread), the stream's
 * latency under load, and a rate-over-time SVG chart per stream method. */
#include "report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../display.h"

/* viewBox units: the charts scale to the page's width (CSS below), so a
 * unit is about a CSS pixel on a 1000-pixel-wide page. Stream charts are
 * small multiples, SW x SH each, several to a row. */
#define W 960
#define H 220
#define SW 480
#define SH 200
#define ML 70 /* left margin: y labels */
#define MR 12
#define MT 12
#define MB 32 /* bottom margin: x labels */

/* Each built-in method keeps its colour in every report and chart; other
 * names get one of the rest by a hash of the name, so also always the same. */
static const struct {
	const char *name, *colour;
} fixed_colours[] = {
	{ "ncpv", "#1f77b4" }, { "nc-pv", "#d62728" }, { "pv-devtcp", "#ff7f0e" }, { "nc", "#2ca02c" },
	{ "cat-devtcp", "#9467bd" }, { "bash-read", "#8c564b" }, { "socat", "#e377c2" }, { "ncat", "#17becf" },
	/* bench --tls: each tool's TLS method in its plain method's colour. */
	{ "ncpv-tls", "#1f77b4" }, { "ncat-ssl", "#17becf" }, { "socat-openssl", "#e377c2" }, { "s_client", "#ff9896" },
};
static const char *const other_colours[] = { "#7f7f7f", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39" };

static const char *colour_of(const char *name)
{
	uint32_t h = 2166136261u;

	if (name == NULL) /* as esc() takes it: a method without a name */
		return other_colours[0];
	for (size_t i = 0; i < sizeof(fixed_colours) / sizeof(fixed_colours[0]); i++)
		if (strcmp(fixed_colours[i].name, name) == 0)
			return fixed_colours[i].colour;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u; /* FNV-1a */
	return other_colours[h % (sizeof(other_colours) / sizeof(other_colours[0]))];
}

int report_ticks(double lo, double hi, int logscale, double *ticks, int max)
{
	int n = 0;

	if (!(hi > 0) || max < 2)
		return 0;
	if (logscale) {
		static const double steps[] = { 1, 2, 5 };
		int d0 = (int)floor(log10(lo > 0 ? lo : hi / 10));
		/* 1, 2, 5 in each decade when few decades, else powers of ten only. */
		int few = (int)ceil(log10(hi)) - d0 <= 3;

		for (int d = d0; n < max; d++)
			for (int k = 0; k < (few ? 3 : 1) && n < max; k++) {
				ticks[n] = steps[k] * pow(10, d);
				if (ticks[n++] >= hi)
					return n;
			}
		return n;
	}
	{
		double raw = hi / 4, mag = pow(10, floor(log10(raw))), step;

		step = raw <= mag ? mag : raw <= 2 * mag ? 2 * mag : raw <= 5 * mag ? 5 * mag : 10 * mag;
		for (int k = 0; n < max; k++) {
			ticks[n] = step * k;
			if (ticks[n++] >= hi)
				break;
		}
	}
	return n;
}

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* Shortest interval a chart point spans: a sample taken just after the
 * previous one (at the end of a run) would make a spike or a dip. */
#define MIN_SPAN 0.05

/* The next point after sample *from: its index, or 0 when none is left. */
static size_t next_point(const struct bench_run *run, size_t from)
{
	for (size_t i = from + 1; i < run->nsamples; i++)
		if (run->samples[i].t - run->samples[from].t >= MIN_SPAN)
			return i;
	return 0;
}

static double rate_between(const struct bench_run *run, size_t a, size_t b)
{
	double dt = run->samples[b].t - run->samples[a].t;

	return dt > 0 ? (double)(run->samples[b].bytes - run->samples[a].bytes) / dt : 0;
}

/* The unit an axis counts in: for rates the binary prefix of ref (so that
 * ticks are round in what the labels say), for downloads per second 1. */
static double axis_unit(enum bench_test test, double ref, const char **name)
{
	static const char *const units[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
	int k = 0;

	if (test != BENCH_STREAM) {
		*name = "/s";
		return 1;
	}
	while (k < 4 && ref >= pow(1024, k + 1))
		k++;
	*name = units[k];
	return pow(1024, k);
}

/* "500 MiB/s", "2 GiB/s", "20/s": a tick's label. */
static char *tick_label(char *buf, size_t len, double v, const char *unit)
{
	snprintf(buf, len, "%g%s%s", v, unit[0] == '/' ? "" : " ", unit);
	return buf;
}

/* Horizontal grid lines and labels at round values up to ymax (which the
 * caller has already rounded up to the last tick). */
static void y_axis(FILE *f, double ymax, enum bench_test test, int w, int h)
{
	double ticks[16];
	const char *unit;
	double scale = axis_unit(test, ymax, &unit);
	int n = report_ticks(0, ymax / scale, 0, ticks, 16);
	char label[32];

	for (int k = 0; k < n; k++) {
		double y = MT + (h - MT - MB) * (1 - ticks[k] * scale / ymax);

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>", ML, y, w - MR, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>", ML - 4, y + 4,
			tick_label(label, sizeof(label), ticks[k], unit));
	}
}

static void stream_chart(FILE *f, const struct bench_result *r, double tmax, double ymax)
{
	fputs("<figure class=\"multiple\"><figcaption>", f);
	esc(f, r->method->name);
	fputs("</figcaption>\n", f);
	fprintf(f, "<svg class=\"chart stream\" data-method=\"");
	esc(f, r->method->name);
	fprintf(f, "\" viewBox=\"0 0 %d %d\" role=\"img\">", SW, SH);
	y_axis(f, ymax, BENCH_STREAM, SW, SH);
	{
		double ticks[16];
		int n = report_ticks(0, tmax, 0, ticks, 16);

		for (int k = 0; k < n && ticks[k] <= tmax * 1.0001; k++)
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">%gs</text>",
				ML + (SW - ML - MR) * ticks[k] / tmax, SH - 12, ticks[k]);
	}
	for (size_t i = 0; i < r->nruns; i++) {
		const struct bench_run *run = &r->runs[i];

		if (!run->ok || run->nsamples < 2)
			continue;
		fprintf(f, "<polyline class=\"run\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" stroke-opacity=\"0.8\" points=\"",
			colour_of(r->method->name));
		for (size_t a = 0, b; (b = next_point(run, a)) != 0; a = b)
			fprintf(f, "%.1f,%.1f ", ML + (SW - ML - MR) * run->samples[b].t / tmax,
				MT + (SH - MT - MB) * (1 - rate_between(run, a, b) / ymax));
		fputs("\"/>", f);
	}
	fputs("</svg></figure>\n", f);
}

static void stream_charts(FILE *f, const struct bench_test_result *t)
{
	double tmax = 0, ymax = 0;

	for (size_t i = 0; i < t->n; i++)
		for (size_t j = 0; j < t->results[i].nruns; j++) {
			const struct bench_run *run = &t->results[i].runs[j];

			for (size_t a = 0, b; run->ok && (b = next_point(run, a)) != 0; a = b) {
				tmax = fmax(tmax, run->samples[b].t);
				ymax = fmax(ymax, rate_between(run, a, b));
			}
		}
	if (tmax <= 0 || ymax <= 0)
		return;
	{
		double ticks[16];
		const char *unit;
		double scale = axis_unit(BENCH_STREAM, ymax, &unit);
		int n = report_ticks(0, ymax / scale, 0, ticks, 16);

		ymax = n > 0 ? ticks[n - 1] * scale : ymax;
	}
	{
		size_t *order = report_order(t);

		/* Small multiples on one scale, fastest first: a grid, not a column of 8. */
		fputs("<h3>Rate over time, each line one run (same axes in every chart)</h3>\n"
		      "<div class=\"multiples\">\n", f);
		for (size_t i = 0; i < t->n; i++)
			if (t->results[REPORT_ROW(order, i)].ok_runs > 0)
				stream_chart(f, &t->results[REPORT_ROW(order, i)], tmax, ymax);
		fputs("</div>\n", f);
		free(order);
	}
}

/* A chart row's method name, right-aligned before x0, centred on y. */
static void row_name(FILE *f, double x0, double y, const char *name)
{
	fprintf(f, "<text class=\"name\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">", x0 - 6, y + 4);
	esc(f, name);
	fputs("</text>", f);
}

/* The value's place along a comparison chart's axis, 0..1. */
static double along(double v, double lo, double hi, int logscale)
{
	if (logscale)
		return v <= lo ? 0 : (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
	return v / hi;
}

/* All methods of a test side by side, fastest first: a bar to the median, a
 * line over min..max, a dot per run, and the median and its ratio to the
 * baseline printed after it. The axis is linear from 0, always: on a log
 * axis a 4.8x lead looked like 1.2x. */
static void comparison_chart(FILE *f, const struct bench_test_result *t)
{
	const double bar = 22, x0 = 120, span = W - x0 - 190;
	double hi = 0, ticks[32], scale;
	size_t rows = 0, row = 0, *order;
	int h, nt, every;
	char label[32], ratio[32];
	const char *unit;

	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[i];

		if (r->ok_runs == 0 || r->max <= 0)
			continue;
		rows++;
		hi = fmax(hi, r->max);
	}
	if (rows == 0 || hi <= 0)
		return;
	scale = axis_unit(t->test, hi, &unit);
	nt = report_ticks(0, hi / scale, 0, ticks, 32);
	if (nt < 2)
		return;
	for (int k = 0; k < nt; k++)
		ticks[k] *= scale;
	hi = ticks[nt - 1];
	/* Crowded: label every other tick. */
	every = nt > 7 ? 2 : 1;
	h = (int)(MT + MB + (double)rows * (bar + 8));
	fprintf(f, "<figure><figcaption>%s: %s per method, fastest first; bar = median (linear scale from 0), "
		   "line = min..max, dots = runs, then the median and its ratio to the baseline</figcaption>\n",
		bench_test_name(t->test), t->test == BENCH_STREAM ? "rate" : "downloads per second");
	fprintf(f, "<svg class=\"chart compare %s\" data-scale=\"linear\" viewBox=\"0 0 %d %d\" role=\"img\">",
		bench_test_name(t->test), W, h);
	for (int k = 0; k < nt; k++) {
		double x = x0 + span * ticks[k] / hi;

		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>", x, x, MT,
			h - MB + 4);
		if (k % every != 0)
			continue;
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>", x,
			h - MB + 16, tick_label(label, sizeof(label), ticks[k] / scale, unit));
	}
	order = report_order(t);
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[REPORT_ROW(order, i)];
		double y = MT + (double)row * (bar + 8);

		if (r->ok_runs == 0 || r->max <= 0)
			continue;
		row++;
		row_name(f, x0, y + bar / 2, r->method->name);
		fprintf(f, "<rect class=\"median\" data-method=\"");
		esc(f, r->method->name);
		fprintf(f, "\" data-median=\"%.6g\" x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			   "fill-opacity=\"0.75\"/>", r->median, x0, y, fmax(1, span * r->median / hi), bar,
			colour_of(r->method->name));
		fprintf(f, "<line class=\"spread\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-width=\"2\"/>",
			x0 + span * r->min / hi, x0 + span * r->max / hi, y + bar / 2, y + bar / 2);
		for (size_t k = 0; k < r->nruns; k++)
			if (r->runs[k].ok)
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#000\"/>",
					x0 + span * r->runs[k].value / hi, y + bar / 2);
		if (r->is_baseline)
			snprintf(ratio, sizeof(ratio), ", baseline");
		else if (r->ratio > 0)
			snprintf(ratio, sizeof(ratio), r->ratio >= 10 ? ", %.1fx" : r->ratio >= 0.01 ? ", %.2fx" : ", %.2gx", r->ratio);
		else
			ratio[0] = '\0';
		fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s%s</text>",
			x0 + 4 + span * r->max / hi, y + bar / 2 + 4,
			report_value(label, sizeof(label), t->test, r->median), ratio);
	}
	free(order);
	fputs("</svg></figure>\n", f);
}

/* Stream: the latency probe's round trips per method, idle and under the
 * method's load: a grey bar to the idle p50, a bar to the p50 under load,
 * a line on to its p99 with a tick at p90; log scale when they differ by
 * 30 times or more (tails often do). */
static void latency_chart(FILE *f, const struct bench_test_result *t)
{
	const double bar = 14, thin = 6, x0 = 120, span = W - x0 - 150;
	double lo = 0, hi = 0, ticks[32];
	size_t rows = 0, row = 0, *order;
	int h, logscale, nt;
	char a[32], b[32];

	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[i];

		if (r->ok_runs == 0 || r->ping_load.n == 0 || r->ping_idle.n == 0)
			continue;
		rows++;
		hi = fmax(hi, fmax(r->ping_load.p[2], r->ping_idle.p[0]));
		lo = lo > 0 ? fmin(lo, fmin(r->ping_idle.p[0], r->ping_load.p[0]))
			    : fmin(r->ping_idle.p[0], r->ping_load.p[0]);
	}
	if (rows == 0 || hi <= 0 || lo <= 0)
		return;
	logscale = hi / lo >= 30;
	nt = report_ticks(lo, hi, logscale, ticks, 32);
	if (nt < 2)
		return;
	lo = logscale ? ticks[0] : 0;
	hi = ticks[nt - 1];
	h = (int)(MT + MB + (double)rows * (bar + thin + 10));
	fprintf(f, "<figure><figcaption>stream: latency under load, round trips of a ping-pong over a second "
		   "connection; grey = idle p50 just before the method, bar = p50 while it ran, line on to p99 "
		   "(tick at p90)%s</figcaption>\n", logscale ? " (log scale)" : "");
	fprintf(f, "<svg class=\"chart latency stream\" data-scale=\"%s\" viewBox=\"0 0 %d %d\" role=\"img\">",
		logscale ? "log" : "linear", W, h);
	order = report_order(t);
	for (int k = 0; k < nt; k++) {
		double x = x0 + span * along(ticks[k], lo, hi, logscale);

		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>", x, x, MT,
			h - MB + 4);
		if (nt > 7 && (logscale ? fabs(log10(ticks[k]) - round(log10(ticks[k]))) > 1e-9 : k % 2 != 0))
			continue;
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>",
			x, h - MB + 16, ticks[k] > 0 ? report_cpu(a, sizeof(a), ticks[k]) : "0");
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[REPORT_ROW(order, i)];
		double y = MT + (double)row * (bar + thin + 10), yb = y + thin + 2;
		double x50 = x0 + span * along(r->ping_load.p[0], lo, hi, logscale);
		double x90 = x0 + span * along(r->ping_load.p[1], lo, hi, logscale);
		double x99 = x0 + span * along(r->ping_load.p[2], lo, hi, logscale);

		if (r->ok_runs == 0 || r->ping_load.n == 0 || r->ping_idle.n == 0)
			continue;
		row++;
		row_name(f, x0, yb + bar / 2, r->method->name);
		fprintf(f, "<rect class=\"idle\" x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"#999\"/>", x0,
			y, fmax(1, span * along(r->ping_idle.p[0], lo, hi, logscale)), thin);
		fprintf(f, "<rect class=\"load\" data-method=\"");
		esc(f, r->method->name);
		fprintf(f, "\" x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\" fill-opacity=\"0.75\"/>", x0,
			yb, fmax(1, x50 - x0), bar, colour_of(r->method->name));
		fprintf(f, "<line class=\"tail\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
			   "stroke-width=\"2\"/>", x50, x99, yb + bar / 2, yb + bar / 2);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-width=\"2\"/>",
			x90, x90, yb + 2, yb + bar - 2);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#000\"/>", x99, yb + bar / 2);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">p50 %s, p99 %s</text>", x99 + 6, yb + bar / 2 + 4,
			report_cpu(a, sizeof(a), r->ping_load.p[0]), report_cpu(b, sizeof(b), r->ping_load.p[2]));
	}
	free(order);
	fputs("</svg></figure>\n", f);
}

/* TCP's view: retransmits per run and the mean RTT; "-" when unknown. */
static void tcp_cells(FILE *f, const struct bench_result *r)
{
	char retrans[32], rtt[32];

	report_tcp_cells(r, retrans, sizeof(retrans), rtt, sizeof(rtt));
	fprintf(f, "<td>%s</td><td>%s</td>", retrans, rtt);
}

static void html_table(FILE *f, const struct bench_test_result *t)
{
	size_t *order;
	char a[32], b[32], c[32], cpu[32], v[64], line[METHOD_CMD_MAX * 8];

	fprintf(f, "<table><tr><th>Method</th><th>Command</th><th>%s</th><th>Rate (median)</th><th>min..max</th>"
		   "<th>CPU %s</th><th>vs baseline</th></tr>\n",
		t->test == BENCH_STREAM ? "Total data" : "Runs ok", t->test == BENCH_STREAM ? "per GiB" : "per download");
	order = report_order(t);
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[REPORT_ROW(order, i)];

		fputs("<tr><td>", f);
		esc(f, r->method->name);
		if (r->method->note[0])
			fprintf(f, " (%s)", r->method->note);
		fputs("</td><td><code>", f);
		esc(f, r->status == BENCH_SKIPPED ? "" : method_shell_line(r->shell, r->command, line, sizeof(line)));
		fputs("</code></td>", f);
		if (r->ok_runs == 0) {
			fprintf(f, "<td colspan=\"5\">%s: ", r->status == BENCH_SKIPPED ? "skipped" : "failed");
			esc(f, r->reason);
			fputs("</td></tr>\n", f);
			continue;
		}
		if (t->test == BENCH_STREAM)
			display_amount(a, sizeof(a), r->median_bytes, 0, "B");
		else
			snprintf(a, sizeof(a), "%zu of %zu", r->ok_runs, r->nruns);
		fprintf(f, "<td>%s</td><td>%s</td>", a, report_value(b, sizeof(b), t->test, r->median));
		fprintf(f, "<td>%s..", report_value(c, sizeof(c), t->test, r->min));
		fprintf(f, "%s</td><td>%s</td><td>", report_value(c, sizeof(c), t->test, r->max),
			report_cpu(cpu, sizeof(cpu), r->cpu));
		esc(f, report_verdict(v, sizeof(v), r));
		fputs("</td></tr>\n", f);
	}
	free(order);
	fputs("</table>\n", f);
}

/* The second table: TCP's view of each method, and its latency (files: per
 * download; stream: the probe's round trips, idle and under load). */
static void detail_table(FILE *f, const struct bench_info *info, const struct bench_test_result *t)
{
	int stream = t->test == BENCH_STREAM;
	char c[32];

	if (stream)
		fprintf(f, "<p>TCP's view (the server's sockets at the end of each run) and latency under load: round "
			   "trips of a ping-pong over a second connection, one per %.3g ms, idle (%.3g s before each run) "
			   "and under load (while it ran).</p>\n", info->probe_interval * 1000, info->probe_idle);
	else
		fputs("<p>TCP's view (tcp_info of each download as the server closed it) and the latency of each "
		      "download (server side, accept to close).</p>\n", f);
	fprintf(f, "<table class=\"detail %s\"><tr><th>Method</th><th>Retransmits per run</th><th>RTT</th>%s</tr>\n",
		bench_test_name(t->test),
		stream ? "<th>Latency idle p50</th><th>under load p50</th><th>p90</th><th>p99</th><th>Round trips "
			 "(idle/load)</th>"
		       : "<th>Latency p50</th><th>p90</th><th>p99</th>");
	size_t *order = report_order(t);

	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[REPORT_ROW(order, i)];
		const struct bench_pcts *lat = stream ? &r->ping_load : NULL;

		if (r->ok_runs == 0)
			continue;
		fputs("<tr><td>", f);
		esc(f, r->method->name);
		fputs("</td>", f);
		tcp_cells(f, r);
		if (stream ? r->ping_idle.n == 0 || lat->n == 0 : r->lat[0] < 0) {
			fprintf(f, "<td colspan=\"%d\">unavailable: ", stream ? 5 : 3);
			esc(f, stream ? report_no_ping(info, r, NULL) : report_no_latency(r, NULL));
			fputs("</td></tr>\n", f);
			continue;
		}
		if (stream)
			fprintf(f, "<td>%s</td>", report_cpu(c, sizeof(c), r->ping_idle.p[0]));
		for (int k = 0; k < 3; k++)
			fprintf(f, "<td>%s</td>", report_cpu(c, sizeof(c), stream ? lat->p[k] : r->lat[k]));
		if (stream)
			fprintf(f, "<td>%zu/%zu</td>", r->ping_idle.n, lat->n);
		fputs("</tr>\n", f);
	}
	free(order);
	fputs("</table>\n", f);
}

int report_html(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	char caution[4096];

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ncpv bench</title>\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<style>body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse}"
	      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}code{font-size:90%;overflow-wrap:anywhere}"
	      "figure{margin:1em 0}svg{background:#fff;border:1px solid #eee;width:100%;height:auto;display:block}"
	      ".multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(18em,1fr));gap:0 1em}"
	      ".multiples figure{margin:0.5em 0}.pnote{font-size:90%;color:#444}</style></head><body>\n"
	      "<h1>ncpv bench</h1>\n<p>", f);
	report_headline(caution, sizeof(caution), info, tests, n);
	fputs("<strong class=\"headline\">", f);
	esc(f, caution);
	fputs("</strong></p>\n<p>", f);
	fputs("Server: ", f);
	esc(f, info->server);
	fputs("; path: ", f);
	esc(f, info->path);
	fprintf(f, "; %ld runs per method, interleaved; ncpv ", info->repeat);
	esc(f, info->version);
	fputs(".<br>Counted: ", f);
	esc(f, info->counting);
	fprintf(f, ".<br>Verdicts: Mann-Whitney U test against the baseline, two-sided, p &lt; %.2g.</p>\n", info->alpha);
	if (info->env != NULL) {
		const struct bench_env *e = info->env;

		fputs("<p class=\"env\">Environment: ", f);
		esc(f, e->date);
		fputs("; ", f);
		esc(f, e->kernel);
		fputs("; ", f);
		esc(f, e->cpu);
		fprintf(f, ", %ld CPUs; load %.2f %.2f %.2f at the start.<br>Tools:", e->ncpu, e->load[0], e->load[1],
			e->load[2]);
		for (size_t i = 0; i < e->ntools; i++) {
			fputs(i ? "; " : " ", f);
			esc(f, e->tools[i].name);
			fputs(": ", f);
			esc(f, e->tools[i].version);
		}
		fputs(e->ntools ? ".<br>Command: <code>" : " none.<br>Command: <code>", f);
		esc(f, e->command);
		fputs("</code></p>\n", f);
	}
	for (size_t k = 0; k < n; k++) {
		const struct bench_test_result *t = &tests[k];

		if (t->test == BENCH_STREAM)
			fprintf(f, "<h2>stream: one download for %.3g s per run</h2>\n", info->duration);
		else
			fprintf(f, "<h2>files: %llu downloads of %llu bytes per run</h2>\n",
				(unsigned long long)info->count, (unsigned long long)info->size);
		html_table(f, t);
		if (k == 0) { /* where a verdict's p first appears */
			fputs("<p class=\"pnote\">", f);
			fprintf(f, REPORT_P_PHRASE, t->alpha);
			fputs(".</p>\n", f);
		}
		if (report_cautions(caution, sizeof(caution), info, t) > 0) {
			fputs("<p class=\"caution\"><strong>", f);
			esc(f, caution);
			fputs("</strong></p>\n", f);
		}
		comparison_chart(f, t);
		if (report_ran(t) > 0)
			detail_table(f, info, t);
		if (t->test == BENCH_STREAM) {
			latency_chart(f, t);
			stream_charts(f, t);
		}
	}
	tput_report_html(f, info->tput);
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
