/* SPDX-License-Identifier: ISC */
/* test_units.c - byte counts, durations and rates parse and format as documented. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "units.h"

static uint64_t size_of(const char *s)
{
	uint64_t v = 12345;

	assert_int_equal(units_parse_size(s, &v), 0);
	return v;
}

static void size_rejects(const char *s, int err)
{
	uint64_t v;

	errno = 0;
	assert_int_equal(units_parse_size(s, &v), -1);
	assert_int_equal(errno, err);
}

static void test_size_plain_and_suffixes(void **state)
{
	(void)state;
	assert_int_equal(size_of("0"), 0);
	assert_int_equal(size_of("4096"), 4096);
	assert_int_equal(size_of("4096B"), 4096);
	assert_int_equal(size_of("4K"), 4096);
	assert_int_equal(size_of("4k"), 4096);
	assert_int_equal(size_of("4KiB"), 4096);
	assert_int_equal(size_of("4KB"), 4096);
	assert_int_equal(size_of("1.5M"), 1572864);
	assert_int_equal(size_of("1G"), 1073741824ULL);
	assert_int_equal(size_of("2T"), 2199023255552ULL);
	assert_int_equal(size_of("1P"), 1125899906842624ULL);
}

static void test_size_rejects_junk(void **state)
{
	(void)state;
	size_rejects("", EINVAL);
	size_rejects("K", EINVAL);
	size_rejects("4X", EINVAL);
	size_rejects("4KX", EINVAL);
	size_rejects("-1", EINVAL);
	size_rejects("1.5", EINVAL);
	size_rejects(" 4", EINVAL);
	size_rejects("99999999999999999999", ERANGE);
	size_rejects("20000P", ERANGE);
}

/* Past 2^53 a double cannot hold every whole number: counts stay exact. */
static void test_size_exact_beyond_double(void **state)
{
	(void)state;
	assert_true(size_of("9007199254740993") == 9007199254740993ULL);
	assert_true(size_of("18446744073709551615") == UINT64_MAX);
	assert_true(size_of("16383P") == 16383ULL << 50);
	assert_true(size_of("1099511627775.5K") == (1099511627775ULL << 10) + 512);
	size_rejects("18446744073709551616", ERANGE);
	size_rejects("16384P", ERANGE);
}

static void test_seconds(void **state)
{
	double v;

	(void)state;
	assert_int_equal(units_parse_seconds("5", &v), 0);
	assert_true(v == 5);
	assert_int_equal(units_parse_seconds("0.25", &v), 0);
	assert_true(v == 0.25);
	assert_int_equal(units_parse_seconds("250ms", &v), 0);
	assert_true(v == 0.25);
	assert_int_equal(units_parse_seconds("2m", &v), 0);
	assert_true(v == 120);
	assert_int_equal(units_parse_seconds("1h", &v), 0);
	assert_true(v == 3600);
	assert_int_equal(units_parse_seconds("5x", &v), -1);
	assert_int_equal(units_parse_seconds("-5", &v), -1);
	assert_int_equal(units_parse_seconds("400d", &v), -1);
}

static void test_bitrate(void **state)
{
	double v;

	(void)state;
	assert_int_equal(units_parse_bitrate("94mbit", &v), 0);
	assert_true(v == 94e6);
	assert_int_equal(units_parse_bitrate("1gbit", &v), 0);
	assert_true(v == 1e9);
	assert_int_equal(units_parse_bitrate("10mbps", &v), 0);
	assert_true(v == 80e6);
	assert_int_equal(units_parse_bitrate("0mbit", &v), -1);
	assert_int_equal(units_parse_bitrate("fast", &v), -1);
}

static void test_long_range(void **state)
{
	long v;

	(void)state;
	assert_int_equal(units_parse_long("42", 1, 100, &v), 0);
	assert_int_equal(v, 42);
	errno = 0;
	assert_int_equal(units_parse_long("0", 1, 100, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(units_parse_long("4x", 1, 100, &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(units_parse_long("", 1, 100, &v), -1);
}

/* The strict parser's whole boundary set: every PID, fd, port and count goes through it. */
static const struct {
	const char *text;
	int err;	/* 0: accepted as value */
	long value;
} boundary[] = {
	{ "0", ERANGE, 0 },
	{ "1", 0, 1 },
	{ "-1", ERANGE, 0 },
	{ "-0", EINVAL, 0 },
	{ "+1", EINVAL, 0 },
	{ " 1", EINVAL, 0 },
	{ "1 ", EINVAL, 0 },
	{ "\t1", EINVAL, 0 },
	{ "1\n", EINVAL, 0 },
	{ "", EINVAL, 0 },
	{ "-", EINVAL, 0 },
	{ "1.0", EINVAL, 0 },
	{ "1e3", EINVAL, 0 },
	{ "2147483647", 0, 2147483647 },		/* INT_MAX */
	{ "2147483648", ERANGE, 0 },		/* INT_MAX + 1 = 2^31 */
	{ "4294967295", ERANGE, 0 },		/* 2^32 - 1: -1 as a pid_t */
	{ "4294967296", ERANGE, 0 },		/* 2^32: 0 as a pid_t */
	{ "4294967297", ERANGE, 0 },		/* 2^32 + 1 */
	{ "9223372036854775808", ERANGE, 0 },	/* 2^63 */
	{ "18446744073709551615", ERANGE, 0 },	/* 2^64 - 1 */
	{ "18446744073709551616", ERANGE, 0 },	/* 2^64 */
	{ "18446744073709551617", ERANGE, 0 },	/* 2^64 + 1 */
	{ "99999999999999999999", ERANGE, 0 },
	{ "99999999999999999999x", EINVAL, 0 },
	{ "-99999999999999999999", ERANGE, 0 },
	{ "010", 0, 10 },			/* decimal, never octal */
	{ "0x10", EINVAL, 0 },
	{ "0X10", EINVAL, 0 },
	{ "00000000000000000000001", 0, 1 },
};

static void test_long_boundaries(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(boundary) / sizeof(boundary[0]); i++) {
		long v = -7;
		pid_t pid = -7;
		int rc;

		errno = 0;
		rc = units_parse_long(boundary[i].text, 1, 2147483647L, &v);
		if (boundary[i].err == 0) {
			assert_int_equal(rc, 0);
			assert_int_equal(v, boundary[i].value);
		} else {
			if (rc != -1 || errno != boundary[i].err)
				fail_msg("'%s': rc %d errno %d, expected errno %d", boundary[i].text, rc, errno,
					 boundary[i].err);
			assert_int_equal(v, -7); /* nothing written on failure */
		}
		/* A PID takes the same set: 1 to INT_MAX, never 0 or below. */
		rc = units_parse_pid(boundary[i].text, &pid);
		assert_int_equal(rc, boundary[i].err ? -1 : 0);
		assert_true(rc < 0 ? pid == -7 : pid > 0);
	}
}

static void test_long_signed_and_u64(void **state)
{
	long v;
	uint64_t u;
	int fd;

	(void)state;
	/* A '-' only where the range has negative values, and to its very end. */
	assert_int_equal(units_parse_long("-1", -2147483647L, 2147483647L, &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(units_parse_long("-9223372036854775808", LONG_MIN, LONG_MAX, &v), 0);
	assert_true(v == LONG_MIN);
	assert_int_equal(units_parse_long("9223372036854775807", LONG_MIN, LONG_MAX, &v), 0);
	assert_true(v == LONG_MAX);
	errno = 0;
	assert_int_equal(units_parse_long("-9223372036854775809", LONG_MIN, LONG_MAX, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(units_parse_long("9223372036854775808", LONG_MIN, LONG_MAX, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(units_parse_long("-+1", -10, 10, &v), -1);
	assert_int_equal(errno, EINVAL);
	/* fd 0 is a descriptor; 2^32 is not descriptor 0. */
	assert_int_equal(units_parse_fd("0", &fd), 0);
	assert_int_equal(fd, 0);
	assert_int_equal(units_parse_fd("4294967296", &fd), -1);
	assert_int_equal(units_parse_fd("2147483648", &fd), -1);
	assert_int_equal(units_parse_u64("18446744073709551615", UINT64_MAX, &u), 0);
	assert_true(u == UINT64_MAX);
	errno = 0;
	assert_int_equal(units_parse_u64("18446744073709551616", UINT64_MAX, &u), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(units_parse_u64("65536", 65535, &u), -1);
	assert_int_equal(units_parse_u64("+5", 65535, &u), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_hms(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(units_format_hms(buf, sizeof(buf), 0), "0:00:00");
	assert_string_equal(units_format_hms(buf, sizeof(buf), 59.9), "0:00:59");
	assert_string_equal(units_format_hms(buf, sizeof(buf), 60), "0:01:00");
	assert_string_equal(units_format_hms(buf, sizeof(buf), 3600 * 25 + 61), "1:01:01:01");
	assert_string_equal(units_format_hms(buf, sizeof(buf), -3), "0:00:00");
}

static void test_iec(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(units_format_iec(buf, sizeof(buf), 0), "0 B");
	assert_string_equal(units_format_iec(buf, sizeof(buf), 1023), "1023 B");
	assert_string_equal(units_format_iec(buf, sizeof(buf), 1024), "1.00KiB");
	assert_string_equal(units_format_iec(buf, sizeof(buf), 683671552), "652MiB");
	assert_string_equal(units_format_iec(buf, sizeof(buf), 11744051.2), "11.2MiB");
}

/* A summary's count says its IEC size only where that adds something: no "0 B (0 B)". */
static void test_count(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(units_format_count(buf, sizeof(buf), 0), "0 B");
	assert_string_equal(units_format_count(buf, sizeof(buf), 1023), "1023 B");
	assert_string_equal(units_format_count(buf, sizeof(buf), 1024), "1024 B (1.00KiB)");
	assert_string_equal(units_format_count(buf, sizeof(buf), 10485760), "10485760 B (10.0MiB)");
	assert_string_equal(units_format_count(buf, sizeof(buf), UINT64_MAX),
			    "18446744073709551615 B (16384PiB)");
}

/* pv 1.10's number rules: what it accepts, and what it reads from it. */
static void test_pv_numbers(void **state)
{
	(void)state;
	assert_true(units_pv_check(" 2000", UNITS_PV_SIZE));
	assert_true(units_pv_check("1.5 k", UNITS_PV_SIZE));
	assert_true(units_pv_check("2,5G", UNITS_PV_SIZE));
	assert_false(units_pv_check("2000 ", UNITS_PV_SIZE));
	assert_false(units_pv_check("-1", UNITS_PV_SIZE));
	assert_false(units_pv_check("1e3", UNITS_PV_SIZE));
	assert_false(units_pv_check("2KB", UNITS_PV_SIZE));
	assert_false(units_pv_check("", UNITS_PV_SIZE));
	assert_true(units_pv_check("0.0001", UNITS_PV_DECIMAL));
	assert_false(units_pv_check("1k", UNITS_PV_DECIMAL));
	assert_true(units_pv_check("80", UNITS_PV_INTEGER));
	assert_false(units_pv_check("1.5", UNITS_PV_INTEGER));
	assert_int_equal(units_pv_size(" 2000", 0), 2000);
	assert_int_equal(units_pv_size("1.5k", 0), 1536);
	assert_int_equal(units_pv_size("1.5k", 1), 1500);
	assert_int_equal(units_pv_size("2 G", 0), 2147483648u);
	assert_int_equal(units_pv_size("99999999999999999999", 0), INT64_MAX);
	assert_int_equal(units_pv_size("9999999T", 0), INT64_MAX);
	assert_true(units_pv_decimal("0.25") == 0.25);
	assert_true(units_pv_decimal("3,5") == 3.5);
}

/* The bounds themselves: a year of 366 days is the longest time (8784h), a long may equal
 * its minimum or maximum but not pass them. */
static void test_parse_bounds_are_inclusive(void **state)
{
	double v;
	long n;

	(void)state;
	assert_int_equal(units_parse_seconds("8784h", &v), 0);
	assert_true(v == 366.0 * 86400);
	assert_int_equal(units_parse_seconds("8785h", &v), -1);
	assert_int_equal(units_parse_long("10", 1, 10, &n), 0);
	assert_int_equal(n, 10);
	assert_int_equal(units_parse_long("11", 1, 10, &n), -1);
	assert_int_equal(units_parse_long("0", 1, 10, &n), -1);
	assert_int_equal(units_parse_long("-10", -10, 10, &n), 0);
	assert_int_equal(n, -10);
	assert_int_equal(units_parse_long("-11", -10, 10, &n), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_plain_and_suffixes),
		cmocka_unit_test(test_size_rejects_junk),
		cmocka_unit_test(test_size_exact_beyond_double),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_bitrate),
		cmocka_unit_test(test_long_range),
		cmocka_unit_test(test_long_boundaries),
		cmocka_unit_test(test_long_signed_and_u64),
		cmocka_unit_test(test_hms),
		cmocka_unit_test(test_iec),
		cmocka_unit_test(test_pv_numbers),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_parse_bounds_are_inclusive),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
