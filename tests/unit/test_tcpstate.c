/* SPDX-License-Identifier: ISC */
/* test_tcpstate.c - TCP_INFO decoding at every length a kernel may return, interval arithmetic
 * (backward counters, sums over streams), and a real reading on loopback. */
#include <errno.h>
#include <linux/tcp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "test_random.h"

#include "tcp/tcpstate.h"
#include "tcp_pair.h"

static void test_decode_every_length(void **state)
{
	struct tcp_info ti;
	struct tcpstate st;

	(void)state;
	memset(&ti, 0, sizeof(ti));
	ti.tcpi_rtt = 1234;
	ti.tcpi_rttvar = 56;
	ti.tcpi_snd_cwnd = 10;
	ti.tcpi_total_retrans = 7;
	ti.tcpi_pacing_rate = 999;
	ti.tcpi_bytes_acked = 100;
	ti.tcpi_bytes_received = 200;
	ti.tcpi_delivery_rate = 300;
	ti.tcpi_bytes_sent = 400;
	ti.tcpi_bytes_retrans = 40;
	/* Each length from none to the whole struct: a field is set exactly when it fits. */
	for (size_t len = 0; len <= sizeof(ti); len++) {
		tcpstate_decode(&ti, len, &st);
		int basic = len >= offsetof(struct tcp_info, tcpi_total_retrans) + 4;
		int bytes = len >= offsetof(struct tcp_info, tcpi_bytes_received) + 8;
		int sent = len >= offsetof(struct tcp_info, tcpi_bytes_retrans) + 8;

		assert_int_equal(!!(st.have & TCPSTATE_HAVE_BASIC), basic);
		assert_int_equal(st.rtt_us, basic ? 1234 : 0);
		assert_int_equal(st.total_retrans, basic ? 7 : 0);
		assert_int_equal(!!(st.have & TCPSTATE_HAVE_BYTES), bytes);
		assert_int_equal(st.bytes_received, bytes ? 200 : 0);
		assert_int_equal(st.bytes_acked, bytes ? 100 : 0);
		assert_int_equal(!!(st.have & TCPSTATE_HAVE_BYTES_SENT), sent);
		assert_int_equal(st.bytes_retrans, sent ? 40 : 0);
	}
	/* Longer than this build's struct (a newer kernel): the known part still decodes. */
	{
		unsigned char big[sizeof(ti) + 64];

		memset(big, 0xff, sizeof(big));
		memcpy(big, &ti, sizeof(ti));
		tcpstate_decode(big, sizeof(big), &st);
		assert_int_equal(st.delivery_rate, 300);
		assert_int_equal(st.bytes_sent, 400);
	}
}

static void test_delta(void **state)
{
	struct tcpstate a = { .have = 0x1f, .bytes_acked = 1000, .bytes_received = 50, .total_retrans = 3 };
	struct tcpstate b = { .have = 0x07, .bytes_acked = 5000, .bytes_received = 50, .total_retrans = 5,
			      .cwnd = 42, .rtt_us = 900, .rttvar_us = 90, .pacing_rate = 7, .delivery_rate = 8 };
	struct tcpstate_interval iv;

	(void)state;
	tcpstate_delta(&a, &b, 2.0, &iv);
	assert_int_equal(iv.acked, 4000);
	assert_int_equal(iv.received, 0);
	assert_int_equal(iv.retrans, 2);
	assert_true(iv.acked_rate == 2000.0);
	assert_int_equal(iv.cwnd, 42);
	assert_int_equal(iv.rtt_us, 900);
	assert_int_equal(iv.have, 0x07);
	/* Backwards (another connection's reading): 0, not a wrap-around. */
	tcpstate_delta(&b, &a, 1.0, &iv);
	assert_int_equal(iv.acked, 0);
	assert_int_equal(iv.retrans, 0);
	/* No time: no rate, no division by zero. */
	tcpstate_delta(&a, &b, 0, &iv);
	assert_true(iv.acked_rate == 0.0);
}

/* Random intervals summed stream by stream: counters add exactly, the RTT stays within the
 * streams' range. The seed is printed so that a failure can be rerun. */
static void test_sum_generated(void **state)
{
	unsigned seed = (unsigned)time(NULL);

	(void)state;
	print_message("seed %u\n", seed);
	test_seed(seed);
	for (int round = 0; round < 200; round++) {
		struct tcpstate_interval sum, one;
		unsigned n = 1 + (unsigned)test_rand() % 8;
		uint64_t acked = 0, retrans = 0;
		uint32_t lo = UINT32_MAX, hi = 0;

		memset(&sum, 0, sizeof(sum));
		for (unsigned i = 0; i < n; i++) {
			memset(&one, 0, sizeof(one));
			one.acked = (uint64_t)test_rand() * 1000u;
			one.retrans = (uint32_t)test_rand() % 100;
			one.rtt_us = 1 + (uint32_t)test_rand() % 100000;
			one.have = 0x1f;
			acked += one.acked;
			retrans += one.retrans;
			lo = one.rtt_us < lo ? one.rtt_us : lo;
			hi = one.rtt_us > hi ? one.rtt_us : hi;
			tcpstate_interval_add(&sum, &one, i);
		}
		assert_int_equal(sum.acked, acked);
		assert_int_equal(sum.retrans, retrans);
		assert_true(sum.rtt_us >= lo && sum.rtt_us <= hi);
	}
}

static void test_read_loopback(void **state)
{
	static char buf[100000];
	struct tcpstate snd, rcv, snd0, rcv0;
	int fds[2];
	size_t got = 0;

	(void)state;
	tcp_pair(fds);
	/* Readings at connect: the kernel counts the SYN in bytes_acked, so figures are
	 * differences from these, as an interval's are. */
	assert_int_equal(tcpstate_read(fds[0], &snd0), 0);
	assert_int_equal(tcpstate_read(fds[1], &rcv0), 0);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(write(fds[0], buf, sizeof(buf)), (ssize_t)sizeof(buf));
	while (got < sizeof(buf)) {
		ssize_t n = read(fds[1], buf, sizeof(buf) - got);

		assert_true(n > 0);
		got += (size_t)n;
	}
	/* The receiver counted every byte; the sender's acknowledged count gets there within a
	 * bounded wait (the last ACK may still be on its way). */
	assert_int_equal(tcpstate_read(fds[1], &rcv), 0);
	assert_int_equal(rcv.bytes_received - rcv0.bytes_received, sizeof(buf));
	for (int i = 0; i < 200; i++) {
		assert_int_equal(tcpstate_read(fds[0], &snd), 0);
		if (snd.bytes_acked - snd0.bytes_acked == sizeof(buf))
			break;
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
	assert_int_equal(snd.bytes_acked - snd0.bytes_acked, sizeof(buf));
	assert_true(snd.cwnd > 0);
	assert_true(snd.snd_mss > 0);
	close(fds[0]);
	close(fds[1]);
}

static void test_read_not_tcp(void **state)
{
	struct tcpstate st;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(tcpstate_read(sv[0], &st), -1);
	assert_true(errno == EOPNOTSUPP || errno == ENOPROTOOPT);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_every_length),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_sum_generated),
		cmocka_unit_test(test_read_loopback),
		cmocka_unit_test(test_read_not_tcp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
