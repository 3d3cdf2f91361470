/* SPDX-License-Identifier: ISC */
/* test_bench.c - the bench's pure parts: method templates, user methods,
 * --link specs, and the summary against the baseline. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>

#include "bench/link.h"
#include "bench/method.h"
#include "bench/probe.h"
#include "bench/report.h"
#include "bench/result.h"

static const struct method_vars vars = { "127.0.0.1", "6666", "4096", "20", "/bin/ncpv" };

static void test_expand_fills_every_placeholder(void **state)
{
	char out[256], bad[32];

	(void)state;
	assert_int_equal(method_expand("{ncpv} get -n {count} -s {size} {host} {port}", &vars, out, sizeof(out),
				       bad, sizeof(bad)), 0);
	assert_string_equal(out, "/bin/ncpv get -n 20 -s 4096 127.0.0.1 6666");
}

static void test_expand_leaves_shell_braces_alone(void **state)
{
	char out[256], bad[32];

	(void)state;
	assert_int_equal(method_expand("x=${HOME}; echo {a,b} {} {host}", &vars, out, sizeof(out), bad, sizeof(bad)), 0);
	assert_string_equal(out, "x=${HOME}; echo {a,b} {} 127.0.0.1");
}

static void test_expand_names_an_unknown_placeholder(void **state)
{
	char out[256], bad[32];

	(void)state;
	errno = 0;
	assert_int_equal(method_expand("nc {hots} {port}", &vars, out, sizeof(out), bad, sizeof(bad)), -1);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(bad, "hots");
}

static void test_expand_refuses_to_truncate(void **state)
{
	char out[8], bad[32];

	(void)state;
	errno = 0;
	assert_int_equal(method_expand("{host}", &vars, out, sizeof(out), bad, sizeof(bad)), -1);
	assert_int_equal(errno, ENOSPC);
}

static void test_seed_pipelines_are_exactly_the_blog_posts(void **state)
{
	struct bench_method m[16];
	size_t n = method_builtins(m, 16);
	char out[1024];
	int seen = 0;

	(void)state;
	assert_true(n >= 8 && n <= 16);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(m[i].name, "nc-pv") == 0) {
			assert_string_equal(method_command(&m[i], BENCH_STREAM, &vars, out, sizeof(out)), "sh");
			assert_string_equal(out, "nc 127.0.0.1 6666 | pv >/dev/null");
			seen++;
		}
		if (strcmp(m[i].name, "pv-devtcp") == 0) {
			assert_string_equal(method_command(&m[i], BENCH_STREAM, &vars, out, sizeof(out)), "bash");
			assert_string_equal(out, "pv >/dev/null </dev/tcp/127.0.0.1/6666");
			assert_string_equal(method_command(&m[i], BENCH_FILES, &vars, out, sizeof(out)), "bash");
			assert_string_equal(out, "for ((i = 0; i < 20; i++)); do pv >/dev/null </dev/tcp/127.0.0.1/6666; done");
			seen++;
		}
	}
	assert_int_equal(seen, 2);
}

static void test_user_method_parses_and_loops_in_its_own_sh(void **state)
{
	struct bench_method m;
	char err[256], out[1024];

	(void)state;
	assert_int_equal(method_parse_user("mine=nc -d {host} {port} | wc -c >/dev/null", &m, err, sizeof(err)), 0);
	assert_string_equal(m.name, "mine");
	assert_string_equal(method_command(&m, BENCH_STREAM, &vars, out, sizeof(out)), "sh");
	assert_string_equal(out, "nc -d 127.0.0.1 6666 | wc -c >/dev/null");
	assert_string_equal(method_command(&m, BENCH_FILES, &vars, out, sizeof(out)), "bash");
	assert_string_equal(out, "for ((i = 0; i < 20; i++)); do sh -c 'nc -d 127.0.0.1 6666 | wc -c >/dev/null'; done");
	/* With {count} it makes every download itself. */
	assert_int_equal(method_parse_user("all={ncpv} get -n {count} {host}:{port}", &m, err, sizeof(err)), 0);
	assert_string_equal(method_command(&m, BENCH_FILES, &vars, out, sizeof(out)), "sh");
	assert_string_equal(out, "/bin/ncpv get -n 20 127.0.0.1:6666");
}

/* Defect 3 of issue 12: a value is one shell word, whatever it holds. */
static void test_values_are_quoted_and_ncpv_runs_without_a_shell(void **state)
{
	static const struct method_vars evil = { "a$(touch PWNED)b", "1'2", "", "20", "/opt/my ncpv" };
	struct bench_method m[16];
	char out[1024], buf[1024], bad[32], *argv[16], err[256];

	(void)state;
	assert_int_equal(method_expand("nc {host} {port} {size}", &evil, out, sizeof(out), bad, sizeof(bad)), 0);
	assert_string_equal(out, "nc 'a$(touch PWNED)b' '1'\\''2' ''");
	method_builtins(m, 16);
	assert_string_equal(m[0].name, "ncpv");
	assert_string_equal(method_command(&m[0], BENCH_STREAM, &evil, out, sizeof(out)), METHOD_NO_SHELL);
	assert_int_equal(method_argv(METHOD_NO_SHELL, out, buf, sizeof(buf), argv, 16), 5);
	assert_string_equal(argv[0], "/opt/my ncpv");
	assert_string_equal(argv[3], "a$(touch PWNED)b");
	assert_string_equal(argv[4], "1'2");
	assert_null(argv[5]);
	assert_int_equal(method_argv("sh", "nc x y", buf, sizeof(buf), argv, 16), 3);
	assert_string_equal(argv[2], "nc x y");
	/* What a report prints pastes into a shell. */
	assert_string_equal(method_shell_line("sh", "echo 'x'", out, sizeof(out)), "sh -c 'echo '\\''x'\\'''");
	/* The template's author cannot put a value inside quotes of their own. */
	assert_int_equal(method_parse_user("q=nc '{host}' {port}", &m[1], err, sizeof(err)), -1);
	assert_non_null(strstr(err, "write {host} without quotes"));
	assert_int_equal(method_parse_user("q=echo \"it's\" && nc {host} \\'{port}", &m[1], err, sizeof(err)), 0);
}

static void test_user_method_errors_name_the_problem(void **state)
{
	struct bench_method m;
	char err[256];

	(void)state;
	assert_int_equal(method_parse_user("no-equals-sign", &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected NAME="));
	assert_int_equal(method_parse_user("=nc {host} {port}", &m, err, sizeof(err)), -1);
	assert_int_equal(method_parse_user("a,b=nc {host} {port}", &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no spaces or commas"));
	assert_int_equal(method_parse_user("x=nc {host}", &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "must use {host} and {port}"));
}

static void test_missing_tool_is_named(void **state)
{
	struct bench_method m[16];
	size_t n = method_builtins(m, 16);
	char missing[64];

	(void)state;
	for (size_t i = 0; i < n; i++)
		if (strcmp(m[i].name, "socat") == 0) {
			assert_int_equal(method_missing_tool(&m[i], BENCH_STREAM, "/nonexistent", missing, sizeof(missing)), 1);
			assert_string_equal(missing, "socat");
		}
}

static void test_link_spec_rate_and_round_trip(void **state)
{
	double bits, delay, loss;
	char err[256];

	(void)state;
	assert_int_equal(link_parse("94mbit", &bits, &delay, &loss, err, sizeof(err)), 0);
	assert_true(bits == 94e6 && delay == 0);
	assert_int_equal(link_parse("1gbit,20ms", &bits, &delay, &loss, err, sizeof(err)), 0);
	assert_true(bits == 1e9);
	assert_float_equal(delay, 0.020, 1e-12);
	assert_int_equal(link_parse("fast", &bits, &delay, &loss, err, sizeof(err)), -1);
	assert_int_equal(link_parse("94mbit,soon", &bits, &delay, &loss, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "delay 'soon'"));
	assert_int_equal(link_parse(",20ms", &bits, &delay, &loss, err, sizeof(err)), -1);
	assert_int_equal(link_parse("94mbit,20ms,1%", &bits, &delay, &loss, err, sizeof(err)), 0);
	assert_float_equal(loss, 0.01, 1e-12);
	assert_float_equal(delay, 0.020, 1e-12);
	assert_int_equal(link_parse("94mbit,0,2.5", &bits, &delay, &loss, err, sizeof(err)), 0);
	assert_true(delay == 0);
	assert_float_equal(loss, 0.025, 1e-12);
	assert_int_equal(link_parse("94mbit,20ms,lots", &bits, &delay, &loss, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "loss 'lots'"));
	assert_int_equal(link_parse("94mbit,20ms,1%,x", &bits, &delay, &loss, err, sizeof(err)), -1);
	assert_int_equal(link_parse("94mbit,,1%", &bits, &delay, &loss, err, sizeof(err)), -1);
}

/* --link's spec as the delay line's parameters: the same both ways, half the round trip each. */
static void test_link_spec_becomes_both_directions(void **state)
{
	struct link_params p[2];

	(void)state;
	link_sup_symmetric(p, 94e6, 0.020, 0.01);
	for (int d = 0; d < 2; d++) {
		assert_true(p[d].bits_per_s == 94000000);
		assert_true(p[d].delay_ns == 10000000);
		assert_float_equal(p[d].loss, 0.01, 1e-12);
		assert_int_equal(p[d].queue_packets, LINK_DEFAULT_QUEUE);
		assert_true(p[d].jitter_ns == 0 && p[d].queue_bytes == 0);
	}
}

static void set_runs(struct bench_result *r, const double *v, size_t n)
{
	r->runs = calloc(n, sizeof(*r->runs));
	r->nruns = n;
	for (size_t i = 0; i < n; i++) {
		r->runs[i].ok = 1;
		r->runs[i].value = v[i];
		r->runs[i].bytes = (uint64_t)(v[i] * 2);
	}
}

static void test_summary_ratio_and_verdicts(void **state)
{
	static const struct bench_method m[4] = { { .name = "base" }, { .name = "fast" }, { .name = "same" },
						  { .name = "gone" } };
	double base[] = { 100, 101, 99, 102, 98 }, fast[] = { 200, 210, 190, 205, 195 },
	       same[] = { 100, 103, 97, 99, 101 };
	struct bench_test_result t = { .test = BENCH_STREAM, .n = 4, .baseline = 0, .alpha = 0.05 };

	(void)state;
	t.results = calloc(4, sizeof(*t.results));
	for (int i = 0; i < 4; i++)
		t.results[i].method = &m[i];
	set_runs(&t.results[0], base, 5);
	set_runs(&t.results[1], fast, 5);
	set_runs(&t.results[2], same, 5);
	t.results[3].status = BENCH_SKIPPED;
	bench_summarize(&t);
	assert_string_equal(t.results[0].verdict, "baseline");
	assert_true(t.results[0].median == 100 && t.results[0].min == 98 && t.results[0].max == 102);
	assert_true(t.results[0].median_bytes == 200);
	assert_string_equal(t.results[1].verdict, "faster");
	assert_float_equal(t.results[1].ratio, 2.0, 1e-12);
	assert_float_equal(t.results[1].p, 2.0 / 252, 1e-12);
	assert_string_equal(t.results[2].verdict, "within spread");
	assert_true(t.results[2].p > 0.5);
	assert_string_equal(t.results[3].verdict, "n/a");
	assert_true(t.results[3].ratio == 0);
	/* A failed run is left out of the summary. */
	t.results[1].runs[0].ok = 0;
	bench_summarize(&t);
	assert_int_equal(t.results[1].ok_runs, 4);
	bench_results_free(&t);
}

/* Issue 16: latency percentiles pool every download of the good runs,
 * in any order, and are unknown (-1) where nothing was logged. */
static void test_latency_percentiles_pool_the_good_runs(void **state)
{
	static const struct bench_method m[2] = { { .name = "a" }, { .name = "seed" } };
	double v[3] = { 1, 1, 1 }, lat[3];
	struct bench_test_result t = { .test = BENCH_FILES, .n = 2, .baseline = 0, .alpha = 0.05 };

	(void)state;
	t.results = calloc(2, sizeof(*t.results));
	t.results[0].method = &m[0];
	t.results[1].method = &m[1];
	set_runs(&t.results[0], v, 3);
	set_runs(&t.results[1], v, 3);
	/* 1..100 ms spread over three runs in a scrambled order; a failed
	 * run's 9 s downloads are left out. */
	for (int i = 0; i < 100; i++)
		assert_int_equal(bench_series_add(&t.results[0].runs[i % 2].latency, ((i * 37) % 100 + 1) / 1000.0), 0);
	for (int i = 0; i < 50; i++)
		assert_int_equal(bench_series_add(&t.results[0].runs[2].latency, 9), 0);
	t.results[0].runs[2].ok = 0;
	bench_summarize(&t);
	assert_float_equal(t.results[0].lat[0], 0.0505, 1e-9);
	assert_float_equal(t.results[0].lat[1], 0.0901, 1e-9);
	assert_float_equal(t.results[0].lat[2], 0.09901, 1e-9);
	assert_true(t.results[0].lat[0] <= t.results[0].lat[1] && t.results[0].lat[1] <= t.results[0].lat[2]);
	/* One run alone: its own downloads. */
	bench_latency(&t.results[0], &t.results[0].runs[1], lat);
	assert_true(lat[0] > 0.001 && lat[2] <= 0.1);
	bench_latency(&t.results[0], &t.results[0].runs[2], lat);
	assert_true(lat[0] == -1);
	/* No log (--connect): unknown, not 0. */
	assert_true(t.results[1].lat[0] == -1 && t.results[1].lat[1] == -1 && t.results[1].lat[2] == -1);
	bench_results_free(&t);
}

/* The latency probe's round trips: pooled over the good runs, idle and
 * under load kept apart, counted, with their minimum; random sizes and
 * values, checked against a sort of the same values. */
static void test_probe_round_trips_pool_the_good_runs(void **state)
{
	static const struct bench_method m[1] = { { .name = "m" } };
	double v[4] = { 1, 1, 1, 1 };
	unsigned seed = 16;

	(void)state;
	for (int round = 0; round < 50; round++) {
		struct bench_test_result t = { .test = BENCH_STREAM, .n = 1, .baseline = 0, .alpha = 0.05 };
		size_t nidle = 0, nload = 0;
		double idle_min = 1e9, load_max = 0;

		t.results = calloc(1, sizeof(*t.results));
		t.results[0].method = &m[0];
		set_runs(&t.results[0], v, 4);
		t.results[0].runs[3].ok = 0; /* a failed run's round trips are left out */
		for (size_t r = 0; r < 4; r++) {
			size_t ni = (size_t)rand_r(&seed) % 60, nl = 1 + (size_t)rand_r(&seed) % 300;

			for (size_t k = 0; k < ni; k++) {
				double x = (1 + rand_r(&seed) % 1000) * 1e-6;

				assert_int_equal(bench_series_add(&t.results[0].runs[r].ping_idle, x), 0);
				if (r < 3) {
					nidle++;
					idle_min = x < idle_min ? x : idle_min;
				}
			}
			for (size_t k = 0; k < nl; k++) {
				double x = (1 + rand_r(&seed) % 100000) * 1e-6;

				assert_int_equal(bench_series_add(&t.results[0].runs[r].ping_load, x), 0);
				if (r < 3) {
					nload++;
					load_max = x > load_max ? x : load_max;
				}
			}
		}
		bench_summarize(&t);
		{
			const struct bench_pcts *i = &t.results[0].ping_idle, *l = &t.results[0].ping_load;

			assert_int_equal(i->n, nidle);
			assert_int_equal(l->n, nload);
			if (nidle > 0)
				assert_float_equal(i->min, idle_min, 1e-12);
			else
				assert_true(i->min == -1 && i->p[0] == -1 && i->p[2] == -1);
			assert_true(l->min <= l->p[0] && l->p[0] <= l->p[1] && l->p[1] <= l->p[2] && l->p[2] <= load_max);
		}
		bench_results_free(&t);
	}
}

/* The probe's pace: 10 ms on loopback and fast links, slower where its
 * 120 bytes a round trip would take more than 1% of the link, none where
 * even 200 ms would; rates drawn at random across the whole range. */
static void test_probe_interval_keeps_to_one_percent_of_the_link(void **state)
{
	unsigned seed = 17;

	(void)state;
	assert_float_equal(probe_interval(0), 0.010, 1e-12);
	assert_float_equal(probe_interval(1e6), 0.096, 1e-12);
	assert_float_equal(probe_interval(480e3), 0.2, 1e-12);
	assert_true(probe_interval(479e3) < 0);
	for (int k = 0; k < 1000; k++) {
		double bits = pow(10, 3 + (rand_r(&seed) % 7000) / 1000.0), iv = probe_interval(bits);

		if (iv < 0) {
			assert_true(PROBE_WIRE_BYTES * 8 / (bits * PROBE_SHARE) > PROBE_INTERVAL_MAX);
			continue;
		}
		assert_true(iv >= PROBE_INTERVAL && iv <= PROBE_INTERVAL_MAX);
		/* Within its share of the link, and no slower than that needs. */
		assert_true(PROBE_WIRE_BYTES * 8 / iv <= bits * PROBE_SHARE * (1 + 1e-9));
		assert_true(iv == PROBE_INTERVAL || PROBE_WIRE_BYTES * 8 / iv >= bits * PROBE_SHARE * (1 - 1e-9));
	}
}

/* Issue 16, case 1: runs that cannot reach significance give no verdict. */
static void test_too_few_runs_give_no_verdict(void **state)
{
	static const struct bench_method m[2] = { { .name = "base" }, { .name = "fast" } };
	double base[] = { 1, 1.1, 0.9, 1.05 }, fast[] = { 35, 36, 34, 35.5 };

	(void)state;
	assert_float_equal(bench_min_p(3, 3), 0.1, 1e-12);
	assert_float_equal(bench_min_p(5, 5), 2.0 / 252, 1e-12);
	assert_float_equal(bench_min_p(1, 1), 1, 1e-12);
	assert_int_equal(bench_runs_needed(0.05), 4);
	assert_int_equal(bench_runs_needed(0.01), 5);
	/* Every run count from 1 to 6: a 35x gap is a verdict exactly when it can be. */
	for (size_t n = 1; n <= 4; n++) {
		struct bench_test_result t = { .test = BENCH_STREAM, .n = 2, .baseline = 0, .alpha = 0.05 };

		t.results = calloc(2, sizeof(*t.results));
		t.results[0].method = &m[0];
		t.results[1].method = &m[1];
		set_runs(&t.results[0], base, n);
		set_runs(&t.results[1], fast, n);
		bench_summarize(&t);
		assert_string_equal(t.results[1].verdict, n < 4 ? "too few runs" : "faster");
		assert_int_equal(t.runs_needed, 4);
		bench_results_free(&t);
	}
}

/* Issue 16, case 2: a round where load from outside hit every method is
 * found, and the verdicts are given again without it. */
static void test_unstable_round_is_found_and_left_out(void **state)
{
	static const struct bench_method m[3] = { { .name = "base" }, { .name = "fast" }, { .name = "ok" } };
	double base[] = { 100, 101, 0.3, 102, 98 }, fast[] = { 200, 210, 0.4, 205, 195 },
	       ok[] = { 100, 103, 97, 99, 101 };
	struct bench_test_result t = { .test = BENCH_STREAM, .n = 3, .baseline = 0, .alpha = 0.05 };

	(void)state;
	t.results = calloc(3, sizeof(*t.results));
	for (int i = 0; i < 3; i++)
		t.results[i].method = &m[i];
	set_runs(&t.results[0], base, 5);
	set_runs(&t.results[1], fast, 5);
	set_runs(&t.results[2], base, 5);
	bench_summarize(&t);
	assert_true(t.unstable == (1u << 2));
	/* The collapsed round hides a real difference; without it, it shows. */
	assert_string_equal(t.results[1].verdict, "within spread");
	assert_string_equal(t.results[1].verdict_stable, "faster");
	assert_float_equal(t.results[1].p_stable, 2.0 / 70, 1e-12);
	/* One method that ran normally in that round: then it was not outside load. */
	free(t.results[2].runs);
	set_runs(&t.results[2], ok, 5);
	bench_summarize(&t);
	assert_true(t.unstable == 0);
	bench_results_free(&t);
}

/* Issue 16: chart axes at round values, linear from 0 or 1-2-5 per decade. */
/* Text from the command line or the environment reaches the HTML report escaped: a server
 * named <script>&"x" shows as text and opens no element. */
static void test_html_report_escapes_what_it_quotes(void **state)
{
	struct bench_info info = { .version = "0.1", .server = "<script>&\"x\"</script>", .path = "a&b",
				   .counting = "c<d>", .repeat = 1, .alpha = 0.05 };
	char *html = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&html, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(report_html(f, &info, NULL, 0), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(html, "Server: &lt;script&gt;&amp;&quot;x&quot;&lt;/script&gt;; path: a&amp;b"));
	assert_non_null(strstr(html, "Counted: c&lt;d&gt;."));
	assert_null(strstr(html, "<script>&"));
	free(html);
}

static void test_axis_ticks_are_round(void **state)
{
	double t[32];
	int n;

	(void)state;
	n = report_ticks(0, 3.73, 0, t, 32);
	assert_int_equal(n, 5);
	assert_true(t[0] == 0 && t[1] == 1 && t[4] == 4);
	n = report_ticks(0, 7953, 0, t, 32);
	assert_true(t[1] == 2000 && t[n - 1] == 8000);
	n = report_ticks(0, 0.52, 0, t, 32);
	assert_true(fabs(t[1] - 0.2) < 1e-12 && fabs(t[n - 1] - 0.6) < 1e-12);
	n = report_ticks(12, 4772, 1, t, 32);
	assert_true(t[0] == 10 && t[1] == 20 && t[2] == 50 && t[3] == 100 && t[n - 1] == 5000);
	/* Past 3 decades, powers of ten only. */
	n = report_ticks(7.6, 44690, 1, t, 32);
	assert_true(t[0] == 1 && t[1] == 10 && t[n - 1] == 100000 && n == 6);
	/* Generated: every range's ticks start low enough, end high enough, and rise. */
	for (int step = 0; step < 102; step++)
		for (int logscale = 0; logscale < 2; logscale++) {
			double hi = 0.013 * pow(1.37, step); /* up to 8.4e11 */

			n = report_ticks(hi / 1000, hi, logscale, t, 32);
			assert_true(n >= 2 && n <= 32);
			assert_true(t[n - 1] >= hi && t[0] <= (logscale ? hi / 1000 : 0));
			for (int k = 1; k < n; k++)
				assert_true(t[k] > t[k - 1]);
			if (!logscale)
				assert_true(n <= 6);
		}
}

/* Issue 27: a stream test of n methods with medians base[i] x {1, 1.02, 0.98,
 * 1.01, 0.99} (method 0 the baseline), each run with a steady rate sampled
 * every 0.1 s for 1 s, the last one skipped when skip is set. */
static void synthetic_stream(struct bench_test_result *t, const struct bench_method *m, const double *base,
			     size_t n, int skip)
{
	static const double spread[] = { 1, 1.02, 0.98, 1.01, 0.99 };

	memset(t, 0, sizeof(*t));
	t->test = BENCH_STREAM;
	t->n = n;
	t->alpha = 0.05;
	t->results = calloc(n, sizeof(*t->results));
	assert_non_null(t->results);
	for (size_t i = 0; i < n; i++) {
		struct bench_result *r = &t->results[i];
		double v[5];

		r->method = &m[i];
		r->shell = "/bin/sh";
		snprintf(r->command, sizeof(r->command), "ncpv get -q 127.0.0.1 6666");
		if (skip && i == n - 1) {
			r->status = BENCH_SKIPPED;
			snprintf(r->reason, sizeof(r->reason), "tool not found");
			continue;
		}
		for (int k = 0; k < 5; k++)
			v[k] = base[i] * spread[k];
		set_runs(r, v, 5);
		for (int k = 0; k < 5; k++) {
			struct bench_run *run = &r->runs[k];

			run->rtt_ms = 0.05;
			run->retrans = 0;
			run->nsamples = 11;
			run->samples = calloc(11, sizeof(*run->samples));
			assert_non_null(run->samples);
			for (size_t s = 0; s < 11; s++) {
				run->samples[s].t = 0.1 * (double)s;
				run->samples[s].bytes = (uint64_t)(v[k] * 0.1 * (double)s);
			}
		}
	}
	bench_summarize(t);
}

static const struct bench_info synthetic_info = {
	.version = "test", .server = "ncpv serve", .path = "loopback", .counting = "at the client",
	.duration = 1, .repeat = 5, .alpha = 0.05,
};

/* A report written to memory, NUL-terminated (the caller frees). */
static char *report_to_string(int (*report)(FILE *, const struct bench_info *, const struct bench_test_result *,
					    size_t),
			      const struct bench_test_result *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report(f, &synthetic_info, t, 1), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The width attribute of the comparison bar of method name in html. */
static double bar_width(const char *html, const char *name)
{
	char key[96];
	const char *p;

	snprintf(key, sizeof(key), "class=\"median\" data-method=\"%s\"", name);
	p = strstr(html, key);
	assert_non_null(p);
	p = strstr(p, " width=\"");
	assert_non_null(p);
	return strtod(p + 8, NULL);
}

/* Issue 27: the rows fastest first, skipped ones last, in every report; the
 * comparison axis linear (a 48x lead is a 48x longer bar) with the ratio
 * printed; p explained where it first appears; durations in seconds. */
static void test_reports_sort_by_speed_on_a_linear_axis(void **state)
{
	static const struct bench_method m[4] = { { .name = "base", .note = "" }, { .name = "mid", .note = "" }, { .name = "fast", .note = "" },
						  { .name = "gone", .note = "" } };
	static const double base[] = { 10e6, 100e6, 480e6, 0 };
	struct bench_test_result t;
	char *html, *text, *json;
	const char *cmp, *p_at;

	(void)state;
	synthetic_stream(&t, m, base, 4, 1);
	/* report_order: fastest first, the skipped one last. */
	{
		size_t *order = report_order(&t);

		assert_non_null(order);
		assert_int_equal(order[0], 2);
		assert_int_equal(order[1], 1);
		assert_int_equal(order[2], 0);
		assert_int_equal(order[3], 3);
		free(order);
	}
	html = report_to_string(report_html, &t);
	cmp = strstr(html, "<svg class=\"chart compare stream\"");
	assert_non_null(cmp);
	assert_non_null(strstr(cmp, "data-scale=\"linear\""));
	assert_true(strstr(cmp, "data-method=\"fast\"") < strstr(cmp, "data-method=\"mid\""));
	assert_true(strstr(cmp, "data-method=\"mid\"") < strstr(cmp, "data-method=\"base\""));
	assert_float_equal(bar_width(html, "fast") / bar_width(html, "base"), 48, 0.5);
	assert_float_equal(bar_width(html, "mid") / bar_width(html, "base"), 10, 0.2);
	assert_non_null(strstr(cmp, ", 48.0x</text>"));
	assert_non_null(strstr(cmp, ", baseline</text>"));
	/* The table too: fast's row before base's, the skipped one after. */
	assert_true(strstr(html, "<tr><td>fast") < strstr(html, "<tr><td>base"));
	assert_true(strstr(html, "<tr><td>base") < strstr(html, "<tr><td>gone"));
	/* p explained once, right after the first table, before any chart. */
	p_at = strstr(html, "p: the chance of a gap this large");
	assert_non_null(p_at);
	assert_true(p_at < cmp && p_at > strstr(html, "</table>"));
	assert_null(strstr(p_at + 1, "p: the chance of a gap this large"));
	/* Stream charts: small multiples in one grid, fastest first, to the page's width. */
	assert_non_null(strstr(html, "<div class=\"multiples\">"));
	assert_true(strstr(html, "data-method=\"fast\" viewBox") < strstr(html, "data-method=\"base\" viewBox"));
	assert_non_null(strstr(html, "svg{background:#fff;border:1px solid #eee;width:100%"));
	assert_null(strstr(html, "max-width:60em"));
	text = report_to_string(report_text, &t);
	assert_true(strstr(text, "\nfast ") < strstr(text, "\nmid "));
	assert_true(strstr(text, "\nmid ") < strstr(text, "\nbase "));
	p_at = strstr(text, "p: the chance of a gap this large");
	assert_non_null(p_at);
	{
		const char *second = strstr(strstr(text, "\nMethod ") + 1, "\nMethod ");

		assert_non_null(second);
		assert_true(p_at < second);
	}
	json = report_to_string(report_json, &t);
	assert_non_null(strstr(json, "\"schema_version\":4"));
	assert_non_null(strstr(json, "\"rtt_s\":5e-05"));
	assert_null(strstr(json, "rtt_ms"));
	free(html);
	free(text);
	free(json);
	bench_results_free(&t);
}

/* The min..max column holds no blank inside it, whatever the values: a run
 * that read nothing gave "0.00 ..368Ki" (CI, a slow method under load). */
static void test_spread_has_no_blank_inside(void **state)
{
	static const struct bench_method m[3] = { { .name = "zero", .note = "" }, { .name = "mid", .note = "" },
						  { .name = "big", .note = "" } };
	static const double base[] = { 368e3, 815e6, 4.2e9 };
	struct bench_test_result t;
	char *text;

	(void)state;
	synthetic_stream(&t, m, base, 3, 0);
	t.results[0].min = 0;
	t.results[1].min = 999.9;
	text = report_to_string(report_text, &t);
	assert_null(strstr(text, " .."));
	assert_null(strstr(text, ".. "));
	assert_non_null(strstr(text, " 0.00.."));
	assert_non_null(strstr(text, " 999..792Mi "));
	free(text);
	bench_results_free(&t);
}

/* Eight methods, as the built-in stream test has: the HTML report is written
 * to $NCPV_REPORT_SAMPLE when set, for tests/e2e/bench/report_view.bats to lay out
 * in Chromium (page height, widths, order). */
static void test_report_of_eight_methods(void **state)
{
	static const struct bench_method m[8] = {
		{ .name = "nc-pv", .note = "seed" }, { .name = "ncpv", .note = "" }, { .name = "pv-devtcp", .note = "seed" },
		{ .name = "nc", .note = "" }, { .name = "cat-devtcp", .note = "" }, { .name = "bash-read", .note = "" },
		{ .name = "socat", .note = "" }, { .name = "ncat", .note = "" },
	};
	static const double base[8] = { 1.2e9, 5.8e9, 0.9e9, 2.1e9, 1.0e9, 0.02e9, 3.3e9, 2.6e9 };
	struct bench_test_result t;
	const char *out = getenv("NCPV_REPORT_SAMPLE");
	char *html;

	(void)state;
	synthetic_stream(&t, m, base, 8, 0);
	html = report_to_string(report_html, &t);
	assert_non_null(strstr(html, "<div class=\"multiples\">"));
	if (out != NULL) {
		FILE *f = fopen(out, "w");

		assert_non_null(f);
		fputs(html, f);
		assert_int_equal(fclose(f), 0);
	}
	free(html);
	bench_results_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand_fills_every_placeholder),
		cmocka_unit_test(test_expand_leaves_shell_braces_alone),
		cmocka_unit_test(test_expand_names_an_unknown_placeholder),
		cmocka_unit_test(test_expand_refuses_to_truncate),
		cmocka_unit_test(test_seed_pipelines_are_exactly_the_blog_posts),
		cmocka_unit_test(test_user_method_parses_and_loops_in_its_own_sh),
		cmocka_unit_test(test_values_are_quoted_and_ncpv_runs_without_a_shell),
		cmocka_unit_test(test_user_method_errors_name_the_problem),
		cmocka_unit_test(test_missing_tool_is_named),
		cmocka_unit_test(test_link_spec_rate_and_round_trip),
		cmocka_unit_test(test_link_spec_becomes_both_directions),
		cmocka_unit_test(test_summary_ratio_and_verdicts),
		cmocka_unit_test(test_too_few_runs_give_no_verdict),
		cmocka_unit_test(test_unstable_round_is_found_and_left_out),
		cmocka_unit_test(test_axis_ticks_are_round),
		cmocka_unit_test(test_html_report_escapes_what_it_quotes),
		cmocka_unit_test(test_latency_percentiles_pool_the_good_runs),
		cmocka_unit_test(test_probe_round_trips_pool_the_good_runs),
		cmocka_unit_test(test_probe_interval_keeps_to_one_percent_of_the_link),
		cmocka_unit_test(test_reports_sort_by_speed_on_a_linear_axis),
		cmocka_unit_test(test_spread_has_no_blank_inside),
		cmocka_unit_test(test_report_of_eight_methods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
