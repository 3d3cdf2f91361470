/* SPDX-License-Identifier: ISC */
/* bench.c - "ncpv bench": the seed's experiment answered with evidence. Runs
 * every download method against one server, interleaved and repeated, counts
 * bytes at one point for all of them, and reports medians, spread, ratios to
 * a baseline and whether each difference beats run-to-run spread. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_opts.h"
#include "cmd.h"
#include "../addr.h"
#include "../clock.h"
#include "../display.h"
#include "../loop.h"
#include "../net.h"
#include "../units.h"
#include "../bench/env.h"
#include "../bench/guard.h"
#include "../bench/link.h"
#include "../bench/method.h"
#include "../bench/probe.h"
#include "../bench/report.h"
#include "../bench/result.h"
#include "../bench/runner.h"
#include "../bench/tcpdiag.h"

#define ALPHA 0.05
/* Exit status after SIGINT, SIGTERM or SIGHUP: 128 + the signal, as shells do. */


static volatile sig_atomic_t stop_signal;


/* Everything that must be undone on every way out. */
struct bench_state {
	struct bench_opts *o;
	struct bench_guard guard;
	struct bench_link link;
	int linked;
	struct bench_server stream_srv, files_srv;
	struct bench_probe probe; /* stream: the latency probe */
	int server_diag, client_diag;
	char host[ADDR_HOST_MAX];
	int stream_port, files_port;
	char ncpv[4096];
	char scratch[4096];	/* mkdtemp directory for the methods' stderr, in $TMPDIR */
	char log_path[4096 + 16];
	struct bench_test_result tests[2];
	size_t ntests;
	/* live line */
	int tty;
	double last_draw;
	const char *cur_test, *cur_method;
	long cur_repeat;
};

static void cleanup(struct bench_state *st)
{
	runner_stop_server(&st->stream_srv);
	runner_stop_server(&st->files_srv);
	probe_stop(&st->probe);
	if (st->client_diag >= 0 && st->client_diag != st->server_diag)
		close(st->client_diag);
	if (st->server_diag >= 0)
		close(st->server_diag);
	st->client_diag = st->server_diag = -1;
	if (st->linked)
		link_teardown(&st->link);
	st->linked = 0;
	guard_stop(&st->guard);
	if (st->log_path[0])
		unlink(st->log_path);
	if (st->scratch[0])
		rmdir(st->scratch);
	st->scratch[0] = st->log_path[0] = '\0';
}

static void on_progress(void *arg, double elapsed, uint64_t bytes, uint64_t transfers)
{
	struct bench_state *st = arg;
	char line[200], amount[32];
	double now = clock_now();

	if (st->o->quiet || !st->tty || now - st->last_draw < 0.2)
		return;
	st->last_draw = now;
	if (bytes > 0 || strcmp(st->cur_test, "stream") == 0)
		snprintf(line, sizeof(line), "%s %s run %ld/%ld: %.1f/%.3g s, %s", st->cur_test, st->cur_method,
			 st->cur_repeat, st->o->repeat, elapsed, st->o->duration,
			 display_amount(amount, sizeof(amount), (double)bytes, 0, "B"));
	else
		snprintf(line, sizeof(line), "%s %s run %ld/%ld: %.1f s, %llu/%llu downloads", st->cur_test,
			 st->cur_method, st->cur_repeat, st->o->repeat, elapsed, (unsigned long long)transfers,
			 (unsigned long long)st->o->count);
	fprintf(stderr, "\r\033[Kncpv bench: %s", line);
}

static void run_done(struct bench_state *st, enum bench_test test, const struct bench_run *run)
{
	char v[32];

	if (st->o->quiet)
		return;
	if (st->tty)
		fputs("\r\033[K", stderr);
	if (run->ok)
		fprintf(stderr, "ncpv bench: %s %s run %ld/%ld: %s\n", st->cur_test, st->cur_method, st->cur_repeat,
			st->o->repeat, report_value(v, sizeof(v), test, run->value));
	else
		fprintf(stderr, "ncpv bench: %s %s run %ld/%ld failed: %s\n", st->cur_test, st->cur_method,
			st->cur_repeat, st->o->repeat, run->error);
}

/* Fill a test's method list: the command each runs, or why it is skipped. */
static int prepare_test(struct bench_state *st, enum bench_test test, struct bench_test_result *t)
{
	const struct bench_opts *o = st->o;
	char port[16], size[32], count[32], missing[64];
	struct method_vars v = { st->host, port, size, count, st->ncpv };
	const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";

	snprintf(port, sizeof(port), "%d", test == BENCH_STREAM ? st->stream_port : st->files_port);
	snprintf(size, sizeof(size), "%llu", (unsigned long long)o->size);
	snprintf(count, sizeof(count), "%llu", (unsigned long long)o->count);
	t->test = test;
	t->alpha = ALPHA;
	t->results = calloc(o->nmethods, sizeof(*t->results));
	if (t->results == NULL)
		return -1;
	t->n = o->nmethods;
	t->baseline = t->n;
	for (size_t i = 0; i < o->nmethods; i++) {
		struct bench_result *r = &t->results[i];
		const struct bench_method *m = &o->methods[i];

		r->method = m;
		if (strcmp(m->name, bench_baseline(o)) == 0)
			t->baseline = i;
		if (method_missing_tool(m, test, path, missing, sizeof(missing))) {
			r->status = BENCH_SKIPPED;
			snprintf(r->reason, sizeof(r->reason), "%s not found on PATH", missing);
			continue;
		}
		r->shell = method_command(m, test, &v, r->command, sizeof(r->command));
		if (r->shell == NULL || method_argv(r->shell, r->command, r->argbuf, sizeof(r->argbuf), r->argv,
						    (int)(sizeof(r->argv) / sizeof(r->argv[0]))) < 0) {
			r->status = BENCH_SKIPPED;
			snprintf(r->reason, sizeof(r->reason), "command too long");
			continue;
		}
		r->runs = calloc((size_t)o->repeat, sizeof(*r->runs));
		if (r->runs == NULL)
			return -1;
	}
	return 0;
}

/* Summarize the runs done so far (all of them, or those before a signal). */
static void finish_test(struct bench_test_result *t)
{
	/* No baseline ran: compare with the first method that did. */
	if (t->baseline >= t->n || t->results[t->baseline].status == BENCH_SKIPPED ||
	    t->results[t->baseline].nruns == 0)
		for (t->baseline = 0; t->baseline < t->n; t->baseline++)
			if (t->results[t->baseline].status != BENCH_SKIPPED && t->results[t->baseline].nruns > 0)
				break;
	bench_summarize(t);
}

/* Interleave: every method's run 1, then every method's run 2, ... */
static int run_test(struct bench_state *st, struct bench_test_result *t)
{
	const struct bench_opts *o = st->o;
	int stream = t->test == BENCH_STREAM;
	struct runner_ctx ctx = {
		.diag_fd = st->client_diag,
		.port = stream ? st->stream_port : st->files_port,
		.server = o->connect ? NULL : stream ? &st->stream_srv : &st->files_srv,
		.server_diag_fd = st->server_diag,
		.log_path = st->log_path,
		.stop = &stop_signal,
		.probe = stream && st->probe.ping_pid > 0 ? &st->probe : NULL,
		.progress = on_progress,
		.arg = st,
	};

	size_t order[MAX_METHODS] = { 0 };
	unsigned rng = o->seed + (unsigned)t->test;

	st->cur_test = bench_test_name(t->test);
	for (long rep = 0; rep < o->repeat; rep++) {
		for (size_t i = 0; i < t->n; i++)
			order[i] = i;
		/* Fisher-Yates with the reported seed: the same seed, the same order. */
		for (size_t i = t->n; o->shuffle && i > 1; i--) {
			size_t j = (size_t)rand_r(&rng) % i, tmp = order[i - 1];

			order[i - 1] = order[j];
			order[j] = tmp;
		}
		for (size_t pos = 0; pos < t->n; pos++) {
			struct bench_result *r = &t->results[order[pos]];
			struct bench_run *run;
			int rc;

			if (r->status == BENCH_SKIPPED)
				continue;
			run = &r->runs[rep];
			run->position = (int)pos + 1;
			st->cur_method = r->method->name;
			st->cur_repeat = rep + 1;
			st->last_draw = 0;
			if (stream)
				rc = runner_stream(&ctx, r->argv, o->duration, run);
			else
				rc = runner_files(&ctx, r->argv, o->count, o->size, o->timeout, run);
			/* A run the signal cut short is left out; one it followed is kept. */
			r->nruns = rc < 0 ? (size_t)rep : (size_t)rep + 1;
			if (rc < 0) {
				free(run->samples);
				free(run->latency.v);
				free(run->ping_idle.v);
				free(run->ping_load.v);
				memset(run, 0, sizeof(*run));
			}
			if (rc < 0 || stop_signal) {
				finish_test(t);
				return -1;
			}
			run_done(st, t->test, run);
			if (!run->ok && r->status == BENCH_OK) {
				r->status = BENCH_FAILED;
				snprintf(r->reason, sizeof(r->reason), "%s", run->error);
			}
		}
	}
	finish_test(t);
	return 0;
}

/* Does the server on fd keep sending, far past one download of size bytes,
 * without closing? Reads for at most PROBE_SECONDS. */
#define PROBE_SECONDS 5.0
static int remote_is_endless(int fd, uint64_t size)
{
	uint64_t limit = size * 16 > (1u << 20) ? size * 16 : (1u << 20), got = 0;
	double deadline = clock_now() + PROBE_SECONDS;
	char buf[65536];

	while (got <= limit && clock_now() < deadline && !stop_signal) {
		ssize_t n;

		if (net_wait(fd, POLLIN, 100) == 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return 0;
		if (n > 0)
			got += (uint64_t)n;
	}
	return got > limit;
}

/* Reach the remote server once before measuring, so that a wrong address is
 * a clear error and not a table of failed runs. Returns 0 or an exit code. */
static int check_remote(struct bench_state *st)
{
	struct net_opts no = { .timeout_ms = 5000 };
	char err[512];
	int fd = net_connect(st->o->remote.host, st->o->remote.port, &no, err, sizeof(err));

	if (fd < 0) {
		cmd_error("bench", "--connect %s: %s", st->o->connect, err);
		return cmd_net_exit(fd);
	}
	if ((st->o->tests & BENCH_FILES) && remote_is_endless(fd, st->o->size)) {
		close(fd);
		if (st->o->tests_given & BENCH_FILES) {
			cmd_error("bench", "--connect %s never closes a download: the files test needs a server that does "
					   "(such as ncpv serve --size 4K there); use -T stream", st->o->connect);
			return NCPV_EXIT_USAGE;
		}
		cmd_error("bench", "--connect %s never closes a download: running the stream test only (the files "
				   "test needs a server such as ncpv serve --size 4K)", st->o->connect);
		st->o->tests = BENCH_STREAM;
		return check_remote(st);
	}
	close(fd);
	snprintf(st->host, sizeof(st->host), "%s", st->o->remote.host);
	st->stream_port = st->files_port = addr_parse_port(st->o->remote.port);
	if (st->stream_port <= 0) {
		cmd_error("bench", "--connect %s: the port must be a number", st->o->connect);
		return NCPV_EXIT_USAGE;
	}
	return 0;
}

/* Servers (in the link's server namespace when there is one), then the
 * clients' side. Returns 0 or an exit code. */
static int setup(struct bench_state *st)
{
	const struct bench_opts *o = st->o;
	const char *tmpdir;
	char err[512];
	ssize_t n = readlink("/proc/self/exe", st->ncpv, sizeof(st->ncpv) - 1);
	int fd;

	if (n <= 0) {
		cmd_error("bench", "cannot find this program (/proc/self/exe): %s", strerror(errno));
		return NCPV_EXIT_FAIL;
	}
	st->ncpv[n] = '\0';
	runner_become_subreaper();
	/* Before any child: what a killed bench left, then our own supervisor. */
	if ((fd = guard_sweep()) > 0)
		cmd_error("bench", "killed %d process%s left running by a bench that was killed", fd, fd == 1 ? "" : "es");
	if (guard_start(&st->guard, err, sizeof(err)) < 0) {
		cmd_error("bench", "%s", err);
		return NCPV_EXIT_FAIL;
	}
	/* $TMPDIR as mktemp(1) reads it: unset or empty means /tmp. A name too long
	 * is said so, not reported with whatever errno an earlier call left. */
	tmpdir = getenv("TMPDIR");
	if (tmpdir == NULL || tmpdir[0] == '\0')
		tmpdir = "/tmp";
	errno = ENAMETOOLONG;
	if ((size_t)snprintf(st->scratch, sizeof(st->scratch), "%s/ncpv-bench.XXXXXX", tmpdir) >= sizeof(st->scratch) ||
	    mkdtemp(st->scratch) == NULL) {
		st->scratch[0] = '\0';
		cmd_error("bench", "cannot make a scratch directory in '%s': %s", tmpdir, strerror(errno));
		return NCPV_EXIT_FILE;
	}
	snprintf(st->log_path, sizeof(st->log_path), "%s/method.err", st->scratch);
	if (o->connect) {
		int rc = check_remote(st);

		if (rc == 0 && (st->client_diag = tcpdiag_open()) < 0) {
			cmd_error("bench", "cannot read socket counters (sock_diag netlink): %s", strerror(errno));
			return NCPV_EXIT_FAIL;
		}
		return rc;
	}
	if (o->link) {
		if (link_setup(&st->link, o->link_bits, o->link_delay, o->link_loss, err, sizeof(err)) < 0) {
			cmd_error("bench", "%s", err);
			return NCPV_EXIT_FAIL;
		}
		st->linked = 1;
		if (link_enter(&st->link, 0) < 0) {
			cmd_error("bench", "cannot enter the server's namespace: %s", strerror(errno));
			return NCPV_EXIT_FAIL;
		}
	}
	snprintf(st->host, sizeof(st->host), "%s", o->link ? LINK_SERVER_ADDR : "127.0.0.1");
	if ((st->server_diag = tcpdiag_open()) < 0) {
		cmd_error("bench", "cannot read socket counters (sock_diag netlink): %s", strerror(errno));
		return NCPV_EXIT_FAIL;
	}
	if (o->tests & BENCH_STREAM) {
		fd = o->seed_server ? runner_start_seed_server(&st->stream_srv, st->host, st->server_diag, err, sizeof(err))
				    : runner_start_ncpv_server(&st->stream_srv, st->ncpv, st->host, 0, o->tls, err,
								     sizeof(err));
		if (fd < 0) {
			cmd_error("bench", "%s", err);
			return NCPV_EXIT_LISTEN;
		}
		st->stream_port = st->stream_srv.port;
		/* The latency probe's echo, beside the stream's server. */
		if (!o->no_latency && probe_interval(o->link ? o->link_bits : 0) > 0 &&
		    probe_start_echo(&st->probe, st->host, err, sizeof(err)) < 0) {
			cmd_error("bench", "%s (--no-latency runs without the probe)", err);
			return NCPV_EXIT_LISTEN;
		}
	}
	if (o->tests & BENCH_FILES) {
		if (runner_start_ncpv_server(&st->files_srv, st->ncpv, st->host, o->size, o->tls, err,
					     sizeof(err)) < 0) {
			cmd_error("bench", "%s", err);
			return NCPV_EXIT_LISTEN;
		}
		st->files_port = st->files_srv.port;
	}
	if (o->link) {
		if (link_enter(&st->link, 1) < 0 || (st->client_diag = tcpdiag_open()) < 0) {
			cmd_error("bench", "cannot enter the clients' namespace: %s", strerror(errno));
			return NCPV_EXIT_FAIL;
		}
	} else {
		st->client_diag = st->server_diag;
	}
	if (st->probe.echo_pid > 0 &&
	    probe_start_pinger(&st->probe, st->host, probe_interval(o->link ? o->link_bits : 0), err, sizeof(err)) < 0) {
		cmd_error("bench", "the latency probe: %s (--no-latency runs without it)", err);
		return NCPV_EXIT_LISTEN;
	}
	return 0;
}

/* html is the report's file, opened before the runs (NULL without one);
 * closed here, with the JSON written beside it. */
static int write_reports(struct bench_state *st, const struct bench_info *info, FILE *html)
{
	const struct bench_opts *o = st->o;
	int rc = NCPV_EXIT_OK;
	FILE *json = NULL;

	if (html != NULL && (report_html(html, info, st->tests, st->ntests) < 0 || fclose(html) != 0)) {
		cmd_error("bench", "cannot write %s: %s", o->html, strerror(errno));
		rc = NCPV_EXIT_FILE;
	}
	if (html != NULL && ((json = fopen(o->json_path, "we")) == NULL ||
			     report_json(json, info, st->tests, st->ntests) < 0 || fclose(json) != 0)) {
		cmd_error("bench", "cannot write %s: %s", o->json_path, strerror(errno));
		rc = NCPV_EXIT_FILE;
	}
	if (o->json)
		report_json(stdout, info, st->tests, st->ntests);
	else if (o->csv_runs)
		report_csv_runs(stdout, info, st->tests, st->ntests);
	else if (o->csv)
		report_csv(stdout, info, st->tests, st->ntests);
	else
		report_text(stdout, info, st->tests, st->ntests);
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

static void describe(const struct bench_state *st, struct bench_info *info, char *server, size_t slen,
		     char *path, size_t plen)
{
	const struct bench_opts *o = st->o;

	memset(info, 0, sizeof(*info));
	if (o->connect)
		snprintf(server, slen, "remote %s", o->connect);
	else if (o->seed_server)
		snprintf(server, slen, "the seed's loop: while true; do nc -l %s %d </dev/urandom; done", st->host,
			 st->stream_port);
	else
		snprintf(server, slen, "ncpv serve%s on %s (fresh random data%s)", o->tls ? " --tls" : "",
			 st->host, o->tests & BENCH_FILES ? "; --size for files" : "");
	if (o->link)
		snprintf(path, plen, "link %s between two network namespaces (%s, ncpv's delay line)", o->link,
			 link_devices(&st->link));
	else
		snprintf(path, plen, "%s", o->connect ? "network" : "loopback");
	/* The sockets count what TCP carries: TLS records, 22 bytes over the plaintext per 16 KiB. */
	if (o->tls && strlen(path) < plen)
		snprintf(path + strlen(path), plen - strlen(path),
			 "; TLS (stream counts TLS records: about 0.13%% above the plaintext)");
	info->version = NCPV_VERSION;
	info->server = server;
	info->path = path;
	info->counting = o->connect || o->seed_server
		? "stream: payload bytes received by the client's TCP sockets (kernel tcpi_bytes_received, read "
		  "with sock_diag every 100 ms); files: wall time from start to exit of each method's command"
		: "stream: payload bytes received by the client's TCP sockets (kernel tcpi_bytes_received, read "
		  "with sock_diag every 100 ms); files: wall time from start to exit of each method's command, "
		  "and downloads the server logged complete";
	info->duration = o->duration;
	info->count = o->count;
	info->size = o->size;
	info->repeat = o->repeat;
	info->alpha = ALPHA;
	info->shuffle = o->shuffle;
	info->seed = o->seed;
	if (o->no_latency)
		info->no_probe = "--no-latency";
	else if (o->connect)
		info->no_probe = "with --connect there is no echo server at the far end";
	else if (probe_interval(o->link ? o->link_bits : 0) < 0)
		info->no_probe = "the link is too slow for the probe to take under 1% of it";
	info->probe_interval = st->probe.interval;
	info->probe_idle = st->probe.idle;
}

/* How long the runs will take, before they start (a 60 s, 8-method, 5-run
 * stream test is 40 minutes: say so). Stream runs last --duration plus the
 * time to the first byte and the stop, after the probe's idle round trips;
 * files runs as long as the methods. */
static void say_estimate(const struct bench_opts *o)
{
	const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
	char missing[64], msg[256];
	size_t ready = 0, n = 0;

	for (size_t i = 0; i < o->nmethods; i++)
		ready += method_missing_tool(&o->methods[i], BENCH_STREAM, path, missing, sizeof(missing)) == 0;
	if (o->tests & BENCH_STREAM) {
		/* The latency probe's idle round trips come before each run. */
		double interval = o->no_latency || o->connect ? -1 : probe_interval(o->link ? o->link_bits : 0);
		double idle = interval > 0 ? probe_idle_seconds(interval) : 0;
		double s = (double)ready * (double)o->repeat * (o->duration + 0.15 + idle);

		/* In the unit people plan with: seconds, minutes, hours, then days. */
		double unit = s >= 2 * 86400 ? 86400 : s >= 2 * 3600 ? 3600 : s >= 120 ? 60 : 1;

		n += (size_t)snprintf(msg, sizeof(msg), "%zu methods x %ld runs: the stream test takes about %.0f %s",
				      ready, o->repeat, s / unit,
				      unit == 86400 ? "days" : unit == 3600 ? "h" : unit == 60 ? "min" : "s");
	}
	if (o->tests & BENCH_FILES && n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, "%s%zu files runs (%llu downloads each) as long as the methods take",
			 n ? ", then " : "", ready * (size_t)o->repeat, (unsigned long long)o->count);
	fprintf(stderr, "ncpv bench: %s\n", msg);
}

/* The environment before any run: the load now, and the versions of the
 * tools of the methods that can run. */
static void collect_env(const struct bench_opts *o, struct bench_env *env, int argc, char **argv)
{
	const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
	char tools[1024] = "", missing[64];
	size_t n = 0;

	for (size_t i = 0; i < o->nmethods; i++) {
		const struct bench_method *m = &o->methods[i];

		if (method_missing_tool(m, o->tests & BENCH_STREAM ? BENCH_STREAM : BENCH_FILES, path, missing,
					sizeof(missing)) == 0 && n < sizeof(tools))
			n += (size_t)snprintf(tools + n, sizeof(tools) - n, " %s%s", m->tools,
					      m->shell && strcmp(m->shell, "bash") == 0 ? " bash" : "");
	}
	if (o->tests & BENCH_FILES && n < sizeof(tools))
		snprintf(tools + n, sizeof(tools) - n, " bash"); /* the files test's loops */
	env_collect(env, argc, argv, tools);
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
	struct bench_state st;
	struct bench_info info;
	struct bench_env env;
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	char server[400], path[200];
	FILE *html = NULL;
	int rc, failed = 0;

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
	collect_env(&o, &env, argc, argv);
	memset(&st, 0, sizeof(st));
	st.o = &o;
	st.server_diag = st.client_diag = -1;
	st.stream_srv.log_fd = st.files_srv.log_fd = -1;
	probe_init(&st.probe);
	st.guard.fd = -1;
	st.tty = isatty(2);
	/* No SA_RESTART: a signal must end the waits so that cleanup runs. */
	cmd_catch_stop(&stop_signal, stops, 3, 0);

	rc = setup(&st);
	if (rc == 0 && !o.quiet)
		say_estimate(&o);
	for (int test = BENCH_STREAM; rc == 0 && test <= BENCH_FILES; test <<= 1) {
		struct bench_test_result *t = &st.tests[st.ntests];

		if (!(o.tests & test))
			continue;
		st.ntests++;
		if (prepare_test(&st, (enum bench_test)test, t) < 0) {
			cmd_error("bench", "out of memory");
			rc = NCPV_EXIT_FAIL;
		} else if (run_test(&st, t) < 0) {
			rc = 128 + (stop_signal ? stop_signal : SIGINT);
		}
		probe_stop(&st.probe); /* after the stream test: its round trips are taken */
	}
	if (stop_signal && rc == 0)
		rc = 128 + stop_signal;
	describe(&st, &info, server, sizeof(server), path, sizeof(path));
	info.env = &env;
	cleanup(&st);
	if (rc == 0) {
		for (size_t k = 0; k < st.ntests; k++)
			for (size_t i = 0; i < st.tests[k].n; i++)
				failed |= st.tests[k].results[i].status == BENCH_FAILED;
		rc = write_reports(&st, &info, html);
		html = NULL;
		if (rc == 0 && failed)
			rc = NCPV_EXIT_FAIL;
	} else if (rc > 128) {
		size_t done = 0;

		if (st.tty && !o.quiet)
			fputs("\r\033[K", stderr);
		cmd_error("bench", "interrupted: stopped the methods and the servers%s", o.link ? ", removed the link" : "");
		/* What finished is still worth reading: the reports, marked partial. */
		for (size_t k = 0; k < st.ntests; k++)
			for (size_t i = 0; i < st.tests[k].n; i++) {
				struct bench_result *r = &st.tests[k].results[i];

				done += r->nruns;
				if (r->nruns == 0 && r->status != BENCH_SKIPPED) {
					/* Not a failure of the method: say it never ran. */
					r->status = BENCH_SKIPPED;
					snprintf(r->reason, sizeof(r->reason), "interrupted before its first run");
				}
			}
		if (done > 0) {
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
	for (size_t k = 0; k < st.ntests; k++)
		bench_results_free(&st.tests[k]);
	return rc;
}
