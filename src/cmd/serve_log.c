/* SPDX-License-Identifier: ISC */
/* serve_log.c - what "ncpv serve" writes on stderr: the listening and certificate lines, a line
 * per connection closed or refused, and the summary when it stops (text or -j's JSON). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "serve_cmd.h"
#include "tls_cmd.h"
#include "../json.h"
#include "../net.h"
#include "../server.h"
#include "../source.h"
#include "../tls.h"
#include "../transfer.h"
#include "../units.h"
#include "../wrap.h"

/* A JSON log line's first members, the same for every event about one peer. */
static void event_head(struct json *j, char *line, size_t len, const char *event, const char *peer,
		       const char *reason)
{
	json_init(j, line, len);
	json_object(j, NULL);
	json_string(j, "event", event);
	json_string(j, "peer", peer);
	json_string(j, "reason", reason);
}

void serve_log_close(void *ctx, const struct server_close *c)
{
	const struct serve_opts *o = ctx;
	struct transfer t = { .sent = c->sent, .wire = c->wire, .acked = c->acked, .received = c->received,
			      .seconds = c->seconds };
	char text[256], line[1024];
	struct json j;

	if (o->quiet)
		return;
	if (o->json) {
		event_head(&j, line, sizeof(line), "close", c->peer, c->reason);
		json_string(&j, "end", server_end_name(c->end));
		if (c->side)
			json_string(&j, "side", c->side);
		transfer_json(&j, &t, TRANSFER_CONNECTION);
		if (c->retrans >= 0) {
			json_fixed(&j, "rtt_ms", c->rtt_ms, 3);
			json_int(&j, "retrans", c->retrans);
		}
		if (c->tls)
			cmd_tls_json(&j, c->tls);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
	} else {
		char over[160] = "", why[128] = "", r[32], wire[64] = "";

		/* One record a line, however long: a log is read with grep, a connection by its peer. */
		if (c->tls) {
			memcpy(over, " over ", 7);
			tls_conn_describe(c->tls, over + 6, sizeof(over) - 6);
		}
		/* Two counts that differ say why: what was handed to the kernel against what the
		 * peer acknowledged is what was in flight, or still queued, at the end (and of it,
		 * what had left for the wire). A client that ends an endless stream stops reading
		 * when it chooses (get -b N counts N): what its kernel took but it had not read is
		 * dropped, so its count can be lower still. */
		if (c->acked < c->sent)
			snprintf(why, sizeof(why), "; %s with the rest in flight%s%s",
				 c->end == SERVER_CUT ? "the server cut it" :
				 c->end == SERVER_CLIENT ? "the client closed" : "it ended",
				 c->wire < c->sent ? " or queued" : "",
				 c->end == SERVER_CLIENT ? " and dropped what it had not read" : "");
		else if (c->end == SERVER_CLIENT)
			snprintf(why, sizeof(why), "; the client closed when it chose and dropped what it had not read");
		units_format_iec(r, sizeof(r), transfer_connection_rate(&t));
		if (c->wire < c->sent)
			snprintf(wire, sizeof(wire), " (%llu B of it on the wire)", (unsigned long long)c->wire);
		if (c->acked < c->sent)
			fprintf(stderr, "ncpv serve: %s %s: sent %llu B%s, of which %llu B acknowledged, received %llu B in %.3f s (%s/s)%s%s\n",
				c->peer, c->reason, (unsigned long long)c->sent, wire, (unsigned long long)c->acked,
				(unsigned long long)c->received, c->seconds, r, over, why);
		else
			fprintf(stderr, "ncpv serve: %s %s: %s%s%s\n", c->peer, c->reason,
				transfer_text(text, sizeof(text), &t, TRANSFER_CONNECTION), over, why);
	}
}

void serve_log_refuse(void *ctx, const char *peer, const char *why)
{
	const struct serve_opts *o = ctx;
	char line[512];
	struct json j;

	if (o->quiet)
		return;
	if (o->json) {
		event_head(&j, line, sizeof(line), "refuse", peer, why);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
	} else
		fprintf(stderr, "ncpv serve: %s refused: %s\n", peer, why);
}

void serve_summary(const struct serve_opts *o, const struct server_stats *st, int endless,
		   const struct loop_share *loops, long nloops)
{
	char amount[64], sent[80], recvd[80], line[512], out[1024 + SERVE_MAX_THREADS * 48];
	char per_loops[32] = "", per_conns[16 + SERVE_MAX_THREADS * 24] = "", per_cpu[16 + SERVE_MAX_THREADS * 24] = "";
	char head[96], conns[48], counts[64], client[48], limit[48], reset[48], cut[64];
	/* Said last, as its own clause, and only when there was a connection to explain. */
	const int explain = endless && st->accepted > 0;
	const uint64_t *n = st->ended;
	struct json j;
	char tls[96] = "";

	if (o->tls.on)
		snprintf(tls, sizeof(tls), "TLS: %llu handshake%s, kTLS on %llu",
			 (unsigned long long)st->tls_handshakes, wrap_s(st->tls_handshakes),
			 (unsigned long long)st->ktls_connections);

	if (o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "event", "summary");
		json_uint(&j, "connections", st->accepted);
		json_uint(&j, "completed", n[SERVER_COMPLETE]);
		json_uint(&j, "refused", st->refused);
		json_uint(&j, "sent", st->bytes_sent);
		json_uint(&j, "received", st->bytes_received);
		json_fixed(&j, "seconds", st->seconds, 3);
		json_bool(&j, "endless", endless);
		json_uint(&j, "ended_by_client", n[SERVER_CLIENT]);
		json_uint(&j, "ended_by_limit", n[SERVER_LIMIT]);
		json_uint(&j, "reset", n[SERVER_RESET]);
		json_uint(&j, "cut", n[SERVER_CUT]);
		if (o->tls.on) {
			json_uint(&j, "tls_handshakes", st->tls_handshakes);
			json_uint(&j, "ktls_connections", st->ktls_connections);
		}
		json_fixed(&j, "cpu_seconds", st->cpu_seconds, 3);
		if (nloops > 1) {
			json_array(&j, "loops");
			for (long i = 0; i < nloops; i++) {
				json_object(&j, NULL);
				json_uint(&j, "connections", loops[i].accepted);
				json_uint(&j, "sent", loops[i].sent);
				json_uint(&j, "received", loops[i].received);
				json_fixed(&j, "cpu_seconds", loops[i].cpu_seconds, 3);
				json_end(&j);
			}
			json_end(&j);
		}
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		return;
	}
	if (nloops > 1) {
		/* Three clauses, so that each fits a narrow terminal on its own. */
		size_t at = (size_t)snprintf(per_conns, sizeof(per_conns), "(connections");

		snprintf(per_loops, sizeof(per_loops), "on %ld loops", nloops);
		for (long i = 0; i < nloops && at < sizeof(per_conns); i++)
			at += (size_t)snprintf(per_conns + at, sizeof(per_conns) - at, "%s%llu", i ? "/" : " ",
					       (unsigned long long)loops[i].accepted);
		if (at < sizeof(per_conns))
			snprintf(per_conns + at, sizeof(per_conns) - at, ",");
		at = (size_t)snprintf(per_cpu, sizeof(per_cpu), "cpu");
		for (long i = 0; i < nloops && at < sizeof(per_cpu); i++)
			at += (size_t)snprintf(per_cpu + at, sizeof(per_cpu) - at, "%s%.2f", i ? "/" : " ",
					       loops[i].cpu_seconds);
		if (at < sizeof(per_cpu))
			snprintf(per_cpu + at, sizeof(per_cpu) - at, " s),");
	}
	snprintf(head, sizeof(head), "ncpv serve: stopped after %.1f s:", st->seconds);
	snprintf(conns, sizeof(conns), "%llu connection%s", (unsigned long long)st->accepted, wrap_s(st->accepted));
	snprintf(counts, sizeof(counts), "(%llu completed, %llu refused;", (unsigned long long)n[SERVER_COMPLETE],
		 (unsigned long long)st->refused);
	snprintf(client, sizeof(client), "%llu ended by the client,", (unsigned long long)n[SERVER_CLIENT]);
	snprintf(limit, sizeof(limit), "%llu by a limit,", (unsigned long long)n[SERVER_LIMIT]);
	snprintf(reset, sizeof(reset), "%llu reset or failed,", (unsigned long long)n[SERVER_RESET]);
	snprintf(cut, sizeof(cut), "%llu cut short by the server),", (unsigned long long)n[SERVER_CUT]);
	snprintf(sent, sizeof(sent), "sent %s,", units_format_count(amount, sizeof(amount), st->bytes_sent));
	snprintf(recvd, sizeof(recvd), "received %s%s", units_format_count(amount, sizeof(amount), st->bytes_received),
		 tls[0] || explain ? ";" : "");
	{
		/* Laid out for the terminal (80 columns off one, as in a log); the endless source's
		 * word said last, as its own clause, and only when there was a connection to explain. */
		const char *clauses[] = { head, conns, counts, client, limit, reset, cut, per_loops, per_conns, per_cpu,
					  sent, recvd, tls,
					  explain ? "0 completed because the source is endless:" : "",
					  explain ? "a transfer ends only when its client closes it" : "" };

		fprintf(stderr, "%s\n", wrap_clauses(out, sizeof(out), clauses, sizeof(clauses) / sizeof(clauses[0]),
						      cmd_summary_width()));
	}
}

/* --tls: the certificate's fingerprint, for get --pin. */
void serve_log_certificate(const struct serve_opts *o, const struct tls_ctx *tls)
{
	const char *cert = o->tls.cfg.cert_file ? o->tls.cfg.cert_file : "self-signed";
	char fp[96] = "?";
	struct json j;

	tls_ctx_fingerprint(tls, fp, sizeof(fp));
	if (!o->json) {
		fprintf(stderr, "ncpv serve: TLS certificate %s, SHA-256 fingerprint %s\n", cert, fp);
		return;
	}
	json_init_grow(&j); /* a certificate path of any length */
	json_object(&j, NULL);
	json_string(&j, "event", "tls");
	json_string(&j, "certificate", cert);
	json_string(&j, "sha256", fp);
	json_end(&j);
	fprintf(stderr, "%s\n", json_text(&j));
	json_free(&j);
}

/* The listening line, once, whatever the number of loops. */
void serve_log_listen(const struct serve_opts *o, const struct source *src, int lfd)
{
	char name[128];
	struct json j;

	net_local_name(lfd, name, sizeof(name));
	if (o->json) {
		json_init_grow(&j); /* a source path of any length */
		json_object(&j, NULL);
		json_string(&j, "event", "listen");
		json_string(&j, "address", name);
		json_string(&j, "source", o->discard ? "discard" : source_name(src));
		json_int(&j, "threads", o->threads);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		json_free(&j);
	} else
		fprintf(stderr, "ncpv serve: listening on %s (%s)\n", name,
			o->discard ? "discard" : source_name(src));
}
