/* SPDX-License-Identifier: ISC */
/* get_summary.c - "ncpv get": how a run ended, in words: the exit code of the engine's end
 * reason, and the summaries (one stream, -P's streams, --count's batch) as a line on stderr
 * (through ../transfer.c) and as --json's object. Used by get.c and get_side.c. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "get_report.h"
#include "get_summary.h"
#include "tls_cmd.h"
#include "../json.h"
#include "../transfer.h"
#include "../wrap.h"

/* ---- how a run ended: the exit code ------------------------------------- */

int get_exit_code(enum get_end end, int net_error, int tls_error)
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

/* What the results count: the stream without --omit's start. */
static struct transfer counted(const struct get_result *r)
{
	struct transfer t = { .received = r->bytes - r->omitted_bytes, .seconds = r->seconds - r->omitted_seconds };

	return t;
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

int get_interrupted_upload(const struct get_args *a, enum get_end end, uint64_t bytes, int rc)
{
	static const char *const endless[] = { "random", "zero", "urandom" };
	const char *src = a->run.source;
	struct stat st;
	uint64_t want;

	if (end != GET_END_INTERRUPTED || src == NULL)
		return rc;
	for (size_t i = 0; i < sizeof(endless) / sizeof(endless[0]); i++)
		if (strcmp(src, endless[i]) == 0)
			return rc;
	if (stat(src, &st) < 0 || !S_ISREG(st.st_mode))
		return rc;
	want = (uint64_t)st.st_size; /* what was to be sent: the file, or the -b asked of it */
	if (a->run.max_bytes > 0 && a->run.max_bytes < want)
		want = a->run.max_bytes;
	if (bytes >= want)
		return rc;
	cmd_error("get", "interrupted after %llu of %llu bytes: the server has only part of '%s'",
		  (unsigned long long)bytes, (unsigned long long)want, src);
	return NCPV_EXIT_FAIL;
}

/* The socket as the kernel runs it, and TCP's figures over the transfer, in the JSON summary. */
void get_socket_json(struct json *j, const struct get_result *r)
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

void get_print_summary(const struct get_args *a, const struct get_result *r, enum get_end end)
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
		get_socket_json(&j, r); /* before "ended", which scripts read as the last member */
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

void get_print_parallel(const struct get_args *a, const struct get_result *rs, long n, enum get_end end)
{
	struct get_result sum;
	char line[512], label[24], omit[96] = "";

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
			get_socket_json(&j, &rs[i]);
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
		printf("%s\n", json_text(&j));
		fflush(stdout);
		json_free(&j);
	}
	if (a->quiet)
		return;
	for (long i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%3ld", i + 1);
		stream_text(line, sizeof(line), label, a, &rs[i]);
		fprintf(stderr, "%s\n", line);
	}
	stream_text(line, sizeof(line), "SUM", a, &sum);
	get_report_omit_text(omit, sizeof(omit), a->run.omit, &sum);
	fprintf(stderr, "%s from %s%s%s%s\n", line, rs[0].peer, end == GET_END_INTERRUPTED ? ", interrupted" : "",
		omit[0] ? " " : "", omit);
	if (a->run.sock)
		socket_text(&rs[0]);
}

/* ---- --count ------------------------------------------------------------ */

void get_print_batch(const struct get_args *a, const struct get_batch_result *r)
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
