/* SPDX-License-Identifier: ISC */
/* udp_serve.c - "ncpv serve -u": options, signals, and the lines and JSON the UDP server's flows
 * and counts become (the engine is src/udp/server.c). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "udp_cmd.h"
#include "../addr.h"
#include "../json.h"
#include "../net.h"
#include "../units.h"
#include "../udp/pace.h"
#include "../udp/udp.h"

#define OPT_MAX_TESTS 303
#define OPT_MAX_RATE 304
#define OPT_IDLE 305

static volatile sig_atomic_t signalled;
static const int stops[] = { SIGINT, SIGTERM };

struct serve_udp {
	struct udp_server_opts s;
	struct addr_spec at;
	int json, quiet;
};

static void serve_usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv serve -u [OPTION]... [[ADDR:]PORT]\n"
		"Answer UDP tests from 'ncpv get -u' (default 127.0.0.1:" NCPV_DEFAULT_PORT "): count what arrives\n"
		"and report it, or send with --reverse, only to an address that proved itself.\n\n"
		"  -u, --udp            UDP tests (this help)\n"
		"      --max-tests N    flows at once (a stream each; default 256)\n"
		"      --max-rate RATE  the most a reverse flow is sent at, bits per second as\n"
		"                       get's --rate (default 1G; 0 as fast as possible)\n"
		"  -t, --max-time SEC   the longest a reverse flow sends (default 60)\n"
		"      --idle SEC       forget a flow silent this long (default 10)\n"
		"  -q, --quiet          no line per flow\n"
		"  -j, --json           log one JSON object per line\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"  -h, --help           show this help\n\n"
		"Datagrams that are not a test, too short, without this address's cookie or for\n"
		"no flow are counted and dropped; an answer is never larger than its request.\n"
		"SIGINT or SIGTERM stops the server with a summary of them.\n"
		"Exit status: 0 stopped by SIGINT or SIGTERM, 1 the loop failed, 2 bad option,\n"
		"3 address not resolved, 7 cannot bind.\n");
}

static enum cmd_parse serve_parse(int argc, char **argv, struct serve_udp *o)
{
	static const struct option longopts[] = {
		{ "udp", no_argument, NULL, 'u' },
		{ "max-tests", required_argument, NULL, OPT_MAX_TESTS },
		{ "max-rate", required_argument, NULL, OPT_MAX_RATE },
		{ "max-time", required_argument, NULL, 't' },
		{ "idle", required_argument, NULL, OPT_IDLE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	memset(o, 0, sizeof(*o));
	udp_server_defaults(&o->s);
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":ut:qj46h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			break;
		case OPT_MAX_TESTS:
			if (units_parse_long(optarg, 1, 100000, &o->s.max_tests) < 0)
				return cmd_bad_value("serve", "max-tests", optarg, "expected a number from 1 to 100000");
			break;
		case OPT_MAX_RATE:
			if (udp_parse_rate(optarg, &o->s.max_rate) < 0)
				return cmd_bad_value("serve", "max-rate", optarg, "expected bits per second such as 100M or 0");
			break;
		case 't':
			if (units_parse_seconds(optarg, &o->s.max_time) < 0 || o->s.max_time <= 0 ||
			    o->s.max_time > 86400)
				return cmd_bad_value("serve", "max-time", optarg, "expected seconds greater than 0, at most a day");
			break;
		case OPT_IDLE:
			if (units_parse_seconds(optarg, &o->s.idle) < 0 || o->s.idle < 0.1)
				return cmd_bad_value("serve", "idle", optarg, "expected seconds, at least 0.1");
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case '4':
			o->s.family = AF_INET;
			break;
		case '6':
			o->s.family = AF_INET6;
			break;
		case 'h':
			serve_usage(stdout);
			return CMD_PARSE_DONE;
		case ':':
			return cmd_missing_argument("serve", optopt, argv[optind - 1]);
		default:
			if (optopt || strncmp(argv[optind - 1], "--", 2) == 0) {
				cmd_error("serve", "option '%s' does not apply to UDP tests (try 'ncpv serve -u --help')",
					  argv[optind - 1]);
				return CMD_PARSE_USAGE;
			}
			return cmd_bad_option("serve", optopt, argv[optind - 1]);
		}
	}
	if (argc - optind > 1) {
		cmd_error("serve", "too many arguments: '%s' (expected one [ADDR:]PORT)", argv[optind + 1]);
		return CMD_PARSE_USAGE;
	}
	if (addr_parse(optind < argc ? argv[optind] : NCPV_DEFAULT_PORT, "127.0.0.1", NCPV_DEFAULT_PORT, &o->at, err,
		       sizeof(err)) < 0) {
		cmd_error("serve", "%s", err);
		return CMD_PARSE_USAGE;
	}
	if (o->s.family == AF_INET6 && strcmp(o->at.host, "127.0.0.1") == 0 &&
	    (optind >= argc || strchr(argv[optind], '.') == NULL))
		snprintf(o->at.host, sizeof(o->at.host), "::1");
	if (addr_check_family(o->at.host, o->s.family, err, sizeof(err)) < 0) {
		cmd_error("serve", "%s", err);
		return CMD_PARSE_USAGE;
	}
	o->s.host = o->at.host;
	o->s.port = o->at.port;
	return CMD_PARSE_RUN;
}

static void serve_say(void *ctx, int error, const char *line)
{
	(void)ctx;
	if (error)
		cmd_error("serve", "%s", line);
	else
		fprintf(stderr, "%s\n", line);
}

static void serve_flow_end(void *ctx, const struct udp_flow_end *e)
{
	const struct serve_udp *o = ctx;
	const struct udp_figures *f = &e->fig;

	if (o->quiet)
		return;
	if (o->json) {
		struct json j;

		json_init_grow(&j);
		json_object(&j, NULL);
		json_string(&j, "event", "udp_flow");
		json_string(&j, "peer", e->peer);
		json_uint(&j, "test", e->test_id);
		json_int(&j, "stream", e->stream);
		json_bool(&j, "reverse", e->reverse);
		json_string(&j, "end", e->why);
		if (e->reverse) {
			json_uint(&j, "sent_packets", f->sent_packets);
			json_uint(&j, "sent_bytes", f->sent_bytes);
		} else {
			json_uint(&j, "received_packets", f->packets);
			json_uint(&j, "received_bytes", f->bytes);
			json_uint(&j, "lost", f->lost);
			json_uint(&j, "duplicates", f->duplicates);
			json_uint(&j, "out_of_order", f->out_of_order);
			json_fixed(&j, "jitter_ms", f->jitter_ms, 6);
		}
		json_fixed(&j, "seconds", f->end, 6);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		json_free(&j);
		return;
	}
	if (e->reverse)
		fprintf(stderr, "ncpv serve: udp %s test %08x stream %d: sent %llu datagrams, %llu bytes in %.2f s (%s)\n",
			e->peer, e->test_id, e->stream, (unsigned long long)f->sent_packets,
			(unsigned long long)f->sent_bytes, f->end, e->why);
	else
		fprintf(stderr,
			"ncpv serve: udp %s test %08x stream %d: received %llu datagrams, %llu bytes in %.2f s, lost %llu "
			"(%.3f%%), duplicates %llu, out of order %llu, jitter %.3f ms (%s)\n",
			e->peer, e->test_id, e->stream, (unsigned long long)f->packets, (unsigned long long)f->bytes, f->end,
			(unsigned long long)f->lost, udp_percent(f->lost, f->expected), (unsigned long long)f->duplicates,
			(unsigned long long)f->out_of_order, f->jitter_ms, e->why);
}

static void serve_summary(const struct serve_udp *o, const struct udp_server_stats *st)
{
	if (o->json) {
		struct json j;

		json_init_grow(&j);
		json_object(&j, NULL);
		json_string(&j, "event", "summary");
		json_uint(&j, "datagrams", st->datagrams);
		json_uint(&j, "flows", st->flows);
		json_uint(&j, "refused_full", st->refused_full);
		json_uint(&j, "not_ours", st->not_ours);
		json_uint(&j, "bad_cookie", st->bad_cookie);
		json_uint(&j, "no_flow", st->no_flow);
		json_uint(&j, "truncated", st->truncated);
		json_uint(&j, "answers", st->answers);
		json_uint(&j, "answer_bytes", st->answer_bytes);
		json_uint(&j, "request_bytes", st->request_bytes);
		json_uint(&j, "sent_packets", st->sent_packets);
		json_uint(&j, "sent_bytes", st->sent_bytes);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		json_free(&j);
		return;
	}
	fprintf(stderr,
		"ncpv serve: udp: %llu datagrams, %llu flows (%llu refused: full); dropped: %llu not a test, %llu bad "
		"cookie, %llu for no flow, %llu truncated; %llu answers of %llu bytes to %llu bytes asked; sent %llu "
		"datagrams\n",
		(unsigned long long)st->datagrams, (unsigned long long)st->flows, (unsigned long long)st->refused_full,
		(unsigned long long)st->not_ours, (unsigned long long)st->bad_cookie, (unsigned long long)st->no_flow,
		(unsigned long long)st->truncated, (unsigned long long)st->answers, (unsigned long long)st->answer_bytes,
		(unsigned long long)st->request_bytes, (unsigned long long)st->sent_packets);
}

enum cmd_parse cmd_udp_serve_parse(int argc, char **argv)
{
	struct serve_udp o;

	return serve_parse(argc, argv, &o);
}

int cmd_udp_serve(int argc, char **argv)
{
	struct udp_server_events ev;
	struct udp_server_stats st;
	struct serve_udp o;
	enum cmd_parse parsed;
	char err[512], name[128];
	int fd;

	if ((parsed = serve_parse(argc, argv, &o)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	fd = udp_server_listen(&o.s, err, sizeof(err));
	if (fd < 0) {
		cmd_error("serve", "%s", err);
		return fd == NET_ERESOLVE ? NCPV_EXIT_RESOLVE : NCPV_EXIT_LISTEN;
	}
	cmd_catch_stop(&signalled, stops, 2, CMD_STOP_COUNT);
	net_local_name(fd, name, sizeof(name));
	if (o.json) {
		struct json j;

		json_init_grow(&j);
		json_object(&j, NULL);
		json_string(&j, "event", "listen");
		json_string(&j, "protocol", "udp");
		json_string(&j, "address", name);
		json_end(&j);
		fprintf(stderr, "%s\n", json_text(&j));
		json_free(&j);
	} else
		fprintf(stderr, "ncpv serve: listening on %s (udp tests)\n", name);
	memset(&ev, 0, sizeof(ev));
	ev.say = serve_say;
	ev.flow_end = serve_flow_end;
	ev.ctx = &o;
	if (udp_server_run(&o.s, fd, &signalled, &ev, &st, err, sizeof(err)) < 0) {
		cmd_error("serve", "%s", err);
		serve_summary(&o, &st);
		return NCPV_EXIT_FAIL;
	}
	serve_summary(&o, &st);
	return NCPV_EXIT_OK;
}
