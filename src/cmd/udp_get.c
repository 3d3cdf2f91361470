/* SPDX-License-Identifier: ISC */
/* udp_get.c - "ncpv get -u" (and the -u switch serve and get look for): options, signals, and the
 * lines and JSON the UDP test engine's figures become (src/udp/; serve -u is udp_serve.c). */
#include <getopt.h>
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

static volatile sig_atomic_t signalled;
static const int stops[] = { SIGINT, SIGTERM };

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
		"                       possible (default 1M); at least a datagram a\n"
		"                       second per stream (8 x LEN x N)\n"
		"  -l, --length LEN     UDP payload bytes per datagram, 36 to 65507\n"
		"                       (default 1400)\n"
		"  -P, --parallel N     N streams, a socket each, the rate shared (default 1,\n"
		"                       at most 128)\n"
		"  -t, --time SEC       send for SEC seconds (default 10)\n"
		"  -i, --interval SEC   a line of figures every SEC seconds (default 1; 0: none)\n"
		"  -R, --reverse        the server sends and this end receives\n"
		"  -w, --timeout SEC    wait this long for the server's answers (default 5)\n"
		"      --no-gso         plain sendmmsg even where UDP_SEGMENT works\n"
		"  -j, --json           JSON Lines on stdout: an object per interval, then a\n"
		"                       summary\n"
		"  -q, --quiet          only the summary\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"  -h, --help           show this help\n\n"
		"Figures (README 'UDP tests'): lost = expected - received, expected = highest\n"
		"sequence number + 1, or the sender's count at the end; duplicates; out of order\n"
		"= arrived after a higher sequence number; jitter = RFC 3550's running mean of\n"
		"|transit-time difference| (gain 1/16); one-way delay = arrival - send time, only\n"
		"meaningful when both ends share CLOCK_MONOTONIC (one host, its namespaces,\n"
		"ncpv link). Rates count UDP payload bits over the test's span: the slots of\n"
		"the datagrams sent (8 x LEN / rate each, per stream), -t or up to a slot more.\n"
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
	const char *rate_arg = "";
	long n;
	int c;

	memset(g, 0, sizeof(*g));
	udp_client_defaults(&g->c);
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":ul:P:t:i:Rw:jq46h", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			break;
		case OPT_RATE:
			if (udp_parse_rate(optarg, &g->c.rate) < 0)
				return cmd_bad_value("get", "rate", optarg, "expected bits per second such as 100M, 1.5G or 0");
			rate_arg = optarg;
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
	if (g->c.rate > 0 && g->c.rate < udp_rate_floor(g->c.length, g->c.streams)) {
		cmd_error("get", "invalid rate '%s': below a datagram a second per stream (%.15g bit/s at -l %u -P %d); "
			  "ask for more, or a shorter -l",
			  rate_arg, udp_rate_floor(g->c.length, g->c.streams), g->c.length, g->c.streams);
		return CMD_PARSE_USAGE;
	}
	if (g->c.interval > g->c.duration)
		g->c.interval = 0;
	g->c.host = g->at.host;
	g->c.port = g->at.port;
	return CMD_PARSE_RUN;
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
	struct udp_rates r;

	udp_figures_rates(f, &r);

	json_fixed(j, "start", f->start, 3);
	json_fixed(j, "end", f->end, 3);
	json_uint(j, "sent_packets", f->sent_packets);
	json_uint(j, "sent_bytes", f->sent_bytes);
	json_fixed(j, "sent_bps", r.sent_bps, 0);
	json_uint(j, "slipped", f->slipped);
	if (!f->has_receiver) {
		json_null(j, "received_packets");
		return;
	}
	json_uint(j, "received_packets", f->packets);
	json_uint(j, "received_bytes", f->bytes);
	json_fixed(j, "received_bps", r.received_bps, 0);
	json_uint(j, "expected", f->expected);
	json_uint(j, "lost", f->lost);
	json_fixed(j, "loss_percent", r.loss_percent, 4);
	json_uint(j, "duplicates", f->duplicates);
	json_uint(j, "out_of_order", f->out_of_order);
	json_uint(j, "late", f->late);
	json_fixed(j, "jitter_ms", f->jitter_ms, 6);
	json_fixed(j, "owd_avg_ms", f->owd_avg_ms, 6);
}

/* Each stream's figures, as an array named key. */
static void json_streams(struct json *j, const char *key, const struct udp_figures *streams, int n)
{
	json_array(j, key);
	for (int i = 0; i < n; i++) {
		json_object(j, NULL);
		json_int(j, "stream", i);
		json_figures(j, &streams[i]);
		json_end(j);
	}
	json_end(j);
}

/* The object ends, and goes out as one line on stdout. */
static void json_line_out(struct json *j)
{
	json_end(j);
	printf("%s\n", json_text(j));
	fflush(stdout);
	json_free(j);
}

static void text_figures(char *line, size_t len, const struct udp_figures *f)
{
	char r1[32], r2[32];
	struct udp_rates r;
	int n;

	udp_figures_rates(f, &r);
	n = snprintf(line, len, "%6.2f-%-6.2f s  sent %8llu (%s)", f->start, f->end,
		     (unsigned long long)f->sent_packets, fmt_rate(r1, sizeof(r1), r.sent_bps));

	if (n < 0 || (size_t)n >= len)
		return;
	if (!f->has_receiver) {
		snprintf(line + n, len - (size_t)n, "  received ? (no report)");
		return;
	}
	snprintf(line + n, len - (size_t)n,
		 "  received %8llu (%s)  lost %llu (%.2f%%)  dup %llu  ooo %llu  jitter %.3f ms  owd %.3f ms",
		 (unsigned long long)f->packets, fmt_rate(r2, sizeof(r2), r.received_bps),
		 (unsigned long long)f->lost, r.loss_percent, (unsigned long long)f->duplicates,
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
		if (n > 1)
			json_streams(&j, "streams", streams, n);
		json_line_out(&j);
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

static void get_summary(const struct get_udp *g, const struct udp_result *r)
{
	const struct udp_figures *f = &r->sum;
	char r1[32], r2[32], r3[32];
	struct udp_rates k;
	double secs;

	udp_figures_rates(f, &k);
	secs = k.seconds;

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
		json_string(&j, "ended", udp_end_name(r->end));
		json_fixed(&j, "seconds", secs, 6);
		json_figures(&j, f);
		json_fixed(&j, "sent_pps", k.sent_pps, 1);
		if (f->has_receiver) {
			json_fixed(&j, "received_pps", k.received_pps, 1);
			json_fixed(&j, "owd_min_ms", f->owd_min_ms, 6);
			json_fixed(&j, "owd_max_ms", f->owd_max_ms, 6);
		}
		if (g->c.streams > 1)
			json_streams(&j, "per_stream", r->streams, g->c.streams);
		json_line_out(&j);
		return;
	}
	fprintf(stderr, "ncpv get: udp %s %s, %d stream%s of %u-byte datagrams, %.2f s (%s)\n",
		g->c.reverse ? "from" : "to", r->peer, g->c.streams, g->c.streams > 1 ? "s" : "", g->c.length, secs,
		udp_end_name(r->end));
	fprintf(stderr, "  sent     %llu datagrams, %llu bytes at %s (%.0f/s; asked %s)\n",
		(unsigned long long)f->sent_packets, (unsigned long long)f->sent_bytes,
		fmt_rate(r1, sizeof(r1), k.sent_bps), k.sent_pps,
		g->c.rate > 0 ? fmt_rate(r2, sizeof(r2), g->c.reverse ? r->granted_rate : g->c.rate) : "as fast as possible");
	if (!f->has_receiver) {
		fprintf(stderr, "  received ? (no report from the receiver)\n");
		return;
	}
	fprintf(stderr, "  received %llu datagrams, %llu bytes at %s; lost %llu of %llu (%.3f%%)\n",
		(unsigned long long)f->packets, (unsigned long long)f->bytes, fmt_rate(r3, sizeof(r3), k.received_bps),
		(unsigned long long)f->lost, (unsigned long long)f->expected, k.loss_percent);
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
	cmd_catch_stop(&signalled, stops, 2, CMD_STOP_COUNT);
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
