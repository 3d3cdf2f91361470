/* SPDX-License-Identifier: ISC */
/* test_addr.c - endpoint specs split into host and port, and bad ones are named. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>

#include "addr.h"

static void expect(const char *spec, const char *dh, const char *dp, const char *host, const char *port)
{
	struct addr_spec a;
	char err[128] = "";

	assert_int_equal(addr_parse(spec, dh, dp, &a, err, sizeof(err)), 0);
	assert_string_equal(a.host, host);
	assert_string_equal(a.port, port);
}

static void reject(const char *spec, const char *dp, const char *words)
{
	struct addr_spec a;
	char err[128] = "";

	assert_int_equal(addr_parse(spec, NULL, dp, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, words));
}

static void test_forms(void **state)
{
	(void)state;
	expect("example.org:80", NULL, "6666", "example.org", "80");
	expect("example.org", NULL, "6666", "example.org", "6666");
	expect("127.0.0.1:0", NULL, "6666", "127.0.0.1", "0");
	expect("[::1]:6666", NULL, NULL, "::1", "6666");
	expect("[::1]", NULL, "7", "::1", "7");
	expect("::1", NULL, "7", "::1", "7");
	expect("fe80::1%lo", NULL, "7", "fe80::1%lo", "7");
	expect("6667", "127.0.0.1", "6666", "127.0.0.1", "6667");
	expect(":6667", "127.0.0.1", "6666", "127.0.0.1", "6667");
	expect("0.0.0.0:6666", "127.0.0.1", NULL, "0.0.0.0", "6666");
	expect("[::]:6666", "127.0.0.1", NULL, "::", "6666");
	expect("localhost:http", NULL, NULL, "localhost", "http");
}

static void test_bad_specs(void **state)
{
	(void)state;
	reject("", "1", "empty");
	reject("host:", "1", "missing port");
	reject("host:65536", "1", "invalid port '65536'");
	reject("host:-1", "1", "invalid port");
	reject("host:12ab", "1", "invalid port");
	reject("[::1", "1", "unbalanced");
	reject("[::1]x", "1", "junk");
	reject("host", NULL, "missing port");
}

/* A bare IPv6 address whose last group could be a port, and whose rest is an
 * address too, is refused rather than guessed; any other bare one is a host. */
static void test_ambiguous_v6(void **state)
{
	static const char *const ambiguous[] = { "::1:8080", "::1:80", "fe80::1:2", "2001:db8::5:1" };
	static const char *const plain[] = { "::1", "::", "fe80::1", "2001:db8::1", "::ffff:1.2.3.4",
					     "fe80::1:abcd", "::1:123456" };

	(void)state;
	for (size_t i = 0; i < sizeof(ambiguous) / sizeof(ambiguous[0]); i++)
		reject(ambiguous[i], "7", "ambiguous: write '[");
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		expect(plain[i], NULL, "7", plain[i], "7");
	reject("::ffff:1:65535", "7", "needs brackets before its port: '[::ffff:1]:65535'");
}

static void test_ports(void **state)
{
	int lo, hi;

	(void)state;
	assert_int_equal(addr_parse_port("0"), 0);
	assert_int_equal(addr_parse_port("65535"), 65535);
	assert_int_equal(addr_parse_port("65536"), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(addr_parse_port("x"), -1);
	assert_int_equal(addr_parse_port(""), -1);
	assert_int_equal(addr_parse_port_range("20-30", &lo, &hi), 0);
	assert_int_equal(lo, 20);
	assert_int_equal(hi, 30);
	assert_int_equal(addr_parse_port_range("80", &lo, &hi), 0);
	assert_int_equal(lo, 80);
	assert_int_equal(hi, 80);
	assert_int_equal(addr_parse_port_range("30-20", &lo, &hi), -1);
	assert_int_equal(addr_parse_port_range("0-5", &lo, &hi), -1);
	assert_int_equal(addr_parse_port_range("-5", &lo, &hi), -1);
	assert_int_equal(addr_parse_port_range("5-", &lo, &hi), -1);
}

/* -4 or -6 with a literal of the other family is named; names and the right family pass. */
static void test_family_conflicts(void **state)
{
	static const struct {
		const char *host;
		int family, ok;
	} cases[] = {
		{ "127.0.0.1", AF_INET6, 0 }, { "::1", AF_INET, 0 },	  { "::ffff:1.2.3.4", AF_INET, 0 },
		{ "127.0.0.1", AF_INET, 1 },  { "::1", AF_INET6, 1 },	  { "localhost", AF_INET6, 1 },
		{ "127.0.0.1", AF_UNSPEC, 1 }, { "::1", AF_UNSPEC, 1 },	  { "", AF_INET6, 1 },
		{ "1.2.3", AF_INET6, 1 },     { "fe80::1%lo", AF_INET, 1 },
	};
	char err[128];
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(addr_check_family(cases[i].host, cases[i].family, err, sizeof(err)),
				 cases[i].ok ? 0 : -1);
		if (!cases[i].ok)
			assert_non_null(strstr(err, cases[i].family == AF_INET ? "-4 asks for IPv4" : "-6 asks for IPv6"));
	}
	assert_int_equal(addr_check_family("127.0.0.1", AF_INET6, err, sizeof(err)), -1);
	assert_string_equal(err, "127.0.0.1 is an IPv4 address, but -6 asks for IPv6 only");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_ambiguous_v6),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_family_conflicts),
	};

	return cmocka_run_group_tests_name("addr", tests, NULL, NULL);
}
