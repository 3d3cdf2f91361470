/* SPDX-License-Identifier: ISC */
/* bench_opts.c - "ncpv bench"'s options (see bench_opts.h): the usage text,
 * parsing with one-line errors, and --methods applied to the method table. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_opts.h"
#include "cmd.h"
#include "../tls.h"
#include "../units.h"
#include "../bench/link.h"
#include "../udp/pace.h"

/* Full TCP segments a stream run over --link should move at least. */
#define LINK_MIN_SEGMENTS 20

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv bench [OPTION]...\n"
		"       ncpv bench compare A.json B.json   (two saved --json runs side by side)\n"
		"Compare ways of downloading over TCP: side by side, interleaved, repeated,\n"
		"counted at one point for all, with medians, spread and a significance test.\n\n"
		"  -T, --test LIST        stream, files, streams, udp, comma-separated\n"
		"                         (default stream,files; all: those two)\n"
		"  -d, --duration SEC     stream: seconds per run (default 2; the seed used 60);\n"
		"                         streams, udp: the same, rounded up to whole seconds\n"
		"  -n, --count N          files: downloads per run (default 200)\n"
		"  -s, --size N           files: bytes per download (default 4K)\n"
		"  -r, --repeat N         runs per method, interleaved A B C A B C (default 5)\n"
		"  -M, --methods LIST     only these methods, comma-separated (default all;\n"
		"                         streams and udp always run ncpv, iperf3 and iperf2)\n"
		"  -m, --method NAME=CMD  add a method: a sh command with {host} {port}\n"
		"                         ({size}, {count}, {ncpv} too); repeatable\n"
		"  -b, --baseline NAME    compare with NAME (default nc-pv, the seed's)\n"
		"  -S, --server KIND      ncpv (default: ncpv serve) or seed (its nc -l loop)\n"
		"      --tls              the server speaks TLS (serve --tls, self-signed) and\n"
		"                         the TLS methods run (baseline s_client)\n"
		"  -c, --connect HOST:PORT  measure a remote server instead of loopback\n"
		"  -l, --link RATE[,RTT[,LOSS]]\n"
		"                         server and clients at the two ends of an emulated\n"
		"                         link (ncpv link's), e.g. 94mbit or 94mbit,20ms,1%%\n"
		"      --timeout SEC      files: give up on a run after SEC (default 300)\n"
		"      --streams LIST     streams: parallel streams, ncpv get -P N beside\n"
		"                         iperf3 -P N and iperf -P N (default 1,2,4)\n"
		"      --rates LIST       udp: bits/s asked of get -u --rate, iperf3 -u -b\n"
		"                         and iperf -u -b; 0: as fast as possible (default\n"
		"                         10M,100M,1G,0); each at least 8 x length\n"
		"      --lengths LIST     udp: payload bytes, 36 to 65507 (default 64,1400)\n"
		"      --no-latency       stream: no latency probe (a ping-pong over a second\n"
		"                         connection, idle and while each method runs)\n"
		"  -j, --json             JSON on stdout instead of the table\n"
		"      --csv              CSV on stdout instead of the table, a row per method\n"
		"      --csv-runs         CSV on stdout, a row per run\n"
		"      --shuffle[=SEED]   methods in random order in each round (its random\n"
		"                         seed is reported; default: A B C A B C)\n"
		"      --html FILE        write the HTML report with charts to FILE and its JSON\n"
		"                         beside it (default: ncpv-bench-DATE.html here, unless\n"
		"                         stdout gets JSON or CSV)\n"
		"      --no-report        write no report files\n"
		"  -q, --quiet            no live progress line on stderr\n"
		"  -h, --help             show this help\n\n"
		"SEC is in seconds (2.5), or takes a unit: 500ms, 30s, 1m, 1h.\n"
		"Before the runs: how long the whole bench takes (every test, from its plan);\n"
		"each run's line: the time left, re-priced from the runs so far.\n"
		"Methods: ncpv, nc-pv and pv-devtcp (the seed's two), nc, cat-devtcp,\n"
		"bash-read (no process per file), socat, ncat; one whose tool is missing\n"
		"is skipped with the reason. With --tls: ncpv-tls, ncat-ssl, socat-openssl,\n"
		"s_client. streams and udp run on loopback with whole-second runs (-d rounded\n"
		"up), each tool against its own server (streams across --link when given);\n"
		"iperf3 or iperf not installed is skipped with a note. Exit: 0 done, 1 a\n"
		"run failed, 2 bad usage, 3-5 --connect failed, 6 --html not written, 7 no\n"
		"server, 128+N signal N.\n");
}

static enum cmd_parse bad(const char *option, const char *arg, const char *reason)
{
	return cmd_bad_value("bench", option, arg, reason);
}

static int parse_tests(const char *s, int *tests)
{
	char copy[64], *save = NULL;

	*tests = 0;
	snprintf(copy, sizeof(copy), "%s", s);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "stream") == 0)
			*tests |= BENCH_STREAM;
		else if (strcmp(t, "files") == 0)
			*tests |= BENCH_FILES;
		else if (strcmp(t, "streams") == 0)
			*tests |= BENCH_TPUT_STREAMS;
		else if (strcmp(t, "udp") == 0)
			*tests |= BENCH_TPUT_UDP;
		else if (strcmp(t, "all") == 0)
			*tests |= BENCH_STREAM | BENCH_FILES;
		else
			return -1;
	}
	return *tests ? 0 : -1;
}

/* "--shuffle" or "--shuffle=SEED" (as typed; getopt has matched the name). */
static int parse_shuffle(const char *typed, struct bench_opts *o)
{
	const char *eq = strchr(typed, '=');
	long n;

	o->shuffle = 1;
	if (eq == NULL) {
		o->seed = (unsigned)time(NULL) ^ (unsigned)getpid();
		return 0;
	}
	if (units_parse_long(eq + 1, 0, 2147483647, &n) < 0)
		return -1;
	o->seed = (unsigned)n;
	return 0;
}

enum cmd_parse bench_parse_options(int argc, char **argv, struct bench_opts *o)
{
	enum { OPT_TIMEOUT = 256, OPT_CSV, OPT_HTML, OPT_NO_REPORT, OPT_SHUFFLE, OPT_CSV_RUNS, OPT_TLS,
	       OPT_NO_LATENCY, OPT_STREAMS, OPT_RATES, OPT_LENGTHS };
	static const struct option longopts[] = {
		{ "test", required_argument, NULL, 'T' }, { "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' }, { "size", required_argument, NULL, 's' },
		{ "repeat", required_argument, NULL, 'r' }, { "methods", required_argument, NULL, 'M' },
		{ "method", required_argument, NULL, 'm' }, { "baseline", required_argument, NULL, 'b' },
		{ "server", required_argument, NULL, 'S' }, { "connect", required_argument, NULL, 'c' },
		{ "link", required_argument, NULL, 'l' }, { "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", no_argument, NULL, 'j' }, { "csv", no_argument, NULL, OPT_CSV },
		{ "html", required_argument, NULL, OPT_HTML }, { "quiet", no_argument, NULL, 'q' },
		{ "no-report", no_argument, NULL, OPT_NO_REPORT }, { "shuffle", optional_argument, NULL, OPT_SHUFFLE },
		{ "csv-runs", no_argument, NULL, OPT_CSV_RUNS }, { "tls", no_argument, NULL, OPT_TLS },
		{ "no-latency", no_argument, NULL, OPT_NO_LATENCY },
		{ "streams", required_argument, NULL, OPT_STREAMS }, { "rates", required_argument, NULL, OPT_RATES },
		{ "lengths", required_argument, NULL, OPT_LENGTHS },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	char err[256];
	const char *rates_arg = "";
	long n;
	int c;

	memset(o, 0, sizeof(*o));
	o->tests = BENCH_STREAM | BENCH_FILES;
	/* Short by default (about 3 minutes with every tool installed), since
	 * `make bench` is the first thing a newcomer runs; the seed used -d 60. */
	o->duration = 2;
	o->timeout = 300;
	o->count = 200;
	o->size = 4096;
	o->repeat = 5;
	o->nmethods = method_builtins(o->methods, MAX_METHODS);
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, ":T:d:n:s:r:M:m:b:S:c:l:jqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (parse_tests(optarg, &o->tests) < 0)
				return bad("test", optarg, "expected stream, files, streams or udp, comma-separated");
			o->tests_given = o->tests;
			break;
		case 'd':
			if (units_parse_seconds(optarg, &o->duration) < 0 || o->duration < 0.1 || o->duration > 86400)
				return bad("duration", optarg, "expected seconds from 0.1 to 86400, such as 5 or 60");
			break;
		case 'n':
			if (units_parse_long(optarg, 1, 10000000, &n) < 0)
				return bad("count", optarg, "expected a number of downloads from 1 to 10000000");
			o->count = (uint64_t)n;
			break;
		case 's':
			if (units_parse_size(optarg, &o->size) < 0 || o->size == 0 || o->size > (1ull << 40))
				return bad("size", optarg, "expected a byte count such as 4096 or 4K, above 0");
			break;
		case 'r':
			if (units_parse_long(optarg, 1, 1000, &o->repeat) < 0)
				return bad("repeat", optarg, "expected a number of runs from 1 to 1000");
			break;
		case 'M':
			o->only = optarg;
			break;
		case 'm':
			if (o->nmethods >= MAX_METHODS) {
				cmd_error("bench", "too many methods (at most %d)", MAX_METHODS);
				return CMD_PARSE_USAGE;
			}
			if (method_parse_user(optarg, &o->methods[o->nmethods], err, sizeof(err)) < 0) {
				cmd_error("bench", "%s", err);
				return CMD_PARSE_USAGE;
			}
			for (size_t i = 0; i < o->nmethods; i++)
				if (strcmp(o->methods[i].name, o->methods[o->nmethods].name) == 0) {
					cmd_error("bench", "method '%s' already exists: pick another name",
						  o->methods[i].name);
					return CMD_PARSE_USAGE;
				}
			o->nmethods++;
			break;
		case 'b':
			o->baseline = optarg;
			break;
		case 'S':
			if (strcmp(optarg, "seed") != 0 && strcmp(optarg, "ncpv") != 0)
				return bad("server", optarg, "expected ncpv or seed");
			o->seed_server = strcmp(optarg, "seed") == 0;
			break;
		case 'c':
			o->connect = optarg;
			if (addr_parse(optarg, NULL, NULL, &o->remote, err, sizeof(err)) < 0 ||
			    o->remote.host[0] == '\0' || o->remote.port[0] == '\0')
				return bad("connect", optarg, "expected HOST:PORT");
			if (addr_parse_port(o->remote.port) == 0) /* 0 is "any" to a listener only */
				return bad("connect", optarg, "port 0 cannot be connected to, expected 1 to 65535");
			break;
		case 'l':
			o->link = optarg;
			if (link_parse(optarg, &o->link_bits, &o->link_delay, &o->link_loss, err, sizeof(err)) < 0)
				return bad("link", optarg, err);
			break;
		case OPT_TIMEOUT:
			if (units_parse_seconds(optarg, &o->timeout) < 0 || o->timeout <= 0)
				return bad("timeout", optarg, "expected seconds greater than 0");
			break;
		case 'j':
			o->json = 1;
			break;
		case OPT_CSV:
			o->csv = 1;
			break;
		case OPT_HTML:
			if (optarg[0] == '\0') {
				cmd_error("bench", "--html needs a file name, such as report.html");
				return CMD_PARSE_USAGE;
			}
			o->html = optarg;
			break;
		case OPT_NO_REPORT:
			o->no_report = 1;
			break;
		case OPT_SHUFFLE:
			if (parse_shuffle(argv[optind - 1], o) < 0)
				return bad("shuffle", argv[optind - 1], "expected --shuffle or --shuffle=SEED, a seed from 0 to 2147483647");
			break;
		case OPT_CSV_RUNS:
			o->csv = o->csv_runs = 1;
			break;
		case OPT_TLS:
			o->tls = 1;
			break;
		case OPT_STREAMS:
			if (tput_parse_streams(optarg, &o->tput) < 0)
				return bad("streams", optarg, "expected up to 8 stream counts from 1 to 128, such as 1,2,4");
			break;
		case OPT_RATES:
			if (tput_parse_rates(optarg, &o->tput) < 0)
				return bad("rates", optarg, "expected up to 8 rates in bits/s, such as 10M,100M,1G,0");
			rates_arg = optarg;
			break;
		case OPT_LENGTHS:
			if (tput_parse_lengths(optarg, &o->tput) < 0)
				return bad("lengths", optarg, "expected up to 8 payload sizes from 36 to 65507, such as 64,1400");
			break;
		case OPT_NO_LATENCY:
			o->no_latency = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return CMD_PARSE_DONE;
		case ':':
			return cmd_missing_argument("bench", optopt, argv[optind - 1]);
		default:
			return cmd_bad_option("bench", optopt, optopt ? NULL : argv[optind - 1]);
		}
	}
	if (optind < argc) {
		cmd_error("bench", "unexpected argument '%s' (bench takes options only)", argv[optind]);
		return CMD_PARSE_USAGE;
	}
	if (o->html && o->no_report) {
		cmd_error("bench", "--html and --no-report conflict: pick one");
		return CMD_PARSE_USAGE;
	}
	/* Plain `ncpv bench` keeps its report: HTML and JSON in files, named by the time. */
	if (o->html == NULL && !o->no_report && !o->json && !o->csv) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(o->html_default, sizeof(o->html_default), "ncpv-bench-%Y%m%d-%H%M%S.html", &tm);
		o->html = o->html_default;
	}
	if (o->html) {
		size_t base = strlen(o->html);

		if (base > 5 && strcmp(o->html + base - 5, ".html") == 0)
			base -= 5;
		snprintf(o->json_path, sizeof(o->json_path), "%.*s.json", (int)base, o->html);
	}
	tput_default_opts(&o->tput);
	if ((o->tests & (BENCH_TPUT_STREAMS | BENCH_TPUT_UDP)) && (o->connect || o->tls || o->seed_server)) {
		cmd_error("bench", "-T streams and udp run here (on loopback or --link), each tool against its own plain "
				   "server: they conflict with %s", o->connect ? "--connect" : o->tls ? "--tls" : "--server seed");
		return CMD_PARSE_USAGE;
	}
	for (size_t i = 0; (o->tests & BENCH_TPUT_UDP) && i < o->tput.nrates; i++) {
		for (size_t k = 0; o->tput.rates[i] > 0 && k < o->tput.nlengths; k++) {
			double floor = udp_rate_floor((uint32_t)o->tput.lengths[k], 1);

			if (o->tput.rates[i] < floor) {
				cmd_error("bench", "invalid rates '%s': %.15g bit/s is below a datagram a second (%.15g bit/s at "
						   "length %d); ask for more, or shorter --lengths",
					  rates_arg, o->tput.rates[i], floor, o->tput.lengths[k]);
				return CMD_PARSE_USAGE;
			}
		}
	}
	if ((o->tests & BENCH_TPUT_UDP) && o->link) {
		cmd_error("bench", "-T udp runs on loopback only: it conflicts with --link (-T streams takes it)");
		return CMD_PARSE_USAGE;
	}
	if (o->json && o->csv) {
		cmd_error("bench", "--json and %s conflict: pick one for stdout", o->csv_runs ? "--csv-runs" : "--csv");
		return CMD_PARSE_USAGE;
	}
	if (o->tls && !TLS_AVAILABLE) {
		cmd_error("bench", "--tls: this build has no TLS support (built without OpenSSL)");
		return CMD_PARSE_USAGE;
	}
	if (o->tls && o->seed_server) {
		cmd_error("bench", "--tls and --server seed conflict: the seed's nc -l loop speaks plain TCP");
		return CMD_PARSE_USAGE;
	}
	if (o->connect && (o->link || o->seed_server)) {
		cmd_error("bench", "--connect measures a remote server: it conflicts with %s",
			  o->link ? "--link" : "--server seed");
		return CMD_PARSE_USAGE;
	}
	/* A run that moves a handful of TCP segments measures the segments, not the link. */
	if (o->link && (o->tests & (BENCH_STREAM | BENCH_TPUT_STREAMS)) &&
	    o->duration * o->link_bits / 8 < LINK_MIN_SEGMENTS * 1448)
		cmd_error("bench", "--link %s: a %.3g s run moves only about %.0f bytes: use -d %.0f or more for a rate "
				   "this low", o->link, o->duration, o->duration * o->link_bits / 8,
			  ceil(LINK_MIN_SEGMENTS * 1448 / (o->link_bits / 8)));
	if (o->seed_server) {
		if (o->tests_given && (o->tests & BENCH_FILES)) {
			cmd_error("bench", "--server seed sends one endless stream: it cannot serve the files test");
			return CMD_PARSE_USAGE;
		}
		if (!o->tests_given)
			cmd_error("bench", "--server seed sends one endless stream: running the stream test only "
					   "(-T stream says so and silences this)");
		o->tests = BENCH_STREAM;
	}
	return CMD_PARSE_RUN;
}

/* A built-in of the other transport, by name: TLS's without --tls, plain TCP's with it. */
static const struct bench_method *other_transport(const struct bench_method *all, size_t n, int tls,
						  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (all[i].tls != tls && strcmp(all[i].note, "user") != 0 && strcmp(all[i].name, name) == 0)
			return &all[i];
	return NULL;
}

/* Keep the methods of o's transport, in order: --method's and the built-ins with
 * tls == o->tls. Returns 0, or an exit code after naming a --baseline or --methods
 * entry of the other transport. */
static int keep_transport(struct bench_opts *o)
{
	struct bench_method all[MAX_METHODS];
	size_t nall = o->nmethods, n = 0;
	char copy[1024], *save = NULL;

	memcpy(all, o->methods, nall * sizeof(all[0]));
	snprintf(copy, sizeof(copy), "%s%s%s", o->only ? o->only : "", o->baseline ? "," : "",
		 o->baseline ? o->baseline : "");
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (other_transport(all, nall, o->tls, t) != NULL) {
			cmd_error("bench", o->tls ? "method '%s' speaks plain TCP: leave out --tls for it"
						  : "method '%s' speaks TLS: it needs --tls",
				  t);
			return NCPV_EXIT_USAGE;
		}
	for (size_t i = 0; i < nall; i++)
		if (all[i].tls == o->tls || strcmp(all[i].note, "user") == 0)
			o->methods[n++] = all[i];
	o->nmethods = n;
	return 0;
}

/* Apply --methods: keep only the named methods, in the order named. */
int bench_select_methods(struct bench_opts *o)
{
	struct bench_method keep[MAX_METHODS];
	char copy[1024], *save = NULL, known[MAX_METHODS * (METHOD_NAME_MAX + 1)] = "";
	size_t n = 0;
	int rc = keep_transport(o);

	if (rc != 0)
		return rc;
	for (size_t i = 0; i < o->nmethods; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", i ? ", " : "",
			 o->methods[i].name);
	if (o->baseline) {
		size_t i = 0;

		while (i < o->nmethods && strcmp(o->methods[i].name, o->baseline) != 0)
			i++;
		if (i == o->nmethods) {
			cmd_error("bench", "unknown baseline method '%s' (known: %s)", o->baseline, known);
			return NCPV_EXIT_USAGE;
		}
	}
	if (o->only == NULL)
		return 0;
	snprintf(copy, sizeof(copy), "%s", o->only);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < o->nmethods && strcmp(o->methods[i].name, t) != 0)
			i++;
		if (i == o->nmethods) {
			cmd_error("bench", "unknown method '%s' (known: %s)", t, known);
			return NCPV_EXIT_USAGE;
		}
		for (size_t k = 0; k < n; k++)
			if (strcmp(keep[k].name, t) == 0) {
				cmd_error("bench", "method '%s' is named twice in --methods", t);
				return NCPV_EXIT_USAGE;
			}
		keep[n++] = o->methods[i];
	}
	if (n == 0) {
		cmd_error("bench", "--methods names no method (known: %s)", known);
		return NCPV_EXIT_USAGE;
	}
	/* A --baseline left out of --methods would be replaced by the first method, unsaid. */
	if (o->baseline) {
		size_t k = 0;

		while (k < n && strcmp(keep[k].name, o->baseline) != 0)
			k++;
		if (k == n) {
			cmd_error("bench", "baseline '%s' is not in --methods: add it to -M, or leave out --baseline",
				  o->baseline);
			return NCPV_EXIT_USAGE;
		}
	}
	/* A method the user added and then left out is a mistake, not a choice. */
	for (size_t i = 0; i < o->nmethods; i++) {
		size_t k = 0;

		while (k < n && strcmp(keep[k].name, o->methods[i].name) != 0)
			k++;
		if (k == n && strcmp(o->methods[i].note, "user") == 0) {
			cmd_error("bench", "method '%s' from --method is not in --methods: add it to -M, or leave it out",
				  o->methods[i].name);
			return NCPV_EXIT_USAGE;
		}
	}
	memcpy(o->methods, keep, n * sizeof(keep[0]));
	o->nmethods = n;
	return 0;
}
