/* SPDX-License-Identifier: ISC */
/* test_clock.c - seconds become the timespec nanosleep wants, and sleeps and clocks agree. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <cmocka.h>

#include "clock.h"

static void test_timespec_table(void **state)
{
	static const struct {
		double seconds;
		long sec, nsec;
	} cases[] = {
		{ 0, 0, 0 }, { -1, 0, 0 }, { -1e-9, 0, 0 }, { 0.5, 0, 500000000 }, { 1.25, 1, 250000000 },
		{ 2e-9, 0, 2 }, { 0.999999999, 0, 999999999 }, { 60, 60, 0 }, { 86400.5, 86400, 500000000 },
		{ 1e20, 1000000000000000L, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct timespec ts = clock_timespec(cases[i].seconds);

		assert_int_equal(ts.tv_sec, cases[i].sec);
		/* Binary fractions round down by up to a nanosecond. */
		assert_true(labs(ts.tv_nsec - cases[i].nsec) <= 1);
		assert_true(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000L);
	}
	assert_int_equal(clock_timespec(NAN).tv_sec, 0);
	assert_int_equal(clock_timespec(NAN).tv_nsec, 0);
}

/* Every fraction of a second from a seeded generator: sec + nsec gives it back. */
static void test_timespec_round_trip(void **state)
{
	uint32_t x = 12345;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		double s;
		struct timespec ts;

		x = x * 1664525u + 1013904223u;
		s = (double)x / 1e4;
		ts = clock_timespec(s);
		assert_true(fabs((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 - s) < 2e-9 * (1 + s / 1e5));
	}
}

static void test_clocks_agree_and_sleep_lasts(void **state)
{
	double t0 = clock_now(), m0 = clock_now_ms();
	uint64_t n0 = clock_now_ns();

	(void)state;
	assert_int_equal(clock_sleep(0), 0);
	assert_int_equal(clock_sleep(-3), 0);
	assert_int_equal(clock_sleep(0.02), 0);
	assert_true(clock_now() - t0 >= 0.02);
	assert_true(clock_now_ms() - m0 >= 20);
	assert_true(clock_now_ns() - n0 >= 20000000u);
	/* The three units read one clock. */
	assert_true(fabs(clock_now() * 1e3 - clock_now_ms()) < 1000);
	assert_true(fabs((double)clock_now_ns() / 1e9 - clock_now()) < 1);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal handler cuts the sleep short with EINTR, so the caller can look at its flags. */
static void test_sleep_interrupted(void **state)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	double t0;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	t0 = clock_now();
	errno = 0;
	assert_int_equal(clock_sleep(30), -1);
	assert_int_equal(errno, EINTR);
	assert_true(clock_now() - t0 < 29);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timespec_table),
		cmocka_unit_test(test_timespec_round_trip),
		cmocka_unit_test(test_clocks_agree_and_sleep_lasts),
		cmocka_unit_test(test_sleep_interrupted),
	};

	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
