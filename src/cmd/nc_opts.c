/* SPDX-License-Identifier: ISC */
/* nc_opts.c - "ncpv nc" command line: OpenBSD nc's options, checks and messages, parsed once. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "nc.h"
#include "../addr.h"
#include "../units.h"

enum { OPT_PROGRESS = 1000, OPT_JSON, OPT_HELP };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nc [-46bCDdFhklNnrtUuvz] [-I length] [-i interval] [-M ttl]\n"
		"\t  [-m minttl] [-O length] [-P proxy_username] [-p source_port]\n"
		"\t  [-q seconds] [-s sourceaddr] [-T keyword] [-W recvlimit]\n"
		"\t  [-w timeout] [-X proxy_protocol] [-x proxy_address[:port]]\n"
		"\t  [--progress] [--json] [destination] [port]\n");
}

static void help(void)
{
	usage(stderr);
	fprintf(stderr,
		"\tCommand Summary (OpenBSD netcat as Debian ships it, plus a meter):\n"
		"\t\t-4\t\tUse IPv4\n"
		"\t\t-6\t\tUse IPv6\n"
		"\t\t-b\t\tAllow broadcast\n"
		"\t\t-C\t\tSend CRLF as line-ending\n"
		"\t\t-D\t\tEnable the debug socket option\n"
		"\t\t-d\t\tDetach from stdin\n"
		"\t\t-F\t\tPass socket fd\n"
		"\t\t-h\t\tThis help text\n"
		"\t\t-I length\tTCP receive buffer length\n"
		"\t\t-i interval\tDelay interval for lines sent, ports scanned\n"
		"\t\t-k\t\tKeep inbound sockets open for multiple connects\n"
		"\t\t-l\t\tListen mode, for inbound connects\n"
		"\t\t-M ttl\t\tOutgoing TTL / Hop Limit\n"
		"\t\t-m minttl\tMinimum incoming TTL / Hop Limit\n"
		"\t\t-N\t\tShutdown the network socket after EOF on stdin\n"
		"\t\t-n\t\tSuppress name/port resolutions\n"
		"\t\t-O length\tTCP send buffer length\n"
		"\t\t-P proxyuser\tUsername for proxy authentication (HTTP CONNECT, SOCKS5);\n"
		"\t\t\t\tthe password comes from NCPV_PROXY_PASSWORD or the terminal\n"
		"\t\t-p port\t\tSpecify local port for remote connects\n"
		"\t\t-q secs\t\tquit after EOF on stdin and delay of secs (implies -N)\n"
		"\t\t-r\t\tRandomize remote ports\n"
		"\t\t-s sourceaddr\tLocal source address\n"
		"\t\t-T keyword\tTOS value\n"
		"\t\t-t\t\tAnswer TELNET negotiation\n"
		"\t\t-U\t\tUse UNIX domain socket ('@name': Linux abstract)\n"
		"\t\t-u\t\tUDP mode\n"
		"\t\t-v\t\tVerbose\n"
		"\t\t-W recvlimit\tTerminate after receiving a number of packets\n"
		"\t\t-w timeout\tTimeout for connects and final net reads\n"
		"\t\t-X proto\tProxy protocol: \"4\", \"5\" (SOCKS) or \"connect\"\n"
		"\t\t-x addr[:port]\tSpecify proxy address and port\n"
		"\t\t-z\t\tZero-I/O mode [used for scanning]\n"
		"\t\t--progress\tpv-style meter on stderr, counting both directions\n"
		"\t\t--json\t\ta JSON summary on stderr at exit\n"
		"\tNot available in ncpv: -S (TCP MD5), -V (routing table), -Z (DCCP)\n"
		"\tPort numbers can be individual or ranges: lo-hi [inclusive]\n");
}

static int fail(const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg);
	cmd_error("nc", "%s", msg);
	return -1;
}

/* A bounded integer in nc's words: "WHAT invalid: ARG", "WHAT too large: ARG". */
static int number(const char *what, const char *arg, long lo, long hi, long *out)
{
	char msg[128];

	if (units_parse_long(arg, lo, hi, out) == 0)
		return 0;
	if (errno == ERANGE) {
		char *end;
		long v = strtol(arg, &end, 10);

		snprintf(msg, sizeof(msg), "%s %s: %%s", what, v < lo ? "too small" : "too large");
		return fail(msg, arg);
	}
	snprintf(msg, sizeof(msg), "%s invalid: %%s", what);
	return fail(msg, arg);
}

int nc_parse_tos(const char *s)
{
	static const struct {
		const char *name;
		int value;
	} names[] = {
		{ "af11", 0x28 }, { "af12", 0x30 }, { "af13", 0x38 }, { "af21", 0x48 },
		{ "af22", 0x50 }, { "af23", 0x58 }, { "af31", 0x68 }, { "af32", 0x70 },
		{ "af33", 0x78 }, { "af41", 0x88 }, { "af42", 0x90 }, { "af43", 0x98 },
		{ "critical", 0xa0 }, { "cs0", 0x00 }, { "cs1", 0x20 }, { "cs2", 0x40 },
		{ "cs3", 0x60 }, { "cs4", 0x80 }, { "cs5", 0xa0 }, { "cs6", 0xc0 },
		{ "cs7", 0xe0 }, { "ef", 0xb8 }, { "inetcontrol", 0xc0 }, { "lowcost", 0x02 },
		{ "lowdelay", 0x10 }, { "netcontrol", 0xe0 }, { "reliability", 0x04 },
		{ "throughput", 0x08 },
	};
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].value;
	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0 || v > 255)
		return -1;
	return (int)v;
}

/* One port or service name for proto: 1..65535, in nc's words on error. */
static int one_port(const char *s, int udp)
{
	struct servent *sv;
	int p;

	if (s[0] >= '0' && s[0] <= '9') {
		p = addr_parse_port(s);
		if (p >= 1)
			return p;
		if (p == 0 || (p < 0 && errno == ERANGE))
			return fail(p == 0 ? "port number too small: %s" : "port number too large: %s", s);
		return fail("port number invalid: %s", s);
	}
	sv = getservbyname(s, udp ? "udp" : "tcp");
	if (sv == NULL)
		return fail("port number invalid: %s", s);
	return ntohs((uint16_t)sv->s_port);
}

/* A port, a service name or a range "lo-hi" (either order), appended to o->ports. */
static int add_ports(struct nc_opts *o, const char *spec)
{
	const char *dash = strchr(spec, '-');
	int lo, hi;

	if (o->listen && strcmp(spec, "0") == 0) {
		/* ncpv's addition: listen on a port the kernel picks (-v prints it). */
		o->ports[o->nports++] = 0;
		return 0;
	}
	if (dash && spec[0] >= '0' && spec[0] <= '9' && getservbyname(spec, o->udp ? "udp" : "tcp") == NULL) {
		char a[16], b[16], range[40];

		if ((size_t)(dash - spec) >= sizeof(a) || strlen(dash + 1) >= sizeof(b))
			return fail("port range invalid: %s", spec);
		memcpy(a, spec, (size_t)(dash - spec));
		a[dash - spec] = '\0';
		snprintf(b, sizeof(b), "%s", dash + 1);
		if ((lo = one_port(a, o->udp)) < 0 || (hi = one_port(b, o->udp)) < 0)
			return -1;
		snprintf(range, sizeof(range), "%d-%d", lo < hi ? lo : hi, lo < hi ? hi : lo);
		if (addr_parse_port_range(range, &lo, &hi) < 0)
			return fail("port range invalid: %s", spec);
	} else {
		if ((lo = one_port(spec, o->udp)) < 0)
			return -1;
		hi = lo;
	}
	for (int p = lo; p <= hi; p++) {
		if (o->nports >= NC_MAX_PORTS)
			return fail("too many ports: %s", spec);
		o->ports[o->nports++] = p;
	}
	return 0;
}

static void shuffle_ports(struct nc_opts *o)
{
	for (int i = o->nports - 1; i > 0; i--) {
		uint32_t r = 0;

		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			r = (uint32_t)i * 2654435761u;
		int j = (int)(r % (uint32_t)(i + 1)), t = o->ports[i];

		o->ports[i] = o->ports[j];
		o->ports[j] = t;
	}
}

static int refuse(int c)
{
	const char *what = c == 'S' ? "TCP MD5 signatures" : c == 'V' ? "routing tables" : "DCCP";
	char msg[128];

	snprintf(msg, sizeof(msg), "option -%c (%s) is not supported by ncpv nc", c, what);
	cmd_error("nc", "%s", msg);
	return -1;
}

static int set_proxy_proto(struct nc_opts *o, const char *arg)
{
	if (strcmp(arg, "4") == 0)
		o->proxy_proto = PROXY_SOCKS4;
	else if (strcmp(arg, "5") == 0)
		o->proxy_proto = PROXY_SOCKS5;
	else if (strcasecmp(arg, "connect") == 0)
		o->proxy_proto = PROXY_HTTP;
	else
		return fail("unsupported proxy protocol%s", "");
	return 0;
}

static int parse_flag(struct nc_opts *o, int c, const char *arg)
{
	long v;
	double secs;

	switch (c) {
	case '4': o->family = AF_INET; break;
	case '6': o->family = AF_INET6; break;
	case 'b': o->broadcast = 1; break;
	case 'C': o->crlf = 1; break;
	case 'D': o->debug = 1; break;
	case 'd': o->no_stdin = 1; break;
	case 'F': o->fdpass = 1; break;
	case 'k': o->keep = 1; break;
	case 'l': o->listen = 1; break;
	case 'N': o->shutdown_on_eof = 1; break;
	case 'n': o->numeric = 1; break;
	case 'r': o->random_order = 1; break;
	case 't': o->telnet = 1; break;
	case 'U': o->unix_sock = 1; break;
	case 'u': o->udp = 1; break;
	case 'v': o->verbose = 1; break;
	case 'z': o->scan = 1; break;
	case 'I':
		if (number("TCP receive window", arg, 1, 1 << 30, &v) < 0)
			return -1;
		o->rcvbuf = (int)v;
		break;
	case 'O':
		if (number("TCP send window", arg, 1, 1 << 30, &v) < 0)
			return -1;
		o->sndbuf = (int)v;
		break;
	case 'i':
		if (units_parse_seconds(arg, &secs) < 0)
			return fail("interval invalid: %s", arg);
		o->interval = secs;
		break;
	case 'M':
		if (number("ttl", arg, 0, 255, &v) < 0)
			return -1;
		o->ttl = (int)v;
		break;
	case 'm':
		if (number("minttl", arg, 0, 255, &v) < 0)
			return -1;
		o->minttl = (int)v;
		break;
	case 'P': o->proxy_user = arg; break;
	case 'p': o->source_port = arg; break;
	case 'q':
		if (number("quit timer", arg, -2147483647L, 2147483647L, &v) < 0)
			return -1;
		o->quit_after = v < 0 ? -1 : (int)v;
		if (v >= 0) /* Debian: a non-negative -q implies -N */
			o->shutdown_on_eof = 1;
		break;
	case 's': o->source = arg; break;
	case 'T':
		if ((o->tos = nc_parse_tos(arg)) < 0)
			return fail("illegal tos value %s", arg);
		break;
	case 'W':
		if (number("receive limit", arg, 1, 2147483647L, &v) < 0)
			return -1;
		o->recvlimit = v;
		break;
	case 'w':
		if (number("timeout", arg, 0, 2147483, &v) < 0)
			return -1;
		o->timeout_ms = v > 0 ? (int)(v * 1000) : -1;
		break;
	case 'X':
		return set_proxy_proto(o, arg);
	case 'x': o->proxy = arg; break;
	case 'S':
	case 'V':
	case 'Z':
		return refuse(c);
	case OPT_PROGRESS: o->progress = 1; break;
	case OPT_JSON: o->json = 1; break;
	default:
		return -1;
	}
	return 0;
}

/* The rules OpenBSD nc checks before doing anything. */
static int check_conflicts(const struct nc_opts *o)
{
	if (o->listen && o->scan)
		return fail("cannot use -z and -l%s", "");
	if (o->keep && !o->listen)
		return fail("must use -l with -k%s", "");
	if (o->fdpass && o->unix_sock)
		return fail("cannot use -F and -U%s", "");
	if (o->fdpass && o->listen)
		return fail("cannot use -F and -l%s", "");
	if (o->proxy && o->listen)
		return fail("no proxy support for listen%s", "");
	if (o->proxy && o->udp)
		return fail("no proxy support for UDP mode%s", "");
	if (o->proxy && o->unix_sock)
		return fail("no proxy support for unix sockets%s", "");
	if (o->proxy && o->source)
		return fail("no proxy support for local source address%s", "");
	return 0;
}

static int parse_operands(struct nc_opts *o, int argc, char **argv)
{
	if (o->unix_sock) {
		if (argc < 1)
			return fail("missing socket pathname%s", "");
		if (argc > 1)
			return fail("too many arguments: %s", argv[1]);
		if (o->source && !o->udp) { /* Debian's nc: -s names only a datagram client */
			usage(stderr);
			return -1;
		}
		o->host = argv[0];
		return 0;
	}
	if (o->listen) {
		/* Debian's nc: -l [host] port, or -s host / -p port in their place, never both. */
		if ((o->source || o->source_port) && argc > 0) {
			usage(stderr);
			return -1;
		}
		if (argc > 2)
			return fail("too many arguments: %s", argv[2]);
		if (argc == 2) {
			o->host = argv[0];
			argv++;
			argc--;
		} else {
			o->host = o->source;
		}
		/* A listener has one port: nc hands a list or range to getaddrinfo, which says this. */
		if (argc == 1 && strpbrk(argv[0], ",-") != NULL && argv[0][strspn(argv[0], "0123456789,-")] == '\0')
			return fail("getaddrinfo: Servname not supported for ai_socktype%s", "");
		if (argc == 1)
			return add_ports(o, argv[0]);
		if (o->source_port)
			return add_ports(o, o->source_port);
		return fail("missing port number%s", "");
	}
	if (argc < 1) {
		usage(stderr);
		return -1;
	}
	if (argc < 2)
		return fail("missing port number%s", "");
	o->host = argv[0];
	for (int i = 1; i < argc; i++)
		if (add_ports(o, argv[i]) < 0)
			return -1;
	if (o->random_order)
		shuffle_ports(o);
	return 0;
}

enum cmd_parse nc_parse_options(int argc, char **argv, struct nc_opts *o)
{
	static const struct option longopts[] = {
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->family = AF_UNSPEC;
	o->ttl = o->minttl = o->tos = -1;
	o->quit_after = -1;
	o->timeout_ms = -1;
	opterr = 0;
	optind = 0; /* 0: glibc forgets all state from an earlier parse */
	while ((c = getopt_long(argc, argv, ":46bCDdFhI:i:klM:m:NnO:P:p:q:rSs:T:tUuV:vW:w:X:x:Zz",
				longopts, NULL)) != -1) {
		if (c == 'h' || c == OPT_HELP) {
			help();
			return CMD_PARSE_DONE;
		}
		if (c == ':') {
			cmd_error("nc", "option requires an argument -- '%c'", optopt);
			usage(stderr);
			return CMD_PARSE_USAGE;
		}
		if (c == '?') {
			if (optopt)
				cmd_error("nc", "invalid option -- '%c'", optopt);
			else
				cmd_error("nc", "unrecognized option '%s'", argv[optind - 1]);
			usage(stderr);
			return CMD_PARSE_USAGE;
		}
		if (parse_flag(o, c, optarg) < 0)
			return CMD_PARSE_USAGE;
	}
	if (o->proxy && o->proxy_proto == PROXY_NONE)
		o->proxy_proto = PROXY_SOCKS5;
	if (o->proxy_proto == PROXY_SOCKS4)
		o->proxy_user = NULL; /* as Debian's nc: SOCKS4 has no password, -P is ignored */
	if (check_conflicts(o) < 0 || parse_operands(o, argc - optind, argv + optind) < 0)
		return CMD_PARSE_USAGE;
	return CMD_PARSE_RUN;
}
