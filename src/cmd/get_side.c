/* SPDX-License-Identifier: ISC */
/* get_side.c - "ncpv get --reverse / --bidir / --server-view": the run through the side channel
 * (../get/side.c) and its summary with both ends' figures, on stderr and in --json. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "get_cmd.h"
#include "get_side_iv.h"
#include "get_summary.h"
#include "progress.h"
#include "../json.h"
#include "../transfer.h"
#include "../wrap.h"

/* The progress line of a one-direction run (--bidir shows none, as -P does). */
struct side_view {
	const struct get_args *a;
	struct progress p;
};

static void side_say(void *ctx, const char *line)
{
	struct side_view *v = ctx;

	if (v->a->quiet)
		return;
	if (v->p.shown)
		fputc('\n', stderr);
	cmd_error("get", "%s", line);
}

static double side_tick(void *ctx, const struct get_totals *t, enum get_tick when, double now)
{
	struct side_view *v = ctx;
	const struct get_args *a = v->a;

	if (when == GET_TICK_START) {
		/* With -i the table scrolls instead (serve's lines come from another thread). */
		progress_init(&v->p, !a->quiet && a->run.interval <= 0 && (a->force || isatty(STDERR_FILENO)),
			      a->interval, t->size,
			      t->start);
		return v->p.show ? v->p.next : 0;
	}
	v->p.meter.bytes = t->bytes;
	if (when == GET_TICK_LIVE) {
		progress_tick(&v->p, now);
		return v->p.show ? v->p.next : 0;
	}
	if (v->p.shown || (v->p.show && when == GET_TICK_END))
		progress_draw(&v->p, now, 1);
	return 0;
}

/* serve's view of one connection, as its end line gave it. */
static void server_json(struct json *j, const struct get_side_dir *d)
{
	const struct side_report *s = &d->server;

	if (!d->have_server) {
		json_null(j, "server"); /* its end line did not come within -w */
		return;
	}
	json_object(j, "server");
	json_uint(j, "sent", s->sent);
	json_uint(j, "acked", s->acked);
	json_uint(j, "received", s->received);
	json_uint(j, "retrans", s->retrans);
	json_uint(j, "cwnd", s->cwnd);
	json_fixed(j, "rtt_ms", s->rtt_us / 1000.0, 3);
	json_fixed(j, "rttvar_ms", s->rttvar_us / 1000.0, 3);
	json_uint(j, "pacing", s->pacing);
	json_uint(j, "delivery", s->delivery);
	d->have_size ? json_uint(j, "size", d->size) : json_null(j, "size"); /* its answer's size= */
	json_end(j);
}

/* serve's view of one direction, as clauses laid out for the terminal (80 columns off one). */
static void server_text(char *out, size_t len, const struct get_side_dir *d, int upload)
{
	const struct side_report *s = &d->server;
	char a[64], b[64], c[64], e[64];
	const char *clauses[] = { a, b, c, e };

	if (d->no_session) {
		snprintf(out, len, "server: no figures (it closed before the side channel's hello)");
		return;
	}
	if (!d->have_server) {
		snprintf(out, len, "server: no figures (its end line did not come within -w)");
		return;
	}
	if (upload) {
		snprintf(a, sizeof(a), "server: received %llu B;", (unsigned long long)s->received);
		snprintf(b, sizeof(b), "its TCP: rtt %.3f ms", s->rtt_us / 1000.0);
		c[0] = e[0] = '\0';
	} else {
		snprintf(a, sizeof(a), "server: sent %llu B,", (unsigned long long)s->sent);
		snprintf(b, sizeof(b), "%llu B acknowledged;", (unsigned long long)s->acked);
		snprintf(c, sizeof(c), "retrans %llu, cwnd %llu,", (unsigned long long)s->retrans,
			 (unsigned long long)s->cwnd);
		snprintf(e, sizeof(e), "rtt %.3f ms (rttvar %.3f)", s->rtt_us / 1000.0, s->rttvar_us / 1000.0);
	}
	wrap_clauses(out, len, clauses, 4, cmd_summary_width());
}

/* One direction's JSON members: this end's count, the socket, serve's view, how it ended. */
static void dir_json(struct json *j, const struct get_side_dir *d, int upload)
{
	struct transfer t = { .received = d->r.bytes, .seconds = d->r.seconds };

	json_string(j, "direction", upload ? "send" : "receive");
	transfer_json(j, &t, TRANSFER_ONE_WAY);
	get_socket_json(j, &d->r);
	server_json(j, d);
	json_string(j, "ended", get_end_failed(d->end) ? "failed" : get_end_name(d->end));
}

static void print_one(const struct get_args *a, const struct get_side_dir *d, int upload, enum get_end end)
{
	struct get_args shown = *a;
	char line[512];

	if (a->json) {
		struct json j;

		json_init_grow(&j);
		json_object(&j, NULL);
		if (a->run.interval > 0)
			json_string(&j, "event", "summary"); /* after the "interval" lines */
		json_string(&j, "peer", d->r.peer);
		dir_json(&j, d, upload);
		json_end(&j);
		fprintf(get_json_out(a), "%s\n", json_text(&j)); /* stderr with -o -: stdout is the data */
		fflush(get_json_out(a));
		json_free(&j);
	}
	if (a->quiet)
		return;
	shown.json = 0;
	shown.run.send = upload;
	get_print_summary(&shown, &d->r, end);
	server_text(line, sizeof(line), d, upload);
	fprintf(stderr, "%s\n", line);
}

static void print_bidir(const struct get_args *a, const struct get_side_result *r, enum get_end end)
{
	const struct get_side_dir *dirs[2] = { &r->down, &r->up };

	if (a->json) {
		struct json j;

		json_init_grow(&j);
		json_object(&j, NULL);
		if (a->run.interval > 0)
			json_string(&j, "event", "summary");
		json_string(&j, "direction", "bidir");
		json_string(&j, "peer", r->peer);
		json_array(&j, "streams");
		for (int i = 0; i < 2; i++) {
			json_object(&j, NULL);
			dir_json(&j, dirs[i], i);
			json_end(&j);
		}
		json_end(&j);
		json_string(&j, "ended", get_end_name(end));
		json_end(&j);
		fprintf(get_json_out(a), "%s\n", json_text(&j));
		fflush(get_json_out(a));
		json_free(&j);
	}
	if (a->quiet)
		return;
	for (int i = 0; i < 2; i++) {
		struct transfer t = { .received = dirs[i]->r.bytes, .seconds = dirs[i]->r.seconds };
		struct transfer_parts p;
		char head[160], peer[96], line[512], server[512];
		const char *clauses[] = { head, p.second, peer };

		/* Each direction: this end's count, then serve's, each laid out for the terminal. */
		transfer_parts(&p, &t, TRANSFER_ONE_WAY);
		snprintf(head, sizeof(head), "[%s] %s %s", i ? "up" : "down", i ? "sent" : "received", p.first);
		snprintf(peer, sizeof(peer), "%s %s", i ? "to" : "from", r->peer);
		server_text(server, sizeof(server), dirs[i], i);
		fprintf(stderr, "%s\n%s\n", wrap_clauses(line, sizeof(line), clauses, 3, cmd_summary_width()), server);
	}
}

int get_side_command(const struct get_args *a)
{
	enum get_side_mode mode = (enum get_side_mode)(a->side - 1);
	struct side_view v = { .a = a };
	const struct get_events ev = { side_say, side_tick, &v };
	struct get_side_result r = { 0 };
	char err[1024] = "";
	struct get_opts o = a->run;
	struct get_report rp = { .json = a->json, .quiet = a->quiet, .text_out = stderr,
				 .json_out = get_json_out(a) };
	struct side_iv iv;
	const struct get_interval_out out = { side_iv_get, &iv };
	const struct get_side_events sev = { side_iv_server, &iv };
	/* -i: serve reports every SEC too (its iv lines), shown beside get's own. */
	unsigned interval_ms = o.interval > 0 ? (unsigned)(o.interval * 1000 + 0.5) : 0;
	const struct get_side_dir *one = mode == GET_SIDE_REVERSE ? &r.up : &r.down;
	enum get_end end;
	int rc;

	side_iv_init(&iv, &rp, mode == GET_SIDE_BIDIR, mode == GET_SIDE_REVERSE);
	o.interval_out = interval_ms ? &out : NULL;
	end = get_side_run(&o, mode, interval_ms, &ev, interval_ms ? &sev : NULL, &r, err, sizeof(err));
	side_iv_flush(&iv);
	side_iv_free(&iv);

	/* A signal during the session's opening: no data connection, but the summary names serve
	 * and ends as the run did (a direction that never ran would say "eof"). */
	struct get_side_dir *dirs[2] = { &r.down, &r.up };

	for (int i = 0; i < 2; i++) {
		if (!dirs[i]->r.peer[0])
			memcpy(dirs[i]->r.peer, r.peer, sizeof(r.peer));
		if (!dirs[i]->ran)
			dirs[i]->end = end;
	}
	if (end == GET_END_NET)
		rc = cmd_net_exit(r.net_error);
	else
		rc = one->r.sock_refused ? NCPV_EXIT_USAGE : get_exit_code(end, one->r.net_error, one->r.tls_error);
	if (get_end_failed(end))
		cmd_error("get", "%s", err);
	else if (mode == GET_SIDE_BIDIR)
		print_bidir(a, &r, end);
	else
		print_one(a, one, mode == GET_SIDE_REVERSE, end);
	/* As a plain get: a download kept with -o and cut by a signal is not whole (its FILE left
	 * as it was by the engine), and the status says so. */
	if (mode != GET_SIDE_REVERSE)
		rc = get_interrupted_output(a, end, r.down.r.bytes, rc);
	else
		rc = get_interrupted_upload(a, end, one->r.bytes, rc);
	if (end == GET_END_SHORT)
		cmd_error("get", "expected %llu byte%s, received %llu", (unsigned long long)a->run.size,
			  wrap_s(a->run.size), (unsigned long long)r.down.r.bytes);
	get_side_free(&r);
	return rc;
}
