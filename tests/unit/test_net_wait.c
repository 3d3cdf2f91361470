/* SPDX-License-Identifier: ISC */
/* test_net_wait.c - net_wait_cancel: timeouts, readiness, a stop flag; net_ms_until's clamping;
 * net_write_full's waits, deadline and cancel flag. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "loop.h"
#include "net.h"

static void test_ms_until_rounds_up_and_clamps(void **state)
{
	(void)state;
	assert_int_equal(net_ms_until(10.0, 11.0), 0);
	assert_int_equal(net_ms_until(10.5, 10.0), 501);
	/* A deadline a year away does not overflow an int. */
	assert_int_equal(net_ms_until(366.0 * 86400, 0), INT_MAX);
}

static void test_wait_cancel(void **state)
{
	volatile sig_atomic_t stop = 0;
	int p[2];
	double t0;

	(void)state;
	assert_int_equal(pipe(p), 0);
	/* Not ready: times out after about the time asked, even when sliced. */
	t0 = clock_now();
	assert_int_equal(net_wait_cancel(p[0], POLLIN, 300, &stop), 0);
	assert_true(clock_now() - t0 >= 0.29);
	/* Ready: returns the events at once. */
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_true(net_wait_cancel(p[0], POLLIN, -1, &stop) & POLLIN);
	/* Flag set: gives up with EINTR without waiting. */
	stop = 1;
	errno = 0;
	assert_int_equal(net_wait_cancel(p[0], POLLIN, -1, &stop), -1);
	assert_int_equal(errno, EINTR);
	close(p[0]);
	close(p[1]);
}

/* A non-blocking pipe that holds exactly its capacity: what is left to write blocks. */
static size_t full_pipe(int p[2], size_t len)
{
	size_t cap;

	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	cap = (size_t)fcntl(p[1], F_GETPIPE_SZ);
	assert_true(cap < len);
	return cap;
}

static void test_write_full_stops_as_told(void **state)
{
	static char buf[1 << 20];
	volatile sig_atomic_t stop = 0;
	struct net_write_how how;
	size_t cap, done = 1;
	int p[2];
	double t0;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	/* No wait: EAGAIN is the error, and done counts what the pipe took. */
	cap = full_pipe(p, sizeof(buf));
	errno = 0;
	assert_int_equal(net_write_full(p[1], buf, sizeof(buf), NULL, &done), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(done, cap);
	/* Waiting until a deadline: -2 once it passes, not before. */
	memset(&how, 0, sizeof(how));
	how.wait = 1;
	t0 = clock_now();
	how.deadline = t0 + 0.2;
	assert_int_equal(net_write_full(p[1], buf, 10, &how, &done), -2);
	assert_true(clock_now() - t0 >= 0.19);
	assert_int_equal(done, 0);
	/* A cancel flag ends a wait without a deadline with EINTR. */
	how.deadline = 0;
	how.cancel = &stop;
	stop = 1;
	errno = 0;
	assert_int_equal(net_write_full(p[1], buf, 10, &how, &done), -1);
	assert_int_equal(errno, EINTR);
	close(p[0]);
	close(p[1]);
}

static void test_write_full_sends_all(void **state)
{
	static char buf[1 << 16], got[1 << 16];
	struct net_write_how how;
	size_t done = 0, have = 0;
	int sv[2];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(&how, 0, sizeof(how));
	how.send_flags = MSG_NOSIGNAL;
	assert_int_equal(net_write_full(sv[0], buf, sizeof(buf), &how, &done), 0);
	assert_int_equal(done, sizeof(buf));
	close(sv[0]);
	while (have < sizeof(got)) {
		ssize_t n = read(sv[1], got + have, sizeof(got) - have);

		assert_true(n > 0);
		have += (size_t)n;
	}
	assert_memory_equal(buf, got, sizeof(buf));
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ms_until_rounds_up_and_clamps),
		cmocka_unit_test(test_wait_cancel),
		cmocka_unit_test(test_write_full_stops_as_told),
		cmocka_unit_test(test_write_full_sends_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
