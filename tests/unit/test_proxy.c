/* SPDX-License-Identifier: ISC */
/* test_proxy.c - proxy requests are built byte-exact, and reply parsers survive hostile input:
 * every prefix is partial or malformed (never a read past the end, checked with a guard page). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "proxy.h"

/* Copy len bytes so that they end exactly at a PROT_NONE page: one byte of over-read faults. */
struct guarded {
	uint8_t *map;
	size_t maplen;
	uint8_t *data;
};

static struct guarded guard(const void *src, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (len + page - 1) / page + 1;
	struct guarded g;

	g.maplen = (pages + 1) * page;
	g.map = mmap(NULL, g.maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(g.map != MAP_FAILED);
	assert_int_equal(mprotect(g.map + pages * page, page, PROT_NONE), 0);
	g.data = g.map + pages * page - len;
	memcpy(g.data, src, len);
	return g;
}

static void unguard(struct guarded *g)
{
	munmap(g->map, g->maplen);
}

static int socks5_reply(const void *buf, size_t len, int *rep)
{
	struct guarded g = guard(buf, len);
	int rc = proxy_socks5_parse_reply(g.data, len, rep);

	unguard(&g);
	return rc;
}

static int http_reply(const char *buf, size_t len, int *status)
{
	struct guarded g = guard(buf, len);
	char reason[32];
	int rc = proxy_http_parse_reply((const char *)g.data, len, status, reason, sizeof(reason));

	unguard(&g);
	return rc;
}

static void test_socks4_request_and_reply(void **state)
{
	static const uint8_t ip[4] = { 10, 1, 2, 3 };
	static const uint8_t want[] = { 4, 1, 0x1f, 0x90, 10, 1, 2, 3, 'b', 'o', 'b', 0 };
	uint8_t buf[64];
	int granted = -1, code = 0;

	(void)state;
	assert_int_equal(proxy_socks4_request(buf, sizeof(buf), ip, 8080, "bob"), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(proxy_socks4_request(buf, 11, ip, 8080, "bob"), -1);
	assert_int_equal(proxy_socks4_parse_reply((const uint8_t *)"\0\x5a", 2, &granted, &code), PROXY_PARTIAL);
	assert_int_equal(proxy_socks4_parse_reply((const uint8_t *)"\0\x5a\0\0\0\0\0\0xyz", 11, &granted, &code), 8);
	assert_int_equal(granted, 1);
	assert_int_equal(proxy_socks4_parse_reply((const uint8_t *)"\0\x5b\0\0\0\0\0\0", 8, &granted, &code), 8);
	assert_int_equal(granted, 0);
	assert_int_equal(code, 91);
	assert_int_equal(proxy_socks4_parse_reply((const uint8_t *)"\x05", 1, &granted, &code), PROXY_MALFORMED);
	assert_int_equal(proxy_socks4_parse_reply((const uint8_t *)"\0\x01\0\0\0\0\0\0", 8, &granted, &code), PROXY_MALFORMED);
}

static void test_socks5_requests(void **state)
{
	static const uint8_t v4[] = { 5, 1, 0, 1, 127, 0, 0, 1, 0, 80 };
	static const uint8_t name[] = { 5, 1, 0, 3, 7, 'e', 'x', '.', 'o', 'r', 'g', 'x', 1, 0xbb };
	uint8_t buf[600];
	char longname[300];

	(void)state;
	assert_int_equal(proxy_socks5_greeting(buf, sizeof(buf), 0), 3);
	assert_int_equal(proxy_socks5_greeting(buf, sizeof(buf), 1), 4);
	assert_int_equal(buf[3], 2);
	assert_int_equal(proxy_socks5_connect_request(buf, sizeof(buf), "127.0.0.1", 80), sizeof(v4));
	assert_memory_equal(buf, v4, sizeof(v4));
	assert_int_equal(proxy_socks5_connect_request(buf, sizeof(buf), "ex.orgx", 443), sizeof(name));
	assert_memory_equal(buf, name, sizeof(name));
	assert_int_equal(proxy_socks5_connect_request(buf, sizeof(buf), "::1", 22), 4 + 16 + 2);
	assert_int_equal(buf[3], 4);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(proxy_socks5_connect_request(buf, sizeof(buf), longname, 1), -1);
	assert_int_equal(proxy_socks5_connect_request(buf, sizeof(buf), "", 1), -1);
	assert_int_equal(proxy_socks5_connect_request(buf, 9, "127.0.0.1", 80), -1);
	assert_int_equal(proxy_socks5_auth_request(buf, sizeof(buf), "bob", "pw"), 3 + 3 + 2);
	assert_int_equal(buf[0], 1);
	assert_int_equal(buf[1], 3);
	assert_int_equal(buf[5], 2);
	assert_int_equal(proxy_socks5_auth_request(buf, sizeof(buf), "", "pw"), -1);
	assert_int_equal(proxy_socks5_auth_request(buf, sizeof(buf), "bob", longname), -1);
}

static void test_socks5_method_and_auth(void **state)
{
	int m = -1, ok = -1;

	(void)state;
	assert_int_equal(proxy_socks5_parse_method((const uint8_t *)"", 0, &m), PROXY_PARTIAL);
	assert_int_equal(proxy_socks5_parse_method((const uint8_t *)"\x05", 1, &m), PROXY_PARTIAL);
	assert_int_equal(proxy_socks5_parse_method((const uint8_t *)"\x05\x02", 2, &m), 2);
	assert_int_equal(m, 2);
	assert_int_equal(proxy_socks5_parse_method((const uint8_t *)"\x04\x00", 2, &m), PROXY_MALFORMED);
	assert_int_equal(proxy_socks5_parse_auth((const uint8_t *)"\x01\x00", 2, &ok), 2);
	assert_int_equal(ok, 1);
	assert_int_equal(proxy_socks5_parse_auth((const uint8_t *)"\x01\x01", 2, &ok), 2);
	assert_int_equal(ok, 0);
	assert_int_equal(proxy_socks5_parse_auth((const uint8_t *)"\x05\x00", 2, &ok), PROXY_MALFORMED);
}

static void test_socks5_reply_every_prefix(void **state)
{
	static const uint8_t v4[] = { 5, 0, 0, 1, 1, 2, 3, 4, 0, 80 };
	static const uint8_t v6[] = { 5, 5, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80 };
	static const uint8_t name[] = { 5, 0, 0, 3, 3, 'a', 'b', 'c', 1, 1 };
	const uint8_t *good[] = { v4, v6, name };
	size_t lens[] = { sizeof(v4), sizeof(v6), sizeof(name) };
	int rep = -1;

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		for (size_t n = 0; n < lens[k]; n++)
			assert_int_equal(socks5_reply(good[k], n, &rep), PROXY_PARTIAL);
		rep = -1;
		assert_int_equal(socks5_reply(good[k], lens[k], &rep), (int)lens[k]);
		assert_int_equal(rep, good[k][1]);
	}
	assert_string_equal(proxy_socks5_reason(5), "connection refused");
	assert_string_equal(proxy_socks5_reason(200), "unknown SOCKS5 reply code");
}

static void test_socks5_reply_hostile(void **state)
{
	int rep = -1;

	(void)state;
	assert_int_equal(socks5_reply("\x04\x00\x00\x01", 4, &rep), PROXY_MALFORMED);	  /* version */
	assert_int_equal(socks5_reply("\x05\x00\x01\x01\x00", 5, &rep), PROXY_MALFORMED); /* RSV */
	assert_int_equal(socks5_reply("\x05\x00\x00\x07\x00", 5, &rep), PROXY_MALFORMED); /* ATYP */
	assert_int_equal(socks5_reply("\x05\x00\x00\x03\x00", 5, &rep), PROXY_MALFORMED); /* empty name */
	/* A name length of 255 with only a few bytes: partial, never an over-read. */
	assert_int_equal(socks5_reply("\x05\x00\x00\x03\xff\x41\x41", 7, &rep), PROXY_PARTIAL);
	assert_int_equal(rep, -1);
}

static void test_socks5_reply_random_bytes(void **state)
{
	uint8_t buf[300];
	unsigned seed = 12345;

	(void)state;
	/* Whatever arrives, the answer is one of the documented ones and within the input. */
	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)(rand_r(&seed) % 300);
		int rep = -1, rc;

		for (size_t j = 0; j < len; j++)
			buf[j] = (uint8_t)rand_r(&seed);
		if (len > 0 && i % 2)
			buf[0] = 5;
		if (len > 2 && i % 4 == 1)
			buf[2] = 0;
		rc = socks5_reply(buf, len, &rep);
		assert_true(rc == PROXY_PARTIAL || rc == PROXY_MALFORMED || (rc >= 10 && (size_t)rc <= len));
	}
}

static void test_http_request(void **state)
{
	char buf[1400];
	int n;

	(void)state;
	n = proxy_http_request(buf, sizeof(buf), "example.org", 443, NULL, NULL);
	assert_string_equal(buf, "CONNECT example.org:443 HTTP/1.0\r\nHost: example.org:443\r\n\r\n");
	assert_int_equal(n, (int)strlen(buf));
	proxy_http_request(buf, sizeof(buf), "::1", 22, NULL, NULL);
	assert_non_null(strstr(buf, "CONNECT [::1]:22 HTTP/1.0\r\n"));
	proxy_http_request(buf, sizeof(buf), "h", 1, "Aladdin", "open sesame");
	assert_non_null(strstr(buf, "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n"));
	assert_int_equal(proxy_http_request(buf, sizeof(buf), "evil\r\nX-Injected: 1", 1, NULL, NULL), -1);
	assert_int_equal(proxy_http_request(buf, 20, "example.org", 443, NULL, NULL), -1);
}

static void test_http_reply(void **state)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\nVia: x\r\n\r\ntunnel";
	static const char deny[] = "HTTP/1.0 407 Proxy Authentication Required\n\n";
	char reason[32];
	int status = 0;

	(void)state;
	for (size_t n = 0; n < sizeof(ok) - 1 - strlen("tunnel"); n++)
		assert_int_equal(http_reply(ok, n, &status), PROXY_PARTIAL);
	assert_int_equal(http_reply(ok, sizeof(ok) - 1, &status), (int)(sizeof(ok) - 1 - strlen("tunnel")));
	assert_int_equal(status, 200);
	assert_int_equal(proxy_http_parse_reply(deny, strlen(deny), &status, reason, sizeof(reason)),
			 (int)strlen(deny));
	assert_int_equal(status, 407);
	assert_string_equal(reason, "Proxy Authentication Required");
	assert_int_equal(http_reply("SSH-2.0-OpenSSH\r\n\r\n", 19, &status), PROXY_MALFORMED);
	assert_int_equal(http_reply("HTTP/2 200\r\n\r\n", 14, &status), PROXY_MALFORMED);
	assert_int_equal(http_reply("HTTP/1.0 2x0 OK\r\n\r\n", 19, &status), PROXY_MALFORMED);
	assert_int_equal(http_reply("HTTP/1.0 200OK\r\n\r\n", 18, &status), PROXY_MALFORMED);
	assert_int_equal(http_reply("HTTP/1.0 200 OK\0\r\n\r\n", 20, &status), PROXY_MALFORMED);
	assert_int_equal(http_reply("\n\n", 2, &status), PROXY_MALFORMED);
	assert_int_equal(http_reply("HTTP/1.0\n\n", 10, &status), PROXY_MALFORMED);
}

static void test_http_reply_too_long(void **state)
{
	char *big = malloc(PROXY_HTTP_MAX + 100);
	int status = 0;

	(void)state;
	assert_non_null(big);
	memcpy(big, "HTTP/1.0 200 OK\r\n", 17);
	for (size_t i = 17; i < PROXY_HTTP_MAX + 100; i++)
		big[i] = (i % 40 == 39) ? '\n' : 'x';
	assert_int_equal(http_reply(big, PROXY_HTTP_MAX - 1, &status), PROXY_PARTIAL);
	assert_int_equal(http_reply(big, PROXY_HTTP_MAX + 100, &status), PROXY_MALFORMED);
	free(big);
}

static void test_base64(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(proxy_base64(out, sizeof(out), (const uint8_t *)"", 0), 0);
	assert_string_equal(out, "");
	proxy_base64(out, sizeof(out), (const uint8_t *)"f", 1);
	assert_string_equal(out, "Zg==");
	proxy_base64(out, sizeof(out), (const uint8_t *)"fo", 2);
	assert_string_equal(out, "Zm8=");
	proxy_base64(out, sizeof(out), (const uint8_t *)"foobar", 6);
	assert_string_equal(out, "Zm9vYmFy");
	assert_int_equal(proxy_base64(out, 8, (const uint8_t *)"foobar", 6), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socks4_request_and_reply),
		cmocka_unit_test(test_socks5_requests),
		cmocka_unit_test(test_socks5_method_and_auth),
		cmocka_unit_test(test_socks5_reply_every_prefix),
		cmocka_unit_test(test_socks5_reply_hostile),
		cmocka_unit_test(test_socks5_reply_random_bytes),
		cmocka_unit_test(test_http_request),
		cmocka_unit_test(test_http_reply),
		cmocka_unit_test(test_http_reply_too_long),
		cmocka_unit_test(test_base64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
