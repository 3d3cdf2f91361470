/* SPDX-License-Identifier: ISC */
/* report_html.c - a self-contained HTML report: the tables, a rate-over-time
 * SVG chart per stream method, and transfers/s with spread for files. */
#include "report.h"

#include <math.h>
#include <string.h>

#include "../display.h"

#define W 640
#define H 220
#define ML 70 /* left margin: y labels */
#define MR 12
#define MT 12
#define MB 32 /* bottom margin: x labels */

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
				       "#8c564b", "#e377c2" };

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

static void y_axis(FILE *f, double ymax, enum bench_test test)
{
	char label[32];

	for (int k = 0; k <= 4; k++) {
		double v = ymax * k / 4, y = MT + (H - MT - MB) * (1 - (double)k / 4);

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>", ML, y, W - MR, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>", ML - 4, y + 4,
			report_value(label, sizeof(label), test, v));
	}
}

static void stream_chart(FILE *f, const struct bench_result *r, int colour, double tmax, double ymax)
{
	fprintf(f, "<figure><figcaption>%s: rate over time, each line one run</figcaption>\n", r->method->name);
	fprintf(f, "<svg class=\"chart stream\" data-method=\"");
	esc(f, r->method->name);
	fprintf(f, "\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", W, H, W, H);
	y_axis(f, ymax, BENCH_STREAM);
	for (int k = 0; k <= 5; k++) {
		double x = ML + (W - ML - MR) * k / 5.0;

		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" font-size=\"11\">%.3gs</text>", x, H - 12,
			k == 5 ? "end" : "middle", tmax * k / 5);
	}
	for (size_t i = 0; i < r->nruns; i++) {
		const struct bench_run *run = &r->runs[i];

		if (!run->ok || run->nsamples < 2)
			continue;
		fprintf(f, "<polyline class=\"run\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" stroke-opacity=\"0.8\" points=\"",
			colours[colour % 8]);
		for (size_t a = 0, b; (b = next_point(run, a)) != 0; a = b)
			fprintf(f, "%.1f,%.1f ", ML + (W - ML - MR) * run->samples[b].t / tmax,
				MT + (H - MT - MB) * (1 - rate_between(run, a, b) / ymax));
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
	ymax *= 1.05;
	for (size_t i = 0; i < t->n; i++)
		if (t->results[i].ok_runs > 0)
			stream_chart(f, &t->results[i], (int)i, tmax, ymax);
}

static void files_chart(FILE *f, const struct bench_test_result *t)
{
	double xmax = 0, bar = 26;
	size_t rows = 0, row = 0;
	int h;

	for (size_t i = 0; i < t->n; i++)
		if (t->results[i].ok_runs > 0) {
			rows++;
			xmax = fmax(xmax, t->results[i].max);
		}
	if (rows == 0 || xmax <= 0)
		return;
	xmax *= 1.1;
	h = (int)(MT + MB + rows * (bar + 8));
	fprintf(f, "<figure><figcaption>files: transfers per second, bar = median, line = min..max, dots = runs</figcaption>\n");
	fprintf(f, "<svg class=\"chart files\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", W, h, W, h);
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[i];
		double y = MT + (double)row * (bar + 8), span = W - 120 - MR;
		char label[32];

		if (r->ok_runs == 0)
			continue;
		row++;
		fprintf(f, "<text x=\"114\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">", y + bar / 2 + 4);
		esc(f, r->method->name);
		fputs("</text>", f);
		fprintf(f, "<rect class=\"median\" x=\"120\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.75\"/>",
			y, span * r->median / xmax, bar, colours[i % 8]);
		fprintf(f, "<line class=\"spread\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-width=\"2\"/>",
			120 + span * r->min / xmax, 120 + span * r->max / xmax, y + bar / 2, y + bar / 2);
		for (size_t k = 0; k < r->nruns; k++)
			if (r->runs[k].ok)
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#000\"/>",
					120 + span * r->runs[k].value / xmax, y + bar / 2);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>", 124 + span * r->max / xmax,
			y + bar / 2 + 4, report_value(label, sizeof(label), BENCH_FILES, r->median));
	}
	fputs("</svg></figure>\n", f);
}

static void html_table(FILE *f, const struct bench_test_result *t)
{
	char a[32], b[32], c[32], v[64], line[METHOD_CMD_MAX * 8];

	fprintf(f, "<table><tr><th>Method</th><th>Command</th><th>%s</th><th>Rate (median)</th><th>min..max</th><th>vs baseline</th></tr>\n",
		t->test == BENCH_STREAM ? "Total data" : "Runs ok");
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[i];

		fputs("<tr><td>", f);
		esc(f, r->method->name);
		if (r->method->note[0])
			fprintf(f, " (%s)", r->method->note);
		fputs("</td><td><code>", f);
		esc(f, r->status == BENCH_SKIPPED ? "" : method_shell_line(r->shell, r->command, line, sizeof(line)));
		fputs("</code></td>", f);
		if (r->ok_runs == 0) {
			fprintf(f, "<td colspan=\"4\">%s: ", r->status == BENCH_SKIPPED ? "skipped" : "failed");
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
		fprintf(f, "%s</td><td>", report_value(c, sizeof(c), t->test, r->max));
		esc(f, report_verdict(v, sizeof(v), r));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int report_html(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ncpv bench</title>\n"
	      "<style>body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
	      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}code{font-size:90%}"
	      "figure{margin:1em 0}svg{background:#fff;border:1px solid #eee}</style></head><body>\n"
	      "<h1>ncpv bench</h1>\n<p>", f);
	fputs("Server: ", f);
	esc(f, info->server);
	fputs("; path: ", f);
	esc(f, info->path);
	fprintf(f, "; %ld runs per method, interleaved; ncpv ", info->repeat);
	esc(f, info->version);
	fputs(".<br>Counted: ", f);
	esc(f, info->counting);
	fprintf(f, ".<br>Verdicts: Mann-Whitney U test against the baseline, two-sided, p &lt; %.2g.</p>\n", info->alpha);
	for (size_t k = 0; k < n; k++) {
		const struct bench_test_result *t = &tests[k];

		if (t->test == BENCH_STREAM)
			fprintf(f, "<h2>stream: one download for %.3g s per run</h2>\n", info->duration);
		else
			fprintf(f, "<h2>files: %llu downloads of %llu bytes per run</h2>\n",
				(unsigned long long)info->count, (unsigned long long)info->size);
		html_table(f, t);
		if (t->test == BENCH_STREAM)
			stream_charts(f, t);
		else
			files_chart(f, t);
	}
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
