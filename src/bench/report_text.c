/* SPDX-License-Identifier: ISC */
/* report_text.c - the bench's table, laid out like the seed's
 * (Method | Total data | Rate | vs baseline), and the same rows as CSV. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../display.h"

/* Print text's lines word-wrapped at 79 columns (a word longer stays whole). */
static void wrap(FILE *f, const char *text)
{
	const int width = 79;

	while (*text) {
		const char *nl = strchr(text, '\n'), *end = nl ? nl : text + strlen(text), *cut = end;

		if (end - text > width) {
			for (cut = text + width; cut > text && *cut != ' '; cut--)
				;
			if (cut == text)
				cut = strchr(text + width, ' ') ? strchr(text + width, ' ') : end;
			if (cut > end)
				cut = end;
		}
		fprintf(f, "%.*s\n", (int)(cut - text), text);
		text = cut == end ? (nl ? nl + 1 : end) : cut + 1;
	}
}

static void header(FILE *f, const struct bench_info *info, const struct bench_test_result *t)
{
	char line[1024];

	char order[48];

	if (info->shuffle)
		snprintf(order, sizeof(order), "shuffled (seed %u)", info->seed);
	else
		snprintf(order, sizeof(order), "interleaved");
	if (t->test == BENCH_STREAM)
		fprintf(f, "stream: one download per run for %.3g s, %ld run%s per method, %s\n", info->duration,
			info->repeat, info->repeat == 1 ? "" : "s", order);
	else
		fprintf(f, "files: %llu downloads of %llu bytes per run, %ld run%s per method, %s\n",
			(unsigned long long)info->count, (unsigned long long)info->size, info->repeat,
			info->repeat == 1 ? "" : "s", order);
	snprintf(line, sizeof(line), "server: %s; path: %s", info->server, info->path);
	wrap(f, line);
}

/* One value of the min..max column: the number and its prefix, no unit. */
static char *bare_value(char *buf, size_t len, enum bench_test test, double v)
{
	if (test == BENCH_STREAM) {
		char *s = display_amount(buf, len, v, 0, "");
		size_t n = strlen(s);

		while (n > 0 && s[n - 1] == ' ') /* "0.00", not "0.00 " before ".." */
			s[--n] = '\0';
		return s + strspn(s, " "); /* "815Mi", not " 815Mi" after ".." */
	}
	snprintf(buf, len, v >= 100 ? "%.0f" : "%.1f", v);
	return buf;
}

/* At most 80 columns with the built-in methods' names: the seed's columns
 * (Method, Total, Rate, vs baseline), the spread and the CPU time. */
static void table(FILE *f, const struct bench_info *info, const struct bench_test_result *t)
{
	char name[80], total[32], rate[32], lo[32], hi[32], range[72], verdict[64], cpu[32];
	int stream = t->test == BENCH_STREAM, seed = 0;

	size_t *order = report_order(t);

	fprintf(f, "%-13s %7s %9s  %-14s %7s  %s\n", "Method", "Total", "Rate", "min..max",
		stream ? "CPU/GiB" : "CPU/dl", "vs baseline");
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[REPORT_ROW(order, i)];

		seed |= strcmp(r->method->note, "seed") == 0;
		snprintf(name, sizeof(name), "%s%s", r->method->name, strcmp(r->method->note, "seed") == 0 ? "*" : "");
		if (r->status == BENCH_SKIPPED || r->ok_runs == 0) {
			fprintf(f, "%-13s %s: %s\n", name, r->status == BENCH_SKIPPED ? "skipped" : "failed",
				r->reason);
			continue;
		}
		if (stream)
			display_amount(total, sizeof(total), r->median_bytes, 0, "B");
		else
			snprintf(total, sizeof(total), "%llu", (unsigned long long)info->count);
		report_value(rate, sizeof(rate), t->test, r->median);
		snprintf(range, sizeof(range), "%s..%s", bare_value(lo, sizeof(lo), t->test, r->min),
			 bare_value(hi, sizeof(hi), t->test, r->max));
		fprintf(f, "%-13s %7s %9s  %-14s %7s  %s", name, total, rate, range,
			report_cpu(cpu, sizeof(cpu), r->cpu), report_verdict(verdict, sizeof(verdict), r));
		if (r->status == BENCH_FAILED)
			fprintf(f, "  [%zu of %zu runs failed: %s]", r->nruns - r->ok_runs, r->nruns, r->reason);
		fputc('\n', f);
	}
	free(order);
	if (seed)
		fputs("* the seed's own command\n", f);
}

/* Files: each method's download latency and TCP's view, a second table
 * under the first. */
static void latency_table(FILE *f, const struct bench_test_result *t)
{
	char name[80], p[3][32], retrans[32], rtt[32];

	fprintf(f, "\nLatency per download (server side, accept to close, all good runs), and TCP's\n"
		   "retransmits per run and mean RTT (tcp_info of each download as it closed):\n");
	fprintf(f, "%-13s %9s %9s %9s %9s %9s\n", "Method", "p50", "p90", "p99", "Retrans", "RTT");
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[i];

		if (r->status == BENCH_SKIPPED || r->ok_runs == 0)
			continue;
		snprintf(name, sizeof(name), "%s%s", r->method->name, strcmp(r->method->note, "seed") == 0 ? "*" : "");
		if (r->lat[0] < 0) {
			fprintf(f, "%-13s unavailable: %s\n", name, report_no_latency(r, NULL));
			continue;
		}
		for (int k = 0; k < 3; k++)
			report_cpu(p[k], sizeof(p[k]), r->lat[k]);
		report_tcp_cells(r, retrans, sizeof(retrans), rtt, sizeof(rtt));
		fprintf(f, "%-13s %9s %9s %9s %9s %9s\n", name, p[0], p[1], p[2], retrans, rtt);
	}
}

/* Stream: TCP's view and the latency probe's round trips, idle and under
 * the method's load, a second table under the first. */
static void load_table(FILE *f, const struct bench_info *info, const struct bench_test_result *t)
{
	char name[80], p[4][32], retrans[32], rtt[32], count[48];

	char head[400];

	if (info->probe_interval > 0)
		snprintf(head, sizeof(head), "\nTCP's view (retransmits per run, RTT) and latency under load: round trips of "
			 "a ping-pong over a second connection, one per %.3g ms, idle (%.3g s before each run) and under "
			 "load (while it ran):", info->probe_interval * 1000, info->probe_idle);
	else
		snprintf(head, sizeof(head), "\nTCP's view (retransmits per run, RTT) and latency under load:");
	wrap(f, head);
	fprintf(f, "%-13s %7s %8s %8s %8s %8s %8s %10s\n", "Method", "Retrans", "RTT", "idle p50", "load p50", "p90",
		"p99", "samples");
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[i];

		if (r->status == BENCH_SKIPPED || r->ok_runs == 0)
			continue;
		snprintf(name, sizeof(name), "%s%s", r->method->name, strcmp(r->method->note, "seed") == 0 ? "*" : "");
		report_tcp_cells(r, retrans, sizeof(retrans), rtt, sizeof(rtt));
		if (r->ping_load.n == 0 || r->ping_idle.n == 0) {
			fprintf(f, "%-13s %7s %8s  latency unavailable: %s\n", name, retrans, rtt,
				report_no_ping(info, r, NULL));
			continue;
		}
		report_cpu(p[0], sizeof(p[0]), r->ping_idle.p[0]);
		for (int k = 0; k < 3; k++)
			report_cpu(p[k + 1], sizeof(p[k + 1]), r->ping_load.p[k]);
		snprintf(count, sizeof(count), "%zu/%zu", r->ping_idle.n, r->ping_load.n);
		fprintf(f, "%-13s %7s %8s %8s %8s %8s %8s %10s\n", name, retrans, rtt, p[0], p[1], p[2], p[3], count);
	}
}

/* The headline when the baseline itself was fastest: how far ahead of the
 * runner-up and whether that beats run-to-run spread (the runner-up's verdict). */
static void baseline_fastest(char *how, size_t len, const struct bench_test_result *t, const struct bench_result *base)
{
	const struct bench_result *next = NULL;

	for (size_t i = 0; i < t->n; i++)
		if (&t->results[i] != base && t->results[i].ok_runs > 0 && t->results[i].ratio > 0 &&
		    (next == NULL || t->results[i].median > next->median))
			next = &t->results[i];
	if (next == NULL)
		snprintf(how, len, "(the baseline, the only method that ran) was fastest");
	else if (strcmp(next->verdict, "slower") == 0)
		snprintf(how, len, "(the baseline) is fastest: %.3gx %s, beyond run-to-run spread (p=%.2g)",
			 1 / next->ratio, next->method->name, next->p);
	else if (strcmp(next->verdict, "too few runs") == 0)
		snprintf(how, len, "(the baseline) was fastest at %.3gx %s, but too few runs for a verdict (need -r %ld)",
			 1 / next->ratio, next->method->name, t->runs_needed);
	else
		snprintf(how, len,
			 "(the baseline) was fastest at %.3gx %s, within run-to-run spread (p=%.2g): no clear winner",
			 1 / next->ratio, next->method->name, next->p);
}

size_t report_headline(char *buf, size_t len, const struct bench_info *info, const struct bench_test_result *tests,
		       size_t n)
{
	size_t used = 0;

	if (len > 0)
		buf[0] = '\0';
	if (info->interrupted)
		used += (size_t)snprintf(buf, len, "Interrupted: partial results, from the runs that finished.\n");
	for (size_t k = 0; k < n; k++) {
		const struct bench_test_result *t = &tests[k];
		const struct bench_result *best = NULL, *base = t->baseline < t->n ? &t->results[t->baseline] : NULL;
		char what[96], how[256];

		for (size_t i = 0; i < t->n; i++)
			if (t->results[i].ok_runs > 0 && (best == NULL || t->results[i].median > best->median))
				best = &t->results[i];
		if (t->test == BENCH_STREAM)
			snprintf(what, sizeof(what), "For one big stream");
		else
			snprintf(what, sizeof(what), "For many small files (%llu of %llu B)", (unsigned long long)info->count,
				 (unsigned long long)info->size);
		if (best == NULL || base == NULL || base->ok_runs == 0) {
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s: no method ran to the end.%s",
						 what, k + 1 < n ? "\n" : "");
			continue;
		}
		if (best == base) {
			baseline_fastest(how, sizeof(how), t, base);
		} else if (strcmp(best->verdict, "faster") == 0) {
			snprintf(how, sizeof(how), "is fastest: %.3gx %s, beyond run-to-run spread (p=%.2g)", best->ratio,
				 base->method->name, best->p);
		} else if (strcmp(best->verdict, "too few runs") == 0) {
			snprintf(how, sizeof(how), "was fastest at %.3gx %s, but too few runs for a verdict (need -r %ld)",
				 best->ratio, base->method->name, t->runs_needed);
		} else {
			snprintf(how, sizeof(how), "was fastest at %.3gx %s, within run-to-run spread (p=%.2g): no clear winner",
				 best->ratio, base->method->name, best->p);
		}
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s, %s %s.%s", what, best->method->name,
					 how, k + 1 < n ? "\n" : "");
	}
	return used;
}

int report_rounds(char *buf, size_t len, uint64_t mask)
{
	size_t n = 0;
	int count = 0;

	buf[0] = '\0';
	for (int k = 0; k < 64; k++)
		if (mask >> k & 1) {
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%d", count ? ", " : "", k + 1);
			count++;
		}
	return count;
}

size_t report_cautions(char *buf, size_t len, const struct bench_info *info, const struct bench_test_result *t)
{
	char rounds[256], v[64];
	size_t n = 0;
	int nr;

#define ADD(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	if (len > 0)
		buf[0] = '\0';
	if (info->repeat < t->runs_needed)
		ADD("Too few runs for a verdict: with %ld per method no difference can reach p < %.2g; "
		    "need -r %ld or more.\n", info->repeat, t->alpha, t->runs_needed);
	if ((nr = report_rounds(rounds, sizeof(rounds), t->unstable)) == 0)
		return n;
	ADD("Unstable round%s %s: every method was over %gx off its other rounds (load from outside?).\n"
	    "Without %s:", nr == 1 ? "" : "s", rounds, BENCH_UNSTABLE_FACTOR, nr == 1 ? "it" : "them");
	for (size_t i = 0; i < t->n; i++) {
		const struct bench_result *r = &t->results[i];

		if (r->is_baseline || r->ok_runs == 0 || r->ratio <= 0)
			continue;
		if (strcmp(r->verdict_stable, "faster") == 0 || strcmp(r->verdict_stable, "slower") == 0 ||
		    strcmp(r->verdict_stable, "within spread") == 0)
			snprintf(v, sizeof(v), "%s (p=%.3g)", r->verdict_stable, r->p_stable);
		else
			snprintf(v, sizeof(v), "%s", r->verdict_stable);
		ADD(" %s %s;", r->method->name, v);
	}
	ADD("\n");
#undef ADD
	return n;
}

/* Whether result a goes before b: a good run before none, then the faster median. */
static int shown_before(const struct bench_result *a, const struct bench_result *b)
{
	if ((a->ok_runs > 0) != (b->ok_runs > 0))
		return a->ok_runs > 0;
	return a->ok_runs > 0 && a->median > b->median;
}

size_t *report_order(const struct bench_test_result *t)
{
	size_t *idx = malloc((t->n ? t->n : 1) * sizeof(*idx));

	if (idx == NULL)
		return NULL;
	/* Insertion sort: a handful of methods, and stable, so ties keep their order. */
	for (size_t i = 0; i < t->n; i++) {
		size_t j = i;

		for (; j > 0 && shown_before(&t->results[i], &t->results[idx[j - 1]]); j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return idx;
}

size_t report_ran(const struct bench_test_result *t)
{
	size_t ran = 0;

	for (size_t i = 0; i < t->n; i++)
		ran += t->results[i].status != BENCH_SKIPPED && t->results[i].ok_runs > 0;
	return ran;
}

int report_text(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	char line[METHOD_CMD_MAX * 8], caution[4096];

	if (n > 0) { /* -T streams,udp alone has no headline of its own */
		report_headline(caution, sizeof(caution), info, tests, n);
		wrap(f, caution);
		fputc('\n', f);
	}
	for (size_t k = 0; k < n; k++) {
		const struct bench_test_result *t = &tests[k];

		if (k > 0)
			fputc('\n', f);
		header(f, info, t);
		table(f, info, t);
		if (k == 0) { /* where a verdict's p first appears */
			snprintf(caution, sizeof(caution), REPORT_P_PHRASE ".", t->alpha);
			wrap(f, caution);
		}
		if (report_ran(t) == 0)
			; /* no method ran to the end: no second table of empty rows */
		else if (t->test == BENCH_FILES)
			latency_table(f, t);
		else
			load_table(f, info, t);
		report_cautions(caution, sizeof(caution), info, t);
		wrap(f, caution);
	}
	if (info->tput != NULL)
		tput_report_text(f, info->tput);
	if (info->env != NULL) {
		const struct bench_env *e = info->env;
		size_t m = (size_t)snprintf(caution, sizeof(caution),
					    "\nEnvironment: %s; %s; %s, %ld CPUs; load %.2f %.2f %.2f at the start.\nTools:",
					    e->date, e->kernel, e->cpu, e->ncpu, e->load[0], e->load[1], e->load[2]);

		for (size_t i = 0; i < e->ntools && m < sizeof(caution); i++)
			m += (size_t)snprintf(caution + m, sizeof(caution) - m, "%s %s: %s", i ? ";" : "",
					      e->tools[i].name, e->tools[i].version);
		if (m < sizeof(caution))
			snprintf(caution + m, sizeof(caution) - m, "%s.", e->ntools == 0 ? " none" : "");
		wrap(f, caution);
		fprintf(f, "Command: %s\n", e->command); /* whole, so that it pastes */
	}
	if (n == 0)
		return ferror(f) ? -1 : 0;
	snprintf(caution, sizeof(caution),
		 "\nRate: median of the runs. vs baseline: ratio of medians; faster/slower when a "
		 "Mann-Whitney test puts the difference beyond run-to-run spread (p < %.2g), otherwise "
		 "same (within spread). CPU: user + system time of the method's whole process tree, per "
		 "GiB counted or per download (median of the runs).\nCounted: %s.\nCommands:",
		 info->alpha, info->counting);
	wrap(f, caution);
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

/* A field of seconds, empty when unknown (below 0). */
static void csv_seconds(FILE *f, double v)
{
	if (v >= 0)
		fprintf(f, "%.9f,", v);
	else
		fputc(',', f);
}

/* Three latency fields in seconds, each empty when unknown. */
static void csv_latency(FILE *f, const double lat[3])
{
	for (int k = 0; k < 3; k++)
		csv_seconds(f, lat[k]);
}

/* TCP's view: retransmits and RTT (in seconds, as every duration), each empty when unknown. */
static void csv_tcp(FILE *f, double retrans, double rtt_ms)
{
	if (retrans >= 0)
		fprintf(f, "%.6g,", retrans);
	else
		fputc(',', f);
	if (rtt_ms >= 0)
		fprintf(f, "%.6g,", rtt_ms / 1000);
	else
		fputc(',', f);
}

/* A number in the column of its test's unit, the other test's left empty:
 * one unit per column, named in its header (stream: bytes, files: transfers). */
static void csv_by_test(FILE *f, enum bench_test test, const char *format, double v)
{
	if (test != BENCH_STREAM)
		fputc(',', f);
	fprintf(f, format, v);
	fputc(',', f);
	if (test == BENCH_STREAM)
		fputc(',', f);
}

#define CSV_PING_HEADER \
	"ping_idle_p50_s,ping_idle_samples,ping_load_p50_s,ping_load_p90_s,ping_load_p99_s,ping_load_samples"

/* The probe's round trips: idle p50 and count, under load p50, p90, p99
 * and count (seconds; empty when unknown, as for the files test). */
static void csv_ping(FILE *f, const struct bench_pcts *idle, const struct bench_pcts *load)
{
	csv_seconds(f, idle->p[0]);
	fprintf(f, "%zu,", idle->n);
	csv_latency(f, load->p);
	fprintf(f, "%zu,", load->n);
}

/* Every number's column names its unit (as the JSON's keys, schema 4): _s,
 * _bytes, _bytes_per_s, _transfers_per_s, _s_per_gib, _s_per_download; a
 * count or a ratio has none. */
int report_csv(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	(void)info;
	fprintf(f, "test,method,status,runs,ok_runs,median_bytes_per_s,median_transfers_per_s,min_bytes_per_s,"
		   "min_transfers_per_s,max_bytes_per_s,max_transfers_per_s,median_bytes,ratio,p_value,cpu_s_per_gib,"
		   "cpu_s_per_download,latency_p50_s,latency_p90_s,latency_p99_s,retrans,rtt_s," CSV_PING_HEADER
		   ",verdict,reason,command\n");
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < tests[k].n; i++) {
			const struct bench_result *r = &tests[k].results[i];
			enum bench_test test = tests[k].test;

			fprintf(f, "%s,", bench_test_name(test));
			csv_field(f, r->method->name, 0);
			fprintf(f, "%s,%zu,%zu,", bench_status_name(r->status), r->nruns, r->ok_runs);
			csv_by_test(f, test, "%.6g", r->median);
			csv_by_test(f, test, "%.6g", r->min);
			csv_by_test(f, test, "%.6g", r->max);
			fprintf(f, "%.0f,%.6g,%.6g,", r->median_bytes, r->ratio, r->p);
			csv_by_test(f, test, "%.6g", r->cpu);
			csv_latency(f, r->lat);
			csv_tcp(f, r->retrans, r->rtt_ms);
			csv_ping(f, &r->ping_idle, &r->ping_load);
			csv_field(f, r->verdict, 0);
			csv_field(f, r->reason, 0);
			csv_field(f, r->status == BENCH_SKIPPED ? "" : r->command, 1);
		}
	return ferror(f) ? -1 : 0;
}

int report_csv_runs(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	(void)info;
	fprintf(f, "test,method,round,position,ok,bytes_per_s,transfers_per_s,bytes,elapsed_s,transfers,cpu_s,"
		   "first_byte_s,retrans,rtt_s,latency_p50_s,latency_p90_s,latency_p99_s," CSV_PING_HEADER ",error\n");
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < tests[k].n; i++) {
			const struct bench_result *r = &tests[k].results[i];

			for (size_t j = 0; j < r->nruns; j++) {
				const struct bench_run *run = &r->runs[j];
				double lat[3];
				struct bench_pcts idle, load;

				fprintf(f, "%s,", bench_test_name(tests[k].test));
				csv_field(f, r->method->name, 0);
				fprintf(f, "%zu,%d,%d,", j + 1, run->position, run->ok);
				csv_by_test(f, tests[k].test, "%.6g", run->value);
				fprintf(f, "%llu,%.6f,%llu,%.6f,%.6f,", (unsigned long long)run->bytes, run->seconds,
					(unsigned long long)run->transfers, run->cpu, run->first_byte);
				csv_tcp(f, (double)run->retrans, run->rtt_ms);
				bench_latency(r, run, lat);
				csv_latency(f, lat);
				bench_series_pcts(r, run, BENCH_SERIES_PING_IDLE, &idle);
				bench_series_pcts(r, run, BENCH_SERIES_PING_LOAD, &load);
				csv_ping(f, &idle, &load);
				csv_field(f, run->error, 1);
			}
		}
	return ferror(f) ? -1 : 0;
}
