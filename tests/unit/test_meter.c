/* test_meter.c - rates over the last interval, averages, percentages and ETA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "meter.h"

static void test_rates_and_eta(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	meter_start(&m, 100.0);
	meter_add(&m, 1000);
	meter_read(&m, 101.0, 4000, &r);
	assert_true(r.bytes == 1000 && r.elapsed == 1.0);
	assert_true(r.rate == 1000 && r.average == 1000);
	assert_true(r.percent == 25 && r.eta == 3);
	meter_add(&m, 3000);
	meter_read(&m, 102.0, 4000, &r);
	assert_true(r.rate == 3000 && r.average == 2000);
	assert_true(r.percent == 100 && r.eta == 0);
}

static void test_unknown_size(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	meter_start(&m, 0);
	meter_add(&m, 10);
	meter_read(&m, 2, 0, &r);
	assert_true(r.percent < 0 && r.eta < 0);
	assert_true(r.average == 5);
}

static void test_reads_too_close_keep_the_last_rate(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	meter_start(&m, 0);
	meter_add(&m, 500);
	meter_read(&m, 1, 0, &r);
	meter_add(&m, 500);
	meter_read(&m, 1.0000001, 0, &r); /* no division by a near-zero span */
	assert_true(r.rate == 500);
}

static void test_no_time_no_rate(void **state)
{
	struct meter m;
	struct meter_reading r;

	(void)state;
	meter_start(&m, 5);
	meter_read(&m, 5, 100, &r);
	assert_true(r.average == 0 && r.eta < 0 && r.percent == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates_and_eta),
		cmocka_unit_test(test_unknown_size),
		cmocka_unit_test(test_reads_too_close_keep_the_last_rate),
		cmocka_unit_test(test_no_time_no_rate),
	};

	return cmocka_run_group_tests_name("meter", tests, NULL, NULL);
}
