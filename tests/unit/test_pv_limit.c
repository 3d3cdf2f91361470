/* SPDX-License-Identifier: ISC */
/* test_pv_limit.c - pv -L's bucket: credit at the rate, spent in chunks, never a burst past 0.1 s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <cmocka.h>

#include "pv/pv.h"

static void test_waits_for_a_chunk_then_allows_what_accrued(void **state)
{
	struct pv_limit l;
	double wait = -1;

	(void)state;
	pv_limit_start(&l, 1000, 100.0);
	/* Empty: wait for one chunk (5 ms' worth, 5 units). */
	assert_int_equal(pv_limit_allow(&l, 100.0, &wait), 0);
	assert_true(wait > 0.0049 && wait < 0.0051);
	/* 10 ms later: 10 units. */
	assert_int_equal(pv_limit_allow(&l, 100.010, &wait), 10);
	assert_true(wait == 0);
	pv_limit_spend(&l, 10);
	assert_int_equal(pv_limit_allow(&l, 100.010, &wait), 0);
}

static void test_an_idle_input_earns_no_burst(void **state)
{
	struct pv_limit l;
	double wait;

	(void)state;
	/* Each rate after each idle time: never more than 0.1 s' worth at once. */
	for (int rate = 200; rate <= 20000; rate *= 10) {
		for (int step = 0; step < 8; step++) {
			double idle = 0.05 * pow(3, step); /* 0.05 s to 109 s */
			uint64_t got;

			pv_limit_start(&l, (uint64_t)rate, 0);
			got = pv_limit_allow(&l, idle, &wait);
			assert_true(got <= (uint64_t)(rate * PV_RATE_SLICE) + 1);
			assert_true(got + 1 >= (uint64_t)(rate * (idle < PV_RATE_SLICE ? idle : PV_RATE_SLICE)));
		}
	}
}

static void test_slow_rates_move_a_byte_at_a_time(void **state)
{
	struct pv_limit l;
	double wait;

	(void)state;
	/* At 10 B/s a chunk would be 0.05 bytes: it is one byte, after 0.1 s. */
	pv_limit_start(&l, 10, 0);
	assert_int_equal(pv_limit_allow(&l, 0, &wait), 0);
	assert_true(wait > 0.099 && wait < 0.101);
	assert_int_equal(pv_limit_allow(&l, 0.1, &wait), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits_for_a_chunk_then_allows_what_accrued),
		cmocka_unit_test(test_an_idle_input_earns_no_burst),
		cmocka_unit_test(test_slow_rates_move_a_byte_at_a_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
