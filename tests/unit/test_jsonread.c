/* SPDX-License-Identifier: ISC */
/* test_jsonread.c - the JSON reader: every kind of value, escapes and surrogate
 * pairs, each malformed input refused with its offset, every prefix of a
 * valid document refused, and a depth bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jsonread.h"

static const char doc[] =
	"{\"ncpv\":\"0.1.0\",\"n\":-1.5e3,\"t\":true,\"f\":false,\"z\":null,\"a\":[1,[2,{}],[]],"
	"\"s\":\"q\\\"\\\\\\/\\b\\f\\n\\r\\t \\u00e9 \\u20ac \\ud83d\\ude00 \\ud800x\"}";

static void test_values_and_escapes(void **state)
{
	struct jvalue *v;
	char err[128];
	const struct jvalue *a;

	(void)state;
	assert_int_equal(jv_parse(doc, strlen(doc), &v, err, sizeof(err)), 0);
	assert_string_equal(jv_string(v, "ncpv", ""), "0.1.0");
	assert_true(jv_number(v, "n", 0) == -1500);
	assert_int_equal(jv_get(v, "t")->type, JV_TRUE);
	assert_int_equal(jv_get(v, "f")->type, JV_FALSE);
	assert_int_equal(jv_get(v, "z")->type, JV_NULL);
	a = jv_get(v, "a");
	assert_int_equal(a->n, 3);
	assert_int_equal(a->items[1].items[1].type, JV_OBJECT);
	assert_string_equal(jv_string(v, "s", ""),
			    "q\"\\/\b\f\n\r\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbdx");
	assert_null(jv_get(v, "missing"));
	assert_true(jv_number(v, "ncpv", 7) == 7);
	jv_free(v);
}

static void test_malformed_is_refused_with_the_offset(void **state)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "", "offset 0: expected a value" },
		{ "[1,]", "offset 3: expected a value" },
		{ "{\"a\" 1}", "offset 5: expected ':'" },
		{ "{1:2}", "offset 1: expected a key" },
		{ "\"abc", "offset 4: unterminated string" },
		{ "\"a\tb\"", "offset 3: control character in a string" },
		{ "\"\\x\"", "offset 3: bad escape in a string" },
		{ "\"\\u12g4\"", "offset 5: bad \\u escape" },
		{ "1 2", "offset 2: text after the value" },
		{ "tru", "offset 0: expected a value" },
		{ "1e", "offset 0: bad number" },
	};
	struct jvalue *v;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(jv_parse(bad[i].text, strlen(bad[i].text), &v, err, sizeof(err)), -1);
		assert_null(v);
		assert_string_equal(err, bad[i].err);
	}
}

static void test_every_prefix_is_refused_and_depth_is_bounded(void **state)
{
	char deep[JV_MAX_DEPTH + 8], err[128];
	struct jvalue *v;

	(void)state;
	for (size_t n = 0; n < strlen(doc); n++) {
		char *copy = malloc(n + 1);

		memcpy(copy, doc, n);
		assert_int_equal(jv_parse(copy, n, &v, err, sizeof(err)), -1);
		free(copy);
	}
	memset(deep, '[', sizeof(deep));
	assert_int_equal(jv_parse(deep, sizeof(deep), &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nested too deep"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_and_escapes),
		cmocka_unit_test(test_malformed_is_refused_with_the_offset),
		cmocka_unit_test(test_every_prefix_is_refused_and_depth_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
