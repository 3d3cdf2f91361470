/* SPDX-License-Identifier: ISC */
/* test_devtcp_path.c - which paths the /dev/tcp library claims, and how it splits them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "devtcp/path.h"

static void expect(const char *path, enum devtcp_kind kind, const char *host, const char *port)
{
	struct devtcp_path p;

	assert_true(devtcp_path_claims(path));
	assert_int_equal(devtcp_path_parse(path, &p), 1);
	assert_int_equal(p.kind, kind);
	assert_string_equal(p.at.host, host);
	assert_string_equal(p.at.port, port);
}

static void test_forms(void **state)
{
	(void)state;
	expect("/dev/tcp/127.0.0.1/6666", DEVTCP_TCP, "127.0.0.1", "6666");
	expect("/dev/tcp/example.org/http", DEVTCP_TCP, "example.org", "http");
	expect("/dev/udp/localhost/53", DEVTCP_UDP, "localhost", "53");
	expect("/dev/tcp/::1/80", DEVTCP_TCP, "::1", "80");
	expect("/dev/tcp/[::1]/80", DEVTCP_TCP, "::1", "80");
	expect("/dev/tcp-listen/127.0.0.1/0", DEVTCP_LISTEN, "127.0.0.1", "0");
	expect("/dev/tcp-listen/6666", DEVTCP_LISTEN, "", "6666");
	expect("/dev/tcp-listen/::/6666", DEVTCP_LISTEN, "::", "6666");
	/* Empty brackets are an empty host, as no host at all: every address. */
	expect("/dev/tcp-listen/[]/6666", DEVTCP_LISTEN, "", "6666");
}

static void test_other_paths_are_not_claimed(void **state)
{
	(void)state;
	assert_false(devtcp_path_claims("/dev/null"));
	assert_false(devtcp_path_claims("/dev/tc"));
	assert_false(devtcp_path_claims("/dev/tcp"));
	assert_false(devtcp_path_claims("/dev/tcpx/a/1"));
	assert_false(devtcp_path_claims("/dev/tcp-listenx/1"));
	assert_false(devtcp_path_claims("/dev/udp-listen/1"));
	assert_false(devtcp_path_claims("dev/tcp/a/1"));
	assert_false(devtcp_path_claims("/etc/hosts"));
	assert_false(devtcp_path_claims(""));
	assert_true(devtcp_path_claims_relative("tcp/a/1"));
	assert_true(devtcp_path_claims_relative("tcp-listen/1"));
	assert_false(devtcp_path_claims_relative("tcpdump.log"));
}

/* A claimed prefix without the HOST/PORT shape is an ordinary (missing) file. */
static void test_wrong_shape_is_not_a_device(void **state)
{
	static const char *paths[] = { "/dev/tcp/", "/dev/tcp/host", "/dev/tcp/host/",
				       "/dev/tcp//80", "/dev/tcp/h/80/x", "/dev/udp/h",
				       "/dev/tcp-listen/", "/dev/tcp-listen/a/b/1" };
	struct devtcp_path p;

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		assert_int_equal(devtcp_path_parse(paths[i], &p), 0);
}

static void test_bad_port_is_einval(void **state)
{
	static const char *paths[] = { "/dev/tcp/h/65536", "/dev/tcp/h/0", "/dev/udp/h/0",
				       "/dev/tcp/h/-1", "/dev/tcp/h/8o", "/dev/tcp-listen/99999" };
	struct devtcp_path p;

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		errno = 0;
		assert_int_equal(devtcp_path_parse(paths[i], &p), -1);
		assert_int_equal(errno, EINVAL);
	}
}

static void test_identity_is_stable_and_distinct(void **state)
{
	(void)state;
	assert_int_equal(devtcp_path_ino("/dev/tcp/a/1"), devtcp_path_ino("/dev/tcp/a/1"));
	assert_int_not_equal(devtcp_path_ino("/dev/tcp/a/1"), devtcp_path_ino("/dev/tcp/a/2"));
	assert_int_not_equal(devtcp_path_ino(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_other_paths_are_not_claimed),
		cmocka_unit_test(test_wrong_shape_is_not_a_device),
		cmocka_unit_test(test_bad_port_is_einval),
		cmocka_unit_test(test_identity_is_stable_and_distinct),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
