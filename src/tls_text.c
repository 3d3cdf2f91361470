/* SPDX-License-Identifier: ISC */
/* tls_text.c - TLS results and connections in words, the same with or without OpenSSL. */
#include "tls.h"

#include <stdio.h>

const char *tls_result_name(int code)
{
	switch (code) {
	case TLS_OK:
		return "ok";
	case TLS_WANT_READ:
	case TLS_WANT_WRITE:
		return "in progress";
	case TLS_ESETUP:
		return "TLS setup failed";
	case TLS_EFILE:
		return "cannot read certificate file";
	case TLS_EHANDSHAKE:
		return "TLS handshake failed";
	case TLS_EUNKNOWN_CA:
		return "unknown CA";
	case TLS_EEXPIRED:
		return "certificate expired";
	case TLS_EHOST:
		return "wrong host";
	case TLS_EPIN:
		return "certificate does not match the pin";
	case TLS_EVERIFY:
		return "certificate verify failed";
	case TLS_ETIMEOUT:
		return "TLS handshake timed out";
	case TLS_ETRUNCATED:
		return "truncated (no TLS close_notify)";
	case TLS_EIO:
		return "I/O error";
	default:
		return "TLS not available";
	}
}

void tls_conn_describe(const struct tls_conn *c, char *buf, size_t len)
{
	char alpn[64];
	int ktls = tls_conn_ktls_send(c) || tls_conn_ktls_recv(c);

	tls_conn_alpn(c, alpn, sizeof(alpn));
	snprintf(buf, len, "%s %s%s%s, kTLS %s", tls_conn_version(c), tls_conn_cipher(c),
		 alpn[0] ? ", ALPN " : "", alpn, ktls ? "on" : "off (user-space TLS)");
}
