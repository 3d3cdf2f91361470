/* SPDX-License-Identifier: ISC */
/* report_text.c - the bench's table, laid out like the seed's
 * (Method | Total data | Rate | vs baseline), and the same rows as CSV. */
#include "report.h"

#include <errno.h>
#include <string.h>

#include "../display.h"

char *report_value(char *buf, size_t len, enum bench_test test, double v)
{
	if (test == BENCH_STREAM)
		return display_amount(buf, len, v, 0, "B/s");
	snprintf(buf, len, v >= 100 ? "%.0f/s" : "%.1f/s", v);
	return buf;
}

char *report_verdict(char *buf, size_t len, const struct bench_result *r)
{
	if (r->is_baseline)
		snprintf(buf, len, "1.000x (baseline)");
	else if (r->ratio <= 0)
		snprintf(buf, len, "-");
	else
		/* Three decimals near 1, so that a small but real difference shows. */
		snprintf(buf, len, r->ratio < 10 ? "%.3fx %s (p=%.3g)" : "%.1fx %s (p=%.3g)", r->ratio, r->verdict, r->p);
	return buf;
}

static void label(char *buf, size_t len, const struct bench_result *r)
{
	if (r->method->note[0])
		snprintf(buf, len, "%s (%s)", r->method->name, r->method->note);
	else
		snprintf(buf, len, "%s", r->method->name);
}

static void header(FILE *f, const struct bench_info *info, const struct bench_test_result *t)
{
	if (t->test == BENCH_STREAM)
		fprintf(f, "stream: one download per run for %.3g s, %ld run%s per method, interleaved\n",
			info->duration, info->repeat, info->repeat == 1 ? "" : "s");
	else
		fprintf(f, "files: %llu downloads of %llu bytes per run, %ld run%s per method, interleaved\n",
			(unsigned long long)info->count, (unsigned long long)info->size, info->repeat,
			info->repeat == 1 ? "" : "s");
	fprintf(f, "server: %s; path: %s\n", info->server, info->path);
}

static void table(FILE *f, const struct bench_info *info, const struct bench_test_result *t)
{
	char name[80], total[32], rate[32], lo[32], hi[32], range[72], verdict[64];
	int stream = t->test == BENCH_STREAM;

	fprintf(f, "%-24s %11s %12s  %-23s %s\n", "Method", stream ? "Total data" : "Downloads", "Rate", "min..max", "vs baseline");
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[i];

		label(name, sizeof(name), r);
		if (r->status == BENCH_SKIPPED || r->ok_runs == 0) {
			fprintf(f, "%-24s %s: %s\n", name, r->status == BENCH_SKIPPED ? "skipped" : "failed",
				r->reason);
			continue;
		}
		if (stream)
			display_amount(total, sizeof(total), r->median_bytes, 0, "B");
		else
			snprintf(total, sizeof(total), "%llu", (unsigned long long)info->count);
		report_value(rate, sizeof(rate), t->test, r->median);
		report_value(lo, sizeof(lo), t->test, r->min);
		report_value(hi, sizeof(hi), t->test, r->max);
		snprintf(range, sizeof(range), "%s..%s", lo, hi);
		fprintf(f, "%-24s %11s %12s  %-23s %s", name, total, rate, range,
			report_verdict(verdict, sizeof(verdict), r));
		if (r->status == BENCH_FAILED)
			fprintf(f, "  [%zu of %zu runs failed: %s]", r->nruns - r->ok_runs, r->nruns, r->reason);
		fputc('\n', f);
	}
}

int report_text(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	char line[METHOD_CMD_MAX * 8];

	for (size_t k = 0; k < n; k++) {
		const struct bench_test_result *t = &tests[k];

		if (k > 0)
			fputc('\n', f);
		header(f, info, t);
		table(f, info, t);
	}
	fprintf(f, "\nRate: median of the runs. vs baseline: ratio of medians; faster/slower when a\n"
		   "Mann-Whitney test puts the difference beyond run-to-run spread (p < %.2g),\n"
		   "otherwise within spread.\nCounted: %s.\nCommands:\n",
		info->alpha, info->counting);
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < tests[k].n; i++) {
			const struct bench_result *r = &tests[k].results[i];

			if (r->status != BENCH_SKIPPED)
				fprintf(f, "  %-6s %-12s %s\n", bench_test_name(tests[k].test), r->method->name,
					method_shell_line(r->shell, r->command, line, sizeof(line)));
		}
	return ferror(f) ? -1 : 0;
}

/* One CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s, int last)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, f);
	} else {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	}
	fputc(last ? '\n' : ',', f);
}

int report_csv(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	(void)info;
	fprintf(f, "test,method,status,runs,ok_runs,median,min,max,unit,median_bytes,ratio,p_value,verdict,reason,command\n");
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < tests[k].n; i++) {
			const struct bench_result *r = &tests[k].results[i];

			fprintf(f, "%s,", bench_test_name(tests[k].test));
			csv_field(f, r->method->name, 0);
			fprintf(f, "%s,%zu,%zu,%.6g,%.6g,%.6g,%s,%.0f,%.6g,%.6g,", bench_status_name(r->status), r->nruns,
				r->ok_runs, r->median, r->min, r->max, bench_value_unit(tests[k].test),
				r->median_bytes, r->ratio, r->p);
			csv_field(f, r->verdict, 0);
			csv_field(f, r->reason, 0);
			csv_field(f, r->status == BENCH_SKIPPED ? "" : r->command, 1);
		}
	return ferror(f) ? -1 : 0;
}
