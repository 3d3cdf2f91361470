/* SPDX-License-Identifier: ISC */
/* test_bench_eta.c - the bench's time left: the plan's guesses, re-priced by
 * the runs that ended and by the pace of a method's first run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/eta.h"

static void test_the_plan_is_every_run_at_its_guess(void **state)
{
	struct bench_eta e;

	(void)state;
	eta_init(&e);
	eta_plan(&e, 0, 0, 5, 2.5);
	eta_plan(&e, 0, 3, 5, 2.5);
	eta_plan(&e, 1, 0, 5, 1.0);
	assert_true(fabs(eta_planned(&e, 0) - 25) < 1e-9);
	assert_true(fabs(eta_planned(&e, 1) - 5) < 1e-9);
	assert_true(fabs(eta_planned(&e, -1) - 30) < 1e-9);
	assert_true(fabs(eta_left(&e, -1, 0, 0, -1) - 30) < 1e-9);
}

static void test_a_run_that_ended_prices_its_method(void **state)
{
	struct bench_eta e;

	(void)state;
	eta_init(&e);
	eta_plan(&e, 1, 0, 3, 1.0);
	eta_plan(&e, 1, 1, 3, 1.0);
	eta_done(&e, 1, 0, 4.0); /* slower than guessed: its two runs left cost 8 */
	assert_true(fabs(eta_price(&e, 1, 0) - 4) < 1e-9);
	assert_true(fabs(eta_price(&e, 1, 1) - 1) < 1e-9);
	assert_true(fabs(eta_left(&e, -1, 0, 0, -1) - 11) < 1e-9);
}

static void test_the_running_one_counts_its_elapsed_and_its_pace(void **state)
{
	struct bench_eta e;

	(void)state;
	eta_init(&e);
	eta_plan(&e, 1, 0, 2, 1.0);
	/* Half done after 3 s: a pace of 6 s a run, weighed half against the guess of 1. */
	assert_true(fabs(eta_left(&e, 1, 0, 3, 0.5) - (3.5 * 2 - 3)) < 1e-9);
	/* Unknown share: the guess, less the elapsed, never below 0. */
	assert_true(fabs(eta_left(&e, 1, 0, 0.25, -1) - 1.75) < 1e-9);
	assert_true(fabs(eta_left(&e, 1, 0, 9, -1) - 1) < 1e-9);
	eta_done(&e, 1, 0, 6);
	eta_done(&e, 1, 0, 6);
	assert_true(eta_left(&e, -1, 0, 0, -1) == 0);
}

static void test_a_dropped_method_costs_nothing(void **state)
{
	struct bench_eta e;

	(void)state;
	eta_init(&e);
	eta_plan(&e, 0, 0, 5, 2);
	eta_plan(&e, 0, 1, 5, 2);
	eta_drop(&e, 0, 1);
	assert_true(fabs(eta_left(&e, -1, 0, 0, -1) - 10) < 1e-9);
	/* Out of range is ignored, not written past the table. */
	eta_plan(&e, 2, 0, 5, 2);
	eta_plan(&e, 0, ETA_METHODS, 5, 2);
	assert_true(fabs(eta_planned(&e, -1) - 10) < 1e-9);
}

static void test_files_guess_by_method(void **state)
{
	(void)state;
	/* ncat loads its CA bundle per download; an unknown method is 10 ms each. */
	assert_true(eta_files_guess("ncat", 200) > 20 * eta_files_guess("ncpv", 200) - 1);
	assert_true(fabs(eta_files_guess("my-own", 100) - (0.05 + 1.0)) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_plan_is_every_run_at_its_guess),
		cmocka_unit_test(test_a_run_that_ended_prices_its_method),
		cmocka_unit_test(test_the_running_one_counts_its_elapsed_and_its_pace),
		cmocka_unit_test(test_a_dropped_method_costs_nothing),
		cmocka_unit_test(test_files_guess_by_method),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
