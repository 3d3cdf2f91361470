/* SPDX-License-Identifier: ISC */
/* tls.h - TLS 1.2/1.3 over a non-blocking socket with OpenSSL: contexts, handshake, read, write. */
#ifndef NCPV_TLS_H
#define NCPV_TLS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Built with OpenSSL (tls.c) unless NCPV_NO_TLS (the static musl build, tls_none.c): then every
 * constructor fails with TLS_ENOTSUP and the commands refuse --tls up front. */
#ifdef NCPV_NO_TLS
#define TLS_AVAILABLE 0
#else
#define TLS_AVAILABLE 1
#endif

/* Results. TLS_WANT_READ / TLS_WANT_WRITE: not an error; poll the socket for
 * that event and call again. The others are failures, each with a message in
 * the caller's buffer that names the reason. */
enum tls_result {
	TLS_OK = 0,
	TLS_WANT_READ = -1,
	TLS_WANT_WRITE = -2,
	TLS_ESETUP = -3,	/* a context could not be made (bad option value) */
	TLS_EFILE = -4,		/* a certificate, key or CA file could not be read */
	TLS_EHANDSHAKE = -5,	/* the handshake failed (protocol, no common cipher, alert) */
	TLS_EUNKNOWN_CA = -6,	/* the peer's certificate is not signed by a trusted CA */
	TLS_EEXPIRED = -7,	/* the peer's certificate has expired or is not valid yet */
	TLS_EHOST = -8,		/* the peer's certificate is for another host */
	TLS_EPIN = -9,		/* the peer's certificate does not match --pin */
	TLS_EVERIFY = -10,	/* any other verification failure */
	TLS_ETIMEOUT = -11,	/* the handshake did not finish in time */
	TLS_ETRUNCATED = -12,	/* the stream ended without close_notify */
	TLS_EIO = -13,		/* the socket failed (errno kept) */
	TLS_ENOTSUP = -14	/* this build has no TLS */
};

/* Options, parsed once by the command. Strings are borrowed for the life of the
 * context made from them. */
struct tls_config {
	const char *cert_file;	/* server: PEM certificate (chain); NULL: self-signed */
	const char *key_file;	/* server: PEM key; NULL: in cert_file */
	const char *ca_file;	/* client: trusted CAs; NULL: the system store */
	const char *pin;	/* client: SHA-256 of the peer's certificate; replaces CA checks */
	const char *alpn;	/* "h2,http/1.1": offered (client) or accepted (server) */
	int insecure;		/* client: no verification at all */
	int eof_is_close;	/* a peer's EOF without close_notify is a close, not
				 * truncation, and leaves our side able to send (ncat's
				 * --recv-only half-closes that way) */
};

struct tls_ctx;
struct tls_conn;

/* Make a server context: cert/key from the files, or a self-signed P-256 certificate
 * for "localhost,127.0.0.1,::1" valid for 30 days. Client context: verification on
 * unless insecure; TLS 1.3 sessions are kept for resumption by the next tls_conn.
 * Both enable kernel TLS where the kernel and OpenSSL have it. Returns NULL with
 * *code (a tls_result) and a message in err. Free with tls_ctx_free. */
struct tls_ctx *tls_ctx_server(const struct tls_config *cfg, int *code, char *err, size_t errlen);
struct tls_ctx *tls_ctx_client(const struct tls_config *cfg, int *code, char *err, size_t errlen);
void tls_ctx_free(struct tls_ctx *ctx);

/* The server certificate's SHA-256 fingerprint, "AB:CD:..." (needs 96 bytes). 0 or -1. */
int tls_ctx_fingerprint(const struct tls_ctx *ctx, char *out, size_t len);

/* Wrap a connected socket (borrowed: the caller closes it after tls_conn_free).
 * server_name: for a client, the name sent as SNI (not for an IP address) and the
 * one its certificate must carry (DNS name or IP address); ignored for a server.
 * Returns NULL on failure with a message in err. */
struct tls_conn *tls_conn_new(struct tls_ctx *ctx, int fd, const char *server_name, char *err,
			      size_t errlen);
void tls_conn_free(struct tls_conn *c);

/* One step of the handshake: TLS_OK when done, TLS_WANT_READ/WRITE, or a failure. */
int tls_handshake(struct tls_conn *c, char *err, size_t errlen);

/* Drive the handshake to its end with poll, for callers with nothing else to do,
 * until deadline (clock_now()'s clock, in seconds; 0: none), then TLS_ETIMEOUT.
 * cancel: when not NULL and set non-zero (by a signal handler), TLS_EIO with EINTR. */
int tls_handshake_wait(struct tls_conn *c, double deadline, const volatile sig_atomic_t *cancel,
		       char *err, size_t errlen);

/* Read up to n bytes: > 0 bytes read, 0 at the peer's close_notify, or a (negative)
 * tls_result: TLS_WANT_READ/WRITE, TLS_ETRUNCATED for a stream cut without
 * close_notify, TLS_EIO (errno kept), TLS_EHANDSHAKE for a bad record. */
ssize_t tls_read(struct tls_conn *c, void *buf, size_t n, char *err, size_t errlen);

/* Write up to n bytes (n > 0): > 0 bytes written (partial writes allowed), or a tls_result. */
ssize_t tls_write(struct tls_conn *c, const void *buf, size_t n, char *err, size_t errlen);

/* Send close_notify (once; further calls do nothing). TLS_OK, TLS_WANT_*, or a failure. */
int tls_shutdown(struct tls_conn *c, char *err, size_t errlen);

/* Bytes already decrypted and waiting in OpenSSL: poll would not see them. */
size_t tls_pending(const struct tls_conn *c);

/* After the handshake: "TLSv1.3", the cipher name, the negotiated ALPN protocol
 * ("" for none), whether the session was resumed, and whether the kernel does the
 * record layer for sending / receiving (kTLS). */
const char *tls_conn_version(const struct tls_conn *c);
const char *tls_conn_cipher(const struct tls_conn *c);
const char *tls_conn_alpn(const struct tls_conn *c, char *buf, size_t len);
int tls_conn_resumed(const struct tls_conn *c);
int tls_conn_ktls_send(const struct tls_conn *c);
int tls_conn_ktls_recv(const struct tls_conn *c);

/* Bytes written to the socket so far, handshake and records included: 0, or -1
 * when unknown (the kernel makes the records: kTLS; or no TLS in this build). */
int tls_conn_wire_written(const struct tls_conn *c, uint64_t *n);

/* A summary of a finished handshake, as text: "TLSv1.3 TLS_AES_128_GCM_SHA256, kTLS off
 * (user-space TLS)", with ", ALPN proto" when one was agreed. */
void tls_conn_describe(const struct tls_conn *c, char *buf, size_t len);

/* After a handshake that failed on the server's certificate (TLS_EUNKNOWN_CA,
 * TLS_EPIN): its SHA-256 fingerprint "AB:CD:...", owned by c; NULL if none was seen. */
const char *tls_conn_peer_fingerprint(const struct tls_conn *c);

/* A short name for a result ("unknown CA", "certificate expired", ...). */
const char *tls_result_name(int code);

#endif
