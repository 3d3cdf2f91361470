/* SPDX-License-Identifier: ISC */
/* test_net_wait.c - net_wait_cancel: timeouts, readiness, a stop flag; net_ms_until's clamping. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ms_until_rounds_up_and_clamps),
		cmocka_unit_test(test_wait_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
