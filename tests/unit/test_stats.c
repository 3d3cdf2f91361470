/* test_stats.c - medians, percentiles and spread over samples. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats.h"

static void test_empty_is_all_zero(void **state)
{
	struct stats_summary s;

	(void)state;
	stats_summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(s.median == 0 && s.max == 0);
}

static void test_odd_and_even_medians(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	struct stats_summary s;

	(void)state;
	stats_summarize(odd, 3, &s);
	assert_true(s.median == 3 && s.min == 1 && s.max == 5 && s.mean == 3);
	stats_summarize(even, 4, &s);
	assert_true(s.median == 2.5);
	assert_true(fabs(s.stddev - 1.2909944) < 1e-6);
}

static void test_percentiles_interpolate(void **state)
{
	double v[101];
	struct stats_summary s;

	(void)state;
	for (int i = 0; i <= 100; i++)
		v[i] = 100 - i; /* unsorted on purpose */
	stats_summarize(v, 101, &s);
	assert_true(s.median == 50 && s.p90 == 90 && s.p99 == 99);
	assert_true(stats_percentile(v, 101, 0) == 0);
	assert_true(stats_percentile(v, 101, 100) == 100);
	assert_true(stats_percentile(v, 101, 12.5) == 12.5);
}

static void test_single_sample(void **state)
{
	double v[] = { 7 };
	struct stats_summary s;

	(void)state;
	stats_summarize(v, 1, &s);
	assert_true(s.median == 7 && s.p99 == 7 && s.stddev == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_is_all_zero),
		cmocka_unit_test(test_odd_and_even_medians),
		cmocka_unit_test(test_percentiles_interpolate),
		cmocka_unit_test(test_single_sample),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
