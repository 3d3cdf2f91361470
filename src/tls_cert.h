/* SPDX-License-Identifier: ISC */
/* tls_cert.h - X.509 certificates made in memory: serve's self-signed one, and test fixtures. */
#ifndef NCPV_TLS_CERT_H
#define NCPV_TLS_CERT_H

#include <stddef.h>

#ifndef NCPV_NO_TLS
#include <openssl/evp.h>
#include <openssl/x509.h>

/* What to put in a certificate. names: comma-separated subjectAltName entries, each
 * an IP address ("127.0.0.1", "::1") or else a DNS name; the first is also the CN.
 * Validity runs from now + not_before to now + not_after seconds (negative for the
 * past, so a test can make an expired certificate). is_ca makes a CA certificate. */
struct tls_cert_spec {
	const char *names;
	long not_before;
	long not_after;
	int is_ca;
};

/* Make a fresh P-256 key and a certificate for it, signed by issuer/issuer_key or,
 * when they are NULL, by itself. On success returns 0 and hands *cert and *key to
 * the caller (X509_free, EVP_PKEY_free); else -1 with a message in err. */
int tls_cert_make(const struct tls_cert_spec *spec, X509 *issuer, EVP_PKEY *issuer_key,
		  X509 **cert, EVP_PKEY **key, char *err, size_t errlen);

/* Write cert (and key, when not NULL) as PEM to path. 0, or -1 with errno kept. */
int tls_cert_write_pem(const char *path, X509 *cert, EVP_PKEY *key);

/* The SHA-256 fingerprint of cert's DER form, as "AB:CD:..." (95 characters + NUL).
 * Returns 0, or -1 when len is under 96. */
int tls_cert_fingerprint(X509 *cert, char *out, size_t len);
#endif

/* Parse a SHA-256 fingerprint as users write it: 64 hex digits, colons between
 * pairs allowed, any case, an optional "sha256:" or "sha256//" prefix dropped.
 * Returns 0 with the 32 bytes in out, or -1. Pure: no OpenSSL needed. */
int tls_parse_pin(const char *text, unsigned char out[32]);

/* Whether name is an IPv4 or IPv6 address rather than a host name. */
int tls_is_ip_literal(const char *name);

/* Whether name can be the host a client verifies the server's certificate against: an IP
 * address, or a DNS name of letters, digits, '-' and '_' in non-empty dot-separated labels
 * (a final dot allowed). NULL when it can, else why not. An empty name would make OpenSSL
 * check no name at all, and one with a leading dot any name under it: both are refused. */
const char *tls_host_name_problem(const char *name);

#endif
