/* SPDX-License-Identifier: ISC */
/* udp.c - "ncpv serve -u" and "ncpv get -u": options, signals, and the lines and JSON the UDP test
 * engine's figures become (src/udp/). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "udp_cmd.h"
#include "../addr.h"
#include "../json.h"
#include "../net.h"
#include "../units.h"
#include "../udp/pace.h"
#include "../udp/udp.h"
#include "../udp/wire.h"

#define OPT_RATE 300
#define OPT_REVERSE 301
#define OPT_NO_GSO 302
#define OPT_MAX_TESTS 303
#define OPT_MAX_RATE 304
#define OPT_IDLE 305

static volatile sig_atomic_t signalled;

static void on_signal(int sig)
{
	(void)sig;
	if (signalled < 2)
		signalled++;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cmd_udp_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "-u") == 0 || strcmp(argv[i], "--udp") == 0)
			return 1;
	}
	return 0;
}

/* ---- get -u ---- */

struct get_udp {
	struct udp_client_opts c;
	struct addr_spec at;
	int json, quiet;
	const char *rate_arg;
};

static void get_usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv get -u [OPTION]... HOST[:PORT]\n"
		"A UDP test against 'ncpv serve -u' (port " NCPV_DEFAULT_PORT " by default): send numbered,\n"
		"timestamped datagrams at a paced rate; the server counts them and reports back.\n\n"
		"  -u, --udp            a UDP test (this help)\n"
		"      --rate RATE      bits per second over all streams: K, M, G are SI (1M =\n"
		"                       1000000, as iperf3's -b), or 100mbit; 0 as fast as\n"
		"                       possible (default 1M)\n"
		"  -l, --length LEN     UDP payload bytes per datagram, 36 to 65507 (default 1400)\n"
		"  -P, --parallel N     N streams, a socket each, the rate shared (default 1, at most 128)\n"
		"  -t, --time SEC       send for SEC seconds (default 10)\n"
		"  -i, --interval SEC   a line of figures every SEC seconds (default 1; 0: none)\n"
		"  -R, --reverse        the server sends and this end receives\n"
		"  -w, --timeout SEC    wait this long for the server's answers (default 5)\n"
		"      --no-gso         plain sendmmsg even where UDP_SEGMENT works\n"
		"  -j, --json           JSON Lines on stdout: an object per interval, then a summary\n"
		"  -q, --quiet          only the summary\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"  -h, --help           show this help\n\n"
		"Figures (README 'UDP tests'): lost = expected - received, expected = highest\n"
		"sequence number + 1, or the sender's count at the end; duplicates; out of order\n"
		"= arrived after a higher sequence number; jitter = RFC 3550's running mean of\n"
		"|transit-time difference| (gain 1/16); one-way delay = arrival - send time, only\n"
		"meaningful when both ends share CLOCK_MONOTONIC (one host, its namespaces,\n"
		"ncpv link). Rates count UDP payload bits.\n"
		"Exit status: 0 done (also when interrupted), 1 no final report, 2 bad option,\n"
		"3 not resolved, 4 refused (nothing on that port, or the server is full),\n"
		"5 no answer within -w.\n");
}

static enum cmd_parse get_parse(int argc, char **argv, struct get_udp *g)
{
	static const struct option longopts[] = {
		{ "udp", no_argument, NULL, 'u' },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "length", required_argument, NULL, 'l' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "time", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "reverse", no_argument, NULL, 'R' },
		{ "timeout", required_argument, NULL, 'w' },
		{ "no-gso", no_argument, NULL, OPT_NO_GSO },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	long n;
	int c;

	memset(g, 0, sizeof(*g));
	g->c.family = AF_UNSPEC;
	g->c.rate = 1e6;
	g->c.length = 1400;
	g->c.streams = 1;
	g->c.duration = 10;
	g->c.interval = 1;
	g->c.timeout = 5;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":ul:P:t:i:Rw:jq46h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			break;
		case OPT_RATE:
			if (udp_parse_rate(optarg, &g->c.rate) < 0)
				return cmd_bad_value("get", "rate", optarg, "expected bits per second such as 100M, 1.5G or 0");
			break;
		case 'l':
			if (units_parse_long(optarg, UDP_WIRE_DATA_MIN, UDP_WIRE_MAX, &n) < 0)
				return cmd_bad_value("get", "length", optarg, "expected bytes from 36 to 65507");
			g->c.length = (uint32_t)n;
			break;
		case 'P':
			if (units_parse_long(optarg, 1, UDP_MAX_STREAMS, &n) < 0)
				return cmd_bad_value("get", "parallel", optarg, "expected a number from 1 to 128");
			g->c.streams = (int)n;
			break;
		case 't':
			if (units_parse_seconds(optarg, &g->c.duration) < 0 || g->c.duration <= 0 ||
			    g->c.duration > 86400)
				return cmd_bad_value("get", "time", optarg, "expected seconds greater than 0, at most a day");
			break;
		case 'i':
			if (units_parse_seconds(optarg, &g->c.interval) < 0 ||
			    (g->c.interval > 0 && g->c.interval < 0.01))
				return cmd_bad_value("get", "interval", optarg, "expected 0 or seconds, at least 0.01");
			break;
		case 'R':
			g->c.reverse = 1;
			break;
		case 'w':
			if (units_parse_seconds(optarg, &g->c.timeout) < 0 || g->c.timeout <= 0)
				return cmd_bad_value("get", "timeout", optarg, "expected seconds greater than 0");
			break;
		case OPT_NO_GSO:
			g->c.no_gso = 1;
			break;
		case 'j':
			g->json = 1;
			break;
		case 'q':
			g->quiet = 1;
			break;
		case '4':
			g->c.family = AF_INET;
			break;
		case '6':
			g->c.family = AF_INET6;
			break;
		case 'h':
			get_usage(stdout);
			return CMD_PARSE_DONE;
		case ':':
			return cmd_missing_argument("get", optopt, argv[optind - 1]);
		default:
			/* TCP's options (-o, -b, --send, --tls ...) mean nothing to a UDP test: refuse them. */
			if (optopt || strncmp(argv[optind - 1], "--", 2) == 0) {
				cmd_error("get", "option '%s' does not apply to a UDP test (try 'ncpv get -u --help')",
					  argv[optind - 1]);
				return CMD_PARSE_USAGE;
			}
			return cmd_bad_option("get", optopt, argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		cmd_error("get", "missing HOST[:PORT] (try 'ncpv get -u --help')");
		return CMD_PARSE_USAGE;
	}
	if (argc - optind > 1) {
		cmd_error("get", "too many arguments: '%s'", argv[optind + 1]);
		return CMD_PARSE_USAGE;
	}
	if (addr_parse(argv[optind], NULL, NCPV_DEFAULT_PORT, &g->at, err, sizeof(err)) < 0 ||
	    addr_check_family(g->at.host, g->c.family, err, sizeof(err)) < 0) {
		cmd_error("get", "%s", err);
		return CMD_PARSE_USAGE;
	}
	if (g->at.host[0] == '\0') {
		cmd_error("get", "missing HOST in '%s'", argv[optind]);
		return CMD_PARSE_USAGE;
	}
	if (g->c.interval > g->c.duration)
		g->c.interval = 0;
	g->c.host = g->at.host;
	g->c.port = g->at.port;
	return CMD_PARSE_RUN;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static double bps(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes * 8 / seconds : 0;
}

/* "50.00 Mbit/s" */
static const char *fmt_rate(char *buf, size_t len, double bits)
{
	static const char *unit[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" };
	int u = 0;

	while (bits >= 1000 && u < 4) {
		bits /= 1000;
		u++;
	}
	snprintf(buf, len, "%.2f %s", bits, unit[u]);
	return buf;
}

static void json_figures(struct json *j, const struct udp_figures *f)
{
	double secs = f->end - f->start;

	json_fixed(j, "start", f->start, 3);
	json_fixed(j, "end", f->end, 3);
	json_uint(j, "sent_packets", f->sent_packets);
	json_uint(j, "sent_bytes", f->sent_bytes);
	json_fixed(j, "sent_bps", bps(f->sent_bytes, secs), 0);
	json_uint(j, "slipped", f->slipped);
	if (!f->has_receiver) {
		json_null(j, "received_packets");
		return;
	}
	json_uint(j, "received_packets", f->packets);
	json_uint(j, "received_bytes", f->bytes);
	json_fixed(j, "received_bps", bps(f->bytes, secs), 0);
	json_uint(j, "expected", f->expected);
	json_uint(j, "lost", f->lost);
	json_fixed(j, "loss_percent", pct(f->lost, f->expected), 4);
	json_uint(j, "duplicates", f->duplicates);
	json_uint(j, "out_of_order", f->out_of_order);
	json_uint(j, "late", f->late);
	json_fixed(j, "jitter_ms", f->jitter_ms, 6);
	json_fixed(j, "owd_avg_ms", f->owd_avg_ms, 6);
}

static void text_figures(char *line, size_t len, const struct udp_figures *f)
{
	char r1[32], r2[32];
	double secs = f->end - f->start;
	int n = snprintf(line, len, "%6.2f-%-6.2f s  sent %8llu (%s)", f->start, f->end,
			 (unsigned long long)f->sent_packets, fmt_rate(r1, sizeof(r1), bps(f->sent_bytes, secs)));

	if (n < 0 || (size_t)n >= len)
		return;
	if (!f->has_receiver) {
		snprintf(line + n, len - (size_t)n, "  received ? (no report)");
		return;
	}
	snprintf(line + n, len - (size_t)n,
		 "  received %8llu (%s)  lost %llu (%.2f%%)  dup %llu  ooo %llu  jitter %.3f ms  owd %.3f ms",
		 (unsigned long long)f->packets, fmt_rate(r2, sizeof(r2), bps(f->bytes, secs)),
		 (unsigned long long)f->lost, pct(f->lost, f->expected), (unsigned long long)f->duplicates,
		 (unsigned long long)f->out_of_order, f->jitter_ms, f->owd_avg_ms);
}

static void get_say(void *ctx, int error, const char *line)
{
	(void)ctx;
	if (error)
		cmd_error("get", "%s", line);
	else
		fprintf(stderr, "%s\n", line);
}

static void get_interval(void *ctx, const struct udp_figures *sum, const struct udp_figures *streams, int n)
{
	const struct get_udp *g = ctx;
	char line[512];

	if (g->json) {
		struct json j;

		json_init_grow(&j);
		json_object(&j, NULL);
		json_string(&j, "event", "interval");
		json_figures(&j, sum);
		if (n > 1) {
			json_array(&j, "streams");
			for (int i = 0; i < n; i++) {
				json_object(&j, NULL);
				json_int(&j, "stream", i);
				json_figures(&j, &streams[i]);
				json_end(&j);
			}
			json_end(&j);
		}
		json_end(&j);
		printf("%s\n", json_text(&j));
		fflush(stdout);
		json_free(&j);
		return;
	}
	if (g->quiet)
		return;
	if (n > 1)
		for (int i = 0; i < n; i++) {
			text_figures(line, sizeof(line), &streams[i]);
			fprintf(stderr, "[%3d] %s\n", i, line);
		}
	text_figures(line, sizeof(line), sum);
	fprintf(stderr, "%s %s\n", n > 1 ? "[SUM]" : "", line);
}

static const char *end_name(enum udp_end e)
{
	return e == UDP_END_TIME ? "time" : e == UDP_END_CANCEL ? "interrupted" : "no final report";
}

static void get_summary(const struct get_udp *g, const struct udp_result *r)
{
	const struct udp_figures *f = &r->sum;
	double secs = f->end - f->start;
	char r1[32], r2[32], r3[32];

	if (g->json) {
		struct json j;

		json_init_grow(&j);
		json_object(&j, NULL);
		json_string(&j, "event", "summary");
		json_string(&j, "protocol", "udp");
		json_string(&j, "peer", r->peer);
		json_bool(&j, "reverse", g->c.reverse);
		json_int(&j, "streams", g->c.streams);
		json_uint(&j, "length", g->c.length);
		json_fixed(&j, "rate_asked_bps", g->c.rate, 0);
		if (g->c.reverse)
			json_fixed(&j, "rate_granted_bps", r->granted_rate, 0);
		json_string(&j, "send_path", r->send_path);
		json_string(&j, "ended", end_name(r->end));
		json_fixed(&j, "seconds", secs, 6);
		json_figures(&j, f);
		json_fixed(&j, "sent_pps", secs > 0 ? (double)f->sent_packets / secs : 0, 1);
		if (f->has_receiver) {
			json_fixed(&j, "received_pps", secs > 0 ? (double)f->packets / secs : 0, 1);
			json_fixed(&j, "owd_min_ms", f->owd_min_ms, 6);
			json_fixed(&j, "owd_max_ms", f->owd_max_ms, 6);
		}
		if (g->c.streams > 1) {
			json_array(&j, "per_stream");
			for (int i = 0; i < g->c.streams; i++) {
				json_object(&j, NULL);
				json_int(&j, "stream", i);
				json_figures(&j, &r->streams[i]);
				json_end(&j);
			}
			json_end(&j);
		}
		json_end(&j);
		printf("%s\n", json_text(&j));
		fflush(stdout);
		json_free(&j);
		return;
	}
	fprintf(stderr, "ncpv get: udp %s %s, %d stream%s of %u-byte datagrams, %.2f s (%s)\n",
		g->c.reverse ? "from" : "to", r->peer, g->c.streams, g->c.streams > 1 ? "s" : "", g->c.length, secs,
		end_name(r->end));
	fprintf(stderr, "  sent     %llu datagrams, %llu bytes at %s (%.0f/s; asked %s)\n",
		(unsigned long long)f->sent_packets, (unsigned long long)f->sent_bytes,
		fmt_rate(r1, sizeof(r1), bps(f->sent_bytes, secs)), secs > 0 ? (double)f->sent_packets / secs : 0,
		g->c.rate > 0 ? fmt_rate(r2, sizeof(r2), g->c.reverse ? r->granted_rate : g->c.rate) : "as fast as possible");
	if (!f->has_receiver) {
		fprintf(stderr, "  received ? (no report from the receiver)\n");
		return;
	}
	fprintf(stderr, "  received %llu datagrams, %llu bytes at %s; lost %llu of %llu (%.3f%%)\n",
		(unsigned long long)f->packets, (unsigned long long)f->bytes, fmt_rate(r3, sizeof(r3), bps(f->bytes, secs)),
		(unsigned long long)f->lost, (unsigned long long)f->expected, pct(f->lost, f->expected));
	fprintf(stderr, "  duplicates %llu, out of order %llu, jitter %.3f ms, one-way delay min/avg/max %.3f/%.3f/%.3f ms\n",
		(unsigned long long)f->duplicates, (unsigned long long)f->out_of_order, f->jitter_ms, f->owd_min_ms,
		f->owd_avg_ms, f->owd_max_ms);
}

enum cmd_parse cmd_udp_get_parse(int argc, char **argv)
{
	struct get_udp g;

	return get_parse(argc, argv, &g);
}

int cmd_udp_get(int argc, char **argv)
{
	struct udp_events ev;
	struct udp_result *res;
	struct get_udp g;
	enum cmd_parse parsed;
	char err[512];
	int rc;

	if ((parsed = get_parse(argc, argv, &g)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if ((res = malloc(sizeof(*res))) == NULL) {
		cmd_error("get", "out of memory");
		return NCPV_EXIT_FAIL;
	}
	catch_signals();
	memset(&ev, 0, sizeof(ev));
	ev.say = get_say;
	ev.interval = g.c.interval > 0 ? get_interval : NULL;
	ev.ctx = &g;
	rc = udp_client_run(&g.c, &signalled, &ev, res, err, sizeof(err));
	if (rc < 0) {
		cmd_error("get", "%s", err);
		free(res);
		return rc == UDP_ENOANSWER ? NCPV_EXIT_TIMEOUT : rc == UDP_EREFUSED ? NCPV_EXIT_CONNECT : cmd_net_exit(rc);
	}
	if (res->end == UDP_END_CANCEL && res->sum.sent_packets == 0 && res->sum.packets == 0) {
		free(res);
		return NCPV_EXIT_OK; /* interrupted before it began */
	}
	get_summary(&g, res);
	rc = res->end == UDP_END_NOREPORT ? NCPV_EXIT_FAIL : NCPV_EXIT_OK;
	free(res);
	return rc;
}

/* ---- serve -u ---- */

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
	o->s.family = AF_UNSPEC;
	o->s.max_tests = 256;
	o->s.max_rate = 1e9;
	o->s.max_time = 60;
	o->s.idle = 10;
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
			(unsigned long long)f->lost, pct(f->lost, f->expected), (unsigned long long)f->duplicates,
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
	catch_signals();
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
