/* SPDX-License-Identifier: ISC */
/* session.c - the bench's engine (see session.h): setup of the guard, the link
 * and the servers, the interleaved runs of every method, their summaries,
 * and the teardown. Reports through struct bench_events; never prints. */
#include "session.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcpdiag.h"
#include "../clock.h"
#include "../net.h"
#include "../version.h"

const char *bench_baseline(const struct bench_opts *o)
{
	return o->baseline ? o->baseline : o->tls ? "s_client" : "nc-pv";
}

static const char *search_path(void)
{
	return getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
}

/* A warning for the command to show. */
static void say(const struct bench *b, const char *line)
{
	if (b->ev && b->ev->say)
		b->ev->say(b->ev->ctx, line);
}

void bench_init(struct bench *b, const struct bench_opts *o, const struct bench_events *ev,
		volatile sig_atomic_t *stop)
{
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->ev = ev;
	b->stop = stop;
	b->tests = o->tests;
	b->server_diag = b->client_diag = -1;
	b->stream_srv.log_fd = b->files_srv.log_fd = -1;
	probe_init(&b->probe);
	b->guard.fd = -1;
}

void bench_close(struct bench *b)
{
	runner_stop_server(&b->stream_srv);
	runner_stop_server(&b->files_srv);
	probe_stop(&b->probe);
	if (b->client_diag >= 0 && b->client_diag != b->server_diag)
		close(b->client_diag);
	if (b->server_diag >= 0)
		close(b->server_diag);
	b->client_diag = b->server_diag = -1;
	if (b->linked)
		link_teardown(&b->link);
	b->linked = 0;
	guard_stop(&b->guard);
	if (b->log_path[0])
		unlink(b->log_path);
	if (b->scratch[0])
		rmdir(b->scratch);
	b->scratch[0] = b->log_path[0] = '\0';
}

void bench_free(struct bench *b)
{
	bench_close(b);
	for (size_t k = 0; k < b->ntests; k++)
		bench_results_free(&b->results[k]);
	b->ntests = 0;
}

/* The eta's index of a test. */
static int eta_test(enum bench_test test)
{
	return test == BENCH_STREAM ? 0 : 1;
}

/* Stream runs last --duration plus the time to the first byte and the stop
 * (0.1 s measured on loopback), after the latency probe's idle round trips. */
#define STREAM_RUN_EXTRA 0.15

/* Every run the bench will do, priced by the plan. */
static void plan(struct bench *b)
{
	const struct bench_opts *o = b->o;
	const char *path = search_path();
	char missing[64];

	_Static_assert(MAX_METHODS <= ETA_METHODS, "the eta holds every method");
	eta_init(&b->eta);
	for (int test = BENCH_STREAM; test <= BENCH_FILES; test <<= 1) {
		double interval = o->no_latency || o->connect ? -1 : probe_interval(o->link ? o->link_bits : 0);
		double idle = interval > 0 ? probe_idle_seconds(interval) : 0;

		if (!(b->tests & test))
			continue;
		for (size_t i = 0; i < o->nmethods; i++) {
			const struct bench_method *m = &o->methods[i];
			double guess = o->duration + STREAM_RUN_EXTRA + idle;

			if (method_missing_tool(m, (enum bench_test)test, path, missing, sizeof(missing)))
				continue;
			if (test == BENCH_FILES) {
				guess = eta_files_guess(m->name, (unsigned long long)o->count);
				/* Over the link each download waits a round trip or two and its size at the rate. */
				if (o->link)
					guess += (double)o->count * (2 * o->link_delay + (double)o->size * 8 / o->link_bits);
			}
			eta_plan(&b->eta, eta_test((enum bench_test)test), i, o->repeat, guess);
		}
	}
	b->planned = 1;
}

/* Fill a test's method list: the command each runs, or why it is skipped. */
static int prepare_test(struct bench *b, enum bench_test test, struct bench_test_result *t)
{
	const struct bench_opts *o = b->o;
	char port[16], size[32], count[32], missing[64];
	struct method_vars v = { b->host, port, size, count, b->ncpv };
	const char *path = search_path();

	snprintf(port, sizeof(port), "%d", test == BENCH_STREAM ? b->stream_port : b->files_port);
	snprintf(size, sizeof(size), "%llu", (unsigned long long)o->size);
	snprintf(count, sizeof(count), "%llu", (unsigned long long)o->count);
	t->test = test;
	t->alpha = BENCH_ALPHA;
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
			eta_drop(&b->eta, eta_test(test), i);
			continue;
		}
		r->shell = method_command(m, test, &v, r->command, sizeof(r->command));
		if (r->shell == NULL || method_argv(r->shell, r->command, r->argbuf, sizeof(r->argbuf), r->argv,
						    (int)(sizeof(r->argv) / sizeof(r->argv[0]))) < 0) {
			r->status = BENCH_SKIPPED;
			snprintf(r->reason, sizeof(r->reason), "command too long");
			eta_drop(&b->eta, eta_test(test), i);
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

/* The runner's progress, passed on with the run it is about. */
struct run_progress {
	const struct bench *b;
	struct bench_at at;
	size_t index;	/* the method's, in o->methods */
	double started;	/* the run's start on clock_now(), for the time left */
};

static void on_progress(void *arg, double elapsed, uint64_t bytes, uint64_t transfers)
{
	struct run_progress *p = arg;

	/* Files runs know their share done; stream runs take --duration, priced well already. */
	double share = p->at.test == BENCH_FILES && p->b->o->count > 0 ? (double)transfers / (double)p->b->o->count : -1;

	p->at.left = eta_left(&p->b->eta, eta_test(p->at.test), p->index, clock_now() - p->started, share);
	if (p->b->ev && p->b->ev->progress)
		p->b->ev->progress(p->b->ev->ctx, &p->at, elapsed, bytes, transfers);
}

/* Interleave: every method's run 1, then every method's run 2, ... */
static int run_test(struct bench *b, struct bench_test_result *t)
{
	const struct bench_opts *o = b->o;
	int stream = t->test == BENCH_STREAM;
	struct run_progress now = { .b = b, .at = { .test = t->test } };
	struct runner_ctx ctx = {
		.diag_fd = b->client_diag,
		.port = stream ? b->stream_port : b->files_port,
		.server = o->connect ? NULL : stream ? &b->stream_srv : &b->files_srv,
		.server_diag_fd = b->server_diag,
		.log_path = b->log_path,
		.stop = b->stop,
		.probe = stream && b->probe.ping_pid > 0 ? &b->probe : NULL,
		.progress = on_progress,
		.arg = &now,
	};

	size_t order[MAX_METHODS] = { 0 };
	unsigned rng = o->seed + (unsigned)t->test;

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
			now.at.method = r->method->name;
			now.at.repeat = rep + 1;
			now.index = order[pos];
			now.started = clock_now();
			now.at.left = eta_left(&b->eta, eta_test(t->test), now.index, 0, -1);
			if (b->ev && b->ev->start)
				b->ev->start(b->ev->ctx, &now.at);
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
			if (rc < 0 || *b->stop) {
				finish_test(t);
				return -1;
			}
			eta_done(&b->eta, eta_test(t->test), now.index, clock_now() - now.started);
			now.at.left = eta_left(&b->eta, -1, 0, 0, -1);
			if (b->ev && b->ev->done)
				b->ev->done(b->ev->ctx, &now.at, run);
			if (!run->ok && r->status == BENCH_OK) {
				r->status = BENCH_FAILED;
				snprintf(r->reason, sizeof(r->reason), "%s", run->error);
			}
		}
	}
	finish_test(t);
	return 0;
}

enum bench_end bench_run(struct bench *b)
{
	enum bench_end end = BENCH_END_DONE;

	if (!b->planned)
		plan(b);
	for (int test = BENCH_STREAM; end == BENCH_END_DONE && test <= BENCH_FILES; test <<= 1) {
		struct bench_test_result *t = &b->results[b->ntests];

		if (!(b->tests & test))
			continue;
		b->ntests++;
		if (prepare_test(b, (enum bench_test)test, t) < 0)
			end = BENCH_END_NOMEM;
		else if (run_test(b, t) < 0)
			end = BENCH_END_STOPPED;
		probe_stop(&b->probe); /* after the stream test: its round trips are taken */
	}
	return end;
}

/* Does the server on fd keep sending, far past one download of size bytes,
 * without closing? Reads for at most PROBE_SECONDS. */
#define PROBE_SECONDS 5.0
static int remote_is_endless(const struct bench *b, int fd, uint64_t size)
{
	uint64_t limit = size * 16 > (1u << 20) ? size * 16 : (1u << 20), got = 0;
	double deadline = clock_now() + PROBE_SECONDS;
	char buf[65536];

	while (got <= limit && clock_now() < deadline && !*b->stop) {
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

/* Reach the remote server once before measuring. */
static enum bench_fault check_remote(struct bench *b, char *err, size_t errlen)
{
	const struct bench_opts *o = b->o;
	struct net_opts no = { .timeout_ms = 5000 };
	char why[512], line[1024];
	int fd = net_connect(o->remote.host, o->remote.port, &no, why, sizeof(why));

	if (fd < 0) {
		snprintf(err, errlen, "--connect %s: %s", o->connect, why);
		b->net_error = fd;
		return BENCH_FAULT_CONNECT;
	}
	if ((b->tests & BENCH_FILES) && remote_is_endless(b, fd, o->size)) {
		close(fd);
		if (o->tests_given & BENCH_FILES) {
			snprintf(err, errlen, "--connect %s never closes a download: the files test needs a server that does "
					      "(such as ncpv serve --size 4K there); use -T stream", o->connect);
			return BENCH_FAULT_USAGE;
		}
		snprintf(line, sizeof(line), "--connect %s never closes a download: running the stream test only (the "
			 "files test needs a server such as ncpv serve --size 4K)", o->connect);
		say(b, line);
		b->tests = BENCH_STREAM;
		return check_remote(b, err, errlen);
	}
	close(fd);
	snprintf(b->host, sizeof(b->host), "%s", o->remote.host);
	b->stream_port = b->files_port = addr_parse_port(o->remote.port);
	if (b->stream_port <= 0) {
		snprintf(err, errlen, "--connect %s: the port must be a number", o->connect);
		return BENCH_FAULT_USAGE;
	}
	return BENCH_FAULT_NONE;
}

/* An error with errno's words after it. */
static enum bench_fault fail(enum bench_fault f, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return f;
}

/* The servers at the near end, their port numbers, and the latency probe's echo beside the stream's. */
static enum bench_fault start_servers(struct bench *b, char *err, size_t errlen)
{
	const struct bench_opts *o = b->o;

	if (b->tests & BENCH_STREAM) {
		int fd = o->seed_server ? runner_start_seed_server(&b->stream_srv, b->host, b->server_diag, err, errlen)
					: runner_start_ncpv_server(&b->stream_srv, b->ncpv, b->host, 0, o->tls, err, errlen);

		if (fd < 0)
			return BENCH_FAULT_SERVER;
		b->stream_port = b->stream_srv.port;
		if (!o->no_latency && probe_interval(o->link ? o->link_bits : 0) > 0 &&
		    probe_start_echo(&b->probe, b->host, err, errlen) < 0) {
			size_t n = strlen(err);

			snprintf(err + n, errlen - n, " (--no-latency runs without the probe)");
			return BENCH_FAULT_SERVER;
		}
	}
	if (b->tests & BENCH_FILES) {
		if (runner_start_ncpv_server(&b->files_srv, b->ncpv, b->host, o->size, o->tls, err, errlen) < 0)
			return BENCH_FAULT_SERVER;
		b->files_port = b->files_srv.port;
	}
	return BENCH_FAULT_NONE;
}

enum bench_fault bench_setup(struct bench *b, char *err, size_t errlen)
{
	const struct bench_opts *o = b->o;
	enum bench_fault f;
	const char *tmpdir;
	char why[512];
	ssize_t n = readlink("/proc/self/exe", b->ncpv, sizeof(b->ncpv) - 1);
	int fd;

	if (n <= 0)
		return fail(BENCH_FAULT_SYSTEM, err, errlen, "cannot find this program (/proc/self/exe)");
	b->ncpv[n] = '\0';
	runner_become_subreaper();
	/* Before any child: what a killed bench left, then our own supervisor. */
	if ((fd = guard_sweep()) > 0) {
		snprintf(why, sizeof(why), "killed %d process%s left running by a bench that was killed", fd,
			 fd == 1 ? "" : "es");
		say(b, why);
	}
	if (guard_start(&b->guard, err, errlen) < 0)
		return BENCH_FAULT_SYSTEM;
	/* $TMPDIR as mktemp(1) reads it: unset or empty means /tmp. A name too long
	 * is said so, not reported with whatever errno an earlier call left. */
	tmpdir = getenv("TMPDIR");
	if (tmpdir == NULL || tmpdir[0] == '\0')
		tmpdir = "/tmp";
	errno = ENAMETOOLONG;
	if ((size_t)snprintf(b->scratch, sizeof(b->scratch), "%s/ncpv-bench.XXXXXX", tmpdir) >= sizeof(b->scratch) ||
	    mkdtemp(b->scratch) == NULL) {
		int saved = errno;

		b->scratch[0] = '\0';
		snprintf(why, sizeof(why), "cannot make a scratch directory in '%s'", tmpdir);
		errno = saved;
		return fail(BENCH_FAULT_SCRATCH, err, errlen, why);
	}
	snprintf(b->log_path, sizeof(b->log_path), "%s/method.err", b->scratch);
	if (o->connect) {
		if ((f = check_remote(b, err, errlen)) != BENCH_FAULT_NONE)
			return f;
		if ((b->client_diag = tcpdiag_open()) < 0)
			return fail(BENCH_FAULT_SYSTEM, err, errlen, "cannot read socket counters (sock_diag netlink)");
		return BENCH_FAULT_NONE;
	}
	if (o->link) {
		if (link_setup(&b->link, o->link_bits, o->link_delay, o->link_loss, err, errlen) < 0)
			return BENCH_FAULT_SYSTEM;
		b->linked = 1;
		if (link_enter(&b->link, 0) < 0)
			return fail(BENCH_FAULT_SYSTEM, err, errlen, "cannot enter the server's namespace");
	}
	snprintf(b->host, sizeof(b->host), "%s", o->link ? LINK_SERVER_ADDR : "127.0.0.1");
	if ((b->server_diag = tcpdiag_open()) < 0)
		return fail(BENCH_FAULT_SYSTEM, err, errlen, "cannot read socket counters (sock_diag netlink)");
	if ((f = start_servers(b, err, errlen)) != BENCH_FAULT_NONE)
		return f;
	if (o->link) {
		if (link_enter(&b->link, 1) < 0 || (b->client_diag = tcpdiag_open()) < 0)
			return fail(BENCH_FAULT_SYSTEM, err, errlen, "cannot enter the clients' namespace");
	} else {
		b->client_diag = b->server_diag;
	}
	if (b->probe.echo_pid > 0 &&
	    probe_start_pinger(&b->probe, b->host, probe_interval(o->link ? o->link_bits : 0), why, sizeof(why)) < 0) {
		snprintf(err, errlen, "the latency probe: %s (--no-latency runs without it)", why);
		return BENCH_FAULT_SERVER;
	}
	return BENCH_FAULT_NONE;
}

/* "5 min", "42 s": in the unit people plan with (seconds, minutes, hours, then days). */
static const char *plain_time(char *buf, size_t len, double s)
{
	double unit = s >= 2 * 86400 ? 86400 : s >= 2 * 3600 ? 3600 : s >= 120 ? 60 : 1;

	snprintf(buf, len, "%.0f %s", s / unit, unit == 86400 ? "days" : unit == 3600 ? "h" : unit == 60 ? "min" : "s");
	return buf;
}

void bench_estimate(struct bench *b, char *msg, size_t len)
{
	const struct bench_opts *o = b->o;
	const char *path = search_path();
	char missing[64], stream[32], files[32], all[32];
	size_t ready = 0;

	plan(b);
	msg[0] = '\0';
	if (!(b->tests & (BENCH_STREAM | BENCH_FILES)))
		return; /* only streams or udp: tput_estimate says it */
	for (size_t i = 0; i < o->nmethods; i++)
		ready += method_missing_tool(&o->methods[i], b->tests & BENCH_STREAM ? BENCH_STREAM : BENCH_FILES, path,
					     missing, sizeof(missing)) == 0;
	plain_time(stream, sizeof(stream), eta_planned(&b->eta, 0));
	plain_time(files, sizeof(files), eta_planned(&b->eta, 1));
	plain_time(all, sizeof(all), eta_planned(&b->eta, -1));
	if ((b->tests & (BENCH_STREAM | BENCH_FILES)) == (BENCH_STREAM | BENCH_FILES))
		snprintf(msg, len, "%zu method%s x %ld run%s: the stream test takes about %s, the files test about %s "
			 "(%llu downloads a run): about %s in all", ready, ready == 1 ? "" : "s", o->repeat,
			 o->repeat == 1 ? "" : "s", stream, files, (unsigned long long)o->count, all);
	else if (b->tests & BENCH_STREAM)
		snprintf(msg, len, "%zu method%s x %ld run%s: the stream test takes about %s", ready, ready == 1 ? "" : "s",
			 o->repeat, o->repeat == 1 ? "" : "s", stream);
	else
		snprintf(msg, len, "%zu method%s x %ld run%s: the files test takes about %s (%llu downloads a run)", ready,
			 ready == 1 ? "" : "s", o->repeat, o->repeat == 1 ? "" : "s", files, (unsigned long long)o->count);
}

void bench_collect_env(const struct bench_opts *o, struct bench_env *env, int argc, char **argv)
{
	const char *path = search_path();
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

void bench_describe(const struct bench *b, struct bench_info *info, char *server, size_t slen, char *path,
		    size_t plen)
{
	const struct bench_opts *o = b->o;

	memset(info, 0, sizeof(*info));
	if (o->connect)
		snprintf(server, slen, "remote %s", o->connect);
	else if (o->seed_server)
		snprintf(server, slen, "the seed's loop: while true; do nc -l %s %d </dev/urandom; done", b->host,
			 b->stream_port);
	else
		snprintf(server, slen, "ncpv serve%s on %s (fresh random data%s)", o->tls ? " --tls" : "", b->host,
			 b->tests & BENCH_FILES ? "; --size for files" : "");
	if (o->link)
		snprintf(path, plen, "link %s between two network namespaces (%s, ncpv's delay line)", o->link,
			 link_devices(&b->link));
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
	info->alpha = BENCH_ALPHA;
	info->shuffle = o->shuffle;
	info->seed = o->seed;
	if (o->no_latency)
		info->no_probe = "--no-latency";
	else if (o->connect)
		info->no_probe = "with --connect there is no echo server at the far end";
	else if (probe_interval(o->link ? o->link_bits : 0) < 0)
		info->no_probe = "the link is too slow for the probe to take under 1% of it";
	info->probe_interval = b->probe.interval;
	info->probe_idle = b->probe.idle;
}

int bench_failed(const struct bench *b)
{
	for (size_t k = 0; k < b->ntests; k++)
		for (size_t i = 0; i < b->results[k].n; i++)
			if (b->results[k].results[i].status == BENCH_FAILED)
				return 1;
	return 0;
}

size_t bench_mark_interrupted(struct bench *b)
{
	size_t done = 0;

	for (size_t k = 0; k < b->ntests; k++)
		for (size_t i = 0; i < b->results[k].n; i++) {
			struct bench_result *r = &b->results[k].results[i];

			done += r->nruns;
			if (r->nruns == 0 && r->status != BENCH_SKIPPED) {
				/* Not a failure of the method: say it never ran. */
				r->status = BENCH_SKIPPED;
				snprintf(r->reason, sizeof(r->reason), "interrupted before its first run");
			}
		}
	return done;
}
