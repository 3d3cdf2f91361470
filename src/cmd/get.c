/* SPDX-License-Identifier: ISC */
/* get.c - "ncpv get": the command line, the progress line, the messages and the exit codes
 * around the engine in ../get/ (one stream, or --count's batch). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "progress.h"
#include "tls_cmd.h"
#include "udp_cmd.h"
#include "../addr.h"
#include "../get/get_engine.h"
#include "../json.h"
#include "../net.h"
#include "../transfer.h"
#include "../units.h"

static volatile sig_atomic_t interrupted;

/* Parsed once by parse_options; read-only afterwards. */
struct get_args {
	struct get_opts run;   /* what the engine needs */
	struct cmd_tls tls;    /* run.tls points into it */
	double interval;       /* -i */
	int force, quiet, json;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv get [OPTION]... HOST[:PORT]\n"
		"  or:  ncpv get [OPTION]... HOST PORT\n"
		"Download from HOST (port " NCPV_DEFAULT_PORT " by default), counting the bytes and showing\n"
		"pv-style progress; the data is discarded unless -o is given.\n\n"
		"  -w, --timeout SEC    give up after SEC seconds connecting, or with the peer idle\n"
		"                       (default 10; 0: no limit but the kernel's)\n"
		"  -t, --time SEC       stop after SEC seconds (with --count: start no more, cut the rest)\n"
		"  -b, --bytes N        stop after N bytes (K, M, G: IEC)\n"
		"  -s, --size N         expected size: progress bar and ETA; a different total is an error\n"
		"  -o, --output FILE    write the data to FILE ('-' for stdout), byte-exact; FILE is\n"
		"                       replaced only once the transfer succeeds\n"
		"      --send           upload --source to the server instead (for serve --discard)\n"
		"  -S, --source SRC     what --send sends: random (default), urandom, zero or a FILE\n"
		"  -n, --count N        make N transfers (each until the server closes)\n"
		"  -P, --parallel P     with --count: up to P connections at once (default 1; capped\n"
		"                       by the open-file limit)\n"
		"  -i, --interval SEC   refresh the progress line every SEC seconds (default 1)\n"
		"      --busy-poll USEC\n"
		"                       while data comes this fast, poll instead of sleeping\n"
		"                       (default 50 microseconds; 0: always sleep)\n"
		"  -f, --force          show progress even when stderr is not a terminal\n"
		"  -q, --quiet          no progress and no summary\n"
		"  -j, --json           print a JSON summary on stdout (stderr with -o -)\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"      --tls            speak TLS (1.2 or 1.3), verifying the server's certificate\n"
		"      --cacert FILE    trust the CAs in FILE instead of the system's\n"
		"      --insecure       do not verify the server's certificate at all\n"
		"      --pin SHA256     accept exactly the certificate with this fingerprint\n"
		"      --sni NAME       the server name to send and to verify (default HOST)\n"
		"      --alpn LIST      offer these ALPN protocols (comma-separated)\n"
		"  -u, --udp            a UDP test against serve -u instead: loss, jitter,\n"
		"                       reordering at a paced --rate (see 'ncpv get -u --help')\n"
		"  -h, --help           show this help\n\n"
		"SEC is in seconds (2.5), or takes a unit: 500ms, 30s, 1m, 1h.\n"
		"Exit status: 0 done (an interrupted one too, unless -o keeps it), 1 it failed,\n"
		"ended short or was interrupted with -o or --count, 2 bad option, 3 name or port not\n"
		"resolved, 4 refused or unreachable, 5 timed out (-w), 6 a local file (-o,\n"
		"--source), 8-13 TLS (handshake, CA, expiry, host, --pin, -w).\n");
}

static enum cmd_parse parse_options(int argc, char **argv, struct get_args *a)
{
	struct get_opts *o = &a->run;
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 'w' },
		{ "time", required_argument, NULL, 't' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "send", no_argument, NULL, 'U' },
		{ "source", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'n' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "interval", required_argument, NULL, 'i' },
		{ "busy-poll", required_argument, NULL, OPT_BUSY_POLL },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CMD_TLS_CLIENT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_tail tail = { "get", usage, &o->net.family, &a->quiet, &a->json, &o->busy_poll };
	enum cmd_parse tailed;
	char err[256];
	int c;

	memset(a, 0, sizeof(*a));
	o->timeout = 10;
	a->interval = 1;
	o->busy_poll = CMD_BUSY_POLL_SECONDS;
	o->source = "random";
	o->net.family = AF_UNSPEC;
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, ":w:t:b:s:o:uS:n:P:i:fqj46h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (units_parse_seconds(optarg, &o->timeout) < 0)
				return cmd_bad_value("get", "timeout", optarg, "expected seconds");
			break;
		case 't':
			if (units_parse_seconds(optarg, &o->duration) < 0 || o->duration <= 0)
				return cmd_bad_value("get", "time", optarg, "expected seconds greater than 0");
			break;
		case 'b':
			if (units_parse_size(optarg, &o->max_bytes) < 0 || o->max_bytes == 0)
				return cmd_bad_value("get", "bytes", optarg, "expected a byte count greater than 0");
			break;
		case 's':
			if (units_parse_size(optarg, &o->size) < 0)
				return cmd_bad_value("get", "size", optarg, "expected a byte count such as 4096, 4K, 1.5M");
			o->has_size = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'U':
			o->send = 1;
			break;
		case 'u': /* never reached: cmd_get hands -u to the UDP test first */
			cmd_error("get", "-u must be a word of its own (try 'ncpv get -u --help')");
			return CMD_PARSE_USAGE;
		case 'S':
			o->source = optarg;
			break;
		case 'n':
			if (units_parse_long(optarg, 1, 100000000, &o->count) < 0)
				return cmd_bad_value("get", "count", optarg, "expected a number from 1 to 100000000");
			break;
		case 'P':
			if (units_parse_long(optarg, 1, 100000, &o->parallel) < 0)
				return cmd_bad_value("get", "parallel", optarg, "expected a number from 1 to 100000");
			break;
		case 'i':
			if (units_parse_seconds(optarg, &a->interval) < 0 || a->interval < 0.01)
				return cmd_bad_value("get", "interval", optarg, "expected seconds, at least 0.01");
			break;
		case 'f':
			a->force = 1;
			break;
		default:
			if (cmd_tls_option(&a->tls, c, optarg))
				break;
			if ((tailed = cmd_option_tail(&tail, c, argv)) != CMD_PARSE_RUN)
				return tailed;
		}
	}
	if (cmd_tls_check("get", &a->tls) != CMD_PARSE_RUN)
		return CMD_PARSE_USAGE;
	if (optind >= argc) {
		cmd_error("get", "missing HOST[:PORT] (try 'ncpv get --help')");
		return CMD_PARSE_USAGE;
	}
	if (argc - optind > 2) {
		cmd_error("get", "too many arguments: '%s'", argv[optind + 2]);
		return CMD_PARSE_USAGE;
	}
	if (argc - optind == 2) {
		char spec[ADDR_HOST_MAX + ADDR_PORT_MAX + 4];
		const char *h = argv[optind];

		/* A bare IPv6 address needs brackets before ":PORT"; a bracketed one has them. */
		snprintf(spec, sizeof(spec), strchr(h, ':') && h[0] != '[' ? "[%s]:%s" : "%s:%s", h,
			 argv[optind + 1]);
		if (addr_parse(spec, NULL, NULL, &o->at, err, sizeof(err)) < 0) {
			cmd_error("get", "%s", err);
			return CMD_PARSE_USAGE;
		}
	} else if (addr_parse(argv[optind], NULL, NCPV_DEFAULT_PORT, &o->at, err, sizeof(err)) < 0) {
		cmd_error("get", "%s", err);
		return CMD_PARSE_USAGE;
	}
	if (o->at.host[0] == '\0') {
		cmd_error("get", "missing host in '%s'", argv[optind]);
		return CMD_PARSE_USAGE;
	}
	/* Port 0 means "any" to a listener; a connect to it can only be refused. */
	if (addr_parse_port(o->at.port) == 0) {
		cmd_error("get", "invalid port '%s': port 0 cannot be connected to, expected 1 to 65535",
			  o->at.port);
		return CMD_PARSE_USAGE;
	}
	if (addr_check_family(o->at.host, o->net.family, err, sizeof(err)) < 0) {
		cmd_error("get", "%s", err);
		return CMD_PARSE_USAGE;
	}
	if (o->parallel && !o->count) {
		cmd_error("get", "--parallel needs --count");
		return CMD_PARSE_USAGE;
	}
	if (o->count && (o->send || o->output || o->max_bytes)) {
		cmd_error("get", "--count makes whole downloads: it does not combine with %s",
			  o->send ? "--send" : o->output ? "--output" : "--bytes");
		return CMD_PARSE_USAGE;
	}
	if (o->send && o->output) {
		cmd_error("get", "--send and --output conflict: an upload writes nothing");
		return CMD_PARSE_USAGE;
	}
	if (!o->parallel)
		o->parallel = 1;
	o->net.timeout_ms = o->timeout > 0 ? net_ms_until(o->timeout, 0) : 0;
	o->net.cancel = o->cancel = &interrupted;
	o->tls = a->tls.on ? &a->tls.cfg : NULL;
	o->tls_name = a->tls.sni ? a->tls.sni : o->at.host;
	return CMD_PARSE_RUN;
}

/* ---- the engine's events: notices and the progress line ----------------- */

struct view {
	const struct get_args *a;
	struct progress p;
	int batch; /* --count: a last line only if one was drawn */
};

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
		progress_init(&v->p, !a->quiet && (a->force || isatty(STDERR_FILENO)), a->interval, a->run.size,
			      t->start);
		return v->p.show ? v->p.next : 0;
	}
	v->p.meter.bytes = t->bytes;
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

static void print_summary(const struct get_args *a, const struct get_result *r, enum get_end end)
{
	const char *dir = a->run.send ? "send" : "receive";
	struct transfer t = { .received = r->bytes, .seconds = r->seconds };
	char text[256], line[1024], over[160] = "";
	FILE *jf = a->run.output && strcmp(a->run.output, "-") == 0 ? stderr : stdout;
	struct json j;

	if (a->json) {
		json_init(&j, line, sizeof(line));
		json_object(&j, NULL);
		json_string(&j, "direction", dir);
		json_string(&j, "peer", r->peer);
		transfer_json(&j, &t, TRANSFER_ONE_WAY);
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
		memcpy(over, " over ", 7);
		tls_conn_describe(r->tls, over + 6, sizeof(over) - 6);
	}
	fprintf(stderr, "%s %s %s %s%s%s\n", a->run.send ? "sent" : "received",
		transfer_text(text, sizeof(text), &t, TRANSFER_ONE_WAY), a->run.send ? "to" : "from", r->peer,
		over, end == GET_END_INTERRUPTED ? ", interrupted" : "");
}

static int run_stream(const struct get_args *a)
{
	struct view v = { .a = a };
	const struct get_events ev = { say, tick, &v };
	struct get_result r;
	char err[1024];
	enum get_end end = get_stream(&a->run, &ev, &r, err, sizeof(err));
	int rc = exit_code(end, r.net_error, r.tls_error);

	if (get_end_failed(end) && r.began)
		cmd_error("get", "%s (after %llu bytes)", err, (unsigned long long)r.bytes);
	else if (get_end_failed(end))
		cmd_error("get", "%s", err);
	else
		print_summary(a, &r, end);
	/* A signal stops a download counted to nowhere as asked, but one kept with -o is not
	 * whole: the engine left FILE as it was, and the status says so (issue 22). */
	if (end == GET_END_INTERRUPTED && a->run.output && !a->run.send) {
		if (strcmp(a->run.output, "-") == 0)
			cmd_error("get", "interrupted after %llu bytes: stdout has only part of the download",
				  (unsigned long long)r.bytes);
		else
			cmd_error("get", "interrupted after %llu bytes: '%s' left as it was", (unsigned long long)r.bytes,
				  a->run.output);
		rc = NCPV_EXIT_FAIL;
	}
	if (end == GET_END_SHORT)
		cmd_error("get", "expected %llu bytes, received %llu", (unsigned long long)a->run.size,
			  (unsigned long long)r.bytes);
	get_result_free(&r);
	return rc;
}

/* ---- --count ------------------------------------------------------------ */

static void print_batch(const struct get_args *a, const struct get_batch_result *r)
{
	const struct stats_summary *lat = &r->latency;
	struct transfer sum = { .received = r->bytes, .seconds = r->seconds, .transfers = r->done };
	char text[256], line[1024], tls[128] = "";
	struct json j;

	if (a->run.tls)
		snprintf(tls, sizeof(tls), "; TLS: %ld handshakes, %ld resumed, kTLS on %ld", r->handshakes,
			 r->resumed, r->ktls);
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
	fprintf(stderr, "%ld transfers (%ld failed) from %s %s; ", r->done, r->failed, r->peer,
		transfer_text(text, sizeof(text), &sum, TRANSFER_BATCH));
	/* No finished transfer, no latency: zeros would read as a measured 0 ms. */
	if (r->done > 0)
		fprintf(stderr, "latency ms p50 %.3f p90 %.3f p99 %.3f max %.3f%s\n", lat->median * 1e3,
			lat->p90 * 1e3, lat->p99 * 1e3, lat->max * 1e3, tls);
	else
		fprintf(stderr, "no latency: no transfer finished%s\n", tls);
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
		cmd_error("get", "%ld of %ld transfers failed (first: %s)", r.failed, a->run.count, r.first_error);
		return NCPV_EXIT_FAIL;
	}
	if (end == GET_END_INTERRUPTED) {
		/* The N transfers asked for were not all made: that is a short run (exit 1). */
		cmd_error("get", "interrupted after %ld of %ld transfers (%ld cut short)", r.done, a->run.count,
			  r.cut);
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
	return parse_options(argc, argv, &a);
}

int cmd_get(int argc, char **argv)
{
	enum cmd_parse parsed;
	struct get_args a;
	/* A hangup (the ssh session or terminal gone) stops get as SIGINT does:
	 * by default it would kill get and leave -o's .FILE.ncpv-XXXXXX behind. */
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };

	if (cmd_udp_wanted(argc, argv))
		return cmd_udp_get(argc, argv);
	if ((parsed = parse_options(argc, argv, &a)) != CMD_PARSE_RUN)
		return cmd_parse_exit(parsed, NCPV_EXIT_USAGE);
	if (a.run.parallel > a.run.count && a.run.count > 0)
		a.run.parallel = a.run.count;
	cmd_catch_stop(&interrupted, stops, 3, 0);
	/* Past the file size limit (ulimit -f) write fails with EFBIG and get says so,
	 * rather than dying with a core and no message. Not in main(): nc keeps nc's
	 * behaviour, and devtcp's command would inherit the ignored signal. */
	signal(SIGXFSZ, SIG_IGN);
	return a.run.count ? run_batch(&a) : run_stream(&a);
}
