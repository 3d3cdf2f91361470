/* SPDX-License-Identifier: ISC */
/* fuzz_proxy.c - libFuzzer harness for what nc's proxy client reads from the network: SOCKS4,
 * SOCKS5 (method, auth, connect) and HTTP CONNECT replies (src/proxy.c), and its request
 * builders fed with host, user and password text. The first byte picks the parser. */
#include "fuzz.h"
#include "../src/proxy.h"

/* r must be a documented result for a reply of len bytes. */
static void check_result(int r, size_t len)
{
	if (r != PROXY_PARTIAL && r != PROXY_MALFORMED && (r < 0 || (size_t)r > len))
		abort();
}

/* One parser over buf[0..len): an exact-size heap copy, so ASan sees any read past it. */
static int parse(int which, const uint8_t *data, size_t len, size_t reasonlen)
{
	uint8_t *buf = malloc(len ? len : 1);
	char reason[64];
	int a = 0, b = 0, r;

	if (buf == NULL)
		abort();
	memcpy(buf, data, len);
	switch (which) {
	case 0:
		r = proxy_socks4_parse_reply(buf, len, &a, &b);
		break;
	case 1:
		r = proxy_socks5_parse_method(buf, len, &a);
		break;
	case 2:
		r = proxy_socks5_parse_auth(buf, len, &a);
		break;
	case 3:
		r = proxy_socks5_parse_reply(buf, len, &a);
		if (r >= 0 && proxy_socks5_reason(a) == NULL)
			abort();
		break;
	default:
		r = proxy_http_parse_reply((const char *)buf, len, &a, reasonlen ? reason : NULL, reasonlen);
		if (r >= 0 && reasonlen && memchr(reason, '\0', reasonlen) == NULL)
			abort(); /* the reason must come back NUL-terminated */
		break;
	}
	free(buf);
	check_result(r, len);
	return r;
}

static void builders(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), *user = text, *pass = "", *host = text, http[600];
	uint8_t req[600];
	char *nl = strchr(text, '\n');
	int n;

	if (nl != NULL) { /* "user\npass": the rest of the input is the password */
		*nl = '\0';
		pass = nl + 1;
	}
	n = proxy_socks5_connect_request(req, sizeof(req), host, 443);
	if (n > (int)sizeof(req))
		abort();
	n = proxy_socks5_auth_request(req, sizeof(req), user, pass);
	if (n > (int)sizeof(req))
		abort();
	n = proxy_http_request(http, sizeof(http), host, 8080, user, pass);
	if (n >= (int)sizeof(http) || (n >= 0 && http[n] != '\0'))
		abort();
	n = proxy_base64(http, sizeof(http), data, size < 400 ? size : 400);
	if (n > (int)sizeof(http))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int which, whole;
	size_t reasonlen;

	if (size == 0)
		return 0;
	which = data[0] % 6;
	reasonlen = data[0] >> 3 & 1 ? 1 : 64; /* the smallest reason buffer too */
	data++;
	size--;
	if (which == 5) {
		builders(data, size);
		return 0;
	}
	whole = parse(which, data, size, reasonlen);
	/* A reply is complete only once: every shorter prefix of a complete one is partial,
	 * as when it arrives a few bytes at a time (up to 64 prefixes, to stay fast). */
	if (whole >= 0)
		for (size_t k = whole > 64 ? (size_t)whole - 64 : 0; k < (size_t)whole; k++)
			if (parse(which, data, k, 64) != PROXY_PARTIAL)
				abort();
	return 0;
}
