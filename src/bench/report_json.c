/* SPDX-License-Identifier: ISC */
/* report_json.c - the bench's results as one JSON document: the headline,
 * the environment, every method's runs, summary, CPU, TCP's view, verdict,
 * latency (files: per download; stream: under load), and for streams the
 * count over time (fields listed in the manual). Every number's key names
 * its unit (schema 4): _s, _bytes, _bytes_per_s, _transfers_per_s, or none
 * for a count or a ratio. */
#include "report.h"

#include "../json.h"

/* Files: "latency": {"p50_s", "p90_s", "p99_s"}; when unknown, each is -1
 * and "unavailable" says why. */
static void latency_json(struct json *j, const double lat[3], const char *why)
{
	static const char *const name[3] = { "p50_s", "p90_s", "p99_s" };

	json_object(j, "latency");
	for (int k = 0; k < 3; k++)
		json_fixed(j, name[k], lat[k], 9);
	if (lat[0] < 0)
		json_string(j, "unavailable", why);
	json_end(j);
}

static void pcts_json(struct json *j, const char *key, const struct bench_pcts *p)
{
	static const char *const name[3] = { "p50_s", "p90_s", "p99_s" };

	json_object(j, key);
	json_uint(j, "samples", p->n);
	json_fixed(j, "min_s", p->min, 9);
	for (int k = 0; k < 3; k++)
		json_fixed(j, name[k], p->p[k], 9);
	json_end(j);
}

/* Stream: "latency_under_load": the probe's round trips in seconds, "idle"
 * (just before the method) and "load" (while it ran), each {"samples",
 * "min_s", "p50_s", "p90_s", "p99_s"}; when unknown, samples 0, the rest -1
 * and "unavailable" says why. */
static void ping_json(struct json *j, const struct bench_info *info, const struct bench_result *r,
		      const struct bench_run *run, const struct bench_pcts *idle, const struct bench_pcts *load)
{
	json_object(j, "latency_under_load");
	pcts_json(j, "idle", idle);
	pcts_json(j, "load", load);
	if (idle->n == 0 || load->n == 0)
		json_string(j, "unavailable", report_no_ping(info, r, run));
	json_end(j);
}

static void run_json(struct json *j, const struct bench_info *info, enum bench_test test,
		     const struct bench_result *r, const struct bench_run *run)
{
	json_object(j, NULL);
	json_bool(j, "ok", run->ok);
	json_general(j, report_rate_key(test, ""), run->value, 6);
	json_uint(j, "bytes", run->bytes);
	json_fixed(j, "elapsed_s", run->seconds, 6);
	json_uint(j, "transfers", run->transfers);
	json_fixed(j, "cpu_s", run->cpu, 6);
	json_int(j, "position", run->position);
	json_string(j, "error", run->error);
	if (test == BENCH_FILES) {
		double lat[3];

		bench_latency(r, run, lat);
		latency_json(j, lat, report_no_latency(r, run));
	}
	json_int(j, "retrans", run->retrans);
	json_fixed(j, "rtt_s", run->rtt_ms >= 0 ? run->rtt_ms / 1000 : -1, 6);
	if (test == BENCH_STREAM) {
		struct bench_pcts idle, load;

		bench_series_pcts(r, run, BENCH_SERIES_PING_IDLE, &idle);
		bench_series_pcts(r, run, BENCH_SERIES_PING_LOAD, &load);
		ping_json(j, info, r, run, &idle, &load);
		json_fixed(j, "first_byte_s", run->first_byte, 6);
		json_array(j, "samples_s_bytes");
		for (size_t i = 0; i < run->nsamples; i++) {
			json_array(j, NULL);
			json_fixed(j, NULL, run->samples[i].t, 3);
			json_uint(j, NULL, run->samples[i].bytes);
			json_end(j);
		}
		json_end(j);
	}
	json_end(j);
}

static void method_json(struct json *j, const struct bench_info *info, enum bench_test test,
			const struct bench_result *r)
{
	json_object(j, NULL);
	json_string(j, "name", r->method->name);
	json_string(j, "note", r->method->note);
	json_string(j, "status", bench_status_name(r->status));
	json_string(j, "reason", r->reason);
	json_string(j, "shell", r->status == BENCH_SKIPPED ? "" : r->shell);
	json_string(j, "command", r->status == BENCH_SKIPPED ? "" : r->command);
	json_string(j, "unit", bench_value_unit(test));
	json_uint(j, "runs_ok", r->ok_runs);
	json_general(j, report_rate_key(test, "median_"), r->median, 6);
	json_general(j, report_rate_key(test, "min_"), r->min, 6);
	json_general(j, report_rate_key(test, "max_"), r->max, 6);
	json_fixed(j, "median_bytes", r->median_bytes, 0);
	json_general(j, "ratio", r->ratio, 6);
	json_general(j, "p_value", r->p, 6);
	json_bool(j, "baseline", r->is_baseline);
	json_string(j, "verdict", r->verdict);
	json_general(j, test == BENCH_STREAM ? "cpu_s_per_gib" : "cpu_s_per_download", r->cpu, 6);
	json_general(j, "retrans", r->retrans, 6);
	json_general(j, "rtt_s", r->rtt_ms >= 0 ? r->rtt_ms / 1000 : -1, 6);
	if (test == BENCH_STREAM)
		ping_json(j, info, r, NULL, &r->ping_idle, &r->ping_load);
	else
		latency_json(j, r->lat, report_no_latency(r, NULL));
	json_string(j, "verdict_without_unstable", r->verdict_stable);
	json_general(j, "p_without_unstable", r->p_stable, 6);
	json_array(j, "runs");
	for (size_t i = 0; i < r->nruns; i++)
		run_json(j, info, test, r, &r->runs[i]);
	json_end(j);
	json_end(j);
}

static void env_json(struct json *j, const struct bench_env *e)
{
	if (e == NULL)
		return;
	json_object(j, "environment");
	json_string(j, "date", e->date);
	json_string(j, "kernel", e->kernel);
	json_string(j, "cpu", e->cpu);
	json_int(j, "cpus", e->ncpu);
	json_array(j, "load");
	for (int i = 0; i < 3; i++)
		json_fixed(j, NULL, e->load[i], 2);
	json_end(j);
	json_string(j, "command", e->command);
	json_object(j, "tools");
	for (size_t i = 0; i < e->ntools; i++)
		json_string(j, e->tools[i].name, e->tools[i].version);
	json_end(j);
	json_end(j);
}

int report_json(FILE *f, const struct bench_info *info, const struct bench_test_result *tests, size_t n)
{
	struct json j;
	char headline[2048];
	int rc;

	report_headline(headline, sizeof(headline), info, tests, n);
	json_init_grow(&j);
	json_object(&j, NULL);
	json_int(&j, "schema_version", BENCH_SCHEMA_VERSION);
	json_bool(&j, "interrupted", info->interrupted);
	json_string(&j, "ncpv", info->version);
	json_string(&j, "headline", headline);
	env_json(&j, info->env);
	json_string(&j, "server", info->server);
	json_string(&j, "path", info->path);
	json_string(&j, "counting_point", info->counting);
	json_string(&j, "order", info->shuffle ? "shuffled" : "interleaved");
	if (info->shuffle)
		json_uint(&j, "seed", info->seed);
	json_int(&j, "repeat", info->repeat);
	json_general(&j, "alpha", info->alpha, 3);
	json_string(&j, "test_method", "Mann-Whitney U, two-sided");
	json_array(&j, "tests");
	for (size_t k = 0; k < n; k++) {
		const struct bench_test_result *t = &tests[k];

		json_object(&j, NULL);
		json_string(&j, "test", bench_test_name(t->test));
		if (t->test == BENCH_STREAM) {
			json_general(&j, "duration_s", info->duration, 6);
			json_general(&j, "probe_interval_s", info->probe_interval, 6);
			json_general(&j, "probe_idle_s", info->probe_idle, 6);
		} else {
			json_uint(&j, "count", info->count);
			json_uint(&j, "size_bytes", info->size);
		}
		json_string(&j, "baseline", t->baseline < t->n ? t->results[t->baseline].method->name : "");
		json_int(&j, "runs_needed", t->runs_needed);
		json_array(&j, "unstable_rounds");
		for (int r = 0; r < 64; r++)
			if (t->unstable >> r & 1)
				json_int(&j, NULL, r + 1);
		json_end(&j);
		json_array(&j, "methods");
		for (size_t i = 0; i < t->n; i++)
			method_json(&j, info, t->test, &t->results[i]);
		json_end(&j);
		json_end(&j);
	}
	json_end(&j); /* tests */
	tput_report_json(&j, info->tput);
	json_end(&j);
	json_raw(&j, "\n");
	rc = json_status(&j) < 0 ? -1 : fputs(json_text(&j), f) < 0 || ferror(f) ? -1 : 0;
	json_free(&j);
	return rc;
}
