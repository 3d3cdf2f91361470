/* SPDX-License-Identifier: ISC */
/* test_stats.c - summaries and the Mann-Whitney test match hand-worked values. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stats.h"

static void test_summary_median_min_max(void **state)
{
	double v[] = { 5, 1, 3, 2, 4 };
	struct stats_summary s;

	(void)state;
	stats_summarize(v, 5, &s);
	assert_int_equal(s.n, 5);
	assert_true(s.median == 3 && s.min == 1 && s.max == 5 && s.mean == 3);
}

static void test_separated_three_each_cannot_reach_five_percent(void **state)
{
	double a[] = { 10, 11, 12 }, b[] = { 20, 21, 22 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, 3, b, 3, &t), 0);
	assert_true(t.exact);
	assert_true(t.u == 0);
	assert_float_equal(t.p, 2.0 / 20, 1e-12);
}

static void test_separated_five_each_is_significant(void **state)
{
	double a[] = { 30, 31, 32, 33, 34 }, b[] = { 1, 2, 3, 4, 5 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, 5, b, 5, &t), 0);
	assert_true(t.u == 25);
	assert_float_equal(t.p, 2.0 / 252, 1e-12);
}

static void test_overlap_four_each_matches_table(void **state)
{
	/* U counts for 4 + 4 values run 1,1,2,3,5,5,7,7,8,... over 70 orderings:
	 * U = 2 gives P(U <= 2) = 4/70, two-sided 8/70, from either side. */
	double a[] = { 1, 2, 0.5, 4.5 }, b[] = { 3, 4, 6, 7 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, 4, b, 4, &t), 0);
	assert_true(t.u == 2);
	assert_float_equal(t.p, 8.0 / 70, 1e-12);
	assert_int_equal(stats_mann_whitney(b, 4, a, 4, &t), 0);
	assert_true(t.u == 14);
	assert_float_equal(t.p, 8.0 / 70, 1e-12);
	a[3] = 8; /* 8 beats all four: U = 4 of 16: P(U <= 4) = 12/70 */
	assert_int_equal(stats_mann_whitney(a, 4, b, 4, &t), 0);
	assert_float_equal(t.p, 24.0 / 70, 1e-12);
}

static void test_one_run_each_proves_nothing(void **state)
{
	/* The seed's 652 MiB against 599 MiB, one run each. */
	double a[] = { 652 }, b[] = { 599 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, 1, b, 1, &t), 0);
	assert_float_equal(t.p, 1.0, 1e-12);
}

static void test_ties_use_normal_approximation(void **state)
{
	double a[] = { 1, 1, 1, 1, 1, 1 }, b[] = { 1, 1, 1, 1, 1, 1 };
	double c[30], d[30];
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, 6, b, 6, &t), 0);
	assert_false(t.exact);
	assert_float_equal(t.p, 1.0, 1e-12);
	for (int i = 0; i < 30; i++) {
		c[i] = 100 + i % 3; /* ties within each sample */
		d[i] = i % 3;
	}
	assert_int_equal(stats_mann_whitney(c, 30, d, 30, &t), 0);
	assert_false(t.exact);
	assert_true(t.u == 900);
	assert_true(t.p < 1e-9);
}

static void test_large_identical_shapes_are_not_significant(void **state)
{
	double a[25], b[25];
	struct stats_test t;

	(void)state;
	for (int i = 0; i < 25; i++) {
		a[i] = 2 * i;
		b[i] = 2 * i + 1;
	}
	assert_int_equal(stats_mann_whitney(a, 25, b, 25, &t), 0);
	assert_false(t.exact);
	assert_true(t.p > 0.5);
}

static void test_empty_sample_is_an_error(void **state)
{
	double a[] = { 1 };
	struct stats_test t;

	(void)state;
	errno = 0;
	assert_int_equal(stats_mann_whitney(a, 1, a, 0, &t), -1);
	assert_int_equal(errno, EINVAL);
}

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

/* The normal approximation to the figure: 25 each, U = 300 against a mean of 312.5 and a
 * variance of 2656.25, with the half-unit continuity correction towards the mean:
 * z = 12 / sqrt(2656.25), p = erfc(z / sqrt(2)). A tie across the samples counts one half. */
static void test_normal_approximation_value_and_half_ties(void **state)
{
	double a[25], b[25], c[] = { 1, 2, 3 }, d[] = { 3, 4, 5 };
	struct stats_test t;

	(void)state;
	for (int i = 0; i < 25; i++) {
		a[i] = 2 * i;
		b[i] = 2 * i + 1;
	}
	assert_int_equal(stats_mann_whitney(a, 25, b, 25, &t), 0);
	assert_true(t.u == 300);
	assert_float_equal(t.p, 0.8158901548607471, 1e-12);
	assert_int_equal(stats_mann_whitney(c, 3, d, 3, &t), 0);
	assert_true(t.u == 0.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_median_min_max),
		cmocka_unit_test(test_separated_three_each_cannot_reach_five_percent),
		cmocka_unit_test(test_separated_five_each_is_significant),
		cmocka_unit_test(test_overlap_four_each_matches_table),
		cmocka_unit_test(test_one_run_each_proves_nothing),
		cmocka_unit_test(test_ties_use_normal_approximation),
		cmocka_unit_test(test_large_identical_shapes_are_not_significant),
		cmocka_unit_test(test_empty_sample_is_an_error),
		cmocka_unit_test(test_empty_is_all_zero),
		cmocka_unit_test(test_odd_and_even_medians),
		cmocka_unit_test(test_percentiles_interpolate),
		cmocka_unit_test(test_single_sample),
		cmocka_unit_test(test_normal_approximation_value_and_half_ties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
