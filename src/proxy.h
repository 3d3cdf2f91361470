/* SPDX-License-Identifier: ISC */
/* proxy.h - SOCKS4, SOCKS5 and HTTP CONNECT messages: request builders and reply parsers (pure). */
#ifndef NCPV_PROXY_H
#define NCPV_PROXY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Everything here is pure: no allocation, no system calls, no global state.
 * Builders write into the caller's buffer and return the length written, or
 * -1 when the buffer is too small or an argument cannot be encoded.
 * Parsers take the bytes received so far and return, as picohttpparser does:
 *   >= 0  the reply is complete and that many bytes belong to it (the rest,
 *         if any, is tunnel data);
 *   -1    the reply is malformed (the connection must be dropped);
 *   -2    the reply is incomplete so far: read more and call again.
 * A parser never reads past buf[len - 1] and never writes outside its
 * out parameters, which are set only when the return is >= 0.
 */

#define PROXY_PARTIAL (-2)
#define PROXY_MALFORMED (-1)

/* The longest HTTP reply header we accept; a longer one is -1. */
#define PROXY_HTTP_MAX 8192

/* SOCKS4 CONNECT to an IPv4 address (network order) and port, with a user id
 * (may be NULL or empty). */
int proxy_socks4_request(uint8_t *buf, size_t cap, const uint8_t ip4[4], uint16_t port,
			 const char *user);

/* SOCKS4 reply: 8 bytes, version 0. *granted is 1 for code 90, else 0 with
 * the code in *code. */
int proxy_socks4_parse_reply(const uint8_t *buf, size_t len, int *granted, int *code);

/* SOCKS5 greeting offering "no authentication", plus username/password
 * (RFC 1929) when with_auth. */
int proxy_socks5_greeting(uint8_t *buf, size_t cap, int with_auth);

/* SOCKS5 method choice: 2 bytes, version 5. *method is the chosen method
 * (0 none, 2 username/password, 0xff none acceptable). */
int proxy_socks5_parse_method(const uint8_t *buf, size_t len, int *method);

/* RFC 1929 username/password request; each must be 1..255 bytes. */
int proxy_socks5_auth_request(uint8_t *buf, size_t cap, const char *user, const char *pass);

/* RFC 1929 reply: 2 bytes, version 1. *ok is 1 when status is 0. */
int proxy_socks5_parse_auth(const uint8_t *buf, size_t len, int *ok);

/* SOCKS5 CONNECT: host is sent as an IPv4 or IPv6 address when it is a
 * numeric one, else as a domain name (1..255 bytes). */
int proxy_socks5_connect_request(uint8_t *buf, size_t cap, const char *host, uint16_t port);

/* SOCKS5 CONNECT reply: VER REP RSV ATYP BND.ADDR BND.PORT, whose length
 * depends on ATYP (1: 4 bytes, 3: counted name, 4: 16 bytes). *rep is the
 * reply code (0 succeeded). */
int proxy_socks5_parse_reply(const uint8_t *buf, size_t len, int *rep);

/* Words for a SOCKS5 reply code ("connection refused" ...). Never NULL. */
const char *proxy_socks5_reason(int rep);

/* "CONNECT host:port HTTP/1.0" with a Host header and, when user is not
 * NULL, Basic Proxy-Authorization for user:pass. IPv6 hosts get brackets.
 * Returns the length (the request is also NUL-terminated), or -1. */
int proxy_http_request(char *buf, size_t cap, const char *host, uint16_t port,
		       const char *user, const char *pass);

/* An HTTP/1.x reply header up to and including the blank line. *status is
 * the 3-digit code; reason (may be NULL) gets the reason phrase, cut to fit
 * and NUL-terminated. Lines may end in CRLF or LF. A header longer than
 * PROXY_HTTP_MAX, a NUL byte, or a status line that is not
 * "HTTP/1.d ddd ..." is -1. */
int proxy_http_parse_reply(const char *buf, size_t len, int *status, char *reason, size_t reasonlen);

/* Base64 (RFC 4648, with padding) of len bytes into out, NUL-terminated.
 * Returns the length, or -1 when out is too small. */
int proxy_base64(char *out, size_t cap, const uint8_t *in, size_t len);

#endif
