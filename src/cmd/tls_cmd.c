/* SPDX-License-Identifier: ISC */
/* tls_cmd.c - the TLS options serve, get and nc share, their exit codes and their summaries. */
#include "tls_cmd.h"

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../json.h"
#include "../tls_cert.h"

int cmd_tls_option(struct cmd_tls *t, int opt, const char *arg)
{
	switch (opt) {
	case OPT_TLS:
		t->on = 1;
		return 1;
	case OPT_TLS_CERT:
		t->cfg.cert_file = arg;
		return 1;
	case OPT_TLS_KEY:
		t->cfg.key_file = arg;
		return 1;
	case OPT_TLS_CACERT:
		t->cfg.ca_file = arg;
		return 1;
	case OPT_TLS_INSECURE:
		t->cfg.insecure = 1;
		return 1;
	case OPT_TLS_PIN:
		t->cfg.pin = arg;
		return 1;
	case OPT_TLS_SNI:
		t->sni = arg;
		return 1;
	case OPT_TLS_ALPN:
		t->cfg.alpn = arg;
		return 1;
	case OPT_TLS_VERIFY:
		t->verify = 1;
		return 1;
	default:
		return 0;
	}
}

enum cmd_parse cmd_tls_check(const char *cmd, const struct cmd_tls *t)
{
	const struct tls_config *c = &t->cfg;
	const char *needs = c->cert_file ? "--cert" : c->key_file ? "--key" : c->ca_file ? "--cacert" :
			    c->insecure ? "--insecure" : c->pin ? "--pin" : t->sni ? "--sni" :
			    c->alpn ? "--alpn" : NULL;

	const char *empty = c->cert_file && !*c->cert_file ? "cert" : c->key_file && !*c->key_file ? "key" :
			    c->ca_file && !*c->ca_file ? "cacert" : c->pin && !*c->pin ? "pin" :
			    t->sni && !*t->sni ? "sni" : c->alpn && !*c->alpn ? "alpn" : NULL;
	const char *bad_name = t->sni ? tls_host_name_problem(t->sni) : NULL;

	/* An empty value must not pass for "not given" further down (an empty --sni checked
	 * no host name at all): each is refused by name. */
	if (empty)
		return cmd_bad_value(cmd, empty, "",
				     strcmp(empty, "sni") == 0 ? "an empty name would leave the certificate's host unchecked"
				     : strcmp(empty, "pin") == 0 ? "expected a SHA-256 fingerprint"
				     : strcmp(empty, "alpn") == 0 ? "expected NAME[,NAME]..." : "expected a file name");
	if (bad_name)
		return cmd_bad_value(cmd, "sni", t->sni, bad_name);
	if (!t->on && needs) {
		cmd_error(cmd, "%s needs --tls", needs);
		return CMD_PARSE_USAGE;
	}
	if (!t->on)
		return CMD_PARSE_RUN;
	if (!TLS_AVAILABLE) {
		cmd_error(cmd, "--tls: this build has no TLS support (built without OpenSSL)");
		return CMD_PARSE_USAGE;
	}
	if (c->key_file && !c->cert_file) {
		cmd_error(cmd, "--key needs --cert");
		return CMD_PARSE_USAGE;
	}
	if (c->insecure && (c->pin || c->ca_file)) {
		cmd_error(cmd, "--insecure conflicts with %s: it turns verification off",
			  c->pin ? "--pin" : "--cacert");
		return CMD_PARSE_USAGE;
	}
	return CMD_PARSE_RUN;
}

int cmd_tls_exit(int code)
{
	switch (code) {
	case TLS_OK:
		return NCPV_EXIT_OK;
	case TLS_EFILE:
		return NCPV_EXIT_FILE;
	case TLS_ESETUP:
	case TLS_ENOTSUP:
		return NCPV_EXIT_USAGE;
	case TLS_EHANDSHAKE:
	case TLS_EVERIFY:
		return NCPV_EXIT_TLS;
	case TLS_EUNKNOWN_CA:
		return NCPV_EXIT_TLS_CA;
	case TLS_EEXPIRED:
		return NCPV_EXIT_TLS_EXPIRED;
	case TLS_EHOST:
		return NCPV_EXIT_TLS_HOST;
	case TLS_EPIN:
		return NCPV_EXIT_TLS_PIN;
	case TLS_ETIMEOUT:
		return NCPV_EXIT_TLS_TIMEOUT;
	default:
		return NCPV_EXIT_FAIL;
	}
}

struct tls_ctx *cmd_tls_ctx(const char *cmd, const struct cmd_tls *t, int server, int *rc)
{
	char err[512];
	int code = TLS_OK;
	struct tls_ctx *ctx = server ? tls_ctx_server(&t->cfg, &code, err, sizeof(err))
				     : tls_ctx_client(&t->cfg, &code, err, sizeof(err));

	if (ctx == NULL) {
		cmd_error(cmd, "%s", err);
		*rc = cmd_tls_exit(code);
	}
	return ctx;
}

void cmd_tls_json(struct json *j, const struct tls_conn *c)
{
	char alpn[64];

	json_object(j, "tls");
	json_string(j, "version", tls_conn_version(c));
	json_string(j, "cipher", tls_conn_cipher(c));
	json_string(j, "alpn", tls_conn_alpn(c, alpn, sizeof(alpn)));
	json_bool(j, "resumed", tls_conn_resumed(c));
	json_bool(j, "ktls_send", tls_conn_ktls_send(c));
	json_bool(j, "ktls_recv", tls_conn_ktls_recv(c));
	json_end(j);
}
