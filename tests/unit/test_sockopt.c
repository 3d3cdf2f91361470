/* SPDX-License-Identifier: ISC */
/* test_sockopt.c - each socket setting applied on loopback and read back as the kernel granted
 * it; refusals name the setting and the kernel's reason; the pure parsers against tables. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tcp/sockopt.h"
#include "tcp/tcpstate.h"
#include <arpa/inet.h>
#include <unistd.h>

static int tcp_socket(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	return fd;
}

static void test_tos_table(void **state)
{
	static const struct {
		const char *in;
		int tos; /* -1: refused */
	} cases[] = {
		{ "0", 0 },	   { "16", 16 },   { "0x10", 16 }, { "255", 255 }, { "256", -1 }, { "-1", -1 },
		{ "ef", 184 },	   { "EF", 184 },  { "af11", 40 }, { "af43", 152 }, { "cs7", 224 }, { "le", 4 },
		{ "af44", -1 },	   { "", -1 },	   { "0x", -1 },   { "1x", -1 },    { "cs8", -1 }, { " 1", -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int tos = -7;
		int rc = sockopt_parse_tos(cases[i].in, &tos);

		if (cases[i].tos < 0)
			assert_int_equal(rc, -1);
		else {
			assert_int_equal(rc, 0);
			assert_int_equal(tos, cases[i].tos);
		}
	}
}

static void test_cc_names(void **state)
{
	(void)state;
	assert_int_equal(sockopt_cc_listed("reno cubic bbr", "cubic"), 1);
	assert_int_equal(sockopt_cc_listed("reno cubic bbr", "bbr"), 1);
	assert_int_equal(sockopt_cc_listed("reno cubic bbr", "cub"), 0);
	assert_int_equal(sockopt_cc_listed("reno cubic bbr", "bbr2"), 0);
	assert_int_equal(sockopt_cc_listed("", "reno"), 0);
	assert_int_equal(sockopt_cc_listed("reno", ""), 0);
	assert_int_equal(sockopt_check_cc_name("cubic"), 0);
	assert_int_equal(sockopt_check_cc_name("dctcp-reno_2"), 0);
	assert_int_equal(sockopt_check_cc_name(""), -1);
	assert_int_equal(sockopt_check_cc_name("Cubic"), -1);
	assert_int_equal(sockopt_check_cc_name("a/b"), -1);
	assert_int_equal(sockopt_check_cc_name("abcdefghijklmnop"), -1); /* 16 */
	assert_int_equal(sockopt_check_cc_name("abcdefghijklmno"), 0);	  /* 15 */
}

/* Every congestion control the kernel lists is the one the socket then uses. */
static void test_congestion_every_available(void **state)
{
	char list[256], one[32];
	int n = 0;

	(void)state;
	assert_int_equal(sockopt_cc_available(list, sizeof(list)), 0);
	for (const char *p = list; sscanf(p, "%31s", one) == 1; p = strstr(p, one) + strlen(one)) {
		struct sockopt_want w;
		struct sockopt_got got;
		char err[256];
		int fd = tcp_socket();

		sockopt_init(&w);
		w.congestion = one;
		assert_int_equal(sockopt_apply(fd, AF_INET, &w, &got, err, sizeof(err)), 0);
		assert_string_equal(got.congestion, one);
		close(fd);
		n++;
	}
	assert_true(n >= 1); /* reno is always built in */
}

static void test_congestion_refused_names_it(void **state)
{
	struct sockopt_want w;
	char err[512] = "";
	int fd = tcp_socket();

	(void)state;
	sockopt_init(&w);
	w.congestion = "nosuchcc";
	assert_int_equal(sockopt_apply(fd, AF_INET, &w, NULL, err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "congestion control 'nosuchcc'"));
	assert_non_null(strstr(err, "available: "));
	assert_non_null(strstr(err, "reno"));
	w.congestion = "bad name";
	assert_int_equal(sockopt_apply(fd, AF_INET, &w, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "congestion control 'bad name'"));
	close(fd);
}

/* Buffers at sizes around the kernel's floor and cap: the granted size is what getsockopt
 * says, and Linux's doubling shows in it. */
static void test_buffers_granted(void **state)
{
	static const int sizes[] = { 1, 4096, 65536, 212992, 1 << 20, 64 << 20 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct sockopt_want w;
		struct sockopt_got got;
		char err[256];
		int fd = tcp_socket(), direct;
		socklen_t len = sizeof(direct);

		sockopt_init(&w);
		w.sndbuf = w.rcvbuf = sizes[i];
		assert_int_equal(sockopt_apply(fd, AF_INET, &w, &got, err, sizeof(err)), 0);
		assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &direct, &len), 0);
		assert_int_equal(got.sndbuf, direct);
		assert_true(got.sndbuf > 0 && got.rcvbuf > 0);
		/* Doubled when under the cap: never below the request unless capped low. */
		if (sizes[i] == 65536) {
			assert_int_equal(got.sndbuf, 2 * 65536);
			assert_int_equal(got.rcvbuf, 2 * 65536);
		}
		close(fd);
	}
}

static void test_mss_nodelay_tos_pacing(void **state)
{
	struct sockopt_want w;
	struct sockopt_got got;
	char err[256];
	int fd = tcp_socket();

	(void)state;
	sockopt_init(&w);
	w.mss = 1000;
	w.nodelay = 1;
	w.tos = 0xb8;
	w.pacing_rate = 12500000; /* 100 Mbit/s */
	assert_int_equal(sockopt_apply(fd, AF_INET, &w, &got, err, sizeof(err)), 0);
	assert_int_equal(got.mss, 1000);
	assert_int_equal(got.nodelay, 1);
	assert_int_equal(got.tos, 0xb8);
	assert_int_equal(got.pacing_rate, 12500000);
	close(fd);

	/* An MSS the kernel refuses: the setting and the range are named. */
	fd = tcp_socket();
	sockopt_init(&w);
	w.mss = 10;
	assert_int_equal(sockopt_apply(fd, AF_INET, &w, &got, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "MSS 10: "));
	close(fd);
}

/* The MSS set before connect is the one the connection uses: the peer's segments to us are
 * no larger (our SYN announced it), and without it loopback's are far larger. */
static void test_mss_used_on_connection(void **state)
{
	for (int with = 0; with <= 1; with++) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(sin);
		struct sockopt_want w;
		struct tcpstate st;
		char err[256];
		int l = tcp_socket(), c = tcp_socket(), a;

		(void)state;
		assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
		assert_int_equal(listen(l, 1), 0);
		assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &len), 0);
		sockopt_init(&w);
		w.mss = with ? 1000 : 0;
		assert_int_equal(sockopt_apply(c, AF_INET, &w, NULL, err, sizeof(err)), 0);
		assert_int_equal(connect(c, (struct sockaddr *)&sin, sizeof(sin)), 0);
		a = accept(l, NULL, NULL);
		assert_true(a >= 0);
		assert_int_equal(tcpstate_read(a, &st), 0);
		if (with)
			assert_true(st.snd_mss <= 1000);
		else
			assert_true(st.snd_mss > 1000);
		close(a);
		close(c);
		close(l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tos_table),
		cmocka_unit_test(test_cc_names),
		cmocka_unit_test(test_congestion_every_available),
		cmocka_unit_test(test_congestion_refused_names_it),
		cmocka_unit_test(test_buffers_granted),
		cmocka_unit_test(test_mss_nodelay_tos_pacing),
		cmocka_unit_test(test_mss_used_on_connection),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
