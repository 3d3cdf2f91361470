/* SPDX-License-Identifier: ISC */
/* test_pv_remote.c - pv -R/-Q's messages: what is sent is what is read, and nothing more. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pv/remote.h"

static void test_message_round_trip(void **state)
{
	struct pv_remote_msg m, back;
	char text[2048];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.has_rate = m.has_name = m.has_format = m.has_interval = 1;
	m.rate = 10485760;
	m.interval = 0.5;
	strcpy(m.name, "gz\nsize 1"); /* a newline must not smuggle in a second setting */
	strcpy(m.format, "%b %{rate}");
	assert_int_equal(pv_remote_format(&m, text, sizeof(text)), 0);
	pv_remote_parse(text, &back);
	assert_false(back.query);
	assert_true(back.has_rate);
	assert_int_equal(back.rate, 10485760);
	assert_true(back.has_interval);
	assert_true(back.interval == 0.5);
	assert_string_equal(back.name, "gz");
	assert_false(back.has_size);
	assert_string_equal(back.format, "%b %{rate}");
	assert_false(back.has_width);
}

static void test_query_and_state(void **state)
{
	struct pv_remote_msg m, back;
	struct pv_remote_state s = { 123456789012u, 2000000, 12.5 }, got;
	char text[256];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.query = 1;
	assert_int_equal(pv_remote_format(&m, text, sizeof(text)), 0);
	pv_remote_parse(text, &back);
	assert_true(back.query);
	assert_int_equal(pv_remote_state_format(&s, text, sizeof(text)), 0);
	assert_int_equal(pv_remote_state_parse(text, &got), 0);
	assert_int_equal(got.count, s.count);
	assert_int_equal(got.size, s.size);
	assert_true(got.elapsed == 12.5);
	assert_int_equal(pv_remote_state_parse("garbage", &got), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_round_trip),
		cmocka_unit_test(test_query_and_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
