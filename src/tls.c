/* SPDX-License-Identifier: ISC */
/* tls.c - TLS 1.2/1.3 over a non-blocking socket with OpenSSL: contexts, handshake, read, write.
 * Built with TLS=yes; tls_none.c stands in for it with TLS=no, tls_text.c serves both. */
#include "tls.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "net.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "tls_cert.h"

#define TLS13_SUITES "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"

struct tls_ctx {
	SSL_CTX *ssl;
	int server;
	int insecure;
	int have_pin;
	unsigned char pin[32];
	unsigned char alpn[256]; /* wire format: length-prefixed names */
	unsigned int alpn_len;
	SSL_SESSION *session; /* client: the newest session, for resumption */
};

struct tls_conn {
	SSL *ssl;
	struct tls_ctx *ctx;
	int fd;
	int pin_failed;
	char pin_seen[96]; /* the leaf's fingerprint that did not match --pin or failed
			    * verification ("" if none) */
	int shut;
	int starved; /* the last read wanted bytes from the socket: what OpenSSL holds
		      * raw is less than a record, so only poll can bring the rest */
	char host[256];
};

/* "a,b" -> "\1a\1b"; -1 on an empty or over-long name. */
static int alpn_wire(const char *list, unsigned char *out, size_t outlen, unsigned int *len)
{
	size_t used = 0;

	while (*list) {
		size_t n = strcspn(list, ",");

		if (n == 0 || n > 255 || used + 1 + n > outlen)
			return -1;
		out[used++] = (unsigned char)n;
		memcpy(out + used, list, n);
		used += n;
		list += n;
		if (*list == ',' && *++list == '\0')
			return -1;
	}
	*len = (unsigned int)used;
	return used ? 0 : -1;
}

/* The first error on OpenSSL's queue as text, and the queue emptied. */
static void ssl_reason(char *buf, size_t len)
{
	unsigned long e = ERR_peek_last_error();

	if (e == 0)
		snprintf(buf, len, "unknown reason");
	else
		ERR_error_string_n(e, buf, len);
	ERR_clear_error();
}

static void *ctx_fail(struct tls_ctx *t, int *code, int what, char *err, size_t errlen,
		      const char *msg, const char *arg)
{
	char why[200];

	ssl_reason(why, sizeof(why));
	if (arg)
		snprintf(err, errlen, "%s '%s': %s", msg, arg, why);
	else
		snprintf(err, errlen, "%s: %s", msg, why);
	*code = what;
	tls_ctx_free(t);
	return NULL;
}

/* A file OpenSSL is about to read: its own error for a missing file says only
 * "system lib", so look first and name the errno. 0, or -1 with the message. */
static int unreadable(const char *what, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (f != NULL) {
		fclose(f);
		return 0;
	}
	snprintf(err, errlen, "cannot read %s '%s': %s", what, path, strerror(errno));
	return -1;
}

static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
	struct tls_conn *c = SSL_get_app_data(ssl);

	SSL_SESSION_free(c->ctx->session);
	c->ctx->session = sess;
	return 1; /* we keep the reference */
}

static int on_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
			  const unsigned char *in, unsigned int inlen, void *arg)
{
	struct tls_ctx *t = arg;
	unsigned char *chosen;

	(void)ssl;
	if (SSL_select_next_proto(&chosen, outlen, t->alpn, t->alpn_len, in, inlen) !=
	    OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;
	*out = chosen;
	return SSL_TLSEXT_ERR_OK;
}

/* With --pin the leaf's digest is the whole check: CA and name do not matter. */
static int on_verify(int preverify_ok, X509_STORE_CTX *store)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
	struct tls_conn *c = SSL_get_app_data(ssl);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!c->ctx->have_pin) {
		/* Kept for the message: the fingerprint a user can pin instead. */
		if (!preverify_ok && X509_STORE_CTX_get_error_depth(store) == 0 &&
		    tls_cert_fingerprint(X509_STORE_CTX_get_current_cert(store), c->pin_seen,
					 sizeof(c->pin_seen)) < 0)
			c->pin_seen[0] = '\0';
		return preverify_ok;
	}
	if (X509_STORE_CTX_get_error_depth(store) != 0)
		return 1;
	if (!X509_digest(X509_STORE_CTX_get_current_cert(store), EVP_sha256(), md, &n) || n != 32 ||
	    memcmp(md, c->ctx->pin, 32) != 0) {
		c->pin_failed = 1;
		if (tls_cert_fingerprint(X509_STORE_CTX_get_current_cert(store), c->pin_seen,
					 sizeof(c->pin_seen)) < 0)
			snprintf(c->pin_seen, sizeof(c->pin_seen), "?");
		X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
		return 0;
	}
	c->pin_failed = 0;
	X509_STORE_CTX_set_error(store, X509_V_OK);
	return 1;
}

static struct tls_ctx *ctx_new(const struct tls_config *cfg, int server, int *code, char *err,
			       size_t errlen)
{
	struct tls_ctx *t = calloc(1, sizeof(*t));

	if (t == NULL) {
		*code = TLS_ESETUP;
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->server = server;
	t->ssl = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	if (t->ssl == NULL || !SSL_CTX_set_min_proto_version(t->ssl, TLS1_2_VERSION) ||
	    !SSL_CTX_set_max_proto_version(t->ssl, TLS1_3_VERSION))
		return ctx_fail(t, code, TLS_ESETUP, err, errlen, "cannot make a TLS context", NULL);
	SSL_CTX_set_mode(t->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	/* AES-128-GCM first, as browsers order it: 10-17% faster than OpenSSL's default
	 * AES-256-GCM with AES-NI (docs/BENCHMARKS.md). A server keeps its own order
	 * but lets a client that puts ChaCha20 first (no AES in hardware) have it. */
	if (!SSL_CTX_set_ciphersuites(t->ssl, TLS13_SUITES))
		return ctx_fail(t, code, TLS_ESETUP, err, errlen, "cannot set TLS 1.3 suites", NULL);
	if (server)
		SSL_CTX_set_options(t->ssl, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_PRIORITIZE_CHACHA);
#ifdef SSL_OP_ENABLE_KTLS
	SSL_CTX_set_options(t->ssl, SSL_OP_ENABLE_KTLS);
#endif
	if (cfg->eof_is_close)
		SSL_CTX_set_options(t->ssl, SSL_OP_IGNORE_UNEXPECTED_EOF);
	if (cfg->alpn && alpn_wire(cfg->alpn, t->alpn, sizeof(t->alpn), &t->alpn_len) < 0) {
		*code = TLS_ESETUP;
		snprintf(err, errlen, "invalid ALPN list '%s': expected NAME[,NAME]...", cfg->alpn);
		tls_ctx_free(t);
		return NULL;
	}
	return t;
}

static int use_self_signed(struct tls_ctx *t, char *err, size_t errlen)
{
	static const struct tls_cert_spec spec = {
		.names = "localhost,127.0.0.1,::1", .not_before = -3600, .not_after = 30L * 86400
	};
	X509 *cert;
	EVP_PKEY *key;
	int ok;

	if (tls_cert_make(&spec, NULL, NULL, &cert, &key, err, errlen) < 0)
		return -1;
	ok = SSL_CTX_use_certificate(t->ssl, cert) && SSL_CTX_use_PrivateKey(t->ssl, key);
	X509_free(cert);
	EVP_PKEY_free(key);
	return ok ? 0 : -1;
}

struct tls_ctx *tls_ctx_server(const struct tls_config *cfg, int *code, char *err, size_t errlen)
{
	struct tls_ctx *t = ctx_new(cfg, 1, code, err, errlen);

	if (t == NULL)
		return NULL;
	if (cfg->cert_file == NULL) {
		if (use_self_signed(t, err, errlen) < 0) {
			*code = TLS_ESETUP;
			tls_ctx_free(t);
			return NULL;
		}
	} else if (unreadable("certificate", cfg->cert_file, err, errlen) < 0 ||
		   unreadable("key", cfg->key_file ? cfg->key_file : cfg->cert_file, err, errlen) < 0) {
		*code = TLS_EFILE;
		tls_ctx_free(t);
		return NULL;
	} else if (SSL_CTX_use_certificate_chain_file(t->ssl, cfg->cert_file) != 1) {
		return ctx_fail(t, code, TLS_EFILE, err, errlen, "cannot load certificate",
				cfg->cert_file);
	} else if (SSL_CTX_use_PrivateKey_file(t->ssl, cfg->key_file ? cfg->key_file : cfg->cert_file,
					       SSL_FILETYPE_PEM) != 1) {
		return ctx_fail(t, code, TLS_EFILE, err, errlen, "cannot load key",
				cfg->key_file ? cfg->key_file : cfg->cert_file);
	} else if (SSL_CTX_check_private_key(t->ssl) != 1) {
		return ctx_fail(t, code, TLS_EFILE, err, errlen, "key does not match certificate",
				cfg->cert_file);
	}
	if (t->alpn_len)
		SSL_CTX_set_alpn_select_cb(t->ssl, on_alpn_select, t);
	return t;
}

struct tls_ctx *tls_ctx_client(const struct tls_config *cfg, int *code, char *err, size_t errlen)
{
	struct tls_ctx *t = ctx_new(cfg, 0, code, err, errlen);

	if (t == NULL)
		return NULL;
	t->insecure = cfg->insecure;
	if (cfg->pin) {
		if (tls_parse_pin(cfg->pin, t->pin) < 0) {
			*code = TLS_ESETUP;
			snprintf(err, errlen, "invalid pin '%s': expected a SHA-256 fingerprint "
				 "(64 hex digits, colons allowed)", cfg->pin);
			tls_ctx_free(t);
			return NULL;
		}
		t->have_pin = 1;
	}
	if (cfg->ca_file) {
		if (unreadable("CA file", cfg->ca_file, err, errlen) < 0) {
			*code = TLS_EFILE;
			tls_ctx_free(t);
			return NULL;
		}
		if (SSL_CTX_load_verify_locations(t->ssl, cfg->ca_file, NULL) != 1)
			return ctx_fail(t, code, TLS_EFILE, err, errlen, "cannot load CA file",
					cfg->ca_file);
	} else if (!t->insecure && !t->have_pin && SSL_CTX_set_default_verify_paths(t->ssl) != 1) {
		return ctx_fail(t, code, TLS_ESETUP, err, errlen, "cannot load the system CA store",
				NULL);
	}
	SSL_CTX_set_verify(t->ssl, t->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, on_verify);
	if (t->alpn_len && SSL_CTX_set_alpn_protos(t->ssl, t->alpn, t->alpn_len) != 0)
		return ctx_fail(t, code, TLS_ESETUP, err, errlen, "cannot set ALPN", NULL);
	/* One read(2) per record instead of two (header, then body). The buffer stays
	 * OpenSSL's default (one record): OpenSSL 3.0 moves the unread rest to the
	 * buffer's start after each record, so a 256 KiB buffer cost 8 copies of each
	 * byte (callgrind, docs/BENCHMARKS.md). Clients only: serve's reads are
	 * budgeted per wakeup, and bytes left buffered in OpenSSL would wait for the
	 * next epoll event. */
	SSL_CTX_set_read_ahead(t->ssl, 1);
	SSL_CTX_set_session_cache_mode(t->ssl, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(t->ssl, on_new_session);
	return t;
}

void tls_ctx_free(struct tls_ctx *t)
{
	if (t == NULL)
		return;
	SSL_SESSION_free(t->session);
	SSL_CTX_free(t->ssl);
	free(t);
}

int tls_ctx_fingerprint(const struct tls_ctx *t, char *out, size_t len)
{
	X509 *cert = t->server ? SSL_CTX_get0_certificate(t->ssl) : NULL;

	return cert ? tls_cert_fingerprint(cert, out, len) : -1;
}

static int client_names(struct tls_conn *c, const char *name)
{
	int ip = tls_is_ip_literal(name);

	if (!ip && !SSL_set_tlsext_host_name(c->ssl, name))
		return -1;
	if (c->ctx->insecure || c->ctx->have_pin)
		return 0;
	if (ip)
		return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), name) ? 0 : -1;
	return SSL_set1_host(c->ssl, name) ? 0 : -1;
}

struct tls_conn *tls_conn_new(struct tls_ctx *t, int fd, const char *server_name, char *err,
			      size_t errlen)
{
	struct tls_conn *c = calloc(1, sizeof(*c));
	char why[200];

	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->ctx = t;
	c->fd = fd;
	c->ssl = SSL_new(t->ssl);
	if (c->ssl == NULL || !SSL_set_fd(c->ssl, fd))
		goto fail;
	SSL_set_app_data(c->ssl, c);
	if (t->server) {
		SSL_set_accept_state(c->ssl);
	} else {
		SSL_set_connect_state(c->ssl);
		/* Verifying against no name, or ".example", would accept a certificate made for
		 * another host: refuse rather than check less than asked. */
		if (!t->insecure && !t->have_pin && tls_host_name_problem(server_name) != NULL) {
			snprintf(err, errlen, "cannot verify the server as '%s': the name %s",
				 server_name ? server_name : "", tls_host_name_problem(server_name));
			tls_conn_free(c);
			return NULL;
		}
		if (server_name && *server_name) {
			snprintf(c->host, sizeof(c->host), "%s", server_name);
			if (client_names(c, server_name) < 0)
				goto fail;
		}
		if (t->session)
			SSL_set_session(c->ssl, t->session);
	}
	return c;
fail:
	ssl_reason(why, sizeof(why));
	snprintf(err, errlen, "cannot start TLS: %s", why);
	tls_conn_free(c);
	return NULL;
}

void tls_conn_free(struct tls_conn *c)
{
	if (c == NULL)
		return;
	SSL_free(c->ssl);
	free(c);
}

/* Which of the reasons a failed verification was. */
static int verify_failure(struct tls_conn *c, char *err, size_t errlen)
{
	long v = SSL_get_verify_result(c->ssl);
	const char *detail = X509_verify_cert_error_string(v);
	int code;

	switch (v) {
	case X509_V_ERR_CERT_HAS_EXPIRED:
	case X509_V_ERR_CERT_NOT_YET_VALID:
		code = TLS_EEXPIRED;
		break;
	case X509_V_ERR_HOSTNAME_MISMATCH:
	case X509_V_ERR_IP_ADDRESS_MISMATCH:
		snprintf(err, errlen, "wrong host (the certificate is not for '%s')", c->host);
		return TLS_EHOST;
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
	case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
		code = TLS_EUNKNOWN_CA;
		break;
	default:
		code = TLS_EVERIFY;
		break;
	}
	snprintf(err, errlen, "%s (%s)", tls_result_name(code), detail);
	return code;
}

/* Turn a failed SSL_* call into a tls_result and a message. */
static int classify(struct tls_conn *c, int ret, char *err, size_t errlen)
{
	int saved = errno;
	int e = SSL_get_error(c->ssl, ret);
	unsigned long first;
	char why[200];

	switch (e) {
	case SSL_ERROR_WANT_READ:
		return TLS_WANT_READ;
	case SSL_ERROR_WANT_WRITE:
		return TLS_WANT_WRITE;
	case SSL_ERROR_ZERO_RETURN:
		return TLS_OK;
	case SSL_ERROR_SYSCALL:
		ERR_clear_error();
		if (saved == 0) {
			snprintf(err, errlen, "%s", tls_result_name(TLS_ETRUNCATED));
			return TLS_ETRUNCATED;
		}
		snprintf(err, errlen, "%s", strerror(saved));
		errno = saved;
		return TLS_EIO;
	default:
		break;
	}
	if (c->pin_failed) {
		ERR_clear_error();
		snprintf(err, errlen, "%s (its SHA-256 is %s)", tls_result_name(TLS_EPIN), c->pin_seen);
		return TLS_EPIN;
	}
	first = ERR_peek_error();
	if (ERR_GET_LIB(first) == ERR_LIB_SSL &&
	    ERR_GET_REASON(first) == SSL_R_CERTIFICATE_VERIFY_FAILED) {
		ERR_clear_error();
		return verify_failure(c, err, errlen);
	}
	if (ERR_GET_LIB(first) == ERR_LIB_SSL &&
	    ERR_GET_REASON(first) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
		ERR_clear_error();
		snprintf(err, errlen, "%s", tls_result_name(TLS_ETRUNCATED));
		return TLS_ETRUNCATED;
	}
	if (ERR_GET_LIB(first) == ERR_LIB_SSL &&
	    (ERR_GET_REASON(first) == SSL_R_WRONG_VERSION_NUMBER ||
	     ERR_GET_REASON(first) == SSL_R_HTTP_REQUEST ||
	     ERR_GET_REASON(first) == SSL_R_HTTPS_PROXY_REQUEST)) {
		/* OpenSSL's "wrong version number": the first bytes were no TLS record. */
		ERR_clear_error();
		snprintf(err, errlen, "the %s did not answer with TLS (plain TCP?)",
			 SSL_is_server(c->ssl) ? "client" : "server");
		return TLS_EHANDSHAKE;
	}
	ssl_reason(why, sizeof(why));
	snprintf(err, errlen, "%s", why);
	return TLS_EHANDSHAKE;
}

int tls_handshake(struct tls_conn *c, char *err, size_t errlen)
{
	int r;

	ERR_clear_error();
	errno = 0;
	r = SSL_do_handshake(c->ssl);
	if (r == 1)
		return TLS_OK;
	r = classify(c, r, err, errlen);
	if (r == TLS_OK || r == TLS_ETRUNCATED) { /* the peer hung up mid-handshake */
		snprintf(err, errlen, "the peer closed the connection during the handshake");
		return TLS_EHANDSHAKE;
	}
	if (r == TLS_EIO) {
		/* A reset (or any socket error) is the peer failing the handshake as much as a FIN
		 * is: the same result, so the same exit, with the errno kept in the words. */
		int saved = errno;

		snprintf(err, errlen, "the connection failed during the handshake: %s", strerror(saved));
		errno = saved;
		return TLS_EHANDSHAKE;
	}
	return r;
}

int tls_handshake_wait(struct tls_conn *c, double deadline, const volatile sig_atomic_t *cancel,
		       char *err, size_t errlen)
{
	for (;;) {
		int r = tls_handshake(c, err, errlen);

		if (r != TLS_WANT_READ && r != TLS_WANT_WRITE)
			return r;
		r = net_wait_cancel(c->fd, r == TLS_WANT_READ ? POLLIN : POLLOUT,
				    deadline > 0 ? net_ms_until(deadline, clock_now()) : -1, cancel);
		if (r < 0) {
			snprintf(err, errlen, "%s", errno == EINTR ? "interrupted" : strerror(errno));
			return TLS_EIO;
		}
		if (r == 0) {
			snprintf(err, errlen, "%s", tls_result_name(TLS_ETIMEOUT));
			return TLS_ETIMEOUT;
		}
	}
}

ssize_t tls_read(struct tls_conn *c, void *buf, size_t n, char *err, size_t errlen)
{
	size_t got = 0;
	int r;

	ERR_clear_error();
	errno = 0;
	c->starved = 0;
	if (SSL_read_ex(c->ssl, buf, n, &got) == 1)
		return (ssize_t)got;
	r = classify(c, 0, err, errlen);
	c->starved = r == TLS_WANT_READ;
	return r;
}

ssize_t tls_write(struct tls_conn *c, const void *buf, size_t n, char *err, size_t errlen)
{
	size_t put = 0;
	int r;

	ERR_clear_error();
	errno = 0;
	if (SSL_write_ex(c->ssl, buf, n, &put) == 1)
		return (ssize_t)put;
	r = classify(c, 0, err, errlen);
	if (r == TLS_OK || r == TLS_ETRUNCATED) { /* no sensible meaning for a write */
		snprintf(err, errlen, "%s", strerror(EPIPE));
		errno = EPIPE;
		return TLS_EIO;
	}
	return r;
}

int tls_shutdown(struct tls_conn *c, char *err, size_t errlen)
{
	int r;

	if (c->shut)
		return TLS_OK;
	ERR_clear_error();
	errno = 0;
	r = SSL_shutdown(c->ssl);
	if (r >= 0) {
		c->shut = 1;
		return TLS_OK;
	}
	r = classify(c, r, err, errlen);
	if (r == TLS_OK || r == TLS_ETRUNCATED) {
		c->shut = 1;
		return TLS_OK;
	}
	return r;
}

size_t tls_pending(const struct tls_conn *c)
{
	int n = SSL_pending(c->ssl);

	/* Raw bytes read ahead count too, as poll cannot see them; but not when the
	 * last read found them short of a whole record: then only the socket can
	 * complete it, and reporting them would make the caller spin. */
	if (n > 0)
		return (size_t)n;
	return c->starved ? 0 : (size_t)SSL_has_pending(c->ssl);
}

const char *tls_conn_version(const struct tls_conn *c)
{
	return SSL_get_version(c->ssl);
}

const char *tls_conn_cipher(const struct tls_conn *c)
{
	const char *name = SSL_get_cipher_name(c->ssl);

	return name ? name : "";
}

const char *tls_conn_alpn(const struct tls_conn *c, char *buf, size_t len)
{
	const unsigned char *p = NULL;
	unsigned int n = 0;

	SSL_get0_alpn_selected(c->ssl, &p, &n);
	snprintf(buf, len, "%.*s", (int)n, p ? (const char *)p : "");
	return buf;
}

int tls_conn_resumed(const struct tls_conn *c)
{
	return SSL_session_reused(c->ssl);
}

int tls_conn_ktls_send(const struct tls_conn *c)
{
#ifndef OPENSSL_NO_KTLS
	return BIO_get_ktls_send(SSL_get_wbio(c->ssl)) ? 1 : 0;
#else
	(void)c;
	return 0;
#endif
}

int tls_conn_ktls_recv(const struct tls_conn *c)
{
#ifndef OPENSSL_NO_KTLS
	return BIO_get_ktls_recv(SSL_get_rbio(c->ssl)) ? 1 : 0;
#else
	(void)c;
	return 0;
#endif
}

const char *tls_conn_peer_fingerprint(const struct tls_conn *c)
{
	return c->pin_seen[0] && c->pin_seen[0] != '?' ? c->pin_seen : NULL;
}

/* The socket BIO counts what it wrote: the records themselves, unless the
 * kernel builds them (kTLS), when it sees only plaintext. */
int tls_conn_wire_written(const struct tls_conn *c, uint64_t *n)
{
	if (tls_conn_ktls_send(c))
		return -1;
	*n = BIO_number_written(SSL_get_wbio(c->ssl));
	return 0;
}
