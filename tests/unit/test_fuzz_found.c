/* SPDX-License-Identifier: ISC */
/* test_fuzz_found.c - each input the fuzzers (fuzz/) once crashed on, kept as a plain test. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "display.h"
#include "units.h"
#include "cmd/cmd.h"

/* fuzz_units, fuzz_display: an ETA or timer of infinity or 1e300 seconds was cast to long. */
static void test_hms_of_absurd_durations(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(units_format_hms(buf, sizeof(buf), NAN), "0:00:00");
	assert_string_equal(units_format_hms(buf, sizeof(buf), -INFINITY), "0:00:00");
	assert_string_equal(units_format_hms(buf, sizeof(buf), INFINITY), "11574074074:01:46:40");
	assert_string_equal(units_format_hms(buf, sizeof(buf), 1e300), "11574074074:01:46:40");
	assert_string_equal(units_format_hms(buf, sizeof(buf), 3.46179e+19), "11574074074:01:46:40");
}

/* fuzz_cmdline: "get -w 103d" style timeouts overflowed the int of milliseconds. */
static void test_get_connect_timeout_of_a_year(void **state)
{
	char *argv[] = { "get", "-w", "8640000", "127.0.0.1", NULL };

	(void)state;
	assert_int_equal(cmd_get_parse(4, argv), CMD_PARSE_RUN);
}

/* fuzz_addr: a newline in an argument came back inside the error line. */
static void test_error_lines_stay_one_line(void **state)
{
	FILE *saved = stderr, *capture = tmpfile();
	char line[256] = "";

	(void)state;
	assert_non_null(capture);
	stderr = capture;
	cmd_error("serve", "invalid port '%s'", "\n0\x1b[2J");
	stderr = saved;
	rewind(capture);
	assert_non_null(fgets(line, sizeof(line), capture));
	fclose(capture);
	assert_string_equal(line, "ncpv serve: invalid port '\\n0\\e[2J'\n");
}

/* fuzz_display: pv -s 1 after petabytes made the percentage overflow the bar arithmetic,
 * and a crawling rate made the ETA overflow its long, either way. */
static void test_bar_far_past_the_size(void **state)
{
	struct display_opts o;
	struct display d;
	struct display_frame f;
	char line[256];

	(void)state;
	assert_int_equal(display_percent(UINT64_MAX, 1), LONG_MAX);
	display_defaults(&o);
	o.format = "%p";
	o.width = 40;
	display_init(&d, &o);
	memset(&f, 0, sizeof(f));
	f.count = 1ULL << 58;
	f.size = 3;
	display_line(&d, &f, line, sizeof(line));
	assert_string_equal(line, "[=================] 9223372036854775807%");
	assert_null(strchr(line, '>'));
	/* ...and an ETA at two bytes in a thousand seconds to go through 2^64 bytes. */
	assert_int_equal(display_eta_seconds(1, UINT64_MAX, 0.002), DISPLAY_ETA_MAX);
	assert_int_equal(display_eta_seconds(UINT64_MAX, 1, 0.002), -DISPLAY_ETA_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hms_of_absurd_durations),
		cmocka_unit_test(test_get_connect_timeout_of_a_year),
		cmocka_unit_test(test_error_lines_stay_one_line),
		cmocka_unit_test(test_bar_far_past_the_size),
	};

	return cmocka_run_group_tests_name("fuzz_found", tests, NULL, NULL);
}
