/* SPDX-License-Identifier: ISC */
/* tls_none.c - the TLS functions in a build without OpenSSL (TLS=no, the static musl build): each
 * fails with TLS_ENOTSUP and a message naming the missing feature. The Makefile builds it instead of tls.c. */
#include "tls.h"

#include <stdio.h>

static struct tls_ctx *no_tls(int *code, char *err, size_t errlen)
{
	*code = TLS_ENOTSUP;
	snprintf(err, errlen, "this build has no TLS (built without OpenSSL)");
	return NULL;
}

struct tls_ctx *tls_ctx_server(const struct tls_config *cfg, int *code, char *err, size_t errlen)
{
	(void)cfg;
	return no_tls(code, err, errlen);
}

struct tls_ctx *tls_ctx_client(const struct tls_config *cfg, int *code, char *err, size_t errlen)
{
	(void)cfg;
	return no_tls(code, err, errlen);
}

/* The commands refuse --tls in this build before they get here; these keep the
 * link whole and fail the same way should one be reached anyway. */
void tls_ctx_free(struct tls_ctx *ctx) { (void)ctx; }
int tls_ctx_fingerprint(const struct tls_ctx *ctx, char *out, size_t len)
{
	(void)ctx, (void)out, (void)len;
	return -1;
}
struct tls_conn *tls_conn_new(struct tls_ctx *ctx, int fd, const char *name, char *err, size_t errlen)
{
	int code;

	(void)ctx, (void)fd, (void)name;
	return (struct tls_conn *)no_tls(&code, err, errlen);
}
void tls_conn_free(struct tls_conn *c) { (void)c; }
static int unsupported(char *err, size_t errlen)
{
	int code;

	no_tls(&code, err, errlen);
	return code;
}
int tls_handshake(struct tls_conn *c, char *err, size_t errlen)
{
	(void)c;
	return unsupported(err, errlen);
}
int tls_handshake_wait(struct tls_conn *c, double deadline, const volatile sig_atomic_t *cancel,
		       char *err, size_t errlen)
{
	(void)c, (void)deadline, (void)cancel;
	return unsupported(err, errlen);
}
ssize_t tls_read(struct tls_conn *c, void *buf, size_t n, char *err, size_t errlen)
{
	(void)c, (void)buf, (void)n;
	return unsupported(err, errlen);
}
ssize_t tls_write(struct tls_conn *c, const void *buf, size_t n, char *err, size_t errlen)
{
	(void)c, (void)buf, (void)n;
	return unsupported(err, errlen);
}
int tls_shutdown(struct tls_conn *c, char *err, size_t errlen)
{
	(void)c;
	return unsupported(err, errlen);
}
size_t tls_pending(const struct tls_conn *c) { (void)c; return 0; }
const char *tls_conn_version(const struct tls_conn *c) { (void)c; return ""; }
const char *tls_conn_cipher(const struct tls_conn *c) { (void)c; return ""; }
const char *tls_conn_alpn(const struct tls_conn *c, char *buf, size_t len)
{
	(void)c;
	if (len)
		buf[0] = '\0';
	return buf;
}
int tls_conn_resumed(const struct tls_conn *c) { (void)c; return 0; }
const char *tls_conn_peer_fingerprint(const struct tls_conn *c) { (void)c; return NULL; }
int tls_conn_ktls_send(const struct tls_conn *c) { (void)c; return 0; }
int tls_conn_ktls_recv(const struct tls_conn *c) { (void)c; return 0; }
int tls_conn_wire_written(const struct tls_conn *c, uint64_t *n)
{
	(void)c;
	(void)n;
	return -1;
}
