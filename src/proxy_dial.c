/* SPDX-License-Identifier: ISC */
/* proxy_dial.c - run a SOCKS4, SOCKS5 or HTTP CONNECT handshake on a connected socket. */
#include "clock.h"
#include "proxy_dial.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "loop.h"
#include "net.h"
#include "proxy.h"

#define DEFAULT_TIMEOUT_MS 30000

/* One exchange: bytes read so far and the deadline for all of them. */
struct dial {
	int fd;
	double deadline;
	uint8_t buf[PROXY_HTTP_MAX];
	size_t len;
	char *err;
	size_t errlen;
	struct proxy_failure *why; /* never NULL here */
};

static int send_all(struct dial *d, const void *p, size_t n)
{
	struct net_write_how how = { .wait = 1, .deadline = d->deadline, .send_flags = MSG_NOSIGNAL | MSG_DONTWAIT };
	int rc = net_write_full(d->fd, p, n, &how, NULL);

	if (rc == -2) {
		snprintf(d->err, d->errlen, "proxy handshake timed out");
		d->why->kind = PROXY_FAIL_TIMEOUT;
	} else if (rc < 0) {
		snprintf(d->err, d->errlen, "proxy write: %s", strerror(errno));
		d->why->kind = PROXY_FAIL_IO;
		d->why->code = errno;
	}
	return rc < 0 ? -1 : 0;
}

/* Read more of the reply; 0, or -1 with err set (closed, error, timeout, too long). */
static int read_more(struct dial *d)
{
	for (;;) {
		ssize_t n;
		int left;

		if (d->len == sizeof(d->buf)) {
			snprintf(d->err, d->errlen, "proxy reply too long");
			return -1;
		}
		n = recv(d->fd, d->buf + d->len, sizeof(d->buf) - d->len, MSG_DONTWAIT);
		if (n > 0) {
			d->len += (size_t)n;
			return 0;
		}
		if (n == 0) {
			snprintf(d->err, d->errlen, "proxy closed the connection during the handshake");
			d->why->kind = PROXY_FAIL_CLOSED;
			d->why->got = d->len;
			return -1;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			snprintf(d->err, d->errlen, "proxy read: %s", strerror(errno));
			d->why->kind = PROXY_FAIL_IO;
			d->why->code = errno;
			d->why->reading = 1;
			d->why->got = d->len;
			return -1;
		}
		left = (int)((d->deadline - clock_now()) * 1000);
		if (left <= 0 || net_wait(d->fd, POLLIN, left) <= 0) {
			snprintf(d->err, d->errlen, "proxy handshake timed out");
			d->why->kind = PROXY_FAIL_TIMEOUT;
			return -1;
		}
	}
}

/* Drop a parsed reply of n bytes, keeping what follows it. */
static void consume(struct dial *d, size_t n)
{
	memmove(d->buf, d->buf + n, d->len - n);
	d->len -= n;
}

static int malformed(struct dial *d, const char *what)
{
	snprintf(d->err, d->errlen, "malformed %s reply from proxy", what);
	return -1;
}

static int socks4(struct dial *d, const struct proxy_target *t)
{
	struct addrinfo hints, *res;
	uint8_t req[300];
	int n, granted = 0, code = 0, rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = t->numeric ? AI_NUMERICHOST : 0;
	if ((rc = getaddrinfo(t->host, NULL, &hints, &res)) != 0) {
		snprintf(d->err, d->errlen, "SOCKS4 needs an IPv4 address for %s: %s", t->host,
			 gai_strerror(rc));
		return -1;
	}
	n = proxy_socks4_request(req, sizeof(req),
				 (const uint8_t *)&((struct sockaddr_in *)res->ai_addr)->sin_addr, t->port,
				 t->user);
	freeaddrinfo(res);
	if (n < 0) {
		snprintf(d->err, d->errlen, "SOCKS4 user name too long");
		return -1;
	}
	if (send_all(d, req, (size_t)n) < 0)
		return -1;
	d->why->step = PROXY_STEP_SOCKS4_REPLY;
	while ((rc = proxy_socks4_parse_reply(d->buf, d->len, &granted, &code)) == PROXY_PARTIAL)
		if (read_more(d) < 0)
			return -1;
	if (rc < 0 && d->len >= 8 && d->buf[0] == 0) {
		granted = 0; /* a code beyond 93 is still a refusal, as nc reads it */
		code = d->buf[1];
	} else if (rc < 0) {
		return malformed(d, "SOCKS4");
	}
	if (!granted) {
		snprintf(d->err, d->errlen, "proxy refused the connection (SOCKS4 code %d)", code);
		d->why->kind = PROXY_FAIL_REFUSED;
		d->why->code = code;
		return -1;
	}
	consume(d, (size_t)rc);
	return 0;
}

static int socks5(struct dial *d, const struct proxy_target *t)
{
	uint8_t req[600];
	int n, method = 0, ok = 0, rep = 0, rc;

	n = proxy_socks5_greeting(req, sizeof(req), t->user != NULL);
	d->why->step = PROXY_STEP_SOCKS5_METHOD;
	if (send_all(d, req, (size_t)n) < 0)
		return -1;
	while ((rc = proxy_socks5_parse_method(d->buf, d->len, &method)) == PROXY_PARTIAL)
		if (read_more(d) < 0)
			return -1;
	if (rc < 0)
		return malformed(d, "SOCKS5");
	consume(d, (size_t)rc);
	if (method == 2 && t->user) {
		n = proxy_socks5_auth_request(req, sizeof(req), t->user, t->pass ? t->pass : "");
		if (n < 0) {
			snprintf(d->err, d->errlen, "SOCKS5 user name and password must be 1 to 255 bytes");
			return -1;
		}
		d->why->step = PROXY_STEP_SOCKS5_AUTH;
		if (send_all(d, req, (size_t)n) < 0)
			return -1;
		while ((rc = proxy_socks5_parse_auth(d->buf, d->len, &ok)) == PROXY_PARTIAL)
			if (read_more(d) < 0)
				return -1;
		if (rc < 0)
			return malformed(d, "SOCKS5 authentication");
		consume(d, (size_t)rc);
		if (!ok) {
			snprintf(d->err, d->errlen, "proxy authentication failed");
			return -1;
		}
	} else if (method != 0) {
		snprintf(d->err, d->errlen, "proxy accepts none of our authentication methods%s",
			 t->user ? "" : " (a user name with -P may help)");
		d->why->kind = PROXY_FAIL_NOMETHOD;
		return -1;
	}
	n = proxy_socks5_connect_request(req, sizeof(req), t->host, t->port);
	if (n < 0) {
		snprintf(d->err, d->errlen, "host name too long for SOCKS5: %s", t->host);
		d->why->kind = PROXY_FAIL_NAME;
		return -1;
	}
	d->why->step = PROXY_STEP_SOCKS5_REPLY;
	if (send_all(d, req, (size_t)n) < 0)
		return -1;
	/* A refusal is known from the reply's first 4 bytes, whatever follows (or does not). */
	while ((rc = proxy_socks5_parse_reply(d->buf, d->len, &rep)) == PROXY_PARTIAL &&
	       (d->len < 4 || (d->buf[1] == 0 && (d->buf[3] == 1 || d->buf[3] == 3 || d->buf[3] == 4))))
		if (read_more(d) < 0) {
			d->why->atyp = d->len >= 4 ? d->buf[3] : 0;
			return -1;
		}
	if (d->len >= 4 && d->buf[0] == 5 && d->buf[1] != 0)
		rep = d->buf[1];
	else if (rc < 0) { /* malformed, or cut short at an unknown address type */
		if (d->len >= 4 && d->buf[3] != 1 && d->buf[3] != 3 && d->buf[3] != 4)
			d->why->kind = PROXY_FAIL_ATYP;
		return malformed(d, "SOCKS5");
	}
	if (rep != 0) {
		snprintf(d->err, d->errlen, "proxy refused the connection: %s", proxy_socks5_reason(rep));
		d->why->kind = PROXY_FAIL_REFUSED;
		d->why->code = rep;
		return -1;
	}
	consume(d, (size_t)rc);
	return 0;
}

static int http_connect(struct dial *d, const struct proxy_target *t)
{
	char req[1400], reason[128];
	int n, status = 0, rc;

	n = proxy_http_request(req, sizeof(req), t->host, t->port, t->user, t->pass);
	if (n < 0) {
		snprintf(d->err, d->errlen, "cannot encode a CONNECT request for %s", t->host);
		return -1;
	}
	d->why->step = PROXY_STEP_HTTP_REPLY;
	if (send_all(d, req, (size_t)n) < 0)
		return -1;
	while ((rc = proxy_http_parse_reply((const char *)d->buf, d->len, &status, reason,
					    sizeof(reason))) == PROXY_PARTIAL)
		if (read_more(d) < 0)
			return -1;
	if (rc < 0)
		return malformed(d, "HTTP");
	if (status < 200 || status > 299 || (t->http_200_only && status != 200)) {
		/* Quote the status line as nc does; the parser vetted its first 12 bytes. */
		snprintf(d->err, d->errlen, "Proxy error: \"%.9s%d %s\"", (const char *)d->buf, status, reason);
		d->why->kind = PROXY_FAIL_STATUS;
		d->why->code = status;
		return -1;
	}
	consume(d, (size_t)rc);
	return 0;
}

int proxy_handshake(int fd, const struct proxy_target *t, uint8_t *extra, size_t extracap,
		    size_t *extralen, char *err, size_t errlen, struct proxy_failure *why)
{
	struct proxy_failure unused = { 0 };
	struct dial d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.why = why ? why : &unused;
	memset(d.why, 0, sizeof(*d.why));
	d.fd = fd;
	d.err = err;
	d.errlen = errlen;
	d.deadline = clock_now() + (t->timeout_ms > 0 ? t->timeout_ms : DEFAULT_TIMEOUT_MS) / 1000.0;
	switch (t->proto) {
	case PROXY_SOCKS4:
		rc = socks4(&d, t);
		break;
	case PROXY_SOCKS5:
		rc = socks5(&d, t);
		break;
	case PROXY_HTTP:
		rc = http_connect(&d, t);
		break;
	default:
		snprintf(err, errlen, "unsupported proxy protocol");
		return -1;
	}
	if (rc < 0)
		return -1;
	if (d.len > extracap) {
		snprintf(err, errlen, "proxy sent more than %zu bytes with its reply", extracap);
		return -1;
	}
	memcpy(extra, d.buf, d.len);
	*extralen = d.len;
	return 0;
}
