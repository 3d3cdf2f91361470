/* SPDX-License-Identifier: ISC */
/* report_json.c - the bench's results as one JSON document: every method's
 * runs, summary, verdict, and for streams the count over time. */
#include "report.h"

#include <math.h>

#include "../cmd/cmd.h"

/* JSON has no NaN or infinity. */
static double json_number(double v)
{
	return isfinite(v) ? v : 0;
}

static void str(FILE *f, const char *key, const char *value, const char *after)
{
	char esc[METHOD_CMD_MAX * 3 * 6 + 8];

	fprintf(f, "\"%s\":\"%s\"%s", key, cmd_json_string(esc, sizeof(esc), value ? value : ""), after);
}

static void run_json(FILE *f, enum bench_test test, const struct bench_run *run)
{
	fprintf(f, "{\"ok\":%s,\"value\":%.6g,\"bytes\":%llu,\"seconds\":%.6f,\"transfers\":%llu,",
		run->ok ? "true" : "false", json_number(run->value), (unsigned long long)run->bytes,
		json_number(run->seconds), (unsigned long long)run->transfers);
	fprintf(f, "\"cpu\":%.6f,\"position\":%d,", json_number(run->cpu), run->position);
	if (test == BENCH_STREAM)
		fprintf(f, "\"first_byte\":%.6f,\"retrans\":%ld,\"rtt_ms\":%.3f,", json_number(run->first_byte),
			run->retrans, json_number(run->rtt_ms));
	str(f, "error", run->error, "");
	if (test == BENCH_STREAM) {
		fputs(",\"samples\":[", f);
		for (size_t i = 0; i < run->nsamples; i++)
			fprintf(f, "%s[%.3f,%llu]", i ? "," : "", run->samples[i].t,
				(unsigned long long)run->samples[i].bytes);
		fputc(']', f);
	}
	fputc('}', f);
}

static void method_json(FILE *f, enum bench_test test, const struct bench_result *r)
{
	fputc('{', f);
	str(f, "name", r->method->name, ",");
	str(f, "note", r->method->note, ",");
	str(f, "status", bench_status_name(r->status), ",");
	str(f, "reason", r->reason, ",");
	str(f, "shell", r->status == BENCH_SKIPPED ? "" : r->shell, ",");
	str(f, "command", r->status == BENCH_SKIPPED ? "" : r->command, ",");
	fprintf(f, "\"unit\":\"%s\",\"runs_ok\":%zu,\"median\":%.6g,\"min\":%.6g,\"max\":%.6g,"
		   "\"median_bytes\":%.0f,\"ratio\":%.6g,\"p_value\":%.6g,\"baseline\":%s,",
		bench_value_unit(test), r->ok_runs, json_number(r->median), json_number(r->min), json_number(r->max),
		json_number(r->median_bytes), json_number(r->ratio), json_number(r->p), r->is_baseline ? "true" : "false");
	str(f, "verdict", r->verdict, ",");
	fprintf(f, "\"cpu\":%.6g,\"cpu_unit\":\"%s\",", json_number(r->cpu),
		test == BENCH_STREAM ? "s/GiB" : "s/download");
	if (test == BENCH_STREAM)
		fprintf(f, "\"retrans\":%.6g,\"rtt_ms\":%.6g,", json_number(r->retrans), json_number(r->rtt_ms));
	str(f, "verdict_without_unstable", r->verdict_stable, ",");
	fprintf(f, "\"p_without_unstable\":%.6g,", json_number(r->p_stable));
	fputs("\"runs\":[", f);
	for (size_t i = 0; i < r->nruns; i++) {
		if (i)
			fputc(',', f);
		run_json(f, test, &r->runs[i]);
	}
	fputs("]}", f);
}

static void env_json(FILE *f, const struct bench_env *e)
{
	if (e == NULL)
		return;
	fputs("\"environment\":{", f);
	str(f, "date", e->date, ",");
	str(f, "kernel", e->kernel, ",");
	str(f, "cpu", e->cpu, ",");
	fprintf(f, "\"cpus\":%ld,\"load\":[%.2f,%.2f,%.2f],", e->ncpu, e->load[0], e->load[1], e->load[2]);
	str(f, "command", e->command, ",");
	fputs("\"tools\":{", f);
	for (size_t i = 0; i < e->ntools; i++)
		str(f, e->tools[i].name, e->tools[i].version, i + 1 < e->ntools ? "," : "");
	fputs("}},", f);
}

int report_json(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	fprintf(f, "{\"schema_version\":%d,\"interrupted\":%s,", BENCH_SCHEMA_VERSION,
		info->interrupted ? "true" : "false");
	str(f, "ncpv", info->version, ",");
	{
		char headline[2048];

		report_headline(headline, sizeof(headline), info, tests, n);
		str(f, "headline", headline, ",");
	}
	env_json(f, info->env);
	str(f, "server", info->server, ",");
	str(f, "path", info->path, ",");
	str(f, "counting_point", info->counting, ",");
	if (info->shuffle)
		fprintf(f, "\"order\":\"shuffled\",\"seed\":%u,", info->seed);
	else
		fputs("\"order\":\"interleaved\",", f);
	fprintf(f, "\"repeat\":%ld,\"alpha\":%.3g,\"test_method\":\"Mann-Whitney U, two-sided\",\"tests\":[",
		info->repeat, info->alpha);
	for (size_t k = 0; k < n; k++) {
		const struct bench_test_result *t = &tests[k];

		fprintf(f, "%s{\"test\":\"%s\",", k ? "," : "", bench_test_name(t->test));
		if (t->test == BENCH_STREAM)
			fprintf(f, "\"duration\":%.6g,", info->duration);
		else
			fprintf(f, "\"count\":%llu,\"size\":%llu,", (unsigned long long)info->count,
				(unsigned long long)info->size);
		str(f, "baseline", t->baseline < t->n ? t->results[t->baseline].method->name : "", ",");
		fprintf(f, "\"runs_needed\":%ld,\"unstable_rounds\":[", t->runs_needed);
		for (int r = 0, first = 1; r < 64; r++)
			if (t->unstable >> r & 1) {
				fprintf(f, "%s%d", first ? "" : ",", r + 1);
				first = 0;
			}
		fputs("],", f);
		fputs("\"methods\":[", f);
		for (size_t i = 0; i < t->n; i++) {
			if (i)
				fputc(',', f);
			method_json(f, t->test, &t->results[i]);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -1 : 0;
}
