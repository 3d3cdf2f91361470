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
};

/*
 * Talk the proxy protocol on fd (connected to the proxy; blocking or not).
 * Bytes that arrive after the proxy's reply belong to the tunnel: they are
 * copied into extra (at most extracap, which should be PROXY_HTTP_MAX) and
 * counted in *extralen. Returns 0, or -1 with one line in err: a refusal,
 * a malformed reply, a closed connection or the timeout. Never prints.
 */
int proxy_handshake(int fd, const struct proxy_target *t, uint8_t *extra, size_t extracap,
		    size_t *extralen, char *err, size_t errlen);

#endif
