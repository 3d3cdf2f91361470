/* SPDX-License-Identifier: ISC */
/* nc_help.c - "ncpv nc" in its own voice: usage and -h, in ncpv's layout or, run as nc, in nc's
 * (same lines, same order), and the one-line errors, "nc: ..." run as nc, else "ncpv nc: ...". */
#include <stdarg.h>
#include <stdio.h>

#include "nc_cmd.h"

/*
 * Run as nc (or netcat), -h and the usage block keep OpenBSD nc's functional strings: the
 * version line scripts test for ("OpenBSD netcat"), the usage synopsis, and one line per option
 * in nc's order with nc's letters and argument names, so that a grep for an option's line finds
 * it. The descriptions are ncpv's own; ncpv's additions follow nc's list.
 */
#define NC_VERSION_LINE "OpenBSD netcat (Debian patchlevel 1.219-1)\n"
#define NC_USAGE \
	"usage: nc [-46CDdFhklNnrStUuvZz] [-I length] [-i interval] [-M ttl]\n" \
	"\t  [-m minttl] [-O length] [-P proxy_username] [-p source_port]\n" \
	"\t  [-q seconds] [-s sourceaddr] [-T keyword] [-V rtable] [-W recvlimit]\n" \
	"\t  [-w timeout] [-X proxy_protocol] [-x proxy_address[:port]]\n" \
	"\t  [destination] [port]\n"

static void usage_to(const struct nc_opts *o, FILE *f)
{
	if (o->prog) {
		fputs(NC_USAGE, f);
		return;
	}
	fprintf(f,
		"usage: nc [-46bCDdFhklNnrtUuvz] [-I length] [-i interval] [-M ttl]\n"
		"\t  [-m minttl] [-O length] [-P proxy_username] [-p source_port]\n"
		"\t  [-q seconds] [-s sourceaddr] [-T keyword] [-W recvlimit]\n"
		"\t  [-w timeout] [-X proxy_protocol] [-x proxy_address[:port]]\n"
		"\t  [--progress] [--json] [--ssl] [--ssl-cert file] [--ssl-key file]\n"
		"\t  [--ssl-verify] [--ssl-trustfile file] [--ssl-servername name]\n"
		"\t  [--ssl-alpn list] [destination] [port]\n");
}

void nc_usage(const struct nc_opts *o)
{
	usage_to(o, stderr);
}

static void help_as_nc(void)
{
	fputs(NC_VERSION_LINE, stderr);
	fputs(NC_USAGE, stderr);
	fputs("\tCommand Summary:\n"
	      "\t\t-4\t\tIPv4 addresses only\n"
	      "\t\t-6\t\tIPv6 addresses only\n"
	      "\t\t-b\t\tPermit sending to a broadcast address (UDP)\n"
	      "\t\t-C\t\tEnd each line sent with CR LF\n"
	      "\t\t-D\t\tTurn on SO_DEBUG\n"
	      "\t\t-d\t\tDo not read standard input\n"
	      "\t\t-F\t\tHand the connected socket to stdout (SCM_RIGHTS)\n"
	      "\t\t-h\t\tShow this list\n"
	      "\t\t-I length\tSocket receive buffer size\n"
	      "\t\t-i interval\tPause between lines sent and between ports tried\n"
	      "\t\t-k\t\tAfter a client leaves, accept the next one\n"
	      "\t\t-l\t\tWait for a client instead of connecting\n"
	      "\t\t-M ttl\t\tTTL / hop limit of packets sent\n"
	      "\t\t-m minttl\tDrop packets arriving below this TTL / hop limit\n"
	      "\t\t-N\t\tAt end of input, shut down the sending side\n"
	      "\t\t-n\t\tNumeric addresses and ports only, no lookups\n"
	      "\t\t-O length\tSocket send buffer size\n"
	      "\t\t-P proxyuser\tUser name for the proxy (HTTP CONNECT, SOCKS5)\n"
	      "\t\t-p port\t\tLocal port to connect from\n"
	      "\t\t-q secs\t\tAt end of input, wait secs seconds, then exit\n"
	      "\t\t\t\t(implies -N)\n"
	      "\t\t-r\t\tTry the ports in random order\n"
	      "\t\t-S\t\tTCP MD5 signatures (not available in ncpv)\n"
	      "\t\t-s sourceaddr\tLocal address to connect from or listen on\n"
	      "\t\t-T keyword\tType of service / DSCP (name or number)\n"
	      "\t\t-t\t\tRefuse every TELNET option the peer asks for\n"
	      "\t\t-U\t\tUnix-domain socket (a path, or '@name': Linux's\n"
	      "\t\t\t\tabstract namespace)\n"
	      "\t\t-u\t\tUDP instead of TCP\n"
	      "\t\t-V rtable\tRouting table (not available in ncpv)\n"
	      "\t\t-v\t\tSay what happens on stderr\n"
	      "\t\t-W recvlimit\tExit after this many packets received\n"
	      "\t\t-w timeout\tGive up a connect, or an idle connection, after\n"
	      "\t\t\t\tthis many seconds\n"
	      "\t\t-X proto\tProxy protocol: \"4\", \"5\" (SOCKS) or \"connect\"\n"
	      "\t\t\t\t(HTTP)\n"
	      "\t\t-x addr[:port]\tProxy to connect through\n"
	      "\t\t-Z\t\tDCCP (not available in ncpv)\n"
	      "\t\t-z\t\tOnly see whether the ports accept a connection\n"
	      "\tncpv's additions (see ncpv nc --help): --progress --json --ssl --ssl-*\n"
	      "\tA port may be a range, lo-hi, both ends included\n",
	      stderr);
}

void nc_help(const struct nc_opts *o)
{
	if (o->prog) {
		help_as_nc();
		return;
	}
	usage_to(o, stderr);
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
		"\t\t-P proxyuser\tUsername for proxy authentication\n"
		"\t\t\t\t(HTTP CONNECT, SOCKS5); the password comes from\n"
		"\t\t\t\tNCPV_PROXY_PASSWORD or the terminal\n"
		"\t\t-p port\t\tSpecify local port for remote connects\n"
		"\t\t-q secs\t\tquit after EOF on stdin and delay of secs\n"
		"\t\t\t\t(implies -N)\n"
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
		"\t\t--progress\tpv-style meter on stderr, counting both ways\n"
		"\t\t\t\t(a bar and ETA when stdin is a regular file)\n"
		"\t\t--json\t\ta JSON summary on stderr at exit (sent: bytes\n"
		"\t\t\t\tthe kernel took; unacked: of those, what the\n"
		"\t\t\t\tpeer's TCP had not acknowledged; neither is what\n"
		"\t\t\t\tits program read)\n"
		"\t\t--ssl\t\tTLS (1.2 or 1.3), as ncat; every --ssl-* option\n"
		"\t\t\t\timplies it\n"
		"\t\t--ssl-cert file\tListen: certificate (PEM); default: self-signed\n"
		"\t\t--ssl-key file\tListen: its private key (PEM)\n"
		"\t\t--ssl-verify\tConnect: check the server's certificate and name\n"
		"\t\t--ssl-trustfile file\tConnect: trust these CAs\n"
		"\t\t\t\t(implies --ssl-verify)\n"
		"\t\t--ssl-servername name\tConnect: the name to send (SNI)\n"
		"\t\t\t\tand verify\n"
		"\t\t--ssl-alpn list\tALPN protocols to offer or accept\n"
		"\t\t\t\t(comma-separated)\n"
		"\tNot available in ncpv: -S (TCP MD5), -V (routing table), -Z (DCCP)\n"
		"\tPort numbers can be individual or ranges: lo-hi [inclusive]\n");
}

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

int nc_fail(const struct nc_opts *o, const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg);
	nc_error(o, "%s", msg);
	return -1;
}
