/* test_fuzz_found.c - each input the fuzzers (fuzz/) once crashed on, kept as a plain test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

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
	assert_int_equal(cmd_get_parse(4, argv), 0);
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
	assert_string_equal(line, "ncpv serve: invalid port '?0?[2J'\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hms_of_absurd_durations),
		cmocka_unit_test(test_get_connect_timeout_of_a_year),
		cmocka_unit_test(test_error_lines_stay_one_line),
	};

	return cmocka_run_group_tests_name("fuzz_found", tests, NULL, NULL);
}
