/* SPDX-License-Identifier: ISC */
/* test_nc.c - nc's command line (ports, ranges, conflicts, refused options), TOS keywords and
 * telnet answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/nc_cmd.h"

static int parse(struct nc_opts *o, const char *line)
{
	char buf[512], *argv[32];
	struct cmd_tls tls;
	int argc = 0;

	snprintf(buf, sizeof(buf), "nc %s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	switch (nc_parse_options(argc, argv, NULL, o, &tls)) {
	case CMD_PARSE_RUN:
		return 0;
	case CMD_PARSE_DONE:
		return 1;
	default:
		return -1;
	}
}

static void test_ports_lists_and_ranges(void **state)
{
	struct nc_opts *o = calloc(1, sizeof(*o));

	(void)state;
	assert_int_equal(parse(o, "-z host 22 20-21 30-28 http"), 0);
	assert_string_equal(o->host, "host");
	assert_int_equal(o->nports, 7);
	assert_int_equal(o->ports[0], 22);
	assert_int_equal(o->ports[1], 20);
	assert_int_equal(o->ports[2], 21);
	assert_int_equal(o->ports[3], 28); /* a reversed range is scanned upwards, as nc does */
	assert_int_equal(o->ports[5], 30);
	assert_int_equal(o->ports[6], 80);
	assert_int_equal(parse(o, "-r -z host 1-100"), 0);
	assert_int_equal(o->nports, 100);
	assert_int_equal(parse(o, "host 0"), -1);
	assert_int_equal(parse(o, "host 65536"), -1);
	assert_int_equal(parse(o, "host 10-99999"), -1);
	assert_int_equal(parse(o, "host nosuchservice"), -1);
	assert_int_equal(parse(o, "host"), -1);
	free(o);
}

static void test_listen_forms(void **state)
{
	struct nc_opts *o = calloc(1, sizeof(*o));

	(void)state;
	assert_int_equal(parse(o, "-l 1234"), 0);
	assert_null(o->host);
	assert_int_equal(o->ports[0], 1234);
	assert_int_equal(parse(o, "-l 127.0.0.1 1234"), 0);
	assert_string_equal(o->host, "127.0.0.1");
	assert_int_equal(parse(o, "-l -p 1234"), 0);
	assert_int_equal(o->ports[0], 1234);
	assert_int_equal(parse(o, "-l -s ::1 -p 99"), 0);
	assert_string_equal(o->host, "::1");
	assert_int_equal(parse(o, "-l 127.0.0.1 0"), 0); /* ncpv: the kernel picks, -v tells */
	assert_int_equal(parse(o, "-lU /tmp/sock"), 0);
	assert_string_equal(o->host, "/tmp/sock");
	assert_int_equal(parse(o, "-lU"), -1);
	free(o);
}

static void test_conflicts_and_refusals(void **state)
{
	struct nc_opts *o = calloc(1, sizeof(*o));

	(void)state;
	assert_int_equal(parse(o, "-l -z 1"), -1);
	assert_int_equal(parse(o, "-k host 1"), -1);
	assert_int_equal(parse(o, "-F -U path"), -1);
	assert_int_equal(parse(o, "-l -x proxy 1"), -1);
	assert_int_equal(parse(o, "-u -x proxy host 1"), -1);
	assert_int_equal(parse(o, "-S host 1"), -1);
	assert_int_equal(parse(o, "-V 1 host 1"), -1);
	assert_int_equal(parse(o, "-Z host 1"), -1);
	assert_int_equal(parse(o, "-y host 1"), -1);
	assert_int_equal(parse(o, "-X 9 -x p host 1"), -1);
	assert_int_equal(parse(o, "-w abc host 1"), -1);
	assert_int_equal(parse(o, "-I 0 host 1"), -1);
	assert_int_equal(parse(o, "-T nonsense host 1"), -1);
	assert_int_equal(parse(o, "-q 2 host 1"), 0);
	assert_int_equal(o->quit_after, 2);
	assert_true(o->shutdown_on_eof); /* Debian: -q implies -N */
	assert_int_equal(parse(o, "-q -1 host 1"), 0);
	assert_int_equal(o->quit_after, -1);
	assert_false(o->shutdown_on_eof);
	assert_int_equal(parse(o, "-x proxy host 1"), 0);
	assert_int_equal(o->proxy_proto, PROXY_SOCKS5);
	assert_int_equal(parse(o, "-X connect -x proxy --progress --json host 1"), 0);
	assert_int_equal(o->proxy_proto, PROXY_HTTP);
	assert_true(o->progress && o->json);
	free(o);
}

static void test_tos(void **state)
{
	(void)state;
	assert_int_equal(nc_parse_tos("lowdelay"), 0x10);
	assert_int_equal(nc_parse_tos("throughput"), 0x08);
	assert_int_equal(nc_parse_tos("ef"), 0xb8);
	assert_int_equal(nc_parse_tos("af41"), 0x88);
	assert_int_equal(nc_parse_tos("cs7"), 0xe0);
	assert_int_equal(nc_parse_tos("0x20"), 0x20);
	assert_int_equal(nc_parse_tos("255"), 255);
	assert_int_equal(nc_parse_tos("256"), -1);
	assert_int_equal(nc_parse_tos("-1"), -1);
	assert_int_equal(nc_parse_tos("fast"), -1);
	assert_int_equal(nc_parse_tos("12abc"), -1);
}

static void test_telnet_answers(void **state)
{
	static const uint8_t in[] = { 'a', 255, 251, 1, 'b', 255, 253, 31, 255, 255, 'c', 255, 254 };
	uint8_t out[64];
	int st = 0;
	size_t n;

	(void)state;
	n = nc_telnet_answers(in, sizeof(in), &st, out, sizeof(out));
	assert_int_equal(n, 6);
	assert_memory_equal(out, ((const uint8_t[]){ 255, 254, 1, 255, 252, 31 }), 6);
	/* The DONT at the end waits for its option byte in the next read. */
	n = nc_telnet_answers((const uint8_t *)"\x18", 1, &st, out, sizeof(out));
	assert_int_equal(n, 3);
	assert_memory_equal(out, ((const uint8_t[]){ 255, 252, 24 }), 3);
	assert_int_equal(st, 0);
	assert_int_equal(nc_telnet_answers(in, sizeof(in), &st, out, 2), 0); /* no room, no overflow */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports_lists_and_ranges),
		cmocka_unit_test(test_listen_forms),
		cmocka_unit_test(test_conflicts_and_refusals),
		cmocka_unit_test(test_tos),
		cmocka_unit_test(test_telnet_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
