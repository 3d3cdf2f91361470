/* SPDX-License-Identifier: ISC */
/* proxy.c - SOCKS4, SOCKS5 and HTTP CONNECT messages: request builders and reply parsers (pure). */
#include "proxy.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

int proxy_socks4_request(uint8_t *buf, size_t cap, const uint8_t ip4[4], uint16_t port,
			 const char *user)
{
	size_t ulen = user ? strlen(user) : 0;

	if (cap < 9 + ulen || ulen > 255)
		return -1;
	buf[0] = 4; /* version */
	buf[1] = 1; /* CONNECT */
	buf[2] = (uint8_t)(port >> 8);
	buf[3] = (uint8_t)port;
	memcpy(buf + 4, ip4, 4);
	if (ulen)
		memcpy(buf + 8, user, ulen);
	buf[8 + ulen] = 0;
	return (int)(9 + ulen);
}

int proxy_socks4_parse_reply(const uint8_t *buf, size_t len, int *granted, int *code)
{
	if (len >= 1 && buf[0] != 0)
		return PROXY_MALFORMED;
	if (len < 8)
		return PROXY_PARTIAL;
	if (buf[1] < 90 || buf[1] > 93)
		return PROXY_MALFORMED;
	*code = buf[1];
	*granted = buf[1] == 90;
	return 8;
}

int proxy_socks5_greeting(uint8_t *buf, size_t cap, int with_auth)
{
	if (cap < 4)
		return -1;
	buf[0] = 5;
	buf[1] = with_auth ? 2 : 1;
	buf[2] = 0; /* no authentication */
	buf[3] = 2; /* username/password */
	return with_auth ? 4 : 3;
}

/* SOCKS5's two-byte replies (the method chosen, the password's verdict):
 * a version byte that must be version, then the value into *value. */
static int parse_two_bytes(const uint8_t *buf, size_t len, uint8_t version, int *value)
{
	if (len >= 1 && buf[0] != version)
		return PROXY_MALFORMED;
	if (len < 2)
		return PROXY_PARTIAL;
	*value = buf[1];
	return 2;
}

int proxy_socks5_parse_method(const uint8_t *buf, size_t len, int *method)
{
	return parse_two_bytes(buf, len, 5, method);
}

int proxy_socks5_auth_request(uint8_t *buf, size_t cap, const char *user, const char *pass)
{
	size_t ul = strlen(user), pl = strlen(pass);

	if (ul == 0 || ul > 255 || pl == 0 || pl > 255 || cap < 3 + ul + pl)
		return -1;
	buf[0] = 1;
	buf[1] = (uint8_t)ul;
	memcpy(buf + 2, user, ul);
	buf[2 + ul] = (uint8_t)pl;
	memcpy(buf + 3 + ul, pass, pl);
	return (int)(3 + ul + pl);
}

int proxy_socks5_parse_auth(const uint8_t *buf, size_t len, int *ok)
{
	int status, rc = parse_two_bytes(buf, len, 1, &status);

	if (rc > 0)
		*ok = status == 0;
	return rc;
}

int proxy_socks5_connect_request(uint8_t *buf, size_t cap, const char *host, uint16_t port)
{
	uint8_t addr[16];
	size_t n = 0, alen;

	if (cap < 4)
		return -1;
	buf[n++] = 5;
	buf[n++] = 1; /* CONNECT */
	buf[n++] = 0;
	if (inet_pton(AF_INET, host, addr) == 1) {
		buf[n++] = 1;
		alen = 4;
	} else if (inet_pton(AF_INET6, host, addr) == 1) {
		buf[n++] = 4;
		alen = 16;
	} else {
		alen = strlen(host);
		if (alen == 0 || alen > 255 || cap < n + 1 + alen + 2)
			return -1;
		buf[n++] = 3;
		buf[n++] = (uint8_t)alen;
		memcpy(buf + n, host, alen);
		n += alen;
		alen = 0;
	}
	if (cap < n + alen + 2)
		return -1;
	memcpy(buf + n, addr, alen);
	n += alen;
	buf[n++] = (uint8_t)(port >> 8);
	buf[n++] = (uint8_t)port;
	return (int)n;
}

int proxy_socks5_parse_reply(const uint8_t *buf, size_t len, int *rep)
{
	size_t need;

	if (len >= 1 && buf[0] != 5)
		return PROXY_MALFORMED;
	if (len >= 3 && buf[2] != 0)
		return PROXY_MALFORMED;
	if (len < 5)
		return PROXY_PARTIAL;
	switch (buf[3]) {
	case 1:
		need = 4 + 4 + 2;
		break;
	case 4:
		need = 4 + 16 + 2;
		break;
	case 3:
		if (buf[4] == 0)
			return PROXY_MALFORMED;
		need = 4 + 1 + buf[4] + 2;
		break;
	default:
		return PROXY_MALFORMED;
	}
	if (len < need)
		return PROXY_PARTIAL;
	*rep = buf[1];
	return (int)need;
}

const char *proxy_socks5_reason(int rep)
{
	static const char *const reasons[] = {
		"succeeded",
		"general SOCKS server failure",
		"connection not allowed by ruleset",
		"network unreachable",
		"host unreachable",
		"connection refused",
		"TTL expired",
		"command not supported",
		"address type not supported",
	};

	if (rep >= 0 && (size_t)rep < sizeof(reasons) / sizeof(reasons[0]))
		return reasons[rep];
	return "unknown SOCKS5 reply code";
}

int proxy_base64(char *out, size_t cap, const uint8_t *in, size_t len)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = 0;

	if (cap < (len + 2) / 3 * 4 + 1)
		return -1;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t left = len - i;

		if (left > 1)
			v |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			v |= in[i + 2];
		out[n++] = alphabet[(v >> 18) & 63];
		out[n++] = alphabet[(v >> 12) & 63];
		out[n++] = left > 1 ? alphabet[(v >> 6) & 63] : '=';
		out[n++] = left > 2 ? alphabet[v & 63] : '=';
	}
	out[n] = '\0';
	return (int)n;
}

int proxy_http_request(char *buf, size_t cap, const char *host, uint16_t port,
		       const char *user, const char *pass)
{
	const char *lb = strchr(host, ':') ? "[" : "", *rb = *lb ? "]" : "";
	char auth[760] = "";
	int n;

	if (user) {
		char pair[520], b64[700];
		int k = snprintf(pair, sizeof(pair), "%s:%s", user, pass ? pass : "");

		if (k < 0 || (size_t)k >= sizeof(pair) ||
		    proxy_base64(b64, sizeof(b64), (const uint8_t *)pair, (size_t)k) < 0)
			return -1;
		snprintf(auth, sizeof(auth), "Proxy-Authorization: Basic %s\r\n", b64);
	}
	if (strpbrk(host, "\r\n ") != NULL)
		return -1;
	n = snprintf(buf, cap, "CONNECT %s%s%s:%u HTTP/1.0\r\nHost: %s%s%s:%u\r\n%s\r\n", lb, host, rb,
		     (unsigned)port, lb, host, rb, (unsigned)port, auth);
	if (n < 0 || (size_t)n >= cap)
		return -1;
	return n;
}

/* The end of the header: index just past "\n\r\n" or "\n\n", or 0. */
static size_t header_end(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

int proxy_http_parse_reply(const char *buf, size_t len, int *status, char *reason, size_t reasonlen)
{
	static const char prefix[] = "HTTP/1.";
	size_t scan = len < PROXY_HTTP_MAX ? len : PROXY_HTTP_MAX, end, i;

	/* Check what we have of the status line as early as possible. */
	for (i = 0; i < scan && i < sizeof(prefix) - 1; i++)
		if (buf[i] != prefix[i])
			return PROXY_MALFORMED;
	if (memchr(buf, '\0', scan) != NULL)
		return PROXY_MALFORMED;
	end = header_end(buf, scan);
	if (end == 0)
		return len >= PROXY_HTTP_MAX ? PROXY_MALFORMED : PROXY_PARTIAL;
	/* "HTTP/1.d ddd" then a space, CR or LF. */
	if (end < 13 || buf[7] < '0' || buf[7] > '9' || buf[8] != ' ')
		return PROXY_MALFORMED;
	for (i = 9; i < 12; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return PROXY_MALFORMED;
	if (buf[12] != ' ' && buf[12] != '\r' && buf[12] != '\n')
		return PROXY_MALFORMED;
	*status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	if (reason && reasonlen > 0) {
		size_t r = 0;

		for (i = 13; buf[12] == ' ' && i < end && buf[i] != '\r' && buf[i] != '\n'; i++)
			if (r + 1 < reasonlen)
				reason[r++] = (buf[i] >= 0x20 && buf[i] < 0x7f) ? buf[i] : '?';
		reason[r] = '\0';
	}
	return (int)end;
}
