/* SPDX-License-Identifier: ISC */
/* get_opts.c - "ncpv get"'s options: --help's text and the parser that checks them once into
 * struct get_args (get_cmd.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "get_cmd.h"
#include "tls_cmd.h"
#include "../addr.h"
#include "../get/get_engine.h"
#include "../net.h"
#include "../sidechan.h"
#include "../units.h"
#include "../udp/pace.h"
#include "../wrap.h"

#define OPT_WINDOW (OPT_BUSY_POLL + 1)
#define OPT_TOS (OPT_BUSY_POLL + 2)
#define OPT_BIND (OPT_BUSY_POLL + 3)
#define OPT_CPORT (OPT_BUSY_POLL + 4)
#define OPT_OMIT (OPT_BUSY_POLL + 5)
#define OPT_RATE (OPT_BUSY_POLL + 6)
#define OPT_BIDIR (OPT_BUSY_POLL + 7)
#define OPT_SERVER_VIEW (OPT_BUSY_POLL + 8)

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ncpv get [OPTION]... HOST[:PORT]\n"
		"  or:  ncpv get [OPTION]... HOST PORT\n"
		"Download from HOST (port " NCPV_DEFAULT_PORT " by default), counting the bytes and showing\n"
		"pv-style progress; the data is discarded unless -o is given.\n\n"
		"  -w, --timeout SEC    give up after SEC seconds connecting, or with the peer\n"
		"                       idle (default 10; 0: no limit but the kernel's)\n"
		"  -t, --time SEC       stop after SEC seconds (with --count: start no more,\n"
		"                       cut the rest)\n"
		"  -b, --bytes N        stop after N bytes (K, M, G: IEC), the size of the bar\n"
		"  -s, --size N         expected size: progress bar and ETA; a different total is\n"
		"                       an error (with -P: the streams' total, as -b)\n"
		"  -o, --output FILE    write the data to FILE ('-' for stdout), byte-exact;\n"
		"                       FILE is replaced only once the transfer succeeds\n"
		"      --send           upload --source to the server instead (for\n"
		"                       serve --discard)\n"
		"  -S, --source SRC     what --send sends: random (default), urandom, zero or\n"
		"                       a FILE\n"
		"  -Z, --zerocopy       what get sends (--send, -R, --bidir): a 4 MiB random\n"
		"                       block over and over with sendfile, without copying it\n"
		"                       (as iperf3 -Z): less CPU, but the data repeats (a\n"
		"                       compressing link shrinks it); not with -S or --tls\n"
		"  -R, --reverse        the server receives, get sends --source (any ncpv serve)\n"
		"      --bidir          download and upload at once, on two connections\n"
		"      --server-view    add the sender's figures from ncpv serve (retransmits,\n"
		"                       cwnd, RTT) to the summary and to -i's lines (a [srv]\n"
		"                       line after each); -R and --bidir always do.\n"
		"                       Without -s, serve's size (--size, a --source file)\n"
		"                       gives the progress line a percentage and an ETA\n"
		"  -n, --count N        make N transfers (each until the server closes)\n"
		"  -P, --parallel P     without --count: P streams at once, one thread each,\n"
		"                       with a line per stream and their sum (-b is their\n"
		"                       total); with --count: up to P connections at once\n"
		"                       (default 1; capped by the open-file limit)\n"
		"  -i, --interval SEC   a line every SEC seconds per stream (and their sum\n"
		"                       with -P): bytes, bit/s and TCP's retransmits, cwnd,\n"
		"                       RTT, pacing and delivery rate; with --json, JSON Lines\n"
		"                       (on stdout; stderr with -o -). It also sets the\n"
		"                       progress line's refresh\n"
		"                       (default 1 s), which is all it does with --count\n"
		"      --omit SEC       leave the first SEC seconds out of the results (slow\n"
		"                       start)\n"
		"      --rate RATE      pace each stream to RATE bits per second (K, M, G:\n"
		"                       SI; per -P stream, as iperf3 -b): an upload here, a\n"
		"                       download by ncpv serve, asked through the side\n"
		"                       channel (a server that cannot is an error, exit 1);\n"
		"                       SO_MAX_PACING_RATE where the kernel has it\n"
		"      --busy-poll USEC\n"
		"                       while data comes this fast, poll instead of sleeping\n"
		"                       (default 50 microseconds; 0: always sleep)\n"
		"  -f, --force          show progress even when stderr is not a terminal\n"
		"  -q, --quiet          no progress and no text summary (--json still prints)\n"
		"  -j, --json           print a JSON summary on stdout (with -o -, on stderr\n"
		"                       instead of the text summary);\n"
		"                       with -i, an object per interval first (JSON Lines)\n"
		"  -4, -6               IPv4 or IPv6 only\n"
		"      --tls            speak TLS (1.2 or 1.3), verifying the server's\n"
		"                       certificate\n"
		"      --cacert FILE    trust the CAs in FILE instead of the system's\n"
		"      --insecure       do not verify the server's certificate at all\n"
		"      --pin SHA256     accept exactly the certificate with this fingerprint\n"
		"      --sni NAME       the server name to send and to verify (default HOST)\n"
		"      --alpn LIST      offer these ALPN protocols (comma-separated)\n"
		"  -C, --congestion CC  TCP congestion control CC (one the kernel has), or 'list'\n"
		"                       to print those it has and those this user may pick\n"
		"      --window N       send and receive buffers of N bytes (the kernel doubles\n"
		"                       and caps them: the summary shows what it granted)\n"
		"  -M, --mss N          TCP maximum segment size, set before the connect\n"
		"  -N, --no-delay       TCP_NODELAY: no Nagle (--send's small writes go at once)\n"
		"      --tos TOS        IP TOS / IPv6 traffic class: a number (0x10) or a DSCP\n"
		"                       class (ef, af11..af43, cs0..cs7, le)\n"
		"      --bind ADDR      connect from this local address\n"
		"      --cport PORT     connect from this local port\n"
		"  -u, --udp            a UDP test against serve -u instead: loss, jitter,\n"
		"                       reordering at a paced --rate (see 'ncpv get -u --help')\n"
		"  -h, --help           show this help\n\n"
		"SEC is in seconds (2.5), or takes a unit: 500ms, 30s, 1m, 1h.\n"
		"Exit status: 0 done (an interrupted one too, unless -o keeps it), 1 it failed,\n"
		"ended short or was interrupted with -o or --count, 2 bad option (or a --bind,\n"
		"--cport this host cannot use), 3 name or port not resolved, 4 refused or\n"
		"unreachable, 5 timed out (-w), 6 a local file (-o, --source), 8-13 TLS\n"
		"(handshake, CA, expiry, host, --pin, -w).\n");
}

enum cmd_parse get_parse_options(int argc, char **argv, struct get_args *a, volatile sig_atomic_t *cancel)
{
	struct get_opts *o = &a->run;
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 'w' },
		{ "time", required_argument, NULL, 't' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "send", no_argument, NULL, 'U' },
		{ "reverse", no_argument, NULL, 'R' },
		{ "bidir", no_argument, NULL, OPT_BIDIR },
		{ "server-view", no_argument, NULL, OPT_SERVER_VIEW },
		{ "source", required_argument, NULL, 'S' },
		{ "zerocopy", no_argument, NULL, 'Z' },
		{ "count", required_argument, NULL, 'n' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "interval", required_argument, NULL, 'i' },
		{ "busy-poll", required_argument, NULL, OPT_BUSY_POLL },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "congestion", required_argument, NULL, 'C' },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "mss", required_argument, NULL, 'M' },
		{ "no-delay", no_argument, NULL, 'N' },
		{ "tos", required_argument, NULL, OPT_TOS },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "cport", required_argument, NULL, OPT_CPORT },
		{ "omit", required_argument, NULL, OPT_OMIT },
		{ "rate", required_argument, NULL, OPT_RATE },
		CMD_TLS_CLIENT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int interval_given = 0;
	const char *rate_arg = NULL;
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
	sockopt_init(&a->sock);
	opterr = 0;
	optind = 0; /* 0, not 1: glibc then forgets a previous parse's half-read cluster */
	while ((c = getopt_long(argc, argv, ":w:t:b:s:o:uS:Zn:P:i:fqj46hC:M:NR", longopts, NULL)) != -1) {
		uint64_t n;
		long l;

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
		case 'R':
		case OPT_BIDIR:
		case OPT_SERVER_VIEW: {
			int mode = 1 + (c == 'R' ? GET_SIDE_REVERSE : c == OPT_BIDIR ? GET_SIDE_BIDIR : GET_SIDE_VIEW);

			/* --server-view goes with either direction; the two directions do not go together. */
			if (a->side > 1 + GET_SIDE_VIEW && mode > 1 + GET_SIDE_VIEW && a->side != mode) {
				cmd_error("get", "--reverse and --bidir conflict: --bidir already sends");
				return CMD_PARSE_USAGE;
			}
			if (mode > a->side)
				a->side = mode;
			break;
		}
		case 'u': /* never reached: cmd_get hands -u to the UDP test first */
			cmd_error("get", "-u must be a word of its own (try 'ncpv get -u --help')");
			return CMD_PARSE_USAGE;
		case 'S':
			o->source = optarg;
			break;
		case 'Z':
			o->zerocopy = 1;
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
			interval_given = 1;
			break;
		case OPT_OMIT:
			if (units_parse_seconds(optarg, &o->omit) < 0)
				return cmd_bad_value("get", "omit", optarg, "expected seconds such as 2 or 500ms");
			break;
		case OPT_RATE:
			if (udp_parse_rate(optarg, &o->rate) < 0)
				return cmd_bad_value("get", "rate", optarg, "expected bits per second such as 100M, 1.5G or 0");
			rate_arg = optarg;
			break;
		case 'f':
			a->force = 1;
			break;
		case 'C':
			if (strcmp(optarg, "list") == 0) {
				a->list_cc = 1;
				break;
			}
			if (sockopt_check_cc_name(optarg) < 0)
				return cmd_bad_value("get", "congestion", optarg,
						     "expected a name such as cubic or bbr ('--congestion list' shows them)");
			a->sock.congestion = optarg;
			o->sock = &a->sock;
			break;
		case OPT_WINDOW:
			if (units_parse_size(optarg, &n) < 0 || n == 0 || n > INT_MAX / 2)
				return cmd_bad_value("get", "window", optarg, "expected a byte count from 1 to 1G");
			a->sock.sndbuf = a->sock.rcvbuf = (int)n;
			o->sock = &a->sock;
			break;
		case 'M':
			if (units_parse_long(optarg, 1, 65535, &l) < 0)
				return cmd_bad_value("get", "mss", optarg, "expected a number from 1 to 65535");
			a->sock.mss = (int)l;
			o->sock = &a->sock;
			break;
		case 'N':
			a->sock.nodelay = 1;
			o->sock = &a->sock;
			break;
		case OPT_TOS:
			if (sockopt_parse_tos(optarg, &a->sock.tos) < 0)
				return cmd_bad_value("get", "tos", optarg,
						     "expected 0 to 255 (0x10) or a DSCP class: ef, af11..af43, cs0..cs7, le");
			o->sock = &a->sock;
			break;
		case OPT_BIND:
			o->net.bind_host = optarg;
			break;
		case OPT_CPORT:
			if (addr_parse_port(optarg) <= 0)
				return cmd_bad_value("get", "cport", optarg, "expected a port from 1 to 65535");
			o->net.bind_port = optarg;
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
	if (a->list_cc) {
		char have[256], allowed[256];

		if (sockopt_cc_available(have, sizeof(have)) < 0) {
			cmd_error("get", "--congestion list: cannot read %s: %s",
				  "/proc/sys/net/ipv4/tcp_available_congestion_control", strerror(errno));
			return CMD_PARSE_USAGE;
		}
		if (sockopt_cc_allowed(allowed, sizeof(allowed)) < 0)
			snprintf(allowed, sizeof(allowed), "?");
		printf("available: %s\nallowed without CAP_NET_ADMIN: %s\n", have, allowed);
		return CMD_PARSE_DONE;
	}
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
	if (o->parallel > GET_STREAMS_MAX && !o->count) {
		cmd_error("get", "--parallel %ld without --count: at most %d streams (a thread each; iperf3 "
			  "allows 128 too)", o->parallel, GET_STREAMS_MAX);
		return CMD_PARSE_USAGE;
	}
	if (o->parallel > 1 && !o->count && o->output) {
		cmd_error("get", "--parallel without --count makes %ld streams: they cannot share --output", o->parallel);
		return CMD_PARSE_USAGE;
	}
	if (o->parallel > 1 && !o->count && o->net.bind_port) {
		cmd_error("get", "--parallel %ld: the streams cannot all connect from one --cport", o->parallel);
		return CMD_PARSE_USAGE;
	}
	if (o->parallel > 1 && !o->count && o->max_bytes && o->max_bytes < (uint64_t)o->parallel) {
		cmd_error("get", "--bytes %llu is shared by %ld streams: give each at least one byte",
			  (unsigned long long)o->max_bytes, o->parallel);
		return CMD_PARSE_USAGE;
	}
	if (o->parallel > 1 && !o->count && o->has_size && o->size < (uint64_t)o->parallel) {
		cmd_error("get", "--size %llu is shared by %ld streams: give each at least one byte",
			  (unsigned long long)o->size, o->parallel);
		return CMD_PARSE_USAGE;
	}
	if (o->count && (o->sock || o->net.bind_host || o->net.bind_port)) {
		cmd_error("get", "socket settings (--congestion, --window, --mss, --no-delay, --tos, --bind, "
			  "--cport) apply to one stream, not yet to --count");
		return CMD_PARSE_USAGE;
	}
	if (o->count && (o->send || o->output || o->max_bytes)) {
		cmd_error("get", "--count makes whole downloads: it does not combine with %s",
			  o->send ? "--send" : o->output ? "--output" : "--bytes");
		return CMD_PARSE_USAGE;
	}
	if (o->count && (o->omit > 0 || rate_arg)) {
		cmd_error("get", "--count makes whole downloads: it does not combine with %s",
			  o->omit > 0 ? "--omit" : "--rate");
		return CMD_PARSE_USAGE;
	}
	/* A download's sender is the server: ncpv serve paces it, asked through the side channel,
	 * which is plain TCP's and, for now, a session of its own. */
	if (rate_arg && o->rate > 0 && !o->send && (a->tls.on || a->side)) {
		cmd_error("get", "--rate %s on a download does not combine with %s%s", rate_arg,
			  a->tls.on ? "--tls" : a->side == 1 + GET_SIDE_REVERSE ? "--reverse" :
			  a->side == 1 + GET_SIDE_BIDIR ? "--bidir" : "--server-view",
			  a->tls.on ? " (serve is asked to pace through the side channel, which is plain TCP's)" :
			  " yet (use --send --rate to pace an upload)");
		return CMD_PARSE_USAGE;
	}
	/* serve paces a download to a kilobyte a second at the least (sidechan.h): worded as -u's
	 * floor, a datagram a second. */
	if (rate_arg && o->rate > 0 && !o->send && o->rate < (double)SIDE_RATE_MIN) {
		cmd_error("get", "invalid rate '%s': below a kilobyte a second per stream (%llu bit/s), the least serve "
			  "paces a download to; ask for more, or 0 for no pacing", rate_arg, (unsigned long long)SIDE_RATE_MIN);
		return CMD_PARSE_USAGE;
	}
	if (interval_given && !o->count)
		o->interval = a->interval; /* -i's lines; --count keeps -i as the refresh alone */
	if (o->send && o->output) {
		cmd_error("get", "--send and --output conflict: an upload writes nothing");
		return CMD_PARSE_USAGE;
	}
	if (a->side && (o->send || o->count || o->parallel > 1 || a->tls.on)) {
		cmd_error("get", "%s does not combine with %s%s", a->side == 1 + GET_SIDE_REVERSE ? "--reverse" :
			  a->side == 1 + GET_SIDE_BIDIR ? "--bidir" : "--server-view",
			  o->send ? "--send" : o->count ? "--count" : o->parallel > 1 ? "--parallel" : "--tls",
			  o->send ? " (it uploads already)" : a->tls.on ? " (the side channel is plain TCP's)" : " yet");
		return CMD_PARSE_USAGE;
	}
	if (o->zerocopy && cmd_zerocopy_check("get", o->send || a->side > 1 + GET_SIDE_VIEW ? NULL : "a download",
					       o->source, a->tls.on) < 0)
		return CMD_PARSE_USAGE;
	if (a->side == 1 + GET_SIDE_REVERSE && o->output) {
		cmd_error("get", "--reverse and --output conflict: an upload writes nothing");
		return CMD_PARSE_USAGE;
	}
	if (!o->parallel)
		o->parallel = 1;
	/* -o - puts the JSON on stderr: there it is the only summary, so that stderr parses. */
	if (a->json && o->output && strcmp(o->output, "-") == 0)
		a->quiet = 1;
	o->net.timeout_ms = o->timeout > 0 ? net_ms_until(o->timeout, 0) : 0;
	o->net.cancel = o->cancel = cancel;
	o->tls = a->tls.on ? &a->tls.cfg : NULL;
	o->tls_name = a->tls.sni ? a->tls.sni : o->at.host;
	return CMD_PARSE_RUN;
}
