/* SPDX-License-Identifier: ISC */
/* serve.c - "ncpv serve": options, the log lines and the summary around the
 * connection server (src/server.c), and the signals that stop it. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "tls_cmd.h"
#include "udp_cmd.h"
#include "../addr.h"
#include "../json.h"
#include "../net.h"
#include "../server.h"
#include "../source.h"
#include "../transfer.h"
#include "../units.h"

struct serve_opts {
	struct addr_spec at;
	struct net_opts net;
	const char *source;
	uint64_t size, max_bytes;
	int has_size, discard, quiet, json;
	struct cmd_tls tls;
	long max_conns;
	double max_time, busy_poll;
};

static volatile sig_atomic_t stop_requested;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv serve [OPTION]... [[ADDR:]PORT]\n"
		"Serve data to every client that connects (default 127.0.0.1:" NCPV_DEFAULT_PORT ").\n"
		"Listen on all interfaces only when asked: 0.0.0.0:PORT or [::]:PORT.\n\n"
		"  -S, --source SRC     random (default: fresh, incompressible), urandom, zero,\n"
		"                       or a FILE (sent once; repeated to fill --size)\n"
		"  -s, --size N         send exactly N bytes per connection, then close (K, M, G: IEC)\n"
		"  -d, --discard        receive and count uploads instead of sending\n"
		"  -c, --max-conns N    refuse connections beyond N at once (default 1000)\n"
		"  -t, --max-time SEC   close each connection after SEC seconds\n"
		"  -b, --max-bytes N    close each connection after N bytes\n"
		"      --busy-poll USEC\n"
		"                       while events come this fast, poll instead of sleeping\n"
		"                       (default 50 microseconds; 0: always sleep)\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"      --tls            speak TLS (1.2 or 1.3); without --cert, with a self-signed\n"
		"                       certificate made at start (its SHA-256 fingerprint is printed)\n"
		"      --cert FILE      the certificate (chain) to present, PEM\n"
		"      --key FILE       its private key, PEM (default: in the --cert file)\n"
		"  -q, --quiet          no line per connection\n"
		"  -j, --json           log one JSON object per line\n"
		"  -u, --udp            answer UDP tests (get -u) instead\n"
		"                       (see 'ncpv serve -u --help')\n"
		"  -h, --help           show this help\n\n"
		"SEC is in seconds (2.5), or takes a unit: 500ms, 30s, 1m, 1h.\n"
		"Each connection ends with a line on stderr: the bytes sent (gone to the wire)\n"
		"and, when a reset caught some on their way, how many the client acknowledged;\n"
		"it got between the two. SIGINT or SIGTERM stops the server with a summary.\n"
		"Exit status: 0 stopped by SIGINT or SIGTERM, 1 the event loop failed, 2 bad\n"
		"option, 3 address not resolved, 6 source (or --cert, --key) unreadable,\n"
		"7 cannot listen (address in use, no permission).\n");
}

static enum cmd_parse parse_options(int argc, char **argv, struct serve_opts *o)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 's' },
		{ "discard", no_argument, NULL, 'd' },
		{ "max-conns", required_argument, NULL, 'c' },
		{ "max-time", required_argument, NULL, 't' },
		{ "max-bytes", required_argument, NULL, 'b' },
		{ "busy-poll", required_argument, NULL, OPT_BUSY_POLL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		CMD_TLS_SERVER_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_tail tail = { "serve", usage, &o->net.family, &o->quiet, &o->json, &o->busy_poll };
	enum cmd_parse tailed;
	char err[256];
	int c;

	memset(o, 0, sizeof(*o));
	o->source = "random";
	o->max_conns = 1000;
	o->busy_poll = CMD_BUSY_POLL_SECONDS;
	o->net.family = AF_UNSPEC;
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, ":S:s:dc:t:b:qj46h", longopts, NULL)) != -1) {
		switch (c) {
		case 'S':
			o->source = optarg;
			break;
		case 's':
			if (units_parse_size(optarg, &o->size) < 0)
				return cmd_bad_value("serve", "size", optarg, "expected a byte count such as 4096, 4K, 1.5M");
			o->has_size = 1;
			break;
		case 'd':
			o->discard = 1;
			break;
		case 'c':
			if (units_parse_long(optarg, 1, 1000000, &o->max_conns) < 0)
				return cmd_bad_value("serve", "max-conns", optarg, "expected a number from 1 to 1000000");
			break;
		case 't':
			if (units_parse_seconds(optarg, &o->max_time) < 0 || o->max_time <= 0)
				return cmd_bad_value("serve", "max-time", optarg, "expected seconds greater than 0");
			break;
		case 'b':
			if (units_parse_size(optarg, &o->max_bytes) < 0 || o->max_bytes == 0)
				return cmd_bad_value("serve", "max-bytes", optarg, "expected a byte count greater than 0");
			break;
		default:
			if (cmd_tls_option(&o->tls, c, optarg))
				break;
			if ((tailed = cmd_option_tail(&tail, c, argv)) != CMD_PARSE_RUN)
				return tailed;
		}
	}
	if (cmd_tls_check("serve", &o->tls) != CMD_PARSE_RUN)
		return CMD_PARSE_USAGE;
	if (argc - optind > 1) {
		cmd_error("serve", "too many arguments: '%s' (expected one [ADDR:]PORT)", argv[optind + 1]);
		return CMD_PARSE_USAGE;
	}
	if (o->discard && o->has_size) {
		cmd_error("serve", "--size and --discard conflict: a sink sends nothing");
		return CMD_PARSE_USAGE;
	}
	if (addr_parse(optind < argc ? argv[optind] : NCPV_DEFAULT_PORT, "127.0.0.1", NCPV_DEFAULT_PORT, &o->at,
		       err, sizeof(err)) < 0) {
		cmd_error("serve", "%s", err);
		return CMD_PARSE_USAGE;
	}
	if (o->net.family == AF_INET6 && strcmp(o->at.host, "127.0.0.1") == 0 &&
	    (optind >= argc || strchr(argv[optind], '.') == NULL))
		snprintf(o->at.host, sizeof(o->at.host), "::1");
	if (addr_check_family(o->at.host, o->net.family, err, sizeof(err)) < 0) {
		cmd_error("serve", "%s", err);
		return CMD_PARSE_USAGE;
	}
	return CMD_PARSE_RUN;
}

static void log_close(void *ctx, const struct server_close *c)
{
	const struct serve_opts *o = ctx;
	struct transfer t = { .sent = c->sent, .acked = c->acked, .received = c->received, .seconds = c->seconds };
	char text[256], line[1024];
	struct json j;

	if (o->quiet)
		return;
	if (o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "event", "close");
		json_string(&j, "peer", c->peer);
		json_string(&j, "reason", c->reason);
		json_string(&j, "end", server_end_name(c->end));
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
		char over[160] = "", acked[64] = "";

		if (c->tls) {
			memcpy(over, " over ", 7);
			tls_conn_describe(c->tls, over + 6, sizeof(over) - 6);
		}
		/* Said only while it differs: a reset that caught bytes on their way. */
		if (c->acked < c->sent)
			snprintf(acked, sizeof(acked), "; %llu B of it acknowledged", (unsigned long long)c->acked);
		fprintf(stderr, "ncpv serve: %s %s: %s%s%s\n", c->peer, c->reason,
			transfer_text(text, sizeof(text), &t, TRANSFER_CONNECTION), over, acked);
	}
}

static void log_refuse(void *ctx, const char *peer, const char *why)
{
	const struct serve_opts *o = ctx;
	char line[512];
	struct json j;

	if (o->quiet)
		return;
	if (o->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "event", "refuse");
		json_string(&j, "peer", peer);
		json_string(&j, "reason", why);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
	} else
		fprintf(stderr, "ncpv serve: %s refused: %s\n", peer, why);
}

static void summary(const struct serve_opts *o, const struct server_stats *st, int endless)
{
	char sent[64], recvd[64], line[512];
	const uint64_t *n = st->ended;
	struct json j;
	char tls[96] = "";

	if (o->tls.on)
		snprintf(tls, sizeof(tls), "; TLS: %llu handshakes, kTLS on %llu",
			 (unsigned long long)st->tls_handshakes, (unsigned long long)st->ktls_connections);

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
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		return;
	}
	fprintf(stderr,
		"ncpv serve: stopped after %.1f s: %llu connections (%llu completed, %llu refused; "
		"%llu ended by the client, %llu by a limit, %llu reset or failed, %llu cut short by the server), "
		"sent %s, received %s%s%s\n",
		st->seconds, (unsigned long long)st->accepted, (unsigned long long)n[SERVER_COMPLETE],
		(unsigned long long)st->refused, (unsigned long long)n[SERVER_CLIENT],
		(unsigned long long)n[SERVER_LIMIT], (unsigned long long)n[SERVER_RESET],
		(unsigned long long)n[SERVER_CUT],
		units_format_count(sent, sizeof(sent), st->bytes_sent),
		units_format_count(recvd, sizeof(recvd), st->bytes_received), tls,
		/* Said last, as its own clause, and only when there was a connection to explain. */
		endless && st->accepted > 0 ?
			"; 0 completed because the source is endless: a transfer ends only when its client closes it" :
			"");
}

/* --tls: the certificate's fingerprint, for get --pin. */
static void log_certificate(const struct serve_opts *o, const struct tls_ctx *tls)
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

/* Serve on lfd until SIGINT or SIGTERM; then the summary. */
static int run(struct serve_opts *o, struct source *src, struct tls_ctx *tls, int lfd)
{
	static const int stops[] = { SIGINT, SIGTERM };
	sigset_t block, during_wait;
	char name[128];
	struct json j;
	struct server_opts so = {
		.src = src, .discard = o->discard, .has_size = o->has_size, .size = o->size,
		.max_bytes = o->max_bytes, .max_time = o->max_time, .max_conns = o->max_conns,
		.busy_poll = o->busy_poll, .name_peers = !o->quiet, .wait_mask = &during_wait,
		.tls = tls,
	};
	struct server_stats st;
	struct server *s;
	/* Nothing to complete: each transfer runs until its client ends it. */
	int endless = !o->discard && !o->has_size && source_kind(src) != SOURCE_FILE;

	cmd_catch_stop(&stop_requested, stops, 2, 0);
	/* Block the stop signals except inside epoll_pwait: none is missed. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &during_wait);
	sigdelset(&during_wait, SIGINT);
	sigdelset(&during_wait, SIGTERM);

	s = server_new(&so, lfd, log_close, log_refuse, o);
	if (s == NULL) {
		cmd_error("serve", "event loop: %s", strerror(errno));
		return NCPV_EXIT_FAIL;
	}
	net_local_name(lfd, name, sizeof(name));
	if (o->json) {
		json_init_grow(&j); /* a source path of any length */
		json_object(&j, NULL);
		json_string(&j, "event", "listen");
		json_string(&j, "address", name);
		json_string(&j, "source", o->discard ? "discard" : source_name(src));
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		json_free(&j);
	} else
		fprintf(stderr, "ncpv serve: listening on %s (%s)\n", name,
			o->discard ? "discard" : source_name(src));
	if (tls)
		log_certificate(o, tls);
	if (server_run(s, &stop_requested) < 0) {
		cmd_error("serve", "event loop: %s", strerror(errno));
		server_free(s);
		return NCPV_EXIT_FAIL;
	}
	server_get_stats(s, &st);
	server_free(s);
	summary(o, &st, endless);
	return NCPV_EXIT_OK;
}

enum cmd_parse cmd_serve_parse(int argc, char **argv)
{
	struct serve_opts o;

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_serve_parse(argc, argv);
	return parse_options(argc, argv, &o);
}

int cmd_serve(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct serve_opts o;
	struct source *src = NULL;
	struct tls_ctx *tls = NULL;
	char err[512];
	int rc, lfd;

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_serve(argc, argv);
	if ((parsed = parse_options(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if (!o.discard) {
		src = source_open(o.source, err, sizeof(err));
		if (src == NULL) {
			cmd_error("serve", "%s", err);
			return NCPV_EXIT_FILE;
		}
		if (source_kind(src) == SOURCE_FILE && source_size(src) == 0 && o.has_size && o.size > 0) {
			cmd_error("serve", "source '%s' is empty: it cannot fill --size", o.source);
			source_free(src);
			return NCPV_EXIT_USAGE;
		}
	}
	if (o.tls.on && (tls = cmd_tls_ctx("serve", &o.tls, 1, &rc)) == NULL) {
		source_free(src);
		return rc;
	}
	net_raise_fd_limit();
	lfd = net_listen(o.at.host, o.at.port, &o.net, err, sizeof(err));
	if (lfd < 0) {
		cmd_error("serve", "%s", err);
		tls_ctx_free(tls);
		source_free(src);
		return lfd == NET_ERESOLVE ? NCPV_EXIT_RESOLVE : NCPV_EXIT_LISTEN;
	}
	rc = run(&o, src, tls, lfd);
	close(lfd);
	tls_ctx_free(tls);
	source_free(src);
	return rc;
}
