/* SPDX-License-Identifier: ISC */
/* tput_session.c - the rounds of bench's throughput tests: each method's server
 * once per test, then every point (streams P; UDP length and rate) of every
 * method in turn, round after round (A B C A B C), and the summary. */
#include "tput_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "method.h"

static const char *search_path(void)
{
	return getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
}

/* Is the method's program (iperf2's UDP server needs stdbuf too) on PATH? */
static int tool_missing(enum tput_method m, enum tput_test test, char *missing, size_t len)
{
	struct bench_method probe = { .shell = NULL };

	if (m == TPUT_NCPV)
		return 0;
	snprintf(probe.tools, sizeof(probe.tools), "%s%s", tput_method_tool(m),
		 m == TPUT_IPERF2 && test == TPUT_UDP ? " stdbuf" : "");
	return method_missing_tool(&probe, BENCH_STREAM, search_path(), missing, len);
}

/* The rows of test: every point of o, every method at each (methods inner). */
static int add_rows(struct tput_results *r, const struct tput_opts *o, enum tput_test test, long repeat)
{
	size_t points = test == TPUT_STREAMS ? o->nstreams : o->nlengths * o->nrates;
	struct tput_row *rows = realloc(r->rows, (r->n + points * TPUT_NMETHODS) * sizeof(*rows));

	if (rows == NULL)
		return -1;
	r->rows = rows;
	for (size_t p = 0; p < points; p++)
		for (int m = 0; m < TPUT_NMETHODS; m++) {
			struct tput_row *row = &r->rows[r->n];

			memset(row, 0, sizeof(*row));
			row->test = test;
			row->method = (enum tput_method)m;
			if (test == TPUT_STREAMS) {
				row->streams = o->streams[p];
			} else {
				row->streams = 1;
				row->length = o->lengths[p / o->nrates];
				row->rate_bits = o->rates[p % o->nrates];
			}
			if ((row->runs = calloc((size_t)repeat, sizeof(*row->runs))) == NULL)
				return -1;
			r->n++;
		}
	return 0;
}

/* Over a link: into the servers' namespace (side 0) or the clients' (1); err says why not. */
static int enter(const struct tput_where *where, int side, char *err, size_t errlen)
{
	if (where->link == NULL || link_enter(where->link, side) == 0)
		return 0;
	snprintf(err, errlen, "cannot enter the link's %s namespace: %s", side ? "clients'" : "servers'", strerror(errno));
	return -1;
}

/* One test: the servers, the rounds, the servers stopped. */
static int run_test(struct tput_results *r, size_t first, enum tput_test test, int seconds, long repeat,
		    const struct tput_where *where, const char *ncpv, const char *scratch, volatile sig_atomic_t *stop,
		    void (*say)(void *ctx, const char *line), tput_done_fn *done, void *ctx)
{
	struct tput_server srv[TPUT_NMETHODS];
	char err[512], line[700], missing[64], place[200] = "";
	int rc = 0;

	/* The servers start at the link's near end and the clients run at its far end. */
	enter(where, 0, place, sizeof(place));
	for (int m = 0; m < TPUT_NMETHODS; m++) {
		srv[m].pid = 0;
		srv[m].out_fd = -1;
		err[0] = '\0';
		if (place[0] != '\0')
			snprintf(err, sizeof(err), "%s", place);
		else if (tool_missing((enum tput_method)m, test, missing, sizeof(missing)))
			snprintf(err, sizeof(err), "%s not found on PATH", missing);
		else if (tput_server_start(&srv[m], (enum tput_method)m, test, ncpv, where->host, scratch, err,
					   sizeof(err)) < 0)
			srv[m].pid = 0;
		if (err[0] == '\0')
			continue;
		snprintf(line, sizeof(line), "%s test: %s skipped: %s", test == TPUT_STREAMS ? "streams" : "udp",
			 tput_method_name((enum tput_method)m), err);
		if (say)
			say(ctx, line);
		for (size_t i = first; i < r->n; i++)
			if (r->rows[i].method == (enum tput_method)m) {
				r->rows[i].skipped = 1;
				snprintf(r->rows[i].reason, sizeof(r->rows[i].reason), "%.150s", err);
			}
	}
	if (place[0] == '\0' && enter(where, 1, err, sizeof(err)) < 0) {
		/* The clients would reach nothing from here: every row says why. */
		for (size_t i = first; i < r->n; i++)
			if (!r->rows[i].skipped) {
				r->rows[i].skipped = 1;
				snprintf(r->rows[i].reason, sizeof(r->rows[i].reason), "%.150s", err);
			}
		if (say)
			say(ctx, err);
	}
	for (long rep = 0; rep < repeat && rc == 0; rep++)
		for (size_t i = first; i < r->n && rc == 0; i++) {
			struct tput_row *row = &r->rows[i];
			struct tput_run *run = &row->runs[rep];

			if (row->skipped)
				continue;
			if (tput_client_run(&srv[row->method], test, row->streams, row->rate_bits, row->length, seconds,
					    ncpv, scratch, stop, run, row->command, sizeof(row->command)) < 0 || *stop) {
				rc = -1;
				break;
			}
			row->nruns = (size_t)rep + 1;
			if (done)
				done(ctx, row, rep + 1, run);
			if (!run->ok && row->reason[0] == '\0')
				snprintf(row->reason, sizeof(row->reason), "%s", run->error);
		}
	for (int m = 0; m < TPUT_NMETHODS; m++)
		tput_server_stop(&srv[m]);
	return rc;
}

int tput_run_tests(struct tput_results *r, const struct tput_opts *o, int tests, double duration, long repeat,
		   const struct tput_where *where, const char *ncpv, const char *scratch, volatile sig_atomic_t *stop,
		   void (*say)(void *ctx, const char *line), tput_done_fn *done, void *ctx)
{
	int seconds = (int)ceil(duration), rc = 0;

	memset(r, 0, sizeof(*r));
	r->seconds = seconds;
	r->repeat = repeat;
	snprintf(r->path, sizeof(r->path), "%s", where->path);
	for (int test = TPUT_STREAMS; test <= TPUT_UDP && rc == 0; test <<= 1) {
		size_t first = r->n;

		if (!(tests & (test == TPUT_STREAMS ? BENCH_TPUT_STREAMS : BENCH_TPUT_UDP)))
			continue;
		if (add_rows(r, o, (enum tput_test)test, repeat) < 0) {
			errno = ENOMEM;
			return -1;
		}
		r->tests |= test;
		rc = run_test(r, first, (enum tput_test)test, seconds, repeat, where, ncpv, scratch, stop, say, done, ctx);
	}
	tput_summarize(r);
	return rc;
}

/* ncpv, and each other tool that test can run (a missing one is skipped, not timed). */
static int tools_for(enum tput_test test)
{
	char missing[64];
	int n = 1;

	for (int m = TPUT_IPERF3; m < TPUT_NMETHODS; m++)
		n += !tool_missing((enum tput_method)m, test, missing, sizeof(missing));
	return n;
}

static const char *plural(long n)
{
	return n == 1 ? "" : "s";
}

void tput_estimate(const struct tput_opts *o, int tests, double duration, long repeat, char *buf, size_t len)
{
	/* Each run: its whole seconds, and about half a second to start and stop the client. */
	long sp = (tests & BENCH_TPUT_STREAMS) ? (long)o->nstreams : 0, st = sp ? tools_for(TPUT_STREAMS) : 0;
	long up = (tests & BENCH_TPUT_UDP) ? (long)(o->nrates * o->nlengths) : 0, ut = up ? tools_for(TPUT_UDP) : 0;
	double s = (double)(sp * st + up * ut) * (double)repeat * (ceil(duration) + 0.5);
	char what[128];

	if (sp && up)
		snprintf(what, sizeof(what), "streams %ld point%s x %ld tool%s, udp %ld point%s x %ld tool%s", sp,
			 plural(sp), st, plural(st), up, plural(up), ut, plural(ut));
	else
		snprintf(what, sizeof(what), "%ld point%s x %ld tool%s", sp + up, plural(sp + up), st + ut, plural(st + ut));
	snprintf(buf, len, "%s x %ld run%s of %.0f s: the %s take%s about %.0f %s", what, repeat, plural(repeat),
		 ceil(duration), sp && up ? "streams and udp tests" : sp ? "streams test" : "udp test", sp && up ? "" : "s",
		 s >= 120 ? s / 60 : s, s >= 120 ? "min" : "s");
}

void tput_tools_present(int tests, char *buf, size_t len)
{
	char missing[64];
	size_t n = 0;

	buf[0] = '\0';
	for (int m = TPUT_IPERF3; m < TPUT_NMETHODS && tests & (BENCH_TPUT_STREAMS | BENCH_TPUT_UDP); m++)
		if (!tool_missing((enum tput_method)m, TPUT_STREAMS, missing, sizeof(missing)) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", tput_method_tool((enum tput_method)m));
}
