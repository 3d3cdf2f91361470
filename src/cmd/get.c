/* SPDX-License-Identifier: ISC */
/* get.c - "ncpv get": the progress line and the messages around the engine in ../get/ (one
 * stream, --count's batch, -P's streams); the options are get_opts.c's, the summaries and the
 * exit codes get_summary.c's. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "get_cmd.h"
#include "get_report.h"
#include "get_summary.h"
#include "progress.h"
#include "udp_cmd.h"
#include "../clock.h"
#include "../get/get_engine.h"
#include "../get/get_side.h"
#include "../pv/tty.h"
#include "../net.h"
#include "../wrap.h"

static volatile sig_atomic_t interrupted;

/* ---- the engine's events: notices and the progress line ----------------- */

struct view {
	const struct get_args *a;
	struct progress p;
	int batch; /* --count: a last line only if one was drawn */
	char done[48]; /* --count: "finished/count", the line's name */
	struct get_report rp; /* -i SEC given: the interval lines */
};

/* -i's lines scroll above the progress line, if one is up (a terminal, or -f): it is erased,
 * the lines go out, and it is drawn again below them. On a terminal the lines are cut to its
 * width, as the progress line is. */
static void view_interval(void *ctx, const struct get_interval *streams, long n, const struct get_interval *sum)
{
	struct view *v = ctx;
	int redraw = v->p.shown && !v->a->json && !v->a->quiet;
	int width = pv_tty_width(STDERR_FILENO, 80);

	v->rp.width = isatty(STDERR_FILENO) ? width : 0;
	if (redraw)
		fprintf(stderr, "\r%*s\r", width > 1 ? width - 1 : 0, "");
	get_report_interval(&v->rp, streams, n, sum);
	if (redraw)
		progress_draw(&v->p, clock_now(), 0);
}

static void view_init(struct view *v, const struct get_args *a)
{
	memset(v, 0, sizeof(*v));
	v->a = a;
	v->rp.json = a->json;
	v->rp.quiet = a->quiet;
	v->rp.send = a->run.send;
	v->rp.json_out = get_json_out(a);
	v->rp.text_out = stderr;
}

static void say(void *ctx, const char *line)
{
	struct view *v = ctx;

	if (v->a->quiet)
		return;
	if (v->p.shown)
		fputc('\n', stderr);
	cmd_error("get", "%s", line);
}

/* The progress line, shown on a terminal or with -f, unless -q. */
static double tick(void *ctx, const struct get_totals *t, enum get_tick when, double now)
{
	struct view *v = ctx;
	const struct get_args *a = v->a;

	if (when == GET_TICK_START) {
		progress_init(&v->p, !a->quiet && (a->force || isatty(STDERR_FILENO)), a->interval, t->size,
			      t->start);
		return v->p.show ? v->p.next : 0;
	}
	v->p.meter.bytes = t->bytes;
	if (v->batch) {
		/* --count: the transfers over of those asked for lead the line ("1234/20000:"). */
		snprintf(v->done, sizeof(v->done), "%ld/%ld", t->finished, t->count);
		v->p.disp.o.name = v->done;
	}
	if (when == GET_TICK_LIVE) {
		progress_tick(&v->p, now);
		return v->p.show ? v->p.next : 0;
	}
	/* A stream that ended as asked gets its last line even if none was drawn yet. */
	if (v->p.shown || (v->p.show && when == GET_TICK_END && !v->batch))
		progress_draw(&v->p, now, 1);
	return 0;
}

/* ---- one stream --------------------------------------------------------- */

static int run_stream(const struct get_args *a)
{
	struct view v;
	const struct get_events ev = { say, tick, &v };
	const struct get_interval_out out = { view_interval, &v };
	struct get_opts o = a->run;
	struct get_result r;
	char err[1024];
	enum get_end end;

	o.interval_out = &out;
	view_init(&v, a);
	/* --rate on a download: serve paces it, asked through the side channel. */
	end = o.rate > 0 && !o.send ? get_side_paced(&o, 1, &ev, &r, err, sizeof(err)) :
				       get_stream(&o, &ev, &r, err, sizeof(err));
	/* A setting the kernel refused is a bad value, found only at the connect. */
	int rc = r.sock_refused ? NCPV_EXIT_USAGE : get_exit_code(end, r.net_error, r.tls_error);

	if (get_end_failed(end) && r.began)
		cmd_error("get", "%s (after %llu byte%s)", err, (unsigned long long)r.bytes, wrap_s(r.bytes));
	else if (get_end_failed(end))
		cmd_error("get", "%s", err);
	else
		get_print_summary(a, &r, end);
	/* A signal stops a download counted to nowhere as asked, but one kept with -o is not
	 * whole: the engine left FILE as it was, and the status says so (issue 22). */
	rc = a->run.send ? get_interrupted_upload(a, end, r.bytes, rc) : get_interrupted_output(a, end, r.bytes, rc);
	if (end == GET_END_SHORT)
		cmd_error("get", "expected %llu byte%s, received %llu", (unsigned long long)a->run.size,
			  wrap_s(a->run.size), (unsigned long long)r.bytes);
	get_result_free(&r);
	return rc;
}

/* ---- --count ------------------------------------------------------------ */

static int run_batch(const struct get_args *a)
{
	struct view v = { .a = a, .batch = 1 };
	const struct get_events ev = { say, tick, &v };
	struct get_batch_result r;
	char err[512];
	enum get_end end = get_batch(&a->run, &ev, &r, err, sizeof(err));

	if (get_end_failed(end)) {
		cmd_error("get", "%s", err);
		return get_exit_code(end, r.net_error, r.tls_error);
	}
	get_print_batch(a, &r);
	if (r.failed > 0) {
		cmd_error("get", "%ld of %ld transfer%s failed (first: %s)", r.failed, a->run.count,
			  wrap_s((unsigned long long)a->run.count), r.first_error);
		return NCPV_EXIT_FAIL;
	}
	if (end == GET_END_INTERRUPTED) {
		/* The N transfers asked for were not all made: that is a short run (exit 1). */
		cmd_error("get", "interrupted after %ld of %ld transfer%s (%ld cut short)", r.done, a->run.count,
			  wrap_s((unsigned long long)a->run.count), r.cut);
		return NCPV_EXIT_FAIL;
	}
	if (end == GET_END_TIME && r.done == 0 && r.cut > 0) {
		cmd_error("get", "no transfer finished within --time: the server closed none of %ld "
			  "(an endless server? serve --size N sends N bytes and closes)", r.cut);
		return NCPV_EXIT_FAIL;
	}
	return NCPV_EXIT_OK;
}

enum cmd_parse cmd_get_parse(int argc, char **argv)
{
	struct get_args a;

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_get_parse(argc, argv);
	return get_parse_options(argc, argv, &a, &interrupted);
}

/* ---- -P streams at once ---------------------------------------------------- */

static int run_parallel(const struct get_args *a)
{
	long n = a->run.parallel;
	struct get_result *rs = calloc((size_t)n, sizeof(*rs));
	char err[512];
	struct view v;
	const struct get_interval_out out = { get_report_interval, &v.rp };
	struct get_opts o = a->run;
	enum get_end end;
	int rc;

	if (rs == NULL) {
		cmd_error("get", "out of memory");
		return NCPV_EXIT_FAIL;
	}
	view_init(&v, a);
	o.interval_out = &out;
	end = o.rate > 0 && !o.send ? get_side_paced(&o, n, NULL, rs, err, sizeof(err)) :
				       get_parallel(&o, n, rs, err, sizeof(err));
	rc = rs[0].sock_refused ? NCPV_EXIT_USAGE : get_exit_code(end, rs[0].net_error, rs[0].tls_error);
	if (get_end_failed(end))
		cmd_error("get", "%s", err);
	else {
		get_print_parallel(a, rs, n, end);
		if (end == GET_END_SHORT)
			cmd_error("get", "%s", err);
	}
	for (long i = 0; i < n; i++)
		get_result_free(&rs[i]);
	free(rs);
	return rc;
}

int cmd_get(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct get_args a;
	/* A hangup (the ssh session or terminal gone) stops get as SIGINT does:
	 * by default it would kill get and leave -o's .FILE.ncpv-XXXXXX behind. Under
	 * nohup, which ignores it, it stays ignored and get goes on, as pv does. */
	static const int stops[] = { SIGINT, SIGTERM }, hangup[] = { SIGHUP };

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_get(argc, argv);
	if ((parsed = get_parse_options(argc, argv, &a, &interrupted)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if (a.run.parallel > a.run.count && a.run.count > 0)
		a.run.parallel = a.run.count;
	cmd_catch_stop(&interrupted, hangup, 1, CMD_STOP_KEEP_IGNORED);
	cmd_catch_stop(&interrupted, stops, 2, 0);
	/* Past the file size limit (ulimit -f) write fails with EFBIG and get says so,
	 * rather than dying with a core and no message. Not in main(): nc keeps nc's
	 * behaviour, and devtcp's command would inherit the ignored signal. */
	signal(SIGXFSZ, SIG_IGN);
	if (a.side)
		return get_side_command(&a);
	if (a.run.count)
		return run_batch(&a);
	return a.run.parallel > 1 ? run_parallel(&a) : run_stream(&a);
}
