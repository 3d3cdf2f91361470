/* SPDX-License-Identifier: ISC */
/* test_meter.c - interval rate, average (whole run or window), ETA and the -v statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "meter.h"

static void test_rate_and_average(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	memset(&m, 0, sizeof(m));
	meter_start(&m, 100);
	meter_add(&m, 1000);
	meter_read(&m, 101, &r);
	assert_true(r.rate == 1000 && r.average == 1000);
	meter_add(&m, 3000);
	meter_read(&m, 102, &r);
	assert_true(r.rate == 3000 && r.average == 2000);
}

static void test_window_average_forgets_old_data(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	memset(&m, 0, sizeof(m));
	meter_set_window(&m, 10);
	meter_start(&m, 0);
	/* 100 s at 1000 B/s, then 20 s at 10 B/s: the window sees only the slow part. */
	for (int t = 1; t <= 100; t++) {
		meter_add(&m, 1000);
		meter_read(&m, t, &r);
	}
	for (int t = 101; t <= 120; t++) {
		meter_add(&m, 10);
		meter_read(&m, t, &r);
	}
	assert_true(r.average > 9.9 && r.average < 10.1);
}

static void test_stats(void **state)
{
	struct meter m;
	struct meter_reading r;
	struct meter_stats s;

	(void)state;
	memset(&m, 0, sizeof(m));
	meter_start(&m, 0);
	meter_stats(&m, &s);
	assert_int_equal(s.samples, 0);
	meter_add(&m, 100);
	meter_read(&m, 1, &r);
	meter_add(&m, 300);
	meter_read(&m, 2, &r);
	meter_stats(&m, &s);
	assert_int_equal(s.samples, 2);
	assert_true(s.min == 100 && s.max == 300 && s.mean == 200 && s.mdev == 100);
}

static void test_average_since_start(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	memset(&m, 0, sizeof(m)); /* meter_start keeps the window it finds */
	meter_start(&m, 0);
	meter_add(&m, 10);
	meter_read(&m, 2, &r);
	assert_true(r.average == 5);
}

static void test_reads_too_close_keep_the_last_rate(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	memset(&m, 0, sizeof(m));
	meter_start(&m, 0);
	meter_add(&m, 500);
	meter_read(&m, 1, &r);
	meter_add(&m, 500);
	meter_read(&m, 1.0000001, &r); /* no division by a near-zero span */
	assert_true(r.rate == 500);
}

static void test_no_time_no_rate(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	memset(&m, 0, sizeof(m));
	meter_start(&m, 5);
	meter_read(&m, 5, &r);
	assert_true(r.average == 0 && r.rate == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_and_average),
		cmocka_unit_test(test_window_average_forgets_old_data),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_average_since_start),
		cmocka_unit_test(test_reads_too_close_keep_the_last_rate),
		cmocka_unit_test(test_no_time_no_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
