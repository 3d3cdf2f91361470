/* SPDX-License-Identifier: ISC */
/* nc_opts.c - "ncpv nc" command line: OpenBSD nc's options, checks and messages, parsed once. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "nc_cmd.h"
#include "../addr.h"
#include "../units.h"
#include "../tls_cert.h"

enum { OPT_PROGRESS = 1000, OPT_JSON, OPT_HELP };

void nc_error(const struct nc_opts *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (o->prog) { /* run as nc: err(3)'s "PROGNAME: message" */
		cmd_verror(o->prog, fmt, ap);
	} else {
		char msg[1024];

		vsnprintf(msg, sizeof(msg), fmt, ap);
		cmd_error("nc", "%s", msg);
	}
	va_end(ap);
}

static int fail(const struct nc_opts *o, const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg);
	nc_error(o, "%s", msg);
	return -1;
}

/* A bounded integer in nc's words: "WHAT invalid: ARG", "WHAT too large: ARG"; run as nc, -M and
 * -m say "ttl is too large" without the value, as nc does. */
static int number(const struct nc_opts *o, const char *what, const char *arg, long lo, long hi, long *out)
{
	const char *why = "invalid";

	if (units_parse_long(arg, lo, hi, out) == 0)
		return 0;
	if (errno == ERANGE) {
		long any;

		/* A number, just outside [lo, hi]; past a long, its sign says which side. */
		if (units_parse_long(arg, LONG_MIN, LONG_MAX, &any) == 0)
			why = any < lo ? "too small" : "too large";
		else
			why = arg[0] == '-' ? "too small" : "too large";
	}
	if (o->prog && strstr(what, "ttl"))
		nc_error(o, "%s is %s", what, why);
	else
		nc_error(o, "%s %s: %s", what, why, arg);
	return -1;
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
static int one_port(const struct nc_opts *o, const char *s)
{
	struct servent *sv;
	int p;

	if (s[0] >= '0' && s[0] <= '9') {
		p = addr_parse_port(s);
		if (p >= 1)
			return p;
		if (p == 0 || (p < 0 && errno == ERANGE))
			return fail(o, p == 0 ? "port number too small: %s" : "port number too large: %s", s);
		return fail(o, "port number invalid: %s", s);
	}
	sv = getservbyname(s, o->udp ? "udp" : "tcp");
	if (sv == NULL)
		return fail(o, "port number invalid: %s", s);
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
			return fail(o, "port range invalid: %s", spec);
		memcpy(a, spec, (size_t)(dash - spec));
		a[dash - spec] = '\0';
		snprintf(b, sizeof(b), "%s", dash + 1);
		if ((lo = one_port(o, a)) < 0 || (hi = one_port(o, b)) < 0)
			return -1;
		snprintf(range, sizeof(range), "%d-%d", lo < hi ? lo : hi, lo < hi ? hi : lo);
		if (addr_parse_port_range(range, &lo, &hi) < 0)
			return fail(o, "port range invalid: %s", spec);
	} else {
		if ((lo = one_port(o, spec)) < 0)
			return -1;
		hi = lo;
	}
	for (int p = lo; p <= hi; p++) {
		if (o->nports >= NC_MAX_PORTS)
			return fail(o, "too many ports: %s", spec);
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

static int refuse(const struct nc_opts *o, int c)
{
	const char *what = c == 'S' ? "TCP MD5 signatures" : c == 'V' ? "routing tables" : "DCCP";

	/* Run as nc: the words nc itself uses when built without the feature. */
	if (o->prog)
		nc_error(o, "no %s support available", c == 'S' ? "TCP MD5 signature"
						       : c == 'V' ? "alternate routing table" : "DCCP");
	else
		nc_error(o, "option -%c (%s) is not supported by ncpv nc", c, what);
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
		return fail(o, "unsupported proxy protocol%s", "");
	return 0;
}

static int parse_flag(struct nc_opts *o, struct cmd_tls *tls, int c, const char *arg)
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
		if (number(o, "TCP receive window", arg, 1, 1 << 30, &v) < 0)
			return -1;
		o->rcvbuf = (int)v;
		break;
	case 'O':
		if (number(o, "TCP send window", arg, 1, 1 << 30, &v) < 0)
			return -1;
		o->sndbuf = (int)v;
		break;
	case 'i':
		if (units_parse_seconds(arg, &secs) < 0)
			return fail(o, o->prog && arg[0] == '-' ? "interval too small: %s" :
				       o->prog && arg[0] && arg[strspn(arg, "0123456789")] == '\0' ? "interval too large: %s" :
				       "interval invalid: %s", arg);
		o->interval = secs;
		break;
	case 'M':
		if (number(o, "ttl", arg, 0, 255, &v) < 0)
			return -1;
		o->ttl = (int)v;
		break;
	case 'm':
		if (number(o, "minttl", arg, 0, 255, &v) < 0)
			return -1;
		o->minttl = (int)v;
		break;
	case 'P': o->proxy_user = arg; break;
	case 'p':
		/* getaddrinfo would bind 70000 as 4464 and " 1" as 1 (OpenBSD nc does): a number is
		 * checked by the one strict parser, a service name left to getaddrinfo. */
		if (!isalpha((unsigned char)arg[0]) && addr_parse_port(arg) < 0)
			return fail(o, errno != ERANGE ? "port number invalid: %s" :
				       arg[0] == '-' ? "port number too small: %s" : "port number too large: %s", arg);
		o->source_port = arg;
		break;
	case 'q':
		if (number(o, "quit timer", arg, -2147483647L, 2147483647L, &v) < 0)
			return -1;
		o->quit_after = v < 0 ? -1 : (int)v;
		if (v >= 0) /* Debian: a non-negative -q implies -N */
			o->shutdown_on_eof = 1;
		break;
	case 's': o->source = arg; break;
	case 'T':
		if ((o->tos = nc_parse_tos(arg)) < 0)
			return fail(o, "illegal tos value %s", arg);
		break;
	case 'W':
		if (number(o, "receive limit", arg, 1, 2147483647L, &v) < 0)
			return -1;
		o->recvlimit = v;
		break;
	case 'w':
		if (number(o, "timeout", arg, 0, 2147483, &v) < 0)
			return -1;
		o->timeout_ms = v > 0 ? (int)(v * 1000) : -1;
		break;
	case 'X':
		return set_proxy_proto(o, arg);
	case 'x': o->proxy = arg; break;
	case 'S':
	case 'V':
	case 'Z':
		return refuse(o, c);
	case OPT_PROGRESS: o->progress = 1; break;
	case OPT_JSON: o->json = 1; break;
	default:
		if (!cmd_tls_option(tls, c, arg))
			return -1;
		tls->on = 1; /* as ncat: any --ssl-* option means --ssl */
		break;
	}
	return 0;
}

/* --ssl's own rules: TCP only, and each option on the side where it means something. */
static int check_tls(const struct nc_opts *o, const struct cmd_tls *t)
{
	const struct tls_config *c = &t->cfg;
	const char *empty = c->cert_file && !*c->cert_file ? "--ssl-cert" : c->key_file && !*c->key_file ? "--ssl-key" :
			    c->ca_file && !*c->ca_file ? "--ssl-trustfile" : t->sni && !*t->sni ? "--ssl-servername" :
			    c->alpn && !*c->alpn ? "--ssl-alpn" : NULL;

	if (!t->on)
		return 0;
	/* An empty --ssl-servername checked no host name at all: each empty value is refused. */
	if (empty)
		return fail(o, "%s: empty value", empty);
	if (t->sni && tls_host_name_problem(t->sni) != NULL)
		return fail(o, "invalid --ssl-servername: %s", t->sni);
	if (!TLS_AVAILABLE)
		return fail(o, "--ssl: this build has no TLS support (built without OpenSSL)%s", "");
	if (o->udp)
		return fail(o, "cannot use --ssl and -u%s", "");
	if (o->scan)
		return fail(o, "cannot use --ssl and -z%s", "");
	if (o->fdpass)
		return fail(o, "cannot use --ssl and -F%s", "");
	if (o->unix_sock)
		return fail(o, "cannot use --ssl and -U%s", "");
	if (o->listen && (t->verify || t->cfg.ca_file || t->sni))
		return fail(o, "%s is for connect mode (client certificates are not checked)",
			    t->verify ? "--ssl-verify" : t->cfg.ca_file ? "--ssl-trustfile" : "--ssl-servername");
	if (!o->listen && (t->cfg.cert_file || t->cfg.key_file))
		return fail(o, "%s is for listen mode (client certificates are not supported)",
			    t->cfg.cert_file ? "--ssl-cert" : "--ssl-key");
	if (t->cfg.key_file && !t->cfg.cert_file)
		return fail(o, "--ssl-key needs --ssl-cert%s", "");
	return 0;
}

/* The rules OpenBSD nc checks before doing anything. */
static int check_conflicts(const struct nc_opts *o)
{
	if (o->listen && o->scan)
		return fail(o, "cannot use -z and -l%s", "");
	if (o->keep && !o->listen)
		return fail(o, "must use -l with -k%s", "");
	if (o->fdpass && o->unix_sock)
		return fail(o, "cannot use -F and -U%s", "");
	if (o->proxy && o->udp)
		return fail(o, "no proxy support for UDP mode%s", "");
	if (o->proxy && o->listen)
		return fail(o, "no proxy support for listen%s", "");
	if (o->proxy && o->unix_sock)
		return fail(o, "no proxy support for unix sockets%s", "");
	if (o->proxy && o->source)
		return fail(o, "no proxy support for local source address%s", "");
	if (o->proxy && o->prog && o->proxy[0] == '[') { /* nc's own checks of "[v6]:port" */
		const char *close = strchr(o->proxy, ']');

		if (close == NULL)
			return fail(o, "missing closing bracket in proxy%s", "");
		if (close[1] != '\0' && close[1] != ':')
			return fail(o, "garbage proxy port delimiter%s", "");
	}
	return 0;
}

static int usage_fail(const struct nc_opts *o)
{
	nc_usage(o);
	return -1;
}

/* The operands' shape, checked before any conflict between options, in Debian's nc's order:
 * -l takes [host] port or -s/-p in their place, never both; -U takes one path (a listener's may
 * come from -s), -s only for a -u client, never -p. Run as ncpv, some words are ncpv's. */
static int check_shape(const struct nc_opts *o, int argc, char **argv)
{
	if (o->unix_sock && argc == 1) {
		if (o->source_port || (o->source && (!o->udp || o->listen)))
			return usage_fail(o);
		return 0;
	}
	if (argc == 0 && o->listen) {
		if (o->unix_sock && o->source_port)
			return fail(o, "cannot use port with -U%s", "");
		if (o->unix_sock && !o->source)
			return fail(o, "missing socket pathname%s", "");
		if (!o->unix_sock && !o->source_port)
			return fail(o, "missing port number%s", "");
		return 0;
	}
	if (argc == 1 && o->listen)
		return o->source || o->source_port ? usage_fail(o) : 0;
	if (argc >= 2) {
		if (o->listen && (o->source || o->source_port || argc > 2)) {
			if (!o->prog && !o->source && !o->source_port)
				return fail(o, "too many arguments: %s", argv[2]);
			return usage_fail(o);
		}
		if (o->unix_sock)
			return o->prog ? fail(o, "cannot use port with -U%s", "") :
					 fail(o, "too many arguments: %s", argv[1]);
		return 0;
	}
	if (argc == 1)
		return o->source || o->source_port ? usage_fail(o) : fail(o, "missing port number%s", "");
	if (!o->prog && o->unix_sock)
		return fail(o, "missing socket pathname%s", "");
	return usage_fail(o);
}

/* Host and ports from operands whose shape check_shape accepted. */
static int parse_operands(struct nc_opts *o, int argc, char **argv)
{
	const char *spec;

	if (o->unix_sock) {
		o->host = argc > 0 ? argv[0] : o->source; /* nc -lU -s PATH listens at PATH */
		return 0;
	}
	if (o->listen) {
		if (argc == 2) {
			o->host = argv[0];
			argv++;
			argc--;
		} else {
			o->host = o->source;
		}
		spec = argc == 1 ? argv[0] : o->source_port;
		/* A listener has one port: nc hands a list, a range or a name it does not know to
		 * getaddrinfo, which says this (a number ncpv finds too large or oddly written is still
		 * refused in ncpv's words). */
		if ((strpbrk(spec, ",-") != NULL && spec[strspn(spec, "0123456789,-")] == '\0') ||
		    (spec[strspn(spec, " +")] && spec[strspn(spec, " +") + strspn(spec + strspn(spec, " +"), "0123456789")] &&
		     getservbyname(spec, o->udp ? "udp" : "tcp") == NULL))
			return fail(o, "getaddrinfo: Servname not supported for ai_socktype%s", "");
		return add_ports(o, spec);
	}
	o->host = argv[0];
	for (int i = 1; i < argc; i++)
		if (add_ports(o, argv[i]) < 0)
			return -1;
	if (o->random_order)
		shuffle_ports(o);
	return 0;
}

/* getopt's complaint. Run as nc, glibc's getopt names the program as it was run, path and all. */
static void getopt_error(const struct nc_opts *o, const char *argv0, const char *what, int c)
{
	if (o->prog)
		fprintf(stderr, "%s: %s -- '%c'\n", argv0 ? argv0 : o->prog, what, c);
	else
		nc_error(o, "%s -- '%c'", what, c);
}

enum cmd_parse nc_parse_options(int argc, char **argv, const char *prog, struct nc_opts *o, struct cmd_tls *tls)
{
	static const struct option longopts[] = {
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		CMD_TLS_NCAT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	memset(tls, 0, sizeof(*tls));
	o->prog = prog;
	o->family = AF_UNSPEC;
	o->ttl = o->minttl = o->tos = -1;
	o->quit_after = -1;
	o->timeout_ms = -1;
	opterr = 0;
	optind = 0; /* 0: glibc forgets all state from an earlier parse */
	while ((c = getopt_long(argc, argv, ":46bCDdFhI:i:klM:m:NnO:P:p:q:rSs:T:tUuV:vW:w:X:x:Zz",
				longopts, NULL)) != -1) {
		if (c == 'h' || c == OPT_HELP) {
			nc_help(o);
			return CMD_PARSE_DONE;
		}
		if (c == ':') {
			getopt_error(o, argv[0], "option requires an argument", optopt);
			nc_usage(o);
			return CMD_PARSE_USAGE;
		}
		if (c == '?') {
			if (optopt)
				getopt_error(o, argv[0], "invalid option", optopt);
			else
				nc_error(o, "unrecognized option '%s'", argv[optind - 1]);
			nc_usage(o);
			return CMD_PARSE_USAGE;
		}
		if (parse_flag(o, tls, c, optarg) < 0)
			return CMD_PARSE_USAGE;
	}
	if (o->proxy && o->proxy_proto == PROXY_NONE)
		o->proxy_proto = PROXY_SOCKS5;
	if (o->proxy_proto == PROXY_SOCKS4)
		o->proxy_user = NULL; /* as Debian's nc: SOCKS4 has no password, -P is ignored */
	if (check_shape(o, argc - optind, argv + optind) < 0 || check_conflicts(o) < 0 ||
	    check_tls(o, tls) < 0 || parse_operands(o, argc - optind, argv + optind) < 0)
		return CMD_PARSE_USAGE;
	/* ncat checks nothing unless asked; a trust file asks. */
	if (tls->cfg.ca_file)
		tls->verify = 1;
	tls->cfg.insecure = tls->on && !o->listen && !tls->verify;
	tls->cfg.eof_is_close = 1; /* nc reads a cut stream to its end, as ncat */
	o->ssl = tls->on;
	o->ssl_name = tls->sni;
	return CMD_PARSE_RUN;
}
