/* SPDX-License-Identifier: ISC */
/* tls_cmd.h - the TLS options serve, get and nc share, their exit codes and their summaries. */
#ifndef NCPV_CMD_TLS_CMD_H
#define NCPV_CMD_TLS_CMD_H

#include <getopt.h>
#include <stddef.h>

#include "../tls.h"
#include "cmd.h"

/* Parsed once with the command's other options; strings point into argv. */
struct cmd_tls {
	int on;			/* --tls (nc: --ssl or any --ssl-* option) */
	int verify;		/* nc's --ssl-verify; get verifies unless --insecure */
	const char *sni;	/* --sni / --ssl-servername: the name sent and checked */
	struct tls_config cfg;
};

/* getopt codes of the long options (no short forms). */
enum {
	OPT_TLS = 300,
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_TLS_CACERT,
	OPT_TLS_INSECURE,
	OPT_TLS_PIN,
	OPT_TLS_SNI,
	OPT_TLS_ALPN,
	OPT_TLS_VERIFY
};

/* serve's and get's entries for their struct option tables. */
#define CMD_TLS_SERVER_LONGOPTS                                    \
	{ "tls", no_argument, NULL, OPT_TLS },                     \
	{ "cert", required_argument, NULL, OPT_TLS_CERT },         \
	{ "key", required_argument, NULL, OPT_TLS_KEY }
#define CMD_TLS_CLIENT_LONGOPTS                                    \
	{ "tls", no_argument, NULL, OPT_TLS },                     \
	{ "cacert", required_argument, NULL, OPT_TLS_CACERT },     \
	{ "insecure", no_argument, NULL, OPT_TLS_INSECURE },       \
	{ "pin", required_argument, NULL, OPT_TLS_PIN },           \
	{ "sni", required_argument, NULL, OPT_TLS_SNI },           \
	{ "alpn", required_argument, NULL, OPT_TLS_ALPN }
/* nc's, with ncat's names; each one implies --ssl, as in ncat. */
#define CMD_TLS_NCAT_LONGOPTS                                          \
	{ "ssl", no_argument, NULL, OPT_TLS },                         \
	{ "ssl-cert", required_argument, NULL, OPT_TLS_CERT },         \
	{ "ssl-key", required_argument, NULL, OPT_TLS_KEY },           \
	{ "ssl-verify", no_argument, NULL, OPT_TLS_VERIFY },           \
	{ "ssl-trustfile", required_argument, NULL, OPT_TLS_CACERT },  \
	{ "ssl-servername", required_argument, NULL, OPT_TLS_SNI },    \
	{ "ssl-alpn", required_argument, NULL, OPT_TLS_ALPN }

/* Store a TLS option (opt: a getopt code above). 1 if it was one, 0 if not. */
int cmd_tls_option(struct cmd_tls *t, int opt, const char *arg);

/* The checks after parsing: an option that needs --tls without it, --insecure with
 * --pin, or --tls in a build without TLS. CMD_PARSE_RUN, or CMD_PARSE_USAGE after
 * the message. */
enum cmd_parse cmd_tls_check(const char *cmd, const struct cmd_tls *t);

/* Exit code for a tls_result (docs/ERRORS.md): 8 handshake failed, 9 unknown CA,
 * 10 certificate expired, 11 wrong host, 12 pin mismatch, 13 handshake timeout;
 * files 6, bad values 2, a truncated stream or an I/O error 1. */
int cmd_tls_exit(int code);

/* Make the context, or print "ncpv CMD: MESSAGE" and return NULL with *rc set. */
struct tls_ctx *cmd_tls_ctx(const char *cmd, const struct cmd_tls *t, int server, int *rc);

/* A summary of a finished handshake as a "tls" member of the JSON object j is writing
 * (as text: tls_conn_describe). */
struct json;
void cmd_tls_json(struct json *j, const struct tls_conn *c);

#endif
