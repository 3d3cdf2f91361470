/* SPDX-License-Identifier: ISC */
/* get.c - "ncpv get": the progress line, the messages and the exit codes around the engine
 * in ../get/ (one stream, --count's batch, -P's streams); the options are get_opts.c's. */
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
#include "progress.h"
#include "tls_cmd.h"
#include "udp_cmd.h"
#include "../clock.h"
#include "../get/get_engine.h"
#include "../get/get_side.h"
#include "../json.h"
#include "../pv/tty.h"
#include "../net.h"
#include "../transfer.h"
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

/* What the results count: the stream without --omit's start. */
static struct transfer counted(const struct get_result *r)
{
	struct transfer t = { .received = r->bytes - r->omitted_bytes, .seconds = r->seconds - r->omitted_seconds };

	return t;
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

/* ---- how a run ended: the exit code ------------------------------------- */

static int exit_code(enum get_end end, int net_error, int tls_error)
{
	static const int codes[] = {
		[GET_END_EOF] = NCPV_EXIT_OK,	     [GET_END_TIME] = NCPV_EXIT_OK,
		[GET_END_BYTES] = NCPV_EXIT_OK,	     [GET_END_INTERRUPTED] = NCPV_EXIT_OK,
		[GET_END_SHORT] = NCPV_EXIT_FAIL,    [GET_END_FAILED] = NCPV_EXIT_FAIL,
		[GET_END_IDLE] = NCPV_EXIT_TIMEOUT,  [GET_END_FILE] = NCPV_EXIT_FILE,
	};

	if (end == GET_END_NET)
		return cmd_net_exit(net_error);
	if (end == GET_END_TLS)
		return cmd_tls_exit(tls_error);
	return codes[end];
}

/* ---- one stream --------------------------------------------------------- */

FILE *get_json_out(const struct get_args *a)
{
	return a->run.output && strcmp(a->run.output, "-") == 0 ? stderr : stdout;
}

int get_interrupted_output(const struct get_args *a, enum get_end end, uint64_t bytes, int rc)
{
	if (end != GET_END_INTERRUPTED || !a->run.output || a->run.send)
		return rc;
	if (strcmp(a->run.output, "-") == 0)
		cmd_error("get", "interrupted after %llu byte%s: stdout has only part of the download",
			  (unsigned long long)bytes, wrap_s(bytes));
	else
		cmd_error("get", "interrupted after %llu byte%s: '%s' left as it was", (unsigned long long)bytes,
			  wrap_s(bytes), a->run.output);
	return NCPV_EXIT_FAIL;
}

/* The socket as the kernel runs it, and TCP's figures over the transfer, in the JSON summary. */
static void socket_json(struct json *j, const struct get_result *r)
{
	if (r->have_sock) {
		json_object(j, "socket");
		json_string(j, "congestion", r->sock.congestion);
		json_int(j, "sndbuf", r->sock.sndbuf);
		json_int(j, "rcvbuf", r->sock.rcvbuf);
		json_int(j, "mss", r->sock.mss);
		json_bool(j, "nodelay", r->sock.nodelay);
		if (r->sock.tos >= 0)
			json_int(j, "tos", r->sock.tos);
		json_end(j);
	}
	if (r->have_tcp) {
		json_object(j, "tcp");
		json_uint(j, "acked", r->tcp.acked);
		json_uint(j, "received", r->tcp.received);
		json_uint(j, "retrans", r->tcp.retrans);
		json_uint(j, "cwnd", r->tcp.cwnd);
		json_fixed(j, "rtt_ms", r->tcp.rtt_us / 1000.0, 3);
		json_fixed(j, "rttvar_ms", r->tcp.rttvar_us / 1000.0, 3);
		json_end(j);
	}
}

/* With a socket setting asked for: what the kernel granted, on a line of its own. */
static void socket_text(const struct get_result *r)
{
	char tos[32] = "";

	if (!r->have_sock)
		return;
	if (r->sock.tos > 0) /* said only when set: 0 is every socket's default */
		snprintf(tos, sizeof(tos), ", TOS 0x%02x", (unsigned)r->sock.tos);
	fprintf(stderr, "socket: congestion control %s, buffers granted: send %d B, receive %d B, MSS %d%s%s\n",
		r->sock.congestion, r->sock.sndbuf, r->sock.rcvbuf, r->sock.mss, r->sock.nodelay ? ", no-delay" : "",
		tos);
}

static void print_summary(const struct get_args *a, const struct get_result *r, enum get_end end)
{
	const char *dir = a->run.send ? "send" : "receive";
	struct transfer t = counted(r);
	struct transfer_parts p;
	char amount[128], peer[160], line[1024], over[160] = "", omit[96] = "";
	FILE *jf = get_json_out(a);
	struct json j;

	if (a->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		if (a->run.interval > 0)
			json_string(&j, "event", "summary"); /* after the "interval" lines */
		json_string(&j, "direction", dir);
		json_string(&j, "peer", r->peer);
		transfer_json(&j, &t, TRANSFER_ONE_WAY);
		if (a->run.omit > 0)
			get_report_omit_json(&j, r);
		if (a->run.rate > 0)
			json_fixed(&j, "rate_asked_bps", a->run.rate, 0);
		socket_json(&j, r); /* before "ended", which scripts read as the last member */
		json_string(&j, "ended", get_end_name(end));
		if (r->tls)
			cmd_tls_json(&j, r->tls);
		json_end(&j);
		fprintf(jf, "%s\n", json_text(&j));
		fflush(jf);
	}
	if (a->quiet)
		return;
	if (r->tls) {
		memcpy(over, "over ", 6);
		tls_conn_describe(r->tls, over + 5, sizeof(over) - 6);
		if (end == GET_END_INTERRUPTED) {
			size_t n = strlen(over);

			snprintf(over + n, sizeof(over) - n, ",");
		}
	}
	transfer_parts(&p, &t, TRANSFER_ONE_WAY);
	get_report_omit_text(omit, sizeof(omit), a->run.omit, r);
	snprintf(amount, sizeof(amount), "%s %s", a->run.send ? "sent" : "received", p.first);
	snprintf(peer, sizeof(peer), "%s %s%s", a->run.send ? "to" : "from", r->peer,
		 end == GET_END_INTERRUPTED && !r->tls ? "," : "");
	{
		/* Laid out for the terminal (80 columns off one): a line no wider than it. */
		const char *clauses[] = { amount, p.second, peer, over,
					  end == GET_END_INTERRUPTED ? "interrupted" : "", omit };

		fprintf(stderr, "%s\n", wrap_clauses(line, sizeof(line), clauses, 6,
						      cmd_summary_width()));
	}
	if (a->run.sock)
		socket_text(r);
}

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
	int rc = r.sock_refused ? NCPV_EXIT_USAGE : exit_code(end, r.net_error, r.tls_error);

	if (get_end_failed(end) && r.began)
		cmd_error("get", "%s (after %llu byte%s)", err, (unsigned long long)r.bytes, wrap_s(r.bytes));
	else if (get_end_failed(end))
		cmd_error("get", "%s", err);
	else
		print_summary(a, &r, end);
	/* A signal stops a download counted to nowhere as asked, but one kept with -o is not
	 * whole: the engine left FILE as it was, and the status says so (issue 22). */
	rc = get_interrupted_output(a, end, r.bytes, rc);
	if (end == GET_END_SHORT)
		cmd_error("get", "expected %llu byte%s, received %llu", (unsigned long long)a->run.size,
			  wrap_s(a->run.size), (unsigned long long)r.bytes);
	get_result_free(&r);
	return rc;
}

/* ---- --count ------------------------------------------------------------ */

static void print_batch(const struct get_args *a, const struct get_batch_result *r)
{
	const struct stats_summary *lat = &r->latency;
	struct transfer sum = { .received = r->bytes, .seconds = r->seconds, .transfers = r->done };
	struct transfer_parts p;
	char head[64], peer[160], amount[112], latency[96], tail[96] = "", line[1024], tls[128] = "";
	struct json j;

	if (a->run.tls)
		snprintf(tls, sizeof(tls), "TLS: %ld handshake%s, %ld resumed, kTLS on %ld", r->handshakes,
			 wrap_s((unsigned long long)r->handshakes), r->resumed, r->ktls);
	if (a->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "direction", "receive");
		json_string(&j, "peer", r->peer);
		json_int(&j, "transfers", r->done);
		json_int(&j, "failed", r->failed);
		transfer_json(&j, &sum, TRANSFER_BATCH);
		if (r->done > 0) {
			json_object(&j, "latency_ms");
			json_fixed(&j, "p50", lat->median * 1e3, 3);
			json_fixed(&j, "p90", lat->p90 * 1e3, 3);
			json_fixed(&j, "p99", lat->p99 * 1e3, 3);
			json_fixed(&j, "max", lat->max * 1e3, 3);
			json_end(&j);
		} else {
			json_null(&j, "latency_ms"); /* as on stderr: no transfer finished, nothing measured */
		}
		json_int(&j, "cut", r->cut);
		if (a->run.tls) {
			json_object(&j, "tls");
			json_int(&j, "handshakes", r->handshakes);
			json_int(&j, "resumed", r->resumed);
			json_int(&j, "ktls", r->ktls);
			json_end(&j);
		}
		json_end(&j);
		printf("%s\n", json_text(&j));
	}
	fflush(stdout);
	if (a->quiet)
		return;
	snprintf(head, sizeof(head), "%ld transfer%s (%ld failed)", r->done, wrap_s((unsigned long long)r->done),
		 r->failed);
	snprintf(peer, sizeof(peer), "from %s", r->peer);
	transfer_parts(&p, &sum, TRANSFER_BATCH);
	snprintf(amount, sizeof(amount), "%s;", p.second);
	/* No finished transfer, no latency: zeros would read as a measured 0 ms. */
	if (r->done > 0) {
		snprintf(latency, sizeof(latency), "latency ms p50 %.3f p90 %.3f", lat->median * 1e3, lat->p90 * 1e3);
		snprintf(tail, sizeof(tail), "p99 %.3f max %.3f%s", lat->p99 * 1e3, lat->max * 1e3, tls[0] ? ";" : "");
	} else {
		snprintf(latency, sizeof(latency), "no latency: no transfer finished%s", tls[0] ? ";" : "");
	}
	{
		const char *clauses[] = { head, peer, p.first, amount, latency, tail, tls };

		fprintf(stderr, "%s\n", wrap_clauses(line, sizeof(line), clauses, 7,
						      cmd_summary_width()));
	}
}

static int run_batch(const struct get_args *a)
{
	struct view v = { .a = a, .batch = 1 };
	const struct get_events ev = { say, tick, &v };
	struct get_batch_result r;
	char err[512];
	enum get_end end = get_batch(&a->run, &ev, &r, err, sizeof(err));

	if (get_end_failed(end)) {
		cmd_error("get", "%s", err);
		return exit_code(end, r.net_error, r.tls_error);
	}
	print_batch(a, &r);
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

static void stream_text(char *line, size_t len, const char *label, const struct get_args *a,
			const struct get_result *r)
{
	struct transfer t = counted(r);
	char text[256], tcp[128] = "";

	if (r->have_tcp)
		snprintf(tcp, sizeof(tcp), "; retrans %u, cwnd %u, rtt %.3f ms", r->tcp.retrans, r->tcp.cwnd,
			 r->tcp.rtt_us / 1000.0);
	snprintf(line, len, "[%s] %s %s%s", label, a->run.send ? "sent" : "received",
		 transfer_text(text, sizeof(text), &t, TRANSFER_ONE_WAY), tcp);
}

static int run_parallel(const struct get_args *a)
{
	long n = a->run.parallel;
	struct get_result *rs = calloc((size_t)n, sizeof(*rs));
	struct get_result sum;
	char err[512], line[512], label[24], omit[96] = "";
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
	memset(&sum, 0, sizeof(sum));
	for (long i = 0; i < n; i++) {
		sum.bytes += rs[i].bytes;
		sum.omitted_bytes += rs[i].omitted_bytes;
		/* The sum's omitted time is the streams' least: a stream that ended inside
		 * --omit counts whole, so the sum cannot leave out more than it did. */
		if (i == 0 || rs[i].omitted_seconds < sum.omitted_seconds)
			sum.omitted_seconds = rs[i].omitted_seconds;
		sum.seconds = rs[i].seconds > sum.seconds ? rs[i].seconds : sum.seconds;
		sum.have_tcp = i == 0 ? rs[i].have_tcp : sum.have_tcp && rs[i].have_tcp;
		tcpstate_interval_add(&sum.tcp, &rs[i].tcp, (unsigned)i);
	}
	rc = rs[0].sock_refused ? NCPV_EXIT_USAGE : exit_code(end, rs[0].net_error, rs[0].tls_error);
	if (get_end_failed(end))
		cmd_error("get", "%s", err);
	else {
		if (a->json) {
			struct json j;
			struct transfer t = counted(&sum);

			json_init_grow(&j);
			json_object(&j, NULL);
			if (a->run.interval > 0)
				json_string(&j, "event", "summary");
			json_string(&j, "direction", a->run.send ? "send" : "receive");
			json_string(&j, "peer", rs[0].peer);
			transfer_json(&j, &t, TRANSFER_ONE_WAY);
			if (a->run.omit > 0)
				get_report_omit_json(&j, &sum);
			if (a->run.rate > 0)
				json_fixed(&j, "rate_asked_bps", a->run.rate, 0);
			json_string(&j, "ended", get_end_name(end));
			json_array(&j, "streams");
			for (long i = 0; i < n; i++) {
				struct transfer ti = counted(&rs[i]);

				json_object(&j, NULL);
				json_int(&j, "stream", i + 1);
				transfer_json(&j, &ti, TRANSFER_ONE_WAY);
				if (a->run.omit > 0)
					get_report_omit_json(&j, &rs[i]);
				socket_json(&j, &rs[i]);
				json_end(&j);
			}
			json_end(&j);
			json_end(&j);
			printf("%s\n", json_text(&j));
			fflush(stdout);
			json_free(&j);
		}
		if (!a->quiet) {
			for (long i = 0; i < n; i++) {
				snprintf(label, sizeof(label), "%3ld", i + 1);
				stream_text(line, sizeof(line), label, a, &rs[i]);
				fprintf(stderr, "%s\n", line);
			}
			stream_text(line, sizeof(line), "SUM", a, &sum);
			get_report_omit_text(omit, sizeof(omit), a->run.omit, &sum);
			fprintf(stderr, "%s from %s%s%s%s\n", line, rs[0].peer,
				end == GET_END_INTERRUPTED ? ", interrupted" : "", omit[0] ? " " : "", omit);
			if (a->run.sock)
				socket_text(&rs[0]);
		}
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

/* ---- for get_side.c: the same summary, JSON pieces and exit codes ------------------------ */

int get_exit_code(enum get_end end, int net_error, int tls_error)
{
	return exit_code(end, net_error, tls_error);
}

void get_print_summary(const struct get_args *a, const struct get_result *r, enum get_end end)
{
	print_summary(a, r, end);
}

void get_socket_json(struct json *j, const struct get_result *r)
{
	socket_json(j, r);
}
