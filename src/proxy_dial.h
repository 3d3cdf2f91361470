/* SPDX-License-Identifier: ISC */
/* proxy_dial.h - run a SOCKS4, SOCKS5 or HTTP CONNECT handshake on a connected socket. */
#ifndef NCPV_PROXY_DIAL_H
#define NCPV_PROXY_DIAL_H

#include <stddef.h>
#include <stdint.h>

enum proxy_proto { PROXY_NONE = 0, PROXY_SOCKS4 = 4, PROXY_SOCKS5 = 5, PROXY_HTTP = 1 };

/* What to ask the proxy for. All strings are borrowed for the call. */
struct proxy_target {
	enum proxy_proto proto;
	const char *host;     /* destination as the user wrote it */
	uint16_t port;
	const char *user;     /* NULL: no authentication */
	const char *pass;     /* with user; NULL is an empty password */
	int numeric;	      /* SOCKS4: do not use DNS for host */
	int timeout_ms;	      /* for the whole handshake; <= 0 means 30 s */
	int http_200_only;    /* HTTP: take only status 200, as OpenBSD nc (not any 2xx) */
};

/* Why a handshake failed, in parts, for a caller that words it itself (nc's own messages). */
enum proxy_step { PROXY_STEP_SOCKS5_METHOD = 1, PROXY_STEP_SOCKS5_AUTH, PROXY_STEP_SOCKS5_REPLY,
		  PROXY_STEP_SOCKS4_REPLY, PROXY_STEP_HTTP_REPLY };
enum proxy_fail {
	PROXY_FAIL_OTHER = 0, /* only err's line says it */
	PROXY_FAIL_CLOSED,    /* the proxy closed before the step's reply was whole: got says how far */
	PROXY_FAIL_IO,	      /* a read or write failed: code is the errno */
	PROXY_FAIL_TIMEOUT,   /* the handshake's time ran out */
	PROXY_FAIL_NOMETHOD,  /* SOCKS5: no acceptable authentication method (0xff) */
	PROXY_FAIL_REFUSED,   /* SOCKS4 or SOCKS5 refused: code is its reply code */
	PROXY_FAIL_ATYP,      /* SOCKS5: a reply address type other than IPv4, name or IPv6 */
	PROXY_FAIL_STATUS,    /* HTTP: a status other than 2xx; err quotes the status line */
	PROXY_FAIL_NAME,      /* SOCKS5: the destination's name is longer than 255 bytes */
};
struct proxy_failure {
	enum proxy_step step;
	enum proxy_fail kind;
	int code;
	size_t got;	      /* CLOSED, or IO while reading: bytes of the step's reply that had arrived */
	int reading;	      /* IO: the failed call was a read */
	int atyp;	      /* SOCKS5 reply step with got >= 4: the address type byte */
};

/*
 * Talk the proxy protocol on fd (connected to the proxy; blocking or not).
 * Bytes that arrive after the proxy's reply belong to the tunnel: they are
 * copied into extra (at most extracap, which should be PROXY_HTTP_MAX) and
 * counted in *extralen. Returns 0, or -1 with one line in err: a refusal,
 * a malformed reply, a closed connection or the timeout, and (why may be NULL) the same in parts.
 * Never prints.
 */
int proxy_handshake(int fd, const struct proxy_target *t, uint8_t *extra, size_t extracap,
		    size_t *extralen, char *err, size_t errlen, struct proxy_failure *why);

#endif
