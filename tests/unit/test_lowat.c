/* SPDX-License-Identifier: ISC */
/* test_lowat.c - the receiver's low-water mark that follows the rate: the marks (pure), and the
 * socket's SO_RCVLOWAT as tcp_lowat_update and tcp_lowat_off leave it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "tcp/lowat.h"
#include "tcp_pair.h"

#define MIB (1024 * 1024)
#define SEGMENT 1448.0

/* 1 Gbit/s in single segments: a mark of a millisecond's worth, at most 64 KiB; a quarter of
 * it (4 streams sharing the link) 16 KiB; 100 Mbit/s 8 KiB; under 8 KiB a millisecond, none. */
static void test_lowat_follows_the_rate(void **state)
{
	(void)state;
	assert_int_equal(tcp_lowat_for(125e6, 8 * MIB, SEGMENT, 0), 65536);
	assert_int_equal(tcp_lowat_for(31.25e6, 8 * MIB, SEGMENT, 0), 16384);
	assert_int_equal(tcp_lowat_for(12.5e6, 8 * MIB, SEGMENT, 0), 8192);
	assert_int_equal(tcp_lowat_for(5e6, 8 * MIB, SEGMENT, 0), 1);
	assert_int_equal(tcp_lowat_for(0, 8 * MIB, 0, 1), 1);
}

/* A mark never passes an eighth of the receive buffer: the kernel would clamp the window to it. */
static void test_lowat_stays_under_the_buffer(void **state)
{
	(void)state;
	assert_int_equal(tcp_lowat_for(125e6, 131072, SEGMENT, 0), 16384);
	assert_int_equal(tcp_lowat_for(125e6, 65536, SEGMENT, 0), 8192);
	assert_int_equal(tcp_lowat_for(125e6, 32768, SEGMENT, 0), 1);
	assert_int_equal(tcp_lowat_for(125e6, -1, SEGMENT, 0), 1);
}

/* Reads that already bring 16 KiB or more (loopback, GRO) get no mark; a socket with one keeps
 * it, since its reads are as big as its mark. */
static void test_lowat_leaves_big_reads_alone(void **state)
{
	(void)state;
	assert_int_equal(tcp_lowat_for(5e9, 8 * MIB, 65536, 0), 1);
	assert_int_equal(tcp_lowat_for(125e6, 8 * MIB, 16384, 0), 1);
	assert_int_equal(tcp_lowat_for(125e6, 8 * MIB, 65536, 1), 65536);
}

static int rcvlowat(int fd)
{
	int v = -1;
	socklen_t len = sizeof(v);

	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, &len), 0);
	return v;
}

/* Reads of one segment each, at rate bytes/s, for seconds from start: the count after each. */
static uint64_t feed(struct tcp_lowat *w, int fd, uint64_t total, double start, double rate, double seconds)
{
	long n = (long)(seconds * rate / SEGMENT);

	for (long i = 0; i < n; i++) {
		total += (uint64_t)SEGMENT;
		assert_true(tcp_lowat_update(w, fd, total, start + (double)i * SEGMENT / rate) >= 1);
	}
	return total;
}

/* The socket's mark as the windows go: set at 1 Gbit/s of single segments, back to 1 when the
 * rate falls, and at once by tcp_lowat_off. */
static void test_lowat_sets_the_socket(void **state)
{
	int fds[2], big = 4 * MIB;
	struct tcp_lowat w = { .mark = 1 };
	uint64_t total;

	(void)state;
	tcp_pair(fds);
	assert_int_equal(setsockopt(fds[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big)), 0);
	assert_int_equal(rcvlowat(fds[0]), 1);
	total = feed(&w, fds[0], 0, 1.0, 125e6, 0.03);
	assert_int_equal(w.mark, 65536);
	assert_int_equal(rcvlowat(fds[0]), 65536);
	/* One window at 1 MB/s: every byte wakes again. */
	total = feed(&w, fds[0], total, 1.03, 1e6, 0.05);
	assert_int_equal(w.mark, 1);
	assert_int_equal(rcvlowat(fds[0]), 1);
	total = feed(&w, fds[0], total, 1.08, 125e6, 0.05);
	assert_int_equal(rcvlowat(fds[0]), 65536);
	tcp_lowat_off(&w, fds[0], total, 1.2);
	assert_int_equal(w.mark, 1);
	assert_int_equal(rcvlowat(fds[0]), 1);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lowat_follows_the_rate),
		cmocka_unit_test(test_lowat_stays_under_the_buffer),
		cmocka_unit_test(test_lowat_leaves_big_reads_alone),
		cmocka_unit_test(test_lowat_sets_the_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
