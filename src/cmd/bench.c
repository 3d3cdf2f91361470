/* SPDX-License-Identifier: ISC */
/* bench.c - "ncpv bench": the seed's experiment answered with evidence. Runs
 * every download method against one server, interleaved and repeated, counts
 * bytes at one point for all of them, and reports medians, spread, ratios to
 * a baseline and whether each difference beats run-to-run spread. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../addr.h"
#include "../clock.h"
#include "../display.h"
#include "../loop.h"
#include "../net.h"
#include "../units.h"
#include "../bench/guard.h"
#include "../bench/link.h"
#include "../bench/method.h"
#include "../bench/report.h"
#include "../bench/result.h"
#include "../bench/runner.h"
#include "../bench/tcpdiag.h"

#define MAX_METHODS 32
#define ALPHA 0.05
/* Exit status after SIGINT, SIGTERM or SIGHUP: 128 + the signal, as shells do. */

struct bench_opts {
	int tests;		/* BENCH_STREAM | BENCH_FILES */
	int tests_given;
	double duration, timeout;
	uint64_t count, size;
	long repeat;
	const char *only;	/* --methods LIST */
	const char *baseline;
	int seed_server;
	const char *connect;
	struct addr_spec remote;
	const char *link;
	double link_bits, link_delay, link_loss;
	int json, csv, quiet;
	const char *html;
	struct bench_method methods[MAX_METHODS];
	size_t nmethods;
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv bench [OPTION]...\n"
		"Compare ways of downloading over TCP: side by side, interleaved, repeated,\n"
		"counted at one point for all, with medians, spread and a significance test.\n\n"
		"  -T, --test LIST        stream, files, or stream,files (default both)\n"
		"  -d, --duration SEC     stream: seconds per run (default 2; the seed used 60)\n"
		"  -n, --count N          files: downloads per run (default 200)\n"
		"  -s, --size N           files: bytes per download (default 4K)\n"
		"  -r, --repeat N         runs per method, interleaved A B C A B C (default 5)\n"
		"  -M, --methods LIST     only these methods, comma-separated (default all)\n"
		"  -m, --method NAME=CMD  add a method: a sh command with {host} {port}\n"
		"                         ({size}, {count}, {ncpv} too); repeatable\n"
		"  -b, --baseline NAME    compare with NAME (default nc-pv, the seed's)\n"
		"  -S, --server KIND      ncpv (default: ncpv serve) or seed (its nc -l loop)\n"
		"  -c, --connect HOST:PORT  measure a remote server instead of loopback\n"
		"  -l, --link RATE[,RTT[,LOSS]]\n"
		"                         server and clients at the two ends of an emulated\n"
		"                         link (ncpv link's), e.g. 94mbit or 94mbit,20ms,1%%\n"
		"      --timeout SEC      files: give up on a run after SEC (default 300)\n"
		"  -j, --json             JSON on stdout instead of the table\n"
		"      --csv              CSV on stdout instead of the table\n"
		"      --html FILE        also write a self-contained HTML report with charts\n"
		"  -q, --quiet            no live progress line on stderr\n"
		"  -h, --help             show this help\n\n"
		"Methods: ncpv, nc-pv and pv-devtcp (the seed's two), nc, cat-devtcp,\n"
		"bash-read (no process per file), socat, ncat; one whose tool is missing\n"
		"is skipped with the reason. Exit: 0 done, 1 a run failed, 2 bad usage,\n"
		"3-5 --connect failed, 6 --html not written, 7 no server, 128+N signal N.\n");
}

static enum cmd_parse bad(const char *option, const char *arg, const char *reason)
{
	return cmd_bad_value("bench", option, arg, reason);
}

static int parse_tests(const char *s, int *tests)
{
	char copy[64], *save = NULL;

	*tests = 0;
	snprintf(copy, sizeof(copy), "%s", s);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "stream") == 0)
			*tests |= BENCH_STREAM;
		else if (strcmp(t, "files") == 0)
			*tests |= BENCH_FILES;
		else if (strcmp(t, "all") == 0)
			*tests |= BENCH_STREAM | BENCH_FILES;
		else
			return -1;
	}
	return *tests ? 0 : -1;
}

static enum cmd_parse parse_options(int argc, char **argv, struct bench_opts *o)
{
	enum { OPT_TIMEOUT = 256, OPT_CSV, OPT_HTML };
	static const struct option longopts[] = {
		{ "test", required_argument, NULL, 'T' }, { "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' }, { "size", required_argument, NULL, 's' },
		{ "repeat", required_argument, NULL, 'r' }, { "methods", required_argument, NULL, 'M' },
		{ "method", required_argument, NULL, 'm' }, { "baseline", required_argument, NULL, 'b' },
		{ "server", required_argument, NULL, 'S' }, { "connect", required_argument, NULL, 'c' },
		{ "link", required_argument, NULL, 'l' }, { "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", no_argument, NULL, 'j' }, { "csv", no_argument, NULL, OPT_CSV },
		{ "html", required_argument, NULL, OPT_HTML }, { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	char err[256];
	long n;
	int c;

	memset(o, 0, sizeof(*o));
	o->tests = BENCH_STREAM | BENCH_FILES;
	/* Short by default (about 3 minutes with every tool installed), since
	 * `make bench` is the first thing a newcomer runs; the seed used -d 60. */
	o->duration = 2;
	o->timeout = 300;
	o->count = 200;
	o->size = 4096;
	o->repeat = 5;
	o->nmethods = method_builtins(o->methods, MAX_METHODS);
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, ":T:d:n:s:r:M:m:b:S:c:l:jqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (parse_tests(optarg, &o->tests) < 0)
				return bad("test", optarg, "expected stream, files or stream,files");
			o->tests_given = 1;
			break;
		case 'd':
			if (units_parse_seconds(optarg, &o->duration) < 0 || o->duration < 0.1 || o->duration > 86400)
				return bad("duration", optarg, "expected seconds from 0.1 to 86400, such as 5 or 60");
			break;
		case 'n':
			if (units_parse_long(optarg, 1, 10000000, &n) < 0)
				return bad("count", optarg, "expected a number of downloads from 1 to 10000000");
			o->count = (uint64_t)n;
			break;
		case 's':
			if (units_parse_size(optarg, &o->size) < 0 || o->size == 0 || o->size > (1ull << 40))
				return bad("size", optarg, "expected a byte count such as 4096 or 4K, above 0");
			break;
		case 'r':
			if (units_parse_long(optarg, 1, 1000, &o->repeat) < 0)
				return bad("repeat", optarg, "expected a number of runs from 1 to 1000");
			break;
		case 'M':
			o->only = optarg;
			break;
		case 'm':
			if (o->nmethods >= MAX_METHODS) {
				cmd_error("bench", "too many methods (at most %d)", MAX_METHODS);
				return CMD_PARSE_USAGE;
			}
			if (method_parse_user(optarg, &o->methods[o->nmethods], err, sizeof(err)) < 0) {
				cmd_error("bench", "%s", err);
				return CMD_PARSE_USAGE;
			}
			for (size_t i = 0; i < o->nmethods; i++)
				if (strcmp(o->methods[i].name, o->methods[o->nmethods].name) == 0) {
					cmd_error("bench", "method '%s' already exists: pick another name",
						  o->methods[i].name);
					return CMD_PARSE_USAGE;
				}
			o->nmethods++;
			break;
		case 'b':
			o->baseline = optarg;
			break;
		case 'S':
			if (strcmp(optarg, "seed") != 0 && strcmp(optarg, "ncpv") != 0)
				return bad("server", optarg, "expected ncpv or seed");
			o->seed_server = strcmp(optarg, "seed") == 0;
			break;
		case 'c':
			o->connect = optarg;
			if (addr_parse(optarg, NULL, NULL, &o->remote, err, sizeof(err)) < 0 ||
			    o->remote.host[0] == '\0' || o->remote.port[0] == '\0')
				return bad("connect", optarg, "expected HOST:PORT");
			break;
		case 'l':
			o->link = optarg;
			if (link_parse(optarg, &o->link_bits, &o->link_delay, &o->link_loss, err, sizeof(err)) < 0)
				return bad("link", optarg, err);
			break;
		case OPT_TIMEOUT:
			if (units_parse_seconds(optarg, &o->timeout) < 0 || o->timeout <= 0)
				return bad("timeout", optarg, "expected seconds greater than 0");
			break;
		case 'j':
			o->json = 1;
			break;
		case OPT_CSV:
			o->csv = 1;
			break;
		case OPT_HTML:
			o->html = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return CMD_PARSE_DONE;
		case ':':
			return cmd_missing_argument("bench", optopt, argv[optind - 1]);
		default:
			return cmd_bad_option("bench", optopt, optopt ? NULL : argv[optind - 1]);
		}
	}
	if (optind < argc) {
		cmd_error("bench", "unexpected argument '%s' (bench takes options only)", argv[optind]);
		return CMD_PARSE_USAGE;
	}
	if (o->json && o->csv) {
		cmd_error("bench", "--json and --csv conflict: pick one for stdout");
		return CMD_PARSE_USAGE;
	}
	if (o->connect && (o->link || o->seed_server)) {
		cmd_error("bench", "--connect measures a remote server: it conflicts with %s",
			  o->link ? "--link" : "--server seed");
		return CMD_PARSE_USAGE;
	}
	if (o->seed_server) {
		if (o->tests_given && (o->tests & BENCH_FILES)) {
			cmd_error("bench", "--server seed sends one endless stream: it cannot serve the files test");
			return CMD_PARSE_USAGE;
		}
		o->tests = BENCH_STREAM;
	}
	return CMD_PARSE_RUN;
}

/* Apply --methods: keep only the named methods, in the order named. */
static int select_methods(struct bench_opts *o)
{
	struct bench_method keep[MAX_METHODS];
	char copy[1024], *save = NULL, known[MAX_METHODS * (METHOD_NAME_MAX + 1)] = "";
	size_t n = 0;

	for (size_t i = 0; i < o->nmethods; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", i ? ", " : "",
			 o->methods[i].name);
	if (o->baseline) {
		size_t i = 0;

		while (i < o->nmethods && strcmp(o->methods[i].name, o->baseline) != 0)
			i++;
		if (i == o->nmethods) {
			cmd_error("bench", "unknown baseline method '%s' (known: %s)", o->baseline, known);
			return NCPV_EXIT_USAGE;
		}
	}
	if (o->only == NULL)
		return 0;
	snprintf(copy, sizeof(copy), "%s", o->only);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < o->nmethods && strcmp(o->methods[i].name, t) != 0)
			i++;
		if (i == o->nmethods) {
			cmd_error("bench", "unknown method '%s' (known: %s)", t, known);
			return NCPV_EXIT_USAGE;
		}
		for (size_t k = 0; k < n; k++)
			if (strcmp(keep[k].name, t) == 0) {
				cmd_error("bench", "method '%s' is named twice in --methods", t);
				return NCPV_EXIT_USAGE;
			}
		keep[n++] = o->methods[i];
	}
	if (n == 0) {
		cmd_error("bench", "--methods names no method (known: %s)", known);
		return NCPV_EXIT_USAGE;
	}
	memcpy(o->methods, keep, n * sizeof(keep[0]));
	o->nmethods = n;
	return 0;
}

/* Everything that must be undone on every way out. */
struct bench_state {
	struct bench_opts *o;
	struct bench_guard guard;
	struct bench_link link;
	int linked;
	struct bench_server stream_srv, files_srv;
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
		if (strcmp(m->name, o->baseline ? o->baseline : "nc-pv") == 0)
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
		.progress = on_progress,
		.arg = st,
	};

	st->cur_test = bench_test_name(t->test);
	for (long rep = 0; rep < o->repeat; rep++)
		for (size_t i = 0; i < t->n; i++) {
			struct bench_result *r = &t->results[i];
			struct bench_run *run;
			int rc;

			if (r->status == BENCH_SKIPPED)
				continue;
			run = &r->runs[rep];
			st->cur_method = r->method->name;
			st->cur_repeat = rep + 1;
			st->last_draw = 0;
			if (stream)
				rc = runner_stream(&ctx, r->argv, o->duration, run);
			else
				rc = runner_files(&ctx, r->argv, o->count, o->size, o->timeout, run);
			r->nruns = (size_t)rep + 1;
			if (rc < 0 || stop_signal)
				return -1;
			run_done(st, t->test, run);
			if (!run->ok && r->status == BENCH_OK) {
				r->status = BENCH_FAILED;
				snprintf(r->reason, sizeof(r->reason), "%s", run->error);
			}
		}
	/* No baseline ran: compare with the first method that did. */
	if (t->baseline >= t->n || t->results[t->baseline].status == BENCH_SKIPPED)
		for (t->baseline = 0; t->baseline < t->n; t->baseline++)
			if (t->results[t->baseline].status != BENCH_SKIPPED)
				break;
	bench_summarize(t);
	return 0;
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
				    : runner_start_ncpv_server(&st->stream_srv, st->ncpv, st->host, 0, err, sizeof(err));
		if (fd < 0) {
			cmd_error("bench", "%s", err);
			return NCPV_EXIT_LISTEN;
		}
		st->stream_port = st->stream_srv.port;
	}
	if (o->tests & BENCH_FILES) {
		if (runner_start_ncpv_server(&st->files_srv, st->ncpv, st->host, o->size, err, sizeof(err)) < 0) {
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
	return 0;
}

/* html is the --html file, opened before the runs (NULL without --html); closed here. */
static int write_reports(struct bench_state *st, const struct bench_info *info, FILE *html)
{
	const struct bench_opts *o = st->o;
	int rc = NCPV_EXIT_OK;

	if (html != NULL && (report_html(html, info, st->tests, st->ntests) < 0 || fclose(html) != 0)) {
		cmd_error("bench", "cannot write %s: %s", o->html, strerror(errno));
		rc = NCPV_EXIT_FILE;
	}
	if (o->json)
		report_json(stdout, info, st->tests, st->ntests);
	else if (o->csv)
		report_csv(stdout, info, st->tests, st->ntests);
	else
		report_text(stdout, info, st->tests, st->ntests);
	if (fflush(stdout) != 0)
		rc = NCPV_EXIT_FAIL;
	return rc;
}

static void describe(const struct bench_state *st, struct bench_info *info, char *server, size_t slen,
		     char *path, size_t plen)
{
	const struct bench_opts *o = st->o;

	if (o->connect)
		snprintf(server, slen, "remote %s", o->connect);
	else if (o->seed_server)
		snprintf(server, slen, "the seed's loop: while true; do nc -l %s %d </dev/urandom; done", st->host,
			 st->stream_port);
	else
		snprintf(server, slen, "ncpv serve on %s (fresh random data%s)", st->host,
			 o->tests & BENCH_FILES ? "; --size for files" : "");
	if (o->link)
		snprintf(path, plen, "link %s between two network namespaces (%s, ncpv's delay line)", o->link,
			 link_devices(&st->link));
	else
		snprintf(path, plen, "%s", o->connect ? "network" : "loopback");
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
}

enum cmd_parse cmd_bench_parse(int argc, char **argv)
{
	struct bench_opts o;

	return parse_options(argc, argv, &o);
}

int cmd_bench(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct bench_opts o;
	struct bench_state st;
	struct bench_info info;
	struct sigaction sa;
	char server[400], path[200];
	FILE *html = NULL;
	int rc, failed = 0;

	if ((parsed = parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if ((rc = select_methods(&o)) != 0)
		return rc;
	/* Find out now, not after minutes of runs, that the report cannot be written. */
	if (o.html && (html = fopen(o.html, "we")) == NULL) {
		cmd_error("bench", "cannot write %s: %s", o.html, strerror(errno));
		return NCPV_EXIT_FILE;
	}
	memset(&st, 0, sizeof(st));
	st.o = &o;
	st.server_diag = st.client_diag = -1;
	st.stream_srv.log_fd = st.files_srv.log_fd = -1;
	st.guard.fd = -1;
	st.tty = isatty(2);
	/* No SA_RESTART: a signal must end the waits so that cleanup runs. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	rc = setup(&st);
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
	}
	if (stop_signal && rc == 0)
		rc = 128 + stop_signal;
	describe(&st, &info, server, sizeof(server), path, sizeof(path));
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
		if (st.tty && !o.quiet)
			fputs("\r\033[K", stderr);
		cmd_error("bench", "interrupted: stopped the methods and the servers%s", o.link ? ", removed the link" : "");
	}
	if (html != NULL)
		fclose(html);
	for (size_t k = 0; k < st.ntests; k++)
		bench_results_free(&st.tests[k]);
	return rc;
}
