/* SPDX-License-Identifier: ISC */
/* session.h - the bench's engine, in nc's shape: struct bench_opts in (filled by cmd/bench_opts.c),
 * a stop flag, events out through struct bench_events, an end reason. Setup failures come back
 * in the caller's buffer with a fault the command makes its exit status of. It never prints or
 * exits: the live line, the run lines and the reports are the command's. */
#ifndef NCPV_BENCH_SESSION_H
#define NCPV_BENCH_SESSION_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../addr.h"
#include "env.h"
#include "eta.h"
#include "guard.h"
#include "link.h"
#include "method.h"
#include "probe.h"
#include "report.h"
#include "result.h"
#include "runner.h"
#include "tput.h"

#define MAX_METHODS 32

/* The significance level of every verdict. */
#define BENCH_ALPHA 0.05

/* Everything the command line says; filled once by bench_parse_options. The
 * strings point into argv, which must outlive the struct. */
struct bench_opts {
	int tests;		/* BENCH_STREAM | BENCH_FILES */
	int tests_given;	/* the tests -T named (0 without -T) */
	double duration, timeout;
	uint64_t count, size;
	long repeat;
	const char *only;	/* --methods LIST */
	const char *baseline;
	int seed_server;
	int tls;		/* --tls: the server speaks TLS, and the TLS methods run */
	const char *connect;
	struct addr_spec remote;
	const char *link;
	double link_bits, link_delay, link_loss;
	int json, csv, quiet;
	const char *html;	/* --html FILE, or the default report's name */
	char html_default[64];
	char json_path[4096];	/* the JSON beside the HTML report */
	int no_report;
	int shuffle;		/* random order of methods within each round */
	unsigned seed;		/* its seed, reported */
	int csv_runs;		/* CSV: a row per run */
	int no_latency;		/* --no-latency: no latency probe in the stream test */
	struct bench_method methods[MAX_METHODS];
	size_t nmethods;
	struct tput_opts tput;	/* -T streams,udp: --streams, --rates, --lengths */
};

/* Which run: the test, the method's name and its 1-based repeat. */
struct bench_at {
	enum bench_test test;
	const char *method;
	long repeat;
	double left;	/* seconds of the whole bench left (the plan re-priced by the runs so far) */
};

/*
 * What the engine hands its caller while it runs (any member may be NULL):
 * say: a warning for stderr (the command puts its prefix before it), no newline.
 * start: a run begins.
 * progress: a run's count so far (as runner_progress_fn), about every 100 ms.
 * done: a run ended (run->ok, or run->error says why); not called for a run
 *   that the stop flag cut short.
 */
struct bench_events {
	void (*say)(void *ctx, const char *line);
	void (*start)(void *ctx, const struct bench_at *at);
	void (*progress)(void *ctx, const struct bench_at *at, double elapsed, uint64_t bytes, uint64_t transfers);
	void (*done)(void *ctx, const struct bench_at *at, const struct bench_run *run);
	void *ctx;
};

/* Why bench_setup failed. */
enum bench_fault {
	BENCH_FAULT_NONE = 0,
	BENCH_FAULT_SYSTEM,	/* a system call, the guard or the link */
	BENCH_FAULT_SCRATCH,	/* no scratch directory in $TMPDIR */
	BENCH_FAULT_CONNECT,	/* --connect did not connect: net_error says how */
	BENCH_FAULT_USAGE,	/* --connect's server cannot serve the test -T named, or a bad port */
	BENCH_FAULT_SERVER	/* a server or the latency probe could not start */
};

/* How bench_run ended. */
enum bench_end {
	BENCH_END_DONE = 0,	/* every test ran */
	BENCH_END_STOPPED,	/* *stop was set: the runs done so far are summarized */
	BENCH_END_NOMEM		/* out of memory before a test */
};

/* One bench, from setup to the last run; every member is the engine's, the
 * command reads results, tests and ntests once bench_run has returned. */
struct bench {
	const struct bench_opts *o;	/* borrowed */
	const struct bench_events *ev;	/* borrowed, may be NULL */
	volatile sig_atomic_t *stop;	/* set by the command's signal handler: end now */
	int tests;			/* what runs: o->tests, less files when --connect's server never closes */
	int net_error;			/* BENCH_FAULT_CONNECT: the net_* error */
	struct bench_guard guard;
	struct bench_link link;
	int linked;
	struct bench_server stream_srv, files_srv;
	struct bench_probe probe;	/* stream: the latency probe */
	int server_diag, client_diag;
	char host[ADDR_HOST_MAX];
	int stream_port, files_port;
	char ncpv[4096];
	char scratch[4096];		/* mkdtemp directory for the methods' stderr, in $TMPDIR */
	char log_path[4096 + 16];
	struct bench_test_result results[2];
	size_t ntests;
	struct bench_eta eta;		/* the plan and the runs' durations so far */
	int planned;			/* eta holds the plan */
};

/* The baseline: --baseline, or the seed's nc-pv (openssl's s_client with --tls). */
const char *bench_baseline(const struct bench_opts *o);

/* Start b with nothing running; o, ev and stop are borrowed until bench_free. */
void bench_init(struct bench *b, const struct bench_opts *o, const struct bench_events *ev,
		volatile sig_atomic_t *stop);

/* The environment before any run: the load now, and the versions of the
 * tools of the methods that can run. */
void bench_collect_env(const struct bench_opts *o, struct bench_env *env, int argc, char **argv);

/* The servers (in the link's server namespace when there is one), then the
 * clients' side; with --connect, one reach of the remote server first, so that a
 * wrong address is a clear error and not a table of failed runs. Returns
 * BENCH_FAULT_NONE, or a fault with why in err (bench_close undoes what was made). */
enum bench_fault bench_setup(struct bench *b, char *err, size_t errlen);

/* How long the runs will take, before they start (a 60 s, 8-method, 5-run
 * stream test is 40 minutes: say so), as one sentence into buf: each test's
 * runs priced by the plan (stream: --duration, the latency probe's idle time
 * and the start and stop; files: each method's measured time per download),
 * and the whole. Makes the plan that bench_run re-prices as runs end. */
void bench_estimate(struct bench *b, char *buf, size_t len);

/* Each test of b->tests in turn, every method's run 1, then every method's
 * run 2, ... (shuffled within a round with --shuffle), each summarized. */
enum bench_end bench_run(struct bench *b);

/* The reports' header for what ran; server and path are the caller's buffers it points into. */
void bench_describe(const struct bench *b, struct bench_info *info, char *server, size_t slen, char *path,
		    size_t plen);

/* 1 when a method failed a run. */
int bench_failed(const struct bench *b);

/* After a stop: a method that never ran is marked skipped ("interrupted
 * before its first run"), not failed. Returns the runs done in all. */
size_t bench_mark_interrupted(struct bench *b);

/* Stop the servers, the probe, the link and the guard; remove the scratch
 * directory. Safe to repeat, and from a path after a signal. */
void bench_close(struct bench *b);

/* bench_close, and free the results. */
void bench_free(struct bench *b);

#endif
