/* SPDX-License-Identifier: ISC */
/* bench.c - "ncpv bench": the seed's experiment answered with evidence. Runs
 * every download method against one server, interleaved and repeated, counts
 * bytes at one point for all of them, and reports medians, spread, ratios to
 * a baseline and whether each difference beats run-to-run spread. This file
 * is the command: the stop signals, the live line, the messages, the exit
 * status and the reports; the engine is src/bench/session.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_opts.h"
#include "cmd.h"
#include "../clock.h"
#include "../display.h"
#include "../bench/session.h"

/* Exit status after SIGINT, SIGTERM or SIGHUP: 128 + the signal, as shells do. */


static volatile sig_atomic_t stop_signal;


/* The live line on stderr, drawn from the engine's events. */
struct bench_view {
	const struct bench_opts *o;
	int tty;
	double last_draw;
};

static void on_say(void *ctx, const char *line)
{
	(void)ctx;
	cmd_error("bench", "%s", line);
}

/* The bench's time left as "3:05" or "1:02:03". */
static char *time_left(char *buf, size_t len, double seconds)
{
	long s = (long)(seconds + 0.5);

	if (s >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
	return buf;
}

static void on_start(void *ctx, const struct bench_at *at)
{
	struct bench_view *v = ctx;

	(void)at;
	v->last_draw = 0;
}

static void on_progress(void *ctx, const struct bench_at *at, double elapsed, uint64_t bytes, uint64_t transfers)
{
	struct bench_view *v = ctx;
	char line[200], amount[32], left[32];
	double now = clock_now();

	if (v->o->quiet || !v->tty || now - v->last_draw < 0.2)
		return;
	v->last_draw = now;
	if (bytes > 0 || at->test == BENCH_STREAM)
		snprintf(line, sizeof(line), "%s %s run %ld/%ld: %.1f/%.3g s, %s, %s left", bench_test_name(at->test),
			 at->method, at->repeat, v->o->repeat, elapsed, v->o->duration,
			 display_amount(amount, sizeof(amount), (double)bytes, 0, "B"),
			 time_left(left, sizeof(left), at->left));
	else
		snprintf(line, sizeof(line), "%s %s run %ld/%ld: %.1f s, %llu/%llu downloads, %s left",
			 bench_test_name(at->test), at->method, at->repeat, v->o->repeat, elapsed,
			 (unsigned long long)transfers, (unsigned long long)v->o->count,
			 time_left(left, sizeof(left), at->left));
	fprintf(stderr, "\r\033[Kncpv bench: %s", line);
}

static void on_done(void *ctx, const struct bench_at *at, const struct bench_run *run)
{
	struct bench_view *v = ctx;
	char value[32], left[32];

	if (v->o->quiet)
		return;
	if (v->tty)
		fputs("\r\033[K", stderr);
	time_left(left, sizeof(left), at->left);
	if (run->ok)
		fprintf(stderr, "ncpv bench: %s %s run %ld/%ld: %s, %s left\n", bench_test_name(at->test), at->method,
			at->repeat, v->o->repeat, report_value(value, sizeof(value), at->test, run->value), left);
	else
		fprintf(stderr, "ncpv bench: %s %s run %ld/%ld failed (%s left): %s\n", bench_test_name(at->test),
			at->method, at->repeat, v->o->repeat, left, run->error);
}

/* A throughput run ended: one line, as the other tests' runs get. */
static void on_tput_done(void *ctx, const struct tput_row *row, long repeat, const struct tput_run *run)
{
	struct bench_view *v = ctx;
	char point[64], value[32];

	if (row->test == TPUT_STREAMS)
		snprintf(point, sizeof(point), "streams P=%d", row->streams);
	else
		snprintf(point, sizeof(point), "udp %d B at %s", row->length,
			 row->rate_bits > 0 ? display_amount(value, sizeof(value), row->rate_bits, 1, "bit/s") : "max");
	if (run->ok)
		fprintf(stderr, "ncpv bench: %s %s run %ld/%ld: %s\n", point, tput_method_name(row->method), repeat,
			v->o->repeat, display_amount(value, sizeof(value), run->f.bytes_per_s * 8, 1, "bit/s"));
	else
		fprintf(stderr, "ncpv bench: %s %s run %ld/%ld failed: %s\n", point, tput_method_name(row->method),
			repeat, v->o->repeat, run->error);
}

/* The exit status for a setup that failed. */
static int fault_exit(const struct bench *b, enum bench_fault f)
{
	switch (f) {
	case BENCH_FAULT_NONE:
		return NCPV_EXIT_OK;
	case BENCH_FAULT_SCRATCH:
		return NCPV_EXIT_FILE;
	case BENCH_FAULT_CONNECT:
		return cmd_net_exit(b->net_error);
	case BENCH_FAULT_USAGE:
		return NCPV_EXIT_USAGE;
	case BENCH_FAULT_SERVER:
		return NCPV_EXIT_LISTEN;
	case BENCH_FAULT_SYSTEM:
		break;
	}
	return NCPV_EXIT_FAIL;
}

/* html is the report's file, opened before the runs (NULL without one);
 * closed here, with the JSON written beside it. */
static int write_reports(const struct bench *b, const struct bench_info *info, FILE *html)
{
	const struct bench_opts *o = b->o;
	int rc = NCPV_EXIT_OK;
	FILE *json = NULL;

	if (html != NULL && (report_html(html, info, b->results, b->ntests) < 0 || fclose(html) != 0)) {
		cmd_error("bench", "cannot write %s: %s", o->html, strerror(errno));
		rc = NCPV_EXIT_FILE;
	}
	if (html != NULL && ((json = fopen(o->json_path, "we")) == NULL ||
			     report_json(json, info, b->results, b->ntests) < 0 || fclose(json) != 0)) {
		cmd_error("bench", "cannot write %s: %s", o->json_path, strerror(errno));
		rc = NCPV_EXIT_FILE;
	}
	if (o->json)
		report_json(stdout, info, b->results, b->ntests);
	else if (o->csv_runs)
		report_csv_runs(stdout, info, b->results, b->ntests);
	else if (o->csv)
		report_csv(stdout, info, b->results, b->ntests);
	else
		report_text(stdout, info, b->results, b->ntests);
	if (html != NULL && rc == NCPV_EXIT_OK && !o->json && !o->csv) {
		char *full = realpath(o->html, NULL), *jfull = realpath(o->json_path, NULL);

		printf("\nReport: %s (open it in a browser)\nJSON:   %s\n", full ? full : o->html,
		       jfull ? jfull : o->json_path);
		free(full);
		free(jfull);
	}
	if (fflush(stdout) != 0)
		rc = NCPV_EXIT_FAIL;
	return rc;
}

enum cmd_parse cmd_bench_parse(int argc, char **argv)
{
	struct bench_opts o;

	return bench_parse_options(argc, argv, &o);
}

int cmd_bench(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct bench_opts o;
	struct bench_view view;
	struct bench_events ev = { on_say, on_start, on_progress, on_done, &view };
	struct bench st;
	struct bench_info info;
	struct bench_env env;
	struct tput_results tput = { 0 };
	static const int stops[] = { SIGINT, SIGTERM }, hangup[] = { SIGHUP };
	char server[400], path[200], err[1024];
	FILE *html = NULL;
	enum bench_fault fault;
	enum bench_end end;
	int rc;

	if (argc > 1 && strcmp(argv[1], "compare") == 0)
		return cmd_bench_compare(argc - 1, argv + 1);
	if ((parsed = bench_parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if ((rc = bench_select_methods(&o)) != 0)
		return rc;
	/* Find out now, not after minutes of runs, that the report cannot be written. */
	if (o.html && (html = fopen(o.html, "we")) == NULL) {
		cmd_error("bench", "cannot write %s: %s", o.html, strerror(errno));
		return NCPV_EXIT_FILE;
	}
	bench_collect_env(&o, &env, argc, argv);
	{
		char iperfs[64];

		tput_tools_present(o.tests, iperfs, sizeof(iperfs));
		env_add_tools(&env, iperfs);
	}
	view.o = &o;
	view.tty = isatty(2);
	view.last_draw = 0;
	bench_init(&st, &o, &ev, &stop_signal);
	/* No SA_RESTART: a signal must end the waits so that cleanup runs. */
	cmd_catch_stop(&stop_signal, hangup, 1, CMD_STOP_KEEP_IGNORED); /* nohup: go on */
	cmd_catch_stop(&stop_signal, stops, 2, 0);

	if ((fault = bench_setup(&st, err, sizeof(err))) != BENCH_FAULT_NONE) {
		cmd_error("bench", "%s", err);
		rc = fault_exit(&st, fault);
	}
	if (rc == 0 && !o.quiet) {
		char estimate[256];

		bench_estimate(&st, estimate, sizeof(estimate));
		if (estimate[0])
			fprintf(stderr, "ncpv bench: %s\n", estimate);
		if (o.tests & (BENCH_TPUT_STREAMS | BENCH_TPUT_UDP)) {
			tput_estimate(&o.tput, o.tests, o.duration, o.repeat, estimate, sizeof(estimate));
			fprintf(stderr, "ncpv bench: %s\n", estimate);
		}
	}
	if (rc == 0 && (end = bench_run(&st)) != BENCH_END_DONE) {
		if (end == BENCH_END_NOMEM) {
			cmd_error("bench", "out of memory");
			rc = NCPV_EXIT_FAIL;
		} else {
			rc = 128 + (stop_signal ? stop_signal : SIGINT);
		}
	}
	/* The throughput tests after the others, while the guard and the scratch directory last. */
	if (rc == 0 && (o.tests & (BENCH_TPUT_STREAMS | BENCH_TPUT_UDP))) {
		char where_path[120];
		struct tput_where where = { st.host, st.linked ? &st.link : NULL, "loopback" };

		if (o.link) {
			snprintf(where_path, sizeof(where_path), "link %s", o.link);
			where.path = where_path;
		}
		if (tput_run_tests(&tput, &o.tput, o.tests, o.duration, o.repeat, &where, st.ncpv, st.scratch,
				   &stop_signal, on_say, o.quiet ? NULL : on_tput_done, &view) < 0 && !stop_signal) {
			cmd_error("bench", "out of memory");
			rc = NCPV_EXIT_FAIL;
		}
	}
	if (stop_signal && rc == 0)
		rc = 128 + stop_signal;
	bench_describe(&st, &info, server, sizeof(server), path, sizeof(path));
	info.env = &env;
	info.tput = tput.tests ? &tput : NULL;
	bench_close(&st);
	if (rc == 0) {
		int failed = bench_failed(&st) || tput_failed(&tput);

		rc = write_reports(&st, &info, html);
		html = NULL;
		if (rc == 0 && failed)
			rc = NCPV_EXIT_FAIL;
	} else if (rc > 128) {
		if (view.tty && !o.quiet)
			fputs("\r\033[K", stderr);
		cmd_error("bench", "interrupted: stopped the methods and the servers%s", o.link ? ", removed the link" : "");
		/* What finished is still worth reading: the reports, marked partial. */
		if (bench_mark_interrupted(&st) > 0) {
			info.interrupted = 1;
			write_reports(&st, &info, html);
			html = NULL;
		}
	}
	if (html != NULL) {
		/* Opened (and so emptied) at the start, never written: leave no empty report. */
		fclose(html);
		unlink(o.html);
	}
	bench_free(&st);
	tput_results_free(&tput);
	return rc;
}
