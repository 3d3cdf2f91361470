/* SPDX-License-Identifier: ISC */
/* test_status.c - the status line get, nc and pv share: '\r'-ended, as wide as asked, and the
 * last line's rate is the overall one with no ETA, whatever the last interval's rate was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "status.h"

static size_t render(int width, int numeric, const struct meter_reading *r, uint64_t size, int final, char *out)
{
	struct display_opts o;
	struct display d;

	display_defaults(&o);
	o.width = width;
	o.rate = o.average = 1; /* show both rates, to see which the last line uses */
	display_init(&d, &o);
	return status_render(&d, r, size, final, numeric, NULL, 0, out, STATUS_LINE_MAX);
}

/* Every width from 70 (room for every item) to 300 columns, sizes known and not: a line of
 * exactly the width, then '\r'. */
static void test_line_is_the_width(void **state)
{
	struct meter_reading r = { .bytes = 123456789, .elapsed = 12.5, .rate = 1e7, .average = 9.8e6 };
	char out[STATUS_LINE_MAX];

	(void)state;
	for (int width = 70; width <= 300; width++) {
		for (int known = 0; known < 2; known++) {
			size_t n = render(width, 0, &r, known ? 500000000 : 0, 0, out);

			assert_int_equal(n, strlen(out));
			assert_int_equal(out[n - 1], '\r');
			assert_int_equal(n - 1, (size_t)width);
		}
	}
}

/* The last line: rate and average both bytes/elapsed (pv's rule), the ETA blanked. */
static void test_final_line_shows_overall_rate(void **state)
{
	/* 10 MiB in 10 s is 1.00MiB/s; the last interval ran at 5 MiB/s, the window at 3. */
	struct meter_reading r = { .bytes = 10485760, .elapsed = 10, .rate = 5242880, .average = 3145728 };
	char live[STATUS_LINE_MAX], last[STATUS_LINE_MAX];

	(void)state;
	render(100, 0, &r, 20971520, 0, live);
	render(100, 0, &r, 20971520, 1, last);
	assert_non_null(strstr(live, "5.00MiB/s"));
	assert_non_null(strstr(live, "ETA"));
	assert_null(strstr(last, "5.00MiB/s"));
	assert_null(strstr(last, "3.00MiB/s"));
	assert_non_null(strstr(last, "[1.00MiB/s] [1.00MiB/s]"));
	assert_null(strstr(last, "ETA 0"));
}

static void test_numeric_line(void **state)
{
	struct meter_reading r = { .bytes = 50, .elapsed = 1, .rate = 50, .average = 50 };
	char out[STATUS_LINE_MAX];
	size_t n;

	(void)state;
	n = render(80, 1, &r, 200, 0, out);
	assert_int_equal(out[n - 1], '\n');
	assert_null(strchr(out, '\r'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_is_the_width),
		cmocka_unit_test(test_final_line_shows_overall_rate),
		cmocka_unit_test(test_numeric_line),
	};

	return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
