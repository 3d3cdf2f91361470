/* SPDX-License-Identifier: ISC */
/* nc_tls.c - "ncpv nc --ssl": the handshake on a new connection and what -v says about it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nc.h"
#include "../cmd/cmd.h"
#include "../clock.h"

struct tls_conn *nc_tls_start(const struct nc_opts *o, int fd, int server, struct nc_totals *t)
{
	const char *name = server ? NULL : o->tls.sni ? o->tls.sni : o->host;
	char err[512], what[160];
	struct tls_conn *c;
	int rc;

	/* A blocking socket would let OpenSSL wait inside a read for a record that is
	 * not coming (after a session ticket, say), deaf to poll and to -w. */
	if (net_set_nonblock(fd, 1) < 0) {
		cmd_error("nc", "%s", strerror(errno));
		return NULL;
	}
	c = tls_conn_new(o->tls_ctx, fd, name, err, sizeof(err));
	if (c == NULL) {
		cmd_error("nc", "%s", err);
		return NULL;
	}
	rc = tls_handshake_wait(c, o->timeout_ms > 0 ? clock_now() + o->timeout_ms / 1000.0 : 0, NULL,
				err, sizeof(err));
	if (rc != TLS_OK) {
		cmd_error("nc", "TLS handshake failed: %s", err);
		tls_conn_free(c);
		return NULL;
	}
	t->tls_conns++;
	t->ktls_conns += tls_conn_ktls_send(c) || tls_conn_ktls_recv(c);
	if (o->verbose) {
		cmd_tls_describe(c, what, sizeof(what));
		fprintf(stderr, "TLS connection: %s\n", what);
	}
	return c;
}
